//! `rx_parse`: the receive parser and validator. Takes frames from the MAC
//! (AXI-Stream, 64-bit) and, for each frame, produces one result: whether
//! `ferroce_proto::wire::parse` would accept it, and if not the class of
//! error (the same checks in the same order), with the frame's first 106
//! bytes (every header) and its length.
//!
//! Field offsets and widths are not typed here: each field is a
//! [`FieldGet`] whose byte position and width come from the header tables
//! of `ferroce_proto::wire::headers` (through `crate::layout`), the CRC
//! equations are masks computed from the CRC definition in
//! `ferroce_proto::wire::crc` ([`Crc32Bytes`]), and the error codes, opcodes,
//! NAK codes and protocol numbers are proto's. The CRC takes whole beats:
//! the lanes before its coverage and after the frame's end are zero, the
//! register starts where those leading zeros take it to the initial value
//! and ends, for a good frame, at the residue after the trailing zeros
//! (one eight-byte step, no step for each count of bytes).
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `s_axis_*`: frames, byte 0 in `tdata[7:0]`; `tkeep` all ones but on
//!   the last beat, where it is contiguous from lane 0. A frame longer
//!   than `ferroce_proto::wire::MAX_FRAME_LEN` (16383) bytes, or than the
//!   build's `MAX` of [`RxParseOf`], is a length error, as the model's
//!   parse has it (`EndpointConfig::max_frame_len`).
//!   `tuser` high on any beat marks the frame bad (the MAC's FCS or PHY
//!   error flag, as Corundum's and verilog-ethernet's MACs set bit 0 of
//!   `tuser` on the last beat): its result is [`ErrorCode::MacError`],
//!   before any other check.
//! * `cfg_port`: the UDP destination port of ferroce.
//! * `m_valid`/`m_ready`: one result per frame, held until taken; with it
//!   `m_good`, `m_error` (see [`ErrorCode`]), `m_len` (frame bytes) and
//!   `m_hdr` (frame bytes 0-105, byte i at bits 8i..8i+7; bytes past the
//!   frame's end are unspecified).
//!
//! Throughput: one beat per cycle, plus one cycle per frame for the checks
//! (`s_axis_tready` is low in the cycle after a frame's last beat, and
//! while a result waits to be taken). Latency: the result is valid two
//! cycles after the last beat.
//!
//! `RxParse<HALF>` with `HALF`: the CRC takes four bytes a cycle
//! (`EngineConfig::crc_bytes`), so each beat under it takes two cycles:
//! its low half is stepped while it waits at the input (`s_axis_tready`
//! low), its high half as it is taken. The beats before the transport
//! header take one. Half the CRC's matrix, half the rate.


use rust_hdl::prelude::*;

use ferroce_proto::wire::headers::{ACK, COMMON, CRC_LEN, DATA, ETH, IPV4, NAK, UDP};
use ferroce_proto::wire::{
    crc32_register_before_zeros, crc32_register_zeros, NakCode, Opcode, CRC_INIT, CRC_RESIDUE, ETHERTYPE_IPV4,
    IP_PROTO_UDP, MAX_FRAME_LEN, TRANSPORT_VERSION,
};

use crate::blocks::crc::Crc32Bytes;
use crate::blocks::{HdlDefault, HdlStruct};
use crate::layout::{field_last_byte, field_of, field_word_shift, L2L4};

/// `m_error` codes: proto's parse result classes.
pub use ferroce_proto::wire::ErrorCode;
pub use crate::layout::HDR_BYTES;
/// Width of `m_hdr`.
pub const HDR_BITS: usize = HDR_BYTES * 8;
/// Bits of a bit position in `m_hdr`.
const HDR_INDEX_BITS: usize = (usize::BITS - (HDR_BITS - 1).leading_zeros()) as usize;
/// Bytes per beat.
const BEAT_BYTES: usize = 8;
/// Whole beats of header, then the bits of the header in the next beat.
const HDR_WORDS: usize = HDR_BYTES / BEAT_BYTES;
const TAIL_BITS: usize = HDR_BITS - 64 * HDR_WORDS;
/// Bits of the frame length (saturating at `MAX_FRAME_LEN`).
const LEN_BITS: usize = 14;
const _: () = assert!(MAX_FRAME_LEN == (1 << LEN_BITS) - 1);
const _: () = assert!(HDR_WORDS < 15 && TAIL_BITS > 0, "the beat counter saturates at 15");
const _: () = assert!(ErrorCode::BITS == 4);

