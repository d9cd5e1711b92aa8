//! `cc`: per-path congestion window, AIMD on ECN echo.
//! Reference: `ferroce_proto::model::cc::Window`.
//!
//! Ports (`clock`; `reset` synchronous, active high; 2^K path keys):
//! * `ready` (out): low during the 2^K-cycle clearing sweep after reset.
//! * `in_valid`, `in_op` (`params::CC_OP_ACK` or `CC_OP_LOAD`), `in_key`:
//!   one operation per cycle, no back-pressure. An ACK carries `in_newly`
//!   (packets newly acknowledged), `in_ce` (CE marks echoed),
//!   `in_outstanding` (packets still unacknowledged), `in_srtt` and `in_now`
//!   (one time unit, 32-bit wrapping) and `in_max` (window cap). A load
//!   starts the key at `in_max` (at least one packet).
//! * `out_valid`, `out_key`, `out_cwnd`, `out_cut`: two cycles after each
//!   ACK, the window after it and whether it was halved. Loads produce no
//!   output.
//!
//! Cycle t: the key's state is read (`KeyedState`); t+1: the ACK is applied
//! and written back; t+2: the result is out. Back-to-back operations on one
//! key see each other (the store forwards its last write).

use rust_hdl::prelude::*;

use ferroce_proto::params::{CC_OP_LOAD, CWND_BITS};

use crate::blocks::keyed::KeyedState;
use crate::blocks::{HdlDefault, HdlStruct};

/// One key's state, from bit 0: {last_cut[31:0], credit, cwnd}.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct CcState {
    /// Packets the path may have unacknowledged.
    pub cwnd: Bits<CWND_BITS>,
    /// Packets acknowledged since the last increase.
    pub credit: Bits<CWND_BITS>,
    /// When the window was last halved.
    pub last_cut: Bits<32>,
}

/// Bits of one key's state.
pub const STATE_BITS: usize = <CcState as Synth>::BITS;

impl From<Bits<STATE_BITS>> for CcState {
    fn from(b: Bits<STATE_BITS>) -> CcState {
        CcState {
            cwnd: b.get_bits::<CWND_BITS>(0),
            credit: b.get_bits::<CWND_BITS>(CWND_BITS),
            last_cut: b.get_bits::<32>(2 * CWND_BITS),
        }
    }
}

/// A window-sized count zero-extended by one bit, for sums with their carry.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Wide {
    pub lo: Bits<CWND_BITS>,
    pub hi: Bits<1>,
}

/// The window store for 2^K paths.
#[derive(LogicBlock, HdlDefault)]
pub struct Cc<const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_op: Signal<In, bool>,
    pub in_key: Signal<In, Bits<K>>,
    pub in_newly: Signal<In, Bits<CWND_BITS>>,
    pub in_ce: Signal<In, Bits<16>>,
    pub in_outstanding: Signal<In, Bits<CWND_BITS>>,
    pub in_srtt: Signal<In, Bits<32>>,
    pub in_now: Signal<In, Bits<32>>,
    pub in_max: Signal<In, Bits<CWND_BITS>>,
    pub out_valid: Signal<Out, bool>,
    pub out_key: Signal<Out, Bits<K>>,
    pub out_cwnd: Signal<Out, Bits<CWND_BITS>>,
    pub out_cut: Signal<Out, bool>,
    store: KeyedState<K, STATE_BITS>,
    s1_op: DFF<bool>,
    s1_newly: DFF<Bits<CWND_BITS>>,
    s1_ce: DFF<Bits<16>>,
    s1_outstanding: DFF<Bits<CWND_BITS>>,
    s1_srtt: DFF<Bits<32>>,
    s1_now: DFF<Bits<32>>,
    s1_max: DFF<Bits<CWND_BITS>>,
    o_valid: DFF<bool>,
    o_key: DFF<Bits<K>>,
    o_cwnd: DFF<Bits<CWND_BITS>>,
    o_cut: DFF<bool>,
    st: Signal<Local, CcState>,
    load: Signal<Local, bool>,
    marked: Signal<Local, bool>,
    since: Signal<Local, Bits<32>>,
    halve: Signal<Local, bool>,
    halved: Signal<Local, Bits<CWND_BITS>>,
    sum: Signal<Local, Bits<CWND_BITS>>,
    credit_w: Signal<Local, Wide>,
    newly_w: Signal<Local, Wide>,
    cwnd_w: Signal<Local, Wide>,
    sum_w: Signal<Local, Bits<{ CWND_BITS + 1 }>>,
    out_w: Signal<Local, Wide>,
    out1_w: Signal<Local, Bits<{ CWND_BITS + 1 }>>,
    limit_w: Signal<Local, Bits<{ CWND_BITS + 1 }>>,
    half_w: Signal<Local, Bits<{ CWND_BITS + 1 }>>,
    grow: Signal<Local, bool>,
    grown: Signal<Local, Bits<CWND_BITS>>,
    new_st: Signal<Local, CcState>,
    cut: Signal<Local, bool>,
    #[constant(CC_OP_LOAD != 0)]
    op_load: Constant<bool>,
    #[constant(1u64)]
    one: Constant<Bits<CWND_BITS>>,
    #[constant(0u64)]
    zero: Constant<Bits<CWND_BITS>>,
    #[constant(0u64)]
    zero_time: Constant<Bits<32>>,
    #[constant(0u64)]
    zero1: Constant<Bits<1>>,
    #[constant(1u64)]
    one_w: Constant<Bits<{ CWND_BITS + 1 }>>,
}

