//! Differential check of the receive path: the reference receiver
//! (`ferroce_proto::model::Endpoint`) and the RTL `rx_path` in Verilator get
//! the same frames (from two model senders over a lossy, reordering,
//! duplicating, CE-marking, corrupting channel, with junk frames and ACK/NAK
//! feedback mixed in) and every frame must give the same DMA writes, ACKs
//! (cumulative PSN and SACK bitmap), NAKs, completions and feedback, in
//! order; ACK timers fire at the same moments in both; at the end the
//! memory images and counters agree. The model's ACKs drive the senders,
//! so losses are repaired by real retransmissions.
//!
//! Used by the `rtl_rx_path` test and by `cargo xtask diff --side rx`.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use ferroce_proto::model::{ConnConfig, Endpoint, EndpointConfig};
use ferroce_proto::rng::Rng;
use ferroce_proto::transport::{
    Access, Completion, CompletionKind, CompletionStatus, HostMemory, MemoryRegion, RecvBuffer, Stats, Transport,
    WorkRequest,
};
use ferroce_proto::types::{ns, us, Time};
use ferroce_proto::wire::{self, AckRepr, Body, CommonRepr, NakCode, NakRepr, Opcode, TransportRepr};
use ferroce_proto::{ConnId, Iova, MsgSeq, PathId, Psn, Rkey, StreamId, WrId};

pub use crate::lockstep::Divergence;
use crate::memory::Memory;
use crate::verilator::{ModelLib, Port, Sim};

const B_MAC: [u8; 6] = [2, 0, 0, 0, 0, 0xb];
const B_IP: [u8; 4] = [10, 0, 0, 11];
const MTU: u32 = 256;
const ACK_EVERY: u16 = 4;

/// A sender and the connection it has with the receiver B.
struct Peer {
    ep: Endpoint,
    mem: Memory,
    ip: [u8; 4],
    /// Connection number at the sender and at B.
    local: ConnId,
    at_b: ConnId,
    paths: u8,
    streams: u16,
    /// Per stream: lengths of its SENDs in order (the n-th carries RSN n).
    sends: Vec<Vec<u32>>,
}

/// DMA writes into B's memory, recorded in order.
struct Rec<'a> {
    mem: &'a mut Memory,
    writes: Vec<(u64, Vec<u8>)>,
}

impl HostMemory for Rec<'_> {
    fn read(&self, addr: Iova, buf: &mut [u8]) {
        self.mem.read(addr, buf)
    }
    fn write(&mut self, addr: Iova, data: &[u8]) {
        self.writes.push((addr.0, data.to_vec()));
        self.mem.write(addr, data)
    }
}

/// An ACK: (path key, cum, bitmap, ts echo, sport, packets, CE).
type AckT = (u64, u32, [u8; 32], u32, u16, u16, u16);
/// Feedback: (nak, path key, psn, ts, bitmap, ts echo, hint, CE, packets,
/// code, stream, msg seq).
type FbT = (bool, u64, u32, u32, [u8; 32], u32, u32, u16, u16, u8, u16, u32);

/// What the receiver produced for one frame or timer round.
#[derive(Debug, Default, PartialEq, Eq)]
struct Out {
    writes: Vec<(u64, Vec<u8>)>,
    acks: Vec<AckT>,
    /// (path key, psn, stream, msg seq, code, sport)
    naks: Vec<(u64, u32, u16, u32, u8, u16)>,
    /// (stream key, kind, status, msg seq, len, imm, id)
    cpls: Vec<(u64, u8, u8, u32, u32, u32, u64)>,
    fbs: Vec<FbT>,
}

fn path_key(conn: ConnId, path: u8) -> u64 {
    (conn.0 as u64) << ferroce_hdl::emit::PATH_BITS | path as u64
}

fn stream_key(conn: ConnId, stream: u16) -> u64 {
    (conn.0 as u64) << 3 | stream as u64
}

