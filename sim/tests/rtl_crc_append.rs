//! The `crc_append` RTL block in Verilator: frames built by
//! `ferroce_proto::wire::encode` go in without their 4-byte trailer, with
//! random gaps on the input and random back-pressure on the output; every
//! frame out must equal the encoded one byte for byte (so the CRC covers
//! the bytes from the transport header on, least significant byte first,
//! in the last beat or one more). Frames of every length modulo 8, from
//! the shortest an ACK or NAK makes to jumbo data frames
//! (`ferroce_sim::axis::random_packet`, as the `tx_build` test's). Both
//! forms: the last beat's zero bytes taken back in its step, and serially
//! (`CrcAppend<true, _>`, which holds the last beat up to 7 cycles); the
//! serial form also with a CRC of four bytes a cycle (`CrcAppend<true,
//! true>`, two cycles for each beat under the CRC).

use std::collections::VecDeque;

use ferroce_proto::rng::Rng;
use ferroce_proto::wire;
use ferroce_sim::axis::{random_packet, FrameOut};
use ferroce_sim::verilator::{ModelLib, Sim};

ferroce_sim::equivalence_inputs!(crc_append_inputs: ferroce_hdl::tx::crc_append::CrcAppend<false, false>;
    reset, s_axis_tdata, s_axis_tkeep, s_axis_tvalid, s_axis_tlast, m_axis_tready);
ferroce_sim::equivalence_inputs!(crc_append_serial_inputs: ferroce_hdl::tx::crc_append::CrcAppend<true, false>;
    reset, s_axis_tdata, s_axis_tkeep, s_axis_tvalid, s_axis_tlast, m_axis_tready);
ferroce_sim::equivalence_inputs!(crc_append_half_inputs: ferroce_hdl::tx::crc_append::CrcAppend<true, true>;
    reset, s_axis_tdata, s_axis_tkeep, s_axis_tvalid, s_axis_tlast, m_axis_tready);

/// A random frame, as `wire::encode` builds it.
fn frame(rng: &mut Rng) -> Vec<u8> {
    let (addr, t, payload) = random_packet(rng);
    wire::encode(&addr, &t, &payload)
}

#[test]
fn frames_get_the_trailer_the_model_gives() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx::crc_append::CrcAppend::<false, false>::default());
    let cycles = frames_out("crc_append", &v);
    let rec = ferroce_sim::verilator::take_recording("crc_append").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<crc_append_inputs>("crc_append", &rec, &[]);
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx::crc_append::CrcAppend::<true, false>::default());
    let serial_cycles = frames_out("crc_append_serial", &v);
    let rec = ferroce_sim::verilator::take_recording("crc_append_serial").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<crc_append_serial_inputs>("crc_append_serial", &rec, &[]);
    // The same frames (the same draws until the timing differs); the
    // serial tail's wait shows as more cycles for them.
    assert!(serial_cycles > cycles + 6_000, "serial tail: {serial_cycles} cycles, in its step: {cycles}");
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx::crc_append::CrcAppend::<true, true>::default());
    let half_cycles = frames_out("crc_append_half", &v);
    let rec = ferroce_sim::verilator::take_recording("crc_append_half").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<crc_append_half_inputs>("crc_append_half", &rec, &[]);
    // Each beat under the CRC waits a cycle more at the input.
    assert!(half_cycles > serial_cycles + 20_000, "four bytes a cycle: {half_cycles} cycles, eight: {serial_cycles}");
}

/// Runs the test's traffic through the block's Verilog (model `name`),
/// recording its first cycles; the cycles it took.
fn frames_out(name: &str, v: &str) -> u64 {
    let lib = ModelLib::build(name, v).expect("crc_append model builds");
    ferroce_sim::verilator::record_next(name, REPLAYED);
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let p = |s: &Sim, n: &str| s.port(n);
    s.set(p(&s, "reset"), 1);
    s.tick();
    s.set(p(&s, "reset"), 0);
    let mut rng = Rng::new(0xc2c);
    let total = 6_000;
    // Frames waiting to go in (with how much of each went in), and out.
    let mut inq: VecDeque<(Vec<u8>, usize)> = VecDeque::new();
    let mut want: VecDeque<Vec<u8>> = VecDeque::new();
    let (mut made, mut frames, mut idle, mut cycles) = (0, 0, 0, 0u64);
    let mut lengths = [0u32; 8];
    let mut spilled = 0;
    let mut out = FrameOut::default();
    while frames < total {
        if inq.len() < 2 && made < total {
            let f = frame(&mut rng);
            let body = f[..f.len() - 4].to_vec();
            lengths[body.len() % 8] += 1;
            spilled += (body.len() % 8 > 4 || body.len() % 8 == 0) as u32;
            inq.push_back((body, 0));
            want.push_back(f);
            made += 1;
        }
        let offer = !inq.is_empty() && !rng.chance(0.25);
        if let (true, Some((body, sent))) = (offer, inq.front()) {
            let n = (body.len() - sent).min(8);
            let d = body[*sent..sent + n].iter().enumerate().fold(0u64, |a, (i, b)| a | (*b as u64) << (8 * i));
            // Lanes past the bytes carry junk: the block must not let it in.
            let junk = if n < 8 { rng.next_u64() << (8 * n) } else { 0 };
            s.set(p(&s, "s_axis_tdata"), d | junk);
            s.set(p(&s, "s_axis_tkeep"), (1u64 << n) - 1);
            s.set(p(&s, "s_axis_tlast"), (sent + n == body.len()) as u64);
        }
        s.set(p(&s, "s_axis_tvalid"), offer as u64);
        let ready = !rng.chance(0.25);
        s.set(p(&s, "m_axis_tready"), ready as u64);
        s.eval();
        let taken = offer && s.get(p(&s, "s_axis_tready")) == 1;
        let out_valid = s.get(p(&s, "m_axis_tvalid")) == 1;
        let beat = (s.get(p(&s, "m_axis_tdata")), s.get(p(&s, "m_axis_tkeep")), s.get(p(&s, "m_axis_tlast")));
        let done = out.cycle(out_valid, ready, beat);
        s.tick();
        cycles += 1;
        idle = if out_valid { 0 } else { idle + 1 };
        assert!(idle < 100, "frame {frames} stuck");
        if taken {
            let (body, sent) = inq.front_mut().unwrap();
            *sent += (body.len() - *sent).min(8);
            if *sent == body.len() {
                inq.pop_front();
            }
        }
        if let Some(got) = done {
            let w = want.pop_front().expect("a frame out only after one went in");
            assert_eq!(got.len(), w.len(), "frame {frames} length");
            if let Some(i) = (0..w.len()).find(|&i| got[i] != w[i]) {
                panic!("frame {frames} ({} bytes) differs at byte {i}: {:#04x}, not {:#04x}", w.len(), got[i], w[i]);
            }
            frames += 1;
        }
    }
    assert!(lengths.iter().all(|&n| n > 100), "every length modulo 8: {lengths:?}");
    assert!(spilled > 1000, "{spilled} trailers in a beat of their own");
    cycles
}

/// Cycles of the test's traffic replayed into rust-hdl's simulator.
const REPLAYED: u64 = 4000;
