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

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use ferroce_proto::model::{ConnConfig, Endpoint, EndpointConfig};
use ferroce_proto::params::{CONN_KEY_BITS, RECV_RING, SACK_WINDOW};
use ferroce_proto::rng::Rng;
use ferroce_proto::transport::{
    Access, CompletionKind, HostMemory, MemoryRegion, RecvBuffer, Stats, Transport, WorkRequest,
};
use ferroce_proto::types::{ns, us, Time};
use ferroce_proto::wire::{self, AckRepr, Body, CommonRepr, NakCode, NakRepr, Opcode, TransportRepr};
use ferroce_proto::{ConnId, Iova, MsgSeq, PathId, Psn, Rkey, StreamId, WrId};

use super::common::{ip_word, path_key, stream_key, Channel, Divergence, B_IP, B_MAC, MTU};
use super::rx_rtl::{Ack, DmaWrite, Feedback, Nak, Out, Rtl, RxCompletion, ACK_EVERY};
use crate::memory::Memory;
use crate::verilator::ModelLib;

/// `rx_path`'s `ctl_op`: start a path at a PSN, or clear a stream (the
/// stream clear takes a path key's connection and low bits).
const CTL_PATH_START: u64 = 0;
const CTL_STREAM_CLEAR: u64 = 1;

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
    writes: Vec<DmaWrite>,
}

impl HostMemory for Rec<'_> {
    fn read(&self, addr: Iova, buf: &mut [u8]) {
        self.mem.read(addr, buf)
    }
    fn write(&mut self, addr: Iova, data: &[u8]) {
        self.writes.push(DmaWrite { addr: addr.0, data: data.to_vec() });
        self.mem.write(addr, data)
    }
}

/// The model receiver's control frames as the RTL reports them.
fn control_requests(frames: &[Vec<u8>], at_b: &HashMap<u16, ConnId>, out: &mut Out) {
    for f in frames {
        let p = wire::parse(f, wire::FERROCE_PORT).expect("the model sends valid frames");
        let c = p.transport.common;
        let key = path_key(at_b[&c.conn.0], c.path.0);
        let (psn, sport) = (c.psn.get(), p.addr.sport);
        match p.transport.body {
            Body::Ack(a) => out.acks.push(Ack {
                key,
                cum: psn,
                sack: a.sack,
                ts_echo: a.ts_echo,
                sport,
                pkts: a.acked_pkts,
                ce: a.ecn_ce,
            }),
            Body::Nak(n) => {
                let (stream, msg_seq, code) = (c.stream.0, n.msg_seq.0, n.code.code());
                out.naks.push(Nak { key, psn, stream, msg_seq, code, sport })
            }
            Body::Data(_) => panic!("the receiver sends no data"),
        }
    }
}

