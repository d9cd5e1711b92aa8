//! `cargo xtask bench-scale`: ferroce against the deployed-RoCE and IRN
//! baselines with many hosts: collectives under loss, cold incast, and
//! what the simulation costs. Writes docs/bench/scale.md, its plots and
//! optionally JSON.

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::Context;
use ferroce_proto::types::us;
use ferroce_proto::Time;
use ferroce_sim::scale::{self, Cluster, IncastReport, JobReport, LossModel, Pattern, Transfer};
use ferroce_sim::scenario::NetConfig;
use serde_json::json;

use crate::bench_model::parallel;

/// Output queue of a switch port on the lossy fabrics: 4 MiB, about 32
/// bandwidth-delay products of the 100 Gb/s, 10 us fabric (a deep-buffer
/// port's dynamic share).
const SWITCH_QUEUE_BYTES: usize = 4 << 20;

/// A transport in the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// ferroce spraying over this many paths, with every loss-recovery and
    /// start-up change of `Recovery::v1`.
    Ferroce(u8),
    /// ferroce over this many paths with the first protocol version
    /// (`Recovery::v0`, the registers' reset values).
    FerroceV0(u8),
    /// IRN-style: selective repeat on one ECMP path, in flight capped at one
    /// BDP.
    Irn,
    /// RoCEv2 RC as deployed: go-back-N on one ECMP path with DCQCN, over a
    /// lossless (PFC) fabric or not.
    RoceDcqcn { pfc: bool },
    /// The least time any transport could take (computed, not simulated).
    Ideal,
    /// The least time a transport that repairs losses by retransmission
    /// could take, losses drawn i.i.d. at the model's mean (computed:
    /// `scale::arq_bound`).
    ArqBound,
}

impl Transport {
    pub fn label(&self) -> String {
        match self {
            Transport::Ferroce(p) => format!("ferroce_{p}p"),
            Transport::FerroceV0(p) => format!("ferroce_{p}p_v0"),
            Transport::Irn => "irn".into(),
            Transport::RoceDcqcn { pfc: false } => "rocev2_gbn_dcqcn".into(),
            Transport::RoceDcqcn { pfc: true } => "rocev2_gbn_dcqcn_pfc".into(),
            Transport::Ideal => "ideal".into(),
            Transport::ArqBound => "arq_bound".into(),
        }
    }

    /// Whether the rows are computed rather than simulated (the ideal and
    /// the retransmission bound).
    fn is_computed(&self) -> bool {
        matches!(self, Transport::Ideal | Transport::ArqBound)
    }

    /// The fabric and transport settings of this transport, or `None` for
    /// the computed rows.
    fn net(&self, seed: u64) -> Option<NetConfig> {
        let mut net = match self {
            Transport::Ferroce(paths) | Transport::FerroceV0(paths) => {
                let mut n = NetConfig::new(ferroce_sim::scenario::Kind::Ferroce);
                n.paths = *paths;
                n.recovery = match self {
                    Transport::Ferroce(_) => ferroce_proto::model::Recovery::v1(),
                    _ => ferroce_proto::model::Recovery::v0(),
                };
                n
            }
            Transport::Irn => NetConfig::irn(),
            Transport::RoceDcqcn { .. } => NetConfig::rocev2(),
            Transport::Ideal | Transport::ArqBound => return None,
        };
        // Lossy Ethernet has switch buffers that overflow; a PFC fabric
        // pauses the sender instead, modelled as buffers that never do.
        if *self != (Transport::RoceDcqcn { pfc: true }) {
            net.queue_bytes = SWITCH_QUEUE_BYTES;
        }
        net.seed = seed;
        Some(net)
    }
}

/// What a run of `bench-scale` covers.
#[derive(Debug, Clone)]
struct Plan {
    seeds: u64,
    transports: Vec<Transport>,
    /// (pattern, hosts, message bytes).
    jobs: Vec<(Pattern, usize, u32)>,
    losses: Vec<LossModel>,
    incast: Vec<usize>,
    incast_time: Time,
    /// Connections per host of the cost runs, and the bytes each sends.
    cost: Vec<(usize, u32)>,
}

/// Loss models with their place in the table; `SpineFails` gets its time
/// from the loss-free run.
fn losses(quick: bool) -> Vec<LossModel> {
    let mut l = vec![LossModel::None, LossModel::Iid(0.01), LossModel::Bursty { mean: 0.01, burst: 100.0 }];
    if !quick {
        l.extend([
            LossModel::Iid(0.001),
            LossModel::Iid(0.1),
            LossModel::Bursty { mean: 0.01, burst: 10.0 },
            LossModel::LossySpine(0.05),
            LossModel::SpineFails { at: 0 },
        ]);
    } else {
        l.push(LossModel::LossySpine(0.05));
    }
    l
}

