//! The per-path receive tracker: cumulative PSN, highest PSN seen and a
//! 256-bit circular bitmap indexed by PSN mod 256. Bits are cleared as the
//! cumulative PSN passes them, so the bitmap is directly the ACK's SACK
//! field. This is the reference for the RTL `sack` block.
//!
//! The receive window is [`WINDOW`] PSNs from the cumulative one, or fewer
//! in a build that keeps fewer packets in flight per path
//! ([`SackTracker::with_window`], `EngineConfig::in_flight_per_path`): its
//! sender never has a PSN that far ahead, and a PSN beyond is out of the
//! window.

use crate::params::{SackBitmap, SACK_BYTES};
use crate::types::Psn;

/// Packets a path may have between its cumulative PSN and the highest.
pub const WINDOW: i32 = crate::params::SACK_WINDOW as i32;

/// What a data packet's PSN means to the tracker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Not seen before and inside the window. `hole`: it is beyond the
    /// highest PSN seen + 1, so it opens a gap.
    New { hole: bool },
    /// Before the cumulative PSN, or its bit is set.
    Duplicate,
    /// The window (256, or the build's) or more beyond the cumulative PSN.
    OutOfWindow,
}

impl Verdict {
    /// Width of [`Verdict::code`].
    pub const CODE_BITS: usize = 2;

    /// One verdict of each kind, in code order (`New` stands for both of its
    /// `hole` values: the hole is reported apart from the code).
    pub const KINDS: [Verdict; 3] = [Verdict::New { hole: false }, Verdict::Duplicate, Verdict::OutOfWindow];

    /// The verdict's code in hardware (the RTL `sack` block's `out_verdict`).
    pub const fn code(self) -> u64 {
        match self {
            Verdict::New { .. } => 0,
            Verdict::Duplicate => 1,
            Verdict::OutOfWindow => 2,
        }
    }
}

/// One path's receive state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SackTracker {
    cum: Psn,
    high: Psn,
    bitmap: SackBitmap,
    window: i32,
}

impl Default for SackTracker {
    fn default() -> SackTracker {
        SackTracker::starting_at(Psn::default())
    }
}

impl SackTracker {
    /// A tracker whose next expected PSN is `psn` (a connection's initial PSN).
    pub fn starting_at(psn: Psn) -> SackTracker {
        SackTracker::with_window(psn, WINDOW as u32)
    }

    /// A tracker starting at `psn` whose window is `window` PSNs (a power
    /// of two, 8 to [`WINDOW`]: a build's packets in flight per path).
    pub fn with_window(psn: Psn, window: u32) -> SackTracker {
        assert!(window.is_power_of_two() && (8..=WINDOW as u32).contains(&window), "window {window}");
        SackTracker { cum: psn, high: psn, bitmap: [0; SACK_BYTES], window: window as i32 }
    }

    /// A tracker in a given state (for hardware models that store it apart).
    pub fn from_parts(cum: Psn, high: Psn, bitmap: SackBitmap) -> SackTracker {
        SackTracker { cum, high, bitmap, window: WINDOW }
    }

    /// The receive window in PSNs.
    pub fn window(&self) -> u32 {
        self.window as u32
    }

    /// Classify `psn` without changing anything.
    pub fn classify(&self, psn: Psn) -> Verdict {
        let d = psn.diff(self.cum);
        if d < 0 || (d < self.window && self.bit(psn)) {
            Verdict::Duplicate
        } else if d >= self.window {
            Verdict::OutOfWindow
        } else {
            Verdict::New { hole: psn.diff(self.high) > 0 }
        }
    }

    /// Record `psn` as received (it must have been classified `New`):
    /// set its bit, raise the highest PSN, and advance the cumulative PSN over
    /// the run of set bits, clearing them.
    pub fn accept(&mut self, psn: Psn) {
        debug_assert!(matches!(self.classify(psn), Verdict::New { .. }));
        self.set(psn, true);
        if psn.diff(self.high) >= 0 {
            self.high = psn.add(1);
        }
        let mut n = 0;
        while self.bit(self.cum) && n < self.window {
            let c = self.cum;
            self.set(c, false);
            self.cum = c.add(1);
            n += 1;
        }
    }

    /// Next PSN expected in order: every PSN before it was received.
    pub fn cum(&self) -> Psn {
        self.cum
    }

