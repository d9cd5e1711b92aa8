//! `ferroce loopback`: a transfer from connection 0 to connection 1 of one
//! engine whose MAC is looped back, through the rings, every byte checked.

use clap::ValueEnum;
use ferroce_driver::loopback::{self, Op, Opts};
use ferroce_driver::os::RealOs;
use ferroce_driver::vfio::{DmaMemory, HwDevice};

use crate::Backend;

/// A board's Ethernet line rate, Mb/s.
const BOARD_LINE_MBPS: u32 = 1000;

/// Message operation.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum OpArg {
    /// RDMA WRITE into a registered region.
    Write,
    /// RDMA WRITE with immediate (a receive completion per message).
    WriteImm,
    /// SEND into posted receive buffers.
    Send,
    /// WRITE, WRITE with immediate and SEND in turn.
    Mixed,
}

/// Run a loopback transfer and verify it.
#[derive(Debug, clap::Args)]
#[command(after_help = "The simulator backend runs the engine's Verilog in Verilator (built on first use, about a \
minute, then cached under target/verilator), its MAC looped back through a wire that loses --loss of the frames. \
On a NIC (--backend pci, mqnic or vfio) the engine's port must be looped back (a loopback plug or the shell); DMA \
memory comes from VFIO, or else from one 2 MiB huge page (as root), which limits the transfer to 512 KiB. On a \
board (--backend uart) the port must be looped back too (a loopback plug; `ferroce sim-board` loops its simulated \
port), and the rings, source and target live in the board memory (128 KiB on the ECPIX-5, 32 KiB on the Colorlight \
5A-75B), written and checked through the UART bridge, e.g. --size 4KiB --count 8. --loss, --dma-stall, --pcap and \
--trace apply to the simulator only. Exit status 0 only if every message completed and, with --verify, \
every byte and completion checked out.")]
pub struct Args {
    #[command(flatten)]
    target: crate::Target,
    /// Message operation.
    #[arg(long, value_enum, default_value = "write")]
    op: OpArg,
    /// Bytes per message (1 to 256 MiB in all): whole bytes, optionally
    /// with a unit: K or KiB (1024), M or MiB (1024 x 1024), KB (1000), MB
    /// (1000 x 1000); e.g. 4096, 64KiB, 1M.
    #[arg(long, default_value = "64KiB", value_parser = loopback::parse_size)]
    size: u32,
    /// Messages.
    #[arg(long, default_value_t = Opts::default().count, allow_negative_numbers = true)]
    count: u32,
    /// Paths per connection (1-16).
    #[arg(long, default_value_t = Opts::default().paths, allow_negative_numbers = true)]
    paths: u32,
    /// Ordered streams per connection (1-8).
    #[arg(long, default_value_t = Opts::default().streams, allow_negative_numbers = true)]
    streams: u32,
    /// Chance that the looped wire loses a frame, in [0, 0.5).
    #[arg(long, default_value_t = Opts::default().loss, allow_negative_numbers = true)]
    loss: f64,
    /// Seed of the source data, the losses and the engine's port generator.
    #[arg(long, default_value_t = Opts::default().seed, allow_negative_numbers = true)]
    seed: u64,
    /// Payload bytes per packet (1 to engine_info.max_mtu, 4096).
    #[arg(long, default_value_t = Opts::default().mtu, allow_negative_numbers = true)]
    mtu: u32,
    /// Chance that the simulated DMA engine stalls a cycle, in [0, 0.9)
    /// (simulator only).
    #[arg(long, default_value_t = Opts::default().dma_stall, allow_negative_numbers = true)]
    dma_stall: f64,
    /// The engine build to simulate (simulator only): corundum (64
    /// connections x 16 paths x 8 streams), ecp5-85 (8 x 8 x 8, the
    /// ECPIX-5's) or ecp5-25 (2 x 4 x 2, the Colorlight 5A-75B's). A
    /// hardware engine reports its own build in engine_info.
    #[arg(long, default_value = "corundum")]
    preset: String,
    /// The port's line rate in Mb/s: connections are paced at most at it
    /// (default: the simulated MAC interface's 16 000, a board's 1000).
    #[arg(long, allow_negative_numbers = true)]
    line_rate: Option<u32>,
    /// Loss-recovery profile: v0 (the registers' reset values) or v1 (RTOs
    /// doubled at most twice, re-pathing at a sixteenth of an epoch lost,
    /// the rate hint from the first ACK, tail probes, rack, the connection
    /// window with ECN cutting it and not the paths' windows, repairs on
    /// the route of the connection's cleanest other path; a build without
    /// those mechanisms, such as ecp5-25, refuses it). See
    /// docs/protocol.md, "Recovery profile (v1)".
    #[arg(long, default_value = "v0", value_parser = parse_recovery)]
    recovery: ferroce_proto::model::Recovery,
    /// The round trip (us) the connection window's cap is set for
    /// (control.window_scale): the fabric's base RTT with the endpoints'
    /// own turnaround. The cap is 1.25 of it at the receiver's rate hint,
    /// plus two frames; a round trip longer than 1.25 of it holds one flow
    /// below the line. Used with the window on (v1).
    #[arg(long, value_name = "US", default_value_t = ferroce_proto::model::Recovery::v0().base_rtt / 1_000_000, value_parser = clap::value_parser!(u64).range(1..=1000))]
    base_rtt: u64,
    /// Packets a path may have in flight at most (control.window_cap,
    /// 1..=256). Give the peer's max_in_flight when it keeps a smaller
    /// window than this engine (a board build talking to a Corundum one);
    /// this engine's own window bounds it anyway.
    #[arg(long, default_value_t = ferroce_proto::defaults::DEFAULTS.window_cap)]
    window_cap: u32,
    /// Check every byte and completion.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    verify: bool,
    /// At the end, print the engine's counters and every path's state
    /// (sent, retransmitted, ECN echoes, smoothed RTT, window, source port);
    /// with --json under "stats".
    #[arg(long)]
    stats: bool,
    /// Write every frame on the wire to this pcap file.
    #[arg(long)]
    pcap: Option<std::path::PathBuf>,
    /// Write the engine's waveforms to this .vcd or .fst file (slow).
    #[arg(long)]
    trace: Option<std::path::PathBuf>,
}

