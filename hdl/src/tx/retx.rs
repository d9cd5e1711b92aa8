//! `retx`: the retransmit scheduler's per-path state.
//! Reference: `ferroce_proto::model::retx::PathLog`.
//!
//! For each of 2^K path keys, block RAM holds the PSN window (next, una,
//! the retransmission marker) and four bitmaps indexed by PSN mod W:
//! SACKed, queued for retransmission, resent, held. W is the build's
//! packets in flight per path (256, the SACK window, or a smaller power of
//! two: the boards' builds keep 64); the bitmaps are 256 bits wide in the
//! Verilog and their bits at and above W are masked to constant zero, so
//! that synthesis removes them with the trees' logic above W and the RAM's
//! unread columns. An ACK's bitmap (by PSN mod 256) is folded onto W slots
//! (bits naming the same PSN mod W ORed: one to one over the PSNs in
//! flight, which lie in one window of W). Every operation
//! is a handful of bitmap operations with circular range masks,
//! find-first/last-set trees and population counts
//! (`crate::blocks::trees`); no shifter.
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `ready` (out): low during the 2^K-cycle clearing sweep after reset.
//! * `in_valid`, `in_op`, `in_key`, `in_psn`, `in_sack`: one operation per
//!   cycle, no back-pressure. `in_op`: 0 LOAD (start at `in_psn`), 1 SEND
//!   (take the next PSN), 2 ACK (cumulative `in_psn`, bitmap `in_sack`),
//!   3 TAKE (next retransmission, lowest PSN first), 4 RTO (queue every
//!   unacknowledged PSN), 5 HOLD `in_psn`, 6 RELEASE `in_psn`, 7 PROBE
//!   (a tail probe: queue the newest PSN in flight if it is neither
//!   SACKed, queued nor held, else the oldest such PSN); for `rack`'s walk
//!   (`PathLog::candidates`, `PathLog::lose`): 8 FIRST (the lowest
//!   candidate, a PSN in flight neither SACKed, queued nor held), 9 AFTER
//!   (the lowest candidate at or above `in_psn`, which must be in flight),
//!   10 LOSE (queue `in_psn` if it is a candidate). With an ACK,
//!   `in_resent_rule`: a resent PSN may be declared lost again once a PSN
//!   at or above the retransmission marker is SACKed
//!   (`PathLog::on_ack_with`'s rule; off when repairs take another path's
//!   route, whose order on the wire the marker does not follow).
//! * Two cycles later, for every operation: `out_valid`, `out_key`,
//!   `out_op`, `out_ok` (SEND: a PSN was free; ACK: not stale; TAKE:
//!   something was queued; HOLD/RELEASE: it applied; PROBE, LOSE: a PSN
//!   was queued; FIRST, AFTER: a candidate was found), `out_psn` (SEND,
//!   TAKE, PROBE, FIRST, AFTER), `out_resent` (FIRST, AFTER: the candidate
//!   was resent), `out_newly` (ACK: the newly acknowledged PSNs by slot),
//!   `out_rexmit` (ACK: those of them still in flight, above the new una,
//!   that were resent: `PathLog::was_resent` after the ACK),
//!   `out_count` (ACK: newly acknowledged; RTO: queued), `out_lost` (ACK:
//!   found lost), and the path's state after it: `out_outstanding`,
//!   `out_queued` (anything to resend), `out_can_send`.
//!
//! Structure: `RetxCore` is one path's operation as combinational
//! `#[hdl_gen]` logic (state and operation in, results and next state
//! out); `Retx` wraps it around the keyed block-RAM store with one register
//! stage on each side.
//!
//! A circular slot range [a, b) is `ge(a) & !ge(b)`, or `ge(a) | !ge(b)`
//! when it wraps (b < a, or a == b with all 256 slots in it).

use rust_hdl::prelude::*;

use ferroce_proto::params::{PSN_BITS, SACK_SLOT_BITS, SACK_WINDOW};

use crate::blocks::keyed::KeyedState;
use crate::blocks::trees::{Decode256, FirstSet256, LastSet256, Popcount256, Thermo256};
use crate::blocks::{HdlDefault, HdlStruct};

/// Operation codes on `in_op`.
pub mod op {
    pub const LOAD: u64 = 0;
    pub const SEND: u64 = 1;
    pub const ACK: u64 = 2;
    pub const TAKE: u64 = 3;
    pub const RTO: u64 = 4;
    pub const HOLD: u64 = 5;
    pub const RELEASE: u64 = 6;
    pub const PROBE: u64 = 7;
    pub const FIRST: u64 = 8;
    pub const AFTER: u64 = 9;
    pub const LOSE: u64 = 10;
}

/// Bits of an operation code.
pub const OP_BITS: usize = 4;

