//! `axil_master`: the bridge's bus to an AXI-Lite master port (the engine's
//! register file). One access at a time: a write drives `awvalid` and
//! `wvalid` together, each dropped once taken, and finishes on `bvalid`; a
//! read drives `arvalid` until taken and finishes on `rvalid`. `bus_ready`
//! is high for one cycle at the end, with `bus_rdata` for a read; an
//! access answered with an error response is acknowledged all the same
//! (the UARTBone protocol has no way to report it) and counted in `errors`.
//!
//! Ports (`clock`; `reset` synchronous, active high): `bus_*` (word
//! addresses; the AXI-Lite byte address is the word address times 4,
//! `A` bits, and the word address's bits above are not looked at),
//! `m_axil_*`.

use rust_hdl::prelude::*;

use crate::blocks::HdlDefault;

const STATE_BITS: usize = 2;
const S_IDLE: usize = 0;
const S_WRITE: usize = 1;
const S_READ: usize = 2;
const S_DONE: usize = 3;

/// The adaptor.
#[allow(non_snake_case)] // state constants named as the `match` labels
#[derive(LogicBlock, HdlDefault)]
pub struct AxilMaster<const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub bus_valid: Signal<In, bool>,
    pub bus_we: Signal<In, bool>,
    pub bus_addr: Signal<In, Bits<32>>,
    pub bus_wdata: Signal<In, Bits<32>>,
    pub bus_ready: Signal<Out, bool>,
    pub bus_rdata: Signal<Out, Bits<32>>,
    pub errors: Signal<Out, Bits<32>>,
    pub m_axil_awaddr: Signal<Out, Bits<A>>,
    pub m_axil_awvalid: Signal<Out, bool>,
    pub m_axil_awready: Signal<In, bool>,
    pub m_axil_wdata: Signal<Out, Bits<32>>,
    pub m_axil_wstrb: Signal<Out, Bits<4>>,
    pub m_axil_wvalid: Signal<Out, bool>,
    pub m_axil_wready: Signal<In, bool>,
    pub m_axil_bresp: Signal<In, Bits<2>>,
    pub m_axil_bvalid: Signal<In, bool>,
    pub m_axil_bready: Signal<Out, bool>,
    pub m_axil_araddr: Signal<Out, Bits<A>>,
    pub m_axil_arvalid: Signal<Out, bool>,
    pub m_axil_arready: Signal<In, bool>,
    pub m_axil_rdata: Signal<In, Bits<32>>,
    pub m_axil_rresp: Signal<In, Bits<2>>,
    pub m_axil_rvalid: Signal<In, bool>,
    pub m_axil_rready: Signal<Out, bool>,

    state: DFF<Bits<STATE_BITS>>,
    aw_pending: DFF<bool>,
    w_pending: DFF<bool>,
    ar_pending: DFF<bool>,
    addr: DFF<Bits<A>>,
    data: DFF<Bits<32>>,
    errs: DFF<Bits<32>>,
    /// The bus address bits above the register space (decoded outside).
    unused_addr: Signal<Local, bool>,

    #[constant(S_IDLE as u64)]
    S_IDLE: Constant<Bits<STATE_BITS>>,
    #[constant(S_WRITE as u64)]
    S_WRITE: Constant<Bits<STATE_BITS>>,
    #[constant(S_READ as u64)]
    S_READ: Constant<Bits<STATE_BITS>>,
    #[constant(S_DONE as u64)]
    S_DONE: Constant<Bits<STATE_BITS>>,
    #[constant(2u64)]
    word_shift: Constant<Bits<A>>,
    #[constant(0xfu64)]
    all_bytes: Constant<Bits<4>>,
    #[constant(1u64)]
    one32: Constant<Bits<32>>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
}

impl<const A: usize> Logic for AxilMaster<A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, aw_pending, w_pending, ar_pending, addr, data, errs);
        self.m_axil_awaddr.next = self.addr.q.val();
        self.m_axil_araddr.next = self.addr.q.val();
        self.m_axil_awvalid.next = self.aw_pending.q.val();
        self.m_axil_wvalid.next = self.w_pending.q.val();
        self.m_axil_arvalid.next = self.ar_pending.q.val();
        self.m_axil_wdata.next = self.data.q.val();
        self.m_axil_wstrb.next = self.all_bytes.val();
        self.m_axil_bready.next = self.state.q.val() == self.S_WRITE.val();
        self.m_axil_rready.next = self.state.q.val() == self.S_READ.val();
        self.bus_ready.next = false;
        self.bus_rdata.next = self.data.q.val();
        self.errors.next = self.errs.q.val();
        self.unused_addr.next = self.bus_addr.val().any();

        match self.state.q.val().index() {
            S_IDLE => {
                if self.bus_valid.val() {
                    self.addr.d.next = self.bus_addr.val().get_bits::<A>(0) << self.word_shift.val();
                    self.data.d.next = self.bus_wdata.val();
                    if self.bus_we.val() {
                        self.aw_pending.d.next = true;
                        self.w_pending.d.next = true;
                        self.state.d.next = self.S_WRITE.val();
                    } else {
                        self.ar_pending.d.next = true;
                        self.state.d.next = self.S_READ.val();
                    }
                }
            }
            S_WRITE => {
                if self.m_axil_awready.val() {
                    self.aw_pending.d.next = false;
                }
                if self.m_axil_wready.val() {
                    self.w_pending.d.next = false;
                }
                if self.m_axil_bvalid.val() {
                    if self.m_axil_bresp.val().any() {
                        self.errs.d.next = self.errs.q.val() + self.one32.val();
                    }
                    self.state.d.next = self.S_DONE.val();
                }
            }
            S_READ => {
                if self.m_axil_arready.val() {
                    self.ar_pending.d.next = false;
                }
                if self.m_axil_rvalid.val() {
                    if self.m_axil_rresp.val().any() {
                        self.errs.d.next = self.errs.q.val() + self.one32.val();
                    }
                    self.data.d.next = self.m_axil_rdata.val();
                    self.state.d.next = self.S_DONE.val();
                }
            }
            _ => {
                // The acknowledge, then a cycle for the bus to drop `bus_valid`.
                self.bus_ready.next = true;
                self.state.d.next = self.S_IDLE.val();
            }
        }

        if self.reset.val() {
            self.state.d.next = self.S_IDLE.val();
            self.aw_pending.d.next = false;
            self.w_pending.d.next = false;
            self.ar_pending.d.next = false;
            self.errs.d.next = self.zero32.val();
        }
    }
}
