//! Many hosts on one leaf-spine: the collectives, the cold incast and the
//! simulator-cost runs of `cargo xtask bench-scale`.
//!
//! Every pair of hosts that exchanges data has one connection, set up
//! before the job and idle until it starts (as a collective library sets
//! its communicators up): the connection's starting rate is the line rate,
//! because nothing current is known about the receiver when the job begins.
//! Each transfer is one WRITE with immediate, so the receiver sees it
//! complete; a transfer that depends on another is posted by its sender the
//! moment the one it waits for has arrived there.

use ferroce_proto::model::ConnConfig;
use ferroce_proto::rng::Rng;
use ferroce_proto::transport::{Access, CompletionKind, MemoryRegion, Stats, Transport, WorkRequest};
use ferroce_proto::wire::{DATA_FRAME_OVERHEAD, WIRE_OVERHEAD};
use ferroce_proto::{ConnId, Rkey, StreamId, Time, WrId};

use crate::fabric::{Fabric, FaultTarget, LinkStats, Loss};
use crate::memory::Memory;
use crate::scenario::{AnyTransport, NetConfig, DST_BASE, SRC_BASE};
use crate::{Error, Result};

/// Hosts under one leaf; with [`NetConfig::spines`] at 8 the fabric is not
/// oversubscribed.
pub const HOSTS_PER_LEAF: usize = 8;

/// Links a packet crosses between hosts on different leaves.
const HOPS: i32 = 4;

/// How the fabric loses frames. Probabilities are end to end: what a
/// packet between hosts on different leaves (four links) sees, data and
/// ACKs alike, spread evenly over its hops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LossModel {
    None,
    /// Independent loss on every link.
    Iid(f64),
    /// Gilbert-Elliott on every link: a bad state that loses every frame,
    /// entered so that the mean is `mean` and left after `burst` frames on
    /// average.
    Bursty {
        mean: f64,
        burst: f64,
    },
    /// Every link into or out of spine 0 drops this fraction (one hop of
    /// the path, so end to end it is this too).
    LossySpine(f64),
    /// Spine 0 black-holes everything from `at` on.
    SpineFails {
        at: Time,
    },
}

impl LossModel {
    /// Loss of one link for an end-to-end probability `p`.
    fn per_hop(p: f64) -> f64 {
        1.0 - (1.0 - p).powf(1.0 / HOPS as f64)
    }

    /// The long-run end-to-end loss of a packet (for the ideal's goodput).
    pub fn mean(&self) -> f64 {
        match *self {
            LossModel::None | LossModel::SpineFails { .. } => 0.0,
            LossModel::Iid(p) | LossModel::Bursty { mean: p, .. } => p,
            LossModel::LossySpine(p) => p / 8.0,
        }
    }

    /// What the JSON calls it.
    pub fn label(&self) -> String {
        match *self {
            LossModel::None => "none".into(),
            LossModel::Iid(p) => format!("iid_{p}"),
            LossModel::Bursty { mean, burst } => format!("bursty_{mean}_b{burst}"),
            LossModel::LossySpine(p) => format!("spine_{p}"),
            LossModel::SpineFails { .. } => "spine_fails".into(),
        }
    }

    fn apply(&self, fabric: &mut Fabric<AnyTransport>) {
        let links = fabric.link_count();
        match *self {
            LossModel::None => {}
            LossModel::Iid(p) => {
                for l in 0..links {
                    fabric.set_loss(l, Loss::Iid(Self::per_hop(p)));
                }
            }
            LossModel::Bursty { mean, burst } => {
                let hop = Self::per_hop(mean);
                let to_good = 1.0 / burst;
                let ge = Loss::GilbertElliott {
                    to_bad: hop * to_good / (1.0 - hop),
                    to_good,
                    loss_good: 0.0,
                    loss_bad: 1.0,
                };
                for l in 0..links {
                    fabric.set_loss(l, ge);
                }
            }
            LossModel::LossySpine(p) => {
                for l in fabric.switch_links(fabric.spine_switch(0)) {
                    fabric.set_loss(l, Loss::Iid(p));
                }
            }
            LossModel::SpineFails { at } => {
                let s = fabric.spine_switch(0);
                fabric.add_fault(FaultTarget::Switch(s), at, Time::MAX);
            }
        }
    }
}

