//! The engine inside Corundum's full-NIC cocotb testbench
//! (`fpga/corundum/tb/test_ferroce.py`, run by `cargo xtask corundum-test`):
//! the bench serves BAR0, BAR2 and a region of the root complex's host
//! memory on a Unix socket, and [`Bench`] is a [`Device`] over it, so the
//! driver's own register sequence programs the simulated NIC.
//!
//! The protocol is described at the top of the bench. Every request waits
//! for its answer; simulated time moves only while the bench answers, so
//! the driver and the simulation run in lockstep.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::driver::Device;
use crate::{Error, RegisterAccess, Result};

/// What the bench's MAC models saw on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lanes {
    /// Frames the NIC sent.
    pub nic: u32,
    /// Frames ferroce sent.
    pub ferroce: u32,
    /// ferroce frames the bench's loss model dropped.
    pub dropped: u32,
}

/// One register read as the bench answered it: (BAR, offset, value).
pub type Read32 = (u8, u32, u32);

/// The bench at the end of its socket.
#[derive(Debug)]
pub struct Bench {
    stream: UnixStream,
    /// Simulated time of the last idle, in picoseconds.
    pub time_ps: u64,
    /// Host memory the bench gave the driver: bus address and bytes.
    pub mem_base: u64,
    pub mem_bytes: u64,
    /// Every register read, while recording (see [`Bench::record`]).
    pub reads: Option<Vec<Read32>>,
    /// Nanoseconds of simulated time one [`Device::idle`] lets pass.
    pub idle_ns: u32,
}

const BAR0: u8 = 0;
const BAR2: u8 = 2;

fn io(e: std::io::Error) -> Error {
    Error::System(format!("the testbench's socket: {e}"))
}

impl Bench {
    /// Connect to the bench at `path`, waiting up to `wait` for it to listen
    /// (it does once the NIC is up, after its build and bring-up).
    pub fn connect(path: &Path, wait: Duration) -> Result<Bench> {
        let t = Instant::now();
        let stream = loop {
            match UnixStream::connect(path) {
                Ok(s) => break s,
                Err(_) if t.elapsed() < wait => std::thread::sleep(Duration::from_millis(200)),
                Err(e) => {
                    return Err(Error::Timeout(format!("the testbench on {} ({e}) after {wait:?}", path.display())))
                }
            }
        };
        let mut b = Bench { stream, time_ps: 0, mem_base: 0, mem_bytes: 0, reads: None, idle_ns: 1000 };
        let a = b.request(&[6], 16)?;
        b.mem_base = u64::from_le_bytes(a[0..8].try_into().unwrap());
        b.mem_bytes = u64::from_le_bytes(a[8..16].try_into().unwrap());
        Ok(b)
    }

    /// Send `req`; read the status byte and `n` bytes of answer.
    fn request(&mut self, req: &[u8], n: usize) -> Result<Vec<u8>> {
        self.stream.write_all(req).map_err(io)?;
        let mut status = [0u8];
        self.stream.read_exact(&mut status).map_err(io)?;
        if status[0] != 0 {
            let mut len = [0u8; 4];
            self.stream.read_exact(&mut len).map_err(io)?;
            let mut msg = vec![0u8; u32::from_le_bytes(len) as usize];
            self.stream.read_exact(&mut msg).map_err(io)?;
            return Err(Error::System(format!("the testbench refused: {}", String::from_utf8_lossy(&msg))));
        }
        let mut a = vec![0u8; n];
        self.stream.read_exact(&mut a).map_err(io)?;
        Ok(a)
    }

    /// Read the 32-bit register at `offset` of BAR `bar` (0 or 2).
    pub fn read_bar(&mut self, bar: u8, offset: u32) -> Result<u32> {
        let mut req = vec![1, bar];
        req.extend_from_slice(&offset.to_le_bytes());
        let v = u32::from_le_bytes(self.request(&req, 4)?.try_into().unwrap());
        if let Some(r) = &mut self.reads {
            r.push((bar, offset, v));
        }
        Ok(v)
    }

    /// Write the 32-bit register at `offset` of BAR `bar`.
    pub fn write_bar(&mut self, bar: u8, offset: u32, value: u32) -> Result<()> {
        let mut req = vec![2, bar];
        req.extend_from_slice(&offset.to_le_bytes());
        req.extend_from_slice(&value.to_le_bytes());
        self.request(&req, 0).map(|_| ())
    }

