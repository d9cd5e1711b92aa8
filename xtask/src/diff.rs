//! `cargo xtask diff`: the differential check at scale. The reference sender
//! and the RTL send path get the same work, the same ACKs and NAKs from a
//! model receiver over a lossy channel, and must decide the same at every
//! step (see `ferroce_sim::lockstep`); prints the first divergence, with
//! the step, the RTL cycle and both frames, or a summary.

use std::time::Instant;

use ferroce_sim::lockstep::{send_lockstep, SendLockstep};

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let (_, keys) = crate::parse_opts(args, &[], &["--packets", "--loss", "--seed"])?;
    let get = |k: &str| keys.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let packets: u64 = get("--packets").map_or(Ok(100_000), |v| v.parse())?;
    let loss: f64 = get("--loss").map_or(Ok(0.01), |v| v.parse())?;
    let seed: u64 = get("--seed").map_or(Ok(1), |v| v.parse())?;
    anyhow::ensure!(packets >= 100, "--packets must be at least 100");
    anyhow::ensure!((0.0..0.5).contains(&loss), "--loss must be in [0, 0.5)");
    // About 2.2 frames per message in this mix (fewer when the message
    // window limits); three quarters on the
    // 8-path connection.
    let msgs = packets * 10 / 21;
    let cfg = SendLockstep { seed, messages: [msgs * 3 / 4, msgs - msgs * 3 / 4], loss, ack_loss: loss };
    eprintln!(
        "diff: model sender vs RTL tx_path, {} + {} messages (about {packets} frames), {:.1} % loss, seed {seed}",
        cfg.messages[0],
        cfg.messages[1],
        loss * 100.0
    );
    let t = Instant::now();
    let mut last = 0;
    let r = send_lockstep(&cfg, &mut |step, frames| {
        if frames >= last + 10_000 {
            last = frames - frames % 10_000;
            eprintln!("  [{:>5.0}s] step {step}: {frames} frames identical", t.elapsed().as_secs_f64());
        }
    });
    match r {
        Ok(r) => {
            println!(
                "no divergence: {} frames byte for byte, {} completions, every RTO deadline and counter equal \
                 ({} retransmissions, {} timeouts, {} re-paths, {} NAKs; {} steps, {} RTL cycles, {:.0} s)",
                r.frames,
                r.completions,
                r.stats.tx_retx,
                r.stats.rtos,
                r.stats.repaths,
                r.stats.naks_received,
                r.steps,
                r.cycles,
                t.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Err(d) => {
            println!("first divergence at {d}");
            anyhow::bail!("the RTL and the model diverged")
        }
    }
}
