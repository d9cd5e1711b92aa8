//! The `rx_parse` RTL block in Verilator against `ferroce_proto::wire::parse`:
//! over 100 000 frames, valid ones of every opcode and size and mutated,
//! truncated, extended and random ones, streamed with random idle cycles
//! and random back-pressure on the results. Every frame yields exactly one
//! result with the model's verdict, its length and its header bytes; a bad
//! frame never stalls the ones after it. Some frames carry the MAC's
//! bad-frame flag (`tuser`), mostly on their last beat: those are reported
//! as MAC errors whatever their bytes. Both forms: the CRC of eight bytes
//! a cycle and of four (`RxParseOf<true, 4096>`, two cycles a beat under
//! the CRC, and frames of up to 4096 bytes as the `ecp5-25` build takes:
//! longer ones are length errors).

use std::collections::VecDeque;

use ferroce_hdl::rx::rx_parse::{ErrorCode, HDR_BYTES};
use ferroce_proto::rng::Rng;
use ferroce_proto::wire::{
    self, AckRepr, Addressing, Body, CommonRepr, DataRepr, Ecn, NakCode, NakRepr, Opcode, TransportRepr,
};
use ferroce_proto::{ConnId, Iova, MsgSeq, PathId, Psn, Rkey, StreamId};
use ferroce_sim::equivalence::check_replay;
use ferroce_sim::verilator::{record_next, take_recording, ModelLib, Sim};

ferroce_sim::equivalence_inputs!(rx_parse_inputs: ferroce_hdl::rx::rx_parse::RxParse<false>;
    reset, s_axis_tdata, s_axis_tkeep, s_axis_tvalid, s_axis_tlast, s_axis_tuser, cfg_port, m_ready);
ferroce_sim::equivalence_inputs!(rx_parse_half_inputs: ferroce_hdl::rx::rx_parse::RxParseOf<true, 4096>;
    reset, s_axis_tdata, s_axis_tkeep, s_axis_tvalid, s_axis_tlast, s_axis_tuser, cfg_port, m_ready);

const PORT: u16 = wire::FERROCE_PORT;

fn valid_frame(rng: &mut Rng) -> Vec<u8> {
    let addr = Addressing {
        src_mac: [2, 0, 0, 0, 0, rng.below(255) as u8],
        dst_mac: [2, 0, 0, 0, 1, 1],
        src_ip: [10, 0, 0, rng.below(255) as u8],
        dst_ip: [10, 0, 1, 1],
        sport: 49152 + rng.below(16384) as u16,
        dport: PORT,
        dscp: rng.below(64) as u8,
        ecn: if rng.chance(0.5) { Ecn::Ect0 } else { Ecn::Ce },
        ttl: 64,
    };
    let common = |rng: &mut Rng, opcode| CommonRepr {
        opcode,
        conn: ConnId(rng.next_u64() as u16),
        path: PathId(rng.below(16) as u8),
        psn: Psn::new(rng.next_u64() as u32),
        timestamp: rng.next_u64() as u32,
        stream: StreamId(rng.next_u64() as u16),
        flags: rng.below(4) as u8,
        generation: rng.next_u64() as u8,
    };
    match rng.below(5) {
        0..=2 => {
            let opcode = [Opcode::Write, Opcode::WriteImm, Opcode::Send][rng.below(3) as usize];
            // Zero lengths now and then: refused by the model's field checks.
            let len = if rng.chance(0.02) {
                0
            } else if rng.chance(0.05) {
                1 + rng.below(9000)
            } else {
                1 + rng.below(300)
            } as u16;
            let offset = rng.below(100_000) as u32;
            let payload: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let t = TransportRepr {
                common: common(rng, opcode),
                body: Body::Data(DataRepr {
                    msg_seq: MsgSeq(rng.next_u64() as u32),
                    msg_len: if rng.chance(0.02) { 0 } else { offset + len as u32 + rng.below(5000) as u32 },
                    offset,
                    payload_len: len,
                    remote_addr: Iova(rng.next_u64()),
                    rkey: Rkey(rng.next_u64() as u32),
                    immediate: rng.next_u64() as u32,
                }),
            };
            wire::encode(&addr, &t, &payload)
        }
        3 => {
            let mut sack = [0u8; 32];
            sack.iter_mut().for_each(|b| *b = rng.next_u64() as u8);
            let a = AckRepr { sack, ts_echo: 1, rate_hint_mbps: 2, ecn_ce: 3, acked_pkts: 4 };
            wire::encode(&addr, &TransportRepr { common: common(rng, Opcode::Ack), body: Body::Ack(a) }, &[])
        }
        _ => {
            let code =
                [NakCode::Access, NakCode::NoRecv, NakCode::RecvTooSmall, NakCode::SeqErr][rng.below(4) as usize];
            let n = NakRepr { code, msg_seq: MsgSeq(7), info: 9 };
            wire::encode(&addr, &TransportRepr { common: common(rng, Opcode::Nak), body: Body::Nak(n) }, &[])
        }
    }
}

