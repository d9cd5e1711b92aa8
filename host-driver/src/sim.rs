//! The simulator backend: the RTL register file (`csr`) in Verilator,
//! reached over its AXI-Lite port, so the driver talks to the same Verilog
//! the FPGA runs.

use std::sync::Arc;

use ferroce_sim::verilator::{ModelLib, Port, Sim};

use crate::{Error, RegisterAccess, Result};

/// The RTL register file as a register region.
#[derive(Debug)]
pub struct SimCsr {
    sim: Sim,
    ports: Vec<Port>,
}

const NAMES: [&str; 15] = [
    "s_axil_awaddr",
    "s_axil_awvalid",
    "s_axil_awready",
    "s_axil_wdata",
    "s_axil_wstrb",
    "s_axil_wvalid",
    "s_axil_bresp",
    "s_axil_bvalid",
    "s_axil_bready",
    "s_axil_araddr",
    "s_axil_arvalid",
    "s_axil_rdata",
    "s_axil_rresp",
    "s_axil_rvalid",
    "s_axil_rready",
];

impl SimCsr {
    /// Build (first use) and start the register file.
    pub fn new() -> Result<SimCsr> {
        let v = ferroce_hdl::emit::verilog(ferroce_hdl::csr::Csr::default());
        let lib: Arc<ModelLib> = ModelLib::build("csr", &v)?;
        let mut sim = Sim::new(&lib);
        sim.clock("clock");
        sim.reset("reset", None, 0);
        let ports = NAMES.iter().map(|n| sim.port(n)).collect();
        Ok(SimCsr { sim, ports })
    }

    fn p(&self, name: &str) -> Port {
        self.ports[NAMES.iter().position(|n| *n == name).expect("a listed port")]
    }

    fn wait(&mut self, name: &str, offset: u32) -> Result<()> {
        let p = self.p(name);
        for _ in 0..16 {
            self.sim.eval();
            if self.sim.get(p) == 1 {
                return Ok(());
            }
            self.sim.tick();
        }
        Err(Error::Access { offset, what: format!("{name} never rose") })
    }
}

const SLVERR: u64 = 2;

impl RegisterAccess for SimCsr {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        let (addr, valid) = (self.p("s_axil_araddr"), self.p("s_axil_arvalid"));
        self.sim.set(addr, offset as u64);
        self.sim.set(valid, 1);
        self.sim.tick();
        self.sim.set(valid, 0);
        self.wait("s_axil_rvalid", offset)?;
        let data = self.sim.get(self.p("s_axil_rdata")) as u32;
        let resp = self.sim.get(self.p("s_axil_rresp"));
        let ready = self.p("s_axil_rready");
        self.sim.set(ready, 1);
        self.sim.tick();
        self.sim.set(ready, 0);
        if resp == SLVERR {
            return Err(Error::Access { offset, what: "SLVERR".into() });
        }
        Ok(data)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        let (a, av, d, s, wv) = (
            self.p("s_axil_awaddr"),
            self.p("s_axil_awvalid"),
            self.p("s_axil_wdata"),
            self.p("s_axil_wstrb"),
            self.p("s_axil_wvalid"),
        );
        self.sim.set(a, offset as u64);
        self.sim.set(d, value as u64);
        self.sim.set(s, 0xf);
        self.sim.set(av, 1);
        self.sim.set(wv, 1);
        self.wait("s_axil_awready", offset)?;
        self.sim.tick();
        self.sim.set(av, 0);
        self.sim.set(wv, 0);
        self.wait("s_axil_bvalid", offset)?;
        let resp = self.sim.get(self.p("s_axil_bresp"));
        let b = self.p("s_axil_bready");
        self.sim.set(b, 1);
        self.sim.tick();
        self.sim.set(b, 0);
        if resp == SLVERR {
            return Err(Error::Access { offset, what: "SLVERR".into() });
        }
        Ok(())
    }
}

/// The whole engine in Verilator with its MAC looped back to itself through
/// a wire that delays frames and loses some: a [`crate::driver::Device`]
/// for the driver.
#[allow(missing_debug_implementations)]
pub struct SimLoopback {
    pub engine: ferroce_sim::engine::EngineSim,
    rng: ferroce_proto::rng::Rng,
    loss: f64,
    /// Frames on the wire: (cycle they arrive, frame).
    wire: std::collections::VecDeque<(u64, Vec<u8>)>,
    pcap: Option<ferroce_sim::pcap::PcapWriter<std::io::BufWriter<std::fs::File>>>,
    /// Cycles one `idle` runs.
    pub idle_cycles: u64,
    pub frames: u64,
    pub lost: u64,
}

/// Cycles a frame spends on the looped wire (400 ns at 250 MHz).
pub const WIRE_CYCLES: u64 = 100;

impl SimLoopback {
    /// An engine over `mem`, losing each frame with probability `loss`;
    /// every frame sent is written to `pcap` if given.
    pub fn new(
        mem: ferroce_sim::memory::Memory,
        loss: f64,
        seed: u64,
        pcap: Option<&std::path::Path>,
    ) -> Result<SimLoopback> {
        Self::with_dma(mem, loss, ferroce_sim::engine::DmaConfig { seed, ..Default::default() }, pcap)
    }

