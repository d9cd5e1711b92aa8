//! `board_ram`: on-chip memory standing in for host memory on a board:
//! the engine's DMA reads and writes land here, and the host reaches it
//! through the bridge's bus (to set up rings and buffers and read results).
//!
//! 2^W words of 64 bits, as eight byte lanes (one rust-hdl `RAM` each, so
//! each lane has its own address): a DMA access at any byte address is a
//! rotation of the stream's bytes onto the lanes, with the lanes below the
//! start offset one word further on. Addresses wrap at the memory's size.
//!
//! Ports (`clock`; `reset` synchronous, active high), as the engine's
//! (`hdl/src/engine/top.rs`):
//! * `s_dma_wr_cmd_*` (byte address, length) then `s_dma_wr_*` (its bytes
//!   from lane 0, `tkeep` contiguous, `tlast` on the last beat); one write
//!   at a time, taken at a beat per cycle.
//! * `s_dma_rd_cmd_*` (byte address, length) to `m_dma_rd_*` (the bytes
//!   from lane 0, `tlast` on the last beat); a beat a cycle to a reader
//!   that always takes (1.6 Gb/s at 25 MHz). A read of length 0 returns
//!   nothing.
//! * `bus_*`: 32-bit words at word addresses (byte address / 4), held
//!   until `bus_ready`, which comes one cycle after a write is offered
//!   and two after a read. A bus write takes the write port over a DMA beat
//!   (which waits a cycle); a bus read takes the read port in a cycle the
//!   DMA read does not use.

use rust_hdl::prelude::*;

use crate::blocks::{HdlDefault, HdlStruct};

/// The eight lanes read together, lane 0 in bits 7:0.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct LaneBytes {
    pub l0: Bits<8>,
    pub l1: Bits<8>,
    pub l2: Bits<8>,
    pub l3: Bits<8>,
    pub l4: Bits<8>,
    pub l5: Bits<8>,
    pub l6: Bits<8>,
    pub l7: Bits<8>,
}

/// Four lanes as a bus word.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct HalfBytes {
    pub b0: Bits<8>,
    pub b1: Bits<8>,
    pub b2: Bits<8>,
    pub b3: Bits<8>,
}

const LANES: usize = 8;

/// A beat and its keep rotated up by `by` byte lanes (lane i to lane
/// `(i + by) mod 8`), a step per bit of `by` (by one, two and four lanes):
/// a choice of two per bit and step, where a choice of eight per bit took
/// about three times the logic. Rotating down by `k` is rotating up by
/// `8 - k`.
#[derive(LogicBlock, HdlDefault)]
pub struct LaneRotate {
    pub data: Signal<In, Bits<64>>,
    pub keep: Signal<In, Bits<8>>,
    pub by: Signal<In, Bits<3>>,
    pub data_out: Signal<Out, Bits<64>>,
    pub keep_out: Signal<Out, Bits<8>>,
    d1: Signal<Local, Bits<64>>,
    d2: Signal<Local, Bits<64>>,
    k1: Signal<Local, Bits<8>>,
    k2: Signal<Local, Bits<8>>,
    /// Each step's shift in bits and its complement; likewise in keep bits.
    #[constants(|i| 8u64 << i)]
    step: [Constant<Bits<64>>; 3],
    #[constants(|i| 64 - (8u64 << i))]
    step_back: [Constant<Bits<64>>; 3],
    #[constants(|i| 1u64 << i)]
    step8: [Constant<Bits<8>>; 3],
    #[constants(|i| 8 - (1u64 << i))]
    step8_back: [Constant<Bits<8>>; 3],
}

