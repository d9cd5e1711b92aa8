//! The `sack` RTL block in Verilator against the reference tracker: at least
//! 100 000 random operations over many (connection, path) keys, with
//! wrap-around, duplicates and out-of-window PSNs; every output must equal
//! the model. With the full receive window (256) and with the boards'
//! smaller ones (64 and 8), whose bitmaps by slot `SackWire` rotates into
//! the ACK's field (checked on every output).

use std::collections::{HashMap, VecDeque};

use ferroce_hdl::rx::sack::{VERDICT_DUP, VERDICT_NEW, VERDICT_OOW};
use ferroce_proto::model::sack::{SackTracker, Verdict};
use ferroce_proto::rng::Rng;
use ferroce_proto::Psn;
use ferroce_sim::verilator::{ModelLib, Sim};

ferroce_sim::equivalence_inputs!(sack_inputs: ferroce_hdl::rx::sack::Sack<KEY_BITS>;
    reset, in_valid, in_op, in_key, in_psn, in_commit);
ferroce_sim::equivalence_inputs!(sack64_inputs: ferroce_hdl::rx::sack::Sack<KEY_BITS, 64>;
    reset, in_valid, in_op, in_key, in_psn, in_commit);

const KEY_BITS: usize = ferroce_hdl::emit::PATH_KEY_BITS;

fn model() -> std::sync::Arc<ModelLib> {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::rx::sack::Sack::<KEY_BITS>::new());
    ModelLib::build("sack", &v).expect("sack model builds")
}

/// The send side's `SackWire<W>`, alone.
fn wire_model<const W: usize>(name: &str) -> std::sync::Arc<ModelLib> {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::rx::sack::SackWire::<W>::default());
    ModelLib::build(name, &v).expect("SackWire model builds")
}

struct Expect {
    key: u64,
    verdict: u64,
    hole: bool,
    state: SackTracker,
}

fn words_to_bytes(w: &[u32]) -> [u8; 32] {
    let mut b = [0u8; 32];
    for (i, x) in w.iter().enumerate().take(8) {
        b[i * 4..i * 4 + 4].copy_from_slice(&x.to_le_bytes());
    }
    b
}

#[test]
fn sack_matches_the_model_on_random_traffic() {
    run(&model(), &wire_model::<256>("sack_wire"), "sack", 256, 0x5ac);
    // The same Rust in rust-hdl's own simulator, on this test's first cycles.
    let rec = ferroce_sim::verilator::take_recording("sack").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<sack_inputs>("sack", &rec, &[]);
}

/// A window of 64 (the ECPIX-5's build) and of 8 (the Colorlight's).
#[test]
fn a_smaller_window_matches_the_model() {
    let v64 = ferroce_hdl::emit::verilog(ferroce_hdl::rx::sack::Sack::<KEY_BITS, 64>::new());
    run(
        &ModelLib::build("sack_w64", &v64).expect("sack model builds"),
        &wire_model::<64>("sack_wire_w64"),
        "sack_w64",
        64,
        0x5ac64,
    );
    let rec = ferroce_sim::verilator::take_recording("sack_w64").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<sack64_inputs>("sack_w64", &rec, &[]);
    let v8 = ferroce_hdl::emit::verilog(ferroce_hdl::rx::sack::Sack::<KEY_BITS, 8>::new());
    run(
        &ModelLib::build("sack_w8", &v8).expect("sack model builds"),
        &wire_model::<8>("sack_wire_w8"),
        "sack_w8",
        8,
        0x5ac08,
    );
}

