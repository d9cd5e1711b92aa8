//! `crc_append`: the trailer's CRC-32 added to frames on their way to the
//! MAC, so that the send path's two frame builders (data, and ACK/NAK)
//! share one CRC instead of carrying one each: the CRC of up to 8 bytes a
//! cycle, at any byte count, is about half of a builder's logic on ECP5.
//!
//! In: frames without their trailer (AXI-Stream, 64-bit, byte 0 in
//! `tdata[7:0]`, every beat full but the last, `tkeep` contiguous from lane
//! 0). Out: the same frames with the CRC of their bytes from the transport
//! header on (`ferroce_proto::wire::crc32`, byte offset `L2L4`), least
//! significant byte first, right after the last byte: in the last beat
//! when it has room, else in one more beat. Byte for byte what
//! `ferroce_proto::wire::encode` produces.
//!
//! One beat is held (`hold`): the CRC register is updated as a beat enters
//! it, so the last beat leaves with its frame's CRC from a register and no
//! CRC logic lies between the input and the output. A frame takes as many
//! cycles as its beats out; the hold adds one cycle of latency.
//!
//! `CrcAppend<SERIAL>`: a beat's step is the CRC of eight bytes, the lanes
//! past its bytes zero. With `SERIAL` false the zero bytes past the last
//! beat's end are taken back in the same step (three matrices, by 4, 2 and
//! 1 bytes, and their multiplexers). With `SERIAL` true they are taken
//! back one a cycle after the last beat is in (one matrix), while the
//! last beat waits in the hold and no beat enters: up to 7 cycles a frame,
//! for a build whose clock outpaces its port (`EngineConfig::serial_crc_tail`),
//! about 320 LUT4 less on ECP5.
//!
//! `CrcAppend<SERIAL, HALF>` with `HALF` (and `SERIAL`): the CRC takes
//! four bytes a cycle (`EngineConfig::crc_bytes`), a beat under it in two
//! cycles: its low half while the beat waits at the input (`s_axis_tready`
//! low), its high half as it enters the hold. The beats before the
//! transport header pass in one cycle each. Half the matrix (about 250
//! LUT4 less on ECP5), half the rate for the frame's covered beats.
//!
//! Ports (`clock`; `reset` synchronous, active high): `s_axis_*` in,
//! `m_axis_*` out, both with back-pressure.

use rust_hdl::prelude::*;

use ferroce_proto::wire::{crc32_register_before_zeros, CRC_INIT};

use crate::blocks::crc::{Crc32Bytes, Crc32Step, Crc32Unzero};
use crate::blocks::{HdlDefault, HdlStruct};
use crate::layout::L2L4;

/// The beat holding the first byte under the CRC, and the bytes of that
/// beat before it.
const CRC_BEAT: usize = L2L4 / 8;
const CRC_LANE: usize = L2L4 % 8;
// The beat counter saturates at CRC_BEAT + 1 (3 bits).
const _: () = assert!(CRC_BEAT == 5 && CRC_LANE == 2);

/// A 32-bit CRC zero-extended to 128 bits.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Crc128 {
    pub crc: Bits<32>,
    pub zero: Bits<96>,
}

/// A 64-bit beat zero-extended to 128 bits.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Beat128 {
    pub data: Bits<64>,
    pub zero: Bits<64>,
}

/// A byte count as a bit shift (`n` * 8).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ByteShift {
    pub zero: Bits<3>,
    pub n: Bits<4>,
}

