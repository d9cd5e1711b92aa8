//! Programming an engine: bring-up, connections, memory regions, the send,
//! receive and completion rings with their doorbells, and completion
//! polling. Generic over a [`Device`]: register access plus the host memory
//! the engine reaches by DMA (the simulator's buffer, or pinned memory on
//! hardware). Every wait has a limit and ends in a typed error.

use ferroce_proto::config::dma_reaches;
use ferroce_proto::defaults::DEFAULTS;
use ferroce_proto::model::{Recovery, RepairRoute};
use ferroce_proto::regs::{self, conn_table, control, mr_table, queues, Reg};
use ferroce_proto::rings::{Cqe, Rqe, Wqe, CQE_BYTES, RQE_BYTES, WQE_BYTES};
use ferroce_proto::transport::Life;

use crate::discover::Engine;
use crate::{Error, RegisterAccess, Result};

/// An engine and the memory it reaches.
pub trait Device: RegisterAccess {
    /// The host CPU writes DMA-visible memory.
    fn write_mem(&mut self, addr: u64, data: &[u8]) -> Result<()>;
    /// The host CPU reads DMA-visible memory.
    fn read_mem(&mut self, addr: u64, buf: &mut [u8]) -> Result<()>;
    /// Let the engine work for a while (the simulator runs cycles; hardware
    /// sleeps briefly).
    fn idle(&mut self) -> Result<()>;
}

/// Engine-wide settings written at bring-up.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    pub mac: [u8; 6],
    pub ip: [u8; 4],
    /// UDP destination port of ferroce traffic.
    pub udp_port: u16,
    /// Payload bytes per packet.
    pub mtu: u32,
    pub ack_every: u32,
    pub ack_delay_ns: u32,
    pub rto_min_ns: u32,
    pub rnr_delay_ns: u32,
    pub port_seed: u32,
    /// The port's line rate: connections are paced at most at it, and a
    /// receiver divides it among the connections sending to it.
    pub line_rate_mbps: u32,
    /// Loss-recovery settings (`control.recovery`): only those the RTL
    /// implements may differ from v0's, bring-up refuses the others.
    pub recovery: Recovery,
    /// Packets a path may have in flight at most (`control.window_cap`,
    /// 1..=256): set it to the peer's `engine_info.max_in_flight` when that
    /// build keeps a smaller window than this one. Bring-up writes the
    /// smaller of it and this build's own window, which bounds it anyway.
    pub window_cap: u32,
}

impl Config {
    /// `mac` and `ip` with the settings the registers reset to
    /// ([`DEFAULTS`]: UDP port 17989, 1024-byte packets, an ACK every 4
    /// packets or after 2 us, RTOs of at least 100 us, SEND retries after
    /// 50 us, port seed 0, a 10 Gb/s port, v0's loss recovery, no window
    /// cap below the build's window), the model's defaults too.
    pub fn new(mac: [u8; 6], ip: [u8; 4]) -> Config {
        Config {
            mac,
            ip,
            udp_port: DEFAULTS.udp_port,
            mtu: DEFAULTS.mtu,
            ack_every: DEFAULTS.ack_every as u32,
            ack_delay_ns: DEFAULTS.ack_delay_ns,
            rto_min_ns: DEFAULTS.rto_min_ns,
            rnr_delay_ns: DEFAULTS.rnr_delay_ns,
            port_seed: DEFAULTS.port_seed,
            line_rate_mbps: DEFAULTS.line_rate_mbps,
            recovery: DEFAULTS.recovery,
            window_cap: DEFAULTS.window_cap,
        }
    }

    /// Every register bring-up writes before it enables the engine, with
    /// its value: the endpoint's addresses, then the transport settings
    /// (the registers of [`Defaults::settings`], in its order; a test
    /// checks they are the same).
    ///
    /// [`Defaults::settings`]: ferroce_proto::defaults::Defaults::settings
    pub fn settings(&self) -> [(Reg, u32); 14] {
        let (lo, hi) = mac_words(self.mac);
        [
            (control::MAC_LO, lo),
            (control::MAC_HI, hi),
            (control::IP, u32::from_be_bytes(self.ip)),
            (control::UDP_PORT, self.udp_port as u32),
            (control::LINE_RATE_MBPS, self.line_rate_mbps),
            (control::MTU, self.mtu),
            (control::ACK_EVERY, self.ack_every),
            (control::ACK_DELAY_NS, self.ack_delay_ns),
            (control::RTO_MIN_NS, self.rto_min_ns),
            (control::RNR_DELAY_NS, self.rnr_delay_ns),
            (control::PORT_SEED, self.port_seed),
            (control::RECOVERY, self.recovery.word()),
            (control::WINDOW_CAP, self.window_cap),
            (control::WINDOW_SCALE, self.recovery.window_scale() as u32),
        ]
    }
}

