//! RTL measurements for `cargo xtask bench-rtl`: the engine's goodput on
//! the fabric model (the same fabric the model benchmark uses), its
//! goodput through a loopback at line rate, and the simulator's speed.

use std::time::Instant;

use ferroce_proto::rings::{Wqe, WqeOp};
use ferroce_sim::bench::Durations;
use ferroce_sim::scenario::NetConfig;

use crate::loopback::{run_sim, Op, Opts};
use crate::pair::{EnginePair, PairConfig, DST, RKEY, SRC};
use crate::Result;

/// Bytes per WRITE keeping the sender busy.
const MSG: u32 = 64 << 10;
/// WRITEs kept posted ahead of completions.
const BACKLOG: u32 = 16;
const BUF: u64 = 4 << 20;

/// Goodput of engine A sending WRITEs to engine B on `net` (its kind is
/// ignored; its recovery settings are the engines'), as a fraction of
/// `net.rate_mbps`: bytes B placed per unit time after the warm-up, read
/// from B's counters.
pub fn rtl_goodput(net: &NetConfig, d: Durations) -> Result<f64> {
    let c = PairConfig {
        paths: net.paths.min(16) as u32,
        streams: net.streams.clamp(1, 8) as u32,
        mtu: net.mtu,
        src_bytes: BUF,
        dst_bytes: BUF,
        seed: net.seed,
        // As for the line rate: a PCIe DMA engine outruns the 16 Gb/s MAC.
        dma_stall: 0.0,
        preset: "corundum",
        recovery: net.recovery,
    };
    let mut p = EnginePair::new(net.topology(2, 1), c)?;
    let (mut posted, mut done) = (0u32, 0u32);
    let mut start: Option<(u64, u64)> = None;
    let placed = |p: &mut EnginePair| -> Result<u64> {
        let lo = p.drivers[1].get(ferroce_proto::regs::stats::BYTES_PLACED_LO)? as u64;
        let hi = p.drivers[1].get(ferroce_proto::regs::stats::BYTES_PLACED_HI)? as u64;
        Ok(hi << 32 | lo)
    };
    while p.fabric.now() < d.warmup + d.measure {
        while posted - done < BACKLOG {
            let off = (posted as u64 * MSG as u64) % BUF;
            let w = Wqe {
                op: WqeOp::Write,
                stream: (posted % c.streams) as u8,
                conn: 0,
                len: MSG,
                local: SRC + off,
                remote: DST + off,
                rkey: RKEY,
                imm: 0,
                id: posted,
            };
            if !p.drivers[0].post_send(&w)? {
                break;
            }
            posted += 1;
        }
        p.drivers[0].ring_doorbells()?;
        let t = p.fabric.now() + net.rtt;
        p.fabric.run_until(t);
        done += p.drivers[0].poll()?.len() as u32;
        if start.is_none() && p.fabric.now() >= d.warmup {
            start = Some((p.fabric.now(), placed(&mut p)?));
        }
    }
    if let Some(v) = p.violations().first() {
        return Err(crate::Error::BadCompletion(format!("DMA guard: {v}")));
    }
    let (t0, b0) = start.expect("the warm-up ends before the run");
    let (t1, b1) = (p.fabric.now(), placed(&mut p)?);
    let secs = (t1 - t0) as f64 * 1e-12;
    Ok((b1 - b0) as f64 * 8.0 / secs / (net.rate_mbps as f64 * 1e6))
}

/// Line rate through a loopback without loss: large WRITEs, the largest
/// MTU, and a DMA model without random stalls (a PCIe DMA engine outruns a
/// 16 Gb/s MAC; the stalls are for the robustness tests). The `corundum`
/// build.
pub fn line_rate(quick: bool) -> Result<LineRate> {
    line_rate_of("corundum", quick)
}

/// [`line_rate`] on the build of the preset called `preset` (8 paths and 4
/// streams, or as many as it has). The engine's model is built before the
/// clock starts, so `cycles_per_second` is the simulation's alone.
pub fn line_rate_of(preset: &str, quick: bool) -> Result<LineRate> {
    let config = ferroce_proto::config::preset(preset).map_err(crate::Error::BadRequest)?;
    ferroce_sim::engine::model_of(preset)?;
    let o = Opts {
        op: Op::Write,
        size: if quick { 64 << 10 } else { 256 << 10 },
        count: if quick { 16 } else { 64 },
        paths: 8.min(config.paths() as u32),
        streams: 4.min(config.streams() as u32),
        loss: 0.0,
        seed: 1,
        mtu: 4096,
        verify: true,
        pcap: None,
        dma_stall: 0.0,
        preset: preset.into(),
        line_rate_mbps: config.line_mbps(),
        ..Opts::default()
    };
    let t = Instant::now();
    let r = run_sim(&o, &mut |_, _| {})?;
    let secs = t.elapsed().as_secs_f64();
    Ok(LineRate {
        goodput: r.goodput_fraction,
        wire_busy: r.wire_fraction.expect("the simulator counts the wire"),
        cycles_per_second: r.duration_cycles as f64 / secs,
    })
}

/// A line-rate run's figures.
#[derive(Debug, Clone, Copy)]
pub struct LineRate {
    /// Payload bytes placed over what the MAC interface carries in the run's
    /// cycles.
    pub goodput: f64,
    /// Frame bytes sent (data and ACK frames, headers and CRC) over the same.
    pub wire_busy: f64,
    /// Engine cycles simulated per second of wall time.
    pub cycles_per_second: f64,
}
