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

use ferroce_proto::model::{ConnConfig, Endpoint, EndpointConfig, Recovery, RepairRoute};
use ferroce_proto::params::MSG_WINDOW;
use ferroce_proto::rng::Rng;
use ferroce_proto::transport::{Access, MemoryRegion, RecvBuffer, Stats, Transport, WorkRequest};
use ferroce_proto::types::{us, Time};
use ferroce_proto::wire::{self, Body};
use ferroce_proto::{ConnId, Iova, Rkey, StreamId, WrId};

use super::common::{
    bytes_to_words, ip_word, mac_word, path_key, path_key_conn, stream_key, stream_key_conn, wr_opcode, Channel,
    Divergence, A_IP, A_MAC, B_IP, B_MAC, MTU,
};
use super::tx_rtl::{Hold, TxCompletion, TxRtl};

use crate::memory::Memory;
use crate::verilator::ModelLib;

/// `tx_path`'s `ctl_op`: open a connection, or seed the source-port
/// generator.
const CTL_CONNECT: u64 = 0;
const CTL_SEED: u64 = 1;

/// A frame as the divergence report shows it.
fn parse(f: &[u8]) -> ferroce_proto::Result<wire::Frame<'_>> {
    wire::parse(f, wire::FERROCE_PORT)
}

/// The `tx_path` model, built once per process.
pub fn model_lib() -> Arc<ModelLib> {
    ModelLib::of_block("tx_path", || ferroce_hdl::emit::verilog_of(ferroce_hdl::tx::tx_path::TxPath::default))
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

/// The two connections: one wide, one of a single path.
const CONNS: [Conn; 2] = [
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
    Conn { at_a: ConnId(2), at_b: ConnId(7), paths: 1, streams: 3, rkey: Rkey(0x200), base: 0x1010_0000, len: 1 << 20 },
];

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
    /// A's loss-recovery settings, in the model and in the RTL's inputs
    /// (only those `control.recovery` holds: [`Recovery::register`]).
    pub recovery: Recovery,
    /// The register window stays on connection 1's path 0 for the whole
    /// run (its snapshot loaded once and kept by following every change of
    /// the path), instead of moving over the paths every 64 cycles. Either
    /// way every path's window is compared with the model's path at the end.
    pub window_still: bool,
    /// A's and B's line rates (Mb/s): B's rate hints share its line among
    /// its active connections; A takes them up to its own line.
    pub line_mbps: [u32; 2],
    /// Delay (us) added to every frame's way in both directions, beyond
    /// the channel's 1 to 4 us.
    pub delay_us: u64,
}

impl Default for SendLockstep {
    fn default() -> Self {
        SendLockstep {
            seed: 77,
            messages: [900, 300],
            loss: 0.03,
            ack_loss: 0.02,
            ce: 0.05,
            recovery: Recovery::v0(),
            window_still: false,
            line_mbps: [100_000, 100_000],
            delay_us: 0,
        }
    }
}

