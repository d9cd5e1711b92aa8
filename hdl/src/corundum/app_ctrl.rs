//! `app_ctrl`: Corundum's application control port (PCIe BAR2, AXI-Lite
//! with 24-bit byte addresses) to the engine's register file and the
//! application's own registers.
//!
//! BAR2 map:
//! * `0x00_0000 ..= 0x00_ffff`: the engine's registers (`csr`, the register
//!   map of docs/regmap.md; the driver walks its blocks from offset 0);
//! * [`APP_BASE`]: the application block, read only, Corundum-style: + 0x00
//!   type [`APP_BLOCK_TYPE`], + 0x04 version, + 0x08 next (0), + 0x0c
//!   APP_ID, + 0x10 DMA reads and + 0x14 DMA writes that ended with an
//!   error, + 0x18 frames to and + 0x1c frames from the engine, + 0x20 the
//!   UDP port the tap takes for the engine;
//! * anything else answers SLVERR (reads 0).
//!
//! One access at a time: a write waits for its address and data together,
//! a read for its address; an engine access is passed on and its response
//! returned. A write to `control.udp_port` that the engine accepts also
//! sets `cfg_port` (reset: the register's reset value), which the tap
//! uses, so the engine and the tap always agree on the port.
//!
//! Ports: `clock`, `reset` (synchronous, active high).

use rust_hdl::prelude::*;

use ferroce_proto::regs;

use crate::blocks::{HdlDefault, HdlStruct};
use crate::csr::ADDR_BITS;

/// BAR2 address bits (Corundum's `AXIL_APP_CTRL_ADDR_WIDTH`, checked by
/// the shim).
pub const BAR2_BITS: usize = 24;
/// The application block in BAR2.
pub const APP_BASE: u32 = 0x01_0000;
/// Its type ("ferroce application").
pub const APP_BLOCK_TYPE: u32 = 0x0000_fe01;
/// Its version.
pub const APP_BLOCK_VERSION: u32 = 0x0000_0100;
/// Registers of the application block, by offset.
pub const APP_REGS: usize = 9;

const STATE_BITS: usize = 3;
const S_IDLE: usize = 0;
const S_WRITE: usize = 1;
const S_READ: usize = 2;
const S_LOCAL_WRITE: usize = 3;
const S_LOCAL_READ: usize = 4;
const S_B: usize = 5;
const S_R: usize = 6;

fn udp_port_offset() -> u64 {
    regs::control::UDP_PORT.offset() as u64
}

fn udp_port_reset() -> u64 {
    regs::control::UDP_PORT.register().reset as u64
}

/// The UDP port as a register word.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct PortWord {
    pub port: Bits<16>,
    pub pad: Bits<16>,
}

/// The control port.
#[allow(non_snake_case)] // state constants named as the `match` labels
#[derive(LogicBlock, HdlDefault)]
pub struct AppCtrl {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s_axil_awaddr: Signal<In, Bits<BAR2_BITS>>,
    pub s_axil_awvalid: Signal<In, bool>,
    pub s_axil_awready: Signal<Out, bool>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, bool>,
    pub s_axil_wready: Signal<Out, bool>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, bool>,
    pub s_axil_bready: Signal<In, bool>,
    pub s_axil_araddr: Signal<In, Bits<BAR2_BITS>>,
    pub s_axil_arvalid: Signal<In, bool>,
    pub s_axil_arready: Signal<Out, bool>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, bool>,
    pub s_axil_rready: Signal<In, bool>,
    pub m_axil_awaddr: Signal<Out, Bits<ADDR_BITS>>,
    pub m_axil_awvalid: Signal<Out, bool>,
    pub m_axil_awready: Signal<In, bool>,
    pub m_axil_wdata: Signal<Out, Bits<32>>,
    pub m_axil_wstrb: Signal<Out, Bits<4>>,
    pub m_axil_wvalid: Signal<Out, bool>,
    pub m_axil_wready: Signal<In, bool>,
    pub m_axil_bresp: Signal<In, Bits<2>>,
    pub m_axil_bvalid: Signal<In, bool>,
    pub m_axil_bready: Signal<Out, bool>,
    pub m_axil_araddr: Signal<Out, Bits<ADDR_BITS>>,
    pub m_axil_arvalid: Signal<Out, bool>,
    pub m_axil_arready: Signal<In, bool>,
    pub m_axil_rdata: Signal<In, Bits<32>>,
    pub m_axil_rresp: Signal<In, Bits<2>>,
    pub m_axil_rvalid: Signal<In, bool>,
    pub m_axil_rready: Signal<Out, bool>,
    pub dma_rd_errors: Signal<In, Bits<32>>,
    pub dma_wr_errors: Signal<In, Bits<32>>,
    pub eng_rx_frames: Signal<In, Bits<32>>,
    pub eng_tx_frames: Signal<In, Bits<32>>,
    pub cfg_port: Signal<Out, Bits<16>>,

