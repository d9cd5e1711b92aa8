//! `frame_store`: a FIFO of whole frames between the MAC and the engine. A
//! frame becomes visible at its output only once its last beat is in, so
//! the output never waits in the middle of a frame.
//!
//! Two modes, fixed when built:
//! * drop when full ([`FrameStore::dropping`], receive side): LiteEth's MAC
//!   has no receive back-pressure, so the input is always ready; a frame
//!   that does not fit is dropped whole (what was stored of it is
//!   discarded) and counted in `dropped`;
//! * back-pressure ([`FrameStore::blocking`], send side): `s_axis_tready`
//!   is low while full, so a frame the engine sends in pieces (it fetches
//!   the payload by DMA) reaches the MAC in one go, as the MAC needs; a
//!   frame must then fit the store (2^A - 1 beats at most).
//!
//! Ports (`clock`; `reset` synchronous, active high): `s_axis_*` in and
//! `m_axis_*` out (64-bit AXI-Stream with `tkeep`, `tlast`, and `tuser`
//! carried per beat), `dropped` (frames dropped since reset, wrapping).
//!
//! Storage is rust-hdl's `RAM` (block RAM, registered read). A beat read
//! lands one cycle later in the output register, or in a second (skid)
//! register when the output is not taken that cycle; a beat is read
//! whenever at most one would then be held or on its way, so the output
//! gives a beat every cycle to a sink that always takes (1.6 Gb/s at the
//! ECPIX-5's 25 MHz). Reads only touch committed beats and writes only
//! beyond them, so a read never meets a write to the same address.

use rust_hdl::prelude::*;

use crate::blocks::{HdlDefault, HdlStruct};

/// One stored beat.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct StoreBeat {
    pub data: Bits<64>,
    pub keep: Bits<8>,
    pub last: bool,
    pub user: bool,
}

/// The frame store: 2^A beats.
#[derive(LogicBlock, HdlDefault)]
pub struct FrameStore<const A: usize, const P: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s_axis_tdata: Signal<In, Bits<64>>,
    pub s_axis_tkeep: Signal<In, Bits<8>>,
    pub s_axis_tvalid: Signal<In, bool>,
    pub s_axis_tready: Signal<Out, bool>,
    pub s_axis_tlast: Signal<In, bool>,
    pub s_axis_tuser: Signal<In, bool>,
    pub m_axis_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tvalid: Signal<Out, bool>,
    pub m_axis_tready: Signal<In, bool>,
    pub m_axis_tlast: Signal<Out, bool>,
    pub m_axis_tuser: Signal<Out, bool>,
    pub dropped: Signal<Out, Bits<32>>,

    ram: RAM<StoreBeat, A>,
    /// End of the committed frames.
    wr: DFF<Bits<P>>,
    /// Where the frame being received goes next.
    wcur: DFF<Bits<P>>,
    /// Next beat to read.
    rd: DFF<Bits<P>>,
    /// Discarding the rest of a frame that did not fit.
    wdrop: DFF<bool>,
    /// A read was issued last cycle: its beat is on `ram.read_data`.
    pending: DFF<bool>,
    out_q: DFF<StoreBeat>,
    out_valid: DFF<bool>,
    /// A beat that landed while `out_q` was held.
    skid: DFF<StoreBeat>,
    skid_valid: DFF<bool>,
    drops: DFF<Bits<32>>,

    used: Signal<Local, Bits<P>>,
    full: Signal<Local, bool>,
    beat_in: Signal<Local, bool>,
    issue: Signal<Local, bool>,
    /// `out_q` still full after this cycle.
    out_stays: Signal<Local, bool>,
    wbeat: Signal<Local, StoreBeat>,

    /// Drop (true) or back-pressure (false) when full.
    #[constant(true)]
    drop_mode: Constant<bool>,
    #[constant(1u64 << A)]
    capacity: Constant<Bits<P>>,
    #[constant(1u64)]
    one_ptr: Constant<Bits<P>>,
    #[constant(0u64)]
    zero_ptr: Constant<Bits<P>>,
    #[constant(1u64)]
    one32: Constant<Bits<32>>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
}

impl<const A: usize, const P: usize> FrameStore<A, P> {
    /// Pointers carry one bit more than a RAM address.
    const CHECK: () = assert!(P == A + 1, "FrameStore<A, P>: P is A + 1");

