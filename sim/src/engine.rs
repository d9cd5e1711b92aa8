//! The whole engine (`ferroce_engine`) in Verilator with the world around
//! it: host memory with guard regions behind a DMA engine model (latency,
//! a limit on outstanding reads, random stalls), an AXI-Lite master for the
//! registers, and the MAC streams as frame queues.
//!
//! [`EngineSim::cycle`] advances everything by one clock; frames the engine
//! sends come out of [`EngineSim::take_frames`] and frames for it go in with
//! [`EngineSim::give_frame`], so a caller can loop an engine to itself or
//! join engines through the fabric model.

use std::collections::VecDeque;
use std::sync::Arc;

use ferroce_proto::rng::Rng;
use ferroce_proto::{HostMemory, Iova};

use crate::memory::Memory;
use crate::verilator::{undefined_collisions, ModelLib, Port, Sim};
use crate::{Error, Result};

/// The engine's Verilator model (the `corundum` build), built once per
/// process.
pub fn model() -> Result<Arc<ModelLib>> {
    model_of("corundum")
}

/// The Verilator model of the engine of the preset called `preset`
/// (`ferroce_proto::config::PRESETS`), built once per process, with a
/// RAM's read of the word being written undefined, as synthesis has it
/// ([`undefined_collisions`]).
pub fn model_of(preset: &str) -> Result<Arc<ModelLib>> {
    let built = ferroce_hdl::presets::built(preset).map_err(Error::Scenario)?;
    ModelLib::of_block(built.block, || undefined_collisions(&(built.emit)()))
}

/// How the DMA engine model behaves.
#[derive(Debug, Clone, Copy)]
pub struct DmaConfig {
    /// Cycles from a read command to its first data beat.
    pub read_latency: u64,
    /// Reads in flight at most (commands are refused beyond).
    pub max_reads: usize,
    /// Chance per cycle that a port stalls (ready or valid low).
    pub stall: f64,
    pub seed: u64,
}

