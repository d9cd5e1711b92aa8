//! What every transport model offers: the API that the fabric harness, the
//! tests and the benchmark drive, for ferroce and the go-back-N baseline
//! alike.

use crate::types::{ConnId, Iova, MsgSeq, Psn, Rkey, StreamId, Time, WrId};
use crate::Result;

/// Host memory as the NIC sees it through DMA. The harness implements it;
/// the model never owns memory.
pub trait HostMemory {
    /// DMA read of `buf.len()` bytes at `addr`.
    fn read(&self, addr: Iova, buf: &mut [u8]);
    /// DMA write of `data` at `addr`.
    fn write(&mut self, addr: Iova, data: &[u8]);
}

/// What a connection's two ends agree on at setup besides its settings
/// (a connection manager's exchange): the generation every packet of this
/// life of the connection carries, and the first PSN of every path in each
/// direction. Setting a connection up again with a new generation makes
/// the packets of its earlier life, still on the fabric, foreign to it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Life {
    pub generation: u8,
    /// First PSN this end sends on every path.
    pub tx_psn: Psn,
    /// First PSN expected from the peer on every path (its `tx_psn`).
    pub rx_psn: Psn,
}

/// A work request posted to a send queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkRequest {
    /// RDMA WRITE of `len` bytes at `local` to `remote` in the peer's region
    /// `rkey`, optionally with an immediate that completes at the receiver.
    Write {
        id: WrId,
        conn: ConnId,
        stream: StreamId,
        local: Iova,
        len: u32,
        remote: Iova,
        rkey: Rkey,
        imm: Option<u32>,
    },
    /// SEND of `len` bytes at `local`, taking the peer's next receive buffer
    /// posted on the same stream.
    Send { id: WrId, conn: ConnId, stream: StreamId, local: Iova, len: u32 },
}

impl WorkRequest {
    /// The request's id.
    pub fn id(&self) -> WrId {
        match *self {
            WorkRequest::Write { id, .. } | WorkRequest::Send { id, .. } => id,
        }
    }
    /// Connection, stream, local address and length.
    pub fn parts(&self) -> (ConnId, StreamId, Iova, u32) {
        match *self {
            WorkRequest::Write { conn, stream, local, len, .. }
            | WorkRequest::Send { conn, stream, local, len, .. } => (conn, stream, local, len),
        }
    }
}

/// A receive buffer posted for SENDs arriving on (`conn`, `stream`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecvBuffer {
    pub id: WrId,
    pub conn: ConnId,
    pub stream: StreamId,
    pub addr: Iova,
    pub len: u32,
}

/// Access rights of a memory region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    pub remote_write: bool,
}

/// A memory region open to remote WRITEs from one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryRegion {
    pub rkey: Rkey,
    pub base: Iova,
    pub len: u64,
    pub access: Access,
    /// The only connection whose WRITEs may land here.
    pub conn: ConnId,
}

/// What a completion reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionKind {
    /// A WRITE or SEND posted here was fully acknowledged (or failed).
    SendDone,
    /// A SEND arrived in receive buffer `WrId` (`len` bytes).
    Recv,
    /// A WRITE with immediate arrived (`len` bytes at the target).
    WriteImm,
}

/// Outcome of a work request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionStatus {
    Success,
    /// The peer refused a WRITE (rkey, bounds, permission, owner).
    RemoteAccessError,
    /// The SEND did not fit the receive buffer.
    RecvTooSmall,
}

impl CompletionStatus {
    /// Every status, in code order.
    pub const ALL: [CompletionStatus; 3] =
        [CompletionStatus::Success, CompletionStatus::RemoteAccessError, CompletionStatus::RecvTooSmall];
    /// The status code in completion-queue entries and the RTL's ports.
    pub const fn code(self) -> u8 {
        match self {
            CompletionStatus::Success => 0,
            CompletionStatus::RemoteAccessError => 1,
            CompletionStatus::RecvTooSmall => 2,
        }
    }
}

/// One completion, delivered in message order per (connection, stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub id: WrId,
    pub conn: ConnId,
    pub stream: StreamId,
    pub msg_seq: MsgSeq,
    pub kind: CompletionKind,
    pub status: CompletionStatus,
    pub len: u32,
    pub imm: Option<u32>,
}

/// Counters every transport keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub tx_data: u64,
    pub tx_retx: u64,
    pub tx_acks: u64,
    pub tx_naks: u64,
    pub rx_frames: u64,
    pub rx_data: u64,
    pub rx_dup: u64,
    /// Duplicates that were retransmissions: a retransmission that was not needed.
    pub rx_dup_retx: u64,
    pub rx_out_of_window: u64,
    pub rx_malformed: u64,
    pub rx_bad_conn: u64,
    pub rx_access_violation: u64,
    pub rx_no_recv: u64,
    pub rx_ecn_ce: u64,
    pub bytes_placed: u64,
    pub rtos: u64,
    /// Packets found lost from what ACKs and NAKs reported, before any
    /// timeout: SACK holes (ferroce), sequence-error NAKs (go-back-N, one
    /// per NAK).
    pub lost_found_by_ack: u64,
    pub repaths: u64,
    pub naks_received: u64,
    /// Packets resent by tail probes (`model::Recovery::probe`): not
    /// counted in `lost_found_by_ack`.
    pub tail_probes: u64,
}

/// A sans-IO transport endpoint (one NIC). Frames in and out are whole
/// Ethernet frames without FCS.
pub trait Transport {
    /// Queue a work request. Errors leave nothing queued.
    fn post(&mut self, wr: WorkRequest) -> Result<()>;
    /// Post a receive buffer.
    fn post_recv(&mut self, rb: RecvBuffer) -> Result<()>;
    /// Open a memory region to remote WRITEs.
    fn register_mr(&mut self, mr: MemoryRegion) -> Result<()>;
    /// A frame arrived from the network. Malformed frames are counted and dropped.
    fn handle_frame(&mut self, now: Time, frame: &[u8], mem: &mut dyn HostMemory);
    /// The next frame to put on the wire now, if any (pacing and windows allowing).
    fn poll_transmit(&mut self, now: Time, mem: &dyn HostMemory) -> Option<Vec<u8>>;
    /// The earliest time at which a timer fires or pacing allows a frame.
    fn poll_timeout(&self) -> Option<Time>;
    /// Run timers due at `now`.
    fn handle_timeout(&mut self, now: Time);
    /// The next completion.
    fn poll_completion(&mut self) -> Option<Completion>;
    /// Counters.
    fn stats(&self) -> Stats;
    /// Work requests posted and not yet completed.
    fn outstanding(&self) -> usize;
}
