//! Directed edges end to end, through the driver and the whole engine in
//! Verilator: memory-region bounds and permissions, rkeys for every
//! opcode, rings at their smallest sizes wrapped many times, and a full
//! completion ring. Every expectation is written out here (literal
//! statuses, memory images built by the test), not taken from the model or
//! from the driver's own checks.

use ferroce_driver::driver::{Config, ConnSpec, Device, Driver, MrSpec, RingSpec};
use ferroce_driver::sim::{SimLoopback, Wire};
use ferroce_proto::regs;
use ferroce_proto::rings::{Cqe, CqeKind, Rqe, Wqe, WqeOp, CQE_BYTES, RQE_BYTES, WQE_BYTES};
use ferroce_proto::transport::Life;
use ferroce_proto::Iova;
use ferroce_sim::memory::Memory;

const SQ: u64 = 0x1000_0000;
const RQ: u64 = 0x1010_0000;
const CQ: u64 = 0x1020_0000;
const SRC: u64 = 0x2000_0000;
/// Target memory: 256 KiB, of which the regions below take parts, so a
/// WRITE let through wrongly lands somewhere the test sees.
const DST: u64 = 0x3000_0000;
const DST_BYTES: usize = 256 << 10;
const SRC_BYTES: usize = 256 << 10;

/// The source byte at `i`.
fn src_byte(i: usize) -> u8 {
    (i * 13 + 7) as u8
}

const MAC: [u8; 6] = [2, 0, 0, 0, 0, 3];
const IP: [u8; 4] = [10, 0, 0, 3];

/// Host memory with rings of 2^`log` entries, the source and the target.
fn memory(log: [u32; 3]) -> Memory {
    let mut mem = Memory::default();
    mem.add_region("sq", Iova(SQ), WQE_BYTES << log[0], false);
    mem.add_region("rq", Iova(RQ), RQE_BYTES << log[1], false);
    mem.add_region("cq", Iova(CQ), CQE_BYTES << log[2], true);
    mem.add_region("src", Iova(SRC), SRC_BYTES, false);
    mem.add_region("dst", Iova(DST), DST_BYTES, true);
    mem.region_mut("src").iter_mut().enumerate().for_each(|(i, b)| *b = src_byte(i));
    mem
}

/// The driver brought up on `dev` (MTU 512) with the rings of [`memory`].
fn bring_up(dev: SimLoopback, log: [u32; 3], seed: u64) -> Driver<SimLoopback> {
    let cfg = Config { mtu: 512, port_seed: seed as u32, ..Config::new(MAC, IP) };
    let ring = |base, log_size| RingSpec { base, log_size };
    Driver::bring_up(dev, &cfg, ring(SQ, log[0]), ring(RQ, log[1]), ring(CQ, log[2])).unwrap()
}

/// Connections 0 and 1 of the looped engine, each the other's peer, over
/// two paths and `streams` streams, in `life`.
fn connect_pair(d: &mut Driver<SimLoopback>, streams: u32, life: Life) {
    for (index, remote) in [(0, 1), (1, 0)] {
        let spec = ConnSpec { index, remote, peer_mac: MAC, peer_ip: IP, paths: 2, streams, initial_rate_mbps: 0 };
        d.connect_life(&spec, life).unwrap();
    }
}

/// One looped engine, connection 0 sending to connection 1 over two paths
/// and `streams` streams; rings of 2^`log` entries each.
fn engine(log: [u32; 3], streams: u32, loss: f64, seed: u64) -> Driver<SimLoopback> {
    let mut d = bring_up(SimLoopback::new(memory(log), &Wire::lossy(loss), seed).unwrap(), log, seed);
    connect_pair(&mut d, streams, Life::default());
    d
}

/// Run until `n` completions have come; fails on more, or on fewer after
/// 2 000 idle rounds.
fn completions(d: &mut Driver<SimLoopback>, n: usize) -> Vec<Cqe> {
    let mut got = Vec::new();
    for _ in 0..2_000 {
        d.dev.idle().unwrap();
        got.extend(d.poll().unwrap());
        if got.len() >= n {
            break;
        }
    }
    assert_eq!(got.len(), n, "{got:?}");
    got
}

fn wqe(id: u32, op: WqeOp, local: usize, remote: u64, len: u32, rkey: u32) -> Wqe {
    Wqe { op, stream: 0, conn: 0, len, local: SRC + local as u64, remote, rkey, imm: 0xabc0_0000 | id, id }
}