/// Four frame bytes as a big-endian word: `b0` is the last byte.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Be32 {
    pub b0: Bits<8>,
    pub b1: Bits<8>,
    pub b2: Bits<8>,
    pub b3: Bits<8>,
}

/// A header field of at most 32 bits out of the header buffer (frame byte i
/// at bits 8i..8i+7): the four frame bytes that end at byte `LAST`, in wire
/// (big-endian) order, and `W` bits of them from bit `SHIFT`. Instantiate
/// through [`field_get!`], which takes the three from the header tables.
#[derive(LogicBlock, HdlDefault)]
pub struct FieldGet<const LAST: usize, const SHIFT: usize, const W: usize> {
    pub hdr: Signal<In, Bits<HDR_BITS>>,
    pub value: Signal<Out, Bits<W>>,
    be: Signal<Local, Be32>,
    word: Signal<Local, Bits<32>>,
    /// The bytes outside the field (named for Verilator's unused check).
    unused: Signal<Local, bool>,
    /// Bit position in `hdr` of frame byte `LAST - i`.
    #[constants(|i: usize| 8 * LAST.saturating_sub(i) as u64)]
    pos: [Constant<Bits<HDR_INDEX_BITS>>; 4],
    #[constant(SHIFT as u64)]
    shift: Constant<Bits<5>>,
}

impl<const LAST: usize, const SHIFT: usize, const W: usize> Logic for FieldGet<LAST, SHIFT, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.be.next.b0 = self.hdr.val().get_bits::<8>(self.pos[0].val().index());
        self.be.next.b1 = self.hdr.val().get_bits::<8>(self.pos[1].val().index());
        self.be.next.b2 = self.hdr.val().get_bits::<8>(self.pos[2].val().index());
        self.be.next.b3 = self.hdr.val().get_bits::<8>(self.pos[3].val().index());
        self.word.next = self.be.val().into();
        self.value.next = self.word.val().get_bits::<W>(self.shift.val().index());
        self.unused.next = self.hdr.val().any() | self.word.val().any();
    }
}

/// The [`FieldGet`] type of field `$name` of header `$h`.
macro_rules! field_get {
    ($h:expr, $name:literal) => {
        FieldGet<
            { field_last_byte(&$h, $name) },
            { field_word_shift(&$h, $name) },
            { field_of(&$h, $name).bits },
        >
    };
}

/// The header buffer: `HDR_WORDS` beats and the first bits of the next.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct HdrWords {
    pub w0: Bits<64>,
    pub w1: Bits<64>,
    pub w2: Bits<64>,
    pub w3: Bits<64>,
    pub w4: Bits<64>,
    pub w5: Bits<64>,
    pub w6: Bits<64>,
    pub w7: Bits<64>,
    pub w8: Bits<64>,
    pub w9: Bits<64>,
    pub w10: Bits<64>,
    pub w11: Bits<64>,
    pub w12: Bits<64>,
    pub tail: Bits<TAIL_BITS>,
}
const _: () = assert!(<HdrWords as Synth>::BITS == HDR_BITS && HDR_WORDS == 13);

/// A length, zero-extended by a bit for the overflow check.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Len15 {
    pub len: Bits<LEN_BITS>,
    pub zero: bool,
}

/// A length in the 16 bits of the header's length fields.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Len16 {
    pub len: Bits<LEN_BITS>,
    pub zero: Bits<2>,
}

/// A 32-bit field zero-extended to 33 bits.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Wide33 {
    pub value: Bits<32>,
    pub zero: bool,
}

/// A 16-bit field zero-extended to 33 bits.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Short33 {
    pub value: Bits<16>,
    pub zero: Bits<17>,
}

/// IPv4 header words, summed.
const IP_WORDS: usize = IPV4.len / 2;
/// Data opcodes and NAK codes, for the loops below.
const OPCODES: usize = Opcode::ALL.len();
const NAK_CODES: usize = NakCode::ALL.len();