/// One message of a job: `bytes` from host `from` to host `to`, posted
/// when transfer `after` (an earlier one, into `from`) has arrived, or at
/// the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transfer {
    pub from: usize,
    pub to: usize,
    pub bytes: u32,
    pub after: Option<usize>,
}

/// A communication pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// Every host writes `msg` bytes to every other host, all at once.
    AllToAll,
    /// Ring all-reduce of `msg` bytes per host: 2(N-1) steps; in each, host
    /// i sends a chunk of msg/N bytes to host i+1 once it has the chunk of
    /// the step before from host i-1.
    RingAllReduce,
    /// Every host writes `msg` bytes to one other host, a random
    /// permutation without fixed points (one cycle).
    Permutation,
}

impl Pattern {
    pub fn label(&self) -> &'static str {
        match self {
            Pattern::AllToAll => "all_to_all",
            Pattern::RingAllReduce => "ring_allreduce",
            Pattern::Permutation => "permutation",
        }
    }

    /// The pattern's transfers on `hosts` hosts.
    pub fn transfers(&self, hosts: usize, msg: u32, seed: u64) -> Vec<Transfer> {
        let n = hosts;
        match self {
            Pattern::AllToAll => (0..n)
                .flat_map(|from| (1..n).map(move |k| Transfer { from, to: (from + k) % n, bytes: msg, after: None }))
                .collect(),
            Pattern::RingAllReduce => {
                let chunk = (msg / n as u32).max(1);
                let steps = 2 * (n - 1);
                (0..steps)
                    .flat_map(|s| {
                        (0..n).map(move |i| Transfer {
                            from: i,
                            to: (i + 1) % n,
                            bytes: chunk,
                            after: (s > 0).then(|| (s - 1) * n + (i + n - 1) % n),
                        })
                    })
                    .collect()
            }
            Pattern::Permutation => {
                // Sattolo's shuffle: a single cycle, so nobody sends to itself.
                let mut to: Vec<usize> = (0..n).collect();
                let mut rng = Rng::new(seed ^ 0x5eed);
                for i in (1..n).rev() {
                    let j = rng.below(i as u64) as usize;
                    to.swap(i, j);
                }
                (0..n).map(|from| Transfer { from, to: to[from], bytes: msg, after: None }).collect()
            }
        }
    }
}

/// The least time any transport could take for `transfers` on an unloaded
/// fabric of `net` losing a fraction `loss` of packets (each lost packet
/// costing its wire time once more): no NIC sends or receives faster than
/// line rate, and no transfer ends before the one it waits for has ended
/// and its own bytes have been serialised and have crossed the fabric (two
/// links within a leaf, four across the spine, each a propagation delay and
/// all but the first a store-and-forward of one frame).
pub fn ideal(net: &NetConfig, transfers: &[Transfer], loss: f64) -> Time {
    let w = Wire(net);
    let (ser, crossing) = (|bytes| w.ser(bytes), |t: &Transfer| w.crossing(t));
    let hosts = transfers.iter().map(|t| t.from.max(t.to) + 1).max().unwrap_or(0);
    // Per host: bytes out, bytes in, the shortest crossing of its last packet.
    let mut out = vec![0.0; hosts];
    let mut into = vec![0.0; hosts];
    let mut nearest = vec![f64::MAX; hosts];
    let mut chain = vec![0.0f64; transfers.len()];
    for (i, t) in transfers.iter().enumerate() {
        let own = ser(t.bytes as u64) / (1.0 - loss);
        out[t.from] += own;
        into[t.to] += own;
        nearest[t.from] = nearest[t.from].min(crossing(t));
        nearest[t.to] = nearest[t.to].min(crossing(t));
        // Transfers come after the ones they wait for.
        chain[i] = t.after.map_or(0.0, |a| chain[a]) + own + crossing(t);
    }
    // (A host that neither sends nor receives bounds nothing.)
    let nic = (0..hosts).filter(|&h| nearest[h] < f64::MAX).map(|h| f64::max(out[h], into[h]) + nearest[h]);
    chain.iter().copied().chain(nic).fold(0.0, f64::max) as Time
}

