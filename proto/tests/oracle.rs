//! Directed tests of the reference model's receive side and its protection
//! rules, with expectations written out by hand from docs/protocol.md: frames
//! are built here, the replies are read back at literal byte offsets of the
//! wire format (docs/wire.md) and every byte the model writes is counted.

use std::collections::BTreeMap;

use ferroce_proto::model::{ConnConfig, Endpoint, EndpointConfig};
use ferroce_proto::transport::{
    Access, Completion, CompletionKind, CompletionStatus, MemoryRegion, RecvBuffer, Transport, WorkRequest,
};
use ferroce_proto::types::us;
use ferroce_proto::wire::{self, flags, Body, CommonRepr, DataRepr, Opcode, TransportRepr};
use ferroce_proto::{ConnId, Error, HostMemory, Iova, MsgSeq, PathId, Psn, Rkey, StreamId, Time, WrId};

/// Sparse host memory that counts how often each byte is written.
#[derive(Debug, Default)]
struct Mem {
    bytes: BTreeMap<u64, u8>,
    writes: BTreeMap<u64, u32>,
}

impl Mem {
    fn at(&self, addr: u64, len: u64) -> Vec<u8> {
        (addr..addr + len).map(|a| self.bytes.get(&a).copied().unwrap_or(0)).collect()
    }

    /// Addresses written, each with how often, in address order.
    fn written(&self) -> Vec<(u64, u32)> {
        self.writes.iter().map(|(&a, &n)| (a, n)).collect()
    }

    fn preload(&mut self, addr: u64, data: &[u8]) {
        for (i, &b) in data.iter().enumerate() {
            self.bytes.insert(addr + i as u64, b);
        }
    }
}

impl HostMemory for Mem {
    fn read(&self, a: Iova, buf: &mut [u8]) {
        for (i, b) in buf.iter_mut().enumerate() {
            *b = self.bytes.get(&(a.0 + i as u64)).copied().unwrap_or(0);
        }
    }
    fn write(&mut self, a: Iova, d: &[u8]) {
        for (i, &b) in d.iter().enumerate() {
            let addr = a.0.checked_add(i as u64).expect("a write past the top of the address space");
            self.bytes.insert(addr, b);
            *self.writes.entry(addr).or_default() += 1;
        }
    }
}

/// Each address written once: `(addr, 1)` for `addr` in `from..to`.
fn once(from: u64, to: u64) -> Vec<(u64, u32)> {
    (from..to).map(|a| (a, 1)).collect()
}

const RX_MAC: [u8; 6] = [2, 0, 0, 0, 0, 2];
const RX_IP: [u8; 4] = [10, 0, 0, 2];
/// Peer of connection 1 and of connection 2 at the receiver.
const PEER1_IP: [u8; 4] = [10, 0, 0, 1];
const PEER2_IP: [u8; 4] = [10, 0, 0, 3];

fn endpoint_cfg(mac: [u8; 6], ip: [u8; 4]) -> EndpointConfig {
    EndpointConfig::new(mac, ip, 100_000, 1024)
}

fn conn(id: u16, peer_ip: [u8; 4], paths: u8, streams: u16) -> ConnConfig {
    ConnConfig {
        id: ConnId(id),
        remote_id: ConnId(id),
        peer_mac: [2, 0, 0, 0, 0, peer_ip[3]],
        peer_ip,
        paths,
        streams,
        initial_rate_mbps: None,
    }
}

fn region(rkey: u32, base: u64, len: u64, remote_write: bool, conn: u16) -> MemoryRegion {
    MemoryRegion { rkey: Rkey(rkey), base: Iova(base), len, access: Access { remote_write }, conn: ConnId(conn) }
}

/// One data packet as a peer sends it. Defaults: a WRITE on connection 1,
/// path 0, stream 0, through rkey 1 at 0x1000.
#[derive(Debug, Clone)]
struct Pkt {
    opcode: Opcode,
    conn: u16,
    src_ip: [u8; 4],
    path: u8,
    psn: u32,
    stream: u16,
    flags: u8,
    msg_seq: u32,
    msg_len: u32,
    offset: u32,
    remote_addr: u64,
    rkey: u32,
    imm: u32,
    timestamp: u32,
    ecn: wire::Ecn,
    payload: Vec<u8>,
}

impl Pkt {
    fn write(msg_seq: u32, msg_len: u32, offset: u32, payload: &[u8]) -> Pkt {
        Pkt {
            opcode: Opcode::Write,
            conn: 1,
            src_ip: PEER1_IP,
            path: 0,
            psn: 0,
            stream: 0,
            flags: 0,
            msg_seq,
            msg_len,
            offset,
            remote_addr: 0x1000,
            rkey: 1,
            imm: 0,
            timestamp: 0,
            ecn: wire::Ecn::Ect0,
            payload: payload.to_vec(),
        }
    }

    fn write_imm(msg_seq: u32, msg_len: u32, offset: u32, imm: u32, payload: &[u8]) -> Pkt {
        Pkt { opcode: Opcode::WriteImm, imm, ..Pkt::write(msg_seq, msg_len, offset, payload) }
    }

    /// A SEND carrying receive sequence number `rsn` in the rkey field.
    fn send(msg_seq: u32, rsn: u32, msg_len: u32, offset: u32, payload: &[u8]) -> Pkt {
        Pkt { opcode: Opcode::Send, remote_addr: 0, rkey: rsn, ..Pkt::write(msg_seq, msg_len, offset, payload) }
    }

    fn on(mut self, path: u8, psn: u32) -> Pkt {
        self.path = path;
        self.psn = psn;
        self
    }

    fn stream(mut self, stream: u16) -> Pkt {
        self.stream = stream;
        self
    }

    fn to(mut self, remote_addr: u64, rkey: u32) -> Pkt {
        self.remote_addr = remote_addr;
        self.rkey = rkey;
        self
    }

    fn flags(mut self, flags: u8) -> Pkt {
        self.flags = flags;
        self
    }

    fn marked(mut self, ecn: wire::Ecn, timestamp: u32) -> Pkt {
        self.ecn = ecn;
        self.timestamp = timestamp;
        self
    }

    fn on_conn2(mut self) -> Pkt {
        self.conn = 2;
        self.src_ip = PEER2_IP;
        self
    }

