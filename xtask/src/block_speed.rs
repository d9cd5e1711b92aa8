//! `cargo xtask block-speed [--json FILE] [--only a,b] [--rounds N]`: each block's
//! Verilator cost per cycle on its own test's traffic. Runs
//! `sim/tests/rtl_<block>.rs` with `FERROCE_SIM_STATS` set (every `Sim`
//! appends `model<TAB>cycles<TAB>eval_ns` when dropped) and sums the lines
//! of the model named after the block: microseconds in `eval()` per clock
//! cycle. The figure is of that test's traffic (how busy it keeps the block),
//! not of a standard load, so compare a block only with itself; the tests
//! run one at a time (`--test-threads 1`) so that they do not share cores,
//! and with `--rounds N` each block's figure is the best of N runs.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// One block's measurement.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Speed {
    pub block: String,
    /// Clock cycles over all instances of the block's model in its test.
    pub cycles: u64,
    /// Seconds spent in the model's `eval()`.
    pub eval_seconds: f64,
    pub us_per_cycle: f64,
    /// Simulator instances the test made.
    pub instances: u64,
}

/// The file `--json` writes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    pub what: String,
    pub commit: String,
    pub blocks: Vec<Speed>,
}

/// The blocks with their own test, `sim/tests/rtl_<block>.rs`.
pub fn blocks_with_tests() -> anyhow::Result<Vec<String>> {
    let mut v: Vec<String> = std::fs::read_dir(crate::root().join("sim/tests"))?
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_prefix("rtl_").and_then(|b| b.strip_suffix(".rs")).map(str::to_string)
        })
        .collect();
    v.sort();
    Ok(v)
}

/// Per model name: (instances, cycles, eval ns), from `FERROCE_SIM_STATS` lines.
fn sum_stats(text: &str) -> BTreeMap<String, (u64, u64, u128)> {
    let mut m: BTreeMap<String, (u64, u64, u128)> = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if let [name, cycles, ns] = f[..] {
            if let (Ok(c), Ok(ns)) = (cycles.parse::<u64>(), ns.parse::<u128>()) {
                let e = m.entry(name.to_string()).or_default();
                e.0 += 1;
                e.1 += c;
                e.2 += ns;
            }
        }
    }
    m
}

/// Run block `block`'s test with the statistics on and measure its model.
fn measure_one(block: &str, dir: &Path) -> anyhow::Result<Speed> {
    let stats = dir.join(format!("{block}.tsv"));
    let _ = std::fs::remove_file(&stats);
    eprintln!("block-speed {block}: cargo test --release -p ferroce-sim --test rtl_{block} ...");
    let t0 = std::time::Instant::now();
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(crate::root())
        .env("FERROCE_SIM_STATS", &stats)
        .env_remove("FERROCE_TRACE")
        .args(["test", "--release", "-q", "-p", "ferroce-sim", "--test", &format!("rtl_{block}"), "--"])
        .arg("--test-threads=1")
        .output()
        .context("running cargo test")?;
    let log = dir.join(format!("{block}.log"));
    let mut text = out.stdout.clone();
    text.extend_from_slice(&out.stderr);
    std::fs::write(&log, &text)?;
    anyhow::ensure!(out.status.success(), "rtl_{block} failed, see {}", log.display());
    let sums = sum_stats(&std::fs::read_to_string(&stats).unwrap_or_default());
    let &(instances, cycles, ns) = sums.get(block).with_context(|| {
        format!(
            "rtl_{block} made no simulator of a model named {block} (models: {:?})",
            sums.keys().collect::<Vec<_>>()
        )
    })?;
    let others: Vec<_> = sums.keys().filter(|k| *k != block).collect();
    if !others.is_empty() {
        eprintln!("block-speed {block}: the test also ran {others:?} (not counted)");
    }
    anyhow::ensure!(cycles > 0, "rtl_{block} ran its model for no cycles");
    let s = Speed {
        block: block.to_string(),
        cycles,
        eval_seconds: ns as f64 / 1e9,
        us_per_cycle: ns as f64 / 1e3 / cycles as f64,
        instances,
    };
    eprintln!(
        "block-speed {block}: {:.3} us/cycle over {} cycles ({:.0} s with the build)",
        s.us_per_cycle,
        s.cycles,
        t0.elapsed().as_secs_f64()
    );
    Ok(s)
}

/// Measure `only` (or every block with a test): of `rounds` runs of each
/// test, the one with the least time per cycle (the machine's load only
/// ever adds time).
pub fn measure(only: Option<&[String]>, rounds: usize) -> anyhow::Result<Vec<Speed>> {
    let all = blocks_with_tests()?;
    let blocks: Vec<String> = match only {
        Some(o) => {
            for b in o {
                anyhow::ensure!(all.contains(b), "no test sim/tests/rtl_{b}.rs; blocks with tests: {all:?}");
            }
            o.to_vec()
        }
        None => all,
    };
    let dir = crate::root().join("target/block-speed");
    std::fs::create_dir_all(&dir)?;
    let best = |b: &String| -> anyhow::Result<Speed> {
        let mut best = measure_one(b, &dir)?;
        for _ in 1..rounds {
            let s = measure_one(b, &dir)?;
            if s.us_per_cycle < best.us_per_cycle {
                best = s;
            }
        }
        Ok(best)
    };
    blocks.iter().map(best).collect()
}

/// The commit the worktree is at (`git describe --always --dirty`).
pub fn commit() -> String {
    Command::new("git")
        .args(["describe", "--always", "--dirty"])
        .current_dir(crate::root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or_else(|| "unknown".to_string(), |o| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

pub fn record(blocks: Vec<Speed>) -> Record {
    Record {
        what: "cargo xtask block-speed: each block's Verilator eval() time per clock cycle on its own test's \
               traffic (sim/tests/rtl_<block>.rs, FERROCE_SIM_STATS)"
            .into(),
        commit: commit(),
        blocks,
    }
}

pub fn table(speeds: &[Speed]) -> String {
    let mut s = String::from("block        us/cycle      cycles   eval s  instances\n");
    for b in speeds {
        let _ = writeln!(
            s,
            "{:<12} {:>8.3} {:>11} {:>8.2} {:>10}",
            b.block, b.us_per_cycle, b.cycles, b.eval_seconds, b.instances
        );
    }
    s
}

pub fn run(json: Option<String>, only: Option<Vec<String>>, rounds: usize) -> anyhow::Result<()> {
    let speeds = measure(only.as_deref(), rounds)?;
    print!("{}", table(&speeds));
    println!("(Verilator eval() time per cycle on each block's own test traffic; compare a block with itself only)");
    if let Some(path) = json {
        std::fs::write(&path, serde_json::to_string_pretty(&record(speeds))? + "\n")?;
        println!("wrote {path}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn sums_per_model() {
        let m = super::sum_stats("sack\t100\t5000\nsack\t50\t2500\nother\t7\t70\nbroken line\n");
        assert_eq!(m["sack"], (2, 150, 7500));
        assert_eq!(m["other"], (1, 7, 70));
        assert_eq!(m.len(), 2);
    }
}
