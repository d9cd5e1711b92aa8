//! The ferroce reference transport: the golden model the RTL is checked
//! against. Sans-IO and deterministic: time comes in as arguments, randomness
//! from a seed in [`EndpointConfig`].
//!
//! Per connection, P paths each with their own 24-bit PSN space, a 256-entry
//! send log and a 256-bit circular SACK bitmap at the receiver:
//! * a hole below the highest SACKed PSN of a path is loss (paths are FIFO),
//!   and exactly that PSN is resent on the same path at once;
//! * a retransmission is known lost when a PSN sent after it on the same path
//!   is SACKed while it is not (no timeout needed);
//! * an RTO covers tail loss; a path that times out is re-pathed (new UDP
//!   source port), one that keeps timing out is retired from new data;
//! * congestion: per-path window with ECN AIMD, connection pacing at the
//!   receiver's fair-share rate hint.

pub mod ackgen;
pub mod cc;
mod delivery;
mod endpoint;
pub mod health;
pub mod mr;
pub mod msgwin;
pub mod recovery;
pub mod retx;
pub mod sack;
pub mod sendq;
pub mod spray;

pub use delivery::{Delivery, Placement, MSG_WINDOW};
pub use endpoint::{ConnConfig, Endpoint, EndpointConfig, PathSnapshot};
pub use recovery::{Recovery, RepairRoute};

use crate::types::Time;

/// Picoseconds to put `bytes` on a wire running at `rate_mbps`.
pub fn wire_time(bytes: usize, rate_mbps: u32) -> Time {
    (bytes as u64 * 8 * 1_000_000).div_ceil(rate_mbps.max(1) as u64)
}
