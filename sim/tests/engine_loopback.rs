//! The whole engine in Verilator, looped to itself: connection 0 sends to
//! connection 1 of the same engine through its own MAC ports, with frames
//! lost on the way. Work requests go through the send ring and the
//! doorbell, receive buffers through the receive ring, completions come
//! back through the completion ring; every byte is checked.

use ferroce_proto::rings::{Cqe, CqeKind, Rqe, Wqe, WqeOp, CQE_BYTES, RQE_BYTES, WQE_BYTES};
use ferroce_proto::rng::Rng;
use ferroce_proto::Iova;
use ferroce_sim::engine::{DmaConfig, EngineSim};
use ferroce_sim::memory::Memory;

const SQ: u64 = 0x1000_0000;
const RQ: u64 = 0x1001_0000;
const CQ: u64 = 0x1002_0000;
const SRC: u64 = 0x2000_0000;
const DST: u64 = 0x3000_0000;
const RECV: u64 = 0x4000_0000;
const LOG_SQ: u32 = 6;
const LOG_RQ: u32 = 6;
const LOG_CQ: u32 = 8;
const MAC: [u8; 6] = [2, 0, 0, 0, 0, 0x42];
const IP: [u8; 4] = [10, 0, 0, 42];

struct Msg {
    wqe: Wqe,
    recv: Option<(u64, u32)>,
}

fn setup(e: &mut EngineSim, paths: u32, streams: u32, mtu: u32) {
    let w =
        |e: &mut EngineSim, b: &str, r: &str, v: u32| e.write(b, r, v).unwrap_or_else(|err| panic!("{b}.{r}: {err}"));
    w(e, "control", "mac_lo", u32::from_be_bytes([MAC[2], MAC[3], MAC[4], MAC[5]]));
    w(e, "control", "mac_hi", u16::from_be_bytes([MAC[0], MAC[1]]) as u32);
    w(e, "control", "ip", u32::from_be_bytes(IP));
    w(e, "control", "mtu", mtu);
    w(e, "control", "rto_min_ns", 20_000);
    w(e, "control", "rnr_delay_ns", 5_000);
    w(e, "control", "port_seed", 7);
    for (index, remote) in [(0, 1), (1, 0)] {
        w(e, "conn_table", "index", index);
        w(e, "conn_table", "remote_id", remote);
        w(e, "conn_table", "peer_ip", u32::from_be_bytes(IP));
        w(e, "conn_table", "peer_mac_lo", u32::from_be_bytes([MAC[2], MAC[3], MAC[4], MAC[5]]));
        w(e, "conn_table", "peer_mac_hi", u16::from_be_bytes([MAC[0], MAC[1]]) as u32);
        w(e, "conn_table", "paths", paths);
        w(e, "conn_table", "streams", streams);
        w(e, "conn_table", "cmd", 1);
        let mut n = 0;
        while e.read("conn_table", "cmd_status").unwrap() == 1 {
            n += 1;
            assert!(n < 1_000, "connection setup never finished");
        }
        assert_eq!(e.read("conn_table", "cmd_status").unwrap(), 0, "connection {index} refused");
    }
    // WRITEs arrive on connection 1.
    w(e, "mr_table", "index", 0);
    w(e, "mr_table", "rkey", 0x77);
    w(e, "mr_table", "base_lo", DST as u32);
    w(e, "mr_table", "base_hi", (DST >> 32) as u32);
    w(e, "mr_table", "len_lo", 1 << 20);
    w(e, "mr_table", "len_hi", 0);
    w(e, "mr_table", "access", 1);
    w(e, "mr_table", "conn", 1);
    w(e, "mr_table", "cmd", 1);
    assert_eq!(e.read("mr_table", "cmd_status").unwrap(), 0);
    for (q, base, log) in [("sq", SQ, LOG_SQ), ("rq", RQ, LOG_RQ), ("cq", CQ, LOG_CQ)] {
        w(e, "queues", &format!("{q}_base_lo"), base as u32);
        w(e, "queues", &format!("{q}_base_hi"), (base >> 32) as u32);
        w(e, "queues", &format!("{q}_log_size"), log);
    }
    w(e, "control", "ctrl", 1);
}

