//! The `tx_build` RTL block in Verilator against
//! `ferroce_proto::wire::encode` (its frames without the CRC trailer, which
//! `crc_append` adds): random data, ACK and NAK packets of every size,
//! payload delivered with random gaps and junk above the last beat's
//! bytes, the output with random
//! back-pressure and a protocol checker, the next header offered while
//! earlier frames are still going out; every frame equals the model's byte
//! for byte.

use std::collections::VecDeque;

use ferroce_proto::rng::Rng;
use ferroce_proto::wire::{self, Addressing, Body, Opcode, TransportRepr};
use ferroce_sim::axis::{random_packet, FrameOut};
use ferroce_sim::verilator::{ModelLib, Sim};

ferroce_sim::equivalence_inputs!(tx_build_inputs: ferroce_hdl::tx::tx_build::TxBuild;
    reset, hdr_valid, eth_dst, eth_src, ip_dscp, ip_ecn, ip_ttl, ip_src, ip_dst, udp_sport, udp_dport, bth_opcode, bth_conn, bth_path, bth_psn, bth_timestamp, bth_stream, bth_flags, bth_generation, data_msg_seq, data_msg_len, data_offset, data_payload_len, data_remote_addr, data_rkey, data_immediate, ack_sack, ack_ts_echo, ack_rate_hint, ack_ecn_ce, ack_acked_pkts, nak_code, nak_msg_seq, nak_info, s_payload_tdata, s_payload_tkeep, s_payload_tvalid, s_payload_tlast, m_axis_tready);

fn be(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |a, b| (a << 8) | *b as u64)
}

/// Puts a packet's fields on the header ports.
fn offer(s: &mut Sim, addr: &Addressing, t: &TransportRepr) {
    let set = |s: &mut Sim, n: &str, v: u64| {
        let port = s.port(n);
        s.set(port, v)
    };
    let c = t.common;
    set(s, "eth_dst", be(&addr.dst_mac));
    set(s, "eth_src", be(&addr.src_mac));
    set(s, "ip_dscp", addr.dscp as u64);
    set(s, "ip_ecn", addr.ecn as u64);
    set(s, "ip_ttl", addr.ttl as u64);
    set(s, "ip_src", be(&addr.src_ip));
    set(s, "ip_dst", be(&addr.dst_ip));
    set(s, "udp_sport", addr.sport as u64);
    set(s, "udp_dport", addr.dport as u64);
    set(s, "bth_opcode", c.opcode as u64);
    set(s, "bth_conn", c.conn.0 as u64);
    set(s, "bth_path", c.path.0 as u64);
    set(s, "bth_psn", c.psn.get() as u64);
    set(s, "bth_timestamp", c.timestamp as u64);
    set(s, "bth_stream", c.stream.0 as u64);
    set(s, "bth_flags", c.flags as u64);
    set(s, "bth_generation", c.generation as u64);
    match t.body {
        Body::Data(d) => {
            set(s, "data_msg_seq", d.msg_seq.0 as u64);
            set(s, "data_msg_len", d.msg_len as u64);
            set(s, "data_offset", d.offset as u64);
            set(s, "data_payload_len", d.payload_len as u64);
            set(s, "data_remote_addr", d.remote_addr.0);
            set(s, "data_rkey", d.rkey.0 as u64);
            set(s, "data_immediate", d.immediate as u64);
        }
        Body::Ack(a) => {
            // The SACK field's byte i is frame byte 58 + i: big-endian
            // field, so its first byte is the most significant.
            let mut words = [0u32; 8];
            for (i, b) in a.sack.iter().enumerate() {
                let bit = 8 * (31 - i);
                words[bit / 32] |= (*b as u32) << (bit % 32);
            }
            let sp = s.port("ack_sack");
            s.set_words(sp, &words);
            set(s, "ack_ts_echo", a.ts_echo as u64);
            set(s, "ack_rate_hint", a.rate_hint_mbps as u64);
            set(s, "ack_ecn_ce", a.ecn_ce as u64);
            set(s, "ack_acked_pkts", a.acked_pkts as u64);
        }
        Body::Nak(n) => {
            set(s, "nak_code", n.code as u64);
            set(s, "nak_msg_seq", n.msg_seq.0 as u64);
            set(s, "nak_info", n.info as u64);
        }
    }
}

