//! The ferroce endpoint: connections, paths, SACK, retransmission, spraying,
//! congestion control and ACK generation.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::ackgen::{AckAction, AckState};
use super::cc::{Pacer, Window};
use super::health::Health;
use super::recovery::{self, Recovery, RepairRoute};

/// Picoseconds in a microsecond: the model's time unit for the pacer.
const PS_PER_US: u64 = 1_000_000;
use super::delivery::{Delivery, Placement};
use super::retx::PathLog;
use super::sack::{SackTracker, Verdict};
use super::sendq::{Segment, SendQueue};
use super::spray::{self, Candidate, PortGen};
use crate::defaults::DEFAULTS;
use crate::rng::Rng;
use crate::transport::{
    Completion, CompletionStatus, HostMemory, Life, MemoryRegion, RecvBuffer, Stats, Transport, WorkRequest,
};
use crate::types::{ConnId, PathId, Psn, Time};
use crate::wire::{
    self, flags, AckRepr, Addressing, Body, CommonRepr, DataRepr, Ecn, NakCode, NakRepr, Opcode, TransportRepr,
    WIRE_OVERHEAD,
};
use crate::{Error, Result};

/// Packets a path may have between its oldest unacknowledged PSN and the next.
pub const PATH_WINDOW: u32 = crate::params::SACK_WINDOW as u32;

/// Endpoint-wide settings.
#[derive(Debug, Clone)]
pub struct EndpointConfig {
    pub mac: [u8; 6],
    pub ip: [u8; 4],
    /// UDP destination port of ferroce traffic.
    pub port: u16,
    pub line_rate_mbps: u32,
    /// Payload bytes per packet.
    pub mtu: u32,
    /// Acknowledge after this many data packets on a path...
    pub ack_every: u16,
    /// ...or this long after the first unacknowledged one.
    pub ack_delay: Time,
    /// Lower bound of the retransmission timeout.
    pub rto_min: Time,
    /// A sender counts as active for the rate hint this long after its last packet.
    pub active_window: Time,
    /// Retry delay after a SEND found no receive buffer.
    pub rnr_delay: Time,
    /// Window per path in packets (at most [`PATH_WINDOW`]).
    pub max_cwnd: u32,
    /// PSNs a path may have in flight, from its oldest unacknowledged to
    /// its next: [`PATH_WINDOW`], or the packets in flight per path of a
    /// build that keeps fewer (`EngineConfig::in_flight_per_path`, a power
    /// of two from 8). It is also the receive window: a PSN this far or
    /// further past a path's cumulative PSN is out of the window, so the
    /// peer's paths must not have more in flight.
    pub path_window: u32,
    /// Bits of the host addresses the endpoint reaches
    /// (`EngineConfig::dma_addr_bits`): a remote WRITE must end below
    /// 2^this.
    pub dma_addr_bits: u32,
    /// Longest frame the endpoint takes, bytes: [`wire::MAX_FRAME_LEN`],
    /// or the receive FIFO of a build that holds less
    /// (`EngineConfig::max_frame_len`); a longer frame is refused as a
    /// length error, as `wire::parse` refuses one past `MAX_FRAME_LEN`.
    pub max_frame_len: usize,
    /// Consecutive RTOs after which a path gets a new source port.
    pub repath_after_rtos: u32,
    /// Consecutive RTOs after which a path takes no new data.
    pub retire_after_rtos: u32,
    /// Loss-recovery and start-up mechanisms beyond v0 (the default).
    pub recovery: Recovery,
    pub seed: u64,
}

impl EndpointConfig {
    /// The defaults of [`DEFAULTS`] (the registers' reset values): a
    /// [`DEFAULTS`]`.line_rate_mbps` NIC with [`DEFAULTS`]`.mtu`-byte payloads.
    pub fn defaults(mac: [u8; 6], ip: [u8; 4]) -> EndpointConfig {
        EndpointConfig::new(mac, ip, DEFAULTS.line_rate_mbps, DEFAULTS.mtu)
    }

    /// Defaults ([`DEFAULTS`]) for a `line_rate_mbps` NIC with `mtu`-byte payloads.
    pub fn new(mac: [u8; 6], ip: [u8; 4], line_rate_mbps: u32, mtu: u32) -> EndpointConfig {
        EndpointConfig {
            mac,
            ip,
            port: DEFAULTS.udp_port,
            line_rate_mbps,
            mtu,
            ack_every: DEFAULTS.ack_every,
            ack_delay: crate::types::ns(DEFAULTS.ack_delay_ns as u64),
            rto_min: crate::types::ns(DEFAULTS.rto_min_ns as u64),
            active_window: crate::types::ns(crate::params::ACTIVE_WINDOW_NS),
            rnr_delay: crate::types::ns(DEFAULTS.rnr_delay_ns as u64),
            max_cwnd: DEFAULTS.window_cap,
            path_window: PATH_WINDOW,
            dma_addr_bits: 64,
            max_frame_len: wire::MAX_FRAME_LEN,
            repath_after_rtos: crate::params::REPATH_AFTER_RTOS,
            retire_after_rtos: crate::params::RETIRE_AFTER_RTOS,
            recovery: DEFAULTS.recovery,
            seed: 1,
        }
    }

    /// Addressing of a frame from this endpoint to a peer, on UDP source
    /// port `sport` (the path's entropy).
    pub fn addressing(&self, peer_mac: [u8; 6], peer_ip: [u8; 4], sport: u16) -> Addressing {
        Addressing {
            src_mac: self.mac,
            dst_mac: peer_mac,
            src_ip: self.ip,
            dst_ip: peer_ip,
            sport,
            dport: self.port,
            dscp: 26,
            ecn: Ecn::Ect0,
            ttl: 64,
        }
    }

    /// `frame` parsed, if it is a valid ferroce frame addressed to this
    /// endpoint.
    pub fn accept<'a>(&self, frame: &'a [u8]) -> Option<wire::Frame<'a>> {
        if frame.len() > self.max_frame_len {
            return None;
        }
        wire::parse(frame, self.port).ok().filter(|f| f.addr.dst_mac == self.mac && f.addr.dst_ip == self.ip)
    }

    fn validate(&self) -> Result<()> {
        let bad = |s: &str| Err(Error::BadConfig(s.into()));
        if self.line_rate_mbps == 0 {
            return bad("line rate must be positive");
        }
        if self.mtu == 0 || self.mtu > 9000 {
            return bad("mtu must be 1..=9000 payload bytes");
        }
        if self.ack_every == 0 || self.max_cwnd == 0 || self.max_cwnd > PATH_WINDOW {
            return Err(Error::BadConfig(format!("ack_every must be >= 1 and max_cwnd 1..={PATH_WINDOW}")));
        }
        if !self.path_window.is_power_of_two() || !(8..=PATH_WINDOW).contains(&self.path_window) {
            return Err(Error::BadConfig(format!("path_window must be a power of two, 8..={PATH_WINDOW}")));
        }
        if !(32..=64).contains(&self.dma_addr_bits) {
            return bad("dma_addr_bits must be 32..=64");
        }
        if !(256..=wire::MAX_FRAME_LEN).contains(&self.max_frame_len) {
            return Err(Error::BadConfig(format!("max_frame_len must be 256..={}", wire::MAX_FRAME_LEN)));
        }
        Ok(())
    }
}

