//! `rx_fields`: the header fields `rx_path`'s control logic reads, taken
//! out of a parsed frame's header buffer (`rx_parse`'s `m_hdr`: frame byte i
//! at bits 8i..8i+7, so a multi-byte field is big-endian across bytes).
//!
//! Purely combinational. Every field's position comes from the header
//! tables of `ferroce_proto::wire` (through `crate::layout`): each byte of a
//! field is a part-select at a named constant offset, and the bytes are put
//! back in value order by a packed struct (`Be16`, ...), least significant
//! byte first. `sack` is the ACK's bitmap in slot order (bit k: PSN k mod
//! 256), which is how it lies in the buffer.

use rust_hdl::prelude::*;

use ferroce_proto::wire::headers::{ACK, COMMON, DATA, ETH, IPV4, NAK, UDP};
use ferroce_proto::wire::Header;

use crate::blocks::{HdlDefault, HdlStruct};
use crate::layout::{frame_offset, slices, HDR_BYTES};

/// Bits of the header buffer.
pub const HB: usize = HDR_BYTES * 8;

/// Two bytes in value order.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Be16 {
    pub b0: Bits<8>,
    pub b1: Bits<8>,
}

/// Three bytes in value order.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Be24 {
    pub b0: Bits<8>,
    pub b1: Bits<8>,
    pub b2: Bits<8>,
}

/// Four bytes in value order.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Be32 {
    pub b0: Bits<8>,
    pub b1: Bits<8>,
    pub b2: Bits<8>,
    pub b3: Bits<8>,
}

/// Six bytes in value order.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Be48 {
    pub b0: Bits<8>,
    pub b1: Bits<8>,
    pub b2: Bits<8>,
    pub b3: Bits<8>,
    pub b4: Bits<8>,
    pub b5: Bits<8>,
}

/// Eight bytes in value order.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Be64 {
    pub b0: Bits<8>,
    pub b1: Bits<8>,
    pub b2: Bits<8>,
    pub b3: Bits<8>,
    pub b4: Bits<8>,
    pub b5: Bits<8>,
    pub b6: Bits<8>,
    pub b7: Bits<8>,
}

/// Buffer bit offset of byte `j` (0 = least significant) of a byte-aligned
/// field of `h`.
pub fn byte_at(h: &Header, name: &str, j: usize) -> u64 {
    let s = slices(h, name);
    let n = s.len();
    assert!(h.field(name).bits == 8 * n, "{}.{name} is not byte-aligned", h.name);
    assert!(s.iter().all(|p| p.top - p.bottom == 7));
    s[n - 1 - j].bottom as u64
}

/// Buffer bit offset of a field of `h` that lies within one byte.
pub fn bits_at(h: &Header, name: &str) -> u64 {
    let s = slices(h, name);
    assert!(s.len() == 1, "{}.{name} spans bytes", h.name);
    s[0].bottom as u64
}

/// Buffer bit offset of the ACK's SACK bitmap (whole bytes, slot 8i+k in
/// bit k of byte i).
pub fn sack_at() -> u64 {
    let f = ACK.field("sack");
    assert!(f.bits == 256 && f.bit_offset % 8 == 0);
    (8 * (frame_offset(&ACK) + f.byte_offset())) as u64
}

/// The destination MAC and IPv4 address of a header buffer: the frame
/// filter's fields (the parser's result, before it is queued).
#[derive(LogicBlock, HdlDefault)]
pub struct DstFields {
    pub hdr: Signal<In, Bits<HB>>,
    pub dst_mac: Signal<Out, Bits<48>>,
    pub dst_ip: Signal<Out, Bits<32>>,
    dst_mac_be: Signal<Local, Be48>,
    dst_ip_be: Signal<Local, Be32>,
    // the rest of the headers
    unused_hdr: Signal<Local, bool>,
    #[constants(|j| byte_at(&ETH, "dst", j))]
    at_dst_mac: [Constant<Bits<32>>; 6],
    #[constants(|j| byte_at(&IPV4, "dst", j))]
    at_dst_ip: [Constant<Bits<32>>; 4],
}

