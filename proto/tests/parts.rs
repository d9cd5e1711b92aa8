//! The model's building blocks that the RTL blocks mirror, on their own:
//! their accessors and edge cases, with hand-worked expectations.

use ferroce_proto::model::msgwin::MsgWindow;
use ferroce_proto::model::retx::PathLog;
use ferroce_proto::model::sack::{SackTracker, Verdict};
use ferroce_proto::model::sendq::{Segment, SendQueue};
use ferroce_proto::transport::{CompletionStatus, WorkRequest};
use ferroce_proto::wire::Opcode;
use ferroce_proto::{ConnId, Iova, MsgSeq, Psn, Rkey, StreamId, WrId};

#[test]
fn the_message_window_reports_the_next_message_and_which_are_begun() {
    let mut w = MsgWindow::default();
    assert_eq!(w.next(), 0);
    assert!(!w.has(0) && !w.has(1));
    w.record(1, 4, Opcode::Write, 0, 4, None);
    assert!(w.has(1) && !w.has(0), "message 1 begun, 0 not");
    assert_eq!(w.pop(), None);
    w.record(0, 2, Opcode::Send, 0, 1, None);
    assert!(w.has(0));
    assert_eq!(w.pop(), None, "message 0 has 1 of 2 bytes");
    w.record(0, 2, Opcode::Send, 0, 1, None);
    assert_eq!(w.pop().map(|(seq, m)| (seq, m.received)), Some((0, 2)));
    assert_eq!(w.pop().map(|(seq, m)| (seq, m.received)), Some((1, 4)));
    assert_eq!(w.next(), 2);
    assert!(!w.has(0) && !w.has(1), "delivered messages are gone");
    // A failure finishes a message whatever it has received.
    w.record(2, 100, Opcode::WriteImm, 5, 10, Some(CompletionStatus::RemoteAccessError));
    let (seq, m) = w.pop().unwrap();
    assert_eq!((seq, m.received, m.failed, m.imm), (2, 100, Some(CompletionStatus::RemoteAccessError), 5));
    assert_eq!(w.next(), 3);
}

#[test]
fn a_path_log_reports_its_window_edges() {
    let mut l = PathLog::starting_at(Psn::new(7));
    assert_eq!((l.una(), l.next(), l.span()), (Psn::new(7), Psn::new(7), 0));
    for _ in 0..3 {
        l.send_new();
    }
    assert_eq!((l.una(), l.next(), l.span()), (Psn::new(7), Psn::new(10), 3));
    l.on_ack(Psn::new(9), &[0; 32]).unwrap();
    assert_eq!((l.una(), l.next(), l.span(), l.outstanding()), (Psn::new(9), Psn::new(10), 1, 1));
}

#[test]
fn only_a_psn_in_flight_not_sacked_and_not_held_can_be_held_and_only_a_held_one_released() {
    let mut l = PathLog::starting_at(Psn::new(20));
    for _ in 0..4 {
        l.send_new(); // 20..=23
    }
    let mut sack = [0u8; 32];
    sack[22 / 8] |= 1 << (22 % 8);
    l.on_ack(Psn::new(21), &sack).unwrap(); // 20 acknowledged, 22 SACKed, 21 queued as lost
    assert!(!l.hold(Psn::new(20)), "acknowledged");
    assert!(!l.hold(Psn::new(24)), "never sent");
    assert!(!l.hold(Psn::new(22)), "SACKed");
    assert!(!l.release(Psn::new(23)), "not held");
    assert!(l.hold(Psn::new(21)));
    assert!(!l.hold(Psn::new(21)), "held already");
    assert_eq!(l.take_retx(), None, "a held PSN is not resent");
    assert!(l.release(Psn::new(21)));
    assert!(!l.release(Psn::new(21)), "released already");
    assert_eq!(l.take_retx(), Some(Psn::new(21)));
    assert!(l.hold(Psn::new(23)));
    assert!(!l.release(Psn::new(24)), "never sent");
}

#[test]
fn a_sack_tracker_starts_where_it_is_told() {
    let t = SackTracker::starting_at(Psn::new(100));
    assert_eq!((t.cum(), t.high(), t.bitmap()), (Psn::new(100), Psn::new(100), &[0u8; 32]));
    assert_eq!(t.classify(Psn::new(99)), Verdict::Duplicate);
    assert_eq!(t.classify(Psn::new(100)), Verdict::New { hole: false });
    assert_eq!(t.classify(Psn::new(101)), Verdict::New { hole: true });
    let mut bitmap = [0u8; 32];
    bitmap[13] = 0x10; // slot 108
    let t = SackTracker::from_parts(Psn::new(105), Psn::new(109), bitmap);
    assert_eq!((t.cum(), t.high(), t.bitmap()[13]), (Psn::new(105), Psn::new(109), 0x10));
    assert_eq!(t.classify(Psn::new(108)), Verdict::Duplicate);
    assert_eq!(t.classify(Psn::new(107)), Verdict::New { hole: false });
    assert_eq!(t.classify(Psn::new(110)), Verdict::New { hole: true });
}

