//! The reference model's send side driven by hand: the test plays the
//! receiver, answers with ACKs and NAKs it builds itself at chosen times, and
//! checks the RTT estimate, the retransmission timeout and its back-off,
//! re-pathing, pacing at the rate hint and ECN echoes against values worked
//! out by hand from docs/protocol.md.

use ferroce_proto::model::{ConnConfig, Endpoint, EndpointConfig, PathSnapshot};
use ferroce_proto::transport::{CompletionKind, CompletionStatus, Transport, WorkRequest};
use ferroce_proto::types::{ns, us};
use ferroce_proto::wire::{self, AckRepr, Body, CommonRepr, NakCode, NakRepr, Opcode, TransportRepr};
use ferroce_proto::{ConnId, HostMemory, Iova, MsgSeq, PathId, Psn, Rkey, StreamId, Time, WrId};

struct Mem;
impl HostMemory for Mem {
    fn read(&self, a: Iova, buf: &mut [u8]) {
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (a.0 as usize + i) as u8;
        }
    }
    fn write(&mut self, _: Iova, _: &[u8]) {
        panic!("the sender writes no memory");
    }
}

const TX_MAC: [u8; 6] = [2, 0, 0, 0, 0, 1];
const TX_IP: [u8; 4] = [10, 0, 0, 1];
const PEER_MAC: [u8; 6] = [2, 0, 0, 0, 0, 2];
const PEER_IP: [u8; 4] = [10, 0, 0, 2];
const LINE: u32 = 100_000;

/// A sender with one connection (number 1 at both ends) of `paths` paths.
struct Tx {
    ep: Endpoint,
    /// The timestamp field (ns) of every data frame sent, in order.
    stamps: Vec<u32>,
}

impl Tx {
    fn new(paths: u8, tune: impl FnOnce(&mut EndpointConfig)) -> Tx {
        let mut cfg = EndpointConfig::new(TX_MAC, TX_IP, LINE, 1024);
        tune(&mut cfg);
        let mut ep = Endpoint::new(cfg).unwrap();
        ep.connect(ConnConfig {
            id: ConnId(1),
            remote_id: ConnId(1),
            peer_mac: PEER_MAC,
            peer_ip: PEER_IP,
            paths,
            streams: 1,
            initial_rate_mbps: None,
        })
        .unwrap();
        Tx { ep, stamps: Vec::new() }
    }

    fn write(&mut self, id: u64, len: u32) {
        let wr = WorkRequest::Write {
            id: WrId(id),
            conn: ConnId(1),
            stream: StreamId(0),
            local: Iova(0),
            len,
            remote: Iova(0x1000),
            rkey: Rkey(1),
            imm: None,
        };
        self.ep.post(wr).unwrap();
    }

    /// Every frame the sender may send at `now`: (path, PSN, flags) of each.
    fn send(&mut self, now: Time) -> Vec<(u8, u32, u8)> {
        self.ep.handle_timeout(now);
        let frames: Vec<Vec<u8>> = std::iter::from_fn(|| self.ep.poll_transmit(now, &Mem)).collect();
        self.stamps.extend(frames.iter().map(|f| u32::from_be_bytes([f[50], f[51], f[52], f[53]])));
        frames.iter().map(|f| (f[46], u32::from_be_bytes([0, f[47], f[48], f[49]]), f[56])).collect()
    }

    fn path(&self, p: usize) -> PathSnapshot {
        self.ep.paths(ConnId(1))[p]
    }

    fn deliver(&mut self, now: Time, path: u8, psn: u32, body: Body) {
        let opcode = if matches!(body, Body::Ack(_)) { Opcode::Ack } else { Opcode::Nak };
        let t = TransportRepr {
            common: CommonRepr {
                opcode,
                conn: ConnId(1),
                path: PathId(path),
                psn: Psn::new(psn),
                timestamp: 0,
                stream: StreamId(0),
                flags: 0,
                generation: 0,
            },
            body,
        };
        let addr = wire::Addressing {
            src_mac: PEER_MAC,
            dst_mac: TX_MAC,
            src_ip: PEER_IP,
            dst_ip: TX_IP,
            sport: 50_000,
            dport: wire::FERROCE_PORT,
            dscp: 26,
            ecn: wire::Ecn::Ect0,
            ttl: 64,
        };
        self.ep.handle_frame(now, &wire::encode(&addr, &t, &[]), &mut Mem);
    }