/// Every output of one frame (or timer round) must be the model's.
fn compare(got: Out, want: Out, what: String, step: u64, cycle: u64) -> Result<(), Divergence> {
    let diverge = |w: String| Err(Divergence { step, cycle, what: format!("{what}: {w}") });
    if got.writes.len() != want.writes.len() {
        return diverge(format!("{} DMA writes, the model {}", got.writes.len(), want.writes.len()));
    }
    for (i, (g, w)) in got.writes.iter().zip(&want.writes).enumerate() {
        if g != w {
            let (ga, gl, wa, wl) = (g.addr, g.data.len(), w.addr, w.data.len());
            return diverge(format!("DMA write {i}: RTL {ga:#x}+{gl}, model {wa:#x}+{wl}"));
        }
    }
    if got.acks != want.acks {
        return diverge(format!("ACKs: RTL {:?}, model {:?}", got.acks, want.acks));
    }
    if got.naks != want.naks {
        return diverge(format!("NAKs: RTL {:?}, model {:?}", got.naks, want.naks));
    }
    if got.cpls != want.cpls {
        return diverge(format!("completions: RTL {:?}, model {:?}", got.cpls, want.cpls));
    }
    if got.fbs != want.fbs {
        return diverge(format!("feedback: RTL {:?}, model {:?}", got.fbs, want.fbs));
    }
    Ok(())
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

/// One of B's memory regions, in its memory and in the region table.
struct Region {
    name: &'static str,
    slot: u64,
    rkey: u32,
    base: u64,
    len: u64,
    remote_write: bool,
    owner: ConnId,
}

const REGIONS: [Region; 3] = [
    Region {
        name: "mr_a",
        slot: 0,
        rkey: 0x100,
        base: 0x1000_0000,
        len: 1 << 20,
        remote_write: true,
        owner: ConnId(3),
    },
    Region {
        name: "mr_ro",
        slot: 1,
        rkey: 0x300,
        base: 0x1800_0000,
        len: 1 << 16,
        remote_write: false,
        owner: ConnId(3),
    },
    Region {
        name: "mr_c",
        slot: 5,
        rkey: 0x200,
        base: 0x2000_0000,
        len: 1 << 18,
        remote_write: true,
        owner: ConnId(7),
    },
];

/// A sender's connection to B.
#[derive(Clone, Copy)]
struct Sender {
    ip: [u8; 4],
    /// Connection number at the sender and at B.
    local: ConnId,
    at_b: ConnId,
    paths: u8,
    streams: u16,
}

/// Senders A (16 paths, 8 streams) and C (4 paths, 3 streams).
const SENDERS: [Sender; 2] = [
    Sender { ip: [10, 0, 0, 1], local: ConnId(1), at_b: ConnId(3), paths: 16, streams: 8 },
    Sender { ip: [10, 0, 0, 3], local: ConnId(2), at_b: ConnId(7), paths: 4, streams: 3 },
];

/// One run's world: the senders, the model receiver B and the RTL, the
/// channel between them.
struct RecvRun<'m> {
    mix: &'m Mix,
    rtl: Rtl,
    rng: Rng,
    b: Endpoint,
    /// B's memory as the model writes it, and as the RTL does.
    bmem: Memory,
    rmem: Memory,
    recv_bytes: u64,
    ack_delay: Time,
    peers: Vec<Peer>,
    /// Connection at a sender to its number at B.
    at_b: HashMap<u16, ConnId>,
    /// Receive buffers: the next SEND's index per (peer, stream), buffers
    /// waiting per stream key, where the next goes.
    next_post: BTreeMap<(usize, u16), usize>,
    waiting: HashMap<u64, usize>,
    recv_at: u64,
    to_b: Channel<Vec<u8>>,
    /// Frames to a sender (by index).
    to_peers: Channel<(usize, Vec<u8>)>,
    /// The RTL's ACK timers per path key.
    deadlines: BTreeMap<u64, Time>,
    now: Time,
    /// Outputs of set-up and posting, which must stay empty.
    quiet: Out,
    seen: Seen,
}

/// Run the model receiver and the RTL side by side; `progress` is called
/// with the frames compared so far, every 10 000.
pub fn recv_lockstep(mix: &Mix, progress: &mut dyn FnMut(u64)) -> Result<Seen, Divergence> {
    let mut run = RecvRun::new(mix);
    while run.peers.iter().any(|p| p.ep.outstanding() > 0) {
        run.step(progress)?;
    }
    run.finish()
}

