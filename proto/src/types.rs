//! Newtypes for protocol quantities.

use core::fmt;

/// Simulated time in picoseconds. The model never reads a clock; every
/// `handle_*`/`poll_*` call is given the current time.
pub type Time = u64;

/// One picosecond-based duration helper: nanoseconds to [`Time`].
pub const fn ns(n: u64) -> Time {
    n * 1_000
}

/// Microseconds to [`Time`].
pub const fn us(n: u64) -> Time {
    n * 1_000_000
}

macro_rules! id_newtype {
    ($(#[$m:meta])* $name:ident($inner:ty)) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name(pub $inner);
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

id_newtype!(
    /// Connection number, local to one endpoint (carried on the wire as the
    /// *destination's* connection number).
    ConnId(u16)
);
id_newtype!(
    /// Path index within a connection (0..paths).
    PathId(u8)
);
id_newtype!(
    /// Ordered stream within a connection.
    StreamId(u16)
);
id_newtype!(
    /// Remote key of a memory region.
    Rkey(u32)
);
id_newtype!(
    /// Message sequence number within a stream.
    MsgSeq(u32)
);
id_newtype!(
    /// Work request id chosen by the caller; echoed in the completion.
    WrId(u64)
);

/// An address in host (DMA) memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Iova(pub u64);

impl Iova {
    /// `self + off`, or `None` on overflow.
    pub fn checked_add(self, off: u64) -> Option<Iova> {
        self.0.checked_add(off).map(Iova)
    }
}

impl fmt::Display for Iova {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// A 24-bit packet sequence number with wrapping (serial-number) comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Psn(u32);

impl Psn {
    /// Number of distinct PSNs.
    pub const MODULUS: u32 = 1 << 24;
    const MASK: u32 = Self::MODULUS - 1;

    /// A PSN from the low 24 bits of `v`.
    pub const fn new(v: u32) -> Psn {
        Psn(v & Self::MASK)
    }
    /// The raw 24-bit value.
    pub const fn get(self) -> u32 {
        self.0
    }
    /// `self + n` modulo 2^24.
    pub const fn add(self, n: u32) -> Psn {
        Psn::new(self.0.wrapping_add(n))
    }
    /// Signed distance `self - other` in (-2^23, 2^23].
    pub const fn diff(self, other: Psn) -> i32 {
        let d = self.0.wrapping_sub(other.0) & Self::MASK;
        if d >= 1 << 23 {
            d as i32 - Self::MODULUS as i32
        } else {
            d as i32
        }
    }
    /// Serial-number `self < other`.
    pub const fn before(self, other: Psn) -> bool {
        self.diff(other) < 0
    }
    /// Index of this PSN in a `SACK_WINDOW`-entry circular bitmap.
    pub const fn slot(self) -> usize {
        self.0 as usize % crate::params::SACK_WINDOW
    }
}

impl fmt::Display for Psn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psn_compares_across_wrap() {
        let a = Psn::new(Psn::MODULUS - 2);
        let b = a.add(5);
        assert_eq!(b.get(), 3);
        assert!(a.before(b));
        assert!(!b.before(a));
        assert_eq!(b.diff(a), 5);
        assert_eq!(a.diff(b), -5);
        assert_eq!(Psn::new(0x1234_5678).get(), 0x34_5678);
        assert_eq!(Psn::new(0x1ff).slot(), 0xff);
    }
}