fn words_to_bytes(w: &[u32]) -> [u8; 32] {
    let mut b = [0u8; 32];
    for (i, x) in w.iter().enumerate() {
        b[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    b
}

/// The RTL receive path with its stimulus and the checks on its outputs.
#[allow(missing_debug_implementations)]
struct Rtl {
    s: Sim,
    ports: HashMap<&'static str, Port>,
    rng: Rng,
    /// Output streams stalled last cycle, with what they showed.
    held: HashMap<&'static str, Vec<u64>>,
    cmds: VecDeque<(u64, usize)>,
    data: Vec<u8>,
    arms: Vec<u64>,
}

/// Output streams with back-pressure: (valid, ready, payload ports).
const STREAMS: &[(&str, &str, &[&str])] = &[
    ("m_dma_cmd_valid", "m_dma_cmd_ready", &["m_dma_cmd_addr", "m_dma_cmd_len"]),
    ("m_dma_data_tvalid", "m_dma_data_tready", &["m_dma_data_tdata", "m_dma_data_tkeep", "m_dma_data_tlast"]),
    (
        "m_ack_valid",
        "m_ack_ready",
        &["m_ack_key", "m_ack_cum", "m_ack_ts", "m_ack_sport", "m_ack_pending", "m_ack_ce", "m_ack_sack"],
    ),
    (
        "m_nak_valid",
        "m_nak_ready",
        &["m_nak_key", "m_nak_psn", "m_nak_stream", "m_nak_msg_seq", "m_nak_code", "m_nak_sport"],
    ),
    ("m_cpl_valid", "m_cpl_ready", &["m_cpl_key", "m_cpl_kind", "m_cpl_status", "m_cpl_seq", "m_cpl_id"]),
    ("m_fb_valid", "m_fb_ready", &["m_fb_key", "m_fb_psn", "m_fb_nak", "m_fb_sack", "m_fb_hint"]),
];

const INPUTS: &[&str] = &[
    "cfg_port",
    "cfg_mac",
    "cfg_ip",
    "cfg_ack_every",
    "conn_wr",
    "conn_wr_index",
    "conn_wr_valid_bit",
    "conn_wr_peer_ip",
    "conn_wr_paths",
    "mr_wr",
    "mr_wr_index",
    "mr_wr_valid_bit",
    "mr_wr_rkey",
    "mr_wr_base",
    "mr_wr_len",
    "mr_wr_remote_write",
    "mr_wr_conn",
    "ctl_valid",
    "ctl_ready",
    "ctl_op",
    "ctl_key",
    "ctl_psn",
    "post_valid",
    "post_ready",
    "post_key",
    "post_addr",
    "post_len",
    "post_id",
    "timer_valid",
    "timer_ready",
    "timer_key",
    "s_axis_tdata",
    "s_axis_tkeep",
    "s_axis_tvalid",
    "s_axis_tready",
    "s_axis_tlast",
    "m_arm_valid",
    "m_arm_key",
    "ready",
    "m_cpl_len",
    "m_cpl_imm",
    "m_fb_ts",
    "m_fb_ts_echo",
    "m_fb_ce",
    "m_fb_pkts",
    "m_fb_code",
    "m_fb_stream",
    "m_fb_msg_seq",
];

impl Rtl {
    fn new(lib: &Arc<ModelLib>, seed: u64) -> Rtl {
        let mut s = Sim::new(lib);
        s.clock("clock");
        let mut ports = HashMap::new();
        for n in INPUTS.iter().chain(STREAMS.iter().flat_map(|(v, r, d)| [v, r].into_iter().chain(d.iter()))) {
            ports.insert(*n, s.port(n));
        }
        for c in ferroce_hdl::rx::rx_path::COUNTERS {
            ports.insert(*c, s.port(c));
        }
        let mut r = Rtl {
            s,
            ports,
            rng: Rng::new(seed),
            held: HashMap::new(),
            cmds: VecDeque::new(),
            data: Vec::new(),
            arms: Vec::new(),
        };
        r.s.reset("reset", Some("ready"), 4_096); // the clearing sweeps: 2^PATH_KEY_BITS cycles
        r.set("cfg_port", wire::FERROCE_PORT as u64);
        r.set("cfg_mac", u64::from_be_bytes([0, 0, B_MAC[0], B_MAC[1], B_MAC[2], B_MAC[3], B_MAC[4], B_MAC[5]]));
        r.set("cfg_ip", u32::from_be_bytes(B_IP) as u64);
        r.set("cfg_ack_every", ACK_EVERY as u64);
        r
    }

    fn set(&mut self, n: &str, v: u64) {
        let p = self.ports[n];
        self.s.set(p, v);
    }

    fn get(&self, n: &str) -> u64 {
        self.s.get(self.ports[n])
    }

    /// One cycle: random ready on every output stream, the protocol check,
    /// outputs taken into `out`. Returns whether anything moved out.
    fn cycle(&mut self, out: &mut Out) -> bool {
        let mut readies = Vec::new();
        for (_, r, _) in STREAMS {
            let ready = !self.rng.chance(0.25);
            self.set(r, ready as u64);
            readies.push(ready);
        }
        self.s.eval();
        let mut moved = false;
        for (i, (v, _, d)) in STREAMS.iter().enumerate() {
            if self.get(v) == 0 {
                assert!(!self.held.contains_key(v), "{v} dropped while stalled");
                continue;
            }
            let now: Vec<u64> = d.iter().flat_map(|p| self.s.get_words(self.ports[p])).map(u64::from).collect();
            if let Some(h) = self.held.get(v) {
                assert_eq!(h, &now, "{v}: data changed while stalled");
            }
            if readies[i] {
                self.held.remove(v);
                self.take(v, out);
                moved = true;
            } else {
                self.held.insert(v, now);
            }
        }
        if self.get("m_arm_valid") == 1 {
            self.arms.push(self.get("m_arm_key"));
            moved = true;
        }
        self.s.tick();
        moved
    }

    fn take(&mut self, v: &str, out: &mut Out) {
        let (s, ports) = (&self.s, &self.ports);
        let g = |n: &str| s.get(ports[n]);
        match v {
            "m_dma_cmd_valid" => self.cmds.push_back((g("m_dma_cmd_addr"), g("m_dma_cmd_len") as usize)),
            "m_dma_data_tvalid" => {
                let (d, k) = (g("m_dma_data_tdata"), g("m_dma_data_tkeep"));
                assert!(k != 0 && k & (k + 1) == 0, "tkeep contiguous from lane 0: {k:#x}");
                for lane in 0..8 {
                    if k >> lane & 1 == 1 {
                        self.data.push((d >> (8 * lane)) as u8);
                    }
                }
                if g("m_dma_data_tlast") == 1 {
                    let (addr, len) = self.cmds.pop_front().expect("DMA data after its command");
                    assert_eq!(len, self.data.len(), "DMA write at {addr:#x}: command length and data differ");
                    out.writes.push((addr, std::mem::take(&mut self.data)));
                }
            }
            "m_ack_valid" => out.acks.push((
                g("m_ack_key"),
                g("m_ack_cum") as u32,
                words_to_bytes(&s.get_words(ports["m_ack_sack"])),
                g("m_ack_ts") as u32,
                g("m_ack_sport") as u16,
                g("m_ack_pending") as u16,
                g("m_ack_ce") as u16,
            )),
            "m_nak_valid" => out.naks.push((
                g("m_nak_key"),
                g("m_nak_psn") as u32,
                g("m_nak_stream") as u16,
                g("m_nak_msg_seq") as u32,
                g("m_nak_code") as u8,
                g("m_nak_sport") as u16,
            )),
            "m_cpl_valid" => out.cpls.push((
                g("m_cpl_key"),
                g("m_cpl_kind") as u8,
                g("m_cpl_status") as u8,
                g("m_cpl_seq") as u32,
                g("m_cpl_len") as u32,
                g("m_cpl_imm") as u32,
                g("m_cpl_id"),
            )),
            "m_fb_valid" => out.fbs.push(fb_fields(
                g("m_fb_nak") == 1,
                g("m_fb_key"),
                g("m_fb_psn") as u32,
                g("m_fb_ts") as u32,
                words_to_bytes(&s.get_words(ports["m_fb_sack"])),
                g("m_fb_ts_echo") as u32,
                g("m_fb_hint") as u32,
                g("m_fb_ce") as u16,
                g("m_fb_pkts") as u16,
                g("m_fb_code") as u8,
                g("m_fb_stream") as u16,
                g("m_fb_msg_seq") as u32,
            )),
            _ => unreachable!(),
        }
    }

    /// Run until nothing has moved for a while.
    fn settle(&mut self, out: &mut Out) {
        let mut quiet = 0;
        while quiet < 32 {
            quiet = if self.cycle(out) { 0 } else { quiet + 1 };
        }
        assert!(self.held.is_empty() && self.cmds.is_empty() && self.data.is_empty());
    }

    /// Offer one handshake (`valid`, `ready`) with `fields` set until taken.
    fn handshake(&mut self, valid: &str, ready: &str, fields: &[(&str, u64)], out: &mut Out) {
        for (n, v) in fields {
            self.set(n, *v);
        }
        self.set(valid, 1);
        let mut n = 0;
        loop {
            self.s.eval();
            let taken = self.get(ready) == 1;
            self.cycle(out);
            if taken {
                break;
            }
            n += 1;
            assert!(n < 10_000, "{valid} never taken");
        }
        self.set(valid, 0);
    }

    fn frame(&mut self, f: &[u8], out: &mut Out) {
        let mut at = 0;
        let mut n = 0;
        while at < f.len() {
            let offer = !self.rng.chance(0.2);
            let k = (f.len() - at).min(8);
            let d = f[at..at + k].iter().enumerate().fold(0u64, |a, (i, b)| a | (*b as u64) << (8 * i));
            self.set("s_axis_tdata", d);
            self.set("s_axis_tkeep", (1u64 << k) - 1);
            self.set("s_axis_tlast", (at + k == f.len()) as u64);
            self.set("s_axis_tvalid", offer as u64);
            self.s.eval();
            let taken = offer && self.get("s_axis_tready") == 1;
            self.cycle(out);
            if taken {
                at += k;
            }
            n += 1;
            assert!(n < 100_000, "frame input stuck");
        }
        self.set("s_axis_tvalid", 0);
        self.settle(out);
    }

    fn counters(&self) -> HashMap<&'static str, u64> {
        ferroce_hdl::rx::rx_path::COUNTERS.iter().map(|c| (*c, self.get(c))).collect()
    }
}

/// The feedback port shows every field for both frame types; the ones of
/// the other type are header bytes of no meaning, so they are zeroed here.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn fb_fields(
    nak: bool,
    key: u64,
    psn: u32,
    ts: u32,
    sack: [u8; 32],
    echo: u32,
    hint: u32,
    ce: u16,
    pkts: u16,
    code: u8,
    stream: u16,
    msg: u32,
) -> FbT {
    if nak {
        (true, key, psn, ts, [0; 32], 0, 0, 0, 0, code, stream, msg)
    } else {
        (false, key, psn, ts, sack, echo, hint, ce, pkts, 0, stream, 0)
    }
}

