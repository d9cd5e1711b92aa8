//! `mac_adapt`: LiteEth's 64-bit MAC streams to and from AXI-Stream.
//!
//! LiteEth marks a frame's last byte with `last_be` (one-hot: the lane of
//! the last byte, on the last beat) and flags bad bytes with `error` (one
//! bit per lane); AXI-Stream uses `tkeep` (contiguous from lane 0) and, in
//! this project, `tuser` on the last beat for a bad frame (see the engine's
//! `s_mac_rx_tuser`). Both carry byte 0 in bits 7:0.
//!
//! * Receive: `mac_rx_*` (LiteEth's source; `mac_rx_ready` is always high,
//!   as LiteEth's MAC cannot wait) to `m_rx_axis_*` (no `tready`: it feeds
//!   a dropping `frame_store`). `tkeep` is all ones except on the last beat,
//!   where it is every lane up to `last_be`'s; `tuser` is high on the last
//!   beat when any beat of the frame had an error bit.
//! * Send: `s_tx_axis_*` to `mac_tx_*` (LiteEth's sink): `first` on a
//!   frame's first beat, `last_be` the highest lane of `tkeep` on the last
//!   beat, no error.
//!
//! Ports: `clock`, `reset` (synchronous, active high). Receive is one
//! register stage; send is combinational apart from the first-beat flag.

use rust_hdl::prelude::*;

use crate::blocks::HdlDefault;

/// The adaptation, both directions.
#[derive(LogicBlock, HdlDefault)]
pub struct MacAdapt {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub mac_rx_valid: Signal<In, bool>,
    pub mac_rx_ready: Signal<Out, bool>,
    pub mac_rx_last: Signal<In, bool>,
    pub mac_rx_data: Signal<In, Bits<64>>,
    pub mac_rx_last_be: Signal<In, Bits<8>>,
    pub mac_rx_error: Signal<In, Bits<8>>,
    pub m_rx_axis_tdata: Signal<Out, Bits<64>>,
    pub m_rx_axis_tkeep: Signal<Out, Bits<8>>,
    pub m_rx_axis_tvalid: Signal<Out, bool>,
    pub m_rx_axis_tlast: Signal<Out, bool>,
    pub m_rx_axis_tuser: Signal<Out, bool>,
    pub s_tx_axis_tdata: Signal<In, Bits<64>>,
    pub s_tx_axis_tkeep: Signal<In, Bits<8>>,
    pub s_tx_axis_tvalid: Signal<In, bool>,
    pub s_tx_axis_tready: Signal<Out, bool>,
    pub s_tx_axis_tlast: Signal<In, bool>,
    pub mac_tx_valid: Signal<Out, bool>,
    pub mac_tx_ready: Signal<In, bool>,
    pub mac_tx_first: Signal<Out, bool>,
    pub mac_tx_last: Signal<Out, bool>,
    pub mac_tx_data: Signal<Out, Bits<64>>,
    pub mac_tx_last_be: Signal<Out, Bits<8>>,
    pub mac_tx_error: Signal<Out, Bits<8>>,

    rx_data: DFF<Bits<64>>,
    rx_keep: DFF<Bits<8>>,
    rx_valid: DFF<bool>,
    rx_last: DFF<bool>,
    rx_user: DFF<bool>,
    /// An error bit was seen in the frame being received.
    rx_bad: DFF<bool>,
    /// Inside a frame being sent (its first beat has gone).
    tx_in_frame: DFF<bool>,

    rx_bad_now: Signal<Local, bool>,

    #[constant(1u64)]
    one8: Constant<Bits<8>>,
    #[constant(0xffu64)]
    ones8: Constant<Bits<8>>,
    #[constant(0u64)]
    zero8: Constant<Bits<8>>,
}

impl Logic for MacAdapt {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rx_data, rx_keep, rx_valid, rx_last, rx_user, rx_bad, tx_in_frame);

        // Receive.
        self.mac_rx_ready.next = true;
        self.rx_bad_now.next = self.rx_bad.q.val() | self.mac_rx_error.val().any();
        self.rx_valid.d.next = self.mac_rx_valid.val();
        self.rx_data.d.next = self.mac_rx_data.val();
        self.rx_last.d.next = self.mac_rx_last.val();
        self.rx_user.d.next = self.mac_rx_last.val() & self.rx_bad_now.val();
        // One-hot to thermometer: (1 << k) * 2 - 1, wrapping to all ones for lane 7.
        if self.mac_rx_last.val() {
            self.rx_keep.d.next = (self.mac_rx_last_be.val() << self.one8.val()) - self.one8.val();
        } else {
            self.rx_keep.d.next = self.ones8.val();
        }
        if self.mac_rx_valid.val() {
            self.rx_bad.d.next = self.rx_bad_now.val() & !self.mac_rx_last.val();
        }
        self.m_rx_axis_tdata.next = self.rx_data.q.val();
        self.m_rx_axis_tkeep.next = self.rx_keep.q.val();
        self.m_rx_axis_tvalid.next = self.rx_valid.q.val();
        self.m_rx_axis_tlast.next = self.rx_last.q.val();
        self.m_rx_axis_tuser.next = self.rx_user.q.val();

        // Send.
        self.mac_tx_valid.next = self.s_tx_axis_tvalid.val();
        self.s_tx_axis_tready.next = self.mac_tx_ready.val();
        self.mac_tx_first.next = !self.tx_in_frame.q.val();
        self.mac_tx_last.next = self.s_tx_axis_tlast.val();
        self.mac_tx_data.next = self.s_tx_axis_tdata.val();
        // The highest kept lane: keep ^ (keep >> 1) for a contiguous keep.
        if self.s_tx_axis_tlast.val() {
            self.mac_tx_last_be.next = self.s_tx_axis_tkeep.val() ^ (self.s_tx_axis_tkeep.val() >> self.one8.val());
        } else {
            self.mac_tx_last_be.next = self.zero8.val();
        }
        self.mac_tx_error.next = self.zero8.val();
        if self.s_tx_axis_tvalid.val() & self.mac_tx_ready.val() {
            self.tx_in_frame.d.next = !self.s_tx_axis_tlast.val();
        }

        if self.reset.val() {
            self.rx_valid.d.next = false;
            self.rx_bad.d.next = false;
            self.tx_in_frame.d.next = false;
        }
    }
}
