//! Register-block discovery, Corundum style: every block starts with type
//! (+0x00), version (+0x04) and the offset of the next block (+0x08, 0 for
//! the last). The driver walks the chain and never hard-codes a base.

use ferroce_proto::regs::{self, APP_ID, BLOCKS, CORUNDUM_APP_INFO_TYPE};

use crate::{Error, RegisterAccess, Result};

/// A block found in a chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub offset: u32,
    pub type_id: u32,
    pub version: u32,
}

/// Blocks a chain may have before it is taken to be looping.
const MAX_BLOCKS: usize = 256;

/// Walk the chain starting at `start`.
pub fn walk(bus: &mut dyn RegisterAccess, start: u32) -> Result<Vec<Found>> {
    let mut out: Vec<Found> = Vec::new();
    let mut at = start;
    loop {
        if at % 4 != 0 {
            return Err(Error::Chain { offset: at, why: "misaligned block".into() });
        }
        let f = Found { offset: at, type_id: bus.read32(at)?, version: bus.read32(at + 4)? };
        // A device that is gone reads all ones everywhere; a type of all
        // ones alone is Corundum's firmware-ID block, the first of BAR0.
        if f.type_id == 0xffff_ffff && f.version == 0xffff_ffff {
            return Err(Error::Chain { offset: at, why: "reads all ones (device disabled or gone?)".into() });
        }
        out.push(f);
        let next = bus.read32(at + 8)?;
        if next == 0 {
            return Ok(out);
        }
        if out.len() >= MAX_BLOCKS || out.iter().any(|b| b.offset == next) {
            return Err(Error::Chain { offset: at, why: format!("next {next:#x} loops") });
        }
        at = next;
    }
}

/// The engine's blocks, by name, checked against this driver's register map.
#[derive(Debug, Clone)]
pub struct Engine {
    /// One per block of the map, in the map's order ([`regs::BLOCKS`]).
    pub blocks: Vec<(&'static str, Found)>,
}

impl Engine {
    /// Find every block of the register map in the chain at `start` and
    /// check its version.
    pub fn discover(bus: &mut dyn RegisterAccess, start: u32) -> Result<Engine> {
        let found = walk(bus, start)?;
        let mut blocks = Vec::new();
        for b in BLOCKS {
            let f = found
                .iter()
                .find(|f| f.type_id == b.type_id)
                .ok_or(Error::MissingBlock { type_id: b.type_id, name: b.name })?;
            if f.version != b.version {
                return Err(Error::Version { name: b.name, offset: f.offset, found: f.version, expected: b.version });
            }
            blocks.push((b.name, *f));
        }
        Ok(Engine { blocks })
    }

    /// Absolute offset of register `r`: its block's base as found by the
    /// walk plus its offset in the block (no look-up by name).
    pub fn addr(&self, r: regs::Reg) -> u32 {
        self.blocks[r.block].1.offset + r.offset_in_block()
    }

    /// Absolute offset of `block.register` by name (for names a user typed).
    pub fn offset_of(&self, block: &str, reg: &str) -> Result<u32> {
        let r = regs::Reg::find(block, reg).ok_or_else(|| Error::NoRegister(format!("{block}.{reg}")))?;
        Ok(self.addr(r))
    }
}

/// Under Corundum: find the application-info block in BAR0's chain and
/// check that the application is ferroce.
pub fn check_corundum_app(bar0: &mut dyn RegisterAccess) -> Result<Found> {
    let found = walk(bar0, 0)?;
    let info = found
        .iter()
        .find(|f| f.type_id == CORUNDUM_APP_INFO_TYPE)
        .copied()
        .ok_or(Error::MissingBlock { type_id: CORUNDUM_APP_INFO_TYPE, name: "corundum app info" })?;
    let id = bar0.read32(info.offset + 0x0c)?;
    if id != APP_ID {
        return Err(Error::AppId { found: id, expected: APP_ID });
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Twin;

    #[test]
    fn finds_every_block_of_the_map_on_the_twin() {
        let mut t = Twin::default();
        let e = Engine::discover(&mut t, 0).unwrap();
        assert_eq!(e.blocks.len(), BLOCKS.len());
        let port = e.addr(regs::control::UDP_PORT);
        assert_eq!(t.read32(port).unwrap(), 17989);
    }

    #[test]
    fn wrong_version_is_refused() {
        let mut t = Twin::default();
        let base = regs::block_base(regs::stats::TX_DATA.block);
        t.file.set(base + 4, 0x0000_0200);
        match Engine::discover(&mut t, 0) {
            Err(Error::Version { name: "stats", found: 0x200, .. }) => {}
            other => panic!("{other:?}"),
        }
    }

    /// Corundum's BAR0 starts with its firmware-ID block, whose type is all
    /// ones; a device that is gone reads all ones in every register.
    #[test]
    fn corundums_firmware_id_block_is_walked_and_a_gone_device_refused() {
        let mut bar0 = crate::cocotb::Replay::default();
        for (off, v) in [(0x00, 0xffff_ffff), (0x04, 0x100), (0x08, 0x40), (0x40, CORUNDUM_APP_INFO_TYPE)] {
            bar0.values.insert(off, v);
        }
        for (off, v) in [(0x44, 0x100), (0x48, 0), (0x4c, APP_ID)] {
            bar0.values.insert(off, v);
        }
        assert_eq!(check_corundum_app(&mut bar0).unwrap().offset, 0x40);
        bar0.values.insert(0x4c, 0x1234_0001);
        assert!(matches!(check_corundum_app(&mut bar0), Err(Error::AppId { found: 0x1234_0001, .. })));
        let mut gone = crate::cocotb::Replay::default();
        for off in [0, 4, 8] {
            gone.values.insert(off, 0xffff_ffff);
        }
        assert!(matches!(walk(&mut gone, 0), Err(Error::Chain { offset: 0, .. })));
    }

    #[test]
    fn a_looping_chain_is_refused() {
        let mut t = Twin::default();
        let last = regs::block_base(regs::stats::TX_DATA.block);
        t.file.set(last + 8, 0x100);
        assert!(matches!(walk(&mut t, 0), Err(Error::Chain { .. })));
    }
}
