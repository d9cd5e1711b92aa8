//! Ready-made worlds on the fabric: two hosts exchanging messages across a
//! leaf-spine (or N senders into one), with byte-exact verification of what
//! landed in host memory.

use std::collections::HashMap;

use ferroce_proto::baseline::GbnEndpoint;
use ferroce_proto::dcqcn::DcqcnConfig;
use ferroce_proto::model::{ConnConfig, Endpoint, EndpointConfig};
use ferroce_proto::rng::Rng;
use ferroce_proto::transport::{
    Access, Completion, CompletionKind, CompletionStatus, MemoryRegion, RecvBuffer, Stats, Transport, WorkRequest,
};
use ferroce_proto::{ConnId, HostMemory, Iova, Rkey, StreamId, Time, WrId};

use crate::fabric::{Fabric, LeafSpine, LinkConfig, Loss};
use crate::memory::Memory;
use crate::{Error, Result};

/// Which transport the hosts run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ferroce,
    Gbn,
}

/// Either transport, so one fabric type runs both.
#[derive(Debug)]
pub enum AnyTransport {
    Ferroce(Box<Endpoint>),
    Gbn(Box<GbnEndpoint>),
}

impl AnyTransport {
    fn inner(&self) -> &dyn Transport {
        match self {
            AnyTransport::Ferroce(e) => e.as_ref(),
            AnyTransport::Gbn(e) => e.as_ref(),
        }
    }
    fn inner_mut(&mut self) -> &mut dyn Transport {
        match self {
            AnyTransport::Ferroce(e) => e.as_mut(),
            AnyTransport::Gbn(e) => e.as_mut(),
        }
    }
    /// Payload bytes placed in host memory for connection `id`.
    pub fn conn_bytes_placed(&self, id: ConnId) -> u64 {
        match self {
            AnyTransport::Ferroce(e) => e.conn_bytes_placed(id),
            AnyTransport::Gbn(e) => e.conn_bytes_placed(id),
        }
    }

    /// The ferroce endpoint, if that is what runs here.
    pub fn ferroce(&self) -> Option<&Endpoint> {
        match self {
            AnyTransport::Ferroce(e) => Some(e),
            AnyTransport::Gbn(_) => None,
        }
    }
}

impl Transport for AnyTransport {
    fn post(&mut self, wr: WorkRequest) -> ferroce_proto::Result<()> {
        self.inner_mut().post(wr)
    }
    fn post_recv(&mut self, rb: RecvBuffer) -> ferroce_proto::Result<()> {
        self.inner_mut().post_recv(rb)
    }
    fn register_mr(&mut self, mr: MemoryRegion) -> ferroce_proto::Result<()> {
        self.inner_mut().register_mr(mr)
    }
    fn handle_frame(&mut self, now: Time, frame: &[u8], mem: &mut dyn HostMemory) {
        self.inner_mut().handle_frame(now, frame, mem)
    }
    fn poll_transmit(&mut self, now: Time, mem: &dyn HostMemory) -> Option<Vec<u8>> {
        self.inner_mut().poll_transmit(now, mem)
    }
    fn poll_timeout(&self) -> Option<Time> {
        self.inner().poll_timeout()
    }
    fn handle_timeout(&mut self, now: Time) {
        self.inner_mut().handle_timeout(now)
    }
    fn poll_completion(&mut self) -> Option<Completion> {
        self.inner_mut().poll_completion()
    }
    fn stats(&self) -> Stats {
        self.inner().stats()
    }
    fn outstanding(&self) -> usize {
        self.inner().outstanding()
    }
}

/// Network and transport parameters of a scenario.
#[derive(Debug, Clone, Copy)]
pub struct NetConfig {
    pub kind: Kind,
    pub rate_mbps: u32,
    /// Base round-trip time (propagation only), split evenly over the 8 hops
    /// of a host-leaf-spine-leaf-host round trip.
    pub rtt: Time,
    pub spines: usize,
    pub paths: u8,
    pub streams: u16,
    pub mtu: u32,
    /// Loss on every spine->leaf link (data one way, ACKs the other).
    pub loss: Loss,
    pub duplicate: f64,
    pub corrupt: f64,
    pub spine_delay_skew: f64,
    /// ECN marking threshold of every switch queue.
    pub ecn_threshold_bytes: usize,
    /// Go-back-N window in packets.
    pub gbn_window: u32,
    /// Go-back-N paced by DCQCN (RoCEv2 as deployed).
    pub gbn_dcqcn: bool,
    /// ferroce's window per path in packets, if below the 256 of the PSN
    /// window.
    pub window_cap: Option<u32>,
    /// Output queue of every switch port, in bytes.
    pub queue_bytes: usize,
    /// ferroce's loss-recovery and start-up mechanisms (`Recovery::v0`
    /// unless set).
    pub recovery: ferroce_proto::model::Recovery,
    pub seed: u64,
}

