//! Semantic representations, [`encode`] and [`parse`].

use super::crc::{crc32, internet_checksum};
use super::field::Field;
use super::headers::{fields, ACK, COMMON, CRC_LEN, DATA, ETH, IPV4, NAK, UDP};
use crate::params::{SackBitmap, SACK_BYTES};
use crate::types::{ConnId, Iova, MsgSeq, PathId, Psn, Rkey, StreamId};
use crate::{Error, Result};

/// Ethertype of IPv4, the only one ferroce frames carry.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// IPv4 protocol number of UDP.
pub const IP_PROTO_UDP: u8 = 17;
/// The common header's `version`.
pub const TRANSPORT_VERSION: u8 = 1;
const L2L4: usize = ETH.len + IPV4.len + UDP.len;

/// Transport opcodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Opcode {
    Write = 0x01,
    WriteImm = 0x02,
    Send = 0x03,
    Ack = 0x10,
    Nak = 0x11,
}

impl Opcode {
    /// Every opcode, in code order.
    pub const ALL: [Opcode; 5] = [Opcode::Write, Opcode::WriteImm, Opcode::Send, Opcode::Ack, Opcode::Nak];
    /// The opcode byte.
    pub const fn code(self) -> u8 {
        self as u8
    }
    /// Decode an opcode byte.
    pub fn from_u8(v: u8) -> Result<Opcode> {
        Ok(match v {
            0x01 => Opcode::Write,
            0x02 => Opcode::WriteImm,
            0x03 => Opcode::Send,
            0x10 => Opcode::Ack,
            0x11 => Opcode::Nak,
            other => return Err(Error::UnknownOpcode(other)),
        })
    }
    /// The opcode's name, as the dissector and the docs show it.
    pub const fn name(self) -> &'static str {
        match self {
            Opcode::Write => "WRITE",
            Opcode::WriteImm => "WRITE_IMM",
            Opcode::Send => "SEND",
            Opcode::Ack => "ACK",
            Opcode::Nak => "NAK",
        }
    }
    /// True for WRITE, WRITE with immediate and SEND.
    pub fn is_data(self) -> bool {
        matches!(self, Opcode::Write | Opcode::WriteImm | Opcode::Send)
    }
}

/// ECN codepoint of the IPv4 header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ecn {
    NotEct = 0,
    Ect1 = 1,
    Ect0 = 2,
    Ce = 3,
}

impl Ecn {
    fn from_bits(v: u64) -> Ecn {
        match v & 3 {
            0 => Ecn::NotEct,
            1 => Ecn::Ect1,
            2 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }
}

/// Defines [`NakCode`] from one list: each code's variant, wire value and
/// name, so that `ALL`, `name` and parsing cannot miss one.
macro_rules! nak_codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $code:literal, $name:literal;)*) => {
        /// NAK reasons.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum NakCode {
            $($(#[doc = $doc])* $variant = $code,)*
        }

        impl NakCode {
            /// Every NAK code, in the order listed (code order).
            pub const ALL: [NakCode; [$($code),*].len()] = [$(NakCode::$variant),*];
            /// The code's name, as the dissector shows it.
            pub const fn name(self) -> &'static str {
                match self {
                    $(NakCode::$variant => $name,)*
                }
            }
        }
    };
}

nak_codes! {
    /// rkey, bounds, permission or owner check failed.
    Access = 1, "ACCESS";
    /// No receive buffer posted for a SEND.
    NoRecv = 2, "NO_RECV";
    /// The SEND is larger than the posted receive buffer.
    RecvTooSmall = 3, "RECV_TOO_SMALL";
    /// Go-back-N baseline: out-of-sequence PSN; `info` holds the expected PSN.
    SeqErr = 4, "SEQ_ERR";
}

impl NakCode {
    /// The code byte on the wire.
    pub const fn code(self) -> u8 {
        self as u8
    }
    fn from_u8(v: u8) -> Result<NakCode> {
        NakCode::ALL.into_iter().find(|c| c.code() == v).ok_or(Error::BadField { field: "nak.code", value: v as u64 })
    }
}

