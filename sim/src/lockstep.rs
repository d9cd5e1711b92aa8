//! Differential check of the send path: the reference sender
//! (`ferroce_proto::model::Endpoint`) and the RTL `tx_path` in Verilator get
//! the same work requests and the same ACKs and NAKs, and each step must
//! make the same decision: the same frame byte for byte (which packet, which
//! path, which PSN, which retransmission), the same completions, the same
//! retransmission-timer deadlines, the same counters. The receiver is a
//! model endpoint B behind a lossy, reordering, duplicating channel with a
//! black-holed source port, a failed path and lost ACKs for a while, so
//! losses are repaired by real retransmissions.
//!
//! Used by the `rtl_tx_path` test and by `cargo xtask diff`, which runs it at
//! scale and prints the first divergence.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use ferroce_proto::model::{ConnConfig, Endpoint, EndpointConfig};
use ferroce_proto::rng::Rng;
use ferroce_proto::transport::{
    Access, Completion, CompletionStatus, MemoryRegion, RecvBuffer, Stats, Transport, WorkRequest,
};
use ferroce_proto::types::{us, Time};
use ferroce_proto::wire::{self, Body};
use ferroce_proto::{ConnId, Iova, Rkey, StreamId, WrId};

use crate::memory::Memory;
use crate::verilator::{ModelLib, Port, Sim};

pub const A_MAC: [u8; 6] = [2, 0, 0, 0, 0, 0xa];
pub const A_IP: [u8; 4] = [10, 0, 0, 10];
pub const B_MAC: [u8; 6] = [2, 0, 0, 0, 0, 0xb];
pub const B_IP: [u8; 4] = [10, 0, 0, 11];
pub const MTU: u32 = 256;

/// Stream key of the RTL: {connection, stream[2:0]}.
pub fn key(conn: ConnId, x: u64) -> u64 {
    (conn.0 as u64) << 3 | x
}

/// Path key of the RTL: {connection, path[PATH_BITS-1:0]}.
pub fn path_key(conn: ConnId, path: u64) -> u64 {
    (conn.0 as u64) << ferroce_hdl::emit::PATH_BITS | path
}

/// A send completion as the RTL reports it: (stream key, status, seq, len, id, imm).
pub type CplT = (u64, u8, u32, u32, u64, Option<u32>);

fn cpl_tuple(c: &Completion) -> CplT {
    let status = match c.status {
        CompletionStatus::Success => 0,
        CompletionStatus::RemoteAccessError => 1,
        CompletionStatus::RecvTooSmall => 2,
    };
    (key(c.conn, c.stream.0 as u64), status, c.msg_seq.0, c.len, c.id.0, c.imm)
}

/// `tx_path` in Verilator with its DMA read model, MAC sink and output
/// checks.
#[allow(missing_debug_implementations)]
pub struct TxRtl {
    pub s: Sim,
    ports: HashMap<String, Port>,
    rng: Rng,
    /// DMA reads waiting: (address, length), and the one being answered.
    reads: VecDeque<(u64, usize)>,
    reading: Option<(Vec<u8>, usize, u64)>,
    frame: Vec<u8>,
    pub frames: VecDeque<Vec<u8>>,
    cpls: VecDeque<CplT>,
    /// RTO arm (true) / disarm (false) and NO_RECV hold requests, in order.
    /// (path key, arm, backoff shift, base timeout in ps)
    rtos: Vec<(u64, bool, u64, u64)>,
    rnrs: Vec<(u64, u32)>,
    done: Option<bool>,
    /// The last data frame's connection and payload bytes, as `tx_sent_conn`
    /// and `tx_sent_len` gave them.
    pub last_sent: Option<(u64, u64)>,
    /// Output streams stalled last cycle, with what they showed.
    held: HashMap<&'static str, Vec<u64>>,
}

