//! `pacer`: per-connection pacing. Reference:
//! `ferroce_proto::model::cc::Pacer`.
//!
//! For each of 2^K connections block RAM holds `due` (when the next packet
//! may leave, 48.16 fixed point) and the cost of a byte (16.16). Time is a
//! 48-bit cycle count.
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `ready` (out): low during the 2^K-cycle clearing sweep after reset.
//! * `in_valid`, `in_op` (`params::PACER_OP_LOAD`: start at `in_cost`,
//!   `PACER_OP_SET`: change the cost, `PACER_OP_SEND`: `in_bytes` left at
//!   `in_now`, `PACER_OP_QUERY`), `in_key`, `in_now`, `in_cost`,
//!   `in_bytes`: one operation per cycle.
//! * Two cycles later: `out_valid`, `out_key`, `out_may` (a packet may leave
//!   at `in_now`, judged before the operation) and `out_ready_at` (the
//!   first cycle at which one may, after it).
//!
//! Cycle t: the connection's state is read (`KeyedState`); t+1: the
//! operation is applied and written back; t+2: the result is out.

use std::ops::Mul;

use rust_hdl::prelude::*;

use ferroce_proto::model::cc::Pacer as PacerModel;
use ferroce_proto::params::{PACER_OP_LOAD, PACER_OP_QUERY, PACER_OP_SEND, PACER_OP_SET, PACER_TIME_BITS};

use crate::blocks::keyed::KeyedState;
use crate::blocks::{HdlDefault, HdlStruct};

/// Fraction bits of times and costs.
const FRAC: usize = PacerModel::FRAC as usize;
/// Width of a fixed-point time.
const TIME_Q: usize = PACER_TIME_BITS + FRAC;
/// Width of the cost of a byte (16.16).
const COST_BITS: usize = 32;
/// Width of `in_bytes`.
const BYTES_BITS: usize = 14;
/// Width of cost x bytes.
const SPEND_BITS: usize = COST_BITS + BYTES_BITS;

/// One connection's state, from bit 0: {cost, due} (`due` is the
/// model's `next_q`).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct PacerState {
    /// When the next packet may leave (fixed point).
    pub due: Bits<TIME_Q>,
    /// Cost of a byte (fixed point).
    pub cost: Bits<COST_BITS>,
}

/// Bits of one connection's state.
pub const STATE_BITS: usize = <PacerState as Synth>::BITS;

impl From<Bits<STATE_BITS>> for PacerState {
    fn from(b: Bits<STATE_BITS>) -> PacerState {
        PacerState { due: b.get_bits::<TIME_Q>(0), cost: b.get_bits::<COST_BITS>(TIME_Q) }
    }
}

/// A fixed-point time: {whole, frac}.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct TimeFixed {
    pub frac: Bits<FRAC>,
    pub whole: Bits<PACER_TIME_BITS>,
}

impl From<Bits<TIME_Q>> for TimeFixed {
    fn from(b: Bits<TIME_Q>) -> TimeFixed {
        TimeFixed { frac: b.get_bits::<FRAC>(0), whole: b.get_bits::<PACER_TIME_BITS>(FRAC) }
    }
}

/// The cost zero-extended to the product's width.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct CostWide {
    pub lo: Bits<COST_BITS>,
    pub hi: Bits<BYTES_BITS>,
}

/// The byte count zero-extended to the product's width.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct BytesWide {
    pub lo: Bits<BYTES_BITS>,
    pub hi: Bits<COST_BITS>,
}

/// The product zero-extended to a fixed-point time.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct SpendWide {
    pub lo: Bits<SPEND_BITS>,
    pub hi: Bits<{ TIME_Q - SPEND_BITS }>,
}

/// cost x bytes, both operands and the product at one width: rust-hdl's
/// `Bits` multiplies only 16 x 16, and `#[hdl_gen]` writes `a * b`, which
/// at equal widths is exact and lint-clean (the operands' zero high bits
/// let synthesis shrink it to 32 x 14).
impl Mul<BytesWide> for CostWide {
    type Output = Bits<SPEND_BITS>;

    fn mul(self, rhs: BytesWide) -> Bits<SPEND_BITS> {
        let a = Bits::<SPEND_BITS>::from(self).to_u64() as u128;
        let b = Bits::<SPEND_BITS>::from(rhs).to_u64() as u128;
        (((a * b) & ((1u128 << SPEND_BITS) - 1)) as u64).into()
    }
}