impl<'m> RecvRun<'m> {
    fn new(mix: &'m Mix) -> RecvRun<'m> {
        let lib = model_lib();
        let rtl = Rtl::new(&lib, mix.seed ^ 7);
        let rng = Rng::new(mix.seed);
        // Receiver B: the model and its memory; the RTL writes into a copy.
        let mut bcfg = EndpointConfig::new(B_MAC, B_IP, 100_000, MTU);
        bcfg.ack_every = ACK_EVERY;
        let ack_delay = bcfg.ack_delay;
        let b = Endpoint::new(bcfg).unwrap();
        let mut bmem = Memory::default();
        for r in &REGIONS {
            bmem.add_region(r.name, Iova(r.base), r.len as usize, true);
        }
        // Receive buffers are laid out one after another: room for every SEND.
        let recv_bytes = (1u64 << 20).max((mix.msgs[0] + mix.msgs[1]) * 1024);
        bmem.add_region("recv", Iova(0x3000_0000), recv_bytes as usize, true);
        let stats = Stats::default();
        let mut run = RecvRun {
            mix,
            rtl,
            rng,
            b,
            rmem: bmem.clone(),
            bmem,
            recv_bytes,
            ack_delay,
            peers: Vec::new(),
            at_b: HashMap::new(),
            next_post: BTreeMap::new(),
            waiting: HashMap::new(),
            recv_at: 0x3000_0000,
            to_b: Channel::default(),
            to_peers: Channel::default(),
            deadlines: BTreeMap::new(),
            now: 0,
            quiet: Out::default(),
            seen: Seen { stats, frames: 0, junk: 0, feedback: 0, timer_acks: 0, send_cpls: 0, messages: 0 },
        };
        run.register_regions();
        for (i, sender) in SENDERS.into_iter().enumerate() {
            run.add_peer(i, sender);
        }
        run.rtl.settle(&mut run.quiet);
        assert_eq!(run.quiet, Out::default(), "setup produces no output");
        run.at_b = run.peers.iter().map(|p| (p.local.0, p.at_b)).collect();
        run.post_work();
        run
    }

    /// B's memory regions, in the model and in the RTL's table.
    fn register_regions(&mut self) {
        for r in &REGIONS {
            let access = Access { remote_write: r.remote_write };
            let mr = MemoryRegion { rkey: Rkey(r.rkey), base: Iova(r.base), len: r.len, access, conn: r.owner };
            self.b.register_mr(mr).unwrap();
            let fields = [
                ("mr_wr_index", r.slot),
                ("mr_wr_valid_bit", 1),
                ("mr_wr_rkey", r.rkey as u64),
                ("mr_wr_base", r.base),
                ("mr_wr_len", r.len),
                ("mr_wr_remote_write", r.remote_write as u64),
                ("mr_wr_conn", r.owner.0 as u64),
            ];
            self.rtl.handshake("mr_wr", "ready", &fields, &mut self.quiet);
        }
    }

    /// Sender `i` with its connection to B, at both ends and in the RTL.
    fn add_peer(&mut self, i: usize, sender: Sender) {
        let Sender { ip, local, at_b, paths, streams } = sender;
        let mac = [2, 0, 0, 0, 0, i as u8 + 1];
        let mut cfg = EndpointConfig::new(mac, ip, 100_000, MTU);
        cfg.seed = 100 + i as u64;
        let mut ep = Endpoint::new(cfg).unwrap();
        let conn = |id, remote_id, peer_mac, peer_ip| ConnConfig {
            id,
            remote_id,
            peer_mac,
            peer_ip,
            paths,
            streams,
            initial_rate_mbps: None,
        };
        ep.connect(conn(local, at_b, B_MAC, B_IP)).unwrap();
        self.b.connect(conn(at_b, local, mac, ip)).unwrap();
        let fields = [
            ("conn_wr_index", at_b.0 as u64),
            ("conn_wr_valid_bit", 1),
            ("conn_wr_peer_ip", ip_word(ip)),
            ("conn_wr_paths", paths as u64),
        ];
        self.rtl.handshake("conn_wr", "ready", &fields, &mut self.quiet);
        for p in 0..paths {
            let fields = [("ctl_op", CTL_PATH_START), ("ctl_key", path_key(at_b, p)), ("ctl_psn", 0)];
            self.rtl.handshake("ctl_valid", "ctl_ready", &fields, &mut self.quiet);
        }
        for st in 0..streams {
            let fields = [("ctl_op", CTL_STREAM_CLEAR), ("ctl_key", path_key(at_b, st as u8))];
            self.rtl.handshake("ctl_valid", "ctl_ready", &fields, &mut self.quiet);
        }
        let mut mem = Memory::default();
        mem.add_region("src", Iova(0x5000_0000), 1 << 20, false);
        for (k, byte) in mem.region_mut("src").iter_mut().enumerate() {
            *byte = ((k as u64 * 2654435761) >> 7) as u8 ^ i as u8;
        }
        self.peers.push(Peer { ep, mem, ip, local, at_b, paths, streams, sends: vec![Vec::new(); streams as usize] });
    }

    /// Work: WRITEs (some to the read-only region or past a region's end),
    /// WRITEs with immediate and SENDs.
    fn post_work(&mut self) {
        for pi in 0..self.peers.len() {
            for k in 0..self.mix.msgs[pi] {
                let wr = self.random_request(pi, k);
                self.peers[pi].ep.post(wr).unwrap();
                self.seen.messages += 1;
            }
        }
    }

    fn random_request(&mut self, pi: usize, k: u64) -> WorkRequest {
        let (rng, peer) = (&mut self.rng, &mut self.peers[pi]);
        let (rkey, base, len) =
            if pi == 0 { (0x100, 0x1000_0000u64, 1u64 << 20) } else { (0x200, 0x2000_0000, 1 << 18) };
        let stream = StreamId(rng.below(peer.streams as u64) as u16);
        let size = if rng.chance(0.1) { 1 + rng.below(6000) } else { 1 + rng.below(900) } as u32;
        let local = Iova(0x5000_0000 + rng.below((1 << 20) - size as u64));
        let id = WrId(1000 * pi as u64 + k);
        let conn = peer.local;
        match rng.below(10) {
            0..=3 => {
                let imm = rng.chance(0.5).then(|| rng.next_u64() as u32);
                let (rkey, remote) = match rng.below(20) {
                    0 => (Rkey(0x300), Iova(0x1800_0000)),                 // read-only
                    1 => (Rkey(rkey), Iova(base + len - size as u64 / 2)), // past the end
                    _ => (Rkey(rkey), Iova(base + rng.below(len - size as u64))),
                };
                WorkRequest::Write { id, conn, stream, local, len: size, remote, rkey, imm }
            }
            4..=6 => {
                let remote = Iova(base + rng.below(len - size as u64));
                WorkRequest::Write { id, conn, stream, local, len: size, remote, rkey: Rkey(rkey), imm: None }
            }
            _ => {
                peer.sends[stream.0 as usize].push(size);
                WorkRequest::Send { id, conn, stream, local, len: size }
            }
        }
    }

    fn diverge(&self, what: String) -> Divergence {
        Divergence { step: self.seen.frames, cycle: self.rtl.io.s.cycles(), what }
    }

    /// 200 ns: the senders, receive buffers, frames to B (each compared),
    /// B's ACK timers (compared), ACKs and NAKs to the senders.
    fn step(&mut self, progress: &mut dyn FnMut(u64)) -> Result<(), Divergence> {
        if self.now > us(400_000) + us(5) * self.seen.messages {
            let left: Vec<usize> = self.peers.iter().map(|p| p.ep.outstanding()).collect();
            return Err(self.diverge(format!("the transfer did not finish; outstanding {left:?}")));
        }
        self.now += ns(200);
        self.senders_transmit();
        self.post_recvs();
        self.deliver_to_b(progress)?;
        self.ack_timers()?;
        self.to_peers.sort();
        while let Some((pi, f)) = self.to_peers.pop_due(self.now) {
            let peer = &mut self.peers[pi];
            peer.ep.handle_frame(self.now, &f, &mut peer.mem);
            while peer.ep.poll_completion().is_some() {}
        }
        Ok(())
    }

    /// Senders transmit (at most two frames each) and run their timers.
    fn senders_transmit(&mut self) {
        for peer in self.peers.iter_mut() {
            if peer.ep.poll_timeout().is_some_and(|t| t <= self.now) {
                peer.ep.handle_timeout(self.now);
            }
            for _ in 0..2 {
                let Some(f) = peer.ep.poll_transmit(self.now, &peer.mem) else { break };
                self.to_b.push(self.now + ns(500 + self.rng.below(3000)), self.rng.next_u64(), f);
            }
        }
    }

    /// Receive buffers, posted over time, at most a ring's worth waiting per
    /// stream; one in eight is too small for its SEND.
    fn post_recvs(&mut self) {
        for pi in 0..self.peers.len() {
            for st in 0..self.peers[pi].streams {
                let (at_b, sends) = (self.peers[pi].at_b, &self.peers[pi].sends[st as usize]);
                let key = stream_key(at_b, st);
                let n = *self.next_post.entry((pi, st)).or_default();
                if n >= sends.len()
                    || self.waiting.get(&key).copied().unwrap_or(0) >= RECV_RING
                    || !self.rng.chance(0.05)
                {
                    continue;
                }
                let want = sends[n];
                let rng = &mut self.rng;
                let len = if want > 1 && rng.chance(0.125) { 1 + rng.below(want as u64 - 1) as u32 } else { want };
                let id = WrId(0x4000_0000 + (pi as u64) * 0x10000 + st as u64 * 0x1000 + n as u64);
                let addr = self.recv_at;
                self.b.post_recv(RecvBuffer { id, conn: at_b, stream: StreamId(st), addr: Iova(addr), len }).unwrap();
                let fields = [("post_key", key), ("post_addr", addr), ("post_len", len as u64), ("post_id", id.0)];
                self.rtl.handshake("post_valid", "post_ready", &fields, &mut self.quiet);
                self.recv_at += want.max(1) as u64;
                assert!(self.recv_at <= 0x3000_0000 + self.recv_bytes, "receive buffers fit their region");
                *self.next_post.get_mut(&(pi, st)).unwrap() += 1;
                *self.waiting.entry(key).or_default() += 1;
            }
        }
    }

    /// Deliver what is due to B, in random order among equals, through the
    /// channel's faults, with junk and feedback frames mixed in.
    fn deliver_to_b(&mut self, progress: &mut dyn FnMut(u64)) -> Result<(), Divergence> {
        self.to_b.sort();
        while let Some(mut f) = self.to_b.pop_due(self.now) {
            let (mix, rng) = (self.mix, &mut self.rng);
            if rng.chance(mix.loss) {
                continue; // lost
            }
            if rng.chance(mix.dup) {
                self.to_b.push(self.now + ns(rng.below(2000)), rng.next_u64(), f.clone());
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
                frames_now.push(junk_frame(&f, rng));
                self.seen.junk += 1;
            }
            if rng.chance(0.02) {
                frames_now.push(feedback_frame(&self.peers[rng.below(2) as usize], rng));
                self.seen.feedback += 1;
            }
            for f in frames_now {
                let ctl = self.compare_frame(&f)?;
                if self.seen.frames % 10_000 == 0 {
                    progress(self.seen.frames);
                }
                for c in ctl {
                    let pi = self.peer_of(&c);
                    if !self.rng.chance(self.mix.loss) {
                        self.to_peers.push(self.now + ns(500 + self.rng.below(2000)), self.rng.next_u64(), (pi, c));
                    }
                }
            }
        }
        Ok(())
    }

    /// The sender a control frame of B goes to.
    fn peer_of(&self, f: &[u8]) -> usize {
        let dst = wire::parse(f, wire::FERROCE_PORT).unwrap().addr.dst_ip;
        self.peers.iter().position(|p| p.ip == dst).unwrap()
    }

    /// One frame to the RTL and to the model, every output compared; B's
    /// control frames, to send on.
    fn compare_frame(&mut self, f: &[u8]) -> Result<Vec<Vec<u8>>, Divergence> {
        self.seen.frames += 1;
        let mut got = Out::default();
        self.rtl.frame(f, &mut got);
        let mut rec = Rec { mem: &mut self.bmem, writes: Vec::new() };
        self.b.handle_frame(self.now, f, &mut rec);
        let mut want = Out { writes: rec.writes, ..Out::default() };
        let ctl = self.model_answers(&mut want);
        if let Ok(p) = wire::parse(f, wire::FERROCE_PORT) {
            if !p.transport.common.opcode.is_data() && p.addr.dst_ip == B_IP && p.addr.dst_mac == B_MAC {
                want.fbs.extend(Feedback::of_frame(&p));
            }
        }
        for w in got.writes.iter() {
            self.rmem.write(Iova(w.addr), &w.data);
        }
        // Mirror the model's ACK timer: armed now, cleared by an ACK.
        for k in self.rtl.arms.drain(..) {
            self.deadlines.insert(k, self.now + self.ack_delay);
        }
        for a in &got.acks {
            self.deadlines.remove(&a.key);
        }
        let f0 = wire::parse(f, wire::FERROCE_PORT).map(|p| p.transport.common);
        let what = format!("frame {} at {} ps ({f0:?})", self.seen.frames, self.now);
        compare(got, want, what, self.seen.frames, self.rtl.io.s.cycles())?;
        Ok(ctl)
    }

    /// B's control frames and completions after a frame or timer round,
    /// into `want`; the frames, to send on.
    fn model_answers(&mut self, want: &mut Out) -> Vec<Vec<u8>> {
        let mut ctl = Vec::new();
        while let Some(c) = self.b.poll_transmit(self.now, &self.bmem) {
            ctl.push(c);
        }
        control_requests(&ctl, &self.at_b, want);
        while let Some(c) = self.b.poll_completion() {
            want.cpls.push(RxCompletion::of_model(&c));
            if c.kind == CompletionKind::Recv {
                *self.waiting.get_mut(&stream_key(c.conn, c.stream.0)).expect("posted") -= 1;
                self.seen.send_cpls += 1;
            }
        }
        ctl
    }

    /// B's ACK timers, and the RTL's fired at the same moment.
    fn ack_timers(&mut self) -> Result<(), Divergence> {
        self.b.handle_timeout(self.now);
        let mut want = Out::default();
        let mut ctl = Vec::new();
        while let Some(c) = self.b.poll_transmit(self.now, &self.bmem) {
            ctl.push(c);
        }
        control_requests(&ctl, &self.at_b, &mut want);
        let now = self.now;
        let due: Vec<u64> = self.deadlines.iter().filter(|(_, t)| **t <= now).map(|(k, _)| *k).collect();
        let mut got = Out::default();
        for k in due {
            self.deadlines.remove(&k);
            self.rtl.handshake("timer_valid", "timer_ready", &[("timer_key", k)], &mut got);
        }
        self.rtl.settle(&mut got);
        assert!(self.rtl.arms.is_empty(), "a timer arms no timer");
        self.seen.timer_acks += got.acks.len() as u64;
        compare(got, want, format!("ACK timers at {now} ps"), self.seen.frames, self.rtl.io.s.cycles())?;
        for c in ctl {
            let pi = self.peer_of(&c);
            self.to_peers.push(now + ns(500 + self.rng.below(2000)), self.rng.next_u64(), (pi, c));
        }
        Ok(())
    }

    /// Both memories hold the same bytes; the counters agree.
    fn finish(mut self) -> Result<Seen, Divergence> {
        assert_eq!(self.quiet, Out::default(), "posting and setup produce no output");
        for r in ["mr_a", "mr_ro", "mr_c", "recv"] {
            if self.bmem.region(r) != self.rmem.region(r) {
                return Err(self.diverge(format!("memory region {r} differs")));
            }
        }
        let st = self.b.stats();
        let c = self.rtl.counters();
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
                return Err(self.diverge(format!("counter {name}: RTL {}, model {want}", c[name])));
            }
        }
        let s = Seen { stats: st, ..self.seen };
        eprintln!(
            "{} messages, {} frames ({} junk, {} feedback), {} timer ACKs, {} SENDs received, stats {st:?}",
            s.messages, s.frames, s.junk, s.feedback, s.timer_acks, s.send_cpls
        );
        Ok(s)
    }
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
        6 => t.common.conn = ConnId(12), // not connected
        // Beyond the connections, with the key bits of a valid one.
        7 => t.common.conn = ConnId(t.common.conn.0 | 1 << CONN_KEY_BITS),
        // Just beyond the connection's paths.
        8 => {
            let paths = SENDERS.iter().find(|s| s.at_b == t.common.conn).map_or(0, |s| s.paths);
            t.common.path = PathId(paths + rng.below(3) as u8)
        }
        9 => t.common.psn = Psn::new(t.common.psn.get().wrapping_add(SACK_WINDOW as u32 + rng.below(5000) as u32)), // beyond the window
        // The other sender's connection.
        _ => t.common.conn = SENDERS.iter().map(|s| s.at_b).find(|&c| c != t.common.conn).expect("two senders"),
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