/// The least time a transport that repairs losses by retransmission alone
/// (no redundancy) could take for `transfers` on an unloaded fabric of
/// `net` losing each packet independently with probability `loss` (drawn
/// from `seed`): [`ideal`]'s bounds, and besides them every packet lost
/// `m` times arrives `m` round trips after it would have (its receiver
/// cannot miss it before it is due, word of the loss takes the way back at
/// least, and the repair crosses the fabric again), so a transfer ends no
/// earlier than its latest packet so delayed. No transport that resends
/// what was lost can beat it, whatever its loss detection.
pub fn arq_bound(net: &NetConfig, transfers: &[Transfer], loss: f64, seed: u64) -> Time {
    let mut rng = Rng::new(seed ^ 0xa59_b0d);
    arq_bound_with(net, transfers, loss, |_, _| {
        let mut m = 0;
        while rng.chance(loss) {
            m += 1;
        }
        m
    })
}

/// [`arq_bound`] with `lost(transfer, packet)` saying how many times each
/// packet of each transfer is lost.
pub fn arq_bound_with(
    net: &NetConfig,
    transfers: &[Transfer],
    loss: f64,
    mut lost: impl FnMut(usize, u32) -> u32,
) -> Time {
    let w = Wire(net);
    let (ser, crossing) = (|bytes| w.ser(bytes), |t: &Transfer| w.crossing(t));
    let mut end = vec![0.0f64; transfers.len()];
    for (i, t) in transfers.iter().enumerate() {
        let start = t.after.map_or(0.0, |a| end[a]);
        let own = ser(t.bytes as u64) / (1.0 - loss);
        let round_trip = w.links(t) * w.hop() + crossing(t);
        let packets = (t.bytes as u64).div_ceil(net.mtu as u64).max(1);
        let mut last = own;
        for k in 0..packets {
            let m = lost(i, k as u32);
            if m > 0 {
                let sent = ser(((k + 1) * net.mtu as u64).min(t.bytes as u64));
                last = last.max(sent + m as f64 * round_trip);
            }
        }
        end[i] = start + last + crossing(t);
    }
    let bound = end.iter().copied().fold(0.0, f64::max) as Time;
    bound.max(ideal(net, transfers, loss))
}

/// The leaf-spine's wire geometry as [`ideal`] and [`arq_bound_with`]
/// count it (picoseconds, as `f64`).
struct Wire<'a>(&'a NetConfig);

impl Wire<'_> {
    /// Serialisation of `bytes` of payload at line rate.
    fn ser(&self, bytes: u64) -> f64 {
        wire_bytes(bytes, self.0.mtu) as f64 * 8.0 / (self.0.rate_mbps as f64 * 1e6) * 1e12
    }

    /// A link's propagation delay (a round trip crosses eight).
    fn hop(&self) -> f64 {
        (self.0.rtt / 8) as f64
    }

    /// Links between `t`'s ends: two within a leaf, four across the spine.
    fn links(&self, t: &Transfer) -> f64 {
        if t.from / HOSTS_PER_LEAF == t.to / HOSTS_PER_LEAF {
            2.0
        } else {
            HOPS as f64
        }
    }

    /// A packet's crossing from `t`'s sender to its receiver: each link's
    /// delay and all but the first a store-and-forward of a full frame.
    fn crossing(&self, t: &Transfer) -> f64 {
        let links = self.links(t);
        links * self.hop() + (links - 1.0) * self.ser(self.0.mtu as u64)
    }
}

