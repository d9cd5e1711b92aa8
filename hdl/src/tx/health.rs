//! `health`: per-path loss epochs and timeout runs, deciding re-pathing and
//! retirement. Reference: `ferroce_proto::model::health::Health`.
//!
//! Ports (`clock`; `reset` synchronous, active high; 2^K path keys):
//! * `ready` (out): low during the 2^K-cycle clearing sweep after reset.
//! * `in_valid`, `in_op` (`params::HEALTH_OP_SENT`, `HEALTH_OP_ACK`,
//!   `HEALTH_OP_RTO`), `in_key`, `in_newly` and `in_lost` (ACK),
//!   `in_repath_after` and `in_retire_after` (RTO): one event per cycle.
//! * Two cycles later: `out_valid`, `out_key`, `out_repath` (move the path
//!   to a new source port), `out_retired` (the path takes no new data),
//!   and the path's losses in its epoch and timeouts in a row after the
//!   event (`out_lost`, `out_rtos`: what a repair's route is chosen by).
//!
//! Counters are 16 bits (epoch) and 8 bits (timeout run), saturating.
//! Cycle t: the key's state is read (`KeyedState`); t+1: the event is
//! applied and written back; t+2: the result is out.

use rust_hdl::prelude::*;

use ferroce_proto::model::health::EPOCH;
use ferroce_proto::params::{HEALTH_EPOCH_BITS, HEALTH_OP_ACK, HEALTH_OP_RTO, HEALTH_OP_SENT, HEALTH_RTO_BITS};

use crate::blocks::keyed::KeyedState;
use crate::blocks::{HdlDefault, HdlStruct};

/// Width of `in_newly` and `in_lost`.
const COUNT_BITS: usize = 9;

/// One path's state, from bit 0: {retired, rtos, lost, sent}.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct HealthState {
    /// New packets sent in this epoch.
    pub sent: Bits<HEALTH_EPOCH_BITS>,
    /// Packets found lost in this epoch.
    pub lost: Bits<HEALTH_EPOCH_BITS>,
    /// Timeouts in a row.
    pub rtos: Bits<HEALTH_RTO_BITS>,
    /// The path takes no new data.
    pub retired: bool,
}

/// Bits of one path's state.
pub const STATE_BITS: usize = <HealthState as Synth>::BITS;

impl From<Bits<STATE_BITS>> for HealthState {
    fn from(b: Bits<STATE_BITS>) -> HealthState {
        HealthState {
            sent: b.get_bits::<HEALTH_EPOCH_BITS>(0),
            lost: b.get_bits::<HEALTH_EPOCH_BITS>(HEALTH_EPOCH_BITS),
            rtos: b.get_bits::<HEALTH_RTO_BITS>(2 * HEALTH_EPOCH_BITS),
            retired: b.get_bit(2 * HEALTH_EPOCH_BITS + HEALTH_RTO_BITS),
        }
    }
}

/// An ACK's losses widened to an epoch counter.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct LostWide {
    pub lo: Bits<COUNT_BITS>,
    pub hi: Bits<{ HEALTH_EPOCH_BITS - COUNT_BITS }>,
}

/// Width of `in_loss_shift`: the re-path threshold is epoch / 2^0..7.
pub const LOSS_SHIFT_BITS: usize = 3;

/// Width of an epoch counter shifted left by up to 7 without dropping bits.
pub const LOSS_X_BITS: usize = HEALTH_EPOCH_BITS + (1 << LOSS_SHIFT_BITS) - 1;

/// An epoch counter at the width of [`LOSS_X_BITS`].
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct EpochWide {
    pub lo: Bits<HEALTH_EPOCH_BITS>,
    pub hi: Bits<{ LOSS_X_BITS - HEALTH_EPOCH_BITS }>,
}

