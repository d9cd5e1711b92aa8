//! End-to-end through the whole engine in Verilator, programmed by this
//! driver: loopback transfers of every operation and size under loss, and
//! a WRITE the region check refuses.

use ferroce_driver::driver::{Config, ConnSpec, Device, Driver, MrSpec, RingSpec};
use ferroce_driver::loopback::{run_sim, run_sim_device, Op, Opts};
use ferroce_driver::sim::{SimLoopback, Wire};
use ferroce_proto::regs;
use ferroce_proto::rings::{CqeKind, Wqe, WqeOp, CQE_BYTES, WQE_BYTES};
use ferroce_proto::Iova;
use ferroce_sim::memory::Memory;

/// A loopback run, checked here as well as by the run itself: the target
/// memory equals the source byte for byte, DMA wrote every target byte
/// exactly once (no packet placed twice, nothing placed outside), the
/// engine counted exactly those bytes as placed, and it wrote as many
/// completions as the operations call for.
fn run(o: Opts) -> ferroce_driver::loopback::Report {
    use ferroce_driver::RegisterAccess;
    let (r, mut dev) = run_sim_device(&o, &mut |_, _| {}).unwrap_or_else(|e| panic!("{o:?}: {e}"));
    assert!(r.verified, "{o:?}");
    let total = o.size as u64 * o.count as u64;
    assert_eq!(r.bytes, total);
    let mem = &dev.engine.mem;
    assert!(mem.region("dst") == mem.region("src"), "{o:?}: the target is the source");
    assert_eq!(mem.dma_written("dst"), total, "{o:?}: every target byte written once");
    let mut reg = |r: regs::Reg| dev.read32(r.offset()).unwrap() as u64;
    let placed = reg(regs::stats::BYTES_PLACED_LO) | reg(regs::stats::BYTES_PLACED_HI) << 32;
    assert_eq!(placed, total, "{o:?}: bytes the engine placed");
    let receiving = match o.op {
        Op::Write => 0,
        Op::WriteImm | Op::Send => o.count,
        Op::Mixed => o.count - o.count.div_ceil(3),
    };
    assert_eq!(reg(regs::queues::CQ_PROD), (o.count + receiving) as u64, "{o:?}: completions written");
    r
}

/// The event counters count what the run did, and `control.ctrl` bit 1
/// zeroes every one of them and the byte count, and reads back as 0.
#[test]
fn control_bit1_clears_every_counter() {
    use ferroce_driver::RegisterAccess;
    let o = Opts { count: 8, size: 8192, loss: 0.05, paths: 4, streams: 2, ..Opts::default() };
    let (r, mut dev) = run_sim_device(&o, &mut |_, _| {}).unwrap_or_else(|e| panic!("{o:?}: {e}"));
    assert!(r.verified && r.retransmits > 0, "{r:?}");
    let reg = |dev: &mut SimLoopback, r: regs::Reg| dev.read32(r.offset()).unwrap();
    let packets = 8 * 8192u32.div_ceil(o.mtu);
    assert_eq!(reg(&mut dev, regs::stats::TX_DATA), packets, "data packets sent, each once");
    assert_eq!(reg(&mut dev, regs::stats::TX_RETX), r.retransmits);
    assert!(reg(&mut dev, regs::stats::RX_DATA) >= packets - r.retransmits, "received");
    assert!(reg(&mut dev, regs::stats::TX_ACKS) > 0);
    assert_eq!(reg(&mut dev, regs::stats::BYTES_PLACED_LO), 8 * 8192);
    dev.write32(regs::control::CTRL.offset(), 0b11).unwrap();
    assert_eq!(reg(&mut dev, regs::control::CTRL), 1, "bit 1 clears itself, bit 0 stays");
    for &c in regs::stats::ALL {
        assert_eq!(reg(&mut dev, c), 0, "{c} after the clear");
    }
}

#[test]
fn writes_without_loss_need_no_retransmission() {
    let r = run(Opts { count: 16, size: 8192, loss: 0.0, ..Opts::default() });
    assert_eq!((r.retransmits, r.rtos, r.frames_lost), (0, 0, 0), "{r:?}");
}

#[test]
fn every_operation_survives_loss() {
    for (op, loss, seed) in [(Op::Write, 0.01, 1), (Op::Send, 0.02, 2), (Op::WriteImm, 0.05, 3), (Op::Mixed, 0.1, 4)] {
        let r = run(Opts { op, count: 24, size: 5000, loss, seed, paths: 4, streams: 3, mtu: 512, ..Opts::default() });
        assert!(r.frames_lost > 0 && r.retransmits > 0, "{op:?}: {r:?}");
    }
}

#[test]
fn one_byte_and_one_mebibyte_messages() {
    run(Opts { op: Op::Mixed, count: 30, size: 1, loss: 0.02, paths: 2, streams: 8, ..Opts::default() });
    run(Opts { op: Op::Write, count: 1, size: 1 << 20, loss: 0.01, paths: 8, streams: 1, ..Opts::default() });
}