fn write(id: u64, stream: u16, local: u64, len: u32) -> WorkRequest {
    WorkRequest::Write {
        id: WrId(id),
        conn: ConnId(1),
        stream: StreamId(stream),
        local: Iova(local),
        len,
        remote: Iova(0x10_0000),
        rkey: Rkey(3),
        imm: None,
    }
}

/// (stream, message, offset, length, local address, last) of a segment.
fn seg(s: &Segment) -> (u16, u32, u32, u16, u64, bool) {
    (s.stream.0, s.msg_seq.0, s.offset, s.len, s.local.0, s.last)
}

#[test]
fn a_send_queue_cuts_messages_at_the_mtu_and_serves_its_streams_in_turn() {
    let mut q = SendQueue::new(ConnId(1), 3);
    assert!(!q.has_data());
    assert_eq!(q.outstanding(), 0);
    q.post(write(1, 0, 0x1000, 2500)).unwrap();
    q.post(write(2, 2, 0x8000, 100)).unwrap();
    q.post(write(3, 2, 0x9000, 1024)).unwrap();
    assert!(q.has_data());
    assert_eq!(q.outstanding(), 3);
    let segs: Vec<_> = std::iter::from_fn(|| q.next_segment(1024)).map(|s| seg(&s)).collect();
    assert_eq!(
        segs,
        vec![
            (0, 0, 0, 1024, 0x1000, false),
            (2, 0, 0, 100, 0x8000, true),
            (0, 0, 1024, 1024, 0x1400, false),
            (2, 1, 0, 1024, 0x9000, true),
            (0, 0, 2048, 452, 0x1800, true),
        ]
    );
    assert!(!q.has_data(), "everything is segmented");
    assert_eq!(q.outstanding(), 3, "and nothing acknowledged");
    q.ack(StreamId(2), MsgSeq(0), 100);
    assert_eq!(q.outstanding(), 2);
    // A segment is rebuilt the same for a retransmission, while its message lives.
    let again = q.resegment(StreamId(0), MsgSeq(0), 1024, 1024).expect("message 0 is in flight");
    assert_eq!(seg(&again), (0, 0, 1024, 1024, 0x1400, false));
    assert_eq!(q.resegment(StreamId(2), MsgSeq(0), 0, 1024), None, "completed");
    assert_eq!(q.resegment(StreamId(7), MsgSeq(0), 0, 1024), None, "no such stream");
}

#[test]
fn a_failed_message_is_not_sent_further_and_completes_once_what_is_in_flight_is_acknowledged() {
    let mut q = SendQueue::new(ConnId(1), 1);
    q.post(write(1, 0, 0x1000, 3000)).unwrap();
    q.post(write(2, 0, 0x4000, 10)).unwrap();
    let first = q.next_segment(1024).unwrap();
    assert_eq!(seg(&first), (0, 0, 0, 1024, 0x1000, false));
    q.fail(StreamId(0), MsgSeq(0), CompletionStatus::RemoteAccessError);
    assert_eq!(q.resegment(StreamId(0), MsgSeq(0), 0, 1024), None, "failed");
    // Message 0 is skipped: the next segment is message 1.
    assert_eq!(q.next_segment(1024).map(|s| seg(&s)), Some((0, 1, 0, 10, 0x4000, true)));
    assert_eq!(q.next_segment(1024), None);
    assert_eq!(q.poll_completion(), None, "1024 bytes of message 0 are still in flight");
    q.ack(StreamId(0), MsgSeq(0), 1024);
    let c = q.poll_completion().expect("message 0 done");
    assert_eq!((c.id, c.status, c.len), (WrId(1), CompletionStatus::RemoteAccessError, 3000));
    // A second refusal of the same message changes nothing: the first status stays.
    q.fail(StreamId(0), MsgSeq(1), CompletionStatus::RecvTooSmall);
    q.fail(StreamId(0), MsgSeq(1), CompletionStatus::RemoteAccessError);
    assert_eq!(q.poll_completion(), None, "its 10 bytes are in flight");
    q.ack(StreamId(0), MsgSeq(1), 10);
    let c = q.poll_completion().expect("message 1 done");
    assert_eq!((c.id, c.status, c.len), (WrId(2), CompletionStatus::RecvTooSmall, 10));
    assert_eq!(q.outstanding(), 0);
}