/// Health counters for 2^K paths.
#[derive(LogicBlock, HdlDefault)]
#[allow(non_snake_case)]
pub struct PathHealth<const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_op: Signal<In, Bits<2>>,
    pub in_key: Signal<In, Bits<K>>,
    pub in_newly: Signal<In, Bits<COUNT_BITS>>,
    pub in_lost: Signal<In, Bits<COUNT_BITS>>,
    pub in_repath_after: Signal<In, Bits<HEALTH_RTO_BITS>>,
    pub in_retire_after: Signal<In, Bits<HEALTH_RTO_BITS>>,
    /// Re-path when an epoch's losses << this >= its packets
    /// (`Recovery::repath_loss_shift`).
    pub in_loss_shift: Signal<In, Bits<LOSS_SHIFT_BITS>>,
    pub out_valid: Signal<Out, bool>,
    pub out_key: Signal<Out, Bits<K>>,
    pub out_repath: Signal<Out, bool>,
    pub out_retired: Signal<Out, bool>,
    pub out_lost: Signal<Out, Bits<HEALTH_EPOCH_BITS>>,
    pub out_rtos: Signal<Out, Bits<HEALTH_RTO_BITS>>,
    store: KeyedState<K, STATE_BITS>,
    s1_op: DFF<Bits<2>>,
    s1_newly: DFF<Bits<COUNT_BITS>>,
    s1_lost: DFF<Bits<COUNT_BITS>>,
    s1_repath_after: DFF<Bits<HEALTH_RTO_BITS>>,
    s1_retire_after: DFF<Bits<HEALTH_RTO_BITS>>,
    s1_loss_shift: DFF<Bits<LOSS_SHIFT_BITS>>,
    o_valid: DFF<bool>,
    o_key: DFF<Bits<K>>,
    o_repath: DFF<bool>,
    o_retired: DFF<bool>,
    o_lost: DFF<Bits<HEALTH_EPOCH_BITS>>,
    o_rtos: DFF<Bits<HEALTH_RTO_BITS>>,
    st: Signal<Local, HealthState>,
    lost_wide: Signal<Local, LostWide>,
    lost_add: Signal<Local, Bits<HEALTH_EPOCH_BITS>>,
    lost_sum: Signal<Local, Bits<HEALTH_EPOCH_BITS>>,
    lost_sat: Signal<Local, Bits<HEALTH_EPOCH_BITS>>,
    lost_wide_x: Signal<Local, EpochWide>,
    sent_wide: Signal<Local, EpochWide>,
    lost_w: Signal<Local, Bits<LOSS_X_BITS>>,
    lost_x: Signal<Local, Bits<LOSS_X_BITS>>,
    sent_x: Signal<Local, Bits<LOSS_X_BITS>>,
    lossy: Signal<Local, bool>,
    rtos_inc: Signal<Local, Bits<HEALTH_RTO_BITS>>,
    new_st: Signal<Local, HealthState>,
    repath: Signal<Local, bool>,
    #[constant(HEALTH_OP_SENT as u64)]
    HEALTH_OP_SENT: Constant<Bits<2>>,
    #[constant(HEALTH_OP_ACK as u64)]
    HEALTH_OP_ACK: Constant<Bits<2>>,
    #[constant(HEALTH_OP_RTO as u64)]
    HEALTH_OP_RTO: Constant<Bits<2>>,
    #[constant(EPOCH as u64)]
    epoch: Constant<Bits<HEALTH_EPOCH_BITS>>,
    #[constant(1u64)]
    one_epoch: Constant<Bits<HEALTH_EPOCH_BITS>>,
    #[constant(0u64)]
    zero_epoch: Constant<Bits<HEALTH_EPOCH_BITS>>,
    #[constant(0u64)]
    zero_lost_hi: Constant<Bits<{ HEALTH_EPOCH_BITS - COUNT_BITS }>>,
    #[constant(0u64)]
    zero_x_hi: Constant<Bits<{ LOSS_X_BITS - HEALTH_EPOCH_BITS }>>,
    #[constant(1u64)]
    one_rto: Constant<Bits<HEALTH_RTO_BITS>>,
    #[constant(0u64)]
    zero_rto: Constant<Bits<HEALTH_RTO_BITS>>,
}