#[derive(LogicBlock, HdlDefault)]
pub struct CrcAppend<const SERIAL: bool, const HALF: bool> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s_axis_tdata: Signal<In, Bits<64>>,
    pub s_axis_tkeep: Signal<In, Bits<8>>,
    pub s_axis_tvalid: Signal<In, bool>,
    pub s_axis_tready: Signal<Out, bool>,
    pub s_axis_tlast: Signal<In, bool>,
    pub m_axis_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tvalid: Signal<Out, bool>,
    pub m_axis_tready: Signal<In, bool>,
    pub m_axis_tlast: Signal<Out, bool>,
    // the held beat: its bytes (lanes past `hn` zero), how many, last
    hv: DFF<bool>,
    hdata: DFF<Bits<64>>,
    hn: DFF<Bits<4>>,
    hlast: DFF<bool>,
    // the CRC's spill into a beat of its own
    xv: DFF<bool>,
    xdata: DFF<Bits<64>>,
    xn: DFF<Bits<4>>,
    // the CRC register, and the index of the next beat in (saturating)
    crc: DFF<Bits<32>>,
    beat: DFF<Bits<3>>,
    step: Crc32Step,
    /// `SERIAL`: the zero bytes of the last beat still to take back, and
    /// the matrix that takes one back.
    uz: DFF<Bits<3>>,
    unzero1: Crc32Unzero<1>,
    /// `HALF`: the beat at the input has had its low half stepped; the
    /// four-byte step, its input register and data.
    half: DFF<bool>,
    s4: Crc32Bytes<4>,
    /// `HALF`: the beat at the input is under the CRC and its low half is
    /// still to be stepped (it is not taken in this cycle).
    lo_first: Signal<Local, bool>,
    masked_in: Signal<Local, Bits<64>>,
    /// The held beat may leave (not the last while `uz` is counting).
    h_out: Signal<Local, bool>,
    /// The zero bytes past the last beat's: 8 - n, mod 8.
    zeros_out: Signal<Local, Bits<3>>,
    n_in: Signal<Local, Bits<4>>,
    mask_in: Signal<Local, Bits<64>>,
    take: Signal<Local, bool>,
    fire: Signal<Local, bool>,
    // the last beat with the CRC after its bytes, 128 bits wide
    crc_wide: Signal<Local, Crc128>,
    crc_shift: Signal<Local, ByteShift>,
    beat_wide: Signal<Local, Beat128>,
    crc_bits: Signal<Local, Bits<128>>,
    shift_bits: Signal<Local, Bits<7>>,
    merged: Signal<Local, Bits<128>>,
    ready_in: Signal<Local, bool>,
    n_out: Signal<Local, Bits<4>>,
    spill: Signal<Local, bool>,
    #[constants(|j: usize| j as u64 + 1)]
    lane_count: [Constant<Bits<4>>; 8],
    /// The lanes of j + 1 bytes.
    #[constants(|j: usize| u64::MAX >> (8 * (7 - j)))]
    lanes_mask: [Constant<Bits<64>>; 8],
    /// `tkeep` of n bytes (0-8), and n + 1 (1-8).
    #[constants(|n: usize| (1u64 << n) - 1)]
    keep_of: [Constant<Bits<8>>; 9],
    #[constants(|n: usize| n as u64 + 1)]
    count_of: [Constant<Bits<4>>; 8],
    /// The register that the first covered beat's bytes before the
    /// transport header, as zeros, take to the initial value.
    #[constant(crc32_register_before_zeros(CRC_INIT, CRC_LANE) as u64)]
    crc_pre: Constant<Bits<32>>,
    /// The lanes from the transport header on.
    #[constant(u64::MAX << (8 * CRC_LANE))]
    after_lane: Constant<Bits<64>>,
    #[constant(CRC_BEAT as u64)]
    crc_beat: Constant<Bits<3>>,
    #[constant(CRC_BEAT as u64 + 1)]
    after_crc_beat: Constant<Bits<3>>,
    #[constant(1u64)]
    one3: Constant<Bits<3>>,
    #[constant(4u64)]
    four: Constant<Bits<4>>,
    #[constant(8u64)]
    eight: Constant<Bits<4>>,
    #[constant(0u64)]
    zero3: Constant<Bits<3>>,
    #[constant(0u64)]
    zero4: Constant<Bits<4>>,
    #[constant(0u64)]
    zero64: Constant<Bits<64>>,
    #[constant(0u64)]
    zero96: Constant<Bits<96>>,
    #[constant(0xffu64)]
    all8: Constant<Bits<8>>,
    #[constant(SERIAL)]
    serial: Constant<bool>,
    #[constant(HALF)]
    half_rate: Constant<bool>,
}

