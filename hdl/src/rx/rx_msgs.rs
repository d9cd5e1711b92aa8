//! `rx_msgs`: message tracking per (connection, stream) at the receiver.
//! Reference: `ferroce_proto::model::msgwin::MsgWindow`.
//!
//! For each of 2^K stream keys, block RAM holds the next message to deliver
//! and `MSG_WINDOW` slots ([`MsgSlot`]), one per message after it: valid,
//! opcode (the low two bits of the wire opcode: WRITE, WRITE with
//! immediate, SEND), failure (a `CompletionStatus` code), length, bytes
//! received (saturating) and immediate.
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `in_valid`, `in_op` (0 packet, 1 pop, 2 clear), `in_key`. A packet
//!   gives `in_seq`, `in_len`, `in_opcode`, `in_imm`, `in_payload`,
//!   `in_fail` and `in_apply` (record it if it passes; low for a packet only
//!   being checked).
//! * Two cycles later: `out_valid`, `out_key`, `out_ok` (packet: it passes
//!   the window and consistency check; `out_began`: it was recorded into a
//!   free slot, the first packet seen of its message), `out_popped` (pop: the next message
//!   was complete and is delivered) with `out_seq`, `out_opcode`, `out_len`,
//!   `out_imm`, `out_fail`.
//!
//! The stream's state is one `KeyedState` word ([`MsgState`]), read in the
//! cycle after the operation and written back in the same cycle; the slot
//! of the packet and the slot of the next message are selected by mux
//! loops, and only the slot an operation changes is rebuilt.

use ferroce_proto::params::MSG_WINDOW;
use ferroce_proto::transport::CompletionStatus;
use rust_hdl::prelude::*;

use crate::blocks::keyed::KeyedState;
use crate::blocks::{index_bits, HdlDefault, HdlStruct};

/// One message slot (packed from bit 0).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct MsgSlot {
    pub valid: bool,
    pub opcode: Bits<2>,
    pub fail: Bits<2>,
    pub len: Bits<32>,
    pub recv: Bits<32>,
    pub imm: Bits<32>,
}

/// Bits of one slot: {imm, recv, len, fail[1:0], opcode[1:0], valid}.
pub const SLOT_BITS: usize = <MsgSlot as Synth>::BITS;
/// Slots per stream.
pub const SLOTS: usize = MSG_WINDOW;
/// Bits of a slot index (`seq mod SLOTS`).
pub const SLOT_INDEX_BITS: usize = SLOTS.trailing_zeros() as usize;
const _: () = assert!(1 << SLOT_INDEX_BITS == SLOTS);

/// One stream's state: the next message to deliver, then the slots.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct MsgState {
    pub next_seq: Bits<32>,
    pub s0: Bits<SLOT_BITS>,
    pub s1: Bits<SLOT_BITS>,
    pub s2: Bits<SLOT_BITS>,
    pub s3: Bits<SLOT_BITS>,
    pub s4: Bits<SLOT_BITS>,
    pub s5: Bits<SLOT_BITS>,
    pub s6: Bits<SLOT_BITS>,
    pub s7: Bits<SLOT_BITS>,
    pub s8: Bits<SLOT_BITS>,
    pub s9: Bits<SLOT_BITS>,
    pub s10: Bits<SLOT_BITS>,
    pub s11: Bits<SLOT_BITS>,
    pub s12: Bits<SLOT_BITS>,
    pub s13: Bits<SLOT_BITS>,
    pub s14: Bits<SLOT_BITS>,
    pub s15: Bits<SLOT_BITS>,
}
// MsgState lists one field per slot.
const _: () = assert!(SLOTS == 16);

/// Bits of one stream's state: {slots, next[31:0]}.
pub const STATE_BITS: usize = <MsgState as Synth>::BITS;

const STATE_AT_BITS: usize = index_bits(STATE_BITS);
const SLOT_AT_BITS: usize = index_bits(SLOT_BITS);

