//! `frame_fifo`: holds received frames until their verdict (from
//! `rx_parse`, which knows only at a frame's end whether its CRC and lengths
//! hold) and passes on the good ones, so that nothing of a bad frame ever
//! reaches host memory.
//!
//! Frames are written as they arrive, with their `tlast`, into a 2^A-beat
//! RAM; verdicts arrive in frame order (any time after the frame's first
//! beat) into a small queue. The output side takes a frame's verdict before
//! its first beat: a good frame streams out, a bad one is read and dropped.
//!
//! Ports (`clock`; `reset` synchronous, active high): `s_axis_*` in
//! (`tready` low when the RAM is full; of a frame longer than the RAM the
//! first 2^A beats are kept, ending it, and the rest discarded, so such a
//! frame cannot wedge the FIFO), `verdict_valid`/`verdict_good`
//! (at most 16 waiting), `m_axis_*` out with back-pressure.
//!
//! The RAM (rust-hdl's `RAM`, one block-RAM read port) is read at the edge
//! where the read pointer moves, at the pointer's next value, so that the
//! beat under the pointer is there in the following cycle; a beat written
//! at that same edge to that same address is forwarded from a register.
//! At such an edge the RAM is read at another address (bit 0 flipped) and
//! its output ignored, so the read and write addresses never meet (a read
//! of the word being written is undefined: synthesis is told so, and the
//! engine's models read garbage then; docs/rtl.md). Before synthesis was
//! told, this was also what kept yosys from adding its read-before-write
//! emulation (a second copy of the write port in registers, and a bypass),
//! which it did for every RAM whose read it could not prove apart from
//! the write.

use rust_hdl::prelude::*;

use crate::blocks::{HdlDefault, HdlStruct};

/// Beats of frame storage of the full-size builds, log2 (2048 beats: a
/// 9000-byte frame and then some; a frame of
/// `ferroce_proto::wire::MAX_FRAME_LEN` bytes).
pub const DEPTH_BITS: usize = 11;
/// Verdicts that can wait.
const VERDICTS: usize = 16;
const VCOUNT_BITS: usize = 5;
const _: () = assert!(VERDICTS == 1 << (VCOUNT_BITS - 1));

/// One stored beat.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Beat {
    pub data: Bits<64>,
    pub keep: Bits<8>,
    pub last: bool,
}

/// The frame FIFO of the full-size builds: 2^[`DEPTH_BITS`] beats.
pub type FrameFifo = FrameFifoOf<DEPTH_BITS, { DEPTH_BITS + 1 }>;

