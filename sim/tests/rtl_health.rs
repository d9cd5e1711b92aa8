//! The `health` RTL block in Verilator against
//! `ferroce_proto::model::health::Health`: random sends, ACKs (with and
//! without progress and losses) and timeouts over many paths, with the
//! re-path threshold (`in_loss_shift`) changing from event to event; each
//! result with the path's losses in its epoch and timeouts in a row.

use std::collections::{HashMap, VecDeque};

use ferroce_proto::model::health::Health;
use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{ModelLib, Sim};

const KEY_BITS: usize = ferroce_hdl::emit::PATH_KEY_BITS;

#[test]
fn health_matches_the_model() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx::health::PathHealth::<KEY_BITS>::default());
    let lib = ModelLib::build("health", &v).expect("health model builds");
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let names = [
        "reset",
        "ready",
        "in_valid",
        "in_op",
        "in_key",
        "in_newly",
        "in_lost",
        "in_repath_after",
        "in_retire_after",
        "in_loss_shift",
        "out_valid",
        "out_key",
        "out_repath",
        "out_retired",
        "out_lost",
        "out_rtos",
    ];
    let p: HashMap<&str, _> = names.iter().map(|n| (*n, s.port(n))).collect();
    s.reset("reset", Some("ready"), 1 << 12);
    let mut rng = Rng::new(8);
    let mut model: HashMap<u64, Health> = HashMap::new();
    let mut expected: VecDeque<(u64, bool, bool, u64, u64)> = VecDeque::new();
    let (mut checked, mut repaths, mut retired, mut most_lost, mut most_rtos) = (0, 0, 0, 0, 0);
    while checked < 100_000 {
        if rng.chance(0.2) {
            s.set(p["in_valid"], 0);
        } else {
            let k = if rng.chance(0.5) { rng.below(3) } else { rng.below(1 << KEY_BITS) };
            let h = model.entry(k).or_default();
            let op = match rng.below(100) {
                0..=69 => 0,
                70..=95 => 1,
                _ => 2,
            };
            let newly = if rng.chance(0.3) { 0 } else { rng.below(9) } as u32;
            let lost = if rng.chance(0.7) { 0 } else { rng.below(12) } as u32;
            let (repath_after, retire_after) = (1 + rng.below(3) as u32, 2 + rng.below(4) as u32);
            // The re-path threshold (`control.recovery`), any of its values.
            let shift = rng.below(8) as u32;
            let repath = match op {
                0 => {
                    h.on_send();
                    false
                }
                1 => h.on_ack_with(newly, lost, shift),
                _ => h.on_rto(repath_after, retire_after),
            };
            repaths += repath as u32;
            retired += h.retired as u32;
            most_lost = most_lost.max(h.epoch_lost);
            most_rtos = most_rtos.max(h.rtos_in_row);
            expected.push_back((k, repath, h.retired, h.epoch_lost as u64, h.rtos_in_row as u64));
            for (n, v) in [
                ("in_valid", 1),
                ("in_op", op),
                ("in_key", k),
                ("in_newly", newly as u64),
                ("in_lost", lost as u64),
                ("in_repath_after", repath_after as u64),
                ("in_retire_after", retire_after as u64),
                ("in_loss_shift", shift as u64),
            ] {
                s.set(p[n], v);
            }
        }
        s.tick();
        if s.get(p["out_valid"]) == 1 {
            let want = expected.pop_front().expect("an output with no event behind it");
            let got = (
                s.get(p["out_key"]),
                s.get(p["out_repath"]) == 1,
                s.get(p["out_retired"]) == 1,
                s.get(p["out_lost"]),
                s.get(p["out_rtos"]),
            );
            assert_eq!(got, want, "event {checked}");
            checked += 1;
        }
    }
    assert!(repaths > 1_000 && retired > 1_000, "repaths {repaths}, retired {retired}");
    assert!(most_lost > 20 && most_rtos > 3, "losses in an epoch up to {most_lost}, timeouts in a row up to {most_rtos}");
}
