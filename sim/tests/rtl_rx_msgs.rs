//! The `rx_msgs` RTL block in Verilator against
//! `ferroce_proto::model::msgwin::MsgWindow`: messages of random sizes
//! arriving as out-of-order segments on many streams, failures, packets
//! beyond the window or contradicting their message (its length or its
//! opcode), check-only packets and
//! deliveries, one operation at a time as the block takes them; every
//! result equals the model's.

use std::collections::{HashMap, VecDeque};

use ferroce_proto::model::msgwin::MsgWindow;
use ferroce_proto::model::MSG_WINDOW;
use ferroce_proto::rng::Rng;
use ferroce_proto::transport::CompletionStatus;
use ferroce_proto::wire::Opcode;
use ferroce_sim::verilator::{ModelLib, Sim};

ferroce_sim::equivalence_inputs!(rx_msgs_inputs: ferroce_hdl::rx::rx_msgs::RxMsgs;
    reset, in_valid, in_op, in_key, in_seq, in_len, in_opcode, in_imm, in_payload, in_fail, in_apply);

const KEY_BITS: usize = ferroce_hdl::emit::STREAM_KEY_BITS;

struct Msg {
    seq: u32,
    len: u32,
    opcode: Opcode,
    imm: u32,
    segments: Vec<u32>,
}

/// A delivered message as the block reports it: seq, opcode, len, imm, failure.
type Delivered = (u32, u64, u32, u32, u64);

#[derive(Default)]
struct Stream {
    model: MsgWindow,
    active: Vec<Msg>,
    next_seq: u32,
}

/// The block's 2-bit opcode: the low bits of the wire code.
fn opcode_code(o: Opcode) -> u64 {
    o.code() as u64 & 3
}

/// The block's failure code: the completion status's code, none = success.
fn fail_code(f: Option<CompletionStatus>) -> u64 {
    f.unwrap_or(CompletionStatus::Success).code() as u64
}

