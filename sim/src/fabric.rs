//! Discrete-event model of a leaf-spine Ethernet fabric in picoseconds.
//!
//! Every link is one direction of a cable: an output queue (byte-bounded,
//! tail drop, ECN marking above a threshold), serialisation at the link rate,
//! propagation delay, then the impairments of that link (loss, duplication,
//! corruption, black holes). Switches are routers: they route on the
//! destination IPv4 address, pick among equal-cost uplinks by a hash of the
//! UDP 5-tuple (so the source port chooses the path), and forward as a
//! router does, from their own MAC to the next hop's with the TTL one lower
//! (a host sends to its leaf's MAC, [`Fabric::gateway_mac`]). Hosts pull frames from their transport when
//! their link is idle and are woken at the transport's next timeout.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::io::BufWriter;

use ferroce_proto::model::wire_time;
use ferroce_proto::rng::Rng;
use ferroce_proto::wire::{self, WIRE_OVERHEAD};
use ferroce_proto::{Time, Transport};

use crate::memory::Memory;
use crate::pcap::PcapWriter;

/// Loss process of a link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Loss {
    None,
    /// Each frame lost independently with this probability.
    Iid(f64),
    /// Two-state Markov (Gilbert-Elliott) bursty loss: per frame, move
    /// good->bad with `to_bad`, bad->good with `to_good`, then lose the frame
    /// with the state's probability.
    GilbertElliott {
        to_bad: f64,
        to_good: f64,
        loss_good: f64,
        loss_bad: f64,
    },
}

impl Loss {
    /// Long-run loss rate.
    pub fn mean(&self) -> f64 {
        match *self {
            Loss::None => 0.0,
            Loss::Iid(p) => p,
            Loss::GilbertElliott { to_bad, to_good, loss_good, loss_bad } => {
                let pi_bad = to_bad / (to_bad + to_good);
                pi_bad * loss_bad + (1.0 - pi_bad) * loss_good
            }
        }
    }
}

/// One direction of a cable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkConfig {
    pub rate_mbps: u32,
    /// Propagation delay.
    pub delay: Time,
    /// Output queue capacity in bytes; beyond it frames are dropped.
    pub queue_bytes: usize,
    /// Frames enqueued while more than this many bytes wait are marked CE.
    pub ecn_threshold_bytes: usize,
    pub loss: Loss,
    /// Probability that a frame arrives twice.
    pub duplicate: f64,
    /// Probability that one random bit of a frame is flipped.
    pub corrupt: f64,
}

impl LinkConfig {
    /// A clean link.
    pub fn new(rate_mbps: u32, delay: Time) -> LinkConfig {
        LinkConfig {
            rate_mbps,
            delay,
            queue_bytes: 16 << 20,
            ecn_threshold_bytes: usize::MAX,
            loss: Loss::None,
            duplicate: 0.0,
            corrupt: 0.0,
        }
    }
}

/// Counters of one link.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub frames: u64,
    pub bytes: u64,
    pub lost: u64,
    pub tail_drops: u64,
    pub blackholed: u64,
    pub duplicated: u64,
    pub corrupted: u64,
    pub ecn_marked: u64,
    pub peak_queue_bytes: usize,
}

/// A node of the fabric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Node {
    Host(usize),
    Switch(usize),
}

/// Index of a link.
pub type LinkId = usize;

/// What a black hole swallows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultTarget {
    /// Everything leaving through this link.
    Link(LinkId),
    /// Everything into or out of this switch (a failed plane or spine).
    Switch(usize),
    /// Every frame with this UDP source port (one path of one connection).
    SourcePort(u16),
}

#[derive(Debug, Clone, Copy)]
struct Fault {
    from: Time,
    until: Time,
    target: FaultTarget,
}

#[derive(Debug)]
struct Link {
    cfg: LinkConfig,
    from: Node,
    to: Node,
    queue: VecDeque<Vec<u8>>,
    queue_bytes: usize,
    busy: bool,
    ge_bad: bool,
    stats: LinkStats,
}

#[derive(Debug, Default)]
struct Switch {
    routes: HashMap<[u8; 4], Vec<LinkId>>,
    seed: u64,
    /// The MAC of all its ports.
    mac: [u8; 6],
}

