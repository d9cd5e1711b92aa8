//! Each `#[hdl_gen]` block in rust-hdl's own simulator against its emitted
//! Verilog in Verilator: the same random stimulus (reset first, then a few
//! thousand cycles), every output port compared every cycle; a failure
//! names the port, the cycle and both values (`ferroce_sim::equivalence`).
//!
//! Adding a block is one line: `equivalence_test!(name: Type; inputs)`,
//! the inputs being its input fields other than `clock` (the harness checks
//! the list against the ports), optionally followed by `; Config` for
//! stimulus that reaches its state (`Config::default().with("port",
//! Stim::Below(4))`; by default 1-bit inputs are high half the time and
//! key-, address-, slot-, stream-, path- and connection-like inputs stay
//! below 8). Every output must change at least once in the run (else the
//! stimulus missed it; `Config::may_stay` lists exceptions). The
//! name is the Verilator model's (the block's name in `emit::all()` reuses
//! the model its own test built). Run: `cargo test --release -p ferroce-sim
//! --test hdl_equivalence`.

use ferroce_hdl::blocks::keyed::KeyedState;
use ferroce_hdl::emit::CONN_KEY_BITS;
use ferroce_hdl::emit::PATH_KEY_BITS;
use ferroce_hdl::tx::seg_log::SegLog;
use ferroce_sim::equivalence::Config;
use ferroce_sim::equivalence_test;

// Blocks that are `#[hdl_gen]` today.
equivalence_test!(keyed_state: KeyedState<4, 40>; reset, rd_valid, rd_key, wr_valid, wr_state;
    Config { resets: vec![2500], ..Config::default() });
equivalence_test!(seg_log: SegLog<{ PATH_KEY_BITS + 8 }>; wr_valid, wr_addr, wr_entry, rd_addr);

// The leaf blocks whose outputs random inputs reach. The others need
// traffic with structure (frames that parse, connections and regions set
// up, PSNs in a window, AXI-Lite accesses to real registers), so their own
// Verilator tests record their first cycles and replay them into
// rust-hdl's simulator (`equivalence::check_replay`, every output before
// and after every edge): csr, frame_fifo, retx, rx_check, rx_msgs,
// rx_parse, rx_place, sack, segmenter, tx_build, rx_path and etherbone, each in
// `sim/tests/rtl_<block>.rs`.
use ferroce_hdl::engine::{pacer::Pacer, rate_div::RateDiv, rto_timer::RtoTimer};
use ferroce_hdl::rx::ack_gen::AckGen;
use ferroce_hdl::tx::{cc::Cc, health::PathHealth, spray::Spray};

equivalence_test!(ack_gen: AckGen<PATH_KEY_BITS>; reset, in_valid, in_op, in_key, in_urgent, in_ce, in_ack_every);
equivalence_test!(cc: Cc<PATH_KEY_BITS>; reset, in_valid, in_op, in_key, in_newly, in_ce, in_outstanding, in_srtt, in_now, in_max);
equivalence_test!(health: PathHealth<PATH_KEY_BITS>; reset, in_valid, in_op, in_key, in_newly, in_lost, in_repath_after, in_retire_after,
    in_loss_shift);
equivalence_test!(pacer: Pacer<CONN_KEY_BITS>; reset, in_valid, in_op, in_key, in_now, in_cost, in_bytes);
equivalence_test!(rate_div: RateDiv; reset, in_valid, in_rate_mbps, in_clock_mhz);
equivalence_test!(rto_timer: RtoTimer<PATH_KEY_BITS>; reset, now, set_valid, set_key, set_arm, set_deadline);
equivalence_test!(spray: Spray; reset, pick_valid, present, span_ok, retired, free, rr, seed_valid, seed, port_req, port_avoid);

/// The check can fail: the same block against Verilog with one operator
/// changed, and against Verilator driven with other inputs.
mod it_fails {
    use ferroce_sim::equivalence::{compare, Config, Inputs};

    use super::keyed_state;

    fn keyed_verilog() -> String {
        ferroce_hdl::emit::verilog(<keyed_state as Inputs>::Block::default())
    }

    #[test]
    fn on_mutated_verilog() {
        let good = keyed_verilog();
        // The forwarding condition `fw_valid & (fw_key == key)` with `!=`.
        let from = "(fw_valid$q & (fw_key$q == key$q))";
        assert_eq!(good.matches(from).count(), 1, "the mutated text is in the Verilog once:\n{good}");
        let bad = good.replace(from, "(fw_valid$q & (fw_key$q != key$q))");
        let m =
            compare::<keyed_state>("keyed_state_mutant", &bad, &Config::default()).expect_err("the mutant is reported");
        assert_eq!(m.port, "state", "{m}");
        assert!(m.cycle > 16, "after the clearing sweep: {m}");
        assert_ne!(m.rust_hdl, m.verilator);
        let text = m.to_string();
        assert!(text.contains("output `state` differs at cycle") && text.contains("rust-hdl 0x"), "{text}");
        eprintln!("reported as expected: {text}");
    }

    /// A recording of Verilator driven by one block's Verilog replays equal
    /// into rust-hdl, and one of the mutated Verilog is reported at the
    /// cycle where the two differ.
    #[test]
    fn on_a_replayed_recording_of_mutated_verilog() {
        use ferroce_sim::equivalence::replay;
        use ferroce_sim::verilator::{record_next, take_recording};
        let good = keyed_verilog();
        record_next("keyed_state_recorded", 3000);
        compare::<keyed_state>("keyed_state_recorded", &good, &Config::default()).expect("equal");
        let rec = take_recording("keyed_state_recorded").expect("recorded");
        assert_eq!(rec.cycles.len(), 3000);
        let r = replay::<keyed_state>("keyed_state", &rec).expect("the good recording replays equal");
        assert!(r.toggles["state"] > 100, "{:?}", r.toggles);

        let bad = good.replace("(fw_valid$q & (fw_key$q == key$q))", "(fw_valid$q & (fw_key$q != key$q))");
        record_next("keyed_state_mutant_recorded", 3000);
        let direct = compare::<keyed_state>("keyed_state_mutant_recorded", &bad, &Config::default())
            .expect_err("the mutant is reported");
        let rec = take_recording("keyed_state_mutant_recorded").expect("recorded until the mismatch");
        let m = replay::<keyed_state>("keyed_state", &rec).expect_err("the mutant's recording is reported");
        assert_eq!((m.port.as_str(), m.cycle), ("state", direct.cycle), "{m}");
        eprintln!("reported as expected: {m}");
    }

    #[test]
    fn on_other_stimulus() {
        let cfg = Config { verilator_seed: Some(99), ..Config::default() };
        let m = compare::<keyed_state>("keyed_state", &keyed_verilog(), &cfg).expect_err("other inputs are reported");
        eprintln!("reported as expected: {m}");
    }
}
