//! `cargo xtask bench-model`: ferroce and go-back-N side by side on the
//! fabric model. Writes docs/bench/model.md, docs/bench/model-goodput.svg and
//! optionally JSON.

use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::Context;
use ferroce_sim::bench::{self, Durations, Incast, LossPoint, Reorder, Start};
use serde_json::json;

const MTUS: [u32; 2] = [1024, 4096];
const LOSSES: [f64; 5] = [0.0, 0.001, 0.01, 0.05, 0.1];
const INCAST: [usize; 4] = [8, 16, 32, 64];

/// Run `jobs` on two threads (the machines have two cores), keeping order.
pub(crate) fn parallel<T: Send, R: Send>(
    jobs: Vec<T>,
    f: impl Fn(T) -> anyhow::Result<R> + Sync,
) -> anyhow::Result<Vec<R>> {
    let n = jobs.len();
    let queue = Mutex::new(jobs.into_iter().enumerate().collect::<Vec<_>>());
    let results = Mutex::new((0..n).map(|_| None).collect::<Vec<Option<anyhow::Result<R>>>>());
    let threads = std::thread::available_parallelism().map_or(2, |p| p.get()).min(2);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let job = queue.lock().expect("queue lock").pop();
                let Some((i, job)) = job else { break };
                let r = f(job);
                results.lock().expect("results lock")[i] = Some(r);
            });
        }
    });
    results.into_inner().expect("results lock").into_iter().map(|r| r.expect("every job ran")).collect()
}

pub fn run(quick: bool, json_path: Option<String>) -> anyhow::Result<()> {
    let d = Durations::new(quick);
    let started = Instant::now();
    eprintln!(
        "bench-model: {} runs of {} us simulated each ({} mode)",
        MTUS.len() * LOSSES.len() * 2 + 1 + 3 * INCAST.len(),
        (d.warmup + d.measure) / 1_000_000,
        if quick { "quick" } else { "full" }
    );

    let points: Vec<(u32, f64)> = MTUS.iter().flat_map(|&m| LOSSES.iter().map(move |&l| (m, l))).collect();
    let sweep: Vec<LossPoint> = parallel(points, |(mtu, loss)| {
        let p = bench::loss_sweep(&[mtu], &[loss], d, |_| {})?.remove(0);
        eprintln!(
            "  [{:>5.1}s] mtu {mtu:>4} loss {loss:<5}: ferroce {:.3}  gbn {:.3}  ideal {:.3}",
            started.elapsed().as_secs_f64(),
            p.ferroce_goodput,
            p.gbn_goodput,
            p.ideal
        );
        Ok(p)
    })?;
    let reorder = bench::reorder(4.0, d)?;
    eprintln!(
        "  [{:>5.1}s] reorder: 16 paths, skew 4: spurious retransmission ratio {:.5} over {} packets",
        started.elapsed().as_secs_f64(),
        reorder.spurious_retx_ratio,
        reorder.data_packets
    );
    let incast_set = |idle_per_sender: usize, start: Start| {
        parallel(INCAST.to_vec(), |n| {
            let r = bench::incast(n, idle_per_sender * n, start, Durations { warmup: 0, measure: d.measure / 2 })?;
            eprintln!(
                "  [{:>5.1}s] incast {n:>2} ({start:?}, {} idle connections): {:.2} RTTs to fair, Jain {:.4}, peak queue {:.3} BDP",
                started.elapsed().as_secs_f64(),
                idle_per_sender * n,
                r.rtts_to_fair,
                r.jain,
                r.peak_queue_bdp
            );
            Ok(r)
        })
    };
    let incast = incast_set(0, Start::Cold)?;
    let warm = incast_set(0, Start::SetupShare)?;
    let idle = incast_set(3, Start::SetupShare)?;

    let doc = results_json(&sweep, &reorder, &incast);
    if let Some(p) = &json_path {
        std::fs::write(p, serde_json::to_string_pretty(&doc)? + "\n").with_context(|| format!("writing {p}"))?;
        eprintln!("wrote {p}");
    }
    let dir = crate::root().join("docs/bench");
    std::fs::create_dir_all(&dir)?;
    crate::plot::goodput(&sweep, &dir, "model-goodput")?;
    let (md, misses) = markdown(&sweep, &reorder, [&incast, &warm, &idle], quick, started.elapsed().as_secs_f64());
    std::fs::write(dir.join("model.md"), md)?;
    eprintln!(
        "wrote docs/bench/model.md and docs/bench/model-goodput.svg and .png in {:.1}s",
        started.elapsed().as_secs_f64()
    );
    for m in &misses {
        eprintln!("target missed: {m}");
    }
    Ok(())
}

