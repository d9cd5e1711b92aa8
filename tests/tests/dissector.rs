//! The generated Wireshark dissector (docs/ferroce.lua) under tshark: good
//! frames decode with their names and Info column, each defect raises its
//! expert item and nothing else does, and the UDP port is a preference.
//! tshark is installed with apt-get where missing (`ferroce_sim::tools::
//! tshark`); where it cannot be, the test says why and passes.

use std::path::Path;
use std::process::Command;

use ferroce_proto::wire::headers::fields::common;
use ferroce_proto::wire::headers::{ACK, COMMON};
use ferroce_proto::wire::Field;
use ferroce_proto::wire::{self, AckRepr, Addressing, Body, CommonRepr, DataRepr, Ecn, NakCode, NakRepr, Opcode};
use ferroce_proto::wire::{TransportRepr, FERROCE_PORT};
use ferroce_proto::{ConnId, Iova, MsgSeq, PathId, Psn, Rkey, StreamId};
use ferroce_tests::{reframe, scratch, transport, write_pcap};

fn addr(dport: u16) -> Addressing {
    Addressing {
        src_mac: [2, 0, 0, 0, 0, 1],
        dst_mac: [2, 0, 0, 0, 0, 2],
        src_ip: [10, 0, 0, 1],
        dst_ip: [10, 0, 0, 2],
        sport: 49153,
        dport,
        dscp: 26,
        ecn: Ecn::Ect0,
        ttl: 64,
    }
}

fn common(opcode: Opcode, psn: u32, flags: u8) -> CommonRepr {
    CommonRepr {
        opcode,
        conn: ConnId(1),
        path: PathId(2),
        psn: Psn::new(psn),
        timestamp: 1000,
        stream: StreamId(0),
        flags,
        generation: 0,
    }
}

fn data(opcode: Opcode, psn: u32, flags: u8, dport: u16) -> Vec<u8> {
    let d = DataRepr {
        msg_seq: MsgSeq(3),
        msg_len: 4096,
        offset: 0,
        payload_len: 64,
        remote_addr: Iova(0x2_0000_0000),
        rkey: Rkey(0x7e57),
        immediate: 0,
    };
    wire::encode(&addr(dport), &TransportRepr { common: common(opcode, psn, flags), body: Body::Data(d) }, &[0xab; 64])
}

fn ack(cumulative: u32, sacked: &[u32]) -> Vec<u8> {
    let mut a = AckRepr { sack: [0; 32], ts_echo: 1000, rate_hint_mbps: 0, ecn_ce: 0, acked_pkts: 4 };
    for &p in sacked {
        a.set_sacked(Psn::new(p));
    }
    wire::encode(
        &addr(FERROCE_PORT),
        &TransportRepr { common: common(Opcode::Ack, cumulative, 0), body: Body::Ack(a) },
        &[],
    )
}

fn nak() -> Vec<u8> {
    let n = NakRepr { code: NakCode::Access, msg_seq: MsgSeq(3), info: 0 };
    wire::encode(&addr(FERROCE_PORT), &TransportRepr { common: common(Opcode::Nak, 9, 0), body: Body::Nak(n) }, &[])
}

/// `frame` with common-header field `field` set to `v`, CRC recomputed.
fn with_common(frame: &[u8], field: Field, v: u64) -> Vec<u8> {
    let mut tp = transport(frame);
    field.set(&mut tp, v);
    reframe(frame, &tp, None)
}

/// The frames of the capture with the expert items each must raise (and
/// no other) and the start of its Info column.
fn capture() -> Vec<(Vec<u8>, &'static [&'static str], &'static str)> {
    let good = data(Opcode::Write, 5, 0, FERROCE_PORT);
    let mut bad_crc = good.clone();
    let n = bad_crc.len();
    bad_crc[n - 1] ^= 0x01;
    let mut short_ack = transport(&ack(7, &[8]));
    short_ack.truncate(COMMON.len + ACK.len - 28);
    let mut long_ack = transport(&ack(7, &[8]));
    long_ack.extend_from_slice(&[0; 4]);
    let mut bad_len = transport(&good);
    ferroce_proto::wire::headers::fields::data::PAYLOAD_LEN.set(&mut bad_len[COMMON.len..], 65);
    vec![
        (good.clone(), &[], "WRITE conn=1 path=2 psn=5 len=64"),
        (
            data(Opcode::Send, 6, wire::flags::RETX | wire::flags::ACK_REQ, FERROCE_PORT),
            &[],
            "SEND conn=1 path=2 psn=6 len=64 [RETX,ACK_REQ]",
        ),
        (ack(7, &[8, 10, 12]), &[], "ACK conn=1 path=2 cum_psn=7 sacked=3"),
        (nak(), &[], "NAK conn=1 path=2 psn=9 ACCESS"),
        (bad_crc, &["ferroce.bad_crc"], "WRITE conn=1 path=2 psn=5 len=64 [bad CRC]"),
        (reframe(&good, &short_ack, None), &["ferroce.bad_length"], "ACK conn=1 path=2 psn=7 [truncated]"),
        (reframe(&good, &long_ack, None), &["ferroce.bad_length"], "ACK conn=1 path=2 cum_psn=7 sacked=1"),
        (with_common(&good, common::OPCODE, 0x42), &["ferroce.unknown_opcode"], "opcode 0x42 conn=1 path=2 psn=5"),
        (reframe(&good, &bad_len, None), &["ferroce.bad_length"], "WRITE conn=1 path=2 psn=5 len=64"),
        (with_common(&good, common::VERSION, 2), &["ferroce.bad_version"], "WRITE conn=1 path=2 psn=5"),
        (with_common(&good, common::RESERVED0, 0x5), &["ferroce.reserved"], "WRITE conn=1 path=2 psn=5"),
        (with_common(&good, common::FLAGS, 0x40), &["ferroce.reserved"], "WRITE conn=1 path=2 psn=5"),
    ]
}