// The codes as `match` arms (the `Constant` fields of the same names are
// their Verilog localparams).
const OP_LOAD: usize = op::LOAD as usize;
const OP_SEND: usize = op::SEND as usize;
const OP_ACK: usize = op::ACK as usize;
const OP_TAKE: usize = op::TAKE as usize;
const OP_RTO: usize = op::RTO as usize;
const OP_HOLD: usize = op::HOLD as usize;
const OP_RELEASE: usize = op::RELEASE as usize;
const OP_PROBE: usize = op::PROBE as usize;
const OP_LOSE: usize = op::LOSE as usize;

/// Bits of one path's state (`RetxState`).
pub const STATE_BITS: usize = 3 * PSN_BITS + 4 * SACK_WINDOW;

// `#[hdl_gen]` writes a name in an index expression as a Verilog
// identifier, so bit offsets in `update()` are literals: the PSN's sign bit
// 23, the slot's 8 bits, and the fields of `RetxState` at multiples of 256
// and then 1024, 1048, 1072.
const _: () = assert!(PSN_BITS == 24 && SACK_WINDOW == 256 && SACK_SLOT_BITS == 8 && STATE_BITS == 1096);

/// One path's state as stored, from bit 0: the four bitmaps by slot, then
/// the next PSN, una and the retransmission marker. The bitmaps come first so that
/// they are word-aligned (Verilator copies unaligned wide fields bit by bit).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct RetxState {
    pub sacked: Bits<SACK_WINDOW>,
    pub queued: Bits<SACK_WINDOW>,
    pub rexmit: Bits<SACK_WINDOW>,
    pub held: Bits<SACK_WINDOW>,
    pub next_psn: Bits<PSN_BITS>,
    pub una: Bits<PSN_BITS>,
    pub marker: Bits<PSN_BITS>,
}

/// Bits above the slot in a PSN offset.
const OFFSET_ZERO_BITS: usize = PSN_BITS - SACK_SLOT_BITS;

/// A slot distance as a PSN offset (zero-extended).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct SlotOffset {
    pub slot: Bits<SACK_SLOT_BITS>,
    pub zero: Bits<OFFSET_ZERO_BITS>,
}

/// A folded SACK zero-extended to 256 bits (low `N` bits, then zeros).
macro_rules! folded {
    ($name:ident, $n:expr) => {
        #[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
        pub struct $name {
            pub lo: Bits<{ $n }>,
            pub hi: Bits<{ SACK_WINDOW - $n }>,
        }
    };
}
folded!(Folded128, 128);
folded!(Folded64, 64);
folded!(Folded32, 32);
folded!(Folded16, 16);
folded!(Folded8, 8);

/// An ACK's bitmap (by PSN mod 256) folded onto W slots (by PSN mod W):
/// bits naming the same PSN mod W ORed, the bits at and above W zero. One
/// to one over the PSNs a W-slot sender has in flight, which lie in one
/// window of W. W = 256 passes the bitmap through.
#[derive(LogicBlock, HdlDefault)]
pub struct FoldSack<const W: usize = SACK_WINDOW> {
    pub sack: Signal<In, Bits<SACK_WINDOW>>,
    pub folded: Signal<Out, Bits<SACK_WINDOW>>,
    s128: Signal<Local, Bits<128>>,
    s64: Signal<Local, Bits<64>>,
    s32: Signal<Local, Bits<32>>,
    s16: Signal<Local, Bits<16>>,
    s8: Signal<Local, Bits<8>>,
    x128: Signal<Local, Folded128>,
    x64: Signal<Local, Folded64>,
    x32: Signal<Local, Folded32>,
    x16: Signal<Local, Folded16>,
    x8: Signal<Local, Folded8>,
    #[constant(0u64)]
    zero128: Constant<Bits<128>>,
    #[constant(0u64)]
    zero192: Constant<Bits<192>>,
    #[constant(0u64)]
    zero224: Constant<Bits<224>>,
    #[constant(0u64)]
    zero240: Constant<Bits<240>>,
    #[constant(0u64)]
    zero248: Constant<Bits<248>>,
    #[constant(W <= 128)]
    fold128: Constant<bool>,
    #[constant(W <= 64)]
    fold64: Constant<bool>,
    #[constant(W <= 32)]
    fold32: Constant<bool>,
    #[constant(W <= 16)]
    fold16: Constant<bool>,
    #[constant(W <= 8)]
    fold8: Constant<bool>,
}