/// Flag bits of the common header.
pub mod flags {
    /// This data packet is a retransmission.
    pub const RETX: u8 = 0x01;
    /// The receiver should acknowledge at once (no coalescing).
    pub const ACK_REQ: u8 = 0x02;
    /// Every flag with its name; the other bits are reserved (0 when sent).
    pub const ALL: [(u8, &str); 2] = [(RETX, "RETX"), (ACK_REQ, "ACK_REQ")];
}

/// L2-L4 addressing of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Addressing {
    pub src_mac: [u8; 6],
    pub dst_mac: [u8; 6],
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    /// UDP source port: the path entropy.
    pub sport: u16,
    /// UDP destination port.
    pub dport: u16,
    pub dscp: u8,
    pub ecn: Ecn,
    pub ttl: u8,
}

/// Common header fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommonRepr {
    pub opcode: Opcode,
    pub conn: ConnId,
    pub path: PathId,
    pub psn: Psn,
    pub timestamp: u32,
    pub stream: StreamId,
    pub flags: u8,
    /// The connection's generation (see `docs/protocol.md`).
    pub generation: u8,
}

/// Data extension fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataRepr {
    pub msg_seq: MsgSeq,
    pub msg_len: u32,
    pub offset: u32,
    pub payload_len: u16,
    /// WRITE: address of message byte 0 at the receiver; SEND: 0.
    pub remote_addr: Iova,
    /// WRITE: rkey; SEND: receive sequence number.
    pub rkey: Rkey,
    pub immediate: u32,
}

/// ACK extension fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckRepr {
    /// Circular bitmap, bit `psn % 256` (byte `i/8`, bit `i%8`).
    pub sack: SackBitmap,
    pub ts_echo: u32,
    /// Mb/s; 0 means no hint.
    pub rate_hint_mbps: u32,
    pub ecn_ce: u16,
    pub acked_pkts: u16,
}

impl AckRepr {
    /// Is slot `psn % 256` set?
    pub fn sacked(&self, psn: Psn) -> bool {
        let i = psn.slot();
        self.sack[i / 8] & (1 << (i % 8)) != 0
    }
    /// Set slot `psn % 256`.
    pub fn set_sacked(&mut self, psn: Psn) {
        let i = psn.slot();
        self.sack[i / 8] |= 1 << (i % 8);
    }
}

/// NAK extension fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NakRepr {
    pub code: NakCode,
    pub msg_seq: MsgSeq,
    pub info: u32,
}

/// The extension after the common header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    Data(DataRepr),
    Ack(AckRepr),
    Nak(NakRepr),
}

/// A whole transport header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransportRepr {
    pub common: CommonRepr,
    pub body: Body,
}

impl TransportRepr {
    /// Length of the transport header (common + extension).
    pub fn header_len(&self) -> usize {
        COMMON.len
            + match self.body {
                Body::Data(_) => DATA.len,
                Body::Ack(_) => ACK.len,
                Body::Nak(_) => NAK.len,
            }
    }
}

/// A parsed frame borrowing its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    pub addr: Addressing,
    pub transport: TransportRepr,
    pub payload: &'a [u8],
}

/// Total frame length (without FCS) for a transport header and payload.
pub fn frame_len(t: &TransportRepr, payload_len: usize) -> usize {
    L2L4 + t.header_len() + payload_len + CRC_LEN
}

/// Encode a frame. `payload` must be empty for ACK and NAK and match
/// `payload_len` for data; panics otherwise (a caller bug, not input).
pub fn encode(addr: &Addressing, t: &TransportRepr, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; frame_len(t, payload.len())];
    encode_into(addr, t, payload, &mut out);
    out
}

