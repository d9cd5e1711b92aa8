//! `rx_place`: direct placement. For each accepted frame (from
//! `frame_fifo`) a descriptor says whether its payload goes to host memory
//! and where; the block issues one DMA write command (address, length) and
//! streams exactly the payload bytes, realigned to lane 0, on the DMA write
//! data stream. Frames not placed (ACKs, NAKs, refused packets) are
//! consumed and dropped.
//!
//! The payload of a data frame starts at byte 90 (Ethernet 14 + IPv4 20 +
//! UDP 8 + common 16 + data extension 32: lane 2 of beat 11), so the
//! realignment is a fixed two-lane shift with a six-byte carry.
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `desc_valid`/`desc_ready` with `desc_place`, `desc_addr`, `desc_len`:
//!   one per frame, in frame order, taken at the frame's first beat.
//! * `s_axis_*`: the frames (64-bit). The descriptor's length, not
//!   `tkeep`, says how many payload bytes a frame has (rx_parse checked it
//!   against the frame's length), so `tkeep` is not an input.
//! * `m_cmd_valid`/`m_cmd_ready` with `m_cmd_addr`, `m_cmd_len`: one DMA
//!   write per placed frame, before its data.
//! * `m_data_*`: the payload bytes (64-bit, `tlast` on each write's last beat).
//!
//! Latency: the command is registered at the frame's first beat; each
//! output beat is registered from the input beat that completes it (one
//! cycle), and a frame whose last input beat leaves bytes in the carry
//! takes one more cycle (`flush`) before the next frame starts.

use rust_hdl::prelude::*;

use crate::blocks::{HdlDefault, HdlStruct};
pub use crate::layout::PAYLOAD_OFFSET;

// The realignment below is a two-lane shift: the payload starts in lane 2.
const _: () = assert!(PAYLOAD_OFFSET % 8 == 2);

/// An output beat: lanes 2..7 of the previous input beat, then lanes 0..1
/// of this one.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Realigned {
    pub carry: Bits<48>,
    pub head: Bits<16>,
}

/// The placement block.
#[derive(LogicBlock, HdlDefault)]
pub struct RxPlace {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub desc_valid: Signal<In, bool>,
    pub desc_ready: Signal<Out, bool>,
    pub desc_place: Signal<In, bool>,
    pub desc_addr: Signal<In, Bits<64>>,
    pub desc_len: Signal<In, Bits<16>>,
    pub s_axis_tdata: Signal<In, Bits<64>>,
    pub s_axis_tvalid: Signal<In, bool>,
    pub s_axis_tready: Signal<Out, bool>,
    pub s_axis_tlast: Signal<In, bool>,
    pub m_cmd_valid: Signal<Out, bool>,
    pub m_cmd_ready: Signal<In, bool>,
    pub m_cmd_addr: Signal<Out, Bits<64>>,
    pub m_cmd_len: Signal<Out, Bits<16>>,
    pub m_data_tdata: Signal<Out, Bits<64>>,
    pub m_data_tkeep: Signal<Out, Bits<8>>,
    pub m_data_tvalid: Signal<Out, bool>,
    pub m_data_tready: Signal<In, bool>,
    pub m_data_tlast: Signal<Out, bool>,
    /// A frame's descriptor has been taken.
    in_frame: DFF<bool>,
    /// The current frame's payload goes to memory.
    placing: DFF<bool>,
    /// Input beat of the frame (saturates at 15).
    beat: DFF<Bits<4>>,
    /// Payload bytes still to send.
    left: DFF<Bits<16>>,
    /// Lanes 2..7 of the previous beat.
    carry: DFF<Bits<48>>,
    /// The frame ended with payload bytes still in `carry`.
    flush: DFF<bool>,
    cmd_valid: DFF<bool>,
    cmd_addr: DFF<Bits<64>>,
    cmd_len: DFF<Bits<16>>,
    out_valid: DFF<bool>,
    out_data: DFF<Bits<64>>,
    out_keep: DFF<Bits<8>>,
    out_last: DFF<bool>,
    out_free: Signal<Local, bool>,
    cmd_free: Signal<Local, bool>,
    /// This beat completes an output beat.
    beat_emits: Signal<Local, bool>,
    start: Signal<Local, bool>,
    take: Signal<Local, bool>,
    /// Payload bytes in the output beat (at most 8) and their keep mask.
    n: Signal<Local, Bits<16>>,
    keep_n: Signal<Local, Bits<8>>,
    /// `beat` as seen by this input beat (0 when it starts the frame).
    beat_now: Signal<Local, Bits<4>>,
    /// Payload bytes left once this beat is taken.
    left_after: Signal<Local, Bits<16>>,
    realigned: Signal<Local, Realigned>,
    /// The carry alone, for the flush beat.
    flushed: Signal<Local, Realigned>,
    #[constant((PAYLOAD_OFFSET / 8) as u64)]
    first: Constant<Bits<4>>,
    #[constant(0u64)]
    zero4: Constant<Bits<4>>,
    #[constant(1u64)]
    one4: Constant<Bits<4>>,
    #[constant(0u64)]
    zero16: Constant<Bits<16>>,
    #[constant(8u64)]
    eight16: Constant<Bits<16>>,
    #[constant(1u64)]
    one8: Constant<Bits<8>>,
    #[constant(0xffu64)]
    all8: Constant<Bits<8>>,
}

