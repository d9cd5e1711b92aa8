//! ferroce-proto: the specification of the ferroce transport, as code.
//!
//! * [`wire`]: Ethernet II / IPv4 / UDP / ferroce transport headers as field
//!   tables, a thin `Packet` view over bytes and a semantic `Repr` for each.
//! * [`board`]: the open-FPGA board tops' host bridge (address map,
//!   LiteX's UARTBone bytes).
//! * [`defaults`]: the settings at reset, one definition for the register
//!   map, the model and the driver.
//! * [`regs`]: the register map, the single source for the RTL decoder, the
//!   driver's accessors and `docs/regmap.md`.
//! * [`model`]: the sans-IO reference transport (the golden model).
//! * [`baseline`]: a RoCEv2-RC-style go-back-N transport with the same API,
//!   optionally under [`dcqcn`] rate control as deployed.
//!
//! Nothing here performs I/O or reads a clock: time is passed in as
//! [`Time`] (picoseconds) and host memory through the [`HostMemory`] trait.

pub mod baseline;
pub mod board;
pub mod config;
pub mod dcqcn;
pub mod defaults;
pub mod error;
pub mod model;
pub mod params;
pub mod regs;
pub mod rings;
pub mod rng;
pub mod transport;
pub mod types;
pub mod wire;

pub use error::{Error, Result};

/// `a == b` in a `const fn` (for look-ups in the field tables and the
/// register map at compile time, where a name that is not there stops the
/// build).
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
pub use transport::{Completion, CompletionStatus, HostMemory, Transport, WorkRequest};
pub use types::*;