/// One ring in host memory: where, and log2 of its entries.
#[derive(Debug, Clone, Copy)]
pub struct RingSpec {
    pub base: u64,
    pub log_size: u32,
}

/// A connection as the engine's table holds it.
#[derive(Debug, Clone, Copy)]
pub struct ConnSpec {
    pub index: u32,
    pub remote: u32,
    pub peer_mac: [u8; 6],
    pub peer_ip: [u8; 4],
    pub paths: u32,
    pub streams: u32,
    /// The rate before the receiver's first hint (0: the line rate).
    pub initial_rate_mbps: u32,
}

/// A memory region open to remote WRITEs.
#[derive(Debug, Clone, Copy)]
pub struct MrSpec {
    pub slot: u32,
    pub rkey: u32,
    pub base: u64,
    pub len: u64,
    pub remote_write: bool,
    /// The only connection allowed to write.
    pub conn: u32,
}

#[derive(Debug, Clone, Copy)]
struct Ring {
    spec: RingSpec,
    prod: u32,
    cons: u32,
}

impl Ring {
    fn size(&self) -> u32 {
        1 << self.spec.log_size
    }
    fn slot(&self, index: u32, entry: usize) -> u64 {
        self.spec.base + ((index & (self.size() - 1)) as u64) * entry as u64
    }
}

/// Whether `block.reg` takes `value`, from the register map: a value
/// outside the register's range is refused here, naming the register and
/// its range. The engine answers such a write with SLVERR and keeps the old
/// value, but over PCIe a register write is posted and nobody sees the
/// answer, so every write is checked before it leaves.
pub fn check_value(reg: Reg, value: u32) -> Result<()> {
    match reg.register().range {
        Some(b) if !b.contains(value) => Err(Error::BadRequest(format!("{reg}: {value} is out of range {b}"))),
        _ => Ok(()),
    }
}

/// `what` (a ring, a region, a buffer) must lie below 2^`bits`, the
/// engine's DMA addresses (`engine_info.dma_addr_bits`).
fn within_dma(bits: u32, what: String, base: u64, len: u64) -> Result<()> {
    if dma_reaches(bits, base, len) {
        return Ok(());
    }
    Err(Error::BadRequest(format!(
        "{what}: {base:#x}+{len} does not lie below 2^{bits}, the engine's DMA addresses (engine_info.dma_addr_bits)"
    )))
}

/// Polls of a command status before giving up.
const CMD_POLLS: usize = 1_000;

/// A running engine.
pub struct Driver<D: Device> {
    pub dev: D,
    map: Engine,
    sq: Ring,
    rq: Ring,
    cq: Ring,
    /// Connections and streams per connection the engine was built with.
    max_conns: u32,
    max_streams: u32,
    max_mrs: u32,
    /// Bits of the DMA addresses the engine drives
    /// (`engine_info.dma_addr_bits`).
    dma_addr_bits: u32,
}

impl<D: Device> std::fmt::Debug for Driver<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver").field("sq", &self.sq).field("rq", &self.rq).field("cq", &self.cq).finish()
    }
}

fn mac_words(m: [u8; 6]) -> (u32, u32) {
    (u32::from_be_bytes([m[2], m[3], m[4], m[5]]), u16::from_be_bytes([m[0], m[1]]) as u32)
}