/// The send path's inputs for the settings of `control.recovery`, as the
/// engine top decodes the register (settings the register cannot hold
/// panic).
pub fn recovery_inputs(r: &Recovery) -> [(&'static str, u64); 8] {
    r.register().unwrap_or_else(|e| panic!("{e}"));
    [
        ("cfg_max_backoff", r.max_backoff as u64),
        ("cfg_loss_shift", r.repath_loss_shift as u64),
        ("cfg_path_ecn_cut", r.path_ecn_cut as u64),
        ("cfg_probe", r.probe as u64),
        ("cfg_rack", r.rack as u64),
        ("cfg_conn_window", r.conn_window as u64),
        ("cfg_clean_repairs", (r.repair_route == RepairRoute::CleanPath) as u64),
        ("cfg_path_rack", r.path_rack as u64),
    ]
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
    /// The most packets each connection had outstanding over its paths
    /// (in the model, after a step).
    pub max_out: [u32; 2],
    /// Retransmissions sent on another route than their path's own source
    /// port (clean-route repairs).
    pub rerouted: u64,
}

/// A receive buffer B posts for one SEND, at a step.
#[derive(Debug, Clone, Copy)]
struct PlannedRecv {
    len: u32,
    at_step: u64,
}

/// A NO_RECV hold's release, due at a time.
#[derive(Debug, Clone, Copy)]
struct Release {
    at: Time,
    hold: Hold,
}

/// The work: what the RTL has yet to be given, and B's receive buffers.
#[derive(Default)]
struct Work {
    /// Per stream key: work requests the RTL has not been given yet (the
    /// model took them all at the start).
    pending: BTreeMap<u64, VecDeque<WorkRequest>>,
    /// Per stream key: work requests in the RTL's message ring.
    in_rtl: HashMap<u64, usize>,
    /// Per (connection at B, stream): receive buffers in posting order (a
    /// late one holds up the ones after it).
    recvs: BTreeMap<(u16, u16), VecDeque<PlannedRecv>>,
    recv_at: u64,
    total: usize,
}

/// One run's world: the model sender A, the RTL, the receiver B and the
/// channel between them.
struct SendRun<'c> {
    cfg: &'c SendLockstep,
    rtl: TxRtl,
    rng: Rng,
    a: Endpoint,
    b: Endpoint,
    amem: Memory,
    bmem: Memory,
    rnr_delay: Time,
    work: Work,
    to_b: Channel<Vec<u8>>,
    to_a: Channel<Vec<u8>>,
    /// The RTL's retransmission timers (per path key), tail-probe timers
    /// (per connection) and NO_RECV releases.
    rto_at: BTreeMap<u64, Time>,
    probe_at: BTreeMap<u64, Time>,
    releases: Vec<Release>,
    /// A source port dropped by the channel, until a time.
    black_hole: Option<(u16, Time)>,
    now: Time,
    step: u64,
    sent: u64,
    max_out: [u32; 2],
    rerouted: u64,
    cpls: usize,
}

/// Run the model sender and the RTL side by side; `progress` is called
/// with (step, frames sent) every 1000 steps.
pub fn send_lockstep(cfg: &SendLockstep, progress: &mut dyn FnMut(u64, u64)) -> Result<SendReport, Divergence> {
    let mut run = SendRun::new(cfg);
    loop {
        if run.step(progress)? {
            break;
        }
    }
    run.finish()
}

