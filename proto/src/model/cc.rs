//! Congestion-control arithmetic of one path, in the integer form the RTL
//! `cc` block computes: a window in packets with additive increase (one
//! packet per window's worth of acknowledged packets) and multiplicative
//! decrease (halving, at most once per smoothed RTT) on ECN echo.

use crate::types::Time;

/// One path's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Packets the path may have neither acknowledged nor SACKed.
    pub cwnd: u32,
    /// Packets acknowledged since the last increase.
    pub credit: u32,
    /// When the window was last halved.
    pub last_cut: Time,
}

impl Window {
    /// A window starting at `max` packets.
    pub fn new(max: u32) -> Window {
        Window { cwnd: max.max(1), credit: 0, last_cut: 0 }
    }

    /// An ACK at `now` newly acknowledged `newly` packets and echoed `ce`
    /// congestion marks; `outstanding` packets remain unacknowledged.
    /// Returns true if the window was cut.
    pub fn on_ack(&mut self, now: Time, newly: u32, ce: u32, outstanding: u32, srtt: Time, max: u32) -> bool {
        if ce > 0 {
            if now.saturating_sub(self.last_cut) > srtt {
                self.cwnd = (self.cwnd.min(outstanding + 1) / 2).max(1);
                self.credit = 0;
                self.last_cut = now;
                return true;
            }
        } else if newly > 0 {
            if self.credit + newly >= self.cwnd {
                self.cwnd = (self.cwnd + 1).min(max);
                self.credit = 0;
            } else {
                self.credit += newly;
            }
        }
        false
    }

    /// Packets that may still be sent: `cwnd - outstanding`, at least 0.
    pub fn free(&self, outstanding: u32) -> u32 {
        self.cwnd.saturating_sub(outstanding)
    }
}

/// Connection pacing in the form the RTL `pacer` computes: a packet may
/// leave once the clock reaches `next`; each packet pushes `next` on by its
/// wire bytes times the cost of a byte. Times are in any unit (picoseconds
/// in the model, clock cycles in the RTL), held with 16 fraction bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pacer {
    next_q: u64,
    cost_q: u64,
}

impl Pacer {
    /// Fraction bits of times and costs.
    pub const FRAC: u32 = 16;

    /// Time units per byte at `rate_mbps`, with 16 fraction bits, when
    /// `units_per_us` time units make a microsecond (1 000 000 for
    /// picoseconds; the clock in MHz for cycles). Rounded up: never faster
    /// than the rate.
    pub fn cost_q16(rate_mbps: u32, units_per_us: u64) -> u64 {
        ((units_per_us * 8) << Self::FRAC).div_ceil(rate_mbps.max(1) as u64)
    }

    /// A pacer at `cost_q` (see [`Pacer::cost_q16`]).
    pub fn new(cost_q: u64) -> Pacer {
        Pacer { next_q: 0, cost_q }
    }

    /// Change the rate; what was already sent keeps its spacing.
    pub fn set_cost(&mut self, cost_q: u64) {
        self.cost_q = cost_q;
    }

    /// May a packet leave at `now`?
    pub fn may_send(&self, now: u64) -> bool {
        now << Self::FRAC >= self.next_q
    }

    /// The first time at which a packet may leave.
    pub fn ready_at(&self) -> u64 {
        self.next_q.div_ceil(1 << Self::FRAC)
    }

    /// A packet of `bytes` (on the wire) left at `now`.
    pub fn on_send(&mut self, now: u64, bytes: u64) {
        self.next_q = self.next_q.max(now << Self::FRAC) + bytes * self.cost_q;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacer_spaces_packets_at_the_rate() {
        // 100 Gb/s in picoseconds: 80 ps per byte.
        let cost = Pacer::cost_q16(100_000, 1_000_000);
        assert_eq!(cost, 80 << 16);
        let mut p = Pacer::new(cost);
        assert!(p.may_send(0));
        p.on_send(0, 1000);
        assert_eq!(p.ready_at(), 80_000);
        assert!(!p.may_send(79_999) && p.may_send(80_000));
        p.on_send(100_000, 500); // idle time is not banked
        assert_eq!(p.ready_at(), 140_000);
        // 10 Gb/s at a 156.25 MHz clock: 0.125 cycles per byte... times 8.
        assert_eq!(Pacer::cost_q16(10_000, 156), (156 * 8 * 65536_u64).div_ceil(10_000));
    }

    #[test]
    fn additive_increase_and_halving_once_per_rtt() {
        let mut w = Window::new(4);
        w.cwnd = 4;
        assert!(!w.on_ack(10, 3, 0, 1, 100, 256));
        assert_eq!((w.cwnd, w.credit), (4, 3));
        w.on_ack(20, 1, 0, 1, 100, 256);
        assert_eq!((w.cwnd, w.credit), (5, 0), "one packet after a window's worth");
        assert!(w.on_ack(200, 2, 1, 9, 100, 256));
        assert_eq!(w.cwnd, 2, "min(5, 10) / 2");
        assert!(!w.on_ack(250, 2, 1, 9, 100, 256), "not twice within an RTT");
        assert_eq!(w.cwnd, 2);
        assert!(w.on_ack(400, 0, 3, 0, 100, 256));
        assert_eq!(w.cwnd, 1, "never below one packet");
        let mut m = Window::new(256);
        m.on_ack(1, 256, 0, 0, 1, 256);
        assert_eq!(m.cwnd, 256, "capped");
    }
}