    state: DFF<Bits<STATE_BITS>>,
    addr: DFF<Bits<BAR2_BITS>>,
    data: DFF<Bits<32>>,
    strb: DFF<Bits<4>>,
    aw_pending: DFF<bool>,
    w_pending: DFF<bool>,
    ar_pending: DFF<bool>,
    resp: DFF<Bits<2>>,
    rdata: DFF<Bits<32>>,
    port: DFF<Bits<16>>,

    port_parts: Signal<Local, PortWord>,
    port_word: Signal<Local, Bits<32>>,
    in_app: Signal<Local, bool>,
    word: Signal<Local, Bits<BAR2_BITS>>,
    app_value: Signal<Local, Bits<32>>,

    #[constants(|i| APP_BASE as u64 + 4 * i as u64)]
    app_addr: [Constant<Bits<BAR2_BITS>>; APP_REGS],
    #[constant(APP_BLOCK_TYPE as u64)]
    app_type: Constant<Bits<32>>,
    #[constant(APP_BLOCK_VERSION as u64)]
    app_version: Constant<Bits<32>>,
    #[constant(regs::APP_ID as u64)]
    app_id: Constant<Bits<32>>,
    #[constant(0xff_0000u64)]
    high_mask: Constant<Bits<BAR2_BITS>>,
    #[constant(0xff_fffcu64)]
    word_mask: Constant<Bits<BAR2_BITS>>,
    #[constant(0u64)]
    zero_high: Constant<Bits<BAR2_BITS>>,
    #[constant(0u64)]
    zero16: Constant<Bits<16>>,
    #[constant(udp_port_offset())]
    port_addr: Constant<Bits<BAR2_BITS>>,
    #[constant(udp_port_reset())]
    port_reset: Constant<Bits<16>>,
    #[constant(3u64)]
    low_strobes: Constant<Bits<4>>,
    #[constant(S_IDLE as u64)]
    S_IDLE: Constant<Bits<STATE_BITS>>,
    #[constant(S_WRITE as u64)]
    S_WRITE: Constant<Bits<STATE_BITS>>,
    #[constant(S_READ as u64)]
    S_READ: Constant<Bits<STATE_BITS>>,
    #[constant(S_LOCAL_WRITE as u64)]
    S_LOCAL_WRITE: Constant<Bits<STATE_BITS>>,
    #[constant(S_LOCAL_READ as u64)]
    S_LOCAL_READ: Constant<Bits<STATE_BITS>>,
    #[constant(S_B as u64)]
    S_B: Constant<Bits<STATE_BITS>>,
    #[constant(S_R as u64)]
    S_R: Constant<Bits<STATE_BITS>>,
    #[constant(0u64)]
    okay: Constant<Bits<2>>,
    #[constant(2u64)]
    slverr: Constant<Bits<2>>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
}