/// Bytes on the wire for `bytes` of payload in `mtu`-byte packets.
pub fn wire_bytes(bytes: u64, mtu: u32) -> u64 {
    let per = (DATA_FRAME_OVERHEAD + WIRE_OVERHEAD) as u64;
    let full = bytes / mtu as u64;
    let rest = bytes % mtu as u64;
    full * (mtu as u64 + per) + if rest > 0 { rest + per } else { 0 }
}

/// Hosts on a leaf-spine, connected pairwise as a job needs.
#[derive(Debug)]
pub struct Cluster {
    pub fabric: Fabric<AnyTransport>,
    pub net: NetConfig,
    pub hosts: usize,
}

/// The connection a host uses to reach `peer` (each end names it by the
/// other end).
pub fn conn_to(peer: usize) -> ConnId {
    ConnId(peer as u16 + 1)
}

impl Cluster {
    /// `hosts` hosts ([`HOSTS_PER_LEAF`] per leaf), one connection for each
    /// pair in `pairs` (either order), each host with `buf` bytes of source
    /// and destination memory; every connection's WRITEs land in the same
    /// destination buffer (its bytes are not checked at this scale).
    pub fn new(net: &NetConfig, hosts: usize, buf: u32, loss: LossModel, pairs: &[(usize, usize)]) -> Result<Cluster> {
        if hosts < 2 || hosts > 1024 {
            return Err(Error::Scenario("2..=1024 hosts".into()));
        }
        let leaves = hosts.div_ceil(HOSTS_PER_LEAF);
        let mut net = *net;
        net.loss = Loss::None;
        let mut fabric: Fabric<AnyTransport> = Fabric::leaf_spine(net.topology(leaves, HOSTS_PER_LEAF.min(hosts)));
        loss.apply(&mut fabric);
        let mut peers = vec![Vec::new(); hosts];
        for &(a, b) in pairs {
            if a != b && !peers[a].contains(&b) {
                peers[a].push(b);
                peers[b].push(a);
            }
        }
        for (h, peers) in peers.iter_mut().enumerate() {
            peers.sort_unstable();
            let (mac, ip) = fabric.host_addr(h);
            let mut t = net.endpoint(mac, ip, h as u64)?;
            for &q in peers.iter() {
                t.connect(ConnConfig {
                    id: conn_to(q),
                    remote_id: conn_to(h),
                    peer_mac: fabric.gateway_mac(h),
                    peer_ip: fabric.host_addr(q).1,
                    paths: net.paths,
                    streams: 1,
                    initial_rate_mbps: None,
                })?;
                t.register_mr(MemoryRegion {
                    rkey: Rkey(q as u32 + 1),
                    base: DST_BASE,
                    len: buf as u64,
                    access: Access { remote_write: true },
                    conn: conn_to(q),
                })?;
            }
            let mut mem = Memory::default();
            mem.add_region("src", SRC_BASE, buf as usize, false);
            mem.add_region("dst", DST_BASE, buf as usize, true);
            fabric.attach(h, t, mem);
        }
        Ok(Cluster { fabric, net, hosts })
    }

    /// A cluster connected for `transfers`.
    pub fn for_job(net: &NetConfig, hosts: usize, loss: LossModel, transfers: &[Transfer]) -> Result<Cluster> {
        let pairs: Vec<(usize, usize)> = transfers.iter().map(|t| (t.from, t.to)).collect();
        let buf = transfers.iter().map(|t| t.bytes).max().unwrap_or(1);
        Cluster::new(net, hosts, buf, loss, &pairs)
    }

    fn post(&mut self, i: usize, t: &Transfer) -> Result<()> {
        let wr = WorkRequest::Write {
            id: WrId(i as u64),
            conn: conn_to(t.to),
            stream: StreamId(0),
            local: SRC_BASE,
            len: t.bytes,
            remote: DST_BASE,
            rkey: Rkey(t.from as u32 + 1),
            imm: Some(i as u32),
        };
        self.fabric.host_mut(t.from).transport.post(wr)?;
        self.fabric.kick(t.from);
        Ok(())
    }