impl Plan {
    fn new(quick: bool) -> Plan {
        let transports = vec![
            Transport::Ferroce(8),
            Transport::FerroceV0(8),
            Transport::Ferroce(4),
            Transport::Ferroce(2),
            Transport::Ferroce(1),
            Transport::Irn,
            Transport::RoceDcqcn { pfc: false },
            Transport::RoceDcqcn { pfc: true },
            Transport::Ideal,
            Transport::ArqBound,
        ];
        if quick {
            Plan {
                seeds: 2,
                transports,
                jobs: vec![
                    (Pattern::AllToAll, 32, 16 * 1024),
                    (Pattern::RingAllReduce, 32, 256 * 1024),
                    (Pattern::Permutation, 32, 64 * 1024),
                ],
                losses: losses(true),
                incast: vec![8, 32],
                incast_time: us(600),
                cost: vec![(1, 256 * 1024), (8, 32 * 1024), (63, 4 * 1024)],
            }
        } else {
            let mut jobs = Vec::new();
            for hosts in [16, 64] {
                for msg in [64 * 1024, 256 * 1024, 1024 * 1024] {
                    jobs.push((Pattern::AllToAll, hosts, msg));
                    jobs.push((Pattern::RingAllReduce, hosts, msg));
                }
                jobs.push((Pattern::Permutation, hosts, 1024 * 1024));
            }
            Plan {
                seeds: 5,
                transports,
                jobs,
                losses: losses(false),
                incast: vec![8, 32, 64, 128],
                incast_time: us(3_000),
                cost: vec![(1, 4 << 20), (8, 512 * 1024), (63, 64 * 1024)],
            }
        }
    }
}

/// One collective run, as the JSON has it.
#[derive(Debug, Clone, PartialEq)]
pub struct Collective {
    pub pattern: Pattern,
    pub hosts: usize,
    pub msg_bytes: u32,
    pub loss_model: String,
    pub transport: String,
    pub seed: u64,
    pub finished: bool,
    pub jct_over_lossfree: f64,
    pub jct_over_ideal: f64,
    pub p99_host_finish_us: f64,
    pub losses: u64,
    pub losses_recovered_without_rto: f64,
    pub spurious_retx_ratio: f64,
    pub rtos: u64,
}

/// The 99th percentile (nearest rank) of `x`.
fn p99(x: &[Time]) -> Time {
    let mut v = x.to_vec();
    v.sort_unstable();
    v[((v.len() as f64 * 0.99).ceil() as usize).clamp(1, v.len()) - 1]
}

fn collective_row(
    (pattern, hosts, msg): (Pattern, usize, u32),
    loss: &LossModel,
    t: Transport,
    seed: u64,
    r: &JobReport,
    lossfree: Time,
    ideal: Time,
) -> Collective {
    let lost = r.data_lost();
    let by_ack = r.stats.lost_found_by_ack;
    Collective {
        pattern,
        hosts,
        msg_bytes: msg,
        loss_model: loss.label(),
        transport: t.label(),
        seed,
        finished: r.finished,
        jct_over_lossfree: r.jct as f64 / lossfree as f64,
        jct_over_ideal: r.jct as f64 / ideal as f64,
        p99_host_finish_us: p99(&r.host_finish) as f64 / 1e6,
        losses: lost,
        losses_recovered_without_rto: if lost == 0 { 1.0 } else { by_ack.min(lost) as f64 / lost as f64 },
        spurious_retx_ratio: r.stats.rx_dup_retx as f64 / r.stats.tx_data.max(1) as f64,
        rtos: r.stats.rtos,
    }
}

/// A deadline no sane run reaches: 200 times the ideal, at least 20 ms.
fn deadline(ideal: Time) -> Time {
    (200 * ideal).max(us(20_000))
}

