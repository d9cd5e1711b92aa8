//! `tx_build`: the frame builder. Takes one packet's fields (the semantic
//! `Repr` of `ferroce_proto::wire`) and, for data packets, its payload from
//! the DMA read stream, and sends the frame to the MAC without its CRC
//! trailer: Ethernet, IPv4 (with its checksum), UDP, the transport header
//! and the payload, byte for byte what `ferroce_proto::wire::encode`
//! produces before the trailer. The send path's two builders (data; ACKs
//! and NAKs) share one [`crate::tx::crc_append::CrcAppend`] after their
//! multiplexer, which adds it.
//!
//! Field placement comes from the header tables: the header is held in
//! big-endian form ([`FrameHeader`], frame byte 0 in the top bits), where
//! every field is one run of bits at an offset the tables give
//! (`layout::be_offset`); the fields the builder does not take from a port
//! (ethertype, IPv4 version, ...) are read from a frame that
//! `wire::encode` built.
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `hdr_valid`/`hdr_ready` with the field ports (`eth_*`, `ip_*`,
//!   `udp_*`, `bth_*` for the common header, `data_*`, `ack_*`, `nak_*`):
//!   one packet. The header is built when taken and waits in a holding
//!   register while the frame before it is still going out, so the next
//!   packet can be handed over (and its payload asked for) one frame ahead.
//! * `busy`: a frame is held or going out.
//! * `s_payload_*` (AXI-Stream, 64-bit): a data packet's payload, exactly
//!   `data_payload_len` bytes, `tkeep` contiguous from lane 0, all ones but
//!   on the last beat (the lanes above its bytes may hold anything).
//! * `m_axis_*` (AXI-Stream, 64-bit): the frame, byte 0 in `tdata[7:0]`,
//!   from a register; the lanes of the last beat above its `tkeep` hold
//!   anything.
//!
//! Every kind's header is whole words and [`HDR_TAIL`] bytes (its
//! extensions are whole words after the 58 bytes up to them), so the
//! header goes out a word a cycle, picked from the buffer by index, and a
//! payload always joins it at lane `HDR_TAIL`: each payload beat goes out
//! after the bytes that wait (the header's last ones, then the previous
//! beat's last ones), shifted by a constant, and the bytes of its own last
//! lanes wait for the next beat. No shift by a variable count anywhere.
//! One beat a cycle with `m_axis_tready` back-pressure and
//! `s_payload_tvalid` gaps absorbed; one idle cycle between frames.

use rust_hdl::prelude::*;

use ferroce_proto::wire::headers::{ACK, COMMON, CRC_LEN, DATA, ETH, IPV4, NAK, UDP};
use ferroce_proto::wire::{self, AckRepr, Addressing, Body, CommonRepr, Ecn, Header, Opcode, TransportRepr};
use ferroce_proto::{ConnId, PathId, Psn, StreamId};

use crate::blocks::{HdlDefault, HdlStruct};
use crate::layout::{be_offset, frame_offset, HDR_BE_BITS, HDR_WORDS, L2L4};

/// Field ports: (port, header, field).
pub const PORTS: &[(&str, &Header, &str)] = &[
    ("eth_dst", &ETH, "dst"),
    ("eth_src", &ETH, "src"),
    ("ip_dscp", &IPV4, "dscp"),
    ("ip_ecn", &IPV4, "ecn"),
    ("ip_ttl", &IPV4, "ttl"),
    ("ip_src", &IPV4, "src"),
    ("ip_dst", &IPV4, "dst"),
    ("udp_sport", &UDP, "sport"),
    ("udp_dport", &UDP, "dport"),
    ("bth_opcode", &COMMON, "opcode"),
    ("bth_conn", &COMMON, "conn"),
    ("bth_path", &COMMON, "path"),
    ("bth_psn", &COMMON, "psn"),
    ("bth_timestamp", &COMMON, "timestamp"),
    ("bth_stream", &COMMON, "stream"),
    ("bth_flags", &COMMON, "flags"),
    ("bth_generation", &COMMON, "generation"),
    ("data_msg_seq", &DATA, "msg_seq"),
    ("data_msg_len", &DATA, "msg_len"),
    ("data_offset", &DATA, "offset"),
    ("data_payload_len", &DATA, "payload_len"),
    ("data_remote_addr", &DATA, "remote_addr"),
    ("data_rkey", &DATA, "rkey"),
    ("data_immediate", &DATA, "immediate"),
    ("ack_sack", &ACK, "sack"),
    ("ack_ts_echo", &ACK, "ts_echo"),
    ("ack_rate_hint", &ACK, "rate_hint"),
    ("ack_ecn_ce", &ACK, "ecn_ce"),
    ("ack_acked_pkts", &ACK, "acked_pkts"),
    ("nak_code", &NAK, "code"),
    ("nak_msg_seq", &NAK, "msg_seq"),
    ("nak_info", &NAK, "info"),
];

/// A frame that `wire::encode` built: the source of the fields the builder
/// does not take from a port or compute (ethertype, IPv4 version, ...).
fn reference_frame() -> Vec<u8> {
    let addr = Addressing {
        src_mac: [0; 6],
        dst_mac: [0; 6],
        src_ip: [0; 4],
        dst_ip: [0; 4],
        sport: 0,
        dport: 0,
        dscp: 0,
        ecn: Ecn::NotEct,
        ttl: 0,
    };
    let common = CommonRepr {
        opcode: Opcode::Ack,
        conn: ConnId(0),
        path: PathId(0),
        psn: Psn::new(0),
        timestamp: 0,
        stream: StreamId(0),
        flags: 0,
        generation: 0,
    };
    let ack = AckRepr { sack: [0; 32], ts_echo: 0, rate_hint_mbps: 0, ecn_ce: 0, acked_pkts: 0 };
    wire::encode(&addr, &TransportRepr { common, body: Body::Ack(ack) }, &[])
}

/// Declares [`FrameHeader`]: one member per header field the builder
/// sets (`set`, zero in [`FrameHeader::blank`]) or keeps as `wire::encode`
/// writes it (`fixed`), each at its place from the header tables.
/// `#[hdl_gen]` turns `h.next.member = x` into a part-select assignment at
/// `get_my_offset_member()`, so the offsets here are the tables'.
macro_rules! frame_header {
    ($( $kind:ident $name:ident / $width_fn:ident / $offset_fn:ident : $w:literal = $h:ident . $f:literal ),* $(,)?) => {
        /// The frame header in big-endian form (`HDR_BE_BITS` bits).
        #[derive(Copy, Clone, Debug, PartialEq, Default)]
        pub struct FrameHeader {
            $( pub $name: Bits<$w>, )*
        }

        #[allow(dead_code, clippy::unused_self)]
        impl FrameHeader {
            $(
                /// Width of the member in bits.
                pub fn $width_fn(&self) -> usize { $w }
                /// Bit offset of the member (32-bit, for clean Verilog).
                pub fn $offset_fn(&self) -> u32 { be_offset(&$h, $f) as u32 }
            )*

            /// Every member: (name, width, header, field).
            pub fn members() -> Vec<(&'static str, usize, &'static Header, &'static str)> {
                vec![$( (stringify!($name), $w, &$h, $f) ),*]
            }

            /// The fixed members as in `frame`, the others zero.
            pub fn blank(frame: &[u8]) -> FrameHeader {
                let mut x = FrameHeader::default();
                $(
                    if frame_header!(@is_fixed $kind) {
                        x.$name = ($h.field($f).get(&frame[frame_offset(&$h)..]) as u64).into();
                    }
                )*
                x
            }
        }

        impl From<FrameHeader> for Bits<HDR_BE_BITS> {
            fn from(x: FrameHeader) -> Self {
                let mut b = Bits::<HDR_BE_BITS>::default();
                $(
                    b = b | (bit_cast::<HDR_BE_BITS, $w>(x.$name) << (x.$offset_fn() as LiteralType));
                )*
                b
            }
        }
    };
    (@is_fixed fixed) => { true };
    (@is_fixed set) => { false };
}

frame_header! {
    set eth_dst / get_my_width_eth_dst / get_my_offset_eth_dst: 48 = ETH."dst",
    set eth_src / get_my_width_eth_src / get_my_offset_eth_src: 48 = ETH."src",
    fixed eth_type / get_my_width_eth_type / get_my_offset_eth_type: 16 = ETH."ethertype",
    fixed ip_version / get_my_width_ip_version / get_my_offset_ip_version: 4 = IPV4."version",
    fixed ip_ihl / get_my_width_ip_ihl / get_my_offset_ip_ihl: 4 = IPV4."ihl",
    set ip_dscp / get_my_width_ip_dscp / get_my_offset_ip_dscp: 6 = IPV4."dscp",
    set ip_ecn / get_my_width_ip_ecn / get_my_offset_ip_ecn: 2 = IPV4."ecn",
    set ip_total_len / get_my_width_ip_total_len / get_my_offset_ip_total_len: 16 = IPV4."total_len",
    fixed ip_ident / get_my_width_ip_ident / get_my_offset_ip_ident: 16 = IPV4."ident",
    fixed ip_flags / get_my_width_ip_flags / get_my_offset_ip_flags: 3 = IPV4."flags",
    fixed ip_frag_off / get_my_width_ip_frag_off / get_my_offset_ip_frag_off: 13 = IPV4."frag_off",
    set ip_ttl / get_my_width_ip_ttl / get_my_offset_ip_ttl: 8 = IPV4."ttl",
    fixed ip_protocol / get_my_width_ip_protocol / get_my_offset_ip_protocol: 8 = IPV4."protocol",
    set ip_checksum / get_my_width_ip_checksum / get_my_offset_ip_checksum: 16 = IPV4."checksum",
    set ip_src / get_my_width_ip_src / get_my_offset_ip_src: 32 = IPV4."src",
    set ip_dst / get_my_width_ip_dst / get_my_offset_ip_dst: 32 = IPV4."dst",
    set udp_sport / get_my_width_udp_sport / get_my_offset_udp_sport: 16 = UDP."sport",
    set udp_dport / get_my_width_udp_dport / get_my_offset_udp_dport: 16 = UDP."dport",
    set udp_len / get_my_width_udp_len / get_my_offset_udp_len: 16 = UDP."len",
    fixed udp_checksum / get_my_width_udp_checksum / get_my_offset_udp_checksum: 16 = UDP."checksum",
    fixed bth_version / get_my_width_bth_version / get_my_offset_bth_version: 4 = COMMON."version",
    fixed bth_reserved0 / get_my_width_bth_reserved0 / get_my_offset_bth_reserved0: 4 = COMMON."reserved0",
    set bth_opcode / get_my_width_bth_opcode / get_my_offset_bth_opcode: 8 = COMMON."opcode",
    set bth_conn / get_my_width_bth_conn / get_my_offset_bth_conn: 16 = COMMON."conn",
    set bth_path / get_my_width_bth_path / get_my_offset_bth_path: 8 = COMMON."path",
    set bth_psn / get_my_width_bth_psn / get_my_offset_bth_psn: 24 = COMMON."psn",
    set bth_timestamp / get_my_width_bth_timestamp / get_my_offset_bth_timestamp: 32 = COMMON."timestamp",
    set bth_stream / get_my_width_bth_stream / get_my_offset_bth_stream: 16 = COMMON."stream",
    set bth_flags / get_my_width_bth_flags / get_my_offset_bth_flags: 8 = COMMON."flags",
    set bth_generation / get_my_width_bth_generation / get_my_offset_bth_generation: 8 = COMMON."generation",
    set data_msg_seq / get_my_width_data_msg_seq / get_my_offset_data_msg_seq: 32 = DATA."msg_seq",
    set data_msg_len / get_my_width_data_msg_len / get_my_offset_data_msg_len: 32 = DATA."msg_len",
    set data_offset / get_my_width_data_offset / get_my_offset_data_offset: 32 = DATA."offset",
    set data_payload_len / get_my_width_data_payload_len / get_my_offset_data_payload_len: 16 = DATA."payload_len",
    set data_remote_addr / get_my_width_data_remote_addr / get_my_offset_data_remote_addr: 64 = DATA."remote_addr",
    set data_rkey / get_my_width_data_rkey / get_my_offset_data_rkey: 32 = DATA."rkey",
    set data_immediate / get_my_width_data_immediate / get_my_offset_data_immediate: 32 = DATA."immediate",
    set ack_sack / get_my_width_ack_sack / get_my_offset_ack_sack: 256 = ACK."sack",
    set ack_ts_echo / get_my_width_ack_ts_echo / get_my_offset_ack_ts_echo: 32 = ACK."ts_echo",
    set ack_rate_hint / get_my_width_ack_rate_hint / get_my_offset_ack_rate_hint: 32 = ACK."rate_hint",
    set ack_ecn_ce / get_my_width_ack_ecn_ce / get_my_offset_ack_ecn_ce: 16 = ACK."ecn_ce",
    set ack_acked_pkts / get_my_width_ack_acked_pkts / get_my_offset_ack_acked_pkts: 16 = ACK."acked_pkts",
    set nak_code / get_my_width_nak_code / get_my_offset_nak_code: 8 = NAK."code",
    set nak_msg_seq / get_my_width_nak_msg_seq / get_my_offset_nak_msg_seq: 32 = NAK."msg_seq",
    set nak_info / get_my_width_nak_info / get_my_offset_nak_info: 32 = NAK."info",
}

impl Synth for FrameHeader {
    const BITS: usize = HDR_BE_BITS;
    fn descriptor() -> TypeDescriptor {
        TypeDescriptor { name: "FrameHeader".to_string(), kind: TypeKind::Bits(HDR_BE_BITS) }
    }
    fn vcd(self) -> VCDValue {
        Bits::<HDR_BE_BITS>::from(self).into()
    }
    fn verilog(self) -> VerilogLiteral
    where
        Self: Sized,
    {
        Bits::<HDR_BE_BITS>::from(self).into()
    }
}

/// Opcodes of data packets (they carry the data extension and a payload).
const DATA_OPCODES: usize = 3;

fn data_opcode(k: usize) -> u64 {
    let codes: Vec<u8> = Opcode::ALL.iter().filter(|o| o.is_data()).map(|o| o.code()).collect();
    assert_eq!(codes.len(), DATA_OPCODES);
    codes[k] as u64
}

/// IPv4 header words summed by the checksum.
const IP_WORDS: usize = IPV4.len / 2;
/// Bits of a bit offset into the header buffer.
const WORD_AT_BITS: usize = 10;
const _: () = assert!(HDR_BE_BITS <= 1 << WORD_AT_BITS);

// The checksum sums the ten words in 20 bits as a tree (pairs, then pairs
// of pairs, then the last pair with the odd one: four additions deep where
// a chain of ten was, the longest path of the block, docs/corundum.md
// "Timing at 250 MHz"), then folds the carries back in twice (RFC 1071,
// 2.C): the ones'-complement sum, in about half the carry chains of an
// end-around-carry addition per pair.
const _: () = assert!(IP_WORDS == 10);
/// Width of the checksum's sums (ten 16-bit words need 20 bits; synthesis
/// narrows the additions to what their operands can carry).
const SUM_BITS: usize = 32;
// Every IPv4 word has the sums' width of header bits from its place on.
const _: () = assert!(8 * ETH.len + 16 + SUM_BITS <= HDR_BE_BITS);

/// A 64-bit word's bytes: `b0` in the low bits (lane 0).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Lanes {
    pub b0: Bits<8>,
    pub b1: Bits<8>,
    pub b2: Bits<8>,
    pub b3: Bits<8>,
    pub b4: Bits<8>,
    pub b5: Bits<8>,
    pub b6: Bits<8>,
    pub b7: Bits<8>,
}