/// Encode into `out`, which must be exactly [`frame_len`] long.
pub fn encode_into(addr: &Addressing, t: &TransportRepr, payload: &[u8], out: &mut [u8]) {
    let total = frame_len(t, payload.len());
    assert_eq!(out.len(), total, "output buffer length");
    match &t.body {
        Body::Data(d) => assert_eq!(d.payload_len as usize, payload.len(), "payload_len"),
        _ => assert!(payload.is_empty(), "ACK/NAK carry no payload"),
    }
    let (eth, rest) = out.split_at_mut(ETH.len);
    eth[0..6].copy_from_slice(&addr.dst_mac);
    eth[6..12].copy_from_slice(&addr.src_mac);
    fields::eth::ETHERTYPE.set(eth, ETHERTYPE_IPV4 as u64);

    let (ip, rest) = rest.split_at_mut(IPV4.len);
    let ip_total = total - ETH.len;
    for (field, v) in [
        (fields::ipv4::VERSION, 4),
        (fields::ipv4::IHL, 5),
        (fields::ipv4::DSCP, addr.dscp as u64),
        (fields::ipv4::ECN, addr.ecn as u64),
        (fields::ipv4::TOTAL_LEN, ip_total as u64),
        (fields::ipv4::IDENT, 0),
        (fields::ipv4::FLAGS, 0b010),
        (fields::ipv4::FRAG_OFF, 0),
        (fields::ipv4::TTL, addr.ttl as u64),
        (fields::ipv4::PROTOCOL, IP_PROTO_UDP as u64),
        (fields::ipv4::CHECKSUM, 0),
        (fields::ipv4::SRC, u32::from_be_bytes(addr.src_ip) as u64),
        (fields::ipv4::DST, u32::from_be_bytes(addr.dst_ip) as u64),
    ] {
        field.set(ip, v);
    }
    let csum = internet_checksum(ip);
    fields::ipv4::CHECKSUM.set(ip, csum as u64);

    let (udp, tp) = rest.split_at_mut(UDP.len);
    fields::udp::SPORT.set(udp, addr.sport as u64);
    fields::udp::DPORT.set(udp, addr.dport as u64);
    fields::udp::LEN.set(udp, (ip_total - IPV4.len) as u64);
    fields::udp::CHECKSUM.set(udp, 0);

    let c = &t.common;
    let (common, ext) = tp.split_at_mut(COMMON.len);
    for (field, v) in [
        (fields::common::VERSION, TRANSPORT_VERSION as u64),
        (fields::common::RESERVED0, 0),
        (fields::common::OPCODE, c.opcode as u64),
        (fields::common::CONN, c.conn.0 as u64),
        (fields::common::PATH, c.path.0 as u64),
        (fields::common::PSN, c.psn.get() as u64),
        (fields::common::TIMESTAMP, c.timestamp as u64),
        (fields::common::STREAM, c.stream.0 as u64),
        (fields::common::FLAGS, c.flags as u64),
        (fields::common::GENERATION, c.generation as u64),
    ] {
        field.set(common, v);
    }
    let ext_len = match &t.body {
        Body::Data(d) => {
            for (field, v) in [
                (fields::data::MSG_SEQ, d.msg_seq.0 as u64),
                (fields::data::MSG_LEN, d.msg_len as u64),
                (fields::data::OFFSET, d.offset as u64),
                (fields::data::PAYLOAD_LEN, d.payload_len as u64),
                (fields::data::RESERVED, 0),
                (fields::data::REMOTE_ADDR, d.remote_addr.0),
                (fields::data::RKEY, d.rkey.0 as u64),
                (fields::data::IMMEDIATE, d.immediate as u64),
            ] {
                field.set(ext, v);
            }
            ext[DATA.len..DATA.len + payload.len()].copy_from_slice(payload);
            DATA.len
        }
        Body::Ack(a) => {
            fields::ack::SACK.bytes_mut(ext).copy_from_slice(&a.sack);
            for (field, v) in [
                (fields::ack::TS_ECHO, a.ts_echo as u64),
                (fields::ack::RATE_HINT, a.rate_hint_mbps as u64),
                (fields::ack::ECN_CE, a.ecn_ce as u64),
                (fields::ack::ACKED_PKTS, a.acked_pkts as u64),
                (fields::ack::RESERVED, 0),
            ] {
                field.set(ext, v);
            }
            ACK.len
        }
        Body::Nak(n) => {
            for (field, v) in [
                (fields::nak::CODE, n.code as u64),
                (fields::nak::RESERVED0, 0),
                (fields::nak::MSG_SEQ, n.msg_seq.0 as u64),
                (fields::nak::INFO, n.info as u64),
                (fields::nak::RESERVED1, 0),
            ] {
                field.set(ext, v);
            }
            NAK.len
        }
    };
    let crc_at = COMMON.len + ext_len + payload.len();
    let crc = crc32(&tp[..crc_at]);
    tp[crc_at..crc_at + CRC_LEN].copy_from_slice(&crc.to_le_bytes());
}