/// Regions of connection 1 at the edges: a writable 4 KiB region, a
/// read-only one, and a writable one that belongs to connection 0 (so
/// connection 0's WRITEs arriving at connection 1 may not use it). A WRITE
/// that ends on the last byte lands; one a byte longer, or through the
/// wrong key, the read-only region or the other connection's region, fails
/// with status 1 and writes nothing; the rkey field of a SEND is not a key
/// and does not matter. Completions come in order on the stream.
#[test]
fn region_bounds_permissions_and_rkeys_end_to_end() {
    let mut d = engine([4, 4, 5], 1, 0.0, 11);
    let (rw, ro, other) = (DST, DST + 0x1000, DST + 0x2000);
    for (slot, rkey, base, remote_write, conn) in
        [(0, 0x51, rw, true, 1), (1, 0x52, ro, false, 1), (2, 0x53, other, true, 0)]
    {
        d.register_mr(&MrSpec { slot, rkey, base, len: 0x1000, remote_write, conn }).unwrap();
    }
    // A receive buffer for the SEND, beyond the regions.
    let rbuf = DST + 0x3000;
    d.post_recv(&Rqe { conn: 1, stream: 0, len: 600, addr: rbuf, id: 77 }).unwrap();
    // (work request, status its completion must have)
    let reqs = [
        (wqe(1, WqeOp::Write, 0, rw + 0x1000 - 1500, 1500, 0x51), 0), // ends on the last byte
        (wqe(2, WqeOp::Write, 0, rw + 0x1000 - 1499, 1500, 0x51), 1), // one byte past
        (wqe(3, WqeOp::Write, 0, rw, 1, 0x51), 0),                    // the first byte
        (wqe(4, WqeOp::Write, 0, rw - 1, 2, 0x51), 1),                // one byte before the base
        (wqe(5, WqeOp::Write, 0, ro, 100, 0x52), 1),                  // read-only region
        (wqe(6, WqeOp::Write, 0, other, 100, 0x53), 1),               // connection 0's region
        (wqe(7, WqeOp::Write, 0, rw + 0x100, 100, 0x50), 1),          // a key nobody holds
        (wqe(8, WqeOp::WriteImm, 0, rw + 0x100, 100, 0x54), 1),       // the same with immediate
        (wqe(9, WqeOp::WriteImm, 0, rw + 0x100, 1000, 0x52), 1),      // the read-only region's key
        (wqe(10, WqeOp::WriteImm, 2000, rw + 0x200, 700, 0x51), 0),   // good, with immediate
        (wqe(11, WqeOp::Send, 3000, 0, 600, 0xdead), 0),              // SEND: the rkey is ignored
    ];
    for (w, _) in &reqs {
        assert!(d.post_send(w).unwrap());
    }
    d.ring_doorbells().unwrap();
    // 11 send completions, one WRITE-with-immediate and one receive completion.
    let got = completions(&mut d, 13);
    let sent: Vec<(u32, u8)> = got.iter().filter(|c| c.kind == CqeKind::SendDone).map(|c| (c.id, c.status)).collect();
    let want: Vec<(u32, u8)> = reqs.iter().map(|(w, s)| (w.id, *s)).collect();
    assert_eq!(sent, want, "each request's status, in the order posted");
    let imm: Vec<&Cqe> = got.iter().filter(|c| c.kind == CqeKind::WriteImm).collect();
    assert_eq!(imm.len(), 1, "only the good WRITE with immediate is reported to the receiver: {imm:?}");
    assert_eq!((imm[0].imm, imm[0].len, imm[0].conn, imm[0].status), (Some(0xabc0_000a), 700, 1, 0));
    let recv: Vec<&Cqe> = got.iter().filter(|c| c.kind == CqeKind::Recv).collect();
    assert_eq!(recv.len(), 1);
    assert_eq!((recv[0].id, recv[0].len, recv[0].status, recv[0].conn), (77, 600, 0, 1));

    // The target memory, byte for byte, against an image built here.
    let mut image = vec![0u8; DST_BYTES];
    let mut place = |at: u64, from: usize, len: usize| {
        for k in 0..len {
            image[(at - DST) as usize + k] = src_byte(from + k);
        }
    };
    place(rw + 0x1000 - 1500, 0, 1500);
    place(rw, 0, 1);
    place(rw + 0x200, 2000, 700);
    place(rbuf, 3000, 600);
    let mem = &d.dev.engine.mem;
    if let Some(k) = mem.region("dst").iter().zip(&image).position(|(a, b)| a != b) {
        panic!("target byte {k:#x}: {:#x}, want {:#x}", mem.region("dst")[k], image[k]);
    }
    assert_eq!(mem.dma_written("dst"), 1500 + 1 + 700 + 600, "DMA wrote the good messages' bytes and no others");
    // Seven refused messages of ten packets (MTU 512): at least the first
    // packet of each is refused and counted, at most all ten.
    let refused = d.get(regs::stats::RX_ACCESS_VIOLATION).unwrap();
    assert!((7..=10).contains(&refused), "{refused} packets refused");
    assert!(d.get(regs::stats::TX_NAKS).unwrap() >= 7, "each refused message NAK'd");
}