impl<const K: usize> Logic for Cc<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_op,
            s1_newly,
            s1_ce,
            s1_outstanding,
            s1_srtt,
            s1_now,
            s1_max,
            o_valid,
            o_key,
            o_cwnd,
            o_cut
        );
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.store.rd_valid.next = self.in_valid.val();
        self.store.rd_key.next = self.in_key.val();
        self.s1_op.d.next = self.in_op.val();
        self.s1_newly.d.next = self.in_newly.val();
        self.s1_ce.d.next = self.in_ce.val();
        self.s1_outstanding.d.next = self.in_outstanding.val();
        self.s1_srtt.d.next = self.in_srtt.val();
        self.s1_now.d.next = self.in_now.val();
        self.s1_max.d.next = self.in_max.val();

        // The ACK against the state read in the previous cycle.
        self.st.next = self.store.state.val().into();
        self.load.next = self.s1_op.q.val() == self.op_load.val();
        self.marked.next = self.s1_ce.q.val().any();
        // Wrapping time: the cut is one RTT old once now - last_cut > srtt.
        self.since.next = self.s1_now.q.val() - self.st.val().last_cut;
        self.halve.next = self.marked.val() & (self.since.val() > self.s1_srtt.q.val());
        // min(cwnd, outstanding + 1) / 2, at least one packet (ten bits, so
        // that outstanding + 1 does not wrap).
        self.cwnd_w.next.lo = self.st.val().cwnd;
        self.cwnd_w.next.hi = self.zero1.val();
        self.out_w.next.lo = self.s1_outstanding.q.val();
        self.out_w.next.hi = self.zero1.val();
        self.out1_w.next = Bits::<{ CWND_BITS + 1 }>::from(self.out_w.val()) + self.one_w.val();
        self.limit_w.next = self.out1_w.val();
        if Bits::<{ CWND_BITS + 1 }>::from(self.cwnd_w.val()) < self.out1_w.val() {
            self.limit_w.next = Bits::<{ CWND_BITS + 1 }>::from(self.cwnd_w.val());
        }
        self.half_w.next = self.limit_w.val() >> 1;
        if self.half_w.val().any() {
            self.halved.next = self.half_w.val().get_bits::<CWND_BITS>(0);
        } else {
            self.halved.next = self.one.val();
        }
        // credit + newly >= cwnd, in ten bits.
        self.credit_w.next.lo = self.st.val().credit;
        self.credit_w.next.hi = self.zero1.val();
        self.newly_w.next.lo = self.s1_newly.q.val();
        self.newly_w.next.hi = self.zero1.val();
        self.sum_w.next = Bits::<{ CWND_BITS + 1 }>::from(self.credit_w.val()) + Bits::<{ CWND_BITS + 1 }>::from(self.newly_w.val());
        self.sum.next = self.sum_w.val().get_bits::<CWND_BITS>(0);
        self.grow.next = self.sum_w.val() >= Bits::<{ CWND_BITS + 1 }>::from(self.cwnd_w.val());
        // min(cwnd + 1, max).
        if self.st.val().cwnd >= self.s1_max.q.val() {
            self.grown.next = self.s1_max.q.val();
        } else {
            self.grown.next = self.st.val().cwnd + self.one.val();
        }

        // Each field's next value, in the model's order of cases.
        self.cut.next = false;
        self.new_st.next.last_cut = self.st.val().last_cut;
        self.new_st.next.credit = self.st.val().credit;
        self.new_st.next.cwnd = self.st.val().cwnd;
        if self.load.val() {
            self.new_st.next.last_cut = self.zero_time.val();
            self.new_st.next.credit = self.zero.val();
            if self.s1_max.q.val().any() {
                self.new_st.next.cwnd = self.s1_max.q.val();
            } else {
                self.new_st.next.cwnd = self.one.val();
            }
        } else if self.marked.val() {
            if self.halve.val() {
                self.cut.next = true;
                self.new_st.next.last_cut = self.s1_now.q.val();
                self.new_st.next.credit = self.zero.val();
                self.new_st.next.cwnd = self.halved.val();
            }
        } else if self.s1_newly.q.val().any() {
            if self.grow.val() {
                self.new_st.next.credit = self.zero.val();
                self.new_st.next.cwnd = self.grown.val();
            } else {
                self.new_st.next.credit = self.sum.val();
            }
        }
        self.store.wr_valid.next = true;
        self.store.wr_state.next = self.new_st.val().into();

        self.o_valid.d.next = self.store.s1_valid.val() & !self.load.val();
        self.o_key.d.next = self.store.s1_key.val();
        self.o_cwnd.d.next = self.new_st.val().cwnd;
        self.o_cut.d.next = self.cut.val();
        if self.reset.val() {
            self.o_valid.d.next = false;
        }

        self.ready.next = self.store.ready.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_key.next = self.o_key.q.val();
        self.out_cwnd.next = self.o_cwnd.q.val();
        self.out_cut.next = self.o_cut.q.val();
    }
}