    /// BAR0 (Corundum's own registers) as a register region.
    pub fn bar0(&mut self) -> Bar0<'_> {
        Bar0(self)
    }

    /// Start recording every register read (for a capture of the NIC's BARs).
    pub fn record(&mut self) {
        self.reads = Some(Vec::new());
    }

    /// What the MAC models saw so far.
    pub fn lanes(&mut self) -> Result<Lanes> {
        let a = self.request(&[8], 12)?;
        let w = |k: usize| u32::from_le_bytes(a[k * 4..k * 4 + 4].try_into().unwrap());
        Ok(Lanes { nic: w(0), ferroce: w(1), dropped: w(2) })
    }

    /// Tell the bench the driver is done (and whether it failed); the bench
    /// then finishes its own checks.
    pub fn done(mut self, failed: bool) -> Result<()> {
        self.request(&[7, failed as u8], 0).map(|_| ())
    }

    /// Engine cycles (4 ns, the core clock) of simulated time so far.
    pub fn cycles(&self) -> u64 {
        self.time_ps / 4000
    }

    fn check_mem(&self, addr: u64, n: usize) -> Result<()> {
        if addr < self.mem_base || addr + n as u64 > self.mem_base + self.mem_bytes {
            return Err(Error::BadRequest(format!(
                "{n} bytes at {addr:#x}: outside the bench's host memory {:#x}+{:#x}",
                self.mem_base, self.mem_bytes
            )));
        }
        Ok(())
    }
}

/// Largest host-memory transfer in one request.
const MEM_CHUNK: usize = 1 << 16;

impl RegisterAccess for Bench {
    /// The engine's registers: BAR2 from offset 0.
    fn read32(&mut self, offset: u32) -> Result<u32> {
        self.read_bar(BAR2, offset)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.write_bar(BAR2, offset, value)
    }
}

impl Device for Bench {
    fn write_mem(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        self.check_mem(addr, data.len())?;
        for (k, chunk) in data.chunks(MEM_CHUNK).enumerate() {
            let mut req = vec![3];
            req.extend_from_slice(&(addr + (k * MEM_CHUNK) as u64).to_le_bytes());
            req.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
            req.extend_from_slice(chunk);
            self.request(&req, 0)?;
        }
        Ok(())
    }

    fn read_mem(&mut self, addr: u64, buf: &mut [u8]) -> Result<()> {
        self.check_mem(addr, buf.len())?;
        for (k, chunk) in buf.chunks_mut(MEM_CHUNK).enumerate() {
            let mut req = vec![4];
            req.extend_from_slice(&(addr + (k * MEM_CHUNK) as u64).to_le_bytes());
            req.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
            let a = self.request(&req, chunk.len())?;
            chunk.copy_from_slice(&a);
        }
        Ok(())
    }

    fn idle(&mut self) -> Result<()> {
        let mut req = vec![5];
        req.extend_from_slice(&self.idle_ns.to_le_bytes());
        let a = self.request(&req, 8)?;
        self.time_ps = u64::from_le_bytes(a.try_into().unwrap());
        Ok(())
    }
}

/// BAR0 of the bench's NIC.
#[derive(Debug)]
pub struct Bar0<'a>(&'a mut Bench);

impl RegisterAccess for Bar0<'_> {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        self.0.read_bar(BAR0, offset)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.0.write_bar(BAR0, offset, value)
    }
}

/// Registers as a capture recorded them: reads answer the first value read
/// at an offset, an offset never read is an error, writes are kept. What
/// the driver's discovery and bring-up do against a real Corundum NIC's
/// BARs, replayed without the NIC.
#[derive(Debug, Clone, Default)]
pub struct Replay {
    pub values: std::collections::BTreeMap<u32, u32>,
    pub writes: Vec<(u32, u32)>,
}

impl Replay {
    /// The reads of BAR `bar` in `reads`.
    pub fn of(reads: &[Read32], bar: u8) -> Replay {
        let mut values = std::collections::BTreeMap::new();
        for &(b, off, v) in reads {
            if b == bar {
                values.entry(off).or_insert(v);
            }
        }
        Replay { values, writes: Vec::new() }
    }
}

impl RegisterAccess for Replay {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        self.values.get(&offset).copied().ok_or_else(|| Error::Access { offset, what: "not in the capture".into() })
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.writes.push((offset, value));
        Ok(())
    }
}