/// Every loss model of one (job, transport, seed), the loss-free run first
/// (the others are measured against it).
fn collective_group(
    job: (Pattern, usize, u32),
    t: Transport,
    seed: u64,
    losses: &[LossModel],
) -> anyhow::Result<Vec<Collective>> {
    let (pattern, hosts, msg) = job;
    let transfers: Vec<Transfer> = pattern.transfers(hosts, msg, seed);
    let clean_net = NetConfig::new(ferroce_sim::scenario::Kind::Ferroce);
    let mut out = Vec::new();
    let Some(net) = t.net(seed) else {
        for loss in losses {
            let ideal = scale::ideal(&clean_net, &transfers, loss.mean());
            let lossfree = scale::ideal(&clean_net, &transfers, 0.0);
            let jct = match t {
                Transport::ArqBound => scale::arq_bound(&clean_net, &transfers, loss.mean(), seed),
                _ => ideal,
            };
            let r = JobReport::ideal(jct, hosts);
            out.push(collective_row(job, loss, t, seed, &r, lossfree, ideal));
        }
        return Ok(out);
    };
    let mut lossfree = None;
    for loss in losses {
        let ideal = scale::ideal(&net, &transfers, loss.mean());
        let loss = match (loss, lossfree) {
            (LossModel::SpineFails { .. }, Some(clean)) => LossModel::SpineFails { at: clean / 2 },
            (l, _) => *l,
        };
        let mut c = Cluster::for_job(&net, hosts, loss, &transfers)?;
        let r = c.run(&transfers, deadline(ideal))?;
        let clean = *lossfree.get_or_insert(r.jct);
        out.push(collective_row(job, &loss, t, seed, &r, clean, ideal));
    }
    Ok(out)
}

/// Wall seconds per million packets the hosts sent, at `conns` connections
/// per host on 64 hosts (each writing `bytes` to its next `conns` hosts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimCost {
    pub conns_per_host: usize,
    pub packets: u64,
    pub events: u64,
    pub wall_s_per_mpkt: f64,
}

fn sim_cost(conns: usize, bytes: u32) -> anyhow::Result<SimCost> {
    let hosts = 64;
    let transfers: Vec<Transfer> = (0..hosts)
        .flat_map(|from| (1..=conns).map(move |k| Transfer { from, to: (from + k) % hosts, bytes, after: None }))
        .collect();
    let net = NetConfig::new(ferroce_sim::scenario::Kind::Ferroce);
    let mut c = Cluster::for_job(&net, hosts, LossModel::None, &transfers)?;
    let started = Instant::now();
    let r = c.run(&transfers, us(1_000_000))?;
    let wall = started.elapsed().as_secs_f64();
    anyhow::ensure!(r.finished, "the cost run of {conns} connections per host did not finish");
    let packets = r.frames_sent();
    Ok(SimCost { conns_per_host: conns, packets, events: r.events, wall_s_per_mpkt: wall / (packets as f64 / 1e6) })
}

pub fn run(quick: bool, json_path: Option<String>) -> anyhow::Result<()> {
    let plan = Plan::new(quick);
    let started = Instant::now();
    let simulated: Vec<Transport> =
        plan.transports.iter().copied().filter(|t| !t.is_computed()).collect();
    eprintln!(
        "bench-scale ({} mode): {} collective jobs x {} loss models x {} transports x {} seeds, incast {:?}",
        if quick { "quick" } else { "full" },
        plan.jobs.len(),
        plan.losses.len(),
        plan.transports.len(),
        plan.seeds,
        plan.incast
    );
    let collectives = run_collectives(&plan, started)?;

    let incast_jobs: Vec<(usize, Transport)> =
        plan.incast.iter().flat_map(|&n| simulated.iter().map(move |&t| (n, t))).collect();
    let incast: Vec<(Transport, IncastReport)> = parallel(incast_jobs, |(n, t)| {
        let net = t.net(1).expect("a simulated transport");
        let r = scale::cold_incast(&net, n, plan.incast_time)?;
        eprintln!(
            "  [{:>6.1}s] incast {n:>3} {}: fair after {:?} RTTs (last first hint {:?}), queue < 1 BDP after {:?} RTTs, \
             peak {:.1} BDP",
            started.elapsed().as_secs_f64(),
            t.label(),
            r.rtts_to_fair_delivered,
            r.rtts_to_last_first_hint,
            r.rtts_to_queue_below_1bdp,
            r.peak_queue_bdp
        );
        Ok((t, r))
    })?;

    // Alone, so that nothing shares the core with what it times.
    let mut cost = Vec::new();
    for &(conns, bytes) in &plan.cost {
        let c = sim_cost(conns, bytes)?;
        eprintln!(
            "  [{:>6.1}s] sim cost at {conns} connections per host: {:.2} s per million packets",
            started.elapsed().as_secs_f64(),
            c.wall_s_per_mpkt
        );
        cost.push(c);
    }

    let doc = results_json(&collectives, &incast, &cost);
    if let Some(p) = &json_path {
        std::fs::write(p, serde_json::to_string_pretty(&doc)? + "\n").with_context(|| format!("writing {p}"))?;
        eprintln!("wrote {p}");
    }
    let dir = crate::root().join("docs/bench");
    std::fs::create_dir_all(&dir)?;
    let plots = plots(&collectives, &dir)?;
    let (md, misses) = markdown(&plan, &collectives, &incast, &cost, &plots, quick, started.elapsed().as_secs_f64());
    std::fs::write(dir.join("scale.md"), md)?;
    eprintln!("wrote docs/bench/scale.md in {:.1}s", started.elapsed().as_secs_f64());
    for m in &misses {
        eprintln!("target missed: {m}");
    }
    Ok(())
}

