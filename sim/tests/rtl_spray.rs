//! The `spray` RTL block in Verilator against `ferroce_proto::model::spray`:
//! path choices on random candidates with random idle cycles, and the
//! source-port sequence including the "different from the old port" rule.

use ferroce_proto::model::spray::{pick, Candidate, PortGen};
use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{ModelLib, Sim};

fn sim() -> Sim {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx::spray::Spray::default());
    let lib = ModelLib::build("spray", &v).expect("spray model builds");
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let r = s.port("reset");
    s.set(r, 1);
    s.tick();
    s.set(r, 0);
    s
}

#[test]
fn path_choice_matches_the_model() {
    let mut s = sim();
    let p = |n: &str| s.port(n);
    let (pick_valid, present, span_ok, retired, free, rr) =
        (p("pick_valid"), p("present"), p("span_ok"), p("retired"), p("free"), p("rr"));
    let (out_valid, out_found, out_path) = (p("out_valid"), p("out_found"), p("out_path"));
    let mut rng = Rng::new(11);
    let (mut checked, mut found, mut ties) = (0, 0, 0);
    while checked < 100_000 {
        let pending = if !rng.chance(0.2) {
            let n = 1 + rng.below(16) as usize;
            let mut c = [Candidate::default(); 16];
            // Now and then every path retired: the fallback rule.
            let p_retired = if rng.chance(0.1) { 1.0 } else { 0.2 };
            for x in c.iter_mut().take(n) {
                *x = Candidate {
                    present: true,
                    // Few distinct values so that ties are common.
                    free: if rng.chance(0.9) { rng.below(4) as u32 } else { rng.below(257) as u32 },
                    span_ok: !rng.chance(0.1),
                    retired: rng.chance(p_retired),
                };
            }
            let start = rng.below(n as u64) as usize;
            let bits =
                |f: &dyn Fn(&Candidate) -> bool| c.iter().enumerate().fold(0u64, |a, (i, x)| a | ((f(x) as u64) << i));
            s.set(present, bits(&|x| x.present));
            s.set(span_ok, bits(&|x| x.span_ok));
            s.set(retired, bits(&|x| x.retired));
            let mut words = [0u32; 5];
            for (i, x) in c.iter().enumerate() {
                for b in 0..9 {
                    if x.free >> b & 1 == 1 {
                        let bit = 9 * i + b;
                        words[bit / 32] |= 1 << (bit % 32);
                    }
                }
            }
            s.set_words(free, &words);
            s.set(rr, start as u64);
            let want = pick(&c[..n], start);
            let best = c[..n].iter().filter(|x| x.present && x.span_ok && x.free > 0).map(|x| x.free).max();
            if best.is_some_and(|b| c[..n].iter().filter(|x| x.free == b).count() > 1) {
                ties += 1;
            }
            s.set(pick_valid, 1);
            s.tick();
            Some(want)
        } else {
            s.set(pick_valid, 0);
            s.tick();
            None
        };
        assert_eq!(s.get(out_valid) == 1, pending.is_some(), "out_valid follows pick_valid by one cycle");
        if let Some(want) = pending {
            assert_eq!(s.get(out_found) == 1, want.is_some(), "found, choice {checked}");
            if let Some(w) = want {
                assert_eq!(s.get(out_path) as usize, w, "path, choice {checked}");
                found += 1;
            }
            checked += 1;
        }
    }
    assert!(found > 50_000 && ties > 20_000, "found {found}, ties {ties}");
}

#[test]
fn source_ports_follow_the_model_sequence() {
    let mut s = sim();
    let p = |n: &str| s.port(n);
    let (seed_valid, seed, port_req, port_avoid, port_busy, port_valid, port) =
        (p("seed_valid"), p("seed"), p("port_req"), p("port_avoid"), p("port_busy"), p("port_valid"), p("port"));
    let mut rng = Rng::new(5);
    let seed_value = 0xdead_beef;
    s.set(seed_valid, 1);
    s.set(seed, seed_value);
    s.tick();
    s.set(seed_valid, 0);
    let mut model = PortGen::new(seed_value as u32);
    let mut avoided = 0;
    for n in 0..5_000 {
        // Sometimes ask to avoid exactly the port that comes next.
        let mut peek = model;
        let next = peek.next_port(0);
        let avoid = if rng.chance(0.3) { next } else { rng.next_u64() as u16 };
        avoided += (avoid == next) as u32;
        let want = model.next_port(avoid);
        s.set(port_req, 1);
        s.set(port_avoid, avoid as u64);
        s.tick();
        s.set(port_req, 0);
        let mut cycles = 0;
        while s.get(port_valid) == 0 {
            assert_eq!(s.get(port_busy), 1, "busy until the port is out");
            s.tick();
            cycles += 1;
            assert!(cycles < 100, "request {n} never answered");
        }
        assert_eq!(s.get(port) as u16, want, "port {n}");
        assert!(s.get(port_busy) == 0);
        for _ in 0..rng.below(3) {
            s.tick();
        }
    }
    assert!(avoided > 1000);
}
