//! `rx_msgs`: message tracking per (connection, stream) at the receiver.
//! Reference: `ferroce_proto::model::msgwin::MsgWindow`.
//!
//! For each stream key, block RAM holds the stream's head ([`MsgHead`]:
//! the next message to deliver and one valid bit per slot), and a second
//! block RAM, addressed {stream key, slot}, holds `MSG_WINDOW` slots
//! ([`MsgSlot`]), one per message from the next on (message n in slot
//! n mod `MSG_WINDOW`): opcode (the low two bits of the wire opcode:
//! WRITE, WRITE with immediate, SEND), failure (a `CompletionStatus` code),
//! length, bytes received (saturating) and immediate. A slot's content
//! counts only while its valid bit is set, so clearing a stream is one
//! write of its head.
//!
//! Ports (`clock`; `reset` synchronous, active high; `ready` is low while
//! the heads are cleared after reset):
//! * `in_valid`, `in_op` (0 packet, 1 pop, 2 clear), `in_key`. A packet
//!   gives `in_seq`, `in_len`, `in_opcode`, `in_imm`, `in_payload`,
//!   `in_fail` and `in_apply` (record it if it passes; low for a packet only
//!   being checked).
//! * `out_valid` with `out_key` two cycles after a packet or a clear, three
//!   after a pop: `out_ok` (packet: it passes the window and consistency
//!   check; `out_began`: it was recorded into a free slot, the first packet
//!   seen of its message), `out_popped` (pop: the next message was complete
//!   and is delivered) with `out_seq`, `out_opcode`, `out_len`, `out_imm`,
//!   `out_fail`.
//! * One operation at a time: the next may be given in the cycle its
//!   predecessor's `out_valid` is high, not before (nothing is forwarded
//!   between operations).
//!
//! Timing: a packet reads its stream's head and its slot (the slot is
//! `in_seq` mod `MSG_WINDOW`) in the cycle it is given, and writes both
//! back in the next; a pop reads the head, then the slot of the next
//! message, then writes the head.

use ferroce_proto::params::MSG_WINDOW;
use ferroce_proto::transport::CompletionStatus;
use rust_hdl::prelude::*;

use super::cfg::STREAM_KEY_BITS;
use crate::blocks::{HdlDefault, HdlStruct};

/// One message slot (packed from bit 0).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct MsgSlot {
    pub opcode: Bits<2>,
    pub fail: Bits<2>,
    pub len: Bits<32>,
    pub recv: Bits<32>,
    pub imm: Bits<32>,
}

/// Slots per stream.
pub const SLOTS: usize = MSG_WINDOW;
/// Bits of a slot index (`seq mod SLOTS`).
pub const SLOT_INDEX_BITS: usize = SLOTS.trailing_zeros() as usize;
const _: () = assert!(1 << SLOT_INDEX_BITS == SLOTS);

/// One stream's head: the next message to deliver, and which slots hold a
/// message.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct MsgHead {
    pub next_seq: Bits<32>,
    pub valid: Bits<SLOTS>,
}

/// A slot's address: {stream key, slot}.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct SlotAddr {
    pub slot: Bits<SLOT_INDEX_BITS>,
    pub key: Bits<STREAM_KEY_BITS>,
}

/// Bits of a slot's address.
pub const SLOT_ADDR_BITS: usize = <SlotAddr as Synth>::BITS;

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