impl Logic for LaneRotate {
    #[hdl_gen]
    fn update(&mut self) {
        self.d1.next = self.data.val();
        self.k1.next = self.keep.val();
        if self.by.val().get_bit(0) {
            self.d1.next = (self.data.val() << self.step[0].val()) | (self.data.val() >> self.step_back[0].val());
            self.k1.next = (self.keep.val() << self.step8[0].val()) | (self.keep.val() >> self.step8_back[0].val());
        }
        self.d2.next = self.d1.val();
        self.k2.next = self.k1.val();
        if self.by.val().get_bit(1) {
            self.d2.next = (self.d1.val() << self.step[1].val()) | (self.d1.val() >> self.step_back[1].val());
            self.k2.next = (self.k1.val() << self.step8[1].val()) | (self.k1.val() >> self.step8_back[1].val());
        }
        self.data_out.next = self.d2.val();
        self.keep_out.next = self.k2.val();
        if self.by.val().get_bit(2) {
            self.data_out.next = (self.d2.val() << self.step[2].val()) | (self.d2.val() >> self.step_back[2].val());
            self.keep_out.next = (self.k2.val() << self.step8[2].val()) | (self.k2.val() >> self.step8_back[2].val());
        }
    }
}

/// The memory: 2^W words of 64 bits.
#[derive(LogicBlock, HdlDefault)]
pub struct BoardRam<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s_dma_wr_cmd_valid: Signal<In, bool>,
    pub s_dma_wr_cmd_ready: Signal<Out, bool>,
    pub s_dma_wr_cmd_addr: Signal<In, Bits<64>>,
    pub s_dma_wr_cmd_len: Signal<In, Bits<16>>,
    pub s_dma_wr_tdata: Signal<In, Bits<64>>,
    pub s_dma_wr_tkeep: Signal<In, Bits<8>>,
    pub s_dma_wr_tvalid: Signal<In, bool>,
    pub s_dma_wr_tready: Signal<Out, bool>,
    pub s_dma_wr_tlast: Signal<In, bool>,
    pub s_dma_rd_cmd_valid: Signal<In, bool>,
    pub s_dma_rd_cmd_ready: Signal<Out, bool>,
    pub s_dma_rd_cmd_addr: Signal<In, Bits<64>>,
    pub s_dma_rd_cmd_len: Signal<In, Bits<16>>,
    pub m_dma_rd_tdata: Signal<Out, Bits<64>>,
    pub m_dma_rd_tkeep: Signal<Out, Bits<8>>,
    pub m_dma_rd_tvalid: Signal<Out, bool>,
    pub m_dma_rd_tready: Signal<In, bool>,
    pub m_dma_rd_tlast: Signal<Out, bool>,
    pub bus_valid: Signal<In, bool>,
    pub bus_we: Signal<In, bool>,
    pub bus_addr: Signal<In, Bits<32>>,
    pub bus_wdata: Signal<In, Bits<32>>,
    pub bus_ready: Signal<Out, bool>,
    pub bus_rdata: Signal<Out, Bits<32>>,

    lane: [RAM<Bits<8>, W>; LANES],

    // DMA write: the word and lane offset of the next beat.
    w_active: DFF<bool>,
    w_word: DFF<Bits<W>>,
    w_off: DFF<Bits<3>>,
    // DMA read: the next beat's word, lane offset and bytes left.
    r_active: DFF<bool>,
    r_word: DFF<Bits<W>>,
    r_off: DFF<Bits<3>>,
    r_left: DFF<Bits<16>>,
    /// A beat's lanes were read last cycle, with its keep and last.
    r_pending: DFF<bool>,
    r_keep: DFF<Bits<8>>,
    r_last: DFF<bool>,
    out_data: DFF<Bits<64>>,
    out_keep: DFF<Bits<8>>,
    out_last: DFF<bool>,
    out_valid: DFF<bool>,
    /// A beat that landed while the output was held.
    skid_data: DFF<Bits<64>>,
    skid_keep: DFF<Bits<8>>,
    skid_last: DFF<bool>,
    skid_valid: DFF<bool>,
    // The bus: a read issued last cycle, the answer, the acknowledge.
    b_pending: DFF<bool>,
    b_high: DFF<bool>,
    b_data: DFF<Bits<32>>,
    b_ack: DFF<bool>,

    bus_write: Signal<Local, bool>,
    bus_read: Signal<Local, bool>,
    w_beat: Signal<Local, bool>,
    /// The written beat rotated up by its lane offset, and its keep; the
    /// read beat rotated down by its offset (up by its negation).
    w_rotate: LaneRotate,
    r_rotate: LaneRotate,
    w_rot: Signal<Local, Bits<64>>,
    w_keep: Signal<Local, Bits<8>>,
    /// Lanes below the start offset: their bytes go one word further on.
    w_below: Signal<Local, Bits<8>>,
    r_below: Signal<Local, Bits<8>>,
    r_issue: Signal<Local, bool>,
    /// The output is held this cycle.
    out_stays: Signal<Local, bool>,
    r_keep_now: Signal<Local, Bits<8>>,
    raw: Signal<Local, LaneBytes>,
    raw64: Signal<Local, Bits<64>>,
    r_rot: Signal<Local, Bits<64>>,
    b_word: Signal<Local, Bits<W>>,
    b_lanes: Signal<Local, HalfBytes>,
    /// Address bits above the memory's size (addresses wrap), the write
    /// length (the data's `tlast` ends a write) and the read rotation's
    /// keep (the read's keep comes from its length).
    unused_wrap: Signal<Local, bool>,

    #[constants(|i| i as u64)]
    lane_id: [Constant<Bits<3>>; LANES],
    /// A bus word's byte in lane i: bit offset in the word.
    #[constants(|i| 8 * (i as u64 % 4))]
    bus_byte_at: [Constant<Bits<5>>; LANES],
    #[constant(1u64)]
    one_word: Constant<Bits<W>>,
    #[constant(8u64)]
    eight: Constant<Bits<16>>,
    #[constant(0u64)]
    zero16: Constant<Bits<16>>,
    #[constant(1u64)]
    one8: Constant<Bits<8>>,
    #[constant(0u64)]
    zero8: Constant<Bits<8>>,
    #[constant(0u64)]
    zero3: Constant<Bits<3>>,
    #[constant(0xffu64)]
    ones8: Constant<Bits<8>>,
}