    /// Run `transfers` to the end or to `deadline`.
    pub fn run(&mut self, transfers: &[Transfer], deadline: Time) -> Result<JobReport> {
        let n = transfers.len();
        let children = dependents(transfers)?;
        let start = self.fabric.now();
        for (i, t) in transfers.iter().enumerate() {
            if t.after.is_none() {
                self.post(i, t)?;
            }
        }
        let mut sent = vec![None; n];
        let mut arrived = vec![None; n];
        let mut done = 0;
        let mut touched = Vec::new();
        while done < n && self.fabric.now() < deadline {
            if !self.fabric.step() {
                break;
            }
            self.fabric.drain_touched(&mut touched);
            for h in touched.drain(..) {
                while let Some(c) = self.fabric.host_mut(h).transport.poll_completion() {
                    let now = self.fabric.now() - start;
                    let i = match c.kind {
                        CompletionKind::SendDone => {
                            let i = c.id.0 as usize;
                            sent[i] = Some(now);
                            i
                        }
                        CompletionKind::WriteImm => {
                            let i = c.imm.expect("every transfer carries its number") as usize;
                            arrived[i] = Some(now);
                            for &k in &children[i] {
                                self.post(k, &transfers[k])?;
                            }
                            i
                        }
                        CompletionKind::Recv => continue,
                    };
                    if sent[i].is_some() && arrived[i].is_some() {
                        done += 1;
                    }
                }
            }
        }
        let finished = done == n;
        let mut host_finish = vec![0; self.hosts];
        // The job is done when its data is where it goes; the senders'
        // acknowledgements are awaited above only so that the counters are
        // complete.
        for (i, t) in transfers.iter().enumerate() {
            let a = arrived[i].unwrap_or(deadline);
            host_finish[t.from] = host_finish[t.from].max(a);
            host_finish[t.to] = host_finish[t.to].max(a);
        }
        let jct = host_finish.iter().copied().max().unwrap_or(0);
        // Let what is still on the wire land, so that sent minus received
        // counts losses only.
        let quiet = self.fabric.now() + 4 * self.net.rtt;
        self.fabric.run_until(quiet);
        let mut stats = Stats::default();
        for h in 0..self.hosts {
            add(&mut stats, &self.fabric.host(h).transport.stats());
        }
        Ok(JobReport {
            finished,
            jct,
            host_finish,
            stats,
            fabric: self.fabric.total_stats(),
            events: self.fabric.events_run(),
        })
    }
}

/// For each transfer, the transfers that wait for it; an error when one
/// waits for a transfer that is not earlier or does not arrive at its sender.
fn dependents(transfers: &[Transfer]) -> Result<Vec<Vec<usize>>> {
    let mut children = vec![Vec::new(); transfers.len()];
    for (i, t) in transfers.iter().enumerate() {
        if let Some(a) = t.after {
            if a >= i || transfers[a].to != t.from {
                return Err(Error::Scenario(format!(
                    "transfer {i} waits for one that is not earlier or does not arrive at its sender"
                )));
            }
            children[a].push(i);
        }
    }
    Ok(children)
}

fn add(a: &mut Stats, b: &Stats) {
    a.tx_data += b.tx_data;
    a.tx_retx += b.tx_retx;
    a.tx_acks += b.tx_acks;
    a.tx_naks += b.tx_naks;
    a.rx_frames += b.rx_frames;
    a.rx_data += b.rx_data;
    a.rx_dup += b.rx_dup;
    a.rx_dup_retx += b.rx_dup_retx;
    a.rx_out_of_window += b.rx_out_of_window;
    a.rx_malformed += b.rx_malformed;
    a.rx_bad_conn += b.rx_bad_conn;
    a.rx_access_violation += b.rx_access_violation;
    a.rx_no_recv += b.rx_no_recv;
    a.rx_ecn_ce += b.rx_ecn_ce;
    a.bytes_placed += b.bytes_placed;
    a.rtos += b.rtos;
    a.lost_found_by_ack += b.lost_found_by_ack;
    a.repaths += b.repaths;
    a.naks_received += b.naks_received;
    a.tail_probes += b.tail_probes;
}