/// A small build's run under loss: every operation on `mixed` (count,
/// size, paths, streams, MTU) at 1, 2 and 10 % loss, then one large write
/// on `large` (size, paths, MTU) at 2 %, which loses at least
/// `large_lost` frames. After the large write the path windows
/// (`path_table`, `connection * max_paths + path`) account for every data
/// packet the engine sent and resent, each path once.
fn survives_loss(
    c: ferroce_proto::config::EngineConfig,
    mixed: (u32, u32, u32, u32, u32),
    large: (u32, u32, u32),
    large_lost: u64,
) {
    let on_board = |o: Opts| Opts { preset: c.name.into(), line_rate_mbps: c.line_mbps(), ..o };
    let (count, size, paths, streams, mtu) = mixed;
    for (op, loss, seed) in [(Op::Write, 0.01, 1), (Op::Send, 0.02, 2), (Op::Mixed, 0.1, 4)] {
        let r = run(on_board(Opts { op, count, size, loss, seed, paths, streams, mtu, ..Opts::default() }));
        assert!(r.frames_lost > 0 && r.retransmits > 0, "{}, {op:?}: {r:?}", c.name);
    }
    let (size, paths, mtu) = large;
    let o = Opts { op: Op::Write, count: 1, size, loss: 0.02, paths, streams: 1, mtu, stats: true, ..Opts::default() };
    let r = run(on_board(o));
    assert!(r.frames_lost > large_lost && u64::from(r.retransmits) > large_lost, "{}: {r:?}", c.name);
    let stats = r.stats.as_ref().expect("stats were asked for");
    let counter = |n: &str| stats.counters.iter().find(|(k, _)| k == n).map(|(_, v)| *v).expect(n);
    let sent: u64 = stats.paths.iter().map(|p| u64::from(p.sent)).sum();
    let resent: u64 = stats.paths.iter().map(|p| u64::from(p.retransmitted)).sum();
    assert_eq!(sent, counter("tx_data"), "{}: sent by path {:?}", c.name, stats.paths);
    assert_eq!(resent, counter("tx_retx"), "{}: resent by path {:?}", c.name, stats.paths);
    let used: Vec<_> = stats.paths.iter().filter(|p| p.sent > 0).collect();
    assert_eq!(used.len() as u32, paths, "{}: the paths of one connection sent: {:?}", c.name, stats.paths);
    assert!(used.iter().all(|p| p.conn == used[0].conn), "{}: one connection sent: {:?}", c.name, stats.paths);
}

/// Tail probes (`control.recovery` bit 8) and `rack` (bit 9, both in
/// `Recovery::v1`): the same lossy run of short WRITEs spread over
/// eight paths, whose last packets often have no later packet on their
/// path to show a hole, with v0's settings, with v1's but `rack`, and with
/// v1's, on the `corundum` and `ecp5-85` builds; the connection window
/// (bit 10) and clean-route repairs (bit 11) left off in the last two (ECN
/// cutting the paths' windows as in v0), so that they differ from v0 in
/// probes and `rack` alone (with the window `ecp5-85`'s 24 WRITEs start 8
/// packets at a time and its paths' RTOs come before any probe), and `v1`
/// itself run last. With v0 every such loss
/// waits for an RTO; with probes the engine resends a path's tail after
/// its probe timeout and finds the losses from the ACKs, so it times out
/// far less (where RTTs are short beside rto_min: `corundum`'s 16 Gb/s);
/// with `rack` too a loss is found as soon as a packet sent after it on
/// any path is acknowledged, before the probe timer runs out: fewer probes,
/// sooner done. The data arrive whole every time.
#[test]
fn tail_probes_find_tail_losses_without_timeouts() {
    use ferroce_proto::config::EngineConfig;
    use ferroce_proto::model::Recovery;
    for (c, count) in [(EngineConfig::CORUNDUM, 64), (EngineConfig::ECP5_85, 24)] {
        let o = |recovery| Opts {
            op: Op::Write,
            count,
            size: 1000,
            loss: 0.1,
            seed: 9,
            paths: 8,
            streams: 4,
            mtu: 1024,
            stats: true,
            recovery,
            preset: c.name.into(),
            line_rate_mbps: c.line_mbps(),
            ..Opts::default()
        };
        let counter = |r: &ferroce_driver::loopback::Report, n: &str| {
            let s = r.stats.as_ref().expect("stats were asked for");
            s.counters.iter().find(|(k, _)| k == n).map(|(_, v)| *v).expect(n)
        };
        let v0 = run(o(Recovery::v0()));
        let unwindowed = Recovery {
            conn_window: false,
            path_ecn_cut: true,
            repair_route: ferroce_proto::model::RepairRoute::SamePath,
            ..Recovery::v1()
        };
        let v1 = run(o(Recovery { rack: false, path_rack: false, ..unwindowed }));
        let rack = run(o(unwindowed));
        let probes = counter(&v1, "tail_probes");
        let rack_probes = counter(&rack, "tail_probes");
        eprintln!(
            "{}: v0 {} RTOs in {} cycles; with probes {} RTOs, {probes} probes, in {} cycles; with rack too {} RTOs, \
             {rack_probes} probes, in {} cycles",
            c.name, v0.rtos, v0.duration_cycles, v1.rtos, v1.duration_cycles, rack.rtos, rack.duration_cycles
        );
        assert!(rack.rtos <= v1.rtos, "{}: RTOs: with rack {}, probes only {}", c.name, rack.rtos, v1.rtos);
        assert!(rack_probes < probes, "{}: probes: with rack {rack_probes}, without {probes}", c.name);
        assert!(
            rack.duration_cycles < v1.duration_cycles,
            "{}: with rack {rack:?}, probes only {v1:?}",
            c.name
        );
        assert_eq!(counter(&v0, "tail_probes"), 0, "{}: no probes in v0", c.name);
        assert!(probes > 0, "{}: {v1:?}", c.name);
        if c.name == "corundum" {
            assert!(v0.rtos >= 5 && v1.rtos * 3 < v0.rtos, "{}: RTOs: v0 {}, with probes {}", c.name, v0.rtos, v1.rtos);
            assert!(v1.duration_cycles < v0.duration_cycles, "{}: with probes {v1:?}, v0 {v0:?}", c.name);
        } else {
            // At 1.6 Gb/s a frame takes 5 us on the wire and RTTs of tens
            // of us put the paths' RTOs (2 srtt + 4 rttvar) above rto_min:
            // a tail's RTO, armed when it was sent, can come before the
            // probe timeout (srtt + 4 rttvar + ACK delay after the
            // connection's last send).
            assert!(v1.rtos <= v0.rtos, "{}: RTOs: v0 {}, with probes {}", c.name, v0.rtos, v1.rtos);
        }
        // `v1` with its connection window and clean-route repairs: the
        // data arrive whole (`run` checks every byte and completion).
        let windowed = run(o(Recovery::v1()));
        eprintln!(
            "{}: v1 {} RTOs, {} probes, in {} cycles",
            c.name,
            windowed.rtos,
            counter(&windowed, "tail_probes"),
            windowed.duration_cycles
        );
    }
}

