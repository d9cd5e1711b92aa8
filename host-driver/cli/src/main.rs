//! `ferroce`: the engine's command-line tool.

mod info;
mod list;
mod loopback;
mod regs;
mod sim_board;
mod stats;

use clap::{Parser, Subcommand, ValueEnum};
use ferroce_driver::board::{BoardDevice, Bridge, Etherbone, UartBone, Udp};
use ferroce_driver::discover::{check_corundum_app, Engine};
use ferroce_driver::os::RealOs;
use ferroce_driver::pci::{self, Bar, Mqnic};
use ferroce_driver::serial::Serial;
use ferroce_driver::sim::{SimLoopback, Wire};
use ferroce_driver::vfio::Vfio;
use ferroce_driver::RegisterAccess;

/// ferroce: a loss-tolerant RDMA transport engine for FPGA NICs.
#[derive(Debug, Parser)]
#[command(
    name = "ferroce",
    version,
    about = "ferroce: talk to a ferroce engine, as Verilog in Verilator (--backend sim, the default), on a Corundum NIC (--backend pci, mqnic or vfio) or on an open FPGA board (--backend uart or etherbone)"
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
    /// An open FPGA board (ECPIX-5, Colorlight 5A-75B) running ferroce's
    /// bitstream, through its UART bridge (LiteX's UARTBone): --device is
    /// the serial port (/dev/ttyUSBn), or the pseudo-terminal of
    /// `ferroce sim-board`.
    Uart,
    /// An open FPGA board through its Ethernet bridge (LiteX's Etherbone
    /// over UDP, port 1234): --device is the board's IP address (the
    /// bitstreams answer at 192.168.1.50), or IP:PORT, e.g. the address
    /// `ferroce sim-board --udp` serves on.
    Etherbone,
}

/// Options shared by the commands that talk to an engine.
#[derive(Debug, clap::Args)]
pub struct Target {
    /// Where the engine is.
    #[arg(long, value_enum, default_value = "sim")]
    backend: Backend,
    /// PCI device (bus:device.function) with --backend pci, character
    /// device (/dev/mqnicN) with --backend mqnic (default: the only one),
    /// serial port (/dev/ttyUSBn) with --backend uart, or the board's IP
    /// address (or IP:PORT) with --backend etherbone.
    #[arg(long)]
    device: Option<String>,
    /// The serial line's speed with --backend uart (the board bitstreams'
    /// bridge runs at 115 200 baud).
    #[arg(long, default_value_t = 115_200)]
    baud: u32,
    /// Longest wait for the board's answer, seconds: with --backend uart
    /// beyond the time the line takes for what was sent before; with
    /// --backend etherbone over all tries of a packet (a lost one is sent
    /// again, five tries in all).
    #[arg(long, alias = "uart-timeout", default_value_t = 5.0)]
    timeout: f64,
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
    /// Serve a simulated board on a pseudo-terminal, for --backend uart and
    /// LiteX's host tools.
    SimBoard(sim_board::Args),
}

/// The only element of `all`, or an error naming `what` and `where_`.
fn the_one<T>(mut all: Vec<T>, what: &str, where_: &std::path::Path) -> anyhow::Result<T> {
    match all.len() {
        0 => anyhow::bail!("no {what} under {}", where_.display()),
        1 => Ok(all.remove(0)),
        n => anyhow::bail!("{n} {what}s: choose one with --device"),
    }
}