impl Default for DmaConfig {
    fn default() -> Self {
        DmaConfig { read_latency: 40, max_reads: 4, stall: 0.1, seed: 1 }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Axil {
    Write { addr: u32, data: u32 },
    Read { addr: u32 },
}

/// One engine and its surroundings.
#[allow(missing_debug_implementations)]
pub struct EngineSim {
    sim: Sim,
    p: Ports,
    pub mem: Memory,
    dma: DmaConfig,
    rng: Rng,
    /// Reads accepted: (address, length, cycle the data may start).
    reads: VecDeque<(u64, usize, u64)>,
    /// The read being answered: its bytes and how many were sent.
    reading: Option<(Vec<u8>, usize)>,
    /// Writes accepted and waiting for data; the bytes of the current one.
    writes: VecDeque<(u64, usize)>,
    wdata: Vec<u8>,
    /// Frames the engine sent, and the one being sent.
    tx: VecDeque<Vec<u8>>,
    tx_frame: Vec<u8>,
    /// Frames for the engine, and how far the first has gone in.
    /// Each with the MAC's bad-frame flag (`tuser`, set on its last beat).
    rx: VecDeque<(Vec<u8>, bool)>,
    rx_at: usize,
    /// The register access in progress and its result.
    axil: Option<(Axil, bool)>,
    axil_result: Option<std::result::Result<u32, u32>>,
    /// DMA accesses outside the registered regions (reads and writes).
    pub violations: Vec<String>,
    /// Cycles for which the MAC holds `m_mac_tx_tready` low (back-pressure
    /// from the wire side), counted down each cycle.
    pub mac_tx_hold: u64,
    /// Cycles for which every DMA port stalls (command and data readies
    /// low, no read data), counted down each cycle.
    pub dma_hold: u64,
    /// DMA read and write commands the engine has issued.
    pub dma_reads: u64,
    pub dma_writes: u64,
    /// The build's configuration.
    config: ferroce_proto::config::EngineConfig,
}

macro_rules! ports {
    ($($name:ident),* $(,)?) => {
        #[allow(non_snake_case)]
        struct Ports { $($name: Port,)* }
        impl Ports {
            fn new(s: &Sim) -> Ports {
                Ports { $($name: s.port(stringify!($name)),)* }
            }
        }
    };
}

ports!(
    s_axil_awaddr,
    s_axil_awvalid,
    s_axil_awready,
    s_axil_wdata,
    s_axil_wstrb,
    s_axil_wvalid,
    s_axil_bresp,
    s_axil_bvalid,
    s_axil_bready,
    s_axil_araddr,
    s_axil_arvalid,
    s_axil_arready,
    s_axil_rdata,
    s_axil_rresp,
    s_axil_rvalid,
    s_axil_rready,
    s_mac_rx_tdata,
    s_mac_rx_tkeep,
    s_mac_rx_tvalid,
    s_mac_rx_tready,
    s_mac_rx_tlast,
    s_mac_rx_tuser,
    m_mac_tx_tdata,
    m_mac_tx_tkeep,
    m_mac_tx_tvalid,
    m_mac_tx_tready,
    m_mac_tx_tlast,
    m_dma_rd_cmd_valid,
    m_dma_rd_cmd_ready,
    m_dma_rd_cmd_addr,
    m_dma_rd_cmd_len,
    s_dma_rd_tdata,
    s_dma_rd_tkeep,
    s_dma_rd_tvalid,
    s_dma_rd_tready,
    s_dma_rd_tlast,
    m_dma_wr_cmd_valid,
    m_dma_wr_cmd_ready,
    m_dma_wr_cmd_addr,
    m_dma_wr_cmd_len,
    m_dma_wr_tdata,
    m_dma_wr_tkeep,
    m_dma_wr_tvalid,
    m_dma_wr_tready,
    m_dma_wr_tlast,
);

fn pack(b: &[u8]) -> u64 {
    b.iter().enumerate().fold(0u64, |a, (i, x)| a | (*x as u64) << (8 * i))
}

/// The bytes of the lanes `keep` marks in a 64-bit beat, appended to `out`.
fn unpack(data: u64, keep: u64, out: &mut Vec<u8>) {
    for lane in 0..8 {
        if keep >> lane & 1 == 1 {
            out.push((data >> (8 * lane)) as u8);
        }
    }
}

/// One 64-bit beat offered on a stream input (MAC receive, DMA read data).
#[derive(Debug, Clone, Copy)]
struct Beat {
    data: u64,
    keep: u64,
    last: bool,
    /// Bytes in the beat.
    n: usize,
    /// `tuser` on the last beat: the MAC marks the frame bad.
    bad: bool,
}

impl EngineSim {
    /// An engine out of reset, with `mem` as its host memory.
    pub fn new(mem: Memory, dma: DmaConfig) -> Result<EngineSim> {
        EngineSim::of_preset("corundum", mem, dma)
    }

    /// An engine of the preset called `preset` out of reset, with `mem` as
    /// its host memory.
    pub fn of_preset(preset: &str, mem: Memory, dma: DmaConfig) -> Result<EngineSim> {
        let config = ferroce_hdl::presets::built(preset).map_err(Error::Scenario)?.config;
        let lib = model_of(preset)?;
        let mut sim = Sim::new(&lib);
        sim.clock("clock");
        let p = Ports::new(&sim);
        let mut e = EngineSim {
            sim,
            p,
            mem,
            dma,
            rng: Rng::new(dma.seed),
            reads: VecDeque::new(),
            reading: None,
            writes: VecDeque::new(),
            wdata: Vec::new(),
            tx: VecDeque::new(),
            tx_frame: Vec::new(),
            rx: VecDeque::new(),
            rx_at: 0,
            axil: None,
            axil_result: None,
            violations: Vec::new(),
            mac_tx_hold: 0,
            dma_hold: 0,
            dma_reads: 0,
            dma_writes: 0,
            config,
        };
        e.reset();
        Ok(e)
    }

    /// Reset the engine in the middle of whatever it is doing, as the shell
    /// does with its reset line: the DMA engine and the MAC beside it are
    /// reset too (reads and writes in flight are dropped, a frame half
    /// sent or half received is lost); host memory and the frames still
    /// waiting for the receive port stay. Then run until the engine's
    /// stores have cleared (the keyed blocks clear their RAMs after reset,
    /// 128 cycles). [`EngineSim::new`] starts an engine the same way.
    pub fn reset(&mut self) {
        self.sim.reset("reset", None, 0);
        self.reads.clear();
        self.reading = None;
        self.writes.clear();
        self.wdata.clear();
        self.tx_frame.clear();
        if self.rx_at > 0 {
            self.rx.pop_front();
            self.rx_at = 0;
        }
        self.axil = None;
        self.axil_result = None;
        for _ in 0..300 {
            self.cycle();
        }
    }

    /// Cycles run so far.
    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }

    /// The build's clock period in picoseconds (`engine_info.clock_ps`).
    pub fn clock_ps(&self) -> u64 {
        self.config.clock_ps.into()
    }

    /// The line rate of the build's MAC interface (Mb/s): one beat per
    /// cycle.
    pub fn line_mbps(&self) -> u32 {
        self.config.line_mbps()
    }

    /// Frames given to the receive port and not yet taken whole.
    pub fn rx_pending(&self) -> usize {
        self.rx.len()
    }

    /// A frame for the engine's MAC receive port.
    pub fn give_frame(&mut self, f: Vec<u8>) {
        self.rx.push_back((f, false));
    }

    /// A frame the MAC marks bad (an FCS error: `tuser` on its last beat).
    pub fn give_bad_frame(&mut self, f: Vec<u8>) {
        self.rx.push_back((f, true));
    }

    /// Frames the engine has sent since the last call.
    pub fn take_frames(&mut self) -> Vec<Vec<u8>> {
        self.tx.drain(..).collect()
    }

    /// Frames given and not yet taken in by the engine.
    pub fn rx_backlog(&self) -> usize {
        self.rx.len()
    }

    /// One clock cycle of the engine and everything around it.
    pub fn cycle(&mut self) {
        let now = self.sim.cycles();
        let beat = self.drive_mac();
        let held = self.dma_hold > 0;
        self.dma_hold = self.dma_hold.saturating_sub(1);
        let rbeat = self.drive_dma(now, held);
        self.drive_axil();
        self.sim.eval();
        // What moved in this cycle.
        self.take_mac(beat);
        self.take_dma_reads(now, rbeat);
        self.take_dma_writes();
        self.take_axil();
        self.sim.tick();
    }

    /// MAC receive: the next beat of the first frame; MAC transmit: ready
    /// unless held (the MAC paces at line rate).
    fn drive_mac(&mut self) -> Option<Beat> {
        let beat = self.rx.front().map(|(f, bad)| {
            let n = (f.len() - self.rx_at).min(8);
            let last = self.rx_at + n == f.len();
            Beat { data: pack(&f[self.rx_at..self.rx_at + n]), keep: (1u64 << n) - 1, last, n, bad: last && *bad }
        });
        let (s, p) = (&mut self.sim, &self.p);
        s.set(p.s_mac_rx_tvalid, beat.is_some() as u64);
        if let Some(b) = beat {
            s.set(p.s_mac_rx_tdata, b.data);
            s.set(p.s_mac_rx_tkeep, b.keep);
            s.set(p.s_mac_rx_tlast, b.last as u64);
            s.set(p.s_mac_rx_tuser, b.bad as u64);
        }
        s.set(p.m_mac_tx_tready, (self.mac_tx_hold == 0) as u64);
        self.mac_tx_hold = self.mac_tx_hold.saturating_sub(1);
        beat
    }

    /// DMA reads: commands while fewer than max_reads are in flight; data
    /// once the latency has passed. DMA writes: ready unless stalled.
    fn drive_dma(&mut self, now: u64, held: bool) -> Option<Beat> {
        let stall = self.dma.stall;
        let rd_cmd_ready = self.reads.len() + (self.reading.is_some() as usize) < self.dma.max_reads && !held;
        self.sim.set(self.p.m_dma_rd_cmd_ready, (rd_cmd_ready && !self.rng.chance(stall)) as u64);
        if self.reading.is_none() {
            if let Some(&(addr, len, at)) = self.reads.front() {
                if now >= at {
                    self.reads.pop_front();
                    let mut buf = vec![0u8; len];
                    if self.mem.readable(Iova(addr), len) {
                        self.mem.read(Iova(addr), &mut buf);
                    } else {
                        self.violations.push(format!("DMA read outside host memory: {addr:#x}+{len}"));
                    }
                    self.reading = Some((buf, 0));
                }
            }
        }
        let rbeat = match &self.reading {
            Some((d, at)) if !held && !self.rng.chance(stall) => {
                let n = (d.len() - at).min(8);
                let data = pack(&d[*at..at + n]);
                Some(Beat { data, keep: (1u64 << n) - 1, last: at + n == d.len(), n, bad: false })
            }
            _ => None,
        };
        let (s, p) = (&mut self.sim, &self.p);
        s.set(p.s_dma_rd_tvalid, rbeat.is_some() as u64);
        if let Some(b) = rbeat {
            s.set(p.s_dma_rd_tdata, b.data);
            s.set(p.s_dma_rd_tkeep, b.keep);
            s.set(p.s_dma_rd_tlast, b.last as u64);
        }
        s.set(p.m_dma_wr_cmd_ready, (!held && !self.rng.chance(stall)) as u64);
        s.set(p.m_dma_wr_tready, (!held && !self.rng.chance(stall)) as u64);
        rbeat
    }

    /// AXI-Lite: the access in progress.
    fn drive_axil(&mut self) {
        let (s, p) = (&mut self.sim, &self.p);
        match self.axil {
            Some((Axil::Write { addr, data }, false)) => {
                s.set(p.s_axil_awaddr, addr as u64);
                s.set(p.s_axil_wdata, data as u64);
                s.set(p.s_axil_wstrb, 0xf);
                s.set(p.s_axil_awvalid, 1);
                s.set(p.s_axil_wvalid, 1);
            }
            Some((Axil::Read { addr }, false)) => {
                s.set(p.s_axil_araddr, addr as u64);
                s.set(p.s_axil_arvalid, 1);
            }
            _ => {
                s.set(p.s_axil_awvalid, 0);
                s.set(p.s_axil_wvalid, 0);
                s.set(p.s_axil_arvalid, 0);
            }
        }
        s.set(p.s_axil_bready, 1);
        s.set(p.s_axil_rready, 1);
    }

    /// The receive beat taken, the transmit beat sent.
    fn take_mac(&mut self, beat: Option<Beat>) {
        let (s, p) = (&self.sim, &self.p);
        if let Some(b) = beat {
            if s.get(p.s_mac_rx_tready) == 1 {
                self.rx_at += b.n;
                if b.last {
                    self.rx.pop_front();
                    self.rx_at = 0;
                }
            }
        }
        if s.get(p.m_mac_tx_tvalid) == 1 {
            unpack(s.get(p.m_mac_tx_tdata), s.get(p.m_mac_tx_tkeep), &mut self.tx_frame);
            if s.get(p.m_mac_tx_tlast) == 1 {
                self.tx.push_back(std::mem::take(&mut self.tx_frame));
            }
        }
    }

    /// A read command taken, a read beat delivered.
    fn take_dma_reads(&mut self, now: u64, rbeat: Option<Beat>) {
        let (s, p) = (&self.sim, &self.p);
        if s.get(p.m_dma_rd_cmd_valid) == 1 && s.get(p.m_dma_rd_cmd_ready) == 1 {
            let (a, l) = (s.get(p.m_dma_rd_cmd_addr), s.get(p.m_dma_rd_cmd_len) as usize);
            self.reads.push_back((a, l, now + self.dma.read_latency));
            self.dma_reads += 1;
        }
        if let Some(b) = rbeat {
            if s.get(p.s_dma_rd_tready) == 1 {
                let r = self.reading.as_mut().expect("a read in progress");
                r.1 += b.n;
                if b.last {
                    self.reading = None;
                }
            }
        }
    }

    /// A write command taken, write data into host memory.
    fn take_dma_writes(&mut self) {
        let (s, p) = (&self.sim, &self.p);
        if s.get(p.m_dma_wr_cmd_valid) == 1 && s.get(p.m_dma_wr_cmd_ready) == 1 {
            self.writes.push_back((s.get(p.m_dma_wr_cmd_addr), s.get(p.m_dma_wr_cmd_len) as usize));
            self.dma_writes += 1;
        }
        if s.get(p.m_dma_wr_tvalid) != 1 || s.get(p.m_dma_wr_tready) != 1 {
            return;
        }
        unpack(s.get(p.m_dma_wr_tdata), s.get(p.m_dma_wr_tkeep), &mut self.wdata);
        if s.get(p.m_dma_wr_tlast) != 1 {
            return;
        }
        let data = std::mem::take(&mut self.wdata);
        match self.writes.pop_front() {
            Some((addr, len)) if len == data.len() => {
                let before = self.mem.violations().len();
                self.mem.write(Iova(addr), &data);
                if self.mem.violations().len() > before {
                    self.violations.push(format!("DMA write outside writable memory: {addr:#x}+{len}"));
                }
            }
            other => self.violations.push(format!("DMA write data ({} bytes) for command {other:?}", data.len())),
        }
    }

    /// The AXI-Lite access accepted or answered.
    fn take_axil(&mut self) {
        let (s, p) = (&self.sim, &self.p);
        match self.axil {
            Some((Axil::Write { .. }, false)) if s.get(p.s_axil_awready) == 1 => {
                self.axil = self.axil.map(|(a, _)| (a, true));
            }
            Some((Axil::Read { .. }, false)) if s.get(p.s_axil_arready) == 1 => {
                self.axil = self.axil.map(|(a, _)| (a, true));
            }
            _ => {}
        }
        if s.get(p.s_axil_bvalid) == 1 {
            let bad = s.get(p.s_axil_bresp) != 0;
            self.axil_result = Some(if bad { Err(0) } else { Ok(0) });
            self.axil = None;
        }
        if s.get(p.s_axil_rvalid) == 1 {
            let v = s.get(p.s_axil_rdata) as u32;
            self.axil_result = Some(if s.get(p.s_axil_rresp) != 0 { Err(v) } else { Ok(v) });
            self.axil = None;
        }
    }

    fn axil(&mut self, op: Axil) -> Result<u32> {
        self.axil = Some((op, false));
        self.axil_result = None;
        for _ in 0..1_000 {
            self.cycle();
            if let Some(r) = self.axil_result.take() {
                return r.map_err(|_| Error::Stuck(format!("register access {op:?} answered SLVERR")));
            }
        }
        Err(Error::Stuck(format!("register access {op:?} not answered")))
    }

    /// Write the register at byte offset `addr` over AXI-Lite.
    pub fn write32(&mut self, addr: u32, v: u32) -> Result<()> {
        self.axil(Axil::Write { addr, data: v }).map(|_| ())
    }

    /// Read the register at byte offset `addr` over AXI-Lite.
    pub fn read32(&mut self, addr: u32) -> Result<u32> {
        self.axil(Axil::Read { addr })
    }

    /// Run `n` cycles.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.cycle();
        }
    }
}