/// 120 000 operations on `lib`, a tracker with a window of `window`,
/// checked against the model, its bitmaps put in wire order by `wire` (a
/// `SackWire` of the same window); the first cycles recorded as `name`.
fn run(lib: &std::sync::Arc<ModelLib>, wire: &std::sync::Arc<ModelLib>, name: &str, window: u32, seed: u64) {
    ferroce_sim::verilator::record_next(name, REPLAYED);
    let mut sim = Sim::new(lib);
    sim.clock("clock");
    let p = |n: &str| sim.port(n);
    let (reset, ready, in_valid, in_op, in_key, in_psn, in_commit) =
        (p("reset"), p("ready"), p("in_valid"), p("in_op"), p("in_key"), p("in_psn"), p("in_commit"));
    let (out_valid, out_key, out_verdict, out_hole, out_cum, out_high, out_slots) =
        (p("out_valid"), p("out_key"), p("out_verdict"), p("out_hole"), p("out_cum"), p("out_high"), p("out_slots"));
    // The send side's SackWire, fed with every output.
    let mut to_wire = Sim::new(wire);
    let (w_slots, w_cum, w_field) = (to_wire.port("slots"), to_wire.port("cum_slot"), to_wire.port("field"));

    sim.set(reset, 1);
    sim.tick();
    sim.set(reset, 0);
    let mut waited = 0;
    while sim.get(ready) == 0 {
        sim.tick();
        waited += 1;
        assert!(waited <= 1 << KEY_BITS, "clearing takes one cycle per key");
    }

    let mut rng = Rng::new(seed);
    let start = |psn: u32| SackTracker::with_window(Psn::new(psn), window);
    let keys = 1u64 << KEY_BITS;
    let mut trackers: HashMap<u64, SackTracker> = HashMap::new();
    let mut expected: VecDeque<Expect> = VecDeque::new();
    let mut checked = 0u64;
    let mut seen = [0u64; 3];
    let (mut upper, mut wraps) = (0u32, 0u32);
    // Start every key near the PSN wrap so that wrap-around is exercised.
    let mut ops: VecDeque<(bool, u64, u32, bool)> =
        (0..keys).map(|k| (true, k, (Psn::MODULUS - 200 - rng.below(400) as u32) % Psn::MODULUS, false)).collect();
    let total = 120_000;
    let mut issued = 0;
    while checked < total {
        // Random idle cycles on the input.
        let op = if rng.chance(0.2) {
            None
        } else if let Some(o) = ops.pop_front() {
            Some(o)
        } else if issued < total + 1000 {
            // Mostly a few keys (back-to-back hazards), sometimes any key.
            let key = if rng.chance(0.5) { rng.below(4) } else { rng.below(keys) };
            let t = trackers.get(&key).copied().unwrap_or_else(|| start(0));
            let base = t.cum();
            let off = match rng.below(10) {
                0 => -(rng.below(300) as i64),                   // behind: duplicate
                1 => window as i64 + rng.below(2000) as i64,     // beyond the window
                2 if window < 256 => 256 - rng.below(16) as i64, // the field's width, beyond the window
                _ => rng.below(64.min(window as u64)) as i64,    // mostly new, some holes
            };
            let psn = Psn::new((base.get() as i64 + off).rem_euclid(Psn::MODULUS as i64) as u32);
            issued += 1;
            Some((false, key, psn.get(), !rng.chance(0.1)))
        } else {
            None
        };
        match op {
            Some((load, key, psn, commit)) => {
                sim.set(in_valid, 1);
                sim.set(in_op, load as u64);
                sim.set(in_key, key);
                sim.set(in_psn, psn as u64);
                sim.set(in_commit, commit as u64);
                let t = trackers.entry(key).or_insert_with(|| start(0));
                if load {
                    *t = start(psn);
                } else {
                    let v = t.classify(Psn::new(psn));
                    let (verdict, hole) = match v {
                        Verdict::New { hole } => {
                            if commit {
                                t.accept(Psn::new(psn));
                            }
                            (VERDICT_NEW, hole)
                        }
                        Verdict::Duplicate => (VERDICT_DUP, false),
                        Verdict::OutOfWindow => (VERDICT_OOW, false),
                    };
                    expected.push_back(Expect { key, verdict, hole, state: *t });
                }
            }
            None => sim.set(in_valid, 0),
        }
        sim.tick();
        if sim.get(out_valid) == 1 {
            let e = expected.pop_front().expect("an output with no operation behind it");
            assert_eq!(sim.get(out_key), e.key, "key, output {checked}");
            assert_eq!(sim.get(out_verdict), e.verdict, "verdict, output {checked}, key {}", e.key);
            assert_eq!(sim.get(out_hole) == 1, e.hole, "hole, output {checked}");
            assert_eq!(sim.get(out_cum) as u32, e.state.cum().get(), "cum, output {checked}, key {}", e.key);
            assert_eq!(sim.get(out_high) as u32, e.state.high().get(), "high, output {checked}");
            let slots = sim.get_words(out_slots);
            assert_eq!(words_to_bytes(&slots), by_slot(e.state.bitmap(), window), "bitmap by slot, output {checked}");
            to_wire.set_words(w_slots, &slots);
            to_wire.set(w_cum, sim.get(out_cum) & 0xff);
            to_wire.eval();
            assert_eq!(
                &words_to_bytes(&to_wire.get_words(w_field)),
                e.state.bitmap(),
                "bitmap in wire order, output {checked}"
            );
            seen[e.verdict as usize] += 1;
            let b = e.state.bitmap();
            upper += b[16..].iter().any(|x| *x != 0) as u32;
            wraps += (b[0] != 0 && b[31] != 0) as u32;
            checked += 1;
        }
        assert!(expected.len() <= 2, "latency is two cycles");
    }
    assert!(seen.iter().all(|&n| n > 5_000), "every verdict exercised: {seen:?}");
    let wrapped = trackers.values().filter(|t| t.cum().get() < 10_000).count();
    assert!(wrapped > 0, "some keys wrapped past PSN 2^24");
    // A small window's bitmap moves around the whole field, and wraps.
    assert!(upper > 1000 && wraps > 100, "bitmaps in the field's upper half {upper}, wrapped {wraps}");
}

/// A bitmap by PSN mod 256 as one by PSN mod `window` (the window's PSNs
/// are `window` consecutive positions, so no two set bits meet).
fn by_slot(wire: &[u8; 32], window: u32) -> [u8; 32] {
    let mut out = [0u8; 32];
    for k in 0..256usize {
        if wire[k / 8] >> (k % 8) & 1 == 1 {
            let s = k % window as usize;
            assert_eq!(out[s / 8] >> (s % 8) & 1, 0, "two PSNs of the window on slot {s}");
            out[s / 8] |= 1 << (s % 8);
        }
    }
    out
}

/// Cycles of the main test's traffic replayed into rust-hdl's simulator.
const REPLAYED: u64 = 4000;