impl<const W: usize> Logic for FoldSack<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.s128.next = self.sack.val().get_bits::<128>(0) | self.sack.val().get_bits::<128>(128);
        self.s64.next = self.s128.val().get_bits::<64>(0) | self.s128.val().get_bits::<64>(64);
        self.s32.next = self.s64.val().get_bits::<32>(0) | self.s64.val().get_bits::<32>(32);
        self.s16.next = self.s32.val().get_bits::<16>(0) | self.s32.val().get_bits::<16>(16);
        self.s8.next = self.s16.val().get_bits::<8>(0) | self.s16.val().get_bits::<8>(8);
        self.x128.next.lo = self.s128.val();
        self.x128.next.hi = self.zero128.val();
        self.x64.next.lo = self.s64.val();
        self.x64.next.hi = self.zero192.val();
        self.x32.next.lo = self.s32.val();
        self.x32.next.hi = self.zero224.val();
        self.x16.next.lo = self.s16.val();
        self.x16.next.hi = self.zero240.val();
        self.x8.next.lo = self.s8.val();
        self.x8.next.hi = self.zero248.val();
        self.folded.next = self.sack.val();
        if self.fold128.val() {
            self.folded.next = self.x128.val().into();
        }
        if self.fold64.val() {
            self.folded.next = self.x64.val().into();
        }
        if self.fold32.val() {
            self.folded.next = self.x32.val().into();
        }
        if self.fold16.val() {
            self.folded.next = self.x16.val().into();
        }
        if self.fold8.val() {
            self.folded.next = self.x8.val().into();
        }
    }
}