/// The parser of a build whose receiver takes frames of up to
/// [`MAX_FRAME_LEN`] bytes (its receive FIFO holds them).
pub type RxParse<const HALF: bool> = RxParseOf<HALF, MAX_FRAME_LEN>;

/// The parser, for frames of up to `MAX` bytes (at most [`MAX_FRAME_LEN`]):
/// a longer frame is a length error, as the model's parse has it for a
/// build whose receive FIFO holds no more
/// (`ferroce_proto::config::EngineConfig::max_frame_len`).
#[derive(LogicBlock, HdlDefault)]
pub struct RxParseOf<const HALF: bool, const MAX: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s_axis_tdata: Signal<In, Bits<64>>,
    pub s_axis_tkeep: Signal<In, Bits<8>>,
    pub s_axis_tvalid: Signal<In, bool>,
    pub s_axis_tready: Signal<Out, bool>,
    pub s_axis_tlast: Signal<In, bool>,
    pub s_axis_tuser: Signal<In, bool>,
    pub cfg_port: Signal<In, Bits<16>>,
    pub m_valid: Signal<Out, bool>,
    pub m_ready: Signal<In, bool>,
    pub m_good: Signal<Out, bool>,
    pub m_error: Signal<Out, Bits<4>>,
    pub m_len: Signal<Out, Bits<14>>,
    pub m_hdr: Signal<Out, Bits<HDR_BITS>>,

    // The frame so far.
    hb_words: [DFF<Bits<64>>; HDR_WORDS],
    hb_tail: DFF<Bits<TAIL_BITS>>,
    len: DFF<Bits<LEN_BITS>>,
    beat: DFF<Bits<4>>,
    crc: DFF<Bits<32>>,
    mac_bad: DFF<bool>,
    too_long: DFF<bool>,
    /// The frame has ended: its checks are made in this cycle.
    checking: DFF<bool>,
    // The result.
    res_valid: DFF<bool>,
    res_good: DFF<bool>,
    res_error: DFF<Bits<4>>,
    res_len: DFF<Bits<LEN_BITS>>,

    /// Zero bytes after the frame's last in its beat.
    pad: DFF<Bits<3>>,
    crc_word: Crc32Bytes<8>,
    /// `HALF`: the four-byte step, and whether the beat at the input has
    /// had its low half stepped.
    crc_half: Crc32Bytes<4>,
    half: DFF<bool>,
    /// `HALF`: the beat at the input is under the CRC and its low half is
    /// still to be stepped (it is not taken in this cycle).
    lo_first: Signal<Local, bool>,
    crc_data: Signal<Local, Bits<64>>,
    f_ethertype: field_get!(ETH, "ethertype"),
    f_ip_version: field_get!(IPV4, "version"),
    f_ip_ihl: field_get!(IPV4, "ihl"),
    f_ip_flags: field_get!(IPV4, "flags"),
    f_ip_frag_off: field_get!(IPV4, "frag_off"),
    f_ip_total_len: field_get!(IPV4, "total_len"),
    f_ip_protocol: field_get!(IPV4, "protocol"),
    f_udp_dport: field_get!(UDP, "dport"),
    f_udp_len: field_get!(UDP, "len"),
    f_version: field_get!(COMMON, "version"),
    f_opcode: field_get!(COMMON, "opcode"),
    f_msg_len: field_get!(DATA, "msg_len"),
    f_offset: field_get!(DATA, "offset"),
    f_payload_len: field_get!(DATA, "payload_len"),
    f_nak_code: field_get!(NAK, "code"),

    hdr: Signal<Local, HdrWords>,
    hb: Signal<Local, Bits<HDR_BITS>>,
    in_ready: Signal<Local, bool>,
    take: Signal<Local, bool>,
    /// Bytes in this beat.
    nbytes: Signal<Local, Bits<15>>,
    len15: Signal<Local, Len15>,
    len_sum: Signal<Local, Bits<15>>,
    /// This beat's lanes the CRC takes (from frame byte L2L4, to its end).
    cmask: Signal<Local, Bits<64>>,
    keep_bits: Signal<Local, Bits<64>>,
    crc_good_sel: Signal<Local, Bits<32>>,
    len16: Signal<Local, Len16>,
    frame_len: Signal<Local, Bits<16>>,
    /// Bytes from the transport header on, then after the common header
    /// and CRC, then after the data extension.
    tp: Signal<Local, Bits<16>>,
    ext: Signal<Local, Bits<16>>,
    payload: Signal<Local, Bits<16>>,
    ip_sum0: Signal<Local, Bits<32>>,
    ip_sum1: Signal<Local, Bits<32>>,
    ip_sum: Signal<Local, Bits<16>>,
    offset33: Signal<Local, Wide33>,
    payload33: Signal<Local, Short33>,
    msg_len33: Signal<Local, Wide33>,
    end_offset: Signal<Local, Bits<33>>,
    msg_end: Signal<Local, Bits<33>>,
    known_opcode: Signal<Local, bool>,
    is_data: Signal<Local, bool>,
    is_ack: Signal<Local, bool>,
    is_nak: Signal<Local, bool>,
    nak_code_ok: Signal<Local, bool>,
    error: Signal<Local, Bits<4>>,

    #[constants(|i: usize| i as u64)]
    beat_no: [Constant<Bits<4>>; HDR_WORDS],
    #[constant(HDR_WORDS as u64)]
    tail_beat: Constant<Bits<4>>,
    #[constant(1u64)]
    one15: Constant<Bits<15>>,
    #[constant(BEAT_BYTES as u64)]
    beat_bytes: Constant<Bits<15>>,
    #[constant(0u64)]
    zero15: Constant<Bits<15>>,
    #[constant(0u64)]
    zero3: Constant<Bits<3>>,
    #[constant(0u64)]
    zero64: Constant<Bits<64>>,
    #[constant(0u64)]
    zero2: Constant<Bits<2>>,
    #[constant(0u64)]
    zero17: Constant<Bits<17>>,
    #[constant(0u64)]
    zero_len: Constant<Bits<LEN_BITS>>,
    #[constant((MAX - BEAT_BYTES) as u64)]
    len_sat: Constant<Bits<LEN_BITS>>,
    #[constant(MAX as u64)]
    len_max: Constant<Bits<LEN_BITS>>,
    #[constant(MAX as u64)]
    len_max15: Constant<Bits<15>>,
    #[constant((L2L4 / BEAT_BYTES) as u64)]
    crc_first_beat: Constant<Bits<4>>,
    /// The first beat's lanes from L2L4 on.
    #[constant(u64::MAX << (8 * (L2L4 % BEAT_BYTES)))]
    crc_first_mask: Constant<Bits<64>>,
    #[constants(|j: usize| 0xffu64 << (8 * j))]
    lane_bits: [Constant<Bits<64>>; BEAT_BYTES],
    /// The register that the first beat's zero lanes take to CRC_INIT.
    #[constant(crc32_register_before_zeros(CRC_INIT, L2L4 % BEAT_BYTES) as u64)]
    crc_init: Constant<Bits<32>>,
    /// The register after a frame and its CRC (the residue), then k zero
    /// bytes.
    #[constants(|k: usize| crc32_register_zeros(!CRC_RESIDUE, k) as u64)]
    crc_good: [Constant<Bits<32>>; BEAT_BYTES],
    #[constants(|k: usize| k as u64 + 1)]
    pad_no: [Constant<Bits<3>>; BEAT_BYTES - 1],
    #[constant(u64::MAX)]
    ones64: Constant<Bits<64>>,
    #[constant(HALF)]
    half_rate: Constant<bool>,
    #[constants(|k: usize| 8 * (ETH.len + 2 * k) as u64)]
    ip_word_pos: [Constant<Bits<HDR_INDEX_BITS>>; IP_WORDS],
    #[constant(0xffffu64)]
    low16: Constant<Bits<32>>,
    #[constant(16u64)]
    sixteen: Constant<Bits<5>>,
    #[constant(0xffffu64)]
    ones16: Constant<Bits<16>>,
    #[constant(ETH.len as u64)]
    eth_len: Constant<Bits<16>>,
    #[constant((ETH.len + IPV4.len) as u64)]
    ip_end: Constant<Bits<16>>,
    #[constant(IPV4.len as u64)]
    ip_len: Constant<Bits<16>>,
    #[constant(L2L4 as u64)]
    l2l4: Constant<Bits<16>>,
    #[constant((COMMON.len + CRC_LEN) as u64)]
    common_crc_len: Constant<Bits<16>>,
    #[constant(DATA.len as u64)]
    data_len: Constant<Bits<16>>,
    #[constant(ACK.len as u64)]
    ack_len: Constant<Bits<16>>,
    #[constant(NAK.len as u64)]
    nak_len: Constant<Bits<16>>,
    #[constant(ETHERTYPE_IPV4 as u64)]
    ethertype_ipv4: Constant<Bits<16>>,
    #[constant(4u64)]
    ip_version4: Constant<Bits<4>>,
    #[constant((IPV4.len / 4) as u64)]
    ip_ihl: Constant<Bits<4>>,
    /// The flags' MF (more fragments) bit.
    #[constant(0b001u64)]
    ip_more_fragments: Constant<Bits<3>>,
    #[constant(0u64)]
    frag_off_zero: Constant<Bits<13>>,
    #[constant(IP_PROTO_UDP as u64)]
    ip_proto_udp: Constant<Bits<8>>,
    #[constant(TRANSPORT_VERSION as u64)]
    version: Constant<Bits<4>>,
    #[constants(|i: usize| Opcode::ALL[i].code() as u64)]
    opcodes: [Constant<Bits<8>>; OPCODES],
    #[constants(|i: usize| Opcode::ALL[i].is_data())]
    opcode_is_data: [Constant<bool>; OPCODES],
    #[constant(Opcode::Ack.code() as u64)]
    opcode_ack: Constant<Bits<8>>,
    #[constant(Opcode::Nak.code() as u64)]
    opcode_nak: Constant<Bits<8>>,
    #[constants(|i: usize| NakCode::ALL[i].code() as u64)]
    nak_codes: [Constant<Bits<8>>; NAK_CODES],
    #[constant(0u64)]
    zero16: Constant<Bits<16>>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
    #[constant(ErrorCode::None.code() as u64)]
    e_none: Constant<Bits<4>>,
    #[constant(ErrorCode::Truncated.code() as u64)]
    e_truncated: Constant<Bits<4>>,
    #[constant(ErrorCode::NotFerroce.code() as u64)]
    e_not_ferroce: Constant<Bits<4>>,
    #[constant(ErrorCode::BadField.code() as u64)]
    e_bad_field: Constant<Bits<4>>,
    #[constant(ErrorCode::BadLength.code() as u64)]
    e_bad_length: Constant<Bits<4>>,
    #[constant(ErrorCode::BadCrc.code() as u64)]
    e_bad_crc: Constant<Bits<4>>,
    #[constant(ErrorCode::BadIpChecksum.code() as u64)]
    e_bad_ip_checksum: Constant<Bits<4>>,
    #[constant(ErrorCode::UnknownOpcode.code() as u64)]
    e_unknown_opcode: Constant<Bits<4>>,
    #[constant(ErrorCode::MacError.code() as u64)]
    e_mac_error: Constant<Bits<4>>,
}