/// Zero extension 32 to 64 bits.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Z32to64 {
    pub lo: Bits<32>,
    pub hi: Bits<32>,
}

/// Bytes of a header's last, partial word: every kind's header is this
/// many bytes past a multiple of 8 (the transport header and its
/// extensions are whole words; Ethernet, IPv4 and UDP are 42 bytes), so a
/// data packet's payload always joins its header at this lane.
pub const HDR_TAIL: usize = (L2L4 + COMMON.len) % 8;
const _: () = assert!(HDR_TAIL > 0 && DATA.len % 8 == 0 && ACK.len % 8 == 0 && NAK.len % 8 == 0);
/// Bits of the header's last bytes, held to go out with the payload.
const TAIL_BITS: usize = 8 * HDR_TAIL;
/// Bits of a header word's index.
const WIDX_BITS: usize = 4;
const _: () = assert!(HDR_WORDS <= 1 << WIDX_BITS);

/// IPv4 total length of a frame whose transport header has an extension
/// of `ext` bytes, without its payload: its header (from IPv4 on) and the
/// CRC trailer.
const fn ip_len_of(ext: usize) -> u64 {
    (L2L4 + COMMON.len + ext + CRC_LEN - ETH.len) as u64
}

/// Full words of a header of `len` bytes.
const fn words_of(len: usize) -> u64 {
    (len / 8) as u64
}