/// A data frame whose headers all describe a frame of `max` bytes, with
/// 1-16 bytes more before its CRC trailer (and the CRC over them all): only
/// the frame's real length gives it away.
fn over_long(rng: &mut Rng, max: usize) -> Vec<u8> {
    let mut f = data_frame(rng, max);
    let n = f.len();
    f.splice(n - 4..n - 4, (0..1 + rng.below(16)).map(|_| rng.next_u64() as u8));
    let n = f.len();
    let crc = wire::crc32(&f[42..n - 4]);
    f[n - 4..].copy_from_slice(&crc.to_le_bytes());
    f
}

/// A valid data frame of `len` bytes.
fn data_frame(rng: &mut Rng, len: usize) -> Vec<u8> {
    let payload: Vec<u8> = (0..len - wire::DATA_FRAME_OVERHEAD).map(|_| rng.next_u64() as u8).collect();
    let addr = Addressing {
        src_mac: [2, 0, 0, 0, 0, 1],
        dst_mac: [2, 0, 0, 0, 1, 1],
        src_ip: [10, 0, 0, 1],
        dst_ip: [10, 0, 1, 1],
        sport: 50_000,
        dport: PORT,
        dscp: 0,
        ecn: Ecn::Ect0,
        ttl: 64,
    };
    let t = TransportRepr {
        common: CommonRepr {
            opcode: Opcode::Write,
            conn: ConnId(1),
            path: PathId(0),
            psn: Psn::new(0),
            timestamp: 0,
            stream: StreamId(0),
            flags: 0,
            generation: 0,
        },
        body: Body::Data(DataRepr {
            msg_seq: MsgSeq(0),
            msg_len: payload.len() as u32,
            offset: 0,
            payload_len: payload.len() as u16,
            remote_addr: Iova(0),
            rkey: Rkey(1),
            immediate: 0,
        }),
    };
    let f = wire::encode(&addr, &t, &payload);
    assert_eq!(f.len(), len);
    f
}

/// A frame for a parser that takes frames of up to `max` bytes.
fn frame(rng: &mut Rng, max: usize) -> Vec<u8> {
    let mut f = valid_frame(rng);
    match rng.below(11) {
        0..=4 => {} // valid
        10 => {
            // Damage the transport header and fix the CRC, so that the
            // checks behind the CRC (version, opcode, lengths) are reached.
            let at = 42 + rng.below(32.min(f.len() as u64 - 46)) as usize;
            f[at] ^= 1 << rng.below(8);
            if rng.chance(0.3) {
                f[43] = rng.next_u64() as u8; // opcode
            }
            let n = f.len();
            let crc = wire::crc32(&f[42..n - 4]);
            f[n - 4..].copy_from_slice(&crc.to_le_bytes());
        }
        5 | 6 => {
            for _ in 0..1 + rng.below(3) {
                let bit = rng.below(f.len() as u64 * 8) as usize;
                f[bit / 8] ^= 1 << (bit % 8);
            }
        }
        7 if rng.chance(0.02) => f.resize(wire::MAX_FRAME_LEN + 1 + rng.below(100) as usize, 0x5a),
        7 if rng.chance(0.02) => f = over_long(rng, max),
        7 if rng.chance(0.02) => f = data_frame(rng, max),
        7 if rng.chance(0.02) => {
            let len = 4097 + rng.below(12_000) as usize;
            f = data_frame(rng, len);
        }
        7 => f.truncate(1 + rng.below(f.len() as u64) as usize),
        8 => f.extend((0..1 + rng.below(20)).map(|_| rng.next_u64() as u8)),
        _ => f = (0..1 + rng.below(200)).map(|_| rng.next_u64() as u8).collect(),
    }
    f
}

