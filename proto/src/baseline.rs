//! The go-back-N baseline: RoCEv2 RC as deployed without selective repeat.
//! One path per connection (a fixed UDP source port, so ECMP pins it to one
//! route), one PSN space, the receiver accepts only the expected PSN and
//! sends one NAK (sequence error) per gap; the sender goes back to the NAK'd
//! PSN and resends everything from there. Same [`Transport`] API and wire
//! format as ferroce so that the same fabric runs both. With
//! [`GbnEndpoint::with_dcqcn`] each connection is paced by DCQCN, the
//! receiver returning a CNP (here an ACK with its ECN count set, sent at
//! once) at most once per CNP interval while CE-marked packets arrive.

use std::collections::{BTreeMap, VecDeque};

use crate::dcqcn::{Dcqcn, DcqcnConfig};
use crate::model::mr::MrTable;
use crate::model::sendq::{Segment, SendQueue};
use crate::model::{wire_time, ConnConfig, Delivery, EndpointConfig, Placement};
use crate::transport::{
    Completion, CompletionStatus, HostMemory, MemoryRegion, RecvBuffer, Stats, Transport, WorkRequest,
};
use crate::types::{ConnId, PathId, Psn, Time};
use crate::wire::{
    self, flags, AckRepr, Addressing, Body, CommonRepr, DataRepr, NakCode, NakRepr, Opcode, TransportRepr,
    WIRE_OVERHEAD,
};
use crate::{Error, Result};

#[derive(Debug)]
struct GbnConn {
    cfg: ConnConfig,
    sq: SendQueue,
    sport: u16,
    // send side
    una: Psn,
    next_psn: Psn,
    /// One past the highest PSN ever sent: below it, sending is resending.
    high: Psn,
    log: VecDeque<Segment>,
    rto_at: Option<Time>,
    rtos_in_row: u32,
    next_tx: Time,
    dcqcn: Option<Dcqcn>,
    // receive side
    expected: Psn,
    nak_sent: bool,
    pending: u16,
    ts: u32,
    ack_at: Option<Time>,
    /// No CNP to this sender before then.
    cnp_after: Time,
    bytes_placed: u64,
}

/// A go-back-N endpoint.
#[derive(Debug)]
pub struct GbnEndpoint {
    cfg: EndpointConfig,
    window: u32,
    conns: BTreeMap<ConnId, GbnConn>,
    order: Vec<ConnId>,
    rr: usize,
    delivery: Delivery,
    control: VecDeque<Vec<u8>>,
    stats: Stats,
    dcqcn: Option<DcqcnConfig>,
}

impl GbnEndpoint {
    /// A baseline endpoint allowing `window` unacknowledged packets per
    /// connection (RoCE NICs bound this by their outstanding-PSN limit).
    pub fn new(cfg: EndpointConfig, window: u32) -> Result<GbnEndpoint> {
        if window == 0 || window >= 1 << 22 {
            return Err(Error::BadConfig("window must be 1..2^22 packets".into()));
        }
        Ok(GbnEndpoint {
            cfg,
            window,
            conns: BTreeMap::new(),
            order: Vec::new(),
            rr: 0,
            delivery: Delivery::default(),
            control: VecDeque::new(),
            stats: Stats::default(),
            dcqcn: None,
        })
    }

    /// Pace every connection set up from now on with DCQCN.
    pub fn with_dcqcn(mut self, cfg: DcqcnConfig) -> GbnEndpoint {
        self.dcqcn = Some(cfg);
        self
    }

    /// Payload bytes placed in host memory for connection `id`.
    pub fn conn_bytes_placed(&self, id: ConnId) -> u64 {
        self.conns.get(&id).map_or(0, |c| c.bytes_placed)
    }