/// The frame FIFO: 2^A beats, pointers of P = A + 1 bits.
#[derive(LogicBlock, HdlDefault)]
pub struct FrameFifoOf<const A: usize, const P: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s_axis_tdata: Signal<In, Bits<64>>,
    pub s_axis_tkeep: Signal<In, Bits<8>>,
    pub s_axis_tvalid: Signal<In, bool>,
    pub s_axis_tready: Signal<Out, bool>,
    pub s_axis_tlast: Signal<In, bool>,
    pub verdict_valid: Signal<In, bool>,
    pub verdict_good: Signal<In, bool>,
    pub verdict_ready: Signal<Out, bool>,
    pub m_axis_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tvalid: Signal<Out, bool>,
    pub m_axis_tready: Signal<In, bool>,
    pub m_axis_tlast: Signal<Out, bool>,

    ram: RAM<Beat, A>,
    wr: DFF<Bits<P>>,
    rd: DFF<Bits<P>>,
    /// Beats of the frame being written so far.
    wbeats: DFF<Bits<P>>,
    /// Discarding the rest of a frame longer than the RAM.
    wdrop: DFF<bool>,
    /// Verdicts in frame order, the oldest at bit 0.
    vq: DFF<Bits<VERDICTS>>,
    vcount: DFF<Bits<VCOUNT_BITS>>,
    /// The output register.
    out_q: DFF<Beat>,
    out_valid: DFF<bool>,
    /// The current frame's verdict has been taken.
    in_frame: DFF<bool>,
    frame_good: DFF<bool>,
    /// The RAM read missed the write made at the same edge: its beat.
    fw_hit: DFF<bool>,
    fw_beat: DFF<Beat>,

    used: Signal<Local, Bits<P>>,
    full: Signal<Local, bool>,
    at_cap: Signal<Local, bool>,
    take: Signal<Local, bool>,
    wbeat: Signal<Local, Beat>,
    v_take: Signal<Local, bool>,
    have_data: Signal<Local, bool>,
    can_start: Signal<Local, bool>,
    out_free: Signal<Local, bool>,
    beat: Signal<Local, Beat>,
    beat_good: Signal<Local, bool>,
    rd_go: Signal<Local, bool>,
    pop_verdict: Signal<Local, bool>,
    rd_next: Signal<Local, Bits<P>>,
    /// The RAM address under `rd_next`.
    rd_addr: Signal<Local, Bits<A>>,
    /// The beat under `rd_next` is being written at this edge.
    fw_now: Signal<Local, bool>,
    vslot: Signal<Local, Bits<4>>,
    /// The queue after this cycle's pop, and the slot a new verdict goes to.
    vq_shifted: Signal<Local, Bits<VERDICTS>>,
    vtarget: Signal<Local, Bits<4>>,

    /// `used` of a full RAM: 2^A.
    #[constant(A as u64)]
    full_bit: Constant<Bits<4>>,
    #[constant(1u64)]
    one_ptr: Constant<Bits<P>>,
    #[constant(0u64)]
    zero_ptr: Constant<Bits<P>>,
    /// 2^A - 1 beats: a frame's beats before the last it keeps (it keeps
    /// 2^A, the whole RAM).
    #[constant((1u64 << A) - 1)]
    cap: Constant<Bits<P>>,
    #[constant(VERDICTS as u64)]
    vq_full: Constant<Bits<VCOUNT_BITS>>,
    #[constant(0u64)]
    vcount_zero: Constant<Bits<VCOUNT_BITS>>,
    #[constant(1u64)]
    vcount_one: Constant<Bits<VCOUNT_BITS>>,
    #[constant(1u64)]
    vq_one: Constant<Bits<VERDICTS>>,
    #[constant(0u64)]
    vq_zero: Constant<Bits<VERDICTS>>,
    #[constant(1u64)]
    one4: Constant<Bits<4>>,
    #[constant(1u64)]
    addr_bit0: Constant<Bits<A>>,
}

