//! The `ack_gen` RTL block in Verilator against
//! `ferroce_proto::model::ackgen::AckState`: random packet and timer events
//! over many paths with random idle cycles.

use std::collections::{HashMap, VecDeque};

use ferroce_hdl::rx::ack_gen::action;
use ferroce_proto::model::ackgen::{AckAction, AckState};
use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{ModelLib, Sim};

const KEY_BITS: usize = ferroce_hdl::emit::PATH_KEY_BITS;

#[test]
fn coalescing_matches_the_model() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::rx::ack_gen::AckGen::<KEY_BITS>::default());
    let lib = ModelLib::build("ack_gen", &v).expect("ack_gen model builds");
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let p = |s: &Sim, n: &str| s.port(n);
    let (in_valid, in_op, in_key, in_urgent, in_ce, in_every) =
        (p(&s, "in_valid"), p(&s, "in_op"), p(&s, "in_key"), p(&s, "in_urgent"), p(&s, "in_ce"), p(&s, "in_ack_every"));
    let (out_valid, out_key, out_action, out_pending, out_ce) =
        (p(&s, "out_valid"), p(&s, "out_key"), p(&s, "out_action"), p(&s, "out_pending"), p(&s, "out_ce"));
    s.reset("reset", Some("ready"), 1 << 12);
    let mut rng = Rng::new(21);
    let mut model: HashMap<u64, AckState> = HashMap::new();
    let mut expected: VecDeque<(u64, u64, u64, u64)> = VecDeque::new();
    let mut every: HashMap<u64, u16> = HashMap::new();
    let (mut checked, mut counts) = (0, [0u32; 3]);
    while checked < 100_000 {
        if rng.chance(0.2) {
            s.set(in_valid, 0);
        } else {
            let k = if rng.chance(0.5) { rng.below(3) } else { rng.below(1 << KEY_BITS) };
            let n = *every.entry(k).or_insert_with(|| 1 + rng.below(8) as u16);
            let timer = rng.chance(0.15);
            let urgent = rng.chance(0.1);
            let ce = rng.chance(0.3);
            let st = model.entry(k).or_default();
            let a = if timer { st.on_timer() } else { st.on_packet(urgent, ce, n) };
            let (code, pending, ces) = match a {
                AckAction::Wait => (action::WAIT, 0, 0),
                AckAction::Arm => (action::ARM, 0, 0),
                AckAction::Now { pending, ce } => (action::NOW, pending as u64, ce as u64),
            };
            counts[code as usize] += 1;
            expected.push_back((k, code, pending, ces));
            s.set(in_valid, 1);
            s.set(in_op, timer as u64);
            s.set(in_key, k);
            s.set(in_urgent, urgent as u64);
            s.set(in_ce, ce as u64);
            s.set(in_every, n as u64);
        }
        s.tick();
        if s.get(out_valid) == 1 {
            let want = expected.pop_front().expect("an output with no event behind it");
            let got = (s.get(out_key), s.get(out_action), s.get(out_pending), s.get(out_ce));
            assert_eq!(got, want, "event {checked}");
            checked += 1;
        }
    }
    assert!(counts.iter().all(|&c| c > 10_000), "{counts:?}");
}