    fn encode(&self) -> Vec<u8> {
        let t = TransportRepr {
            common: CommonRepr {
                opcode: self.opcode,
                conn: ConnId(self.conn),
                path: PathId(self.path),
                psn: Psn::new(self.psn),
                timestamp: self.timestamp,
                stream: StreamId(self.stream),
                flags: self.flags,
                generation: 0,
            },
            body: Body::Data(DataRepr {
                msg_seq: MsgSeq(self.msg_seq),
                msg_len: self.msg_len,
                offset: self.offset,
                payload_len: self.payload.len() as u16,
                remote_addr: Iova(self.remote_addr),
                rkey: Rkey(self.rkey),
                immediate: self.imm,
            }),
        };
        let addr = wire::Addressing {
            src_mac: [2, 0, 0, 0, 0, self.src_ip[3]],
            dst_mac: RX_MAC,
            src_ip: self.src_ip,
            dst_ip: RX_IP,
            sport: 50_000 + self.path as u16,
            dport: wire::FERROCE_PORT,
            dscp: 26,
            ecn: self.ecn,
            ttl: 64,
        };
        wire::encode(&addr, &t, &self.payload)
    }
}

/// A control frame the receiver sent, read at the byte offsets of
/// docs/wire.md: the transport header starts at byte 42 (Ethernet 14 + IPv4
/// 20 + UDP 8), opcode at 43, path at 46, PSN at 47-49, stream at 54-55, the
/// extension at 58 (ACK: SACK bitmap 58-89; NAK: code 58, msg_seq 62-65).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Reply {
    Ack { path: u8, cum: u32, sack: [u8; 32] },
    Nak { path: u8, psn: u32, stream: u16, msg_seq: u32, code: u8 },
}

fn reply(f: &[u8]) -> Reply {
    let be = |r: std::ops::Range<usize>| f[r].iter().fold(0u32, |a, &b| a << 8 | b as u32);
    match f[43] {
        0x10 => Reply::Ack { path: f[46], cum: be(47..50), sack: f[58..90].try_into().unwrap() },
        0x11 => {
            Reply::Nak { path: f[46], psn: be(47..50), stream: be(54..56) as u16, msg_seq: be(62..66), code: f[58] }
        }
        other => panic!("not a control frame: opcode {other:#04x}"),
    }
}

/// A SACK bitmap with the given slots set.
fn sack(slots: &[usize]) -> [u8; 32] {
    let mut s = [0u8; 32];
    for &i in slots {
        s[i / 8] |= 1 << (i % 8);
    }
    s
}

fn ack(path: u8, cum: u32, slots: &[usize]) -> Reply {
    Reply::Ack { path, cum, sack: sack(slots) }
}

const ACCESS: u8 = 1;
const NO_RECV: u8 = 2;
const RECV_TOO_SMALL: u8 = 3;

fn nak(path: u8, psn: u32, stream: u16, msg_seq: u32, code: u8) -> Reply {
    Reply::Nak { path, psn, stream, msg_seq, code }
}

/// A receiving endpoint: connection 1 (2 paths, 2 streams) from PEER1 with
/// region rkey 1 = [0x1000, 0x1100) writable; connection 2 (1 path, 1 stream)
/// from PEER2.
struct Rx {
    ep: Endpoint,
    mem: Mem,
    now: Time,
}

impl Rx {
    fn new() -> Rx {
        // ACKs are coalesced by the timer only, so that every ACK a test sees
        // is one sent at once.
        let cfg = EndpointConfig { ack_every: 64, ..endpoint_cfg(RX_MAC, RX_IP) };
        let mut ep = Endpoint::new(cfg).unwrap();
        ep.connect(conn(1, PEER1_IP, 2, 2)).unwrap();
        ep.connect(conn(2, PEER2_IP, 1, 1)).unwrap();
        ep.register_mr(region(1, 0x1000, 0x100, true, 1)).unwrap();
        Rx { ep, mem: Mem::default(), now: us(1) }
    }

    /// Deliver `p` and return what the receiver sends at once.
    fn deliver(&mut self, p: &Pkt) -> Vec<Reply> {
        self.now += 1_000;
        self.ep.handle_frame(self.now, &p.encode(), &mut self.mem);
        self.replies()
    }

    fn replies(&mut self) -> Vec<Reply> {
        self.frames().iter().map(|f| reply(f)).collect()
    }

    /// Deliver `frame` at `now` and return the frames the receiver sends at once.
    fn deliver_at(&mut self, now: Time, frame: &[u8]) -> Vec<Vec<u8>> {
        self.now = now;
        self.ep.handle_frame(now, frame, &mut self.mem);
        self.frames()
    }

    fn frames(&mut self) -> Vec<Vec<u8>> {
        std::iter::from_fn(|| self.ep.poll_transmit(self.now, &self.mem)).collect()
    }

    /// Let the coalescing timers fire and return the ACKs they send.
    fn flush(&mut self) -> Vec<Reply> {
        self.now += us(3);
        self.ep.handle_timeout(self.now);
        self.replies()
    }

    fn completions(&mut self) -> Vec<Completion> {
        std::iter::from_fn(|| self.ep.poll_completion()).collect()
    }
}

fn write_imm_done(stream: u16, msg_seq: u32, len: u32, imm: u32) -> Completion {
    Completion {
        id: WrId(0),
        conn: ConnId(1),
        stream: StreamId(stream),
        msg_seq: MsgSeq(msg_seq),
        kind: CompletionKind::WriteImm,
        status: CompletionStatus::Success,
        len,
        imm: Some(imm),
    }
}

fn recv_done(id: u64, msg_seq: u32, len: u32, status: CompletionStatus) -> Completion {
    Completion {
        id: WrId(id),
        conn: ConnId(1),
        stream: StreamId(0),
        msg_seq: MsgSeq(msg_seq),
        kind: CompletionKind::Recv,
        status,
        len,
        imm: None,
    }
}

fn recv_buffer(id: u64, addr: u64, len: u32) -> RecvBuffer {
    RecvBuffer { id: WrId(id), conn: ConnId(1), stream: StreamId(0), addr: Iova(addr), len }
}