/// The `ecp5-85` build (8 x 8 x 8 at 25 MHz, 64 packets in flight per
/// path where `corundum` keeps 256) moves every operation through loss as
/// well, and a 1 MiB write of 1 024 packets at 2 % loss, whose holes hold
/// each path's oldest PSN back while later ones are SACKed.
#[test]
fn the_ecp5_85_build_survives_loss() {
    survives_loss(ferroce_proto::config::EngineConfig::ECP5_85, (24, 5000, 4, 3, 512), (1 << 20, 8, 1024), 5);
}

/// The `ecp5-25` build (2 x 4 x 2 at 50 MHz, 8 packets in flight per
/// path, no received-header queue where the others keep four) moves every
/// operation through loss too, on all its paths and streams, and a 256 KiB
/// write whose 8-packet windows fill on every path. Each run sends 384
/// data packets and about as many ACKs on the same wire, so that at 1 %
/// data packets are lost too, not only ACKs (with 192 the first run's
/// five losses were all ACKs once the receive side's timing changed).
#[test]
fn the_ecp5_25_build_survives_loss() {
    survives_loss(ferroce_proto::config::EngineConfig::ECP5_25, (32, 3000, 4, 2, 256), (1 << 18, 4, 1024), 2);
}

/// `control.window_cap` reaches the send path: every path of a lossless
/// run keeps its window at the cap (and at the build's 256 without one),
/// and the data still arrive whole.
#[test]
fn the_window_cap_register_caps_every_paths_window() {
    for cap in [3u32, 256] {
        let o = Opts { window_cap: cap, loss: 0.0, count: 8, paths: 4, streams: 2, stats: true, ..Opts::default() };
        let r = run(o.clone());
        let stats = r.stats.expect("stats were asked for");
        let used: Vec<_> = stats.paths.iter().filter(|p| p.sent > 0).collect();
        assert!(used.len() >= 4, "{cap}: {:?}", stats.paths);
        for p in used {
            assert!(p.cwnd <= cap as f64, "cap {cap}: path {p:?}");
            assert!(p.cwnd >= (cap as f64) - 1.0, "cap {cap}: no loss, no cut, yet path {p:?}");
        }
    }
}

#[test]
fn bad_options_are_refused_before_anything_runs() {
    for o in [
        Opts { size: 0, ..Opts::default() },
        Opts { count: 0, ..Opts::default() },
        Opts { paths: 17, ..Opts::default() },
        Opts { streams: 9, ..Opts::default() },
        Opts { streams: 0, ..Opts::default() },
        Opts { loss: 0.7, ..Opts::default() },
        Opts { dma_stall: 0.95, ..Opts::default() },
        Opts { dma_stall: -0.1, ..Opts::default() },
        Opts { size: 1 << 30, ..Opts::default() },
    ] {
        let e = run_sim(&o, &mut |_, _| {}).expect_err("refused");
        assert!(e.to_string().starts_with("bad request"), "{e}");
    }
}

/// One looped engine with connection 0 sending to connection 1 (2 paths,
/// `streams` streams), an 8 KiB source and an 8 KiB region of connection 1
/// (rkey 5) at 0x3000_0000; `seed` varies the data and the wire.
/// Run the engine until `n` completions have come (at most 400 idle
/// rounds) and return them; fails if a different number came.
fn completions(d: &mut Driver<SimLoopback>, n: usize) -> Vec<ferroce_proto::rings::Cqe> {
    let mut got = Vec::new();
    for _ in 0..400 {
        d.dev.idle().unwrap();
        got.extend(d.poll().unwrap());
        if got.len() == n {
            break;
        }
    }
    assert_eq!(got.len(), n, "{got:?}");
    got
}