impl NetConfig {
    /// 100 Gb/s, 10 us RTT, 8 spines, 8 paths, 1 stream, 1024-byte MTU, no impairment.
    pub fn new(kind: Kind) -> NetConfig {
        NetConfig {
            kind,
            rate_mbps: 100_000,
            rtt: ferroce_proto::types::us(10),
            spines: 8,
            paths: 8,
            streams: 1,
            mtu: 1024,
            loss: Loss::None,
            duplicate: 0.0,
            corrupt: 0.0,
            spine_delay_skew: 1.0,
            ecn_threshold_bytes: 64 * 1024,
            gbn_window: 4096,
            gbn_dcqcn: false,
            window_cap: None,
            queue_bytes: 16 << 20,
            recovery: ferroce_proto::model::Recovery::v0(),
            seed: 1,
        }
    }

    /// IRN-style (Mittal et al., "Revisiting Network Support for RDMA",
    /// SIGCOMM 2018): selective repeat on one ECMP path with the packets in
    /// flight capped at one bandwidth-delay product (IRN's BDP-FC). Built
    /// from the ferroce model with one path and its window capped, so its
    /// loss detection (SACK holes, resend of exactly the lost PSN) and its
    /// congestion response are ferroce's.
    pub fn irn() -> NetConfig {
        let mut n = NetConfig::new(Kind::Ferroce);
        n.paths = 1;
        let frame = (n.mtu as usize + ferroce_proto::wire::DATA_FRAME_OVERHEAD) as f64;
        n.window_cap = Some((n.bdp_bytes() / frame).ceil() as u32);
        n
    }

    /// RoCEv2 RC as deployed: go-back-N on one ECMP path, paced by DCQCN
    /// with the parameters of its paper.
    pub fn rocev2() -> NetConfig {
        let mut n = NetConfig::new(Kind::Gbn);
        n.paths = 1;
        n.gbn_dcqcn = true;
        n
    }

    /// Bandwidth-delay product in bytes.
    pub fn bdp_bytes(&self) -> f64 {
        self.rate_mbps as f64 * 1e6 / 8.0 * self.rtt as f64 * 1e-12
    }

    /// The leaf-spine for `leaves` x `hosts_per_leaf` hosts.
    pub fn topology(&self, leaves: usize, hosts_per_leaf: usize) -> LeafSpine {
        let hop = self.rtt / 8;
        let mut host_link = LinkConfig::new(self.rate_mbps, hop);
        host_link.ecn_threshold_bytes = self.ecn_threshold_bytes;
        host_link.queue_bytes = self.queue_bytes;
        let mut uplink = host_link;
        uplink.duplicate = self.duplicate;
        uplink.corrupt = self.corrupt;
        let mut downlink = host_link;
        downlink.loss = self.loss;
        LeafSpine {
            leaves,
            hosts_per_leaf,
            spines: self.spines,
            host_link,
            uplink,
            downlink,
            spine_delay_skew: self.spine_delay_skew,
            seed: self.seed,
        }
    }

    /// A transport of this scenario's kind.
    pub fn endpoint(&self, mac: [u8; 6], ip: [u8; 4], salt: u64) -> Result<AnyTransport> {
        let mut cfg = EndpointConfig::new(mac, ip, self.rate_mbps, self.mtu);
        cfg.seed = self.seed.wrapping_mul(1_000_003).wrapping_add(salt);
        if let Some(w) = self.window_cap {
            cfg.max_cwnd = w;
        }
        cfg.recovery = self.recovery;
        Ok(match self.kind {
            Kind::Ferroce => AnyTransport::Ferroce(Box::new(Endpoint::new(cfg)?)),
            Kind::Gbn => {
                let gbn = GbnEndpoint::new(cfg, self.gbn_window)?;
                let dcqcn = DcqcnConfig::paper(self.rate_mbps);
                AnyTransport::Gbn(Box::new(if self.gbn_dcqcn { gbn.with_dcqcn(dcqcn) } else { gbn }))
            }
        })
    }
}

impl AnyTransport {
    /// Establish a connection on either transport.
    pub fn connect(&mut self, cc: ConnConfig) -> Result<()> {
        match self {
            AnyTransport::Ferroce(e) => e.connect(cc)?,
            AnyTransport::Gbn(e) => e.connect(cc)?,
        }
        Ok(())
    }
}

