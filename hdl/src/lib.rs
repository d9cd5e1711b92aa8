//! ferroce-hdl: the transport engine's RTL blocks in rust-hdl, emitted as
//! Verilog (see [`emit`]).
//!
//! * [`blocks`]: the building-block library every block is written with
//!   (sized constants, keyed block-RAM state, trees over 256-bit vectors,
//!   register arrays);
//! * [`rx`]: the receive path, from MAC frames to DMA writes, ACKs and NAKs;
//! * [`tx`]: the send path, from work requests to frames;
//! * [`csr`]: the register file, generated from the register map;
//! * [`engine`]: the engine top (both paths, the register file, timers and
//!   pacing).

// rust-hdl block types carry no Debug.
#![allow(missing_debug_implementations)]

pub use rust_hdl;

pub mod blocks;
pub mod board;
pub mod corundum;
pub mod emit;
pub mod engine;
pub mod layout;
pub mod presets;
pub mod primitives;
pub mod rx;
pub mod tx;

/// The register file of the default build (`corundum`); each preset has
/// its own (`presets::<name>::csr`).
pub use presets::corundum::csr;
