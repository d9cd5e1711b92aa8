//! `sack`: the per-path receive tracker in RTL.
//!
//! Holds, for each of 2^K (connection, path) keys, the cumulative PSN, one
//! past the highest PSN seen and the circular SACK bitmap of the receive
//! window, in block RAM indexed by key (cost grows with RAM, not logic).
//! Reference: `ferroce_proto::model::sack::SackTracker`.
//!
//! The receive window W is the build's packets in flight per path (256,
//! the SACK field's width, or a smaller power of two: the boards' builds);
//! a PSN W or more past the cumulative PSN is out of the window. The
//! bitmap is kept by PSN mod W: the Verilog is 256 bits wide with the bits
//! at and above W masked to constant zero, so that synthesis removes them
//! with the logic above W, as `retx` does. The ACK's field is by PSN mod
//! 256; the W PSNs from the cumulative one are W consecutive positions
//! there, so the field is the bitmap by slot in two parts (the slots at
//! and after the cumulative PSN's, and the wrapped ones before it) rotated
//! into place by the cumulative PSN's multiple of W ([`SackWire`]). The
//! tracker gives the bitmap by slot, and the engine queues it so (W bits,
//! not 256) for the send side, which puts it in wire order.
//!
//! Ports (all synchronous to `clock`; `reset` is synchronous, active high):
//! * `ready` (out): low while the RAMs are being cleared after reset
//!   (2^K cycles); inputs are ignored then.
//! * `in_valid`, `in_op` (0 packet, 1 load), `in_key`, `in_psn`,
//!   `in_commit`: one operation per cycle, no back-pressure. A packet is
//!   classified; if it is new and `in_commit` is set its bit is recorded and
//!   the cumulative PSN advances. A load starts the key afresh at `in_psn`
//!   (connection setup with its initial PSN).
//! * `out_valid` with `out_key`, `out_verdict` (0 new, 1 duplicate, 2 out
//!   of window), `out_hole`, and the key's state after the packet:
//!   `out_cum`, `out_high` and `out_slots` (the bitmap by PSN mod W, the
//!   bits at and above W zero; [`SackWire`] turns it into the ACK's SACK
//!   field, by PSN mod 256, given `out_cum`: the send side does, as it
//!   builds the ACK). Two cycles after the packet;
//!   loads produce no output.
//!
//! Throughput one operation per cycle, any mix of keys: back-to-back
//! operations on one key are forwarded around the RAM's read latency.
//! The bitmap update uses thermometer masks and find-first-set trees
//! (`crate::blocks::trees`), never a 256-bit barrel shifter.
//!
//! Structure: `SackCore` is the tracker's classify and accept as
//! combinational `#[hdl_gen]` logic (one key's state and one PSN in, the
//! verdict and the next state out); `Sack` wraps it around the keyed
//! block-RAM store with one register stage on each side.

use rust_hdl::prelude::*;

use crate::blocks::keyed::KeyedState;
use crate::blocks::trees::{Decode256, FirstSet256, Thermo256};
use crate::blocks::{low_ones, HdlDefault, HdlStruct};

use ferroce_proto::model::sack::Verdict;
use ferroce_proto::params::{PSN_BITS, SACK_SLOT_BITS, SACK_WINDOW};

/// Verdict codes on `out_verdict` (`Verdict::code`).
pub const VERDICT_NEW: u64 = Verdict::New { hole: false }.code();
pub const VERDICT_DUP: u64 = Verdict::Duplicate.code();
pub const VERDICT_OOW: u64 = Verdict::OutOfWindow.code();

// `#[hdl_gen]` writes a name in an index expression as a Verilog
// identifier, so bit offsets in `update()` are literals: the slot's 8 bits,
// the PSN's sign bit 23, the cumulative PSN at 256 and `high` at 280 in the
// state.
const _: () = assert!(Verdict::CODE_BITS == 2 && PSN_BITS == 24 && SACK_WINDOW == 256 && SACK_SLOT_BITS == 8);

/// Bits of one key's state (`SackState`).
pub const STATE_BITS: usize = SACK_WINDOW + 2 * PSN_BITS;

/// Bits of the cumulative PSN above its slot.
pub const CUM_HIGH_BITS: usize = PSN_BITS - SACK_SLOT_BITS;

/// One key's state as stored, from bit 0: the bitmap by slot (PSN mod W), the
/// cumulative PSN (its slot and the bits above), one past the highest PSN.
/// The bitmap comes first so that it is word-aligned: Verilator moves an
/// unaligned wide field bit-shifted word by word (measured: a fifth of the
/// core's cost).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct SackState {
    pub map: Bits<SACK_WINDOW>,
    pub cum_slot: Bits<SACK_SLOT_BITS>,
    pub cum_high: Bits<CUM_HIGH_BITS>,
    pub high: Bits<PSN_BITS>,
}