/// A completion of the model as the RTL reports it.
fn cpl_tuple(c: &Completion) -> (u64, u8, u8, u32, u32, u32, u64) {
    let kind = match c.kind {
        CompletionKind::Recv => 1,
        CompletionKind::WriteImm => 2,
        CompletionKind::SendDone => panic!("a receiver reports no send completion"),
    };
    let status = match c.status {
        CompletionStatus::Success => 0,
        CompletionStatus::RemoteAccessError => 1,
        CompletionStatus::RecvTooSmall => 2,
    };
    (stream_key(c.conn, c.stream.0), kind, status, c.msg_seq.0, c.len, c.imm.unwrap_or(0), c.id.0)
}

/// The model receiver's control frames as the RTL reports them.
fn control_tuples(frames: Vec<Vec<u8>>, at_b: &HashMap<u16, ConnId>, out: &mut Out) {
    for f in frames {
        let p = wire::parse(&f, wire::FERROCE_PORT).expect("the model sends valid frames");
        let c = p.transport.common;
        let key = path_key(at_b[&c.conn.0], c.path.0);
        match p.transport.body {
            Body::Ack(a) => out.acks.push((key, c.psn.get(), a.sack, a.ts_echo, p.addr.sport, a.acked_pkts, a.ecn_ce)),
            Body::Nak(n) => out.naks.push((key, c.psn.get(), c.stream.0, n.msg_seq.0, n.code as u8, p.addr.sport)),
            Body::Data(_) => panic!("the receiver sends no data"),
        }
    }
}