    /// An ACK of everything before `cum` on `path`, echoing `ts_echo` (ns).
    fn ack(&mut self, now: Time, path: u8, cum: u32, ts_echo: u32, hint: u32, ce: u16) {
        let a = AckRepr { sack: [0; 32], ts_echo, rate_hint_mbps: hint, ecn_ce: ce, acked_pkts: 1 };
        self.deliver(now, path, cum, Body::Ack(a));
    }
}

#[test]
fn rtt_samples_are_smoothed_and_set_the_retransmission_timeout() {
    let mut tx = Tx::new(1, |c| c.rto_min = us(1));
    tx.write(1, 3 * 1024);
    // Paced at 100 Gb/s: one packet per call, 100 ns apart; the last asks for an ACK.
    assert_eq!(tx.send(0), vec![(0, 0, 0)]);
    assert_eq!(tx.send(ns(100)), vec![(0, 1, 0)]);
    assert_eq!(tx.send(ns(200)), vec![(0, 2, 2)]);
    assert_eq!(tx.stamps, vec![0, 100, 200], "the sender's clock in ns");
    assert_eq!(tx.path(0).rto_at, Some(us(1)), "no sample yet: rto_min");
    // First sample 10 us: srtt 10, rttvar 5, RTO 2 x 10 + 4 x 5 = 40 us.
    tx.ack(us(10), 0, 1, 0, 0, 0);
    assert_eq!((tx.path(0).srtt, tx.path(0).rto_at), (Some(us(10)), Some(us(50))));
    // Second sample 20 us: rttvar (3 x 5 + 10) / 4 = 6.25, srtt (7 x 10 + 20) / 8 = 11.25,
    // RTO 2 x 11.25 + 4 x 6.25 = 47.5 us.
    tx.ack(us(30), 0, 2, 10_000, 0, 0);
    assert_eq!((tx.path(0).srtt, tx.path(0).rto_at), (Some(11_250_000), Some(77_500_000)));
    assert_eq!(tx.path(0).outstanding, 1);
    // Third sample 4 us: rttvar (3 x 6.25 + 7.25) / 4 = 6.5, srtt (7 x 11.25 + 4) / 8 = 10.34375;
    // nothing is outstanding, so no timer.
    tx.ack(us(34), 0, 3, 30_000, 0, 0);
    assert_eq!((tx.path(0).srtt, tx.path(0).rto_at, tx.path(0).outstanding), (Some(10_343_750), None, 0));
    let done = tx.ep.poll_completion().expect("all bytes acknowledged");
    assert_eq!((done.id, done.kind, done.status), (WrId(1), CompletionKind::SendDone, CompletionStatus::Success));
    // A timeout below rto_min is raised to it.
    let mut slow = Tx::new(1, |_| {});
    slow.write(1, 2 * 1024);
    slow.send(0);
    slow.send(ns(100));
    slow.ack(us(10), 0, 1, 0, 0, 0);
    assert_eq!(slow.path(0).rto_at, Some(us(110)), "max(40 us, 100 us)");
}

