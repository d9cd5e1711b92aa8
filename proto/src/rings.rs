//! The engine's host rings: entry layouts of the send queue (work
//! requests), the receive queue (receive buffers) and the completion ring,
//! as field tables like the wire headers': [`WQE`], [`RQE`] and [`CQE`]
//! drive [`Wqe::encode`], [`Rqe::encode`], [`Cqe::decode`] and the
//! generated `docs/rings.md`. All fields are little-endian and byte
//! aligned; sizes are powers of two.

use crate::{Error, Result};

/// Bytes of a send-queue entry.
pub const WQE_BYTES: usize = 64;
/// Bytes of a receive-queue entry.
pub const RQE_BYTES: usize = 32;
/// Bytes of a completion.
pub const CQE_BYTES: usize = 32;

/// One field of a ring entry: `bytes` little-endian bytes at `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingField {
    pub name: &'static str,
    pub offset: usize,
    pub bytes: usize,
    pub doc: &'static str,
}

impl RingField {
    const fn new(name: &'static str, offset: usize, bytes: usize, doc: &'static str) -> RingField {
        RingField { name, offset, bytes, doc }
    }

    /// The field's value in entry `b`.
    pub fn get(&self, b: &[u8]) -> u64 {
        b[self.offset..self.offset + self.bytes].iter().rev().fold(0, |v, &x| v << 8 | x as u64)
    }

    /// Write `v` (its low `bytes` bytes) into entry `b`.
    pub fn set(&self, b: &mut [u8], v: u64) {
        for (i, x) in b[self.offset..self.offset + self.bytes].iter_mut().enumerate() {
            *x = (v >> (8 * i)) as u8;
        }
    }

    /// Bits of the field.
    pub const fn bits(self) -> usize {
        self.bytes * 8
    }

    /// Bit offset of the field in its entry read as one little-endian
    /// number (as the engine holds an entry: 64-bit words, word 0 lowest).
    pub const fn bit_at(self) -> u64 {
        self.offset as u64 * 8
    }
}

/// A ring's entry layout.
#[derive(Debug, Clone, Copy)]
pub struct RingEntry {
    pub name: &'static str,
    pub len: usize,
    pub doc: &'static str,
    /// In offset order; bytes not covered are zero.
    pub fields: &'static [RingField],
}

impl RingEntry {
    /// Bytes from the entry's start to the end of its last field.
    pub const fn used(&self) -> usize {
        let mut end = 0;
        let mut i = 0;
        while i < self.fields.len() {
            let e = self.fields[i].offset + self.fields[i].bytes;
            if e > end {
                end = e;
            }
            i += 1;
        }
        end
    }
}

/// Fields of a send-queue entry (a work request).
pub mod wqe {
    use super::RingField as F;
    pub const OP: F = F::new("op", 0, 1, "1 WRITE, 2 WRITE with immediate, 3 SEND");
    pub const STREAM: F = F::new("stream", 1, 1, "stream of the connection");
    pub const CONN: F = F::new("conn", 2, 2, "connection");
    pub const LEN: F = F::new("len", 4, 4, "message length in bytes (0 is malformed)");
    pub const LOCAL: F = F::new("local", 8, 8, "address of the message in host memory");
    pub const REMOTE: F = F::new("remote", 16, 8, "WRITE: remote address; SEND: 0");
    pub const RKEY: F = F::new("rkey", 24, 4, "WRITE: remote key of the target region");
    pub const IMM: F = F::new("imm", 28, 4, "WRITE with immediate: the immediate value");
    pub const ID: F = F::new("id", 32, 4, "the caller's identifier, returned in the completion");
    pub const ALL: &[F] = &[OP, STREAM, CONN, LEN, LOCAL, REMOTE, RKEY, IMM, ID];
}

/// Fields of a receive-queue entry (a receive buffer).
pub mod rqe {
    use super::RingField as F;
    pub const CONN: F = F::new("conn", 0, 2, "connection");
    pub const STREAM: F = F::new("stream", 2, 1, "stream of the connection");
    pub const LEN: F = F::new("len", 4, 4, "buffer length in bytes");
    pub const ADDR: F = F::new("addr", 8, 8, "buffer address in host memory");
    pub const ID: F = F::new("id", 16, 4, "the caller's identifier, returned in the completion");
    pub const ALL: &[F] = &[CONN, STREAM, LEN, ADDR, ID];
}

/// Fields of a completion.
pub mod cqe {
    use super::RingField as F;
    pub const KIND: F = F::new("kind", 0, 1, "1 send done, 2 receive, 3 WRITE with immediate");
    pub const STATUS: F = F::new(
        "status",
        1,
        1,
        "0 success, 1 remote access error, 2 receive buffer too small, 3 malformed work request",
    );
    pub const STREAM: F = F::new("stream", 2, 1, "stream");
    pub const FLAGS: F = F::new("flags", 3, 1, "bit0: `imm` is valid");
    pub const CONN: F = F::new("conn", 4, 2, "connection");
    pub const MSG_SEQ: F = F::new("msg_seq", 8, 4, "message sequence number in the stream");
    pub const LEN: F = F::new("len", 12, 4, "message length in bytes");
    pub const IMM: F = F::new("imm", 16, 4, "the immediate value (WRITE with immediate)");
    pub const ID: F = F::new("id", 20, 4, "the work request's or receive buffer's id (send done, receive)");
    pub const ALL: &[F] = &[KIND, STATUS, STREAM, FLAGS, CONN, MSG_SEQ, LEN, IMM, ID];
}

