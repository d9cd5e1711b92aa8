//! `segmenter`: cuts one connection's messages into packets, streams taking
//! turns. Reference: `ferroce_proto::model::sendq::SendQueue::next_segment`.
//!
//! Each of the 8 streams holds its head message (loaded from the send
//! queue by the work-request fetch): length, local address, and the header
//! fields that do not change along the message. A request for the next
//! packet picks, round-robin from the stream after the last one served, the
//! first stream whose head message has bytes left, and returns the packet:
//! its offset, length (up to `mtu`), local address (where the DMA read
//! starts) and whether it ends the message.
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `load_valid` with `load_stream` and the message (`load_len`,
//!   `load_local`, `load_remote`, `load_rkey`, `load_imm`, `load_opcode`,
//!   `load_msg_seq`): becomes the stream's head message.
//! * `need` (out): bit s set when stream s has no bytes left to send.
//! * `next_valid` with `mtu`: one packet. One cycle later `out_valid`, with
//!   `out_found` and the packet (`out_stream`, `out_msg_seq`, `out_opcode`,
//!   `out_msg_len`, `out_offset`, `out_len`, `out_local`, `out_remote`,
//!   `out_rkey`, `out_imm`, `out_last`). The packet's fields hold until the
//!   next packet (a request that finds one).
//!
//! State: the fields that do not change along a message sit in a small RAM
//! (registered read: read at the pick, out one cycle later, when the packet
//! is), two slots per stream: the packet on the outputs keeps reading its
//! slot, and a load into its stream goes to the other slot (`cur`: each
//! stream's head slot), so the outputs hold while the stream's next message
//! arrives. The bytes left and the segmentation point of every stream sit in
//! registers, read by a mux tree at the pick; `has` (streams with bytes left)
//! is kept on loads and on each message's last packet. The pick depends on
//! `has` and `rr` only, so it is chosen from their next values and
//! registered (`pick_q`, `found_r`): the mux tree's selects come straight
//! from flip-flops. A load wins over a packet of the same stream in the same
//! cycle.

use rust_hdl::prelude::*;

use ferroce_proto::params::STREAM_BITS;

use crate::blocks::{HdlDefault, HdlStruct};

// The mux tree below is written for 8 streams.
const _: () = assert!(STREAM_BITS == 3);

/// Streams per connection.
pub const STREAMS: usize = 1 << STREAM_BITS;

/// Head RAM address bits: a stream's two slots.
const HEAD_BITS: usize = STREAM_BITS + 1;

/// A stream's head-message fields that do not change along the message.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Head {
    pub local: Bits<64>,
    pub remote: Bits<64>,
    pub rkey: Bits<32>,
    pub imm: Bits<32>,
    pub opcode: Bits<8>,
    pub msg_seq: Bits<32>,
    pub msg_len: Bits<32>,
}

/// A head RAM address: the stream and one of its two slots.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct HeadAddr {
    pub slot: bool,
    pub stream: Bits<STREAM_BITS>,
}

/// `mtu` zero-extended to a byte count.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Mtu32 {
    pub lo: Bits<14>,
    pub hi: Bits<18>,
}

/// An offset zero-extended to an address.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Offset64 {
    pub lo: Bits<32>,
    pub hi: Bits<32>,
}