/// Output streams with back-pressure: (valid, ready, payload ports).
const STREAMS: &[(&str, &str, &[&str])] = &[
    ("m_rd_cmd_valid", "m_rd_cmd_ready", &["m_rd_cmd_addr", "m_rd_cmd_len"]),
    ("m_axis_tvalid", "m_axis_tready", &["m_axis_tdata", "m_axis_tkeep", "m_axis_tlast"]),
    ("m_cpl_valid", "m_cpl_ready", &["m_cpl_key", "m_cpl_status", "m_cpl_seq", "m_cpl_len", "m_cpl_id", "m_cpl_imm"]),
];

impl TxRtl {
    pub fn new(lib: &Arc<ModelLib>, seed: u64) -> TxRtl {
        let mut s = Sim::new(lib);
        s.clock("clock");
        let mut r = TxRtl {
            s,
            ports: HashMap::new(),
            rng: Rng::new(seed),
            reads: VecDeque::new(),
            reading: None,
            frame: Vec::new(),
            frames: VecDeque::new(),
            cpls: VecDeque::new(),
            rtos: Vec::new(),
            rnrs: Vec::new(),
            done: None,
            last_sent: None,
            held: HashMap::new(),
        };
        r.s.reset("reset", Some("ready"), 4_096); // the clearing sweeps: 2^PATH_KEY_BITS cycles
        r
    }

    pub fn p(&mut self, n: &str) -> Port {
        if let Some(p) = self.ports.get(n) {
            return *p;
        }
        let p = self.s.port(n);
        self.ports.insert(n.to_string(), p);
        p
    }

    pub fn set(&mut self, n: &str, v: u64) {
        let p = self.p(n);
        self.s.set(p, v);
    }

    pub fn get(&mut self, n: &str) -> u64 {
        let p = self.p(n);
        self.s.get(p)
    }

    /// One cycle with the DMA read model, the MAC sink and the output ports.
    fn cycle(&mut self, mem: &Memory) {
        // DMA read data: the current read's next beat, sometimes late.
        if self.reading.is_none() && self.rng.chance(0.5) {
            if let Some((addr, len)) = self.reads.pop_front() {
                self.reading = Some((mem.slice(Iova(addr), len).to_vec(), 0, addr));
            }
        }
        let beat = match &self.reading {
            Some((d, at, _)) if !self.rng.chance(0.2) => {
                let n = (d.len() - at).min(8);
                let v = d[*at..at + n].iter().enumerate().fold(0u64, |a, (i, b)| a | (*b as u64) << (8 * i));
                Some((v, (1u64 << n) - 1, (at + n == d.len()) as u64, n))
            }
            _ => None,
        };
        self.set("s_rd_tvalid", beat.is_some() as u64);
        if let Some((v, k, l, _)) = beat {
            self.set("s_rd_tdata", v);
            self.set("s_rd_tkeep", k);
            self.set("s_rd_tlast", l);
        }
        let cmd_ready = !self.rng.chance(0.2);
        self.set("m_rd_cmd_ready", cmd_ready as u64);
        let mac_ready = !self.rng.chance(0.2);
        self.set("m_axis_tready", mac_ready as u64);
        let cpl_ready = !self.rng.chance(0.3);
        self.set("m_cpl_ready", cpl_ready as u64);
        self.s.eval();
        // Protocol check: a stalled output keeps its data.
        for (v, r, d) in STREAMS {
            if self.get(v) == 0 {
                assert!(!self.held.contains_key(v), "{v} dropped while stalled");
                continue;
            }
            let now: Vec<u64> = d.iter().map(|p| self.get(p)).collect();
            if let Some(h) = self.held.get(v) {
                assert_eq!(h, &now, "{v}: data changed while stalled");
            }
            if self.get(r) == 1 {
                self.held.remove(v);
            } else {
                self.held.insert(v, now);
            }
        }
        if let Some((_, _, _, n)) = beat {
            if self.get("s_rd_tready") == 1 {
                let r = self.reading.as_mut().expect("reading");
                r.1 += n;
                if r.1 == r.0.len() {
                    self.reading = None;
                }
            }
        }
        if cmd_ready && self.get("m_rd_cmd_valid") == 1 {
            let (a, l) = (self.get("m_rd_cmd_addr"), self.get("m_rd_cmd_len") as usize);
            assert!(l > 0, "a DMA read of nothing");
            self.reads.push_back((a, l));
        }
        if mac_ready && self.get("m_axis_tvalid") == 1 {
            let (d, k) = (self.get("m_axis_tdata"), self.get("m_axis_tkeep"));
            for lane in 0..8 {
                if k >> lane & 1 == 1 {
                    self.frame.push((d >> (8 * lane)) as u8);
                }
            }
            if self.get("m_axis_tlast") == 1 {
                let f = std::mem::take(&mut self.frame);
                self.frames.push_back(f);
            }
        }
        if cpl_ready && self.get("m_cpl_valid") == 1 {
            let imm = (self.get("m_cpl_has_imm") == 1).then(|| self.get("m_cpl_imm") as u32);
            let c = (
                self.get("m_cpl_key"),
                self.get("m_cpl_status") as u8,
                self.get("m_cpl_seq") as u32,
                self.get("m_cpl_len") as u32,
                self.get("m_cpl_id"),
                imm,
            );
            self.cpls.push_back(c);
        }
        if self.get("m_rto_valid") == 1 {
            let r =
                (self.get("m_rto_key"), self.get("m_rto_arm") == 1, self.get("m_rto_shift"), self.get("m_rto_base"));
            self.rtos.push(r);
        }
        if self.get("m_rnr_valid") == 1 {
            let r = (self.get("m_rnr_key"), self.get("m_rnr_psn") as u32);
            self.rnrs.push(r);
        }
        if self.get("tx_done") == 1 {
            self.done = Some(self.get("tx_sent") == 1);
        }
        if self.get("tx_sent") == 1 {
            self.last_sent = Some((self.get("tx_sent_conn"), self.get("tx_sent_len")));
        }
        self.s.tick();
    }

