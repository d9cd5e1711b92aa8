//! The detector the RTL will use for `Recovery::rack` (docs/protocol.md,
//! "Connection-level loss detection"): walking a path's candidates from
//! `una`, queueing the lost ones, passing over resent ones that are not
//! lost and stopping at the first original (never resent) that is not
//! lost. On one path the originals were sent in PSN order and a resent
//! PSN was resent after every original below it was sent, so nothing
//! above that original can be lost: the walk finds exactly the set the
//! model's scan of every candidate finds, in the same order. Checked here
//! on random traffic of one path (sends, lossy delivery, ACKs, resends,
//! losses declared), at many detection points. Before the walk, the
//! path's newest packet in flight: a candidate sent within the window
//! makes the path wait for its ACK (nothing is lost on it yet).

use std::collections::VecDeque;

use ferroce_proto::model::recovery::rack_lost;
use ferroce_proto::model::retx::PathLog;
use ferroce_proto::model::sack::{SackTracker, Verdict};
use ferroce_proto::rng::Rng;
use ferroce_proto::Psn;

/// Does the path wait for its newest packet's ACK (newest in flight a
/// candidate sent within the window)?
fn waits(log: &PathLog, sent: &[u64; 256], rack_ts: u64, reo: u64) -> bool {
    log.newest_candidate().is_some_and(|n| !rack_lost(sent[n.slot()], rack_ts, reo))
}

/// The model's rule: unless the path waits, every candidate whose send
/// time plus the window is before `rack_ts`.
fn scan(log: &PathLog, sent: &[u64; 256], rack_ts: u64, reo: u64) -> Vec<Psn> {
    if waits(log, sent, rack_ts, reo) {
        return Vec::new();
    }
    log.candidates().filter(|p| rack_lost(sent[p.slot()], rack_ts, reo)).collect()
}

/// The walk, and how many candidates it looked at: the newest in flight
/// first (the RTL asks `retx` for the first candidate at or after it),
/// then from `una` up.
fn walk(log: &PathLog, sent: &[u64; 256], rack_ts: u64, reo: u64) -> (Vec<Psn>, usize) {
    let (mut lost, mut looked) = (Vec::new(), 0);
    let newest = log.next().add(Psn::MODULUS - 1);
    if let Some(n) = log.candidates().find(|p| p.diff(newest) >= 0) {
        if !rack_lost(sent[n.slot()], rack_ts, reo) {
            return (lost, looked);
        }
    }
    for p in log.candidates() {
        looked += 1;
        if rack_lost(sent[p.slot()], rack_ts, reo) {
            lost.push(p);
        } else if !log.was_resent(p) {
            break;
        }
    }
    (lost, looked)
}

#[test]
fn the_walk_finds_what_the_scan_finds() {
    let mut rng = Rng::new(21);
    let (mut checks, mut found, mut passed_resent, mut stopped_early, mut waited) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for round in 0..40 {
        let start = Psn::new(((round as u64 * 0x9e37_79b9) % (1 << 24)) as u32);
        let mut log = PathLog::starting_at(start);
        let mut rx = SackTracker::starting_at(start);
        let mut acks: VecDeque<(Psn, [u8; 32])> = VecDeque::new();
        let mut sent = [0u64; 256];
        let mut now = 1_000u64;
        for _ in 0..4_000 {
            now += 1 + rng.below(3);
            let deliver = |rx: &mut SackTracker, acks: &mut VecDeque<_>, p: Psn, rng: &mut Rng| {
                if rng.chance(0.85) {
                    if let Verdict::New { .. } = rx.classify(p) {
                        rx.accept(p);
                    }
                    acks.push_back((rx.cum(), *rx.bitmap()));
                }
            };
            match rng.below(10) {
                0..=3 if log.can_send() => {
                    let p = log.send_new();
                    sent[p.slot()] = now;
                    deliver(&mut rx, &mut acks, p, &mut rng);
                }
                4..=5 => {
                    if let Some(p) = log.take_retx() {
                        sent[p.slot()] = now;
                        deliver(&mut rx, &mut acks, p, &mut rng);
                    }
                }
                6..=7 => {
                    // ACKs arrive late and some are lost.
                    let n = rng.below(acks.len() as u64 + 1) as usize;
                    for _ in 0..n {
                        let (cum, sack) = acks.pop_front().expect("queued");
                        if rng.chance(0.9) {
                            log.on_ack(cum, &sack);
                        }
                    }
                }
                _ => {
                    // A detection point: the latest acknowledged send time
                    // somewhere in the recent past, windows of 0 to 30;
                    // half of them with the newest packet in flight most
                    // likely outside the window (so the path does not wait).
                    let (rack_ts, reo) = if rng.chance(0.5) {
                        (now.saturating_sub(rng.below(60)), rng.below(30))
                    } else {
                        (now, rng.below(3))
                    };
                    let want = scan(&log, &sent, rack_ts, reo);
                    let (got, looked) = walk(&log, &sent, rack_ts, reo);
                    assert_eq!(got, want, "round {round} at {now}: rack_ts {rack_ts}, window {reo}");
                    checks += 1;
                    waited += waits(&log, &sent, rack_ts, reo) as u64;
                    found += got.len() as u64;
                    passed_resent += log.candidates().take(looked).filter(|p| log.was_resent(*p)).count() as u64;
                    stopped_early += (looked < log.candidates().count()) as u64;
                    // The detector's losses are queued, as the model does.
                    if rng.chance(0.5) {
                        for p in got {
                            log.lose(p);
                        }
                    }
                }
            }
        }
    }
    assert!(
        checks > 20_000 && found > 10_000 && passed_resent > 10_000 && stopped_early > 10_000 && waited > 10_000,
        "checks {checks}, found {found}, resent passed {passed_resent}, stopped early {stopped_early}, \
         waited {waited}"
    );
}