/// Every collective run of `plan` (each job, transport and seed, with all
/// of the plan's loss models), on both cores, with progress on stderr.
fn run_collectives(plan: &Plan, started: Instant) -> anyhow::Result<Vec<Collective>> {
    // Biggest jobs first, so that the two workers finish together.
    let mut groups = Vec::new();
    for &job in &plan.jobs {
        for &t in &plan.transports {
            for seed in 1..=plan.seeds {
                groups.push((job, t, seed));
            }
        }
    }
    groups.sort_by_key(|(j, t, _)| (!t.is_computed(), j.1 as u64 * j.2 as u64));
    let collectives: Vec<Vec<Collective>> = parallel(groups, |(job, t, seed)| {
        let rows = collective_group(job, t, seed, &plan.losses)?;
        eprintln!(
            "  [{:>6.1}s] {} {} hosts {} KiB {} seed {seed}: JCT/loss-free {}",
            started.elapsed().as_secs_f64(),
            job.0.label(),
            job.1,
            job.2 / 1024,
            t.label(),
            rows.iter().map(|r| format!("{:.2}", r.jct_over_lossfree)).collect::<Vec<_>>().join(" ")
        );
        Ok(rows)
    })?;
    let collectives: Vec<Collective> = collectives.into_iter().flatten().collect();
    Ok(collectives)
}

/// A point of `--only`: `PATTERN:HOSTS:KIB`.
pub fn parse_point(spec: &str) -> anyhow::Result<(Pattern, usize, u32)> {
    let patterns = [Pattern::AllToAll, Pattern::RingAllReduce, Pattern::Permutation];
    let parts: Vec<&str> = spec.split(':').collect();
    anyhow::ensure!(
        parts.len() == 3,
        "--only {spec:?}: expected PATTERN:HOSTS:KIB, for instance all_to_all:64:64"
    );
    let pattern = patterns.into_iter().find(|p| p.label() == parts[0]).with_context(|| {
        format!(
            "--only {spec:?}: no pattern {:?} (there are {})",
            parts[0],
            patterns.map(|p| p.label()).join(", ")
        )
    })?;
    let hosts: usize = parts[1].parse().with_context(|| format!("--only {spec:?}: hosts {:?}", parts[1]))?;
    anyhow::ensure!(hosts >= 2, "--only {spec:?}: a job needs at least 2 hosts");
    let kib: u32 = parts[2].parse().with_context(|| format!("--only {spec:?}: KiB {:?}", parts[2]))?;
    anyhow::ensure!((1..=1 << 20).contains(&kib), "--only {spec:?}: messages of 1 KiB to 1 GiB");
    Ok((pattern, hosts, kib * 1024))
}

/// `bench-scale --only`: the named collectives with every loss model of
/// the full run, the chosen transports (all when none) and `seeds` seeds;
/// prints their table and the targets they bear on, and writes JSON if
/// asked. docs/bench/scale.md is left alone.
pub fn run_points(
    points: &[String],
    transports: &[String],
    seeds: u64,
    json_path: Option<String>,
) -> anyhow::Result<()> {
    let full = Plan::new(false);
    let jobs = points.iter().map(|p| parse_point(p)).collect::<anyhow::Result<Vec<_>>>()?;
    let labels: Vec<String> = full.transports.iter().map(|t| t.label()).collect();
    for t in transports {
        anyhow::ensure!(labels.contains(t), "--transport {t:?}: not one of {}", labels.join(", "));
    }
    anyhow::ensure!(seeds >= 1, "--seeds: at least one");
    let chosen = full.transports.iter().copied().filter(|t| transports.is_empty() || transports.contains(&t.label()));
    let plan = Plan { seeds, transports: chosen.collect(), jobs, incast: vec![], cost: vec![], ..full };
    let started = Instant::now();
    eprintln!(
        "bench-scale --only: {} jobs x {} loss models x {} transports x {seeds} seeds",
        plan.jobs.len(),
        plan.losses.len(),
        plan.transports.len()
    );
    let collectives = run_collectives(&plan, started)?;
    let mut s = String::new();
    collectives_table(&mut s, &plan, &collectives);
    let (met, missed) = targets(&collectives, &[]);
    crate::bench_model::write_targets(&mut s, &met, &missed);
    print!("{s}");
    if let Some(p) = &json_path {
        let doc = results_json(&collectives, &[], &[]);
        std::fs::write(p, serde_json::to_string_pretty(&doc)? + "\n").with_context(|| format!("writing {p}"))?;
        eprintln!("wrote {p}");
    }
    Ok(())
}