fn two_connections(streams: u32, seed: u64) -> Driver<SimLoopback> {
    let mut mem = Memory::default();
    mem.add_region("sq", Iova(0x1000_0000), WQE_BYTES << 4, false);
    mem.add_region("rq", Iova(0x1010_0000), 32 << 4, false);
    mem.add_region("cq", Iova(0x1020_0000), CQE_BYTES << 5, true);
    mem.add_region("src", Iova(0x2000_0000), 8192, false);
    mem.add_region("dst", Iova(0x3000_0000), 8192, true);
    mem.region_mut("src").iter_mut().enumerate().for_each(|(i, b)| *b = (i as u64 * (2 * seed + 1) + 1) as u8);
    let dev = SimLoopback::new(mem, &Wire::lossy(0.0), seed).unwrap();
    let (mac, ip) = ([2, 0, 0, 0, 0, 9], [10, 0, 0, 9]);
    let cfg = Config { mtu: 1024, port_seed: seed as u32, ..Config::new(mac, ip) };
    let ring = |base, log_size| RingSpec { base, log_size };
    let mut d = Driver::bring_up(dev, &cfg, ring(0x1000_0000, 4), ring(0x1010_0000, 4), ring(0x1020_0000, 5)).unwrap();
    for (index, remote) in [(0, 1), (1, 0)] {
        d.connect(&ConnSpec { index, remote, peer_mac: mac, peer_ip: ip, paths: 2, streams, initial_rate_mbps: 0 })
            .unwrap();
    }
    d.register_mr(&MrSpec { slot: 0, rkey: 5, base: 0x3000_0000, len: 8192, remote_write: true, conn: 1 }).unwrap();
    d
}

/// A WRITE with an rkey the receiver never registered: NAK'd, counted,
/// nothing written, the work request completes with a remote access error;
/// a good WRITE after it on the same stream still lands.
#[test]
fn a_refused_write_writes_nothing_and_completes_with_an_error() {
    let mut d = two_connections(1, 5);
    let w = |id, rkey| Wqe {
        op: WqeOp::Write,
        stream: 0,
        conn: 0,
        len: 3000,
        local: 0x2000_0000,
        remote: 0x3000_0000,
        rkey,
        imm: 0,
        id,
    };
    assert!(d.post_send(&w(1, 6)).unwrap());
    assert!(d.post_send(&w(2, 5)).unwrap());
    d.ring_doorbells().unwrap();
    let got = completions(&mut d, 2);
    assert!(got.iter().all(|c| c.kind == CqeKind::SendDone));
    let status: Vec<(u32, u8)> = got.iter().map(|c| (c.id, c.status)).collect();
    assert_eq!(status, vec![(1, 1), (2, 0)], "the refused WRITE fails, the next one succeeds, in order");
    assert!(d.get(regs::stats::RX_ACCESS_VIOLATION).unwrap() >= 1);
    assert!(d.get(regs::stats::TX_NAKS).unwrap() >= 1);
    let mem = &d.dev.engine.mem;
    assert!(mem.slice(Iova(0x3000_0000), 3000) == mem.slice(Iova(0x2000_0000), 3000), "the good WRITE landed");
    assert!(mem.region("dst")[3000..].iter().all(|b| *b == 0), "nothing else was written");
    assert_eq!(mem.dma_written("dst"), 3000, "the refused WRITE wrote nothing");
}

/// Work requests the engine cannot run (an unknown operation, a connection
/// or stream beyond the build or the connection as set up, zero length)
/// complete at once with status 3
/// and their id, connection, stream and length, write nothing, and do not
/// hold up the good request behind them.
#[test]
fn malformed_work_requests_complete_with_an_error() {
    let mut d = two_connections(2, 6);
    let good = Wqe {
        op: WqeOp::Write,
        stream: 1,
        conn: 0,
        len: 2500,
        local: 0x2000_0000,
        remote: 0x3000_0000,
        rkey: 5,
        imm: 0,
        id: 9,
    };
    // (id, op byte, conn, stream, len)
    // Unknown op; connection beyond the build; stream beyond the build;
    // zero length; stream beyond the connection's 2; a connection not set up.
    let bad: [(u32, u8, u16, u8, u32); 6] = [
        (1, 9, 0, 0, 100),
        (2, 1, 64, 0, 100),
        (3, 1, 0, 8, 100),
        (4, 1, 0, 0, 0),
        (5, 1, 0, 2, 100),
        (6, 1, 5, 0, 100),
    ];
    for (id, op, conn, stream, len) in bad {
        let mut e = Wqe { id, conn, stream, len, ..good }.encode();
        e[0] = op;
        assert!(d.post_send_raw(&e).unwrap());
    }
    assert!(d.post_send(&good).unwrap());
    d.ring_doorbells().unwrap();
    let got = completions(&mut d, 7);
    assert!(got.iter().all(|c| c.kind == CqeKind::SendDone));
    let seen: Vec<(u32, u8, u16, u8, u32)> = got.iter().map(|c| (c.id, c.status, c.conn, c.stream, c.len)).collect();
    let mut want: Vec<(u32, u8, u16, u8, u32)> = bad.iter().map(|b| (b.0, 3, b.2, b.3, b.4)).collect();
    want.push((9, 0, 0, 1, 2500));
    assert_eq!(seen, want, "the malformed ones fail at once, in ring order, and the good one completes");
    let mem = &d.dev.engine.mem;
    assert!(mem.slice(Iova(0x3000_0000), 2500) == mem.slice(Iova(0x2000_0000), 2500), "the good WRITE landed");
    assert_eq!(mem.dma_written("dst"), 2500, "nothing else was written");
    assert_eq!(d.get(regs::stats::TX_DATA).unwrap(), 3, "only the good WRITE's packets were sent");
}

