//! The engine's host rings: entry layouts of the send queue (work
//! requests), the receive queue (receive buffers) and the completion ring,
//! shared by the RTL glue's documentation, the driver and the simulator.
//! All fields are little-endian; sizes are powers of two.

use crate::{Error, Result};

/// Bytes of a send-queue entry.
pub const WQE_BYTES: usize = 64;
/// Bytes of a receive-queue entry.
pub const RQE_BYTES: usize = 32;
/// Bytes of a completion.
pub const CQE_BYTES: usize = 32;

/// Work-request operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WqeOp {
    Write = 1,
    WriteImm = 2,
    Send = 3,
}

/// A send-queue entry: op @0, stream @1, conn @2 (u16), len @4, local @8,
/// remote @16, rkey @24, imm @28, id @32 (u32); the rest is zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wqe {
    pub op: WqeOp,
    pub stream: u8,
    pub conn: u16,
    pub len: u32,
    pub local: u64,
    pub remote: u64,
    pub rkey: u32,
    pub imm: u32,
    pub id: u32,
}

impl Wqe {
    pub fn encode(&self) -> [u8; WQE_BYTES] {
        let mut b = [0u8; WQE_BYTES];
        b[0] = self.op as u8;
        b[1] = self.stream;
        b[2..4].copy_from_slice(&self.conn.to_le_bytes());
        b[4..8].copy_from_slice(&self.len.to_le_bytes());
        b[8..16].copy_from_slice(&self.local.to_le_bytes());
        b[16..24].copy_from_slice(&self.remote.to_le_bytes());
        b[24..28].copy_from_slice(&self.rkey.to_le_bytes());
        b[28..32].copy_from_slice(&self.imm.to_le_bytes());
        b[32..36].copy_from_slice(&self.id.to_le_bytes());
        b
    }
}

/// A receive-queue entry: conn @0 (u16), stream @2, len @4, addr @8, id @16.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rqe {
    pub conn: u16,
    pub stream: u8,
    pub len: u32,
    pub addr: u64,
    pub id: u32,
}

impl Rqe {
    pub fn encode(&self) -> [u8; RQE_BYTES] {
        let mut b = [0u8; RQE_BYTES];
        b[0..2].copy_from_slice(&self.conn.to_le_bytes());
        b[2] = self.stream;
        b[4..8].copy_from_slice(&self.len.to_le_bytes());
        b[8..16].copy_from_slice(&self.addr.to_le_bytes());
        b[16..20].copy_from_slice(&self.id.to_le_bytes());
        b
    }
}

/// What a completion reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CqeKind {
    /// A work request is done (fully acknowledged, or failed).
    SendDone = 1,
    /// A SEND arrived in a receive buffer.
    Recv = 2,
    /// A WRITE with immediate arrived.
    WriteImm = 3,
}

/// A completion: kind @0, status @1 (0 success, 1 remote access error, 2
/// receive buffer too small, 3 malformed work request: operation,
/// connection or stream out of range, or zero length; such a request
/// completes at once, as a send completion with its id, length, connection
/// and stream as given), stream @2, flags @3 (bit0: `imm` is valid),
/// conn @4 (u16), msg_seq @8, len @12, imm @16, id @20.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cqe {
    pub kind: CqeKind,
    pub status: u8,
    pub stream: u8,
    pub conn: u16,
    pub msg_seq: u32,
    pub len: u32,
    pub imm: Option<u32>,
    pub id: u32,
}

impl Cqe {
    pub fn decode(b: &[u8]) -> Result<Cqe> {
        if b.len() < CQE_BYTES {
            return Err(Error::BadWorkRequest(format!("completion of {} bytes", b.len())));
        }
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let kind = match b[0] {
            1 => CqeKind::SendDone,
            2 => CqeKind::Recv,
            3 => CqeKind::WriteImm,
            k => return Err(Error::BadWorkRequest(format!("completion kind {k}"))),
        };
        Ok(Cqe {
            kind,
            status: b[1],
            stream: b[2],
            conn: u16::from_le_bytes([b[4], b[5]]),
            msg_seq: u32_at(8),
            len: u32_at(12),
            imm: (b[3] & 1 == 1).then(|| u32_at(16)),
            id: u32_at(20),
        })
    }
}
