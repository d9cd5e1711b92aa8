//! The `pacer` RTL block in Verilator against
//! `ferroce_proto::model::cc::Pacer`: random rates, sends and queries on
//! many connections with random idle cycles.

use std::collections::{HashMap, VecDeque};

use ferroce_proto::model::cc::Pacer;
use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{ModelLib, Sim};

const KEY_BITS: usize = ferroce_hdl::emit::CONN_KEY_BITS;

#[test]
fn pacing_matches_the_model() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::engine::pacer::Pacer::<KEY_BITS>::default());
    let lib = ModelLib::build("pacer", &v).expect("pacer model builds");
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let p = |s: &Sim, n: &str| s.port(n);
    let (in_valid, in_op, in_key, in_now, in_cost, in_bytes) =
        (p(&s, "in_valid"), p(&s, "in_op"), p(&s, "in_key"), p(&s, "in_now"), p(&s, "in_cost"), p(&s, "in_bytes"));
    let (out_valid, out_key, out_may, out_ready_at) =
        (p(&s, "out_valid"), p(&s, "out_key"), p(&s, "out_may"), p(&s, "out_ready_at"));
    s.reset("reset", Some("ready"), 1 << 12);
    let keys = 1u64 << KEY_BITS;
    let mut rng = Rng::new(12);
    let mut model: HashMap<u64, Pacer> = (0..keys).map(|k| (k, Pacer::new(0))).collect();
    let mut expected: VecDeque<(u64, bool, u64)> = VecDeque::new();
    let mut now = 1u64 << 30;
    let (mut checked, mut allowed, mut held) = (0, 0, 0);
    while checked < 100_000 {
        now += rng.below(20);
        if rng.chance(0.2) {
            s.set(in_valid, 0);
        } else {
            let k = if rng.chance(0.6) { rng.below(2) } else { rng.below(keys) };
            let op = match rng.below(100) {
                0..=1 => 0,
                2..=6 => 1,
                7..=59 => 2,
                _ => 3,
            };
            // Rates from 1 Gb/s to 400 Gb/s at a 250 MHz clock.
            let cost = Pacer::cost_q16(1_000 + rng.below(399_000) as u32, 250);
            let bytes = 60 + rng.below(9100);
            let m = model.get_mut(&k).expect("every key");
            let may = m.may_send(now);
            match op {
                0 => *m = Pacer::new(cost),
                1 => m.set_cost(cost),
                2 => m.on_send(now, bytes),
                _ => {}
            }
            expected.push_back((k, may, m.ready_at()));
            allowed += may as u32;
            held += !may as u32;
            s.set(in_valid, 1);
            s.set(in_op, op);
            s.set(in_key, k);
            s.set(in_now, now);
            s.set(in_cost, cost);
            s.set(in_bytes, bytes);
        }
        s.tick();
        if s.get(out_valid) == 1 {
            let (k, may, ready_at) = expected.pop_front().expect("an output with no operation behind it");
            assert_eq!(s.get(out_key), k, "op {checked}");
            assert_eq!(s.get(out_may) == 1, may, "op {checked}: may send");
            assert_eq!(s.get(out_ready_at), ready_at, "op {checked}: ready at");
            checked += 1;
        }
    }
    assert!(allowed > 10_000 && held > 10_000, "allowed {allowed}, held {held}");
}