/// One connection's settings.
#[derive(Debug, Clone, Copy)]
pub struct ConnConfig {
    /// Local connection number.
    pub id: ConnId,
    /// The peer's number for this connection (carried on the wire).
    pub remote_id: ConnId,
    pub peer_mac: [u8; 6],
    pub peer_ip: [u8; 4],
    /// Paths, 1-16.
    pub paths: u8,
    /// Ordered streams, at least 1.
    pub streams: u16,
    /// Rate before the first ACK: the receiver's fair share as known at
    /// connection setup (see `Endpoint::setup_rate_hint`). `None`: line rate.
    pub initial_rate_mbps: Option<u32>,
}

#[derive(Debug)]
struct TxPath {
    sport: u16,
    /// PSN window and loss state (the RTL `retx` block's view).
    log: PathLog,
    /// What each PSN in flight carries, by PSN mod 256.
    segs: Vec<Option<Segment>>,
    /// When each PSN in flight was last sent, by PSN mod 256 (`rack`).
    sent_at: Vec<Time>,
    /// The latest send time among this path's newly acknowledged packets,
    /// by RACK's rule as the connection's (`Recovery::path_rack`).
    rack_ts: Time,
    window: Window,
    srtt: Option<Time>,
    rttvar: Time,
    rto_at: Option<Time>,
    health: Health,
    sent: u64,
    retransmitted: u64,
    ecn_echoes: u64,
}

#[derive(Debug)]
struct RxPath {
    sack: SackTracker,
    coalesce: AckState,
    ts: u32,
    sport: u16,
    ack_at: Option<Time>,
}

/// What a test or the CLI sees of a path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathSnapshot {
    pub sport: u16,
    pub cwnd: u32,
    pub srtt: Option<Time>,
    pub retired: bool,
    pub sent: u64,
    pub retransmitted: u64,
    pub ecn_echoes: u64,
    pub outstanding: u32,
    /// When the retransmission timer fires, if armed.
    pub rto_at: Option<Time>,
}

#[derive(Debug)]
struct Conn {
    cfg: ConnConfig,
    life: Life,
    sq: SendQueue,
    tx: Vec<TxPath>,
    rx: Vec<RxPath>,
    /// Paths are offered retransmissions round-robin from here.
    retx_rr: usize,
    rnr: Vec<(Time, u8, Psn)>,
    rate_mbps: u32,
    pacer: Pacer,
    last_rx: Option<Time>,
    path_rr: usize,
    bytes_placed: u64,
    /// Set-up order: `Endpoint::order` sorted by it.
    seq: u64,
    /// This connection's entries in `Endpoint::timers` and `Endpoint::ready`.
    timer_key: Option<Time>,
    send_key: Option<Time>,
    /// Connection-level state of the `Recovery` mechanisms: smoothed and
    /// least RTT over all paths, the latest send time of an acknowledged
    /// packet (`rack`), the connection window and the last rate hint
    /// (`conn_window`), the probe timer and probes without progress.
    srtt: Option<Time>,
    rttvar: Time,
    min_rtt: Option<Time>,
    rack_ts: Time,
    window: Window,
    hint_mbps: u32,
    /// When the first ACK with a rate hint arrived.
    first_hint_at: Option<Time>,
    probe_at: Option<Time>,
    probes: u32,
}

/// A ferroce NIC: any number of connections sharing one port.
#[derive(Debug)]
pub struct Endpoint {
    cfg: EndpointConfig,
    conns: BTreeMap<ConnId, Conn>,
    /// Connections in set-up order, with their `Conn::seq`.
    order: Vec<(u64, ConnId)>,
    rr: usize,
    delivery: Delivery,
    control: VecDeque<Vec<u8>>,
    ports: PortGen,
    stats: Stats,
    /// Since when some connection has been continuously active; the rate
    /// hint is withheld until the active count has been observed for one
    /// `active_window` (before that it undercounts senders that are starting).
    busy_since: Option<Time>,
    /// Where each connection stands, kept up to date by `refresh` after
    /// anything touches it, so that no event scans every connection and
    /// path: its earliest timer (ACK, RTO, RNR retry) and, if it has
    /// something it may send, when its pacer lets it; both by (time, set-up
    /// order, id). Connections with send completions waiting, by id.
    timers: BTreeSet<(Time, u64, ConnId)>,
    ready: BTreeSet<(Time, u64, ConnId)>,
    completing: BTreeSet<ConnId>,
    next_seq: u64,
    /// The smoothed RTT of the connection that last had an RTT sample: the
    /// probe timer's estimate for a connection without one yet.
    last_srtt: Option<(Time, Time)>,
}

