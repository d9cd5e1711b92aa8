//! `cargo xtask emit`: write every block's Verilog to target/verilog/ and
//! lint it with the pinned Verilator (`--lint-only -Wall`).

use std::process::Command;

use anyhow::Context;
use ferroce_sim::tools;

/// The only Verilator warnings switched off, each with its reason.
pub const SUPPRESSED: &[(&str, &str)] = &[(
    "DECLFILENAME",
    "rust-hdl writes a block and all its submodules into one file, so module and file names differ",
)];

pub fn run(no_lint: bool, only: Option<Vec<String>>) -> anyhow::Result<()> {
    // The Corundum blocks alone emit in seconds; everything takes minutes.
    let corundum_only = only.as_ref().is_some_and(|o| {
        let c = ferroce_hdl::emit::corundum();
        o.iter().all(|n| c.iter().any(|(b, _)| b == n))
    });
    let blocks = if corundum_only { ferroce_hdl::emit::corundum() } else { ferroce_hdl::emit::all() };
    let blocks = blocks.into_iter().filter(|(name, _)| only.as_ref().is_none_or(|o| o.iter().any(|n| n == name)));
    write_and_lint(no_lint, blocks)
}

/// `--preset NAME`: the engine of one preset, `ferroce_engine_<name>.v`.
pub fn run_preset(no_lint: bool, preset: &str) -> anyhow::Result<()> {
    let built = ferroce_hdl::presets::built(preset).map_err(anyhow::Error::msg)?;
    let config = built.config;
    eprintln!(
        "{}: {} connections x {} paths x {} streams, {} packets in flight per path, {}-bit, MTU {}, {} ps clock; emitting (a few minutes)",
        config.name,
        config.conns(),
        config.paths(),
        config.streams(),
        config.in_flight_per_path,
        config.data_width,
        config.max_mtu,
        config.clock_ps
    );
    let verilog = (built.emit)();
    write_and_lint(no_lint, [(built.block, verilog)].into_iter())
}

fn write_and_lint(no_lint: bool, blocks: impl Iterator<Item = (&'static str, String)>) -> anyhow::Result<()> {
    let dir = crate::root().join("target/verilog");
    std::fs::create_dir_all(&dir)?;
    let bin = if !no_lint { Some(tools::ensure(&tools::VERILATOR, &mut |l| eprintln!("{l}"))?) } else { None };
    let mut failed = Vec::new();
    for (name, verilog) in blocks {
        let path = dir.join(format!("{name}.v"));
        std::fs::write(&path, &verilog).with_context(|| format!("writing {}", path.display()))?;
        let top_ports = verilog.lines().find(|l| l.starts_with("module top(")).unwrap_or_default();
        anyhow::ensure!(!top_ports.contains('$'), "{name}: top-level port names must not contain '$': {top_ports}");
        let chained = chained_selects(&verilog);
        anyhow::ensure!(
            chained.is_empty(),
            "{name}: a part-select indexed again (Verilator takes it, Icarus and the Corundum flow refuse it; \
             read the field through a local signal first):\n{}",
            chained.join("\n")
        );
        print!("{name}: {} lines -> {}", verilog.lines().count(), path.display());
        let Some(bin) = &bin else {
            println!();
            continue;
        };
        let mut cmd = Command::new(bin);
        cmd.env("VERILATOR_ROOT", tools::verilator_root(bin)).args(["--lint-only", "-Wall", "--top-module", "top"]);
        for (w, _) in SUPPRESSED {
            cmd.arg(format!("-Wno-{w}"));
        }
        let out = cmd.arg(&path).output().context("running verilator")?;
        let text = String::from_utf8_lossy(&out.stderr);
        let warnings: Vec<&str> =
            text.lines().filter(|l| l.starts_with("%Warning") || l.starts_with("%Error")).collect();
        if out.status.success() && warnings.is_empty() {
            println!(": lint clean");
        } else {
            println!(": {} lint findings", warnings.len());
            for w in &warnings {
                println!("  {w}");
            }
            failed.push(name);
        }
    }
    if bin.is_some() {
        println!(
            "suppressed: {}",
            SUPPRESSED.iter().map(|(w, why)| format!("{w} ({why})")).collect::<Vec<_>>().join("; ")
        );
    }
    anyhow::ensure!(failed.is_empty(), "lint failed for: {}", failed.join(", "));
    Ok(())
}

/// Lines (numbered from 1) where a part-select `x[(a)+:(w)]` is indexed
/// again: rust-hdl writes this for `.get_bits` on a struct field read
/// through `.val()`. Verilator accepts it, but the standard does not and
/// Icarus (which the Corundum overlay's test elaborates with) refuses it.
pub fn chained_selects(verilog: &str) -> Vec<String> {
    verilog
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            l.match_indices("+:(").any(|(i, _)| {
                let rest = &l[i + 3..];
                rest.find(")]").is_some_and(|j| rest[j + 2..].starts_with('['))
            })
        })
        .map(|(n, l)| format!("{}: {}", n + 1, l.trim()))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_part_select_indexed_again_is_found() {
        let v =
            "a = b[(32'h60)+:(32)];\nc = d[(32'h1a0)+:(32)][(32'h0)+:(9)];\ne = f[(32'h0)+:(8)] | g[(32'h8)+:(8)];\n";
        assert_eq!(super::chained_selects(v), vec!["2: c = d[(32'h1a0)+:(32)][(32'h0)+:(9)];".to_string()]);
    }

    /// CI keeps every block lint-clean under `verilator --lint-only -Wall`
    /// with clean top-level port names.
    #[test]
    fn every_block_emits_lint_clean() {
        super::run(false, None).expect("emit and lint");
        // `cargo xtask mutants` changes text of this Verilog: every mutant's
        // text must still be there.
        let dir = crate::root().join("target/verilog");
        crate::mutants::check_texts(|block| std::fs::read_to_string(dir.join(format!("{block}.v"))).ok())
            .expect("every mutant's text is in its block's Verilog");
    }
}