/// The combinational core: one path's state and one operation in, the
/// results and the next state out.
#[derive(LogicBlock, HdlDefault)]
#[allow(non_snake_case)]
pub struct RetxCore<const W: usize = SACK_WINDOW, const P: bool = true, const R: bool = true> {
    pub state: Signal<In, Bits<STATE_BITS>>,
    pub op: Signal<In, Bits<OP_BITS>>,
    pub psn: Signal<In, Bits<PSN_BITS>>,
    pub sack: Signal<In, Bits<SACK_WINDOW>>,
    pub resent_rule: Signal<In, bool>,
    pub new_state: Signal<Out, RetxState>,
    pub ok: Signal<Out, bool>,
    pub out_psn: Signal<Out, Bits<PSN_BITS>>,
    pub newly: Signal<Out, Bits<SACK_WINDOW>>,
    pub rexmit_newly: Signal<Out, Bits<SACK_WINDOW>>,
    pub resent: Signal<Out, bool>,
    pub count: Signal<Out, Bits<9>>,
    pub lost: Signal<Out, Bits<9>>,
    pub outstanding: Signal<Out, Bits<9>>,
    pub queued: Signal<Out, bool>,
    pub can_send: Signal<Out, bool>,
    // Thermometers of the slots of una, next, the operation's PSN and the
    // highest SACKed PSN; one-hot masks of the PSN's, next's and the
    // retransmission's slots.
    ge_una: Thermo256,
    ge_next: Thermo256,
    ge_psn: Thermo256,
    ge_high: Thermo256,
    hot_psn: Decode256,
    hot_next: Decode256,
    hot_take: Decode256,
    // the newest PSN's slot (next's, one back), one-hot
    hot_newest: Signal<Local, Bits<SACK_WINDOW>>,
    newest_cand: Signal<Local, bool>,
    // highest SACKed slot at or above the cumulative PSN's, and below it
    // (the wrapped part, which is the higher PSN)
    sack_upper: LastSet256,
    sack_lower: LastSet256,
    // lowest queued slot at or above una's, and below it
    queue_upper: FirstSet256,
    queue_lower: FirstSet256,
    // newly acknowledged (ACK) or newly queued (RTO); holes found lost;
    // unacknowledged after the operation
    count_newly: Popcount256,
    count_holes: Popcount256,
    count_unacked: Popcount256,
    // the state
    next_psn: Signal<Local, Bits<PSN_BITS>>,
    una: Signal<Local, Bits<PSN_BITS>>,
    marker: Signal<Local, Bits<PSN_BITS>>,
    sacked: Signal<Local, Bits<SACK_WINDOW>>,
    queued_in: Signal<Local, Bits<SACK_WINDOW>>,
    rexmit: Signal<Local, Bits<SACK_WINDOW>>,
    held: Signal<Local, Bits<SACK_WINDOW>>,
    una_slot: Signal<Local, Bits<SACK_SLOT_BITS>>,
    next_slot: Signal<Local, Bits<SACK_SLOT_BITS>>,
    psn_slot: Signal<Local, Bits<SACK_SLOT_BITS>>,
    // the window: full when 256 PSNs are in flight
    full: Signal<Local, bool>,
    d_una: Signal<Local, Bits<PSN_BITS>>,
    d_next: Signal<Local, Bits<PSN_BITS>>,
    stale: Signal<Local, bool>,
    in_flight: Signal<Local, bool>,
    // slot ranges: in flight [una, next), after an ACK [psn, next),
    // acknowledged by it [una, psn), below the highest SACKed [psn, high)
    flight: Signal<Local, Bits<SACK_WINDOW>>,
    rest_full: Signal<Local, bool>,
    rest: Signal<Local, Bits<SACK_WINDOW>>,
    acked_full: Signal<Local, bool>,
    acked: Signal<Local, Bits<SACK_WINDOW>>,
    // ACK
    sack_in: Signal<Local, Bits<SACK_WINDOW>>,
    sack_new: Signal<Local, Bits<SACK_WINDOW>>,
    ack_newly: Signal<Local, Bits<SACK_WINDOW>>,
    ack_sacked: Signal<Local, Bits<SACK_WINDOW>>,
    ack_queued: Signal<Local, Bits<SACK_WINDOW>>,
    have_high: Signal<Local, bool>,
    high_slot: Signal<Local, Bits<SACK_SLOT_BITS>>,
    high_offset: Signal<Local, SlotOffset>,
    high_step: Signal<Local, Bits<PSN_BITS>>,
    high: Signal<Local, Bits<PSN_BITS>>,
    d_high_marker: Signal<Local, Bits<PSN_BITS>>,
    // a retransmission may be lost again (something at or beyond the
    // marker was SACKed)
    resent_lost: Signal<Local, bool>,
    may_lose: Signal<Local, Bits<SACK_WINDOW>>,
    below_high: Signal<Local, Bits<SACK_WINDOW>>,
    holes: Signal<Local, Bits<SACK_WINDOW>>,
    // TAKE (and PROBE: the first candidate from una)
    q_src: Signal<Local, Bits<SACK_WINDOW>>,
    q_live: Signal<Local, Bits<SACK_WINDOW>>,
    take_any: Signal<Local, bool>,
    take_slot: Signal<Local, Bits<SACK_SLOT_BITS>>,
    take_offset: Signal<Local, SlotOffset>,
    take_step: Signal<Local, Bits<PSN_BITS>>,
    // LOSE: the PSN is a candidate
    psn_cand: Signal<Local, bool>,
    // RTO
    rto_add: Signal<Local, Bits<SACK_WINDOW>>,
    // the next state
    n_next: Signal<Local, Bits<PSN_BITS>>,
    n_una: Signal<Local, Bits<PSN_BITS>>,
    n_marker: Signal<Local, Bits<PSN_BITS>>,
    n_sacked: Signal<Local, Bits<SACK_WINDOW>>,
    n_queued: Signal<Local, Bits<SACK_WINDOW>>,
    n_rexmit: Signal<Local, Bits<SACK_WINDOW>>,
    n_held: Signal<Local, Bits<SACK_WINDOW>>,
    // in flight after the operation (derived from `flight` and `rest`)
    n_flight: Signal<Local, Bits<SACK_WINDOW>>,
    n_span: Signal<Local, Bits<PSN_BITS>>,
    // The SACK folded onto the build's W slots (its PSNs in flight lie in
    // one window of W, so PSN mod 256 -> PSN mod W is one to one there).
    fold: FoldSack<W>,
    // the slots of the build's window: the bitmaps' bits at and above W
    // are constant zero and synthesis removes them
    #[constant(crate::blocks::low_ones::<SACK_WINDOW>(W))]
    in_window: Constant<Bits<SACK_WINDOW>>,
    #[constant((W - 1) as u64)]
    slot_mask: Constant<Bits<SACK_SLOT_BITS>>,
    #[constant(op::LOAD)]
    OP_LOAD: Constant<Bits<OP_BITS>>,
    #[constant(op::SEND)]
    OP_SEND: Constant<Bits<OP_BITS>>,
    #[constant(op::ACK)]
    OP_ACK: Constant<Bits<OP_BITS>>,
    #[constant(op::TAKE)]
    OP_TAKE: Constant<Bits<OP_BITS>>,
    #[constant(op::RTO)]
    OP_RTO: Constant<Bits<OP_BITS>>,
    #[constant(op::HOLD)]
    OP_HOLD: Constant<Bits<OP_BITS>>,
    #[constant(op::RELEASE)]
    OP_RELEASE: Constant<Bits<OP_BITS>>,
    #[constant(op::PROBE)]
    OP_PROBE: Constant<Bits<OP_BITS>>,
    // PROBE is built (P): without it the operation does nothing and its
    // logic is constant
    #[constant(P)]
    probe_op: Constant<bool>,
    #[constant(op::FIRST)]
    OP_FIRST: Constant<Bits<OP_BITS>>,
    #[constant(op::AFTER)]
    OP_AFTER: Constant<Bits<OP_BITS>>,
    #[constant(op::LOSE)]
    OP_LOSE: Constant<Bits<OP_BITS>>,
    // FIRST, AFTER and LOSE are built (R): without them they do nothing
    // and their logic is constant
    #[constant(R)]
    rack_op: Constant<bool>,
    // the window's last slot, one-hot (where slot 0 steps back to)
    #[constant(Bits::<SACK_WINDOW>::from(1u64) << ((W - 1) as u64))]
    last_slot: Constant<Bits<SACK_WINDOW>>,
    #[constant(1u64)]
    one_bit: Constant<Bits<8>>,
    #[constant(W as u64)]
    window: Constant<Bits<PSN_BITS>>,
    #[constant(1u64)]
    one_psn: Constant<Bits<PSN_BITS>>,
    // serial comparison: a distance below half the PSN space is "at or after"
    #[constant(1u64 << (PSN_BITS - 1))]
    half: Constant<Bits<PSN_BITS>>,
    #[constant(0u64)]
    zero_psn: Constant<Bits<PSN_BITS>>,
    #[constant(0u64)]
    zero_offset: Constant<Bits<OFFSET_ZERO_BITS>>,
    #[constant(0u64)]
    empty: Constant<Bits<SACK_WINDOW>>,
    #[constant(!Bits::<SACK_WINDOW>::default())]
    all: Constant<Bits<SACK_WINDOW>>,
    #[constant(0u64)]
    zero_count: Constant<Bits<9>>,
}