impl<const K: usize> Logic for PathHealth<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_op,
            s1_newly,
            s1_lost,
            s1_repath_after,
            s1_retire_after,
            s1_loss_shift,
            o_valid,
            o_key,
            o_repath,
            o_retired,
            o_lost,
            o_rtos
        );
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.store.rd_valid.next = self.in_valid.val();
        self.store.rd_key.next = self.in_key.val();
        self.s1_op.d.next = self.in_op.val();
        self.s1_newly.d.next = self.in_newly.val();
        self.s1_lost.d.next = self.in_lost.val();
        self.s1_repath_after.d.next = self.in_repath_after.val();
        self.s1_retire_after.d.next = self.in_retire_after.val();
        self.s1_loss_shift.d.next = self.in_loss_shift.val();

        // The event against the state read in the previous cycle.
        self.st.next = self.store.state.val().into();
        // lost + the ACK's losses, saturating (the carry of the 16-bit sum).
        self.lost_wide.next.lo = self.s1_lost.q.val();
        self.lost_wide.next.hi = self.zero_lost_hi.val();
        self.lost_add.next = self.lost_wide.val().into();
        self.lost_sum.next = self.st.val().lost + self.lost_add.val();
        if self.lost_sum.val() < self.st.val().lost {
            self.lost_sat.next = !self.zero_epoch.val();
        } else {
            self.lost_sat.next = self.lost_sum.val();
        }
        // Enough of the epoch lost: lost << shift >= sent, unclipped.
        self.lost_wide_x.next.lo = self.lost_sat.val();
        self.lost_wide_x.next.hi = self.zero_x_hi.val();
        self.lost_w.next = self.lost_wide_x.val().into();
        self.lost_x.next = self.lost_w.val() << self.s1_loss_shift.q.val();
        self.sent_wide.next.lo = self.st.val().sent;
        self.sent_wide.next.hi = self.zero_x_hi.val();
        self.sent_x.next = self.sent_wide.val().into();
        self.lossy.next = self.lost_x.val() >= self.sent_x.val();
        if self.st.val().rtos.all() {
            self.rtos_inc.next = self.st.val().rtos;
        } else {
            self.rtos_inc.next = self.st.val().rtos + self.one_rto.val();
        }

        self.new_st.next = self.st.val();
        self.repath.next = false;
        match self.s1_op.q.val().index() {
            HEALTH_OP_SENT => {
                if !self.st.val().sent.all() {
                    self.new_st.next.sent = self.st.val().sent + self.one_epoch.val();
                }
            }
            HEALTH_OP_ACK => {
                self.new_st.next.lost = self.lost_sat.val();
                if self.s1_newly.q.val().any() {
                    self.new_st.next.rtos = self.zero_rto.val();
                    self.new_st.next.retired = false;
                }
                if self.st.val().sent >= self.epoch.val() {
                    self.repath.next = self.lossy.val();
                    self.new_st.next.sent = self.zero_epoch.val();
                    self.new_st.next.lost = self.zero_epoch.val();
                }
            }
            HEALTH_OP_RTO => {
                self.new_st.next.rtos = self.rtos_inc.val();
                if self.rtos_inc.val() >= self.s1_retire_after.q.val() {
                    self.new_st.next.retired = true;
                }
                self.repath.next = self.rtos_inc.val() >= self.s1_repath_after.q.val();
            }
            _ => {}
        }
        self.store.wr_valid.next = true;
        self.store.wr_state.next = self.new_st.val().into();

        self.o_valid.d.next = self.store.s1_valid.val();
        self.o_key.d.next = self.store.s1_key.val();
        self.o_repath.d.next = self.repath.val();
        self.o_retired.d.next = self.new_st.val().retired;
        self.o_lost.d.next = self.new_st.val().lost;
        self.o_rtos.d.next = self.new_st.val().rtos;
        if self.reset.val() {
            self.o_valid.d.next = false;
        }
        self.ready.next = self.store.ready.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_key.next = self.o_key.q.val();
        self.out_repath.next = self.o_repath.q.val();
        self.out_retired.next = self.o_retired.q.val();
        self.out_lost.next = self.o_lost.q.val();
        self.out_rtos.next = self.o_rtos.q.val();
    }
}
