//! The one error type of this crate.

use crate::types::{ConnId, PathId, StreamId};

/// Everything that can go wrong in `ferroce-proto`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("frame truncated: {what} needs {needed} bytes, {available} available")]
    Truncated { what: &'static str, needed: usize, available: usize },
    #[error("bad {field}: {value:#x}")]
    BadField { field: &'static str, value: u64 },
    #[error("unknown ferroce opcode {0:#04x}")]
    UnknownOpcode(u8),
    #[error("length mismatch: {what} says {declared} bytes, frame carries {actual}")]
    BadLength { what: &'static str, declared: usize, actual: usize },
    #[error("CRC mismatch: trailer {trailer:#010x}, computed {computed:#010x}")]
    BadCrc { trailer: u32, computed: u32 },
    #[error("IPv4 header checksum mismatch")]
    BadIpChecksum,
    #[error("not a ferroce frame (ethertype {ethertype:#06x}, ip proto {proto}, udp dport {dport})")]
    NotFerroce { ethertype: u16, proto: u8, dport: u16 },
    #[error("unknown connection {0}")]
    UnknownConnection(ConnId),
    #[error("connection {conn}: path {path} out of range")]
    BadPath { conn: ConnId, path: PathId },
    #[error("connection {conn}: stream {stream} out of range")]
    BadStream { conn: ConnId, stream: StreamId },
    #[error("invalid configuration: {0}")]
    BadConfig(String),
    #[error("invalid work request: {0}")]
    BadWorkRequest(String),
    #[error("memory region overlaps or is invalid: {0}")]
    BadMemoryRegion(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = core::result::Result<T, Error>;