#[test]
fn message_tracking_matches_the_model() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::rx::rx_msgs::RxMsgs::default());
    let lib = ModelLib::build("rx_msgs", &v).expect("rx_msgs model builds");
    ferroce_sim::verilator::record_next("rx_msgs", REPLAYED);
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let names = [
        "reset",
        "ready",
        "in_valid",
        "in_op",
        "in_key",
        "in_seq",
        "in_len",
        "in_opcode",
        "in_imm",
        "in_payload",
        "in_fail",
        "in_apply",
        "out_valid",
        "out_key",
        "out_ok",
        "out_popped",
        "out_began",
        "out_seq",
        "out_opcode",
        "out_len",
        "out_imm",
        "out_fail",
    ];
    let p: HashMap<&str, _> = names.iter().map(|n| (*n, s.port(n))).collect();
    s.reset("reset", Some("ready"), 1 << 12);
    let data_opcodes: Vec<Opcode> = Opcode::ALL.into_iter().filter(|o| o.is_data()).collect();
    let failures: Vec<CompletionStatus> =
        CompletionStatus::ALL.into_iter().filter(|s| *s != CompletionStatus::Success).collect();
    let mut rng = Rng::new(44);
    let mut streams: HashMap<u64, Stream> = HashMap::new();
    let mut expected: VecDeque<(u64, bool, Option<Delivered>, bool)> = VecDeque::new();
    let (mut checked, mut delivered, mut refused, mut begun) = (0u64, 0u64, 0u64, 0u64);
    while checked < 100_000 {
        // One operation at a time: the next is given in the cycle the
        // previous one's result is out, or later.
        if !expected.is_empty() || rng.chance(0.15) {
            s.set(p["in_valid"], 0);
        } else {
            let key = if rng.chance(0.8) { rng.below(3) } else { rng.below(1 << KEY_BITS) };
            let st = streams.entry(key).or_default();
            // Start new messages within the window.
            while st.active.len() < 6 && st.next_seq.wrapping_sub(st.model.next()) < MSG_WINDOW {
                let span = if rng.chance(0.2) { 20_000 } else { 3_000 };
                let len = 1 + rng.below(span) as u32;
                let mut segments = Vec::new();
                let mut left = len;
                while left > 0 {
                    let n = left.min(1 + rng.below(4000) as u32);
                    segments.push(n);
                    left -= n;
                }
                let opcode = data_opcodes[rng.below(data_opcodes.len() as u64) as usize];
                st.active.push(Msg { seq: st.next_seq, len, opcode, imm: rng.next_u64() as u32, segments });
                st.next_seq = st.next_seq.wrapping_add(1);
            }
            let r = rng.below(100);
            let (op, ok, popped, began) = if r < 40 {
                // Deliver.
                let got =
                    st.model.pop().map(|(seq, m)| (seq, opcode_code(m.opcode), m.len, m.imm, fail_code(m.failed)));
                if let Some((seq, ..)) = got {
                    st.active.retain(|m| m.seq != seq);
                    delivered += 1;
                }
                (1u64, false, got, false)
            } else {
                let (seq, len, opcode, imm, payload, fail, apply) = if r < 50 || st.active.is_empty() {
                    // A packet that must be refused: delivered already, beyond
                    // the window, or contradicting its message.
                    let next = st.model.next();
                    match (rng.below(3), st.active.first()) {
                        (0, _) => (next.wrapping_sub(1 + rng.below(5) as u32), 10, Opcode::Write, 0, 10, None, true),
                        (1, _) => {
                            (next.wrapping_add(MSG_WINDOW + rng.below(5) as u32), 10, Opcode::Write, 0, 10, None, true)
                        }
                        // A contradiction only once the message has begun.
                        // The length or the opcode contradicts the message's.
                        (_, Some(m)) if st.model.has(m.seq) => {
                            if rng.chance(0.5) {
                                (m.seq, m.len + 1, m.opcode, m.imm, 1, None, true)
                            } else {
                                let other = match m.opcode {
                                    Opcode::Write => Opcode::Send,
                                    Opcode::WriteImm => Opcode::Write,
                                    _ => Opcode::WriteImm,
                                };
                                (m.seq, m.len, other, m.imm, 1, None, true)
                            }
                        }
                        _ => (next.wrapping_add(MSG_WINDOW), 10, Opcode::Send, 0, 10, None, true),
                    }
                } else {
                    let i = rng.below(st.active.len() as u64) as usize;
                    let m = &mut st.active[i];
                    let fail =
                        if rng.chance(0.03) { Some(failures[rng.below(failures.len() as u64) as usize]) } else { None };
                    let apply = !rng.chance(0.05);
                    let payload = if m.segments.is_empty() {
                        1
                    } else {
                        let k = rng.below(m.segments.len() as u64) as usize;
                        if apply {
                            m.segments.swap_remove(k)
                        } else {
                            m.segments[k]
                        }
                    };
                    (m.seq, m.len, m.opcode, m.imm, payload, fail, apply)
                };
                let ok = st.model.check(seq, len, opcode);
                let began = ok && apply && !st.model.has(seq);
                begun += began as u64;
                if ok && apply {
                    st.model.record(seq, len, opcode, imm, payload, fail);
                }
                refused += !ok as u64;
                for (n, v) in [
                    ("in_seq", seq as u64),
                    ("in_len", len as u64),
                    ("in_opcode", opcode_code(opcode)),
                    ("in_imm", imm as u64),
                    ("in_payload", payload as u64),
                    ("in_fail", fail_code(fail)),
                    ("in_apply", apply as u64),
                ] {
                    s.set(p[n], v);
                }
                (0u64, ok, None, began)
            };
            expected.push_back((key, ok, popped, began));
            s.set(p["in_valid"], 1);
            s.set(p["in_op"], op);
            s.set(p["in_key"], key);
        }
        s.tick();
        if s.get(p["out_valid"]) == 1 {
            let (key, ok, popped, began) = expected.pop_front().expect("an output with no operation behind it");
            assert_eq!(s.get(p["out_key"]), key, "op {checked}");
            assert_eq!(s.get(p["out_ok"]) == 1, ok, "op {checked}: check");
            assert_eq!(s.get(p["out_popped"]) == 1, popped.is_some(), "op {checked}: popped");
            assert_eq!(s.get(p["out_began"]) == 1, began, "op {checked}: a message begun");
            if let Some(want) = popped {
                let got = (
                    s.get(p["out_seq"]) as u32,
                    s.get(p["out_opcode"]),
                    s.get(p["out_len"]) as u32,
                    s.get(p["out_imm"]) as u32,
                    s.get(p["out_fail"]),
                );
                assert_eq!(got, want, "op {checked}: delivered message");
            }
            checked += 1;
        }
    }
    assert!(
        delivered > 3_000 && refused > 5_000 && begun > 3_000,
        "delivered {delivered}, refused {refused}, begun {begun}"
    );
    // The same Rust in rust-hdl's own simulator, on this test's first cycles.
    let rec = ferroce_sim::verilator::take_recording("rx_msgs").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<rx_msgs_inputs>("rx_msgs", &rec, &[]);
}

/// Cycles of the main test's traffic replayed into rust-hdl's simulator.
const REPLAYED: u64 = 4000;