#[test]
fn completions_within_a_stream_come_in_message_order_when_holes_fill_out_of_order() {
    let mut rx = Rx::new();
    // Stream 0: messages 0, 1, 2 of 8 bytes each in two 4-byte packets, at
    // 0x1000, 0x1010, 0x1020. Stream 1: message 0, one 4-byte packet at 0x1080.
    let s0 =
        |m: u32, off: u32, bytes: [u8; 4]| Pkt::write_imm(m, 8, off, 0xa0 + m, &bytes).to(0x1000 + 0x10 * m as u64, 1);
    let steps = [
        s0(2, 4, [0x24, 0x25, 0x26, 0x27]).on(0, 0),
        s0(2, 0, [0x20, 0x21, 0x22, 0x23]).on(1, 0),
        s0(1, 4, [0x14, 0x15, 0x16, 0x17]).on(0, 1),
        Pkt::write_imm(0, 4, 0, 0xb0, &[0xb0, 0xb1, 0xb2, 0xb3]).to(0x1080, 1).stream(1).on(1, 1),
        s0(0, 4, [0x04, 0x05, 0x06, 0x07]).on(0, 2),
        s0(1, 0, [0x10, 0x11, 0x12, 0x13]).on(1, 2),
        s0(0, 0, [0x00, 0x01, 0x02, 0x03]).on(0, 3),
    ];
    let mut seen = Vec::new();
    for p in &steps {
        rx.deliver(p);
        seen.push(rx.completions());
    }
    assert_eq!(
        seen,
        vec![
            vec![],
            vec![],
            vec![],
            vec![write_imm_done(1, 0, 4, 0xb0)],
            vec![],
            vec![],
            vec![write_imm_done(0, 0, 8, 0xa0), write_imm_done(0, 1, 8, 0xa1), write_imm_done(0, 2, 8, 0xa2)],
        ]
    );
    assert_eq!(rx.mem.at(0x1000, 8), [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07]);
    assert_eq!(rx.mem.at(0x1010, 8), [0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17]);
    assert_eq!(rx.mem.at(0x1020, 8), [0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27]);
    assert_eq!(rx.mem.at(0x1080, 4), [0xb0, 0xb1, 0xb2, 0xb3]);
    let expect = [once(0x1000, 0x1008), once(0x1010, 0x1018), once(0x1020, 0x1028), once(0x1080, 0x1084)];
    assert_eq!(rx.mem.written(), expect.concat());
    assert_eq!(rx.ep.stats().bytes_placed, 28);
    assert_eq!(rx.ep.stats().tx_naks, 0);
}

#[test]
fn a_message_that_completes_before_its_predecessor_is_reported_only_after_it() {
    let mut rx = Rx::new();
    // Message 1 is one packet, message 0 two; message 1 is whole first.
    rx.deliver(&Pkt::write_imm(1, 2, 0, 0x11, &[0xc1, 0xc2]).to(0x1010, 1).on(0, 0));
    rx.deliver(&Pkt::write_imm(0, 4, 2, 0x10, &[0xc3, 0xc4]).to(0x1000, 1).on(1, 0));
    assert_eq!(rx.completions(), vec![], "message 0 is half received");
    rx.deliver(&Pkt::write_imm(0, 4, 0, 0x10, &[0xc5, 0xc6]).to(0x1000, 1).on(1, 1));
    assert_eq!(rx.completions(), vec![write_imm_done(0, 0, 4, 0x10), write_imm_done(0, 1, 2, 0x11)]);
    assert_eq!(rx.mem.at(0x1000, 4), [0xc5, 0xc6, 0xc3, 0xc4]);
    assert_eq!(rx.mem.at(0x1010, 2), [0xc1, 0xc2]);
}

#[test]
fn duplicates_write_nothing_twice_are_counted_and_acknowledged_at_once() {
    let mut rx = Rx::new();
    // One 12-byte WRITE at 0x1000 in three packets on path 0, PSNs 0, 1, 2.
    let p0 = Pkt::write(0, 12, 0, &[0x5a, 0x5b, 0x5c, 0x5d]).on(0, 0);
    let p1 = Pkt::write(0, 12, 4, &[0x6a, 0x6b, 0x6c, 0x6d]).on(0, 1);
    let p2 = Pkt::write(0, 12, 8, &[0x7a, 0x7b, 0x7c, 0x7d]).on(0, 2);
    assert_eq!(rx.deliver(&p0), vec![], "in order, coalesced");
    // The same PSN again (behind the cumulative PSN): an ACK at once.
    assert_eq!(rx.deliver(&p0), vec![ack(0, 1, &[])]);
    // PSN 2 opens a hole: an ACK at once; its retransmission (bit set) is a duplicate.
    assert_eq!(rx.deliver(&p2), vec![ack(0, 1, &[2])]);
    assert_eq!(rx.deliver(&p2.clone().flags(flags::RETX | flags::ACK_REQ)), vec![ack(0, 1, &[2])]);
    assert_eq!(rx.deliver(&p1), vec![], "fills the hole, coalesced");
    assert_eq!(rx.flush(), vec![ack(0, 3, &[])]);
    // A retransmission of a packet of a message already complete.
    assert_eq!(rx.deliver(&p1.clone().flags(flags::RETX | flags::ACK_REQ)), vec![ack(0, 3, &[])]);
    let s = rx.ep.stats();
    assert_eq!((s.rx_data, s.rx_dup, s.rx_dup_retx), (6, 3, 2));
    assert_eq!((s.bytes_placed, s.tx_naks, s.rx_access_violation), (12, 0, 0));
    assert_eq!(rx.mem.written(), once(0x1000, 0x100c), "every byte exactly once");
    assert_eq!(rx.mem.at(0x1000, 12), [0x5a, 0x5b, 0x5c, 0x5d, 0x6a, 0x6b, 0x6c, 0x6d, 0x7a, 0x7b, 0x7c, 0x7d]);
    assert_eq!(rx.ep.conn_bytes_placed(ConnId(1)), 12);
}