/// Zero-extensions to 33 bits, for the saturating byte count.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Ext32 {
    pub lo: Bits<32>,
    pub hi: Bits<1>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Ext16 {
    pub lo: Bits<16>,
    pub hi: Bits<17>,
}

/// `in_op` codes.
pub mod op {
    pub const PACKET: u64 = 0;
    pub const POP: u64 = 1;
    pub const CLEAR: u64 = 2;
}

fn slot_offset(i: usize) -> u64 {
    (MsgState::default().get_my_offset_s0() as usize + SLOT_BITS * i) as u64
}

/// Message tracking for 2^K streams.
#[derive(LogicBlock, HdlDefault)]
pub struct RxMsgs<const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_op: Signal<In, Bits<2>>,
    pub in_key: Signal<In, Bits<K>>,
    pub in_seq: Signal<In, Bits<32>>,
    pub in_len: Signal<In, Bits<32>>,
    pub in_opcode: Signal<In, Bits<2>>,
    pub in_imm: Signal<In, Bits<32>>,
    pub in_payload: Signal<In, Bits<16>>,
    pub in_fail: Signal<In, Bits<2>>,
    pub in_apply: Signal<In, bool>,
    pub out_valid: Signal<Out, bool>,
    pub out_key: Signal<Out, Bits<K>>,
    pub out_ok: Signal<Out, bool>,
    pub out_popped: Signal<Out, bool>,
    pub out_began: Signal<Out, bool>,
    pub out_seq: Signal<Out, Bits<32>>,
    pub out_opcode: Signal<Out, Bits<2>>,
    pub out_len: Signal<Out, Bits<32>>,
    pub out_imm: Signal<Out, Bits<32>>,
    pub out_fail: Signal<Out, Bits<2>>,
    store: KeyedState<K, STATE_BITS>,
    s1_op: DFF<Bits<2>>,
    s1_seq: DFF<Bits<32>>,
    s1_len: DFF<Bits<32>>,
    s1_opcode: DFF<Bits<2>>,
    s1_imm: DFF<Bits<32>>,
    s1_payload: DFF<Bits<16>>,
    s1_fail: DFF<Bits<2>>,
    s1_apply: DFF<bool>,
    o_valid: DFF<bool>,
    o_key: DFF<Bits<K>>,
    o_ok: DFF<bool>,
    o_popped: DFF<bool>,
    o_began: DFF<bool>,
    o_seq: DFF<Bits<32>>,
    o_opcode: DFF<Bits<2>>,
    o_len: DFF<Bits<32>>,
    o_imm: DFF<Bits<32>>,
    o_fail: DFF<Bits<2>>,
    next_seq: Signal<Local, Bits<32>>,
    /// The packet's slot and the next message's slot.
    si: Signal<Local, Bits<SLOT_INDEX_BITS>>,
    ni: Signal<Local, Bits<SLOT_INDEX_BITS>>,
    cur: Signal<Local, Bits<SLOT_BITS>>,
    head: Signal<Local, Bits<SLOT_BITS>>,
    cur_opcode: Signal<Local, Bits<2>>,
    cur_fail: Signal<Local, Bits<2>>,
    cur_len: Signal<Local, Bits<32>>,
    cur_recv: Signal<Local, Bits<32>>,
    cur_imm: Signal<Local, Bits<32>>,
    head_len: Signal<Local, Bits<32>>,
    head_recv: Signal<Local, Bits<32>>,
    ahead: Signal<Local, Bits<32>>,
    fresh: Signal<Local, bool>,
    check_ok: Signal<Local, bool>,
    can_pop: Signal<Local, bool>,
    x_recv: Signal<Local, Ext32>,
    x_payload: Signal<Local, Ext16>,
    recv33: Signal<Local, Bits<33>>,
    payload33: Signal<Local, Bits<33>>,
    sum: Signal<Local, Bits<33>>,
    recv1: Signal<Local, Bits<32>>,
    /// The packet's slot after recording it.
    rec: Signal<Local, MsgSlot>,
    len1: Signal<Local, Bits<32>>,
    rec_now: Signal<Local, bool>,
    pop_now: Signal<Local, bool>,
    clear_now: Signal<Local, bool>,
    slot_new: [Signal<Local, Bits<SLOT_BITS>>; SLOTS],
    new_state: Signal<Local, MsgState>,
    #[constants(|i: usize| i as u64)]
    slot_id: [Constant<Bits<SLOT_INDEX_BITS>>; SLOTS],
    #[constants(slot_offset)]
    slot_at: [Constant<Bits<STATE_AT_BITS>>; SLOTS],
    #[constant(MsgSlot::default().get_my_offset_valid() as u64)]
    valid_at: Constant<Bits<SLOT_AT_BITS>>,
    #[constant(MsgSlot::default().get_my_offset_opcode() as u64)]
    opcode_at: Constant<Bits<SLOT_AT_BITS>>,
    #[constant(MsgSlot::default().get_my_offset_fail() as u64)]
    fail_at: Constant<Bits<SLOT_AT_BITS>>,
    #[constant(MsgSlot::default().get_my_offset_len() as u64)]
    len_at: Constant<Bits<SLOT_AT_BITS>>,
    #[constant(MsgSlot::default().get_my_offset_recv() as u64)]
    recv_at: Constant<Bits<SLOT_AT_BITS>>,
    #[constant(MsgSlot::default().get_my_offset_imm() as u64)]
    imm_at: Constant<Bits<SLOT_AT_BITS>>,
    #[constant(MsgState::default().get_my_offset_next_seq() as u64)]
    next_at: Constant<Bits<STATE_AT_BITS>>,
    #[constant(SLOTS as u64)]
    window: Constant<Bits<32>>,
    #[constant(op::PACKET)]
    op_packet: Constant<Bits<2>>,
    #[constant(op::POP)]
    op_pop: Constant<Bits<2>>,
    #[constant(op::CLEAR)]
    op_clear: Constant<Bits<2>>,
    #[constant(CompletionStatus::Success.code() as u64)]
    fail_none: Constant<Bits<2>>,
    /// A slot with its valid bit cleared.
    #[constant(!Bits::<SLOT_BITS>::from(1u64 << MsgSlot::default().get_my_offset_valid()))]
    clear_valid: Constant<Bits<SLOT_BITS>>,
    #[constant(0u64)]
    zero2: Constant<Bits<2>>,
    #[constant(0u64)]
    zero1: Constant<Bits<1>>,
    #[constant(0u64)]
    zero17: Constant<Bits<17>>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
    #[constant(1u64)]
    one32: Constant<Bits<32>>,
    #[constant(0xffff_ffffu64)]
    all32: Constant<Bits<32>>,
    #[constant(0u64)]
    zero_slot: Constant<Bits<SLOT_BITS>>,
}

