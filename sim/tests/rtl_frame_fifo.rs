//! The `frame_fifo` RTL block in Verilator: frames of every size with
//! verdicts arriving late and in order, random input gaps and output
//! back-pressure (at times so hard that the store fills and refuses
//! input); exactly the good frames come out, byte for byte, in order, and
//! a stalled output holds its beat.

use std::collections::VecDeque;

use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{ModelLib, Sim};

ferroce_sim::equivalence_inputs!(frame_fifo_inputs: ferroce_hdl::rx::frame_fifo::FrameFifo;
    reset, s_axis_tdata, s_axis_tkeep, s_axis_tvalid, s_axis_tlast, verdict_valid, verdict_good, m_axis_tready);

#[test]
fn only_good_frames_come_out_intact() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::rx::frame_fifo::FrameFifo::default());
    let lib = ModelLib::build("frame_fifo", &v).expect("frame_fifo model builds");
    ferroce_sim::verilator::record_next("frame_fifo", REPLAYED);
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let mut rng = Rng::new(6);
    let total = 5_000;
    let mut frames: Vec<(Vec<u8>, bool)> = Vec::new();
    for _ in 0..total {
        let len = 1 + if rng.chance(0.05) { rng.below(9000) } else { rng.below(300) } as usize;
        let f: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        frames.push((f, rng.chance(0.7)));
    }
    let want: Vec<Vec<u8>> = frames.iter().filter(|f| f.1).map(|f| f.0.clone()).collect();
    let (got, refused) = drive(&mut s, &frames, &mut rng);
    assert_eq!(got.len(), want.len());
    assert!(want.len() > 3_000 && want.len() < total, "good {} of {total}", want.len());
    assert!(refused > 1_000, "the store filled and refused input beats {refused} times");
    // The same Rust in rust-hdl's own simulator, on this test's first cycles.
    let rec = ferroce_sim::verilator::take_recording("frame_fifo").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<frame_fifo_inputs>("frame_fifo", &rec, &[]);
}

/// The `ecp5-25` build's FIFO, 512 beats (4 KiB): a frame of exactly 4096
/// bytes fills it and comes out whole; longer ones (which the parser finds
/// too long, so their verdict is bad) keep the first 512 beats, end there
/// and are dropped, and the frames after them come out intact.
#[test]
fn a_4_kib_fifo_passes_a_frame_that_fills_it_and_drops_longer_ones_whole() {
    type Small = ferroce_hdl::rx::frame_fifo::FrameFifoOf<9, 10>;
    assert_eq!(ferroce_proto::config::EngineConfig::ECP5_25.rx_fifo_beat_bits(), 9);
    let lib = ModelLib::build("frame_fifo_4k", &ferroce_hdl::emit::verilog(Small::default()))
        .expect("frame_fifo (4 KiB) model builds");
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let mut rng = Rng::new(61);
    let mut frames: Vec<(Vec<u8>, bool)> = Vec::new();
    let (mut whole, mut long) = (0, 0);
    for _ in 0..600 {
        let len = match rng.below(4) {
            0 => 4096 - rng.below(8) as usize,
            1 => 4097 + rng.below(5000) as usize,
            _ => 1 + rng.below(300) as usize,
        };
        let good = len <= 4096 && rng.chance(0.8);
        whole += (len > 4088 && good) as u32;
        long += (len > 4096) as u32;
        frames.push(((0..len).map(|_| rng.next_u64() as u8).collect(), good));
    }
    assert!(whole > 50 && long > 100, "{whole} frames of 4089-4096 bytes kept, {long} longer");
    let want: Vec<Vec<u8>> = frames.iter().filter(|f| f.1).map(|f| f.0.clone()).collect();
    let (got, refused) = drive(&mut s, &frames, &mut rng);
    assert_eq!(got, want);
    assert!(refused > 1_000, "the store filled and refused input beats {refused} times");
}

/// Cycles of the main test's traffic replayed into rust-hdl's simulator.
const REPLAYED: u64 = 30_000;