impl Logic for RxPlace {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, in_frame, placing, beat, left, carry, flush, cmd_valid, cmd_addr, cmd_len, out_valid, out_data,
            out_keep, out_last
        );
        self.out_free.next = !self.out_valid.q.val() | self.m_data_tready.val();
        self.cmd_free.next = !self.cmd_valid.q.val() | self.m_cmd_ready.val();
        self.beat_emits.next =
            self.placing.q.val() & (self.beat.q.val() > self.first.val()) & self.left.q.val().any();
        self.start.next = !self.in_frame.q.val()
            & self.desc_valid.val()
            & self.s_axis_tvalid.val()
            & self.cmd_free.val()
            & !self.flush.q.val();
        self.take.next = self.s_axis_tvalid.val()
            & !self.flush.q.val()
            & (self.in_frame.q.val() | self.start.val())
            & (!self.beat_emits.val() | self.out_free.val());
        if self.left.q.val() > self.eight16.val() {
            self.n.next = self.eight16.val();
        } else {
            self.n.next = self.left.q.val();
        }
        if self.left.q.val() >= self.eight16.val() {
            self.keep_n.next = self.all8.val();
        } else {
            self.keep_n.next = (self.one8.val() << self.left.q.val().get_bits::<3>(0)) - self.one8.val();
        }
        if self.start.val() {
            self.beat_now.next = self.zero4.val();
        } else {
            self.beat_now.next = self.beat.q.val();
        }
        if self.beat_emits.val() & !self.start.val() {
            self.left_after.next = self.left.q.val() - self.n.val();
        } else {
            self.left_after.next = self.left.q.val();
        }
        self.realigned.next.carry = self.carry.q.val();
        self.realigned.next.head = self.s_axis_tdata.val().get_bits::<16>(0);
        self.flushed.next.carry = self.carry.q.val();
        self.flushed.next.head = self.zero16.val();

        if self.m_cmd_ready.val() {
            self.cmd_valid.d.next = false;
        }
        if self.m_data_tready.val() {
            self.out_valid.d.next = false;
        }
        if self.start.val() & self.desc_place.val() & self.desc_len.val().any() {
            self.cmd_valid.d.next = true;
            self.cmd_addr.d.next = self.desc_addr.val();
            self.cmd_len.d.next = self.desc_len.val();
        }
        if self.take.val() {
            if self.start.val() {
                self.in_frame.d.next = true;
                self.placing.d.next = self.desc_place.val() & self.desc_len.val().any();
                self.left.d.next = self.desc_len.val();
                self.beat.d.next = self.one4.val();
            } else if !self.beat.q.val().all() {
                self.beat.d.next = self.beat.q.val() + self.one4.val();
            }
            if self.beat_now.val() >= self.first.val() {
                self.carry.d.next = self.s_axis_tdata.val().get_bits::<48>(16);
            }
            if self.beat_emits.val() & !self.start.val() {
                self.out_valid.d.next = true;
                self.out_data.d.next = self.realigned.val().into();
                self.out_keep.d.next = self.keep_n.val();
                self.out_last.d.next = self.left.q.val() <= self.eight16.val();
                self.left.d.next = self.left_after.val();
            }
            if self.s_axis_tlast.val() {
                self.in_frame.d.next = false;
                // Payload bytes left after this beat sit in its lanes 2..7.
                if self.placing.q.val() & self.left_after.val().any() {
                    self.flush.d.next = true;
                } else {
                    self.placing.d.next = false;
                }
            }
        }
        if self.flush.q.val() & self.out_free.val() {
            self.flush.d.next = false;
            self.placing.d.next = false;
            self.out_valid.d.next = true;
            self.out_data.d.next = self.flushed.val().into();
            // At most 6 bytes are left here.
            self.out_keep.d.next = (self.one8.val() << self.left.q.val().get_bits::<3>(0)) - self.one8.val();
            self.out_last.d.next = true;
            self.left.d.next = self.zero16.val();
        }
        if self.reset.val() {
            self.in_frame.d.next = false;
            self.placing.d.next = false;
            self.flush.d.next = false;
            self.cmd_valid.d.next = false;
            self.out_valid.d.next = false;
            self.beat.d.next = self.zero4.val();
            self.left.d.next = self.zero16.val();
        }
        self.desc_ready.next = self.start.val();
        self.s_axis_tready.next = self.take.val();
        self.m_cmd_valid.next = self.cmd_valid.q.val();
        self.m_cmd_addr.next = self.cmd_addr.q.val();
        self.m_cmd_len.next = self.cmd_len.q.val();
        self.m_data_tvalid.next = self.out_valid.q.val();
        self.m_data_tdata.next = self.out_data.q.val();
        self.m_data_tkeep.next = self.out_keep.q.val();
        self.m_data_tlast.next = self.out_last.q.val();
    }
}