/// Base of the regions every host has.
pub const SRC_BASE: Iova = Iova(0x1000_0000);
pub const DST_BASE: Iova = Iova(0x4000_0000);
pub const RECV_BASE: Iova = Iova(0x7000_0000);

/// One message of a workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Write,
    WriteImm(u32),
    Send,
}

/// A message: operation, stream, length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Msg {
    pub op: Op,
    pub stream: u16,
    pub len: u32,
}

/// Two hosts on different leaves with one connection (id 1 on both sides).
#[derive(Debug)]
pub struct Pair {
    pub fabric: Fabric<AnyTransport>,
    pub net: NetConfig,
    pub sender: usize,
    pub receiver: usize,
    pub buf_bytes: usize,
}

/// The connection number both sides use.
pub const CONN: ConnId = ConnId(1);
/// rkey of the receiver's destination region.
pub const DST_RKEY: Rkey = Rkey(0x5151);

impl Pair {
    /// Build the pair; each host has `buf_bytes` of source, destination and
    /// receive memory. The receiver's destination region is registered for
    /// WRITEs from the connection.
    pub fn new(net: NetConfig, buf_bytes: usize) -> Result<Pair> {
        if net.paths == 0 || net.paths > 16 || net.streams == 0 {
            return Err(Error::Scenario("paths must be 1..=16 and streams >= 1".into()));
        }
        let mut fabric = Fabric::leaf_spine(net.topology(2, 1));
        let (sender, receiver) = (0, 1);
        for (me, peer) in [(sender, receiver), (receiver, sender)] {
            let (mac, ip) = fabric.host_addr(me);
            let (_, peer_ip) = fabric.host_addr(peer);
            let peer_mac = fabric.gateway_mac(me);
            let mut t = net.endpoint(mac, ip, me as u64)?;
            t.connect(ConnConfig {
                id: CONN,
                remote_id: CONN,
                peer_mac,
                peer_ip,
                paths: net.paths,
                streams: net.streams,
                initial_rate_mbps: None,
            })?;
            let mut mem = Memory::default();
            mem.add_region("src", SRC_BASE, buf_bytes, false);
            mem.add_region("dst", DST_BASE, buf_bytes, true);
            mem.add_region("recv", RECV_BASE, buf_bytes, true);
            t.register_mr(MemoryRegion {
                rkey: DST_RKEY,
                base: DST_BASE,
                len: buf_bytes as u64,
                access: Access { remote_write: true },
                conn: CONN,
            })?;
            fabric.attach(me, t, mem);
        }
        Ok(Pair { fabric, net, sender, receiver, buf_bytes })
    }

    /// Fill the sender's source region with seeded random bytes.
    pub fn fill_source(&mut self, seed: u64) {
        let mut rng = Rng::new(seed);
        for b in self.fabric.host_mut(self.sender).mem.region_mut("src").iter_mut() {
            *b = rng.next_u64() as u8;
        }
    }
}

/// What a message run produced.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub finished: bool,
    pub time: Time,
    pub sender_completions: Vec<Completion>,
    pub receiver_completions: Vec<Completion>,
    pub sender_stats: Stats,
    pub receiver_stats: Stats,
}

