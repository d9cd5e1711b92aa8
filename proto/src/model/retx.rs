//! The send side of one path as the RTL `retx` block keeps it: the PSN
//! window and four 256-bit bitmaps indexed by PSN mod 256.
//!
//! * `sacked`: selectively acknowledged (cumulatively acknowledged PSNs
//!   leave the window);
//! * `queued`: found lost, waiting to be resent;
//! * `rexmit`: resent at least once;
//! * `held`: refused for now by the receiver (no receive buffer); not lost.
//!
//! Loss rules: on an ACK, every PSN below the highest SACKed one that is
//! neither SACKed, queued nor held is lost if it was never resent, or if a
//! PSN at or beyond `marker` (the path's next PSN when it last resent
//! anything) is SACKed: a packet sent after the last retransmission arrived,
//! so on this FIFO path that retransmission is gone too. Retransmissions go
//! out lowest PSN first.

use crate::params::{SackBitmap, SACK_WINDOW};
use crate::types::Psn;

const SLOTS: u32 = SACK_WINDOW as u32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Bitmap([u64; SACK_WINDOW / 64]);

impl Bitmap {
    fn get(&self, p: Psn) -> bool {
        self.0[p.slot() / 64] >> (p.slot() % 64) & 1 == 1
    }
    fn set(&mut self, p: Psn, v: bool) {
        let (w, b) = (p.slot() / 64, p.slot() % 64);
        if v {
            self.0[w] |= 1 << b
        } else {
            self.0[w] &= !(1 << b)
        }
    }
}

/// What an ACK did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AckResult {
    /// PSNs acknowledged for the first time (cumulatively or by SACK), in
    /// PSN order.
    pub newly: Vec<Psn>,
    /// PSNs found lost by this ACK (now queued).
    pub lost: u32,
}

/// One path's send state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathLog {
    /// PSNs the path may have from `una` to `next`: [`SACK_WINDOW`], or a
    /// smaller power of two in a build that keeps fewer in flight. Such a
    /// build reads the ACK's bitmap by PSN mod `window` (bits that name the
    /// same slot are ORed): one to one over PSNs in flight, which lie in
    /// one window, as everything a receiver SACKs does.
    window: u32,
    next: Psn,
    una: Psn,
    marker: Psn,
    sacked: Bitmap,
    queued: Bitmap,
    rexmit: Bitmap,
    held: Bitmap,
    /// `sacked` and `queued` bits of the PSNs in flight (slots outside the
    /// window keep stale bits), so that the sprayer's and the scheduler's
    /// questions are answered without a walk over the window.
    sacked_in_flight: u32,
    queued_in_flight: u32,
}

impl PathLog {
    /// A path whose first PSN is `psn`.
    pub fn starting_at(psn: Psn) -> PathLog {
        PathLog::with_window(psn, SLOTS)
    }

    /// A path whose first PSN is `psn` that keeps at most `window` PSNs in
    /// flight (a power of two, 8 to [`SACK_WINDOW`]).
    pub fn with_window(psn: Psn, window: u32) -> PathLog {
        assert!(window.is_power_of_two() && (8..=SLOTS).contains(&window), "window {window}");
        PathLog {
            window,
            next: psn,
            una: psn,
            marker: psn,
            sacked: Bitmap::default(),
            queued: Bitmap::default(),
            rexmit: Bitmap::default(),
            held: Bitmap::default(),
            sacked_in_flight: 0,
            queued_in_flight: 0,
        }
    }

    /// The most PSNs the path may have in flight.
    pub fn window(&self) -> u32 {
        self.window
    }

    /// The next PSN to send.
    pub fn next(&self) -> Psn {
        self.next
    }

    /// The oldest PSN not cumulatively acknowledged.
    pub fn una(&self) -> Psn {
        self.una
    }

    /// PSNs in flight: from `una` to `next`.
    pub fn span(&self) -> u32 {
        self.next.diff(self.una) as u32
    }

    /// May a new PSN be sent (fewer than `window` in flight)?
    pub fn can_send(&self) -> bool {
        self.span() < self.window
    }

    fn range(&self) -> impl Iterator<Item = Psn> {
        let una = self.una;
        (0..self.span()).map(move |i| una.add(i))
    }

    /// Packets neither cumulatively acknowledged nor SACKed.
    pub fn outstanding(&self) -> u32 {
        self.span() - self.sacked_in_flight
    }

    /// Is anything queued for retransmission?
    pub fn has_queued(&self) -> bool {
        self.queued_in_flight > 0
    }

