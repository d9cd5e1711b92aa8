//! Two engines in Verilator across the leaf-spine fabric model, each
//! programmed by its own driver: engine A sends WRITEs, WRITEs with
//! immediate and SENDs to engine B over several paths while the fabric
//! loses (independently or in bursts), reorders (spines of different
//! delays), duplicates and corrupts frames, or loses a whole spine for a
//! while. Every byte lands exactly where it belongs and every completion
//! comes once, in order per stream.

use std::cell::RefCell;
use std::rc::Rc;

use ferroce_driver::driver::{Config, ConnSpec, Driver, MrSpec, RingSpec};
use ferroce_driver::sim::SharedEngine;
use ferroce_proto::rings::{Cqe, CqeKind, Rqe, Wqe, WqeOp, CQE_BYTES, RQE_BYTES, WQE_BYTES};
use ferroce_proto::rng::Rng;
use ferroce_proto::types::{ns, us, Time};
use ferroce_proto::Iova;
use ferroce_sim::engine::{DmaConfig, EngineNode, EngineSim};
use ferroce_sim::fabric::{Fabric, FaultTarget, LeafSpine, LinkConfig, Loss};
use ferroce_sim::memory::Memory;

const SQ: u64 = 0x1000_0000;
const RQ: u64 = 0x1010_0000;
const CQ: u64 = 0x1020_0000;
const SRC: u64 = 0x2000_0000;
const DST: u64 = 0x3000_0000;
const RKEY: u32 = 0x51;
const MB: usize = 1 << 20;

#[derive(Debug, Clone, Copy)]
struct Net {
    loss: Loss,
    duplicate: f64,
    corrupt: f64,
    skew: f64,
    /// Spine 1 black-holed during this window.
    spine_down: Option<(Time, Time)>,
    seed: u64,
}

fn memory(seed: u64) -> Memory {
    let mut m = Memory::default();
    m.add_region("sq", Iova(SQ), WQE_BYTES << 7, false);
    m.add_region("rq", Iova(RQ), RQE_BYTES << 7, false);
    m.add_region("cq", Iova(CQ), CQE_BYTES << 9, true);
    m.add_region("src", Iova(SRC), MB, false);
    m.add_region("dst", Iova(DST), 2 * MB, true);
    let mut rng = Rng::new(seed);
    for b in m.region_mut("src").iter_mut() {
        *b = rng.next_u64() as u8;
    }
    m
}