impl<const K: usize> Logic for RxMsgs<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_op, s1_seq, s1_len, s1_opcode, s1_imm, s1_payload, s1_fail, s1_apply, o_valid, o_key, o_ok,
            o_popped, o_began, o_seq, o_opcode, o_len, o_imm, o_fail
        );
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.store.rd_valid.next = self.in_valid.val();
        self.store.rd_key.next = self.in_key.val();
        self.s1_op.d.next = self.in_op.val();
        self.s1_seq.d.next = self.in_seq.val();
        self.s1_len.d.next = self.in_len.val();
        self.s1_opcode.d.next = self.in_opcode.val();
        self.s1_imm.d.next = self.in_imm.val();
        self.s1_payload.d.next = self.in_payload.val();
        self.s1_fail.d.next = self.in_fail.val();
        self.s1_apply.d.next = self.in_apply.val();

        // The stream's state, one cycle later: the packet's slot and the
        // next message's slot.
        self.next_seq.next = self.store.state.val().get_bits::<32>(self.next_at.val().index());
        self.si.next = self.s1_seq.q.val().get_bits::<SLOT_INDEX_BITS>(0);
        self.ni.next = self.next_seq.val().get_bits::<SLOT_INDEX_BITS>(0);
        self.cur.next = self.zero_slot.val();
        self.head.next = self.zero_slot.val();
        for i in 0..SLOTS {
            if self.si.val() == self.slot_id[i].val() {
                self.cur.next = self.store.state.val().get_bits::<SLOT_BITS>(self.slot_at[i].val().index());
            }
            if self.ni.val() == self.slot_id[i].val() {
                self.head.next = self.store.state.val().get_bits::<SLOT_BITS>(self.slot_at[i].val().index());
            }
        }
        self.fresh.next = !self.cur.val().get_bit(self.valid_at.val().index());
        self.cur_opcode.next = self.cur.val().get_bits::<2>(self.opcode_at.val().index());
        self.cur_fail.next = self.cur.val().get_bits::<2>(self.fail_at.val().index());
        self.cur_len.next = self.cur.val().get_bits::<32>(self.len_at.val().index());
        self.cur_recv.next = self.cur.val().get_bits::<32>(self.recv_at.val().index());
        self.cur_imm.next = self.cur.val().get_bits::<32>(self.imm_at.val().index());
        self.head_len.next = self.head.val().get_bits::<32>(self.len_at.val().index());
        self.head_recv.next = self.head.val().get_bits::<32>(self.recv_at.val().index());

        self.ahead.next = self.s1_seq.q.val() - self.next_seq.val();
        self.check_ok.next = (self.ahead.val() < self.window.val())
            & (self.fresh.val()
                | ((self.cur_len.val() == self.s1_len.q.val()) & (self.cur_opcode.val() == self.s1_opcode.q.val())));

        // The slot after recording this packet.
        if self.fresh.val() {
            self.x_recv.next.lo = self.zero32.val();
        } else {
            self.x_recv.next.lo = self.cur_recv.val();
        }
        self.x_recv.next.hi = self.zero1.val();
        self.x_payload.next.lo = self.s1_payload.q.val();
        self.x_payload.next.hi = self.zero17.val();
        self.recv33.next = self.x_recv.val().into();
        self.payload33.next = self.x_payload.val().into();
        self.sum.next = self.recv33.val() + self.payload33.val();
        if self.sum.val().get_bit(32) {
            self.recv1.next = self.all32.val();
        } else {
            self.recv1.next = self.sum.val().get_bits::<32>(0);
        }
        self.rec.next.valid = true;
        if self.fresh.val() {
            self.rec.next.opcode = self.s1_opcode.q.val();
            self.rec.next.fail = self.s1_fail.q.val();
            self.len1.next = self.s1_len.q.val();
            self.rec.next.imm = self.s1_imm.q.val();
        } else {
            self.rec.next.opcode = self.cur_opcode.val();
            if self.cur_fail.val() != self.fail_none.val() {
                self.rec.next.fail = self.cur_fail.val();
            } else {
                self.rec.next.fail = self.s1_fail.q.val();
            }
            self.len1.next = self.cur_len.val();
            self.rec.next.imm = self.cur_imm.val();
        }
        self.rec.next.len = self.len1.val();
        // A failed packet completes its message (nothing more will land).
        if self.s1_fail.q.val() != self.fail_none.val() {
            self.rec.next.recv = self.len1.val();
        } else {
            self.rec.next.recv = self.recv1.val();
        }

        // The next message, if complete.
        self.can_pop.next =
            self.head.val().get_bit(self.valid_at.val().index()) & (self.head_recv.val() >= self.head_len.val());

        self.o_ok.d.next = false;
        self.o_popped.d.next = false;
        self.o_began.d.next = false;
        self.o_seq.d.next = self.zero32.val();
        self.o_opcode.d.next = self.zero2.val();
        self.o_len.d.next = self.zero32.val();
        self.o_imm.d.next = self.zero32.val();
        self.o_fail.d.next = self.fail_none.val();
        self.rec_now.next = false;
        self.pop_now.next = false;
        self.clear_now.next = false;
        if self.s1_op.q.val() == self.op_packet.val() {
            self.o_ok.d.next = self.check_ok.val();
            self.o_began.d.next = self.check_ok.val() & self.s1_apply.q.val() & self.fresh.val();
            self.rec_now.next = self.check_ok.val() & self.s1_apply.q.val();
        }
        if (self.s1_op.q.val() == self.op_pop.val()) & self.can_pop.val() {
            self.pop_now.next = true;
            self.o_popped.d.next = true;
            self.o_seq.d.next = self.next_seq.val();
            self.o_opcode.d.next = self.head.val().get_bits::<2>(self.opcode_at.val().index());
            self.o_len.d.next = self.head_len.val();
            self.o_imm.d.next = self.head.val().get_bits::<32>(self.imm_at.val().index());
            self.o_fail.d.next = self.head.val().get_bits::<2>(self.fail_at.val().index());
        }
        if self.s1_op.q.val() == self.op_clear.val() {
            self.clear_now.next = true;
        }

        // The new state: only the slot the operation changes differs.
        for i in 0..SLOTS {
            if self.clear_now.val() {
                self.slot_new[i].next = self.zero_slot.val();
            } else if self.rec_now.val() & (self.si.val() == self.slot_id[i].val()) {
                self.slot_new[i].next = self.rec.val().into();
            } else if self.pop_now.val() & (self.ni.val() == self.slot_id[i].val()) {
                self.slot_new[i].next = self.store.state.val().get_bits::<SLOT_BITS>(self.slot_at[i].val().index())
                    & self.clear_valid.val();
            } else {
                self.slot_new[i].next = self.store.state.val().get_bits::<SLOT_BITS>(self.slot_at[i].val().index());
            }
        }
        if self.clear_now.val() {
            self.new_state.next.next_seq = self.zero32.val();
        } else if self.pop_now.val() {
            self.new_state.next.next_seq = self.next_seq.val() + self.one32.val();
        } else {
            self.new_state.next.next_seq = self.next_seq.val();
        }
        self.new_state.next.s0 = self.slot_new[0].val();
        self.new_state.next.s1 = self.slot_new[1].val();
        self.new_state.next.s2 = self.slot_new[2].val();
        self.new_state.next.s3 = self.slot_new[3].val();
        self.new_state.next.s4 = self.slot_new[4].val();
        self.new_state.next.s5 = self.slot_new[5].val();
        self.new_state.next.s6 = self.slot_new[6].val();
        self.new_state.next.s7 = self.slot_new[7].val();
        self.new_state.next.s8 = self.slot_new[8].val();
        self.new_state.next.s9 = self.slot_new[9].val();
        self.new_state.next.s10 = self.slot_new[10].val();
        self.new_state.next.s11 = self.slot_new[11].val();
        self.new_state.next.s12 = self.slot_new[12].val();
        self.new_state.next.s13 = self.slot_new[13].val();
        self.new_state.next.s14 = self.slot_new[14].val();
        self.new_state.next.s15 = self.slot_new[15].val();
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
        self.out_ok.next = self.o_ok.q.val();
        self.out_popped.next = self.o_popped.q.val();
        self.out_began.next = self.o_began.q.val();
        self.out_seq.next = self.o_seq.q.val();
        self.out_opcode.next = self.o_opcode.q.val();
        self.out_len.next = self.o_len.q.val();
        self.out_imm.next = self.o_imm.q.val();
        self.out_fail.next = self.o_fail.q.val();
    }
}
