//! Model benchmarks: ferroce and the go-back-N baseline side by side on the
//! same fabric, plus reordering and incast experiments. The xtask
//! `bench-model` prints and stores what these return.

use ferroce_proto::model::ConnConfig;
use ferroce_proto::transport::{Access, MemoryRegion, Transport, WorkRequest};
use ferroce_proto::types::us;
use ferroce_proto::wire::payload_efficiency;
use ferroce_proto::{ConnId, Iova, Rkey, StreamId, Time, WrId};

use crate::fabric::{Fabric, Loss};
use crate::memory::Memory;
use crate::scenario::{Kind, NetConfig, Pair, CONN, DST_BASE, DST_RKEY, SRC_BASE};
use crate::Result;

/// Message size the benchmarks keep the sender busy with.
const MSG: u32 = 256 * 1024;
/// Messages kept posted ahead of completions.
const BACKLOG: usize = 8;

/// One point of the loss sweep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LossPoint {
    pub mtu: u32,
    pub loss: f64,
    pub ferroce_goodput: f64,
    pub gbn_goodput: f64,
    pub ideal: f64,
}

/// Result of the reordering experiment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reorder {
    pub paths: u8,
    pub skew: f64,
    pub spurious_retx_ratio: f64,
    pub data_packets: u64,
}

/// One incast size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Incast {
    pub n: usize,
    pub rtts_to_fair: f64,
    pub jain: f64,
    pub peak_queue_bdp: f64,
    pub aggregate_goodput: f64,
}

/// Run lengths.
#[derive(Debug, Clone, Copy)]
pub struct Durations {
    pub warmup: Time,
    pub measure: Time,
}

impl Durations {
    /// `quick`: short runs for CI-sized machines.
    pub fn new(quick: bool) -> Durations {
        if quick {
            Durations { warmup: us(100), measure: us(1_000) }
        } else {
            Durations { warmup: us(200), measure: us(5_000) }
        }
    }
}

/// Keep host `h` of `fabric` backlogged with WRITEs of `MSG` bytes cycling
/// over a buffer of `buf` bytes (completions are drained and dropped).
fn top_up<T: Transport>(
    fabric: &mut Fabric<T>,
    h: usize,
    conn: ConnId,
    rkey: Rkey,
    remote_base: Iova,
    buf: u64,
    posted: &mut u64,
) {
    while fabric.host_mut(h).transport.poll_completion().is_some() {}
    while fabric.host(h).transport.outstanding() < BACKLOG {
        let off = (*posted * MSG as u64) % buf;
        let wr = WorkRequest::Write {
            id: WrId(*posted),
            conn,
            stream: StreamId(0),
            local: Iova(SRC_BASE.0 + off),
            len: MSG,
            remote: Iova(remote_base.0 + off),
            rkey,
            imm: None,
        };
        fabric.host_mut(h).transport.post(wr).expect("valid benchmark work request");
        *posted += 1;
    }
    fabric.kick(h);
}

/// Goodput of one transport at one loss rate, as a fraction of line rate:
/// payload bytes placed at the receiver per unit time after the warm-up.
pub fn goodput(kind: Kind, mtu: u32, loss: f64, seed: u64, d: Durations) -> Result<f64> {
    goodput_on(sweep_net(kind, mtu, loss, seed), d)
}

/// The fabric of the loss sweep: [`NetConfig::new`] with `mtu`, i.i.d.
/// `loss` and `seed`.
pub fn sweep_net(kind: Kind, mtu: u32, loss: f64, seed: u64) -> NetConfig {
    let mut net = NetConfig::new(kind);
    net.mtu = mtu;
    net.loss = if loss > 0.0 { Loss::Iid(loss) } else { Loss::None };
    net.seed = seed;
    net
}

/// Goodput of the transport `net.kind` on the fabric `net`, as a fraction of
/// its line rate.
pub fn goodput_on(net: NetConfig, d: Durations) -> Result<f64> {
    let buf = 4 * MSG as u64 * BACKLOG as u64;
    let mut pair = Pair::new(net, buf as usize)?;
    let (s, r) = (pair.sender, pair.receiver);
    let mut posted = 0;
    let tick = net.rtt;
    let mut start_bytes = None;
    while pair.fabric.now() < d.warmup + d.measure {
        top_up(&mut pair.fabric, s, CONN, DST_RKEY, DST_BASE, buf, &mut posted);
        let next = pair.fabric.now() + tick;
        pair.fabric.run_until(next);
        if start_bytes.is_none() && pair.fabric.now() >= d.warmup {
            start_bytes = Some((pair.fabric.now(), pair.fabric.host(r).transport.stats().bytes_placed));
        }
    }
    let (t0, b0) = start_bytes.expect("warm-up ends before the run");
    let (t1, b1) = (pair.fabric.now(), pair.fabric.host(r).transport.stats().bytes_placed);
    let secs = (t1 - t0) as f64 * 1e-12;
    Ok((b1 - b0) as f64 * 8.0 / secs / (net.rate_mbps as f64 * 1e6))
}

