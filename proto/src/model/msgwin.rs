//! Message tracking of one stream at the receiver, in the form the RTL
//! `rx_msgs` block keeps it: the next message to deliver and one slot for
//! each of the [`MSG_WINDOW`] messages after it.

use std::collections::BTreeMap;

use super::delivery::MSG_WINDOW;
use crate::transport::CompletionStatus;
use crate::wire::Opcode;

/// A message being received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxMsg {
    pub opcode: Opcode,
    pub len: u32,
    /// Bytes received (saturating); a failed message counts as complete.
    pub received: u32,
    pub imm: u32,
    pub failed: Option<CompletionStatus>,
}

/// One stream's window of messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MsgWindow {
    next: u32,
    msgs: BTreeMap<u32, RxMsg>,
}

impl MsgWindow {
    /// The next message to deliver.
    pub fn next(&self) -> u32 {
        self.next
    }

    /// May a packet of message `seq` (of `len` bytes, `opcode`) be taken?
    /// Not if the message was delivered already or lies beyond the window,
    /// or if it contradicts what earlier packets said of the message.
    pub fn check(&self, seq: u32, len: u32, opcode: Opcode) -> bool {
        if seq.wrapping_sub(self.next) >= MSG_WINDOW {
            return false;
        }
        self.msgs.get(&seq).is_none_or(|m| m.len == len && m.opcode == opcode)
    }

    /// Record a packet that passed `check`: `payload` bytes of message
    /// `seq`; `failed` finishes the message with that status.
    pub fn record(
        &mut self,
        seq: u32,
        len: u32,
        opcode: Opcode,
        imm: u32,
        payload: u32,
        failed: Option<CompletionStatus>,
    ) {
        let m = self.msgs.entry(seq).or_insert(RxMsg { opcode, len, received: 0, imm, failed: None });
        m.received = m.received.saturating_add(payload);
        if failed.is_some() {
            m.failed = m.failed.or(failed);
            m.received = m.len;
        }
    }

    /// Is message `seq` begun and not delivered?
    pub fn has(&self, seq: u32) -> bool {
        self.msgs.contains_key(&seq)
    }

    /// Deliver the next message if it is complete.
    pub fn pop(&mut self) -> Option<(u32, RxMsg)> {
        let m = self.msgs.get(&self.next)?;
        if m.received < m.len {
            return None;
        }
        let seq = self.next;
        let m = self.msgs.remove(&seq).expect("present");
        self.next = seq.wrapping_add(1);
        Some((seq, m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivers_in_order_within_the_window() {
        let mut w = MsgWindow::default();
        assert!(w.check(1, 10, Opcode::Send));
        w.record(1, 10, Opcode::Send, 0, 10, None);
        assert_eq!(w.pop(), None, "message 0 first");
        w.record(0, 5, Opcode::Write, 0, 5, None);
        assert_eq!(w.pop().map(|p| p.0), Some(0));
        assert_eq!(w.pop().map(|p| p.0), Some(1));
        assert!(!w.check(0, 5, Opcode::Write), "delivered already");
        assert!(!w.check(2 + MSG_WINDOW, 5, Opcode::Write), "beyond the window");
        w.record(3, 100, Opcode::WriteImm, 7, 10, None);
        assert!(!w.check(3, 99, Opcode::WriteImm), "length contradicts");
        w.record(3, 100, Opcode::WriteImm, 7, 0, Some(CompletionStatus::RemoteAccessError));
        w.record(2, 1, Opcode::Write, 0, 1, None);
        assert_eq!(w.pop().map(|p| p.0), Some(2));
        let (seq, m) = w.pop().unwrap();
        assert_eq!((seq, m.failed, m.imm), (3, Some(CompletionStatus::RemoteAccessError), 7));
    }
}
