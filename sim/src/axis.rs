//! A 64-bit AXI-Stream output of a block under test, read beat by beat
//! into frames, with the stream's rules checked on the way: a stalled beat
//! does not change, `tkeep` is contiguous from lane 0, and only a frame's
//! last beat is partial; and random packets for such blocks' tests.

use ferroce_proto::rng::Rng;
use ferroce_proto::wire::{
    self, AckRepr, Addressing, Body, CommonRepr, DataRepr, Ecn, NakCode, NakRepr, Opcode, TransportRepr,
};
use ferroce_proto::{ConnId, Iova, MsgSeq, PathId, Psn, Rkey, StreamId};

/// The frame being received.
#[derive(Debug, Default)]
pub struct FrameOut {
    got: Vec<u8>,
    held: Option<(u64, u64, u64)>,
}

impl FrameOut {
    /// This cycle's output (`valid`, `ready`, and `tdata`, `tkeep`,
    /// `tlast`), read before the clock edge; the whole frame once its
    /// last beat is taken. Panics on a broken rule.
    pub fn cycle(&mut self, valid: bool, ready: bool, beat: (u64, u64, u64)) -> Option<Vec<u8>> {
        if !valid {
            return None;
        }
        if let Some(h) = self.held {
            assert_eq!(h, beat, "output changed while stalled");
        }
        self.held = Some(beat);
        if !ready {
            return None;
        }
        self.held = None;
        let (d, k, last) = beat;
        assert!(k != 0 && (k & (k + 1)) == 0 && k <= 0xff, "tkeep contiguous from lane 0: {k:#x}");
        assert!(last == 1 || k == 0xff, "only the last beat is partial");
        for lane in 0..8 {
            if k >> lane & 1 == 1 {
                self.got.push((d >> (8 * lane)) as u8);
            }
        }
        (last == 1).then(|| std::mem::take(&mut self.got))
    }
}

#[cfg(test)]
mod tests {
    use super::FrameOut;

    #[test]
    fn beats_make_frames() {
        let mut f = FrameOut::default();
        assert_eq!(f.cycle(true, false, (0x0807060504030201, 0xff, 0)), None);
        assert_eq!(f.cycle(true, true, (0x0807060504030201, 0xff, 0)), None);
        assert_eq!(f.cycle(false, true, (0, 0, 0)), None);
        assert_eq!(f.cycle(true, true, (0x0a09, 0x3, 1)), Some((1..=10).collect()));
    }

    #[test]
    #[should_panic(expected = "output changed while stalled")]
    fn a_stalled_beat_must_not_change() {
        let mut f = FrameOut::default();
        f.cycle(true, false, (1, 0xff, 0));
        f.cycle(true, true, (2, 0xff, 0));
    }

    #[test]
    #[should_panic(expected = "only the last beat is partial")]
    fn only_the_last_beat_is_partial() {
        FrameOut::default().cycle(true, true, (1, 0x7, 0));
    }
}

/// A random packet for a frame path's tests: addressing and every field
/// random; half data packets (WRITE, WRITE with immediate or SEND, 1 to 100
/// bytes of payload, one in ten up to 9 000), a quarter ACKs with a random
/// bitmap, a quarter NAKs. `wire::encode` gives its frame.
pub fn random_packet(rng: &mut Rng) -> (Addressing, TransportRepr, Vec<u8>) {
    let addr = Addressing {
        src_mac: rng.next_u64().to_be_bytes()[2..].try_into().unwrap(),
        dst_mac: rng.next_u64().to_be_bytes()[2..].try_into().unwrap(),
        src_ip: (rng.next_u64() as u32).to_be_bytes(),
        dst_ip: (rng.next_u64() as u32).to_be_bytes(),
        sport: rng.next_u64() as u16,
        dport: wire::FERROCE_PORT,
        dscp: rng.below(64) as u8,
        ecn: [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce][rng.below(4) as usize],
        ttl: rng.next_u64() as u8,
    };
    let common = |rng: &mut Rng, opcode| CommonRepr {
        opcode,
        conn: ConnId(rng.next_u64() as u16),
        path: PathId(rng.next_u64() as u8),
        psn: Psn::new(rng.next_u64() as u32),
        timestamp: rng.next_u64() as u32,
        stream: StreamId(rng.next_u64() as u16),
        flags: rng.next_u64() as u8,
        generation: rng.next_u64() as u8,
    };
    match rng.below(4) {
        0 | 1 => {
            let len = if rng.chance(0.1) { 1 + rng.below(9000) } else { 1 + rng.below(100) } as u16;
            let payload: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let opcode = [Opcode::Write, Opcode::WriteImm, Opcode::Send][rng.below(3) as usize];
            let d = DataRepr {
                msg_seq: MsgSeq(rng.next_u64() as u32),
                msg_len: rng.next_u64() as u32,
                offset: rng.next_u64() as u32,
                payload_len: len,
                remote_addr: Iova(rng.next_u64()),
                rkey: Rkey(rng.next_u64() as u32),
                immediate: rng.next_u64() as u32,
            };
            (addr, TransportRepr { common: common(rng, opcode), body: Body::Data(d) }, payload)
        }
        2 => {
            let mut sack = [0u8; 32];
            sack.iter_mut().for_each(|b| *b = rng.next_u64() as u8);
            let a = AckRepr {
                sack,
                ts_echo: rng.next_u64() as u32,
                rate_hint_mbps: rng.next_u64() as u32,
                ecn_ce: rng.next_u64() as u16,
                acked_pkts: rng.next_u64() as u16,
            };
            (addr, TransportRepr { common: common(rng, Opcode::Ack), body: Body::Ack(a) }, vec![])
        }
        _ => {
            let n = NakRepr {
                code: [NakCode::Access, NakCode::NoRecv, NakCode::RecvTooSmall, NakCode::SeqErr][rng.below(4) as usize],
                msg_seq: MsgSeq(rng.next_u64() as u32),
                info: rng.next_u64() as u32,
            };
            (addr, TransportRepr { common: common(rng, Opcode::Nak), body: Body::Nak(n) }, vec![])
        }
    }
}