    fn with_mode(drop: bool) -> Self {
        let () = Self::CHECK;
        Self { drop_mode: Constant::new(drop), ..Default::default() }
    }

    /// Receive side: never refuses a beat, drops a frame that does not fit.
    pub fn dropping() -> Self {
        Self::with_mode(true)
    }

    /// Send side: refuses beats while full.
    pub fn blocking() -> Self {
        Self::with_mode(false)
    }
}

impl<const A: usize, const P: usize> Logic for FrameStore<A, P> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr, wcur, rd, wdrop, pending, out_q, out_valid, skid, skid_valid, drops);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();

        self.used.next = self.wcur.q.val() - self.rd.q.val();
        self.full.next = self.used.val() == self.capacity.val();
        self.s_axis_tready.next = self.drop_mode.val() | !self.full.val();
        self.beat_in.next = self.s_axis_tvalid.val() & self.s_axis_tready.val();

        // Write side.
        self.wbeat.next.data = self.s_axis_tdata.val();
        self.wbeat.next.keep = self.s_axis_tkeep.val();
        self.wbeat.next.last = self.s_axis_tlast.val();
        self.wbeat.next.user = self.s_axis_tuser.val();
        self.ram.write_address.next = self.wcur.q.val().get_bits::<A>(0);
        self.ram.write_data.next = self.wbeat.val();
        self.ram.write_enable.next = false;
        if self.beat_in.val() {
            if self.wdrop.q.val() {
                if self.s_axis_tlast.val() {
                    self.wdrop.d.next = false;
                }
            } else if self.full.val() {
                // Only in drop mode: the frame so far is given up.
                self.wcur.d.next = self.wr.q.val();
                self.drops.d.next = self.drops.q.val() + self.one32.val();
                if !self.s_axis_tlast.val() {
                    self.wdrop.d.next = true;
                }
            } else {
                self.ram.write_enable.next = true;
                self.wcur.d.next = self.wcur.q.val() + self.one_ptr.val();
                if self.s_axis_tlast.val() {
                    self.wr.d.next = self.wcur.q.val() + self.one_ptr.val();
                }
            }
        }

        // Read side: read when, after this cycle, at most one beat is held
        // (output, skid) or on its way (pending).
        self.out_stays.next = self.out_valid.q.val() & !self.m_axis_tready.val();
        self.issue.next = (self.rd.q.val() != self.wr.q.val())
            & !((self.out_stays.val() & self.skid_valid.q.val())
                | (self.out_stays.val() & self.pending.q.val())
                | (self.skid_valid.q.val() & self.pending.q.val()));
        self.ram.read_address.next = self.rd.q.val().get_bits::<A>(0);
        self.pending.d.next = self.issue.val();
        if self.issue.val() {
            self.rd.d.next = self.rd.q.val() + self.one_ptr.val();
        }
        if self.out_stays.val() {
            // The output is held: a landing beat waits in the skid register.
            if self.pending.q.val() {
                self.skid.d.next = self.ram.read_data.val();
                self.skid_valid.d.next = true;
            }
        } else if self.skid_valid.q.val() {
            // (the skid register is full only behind a full output)
            self.out_q.d.next = self.skid.q.val();
            self.out_valid.d.next = true;
            self.skid_valid.d.next = self.pending.q.val();
            if self.pending.q.val() {
                self.skid.d.next = self.ram.read_data.val();
            }
        } else {
            self.out_valid.d.next = self.pending.q.val();
            if self.pending.q.val() {
                self.out_q.d.next = self.ram.read_data.val();
            }
        }
        self.m_axis_tdata.next = self.out_q.q.val().data;
        self.m_axis_tkeep.next = self.out_q.q.val().keep;
        self.m_axis_tlast.next = self.out_q.q.val().last;
        self.m_axis_tuser.next = self.out_q.q.val().user;
        self.m_axis_tvalid.next = self.out_valid.q.val();
        self.dropped.next = self.drops.q.val();

        if self.reset.val() {
            self.wr.d.next = self.zero_ptr.val();
            self.wcur.d.next = self.zero_ptr.val();
            self.rd.d.next = self.zero_ptr.val();
            self.wdrop.d.next = false;
            self.pending.d.next = false;
            self.out_valid.d.next = false;
            self.skid_valid.d.next = false;
            self.drops.d.next = self.zero32.val();
        }
    }
}
