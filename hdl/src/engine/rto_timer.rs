//! `rto_timer`: one retransmission timer per path key, as a deadline in
//! block RAM and a scanner that visits one key per cycle.
//!
//! Ports (`clock`; `reset` synchronous, active high; 2^K keys, K at most
//! [`MAX_KEY_BITS`]; keys on the ports are [`MAX_KEY_BITS`] wide, the
//! bits above K zero, so that the fired flags are indexed by full-width
//! keys in every build):
//! * `now`: the time base (cycles or any tick, 32-bit wrapping).
//! * `set_valid` with `set_key`, `set_arm` and `set_deadline`: arm the key's
//!   timer for `set_deadline`, or (`set_arm` low) disarm it. One per cycle.
//! * `fire_valid` with `fire_key`: an armed timer has expired
//!   (`now - deadline`, as a signed 32-bit number, is >= 0). Each arming
//!   fires at most once, no earlier than its deadline and at most
//!   2^K + 3 cycles after it (one scan round plus the pipeline); re-arming
//!   or disarming before then replaces it.
//! * `ready`: low during the 2^K-cycle clearing sweep after reset.
//!
//! The scanner reads key `scan` in cycle t (registered RAM read) and judges
//! it in t+1; a set of that key in t (the read missed it) or in t+1
//! (it replaces the arming) stops it from firing. A fired flag per key,
//! cleared by every set, keeps an arming from firing twice.

use rust_hdl::prelude::*;

use ferroce_proto::params::{CONN_KEY_BITS, PATH_BITS};

use crate::blocks::{HdlDefault, HdlStruct};

/// Largest key width: the largest build's path keys. The fired flags are
/// one vector of 2^MAX_KEY_BITS bits (a width cannot be computed from K),
/// set and cleared through one-hot masks built word by word; a smaller
/// build's flags above 2^K stay 0.
pub const MAX_KEY_BITS: usize = CONN_KEY_BITS + PATH_BITS;
/// Fired flags.
const MAX_KEYS: usize = 1 << MAX_KEY_BITS;
/// Bits of a flag's index within its 32-bit word.
const FLAG_BIT_BITS: usize = 5;
const _: () = assert!(MAX_KEYS == 32 * 32);

/// One key's timer in RAM, from bit 0: {armed, deadline}.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct TimerEntry {
    pub deadline: Bits<32>,
    pub armed: bool,
}

/// The timers.
#[derive(LogicBlock, HdlDefault)]
pub struct RtoTimer<const K: usize> {
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
    fired: DFF<Bits<MAX_KEYS>>,
    scan: DFF<Bits<MAX_KEY_BITS>>,
    scan_q: DFF<Bits<MAX_KEY_BITS>>,
    scan_ok: DFF<bool>,
    read_stale: DFF<bool>,
    busy: DFF<bool>,
    fire_q: DFF<bool>,
    fire_key_q: DFF<Bits<MAX_KEY_BITS>>,
    late: Signal<Local, Bits<32>>,
    expired: Signal<Local, bool>,
    fire: Signal<Local, bool>,
    fire_bits: Signal<Local, Bits<32>>,
    set_bits: Signal<Local, Bits<32>>,
    fire_words: Signal<Local, Bits<32>>,
    set_words: Signal<Local, Bits<32>>,
    fire_mask: Signal<Local, FlagMask>,
    set_mask: Signal<Local, FlagMask>,
    fire_flags: Signal<Local, Bits<MAX_KEYS>>,
    set_flags: Signal<Local, Bits<MAX_KEYS>>,
    set_entry: Signal<Local, TimerEntry>,
    clear_entry: Signal<Local, TimerEntry>,
    #[constant(1u64)]
    one_key: Constant<Bits<MAX_KEY_BITS>>,
    #[constant(0u64)]
    zero_key: Constant<Bits<MAX_KEY_BITS>>,
    /// The last key, 2^K - 1.
    #[constant((1u64 << K) - 1)]
    last_key: Constant<Bits<MAX_KEY_BITS>>,
    #[constant(1u64)]
    one_flag: Constant<Bits<32>>,
    #[constant(0u64)]
    zero_word: Constant<Bits<32>>,
    #[constant(FLAG_BIT_BITS as u64)]
    flag_bit_bits: Constant<Bits<MAX_KEY_BITS>>,
    #[constant(0u64)]
    zero_flags: Constant<Bits<MAX_KEYS>>,
    /// The flags of this build's 2^K keys.
    #[constant(crate::blocks::low_ones::<MAX_KEYS>(1 << K))]
    key_flags: Constant<Bits<MAX_KEYS>>,
    #[constant(0u64)]
    zero_time: Constant<Bits<32>>,
    /// Differences at or above this are negative: not yet due.
    #[constant(1u64 << 31)]
    half_range: Constant<Bits<32>>,
}

