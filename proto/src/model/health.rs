//! Path health, in the form the RTL `health` block computes: whether a
//! path should move to a new source port (re-path) or stop taking new data
//! (retire).
//!
//! * Loss epochs: every [`EPOCH`] new packets, a path that lost a quarter or
//!   more of them is re-pathed.
//! * Timeouts: every RTO re-paths once `repath_after` come in a row, and
//!   retires the path once `retire_after` do; any acknowledgement clears the
//!   run and un-retires it.

/// New packets per loss epoch.
pub const EPOCH: u32 = 64;

/// The epoch counters saturate here (the RTL's 16 bits).
pub const EPOCH_COUNT_MAX: u32 = (1 << crate::params::HEALTH_EPOCH_BITS) - 1;
/// The timeouts in a row saturate here (the RTL's 8 bits): a repair's
/// route after timeouts in a row is chosen by their number.
pub const RTOS_MAX: u32 = (1 << crate::params::HEALTH_RTO_BITS) - 1;

/// One path's health counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Health {
    pub epoch_sent: u32,
    pub epoch_lost: u32,
    pub rtos_in_row: u32,
    pub retired: bool,
}

impl Health {
    /// A new packet went out.
    pub fn on_send(&mut self) {
        self.epoch_sent = (self.epoch_sent + 1).min(EPOCH_COUNT_MAX);
    }

    /// An ACK acknowledged `newly` packets and found `lost`. Returns true if
    /// the path is to be re-pathed.
    pub fn on_ack(&mut self, newly: u32, lost: u32) -> bool {
        self.on_ack_with(newly, lost, super::Recovery::v0().repath_loss_shift)
    }

    /// [`Health::on_ack`] with the re-path threshold at epoch /
    /// 2^`loss_shift` lost packets (2: a quarter, as the RTL).
    pub fn on_ack_with(&mut self, newly: u32, lost: u32, loss_shift: u32) -> bool {
        self.epoch_lost = self.epoch_lost.saturating_add(lost).min(EPOCH_COUNT_MAX);
        if newly > 0 {
            self.rtos_in_row = 0;
            self.retired = false;
        }
        if self.epoch_sent >= EPOCH {
            let repath = self.epoch_lost << loss_shift >= self.epoch_sent;
            self.epoch_sent = 0;
            self.epoch_lost = 0;
            return repath;
        }
        false
    }

    /// A retransmission timeout. Returns true if the path is to be re-pathed.
    pub fn on_rto(&mut self, repath_after: u32, retire_after: u32) -> bool {
        self.rtos_in_row = (self.rtos_in_row + 1).min(RTOS_MAX);
        if self.rtos_in_row >= retire_after {
            self.retired = true;
        }
        self.rtos_in_row >= repath_after
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lossy_epochs_and_timeout_runs() {
        let mut h = Health::default();
        for _ in 0..EPOCH {
            h.on_send();
        }
        assert!(h.on_ack(10, 16), "16 of 64 lost");
        for _ in 0..EPOCH {
            h.on_send();
        }
        assert!(!h.on_ack(10, 15));
        assert!(h.on_rto(1, 3));
        assert!(h.on_rto(1, 3) && !h.retired);
        assert!(h.on_rto(1, 3) && h.retired);
        assert!(!h.on_ack(1, 0) && !h.retired && h.rtos_in_row == 0);
    }

    #[test]
    fn moderate_loss_repaths_with_a_lower_threshold() {
        let mut h = Health::default();
        for _ in 0..EPOCH {
            h.on_send();
        }
        assert!(!h.on_ack_with(10, 3, 4), "3 of 64 is below a sixteenth");
        for _ in 0..EPOCH {
            h.on_send();
        }
        assert!(h.on_ack_with(10, 4, 4), "4 of 64 is a sixteenth");
    }
}