fn need(what: &'static str, needed: usize, available: usize) -> Result<()> {
    if available < needed {
        Err(Error::Truncated { what, needed, available })
    } else {
        Ok(())
    }
}

/// Longest frame a receiver takes, in bytes without the FCS: the RTL's
/// frame length counter and receive FIFO are sized for it (a 9000-byte
/// jumbo payload fits with room to spare).
pub const MAX_FRAME_LEN: usize = 16_383;

/// Parse and validate a frame addressed to UDP port `port`. Every malformed
/// input gives a typed error; nothing panics.
pub fn parse(frame: &[u8], port: u16) -> Result<Frame<'_>> {
    if frame.len() > MAX_FRAME_LEN {
        return Err(Error::BadLength { what: "frame", declared: MAX_FRAME_LEN, actual: frame.len() });
    }
    need("Ethernet header", ETH.len, frame.len())?;
    let eth = &frame[..ETH.len];
    let ethertype = fields::eth::ETHERTYPE.get(eth) as u16;
    if ethertype != ETHERTYPE_IPV4 {
        return Err(Error::NotFerroce { ethertype, proto: 0, dport: 0 });
    }
    need("IPv4 header", ETH.len + IPV4.len, frame.len())?;
    let ip = &frame[ETH.len..ETH.len + IPV4.len];
    let ipf = |f: Field| f.get(ip);
    if ipf(fields::ipv4::VERSION) != 4 || ipf(fields::ipv4::IHL) != 5 {
        return Err(Error::BadField { field: "ipv4.version/ihl", value: ip[0] as u64 });
    }
    if internet_checksum(ip) != 0 {
        return Err(Error::BadIpChecksum);
    }
    let proto = ipf(fields::ipv4::PROTOCOL) as u8;
    if ipf(fields::ipv4::FRAG_OFF) != 0 || ipf(fields::ipv4::FLAGS) & 0b001 != 0 {
        return Err(Error::BadField { field: "ipv4.fragment", value: ipf(fields::ipv4::FRAG_OFF) });
    }
    let ip_total = ipf(fields::ipv4::TOTAL_LEN) as usize;
    if ETH.len + ip_total != frame.len() {
        return Err(Error::BadLength { what: "ipv4.total_len", declared: ip_total, actual: frame.len() - ETH.len });
    }
    if proto != IP_PROTO_UDP {
        return Err(Error::NotFerroce { ethertype, proto, dport: 0 });
    }
    need("UDP header", L2L4, frame.len())?;
    let udp = &frame[ETH.len + IPV4.len..L2L4];
    let dport = fields::udp::DPORT.get(udp) as u16;
    if dport != port {
        return Err(Error::NotFerroce { ethertype, proto, dport });
    }
    let udp_len = fields::udp::LEN.get(udp) as usize;
    if udp_len != ip_total - IPV4.len {
        return Err(Error::BadLength { what: "udp.len", declared: udp_len, actual: ip_total - IPV4.len });
    }
    let tp = &frame[L2L4..];
    need("ferroce common header + CRC", COMMON.len + CRC_LEN, tp.len())?;
    let (covered, trailer) = tp.split_at(tp.len() - CRC_LEN);
    let trailer = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let computed = crc32(covered);
    if trailer != computed {
        return Err(Error::BadCrc { trailer, computed });
    }
    let cf = |f: Field| f.get(covered);
    if cf(fields::common::VERSION) != TRANSPORT_VERSION as u64 {
        return Err(Error::BadField { field: "common.version", value: cf(fields::common::VERSION) });
    }
    let opcode = Opcode::from_u8(cf(fields::common::OPCODE) as u8)?;
    let common = CommonRepr {
        opcode,
        conn: ConnId(cf(fields::common::CONN) as u16),
        path: PathId(cf(fields::common::PATH) as u8),
        psn: Psn::new(cf(fields::common::PSN) as u32),
        timestamp: cf(fields::common::TIMESTAMP) as u32,
        stream: StreamId(cf(fields::common::STREAM) as u16),
        flags: cf(fields::common::FLAGS) as u8,
        generation: cf(fields::common::GENERATION) as u8,
    };
    let ext = &covered[COMMON.len..];
    let (body, payload) = match opcode {
        Opcode::Write | Opcode::WriteImm | Opcode::Send => {
            need("data extension", DATA.len, ext.len())?;
            let g = |f: Field| f.get(ext);
            let d = DataRepr {
                msg_seq: MsgSeq(g(fields::data::MSG_SEQ) as u32),
                msg_len: g(fields::data::MSG_LEN) as u32,
                offset: g(fields::data::OFFSET) as u32,
                payload_len: g(fields::data::PAYLOAD_LEN) as u16,
                remote_addr: Iova(g(fields::data::REMOTE_ADDR)),
                rkey: Rkey(g(fields::data::RKEY) as u32),
                immediate: g(fields::data::IMMEDIATE) as u32,
            };
            let payload = &ext[DATA.len..];
            if payload.len() != d.payload_len as usize {
                return Err(Error::BadLength {
                    what: "data.payload_len",
                    declared: d.payload_len as usize,
                    actual: payload.len(),
                });
            }
            if d.msg_len == 0 || d.payload_len == 0 {
                return Err(Error::BadField { field: "data.msg_len/payload_len", value: 0 });
            }
            if d.offset as u64 + d.payload_len as u64 > d.msg_len as u64 {
                return Err(Error::BadLength {
                    what: "data.offset+payload_len",
                    declared: d.msg_len as usize,
                    actual: d.offset as usize + d.payload_len as usize,
                });
            }
            (Body::Data(d), payload)
        }
        Opcode::Ack => {
            if ext.len() != ACK.len {
                return Err(Error::BadLength { what: "ACK extension", declared: ACK.len, actual: ext.len() });
            }
            let g = |f: Field| f.get(ext);
            let mut sack = [0u8; SACK_BYTES];
            sack.copy_from_slice(fields::ack::SACK.bytes(ext));
            let a = AckRepr {
                sack,
                ts_echo: g(fields::ack::TS_ECHO) as u32,
                rate_hint_mbps: g(fields::ack::RATE_HINT) as u32,
                ecn_ce: g(fields::ack::ECN_CE) as u16,
                acked_pkts: g(fields::ack::ACKED_PKTS) as u16,
            };
            (Body::Ack(a), &ext[ACK.len..])
        }
        Opcode::Nak => {
            if ext.len() != NAK.len {
                return Err(Error::BadLength { what: "NAK extension", declared: NAK.len, actual: ext.len() });
            }
            let g = |f: Field| f.get(ext);
            let n = NakRepr {
                code: NakCode::from_u8(g(fields::nak::CODE) as u8)?,
                msg_seq: MsgSeq(g(fields::nak::MSG_SEQ) as u32),
                info: g(fields::nak::INFO) as u32,
            };
            (Body::Nak(n), &ext[NAK.len..])
        }
    };
    let mut src_mac = [0u8; 6];
    let mut dst_mac = [0u8; 6];
    dst_mac.copy_from_slice(&eth[0..6]);
    src_mac.copy_from_slice(&eth[6..12]);
    let addr = Addressing {
        src_mac,
        dst_mac,
        src_ip: (ipf(fields::ipv4::SRC) as u32).to_be_bytes(),
        dst_ip: (ipf(fields::ipv4::DST) as u32).to_be_bytes(),
        sport: fields::udp::SPORT.get(udp) as u16,
        dport,
        dscp: ipf(fields::ipv4::DSCP) as u8,
        ecn: Ecn::from_bits(ipf(fields::ipv4::ECN)),
        ttl: ipf(fields::ipv4::TTL) as u8,
    };
    Ok(Frame { addr, transport: TransportRepr { common, body }, payload })
}

