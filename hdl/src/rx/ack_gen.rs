//! `ack_gen`: per-path ACK coalescing. Reference:
//! `ferroce_proto::model::ackgen::AckState`.
//!
//! Ports (`clock`; `reset` synchronous, active high; 2^K path keys):
//! * `ready` (out): low during the clearing sweep after reset.
//! * `in_valid`, `in_op` (0 packet, 1 timer fired), `in_key`, `in_urgent`
//!   (the sender asked, a duplicate, beyond the window or a new hole),
//!   `in_ce` (the packet was CE-marked), `in_ack_every`.
//! * Two cycles later: `out_valid`, `out_key`, `out_action` (0 wait, 1 arm
//!   the ACK timer, 2 send an ACK now) with `out_pending` and `out_ce` for
//!   the ACK.
//!
//! Each path's state ([`AckSlot`]) lives in a `KeyedState`: read in the
//! cycle after the event, updated and written back in the same cycle, the
//! outputs registered once more.

use rust_hdl::prelude::*;

use crate::blocks::keyed::KeyedState;
use crate::blocks::{HdlDefault, HdlStruct};

/// One path's coalescing state (packed from bit 0: pending, ce, armed).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct AckSlot {
    /// Packets not yet acknowledged (saturating).
    pub pending: Bits<16>,
    /// CE-marked packets among them (saturating).
    pub ce: Bits<16>,
    /// The ACK timer is armed.
    pub armed: bool,
}

/// Bits of one path's state: {armed, ce[15:0], pending[15:0]}.
pub const STATE_BITS: usize = <AckSlot as Synth>::BITS;

/// `out_action` codes.
pub mod action {
    pub const WAIT: u64 = 0;
    pub const ARM: u64 = 1;
    pub const NOW: u64 = 2;
}

/// Coalescing state for 2^K paths.
#[derive(LogicBlock, HdlDefault)]
pub struct AckGen<const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_op: Signal<In, bool>,
    pub in_key: Signal<In, Bits<K>>,
    pub in_urgent: Signal<In, bool>,
    pub in_ce: Signal<In, bool>,
    pub in_ack_every: Signal<In, Bits<16>>,
    pub out_valid: Signal<Out, bool>,
    pub out_key: Signal<Out, Bits<K>>,
    pub out_action: Signal<Out, Bits<2>>,
    pub out_pending: Signal<Out, Bits<16>>,
    pub out_ce: Signal<Out, Bits<16>>,
    store: KeyedState<K, STATE_BITS>,
    s1_timer: DFF<bool>,
    s1_urgent: DFF<bool>,
    s1_ce: DFF<bool>,
    s1_every: DFF<Bits<16>>,
    o_valid: DFF<bool>,
    o_key: DFF<Bits<K>>,
    o_action: DFF<Bits<2>>,
    o_pending: DFF<Bits<16>>,
    o_ce: DFF<Bits<16>>,
    pending: Signal<Local, Bits<16>>,
    ce: Signal<Local, Bits<16>>,
    armed: Signal<Local, bool>,
    /// `pending` and `ce` counting this packet.
    pending1: Signal<Local, Bits<16>>,
    ce1: Signal<Local, Bits<16>>,
    new_state: Signal<Local, AckSlot>,
    // Field offsets of AckSlot in the stored word.
    #[constant(AckSlot::default().get_my_offset_pending() as u64)]
    pending_at: Constant<Bits<6>>,
    #[constant(AckSlot::default().get_my_offset_ce() as u64)]
    ce_at: Constant<Bits<6>>,
    #[constant(AckSlot::default().get_my_offset_armed() as u64)]
    armed_at: Constant<Bits<6>>,
    #[constant(1u64)]
    one16: Constant<Bits<16>>,
    #[constant(0u64)]
    zero16: Constant<Bits<16>>,
    #[constant(action::WAIT)]
    act_wait: Constant<Bits<2>>,
    #[constant(action::ARM)]
    act_arm: Constant<Bits<2>>,
    #[constant(action::NOW)]
    act_now: Constant<Bits<2>>,
}

impl<const K: usize> Logic for AckGen<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_timer, s1_urgent, s1_ce, s1_every, o_valid, o_key, o_action, o_pending, o_ce);
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.store.rd_valid.next = self.in_valid.val();
        self.store.rd_key.next = self.in_key.val();
        self.s1_timer.d.next = self.in_op.val();
        self.s1_urgent.d.next = self.in_urgent.val();
        self.s1_ce.d.next = self.in_ce.val();
        self.s1_every.d.next = self.in_ack_every.val();

        // The event, one cycle later, against the path's state.
        self.pending.next = self.store.state.val().get_bits::<16>(self.pending_at.val().index());
        self.ce.next = self.store.state.val().get_bits::<16>(self.ce_at.val().index());
        self.armed.next = self.store.state.val().get_bit(self.armed_at.val().index());
        if self.pending.val().all() {
            self.pending1.next = self.pending.val();
        } else {
            self.pending1.next = self.pending.val() + self.one16.val();
        }
        if self.s1_ce.q.val() & !self.ce.val().all() {
            self.ce1.next = self.ce.val() + self.one16.val();
        } else {
            self.ce1.next = self.ce.val();
        }
        self.o_action.d.next = self.act_wait.val();
        self.o_pending.d.next = self.zero16.val();
        self.o_ce.d.next = self.zero16.val();
        self.new_state.next.pending = self.pending.val();
        self.new_state.next.ce = self.ce.val();
        self.new_state.next.armed = self.armed.val();
        if self.s1_timer.q.val() {
            if self.armed.val() {
                self.o_action.d.next = self.act_now.val();
                self.o_pending.d.next = self.pending.val();
                self.o_ce.d.next = self.ce.val();
                self.new_state.next.pending = self.zero16.val();
                self.new_state.next.ce = self.zero16.val();
                self.new_state.next.armed = false;
            }
        } else if self.s1_urgent.q.val() | (self.pending1.val() >= self.s1_every.q.val()) {
            self.o_action.d.next = self.act_now.val();
            self.o_pending.d.next = self.pending1.val();
            self.o_ce.d.next = self.ce1.val();
            self.new_state.next.pending = self.zero16.val();
            self.new_state.next.ce = self.zero16.val();
            self.new_state.next.armed = false;
        } else {
            if !self.armed.val() {
                self.o_action.d.next = self.act_arm.val();
            }
            self.new_state.next.pending = self.pending1.val();
            self.new_state.next.ce = self.ce1.val();
            self.new_state.next.armed = true;
        }
        self.store.wr_valid.next = true;
        self.store.wr_state.next = self.new_state.val().into();

        self.o_valid.d.next = self.store.s1_valid.val();
        self.o_key.d.next = self.store.s1_key.val();
        if self.reset.val() {
            self.o_valid.d.next = false;
        }
        self.ready.next = self.store.ready.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_key.next = self.o_key.q.val();
        self.out_action.next = self.o_action.q.val();
        self.out_pending.next = self.o_pending.q.val();
        self.out_ce.next = self.o_ce.q.val();
    }
}
