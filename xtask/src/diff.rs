//! `cargo xtask diff`: the differential check at scale. Send side: the
//! reference sender and the RTL send path get the same work, the same ACKs
//! and NAKs from a model receiver over a lossy channel, and must decide the
//! same at every step (`ferroce_sim::lockstep::send`). Receive side: the reference
//! receiver and the RTL receive path get the same frames and must produce
//! the same DMA writes, ACKs (SACK bitmaps), NAKs and completions
//! (`ferroce_sim::lockstep::recv`). Prints the first divergence, with its step,
//! the RTL cycle and both sides' decision, or a summary.

use std::time::Instant;

use ferroce_sim::lockstep::{recv_lockstep, send_lockstep, Mix, SendLockstep};

/// Which path `diff` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Side {
    Tx,
    Rx,
    Both,
}

pub fn run(side: Side, packets: u64, loss: f64, seed: u64, recovery: &str) -> anyhow::Result<()> {
    let recovery = ferroce_proto::model::Recovery::profile(recovery).map_err(anyhow::Error::msg)?;
    recovery.register().map_err(|e| anyhow::anyhow!("--recovery: {e}"))?;
    anyhow::ensure!(packets >= 100, "--packets must be at least 100");
    anyhow::ensure!((0.0..0.5).contains(&loss), "--loss is a fraction below 0.5 (0.01 for 1 %)");
    if side != Side::Rx {
        send_side(packets, loss, seed, recovery)?;
    }
    if side != Side::Tx {
        recv_side(packets, loss, seed)?;
    }
    Ok(())
}

fn recv_side(packets: u64, loss: f64, seed: u64) -> anyhow::Result<()> {
    // About 4 frames per message in this mix (ACKs and NAKs to the RTL,
    // retransmissions, junk); a third of the messages on the second sender.
    let msgs = packets * 10 / 38;
    let mix = Mix {
        seed,
        msgs: [msgs - msgs / 3, msgs / 3],
        junk: 0.04,
        loss: loss * 3.0,
        dup: loss * 2.0,
        ce: 0.05,
        corrupt: loss,
    };
    eprintln!(
        "diff: model receiver vs RTL rx_path, {} + {} messages (about {packets} frames), {:.1} % loss, seed {seed}",
        mix.msgs[0],
        mix.msgs[1],
        mix.loss * 100.0
    );
    let t = Instant::now();
    match recv_lockstep(&mix, &mut |frames| {
        eprintln!("  [{:>5.0}s] {frames} frames: identical outputs", t.elapsed().as_secs_f64())
    }) {
        Ok(r) => {
            println!(
                "no divergence: {} frames ({} junk, {} ACK/NAK feedback), every DMA write, ACK, NAK, completion and \
                 counter equal ({} duplicates, {} timer ACKs, {} SENDs received; {:.0} s)",
                r.frames,
                r.junk,
                r.feedback,
                r.stats.rx_dup,
                r.timer_acks,
                r.send_cpls,
                t.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Err(d) => {
            println!("first divergence at {d}");
            anyhow::bail!("the RTL receive path and the model diverged")
        }
    }
}

fn send_side(packets: u64, loss: f64, seed: u64, recovery: ferroce_proto::model::Recovery) -> anyhow::Result<()> {
    anyhow::ensure!((0.0..0.5).contains(&loss), "--loss must be in [0, 0.5)");
    // About 2.2 frames per message in this mix (fewer when the message
    // window limits); three quarters on the
    // 8-path connection.
    let msgs = packets * 10 / 21;
    let cfg = SendLockstep {
        seed,
        messages: [msgs * 3 / 4, msgs - msgs * 3 / 4],
        loss,
        ack_loss: loss,
        ce: 0.05,
        recovery,
        ..SendLockstep::default()
    };
    eprintln!(
        "diff: model sender vs RTL tx_path, {} + {} messages (about {packets} frames), {:.1} % loss, seed {seed}, \
         control.recovery {:#04x}",
        cfg.messages[0],
        cfg.messages[1],
        loss * 100.0,
        cfg.recovery.word()
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
                "no divergence: {} frames byte for byte, {} completions, every RTO and probe deadline and counter \
                 equal ({} retransmissions, {} timeouts, {} tail probes, {} re-paths, {} NAKs; {} steps, {} RTL \
                 cycles, {:.0} s)",
                r.frames,
                r.completions,
                r.stats.tx_retx,
                r.stats.rtos,
                r.stats.tail_probes,
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
            anyhow::bail!("the RTL send path and the model diverged")
        }
    }
}
