//! Wire format against literal bytes (computed independently of this crate:
//! by hand from docs/wire.md, with the IPv4 checksum and the CRC-32 from
//! another implementation), and malformed input.

use ferroce_proto::wire::{self, AckRepr, Addressing, Body, CommonRepr, DataRepr, Ecn, Opcode, TransportRepr};
use ferroce_proto::{ConnId, Error, Iova, MsgSeq, PathId, Psn, Rkey, StreamId};
use proptest::prelude::*;

const DATA_FRAME: &str = "0200000001010200000000010800456a0054000040004011252e0a0000010a000101c3504645004000001002000703123456deadbeef0002030000000009000010000000040000040000000000014000100000005151cafef00d0102030419a2e127";
const ACK_FRAME: &str = "0200000001010200000000010800456a006000004000401125220a0000010a000101c3504645004c0000101000070300010000000010000000000500000000000000000000000000000000000000000000000000000000000080deadbeef000061a80002000400000000289c1c92";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn addr() -> Addressing {
    Addressing {
        src_mac: [2, 0, 0, 0, 0, 1],
        dst_mac: [2, 0, 0, 0, 1, 1],
        src_ip: [10, 0, 0, 1],
        dst_ip: [10, 0, 1, 1],
        sport: 50000,
        dport: wire::FERROCE_PORT,
        dscp: 26,
        ecn: Ecn::Ect0,
        ttl: 64,
    }
}

fn data_repr() -> TransportRepr {
    TransportRepr {
        common: CommonRepr {
            opcode: Opcode::WriteImm,
            conn: ConnId(7),
            path: PathId(3),
            psn: Psn::new(0x12_3456),
            timestamp: 0xdead_beef,
            stream: StreamId(2),
            flags: wire::flags::RETX | wire::flags::ACK_REQ,
            generation: 0,
        },
        body: Body::Data(DataRepr {
            msg_seq: MsgSeq(9),
            msg_len: 4096,
            offset: 1024,
            payload_len: 4,
            remote_addr: Iova(0x1_4000_1000),
            rkey: Rkey(0x5151),
            immediate: 0xcafe_f00d,
        }),
    }
}

fn ack_repr() -> TransportRepr {
    let mut a = AckRepr { sack: [0; 32], ts_echo: 0xdead_beef, rate_hint_mbps: 25_000, ecn_ce: 2, acked_pkts: 4 };
    a.set_sacked(Psn::new(0x100));
    a.set_sacked(Psn::new(0x102));
    a.set_sacked(Psn::new(0x1ff));
    TransportRepr {
        common: CommonRepr {
            opcode: Opcode::Ack,
            conn: ConnId(7),
            path: PathId(3),
            psn: Psn::new(0x100),
            timestamp: 16,
            stream: StreamId(0),
            flags: 0,
            generation: 0,
        },
        body: Body::Ack(a),
    }
}

#[test]
fn data_frame_matches_literal_bytes_both_ways() {
    let lit = hex(DATA_FRAME);
    assert_eq!(wire::encode(&addr(), &data_repr(), &[1, 2, 3, 4]), lit);
    let f = wire::parse(&lit, wire::FERROCE_PORT).unwrap();
    assert_eq!(f.addr, addr());
    assert_eq!(f.transport, data_repr());
    assert_eq!(f.payload, &[1, 2, 3, 4]);
}

#[test]
fn ack_frame_matches_literal_bytes_both_ways() {
    let lit = hex(ACK_FRAME);
    assert_eq!(wire::encode(&addr(), &ack_repr(), &[]), lit);
    let f = wire::parse(&lit, wire::FERROCE_PORT).unwrap();
    assert_eq!(f.transport, ack_repr());
    let Body::Ack(a) = f.transport.body else { panic!() };
    assert!(a.sacked(Psn::new(0x300)), "circular: slot 0 is PSN 0x100, 0x200, 0x300...");
    assert!(!a.sacked(Psn::new(0x101)));
}

#[test]
fn nak_round_trips() {
    let t = TransportRepr {
        common: CommonRepr {
            opcode: Opcode::Nak,
            conn: ConnId(1),
            path: PathId(0),
            psn: Psn::new(77),
            timestamp: 5,
            stream: StreamId(3),
            flags: 0,
            generation: 0,
        },
        body: Body::Nak(wire::NakRepr { code: wire::NakCode::Access, msg_seq: MsgSeq(12), info: 0 }),
    };
    let f = wire::encode(&addr(), &t, &[]);
    assert_eq!(f.len(), 14 + 20 + 8 + 16 + 16 + 4);
    assert_eq!(wire::parse(&f, wire::FERROCE_PORT).unwrap().transport, t);
}