/// A slot distance as a PSN step (zero-extended).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct SlotStep {
    pub slot: Bits<SACK_SLOT_BITS>,
    pub zero: Bits<CUM_HIGH_BITS>,
}

/// The combinational core: one key's state and one PSN in, the verdict and
/// the next state out (the tracker's classify, then accept when the PSN is
/// new and `commit` is set; `load` starts the key at `psn`), with a
/// receive window of W PSNs.
#[derive(LogicBlock, HdlDefault)]
pub struct SackCore<const W: usize = SACK_WINDOW> {
    pub state: Signal<In, Bits<STATE_BITS>>,
    pub psn: Signal<In, Bits<PSN_BITS>>,
    pub commit: Signal<In, bool>,
    pub load: Signal<In, bool>,
    pub verdict: Signal<Out, Bits<2>>,
    pub hole: Signal<Out, bool>,
    pub new_state: Signal<Out, SackState>,
    // the PSN's slot as a one-hot mask
    slot_hot: Decode256,
    // ge(cum slot), ge(first zero): the circular run the cumulative PSN passes
    ge_cum: Thermo256,
    ge_zero: Thermo256,
    // first zero of the bitmap at or after the cumulative slot, and before it
    zero_upper: FirstSet256,
    zero_lower: FirstSet256,
    cum: Signal<Local, Bits<PSN_BITS>>,
    high: Signal<Local, Bits<PSN_BITS>>,
    map: Signal<Local, Bits<SACK_WINDOW>>,
    slot: Signal<Local, Bits<SACK_SLOT_BITS>>,
    // serial distances of the PSN from cum and high: bit 23 set is "before"
    d_cum: Signal<Local, Bits<PSN_BITS>>,
    d_high: Signal<Local, Bits<PSN_BITS>>,
    in_window: Signal<Local, bool>,
    is_new: Signal<Local, bool>,
    do_set: Signal<Local, bool>,
    // the bitmap with the PSN's bit set when it is accepted
    marked: Signal<Local, Bits<SACK_WINDOW>>,
    any_zero: Signal<Local, bool>,
    zero_at: Signal<Local, Bits<SACK_SLOT_BITS>>,
    passed: Signal<Local, Bits<SACK_WINDOW>>,
    // the cumulative PSN's slot (mod W), how far it advances, the next one
    cum_slot: Signal<Local, Bits<SACK_SLOT_BITS>>,
    advance: Signal<Local, SlotStep>,
    step: Signal<Local, Bits<PSN_BITS>>,
    next_cum: Signal<Local, Bits<PSN_BITS>>,
    next_map: Signal<Local, Bits<SACK_WINDOW>>,
    #[constant(1u64)]
    one_psn: Constant<Bits<PSN_BITS>>,
    #[constant(W as u64)]
    window: Constant<Bits<PSN_BITS>>,
    // the window's slots: the bitmap's bits at and above W are constant
    // zero and synthesis removes them
    #[constant(low_ones::<SACK_WINDOW>(W))]
    in_window_bits: Constant<Bits<SACK_WINDOW>>,
    #[constant((W - 1) as u64)]
    slot_mask: Constant<Bits<SACK_SLOT_BITS>>,
    #[constant(0u64)]
    zero_step: Constant<Bits<CUM_HIGH_BITS>>,
    #[constant(0u64)]
    empty: Constant<Bits<SACK_WINDOW>>,
    #[constant(VERDICT_NEW)]
    v_new: Constant<Bits<2>>,
    #[constant(VERDICT_DUP)]
    v_dup: Constant<Bits<2>>,
    #[constant(VERDICT_OOW)]
    v_oow: Constant<Bits<2>>,
}

