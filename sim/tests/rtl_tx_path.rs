//! The whole send path (`tx_path`) in Verilator against the reference
//! sender (`ferroce_proto::model::Endpoint`), in lockstep.
//!
//! A model sender A and the RTL get the same work requests (WRITEs, WRITEs
//! with immediate, SENDs; some to a bad rkey, some to a receive buffer that
//! is too small or not yet posted) on two connections to a model receiver
//! B. Each step, A's frame (if any) must equal, byte for byte, the frame the
//! RTL sends in one transmit attempt; A's frames go to B over a lossy,
//! reordering, CE-marking channel with a black-holed source port for a while
//! (RTOs and re-pathing); B's ACKs and NAKs go to both A and the RTL (as the
//! receive path would pass them on). Send completions, RTO arming (deadlines
//! from the RTT estimates) and NO_RECV holds are compared as they happen,
//! the counters at the end.
//!
//! The DMA read port answers with random latency and gaps; the MAC side
//! applies random back-pressure.

use ferroce_proto::model::EndpointConfig;
use ferroce_proto::rng::Rng;
use ferroce_proto::transport::Stats;
use ferroce_proto::wire::{self, Body};
use ferroce_proto::{ConnId, StreamId};
use ferroce_sim::lockstep::common::{bytes_to_words, mac_word as mac, stream_key};
use ferroce_sim::lockstep::send::model_lib;
use ferroce_sim::lockstep::{path_key, send_lockstep, SendLockstep, TxRtl, A_IP, A_MAC, MTU};
use ferroce_sim::memory::Memory;

ferroce_sim::equivalence_inputs!(tx_path_inputs: ferroce_hdl::tx::tx_path::TxPath;
    reset, cfg_mac, cfg_ip, cfg_port, cfg_mtu, cfg_max_cwnd, cfg_repath_after, cfg_retire_after, cfg_rto_min,
    cfg_hint, cfg_max_backoff, cfg_loss_shift, cfg_path_ecn_cut, cfg_probe, cfg_ack_delay, cfg_rack,
    cfg_conn_window, cfg_line, cfg_window_scale, cfg_clean_repairs, cfg_path_rack, now, ctl_valid, ctl_op, ctl_conn, ctl_remote,
    ctl_mac, ctl_ip, ctl_paths, ctl_streams, ctl_psn,
    ctl_generation, ctl_seed, wr_valid, wr_key, wr_op, wr_len, wr_local, wr_remote, wr_rkey, wr_imm, wr_id,
    fb_valid, fb_nak, fb_key, fb_psn, fb_sack, fb_ce, fb_code, fb_stream, fb_msg_seq, fb_ts, fb_hint, ack_valid, ack_key,
    ack_cum, ack_sack, ack_ts, ack_sport, ack_pending, ack_ce, nak_valid, nak_key, nak_psn, nak_stream,
    nak_msg_seq, nak_code, nak_sport, rto_valid, rto_key, probe_valid, probe_key, release_valid, release_key, release_psn, tx_go, tx_mask,
    m_rd_cmd_ready, s_rd_tdata, s_rd_tkeep, s_rd_tvalid, s_rd_tlast, m_axis_tready, m_cpl_ready, pt_key, clear_stats);

/// Cycles of the lockstep run replayed into rust-hdl's simulator: the
/// clearing sweep after reset (2^PATH_KEY_BITS cycles), set-up and the
/// first frames, ACKs, NAKs and timeouts.
const REPLAYED: u64 = 12_000;

/// Outputs the lockstep's first cycles leave alone: the receive side's ACK
/// and NAK frames (replayed in `ack_and_nak_frames_are_built_exactly`) and
/// releases of NO_RECV holds, which come after the retry delay, and path
/// retirement, which takes RTOs in a row; and tail probes, off in v0
/// (replayed from the v1 settings' run).
const LOCKSTEP_QUIET: &[&str] = &[
    "ack_ready", "nak_ready", "cnt_tx_acks", "cnt_tx_naks", "release_ready", "pt_retired", "m_probe_valid",
    "m_probe_key", "m_probe_arm", "m_probe_shift", "m_probe_base", "probe_ready", "cnt_tail_probes",
];