/// Send, receive and completion rings of two entries each, wrapped about
/// twenty times under loss: every message completes once, in order on its
/// stream, its bytes in place; the rings fill (the driver sees no room) and
/// the engine's indices count every entry.
#[test]
fn rings_of_two_entries_wrap_many_times() {
    const N: u32 = 48;
    const LEN: u32 = 300;
    let mut d = engine([1, 1, 1], 2, 0.05, 12);
    region_for_conn_1(&mut d);
    let ops = [WqeOp::Write, WqeOp::Send, WqeOp::WriteImm];
    let msgs: Vec<Wqe> = (0..N)
        .map(|i| {
            let op = ops[i as usize % 3];
            let at = (i * LEN) as usize;
            Wqe { stream: (i % 2) as u8, ..wqe(i, op, at, if op == WqeOp::Send { 0 } else { DST + at as u64 }, LEN, 9) }
        })
        .collect();
    let recvs: Vec<Rqe> = msgs
        .iter()
        .filter(|w| w.op == WqeOp::Send)
        .map(|w| Rqe { conn: 1, stream: w.stream, len: LEN, addr: DST + (w.local - SRC), id: 1000 + w.id })
        .collect();
    let want = N as usize + recvs.len() + msgs.iter().filter(|w| w.op == WqeOp::WriteImm).count();
    let (mut next_w, mut next_r, mut full_w, mut full_r) = (0usize, 0usize, 0u32, 0u32);
    let mut got: Vec<Cqe> = Vec::new();
    for _ in 0..20_000 {
        if next_r < recvs.len() {
            if d.post_recv(&recvs[next_r]).unwrap() {
                next_r += 1;
            } else {
                full_r += 1;
            }
        }
        if next_w < msgs.len() {
            if d.post_send(&msgs[next_w]).unwrap() {
                next_w += 1;
            } else {
                full_w += 1;
            }
        }
        d.ring_doorbells().unwrap();
        for _ in 0..40 {
            d.dev.cycle().unwrap();
        }
        got.extend(d.poll().unwrap());
        if got.len() >= want {
            break;
        }
    }
    assert_eq!(got.len(), want, "every completion, no more");
    assert!(full_w > 0 && full_r > 0, "both rings filled: send {full_w}, receive {full_r} times");
    assert!(got.iter().all(|c| c.status == 0), "{:?}", got.iter().find(|c| c.status != 0));
    // Send completions: each message once, in order per stream.
    for stream in 0..2u8 {
        let ids: Vec<u32> =
            got.iter().filter(|c| c.kind == CqeKind::SendDone && c.stream == stream).map(|c| c.id).collect();
        let want: Vec<u32> = (0..N).filter(|i| (i % 2) as u8 == stream).collect();
        assert_eq!(ids, want, "stream {stream}: send completions");
        let rx: Vec<u32> = got
            .iter()
            .filter(|c| c.kind != CqeKind::SendDone && c.stream == stream)
            .map(|c| if c.kind == CqeKind::Recv { c.id - 1000 } else { c.imm.unwrap() & 0xffff })
            .collect();
        let want: Vec<u32> = want.into_iter().filter(|i| i % 3 != 0).collect();
        assert_eq!(rx, want, "stream {stream}: receive completions in message order");
    }
    let mem = &d.dev.engine.mem;
    let n = (N * LEN) as usize;
    assert!(mem.region("dst")[..n] == mem.region("src")[..n], "every message's bytes in place");
    assert!(mem.region("dst")[n..].iter().all(|b| *b == 0), "nothing beyond");
    assert_eq!(d.get(regs::queues::SQ_CONS).unwrap(), N, "send entries taken");
    assert_eq!(d.get(regs::queues::RQ_CONS).unwrap(), recvs.len() as u32, "receive entries taken");
    assert_eq!(d.get(regs::queues::CQ_PROD).unwrap(), want as u32, "completions written");
    assert!(d.dev.lost > 0 && d.get(regs::stats::TX_RETX).unwrap() > 0, "losses were repaired");
}

