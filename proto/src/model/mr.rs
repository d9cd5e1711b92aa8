//! Memory-region table: the protection check every remote WRITE passes.

use std::collections::HashMap;

use crate::transport::MemoryRegion;
use crate::types::{ConnId, Iova, Rkey};
use crate::{Error, Result};

/// Registered regions by rkey.
#[derive(Debug, Clone)]
pub struct MrTable {
    regions: HashMap<Rkey, MemoryRegion>,
    /// The engine's DMA address bits (`EngineConfig::dma_addr_bits`): an
    /// access must end below 2^this.
    addr_bits: u32,
}

impl Default for MrTable {
    fn default() -> MrTable {
        MrTable::with_addr_bits(64)
    }
}

impl MrTable {
    /// An empty table of an engine whose DMA addresses have `addr_bits`
    /// bits (32 to 64).
    pub fn with_addr_bits(addr_bits: u32) -> MrTable {
        assert!((32..=64).contains(&addr_bits), "DMA addresses of {addr_bits} bits");
        MrTable { regions: HashMap::new(), addr_bits }
    }

    /// Register `mr`; its rkey must be new and its range must not wrap.
    pub fn register(&mut self, mr: MemoryRegion) -> Result<()> {
        if mr.len == 0 || mr.base.checked_add(mr.len).is_none() {
            return Err(Error::BadMemoryRegion(format!("rkey {}: empty or wrapping range", mr.rkey)));
        }
        if self.regions.contains_key(&mr.rkey) {
            return Err(Error::BadMemoryRegion(format!("rkey {} already registered", mr.rkey)));
        }
        self.regions.insert(mr.rkey, mr);
        Ok(())
    }

    /// May `conn` write `len` bytes at `addr` through `rkey`? Not if the
    /// access does not end below the engine's DMA addresses' limit
    /// (2^`addr_bits`, so the last byte below it is never written, as at
    /// 2^64), even in a region registered beyond it.
    pub fn check_write(&self, conn: ConnId, rkey: Rkey, addr: Iova, len: u64) -> bool {
        let Some(mr) = self.regions.get(&rkey) else {
            return false;
        };
        if !crate::config::dma_reaches(self.addr_bits, addr.0, len) {
            return false;
        }
        let end = addr.0 + len;
        mr.access.remote_write && mr.conn == conn && addr >= mr.base && end <= mr.base.0 + mr.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::Access;

    #[test]
    fn write_checks_key_owner_bounds_and_permission() {
        let mut t = MrTable::default();
        let rw = Access { remote_write: true };
        t.register(MemoryRegion { rkey: Rkey(7), base: Iova(0x1000), len: 0x100, access: rw, conn: ConnId(1) })
            .unwrap();
        t.register(MemoryRegion {
            rkey: Rkey(8),
            base: Iova(0x2000),
            len: 0x100,
            access: Access { remote_write: false },
            conn: ConnId(1),
        })
        .unwrap();
        assert!(t.check_write(ConnId(1), Rkey(7), Iova(0x1000), 0x100));
        assert!(!t.check_write(ConnId(1), Rkey(7), Iova(0x1001), 0x100), "one past the end");
        assert!(!t.check_write(ConnId(1), Rkey(7), Iova(0xfff), 1), "below the base");
        assert!(!t.check_write(ConnId(2), Rkey(7), Iova(0x1000), 1), "other connection");
        assert!(!t.check_write(ConnId(1), Rkey(9), Iova(0x1000), 1), "unknown rkey");
        assert!(!t.check_write(ConnId(1), Rkey(8), Iova(0x2000), 1), "read-only region");
        assert!(!t.check_write(ConnId(1), Rkey(7), Iova(u64::MAX), 2), "wrapping");
        // A 32-bit engine: an access must end below 2^32, whatever the region.
        let mut n = MrTable::with_addr_bits(32);
        let mr = MemoryRegion { rkey: Rkey(1), base: Iova(0xffff_f000), len: 0x2000, access: rw, conn: ConnId(0) };
        n.register(mr).unwrap();
        assert!(n.check_write(ConnId(0), Rkey(1), Iova(0xffff_f000), 0xfff), "below 2^32");
        assert!(!n.check_write(ConnId(0), Rkey(1), Iova(0xffff_f000), 0x1000), "ending at 2^32, as at 2^64");
        assert!(!n.check_write(ConnId(0), Rkey(1), Iova(1 << 32), 0), "at 2^32");
        assert!(t
            .register(MemoryRegion { rkey: Rkey(7), base: Iova(0), len: 1, access: rw, conn: ConnId(1) })
            .is_err());
    }
}