    /// Establish a connection; `paths` is ignored (always one).
    pub fn connect(&mut self, cc: ConnConfig) -> Result<()> {
        if cc.streams == 0 || self.conns.contains_key(&cc.id) {
            return Err(Error::BadConfig(format!("connection {}: duplicate or no streams", cc.id)));
        }
        // RoCEv2 derives the source port from the QP number: fixed per connection.
        let sport = wire::ENTROPY_PORT_BASE + (cc.id.0.wrapping_mul(2654) % 16384);
        self.conns.insert(
            cc.id,
            GbnConn {
                cfg: cc,
                sq: SendQueue::new(cc.id, cc.streams),
                sport,
                una: Psn::new(0),
                next_psn: Psn::new(0),
                high: Psn::new(0),
                log: VecDeque::new(),
                rto_at: None,
                rtos_in_row: 0,
                next_tx: 0,
                dcqcn: self.dcqcn.map(Dcqcn::new),
                expected: Psn::new(0),
                nak_sent: false,
                pending: 0,
                ts: 0,
                ack_at: None,
                cnp_after: 0,
                bytes_placed: 0,
            },
        );
        self.order.push(cc.id);
        Ok(())
    }

    /// The memory-region table.
    pub fn mrs(&mut self) -> &mut MrTable {
        &mut self.delivery.mrs
    }

    fn addressing(&self, c: &GbnConn) -> Addressing {
        self.cfg.addressing(c.cfg.peer_mac, c.cfg.peer_ip, c.sport)
    }

    fn control_frame(&mut self, now: Time, id: ConnId, opcode: Opcode, psn: Psn, body: Body) {
        let c = &self.conns[&id];
        let t = TransportRepr {
            common: CommonRepr {
                opcode,
                conn: c.cfg.remote_id,
                path: PathId(0),
                psn,
                timestamp: (now / 1000) as u32,
                stream: Default::default(),
                flags: 0,
                generation: 0,
            },
            body,
        };
        let f = wire::encode(&self.addressing(c), &t, &[]);
        if opcode == Opcode::Ack {
            self.stats.tx_acks += 1;
        } else {
            self.stats.tx_naks += 1;
        }
        self.control.push_back(f);
    }

    fn ack(&mut self, now: Time, id: ConnId) {
        self.ack_ce(now, id, 0);
    }

    /// An ACK reporting `ce` congestion marks: with DCQCN, a CNP.
    fn ack_ce(&mut self, now: Time, id: ConnId, ce: u16) {
        let c = self.conns.get_mut(&id).expect("connection exists");
        let a = AckRepr {
            sack: [0; crate::params::SACK_BYTES],
            ts_echo: c.ts,
            rate_hint_mbps: 0,
            ecn_ce: ce,
            acked_pkts: c.pending,
        };
        c.pending = 0;
        c.ack_at = None;
        let psn = c.expected;
        self.control_frame(now, id, Opcode::Ack, psn, Body::Ack(a));
    }

    fn nak(&mut self, now: Time, id: ConnId, psn: Psn, n: NakRepr) {
        self.control_frame(now, id, Opcode::Nak, psn, Body::Nak(n));
    }