/// One run's mix.
#[derive(Debug, Clone, Copy)]
pub struct Mix {
    pub seed: u64,
    /// Messages of each sender.
    pub msgs: [u64; 2],
    /// Chance that each further junk frame follows a delivered frame.
    pub junk: f64,
    /// Loss, duplication, CE marking and corruption on the channel.
    pub loss: f64,
    pub dup: f64,
    pub ce: f64,
    pub corrupt: f64,
}

/// What a run that did not diverge saw.
#[derive(Debug, Clone)]
pub struct Seen {
    pub stats: Stats,
    pub frames: u64,
    pub junk: u64,
    pub feedback: u64,
    pub timer_acks: u64,
    pub send_cpls: u64,
    pub messages: u64,
}

/// The `rx_path` model, built once per process.
pub fn model_lib() -> Arc<ModelLib> {
    ModelLib::of_block("rx_path", || ferroce_hdl::emit::verilog(ferroce_hdl::rx::rx_path::RxPath::default()))
        .expect("rx_path model builds")
}

/// Run the model receiver and the RTL side by side; `progress` is called
/// with the frames compared so far, every 10 000.
pub fn recv_lockstep(mix: &Mix, progress: &mut dyn FnMut(u64)) -> Result<Seen, Divergence> {
    let lib = model_lib();
    let mut rtl = Rtl::new(&lib, mix.seed ^ 7);
    let mut rng = Rng::new(mix.seed);

    // Receiver B: the model and its memory; the RTL writes into a copy.
    let mut bcfg = EndpointConfig::new(B_MAC, B_IP, 100_000, MTU);
    bcfg.ack_every = ACK_EVERY;
    let ack_delay = bcfg.ack_delay;
    let mut b = Endpoint::new(bcfg).unwrap();
    let mut bmem = Memory::default();
    bmem.add_region("mr_a", Iova(0x1000_0000), 1 << 20, true);
    bmem.add_region("mr_ro", Iova(0x1800_0000), 1 << 16, true);
    bmem.add_region("mr_c", Iova(0x2000_0000), 1 << 18, true);
    // Receive buffers are laid out one after another: room for every SEND.
    let recv_bytes = (1u64 << 20).max((mix.msgs[0] + mix.msgs[1]) * 1024);
    bmem.add_region("recv", Iova(0x3000_0000), recv_bytes as usize, true);
    let mut rmem = bmem.clone();
    let mrs = [
        (
            0,
            MemoryRegion {
                rkey: Rkey(0x100),
                base: Iova(0x1000_0000),
                len: 1 << 20,
                access: Access { remote_write: true },
                conn: ConnId(3),
            },
        ),
        (
            1,
            MemoryRegion {
                rkey: Rkey(0x300),
                base: Iova(0x1800_0000),
                len: 1 << 16,
                access: Access { remote_write: false },
                conn: ConnId(3),
            },
        ),
        (
            5,
            MemoryRegion {
                rkey: Rkey(0x200),
                base: Iova(0x2000_0000),
                len: 1 << 18,
                access: Access { remote_write: true },
                conn: ConnId(7),
            },
        ),
    ];
    let mut out = Out::default();
    for (slot, mr) in mrs {
        b.register_mr(mr).unwrap();
        rtl.handshake(
            "mr_wr",
            "ready",
            &[
                ("mr_wr_index", slot),
                ("mr_wr_valid_bit", 1),
                ("mr_wr_rkey", mr.rkey.0 as u64),
                ("mr_wr_base", mr.base.0),
                ("mr_wr_len", mr.len),
                ("mr_wr_remote_write", mr.access.remote_write as u64),
                ("mr_wr_conn", mr.conn.0 as u64),
            ],
            &mut out,
        );
    }

    // Senders A (16 paths, 8 streams) and C (4 paths, 3 streams).
    let mut peers = Vec::new();
    for (i, (ip, local, at_b, paths, streams)) in
        [([10, 0, 0, 1], ConnId(1), ConnId(3), 16u8, 8u16), ([10, 0, 0, 3], ConnId(2), ConnId(7), 4, 3)]
            .into_iter()
            .enumerate()
    {
        let mac = [2, 0, 0, 0, 0, i as u8 + 1];
        let mut cfg = EndpointConfig::new(mac, ip, 100_000, MTU);
        cfg.seed = 100 + i as u64;
        let mut ep = Endpoint::new(cfg).unwrap();
        ep.connect(ConnConfig {
            id: local,
            remote_id: at_b,
            peer_mac: B_MAC,
            peer_ip: B_IP,
            paths,
            streams,
            initial_rate_mbps: None,
        })
        .unwrap();
        b.connect(ConnConfig {
            id: at_b,
            remote_id: local,
            peer_mac: mac,
            peer_ip: ip,
            paths,
            streams,
            initial_rate_mbps: None,
        })
        .unwrap();
        rtl.handshake(
            "conn_wr",
            "ready",
            &[
                ("conn_wr_index", at_b.0 as u64),
                ("conn_wr_valid_bit", 1),
                ("conn_wr_peer_ip", u32::from_be_bytes(ip) as u64),
                ("conn_wr_paths", paths as u64),
            ],
            &mut out,
        );
        for p in 0..paths {
            rtl.handshake(
                "ctl_valid",
                "ctl_ready",
                &[("ctl_op", 0), ("ctl_key", path_key(at_b, p)), ("ctl_psn", 0)],
                &mut out,
            );
        }
        for st in 0..streams {
            // The stream clear takes a path key's connection and low 3 bits.
            rtl.handshake("ctl_valid", "ctl_ready", &[("ctl_op", 1), ("ctl_key", path_key(at_b, st as u8))], &mut out);
        }
        let mut mem = Memory::default();
        mem.add_region("src", Iova(0x5000_0000), 1 << 20, false);
        for (k, byte) in mem.region_mut("src").iter_mut().enumerate() {
            *byte = ((k as u64 * 2654435761) >> 7) as u8 ^ i as u8;
        }
        peers.push(Peer { ep, mem, ip, local, at_b, paths, streams, sends: vec![Vec::new(); streams as usize] });
    }
    rtl.settle(&mut out);
    assert_eq!(out, Out::default(), "setup produces no output");
    let at_b: HashMap<u16, ConnId> = peers.iter().map(|p| (p.local.0, p.at_b)).collect();

    // Work: WRITEs (some to the read-only region or past a region's end),
    // WRITEs with immediate and SENDs.
    let mut msgs = 0;
    for (pi, peer) in peers.iter_mut().enumerate() {
        let n = mix.msgs[pi];
        let (rkey, base, len) =
            if pi == 0 { (0x100, 0x1000_0000u64, 1u64 << 20) } else { (0x200, 0x2000_0000, 1 << 18) };
        for k in 0..n {
            let stream = StreamId(rng.below(peer.streams as u64) as u16);
            let size = if rng.chance(0.1) { 1 + rng.below(6000) } else { 1 + rng.below(900) } as u32;
            let local = Iova(0x5000_0000 + rng.below((1 << 20) - size as u64));
            let id = WrId(1000 * pi as u64 + k);
            let wr = match rng.below(10) {
                0..=3 => {
                    let imm = rng.chance(0.5).then(|| rng.next_u64() as u32);
                    let (rkey, remote) = match rng.below(20) {
                        0 => (Rkey(0x300), Iova(0x1800_0000)),                 // read-only
                        1 => (Rkey(rkey), Iova(base + len - size as u64 / 2)), // past the end
                        _ => (Rkey(rkey), Iova(base + rng.below(len - size as u64))),
                    };
                    WorkRequest::Write { id, conn: peer.local, stream, local, len: size, remote, rkey, imm }
                }
                4..=6 => WorkRequest::Write {
                    id,
                    conn: peer.local,
                    stream,
                    local,
                    len: size,
                    remote: Iova(base + rng.below(len - size as u64)),
                    rkey: Rkey(rkey),
                    imm: None,
                },
                _ => {
                    peer.sends[stream.0 as usize].push(size);
                    WorkRequest::Send { id, conn: peer.local, stream, local, len: size }
                }
            };
            peer.ep.post(wr).unwrap();
            msgs += 1;
        }
    }

    // Receive buffers: posted over time, at most 16 waiting per stream; one
    // in eight is too small for its SEND.
    let mut next_post: BTreeMap<(usize, u16), usize> = BTreeMap::new();
    let mut waiting: HashMap<u64, usize> = HashMap::new();
    let mut recv_at = 0x3000_0000u64;

    // The channel: (delivery time, tie-break, frame), to B and back.
    let mut to_b: Vec<(Time, u64, Vec<u8>)> = Vec::new();
    let mut to_peers: Vec<(Time, u64, usize, Vec<u8>)> = Vec::new();
    let mut deadlines: BTreeMap<u64, Time> = BTreeMap::new();
    let mut now: Time = 0;
    let (mut frames, mut junk, mut feedback, mut timer_acks) = (0u64, 0u64, 0u64, 0u64);
    let mut send_cpls = 0;
    // Every output of one frame (or timer round) must be the model's.
    let check = |out: Out, want: Out, what: String, step: u64, cycle: u64| -> Result<(), Divergence> {
        let diverge = |w: String| Err(Divergence { step, cycle, what: format!("{what}: {w}") });
        if out.writes.len() != want.writes.len() {
            return diverge(format!("{} DMA writes, the model {}", out.writes.len(), want.writes.len()));
        }
        for (i, (g, w)) in out.writes.iter().zip(&want.writes).enumerate() {
            if g != w {
                return diverge(format!("DMA write {i}: RTL {:#x}+{}, model {:#x}+{}", g.0, g.1.len(), w.0, w.1.len()));
            }
        }
        if out.acks != want.acks {
            return diverge(format!("ACKs: RTL {:?}, model {:?}", out.acks, want.acks));
        }
        if out.naks != want.naks {
            return diverge(format!("NAKs: RTL {:?}, model {:?}", out.naks, want.naks));
        }
        if out.cpls != want.cpls {
            return diverge(format!("completions: RTL {:?}, model {:?}", out.cpls, want.cpls));
        }
        if out.fbs != want.fbs {
            return diverge(format!("feedback: RTL {:?}, model {:?}", out.fbs, want.fbs));
        }
        Ok(())
    };

    while peers.iter().any(|p| p.ep.outstanding() > 0) {
        if now > us(400_000) + us(5) * msgs {
            return Err(Divergence {
                step: frames,
                cycle: rtl.s.cycles(),
                what: format!(
                    "the transfer did not finish; outstanding {:?}",
                    peers.iter().map(|p| p.ep.outstanding()).collect::<Vec<_>>()
                ),
            });
        }
        now += ns(200);
        // Senders transmit and run their timers.
        for peer in peers.iter_mut() {
            if peer.ep.poll_timeout().is_some_and(|t| t <= now) {
                peer.ep.handle_timeout(now);
            }
            for _ in 0..2 {
                let Some(f) = peer.ep.poll_transmit(now, &peer.mem) else { break };
                to_b.push((now + ns(500 + rng.below(3000)), rng.next_u64(), f));
            }
        }
        // Post receive buffers.
        for (pi, peer) in peers.iter().enumerate() {
            for st in 0..peer.streams {
                let key = stream_key(peer.at_b, st);
                let n = next_post.entry((pi, st)).or_default();
                if *n < peer.sends[st as usize].len()
                    && waiting.get(&key).copied().unwrap_or(0) < 16
                    && rng.chance(0.05)
                {
                    let want = peer.sends[st as usize][*n];
                    let len = if want > 1 && rng.chance(0.125) { 1 + rng.below(want as u64 - 1) as u32 } else { want };
                    let id = WrId(0x4000_0000 + (pi as u64) * 0x10000 + st as u64 * 0x1000 + *n as u64);
                    b.post_recv(RecvBuffer { id, conn: peer.at_b, stream: StreamId(st), addr: Iova(recv_at), len })
                        .unwrap();
                    rtl.handshake(
                        "post_valid",
                        "post_ready",
                        &[("post_key", key), ("post_addr", recv_at), ("post_len", len as u64), ("post_id", id.0)],
                        &mut out,
                    );
                    recv_at += want.max(1) as u64;
                    assert!(recv_at <= 0x3000_0000 + recv_bytes, "receive buffers fit their region");
                    *n += 1;
                    *waiting.entry(key).or_default() += 1;
                }
            }
        }
        // Deliver what is due to B, in random order among equals.
        to_b.sort_by_key(|(t, r, _)| (*t, *r));
        while to_b.first().is_some_and(|(t, _, _)| *t <= now) {
            let (_, _, mut f) = to_b.remove(0);
            if rng.chance(mix.loss) {
                continue; // lost
            }
            if rng.chance(mix.dup) {
                to_b.push((now + ns(rng.below(2000)), rng.next_u64(), f.clone()));
                // duplicated
            }
            if rng.chance(mix.ce) {
                wire::mark_ce(&mut f);
            }
            if rng.chance(mix.corrupt) {
                let i = rng.below(f.len() as u64) as usize;
                f[i] ^= 1 << rng.below(8); // corrupted
            }
            let mut frames_now = vec![f.clone()];
            while rng.chance(mix.junk) {
                frames_now.push(junk_frame(&f, &mut rng));
                junk += 1;
            }
            if rng.chance(0.02) {
                frames_now.push(feedback_frame(&peers[rng.below(2) as usize], &mut rng));
                feedback += 1;
            }
            for f in frames_now {
                frames += 1;
                let mut got = Out::default();
                rtl.frame(&f, &mut got);
                let mut rec = Rec { mem: &mut bmem, writes: Vec::new() };
                b.handle_frame(now, &f, &mut rec);
                let mut want = Out { writes: rec.writes, ..Out::default() };
                let mut ctl = Vec::new();
                while let Some(c) = b.poll_transmit(now, &bmem) {
                    ctl.push(c);
                }
                control_tuples(ctl.clone(), &at_b, &mut want);
                while let Some(c) = b.poll_completion() {
                    want.cpls.push(cpl_tuple(&c));
                    if c.kind == CompletionKind::Recv {
                        *waiting.get_mut(&stream_key(c.conn, c.stream.0)).expect("posted") -= 1;
                        send_cpls += 1;
                    }
                }
                if let Ok(p) = wire::parse(&f, wire::FERROCE_PORT) {
                    if !p.transport.common.opcode.is_data() && p.addr.dst_ip == B_IP && p.addr.dst_mac == B_MAC {
                        want.fbs.extend(fb_tuple(&p));
                    }
                }
                for (a, w) in got.writes.iter() {
                    rmem.write(Iova(*a), w);
                }
                // Mirror the model's ACK timer: armed now, cleared by an ACK.
                for k in rtl.arms.drain(..) {
                    deadlines.insert(k, now + ack_delay);
                }
                for a in &got.acks {
                    deadlines.remove(&a.0);
                }
                let f0 = wire::parse(&f, wire::FERROCE_PORT).map(|p| p.transport.common);
                check(got, want, format!("frame {frames} at {now} ps ({f0:?})"), frames, rtl.s.cycles())?;
                if frames % 10_000 == 0 {
                    progress(frames);
                }
                for c in ctl {
                    let pi = peers
                        .iter()
                        .position(|p| p.ip == wire::parse(&c, wire::FERROCE_PORT).unwrap().addr.dst_ip)
                        .unwrap();
                    if !rng.chance(mix.loss) {
                        to_peers.push((now + ns(500 + rng.below(2000)), rng.next_u64(), pi, c));
                    }
                }
            }
        }
        // B's ACK timers.
        b.handle_timeout(now);
        let mut want = Out::default();
        let mut ctl = Vec::new();
        while let Some(c) = b.poll_transmit(now, &bmem) {
            ctl.push(c);
        }
        control_tuples(ctl.clone(), &at_b, &mut want);
        let due: Vec<u64> = deadlines.iter().filter(|(_, t)| **t <= now).map(|(k, _)| *k).collect();
        let mut got = Out::default();
        for k in due {
            deadlines.remove(&k);
            rtl.handshake("timer_valid", "timer_ready", &[("timer_key", k)], &mut got);
        }
        rtl.settle(&mut got);
        assert!(rtl.arms.is_empty(), "a timer arms no timer");
        timer_acks += got.acks.len() as u64;
        check(got, want, format!("ACK timers at {now} ps"), frames, rtl.s.cycles())?;
        for c in ctl {
            let pi =
                peers.iter().position(|p| p.ip == wire::parse(&c, wire::FERROCE_PORT).unwrap().addr.dst_ip).unwrap();
            to_peers.push((now + ns(500 + rng.below(2000)), rng.next_u64(), pi, c));
        }
        // ACKs and NAKs reach the senders.
        to_peers.sort_by_key(|(t, r, _, _)| (*t, *r));
        while to_peers.first().is_some_and(|(t, _, _, _)| *t <= now) {
            let (_, _, pi, f) = to_peers.remove(0);
            let peer = &mut peers[pi];
            peer.ep.handle_frame(now, &f, &mut peer.mem);
            while peer.ep.poll_completion().is_some() {}
        }
    }

    assert_eq!(out, Out::default(), "posting and setup produce no output");
    // Both memories hold the same bytes; the counters agree.
    for r in ["mr_a", "mr_ro", "mr_c", "recv"] {
        if bmem.region(r) != rmem.region(r) {
            return Err(Divergence { step: frames, cycle: rtl.s.cycles(), what: format!("memory region {r} differs") });
        }
    }
    let st = b.stats();
    let c = rtl.counters();
    let pairs = [
        ("cnt_frames", st.rx_frames),
        ("cnt_data", st.rx_data),
        ("cnt_dup", st.rx_dup),
        ("cnt_dup_retx", st.rx_dup_retx),
        ("cnt_oow", st.rx_out_of_window),
        ("cnt_malformed", st.rx_malformed),
        ("cnt_bad_conn", st.rx_bad_conn),
        ("cnt_access", st.rx_access_violation),
        ("cnt_no_recv", st.rx_no_recv),
        ("cnt_ce", st.rx_ecn_ce),
        ("cnt_bytes", st.bytes_placed),
        ("cnt_post_drop", 0),
    ];
    for (name, want) in pairs {
        if c[name] != want {
            return Err(Divergence {
                step: frames,
                cycle: rtl.s.cycles(),
                what: format!("counter {name}: RTL {}, model {want}", c[name]),
            });
        }
    }
    eprintln!(
        "{msgs} messages, {frames} frames ({junk} junk, {feedback} feedback), {timer_acks} timer ACKs, {send_cpls} SENDs received, stats {st:?}"
    );
    Ok(Seen { stats: st, frames, junk, feedback, timer_acks, send_cpls, messages: msgs })
}