#[test]
fn a_packet_placed_on_one_path_is_not_placed_again_when_its_bytes_come_on_another() {
    let mut rx = Rx::new();
    // Paths keep their own PSN spaces: PSN 0 on path 1 is new even after PSN 0 on path 0.
    rx.deliver(&Pkt::write(0, 4, 0, &[1, 2, 3, 4]).on(0, 0));
    rx.deliver(&Pkt::write(1, 4, 0, &[5, 6, 7, 8]).to(0x1004, 1).on(1, 0));
    assert_eq!(rx.ep.stats().rx_dup, 0);
    assert_eq!(rx.mem.at(0x1000, 8), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(rx.mem.written(), once(0x1000, 0x1008));
}

#[test]
fn a_sack_window_psn_255_ahead_is_taken_and_256_ahead_is_dropped() {
    let mut rx = Rx::new();
    // One 16-byte WRITE in four packets; which PSN carries which offset is free.
    let part = |off: u32, b: u8| Pkt::write(0, 16, off, &[b, b + 1, b + 2, b + 3]);
    assert_eq!(rx.deliver(&part(0, 0x10).on(0, 255)), vec![ack(0, 0, &[255])], "a hole: ACK at once");
    assert_eq!(rx.deliver(&part(4, 0x20).on(0, 256)), vec![ack(0, 0, &[255])], "dropped, ACK at once");
    assert_eq!(rx.ep.stats().rx_out_of_window, 1);
    assert_eq!(rx.mem.written(), once(0x1000, 0x1004));
    // PSN 0 moves the cumulative PSN to 1: 256 is now 255 ahead, 257 is 256 ahead.
    assert_eq!(rx.deliver(&part(8, 0x30).on(0, 0).flags(flags::ACK_REQ)), vec![ack(0, 1, &[255])]);
    assert_eq!(rx.deliver(&part(4, 0x20).on(0, 256)), vec![]);
    assert_eq!(rx.deliver(&part(12, 0x40).on(0, 257)), vec![ack(0, 1, &[0, 255])]);
    assert_eq!(rx.ep.stats().rx_out_of_window, 2);
    assert_eq!(rx.mem.written(), once(0x1000, 0x100c));
    assert_eq!(rx.mem.at(0x1000, 12), [0x10, 0x11, 0x12, 0x13, 0x20, 0x21, 0x22, 0x23, 0x30, 0x31, 0x32, 0x33]);
}

#[test]
fn the_message_window_takes_message_n_plus_15_and_refuses_n_plus_16_while_n_is_open() {
    let mut rx = Rx::new();
    // Message 0 complete and delivered; message 1 half received (n = 1).
    rx.deliver(&Pkt::write(0, 1, 0, &[0xee]).on(0, 0));
    rx.deliver(&Pkt::write(1, 2, 0, &[0x01]).to(0x1001, 1).on(0, 1));
    let small = |m: u32, addr: u64, b: u8| Pkt::write(m, 1, 0, &[b]).to(addr, 1).flags(flags::ACK_REQ);
    assert_eq!(rx.deliver(&small(16, 0x1010, 0x16).on(0, 2)), vec![ack(0, 3, &[])]);
    assert_eq!(rx.deliver(&small(17, 0x1011, 0x17).on(0, 3)), vec![nak(0, 3, 0, 17, ACCESS), ack(0, 4, &[])]);
    assert_eq!(rx.mem.at(0x1010, 2), [0x16, 0x00]);
    assert_eq!(rx.mem.written(), vec![(0x1000, 1), (0x1001, 1), (0x1010, 1)]);
    // Once message 1 completes the window moves on: message 17 is taken.
    rx.deliver(&Pkt::write(1, 2, 1, &[0x02]).to(0x1001, 1).on(0, 4));
    assert_eq!(rx.deliver(&small(17, 0x1011, 0x17).on(0, 5)), vec![ack(0, 6, &[])]);
    assert_eq!(rx.mem.at(0x1010, 2), [0x16, 0x17]);
}

#[test]
fn write_through_an_unknown_rkey_is_refused_with_an_access_nak_and_consumes_its_psn() {
    let mut rx = Rx::new();
    let p = Pkt::write(0, 4, 0, &[9, 9, 9, 9]).to(0x1000, 9).on(1, 0).flags(flags::ACK_REQ);
    assert_eq!(rx.deliver(&p), vec![nak(1, 0, 0, 0, ACCESS), ack(1, 1, &[])]);
    assert_eq!(rx.mem.written(), vec![]);
    let s = rx.ep.stats();
    assert_eq!((s.rx_access_violation, s.tx_naks, s.bytes_placed), (1, 1, 0));
    // The PSN is consumed: the same packet again is a duplicate, not refused again.
    assert_eq!(rx.deliver(&p), vec![ack(1, 1, &[])]);
    assert_eq!((rx.ep.stats().rx_dup, rx.ep.stats().tx_naks), (1, 1));
}

#[test]
fn region_bounds_take_the_last_byte_and_refuse_one_byte_past_the_end_or_before_the_base() {
    let mut rx = Rx::new();
    // Region 1 is [0x1000, 0x1100).
    let w = |m: u32, addr: u64, psn: u32| Pkt::write(m, 4, 0, &[0xa1, 0xa2, 0xa3, 0xa4]).to(addr, 1).on(0, psn);
    assert_eq!(rx.deliver(&w(0, 0x10fd, 0)), vec![nak(0, 0, 0, 0, ACCESS)], "0x10fd..0x1101");
    assert_eq!(rx.deliver(&w(1, 0x0fff, 1)), vec![nak(0, 1, 0, 1, ACCESS)], "0x0fff..0x1003");
    assert_eq!(rx.mem.written(), vec![]);
    assert_eq!(rx.deliver(&w(2, 0x10fc, 2)), vec![], "0x10fc..0x1100: the last four bytes");
    assert_eq!(rx.mem.written(), once(0x10fc, 0x1100));
    assert_eq!(rx.mem.at(0x10fc, 4), [0xa1, 0xa2, 0xa3, 0xa4]);
    // The whole message must fit: this packet is inside, its 17-byte message is not.
    let p = Pkt::write(3, 17, 0, &[0xb1, 0xb2]).to(0x10f0, 1).on(0, 3);
    assert_eq!(rx.deliver(&p), vec![nak(0, 3, 0, 3, ACCESS)]);
    assert_eq!(rx.mem.written(), once(0x10fc, 0x1100));
    // And the same message at 16 bytes fits.
    let p = Pkt::write(4, 16, 0, &[0xb1, 0xb2]).to(0x10f0, 1).on(0, 4);
    assert_eq!(rx.deliver(&p), vec![]);
    assert_eq!(rx.mem.at(0x10f0, 2), [0xb1, 0xb2]);
    assert_eq!(rx.ep.stats().rx_access_violation, 3);
}

#[test]
fn a_region_of_another_connection_is_refused_and_open_to_its_own() {
    let mut rx = Rx::new();
    rx.ep.register_mr(region(3, 0x3000, 0x100, true, 2)).unwrap();
    let p = Pkt::write(0, 3, 0, &[0x31, 0x32, 0x33]).to(0x3000, 3).on(0, 0);
    assert_eq!(rx.deliver(&p), vec![nak(0, 0, 0, 0, ACCESS)]);
    assert_eq!(rx.mem.written(), vec![]);
    assert_eq!(rx.deliver(&p.on_conn2().flags(flags::ACK_REQ)), vec![ack(0, 1, &[])]);
    assert_eq!(rx.mem.at(0x3000, 3), [0x31, 0x32, 0x33]);
    assert_eq!(rx.ep.conn_bytes_placed(ConnId(2)), 3);
    assert_eq!(rx.ep.conn_bytes_placed(ConnId(1)), 0);
}

#[test]
fn a_region_without_remote_write_refuses_writes_and_one_with_it_takes_them() {
    let mut rx = Rx::new();
    rx.ep.register_mr(region(2, 0x2000, 0x100, false, 1)).unwrap();
    rx.ep.register_mr(region(4, 0x4000, 0x100, true, 1)).unwrap();
    let p = |m: u32, addr: u64, rkey: u32, psn: u32| Pkt::write(m, 2, 0, &[0x42, 0x43]).to(addr, rkey).on(0, psn);
    assert_eq!(rx.deliver(&p(0, 0x2000, 2, 0)), vec![nak(0, 0, 0, 0, ACCESS)]);
    assert_eq!(rx.deliver(&p(1, 0x4000, 4, 1)), vec![]);
    assert_eq!(rx.mem.written(), once(0x4000, 0x4002));
}

#[test]
fn write_and_write_imm_check_the_rkey_and_send_takes_it_as_the_receive_sequence_number() {
    let mut rx = Rx::new();
    let wrong = |p: Pkt| p.to(0x1000, 2);
    let w = wrong(Pkt::write(0, 2, 0, &[0xd1, 0xd2]).on(0, 0));
    assert_eq!(rx.deliver(&w), vec![nak(0, 0, 0, 0, ACCESS)]);
    let wi = wrong(Pkt::write_imm(1, 2, 0, 0x77, &[0xd3, 0xd4]).on(0, 1));
    assert_eq!(rx.deliver(&wi), vec![nak(0, 1, 0, 1, ACCESS)]);
    assert_eq!(rx.completions(), vec![], "a refused WRITE with immediate completes nothing");
    assert_eq!(rx.mem.written(), vec![]);
    // A SEND names no region: its rkey field is 0, the first receive buffer.
    rx.ep.post_recv(recv_buffer(40, 0x5000, 16)).unwrap();
    let s = Pkt::send(2, 0, 2, 0, &[0xd5, 0xd6]).on(0, 2);
    assert_eq!(rx.deliver(&s), vec![]);
    assert_eq!(rx.completions(), vec![recv_done(40, 2, 2, CompletionStatus::Success)]);
    assert_eq!(rx.mem.written(), once(0x5000, 0x5002));
    // A SEND whose rkey field equals region 1's rkey means receive sequence
    // number 1, which has no buffer: NO_RECV, and region 1 stays untouched.
    let s = Pkt::send(3, 1, 2, 0, &[0xd7, 0xd8]).on(0, 3).to(0x1000, 1);
    assert_eq!(rx.deliver(&s), vec![nak(0, 3, 0, 3, NO_RECV)]);
    assert_eq!(rx.mem.written(), once(0x5000, 0x5002));
    assert_eq!(rx.mem.at(0x5000, 2), [0xd5, 0xd6]);
}

#[test]
fn a_send_longer_than_its_buffer_is_refused_with_recv_too_small_and_uses_the_buffer_up() {
    let mut rx = Rx::new();
    rx.ep.post_recv(recv_buffer(50, 0x6000, 8)).unwrap();
    rx.ep.post_recv(recv_buffer(51, 0x6100, 8)).unwrap();
    // 9 bytes for an 8-byte buffer, in two packets.
    let big = Pkt::send(0, 0, 9, 0, &[0xe0, 0xe1, 0xe2, 0xe3, 0xe4]).on(0, 0);
    assert_eq!(rx.deliver(&big), vec![nak(0, 0, 0, 0, RECV_TOO_SMALL)]);
    assert_eq!(rx.completions(), vec![recv_done(50, 0, 9, CompletionStatus::RecvTooSmall)]);
    assert_eq!(rx.mem.written(), vec![]);
    // Exactly the buffer's size fits, and takes the next buffer.
    let fits = Pkt::send(1, 1, 8, 0, &[0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7]).on(0, 1);
    assert_eq!(rx.deliver(&fits), vec![]);
    assert_eq!(rx.completions(), vec![recv_done(51, 1, 8, CompletionStatus::Success)]);
    assert_eq!(rx.mem.written(), once(0x6100, 0x6108));
    assert_eq!(rx.mem.at(0x6100, 8), [0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7]);
    assert_eq!(rx.ep.stats().tx_naks, 1);
}

#[test]
fn a_send_without_a_posted_buffer_is_not_received_and_can_be_taken_later() {
    let mut rx = Rx::new();
    let s = Pkt::send(0, 0, 3, 0, &[0x91, 0x92, 0x93]).on(1, 0).flags(flags::ACK_REQ);
    assert_eq!(rx.deliver(&s), vec![nak(1, 0, 0, 0, NO_RECV)], "no ACK: the packet is not received");
    let st = rx.ep.stats();
    assert_eq!((st.rx_no_recv, st.rx_dup, st.rx_access_violation), (1, 0, 0));
    rx.ep.post_recv(recv_buffer(60, 0x7000, 4)).unwrap();
    // The PSN was not consumed: the same packet is new, and now placed.
    assert_eq!(rx.deliver(&s.flags(flags::RETX | flags::ACK_REQ)), vec![ack(1, 1, &[])]);
    assert_eq!(rx.completions(), vec![recv_done(60, 0, 3, CompletionStatus::Success)]);
    assert_eq!(rx.mem.written(), once(0x7000, 0x7003));
    assert_eq!(rx.mem.at(0x7000, 3), [0x91, 0x92, 0x93]);
}

#[test]
fn a_sender_retries_a_send_refused_for_no_buffer_after_rnr_delay_and_it_lands_once_posted() {
    let mut tx_mem = Mem::default();
    tx_mem.preload(0x100, &[0x81, 0x82, 0x83, 0x84, 0x85, 0x86]);
    let mut tx = Endpoint::new(endpoint_cfg([2, 0, 0, 0, 0, 1], PEER1_IP)).unwrap();
    tx.connect(ConnConfig { peer_mac: RX_MAC, peer_ip: RX_IP, ..conn(1, PEER1_IP, 1, 1) }).unwrap();
    let mut rx = Rx::new();
    tx.post(WorkRequest::Send { id: WrId(70), conn: ConnId(1), stream: StreamId(0), local: Iova(0x100), len: 6 })
        .unwrap();
    let first = tx.poll_transmit(0, &tx_mem).expect("the SEND");
    assert_eq!(tx.poll_transmit(0, &tx_mem), None, "one packet");
    rx.ep.handle_frame(us(1), &first, &mut rx.mem);
    rx.now = us(1);
    let naks: Vec<Vec<u8>> = std::iter::from_fn(|| rx.ep.poll_transmit(us(1), &rx.mem)).collect();
    assert_eq!(naks.iter().map(|f| reply(f)).collect::<Vec<_>>(), vec![nak(0, 0, 0, 0, NO_RECV)]);
    tx.handle_frame(us(2), &naks[0], &mut tx_mem);
    // NAK at 2 us, rnr_delay 50 us: the retry is due at 52 us, before the RTO (100 us).
    assert_eq!(tx.poll_timeout(), Some(us(52)));
    tx.handle_timeout(us(52) - 1);
    assert_eq!(tx.poll_transmit(us(52) - 1, &tx_mem), None, "held until rnr_delay has passed");
    rx.ep.post_recv(recv_buffer(61, 0x8000, 6)).unwrap();
    tx.handle_timeout(us(52));
    let retry = tx.poll_transmit(us(52), &tx_mem).expect("the retry");
    assert_eq!(retry[46..50], [0, 0, 0, 0], "path 0, PSN 0 again");
    assert_eq!(retry[56], flags::RETX | flags::ACK_REQ);
    assert_eq!(retry[retry.len() - 10..retry.len() - 4], [0x81, 0x82, 0x83, 0x84, 0x85, 0x86]);
    rx.ep.handle_frame(us(53), &retry, &mut rx.mem);
    assert_eq!(rx.completions(), vec![recv_done(61, 0, 6, CompletionStatus::Success)]);
    assert_eq!(rx.mem.written(), once(0x8000, 0x8006));
    assert_eq!(rx.mem.at(0x8000, 6), [0x81, 0x82, 0x83, 0x84, 0x85, 0x86]);
    let acks: Vec<Vec<u8>> = std::iter::from_fn(|| rx.ep.poll_transmit(us(53), &rx.mem)).collect();
    assert_eq!(acks.iter().map(|f| reply(f)).collect::<Vec<_>>(), vec![ack(0, 1, &[])]);
    tx.handle_frame(us(54), &acks[0], &mut tx_mem);
    let done = tx.poll_completion().expect("the SEND completes");
    assert_eq!(
        (done.id, done.kind, done.status, done.len),
        (WrId(70), CompletionKind::SendDone, CompletionStatus::Success, 6)
    );
    assert_eq!(tx.stats().tx_retx, 1);
    assert_eq!(tx.outstanding(), 0);
}

#[test]
fn a_zero_length_or_duplicate_region_is_not_registered() {
    let mut rx = Rx::new();
    assert!(matches!(rx.ep.register_mr(region(5, 0x9000, 0, true, 1)), Err(Error::BadMemoryRegion(_))));
    assert!(matches!(rx.ep.register_mr(region(1, 0x9000, 0x10, true, 1)), Err(Error::BadMemoryRegion(_))));
    // Neither took rkey 5 or changed rkey 1: rkey 5 is free, rkey 1 still at 0x1000.
    rx.ep.register_mr(region(5, 0x9000, 1, true, 1)).unwrap();
    assert_eq!(rx.deliver(&Pkt::write(0, 1, 0, &[0x55]).to(0x9000, 5).on(0, 0)), vec![]);
    assert_eq!(rx.deliver(&Pkt::write(1, 1, 0, &[0x66]).to(0x9001, 5).on(0, 1)), vec![nak(0, 1, 0, 1, ACCESS)]);
    assert_eq!(rx.deliver(&Pkt::write(2, 1, 0, &[0x77]).to(0x9000, 1).on(0, 2)), vec![nak(0, 2, 0, 2, ACCESS)]);
    assert_eq!(rx.mem.written(), vec![(0x9000, 1)]);
}

#[test]
fn a_region_reaching_the_top_of_the_address_space_is_refused_and_one_byte_short_of_it_works() {
    let mut rx = Rx::new();
    // base + len == 2^64: the exclusive end does not fit in 64 bits.
    let top = region(6, 0xffff_ffff_ffff_ff00, 0x100, true, 1);
    assert!(matches!(rx.ep.register_mr(top), Err(Error::BadMemoryRegion(_))));
    // base + len == 2^64 - 1: the last byte is 0xffff_ffff_ffff_fffe.
    rx.ep.register_mr(region(7, 0xffff_ffff_ffff_feff, 0x100, true, 1)).unwrap();
    let last = Pkt::write(0, 2, 0, &[0xf1, 0xf2]).to(0xffff_ffff_ffff_fffd, 7).on(0, 0);
    assert_eq!(rx.deliver(&last), vec![]);
    let past = Pkt::write(1, 2, 0, &[0xf3, 0xf4]).to(0xffff_ffff_ffff_fffe, 7).on(0, 1);
    assert_eq!(rx.deliver(&past), vec![nak(0, 1, 0, 1, ACCESS)]);
    assert_eq!(rx.mem.written(), once(0xffff_ffff_ffff_fffd, 0xffff_ffff_ffff_ffff));
    // A message whose end would wrap past 2^64 is refused too.
    let wrap = Pkt::write(2, 2, 0, &[0xf5, 0xf6]).to(0xffff_ffff_ffff_ffff, 7).on(0, 2);
    assert_eq!(rx.deliver(&wrap), vec![nak(0, 2, 0, 2, ACCESS)]);
    assert_eq!(rx.mem.written(), once(0xffff_ffff_ffff_fffd, 0xffff_ffff_ffff_ffff));
}

/// A big-endian field of a frame.
fn be(f: &[u8], at: std::ops::Range<usize>) -> u32 {
    f[at].iter().fold(0u32, |a, &b| a << 8 | b as u32)
}

/// The rate hint of an ACK frame (ACK extension bytes 36-39, frame bytes 94-97).
fn hint(frames: &[Vec<u8>]) -> u32 {
    assert_eq!(frames.len(), 1, "one ACK");
    assert_eq!(frames[0][43], 0x10, "an ACK");
    be(&frames[0], 94..98)
}

#[test]
fn endpoint_and_connection_settings_out_of_range_are_refused() {
    let ok = |c: EndpointConfig| Endpoint::new(c).is_ok();
    let base = endpoint_cfg(RX_MAC, RX_IP);
    assert!(!ok(EndpointConfig { line_rate_mbps: 0, ..base.clone() }));
    assert!(!ok(EndpointConfig { mtu: 0, ..base.clone() }));
    assert!(!ok(EndpointConfig { mtu: 9001, ..base.clone() }));
    assert!(ok(EndpointConfig { mtu: 9000, ..base.clone() }));
    assert!(ok(EndpointConfig { mtu: 1, ..base.clone() }));
    assert!(!ok(EndpointConfig { ack_every: 0, ..base.clone() }));
    assert!(!ok(EndpointConfig { max_cwnd: 0, ..base.clone() }));
    assert!(!ok(EndpointConfig { max_cwnd: 257, ..base.clone() }));
    assert!(ok(EndpointConfig { max_cwnd: 256, ack_every: 1, ..base.clone() }));
    assert!(ok(EndpointConfig { max_cwnd: 1, ..base.clone() }));
    assert!(ok(EndpointConfig { path_window: 64, ..base.clone() }));
    assert!(ok(EndpointConfig { path_window: 16, ..base.clone() }));
    assert!(ok(EndpointConfig { path_window: 8, ..base.clone() }));
    assert!(!ok(EndpointConfig { path_window: 4, ..base.clone() }));
    assert!(!ok(EndpointConfig { path_window: 96, ..base.clone() }));
    assert!(!ok(EndpointConfig { path_window: 512, ..base.clone() }));
    assert!(ok(EndpointConfig { max_frame_len: 4096, ..base.clone() }));
    assert!(!ok(EndpointConfig { max_frame_len: wire::MAX_FRAME_LEN + 1, ..base.clone() }));
    assert!(!ok(EndpointConfig { max_frame_len: 255, ..base.clone() }));
    let mut ep = Endpoint::new(base).unwrap();
    let bad = |r: ferroce_proto::Result<()>| matches!(r, Err(Error::BadConfig(_)));
    assert!(bad(ep.connect(conn(1, PEER1_IP, 0, 1))));
    assert!(bad(ep.connect(conn(1, PEER1_IP, 17, 1))));
    assert!(bad(ep.connect(conn(1, PEER1_IP, 1, 0))));
    ep.connect(conn(1, PEER1_IP, 16, 1)).unwrap();
    assert_eq!(ep.paths(ConnId(1)).len(), 16);
    assert!(bad(ep.connect(conn(1, PEER2_IP, 1, 1))), "connection 1 exists");
    ep.connect(conn(2, PEER2_IP, 1, 1)).unwrap();
    // Receive buffers: a known connection and stream, not empty, not wrapping.
    let rb = |conn: u16, stream: u16, addr: u64, len: u32| RecvBuffer {
        id: WrId(1),
        conn: ConnId(conn),
        stream: StreamId(stream),
        addr: Iova(addr),
        len,
    };
    assert!(matches!(ep.post_recv(rb(3, 0, 0x1000, 8)), Err(Error::UnknownConnection(ConnId(3)))));
    assert!(matches!(ep.post_recv(rb(1, 1, 0x1000, 8)), Err(Error::BadStream { .. })));
    assert!(matches!(ep.post_recv(rb(1, 0, 0x1000, 0)), Err(Error::BadWorkRequest(_))));
    assert!(matches!(ep.post_recv(rb(1, 0, u64::MAX - 7, 8)), Err(Error::BadWorkRequest(_))));
    ep.post_recv(rb(1, 0, u64::MAX - 8, 8)).unwrap();
    assert!(matches!(
        ep.post(WorkRequest::Send { id: WrId(1), conn: ConnId(3), stream: StreamId(0), local: Iova(0), len: 1 }),
        Err(Error::UnknownConnection(ConnId(3)))
    ));
}

#[test]
fn a_receiver_whose_fifo_holds_4_kib_takes_a_frame_of_4096_bytes_and_refuses_one_byte_more() {
    // The `ecp5-25` build's receiver (`EngineConfig::max_frame_len`).
    let cfg = EndpointConfig { ack_every: 64, max_frame_len: 4096, ..endpoint_cfg(RX_MAC, RX_IP) };
    let mut rx = Rx::new();
    rx.ep = Endpoint::new(cfg).unwrap();
    rx.ep.connect(conn(1, PEER1_IP, 2, 2)).unwrap();
    rx.ep.register_mr(region(1, 0x1000, 0x4000, true, 1)).unwrap();
    let fits = 4096 - wire::DATA_FRAME_OVERHEAD;
    let a: Vec<u8> = (0..fits).map(|i| i as u8 ^ 0x5a).collect();
    let long = Pkt::write(0, fits as u32 + 1, 0, &[a.clone(), vec![0xee]].concat()).to(0x1000, 1).on(0, 0);
    assert_eq!(long.encode().len(), 4097);
    assert!(rx.deliver_at(us(2), &long.encode()).is_empty());
    assert_eq!(rx.ep.stats().rx_malformed, 1, "a frame one byte past the FIFO is a length error");
    assert!(rx.mem.writes.is_empty(), "nothing of it is placed");
    let whole = Pkt::write(0, fits as u32, 0, &a).to(0x1000, 1).on(0, 0).flags(flags::ACK_REQ);
    assert_eq!(whole.encode().len(), 4096);
    assert!(!rx.deliver(&whole).is_empty(), "the frame that fits is taken and acknowledged");
    assert_eq!(rx.ep.stats().rx_malformed, 1);
    assert_eq!(rx.mem.at(0x1000, fits as u64), a);
    // The same longer frame is taken by a receiver of the full size.
    let mut full = Rx::new();
    full.ep.register_mr(region(3, 0x8000, 0x4000, true, 1)).unwrap();
    let long3 = Pkt::write(0, fits as u32 + 1, 0, &[a, vec![0xee]].concat()).to(0x8000, 3).on(0, 0);
    full.deliver_at(us(2), &long3.encode());
    assert_eq!(full.ep.stats().rx_malformed, 0);
    assert_eq!(full.mem.at(0x8000 + fits as u64, 1), vec![0xee]);
}

#[test]
fn frames_not_for_this_endpoint_or_not_from_the_connection_s_peer_are_dropped() {
    let mut rx = Rx::new();
    let good = Pkt::write(0, 1, 0, &[0x11]).on(1, 0).flags(flags::ACK_REQ);
    let mut other_mac = good.encode();
    other_mac[5] = 0x09;
    let mut other_ip = good.encode();
    other_ip[33] = 0x09;
    // Fix the IPv4 header checksum (bytes 24-25) after changing the address.
    other_ip[24..26].copy_from_slice(&[0, 0]);
    let sum = wire::internet_checksum(&other_ip[14..34]);
    other_ip[24..26].copy_from_slice(&sum.to_be_bytes());
    assert!(rx.deliver_at(us(2), &other_mac).is_empty());
    assert!(rx.deliver_at(us(3), &other_ip).is_empty());
    assert_eq!(rx.ep.stats().rx_malformed, 2);
    let from_stranger = Pkt { src_ip: [10, 0, 0, 9], ..good.clone() };
    let to_unknown = Pkt { conn: 3, ..good.clone() };
    let no_such_path = good.clone().on(2, 0);
    assert_eq!(rx.deliver(&from_stranger), vec![]);
    assert_eq!(rx.deliver(&to_unknown), vec![]);
    assert_eq!(rx.deliver(&no_such_path), vec![]);
    assert_eq!((rx.ep.stats().rx_bad_conn, rx.ep.stats().rx_frames), (3, 5));
    assert_eq!(rx.mem.written(), vec![]);
    assert_eq!(rx.deliver(&good), vec![ack(1, 1, &[])]);
    assert_eq!(rx.mem.written(), vec![(0x1000, 1)]);
}

#[test]
fn a_connection_starts_at_its_setup_share_clamped_to_one_and_the_line_rate() {
    let mut ep = Endpoint::new(endpoint_cfg(RX_MAC, RX_IP)).unwrap();
    assert_eq!(ep.setup_rate_hint(), 100_000, "no connection yet: the line");
    for (id, rate) in [(1u16, Some(25_000)), (2, None), (3, Some(0)), (4, Some(200_000))] {
        ep.connect(ConnConfig { initial_rate_mbps: rate, ..conn(id, [10, 0, 1, id as u8], 1, 1) }).unwrap();
    }
    let rates: Vec<Option<u32>> = (1..=5).map(|id| ep.conn_rate_mbps(ConnId(id))).collect();
    assert_eq!(rates, vec![Some(25_000), Some(100_000), Some(1), Some(100_000), None]);
    assert_eq!(ep.setup_rate_hint(), 25_000);
}

#[test]
fn the_rate_hint_is_withheld_for_one_activity_window_after_the_receiver_wakes() {
    let mut rx = Rx::new();
    let p = |m: u32, psn: u32| Pkt::write(m, 1, 0, &[m as u8]).on(0, psn).flags(flags::ACK_REQ).encode();
    assert_eq!(hint(&rx.deliver_at(us(1), &p(0, 0))), 0, "just woke up");
    assert_eq!(hint(&rx.deliver_at(us(21) - 1, &p(1, 1))), 0);
    assert_eq!(hint(&rx.deliver_at(us(21), &p(2, 2))), 100_000, "one window later: one active sender");
    // Idle for more than a window: the next packet wakes the receiver again.
    assert_eq!(hint(&rx.deliver_at(us(42), &p(3, 3))), 0);
}

#[test]
fn a_sender_with_a_half_received_message_counts_as_active_for_eight_windows() {
    for half in [true, false] {
        let mut rx = Rx::new();
        // Connection 2 sends the first packet of a 2-byte message (or a whole 1-byte one) at 1 us.
        let len = if half { 2 } else { 1 };
        let first = Pkt::write(0, len, 0, &[0x22]).to(0x3000, 3).on(0, 0).on_conn2();
        rx.ep.register_mr(region(3, 0x3000, 0x100, true, 2)).unwrap();
        rx.deliver_at(us(1), &first.encode());
        // Connection 1 keeps the receiver busy with a packet every 15 us.
        let mut hints = Vec::new();
        for (k, at) in [us(15), us(30), us(45), us(60), us(75), us(90), us(105), us(120), us(135), us(150)]
            .into_iter()
            .chain([us(161), us(161) + 1])
            .enumerate()
        {
            let p = Pkt::write(k as u32, 1, 0, &[k as u8]).to(0x1000 + k as u64, 1).on(0, k as u32);
            hints.push(hint(&rx.deliver_at(at, &p.flags(flags::ACK_REQ).encode())));
        }
        // The hint is withheld until 21 us. From then on only the
        // half-received message keeps connection 2 active, until
        // 1 us + 8 x 20 us = 161 us.
        let (both, alone) = (50_000, 100_000);
        let expect = if half {
            vec![0, both, both, both, both, both, both, both, both, both, both, alone]
        } else {
            vec![0, alone, alone, alone, alone, alone, alone, alone, alone, alone, alone, alone]
        };
        assert_eq!(hints, expect, "half received: {half}");
    }
}

#[test]
fn acks_and_naks_carry_the_receiver_s_clock_the_echoed_timestamp_and_the_ce_marks() {
    let mut rx = Rx::new();
    let p = |m: u32, psn: u32, ecn: wire::Ecn| {
        Pkt::write(m, 1, 0, &[0x40 + m as u8]).on(0, psn).marked(ecn, 0x0bad_f00d + m)
    };
    assert!(rx.deliver_at(us(5), &p(0, 0, wire::Ecn::Ce).encode()).is_empty());
    assert!(rx.deliver_at(us(6), &p(1, 1, wire::Ecn::Ect0).encode()).is_empty());
    let a = rx.deliver_at(123_456_789, &p(2, 2, wire::Ecn::Ce).flags(flags::ACK_REQ).encode());
    assert_eq!(a.len(), 1);
    let a = &a[0];
    assert_eq!(be(a, 50..54), 123_456, "timestamp: the receiver's clock in ns");
    assert_eq!(be(a, 90..94), 0x0bad_f00f, "ts_echo: the timestamp of the packet acknowledged");
    assert_eq!((be(a, 98..100), be(a, 100..102)), (2, 3), "ecn_ce and acked_pkts since the last ACK");
    let s = rx.ep.stats();
    assert_eq!((s.rx_ecn_ce, s.tx_acks, s.rx_data), (2, 1, 3));
    // The next ACK counts from there.
    let a = rx.deliver_at(200_000_000, &p(3, 3, wire::Ecn::Ect0).flags(flags::ACK_REQ).encode());
    assert_eq!((be(&a[0], 98..100), be(&a[0], 100..102)), (0, 1));
    assert_eq!(rx.ep.stats().tx_acks, 2);
    let n = rx.deliver_at(300_000_999, &p(4, 4, wire::Ecn::Ect0).to(0x1000, 9).encode());
    assert_eq!(reply(&n[0]), nak(0, 4, 0, 4, ACCESS));
    assert_eq!(be(&n[0], 50..54), 300_000, "the NAK's timestamp");
    assert_eq!(rx.ep.stats().tx_naks, 1);
}

#[test]
fn a_coalesced_ack_is_due_ack_delay_after_the_first_waiting_packet() {
    let mut rx = Rx::new();
    let p = |m: u32, psn: u32| Pkt::write(m, 1, 0, &[m as u8]).on(0, psn).encode();
    assert!(rx.deliver_at(us(10), &p(0, 0)).is_empty());
    assert!(rx.deliver_at(us(11), &p(1, 1)).is_empty());
    assert_eq!(rx.ep.poll_timeout(), Some(us(12)), "ack_delay (2 us) after the first");
    rx.ep.handle_timeout(us(12) - 1);
    assert!(rx.frames().is_empty());
    rx.ep.handle_timeout(us(12));
    assert_eq!(rx.ep.poll_timeout(), Some(0), "an ACK waits to be sent");
    rx.now = us(12);
    let a = rx.frames();
    assert_eq!(reply(&a[0]), ack(0, 2, &[]));
    assert_eq!(be(&a[0], 100..102), 2, "both packets reported");
    assert_eq!(rx.ep.poll_timeout(), None, "nothing left to do");
}