#[test]
fn parser_agrees_with_the_model_on_valid_and_broken_frames() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::rx::rx_parse::RxParse::<false>::default());
    let cycles = agrees_with_the_model("rx_parse", &v, wire::MAX_FRAME_LEN);
    let rec = take_recording("rx_parse").expect("the first cycles were recorded");
    check_replay::<rx_parse_inputs>("rx_parse", &rec, &[]);
    // The CRC of four bytes a cycle: the same frames, the same verdicts;
    // each beat under the CRC takes a cycle more.
    // As the `ecp5-25` build has it: frames of up to 4096 bytes (its
    // receive FIFO's), so the longer ones are length errors.
    let e = ferroce_proto::config::EngineConfig::ECP5_25;
    assert_eq!((e.crc_bytes, e.max_frame_len()), (4, 4096));
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::rx::rx_parse::RxParseOf::<true, 4096>::default());
    let half_cycles = agrees_with_the_model("rx_parse_half", &v, 4096);
    let rec = take_recording("rx_parse_half").expect("the first cycles were recorded");
    check_replay::<rx_parse_half_inputs>("rx_parse_half", &rec, &[]);
    assert!(half_cycles > cycles + 1_000_000, "four bytes a cycle: {half_cycles} cycles, eight: {cycles}");
}

/// Runs the test's frames through the parser's Verilog (model `name`, for
/// frames of up to `max` bytes), recording its first cycles; the cycles it
/// took.
fn agrees_with_the_model(name: &str, v: &str, max: usize) -> u64 {
    let lib = ModelLib::build(name, v).expect("rx_parse model builds");
    record_next(name, REPLAYED);
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let p = |n: &str| s.port(n);
    let (reset, tdata, tkeep, tvalid, tready, tlast, tuser, cfg_port) = (
        p("reset"),
        p("s_axis_tdata"),
        p("s_axis_tkeep"),
        p("s_axis_tvalid"),
        p("s_axis_tready"),
        p("s_axis_tlast"),
        p("s_axis_tuser"),
        p("cfg_port"),
    );
    let (m_valid, m_ready, m_good, m_error, m_len) =
        (p("m_valid"), p("m_ready"), p("m_good"), p("m_error"), p("m_len"));
    s.set(cfg_port, PORT as u64);
    s.set(reset, 1);
    s.tick();
    s.set(reset, 0);

    let mut rng = Rng::new(2024);
    let total = 100_000;
    let mut sent = 0;
    let mut expected: VecDeque<(ErrorCode, Vec<u8>)> = VecDeque::new();
    let mut current: Option<(Vec<u8>, usize, Option<usize>)> = None; // frame, next byte, flagged beat
    let mut held: Option<(u64, u64, u64)> = None;
    let mut counts = [0u64; 9];
    // Valid frames of exactly `max` bytes, and frames longer than `max`
    // that a full-size parser would take.
    let (mut at_max, mut between) = (0u64, 0u64);
    let mut checked = 0;
    let mut idle_cycles = 0;
    let mut cycles = 0u64;
    while checked < total {
        // Source: a new frame when the last is out; random idle.
        if current.is_none() && sent < total {
            let f = frame(&mut rng, max);
            let beats = f.len().div_ceil(8);
            let flagged = match rng.below(40) {
                0 => Some(beats - 1),
                1 => Some(rng.below(beats as u64) as usize),
                _ => None,
            };
            let code = if flagged.is_some() {
                ErrorCode::MacError
            } else if f.len() > max {
                ErrorCode::BadLength
            } else {
                ErrorCode::of(&wire::parse(&f, PORT))
            };
            at_max += (f.len() == max && code == ErrorCode::None) as u64;
            between += (f.len() > max && f.len() <= wire::MAX_FRAME_LEN) as u64;
            expected.push_back((code, f.clone()));
            current = Some((f, 0, flagged));
            sent += 1;
        }
        let offer = current.is_some() && !rng.chance(0.15);
        if let (true, Some((f, at, flagged))) = (offer, &current) {
            let n = (f.len() - at).min(8);
            s.set(tuser, (*flagged == Some(at / 8)) as u64);
            let mut d = 0u64;
            for i in 0..n {
                d |= (f[at + i] as u64) << (8 * i);
            }
            s.set(tdata, d);
            s.set(tkeep, (1u64 << n) - 1);
            s.set(tlast, (at + n == f.len()) as u64);
            s.set(tvalid, 1);
        } else {
            s.set(tvalid, 0);
        }
        let ready_out = !rng.chance(0.3);
        s.set(m_ready, ready_out as u64);
        s.eval();
        let beat_taken = offer && s.get(tready) == 1;
        let result = (s.get(m_valid) == 1).then(|| (s.get(m_good), s.get(m_error), s.get(m_len)));
        if let Some(r) = result {
            if let Some(h) = held {
                assert_eq!(h, r, "result changed while not taken");
            }
            held = Some(r);
        }
        let result_taken = result.is_some() && ready_out;
        s.tick();
        cycles += 1;
        if beat_taken {
            let (f, at, _) = current.as_mut().expect("a frame was offered");
            *at += 8.min(f.len() - *at);
            if *at == f.len() {
                current = None;
            }
        }
        if result_taken {
            let (good, error, len) = result.expect("taken");
            let (code, f) = expected.pop_front().expect("a result with no frame behind it");
            assert_eq!(
                error,
                code as u64,
                "frame {checked}: error code for {} bytes: {:02x?}",
                f.len(),
                &f[..f.len().min(64)]
            );
            assert_eq!(good == 1, code == ErrorCode::None, "frame {checked}: good flag");
            assert_eq!(len as usize, f.len().min(max), "frame {checked}: length (saturating)");
            counts[code as usize] += 1;
            checked += 1;
            held = None;
            idle_cycles = 0;
        } else {
            idle_cycles += 1;
            assert!(idle_cycles < 10_000, "pipeline hung after {checked} frames");
        }
    }
    assert!(counts[0] > 45_000, "valid frames accepted: {counts:?}");
    assert!(at_max > 100, "{at_max} valid frames of {max} bytes");
    assert!(max == wire::MAX_FRAME_LEN || between > 100, "{between} frames longer than {max} bytes");
    for code in 1..9 {
        assert!(counts[code] > 50, "error class {code} exercised: {counts:?}");
    }
    cycles
}

