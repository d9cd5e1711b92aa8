//! `ferroce_app`: everything of ferroce's application block that is not
//! one of Corundum's own modules: the engine, BAR2 ([`AppCtrl`]), the DMA
//! adapter ([`DmaRead`], [`DmaWrite`]) and the MAC tap ([`MacTap`]) of port
//! 0. The shim `fpga/corundum/mqnic_app_block.v` puts it between Corundum's
//! interfaces, two `dma_psdpram`s (the staging RAMs), a
//! `dma_client_axis_source` and a `dma_client_axis_sink`.
//!
//! Ports (`clock`; `reset` synchronous, active high), by the module they
//! meet:
//! * `s_axil_*`: BAR2 (`s_axil_app_ctrl_*`, 24-bit addresses);
//! * `m_rd_desc_*`, `s_rd_status_*`; `m_wr_desc_*`, `s_wr_status_*`: the
//!   data DMA's read and write descriptors and statuses (RAM select 0,
//!   no immediate; tags [`SLOT_BITS`](super::SLOT_BITS) wide);
//! * `m_src_*`, `s_src_status_valid`, `s_src_t*`: the source's descriptor,
//!   status and stream (read staging RAM to the engine);
//! * `m_sink_*`, `s_sink_status_valid`, `m_sink_t*`: the sink's descriptor,
//!   status and stream (the engine to the write staging RAM);
//! * `s_rx_*`, `m_rx_*`, `s_tx_*`, `m_tx_*`: port 0's synchronous MAC
//!   streams (`s_axis_sync_rx_*` in, `m_axis_sync_rx_*` out to the NIC,
//!   `s_axis_sync_tx_*` from the NIC, `m_axis_sync_tx_*` out).

use rust_hdl::prelude::*;

use crate::blocks::HdlDefault;
use crate::corundum::app_ctrl::{AppCtrl, BAR2_BITS};
use crate::corundum::dma_read::DmaRead;
use crate::corundum::dma_write::DmaWrite;
use crate::corundum::mac_tap::{MacTap, RX_USER_BITS, TX_USER_BITS};
use crate::corundum::stage_ring::STAGE_BITS;
use crate::corundum::SLOT_BITS;
use crate::engine::Engine;

