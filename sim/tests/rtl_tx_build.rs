//! The `tx_build` RTL block in Verilator against
//! `ferroce_proto::wire::encode`: random data, ACK and NAK packets of every
//! size, payload delivered with random gaps, the output with random
//! back-pressure and a protocol checker; every frame equals the model's
//! byte for byte.

use ferroce_proto::rng::Rng;
use ferroce_proto::wire::{
    self, AckRepr, Addressing, Body, CommonRepr, DataRepr, Ecn, NakCode, NakRepr, Opcode, TransportRepr,
};
use ferroce_proto::{ConnId, Iova, MsgSeq, PathId, Psn, Rkey, StreamId};
use ferroce_sim::verilator::{ModelLib, Sim};

fn packet(rng: &mut Rng) -> (Addressing, TransportRepr, Vec<u8>) {
    let addr = Addressing {
        src_mac: rng.next_u64().to_be_bytes()[2..].try_into().unwrap(),
        dst_mac: rng.next_u64().to_be_bytes()[2..].try_into().unwrap(),
        src_ip: (rng.next_u64() as u32).to_be_bytes(),
        dst_ip: (rng.next_u64() as u32).to_be_bytes(),
        sport: rng.next_u64() as u16,
        dport: wire::FERROCE_PORT,
        dscp: rng.below(64) as u8,
        ecn: [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce][rng.below(4) as usize],
        ttl: rng.next_u64() as u8,
    };
    let common = |rng: &mut Rng, opcode| CommonRepr {
        opcode,
        conn: ConnId(rng.next_u64() as u16),
        path: PathId(rng.next_u64() as u8),
        psn: Psn::new(rng.next_u64() as u32),
        timestamp: rng.next_u64() as u32,
        stream: StreamId(rng.next_u64() as u16),
        flags: rng.next_u64() as u8,
    };
    match rng.below(4) {
        0 | 1 => {
            let len = if rng.chance(0.1) { 1 + rng.below(9000) } else { 1 + rng.below(100) } as u16;
            let payload: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let opcode = [Opcode::Write, Opcode::WriteImm, Opcode::Send][rng.below(3) as usize];
            let d = DataRepr {
                msg_seq: MsgSeq(rng.next_u64() as u32),
                msg_len: rng.next_u64() as u32,
                offset: rng.next_u64() as u32,
                payload_len: len,
                remote_addr: Iova(rng.next_u64()),
                rkey: Rkey(rng.next_u64() as u32),
                immediate: rng.next_u64() as u32,
            };
            (addr, TransportRepr { common: common(rng, opcode), body: Body::Data(d) }, payload)
        }
        2 => {
            let mut sack = [0u8; 32];
            sack.iter_mut().for_each(|b| *b = rng.next_u64() as u8);
            let a = AckRepr {
                sack,
                ts_echo: rng.next_u64() as u32,
                rate_hint_mbps: rng.next_u64() as u32,
                ecn_ce: rng.next_u64() as u16,
                acked_pkts: rng.next_u64() as u16,
            };
            (addr, TransportRepr { common: common(rng, Opcode::Ack), body: Body::Ack(a) }, vec![])
        }
        _ => {
            let n = NakRepr {
                code: [NakCode::Access, NakCode::NoRecv, NakCode::RecvTooSmall, NakCode::SeqErr][rng.below(4) as usize],
                msg_seq: MsgSeq(rng.next_u64() as u32),
                info: rng.next_u64() as u32,
            };
            (addr, TransportRepr { common: common(rng, Opcode::Nak), body: Body::Nak(n) }, vec![])
        }
    }
}

fn be(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |a, b| (a << 8) | *b as u64)
}