/// A frame B must refuse, derived from a valid one.
fn junk_frame(f: &[u8], rng: &mut Rng) -> Vec<u8> {
    let Ok(p) = wire::parse(f, wire::FERROCE_PORT) else {
        return (0..1 + rng.below(120)).map(|_| rng.next_u64() as u8).collect();
    };
    let (mut addr, mut t) = (p.addr, p.transport);
    match rng.below(11) {
        0 => return (0..1 + rng.below(200)).map(|_| rng.next_u64() as u8).collect(),
        1 => return f[..rng.below(f.len() as u64) as usize + 1].to_vec(),
        2 => {
            let mut g = f.to_vec();
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(g.len() as u64) as usize;
                g[i] ^= 1 + rng.below(255) as u8;
            }
            return g;
        }
        3 => {
            let mut g = f.to_vec();
            g.extend((0..1 + rng.below(16)).map(|_| rng.next_u64() as u8));
            return g;
        }
        4 => addr.dst_mac[5] ^= 0x40,
        5 => addr.src_ip = [10, 0, 0, 99],
        6 => t.common.conn = ConnId(12),
        7 => t.common.conn = ConnId(t.common.conn.0 | 0x1000), // the key bits of a valid one
        // Just beyond the connection's paths (A's 16 at B's connection 3, C's 4 at 7).
        8 => t.common.path = PathId(if t.common.conn == ConnId(3) { 16 } else { 4 } + rng.below(3) as u8),
        9 => t.common.psn = Psn::new(t.common.psn.get().wrapping_add(256 + rng.below(5000) as u32)), // beyond the window
        _ => t.common.conn = ConnId(if t.common.conn == ConnId(3) { 7 } else { 3 }),
    }
    wire::encode(&addr, &t, p.payload)
}