/// Cycles of this test's traffic replayed into rust-hdl's simulator.
const REPLAYED: u64 = 4000;

#[test]
fn header_bytes_of_a_good_frame_are_presented() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::rx::rx_parse::RxParse::<false>::default());
    let lib = ModelLib::build("rx_parse", &v).expect("rx_parse model builds");
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let p = |n: &str| s.port(n);
    let (reset, tdata, tkeep, tvalid, tlast, cfg_port, m_valid, m_ready, m_hdr) = (
        p("reset"),
        p("s_axis_tdata"),
        p("s_axis_tkeep"),
        p("s_axis_tvalid"),
        p("s_axis_tlast"),
        p("cfg_port"),
        p("m_valid"),
        p("m_ready"),
        p("m_hdr"),
    );
    s.set(cfg_port, PORT as u64);
    s.set(reset, 1);
    s.tick();
    s.set(reset, 0);
    let mut rng = Rng::new(8);
    for _ in 0..2000 {
        let f = valid_frame(&mut rng);
        for (k, chunk) in f.chunks(8).enumerate() {
            let d = chunk.iter().enumerate().fold(0u64, |a, (i, b)| a | (*b as u64) << (8 * i));
            s.set(tdata, d);
            s.set(tkeep, (1u64 << chunk.len()) - 1);
            s.set(tlast, ((k + 1) * 8 >= f.len()) as u64);
            s.set(tvalid, 1);
            s.tick();
        }
        s.set(tvalid, 0);
        s.set(m_ready, 0);
        while s.get(m_valid) == 0 {
            s.tick();
        }
        let words = s.get_words(m_hdr);
        let n = f.len().min(HDR_BYTES);
        for i in 0..n {
            let got = (words[i / 4] >> (8 * (i % 4))) as u8;
            assert_eq!(got, f[i], "header byte {i}");
        }
        s.set(m_ready, 1);
        s.tick();
        s.set(m_ready, 0);
    }
}
