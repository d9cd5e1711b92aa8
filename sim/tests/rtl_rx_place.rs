//! The `rx_place` RTL block in Verilator: data frames of every payload size
//! (and frames not to be placed) with descriptors, random input gaps and
//! back-pressure on both outputs; every placed frame gives one DMA write
//! command with its address and length, followed by exactly its payload
//! bytes; nothing else is written.

use std::collections::VecDeque;

use ferroce_hdl::rx::rx_place::PAYLOAD_OFFSET;
use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{ModelLib, Sim};

ferroce_sim::equivalence_inputs!(rx_place_inputs: ferroce_hdl::rx::rx_place::RxPlace;
    reset, desc_valid, desc_place, desc_addr, desc_len, s_axis_tdata, s_axis_tvalid, s_axis_tlast, m_cmd_ready, m_data_tready);

#[test]
fn payloads_reach_their_addresses_exactly() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::rx::rx_place::RxPlace::default());
    let lib = ModelLib::build("rx_place", &v).expect("rx_place model builds");
    ferroce_sim::verilator::record_next("rx_place", REPLAYED);
    let mut s = Sim::new(&lib);
    s.clock("clock");
    s.reset("reset", None, 0);
    let names = [
        "desc_valid",
        "desc_ready",
        "desc_place",
        "desc_addr",
        "desc_len",
        "s_axis_tdata",
        "s_axis_tvalid",
        "s_axis_tready",
        "s_axis_tlast",
        "m_cmd_valid",
        "m_cmd_ready",
        "m_cmd_addr",
        "m_cmd_len",
        "m_data_tdata",
        "m_data_tkeep",
        "m_data_tvalid",
        "m_data_tready",
        "m_data_tlast",
    ];
    let ports: Vec<_> = names.iter().map(|n| s.port(n)).collect();
    let p = |n: &str| ports[names.iter().position(|x| *x == n).expect("a port")];
    let mut rng = Rng::new(10);
    // Frames: (bytes, place, addr, payload len).
    let mut frames: VecDeque<(Vec<u8>, bool, u64, usize)> = VecDeque::new();
    let mut want: VecDeque<(u64, Vec<u8>)> = VecDeque::new();
    for _ in 0..4_000 {
        let plen = if rng.chance(0.1) { rng.below(9000) } else { rng.below(200) } as usize;
        let place = rng.chance(0.75);
        let mut f: Vec<u8> = (0..PAYLOAD_OFFSET + plen + 4).map(|_| rng.next_u64() as u8).collect();
        if !place && rng.chance(0.5) {
            f.truncate(74 + rng.below(40) as usize); // an ACK- or NAK-sized frame
        }
        let addr = rng.next_u64() >> 4;
        if place && plen > 0 {
            want.push_back((addr, f[PAYLOAD_OFFSET..PAYLOAD_OFFSET + plen].to_vec()));
        }
        frames.push_back((f, place, addr, plen));
    }
    let total = want.len();
    let (mut at, mut desc_given) = (0usize, false);
    let mut cmds: VecDeque<(u64, usize)> = VecDeque::new();
    let mut data: Vec<u8> = Vec::new();
    let mut got = 0usize;
    let mut held: Option<(u64, u64, u64)> = None;
    let mut cycles = 0u64;
    while got < total {
        cycles += 1;
        assert!(cycles < 3_000_000, "stuck after {got} writes");
        let cur = frames.front().cloned();
        let offer = cur.is_some() && !rng.chance(0.2);
        if let (true, Some((f, place, addr, plen))) = (offer, &cur) {
            let n = (f.len() - at).min(8);
            let d = f[at..at + n].iter().enumerate().fold(0u64, |a, (i, b)| a | (*b as u64) << (8 * i));
            s.set(p("s_axis_tdata"), d);
            s.set(p("s_axis_tlast"), (at + n == f.len()) as u64);
            s.set(p("desc_valid"), !desc_given as u64);
            s.set(p("desc_place"), *place as u64);
            s.set(p("desc_addr"), *addr);
            s.set(p("desc_len"), *plen as u64);
        } else {
            s.set(p("desc_valid"), 0);
        }
        s.set(p("s_axis_tvalid"), offer as u64);
        let (cmd_ready, data_ready) = (!rng.chance(0.3), !rng.chance(0.3));
        s.set(p("m_cmd_ready"), cmd_ready as u64);
        s.set(p("m_data_tready"), data_ready as u64);
        s.eval();
        let beat_taken = offer && s.get(p("s_axis_tready")) == 1;
        let desc_taken = offer && s.get(p("desc_ready")) == 1;
        let cmd = (s.get(p("m_cmd_valid")) == 1).then(|| (s.get(p("m_cmd_addr")), s.get(p("m_cmd_len")) as usize));
        let out = (s.get(p("m_data_tvalid")) == 1)
            .then(|| (s.get(p("m_data_tdata")), s.get(p("m_data_tkeep")), s.get(p("m_data_tlast"))));
        if let Some(o) = out {
            if let Some(h) = held {
                assert_eq!(h, o, "data changed while stalled");
            }
            held = Some(o);
        }
        s.tick();
        if desc_taken {
            desc_given = true;
        }
        if beat_taken {
            let f = &frames[0].0;
            at += (f.len() - at).min(8);
            if at == f.len() {
                frames.pop_front();
                at = 0;
                desc_given = false;
            }
        }
        if let (Some(c), true) = (cmd, cmd_ready) {
            cmds.push_back(c);
        }
        if let (Some((d, k, last)), true) = (out, data_ready) {
            held = None;
            assert!(k != 0 && k & (k + 1) == 0, "tkeep contiguous: {k:#x}");
            for lane in 0..8 {
                if k >> lane & 1 == 1 {
                    data.push((d >> (8 * lane)) as u8);
                }
            }
            if last == 1 {
                let (addr, len) = cmds.pop_front().expect("data after its command");
                let (waddr, wbytes) = want.pop_front().expect("a write that was expected");
                assert_eq!((addr, len), (waddr, wbytes.len()), "write {got}: command");
                assert!(data == wbytes, "write {got}: payload bytes differ");
                data.clear();
                got += 1;
            }
        }
    }
    assert!(cmds.is_empty() && data.is_empty(), "nothing written beyond the placed payloads");
    assert!(total > 2_000, "{total} placed frames");
    // The same Rust in rust-hdl's own simulator, on this test's first cycles.
    let rec = ferroce_sim::verilator::take_recording("rx_place").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<rx_place_inputs>("rx_place", &rec, &[]);
}

/// Cycles of the main test's traffic replayed into rust-hdl's simulator.
const REPLAYED: u64 = 4000;
