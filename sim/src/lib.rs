//! ferroce-sim: what the transports run on in simulation.
//!
//! * [`fabric`]: a discrete-event leaf-spine network in picoseconds, with
//!   ECMP on the UDP 5-tuple, ECN-marking tail-drop queues, i.i.d. and
//!   Gilbert-Elliott loss, delay skew between spines, duplication,
//!   corruption and black holes.
//! * [`memory`]: host memory with guard regions that record every DMA access
//!   outside a registered region.
//! * [`pcap`]: frames to a pcap file.
//! * [`board`]: a board top's system side (host bridge, board memory, frame
//!   stores, an engine) with its serial line and a LiteEth-like MAC.
//! * [`equivalence`]: a block's `#[hdl_gen]` Rust in rust-hdl's simulator
//!   against its emitted Verilog in Verilator, cycle by cycle.
//! * [`scenario`]: ready-made worlds (two hosts across the fabric, N:1 incast)
//!   used by the tests, the loopback example and the benchmark.

pub mod axis;
pub mod bench;
pub mod board;
pub mod engine;
pub mod equivalence;
pub mod fabric;
pub mod lockstep;
pub mod memory;
pub mod pcap;
pub mod rgmii;
pub mod scale;
pub mod scenario;
pub mod tools;
pub mod verilator;

/// Errors of the simulation harness.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Proto(#[from] ferroce_proto::Error),
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
    #[error("invalid scenario: {0}")]
    Scenario(String),
    #[error("tool: {0}")]
    Tool(String),
    #[error("verilator model {model}: {msg}")]
    Verilator { model: String, msg: String },
    #[error("did not finish: {0}")]
    Stuck(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