/// The JSON document: the keys the benchmark definition names, plus each
/// run's seed and whether it finished.
pub fn results_json(
    collectives: &[Collective],
    incast: &[(Transport, IncastReport)],
    cost: &[SimCost],
) -> serde_json::Value {
    json!({
        "collectives": collectives.iter().map(|c| json!({
            "pattern": c.pattern.label(), "hosts": c.hosts, "msg_bytes": c.msg_bytes,
            "loss_model": c.loss_model, "transport": c.transport, "seed": c.seed, "finished": c.finished,
            "jct_over_lossfree": c.jct_over_lossfree, "jct_over_ideal": c.jct_over_ideal,
            "p99_host_finish_us": c.p99_host_finish_us, "losses": c.losses,
            "losses_recovered_without_rto": c.losses_recovered_without_rto,
            "spurious_retx_ratio": c.spurious_retx_ratio, "rtos": c.rtos,
        })).collect::<Vec<_>>(),
        "incast": incast.iter().map(|(t, r)| json!({
            "n": r.n, "transport": t.label(), "rtts_to_fair_delivered": r.rtts_to_fair_delivered,
            "rtts_to_queue_below_1bdp": r.rtts_to_queue_below_1bdp, "peak_queue_bdp": r.peak_queue_bdp,
            "rtts_to_last_first_hint": r.rtts_to_last_first_hint,
            "drops": r.drops, "rtos": r.rtos, "jain": r.jain,
        })).collect::<Vec<_>>(),
        "sim_cost": cost.iter().map(|c| json!({
            "conns_per_host": c.conns_per_host, "packets": c.packets, "events": c.events,
            "wall_s_per_mpkt": c.wall_s_per_mpkt,
        })).collect::<Vec<_>>(),
    })
}

/// Per pattern, the speed of each transport relative to the ideal against
/// i.i.d. loss, for each host count at its largest message; returns the
/// plots' stems.
fn plots(c: &[Collective], dir: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let mut stems = Vec::new();
    for pattern in [Pattern::AllToAll, Pattern::RingAllReduce] {
        let mut hosts: Vec<usize> = c.iter().filter(|r| r.pattern == pattern).map(|r| r.hosts).collect();
        hosts.sort_unstable();
        hosts.dedup();
        let mut points = Vec::new();
        for &h in &hosts {
            let Some(msg) = c.iter().filter(|r| r.pattern == pattern && r.hosts == h).map(|r| r.msg_bytes).max() else {
                continue;
            };
            for loss in [LossModel::None, LossModel::Iid(0.001), LossModel::Iid(0.01), LossModel::Iid(0.1)] {
                let mut speed = [f64::NAN; crate::plot::SCALE_N];
                for (i, (name, _)) in crate::plot::SCALE_SERIES.iter().enumerate() {
                    let v: Vec<f64> =
                        point(c, pattern, h, msg, &loss.label(), name).iter().map(|r| 1.0 / r.jct_over_ideal).collect();
                    if !v.is_empty() {
                        speed[i] = spread(&v).0;
                    }
                }
                if speed.iter().any(|s| !s.is_nan()) {
                    points.push(crate::plot::ScalePoint { loss: loss.mean(), hosts: h as u32, speed });
                }
            }
        }
        if !points.is_empty() {
            let stem = format!("scale-{}", pattern.label().replace('_', "-"));
            crate::plot::scale(&points, dir, &stem)?;
            stems.push(stem);
        }
    }
    Ok(stems)
}

/// Median, minimum and maximum of `x` (not empty).
fn spread(x: &[f64]) -> (f64, f64, f64) {
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

/// The runs of one point (all seeds).
fn point<'a>(
    c: &'a [Collective],
    pattern: Pattern,
    hosts: usize,
    msg: u32,
    loss: &str,
    transport: &str,
) -> Vec<&'a Collective> {
    c.iter()
        .filter(|r| {
            r.pattern == pattern
                && r.hosts == hosts
                && r.msg_bytes == msg
                && r.loss_model == loss
                && r.transport == transport
        })
        .collect()
}

/// Base RTTs to drain the first windows of `n` cold senders of
/// `ferroce_8p` at line rate: `n` start windows of full frames with the
/// connection window; without it (v0) nothing bounds the first window, and
/// it is taken as one RTT.
fn first_window_rtts(n: usize) -> f64 {
    let net = Transport::Ferroce(8).net(1).expect("simulated");
    if !net.recovery.conn_window {
        return 1.0;
    }
    let frame =
        (net.mtu as usize + ferroce_proto::wire::DATA_FRAME_OVERHEAD + ferroce_proto::wire::WIRE_OVERHEAD) as f64;
    n as f64 * net.recovery.start_window as f64 * frame / net.bdp_bytes()
}