/// The application around the engine.
#[derive(LogicBlock, HdlDefault)]
pub struct CorundumApp {
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
    pub m_rd_desc_dma_addr: Signal<Out, Bits<64>>,
    pub m_rd_desc_ram_addr: Signal<Out, Bits<STAGE_BITS>>,
    pub m_rd_desc_len: Signal<Out, Bits<16>>,
    pub m_rd_desc_tag: Signal<Out, Bits<SLOT_BITS>>,
    pub m_rd_desc_valid: Signal<Out, bool>,
    pub m_rd_desc_ready: Signal<In, bool>,
    pub s_rd_status_tag: Signal<In, Bits<SLOT_BITS>>,
    pub s_rd_status_error: Signal<In, Bits<4>>,
    pub s_rd_status_valid: Signal<In, bool>,
    pub m_src_ram_addr: Signal<Out, Bits<STAGE_BITS>>,
    pub m_src_len: Signal<Out, Bits<16>>,
    pub m_src_tag: Signal<Out, Bits<SLOT_BITS>>,
    pub m_src_valid: Signal<Out, bool>,
    pub m_src_ready: Signal<In, bool>,
    pub s_src_status_valid: Signal<In, bool>,
    pub s_src_tdata: Signal<In, Bits<64>>,
    pub s_src_tkeep: Signal<In, Bits<8>>,
    pub s_src_tvalid: Signal<In, bool>,
    pub s_src_tready: Signal<Out, bool>,
    pub s_src_tlast: Signal<In, bool>,
    pub m_sink_ram_addr: Signal<Out, Bits<STAGE_BITS>>,
    pub m_sink_len: Signal<Out, Bits<16>>,
    pub m_sink_tag: Signal<Out, Bits<SLOT_BITS>>,
    pub m_sink_valid: Signal<Out, bool>,
    pub m_sink_ready: Signal<In, bool>,
    pub s_sink_status_valid: Signal<In, bool>,
    pub m_sink_tdata: Signal<Out, Bits<64>>,
    pub m_sink_tkeep: Signal<Out, Bits<8>>,
    pub m_sink_tvalid: Signal<Out, bool>,
    pub m_sink_tready: Signal<In, bool>,
    pub m_sink_tlast: Signal<Out, bool>,
    pub m_wr_desc_dma_addr: Signal<Out, Bits<64>>,
    pub m_wr_desc_ram_addr: Signal<Out, Bits<STAGE_BITS>>,
    pub m_wr_desc_len: Signal<Out, Bits<16>>,
    pub m_wr_desc_tag: Signal<Out, Bits<SLOT_BITS>>,
    pub m_wr_desc_valid: Signal<Out, bool>,
    pub m_wr_desc_ready: Signal<In, bool>,
    pub s_wr_status_tag: Signal<In, Bits<SLOT_BITS>>,
    pub s_wr_status_error: Signal<In, Bits<4>>,
    pub s_wr_status_valid: Signal<In, bool>,
    pub s_rx_tdata: Signal<In, Bits<64>>,
    pub s_rx_tkeep: Signal<In, Bits<8>>,
    pub s_rx_tvalid: Signal<In, bool>,
    pub s_rx_tready: Signal<Out, bool>,
    pub s_rx_tlast: Signal<In, bool>,
    pub s_rx_tuser: Signal<In, Bits<RX_USER_BITS>>,
    pub m_rx_tdata: Signal<Out, Bits<64>>,
    pub m_rx_tkeep: Signal<Out, Bits<8>>,
    pub m_rx_tvalid: Signal<Out, bool>,
    pub m_rx_tready: Signal<In, bool>,
    pub m_rx_tlast: Signal<Out, bool>,
    pub m_rx_tuser: Signal<Out, Bits<RX_USER_BITS>>,
    pub s_tx_tdata: Signal<In, Bits<64>>,
    pub s_tx_tkeep: Signal<In, Bits<8>>,
    pub s_tx_tvalid: Signal<In, bool>,
    pub s_tx_tready: Signal<Out, bool>,
    pub s_tx_tlast: Signal<In, bool>,
    pub s_tx_tuser: Signal<In, Bits<TX_USER_BITS>>,
    pub m_tx_tdata: Signal<Out, Bits<64>>,
    pub m_tx_tkeep: Signal<Out, Bits<8>>,
    pub m_tx_tvalid: Signal<Out, bool>,
    pub m_tx_tready: Signal<In, bool>,
    pub m_tx_tlast: Signal<Out, bool>,
    pub m_tx_tuser: Signal<Out, Bits<TX_USER_BITS>>,

    ctrl: AppCtrl,
    rd: DmaRead,
    wr: DmaWrite,
    tap: MacTap,
    engine: Engine,
}

