//! `ferroce sim-board`: a simulated board on a pseudo-terminal and,
//! optionally, a UDP socket.

use std::io::Write;
use std::sync::atomic::AtomicBool;

use clap::ValueEnum;
use ferroce_driver::serial::Pty;
use ferroce_sim::board::{BoardEngine, Cable, SimBoard, RAM_BYTES};

/// The engine on the simulated board.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum EngineArg {
    /// The whole engine, in the ECPIX-5's build (`ecp5-85`: 8 connections x
    /// 8 paths x 8 streams).
    Engine,
    /// The stand-in (register file, MAC loopback).
    StandIn,
}

/// Serve a simulated board on a pseudo-terminal (and a UDP socket).
#[derive(Debug, clap::Args)]
#[command(after_help = "The board top's system side (UART bridge speaking LiteX's UARTBone, Ethernet bridge \
speaking LiteX's Etherbone, board memory, frame stores, engine) runs in Verilator, its Ethernet port looped back \
through a cable model with a host on it; the model is built on first use (a few minutes for the whole engine, \
then cached under target/verilator). The first line on stdout is the pseudo-terminal to open as the board's serial \
port, e.g. `ferroce info --backend uart --device /dev/pts/3`, or LiteX's `litex_server --uart --uart-port \
/dev/pts/3`. With --udp 127.0.0.1:1234, datagrams to that address reach the board's Etherbone bridge as frames \
from the host on its cable: `ferroce info --backend etherbone --device 127.0.0.1:1234`. The board runs until the \
process is stopped.")]
pub struct Args {
    /// The engine on the board.
    #[arg(long, value_enum, default_value = "engine")]
    engine: EngineArg,
    /// Chance that the looped cable loses a frame, in [0, 0.5).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    loss: f64,
    /// Chance that a frame arrives with a bad FCS, in [0, 0.5).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    corrupt: f64,
    /// Seed of the cable's losses.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also serve the board's Etherbone bridge on this UDP address
    /// (IP:PORT).
    #[arg(long, value_name = "IP:PORT")]
    udp: Option<std::net::SocketAddr>,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    for (name, v) in [("--loss", a.loss), ("--corrupt", a.corrupt)] {
        if !(0.0..0.5).contains(&v) {
            anyhow::bail!("{name} must be in [0, 0.5) (got {v})");
        }
    }
    let engine = match a.engine {
        EngineArg::Engine => BoardEngine::Engine,
        EngineArg::StandIn => BoardEngine::StandIn,
    };
    eprintln!("sim-board: building the board model ({engine:?}; the first time takes minutes) ...");
    let udp = match a.udp {
        Some(addr) => Some(
            std::net::UdpSocket::bind(addr).map_err(|e| anyhow::anyhow!("--udp {addr}: cannot bind it: {e}"))?,
        ),
        None => None,
    };
    let mut board = SimBoard::new(engine, Cable { loss: a.loss, corrupt: a.corrupt, seed: a.seed })?;
    let mut pty = Pty::open()?;
    println!("{}", pty.path().display());
    std::io::stdout().flush()?;
    let on_udp = match &udp {
        Some(u) => format!(" and {} (Etherbone)", u.local_addr()?),
        None => String::new(),
    };
    eprintln!(
        "sim-board: {engine:?} with {} KiB of board memory on {} (UARTBone){on_udp}; stop with Ctrl-C",
        RAM_BYTES >> 10,
        pty.path().display()
    );
    static NEVER: AtomicBool = AtomicBool::new(false);
    ferroce_driver::sim_board::serve(&mut board, Some(&mut pty), udp.as_ref(), &NEVER)?;
    Ok(())
}