/// Message tracking for every stream key of the build.
#[derive(LogicBlock, HdlDefault)]
pub struct RxMsgs {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_op: Signal<In, Bits<2>>,
    pub in_key: Signal<In, Bits<STREAM_KEY_BITS>>,
    pub in_seq: Signal<In, Bits<32>>,
    pub in_len: Signal<In, Bits<32>>,
    pub in_opcode: Signal<In, Bits<2>>,
    pub in_imm: Signal<In, Bits<32>>,
    pub in_payload: Signal<In, Bits<16>>,
    pub in_fail: Signal<In, Bits<2>>,
    pub in_apply: Signal<In, bool>,
    pub out_valid: Signal<Out, bool>,
    pub out_key: Signal<Out, Bits<STREAM_KEY_BITS>>,
    pub out_ok: Signal<Out, bool>,
    pub out_popped: Signal<Out, bool>,
    pub out_began: Signal<Out, bool>,
    pub out_seq: Signal<Out, Bits<32>>,
    pub out_opcode: Signal<Out, Bits<2>>,
    pub out_len: Signal<Out, Bits<32>>,
    pub out_imm: Signal<Out, Bits<32>>,
    pub out_fail: Signal<Out, Bits<2>>,
    heads: RAM<MsgHead, STREAM_KEY_BITS>,
    slots: RAM<MsgSlot, SLOT_ADDR_BITS>,
    init_busy: DFF<bool>,
    init_addr: DFF<Bits<STREAM_KEY_BITS>>,
    // The operation, in the cycle after it is given.
    s1_valid: DFF<bool>,
    s1_key: DFF<Bits<STREAM_KEY_BITS>>,
    s1_op: DFF<Bits<2>>,
    s1_seq: DFF<Bits<32>>,
    s1_len: DFF<Bits<32>>,
    s1_opcode: DFF<Bits<2>>,
    s1_imm: DFF<Bits<32>>,
    s1_payload: DFF<Bits<16>>,
    s1_fail: DFF<Bits<2>>,
    s1_apply: DFF<bool>,
    // A pop in its second cycle: the head it read, the next message's slot.
    s2_pop: DFF<bool>,
    s2_key: DFF<Bits<STREAM_KEY_BITS>>,
    s2_head: DFF<MsgHead>,
    s2_hot: DFF<Bits<SLOTS>>,
    o_valid: DFF<bool>,
    o_key: DFF<Bits<STREAM_KEY_BITS>>,
    o_ok: DFF<bool>,
    o_popped: DFF<bool>,
    o_began: DFF<bool>,
    o_seq: DFF<Bits<32>>,
    o_opcode: DFF<Bits<2>>,
    o_len: DFF<Bits<32>>,
    o_imm: DFF<Bits<32>>,
    o_fail: DFF<Bits<2>>,
    head: Signal<Local, MsgHead>,
    // its next_seq as a signal of its own (a part of a struct field is a
    // chained part select in the Verilog, which Icarus refuses)
    head_next_seq: Signal<Local, Bits<32>>,
    // its bits above the slot index, read nowhere (for lint)
    unused_seq: Signal<Local, bool>,
    cur: Signal<Local, MsgSlot>,
    /// The packet's slot and the next message's slot, one-hot.
    si_hot: Signal<Local, Bits<SLOTS>>,
    ni_hot: Signal<Local, Bits<SLOTS>>,
    rd_addr: Signal<Local, SlotAddr>,
    wr_addr: Signal<Local, SlotAddr>,
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
    #[constants(|i: usize| i as u64)]
    slot_id: [Constant<Bits<SLOT_INDEX_BITS>>; SLOTS],
    #[constants(|i: usize| 1u64 << i)]
    hot: [Constant<Bits<SLOTS>>; SLOTS],
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
    zero_hot: Constant<Bits<SLOTS>>,
    #[constant(0u64)]
    zero_key: Constant<Bits<STREAM_KEY_BITS>>,
    #[constant(1u64)]
    one_key: Constant<Bits<STREAM_KEY_BITS>>,
}