// `#[hdl_gen]` has no match guards: conditions sit inside the arms.
#[allow(clippy::collapsible_match)]
impl<const W: usize, const P: bool, const R: bool> Logic for RetxCore<W, P, R> {
    #[hdl_gen]
    fn update(&mut self) {
        self.sacked.next = self.state.val().get_bits::<SACK_WINDOW>(0) & self.in_window.val();
        self.queued_in.next = self.state.val().get_bits::<SACK_WINDOW>(256) & self.in_window.val();
        self.rexmit.next = self.state.val().get_bits::<SACK_WINDOW>(512) & self.in_window.val();
        self.held.next = self.state.val().get_bits::<SACK_WINDOW>(768) & self.in_window.val();
        self.next_psn.next = self.state.val().get_bits::<PSN_BITS>(1024);
        self.una.next = self.state.val().get_bits::<PSN_BITS>(1048);
        self.marker.next = self.state.val().get_bits::<PSN_BITS>(1072);
        self.una_slot.next = self.una.val().get_bits::<SACK_SLOT_BITS>(0) & self.slot_mask.val();
        self.next_slot.next = self.next_psn.val().get_bits::<SACK_SLOT_BITS>(0) & self.slot_mask.val();
        self.psn_slot.next = self.psn.val().get_bits::<SACK_SLOT_BITS>(0) & self.slot_mask.val();
        self.ge_una.x.next = self.una_slot.val();
        self.ge_next.x.next = self.next_slot.val();
        self.ge_psn.x.next = self.psn_slot.val();
        self.hot_psn.x.next = self.psn_slot.val();
        self.hot_next.x.next = self.next_slot.val();

        self.full.next = (self.next_psn.val() - self.una.val()) == self.window.val();
        self.d_una.next = self.psn.val() - self.una.val();
        self.d_next.next = self.psn.val() - self.next_psn.val();
        self.stale.next = self.d_una.val().get_bit(23) | (!self.d_next.val().get_bit(23) & self.d_next.val().any());
        self.in_flight.next = !self.d_una.val().get_bit(23) & self.d_next.val().get_bit(23);

        if (self.next_slot.val() < self.una_slot.val()) | self.full.val() {
            self.flight.next = (self.ge_una.ge.val() | !self.ge_next.ge.val()) & self.in_window.val();
        } else {
            self.flight.next = self.ge_una.ge.val() & !self.ge_next.ge.val();
        }
        self.rest_full.next = (self.next_psn.val() - self.psn.val()) == self.window.val();
        if (self.next_slot.val() < self.psn_slot.val()) | self.rest_full.val() {
            self.rest.next = (self.ge_psn.ge.val() | !self.ge_next.ge.val()) & self.in_window.val();
        } else {
            self.rest.next = self.ge_psn.ge.val() & !self.ge_next.ge.val();
        }
        self.acked_full.next = self.d_una.val() == self.window.val();
        if (self.psn_slot.val() < self.una_slot.val()) | self.acked_full.val() {
            self.acked.next = (self.ge_una.ge.val() | !self.ge_psn.ge.val()) & self.in_window.val();
        } else {
            self.acked.next = self.ge_una.ge.val() & !self.ge_psn.ge.val();
        }

        // ACK: newly acknowledged, and the holes below the highest SACKed
        // PSN that are lost.
        self.fold.sack.next = self.sack.val();
        self.sack_in.next = self.fold.folded.val() & self.rest.val();
        self.sack_new.next = self.sack_in.val() & !self.sacked.val();
        self.ack_newly.next = (self.acked.val() & !self.sacked.val()) | self.sack_new.val();
        self.ack_sacked.next = self.sacked.val() | self.sack_new.val();
        self.ack_queued.next = self.queued_in.val() & !self.sack_new.val();
        self.sack_upper.v.next = self.sack_in.val() & self.ge_psn.ge.val();
        self.sack_lower.v.next = self.sack_in.val() & !self.ge_psn.ge.val();
        self.have_high.next = self.sack_upper.any.val() | self.sack_lower.any.val();
        if self.sack_lower.any.val() {
            self.high_slot.next = self.sack_lower.at.val();
        } else {
            self.high_slot.next = self.sack_upper.at.val();
        }
        self.high_offset.next.slot = (self.high_slot.val() - self.psn_slot.val()) & self.slot_mask.val();
        self.high_offset.next.zero = self.zero_offset.val();
        self.high_step.next = self.high_offset.val().into();
        self.high.next = self.psn.val() + self.high_step.val();
        self.d_high_marker.next = self.high.val() - self.marker.val();
        self.resent_lost.next = self.resent_rule.val() & (self.d_high_marker.val() < self.half.val());
        if self.resent_lost.val() {
            self.may_lose.next = self.all.val();
        } else {
            self.may_lose.next = !self.rexmit.val();
        }
        self.ge_high.x.next = self.high_slot.val();
        if self.high_slot.val() < self.psn_slot.val() {
            self.below_high.next = (self.ge_psn.ge.val() | !self.ge_high.ge.val()) & self.in_window.val();
        } else {
            self.below_high.next = self.ge_psn.ge.val() & !self.ge_high.ge.val();
        }
        if self.have_high.val() {
            self.holes.next = self.below_high.val()
                & !self.ack_sacked.val()
                & !self.ack_queued.val()
                & !self.held.val()
                & self.may_lose.val();
        } else {
            self.holes.next = self.empty.val();
        }
        self.count_holes.v.next = self.holes.val();

        // RTO: every unacknowledged PSN not queued or held (also PROBE's
        // candidates).
        self.rto_add.next = self.flight.val() & !self.sacked.val() & !self.queued_in.val() & !self.held.val();

        // TAKE: the lowest queued PSN from una; PROBE: the lowest candidate
        // from una, unless the newest PSN in flight is one; FIRST: the
        // lowest candidate from una; AFTER: the lowest from the PSN on (the
        // range [psn, next), only for a PSN in flight).
        self.q_src.next = self.queued_in.val();
        if (self.op.val() == self.OP_PROBE.val()) & self.probe_op.val() {
            self.q_src.next = self.rto_add.val();
        }
        if (self.op.val() == self.OP_FIRST.val()) & self.rack_op.val() {
            self.q_src.next = self.rto_add.val();
        }
        if (self.op.val() == self.OP_AFTER.val()) & self.rack_op.val() {
            self.q_src.next = self.empty.val();
            if self.in_flight.val() {
                self.q_src.next = self.rto_add.val() & self.rest.val();
            }
        }
        self.q_live.next = self.q_src.val() & self.flight.val();
        self.queue_upper.v.next = self.q_live.val() & self.ge_una.ge.val();
        self.queue_lower.v.next = self.q_live.val() & !self.ge_una.ge.val();
        self.take_any.next = self.queue_upper.any.val() | self.queue_lower.any.val();
        if self.queue_upper.any.val() {
            self.take_slot.next = self.queue_upper.at.val();
        } else {
            self.take_slot.next = self.queue_lower.at.val();
        }
        self.take_offset.next.slot = (self.take_slot.val() - self.una_slot.val()) & self.slot_mask.val();
        self.take_offset.next.zero = self.zero_offset.val();
        self.take_step.next = self.take_offset.val().into();
        self.hot_take.x.next = self.take_slot.val() & self.slot_mask.val();
        self.hot_newest.next = self.hot_next.hot.val() >> self.one_bit.val();
        if self.hot_next.hot.val().get_bit(0) {
            self.hot_newest.next = self.last_slot.val();
        }
        self.newest_cand.next = (self.rto_add.val() & self.hot_newest.val()).any();
        self.psn_cand.next = self.in_flight.val() & (self.rto_add.val() & self.hot_psn.hot.val()).any();
        if self.op.val() == self.OP_RTO.val() {
            self.count_newly.v.next = self.rto_add.val();
        } else {
            self.count_newly.v.next = self.ack_newly.val();
        }

        self.n_next.next = self.next_psn.val();
        self.n_una.next = self.una.val();
        self.n_marker.next = self.marker.val();
        self.n_sacked.next = self.sacked.val();
        self.n_queued.next = self.queued_in.val();
        self.n_rexmit.next = self.rexmit.val();
        self.n_held.next = self.held.val();
        self.n_flight.next = self.flight.val();
        self.ok.next = false;
        self.out_psn.next = self.zero_psn.val();
        self.newly.next = self.empty.val();
        self.rexmit_newly.next = self.empty.val();
        self.resent.next = false;
        self.count.next = self.zero_count.val();
        self.lost.next = self.zero_count.val();
        match self.op.val().index() {
            OP_LOAD => {
                self.n_next.next = self.psn.val();
                self.n_una.next = self.psn.val();
                self.n_marker.next = self.psn.val();
                self.n_sacked.next = self.empty.val();
                self.n_queued.next = self.empty.val();
                self.n_rexmit.next = self.empty.val();
                self.n_held.next = self.empty.val();
                self.n_flight.next = self.empty.val();
                self.ok.next = true;
            }
            OP_SEND => {
                if !self.full.val() {
                    self.ok.next = true;
                    self.out_psn.next = self.next_psn.val();
                    self.n_next.next = self.next_psn.val() + self.one_psn.val();
                    self.n_sacked.next = self.sacked.val() & !self.hot_next.hot.val();
                    self.n_queued.next = self.queued_in.val() & !self.hot_next.hot.val();
                    self.n_rexmit.next = self.rexmit.val() & !self.hot_next.hot.val();
                    self.n_held.next = self.held.val() & !self.hot_next.hot.val();
                    self.n_flight.next = self.flight.val() | self.hot_next.hot.val();
                }
            }
            OP_ACK => {
                if !self.stale.val() {
                    self.ok.next = true;
                    self.n_una.next = self.psn.val();
                    self.n_sacked.next = self.ack_sacked.val();
                    self.n_queued.next = self.ack_queued.val() | self.holes.val();
                    self.n_flight.next = self.rest.val();
                    self.newly.next = self.ack_newly.val();
                    if self.rack_op.val() {
                        self.rexmit_newly.next = self.sack_new.val() & self.rexmit.val();
                    }
                    self.count.next = self.count_newly.count.val();
                    self.lost.next = self.count_holes.count.val();
                }
            }
            OP_TAKE => {
                if self.take_any.val() {
                    self.ok.next = true;
                    self.out_psn.next = self.una.val() + self.take_step.val();
                    self.n_queued.next = self.queued_in.val() & !self.hot_take.hot.val();
                    self.n_rexmit.next = self.rexmit.val() | self.hot_take.hot.val();
                    self.n_marker.next = self.next_psn.val();
                }
            }
            OP_RTO => {
                self.ok.next = true;
                self.n_queued.next = self.queued_in.val() | self.rto_add.val();
                self.count.next = self.count_newly.count.val();
            }
            OP_HOLD => {
                if self.in_flight.val()
                    & !self.sacked.val().get_bit(self.psn_slot.val().index())
                    & !self.held.val().get_bit(self.psn_slot.val().index())
                {
                    self.ok.next = true;
                    self.n_held.next = self.held.val() | self.hot_psn.hot.val();
                    self.n_queued.next = self.queued_in.val() & !self.hot_psn.hot.val();
                }
            }
            OP_RELEASE => {
                if self.in_flight.val() & self.held.val().get_bit(self.psn_slot.val().index()) {
                    self.n_held.next = self.held.val() & !self.hot_psn.hot.val();
                    if !self.sacked.val().get_bit(self.psn_slot.val().index()) {
                        self.ok.next = true;
                        self.n_queued.next = self.queued_in.val() | self.hot_psn.hot.val();
                    }
                }
            }
            OP_PROBE => {
                if !self.probe_op.val() {
                    // not built: nothing changes
                } else if self.newest_cand.val() {
                    self.ok.next = true;
                    self.out_psn.next = self.next_psn.val() - self.one_psn.val();
                    self.n_queued.next = self.queued_in.val() | self.hot_newest.val();
                } else if self.take_any.val() {
                    self.ok.next = true;
                    self.out_psn.next = self.una.val() + self.take_step.val();
                    self.n_queued.next = self.queued_in.val() | self.hot_take.hot.val();
                }
            }
            OP_LOSE => {
                if self.rack_op.val() & self.psn_cand.val() {
                    self.ok.next = true;
                    self.n_queued.next = self.queued_in.val() | self.hot_psn.hot.val();
                }
            }
            _ => {}
        }
        // FIRST and AFTER: the candidate found (the state is unchanged).
        if self.rack_op.val()
            & ((self.op.val() == self.OP_FIRST.val()) | (self.op.val() == self.OP_AFTER.val()))
            & self.take_any.val()
        {
            self.ok.next = true;
            self.out_psn.next = self.una.val() + self.take_step.val();
            self.resent.next = (self.rexmit.val() & self.hot_take.hot.val()).any();
        }
        self.new_state.next.next_psn = self.n_next.val();
        self.new_state.next.una = self.n_una.val();
        self.new_state.next.marker = self.n_marker.val();
        self.new_state.next.sacked = self.n_sacked.val() & self.in_window.val();
        self.new_state.next.queued = self.n_queued.val() & self.in_window.val();
        self.new_state.next.rexmit = self.n_rexmit.val() & self.in_window.val();
        self.new_state.next.held = self.n_held.val() & self.in_window.val();

        // The path after the operation.
        self.n_span.next = self.n_next.val() - self.n_una.val();
        self.count_unacked.v.next = self.n_flight.val() & !self.n_sacked.val();
        self.outstanding.next = self.count_unacked.count.val();
        self.queued.next = (self.n_queued.val() & self.n_flight.val()).any();
        self.can_send.next = self.n_span.val() != self.window.val();
    }
}