impl<const W: usize> Logic for SackCore<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.cum.next = self.state.val().get_bits::<PSN_BITS>(256);
        self.high.next = self.state.val().get_bits::<PSN_BITS>(280);
        self.map.next = self.state.val().get_bits::<SACK_WINDOW>(0) & self.in_window_bits.val();
        self.slot.next = self.psn.val().get_bits::<SACK_SLOT_BITS>(0) & self.slot_mask.val();
        self.d_cum.next = self.psn.val() - self.cum.val();
        self.d_high.next = self.psn.val() - self.high.val();
        self.in_window.next = self.d_cum.val() < self.window.val();
        self.is_new.next = self.in_window.val() & !self.map.val().get_bit(self.slot.val().index());
        self.do_set.next = self.is_new.val() & self.commit.val() & !self.load.val();
        self.slot_hot.x.next = self.slot.val();
        if self.do_set.val() {
            self.marked.next = self.map.val() | self.slot_hot.hot.val();
        } else {
            self.marked.next = self.map.val();
        }

        // The cumulative PSN advances to the first zero at or after its
        // slot, else (wrapping) to the first zero before it, else by a
        // whole window; the bits it passes are cleared.
        self.cum_slot.next = self.cum.val().get_bits::<SACK_SLOT_BITS>(0) & self.slot_mask.val();
        self.ge_cum.x.next = self.cum_slot.val();
        self.zero_upper.v.next = !self.marked.val() & self.ge_cum.ge.val() & self.in_window_bits.val();
        self.zero_lower.v.next = !self.marked.val() & !self.ge_cum.ge.val() & self.in_window_bits.val();
        self.any_zero.next = self.zero_upper.any.val() | self.zero_lower.any.val();
        if self.zero_upper.any.val() {
            self.zero_at.next = self.zero_upper.at.val();
        } else {
            self.zero_at.next = self.zero_lower.at.val();
        }
        self.ge_zero.x.next = self.zero_at.val();
        if self.zero_upper.any.val() {
            self.passed.next = self.ge_cum.ge.val() & !self.ge_zero.ge.val();
        } else {
            self.passed.next = (self.ge_cum.ge.val() | !self.ge_zero.ge.val()) & self.in_window_bits.val();
        }
        // cum + the distance to the first zero (mod W), or + W when the
        // whole window is set
        self.advance.next.slot = (self.zero_at.val() - self.cum_slot.val()) & self.slot_mask.val();
        self.advance.next.zero = self.zero_step.val();
        self.step.next = self.advance.val().into();
        if !self.any_zero.val() {
            self.step.next = self.window.val();
        }

        self.next_cum.next = self.cum.val();
        self.next_map.next = self.map.val();
        self.new_state.next.high = self.high.val();
        if self.load.val() {
            self.verdict.next = self.v_new.val();
            self.hole.next = false;
            self.next_cum.next = self.psn.val();
            self.next_map.next = self.empty.val();
            self.new_state.next.high = self.psn.val();
        } else {
            if self.is_new.val() {
                self.verdict.next = self.v_new.val();
            } else if self.in_window.val() | self.d_cum.val().get_bit(23) {
                self.verdict.next = self.v_dup.val();
            } else {
                self.verdict.next = self.v_oow.val();
            }
            self.hole.next = self.is_new.val() & !self.d_high.val().get_bit(23) & self.d_high.val().any();
            // The cumulative PSN passes the run of set bits, clearing it.
            self.next_cum.next = self.cum.val() + self.step.val();
            if self.any_zero.val() {
                self.next_map.next = self.marked.val() & !self.passed.val();
            } else {
                self.next_map.next = self.empty.val();
            }
            if self.do_set.val() & !self.d_high.val().get_bit(23) {
                self.new_state.next.high = self.psn.val() + self.one_psn.val();
            }
        }
        self.new_state.next.map = self.next_map.val();
        self.new_state.next.cum_slot = self.next_cum.val().get_bits::<SACK_SLOT_BITS>(0);
        self.new_state.next.cum_high = self.next_cum.val().get_bits::<CUM_HIGH_BITS>(8);
    }
}

/// A W-slot bitmap (by PSN mod W, the bits at and above W ignored) as the
/// ACK's field (by PSN mod 256), given the cumulative PSN mod 256
/// (`cum_slot`): the W PSNs from
/// the cumulative one are W consecutive positions of the field, so the
/// field is the slots at and after the cumulative PSN's (`lo`) and the
/// wrapped ones before it (`hi`, moved up by W), rotated by the cumulative
/// PSN's multiple of W (`base`); `hi` wraps to the bottom when `base` is
/// the last multiple. W = 256 passes the bitmap through. Combinational.
///
/// The receive side queues an ACK's bitmap by slot (W bits) and the send
/// side puts it in wire order here as it builds the frame (docs/rtl.md).
#[derive(LogicBlock, HdlDefault)]
pub struct SackWire<const W: usize = SACK_WINDOW> {
    pub slots: Signal<In, Bits<SACK_WINDOW>>,
    pub cum_slot: Signal<In, Bits<SACK_SLOT_BITS>>,
    pub field: Signal<Out, Bits<SACK_WINDOW>>,
    ge_next: Thermo256,
    map: Signal<Local, Bits<SACK_WINDOW>>,
    next_slot: Signal<Local, Bits<SACK_SLOT_BITS>>,
    base: Signal<Local, Bits<SACK_SLOT_BITS>>,
    lo: Signal<Local, Bits<SACK_WINDOW>>,
    hi: Signal<Local, Bits<SACK_WINDOW>>,
    pair: Signal<Local, Bits<SACK_WINDOW>>,
    #[constant(low_ones::<SACK_WINDOW>(W))]
    in_window_bits: Constant<Bits<SACK_WINDOW>>,
    #[constant((W - 1) as u64)]
    slot_mask: Constant<Bits<SACK_SLOT_BITS>>,
    #[constant((W % SACK_WINDOW) as u64)]
    w_shift: Constant<Bits<SACK_SLOT_BITS>>,
    #[constant((SACK_WINDOW - W) as u64)]
    last_base: Constant<Bits<SACK_SLOT_BITS>>,
    #[constant(W == SACK_WINDOW)]
    whole: Constant<bool>,
}