impl Logic for DstFields {
    #[hdl_gen]
    fn update(&mut self) {
        self.dst_mac_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_dst_mac[0].val().index());
        self.dst_mac_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_dst_mac[1].val().index());
        self.dst_mac_be.next.b2 = self.hdr.val().get_bits::<8>(self.at_dst_mac[2].val().index());
        self.dst_mac_be.next.b3 = self.hdr.val().get_bits::<8>(self.at_dst_mac[3].val().index());
        self.dst_mac_be.next.b4 = self.hdr.val().get_bits::<8>(self.at_dst_mac[4].val().index());
        self.dst_mac_be.next.b5 = self.hdr.val().get_bits::<8>(self.at_dst_mac[5].val().index());
        self.dst_mac.next = self.dst_mac_be.val().into();
        self.dst_ip_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_dst_ip[0].val().index());
        self.dst_ip_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_dst_ip[1].val().index());
        self.dst_ip_be.next.b2 = self.hdr.val().get_bits::<8>(self.at_dst_ip[2].val().index());
        self.dst_ip_be.next.b3 = self.hdr.val().get_bits::<8>(self.at_dst_ip[3].val().index());
        self.dst_ip.next = self.dst_ip_be.val().into();
        self.unused_hdr.next = false & self.hdr.val().any();
    }
}

/// The fields of the frame being processed.
#[derive(LogicBlock, HdlDefault)]
pub struct RxFields {
    pub hdr: Signal<In, Bits<HB>>,
    pub ecn: Signal<Out, Bits<2>>,
    pub src_ip: Signal<Out, Bits<32>>,
    pub sport: Signal<Out, Bits<16>>,
    pub opcode: Signal<Out, Bits<8>>,
    pub conn: Signal<Out, Bits<16>>,
    pub path: Signal<Out, Bits<8>>,
    pub psn: Signal<Out, Bits<24>>,
    pub ts: Signal<Out, Bits<32>>,
    pub stream: Signal<Out, Bits<16>>,
    pub flags: Signal<Out, Bits<8>>,
    pub generation: Signal<Out, Bits<8>>,
    pub msg_seq: Signal<Out, Bits<32>>,
    pub msg_len: Signal<Out, Bits<32>>,
    pub offset: Signal<Out, Bits<32>>,
    pub plen: Signal<Out, Bits<16>>,
    pub raddr: Signal<Out, Bits<64>>,
    pub rkey: Signal<Out, Bits<32>>,
    pub imm: Signal<Out, Bits<32>>,
    pub sack: Signal<Out, Bits<256>>,
    pub ts_echo: Signal<Out, Bits<32>>,
    pub hint: Signal<Out, Bits<32>>,
    pub ecn_ce: Signal<Out, Bits<16>>,
    pub pkts: Signal<Out, Bits<16>>,
    pub nak_code: Signal<Out, Bits<8>>,
    pub nak_msg: Signal<Out, Bits<32>>,
    src_ip_be: Signal<Local, Be32>,
    sport_be: Signal<Local, Be16>,
    conn_be: Signal<Local, Be16>,
    psn_be: Signal<Local, Be24>,
    ts_be: Signal<Local, Be32>,
    stream_be: Signal<Local, Be16>,
    msg_seq_be: Signal<Local, Be32>,
    msg_len_be: Signal<Local, Be32>,
    offset_be: Signal<Local, Be32>,
    plen_be: Signal<Local, Be16>,
    raddr_be: Signal<Local, Be64>,
    rkey_be: Signal<Local, Be32>,
    imm_be: Signal<Local, Be32>,
    ts_echo_be: Signal<Local, Be32>,
    hint_be: Signal<Local, Be32>,
    ecn_ce_be: Signal<Local, Be16>,
    pkts_be: Signal<Local, Be16>,
    nak_msg_be: Signal<Local, Be32>,
    // header bits no field here reads (Ethernet, most of IPv4 and UDP, reserved)
    unused_hdr: Signal<Local, bool>,
    #[constant(bits_at(&IPV4, "ecn"))]
    at_ecn: Constant<Bits<32>>,
    #[constants(|j| byte_at(&IPV4, "src", j))]
    at_src_ip: [Constant<Bits<32>>; 4],
    #[constants(|j| byte_at(&UDP, "sport", j))]
    at_sport: [Constant<Bits<32>>; 2],
    #[constant(bits_at(&COMMON, "opcode"))]
    at_opcode: Constant<Bits<32>>,
    #[constants(|j| byte_at(&COMMON, "conn", j))]
    at_conn: [Constant<Bits<32>>; 2],
    #[constant(bits_at(&COMMON, "path"))]
    at_path: Constant<Bits<32>>,
    #[constants(|j| byte_at(&COMMON, "psn", j))]
    at_psn: [Constant<Bits<32>>; 3],
    #[constants(|j| byte_at(&COMMON, "timestamp", j))]
    at_ts: [Constant<Bits<32>>; 4],
    #[constants(|j| byte_at(&COMMON, "stream", j))]
    at_stream: [Constant<Bits<32>>; 2],
    #[constant(bits_at(&COMMON, "flags"))]
    at_flags: Constant<Bits<32>>,
    #[constant(bits_at(&COMMON, "generation"))]
    at_generation: Constant<Bits<32>>,
    #[constants(|j| byte_at(&DATA, "msg_seq", j))]
    at_msg_seq: [Constant<Bits<32>>; 4],
    #[constants(|j| byte_at(&DATA, "msg_len", j))]
    at_msg_len: [Constant<Bits<32>>; 4],
    #[constants(|j| byte_at(&DATA, "offset", j))]
    at_offset: [Constant<Bits<32>>; 4],
    #[constants(|j| byte_at(&DATA, "payload_len", j))]
    at_plen: [Constant<Bits<32>>; 2],
    #[constants(|j| byte_at(&DATA, "remote_addr", j))]
    at_raddr: [Constant<Bits<32>>; 8],
    #[constants(|j| byte_at(&DATA, "rkey", j))]
    at_rkey: [Constant<Bits<32>>; 4],
    #[constants(|j| byte_at(&DATA, "immediate", j))]
    at_imm: [Constant<Bits<32>>; 4],
    #[constant(sack_at())]
    at_sack: Constant<Bits<32>>,
    #[constants(|j| byte_at(&ACK, "ts_echo", j))]
    at_ts_echo: [Constant<Bits<32>>; 4],
    #[constants(|j| byte_at(&ACK, "rate_hint", j))]
    at_hint: [Constant<Bits<32>>; 4],
    #[constants(|j| byte_at(&ACK, "ecn_ce", j))]
    at_ecn_ce: [Constant<Bits<32>>; 2],
    #[constants(|j| byte_at(&ACK, "acked_pkts", j))]
    at_pkts: [Constant<Bits<32>>; 2],
    #[constant(bits_at(&NAK, "code"))]
    at_nak_code: Constant<Bits<32>>,
    #[constants(|j| byte_at(&NAK, "msg_seq", j))]
    at_nak_msg: [Constant<Bits<32>>; 4],
}