impl<const SERIAL: bool, const HALF: bool> Logic for CrcAppend<SERIAL, HALF> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, hv, hdata, hn, hlast, xv, xdata, xn, crc, beat, uz, half);
        self.h_out.next = self.hv.q.val() & !(self.hlast.q.val() & self.uz.q.val().any());

        // ---- out: the spill first, else the held beat (the last with its CRC) ----
        self.crc_wide.next.crc = !self.crc.q.val();
        self.crc_wide.next.zero = self.zero96.val();
        self.crc_shift.next.zero = self.zero3.val();
        self.crc_shift.next.n = self.hn.q.val();
        self.beat_wide.next.data = self.hdata.q.val();
        self.beat_wide.next.zero = self.zero64.val();
        self.crc_bits.next = self.crc_wide.val().into();
        self.shift_bits.next = self.crc_shift.val().into();
        self.merged.next =
            bit_cast::<128, 128>(self.beat_wide.val().into()) | (self.crc_bits.val() << self.shift_bits.val());
        self.n_out.next = self.hn.q.val() + self.four.val();
        self.spill.next = self.hlast.q.val() & (self.n_out.val() > self.eight.val());
        self.m_axis_tvalid.next = self.xv.q.val() | self.h_out.val();
        self.m_axis_tdata.next = self.hdata.q.val();
        self.m_axis_tkeep.next = self.all8.val();
        self.m_axis_tlast.next = false;
        if self.xv.q.val() {
            self.m_axis_tdata.next = self.xdata.q.val();
            self.m_axis_tkeep.next = self.keep_of[0].val();
            for n in 0..8 {
                if self.xn.q.val() == self.count_of[n].val() {
                    self.m_axis_tkeep.next = self.keep_of[n + 1].val();
                }
            }
            self.m_axis_tlast.next = true;
        } else if self.hlast.q.val() {
            self.m_axis_tdata.next = self.merged.val().get_bits::<64>(0);
            if !self.spill.val() {
                for n in 0..8 {
                    if self.n_out.val() == self.count_of[n].val() {
                        self.m_axis_tkeep.next = self.keep_of[n + 1].val();
                    }
                }
                self.m_axis_tlast.next = true;
            }
        }
        self.fire.next = (self.xv.q.val() | self.h_out.val()) & self.m_axis_tready.val();
        if self.fire.val() {
            if self.xv.q.val() {
                self.xv.d.next = false;
            } else {
                self.hv.d.next = false;
                if self.spill.val() {
                    self.xv.d.next = true;
                    self.xdata.d.next = self.merged.val().get_bits::<64>(64);
                    self.xn.d.next = self.n_out.val() - self.eight.val();
                }
            }
        }

        // ---- in: into the hold when it is empty or leaves now ----
        self.ready_in.next = !self.hv.q.val() | (self.fire.val() & !self.xv.q.val());
        self.n_in.next = self.zero4.val();
        self.mask_in.next = self.zero64.val();
        for j in 0..8 {
            if self.s_axis_tkeep.val().get_bit(j) {
                self.n_in.next = self.lane_count[j].val();
                self.mask_in.next = self.lanes_mask[j].val();
            }
        }
        self.lo_first.next = self.half_rate.val()
            & (self.beat.q.val() >= self.crc_beat.val())
            & self.n_in.val().any()
            & !self.half.q.val();
        self.s_axis_tready.next = self.ready_in.val() & !self.lo_first.val();
        self.take.next = self.s_axis_tvalid.val() & self.ready_in.val() & !self.lo_first.val();
        // The CRC from the transport header on: the first covered beat
        // without its first bytes and from the initial value, then every
        // beat's bytes.
        // The first covered beat's bytes before the transport header are
        // zeros from the register that those zeros take to the initial value.
        self.step.crc.next = self.crc.q.val();
        self.step.data.next = self.s_axis_tdata.val() & self.mask_in.val();
        self.step.bytes.next = self.n_in.val();
        self.zeros_out.next = self.zero3.val() - self.n_in.val().get_bits::<3>(0);
        if self.serial.val() & self.n_in.val().any() {
            self.step.bytes.next = self.eight.val();
        }
        if self.beat.q.val() == self.crc_beat.val() {
            self.step.crc.next = self.crc_pre.val();
            self.step.data.next = self.s_axis_tdata.val() & self.mask_in.val() & self.after_lane.val();
        }
        // `HALF`: the low half from the initial register's preimage (first
        // covered beat) or the register, then the high half.
        self.masked_in.next = self.s_axis_tdata.val() & self.mask_in.val();
        if self.beat.q.val() == self.crc_beat.val() {
            self.masked_in.next = self.s_axis_tdata.val() & self.mask_in.val() & self.after_lane.val();
        }
        self.s4.crc.next = self.crc.q.val();
        self.s4.data.next = self.masked_in.val();
        if self.half.q.val() {
            self.s4.data.next = self.masked_in.val() >> 32;
        } else if self.beat.q.val() == self.crc_beat.val() {
            self.s4.crc.next = self.crc_pre.val();
        }
        if self.lo_first.val() & self.s_axis_tvalid.val() & self.ready_in.val() {
            self.crc.d.next = self.s4.crc_next.val();
            self.half.d.next = true;
        }
        if self.take.val() {
            self.hv.d.next = true;
            self.hdata.d.next = self.s_axis_tdata.val() & self.mask_in.val();
            self.hn.d.next = self.n_in.val();
            self.hlast.d.next = self.s_axis_tlast.val();
            self.half.d.next = false;
            if self.beat.q.val() >= self.crc_beat.val() {
                self.crc.d.next = self.step.crc_next.val();
                if self.half_rate.val() {
                    // the high half (a beat without bytes: no step)
                    self.crc.d.next = self.crc.q.val();
                    if self.n_in.val().any() {
                        self.crc.d.next = self.s4.crc_next.val();
                    }
                }
                // the zero bytes past the frame's end, taken back below
                if self.serial.val() & self.s_axis_tlast.val() & self.n_in.val().any() {
                    self.uz.d.next = self.zeros_out.val();
                }
            }
            if self.s_axis_tlast.val() {
                self.beat.d.next = self.zero3.val();
            } else if self.beat.q.val() < self.after_crc_beat.val() {
                self.beat.d.next = self.beat.q.val() + self.one3.val();
            }
        }
        // `SERIAL`: one zero byte taken back a cycle; no beat enters then
        // (the last beat is held and cannot leave).
        self.unzero1.crc.next = self.crc.q.val();
        if self.uz.q.val().any() {
            self.crc.d.next = self.unzero1.crc_before.val();
            self.uz.d.next = self.uz.q.val() - self.one3.val();
        }
        if self.reset.val() {
            self.hv.d.next = false;
            self.xv.d.next = false;
            self.beat.d.next = self.zero3.val();
            self.uz.d.next = self.zero3.val();
            self.half.d.next = false;
        }
    }
}