/// Outputs the v1 settings' first cycles leave alone: those of the v0 run
/// but tail probes, NO_RECV holds (none in those cycles; replayed from the
/// v0 run), the register window, which stays on one path, and
/// failed completions, which come later in this run.
const V1_QUIET: &[&str] = &[
    "ack_ready", "nak_ready", "cnt_tx_acks", "cnt_tx_naks", "release_ready", "pt_retired", "pt_valid", "pt_sport",
    "pt_cwnd", "pt_sent", "pt_retx", "pt_ecn", "pt_srtt", "m_cpl_status", "m_rnr_psn",
];

/// Outputs the ACK and NAK test leaves alone: everything of data packets,
/// feedback, completions and timers (replayed from the lockstep run).
const ACK_TEST_QUIET: &[&str] = &[
    "cnt_naks_received", "cnt_repaths", "cnt_rtos", "cnt_tx_data", "cnt_tx_retx", "fb_ready", "m_cpl_has_imm",
    "m_cpl_id", "m_cpl_imm", "m_cpl_len", "m_cpl_seq", "m_cpl_status", "m_cpl_valid", "m_rd_cmd_addr",
    "m_rd_cmd_len", "m_rd_cmd_valid", "m_rnr_key", "m_rnr_psn", "m_rnr_valid", "m_rto_arm", "m_rto_base",
    "m_rto_key", "m_rto_shift", "m_rto_valid", "pt_ecn", "pt_retired", "pt_retx", "pt_sent", "pt_srtt",
    "release_ready", "rto_ready", "s_rd_tready", "tx_done", "tx_sent", "tx_sent_conn", "tx_sent_len", "wr_ready",
    "m_probe_valid", "m_probe_key", "m_probe_arm", "m_probe_shift", "m_probe_base", "probe_ready", "cnt_tail_probes",
];

/// Node A's addresses, the UDP port, the MTU and the window cap; the rate
/// hint put in ACKs and the connections that may send.
fn configure(rtl: &mut TxRtl, hint: u64, mask: u64) {
    for (n, v) in [
        ("cfg_mac", mac(A_MAC)),
        ("cfg_ip", u32::from_be_bytes(A_IP) as u64),
        ("cfg_port", wire::FERROCE_PORT as u64),
        ("cfg_mtu", MTU as u64),
        ("cfg_max_cwnd", 256),
        ("cfg_hint", hint),
        ("tx_mask", mask),
    ] {
        rtl.set(n, v);
    }
    for (n, v) in ferroce_sim::lockstep::recovery_inputs(&ferroce_proto::model::Recovery::v0()) {
        rtl.set(n, v);
    }
}

#[test]
fn send_path_matches_the_model_in_lockstep() {
    ferroce_sim::verilator::record_next("tx_path", REPLAYED);
    let r = send_lockstep(&SendLockstep::default(), &mut |_, _| {}).unwrap_or_else(|d| panic!("{d}"));
    let st: Stats = r.stats;
    eprintln!("{} messages, {} frames, {} completions, {st:?}", r.messages, r.frames, r.completions);
    assert_eq!(r.completions as u64, r.messages);
    assert!(st.tx_retx > 20 && st.rtos > 0 && st.repaths > 0 && st.naks_received > 5, "{st:?}");
    // The same Rust in rust-hdl's own simulator, on this run's first cycles.
    let rec = ferroce_sim::verilator::take_recording("tx_path").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<tx_path_inputs>("tx_path", &rec, LOCKSTEP_QUIET);
}