/// A completion ring the host does not drain: the engine writes as many
/// completions as it has entries and then holds the rest, never writing
/// over one the host has not consumed; each held completion is written
/// once room is made, in order, none lost or repeated.
#[test]
fn a_full_completion_ring_holds_completions_back() {
    const N: u32 = 10;
    let mut d = engine([4, 4, 1], 1, 0.0, 13);
    region_for_conn_1(&mut d);
    for i in 0..N {
        let at = (i * 1000) as usize;
        assert!(d.post_send(&wqe(i, WqeOp::Write, at, DST + at as u64, 1000, 9)).unwrap());
    }
    d.ring_doorbells().unwrap();
    for _ in 0..200 {
        d.dev.idle().unwrap();
    }
    assert_eq!(d.get(regs::queues::CQ_PROD).unwrap(), 2, "two entries written, the rest held");
    let ring: Vec<u8> = d.dev.engine.mem.region("cq").to_vec();
    let held: Vec<u32> = ring.chunks(CQE_BYTES).map(|b| Cqe::decode(b).unwrap().id).collect();
    assert_eq!(held, vec![0, 1]);
    for _ in 0..100 {
        d.dev.idle().unwrap();
    }
    assert_eq!(d.dev.engine.mem.region("cq"), &ring[..], "nothing written over unconsumed entries");
    let got = completions(&mut d, N as usize);
    let ids: Vec<u32> = got.iter().map(|c| c.id).collect();
    assert_eq!(ids, (0..N).collect::<Vec<u32>>(), "every completion once, in order");
    assert!(got.iter().all(|c| c.status == 0 && c.kind == CqeKind::SendDone && c.len == 1000));
    assert_eq!(d.get(regs::queues::CQ_PROD).unwrap(), N);
    let mem = &d.dev.engine.mem;
    let n = (N * 1000) as usize;
    assert!(mem.region("dst")[..n] == mem.region("src")[..n], "every byte in place");
}