impl<D: Device> Driver<D> {
    /// Find the engine's register blocks, write the settings and the rings,
    /// and enable it.
    pub fn bring_up(mut dev: D, cfg: &Config, sq: RingSpec, rq: RingSpec, cq: RingSpec) -> Result<Driver<D>> {
        let settings = cfg.settings();
        // All of them before anything is written.
        cfg.recovery.register().map_err(|e| Error::BadRequest(format!("loss recovery: {e}")))?;
        for (reg, v) in settings {
            check_value(reg, v)?;
        }
        for (name, r, entry) in [("send", sq, WQE_BYTES), ("receive", rq, RQE_BYTES), ("completion", cq, CQE_BYTES)] {
            if r.log_size == 0 || r.log_size > 16 || r.base % entry as u64 != 0 {
                return Err(Error::BadRequest(format!(
                    "{name} ring: log size {} must be 1..=16 and base {:#x} a multiple of {entry}",
                    r.log_size, r.base
                )));
            }
        }
        let map = Engine::discover(&mut dev, 0)?;
        // (Read only when asked for probes, rack, the connection window or
        // clean-route repairs: a v0 bring-up reads what it did before the
        // register existed.)
        let clean = cfg.recovery.repair_route == RepairRoute::CleanPath;
        if cfg.recovery.probe || cfg.recovery.rack || cfg.recovery.path_rack || cfg.recovery.conn_window || clean {
            let built = dev.read32(map.addr(regs::engine_info::RECOVERY))?;
            let parts = [
                (cfg.recovery.probe, regs::BUILT_TAIL_PROBES, "tail probes"),
                (cfg.recovery.rack || cfg.recovery.path_rack, regs::BUILT_RACK, "rack, the connection-level loss detection"),
                (cfg.recovery.conn_window, regs::BUILT_CONN_WINDOW, "connection window"),
                (clean, regs::BUILT_CLEAN_REPAIRS, "clean-route repairs"),
            ];
            for (asked, bit, what) in parts {
                if asked && built & bit == 0 {
                    return Err(Error::BadRequest(format!(
                        "loss recovery: this engine's build has no {what} (engine_info.recovery bit {} is clear)",
                        bit.trailing_zeros()
                    )));
                }
            }
        }
        let dma_addr_bits = dev.read32(map.addr(regs::engine_info::DMA_ADDR_BITS))?;
        for (name, r, entry) in [("send", sq, WQE_BYTES), ("receive", rq, RQE_BYTES), ("completion", cq, CQE_BYTES)] {
            within_dma(dma_addr_bits, format!("{name} ring"), r.base, (entry as u64) << r.log_size)?;
        }
        // No completion anywhere in the ring yet (see [`Driver::poll`]).
        dev.write_mem(cq.base, &vec![0u8; CQE_BYTES << cq.log_size])?;
        let mut d = Driver {
            dev,
            map,
            sq: Ring { spec: sq, prod: 0, cons: 0 },
            rq: Ring { spec: rq, prod: 0, cons: 0 },
            cq: Ring { spec: cq, prod: 0, cons: 0 },
            max_conns: 0,
            max_streams: 0,
            max_mrs: 0,
            dma_addr_bits,
        };
        d.max_conns = d.get(regs::engine_info::MAX_CONNS)?;
        d.max_streams = d.get(regs::engine_info::MAX_STREAMS)?;
        d.max_mrs = d.get(regs::engine_info::MAX_MRS)?;
        let window = d.get(regs::engine_info::MAX_IN_FLIGHT)?;
        for (reg, v) in settings {
            d.set(reg, if reg == control::WINDOW_CAP { v.min(window) } else { v })?;
        }
        for ([lo, hi, log], r) in [
            ([queues::SQ_BASE_LO, queues::SQ_BASE_HI, queues::SQ_LOG_SIZE], sq),
            ([queues::RQ_BASE_LO, queues::RQ_BASE_HI, queues::RQ_LOG_SIZE], rq),
            ([queues::CQ_BASE_LO, queues::CQ_BASE_HI, queues::CQ_LOG_SIZE], cq),
        ] {
            d.set(lo, r.base as u32)?;
            d.set(hi, (r.base >> 32) as u32)?;
            d.set(log, r.log_size)?;
        }
        d.sq.cons = d.get(queues::SQ_CONS)?;
        d.sq.prod = d.sq.cons;
        d.set(queues::SQ_PROD, d.sq.prod)?;
        d.rq.cons = d.get(queues::RQ_CONS)?;
        d.rq.prod = d.rq.cons;
        d.set(queues::RQ_PROD, d.rq.prod)?;
        d.cq.prod = d.get(queues::CQ_PROD)?;
        d.cq.cons = d.cq.prod;
        d.set(queues::CQ_CONS, d.cq.cons)?;
        d.set(control::CTRL, 1)?;
        Ok(d)
    }

    /// Write register `reg` (`control::MTU`, ...); a value outside
    /// its range (see [`check_value`]) is refused without writing.
    pub fn set(&mut self, reg: Reg, v: u32) -> Result<()> {
        check_value(reg, v)?;
        self.dev.write32(self.map.addr(reg), v)
    }

    /// Read register `reg`.
    pub fn get(&mut self, reg: Reg) -> Result<u32> {
        self.dev.read32(self.map.addr(reg))
    }