fn parse_recovery(name: &str) -> Result<ferroce_proto::model::Recovery, String> {
    ferroce_proto::model::Recovery::profile(name)
}

/// The library's options from the command line's.
fn opts(a: &Args) -> Opts {
    let op = match a.op {
        OpArg::Write => Op::Write,
        OpArg::WriteImm => Op::WriteImm,
        OpArg::Send => Op::Send,
        OpArg::Mixed => Op::Mixed,
    };
    Opts {
        op,
        size: a.size,
        count: a.count,
        paths: a.paths,
        streams: a.streams,
        loss: a.loss,
        seed: a.seed,
        mtu: a.mtu,
        verify: a.verify,
        pcap: a.pcap.clone(),
        dma_stall: a.dma_stall,
        recovery: ferroce_proto::model::Recovery { base_rtt: a.base_rtt * 1_000_000, ..a.recovery },
        window_cap: a.window_cap,
        preset: a.preset.clone(),
        line_rate_mbps: a.line_rate.unwrap_or(match a.target.backend {
            Backend::Uart | Backend::Etherbone => BOARD_LINE_MBPS,
            // The simulated build's MAC interface.
            _ => ferroce_proto::config::preset(&a.preset).map_or(Opts::default().line_rate_mbps, |c| c.line_mbps()),
        }),
        stats: a.stats,
    }
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let o = opts(&a);
    loopback::validate(&o)?;
    if let Some(t) = &a.trace {
        // The Verilator harness opens the trace named here when it starts.
        std::env::set_var("FERROCE_TRACE", t);
    }
    if !a.target.json {
        let on = match a.target.backend {
            Backend::Sim => format!("the simulated engine, {:.1} % loss", a.loss * 100.0),
            Backend::Uart | Backend::Etherbone => "the board (its port looped back)".into(),
            _ => "the NIC (its port looped back)".into(),
        };
        eprintln!(
            "loopback: {} x {} bytes ({:?}) over {} paths, {} streams, on {on}",
            a.count, a.size, a.op, a.paths, a.streams
        );
    }
    // A progress bar on stderr (drawn only on a terminal, not with --json).
    let bar = if a.target.json {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(o.size as u64 * o.count as u64)
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("  {bar:40} {bytes}/{total_bytes} acknowledged, {elapsed}")
            .expect("a valid template"),
    );
    let mut progress = |done: u64, _total: u64| bar.set_position(done);
    let r = match a.target.backend {
        Backend::Sim => loopback::run_sim(&o, &mut progress),
        Backend::Uart | Backend::Etherbone => {
            loopback::run_board(crate::board(&a.target)?, &o, &mut progress).map(|(r, _)| r)
        }
        _ => {
            // A NIC: its port must be looped back. DMA memory through VFIO,
            // or one huge page addressed physically.
            let mut os = RealOs::default();
            let (regs, vfio) = crate::hw_regs(&a.target, &mut os)?;
            let bytes = loopback::hw_bytes(&o) as usize;
            let mem = match vfio {
                Some(mut v) => DmaMemory::vfio(&mut os, &mut v, bytes)?,
                None => DmaMemory::hugepage(&mut os, bytes)?,
            };
            loopback::run_hw(HwDevice { regs, mem }, &o, &mut progress)
        }
    };
    bar.finish_and_clear();
    let r = r?;
    if a.target.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        println!("bytes             {}", r.bytes);
        println!("messages          {}", r.messages);
        println!("completions       {}", r.completions);
        println!(
            "verified          {}",
            if r.verified { "yes, every byte and completion" } else { "no (--verify false)" }
        );
        if matches!(a.target.backend, Backend::Sim) {
            println!("cycles            {}", r.duration_cycles);
            println!("goodput           {:.3} of the 64-bit MAC interface", r.goodput_fraction);
            println!("frames            {} ({} lost on the wire)", r.frames, r.frames_lost);
        } else {
            // Wall-clock time, counted in the engine's nominal cycles.
            let s = r.duration_cycles as f64 * ferroce_driver::NS_PER_CYCLE as f64 * 1e-9;
            println!("time              {s:.2} s (wall clock, the host's polling included)");
        }
        if let Some(w) = r.wire_fraction {
            println!("wire busy         {w:.3} of the MAC interface (frames, headers and ACKs included)");
        }
        println!("retransmissions   {} ({} timeouts)", r.retransmits, r.rtos);
        if let Some(p) = &a.pcap {
            println!("pcap              {}", p.display());
        }
        if let Some(s) = &r.stats {
            print_stats(s);
        }
    }
    Ok(())
}