/// Every connection this build has (64), 1 to 16 paths, all streams busy at once: the
/// connections of one looped engine in pairs, each sending to the other
/// on eight streams (so every connection sends and receives), WRITEs to the
/// 16 region slots' connections and SENDs mixed, 2 % loss; every message
/// completes, its bytes in place, nothing deadlocks.
#[test]
fn all_connections_and_streams_at_once() {
    use ferroce_proto::rings::{Rqe, CQE_BYTES, RQE_BYTES};
    const MSG: u32 = 700;
    const PER_STREAM: u32 = 2;
    const CONNS: u32 = 64;
    let (sq, rq, cq, src, dst) = (0x1000_0000u64, 0x1010_0000u64, 0x1020_0000u64, 0x2000_0000u64, 0x3000_0000u64);
    let n = CONNS * 8 * PER_STREAM; // messages
    let mut mem = Memory::default();
    mem.add_region("sq", Iova(sq), WQE_BYTES << 7, false);
    mem.add_region("rq", Iova(rq), RQE_BYTES << 7, false);
    mem.add_region("cq", Iova(cq), CQE_BYTES << 10, true);
    mem.add_region("src", Iova(src), (n * MSG) as usize, false);
    mem.add_region("dst", Iova(dst), (n * MSG) as usize, true);
    mem.region_mut("src").iter_mut().enumerate().for_each(|(i, b)| *b = (i * 31 % 251) as u8);
    let dev = SimLoopback::new(mem, &Wire::lossy(0.02), 8).unwrap();
    let (mac, ip) = ([2, 0, 0, 0, 0, 7], [10, 0, 0, 7]);
    let cfg = Config { mtu: 256, port_seed: 9, ..Config::new(mac, ip) };
    let ring = |base, log_size| RingSpec { base, log_size };
    let mut d = Driver::bring_up(dev, &cfg, ring(sq, 7), ring(rq, 7), ring(cq, 10)).unwrap();
    assert_eq!(d.get(regs::engine_info::MAX_CONNS).unwrap(), CONNS, "the register says what the build has");
    assert_eq!(ferroce_hdl::rx::rx_check::CONNS, CONNS as usize, "the build's connections");
    // Connections 2k and 2k + 1 send to each other; region slot s belongs
    // to connection s (the WRITEs of connection s ^ 1 land there).
    for c in 0..CONNS {
        let paths = 1 + (c / 2) % 16;
        d.connect(&ConnSpec {
            index: c,
            remote: c ^ 1,
            peer_mac: mac,
            peer_ip: ip,
            paths,
            streams: 8,
            initial_rate_mbps: 0,
        })
        .unwrap();
    }
    for slot in 0..16u32 {
        let mr = MrSpec { slot, rkey: 100 + slot, base: dst, len: (n * MSG) as u64, remote_write: true, conn: slot };
        d.register_mr(&mr).unwrap();
    }
    // Message i: connection i % 64, stream (i / 64) % 8; a WRITE where the
    // receiver has a region and i % 4 != 3, else a SEND.
    let msgs: Vec<(Wqe, Option<Rqe>)> = (0..n)
        .map(|i| {
            let (c, stream) = (i % CONNS, ((i / CONNS) % 8) as u8);
            let at = (i * MSG) as u64;
            let send = (c ^ 1) >= 16 || i % 4 == 3;
            let w = Wqe {
                op: if send { WqeOp::Send } else { WqeOp::Write },
                stream,
                conn: c as u16,
                len: MSG,
                local: src + at,
                remote: if send { 0 } else { dst + at },
                rkey: 100 + (c ^ 1),
                imm: 0,
                id: i,
            };
            let r = send.then(|| Rqe { conn: (c ^ 1) as u16, stream, len: MSG, addr: dst + at, id: i });
            (w, r)
        })
        .collect();
    let rqes: Vec<Rqe> = msgs.iter().filter_map(|m| m.1).collect();
    let want = n as usize + rqes.len();
    let (mut next_w, mut next_r, mut got) = (0usize, 0usize, Vec::new());
    for _ in 0..20_000 {
        while next_r < rqes.len() && d.post_recv(&rqes[next_r]).unwrap() {
            next_r += 1;
        }
        while next_w < msgs.len() && d.post_send(&msgs[next_w].0).unwrap() {
            next_w += 1;
        }
        d.ring_doorbells().unwrap();
        d.dev.idle().unwrap();
        got.extend(d.poll().unwrap());
        if got.len() == want {
            break;
        }
    }
    assert_eq!(got.len(), want, "completions (a deadlock leaves some missing)");
    assert!(got.iter().all(|c| c.status == 0), "{:?}", got.iter().find(|c| c.status != 0));
    for kind in [CqeKind::SendDone, CqeKind::Recv] {
        let mut ids: Vec<u32> = got.iter().filter(|c| c.kind == kind).map(|c| c.id).collect();
        ids.sort();
        ids.dedup();
        let want = if kind == CqeKind::SendDone { n as usize } else { rqes.len() };
        assert_eq!(ids.len(), want, "{kind:?}: each once");
    }
    let mem = &d.dev.engine.mem;
    assert!(mem.region("dst") == mem.region("src"), "every message's bytes in place");
    assert!(d.get(regs::stats::TX_RETX).unwrap() > 0, "losses were repaired");
    // The per-path window adds up to the engine's counters.
    let (mut sent, mut retx) = (0u32, 0u32);
    for c in 0..CONNS {
        for p in 0..(1 + (c / 2) % 16) {
            d.set(regs::path_table::INDEX, c * 16 + p).unwrap();
            let sport = d.get(regs::path_table::SPORT).unwrap();
            assert!((49152..=65535).contains(&sport), "connection {c} path {p}: source port {sport}");
            assert_eq!(d.get(regs::path_table::CWND).unwrap(), 256 << 16, "no ECN, the window stays at its cap");
            let on_path = d.get(regs::path_table::SENT).unwrap();
            let srtt = d.get(regs::path_table::SRTT_NS).unwrap();
            if on_path > 0 {
                // Acknowledged data gives an RTT estimate: the looped wire's
                // delay plus queueing, microseconds, not zero or seconds.
                assert!((1_000..1_000_000).contains(&srtt), "connection {c} path {p}: srtt {srtt} ns");
            }
            sent += on_path;
            retx += d.get(regs::path_table::RETRANSMITTED).unwrap();
        }
    }
    assert_eq!(sent, d.get(regs::stats::TX_DATA).unwrap(), "data packets per path add up");
    assert_eq!(retx, d.get(regs::stats::TX_RETX).unwrap(), "retransmissions per path add up");
}

