//! Send side shared by ferroce and the baseline: work requests per stream,
//! segmentation into MTU-sized packets, byte accounting of acknowledgements
//! and send completions in message order per stream.

use std::collections::VecDeque;

use crate::model::delivery::MSG_WINDOW;
use crate::transport::{Completion, CompletionKind, CompletionStatus, WorkRequest};
use crate::types::{ConnId, Iova, MsgSeq, Rkey, StreamId};
use crate::wire::{Body, CommonRepr, DataRepr, Opcode, TransportRepr};
use crate::{Error, Result};

/// One packet's worth of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub stream: StreamId,
    pub msg_seq: MsgSeq,
    pub opcode: Opcode,
    pub msg_len: u32,
    pub offset: u32,
    pub len: u16,
    /// Where the payload is read from in local memory.
    pub local: Iova,
    pub remote_addr: Iova,
    /// rkey for WRITE, receive sequence number for SEND.
    pub rkey: Rkey,
    pub immediate: u32,
    /// Last segment of its message.
    pub last: bool,
}

impl Segment {
    /// The transport header of this segment sent as `psn` on `path` of the
    /// connection the peer calls `conn`, in its life `generation`.
    pub fn transport(
        &self,
        conn: ConnId,
        path: crate::PathId,
        psn: crate::Psn,
        timestamp: u32,
        flags: u8,
        generation: u8,
    ) -> TransportRepr {
        TransportRepr {
            common: CommonRepr {
                opcode: self.opcode,
                conn,
                path,
                psn,
                timestamp,
                stream: self.stream,
                flags,
                generation,
            },
            body: Body::Data(DataRepr {
                msg_seq: self.msg_seq,
                msg_len: self.msg_len,
                offset: self.offset,
                payload_len: self.len,
                remote_addr: self.remote_addr,
                rkey: self.rkey,
                immediate: self.immediate,
            }),
        }
    }

    /// Its payload, read from host memory (a retransmission reads it again).
    pub fn payload(&self, mem: &dyn crate::HostMemory) -> Vec<u8> {
        let mut payload = vec![0u8; self.len as usize];
        mem.read(self.local, &mut payload);
        payload
    }
}

#[derive(Debug)]
struct TxMsg {
    wr: WorkRequest,
    rsn: u32,
    next_offset: u32,
    acked: u64,
    failed: Option<CompletionStatus>,
}

impl TxMsg {
    fn len(&self) -> u32 {
        self.wr.parts().3
    }
}

#[derive(Debug, Default)]
struct TxStream {
    msgs: VecDeque<TxMsg>,
    /// Message sequence number of `msgs[0]`.
    base_seq: u32,
    /// Index in `msgs` of the first message not fully segmented.
    seg_idx: usize,
    next_rsn: u32,
}

/// All streams of one connection.
#[derive(Debug)]
pub struct SendQueue {
    conn: ConnId,
    streams: Vec<TxStream>,
    rr: usize,
    completions: VecDeque<Completion>,
}

impl SendQueue {
    /// A queue for `streams` streams of `conn`.
    pub fn new(conn: ConnId, streams: u16) -> SendQueue {
        SendQueue {
            conn,
            streams: (0..streams).map(|_| TxStream::default()).collect(),
            rr: 0,
            completions: VecDeque::new(),
        }
    }

    /// Queue a work request (already known to be for this connection).
    pub fn post(&mut self, wr: WorkRequest) -> Result<()> {
        let (_, stream, local, len) = wr.parts();
        let st = self.streams.get_mut(stream.0 as usize).ok_or(Error::BadStream { conn: self.conn, stream })?;
        if len == 0 {
            return Err(Error::BadWorkRequest("zero-length message".into()));
        }
        if local.checked_add(len as u64).is_none() {
            return Err(Error::BadWorkRequest(format!("local buffer {local}+{len} wraps")));
        }
        if let WorkRequest::Write { remote, .. } = wr {
            if remote.checked_add(len as u64).is_none() {
                return Err(Error::BadWorkRequest(format!("remote buffer {remote}+{len} wraps")));
            }
        }
        let rsn = st.next_rsn;
        if matches!(wr, WorkRequest::Send { .. }) {
            st.next_rsn = st.next_rsn.wrapping_add(1);
        }
        st.msgs.push_back(TxMsg { wr, rsn, next_offset: 0, acked: 0, failed: None });
        Ok(())
    }

    /// Is there anything not yet segmented?
    pub fn has_data(&self) -> bool {
        self.streams.iter().any(|s| s.seg_idx < s.msgs.len())
    }

    /// Messages posted and not completed.
    pub fn outstanding(&self) -> usize {
        self.streams.iter().map(|s| s.msgs.len()).sum()
    }

    fn segment_of(&self, stream: usize, idx: usize, offset: u32, mtu: u32) -> Segment {
        let st = &self.streams[stream];
        let m = &st.msgs[idx];
        let len = (m.len() - offset).min(mtu);
        let (opcode, remote_addr, rkey, immediate) = match m.wr {
            WorkRequest::Write { remote, rkey, imm: None, .. } => (Opcode::Write, remote, rkey, 0),
            WorkRequest::Write { remote, rkey, imm: Some(v), .. } => (Opcode::WriteImm, remote, rkey, v),
            WorkRequest::Send { .. } => (Opcode::Send, Iova(0), Rkey(m.rsn), 0),
        };
        Segment {
            stream: StreamId(stream as u16),
            msg_seq: MsgSeq(st.base_seq.wrapping_add(idx as u32)),
            opcode,
            msg_len: m.len(),
            offset,
            len: len as u16,
            local: Iova(m.wr.parts().2 .0 + offset as u64),
            remote_addr,
            rkey,
            immediate,
            last: offset + len == m.len(),
        }
    }