/// A NIC's engine registers (after the Corundum APP_ID check) and, with
/// VFIO, the opened device for DMA mappings. `os` must outlive both.
pub fn hw_regs(t: &Target, os: &mut RealOs) -> anyhow::Result<(Bar, Option<Vfio>)> {
    let corundum = "Corundum device (PCI 1234:1001)";
    Ok(match t.backend {
        Backend::Sim => anyhow::bail!("the simulator has no NIC registers"),
        Backend::Uart | Backend::Etherbone => anyhow::bail!("a board is no NIC"),
        Backend::Pci => {
            let dev = match &t.device {
                Some(bdf) => pci::open(&t.sysfs, bdf)?,
                None => the_one(pci::find(&t.sysfs, pci::CORUNDUM_ID)?, corundum, &t.sysfs)?,
            };
            check_corundum_app(&mut Bar::map(&dev, 0)?)?;
            // Corundum puts the application's registers in BAR2.
            (Bar::map(&dev, 2)?, None)
        }
        Backend::Vfio => {
            let bdf = match &t.device {
                Some(b) => b.clone(),
                None => the_one(pci::find(&t.sysfs, pci::CORUNDUM_ID)?, corundum, &t.sysfs)?.bdf,
            };
            let group = ferroce_driver::vfio::group_of(&t.sysfs, &bdf)?;
            let v = Vfio::open(os, group, &bdf)?;
            check_corundum_app(&mut v.map_region(os, 0)?)?;
            (v.map_region(os, 2)?, Some(v))
        }
        Backend::Mqnic => {
            let path = match &t.device {
                Some(d) => std::path::PathBuf::from(d),
                None => the_one(Mqnic::find(&t.dev_dir)?, "Corundum character device (mqnic*)", &t.dev_dir)?,
            };
            let m = Mqnic::open(&path, &t.sysfs_root)?;
            check_corundum_app(&mut m.map(0)?)?;
            (m.map(1)?, None)
        }
    })
}

/// The board on `--device`, through its UART or its Etherbone bridge.
pub fn board(t: &Target) -> anyhow::Result<BoardDevice<Box<dyn Bridge>>> {
    if !(t.timeout > 0.0 && t.timeout < 3600.0) {
        anyhow::bail!("--timeout must be in (0, 3600) seconds (got {})", t.timeout);
    }
    let wait = std::time::Duration::from_secs_f64(t.timeout);
    let bridge: Box<dyn Bridge> = match t.backend {
        Backend::Etherbone => {
            let Some(addr) = &t.device else {
                anyhow::bail!(
                    "--backend etherbone needs --device: the board's IP address, e.g. 192.168.1.50 (the \
                     bitstreams' address)"
                );
            };
            let tries = Etherbone::<Udp>::TRIES as u32;
            Box::new(Etherbone::new(Udp::open(addr, wait / tries)?))
        }
        _ => {
            let Some(path) = &t.device else {
                anyhow::bail!("--backend uart needs --device: the board's serial port, e.g. /dev/ttyUSB1");
            };
            Box::new(UartBone::new(Serial::open(path.as_ref(), t.baud, wait)?))
        }
    };
    Ok(BoardDevice::with_bridge(bridge)?)
}

/// Open the engine's register region and find its blocks.
pub fn connect(t: &Target) -> anyhow::Result<(Box<dyn RegisterAccess>, Engine)> {
    let mut bus: Box<dyn RegisterAccess> = match t.backend {
        // The whole engine in Verilator (its counters and tables are live).
        Backend::Sim => Box::new(SimLoopback::new(ferroce_sim::memory::Memory::default(), &Wire::default(), 1)?),
        Backend::Uart | Backend::Etherbone => Box::new(board(t)?),
        _ => Box::new(hw_regs(t, &mut RealOs::default())?.0),
    };
    let engine = Engine::discover(bus.as_mut(), 0)?;
    Ok((bus, engine))
}

/// Die quietly on a closed pipe (`ferroce regs | head`), as command-line
/// tools do, instead of panicking in `println!`.
#[allow(unsafe_code)]
fn default_sigpipe() {
    // SAFETY: restoring the default disposition of one signal at start-up,
    // before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> std::process::ExitCode {
    default_sigpipe();
    let r = match Cli::parse().cmd {
        Cmd::List(a) => list::run(a),
        Cmd::Info(a) => info::run(a),
        Cmd::Regs(a) => regs::run(a),
        Cmd::Stats(a) => stats::run(a),
        Cmd::Loopback(a) => loopback::run(a),
        Cmd::SimBoard(a) => sim_board::run(a),
    };
    match r {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