    /// Issue a table command (`cmd`, then poll `status`).
    fn command(&mut self, [cmd_reg, status]: [Reg; 2], cmd: u32, what: String) -> Result<()> {
        self.set(cmd_reg, cmd)?;
        for _ in 0..CMD_POLLS {
            match self.get(status)? {
                0 => return Ok(()),
                1 => self.dev.idle()?,
                _ => return Err(Error::Refused(what)),
            }
        }
        Err(Error::Timeout(what))
    }

    /// Open connection `c`.
    pub fn connect(&mut self, c: &ConnSpec) -> Result<()> {
        self.connect_life(c, Life::default())
    }

    /// As [`Driver::connect`], in the life both ends agreed (a connection
    /// manager's exchange): the generation every packet of the connection
    /// carries, and the first PSN of every path in each direction. Set a
    /// connection up again with a new generation so that packets of its
    /// earlier life, still on the fabric, are dropped.
    pub fn connect_life(&mut self, c: &ConnSpec, life: Life) -> Result<()> {
        let max_paths = self.get(regs::engine_info::MAX_PATHS)?;
        let max_streams = self.get(regs::engine_info::MAX_STREAMS)?;
        let max_conns = self.get(regs::engine_info::MAX_CONNS)?;
        if c.paths == 0 || c.paths > max_paths || c.streams == 0 || c.streams > max_streams || c.index >= max_conns {
            return Err(Error::BadRequest(format!(
                "connection {}: this engine takes index < {max_conns}, 1..={max_paths} paths and 1..={max_streams} \
                 streams (got {} and {})",
                c.index, c.paths, c.streams
            )));
        }
        let (lo, hi) = mac_words(c.peer_mac);
        self.set(conn_table::INDEX, c.index)?;
        self.set(conn_table::REMOTE_ID, c.remote)?;
        self.set(conn_table::PEER_IP, u32::from_be_bytes(c.peer_ip))?;
        self.set(conn_table::PEER_MAC_LO, lo)?;
        self.set(conn_table::PEER_MAC_HI, hi)?;
        self.set(conn_table::PATHS, c.paths)?;
        self.set(conn_table::STREAMS, c.streams)?;
        self.set(conn_table::INITIAL_RATE_MBPS, c.initial_rate_mbps)?;
        self.set(conn_table::TX_PSN, life.tx_psn.get())?;
        self.set(conn_table::RX_PSN, life.rx_psn.get())?;
        self.set(conn_table::GENERATION, life.generation as u32)?;
        self.command([conn_table::CMD, conn_table::CMD_STATUS], 1, format!("connection {}", c.index))
    }

    /// Close connection `index`: its receive side takes nothing more and its
    /// new work requests fail; what its send side still has outstanding may
    /// go out again until it is set up again (in a new life, see
    /// [`Driver::connect_life`], whose generation the peer tells apart).
    pub fn close(&mut self, index: u32) -> Result<()> {
        self.set(conn_table::INDEX, index)?;
        self.command([conn_table::CMD, conn_table::CMD_STATUS], 3, format!("closing connection {index}"))
    }

    /// Open memory region `m` to remote WRITEs.
    pub fn register_mr(&mut self, m: &MrSpec) -> Result<()> {
        if m.slot >= self.max_mrs {
            return Err(Error::BadRequest(format!(
                "region slot {}: this engine has {} memory-region slots (engine_info.max_mrs)",
                m.slot, self.max_mrs
            )));
        }
        if m.len == 0 || m.base.checked_add(m.len).is_none() {
            return Err(Error::BadRequest(format!(
                "region slot {}: {:#x}+{} is empty or wraps",
                m.slot, m.base, m.len
            )));
        }
        self.check_reach("region slot", m.slot, m.base, m.len)?;
        self.set(mr_table::INDEX, m.slot)?;
        self.set(mr_table::RKEY, m.rkey)?;
        self.set(mr_table::BASE_LO, m.base as u32)?;
        self.set(mr_table::BASE_HI, (m.base >> 32) as u32)?;
        self.set(mr_table::LEN_LO, m.len as u32)?;
        self.set(mr_table::LEN_HI, (m.len >> 32) as u32)?;
        self.set(mr_table::ACCESS, m.remote_write as u32)?;
        self.set(mr_table::CONN, m.conn)?;
        self.command([mr_table::CMD, mr_table::CMD_STATUS], 1, format!("memory region {}", m.slot))
    }