/// Pacers for 2^K connections.
#[derive(LogicBlock, HdlDefault)]
#[allow(non_snake_case)]
pub struct Pacer<const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_op: Signal<In, Bits<2>>,
    pub in_key: Signal<In, Bits<K>>,
    pub in_now: Signal<In, Bits<PACER_TIME_BITS>>,
    pub in_cost: Signal<In, Bits<COST_BITS>>,
    pub in_bytes: Signal<In, Bits<BYTES_BITS>>,
    pub out_valid: Signal<Out, bool>,
    pub out_key: Signal<Out, Bits<K>>,
    pub out_may: Signal<Out, bool>,
    pub out_ready_at: Signal<Out, Bits<PACER_TIME_BITS>>,
    store: KeyedState<K, STATE_BITS>,
    s1_op: DFF<Bits<2>>,
    s1_now: DFF<Bits<PACER_TIME_BITS>>,
    s1_cost: DFF<Bits<COST_BITS>>,
    s1_bytes: DFF<Bits<BYTES_BITS>>,
    o_valid: DFF<bool>,
    o_key: DFF<Bits<K>>,
    o_may: DFF<bool>,
    o_ready_at: DFF<Bits<PACER_TIME_BITS>>,
    st: Signal<Local, PacerState>,
    now_fixed: Signal<Local, TimeFixed>,
    now_q: Signal<Local, Bits<TIME_Q>>,
    may_now: Signal<Local, bool>,
    start: Signal<Local, Bits<TIME_Q>>,
    cost_wide: Signal<Local, CostWide>,
    bytes_wide: Signal<Local, BytesWide>,
    spend: Signal<Local, Bits<SPEND_BITS>>,
    spend_wide: Signal<Local, SpendWide>,
    spend_q: Signal<Local, Bits<TIME_Q>>,
    new_st: Signal<Local, PacerState>,
    due_fixed: Signal<Local, TimeFixed>,
    round_up: Signal<Local, Bits<PACER_TIME_BITS>>,
    #[constant(PACER_OP_LOAD as u64)]
    PACER_OP_LOAD: Constant<Bits<2>>,
    #[constant(PACER_OP_SET as u64)]
    PACER_OP_SET: Constant<Bits<2>>,
    #[constant(PACER_OP_SEND as u64)]
    PACER_OP_SEND: Constant<Bits<2>>,
    #[constant(PACER_OP_QUERY as u64)]
    PACER_OP_QUERY: Constant<Bits<2>>,
    #[constant(0u64)]
    zero_frac: Constant<Bits<FRAC>>,
    #[constant(0u64)]
    zero_time_q: Constant<Bits<TIME_Q>>,
    #[constant(0u64)]
    zero_cost_hi: Constant<Bits<BYTES_BITS>>,
    #[constant(0u64)]
    zero_bytes_hi: Constant<Bits<COST_BITS>>,
    #[constant(0u64)]
    zero_spend_hi: Constant<Bits<{ TIME_Q - SPEND_BITS }>>,
    #[constant(1u64)]
    one_time: Constant<Bits<PACER_TIME_BITS>>,
    #[constant(0u64)]
    zero_time: Constant<Bits<PACER_TIME_BITS>>,
}

impl<const K: usize> Logic for Pacer<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_op, s1_now, s1_cost, s1_bytes, o_valid, o_key, o_may, o_ready_at);
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.store.rd_valid.next = self.in_valid.val();
        self.store.rd_key.next = self.in_key.val();
        self.s1_op.d.next = self.in_op.val();
        self.s1_now.d.next = self.in_now.val();
        self.s1_cost.d.next = self.in_cost.val();
        self.s1_bytes.d.next = self.in_bytes.val();

        // The operation against the state read in the previous cycle.
        self.st.next = self.store.state.val().into();
        self.now_fixed.next.frac = self.zero_frac.val();
        self.now_fixed.next.whole = self.s1_now.q.val();
        self.now_q.next = self.now_fixed.val().into();
        self.may_now.next = self.now_q.val() >= self.st.val().due;
        // Idle time is not banked: a packet leaves at max(now, due).
        if self.may_now.val() {
            self.start.next = self.now_q.val();
        } else {
            self.start.next = self.st.val().due;
        }
        self.cost_wide.next.lo = self.st.val().cost;
        self.cost_wide.next.hi = self.zero_cost_hi.val();
        self.bytes_wide.next.lo = self.s1_bytes.q.val();
        self.bytes_wide.next.hi = self.zero_bytes_hi.val();
        self.spend.next = self.cost_wide.val() * self.bytes_wide.val();
        self.spend_wide.next.lo = self.spend.val();
        self.spend_wide.next.hi = self.zero_spend_hi.val();
        self.spend_q.next = self.spend_wide.val().into();

        self.new_st.next = self.st.val();
        match self.s1_op.q.val().index() {
            PACER_OP_LOAD => {
                self.new_st.next.due = self.zero_time_q.val();
                self.new_st.next.cost = self.s1_cost.q.val();
            }
            PACER_OP_SET => {
                self.new_st.next.cost = self.s1_cost.q.val();
            }
            PACER_OP_SEND => {
                self.new_st.next.due = self.start.val() + self.spend_q.val();
            }
            PACER_OP_QUERY => {}
            _ => {}
        }
        self.store.wr_valid.next = true;
        self.store.wr_state.next = self.new_st.val().into();

        // ceil(due / 2^FRAC): the whole part, plus one if any fraction.
        self.due_fixed.next = self.new_st.val().due.into();
        if self.due_fixed.val().frac.any() {
            self.round_up.next = self.one_time.val();
        } else {
            self.round_up.next = self.zero_time.val();
        }
        self.o_valid.d.next = self.store.s1_valid.val();
        self.o_key.d.next = self.store.s1_key.val();
        self.o_may.d.next = self.may_now.val();
        self.o_ready_at.d.next = self.due_fixed.val().whole + self.round_up.val();
        if self.reset.val() {
            self.o_valid.d.next = false;
        }
        self.ready.next = self.store.ready.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_key.next = self.o_key.q.val();
        self.out_may.next = self.o_may.q.val();
        self.out_ready_at.next = self.o_ready_at.q.val();
    }
}