fn print_stats(s: &loopback::RunStats) {
    println!("\nengine counters");
    for (name, v) in &s.counters {
        println!("  {name:<20} {v}");
    }
    println!(
        "\n{:>4} {:>4} {:>6} {:>8} {:>8} {:>8} {:>10} {:>8} {:>7}",
        "conn", "path", "sport", "sent", "retx", "ecn", "srtt_ns", "cwnd", "retired"
    );
    for p in &s.paths {
        println!(
            "{:>4} {:>4} {:>6} {:>8} {:>8} {:>8} {:>10} {:>8.2} {:>7}",
            p.conn,
            p.path,
            p.sport,
            p.sent,
            p.retransmitted,
            p.ecn_echoes,
            p.srtt_ns,
            p.cwnd,
            if p.retired { "yes" } else { "no" }
        );
    }
    println!("(re-paths: {} in all, the engine-wide counter above)", s.counter("repaths").unwrap_or(0));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every option's default is the library's (`Opts::default`).
    #[test]
    fn the_options_default_to_the_librarys() {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            a: Args,
        }
        let c = <Cli as clap::Parser>::parse_from(["loopback"]);
        assert_eq!(format!("{:?}", opts(&c.a)), format!("{:?}", Opts::default()));
        let c = <Cli as clap::Parser>::parse_from(["loopback", "--size", "1M", "--loss", "0.2"]);
        assert_eq!((opts(&c.a).size, opts(&c.a).loss), (1 << 20, 0.2));
    }
}