/// The send queue's entry.
pub const WQE: RingEntry = RingEntry {
    name: "send queue",
    len: WQE_BYTES,
    doc: "A work request. A malformed one (unknown operation, connection or stream out of range, zero length) completes at once with status 3.",
    fields: wqe::ALL,
};
/// The receive queue's entry.
pub const RQE: RingEntry = RingEntry {
    name: "receive queue",
    len: RQE_BYTES,
    doc: "A receive buffer for a stream: the n-th SEND of the stream takes its n-th buffer.",
    fields: rqe::ALL,
};
/// The completion ring's entry.
pub const CQE: RingEntry = RingEntry {
    name: "completion ring",
    len: CQE_BYTES,
    doc: "Written by the engine; the host consumes it and writes `cq_cons`.",
    fields: cqe::ALL,
};
/// Every ring entry.
pub const ENTRIES: &[&RingEntry] = &[&WQE, &RQE, &CQE];

/// `docs/rings.md`, generated from the tables.
pub fn markdown() -> String {
    use std::fmt::Write;
    let mut s = String::from(
        "# Ring entries\n\nGenerated from `proto/src/rings.rs` by `cargo xtask docs`; do not edit. \
         Fields are little-endian; bytes no field covers are zero.\n",
    );
    for e in ENTRIES {
        let _ =
            write!(s, "\n## {} ({} bytes)\n\n{}\n\n| bytes | field | meaning |\n|---|---|---|\n", e.name, e.len, e.doc);
        for f in e.fields {
            let _ = writeln!(s, "| {}..{} | `{}` | {} |", f.offset, f.offset + f.bytes, f.name, f.doc);
        }
    }
    s
}

/// Work-request operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WqeOp {
    Write = 1,
    WriteImm = 2,
    Send = 3,
}

/// A send-queue entry (layout: [`WQE`]).
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
        for (f, v) in [
            (wqe::OP, self.op as u64),
            (wqe::STREAM, self.stream as u64),
            (wqe::CONN, self.conn as u64),
            (wqe::LEN, self.len as u64),
            (wqe::LOCAL, self.local),
            (wqe::REMOTE, self.remote),
            (wqe::RKEY, self.rkey as u64),
            (wqe::IMM, self.imm as u64),
            (wqe::ID, self.id as u64),
        ] {
            f.set(&mut b, v);
        }
        b
    }
}

/// A receive-queue entry (layout: [`RQE`]).
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
        for (f, v) in [
            (rqe::CONN, self.conn as u64),
            (rqe::STREAM, self.stream as u64),
            (rqe::LEN, self.len as u64),
            (rqe::ADDR, self.addr),
            (rqe::ID, self.id as u64),
        ] {
            f.set(&mut b, v);
        }
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

/// A completion (layout: [`CQE`]). A malformed work request completes at
/// once with status 3, as a send completion with its id, length,
/// connection and stream as given.
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
        let kind = match cqe::KIND.get(b) {
            1 => CqeKind::SendDone,
            2 => CqeKind::Recv,
            3 => CqeKind::WriteImm,
            k => return Err(Error::BadWorkRequest(format!("completion kind {k}"))),
        };
        Ok(Cqe {
            kind,
            status: cqe::STATUS.get(b) as u8,
            stream: cqe::STREAM.get(b) as u8,
            conn: cqe::CONN.get(b) as u16,
            msg_seq: cqe::MSG_SEQ.get(b) as u32,
            len: cqe::LEN.get(b) as u32,
            imm: (cqe::FLAGS.get(b) & 1 == 1).then(|| cqe::IMM.get(b) as u32),
            id: cqe::ID.get(b) as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_well_formed() {
        for e in ENTRIES {
            let mut end = 0;
            for f in e.fields {
                assert!(f.offset >= end, "{}.{} overlaps the field before it", e.name, f.name);
                assert!(f.bytes > 0 && f.bytes <= 8 && f.offset + f.bytes <= e.len, "{}.{}", e.name, f.name);
                end = f.offset + f.bytes;
            }
        }
    }

    #[test]
    fn entries_round_trip_through_the_tables_at_the_documented_bytes() {
        let w = Wqe {
            op: WqeOp::WriteImm,
            stream: 7,
            conn: 0x1234,
            len: 9,
            local: 1 << 40,
            remote: 3,
            rkey: 4,
            imm: 5,
            id: 0xdead_beef,
        };
        let b = w.encode();
        assert_eq!((b[0], b[1], b[2], b[3]), (2, 7, 0x34, 0x12));
        assert_eq!(&b[32..36], &0xdead_beefu32.to_le_bytes());
        assert!(b[36..].iter().all(|&x| x == 0));
        let r = Rqe { conn: 3, stream: 1, len: 100, addr: 0x1000, id: 77 }.encode();
        assert_eq!((rqe::CONN.get(&r), rqe::ADDR.get(&r), r[16]), (3, 0x1000, 77));
        let mut c = [0u8; CQE_BYTES];
        for (f, v) in [(cqe::KIND, 3), (cqe::STATUS, 1), (cqe::FLAGS, 1), (cqe::IMM, 42), (cqe::ID, 9), (cqe::CONN, 5)]
        {
            f.set(&mut c, v);
        }
        assert_eq!((c[0], c[1], c[3], c[16], c[20], c[4]), (3, 1, 1, 42, 9, 5));
        let d = Cqe::decode(&c).unwrap();
        assert_eq!((d.kind, d.status, d.imm, d.id, d.conn), (CqeKind::WriteImm, 1, Some(42), 9, 5));
        assert!(markdown().contains("| 32..36 | `id` |"), "{}", markdown());
    }
}
