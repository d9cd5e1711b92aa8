//! Host memory as a set of regions. Every DMA access outside them is a guard
//! violation: recorded, never performed, and a test fails on it.

use ferroce_proto::{HostMemory, Iova};

/// One named region of host memory.
#[derive(Debug, Clone)]
pub struct Region {
    pub name: String,
    pub base: Iova,
    pub data: Vec<u8>,
    /// May the NIC write here?
    pub dma_writable: bool,
}

/// A DMA access that touched no region (or wrote a read-only one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub write: bool,
    pub addr: Iova,
    pub len: usize,
}

/// Sparse host memory.
#[derive(Debug, Default, Clone)]
pub struct Memory {
    regions: Vec<Region>,
    violations: Vec<Violation>,
    /// Bytes the NIC wrote, by region index.
    written: Vec<u64>,
}

impl Memory {
    /// Add a zero-filled region; panics if it overlaps another (a test bug).
    pub fn add_region(&mut self, name: &str, base: Iova, len: usize, dma_writable: bool) -> Iova {
        let end = base.0 + len as u64;
        for r in &self.regions {
            let rend = r.base.0 + r.data.len() as u64;
            assert!(end <= r.base.0 || base.0 >= rend, "region {name} overlaps {}", r.name);
        }
        self.regions.push(Region { name: name.into(), base, data: vec![0; len], dma_writable });
        self.written.push(0);
        base
    }

    fn find(&self, addr: Iova, len: usize) -> Option<usize> {
        self.regions.iter().position(|r| addr >= r.base && addr.0 + len as u64 <= r.base.0 + r.data.len() as u64)
    }

    /// The bytes of a region.
    pub fn region(&self, name: &str) -> &[u8] {
        &self.regions.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("no region {name}")).data
    }

    /// Mutable bytes of a region (the host CPU's view).
    pub fn region_mut(&mut self, name: &str) -> &mut [u8] {
        &mut self.regions.iter_mut().find(|r| r.name == name).unwrap_or_else(|| panic!("no region {name}")).data
    }

    /// Host-side read of any mapped range.
    pub fn slice(&self, addr: Iova, len: usize) -> &[u8] {
        let i = self.find(addr, len).unwrap_or_else(|| panic!("{addr}+{len} is not mapped"));
        let off = (addr.0 - self.regions[i].base.0) as usize;
        &self.regions[i].data[off..off + len]
    }

    /// The host CPU writes `data` at `addr` (any region, DMA-writable or
    /// not); panics outside every region.
    pub fn host_write(&mut self, addr: Iova, data: &[u8]) {
        let i = self.find(addr, data.len()).unwrap_or_else(|| panic!("{addr}+{} is not mapped", data.len()));
        let off = (addr.0 - self.regions[i].base.0) as usize;
        self.regions[i].data[off..off + data.len()].copy_from_slice(data);
    }

    /// Is `addr..addr+len` inside one region?
    pub fn readable(&self, addr: Iova, len: usize) -> bool {
        self.find(addr, len).is_some()
    }

    /// Guard violations so far.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// Bytes the NIC wrote into region `name`.
    pub fn dma_written(&self, name: &str) -> u64 {
        let i = self.regions.iter().position(|r| r.name == name).unwrap_or_else(|| panic!("no region {name}"));
        self.written[i]
    }
}

impl HostMemory for Memory {
    fn read(&self, addr: Iova, buf: &mut [u8]) {
        match self.find(addr, buf.len()) {
            Some(i) => {
                let off = (addr.0 - self.regions[i].base.0) as usize;
                buf.copy_from_slice(&self.regions[i].data[off..off + buf.len()]);
            }
            None => {
                // Reads cannot record through &self; a read outside memory
                // is a transport bug, so fail loudly.
                panic!("DMA read outside host memory: {addr}+{}", buf.len());
            }
        }
    }

    fn write(&mut self, addr: Iova, data: &[u8]) {
        match self.find(addr, data.len()) {
            Some(i) if self.regions[i].dma_writable => {
                let off = (addr.0 - self.regions[i].base.0) as usize;
                self.regions[i].data[off..off + data.len()].copy_from_slice(data);
                self.written[i] += data.len() as u64;
            }
            _ => self.violations.push(Violation { write: true, addr, len: data.len() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_outside_regions_are_recorded_not_performed() {
        let mut m = Memory::default();
        m.add_region("a", Iova(0x1000), 16, true);
        m.add_region("ro", Iova(0x2000), 16, false);
        m.write(Iova(0x1008), &[1, 2, 3]);
        assert_eq!(&m.region("a")[8..11], &[1, 2, 3]);
        m.write(Iova(0x100e), &[9, 9, 9]); // crosses the end
        m.write(Iova(0x2000), &[9]); // read-only
        assert_eq!(m.violations().len(), 2);
        assert_eq!(m.region("a")[14..], [0, 0]);
        assert_eq!(m.region("ro")[0], 0);
        assert_eq!(m.dma_written("a"), 3);
    }
}