const S_IDLE: usize = 0;
const S_HEAD: usize = 1;
const S_PAY: usize = 2;
const S_TAIL: usize = 3;

/// The header's last bytes, zero-extended to a beat.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct TailBeat {
    pub lo: Bits<TAIL_BITS>,
    pub hi: Bits<{ 64 - TAIL_BITS }>,
}

/// The frame builder.
#[allow(non_snake_case)]
#[derive(LogicBlock, HdlDefault)]
pub struct TxBuild {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub hdr_valid: Signal<In, bool>,
    pub hdr_ready: Signal<Out, bool>,
    pub busy: Signal<Out, bool>,
    pub eth_dst: Signal<In, Bits<48>>,
    pub eth_src: Signal<In, Bits<48>>,
    pub ip_dscp: Signal<In, Bits<6>>,
    pub ip_ecn: Signal<In, Bits<2>>,
    pub ip_ttl: Signal<In, Bits<8>>,
    pub ip_src: Signal<In, Bits<32>>,
    pub ip_dst: Signal<In, Bits<32>>,
    pub udp_sport: Signal<In, Bits<16>>,
    pub udp_dport: Signal<In, Bits<16>>,
    pub bth_opcode: Signal<In, Bits<8>>,
    pub bth_conn: Signal<In, Bits<16>>,
    pub bth_path: Signal<In, Bits<8>>,
    pub bth_psn: Signal<In, Bits<24>>,
    pub bth_timestamp: Signal<In, Bits<32>>,
    pub bth_stream: Signal<In, Bits<16>>,
    pub bth_flags: Signal<In, Bits<8>>,
    pub bth_generation: Signal<In, Bits<8>>,
    pub data_msg_seq: Signal<In, Bits<32>>,
    pub data_msg_len: Signal<In, Bits<32>>,
    pub data_offset: Signal<In, Bits<32>>,
    pub data_payload_len: Signal<In, Bits<16>>,
    pub data_remote_addr: Signal<In, Bits<64>>,
    pub data_rkey: Signal<In, Bits<32>>,
    pub data_immediate: Signal<In, Bits<32>>,
    pub ack_sack: Signal<In, Bits<256>>,
    pub ack_ts_echo: Signal<In, Bits<32>>,
    pub ack_rate_hint: Signal<In, Bits<32>>,
    pub ack_ecn_ce: Signal<In, Bits<16>>,
    pub ack_acked_pkts: Signal<In, Bits<16>>,
    pub nak_code: Signal<In, Bits<8>>,
    pub nak_msg_seq: Signal<In, Bits<32>>,
    pub nak_info: Signal<In, Bits<32>>,
    pub s_payload_tdata: Signal<In, Bits<64>>,
    pub s_payload_tkeep: Signal<In, Bits<8>>,
    pub s_payload_tvalid: Signal<In, bool>,
    pub s_payload_tready: Signal<Out, bool>,
    pub s_payload_tlast: Signal<In, bool>,
    pub m_axis_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tvalid: Signal<Out, bool>,
    pub m_axis_tready: Signal<In, bool>,
    pub m_axis_tlast: Signal<Out, bool>,
    // the next packet's header, built when taken
    nx_valid: DFF<bool>,
    nx_hb: DFF<Bits<HDR_BE_BITS>>,
    nx_words: DFF<Bits<WIDX_BITS>>,
    nx_has_pay: DFF<bool>,
    // the frame going out: its header, how many whole words it has, the
    // next word's index, the header's last bytes or the payload's bytes
    // waiting for the next beat (`carry`), and how many of them the
    // frame's last beat takes (`tail_n`)
    phase: DFF<Bits<2>>,
    hb: DFF<Bits<HDR_BE_BITS>>,
    words: DFF<Bits<WIDX_BITS>>,
    has_pay: DFF<bool>,
    widx: DFF<Bits<WIDX_BITS>>,
    carry: DFF<Bits<TAIL_BITS>>,
    tail_n: DFF<Bits<4>>,
    // the output beat
    ob_valid: DFF<bool>,
    ob_data: DFF<Bits<64>>,
    ob_keep: DFF<Bits<8>>,
    ob_last: DFF<bool>,
    #[constant(S_IDLE as u64)]
    S_IDLE: Constant<Bits<2>>,
    #[constant(S_HEAD as u64)]
    S_HEAD: Constant<Bits<2>>,
    #[constant(S_PAY as u64)]
    S_PAY: Constant<Bits<2>>,
    #[constant(S_TAIL as u64)]
    S_TAIL: Constant<Bits<2>>,
    #[constants(data_opcode)]
    data_opcodes: [Constant<Bits<8>>; DATA_OPCODES],
    #[constant(Opcode::Ack.code() as u64)]
    ack_opcode: Constant<Bits<8>>,
    /// IPv4 total length of each kind's frame without its payload (its
    /// header and the trailer, less Ethernet's), and UDP's (less IPv4's).
    #[constant(ip_len_of(DATA.len))]
    ip_base_data: Constant<Bits<16>>,
    #[constant(ip_len_of(ACK.len))]
    ip_base_ack: Constant<Bits<16>>,
    #[constant(ip_len_of(NAK.len))]
    ip_base_nak: Constant<Bits<16>>,
    #[constant(ip_len_of(DATA.len) - IPV4.len as u64)]
    udp_base_data: Constant<Bits<16>>,
    #[constant(ip_len_of(ACK.len) - IPV4.len as u64)]
    udp_base_ack: Constant<Bits<16>>,
    #[constant(ip_len_of(NAK.len) - IPV4.len as u64)]
    udp_base_nak: Constant<Bits<16>>,
    #[constant(words_of(L2L4 + COMMON.len + DATA.len))]
    words_data: Constant<Bits<WIDX_BITS>>,
    #[constant(words_of(L2L4 + COMMON.len + ACK.len))]
    words_ack: Constant<Bits<WIDX_BITS>>,
    #[constant(words_of(L2L4 + COMMON.len + NAK.len))]
    words_nak: Constant<Bits<WIDX_BITS>>,
    #[constant(FrameHeader::blank(&reference_frame()))]
    blank: Constant<FrameHeader>,
    #[constant(FrameHeader::default())]
    no_fields: Constant<FrameHeader>,
    /// Where the IPv4 header's 16-bit words sit in the header buffer.
    #[constants(|k: usize| (HDR_BE_BITS - 8 * ETH.len - 16 * (k + 1)) as u64)]
    ip_word_at: [Constant<Bits<10>>; IP_WORDS],
    /// Where header word k (frame bytes 8k to 8k + 7) sits in the buffer.
    #[constants(|k: usize| (HDR_BE_BITS - 64 * (k + 1)) as u64)]
    word_at: [Constant<Bits<10>>; HDR_WORDS],
    /// Header word indices.
    #[constants(|k: usize| k as u64)]
    word_index: [Constant<Bits<WIDX_BITS>>; HDR_WORDS],
    #[constants(|j: usize| j as u64 + 1)]
    lane_count: [Constant<Bits<4>>; 8],
    #[constant(HDR_TAIL as u64)]
    tail4: Constant<Bits<4>>,
    #[constant((8 - HDR_TAIL) as u64)]
    room4: Constant<Bits<4>>,
    #[constant(TAIL_BITS as u64)]
    tail_shift: Constant<Bits<6>>,
    /// A payload beat's last `HDR_TAIL` bytes.
    #[constant((64 - TAIL_BITS) as u64)]
    carry_at: Constant<Bits<6>>,
    #[constant(1u64)]
    one_widx: Constant<Bits<WIDX_BITS>>,
    #[constant(0xffu64)]
    ones8: Constant<Bits<8>>,
    #[constant(0u64)]
    zero4: Constant<Bits<4>>,
    #[constant(0u64)]
    zero16: Constant<Bits<16>>,
    #[constant(0u64)]
    zero64: Constant<Bits<64>>,
    #[constant(0u64)]
    zero_widx: Constant<Bits<WIDX_BITS>>,
    #[constant(0u64)]
    zero_above_tail: Constant<Bits<{ 64 - TAIL_BITS }>>,
    #[constant(0xffffu64)]
    low16: Constant<Bits<SUM_BITS>>,
    #[constant(16u64)]
    sixteen: Constant<Bits<5>>,
    is_data: Signal<Local, bool>,
    is_ack: Signal<Local, bool>,
    ip_base: Signal<Local, Bits<16>>,
    udp_base: Signal<Local, Bits<16>>,
    hdr_words: Signal<Local, Bits<WIDX_BITS>>,
    pay_len: Signal<Local, Bits<16>>,
    ip_total: Signal<Local, Bits<16>>,
    udp_len: Signal<Local, Bits<16>>,
    hc0: Signal<Local, FrameHeader>,
    hc0_bits: Signal<Local, Bits<HDR_BE_BITS>>,
    ip_word: [Signal<Local, Bits<SUM_BITS>>; IP_WORDS],
    // The checksum's sums: 0-4 the pairs of words, 5 and 6 pairs of those,
    // 7 the eight words, 8 all ten; then the carries folded back in.
    ip_tree: [Signal<Local, Bits<SUM_BITS>>; 9],
    ip_fold: Signal<Local, Bits<SUM_BITS>>,
    ip_fold2: Signal<Local, Bits<16>>,
    csum_hdr: Signal<Local, FrameHeader>,
    csum_bits: Signal<Local, Bits<HDR_BE_BITS>>,
    hc_bits: Signal<Local, Bits<HDR_BE_BITS>>,
    adv: Signal<Local, bool>,
    head_word: Signal<Local, Bits<64>>,
    head_lanes: Signal<Local, Lanes>,
    head_data: Signal<Local, Bits<64>>,
    at_tail: Signal<Local, bool>,
    pay_step: Signal<Local, bool>,
    cur_carry: Signal<Local, Bits<TAIL_BITS>>,
    carry_beat: Signal<Local, TailBeat>,
    carry_data: Signal<Local, Bits<64>>,
    in_n: Signal<Local, Bits<4>>,
    last_n: Signal<Local, Bits<4>>,
    keep: Signal<Local, Bits<8>>,
}