fn memory() -> Memory {
    let mut m = Memory::default();
    m.add_region("sq", Iova(SQ), WQE_BYTES << LOG_SQ, false);
    m.add_region("rq", Iova(RQ), RQE_BYTES << LOG_RQ, false);
    m.add_region("cq", Iova(CQ), CQE_BYTES << LOG_CQ, true);
    m.add_region("src", Iova(SRC), 1 << 20, false);
    m.add_region("dst", Iova(DST), 1 << 20, true);
    m.add_region("recv", Iova(RECV), 1 << 20, true);
    let mut rng = Rng::new(99);
    for b in m.region_mut("src").iter_mut() {
        *b = rng.next_u64() as u8;
    }
    m
}

/// Run `msgs` through a looped engine with `loss`; returns the cycles taken.
fn run(seed: u64, count: usize, paths: u32, streams: u32, loss: f64) -> u64 {
    let mut rng = Rng::new(seed);
    let mut e = EngineSim::new(memory(), DmaConfig { seed, ..DmaConfig::default() }).expect("engine model builds");
    setup(&mut e, paths, streams, 512);
    // Messages to distinct destinations, so the final image is known.
    let (mut dst_at, mut recv_at, mut msgs) = (DST, RECV, Vec::new());
    for i in 0..count {
        let len = if rng.chance(0.2) { 1 + rng.below(8000) } else { 1 + rng.below(1500) } as u32;
        let local = SRC + rng.below((1 << 20) - len as u64);
        let stream = rng.below(streams as u64) as u8;
        let op = [WqeOp::Write, WqeOp::WriteImm, WqeOp::Send][i % 3];
        let (remote, recv) = match op {
            WqeOp::Send => {
                let r = (recv_at, len);
                recv_at += len as u64;
                (0, Some(r))
            }
            _ => {
                let r = dst_at;
                dst_at += len as u64;
                (r, None)
            }
        };
        let wqe =
            Wqe { op, stream, conn: 0, len, local, remote, rkey: 0x77, imm: 0xab00_0000 | i as u32, id: i as u32 };
        msgs.push(Msg { wqe, recv });
    }
    // Receive buffers first (per stream, in SEND order), then the work.
    let rqes: Vec<Rqe> = msgs
        .iter()
        .filter_map(|m| {
            m.recv.map(|(addr, len)| Rqe { conn: 1, stream: m.wqe.stream, len, addr, id: 0x1000 + m.wqe.id })
        })
        .collect();
    let (mut sq_prod, mut rq_prod, mut cq_cons) = (0u32, 0u32, 0u32);
    let (mut next_wqe, mut next_rqe) = (0usize, 0usize);
    let mut cqes: Vec<Cqe> = Vec::new();
    let mut wire: std::collections::VecDeque<(u64, Vec<u8>)> = std::collections::VecDeque::new();
    let (mut sent, mut lost) = (0u64, 0u64);
    let want_cqes = msgs.len() + msgs.iter().filter(|m| m.wqe.op != WqeOp::Write).count();
    let start = e.cycles();
    while cqes.len() < want_cqes {
        assert!(e.cycles() - start < 20_000_000, "stuck: {} of {want_cqes} completions", cqes.len());
        // Post what fits in the rings.
        let sq_cons = e.read("queues", "sq_cons").unwrap();
        let mut rang = false;
        while next_wqe < msgs.len() && sq_prod.wrapping_sub(sq_cons) < 1 << LOG_SQ {
            let slot = (sq_prod as usize & ((1 << LOG_SQ) - 1)) * WQE_BYTES;
            e.mem.region_mut("sq")[slot..slot + WQE_BYTES].copy_from_slice(&msgs[next_wqe].wqe.encode());
            sq_prod = sq_prod.wrapping_add(1);
            next_wqe += 1;
            rang = true;
        }
        if rang {
            e.write("queues", "sq_prod", sq_prod).unwrap();
        }
        let rq_cons = e.read("queues", "rq_cons").unwrap();
        let mut rang = false;
        while next_rqe < rqes.len() && rq_prod.wrapping_sub(rq_cons) < 1 << LOG_RQ {
            let slot = (rq_prod as usize & ((1 << LOG_RQ) - 1)) * RQE_BYTES;
            e.mem.region_mut("rq")[slot..slot + RQE_BYTES].copy_from_slice(&rqes[next_rqe].encode());
            rq_prod = rq_prod.wrapping_add(1);
            next_rqe += 1;
            rang = true;
        }
        if rang {
            e.write("queues", "rq_prod", rq_prod).unwrap();
        }
        // Run a while, looping frames back with a wire delay and losses.
        for _ in 0..2_000 {
            e.cycle();
            for f in e.take_frames() {
                sent += 1;
                if rng.chance(loss) {
                    lost += 1;
                } else {
                    wire.push_back((e.cycles() + 100, f));
                }
            }
            while wire.front().is_some_and(|(t, _)| *t <= e.cycles()) {
                let (_, f) = wire.pop_front().unwrap();
                e.give_frame(f);
            }
        }
        // Completions.
        let cq_prod = e.read("queues", "cq_prod").unwrap();
        while cq_cons != cq_prod {
            let slot = (cq_cons as usize & ((1 << LOG_CQ) - 1)) * CQE_BYTES;
            cqes.push(Cqe::decode(&e.mem.region("cq")[slot..slot + CQE_BYTES]).expect("a valid completion"));
            cq_cons = cq_cons.wrapping_add(1);
        }
        e.write("queues", "cq_cons", cq_cons).unwrap();
        assert!(e.violations.is_empty(), "guard violations: {:?}", e.violations);
    }
    let cycles = e.cycles() - start;
    // Every message completed once, successfully, with its data in place.
    let src = e.mem.region("src").to_vec();
    for m in &msgs {
        let w = m.wqe;
        let done: Vec<&Cqe> = cqes.iter().filter(|c| c.kind == CqeKind::SendDone && c.id == w.id).collect();
        assert_eq!(done.len(), 1, "message {} has {} send completions", w.id, done.len());
        assert_eq!((done[0].status, done[0].len, done[0].conn, done[0].stream), (0, w.len, 0, w.stream));
        let bytes = &src[(w.local - SRC) as usize..(w.local - SRC) as usize + w.len as usize];
        match w.op {
            WqeOp::Send => {
                let (addr, len) = m.recv.unwrap();
                let got: Vec<&Cqe> = cqes.iter().filter(|c| c.kind == CqeKind::Recv && c.id == 0x1000 + w.id).collect();
                assert_eq!(got.len(), 1, "SEND {} received {} times", w.id, got.len());
                assert_eq!((got[0].status, got[0].len, got[0].conn), (0, len, 1));
                assert!(e.mem.slice(Iova(addr), len as usize) == bytes, "SEND {}: bytes differ", w.id);
            }
            _ => {
                assert!(e.mem.slice(Iova(w.remote), w.len as usize) == bytes, "WRITE {}: bytes differ", w.id);
                if w.op == WqeOp::WriteImm {
                    let got = cqes.iter().filter(|c| c.kind == CqeKind::WriteImm && c.imm == Some(w.imm)).count();
                    assert_eq!(got, 1, "WRITE with immediate {}", w.id);
                }
            }
        }
    }
    // Receive completions in message order per stream.
    for s in 0..streams as u8 {
        let seqs: Vec<u32> =
            cqes.iter().filter(|c| c.kind != CqeKind::SendDone && c.stream == s).map(|c| c.msg_seq).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "stream {s}: receive completions out of order: {seqs:?}");
    }
    // Nothing written outside the messages' targets.
    let dst_used = (dst_at - DST) as usize;
    assert!(e.mem.region("dst")[dst_used..].iter().all(|b| *b == 0), "bytes written past the WRITE targets");
    let retx = e.read("stats", "tx_retx").unwrap();
    eprintln!("{count} messages, {sent} frames ({lost} lost), {retx} retransmitted, {cycles} cycles");
    if lost > 0 {
        assert!(retx > 0, "losses were repaired without retransmission?");
    }
    cycles
}

#[test]
fn loopback_without_loss_moves_every_byte() {
    run(1, 30, 4, 4, 0.0);
}

#[test]
fn loopback_with_loss_repairs_every_loss() {
    run(2, 40, 8, 8, 0.02);
}