/// The targets that this benchmark measures; returns (met, missed).
pub fn targets(c: &[Collective], incast: &[(Transport, IncastReport)]) -> (Vec<String>, Vec<String>) {
    let mut met = Vec::new();
    let mut missed = Vec::new();
    let mut check = |ok: bool, what: String| if ok { met.push(what) } else { missed.push(what) };
    let hosts = c.iter().map(|r| r.hosts).max().unwrap_or(0);
    let median = |rows: &[&Collective], f: fn(&Collective) -> f64| {
        let v: Vec<f64> = rows.iter().map(|r| f(r)).collect();
        (!v.is_empty()).then(|| spread(&v).0)
    };
    let ferroce = Transport::Ferroce(8).label();
    let largest = |p: Pattern| c.iter().filter(|r| r.pattern == p && r.hosts == hosts).map(|r| r.msg_bytes).max();
    for (p, name) in [(Pattern::AllToAll, "all-to-all"), (Pattern::RingAllReduce, "ring all-reduce")] {
        let Some(msg) = largest(p) else { continue };
        for (loss, bound) in [("iid_0.01", 1.10), ("iid_0.1", 1.5)] {
            if let Some(m) = median(&point(c, p, hosts, msg, loss, &ferroce), |r| r.jct_over_lossfree) {
                // What no retransmission scheme could beat, beside it.
                let arq = median(&point(c, p, hosts, msg, loss, &Transport::ArqBound.label()), |r| r.jct_over_lossfree)
                    .map_or(String::new(), |a| format!("; any transport that resends: >= {a:.2} x"));
                check(
                    m <= bound,
                    format!(
                        "{hosts}-host {name} ({} KiB) at {loss}: JCT {m:.2} x loss-free (<= {bound}){arq}",
                        msg / 1024
                    ),
                );
            }
        }
    }
    for pattern in [Pattern::AllToAll, Pattern::RingAllReduce, Pattern::Permutation] {
        let rows: Vec<&Collective> =
            c.iter().filter(|r| r.pattern == pattern && r.loss_model == "iid_0.01" && r.transport == ferroce).collect();
        if let Some(m) = median(&rows, |r| r.losses_recovered_without_rto) {
            check(
                m >= 0.95,
                format!("{} at 1 %: {:.1} % of losses recovered without an RTO (>= 95 %)", pattern.label(), 100.0 * m),
            );
        }
    }
    if let Some(msg) = largest(Pattern::AllToAll) {
        let jct = |t: &str, loss: &str| median(&point(c, Pattern::AllToAll, hosts, msg, loss, t), |r| r.jct_over_ideal);
        if let (Some(f), Some(g)) =
            (jct(&ferroce, "iid_0.01"), jct(&Transport::RoceDcqcn { pfc: false }.label(), "iid_0.01"))
        {
            check(
                g / f >= 2.0,
                format!("{hosts}-host all-to-all at 1 %: deployed RoCEv2 / ferroce JCT = {:.2} (>= 2)", g / f),
            );
        }
        if let Some(b) =
            median(&point(c, Pattern::AllToAll, hosts, msg, "bursty_0.01_b100", &ferroce), |r| r.jct_over_ideal)
        {
            check(1.0 / b >= 0.95, format!("bursts of 100 at 1 %: ferroce at {:.2} of ideal (>= 0.95)", 1.0 / b));
        }
        if let Some(s) =
            median(&point(c, Pattern::AllToAll, hosts, msg, "spine_0.05", &ferroce), |r| r.jct_over_lossfree)
        {
            check(s <= 1.10, format!("one 5 % spine: all-to-all JCT {s:.2} x clean (<= 1.10)"));
        }
    }
    for (t, r) in incast.iter().filter(|(t, r)| *t == Transport::Ferroce(8) && r.n <= 64) {
        let _ = t;
        let fair = r.rtts_to_fair_delivered.map_or("never".into(), |x| format!("{x:.1}"));
        let queue = r.rtts_to_queue_below_1bdp.map_or("never".into(), |x| format!("{x:.1}"));
        // Within 2 RTTs of each sender's first ACK with a hint: every sender
        // fair from 2 RTTs after the last of those (one RTT after the start
        // if a sender never had one).
        let hint = r.rtts_to_last_first_hint.unwrap_or(1.0);
        check(
            r.rtts_to_fair_delivered.is_some_and(|x| x <= hint + 2.0) && r.rtos == 0,
            format!(
                "cold incast {}: fair after {fair} RTTs (the last sender's first hinted ACK {hint:.1} + 2), {} RTOs",
                r.n, r.rtos
            ),
        );
        let bound = first_window_rtts(r.n) + 2.0;
        check(
            r.rtts_to_queue_below_1bdp.is_some_and(|x| x <= bound),
            format!("cold incast {}: queue below 1 BDP after {queue} RTTs (first window + 2 = {bound:.1})", r.n),
        );
    }
    (met, missed)
}