#[test]
fn consecutive_timeouts_double_the_timeout_up_to_32_times_repath_and_retire_the_path() {
    let mut tx = Tx::new(1, |_| {});
    tx.write(1, 1024);
    assert_eq!(tx.send(0), vec![(0, 0, 2)]);
    let mut seen = vec![(tx.path(0).rto_at, tx.path(0).sport, tx.path(0).retired)];
    for at in [100, 300, 700, 1_500, 3_100, 6_300] {
        assert_eq!(tx.send(us(at) - 1), vec![], "nothing before the timer at {at} us");
        assert_eq!(tx.send(us(at)), vec![(0, 0, 3)], "the packet again, RETX | ACK_REQ, at {at} us");
        let p = tx.path(0);
        seen.push((p.rto_at, p.sport, p.retired));
    }
    let timers: Vec<Option<Time>> = seen.iter().map(|s| s.0).collect();
    let expect = [100, 300, 700, 1_500, 3_100, 6_300, 9_500].map(|t| Some(us(t)));
    assert_eq!(timers, expect, "100 us, then 200, 400, 800, 1600, 3200 and 3200 again");
    let retired: Vec<bool> = seen.iter().map(|s| s.2).collect();
    assert_eq!(retired, [false, false, false, true, true, true, true], "retired from the third timeout");
    for w in seen.windows(2) {
        assert_ne!(w[0].1, w[1].1, "every timeout moves the path to a new source port");
    }
    let s = tx.ep.stats();
    assert_eq!((s.rtos, s.repaths, s.tx_retx, s.tx_data), (6, 6, 6, 1));
    // An ACK with progress ends the run: the path is live again and the timer stops.
    tx.ack(us(6_400), 0, 1, 6_300_000, 0, 0);
    assert_eq!((tx.path(0).retired, tx.path(0).rto_at, tx.path(0).retransmitted), (false, None, 6));
}

#[test]
fn the_rate_hint_of_an_ack_paces_the_connection_and_zero_keeps_the_rate() {
    let mut tx = Tx::new(1, |_| {});
    tx.write(1, 8 * 1024);
    assert_eq!(tx.send(0).len(), 1, "paced: one packet at a time at 100 Gb/s");
    tx.ack(us(1), 0, 1, 0, 25_000, 0);
    assert_eq!(tx.ep.conn_rate_mbps(ConnId(1)), Some(25_000));
    tx.ack(us(2), 0, 1, 0, 0, 0);
    assert_eq!(tx.ep.conn_rate_mbps(ConnId(1)), Some(25_000), "0 is no hint");
    // An ACK older than what is known changes nothing, its hint included.
    tx.ack(us(3), 0, 0, 0, 10_000, 0);
    assert_eq!(tx.ep.conn_rate_mbps(ConnId(1)), Some(25_000));
    tx.ack(us(4), 0, 1, 0, 200_000, 0);
    assert_eq!(tx.ep.conn_rate_mbps(ConnId(1)), Some(LINE), "never above the line rate");
    tx.ack(us(5), 0, 1, 0, 1_000, 0);
    // At 1 Gb/s a frame of 1024 + 94 bytes (+ 24 on the wire) takes 9.136 us.
    let first = tx.send(us(5));
    assert_eq!(first.len(), 1);
    assert_eq!(tx.ep.poll_timeout(), Some(us(5) + 9_136_000));
    assert_eq!(tx.send(us(5) + 9_135_999), vec![]);
    assert_eq!(tx.send(us(5) + 9_136_000).len(), 1);
}

#[test]
fn ce_echoes_are_summed_per_path_and_halve_its_window() {
    let mut tx = Tx::new(2, |c| c.max_cwnd = 8);
    tx.write(1, 16 * 1024);
    let mut sent = Vec::new();
    for k in 0..16 {
        sent.extend(tx.send(us(k)));
    }
    assert_eq!(sent.iter().filter(|s| s.0 == 0).count(), 8, "a window of 8 on path 0");
    assert_eq!(tx.path(0).outstanding, 8);
    // 3 then 2 CE marks on path 0, more than an RTT apart: 8 -> min(8, 7 + 1) / 2 = 4 -> min(4, 6 + 1) / 2 = 2.
    tx.ack(us(20), 0, 1, 19_000, 0, 3);
    assert_eq!((tx.path(0).ecn_echoes, tx.path(0).cwnd), (3, 4));
    tx.ack(us(30), 0, 2, 29_000, 0, 2);
    assert_eq!((tx.path(0).ecn_echoes, tx.path(0).cwnd), (5, 2));
    assert_eq!((tx.path(1).ecn_echoes, tx.path(1).cwnd), (0, 8), "path 1 is on its own");
}