fn transfer(net: Net, count: u32, max_len: u64, paths: u32, streams: u32) {
    // 16 Gb/s host links: what a 64-bit MAC interface at 250 MHz carries.
    let mut host_link = LinkConfig::new(16_000, ns(500));
    host_link.queue_bytes = 4 << 20;
    let mut uplink = host_link;
    uplink.duplicate = net.duplicate;
    uplink.corrupt = net.corrupt;
    let mut downlink = host_link;
    downlink.loss = net.loss;
    let ls = LeafSpine {
        leaves: 2,
        hosts_per_leaf: 1,
        spines: 4,
        host_link,
        uplink,
        downlink,
        spine_delay_skew: net.skew,
        seed: net.seed,
    };
    let mut fabric: Fabric<EngineNode> = Fabric::leaf_spine(ls);
    let mut drivers = Vec::new();
    let mut shared = Vec::new();
    for h in 0..2 {
        let (mac, ip) = fabric.host_addr(h);
        let dma = DmaConfig { seed: net.seed + h as u64, ..DmaConfig::default() };
        let e = Rc::new(RefCell::new(EngineSim::new(memory(7 + h as u64), dma).expect("engine model builds")));
        fabric.attach(h, EngineNode::new(e.clone()), Memory::default());
        let cfg = Config {
            mac,
            ip,
            mtu: 1024,
            ack_every: 4,
            ack_delay_ns: 2_000,
            rto_min_ns: 100_000,
            rnr_delay_ns: 5_000,
            port_seed: 11 + h as u32,
        };
        let ring = |base, log_size| RingSpec { base, log_size };
        let d = Driver::bring_up(SharedEngine(e.clone()), &cfg, ring(SQ, 7), ring(RQ, 7), ring(CQ, 9)).unwrap();
        drivers.push(d);
        shared.push(e);
    }
    let (mac_a, ip_a) = fabric.host_addr(0);
    let (mac_b, ip_b) = fabric.host_addr(1);
    drivers[0].connect(&ConnSpec { index: 0, remote: 0, peer_mac: mac_b, peer_ip: ip_b, paths, streams }).unwrap();
    drivers[1].connect(&ConnSpec { index: 0, remote: 0, peer_mac: mac_a, peer_ip: ip_a, paths, streams }).unwrap();
    drivers[1]
        .register_mr(&MrSpec { slot: 0, rkey: RKEY, base: DST, len: 2 * MB as u64, remote_write: true, conn: 0 })
        .unwrap();
    if let Some((from, until)) = net.spine_down {
        fabric.add_fault(FaultTarget::Switch(2 + 1), from, until); // switches: 2 leaves, then the spines
    }
    for h in 0..2 {
        fabric.kick(h);
    }

    // The work, to distinct places in B's memory.
    let mut rng = Rng::new(net.seed ^ 0xabc);
    let (mut at, mut wqes, mut rqes) = (0u64, Vec::new(), Vec::new());
    for i in 0..count {
        let len = 1 + rng.below(max_len) as u32;
        let op = [WqeOp::Write, WqeOp::WriteImm, WqeOp::Send][i as usize % 3];
        let stream = (i % streams) as u8;
        let local = SRC + rng.below(MB as u64 - len as u64);
        let remote = DST + at;
        at += len as u64;
        if op == WqeOp::Send {
            rqes.push(Rqe { conn: 0, stream, len, addr: remote, id: i });
        }
        let remote = if op == WqeOp::Send { 0 } else { remote };
        wqes.push(Wqe { op, stream, conn: 0, len, local, remote, rkey: RKEY, imm: 0x5000_0000 | i, id: i });
    }
    assert!(at <= 2 * MB as u64);
    let want = count as usize + wqes.iter().filter(|w| w.op != WqeOp::Write).count();
    let (mut next_w, mut next_r) = (0, 0);
    let mut cqes: Vec<Cqe> = Vec::new();
    while cqes.len() < want {
        assert!(fabric.now() < us(100_000), "stuck: {} of {want} completions", cqes.len());
        while next_r < rqes.len() && drivers[1].post_recv(&rqes[next_r]).unwrap() {
            next_r += 1;
        }
        while next_w < wqes.len() && drivers[0].post_send(&wqes[next_w]).unwrap() {
            next_w += 1;
        }
        drivers[0].ring_doorbells().unwrap();
        drivers[1].ring_doorbells().unwrap();
        let t = fabric.now() + us(4);
        fabric.run_until(t);
        for d in drivers.iter_mut() {
            cqes.extend(d.poll().unwrap());
        }
        for e in &shared {
            assert!(e.borrow().violations.is_empty(), "guard: {:?}", e.borrow().violations);
        }
    }
    // Every message once, successfully, and its bytes in place.
    let (a, b) = (shared[0].borrow(), shared[1].borrow());
    for w in &wqes {
        let done = cqes.iter().filter(|c| c.kind == CqeKind::SendDone && c.id == w.id).count();
        assert_eq!(done, 1, "message {}", w.id);
        let target = if w.op == WqeOp::Send { rqes.iter().find(|r| r.id == w.id).unwrap().addr } else { w.remote };
        assert!(
            b.mem.slice(Iova(target), w.len as usize) == a.mem.slice(Iova(w.local), w.len as usize),
            "message {} ({:?}, {} bytes): bytes differ",
            w.id,
            w.op,
            w.len
        );
    }
    assert!(cqes.iter().all(|c| c.status == 0), "{:?}", cqes.iter().find(|c| c.status != 0));
    for s in 0..streams as u8 {
        let seqs: Vec<u32> =
            cqes.iter().filter(|c| c.kind != CqeKind::SendDone && c.stream == s).map(|c| c.msg_seq).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "stream {s}: {seqs:?}");
    }
    assert_eq!(b.mem.dma_written("dst"), at, "every byte placed exactly once");
    let stats = fabric.total_stats();
    eprintln!("{net:?}: {count} messages, {at} bytes, fabric {stats:?}, {} us", fabric.now() / 1_000_000);
}

#[test]
fn iid_and_bursty_loss() {
    let base = Net { loss: Loss::None, duplicate: 0.0, corrupt: 0.0, skew: 1.0, spine_down: None, seed: 1 };
    transfer(Net { loss: Loss::Iid(0.01), ..base }, 30, 20_000, 8, 4);
    let bursty = Loss::GilbertElliott { to_bad: 0.03, to_good: 0.25, loss_good: 0.0, loss_bad: 0.7 };
    transfer(Net { loss: bursty, seed: 2, ..base }, 30, 20_000, 4, 2);
}

#[test]
fn reordering_duplication_and_corruption() {
    let base = Net { loss: Loss::Iid(0.005), duplicate: 0.01, corrupt: 0.01, skew: 3.0, spine_down: None, seed: 3 };
    transfer(base, 30, 20_000, 8, 8);
}

#[test]
fn a_spine_fails_mid_transfer() {
    let base =
        Net { loss: Loss::None, duplicate: 0.0, corrupt: 0.0, skew: 1.0, spine_down: Some((us(30), us(600))), seed: 4 };
    transfer(base, 40, 30_000, 8, 4);
}