/// The lockstep again with every send-side setting of `control.recovery`
/// away from v0, at v1's values (`Recovery::v1`: RTOs doubled at most
/// twice, re-pathing at a sixteenth of an epoch lost, tail probes, `rack`,
/// the connection window capped by B's rate hints, with ECN echoes cutting
/// it and not the paths' windows, repairs on the route of the connection's
/// cleanest other path), on a lossier channel so that the epochs'
/// thresholds, the backoff's limit and the probe timers are reached (a
/// quarter of the ACKs lost: the first probes go out in the replayed
/// cycles). The same run without `rack`, in lockstep too, finds fewer
/// losses from ACKs: `rack` is exercised, not only left equal. Repairs
/// went by other paths' routes, and none do with `repair_route` SamePath
/// (in lockstep too).
#[test]
fn send_path_matches_the_model_with_v1_recovery_settings() {
    ferroce_sim::verilator::record_next("tx_path", REPLAYED);
    let cfg = SendLockstep {
        recovery: ferroce_proto::model::Recovery::v1(),
        loss: 0.06,
        ack_loss: 0.25,
        messages: [600, 200],
        seed: 79,
        window_still: true,
        ..SendLockstep::default()
    };
    let r = send_lockstep(&cfg, &mut |_, _| {}).unwrap_or_else(|d| panic!("{d}"));
    let st: Stats = r.stats;
    eprintln!("{} messages, {} frames, {} completions, {st:?}", r.messages, r.frames, r.completions);
    assert_eq!(r.completions as u64, r.messages);
    assert!(st.tx_retx > 20 && st.rtos > 0 && st.repaths > 0 && st.tail_probes > 20, "{st:?}");
    let rec = ferroce_sim::verilator::take_recording("tx_path").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<tx_path_inputs>("tx_path", &rec, V1_QUIET);
    let no_rack = SendLockstep { recovery: ferroce_proto::model::Recovery { rack: false, path_rack: false, ..cfg.recovery }, ..cfg };
    let w = send_lockstep(&no_rack, &mut |_, _| {}).unwrap_or_else(|d| panic!("without rack: {d}")).stats;
    eprintln!("without rack: {w:?}");
    assert!(st.lost_found_by_ack > w.lost_found_by_ack + 100, "rack {st:?}, without {w:?}");
    let same_path = SendLockstep {
        recovery: ferroce_proto::model::Recovery {
            repair_route: ferroce_proto::model::RepairRoute::SamePath,
            ..cfg.recovery
        },
        ..cfg
    };
    let sp = send_lockstep(&same_path, &mut |_, _| {}).unwrap_or_else(|d| panic!("repairs on their own path: {d}"));
    eprintln!("rerouted repairs: {} of {}; on their own path: {} of {}", r.rerouted, st.tx_retx, sp.rerouted, sp.stats.tx_retx);
    assert!(r.rerouted > 20 && sp.rerouted == 0, "rerouted {} of {}, own path {}", r.rerouted, st.tx_retx, sp.rerouted);
}

/// `path_rack` (v1's `rack` on the ACK's own path, against that path's
/// own latest acknowledged send time, even while the path waits) in
/// lockstep, where it decides: round trips of 22-30 us so that a path's
/// newest packet is often inside the reordering window, 5 % of data lost
/// (repairs lost again), 2 % of ACKs, most messages on the one-path
/// connection. The same run without it, in lockstep too, finds far fewer
/// losses from ACKs.
#[test]
fn path_rack_finds_lost_repairs_on_a_busy_path() {
    use ferroce_proto::model::Recovery;
    let cfg = SendLockstep {
        recovery: Recovery::v1(),
        loss: 0.05,
        ack_loss: 0.02,
        messages: [100, 1200],
        seed: 4,
        delay_us: 10,
        ..SendLockstep::default()
    };
    let r = send_lockstep(&cfg, &mut |_, _| {}).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(r.completions as u64, r.messages);
    let off = SendLockstep { recovery: Recovery { path_rack: false, ..cfg.recovery }, ..cfg };
    let w = send_lockstep(&off, &mut |_, _| {}).unwrap_or_else(|d| panic!("without path_rack: {d}"));
    eprintln!("with path_rack {:?}\nwithout {:?}", r.stats, w.stats);
    assert!(
        r.stats.lost_found_by_ack > w.stats.lost_found_by_ack + 50,
        "losses found from ACKs: {} with path_rack, {} without",
        r.stats.lost_found_by_ack,
        w.stats.lost_found_by_ack
    );
}

