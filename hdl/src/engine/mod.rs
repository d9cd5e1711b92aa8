//! `ferroce_engine`: the whole transport engine. The register file (`csr`,
//! AXI-Lite), the receive path (`rx_path`), the send path (`tx_path`), the
//! ACK and retransmission timers (two `rto_timer`s), and the glue
//! (`engine.v`): connection and memory-region commands, the send and
//! receive queue fetchers, the completion ring writer, the DMA read and
//! write arbiters, held-PSN releases and the time base.
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `s_axil_*`: the register file (see `docs/regmap.md`).
//! * `s_mac_rx_*`, `m_mac_tx_*`: frames from and to the MAC (64-bit
//!   AXI-Stream, byte 0 in bits 7:0, `tkeep` contiguous); `s_mac_rx_tuser`
//!   high marks a received frame bad (FCS error): it is dropped and counted
//!   in `stats.rx_malformed`.
//! * `m_dma_rd_cmd_*` (address, length) and `s_dma_rd_*` (data): DMA reads
//!   of host memory, data in command order with `tlast` on each read's last
//!   beat.
//! * `m_dma_wr_cmd_*` (address, length) and `m_dma_wr_*` (data): DMA
//!   writes, each command followed by exactly its bytes; writes are posted
//!   and land in order.
//!
//! Host interface (rings in host memory, sizes a power of two, set in the
//! `queues` block): the send queue holds 64-byte work requests, the receive
//! queue 32-byte receive buffers, the completion ring 32-byte completions
//! (layouts in `docs/engine.md`). The host writes `sq_prod`/`rq_prod`
//! (doorbells) and `cq_cons`, and reads `cq_prod`.
//!
//! The time base counts `NS_PER_CYCLE` ns per clock cycle.

pub mod pacer;
pub mod rate_div;
pub mod rto_timer;

use rust_hdl::prelude::*;

use ferroce_proto::regs::{self, N_STORED};
use ferroce_proto::wire;

use crate::csr::{Csr, ADDR_BITS, HW_BITS};
use crate::emit::{CONN_KEY_BITS, PATH_BITS, PATH_KEY_BITS};
use crate::engine::pacer::Pacer;
use crate::engine::rate_div::RateDiv;
use crate::engine::rto_timer::RtoTimer;
use crate::rx::rx_path::RxPath;
use crate::tx::verilog_trees::first_set_of;
use crate::tx::tx_path::TxPath;

/// Nanoseconds per clock cycle (250 MHz).
pub const NS_PER_CYCLE: u32 = 4;

/// The line rate of the MAC interface at this clock: 64 bits per cycle.
pub const MAC_MBPS: u32 = 64 * 1000 / NS_PER_CYCLE;

/// The receiver's activity window for its rate hint, as the model's
/// default (`EndpointConfig::active_window`, ps).
pub const ACTIVE_WINDOW_PS: u64 = 20_000_000;

/// The engine.
#[derive(LogicBlock, Default)]
pub struct Engine {
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
    rxp: RxPath,
    txp: TxPath,
    ackt: RtoTimer<PATH_KEY_BITS>,
    rtot: RtoTimer<PATH_KEY_BITS>,
    pace: Pacer<CONN_KEY_BITS>,
    rdiv: RateDiv,
}

macro_rules! connect_all {
    ($($sig:expr),* $(,)?) => { $( $sig.connect(); )* };
}

impl Logic for Engine {
    // Verified in Verilator; rust-hdl's simulator is not used for this block.
    fn update(&mut self) {}