impl<const W: usize> Logic for BoardRam<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, w_active, w_word, w_off, r_active, r_word, r_off, r_left, r_pending, r_keep, r_last, out_data,
            out_keep, out_last, out_valid, skid_data, skid_keep, skid_last, skid_valid, b_pending, b_high, b_data,
            b_ack
        );
        for i in 0..LANES {
            self.lane[i].read_clock.next = self.clock.val();
            self.lane[i].write_clock.next = self.clock.val();
        }

        // The bus: one access at a time, none while its answer is pending.
        self.bus_write.next = self.bus_valid.val() & self.bus_we.val() & !self.b_ack.q.val() & !self.b_pending.q.val();
        self.bus_read.next = false;
        self.b_word.next = self.bus_addr.val().get_bits::<W>(1);

        // DMA write: rotate the beat onto the lanes.
        self.s_dma_wr_cmd_ready.next = !self.w_active.q.val();
        if self.s_dma_wr_cmd_valid.val() & !self.w_active.q.val() {
            self.w_active.d.next = true;
            self.w_word.d.next = self.s_dma_wr_cmd_addr.val().get_bits::<W>(3);
            self.w_off.d.next = self.s_dma_wr_cmd_addr.val().get_bits::<3>(0);
        }
        self.s_dma_wr_tready.next = self.w_active.q.val() & !self.bus_write.val();
        self.w_beat.next = self.s_dma_wr_tvalid.val() & self.s_dma_wr_tready.val();
        // Up by the offset.
        self.w_rotate.data.next = self.s_dma_wr_tdata.val();
        self.w_rotate.keep.next = self.s_dma_wr_tkeep.val();
        self.w_rotate.by.next = self.w_off.q.val();
        self.w_rot.next = self.w_rotate.data_out.val();
        self.w_keep.next = self.w_rotate.keep_out.val();
        self.w_below.next = (self.one8.val() << self.w_off.q.val()) - self.one8.val();
        for i in 0..LANES {
            self.lane[i].write_data.next = self.w_rot.val().get_bits::<8>(8 * i);
            self.lane[i].write_enable.next = self.w_beat.val() & self.w_keep.val().get_bit(i);
            if self.w_below.val().get_bit(i) {
                self.lane[i].write_address.next = self.w_word.q.val() + self.one_word.val();
            } else {
                self.lane[i].write_address.next = self.w_word.q.val();
            }
            if self.bus_write.val() {
                self.lane[i].write_address.next = self.b_word.val();
                self.lane[i].write_data.next = self.bus_wdata.val().get_bits::<8>(self.bus_byte_at[i].val().index());
                self.lane[i].write_enable.next = self.bus_addr.val().get_bit(0) == self.lane_id[i].val().get_bit(2);
            }
        }
        if self.w_beat.val() {
            self.w_word.d.next = self.w_word.q.val() + self.one_word.val();
            if self.s_dma_wr_tlast.val() {
                self.w_active.d.next = false;
            }
        }

        // DMA read: read a beat's lanes, rotate them back a cycle later into
        // the output register, or into the skid register while the output
        // is held; read whenever at most one beat would then be held or on
        // its way (a beat a cycle to a reader that always takes).
        self.s_dma_rd_cmd_ready.next = !self.r_active.q.val();
        if self.s_dma_rd_cmd_valid.val() & !self.r_active.q.val() {
            self.r_active.d.next = self.s_dma_rd_cmd_len.val().any();
            self.r_word.d.next = self.s_dma_rd_cmd_addr.val().get_bits::<W>(3);
            self.r_off.d.next = self.s_dma_rd_cmd_addr.val().get_bits::<3>(0);
            self.r_left.d.next = self.s_dma_rd_cmd_len.val();
        }
        self.out_stays.next = self.out_valid.q.val() & !self.m_dma_rd_tready.val();
        self.r_issue.next = self.r_active.q.val()
            & !((self.out_stays.val() & self.skid_valid.q.val())
                | (self.out_stays.val() & self.r_pending.q.val())
                | (self.skid_valid.q.val() & self.r_pending.q.val()));
        if self.r_left.q.val() < self.eight.val() {
            self.r_keep_now.next = (self.one8.val() << self.r_left.q.val().get_bits::<3>(0)) - self.one8.val();
        } else {
            self.r_keep_now.next = self.ones8.val();
        }
        self.r_below.next = (self.one8.val() << self.r_off.q.val()) - self.one8.val();
        for i in 0..LANES {
            if self.r_below.val().get_bit(i) {
                self.lane[i].read_address.next = self.r_word.q.val() + self.one_word.val();
            } else {
                self.lane[i].read_address.next = self.r_word.q.val();
            }
        }
        self.r_pending.d.next = self.r_issue.val();
        if self.r_issue.val() {
            self.r_word.d.next = self.r_word.q.val() + self.one_word.val();
            self.r_keep.d.next = self.r_keep_now.val();
            self.r_last.d.next = self.r_left.q.val() <= self.eight.val();
            if self.r_left.q.val() <= self.eight.val() {
                self.r_left.d.next = self.zero16.val();
                self.r_active.d.next = false;
            } else {
                self.r_left.d.next = self.r_left.q.val() - self.eight.val();
            }
        } else if self.bus_valid.val() & !self.bus_we.val() & !self.b_ack.q.val() & !self.b_pending.q.val() {
            self.bus_read.next = true;
            for i in 0..LANES {
                self.lane[i].read_address.next = self.b_word.val();
            }
        }
        self.raw.next.l0 = self.lane[0].read_data.val();
        self.raw.next.l1 = self.lane[1].read_data.val();
        self.raw.next.l2 = self.lane[2].read_data.val();
        self.raw.next.l3 = self.lane[3].read_data.val();
        self.raw.next.l4 = self.lane[4].read_data.val();
        self.raw.next.l5 = self.lane[5].read_data.val();
        self.raw.next.l6 = self.lane[6].read_data.val();
        self.raw.next.l7 = self.lane[7].read_data.val();
        self.raw64.next = self.raw.val().into();
        // Down by the offset.
        self.r_rotate.data.next = self.raw64.val();
        self.r_rotate.keep.next = self.zero8.val();
        self.r_rotate.by.next = self.zero3.val() - self.r_off.q.val();
        self.r_rot.next = self.r_rotate.data_out.val();
        if self.out_stays.val() {
            if self.r_pending.q.val() {
                self.skid_data.d.next = self.r_rot.val();
                self.skid_keep.d.next = self.r_keep.q.val();
                self.skid_last.d.next = self.r_last.q.val();
                self.skid_valid.d.next = true;
            }
        } else if self.skid_valid.q.val() {
            // (the skid register is full only behind a full output)
            self.out_valid.d.next = true;
            self.out_data.d.next = self.skid_data.q.val();
            self.out_keep.d.next = self.skid_keep.q.val();
            self.out_last.d.next = self.skid_last.q.val();
            self.skid_valid.d.next = self.r_pending.q.val();
            if self.r_pending.q.val() {
                self.skid_data.d.next = self.r_rot.val();
                self.skid_keep.d.next = self.r_keep.q.val();
                self.skid_last.d.next = self.r_last.q.val();
            }
        } else {
            self.out_valid.d.next = self.r_pending.q.val();
            if self.r_pending.q.val() {
                self.out_data.d.next = self.r_rot.val();
                self.out_keep.d.next = self.r_keep.q.val();
                self.out_last.d.next = self.r_last.q.val();
            }
        }
        self.m_dma_rd_tdata.next = self.out_data.q.val();
        self.m_dma_rd_tkeep.next = self.out_keep.q.val();
        self.m_dma_rd_tlast.next = self.out_last.q.val();
        self.m_dma_rd_tvalid.next = self.out_valid.q.val();

        // The bus's answer.
        self.b_pending.d.next = self.bus_read.val();
        if self.bus_read.val() {
            self.b_high.d.next = self.bus_addr.val().get_bit(0);
        }
        if self.b_high.q.val() {
            self.b_lanes.next.b0 = self.raw.val().l4;
            self.b_lanes.next.b1 = self.raw.val().l5;
            self.b_lanes.next.b2 = self.raw.val().l6;
            self.b_lanes.next.b3 = self.raw.val().l7;
        } else {
            self.b_lanes.next.b0 = self.raw.val().l0;
            self.b_lanes.next.b1 = self.raw.val().l1;
            self.b_lanes.next.b2 = self.raw.val().l2;
            self.b_lanes.next.b3 = self.raw.val().l3;
        }
        if self.b_pending.q.val() {
            self.b_data.d.next = self.b_lanes.val().into();
        }
        self.b_ack.d.next = self.bus_write.val() | self.b_pending.q.val();
        self.bus_ready.next = self.b_ack.q.val();
        self.bus_rdata.next = self.b_data.q.val();

        self.unused_wrap.next = self.s_dma_wr_cmd_addr.val().any()
            | self.s_dma_rd_cmd_addr.val().any()
            | self.bus_addr.val().any()
            | self.s_dma_wr_cmd_len.val().any()
            | self.r_rotate.keep_out.val().any();

        if self.reset.val() {
            self.w_active.d.next = false;
            self.r_active.d.next = false;
            self.r_pending.d.next = false;
            self.out_valid.d.next = false;
            self.skid_valid.d.next = false;
            self.b_pending.d.next = false;
            self.b_ack.d.next = false;
        }
    }
}