/// `v1` on the mild
/// channel `cargo xtask diff` runs (1 % of data and ACKs lost), where a
/// packet resent by `rack` or a probe may be acknowledged by an ACK for
/// the original sent before the resend arrived: `rack_ts` must then
/// keep the original's send time (an ACK less than the least RTT after a
/// resend cannot be the resend's), or later packets in flight are
/// declared lost that the model keeps waiting for.
#[test]
fn rack_keeps_the_originals_send_time_for_early_acks_of_resent_packets() {
    let cfg = SendLockstep {
        recovery: ferroce_proto::model::Recovery::v1(),
        seed: 1,
        loss: 0.01,
        ack_loss: 0.01,
        messages: [2400, 800],
        ..SendLockstep::default()
    };
    let r = send_lockstep(&cfg, &mut |_, _| {}).unwrap_or_else(|d| panic!("{d}"));
    let st: Stats = r.stats;
    eprintln!("{} messages, {} frames, {} completions, {st:?}", r.messages, r.frames, r.completions);
    assert_eq!(r.completions as u64, r.messages);
    assert!(st.lost_found_by_ack > 30 && st.tx_retx > 30, "{st:?}");
}

/// The connection window's cap: round trips of 22 to 30 us, longer than
/// the cap's 12.5 us of the hinted rate, so that the cap holds a
/// connection back before its pacing does; B's line so slow that its
/// rate hints (after its warmup, in which the start window of 8 holds)
/// cap each connection at a few packets, and A's line slower still, so
/// that A takes the hints only up to it (9 packets at 1.6 Gb/s of
/// 374-byte frames against 11 at B's 2 Gb/s or more); no CE marks, so
/// that the window itself only grows. In lockstep: any packet the cap
/// should have held back, or held back needlessly, diverges; and the cap
/// binds: the 16-path connection has at most the cap at A's line out, and
/// without the window more than the cap at any of B's hints. Again with
/// the cap set for a base RTT of 12 us instead of 10 (`control.window_scale`):
/// 11 packets out at most.
#[test]
fn the_connection_window_holds_to_the_rate_hints_cap() {
    use ferroce_proto::model::Recovery;
    let cfg = SendLockstep {
        recovery: Recovery::v1(),
        seed: 9,
        loss: 0.01,
        ack_loss: 0.01,
        ce: 0.0,
        messages: [240, 80],
        line_mbps: [1_600, 4_000],
        delay_us: 10,
        ..SendLockstep::default()
    };
    let r = send_lockstep(&cfg, &mut |_, _| {}).unwrap_or_else(|d| panic!("{d}"));
    eprintln!("{} messages, {} frames, most out {:?}, {:?}", r.messages, r.frames, r.max_out, r.stats);
    assert_eq!(r.completions as u64, r.messages);
    let open = SendLockstep { recovery: Recovery { conn_window: false, ..cfg.recovery }, ..cfg };
    let w = send_lockstep(&open, &mut |_, _| {}).unwrap_or_else(|d| panic!("without the window: {d}"));
    eprintln!("without the window: {} frames, most out {:?}", w.frames, w.max_out);
    let frame = MTU + (wire::DATA_FRAME_OVERHEAD + wire::WIRE_OVERHEAD) as u32;
    let (at_a, at_b) = (cfg.recovery.window_cap(1_600, frame), cfg.recovery.window_cap(2_000, frame));
    assert_eq!((at_a, at_b), (9, 11));
    assert!(r.max_out[0] == at_a && w.max_out[0] > at_b, "most out with the window {:?}, without {:?}", r.max_out, w.max_out);
    let longer = SendLockstep { recovery: Recovery { base_rtt: 12_000_000, ..cfg.recovery }, ..cfg };
    let l = send_lockstep(&longer, &mut |_, _| {}).unwrap_or_else(|d| panic!("base RTT 12 us: {d}"));
    let cap = longer.recovery.window_cap(1_600, frame);
    assert_eq!(cap, 11);
    assert!(l.max_out[0] == cap, "most out with the cap for 12 us {:?}", l.max_out);
}