impl Logic for CorundumApp {
    #[hdl_gen]
    fn update(&mut self) {
        self.ctrl.clock.next = self.clock.val();
        self.rd.clock.next = self.clock.val();
        self.wr.clock.next = self.clock.val();
        self.tap.clock.next = self.clock.val();
        self.engine.clock.next = self.clock.val();
        self.ctrl.reset.next = self.reset.val();
        self.rd.reset.next = self.reset.val();
        self.wr.reset.next = self.reset.val();
        self.tap.reset.next = self.reset.val();
        self.engine.reset.next = self.reset.val();

        // BAR2 to the engine's registers.
        self.ctrl.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.ctrl.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.s_axil_awready.next = self.ctrl.s_axil_awready.val();
        self.ctrl.s_axil_wdata.next = self.s_axil_wdata.val();
        self.ctrl.s_axil_wstrb.next = self.s_axil_wstrb.val();
        self.ctrl.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.s_axil_wready.next = self.ctrl.s_axil_wready.val();
        self.s_axil_bresp.next = self.ctrl.s_axil_bresp.val();
        self.s_axil_bvalid.next = self.ctrl.s_axil_bvalid.val();
        self.ctrl.s_axil_bready.next = self.s_axil_bready.val();
        self.ctrl.s_axil_araddr.next = self.s_axil_araddr.val();
        self.ctrl.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.s_axil_arready.next = self.ctrl.s_axil_arready.val();
        self.s_axil_rdata.next = self.ctrl.s_axil_rdata.val();
        self.s_axil_rresp.next = self.ctrl.s_axil_rresp.val();
        self.s_axil_rvalid.next = self.ctrl.s_axil_rvalid.val();
        self.ctrl.s_axil_rready.next = self.s_axil_rready.val();
        self.engine.s_axil_awaddr.next = self.ctrl.m_axil_awaddr.val();
        self.engine.s_axil_awvalid.next = self.ctrl.m_axil_awvalid.val();
        self.ctrl.m_axil_awready.next = self.engine.s_axil_awready.val();
        self.engine.s_axil_wdata.next = self.ctrl.m_axil_wdata.val();
        self.engine.s_axil_wstrb.next = self.ctrl.m_axil_wstrb.val();
        self.engine.s_axil_wvalid.next = self.ctrl.m_axil_wvalid.val();
        self.ctrl.m_axil_wready.next = self.engine.s_axil_wready.val();
        self.ctrl.m_axil_bresp.next = self.engine.s_axil_bresp.val();
        self.ctrl.m_axil_bvalid.next = self.engine.s_axil_bvalid.val();
        self.engine.s_axil_bready.next = self.ctrl.m_axil_bready.val();
        self.engine.s_axil_araddr.next = self.ctrl.m_axil_araddr.val();
        self.engine.s_axil_arvalid.next = self.ctrl.m_axil_arvalid.val();
        self.ctrl.m_axil_arready.next = self.engine.s_axil_arready.val();
        self.ctrl.m_axil_rdata.next = self.engine.s_axil_rdata.val();
        self.ctrl.m_axil_rresp.next = self.engine.s_axil_rresp.val();
        self.ctrl.m_axil_rvalid.next = self.engine.s_axil_rvalid.val();
        self.engine.s_axil_rready.next = self.ctrl.m_axil_rready.val();
        self.ctrl.dma_rd_errors.next = self.rd.errors.val();
        self.ctrl.dma_wr_errors.next = self.wr.errors.val();
        self.ctrl.eng_rx_frames.next = self.tap.eng_rx_frames.val();
        self.ctrl.eng_tx_frames.next = self.tap.eng_tx_frames.val();

        // DMA reads: engine -> descriptors -> source -> engine.
        self.rd.s_cmd_valid.next = self.engine.m_dma_rd_cmd_valid.val();
        self.engine.m_dma_rd_cmd_ready.next = self.rd.s_cmd_ready.val();
        self.rd.s_cmd_addr.next = self.engine.m_dma_rd_cmd_addr.val();
        self.rd.s_cmd_len.next = self.engine.m_dma_rd_cmd_len.val();
        self.m_rd_desc_dma_addr.next = self.rd.m_desc_dma_addr.val();
        self.m_rd_desc_ram_addr.next = self.rd.m_desc_ram_addr.val();
        self.m_rd_desc_len.next = self.rd.m_desc_len.val();
        self.m_rd_desc_tag.next = self.rd.m_desc_tag.val();
        self.m_rd_desc_valid.next = self.rd.m_desc_valid.val();
        self.rd.m_desc_ready.next = self.m_rd_desc_ready.val();
        self.rd.s_status_tag.next = self.s_rd_status_tag.val();
        self.rd.s_status_error.next = self.s_rd_status_error.val();
        self.rd.s_status_valid.next = self.s_rd_status_valid.val();
        self.m_src_ram_addr.next = self.rd.m_src_ram_addr.val();
        self.m_src_len.next = self.rd.m_src_len.val();
        self.m_src_tag.next = self.rd.m_src_tag.val();
        self.m_src_valid.next = self.rd.m_src_valid.val();
        self.rd.m_src_ready.next = self.m_src_ready.val();
        self.rd.s_src_status_valid.next = self.s_src_status_valid.val();
        self.engine.s_dma_rd_tdata.next = self.s_src_tdata.val();
        self.engine.s_dma_rd_tkeep.next = self.s_src_tkeep.val();
        self.engine.s_dma_rd_tvalid.next = self.s_src_tvalid.val();
        self.s_src_tready.next = self.engine.s_dma_rd_tready.val();
        self.engine.s_dma_rd_tlast.next = self.s_src_tlast.val();

        // DMA writes: engine -> sink -> descriptors.
        self.wr.s_cmd_valid.next = self.engine.m_dma_wr_cmd_valid.val();
        self.engine.m_dma_wr_cmd_ready.next = self.wr.s_cmd_ready.val();
        self.wr.s_cmd_addr.next = self.engine.m_dma_wr_cmd_addr.val();
        self.wr.s_cmd_len.next = self.engine.m_dma_wr_cmd_len.val();
        self.wr.s_tdata.next = self.engine.m_dma_wr_tdata.val();
        self.wr.s_tkeep.next = self.engine.m_dma_wr_tkeep.val();
        self.wr.s_tvalid.next = self.engine.m_dma_wr_tvalid.val();
        self.engine.m_dma_wr_tready.next = self.wr.s_tready.val();
        self.wr.s_tlast.next = self.engine.m_dma_wr_tlast.val();
        self.m_sink_ram_addr.next = self.wr.m_sink_ram_addr.val();
        self.m_sink_len.next = self.wr.m_sink_len.val();
        self.m_sink_tag.next = self.wr.m_sink_tag.val();
        self.m_sink_valid.next = self.wr.m_sink_valid.val();
        self.wr.m_sink_ready.next = self.m_sink_ready.val();
        self.wr.s_sink_status_valid.next = self.s_sink_status_valid.val();
        self.m_sink_tdata.next = self.wr.m_sink_tdata.val();
        self.m_sink_tkeep.next = self.wr.m_sink_tkeep.val();
        self.m_sink_tvalid.next = self.wr.m_sink_tvalid.val();
        self.wr.m_sink_tready.next = self.m_sink_tready.val();
        self.m_sink_tlast.next = self.wr.m_sink_tlast.val();
        self.m_wr_desc_dma_addr.next = self.wr.m_desc_dma_addr.val();
        self.m_wr_desc_ram_addr.next = self.wr.m_desc_ram_addr.val();
        self.m_wr_desc_len.next = self.wr.m_desc_len.val();
        self.m_wr_desc_tag.next = self.wr.m_desc_tag.val();
        self.m_wr_desc_valid.next = self.wr.m_desc_valid.val();
        self.wr.m_desc_ready.next = self.m_wr_desc_ready.val();
        self.wr.s_status_tag.next = self.s_wr_status_tag.val();
        self.wr.s_status_error.next = self.s_wr_status_error.val();
        self.wr.s_status_valid.next = self.s_wr_status_valid.val();

        // Port 0's MAC streams through the tap.
        self.tap.cfg_port.next = self.ctrl.cfg_port.val();
        self.tap.s_rx_tdata.next = self.s_rx_tdata.val();
        self.tap.s_rx_tkeep.next = self.s_rx_tkeep.val();
        self.tap.s_rx_tvalid.next = self.s_rx_tvalid.val();
        self.s_rx_tready.next = self.tap.s_rx_tready.val();
        self.tap.s_rx_tlast.next = self.s_rx_tlast.val();
        self.tap.s_rx_tuser.next = self.s_rx_tuser.val();
        self.m_rx_tdata.next = self.tap.m_rx_tdata.val();
        self.m_rx_tkeep.next = self.tap.m_rx_tkeep.val();
        self.m_rx_tvalid.next = self.tap.m_rx_tvalid.val();
        self.tap.m_rx_tready.next = self.m_rx_tready.val();
        self.m_rx_tlast.next = self.tap.m_rx_tlast.val();
        self.m_rx_tuser.next = self.tap.m_rx_tuser.val();
        self.engine.s_mac_rx_tdata.next = self.tap.m_eng_tdata.val();
        self.engine.s_mac_rx_tkeep.next = self.tap.m_eng_tkeep.val();
        self.engine.s_mac_rx_tvalid.next = self.tap.m_eng_tvalid.val();
        self.tap.m_eng_tready.next = self.engine.s_mac_rx_tready.val();
        self.engine.s_mac_rx_tlast.next = self.tap.m_eng_tlast.val();
        self.engine.s_mac_rx_tuser.next = self.tap.m_eng_tuser.val();
        self.tap.s_eng_tdata.next = self.engine.m_mac_tx_tdata.val();
        self.tap.s_eng_tkeep.next = self.engine.m_mac_tx_tkeep.val();
        self.tap.s_eng_tvalid.next = self.engine.m_mac_tx_tvalid.val();
        self.engine.m_mac_tx_tready.next = self.tap.s_eng_tready.val();
        self.tap.s_eng_tlast.next = self.engine.m_mac_tx_tlast.val();
        self.tap.s_tx_tdata.next = self.s_tx_tdata.val();
        self.tap.s_tx_tkeep.next = self.s_tx_tkeep.val();
        self.tap.s_tx_tvalid.next = self.s_tx_tvalid.val();
        self.s_tx_tready.next = self.tap.s_tx_tready.val();
        self.tap.s_tx_tlast.next = self.s_tx_tlast.val();
        self.tap.s_tx_tuser.next = self.s_tx_tuser.val();
        self.m_tx_tdata.next = self.tap.m_tx_tdata.val();
        self.m_tx_tkeep.next = self.tap.m_tx_tkeep.val();
        self.m_tx_tvalid.next = self.tap.m_tx_tvalid.val();
        self.tap.m_tx_tready.next = self.m_tx_tready.val();
        self.m_tx_tlast.next = self.tap.m_tx_tlast.val();
        self.m_tx_tuser.next = self.tap.m_tx_tuser.val();
    }
}