impl Logic for AppCtrl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, addr, data, strb, aw_pending, w_pending, ar_pending, resp, rdata, port);
        self.port_parts.next.port = self.port.q.val();
        self.port_parts.next.pad = self.zero16.val();
        self.port_word.next = self.port_parts.val().into();
        self.word.next = self.addr.q.val() & self.word_mask.val();
        self.in_app.next = false;
        self.app_value.next = self.zero32.val();
        for i in 0..APP_REGS {
            if self.word.val() == self.app_addr[i].val() {
                self.in_app.next = true;
            }
        }
        if self.word.val() == self.app_addr[0].val() {
            self.app_value.next = self.app_type.val();
        }
        if self.word.val() == self.app_addr[1].val() {
            self.app_value.next = self.app_version.val();
        }
        if self.word.val() == self.app_addr[3].val() {
            self.app_value.next = self.app_id.val();
        }
        if self.word.val() == self.app_addr[4].val() {
            self.app_value.next = self.dma_rd_errors.val();
        }
        if self.word.val() == self.app_addr[5].val() {
            self.app_value.next = self.dma_wr_errors.val();
        }
        if self.word.val() == self.app_addr[6].val() {
            self.app_value.next = self.eng_rx_frames.val();
        }
        if self.word.val() == self.app_addr[7].val() {
            self.app_value.next = self.eng_tx_frames.val();
        }
        if self.word.val() == self.app_addr[8].val() {
            self.app_value.next = self.port_word.val();
        }
        self.cfg_port.next = self.port.q.val();

        self.s_axil_awready.next = false;
        self.s_axil_wready.next = false;
        self.s_axil_arready.next = false;
        self.s_axil_bvalid.next = self.state.q.val() == self.S_B.val();
        self.s_axil_bresp.next = self.resp.q.val();
        self.s_axil_rvalid.next = self.state.q.val() == self.S_R.val();
        self.s_axil_rresp.next = self.resp.q.val();
        self.s_axil_rdata.next = self.rdata.q.val();
        self.m_axil_awaddr.next = self.addr.q.val().get_bits::<ADDR_BITS>(0);
        self.m_axil_araddr.next = self.addr.q.val().get_bits::<ADDR_BITS>(0);
        self.m_axil_wdata.next = self.data.q.val();
        self.m_axil_wstrb.next = self.strb.q.val();
        self.m_axil_awvalid.next = self.aw_pending.q.val();
        self.m_axil_wvalid.next = self.w_pending.q.val();
        self.m_axil_arvalid.next = self.ar_pending.q.val();
        self.m_axil_bready.next = self.state.q.val() == self.S_WRITE.val();
        self.m_axil_rready.next = self.state.q.val() == self.S_READ.val();

        match self.state.q.val().index() {
            S_IDLE => {
                if self.s_axil_awvalid.val() & self.s_axil_wvalid.val() {
                    self.s_axil_awready.next = true;
                    self.s_axil_wready.next = true;
                    self.addr.d.next = self.s_axil_awaddr.val();
                    self.data.d.next = self.s_axil_wdata.val();
                    self.strb.d.next = self.s_axil_wstrb.val();
                    self.state.d.next = self.S_LOCAL_WRITE.val();
                    if (self.s_axil_awaddr.val() & self.high_mask.val()) == self.zero_high.val() {
                        self.aw_pending.d.next = true;
                        self.w_pending.d.next = true;
                        self.state.d.next = self.S_WRITE.val();
                    }
                } else if self.s_axil_arvalid.val() {
                    self.s_axil_arready.next = true;
                    self.addr.d.next = self.s_axil_araddr.val();
                    self.state.d.next = self.S_LOCAL_READ.val();
                    if (self.s_axil_araddr.val() & self.high_mask.val()) == self.zero_high.val() {
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
                    self.resp.d.next = self.m_axil_bresp.val();
                    self.state.d.next = self.S_B.val();
                    if (self.m_axil_bresp.val() == self.okay.val())
                        & (self.addr.q.val() == self.port_addr.val())
                        & ((self.strb.q.val() & self.low_strobes.val()) == self.low_strobes.val())
                    {
                        self.port.d.next = self.data.q.val().get_bits::<16>(0);
                    }
                }
            }
            S_READ => {
                if self.m_axil_arready.val() {
                    self.ar_pending.d.next = false;
                }
                if self.m_axil_rvalid.val() {
                    self.resp.d.next = self.m_axil_rresp.val();
                    self.rdata.d.next = self.m_axil_rdata.val();
                    self.state.d.next = self.S_R.val();
                }
            }
            S_LOCAL_WRITE => {
                // The application block is read only.
                self.resp.d.next = self.slverr.val();
                self.state.d.next = self.S_B.val();
            }
            S_LOCAL_READ => {
                self.rdata.d.next = self.app_value.val();
                self.resp.d.next = self.slverr.val();
                if self.in_app.val() {
                    self.resp.d.next = self.okay.val();
                }
                self.state.d.next = self.S_R.val();
            }
            S_B => {
                if self.s_axil_bready.val() {
                    self.state.d.next = self.S_IDLE.val();
                }
            }
            _ => {
                if self.s_axil_rready.val() {
                    self.state.d.next = self.S_IDLE.val();
                }
            }
        }

        if self.reset.val() {
            self.state.d.next = self.S_IDLE.val();
            self.aw_pending.d.next = false;
            self.w_pending.d.next = false;
            self.ar_pending.d.next = false;
            self.port.d.next = self.port_reset.val();
        }
    }
}
