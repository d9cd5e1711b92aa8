//! `ferroce`: the engine's command-line tool.

mod info;
mod list;
mod loopback;
mod regs;
mod stats;

use clap::{Parser, Subcommand, ValueEnum};
use ferroce_driver::discover::{check_corundum_app, Engine};
use ferroce_driver::pci::{self, Bar, Mqnic};
use ferroce_driver::sim::SimCsr;
use ferroce_driver::RegisterAccess;

/// ferroce: a loss-tolerant RDMA transport engine for FPGA NICs.
#[derive(Debug, Parser)]
#[command(
    name = "ferroce",
    version,
    about = "ferroce: talk to a ferroce engine, on a Corundum NIC (--backend pci) or as Verilog in Verilator (--backend sim, the default)"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

/// Where the engine is.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Backend {
    /// The engine's Verilog in Verilator (built on first use).
    Sim,
    /// A Corundum NIC running the ferroce application, through sysfs.
    Pci,
    /// A Corundum NIC through its character device (/dev/mqnicN).
    Mqnic,
    /// A Corundum NIC bound to vfio-pci (BARs through VFIO).
    Vfio,
}

/// Options shared by the commands that talk to an engine.
#[derive(Debug, clap::Args)]
pub struct Target {
    /// Where the engine is.
    #[arg(long, value_enum, default_value = "sim")]
    backend: Backend,
    /// PCI device (bus:device.function) with --backend pci, or character
    /// device (/dev/mqnicN) with --backend mqnic; default: the only one.
    #[arg(long)]
    device: Option<String>,
    /// Folder of device nodes (for testing against a fake tree).
    #[arg(long, default_value = "/dev", hide = true)]
    dev_dir: std::path::PathBuf,
    /// sysfs root (for testing against a fake tree).
    #[arg(long, default_value = pci::SYSFS_ROOT, hide = true)]
    sysfs_root: std::path::PathBuf,
    /// sysfs folder of PCI devices (for testing against a fake tree).
    #[arg(long, default_value = pci::SYSFS_DEVICES, hide = true)]
    sysfs: std::path::PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// List Corundum devices (PCI 1234:1001) visible through sysfs.
    List(list::Args),
    /// Show the engine's register blocks, versions and build parameters.
    Info(info::Args),
    /// Dump, read or write registers by name.
    Regs(regs::Args),
    /// Show the engine's counters and one connection's per-path state.
    Stats(stats::Args),
    /// Run a transfer through an engine looped to itself and verify it.
    Loopback(loopback::Args),
}

/// Open the engine's register region and find its blocks.
pub fn connect(t: &Target) -> anyhow::Result<(Box<dyn RegisterAccess>, Engine)> {
    let mut bus: Box<dyn RegisterAccess> = match t.backend {
        Backend::Sim => Box::new(SimCsr::new()?),
        Backend::Pci => {
            let dev = match &t.device {
                Some(bdf) => pci::open(&t.sysfs, bdf)?,
                None => {
                    let mut all = pci::find(&t.sysfs, pci::CORUNDUM_ID)?;
                    match all.len() {
                        0 => anyhow::bail!("no Corundum device (PCI 1234:1001) under {}", t.sysfs.display()),
                        1 => all.remove(0),
                        n => anyhow::bail!("{n} Corundum devices: choose one with --device"),
                    }
                }
            };
            let mut bar0 = Bar::map(&dev, 0)?;
            check_corundum_app(&mut bar0)?;
            // Corundum puts the application's registers in BAR2.
            Box::new(Bar::map(&dev, 2)?)
        }
        Backend::Vfio => {
            let bdf = match &t.device {
                Some(b) => b.clone(),
                None => {
                    let mut all = pci::find(&t.sysfs, pci::CORUNDUM_ID)?;
                    match all.len() {
                        0 => anyhow::bail!("no Corundum device (PCI 1234:1001) under {}", t.sysfs.display()),
                        1 => all.remove(0).bdf,
                        n => anyhow::bail!("{n} Corundum devices: choose one with --device"),
                    }
                }
            };
            let group = ferroce_driver::vfio::group_of(&t.sysfs, &bdf)?;
            let mut os = ferroce_driver::os::RealOs::default();
            let v = ferroce_driver::vfio::Vfio::open(&mut os, group, &bdf)?;
            check_corundum_app(&mut v.map_region(&mut os, 0)?)?;
            Box::new(v.map_region(&mut os, 2)?)
        }
        Backend::Mqnic => {
            let path = match &t.device {
                Some(d) => std::path::PathBuf::from(d),
                None => {
                    let mut all = Mqnic::find(&t.dev_dir)?;
                    match all.len() {
                        0 => anyhow::bail!("no Corundum character device (mqnic*) in {}", t.dev_dir.display()),
                        1 => all.remove(0),
                        n => anyhow::bail!("{n} Corundum character devices: choose one with --device"),
                    }
                }
            };
            let m = Mqnic::open(&path, &t.sysfs_root)?;
            check_corundum_app(&mut m.map(0)?)?;
            Box::new(m.map(1)?)
        }
    };
    let engine = Engine::discover(bus.as_mut(), 0)?;
    Ok((bus, engine))
}

fn main() -> std::process::ExitCode {
    let r = match Cli::parse().cmd {
        Cmd::List(a) => list::run(a),
        Cmd::Info(a) => info::run(a),
        Cmd::Regs(a) => regs::run(a),
        Cmd::Stats(a) => stats::run(a),
        Cmd::Loopback(a) => loopback::run(a),
    };
    match r {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