/// The Verilog of [`CorundumApp`] with its module named `ferroce_app` and
/// its inner modules `ferroce_app$...` (rust-hdl names the top `top`), so
/// that it sits in Corundum's build beside other designs.
pub fn verilog() -> String {
    renamed(&crate::emit::verilog_of(CorundumApp::default), "ferroce_app")
}

/// `verilog` with module `top` and the modules `top$...` renamed to `name`
/// and `name$...`: every identifier `top` or starting `top$` (rust-hdl
/// names nothing else so; signals inside are `instance$port`).
pub fn renamed(verilog: &str, name: &str) -> String {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(verilog.len());
    let mut rest = verilog;
    while let Some(i) = rest.find("top") {
        let prev = if i > 0 { rest[..i].chars().next_back() } else { out.chars().next_back() };
        let next = rest[i + 3..].chars().next();
        out.push_str(&rest[..i]);
        let starts = !prev.is_some_and(ident);
        if starts && (next == Some('$') || !next.is_some_and(ident)) {
            out.push_str(name);
        } else {
            out.push_str("top");
        }
        rest = &rest[i + 3..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn renames_only_the_top_identifiers() {
        let v = "top(a);\n  top$x x(.stop$d(top$y), .laptop(1));\n// top\ntop$x(stop$d);";
        assert_eq!(
            super::renamed(v, "ferroce_app"),
            "ferroce_app(a);\n  ferroce_app$x x(.stop$d(ferroce_app$y), .laptop(1));\n// ferroce_app\nferroce_app$x(stop$d);"
        );
    }
}