    fn room(&mut self, send: bool) -> Result<bool> {
        let (ring, reg) = if send { (self.sq, queues::SQ_CONS) } else { (self.rq, queues::RQ_CONS) };
        if ring.prod.wrapping_sub(ring.cons) < ring.size() {
            return Ok(true);
        }
        let cons = self.get(reg)?;
        if send {
            self.sq.cons = cons;
        } else {
            self.rq.cons = cons;
        }
        let ring = if send { self.sq } else { self.rq };
        Ok(ring.prod.wrapping_sub(ring.cons) < ring.size())
    }

    /// Queue a work request; `false` if the send ring is full. The engine
    /// sees it at the next [`Driver::ring_doorbells`].
    pub fn post_send(&mut self, w: &Wqe) -> Result<bool> {
        if w.len == 0 {
            return Err(Error::BadRequest(format!("work request {}: zero-length message", w.id)));
        }
        self.check_target("work request", w.id, w.conn, w.stream)?;
        self.check_reach("work request", w.id, w.local, w.len as u64)?;
        self.push(true, &w.encode())
    }

    /// Queue a 64-byte send-queue entry exactly as given, without the
    /// checks of [`Driver::post_send`] (the engine completes a malformed one
    /// with status 3); `false` if the send ring is full.
    pub fn post_send_raw(&mut self, entry: &[u8; WQE_BYTES]) -> Result<bool> {
        self.push(true, entry)
    }

    /// Post a receive buffer; `false` if the receive ring is full.
    pub fn post_recv(&mut self, r: &Rqe) -> Result<bool> {
        if r.len == 0 || r.addr.checked_add(r.len as u64).is_none() {
            return Err(Error::BadRequest(format!("receive buffer {}: empty or wrapping", r.id)));
        }
        self.check_target("receive buffer", r.id, r.conn, r.stream)?;
        self.check_reach("receive buffer", r.id, r.addr, r.len as u64)?;
        self.push(false, &r.encode())
    }

    /// The engine must reach a request's local buffer (or a region).
    fn check_reach(&self, what: &str, id: u32, base: u64, len: u64) -> Result<()> {
        within_dma(self.dma_addr_bits, format!("{what} {id}"), base, len)
    }

    /// A request's connection and stream must exist in this engine.
    fn check_target(&self, what: &str, id: u32, conn: u16, stream: u8) -> Result<()> {
        if conn as u32 >= self.max_conns || stream as u32 >= self.max_streams {
            return Err(Error::BadRequest(format!(
                "{what} {id}: connection {conn} stream {stream} (this engine has {} connections of {} streams)",
                self.max_conns, self.max_streams
            )));
        }
        Ok(())
    }

    /// Write `entry` at the producer index of the send (or receive) ring and
    /// advance it; `false` if the ring is full.
    fn push(&mut self, send: bool, entry: &[u8]) -> Result<bool> {
        if !self.room(send)? {
            return Ok(false);
        }
        let (ring, bytes) = if send { (&mut self.sq, WQE_BYTES) } else { (&mut self.rq, RQE_BYTES) };
        let at = ring.slot(ring.prod, bytes);
        self.dev.write_mem(at, entry)?;
        ring.prod = ring.prod.wrapping_add(1);
        Ok(true)
    }

    /// Tell the engine about everything posted.
    pub fn ring_doorbells(&mut self) -> Result<()> {
        self.set(queues::SQ_PROD, self.sq.prod)?;
        self.set(queues::RQ_PROD, self.rq.prod)
    }