fn markdown(
    plan: &Plan,
    c: &[Collective],
    incast: &[(Transport, IncastReport)],
    cost: &[SimCost],
    plots: &[String],
    quick: bool,
    secs: f64,
) -> (String, Vec<String>) {
    let mut s = String::new();
    let _ = writeln!(s, "# Scale benchmark: ferroce against deployed RoCEv2 and IRN\n");
    let _ = writeln!(
        s,
        "Generated by `cargo xtask bench-scale{}` ({:.0} s on this machine, {} seeds per point). \
         See [the method](#method) for what each scenario does and each baseline is.\n",
        if quick { " --quick" } else { "" },
        secs,
        plan.seeds
    );
    for p in plots {
        let _ = writeln!(s, "![{p}]({p}.svg)\n");
    }
    let _ = writeln!(s, "## Collectives\n");
    let _ = writeln!(
        s,
        "JCT over the same transport's loss-free JCT (median of the seeds, min-max in brackets), \
         then over the ideal; `rto-free` is the share of lost data packets repaired without a \
         retransmission timeout (see the method).\n"
    );
    collectives_table(&mut s, plan, c);
    let _ = writeln!(s, "\n## Cold incast\n");
    let _ = writeln!(
        s,
        "| N | transport | RTTs to fair (delivered) | RTTs to the last sender's first hint | RTTs to queue < 1 BDP | peak queue (BDP) | drops | RTOs | Jain |\n|---|---|---|---|---|---|---|---|---|"
    );
    let opt = |x: Option<f64>| x.map_or("never".to_string(), |v| format!("{v:.1}"));
    for (t, r) in incast {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {:.1} | {} | {} | {:.4} |",
            r.n,
            t.label(),
            opt(r.rtts_to_fair_delivered),
            r.rtts_to_last_first_hint.map_or("–".to_string(), |v| format!("{v:.1}")),
            opt(r.rtts_to_queue_below_1bdp),
            r.peak_queue_bdp,
            r.drops,
            r.rtos,
            r.jain
        );
    }
    let _ = writeln!(s, "\n## Simulation cost\n");
    let _ = writeln!(
        s,
        "64 hosts, each writing to its next k hosts (k connections per host, 8 paths each), \
         ferroce, no loss; wall time of the simulation (not of setting the connections up) on this \
         machine, which is shared, so an upper bound.\n"
    );
    let _ = writeln!(s, "| connections per host | packets | events | wall s per million packets |\n|---|---|---|---|");
    for x in cost {
        let _ = writeln!(s, "| {} | {} | {} | {:.2} |", x.conns_per_host, x.packets, x.events, x.wall_s_per_mpkt);
    }
    let (met, missed) = targets(c, incast);
    crate::bench_model::write_targets(&mut s, &met, &missed);
    s.push_str(METHOD);
    (s, missed)
}

/// The collectives table: one row per (job, loss model, transport) of
/// the plan that has runs in `c`.
fn collectives_table(s: &mut String, plan: &Plan, c: &[Collective]) {
    let _ = writeln!(s, "| pattern | hosts | KiB | loss | transport | JCT / loss-free | JCT / ideal | p99 host finish (us) | losses | rto-free | spurious | RTOs |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for &(pattern, hosts, msg) in &plan.jobs {
        for loss in &plan.losses {
            for t in &plan.transports {
                let rows = point(c, pattern, hosts, msg, &loss.label(), &t.label());
                if rows.is_empty() {
                    continue;
                }
                let f = |g: fn(&Collective) -> f64| spread(&rows.iter().map(|r| g(r)).collect::<Vec<_>>());
                let (lf, lf0, lf1) = f(|r| r.jct_over_lossfree);
                let unfinished = rows.iter().filter(|r| !r.finished).count();
                let _ = writeln!(
                    s,
                    "| {} | {hosts} | {} | {} | {} | {lf:.2} ({lf0:.2}-{lf1:.2}){} | {:.2} | {:.0} | {:.0} | {:.3} | {:.4} | {:.0} |",
                    pattern.label(),
                    msg / 1024,
                    loss.label(),
                    t.label(),
                    if unfinished > 0 { format!(" **{unfinished} unfinished**") } else { String::new() },
                    f(|r| r.jct_over_ideal).0,
                    f(|r| r.p99_host_finish_us).0,
                    f(|r| r.losses as f64).0,
                    f(|r| r.losses_recovered_without_rto).0,
                    f(|r| r.spurious_retx_ratio).0,
                    f(|r| r.rtos as f64).0,
                );
            }
        }
    }
}