impl TxBuild {
    /// Mark every input as driven: a parent's custom Verilog drives them
    /// (rust-hdl requires each child input to be connected).
    pub fn connect_inputs(&mut self) {
        self.clock.connect();
        self.reset.connect();
        self.hdr_valid.connect();
        self.eth_dst.connect();
        self.eth_src.connect();
        self.ip_dscp.connect();
        self.ip_ecn.connect();
        self.ip_ttl.connect();
        self.ip_src.connect();
        self.ip_dst.connect();
        self.udp_sport.connect();
        self.udp_dport.connect();
        self.bth_opcode.connect();
        self.bth_conn.connect();
        self.bth_path.connect();
        self.bth_psn.connect();
        self.bth_timestamp.connect();
        self.bth_stream.connect();
        self.bth_flags.connect();
        self.bth_generation.connect();
        self.data_msg_seq.connect();
        self.data_msg_len.connect();
        self.data_offset.connect();
        self.data_payload_len.connect();
        self.data_remote_addr.connect();
        self.data_rkey.connect();
        self.data_immediate.connect();
        self.ack_sack.connect();
        self.ack_ts_echo.connect();
        self.ack_rate_hint.connect();
        self.ack_ecn_ce.connect();
        self.ack_acked_pkts.connect();
        self.nak_code.connect();
        self.nak_msg_seq.connect();
        self.nak_info.connect();
        self.s_payload_tdata.connect();
        self.s_payload_tkeep.connect();
        self.s_payload_tvalid.connect();
        self.s_payload_tlast.connect();
        self.m_axis_tready.connect();
    }
}