    fn on_data(&mut self, now: Time, id: ConnId, f: &wire::Frame<'_>, d: &DataRepr, mem: &mut dyn HostMemory) {
        let c = f.transport.common;
        self.stats.rx_data += 1;
        let conn = self.conns.get_mut(&id).expect("connection exists");
        if f.addr.ecn == wire::Ecn::Ce {
            self.stats.rx_ecn_ce += 1;
            if let Some(d) = self.dcqcn.filter(|_| now >= conn.cnp_after) {
                conn.cnp_after = now + d.cnp_interval;
                self.ack_ce(now, id, 1);
            }
        }
        let conn = self.conns.get_mut(&id).expect("connection exists");
        let diff = c.psn.diff(conn.expected);
        if diff < 0 {
            self.stats.rx_dup += 1;
            if c.flags & flags::RETX != 0 {
                self.stats.rx_dup_retx += 1;
            }
            self.ack(now, id);
            return;
        }
        if diff > 0 {
            self.stats.rx_out_of_window += 1;
            if !conn.nak_sent {
                conn.nak_sent = true;
                let expected = conn.expected;
                let n = NakRepr { code: NakCode::SeqErr, msg_seq: d.msg_seq, info: expected.get() };
                self.nak(now, id, expected, n);
            }
            return;
        }
        match self.delivery.place(id, &c, d, f.payload, mem) {
            Placement::Placed => {
                self.stats.bytes_placed += f.payload.len() as u64;
                self.conns.get_mut(&id).expect("connection exists").bytes_placed += f.payload.len() as u64;
            }
            Placement::Refused(code) => {
                self.stats.rx_access_violation += 1;
                self.nak(now, id, c.psn, NakRepr { code, msg_seq: d.msg_seq, info: 0 });
            }
            Placement::NotReady => {
                // RNR: not accepted; the sender times out and resends.
                self.stats.rx_no_recv += 1;
                return;
            }
        }
        let conn = self.conns.get_mut(&id).expect("connection exists");
        conn.expected = conn.expected.add(1);
        conn.nak_sent = false;
        conn.pending += 1;
        conn.ts = c.timestamp;
        if c.flags & flags::ACK_REQ != 0 || conn.pending >= self.cfg.ack_every {
            self.ack(now, id);
        } else if conn.ack_at.is_none() {
            conn.ack_at = Some(now + self.cfg.ack_delay);
        }
    }

    fn acknowledge_to(conn: &mut GbnConn, cum: Psn) {
        while conn.una.before(cum) {
            if let Some(s) = conn.log.pop_front() {
                conn.sq.ack(s.stream, s.msg_seq, s.len as u32);
            }
            conn.una = conn.una.add(1);
            conn.rtos_in_row = 0;
        }
        if conn.next_psn.before(conn.una) {
            conn.next_psn = conn.una;
        }
    }

    fn rto(&self, c: &GbnConn) -> Time {
        self.cfg.rto_min << c.rtos_in_row.min(5)
    }

    fn on_ack(&mut self, now: Time, id: ConnId, cm: &CommonRepr, body: &Body) {
        let conn = self.conns.get_mut(&id).expect("connection exists");
        if let (Body::Ack(a), Some(d)) = (body, conn.dcqcn.as_mut()) {
            if a.ecn_ce > 0 {
                d.on_cnp(now);
            }
        }
        if cm.psn.before(conn.una) || conn.high.before(cm.psn) {
            return;
        }
        Self::acknowledge_to(conn, cm.psn);
        if let Body::Nak(n) = body {
            self.stats.naks_received += 1;
            match n.code {
                NakCode::SeqErr => {
                    self.stats.lost_found_by_ack += 1;
                    conn.next_psn = cm.psn;
                }
                NakCode::Access => conn.sq.fail(cm.stream, n.msg_seq, CompletionStatus::RemoteAccessError),
                NakCode::RecvTooSmall => conn.sq.fail(cm.stream, n.msg_seq, CompletionStatus::RecvTooSmall),
                NakCode::NoRecv => {}
            }
        }
        let rto = self.rto(&self.conns[&id]);
        let conn = self.conns.get_mut(&id).expect("connection exists");
        conn.rto_at = (!conn.log.is_empty()).then_some(now + rto);
    }

