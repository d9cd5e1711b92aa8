//! A 64-bit AXI-Stream output of a block under test, read beat by beat
//! into frames, with the stream's rules checked on the way: a stalled beat
//! does not change, `tkeep` is contiguous from lane 0, and only a frame's
//! last beat is partial.

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
