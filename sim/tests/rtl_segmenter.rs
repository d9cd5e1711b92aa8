//! The `segmenter` RTL block in Verilator against
//! `ferroce_proto::model::sendq::SendQueue`: random WRITE, WRITE with
//! immediate and SEND messages on eight streams, cut with random MTUs; every
//! packet (stream choice, offsets, lengths, addresses, header fields) equals
//! the model's.

use std::collections::{HashMap, VecDeque};

use ferroce_proto::model::sendq::SendQueue;
use ferroce_proto::rng::Rng;
use ferroce_proto::transport::WorkRequest;
use ferroce_proto::wire::Opcode;
use ferroce_proto::{ConnId, Iova, Rkey, StreamId, WrId};
use ferroce_sim::verilator::{ModelLib, Sim};

ferroce_sim::equivalence_inputs!(segmenter_inputs: ferroce_hdl::tx::segmenter::Segmenter;
    reset, load_valid, load_stream, load_len, load_local, load_remote, load_rkey, load_imm, load_opcode, load_msg_seq, next_valid, mtu);

struct Head {
    len: u32,
    local: u64,
    remote: u64,
    rkey: u32,
    imm: u32,
    opcode: Opcode,
    msg_seq: u32,
}

#[test]
fn packets_match_the_model() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx::segmenter::Segmenter::default());
    let lib = ModelLib::build("segmenter", &v).expect("segmenter model builds");
    ferroce_sim::verilator::record_next("segmenter", REPLAYED);
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let names = [
        "reset",
        "load_valid",
        "load_stream",
        "load_len",
        "load_local",
        "load_remote",
        "load_rkey",
        "load_imm",
        "load_opcode",
        "load_msg_seq",
        "need",
        "next_valid",
        "mtu",
        "out_valid",
        "out_found",
        "out_stream",
        "out_msg_seq",
        "out_opcode",
        "out_msg_len",
        "out_offset",
        "out_len",
        "out_local",
        "out_remote",
        "out_rkey",
        "out_imm",
        "out_last",
    ];
    let p: HashMap<&str, _> = names.iter().map(|n| (*n, s.port(n))).collect();
    s.set(p["reset"], 1);
    s.tick();
    s.set(p["reset"], 0);
    let mut rng = Rng::new(17);
    let mut model = SendQueue::new(ConnId(1), 8);
    let mut heads: Vec<VecDeque<Head>> = (0..8).map(|_| VecDeque::new()).collect();
    let mut seq = [0u32; 8];
    let mut rsn = [0u32; 8];
    let (mut packets, mut idle_answers, mut id) = (0, 0, 0u64);
    while packets < 50_000 {
        // Post new work now and then (more on some streams than others).
        if rng.chance(0.3) {
            let st = if rng.chance(0.5) { rng.below(3) } else { rng.below(8) } as usize;
            let span = if rng.chance(0.3) { 30_000 } else { 3_000 };
            let len = 1 + rng.below(span) as u32;
            let local = rng.next_u64() >> 8;
            let (wr, head) = match rng.below(3) {
                0 | 1 => {
                    let imm = (rng.below(2) == 1).then(|| rng.next_u64() as u32);
                    let (remote, rkey) = (rng.next_u64() >> 8, rng.next_u64() as u32);
                    let wr = WorkRequest::Write {
                        id: WrId(id),
                        conn: ConnId(1),
                        stream: StreamId(st as u16),
                        local: Iova(local),
                        len,
                        remote: Iova(remote),
                        rkey: Rkey(rkey),
                        imm,
                    };
                    let opcode = if imm.is_some() { Opcode::WriteImm } else { Opcode::Write };
                    (wr, Head { len, local, remote, rkey, imm: imm.unwrap_or(0), opcode, msg_seq: seq[st] })
                }
                _ => {
                    let wr = WorkRequest::Send {
                        id: WrId(id),
                        conn: ConnId(1),
                        stream: StreamId(st as u16),
                        local: Iova(local),
                        len,
                    };
                    rsn[st] += 1;
                    (
                        wr,
                        Head {
                            len,
                            local,
                            remote: 0,
                            rkey: rsn[st] - 1,
                            imm: 0,
                            opcode: Opcode::Send,
                            msg_seq: seq[st],
                        },
                    )
                }
            };
            seq[st] += 1;
            id += 1;
            model.post(wr).expect("valid work request");
            heads[st].push_back(head);
        }
        // Give every stream that has run dry its next message.
        let need = s.get(p["need"]);
        for (st, queue) in heads.iter_mut().enumerate() {
            if need >> st & 1 == 1 {
                if let Some(h) = queue.pop_front() {
                    for (n, v) in [
                        ("load_valid", 1),
                        ("load_stream", st as u64),
                        ("load_len", h.len as u64),
                        ("load_local", h.local),
                        ("load_remote", h.remote),
                        ("load_rkey", h.rkey as u64),
                        ("load_imm", h.imm as u64),
                        ("load_opcode", h.opcode as u64),
                        ("load_msg_seq", h.msg_seq as u64),
                    ] {
                        s.set(p[n], v);
                    }
                    s.tick();
                    s.set(p["load_valid"], 0);
                }
            }
        }
        let mtu = [256u32, 1024, 4096, 9000, 1 + rng.below(9000) as u32][rng.below(5) as usize];
        s.set(p["next_valid"], 1);
        s.set(p["mtu"], mtu as u64);
        s.tick();
        s.set(p["next_valid"], 0);
        assert_eq!(s.get(p["out_valid"]), 1);
        let want = model.next_segment(mtu);
        assert_eq!(s.get(p["out_found"]) == 1, want.is_some(), "packet {packets}: found");
        let Some(w) = want else {
            idle_answers += 1;
            continue;
        };
        let got = (
            s.get(p["out_stream"]),
            s.get(p["out_msg_seq"]) as u32,
            s.get(p["out_opcode"]),
            s.get(p["out_msg_len"]) as u32,
            s.get(p["out_offset"]) as u32,
            s.get(p["out_len"]) as u16,
            s.get(p["out_local"]),
            s.get(p["out_remote"]),
            s.get(p["out_rkey"]) as u32,
            s.get(p["out_imm"]) as u32,
            s.get(p["out_last"]) == 1,
        );
        let want = (
            w.stream.0 as u64,
            w.msg_seq.0,
            w.opcode as u64,
            w.msg_len,
            w.offset,
            w.len,
            w.local.0,
            w.remote_addr.0,
            w.rkey.0,
            w.immediate,
            w.last,
        );
        assert_eq!(got, want, "packet {packets}");
        // Acknowledge at once, so that the model's message window (which the
        // work-request fetch enforces in hardware) never holds a stream back.
        model.ack(w.stream, w.msg_seq, w.len as u32);
        while model.poll_completion().is_some() {}
        packets += 1;
    }
    assert!(idle_answers > 0, "the empty case was exercised");
    // The same Rust in rust-hdl's own simulator, on this test's first cycles.
    let rec = ferroce_sim::verilator::take_recording("segmenter").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<segmenter_inputs>("segmenter", &rec, &[]);
}

/// Cycles of the main test's traffic replayed into rust-hdl's simulator.
const REPLAYED: u64 = 4000;