    /// The next new segment, streams served round-robin so that none blocks
    /// another.
    pub fn next_segment(&mut self, mtu: u32) -> Option<Segment> {
        let n = self.streams.len();
        for k in 0..n {
            let s = (self.rr + k) % n;
            let st = &mut self.streams[s];
            while st.seg_idx < st.msgs.len() && st.msgs[st.seg_idx].next_offset == st.msgs[st.seg_idx].len() {
                st.seg_idx += 1;
            }
            // Stay within the receiver's message window.
            if st.seg_idx >= st.msgs.len() || st.seg_idx >= MSG_WINDOW as usize {
                continue;
            }
            let idx = st.seg_idx;
            let offset = st.msgs[idx].next_offset;
            let seg = self.segment_of(s, idx, offset, mtu);
            let st = &mut self.streams[s];
            st.msgs[idx].next_offset += seg.len as u32;
            if st.msgs[idx].next_offset == st.msgs[idx].len() {
                st.seg_idx += 1;
            }
            self.rr = (s + 1) % n;
            return Some(seg);
        }
        None
    }

    /// Rebuild a segment sent earlier, for retransmission. `None` if its
    /// message has completed or failed meanwhile.
    pub fn resegment(&self, stream: StreamId, msg_seq: MsgSeq, offset: u32, mtu: u32) -> Option<Segment> {
        let st = self.streams.get(stream.0 as usize)?;
        let idx = msg_seq.0.wrapping_sub(st.base_seq) as usize;
        let m = st.msgs.get(idx)?;
        if m.failed.is_some() {
            return None;
        }
        Some(self.segment_of(stream.0 as usize, idx, offset, mtu))
    }

    /// `len` bytes of a message were acknowledged.
    pub fn ack(&mut self, stream: StreamId, msg_seq: MsgSeq, len: u32) {
        let Some(st) = self.streams.get_mut(stream.0 as usize) else {
            return;
        };
        let idx = msg_seq.0.wrapping_sub(st.base_seq) as usize;
        if let Some(m) = st.msgs.get_mut(idx) {
            m.acked += len as u64;
            debug_assert!(m.acked <= m.len() as u64, "acked more than the message");
        }
        self.complete(stream);
    }

    /// The peer refused a message: stop sending it; it completes with
    /// `status` once what is in flight is accounted for.
    pub fn fail(&mut self, stream: StreamId, msg_seq: MsgSeq, status: CompletionStatus) {
        let Some(st) = self.streams.get_mut(stream.0 as usize) else {
            return;
        };
        let idx = msg_seq.0.wrapping_sub(st.base_seq) as usize;
        if let Some(m) = st.msgs.get_mut(idx) {
            if m.failed.is_none() {
                m.failed = Some(status);
                let unsent = m.len() - m.next_offset;
                m.acked += unsent as u64;
                m.next_offset = m.len();
            }
        }
        self.complete(stream);
    }

    fn complete(&mut self, stream: StreamId) {
        let st = &mut self.streams[stream.0 as usize];
        while let Some(m) = st.msgs.front() {
            if m.next_offset != m.len() || m.acked < m.len() as u64 {
                break;
            }
            let m = st.msgs.pop_front().expect("front exists");
            let msg_seq = MsgSeq(st.base_seq);
            st.base_seq = st.base_seq.wrapping_add(1);
            st.seg_idx = st.seg_idx.saturating_sub(1);
            let imm = match m.wr {
                WorkRequest::Write { imm, .. } => imm,
                WorkRequest::Send { .. } => None,
            };
            self.completions.push_back(Completion {
                id: m.wr.id(),
                conn: self.conn,
                stream,
                msg_seq,
                kind: CompletionKind::SendDone,
                status: m.failed.unwrap_or(CompletionStatus::Success),
                len: m.len(),
                imm,
            });
        }
    }

    /// Is a send completion waiting?
    pub fn has_completion(&self) -> bool {
        !self.completions.is_empty()
    }

    /// The next send completion.
    pub fn poll_completion(&mut self) -> Option<Completion> {
        self.completions.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(id: u64, stream: u16, len: u32) -> WorkRequest {
        WorkRequest::Write {
            id: crate::WrId(id),
            conn: ConnId(1),
            stream: StreamId(stream),
            local: Iova(0x1000),
            len,
            remote: Iova(0x2000),
            rkey: Rkey(1),
            imm: None,
        }
    }

    #[test]
    fn a_stream_never_has_more_than_the_message_window_in_flight() {
        let mut q = SendQueue::new(ConnId(1), 2);
        for i in 0..20 {
            q.post(write(i, 0, 1)).unwrap();
        }
        q.post(write(99, 1, 1)).unwrap();
        let mut got = Vec::new();
        while let Some(s) = q.next_segment(1024) {
            got.push((s.stream.0, s.msg_seq.0));
        }
        assert_eq!(got.iter().filter(|g| g.0 == 0).count(), MSG_WINDOW as usize);
        assert!(got.contains(&(1, 0)), "another stream is not held up");
        q.ack(StreamId(0), MsgSeq(0), 1);
        assert_eq!(q.poll_completion().map(|c| c.id.0), Some(0));
        let s = q.next_segment(1024).expect("the window moved");
        assert_eq!((s.stream.0, s.msg_seq.0), (0, MSG_WINDOW));
    }
}
