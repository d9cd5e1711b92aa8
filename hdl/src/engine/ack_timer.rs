//! `ack_timer`: one timer per path key, for timers whose deadlines come in
//! the order they are armed (the receiver's ACK timers: each at its arming
//! time plus the one ACK delay). Each key's current arming is kept in block
//! RAM, as in [`RtoTimer`](super::rto_timer::RtoTimer), and every arming is
//! also queued in arming order; the queue's head is taken when it is due,
//! so a timer fires within a few cycles of its deadline whatever the number
//! of keys (the scanner of `rto_timer` visits one key a cycle: up to 2^K
//! cycles late, 4 us at 1024 keys, where an ACK delay is 2 us).
//!
//! Ports as `rto_timer`'s (`clock`; `reset` synchronous, active high; keys
//! [`MAX_KEY_BITS`] wide, the bits above K zero):
//! * `now`: the time base (32-bit wrapping).
//! * `set_valid` with `set_key`, `set_arm` and `set_deadline`: arm the key's
//!   timer for `set_deadline`, or (`set_arm` low) disarm it. One per cycle.
//! * `fire_valid` with `fire_key`: an arming has expired. Each arming fires
//!   at most once (if it is not replaced or disarmed first) and no earlier
//!   than its deadline, and, while the deadlines come in arming order and
//!   fewer than N - 1 armings wait, at most 3 cycles after it (one more
//!   for each arming due in the same cycle before it). With N - 1 armings
//!   waiting the oldest is taken before it is due (its ACK goes early):
//!   the queue never overflows, so no arming is lost. A deadline earlier
//!   than one armed before it waits for that one.
//! * `ready`: low during the 2^K-cycle clearing sweep after reset.
//!
//! The head is taken in cycle t and its key's entry read (registered RAM
//! read); in t+1 it fires if that entry is still the same arming (armed,
//! the same deadline) and no set of the key in t (the read missed it) or
//! in t+1 (it replaces the arming) intervened. Armings replaced or
//! disarmed leave their queue entries behind; those are dropped when
//! taken.

use rust_hdl::prelude::*;

use super::rto_timer::{RtoTimer, TimerEntry, MAX_KEY_BITS};
use crate::blocks::fifo::RamFifo;
use crate::blocks::{HdlDefault, HdlStruct};

/// A queued arming, from bit 0: {deadline, key}.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Arming {
    pub deadline: Bits<32>,
    pub key: Bits<MAX_KEY_BITS>,
}

/// The timers: 2^K keys, a queue of N = 2^A armings counted in P bits.
#[derive(LogicBlock, HdlDefault)]
pub struct AckTimer<const K: usize, const A: usize, const P: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub now: Signal<In, Bits<32>>,
    pub set_valid: Signal<In, bool>,
    pub set_key: Signal<In, Bits<MAX_KEY_BITS>>,
    pub set_arm: Signal<In, bool>,
    pub set_deadline: Signal<In, Bits<32>>,
    pub fire_valid: Signal<Out, bool>,
    pub fire_key: Signal<Out, Bits<MAX_KEY_BITS>>,
    timers: RAM<TimerEntry, K>,
    queue: RamFifo<Arming, A, P, N>,
    clr: DFF<Bits<MAX_KEY_BITS>>,
    busy: DFF<bool>,
    chk: DFF<bool>,
    chk_key: DFF<Bits<MAX_KEY_BITS>>,
    chk_deadline: DFF<Bits<32>>,
    read_stale: DFF<bool>,
    fire_q: DFF<bool>,
    fire_key_q: DFF<Bits<MAX_KEY_BITS>>,
    head_key: Signal<Local, Bits<MAX_KEY_BITS>>,
    late: Signal<Local, Bits<32>>,
    due: Signal<Local, bool>,
    take: Signal<Local, bool>,
    fire: Signal<Local, bool>,
    pushed: Signal<Local, Arming>,
    set_entry: Signal<Local, TimerEntry>,
    clear_entry: Signal<Local, TimerEntry>,
    #[constant(1u64)]
    one_key: Constant<Bits<MAX_KEY_BITS>>,
    #[constant(0u64)]
    zero_key: Constant<Bits<MAX_KEY_BITS>>,
    /// The last key, 2^K - 1.
    #[constant((1u64 << K) - 1)]
    last_key: Constant<Bits<MAX_KEY_BITS>>,
    #[constant(0u64)]
    zero_time: Constant<Bits<32>>,
    /// Differences at or above this are negative: not yet due.
    #[constant(1u64 << 31)]
    half_range: Constant<Bits<32>>,
    /// Armings waiting at which the oldest is taken, due or not.
    #[constant((N - 1) as u64)]
    crowd: Constant<Bits<P>>,
}