    fn transmit(&mut self, now: Time, id: ConnId, mem: &dyn HostMemory) -> Option<Vec<u8>> {
        let mtu = self.cfg.mtu;
        let window = self.window as usize;
        let conn = self.conns.get_mut(&id).expect("connection exists");
        let idx = conn.next_psn.diff(conn.una) as usize;
        let resend = idx < conn.log.len();
        let seg = if resend {
            conn.log[idx]
        } else {
            if conn.log.len() >= window {
                return None;
            }
            let s = conn.sq.next_segment(mtu)?;
            conn.log.push_back(s);
            s
        };
        let psn = conn.next_psn;
        conn.next_psn = psn.add(1);
        if conn.high.before(conn.next_psn) {
            conn.high = conn.next_psn;
        }
        let mut fl = if seg.last { flags::ACK_REQ } else { 0 };
        if resend {
            fl |= flags::RETX;
            self.stats.tx_retx += 1;
        } else {
            self.stats.tx_data += 1;
        }
        let payload = seg.payload(mem);
        let t = seg.transport(conn.cfg.remote_id, PathId(0), psn, (now / 1000) as u32, fl, 0);
        let frame = wire::encode(&self.addressing(&self.conns[&id]), &t, &payload);
        let rto = self.rto(&self.conns[&id]);
        let line = self.cfg.line_rate_mbps;
        let conn = self.conns.get_mut(&id).expect("connection exists");
        let wire_bytes = frame.len() + WIRE_OVERHEAD;
        let gap = match conn.dcqcn.as_mut() {
            Some(d) => {
                d.on_send(now, wire_bytes as u64);
                (wire_bytes as f64 * 8.0 * 1e6 / d.rate_mbps()).ceil() as Time
            }
            None => wire_time(wire_bytes, line),
        };
        conn.next_tx = conn.next_tx.max(now) + gap;
        if conn.rto_at.is_none() {
            conn.rto_at = Some(now + rto);
        }
        Some(frame)
    }

    fn can_send(c: &GbnConn, window: usize) -> bool {
        (c.next_psn.diff(c.una) as usize) < c.log.len() || (c.sq.has_data() && c.log.len() < window)
    }
}

impl Transport for GbnEndpoint {
    fn post(&mut self, wr: WorkRequest) -> Result<()> {
        let (conn, ..) = wr.parts();
        self.conns.get_mut(&conn).ok_or(Error::UnknownConnection(conn))?.sq.post(wr)
    }

    fn post_recv(&mut self, rb: RecvBuffer) -> Result<()> {
        let c = self.conns.get(&rb.conn).ok_or(Error::UnknownConnection(rb.conn))?;
        if rb.stream.0 >= c.cfg.streams || rb.len == 0 {
            return Err(Error::BadWorkRequest("bad stream or empty receive buffer".into()));
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
        if self.conns.get(&c.conn).is_none_or(|k| k.cfg.peer_ip != f.addr.src_ip) {
            self.stats.rx_bad_conn += 1;
            return;
        }
        match f.transport.body {
            Body::Data(d) => self.on_data(now, c.conn, &f, &d, mem),
            body => self.on_ack(now, c.conn, &c, &body),
        }
    }

    fn poll_transmit(&mut self, now: Time, mem: &dyn HostMemory) -> Option<Vec<u8>> {
        if let Some(f) = self.control.pop_front() {
            return Some(f);
        }
        let n = self.order.len();
        for k in 0..n {
            let i = (self.rr + k) % n;
            let id = self.order[i];
            if self.conns[&id].next_tx > now {
                continue;
            }
            if let Some(f) = self.transmit(now, id, mem) {
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
        let window = self.window as usize;
        self.conns
            .values()
            .flat_map(|c| [Self::can_send(c, window).then_some(c.next_tx), c.rto_at, c.ack_at])
            .flatten()
            .min()
    }

    fn handle_timeout(&mut self, now: Time) {
        for id in self.order.clone() {
            if self.conns[&id].ack_at.is_some_and(|a| a <= now) {
                self.ack(now, id);
            }
            if self.conns[&id].rto_at.is_some_and(|a| a <= now) {
                self.stats.rtos += 1;
                let conn = self.conns.get_mut(&id).expect("connection exists");
                conn.next_psn = conn.una;
                conn.rtos_in_row += 1;
                let rto = self.rto(&self.conns[&id]);
                let conn = self.conns.get_mut(&id).expect("connection exists");
                conn.rto_at = (!conn.log.is_empty()).then_some(now + rto);
            }
        }
    }

    fn poll_completion(&mut self) -> Option<Completion> {
        if let Some(c) = self.delivery.poll_completion() {
            return Some(c);
        }
        self.conns.values_mut().find_map(|c| c.sq.poll_completion())
    }

    fn stats(&self) -> Stats {
        self.stats
    }

    fn outstanding(&self) -> usize {
        self.conns.values().map(|c| c.sq.outstanding()).sum()
    }
}
