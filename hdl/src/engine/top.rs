//! `ferroce_engine`: the whole transport engine. The register file (`csr`,
//! AXI-Lite), the receive path (`rx_path`), the send path (`tx_path`), the
//! ACK and retransmission timers (two `rto_timer`s), the pacer and its
//! rate divider, and the logic between them (this module's `update()`):
//! connection and memory-region commands, the send and receive queue
//! fetchers, the completion ring writer, the DMA read and write arbiters,
//! the queues from the receive side to the send side, the timers' pending
//! sets, held-PSN releases, pacing, the receiver's rate hint and the time
//! base.
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
//! The time base counts nanoseconds: `NS_PER_CYCLE` per clock cycle and a
//! carry from a picosecond remainder (`PS_REMAINDER` per cycle), so a
//! build's clock period (`EngineConfig::clock_ps`, 4 000 ps for Corundum,
//! 40 000 ps for the ECPIX-5's 25 MHz) keeps the same time in nanoseconds.
//!
//! State: the large tables live in the two paths' block RAM; what this
//! level keeps per connection (its pacing time, rate and flags, the
//! receiver's activity record, the stream count) is compared for every
//! connection in every cycle (which may send now, how many are active) and
//! so is kept in registers, `CONNS` entries of each; the queues between the
//! blocks are register FIFOs of 8 or 16 entries; the timers' pending sets
//! are one bit per path key.

use rust_hdl::prelude::*;

use ferroce_proto::params::{
    PACER_OP_LOAD, PACER_OP_SEND, PACER_OP_SET, PACER_TIME_BITS, REPATH_AFTER_RTOS, RETIRE_AFTER_RTOS,
};
use ferroce_proto::rings::{self, rqe, wqe};
use ferroce_proto::wire;

use super::cfg::{
    ACK_QUEUED, ACK_QUEUE_BITS, CONNS, CONN_KEY_BITS, DMA_ADDR_MASK, MRS, MR_BITS, PATH_BITS, PATH_KEY_BITS, STREAM_BITS, STREAM_KEY_BITS,
    CLEAN_REPAIRS, CONN_WINDOW, RACK, TAIL_PROBES,
};
use super::csr::{Csr, ADDR_BITS};
use super::rx_path::RxPath;
use super::tx_path::TxPath;
use crate::blocks::fifo::{RamFifo, RegFifo};
use crate::blocks::trees::{FirstSet1024, FirstSet256};
use crate::blocks::{index_bits, HdlDefault, HdlStruct};
use crate::engine::ack_timer::{AckTimers, Pick};
use crate::engine::pacer::Pacer;
use crate::engine::rate_div::RateDiv;
use crate::engine::regs::{strobe_of, Settings, Status};
use crate::engine::rto_timer::{RtoTimer, MAX_KEY_BITS};
use crate::tx::rtt::SUM_BITS as RTO_NS_BITS;

/// Whole nanoseconds per clock cycle (4 at 250 MHz, 40 at 25 MHz).
pub const NS_PER_CYCLE: u32 = super::cfg::CONFIG.clock_ps / 1000;

/// Picoseconds per clock cycle beyond `NS_PER_CYCLE` (333 at 75 MHz, 0 at
/// the builds' clocks today).
pub const PS_REMAINDER: u32 = super::cfg::CONFIG.clock_ps % 1000;

/// The frame paths' line rate at this clock: 64 bits per cycle, or 32 where
/// the CRCs take four bytes a cycle.
pub const MAC_MBPS: u32 = super::cfg::CONFIG.line_mbps();

// `control.recovery`'s fields are read at literal offsets in `update()`
// (`cfg_rec`): bits 2:0, 5:3, 6, 7, 8, 9, 10, 11 and 12, as `Recovery::word` packs them.
const _: () = {
    use ferroce_proto::model::Recovery as R;
    assert!(R::MAX_BACKOFF_AT == 0 && R::LOSS_SHIFT_AT == 3 && R::FIELD_BITS == 3);
    assert!(R::ECN_CUT_BIT == 6 && R::WARMUP_BIT == 7 && R::PROBE_BIT == 8 && R::RACK_BIT == 9);
    assert!(R::CONN_WINDOW_BIT == 10 && R::REPAIR_ROUTE_BIT == 11 && R::PATH_RACK_BIT == 12);
    // control.window_scale's bits, read at a literal width
    assert!(R::WINDOW_SCALE_BITS == 24);
};

/// The receiver's activity window for its rate hint (ps), the model's
/// default (`EndpointConfig::active_window`).
pub const ACTIVE_WINDOW_PS: u64 = ferroce_proto::params::ACTIVE_WINDOW_NS * 1000;

/// A connection may start a frame this long (ns) before its permitted
/// time: deciding a frame and reading its payload by DMA take time before
/// it reaches the MAC, and a pacer that waited for the exact time would
/// leave that much idle before every frame. The pacer counts on from the
/// permitted time, not from the early start, so the rate over more than
/// one frame is exact.
pub const PACE_LEAD_NS: u64 = 1000;

/// Path keys (connection, path number).
const KEYS: usize = 1 << PATH_KEY_BITS;
/// A path key widened to the timers' key width and one bit more (a
/// zero-width field cannot be declared), of which the timers get the low
/// `MAX_KEY_BITS`.
const WIDE_KEY_BITS: usize = MAX_KEY_BITS + 1;
/// A connection key widened to the timers' key width (as [`WideKey`]).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct WideConn {
    pub lo: Bits<CONN_KEY_BITS>,
    pub hi: Bits<{ WIDE_KEY_BITS - CONN_KEY_BITS }>,
}

#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct WideKey {
    pub lo: Bits<PATH_KEY_BITS>,
    pub hi: Bits<{ WIDE_KEY_BITS - PATH_KEY_BITS }>,
}

/// Bits of a connection's path count (0..=PATHS).
const PATH_COUNT_BITS: usize = PATH_BITS + 1;
/// Bits of a connection's stream count (0..=STREAMS).
const STREAM_COUNT_BITS: usize = STREAM_BITS + 1;
/// Width of the timers' pending sets: 1024 bits in every build, for the
/// one `FirstSet1024` tree; the bits above `KEYS` are masked to 0 in every
/// update (`keys_mask`), so synthesis removes them.
const PEND: usize = 1024;
const _: () = assert!(KEYS <= PEND);
/// Paths a connection may have.
const PATHS: usize = 1 << PATH_BITS;
/// Streams a connection may have.
const STREAMS: usize = 1 << STREAM_BITS;
/// Bits above the stream number in a completion's stream byte.
const STREAM_HIGH_BITS: usize = 8 - STREAM_BITS;
/// Bits above the connection key in a completion's 16-bit connection.
const CONN_HIGH_BITS: usize = 16 - CONN_KEY_BITS;
/// The last connection number.
const LAST_CONN: usize = CONNS - 1;
/// Memory regions.
const REGIONS: usize = MRS;
/// Bits of an index into the `strobe` bus.
const STROBE_INDEX_BITS: usize = index_bits(crate::csr::STORED_BITS / 32);
/// Bits of the connection count as a number (0..=CONNS).
const COUNT_BITS: usize = CONN_KEY_BITS + 1;
/// A data frame's bytes on the wire besides its payload.
const FRAME_EXTRA: usize = wire::DATA_FRAME_OVERHEAD + wire::WIRE_OVERHEAD;
/// Bits of a pacer byte count.
const PACE_BYTES_BITS: usize = 14;
/// Bits of a rate divider quotient.
const COST_WIDE_BITS: usize = 40;
/// Path keys are at most this wide for the pending-set trees.
const _: () = assert!(PATH_KEY_BITS <= 10 && CONNS <= 64 && COUNT_BITS <= 8);

// Connection command states.
const C_IDLE: usize = 0;
const C_RX: usize = 1;
const C_TX: usize = 2;
const C_LOAD: usize = 3;
const C_CLEAR: usize = 4;
const C_SEED: usize = 5;
const C_PACE: usize = 6;
// Ring fetch states.
const F_IDLE: usize = 0;
const F_CMD: usize = 1;
const F_DATA: usize = 2;
const F_OFFER: usize = 3;
// Completion writer states.
const Q_IDLE: usize = 0;
const Q_CMD: usize = 1;
const Q_DATA: usize = 2;
// Who a DMA read is for.
const RD_TX: usize = 0;
const RD_SQ: usize = 1;
const RD_RQ: usize = 2;
// Command codes and statuses (docs/regmap.md).
const CMD_SET: u64 = 1;
const CMD_CLEAR: u64 = 3;
const STATUS_DONE: u64 = 0;
const STATUS_BUSY: u64 = 1;
const STATUS_BAD: u64 = 2;
// Completion kinds and the status of a malformed work request.
const CPL_SEND: u64 = 1;
const CPL_RECV: u64 = 2;
const CPL_WRITE_IMM: u64 = 3;
const CPL_BAD_WR: u64 = 3;
/// rx_path's completion kind for a receive (as opposed to WRITE with
/// immediate).
const RX_KIND_RECV: u64 = 1;
const RX_KIND_IMM: u64 = 2;

/// A received ACK or NAK on its way to the send side.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Feedback {
    pub sack: Bits<256>,
    pub nak: bool,
    pub key: Bits<PATH_KEY_BITS>,
    pub psn: Bits<24>,
    pub ce: Bits<16>,
    pub code: Bits<8>,
    pub stream: Bits<16>,
    pub msg_seq: Bits<32>,
    pub ts: Bits<32>,
}

/// An ACK for the send side to send.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct AckOrder {
    pub sack: Bits<256>,
    pub key: Bits<PATH_KEY_BITS>,
    pub cum: Bits<24>,
    pub ts: Bits<32>,
    pub sport: Bits<16>,
    pub pending: Bits<16>,
    pub ce: Bits<16>,
}

/// A PSN held back by a receiver-not-ready NAK, released at `at` (ns).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Held {
    pub at: Bits<32>,
    pub key: Bits<PATH_KEY_BITS>,
    pub psn: Bits<24>,
}

/// The first eight bytes of a completion (docs/engine.md): kind, status,
/// stream, flags (bit 0: immediate valid), connection.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct CplHead {
    pub kind: Bits<8>,
    pub status: Bits<2>,
    pub status_high: Bits<6>,
    pub stream: Bits<STREAM_BITS>,
    pub stream_high: Bits<STREAM_HIGH_BITS>,
    pub flags: Bits<8>,
    pub conn: Bits<CONN_KEY_BITS>,
    pub conn_high: Bits<CONN_HIGH_BITS>,
    pub zero: Bits<16>,
}

/// A path key from the path window's index (connection * 16 + path).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct PathKey {
    pub path: Bits<PATH_BITS>,
    pub conn: Bits<CONN_KEY_BITS>,
}

/// A stream key (connection, stream number).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct StreamKey {
    pub stream: Bits<STREAM_BITS>,
    pub conn: Bits<CONN_KEY_BITS>,
}

/// A send-queue index as a byte offset (64-byte entries).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct WqeOffset {
    pub zero: Bits<6>,
    pub index: Bits<32>,
    pub high: Bits<26>,
}

/// A receive-queue or completion index as a byte offset (32-byte entries).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct EntryOffset {
    pub zero: Bits<5>,
    pub index: Bits<32>,
    pub high: Bits<27>,
}

/// The per-connection flags as the first-set tree's input.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ConnFlags256 {
    pub flags: Bits<CONNS>,
    pub zero: Bits<{ 256 - CONNS }>,
}

/// A command status as a register.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct StatusWord {
    pub status: Bits<2>,
    pub zero: Bits<30>,
}

/// A 16-bit value as a register.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct HalfWord {
    pub value: Bits<16>,
    pub zero: Bits<16>,
}

/// The congestion window register (packets in bits 24:16).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct CwndWord {
    pub zero: Bits<16>,
    pub cwnd: Bits<9>,
    pub high: Bits<7>,
}

/// 64-bit words of a work request the engine keeps: through its last
/// field (`proto::rings::WQE`).
const WQE_WORDS: usize = rings::WQE.used().div_ceil(8);
/// 64-bit words of a receive buffer's entry the engine keeps.
const RQE_WORDS: usize = rings::RQE.used().div_ceil(8);
const _: () = assert!(WQE_WORDS == 5 && RQE_WORDS == 3, "WqeWords and RqeWords have a field per word");
/// Widths of the ring fields the engine reads.
const RQE_ADDR_BITS: usize = rqe::ADDR.bits();
const RQE_CONN_BITS: usize = rqe::CONN.bits();
const RQE_ID_BITS: usize = rqe::ID.bits();
const RQE_LEN_BITS: usize = rqe::LEN.bits();
const RQE_STREAM_BITS: usize = rqe::STREAM.bits();
const WQE_CONN_BITS: usize = wqe::CONN.bits();
const WQE_ID_BITS: usize = wqe::ID.bits();
const WQE_IMM_BITS: usize = wqe::IMM.bits();
const WQE_LEN_BITS: usize = wqe::LEN.bits();
const WQE_LOCAL_BITS: usize = wqe::LOCAL.bits();
const WQE_OP_BITS: usize = wqe::OP.bits();
const WQE_REMOTE_BITS: usize = wqe::REMOTE.bits();
const WQE_RKEY_BITS: usize = wqe::RKEY.bits();
const WQE_STREAM_BITS: usize = wqe::STREAM.bits();
/// Beats of a completion (the whole entry is written).
const CQE_BEATS: usize = rings::CQE_BYTES / 8;

/// The work request's words as the engine keeps them, word 0 lowest: the
/// entry read as one little-endian number, sliced by `proto::rings::wqe`.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct WqeWords {
    pub w0: Bits<64>,
    pub w1: Bits<64>,
    pub w2: Bits<64>,
    pub w3: Bits<64>,
    pub w4: Bits<64>,
}

/// The receive buffer's entry's words, word 0 lowest.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct RqeWords {
    pub w0: Bits<64>,
    pub w1: Bits<64>,
    pub w2: Bits<64>,
}

/// 64 bits as their two 32-bit halves.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Wide64 {
    pub lo: Bits<32>,
    pub hi: Bits<32>,
}

/// A MAC address from its two registers.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Mac48 {
    pub lo: Bits<32>,
    pub hi: Bits<16>,
}