/// Drives `frames` (bytes, verdict) through the model in `s` with random
/// input gaps, verdicts 0-39 cycles after each frame's end and output
/// back-pressure (hard a quarter of the time), checking each good frame
/// that comes out against the next expected one and a stalled output
/// against its beat; returns the good frames and the input beats refused.
fn drive(s: &mut Sim, frames: &[(Vec<u8>, bool)], rng: &mut Rng) -> (Vec<Vec<u8>>, u64) {
    let p = |s: &Sim, n: &str| s.port(n);
    let names = [
        "reset",
        "s_axis_tdata",
        "s_axis_tkeep",
        "s_axis_tvalid",
        "s_axis_tready",
        "s_axis_tlast",
        "verdict_valid",
        "verdict_good",
        "verdict_ready",
        "m_axis_tdata",
        "m_axis_tkeep",
        "m_axis_tvalid",
        "m_axis_tready",
        "m_axis_tlast",
    ];
    let ports: Vec<_> = names.iter().map(|n| p(s, n)).collect();
    let port = |n: &str| ports[names.iter().position(|x| *x == n).expect("a port")];
    s.set(port("reset"), 1);
    s.tick();
    s.set(port("reset"), 0);
    let want: Vec<&Vec<u8>> = frames.iter().filter(|f| f.1).map(|f| &f.0).collect();
    let (mut fi, mut at) = (0usize, 0usize); // frame being sent, byte in it
    let mut verdicts: VecDeque<(u64, bool)> = VecDeque::new(); // (due cycle, good)
    let mut got: Vec<Vec<u8>> = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    let mut held: Option<(u64, u64, u64)> = None;
    let mut cycle = 0u64;
    let mut refused = 0u64;
    while got.len() < want.len() {
        cycle += 1;
        assert!(cycle < 5_000_000, "stuck after {} good frames", got.len());
        let offer = fi < frames.len() && !rng.chance(0.2);
        if offer {
            let f = &frames[fi].0;
            let n = (f.len() - at).min(8);
            let d = f[at..at + n].iter().enumerate().fold(0u64, |a, (i, b)| a | (*b as u64) << (8 * i));
            s.set(port("s_axis_tdata"), d);
            s.set(port("s_axis_tkeep"), (1u64 << n) - 1);
            s.set(port("s_axis_tlast"), (at + n == f.len()) as u64);
        }
        s.set(port("s_axis_tvalid"), offer as u64);
        let give = verdicts.front().is_some_and(|v| v.0 <= cycle);
        if give {
            s.set(port("verdict_good"), verdicts[0].1 as u64);
        }
        s.set(port("verdict_valid"), give as u64);
        // A quarter of the time the output is held back hard, so the store
        // fills and the input is refused.
        let heavy = (cycle / 10_000) % 4 == 1;
        let ready = !rng.chance(if heavy { 0.97 } else { 0.3 });
        s.set(port("m_axis_tready"), ready as u64);
        s.eval();
        let in_taken = offer && s.get(port("s_axis_tready")) == 1;
        refused += (offer && !in_taken) as u64;
        let v_taken = give && s.get(port("verdict_ready")) == 1;
        let out = (s.get(port("m_axis_tvalid")) == 1)
            .then(|| (s.get(port("m_axis_tdata")), s.get(port("m_axis_tkeep")), s.get(port("m_axis_tlast"))));
        if let Some(o) = out {
            if let Some(h) = held {
                assert_eq!(h, o, "output changed while stalled");
            }
            held = Some(o);
        }
        s.tick();
        if in_taken {
            let f = &frames[fi].0;
            at += (f.len() - at).min(8);
            if at == f.len() {
                verdicts.push_back((cycle + rng.below(40), frames[fi].1));
                fi += 1;
                at = 0;
            }
        }
        if v_taken {
            verdicts.pop_front();
        }
        if let (Some((d, k, last)), true) = (out, ready) {
            held = None;
            for lane in 0..8 {
                if k >> lane & 1 == 1 {
                    cur.push((d >> (8 * lane)) as u8);
                }
            }
            if last == 1 {
                let n = got.len();
                assert_eq!(cur.len(), want[n].len(), "good frame {n}: length");
                assert!(cur == *want[n], "good frame {n}: bytes differ");
                got.push(std::mem::take(&mut cur));
            }
        }
    }
    (got, refused)
}
