//! The building-block library: small rust-hdl blocks and conventions that
//! the engine's blocks are written with (see docs/rtl.md).

pub mod crc;
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

#[cfg(test)]
mod tests {
    use rust_hdl::prelude::Bits;

    #[test]
    fn low_ones_sets_the_low_bits_only() {
        assert_eq!(super::low_ones::<16>(3), Bits::<16>::from(0b111u64));
        assert_eq!(super::low_ones::<8>(20), Bits::<8>::from(0xffu64), "at most the width");
        assert_eq!(super::low_ones::<1024>(8).get_bits::<64>(0), Bits::<64>::from(0xffu64));
        assert!(!super::low_ones::<1024>(8).get_bits::<64>(8).any());
        assert_eq!(super::low_ones::<4>(0), Bits::<4>::from(0u64));
    }
}