impl Logic for RxMsgs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, init_busy, init_addr, s1_valid, s1_key, s1_op, s1_seq, s1_len, s1_opcode, s1_imm,
            s1_payload, s1_fail, s1_apply, s2_pop, s2_key, s2_head, s2_hot, o_valid, o_key, o_ok, o_popped, o_began,
            o_seq, o_opcode, o_len, o_imm, o_fail
        );
        self.heads.read_clock.next = self.clock.val();
        self.heads.write_clock.next = self.clock.val();
        self.slots.read_clock.next = self.clock.val();
        self.slots.write_clock.next = self.clock.val();

        // ---- the cycle an operation is given: read its head and slot ----
        self.heads.read_address.next = self.in_key.val();
        self.s1_valid.d.next = self.in_valid.val() & !self.init_busy.q.val();
        self.s1_key.d.next = self.in_key.val();
        self.s1_op.d.next = self.in_op.val();
        self.s1_seq.d.next = self.in_seq.val();
        self.s1_len.d.next = self.in_len.val();
        self.s1_opcode.d.next = self.in_opcode.val();
        self.s1_imm.d.next = self.in_imm.val();
        self.s1_payload.d.next = self.in_payload.val();
        self.s1_fail.d.next = self.in_fail.val();
        self.s1_apply.d.next = self.in_apply.val();

        // ---- one cycle later: the head and the packet's slot ----
        self.head.next = self.heads.read_data.val();
        self.head_next_seq.next = self.head.val().next_seq;
        self.unused_seq.next = false & self.head_next_seq.val().any();
        self.cur.next = self.slots.read_data.val();
        self.si_hot.next = self.zero_hot.val();
        self.ni_hot.next = self.zero_hot.val();
        for i in 0..SLOTS {
            if self.s1_seq.q.val().get_bits::<SLOT_INDEX_BITS>(0) == self.slot_id[i].val() {
                self.si_hot.next = self.hot[i].val();
            }
            if self.head_next_seq.val().get_bits::<SLOT_INDEX_BITS>(0) == self.slot_id[i].val() {
                self.ni_hot.next = self.hot[i].val();
            }
        }
        // The slot read: a pop's second read (the next message's slot)
        // while it is in its first cycle, else the slot of the packet given.
        if self.s1_valid.q.val() & (self.s1_op.q.val() == self.op_pop.val()) {
            self.rd_addr.next.slot = self.head_next_seq.val().get_bits::<SLOT_INDEX_BITS>(0);
            self.rd_addr.next.key = self.s1_key.q.val();
        } else {
            self.rd_addr.next.slot = self.in_seq.val().get_bits::<SLOT_INDEX_BITS>(0);
            self.rd_addr.next.key = self.in_key.val();
        }
        self.slots.read_address.next = self.rd_addr.val().into();

        self.fresh.next = !(self.head.val().valid & self.si_hot.val()).any();
        self.ahead.next = self.s1_seq.q.val() - self.head.val().next_seq;
        self.check_ok.next = (self.ahead.val() < self.window.val())
            & (self.fresh.val()
                | ((self.cur.val().len == self.s1_len.q.val()) & (self.cur.val().opcode == self.s1_opcode.q.val())));

        // The slot after recording this packet.
        if self.fresh.val() {
            self.x_recv.next.lo = self.zero32.val();
        } else {
            self.x_recv.next.lo = self.cur.val().recv;
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
        if self.fresh.val() {
            self.rec.next.opcode = self.s1_opcode.q.val();
            self.rec.next.fail = self.s1_fail.q.val();
            self.len1.next = self.s1_len.q.val();
            self.rec.next.imm = self.s1_imm.q.val();
        } else {
            self.rec.next.opcode = self.cur.val().opcode;
            if self.cur.val().fail != self.fail_none.val() {
                self.rec.next.fail = self.cur.val().fail;
            } else {
                self.rec.next.fail = self.s1_fail.q.val();
            }
            self.len1.next = self.cur.val().len;
            self.rec.next.imm = self.cur.val().imm;
        }
        self.rec.next.len = self.len1.val();
        // A failed packet completes its message (nothing more will land).
        if self.s1_fail.q.val() != self.fail_none.val() {
            self.rec.next.recv = self.len1.val();
        } else {
            self.rec.next.recv = self.recv1.val();
        }

        self.o_valid.d.next = false;
        self.o_key.d.next = self.s1_key.q.val();
        self.o_ok.d.next = false;
        self.o_popped.d.next = false;
        self.o_began.d.next = false;
        self.o_seq.d.next = self.zero32.val();
        self.o_opcode.d.next = self.zero2.val();
        self.o_len.d.next = self.zero32.val();
        self.o_imm.d.next = self.zero32.val();
        self.o_fail.d.next = self.fail_none.val();
        self.rec_now.next = false;
        self.s2_pop.d.next = false;
        self.s2_key.d.next = self.s1_key.q.val();
        self.s2_head.d.next = self.head.val();
        self.s2_hot.d.next = self.ni_hot.val();
        self.heads.write_address.next = self.s1_key.q.val();
        self.heads.write_data.next = self.head.val();
        self.heads.write_enable.next = false;
        self.wr_addr.next.slot = self.s1_seq.q.val().get_bits::<SLOT_INDEX_BITS>(0);
        self.wr_addr.next.key = self.s1_key.q.val();
        self.slots.write_address.next = self.wr_addr.val().into();
        self.slots.write_data.next = self.rec.val();
        self.slots.write_enable.next = false;
        if self.s1_valid.q.val() {
            if self.s1_op.q.val() == self.op_packet.val() {
                self.o_valid.d.next = true;
                self.o_ok.d.next = self.check_ok.val();
                self.o_began.d.next = self.check_ok.val() & self.s1_apply.q.val() & self.fresh.val();
                self.rec_now.next = self.check_ok.val() & self.s1_apply.q.val();
            }
            if self.s1_op.q.val() == self.op_pop.val() {
                self.s2_pop.d.next = true;
            }
            if self.s1_op.q.val() == self.op_clear.val() {
                self.o_valid.d.next = true;
                self.heads.write_data.next.next_seq = self.zero32.val();
                self.heads.write_data.next.valid = self.zero_hot.val();
                self.heads.write_enable.next = true;
            }
        }
        if self.rec_now.val() {
            self.heads.write_data.next.valid = self.head.val().valid | self.si_hot.val();
            self.heads.write_enable.next = true;
            self.slots.write_enable.next = true;
        }

        // ---- a pop's second cycle: the next message, if complete ----
        self.can_pop.next =
            (self.s2_head.q.val().valid & self.s2_hot.q.val()).any() & (self.cur.val().recv >= self.cur.val().len);
        if self.s2_pop.q.val() {
            self.o_valid.d.next = true;
            self.o_key.d.next = self.s2_key.q.val();
            if self.can_pop.val() {
                self.o_popped.d.next = true;
                self.o_seq.d.next = self.s2_head.q.val().next_seq;
                self.o_opcode.d.next = self.cur.val().opcode;
                self.o_len.d.next = self.cur.val().len;
                self.o_imm.d.next = self.cur.val().imm;
                self.o_fail.d.next = self.cur.val().fail;
                self.heads.write_address.next = self.s2_key.q.val();
                self.heads.write_data.next.next_seq = self.s2_head.q.val().next_seq + self.one32.val();
                self.heads.write_data.next.valid = self.s2_head.q.val().valid & !self.s2_hot.q.val();
                self.heads.write_enable.next = true;
            }
        }

        // ---- the heads cleared after reset ----
        if self.init_busy.q.val() {
            self.heads.write_address.next = self.init_addr.q.val();
            self.heads.write_data.next.next_seq = self.zero32.val();
            self.heads.write_data.next.valid = self.zero_hot.val();
            self.heads.write_enable.next = true;
            self.slots.write_enable.next = false;
            self.init_addr.d.next = self.init_addr.q.val() + self.one_key.val();
            if self.init_addr.q.val().all() {
                self.init_busy.d.next = false;
            }
        }
        if self.reset.val() {
            self.init_busy.d.next = true;
            self.init_addr.d.next = self.zero_key.val();
            self.s1_valid.d.next = false;
            self.s2_pop.d.next = false;
            self.o_valid.d.next = false;
        }
        self.ready.next = !self.init_busy.q.val();
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