/// The JSON document: exactly the keys the benchmark definition names.
fn results_json(sweep: &[LossPoint], reorder: &Reorder, incast: &[Incast]) -> serde_json::Value {
    json!({
        "loss_sweep": sweep.iter().map(|p| json!({
            "mtu": p.mtu, "loss": p.loss, "ferroce_goodput": p.ferroce_goodput,
            "gbn_goodput": p.gbn_goodput, "ideal": p.ideal,
        })).collect::<Vec<_>>(),
        "reorder": { "paths": reorder.paths, "skew": reorder.skew, "spurious_retx_ratio": reorder.spurious_retx_ratio },
        "incast": incast.iter().map(|r| json!({
            "n": r.n, "rtts_to_fair": r.rtts_to_fair, "jain": r.jain, "peak_queue_bdp": r.peak_queue_bdp,
        })).collect::<Vec<_>>(),
    })
}

/// Targets from the project's benchmark definition; returns the misses.
fn targets(sweep: &[LossPoint], reorder: &Reorder, incast: &[Incast]) -> (Vec<String>, Vec<String>) {
    let mut met = Vec::new();
    let mut missed = Vec::new();
    let mut check = |ok: bool, what: String| {
        if ok {
            met.push(what)
        } else {
            missed.push(what)
        }
    };
    for p in sweep {
        let r = p.ferroce_goodput / p.ideal;
        if p.loss == 0.01 {
            check(r >= 0.95, format!("mtu {}: ferroce/ideal at 1 % loss = {r:.3} (>= 0.95)", p.mtu));
        }
        if p.loss == 0.1 {
            check(r >= 0.90, format!("mtu {}: ferroce/ideal at 10 % loss = {r:.3} (>= 0.90)", p.mtu));
        }
        if p.loss == 0.01 && p.mtu == 1024 {
            let x = p.ferroce_goodput / p.gbn_goodput.max(1e-9);
            check(x >= 2.0, format!("mtu 1024: ferroce/GBN at 1 % loss = {x:.2}x (>= 2x)"));
        }
    }
    check(
        reorder.spurious_retx_ratio < 0.001,
        format!("spurious retransmission ratio = {:.5} (< 0.001)", reorder.spurious_retx_ratio),
    );
    for r in incast {
        check(r.rtts_to_fair <= 2.0, format!("incast {}: {:.2} RTTs to fair (<= 2)", r.n, r.rtts_to_fair));
        check(r.jain >= 0.99, format!("incast {}: Jain {:.4} (>= 0.99)", r.n, r.jain));
        check(r.peak_queue_bdp <= 1.0, format!("incast {}: peak queue {:.3} BDP (<= 1)", r.n, r.peak_queue_bdp));
    }
    (met, missed)
}