#[test]
fn frames_equal_the_model_byte_for_byte() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx::tx_build::TxBuild::default());
    let lib = ModelLib::build("tx_build", &v).expect("tx_build model builds");
    ferroce_sim::verilator::record_next("tx_build", REPLAYED);
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let r = s.port("reset");
    s.set(r, 1);
    s.tick();
    s.set(r, 0);
    let p = |s: &Sim, n: &str| s.port(n);
    let mut rng = Rng::new(31);
    let (mut frames, mut bytes) = (0, 0usize);
    // Headers are offered while earlier frames are still going out, so the
    // holding register and back-to-back frames are exercised.
    let mut offered: Option<(Vec<u8>, Opcode)> = None;
    let mut out_q: VecDeque<(Vec<u8>, Opcode)> = VecDeque::new();
    let mut pay_q: VecDeque<(Vec<u8>, usize)> = VecDeque::new();
    let mut out = FrameOut::default();
    let mut idle = 0;
    let mut made = 0;
    while frames < 20_000 {
        if offered.is_none() && made < 20_000 && rng.chance(0.7) {
            let (addr, t, payload) = random_packet(&mut rng);
            // The frame without its CRC trailer (crc_append's).
            let mut frame = wire::encode(&addr, &t, &payload);
            frame.truncate(frame.len() - wire::headers::CRC_LEN);
            offered = Some((frame, t.common.opcode));
            offer(&mut s, &addr, &t);
            if !payload.is_empty() {
                pay_q.push_back((payload, 0));
            }
            made += 1;
        }
        s.set(p(&s, "hdr_valid"), offered.is_some() as u64);
        // Payload source with gaps, in header order.
        let offer_pay = !pay_q.is_empty() && !rng.chance(0.3);
        if let (true, Some((payload, sent))) = (offer_pay, pay_q.front()) {
            let n = (payload.len() - sent).min(8);
            let d = payload[*sent..sent + n].iter().enumerate().fold(0u64, |a, (i, b)| a | (*b as u64) << (8 * i));
            // Junk in the lanes above the last beat's bytes.
            let d = if n < 8 { d | rng.next_u64() << (8 * n) } else { d };
            s.set(p(&s, "s_payload_tdata"), d);
            s.set(p(&s, "s_payload_tkeep"), (1u64 << n) - 1);
            s.set(p(&s, "s_payload_tlast"), (sent + n == payload.len()) as u64);
        }
        s.set(p(&s, "s_payload_tvalid"), offer_pay as u64);
        let ready = !rng.chance(0.3);
        s.set(p(&s, "m_axis_tready"), ready as u64);
        s.eval();
        assert_eq!(
            s.get(p(&s, "busy")) == 1,
            !out_q.is_empty(),
            "busy while frames {} are held or going out",
            out_q.len()
        );
        let hdr_taken = offered.is_some() && s.get(p(&s, "hdr_ready")) == 1;
        let pay_taken = offer_pay && s.get(p(&s, "s_payload_tready")) == 1;
        let out_valid = s.get(p(&s, "m_axis_tvalid")) == 1;
        let beat = (s.get(p(&s, "m_axis_tdata")), s.get(p(&s, "m_axis_tkeep")), s.get(p(&s, "m_axis_tlast")));
        let done = out.cycle(out_valid, ready, beat);
        s.tick();
        idle = if out_valid { 0 } else { idle + 1 };
        assert!(idle < 100_000, "frame {frames} stuck");
        if hdr_taken {
            out_q.push_back(offered.take().unwrap());
        }
        if pay_taken {
            let (payload, sent) = pay_q.front_mut().unwrap();
            *sent += (payload.len() - *sent).min(8);
            if *sent == payload.len() {
                pay_q.pop_front();
            }
        }
        if let Some(got) = done {
            let (want, pw) = out_q.pop_front().expect("a frame only after its header was taken");
            assert_eq!(got.len(), want.len(), "frame {frames} length ({pw:?})");
            if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
                panic!(
                    "frame {frames} ({pw:?}, {} bytes) differs at byte {i}: got {:#04x}, want {:#04x}",
                    want.len(),
                    got[i],
                    want[i]
                );
            }
            frames += 1;
            bytes += got.len();
        }
    }
    assert!(bytes > 1_000_000, "{bytes} bytes built");
    // The same Rust in rust-hdl's own simulator, on this test's first cycles.
    let rec = ferroce_sim::verilator::take_recording("tx_build").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<tx_build_inputs>("tx_build", &rec, &[]);
}

/// Cycles of the main test's traffic replayed into rust-hdl's simulator.
const REPLAYED: u64 = 4000;