/// Four connections of one looped engine (lossless wire, line rate `LINE`)
/// each WRITE 192 KiB to four others, starting at `INITIAL` Mb/s (their
/// initial rate), with the loss-recovery settings `recovery`; every byte is
/// checked in place. Returns each sender's data frames (ns, wire bytes)
/// and the ACKs' rate hints (ns, Mb/s) as the wire carried them.
#[allow(clippy::type_complexity)]
fn four_paced_senders(recovery: ferroce_proto::model::Recovery) -> (Vec<Vec<(f64, f64)>>, Vec<(f64, u32)>) {
    use ferroce_proto::wire::{self, Body, Opcode};
    const MSG: u32 = 192 << 10;
    let (sq, rq, cq, src, dst) = (0x1000_0000u64, 0x1010_0000u64, 0x1020_0000u64, 0x2000_0000u64, 0x3000_0000u64);
    let mut mem = Memory::default();
    mem.add_region("sq", Iova(sq), WQE_BYTES << 4, false);
    mem.add_region("rq", Iova(rq), 32 << 4, false);
    mem.add_region("cq", Iova(cq), CQE_BYTES << 6, true);
    mem.add_region("src", Iova(src), 4 * MSG as usize, false);
    mem.add_region("dst", Iova(dst), 4 * MSG as usize, true);
    mem.region_mut("src").iter_mut().enumerate().for_each(|(i, b)| *b = (i * 7 % 253) as u8);
    let mut dev = SimLoopback::new(mem, &Wire::lossy(0.0), 3).unwrap();
    dev.tap = Some(Vec::new());
    let (mac, ip) = ([2, 0, 0, 0, 0, 9], [10, 0, 0, 9]);
    let cfg = Config { mtu: 1024, port_seed: 5, line_rate_mbps: LINE, recovery, ..Config::new(mac, ip) };
    let ring = |base, log_size| RingSpec { base, log_size };
    let mut d = Driver::bring_up(dev, &cfg, ring(sq, 4), ring(rq, 4), ring(cq, 6)).unwrap();
    for c in 0..8u32 {
        let initial_rate_mbps = if c < 4 { INITIAL } else { 0 };
        let spec =
            ConnSpec { index: c, remote: c ^ 4, peer_mac: mac, peer_ip: ip, paths: 2, streams: 1, initial_rate_mbps };
        d.connect(&spec).unwrap();
    }
    for k in 0..4u32 {
        let base = dst + (k * MSG) as u64;
        d.register_mr(&MrSpec { slot: k, rkey: 50 + k, base, len: MSG as u64, remote_write: true, conn: k + 4 })
            .unwrap();
    }
    for k in 0..4u32 {
        let at = (k * MSG) as u64;
        let w = Wqe {
            op: WqeOp::Write,
            stream: 0,
            conn: k as u16,
            len: MSG,
            local: src + at,
            remote: dst + at,
            rkey: 50 + k,
            imm: 0,
            id: k,
        };
        assert!(d.post_send(&w).unwrap());
    }
    d.ring_doorbells().unwrap();
    let got = completions(&mut d, 4);
    assert!(got.iter().all(|c| c.status == 0), "{got:?}");
    let mem = &d.dev.engine.mem;
    assert!(mem.region("dst") == mem.region("src"), "every byte in place");

    let ns = ferroce_hdl::engine::NS_PER_CYCLE as f64;
    let mut data: Vec<Vec<(f64, f64)>> = vec![Vec::new(); 4];
    let mut hints: Vec<(f64, u32)> = Vec::new();
    for (cycle, f) in d.dev.tap.as_ref().unwrap() {
        let p = wire::parse(f, wire::FERROCE_PORT).unwrap();
        let c = p.transport.common;
        match p.transport.body {
            Body::Data(_) if c.opcode == Opcode::Write => {
                data[c.conn.0 as usize - 4].push((*cycle as f64 * ns, (f.len() + wire::WIRE_OVERHEAD) as f64))
            }
            Body::Ack(a) => hints.push((*cycle as f64 * ns, a.rate_hint_mbps)),
            _ => {}
        }
    }
    (data, hints)
}

