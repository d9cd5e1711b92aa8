//! The header tables. Offsets are in bits from the start of each header.

use super::field::{f, Header};
use crate::params::SACK_WINDOW;

/// Ethernet II.
pub const ETH: Header = Header {
    name: "Ethernet II",
    len: 14,
    doc: "No VLAN tag. The FCS is added and checked by the MAC and is not part of the frames the transport sees.",
    fields: &[
        f("dst", 0, 48, "destination MAC address"),
        f("src", 48, 48, "source MAC address"),
        f("ethertype", 96, 16, "0x0800 (IPv4)"),
    ],
};

/// IPv4 without options.
pub const IPV4: Header = Header {
    name: "IPv4",
    len: 20,
    doc: "No options (IHL = 5). ECN carries congestion marks: the sender sends ECT(0), switches set CE.",
    fields: &[
        f("version", 0, 4, "4"),
        f("ihl", 4, 4, "5 (20-byte header, no options)"),
        f("dscp", 8, 6, "traffic class, configurable (default 26, AF31)"),
        f("ecn", 14, 2, "0b10 ECT(0) when sent; 0b11 CE when a switch marked it"),
        f("total_len", 16, 16, "IPv4 header + UDP header + transport header + payload + CRC"),
        f("ident", 32, 16, "0"),
        f("flags", 48, 3, "0b010 (don't fragment)"),
        f("frag_off", 51, 13, "0"),
        f("ttl", 64, 8, "64 when sent"),
        f("protocol", 72, 8, "17 (UDP)"),
        f("checksum", 80, 16, "RFC 791 header checksum"),
        f("src", 96, 32, "source address"),
        f("dst", 128, 32, "destination address"),
    ],
};

/// UDP.
pub const UDP: Header = Header {
    name: "UDP",
    len: 8,
    doc: "The source port is the path's ECMP entropy; the checksum is 0 (the CRC trailer protects the transport).",
    fields: &[
        f("sport", 0, 16, "path entropy: one port per path, re-drawn when the path is re-pathed (49152-65535)"),
        f("dport", 16, 16, "ferroce port, default 17989 (0x4645), configurable"),
        f("len", 32, 16, "UDP header + transport header + payload + CRC"),
        f("checksum", 48, 16, "0 (not computed)"),
    ],
};

/// Common transport header, first 16 bytes of every ferroce packet.
pub const COMMON: Header = Header {
    name: "ferroce common header",
    len: 16,
    doc: "Starts every ferroce packet; followed by the data, ACK or NAK extension chosen by `opcode`.",
    fields: &[
        f("version", 0, 4, "protocol version, 1"),
        f("reserved0", 4, 4, "0 when sent, ignored when received"),
        f("opcode", 8, 8, "0x01 WRITE, 0x02 WRITE with immediate, 0x03 SEND, 0x10 ACK, 0x11 NAK"),
        f("conn", 16, 16, "connection number at the receiver of this packet"),
        f("path", 32, 8, "path index within the connection (0-15)"),
        f("psn", 40, 24, "data: the packet's sequence number on its path; ACK: cumulative PSN (next expected); NAK: the PSN that was refused"),
        f("timestamp", 64, 32, "sender's clock in ns (wrapping); echoed in ACKs for RTT"),
        f("stream", 96, 16, "ordered stream within the connection (data and NAK); 0 in ACKs"),
        f("flags", 112, 8, "bit0 RETX (retransmission), bit1 ACK_REQ (acknowledge at once), others 0"),
        f("generation", 120, 8, "the connection's generation, the same at both ends; a receiver drops a packet of another generation (an earlier life of the connection)"),
    ],
};

/// Data extension (WRITE, WRITE with immediate, SEND).
pub const DATA: Header = Header {
    name: "data extension",
    len: 32,
    doc: "Makes every data packet self-describing: it can be placed with no state from earlier packets.",
    fields: &[
        f("msg_seq", 0, 32, "message sequence number in the stream"),
        f("msg_len", 32, 32, "length of the whole message in bytes (1 to 2^32-1)"),
        f("offset", 64, 32, "offset of this payload in the message"),
        f("payload_len", 96, 16, "payload bytes in this packet (must match the UDP length)"),
        f("reserved", 112, 16, "0 when sent, ignored when received"),
        f("remote_addr", 128, 64, "WRITE: remote address of byte 0 of the message; SEND: 0"),
        f("rkey", 192, 32, "WRITE: rkey of the target memory region; SEND: receive sequence number (the n-th SEND of the stream takes the n-th posted receive buffer)"),
        f("immediate", 224, 32, "WRITE with immediate: the immediate value; otherwise 0"),
    ],
};

/// ACK extension: the SACK bitmap of [`SACK_WINDOW`] bits, then 128 bits
/// of other fields (their offsets follow the bitmap's width; its
/// description names the window, checked by a test).
pub const ACK: Header = Header {
    name: "ACK extension",
    len: (W + 128) / 8,
    doc: "Per-path acknowledgement. The common header's `psn` is the cumulative PSN: every PSN before it was received.",
    fields: &[
        f("sack", 0, W, "circular SACK bitmap: bit (psn mod 256) is set when psn in [cumulative, cumulative+256) was received; byte i holds slots 8i..8i+7, least significant bit first"),
        f("ts_echo", W, 32, "timestamp of the data packet that triggered this ACK"),
        f("rate_hint", W + 32, 32, "receiver's fair-share rate for this sender, Mb/s (0: no hint)"),
        f("ecn_ce", W + 64, 16, "CE-marked data packets on this path since the previous ACK"),
        f("acked_pkts", W + 80, 16, "data packets received on this path since the previous ACK"),
        f("reserved", W + 96, 32, "0 when sent, ignored when received"),
    ],
};
const W: usize = SACK_WINDOW;

