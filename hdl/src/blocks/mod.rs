//! The building-block library: small rust-hdl blocks and conventions that
//! the engine's blocks are written with (see docs/rtl.md).

pub mod fifo;
pub mod keyed;
pub mod trees;

pub use ferroce_hdl_macros::{HdlDefault, HdlStruct};

use rust_hdl::prelude::Bits;

/// Bits of a bit index into `n` bits (Verilator wants index constants of
/// exactly this width).
pub const fn index_bits(n: usize) -> usize {
    (usize::BITS - (n - 1).leading_zeros()) as usize
}

/// `n` low bits set: the mask that keeps a fixed-width vector (sized for
/// the largest build) to the bits a smaller build uses. Masking a
/// register's next value with it makes the bits above constant, which
/// synthesis then removes; a register whose bits only hold their value
/// (D = Q) is kept, however unreachable they are.
pub fn low_ones<const N: usize>(n: usize) -> Bits<N> {
    (0..n.min(N)).fold(Bits::<N>::default(), |b, i| b.replace_bit(i, true))
}