/// ACK and NAK frames asked for by the receive side, byte for byte as
/// `wire::encode` builds them (the connection's peer and remote number,
/// the rate hint, timestamps), between data frames.
#[test]
fn ack_and_nak_frames_are_built_exactly() {
    ferroce_sim::verilator::record_next("tx_path", REPLAYED);
    let lib = model_lib();
    let mut rtl = TxRtl::new(&lib, 11);
    let mut rng = Rng::new(5);
    let mem = Memory::default();
    let acfg = EndpointConfig::new(A_MAC, A_IP, 100_000, MTU);
    configure(&mut rtl, 25_000, u64::MAX);
    // Three connections to three peers.
    let peers: Vec<(u64, [u8; 6], [u8; 4], u16)> =
        (0..3).map(|i| (i * 5 + 1, [2, 0, 0, 0, 1, i as u8], [10, 0, 1, i as u8], 100 + i as u16)).collect();
    rtl.window_keys = peers.iter().flat_map(|p| (0..8).map(move |path| path_key(ConnId(p.0 as u16), path))).collect();
    for (conn, pmac, pip, remote) in &peers {
        rtl.handshake(
            "ctl_valid",
            "ctl_ready",
            &[
                ("ctl_op", 0),
                ("ctl_conn", *conn),
                ("ctl_remote", *remote as u64),
                ("ctl_mac", mac(*pmac)),
                ("ctl_ip", u32::from_be_bytes(*pip) as u64),
                ("ctl_paths", 8),
                ("ctl_streams", 8),
            ],
            &mem,
        );
    }
    rtl.settle(&mem);
    for i in 0..2_000u64 {
        let (conn, pmac, pip, remote) = peers[rng.below(3) as usize];
        let path = rng.below(8) as u8;
        let now = rng.next_u64() as u32;
        rtl.set("now", now as u64);
        let sport = 49152 + rng.below(16384) as u16;
        let psn = ferroce_proto::Psn::new(rng.next_u64() as u32);
        let addr = acfg.addressing(pmac, pip, sport);
        let t = if rng.chance(0.5) {
            let mut sack = [0u8; 32];
            sack.iter_mut().for_each(|b| *b = rng.next_u64() as u8);
            let a = wire::AckRepr {
                sack,
                ts_echo: rng.next_u64() as u32,
                rate_hint_mbps: 25_000,
                ecn_ce: rng.next_u64() as u16,
                acked_pkts: rng.next_u64() as u16,
            };
            rtl.io.set_words("ack_sack", &bytes_to_words(&sack));
            rtl.handshake(
                "ack_valid",
                "ack_ready",
                &[
                    ("ack_key", path_key(ConnId(conn as u16), path)),
                    ("ack_cum", psn.get() as u64),
                    ("ack_ts", a.ts_echo as u64),
                    ("ack_sport", sport as u64),
                    ("ack_pending", a.acked_pkts as u64),
                    ("ack_ce", a.ecn_ce as u64),
                ],
                &mem,
            );
            (wire::Opcode::Ack, StreamId(0), Body::Ack(a))
        } else {
            let n = wire::NakRepr {
                code: [wire::NakCode::Access, wire::NakCode::NoRecv, wire::NakCode::RecvTooSmall]
                    [rng.below(3) as usize],
                msg_seq: ferroce_proto::MsgSeq(rng.next_u64() as u32),
                info: 0,
            };
            let stream = StreamId(rng.below(8) as u16);
            rtl.handshake(
                "nak_valid",
                "nak_ready",
                &[
                    ("nak_key", path_key(ConnId(conn as u16), path)),
                    ("nak_psn", psn.get() as u64),
                    ("nak_stream", stream.0 as u64),
                    ("nak_msg_seq", n.msg_seq.0 as u64),
                    ("nak_code", n.code.code() as u64),
                    ("nak_sport", sport as u64),
                ],
                &mem,
            );
            (wire::Opcode::Nak, stream, Body::Nak(n))
        };
        let common = wire::CommonRepr {
            opcode: t.0,
            conn: ConnId(remote),
            path: ferroce_proto::PathId(path),
            psn,
            timestamp: now,
            stream: t.1,
            flags: 0,
            generation: 0,
        };
        let want = wire::encode(&addr, &wire::TransportRepr { common, body: t.2 }, &[]);
        rtl.settle(&mem);
        let got = rtl.frames.pop_front().unwrap_or_else(|| {
            panic!("request {i}: no frame ({} ACKs, {} NAKs sent)", rtl.get("cnt_tx_acks"), rtl.get("cnt_tx_naks"))
        });
        assert!(rtl.frames.is_empty(), "request {i}: one frame");
        assert!(
            got == want,
            "request {i}: RTL {:?}\n model {:?}",
            wire::parse(&got, wire::FERROCE_PORT),
            wire::parse(&want, wire::FERROCE_PORT)
        );
    }
    assert_eq!(rtl.get("cnt_tx_acks") + rtl.get("cnt_tx_naks"), 2_000);
    drop(rtl);
    let rec = ferroce_sim::verilator::take_recording("tx_path").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<tx_path_inputs>("tx_path", &rec, ACK_TEST_QUIET);
}