impl Logic for TxBuild {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, nx_valid, nx_hb, nx_words, nx_has_pay, phase, hb, words, has_pay, widx, carry, tail_n,
            ob_valid, ob_data, ob_keep, ob_last
        );

        // The offered packet: its kind and lengths.
        self.is_data.next = false;
        for k in 0..DATA_OPCODES {
            if self.bth_opcode.val() == self.data_opcodes[k].val() {
                self.is_data.next = true;
            }
        }
        self.is_ack.next = self.bth_opcode.val() == self.ack_opcode.val();
        if self.is_data.val() {
            self.ip_base.next = self.ip_base_data.val();
            self.udp_base.next = self.udp_base_data.val();
            self.hdr_words.next = self.words_data.val();
            self.pay_len.next = self.data_payload_len.val();
        } else if self.is_ack.val() {
            self.ip_base.next = self.ip_base_ack.val();
            self.udp_base.next = self.udp_base_ack.val();
            self.hdr_words.next = self.words_ack.val();
            self.pay_len.next = self.zero16.val();
        } else {
            self.ip_base.next = self.ip_base_nak.val();
            self.udp_base.next = self.udp_base_nak.val();
            self.hdr_words.next = self.words_nak.val();
            self.pay_len.next = self.zero16.val();
        }
        self.ip_total.next = self.ip_base.val() + self.pay_len.val();
        self.udp_len.next = self.udp_base.val() + self.pay_len.val();

        // Its header, the IPv4 checksum still zero.
        self.hc0.next = self.blank.val();
        self.hc0.next.eth_dst = self.eth_dst.val();
        self.hc0.next.eth_src = self.eth_src.val();
        self.hc0.next.ip_dscp = self.ip_dscp.val();
        self.hc0.next.ip_ecn = self.ip_ecn.val();
        self.hc0.next.ip_total_len = self.ip_total.val();
        self.hc0.next.ip_ttl = self.ip_ttl.val();
        self.hc0.next.ip_src = self.ip_src.val();
        self.hc0.next.ip_dst = self.ip_dst.val();
        self.hc0.next.udp_sport = self.udp_sport.val();
        self.hc0.next.udp_dport = self.udp_dport.val();
        self.hc0.next.udp_len = self.udp_len.val();
        self.hc0.next.bth_opcode = self.bth_opcode.val();
        self.hc0.next.bth_conn = self.bth_conn.val();
        self.hc0.next.bth_path = self.bth_path.val();
        self.hc0.next.bth_psn = self.bth_psn.val();
        self.hc0.next.bth_timestamp = self.bth_timestamp.val();
        self.hc0.next.bth_stream = self.bth_stream.val();
        self.hc0.next.bth_flags = self.bth_flags.val();
        self.hc0.next.bth_generation = self.bth_generation.val();
        if self.is_data.val() {
            self.hc0.next.data_msg_seq = self.data_msg_seq.val();
            self.hc0.next.data_msg_len = self.data_msg_len.val();
            self.hc0.next.data_offset = self.data_offset.val();
            self.hc0.next.data_payload_len = self.data_payload_len.val();
            self.hc0.next.data_remote_addr = self.data_remote_addr.val();
            self.hc0.next.data_rkey = self.data_rkey.val();
            self.hc0.next.data_immediate = self.data_immediate.val();
        } else if self.is_ack.val() {
            self.hc0.next.ack_sack = self.ack_sack.val();
            self.hc0.next.ack_ts_echo = self.ack_ts_echo.val();
            self.hc0.next.ack_rate_hint = self.ack_rate_hint.val();
            self.hc0.next.ack_ecn_ce = self.ack_ecn_ce.val();
            self.hc0.next.ack_acked_pkts = self.ack_acked_pkts.val();
        } else {
            self.hc0.next.nak_code = self.nak_code.val();
            self.hc0.next.nak_msg_seq = self.nak_msg_seq.val();
            self.hc0.next.nak_info = self.nak_info.val();
        }
        self.hc0_bits.next = self.hc0.val().into();

        // IPv4 checksum: the ones' complement sum of the header's words, as a
        // tree of binary additions with the carries folded back in at the end.
        for k in 0..IP_WORDS {
            self.ip_word[k].next =
                self.hc0_bits.val().get_bits::<SUM_BITS>(self.ip_word_at[k].val().index()) & self.low16.val();
        }
        for j in 0..5 {
            self.ip_tree[j].next = self.ip_word[2 * j].val() + self.ip_word[2 * j + 1].val();
        }
        for j in 0..2 {
            self.ip_tree[5 + j].next = self.ip_tree[2 * j].val() + self.ip_tree[2 * j + 1].val();
        }
        self.ip_tree[7].next = self.ip_tree[5].val() + self.ip_tree[6].val();
        self.ip_tree[8].next = self.ip_tree[7].val() + self.ip_tree[4].val();
        // The carries back in: at most 0xffff + 9, then at most one carry.
        self.ip_fold.next =
            (self.ip_tree[8].val() & self.low16.val()) + (self.ip_tree[8].val() >> self.sixteen.val());
        self.ip_fold2.next = self.ip_fold.val().get_bits::<16>(0) + self.ip_fold.val().get_bits::<16>(16);
        // The checksum into its field (the header has zeros there).
        self.csum_hdr.next = self.no_fields.val();
        self.csum_hdr.next.ip_checksum = !self.ip_fold2.val();
        self.csum_bits.next = self.csum_hdr.val().into();
        self.hc_bits.next = self.hc0_bits.val() | self.csum_bits.val();

        // The next beat is made when the output register is free or leaves.
        self.adv.next = !self.ob_valid.q.val() | self.m_axis_tready.val();
        if self.m_axis_tready.val() {
            self.ob_valid.d.next = false;
        }

        // Header word `widx`, frame byte 0 in the top bits, turned into lanes.
        // An OR over the one-hot index hits (an AND-OR per bit, not a chain of
        // multiplexers synthesis cannot know to be one-hot).
        self.head_word.next = self.zero64.val();
        for k in 0..HDR_WORDS {
            if self.widx.q.val() == self.word_index[k].val() {
                self.head_word.next =
                    self.head_word.val() | self.hb.q.val().get_bits::<64>(self.word_at[k].val().index());
            }
        }
        self.head_lanes.next.b0 = self.head_word.val().get_bits::<8>(56);
        self.head_lanes.next.b1 = self.head_word.val().get_bits::<8>(48);
        self.head_lanes.next.b2 = self.head_word.val().get_bits::<8>(40);
        self.head_lanes.next.b3 = self.head_word.val().get_bits::<8>(32);
        self.head_lanes.next.b4 = self.head_word.val().get_bits::<8>(24);
        self.head_lanes.next.b5 = self.head_word.val().get_bits::<8>(16);
        self.head_lanes.next.b6 = self.head_word.val().get_bits::<8>(8);
        self.head_lanes.next.b7 = self.head_word.val().get_bits::<8>(0);
        self.head_data.next = self.head_lanes.val().into();

        // A payload beat goes out after the bytes that wait (the header's
        // last ones, or the previous beat's last ones): its first 8 - r
        // bytes in this beat, its last r bytes in the next.
        self.at_tail.next = (self.phase.q.val() == self.S_HEAD.val()) & (self.widx.q.val() == self.words.q.val());
        self.pay_step.next = (self.phase.q.val() == self.S_PAY.val()) | (self.at_tail.val() & self.has_pay.q.val());
        if self.phase.q.val() == self.S_HEAD.val() {
            self.cur_carry.next = self.head_data.val().get_bits::<TAIL_BITS>(0);
        } else {
            self.cur_carry.next = self.carry.q.val();
        }
        self.carry_beat.next.lo = self.cur_carry.val();
        self.carry_beat.next.hi = self.zero_above_tail.val();
        self.carry_data.next = self.carry_beat.val().into();
        self.in_n.next = self.zero4.val();
        for j in 0..8 {
            if self.s_payload_tkeep.val().get_bit(j) {
                self.in_n.next = self.lane_count[j].val();
            }
        }
        // The bytes of the frame's last beat, and their keep.
        self.last_n.next = self.tail4.val();
        if self.pay_step.val() {
            self.last_n.next = self.in_n.val() + self.tail4.val();
        }
        if self.phase.q.val() == self.S_TAIL.val() {
            self.last_n.next = self.tail_n.q.val();
        }
        // (eight ones shifted by 8 are none)
        self.keep.next = !(self.ones8.val() << self.last_n.val());

        self.s_payload_tready.next = self.pay_step.val() & self.adv.val();
        if self.hdr_valid.val() & !self.nx_valid.q.val() {
            self.nx_hb.d.next = self.hc_bits.val();
            self.nx_words.d.next = self.hdr_words.val();
            self.nx_has_pay.d.next = self.is_data.val() & self.data_payload_len.val().any();
            self.nx_valid.d.next = true;
        }
        match self.phase.q.val().index() {
            S_IDLE => {
                if self.nx_valid.q.val() {
                    self.hb.d.next = self.nx_hb.q.val();
                    self.words.d.next = self.nx_words.q.val();
                    self.has_pay.d.next = self.nx_has_pay.q.val();
                    self.nx_valid.d.next = false;
                    self.widx.d.next = self.zero_widx.val();
                    self.phase.d.next = self.S_HEAD.val();
                }
            }
            S_HEAD => {
                if self.adv.val() & !self.at_tail.val() {
                    // a whole header word
                    self.ob_valid.d.next = true;
                    self.ob_data.d.next = self.head_data.val();
                    self.ob_keep.d.next = self.ones8.val();
                    self.ob_last.d.next = false;
                    self.widx.d.next = self.widx.q.val() + self.one_widx.val();
                } else if self.adv.val() & !self.has_pay.q.val() {
                    // the header's last bytes end the frame
                    self.ob_valid.d.next = true;
                    self.ob_data.d.next = self.head_data.val();
                    self.ob_keep.d.next = self.keep.val();
                    self.ob_last.d.next = true;
                    self.phase.d.next = self.S_IDLE.val();
                }
            }
            S_TAIL => {
                if self.adv.val() {
                    self.ob_valid.d.next = true;
                    self.ob_data.d.next = self.carry_data.val();
                    self.ob_keep.d.next = self.keep.val();
                    self.ob_last.d.next = true;
                    self.phase.d.next = self.S_IDLE.val();
                }
            }
            _ => {}
        }
        if self.pay_step.val() & self.adv.val() & self.s_payload_tvalid.val() {
            self.ob_valid.d.next = true;
            self.ob_data.d.next = (self.s_payload_tdata.val() << self.tail_shift.val()) | self.carry_data.val();
            self.carry.d.next = self.s_payload_tdata.val().get_bits::<TAIL_BITS>(self.carry_at.val().index());
            self.ob_keep.d.next = self.ones8.val();
            self.ob_last.d.next = false;
            self.phase.d.next = self.S_PAY.val();
            if self.s_payload_tlast.val() {
                if self.in_n.val() <= self.room4.val() {
                    self.ob_keep.d.next = self.keep.val();
                    self.ob_last.d.next = true;
                    self.phase.d.next = self.S_IDLE.val();
                } else {
                    self.tail_n.d.next = self.in_n.val() - self.room4.val();
                    self.phase.d.next = self.S_TAIL.val();
                }
            }
        }
        if self.reset.val() {
            self.phase.d.next = self.S_IDLE.val();
            self.nx_valid.d.next = false;
            self.ob_valid.d.next = false;
        }

        self.hdr_ready.next = !self.nx_valid.q.val();
        self.busy.next = self.nx_valid.q.val() | (self.phase.q.val() != self.S_IDLE.val()) | self.ob_valid.q.val();
        self.m_axis_tvalid.next = self.ob_valid.q.val();
        self.m_axis_tdata.next = self.ob_data.q.val();
        self.m_axis_tkeep.next = self.ob_keep.q.val();
        self.m_axis_tlast.next = self.ob_last.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_header_members_follow_the_tables() {
        for (name, w, h, f) in FrameHeader::members() {
            assert_eq!(h.field(f).bits, w, "{name}");
        }
        for (port, h, f) in PORTS {
            assert!(
                FrameHeader::members().iter().any(|m| m.0 == *port && m.2.name == h.name && m.3 == *f),
                "{port} is a member at {}.{f}",
                h.name
            );
        }
    }
}