impl<'c> SendRun<'c> {
    fn new(cfg: &'c SendLockstep) -> SendRun<'c> {
        let lib = model_lib();
        let mut rtl = TxRtl::new(&lib, cfg.seed ^ 0x74);
        rtl.window_keys = if cfg.window_still {
            vec![path_key(CONNS[0].at_a, 0)]
        } else {
            CONNS.iter().flat_map(|c| (0..c.paths).map(|p| path_key(c.at_a, p as u8))).collect()
        };
        let rng = Rng::new(cfg.seed);
        let mut acfg = EndpointConfig::new(A_MAC, A_IP, cfg.line_mbps[0], MTU);
        // Below the RTTs the channel gives (2-10 us), so that the RTOs come from
        // the RTT estimates (and some are spurious, on both sides alike).
        acfg.rto_min = us(8);
        acfg.recovery = cfg.recovery;
        let a = Endpoint::new(acfg.clone()).unwrap();
        let mut amem = Memory::default();
        amem.add_region("src", Iova(0x5000_0000), 1 << 20, false);
        for (k, byte) in amem.region_mut("src").iter_mut().enumerate() {
            *byte = ((k as u64 * 2654435761) >> 9) as u8;
        }
        let mut bcfg = EndpointConfig::new(B_MAC, B_IP, cfg.line_mbps[1], MTU);
        bcfg.seed = 5;
        bcfg.ack_every = 12; // ACKs cover many PSNs, and often several messages
        let b = Endpoint::new(bcfg).unwrap();
        let mut bmem = Memory::default();
        bmem.add_region("dst", Iova(0x1000_0000), 1 << 21, true);
        bmem.add_region("recv", Iova(0x3000_0000), 1 << 20, true);
        let mut run = SendRun {
            cfg,
            rtl,
            rng,
            a,
            b,
            amem,
            bmem,
            rnr_delay: acfg.rnr_delay,
            work: Work { recv_at: 0x3000_0000, ..Work::default() },
            to_b: Channel::default(),
            to_a: Channel::default(),
            rto_at: BTreeMap::new(),
            probe_at: BTreeMap::new(),
            releases: Vec::new(),
            black_hole: None,
            now: 0,
            step: 0,
            sent: 0,
            max_out: [0; 2],
            rerouted: 0,
            cpls: 0,
        };
        run.configure_rtl(&acfg);
        run.connect();
        run.post_work();
        run
    }

    /// The RTL's configuration, as a driver would write it.
    fn configure_rtl(&mut self, acfg: &EndpointConfig) {
        for (n, v) in [
            ("cfg_mac", mac_word(A_MAC)),
            ("cfg_ip", ip_word(A_IP)),
            ("cfg_port", wire::FERROCE_PORT as u64),
            ("cfg_mtu", MTU as u64),
            ("cfg_max_cwnd", acfg.max_cwnd as u64),
            ("cfg_repath_after", acfg.repath_after_rtos as u64),
            ("cfg_retire_after", acfg.retire_after_rtos as u64),
            ("cfg_rto_min", acfg.rto_min / 1000),
            ("cfg_ack_delay", acfg.ack_delay / 1000),
            ("cfg_hint", 0),
            ("cfg_line", acfg.line_rate_mbps as u64),
            ("cfg_window_scale", acfg.recovery.window_scale()),
            ("tx_mask", u64::MAX), // set from the model's pacing before each attempt
        ] {
            self.rtl.set(n, v);
        }
        for (n, v) in recovery_inputs(&acfg.recovery) {
            self.rtl.set(n, v);
        }
        let seed = Rng::new(acfg.seed).next_u64() as u32;
        self.rtl.handshake("ctl_valid", "ctl_ready", &[("ctl_op", CTL_SEED), ("ctl_seed", seed as u64)], &self.amem);
    }

    /// Both connections at A, B and the RTL; B's memory regions.
    fn connect(&mut self) {
        for c in &CONNS {
            let conn = |id, remote_id, peer_mac, peer_ip| ConnConfig {
                id,
                remote_id,
                peer_mac,
                peer_ip,
                paths: c.paths,
                streams: c.streams,
                initial_rate_mbps: None,
            };
            self.a.connect(conn(c.at_a, c.at_b, B_MAC, B_IP)).unwrap();
            self.b.connect(conn(c.at_b, c.at_a, A_MAC, A_IP)).unwrap();
            let access = Access { remote_write: true };
            let mr = MemoryRegion { rkey: c.rkey, base: Iova(c.base), len: c.len, access, conn: c.at_b };
            self.b.register_mr(mr).unwrap();
            let fields = [
                ("ctl_op", CTL_CONNECT),
                ("ctl_conn", c.at_a.0 as u64),
                ("ctl_remote", c.at_b.0 as u64),
                ("ctl_mac", mac_word(B_MAC)),
                ("ctl_ip", ip_word(B_IP)),
                ("ctl_paths", c.paths as u64),
                ("ctl_streams", c.streams as u64),
            ];
            self.rtl.handshake("ctl_valid", "ctl_ready", &fields, &self.amem);
        }
        self.rtl.settle(&self.amem);
    }

    /// Work requests: the model takes them all; the RTL holds a message
    /// window's worth per stream and is given the next as soon as a
    /// completion frees a slot.
    fn post_work(&mut self) {
        let mut recv: Vec<(ConnId, StreamId, PlannedRecv)> = Vec::new();
        for (ci, c) in CONNS.iter().enumerate() {
            for k in 0..self.cfg.messages[ci] {
                let wr = self.random_request(ci, c, k, &mut recv);
                self.a.post(wr).unwrap();
                let (_, stream, _, _) = wr.parts();
                self.work.pending.entry(stream_key(c.at_a, stream.0)).or_default().push_back(wr);
                self.work.total += 1;
            }
        }
        for (c, s, planned) in recv {
            self.work.recvs.entry((c.0, s.0)).or_default().push_back(planned);
        }
    }

    /// Message `k` of connection `ci`: a WRITE (some with immediate, some to
    /// a bad rkey) or a SEND (its buffer sometimes small, sometimes late).
    fn random_request(
        &mut self,
        ci: usize,
        c: &Conn,
        k: u64,
        recv: &mut Vec<(ConnId, StreamId, PlannedRecv)>,
    ) -> WorkRequest {
        let rng = &mut self.rng;
        let stream = StreamId(rng.below(c.streams as u64) as u16);
        let size = match ci {
            0 if rng.chance(0.1) => 1 + rng.below(5000),
            0 => 1 + rng.below(700),
            _ => 1 + rng.below(MTU as u64),
        } as u32;
        let local = Iova(0x5000_0000 + rng.below((1 << 20) - size as u64));
        let id = WrId(1_000_000 * ci as u64 + k);
        match rng.below(10) {
            0..=5 => {
                let imm = rng.chance(0.4).then(|| rng.next_u64() as u32);
                let rkey = if rng.chance(0.05) { Rkey(0x999) } else { c.rkey };
                let remote = Iova(c.base + rng.below(c.len - size as u64));
                WorkRequest::Write { id, conn: c.at_a, stream, local, len: size, remote, rkey, imm }
            }
            _ => {
                let len = if size > 1 && rng.chance(0.1) { size / 2 } else { size };
                let at_step = if rng.chance(0.15) { 30 + rng.below(300) } else { 0 };
                recv.push((c.at_b, stream, PlannedRecv { len, at_step }));
                WorkRequest::Send { id, conn: c.at_a, stream, local, len: size }
            }
        }
    }

    fn diverge(&self, what: String) -> Divergence {
        Divergence { step: self.step, cycle: self.rtl.io.s.cycles(), what }
    }

    /// One microsecond: timers, the channel both ways, feedback, work, one
    /// frame from each side, all compared. True when the transfer is done.
    fn step(&mut self, progress: &mut dyn FnMut(u64, u64)) -> Result<bool, Divergence> {
        self.step += 1;
        self.now += us(1);
        self.rtl.set("now", self.now / 1000);
        if self.now > us(100) * (self.cfg.messages[0] + self.cfg.messages[1]) + us(200_000) {
            let left = self.a.outstanding();
            return Err(self.diverge(format!("the transfer did not finish: {left} messages outstanding")));
        }
        if self.step % 1000 == 0 {
            progress(self.step, self.sent);
        }
        self.post_due_recvs();
        self.fire_timers();
        self.rtl.settle(&self.amem);
        self.deliver_to_b();
        self.answer_from_b();
        self.deliver_to_a();
        self.compare_completions()?;
        self.mirror_timers();
        self.feed_work();
        let want = self.compare_frames()?;
        self.mirror_timers();
        self.compare_rto_deadlines()?;
        for (m, c) in self.max_out.iter_mut().zip(&CONNS) {
            *m = (*m).max(self.a.paths(c.at_a).iter().map(|p| p.outstanding).sum());
        }
        if let Some(f) = &want {
            let p = parse(f).expect("A's frames parse");
            let c = &p.transport.common;
            if c.flags & wire::flags::RETX != 0 {
                if let Some(at_a) = CONNS.iter().find(|x| x.at_b == c.conn).map(|x| x.at_a) {
                    let own = self.a.paths(at_a).get(c.path.0 as usize).map(|s| s.sport);
                    self.rerouted += (own != Some(p.addr.sport)) as u64;
                }
            }
        }
        if let Some(f) = want {
            self.to_b.push(self.now + us(1 + self.cfg.delay_us + self.rng.below(4)), self.rng.next_u64(), f);
        }
        Ok(self.a.outstanding() == 0 && self.to_b.is_empty() && self.to_a.is_empty())
    }

    /// B's receive buffers whose step has come.
    fn post_due_recvs(&mut self) {
        for ((c, s), q) in self.work.recvs.iter_mut() {
            while q.front().is_some_and(|r| r.at_step <= self.step) {
                let len = q.pop_front().unwrap().len;
                let at = self.work.recv_at;
                let buf = RecvBuffer { id: WrId(at), conn: ConnId(*c), stream: StreamId(*s), addr: Iova(at), len };
                self.b.post_recv(buf).unwrap();
                self.work.recv_at += len as u64;
            }
        }
    }

    /// A's timers, and the same timers fired in the RTL in the model's order:
    /// per connection, its RTOs by path, its tail probe, then its due
    /// releases.
    fn fire_timers(&mut self) {
        self.a.handle_timeout(self.now);
        let now = self.now;
        let mut due: Vec<u64> = self.rto_at.iter().filter(|(_, t)| **t <= now).map(|(k, _)| *k).collect();
        due.sort();
        for c in &CONNS {
            let ours = |k: u64| path_key_conn(k) == c.at_a.0 as u64;
            for k in due.iter().copied().filter(|k| ours(*k)) {
                self.rto_at.remove(&k);
                self.rtl.handshake("rto_valid", "rto_ready", &[("rto_key", k)], &self.amem);
            }
            let conn = c.at_a.0 as u64;
            if self.probe_at.get(&conn).is_some_and(|t| *t <= now) {
                self.probe_at.remove(&conn);
                self.rtl.handshake("probe_valid", "probe_ready", &[("probe_key", conn)], &self.amem);
            }
            let mut i = 0;
            while i < self.releases.len() {
                let Release { at, hold } = self.releases[i];
                if at <= now && ours(hold.key) {
                    self.releases.remove(i);
                    let fields = [("release_key", hold.key), ("release_psn", hold.psn as u64)];
                    self.rtl.handshake("release_valid", "release_ready", &fields, &self.amem);
                } else {
                    i += 1;
                }
            }
        }
    }

    /// Frames to B through the channel's faults: a black-holed source port,
    /// a failed path of connection 2, loss and CE marks.
    fn deliver_to_b(&mut self) {
        self.to_b.sort();
        while let Some(mut f) = self.to_b.pop_due(self.now) {
            let p = wire::parse(&f, wire::FERROCE_PORT).unwrap();
            let sport = p.addr.sport;
            if self.step == 600 && self.black_hole.is_none() {
                self.black_hole = Some((sport, self.now + us(400)));
            }
            // A whole path of connection 2 fails for a while: RTOs back
            // off, re-pathing does not help, the path retires and returns.
            let plane = p.transport.common.conn == ConnId(7) && (300..10_400).contains(&self.step);
            let holed = self.black_hole.is_some_and(|(port, until)| port == sport && self.now < until);
            if plane || holed || self.rng.chance(self.cfg.loss) {
                continue;
            }
            if self.rng.chance(self.cfg.ce) {
                wire::mark_ce(&mut f);
            }
            self.b.handle_frame(self.now, &f, &mut self.bmem);
        }
    }

    /// B's ACKs, NAKs and ACK timers, onto the channel back to A.
    fn answer_from_b(&mut self) {
        self.b.handle_timeout(self.now);
        while let Some(f) = self.b.poll_transmit(self.now, &self.bmem) {
            // ACKs of one path are lost for a while: A retransmits what B
            // has, and the duplicates' ACKs acknowledge nothing new.
            let c = wire::parse(&f, wire::FERROCE_PORT).unwrap().transport.common;
            let acks_lost = c.conn == ConnId(1) && c.path.0 == 5 && (1000..1300).contains(&self.step);
            if !acks_lost && !self.rng.chance(self.cfg.ack_loss) {
                if self.rng.chance(0.02) {
                    // duplicated
                    let at = self.now + us(1 + self.cfg.delay_us + self.rng.below(6));
                    self.to_a.push(at, self.rng.next_u64(), f.clone());
                }
                self.to_a.push(self.now + us(1 + self.cfg.delay_us + self.rng.below(3)), self.rng.next_u64(), f);
            }
        }
        while self.b.poll_completion().is_some() {}
    }

    /// Frames to A and, as the receive path would pass them on, to the RTL.
    fn deliver_to_a(&mut self) {
        self.to_a.sort();
        while let Some(f) = self.to_a.pop_due(self.now) {
            self.a.handle_frame(self.now, &f, &mut self.amem);
            let p = wire::parse(&f, wire::FERROCE_PORT).unwrap();
            let c = p.transport.common;
            let k = path_key(c.conn, c.path.0);
            let mut fields = vec![("fb_key", k), ("fb_psn", c.psn.get() as u64), ("fb_stream", c.stream.0 as u64)];
            match p.transport.body {
                Body::Ack(ack) => {
                    fields.extend([
                        ("fb_nak", 0),
                        ("fb_ce", ack.ecn_ce as u64),
                        ("fb_ts", ack.ts_echo as u64),
                        ("fb_hint", ack.rate_hint_mbps as u64),
                    ]);
                    self.rtl.io.set_words("fb_sack", &bytes_to_words(&ack.sack));
                }
                // A NO_RECV NAK: the model holds the PSN and releases it after the delay.
                Body::Nak(n) => fields.extend([
                    ("fb_nak", 1),
                    ("fb_code", n.code.code() as u64),
                    ("fb_msg_seq", n.msg_seq.0 as u64),
                ]),
                Body::Data(_) => panic!("B sends no data"),
            }
            self.rtl.handshake("fb_valid", "fb_ready", &fields, &self.amem);
            self.rtl.settle(&self.amem);
        }
    }

    /// Send completions so far, in order per connection (the model keeps
    /// one queue per connection and drains them in connection order).
    fn compare_completions(&mut self) -> Result<(), Divergence> {
        let mut want: Vec<TxCompletion> = Vec::new();
        while let Some(c) = self.a.poll_completion() {
            want.push(TxCompletion::of_model(&c));
        }
        let got: Vec<TxCompletion> = self.rtl.cpls.drain(..).collect();
        let by_conn = |v: &[TxCompletion]| {
            let mut m: BTreeMap<u64, Vec<TxCompletion>> = BTreeMap::new();
            v.iter().for_each(|c| m.entry(stream_key_conn(c.key)).or_default().push(*c));
            m
        };
        if by_conn(&got) != by_conn(&want) {
            return Err(self.diverge(format!("send completions: RTL {got:?}, model {want:?}")));
        }
        self.cpls += got.len();
        for c in &got {
            *self.work.in_rtl.get_mut(&c.key).expect("fed") -= 1;
        }
        Ok(())
    }

    /// The RTL's timer requests as the caller's timers: an RTO deadline per
    /// path (the base timeout the RTL gives, from its RTT estimate, backed
    /// off), a release time per held PSN.
    fn mirror_timers(&mut self) {
        for r in self.rtl.rtos.drain(..) {
            if r.arm {
                self.rto_at.insert(r.key, self.now + (r.base << r.shift));
            } else {
                self.rto_at.remove(&r.key);
            }
        }
        for r in self.rtl.probes.drain(..) {
            if r.arm {
                self.probe_at.insert(r.key, self.now + (r.base << r.shift));
            } else {
                self.probe_at.remove(&r.key);
            }
        }
        for hold in self.rtl.holds.drain(..) {
            self.releases.push(Release { at: self.now + self.rnr_delay, hold });
        }
    }

    /// Work requests into the RTL where its message rings have room.
    fn feed_work(&mut self) {
        for (k, q) in self.work.pending.iter_mut() {
            while self.work.in_rtl.get(k).copied().unwrap_or(0) < MSG_WINDOW {
                let Some(wr) = q.pop_front() else { break };
                let (remote, rkey, imm) = match wr {
                    WorkRequest::Write { remote, rkey, imm, .. } => (remote.0, rkey.0, imm.unwrap_or(0)),
                    WorkRequest::Send { .. } => (0, 0, 0),
                };
                let (_, _, local, len) = wr.parts();
                let fields = [
                    ("wr_key", *k),
                    ("wr_op", wr_opcode(&wr).code() as u64),
                    ("wr_len", len as u64),
                    ("wr_local", local.0),
                    ("wr_remote", remote),
                    ("wr_rkey", rkey as u64),
                    ("wr_imm", imm as u64),
                    ("wr_id", wr.id().0),
                ];
                self.rtl.handshake("wr_valid", "wr_ready", &fields, &self.amem);
                *self.work.in_rtl.entry(*k).or_default() += 1;
            }
        }
    }

    /// One frame from each, byte for byte; the model's frame, to send on.
    fn compare_frames(&mut self) -> Result<Option<Vec<u8>>, Divergence> {
        // The model paces its connections (at their hints' rates); the
        // RTL's attempt passes over those the pacing holds back, as the
        // engine's pacers have it.
        let mask = CONNS.iter().filter(|c| self.a.conn_paced_may_send(c.at_a, self.now)).fold(0, |m, c| m | 1 << c.at_a.0);
        self.rtl.set("tx_mask", mask);
        let want = self.a.poll_transmit(self.now, &self.amem);
        let got = self.rtl.transmit(&self.amem);
        match (&got, &want) {
            (Some(g), Some(w)) if g != w => {
                let (gp, wp) = (parse(g), parse(w));
                return Err(self.diverge(format!("frames differ\n  RTL   {gp:?}\n  model {wp:?}")));
            }
            (Some(_), Some(_)) => self.sent += 1,
            (None, None) => {}
            _ => {
                let (gp, wp) = (got.as_deref().map(parse), want.as_deref().map(parse));
                return Err(self.diverge(format!("RTL sent {gp:?}, model sent {wp:?}")));
            }
        }
        Ok(want)
    }

    /// Every retransmission and tail-probe timer as the model has it
    /// (armed, when).
    fn compare_rto_deadlines(&self) -> Result<(), Divergence> {
        for c in &CONNS {
            let (rtl_at, model) = (self.probe_at.get(&(c.at_a.0 as u64)).copied(), self.a.conn_probe_at(c.at_a));
            if rtl_at != model {
                return Err(self.diverge(format!("tail-probe timer of {}: RTL {rtl_at:?}, model {model:?}", c.at_a)));
            }
            for (p, snap) in self.a.paths(c.at_a).iter().enumerate() {
                let rtl_at = self.rto_at.get(&path_key(c.at_a, p as u8)).copied();
                if rtl_at != snap.rto_at {
                    let model = snap.rto_at;
                    let what = format!("retransmission timer of {}/{p}: RTL {rtl_at:?}, model {model:?}", c.at_a);
                    return Err(self.diverge(what));
                }
            }
        }
        Ok(())
    }

    /// The counters, and a completion for every message.
    fn finish(mut self) -> Result<SendReport, Divergence> {
        let st = self.a.stats();
        let names = [
            ("cnt_tx_data", st.tx_data),
            ("cnt_tx_retx", st.tx_retx),
            ("cnt_tx_acks", st.tx_acks),
            ("cnt_tx_naks", st.tx_naks),
            ("cnt_rtos", st.rtos),
            ("cnt_repaths", st.repaths),
            ("cnt_naks_received", st.naks_received),
            ("cnt_tail_probes", st.tail_probes),
        ];
        for (n, want) in names {
            let got = self.rtl.get(n);
            if got != want {
                return Err(self.diverge(format!("counter {n}: RTL {got}, model {want}")));
            }
        }
        // Every path's register window against the model's path: each one
        // selected in turn, read once the snapshot is of it (the first is
        // connection 1's path 0, which `window_still` left selected).
        for c in &CONNS {
            for (p, want) in self.a.paths(c.at_a).iter().enumerate() {
                let key = path_key(c.at_a, p as u8);
                let Some(got) = self.rtl.window(key, &self.amem) else {
                    return Err(self.diverge(format!("the register window never showed path key {key}")));
                };
                let srtt_ns = want.srtt.map_or(0, |t| t / 1000);
                let want = [
                    want.sport as u64,
                    want.cwnd as u64,
                    want.retired as u64,
                    want.sent,
                    want.retransmitted,
                    want.ecn_echoes,
                    srtt_ns,
                ];
                if got != want {
                    return Err(self.diverge(format!(
                        "path key {key}'s register window (sport, cwnd, retired, sent, retransmitted, CE echoes, \
                         srtt ns): RTL {got:?}, model {want:?}"
                    )));
                }
            }
        }
        let (cpls, total) = (self.cpls, self.work.total);
        if cpls != total {
            return Err(self.diverge(format!("{cpls} completions for {total} messages")));
        }
        let cycles = self.rtl.io.s.cycles();
        Ok(SendReport {
            messages: total as u64,
            frames: self.sent,
            completions: cpls,
            steps: self.step,
            cycles,
            stats: st,
            max_out: self.max_out,
            rerouted: self.rerouted,
        })
    }
}
