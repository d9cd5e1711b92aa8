//! The `cc` RTL block in Verilator against `ferroce_proto::model::cc::Window`:
//! random ACK streams (newly acknowledged packets, CE echoes, RTTs, times)
//! over many path keys with random idle cycles; every window equals the
//! model's.

use std::collections::{HashMap, VecDeque};

use ferroce_proto::model::cc::Window;
use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{ModelLib, Sim};

const KEY_BITS: usize = ferroce_hdl::emit::PATH_KEY_BITS;

#[test]
fn windows_match_the_model_on_random_acks() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx::cc::Cc::<KEY_BITS>::default());
    let lib = ModelLib::build("cc", &v).expect("cc model builds");
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let p = |n: &str| s.port(n);
    let (in_valid, in_op, in_key) = (p("in_valid"), p("in_op"), p("in_key"));
    let (in_newly, in_ce, in_outstanding, in_srtt, in_now, in_max) =
        (p("in_newly"), p("in_ce"), p("in_outstanding"), p("in_srtt"), p("in_now"), p("in_max"));
    let (out_valid, out_key, out_cwnd, out_cut) = (p("out_valid"), p("out_key"), p("out_cwnd"), p("out_cut"));
    s.reset("reset", Some("ready"), 1 << 12);
    let keys = 1u64 << KEY_BITS;
    let mut rng = Rng::new(3);
    let mut max: HashMap<u64, u32> = HashMap::new();
    let mut model: HashMap<u64, Window> = HashMap::new();
    let mut expect: VecDeque<(u64, u32, bool)> = VecDeque::new();
    // Load every key first, some with small caps.
    let mut loads: VecDeque<u64> = (0..keys).collect();
    let mut now = 1_000u64;
    let (mut checked, mut cuts, mut grows) = (0u64, 0u64, 0u64);
    while checked < 100_000 {
        now += rng.below(300);
        if rng.chance(0.2) {
            s.set(in_valid, 0);
        } else if let Some(k) = loads.pop_front() {
            let m = if rng.chance(0.2) { 1 + rng.below(16) as u32 } else { 256 };
            max.insert(k, m);
            model.insert(k, Window::new(m));
            s.set(in_valid, 1);
            s.set(in_op, 1);
            s.set(in_key, k);
            s.set(in_max, m as u64);
        } else {
            let k = if rng.chance(0.5) { rng.below(4) } else { rng.below(keys) };
            let newly = if rng.chance(0.05) { rng.below(257) } else { rng.below(6) } as u32;
            let ce = if rng.chance(0.08) { 1 + rng.below(300) } else { 0 } as u32;
            let outstanding = rng.below(257) as u32;
            let w = model.get_mut(&k).expect("loaded");
            // Now and then exactly one RTT since the last cut: the boundary.
            let srtt = if rng.chance(0.2) { now - w.last_cut } else { 50 + rng.below(2000) };
            let before = w.cwnd;
            let cut = w.on_ack(now, newly, ce, outstanding, srtt, max[&k]);
            cuts += cut as u64;
            grows += (w.cwnd > before) as u64;
            expect.push_back((k, w.cwnd, cut));
            s.set(in_valid, 1);
            s.set(in_op, 0);
            s.set(in_key, k);
            s.set(in_newly, newly as u64);
            s.set(in_ce, ce as u64);
            s.set(in_outstanding, outstanding as u64);
            s.set(in_srtt, srtt);
            s.set(in_now, now);
            s.set(in_max, max[&k] as u64);
        }
        s.tick();
        if s.get(out_valid) == 1 {
            let (k, cwnd, cut) = expect.pop_front().expect("an output with no ACK behind it");
            assert_eq!(s.get(out_key), k, "key, ACK {checked}");
            assert_eq!(s.get(out_cwnd) as u32, cwnd, "cwnd, ACK {checked}, key {k}");
            assert_eq!(s.get(out_cut) == 1, cut, "cut, ACK {checked}, key {k}");
            checked += 1;
        }
    }
    assert!(cuts > 1_000 && grows > 1_000, "cuts {cuts}, increases {grows}");
}