    pub fn handshake(&mut self, valid: &str, ready: &str, fields: &[(&str, u64)], mem: &Memory) {
        for (n, v) in fields {
            self.set(n, *v);
        }
        self.set(valid, 1);
        let mut n = 0;
        loop {
            self.s.eval();
            let taken = self.get(ready) == 1;
            self.cycle(mem);
            if taken {
                break;
            }
            n += 1;
            assert!(n < 10_000, "{valid} never taken");
        }
        self.set(valid, 0);
    }

    /// Run until every started frame has left and nothing moves.
    pub fn settle(&mut self, mem: &Memory) {
        for _ in 0..40 {
            self.cycle(mem);
        }
        let mut n = 0;
        // `ctl_ready` is high when the control logic is idle.
        while !self.frame.is_empty() || !self.reads.is_empty() || self.reading.is_some() || self.get("ctl_ready") == 0 {
            self.cycle(mem);
            n += 1;
            assert!(n < 100_000, "a frame never finished");
        }
        for _ in 0..40 {
            self.cycle(mem);
        }
    }

    /// One transmit attempt; the frame it sent, if any.
    pub fn transmit(&mut self, mem: &Memory) -> Option<Vec<u8>> {
        self.done = None;
        self.set("tx_go", 1);
        let mut n = 0;
        while self.done.is_none() {
            self.s.eval();
            if self.get("tx_done") == 1 {
                self.set("tx_go", 0);
            }
            self.cycle(mem);
            n += 1;
            assert!(n < 10_000, "transmit attempt never ended");
        }
        self.set("tx_go", 0);
        let sent = self.done.take().expect("done");
        self.settle(mem);
        assert!(self.done.is_none(), "one attempt per permission");
        if sent {
            assert_eq!(self.frames.len(), 1, "one frame per attempt");
        } else {
            assert!(self.frames.is_empty(), "a frame without an attempt");
        }
        self.frames.pop_front()
    }
}