/// The loss sweep for `mtus` x `losses`.
pub fn loss_sweep(
    mtus: &[u32],
    losses: &[f64],
    d: Durations,
    mut progress: impl FnMut(&LossPoint),
) -> Result<Vec<LossPoint>> {
    let mut out = Vec::new();
    for &mtu in mtus {
        for &loss in losses {
            let p = LossPoint {
                mtu,
                loss,
                ferroce_goodput: goodput(Kind::Ferroce, mtu, loss, 42, d)?,
                gbn_goodput: goodput(Kind::Gbn, mtu, loss, 42, d)?,
                ideal: payload_efficiency(mtu as usize) * (1.0 - loss),
            };
            progress(&p);
            out.push(p);
        }
    }
    Ok(out)
}

/// 16 paths over 16 spines whose delays differ by `skew`, no loss: every
/// retransmission is spurious.
pub fn reorder(skew: f64, d: Durations) -> Result<Reorder> {
    let mut net = NetConfig::new(Kind::Ferroce);
    net.paths = 16;
    net.spines = 16;
    net.spine_delay_skew = skew;
    let buf = 4 * MSG as u64 * BACKLOG as u64;
    let mut pair = Pair::new(net, buf as usize)?;
    let s = pair.sender;
    let mut posted = 0;
    while pair.fabric.now() < d.warmup + d.measure {
        top_up(&mut pair.fabric, s, CONN, DST_RKEY, DST_BASE, buf, &mut posted);
        let next = pair.fabric.now() + net.rtt;
        pair.fabric.run_until(next);
    }
    let st = pair.fabric.host(s).transport.stats();
    let fab = pair.fabric.total_stats();
    if fab.lost + fab.tail_drops + fab.blackholed > 0 {
        return Err(crate::Error::Scenario("the reorder fabric lost frames".into()));
    }
    Ok(Reorder {
        paths: net.paths,
        skew,
        spurious_retx_ratio: st.tx_retx as f64 / st.tx_data.max(1) as f64,
        data_packets: st.tx_data,
    })
}

/// Jain's fairness index of `x`.
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let q: f64 = x.iter().map(|v| v * v).sum();
    if q == 0.0 {
        0.0
    } else {
        s * s / (x.len() as f64 * q)
    }
}

/// How the senders of an incast start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// At the share the receiver hands out at connection setup (line rate
    /// over its established connections), as if the connections had just
    /// been set up for this incast.
    SetupShare,
    /// At line rate: the connections were set up earlier and left idle, so
    /// nothing current is known about the receiver.
    Cold,
}

/// The incast's fabric: host 0 receives from hosts n..2n (one connection
/// each, its own region slice) and has `idle` connections more.
fn incast_fabric(
    net: &NetConfig,
    n: usize,
    idle: usize,
    start: Start,
    slice: u64,
) -> Result<Fabric<crate::scenario::AnyTransport>> {
    let rx = 0usize;
    let senders: Vec<usize> = (n..2 * n).collect();
    let mut fabric: Fabric<crate::scenario::AnyTransport> = Fabric::leaf_spine(net.topology(2, n));
    let (rx_mac, rx_ip) = fabric.host_addr(rx);
    let mut recv = net.endpoint(rx_mac, rx_ip, 0)?;
    for (k, &h) in senders.iter().enumerate() {
        let (_, ip) = fabric.host_addr(h);
        let id = ConnId(k as u16 + 1);
        recv.connect(ConnConfig {
            id,
            remote_id: CONN,
            peer_mac: fabric.gateway_mac(rx),
            peer_ip: ip,
            paths: net.paths,
            streams: 1,
            initial_rate_mbps: None,
        })?;
        recv.register_mr(MemoryRegion {
            rkey: Rkey(k as u32 + 1),
            base: Iova(DST_BASE.0 + k as u64 * slice),
            len: slice,
            access: Access { remote_write: true },
            conn: id,
        })?;
    }
    for k in 0..idle {
        recv.connect(ConnConfig {
            id: ConnId((n + k) as u16 + 1),
            remote_id: CONN,
            peer_mac: [0x02, 0xee, 0, 0, 0, 0],
            peer_ip: [10, 255, (k >> 8) as u8, k as u8],
            paths: net.paths,
            streams: 1,
            initial_rate_mbps: None,
        })?;
    }
    let share = recv.ferroce().expect("ferroce").setup_rate_hint();
    let mut mem = Memory::default();
    mem.add_region("dst", DST_BASE, (slice * n as u64) as usize, true);
    fabric.attach(rx, recv, mem);
    for (k, &h) in senders.iter().enumerate() {
        let (mac, ip) = fabric.host_addr(h);
        let mut t = net.endpoint(mac, ip, h as u64)?;
        t.connect(ConnConfig {
            id: CONN,
            remote_id: ConnId(k as u16 + 1),
            peer_mac: fabric.gateway_mac(h),
            peer_ip: rx_ip,
            paths: net.paths,
            streams: 1,
            initial_rate_mbps: (start == Start::SetupShare).then_some(share),
        })?;
        let mut mem = Memory::default();
        mem.add_region("src", SRC_BASE, slice as usize, false);
        fabric.attach(h, t, mem);
    }
    Ok(fabric)
}