    /// One past the highest PSN received.
    pub fn high(&self) -> Psn {
        self.high
    }

    /// The circular bitmap (slot i in byte i/8, bit i%8).
    pub fn bitmap(&self) -> &SackBitmap {
        &self.bitmap
    }

    fn bit(&self, psn: Psn) -> bool {
        self.bitmap[psn.slot() / 8] & (1 << (psn.slot() % 8)) != 0
    }

    fn set(&mut self, psn: Psn, v: bool) {
        let (i, b) = (psn.slot() / 8, 1u8 << (psn.slot() % 8));
        if v {
            self.bitmap[i] |= b
        } else {
            self.bitmap[i] &= !b
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_out_of_order_duplicate_and_out_of_window() {
        let mut t = SackTracker::default();
        assert_eq!(t.classify(Psn::new(0)), Verdict::New { hole: false });
        t.accept(Psn::new(0));
        assert_eq!(t.cum(), Psn::new(1));
        assert_eq!(t.classify(Psn::new(3)), Verdict::New { hole: true });
        t.accept(Psn::new(3));
        assert_eq!((t.cum(), t.high()), (Psn::new(1), Psn::new(4)));
        assert_eq!(t.bitmap()[0], 0b1000);
        assert_eq!(t.classify(Psn::new(3)), Verdict::Duplicate);
        assert_eq!(t.classify(Psn::new(0)), Verdict::Duplicate);
        assert_eq!(t.classify(Psn::new(2)), Verdict::New { hole: false });
        assert_eq!(t.classify(Psn::new(257)), Verdict::OutOfWindow);
        assert_eq!(t.classify(Psn::new(256)), Verdict::New { hole: true });
        t.accept(Psn::new(1));
        t.accept(Psn::new(2));
        assert_eq!(t.cum(), Psn::new(4));
        assert_eq!(t.bitmap(), &[0; SACK_BYTES], "bits behind cum are cleared");
    }

    #[test]
    fn verdict_codes_are_distinct_and_fit_their_width() {
        for (i, v) in Verdict::KINDS.iter().enumerate() {
            assert_eq!(v.code(), i as u64, "KINDS is in code order");
            assert!(v.code() < 1 << Verdict::CODE_BITS);
        }
        assert_eq!(Verdict::New { hole: true }.code(), Verdict::New { hole: false }.code());
    }

    /// A window of 16: the 16th PSN past the cumulative one is out of it,
    /// the bitmap stays by PSN mod 256 (the ACK's field), and a full window
    /// advances by 16.
    #[test]
    fn a_smaller_window_bounds_the_psns_taken() {
        let mut t = SackTracker::with_window(Psn::new(250), 16);
        assert_eq!(t.window(), 16);
        assert_eq!(t.classify(Psn::new(266)), Verdict::OutOfWindow);
        assert_eq!(t.classify(Psn::new(265)), Verdict::New { hole: true });
        assert_eq!(t.classify(Psn::new(249)), Verdict::Duplicate);
        for p in 251..266 {
            t.accept(Psn::new(p));
        }
        assert_eq!(t.cum(), Psn::new(250));
        assert_eq!(t.bitmap()[31], 0b1111_1000, "PSNs 251-255 at the top of the field");
        assert_eq!(t.bitmap()[0..2], [0xff, 0b11], "PSNs 256-265 from bit 0");
        t.accept(Psn::new(250));
        assert_eq!(t.cum(), Psn::new(266));
        assert_eq!(t.bitmap(), &[0; SACK_BYTES]);
        assert_eq!(t.classify(Psn::new(281)), Verdict::New { hole: true });
        assert_eq!(t.classify(Psn::new(282)), Verdict::OutOfWindow);
    }

    #[test]
    #[should_panic(expected = "window 24")]
    fn a_window_is_a_power_of_two() {
        SackTracker::with_window(Psn::new(0), 24);
    }

    #[test]
    fn a_full_window_advances_by_256() {
        let mut t = SackTracker::default();
        for p in 1..256 {
            t.accept(Psn::new(p));
        }
        assert_eq!(t.cum(), Psn::new(0));
        t.accept(Psn::new(0));
        assert_eq!(t.cum(), Psn::new(256));
        assert_eq!(t.bitmap(), &[0; SACK_BYTES]);
    }
}