/// What one job did.
#[derive(Debug, Clone)]
pub struct JobReport {
    pub finished: bool,
    /// Job completion time: the last host's finish.
    pub jct: Time,
    /// When the last transfer each host sends or receives had arrived (its
    /// receiver completed it).
    pub host_finish: Vec<Time>,
    /// Every host's counters, summed.
    pub stats: Stats,
    pub fabric: LinkStats,
    /// Simulator events processed.
    pub events: u64,
}

impl JobReport {
    /// The report of a transport that takes exactly `jct` everywhere and
    /// loses nothing (the ideal).
    pub fn ideal(jct: Time, hosts: usize) -> JobReport {
        JobReport {
            finished: true,
            jct,
            host_finish: vec![jct; hosts],
            stats: Stats::default(),
            fabric: LinkStats::default(),
            events: 0,
        }
    }

    /// Data frames lost: sent minus received (every host's, after the
    /// fabric went quiet).
    pub fn data_lost(&self) -> u64 {
        (self.stats.tx_data + self.stats.tx_retx).saturating_sub(self.stats.rx_data)
    }

    /// Frames the hosts put on the fabric.
    pub fn frames_sent(&self) -> u64 {
        self.stats.tx_data + self.stats.tx_retx + self.stats.tx_acks + self.stats.tx_naks
    }
}

/// What a cold incast did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IncastReport {
    pub n: usize,
    /// From the start until every sender's delivered rate, over windows of
    /// at least 20 packets per sender, is within 10 % of line/N and stays
    /// so (the start of the first such window), in base RTTs; `None` if
    /// that never happened in the run.
    pub rtts_to_fair_delivered: Option<f64>,
    /// From the start until the bottleneck queue is below one BDP and stays
    /// below, in base RTTs (sampled every quarter RTT); `None` if never.
    pub rtts_to_queue_below_1bdp: Option<f64>,
    /// From the start until the last sender had its first ACK with a rate
    /// hint, in base RTTs: the fairness target's "first ACK" is each
    /// sender's; `None` for a transport without hints or if a sender never
    /// had one.
    pub rtts_to_last_first_hint: Option<f64>,
    pub peak_queue_bdp: f64,
    /// Frames the fabric dropped (queue overflow).
    pub drops: u64,
    pub rtos: u64,
    /// Jain's index of the bytes each sender delivered in the second half
    /// of the run.
    pub jain: f64,
}

/// From the start of `delivered` (bytes placed per sender, sampled every
/// `tick`) until every sender's delivered rate, over windows of at least 20
/// packets per sender, is within 10 % of line/N and stays so: the sample
/// that starts the first such window; `None` if that never happened.
fn samples_to_fair(net: &NetConfig, n: usize, tick: Time, delivered: &[Vec<u64>]) -> Option<usize> {
    let samples = delivered.len();
    // Windows of at least 20 packets per sender at the fair share.
    let frame = wire_bytes(net.mtu as u64, net.mtu) as f64 * 8.0 / (net.rate_mbps as f64 * 1e6) * 1e12;
    let w = ((20.0 * n as f64 * frame) / tick as f64).ceil() as usize;
    let fair = net.mtu as f64 / wire_bytes(net.mtu as u64, net.mtu) as f64 * net.rate_mbps as f64 * 1e6 / 8.0
        * (w as f64 * tick as f64 * 1e-12)
        / n as f64;
    let fair_at = |j: usize| {
        (0..n).all(|k| {
            let d = (delivered[j][k] - delivered[j - w][k]) as f64;
            (d - fair).abs() <= 0.1 * fair
        })
    };
    let last_unfair = (w..samples).rev().find(|&j| !fair_at(j));
    match last_unfair {
        Some(j) if j + 1 >= samples => None,
        Some(j) => Some(j + 1 - w),
        None if samples > w => Some(0),
        None => None,
    }
}