/// (src ip, dst ip, protocol, sport, dport).
pub type FiveTuple = ([u8; 4], [u8; 4], u8, u16, u16);

/// The IPv4/UDP 5-tuple of a frame, for ECMP hashing in switches. `None` if
/// the frame is too short or not IPv4.
pub fn five_tuple(frame: &[u8]) -> Option<FiveTuple> {
    if frame.len() < L2L4 || fields::eth::ETHERTYPE.get(frame) != ETHERTYPE_IPV4 as u64 {
        return None;
    }
    let ip = &frame[ETH.len..ETH.len + IPV4.len];
    let udp = &frame[ETH.len + IPV4.len..L2L4];
    Some((
        (fields::ipv4::SRC.get(ip) as u32).to_be_bytes(),
        (fields::ipv4::DST.get(ip) as u32).to_be_bytes(),
        fields::ipv4::PROTOCOL.get(ip) as u8,
        fields::udp::SPORT.get(udp) as u16,
        fields::udp::DPORT.get(udp) as u16,
    ))
}

/// Mark an ECN-capable IPv4 frame CE in place and fix the IPv4 checksum, as a
/// switch does. Returns false (and changes nothing) for Not-ECT or non-IPv4.
pub fn mark_ce(frame: &mut [u8]) -> bool {
    if frame.len() < ETH.len + IPV4.len || fields::eth::ETHERTYPE.get(frame) != ETHERTYPE_IPV4 as u64 {
        return false;
    }
    let ip = &mut frame[ETH.len..ETH.len + IPV4.len];
    let ecn = fields::ipv4::ECN;
    if ecn.get(ip) == Ecn::NotEct as u64 {
        return false;
    }
    ecn.set(ip, Ecn::Ce as u64);
    let csum = fields::ipv4::CHECKSUM;
    csum.set(ip, 0);
    let c = internet_checksum(ip);
    csum.set(ip, c as u64);
    true
}