    /// Set or clear the `queued` bit of `p`, which is in flight.
    fn queue(&mut self, p: Psn, v: bool) {
        if self.queued.get(p) != v {
            self.queued.set(p, v);
            if v {
                self.queued_in_flight += 1;
            } else {
                self.queued_in_flight -= 1;
            }
        }
    }

    /// Take the next PSN for a new packet; `can_send` must hold.
    pub fn send_new(&mut self) -> Psn {
        debug_assert!(self.can_send());
        let p = self.next;
        for b in [&mut self.sacked, &mut self.queued, &mut self.rexmit, &mut self.held] {
            b.set(p, false);
        }
        self.next = p.add(1);
        p
    }

    /// Process an ACK (cumulative PSN and circular SACK bitmap). `None` if it
    /// is older than what is known or acknowledges what was never sent.
    pub fn on_ack(&mut self, cum: Psn, sack: &SackBitmap) -> Option<AckResult> {
        self.on_ack_with(cum, sack, true)
    }

    /// [`PathLog::on_ack`], with the marker rule for lost retransmissions
    /// on (`resent_rule`) or off: off when retransmissions may take another
    /// route, so that a later packet of this path arriving first proves
    /// nothing (the connection-level rule of `recovery::rack_lost` covers
    /// them then).
    pub fn on_ack_with(&mut self, cum: Psn, sack: &SackBitmap, resent_rule: bool) -> Option<AckResult> {
        if cum.diff(self.una) < 0 || cum.diff(self.next) > 0 {
            return None;
        }
        let w = self.window as usize;
        let sacked_bit =
            |p: Psn| (p.slot() % w..SACK_WINDOW).step_by(w).any(|i| sack[i / 8] >> (i % 8) & 1 == 1);
        let mut r = AckResult::default();
        while self.una != cum {
            let p = self.una;
            if self.sacked.get(p) {
                self.sacked_in_flight -= 1;
            } else {
                r.newly.push(p);
            }
            if self.queued.get(p) {
                self.queued_in_flight -= 1;
            }
            self.una = p.add(1);
        }
        let mut highest = None;
        for p in self.range().collect::<Vec<_>>() {
            if sacked_bit(p) {
                highest = Some(p);
                if !self.sacked.get(p) {
                    self.sacked.set(p, true);
                    self.sacked_in_flight += 1;
                    self.queue(p, false);
                    r.newly.push(p);
                }
            }
        }
        if let Some(h) = highest {
            let resent_lost = resent_rule && h.diff(self.marker) >= 0;
            let mut p = self.una;
            while p != h {
                let candidate = !self.sacked.get(p) && !self.queued.get(p) && !self.held.get(p);
                if candidate && (!self.rexmit.get(p) || resent_lost) {
                    self.queue(p, true);
                    r.lost += 1;
                }
                p = p.add(1);
            }
        }
        Some(r)
    }

    /// The next retransmission: the lowest queued PSN. Marks it resent and
    /// moves the marker to the next PSN.
    pub fn take_retx(&mut self) -> Option<Psn> {
        if !self.has_queued() {
            return None;
        }
        let p = self.range().find(|p| self.queued.get(*p))?;
        self.queue(p, false);
        self.rexmit.set(p, true);
        self.marker = self.next;
        Some(p)
    }

    /// Retransmission timeout: queue every PSN in flight that is not SACKed,
    /// queued or held. Returns how many.
    pub fn on_rto(&mut self) -> u32 {
        let mut n = 0;
        for p in self.range().collect::<Vec<_>>() {
            if !self.sacked.get(p) && !self.queued.get(p) && !self.held.get(p) {
                self.queue(p, true);
                n += 1;
            }
        }
        n
    }

    /// Was `p` resent since it was first sent?
    pub fn was_resent(&self, p: Psn) -> bool {
        self.in_flight(p) && self.rexmit.get(p)
    }