impl Logic for RxFields {
    #[hdl_gen]
    fn update(&mut self) {
        self.ecn.next = self.hdr.val().get_bits::<2>(self.at_ecn.val().index());
        self.src_ip_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_src_ip[0].val().index());
        self.src_ip_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_src_ip[1].val().index());
        self.src_ip_be.next.b2 = self.hdr.val().get_bits::<8>(self.at_src_ip[2].val().index());
        self.src_ip_be.next.b3 = self.hdr.val().get_bits::<8>(self.at_src_ip[3].val().index());
        self.src_ip.next = self.src_ip_be.val().into();
        self.sport_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_sport[0].val().index());
        self.sport_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_sport[1].val().index());
        self.sport.next = self.sport_be.val().into();
        self.opcode.next = self.hdr.val().get_bits::<8>(self.at_opcode.val().index());
        self.conn_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_conn[0].val().index());
        self.conn_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_conn[1].val().index());
        self.conn.next = self.conn_be.val().into();
        self.path.next = self.hdr.val().get_bits::<8>(self.at_path.val().index());
        self.psn_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_psn[0].val().index());
        self.psn_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_psn[1].val().index());
        self.psn_be.next.b2 = self.hdr.val().get_bits::<8>(self.at_psn[2].val().index());
        self.psn.next = self.psn_be.val().into();
        self.ts_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_ts[0].val().index());
        self.ts_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_ts[1].val().index());
        self.ts_be.next.b2 = self.hdr.val().get_bits::<8>(self.at_ts[2].val().index());
        self.ts_be.next.b3 = self.hdr.val().get_bits::<8>(self.at_ts[3].val().index());
        self.ts.next = self.ts_be.val().into();
        self.stream_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_stream[0].val().index());
        self.stream_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_stream[1].val().index());
        self.stream.next = self.stream_be.val().into();
        self.flags.next = self.hdr.val().get_bits::<8>(self.at_flags.val().index());
        self.generation.next = self.hdr.val().get_bits::<8>(self.at_generation.val().index());
        self.msg_seq_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_msg_seq[0].val().index());
        self.msg_seq_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_msg_seq[1].val().index());
        self.msg_seq_be.next.b2 = self.hdr.val().get_bits::<8>(self.at_msg_seq[2].val().index());
        self.msg_seq_be.next.b3 = self.hdr.val().get_bits::<8>(self.at_msg_seq[3].val().index());
        self.msg_seq.next = self.msg_seq_be.val().into();
        self.msg_len_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_msg_len[0].val().index());
        self.msg_len_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_msg_len[1].val().index());
        self.msg_len_be.next.b2 = self.hdr.val().get_bits::<8>(self.at_msg_len[2].val().index());
        self.msg_len_be.next.b3 = self.hdr.val().get_bits::<8>(self.at_msg_len[3].val().index());
        self.msg_len.next = self.msg_len_be.val().into();
        self.offset_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_offset[0].val().index());
        self.offset_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_offset[1].val().index());
        self.offset_be.next.b2 = self.hdr.val().get_bits::<8>(self.at_offset[2].val().index());
        self.offset_be.next.b3 = self.hdr.val().get_bits::<8>(self.at_offset[3].val().index());
        self.offset.next = self.offset_be.val().into();
        self.plen_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_plen[0].val().index());
        self.plen_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_plen[1].val().index());
        self.plen.next = self.plen_be.val().into();
        self.raddr_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_raddr[0].val().index());
        self.raddr_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_raddr[1].val().index());
        self.raddr_be.next.b2 = self.hdr.val().get_bits::<8>(self.at_raddr[2].val().index());
        self.raddr_be.next.b3 = self.hdr.val().get_bits::<8>(self.at_raddr[3].val().index());
        self.raddr_be.next.b4 = self.hdr.val().get_bits::<8>(self.at_raddr[4].val().index());
        self.raddr_be.next.b5 = self.hdr.val().get_bits::<8>(self.at_raddr[5].val().index());
        self.raddr_be.next.b6 = self.hdr.val().get_bits::<8>(self.at_raddr[6].val().index());
        self.raddr_be.next.b7 = self.hdr.val().get_bits::<8>(self.at_raddr[7].val().index());
        self.raddr.next = self.raddr_be.val().into();
        self.rkey_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_rkey[0].val().index());
        self.rkey_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_rkey[1].val().index());
        self.rkey_be.next.b2 = self.hdr.val().get_bits::<8>(self.at_rkey[2].val().index());
        self.rkey_be.next.b3 = self.hdr.val().get_bits::<8>(self.at_rkey[3].val().index());
        self.rkey.next = self.rkey_be.val().into();
        self.imm_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_imm[0].val().index());
        self.imm_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_imm[1].val().index());
        self.imm_be.next.b2 = self.hdr.val().get_bits::<8>(self.at_imm[2].val().index());
        self.imm_be.next.b3 = self.hdr.val().get_bits::<8>(self.at_imm[3].val().index());
        self.imm.next = self.imm_be.val().into();
        self.sack.next = self.hdr.val().get_bits::<256>(self.at_sack.val().index());
        self.ts_echo_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_ts_echo[0].val().index());
        self.ts_echo_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_ts_echo[1].val().index());
        self.ts_echo_be.next.b2 = self.hdr.val().get_bits::<8>(self.at_ts_echo[2].val().index());
        self.ts_echo_be.next.b3 = self.hdr.val().get_bits::<8>(self.at_ts_echo[3].val().index());
        self.ts_echo.next = self.ts_echo_be.val().into();
        self.hint_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_hint[0].val().index());
        self.hint_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_hint[1].val().index());
        self.hint_be.next.b2 = self.hdr.val().get_bits::<8>(self.at_hint[2].val().index());
        self.hint_be.next.b3 = self.hdr.val().get_bits::<8>(self.at_hint[3].val().index());
        self.hint.next = self.hint_be.val().into();
        self.ecn_ce_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_ecn_ce[0].val().index());
        self.ecn_ce_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_ecn_ce[1].val().index());
        self.ecn_ce.next = self.ecn_ce_be.val().into();
        self.pkts_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_pkts[0].val().index());
        self.pkts_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_pkts[1].val().index());
        self.pkts.next = self.pkts_be.val().into();
        self.nak_code.next = self.hdr.val().get_bits::<8>(self.at_nak_code.val().index());
        self.nak_msg_be.next.b0 = self.hdr.val().get_bits::<8>(self.at_nak_msg[0].val().index());
        self.nak_msg_be.next.b1 = self.hdr.val().get_bits::<8>(self.at_nak_msg[1].val().index());
        self.nak_msg_be.next.b2 = self.hdr.val().get_bits::<8>(self.at_nak_msg[2].val().index());
        self.nak_msg_be.next.b3 = self.hdr.val().get_bits::<8>(self.at_nak_msg[3].val().index());
        self.nak_msg.next = self.nak_msg_be.val().into();
        self.unused_hdr.next = false & self.hdr.val().any();
    }
}