const EXPERTS: &[&str] =
    &["ferroce.bad_crc", "ferroce.bad_length", "ferroce.unknown_opcode", "ferroce.bad_version", "ferroce.reserved"];

/// tshark's fields for every frame of `pcap`, one line per frame.
fn tshark(bin: &Path, pcap: &Path, extra: &[&str], fields: &[&str]) -> Vec<Vec<String>> {
    let lua = ferroce_sim::tools::workspace_root().join("docs/ferroce.lua");
    let mut c = Command::new(bin);
    c.arg("-n").arg("-X").arg(format!("lua_script:{}", lua.display())).arg("-r").arg(pcap);
    c.args(extra).args(["-T", "fields", "-E", "separator=|"]);
    for f in fields {
        c.args(["-e", f]);
    }
    let out = c.output().expect("tshark runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tshark failed: {err}");
    assert!(!err.contains("Lua: Error") && !err.contains("lua_script"), "the dissector does not load: {err}");
    String::from_utf8_lossy(&out.stdout).lines().map(|l| l.split('|').map(str::to_string).collect()).collect()
}

fn tshark_or_skip() -> Option<std::path::PathBuf> {
    match ferroce_sim::tools::tshark(&mut |l| eprintln!("{l}")) {
        Ok(p) => Some(p),
        Err(e) => {
            eprintln!("SKIPPED: the dissector test needs tshark: {e}");
            None
        }
    }
}

#[test]
fn each_defect_raises_its_expert_item_and_good_frames_none() {
    let Some(bin) = tshark_or_skip() else { return };
    let frames = capture();
    let dir = scratch("dissector");
    let pcap = dir.join("defects.pcap");
    write_pcap(&pcap, &frames.iter().map(|f| f.0.clone()).collect::<Vec<_>>()).unwrap();
    // The errors are errors to the parser too (reserved bits it ignores):
    // the capture means what it says.
    for (i, (fr, experts, _)) in frames.iter().enumerate() {
        let error = experts.iter().any(|e| *e != "ferroce.reserved");
        assert_eq!(wire::parse(fr, FERROCE_PORT).is_err(), error, "frame {}", i + 1);
    }
    let rows = tshark(&bin, &pcap, &[], &["frame.number", "_ws.col.Protocol", "_ws.col.Info"]);
    assert_eq!(rows.len(), frames.len());
    for (row, (_, _, info)) in rows.iter().zip(&frames) {
        assert_eq!(row[1], "ferroce", "frame {}", row[0]);
        assert!(row[2].starts_with(info), "frame {}: Info {:?}, expected {info:?}", row[0], row[2]);
    }
    for expert in EXPERTS {
        let want: Vec<String> =
            frames.iter().enumerate().filter(|(_, f)| f.1.contains(expert)).map(|(i, _)| (i + 1).to_string()).collect();
        assert!(!want.is_empty(), "the capture has a frame for {expert}");
        let got: Vec<String> =
            tshark(&bin, &pcap, &["-Y", expert], &["frame.number"]).into_iter().map(|r| r[0].clone()).collect();
        assert_eq!(got, want, "frames with {expert}");
    }
}

#[test]
fn names_show_in_the_tree_and_the_sack_count_is_generated() {
    let Some(bin) = tshark_or_skip() else { return };
    let dir = scratch("dissector-names");
    let pcap = dir.join("names.pcap");
    write_pcap(&pcap, &[ack(7, &[8, 10, 12, 300]), data(Opcode::WriteImm, 1, wire::flags::RETX, FERROCE_PORT)])
        .unwrap();
    let rows = tshark(
        &bin,
        &pcap,
        &[],
        &["ferroce.common_opcode", "ferroce.ack_sacked", "ferroce.common_flags.retx", "ferroce.common_flags.ack_req"],
    );
    // 300 is slot 44: four slots set in all.
    assert_eq!(rows[0][..2], ["0x10", "4"]);
    assert_eq!(rows[1][0], "0x02");
    assert_eq!(rows[1][2..], ["1", "0"]);
    let verbose = Command::new(&bin)
        .args(["-n", "-V", "-X"])
        .arg(format!("lua_script:{}", ferroce_sim::tools::workspace_root().join("docs/ferroce.lua").display()))
        .arg("-r")
        .arg(&pcap)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&verbose.stdout);
    for want in ["opcode: ACK (0x10)", "opcode: WRITE_IMM (0x02)", "RETX: True", "ACK_REQ: False", "[SACKed slots: 4]"]
    {
        assert!(text.contains(want), "tshark -V lacks {want:?}:\n{text}");
    }
}

#[test]
fn the_udp_port_is_a_preference() {
    let Some(bin) = tshark_or_skip() else { return };
    let dir = scratch("dissector-port");
    let pcap = dir.join("port.pcap");
    write_pcap(&pcap, &[data(Opcode::Write, 1, 0, 18000), data(Opcode::Write, 2, 0, FERROCE_PORT)]).unwrap();
    let default = tshark(&bin, &pcap, &[], &["_ws.col.Protocol"]);
    assert_eq!(default, [["UDP"], ["ferroce"]]);
    let moved = tshark(&bin, &pcap, &["-o", "ferroce.port:18000"], &["_ws.col.Protocol"]);
    assert_eq!(moved, [["ferroce"], ["UDP"]]);
}