    /// PSNs in flight that are neither SACKed, queued nor held: those that
    /// may be declared lost, lowest first.
    pub fn candidates(&self) -> impl Iterator<Item = Psn> + '_ {
        self.range().filter(|p| !self.sacked.get(*p) && !self.queued.get(*p) && !self.held.get(*p))
    }

    /// Declare `p` lost (queue it) if it is a candidate. True if it was.
    pub fn lose(&mut self, p: Psn) -> bool {
        if !self.in_flight(p) || self.sacked.get(p) || self.queued.get(p) || self.held.get(p) {
            return false;
        }
        self.queue(p, true);
        true
    }

    /// The PSN a tail probe resends: the newest in flight if it is a
    /// candidate, else the oldest candidate.
    pub fn probe_psn(&self) -> Option<Psn> {
        self.newest_candidate().or_else(|| self.candidates().next())
    }

    /// The newest PSN in flight, if it is a candidate (neither SACKed,
    /// queued nor held).
    pub fn newest_candidate(&self) -> Option<Psn> {
        let newest = self.next.add(Psn::MODULUS - 1);
        (self.span() > 0 && !self.sacked.get(newest) && !self.queued.get(newest) && !self.held.get(newest))
            .then_some(newest)
    }

    fn in_flight(&self, p: Psn) -> bool {
        p.diff(self.una) >= 0 && p.diff(self.next) < 0
    }

    /// The receiver refused `p` for now: hold it (not lost). True if held.
    pub fn hold(&mut self, p: Psn) -> bool {
        if !self.in_flight(p) || self.sacked.get(p) || self.held.get(p) {
            return false;
        }
        self.held.set(p, true);
        self.queue(p, false);
        true
    }

    /// A held PSN may be retried: queue it. True if it was queued.
    pub fn release(&mut self, p: Psn) -> bool {
        if !self.in_flight(p) || !self.held.get(p) {
            return false;
        }
        self.held.set(p, false);
        if self.sacked.get(p) {
            return false;
        }
        self.queue(p, true);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::SACK_BYTES;

    fn sack(psns: &[u32]) -> SackBitmap {
        let mut s = [0u8; SACK_BYTES];
        for &p in psns {
            let i = Psn::new(p).slot();
            s[i / 8] |= 1 << (i % 8);
        }
        s
    }

    #[test]
    fn hole_is_queued_resent_and_a_lost_resend_is_found_without_timeout() {
        let mut l = PathLog::starting_at(Psn::new(10));
        for _ in 0..6 {
            l.send_new();
        }
        // 10, 11 arrive; 12 lost; 13 arrives.
        let r = l.on_ack(Psn::new(12), &sack(&[13])).unwrap();
        assert_eq!(r.newly, vec![Psn::new(10), Psn::new(11), Psn::new(13)]);
        assert_eq!(r.lost, 1);
        assert_eq!(l.outstanding(), 3); // 12, 14, 15
        assert_eq!(l.take_retx(), Some(Psn::new(12)));
        assert_eq!(l.take_retx(), None);
        // 14, 15 were sent before the resend: no verdict on it yet.
        let r = l.on_ack(Psn::new(12), &sack(&[13, 14, 15])).unwrap();
        assert_eq!(r.lost, 0);
        l.send_new(); // 16, after the resend
        let r = l.on_ack(Psn::new(12), &sack(&[13, 14, 15, 16])).unwrap();
        assert_eq!(r.lost, 1, "16 arrived, the resent 12 did not");
        assert_eq!(l.take_retx(), Some(Psn::new(12)));
        let r = l.on_ack(Psn::new(17), &sack(&[])).unwrap();
        assert_eq!(r.newly, vec![Psn::new(12)]);
        assert_eq!(l.outstanding(), 0);
    }

    #[test]
    fn rto_queues_the_tail_and_held_psns_wait() {
        let mut l = PathLog::starting_at(Psn::new(0));
        for _ in 0..4 {
            l.send_new();
        }
        assert!(l.hold(Psn::new(1)));
        l.on_ack(Psn::new(0), &sack(&[2])).unwrap();
        assert_eq!(l.take_retx(), Some(Psn::new(0)), "0 is lost, 1 is held");
        assert_eq!(l.take_retx(), None);
        assert_eq!(l.on_rto(), 2, "0 (resent, still missing) and 3; 1 is held, 2 SACKed");
        assert_eq!(l.take_retx(), Some(Psn::new(0)));
        assert_eq!(l.take_retx(), Some(Psn::new(3)));
        assert!(l.release(Psn::new(1)));
        assert_eq!(l.take_retx(), Some(Psn::new(1)));
        assert!(l.on_ack(Psn::new(9), &sack(&[])).is_none(), "acknowledges the unsent");
        assert!(!l.can_send() || l.span() < 256);
    }

    #[test]
    fn kept_counts_match_a_walk_over_the_window() {
        let walk = |l: &PathLog| {
            let out = l.range().filter(|p| !l.sacked.get(*p)).count() as u32;
            (out, l.range().any(|p| l.queued.get(p)))
        };
        let mut rng = crate::rng::Rng::new(9);
        let mut l = PathLog::starting_at(Psn::new(Psn::MODULUS - 300));
        for _ in 0..5_000 {
            while l.can_send() && rng.chance(0.7) {
                l.send_new();
            }
            let cum = l.una().add(rng.below(l.span() as u64 / 2 + 1) as u32);
            let mut sack = [0u8; SACK_BYTES];
            for b in sack.iter_mut() {
                *b = rng.next_u64() as u8;
            }
            l.on_ack(cum, &sack);
            if rng.chance(0.5) {
                l.take_retx();
            }
            if rng.chance(0.05) {
                l.on_rto();
            }
            let some_psn = l.una().add(rng.below(l.span() as u64 + 1) as u32);
            if rng.chance(0.1) {
                l.hold(some_psn);
            } else if rng.chance(0.1) {
                l.release(some_psn);
            }
            assert_eq!((l.outstanding(), l.has_queued()), walk(&l), "una {:?} span {}", l.una(), l.span());
        }
    }

    #[test]
    fn a_smaller_window_stops_sending_and_reads_the_sack_by_psn_mod_window() {
        let mut l = PathLog::with_window(Psn::new(Psn::MODULUS - 10), 64);
        let mut sent = 0;
        while l.can_send() {
            l.send_new();
            sent += 1;
        }
        assert_eq!((sent, l.span(), l.window()), (64, 64, 64));
        // PSN MODULUS - 10 + 40 = 30 is slot 30 of 256 and of 64; its bit
        // at slot 30 + 128 names the same PSN mod 64 and counts alike.
        let p = Psn::new(30);
        let mut s = [0u8; SACK_BYTES];
        s[(p.slot() + 128) / 8] |= 1 << ((p.slot() + 128) % 8);
        let r = l.on_ack(Psn::new(Psn::MODULUS - 10), &s).unwrap();
        assert_eq!(r.newly, vec![p]);
        assert_eq!(r.lost, 40, "the 40 below it");
        // The full window reads it only at its own slot.
        let mut full = PathLog::starting_at(Psn::new(Psn::MODULUS - 10));
        for _ in 0..64 {
            full.send_new();
        }
        assert!(full.on_ack(Psn::new(Psn::MODULUS - 10), &s).unwrap().newly.is_empty());
        assert!(full.can_send());
    }

    #[test]
    fn probe_lose_and_the_marker_rule_switched_off() {
        let mut l = PathLog::starting_at(Psn::new(0));
        for _ in 0..4 {
            l.send_new();
        }
        assert_eq!(l.probe_psn(), Some(Psn::new(3)), "the newest");
        l.on_ack(Psn::new(0), &sack(&[3])).unwrap();
        assert_eq!(l.candidates().collect::<Vec<_>>(), vec![], "0-2 queued as holes");
        assert_eq!(l.take_retx(), Some(Psn::new(0)));
        assert_eq!(l.probe_psn(), Some(Psn::new(0)), "newest SACKed, 1 and 2 queued: the resent 0");
        assert!(l.was_resent(Psn::new(0)) && !l.was_resent(Psn::new(1)));
        assert!(!l.lose(Psn::new(1)), "already queued");
        assert!(!l.lose(Psn::new(9)), "not in flight");
        assert_eq!((l.take_retx(), l.take_retx()), (Some(Psn::new(1)), Some(Psn::new(2))));
        l.send_new(); // 4, after the resends
                      // Without the marker rule, 4 arriving says nothing of the resends.
        let r = l.on_ack_with(Psn::new(0), &sack(&[3, 4]), false).unwrap();
        assert_eq!(r.lost, 0);
        assert!(l.lose(Psn::new(1)), "declared lost from outside");
        assert_eq!(l.take_retx(), Some(Psn::new(1)));
        l.send_new(); // 5, after every resend
        let r = l.on_ack_with(Psn::new(0), &sack(&[3, 4, 5]), false).unwrap();
        assert_eq!(r.lost, 0, "off: still no verdict");
        let r = l.on_ack_with(Psn::new(0), &sack(&[3, 4, 5]), true).unwrap();
        assert_eq!(r.lost, 3, "on: 5 arrived after every resend, so 0, 1 and 2 are lost again");
    }

    #[test]
    fn window_is_256_psns_across_the_wrap() {
        let mut l = PathLog::starting_at(Psn::new(Psn::MODULUS - 5));
        for _ in 0..256 {
            assert!(l.can_send());
            l.send_new();
        }
        assert!(!l.can_send());
        let r = l.on_ack(Psn::new(Psn::MODULUS - 5).add(256), &sack(&[])).unwrap();
        assert_eq!(r.newly.len(), 256);
        assert!(l.can_send());
    }
}