/// Frame shapes the receive path meets on a real port, each put on the
/// MAC's receive interface of connection 1 (its peer is the engine itself):
/// each is either dropped and counted as malformed, or accepted and placed
/// exactly once, as docs/engine.md lists; nothing is ever placed wrongly,
/// and a good frame after them all still lands.
#[test]
fn frame_shapes_on_receive_are_dropped_or_accepted_as_documented() {
    use ferroce_proto::wire::{self, Addressing, Body, CommonRepr, DataRepr, Ecn, Opcode, TransportRepr};
    use ferroce_proto::{ConnId, MsgSeq, PathId, Psn, Rkey, StreamId};
    let mut d = engine([4, 4, 6], 1, 0.0, 14);
    region_for_conn_1(&mut d);
    let addr = Addressing {
        src_mac: MAC,
        dst_mac: MAC,
        src_ip: IP,
        dst_ip: IP,
        sport: 50_000,
        dport: wire::FERROCE_PORT,
        dscp: 0,
        ecn: Ecn::Ect0,
        ttl: 64,
    };
    // A one-packet WRITE with immediate `case` of `len` bytes at `at`,
    // the `n`-th message (and PSN) of path 0.
    let frame = |n: u32, case: u32, at: u64, len: u16| {
        let payload: Vec<u8> = (0..len as u32).map(|k| (k * 7 + case * 31 + 1) as u8).collect();
        let t = TransportRepr {
            common: CommonRepr {
                opcode: Opcode::WriteImm,
                conn: ConnId(1),
                path: PathId(0),
                psn: Psn::new(n),
                timestamp: 0,
                stream: StreamId(0),
                flags: 0,
                generation: 0,
            },
            body: Body::Data(DataRepr {
                msg_seq: MsgSeq(n),
                msg_len: len as u32,
                offset: 0,
                payload_len: len,
                remote_addr: Iova(at),
                rkey: Rkey(9),
                immediate: case,
            }),
        };
        (wire::encode(&addr, &t, &payload), payload)
    };
    let ip_checksum = |f: &mut Vec<u8>| {
        let ihl = (f[14] & 15) as usize * 4;
        f[24] = 0;
        f[25] = 0;
        let c = wire::internet_checksum(&f[14..14 + ihl]);
        f[24..26].copy_from_slice(&c.to_be_bytes());
    };
    let udp_checksum = |f: &[u8]| {
        let udp = &f[34..];
        let mut pseudo = Vec::new();
        pseudo.extend_from_slice(&f[26..34]);
        pseudo.extend_from_slice(&[0, 17]);
        pseudo.extend_from_slice(&(udp.len() as u16).to_be_bytes());
        let mut u = udp.to_vec();
        u[6] = 0;
        u[7] = 0;
        pseudo.extend_from_slice(&u);
        match wire::internet_checksum(&pseudo) {
            0 => 0xffff,
            c => c,
        }
    };
    // (what, how the good frame is changed, accepted?, payload bytes)
    type Change<'a> = Box<dyn Fn(&mut Vec<u8>) + 'a>;
    let shapes: Vec<(&str, Change, bool, u16)> = vec![
        ("802.1Q VLAN tag", Box::new(|f: &mut Vec<u8>| drop(f.splice(12..12, [0x81, 0x00, 0x00, 0x05]))), false, 100),
        (
            "IPv4 options (IHL 6)",
            Box::new(|f: &mut Vec<u8>| {
                f.splice(34..34, [1, 1, 1, 1]);
                f[14] = 0x46;
                let total = u16::from_be_bytes([f[16], f[17]]) + 4;
                f[16..18].copy_from_slice(&total.to_be_bytes());
                ip_checksum(f);
            }),
            false,
            100,
        ),
        (
            "first fragment (MF)",
            Box::new(|f: &mut Vec<u8>| {
                f[20] = 0x20;
                ip_checksum(f);
            }),
            false,
            100,
        ),
        (
            "later fragment (offset 8)",
            Box::new(|f: &mut Vec<u8>| {
                f[20] = 0x00;
                f[21] = 0x01;
                ip_checksum(f);
            }),
            false,
            100,
        ),
        ("bad IPv4 header checksum", Box::new(|f: &mut Vec<u8>| f[24] ^= 0x5a), false, 100),
        ("runt of 50 bytes", Box::new(|f: &mut Vec<u8>| f.truncate(50)), false, 100),
        ("padded to beyond its IPv4 length", Box::new(|f: &mut Vec<u8>| f.extend([0u8; 6])), false, 100),
        (
            "UDP checksum, right",
            Box::new(move |f: &mut Vec<u8>| {
                let c = udp_checksum(f);
                f[40..42].copy_from_slice(&c.to_be_bytes());
            }),
            true,
            100,
        ),
        (
            "UDP checksum, wrong",
            Box::new(move |f: &mut Vec<u8>| {
                let c = udp_checksum(f) ^ 0x1234;
                f[40..42].copy_from_slice(&c.to_be_bytes());
            }),
            true,
            100,
        ),
        ("payload above control.mtu (512), at max_mtu", Box::new(|_: &mut Vec<u8>| {}), true, 4096),
        ("payload above max_mtu", Box::new(|_: &mut Vec<u8>| {}), true, 4097),
        (
            "frame longer than the receive FIFO (16 400 bytes)",
            Box::new(|f: &mut Vec<u8>| f.resize(16_400, 0x77)),
            false,
            100,
        ),
    ];
    // Case k writes at k KiB of the target memory, so a wrongly accepted
    // frame shows where it landed (a wrong one overlapping an accepted one
    // carries other bytes).
    let slot = |k: usize| DST + (k as u64) * 0x400;
    let mut image = vec![0u8; DST_BYTES];
    let (mut n, mut dropped, mut accepted) = (0u32, 0u32, Vec::new());
    let before = d.get(regs::stats::RX_MALFORMED).unwrap();
    for (k, (what, change, ok, len)) in shapes.iter().enumerate() {
        let (mut f, payload) = frame(n, k as u32, slot(k), *len);
        change(&mut f);
        d.dev.engine.give_frame(f);
        for _ in 0..10 {
            d.dev.idle().unwrap();
        }
        if *ok {
            let at = (slot(k) - DST) as usize;
            image[at..at + payload.len()].copy_from_slice(&payload);
            accepted.push(k as u32);
            n += 1;
        } else {
            dropped += 1;
        }
        let malformed = d.get(regs::stats::RX_MALFORMED).unwrap() - before;
        assert_eq!(malformed, dropped, "{what}: frames dropped as malformed so far");
        assert_eq!(d.get(regs::stats::RX_DATA).unwrap(), n, "{what}: data packets taken so far");
    }
    // A frame intact in every byte that the MAC flags as bad (FCS error).
    let (f, _) = frame(n, 98, DST + 0x3800, 64);
    d.dev.engine.give_bad_frame(f);
    for _ in 0..10 {
        d.dev.idle().unwrap();
    }
    assert_eq!(d.get(regs::stats::RX_MALFORMED).unwrap() - before, dropped + 1, "the MAC-flagged frame is dropped");
    assert_eq!(d.get(regs::stats::RX_DATA).unwrap(), n);
    let (f, payload) = frame(n, 99, DST + 0x3c00, 64);
    d.dev.engine.give_frame(f);
    image[0x3c00..0x3c00 + 64].copy_from_slice(&payload);
    accepted.push(99);
    let got = completions(&mut d, accepted.len());
    let imms: Vec<u32> = got.iter().map(|c| c.imm.unwrap()).collect();
    assert_eq!(imms, accepted, "a receive completion for each accepted frame, in order");
    let mem = &d.dev.engine.mem;
    if let Some(k) = mem.region("dst").iter().zip(&image).position(|(a, b)| a != b) {
        panic!("target byte {k:#x}: {:#x}, want {:#x}", mem.region("dst")[k], image[k]);
    }
}

