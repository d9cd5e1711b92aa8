//! Memory-region table: the protection check every remote WRITE passes.

use std::collections::HashMap;

use crate::transport::MemoryRegion;
use crate::types::{ConnId, Iova, Rkey};
use crate::{Error, Result};

/// Registered regions by rkey.
#[derive(Debug, Default, Clone)]
pub struct MrTable {
    regions: HashMap<Rkey, MemoryRegion>,
}

impl MrTable {
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

    /// May `conn` write `len` bytes at `addr` through `rkey`?
    pub fn check_write(&self, conn: ConnId, rkey: Rkey, addr: Iova, len: u64) -> bool {
        let Some(mr) = self.regions.get(&rkey) else {
            return false;
        };
        let Some(end) = addr.checked_add(len) else {
            return false;
        };
        mr.access.remote_write && mr.conn == conn && addr >= mr.base && end.0 <= mr.base.0 + mr.len
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
        assert!(t
            .register(MemoryRegion { rkey: Rkey(7), base: Iova(0), len: 1, access: rw, conn: ConnId(1) })
            .is_err());
    }
}