impl<const K: usize, const A: usize, const P: usize, const N: usize> Logic for AckTimer<K, A, P, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, clr, busy, chk, chk_key, chk_deadline, read_stale, fire_q, fire_key_q);
        self.queue.clock.next = self.clock.val();
        self.queue.reset.next = self.reset.val();
        self.timers.read_clock.next = self.clock.val();
        self.timers.write_clock.next = self.clock.val();

        // The oldest arming: taken when due, or when the queue is crowded;
        // its key's entry is read at this edge.
        self.head_key.next = self.queue.data.val().key;
        self.late.next = self.now.val() - self.queue.data.val().deadline;
        self.due.next = self.late.val() < self.half_range.val();
        self.take.next =
            !self.busy.q.val() & self.queue.valid.val() & (self.due.val() | (self.queue.count.val() >= self.crowd.val()));
        self.queue.pop.next = self.take.val();
        self.timers.read_address.next = self.head_key.val().get_bits::<K>(0);
        self.chk.d.next = self.take.val();
        self.chk_key.d.next = self.head_key.val();
        self.chk_deadline.d.next = self.queue.data.val().deadline;
        // The entry read now is stale if the key is written at this edge.
        self.read_stale.d.next = self.set_valid.val() & (self.set_key.val() == self.head_key.val());

        // The arming taken in the previous cycle fires if it is still the
        // key's arming and no set of the key replaces it now.
        self.fire.next = self.chk.q.val()
            & !self.read_stale.q.val()
            & self.timers.read_data.val().armed
            & (self.timers.read_data.val().deadline == self.chk_deadline.q.val())
            & !(self.set_valid.val() & (self.set_key.val() == self.chk_key.q.val()));
        self.fire_q.d.next = self.fire.val();
        self.fire_key_q.d.next = self.chk_key.q.val();

        // Every arming is queued (never while clearing; the queue is never
        // full, its oldest being taken at N - 1).
        self.pushed.next.deadline = self.set_deadline.val();
        self.pushed.next.key = self.set_key.val();
        self.queue.push_data.next = self.pushed.val();
        self.queue.push.next = self.set_valid.val() & self.set_arm.val() & !self.busy.q.val() & !self.queue.full.val();

        self.set_entry.next.deadline = self.set_deadline.val();
        self.set_entry.next.armed = self.set_arm.val();
        self.clear_entry.next.deadline = self.zero_time.val();
        self.clear_entry.next.armed = false;
        self.timers.write_address.next = self.set_key.val().get_bits::<K>(0);
        self.timers.write_data.next = self.set_entry.val();
        self.timers.write_enable.next = false;
        if self.busy.q.val() {
            // The clearing sweep: every key once.
            self.timers.write_address.next = self.clr.q.val().get_bits::<K>(0);
            self.timers.write_data.next = self.clear_entry.val();
            self.timers.write_enable.next = true;
            self.clr.d.next = (self.clr.q.val() + self.one_key.val()) & self.last_key.val();
            if self.clr.q.val() == self.last_key.val() {
                self.busy.d.next = false;
            }
        } else if self.set_valid.val() {
            self.timers.write_enable.next = true;
        }

        if self.reset.val() {
            self.busy.d.next = true;
            self.clr.d.next = self.zero_key.val();
            self.chk.d.next = false;
            self.read_stale.d.next = false;
            self.fire_q.d.next = false;
        }
        self.ready.next = !self.busy.q.val();
        self.fire_valid.next = self.fire_q.q.val();
        self.fire_key.next = self.fire_key_q.q.val();
    }
}

/// The ACK timers' block of a build: [`AckTimer`] where `QUEUED`, else the
/// scanner [`RtoTimer`] (the same ports), as
/// `<AckTimers<..> as Pick>::Block` (`EngineConfig::ack_timer_queued`).
pub struct AckTimers<const QUEUED: bool, const K: usize, const A: usize, const P: usize, const N: usize>;

/// A build-time choice of block.
pub trait Pick {
    type Block;
}

impl<const K: usize, const A: usize, const P: usize, const N: usize> Pick for AckTimers<true, K, A, P, N> {
    type Block = AckTimer<K, A, P, N>;
}

impl<const K: usize, const A: usize, const P: usize, const N: usize> Pick for AckTimers<false, K, A, P, N> {
    type Block = RtoTimer<K>;
}
