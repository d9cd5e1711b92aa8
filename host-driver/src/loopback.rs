//! A loopback transfer: connection 0 of an engine sends to connection 1 of
//! the same engine (its MAC looped back), through the rings, and the bytes
//! that land are checked against the source. Used by `ferroce loopback`
//! and the end-to-end tests. [`run`] works on any [`Device`]: the simulated
//! engine ([`run_sim`]) or a NIC with DMA memory ([`run_hw`]; its MAC port
//! must be looped back, by a cable or the shell).

use std::path::PathBuf;

use ferroce_proto::regs::{path_table, stats, Reg, MAX_MTU, MAX_PATHS, MAX_STREAMS};
use ferroce_proto::rings::{Cqe, CqeKind, Rqe, Wqe, WqeOp, CQE_BYTES, RQE_BYTES, WQE_BYTES};
use ferroce_proto::rng::Rng;
use ferroce_proto::Iova;
use ferroce_sim::memory::Memory;

use crate::board::{BoardDevice, Bridge};
use crate::cocotb::Bench;
use crate::driver::{Config, ConnSpec, Device, Driver, MrSpec, RingSpec};
use crate::sim::SimLoopback;
use crate::vfio::HwDevice;
use crate::{Error, Result};

/// What the messages are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Write,
    WriteImm,
    Send,
    /// WRITE, WRITE with immediate and SEND in turn.
    Mixed,
}

/// A loopback run.
#[derive(Debug, Clone)]
pub struct Opts {
    pub op: Op,
    /// Bytes per message.
    pub size: u32,
    pub count: u32,
    pub paths: u32,
    pub streams: u32,
    /// Chance that the looped wire loses a frame.
    pub loss: f64,
    pub seed: u64,
    /// Payload bytes per packet.
    pub mtu: u32,
    /// Compare every byte and completion (on by default).
    pub verify: bool,
    pub pcap: Option<PathBuf>,
    /// Simulator only: chance per cycle that each DMA port stalls.
    pub dma_stall: f64,
    /// Simulator only: the engine build (a `ferroce_proto::config` preset).
    pub preset: String,
    /// The port's line rate, for pacing and the rate hint (the simulated
    /// MAC interface's by default).
    pub line_rate_mbps: u32,
    /// Read the engine's counters and every path's state at the end
    /// ([`Report::stats`]).
    pub stats: bool,
    /// Loss-recovery settings (`control.recovery`); bring-up refuses those
    /// the engine's RTL does not implement.
    pub recovery: ferroce_proto::model::Recovery,
    /// Packets a path may have in flight at most (`control.window_cap`;
    /// the build's window bounds it further).
    pub window_cap: u32,
}

