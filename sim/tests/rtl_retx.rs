//! The `retx` RTL block in Verilator against
//! `ferroce_proto::model::retx::PathLog`: random streams of sends,
//! ACKs (from a simulated lossy receiver, with reordered, stale and noisy
//! ones), retransmissions, timeouts, holds, tail probes and `rack`'s walk
//! (the lowest candidate, the next one above a PSN, declaring one lost)
//! over many path keys with random idle cycles. Every result (PSNs, newly
//! acknowledged sets and which of them were resent, lost counts,
//! outstanding, queued) equals the model's, so the exact set and order of
//! retransmit requests does.

use std::collections::{HashMap, VecDeque};

use ferroce_hdl::tx::retx::op;
use ferroce_proto::model::retx::PathLog;
use ferroce_proto::model::sack::{SackTracker, Verdict};
use ferroce_proto::rng::Rng;
use ferroce_proto::Psn;
use ferroce_sim::verilator::{ModelLib, Sim};

ferroce_sim::equivalence_inputs!(retx_inputs: ferroce_hdl::tx::retx::Retx<KEY_BITS>;
    reset, in_valid, in_op, in_key, in_psn, in_sack, in_resent_rule);
ferroce_sim::equivalence_inputs!(retx64_inputs: ferroce_hdl::tx::retx::Retx<KEY_BITS, 64>;
    reset, in_valid, in_op, in_key, in_psn, in_sack, in_resent_rule);
ferroce_sim::equivalence_inputs!(retx8_inputs: ferroce_hdl::tx::retx::Retx<KEY_BITS, 8>;
    reset, in_valid, in_op, in_key, in_psn, in_sack, in_resent_rule);

const KEY_BITS: usize = ferroce_hdl::emit::PATH_KEY_BITS;

#[derive(Debug, PartialEq, Eq)]
struct Out {
    key: u64,
    op: u64,
    ok: bool,
    psn: u32,
    newly: [u32; 8],
    rexmit: [u32; 8],
    resent: bool,
    count: u32,
    lost: u32,
    outstanding: u32,
    queued: bool,
    can_send: bool,
}

struct Path {
    log: PathLog,
    rx: SackTracker,
    acks: VecDeque<(Psn, [u8; 32])>,
}

fn deliver(p: &mut Path, psn: Psn) {
    if let Verdict::New { .. } = p.rx.classify(psn) {
        p.rx.accept(psn);
    }
    p.acks.push_back((p.rx.cum(), *p.rx.bitmap()));
}

#[test]
fn retransmit_state_matches_the_model() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx::retx::Retx::<KEY_BITS>::default());
    let lib = ModelLib::build("retx", &v).expect("retx model builds");
    ferroce_sim::verilator::record_next("retx", REPLAYED);
    drive(&lib, 256, 150_000);
    // The same Rust in rust-hdl's own simulator, on this test's first cycles.
    let rec = ferroce_sim::verilator::take_recording("retx").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<retx_inputs>("retx", &rec, &[]);
}

/// A build that keeps 64 PSNs in flight per path (the boards'): the same
/// traffic against a model path of window 64, whose ACKs' bitmaps (by PSN
/// mod 256, from a full-window receiver) it reads by PSN mod 64.
#[test]
fn a_64_packet_window_matches_the_model() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx::retx::Retx::<KEY_BITS, 64>::default());
    let lib = ModelLib::build("retx64", &v).expect("retx model builds");
    ferroce_sim::verilator::record_next("retx64", REPLAYED);
    drive(&lib, 64, 150_000);
    let rec = ferroce_sim::verilator::take_recording("retx64").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<retx64_inputs>("retx64", &rec, &[]);
}

/// The smallest window a build keeps (the Colorlight's `ecp5-25`): ACK
/// bitmaps folded onto 8 slots.
#[test]
fn an_8_packet_window_matches_the_model() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx::retx::Retx::<KEY_BITS, 8>::default());
    let lib = ModelLib::build("retx8", &v).expect("retx model builds");
    ferroce_sim::verilator::record_next("retx8", REPLAYED);
    // Fewer PSNs in flight lose fewer: more operations for as many losses.
    drive(&lib, 8, 200_000);
    let rec = ferroce_sim::verilator::take_recording("retx8").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<retx8_inputs>("retx8", &rec, &[]);
}

