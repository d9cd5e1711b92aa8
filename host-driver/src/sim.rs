//! The simulator backends: the whole engine (`ferroce_engine`) in
//! Verilator, reached over its AXI-Lite port and its host memory, so the
//! driver talks to the same Verilog the FPGA runs.

use crate::{Error, RegisterAccess, Result};

/// The whole engine in Verilator with its MAC looped back to itself through
/// a wire that delays frames and loses some: a [`crate::driver::Device`]
/// for the driver. The far end of the wire is a reflecting port, as on an
/// Ethernet tester: it hands each frame back with its MAC and IPv4
/// addresses swapped, so the engine can address its peer as a host of its
/// own ([`crate::loopback::SIM_PEER`]) and the frames on the wire go
/// between two distinct hosts, as equipment and the kernel expect (a frame
/// from an address to itself is a martian to Linux). A connection whose peer
/// is the engine's own address sees its frames unchanged.
#[allow(missing_debug_implementations)]
pub struct SimLoopback {
    pub engine: ferroce_sim::engine::EngineSim,
    rng: ferroce_proto::rng::Rng,
    settings: Wire,
    /// Frames on the wire: (cycle they arrive, frame).
    wire: std::collections::VecDeque<(u64, Vec<u8>)>,
    pcap: Option<ferroce_sim::pcap::PcapWriter<std::io::BufWriter<std::fs::File>>>,
    /// Cycles one `idle` runs.
    pub idle_cycles: u64,
    pub frames: u64,
    pub lost: u64,
    /// Bytes of those frames (the MAC interface's busy beats times 8, near enough).
    pub wire_bytes: u64,
    /// When set, every frame sent, with the cycle it left.
    pub tap: Option<Vec<(u64, Vec<u8>)>>,
}

/// Cycles a frame spends on the looped wire (400 ns at 250 MHz).
pub const WIRE_CYCLES: u64 = 100;

/// What the looped wire does to the frames between the engine's MAC
/// transmit and receive. A new option is a field here with its default
/// (callers build it with `..Wire::default()`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Wire {
    /// Probability that a frame is lost.
    pub loss: f64,
    /// Every frame sent is written to this pcap file, if given.
    pub pcap: Option<std::path::PathBuf>,
}

impl Wire {
    /// A wire losing each frame with probability `loss`.
    pub fn lossy(loss: f64) -> Wire {
        Wire { loss, ..Wire::default() }
    }
}

impl SimLoopback {
    /// An engine over `mem` behind `wire`, its DMA model seeded with `seed`.
    pub fn new(mem: ferroce_sim::memory::Memory, wire: &Wire, seed: u64) -> Result<SimLoopback> {
        Self::with_dma(mem, wire, ferroce_sim::engine::DmaConfig { seed, ..Default::default() })
    }

    /// As [`SimLoopback::new`], with the DMA model's behaviour given.
    pub fn with_dma(
        mem: ferroce_sim::memory::Memory,
        wire: &Wire,
        dma: ferroce_sim::engine::DmaConfig,
    ) -> Result<SimLoopback> {
        Self::with_preset("corundum", mem, wire, dma)
    }

    /// As [`SimLoopback::with_dma`], with the engine of the preset called
    /// `preset`.
    pub fn with_preset(
        preset: &str,
        mem: ferroce_sim::memory::Memory,
        wire: &Wire,
        dma: ferroce_sim::engine::DmaConfig,
    ) -> Result<SimLoopback> {
        let seed = dma.seed;
        let engine = ferroce_sim::engine::EngineSim::of_preset(preset, mem, dma)?;
        let pcap = match wire.pcap.as_deref() {
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
            settings: wire.clone(),
            wire: std::collections::VecDeque::new(),
            pcap,
            idle_cycles: 500,
            frames: 0,
            lost: 0,
            wire_bytes: 0,
            tap: None,
        })
    }

    /// One cycle of the engine with the wire.
    pub fn cycle(&mut self) -> Result<()> {
        self.engine.cycle();
        let now = self.engine.cycles();
        for f in self.engine.take_frames() {
            self.frames += 1;
            self.wire_bytes += f.len() as u64;
            if let Some(p) = self.pcap.as_mut() {
                p.frame(now * self.engine.clock_ps(), &f)
                    .map_err(|e| Error::Io { path: "pcap".into(), source: e })?;
            }
            if let Some(t) = self.tap.as_mut() {
                t.push((now, f.clone()));
            }
            if self.rng.chance(self.settings.loss) {
                self.lost += 1;
            } else {
                self.wire.push_back((now + WIRE_CYCLES, f));
            }
        }
        while self.wire.front().is_some_and(|(t, _)| *t <= now) {
            let (_, mut f) = self.wire.pop_front().expect("a frame");
            ferroce_proto::wire::reflect(&mut f);
            self.engine.give_frame(f);
        }
        if let Some(v) = self.engine.violations.first() {
            return Err(Error::Sim(ferroce_sim::Error::Stuck(format!("guard: {v}"))));
        }
        Ok(())
    }

    /// Frames on their way to the engine: on the wire, and given to its
    /// receive port but not yet taken whole.
    pub fn in_flight(&self) -> usize {
        self.wire.len() + self.engine.rx_pending()
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