/// Post `msgs` (laid out back to back in the source region, WRITEs to the
/// same offsets in the destination region, SENDs to receive buffers at the
/// same offsets in the receive region) and run until every completion is in
/// or `deadline`.
pub fn run_messages(pair: &mut Pair, msgs: &[Msg], deadline: Time) -> Result<RunReport> {
    let total: u64 = msgs.iter().map(|m| m.len as u64).sum();
    if total > pair.buf_bytes as u64 {
        return Err(Error::Scenario(format!("{total} bytes of messages exceed the {}-byte buffers", pair.buf_bytes)));
    }
    let (s, r) = (pair.sender, pair.receiver);
    let mut off = 0u64;
    let mut expect_rx = 0;
    for (i, m) in msgs.iter().enumerate() {
        let id = WrId(i as u64);
        let stream = StreamId(m.stream);
        let local = Iova(SRC_BASE.0 + off);
        let wr = match m.op {
            Op::Write | Op::WriteImm(_) => WorkRequest::Write {
                id,
                conn: CONN,
                stream,
                local,
                len: m.len,
                remote: Iova(DST_BASE.0 + off),
                rkey: DST_RKEY,
                imm: if let Op::WriteImm(v) = m.op { Some(v) } else { None },
            },
            Op::Send => {
                pair.fabric.host_mut(r).transport.post_recv(RecvBuffer {
                    id: WrId(1_000_000 + i as u64),
                    conn: CONN,
                    stream,
                    addr: Iova(RECV_BASE.0 + off),
                    len: m.len,
                })?;
                WorkRequest::Send { id, conn: CONN, stream, local, len: m.len }
            }
        };
        if !matches!(m.op, Op::Write) {
            expect_rx += 1;
        }
        pair.fabric.host_mut(s).transport.post(wr)?;
        off += m.len as u64;
    }
    pair.fabric.kick(s);
    let mut sc = Vec::new();
    let mut rc = Vec::new();
    let n = msgs.len();
    let step = pair.net.rtt;
    let finished = pair.fabric.run_while_not(deadline, step, |f| {
        while let Some(c) = f.host_mut(s).transport.poll_completion() {
            sc.push(c);
        }
        while let Some(c) = f.host_mut(r).transport.poll_completion() {
            rc.push(c);
        }
        sc.len() >= n && rc.len() >= expect_rx
    });
    Ok(RunReport {
        finished,
        time: pair.fabric.now(),
        sender_completions: sc,
        receiver_completions: rc,
        sender_stats: pair.fabric.host(s).transport.stats(),
        receiver_stats: pair.fabric.host(r).transport.stats(),
    })
}

/// Check a finished run byte by byte: every WRITE's bytes at its target,
/// every SEND's bytes in its receive buffer, nothing else written (the rest
/// of both regions still zero), no guard violation, every completion
/// successful and in message order per stream. Returns a description of the
/// first problem.
pub fn verify(pair: &Pair, msgs: &[Msg], report: &RunReport) -> std::result::Result<(), String> {
    if !report.finished {
        return Err(format!(
            "not finished at {} ps: {} of {} sender completions",
            report.time,
            report.sender_completions.len(),
            msgs.len()
        ));
    }
    let src = pair.fabric.host(pair.sender).mem.region("src");
    let rmem = &pair.fabric.host(pair.receiver).mem;
    if !rmem.violations().is_empty() || !pair.fabric.host(pair.sender).mem.violations().is_empty() {
        return Err(format!("guard violations: {:?}", rmem.violations()));
    }
    let mut want_dst = vec![0u8; pair.buf_bytes];
    let mut want_recv = vec![0u8; pair.buf_bytes];
    let mut off = 0usize;
    for m in msgs {
        let range = off..off + m.len as usize;
        match m.op {
            Op::Send => want_recv[range.clone()].copy_from_slice(&src[range]),
            _ => want_dst[range.clone()].copy_from_slice(&src[range]),
        }
        off += m.len as usize;
    }
    for (name, want) in [("dst", &want_dst), ("recv", &want_recv)] {
        let got = rmem.region(name);
        if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
            return Err(format!("{name} differs first at byte {i}: got {:#04x}, want {:#04x}", got[i], want[i]));
        }
    }
    // Completions: in message order within each stream, all successful.
    let mut per_stream: HashMap<u16, Vec<u64>> = HashMap::new();
    for c in &report.sender_completions {
        if c.status != CompletionStatus::Success || c.kind != CompletionKind::SendDone {
            return Err(format!("sender completion {c:?}"));
        }
        per_stream.entry(c.stream.0).or_default().push(c.id.0);
    }
    for (stream, ids) in &per_stream {
        let want: Vec<u64> = (0..msgs.len() as u64).filter(|&i| msgs[i as usize].stream == *stream).collect();
        if *ids != want {
            return Err(format!("stream {stream}: send completions {ids:?}, want {want:?}"));
        }
    }
    let mut per_stream: HashMap<u16, Vec<(CompletionKind, u32, Option<u32>)>> = HashMap::new();
    for c in &report.receiver_completions {
        if c.status != CompletionStatus::Success {
            return Err(format!("receiver completion {c:?}"));
        }
        per_stream.entry(c.stream.0).or_default().push((c.kind, c.len, c.imm));
    }
    for (stream, got) in &per_stream {
        let want: Vec<_> = msgs
            .iter()
            .filter(|m| m.stream == *stream)
            .filter_map(|m| match m.op {
                Op::Write => None,
                Op::WriteImm(v) => Some((CompletionKind::WriteImm, m.len, Some(v))),
                Op::Send => Some((CompletionKind::Recv, m.len, None)),
            })
            .collect();
        if *got != want {
            return Err(format!("stream {stream}: receive completions {got:?}, want {want:?}"));
        }
    }
    Ok(())
}