/// `n` WRITEs of `len` bytes from connection 0 into the region of
/// connection 1 (rkey 9, the whole target memory), posted as the send ring
/// has room, with `during(cycle, device)` called every 100 cycles; returns
/// the completions once all `n` have come.
fn transfer(d: &mut Driver<SimLoopback>, n: u32, len: u32, during: &mut dyn FnMut(u64, &mut SimLoopback)) -> Vec<Cqe> {
    let mut next = 0u32;
    let mut got = Vec::new();
    let start = d.dev.engine.cycles();
    while got.len() < n as usize {
        assert!(d.dev.engine.cycles() - start < 3_000_000, "stuck: {} of {n} completions", got.len());
        while next < n
            && d.post_send(&wqe(next, WqeOp::Write, (next * len) as usize, DST + (next * len) as u64, len, 9)).unwrap()
        {
            next += 1;
        }
        d.ring_doorbells().unwrap();
        for _ in 0..100 {
            d.dev.cycle().unwrap();
        }
        during(d.dev.engine.cycles() - start, &mut d.dev);
        got.extend(d.poll().unwrap());
    }
    got
}

/// The whole target memory open to connection 1 (slot 0, rkey 9): the WRITEs of connection 0 land there.
fn region_for_conn_1(d: &mut Driver<SimLoopback>) {
    d.register_mr(&MrSpec { slot: 0, rkey: 9, base: DST, len: DST_BYTES as u64, remote_write: true, conn: 1 }).unwrap();
}

/// The MAC holds its transmit side for 100 000 cycles (400 us, four
/// minimum RTOs) in the middle of a transfer, then the DMA engine stalls
/// every port for 100 000 cycles: the engine waits, its timers fire into
/// the back-pressure, and when both let go every message completes once,
/// in order, with its bytes in place and nothing written outside.
#[test]
fn long_mac_back_pressure_and_dma_stalls_lose_nothing() {
    const N: u32 = 16;
    const LEN: u32 = 1000;
    let mut d = engine([4, 4, 6], 1, 0.01, 15);
    region_for_conn_1(&mut d);
    let (mut mac_held, mut dma_held) = (false, false);
    let got = transfer(&mut d, N, LEN, &mut |t, dev| {
        if t >= 2_000 && !mac_held {
            dev.engine.mac_tx_hold = 100_000;
            mac_held = true;
        }
        if t >= 110_000 && !dma_held {
            dev.engine.dma_hold = 100_000;
            dma_held = true;
        }
    });
    assert!(mac_held && dma_held, "both stalls happened before the transfer ended");
    let ids: Vec<u32> = got.iter().map(|c| c.id).collect();
    assert_eq!(ids, (0..N).collect::<Vec<u32>>(), "every completion once, in order");
    assert!(got.iter().all(|c| c.status == 0));
    let mem = &d.dev.engine.mem;
    let n = (N * LEN) as usize;
    assert!(mem.region("dst")[..n] == mem.region("src")[..n], "every byte in place");
    assert_eq!(mem.dma_written("dst"), n as u64, "every byte written once");
    assert!(d.get(regs::stats::RTOS).unwrap() > 0, "timers fired while the MAC held");
}

