//! Register access: one trait for every backend, and a RAM-backed twin.

use ferroce_proto::regs::{BusError, RegFile};

use crate::{Error, Result};

/// 32-bit register access to one region (a BAR, or the simulator's bus).
pub trait RegisterAccess {
    /// Read the register at byte `offset`.
    fn read32(&mut self, offset: u32) -> Result<u32>;
    /// Write the register at byte `offset`.
    fn write32(&mut self, offset: u32, value: u32) -> Result<()>;
}

/// The register map's reference register file as a register region: the
/// twin that ring, doorbell and discovery logic is tested against.
#[derive(Debug, Clone, Default)]
pub struct Twin {
    pub file: RegFile,
}

fn bus(offset: u32, e: BusError) -> Error {
    Error::Access { offset, what: format!("{e:?}") }
}

impl RegisterAccess for Twin {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        self.file.read(offset).map_err(|e| bus(offset, e))
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.file.write(offset, value).map_err(|e| bus(offset, e))
    }
}