/// The engine.
// State constants are named as the consts they carry, so that a match arm
// on a const names the emitted localparam.
#[allow(non_snake_case)]
#[derive(LogicBlock, HdlDefault)]
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
    // ---- blocks ----
    csr: Csr,
    rxp: RxPath,
    txp: TxPath,
    /// `control.ctrl` bit 1 written: the counters restart from 0.
    clear_stats: Signal<Local, bool>,
    ackt: <AckTimers<ACK_QUEUED, PATH_KEY_BITS, ACK_QUEUE_BITS, { ACK_QUEUE_BITS + 1 }, { 1 << ACK_QUEUE_BITS }> as Pick>::Block,
    rtot: RtoTimer<PATH_KEY_BITS>,
    arm_w: Signal<Local, WideKey>,
    arm_wb: Signal<Local, Bits<WIDE_KEY_BITS>>,
    rto_w: Signal<Local, WideKey>,
    rto_wb: Signal<Local, Bits<WIDE_KEY_BITS>>,
    // tail probes: a timer per connection, the fired ones until taken
    prt: RtoTimer<CONN_KEY_BITS>,
    prt_w: Signal<Local, WideConn>,
    prt_wb: Signal<Local, Bits<WIDE_KEY_BITS>>,
    pr_ns36: Signal<Local, Bits<RTO_NS_BITS>>,
    pr_ns: Signal<Local, Bits<32>>,
    pr_pend: DFF<Bits<CONNS>>,
    pr_p1: Signal<Local, Bits<CONNS>>,
    pr_c1: Signal<Local, Bits<CONNS>>,
    pr_c2: Signal<Local, Bits<CONNS>>,
    pr_256: Signal<Local, ConnFlags256>,
    pr_first: FirstSet256,
    #[constant(TAIL_PROBES)]
    probes_built: Constant<bool>,
    #[constant(RACK)]
    rack_built: Constant<bool>,
    #[constant(CONN_WINDOW)]
    cw_built: Constant<bool>,
    #[constant(CLEAN_REPAIRS)]
    cr_built: Constant<bool>,
    #[constant(0u64)]
    zero_wide_conn: Constant<Bits<{ WIDE_KEY_BITS - CONN_KEY_BITS }>>,
    pace: Pacer<CONN_KEY_BITS>,
    rdiv: RateDiv,
    fbq: RamFifo<Feedback, 3, 4, 8>,
    ackq: RamFifo<AckOrder, 3, 4, 8>,
    rnrq: RamFifo<Held, 4, 5, 16>,
    rd_who: RegFifo<Bits<2>, 3, 4, 8>,
    ack_first: FirstSet1024,
    rto_first: FirstSet1024,
    dirty_first: FirstSet256,
    // ---- settings ----
    cfg: Signal<Local, Settings>,
    hw: Signal<Local, Status>,
    w_ctrl: Signal<Local, Bits<32>>,
    w_mac: Signal<Local, Mac48>,
    w_mac_hi: Signal<Local, Bits<32>>,
    w_peer_mac_hi: Signal<Local, Bits<32>>,
    sq_base: Signal<Local, Bits<64>>,
    /// The DMA commands' addresses before the build's DMA address bits are
    /// taken (`DMA_ADDR_MASK`).
    rd_cmd_addr: Signal<Local, Bits<64>>,
    wr_cmd_addr: Signal<Local, Bits<64>>,
    rq_base: Signal<Local, Bits<64>>,
    cq_base: Signal<Local, Bits<64>>,
    ck: Signal<Local, PathKey>,
    w_port: Signal<Local, Bits<32>>,
    w_mtu: Signal<Local, Bits<32>>,
    w_window_cap: Signal<Local, Bits<32>>,
    w_window_scale: Signal<Local, Bits<32>>,
    w_ack_every: Signal<Local, Bits<32>>,
    w_conn_index: Signal<Local, Bits<32>>,
    w_conn_paths: Signal<Local, Bits<32>>,
    w_conn_streams: Signal<Local, Bits<32>>,
    w_conn_generation: Signal<Local, Bits<32>>,
    w_conn_rx_psn: Signal<Local, Bits<32>>,
    w_conn_tx_psn: Signal<Local, Bits<32>>,
    w_conn_remote: Signal<Local, Bits<32>>,
    w_peer_mac: Signal<Local, Mac48>,
    w_mr_index: Signal<Local, Bits<32>>,
    w_mr_access: Signal<Local, Bits<32>>,
    w_mr_conn: Signal<Local, Bits<32>>,
    w_mr_base: Signal<Local, Wide64>,
    w_mr_len: Signal<Local, Wide64>,
    w_path_index: Signal<Local, Bits<32>>,
    w_sq_base: Signal<Local, Wide64>,
    w_rq_base: Signal<Local, Wide64>,
    w_cq_base: Signal<Local, Wide64>,
    w_sq_log: Signal<Local, Bits<32>>,
    w_rq_log: Signal<Local, Bits<32>>,
    w_cq_log: Signal<Local, Bits<32>>,
    enable: Signal<Local, bool>,
    cfg_mac: Signal<Local, Bits<48>>,
    c_index: Signal<Local, Bits<CONN_KEY_BITS>>,
    c_paths: Signal<Local, Bits<32>>,
    c_streams: Signal<Local, Bits<32>>,
    c_cmd: Signal<Local, Bits<32>>,
    c_ok: Signal<Local, bool>,
    m_cmd: Signal<Local, Bits<32>>,
    sq_mask: Signal<Local, Bits<32>>,
    rq_mask: Signal<Local, Bits<32>>,
    cq_mask: Signal<Local, Bits<32>>,
    pt: Signal<Local, PathKey>,
    pt_in_range: Signal<Local, bool>,
    // ---- time ----
    now48: DFF<Bits<PACER_TIME_BITS>>,
    now_ns: Signal<Local, Bits<32>>,
    sq_slot: Signal<Local, WqeOffset>,
    rq_slot: Signal<Local, EntryOffset>,
    cq_slot: Signal<Local, EntryOffset>,
    sq_offset: Signal<Local, Bits<64>>,
    rq_offset: Signal<Local, Bits<64>>,
    cq_offset: Signal<Local, Bits<64>>,
    dirty256: Signal<Local, ConnFlags256>,
    conn_status_word: Signal<Local, StatusWord>,
    mr_status_word: Signal<Local, StatusWord>,
    sport_word: Signal<Local, HalfWord>,
    cwnd_word: Signal<Local, CwndWord>,
    paths_m1: Signal<Local, Bits<32>>,
    streams_m1: Signal<Local, Bits<32>>,
    rto_ns36: Signal<Local, Bits<RTO_NS_BITS>>,
    rto_ns: Signal<Local, Bits<32>>,
    // ---- connection and region commands ----
    cst: DFF<Bits<3>>,
    c_i: DFF<Bits<4>>,
    conn_status: DFF<Bits<2>>,
    mr_status: DFF<Bits<2>>,
    mr_w: DFF<bool>,
    mr_valid_bit: DFF<bool>,
    seed_pending: DFF<bool>,
    conn_pend: DFF<bool>,
    eng_ready: Signal<Local, bool>,
    // Each connection's stream count as set up (0: not set up), so that a
    // work request for a stream the connection does not have fails at once.
    e_streams: [DFF<Bits<4>>; CONNS],
    // ---- rings ----
    sq_cons: DFF<Bits<32>>,
    rq_cons: DFF<Bits<32>>,
    cq_prod: DFF<Bits<32>>,
    sqf: DFF<Bits<2>>,
    rqf: DFF<Bits<2>>,
    // the work request's words through its last field, the receive
    // buffer's likewise, and both as one number each, sliced by the rings'
    // field tables
    wqe: [DFF<Bits<64>>; WQE_WORDS],
    wqe_beat: DFF<Bits<3>>,
    rqe: [DFF<Bits<64>>; RQE_WORDS],
    rqe_beat: DFF<Bits<2>>,
    wqe_words: Signal<Local, WqeWords>,
    wqe_all: Signal<Local, Bits<{ WQE_WORDS * 64 }>>,
    rqe_words: Signal<Local, RqeWords>,
    rqe_all: Signal<Local, Bits<{ RQE_WORDS * 64 }>>,
    w_len: Signal<Local, Bits<WQE_LEN_BITS>>,
    wk: Signal<Local, StreamKey>,
    w_op: Signal<Local, Bits<WQE_OP_BITS>>,
    w_stream: Signal<Local, Bits<WQE_STREAM_BITS>>,
    w_conn: Signal<Local, Bits<WQE_CONN_BITS>>,
    w_streams: Signal<Local, Bits<4>>,
    w_ok: Signal<Local, bool>,
    r_len: Signal<Local, Bits<RQE_LEN_BITS>>,
    rk: Signal<Local, StreamKey>,
    r_conn: Signal<Local, Bits<RQE_CONN_BITS>>,
    r_stream: Signal<Local, Bits<RQE_STREAM_BITS>>,
    r_streams: Signal<Local, Bits<4>>,
    r_ok: Signal<Local, bool>,
    // ---- DMA reads ----
    rd_room: Signal<Local, bool>,
    rd_any: Signal<Local, bool>,
    rd_head: Signal<Local, Bits<2>>,
    grant_tx: Signal<Local, bool>,
    grant_sq: Signal<Local, bool>,
    grant_rq: Signal<Local, bool>,
    rd_cmd_valid: Signal<Local, bool>,
    rd_tready: Signal<Local, bool>,
    // ---- completions ----
    cqs: DFF<Bits<2>>,
    cqe: [DFF<Bits<64>>; 3],
    cqe_beat: DFF<Bits<2>>,
    cq_room: Signal<Local, bool>,
    take_rx_cpl: Signal<Local, bool>,
    take_tx_cpl: Signal<Local, bool>,
    take_bad_wr: Signal<Local, bool>,
    head: Signal<Local, CplHead>,
    head_word: Signal<Local, Bits<64>>,
    cpl_seq_len: Signal<Local, Wide64>,
    cpl_imm_id: Signal<Local, Wide64>,
    cqe_word: Signal<Local, Bits<64>>,
    // ---- DMA writes ----
    wr_busy: DFF<bool>,
    wr_cq: DFF<bool>,
    wr_pick_rx: Signal<Local, bool>,
    wr_pick_cq: Signal<Local, bool>,
    wr_tvalid: Signal<Local, bool>,
    wr_tlast: Signal<Local, bool>,
    // ---- receive-to-send queues ----
    fb_in: Signal<Local, Feedback>,
    ack_in: Signal<Local, AckOrder>,
    fb_out: Signal<Local, Feedback>,
    ack_out: Signal<Local, AckOrder>,
    // ---- timers ----
    ack_pend: DFF<Bits<PEND>>,
    rto_pend: DFF<Bits<PEND>>,
    ack_p1: Signal<Local, Bits<PEND>>,
    rto_p1: Signal<Local, Bits<PEND>>,
    ack_c1: Signal<Local, Bits<PEND>>,
    ack_c2: Signal<Local, Bits<PEND>>,
    ack_c3: Signal<Local, Bits<PEND>>,
    rto_c1: Signal<Local, Bits<PEND>>,
    rto_c2: Signal<Local, Bits<PEND>>,
    ack_at: Signal<Local, Bits<PATH_KEY_BITS>>,
    rto_at: Signal<Local, Bits<PATH_KEY_BITS>>,
    held_in: Signal<Local, Held>,
    held_out: Signal<Local, Held>,
    rnr_left: Signal<Local, Bits<32>>,
    rnr_due: Signal<Local, bool>,
    // ---- pacing ----
    pc_ready: [DFF<Bits<PACER_TIME_BITS>>; CONNS],
    pc_rate: [DFF<Bits<32>>; CONNS],
    pc_wait: DFF<Bits<CONNS>>,
    pc_dirty: DFF<Bits<CONNS>>,
    pc_load: DFF<Bits<CONNS>>,
    cv_busy: DFF<bool>,
    cv_conn: DFF<Bits<CONN_KEY_BITS>>,
    cv_load: DFF<bool>,
    set_v: DFF<bool>,
    set_c: DFF<Bits<CONN_KEY_BITS>>,
    set_cost: DFF<Bits<32>>,
    set_load: DFF<bool>,
    p1_v: DFF<bool>,
    p2_v: DFF<bool>,
    p1_send: DFF<bool>,
    p2_send: DFF<bool>,
    now_lead: Signal<Local, Bits<PACER_TIME_BITS>>,
    may: [Signal<Local, Bits<CONNS>>; CONNS],
    may_all: Signal<Local, Bits<CONNS>>,
    pd_at: Signal<Local, Bits<CONN_KEY_BITS>>,
    pd_rate: Signal<Local, Bits<32>>,
    cv_start: Signal<Local, bool>,
    cfg_line: Signal<Local, Bits<32>>,
    /// `control.recovery` (`Recovery::word`).
    cfg_rec: Signal<Local, Bits<32>>,
    fb_rate: Signal<Local, Bits<32>>,
    fb_conn: Signal<Local, Bits<CONN_KEY_BITS>>,
    fb_streams: Signal<Local, Bits<4>>,
    fb_old_rate: Signal<Local, Bits<32>>,
    fb_hint: Signal<Local, bool>,
    c_rate: Signal<Local, Bits<32>>,
    c_new: Signal<Local, bool>,
    pace_idle: Signal<Local, bool>,
    sent_bytes: Signal<Local, Bits<PACE_BYTES_BITS>>,
    out_cost: Signal<Local, Bits<COST_WIDE_BITS>>,
    clr_pd: Signal<Local, Bits<CONNS>>,
    set_rx: Signal<Local, Bits<CONNS>>,
    set_fb: Signal<Local, Bits<CONNS>>,
    clr_out: Signal<Local, Bits<CONNS>>,
    set_send: Signal<Local, Bits<CONNS>>,
    clr_sweep: Signal<Local, Bits<CONNS>>,
    set_data: Signal<Local, Bits<CONNS>>,
    clr_conn: Signal<Local, Bits<CONNS>>,
    // ---- the receiver's rate hint ----
    ra_last: [DFF<Bits<32>>; CONNS],
    ra_part: [DFF<Bits<8>>; CONNS],
    ra_heard: DFF<Bits<CONNS>>,
    ra_i: DFF<Bits<CONN_KEY_BITS>>,
    ra_has: DFF<bool>,
    ra_warm: DFF<bool>,
    ra_since: DFF<Bits<32>>,
    ra_age: [Signal<Local, Bits<32>>; CONNS],
    ra_count: [Signal<Local, Bits<9>>; CONNS],
    ra_rec1: [Signal<Local, bool>; CONNS],
    ra_cnt1: [Signal<Local, bool>; CONNS],
    ra_recw: [Signal<Local, Bits<CONNS>>; CONNS],
    ra_cntw: [Signal<Local, Bits<CONNS>>; CONNS],
    // per connection, registered: heard within ACTIVE_NS; counted active
    ra_rec: DFF<Bits<CONNS>>,
    ra_cnt: DFF<Bits<CONNS>>,
    ra_div: DFF<Bits<9>>,
    ra_any_recent: Signal<Local, bool>,
    ra_sweep_last: Signal<Local, Bits<32>>,
    // the line rate over the active count by long division, one quotient
    // bit per cycle: dividend shifted out of dv_num, remainder, quotient,
    // step (0 loads the operands, 1..=32 divide), the last quotient
    dv_num: DFF<Bits<32>>,
    dv_den: DFF<Bits<9>>,
    dv_rem: DFF<Bits<9>>,
    dv_quo: DFF<Bits<32>>,
    dv_step: DFF<Bits<6>>,
    dv_shift: Signal<Local, Bits<9>>,
    dv_next: Signal<Local, Bits<32>>,
    hint_q: DFF<Bits<32>>,
    hint: Signal<Local, Bits<32>>,
    unused_ok: Signal<Local, bool>,
    // ---- constants ----
    #[constants(|i: usize| i as u64)]
    conn_no: [Constant<Bits<CONN_KEY_BITS>>; CONNS],
    #[constants(|i: usize| 1u64 << i)]
    conn_bit: [Constant<Bits<CONNS>>; CONNS],
    #[constant(PATH_BITS as u64)]
    conn_in_key: Constant<Bits<{ index_bits(PATH_KEY_BITS) }>>,
    /// Where the connection starts in `path_table.index`.
    #[constant(PATH_BITS as u64)]
    conn_in_index: Constant<Bits<5>>,
    /// Path keys: connections * paths.
    #[constant((CONNS << PATH_BITS) as u64)]
    n_path_keys: Constant<Bits<32>>,
    #[constant(2u64)]
    two2: Constant<Bits<2>>,
    #[constant(STREAM_BITS as u64)]
    stream_in_key: Constant<Bits<{ index_bits(STREAM_KEY_BITS) }>>,
    #[constants(|i: usize| i as u64)]
    beat_no: [Constant<Bits<3>>; WQE_WORDS],
    #[constants(|i: usize| i as u64)]
    beat_no2: [Constant<Bits<2>>; RQE_WORDS],
    #[constant(strobe_of("control", "port_seed"))]
    strobe_seed: Constant<Bits<STROBE_INDEX_BITS>>,
    #[constant(strobe_of("control", "ctrl"))]
    strobe_ctrl: Constant<Bits<STROBE_INDEX_BITS>>,
    #[constant(strobe_of("conn_table", "cmd"))]
    strobe_conn: Constant<Bits<STROBE_INDEX_BITS>>,
    #[constant(strobe_of("mr_table", "cmd"))]
    strobe_mr: Constant<Bits<STROBE_INDEX_BITS>>,
    #[constant(C_IDLE as u64)]
    C_IDLE: Constant<Bits<3>>,
    #[constant(C_RX as u64)]
    C_RX: Constant<Bits<3>>,
    #[constant(C_TX as u64)]
    C_TX: Constant<Bits<3>>,
    #[constant(C_LOAD as u64)]
    C_LOAD: Constant<Bits<3>>,
    #[constant(C_CLEAR as u64)]
    C_CLEAR: Constant<Bits<3>>,
    #[constant(C_SEED as u64)]
    C_SEED: Constant<Bits<3>>,
    #[constant(C_PACE as u64)]
    C_PACE: Constant<Bits<3>>,
    #[constant(F_IDLE as u64)]
    F_IDLE: Constant<Bits<2>>,
    #[constant(F_CMD as u64)]
    F_CMD: Constant<Bits<2>>,
    #[constant(F_DATA as u64)]
    F_DATA: Constant<Bits<2>>,
    #[constant(F_OFFER as u64)]
    F_OFFER: Constant<Bits<2>>,
    #[constant(Q_IDLE as u64)]
    Q_IDLE: Constant<Bits<2>>,
    #[constant(Q_CMD as u64)]
    Q_CMD: Constant<Bits<2>>,
    #[constant(Q_DATA as u64)]
    Q_DATA: Constant<Bits<2>>,
    #[constant(RD_TX as u64)]
    rd_tx: Constant<Bits<2>>,
    #[constant(RD_SQ as u64)]
    rd_sq: Constant<Bits<2>>,
    #[constant(RD_RQ as u64)]
    rd_rq: Constant<Bits<2>>,
    #[constant(CMD_SET)]
    cmd_set: Constant<Bits<32>>,
    #[constant(CMD_CLEAR)]
    cmd_clear: Constant<Bits<32>>,
    #[constant(STATUS_DONE)]
    status_done: Constant<Bits<2>>,
    #[constant(STATUS_BUSY)]
    status_busy: Constant<Bits<2>>,
    #[constant(STATUS_BAD)]
    status_bad: Constant<Bits<2>>,
    #[constant(CPL_SEND)]
    cpl_send: Constant<Bits<8>>,
    #[constant(CPL_RECV)]
    cpl_recv: Constant<Bits<8>>,
    #[constant(CPL_WRITE_IMM)]
    cpl_write_imm: Constant<Bits<8>>,
    #[constant(CPL_BAD_WR)]
    cpl_bad_wr: Constant<Bits<2>>,
    #[constant(RX_KIND_RECV)]
    rx_kind_recv: Constant<Bits<2>>,
    #[constant(RX_KIND_IMM)]
    rx_kind_imm: Constant<Bits<2>>,
    #[constant(1u64)]
    flag_imm: Constant<Bits<8>>,
    #[constant(CONNS as u64)]
    n_conns: Constant<Bits<32>>,
    #[constant(PATHS as u64)]
    n_paths: Constant<Bits<32>>,
    #[constant(STREAMS as u64)]
    n_streams: Constant<Bits<32>>,
    #[constant(REGIONS as u64)]
    n_regions: Constant<Bits<32>>,
    #[constant(CONNS as u64)]
    n_conns16: Constant<Bits<16>>,
    #[constant(u64::from(NS_PER_CYCLE))]
    ns_per_cycle: Constant<Bits<PACER_TIME_BITS>>,
    #[constant(u64::from(NS_PER_CYCLE) + 1)]
    ns_per_cycle_carry: Constant<Bits<PACER_TIME_BITS>>,
    #[constant(u64::from(PS_REMAINDER))]
    ps_remainder: Constant<Bits<11>>,
    #[constant(1000u64)]
    ps_per_ns: Constant<Bits<11>>,
    /// Picoseconds of the time base not yet counted (below 1 000).
    time_ps: DFF<Bits<11>>,
    /// `time_ps` plus this cycle's remainder.
    time_ps_sum: Signal<Local, Bits<11>>,
    #[constant(PACE_LEAD_NS)]
    pace_lead: Constant<Bits<PACER_TIME_BITS>>,
    #[constant(ACTIVE_WINDOW_PS / 1000)]
    active_ns: Constant<Bits<32>>,
    #[constant(8 * ACTIVE_WINDOW_PS / 1000)]
    forget_ns: Constant<Bits<32>>,
    #[constant(FRAME_EXTRA as u64)]
    frame_extra: Constant<Bits<PACE_BYTES_BITS>>,
    #[constant(1000u64)]
    ns_per_us: Constant<Bits<16>>,
    #[constant(PACER_OP_SEND as u64)]
    op_send: Constant<Bits<2>>,
    #[constant(PACER_OP_LOAD as u64)]
    op_load: Constant<Bits<2>>,
    #[constant(PACER_OP_SET as u64)]
    op_set: Constant<Bits<2>>,
    // the send path's transport settings, the model's defaults
    #[constant(u64::from(REPATH_AFTER_RTOS))]
    repath_after: Constant<Bits<8>>,
    #[constant(u64::from(RETIRE_AFTER_RTOS))]
    retire_after: Constant<Bits<8>>,
    // sizes of ring entries (DMA lengths) and their fields' bit places
    #[constant(rings::WQE_BYTES as u64)]
    wqe_len: Constant<Bits<16>>,
    #[constant(rings::RQE_BYTES as u64)]
    rqe_len: Constant<Bits<16>>,
    #[constant(rings::CQE_BYTES as u64)]
    cqe_len: Constant<Bits<16>>,
    #[constant(wqe::OP.bit_at())]
    wqe_op_at: Constant<Bits<9>>,
    #[constant(wqe::STREAM.bit_at())]
    wqe_stream_at: Constant<Bits<9>>,
    #[constant(wqe::CONN.bit_at())]
    wqe_conn_at: Constant<Bits<9>>,
    #[constant(wqe::LEN.bit_at())]
    wqe_len_at: Constant<Bits<9>>,
    #[constant(wqe::LOCAL.bit_at())]
    wqe_local_at: Constant<Bits<9>>,
    #[constant(wqe::REMOTE.bit_at())]
    wqe_remote_at: Constant<Bits<9>>,
    #[constant(wqe::RKEY.bit_at())]
    wqe_rkey_at: Constant<Bits<9>>,
    #[constant(wqe::IMM.bit_at())]
    wqe_imm_at: Constant<Bits<9>>,
    #[constant(wqe::ID.bit_at())]
    wqe_id_at: Constant<Bits<9>>,
    #[constant(rqe::CONN.bit_at())]
    rqe_conn_at: Constant<Bits<8>>,
    #[constant(rqe::STREAM.bit_at())]
    rqe_stream_at: Constant<Bits<8>>,
    #[constant(rqe::LEN.bit_at())]
    rqe_len_at: Constant<Bits<8>>,
    #[constant(rqe::ADDR.bit_at())]
    rqe_addr_at: Constant<Bits<8>>,
    #[constant(rqe::ID.bit_at())]
    rqe_id_at: Constant<Bits<8>>,
    #[constant(7u64)]
    rd_max: Constant<Bits<4>>,
    #[constant(CQE_BEATS as u64 - 1)]
    last_beat: Constant<Bits<2>>,
    #[constant(0xffu64)]
    all_keep: Constant<Bits<8>>,
    #[constant(1u64)]
    one32: Constant<Bits<32>>,
    #[constant(1u64)]
    one3: Constant<Bits<3>>,
    #[constant(1u64)]
    one2: Constant<Bits<2>>,
    #[constant(1u64)]
    one4: Constant<Bits<4>>,
    #[constant(1u64)]
    one8: Constant<Bits<8>>,
    #[constant(1u64)]
    one_conn: Constant<Bits<CONN_KEY_BITS>>,
    #[constant(1u64)]
    one_conns: Constant<Bits<CONNS>>,
    #[constant(1u64)]
    one_keys: Constant<Bits<PEND>>,
    #[constant(0u64)]
    zero2: Constant<Bits<2>>,
    #[constant(0u64)]
    zero3: Constant<Bits<3>>,
    #[constant(0u64)]
    zero4: Constant<Bits<4>>,
    #[constant(0u64)]
    zero5: Constant<Bits<5>>,
    #[constant(0u64)]
    zero_stream_high: Constant<Bits<STREAM_HIGH_BITS>>,
    #[constant(0u64)]
    zero_wide_hi: Constant<Bits<{ WIDE_KEY_BITS - PATH_KEY_BITS }>>,
    #[constant(0u64)]
    zero6: Constant<Bits<6>>,
    #[constant(1u64)]
    one6: Constant<Bits<6>>,
    #[constant(32u64)]
    last_step: Constant<Bits<6>>,
    #[constant(0u64)]
    zero9: Constant<Bits<9>>,
    #[constant(1u64)]
    one9: Constant<Bits<9>>,
    #[constant(0u64)]
    zero7: Constant<Bits<7>>,
    #[constant(0u64)]
    zero11: Constant<Bits<11>>,
    #[constant(0u64)]
    zero26: Constant<Bits<26>>,
    #[constant(0u64)]
    zero27: Constant<Bits<27>>,
    #[constant(0u64)]
    zero30: Constant<Bits<30>>,
    #[constant(0u64)]
    zero_pad: Constant<Bits<{ 256 - CONNS }>>,
    #[constant(0u64)]
    zero_conn_high: Constant<Bits<CONN_HIGH_BITS>>,
    #[constant(STREAM_BITS as u64)]
    stream_at: Constant<Bits<3>>,
    #[constant(CONN_KEY_BITS as u64)]
    conn_at: Constant<Bits<4>>,
    #[constant(0u64)]
    zero8: Constant<Bits<8>>,
    #[constant(0u64)]
    zero16: Constant<Bits<16>>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
    #[constant(DMA_ADDR_MASK)]
    dma_mask: Constant<Bits<64>>,
    #[constant(0u64)]
    zero64: Constant<Bits<64>>,
    #[constant(0u64)]
    zero_time: Constant<Bits<PACER_TIME_BITS>>,
    #[constant(0u64)]
    zero_conn: Constant<Bits<CONN_KEY_BITS>>,
    #[constant(0u64)]
    zero_conns: Constant<Bits<CONNS>>,
    #[constant(0u64)]
    zero_keys: Constant<Bits<PEND>>,
    /// This build's keys in the pending sets: the bits above stay constant
    /// 0, so synthesis removes them and their trees.
    #[constant(crate::blocks::low_ones::<PEND>(KEYS))]
    keys_mask: Constant<Bits<PEND>>,
    /// The slots of a path's window in a SACK bitmap.
    #[constant(crate::blocks::low_ones::<256>(super::cfg::WINDOW))]
    window_bits: Constant<Bits<256>>,
    /// The timers' keys (10 bits) cut to this build's.
    #[constant((KEYS - 1) as u64)]
    timer_key_mask: Constant<Bits<MAX_KEY_BITS>>,
    #[constant(0xffu64)]
    all8: Constant<Bits<8>>,
}