/// An engine as a host of the fabric model: [`crate::fabric::Fabric`] drives
/// hosts through the [`ferroce_proto::Transport`] trait, and this adapter
/// runs the engine's clock up to the fabric's time whenever it is called,
/// taking the frames it sent and giving it the frames that arrive. The
/// engine is shared (`Rc<RefCell<_>>`) with whoever programs it through its
/// registers, as a host driver would.
///
/// Frames leave at the fabric time of the call that collected them: the
/// engine runs in steps of at most `quantum` cycles, so a frame can leave up
/// to that late (400 ns at the default 100 cycles).
pub struct EngineNode {
    pub engine: std::rc::Rc<std::cell::RefCell<EngineSim>>,
    pub quantum: u64,
    out: VecDeque<Vec<u8>>,
}

impl std::fmt::Debug for EngineNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineNode").field("cycles", &self.engine.borrow().cycles()).finish()
    }
}

impl EngineNode {
    pub fn new(engine: std::rc::Rc<std::cell::RefCell<EngineSim>>) -> EngineNode {
        EngineNode { engine, quantum: 100, out: VecDeque::new() }
    }

    fn catch_up(&mut self, now: ferroce_proto::types::Time) {
        let mut e = self.engine.borrow_mut();
        let target = now / e.clock_ps();
        while e.cycles() < target {
            e.cycle();
        }
        self.out.extend(e.take_frames());
    }
}