/// The fired flags as 32 words of 32 (word w holds keys 32w..32w+31).
/// `#[hdl_gen]` cannot name a field by a loop index, so a macro around the
/// whole `impl` writes one statement per word.
macro_rules! rto_timer_logic {
    ($($w:ident = $i:tt),*) => {
        /// A one-hot mask over the fired flags, word by word.
        #[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
        pub struct FlagMask {
            $(pub $w: Bits<32>,)*
        }

        impl<const K: usize> Logic for RtoTimer<K> {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, fired, scan, scan_q, scan_ok, read_stale, busy, fire_q, fire_key_q);
                self.timers.read_clock.next = self.clock.val();
                self.timers.write_clock.next = self.clock.val();
                self.timers.read_address.next = self.scan.q.val().get_bits::<K>(0);
                // Wrapping after the last key (masked, not compared: the
                // bits above K are then constant and synthesis drops them).
                self.scan.d.next = (self.scan.q.val() + self.one_key.val()) & self.last_key.val();
                self.scan_q.d.next = self.scan.q.val();
                self.scan_ok.d.next = !self.busy.q.val();
                // The entry read now is stale if the key is written at this edge.
                self.read_stale.d.next = self.set_valid.val() & (self.set_key.val() == self.scan.q.val());

                // The entry of scan_q (read in the previous cycle).
                self.late.next = self.now.val() - self.timers.read_data.val().deadline;
                self.expired.next = self.scan_ok.q.val()
                    & !self.read_stale.q.val()
                    & self.timers.read_data.val().armed
                    & (self.late.val() < self.half_range.val())
                    & !self.fired.q.val().get_bit(self.scan_q.q.val().index());
                // A set of the key in this cycle replaces the arming.
                self.fire.next =
                    self.expired.val() & !(self.set_valid.val() & (self.set_key.val() == self.scan_q.q.val()));
                self.fire_q.d.next = self.fire.val();
                self.fire_key_q.d.next = self.scan_q.q.val();
                // One-hot masks of the flag to set (a fire) and to clear (a set), as
                // a word decoder times a bit decoder (not a 1024-bit shifter).
                self.fire_bits.next = self.one_flag.val() << self.scan_q.q.val().get_bits::<FLAG_BIT_BITS>(0);
                self.set_bits.next = self.one_flag.val() << self.set_key.val().get_bits::<FLAG_BIT_BITS>(0);
                self.fire_words.next = self.zero_word.val();
                if self.fire.val() {
                    self.fire_words.next = self.one_flag.val() << (self.scan_q.q.val() >> self.flag_bit_bits.val());
                }
                self.set_words.next = self.zero_word.val();
                if self.set_valid.val() & !self.busy.q.val() {
                    self.set_words.next = self.one_flag.val() << (self.set_key.val() >> self.flag_bit_bits.val());
                }
                $(
                    self.fire_mask.next.$w = self.zero_word.val();
                    if self.fire_words.val().get_bit($i) {
                        self.fire_mask.next.$w = self.fire_bits.val();
                    }
                    self.set_mask.next.$w = self.zero_word.val();
                    if self.set_words.val().get_bit($i) {
                        self.set_mask.next.$w = self.set_bits.val();
                    }
                )*
                self.fire_flags.next = self.fire_mask.val().into();
                self.set_flags.next = self.set_mask.val().into();
                self.fired.d.next =
                    (self.fired.q.val() | self.fire_flags.val()) & !self.set_flags.val() & self.key_flags.val();

                self.set_entry.next.deadline = self.set_deadline.val();
                self.set_entry.next.armed = self.set_arm.val();
                self.clear_entry.next.deadline = self.zero_time.val();
                self.clear_entry.next.armed = false;
                self.timers.write_address.next = self.set_key.val().get_bits::<K>(0);
                self.timers.write_data.next = self.set_entry.val();
                self.timers.write_enable.next = false;
                if self.busy.q.val() {
                    // The clearing sweep: the scanner's key, every key once.
                    self.timers.write_address.next = self.scan.q.val().get_bits::<K>(0);
                    self.timers.write_data.next = self.clear_entry.val();
                    self.timers.write_enable.next = true;
                    if self.scan.q.val() == self.last_key.val() {
                        self.busy.d.next = false;
                    }
                } else if self.set_valid.val() {
                    self.timers.write_enable.next = true;
                }

                if self.reset.val() {
                    self.busy.d.next = true;
                    self.scan.d.next = self.zero_key.val();
                    self.scan_ok.d.next = false;
                    self.read_stale.d.next = false;
                    self.fire_q.d.next = false;
                    self.fired.d.next = self.zero_flags.val();
                }
                self.ready.next = !self.busy.q.val();
                self.fire_valid.next = self.fire_q.q.val();
                self.fire_key.next = self.fire_key_q.q.val();
            }
        }
    };
}

rto_timer_logic!(
    w0 = 0,
    w1 = 1,
    w2 = 2,
    w3 = 3,
    w4 = 4,
    w5 = 5,
    w6 = 6,
    w7 = 7,
    w8 = 8,
    w9 = 9,
    w10 = 10,
    w11 = 11,
    w12 = 12,
    w13 = 13,
    w14 = 14,
    w15 = 15,
    w16 = 16,
    w17 = 17,
    w18 = 18,
    w19 = 19,
    w20 = 20,
    w21 = 21,
    w22 = 22,
    w23 = 23,
    w24 = 24,
    w25 = 25,
    w26 = 26,
    w27 = 27,
    w28 = 28,
    w29 = 29,
    w30 = 30,
    w31 = 31
);