/// The line rate of [`four_paced_senders`] and the senders' initial rate.
const LINE: u32 = 16_000;
const INITIAL: u32 = 2_000;

/// Pacing and the receiver's rate hint: in [`four_paced_senders`] the
/// receiving connections' ACKs carry no hint for the first activity
/// window, then the line rate shared by the four active senders; each
/// sender keeps to its rate, and speeds up to the hint once it comes.
#[test]
fn pacing_follows_the_initial_rate_then_the_receivers_hint() {
    let (data, hints) = four_paced_senders(ferroce_proto::model::Recovery::v0());
    let first_data = data.iter().map(|v| v[0].0).fold(f64::MAX, f64::min);
    let first_hint = hints.iter().find(|h| h.1 != 0).copied().expect("a hint");
    assert_eq!(first_hint.1, LINE / 4, "the line shared by four active senders");
    assert!(
        first_hint.0 - first_data >= 20_000.0,
        "no hint within the activity window: data from {first_data} ns, hint at {} ns",
        first_hint.0
    );
    assert!(hints.iter().filter(|h| h.0 < first_hint.0).all(|h| h.1 == 0), "no hint before the window ends");
    // Until the hint arrives each sender keeps to 2 000 Mb/s: between any two
    // of its frames at most the bytes the rate allows, plus one frame (the
    // pacer lets a frame go when the previous one's time is up).
    for (k, v) in data.iter().enumerate() {
        let early: Vec<&(f64, f64)> = v.iter().filter(|x| x.0 < first_hint.0).collect();
        // 20 us at 2 000 Mb/s: about five 1 128-byte frames.
        assert!(early.len() >= 4, "sender {k}: {} frames before the hint", early.len());
        for i in 0..early.len() {
            for j in i + 1..early.len() {
                let bytes: f64 = early[i..j].iter().map(|x| x.1).sum();
                let allowed = (early[j].0 - early[i].0) * INITIAL as f64 / 8000.0 + 1100.0;
                assert!(bytes <= allowed, "sender {k}: {bytes} bytes in {} ns", early[j].0 - early[i].0);
            }
        }
        // After the hint: faster than the initial rate, never faster than the hint.
        let late: Vec<&(f64, f64)> = v.iter().filter(|x| x.0 > first_hint.0 + 2_000.0).collect();
        assert!(late.len() >= 32, "sender {k}: {} frames after the hint", late.len());
        let span = late[late.len() - 1].0 - late[0].0;
        let rate = late[..late.len() - 1].iter().map(|x| x.1).sum::<f64>() * 8000.0 / span;
        assert!(
            rate > 1.4 * INITIAL as f64 && rate <= 1.02 * (LINE / 4) as f64,
            "sender {k}: {rate:.0} Mb/s after the hint of {} Mb/s",
            LINE / 4
        );
    }
}

/// `Recovery::hint_warmup` off (`control.recovery` bit 7 clear): the
/// receiver's hint comes from its first ACK, the line over the senders it
/// has heard from so far, and the senders leave their initial rate within
/// the activity window instead of after it.
#[test]
fn without_the_warmup_the_hint_comes_from_the_first_ack() {
    let recovery = ferroce_proto::model::Recovery { hint_warmup: false, ..ferroce_proto::model::Recovery::v0() };
    let (data, hints) = four_paced_senders(recovery);
    let first_data = data.iter().map(|v| v[0].0).fold(f64::MAX, f64::min);
    assert!(hints.len() > 100, "{} ACKs", hints.len());
    assert!([1, 2, 3, 4].map(|n| LINE / n).contains(&hints[0].1), "the first ACK's hint: {:?}", hints[0]);
    assert!(hints.iter().all(|h| h.1 != 0 && h.1 <= LINE), "a hint in every ACK: {hints:?}");
    assert!(hints[0].0 - first_data < 20_000.0, "the first ACK within the activity window: {:?}", hints[0]);
    // Once all four are heard from, the line over four.
    let shared = hints.iter().position(|h| h.1 == LINE / 4).expect("the line shared by four");
    assert!(hints[shared..].iter().all(|h| h.1 == LINE / 4), "{:?}", &hints[shared..]);
    // Each sender is past its initial rate after the first hint, within the
    // first activity window (where the warmup keeps it at its initial rate).
    for (k, v) in data.iter().enumerate() {
        let early: Vec<&(f64, f64)> =
            v.iter().filter(|x| x.0 > hints[0].0 + 2_000.0 && x.0 < first_data + 20_000.0).collect();
        assert!(early.len() >= 4, "sender {k}: {} frames after the first hint in the window", early.len());
        let bytes: f64 = early[..early.len() - 1].iter().map(|x| x.1).sum();
        let span = early[early.len() - 1].0 - early[0].0;
        let rate = bytes * 8000.0 / span;
        assert!(rate > 1.4 * INITIAL as f64, "sender {k}: {rate:.0} Mb/s in the first window ({} frames)", early.len());
    }
}