/// A reset in the middle of a transfer under loss: no DMA access and no
/// frame sent after it (though frames of the transfer still arrive from
/// the wire), every register reads its reset value but `rx_malformed`,
/// which counts exactly the frames that arrived after it (addressed to the
/// configuration before the reset, so not to this engine: the model's
/// `EndpointConfig::accept`), and the engine, brought up again, runs a
/// transfer whose bytes all land.
#[test]
fn reset_in_the_middle_of_traffic() {
    use ferroce_driver::RegisterAccess;
    const LEN: u32 = 800;
    let mut d = engine([4, 4, 6], 1, 0.02, 16);
    region_for_conn_1(&mut d);
    for i in 0..12u32 {
        assert!(d.post_send(&wqe(i, WqeOp::Write, (i * LEN) as usize, DST + (i * LEN) as u64, LEN, 9)).unwrap());
    }
    d.ring_doorbells().unwrap();
    for _ in 0..3_000 {
        d.dev.cycle().unwrap();
    }
    assert!(d.dev.engine.mem.dma_written("dst") > 0, "the transfer was under way");
    let mut dev = d.dev;
    dev.engine.reset();
    let (arriving, sent) = (dev.in_flight() as u32, dev.frames);
    let (reads, writes) = (dev.engine.dma_reads, dev.engine.dma_writes);
    let written = dev.engine.mem.dma_written("dst") + dev.engine.mem.dma_written("cq");
    for _ in 0..50_000 {
        dev.cycle().unwrap();
    }
    assert_eq!((dev.engine.dma_reads, dev.engine.dma_writes), (reads, writes), "no DMA command after reset");
    assert_eq!(dev.engine.mem.dma_written("dst") + dev.engine.mem.dma_written("cq"), written);
    assert_eq!(dev.frames, sent, "no frame sent after reset");
    assert_eq!(dev.in_flight(), 0, "every frame on its way has arrived");
    let wrong: Vec<String> = ferroce_proto::regs::all_regs()
        .filter_map(|(offset, r)| {
            let want = if r.access == ferroce_proto::regs::Access::Wo {
                0
            } else if offset == ferroce_proto::regs::stats::RX_MALFORMED.offset() {
                arriving
            } else {
                r.reset
            };
            let got = dev.read32(offset).unwrap();
            (got != want).then(|| format!("{} at {offset:#x}: {got:#x}, reset value {want:#x}", r.name))
        })
        .collect();
    assert!(wrong.is_empty(), "registers after reset: {wrong:?}");
    // Brought up again: a fresh transfer over the same memory.
    dev.engine.mem.region_mut("dst").fill(0);
    let mut d = bring_up(dev, [4, 4, 6], 17);
    connect_pair(&mut d, 1, Life::default());
    region_for_conn_1(&mut d);
    let got = transfer(&mut d, 8, LEN, &mut |_, _| {});
    assert!(got.iter().all(|c| c.status == 0), "{got:?}");
    let mem = &d.dev.engine.mem;
    let n = (8 * LEN) as usize;
    assert!(mem.region("dst")[..n] == mem.region("src")[..n], "the new transfer's bytes in place");
    assert!(mem.region("dst")[n..].iter().all(|b| *b == 0), "nothing of the old one landed after the reset");
}

