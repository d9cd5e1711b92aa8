//! ferroce-driver: the host side of the engine.
//!
//! * [`access`]: one register-access trait ([`RegisterAccess`]) and a
//!   RAM-backed twin built on the register map's reference.
//! * [`discover`]: walking register blocks (type, version, next) to find the
//!   engine's blocks and check their versions; Corundum's app-info check.
//! * [`pci`]: PCI devices from sysfs, BARs mapped from `resourceN`.
//! * [`board`], [`serial`]: an engine on an open FPGA board through its
//!   host bridge (LiteX's UARTBone over a serial port or a pseudo-terminal).
//! * [`cocotb`]: the engine inside Corundum's full-NIC cocotb testbench,
//!   its BARs and host memory served to the driver on a socket.
//! * [`driver`]: bring-up, connections, memory regions, rings, doorbells and
//!   completions over any [`driver::Device`].
//! * `sim` (feature `sim`, on by default): the whole engine in Verilator,
//!   looped to itself (`sim::SimLoopback`) or shared with the fabric model
//!   (`sim::SharedEngine`); with it the loopback run (`loopback`), two
//!   engines over the fabric (`pair`) and the benchmarks (`bench`). Without
//!   the feature the crate has no rust-hdl or Verilator in its dependencies.

pub mod access;
#[cfg(feature = "sim")]
pub mod bench;
pub mod board;
pub mod cocotb;
pub mod discover;
pub mod driver;
#[cfg(feature = "sim")]
pub mod loopback;
pub mod os;
#[cfg(feature = "sim")]
pub mod pair;
pub mod pci;
pub mod serial;
#[cfg(feature = "sim")]
pub mod sim_board;
#[cfg(feature = "sim")]
pub mod sim;
pub mod vfio;

/// The line rate of the simulated engine's MAC interface (64 bits per
/// cycle at its clock), Mb/s.
#[cfg(feature = "sim")]
pub const SIM_LINE_MBPS: u32 = ferroce_hdl::engine::MAC_MBPS;

/// Nanoseconds per cycle of the engine's nominal clock (hardware runs
/// report wall-clock time in these cycles).
#[cfg(feature = "sim")]
pub const NS_PER_CYCLE: u32 = ferroce_hdl::engine::NS_PER_CYCLE;

pub use access::{RegisterAccess, Twin};

/// Everything the driver can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("register access at {offset:#x}: {what}")]
    Access { offset: u32, what: String },
    #[error("no register block of type {type_id:#010x} ({name}) found")]
    MissingBlock { type_id: u32, name: &'static str },
    #[error("register block {name} at {offset:#x} has version {found:#010x}, this driver speaks {expected:#010x}")]
    Version { name: &'static str, offset: u32, found: u32, expected: u32 },
    #[error("register-block chain is broken at {offset:#x}: {why}")]
    Chain { offset: u32, why: String },
    #[error("APP_ID is {found:#010x}, not ferroce's {expected:#010x}: the FPGA runs another application")]
    AppId { found: u32, expected: u32 },
    #[error("no register {0} in the register map")]
    NoRegister(String),
    #[error("no PCI device {0}")]
    NoDevice(String),
    #[error("{path}")]
    Io { path: String, source: std::io::Error },
    #[cfg(feature = "sim")]
    #[error(transparent)]
    Sim(#[from] ferroce_sim::Error),
    #[error("bad request: {0}")]
    BadRequest(String),
    #[error("the engine refused {0}")]
    Refused(String),
    #[error("timed out waiting for {0}")]
    Timeout(String),
    #[error("{0}")]
    System(String),
    #[error("malformed completion: {0}")]
    BadCompletion(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