impl Endpoint {
    /// A new endpoint.
    pub fn new(cfg: EndpointConfig) -> Result<Endpoint> {
        cfg.validate()?;
        let ports = PortGen::new(Rng::new(cfg.seed).next_u64() as u32);
        let delivery = Delivery::with_addr_bits(cfg.dma_addr_bits);
        Ok(Endpoint {
            cfg,
            conns: BTreeMap::new(),
            order: Vec::new(),
            rr: 0,
            delivery,
            control: VecDeque::new(),
            ports,
            stats: Stats::default(),
            busy_since: None,
            timers: BTreeSet::new(),
            ready: BTreeSet::new(),
            completing: BTreeSet::new(),
            next_seq: 0,
            last_srtt: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &EndpointConfig {
        &self.cfg
    }

    /// The share of the line rate a new sender would get from this receiver
    /// if every established connection were active: what connection setup
    /// hands the peer as its starting rate.
    pub fn setup_rate_hint(&self) -> u32 {
        self.cfg.line_rate_mbps / (self.conns.len().max(1) as u32)
    }

    fn fresh_sport(&mut self, avoid: u16) -> u16 {
        self.ports.next_port(avoid)
    }

    /// Establish a connection (generation 0, PSNs from 0).
    pub fn connect(&mut self, cc: ConnConfig) -> Result<()> {
        self.connect_life(cc, Life::default())
    }

    /// Tear connection `id` down: it sends and takes nothing more, its
    /// streams' receive state and unused receive buffers are dropped, and
    /// its number may be set up again.
    pub fn disconnect(&mut self, id: ConnId) -> Result<()> {
        let c = self.conns.remove(&id).ok_or_else(|| Error::BadConfig(format!("connection {id} does not exist")))?;
        if let Some(t) = c.timer_key {
            self.timers.remove(&(t, c.seq, id));
        }
        if let Some(t) = c.send_key {
            self.ready.remove(&(t, c.seq, id));
        }
        self.completing.remove(&id);
        self.order.retain(|c| c.1 != id);
        self.delivery.forget(id);
        Ok(())
    }

    /// Establish a connection with what its ends agreed, `life`.
    pub fn connect_life(&mut self, cc: ConnConfig, life: Life) -> Result<()> {
        if cc.paths == 0 || cc.paths > 16 {
            return Err(Error::BadConfig(format!("connection {}: paths must be 1..=16", cc.id)));
        }
        if cc.streams == 0 {
            return Err(Error::BadConfig(format!("connection {}: at least one stream", cc.id)));
        }
        if self.conns.contains_key(&cc.id) {
            return Err(Error::BadConfig(format!("connection {} exists", cc.id)));
        }
        let mut tx = Vec::new();
        for _ in 0..cc.paths {
            let sport = self.fresh_sport(0);
            tx.push(TxPath {
                sport,
                log: PathLog::with_window(life.tx_psn, self.cfg.path_window),
                segs: vec![None; PATH_WINDOW as usize],
                sent_at: vec![0; PATH_WINDOW as usize],
                rack_ts: 0,
                window: Window::new(self.cfg.max_cwnd),
                srtt: None,
                rttvar: 0,
                rto_at: None,
                health: Health::default(),
                sent: 0,
                retransmitted: 0,
                ecn_echoes: 0,
            });
        }
        let rx = (0..cc.paths)
            .map(|_| RxPath {
                sack: SackTracker::with_window(life.rx_psn, self.cfg.path_window),
                coalesce: AckState::default(),
                ts: 0,
                sport: 0,
                ack_at: None,
            })
            .collect();
        let rate = cc.initial_rate_mbps.unwrap_or(self.cfg.line_rate_mbps).clamp(1, self.cfg.line_rate_mbps);
        self.conns.insert(
            cc.id,
            Conn {
                cfg: cc,
                life,
                sq: SendQueue::new(cc.id, cc.streams),
                tx,
                rx,
                retx_rr: 0,
                rnr: Vec::new(),
                rate_mbps: rate,
                pacer: Pacer::new(Pacer::cost_q16(rate, PS_PER_US)),
                last_rx: None,
                path_rr: 0,
                bytes_placed: 0,
                seq: self.next_seq,
                timer_key: None,
                send_key: None,
                srtt: None,
                rttvar: 0,
                min_rtt: None,
                rack_ts: 0,
                window: Window::new(self.cfg.max_cwnd * cc.paths as u32),
                hint_mbps: 0,
                first_hint_at: None,
                probe_at: None,
                probes: 0,
            },
        );
        self.order.push((self.next_seq, cc.id));
        self.next_seq += 1;
        Ok(())
    }

    /// Bring connection `id`'s entries in the timer, ready and completion
    /// indexes up to date with its state.
    fn refresh(&mut self, id: ConnId) {
        let Some(c) = self.conns.get_mut(&id) else {
            return;
        };
        let acks = c.rx.iter().filter_map(|r| r.ack_at);
        let rtos = c.tx.iter().filter_map(|p| p.rto_at);
        let timer = acks.chain(rtos).chain(c.rnr.iter().map(|r| r.0)).chain(c.probe_at).min();
        let send = Self::can_send(&self.cfg, c).then(|| c.pacer.ready_at());
        let seq = c.seq;
        for (index, key, new) in [(&mut self.timers, &mut c.timer_key, timer), (&mut self.ready, &mut c.send_key, send)]
        {
            if *key != new {
                if let Some(t) = *key {
                    index.remove(&(t, seq, id));
                }
                if let Some(t) = new {
                    index.insert((t, seq, id));
                }
                *key = new;
            }
        }
        if c.sq.has_completion() {
            self.completing.insert(id);
        } else {
            self.completing.remove(&id);
        }
    }

    /// Current pacing rate of a connection in Mb/s.
    pub fn conn_rate_mbps(&self, id: ConnId) -> Option<u32> {
        self.conns.get(&id).map(|c| c.rate_mbps)
    }

    /// Payload bytes placed in host memory for connection `id`.
    pub fn conn_bytes_placed(&self, id: ConnId) -> u64 {
        self.conns.get(&id).map_or(0, |c| c.bytes_placed)
    }

    /// May connection `id` send a packet at `now` by its pacing (at the
    /// rate its receiver's hint gives)? False for no such connection.
    pub fn conn_paced_may_send(&self, id: ConnId, now: Time) -> bool {
        self.conns.get(&id).is_some_and(|c| c.pacer.may_send(now))
    }

    /// When connection `id`'s first ACK with a rate hint arrived, if one
    /// has.
    pub fn conn_first_hint_at(&self, id: ConnId) -> Option<Time> {
        self.conns.get(&id).and_then(|c| c.first_hint_at)
    }

    /// When connection `id`'s tail-probe timer fires, if it is armed
    /// (`Recovery::probe`).
    pub fn conn_probe_at(&self, id: ConnId) -> Option<Time> {
        self.conns.get(&id).and_then(|c| c.probe_at)
    }

    /// Per-path state of a connection's send side.
    pub fn paths(&self, id: ConnId) -> Vec<PathSnapshot> {
        self.conns.get(&id).map_or_else(Vec::new, |c| {
            c.tx.iter()
                .map(|p| PathSnapshot {
                    sport: p.sport,
                    cwnd: p.window.cwnd,
                    srtt: p.srtt,
                    retired: p.health.retired,
                    sent: p.sent,
                    retransmitted: p.retransmitted,
                    ecn_echoes: p.ecn_echoes,
                    outstanding: p.log.outstanding(),
                    rto_at: p.rto_at,
                })
                .collect()
        })
    }

    fn addressing(&self, c: &ConnConfig, sport: u16) -> Addressing {
        self.cfg.addressing(c.peer_mac, c.peer_ip, sport)
    }

    fn rate_hint(&self, now: Time) -> u32 {
        if self.cfg.recovery.hint_warmup && self.busy_since.is_none_or(|t| now < t + self.cfg.active_window) {
            return 0;
        }
        // Active: heard from within the window, or with a message half
        // received (and heard from within a longer horizon, so that a dead
        // sender does not keep its share).
        let w = self.cfg.active_window;
        let active = self
            .conns
            .iter()
            .filter(|(id, c)| {
                c.last_rx.is_some_and(|t| t + w >= now || (t + 8 * w >= now && self.delivery.has_partial(**id)))
            })
            .count()
            .max(1);
        self.cfg.line_rate_mbps / active as u32
    }

    /// Send the path's ACK, reporting `pending` packets and `ce` marks.
    fn queue_ack(&mut self, now: Time, id: ConnId, p: usize, pending: u16, ce: u16) {
        let hint = self.rate_hint(now);
        let conn = self.conns.get_mut(&id).expect("connection exists");
        let rx = &mut conn.rx[p];
        let ack =
            AckRepr { sack: *rx.sack.bitmap(), ts_echo: rx.ts, rate_hint_mbps: hint, ecn_ce: ce, acked_pkts: pending };
        rx.ack_at = None;
        let t = TransportRepr {
            common: CommonRepr {
                opcode: Opcode::Ack,
                conn: conn.cfg.remote_id,
                path: PathId(p as u8),
                psn: rx.sack.cum(),
                timestamp: (now / 1000) as u32,
                stream: Default::default(),
                flags: 0,
                generation: conn.life.generation,
            },
            body: Body::Ack(ack),
        };
        let sport = rx.sport;
        let cfg = conn.cfg;
        let frame = wire::encode(&self.addressing(&cfg, sport), &t, &[]);
        self.stats.tx_acks += 1;
        self.control.push_back(frame);
    }

    fn queue_nak(&mut self, now: Time, id: ConnId, c: &CommonRepr, d: &DataRepr, code: NakCode, sport: u16) {
        let (cfg, generation) = (self.conns[&id].cfg, self.conns[&id].life.generation);
        let t = TransportRepr {
            common: CommonRepr {
                opcode: Opcode::Nak,
                conn: cfg.remote_id,
                path: c.path,
                psn: c.psn,
                timestamp: (now / 1000) as u32,
                stream: c.stream,
                flags: 0,
                generation,
            },
            body: Body::Nak(NakRepr { code, msg_seq: d.msg_seq, info: 0 }),
        };
        let frame = wire::encode(&self.addressing(&cfg, sport), &t, &[]);
        self.stats.tx_naks += 1;
        self.control.push_back(frame);
    }

    fn on_data(&mut self, now: Time, id: ConnId, f: &wire::Frame<'_>, d: &DataRepr, mem: &mut dyn HostMemory) {
        let c = f.transport.common;
        let p = c.path.0 as usize;
        self.stats.rx_data += 1;
        let ce = f.addr.ecn == Ecn::Ce;
        if ce {
            self.stats.rx_ecn_ce += 1;
        }
        let window = self.cfg.active_window;
        let idle = !self.conns.values().any(|c| c.last_rx.is_some_and(|t| t + window >= now));
        if idle {
            self.busy_since = Some(now);
        }
        let conn = self.conns.get_mut(&id).expect("connection exists");
        conn.last_rx = Some(now);
        let verdict = conn.rx[p].sack.classify(c.psn);
        let mut immediate = c.flags & flags::ACK_REQ != 0;
        match verdict {
            Verdict::Duplicate => {
                self.stats.rx_dup += 1;
                if c.flags & flags::RETX != 0 {
                    self.stats.rx_dup_retx += 1;
                }
                immediate = true;
            }
            Verdict::OutOfWindow => {
                self.stats.rx_out_of_window += 1;
                immediate = true;
            }
            Verdict::New { hole } => {
                match self.delivery.place(id, &c, d, f.payload, mem) {
                    Placement::Placed => {
                        self.stats.bytes_placed += f.payload.len() as u64;
                        self.conns.get_mut(&id).expect("connection exists").bytes_placed += f.payload.len() as u64;
                    }
                    Placement::Refused(code) => {
                        self.stats.rx_access_violation += 1;
                        self.queue_nak(now, id, &c, d, code, f.addr.sport);
                    }
                    Placement::NotReady => {
                        self.stats.rx_no_recv += 1;
                        self.queue_nak(now, id, &c, d, NakCode::NoRecv, f.addr.sport);
                        return;
                    }
                }
                // A new hole: tell the sender at once.
                immediate |= hole;
                self.conns.get_mut(&id).expect("connection exists").rx[p].sack.accept(c.psn);
            }
        }
        let rx = &mut self.conns.get_mut(&id).expect("connection exists").rx[p];
        rx.ts = c.timestamp;
        rx.sport = f.addr.sport;
        match rx.coalesce.on_packet(immediate, ce, self.cfg.ack_every) {
            AckAction::Now { pending, ce } => self.queue_ack(now, id, p, pending, ce),
            AckAction::Arm => rx.ack_at = Some(now + self.cfg.ack_delay),
            AckAction::Wait => {}
        }
    }

    fn rto(&self, path: &TxPath) -> Time {
        let base = match path.srtt {
            Some(s) => (2 * s + 4 * path.rttvar).max(self.cfg.rto_min),
            None => self.cfg.rto_min,
        };
        base << path.health.rtos_in_row.min(self.cfg.recovery.max_backoff)
    }

    fn on_ack(&mut self, now: Time, id: ConnId, c: &CommonRepr, a: &AckRepr) {
        let p = c.path.0 as usize;
        let line = self.cfg.line_rate_mbps;
        let max_cwnd = self.cfg.max_cwnd;
        let conn = self.conns.get_mut(&id).expect("connection exists");
        let rec = self.cfg.recovery;
        let path = &mut conn.tx[p];
        let resent_rule = rec.repair_route == RepairRoute::SamePath;
        let Some(result) = path.log.on_ack_with(c.psn, &a.sack, resent_rule) else {
            return; // older than what we know, or acknowledging the unsent
        };
        if a.rate_hint_mbps > 0 {
            conn.rate_mbps = a.rate_hint_mbps.min(line);
            conn.pacer.set_cost(Pacer::cost_q16(conn.rate_mbps, PS_PER_US));
            conn.hint_mbps = conn.rate_mbps;
            conn.first_hint_at.get_or_insert(now);
        }
        let sample = ((now / 1000) as u32).wrapping_sub(a.ts_echo) as Time * 1000;
        conn.min_rtt = Some(conn.min_rtt.map_or(sample, |m| m.min(sample)));
        let first_sample = conn.srtt.is_none();
        match conn.srtt {
            None => (conn.srtt, conn.rttvar) = (Some(sample), sample / 2),
            Some(s) => {
                conn.rttvar = (3 * conn.rttvar + s.abs_diff(sample)) / 4;
                conn.srtt = Some((7 * s + sample) / 8);
            }
        }
        self.last_srtt = conn.srtt.map(|s| (s, conn.rttvar));
        // The latest send time among the newly acknowledged; a resent PSN
        // counts only if its ACK cannot be the original's (RACK's rule).
        for psn in &result.newly {
            let t = path.sent_at[psn.slot()];
            if !path.log.was_resent(*psn) || now.saturating_sub(t) >= conn.min_rtt.unwrap_or(0) {
                conn.rack_ts = conn.rack_ts.max(t);
                path.rack_ts = path.rack_ts.max(t);
            }
        }
        match path.srtt {
            None => {
                path.srtt = Some(sample);
                path.rttvar = sample / 2;
            }
            Some(s) => {
                path.rttvar = (3 * path.rttvar + s.abs_diff(sample)) / 4;
                path.srtt = Some((7 * s + sample) / 8);
            }
        }
        let newly = result.newly.len() as u32;
        self.stats.lost_found_by_ack += result.lost as u64;
        // Each PSN is reported newly acknowledged once; its slot keeps the
        // segment until a new PSN takes the slot.
        for psn in &result.newly {
            if let Some(seg) = path.segs[psn.slot()] {
                conn.sq.ack(seg.stream, seg.msg_seq, seg.len as u32);
            }
        }
        let repath = path.health.on_ack_with(newly, result.lost, rec.repath_loss_shift);
        path.ecn_echoes += a.ecn_ce as u64;
        let srtt = path.srtt.unwrap_or(0);
        let path_ce = if rec.path_ecn_cut { a.ecn_ce as u32 } else { 0 };
        path.window.on_ack(now, newly, path_ce, path.log.outstanding(), srtt, max_cwnd);
        if rec.conn_window {
            let outstanding = conn.tx.iter().map(|p| p.log.outstanding()).sum();
            let max = max_cwnd * conn.tx.len() as u32;
            conn.window.on_ack(now, newly, a.ecn_ce as u32, outstanding, conn.srtt.unwrap_or(0), max);
        }
        // Progress ends the backoff. The timer runs on from the newest send,
        // but one armed before the connection's first RTT sample (on
        // another connection's estimate or `rto_min`) restarts with it.
        if newly > 0 {
            conn.probes = 0;
            if first_sample {
                conn.probe_at = None;
            }
        }
        let rto = self.rto(&self.conns[&id].tx[p]);
        let path = &mut self.conns.get_mut(&id).expect("connection exists").tx[p];
        path.rto_at = (path.log.outstanding() > 0).then_some(now + rto);
        if repath {
            self.repath(id, p);
        }
        if rec.rack {
            self.rack_detect(id, p);
        }
        let conn = self.conns.get_mut(&id).expect("connection exists");
        Self::arm_probe(&self.cfg, self.last_srtt, now, conn, false);
    }

    /// `Recovery::rack`: on every path of the connection, the packets sent
    /// more than the reordering window before the latest-sent acknowledged
    /// one are lost, unless the path's newest packet in flight is a
    /// candidate sent within the window. With `Recovery::path_rack`, on the
    /// ACK's own path (`acked`) that wait does not hold against the path's
    /// own latest-sent acknowledged packet.
    fn rack_detect(&mut self, id: ConnId, acked: usize) {
        let shift = self.cfg.recovery.repath_loss_shift;
        let conn = self.conns.get_mut(&id).expect("connection exists");
        let reo = self.cfg.recovery.reo_window(conn.min_rtt, self.cfg.ack_delay);
        let rack_ts = conn.rack_ts;
        let path_rack = self.cfg.recovery.path_rack;
        let mut repath = Vec::new();
        for (q, path) in conn.tx.iter_mut().enumerate() {
            // The ACK's own path: its SACK state came with this ACK, so a
            // lost ACK cannot make its packets look lost (the path's
            // rack_ts is at most the connection's).
            let own = if path_rack && q == acked { path.rack_ts } else { 0 };
            // A path whose newest packet in flight is a candidate sent
            // within the window waits for that packet's ACK, which carries
            // the path's SACK state: a lost ACK then does not pass for the
            // loss of the packets it acknowledged.
            let waits =
                path.log.newest_candidate().is_some_and(|n| !recovery::rack_lost(path.sent_at[n.slot()], rack_ts, reo));
            let ts = if waits { own } else { rack_ts };
            let lost: Vec<Psn> =
                path.log.candidates().filter(|x| recovery::rack_lost(path.sent_at[x.slot()], ts, reo)).collect();
            if lost.is_empty() {
                continue;
            }
            for x in &lost {
                path.log.lose(*x);
            }
            self.stats.lost_found_by_ack += lost.len() as u64;
            if path.health.on_ack_with(0, lost.len() as u32, shift) {
                repath.push(q);
            }
        }
        for q in repath {
            self.repath(id, q);
        }
    }

    /// `Recovery::probe`: arm the probe timer if the connection has packets
    /// outstanding and it is not armed (`sent`: a packet has just been sent,
    /// which restarts it); disarm it if nothing is outstanding.
    fn arm_probe(cfg: &EndpointConfig, last_srtt: Option<(Time, Time)>, now: Time, conn: &mut Conn, sent: bool) {
        if !cfg.recovery.probe {
            return;
        }
        if sent {
            conn.probe_at = None;
        }
        if conn.tx.iter().all(|p| p.log.outstanding() == 0) {
            conn.probe_at = None;
        } else if conn.probe_at.is_none() {
            let srtt = conn.srtt.map(|s| (s, conn.rttvar)).or(last_srtt);
            conn.probe_at = Some(now + cfg.recovery.probe_timeout(srtt, cfg.ack_delay, cfg.rto_min, conn.probes));
        }
    }

    /// The probe timer fired: each path with packets outstanding and
    /// nothing queued resends one (`PathLog::probe_psn`).
    fn on_probe(&mut self, now: Time, id: ConnId) {
        let conn = self.conns.get_mut(&id).expect("connection exists");
        conn.probe_at = None;
        let mut probed = 0;
        for path in conn.tx.iter_mut() {
            if path.log.outstanding() > 0 && !path.log.has_queued() {
                if let Some(psn) = path.log.probe_psn() {
                    probed += path.log.lose(psn) as u64;
                }
            }
        }
        self.stats.tail_probes += probed;
        conn.probes += 1;
        Self::arm_probe(&self.cfg, self.last_srtt, now, conn, false);
    }

    fn repath(&mut self, id: ConnId, p: usize) {
        let old = self.conns[&id].tx[p].sport;
        let sport = self.fresh_sport(old);
        self.conns.get_mut(&id).expect("connection exists").tx[p].sport = sport;
        self.stats.repaths += 1;
    }

    fn on_nak(&mut self, now: Time, id: ConnId, c: &CommonRepr, n: &NakRepr) {
        self.stats.naks_received += 1;
        let rnr_delay = self.cfg.rnr_delay;
        let conn = self.conns.get_mut(&id).expect("connection exists");
        match n.code {
            NakCode::Access => conn.sq.fail(c.stream, n.msg_seq, CompletionStatus::RemoteAccessError),
            NakCode::RecvTooSmall => conn.sq.fail(c.stream, n.msg_seq, CompletionStatus::RecvTooSmall),
            NakCode::NoRecv => {
                if conn.tx[c.path.0 as usize].log.hold(c.psn) {
                    conn.rnr.push((now + rnr_delay, c.path.0, c.psn));
                }
            }
            NakCode::SeqErr => {}
        }
    }

    fn build_data(
        &self,
        now: Time,
        conn: &Conn,
        (p, psn, sport): (usize, Psn, u16),
        seg: &Segment,
        fl: u8,
        mem: &dyn HostMemory,
    ) -> Vec<u8> {
        let payload = seg.payload(mem);
        let t = seg.transport(conn.cfg.remote_id, PathId(p as u8), psn, (now / 1000) as u32, fl, conn.life.generation);
        wire::encode(&self.addressing(&conn.cfg, sport), &t, &payload)
    }

    /// The path new data goes on (see `spray::pick`).
    fn pick_path(cfg: &EndpointConfig, conn: &Conn) -> Option<usize> {
        if cfg.recovery.conn_window && Self::conn_free(cfg, conn) == 0 {
            return None;
        }
        let mut c = [Candidate::default(); 16];
        for (i, p) in conn.tx.iter().enumerate() {
            c[i] = Candidate {
                present: true,
                free: p.window.free(p.log.outstanding()),
                span_ok: p.log.can_send(),
                retired: p.health.retired,
            };
        }
        spray::pick(&c[..conn.tx.len()], conn.path_rr)
    }

    fn can_send(cfg: &EndpointConfig, conn: &Conn) -> bool {
        conn.tx.iter().any(|p| p.log.has_queued()) || (conn.sq.has_data() && Self::pick_path(cfg, conn).is_some())
    }

    /// Bytes of a full data frame on the wire.
    fn frame_bytes(cfg: &EndpointConfig) -> u32 {
        cfg.mtu + (wire::DATA_FRAME_OVERHEAD + WIRE_OVERHEAD) as u32
    }

    /// New packets the connection window allows (`Recovery::conn_window`).
    fn conn_free(cfg: &EndpointConfig, conn: &Conn) -> u32 {
        let cap = cfg.recovery.window_cap(conn.hint_mbps, Self::frame_bytes(cfg));
        let outstanding: u32 = conn.tx.iter().map(|p| p.log.outstanding()).sum();
        conn.window.cwnd.min(cap).saturating_sub(outstanding)
    }

    /// The route of a retransmission on path `p`: its own source port, or
    /// with `RepairRoute::CleanPath` that of the other live path with the
    /// fewest losses in its epoch (the first after `p` on a tie). After
    /// RTOs in a row on `p` its repairs' route may itself be dead though
    /// that path, idle, shows no loss (a spine failing after its last
    /// packet): the k-th RTO in a row takes the k-th other live path after
    /// `p` in turn, so consecutive repairs try different routes.
    fn repair_sport(cfg: &EndpointConfig, conn: &Conn, p: usize) -> u16 {
        let n = conn.tx.len();
        if cfg.recovery.repair_route == RepairRoute::SamePath || n == 1 {
            return conn.tx[p].sport;
        }
        let live: Vec<usize> = (1..n).map(|k| (p + k) % n).filter(|&q| !conn.tx[q].health.retired).collect();
        let turn = conn.tx[p].health.rtos_in_row as usize;
        let q = if live.is_empty() {
            p
        } else if turn > 0 {
            live[turn % live.len()]
        } else {
            live.iter().copied().min_by_key(|&q| conn.tx[q].health.epoch_lost).expect("not empty")
        };
        conn.tx[q].sport
    }

    fn transmit(&mut self, now: Time, id: ConnId, mem: &dyn HostMemory) -> Option<Vec<u8>> {
        let mtu = self.cfg.mtu;
        let conn = self.conns.get_mut(&id).expect("connection exists");
        // Retransmissions first, paths taking turns, lowest PSN first on each.
        let n = conn.tx.len();
        for k in 0..n {
            let p = (conn.retx_rr + k) % n;
            let Some(psn) = conn.tx[p].log.take_retx() else {
                continue;
            };
            conn.retx_rr = (p + 1) % n;
            let sport = Self::repair_sport(&self.cfg, conn, p);
            let path = &mut conn.tx[p];
            let seg = path.segs[psn.slot()].expect("a PSN in flight has its segment");
            path.retransmitted += 1;
            path.sent_at[psn.slot()] = now;
            Self::arm_probe(&self.cfg, self.last_srtt, now, conn, true);
            let conn = &self.conns[&id];
            let frame = self.build_data(now, conn, (p, psn, sport), &seg, flags::RETX | flags::ACK_REQ, mem);
            self.stats.tx_retx += 1;
            self.pace(now, id, frame.len());
            return Some(frame);
        }
        let p = Self::pick_path(&self.cfg, conn)?;
        let seg = conn.sq.next_segment(mtu)?;
        let path = &mut conn.tx[p];
        let psn = path.log.send_new();
        path.segs[psn.slot()] = Some(seg);
        path.sent_at[psn.slot()] = now;
        path.health.on_send();
        path.sent += 1;
        conn.path_rr = (p + 1) % conn.tx.len();
        let rto = self.rto(&self.conns[&id].tx[p]);
        let conn = self.conns.get_mut(&id).expect("connection exists");
        if conn.tx[p].rto_at.is_none() {
            conn.tx[p].rto_at = Some(now + rto);
        }
        Self::arm_probe(&self.cfg, self.last_srtt, now, conn, true);
        let fl = if seg.last { flags::ACK_REQ } else { 0 };
        let sport = conn.tx[p].sport;
        let frame = self.build_data(now, &self.conns[&id], (p, psn, sport), &seg, fl, mem);
        self.stats.tx_data += 1;
        self.pace(now, id, frame.len());
        Some(frame)
    }

    fn pace(&mut self, now: Time, id: ConnId, frame_len: usize) {
        let conn = self.conns.get_mut(&id).expect("connection exists");
        conn.pacer.on_send(now, (frame_len + WIRE_OVERHEAD) as u64);
    }

    fn on_rto(&mut self, now: Time, id: ConnId, p: usize) {
        self.stats.rtos += 1;
        let (repath_after, retire_after) = (self.cfg.repath_after_rtos, self.cfg.retire_after_rtos);
        let conn = self.conns.get_mut(&id).expect("connection exists");
        let path = &mut conn.tx[p];
        let repath = path.health.on_rto(repath_after, retire_after);
        path.log.on_rto();
        if repath {
            self.repath(id, p);
        }
        let rto = self.rto(&self.conns[&id].tx[p]);
        let path = &mut self.conns.get_mut(&id).expect("connection exists").tx[p];
        path.rto_at = (path.log.outstanding() > 0).then_some(now + rto);
    }
}

impl Transport for Endpoint {
    fn post(&mut self, wr: WorkRequest) -> Result<()> {
        let (conn, ..) = wr.parts();
        let c = self.conns.get_mut(&conn).ok_or(Error::UnknownConnection(conn))?;
        c.sq.post(wr)?;
        self.refresh(conn);
        Ok(())
    }

    fn post_recv(&mut self, rb: RecvBuffer) -> Result<()> {
        let c = self.conns.get(&rb.conn).ok_or(Error::UnknownConnection(rb.conn))?;
        if rb.stream.0 >= c.cfg.streams {
            return Err(Error::BadStream { conn: rb.conn, stream: rb.stream });
        }
        if rb.len == 0 || rb.addr.checked_add(rb.len as u64).is_none() {
            return Err(Error::BadWorkRequest("receive buffer empty or wrapping".into()));
        }
        self.delivery.post_recv(rb);
        Ok(())
    }

    fn register_mr(&mut self, mr: MemoryRegion) -> Result<()> {
        self.delivery.mrs.register(mr)
    }

    fn handle_frame(&mut self, now: Time, frame: &[u8], mem: &mut dyn HostMemory) {
        self.stats.rx_frames += 1;
        let Some(f) = self.cfg.accept(frame) else {
            self.stats.rx_malformed += 1;
            return;
        };
        let c = f.transport.common;
        let id = c.conn;
        let ok = self.conns.get(&id).is_some_and(|k| {
            k.cfg.peer_ip == f.addr.src_ip && c.path.0 < k.cfg.paths && c.generation == k.life.generation
        });
        if !ok {
            self.stats.rx_bad_conn += 1;
            return;
        }
        match f.transport.body {
            Body::Data(d) => self.on_data(now, id, &f, &d, mem),
            Body::Ack(a) => self.on_ack(now, id, &c, &a),
            Body::Nak(n) => self.on_nak(now, id, &c, &n),
        }
        self.refresh(id);
    }

    fn poll_transmit(&mut self, now: Time, mem: &dyn HostMemory) -> Option<Vec<u8>> {
        if let Some(f) = self.control.pop_front() {
            return Some(f);
        }
        // Connections are offered the wire round-robin in set-up order from
        // `rr`; only those with something to send whose pacer allows it can
        // take it (for the others `transmit` would do nothing).
        let n = self.order.len();
        if self.ready.first().is_none_or(|k| k.0 > now) {
            return None;
        }
        let first = self.order[self.rr % n].0;
        let mut due: Vec<(bool, u64, ConnId)> = self
            .ready
            .range(..=(now, u64::MAX, ConnId(u16::MAX)))
            .map(|&(_, seq, id)| (seq < first, seq, id))
            .collect();
        due.sort_unstable();
        for (_, seq, id) in due {
            debug_assert!(self.conns[&id].pacer.may_send(now));
            let frame = self.transmit(now, id, mem);
            self.refresh(id);
            if let Some(f) = frame {
                let i = self.order.partition_point(|c| c.0 < seq);
                self.rr = (i + 1) % n;
                return Some(f);
            }
        }
        None
    }

    fn poll_timeout(&self) -> Option<Time> {
        if !self.control.is_empty() {
            return Some(0);
        }
        let timer = self.timers.first().map(|k| k.0);
        let send = self.ready.first().map(|k| k.0);
        timer.into_iter().chain(send).min()
    }

    fn handle_timeout(&mut self, now: Time) {
        if self.timers.first().is_none_or(|k| k.0 > now) {
            return;
        }
        // Connections with a timer due, in set-up order.
        let mut due: Vec<(u64, ConnId)> =
            self.timers.range(..=(now, u64::MAX, ConnId(u16::MAX))).map(|&(_, seq, id)| (seq, id)).collect();
        due.sort_unstable();
        for (_, id) in due {
            // A path's timers touch only that path (and the ACK queue), so
            // the due ones are found in one look at the connection and then
            // run in path order, each ACK timer before its path's RTO.
            let conn = self.conns.get_mut(&id).expect("connection exists");
            let mut fired = [(None, false); 16];
            for (p, (rx, tx)) in conn.rx.iter_mut().zip(&conn.tx).enumerate() {
                if rx.ack_at.is_some_and(|a| a <= now) {
                    rx.ack_at = None;
                    fired[p].0 = Some(rx.coalesce.on_timer());
                }
                fired[p].1 = tx.rto_at.is_some_and(|a| a <= now);
            }
            for (p, &(ack, rto)) in fired.iter().enumerate() {
                if let Some(AckAction::Now { pending, ce }) = ack {
                    self.queue_ack(now, id, p, pending, ce);
                }
                if rto {
                    self.on_rto(now, id, p);
                }
            }
            if self.conns[&id].probe_at.is_some_and(|t| t <= now) {
                self.on_probe(now, id);
            }
            let conn = self.conns.get_mut(&id).expect("connection exists");
            let mut i = 0;
            while i < conn.rnr.len() {
                if conn.rnr[i].0 <= now {
                    let (_, p, psn) = conn.rnr.swap_remove(i);
                    conn.tx[p as usize].log.release(psn);
                } else {
                    i += 1;
                }
            }
            self.refresh(id);
        }
    }

    fn poll_completion(&mut self) -> Option<Completion> {
        if let Some(c) = self.delivery.poll_completion() {
            return Some(c);
        }
        let id = *self.completing.first()?;
        let c = self.conns.get_mut(&id).expect("connection exists").sq.poll_completion();
        self.refresh(id);
        c
    }

    fn stats(&self) -> Stats {
        self.stats
    }

    fn outstanding(&self) -> usize {
        self.conns.values().map(|c| c.sq.outstanding()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::Access;
    use crate::types::{us, Iova, Rkey, StreamId, WrId};

    struct Mem(Vec<u8>);
    impl HostMemory for Mem {
        fn read(&self, a: crate::Iova, buf: &mut [u8]) {
            buf.copy_from_slice(&self.0[a.0 as usize..a.0 as usize + buf.len()]);
        }
        fn write(&mut self, a: crate::Iova, d: &[u8]) {
            self.0[a.0 as usize..a.0 as usize + d.len()].copy_from_slice(d);
        }
    }

    impl Endpoint {
        /// The indexes against the connections' state, recomputed from
        /// scratch, and `poll_timeout` against a walk over every timer.
        fn check_indexes(&self) {
            let mut walk: Option<Time> = (!self.control.is_empty()).then_some(0);
            for (&id, c) in &self.conns {
                let acks = c.rx.iter().filter_map(|r| r.ack_at);
                let rtos = c.tx.iter().filter_map(|p| p.rto_at);
                let timer = acks.chain(rtos).chain(c.rnr.iter().map(|r| r.0)).chain(c.probe_at).min();
                let send = Self::can_send(&self.cfg, c).then(|| c.pacer.ready_at());
                assert_eq!((c.timer_key, c.send_key), (timer, send), "connection {id}");
                assert_eq!(timer.is_some_and(|t| self.timers.contains(&(t, c.seq, id))), timer.is_some());
                assert_eq!(send.is_some_and(|t| self.ready.contains(&(t, c.seq, id))), send.is_some());
                assert_eq!(self.completing.contains(&id), c.sq.has_completion(), "connection {id}");
                walk = [walk, timer, send].into_iter().flatten().min();
            }
            let keyed = self.conns.values();
            assert_eq!(self.timers.len(), keyed.clone().filter(|c| c.timer_key.is_some()).count());
            assert_eq!(self.ready.len(), keyed.filter(|c| c.send_key.is_some()).count());
            assert_eq!(self.poll_timeout(), walk);
        }
    }

    fn endpoint(i: u8, recovery: Recovery) -> Endpoint {
        let mut c = EndpointConfig::new([2, 0, 0, 0, 0, i], [10, 0, 0, i], 100_000, 512);
        c.seed = i as u64;
        c.recovery = recovery;
        Endpoint::new(c).unwrap()
    }

    /// Two endpoints with connections of 1 to 8 paths over a channel that
    /// loses, delays and reorders frames; SENDs find no receive buffer at
    /// times (RNR holds), and a connection is torn down and set up again;
    /// with v0 and with every recovery mechanism on (probe timers, the
    /// connection window).
    #[test]
    fn timer_and_ready_indexes_follow_every_change() {
        for r in [Recovery::v0(), Recovery::v1()] {
            indexes_follow_every_change(r);
        }
    }

    fn indexes_follow_every_change(r: Recovery) {
        let mut ep = [endpoint(1, r), endpoint(2, r)];
        let mut mem = [Mem(vec![7; 1 << 16]), Mem(vec![0; 1 << 16])];
        let conn = |k: u16, paths: u8, peer: u8| ConnConfig {
            id: ConnId(k),
            remote_id: ConnId(k),
            peer_mac: [2, 0, 0, 0, 0, peer],
            peer_ip: [10, 0, 0, peer],
            paths,
            streams: 2,
            initial_rate_mbps: Some(20_000 * k as u32),
        };
        for k in 1..=5u16 {
            for (i, e) in ep.iter_mut().enumerate() {
                e.connect(conn(k, [1, 2, 8, 3, 5][k as usize - 1], 2 - i as u8)).unwrap();
                let (rkey, base, len) = (Rkey(k as u32), Iova(0), 1 << 16);
                e.register_mr(MemoryRegion { rkey, base, len, access: Access { remote_write: true }, conn: ConnId(k) })
                    .unwrap();
            }
        }
        let mut rng = Rng::new(5);
        let mut wire: Vec<(Time, usize, Vec<u8>)> = Vec::new();
        let mut now: Time = 0;
        let mut wr = 0u64;
        for step in 0..40_000u32 {
            if step % 97 == 0 {
                let k = ConnId(1 + rng.below(5) as u16);
                let len = 1 + rng.below(6000) as u32;
                let (local, stream) = (Iova(rng.below(1 << 15)), StreamId(rng.below(2) as u16));
                let w = if rng.chance(0.3) {
                    if rng.chance(0.7) {
                        let rb = RecvBuffer { id: WrId(wr), conn: k, stream, addr: Iova(1 << 15), len: 8192 };
                        ep[1].post_recv(rb).unwrap();
                    }
                    WorkRequest::Send { id: WrId(wr), conn: k, stream, local, len }
                } else {
                    WorkRequest::Write {
                        id: WrId(wr),
                        conn: k,
                        stream,
                        local,
                        len,
                        remote: Iova(0),
                        rkey: Rkey(k.0 as u32),
                        imm: None,
                    }
                };
                wr += 1;
                ep[0].post(w).unwrap();
            }
            if step == 20_000 {
                for (i, e) in ep.iter_mut().enumerate() {
                    e.disconnect(ConnId(3)).unwrap();
                    e.connect(conn(3, 4, 2 - i as u8)).unwrap();
                }
            }
            for i in 0..2 {
                ep[i].handle_timeout(now);
                ep[i].check_indexes();
                if let Some(f) = ep[i].poll_transmit(now, &mem[i]) {
                    if !rng.chance(0.03) {
                        wire.push((now + us(2) + rng.below(3_000_000), 1 - i, f));
                    }
                }
                ep[i].check_indexes();
                while ep[i].poll_completion().is_some() {}
                ep[i].check_indexes();
            }
            wire.sort_by_key(|w| std::cmp::Reverse(w.0));
            while wire.last().is_some_and(|w| w.0 <= now) {
                let (_, to, f) = wire.pop().unwrap();
                ep[to].handle_frame(now, &f, &mut mem[to]);
                ep[to].check_indexes();
            }
            now += 50_000 + rng.below(100_000);
        }
        let st = ep[0].stats();
        assert!(st.tx_retx > 0 && st.rtos > 0 && st.naks_received > 0, "the run exercised every timer: {st:?}");
        assert_eq!(st.tail_probes > 0, r.probe, "{st:?}");
    }
}