/// A host: a transport, its memory and its NIC link.
#[derive(Debug)]
pub struct Host<T> {
    pub transport: T,
    pub mem: Memory,
    pub mac: [u8; 6],
    pub ip: [u8; 4],
    /// The host's egress link.
    pub link: LinkId,
    wake_at: Option<Time>,
}

#[derive(Debug)]
enum Ev {
    Arrive(Node, Vec<u8>),
    TxDone(LinkId),
    Wake(usize),
}

#[derive(Debug)]
struct Scheduled {
    t: Time,
    seq: u64,
    /// Where the event waits in `Fabric::pending`: the heap moves only
    /// these small keys.
    slot: u32,
}

impl PartialEq for Scheduled {
    fn eq(&self, o: &Self) -> bool {
        (self.t, self.seq) == (o.t, o.seq)
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Scheduled {
    fn cmp(&self, o: &Self) -> Ordering {
        (o.t, o.seq).cmp(&(self.t, self.seq)) // min-heap
    }
}

/// Leaf-spine topology parameters.
#[derive(Debug, Clone, Copy)]
pub struct LeafSpine {
    pub leaves: usize,
    pub hosts_per_leaf: usize,
    pub spines: usize,
    /// Host <-> leaf, both directions.
    pub host_link: LinkConfig,
    /// Leaf -> spine.
    pub uplink: LinkConfig,
    /// Spine -> leaf.
    pub downlink: LinkConfig,
    /// Propagation delay of spine s's links is scaled by
    /// 1 + (skew - 1) * s / (spines - 1): the slowest spine is `skew` times
    /// the fastest (1.0: no skew).
    pub spine_delay_skew: f64,
    pub seed: u64,
}

/// The fabric with its hosts, all running transports of type `T`.
#[derive(Debug)]
pub struct Fabric<T> {
    now: Time,
    events: BinaryHeap<Scheduled>,
    pending: Vec<Option<Ev>>,
    free_slots: Vec<u32>,
    seq: u64,
    links: Vec<Link>,
    switches: Vec<Switch>,
    hosts: Vec<Option<Host<T>>>,
    addrs: Vec<([u8; 6], [u8; 4], LinkId)>,
    faults: Vec<Fault>,
    rng: Rng,
    pcap: Option<PcapWriter<BufWriter<std::fs::File>>>,
    dropped_unroutable: u64,
    events_run: u64,
    /// Hosts serviced since the last [`Fabric::drain_touched`], each once.
    touched: Vec<usize>,
    is_touched: Vec<bool>,
    /// Switches `0..leaves` are leaves, the rest spines.
    leaves: usize,
}

/// FNV-1a over the 5-tuple with a per-switch seed, then a final mix.
fn ecmp_hash(seed: u64, t: &wire::FiveTuple) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    let bytes = t.0.iter().chain(t.1.iter()).copied().chain([t.2]).chain(t.3.to_be_bytes()).chain(t.4.to_be_bytes());
    for b in bytes {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

impl<T: Transport> Fabric<T> {
    /// Build a leaf-spine fabric; hosts get transports with [`Fabric::attach`].
    pub fn leaf_spine(ls: LeafSpine) -> Fabric<T> {
        assert!(ls.leaves >= 1 && ls.hosts_per_leaf >= 1 && ls.spines >= 1);
        let mut f = Fabric {
            now: 0,
            events: BinaryHeap::new(),
            pending: Vec::new(),
            free_slots: Vec::new(),
            seq: 0,
            links: Vec::new(),
            switches: Vec::new(),
            hosts: Vec::new(),
            addrs: Vec::new(),
            faults: Vec::new(),
            rng: Rng::new(ls.seed ^ 0xfab),
            pcap: None,
            dropped_unroutable: 0,
            events_run: 0,
            touched: Vec::new(),
            is_touched: Vec::new(),
            leaves: ls.leaves,
        };
        let leaf = |l: usize| l;
        let spine = |s: usize| ls.leaves + s;
        for i in 0..ls.leaves + ls.spines {
            f.switches.push(Switch {
                routes: HashMap::new(),
                seed: ls.seed.wrapping_mul(31).wrapping_add(i as u64),
                mac: [0x02, 0xfe, 0, 0, (i >> 8) as u8, i as u8],
            });
        }
        let add = |f: &mut Fabric<T>, cfg: LinkConfig, from: Node, to: Node| -> LinkId {
            f.links.push(Link {
                cfg,
                from,
                to,
                queue: VecDeque::new(),
                queue_bytes: 0,
                busy: false,
                ge_bad: false,
                stats: LinkStats::default(),
            });
            f.links.len() - 1
        };
        let nhosts = ls.leaves * ls.hosts_per_leaf;
        let mut down_to_host = Vec::new();
        for h in 0..nhosts {
            let l = h / ls.hosts_per_leaf;
            let k = h % ls.hosts_per_leaf;
            let up = add(&mut f, ls.host_link, Node::Host(h), Node::Switch(leaf(l)));
            down_to_host.push(add(&mut f, ls.host_link, Node::Switch(leaf(l)), Node::Host(h)));
            let ip = [10, 0, l as u8, k as u8 + 1];
            f.addrs.push(([0x02, 0, 0, 0, l as u8, k as u8 + 1], ip, up));
            f.hosts.push(None);
            f.is_touched.push(false);
        }
        let mut leaf_up = vec![Vec::new(); ls.leaves];
        let mut spine_down = vec![vec![0; ls.leaves]; ls.spines];
        for (s, down) in spine_down.iter_mut().enumerate() {
            let scale =
                if ls.spines > 1 { 1.0 + (ls.spine_delay_skew - 1.0) * s as f64 / (ls.spines - 1) as f64 } else { 1.0 };
            for (l, up) in leaf_up.iter_mut().enumerate() {
                let mut u = ls.uplink;
                u.delay = (u.delay as f64 * scale) as Time;
                let mut d = ls.downlink;
                d.delay = (d.delay as f64 * scale) as Time;
                up.push(add(&mut f, u, Node::Switch(leaf(l)), Node::Switch(spine(s))));
                down[l] = add(&mut f, d, Node::Switch(spine(s)), Node::Switch(leaf(l)));
            }
        }
        for (h, &to_host) in down_to_host.iter().enumerate() {
            let ip = f.addrs[h].1;
            let hl = h / ls.hosts_per_leaf;
            for (l, up) in leaf_up.iter().enumerate() {
                let r = if l == hl { vec![to_host] } else { up.clone() };
                f.switches[leaf(l)].routes.insert(ip, r);
            }
            for (s, down) in spine_down.iter().enumerate() {
                f.switches[spine(s)].routes.insert(ip, vec![down[hl]]);
            }
        }
        f
    }

    /// MAC, IPv4 address and egress link of host `h`.
    pub fn host_addr(&self, h: usize) -> ([u8; 6], [u8; 4]) {
        (self.addrs[h].0, self.addrs[h].1)
    }

    /// The MAC of host `h`'s leaf: the next hop of everything it sends.
    pub fn gateway_mac(&self, h: usize) -> [u8; 6] {
        self.node_mac(self.links[self.addrs[h].2].to)
    }

    fn node_mac(&self, n: Node) -> [u8; 6] {
        match n {
            Node::Host(h) => self.addrs[h].0,
            Node::Switch(s) => self.switches[s].mac,
        }
    }

    /// Frames the switches dropped: no route, or a TTL that ran out.
    pub fn dropped_by_routers(&self) -> u64 {
        self.dropped_unroutable
    }

    /// Number of host slots.
    pub fn host_count(&self) -> usize {
        self.addrs.len()
    }

    /// Put a transport and its memory on host `h`.
    pub fn attach(&mut self, h: usize, transport: T, mem: Memory) {
        let (mac, ip, link) = self.addrs[h];
        self.hosts[h] = Some(Host { transport, mem, mac, ip, link, wake_at: None });
        self.service(h);
    }

    /// Host `h`.
    pub fn host(&self, h: usize) -> &Host<T> {
        self.hosts[h].as_ref().expect("host attached")
    }

    /// Host `h`, mutably. Call [`Fabric::kick`] after posting work.
    pub fn host_mut(&mut self, h: usize) -> &mut Host<T> {
        self.hosts[h].as_mut().expect("host attached")
    }

    /// Let host `h` act now (after work was posted to it).
    pub fn kick(&mut self, h: usize) {
        self.service(h);
    }

    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events processed so far.
    pub fn events_run(&self) -> u64 {
        self.events_run
    }

    /// Move the hosts serviced (a frame arrived, a timer ran, a frame left)
    /// since the last call into `out`: only they can have new completions.
    pub fn drain_touched(&mut self, out: &mut Vec<usize>) {
        for &h in &self.touched {
            self.is_touched[h] = false;
        }
        out.append(&mut self.touched);
    }

    /// Bytes waiting in link `id`'s output queue.
    pub fn queue_bytes(&self, id: LinkId) -> usize {
        self.links[id].queue_bytes
    }

    /// The switch number of spine `s` (for [`FaultTarget::Switch`]).
    pub fn spine_switch(&self, s: usize) -> usize {
        self.leaves + s
    }

    /// Links into or out of switch `s`.
    pub fn switch_links(&self, s: usize) -> Vec<LinkId> {
        (0..self.links.len())
            .filter(|&l| self.links[l].from == Node::Switch(s) || self.links[l].to == Node::Switch(s))
            .collect()
    }

    /// Number of links.
    pub fn link_count(&self) -> usize {
        self.links.len()
    }

    /// Change the loss process of link `id`.
    pub fn set_loss(&mut self, id: LinkId, loss: Loss) {
        self.links[id].cfg.loss = loss;
    }

    /// Black-hole `target` from `from` until `until`.
    pub fn add_fault(&mut self, target: FaultTarget, from: Time, until: Time) {
        self.faults.push(Fault { from, until, target });
    }

    /// Counters of link `id`.
    pub fn link_stats(&self, id: LinkId) -> LinkStats {
        self.links[id].stats
    }

    /// Links into host `h` (the last hop, usually the incast bottleneck).
    pub fn link_to_host(&self, h: usize) -> LinkId {
        self.links.iter().position(|l| l.to == Node::Host(h)).expect("host has a downlink")
    }

    /// Sum of all link counters.
    pub fn total_stats(&self) -> LinkStats {
        let mut t = LinkStats::default();
        for l in &self.links {
            let s = l.stats;
            t.frames += s.frames;
            t.bytes += s.bytes;
            t.lost += s.lost;
            t.tail_drops += s.tail_drops;
            t.blackholed += s.blackholed;
            t.duplicated += s.duplicated;
            t.corrupted += s.corrupted;
            t.ecn_marked += s.ecn_marked;
            t.peak_queue_bytes = t.peak_queue_bytes.max(s.peak_queue_bytes);
        }
        t
    }

    /// Record every frame a host sends or receives into a pcap file.
    pub fn capture(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        let f = std::fs::File::create(path)?;
        self.pcap = Some(PcapWriter::new(BufWriter::new(f))?);
        Ok(())
    }

    /// Flush the capture, if any.
    pub fn finish_capture(&mut self) -> std::io::Result<()> {
        if let Some(p) = self.pcap.take() {
            p.finish()?;
        }
        Ok(())
    }

    fn schedule(&mut self, t: Time, ev: Ev) {
        self.seq += 1;
        let slot = match self.free_slots.pop() {
            Some(s) => {
                self.pending[s as usize] = Some(ev);
                s
            }
            None => {
                self.pending.push(Some(ev));
                (self.pending.len() - 1) as u32
            }
        };
        self.events.push(Scheduled { t, seq: self.seq, slot });
    }

    fn record(&mut self, frame: &[u8]) {
        if let Some(p) = self.pcap.as_mut() {
            // A failing capture must not change the simulation; drop it.
            if p.frame(self.now, frame).is_err() {
                self.pcap = None;
            }
        }
    }

    fn service(&mut self, h: usize) {
        let now = self.now;
        let Some(host) = self.hosts[h].as_mut() else {
            return;
        };
        if !self.is_touched[h] {
            self.is_touched[h] = true;
            self.touched.push(h);
        }
        host.transport.handle_timeout(now);
        let link = host.link;
        let mut sent = false;
        if !self.links[link].busy {
            if let Some(frame) = host.transport.poll_transmit(now, &host.mem) {
                self.record(&frame);
                self.links[link].queue.push_back(frame);
                self.start(link);
                sent = true;
            }
        }
        let host = self.hosts[h].as_mut().expect("host attached");
        let Some(mut t) = host.transport.poll_timeout() else {
            return;
        };
        if t <= now {
            if self.links[link].busy || sent {
                return; // TxDone services the host again
            }
            t = now + 1_000; // pending but not sendable now: look again shortly
        }
        if host.wake_at.is_none_or(|w| t < w || w < now) {
            host.wake_at = Some(t);
            self.schedule(t, Ev::Wake(h));
        }
    }

    fn enqueue(&mut self, id: LinkId, mut frame: Vec<u8>) {
        let link = &mut self.links[id];
        if link.queue_bytes + frame.len() > link.cfg.queue_bytes {
            link.stats.tail_drops += 1;
            return;
        }
        if link.queue_bytes > link.cfg.ecn_threshold_bytes && wire::mark_ce(&mut frame) {
            link.stats.ecn_marked += 1;
        }
        link.queue_bytes += frame.len();
        link.stats.peak_queue_bytes = link.stats.peak_queue_bytes.max(link.queue_bytes);
        link.queue.push_back(frame);
        if !link.busy {
            self.start(id);
        }
    }

    fn faulted(&self, id: LinkId, frame: &[u8]) -> bool {
        let now = self.now;
        let link = &self.links[id];
        self.faults.iter().any(|f| {
            now >= f.from
                && now < f.until
                && match f.target {
                    FaultTarget::Link(l) => l == id,
                    FaultTarget::Switch(s) => link.from == Node::Switch(s) || link.to == Node::Switch(s),
                    FaultTarget::SourcePort(p) => wire::five_tuple(frame).is_some_and(|t| t.3 == p),
                }
        })
    }

    fn start(&mut self, id: LinkId) {
        let is_host_link = matches!(self.links[id].from, Node::Host(_));
        let Some(mut frame) = self.links[id].queue.pop_front() else {
            return;
        };
        if !is_host_link {
            self.links[id].queue_bytes -= frame.len();
        }
        let ser = wire_time(frame.len() + WIRE_OVERHEAD, self.links[id].cfg.rate_mbps);
        self.links[id].busy = true;
        self.schedule(self.now + ser, Ev::TxDone(id));
        let faulted = self.faulted(id, &frame);
        let link = &mut self.links[id];
        link.stats.frames += 1;
        link.stats.bytes += frame.len() as u64;
        if faulted {
            link.stats.blackholed += 1;
            return;
        }
        let lost = match link.cfg.loss {
            Loss::None => false,
            Loss::Iid(p) => self.rng.chance(p),
            Loss::GilbertElliott { to_bad, to_good, loss_good, loss_bad } => {
                link.ge_bad = if link.ge_bad { !self.rng.chance(to_good) } else { self.rng.chance(to_bad) };
                self.rng.chance(if link.ge_bad { loss_bad } else { loss_good })
            }
        };
        if lost {
            link.stats.lost += 1;
            return;
        }
        if self.rng.chance(link.cfg.corrupt) {
            let bit = self.rng.below(frame.len() as u64 * 8) as usize;
            frame[bit / 8] ^= 1 << (bit % 8);
            link.stats.corrupted += 1;
        }
        let at = self.now + ser + link.cfg.delay;
        let to = link.to;
        if self.rng.chance(link.cfg.duplicate) {
            self.links[id].stats.duplicated += 1;
            self.schedule(at + 1, Ev::Arrive(to, frame.clone()));
        }
        self.schedule(at, Ev::Arrive(to, frame));
    }

    fn arrive(&mut self, node: Node, frame: Vec<u8>) {
        match node {
            Node::Host(h) => {
                self.record(&frame);
                let now = self.now;
                if let Some(host) = self.hosts[h].as_mut() {
                    host.transport.handle_frame(now, &frame, &mut host.mem);
                    self.service(h);
                }
            }
            Node::Switch(s) => {
                let mut frame = frame;
                let sw = &self.switches[s];
                let out = wire::five_tuple(&frame)
                    .and_then(|t| sw.routes.get(&t.1).map(|r| r[(ecmp_hash(sw.seed, &t) % r.len() as u64) as usize]));
                match out {
                    Some(l) if wire::route_hop(&mut frame, sw.mac, self.node_mac(self.links[l].to)) => {
                        self.enqueue(l, frame)
                    }
                    _ => self.dropped_unroutable += 1,
                }
            }
        }
    }

    /// Process the next event; false when none is left.
    pub fn step(&mut self) -> bool {
        let Some(Scheduled { t, slot, .. }) = self.events.pop() else {
            return false;
        };
        let ev = self.pending[slot as usize].take().expect("a scheduled event waits in its slot");
        self.free_slots.push(slot);
        self.now = t;
        self.events_run += 1;
        match ev {
            Ev::Arrive(node, frame) => self.arrive(node, frame),
            Ev::TxDone(id) => {
                self.links[id].busy = false;
                match self.links[id].from {
                    Node::Host(h) => self.service(h),
                    Node::Switch(_) => self.start(id),
                }
            }
            Ev::Wake(h) => {
                if let Some(host) = self.hosts[h].as_mut() {
                    if host.wake_at == Some(t) {
                        host.wake_at = None;
                        self.service(h);
                    }
                }
            }
        }
        true
    }

    /// Run every event up to `t`, then set the clock to `t`.
    pub fn run_until(&mut self, t: Time) {
        while self.events.peek().is_some_and(|e| e.t <= t) {
            self.step();
        }
        self.now = self.now.max(t);
    }

    /// Run until `done(self)` holds (checked every `check_every` of simulated
    /// time) or `deadline`; true if `done` held.
    pub fn run_while_not(
        &mut self,
        deadline: Time,
        check_every: Time,
        mut done: impl FnMut(&mut Self) -> bool,
    ) -> bool {
        loop {
            if done(self) {
                return true;
            }
            if self.now >= deadline || self.events.is_empty() {
                return done(self);
            }
            let next = (self.now + check_every).min(deadline);
            self.run_until(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferroce_proto::transport::Stats;
    use ferroce_proto::types::us;
    use ferroce_proto::wire::{Addressing, Body, CommonRepr, Ecn, NakCode, NakRepr, Opcode, TransportRepr};
    use ferroce_proto::{Completion, HostMemory, PathId, Psn, Result, StreamId};

    /// A transport that sends a scripted list of frames and records arrivals.
    #[derive(Debug, Default)]
    struct Script {
        out: VecDeque<Vec<u8>>,
        got: Vec<(Time, Vec<u8>)>,
    }

    impl Transport for Script {
        fn post(&mut self, _: ferroce_proto::WorkRequest) -> Result<()> {
            Ok(())
        }
        fn post_recv(&mut self, _: ferroce_proto::transport::RecvBuffer) -> Result<()> {
            Ok(())
        }
        fn register_mr(&mut self, _: ferroce_proto::transport::MemoryRegion) -> Result<()> {
            Ok(())
        }
        fn handle_frame(&mut self, now: Time, f: &[u8], _: &mut dyn HostMemory) {
            self.got.push((now, f.to_vec()));
        }
        fn poll_transmit(&mut self, _: Time, _: &dyn HostMemory) -> Option<Vec<u8>> {
            self.out.pop_front()
        }
        fn poll_timeout(&self) -> Option<Time> {
            None
        }
        fn handle_timeout(&mut self, _: Time) {}
        fn poll_completion(&mut self) -> Option<Completion> {
            None
        }
        fn stats(&self) -> Stats {
            Stats::default()
        }
        fn outstanding(&self) -> usize {
            0
        }
    }

    fn frame(f: &Fabric<Script>, from: usize, to: usize, sport: u16) -> Vec<u8> {
        frame_psn(f, from, to, sport, 0)
    }

    fn frame_psn(f: &Fabric<Script>, from: usize, to: usize, sport: u16, psn: u32) -> Vec<u8> {
        let (src_mac, src_ip) = f.host_addr(from);
        let (dst_mac, dst_ip) = f.host_addr(to);
        let a = Addressing {
            src_mac,
            dst_mac,
            src_ip,
            dst_ip,
            sport,
            dport: wire::FERROCE_PORT,
            dscp: 0,
            ecn: Ecn::Ect0,
            ttl: 64,
        };
        let t = TransportRepr {
            common: CommonRepr {
                opcode: Opcode::Nak,
                conn: Default::default(),
                path: PathId(0),
                psn: Psn::new(psn),
                timestamp: 0,
                stream: StreamId(0),
                flags: 0,
                generation: 0,
            },
            body: Body::Nak(NakRepr { code: NakCode::Access, msg_seq: Default::default(), info: 0 }),
        };
        wire::encode(&a, &t, &[])
    }

    fn two_leaves(spines: usize, downlink: LinkConfig) -> Fabric<Script> {
        let link = LinkConfig::new(100_000, us(1));
        let mut f = Fabric::leaf_spine(LeafSpine {
            leaves: 2,
            hosts_per_leaf: 2,
            spines,
            host_link: link,
            uplink: link,
            downlink,
            spine_delay_skew: 1.0,
            seed: 3,
        });
        for h in 0..4 {
            f.attach(h, Script::default(), Memory::default());
        }
        f
    }

    #[test]
    fn source_port_chooses_the_spine_and_arrival_time_is_exact() {
        let mut f = two_leaves(4, LinkConfig::new(100_000, us(1)));
        let sent: Vec<Vec<u8>> = (0..64).map(|i| frame(&f, 0, 2, 50_000 + i)).collect();
        let len = sent[0].len();
        f.host_mut(0).transport.out.extend(sent);
        f.kick(0);
        f.run_until(us(100));
        let got = &f.host(2).transport.got;
        assert_eq!(got.len(), 64);
        // First frame: 4 serialisations (store and forward) + 4 propagation delays.
        let ser = wire_time(len + WIRE_OVERHEAD, 100_000);
        assert_eq!(got[0].0, 4 * ser + 4 * us(1));
        let used: Vec<u64> = (0..4)
            .map(|s| {
                f.link_stats(
                    f.links.iter().position(|l| l.from == Node::Switch(2 + s) && l.to == Node::Switch(1)).unwrap(),
                )
                .frames
            })
            .collect();
        assert!(used.iter().all(|&n| n > 4), "every spine carries some ports: {used:?}");
        // The same port always takes the same spine.
        let mut again = two_leaves(4, LinkConfig::new(100_000, us(1)));
        let one: Vec<Vec<u8>> = (0..10).map(|_| frame(&again, 0, 2, 50_007)).collect();
        again.host_mut(0).transport.out.extend(one);
        again.kick(0);
        again.run_until(us(100));
        let busy: Vec<u64> = (0..4)
            .map(|s| {
                again
                    .link_stats(
                        again
                            .links
                            .iter()
                            .position(|l| l.from == Node::Switch(2 + s) && l.to == Node::Switch(1))
                            .unwrap(),
                    )
                    .frames
            })
            .collect();
        assert_eq!(busy.iter().filter(|&&n| n == 10).count(), 1, "{busy:?}");
    }

    #[test]
    fn routers_rewrite_the_macs_per_hop_and_decrement_the_ttl() {
        let mut f = two_leaves(2, LinkConfig::new(100_000, us(1)));
        let (gw0, gw1) = (f.gateway_mac(0), f.gateway_mac(2));
        assert_ne!(gw0, gw1, "each leaf has its own MAC");
        let mut across = frame(&f, 0, 2, 50_000);
        across[0..6].copy_from_slice(&gw0);
        let mut near = frame(&f, 0, 1, 50_000);
        near[0..6].copy_from_slice(&gw0);
        let mut dying = frame(&f, 0, 2, 50_001);
        dying[0..6].copy_from_slice(&gw0);
        let ip = &mut dying[14..34];
        ferroce_proto::wire::headers::fields::ipv4::TTL.set(ip, 2);
        ferroce_proto::wire::headers::fields::ipv4::CHECKSUM.set(ip, 0);
        let c = wire::internet_checksum(ip);
        ferroce_proto::wire::headers::fields::ipv4::CHECKSUM.set(ip, c as u64);
        f.host_mut(0).transport.out.extend([across, near, dying]);
        f.kick(0);
        f.run_until(us(100));
        // Leaf, spine, leaf: three routers, TTL 61, from the far leaf's MAC.
        let got = &f.host(2).transport.got;
        assert_eq!(got.len(), 1, "the frame with TTL 2 dies at the second router");
        let p = wire::parse(&got[0].1, wire::FERROCE_PORT).unwrap();
        assert_eq!((p.addr.src_mac, p.addr.dst_mac, p.addr.ttl), (gw1, f.host_addr(2).0, 61));
        // One router between hosts on the same leaf.
        let p = wire::parse(&f.host(1).transport.got[0].1, wire::FERROCE_PORT).unwrap();
        assert_eq!((p.addr.src_mac, p.addr.dst_mac, p.addr.ttl), (gw0, f.host_addr(1).0, 63));
        assert_eq!(f.dropped_by_routers(), 1);
    }

    #[test]
    fn congested_queue_marks_ecn_and_drops_at_capacity() {
        // Two senders at line rate into one receiver: the last hop queues.
        let mut f = two_leaves(2, LinkConfig::new(100_000, us(1)));
        let bottleneck = f.link_to_host(2);
        f.links[bottleneck].cfg.ecn_threshold_bytes = 2_000;
        f.links[bottleneck].cfg.queue_bytes = 20_000;
        for h in [0, 1] {
            let frames: Vec<Vec<u8>> = (0..400).map(|i| frame(&f, h, 2, 50_000 + i)).collect();
            f.host_mut(h).transport.out.extend(frames);
            f.kick(h);
        }
        f.run_until(us(1_000));
        let s = f.link_stats(bottleneck);
        assert!(s.ecn_marked > 0 && s.tail_drops > 0, "{s:?}");
        assert!(s.peak_queue_bytes <= 20_000);
        let got = &f.host(2).transport.got;
        assert_eq!(got.len() as u64 + s.tail_drops, 800);
        let ce = got.iter().filter(|(_, fr)| wire::parse(fr, wire::FERROCE_PORT).unwrap().addr.ecn == Ecn::Ce).count();
        assert_eq!(ce as u64, s.ecn_marked, "marked frames arrive intact and CE");
    }

    #[test]
    fn gilbert_elliott_loss_matches_its_mean_and_comes_in_bursts() {
        let ge = Loss::GilbertElliott { to_bad: 0.02, to_good: 0.25, loss_good: 0.0, loss_bad: 0.5 };
        let mut d = LinkConfig::new(100_000, us(1));
        d.loss = ge;
        let mut f = two_leaves(1, d);
        let n = 20_000u16;
        let frames: Vec<Vec<u8>> = (0..n).map(|i| frame_psn(&f, 0, 2, 50_000 + (i % 1000), i as u32)).collect();
        f.host_mut(0).transport.out.extend(frames);
        f.kick(0);
        f.run_until(us(20_000));
        let mut arrived = vec![false; n as usize];
        for (_, fr) in &f.host(2).transport.got {
            arrived[wire::parse(fr, wire::FERROCE_PORT).unwrap().transport.common.psn.get() as usize] = true;
        }
        let lost = arrived.iter().filter(|a| !**a).count();
        let rate = lost as f64 / n as f64;
        assert!((rate - ge.mean()).abs() < 0.01, "loss {rate} vs mean {}", ge.mean());
        // Bursts: a loss right after a loss is far likelier than a loss.
        let after_loss = arrived.windows(2).filter(|w| !w[0]).count();
        let both = arrived.windows(2).filter(|w| !w[0] && !w[1]).count();
        let conditional = both as f64 / after_loss as f64;
        assert!(conditional > 3.0 * rate, "P(loss | loss) {conditional} vs P(loss) {rate}");
    }
}