/// The scheduler's per-path state for 2^K paths, each with a window of W
/// PSNs (a power of two, at most 256: the build's packets in flight per
/// path; slots are PSN mod W, and the bitmaps' bits above W are constant).
#[derive(LogicBlock, Default)]
pub struct Retx<const K: usize, const W: usize = SACK_WINDOW, const P: bool = true, const R: bool = true> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_op: Signal<In, Bits<OP_BITS>>,
    pub in_key: Signal<In, Bits<K>>,
    pub in_psn: Signal<In, Bits<PSN_BITS>>,
    pub in_sack: Signal<In, Bits<SACK_WINDOW>>,
    pub in_resent_rule: Signal<In, bool>,
    pub out_valid: Signal<Out, bool>,
    pub out_key: Signal<Out, Bits<K>>,
    pub out_op: Signal<Out, Bits<OP_BITS>>,
    pub out_ok: Signal<Out, bool>,
    pub out_psn: Signal<Out, Bits<PSN_BITS>>,
    pub out_newly: Signal<Out, Bits<SACK_WINDOW>>,
    pub out_rexmit: Signal<Out, Bits<SACK_WINDOW>>,
    pub out_resent: Signal<Out, bool>,
    pub out_count: Signal<Out, Bits<9>>,
    pub out_lost: Signal<Out, Bits<9>>,
    pub out_outstanding: Signal<Out, Bits<9>>,
    pub out_queued: Signal<Out, bool>,
    pub out_can_send: Signal<Out, bool>,
    core: RetxCore<W, P, R>,
    store: KeyedState<K, STATE_BITS>,
    s1_op: DFF<Bits<OP_BITS>>,
    s1_psn: DFF<Bits<PSN_BITS>>,
    s1_sack: DFF<Bits<SACK_WINDOW>>,
    s1_rule: DFF<bool>,
    o_valid: DFF<bool>,
    o_key: DFF<Bits<K>>,
    o_op: DFF<Bits<OP_BITS>>,
    o_ok: DFF<bool>,
    o_psn: DFF<Bits<PSN_BITS>>,
    o_newly: DFF<Bits<SACK_WINDOW>>,
    o_rexmit: DFF<Bits<SACK_WINDOW>>,
    o_resent: DFF<bool>,
    o_count: DFF<Bits<9>>,
    o_lost: DFF<Bits<9>>,
    o_outstanding: DFF<Bits<9>>,
    o_queued: DFF<bool>,
    o_can_send: DFF<bool>,
}

