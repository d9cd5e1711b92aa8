//! `cargo xtask bench-rtl`: the engine's RTL measured in Verilator. Line
//! rate between two engines and through a loopback, goodput against loss
//! on the same fabric as the model benchmark (with the reference model and
//! go-back-N beside it, at the engine's 16 Gb/s), and the simulator's speed. Writes
//! docs/bench/rtl.md, docs/bench/rtl-goodput.svg and .png and optionally JSON.

use std::fmt::Write as _;
use std::time::Instant;

use ferroce_driver::bench::{line_rate, line_rate_of, rtl_goodput, LineRate};
use ferroce_proto::wire::payload_efficiency;
use ferroce_sim::bench::{goodput_on, sweep_net, Durations};
use ferroce_sim::scenario::Kind;
use serde_json::json;

const LOSSES: [f64; 3] = [0.0, 0.01, 0.1];
/// The engine's MAC interface: 64 bits at 250 MHz.
const RATE_MBPS: u32 = 16_000;
const CLOCK_MHZ: u32 = 1000 / ferroce_hdl::engine::NS_PER_CYCLE;
/// The line rate's packets: the largest MTU.
const LINE_MTU: u32 = 4096;

/// A board device an ECP5 preset is built for, with its capacities as
/// nextpnr-ecp5 reports them for our board builds (docs/bench/boards.md,
/// `TRELLIS_COMB` and `DP16KD` available) and the share of them the whole
/// engine may take (issue targets: the shell around it needs the rest).
#[derive(Debug, Clone, Copy)]
pub struct Device {
    pub preset: &'static str,
    pub part: &'static str,
    pub board: &'static str,
    pub lut4: u64,
    pub dp16kd: u64,
    pub lut4_share: f64,
    pub dp16kd_share: f64,
}

/// The ECP5 presets' devices.
pub const DEVICES: [Device; 2] = [
    Device {
        preset: "ecp5-85",
        part: "LFE5UM5G-85F",
        board: "ECPIX-5",
        lut4: 83_640,
        dp16kd: 208,
        lut4_share: 0.60,
        dp16kd_share: 0.80,
    },
    Device {
        preset: "ecp5-25",
        part: "LFE5U-25F",
        board: "Colorlight 5A-75B",
        lut4: 24_288,
        dp16kd: 56,
        lut4_share: 0.85,
        dp16kd_share: 0.85,
    },
];

/// Engine cycles per second of wall time the simulation of each preset is
/// to reach on a loaded run (none set for `ecp5-25`).
pub const SPEED_TARGETS: [(&str, Option<f64>); 3] =
    [("corundum", Some(5e5)), ("ecp5-85", Some(1e6)), ("ecp5-25", None)];

/// One preset's simulation speed and its synthesis on record.
#[derive(Debug, Clone)]
struct Build {
    preset: &'static str,
    line: LineRate,
    target: Option<f64>,
    synth: Option<crate::synth::EngineSynth>,
    device: Option<Device>,
    /// Register bits by block of the emitted Verilog, largest first.
    registers: Vec<(String, u64)>,
}

impl Build {
    /// LUT4 equivalents and DP16KD over the device's, if measured for this
    /// Verilog and built for a device.
    /// Judged on the cells nextpnr packed when on record (TRELLIS_COMB
    /// counts the LUT RAMs' LUT4 positions too), else on yosys's count.
    fn shares(&self) -> Option<(f64, f64)> {
        let (s, d) = (self.synth.as_ref().filter(|s| s.current)?, self.device?);
        let comb = s.packed("TRELLIS_COMB").map_or(s.cells.lut4_equivalent(), |p| p.0);
        let bram = s.packed("DP16KD").map_or(s.cells.dp16kd, |p| p.0);
        Some((comb as f64 / d.lut4 as f64, bram as f64 / d.dp16kd as f64))
    }

    fn fits(&self) -> Option<bool> {
        let d = self.device?;
        self.shares().map(|(l, b)| l <= d.lut4_share && b <= d.dp16kd_share)
    }