/// The RTL's timer requests as the caller's timers: an RTO deadline per path
/// (the base timeout the RTL gives, from its RTT estimate, backed off), a
/// release time per held PSN.
fn mirror_timers(
    rtl: &mut TxRtl,
    rto_at: &mut BTreeMap<u64, Time>,
    releases: &mut Vec<(Time, u64, u32)>,
    now: Time,
    rnr_delay: Time,
) {
    for (k, arm, shift, base) in rtl.rtos.drain(..) {
        if arm {
            rto_at.insert(k, now + (base << shift));
        } else {
            rto_at.remove(&k);
        }
    }
    for (k, psn) in rtl.rnrs.drain(..) {
        releases.push((now + rnr_delay, k, psn));
    }
}

/// The `tx_path` model, built once per process.
pub fn model_lib() -> Arc<ModelLib> {
    ModelLib::of_block("tx_path", || ferroce_hdl::emit::verilog(ferroce_hdl::tx::tx_path::TxPath::default()))
        .expect("tx_path model builds")
}

/// B's memory regions, MRs and what each connection targets.
struct Conn {
    at_a: ConnId,
    at_b: ConnId,
    paths: u8,
    streams: u16,
    rkey: Rkey,
    base: u64,
    len: u64,
}

/// One differential run.
#[derive(Debug, Clone, Copy)]
pub struct SendLockstep {
    pub seed: u64,
    /// Messages on connection 1 (16 paths, 8 streams) and 2 (1 path, 3 streams).
    pub messages: [u64; 2],
    /// Loss of data frames and of ACK/NAK frames on the channel.
    pub loss: f64,
    pub ack_loss: f64,
    /// Chance that the channel CE-marks a data frame (B echoes the marks,
    /// A's windows are cut at most once per RTT).
    pub ce: f64,
}

impl Default for SendLockstep {
    fn default() -> Self {
        SendLockstep { seed: 77, messages: [900, 300], loss: 0.03, ack_loss: 0.02, ce: 0.05 }
    }
}

/// What a run that did not diverge did.
#[derive(Debug, Clone)]
pub struct SendReport {
    pub messages: u64,
    pub frames: u64,
    pub completions: usize,
    pub steps: u64,
    pub cycles: u64,
    pub stats: Stats,
}

/// The first step where the RTL and the model decided differently.
#[derive(Debug, Clone)]
pub struct Divergence {
    pub step: u64,
    pub cycle: u64,
    pub what: String,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "step {} (RTL cycle {}): {}", self.step, self.cycle, self.what)
    }
}