/// How the benchmark works and what the baselines are.
const METHOD: &str = include_str!("bench_scale_method.md");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench_model::keys;

    /// `--only` names a point as PATTERN:HOSTS:KIB and refuses anything
    /// else with the reason.
    #[test]
    fn points_are_parsed_and_bad_ones_refused() {
        assert_eq!(parse_point("all_to_all:64:64").unwrap(), (Pattern::AllToAll, 64, 64 * 1024));
        assert_eq!(parse_point("ring_allreduce:16:1024").unwrap(), (Pattern::RingAllReduce, 16, 1 << 20));
        assert_eq!(parse_point("permutation:2:1").unwrap(), (Pattern::Permutation, 2, 1024));
        for (bad, why) in [
            ("all_to_all:64", "expected PATTERN:HOSTS:KIB"),
            ("all_to_all:64:64:1", "expected PATTERN:HOSTS:KIB"),
            ("alltoall:64:64", "no pattern \"alltoall\" (there are all_to_all, ring_allreduce, permutation)"),
            ("all_to_all:1:64", "at least 2 hosts"),
            ("all_to_all:x:64", "hosts \"x\""),
            ("all_to_all:64:0", "1 KiB to 1 GiB"),
            ("all_to_all:64:-3", "KiB \"-3\""),
        ] {
            let e = format!("{:#}", parse_point(bad).unwrap_err());
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    /// The quick plan's smallest pieces, run for real: every key the
    /// definition names, with values from the simulation.
    #[test]
    fn a_small_run_gives_every_key_with_measured_values() {
        let job = (Pattern::AllToAll, 16, 8 * 1024);
        let losses = [LossModel::None, LossModel::Iid(0.05)];
        let rows = collective_group(job, Transport::Ferroce(8), 3, &losses).unwrap();
        assert_eq!(rows.len(), 2);
        assert!(rows.iter().all(|r| r.finished), "{rows:?}");
        assert_eq!(rows[0].jct_over_lossfree, 1.0, "the loss-free run is its own reference");
        assert!(rows[0].jct_over_ideal > 1.0, "no run beats the ideal: {}", rows[0].jct_over_ideal);
        assert_eq!((rows[0].losses, rows[0].rtos), (0, 0));
        assert!(rows[1].losses > 0, "5 % loss loses packets");
        let ideal = collective_group(job, Transport::Ideal, 3, &losses).unwrap();
        assert!((ideal[0].jct_over_ideal - 1.0).abs() < 1e-9);
        // The retransmission bound: the ideal without loss, above it with,
        // and below what the simulated transport took.
        let arq = collective_group(job, Transport::ArqBound, 3, &losses).unwrap();
        assert!((arq[0].jct_over_ideal - 1.0).abs() < 1e-9);
        assert!(arq[1].jct_over_ideal > 1.0 && arq[1].jct_over_ideal < rows[1].jct_over_ideal, "{arq:?} {rows:?}");
        let incast = scale::cold_incast(&Transport::Ferroce(8).net(1).unwrap(), 4, us(300)).unwrap();
        assert_eq!(incast.n, 4);
        assert!(incast.peak_queue_bdp > 0.0 && incast.jain > 0.5, "{incast:?}");
        let cost = SimCost { conns_per_host: 1, packets: 10, events: 80, wall_s_per_mpkt: 1.0 };
        let v = results_json(&rows, &[(Transport::Ferroce(8), incast)], &[cost]);
        assert_eq!(keys(&v), ["collectives", "incast", "sim_cost"]);
        assert_eq!(
            keys(&v["collectives"][0]),
            [
                "finished",
                "hosts",
                "jct_over_ideal",
                "jct_over_lossfree",
                "loss_model",
                "losses",
                "losses_recovered_without_rto",
                "msg_bytes",
                "p99_host_finish_us",
                "pattern",
                "rtos",
                "seed",
                "spurious_retx_ratio",
                "transport"
            ]
        );
        assert_eq!(
            keys(&v["incast"][0]),
            [
                "drops",
                "jain",
                "n",
                "peak_queue_bdp",
                "rtos",
                "rtts_to_fair_delivered",
                "rtts_to_last_first_hint",
                "rtts_to_queue_below_1bdp",
                "transport"
            ]
        );
        assert_eq!(keys(&v["sim_cost"][0]), ["conns_per_host", "events", "packets", "wall_s_per_mpkt"]);
        assert_eq!(v["collectives"][1]["loss_model"], "iid_0.05");
    }
}
