//! The timer blocks in Verilator. `rto_timer`: random arming, re-arming
//! and disarming across the 32-bit wrap of the time base; every arming
//! fires exactly once unless replaced, never before its deadline and within
//! one scan round after it. `ack_timer`: the same with deadlines in arming
//! order, each firing within 3 cycles of its deadline.

use std::collections::HashMap;

use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{ModelLib, Sim};

const KEY_BITS: usize = ferroce_hdl::emit::PATH_KEY_BITS;

#[derive(Clone, Copy, Debug)]
struct Armed {
    deadline: u32,
    armed_at: u64,
    fired: bool,
}

#[test]
fn timers_fire_once_after_their_deadline_within_a_round() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::engine::rto_timer::RtoTimer::<KEY_BITS>::default());
    let lib = ModelLib::build("rto_timer", &v).expect("rto_timer model builds");
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let p = |s: &Sim, n: &str| s.port(n);
    let (now_p, set_valid, set_key, set_arm, set_deadline, fire_valid, fire_key) = (
        p(&s, "now"),
        p(&s, "set_valid"),
        p(&s, "set_key"),
        p(&s, "set_arm"),
        p(&s, "set_deadline"),
        p(&s, "fire_valid"),
        p(&s, "fire_key"),
    );
    s.reset("reset", Some("ready"), 1 << 12);
    let round = (1u64 << KEY_BITS) + 3;
    let base: u32 = 0xffff_0000; // crosses the 32-bit wrap early on
    let mut rng = Rng::new(9);
    let mut timers: HashMap<u64, Armed> = HashMap::new();
    let (mut fires, mut replaced) = (0u64, 0u64);
    for c in 0..400_000u64 {
        let now = base.wrapping_add(c as u32);
        s.set(now_p, now as u64);
        let set = rng.chance(0.1);
        s.set(set_valid, set as u64);
        if set {
            let k = if rng.chance(0.5) { rng.below(4) } else { rng.below(1 << KEY_BITS) };
            let arm = !rng.chance(0.2);
            let deadline = if rng.chance(0.1) {
                now.wrapping_sub(rng.below(100) as u32)
            } else {
                now.wrapping_add(rng.below(3000) as u32)
            };
            s.set(set_key, k);
            s.set(set_arm, arm as u64);
            s.set(set_deadline, deadline as u64);
            if let Some(t) = timers.get(&k) {
                replaced += !t.fired as u64;
            }
            if arm {
                timers.insert(k, Armed { deadline, armed_at: c, fired: false });
            } else {
                timers.remove(&k);
            }
        }
        s.tick();
        if s.get(fire_valid) == 1 {
            let k = s.get(fire_key);
            let t = timers.get_mut(&k).unwrap_or_else(|| panic!("cycle {c}: key {k} fired while disarmed"));
            assert!(!t.fired, "cycle {c}: key {k} fired twice for one arming");
            let late = now.wrapping_sub(t.deadline) as i32;
            assert!(late >= 0, "cycle {c}: key {k} fired {} before its deadline", -late);
            t.fired = true;
            fires += 1;
        }
        for (k, t) in &timers {
            if t.fired {
                continue;
            }
            // When it became due, in cycles since the start.
            let due_in = t.deadline.wrapping_sub(base.wrapping_add(t.armed_at as u32)) as i32;
            let due = if due_in > 0 { t.armed_at + due_in as u64 } else { t.armed_at };
            assert!(c <= due + round, "cycle {c}: key {k} due at {due} has not fired");
        }
    }
    assert!(fires > 5_000 && replaced > 1_000, "fires {fires}, replaced {replaced}");
}

/// `ack_timer` (the receiver's ACK timers, deadlines in arming order):
/// armings at now + a constant delay, re-armed and disarmed at random
/// across the 32-bit wrap. While fewer than the queue's size wait, every
/// arming not replaced fires exactly once, never before its deadline and at
/// most 3 cycles after it; with more armings than the queue holds (a long
/// delay) the oldest fire early, and still none is lost or fires twice.
#[test]
fn ack_timers_fire_at_their_deadline_in_arming_order() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::emit::AckTimerOfCorundum::default());
    let lib = ModelLib::build("ack_timer", &v).expect("ack_timer model builds");
    let queue = 1u64 << ferroce_proto::config::EngineConfig::CORUNDUM.ack_queue_bits();
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let p = |s: &Sim, n: &str| s.port(n);
    let (now_p, set_valid, set_key, set_arm, set_deadline, fire_valid, fire_key) = (
        p(&s, "now"),
        p(&s, "set_valid"),
        p(&s, "set_key"),
        p(&s, "set_arm"),
        p(&s, "set_deadline"),
        p(&s, "fire_valid"),
        p(&s, "fire_key"),
    );
    s.reset("reset", Some("ready"), 1 << 12);
    let base: u32 = 0xfffe_0000; // crosses the 32-bit wrap early on
    let mut rng = Rng::new(5);
    let mut timers: HashMap<u64, Armed> = HashMap::new();
    // (delay in cycles, chance of a set per cycle, cycles): about 30
    // armings waiting, then about 1 000 (more than the queue holds).
    let phases = [(300u32, 0.1, 200_000u64), (10_000, 0.1, 100_000)];
    let (mut c, mut fires, mut early, mut replaced) = (0u64, [0u64; 2], 0u64, 0u64);
    for (phase, &(delay, chance, cycles)) in phases.iter().enumerate() {
        let crowded = phase == 1;
        // the last phase drains: no sets in its last delay + 100 cycles
        for i in 0..cycles + delay as u64 + 100 {
            let now = base.wrapping_add(c as u32);
            s.set(now_p, now as u64);
            let set = i < cycles && rng.chance(chance);
            s.set(set_valid, set as u64);
            if set {
                let k = if rng.chance(0.3) { rng.below(8) } else { rng.below(1 << KEY_BITS) };
                let arm = !rng.chance(0.1);
                let deadline = now.wrapping_add(delay);
                s.set(set_key, k);
                s.set(set_arm, arm as u64);
                s.set(set_deadline, deadline as u64);
                if let Some(t) = timers.get(&k) {
                    replaced += !t.fired as u64;
                }
                if arm {
                    timers.insert(k, Armed { deadline, armed_at: c, fired: false });
                } else {
                    timers.remove(&k);
                }
            }
            s.tick();
            if s.get(fire_valid) == 1 {
                let k = s.get(fire_key);
                let t = timers.get_mut(&k).unwrap_or_else(|| panic!("cycle {c}: key {k} fired while disarmed"));
                assert!(!t.fired, "cycle {c}: key {k} fired twice for one arming");
                let late = now.wrapping_sub(t.deadline) as i32;
                assert!(late >= 0 || crowded, "cycle {c}: key {k} fired {} before its deadline", -late);
                assert!(late <= 3 || crowded, "cycle {c}: key {k} fired {late} cycles after its deadline");
                early += (late < 0) as u64;
                t.fired = true;
                fires[phase] += 1;
            }
            for (k, t) in &timers {
                assert!(
                    t.fired || c <= t.armed_at + delay as u64 + 3,
                    "cycle {c}: key {k} armed at {} has not fired",
                    t.armed_at
                );
            }
            c += 1;
        }
    }
    assert!(timers.values().all(|t| t.fired), "armings left unfired");
    assert!(
        fires[0] > 10_000 && fires[1] > 5_000 && replaced > 1_000 && early > 5_000,
        "fires {fires:?}, replaced {replaced}, early {early} (queue of {queue})"
    );
}