/// The segmenter.
#[derive(LogicBlock, HdlDefault)]
pub struct Segmenter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub load_valid: Signal<In, bool>,
    pub load_stream: Signal<In, Bits<STREAM_BITS>>,
    pub load_len: Signal<In, Bits<32>>,
    pub load_local: Signal<In, Bits<64>>,
    pub load_remote: Signal<In, Bits<64>>,
    pub load_rkey: Signal<In, Bits<32>>,
    pub load_imm: Signal<In, Bits<32>>,
    pub load_opcode: Signal<In, Bits<8>>,
    pub load_msg_seq: Signal<In, Bits<32>>,
    pub need: Signal<Out, Bits<STREAMS>>,
    pub next_valid: Signal<In, bool>,
    pub mtu: Signal<In, Bits<14>>,
    pub out_valid: Signal<Out, bool>,
    pub out_found: Signal<Out, bool>,
    pub out_stream: Signal<Out, Bits<STREAM_BITS>>,
    pub out_msg_seq: Signal<Out, Bits<32>>,
    pub out_opcode: Signal<Out, Bits<8>>,
    pub out_msg_len: Signal<Out, Bits<32>>,
    pub out_offset: Signal<Out, Bits<32>>,
    pub out_len: Signal<Out, Bits<16>>,
    pub out_local: Signal<Out, Bits<64>>,
    pub out_remote: Signal<Out, Bits<64>>,
    pub out_rkey: Signal<Out, Bits<32>>,
    pub out_imm: Signal<Out, Bits<32>>,
    pub out_last: Signal<Out, bool>,
    heads: RAM<Head, HEAD_BITS>,
    /// Bytes left of each stream's head message.
    left: [DFF<Bits<32>>; STREAMS],
    seg_point: [DFF<Bits<32>>; STREAMS],
    has: DFF<Bits<STREAMS>>,
    /// Bit s: the head RAM slot of stream s's head message.
    cur: DFF<Bits<STREAMS>>,
    rr: DFF<Bits<STREAM_BITS>>,
    /// The stream a request now would pick (from `has` and `rr`), and
    /// whether there is one.
    pick_q: DFF<Bits<STREAM_BITS>>,
    found_r: DFF<bool>,
    valid_q: DFF<bool>,
    found_q: DFF<bool>,
    stream_q: DFF<Bits<STREAM_BITS>>,
    /// The slot the packet on the outputs reads.
    slot_q: DFF<bool>,
    offset_q: DFF<Bits<32>>,
    len_q: DFF<Bits<16>>,
    last_q: DFF<bool>,
    /// Stream numbers (a loop variable is an unsized Verilog integer).
    #[constants(|i: usize| i as u64)]
    stream_id: [Constant<Bits<STREAM_BITS>>; STREAMS],
    /// Stream numbers from the last down.
    #[constants(|i: usize| (STREAMS - 1 - i) as u64)]
    stream_id_rev: [Constant<Bits<STREAM_BITS>>; STREAMS],
    /// One-hot stream masks.
    #[constants(|i: usize| 1u64 << i)]
    stream_bit: [Constant<Bits<STREAMS>>; STREAMS],
    #[constant(0u64)]
    zero_stream: Constant<Bits<STREAM_BITS>>,
    #[constant(0u64)]
    no_streams: Constant<Bits<STREAMS>>,
    #[constant(0u64)]
    zero18: Constant<Bits<18>>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
    pick: Signal<Local, Bits<STREAM_BITS>>,
    found: Signal<Local, bool>,
    serve: Signal<Local, bool>,
    left_m2: [Signal<Local, Bits<32>>; 4],
    next_m2: [Signal<Local, Bits<32>>; 4],
    left_m1: [Signal<Local, Bits<32>>; 2],
    next_m1: [Signal<Local, Bits<32>>; 2],
    left_p: Signal<Local, Bits<32>>,
    next_p: Signal<Local, Bits<32>>,
    mtu_z: Signal<Local, Mtu32>,
    mtu32: Signal<Local, Bits<32>>,
    offset64: Signal<Local, Bits<64>>,
    seg: Signal<Local, Bits<32>>,
    last: Signal<Local, bool>,
    has_after: Signal<Local, Bits<STREAMS>>,
    has_next: Signal<Local, Bits<STREAMS>>,
    rr_next: Signal<Local, Bits<STREAM_BITS>>,
    cur_after: Signal<Local, Bits<STREAMS>>,
    /// The stream and slot on the outputs from the next cycle on.
    hold_stream: Signal<Local, Bits<STREAM_BITS>>,
    hold_slot: Signal<Local, bool>,
    /// The slot a load writes: not the one held.
    load_slot: Signal<Local, bool>,
    read_at: Signal<Local, HeadAddr>,
    write_at: Signal<Local, HeadAddr>,
    offset_z: Signal<Local, Offset64>,
}