/// `ops` random operations on the block built from `lib` (window `w`), each
/// result checked against the model's.
fn drive(lib: &std::sync::Arc<ModelLib>, w: u32, ops: u64) {
    let mut s = Sim::new(lib);
    s.clock("clock");
    let p = |n: &str| s.port(n);
    let (in_valid, in_op, in_key, in_psn, in_sack, in_rule) =
        (p("in_valid"), p("in_op"), p("in_key"), p("in_psn"), p("in_sack"), p("in_resent_rule"));
    let outs = [
        "out_valid",
        "out_key",
        "out_op",
        "out_ok",
        "out_psn",
        "out_newly",
        "out_rexmit",
        "out_resent",
        "out_count",
        "out_lost",
        "out_outstanding",
        "out_queued",
        "out_can_send",
    ]
    .map(|n| s.port(n));
    s.reset("reset", Some("ready"), 1 << 12);
    let keys = 1u64 << KEY_BITS;
    let mut rng = Rng::new(77);
    let mut paths: HashMap<u64, Path> = HashMap::new();
    let mut expected: VecDeque<Out> = VecDeque::new();
    let mut loads: VecDeque<u64> = (0..keys).collect();
    let (mut checked, mut retx_taken, mut lost_found, mut rtos) = (0u64, 0u64, 0u64, 0u64);
    let (mut probes, mut newest, mut rule_decided) = (0u64, 0u64, 0u64);
    // rack's operations: candidates found (of them resent), PSNs declared
    // lost, newly acknowledged PSNs that were resent
    let (mut found, mut found_resent, mut declared, mut acked_resent) = (0u64, 0u64, 0u64, 0u64);
    // the last candidate found per key, for AFTER walks from it
    let mut last_found: HashMap<u64, Psn> = HashMap::new();
    while checked < ops {
        let mut issue: Option<(u64, u64, u32, [u8; 32])> = None;
        if !rng.chance(0.15) {
            if let Some(k) = loads.pop_front() {
                issue = Some((op::LOAD, k, (Psn::MODULUS - 300 + rng.below(600) as u32) % Psn::MODULUS, [0; 32]));
            } else {
                let k = if rng.chance(0.6) { rng.below(3) } else { rng.below(keys) };
                let path = paths.get_mut(&k).expect("loaded");
                let o = match rng.below(110) {
                    0..=39 => op::SEND,
                    40..=69 => op::ACK,
                    70..=87 => op::TAKE,
                    88 => op::RTO,
                    89..=94 => op::HOLD,
                    95..=96 => op::RELEASE,
                    97..=98 => op::PROBE,
                    99 => op::LOAD,
                    100..=103 => op::FIRST,
                    104..=106 => op::AFTER,
                    _ => op::LOSE,
                };
                let (psn, sack) = match o {
                    op::ACK => {
                        let (mut cum, mut sack) = path.acks.pop_front().unwrap_or((path.rx.cum(), *path.rx.bitmap()));
                        if rng.chance(0.05) {
                            cum = cum.add(rng.below(40) as u32).add(Psn::MODULUS - 20);
                            // stale or ahead
                        }
                        if rng.chance(0.05) {
                            sack[rng.below(32) as usize] ^= 1 << rng.below(8); // noise
                        }
                        (cum.get(), sack)
                    }
                    op::HOLD | op::RELEASE => {
                        (path.log.una().add(rng.below(path.log.span() as u64 + 3) as u32).get(), [0; 32])
                    }
                    // Mostly one past the last candidate found (a walk's
                    // step), else anywhere around the window.
                    op::AFTER | op::LOSE => match last_found.get(&k) {
                        Some(f) if rng.chance(0.7) => (f.add(1 - (o == op::LOSE) as u32).get(), [0; 32]),
                        _ => (
                            path.log.una().add(Psn::MODULUS - 2).add(rng.below(path.log.span() as u64 + 5) as u32).get(),
                            [0; 32],
                        ),
                    },
                    op::LOAD => (rng.next_u64() as u32 & 0xff_ffff, [0; 32]),
                    _ => (0, [0; 32]),
                };
                issue = Some((o, k, psn, sack));
            }
        }
        if let Some((o, k, psn, sack)) = issue {
            let rule = !rng.chance(0.3);
            if o == op::LOAD {
                paths.insert(
                    k,
                    Path {
                        log: PathLog::with_window(Psn::new(psn), w),
                        rx: SackTracker::starting_at(Psn::new(psn)),
                        acks: VecDeque::new(),
                    },
                );
            }
            let path = paths.get_mut(&k).expect("loaded");
            let mut e = Out {
                key: k,
                op: o,
                ok: false,
                psn: 0,
                newly: [0; 8],
                rexmit: [0; 8],
                resent: false,
                count: 0,
                lost: 0,
                outstanding: 0,
                queued: false,
                can_send: false,
            };
            match o {
                op::LOAD => e.ok = true,
                op::SEND => {
                    if path.log.can_send() {
                        let p = path.log.send_new();
                        e.ok = true;
                        e.psn = p.get();
                        if !rng.chance(0.12) {
                            deliver(path, p);
                        }
                    }
                }
                op::ACK => {
                    // The marker rule for resent PSNs (on unless repairs
                    // take other routes): count the ACKs where it decides.
                    let mut other = path.log;
                    let other_lost = other.on_ack_with(Psn::new(psn), &sack, !rule).map(|r| r.lost);
                    let r = path.log.on_ack_with(Psn::new(psn), &sack, rule);
                    rule_decided += (r.as_ref().map(|r| r.lost) != other_lost) as u64;
                    if let Some(r) = r {
                        e.ok = true;
                        for p in &r.newly {
                            let slot = p.get() as usize % w as usize;
                            e.newly[slot / 32] |= 1 << (slot % 32);
                            if path.log.was_resent(*p) {
                                e.rexmit[slot / 32] |= 1 << (slot % 32);
                                acked_resent += 1;
                            }
                        }
                        e.count = r.newly.len() as u32;
                        e.lost = r.lost;
                        lost_found += r.lost as u64;
                    }
                }
                op::TAKE => {
                    if let Some(p) = path.log.take_retx() {
                        e.ok = true;
                        e.psn = p.get();
                        retx_taken += 1;
                        if !rng.chance(0.25) {
                            deliver(path, p);
                        }
                    }
                }
                op::RTO => {
                    e.ok = true;
                    e.count = path.log.on_rto();
                    rtos += 1;
                }
                op::HOLD => e.ok = path.log.hold(Psn::new(psn)),
                op::RELEASE => e.ok = path.log.release(Psn::new(psn)),
                op::PROBE => {
                    if let Some(p) = path.log.probe_psn() {
                        e.ok = path.log.lose(p);
                        e.psn = p.get();
                        probes += e.ok as u64;
                        newest += (p.get() == path.log.next().add(Psn::MODULUS - 1).get()) as u64;
                    }
                }
                op::FIRST | op::AFTER => {
                    // AFTER: from a PSN in flight on; the model's candidates
                    // run from una up.
                    let una = path.log.una();
                    let from = Psn::new(psn).get().wrapping_sub(una.get()) & (Psn::MODULUS - 1);
                    let c = if o == op::FIRST {
                        path.log.candidates().next()
                    } else if from < path.log.span() {
                        path.log.candidates().find(|x| x.get().wrapping_sub(una.get()) & (Psn::MODULUS - 1) >= from)
                    } else {
                        None
                    };
                    if let Some(c) = c {
                        e.ok = true;
                        e.psn = c.get();
                        e.resent = path.log.was_resent(c);
                        found += 1;
                        found_resent += e.resent as u64;
                        last_found.insert(k, c);
                    }
                }
                op::LOSE => {
                    e.ok = path.log.lose(Psn::new(psn));
                    declared += e.ok as u64;
                }
                _ => unreachable!(),
            }
            e.outstanding = path.log.outstanding();
            e.queued = path.log.has_queued();
            e.can_send = path.log.can_send();
            expected.push_back(e);
            s.set(in_valid, 1);
            s.set(in_op, o);
            s.set(in_key, k);
            s.set(in_psn, psn as u64);
            s.set(in_rule, rule as u64);
            let words: Vec<u32> =
                (0..8).map(|i| u32::from_le_bytes(sack[4 * i..4 * i + 4].try_into().unwrap())).collect();
            s.set_words(in_sack, &words);
        } else {
            s.set(in_valid, 0);
        }
        s.tick();
        if s.get(outs[0]) == 1 {
            let nw = s.get_words(outs[5]);
            let rw = s.get_words(outs[6]);
            let got = Out {
                key: s.get(outs[1]),
                op: s.get(outs[2]),
                ok: s.get(outs[3]) == 1,
                psn: s.get(outs[4]) as u32,
                newly: nw.try_into().unwrap(),
                rexmit: rw.try_into().unwrap(),
                resent: s.get(outs[7]) == 1,
                count: s.get(outs[8]) as u32,
                lost: s.get(outs[9]) as u32,
                outstanding: s.get(outs[10]) as u32,
                queued: s.get(outs[11]) == 1,
                can_send: s.get(outs[12]) == 1,
            };
            let want = expected.pop_front().expect("an output with no operation behind it");
            assert_eq!(got, want, "operation {checked}");
            checked += 1;
        }
    }
    assert!(
        retx_taken > 5_000 && lost_found > 3_000 && rtos > 1_000,
        "retx {retx_taken}, lost {lost_found}, rtos {rtos}"
    );
    assert!(rule_decided > 100, "the marker rule decided {rule_decided} ACKs");
    // Tail probes of both kinds: the newest PSN, and the oldest candidate.
    assert!(probes > 1_000 && newest > 500 && probes - newest > 50, "probes {probes}, of the newest {newest}");
    // rack's walk: candidates found, resent ones among them, PSNs declared
    // lost, resent PSNs acknowledged.
    eprintln!("rack: {found} candidates found ({found_resent} resent), {declared} lost, {acked_resent} resent acked");
    assert!(
        found > 2_000 && found_resent > 200 && declared > 500 && acked_resent > 500,
        "found {found} ({found_resent} resent), declared {declared}, resent acked {acked_resent}"
    );
}

/// Cycles of the main test's traffic replayed into rust-hdl's simulator.
const REPLAYED: u64 = 4000;