#[test]
fn frames_equal_the_model_byte_for_byte() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx_build::TxBuild::default());
    let lib = ModelLib::build("tx_build", &v).expect("tx_build model builds");
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let r = s.port("reset");
    s.set(r, 1);
    s.tick();
    s.set(r, 0);
    let p = |s: &Sim, n: &str| s.port(n);
    let mut rng = Rng::new(31);
    let (mut frames, mut bytes) = (0, 0usize);
    while frames < 20_000 {
        let (addr, t, payload) = packet(&mut rng);
        let want = wire::encode(&addr, &t, &payload);
        let c = t.common;
        let set = |s: &mut Sim, n: &str, v: u64| {
            let port = p(s, n);
            s.set(port, v)
        };
        set(&mut s, "eth_dst", be(&addr.dst_mac));
        set(&mut s, "eth_src", be(&addr.src_mac));
        set(&mut s, "ip_dscp", addr.dscp as u64);
        set(&mut s, "ip_ecn", addr.ecn as u64);
        set(&mut s, "ip_ttl", addr.ttl as u64);
        set(&mut s, "ip_src", be(&addr.src_ip));
        set(&mut s, "ip_dst", be(&addr.dst_ip));
        set(&mut s, "udp_sport", addr.sport as u64);
        set(&mut s, "udp_dport", addr.dport as u64);
        set(&mut s, "bth_opcode", c.opcode as u64);
        set(&mut s, "bth_conn", c.conn.0 as u64);
        set(&mut s, "bth_path", c.path.0 as u64);
        set(&mut s, "bth_psn", c.psn.get() as u64);
        set(&mut s, "bth_timestamp", c.timestamp as u64);
        set(&mut s, "bth_stream", c.stream.0 as u64);
        set(&mut s, "bth_flags", c.flags as u64);
        match t.body {
            Body::Data(d) => {
                set(&mut s, "data_msg_seq", d.msg_seq.0 as u64);
                set(&mut s, "data_msg_len", d.msg_len as u64);
                set(&mut s, "data_offset", d.offset as u64);
                set(&mut s, "data_payload_len", d.payload_len as u64);
                set(&mut s, "data_remote_addr", d.remote_addr.0);
                set(&mut s, "data_rkey", d.rkey.0 as u64);
                set(&mut s, "data_immediate", d.immediate as u64);
            }
            Body::Ack(a) => {
                // The SACK field's byte i is frame byte 58 + i: big-endian
                // field, so its first byte is the most significant.
                let mut words = [0u32; 8];
                for (i, b) in a.sack.iter().enumerate() {
                    let bit = 8 * (31 - i);
                    words[bit / 32] |= (*b as u32) << (bit % 32);
                }
                let sp = p(&s, "ack_sack");
                s.set_words(sp, &words);
                set(&mut s, "ack_ts_echo", a.ts_echo as u64);
                set(&mut s, "ack_rate_hint", a.rate_hint_mbps as u64);
                set(&mut s, "ack_ecn_ce", a.ecn_ce as u64);
                set(&mut s, "ack_acked_pkts", a.acked_pkts as u64);
            }
            Body::Nak(n) => {
                set(&mut s, "nak_code", n.code as u64);
                set(&mut s, "nak_msg_seq", n.msg_seq.0 as u64);
                set(&mut s, "nak_info", n.info as u64);
            }
        }
        // Offer the header until taken.
        set(&mut s, "hdr_valid", 1);
        let mut got: Vec<u8> = Vec::new();
        let mut sent_payload = 0usize;
        let mut header_taken = false;
        let mut held: Option<(u64, u64, u64)> = None;
        let mut cycles = 0;
        loop {
            // Payload source with gaps.
            let offer = header_taken && sent_payload < payload.len() && !rng.chance(0.3);
            if offer {
                let n = (payload.len() - sent_payload).min(8);
                let d = payload[sent_payload..sent_payload + n]
                    .iter()
                    .enumerate()
                    .fold(0u64, |a, (i, b)| a | (*b as u64) << (8 * i));
                set(&mut s, "s_payload_tdata", d);
                set(&mut s, "s_payload_tkeep", (1u64 << n) - 1);
                set(&mut s, "s_payload_tlast", (sent_payload + n == payload.len()) as u64);
            }
            set(&mut s, "s_payload_tvalid", offer as u64);
            let ready = !rng.chance(0.3);
            set(&mut s, "m_axis_tready", ready as u64);
            s.eval();
            let hdr_taken_now = !header_taken && s.get(p(&s, "hdr_ready")) == 1;
            let pay_taken = offer && s.get(p(&s, "s_payload_tready")) == 1;
            let out_valid = s.get(p(&s, "m_axis_tvalid")) == 1;
            let beat = (s.get(p(&s, "m_axis_tdata")), s.get(p(&s, "m_axis_tkeep")), s.get(p(&s, "m_axis_tlast")));
            if out_valid {
                if let Some(h) = held {
                    assert_eq!(h, beat, "output changed while stalled");
                }
                held = Some(beat);
            }
            s.tick();
            cycles += 1;
            assert!(cycles < 100_000, "frame {frames} stuck");
            if hdr_taken_now {
                header_taken = true;
                set(&mut s, "hdr_valid", 0);
            }
            if pay_taken {
                sent_payload += (payload.len() - sent_payload).min(8);
            }
            if out_valid && ready {
                held = None;
                let (d, k, last) = beat;
                assert!(k != 0 && (k & (k + 1)) == 0, "tkeep contiguous from lane 0: {k:#x}");
                for lane in 0..8 {
                    if k >> lane & 1 == 1 {
                        got.push((d >> (8 * lane)) as u8);
                    }
                }
                assert!(last == 1 || k == 0xff, "only the last beat is partial");
                if last == 1 {
                    break;
                }
            }
        }
        assert_eq!(got.len(), want.len(), "frame {frames} length ({:?})", t.common.opcode);
        if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
            panic!(
                "frame {frames} ({:?}, {} payload bytes) differs at byte {i}: got {:#04x}, want {:#04x}",
                t.common.opcode,
                payload.len(),
                got[i],
                want[i]
            );
        }
        frames += 1;
        bytes += got.len();
    }
    assert!(bytes > 1_000_000, "{bytes} bytes built");
}