#[test]
fn naks_are_counted_and_an_access_nak_fails_the_work_request() {
    let mut tx = Tx::new(1, |_| {});
    tx.write(9, 2 * 1024);
    assert_eq!(tx.send(0).len(), 1);
    let nak = |code| Body::Nak(NakRepr { code, msg_seq: MsgSeq(0), info: 0 });
    tx.deliver(us(1), 0, 0, nak(NakCode::Access));
    assert_eq!(tx.ep.stats().naks_received, 1);
    // The second packet is never sent; the first is accounted for by the ACK.
    assert_eq!(tx.send(us(2)), vec![]);
    assert_eq!(tx.ep.outstanding(), 1, "not complete before its packet is acknowledged");
    tx.ack(us(3), 0, 1, 0, 0, 0);
    let c = tx.ep.poll_completion().expect("the failed WRITE completes");
    assert_eq!((c.id, c.status, c.len), (WrId(9), CompletionStatus::RemoteAccessError, 2048));
    tx.deliver(us(4), 0, 0, nak(NakCode::RecvTooSmall));
    assert_eq!(tx.ep.stats().naks_received, 2);
    assert_eq!(tx.ep.outstanding(), 0);
}

#[test]
fn lost_psns_are_resent_lowest_first_with_the_paths_taking_turns() {
    let mut tx = Tx::new(2, |_| {});
    tx.write(1, 6 * 1024);
    let sent: Vec<(u8, u32, u8)> = (0..6).flat_map(|k| tx.send(us(k))).collect();
    assert_eq!(sent, vec![(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 2, 0), (1, 2, 2)]);
    // On both paths PSN 2 arrived and 0 and 1 did not: loss, not reordering.
    let sack2 = |tx: &mut Tx, path: u8, at: Time| {
        let mut a = AckRepr { sack: [0; 32], ts_echo: 0, rate_hint_mbps: 0, ecn_ce: 0, acked_pkts: 1 };
        a.set_sacked(Psn::new(2));
        tx.deliver(at, path, 0, Body::Ack(a));
    };
    sack2(&mut tx, 1, us(10));
    sack2(&mut tx, 0, us(11));
    // Resends are due as soon as the pacer allows: 1142 wire bytes after the last packet at 5 us.
    assert_eq!(tx.ep.poll_timeout(), Some(us(5) + 91_360));
    let resent: Vec<(u8, u32, u8)> = (20..24).flat_map(|k| tx.send(us(k))).collect();
    assert_eq!(resent, vec![(0, 0, 3), (1, 0, 3), (0, 1, 3), (1, 1, 3)], "RETX | ACK_REQ");
    assert_eq!(tx.send(us(24)), vec![]);
    assert_eq!((tx.path(0).retransmitted, tx.path(1).retransmitted, tx.ep.stats().rtos), (2, 2, 0));
    assert_eq!((tx.path(0).sent, tx.path(1).sent), (3, 3), "new packets only");
}

#[test]
fn connections_with_data_take_turns() {
    let mut ep = Endpoint::new(EndpointConfig::new(TX_MAC, TX_IP, LINE, 1024)).unwrap();
    for id in [1u16, 2, 3] {
        let peer = ConnConfig {
            id: ConnId(id),
            remote_id: ConnId(10 + id),
            peer_mac: PEER_MAC,
            peer_ip: [10, 0, 1, id as u8],
            paths: 1,
            streams: 1,
            initial_rate_mbps: None,
        };
        ep.connect(peer).unwrap();
        let wr = WorkRequest::Write {
            id: WrId(id as u64),
            conn: ConnId(id),
            stream: StreamId(0),
            local: Iova(0),
            len: 8 * 1024,
            remote: Iova(0),
            rkey: Rkey(1),
            imm: None,
        };
        ep.post(wr).unwrap();
    }
    // One frame a microsecond, when every connection may send: they take
    // turns. The connection number on the wire (bytes 44-45) is the peer's.
    let order: Vec<u16> = (0..7)
        .map(|k| ep.poll_transmit(us(k), &Mem).expect("a frame"))
        .map(|f| u16::from_be_bytes([f[44], f[45]]))
        .collect();
    assert_eq!(order, vec![11, 12, 13, 11, 12, 13, 11]);
}