/// N senders, each with a connection to host 0 set up earlier and idle,
/// start writing at once and stay backlogged for `duration`.
pub fn cold_incast(net: &NetConfig, n: usize, duration: Time) -> Result<IncastReport> {
    const MSG: u32 = 64 * 1024;
    const BACKLOG: usize = 4;
    let pairs: Vec<(usize, usize)> = (1..=n).map(|k| (k, 0)).collect();
    let mut c = Cluster::new(net, n + 1, MSG, LossModel::None, &pairs)?;
    let bottleneck = c.fabric.link_to_host(0);
    let tick = net.rtt / 4;
    let mut posted = vec![0u64; n + 1];
    let mut delivered: Vec<Vec<u64>> = Vec::new();
    let mut queue: Vec<usize> = Vec::new();
    let start = c.fabric.now();
    while c.fabric.now() < duration {
        for k in 1..=n {
            let host = c.fabric.host_mut(k);
            while host.transport.poll_completion().is_some() {}
            while host.transport.outstanding() < BACKLOG {
                let wr = WorkRequest::Write {
                    id: WrId(posted[k]),
                    conn: conn_to(0),
                    stream: StreamId(0),
                    local: SRC_BASE,
                    len: MSG,
                    remote: DST_BASE,
                    rkey: Rkey(k as u32 + 1),
                    imm: None,
                };
                host.transport.post(wr)?;
                posted[k] += 1;
            }
            c.fabric.kick(k);
        }
        let next = c.fabric.now() + tick;
        c.fabric.run_until(next);
        let rx = &c.fabric.host(0).transport;
        delivered.push((1..=n).map(|k| rx.conn_bytes_placed(conn_to(k))).collect());
        queue.push(c.fabric.queue_bytes(bottleneck));
    }
    let bdp = net.bdp_bytes();
    let rtts = |samples: usize| samples as f64 * tick as f64 / net.rtt as f64;
    let samples = delivered.len();
    let rtts_to_fair_delivered = samples_to_fair(net, n, tick, &delivered).map(rtts);
    let last_deep = (0..samples).rev().find(|&j| queue[j] as f64 >= bdp);
    let rtts_to_queue_below_1bdp = match last_deep {
        Some(j) if j + 1 >= samples => None,
        Some(j) => Some(rtts(j + 1)),
        None => Some(0.0),
    };
    let first_hints: Option<Vec<Time>> = (1..=n)
        .map(|k| c.fabric.host(k).transport.ferroce().and_then(|e| e.conn_first_hint_at(conn_to(0))))
        .collect();
    let rtts_to_last_first_hint = first_hints
        .and_then(|t| t.into_iter().max())
        .map(|t| t.saturating_sub(start) as f64 / net.rtt as f64);
    let half = samples / 2;
    let second: Vec<f64> = (0..n).map(|k| (delivered[samples - 1][k] - delivered[half][k]) as f64).collect();
    let fab = c.fabric.total_stats();
    let rtos = (0..=n).map(|h| c.fabric.host(h).transport.stats().rtos).sum();
    Ok(IncastReport {
        n,
        rtts_to_fair_delivered,
        rtts_to_queue_below_1bdp,
        rtts_to_last_first_hint,
        peak_queue_bdp: c.fabric.link_stats(bottleneck).peak_queue_bytes as f64 / bdp,
        drops: fab.tail_drops + fab.lost,
        rtos,
        jain: crate::bench::jain(&second),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Kind;

    /// Loss-free runs of every pattern take at least the ideal and, with
    /// one backlogged sender per NIC or a chain of small steps, not much
    /// more; the ring's steps follow each other.
    #[test]
    fn loss_free_jobs_take_about_the_ideal_and_never_less() {
        let net = NetConfig::new(Kind::Ferroce);
        for (pattern, msg, most) in [
            (Pattern::AllToAll, 16 * 1024, 1.6),
            (Pattern::RingAllReduce, 64 * 1024, 1.3),
            (Pattern::Permutation, 64 * 1024, 1.6),
        ] {
            let transfers = pattern.transfers(16, msg, 7);
            let mut c = Cluster::for_job(&net, 16, LossModel::None, &transfers).unwrap();
            let r = c.run(&transfers, ferroce_proto::types::us(10_000)).unwrap();
            let ideal = ideal(&net, &transfers, 0.0);
            let ratio = r.jct as f64 / ideal as f64;
            assert!(r.finished && (1.0..most).contains(&ratio), "{pattern:?}: JCT {} / ideal {ideal} = {ratio}", r.jct);
            assert_eq!((r.data_lost(), r.stats.rtos), (0, 0));
            assert_eq!(r.stats.bytes_placed, transfers.iter().map(|t| t.bytes as u64).sum::<u64>());
        }
        let ring = Pattern::RingAllReduce.transfers(16, 64 * 1024, 7);
        assert_eq!(ring.len(), 2 * 15 * 16);
        assert!(ring.iter().enumerate().all(|(i, t)| t.after.is_none_or(|a| a < i && ring[a].to == t.from)));
    }

    /// The retransmission bound: nothing lost, the ideal; a packet lost
    /// once arrives a round trip after it was due (propagation back, the
    /// crossing again), and a transfer waiting for it starts that much
    /// later; lost twice, two round trips.
    #[test]
    fn the_retransmission_bound_adds_a_round_trip_per_loss() {
        let net = NetConfig::new(Kind::Ferroce);
        let ps = |t: Time| t as f64;
        // Host 0 to host 8 (the next leaf: four links), then 8 to 9 (one
        // leaf: two links) after it; four packets each.
        let job = [
            Transfer { from: 0, to: 8, bytes: 4096, after: None },
            Transfer { from: 8, to: 9, bytes: 4096, after: Some(0) },
        ];
        assert_eq!(arq_bound_with(&net, &job, 0.0, |_, _| 0), ideal(&net, &job, 0.0));
        let hop = ps(net.rtt / 8);
        let frame = wire_bytes(1024, net.mtu) as f64 * 8.0 / (net.rate_mbps as f64 * 1e6) * 1e12;
        let crossing = |links: f64| links * hop + (links - 1.0) * frame;
        // Without loss the chain is two transfers of four frames each.
        let clean = 2.0 * 4.0 * frame + crossing(4.0) + crossing(2.0);
        assert!((ps(ideal(&net, &job, 0.0)) - clean).abs() < 2.0);
        // The first transfer's second packet lost once: it arrives one
        // round trip after it was due, which is after the transfer's last.
        let once = arq_bound_with(&net, &job, 0.0, |i, k| (i == 0 && k == 1) as u32);
        let want = 2.0 * frame + 4.0 * hop + crossing(4.0) + 4.0 * frame + crossing(4.0) + crossing(2.0);
        assert!((ps(once) - want).abs() < 2.0, "{once} ps, want {want}");
        // The second transfer's last packet lost twice.
        let twice = arq_bound_with(&net, &job, 0.0, |i, k| if i == 1 && k == 3 { 2 } else { 0 });
        let want = 4.0 * frame + crossing(4.0) + 4.0 * frame + 2.0 * (2.0 * hop + crossing(2.0)) + crossing(2.0);
        assert!((ps(twice) - want).abs() < 2.0, "{twice} ps, want {want}");
        // Drawn losses: never below the ideal, and above it once any packet
        // of a dependent chain is lost.
        let ring = Pattern::RingAllReduce.transfers(32, 256 * 1024, 1);
        let lossy = arq_bound(&net, &ring, 0.01, 1);
        assert!(lossy > ideal(&net, &ring, 0.01) + net.rtt, "{lossy} ps");
        assert_eq!(arq_bound(&net, &ring, 0.0, 1), ideal(&net, &ring, 0.0));
    }
}