#[test]
fn malformed_frames_give_typed_errors() {
    let good = hex(DATA_FRAME);
    let port = wire::FERROCE_PORT;
    assert!(matches!(wire::parse(&good[..10], port), Err(Error::Truncated { .. })));
    assert!(matches!(wire::parse(&good[..good.len() - 1], port), Err(Error::BadLength { .. })));
    let mut bad = good.clone();
    bad[70] ^= 0x40; // payload bit
    assert!(matches!(wire::parse(&bad, port), Err(Error::BadCrc { .. })));
    let mut bad = good.clone();
    bad[14 + 8] ^= 1; // TTL: IPv4 checksum no longer matches
    assert_eq!(wire::parse(&bad, port), Err(Error::BadIpChecksum));
    let mut bad = good.clone();
    bad[43] = 0x7f; // opcode; fix the CRC so only the opcode is wrong
    let n = bad.len();
    let crc = wire::crc32(&bad[42..n - 4]);
    bad[n - 4..].copy_from_slice(&crc.to_le_bytes());
    assert_eq!(wire::parse(&bad, port), Err(Error::UnknownOpcode(0x7f)));
    assert!(matches!(wire::parse(&good, 4791), Err(Error::NotFerroce { dport: 17989, .. })));
    let mut bad = good.clone();
    bad[12..14].copy_from_slice(&[0x86, 0xdd]); // IPv6 ethertype
    assert!(matches!(wire::parse(&bad, port), Err(Error::NotFerroce { ethertype: 0x86dd, .. })));
    // payload_len that disagrees with the UDP length
    let mut bad = good.clone();
    bad[42 + 16 + 13] = 5;
    let crc = wire::crc32(&bad[42..n - 4]);
    bad[n - 4..].copy_from_slice(&crc.to_le_bytes());
    assert!(matches!(wire::parse(&bad, port), Err(Error::BadLength { what: "data.payload_len", .. })));
}

#[test]
fn ce_marking_keeps_the_frame_valid() {
    let mut f = hex(DATA_FRAME);
    assert!(wire::mark_ce(&mut f));
    let p = wire::parse(&f, wire::FERROCE_PORT).unwrap();
    assert_eq!(p.addr.ecn, Ecn::Ce);
    assert_eq!(p.transport, data_repr());
}

#[test]
fn a_routed_hop_rewrites_the_macs_and_decrements_the_ttl() {
    let mut f = hex(DATA_FRAME);
    assert!(wire::route_hop(&mut f, [2, 0xfe, 0, 0, 0, 3], [2, 0, 0, 0, 1, 1]));
    assert_eq!(&f[0..12], &[2, 0, 0, 0, 1, 1, 2, 0xfe, 0, 0, 0, 3]);
    // TTL 64 -> 63 at frame byte 22; the checksum 0x252e goes up by 0x0100.
    assert_eq!(&f[22..26], &[0x3f, 0x11, 0x26, 0x2e]);
    assert_eq!(&f[26..], &hex(DATA_FRAME)[26..]);
    let p = wire::parse(&f, wire::FERROCE_PORT).unwrap();
    assert_eq!((p.addr.ttl, p.transport), (63, data_repr()));
    // A router drops what would leave with TTL 0, unchanged.
    f[22] = 1;
    let before = f.clone();
    assert!(!wire::route_hop(&mut f, [2, 0xfe, 0, 0, 0, 3], [2, 0, 0, 0, 1, 1]));
    assert_eq!(f, before);
}

#[test]
fn a_reflected_frame_goes_back_to_its_sender_and_stays_valid() {
    let mut f = hex(DATA_FRAME);
    assert!(wire::reflect(&mut f));
    assert_eq!(&f[0..12], &hex(DATA_FRAME)[..12].rchunks(6).flatten().copied().collect::<Vec<u8>>()[..]);
    assert_eq!(&f[26..34], &[0x0a, 0x00, 0x01, 0x01, 0x0a, 0x00, 0x00, 0x01]);
    let p = wire::parse(&f, wire::FERROCE_PORT).unwrap();
    assert_eq!((p.addr.src_ip, p.addr.dst_ip, p.transport), ([10, 0, 1, 1], [10, 0, 0, 1], data_repr()));
    assert!(wire::reflect(&mut f));
    assert_eq!(f, hex(DATA_FRAME), "twice is the frame as sent");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = wire::parse(&bytes, wire::FERROCE_PORT);
    }

    #[test]
    fn mutated_frames_never_panic_and_are_caught(pos in 0usize..86, bit in 0u8..8, cut in 0usize..90) {
        let mut f = hex(DATA_FRAME);
        f[pos] ^= 1 << bit;
        let r = wire::parse(&f, wire::FERROCE_PORT);
        // Every flip is caught (IPv4 checksum, lengths, port, CRC) except in
        // the MAC addresses (the endpoint checks the destination), the UDP
        // source port (entropy) and the unused UDP checksum.
        let unchecked = pos < 12 || (34..36).contains(&pos) || (40..42).contains(&pos);
        if !unchecked {
            prop_assert!(r.is_err(), "flip at byte {} bit {} accepted", pos, bit);
        }
        let _ = wire::parse(&f[..cut.min(f.len())], wire::FERROCE_PORT);
    }

    #[test]
    fn data_round_trips(conn: u16, path in 0u8..16, psn in 0u32..(1 << 24), stream: u16, msg_seq: u32,
                        payload in proptest::collection::vec(any::<u8>(), 1..300), off in 0u32..1000,
                        remote: u64, rkey: u32, imm: u32, ts: u32, generation: u8) {
        let t = TransportRepr {
            common: CommonRepr { opcode: Opcode::Write, conn: ConnId(conn), path: PathId(path), psn: Psn::new(psn),
                                 timestamp: ts, stream: StreamId(stream), flags: 0, generation },
            body: Body::Data(DataRepr { msg_seq: MsgSeq(msg_seq), msg_len: off + payload.len() as u32, offset: off,
                                        payload_len: payload.len() as u16, remote_addr: Iova(remote), rkey: Rkey(rkey),
                                        immediate: imm }),
        };
        let f = wire::encode(&addr(), &t, &payload);
        let p = wire::parse(&f, wire::FERROCE_PORT).unwrap();
        prop_assert_eq!(p.transport, t);
        prop_assert_eq!(p.payload, &payload[..]);
    }
}