    fn connect(&mut self) {
        connect_all!(
            self.s_axil_awready,
            self.s_axil_wready,
            self.s_axil_bresp,
            self.s_axil_bvalid,
            self.s_axil_arready,
            self.s_axil_rdata,
            self.s_axil_rresp,
            self.s_axil_rvalid,
            self.s_mac_rx_tready,
            self.m_mac_tx_tdata,
            self.m_mac_tx_tkeep,
            self.m_mac_tx_tvalid,
            self.m_mac_tx_tlast,
            self.m_dma_rd_cmd_valid,
            self.m_dma_rd_cmd_addr,
            self.m_dma_rd_cmd_len,
            self.s_dma_rd_tready,
            self.m_dma_wr_cmd_valid,
            self.m_dma_wr_cmd_addr,
            self.m_dma_wr_cmd_len,
            self.m_dma_wr_tdata,
            self.m_dma_wr_tkeep,
            self.m_dma_wr_tvalid,
            self.m_dma_wr_tlast,
            self.csr.clock,
            self.csr.reset,
            self.csr.s_axil_awaddr,
            self.csr.s_axil_awvalid,
            self.csr.s_axil_wdata,
            self.csr.s_axil_wstrb,
            self.csr.s_axil_wvalid,
            self.csr.s_axil_bready,
            self.csr.s_axil_araddr,
            self.csr.s_axil_arvalid,
            self.csr.s_axil_rready,
            self.csr.hw,
            self.ackt.clock,
            self.ackt.reset,
            self.ackt.now,
            self.ackt.set_valid,
            self.ackt.set_key,
            self.ackt.set_arm,
            self.ackt.set_deadline,
            self.rtot.clock,
            self.rtot.reset,
            self.rtot.now,
            self.rtot.set_valid,
            self.rtot.set_key,
            self.rtot.set_arm,
            self.rtot.set_deadline,
            self.pace.clock,
            self.pace.reset,
            self.pace.in_valid,
            self.pace.in_op,
            self.pace.in_key,
            self.pace.in_now,
            self.pace.in_cost,
            self.pace.in_bytes,
            self.rdiv.clock,
            self.rdiv.reset,
            self.rdiv.in_valid,
            self.rdiv.in_rate_mbps,
            self.rdiv.in_clock_mhz,
        );
        // Every input of the two paths is driven by the glue.
        connect_all!(
            self.rxp.clock,
            self.rxp.reset,
            self.rxp.cfg_port,
            self.rxp.cfg_mac,
            self.rxp.cfg_ip,
            self.rxp.cfg_ack_every,
            self.rxp.conn_wr,
            self.rxp.conn_wr_index,
            self.rxp.conn_wr_valid_bit,
            self.rxp.conn_wr_peer_ip,
            self.rxp.conn_wr_paths,
            self.rxp.conn_wr_generation,
            self.rxp.mr_wr,
            self.rxp.mr_wr_index,
            self.rxp.mr_wr_valid_bit,
            self.rxp.mr_wr_rkey,
            self.rxp.mr_wr_base,
            self.rxp.mr_wr_len,
            self.rxp.mr_wr_remote_write,
            self.rxp.mr_wr_conn,
            self.rxp.ctl_valid,
            self.rxp.ctl_op,
            self.rxp.ctl_key,
            self.rxp.ctl_psn,
            self.rxp.post_valid,
            self.rxp.post_key,
            self.rxp.post_addr,
            self.rxp.post_len,
            self.rxp.post_id,
            self.rxp.timer_valid,
            self.rxp.timer_key,
            self.rxp.s_axis_tdata,
            self.rxp.s_axis_tkeep,
            self.rxp.s_axis_tvalid,
            self.rxp.s_axis_tlast,
            self.rxp.s_axis_tuser,
            self.rxp.m_dma_cmd_ready,
            self.rxp.m_dma_data_tready,
            self.rxp.m_ack_ready,
            self.rxp.m_nak_ready,
            self.rxp.m_fb_ready,
            self.rxp.m_cpl_ready,
            self.txp.clock,
            self.txp.reset,
            self.txp.cfg_mac,
            self.txp.cfg_ip,
            self.txp.cfg_port,
            self.txp.cfg_mtu,
            self.txp.cfg_max_cwnd,
            self.txp.cfg_repath_after,
            self.txp.cfg_retire_after,
            self.txp.cfg_rto_min,
            self.txp.cfg_hint,
            self.txp.now,
            self.txp.ctl_valid,
            self.txp.ctl_op,
            self.txp.ctl_conn,
            self.txp.ctl_remote,
            self.txp.ctl_mac,
            self.txp.ctl_ip,
            self.txp.ctl_paths,
            self.txp.ctl_psn,
            self.txp.ctl_generation,
            self.txp.ctl_streams,
            self.txp.ctl_seed,
            self.txp.wr_valid,
            self.txp.wr_key,
            self.txp.wr_op,
            self.txp.wr_len,
            self.txp.wr_local,
            self.txp.wr_remote,
            self.txp.wr_rkey,
            self.txp.wr_imm,
            self.txp.wr_id,
            self.txp.fb_valid,
            self.txp.fb_nak,
            self.txp.fb_key,
            self.txp.fb_psn,
            self.txp.fb_sack,
            self.txp.fb_ce,
            self.txp.fb_code,
            self.txp.fb_stream,
            self.txp.fb_msg_seq,
            self.txp.fb_ts,
            self.txp.ack_valid,
            self.txp.ack_key,
            self.txp.ack_cum,
            self.txp.ack_sack,
            self.txp.ack_ts,
            self.txp.ack_sport,
            self.txp.ack_pending,
            self.txp.ack_ce,
            self.txp.nak_valid,
            self.txp.nak_key,
            self.txp.nak_psn,
            self.txp.nak_stream,
            self.txp.nak_msg_seq,
            self.txp.nak_code,
            self.txp.nak_sport,
            self.txp.rto_valid,
            self.txp.rto_key,
            self.txp.release_valid,
            self.txp.release_key,
            self.txp.release_psn,
            self.txp.tx_go,
            self.txp.tx_mask,
            self.txp.m_rd_cmd_ready,
            self.txp.s_rd_tdata,
            self.txp.s_rd_tkeep,
            self.txp.s_rd_tvalid,
            self.txp.s_rd_tlast,
            self.txp.m_axis_tready,
            self.txp.m_cpl_ready,
            self.txp.pt_key,
        );
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog())
    }
}