/// An ACK or NAK from a peer to B, with random fields.
fn feedback_frame(peer: &Peer, rng: &mut Rng) -> Vec<u8> {
    let mut sack = [0u8; 32];
    for b in sack.iter_mut() {
        *b = rng.next_u64() as u8;
    }
    let nak = rng.chance(0.3);
    let common = CommonRepr {
        opcode: if nak { Opcode::Nak } else { Opcode::Ack },
        conn: peer.at_b,
        path: PathId(rng.below(peer.paths as u64) as u8),
        psn: Psn::new(0),
        timestamp: rng.next_u64() as u32,
        stream: StreamId(if nak { rng.below(peer.streams as u64) as u16 } else { 0 }),
        flags: 0,
        generation: 0,
    };
    let body = if nak {
        Body::Nak(NakRepr { code: NakCode::NoRecv, msg_seq: MsgSeq(rng.next_u64() as u32), info: 0 })
    } else {
        Body::Ack(AckRepr {
            sack,
            ts_echo: rng.next_u64() as u32,
            rate_hint_mbps: rng.next_u64() as u32,
            ecn_ce: rng.next_u64() as u16,
            acked_pkts: rng.next_u64() as u16,
        })
    };
    let addr = wire::Addressing {
        src_mac: [2, 0, 0, 0, 0, 9],
        dst_mac: B_MAC,
        src_ip: peer.ip,
        dst_ip: B_IP,
        sport: 49152 + rng.below(16384) as u16,
        dport: wire::FERROCE_PORT,
        dscp: 26,
        ecn: wire::Ecn::Ect0,
        ttl: 64,
    };
    wire::encode(&addr, &TransportRepr { common, body }, &[])
}

/// What the RTL's feedback port shows for an ACK or NAK frame B accepts.
#[allow(clippy::type_complexity)]
fn fb_tuple(p: &wire::Frame<'_>) -> Option<FbT> {
    let c = p.transport.common;
    let key = path_key(c.conn, c.path.0);
    Some(match p.transport.body {
        Body::Ack(a) => (
            false,
            key,
            c.psn.get(),
            c.timestamp,
            a.sack,
            a.ts_echo,
            a.rate_hint_mbps,
            a.ecn_ce,
            a.acked_pkts,
            0,
            c.stream.0,
            0,
        ),
        Body::Nak(n) => {
            (true, key, c.psn.get(), c.timestamp, [0; 32], 0, 0, 0, 0, n.code as u8, c.stream.0, n.msg_seq.0)
        }
        Body::Data(_) => return None,
    })
}
