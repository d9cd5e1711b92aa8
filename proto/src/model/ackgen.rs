//! ACK coalescing of one path, in the form the RTL `ack_gen` block computes.
//! An ACK goes out at once for an urgent packet (the sender asked, a
//! duplicate, one beyond the window, or one that opens a hole) or when
//! `ack_every` packets wait; otherwise the first waiting packet arms the
//! ACK timer, and the ACK goes when it fires.

/// What to do after a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckAction {
    /// Send an ACK now, reporting `pending` packets and `ce` CE marks.
    Now { pending: u16, ce: u16 },
    /// Arm the ACK timer.
    Arm,
    /// Nothing: the timer is already armed.
    Wait,
}

/// One path's coalescing state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AckState {
    pub pending: u16,
    pub ce: u16,
    pub armed: bool,
}

impl AckState {
    fn take(&mut self) -> AckAction {
        let a = AckAction::Now { pending: self.pending, ce: self.ce };
        *self = AckState::default();
        a
    }

    /// A data packet was judged (and accepted, or found duplicate or out of
    /// window).
    pub fn on_packet(&mut self, urgent: bool, ce: bool, ack_every: u16) -> AckAction {
        self.pending = self.pending.saturating_add(1);
        self.ce = self.ce.saturating_add(ce as u16);
        if urgent || self.pending >= ack_every {
            self.take()
        } else if !self.armed {
            self.armed = true;
            AckAction::Arm
        } else {
            AckAction::Wait
        }
    }

    /// The ACK timer fired.
    pub fn on_timer(&mut self) -> AckAction {
        if self.armed {
            self.take()
        } else {
            AckAction::Wait
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coalesces_every_n_and_flushes_on_urgency_or_timer() {
        let mut a = AckState::default();
        assert_eq!(a.on_packet(false, false, 3), AckAction::Arm);
        assert_eq!(a.on_packet(false, true, 3), AckAction::Wait);
        assert_eq!(a.on_packet(false, false, 3), AckAction::Now { pending: 3, ce: 1 });
        assert_eq!(a.on_timer(), AckAction::Wait, "nothing waits");
        assert_eq!(a.on_packet(false, false, 3), AckAction::Arm);
        assert_eq!(a.on_timer(), AckAction::Now { pending: 1, ce: 0 });
        assert_eq!(a.on_packet(true, false, 3), AckAction::Now { pending: 1, ce: 0 });
    }
}