    /// Completions written since the last call.
    ///
    /// The engine's producer index may run ahead of its completion's DMA
    /// write: behind Corundum's DMA engine the index moves when the entry
    /// is handed to the DMA, before the host memory holds it. So the driver
    /// keeps the ring zeroed where no completion is (at bring-up and after
    /// taking each entry) and takes an entry only once its kind is not
    /// zero; one not landed yet is taken by a later poll.
    pub fn poll(&mut self) -> Result<Vec<Cqe>> {
        let prod = self.get(queues::CQ_PROD)?;
        let mut out = Vec::new();
        while self.cq.cons != prod {
            let mut b = [0u8; CQE_BYTES];
            let at = self.cq.slot(self.cq.cons, CQE_BYTES);
            self.dev.read_mem(at, &mut b)?;
            if ferroce_proto::rings::cqe::KIND.get(&b) == 0 {
                break;
            }
            out.push(Cqe::decode(&b).map_err(|e| Error::BadCompletion(e.to_string()))?);
            self.dev.write_mem(at, &[0u8; CQE_BYTES])?;
            self.cq.cons = self.cq.cons.wrapping_add(1);
        }
        if !out.is_empty() {
            self.set(queues::CQ_CONS, self.cq.cons)?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::*;
    use ferroce_proto::regs::RegFile;

    /// Registers as a PCIe BAR shows them: every write is posted and looks
    /// taken, whatever the engine answers. The writes are recorded where the
    /// test still sees them after the device has moved into the driver.
    struct Posted {
        file: RegFile,
        writes: Writes,
        /// `engine_info.dma_addr_bits` of a build other than the map's.
        dma_addr_bits: Option<u32>,
        /// `engine_info.recovery` of a build other than the map's.
        recovery_built: Option<u32>,
    }

    /// (offset, value) of every write, in order.
    type Writes = Rc<RefCell<Vec<(u32, u32)>>>;

    impl RegisterAccess for Posted {
        fn read32(&mut self, offset: u32) -> Result<u32> {
            if let Some(bits) = self.dma_addr_bits.filter(|_| offset == regs::engine_info::DMA_ADDR_BITS.offset()) {
                return Ok(bits);
            }
            if let Some(v) = self.recovery_built.filter(|_| offset == regs::engine_info::RECOVERY.offset()) {
                return Ok(v);
            }
            self.file.read(offset).map_err(|e| Error::Access { offset, what: format!("{e:?}") })
        }
        fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
            self.writes.borrow_mut().push((offset, value));
            let _ = self.file.write(offset, value);
            Ok(())
        }
    }

    impl Device for Posted {
        fn write_mem(&mut self, _: u64, _: &[u8]) -> Result<()> {
            Ok(())
        }
        fn read_mem(&mut self, _: u64, _: &mut [u8]) -> Result<()> {
            Ok(())
        }
        fn idle(&mut self) -> Result<()> {
            Ok(())
        }
    }

    fn posted() -> (Posted, Writes) {
        let writes = Rc::default();
        let file = RegFile::new();
        (Posted { file, writes: Rc::clone(&writes), dma_addr_bits: None, recovery_built: None }, writes)
    }

    fn rings() -> (RingSpec, RingSpec, RingSpec) {
        (
            RingSpec { base: 0, log_size: 2 },
            RingSpec { base: 0x1000, log_size: 2 },
            RingSpec { base: 0x2000, log_size: 2 },
        )
    }

    fn cfg() -> Config {
        Config::new([2, 0, 0, 0, 0, 1], [10, 0, 0, 1])
    }

    fn refusal(r: Result<()>) -> String {
        match r {
            Err(Error::BadRequest(m)) => m,
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn an_out_of_range_value_is_refused_by_name_and_range_before_it_is_written() {
        let (sq, rq, cq) = rings();
        let (dev, writes) = posted();
        let mut d = Driver::bring_up(dev, &cfg(), sq, rq, cq).unwrap();
        let max_mtu = d.get(regs::engine_info::MAX_MTU).unwrap();
        let mtu = regs::control::MTU.offset();
        writes.borrow_mut().clear();
        for bad in [0, max_mtu + 1] {
            assert_eq!(refusal(d.set(control::MTU, bad)), format!("control.mtu: {bad} is out of range 1..={max_mtu}"));
        }
        assert_eq!(*writes.borrow(), [], "a refused value reached the bus");
        assert_eq!(d.get(control::MTU).unwrap(), cfg().mtu);
        d.set(control::MTU, max_mtu).unwrap();
        assert_eq!(*writes.borrow(), [(mtu, max_mtu)]);
        assert_eq!(d.get(control::MTU).unwrap(), max_mtu);
        let m = refusal(d.set(queues::SQ_LOG_SIZE, 32));
        assert!(m.starts_with("queues.sq_log_size: 32 is out of range 0..="), "{m}");
    }

    #[test]
    fn bring_up_refuses_a_setting_out_of_range_before_writing_any() {
        let (sq, rq, cq) = rings();
        for (reg, c) in [
            ("mtu", Config { mtu: 0, ..cfg() }),
            ("mtu", Config { mtu: regs::MAX_MTU + 1, ..cfg() }),
            ("ack_every", Config { ack_every: 0, ..cfg() }),
            ("line_rate_mbps", Config { line_rate_mbps: 0, ..cfg() }),
            ("rto_min_ns", Config { rto_min_ns: u32::MAX, ..cfg() }),
        ] {
            let (dev, writes) = posted();
            let m = refusal(Driver::bring_up(dev, &c, sq, rq, cq).map(|_| ()));
            assert!(m.starts_with(&format!("control.{reg}: ")) && m.contains(" is out of range "), "{m}");
            assert_eq!(*writes.borrow(), [], "{reg}: written before the refusal");
        }
        // Loss recovery at values the RTL holds constant, or beyond the
        // register's fields: refused by name, nothing written.
        for (what, recovery) in [
            ("start_window 32", Recovery { start_window: 32, ..Recovery::v1() }),
            ("reo_min 3000000", Recovery { reo_min: 3_000_000, ..Recovery::v1() }),
            ("max_backoff 9", Recovery { max_backoff: 9, ..Recovery::v0() }),
        ] {
            let (dev, writes) = posted();
            let c = Config { recovery, ..cfg() };
            let m = match Driver::bring_up(dev, &c, sq, rq, cq) {
                Err(Error::BadRequest(m)) => m,
                other => panic!("{what}: {:?}", other.map(|_| ())),
            };
            assert!(m.starts_with("loss recovery: ") && m.contains(what), "{m}");
            assert_eq!(*writes.borrow(), [], "{what}: written before the refusal");
        }
        let (dev, _) = posted();
        let c = Config { recovery: Recovery::v1(), ..cfg() };
        if let Err(Error::BadRequest(m)) = Driver::bring_up(dev, &c, sq, rq, cq) {
            assert!(!m.contains("loss recovery"), "v1 is accepted: {m}");
        }
        // Tail probes asked of a build without them: refused before any
        // setting is written.
        let (mut dev, writes) = posted();
        dev.recovery_built = Some(0);
        let m = refusal(Driver::bring_up(dev, &c, sq, rq, cq).map(|_| ()));
        assert!(m.contains("no tail probes"), "{m}");
        assert_eq!(*writes.borrow(), [], "written before the refusal");
        let same_path = Recovery { repair_route: RepairRoute::SamePath, ..Recovery::v1() };
        let (mut dev, _) = posted();
        dev.recovery_built = Some(0);
        let v0 =
            Config { recovery: Recovery { probe: false, rack: false, path_rack: false, conn_window: false, ..same_path }, ..cfg() };
        if let Err(Error::BadRequest(m)) = Driver::bring_up(dev, &v0, sq, rq, cq) {
            assert!(!m.contains("loss recovery"), "without probes and rack it is accepted: {m}");
        }
        // Rack asked of a build with tail probes only: refused by name.
        let (mut dev, writes) = posted();
        dev.recovery_built = Some(regs::BUILT_TAIL_PROBES);
        let m = refusal(Driver::bring_up(dev, &c, sq, rq, cq).map(|_| ()));
        assert!(m.contains("no rack"), "{m}");
        assert_eq!(*writes.borrow(), [], "written before the refusal");
        let (mut dev, _) = posted();
        dev.recovery_built = Some(regs::BUILT_TAIL_PROBES);
        let probes =
            Config { recovery: Recovery { rack: false, path_rack: false, conn_window: false, ..same_path }, ..cfg() };
        if let Err(Error::BadRequest(m)) = Driver::bring_up(dev, &probes, sq, rq, cq) {
            assert!(!m.contains("loss recovery"), "probes without rack are accepted there: {m}");
        }
        // The connection window asked of a build without it: refused by name.
        let (mut dev, writes) = posted();
        dev.recovery_built = Some(regs::BUILT_TAIL_PROBES | regs::BUILT_RACK);
        let m = refusal(Driver::bring_up(dev, &c, sq, rq, cq).map(|_| ()));
        assert!(m.contains("no connection window"), "{m}");
        assert_eq!(*writes.borrow(), [], "written before the refusal");
        let (mut dev, _) = posted();
        dev.recovery_built = Some(regs::BUILT_TAIL_PROBES | regs::BUILT_RACK);
        let unwindowed = Config { recovery: Recovery { conn_window: false, ..same_path }, ..cfg() };
        if let Err(Error::BadRequest(m)) = Driver::bring_up(dev, &unwindowed, sq, rq, cq) {
            assert!(!m.contains("loss recovery"), "probes and rack without the window are accepted there: {m}");
        }
        // Clean-route repairs asked of a build without them: refused by name.
        let windowed = regs::BUILT_TAIL_PROBES | regs::BUILT_RACK | regs::BUILT_CONN_WINDOW;
        let (mut dev, writes) = posted();
        dev.recovery_built = Some(windowed);
        let m = refusal(Driver::bring_up(dev, &c, sq, rq, cq).map(|_| ()));
        assert!(m.contains("no clean-route repairs") && m.contains("bit 3"), "{m}");
        assert_eq!(*writes.borrow(), [], "written before the refusal");
        let (mut dev, _) = posted();
        dev.recovery_built = Some(windowed);
        let own_route = Config { recovery: same_path, ..cfg() };
        if let Err(Error::BadRequest(m)) = Driver::bring_up(dev, &own_route, sq, rq, cq) {
            assert!(!m.contains("loss recovery"), "v1 with repairs on their own path is accepted there: {m}");
        }
    }

    /// A build with 32-bit DMA addresses: rings, regions and buffers that
    /// do not lie below 2^32 are refused by name before anything about
    /// them is written; a 64-bit build takes them.
    #[test]
    fn what_the_engines_dma_addresses_do_not_reach_is_refused() {
        use ferroce_proto::rings::WqeOp;
        let (sq, rq, cq) = rings();
        let narrow = || {
            let (mut dev, writes) = posted();
            dev.dma_addr_bits = Some(32);
            (dev, writes)
        };
        let high = RingSpec { base: 1 << 32, log_size: 2 };
        for (name, [s, r, c]) in [("send", [high, rq, cq]), ("receive", [sq, high, cq]), ("completion", [sq, rq, high])]
        {
            let (dev, writes) = narrow();
            let m = match Driver::bring_up(dev, &cfg(), s, r, c) {
                Err(Error::BadRequest(m)) => m,
                other => panic!("{name}: {:?}", other.map(|_| ())),
            };
            assert!(m.starts_with(&format!("{name} ring: 0x100000000+")), "{m}");
            assert!(m.contains("below 2^32") && m.contains("engine_info.dma_addr_bits"), "{m}");
            assert_eq!(*writes.borrow(), [], "{name}: written before the refusal");
        }
        // Its end (exclusive) must lie below 2^32, as a region's must.
        let at = |base| RingSpec { base, log_size: 2 };
        let last = (1 << 32) - 4 * WQE_BYTES as u64;
        let (dev, _) = narrow();
        let m = refusal(Driver::bring_up(dev, &cfg(), at(last), rq, cq).map(|_| ()));
        assert!(m.starts_with("send ring: 0xffffff00+256 does not lie below 2^32"), "{m}");
        let (dev, writes) = narrow();
        let mut d = Driver::bring_up(dev, &cfg(), at(last - 64), rq, cq).expect("a ring ending below 2^32");
        writes.borrow_mut().clear();
        let mr = |base, len| MrSpec { slot: 0, rkey: 1, base, len, remote_write: true, conn: 0 };
        let m = refusal(d.register_mr(&mr(0xffff_f000, 0x1000)));
        assert_eq!(m, "region slot 0: 0xfffff000+4096 does not lie below 2^32, the engine's DMA addresses (engine_info.dma_addr_bits)");
        let wqe = |local| Wqe { op: WqeOp::Write, stream: 0, conn: 0, len: 64, local, remote: 1 << 40, rkey: 1, imm: 0, id: 7 };
        let m = match d.post_send(&wqe(u32::MAX as u64 - 63)) {
            Err(Error::BadRequest(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(m.starts_with("work request 7: 0xffffffc0+64 does not lie below 2^32"), "{m}");
        let rqe = Rqe { conn: 0, stream: 0, len: 16, addr: 1 << 33, id: 9 };
        let m = match d.post_recv(&rqe) {
            Err(Error::BadRequest(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(m.starts_with("receive buffer 9: 0x200000000+16 does not lie below 2^32"), "{m}");
        assert_eq!(*writes.borrow(), [], "a refused request reached the bus");
        // The peer's address is the peer's: a 32-bit build sends to any.
        assert_eq!(d.post_send(&wqe(u32::MAX as u64 - 64)).unwrap(), true);
        d.register_mr(&mr(0xffff_f000, 0xfff)).unwrap();
        assert!(writes.borrow().contains(&(mr_table::BASE_LO.offset(), 0xffff_f000)));
        // A 64-bit build reaches them all.
        let (dev, _) = posted();
        let mut d = Driver::bring_up(dev, &cfg(), high, rq, cq).unwrap();
        assert_eq!(d.post_recv(&rqe).unwrap(), true);
        assert_eq!(d.post_send(&wqe(1 << 40)).unwrap(), true);
    }
}