impl<const HALF: bool, const MAX: usize> Logic for RxParseOf<HALF, MAX> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, hb_tail, len, beat, crc, pad, mac_bad, too_long, checking, res_valid, res_good, res_error,
            res_len, half
        );
        for i in 0..HDR_WORDS {
            self.hb_words[i].clock.next = self.clock.val();
            self.hb_words[i].d.next = self.hb_words[i].q.val();
        }
        self.hdr.next.w0 = self.hb_words[0].q.val();
        self.hdr.next.w1 = self.hb_words[1].q.val();
        self.hdr.next.w2 = self.hb_words[2].q.val();
        self.hdr.next.w3 = self.hb_words[3].q.val();
        self.hdr.next.w4 = self.hb_words[4].q.val();
        self.hdr.next.w5 = self.hb_words[5].q.val();
        self.hdr.next.w6 = self.hb_words[6].q.val();
        self.hdr.next.w7 = self.hb_words[7].q.val();
        self.hdr.next.w8 = self.hb_words[8].q.val();
        self.hdr.next.w9 = self.hb_words[9].q.val();
        self.hdr.next.w10 = self.hb_words[10].q.val();
        self.hdr.next.w11 = self.hb_words[11].q.val();
        self.hdr.next.w12 = self.hb_words[12].q.val();
        self.hdr.next.tail = self.hb_tail.q.val();
        self.hb.next = self.hdr.val().into();

        self.in_ready.next = !self.checking.q.val() & (!self.res_valid.q.val() | self.m_ready.val());
        self.lo_first.next =
            self.half_rate.val() & (self.beat.q.val() >= self.crc_first_beat.val()) & !self.half.q.val();
        self.take.next = self.s_axis_tvalid.val() & self.in_ready.val() & !self.lo_first.val();

        // Bytes in this beat (tkeep contiguous from lane 0 on the last).
        if self.s_axis_tlast.val() {
            self.nbytes.next = self.zero15.val();
            for lane in 0..BEAT_BYTES {
                if self.s_axis_tkeep.val().get_bit(lane) {
                    self.nbytes.next = self.nbytes.val() + self.one15.val();
                }
            }
        } else {
            self.nbytes.next = self.beat_bytes.val();
        }
        self.len15.next.len = self.len.q.val();
        self.len15.next.zero = false;
        self.len_sum.next = self.len15.val().into();
        self.len_sum.next = self.len_sum.val() + self.nbytes.val();

        // CRC coverage: frame bytes from L2L4 on, a whole beat a step. The
        // first beat's lanes before L2L4 are zero, and the register starts
        // where that many zero bytes take it to the CRC's initial value;
        // the last beat's lanes after its bytes are zero, and the check
        // then looks for the residue that many zero bytes make of it. One
        // step of eight bytes, not one for every count.
        self.cmask.next = self.ones64.val();
        if self.beat.q.val() == self.crc_first_beat.val() {
            self.cmask.next = self.crc_first_mask.val();
        }
        self.keep_bits.next = self.zero64.val();
        for j in 0..BEAT_BYTES {
            if self.s_axis_tkeep.val().get_bit(j) {
                self.keep_bits.next = self.keep_bits.val() | self.lane_bits[j].val();
            }
        }
        if self.s_axis_tlast.val() {
            self.cmask.next = self.cmask.val() & self.keep_bits.val();
        }
        self.crc_data.next = self.s_axis_tdata.val() & self.cmask.val();
        self.crc_word.crc.next = self.crc.q.val();
        self.crc_word.data.next = self.crc_data.val();
        // `HALF`: the low half while the beat waits, the high half as it
        // is taken.
        self.crc_half.crc.next = self.crc.q.val();
        self.crc_half.data.next = self.crc_data.val();
        if self.half.q.val() {
            self.crc_half.data.next = self.crc_data.val() >> 32;
        }
        if self.lo_first.val() & self.s_axis_tvalid.val() & self.in_ready.val() {
            self.crc.d.next = self.crc_half.crc_next.val();
            self.half.d.next = true;
        }

        if self.res_valid.q.val() & self.m_ready.val() {
            self.res_valid.d.next = false;
        }
        if self.take.val() {
            for i in 0..HDR_WORDS {
                if self.beat.q.val() == self.beat_no[i].val() {
                    self.hb_words[i].d.next = self.s_axis_tdata.val();
                }
            }
            if self.beat.q.val() == self.tail_beat.val() {
                self.hb_tail.d.next = self.s_axis_tdata.val().get_bits::<TAIL_BITS>(0);
            }
            if !self.beat.q.val().all() {
                self.beat.d.next = self.beat.q.val() + true;
            }
            if self.len.q.val() > self.len_sat.val() {
                self.len.d.next = self.len_max.val();
            } else {
                self.len.d.next = self.len_sum.val().get_bits::<LEN_BITS>(0);
            }
            if self.beat.q.val() >= self.crc_first_beat.val() {
                self.crc.d.next = self.crc_word.crc_next.val();
                if self.half_rate.val() {
                    self.crc.d.next = self.crc_half.crc_next.val();
                }
            }
            self.half.d.next = false;
            // zero bytes after the frame's last in its beat
            self.pad.d.next = self.zero3.val() - self.nbytes.val().get_bits::<3>(0);
            if self.s_axis_tuser.val() {
                self.mac_bad.d.next = true;
            }
            if self.len_sum.val() > self.len_max15.val() {
                self.too_long.d.next = true;
            }
            if self.s_axis_tlast.val() {
                self.checking.d.next = true;
            }
        }

        // Fields, from the tables.
        self.f_ethertype.hdr.next = self.hb.val();
        self.f_ip_version.hdr.next = self.hb.val();
        self.f_ip_ihl.hdr.next = self.hb.val();
        self.f_ip_flags.hdr.next = self.hb.val();
        self.f_ip_frag_off.hdr.next = self.hb.val();
        self.f_ip_total_len.hdr.next = self.hb.val();
        self.f_ip_protocol.hdr.next = self.hb.val();
        self.f_udp_dport.hdr.next = self.hb.val();
        self.f_udp_len.hdr.next = self.hb.val();
        self.f_version.hdr.next = self.hb.val();
        self.f_opcode.hdr.next = self.hb.val();
        self.f_msg_len.hdr.next = self.hb.val();
        self.f_offset.hdr.next = self.hb.val();
        self.f_payload_len.hdr.next = self.hb.val();
        self.f_nak_code.hdr.next = self.hb.val();

        // IPv4 header checksum: the ones' complement sum of its words. The
        // words are summed as they lie in the buffer (bytes swapped): a
        // ones' complement sum of byte-swapped words is the byte-swapped
        // sum (RFC 1071, 2.B), and all ones is all ones either way.
        self.ip_sum0.next = self.zero32.val();
        for k in 0..IP_WORDS {
            self.ip_sum0.next =
                self.ip_sum0.val() + (self.hb.val().get_bits::<32>(self.ip_word_pos[k].val().index()) & self.low16.val());
        }
        self.ip_sum1.next = (self.ip_sum0.val() & self.low16.val()) + (self.ip_sum0.val() >> self.sixteen.val());
        self.ip_sum.next = self.ip_sum1.val().get_bits::<16>(0) + self.ip_sum1.val().get_bits::<16>(16);

        // Lengths, in 16 bits.
        self.len16.next.len = self.len.q.val();
        self.len16.next.zero = self.zero2.val();
        self.frame_len.next = self.len16.val().into();
        self.tp.next = self.frame_len.val() - self.l2l4.val();
        self.ext.next = self.tp.val() - self.common_crc_len.val();
        self.crc_good_sel.next = self.crc_good[0].val();
        for k in 1..BEAT_BYTES {
            if self.pad.q.val() == self.pad_no[k - 1].val() {
                self.crc_good_sel.next = self.crc_good[k].val();
            }
        }
        self.payload.next = self.ext.val() - self.data_len.val();
        self.offset33.next.value = self.f_offset.value.val();
        self.offset33.next.zero = false;
        self.payload33.next.value = self.f_payload_len.value.val();
        self.payload33.next.zero = self.zero17.val();
        self.msg_len33.next.value = self.f_msg_len.value.val();
        self.msg_len33.next.zero = false;
        self.end_offset.next = self.offset33.val().into();
        self.msg_end.next = self.payload33.val().into();
        self.end_offset.next = self.end_offset.val() + self.msg_end.val();
        self.msg_end.next = self.msg_len33.val().into();

        self.known_opcode.next = false;
        self.is_data.next = false;
        for k in 0..OPCODES {
            if self.f_opcode.value.val() == self.opcodes[k].val() {
                self.known_opcode.next = true;
                self.is_data.next = self.opcode_is_data[k].val();
            }
        }
        self.is_ack.next = self.f_opcode.value.val() == self.opcode_ack.val();
        self.is_nak.next = self.f_opcode.value.val() == self.opcode_nak.val();
        self.nak_code_ok.next = false;
        for k in 0..NAK_CODES {
            if self.f_nak_code.value.val() == self.nak_codes[k].val() {
                self.nak_code_ok.next = true;
            }
        }

        // The checks, in the order parse() makes them.
        if self.mac_bad.q.val() {
            self.error.next = self.e_mac_error.val();
        } else if self.too_long.q.val() {
            self.error.next = self.e_bad_length.val();
        } else if self.frame_len.val() < self.eth_len.val() {
            self.error.next = self.e_truncated.val();
        } else if self.f_ethertype.value.val() != self.ethertype_ipv4.val() {
            self.error.next = self.e_not_ferroce.val();
        } else if self.frame_len.val() < self.ip_end.val() {
            self.error.next = self.e_truncated.val();
        } else if (self.f_ip_version.value.val() != self.ip_version4.val())
            | (self.f_ip_ihl.value.val() != self.ip_ihl.val())
        {
            self.error.next = self.e_bad_field.val();
        } else if self.ip_sum.val() != self.ones16.val() {
            self.error.next = self.e_bad_ip_checksum.val();
        } else if (self.f_ip_frag_off.value.val() != self.frag_off_zero.val())
            | (self.f_ip_flags.value.val() & self.ip_more_fragments.val()).any()
        {
            self.error.next = self.e_bad_field.val();
        } else if self.eth_len.val() + self.f_ip_total_len.value.val() != self.frame_len.val() {
            self.error.next = self.e_bad_length.val();
        } else if self.f_ip_protocol.value.val() != self.ip_proto_udp.val() {
            self.error.next = self.e_not_ferroce.val();
        } else if self.frame_len.val() < self.l2l4.val() {
            self.error.next = self.e_truncated.val();
        } else if self.f_udp_dport.value.val() != self.cfg_port.val() {
            self.error.next = self.e_not_ferroce.val();
        } else if self.f_udp_len.value.val() != self.f_ip_total_len.value.val() - self.ip_len.val() {
            self.error.next = self.e_bad_length.val();
        } else if self.tp.val() < self.common_crc_len.val() {
            self.error.next = self.e_truncated.val();
        } else if self.crc.q.val() != self.crc_good_sel.val() {
            self.error.next = self.e_bad_crc.val();
        } else if self.f_version.value.val() != self.version.val() {
            self.error.next = self.e_bad_field.val();
        } else if !self.known_opcode.val() {
            self.error.next = self.e_unknown_opcode.val();
        } else if self.is_data.val() & (self.ext.val() < self.data_len.val()) {
            self.error.next = self.e_truncated.val();
        } else if self.is_data.val() & (self.payload.val() != self.f_payload_len.value.val()) {
            self.error.next = self.e_bad_length.val();
        } else if self.is_data.val()
            & ((self.f_msg_len.value.val() == self.zero32.val())
                | (self.f_payload_len.value.val() == self.zero16.val()))
        {
            self.error.next = self.e_bad_field.val();
        } else if self.is_data.val() & (self.end_offset.val() > self.msg_end.val()) {
            self.error.next = self.e_bad_length.val();
        } else if self.is_ack.val() & (self.ext.val() != self.ack_len.val()) {
            self.error.next = self.e_bad_length.val();
        } else if self.is_nak.val() & (self.ext.val() != self.nak_len.val()) {
            self.error.next = self.e_bad_length.val();
        } else if self.is_nak.val() & !self.nak_code_ok.val() {
            self.error.next = self.e_bad_field.val();
        } else {
            self.error.next = self.e_none.val();
        }

        if self.checking.q.val() & (!self.res_valid.q.val() | self.m_ready.val()) {
            self.checking.d.next = false;
            self.res_valid.d.next = true;
            self.res_good.d.next = self.error.val() == self.e_none.val();
            self.res_error.d.next = self.error.val();
            self.res_len.d.next = self.len.q.val();
            self.beat.d.next = self.beat_no[0].val();
            self.len.d.next = self.zero_len.val();
            self.crc.d.next = self.crc_init.val();
            self.mac_bad.d.next = false;
            self.too_long.d.next = false;
        }
        if self.reset.val() {
            self.half.d.next = false;
            self.beat.d.next = self.beat_no[0].val();
            self.len.d.next = self.zero_len.val();
            self.crc.d.next = self.crc_init.val();
            self.mac_bad.d.next = false;
            self.too_long.d.next = false;
            self.checking.d.next = false;
            self.res_valid.d.next = false;
            self.res_good.d.next = false;
            self.res_error.d.next = self.e_none.val();
            self.res_len.d.next = self.zero_len.val();
        }

        self.s_axis_tready.next = self.in_ready.val() & !self.lo_first.val();
        self.m_valid.next = self.res_valid.q.val();
        self.m_good.next = self.res_good.q.val();
        self.m_error.next = self.res_error.q.val();
        self.m_len.next = self.res_len.q.val();
        self.m_hdr.next = self.hb.val();
    }
}