impl Logic for Segmenter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, has, cur, rr, pick_q, found_r, valid_q, found_q, stream_q, slot_q, offset_q, len_q, last_q);
        for s in 0..STREAMS {
            self.left[s].clock.next = self.clock.val();
            self.left[s].d.next = self.left[s].q.val();
            self.seg_point[s].clock.next = self.clock.val();
            self.seg_point[s].d.next = self.seg_point[s].q.val();
        }

        // The pick, registered: it depends on `has` and `rr` only, so it is
        // chosen from their next values at the end (a clean mux select).
        self.pick.next = self.pick_q.q.val();
        self.found.next = self.found_r.q.val();
        self.serve.next = self.next_valid.val() & self.found.val();

        // The picked stream's bytes left and segmentation point: a mux
        // tree, one level per bit of the pick.
        for s in 0..4 {
            if self.pick.val().get_bit(0) {
                self.left_m2[s].next = self.left[2 * s + 1].q.val();
                self.next_m2[s].next = self.seg_point[2 * s + 1].q.val();
            } else {
                self.left_m2[s].next = self.left[2 * s].q.val();
                self.next_m2[s].next = self.seg_point[2 * s].q.val();
            }
        }
        for s in 0..2 {
            if self.pick.val().get_bit(1) {
                self.left_m1[s].next = self.left_m2[2 * s + 1].val();
                self.next_m1[s].next = self.next_m2[2 * s + 1].val();
            } else {
                self.left_m1[s].next = self.left_m2[2 * s].val();
                self.next_m1[s].next = self.next_m2[2 * s].val();
            }
        }
        if self.pick.val().get_bit(2) {
            self.left_p.next = self.left_m1[1].val();
            self.next_p.next = self.next_m1[1].val();
        } else {
            self.left_p.next = self.left_m1[0].val();
            self.next_p.next = self.next_m1[0].val();
        }
        self.mtu_z.next.lo = self.mtu.val();
        self.mtu_z.next.hi = self.zero18.val();
        self.mtu32.next = self.mtu_z.val().into();
        // The message ends with this packet when what is left fits.
        self.last.next = true;
        self.seg.next = self.left_p.val();
        if self.left_p.val() > self.mtu32.val() {
            self.last.next = false;
            self.seg.next = self.mtu32.val();
        }

        // The packet on the outputs from the next cycle on; a load into its
        // stream takes the other slot.
        self.hold_stream.next = self.stream_q.q.val();
        self.hold_slot.next = self.slot_q.q.val();
        if self.serve.val() {
            self.hold_stream.next = self.pick.val();
            self.hold_slot.next = self.cur.q.val().get_bit(self.pick.val().index());
        }
        self.load_slot.next = false;
        if self.load_stream.val() == self.hold_stream.val() {
            self.load_slot.next = !self.hold_slot.val();
        }

        // Head fields: read at the pick, out with the packet.
        self.read_at.next.stream = self.hold_stream.val();
        self.read_at.next.slot = self.hold_slot.val();
        self.write_at.next.stream = self.load_stream.val();
        self.write_at.next.slot = self.load_slot.val();
        self.heads.read_clock.next = self.clock.val();
        self.heads.write_clock.next = self.clock.val();
        self.heads.read_address.next = self.read_at.val().into();
        self.heads.write_address.next = self.write_at.val().into();
        self.heads.write_enable.next = self.load_valid.val();
        self.heads.write_data.next.local = self.load_local.val();
        self.heads.write_data.next.remote = self.load_remote.val();
        self.heads.write_data.next.rkey = self.load_rkey.val();
        self.heads.write_data.next.imm = self.load_imm.val();
        self.heads.write_data.next.opcode = self.load_opcode.val();
        self.heads.write_data.next.msg_seq = self.load_msg_seq.val();
        self.heads.write_data.next.msg_len = self.load_len.val();

        self.valid_q.d.next = self.next_valid.val();
        self.found_q.d.next = self.serve.val();
        self.stream_q.d.next = self.hold_stream.val();
        self.slot_q.d.next = self.hold_slot.val();
        if self.serve.val() {
            self.offset_q.d.next = self.next_p.val();
            self.len_q.d.next = self.seg.val().get_bits::<16>(0);
            self.last_q.d.next = self.last.val();
            self.rr.d.next = self.pick.val() + true;
        }
        for s in 0..STREAMS {
            if self.serve.val() & (self.pick.val() == self.stream_id[s].val()) {
                self.left[s].d.next = self.left_p.val() - self.seg.val();
                self.seg_point[s].d.next = self.next_p.val() + self.seg.val();
            }
            if self.load_valid.val() & (self.load_stream.val() == self.stream_id[s].val()) {
                self.left[s].d.next = self.load_len.val();
                self.seg_point[s].d.next = self.zero32.val();
            }
        }
        self.has_after.next = self.has.q.val();
        for s in 0..STREAMS {
            if self.serve.val() & self.last.val() & (self.pick.val() == self.stream_id[s].val()) {
                self.has_after.next = self.has_after.val() & !self.stream_bit[s].val();
            }
        }
        self.has.d.next = self.has_after.val();
        self.cur_after.next = self.cur.q.val();
        for s in 0..STREAMS {
            if self.load_valid.val() & (self.load_stream.val() == self.stream_id[s].val()) {
                if self.load_len.val().any() {
                    self.has.d.next = self.has_after.val() | self.stream_bit[s].val();
                } else {
                    self.has.d.next = self.has_after.val() & !self.stream_bit[s].val();
                }
                if self.load_slot.val() {
                    self.cur_after.next = self.cur.q.val() | self.stream_bit[s].val();
                } else {
                    self.cur_after.next = self.cur.q.val() & !self.stream_bit[s].val();
                }
            }
        }
        self.cur.d.next = self.cur_after.val();
        if self.reset.val() {
            self.has.d.next = self.no_streams.val();
            self.rr.d.next = self.zero_stream.val();
            self.valid_q.d.next = false;
            self.found_q.d.next = false;
        }

        // Next cycle's pick: the first stream with bytes left in round-robin
        // order from rr, the candidates from the last to the first, so that
        // the first wins.
        self.has_next.next = self.has.d.val();
        self.rr_next.next = self.rr.d.val();
        self.found_r.d.next = false;
        self.pick_q.d.next = self.zero_stream.val();
        for k in 0..STREAMS {
            if self.has_next.val().get_bit((self.rr_next.val() + self.stream_id_rev[k].val()).index()) {
                self.found_r.d.next = true;
                self.pick_q.d.next = self.rr_next.val() + self.stream_id_rev[k].val();
            }
        }

        self.offset_z.next.lo = self.offset_q.q.val();
        self.offset_z.next.hi = self.zero32.val();
        self.offset64.next = self.offset_z.val().into();
        self.need.next = !self.has.q.val();
        self.out_valid.next = self.valid_q.q.val();
        self.out_found.next = self.found_q.q.val();
        self.out_stream.next = self.stream_q.q.val();
        self.out_msg_seq.next = self.heads.read_data.val().msg_seq;
        self.out_opcode.next = self.heads.read_data.val().opcode;
        self.out_msg_len.next = self.heads.read_data.val().msg_len;
        self.out_offset.next = self.offset_q.q.val();
        self.out_len.next = self.len_q.q.val();
        self.out_local.next = self.heads.read_data.val().local + self.offset64.val();
        self.out_remote.next = self.heads.read_data.val().remote;
        self.out_rkey.next = self.heads.read_data.val().rkey;
        self.out_imm.next = self.heads.read_data.val().imm;
        self.out_last.next = self.last_q.q.val();
    }
}