/// The time base follows each build's clock: with every frame lost, a
/// write's first retransmission leaves `rto_min` after its first
/// transmission (no RTT sample yet, so the RTO is its floor), in
/// nanoseconds, on the 250 MHz `corundum` build and the 25 MHz `ecp5-85`
/// build alike, although the two take ten times apart in cycles.
#[test]
fn the_first_timeout_is_rto_min_in_nanoseconds_on_every_clock() {
    use ferroce_proto::wire::{self, Body};
    const RTO_MIN_NS: u64 = 30_000;
    let mut cycles = Vec::new();
    for preset in ["corundum", "ecp5-85"] {
        let mut mem = Memory::default();
        mem.add_region("sq", Iova(0x1000_0000), WQE_BYTES << 4, false);
        mem.add_region("rq", Iova(0x1010_0000), 32 << 4, false);
        mem.add_region("cq", Iova(0x1020_0000), CQE_BYTES << 5, true);
        mem.add_region("src", Iova(0x2000_0000), 512, false);
        let dma = ferroce_sim::engine::DmaConfig { seed: 3, ..Default::default() };
        let mut dev = SimLoopback::with_preset(preset, mem, &Wire::lossy(1.0), dma).unwrap();
        dev.tap = Some(Vec::new());
        let clock_ps = dev.engine.clock_ps();
        let (mac, ip) = ([2, 0, 0, 0, 0, 9], [10, 0, 0, 9]);
        let cfg = Config { rto_min_ns: RTO_MIN_NS as u32, ..Config::new(mac, ip) };
        let ring = |base, log_size| RingSpec { base, log_size };
        let mut d =
            Driver::bring_up(dev, &cfg, ring(0x1000_0000, 4), ring(0x1010_0000, 4), ring(0x1020_0000, 5)).unwrap();
        assert_eq!(d.get(regs::engine_info::CLOCK_PS).unwrap() as u64, clock_ps, "{preset}: engine_info.clock_ps");
        // Every engine_info register of the build says what its configuration does.
        for (reg, value) in ferroce_proto::config::preset(preset).unwrap().info() {
            assert_eq!(d.get(reg).unwrap(), value, "{preset}: {reg}");
        }
        d.connect(&ConnSpec {
            index: 0,
            remote: 1,
            peer_mac: mac,
            peer_ip: ip,
            paths: 2,
            streams: 1,
            initial_rate_mbps: 0,
        })
        .unwrap();
        let w = Wqe {
            op: WqeOp::Write,
            stream: 0,
            conn: 0,
            len: 512,
            local: 0x2000_0000,
            remote: 0x3000_0000,
            rkey: 5,
            imm: 0,
            id: 1,
        };
        assert!(d.post_send(&w).unwrap());
        d.ring_doorbells().unwrap();
        // Data frames sent (cycle, PSN), until the first one is sent again.
        let limit = d.dev.engine.cycles() + 4 * RTO_MIN_NS * 1000 / clock_ps;
        let sent = loop {
            d.dev.cycle().unwrap();
            let sent: Vec<(u64, u32)> = d
                .dev
                .tap
                .as_ref()
                .unwrap()
                .iter()
                .filter_map(|(cycle, f)| {
                    let p = wire::parse(f, wire::FERROCE_PORT).unwrap();
                    matches!(p.transport.body, Body::Data(_)).then_some((*cycle, p.transport.common.psn.get()))
                })
                .collect();
            if sent.len() >= 2 || d.dev.engine.cycles() > limit {
                break sent;
            }
        };
        assert_eq!(sent.len(), 2, "{preset}: one data frame, then its retransmission: {sent:?}");
        assert_eq!(sent[0].1, sent[1].1, "{preset}: the same PSN again");
        let apart = sent[1].0 - sent[0].0;
        let ns = apart * clock_ps / 1000;
        // The timer fires at its deadline, after one scan of the keys (up
        // to 1 024 cycles) and the send path's decision and DMA read.
        let slack_ns = (1024 + 200) * clock_ps / 1000;
        assert!(
            (RTO_MIN_NS..=RTO_MIN_NS + slack_ns).contains(&ns),
            "{preset}: retransmitted {ns} ns ({apart} cycles of {clock_ps} ps) after the first send, RTO {RTO_MIN_NS} ns"
        );
        cycles.push(apart);
    }
    // The slow clock takes about the ratio of the clock periods of the cycles
    // (within 17 %: the scan and the send path's decision are cycles, not ns).
    let expect = ferroce_proto::config::EngineConfig::CORUNDUM.clock_ps as f64
        / ferroce_proto::config::EngineConfig::ECP5_85.clock_ps as f64;
    let ratio = cycles[1] as f64 / cycles[0] as f64;
    assert!(
        (0.83 * expect..1.17 * expect).contains(&ratio),
        "cycles at the ecp5-85 clock over cycles at 250 MHz: {ratio:.3}, clock ratio {expect:.3}"
    );
}