impl<const A: usize, const P: usize> Logic for FrameFifoOf<A, P> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, wr, rd, wbeats, wdrop, vq, vcount, out_q, out_valid, in_frame, frame_good, fw_hit,
            fw_beat
        );
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();

        self.used.next = self.wr.q.val() - self.rd.q.val();
        self.full.next = self.used.val().get_bit(self.full_bit.val().index());
        // A frame longer than the RAM would never see its verdict (it comes
        // at the frame's end) and would wedge the FIFO: its first 2^A beats
        // are kept, the last of them marked as its end, and the rest
        // discarded. The parser finds such a frame too long (its limit is
        // at most the RAM's 8 * 2^A bytes), so its verdict is bad and it
        // is dropped.
        self.at_cap.next = self.wbeats.q.val() == self.cap.val();
        self.take.next = self.s_axis_tvalid.val() & (self.wdrop.q.val() | !self.full.val());
        self.v_take.next = self.verdict_valid.val() & (self.vcount.q.val() != self.vq_full.val());
        self.have_data.next = self.used.val().any();
        self.can_start.next = !self.in_frame.q.val() & self.vcount.q.val().any();
        self.out_free.next = !self.out_valid.q.val() | self.m_axis_tready.val();
        if self.fw_hit.q.val() {
            self.beat.next = self.fw_beat.q.val();
        } else {
            self.beat.next = self.ram.read_data.val();
        }
        if self.in_frame.q.val() {
            self.beat_good.next = self.frame_good.q.val();
        } else {
            self.beat_good.next = self.vq.q.val().get_bit(0);
        }
        // Read a beat when there is one, the frame's verdict is known, and
        // the output register is free (or the frame is being dropped).
        self.rd_go.next = self.have_data.val()
            & (self.in_frame.q.val() | self.can_start.val())
            & (self.out_free.val() | !self.beat_good.val());
        self.pop_verdict.next = self.rd_go.val() & !self.in_frame.q.val();

        // Write side.
        self.wbeat.next.data = self.s_axis_tdata.val();
        self.wbeat.next.keep = self.s_axis_tkeep.val();
        self.wbeat.next.last = self.s_axis_tlast.val() | self.at_cap.val();
        self.ram.write_address.next = self.wr.q.val().get_bits::<A>(0);
        self.ram.write_data.next = self.wbeat.val();
        self.ram.write_enable.next = self.take.val() & !self.wdrop.q.val();
        if self.take.val() {
            if !self.wdrop.q.val() {
                self.wr.d.next = self.wr.q.val() + self.one_ptr.val();
            }
            if self.s_axis_tlast.val() {
                self.wbeats.d.next = self.zero_ptr.val();
            } else {
                self.wbeats.d.next = self.wbeats.q.val() + self.one_ptr.val();
            }
            if self.at_cap.val() & !self.s_axis_tlast.val() {
                self.wdrop.d.next = true;
            }
            if self.s_axis_tlast.val() {
                self.wdrop.d.next = false;
            }
        }

        // Read side.
        if self.m_axis_tready.val() {
            self.out_valid.d.next = false;
        }
        self.rd_next.next = self.rd.q.val();
        if self.rd_go.val() {
            self.rd_next.next = self.rd.q.val() + self.one_ptr.val();
            if self.beat_good.val() {
                self.out_q.d.next = self.beat.val();
                self.out_valid.d.next = true;
            }
            if !self.in_frame.q.val() {
                self.in_frame.d.next = true;
                self.frame_good.d.next = self.vq.q.val().get_bit(0);
            }
            if self.beat.val().last {
                self.in_frame.d.next = false;
            }
        }

        // Verdict queue: shift out at a frame start, shift in at the top.
        // The slots at and above `vcount` are always clear (a pop shifts in
        // a zero, a push fills the slot at `vcount`), so a good verdict is
        // or-ed in and a bad one needs nothing.
        self.vslot.next = self.vcount.q.val().get_bits::<4>(0);
        self.vq_shifted.next = self.vq.q.val();
        self.vtarget.next = self.vslot.val();
        if self.pop_verdict.val() {
            self.vq_shifted.next = self.vq.q.val() >> self.vq_one.val();
            self.vtarget.next = self.vslot.val() - self.one4.val();
        }
        self.vq.d.next = self.vq_shifted.val();
        if self.v_take.val() & self.verdict_good.val() {
            self.vq.d.next = self.vq_shifted.val() | (self.vq_one.val() << self.vtarget.val());
        }
        if self.v_take.val() & !self.pop_verdict.val() {
            self.vcount.d.next = self.vcount.q.val() + self.vcount_one.val();
        }
        if !self.v_take.val() & self.pop_verdict.val() {
            self.vcount.d.next = self.vcount.q.val() - self.vcount_one.val();
        }

        if self.reset.val() {
            self.wr.d.next = self.zero_ptr.val();
            self.rd_next.next = self.zero_ptr.val();
            self.wbeats.d.next = self.zero_ptr.val();
            self.wdrop.d.next = false;
            self.vcount.d.next = self.vcount_zero.val();
            self.vq.d.next = self.vq_zero.val();
            self.out_valid.d.next = false;
            self.in_frame.d.next = false;
            self.frame_good.d.next = false;
        }
        self.rd.d.next = self.rd_next.val();
        self.rd_addr.next = self.rd_next.val().get_bits::<A>(0);
        self.fw_now.next = self.ram.write_enable.val() & (self.ram.write_address.val() == self.rd_addr.val());
        self.fw_hit.d.next = self.fw_now.val();
        if self.fw_now.val() {
            self.ram.read_address.next = self.rd_addr.val() ^ self.addr_bit0.val();
        } else {
            self.ram.read_address.next = self.rd_addr.val();
        }
        self.fw_beat.d.next = self.ram.write_data.val();

        self.s_axis_tready.next = self.wdrop.q.val() | !self.full.val();
        self.verdict_ready.next = self.vcount.q.val() != self.vq_full.val();
        self.m_axis_tvalid.next = self.out_valid.q.val();
        self.m_axis_tdata.next = self.out_q.q.val().data;
        self.m_axis_tkeep.next = self.out_q.q.val().keep;
        self.m_axis_tlast.next = self.out_q.q.val().last;
    }
}
