//! The building-block library: small rust-hdl blocks and conventions that
//! the engine's blocks are written with (see docs/rtl.md).

pub mod fifo;
pub mod keyed;
pub mod trees;

pub use ferroce_hdl_macros::{HdlDefault, HdlStruct};

/// Bits of a bit index into `n` bits (Verilator wants index constants of
/// exactly this width).
pub const fn index_bits(n: usize) -> usize {
    (usize::BITS - (n - 1).leading_zeros()) as usize
}
