//! Receive side shared by ferroce and the baseline: placement of one data
//! packet at its final address (after the MR or receive-buffer check), and
//! message completion in message order per stream.

use std::collections::{HashMap, VecDeque};

use super::mr::MrTable;
use super::msgwin::MsgWindow;
use crate::transport::{Completion, CompletionKind, CompletionStatus, HostMemory, RecvBuffer};
use crate::types::{ConnId, MsgSeq, StreamId};
use crate::wire::{CommonRepr, DataRepr, NakCode, Opcode};

/// Messages of one stream that may be in flight at once: a sender starts
/// message n + MSG_WINDOW only after message n has completed, so the
/// receiver tracks at most this many per stream (the RTL keeps one slot each).
pub const MSG_WINDOW: u32 = crate::params::MSG_WINDOW as u32;

/// Result of offering one (new, never seen) data packet for placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Written to memory; the packet counts as received.
    Placed,
    /// Refused for good; the packet counts as received (its PSN is consumed)
    /// and the sender is told with a NAK.
    Refused(NakCode),
    /// Not yet placeable (no receive buffer): the packet is not received; the
    /// sender retries.
    NotReady,
}

#[derive(Debug, Default)]
struct RxStream {
    /// Receive buffers in posting order; `buffers[0]` has RSN `base_rsn`.
    buffers: VecDeque<RecvBuffer>,
    base_rsn: u32,
    window: MsgWindow,
}

/// Per-endpoint receive state for all connections.
#[derive(Debug, Default)]
pub struct Delivery {
    pub mrs: MrTable,
    streams: HashMap<(ConnId, StreamId), RxStream>,
    completions: VecDeque<Completion>,
    /// Messages begun and not yet delivered, per connection.
    partial: HashMap<ConnId, usize>,
}

impl Delivery {
    /// No buffers, no regions, for an engine whose DMA addresses have
    /// `addr_bits` bits (`MrTable::with_addr_bits`).
    pub fn with_addr_bits(addr_bits: u32) -> Delivery {
        Delivery { mrs: MrTable::with_addr_bits(addr_bits), ..Delivery::default() }
    }

    /// Post a receive buffer.
    pub fn post_recv(&mut self, rb: RecvBuffer) {
        self.streams.entry((rb.conn, rb.stream)).or_default().buffers.push_back(rb);
    }

    /// Offer a packet that the transport has not seen before. `conn` is the
    /// local connection the packet arrived on (after the source check).
    pub fn place(
        &mut self,
        conn: ConnId,
        c: &CommonRepr,
        d: &DataRepr,
        payload: &[u8],
        mem: &mut dyn HostMemory,
    ) -> Placement {
        let st = self.streams.entry((conn, c.stream)).or_default();
        // Messages already delivered, beyond the stream's message window
        // (which a sender never exceeds) or contradicting their earlier
        // packets are refused.
        if !st.window.check(d.msg_seq.0, d.msg_len, c.opcode) {
            return Placement::Refused(NakCode::Access);
        }
        let (status, target) = match c.opcode {
            Opcode::Write | Opcode::WriteImm => {
                let addr = d.remote_addr.checked_add(d.offset as u64);
                let ok = addr.is_some()
                    && self.mrs.check_write(conn, d.rkey, d.remote_addr, d.msg_len as u64)
                    && self.mrs.check_write(conn, d.rkey, addr.unwrap(), d.payload_len as u64);
                if ok {
                    (None, addr)
                } else {
                    (Some(CompletionStatus::RemoteAccessError), None)
                }
            }
            Opcode::Send => {
                let idx = d.rkey.0.wrapping_sub(st.base_rsn) as usize;
                let Some(buf) = st.buffers.get(idx).copied() else {
                    return Placement::NotReady;
                };
                if d.msg_len > buf.len {
                    (Some(CompletionStatus::RecvTooSmall), None)
                } else {
                    (None, buf.addr.checked_add(d.offset as u64))
                }
            }
            Opcode::Ack | Opcode::Nak => unreachable!("only data is placed"),
        };
        if let Some(addr) = target {
            mem.write(addr, payload);
        }
        if !st.window.has(d.msg_seq.0) {
            *self.partial.entry(conn).or_default() += 1;
        }
        // A refused message is finished: its remaining packets are refused
        // too (it is no longer pending) and the sender stops sending them.
        st.window.record(d.msg_seq.0, d.msg_len, c.opcode, d.immediate, payload.len() as u32, status);
        let delivered = Self::deliver(st, conn, c.stream, &mut self.completions);
        if delivered > 0 {
            *self.partial.get_mut(&conn).expect("counted when begun") -= delivered;
        }
        match status {
            None => Placement::Placed,
            Some(CompletionStatus::RecvTooSmall) => Placement::Refused(NakCode::RecvTooSmall),
            Some(_) => Placement::Refused(NakCode::Access),
        }
    }

    /// Deliver what is complete at the head of the stream; returns how many messages.
    fn deliver(st: &mut RxStream, conn: ConnId, stream: StreamId, out: &mut VecDeque<Completion>) -> usize {
        let mut n = 0;
        while let Some((seq, m)) = st.window.pop() {
            n += 1;
            let msg_seq = MsgSeq(seq);
            let status = m.failed.unwrap_or(CompletionStatus::Success);
            match m.opcode {
                Opcode::Send => {
                    // The buffer is consumed whether or not the SEND fitted.
                    let rb = st.buffers.pop_front().expect("a SEND was matched to a buffer");
                    st.base_rsn = st.base_rsn.wrapping_add(1);
                    out.push_back(Completion {
                        id: rb.id,
                        conn,
                        stream,
                        msg_seq,
                        kind: CompletionKind::Recv,
                        status,
                        len: m.len,
                        imm: None,
                    });
                }
                Opcode::WriteImm if status == CompletionStatus::Success => out.push_back(Completion {
                    id: crate::types::WrId(0),
                    conn,
                    stream,
                    msg_seq,
                    kind: CompletionKind::WriteImm,
                    status,
                    len: m.len,
                    imm: Some(m.imm),
                }),
                _ => {}
            }
        }
        n
    }

    /// Has `conn` a message begun and not yet delivered? (Its sender is
    /// still active even if its packets are far apart.)
    pub fn has_partial(&self, conn: ConnId) -> bool {
        self.partial.get(&conn).is_some_and(|&n| n > 0)
    }

    /// Forget connection `conn`'s streams (message windows and receive
    /// buffers not yet used): it is torn down, and a new life of it starts
    /// every stream afresh.
    pub fn forget(&mut self, conn: ConnId) {
        self.streams.retain(|(c, _), _| *c != conn);
        self.partial.remove(&conn);
    }

    /// The next receive completion.
    pub fn poll_completion(&mut self) -> Option<Completion> {
        self.completions.pop_front()
    }
}