    fn json(&self) -> serde_json::Value {
        let cells = self.synth.as_ref().filter(|s| s.current).map(|s| s.cells);
        json!({
            "preset": self.preset,
            "sim_speed": {"cycles_per_second": self.line.cycles_per_second, "target": self.target,
                "met": self.target.map(|t| self.line.cycles_per_second >= t),
                "loopback_goodput_fraction_of_wire": self.line.goodput},
            "resources": {
                "lut4": cells.map(|c| c.lut4), "ccu2c": cells.map(|c| c.ccu2c),
                "lut4_equivalent": cells.map(|c| c.lut4_equivalent()), "ff": cells.map(|c| c.ff),
                "dp16kd": cells.map(|c| c.dp16kd), "trellis_dpr16x4": cells.map(|c| c.lutram),
                "mult18x18d": cells.map(|c| c.mult18),
                "synthesis": self.synth.as_ref().map(|s| json!({"commit": s.commit, "minutes": s.minutes,
                    "of_this_verilog": s.current})),
                "device": self.device.map(|d| json!({"part": d.part, "board": d.board, "lut4": d.lut4,
                    "dp16kd": d.dp16kd, "lut4_share_target": d.lut4_share, "dp16kd_share_target": d.dp16kd_share})),
                "packed": self.synth.as_ref().filter(|s| s.current).map(|s| s.packed.iter()
                    .map(|(k, u, a)| json!({"kind": k, "used": u, "available": a})).collect::<Vec<_>>()),
                "lut4_share": self.shares().map(|s| s.0), "dp16kd_share": self.shares().map(|s| s.1),
                "fits": self.fits(),
                "register_bits": self.registers.iter().map(|r| r.1).sum::<u64>(),
                "register_bits_by_block": self.registers.iter().take(12)
                    .map(|(b, n)| json!({"block": b, "bits": n})).collect::<Vec<_>>(),
            },
        })
    }
}

/// The sweep's fabric for `kind` at the engine's rate.
fn net(kind: Kind, mtu: u32, loss: f64) -> ferroce_sim::scenario::NetConfig {
    let mut n = sweep_net(kind, mtu, loss, 42);
    n.rate_mbps = RATE_MBPS;
    n
}

#[derive(Debug, Clone, Copy)]
struct Point {
    mtu: u32,
    loss: f64,
    rtl: f64,
    model: f64,
    gbn: f64,
    ideal: f64,
}