/// N senders (one leaf) into one receiver (another leaf), each backlogged.
///
/// * `rtts_to_fair`: base RTTs from the start until every sender's pacing
///   rate stays within 10 % of line/N for the rest of the run (sampled every
///   quarter RTT);
/// * `jain`: Jain's index of the bytes each connection placed at the
///   receiver after that point;
/// * `peak_queue_bdp`: the deepest switch queue of the run in BDPs.
///
/// The receiver also has `idle` established connections that never send, so
/// the share handed out at setup (line / established) is below the fair
/// share and the senders must find it from the ACKs' rate hints; senders
/// that start [`Start::Cold`] begin at line rate instead.
pub fn incast(n: usize, idle: usize, start: Start, d: Durations) -> Result<Incast> {
    let net = NetConfig::new(Kind::Ferroce);
    let slice = 4 * MSG as u64;
    let rx = 0usize;
    let senders: Vec<usize> = (n..2 * n).collect();
    let mut fabric = incast_fabric(&net, n, idle, start, slice)?;
    let fair = net.rate_mbps as f64 / n as f64;
    let tick = net.rtt / 4;
    let mut posted = vec![0u64; n];
    let mut last_unfair: Time = 0;
    let mut fair_bytes: Option<Vec<u64>> = None;
    let end = d.warmup + d.measure;
    while fabric.now() < end {
        for (k, &h) in senders.iter().enumerate() {
            top_up(
                &mut fabric,
                h,
                CONN,
                Rkey(k as u32 + 1),
                Iova(DST_BASE.0 + k as u64 * slice),
                slice,
                &mut posted[k],
            );
        }
        let next = fabric.now() + tick;
        fabric.run_until(next);
        let unfair = senders.iter().any(|&h| {
            let r = fabric.host(h).transport.ferroce().and_then(|e| e.conn_rate_mbps(CONN)).unwrap_or(0) as f64;
            (r - fair).abs() > 0.1 * fair
        });
        if unfair {
            last_unfair = fabric.now();
            fair_bytes = None;
        } else if fair_bytes.is_none() {
            let e = fabric.host(rx).transport.ferroce().expect("ferroce");
            fair_bytes = Some((0..n).map(|k| e.conn_bytes_placed(ConnId(k as u16 + 1))).collect());
        }
    }
    let e = fabric.host(rx).transport.ferroce().expect("ferroce");
    let now_bytes: Vec<u64> = (0..n).map(|k| e.conn_bytes_placed(ConnId(k as u16 + 1))).collect();
    let base = fair_bytes.unwrap_or_else(|| vec![0; n]);
    let delivered: Vec<f64> = now_bytes.iter().zip(&base).map(|(a, b)| (a - b) as f64).collect();
    let secs = (fabric.now() - last_unfair) as f64 * 1e-12;
    let aggregate = delivered.iter().sum::<f64>() * 8.0 / secs / (net.rate_mbps as f64 * 1e6);
    Ok(Incast {
        n,
        rtts_to_fair: last_unfair as f64 / net.rtt as f64,
        jain: jain(&delivered),
        peak_queue_bdp: fabric.total_stats().peak_queue_bytes as f64 / net.bdp_bytes(),
        aggregate_goodput: aggregate,
    })
}