impl<const W: usize> Logic for SackWire<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.map.next = self.slots.val() & self.in_window_bits.val();
        self.next_slot.next = self.cum_slot.val() & self.slot_mask.val();
        self.base.next = self.cum_slot.val() & !self.slot_mask.val();
        self.ge_next.x.next = self.next_slot.val();
        self.lo.next = self.map.val() & self.ge_next.ge.val();
        self.hi.next = self.map.val() & !self.ge_next.ge.val();
        self.pair.next = self.lo.val() | (self.hi.val() << self.w_shift.val());
        self.field.next = self.pair.val() << self.base.val();
        if self.base.val() == self.last_base.val() {
            self.field.next = (self.pair.val() << self.base.val()) | self.hi.val();
        }
        if self.whole.val() {
            self.field.next = self.map.val();
        }
    }
}

/// The tracker for 2^K keys, with a receive window of W PSNs.
#[derive(LogicBlock, Default)]
pub struct Sack<const K: usize, const W: usize = SACK_WINDOW> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_op: Signal<In, bool>,
    pub in_key: Signal<In, Bits<K>>,
    pub in_psn: Signal<In, Bits<PSN_BITS>>,
    pub in_commit: Signal<In, bool>,
    pub out_valid: Signal<Out, bool>,
    pub out_key: Signal<Out, Bits<K>>,
    pub out_verdict: Signal<Out, Bits<2>>,
    pub out_hole: Signal<Out, bool>,
    pub out_cum: Signal<Out, Bits<PSN_BITS>>,
    pub out_high: Signal<Out, Bits<PSN_BITS>>,
    pub out_slots: Signal<Out, Bits<SACK_WINDOW>>,
    core: SackCore<W>,
    store: KeyedState<K, STATE_BITS>,
    // stage 1: the operation whose state the store is returning
    s1_op: DFF<bool>,
    s1_psn: DFF<Bits<PSN_BITS>>,
    s1_commit: DFF<bool>,
    // registered outputs
    o_valid: DFF<bool>,
    o_key: DFF<Bits<K>>,
    o_verdict: DFF<Bits<2>>,
    o_hole: DFF<bool>,
    o_state: DFF<Bits<STATE_BITS>>,
}

impl<const K: usize, const W: usize> Sack<K, W> {
    /// A tracker block (2^K keys).
    pub fn new() -> Self {
        Self::default()
    }
}

impl<const K: usize, const W: usize> Logic for Sack<K, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_op, s1_psn, s1_commit, o_valid, o_key, o_verdict, o_hole, o_state);
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.store.rd_valid.next = self.in_valid.val();
        self.store.rd_key.next = self.in_key.val();
        self.s1_op.d.next = self.in_op.val();
        self.s1_psn.d.next = self.in_psn.val();
        self.s1_commit.d.next = self.in_commit.val();

        self.core.state.next = self.store.state.val();
        self.core.psn.next = self.s1_psn.q.val();
        self.core.commit.next = self.s1_commit.q.val();
        self.core.load.next = self.s1_op.q.val();
        self.store.wr_valid.next = true;
        self.store.wr_state.next = self.core.new_state.val().into();

        self.o_valid.d.next = self.store.s1_valid.val() & !self.s1_op.q.val();
        self.o_key.d.next = self.store.s1_key.val();
        self.o_verdict.d.next = self.core.verdict.val();
        self.o_hole.d.next = self.core.hole.val();
        self.o_state.d.next = self.core.new_state.val().into();
        if self.reset.val() {
            self.o_valid.d.next = false;
        }

        self.ready.next = self.store.ready.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_key.next = self.o_key.q.val();
        self.out_verdict.next = self.o_verdict.q.val();
        self.out_hole.next = self.o_hole.q.val();
        self.out_cum.next = self.o_state.q.val().get_bits::<PSN_BITS>(256);
        self.out_high.next = self.o_state.q.val().get_bits::<PSN_BITS>(280);
        self.out_slots.next = self.o_state.q.val().get_bits::<SACK_WINDOW>(0);
    }
}