/// Run the model sender and the RTL side by side; `progress` is called
/// with (step, frames sent) every 1000 steps.
pub fn send_lockstep(cfg: &SendLockstep, progress: &mut dyn FnMut(u64, u64)) -> Result<SendReport, Divergence> {
    let lib = model_lib();
    let mut rtl = TxRtl::new(&lib, cfg.seed ^ 0x74);
    let mut rng = Rng::new(cfg.seed);

    let mut acfg = EndpointConfig::new(A_MAC, A_IP, 100_000, MTU);
    // Below the RTTs the channel gives (2-10 us), so that the RTOs come from
    // the RTT estimates (and some are spurious, on both sides alike).
    acfg.rto_min = us(8);
    let rnr_delay = acfg.rnr_delay;
    let mut a = Endpoint::new(acfg.clone()).unwrap();
    let mut amem = Memory::default();
    amem.add_region("src", Iova(0x5000_0000), 1 << 20, false);
    for (k, byte) in amem.region_mut("src").iter_mut().enumerate() {
        *byte = ((k as u64 * 2654435761) >> 9) as u8;
    }
    let mut bcfg = EndpointConfig::new(B_MAC, B_IP, 100_000, MTU);
    bcfg.seed = 5;
    bcfg.ack_every = 12; // ACKs cover many PSNs, and often several messages
    let mut b = Endpoint::new(bcfg).unwrap();
    let mut bmem = Memory::default();
    bmem.add_region("dst", Iova(0x1000_0000), 1 << 21, true);
    bmem.add_region("recv", Iova(0x3000_0000), 1 << 20, true);

    // RTL configuration, as a driver would write it.
    for (n, v) in [
        ("cfg_mac", u64::from_be_bytes([0, 0, A_MAC[0], A_MAC[1], A_MAC[2], A_MAC[3], A_MAC[4], A_MAC[5]])),
        ("cfg_ip", u32::from_be_bytes(A_IP) as u64),
        ("cfg_port", wire::FERROCE_PORT as u64),
        ("cfg_mtu", MTU as u64),
        ("cfg_max_cwnd", acfg.max_cwnd as u64),
        ("cfg_repath_after", acfg.repath_after_rtos as u64),
        ("cfg_retire_after", acfg.retire_after_rtos as u64),
        ("cfg_rto_min", acfg.rto_min / 1000),
        ("cfg_hint", 0),
        ("tx_mask", u64::MAX), // no pacing: attempts come from the model
    ] {
        rtl.set(n, v);
    }
    let seed = Rng::new(acfg.seed).next_u64() as u32;
    rtl.handshake("ctl_valid", "ctl_ready", &[("ctl_op", 1), ("ctl_seed", seed as u64)], &amem);

    let conns = [
        Conn {
            at_a: ConnId(1),
            at_b: ConnId(3),
            paths: 16,
            streams: 8,
            rkey: Rkey(0x100),
            base: 0x1000_0000,
            len: 1 << 20,
        },
        // One path: every ACK's PSNs are in one window, so the order in which
        // an ACK credits them decides the order of completions.
        Conn {
            at_a: ConnId(2),
            at_b: ConnId(7),
            paths: 1,
            streams: 3,
            rkey: Rkey(0x200),
            base: 0x1010_0000,
            len: 1 << 20,
        },
    ];
    for c in &conns {
        a.connect(ConnConfig {
            id: c.at_a,
            remote_id: c.at_b,
            peer_mac: B_MAC,
            peer_ip: B_IP,
            paths: c.paths,
            streams: c.streams,
            initial_rate_mbps: None,
        })
        .unwrap();
        b.connect(ConnConfig {
            id: c.at_b,
            remote_id: c.at_a,
            peer_mac: A_MAC,
            peer_ip: A_IP,
            paths: c.paths,
            streams: c.streams,
            initial_rate_mbps: None,
        })
        .unwrap();
        b.register_mr(MemoryRegion {
            rkey: c.rkey,
            base: Iova(c.base),
            len: c.len,
            access: Access { remote_write: true },
            conn: c.at_b,
        })
        .unwrap();
        rtl.handshake(
            "ctl_valid",
            "ctl_ready",
            &[
                ("ctl_op", 0),
                ("ctl_conn", c.at_a.0 as u64),
                ("ctl_remote", c.at_b.0 as u64),
                ("ctl_mac", u64::from_be_bytes([0, 0, B_MAC[0], B_MAC[1], B_MAC[2], B_MAC[3], B_MAC[4], B_MAC[5]])),
                ("ctl_ip", u32::from_be_bytes(B_IP) as u64),
                ("ctl_paths", c.paths as u64),
                ("ctl_streams", c.streams as u64),
            ],
            &amem,
        );
    }
    rtl.settle(&amem);

    // Work requests: the model takes them all; the RTL holds 16 per stream
    // and is given the next as soon as a completion frees a slot.
    let mut pending: BTreeMap<u64, VecDeque<WorkRequest>> = BTreeMap::new();
    let mut recv: Vec<(ConnId, StreamId, u32, u64)> = Vec::new(); // SENDs: (conn at B, stream, len, post at)
    let mut total = 0;
    for (ci, c) in conns.iter().enumerate() {
        for k in 0..cfg.messages[ci] {
            let stream = StreamId(rng.below(c.streams as u64) as u16);
            let size = match ci {
                0 if rng.chance(0.1) => 1 + rng.below(5000),
                0 => 1 + rng.below(700),
                _ => 1 + rng.below(MTU as u64),
            } as u32;
            let local = Iova(0x5000_0000 + rng.below((1 << 20) - size as u64));
            let id = WrId(1_000_000 * ci as u64 + k);
            let wr = match rng.below(10) {
                0..=5 => {
                    let imm = rng.chance(0.4).then(|| rng.next_u64() as u32);
                    let rkey = if rng.chance(0.05) { Rkey(0x999) } else { c.rkey };
                    let remote = Iova(c.base + rng.below(c.len - size as u64));
                    WorkRequest::Write { id, conn: c.at_a, stream, local, len: size, remote, rkey, imm }
                }
                _ => {
                    // Its buffer: sometimes small, posted late for some.
                    let len = if size > 1 && rng.chance(0.1) { size / 2 } else { size };
                    let at = if rng.chance(0.15) { 30 + rng.below(300) } else { 0 };
                    recv.push((c.at_b, stream, len, at));
                    WorkRequest::Send { id, conn: c.at_a, stream, local, len: size }
                }
            };
            a.post(wr).unwrap();
            pending.entry(key(c.at_a, stream.0 as u64)).or_default().push_back(wr);
            total += 1;
        }
    }
    // Receive buffers are posted in order per stream; a late one holds up
    // the ones after it.
    let mut recv_q: BTreeMap<(u16, u16), VecDeque<(u32, u64)>> = BTreeMap::new();
    for (c, s, len, at) in recv {
        recv_q.entry((c.0, s.0)).or_default().push_back((len, at));
    }
    let mut recv_at = 0x3000_0000u64;
    let mut in_rtl: HashMap<u64, usize> = HashMap::new();

    let mut to_b: Vec<(Time, u64, Vec<u8>)> = Vec::new();
    let mut to_a: Vec<(Time, u64, Vec<u8>)> = Vec::new();
    let mut rto_at: BTreeMap<u64, Time> = BTreeMap::new();
    let mut releases: Vec<(Time, u64, u32)> = Vec::new();
    let mut black_hole: Option<(u16, Time)> = None;
    let mut now: Time = 0;
    let mut step = 0u64;
    let (mut sent, mut cpls) = (0u64, 0usize);
    let ns = |t: Time| t / 1000;
    loop {
        step += 1;
        now += us(1);
        rtl.set("now", ns(now));
        let diverge = |cycle: u64, what: String| Divergence { step, cycle, what };
        if now > us(100) * (cfg.messages[0] + cfg.messages[1]) + us(200_000) {
            return Err(diverge(
                rtl.s.cycles(),
                format!("the transfer did not finish: {} messages outstanding", a.outstanding()),
            ));
        }
        if step % 1000 == 0 {
            progress(step, sent);
        }
        // Receive buffers whose time has come.
        for ((c, s), q) in recv_q.iter_mut() {
            while q.front().is_some_and(|(_, at)| *at <= step) {
                let (len, _) = q.pop_front().unwrap();
                b.post_recv(RecvBuffer {
                    id: WrId(recv_at),
                    conn: ConnId(*c),
                    stream: StreamId(*s),
                    addr: Iova(recv_at),
                    len,
                })
                .unwrap();
                recv_at += len as u64;
            }
        }
        // A's timers, and the same timers fired in the RTL in the model's order.
        a.handle_timeout(now);
        let mut due: Vec<u64> = rto_at.iter().filter(|(_, t)| **t <= now).map(|(k, _)| *k).collect();
        due.sort();
        for c in &conns {
            for k in due.iter().filter(|k| **k >> ferroce_hdl::emit::PATH_BITS == c.at_a.0 as u64) {
                rto_at.remove(k);
                rtl.handshake("rto_valid", "rto_ready", &[("rto_key", *k)], &amem);
            }
            let mut i = 0;
            while i < releases.len() {
                let (t, k, psn) = releases[i];
                if t <= now && k >> ferroce_hdl::emit::PATH_BITS == c.at_a.0 as u64 {
                    releases.remove(i);
                    rtl.handshake(
                        "release_valid",
                        "release_ready",
                        &[("release_key", k), ("release_psn", psn as u64)],
                        &amem,
                    );
                } else {
                    i += 1;
                }
            }
        }
        rtl.settle(&amem);
        // Frames to B; B's answers and ACK timers.
        to_b.sort_by_key(|(t, r, _)| (*t, *r));
        while to_b.first().is_some_and(|(t, _, _)| *t <= now) {
            let (_, _, f) = to_b.remove(0);
            let sport = wire::parse(&f, wire::FERROCE_PORT).unwrap().addr.sport;
            if step == 600 && black_hole.is_none() {
                black_hole = Some((sport, now + us(400)));
            }
            // A whole path of connection 2 fails for a while: RTOs back
            // off, re-pathing does not help, the path retires and returns.
            let plane = {
                let c = wire::parse(&f, wire::FERROCE_PORT).unwrap().transport.common;
                c.conn == ConnId(7) && (300..10_400).contains(&step)
            };
            if plane || black_hole.is_some_and(|(p, until)| p == sport && now < until) || rng.chance(cfg.loss) {
                continue;
            }
            let mut f = f;
            if rng.chance(cfg.ce) {
                wire::mark_ce(&mut f);
            }
            b.handle_frame(now, &f, &mut bmem);
        }
        b.handle_timeout(now);
        while let Some(f) = b.poll_transmit(now, &bmem) {
            // ACKs of one path are lost for a while: A retransmits what B
            // has, and the duplicates' ACKs acknowledge nothing new.
            let c = wire::parse(&f, wire::FERROCE_PORT).unwrap().transport.common;
            let acks_lost = c.conn == ConnId(1) && c.path.0 == 5 && (1000..1300).contains(&step);
            if !acks_lost && !rng.chance(cfg.ack_loss) {
                if rng.chance(0.02) {
                    to_a.push((now + us(1 + rng.below(6)), rng.next_u64(), f.clone()));
                    // duplicated
                }
                to_a.push((now + us(1 + rng.below(3)), rng.next_u64(), f));
            }
        }
        while b.poll_completion().is_some() {}
        // Frames to A and, as feedback, to the RTL.
        to_a.sort_by_key(|(t, r, _)| (*t, *r));
        while to_a.first().is_some_and(|(t, _, _)| *t <= now) {
            let (_, _, f) = to_a.remove(0);
            a.handle_frame(now, &f, &mut amem);
            let p = wire::parse(&f, wire::FERROCE_PORT).unwrap();
            let c = p.transport.common;
            let k = path_key(c.conn, c.path.0 as u64);
            let mut fields = vec![("fb_key", k), ("fb_psn", c.psn.get() as u64), ("fb_stream", c.stream.0 as u64)];
            match p.transport.body {
                Body::Ack(ack) => {
                    fields.extend([("fb_nak", 0), ("fb_ce", ack.ecn_ce as u64), ("fb_ts", ack.ts_echo as u64)]);
                    let words: Vec<u32> =
                        ack.sack.chunks(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
                    let sp = rtl.p("fb_sack");
                    rtl.s.set_words(sp, &words);
                }
                Body::Nak(n) => {
                    fields.extend([("fb_nak", 1), ("fb_code", n.code as u64), ("fb_msg_seq", n.msg_seq.0 as u64)]);
                    if n.code == wire::NakCode::NoRecv {
                        // The model holds the PSN and releases it after the delay.
                    }
                }
                Body::Data(_) => panic!("B sends no data"),
            }
            rtl.handshake("fb_valid", "fb_ready", &fields, &amem);
            rtl.settle(&amem);
        }
        // Completions, RTO arming and holds must agree so far.
        let mut want: Vec<CplT> = Vec::new();
        while let Some(c) = a.poll_completion() {
            want.push(cpl_tuple(&c));
        }
        let got: Vec<CplT> = rtl.cpls.drain(..).collect();
        // In order per connection (the model keeps one queue per
        // connection and drains them in connection order).
        let by_conn = |v: &[CplT]| {
            let mut m: BTreeMap<u64, Vec<CplT>> = BTreeMap::new();
            v.iter().for_each(|c| m.entry(c.0 >> 3).or_default().push(*c));
            m
        };
        if by_conn(&got) != by_conn(&want) {
            return Err(diverge(rtl.s.cycles(), format!("send completions: RTL {got:?}, model {want:?}")));
        }
        cpls += got.len();
        for (k, _, _, _, _, _) in &got {
            *in_rtl.get_mut(k).expect("fed") -= 1;
        }
        mirror_timers(&mut rtl, &mut rto_at, &mut releases, now, rnr_delay);
        // Work requests into the RTL where there is room.
        for (k, q) in pending.iter_mut() {
            while in_rtl.get(k).copied().unwrap_or(0) < 16 {
                let Some(wr) = q.pop_front() else { break };
                let (op, remote, rkey, imm) = match wr {
                    WorkRequest::Write { remote, rkey, imm, .. } => {
                        (if imm.is_some() { 2 } else { 1 }, remote.0, rkey.0, imm.unwrap_or(0))
                    }
                    WorkRequest::Send { .. } => (3, 0, 0, 0),
                };
                let (_, _, local, len) = wr.parts();
                rtl.handshake(
                    "wr_valid",
                    "wr_ready",
                    &[
                        ("wr_key", *k),
                        ("wr_op", op),
                        ("wr_len", len as u64),
                        ("wr_local", local.0),
                        ("wr_remote", remote),
                        ("wr_rkey", rkey as u64),
                        ("wr_imm", imm as u64),
                        ("wr_id", wr.id().0),
                    ],
                    &amem,
                );
                *in_rtl.entry(*k).or_default() += 1;
            }
        }
        // One frame from each.
        let want = a.poll_transmit(now, &amem);
        let got = rtl.transmit(&amem);
        match (&got, &want) {
            (Some(g), Some(w)) => {
                if g != w {
                    let gp = wire::parse(g, wire::FERROCE_PORT);
                    let wp = wire::parse(w, wire::FERROCE_PORT);
                    return Err(diverge(rtl.s.cycles(), format!("frames differ\n  RTL   {gp:?}\n  model {wp:?}")));
                }
                sent += 1;
            }
            (None, None) => {}
            _ => {
                return Err(diverge(
                    rtl.s.cycles(),
                    format!(
                        "RTL sent {:?}, model sent {:?}",
                        got.as_ref().map(|f| wire::parse(f, wire::FERROCE_PORT)),
                        want.as_ref().map(|f| wire::parse(f, wire::FERROCE_PORT))
                    ),
                ))
            }
        }
        mirror_timers(&mut rtl, &mut rto_at, &mut releases, now, rnr_delay);
        // Every retransmission timer as the model has it (armed, when).
        for c in &conns {
            for (p, snap) in a.paths(c.at_a).iter().enumerate() {
                let rtl_at = rto_at.get(&path_key(c.at_a, p as u64)).copied();
                if rtl_at != snap.rto_at {
                    return Err(diverge(
                        rtl.s.cycles(),
                        format!("retransmission timer of {}/{p}: RTL {rtl_at:?}, model {:?}", c.at_a, snap.rto_at),
                    ));
                }
            }
        }
        if let Some(f) = want {
            to_b.push((now + us(1 + rng.below(4)), rng.next_u64(), f));
        }
        if a.outstanding() == 0 && to_b.is_empty() && to_a.is_empty() {
            break;
        }
    }
    let st = a.stats();
    let names = [
        ("cnt_tx_data", st.tx_data),
        ("cnt_tx_retx", st.tx_retx),
        ("cnt_tx_acks", st.tx_acks),
        ("cnt_tx_naks", st.tx_naks),
        ("cnt_rtos", st.rtos),
        ("cnt_repaths", st.repaths),
        ("cnt_naks_received", st.naks_received),
    ];
    let cycle = rtl.s.cycles();
    for (n, want) in names {
        let got = rtl.get(n);
        if got != want {
            return Err(Divergence { step, cycle, what: format!("counter {n}: RTL {got}, model {want}") });
        }
    }
    if cpls != total {
        return Err(Divergence { step, cycle, what: format!("{cpls} completions for {total} messages") });
    }
    Ok(SendReport { messages: total as u64, frames: sent, completions: cpls, steps: step, cycles: cycle, stats: st })
}