impl Default for Opts {
    fn default() -> Self {
        Opts {
            op: Op::Write,
            size: 64 << 10,
            count: 64,
            paths: 8,
            streams: 4,
            loss: 0.01,
            seed: 1,
            mtu: ferroce_proto::defaults::DEFAULTS.mtu,
            verify: true,
            pcap: None,
            dma_stall: 0.1,
            preset: "corundum".into(),
            line_rate_mbps: crate::SIM_LINE_MBPS,
            stats: false,
            recovery: ferroce_proto::model::Recovery::v0(),
            window_cap: ferroce_proto::defaults::DEFAULTS.window_cap,
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Report {
    pub bytes: u64,
    pub messages: u32,
    pub verified: bool,
    /// Payload bytes over what the 64-bit MAC interface could carry in the
    /// same cycles.
    pub goodput_fraction: f64,
    pub retransmits: u32,
    pub duration_cycles: u64,
    pub frames: u64,
    pub frames_lost: u64,
    /// Frame bytes the engine sent (simulator only), over the MAC interface's
    /// capacity in the same cycles: how busy it kept its wire.
    pub wire_fraction: Option<f64>,
    pub rtos: u32,
    pub completions: u32,
    /// With [`Opts::stats`]: the engine's counters and paths after the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<RunStats>,
}

/// The engine's counters and the state of every path of both connections
/// at the end of a run.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct RunStats {
    /// Every register of the `stats` block by name (a `_lo`/`_hi` pair as
    /// one 64-bit value under the name without the suffix), in map order;
    /// a JSON object.
    #[serde(serialize_with = "in_order")]
    pub counters: Vec<(String, u64)>,
    pub paths: Vec<PathState>,
}

fn in_order<S: serde::Serializer>(v: &[(String, u64)], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_map(v.iter().map(|(k, v)| (k, v)))
}

impl RunStats {
    /// The counter called `name`.
    pub fn counter(&self, name: &str) -> Option<u64> {
        self.counters.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
}

/// One path as the path table shows it.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct PathState {
    pub conn: u32,
    pub path: u32,
    /// Its UDP source port now (a re-path draws a new one).
    pub sport: u32,
    /// Data packets sent, of them retransmitted, and CE marks echoed back.
    pub sent: u32,
    pub retransmitted: u32,
    pub ecn_echoes: u32,
    pub srtt_ns: u32,
    /// Window in packets.
    pub cwnd: f64,
    /// Taken out of use after repeated timeouts.
    pub retired: bool,
}

/// Read every counter and the paths `0..paths` of connections 0 and 1.
fn run_stats<D: Device>(d: &mut Driver<D>, paths: u32) -> Result<RunStats> {
    // Every counter of the block, a _lo/_hi pair as one 64-bit counter.
    let name = |r: Reg| r.register().name;
    // The register whose name is `r`'s with suffix `from` changed to `to`.
    let partner = |r: Reg, from: &str, to: &str| -> Option<Reg> {
        let stem = name(r).strip_suffix(from)?;
        stats::ALL.iter().copied().find(|&x| name(x).strip_suffix(to) == Some(stem))
    };
    let mut counters = Vec::new();
    for &r in stats::ALL {
        if partner(r, "_hi", "_lo").is_some() {
            continue; // read with its low half
        }
        let v = d.get(r)? as u64;
        match partner(r, "_lo", "_hi") {
            Some(hi) => counters.push((name(r).trim_end_matches("_lo").to_string(), (d.get(hi)? as u64) << 32 | v)),
            None => counters.push((name(r).to_string(), v)),
        }
    }
    let mut states = Vec::new();
    let max_paths = d.get(ferroce_proto::regs::engine_info::MAX_PATHS)?;
    for conn in [0, 1] {
        for path in 0..paths {
            d.set(path_table::INDEX, conn * max_paths + path)?;
            states.push(PathState {
                conn,
                path,
                sport: d.get(path_table::SPORT)?,
                sent: d.get(path_table::SENT)?,
                retransmitted: d.get(path_table::RETRANSMITTED)?,
                ecn_echoes: d.get(path_table::ECN_ECHOES)?,
                srtt_ns: d.get(path_table::SRTT_NS)?,
                cwnd: d.get(path_table::CWND)? as f64 / 65536.0,
                retired: d.get(path_table::STATE)? & 1 != 0,
            });
        }
    }
    Ok(RunStats { counters, paths: states })
}

const LOG_SQ: u32 = 7;
const LOG_RQ: u32 = 7;
const LOG_CQ: u32 = 9;
/// Where the rings and buffers are, in the engine's DMA address space.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub sq: u64,
    pub rq: u64,
    pub cq: u64,
    pub src: u64,
    pub dst: u64,
    /// log2 of the send, receive and completion rings' entries.
    pub log_sq: u32,
    pub log_rq: u32,
    pub log_cq: u32,
    /// Longest the run may take, in units of its clock.
    pub limit: u64,
}

impl Layout {
    /// The rings from `base` up in the order send, receive, completion, at
    /// the sizes given, then the source and target of `total` bytes each;
    /// the time limit scaled by `total` as for the simulator.
    pub fn packed(base: u64, logs: [u32; 3], total: u64) -> Layout {
        let [log_sq, log_rq, log_cq] = logs;
        let rings = (WQE_BYTES << log_sq) + (RQE_BYTES << log_rq) + (CQE_BYTES << log_cq);
        let src = base + rings as u64;
        Layout {
            sq: base,
            rq: base + (WQE_BYTES << log_sq) as u64,
            cq: base + ((WQE_BYTES << log_sq) + (RQE_BYTES << log_rq)) as u64,
            src,
            dst: src + total,
            log_sq,
            log_rq,
            log_cq,
            limit: 2_000_000 + total * 40 / 8,
        }
    }
}

/// The engine's own MAC and IPv4 address in a loopback run.
pub const LOCAL: ([u8; 6], [u8; 4]) = ([2, 0, 0, 0, 0, 1], [10, 0, 0, 1]);
/// The peer both connections address on the simulator: the host behind
/// its wire's reflecting far end ([`crate::sim::SimLoopback`]), so that no
/// frame goes from an address to itself.
pub const SIM_PEER: ([u8; 6], [u8; 4]) = ([2, 0, 0, 0, 0, 2], [10, 0, 0, 2]);

/// Bytes the rings take at the start of a hardware DMA buffer.
const RING_BYTES: u64 = 1 << 20;
const RKEY: u32 = 0x7e57;
/// Largest transfer the simulator is given (bytes of source and target).
pub const MAX_BYTES: u64 = 256 << 20;
const _: () = assert!(MAX_BYTES <= 0x4000_0000, "a simulated 32-bit build's source and target are 1 GiB apart");

/// Check `o` before anything runs.
pub fn validate(o: &Opts) -> Result<()> {
    let bad = |s: String| Err(Error::BadRequest(s));
    if o.size == 0 || o.count == 0 {
        return bad(format!("--size and --count must be positive (got {} and {})", o.size, o.count));
    }
    if o.size as u64 * o.count as u64 > MAX_BYTES {
        return bad(format!("{} x {} bytes is more than the simulator's {} MiB", o.count, o.size, MAX_BYTES >> 20));
    }
    // The largest build's limits; a smaller build refuses more when the
    // connection is set up (Driver::connect, from engine_info).
    if !(1..=MAX_PATHS).contains(&o.paths) || !(1..=MAX_STREAMS).contains(&o.streams) {
        return bad(format!(
            "--paths must be 1..={MAX_PATHS} and --streams 1..={MAX_STREAMS} (got {} and {})",
            o.paths, o.streams
        ));
    }
    if let Err(why) = ferroce_proto::config::preset(&o.preset) {
        return bad(why);
    }
    if !(0.0..0.9).contains(&o.dma_stall) {
        return bad(format!("--dma-stall must be in [0, 0.9) (got {})", o.dma_stall));
    }
    if !(0.0..0.5).contains(&o.loss) {
        return bad(format!("--loss must be in [0, 0.5) (got {})", o.loss));
    }
    if o.line_rate_mbps == 0 {
        return bad("--line-rate must be positive".into());
    }
    if o.mtu == 0 || o.mtu > MAX_MTU {
        return bad(format!("--mtu must be 1..={MAX_MTU} (got {})", o.mtu));
    }
    let max_cap = ferroce_proto::regs::MAX_IN_FLIGHT;
    if o.window_cap == 0 || o.window_cap > max_cap {
        return bad(format!("--window-cap must be 1..={max_cap} (got {})", o.window_cap));
    }
    Ok(())
}

/// Units a size may carry, as [`parse_size`] reads them: K and M are
/// binary, as in `dd`; KB and MB decimal.
pub const SIZE_UNITS: &[(&str, u64)] =
    &[("", 1), ("K", 1 << 10), ("KiB", 1 << 10), ("KB", 1000), ("M", 1 << 20), ("MiB", 1 << 20), ("MB", 1_000_000)];

/// A byte count given as whole digits with an optional unit from
/// [`SIZE_UNITS`] (`4096`, `64KiB`, `1M`, `100KB`); fractions, other units
/// and counts beyond 32 bits are refused with a message that says why.
pub fn parse_size(s: &str) -> std::result::Result<u32, String> {
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    let units = || {
        SIZE_UNITS
            .iter()
            .filter(|(u, _)| !u.is_empty())
            .map(|(u, k)| format!("{u} ({k})"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let scale = SIZE_UNITS.iter().find(|(u, _)| *u == unit).map(|(_, k)| *k).filter(|_| !digits.is_empty());
    let Some(scale) = scale else {
        return Err(format!("{s:?} is not a size: a whole number of bytes, optionally followed by {}", units()));
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("{s} is more than {} bytes", u32::MAX))
}

fn op_of(o: &Opts, i: u32) -> WqeOp {
    match o.op {
        Op::Write => WqeOp::Write,
        Op::WriteImm => WqeOp::WriteImm,
        Op::Send => WqeOp::Send,
        Op::Mixed => [WqeOp::Write, WqeOp::WriteImm, WqeOp::Send][i as usize % 3],
    }
}

/// The source data of a run: deterministic in the seed.
fn source_chunk(seed: u64, total: u64) -> impl Iterator<Item = Vec<u8>> {
    let mut rng = Rng::new(seed);
    let chunk = 1u64 << 16;
    (0..total.div_ceil(chunk)).map(move |k| {
        let n = chunk.min(total - k * chunk) as usize;
        let mut v = Vec::with_capacity(n + 8);
        while v.len() < n {
            v.extend_from_slice(&rng.next_u64().to_le_bytes());
        }
        v.truncate(n);
        v
    })
}

/// Run a loopback transfer on the simulated engine; `progress` is called
/// with (bytes completed, total) as completions arrive.
pub fn run_sim(o: &Opts, progress: &mut dyn FnMut(u64, u64)) -> Result<Report> {
    Ok(run_sim_device(o, progress)?.0)
}

/// As [`run_sim`], and the simulated engine after the run, for checks of
/// its memory and registers beyond the run's own.
pub fn run_sim_device(o: &Opts, progress: &mut dyn FnMut(u64, u64)) -> Result<(Report, SimLoopback)> {
    validate(o)?;
    let total = o.size as u64 * o.count as u64;
    // Source and target above 4 GiB, where the build's DMA addresses reach
    // (`engine_info.dma_addr_bits`); a build of 32-bit addresses gets them
    // at 1 and 2 GiB.
    let bits = ferroce_proto::config::preset(&o.preset).map_err(Error::BadRequest)?.dma_addr_bits;
    // (`validate` keeps a run within MAX_BYTES, below 1 GiB.)
    let (src, dst) = if bits < 64 { (0x4000_0000, 0x8000_0000) } else { (0x1_0000_0000, 0x2_0000_0000) };
    let l = Layout {
        sq: 0x1000_0000,
        rq: 0x1010_0000,
        cq: 0x1020_0000,
        src,
        dst,
        ..Layout::packed(0, [LOG_SQ, LOG_RQ, LOG_CQ], total)
    };
    let mut mem = Memory::default();
    mem.add_region("sq", Iova(l.sq), WQE_BYTES << l.log_sq, false);
    mem.add_region("rq", Iova(l.rq), RQE_BYTES << l.log_rq, false);
    mem.add_region("cq", Iova(l.cq), CQE_BYTES << l.log_cq, true);
    mem.add_region("src", Iova(l.src), total as usize, false);
    mem.add_region("dst", Iova(l.dst), total as usize, true);
    let dma = ferroce_sim::engine::DmaConfig { seed: o.seed, stall: o.dma_stall, ..Default::default() };
    let wire = crate::sim::Wire { loss: o.loss, pcap: o.pcap.clone() };
    let dev = SimLoopback::with_preset(&o.preset, mem, &wire, dma)?;
    let (mut r, mut dev) = run(dev, l, o, SIM_PEER, &|d: &SimLoopback| d.engine.cycles(), progress)?;
    dev.finish()?;
    r.frames = dev.frames;
    r.frames_lost = dev.lost;
    r.wire_fraction = Some(dev.wire_bytes as f64 / (r.duration_cycles.max(1) as f64 * 8.0));
    Ok((r, dev))
}

/// Run a loopback transfer on a NIC: `regs` are the engine's registers and
/// `mem` DMA memory of at least [`hw_bytes`]`(o)` bytes. The duration is
/// wall-clock time expressed in cycles of the engine's nominal clock.
pub fn run_hw(dev: HwDevice, o: &Opts, progress: &mut dyn FnMut(u64, u64)) -> Result<Report> {
    validate(o)?;
    let total = o.size as u64 * o.count as u64;
    if (dev.mem.len() as u64) < hw_bytes(o) {
        return Err(Error::BadRequest(format!("{} bytes of DMA memory, the run needs {}", dev.mem.len(), hw_bytes(o))));
    }
    let base = dev.mem.iova();
    let l = Layout {
        src: base + RING_BYTES,
        dst: base + RING_BYTES + total,
        ..Layout::packed(base, [LOG_SQ, LOG_RQ, LOG_CQ], total)
    };
    let t = std::time::Instant::now();
    let ns_per_cycle = ferroce_hdl::engine::NS_PER_CYCLE as u128;
    let clock = move |_: &HwDevice| (t.elapsed().as_nanos() / ns_per_cycle) as u64;
    // A loopback plug returns each frame as sent: the peer is the engine.
    Ok(run(dev, l, o, LOCAL, &clock, progress)?.0)
}

/// Rings of a run on a board (log2 of the send, receive and completion
/// rings' entries): small, as board memory is.
pub const BOARD_RINGS: [u32; 3] = [4, 4, 6];

/// Run a loopback transfer on an engine on a board (`docs/boards.md`): its
/// rings, source and target in the board memory, written and checked
/// through the board's bridge. The port must be looped back (a loopback
/// plug, or a simulated board's cable). The duration is wall-clock time in
/// cycles of the engine's nominal clock, dominated by the bridge. Returns
/// the report and the board.
pub fn run_board<B: Bridge>(
    dev: BoardDevice<B>,
    o: &Opts,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(Report, BoardDevice<B>)> {
    validate(o)?;
    let total = o.size as u64 * o.count as u64;
    let l = Layout::packed(0, BOARD_RINGS, total);
    if l.dst + total > dev.ram_bytes() {
        return Err(Error::BadRequest(format!(
            "{} x {} bytes of source and as many of target, after {} bytes of rings, do not fit the board's {} \
             bytes of memory: at most {} bytes in all (e.g. --size 4KiB --count {})",
            o.count,
            o.size,
            l.src,
            dev.ram_bytes(),
            (dev.ram_bytes() - l.src) / 2,
            (dev.ram_bytes() - l.src) / 2 / 4096
        )));
    }
    let t = std::time::Instant::now();
    let ns_per_cycle = ferroce_hdl::engine::NS_PER_CYCLE as u128;
    let clock = move |_: &BoardDevice<B>| (t.elapsed().as_nanos() / ns_per_cycle) as u64;
    // A minute, and a second more per KiB: the bridge, not the engine, sets the pace.
    let limit = ((60 + total / 1024) * 1_000_000_000) / ns_per_cycle as u64;
    run(dev, Layout { limit, ..l }, o, LOCAL, &clock, progress)
}

/// Rings of a run in Corundum's testbench (log2 of the send, receive and
/// completion rings' entries).
pub const BENCH_RINGS: [u32; 3] = [5, 5, 7];

/// Run a loopback transfer on the engine inside Corundum's full-NIC
/// testbench ([`crate::cocotb`]): rings, source and target in the bench's
/// host memory, the port looped back by the bench. The duration is
/// simulated time in engine cycles. Returns the report and the bench.
pub fn run_bench(bench: Bench, o: &Opts, progress: &mut dyn FnMut(u64, u64)) -> Result<(Report, Bench)> {
    validate(o)?;
    let total = o.size as u64 * o.count as u64;
    let l = Layout::packed(bench.mem_base, BENCH_RINGS, total);
    if l.dst + total > bench.mem_base + bench.mem_bytes {
        return Err(Error::BadRequest(format!(
            "{} x {} bytes do not fit the testbench's {} bytes of host memory",
            o.count, o.size, bench.mem_bytes
        )));
    }
    let clock = |b: &Bench| b.cycles();
    run(bench, l, o, LOCAL, &clock, progress)
}

/// Connections `a` and `b` of one engine set up as each other's remote,
/// both addressing `peer` (where the loop returns their frames from).
fn connect_pair<D: Device>(
    d: &mut Driver<D>,
    [a, b]: [u32; 2],
    peer: ([u8; 6], [u8; 4]),
    paths: u32,
    streams: u32,
) -> Result<()> {
    for (index, remote) in [(a, b), (b, a)] {
        d.connect(&ConnSpec {
            index,
            remote,
            peer_mac: peer.0,
            peer_ip: peer.1,
            paths,
            streams,
            initial_rate_mbps: 0,
        })?;
    }
    Ok(())
}

/// What [`refused_write`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    /// The WRITE's completion status (1: remote access error).
    pub status: u8,
    /// Packets the engine counted as access violations during the WRITE.
    pub violations: u32,
    /// NAKs the engine sent during the WRITE.
    pub naks: u32,
    /// Bytes of the region that changed.
    pub changed: usize,
}

/// A WRITE through a key the target does not hold, on an engine that ran
/// before: connections 2 and 3 are set up (looped back, as in
/// [`run`]), a region of `len` zeros opened to connection 3 under `key`,
/// and connection 2 WRITEs `len` bytes there under `key ^ 1`. Its rings
/// and buffers are in `mem_base`.. (`Layout::packed`). Returns the
/// completion's status, what the engine counted and how much of the
/// region changed (all of it read back).
pub fn refused_write<D: Device>(
    dev: D,
    mem_base: u64,
    key: u32,
    len: u32,
    clock: &dyn Fn(&D) -> u64,
    limit: u64,
) -> Result<(Refusal, D)> {
    let l = Layout::packed(mem_base, BENCH_RINGS, len as u64);
    let mut dev = dev;
    dev.write_mem(l.src, &vec![0xa5; len as usize])?;
    dev.write_mem(l.dst, &vec![0; len as usize])?;
    let cfg = Config { port_seed: 5, ..Config::new(LOCAL.0, LOCAL.1) };
    let ring = |base, log_size| RingSpec { base, log_size };
    let mut d = Driver::bring_up(dev, &cfg, ring(l.sq, l.log_sq), ring(l.rq, l.log_rq), ring(l.cq, l.log_cq))?;
    connect_pair(&mut d, [2, 3], LOCAL, 2, 1)?;
    d.register_mr(&MrSpec { slot: 1, rkey: key, base: l.dst, len: len as u64, remote_write: true, conn: 3 })?;
    let (v0, n0) = (d.get(stats::RX_ACCESS_VIOLATION)?, d.get(stats::TX_NAKS)?);
    let w = Wqe {
        op: WqeOp::Write,
        stream: 0,
        conn: 2,
        len,
        local: l.src,
        remote: l.dst,
        rkey: key ^ 1,
        imm: 0,
        id: 0xbad,
    };
    if !d.post_send(&w)? {
        return Err(Error::BadRequest("no room in the send ring".into()));
    }
    d.ring_doorbells()?;
    let start = clock(&d.dev);
    let cqe = loop {
        if let Some(c) = d.poll()?.into_iter().find(|c| c.kind == CqeKind::SendDone) {
            break c;
        }
        if clock(&d.dev) - start > limit {
            return Err(Error::Timeout(format!("the refused WRITE's completion after {limit} cycles")));
        }
        d.dev.idle()?;
    };
    if cqe.id != w.id {
        return Err(Error::BadCompletion(format!("completion {cqe:?} for no WRITE posted")));
    }
    let violations = d.get(stats::RX_ACCESS_VIOLATION)? - v0;
    let naks = d.get(stats::TX_NAKS)? - n0;
    let mut buf = vec![0u8; len as usize];
    d.dev.read_mem(l.dst, &mut buf)?;
    let changed = buf.iter().filter(|b| **b != 0).count();
    Ok((Refusal { status: cqe.status, violations, naks, changed }, d.dev))
}

/// DMA memory a hardware run needs.
pub fn hw_bytes(o: &Opts) -> u64 {
    RING_BYTES + 2 * o.size as u64 * o.count as u64
}

/// Run `o` on `dev` with its rings and buffers at `l`, the engine at
/// [`LOCAL`] and both connections addressing `peer` (MAC, IPv4), where the
/// loop returns their frames from; `clock` reads the time in engine cycles.
/// Returns the report and the device.
pub fn run<D: Device>(
    mut dev: D,
    l: Layout,
    o: &Opts,
    peer: ([u8; 6], [u8; 4]),
    clock: &dyn Fn(&D) -> u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(Report, D)> {
    validate(o)?;
    let total = o.size as u64 * o.count as u64;
    let mut at = l.src;
    for chunk in source_chunk(o.seed, total) {
        dev.write_mem(at, &chunk)?;
        at += chunk.len() as u64;
    }
    let cfg = Config {
        mtu: o.mtu,
        port_seed: o.seed as u32,
        line_rate_mbps: o.line_rate_mbps,
        recovery: o.recovery,
        window_cap: o.window_cap,
        ..Config::new(LOCAL.0, LOCAL.1)
    };
    let ring = |base, log_size| RingSpec { base, log_size };
    let mut d = Driver::bring_up(dev, &cfg, ring(l.sq, l.log_sq), ring(l.rq, l.log_rq), ring(l.cq, l.log_cq))?;
    connect_pair(&mut d, [0, 1], peer, o.paths, o.streams)?;
    d.register_mr(&MrSpec { slot: 0, rkey: RKEY, base: l.dst, len: total, remote_write: true, conn: 1 })?;

    // Message i reads src[i*size..] and lands at dst[i*size..] (WRITE) or in
    // the receive buffer there (SEND).
    let wqe = |i: u32| {
        let at = i as u64 * o.size as u64;
        let op = op_of(o, i);
        Wqe {
            op,
            stream: (i % o.streams) as u8,
            conn: 0,
            len: o.size,
            local: l.src + at,
            remote: if op == WqeOp::Send { 0 } else { l.dst + at },
            rkey: RKEY,
            imm: 0x1000_0000 | i,
            id: i,
        }
    };
    let sends: Vec<u32> = (0..o.count).filter(|i| op_of(o, *i) == WqeOp::Send).collect();
    let want = o.count as usize + (0..o.count).filter(|i| op_of(o, *i) != WqeOp::Write).count();
    let (mut next_wqe, mut next_rqe) = (0u32, 0usize);
    let mut cqes: Vec<Cqe> = Vec::new();
    let mut done_bytes = 0u64;
    let start = clock(&d.dev);
    let limit = l.limit;
    while cqes.len() < want {
        if clock(&d.dev) - start > limit {
            return Err(Error::Timeout(format!("completions: {} of {want} after {limit} cycles", cqes.len())));
        }
        while next_rqe < sends.len() {
            let i = sends[next_rqe];
            let r = Rqe {
                conn: 1,
                stream: (i % o.streams) as u8,
                len: o.size,
                addr: l.dst + i as u64 * o.size as u64,
                id: i,
            };
            if !d.post_recv(&r)? {
                break;
            }
            next_rqe += 1;
        }
        while next_wqe < o.count && d.post_send(&wqe(next_wqe))? {
            next_wqe += 1;
        }
        d.ring_doorbells()?;
        d.dev.idle()?;
        for c in d.poll()? {
            if c.kind == CqeKind::SendDone {
                done_bytes += c.len as u64;
                progress(done_bytes, total);
            }
            cqes.push(c);
        }
    }
    let cycles = clock(&d.dev) - start;
    let mut verified = false;
    if o.verify {
        verify(o, &mut d, &cqes, l)?;
        verified = true;
    }
    let retransmits = d.get(stats::TX_RETX)?;
    let rtos = d.get(stats::RTOS)?;
    let stats = if o.stats { Some(run_stats(&mut d, o.paths)?) } else { None };
    let report = Report {
        bytes: total,
        messages: o.count,
        verified,
        goodput_fraction: total as f64 / (cycles.max(1) as f64 * 8.0),
        retransmits,
        duration_cycles: cycles,
        frames: 0,
        frames_lost: 0,
        wire_fraction: None,
        rtos,
        completions: cqes.len() as u32,
        stats,
    };
    Ok((report, d.dev))
}

/// Every message completed once, successfully, and every byte is where it
/// belongs (read back through the device); receive completions come in
/// order per stream.
fn verify<D: Device>(o: &Opts, d: &mut Driver<D>, cqes: &[Cqe], l: Layout) -> Result<()> {
    let fail = |s: String| Err(Error::BadCompletion(s));
    let mut sent = vec![0u32; o.count as usize];
    let mut recvd = vec![0u32; o.count as usize];
    let mut last_seq: Vec<Option<u32>> = vec![None; o.streams as usize];
    for c in cqes {
        if c.id >= o.count || c.status != 0 || c.len != o.size {
            return fail(format!("unexpected completion {c:?}"));
        }
        match c.kind {
            CqeKind::SendDone => sent[c.id as usize] += 1,
            CqeKind::Recv | CqeKind::WriteImm => {
                let i = if c.kind == CqeKind::WriteImm { c.imm.unwrap_or(0) & 0x0fff_ffff } else { c.id };
                if i >= o.count {
                    return fail(format!("receive completion for no message: {c:?}"));
                }
                recvd[i as usize] += 1;
                let s = c.stream as usize;
                if last_seq[s].is_some_and(|p| p >= c.msg_seq) {
                    return fail(format!("stream {s}: completion {} after {:?}", c.msg_seq, last_seq[s]));
                }
                last_seq[s] = Some(c.msg_seq);
            }
        }
    }
    for i in 0..o.count {
        let want_recv = (op_of(o, i) != WqeOp::Write) as u32;
        if sent[i as usize] != 1 || recvd[i as usize] != want_recv {
            return fail(format!(
                "message {i}: {} send and {} receive completions",
                sent[i as usize], recvd[i as usize]
            ));
        }
    }
    // Every byte of the target against the source, chunk by chunk.
    let total = o.size as u64 * o.count as u64;
    let mut at = 0u64;
    let mut buf = Vec::new();
    for want in source_chunk(o.seed, total) {
        buf.resize(want.len(), 0);
        d.dev.read_mem(l.dst + at, &mut buf)?;
        if buf != want {
            let k = buf.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(0) as u64 + at;
            return fail(format!("byte {k} (message {}) differs from the source", k / o.size as u64));
        }
        at += want.len() as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_binary_and_decimal_units() {
        for (s, want) in [
            ("4096", 4096),
            ("0", 0),
            ("64KiB", 64 << 10),
            ("64K", 64 << 10),
            ("100KB", 100_000),
            ("1MiB", 1 << 20),
            ("3M", 3 << 20),
            ("2MB", 2_000_000),
            ("4294967295", u32::MAX),
            ("4095MiB", 4095 << 20),
        ] {
            assert_eq!(parse_size(s), Ok(want), "{s}");
        }
    }

    #[test]
    fn sizes_refuse_fractions_unknown_units_and_overflow() {
        for s in ["1.5MiB", "12XB", "", "KiB", "-1", "+4", "64 KiB", "64kib", "0x100", "1GiB2", "64KiBB"] {
            let e = parse_size(s).expect_err(s);
            assert!(e.contains("is not a size") && e.contains("KiB"), "{s}: {e}");
        }
        for s in ["4294967296", "4096MiB", "4294968KB", "99999999999999999999999"] {
            let e = parse_size(s).expect_err(s);
            assert!(e.contains(&format!("more than {} bytes", u32::MAX)), "{s}: {e}");
        }
    }

    #[test]
    fn validate_names_the_option_and_its_range() {
        let check = |o: Opts| match validate(&o) {
            Err(Error::BadRequest(m)) => m,
            other => panic!("{o:?}: {other:?}"),
        };
        assert_eq!(check(Opts { loss: -0.1, ..Opts::default() }), "--loss must be in [0, 0.5) (got -0.1)");
        assert!(check(Opts { dma_stall: -0.5, ..Opts::default() }).starts_with("--dma-stall must be in [0, 0.9)"));
        assert_eq!(
            check(Opts { mtu: MAX_MTU + 1, ..Opts::default() }),
            format!("--mtu must be 1..={MAX_MTU} (got {})", MAX_MTU + 1)
        );
        assert!(validate(&Opts { mtu: MAX_MTU, ..Opts::default() }).is_ok());
        assert_eq!(check(Opts { window_cap: 0, ..Opts::default() }), "--window-cap must be 1..=256 (got 0)");
        assert_eq!(check(Opts { window_cap: 257, ..Opts::default() }), "--window-cap must be 1..=256 (got 257)");
        assert!(validate(&Opts { window_cap: 256, ..Opts::default() }).is_ok());
    }
}