    /// As [`SimLoopback::new`], with the DMA model's behaviour given.
    pub fn with_dma(
        mem: ferroce_sim::memory::Memory,
        loss: f64,
        dma: ferroce_sim::engine::DmaConfig,
        pcap: Option<&std::path::Path>,
    ) -> Result<SimLoopback> {
        let seed = dma.seed;
        let engine = ferroce_sim::engine::EngineSim::new(mem, dma)?;
        let pcap = match pcap {
            Some(p) => {
                let f = std::fs::File::create(p).map_err(|e| Error::Io { path: p.display().to_string(), source: e })?;
                Some(
                    ferroce_sim::pcap::PcapWriter::new(std::io::BufWriter::new(f))
                        .map_err(|e| Error::Io { path: p.display().to_string(), source: e })?,
                )
            }
            None => None,
        };
        Ok(SimLoopback {
            engine,
            rng: ferroce_proto::rng::Rng::new(seed ^ 0x5eed),
            loss,
            wire: std::collections::VecDeque::new(),
            pcap,
            idle_cycles: 500,
            frames: 0,
            lost: 0,
        })
    }

    /// One cycle of the engine with the wire.
    pub fn cycle(&mut self) -> Result<()> {
        self.engine.cycle();
        let now = self.engine.cycles();
        for f in self.engine.take_frames() {
            self.frames += 1;
            if let Some(p) = self.pcap.as_mut() {
                p.frame(now * ferroce_hdl::engine::NS_PER_CYCLE as u64 * 1000, &f)
                    .map_err(|e| Error::Io { path: "pcap".into(), source: e })?;
            }
            if self.rng.chance(self.loss) {
                self.lost += 1;
            } else {
                self.wire.push_back((now + WIRE_CYCLES, f));
            }
        }
        while self.wire.front().is_some_and(|(t, _)| *t <= now) {
            let (_, f) = self.wire.pop_front().expect("a frame");
            self.engine.give_frame(f);
        }
        if let Some(v) = self.engine.violations.first() {
            return Err(Error::Sim(ferroce_sim::Error::Stuck(format!("guard: {v}"))));
        }
        Ok(())
    }

    /// Flush the capture file.
    pub fn finish(&mut self) -> Result<()> {
        if let Some(p) = self.pcap.take() {
            p.finish().map_err(|e| Error::Io { path: "pcap".into(), source: e })?;
        }
        Ok(())
    }
}

/// An engine's register access failed at `offset`.
fn access(offset: u32) -> impl FnOnce(ferroce_sim::Error) -> Error {
    move |e| Error::Access { offset, what: e.to_string() }
}

/// The host CPU writes the simulator's memory (any region, DMA-writable or not).
fn host_write(mem: &mut ferroce_sim::memory::Memory, addr: u64, data: &[u8]) -> Result<()> {
    let iova = ferroce_proto::Iova(addr);
    if !mem.readable(iova, data.len()) {
        return Err(Error::BadRequest(format!("host write outside memory: {addr:#x}+{}", data.len())));
    }
    mem.host_write(iova, data);
    Ok(())
}

/// The host CPU reads the simulator's memory.
fn host_read(mem: &ferroce_sim::memory::Memory, addr: u64, buf: &mut [u8]) -> Result<()> {
    let iova = ferroce_proto::Iova(addr);
    if !mem.readable(iova, buf.len()) {
        return Err(Error::BadRequest(format!("host read outside memory: {addr:#x}+{}", buf.len())));
    }
    buf.copy_from_slice(mem.slice(iova, buf.len()));
    Ok(())
}

impl RegisterAccess for SimLoopback {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        self.engine.read32(offset).map_err(access(offset))
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.engine.write32(offset, value).map_err(access(offset))
    }
}

impl crate::driver::Device for SimLoopback {
    fn write_mem(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        host_write(&mut self.engine.mem, addr, data)
    }

    fn read_mem(&mut self, addr: u64, buf: &mut [u8]) -> Result<()> {
        host_read(&self.engine.mem, addr, buf)
    }

    fn idle(&mut self) -> Result<()> {
        for _ in 0..self.idle_cycles {
            self.cycle()?;
        }
        Ok(())
    }
}

/// An engine shared with the fabric model (see
/// [`ferroce_sim::engine::EngineNode`]): the driver's view of one of several
/// engines on a simulated network. `idle` runs the engine's clock alone;
/// during transfers the caller advances the fabric instead.
#[derive(Clone)]
#[allow(missing_debug_implementations)]
pub struct SharedEngine(pub std::rc::Rc<std::cell::RefCell<ferroce_sim::engine::EngineSim>>);

impl RegisterAccess for SharedEngine {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        self.0.borrow_mut().read32(offset).map_err(access(offset))
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.0.borrow_mut().write32(offset, value).map_err(access(offset))
    }
}

impl crate::driver::Device for SharedEngine {
    fn write_mem(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        host_write(&mut self.0.borrow_mut().mem, addr, data)
    }

    fn read_mem(&mut self, addr: u64, buf: &mut [u8]) -> Result<()> {
        host_read(&self.0.borrow().mem, addr, buf)
    }

    fn idle(&mut self) -> Result<()> {
        self.0.borrow_mut().run(200);
        Ok(())
    }
}
