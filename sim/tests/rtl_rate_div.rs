//! The `rate_div` RTL block in Verilator against
//! `ferroce_proto::model::cc::Pacer::cost_q16`.

use ferroce_proto::model::cc::Pacer;
use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{ModelLib, Sim};

#[test]
fn costs_match_the_model() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::engine::rate_div::RateDiv::default());
    let lib = ModelLib::build("rate_div", &v).expect("rate_div model builds");
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let p = |s: &Sim, n: &str| s.port(n);
    let (reset, in_valid, in_ready, rate, clock_mhz, out_valid, out_cost) = (
        p(&s, "reset"),
        p(&s, "in_valid"),
        p(&s, "in_ready"),
        p(&s, "in_rate_mbps"),
        p(&s, "in_clock_mhz"),
        p(&s, "out_valid"),
        p(&s, "out_cost"),
    );
    s.set(reset, 1);
    s.tick();
    s.set(reset, 0);
    let mut rng = Rng::new(5);
    let edge = [0u32, 1, 2, 3, 7, 1000, 100_000, 400_000, u32::MAX];
    for n in 0..5_000 {
        let r = if n < edge.len() {
            edge[n]
        } else if rng.chance(0.5) {
            rng.below(1_000_000) as u32
        } else {
            rng.next_u64() as u32
        };
        let f = if rng.chance(0.2) { [1u16, 65535][rng.below(2) as usize] } else { 50 + rng.below(500) as u16 };
        while s.get(in_ready) == 0 {
            s.tick();
        }
        s.set(in_valid, 1);
        s.set(rate, r as u64);
        s.set(clock_mhz, f as u64);
        s.tick();
        s.set(in_valid, 0);
        let mut cycles = 0;
        while s.get(out_valid) == 0 {
            s.tick();
            cycles += 1;
            assert!(cycles <= 41, "conversion {n} takes 40 cycles");
        }
        assert_eq!(s.get(out_cost), Pacer::cost_q16(r, f as u64), "rate {r} Mb/s at {f} MHz");
    }
}