/// Index of `block.reg` in a list of (offset, register).
fn index_in(list: &[(u32, &regs::Register)], block: &str, reg: &str) -> usize {
    let off = regs::offset_of(block, reg).unwrap_or_else(|e| panic!("engine.v names {block}.{reg}: {e}"));
    list.iter().position(|(o, _)| *o == off).unwrap_or_else(|| panic!("{block}.{reg} is not in this bus"))
}

/// The glue (`engine.v`) with its register references resolved.
pub fn verilog() -> String {
    let stored = regs::stored();
    let hw = regs::hardware();
    let mut v = include_str!("engine.v").to_string();
    v = v
        .replace("{{ns_per_cycle}}", &NS_PER_CYCLE.to_string())
        .replace("{{hw_bits}}", &HW_BITS.to_string())
        .replace("{{conn_key_bits}}", &CONN_KEY_BITS.to_string())
        .replace("{{path_bits}}", &PATH_BITS.to_string())
        .replace("{{frame_extra}}", &(wire::DATA_FRAME_OVERHEAD + wire::WIRE_OVERHEAD).to_string())
        .replace("{{active_ns}}", &(ACTIVE_WINDOW_PS / 1000).to_string());
    while let Some(mut i) = v.find("{{") {
        while v[i + 2..].starts_with('{') {
            i += 1; // a concatenation brace before the reference
        }
        let j = v[i..].find("}}").map(|j| i + j).expect("closed reference");
        let (kind, name) = v[i + 2..j].split_once(':').expect("kind:block.reg");
        let (block, reg) = name.split_once('.').expect("block.reg");
        let text = match kind {
            "reg" => format!("csr$regs[{} +: 32]", 32 * index_in(&stored, block, reg)),
            "strobe" => format!("csr$strobe[{}]", index_in(&stored, block, reg)),
            "hw" => format!("csr$hw[{} +: 32]", 32 * index_in(&hw, block, reg)),
            other => panic!("unknown reference kind {other}"),
        };
        v.replace_range(i..j + 2, &text);
    }
    let trees =
        [first_set_of("ack", "ack_pend", PATH_KEY_BITS), first_set_of("rto", "rto_pend", PATH_KEY_BITS)].concat();
    let _ = N_STORED;
    v.replace("// @TIMER_TREES@\n", &trees).replace("// @PACE_TREE@\n", &first_set_of("pd", "pc_dirty", CONN_KEY_BITS))
}

#[cfg(test)]
mod tests {
    #[test]
    fn time_constants_agree_with_the_model() {
        let c = ferroce_proto::model::EndpointConfig::new([2, 0, 0, 0, 0, 1], [10, 0, 0, 1], 10_000, 1024);
        assert_eq!(super::ACTIVE_WINDOW_PS, c.active_window, "the receiver's activity window");
        assert_eq!(super::MAC_MBPS, 16_000, "64 bits per 4 ns cycle");
    }
}