/// NAK extension.
pub const NAK: Header = Header {
    name: "NAK extension",
    len: 16,
    doc: "Refusal of one data packet. The common header carries its path, PSN and stream.",
    fields: &[
        f("code", 0, 8, "1 ACCESS (rkey, bounds, permission or owner check failed), 2 NO_RECV (no receive buffer for a SEND), 3 RECV_TOO_SMALL, 4 SEQ_ERR (go-back-N baseline only: expected PSN in `info`)"),
        f("reserved0", 8, 24, "0 when sent, ignored when received"),
        f("msg_seq", 32, 32, "message sequence number of the refused packet"),
        f("info", 64, 32, "code-specific: SEQ_ERR carries the expected PSN"),
        f("reserved1", 96, 32, "0 when sent, ignored when received"),
    ],
};

/// Every field of a header table as a constant, found in the table when
/// the crate compiles: `fields::ipv4::TTL`, `fields::common::PSN`, ... (a
/// name a table lacks does not compile, and a test checks that each module
/// has every field of its table once). Encode and parse use these; nothing
/// looks a field up by name at run time.
macro_rules! field_modules {
    ($($module:ident = $header:ident { $($konst:ident = $name:literal),* $(,)? })*) => {
        pub mod fields {
            use super::super::field::Field;
            $(
                #[doc = concat!("Fields of [`", stringify!($header), "`](super::", stringify!($header), ").")]
                pub mod $module {
                    use super::Field;
                    use super::super::$header as H;
                    $(
                        #[doc = concat!("`", $name, "`")]
                        pub const $konst: Field = H.named($name);
                    )*
                    /// Every field, in wire order.
                    pub const ALL: &[Field] = &[$($konst),*];
                }
            )*
            /// Each header with its constants.
            pub const ALL: &[(&super::Header, &[Field])] = &[$((&super::$header, $module::ALL)),*];
        }
    };
}

field_modules! {
    eth = ETH { DST = "dst", SRC = "src", ETHERTYPE = "ethertype" }
    ipv4 = IPV4 {
        VERSION = "version", IHL = "ihl", DSCP = "dscp", ECN = "ecn", TOTAL_LEN = "total_len", IDENT = "ident",
        FLAGS = "flags", FRAG_OFF = "frag_off", TTL = "ttl", PROTOCOL = "protocol", CHECKSUM = "checksum",
        SRC = "src", DST = "dst",
    }
    udp = UDP { SPORT = "sport", DPORT = "dport", LEN = "len", CHECKSUM = "checksum" }
    common = COMMON {
        VERSION = "version", RESERVED0 = "reserved0", OPCODE = "opcode", CONN = "conn", PATH = "path", PSN = "psn",
        TIMESTAMP = "timestamp", STREAM = "stream", FLAGS = "flags", GENERATION = "generation",
    }
    data = DATA {
        MSG_SEQ = "msg_seq", MSG_LEN = "msg_len", OFFSET = "offset", PAYLOAD_LEN = "payload_len",
        RESERVED = "reserved", REMOTE_ADDR = "remote_addr", RKEY = "rkey", IMMEDIATE = "immediate",
    }
    ack = ACK {
        SACK = "sack", TS_ECHO = "ts_echo", RATE_HINT = "rate_hint", ECN_CE = "ecn_ce", ACKED_PKTS = "acked_pkts",
        RESERVED = "reserved",
    }
    nak = NAK { CODE = "code", RESERVED0 = "reserved0", MSG_SEQ = "msg_seq", INFO = "info", RESERVED1 = "reserved1" }
}

/// Bytes of the CRC trailer.
pub const CRC_LEN: usize = 4;

/// Every header, in the order they are documented.
pub const ALL: &[&Header] = &[&ETH, &IPV4, &UDP, &COMMON, &DATA, &ACK, &NAK];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_has_exactly_one_constant() {
        assert_eq!(fields::ALL.len(), ALL.len(), "a module per header");
        for (h, consts) in fields::ALL {
            assert!(ALL.iter().any(|x| x.name == h.name));
            assert_eq!(consts, &h.fields, "{}: the constants are the table, in order", h.name);
        }
        assert_eq!(fields::ipv4::TTL, *IPV4.field("ttl"));
        assert_eq!(fields::ack::SACK.bits, 256);
        assert_eq!(ACK.len, 48);
    }

    #[test]
    fn the_sack_field_describes_the_window() {
        let doc = fields::ack::SACK.doc;
        for w in [format!("psn mod {SACK_WINDOW})"), format!("cumulative+{SACK_WINDOW})")] {
            assert!(doc.contains(&w), "ack.sack's description lacks `{w}`: {doc}");
        }
    }

    #[test]
    fn the_nak_code_field_describes_every_code() {
        let doc = fields::nak::CODE.doc;
        for c in super::super::NakCode::ALL {
            assert!(doc.contains(&format!("{} {}", c.code(), c.name())), "nak.code's description lacks {c:?}: {doc}");
        }
    }

    #[test]
    fn every_header_covers_each_bit_exactly_once() {
        for h in ALL {
            let mut next = 0;
            for fl in h.fields {
                assert_eq!(fl.bit_offset, next, "{}.{} leaves a gap or overlaps", h.name, fl.name);
                assert!(fl.bits <= 64 || (fl.bit_offset % 8 == 0 && fl.bits % 8 == 0));
                next += fl.bits;
            }
            assert_eq!(next, h.len * 8, "{} length", h.name);
        }
    }
}