/// Both directions of a connection start 100 PSNs before the 24-bit wrap
/// (`conn_table.tx_psn`/`rx_psn`, as a connection manager would exchange
/// them): 256 packets over two paths cross it under loss, and every
/// message completes with its bytes in place.
#[test]
fn psns_wrap_at_two_to_the_24_end_to_end() {
    use ferroce_proto::wire::{self, Body};
    use ferroce_proto::Psn;
    const N: u32 = 64;
    const LEN: u32 = 2048;
    const FIRST: u32 = (1 << 24) - 100;
    let mut d = bring_up(SimLoopback::new(memory([4, 4, 6]), &Wire::lossy(0.02), 18).unwrap(), [4, 4, 6], 18);
    d.dev.tap = Some(Vec::new());
    connect_pair(&mut d, 1, Life { generation: 0, tx_psn: Psn::new(FIRST), rx_psn: Psn::new(FIRST) });
    region_for_conn_1(&mut d);
    let got = transfer(&mut d, N, LEN, &mut |_, _| {});
    let ids: Vec<u32> = got.iter().map(|c| c.id).collect();
    assert_eq!(ids, (0..N).collect::<Vec<u32>>(), "every completion once, in order");
    assert!(got.iter().all(|c| c.status == 0), "{got:?}");
    let mem = &d.dev.engine.mem;
    let n = (N * LEN) as usize;
    assert!(mem.region("dst")[..n] == mem.region("src")[..n], "every byte in place");
    assert_eq!(mem.dma_written("dst"), n as u64, "every byte written once");
    assert!(d.dev.lost > 0 && d.get(regs::stats::TX_RETX).unwrap() > 0, "losses were repaired");
    // The data PSNs on the wire, per path: from FIRST on, across the wrap.
    let mut psns = [Vec::new(), Vec::new()];
    for (_, f) in d.dev.tap.as_ref().unwrap() {
        let p = wire::parse(f, wire::FERROCE_PORT).unwrap();
        if let Body::Data(_) = p.transport.body {
            psns[p.transport.common.path.0 as usize].push(p.transport.common.psn.get());
        }
    }
    for (path, v) in psns.iter().enumerate() {
        assert_eq!(v[0], FIRST, "path {path} starts at the first PSN");
        assert!(v.contains(&((1 << 24) - 1)) && v.contains(&0), "path {path} crosses the wrap: {v:?}");
        assert!(v.iter().all(|p| *p >= FIRST || *p < 200), "path {path}: PSNs stay near the wrap");
    }
}

/// A connection closed and set up again in a new generation while frames of
/// its earlier life are still on the fabric (replayed here: every frame the
/// first life sent, data and ACKs): none is placed or completes, each is
/// counted as foreign, and the new life's transfer lands. PSNs start at 0 in
/// both lives, so only the generation tells the lives apart.
#[test]
fn a_connection_set_up_again_drops_packets_of_its_earlier_life() {
    const LEN: u32 = 1000;
    let mut d = engine([4, 4, 6], 1, 0.0, 19);
    let setup =
        |d: &mut Driver<SimLoopback>, generation: u8| connect_pair(d, 1, Life { generation, ..Life::default() });
    setup(&mut d, 1);
    region_for_conn_1(&mut d);
    d.dev.tap = Some(Vec::new());
    let first = transfer(&mut d, 8, LEN, &mut |_, _| {});
    assert!(first.iter().all(|c| c.status == 0));
    let old: Vec<Vec<u8>> = d.dev.tap.take().unwrap().into_iter().map(|(_, f)| f).collect();
    assert!(old.len() >= 16, "{} frames of the first life", old.len());
    for c in [0, 1] {
        d.close(c).unwrap();
    }
    setup(&mut d, 2);
    d.dev.engine.mem.region_mut("dst").fill(0);
    let (bad, cq) = (d.get(regs::stats::RX_BAD_CONN).unwrap(), d.get(regs::queues::CQ_PROD).unwrap());
    let placed = d.get(regs::stats::BYTES_PLACED_LO).unwrap();
    for f in &old {
        d.dev.engine.give_frame(f.clone());
    }
    for _ in 0..100 {
        d.dev.idle().unwrap();
    }
    assert!(d.dev.engine.mem.region("dst").iter().all(|b| *b == 0), "nothing of the earlier life placed");
    assert_eq!(d.get(regs::stats::BYTES_PLACED_LO).unwrap(), placed);
    assert_eq!(d.get(regs::stats::RX_BAD_CONN).unwrap() - bad, old.len() as u32, "each frame counted as foreign");
    assert_eq!(d.get(regs::queues::CQ_PROD).unwrap(), cq, "no completion from the earlier life");
    let second = transfer(&mut d, 8, LEN, &mut |_, _| {});
    assert_eq!(second.iter().map(|c| (c.id, c.status)).collect::<Vec<_>>(), (0..8).map(|i| (i, 0)).collect::<Vec<_>>());
    let mem = &d.dev.engine.mem;
    let n = (8 * LEN) as usize;
    assert!(mem.region("dst")[..n] == mem.region("src")[..n], "the new life's bytes in place");
}
