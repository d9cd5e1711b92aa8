//! `stand_in`: a small block with the engine's ports, for board builds
//! until the engine's `ecp5-85` and `ecp5-25` presets fit an ECP5: the
//! register file (`csr`, so the driver discovers the register blocks and
//! reads and writes registers through the board's bridge), frames looped
//! from the MAC's receive stream back to its send stream, and DMA ports
//! that issue nothing.
//!
//! Ports: those of `ferroce_engine` (see `hdl/src/engine/top.rs`).

use rust_hdl::prelude::*;

use crate::blocks::HdlDefault;
use crate::csr::{Csr, ADDR_BITS, HW_BITS};

/// The stand-in.
#[derive(LogicBlock, HdlDefault)]
pub struct StandIn {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s_axil_awaddr: Signal<In, Bits<ADDR_BITS>>,
    pub s_axil_awvalid: Signal<In, bool>,
    pub s_axil_awready: Signal<Out, bool>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, bool>,
    pub s_axil_wready: Signal<Out, bool>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, bool>,
    pub s_axil_bready: Signal<In, bool>,
    pub s_axil_araddr: Signal<In, Bits<ADDR_BITS>>,
    pub s_axil_arvalid: Signal<In, bool>,
    pub s_axil_arready: Signal<Out, bool>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, bool>,
    pub s_axil_rready: Signal<In, bool>,
    pub s_mac_rx_tdata: Signal<In, Bits<64>>,
    pub s_mac_rx_tkeep: Signal<In, Bits<8>>,
    pub s_mac_rx_tvalid: Signal<In, bool>,
    pub s_mac_rx_tready: Signal<Out, bool>,
    pub s_mac_rx_tlast: Signal<In, bool>,
    pub s_mac_rx_tuser: Signal<In, bool>,
    pub m_mac_tx_tdata: Signal<Out, Bits<64>>,
    pub m_mac_tx_tkeep: Signal<Out, Bits<8>>,
    pub m_mac_tx_tvalid: Signal<Out, bool>,
    pub m_mac_tx_tready: Signal<In, bool>,
    pub m_mac_tx_tlast: Signal<Out, bool>,
    pub m_dma_rd_cmd_valid: Signal<Out, bool>,
    pub m_dma_rd_cmd_ready: Signal<In, bool>,
    pub m_dma_rd_cmd_addr: Signal<Out, Bits<64>>,
    pub m_dma_rd_cmd_len: Signal<Out, Bits<16>>,
    pub s_dma_rd_tdata: Signal<In, Bits<64>>,
    pub s_dma_rd_tkeep: Signal<In, Bits<8>>,
    pub s_dma_rd_tvalid: Signal<In, bool>,
    pub s_dma_rd_tready: Signal<Out, bool>,
    pub s_dma_rd_tlast: Signal<In, bool>,
    pub m_dma_wr_cmd_valid: Signal<Out, bool>,
    pub m_dma_wr_cmd_ready: Signal<In, bool>,
    pub m_dma_wr_cmd_addr: Signal<Out, Bits<64>>,
    pub m_dma_wr_cmd_len: Signal<Out, Bits<16>>,
    pub m_dma_wr_tdata: Signal<Out, Bits<64>>,
    pub m_dma_wr_tkeep: Signal<Out, Bits<8>>,
    pub m_dma_wr_tvalid: Signal<Out, bool>,
    pub m_dma_wr_tready: Signal<In, bool>,
    pub m_dma_wr_tlast: Signal<Out, bool>,

    csr: Csr,
    /// Inputs the stand-in does not use.
    unused_inputs: Signal<Local, bool>,

    #[constant(0u64)]
    no_hw: Constant<Bits<HW_BITS>>,
    #[constant(0u64)]
    zero64: Constant<Bits<64>>,
    #[constant(0u64)]
    zero16: Constant<Bits<16>>,
    #[constant(0u64)]
    zero8: Constant<Bits<8>>,
}

impl Logic for StandIn {
    #[hdl_gen]
    fn update(&mut self) {
        self.csr.clock.next = self.clock.val();
        self.csr.reset.next = self.reset.val();
        self.csr.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.csr.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.s_axil_awready.next = self.csr.s_axil_awready.val();
        self.csr.s_axil_wdata.next = self.s_axil_wdata.val();
        self.csr.s_axil_wstrb.next = self.s_axil_wstrb.val();
        self.csr.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.s_axil_wready.next = self.csr.s_axil_wready.val();
        self.s_axil_bresp.next = self.csr.s_axil_bresp.val();
        self.s_axil_bvalid.next = self.csr.s_axil_bvalid.val();
        self.csr.s_axil_bready.next = self.s_axil_bready.val();
        self.csr.s_axil_araddr.next = self.s_axil_araddr.val();
        self.csr.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.s_axil_arready.next = self.csr.s_axil_arready.val();
        self.s_axil_rdata.next = self.csr.s_axil_rdata.val();
        self.s_axil_rresp.next = self.csr.s_axil_rresp.val();
        self.s_axil_rvalid.next = self.csr.s_axil_rvalid.val();
        self.csr.s_axil_rready.next = self.s_axil_rready.val();
        self.csr.hw.next = self.no_hw.val();

        self.m_mac_tx_tdata.next = self.s_mac_rx_tdata.val();
        self.m_mac_tx_tkeep.next = self.s_mac_rx_tkeep.val();
        self.m_mac_tx_tvalid.next = self.s_mac_rx_tvalid.val();
        self.m_mac_tx_tlast.next = self.s_mac_rx_tlast.val();
        self.s_mac_rx_tready.next = self.m_mac_tx_tready.val();

        self.m_dma_rd_cmd_valid.next = false;
        self.m_dma_rd_cmd_addr.next = self.zero64.val();
        self.m_dma_rd_cmd_len.next = self.zero16.val();
        self.s_dma_rd_tready.next = true;
        self.m_dma_wr_cmd_valid.next = false;
        self.m_dma_wr_cmd_addr.next = self.zero64.val();
        self.m_dma_wr_cmd_len.next = self.zero16.val();
        self.m_dma_wr_tdata.next = self.zero64.val();
        self.m_dma_wr_tkeep.next = self.zero8.val();
        self.m_dma_wr_tvalid.next = false;
        self.m_dma_wr_tlast.next = false;
        self.unused_inputs.next = self.s_mac_rx_tuser.val()
            | self.m_dma_rd_cmd_ready.val()
            | self.s_dma_rd_tdata.val().any()
            | self.s_dma_rd_tkeep.val().any()
            | self.s_dma_rd_tvalid.val()
            | self.s_dma_rd_tlast.val()
            | self.m_dma_wr_cmd_ready.val()
            | self.m_dma_wr_tready.val()
            | self.csr.regs.val().any()
            | self.csr.pulses.val().any()
            | self.csr.strobe.val().any();
    }
}