impl ferroce_proto::Transport for EngineNode {
    fn post(&mut self, _: ferroce_proto::transport::WorkRequest) -> ferroce_proto::Result<()> {
        Err(ferroce_proto::Error::BadConfig("the engine takes work through its send ring".into()))
    }
    fn post_recv(&mut self, _: ferroce_proto::transport::RecvBuffer) -> ferroce_proto::Result<()> {
        Err(ferroce_proto::Error::BadConfig("the engine takes receive buffers through its receive ring".into()))
    }
    fn register_mr(&mut self, _: ferroce_proto::transport::MemoryRegion) -> ferroce_proto::Result<()> {
        Err(ferroce_proto::Error::BadConfig("the engine's regions are set through its registers".into()))
    }
    fn handle_frame(&mut self, now: ferroce_proto::types::Time, frame: &[u8], _: &mut dyn HostMemory) {
        self.catch_up(now);
        self.engine.borrow_mut().give_frame(frame.to_vec());
    }
    fn poll_transmit(&mut self, now: ferroce_proto::types::Time, _: &dyn HostMemory) -> Option<Vec<u8>> {
        self.catch_up(now);
        self.out.pop_front()
    }
    fn poll_timeout(&self) -> Option<ferroce_proto::types::Time> {
        let e = self.engine.borrow();
        if !self.out.is_empty() {
            return Some(e.cycles() * e.clock_ps());
        }
        Some((e.cycles() + self.quantum) * e.clock_ps())
    }
    fn handle_timeout(&mut self, now: ferroce_proto::types::Time) {
        self.catch_up(now);
    }
    fn poll_completion(&mut self) -> Option<ferroce_proto::transport::Completion> {
        None
    }
    fn stats(&self) -> ferroce_proto::transport::Stats {
        ferroce_proto::transport::Stats::default()
    }
    fn outstanding(&self) -> usize {
        0
    }
}