impl Logic for Engine {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            now48,
            time_ps,
            cst,
            c_i,
            conn_status,
            mr_status,
            mr_w,
            mr_valid_bit,
            seed_pending,
            conn_pend,
            sq_cons,
            rq_cons,
            cq_prod,
            sqf,
            rqf,
            wqe_beat,
            rqe_beat,
            cqs,
            cqe_beat,
            wr_busy,
            wr_cq,
            ack_pend,
            rto_pend,
            pr_pend,
            pc_wait,
            pc_dirty,
            pc_load,
            cv_busy,
            cv_conn,
            cv_load,
            set_v,
            set_c,
            set_cost,
            set_load,
            p1_v,
            p2_v,
            p1_send,
            p2_send,
            ra_heard,
            ra_i,
            ra_has,
            ra_warm,
            ra_since,
            ra_rec,
            ra_cnt,
            ra_div,
            dv_num,
            dv_den,
            dv_rem,
            dv_quo,
            dv_step,
            hint_q
        );
        for i in 0..CONNS {
            self.e_streams[i].clock.next = self.clock.val();
            self.e_streams[i].d.next = self.e_streams[i].q.val();
            self.pc_ready[i].clock.next = self.clock.val();
            self.pc_ready[i].d.next = self.pc_ready[i].q.val();
            self.pc_rate[i].clock.next = self.clock.val();
            self.pc_rate[i].d.next = self.pc_rate[i].q.val();
            self.ra_last[i].clock.next = self.clock.val();
            self.ra_last[i].d.next = self.ra_last[i].q.val();
            self.ra_part[i].clock.next = self.clock.val();
            self.ra_part[i].d.next = self.ra_part[i].q.val();
        }
        for i in 0..WQE_WORDS {
            self.wqe[i].clock.next = self.clock.val();
            self.wqe[i].d.next = self.wqe[i].q.val();
        }
        for i in 0..RQE_WORDS {
            self.rqe[i].clock.next = self.clock.val();
            self.rqe[i].d.next = self.rqe[i].q.val();
        }
        for i in 0..3 {
            self.cqe[i].clock.next = self.clock.val();
            self.cqe[i].d.next = self.cqe[i].q.val();
        }
        self.csr.clock.next = self.clock.val();
        // ---- the counters: `control.ctrl` bit 1 (self-clearing) clears them ----
        self.clear_stats.next =
            self.csr.strobe.val().get_bit(self.strobe_ctrl.val().index()) & self.csr.pulses.val().get_bit(1);
        self.txp.clear_stats.next = self.clear_stats.val();
        self.rxp.clear_stats.next = self.clear_stats.val();
        self.csr.reset.next = self.reset.val();
        self.rxp.clock.next = self.clock.val();
        self.rxp.reset.next = self.reset.val();
        self.txp.clock.next = self.clock.val();
        self.txp.reset.next = self.reset.val();
        self.ackt.clock.next = self.clock.val();
        self.ackt.reset.next = self.reset.val();
        self.rtot.clock.next = self.clock.val();
        self.rtot.reset.next = self.reset.val();
        self.prt.clock.next = self.clock.val();
        self.prt.reset.next = self.reset.val();
        self.pace.clock.next = self.clock.val();
        self.pace.reset.next = self.reset.val();
        self.rdiv.clock.next = self.clock.val();
        self.rdiv.reset.next = self.reset.val();
        self.fbq.clock.next = self.clock.val();
        self.fbq.reset.next = self.reset.val();
        self.ackq.clock.next = self.clock.val();
        self.ackq.reset.next = self.reset.val();
        self.rnrq.clock.next = self.clock.val();
        self.rnrq.reset.next = self.reset.val();
        self.rd_who.clock.next = self.clock.val();
        self.rd_who.reset.next = self.reset.val();

        // ---- the register file ----
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
        // A read waits while the send path loads the path the register
        // window selects (`pt_valid`: a few cycles after `path_table.index`
        // changes), so that its registers read that path.
        self.csr.s_axil_arvalid.next = self.s_axil_arvalid.val() & self.txp.pt_valid.val();
        self.s_axil_arready.next = self.csr.s_axil_arready.val() & self.txp.pt_valid.val();
        self.s_axil_rdata.next = self.csr.s_axil_rdata.val();
        self.s_axil_rresp.next = self.csr.s_axil_rresp.val();
        self.s_axil_rvalid.next = self.csr.s_axil_rvalid.val();
        self.csr.s_axil_rready.next = self.s_axil_rready.val();

        // ---- settings ----
        self.cfg.next = self.csr.regs.val().into();
        self.w_ctrl.next = self.cfg.val().ctrl;
        self.w_mac.next.lo = self.cfg.val().mac_lo;
        self.w_mac_hi.next = self.cfg.val().mac_hi;
        self.w_mac.next.hi = self.w_mac_hi.val().get_bits::<16>(0);
        self.w_port.next = self.cfg.val().udp_port;
        self.w_mtu.next = self.cfg.val().mtu;
        self.w_window_cap.next = self.cfg.val().window_cap;
        self.w_window_scale.next = self.cfg.val().window_scale;
        self.w_ack_every.next = self.cfg.val().ack_every;
        self.w_conn_index.next = self.cfg.val().conn_index;
        self.w_conn_paths.next = self.cfg.val().conn_paths;
        self.w_conn_streams.next = self.cfg.val().conn_streams;
        self.w_conn_generation.next = self.cfg.val().conn_generation;
        self.w_conn_rx_psn.next = self.cfg.val().conn_rx_psn;
        self.w_conn_tx_psn.next = self.cfg.val().conn_tx_psn;
        self.w_conn_remote.next = self.cfg.val().conn_remote_id;
        self.w_peer_mac.next.lo = self.cfg.val().conn_peer_mac_lo;
        self.w_peer_mac_hi.next = self.cfg.val().conn_peer_mac_hi;
        self.w_peer_mac.next.hi = self.w_peer_mac_hi.val().get_bits::<16>(0);
        self.w_mr_index.next = self.cfg.val().mr_index;
        self.w_mr_access.next = self.cfg.val().mr_access;
        self.w_mr_conn.next = self.cfg.val().mr_conn;
        self.w_mr_base.next.lo = self.cfg.val().mr_base_lo;
        self.w_mr_base.next.hi = self.cfg.val().mr_base_hi;
        self.w_mr_len.next.lo = self.cfg.val().mr_len_lo;
        self.w_mr_len.next.hi = self.cfg.val().mr_len_hi;
        self.w_path_index.next = self.cfg.val().path_index;
        self.w_sq_base.next.lo = self.cfg.val().sq_base_lo;
        self.w_sq_base.next.hi = self.cfg.val().sq_base_hi;
        self.w_rq_base.next.lo = self.cfg.val().rq_base_lo;
        self.w_rq_base.next.hi = self.cfg.val().rq_base_hi;
        self.w_cq_base.next.lo = self.cfg.val().cq_base_lo;
        self.w_cq_base.next.hi = self.cfg.val().cq_base_hi;
        self.w_sq_log.next = self.cfg.val().sq_log_size;
        self.w_rq_log.next = self.cfg.val().rq_log_size;
        self.w_cq_log.next = self.cfg.val().cq_log_size;
        self.sq_base.next = self.w_sq_base.val().into();
        self.rq_base.next = self.w_rq_base.val().into();
        self.cq_base.next = self.w_cq_base.val().into();
        self.enable.next = self.w_ctrl.val().get_bit(0);
        self.cfg_mac.next = self.w_mac.val().into();
        self.c_index.next = self.w_conn_index.val().get_bits::<CONN_KEY_BITS>(0);
        self.c_paths.next = self.cfg.val().conn_paths;
        self.c_streams.next = self.cfg.val().conn_streams;
        self.c_cmd.next = self.cfg.val().conn_cmd;
        self.m_cmd.next = self.cfg.val().mr_cmd;
        // (the last path and stream numbers; c_ok bounds both below 16)
        self.paths_m1.next = self.c_paths.val() - self.one32.val();
        self.streams_m1.next = self.c_streams.val() - self.one32.val();
        self.c_ok.next = (self.cfg.val().conn_index < self.n_conns.val())
            & (self.c_paths.val() >= self.one32.val())
            & (self.c_paths.val() <= self.n_paths.val())
            & (self.c_streams.val() >= self.one32.val())
            & (self.c_streams.val() <= self.n_streams.val());
        self.sq_mask.next = (self.one32.val() << self.w_sq_log.val().get_bits::<5>(0)) - self.one32.val();
        self.rq_mask.next = (self.one32.val() << self.w_rq_log.val().get_bits::<5>(0)) - self.one32.val();
        self.cq_mask.next = (self.one32.val() << self.w_cq_log.val().get_bits::<5>(0)) - self.one32.val();
        self.cfg_line.next = self.cfg.val().line_rate_mbps;
        self.cfg_rec.next = self.cfg.val().recovery;

        // ---- time ----
        self.time_ps_sum.next = self.time_ps.q.val() + self.ps_remainder.val();
        if self.time_ps_sum.val() >= self.ps_per_ns.val() {
            self.time_ps.d.next = self.time_ps_sum.val() - self.ps_per_ns.val();
            self.now48.d.next = self.now48.q.val() + self.ns_per_cycle_carry.val();
        } else {
            self.time_ps.d.next = self.time_ps_sum.val();
            self.now48.d.next = self.now48.q.val() + self.ns_per_cycle.val();
        }
        self.now_ns.next = self.now48.q.val().get_bits::<32>(0);
        // The send path's RTO (from its RTT estimate) in whole ns: the timer
        // fires no later than the model's (at most a ns early, times the
        // backoff); an RTO of 2^32 ns (4.3 s) or more wraps.
        self.rto_ns36.next = self.txp.m_rto_base.val().ns;
        self.rto_ns.next = self.rto_ns36.val().get_bits::<32>(0);
        self.pr_ns36.next = self.txp.m_probe_base.val().ns;
        self.pr_ns.next = self.pr_ns36.val().get_bits::<32>(0);

        self.eng_ready.next = self.rxp.ready.val()
            & self.txp.ready.val()
            & self.ackt.ready.val()
            & self.rtot.ready.val()
            & (self.prt.ready.val() | !self.probes_built.val())
            & self.pace.ready.val();

        // ---- ring entries ----
        // Work request, 64 bytes: {id[63:0] @32, imm @28, rkey @24, remote
        // @16, local @8, len @4, conn[15:0] @2, stream @1, op @0}.
        self.wqe_words.next.w0 = self.wqe[0].q.val();
        self.wqe_words.next.w1 = self.wqe[1].q.val();
        self.wqe_words.next.w2 = self.wqe[2].q.val();
        self.wqe_words.next.w3 = self.wqe[3].q.val();
        self.wqe_words.next.w4 = self.wqe[4].q.val();
        self.wqe_all.next = self.wqe_words.val().into();
        self.rqe_words.next.w0 = self.rqe[0].q.val();
        self.rqe_words.next.w1 = self.rqe[1].q.val();
        self.rqe_words.next.w2 = self.rqe[2].q.val();
        self.rqe_all.next = self.rqe_words.val().into();
        self.w_op.next = self.wqe_all.val().get_bits::<WQE_OP_BITS>(self.wqe_op_at.val().index());
        self.w_stream.next = self.wqe_all.val().get_bits::<WQE_STREAM_BITS>(self.wqe_stream_at.val().index());
        self.w_conn.next = self.wqe_all.val().get_bits::<WQE_CONN_BITS>(self.wqe_conn_at.val().index());
        self.w_len.next = self.wqe_all.val().get_bits::<WQE_LEN_BITS>(self.wqe_len_at.val().index());
        // Receive buffer, 32 bytes: {id @16, addr @8, len @4, stream @2, conn @0}.
        self.r_conn.next = self.rqe_all.val().get_bits::<RQE_CONN_BITS>(self.rqe_conn_at.val().index());
        self.r_stream.next = self.rqe_all.val().get_bits::<RQE_STREAM_BITS>(self.rqe_stream_at.val().index());
        self.r_len.next = self.rqe_all.val().get_bits::<RQE_LEN_BITS>(self.rqe_len_at.val().index());
        self.w_streams.next = self.e_streams[0].q.val();
        self.r_streams.next = self.e_streams[0].q.val();
        self.fb_conn.next = self.rxp.m_fb_key.val().get_bits::<CONN_KEY_BITS>(self.conn_in_key.val().index());
        self.fb_streams.next = self.e_streams[0].q.val();
        self.fb_old_rate.next = self.pc_rate[0].q.val();
        self.pd_at.next = self.dirty_first.at.val().get_bits::<CONN_KEY_BITS>(0);
        self.pd_rate.next = self.pc_rate[0].q.val();
        self.ra_sweep_last.next = self.ra_last[0].q.val();
        for i in 1..CONNS {
            if self.w_conn.val().get_bits::<CONN_KEY_BITS>(0) == self.conn_no[i].val() {
                self.w_streams.next = self.e_streams[i].q.val();
            }
            if self.r_conn.val().get_bits::<CONN_KEY_BITS>(0) == self.conn_no[i].val() {
                self.r_streams.next = self.e_streams[i].q.val();
            }
            if self.fb_conn.val() == self.conn_no[i].val() {
                self.fb_streams.next = self.e_streams[i].q.val();
                self.fb_old_rate.next = self.pc_rate[i].q.val();
            }
            if self.pd_at.val() == self.conn_no[i].val() {
                self.pd_rate.next = self.pc_rate[i].q.val();
            }
            if self.ra_i.q.val() == self.conn_no[i].val() {
                self.ra_sweep_last.next = self.ra_last[i].q.val();
            }
        }
        self.w_ok.next = (self.w_op.val() >= self.one8.val())
            & (self.w_op.val() <= self.cpl_write_imm.val())
            & (self.w_conn.val() < self.n_conns16.val())
            & (self.w_stream.val().get_bits::<4>(0) < self.w_streams.val())
            & (self.w_stream.val().get_bits::<4>(4) == self.zero4.val())
            & (self.w_len.val() != self.zero32.val());
        self.r_ok.next = (self.r_conn.val() < self.n_conns16.val())
            & (self.r_stream.val().get_bits::<4>(0) < self.r_streams.val())
            & (self.r_stream.val().get_bits::<4>(4) == self.zero4.val())
            & (self.r_len.val() != self.zero32.val());

        self.sq_slot.next.zero = self.zero6.val();
        self.sq_slot.next.index = self.sq_cons.q.val() & self.sq_mask.val();
        self.sq_slot.next.high = self.zero26.val();
        self.sq_offset.next = self.sq_slot.val().into();
        self.rq_slot.next.zero = self.zero5.val();
        self.rq_slot.next.index = self.rq_cons.q.val() & self.rq_mask.val();
        self.rq_slot.next.high = self.zero27.val();
        self.rq_offset.next = self.rq_slot.val().into();
        self.cq_slot.next.zero = self.zero5.val();
        self.cq_slot.next.index = self.cq_prod.q.val() & self.cq_mask.val();
        self.cq_slot.next.high = self.zero27.val();
        self.cq_offset.next = self.cq_slot.val().into();

        // ---- DMA reads: payloads (tx_path), work requests, receive buffers ----
        // One command at a time; data comes back in command order, routed
        // by a queue of who asked.
        self.rd_room.next = self.rd_who.count.val() < self.rd_max.val();
        self.rd_any.next = self.rd_who.valid.val();
        self.rd_head.next = self.rd_who.data.val();
        self.grant_tx.next = self.rd_room.val() & self.txp.m_rd_cmd_valid.val();
        self.grant_sq.next =
            self.rd_room.val() & !self.txp.m_rd_cmd_valid.val() & (self.sqf.q.val() == self.F_CMD.val());
        self.grant_rq.next = self.rd_room.val()
            & !self.txp.m_rd_cmd_valid.val()
            & (self.sqf.q.val() != self.F_CMD.val())
            & (self.rqf.q.val() == self.F_CMD.val());
        self.rd_cmd_valid.next = (self.txp.m_rd_cmd_valid.val()
            | (self.sqf.q.val() == self.F_CMD.val())
            | (self.rqf.q.val() == self.F_CMD.val()))
            & self.rd_room.val();
        self.m_dma_rd_cmd_valid.next = self.rd_cmd_valid.val();
        if self.txp.m_rd_cmd_valid.val() {
            self.rd_cmd_addr.next = self.txp.m_rd_cmd_addr.val();
            self.m_dma_rd_cmd_len.next = self.txp.m_rd_cmd_len.val();
        } else if self.sqf.q.val() == self.F_CMD.val() {
            self.rd_cmd_addr.next = self.sq_base.val() + self.sq_offset.val();
            self.m_dma_rd_cmd_len.next = self.wqe_len.val();
        } else {
            self.rd_cmd_addr.next = self.rq_base.val() + self.rq_offset.val();
            self.m_dma_rd_cmd_len.next = self.rqe_len.val();
        }
        // The build's DMA address bits; the driver keeps everything below.
        self.m_dma_rd_cmd_addr.next = self.rd_cmd_addr.val() & self.dma_mask.val();
        self.rd_who.push.next = self.rd_cmd_valid.val() & self.m_dma_rd_cmd_ready.val();
        if self.grant_tx.val() {
            self.rd_who.push_data.next = self.rd_tx.val();
        } else if self.grant_sq.val() {
            self.rd_who.push_data.next = self.rd_sq.val();
        } else {
            self.rd_who.push_data.next = self.rd_rq.val();
        }
        if self.rd_head.val() == self.rd_tx.val() {
            self.rd_tready.next = self.rd_any.val() & self.txp.s_rd_tready.val();
        } else {
            self.rd_tready.next = self.rd_any.val();
        }
        self.s_dma_rd_tready.next = self.rd_tready.val();
        self.rd_who.pop.next = self.s_dma_rd_tvalid.val() & self.rd_tready.val() & self.s_dma_rd_tlast.val();

        // ---- completions: 32-byte entries ----
        self.cq_room.next = (self.cq_prod.q.val() - self.cfg.val().cq_cons) < (self.cq_mask.val() + self.one32.val());
        self.take_rx_cpl.next =
            (self.cqs.q.val() == self.Q_IDLE.val()) & self.cq_room.val() & self.rxp.m_cpl_valid.val();
        self.take_tx_cpl.next = (self.cqs.q.val() == self.Q_IDLE.val())
            & self.cq_room.val()
            & !self.rxp.m_cpl_valid.val()
            & self.txp.m_cpl_valid.val();
        // A malformed work request completes at once with status 3.
        self.take_bad_wr.next = (self.cqs.q.val() == self.Q_IDLE.val())
            & self.cq_room.val()
            & !self.rxp.m_cpl_valid.val()
            & !self.txp.m_cpl_valid.val()
            & (self.sqf.q.val() == self.F_OFFER.val())
            & !self.w_ok.val();

        // ---- DMA writes: placement (rx_path) and completions, whole writes ----
        self.wr_pick_rx.next = !self.wr_busy.q.val() & self.rxp.m_dma_cmd_valid.val();
        self.wr_pick_cq.next =
            !self.wr_busy.q.val() & !self.rxp.m_dma_cmd_valid.val() & (self.cqs.q.val() == self.Q_CMD.val());
        self.m_dma_wr_cmd_valid.next = self.wr_pick_rx.val() | self.wr_pick_cq.val();
        if self.wr_pick_rx.val() {
            self.wr_cmd_addr.next = self.rxp.m_dma_cmd_addr.val();
            self.m_dma_wr_cmd_len.next = self.rxp.m_dma_cmd_len.val();
        } else {
            self.wr_cmd_addr.next = self.cq_base.val() + self.cq_offset.val();
            self.m_dma_wr_cmd_len.next = self.cqe_len.val();
        }
        self.m_dma_wr_cmd_addr.next = self.wr_cmd_addr.val() & self.dma_mask.val();
        self.cqe_word.next = self.zero64.val();
        if self.cqe_beat.q.val() == self.zero2.val() {
            self.cqe_word.next = self.cqe[0].q.val();
        }
        if self.cqe_beat.q.val() == self.one2.val() {
            self.cqe_word.next = self.cqe[1].q.val();
        }
        if self.cqe_beat.q.val() == self.two2.val() {
            self.cqe_word.next = self.cqe[2].q.val();
        }
        if self.wr_cq.q.val() {
            self.m_dma_wr_tdata.next = self.cqe_word.val();
            self.m_dma_wr_tkeep.next = self.all_keep.val();
            self.wr_tvalid.next = self.wr_busy.q.val() & (self.cqs.q.val() == self.Q_DATA.val());
            self.wr_tlast.next = self.cqe_beat.q.val() == self.last_beat.val();
        } else {
            self.m_dma_wr_tdata.next = self.rxp.m_dma_data_tdata.val();
            self.m_dma_wr_tkeep.next = self.rxp.m_dma_data_tkeep.val();
            self.wr_tvalid.next = self.wr_busy.q.val() & self.rxp.m_dma_data_tvalid.val();
            self.wr_tlast.next = self.rxp.m_dma_data_tlast.val();
        }
        self.m_dma_wr_tvalid.next = self.wr_tvalid.val();
        self.m_dma_wr_tlast.next = self.wr_tlast.val();

        // ---- values read by the blocks' inputs below ----
        self.ack_first.v.next = self.ack_pend.q.val();
        self.rto_first.v.next = self.rto_pend.q.val();
        self.ack_at.next = self.ack_first.at.val().get_bits::<PATH_KEY_BITS>(0);
        self.rto_at.next = self.rto_first.at.val().get_bits::<PATH_KEY_BITS>(0);
        self.held_out.next = self.rnrq.data.val();
        self.rnr_left.next = self.held_out.val().at - self.now_ns.val();
        self.rnr_due.next = self.rnrq.valid.val() & self.rnr_left.val().get_bit(31);
        self.now_lead.next = self.now48.q.val() + self.pace_lead.val();
        self.may[0].next = self.zero_conns.val();
        if !self.pc_wait.q.val().get_bit(0) & (self.now_lead.val() >= self.pc_ready[0].q.val()) {
            self.may[0].next = self.conn_bit[0].val();
        }
        for i in 1..CONNS {
            self.may[i].next = self.may[i - 1].val();
            if !self.pc_wait.q.val().get_bit(i) & (self.now_lead.val() >= self.pc_ready[i].q.val()) {
                self.may[i].next = self.may[i - 1].val() | self.conn_bit[i].val();
            }
        }
        for i in LAST_CONN..CONNS {
            self.may_all.next = self.may[i].val();
        }
        // The receiver's rate hint (the model's Endpoint::rate_hint): the
        // line rate over the connections active at this receiver (see below).
        // Each connection's state is compared with the clock into two
        // registered flag words; the count, the divisor and the quotient
        // follow in registers, so the hint trails the flags by the
        // division: a change of the flags reaches the hint within 68 cycles
        // (two registers, the division under way and its own 33; well
        // inside ACTIVE_NS).
        for i in 0..CONNS {
            self.ra_age[i].next = self.now_ns.val() - self.ra_last[i].q.val();
        }
        for i in 0..CONNS {
            self.ra_rec1[i].next = self.ra_heard.q.val().get_bit(i) & (self.ra_age[i].val() <= self.active_ns.val());
            self.ra_cnt1[i].next = self.ra_heard.q.val().get_bit(i)
                & ((self.ra_age[i].val() <= self.active_ns.val())
                    | ((self.ra_age[i].val() <= self.forget_ns.val()) & (self.ra_part[i].q.val() != self.zero8.val())));
        }
        self.ra_recw[0].next = self.zero_conns.val();
        self.ra_cntw[0].next = self.zero_conns.val();
        if self.ra_rec1[0].val() {
            self.ra_recw[0].next = self.conn_bit[0].val();
        }
        if self.ra_cnt1[0].val() {
            self.ra_cntw[0].next = self.conn_bit[0].val();
        }
        for i in 1..CONNS {
            self.ra_recw[i].next = self.ra_recw[i - 1].val();
            if self.ra_rec1[i].val() {
                self.ra_recw[i].next = self.ra_recw[i - 1].val() | self.conn_bit[i].val();
            }
            self.ra_cntw[i].next = self.ra_cntw[i - 1].val();
            if self.ra_cnt1[i].val() {
                self.ra_cntw[i].next = self.ra_cntw[i - 1].val() | self.conn_bit[i].val();
            }
        }
        for i in LAST_CONN..CONNS {
            self.ra_rec.d.next = self.ra_recw[i].val();
            self.ra_cnt.d.next = self.ra_cntw[i].val();
        }
        self.ra_any_recent.next = self.ra_rec.q.val().any();
        self.ra_count[0].next = self.zero9.val();
        if self.ra_cnt.q.val().get_bit(0) {
            self.ra_count[0].next = self.one9.val();
        }
        for i in 1..CONNS {
            self.ra_count[i].next = self.ra_count[i - 1].val();
            if self.ra_cnt.q.val().get_bit(i) {
                self.ra_count[i].next = self.ra_count[i - 1].val() + self.one9.val();
            }
        }
        for i in LAST_CONN..CONNS {
            self.ra_div.d.next = self.ra_count[i].val();
            if self.ra_count[i].val() == self.zero9.val() {
                self.ra_div.d.next = self.one9.val();
            }
        }
        // hint = line / active: restoring division, one quotient bit a cycle.
        self.dv_shift.next = self.dv_rem.q.val() << 1;
        if self.dv_num.q.val().get_bit(31) {
            self.dv_shift.next = (self.dv_rem.q.val() << 1) | self.one9.val();
        }
        self.dv_step.d.next = self.dv_step.q.val() + self.one6.val();
        self.dv_num.d.next = self.dv_num.q.val() << 1;
        self.dv_rem.d.next = self.dv_shift.val();
        self.dv_next.next = self.dv_quo.q.val() << 1;
        if self.dv_shift.val() >= self.dv_den.q.val() {
            self.dv_rem.d.next = self.dv_shift.val() - self.dv_den.q.val();
            self.dv_next.next = (self.dv_quo.q.val() << 1) | self.one32.val();
        }
        self.dv_quo.d.next = self.dv_next.val();
        if self.dv_step.q.val() == self.zero6.val() {
            self.dv_num.d.next = self.cfg_line.val();
            self.dv_den.d.next = self.ra_div.q.val();
            self.dv_rem.d.next = self.zero9.val();
            self.dv_quo.d.next = self.zero32.val();
        }
        if self.dv_step.q.val() == self.last_step.val() {
            self.hint_q.d.next = self.dv_next.val();
            self.dv_step.d.next = self.zero6.val();
        }
        self.hint.next = self.zero32.val();
        // `Recovery::hint_warmup` (bit 7): none in the first window.
        if self.ra_warm.q.val() | !self.cfg_rec.val().get_bit(7) {
            self.hint.next = self.hint_q.q.val();
        }

        // ---- the receive path ----
        self.rxp.cfg_port.next = self.w_port.val().get_bits::<16>(0);
        self.rxp.cfg_mac.next = self.cfg_mac.val();
        self.rxp.cfg_ip.next = self.cfg.val().ip;
        self.rxp.cfg_ack_every.next = self.w_ack_every.val().get_bits::<16>(0);
        self.rxp.conn_wr.next = self.cst.q.val() == self.C_RX.val();
        self.rxp.conn_wr_index.next = self.c_index.val();
        self.rxp.conn_wr_valid_bit.next = self.c_cmd.val() == self.cmd_set.val();
        self.rxp.conn_wr_peer_ip.next = self.cfg.val().conn_peer_ip;
        self.rxp.conn_wr_paths.next = self.w_conn_paths.val().get_bits::<5>(0);
        self.rxp.conn_wr_generation.next = self.w_conn_generation.val().get_bits::<8>(0);
        self.rxp.mr_wr.next = self.mr_w.q.val();
        self.rxp.mr_wr_index.next = self.w_mr_index.val().get_bits::<MR_BITS>(0);
        self.rxp.mr_wr_valid_bit.next = self.mr_valid_bit.q.val();
        self.rxp.mr_wr_rkey.next = self.cfg.val().mr_rkey;
        self.rxp.mr_wr_base.next = self.w_mr_base.val().into();
        self.rxp.mr_wr_len.next = self.w_mr_len.val().into();
        self.rxp.mr_wr_remote_write.next = self.w_mr_access.val().get_bit(0);
        self.rxp.mr_wr_conn.next = self.w_mr_conn.val().get_bits::<16>(0);
        self.rxp.ctl_valid.next = (self.cst.q.val() == self.C_LOAD.val()) | (self.cst.q.val() == self.C_CLEAR.val());
        self.rxp.ctl_op.next = self.cst.q.val() == self.C_CLEAR.val();
        self.ck.next.conn = self.c_index.val();
        self.ck.next.path = self.c_i.q.val().get_bits::<PATH_BITS>(0);
        self.rxp.ctl_key.next = self.ck.val().into();
        self.rxp.ctl_psn.next = self.w_conn_rx_psn.val().get_bits::<24>(0);
        self.rxp.post_valid.next = (self.rqf.q.val() == self.F_OFFER.val()) & self.r_ok.val();
        self.rk.next.conn = self.r_conn.val().get_bits::<CONN_KEY_BITS>(0);
        self.rk.next.stream = self.r_stream.val().get_bits::<STREAM_BITS>(0);
        self.rxp.post_key.next = self.rk.val().into();
        self.rxp.post_addr.next =
            self.rqe_all.val().get_bits::<RQE_ADDR_BITS>(self.rqe_addr_at.val().index()) & self.dma_mask.val();
        self.rxp.post_len.next = self.r_len.val();
        self.rxp.post_id.next = self.rqe_all.val().get_bits::<RQE_ID_BITS>(self.rqe_id_at.val().index());
        self.rxp.timer_valid.next = self.ack_first.any.val();
        self.rxp.timer_key.next = self.ack_at.val();
        self.rxp.s_axis_tdata.next = self.s_mac_rx_tdata.val();
        self.rxp.s_axis_tkeep.next = self.s_mac_rx_tkeep.val();
        self.rxp.s_axis_tvalid.next = self.s_mac_rx_tvalid.val();
        self.s_mac_rx_tready.next = self.rxp.s_axis_tready.val();
        self.rxp.s_axis_tlast.next = self.s_mac_rx_tlast.val();
        self.rxp.s_axis_tuser.next = self.s_mac_rx_tuser.val();
        self.rxp.m_dma_cmd_ready.next = self.wr_pick_rx.val() & self.m_dma_wr_cmd_ready.val();
        self.rxp.m_dma_data_tready.next = self.wr_busy.q.val() & !self.wr_cq.q.val() & self.m_dma_wr_tready.val();
        self.rxp.m_ack_ready.next = !self.ackq.full.val();
        self.rxp.m_nak_ready.next = self.txp.nak_ready.val();
        self.rxp.m_fb_ready.next = !self.fbq.full.val();
        self.rxp.m_cpl_ready.next = self.take_rx_cpl.val();

        // ---- receive-to-send queues: received ACKs/NAKs and ACKs to send
        // wait here, so the receive side never waits for the frame the send
        // side is sending ----
        self.fb_in.next.sack = self.rxp.m_fb_sack.val();
        self.fb_in.next.nak = self.rxp.m_fb_nak.val();
        self.fb_in.next.key = self.rxp.m_fb_key.val();
        self.fb_in.next.psn = self.rxp.m_fb_psn.val();
        self.fb_in.next.ce = self.rxp.m_fb_ce.val();
        self.fb_in.next.code = self.rxp.m_fb_code.val();
        self.fb_in.next.stream = self.rxp.m_fb_stream.val();
        // An ACK has no message sequence number: in builds with the
        // connection window its slot carries the ACK's rate hint.
        self.fb_in.next.msg_seq = self.rxp.m_fb_msg_seq.val();
        if self.cw_built.val() & !self.rxp.m_fb_nak.val() {
            self.fb_in.next.msg_seq = self.rxp.m_fb_hint.val();
        }
        self.fb_in.next.ts = self.rxp.m_fb_ts_echo.val();
        self.fbq.push.next = self.rxp.m_fb_valid.val() & !self.fbq.full.val();
        self.fbq.push_data.next = self.fb_in.val();
        self.fbq.pop.next = self.txp.fb_ready.val();
        self.fb_out.next = self.fbq.data.val();
        self.ack_in.next.sack = self.rxp.m_ack_sack.val();
        self.ack_in.next.key = self.rxp.m_ack_key.val();
        self.ack_in.next.cum = self.rxp.m_ack_cum.val();
        self.ack_in.next.ts = self.rxp.m_ack_ts.val();
        self.ack_in.next.sport = self.rxp.m_ack_sport.val();
        self.ack_in.next.pending = self.rxp.m_ack_pending.val();
        self.ack_in.next.ce = self.rxp.m_ack_ce.val();
        self.ackq.push.next = self.rxp.m_ack_valid.val() & !self.ackq.full.val();
        self.ackq.push_data.next = self.ack_in.val();
        self.ackq.pop.next = self.txp.ack_ready.val();
        self.ack_out.next = self.ackq.data.val();

        // ---- the send path ----
        self.txp.cfg_mac.next = self.cfg_mac.val();
        self.txp.cfg_ip.next = self.cfg.val().ip;
        self.txp.cfg_port.next = self.w_port.val().get_bits::<16>(0);
        self.txp.cfg_mtu.next = self.w_mtu.val().get_bits::<14>(0);
        self.txp.cfg_max_cwnd.next = self.w_window_cap.val().get_bits::<9>(0);
        self.txp.cfg_repath_after.next = self.repath_after.val();
        self.txp.cfg_retire_after.next = self.retire_after.val();
        self.txp.cfg_rto_min.next = self.cfg.val().rto_min_ns;
        self.txp.cfg_hint.next = self.hint.val();
        self.txp.cfg_max_backoff.next = self.cfg_rec.val().get_bits::<3>(0);
        self.txp.cfg_loss_shift.next = self.cfg_rec.val().get_bits::<3>(3);
        self.txp.cfg_path_ecn_cut.next = self.cfg_rec.val().get_bit(6);
        self.txp.cfg_probe.next = self.cfg_rec.val().get_bit(8) & self.probes_built.val();
        self.txp.cfg_ack_delay.next = self.cfg.val().ack_delay_ns;
        self.txp.cfg_rack.next = self.cfg_rec.val().get_bit(9) & self.rack_built.val();
        self.txp.cfg_conn_window.next = self.cfg_rec.val().get_bit(10) & self.cw_built.val();
        self.txp.cfg_clean_repairs.next = self.cfg_rec.val().get_bit(11) & self.cr_built.val();
        self.txp.cfg_path_rack.next = self.cfg_rec.val().get_bit(12) & self.rack_built.val();
        self.txp.cfg_line.next = self.cfg_line.val();
        self.txp.cfg_window_scale.next = self.w_window_scale.val().get_bits::<24>(0);
        self.txp.now.next = self.now_ns.val();
        self.txp.ctl_valid.next = (self.cst.q.val() == self.C_TX.val()) | (self.cst.q.val() == self.C_SEED.val());
        self.txp.ctl_op.next = self.cst.q.val() == self.C_SEED.val();
        self.txp.ctl_conn.next = self.c_index.val();
        self.txp.ctl_remote.next = self.w_conn_remote.val().get_bits::<16>(0);
        self.txp.ctl_mac.next = self.w_peer_mac.val().into();
        self.txp.ctl_ip.next = self.cfg.val().conn_peer_ip;
        self.txp.ctl_paths.next = self.w_conn_paths.val().get_bits::<PATH_COUNT_BITS>(0);
        self.txp.ctl_streams.next = self.w_conn_streams.val().get_bits::<STREAM_COUNT_BITS>(0);
        self.txp.ctl_psn.next = self.w_conn_tx_psn.val().get_bits::<24>(0);
        self.txp.ctl_generation.next = self.w_conn_generation.val().get_bits::<8>(0);
        self.txp.ctl_seed.next = self.cfg.val().port_seed;
        self.txp.wr_valid.next = (self.sqf.q.val() == self.F_OFFER.val()) & self.w_ok.val();
        self.wk.next.conn = self.w_conn.val().get_bits::<CONN_KEY_BITS>(0);
        self.wk.next.stream = self.w_stream.val().get_bits::<STREAM_BITS>(0);
        self.txp.wr_key.next = self.wk.val().into();
        self.txp.wr_op.next = self.w_op.val().get_bits::<2>(0);
        self.txp.wr_len.next = self.w_len.val();
        self.txp.wr_local.next =
            self.wqe_all.val().get_bits::<WQE_LOCAL_BITS>(self.wqe_local_at.val().index()) & self.dma_mask.val();
        self.txp.wr_remote.next = self.wqe_all.val().get_bits::<WQE_REMOTE_BITS>(self.wqe_remote_at.val().index());
        self.txp.wr_rkey.next = self.wqe_all.val().get_bits::<WQE_RKEY_BITS>(self.wqe_rkey_at.val().index());
        self.txp.wr_imm.next = self.wqe_all.val().get_bits::<WQE_IMM_BITS>(self.wqe_imm_at.val().index());
        self.txp.wr_id.next = self.wqe_all.val().get_bits::<WQE_ID_BITS>(self.wqe_id_at.val().index());
        self.txp.fb_valid.next = self.fbq.valid.val();
        self.txp.fb_nak.next = self.fb_out.val().nak;
        self.txp.fb_key.next = self.fb_out.val().key;
        self.txp.fb_psn.next = self.fb_out.val().psn;
        // The queues' bitmaps are by slot of the window (W bits, folded by
        // the receive side): the bits above are not read, so synthesis
        // leaves them out of the queues' RAM.
        self.txp.fb_sack.next = self.fb_out.val().sack & self.window_bits.val();
        self.txp.fb_ce.next = self.fb_out.val().ce;
        self.txp.fb_code.next = self.fb_out.val().code;
        self.txp.fb_stream.next = self.fb_out.val().stream;
        self.txp.fb_msg_seq.next = self.fb_out.val().msg_seq;
        self.txp.fb_hint.next = self.zero32.val();
        if self.cw_built.val() & !self.fb_out.val().nak {
            self.txp.fb_hint.next = self.fb_out.val().msg_seq;
        }
        self.txp.fb_ts.next = self.fb_out.val().ts;
        self.txp.ack_valid.next = self.ackq.valid.val();
        self.txp.ack_key.next = self.ack_out.val().key;
        self.txp.ack_cum.next = self.ack_out.val().cum;
        self.txp.ack_sack.next = self.ack_out.val().sack & self.window_bits.val();
        self.txp.ack_ts.next = self.ack_out.val().ts;
        self.txp.ack_sport.next = self.ack_out.val().sport;
        self.txp.ack_pending.next = self.ack_out.val().pending;
        self.txp.ack_ce.next = self.ack_out.val().ce;
        self.txp.nak_valid.next = self.rxp.m_nak_valid.val();
        self.txp.nak_key.next = self.rxp.m_nak_key.val();
        self.txp.nak_psn.next = self.rxp.m_nak_psn.val();
        self.txp.nak_stream.next = self.rxp.m_nak_stream.val();
        self.txp.nak_msg_seq.next = self.rxp.m_nak_msg_seq.val();
        self.txp.nak_code.next = self.rxp.m_nak_code.val();
        self.txp.nak_sport.next = self.rxp.m_nak_sport.val();
        self.txp.rto_valid.next = self.rto_first.any.val();
        self.txp.rto_key.next = self.rto_at.val();
        self.pr_256.next.flags = self.pr_pend.q.val();
        self.pr_256.next.zero = self.zero_pad.val();
        self.pr_first.v.next = self.pr_256.val().into();
        self.txp.probe_valid.next = self.pr_first.any.val() & self.probes_built.val();
        self.txp.probe_key.next = self.pr_first.at.val().get_bits::<CONN_KEY_BITS>(0);
        self.txp.release_valid.next = self.rnr_due.val();
        self.txp.release_key.next = self.held_out.val().key;
        self.txp.release_psn.next = self.held_out.val().psn;
        self.txp.tx_go.next = self.enable.val();
        self.txp.tx_mask.next = self.may_all.val();
        self.txp.m_rd_cmd_ready.next = self.grant_tx.val() & self.m_dma_rd_cmd_ready.val();
        self.txp.s_rd_tdata.next = self.s_dma_rd_tdata.val();
        self.txp.s_rd_tkeep.next = self.s_dma_rd_tkeep.val();
        self.txp.s_rd_tvalid.next =
            self.s_dma_rd_tvalid.val() & self.rd_any.val() & (self.rd_head.val() == self.rd_tx.val());
        self.txp.s_rd_tlast.next = self.s_dma_rd_tlast.val();
        self.txp.m_axis_tready.next = self.m_mac_tx_tready.val();
        self.m_mac_tx_tdata.next = self.txp.m_axis_tdata.val();
        self.m_mac_tx_tkeep.next = self.txp.m_axis_tkeep.val();
        self.m_mac_tx_tvalid.next = self.txp.m_axis_tvalid.val();
        self.m_mac_tx_tlast.next = self.txp.m_axis_tlast.val();
        self.txp.m_cpl_ready.next = self.take_tx_cpl.val();
        // The path window: connection * max_paths + path (the build's
        // paths per connection, `engine_info.max_paths`).
        self.pt.next.path = self.w_path_index.val().get_bits::<PATH_BITS>(0);
        self.pt.next.conn = self.w_path_index.val().get_bits::<CONN_KEY_BITS>(self.conn_in_index.val().index());
        self.pt_in_range.next = self.w_path_index.val() < self.n_path_keys.val();
        self.txp.pt_key.next = self.pt.val().into();

        // ---- timers: fired keys wait until taken; a newer request replaces them ----
        self.ackt.now.next = self.now_ns.val();
        self.ackt.set_valid.next = self.rxp.m_arm_valid.val();
        self.arm_w.next.lo = self.rxp.m_arm_key.val();
        self.arm_w.next.hi = self.zero_wide_hi.val();
        self.arm_wb.next = self.arm_w.val().into();
        self.ackt.set_key.next = self.arm_wb.val().get_bits::<MAX_KEY_BITS>(0);
        self.ackt.set_arm.next = true;
        self.ackt.set_deadline.next = self.now_ns.val() + self.cfg.val().ack_delay_ns;
        self.rtot.now.next = self.now_ns.val();
        self.rtot.set_valid.next = self.txp.m_rto_valid.val();
        self.rto_w.next.lo = self.txp.m_rto_key.val();
        self.rto_w.next.hi = self.zero_wide_hi.val();
        self.rto_wb.next = self.rto_w.val().into();
        self.rtot.set_key.next = self.rto_wb.val().get_bits::<MAX_KEY_BITS>(0);
        self.rtot.set_arm.next = self.txp.m_rto_arm.val();
        self.rtot.set_deadline.next = self.now_ns.val() + (self.rto_ns.val() << self.txp.m_rto_shift.val());
        self.ack_p1.next = self.ack_pend.q.val();
        if self.ackt.fire_valid.val() {
            self.ack_p1.next =
                self.ack_pend.q.val() | (self.one_keys.val() << (self.ackt.fire_key.val() & self.timer_key_mask.val()));
        }
        self.ack_c1.next = self.zero_keys.val();
        if self.ack_first.any.val() & self.rxp.timer_ready.val() {
            self.ack_c1.next = self.one_keys.val() << self.ack_at.val();
        }
        self.ack_c2.next = self.zero_keys.val();
        if self.rxp.m_arm_valid.val() {
            self.ack_c2.next = self.one_keys.val() << self.rxp.m_arm_key.val();
        }
        self.ack_c3.next = self.zero_keys.val();
        if self.rxp.m_ack_valid.val() {
            self.ack_c3.next = self.one_keys.val() << self.rxp.m_ack_key.val();
        }
        self.ack_pend.d.next =
            self.ack_p1.val() & !(self.ack_c1.val() | self.ack_c2.val() | self.ack_c3.val()) & self.keys_mask.val();
        self.rto_p1.next = self.rto_pend.q.val();
        if self.rtot.fire_valid.val() {
            self.rto_p1.next =
                self.rto_pend.q.val() | (self.one_keys.val() << (self.rtot.fire_key.val() & self.timer_key_mask.val()));
        }
        self.rto_c1.next = self.zero_keys.val();
        if self.rto_first.any.val() & self.txp.rto_ready.val() {
            self.rto_c1.next = self.one_keys.val() << self.rto_at.val();
        }
        self.rto_c2.next = self.zero_keys.val();
        if self.txp.m_rto_valid.val() {
            self.rto_c2.next = self.one_keys.val() << self.txp.m_rto_key.val();
        }
        self.rto_pend.d.next = self.rto_p1.val() & !(self.rto_c1.val() | self.rto_c2.val()) & self.keys_mask.val();
        // The tail-probe timers, as the retransmission timers.
        self.prt.now.next = self.now_ns.val();
        self.prt.set_valid.next = self.txp.m_probe_valid.val() & self.probes_built.val();
        self.prt_w.next.lo = self.txp.m_probe_key.val();
        self.prt_w.next.hi = self.zero_wide_conn.val();
        self.prt_wb.next = self.prt_w.val().into();
        self.prt.set_key.next = self.prt_wb.val().get_bits::<MAX_KEY_BITS>(0);
        self.prt.set_arm.next = self.txp.m_probe_arm.val();
        self.prt.set_deadline.next = self.now_ns.val() + (self.pr_ns.val() << self.txp.m_probe_shift.val());
        self.pr_p1.next = self.pr_pend.q.val();
        if self.prt.fire_valid.val() & self.probes_built.val() {
            self.pr_p1.next = self.pr_pend.q.val() | (self.one_conns.val() << self.prt.fire_key.val());
        }
        self.pr_c1.next = self.zero_conns.val();
        if self.pr_first.any.val() & self.txp.probe_ready.val() {
            self.pr_c1.next = self.one_conns.val() << self.pr_first.at.val();
        }
        self.pr_c2.next = self.zero_conns.val();
        if self.txp.m_probe_valid.val() {
            self.pr_c2.next = self.one_conns.val() << self.txp.m_probe_key.val();
        }
        self.pr_pend.d.next = self.pr_p1.val() & !(self.pr_c1.val() | self.pr_c2.val());
        // PSNs held back by receiver-not-ready, released after rnr_delay_ns.
        self.held_in.next.at = self.now_ns.val() + self.cfg.val().rnr_delay_ns;
        self.held_in.next.key = self.txp.m_rnr_key.val();
        self.held_in.next.psn = self.txp.m_rnr_psn.val();
        self.rnrq.push.next = self.txp.m_rnr_valid.val();
        self.rnrq.push_data.next = self.held_in.val();
        self.rnrq.pop.next = self.rnr_due.val() & self.txp.release_ready.val();

        // ---- pacing (the model's cc::Pacer per connection, in ns) ----
        // A connection sends at the rate its receiver's hint gives (at most
        // the line rate; before the first hint, conn_table.initial_rate_mbps
        // or the line rate). The pacer block holds each connection's next
        // permitted time and the cost of a byte; rate_div turns rates into
        // costs. pc_ready is the first ns at which a connection may send;
        // pc_wait holds it back from the frame it just sent until the pacer
        // has accounted for that frame.
        self.dirty256.next.flags = self.pc_dirty.q.val();
        self.dirty256.next.zero = self.zero_pad.val();
        self.dirty_first.v.next = self.dirty256.val().into();
        self.cv_start.next =
            !self.cv_busy.q.val() & !self.set_v.q.val() & self.dirty_first.any.val() & self.rdiv.in_ready.val();
        if self.cfg.val().conn_initial_rate_mbps == self.zero32.val() {
            self.c_rate.next = self.cfg_line.val();
        } else if self.cfg.val().conn_initial_rate_mbps < self.cfg_line.val() {
            self.c_rate.next = self.cfg.val().conn_initial_rate_mbps;
        } else {
            self.c_rate.next = self.cfg_line.val();
        }
        if self.rxp.m_fb_hint.val() < self.cfg_line.val() {
            self.fb_rate.next = self.rxp.m_fb_hint.val();
        } else {
            self.fb_rate.next = self.cfg_line.val();
        }
        self.fb_hint.next = self.rxp.m_fb_valid.val()
            & !self.fbq.full.val()
            & !self.rxp.m_fb_nak.val()
            & (self.rxp.m_fb_hint.val() != self.zero32.val())
            & (self.fb_streams.val() != self.zero4.val())
            & (self.fb_old_rate.val() != self.fb_rate.val());
        self.c_new.next = (self.cst.q.val() == self.C_RX.val()) & (self.c_cmd.val() == self.cmd_set.val());
        self.pace_idle.next = !self.pc_dirty.q.val().any()
            & !self.cv_busy.q.val()
            & !self.set_v.q.val()
            & !self.p1_v.q.val()
            & !self.p2_v.q.val();
        self.sent_bytes.next = self.txp.tx_sent_len.val() + self.frame_extra.val();
        self.pace.in_valid.next = self.txp.tx_sent.val() | self.set_v.q.val();
        if self.txp.tx_sent.val() {
            self.pace.in_op.next = self.op_send.val();
            self.pace.in_key.next = self.txp.tx_sent_conn.val();
        } else {
            if self.set_load.q.val() {
                self.pace.in_op.next = self.op_load.val();
            } else {
                self.pace.in_op.next = self.op_set.val();
            }
            self.pace.in_key.next = self.set_c.q.val();
        }
        self.pace.in_now.next = self.now48.q.val();
        self.pace.in_cost.next = self.set_cost.q.val();
        self.pace.in_bytes.next = self.sent_bytes.val();
        self.rdiv.in_valid.next = self.cv_start.val();
        self.rdiv.in_rate_mbps.next = self.pd_rate.val();
        self.rdiv.in_clock_mhz.next = self.ns_per_us.val(); // the pacer counts ns: 1000 per us
        self.out_cost.next = self.rdiv.out_cost.val();

        self.p1_v.d.next = self.txp.tx_sent.val() | self.set_v.q.val();
        self.p2_v.d.next = self.p1_v.q.val();
        self.p1_send.d.next = self.txp.tx_sent.val();
        self.p2_send.d.next = self.p1_send.q.val();
        if self.cv_start.val() {
            self.cv_busy.d.next = true;
            self.cv_conn.d.next = self.pd_at.val();
            self.cv_load.d.next = self.pc_load.q.val().get_bit(self.pd_at.val().index());
        }
        if self.rdiv.out_valid.val() {
            self.cv_busy.d.next = false;
            self.set_v.d.next = true;
            self.set_c.d.next = self.cv_conn.q.val();
            self.set_cost.d.next = self.out_cost.val().get_bits::<32>(0);
            self.set_load.d.next = self.cv_load.q.val();
        } else if self.set_v.q.val() & !self.txp.tx_sent.val() {
            self.set_v.d.next = false;
        }
        // Flags: a clear, then the sets of the same cycle.
        self.clr_pd.next = self.zero_conns.val();
        if self.cv_start.val() {
            self.clr_pd.next = self.one_conns.val() << self.pd_at.val();
        }
        self.set_rx.next = self.zero_conns.val();
        if self.c_new.val() {
            self.set_rx.next = self.one_conns.val() << self.c_index.val();
        }
        self.set_fb.next = self.zero_conns.val();
        if self.fb_hint.val() {
            self.set_fb.next = self.one_conns.val() << self.fb_conn.val();
        }
        self.clr_out.next = self.zero_conns.val();
        if self.pace.out_valid.val() & self.p2_send.q.val() {
            self.clr_out.next = self.one_conns.val() << self.pace.out_key.val();
        }
        self.set_send.next = self.zero_conns.val();
        if self.txp.tx_sent.val() {
            self.set_send.next = self.one_conns.val() << self.txp.tx_sent_conn.val();
        }
        self.pc_dirty.d.next = (self.pc_dirty.q.val() & !self.clr_pd.val()) | self.set_fb.val() | self.set_rx.val();
        self.pc_load.d.next = (self.pc_load.q.val() & !self.clr_pd.val()) | self.set_rx.val();
        self.pc_wait.d.next = (self.pc_wait.q.val() & !self.clr_out.val()) | self.set_send.val();
        for i in 0..CONNS {
            if self.pace.out_valid.val() & (self.pace.out_key.val() == self.conn_no[i].val()) {
                self.pc_ready[i].d.next = self.pace.out_ready_at.val();
            }
            if self.fb_hint.val() & (self.fb_conn.val() == self.conn_no[i].val()) {
                self.pc_rate[i].d.next = self.fb_rate.val();
            }
            if self.c_new.val() & (self.c_index.val() == self.conn_no[i].val()) {
                self.pc_rate[i].d.next = self.c_rate.val();
            }
        }

        // ---- the receiver's rate hint (the model's Endpoint::rate_hint):
        // the line rate over the connections active at this receiver, those
        // heard from within ACTIVE_NS, or within 8 x ACTIVE_NS with a message
        // begun and not delivered; none until one window after the receiver
        // became busy ----
        self.ra_i.d.next = self.ra_i.q.val() + self.one_conn.val();
        self.clr_sweep.next = self.zero_conns.val();
        if self.ra_heard.q.val().get_bit(self.ra_i.q.val().index())
            & ((self.now_ns.val() - self.ra_sweep_last.val()) > self.forget_ns.val())
        {
            self.clr_sweep.next = self.one_conns.val() << self.ra_i.q.val();
        }
        self.set_data.next = self.zero_conns.val();
        if self.rxp.m_data_valid.val() {
            self.set_data.next = self.one_conns.val() << self.rxp.m_data_conn.val();
        }
        self.clr_conn.next = self.zero_conns.val();
        if self.cst.q.val() == self.C_RX.val() {
            self.clr_conn.next = self.one_conns.val() << self.c_index.val();
        }
        self.ra_heard.d.next =
            ((self.ra_heard.q.val() & !self.clr_sweep.val()) | self.set_data.val()) & !self.clr_conn.val();
        if self.ra_has.q.val()
            & !self.ra_warm.q.val()
            & ((self.now_ns.val() - self.ra_since.q.val()) >= self.active_ns.val())
        {
            self.ra_warm.d.next = true;
        }
        if self.rxp.m_data_valid.val() & !self.ra_any_recent.val() {
            self.ra_has.d.next = true;
            self.ra_warm.d.next = false;
            self.ra_since.d.next = self.now_ns.val();
        }
        for i in 0..CONNS {
            if self.rxp.m_data_valid.val() & (self.rxp.m_data_conn.val() == self.conn_no[i].val()) {
                self.ra_last[i].d.next = self.now_ns.val();
            }
            if self.rxp.m_msg_valid.val() & (self.rxp.m_msg_conn.val() == self.conn_no[i].val()) {
                if self.rxp.m_msg_began.val() & (self.ra_part[i].q.val() != self.all8.val()) {
                    self.ra_part[i].d.next = self.ra_part[i].q.val() + self.one8.val();
                }
                if self.rxp.m_msg_popped.val() & (self.ra_part[i].q.val() != self.zero8.val()) {
                    self.ra_part[i].d.next = self.ra_part[i].q.val() - self.one8.val();
                }
            }
            if (self.cst.q.val() == self.C_RX.val()) & (self.c_index.val() == self.conn_no[i].val()) {
                self.ra_part[i].d.next = self.zero8.val();
            }
        }

        // ---- registers the hardware sets ----
        self.hw.next.status = self.zero32.val();
        if self.enable.val() {
            self.hw.next.status = self.one32.val();
        }
        self.conn_status_word.next.status = self.conn_status.q.val();
        self.conn_status_word.next.zero = self.zero30.val();
        self.mr_status_word.next.status = self.mr_status.q.val();
        self.mr_status_word.next.zero = self.zero30.val();
        self.sport_word.next.value = self.txp.pt_sport.val();
        self.sport_word.next.zero = self.zero16.val();
        self.cwnd_word.next.zero = self.zero16.val();
        self.cwnd_word.next.cwnd = self.txp.pt_cwnd.val();
        self.cwnd_word.next.high = self.zero7.val();
        self.hw.next.conn_cmd_status = self.conn_status_word.val().into();
        self.hw.next.mr_cmd_status = self.mr_status_word.val().into();
        self.hw.next.sq_cons = self.sq_cons.q.val();
        self.hw.next.rq_cons = self.rq_cons.q.val();
        self.hw.next.cq_prod = self.cq_prod.q.val();
        self.hw.next.path_sport = self.zero32.val();
        self.hw.next.path_cwnd = self.zero32.val();
        self.hw.next.path_state = self.zero32.val();
        self.hw.next.path_sent = self.zero32.val();
        self.hw.next.path_retransmitted = self.zero32.val();
        self.hw.next.path_ecn_echoes = self.zero32.val();
        self.hw.next.path_srtt_ns = self.zero32.val();
        if self.pt_in_range.val() {
            self.hw.next.path_sport = self.sport_word.val().into();
            self.hw.next.path_cwnd = self.cwnd_word.val().into();
            if self.txp.pt_retired.val() {
                self.hw.next.path_state = self.one32.val();
            }
            self.hw.next.path_sent = self.txp.pt_sent.val();
            self.hw.next.path_retransmitted = self.txp.pt_retx.val();
            self.hw.next.path_ecn_echoes = self.txp.pt_ecn.val();
            self.hw.next.path_srtt_ns = self.txp.pt_srtt.val();
        }
        self.hw.next.tx_data = self.txp.cnt_tx_data.val();
        self.hw.next.tx_retx = self.txp.cnt_tx_retx.val();
        self.hw.next.tx_acks = self.txp.cnt_tx_acks.val();
        self.hw.next.tx_naks = self.txp.cnt_tx_naks.val();
        self.hw.next.rx_data = self.rxp.cnt_data.val();
        self.hw.next.rx_dup = self.rxp.cnt_dup.val();
        self.hw.next.rx_out_of_window = self.rxp.cnt_oow.val();
        self.hw.next.rx_malformed = self.rxp.cnt_malformed.val();
        self.hw.next.rx_bad_conn = self.rxp.cnt_bad_conn.val();
        self.hw.next.rx_access_violation = self.rxp.cnt_access.val();
        self.hw.next.rx_no_recv = self.rxp.cnt_no_recv.val();
        self.hw.next.rx_ecn_ce = self.rxp.cnt_ce.val();
        self.hw.next.rtos = self.txp.cnt_rtos.val();
        self.hw.next.repaths = self.txp.cnt_repaths.val();
        self.hw.next.tail_probes = self.txp.cnt_tail_probes.val();
        self.hw.next.bytes_placed_lo = self.rxp.cnt_bytes.val().get_bits::<32>(0);
        self.hw.next.bytes_placed_hi = self.rxp.cnt_bytes.val().get_bits::<32>(32);
        self.csr.hw.next = self.hw.val().into();

        // ---- connection set-up: rx tables, tx connection, path PSNs, streams ----
        match self.cst.q.val().index() {
            C_IDLE => {
                // Commands wait for the clearing sweeps after reset (the
                // paths' and the timers'), which take 2^(path key bits) cycles.
                if self.conn_pend.q.val() & self.eng_ready.val() {
                    self.conn_pend.d.next = false;
                    if !self.c_ok.val()
                        | ((self.c_cmd.val() != self.cmd_set.val()) & (self.c_cmd.val() != self.cmd_clear.val()))
                    {
                        self.conn_status.d.next = self.status_bad.val();
                    } else {
                        self.conn_status.d.next = self.status_busy.val();
                        self.cst.d.next = self.C_RX.val();
                    }
                } else if self.seed_pending.q.val() & self.eng_ready.val() {
                    self.seed_pending.d.next = false;
                    self.cst.d.next = self.C_SEED.val();
                }
            }
            C_RX => {
                self.c_i.d.next = self.zero4.val();
                if self.c_cmd.val() == self.cmd_clear.val() {
                    self.conn_status.d.next = self.status_done.val();
                    self.cst.d.next = self.C_IDLE.val();
                } else {
                    self.cst.d.next = self.C_TX.val();
                }
            }
            C_TX => {
                if self.txp.ctl_ready.val() {
                    self.cst.d.next = self.C_LOAD.val();
                }
            }
            C_LOAD => {
                if self.rxp.ctl_ready.val() {
                    if self.c_i.q.val() >= self.paths_m1.val().get_bits::<4>(0) {
                        self.c_i.d.next = self.zero4.val();
                        self.cst.d.next = self.C_CLEAR.val();
                    } else {
                        self.c_i.d.next = self.c_i.q.val() + self.one4.val();
                    }
                }
            }
            C_CLEAR => {
                if self.rxp.ctl_ready.val() {
                    if self.c_i.q.val() >= self.streams_m1.val().get_bits::<4>(0) {
                        self.cst.d.next = self.C_PACE.val();
                    } else {
                        self.c_i.d.next = self.c_i.q.val() + self.one4.val();
                    }
                }
            }
            // The connection's pacer starts at its initial rate before the
            // command completes.
            C_PACE => {
                if self.pace_idle.val() {
                    self.conn_status.d.next = self.status_done.val();
                    self.cst.d.next = self.C_IDLE.val();
                }
            }
            C_SEED => {
                if self.txp.ctl_ready.val() {
                    self.cst.d.next = self.C_IDLE.val();
                }
            }
            _ => {
                self.cst.d.next = self.C_IDLE.val();
            }
        }
        for i in 0..CONNS {
            if (self.cst.q.val() == self.C_RX.val()) & (self.c_index.val() == self.conn_no[i].val()) {
                if self.c_cmd.val() == self.cmd_set.val() {
                    self.e_streams[i].d.next = self.w_conn_streams.val().get_bits::<4>(0);
                } else {
                    self.e_streams[i].d.next = self.zero4.val();
                }
            }
        }
        if self.csr.strobe.val().get_bit(self.strobe_seed.val().index()) {
            self.seed_pending.d.next = true;
        }
        if self.csr.strobe.val().get_bit(self.strobe_conn.val().index()) {
            self.conn_pend.d.next = true;
            self.conn_status.d.next = self.status_busy.val();
        }

        // ---- memory regions ----
        self.mr_w.d.next = false;
        if self.csr.strobe.val().get_bit(self.strobe_mr.val().index()) {
            if (self.cfg.val().mr_index >= self.n_regions.val())
                | ((self.m_cmd.val() != self.cmd_set.val()) & (self.m_cmd.val() != self.cmd_clear.val()))
            {
                self.mr_status.d.next = self.status_bad.val();
            } else {
                self.mr_w.d.next = true;
                self.mr_valid_bit.d.next = self.m_cmd.val() == self.cmd_set.val();
                self.mr_status.d.next = self.status_done.val();
            }
        }

        // ---- send queue fetch ----
        match self.sqf.q.val().index() {
            F_IDLE => {
                if self.enable.val()
                    & (self.cfg.val().sq_prod != self.sq_cons.q.val())
                    & (self.w_sq_log.val().get_bits::<5>(0) != self.zero5.val())
                {
                    self.sqf.d.next = self.F_CMD.val();
                }
            }
            F_CMD => {
                if self.grant_sq.val() & self.m_dma_rd_cmd_ready.val() {
                    self.wqe_beat.d.next = self.zero3.val();
                    self.sqf.d.next = self.F_DATA.val();
                }
            }
            F_DATA => {
                if self.s_dma_rd_tvalid.val() & self.rd_any.val() & (self.rd_head.val() == self.rd_sq.val()) {
                    self.wqe_beat.d.next = self.wqe_beat.q.val() + self.one3.val();
                    if self.s_dma_rd_tlast.val() {
                        self.sqf.d.next = self.F_OFFER.val();
                    }
                }
            }
            F_OFFER => {
                if (self.w_ok.val() & self.txp.wr_ready.val()) | (!self.w_ok.val() & self.take_bad_wr.val()) {
                    self.sq_cons.d.next = self.sq_cons.q.val() + self.one32.val();
                    self.sqf.d.next = self.F_IDLE.val();
                }
            }
            _ => {
                self.sqf.d.next = self.F_IDLE.val();
            }
        }
        for i in 0..WQE_WORDS {
            if (self.sqf.q.val() == self.F_DATA.val())
                & self.s_dma_rd_tvalid.val()
                & self.rd_any.val()
                & (self.rd_head.val() == self.rd_sq.val())
                & (self.wqe_beat.q.val() == self.beat_no[i].val())
            {
                self.wqe[i].d.next = self.s_dma_rd_tdata.val();
            }
        }

        // ---- receive queue fetch ----
        match self.rqf.q.val().index() {
            F_IDLE => {
                if self.enable.val()
                    & (self.cfg.val().rq_prod != self.rq_cons.q.val())
                    & (self.w_rq_log.val().get_bits::<5>(0) != self.zero5.val())
                {
                    self.rqf.d.next = self.F_CMD.val();
                }
            }
            F_CMD => {
                if self.grant_rq.val() & self.m_dma_rd_cmd_ready.val() {
                    self.rqe_beat.d.next = self.zero2.val();
                    self.rqf.d.next = self.F_DATA.val();
                }
            }
            F_DATA => {
                if self.s_dma_rd_tvalid.val() & self.rd_any.val() & (self.rd_head.val() == self.rd_rq.val()) {
                    self.rqe_beat.d.next = self.rqe_beat.q.val() + self.one2.val();
                    if self.s_dma_rd_tlast.val() {
                        self.rqf.d.next = self.F_OFFER.val();
                    }
                }
            }
            F_OFFER => {
                if !self.r_ok.val() | self.rxp.post_ready.val() {
                    self.rq_cons.d.next = self.rq_cons.q.val() + self.one32.val();
                    self.rqf.d.next = self.F_IDLE.val();
                }
            }
            _ => {
                self.rqf.d.next = self.F_IDLE.val();
            }
        }
        for i in 0..RQE_WORDS {
            if (self.rqf.q.val() == self.F_DATA.val())
                & self.s_dma_rd_tvalid.val()
                & self.rd_any.val()
                & (self.rd_head.val() == self.rd_rq.val())
                & (self.rqe_beat.q.val() == self.beat_no2[i].val())
            {
                self.rqe[i].d.next = self.s_dma_rd_tdata.val();
            }
        }

        // ---- completion writer ----
        // bytes: kind @0 (1 send done, 2 receive, 3 WRITE with immediate),
        // status @1, stream @2, flags @3 (bit0: imm valid), conn[15:0] @4,
        // msg_seq @8, len @12, imm @16, id @20.
        self.head.next.stream_high = self.zero_stream_high.val();
        self.head.next.conn_high = self.zero_conn_high.val();
        if self.take_rx_cpl.val() {
            if self.rxp.m_cpl_kind.val() == self.rx_kind_recv.val() {
                self.head.next.kind = self.cpl_recv.val();
            } else {
                self.head.next.kind = self.cpl_write_imm.val();
            }
            self.head.next.status = self.rxp.m_cpl_status.val();
            self.head.next.stream = self.rxp.m_cpl_key.val().get_bits::<STREAM_BITS>(0);
            self.head.next.flags = self.zero8.val();
            if self.rxp.m_cpl_kind.val() == self.rx_kind_imm.val() {
                self.head.next.flags = self.flag_imm.val();
            }
            self.head.next.conn = self.rxp.m_cpl_key.val().get_bits::<CONN_KEY_BITS>(self.stream_in_key.val().index());
            self.cpl_seq_len.next.lo = self.rxp.m_cpl_seq.val();
            self.cpl_seq_len.next.hi = self.rxp.m_cpl_len.val();
            self.cpl_imm_id.next.lo = self.rxp.m_cpl_imm.val();
            self.cpl_imm_id.next.hi = self.rxp.m_cpl_id.val();
        } else if self.take_tx_cpl.val() {
            self.head.next.kind = self.cpl_send.val();
            self.head.next.status = self.txp.m_cpl_status.val();
            self.head.next.stream = self.txp.m_cpl_key.val().get_bits::<STREAM_BITS>(0);
            self.head.next.flags = self.zero8.val();
            if self.txp.m_cpl_has_imm.val() {
                self.head.next.flags = self.flag_imm.val();
            }
            self.head.next.conn = self.txp.m_cpl_key.val().get_bits::<CONN_KEY_BITS>(self.stream_in_key.val().index());
            self.cpl_seq_len.next.lo = self.txp.m_cpl_seq.val();
            self.cpl_seq_len.next.hi = self.txp.m_cpl_len.val();
            self.cpl_imm_id.next.lo = self.txp.m_cpl_imm.val();
            self.cpl_imm_id.next.hi = self.txp.m_cpl_id.val();
        } else {
            self.head.next.kind = self.cpl_send.val();
            self.head.next.status = self.cpl_bad_wr.val();
            self.head.next.stream = self.w_stream.val().get_bits::<STREAM_BITS>(0);
            self.head.next.stream_high = self.w_stream.val().get_bits::<STREAM_HIGH_BITS>(self.stream_at.val().index());
            self.head.next.flags = self.zero8.val();
            self.head.next.conn = self.w_conn.val().get_bits::<CONN_KEY_BITS>(0);
            self.head.next.conn_high = self.w_conn.val().get_bits::<CONN_HIGH_BITS>(self.conn_at.val().index());
            self.cpl_seq_len.next.lo = self.zero32.val();
            self.cpl_seq_len.next.hi = self.w_len.val();
            self.cpl_imm_id.next.lo = self.zero32.val();
            self.cpl_imm_id.next.hi = self.wqe_all.val().get_bits::<WQE_ID_BITS>(self.wqe_id_at.val().index());
        }
        self.head.next.zero = self.zero16.val();
        self.head.next.status_high = self.zero6.val();
        self.head_word.next = self.head.val().into();
        match self.cqs.q.val().index() {
            Q_IDLE => {
                if self.take_rx_cpl.val() | self.take_tx_cpl.val() | self.take_bad_wr.val() {
                    self.cqe[0].d.next = self.head_word.val();
                    self.cqe[1].d.next = self.cpl_seq_len.val().into();
                    self.cqe[2].d.next = self.cpl_imm_id.val().into();
                    self.cqs.d.next = self.Q_CMD.val();
                }
            }
            Q_CMD => {
                if self.wr_pick_cq.val() & self.m_dma_wr_cmd_ready.val() {
                    self.cqe_beat.d.next = self.zero2.val();
                    self.cqs.d.next = self.Q_DATA.val();
                }
            }
            Q_DATA => {
                if self.m_dma_wr_tready.val() {
                    self.cqe_beat.d.next = self.cqe_beat.q.val() + self.one2.val();
                    if self.cqe_beat.q.val() == self.last_beat.val() {
                        self.cq_prod.d.next = self.cq_prod.q.val() + self.one32.val();
                        self.cqs.d.next = self.Q_IDLE.val();
                    }
                }
            }
            _ => {
                self.cqs.d.next = self.Q_IDLE.val();
            }
        }

        // ---- DMA write arbitration: a write keeps the port until its last beat ----
        if self.wr_pick_rx.val() & self.m_dma_wr_cmd_ready.val() {
            self.wr_busy.d.next = true;
            self.wr_cq.d.next = false;
        } else if self.wr_pick_cq.val() & self.m_dma_wr_cmd_ready.val() {
            self.wr_busy.d.next = true;
            self.wr_cq.d.next = true;
        }
        if self.wr_tvalid.val() & self.m_dma_wr_tready.val() & self.wr_tlast.val() {
            self.wr_busy.d.next = false;
        }

        // Outputs of the blocks this level does not use (registers read
        // through other names, counters not in the map, readiness the paths
        // already account for), and the ring entries' bytes no field covers.
        self.unused_ok.next = false
            & (self.rto_ns36.val().get_bits::<4>(32).any()
                | self.txp.m_rto_base.val().ps.any()
                | self.cfg_rec.val().get_bits::<23>(9).any()
                | self.txp.m_probe_base.val().ps.any()
                | self.pr_ns36.val().get_bits::<4>(32).any()
                | self.prt_wb.val().any()
                | self.w_window_cap.val().get_bits::<23>(9).any()
                | self.w_window_scale.val().get_bits::<8>(24).any()
                | self.wqe_all.val().any()
                | self.rqe_all.val().any()
                | self.arm_wb.val().any()
                | self.rto_wb.val().any()
                | self.paths_m1.val().any()
                | self.streams_m1.val().any()
                | self.fbq.count.val().any()
                | self.ackq.count.val().any()
                | self.rnrq.full.val()
                | self.rnrq.count.val().any()
                | self.rd_who.full.val()
                | self.pace.out_may.val()
                | self.out_cost.val().any()
                | self.rxp.m_fb_ts.val().any()
                | self.rxp.m_fb_pkts.val().any()
                | self.rxp.cnt_frames.val().any()
                | self.csr.pulses.val().any()
                | self.rxp.cnt_dup_retx.val().any()
                | self.rxp.cnt_post_drop.val().any()
                | self.txp.tx_done.val()
                | self.txp.cnt_naks_received.val().any()
                | self.rnr_left.val().any()
                | self.s_dma_rd_tkeep.val().any()
                | self.dirty_first.at.val().any()
                | self.ack_first.at.val().any()
                | self.rto_first.at.val().any()
                | self.w_mtu.val().any()
                | self.w_port.val().any()
                | self.w_ack_every.val().any()
                | self.w_conn_index.val().any()
                | self.w_conn_generation.val().any()
                | self.w_conn_rx_psn.val().any()
                | self.w_conn_tx_psn.val().any()
                | self.w_conn_remote.val().any()
                | self.w_conn_paths.val().any()
                | self.w_conn_streams.val().any()
                | self.w_mr_index.val().any()
                | self.w_mr_access.val().any()
                | self.w_mr_conn.val().any()
                | self.w_path_index.val().any()
                | self.w_sq_log.val().any()
                | self.w_rq_log.val().any()
                | self.w_cq_log.val().any()
                | self.w_mac_hi.val().any()
                | self.w_peer_mac_hi.val().any()
                | self.w_ctrl.val().any()
                | self.w_op.val().any()
                | self.r_stream.val().any()
                | self.w_stream.val().any()
                | self.r_conn.val().any()
                | self.w_conn.val().any()
                | self.hw.val().status.any());

        if self.reset.val() {
            self.now48.d.next = self.zero_time.val();
            self.time_ps.d.next = self.zero11.val();
            self.pc_wait.d.next = self.zero_conns.val();
            self.pc_dirty.d.next = self.zero_conns.val();
            self.pc_load.d.next = self.zero_conns.val();
            for i in 0..CONNS {
                self.pc_ready[i].d.next = self.zero_time.val();
                self.pc_rate[i].d.next = self.zero32.val();
                self.ra_part[i].d.next = self.zero8.val();
                self.ra_last[i].d.next = self.zero32.val();
                self.e_streams[i].d.next = self.zero4.val();
            }
            self.cv_busy.d.next = false;
            self.set_v.d.next = false;
            self.p1_v.d.next = false;
            self.p2_v.d.next = false;
            self.p1_send.d.next = false;
            self.p2_send.d.next = false;
            self.ra_heard.d.next = self.zero_conns.val();
            self.ra_i.d.next = self.zero_conn.val();
            self.ra_has.d.next = false;
            self.ra_warm.d.next = false;
            self.ra_since.d.next = self.zero32.val();
            self.ra_rec.d.next = self.zero_conns.val();
            self.ra_cnt.d.next = self.zero_conns.val();
            self.ra_div.d.next = self.one9.val();
            self.dv_step.d.next = self.zero6.val();
            self.hint_q.d.next = self.zero32.val();
            self.cst.d.next = self.C_IDLE.val();
            self.conn_status.d.next = self.status_done.val();
            self.mr_status.d.next = self.status_done.val();
            self.mr_w.d.next = false;
            self.seed_pending.d.next = false;
            self.conn_pend.d.next = false;
            self.sqf.d.next = self.F_IDLE.val();
            self.rqf.d.next = self.F_IDLE.val();
            self.sq_cons.d.next = self.zero32.val();
            self.rq_cons.d.next = self.zero32.val();
            self.cq_prod.d.next = self.zero32.val();
            self.cqs.d.next = self.Q_IDLE.val();
            self.wr_busy.d.next = false;
            self.wr_cq.d.next = false;
            self.ack_pend.d.next = self.zero_keys.val();
            self.rto_pend.d.next = self.zero_keys.val();
            self.pr_pend.d.next = self.zero_conns.val();
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn time_constants_agree_with_the_model() {
        let c = ferroce_proto::model::EndpointConfig::new([2, 0, 0, 0, 0, 1], [10, 0, 0, 1], 10_000, 1024);
        assert_eq!(super::ACTIVE_WINDOW_PS, c.active_window, "the receiver's activity window");
        let cfg = super::super::cfg::CONFIG;
        let bits = if cfg.crc_bytes == 4 { 32 } else { 64 };
        assert_eq!(super::MAC_MBPS, (bits * 1_000_000 / u64::from(cfg.clock_ps)) as u32, "{bits} bits per cycle");
        assert_eq!(u64::from(super::NS_PER_CYCLE * 1000 + super::PS_REMAINDER), u64::from(cfg.clock_ps));
        assert_eq!(
            (c.repath_after_rtos, c.retire_after_rtos),
            (super::REPATH_AFTER_RTOS, super::RETIRE_AFTER_RTOS),
            "the send path's settings are the model's defaults"
        );
        // The window cap is a register (control.window_cap), at reset the
        // build's window, which the model's default cap covers.
        let cap = cfg.reset(ferroce_proto::regs::control::WINDOW_CAP);
        assert_eq!(cap, cfg.in_flight_per_path as u32);
        assert!(cap <= c.max_cwnd);
        // (the engine is built on a thread with room for it)
        let settings = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(|| {
                let e = super::Engine::default();
                [e.repath_after.val().index(), e.retire_after.val().index()]
            })
            .expect("a thread")
            .join()
            .expect("the engine builds");
        let model = [c.repath_after_rtos, c.retire_after_rtos].map(|x| x as usize);
        assert_eq!(settings, model, "RTOs before a new port, RTOs before retirement");
    }

    /// The completion the engine writes, word by word (`CplHead`, then two
    /// `Wide64`), places each field where `proto::rings::cqe` says: (bit
    /// offset in the entry, bits), a field split in two parts counted whole.
    #[test]
    fn the_completion_words_follow_the_ring_table() {
        use ferroce_proto::rings::cqe;
        let h = super::CplHead::default();
        let w = super::Wide64::default();
        let field = |f: ferroce_proto::rings::RingField| (f.bit_at() as u32, f.bits());
        let head = [
            (cqe::KIND, (h.get_my_offset_kind(), h.get_my_width_kind())),
            (cqe::STATUS, (h.get_my_offset_status(), h.get_my_width_status() + h.get_my_width_status_high())),
            (cqe::STREAM, (h.get_my_offset_stream(), h.get_my_width_stream() + h.get_my_width_stream_high())),
            (cqe::FLAGS, (h.get_my_offset_flags(), h.get_my_width_flags())),
            (cqe::CONN, (h.get_my_offset_conn(), h.get_my_width_conn() + h.get_my_width_conn_high())),
        ];
        for (f, at) in head {
            assert_eq!(field(f), at, "completion field {}", f.name);
        }
        assert_eq!(h.get_my_offset_status_high(), h.get_my_offset_status() + h.get_my_width_status() as u32);
        assert_eq!(h.get_my_offset_stream_high(), h.get_my_offset_stream() + h.get_my_width_stream() as u32);
        assert_eq!(h.get_my_offset_conn_high(), h.get_my_offset_conn() + h.get_my_width_conn() as u32);
        // Word 1: (msg_seq, len); word 2: (imm, id).
        let words = [(cqe::MSG_SEQ, 64, true), (cqe::LEN, 64, false), (cqe::IMM, 128, true), (cqe::ID, 128, false)];
        for (f, base, lo) in words {
            let at = if lo {
                (base + w.get_my_offset_lo(), w.get_my_width_lo())
            } else {
                (base + w.get_my_offset_hi(), w.get_my_width_hi())
            };
            assert_eq!(field(f), at, "completion field {}", f.name);
        }
        assert_eq!(super::CQE_BEATS * 64, ferroce_proto::rings::CQE_BYTES * 8);
    }
}