pub fn run(quick: bool, json_path: Option<String>) -> anyhow::Result<()> {
    let d = Durations::new(quick);
    let mtus: &[u32] = if quick { &[1024] } else { &[1024, 4096] };
    let started = Instant::now();
    eprintln!(
        "bench-rtl: line rate, then {} loss points of {} us simulated each ({} mode); the engine model builds first",
        mtus.len() * LOSSES.len(),
        (d.warmup + d.measure) / 1_000_000,
        if quick { "quick" } else { "full" }
    );
    let line = line_rate(quick)?;
    eprintln!(
        "  [{:>5.1}s] line rate: goodput {:.3} of the wire, wire busy {:.3}, {:.0} cycles/s",
        started.elapsed().as_secs_f64(),
        line.goodput,
        line.wire_busy,
        line.cycles_per_second
    );
    // Each preset's build on the same loaded run, and its synthesis on record.
    let mut builds = Vec::new();
    for (preset, target) in SPEED_TARGETS {
        let built = ferroce_hdl::presets::built(preset).map_err(anyhow::Error::msg)?;
        let run = if preset == "corundum" { line } else { line_rate_of(preset, quick)? };
        let verilog = (built.emit)();
        let synth = crate::synth::record_for(preset, &verilog);
        let registers = crate::synth::register_bits(&verilog, 3);
        eprintln!(
            "  [{:>5.1}s] {preset}: {:.0} cycles/s on a loaded loopback (target {}); synthesis {}",
            started.elapsed().as_secs_f64(),
            run.cycles_per_second,
            target.map_or("none".to_string(), |t| format!("{t:.0}")),
            match &synth {
                Some(s) if s.current => format!("of this Verilog: {} LUT4 eq., {} DP16KD", s.cells.lut4_equivalent(), s.cells.dp16kd),
                Some(_) => "on record is of other Verilog".to_string(),
                None => "not on record".to_string(),
            }
        );
        builds.push(Build {
            preset,
            line: run,
            target,
            synth,
            device: DEVICES.iter().find(|d| d.preset == preset).copied(),
            registers,
        });
    }
    // Between two engines: the sweep's point at LINE_MTU without loss, which
    // the full sweep then takes from here.
    let share = payload_efficiency(LINE_MTU as usize);
    let pair_line = rtl_goodput(&net(Kind::Ferroce, LINE_MTU, 0.0), d)?;
    eprintln!(
        "  [{:>5.1}s] line rate between two engines: goodput {pair_line:.3} of the wire ({:.3} of a frame's \
         payload share)",
        started.elapsed().as_secs_f64(),
        pair_line / share
    );
    let mut sweep = Vec::new();
    for &mtu in mtus {
        for &loss in &LOSSES {
            let rtl = if (mtu, loss) == (LINE_MTU, 0.0) {
                pair_line
            } else {
                rtl_goodput(&net(Kind::Ferroce, mtu, loss), d)?
            };
            let p = Point {
                mtu,
                loss,
                rtl,
                model: goodput_on(net(Kind::Ferroce, mtu, loss), d)?,
                gbn: goodput_on(net(Kind::Gbn, mtu, loss), d)?,
                ideal: payload_efficiency(mtu as usize) * (1.0 - loss),
            };
            eprintln!(
                "  [{:>5.1}s] mtu {mtu:>4} loss {loss:<4}: rtl {:.3}  model {:.3}  gbn {:.3}  ideal {:.3}",
                started.elapsed().as_secs_f64(),
                p.rtl,
                p.model,
                p.gbn,
                p.ideal
            );
            sweep.push(p);
        }
    }
    // The same points at MTU 1024 with the RTL's v1 settings (tail probes
    // and rack among them), the RTL against the model.
    // The connection window's cap is set for a base RTT (control.window_scale):
    // the fabric's 10 us, and 20 us, which covers the engines' own turnaround
    // (ACK delay, DMA reads, pipelines) on top of it.
    let mut sweep_v1 = Vec::new();
    for base_us in V1_BASE_RTTS_US {
        for &loss in &LOSSES {
            let mut n = net(Kind::Ferroce, 1024, loss);
            n.recovery =
                ferroce_proto::model::Recovery { base_rtt: base_us * 1_000_000, ..ferroce_proto::model::Recovery::v1() };
            let (rtl, model) = (rtl_goodput(&n, d)?, goodput_on(n, d)?);
            eprintln!(
                "  [{:>5.1}s] v1 base RTT {base_us} us mtu 1024 loss {loss:<4}: rtl {rtl:.3}  model {model:.3}",
                started.elapsed().as_secs_f64()
            );
            sweep_v1.push((base_us, loss, rtl, model));
        }
    }
    let blocks_speed = if quick { Vec::new() } else { block_speeds(started)? };
    let mems = crate::storage::measure()?;
    let (bits, blocks) = crate::storage::totals(&mems);
    std::fs::write(dir_bench().join("rtl-storage.md"), crate::storage::markdown(&mems))?;
    eprintln!(
        "  [{:>5.1}s] storage: {:.2} Mbit of state, at least {blocks} DP16KD",
        started.elapsed().as_secs_f64(),
        bits as f64 / 1e6
    );
    let synth = crate::synth::engine_synth();
    let logic = synth.as_ref().filter(|s| s.current).map(|s| s.cells);
    let resources_note = format!(
        "{} Storage: {:.2} Mbit of state arrays need at least {blocks} DP16KD (the `dp16kd` figure), against {} on \
         the largest ECP5, so 64 connections x 16 paths with 256-packet windows do not fit on chip \
         (docs/bench/rtl-storage.md). The engine is built for up to 16 paths per connection; 8 paths use the same \
         logic and arrays",
        match &synth {
            Some(s) if s.current => format!(
                "LUT4 and FF: the whole engine from `cargo xtask synth-engine` (synth_ecp5, every array mapped to \
                 block or LUT RAM; {} left as memory cells).",
                s.cells.mems
            ),
            Some(s) => format!(
                "LUT4 and FF not measured for this Verilog (`cargo xtask synth-engine`, an hour or more, gives \
                 them); {}.",
                s.stale()
            ),
            None => "LUT4 and FF not measured: `cargo xtask synth-engine` (an hour or more) gives them.".to_string(),
        },
        bits as f64 / 1e6,
        crate::storage::ECP5_85_DP16KD
    );
    let out = json!({
        "line_rate": {"data_width": 64, "clock_mhz": CLOCK_MHZ, "mtu": LINE_MTU,
            "goodput_fraction_of_wire": pair_line, "frame_payload_share": share,
            "goodput_fraction_of_payload_share": pair_line / share,
            "setup": "engine A writes to engine B over the loss sweep's fabric without loss; ACKs return on B's wire",
            "loopback": {"goodput_fraction_of_wire": line.goodput, "wire_busy_fraction": line.wire_busy,
                "setup": "one engine looped to itself: its data and ACK frames share one wire"}},
        "loss_sweep": sweep.iter().map(|p| json!({
            "loss": p.loss, "mtu": p.mtu, "rtl_goodput": p.rtl, "model_goodput": p.model,
            "gbn_goodput": p.gbn, "ideal": p.ideal,
        })).collect::<Vec<_>>(),
        "loss_sweep_v1": sweep_v1.iter().map(|(base_us, loss, rtl, model)| json!({
            "loss": loss, "mtu": 1024, "recovery": "v1", "base_rtt_us": base_us, "rtl_goodput": rtl,
            "model_goodput": model,
        })).collect::<Vec<_>>(),
        "builds": builds.iter().map(Build::json).collect::<Vec<_>>(),
        "sim_speed": {"cycles_per_second": line.cycles_per_second,
            "blocks_alone": blocks_speed.iter().map(|(n, v)| json!({"block": n, "cycles_per_second": v}))
                .collect::<Vec<_>>()},
        "resources": {"connections": ferroce_hdl::rx::rx_check::CONNS, "paths": 1 << ferroce_hdl::emit::PATH_BITS, "lut4": logic.map(|c| c.lut4), "ccu2c": logic.map(|c| c.ccu2c),
            "lut4_equivalent": logic.map(|c| c.lut4_equivalent()), "ff": logic.map(|c| c.ff),
            "mult18x18d": logic.map(|c| c.mult18), "dp16kd": blocks, "arrays_as_memory_cells": logic.map(|c| c.mems),
            "synthesis": synth.as_ref().map(|s| json!({"commit": s.commit, "minutes": s.minutes, "of_this_verilog": s.current})),
            "state_bits": bits, "dp16kd_at_least": blocks,
            "ecp5_85_dp16kd": crate::storage::ECP5_85_DP16KD, "note": resources_note},
    });
    if let Some(p) = &json_path {
        std::fs::write(p, serde_json::to_string_pretty(&out)? + "\n")?;
        eprintln!("wrote {p}");
    }
    let dir = dir_bench();
    std::fs::write(
        dir.join("rtl.md"),
        markdown(quick, line, pair_line, &sweep, &mems, &blocks_speed, synth.as_ref())
            + &v1_markdown(&sweep_v1)
            + &builds_markdown(&builds),
    )?;
    crate::plot::lines(
        &sweep,
        crate::plot::GOODPUT,
        |p| p.loss,
        |p| p.mtu,
        &[
            ("ferroce RTL", 0x2ca02c, |p: &Point| p.rtl),
            ("ferroce model", 0x1f77b4, |p: &Point| p.model),
            ("go-back-N", 0xd62728, |p: &Point| p.gbn),
            ("ideal", 0x999999, |p: &Point| p.ideal),
        ],
        &dir,
        "rtl-goodput",
    )?;
    eprintln!(
        "wrote docs/bench/rtl.md and docs/bench/rtl-goodput.svg and .png in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Cycles per second of each emitted block alone in Verilator, idle after
/// its reset (and its clearing sweep): what evaluating its logic costs per
/// cycle whether or not anything happens; slowest first.
fn block_speeds(started: Instant) -> anyhow::Result<Vec<(&'static str, f64)>> {
    use ferroce_sim::verilator::{ModelLib, Sim};
    let mut sims = Vec::new();
    for (name, verilog) in ferroce_hdl::emit::all() {
        let lib = ModelLib::build(name, &verilog)?;
        let mut s = Sim::new(&lib);
        s.clock("clock");
        if s.has_port("reset") {
            let r = s.port("reset");
            s.set(r, 1);
            s.tick();
            s.set(r, 0);
        }
        for _ in 0..5_000 {
            s.tick();
        }
        sims.push((name, s, 0f64));
    }
    // The best of five rounds, each timing every block in turn: the machine
    // is shared, other work only ever slows a run down, and a busy spell
    // then costs one round of each block rather than every round of one.
    let n = 20_000;
    for round in 0..5 {
        for (_, s, speed) in sims.iter_mut() {
            let t = Instant::now();
            for _ in 0..n {
                s.tick();
            }
            *speed = speed.max(n as f64 / t.elapsed().as_secs_f64());
        }
        eprintln!("  [{:>5.1}s] block speeds: round {} of 5", started.elapsed().as_secs_f64(), round + 1);
    }
    let mut out: Vec<_> = sims.into_iter().map(|(name, _, speed)| (name, speed)).collect();
    out.sort_by(|a, b| a.1.total_cmp(&b.1));
    Ok(out)
}

fn dir_bench() -> std::path::PathBuf {
    crate::root().join("docs/bench")
}

fn markdown(
    quick: bool,
    line: LineRate,
    pair_line: f64,
    sweep: &[Point],
    mems: &[crate::storage::Mem],
    blocks_speed: &[(&str, f64)],
    synth: Option<&crate::synth::EngineSynth>,
) -> String {
    let (bits, blocks) = crate::storage::totals(mems);
    let seglog: u64 = mems.iter().filter(|m| m.module.contains("seglog")).map(|m| m.bits()).sum();
    let speed = line.cycles_per_second;
    let mut s = String::new();
    let _ = writeln!(s, "# RTL benchmark\n");
    let _ = writeln!(
        s,
        "Generated by `cargo xtask bench-rtl{}`: the engine's Verilog in Verilator (64-bit datapath, {CLOCK_MHZ} MHz, \
         so {} Gb/s at the MAC interface). {} run.\n",
        if quick { " --quick" } else { "" },
        RATE_MBPS / 1000,
        if quick { "A quick" } else { "A full" }
    );
    let _ = writeln!(s, "## Line rate\n");
    let eff = payload_efficiency(LINE_MTU as usize);
    let _ = writeln!(
        s,
        "Large WRITEs (MTU {LINE_MTU}), no loss, the DMA model without random stalls (a PCIe DMA engine outruns a \
         16 Gb/s MAC; the tests keep the stalls).\n\n\
         - Engine A writing to engine B (the loss sweep's fabric below, without loss; B's ACKs return on B's own \
         wire): goodput **{pair_line:.3}** of the line rate. A frame that carries {LINE_MTU} payload bytes allows \
         {eff:.3} (Ethernet, IP, UDP and transport headers, CRC, preamble and gap), so this is **{:.3}** of what \
         the wire can carry as payload. Goodput as a fraction of the raw wire cannot reach the target of 0.99 with \
         {LINE_MTU}-byte packets: that needs a payload share above 0.99, which no Ethernet frame with these headers \
         has.\n\
         - One engine looped to itself (its data frames and the ACK frames of its own receive side share one \
         wire; start-up and the last ACKs included): goodput **{:.3}**, and the wire busy **{:.3}** of the \
         cycles.\n",
        pair_line / eff,
        line.goodput,
        line.wire_busy,
    );
    let _ = writeln!(s, "## Goodput against loss\n");
    let _ = writeln!(
        s,
        "Two engines on the model benchmark's leaf-spine fabric (8 spines, 10 us RTT, i.i.d. loss on the spine \
         downlinks), its line rate set to the engine's {} Gb/s; the reference model and the go-back-N baseline run \
         on the same fabric; the engines' DMA model has no random stalls, as for the line rate. Goodput is payload \
         placed at the receiver per unit time over the line rate; ideal is the payload share of a frame times \
         (1 - loss).\n",
        RATE_MBPS / 1000
    );
    let _ =
        writeln!(s, "| MTU | loss | RTL | model | go-back-N | ideal | RTL / model |\n|---|---|---|---|---|---|---|");
    for p in sweep {
        let _ = writeln!(
            s,
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2} |",
            p.mtu,
            p.loss,
            p.rtl,
            p.model,
            p.gbn,
            p.ideal,
            p.rtl / p.model.max(1e-9)
        );
    }
    let _ = writeln!(s, "\n![goodput against loss](rtl-goodput.svg)\n");
    let _ = writeln!(s, "## Simulator speed\n");
    let _ = writeln!(
        s,
        "{speed:.0} engine cycles per second of wall time, single-threaded, measured over the line-rate run \
         (including the DMA, MAC and host models in Rust; target 10^6, not met). A profile of a looped run \
         (`perf record` on `ferroce loopback`) puts about 80 % of the time in the Verilated model's clocked \
         evaluation and under 6 % in the Rust models around it, spread thinly over the generated code (no \
         source line above 1 %); compiling the generated C++ with `-Os`, `-O1` or `-O3` (or \
         `-march=native`) instead of `-O2` changed nothing measurable. Verilator evaluates every block's logic on every clock edge whether or not an operation is \
         in flight, so the cost per cycle follows the amount of logic.\n"
    );
    if !blocks_speed.is_empty() {
        let _ = writeln!(
            s,
            "Each block alone in Verilator, idle after its reset, the best of five rounds of 20 000 cycles, \
             each round timing every block in turn (a block's cost per cycle whatever it does; the harness's own cost per cycle is that of the smallest blocks, about \
             {:.2} us). The composite blocks contain the others: `tx_path` holds `retx`, `seg_log`, `spray`, \
             `cc`, `health`, `segmenter` and two `tx_build`s; `rx_path` holds `rx_parse`, `frame_fifo`, \
             `rx_check`, `sack`, `rx_msgs`, `ack_gen` and `rx_place`; the engine holds both paths, `csr`, two \
             `rto_timer`s, `pacer` and `rate_div`.\n",
            1e6 / blocks_speed.last().map_or(1.0, |b| b.1)
        );
        let _ = writeln!(s, "| block | cycles/s alone | us per cycle |\n|---|---|---|");
        for (n, v) in blocks_speed {
            let _ = writeln!(s, "| {n} | {v:.0} | {:.2} |", 1e6 / v);
        }
        let _ = writeln!(
            s,
            "\nThe 256-bit find-first, find-last and population-count trees of `retx` (per path: SACK, queued, \
             resent and held bitmaps) and the send path's own combinationally read arrays cost the most; \
             evaluating such cores only when an operation is in flight, and reading the arrays through \
             registered ports (which the board build needs too), are where a faster simulation would come from.\n"
        );
    }
    let _ = writeln!(s, "## Resources\n");
    let _ = writeln!(
        s,
        "State of the whole engine at 64 connections x 16 paths x 8 streams, as yosys infers it from the emitted \
         Verilog: **{:.2} Mbit** in arrays, which need at least **{blocks} DP16KD** block RAMs; the largest ECP5 \
         (LFE5UM5G-85F) has {}. This configuration does not fit on chip: the send log alone (81 bits for each of \
         256 packets in flight on each of 1 024 paths) is {:.1} Mbit. Every array is listed in \
         [rtl-storage.md](rtl-storage.md). {} The board builds below keep fewer connections, paths and streams \
         and 64 packets in flight per path (the window and the send log scale together); beyond that, the send \
         log's entries as (message slot, offset) instead of full sequence numbers, message slots shared by all \
         streams, and the large arrays in external memory (the ECPIX-5 has DDR3) would shrink the state further. \
         Per-block LUT and FF figures are in [rtl-resources.md](rtl-resources.md).",
        bits as f64 / 1e6,
        crate::storage::ECP5_85_DP16KD,
        seglog as f64 / 1e6,
        match synth {
            Some(e) if e.current => format!(
                "The whole engine (`cargo xtask synth-engine`, {:.0} minutes: `synth_ecp5`, every array mapped to \
                 block or LUT RAM, {} left as memory cells): **{} LUT4** plus {} CCU2C carry cells ({} LUT4 equivalents), \
                 **{} FF** and {} MULT18X18D; the LFE5UM5G-85F has about 84 000 LUT4 (ECP5 family data sheet, \
                 FPGA-DS-02012, table 1.1): the logic alone is {:.1} times that.",
                e.minutes,
                e.cells.mems,
                e.cells.lut4,
                e.cells.ccu2c,
                e.cells.lut4_equivalent(),
                e.cells.ff,
                e.cells.mult18,
                e.cells.lut4_equivalent() as f64 / 84_000.0
            ),
            Some(e) => format!(
                "LUT4 and FF of this Verilog: not measured yet (`cargo xtask synth-engine`, an hour or more); {}.",
                e.stale()
            ),
            None => "LUT4 and FF of the whole engine: `cargo xtask synth-engine` (an hour or more) synthesises its \
                     logic with the arrays kept as memory cells; no result on record."
                .to_string(),
        }
    );
    s
}

/// The per-preset section: simulation speed and fit.
fn builds_markdown(builds: &[Build]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\n\n## Builds (presets): speed and fit\n");
    let _ = writeln!(
        s,
        "Each preset's engine on the same loaded run (one engine looped to itself, large WRITEs at MTU 4096 \
         over 8 paths and 4 streams or as many as the build has, every byte verified), its Verilator model built \
         before the clock starts; and its whole-engine synthesis on record (`cargo xtask synth-engine --preset \
         NAME`: yosys `synth_ecp5`, every array mapped to DP16KD block RAM or DPR16X4 LUT RAM), against the \
         board device's cells as nextpnr-ecp5 counts them in our board builds ([boards.md](boards.md)). LUT4 \
         equivalents count a CCU2C as two; the DPR16X4 LUT RAMs take further slices. The shares are of the \
         cells nextpnr-ecp5 takes when it packs the synthesised engine onto the device (`--pack-only \
         --out-of-context`, recorded with the synthesis): TRELLIS_COMB, every LUT4 position including those \
         of carry cells and LUT RAMs, and DP16KD.\n"
    );
    let _ = writeln!(
        s,
        "| preset | cycles/s | target | LUT4 eq. | FF | DP16KD | DPR16X4 | MULT18X18D | TRELLIS_COMB packed | device | LUT4 share (target) | DP16KD share (target) | fits |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for b in builds {
        let speed_target = b.target.map_or("–".to_string(), |t| {
            let met = if b.line.cycles_per_second >= t { "met" } else { "**not met**" };
            format!("{t:.0} ({met})")
        });
        let cells = b.synth.as_ref().filter(|s| s.current).map(|s| s.cells);
        let cell = |f: fn(&crate::synth::Cells) -> u64| cells.map_or("not measured".to_string(), |c| f(&c).to_string());
        let (dev, lshare, bshare) = match (b.device, b.shares()) {
            (Some(d), Some((l, r))) => (
                format!("{} ({})", d.part, d.board),
                format!("{:.0} % ({:.0} %)", 100.0 * l, 100.0 * d.lut4_share),
                format!("{:.0} % ({:.0} %)", 100.0 * r, 100.0 * d.dp16kd_share),
            ),
            (Some(d), None) => (format!("{} ({})", d.part, d.board), "–".into(), "–".into()),
            (None, _) => ("Corundum NIC".into(), "–".into(), "–".into()),
        };
        let fits = match b.fits() {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "–",
        };
        let comb = b
            .synth
            .as_ref()
            .filter(|s| s.current)
            .and_then(|s| s.packed("TRELLIS_COMB"))
            .map_or("–".to_string(), |(u, a)| format!("{u} of {a}"));
        let _ = writeln!(
            s,
            "| {} | {:.0} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            b.preset,
            b.line.cycles_per_second,
            speed_target,
            cell(|c| c.lut4_equivalent()),
            cell(|c| c.ff),
            cell(|c| c.dp16kd),
            cell(|c| c.lutram),
            cell(|c| c.mult18),
            comb,
            dev,
            lshare,
            bshare,
            fits
        );
    }
    let _ = writeln!(
        s,
        "\nWhere the registers are (register bits of the emitted Verilog by block, before synthesis, which \
         removes the pending sets' and fired flags' bits above a smaller build's keys and few others; the \
         twelve largest of each build; `top$txp` is the send path, `top$rxp` the receive path; arrays read \
         through a RAM port, such as the queues of ACK feedback and ACK orders, are not registers):\n"
    );
    let _ = writeln!(s, "| block | {} |\n|---|{}", builds.iter().map(|b| b.preset).collect::<Vec<_>>().join(" | "), "---|".repeat(builds.len()));
    let mut blocks: Vec<&str> = Vec::new();
    for b in builds {
        for (name, _) in b.registers.iter().take(12) {
            if !blocks.contains(&name.as_str()) {
                blocks.push(name);
            }
        }
    }
    for name in blocks {
        let row: Vec<String> = builds
            .iter()
            .map(|b| b.registers.iter().find(|r| r.0 == name).map_or("0".to_string(), |r| r.1.to_string()))
            .collect();
        let _ = writeln!(s, "| `{name}` | {} |", row.join(" | "));
    }
    let _ = writeln!(
        s,
        "| all | {} |",
        builds.iter().map(|b| b.registers.iter().map(|r| r.1).sum::<u64>().to_string()).collect::<Vec<_>>().join(" | ")
    );
    for b in builds {
        if let Some(e) = b.synth.as_ref().filter(|s| !s.current) {
            let _ = writeln!(s, "\n`{}`: not measured for this Verilog; {}.", b.preset, e.stale());
        }
    }
    s
}

/// The base RTTs (us) the v1 sweep's connection windows are set for.
const V1_BASE_RTTS_US: [u64; 2] = [10, 20];

/// The loss sweep's points with `Recovery::v1`: (base RTT in us, loss,
/// RTL, model).
fn v1_markdown(points: &[(u64, f64, f64, f64)]) -> String {
    let mut s = String::from(
        "\n## Goodput against loss with the RTL's v1 settings\n\nThe sweep's fabric and runs at MTU 1024, both engines \
         and the model with `control.recovery` at `Recovery::v1` (`--recovery v1`: RTOs doubled at most \
         twice, re-pathing at a sixteenth of an epoch lost, the rate hint from the first ACK, tail probes, \
         `rack`, the connection window and repairs on the route of the connection's cleanest other path), on \
         the `corundum` build. The window's cap, 1.25 base RTTs of the \
         receiver's rate hint plus two frames (`control.window_scale`), set for the fabric's 10 us and for 20 us, \
         which covers the endpoints' own turnaround too (ACK delay; in the RTL also its payload DMA reads and frame \
         pipelines): at 10 us it holds one flow below the line, and the RTL, whose loop is longer, further \
         (docs/protocol.md, \"Between two engines\").\n\n| base RTT (us) | loss | RTL | model | RTL / model \
         |\n|---|---|---|---|---|\n",
    );
    for (base_us, loss, rtl, model) in points {
        let _ = writeln!(s, "| {base_us} | {loss} | {rtl:.3} | {model:.3} | {:.2} |", rtl / model);
    }
    s
}