impl<const K: usize, const W: usize, const P: bool, const R: bool> Logic for Retx<K, W, P, R> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_op,
            s1_psn,
            s1_sack,
            s1_rule,
            o_valid,
            o_key,
            o_op,
            o_ok,
            o_psn,
            o_newly,
            o_rexmit,
            o_resent,
            o_count,
            o_lost,
            o_outstanding,
            o_queued,
            o_can_send
        );
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.store.rd_valid.next = self.in_valid.val();
        self.store.rd_key.next = self.in_key.val();
        self.s1_op.d.next = self.in_op.val();
        self.s1_psn.d.next = self.in_psn.val();
        self.s1_sack.d.next = self.in_sack.val();
        self.s1_rule.d.next = self.in_resent_rule.val();

        self.core.state.next = self.store.state.val();
        self.core.op.next = self.s1_op.q.val();
        self.core.psn.next = self.s1_psn.q.val();
        self.core.sack.next = self.s1_sack.q.val();
        self.core.resent_rule.next = self.s1_rule.q.val();
        self.store.wr_valid.next = true;
        self.store.wr_state.next = self.core.new_state.val().into();

        self.o_valid.d.next = self.store.s1_valid.val();
        self.o_key.d.next = self.store.s1_key.val();
        self.o_op.d.next = self.s1_op.q.val();
        self.o_ok.d.next = self.core.ok.val();
        self.o_psn.d.next = self.core.out_psn.val();
        self.o_newly.d.next = self.core.newly.val();
        self.o_rexmit.d.next = self.core.rexmit_newly.val();
        self.o_resent.d.next = self.core.resent.val();
        self.o_count.d.next = self.core.count.val();
        self.o_lost.d.next = self.core.lost.val();
        self.o_outstanding.d.next = self.core.outstanding.val();
        self.o_queued.d.next = self.core.queued.val();
        self.o_can_send.d.next = self.core.can_send.val();
        if self.reset.val() {
            self.o_valid.d.next = false;
        }

        self.ready.next = self.store.ready.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_key.next = self.o_key.q.val();
        self.out_op.next = self.o_op.q.val();
        self.out_ok.next = self.o_ok.q.val();
        self.out_psn.next = self.o_psn.q.val();
        self.out_newly.next = self.o_newly.q.val();
        self.out_rexmit.next = self.o_rexmit.q.val();
        self.out_resent.next = self.o_resent.q.val();
        self.out_count.next = self.o_count.q.val();
        self.out_lost.next = self.o_lost.q.val();
        self.out_outstanding.next = self.o_outstanding.q.val();
        self.out_queued.next = self.o_queued.q.val();
        self.out_can_send.next = self.o_can_send.q.val();
    }
}
