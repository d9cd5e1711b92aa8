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
        Window {
            cwnd: max.max(1),
            credit: 0,
            last_cut: 0,
        }
    }

    /// An ACK at `now` newly acknowledged `newly` packets and echoed `ce`
    /// congestion marks; `outstanding` packets remain unacknowledged.
    /// Returns true if the window was cut.
    pub fn on_ack(
        &mut self,
        now: Time,
        newly: u32,
        ce: u32,
        outstanding: u32,
        srtt: Time,
        max: u32,
    ) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn additive_increase_and_halving_once_per_rtt() {
        let mut w = Window::new(4);
        w.cwnd = 4;
        assert!(!w.on_ack(10, 3, 0, 1, 100, 256));
        assert_eq!((w.cwnd, w.credit), (4, 3));
        w.on_ack(20, 1, 0, 1, 100, 256);
        assert_eq!(
            (w.cwnd, w.credit),
            (5, 0),
            "one packet after a window's worth"
        );
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