/// A transmit attempt passes over the connections whose `tx_mask` bit is
/// low (the engine's pacers hold them back), and `tx_sent_conn` and
/// `tx_sent_len` name each data frame's connection and payload.
#[test]
fn held_back_connections_do_not_send() {
    use ferroce_proto::Iova;
    let lib = model_lib();
    let mut rtl = TxRtl::new(&lib, 21);
    let mut mem = Memory::default();
    mem.add_region("src", Iova(0x1000_0000), 1 << 16, false);
    configure(&mut rtl, 0, 0);
    rtl.set("cfg_rto_min", 100_000);
    // Connections 5 and 9 (remote numbers 105 and 109), one path, one stream.
    for conn in [5u64, 9] {
        let ctl = [
            ("ctl_op", 0),
            ("ctl_conn", conn),
            ("ctl_remote", 100 + conn),
            ("ctl_mac", mac([2, 0, 0, 0, 1, conn as u8])),
            ("ctl_ip", 0x0a00_0100 + conn),
            ("ctl_paths", 1),
            ("ctl_streams", 1),
        ];
        rtl.handshake("ctl_valid", "ctl_ready", &ctl, &mem);
        let wr = [
            ("wr_key", stream_key(ConnId(conn as u16), 0)),
            ("wr_op", wire::Opcode::Write.code() as u64),
            ("wr_len", 3 * MTU as u64 - 100),
            ("wr_local", 0x1000_0000 + (conn << 12)),
            ("wr_remote", 0x8000),
            ("wr_rkey", 7),
            ("wr_imm", 0),
            ("wr_id", conn),
        ];
        rtl.handshake("wr_valid", "wr_ready", &wr, &mem);
    }
    rtl.settle(&mem);
    let remote_of = |f: &[u8]| wire::parse(f, wire::FERROCE_PORT).unwrap().transport.common.conn.0 as u64;
    // Nothing may send.
    assert_eq!(rtl.transmit(&mem), None, "every connection held back");
    // Only connection 9: its three packets, then nothing.
    rtl.set("tx_mask", 1 << 9);
    let lens = [MTU as u64, MTU as u64, MTU as u64 - 100];
    for len in lens {
        let f = rtl.transmit(&mem).expect("connection 9 sends");
        assert_eq!(remote_of(&f), 109);
        assert_eq!(rtl.last_sent, Some((9, len)), "tx_sent_conn and tx_sent_len");
    }
    assert_eq!(rtl.transmit(&mem), None, "connection 5 is still held back");
    // Both may send: connection 5's packets come out now.
    rtl.set("tx_mask", (1 << 5) | (1 << 9));
    for len in lens {
        let f = rtl.transmit(&mem).expect("connection 5 sends");
        assert_eq!(remote_of(&f), 105);
        assert_eq!(rtl.last_sent, Some((5, len)));
    }
    assert_eq!(rtl.transmit(&mem), None, "nothing left");
}