/// Forward an IPv4 frame one routed hop in place, as a router does: the
/// Ethernet addresses become the router's egress port (`src_mac`) and the
/// next hop (`dst_mac`), the TTL drops by one and the IPv4 checksum is
/// recomputed. Returns false (and changes nothing) for a non-IPv4 frame or
/// one whose TTL would reach 0, which a router drops (RFC 1812 5.3.1).
pub fn route_hop(frame: &mut [u8], src_mac: [u8; 6], dst_mac: [u8; 6]) -> bool {
    if frame.len() < ETH.len + IPV4.len || fields::eth::ETHERTYPE.get(frame) != ETHERTYPE_IPV4 as u64 {
        return false;
    }
    let ttl = fields::ipv4::TTL;
    let left = ttl.get(&frame[ETH.len..]);
    if left <= 1 {
        return false;
    }
    fields::eth::DST.bytes_mut(frame).copy_from_slice(&dst_mac);
    fields::eth::SRC.bytes_mut(frame).copy_from_slice(&src_mac);
    let ip = &mut frame[ETH.len..ETH.len + IPV4.len];
    ttl.set(ip, left - 1);
    let csum = fields::ipv4::CHECKSUM;
    csum.set(ip, 0);
    let c = internet_checksum(ip);
    csum.set(ip, c as u64);
    true
}

/// Hand an IPv4 frame back to where it came from, as the looped port of an
/// Ethernet tester does: source and destination MAC and IPv4 addresses
/// swapped (the IPv4 checksum, a sum, is unchanged). False (and nothing
/// changed) for a non-IPv4 frame.
pub fn reflect(frame: &mut [u8]) -> bool {
    if frame.len() < ETH.len + IPV4.len || fields::eth::ETHERTYPE.get(frame) != ETHERTYPE_IPV4 as u64 {
        return false;
    }
    let (dst, src) = frame.split_at_mut(6);
    dst.swap_with_slice(&mut src[..6]);
    let ip = &mut frame[ETH.len..ETH.len + IPV4.len];
    let (s, d) = (fields::ipv4::SRC, fields::ipv4::DST);
    let (a, b) = (s.get(ip), d.get(ip));
    s.set(ip, b);
    d.set(ip, a);
    true
}