fn markdown(
    sweep: &[LossPoint],
    reorder: &Reorder,
    [incast, warm, idle]: [&[Incast]; 3],
    quick: bool,
    secs: f64,
) -> (String, Vec<String>) {
    let mut s = String::new();
    let _ = writeln!(s, "# Model benchmark: ferroce vs go-back-N\n");
    let _ = writeln!(
        s,
        "Generated by `cargo xtask bench-model{}` ({:.0} s on this machine). Both transports run \
         side by side in one process on the same fabric model (`ferroce-sim::fabric`): 100 Gb/s \
         links, 10 us base RTT, two hosts on different leaves of a leaf-spine with 8 spines, \
         ferroce spraying over 8 paths, go-back-N on one ECMP path (RoCEv2 RC without selective \
         repeat). Loss is i.i.d. on every spine-to-leaf link, so data and ACKs see it alike. \
         Goodput is payload placed in receiver memory per unit time after the warm-up, as a \
         fraction of line rate; `ideal` is the payload fraction of the wire with this MTU \
         (headers, CRC, preamble and inter-frame gap removed) times (1 - loss). A ratio a little above 1 is sampling noise: the \
         loss a finite run actually sees differs from the nominal rate.\n",
        if quick { " --quick" } else { "" },
        secs
    );
    let _ = writeln!(s, "![goodput vs loss](model-goodput.svg)\n");
    let _ = writeln!(
        s,
        "| MTU | loss | ferroce | GBN | ideal | ferroce/ideal | ferroce/GBN |\n|---|---|---|---|---|---|---|"
    );
    for p in sweep {
        let _ = writeln!(
            s,
            "| {} | {} | {:.4} | {:.4} | {:.4} | {:.3} | {:.2}x |",
            p.mtu,
            p.loss,
            p.ferroce_goodput,
            p.gbn_goodput,
            p.ideal,
            p.ferroce_goodput / p.ideal,
            p.ferroce_goodput / p.gbn_goodput.max(1e-9)
        );
    }
    let _ = writeln!(
        s,
        "\n## Reordering\n\n16 paths over 16 spines whose propagation delays span a factor of {} \
         (no loss, so every retransmission is spurious): {} data packets, spurious retransmission \
         ratio {:.5}.\n",
        reorder.skew, reorder.data_packets, reorder.spurious_retx_ratio
    );
    let _ = writeln!(
        s,
        "## Incast\n\nN senders on one leaf write to one receiver on another and stay backlogged. \
         In the rows of the JSON and the targets they start cold: their connections were set up \
         earlier and left idle, so each starts at line rate and must learn its share from the \
         receiver's rate hint (which the receiver withholds until it has watched its senders for \
         one activity window, 20 us or 2 RTTs) and from ECN. `RTTs to fair` is when every \
         sender's pacing rate stays within 10 % of line/N for the rest of the run; Jain's index \
         is over the bytes each connection placed after that; the peak queue is the deepest \
         switch queue of the run in bandwidth-delay products (125 000 B). 1024-byte MTU. One \
         receiver and one backlogged connection per sender: this shows how a burst of senders \
         settles, not how collectives with many connections per host behave (see scale.md).\n"
    );
    let table = |s: &mut String, rows: &[Incast], idle_per_sender: usize| {
        let _ = writeln!(
            s,
            "| N | idle | RTTs to fair | Jain | peak queue (BDP) | aggregate goodput |\n|---|---|---|---|---|---|"
        );
        for r in rows {
            let _ = writeln!(
                s,
                "| {} | {} | {:.2} | {:.4} | {:.3} | {:.3} |",
                r.n,
                idle_per_sender * r.n,
                r.rtts_to_fair,
                r.jain,
                r.peak_queue_bdp,
                r.aggregate_goodput
            );
        }
    };
    table(&mut s, incast, 0);
    let _ = writeln!(
        s,
        "\nThe same with each sender starting at the share the receiver hands out at connection \
         setup (line rate / established connections), as if the connections had just been set \
         up for this incast (not part of the JSON or the targets): the senders start at the fair \
         share, so this shows only that the hint keeps them there, not that they find it.\n"
    );
    table(&mut s, warm, 0);
    let _ = writeln!(
        s,
        "\nAnd with 3N further connections established at the receiver that never send: the setup \
         share is then a quarter of the fair share, and the senders climb to line/N when the \
         receiver's rate hint arrives (from below, so the queue stays short).\n"
    );
    table(&mut s, idle, 3);
    let (met, missed) = targets(sweep, reorder, incast);
    write_targets(&mut s, &met, &missed);
    (s, missed)
}

/// The "Targets" section of a benchmark page: what was met, what missed.
pub(crate) fn write_targets(s: &mut String, met: &[String], missed: &[String]) {
    let _ = writeln!(s, "\n## Targets\n");
    for m in met {
        let _ = writeln!(s, "- met: {m}");
    }
    for m in missed {
        let _ = writeln!(s, "- **missed**: {m}");
    }
}

/// The keys of a JSON object, sorted.
#[cfg(test)]
pub(crate) fn keys(v: &serde_json::Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().expect("object").keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_exactly_the_defined_keys() {
        let p = LossPoint { mtu: 1024, loss: 0.01, ferroce_goodput: 0.88, gbn_goodput: 0.3, ideal: 0.89 };
        let r = Reorder { paths: 16, skew: 4.0, spurious_retx_ratio: 0.0, data_packets: 10 };
        let i = Incast { n: 8, rtts_to_fair: 1.0, jain: 1.0, peak_queue_bdp: 0.1, aggregate_goodput: 0.9 };
        let v = results_json(&[p], &r, &[i]);
        assert_eq!(keys(&v), ["incast", "loss_sweep", "reorder"]);
        assert_eq!(keys(&v["loss_sweep"][0]), ["ferroce_goodput", "gbn_goodput", "ideal", "loss", "mtu"]);
        assert_eq!(keys(&v["reorder"]), ["paths", "skew", "spurious_retx_ratio"]);
        assert_eq!(keys(&v["incast"][0]), ["jain", "n", "peak_queue_bdp", "rtts_to_fair"]);
        assert_eq!(v["reorder"]["paths"], 16);
    }

    #[test]
    fn targets_flag_misses() {
        let p = LossPoint { mtu: 1024, loss: 0.01, ferroce_goodput: 0.80, gbn_goodput: 0.5, ideal: 0.89 };
        let r = Reorder { paths: 16, skew: 4.0, spurious_retx_ratio: 0.01, data_packets: 10 };
        let i = Incast { n: 8, rtts_to_fair: 3.0, jain: 0.9, peak_queue_bdp: 2.0, aggregate_goodput: 0.9 };
        let (met, missed) = targets(&[p], &r, &[i]);
        assert!(met.is_empty(), "{met:?}");
        assert_eq!(missed.len(), 6, "{missed:?}");
    }
}
