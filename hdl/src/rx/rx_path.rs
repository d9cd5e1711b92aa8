//! `rx_path`: the whole receive side, from the MAC to host memory.
//! Reference: `ferroce_proto::model::Endpoint::handle_frame` (with
//! `Delivery::place` and the per-path ACK coalescing) for one endpoint.
//!
//! ```text
//!  MAC ─┬─ rx_parse ── control ── rx_check, sack, rx_msgs, ack_gen, receive rings
//!       │                 │ verdict       │ descriptor
//!       └─ frame_fifo ────┴──────── rx_place ── DMA write (command + data)
//! ```
//!
//! Every frame goes to `rx_parse` (checks, headers) and, at the same time,
//! into `frame_fifo`, which holds it until the control logic has decided:
//! bad frames (parse errors, or not addressed to `cfg_mac`/`cfg_ip`) are
//! dropped there and never reach the DMA path; good ones go on to
//! `rx_place` with a descriptor saying whether and where their payload
//! goes. The control logic takes one frame's headers at a time:
//!
//! 1. connection check (`rx_check`: known connection, from its peer, path
//!    within its paths; this build also needs path < 8 and stream < 8, the
//!    key widths) and, for WRITEs, the region check and target address;
//! 2. ACK and NAK frames go out on `m_fb_*` to the send side;
//! 3. data: the path's SACK state classifies the PSN (`sack`, not yet
//!    committed). A new packet is checked against its stream's message
//!    window and recorded (`rx_msgs`), with the failure the region check or
//!    the receive buffer gives; a SEND whose receive buffer is not posted
//!    yet is answered with a NAK (NO_RECV) and not counted as received;
//! 4. the descriptor goes to `rx_place` (the payload is written only if
//!    everything passed);
//! 5. messages completed in order are popped: receive completions for
//!    SENDs (consuming their buffer) and WRITEs with immediate;
//! 6. a NAK for a refused packet, the PSN committed to the SACK state, and
//!    ACK coalescing (`ack_gen`): an ACK now, arm the path's ACK timer
//!    (`m_arm_*`), or wait.
//!
//! Receive buffers are posted per stream (`post_*`, at most 16 waiting per
//! stream, more are dropped and counted) and matched by receive sequence
//! number: the n-th SEND of a stream carries n in its rkey field.
//!
//! Ports (`clock`; `reset` synchronous, active high; `ready` low during the
//! clearing sweep after reset, nothing is taken then):
//! * `cfg_*`: UDP port, local MAC and IPv4 address, ACK every N packets.
//! * `conn_wr_*`, `mr_wr_*`: the connection and region tables (`rx_check`).
//! * `ctl_*`: op 0 starts path key `ctl_key` at PSN `ctl_psn` (connection
//!   setup); op 1 clears stream key `ctl_key` (message window and rings).
//! * `post_*`: a receive buffer (`addr`, `len`, `id`) for stream `post_key`.
//! * `timer_*`: path key `timer_key`'s ACK timer fired.
//! * `s_axis_*`: frames from the MAC (64-bit AXI-Stream).
//! * `m_dma_cmd_*`, `m_dma_data_*`: DMA writes (address and length, then
//!   exactly the payload bytes realigned to lane 0).
//! * `m_ack_*`: an ACK to send on path key `m_ack_key` (cumulative PSN,
//!   bitmap, echoed timestamp, the source port to answer on, packets and CE
//!   marks since the last ACK). The bitmap is by slot (PSN mod W, the bits
//!   at and above W zero): the send side puts it in wire order with the
//!   cumulative PSN (`sack::SackWire`). The rate hint is the sender side's.
//! * `m_nak_*`: a NAK for a refused data packet.
//! * `m_arm_valid`/`m_arm_key`: one-cycle request to arm an ACK timer.
//! * `m_fb_*`: a received ACK (`m_fb_nak` low) or NAK for the send side
//!   (`m_fb_sack` folded onto the W slots, like `m_ack_sack`: bits naming
//!   the same PSN mod W ORed, the bits at and above W zero).
//! * `m_data_valid`/`m_data_conn`: one-cycle pulse for each data packet of
//!   a set-up connection (the receiver's activity, for its rate hint).
//! * `m_msg_*`: each result of the message tracker on connection
//!   `m_msg_conn`: `m_msg_began` a message's first packet recorded,
//!   `m_msg_popped` a message delivered (messages begun and not delivered
//!   keep a slow sender counted as active).
//! * `m_cpl_*`: receive completions in order per stream (`kind` 1 receive,
//!   2 WRITE with immediate; `status` 0 success, 2 receive buffer too small).
//! * `cnt_*`: the receive counters of `ferroce_proto::Stats`, and dropped
//!   posts.
//!
//! Keys: path key = {connection, path[3:0]}, stream key = {connection,
//! stream[2:0]} (`CONN_KEY_BITS` of connection: 64 connections, 16 paths and
//! 8 streams in the default build). `ctl_key` is a path key; the stream
//! clear (`ctl_op` 1) takes the stream from its low 3 bits.
//!
//! Throughput: the MAC side runs at one beat per cycle while the control
//! logic keeps up; it spends 12-20 cycles on a data frame (more with
//! completions), so frames of 160 bytes and more arrive at line rate.
//! Frames wait in `frame_fifo` (the build's `rx_fifo_bytes`: 16 KiB, 4 KiB in
//! `ecp5-25`) while their headers are processed; a frame longer than it
//! is a length error to the parser (`EngineConfig::max_frame_len`);
//! `s_axis_tready` drops when it or the parser's result slot is full.
//!
//! State: the parse results wait in a queue of the build's
//! `rx_header_queue` (four in `corundum` and `ecp5-85`: `hq`, a RAM of
//! twice as many slots with a registered read, so the headers of the frame
//! being processed stay in the slot behind the queue until the next frame
//! is taken; the RAM's output register holds them). With no queue
//! (`ecp5-25`) a parsed header waits in the parser, whose result is taken,
//! and its verdict given to the frame FIFO, when the control logic takes
//! the frame: the header is loaded into one register (`hq_hdr`) then, and
//! the parser takes the next frame. The rings' bases and
//! counts per stream key (`meta`), the ring entries (`ring`, 16 per stream
//! key) and each path key's last timestamp and source port (`tsp`) are
//! block RAMs read through their registered port. Header fields come from
//! `rx_fields` (positions from `ferroce_proto::wire`'s tables).

use rust_hdl::prelude::*;

use ferroce_proto::params::{RECV_RING, RECV_RING_BITS, RX_CPL_RECV, RX_CPL_WRITE_IMM};
use ferroce_proto::wire::{flags, Ecn, NakCode, Opcode};
use ferroce_proto::CompletionStatus;

use crate::blocks::{HdlDefault, HdlStruct};
use super::cfg::{
    CONN_KEY_BITS, HALF_RATE_CRC, MAX_FRAME_LEN, MR_BITS, PATH_BITS, PATH_KEY_BITS, RX_FIFO_BITS, RX_FIFO_PTR_BITS, RX_HEADER_QUEUE, RX_HEADER_SLOT_BITS, STREAM_BITS, STREAM_KEY_BITS, WINDOW,
};
use crate::rx::ack_gen::{action, AckGen};
use crate::rx::frame_fifo::FrameFifoOf;
use super::rx_check::RxCheck;
use crate::rx::rx_fields::{DstFields, RxFields, HB};
use super::rx_msgs::RxMsgs;
use crate::rx::rx_parse::RxParseOf;
use crate::rx::rx_place::RxPlace;
use crate::rx::sack::{Sack, VERDICT_DUP, VERDICT_NEW};
use crate::tx::retx::FoldSack;

/// Receive buffers waiting per stream.
pub const RING: usize = RECV_RING;

/// Counter ports, in the order of `ferroce_proto::Stats` where they exist.
pub const COUNTERS: &[&str] = &[
    "cnt_frames",
    "cnt_data",
    "cnt_dup",
    "cnt_dup_retx",
    "cnt_oow",
    "cnt_malformed",
    "cnt_bad_conn",
    "cnt_access",
    "cnt_no_recv",
    "cnt_ce",
    "cnt_bytes",
    "cnt_post_drop",
];

/// Parse results waiting for the control logic (the build's
/// `rx_header_queue`).
const HQ_DEPTH: u64 = RX_HEADER_QUEUE as u64;
/// Slot-index bits of the parse-result RAM: twice the queue, so that the
/// slot of the frame being processed is never the one written.
const HQ_BITS: usize = RX_HEADER_SLOT_BITS;

/// Bits of a ring's count (0 to `RECV_RING` buffers).
const CNT_BITS: usize = RECV_RING_BITS + 1;
/// Address bits of the ring entries: {stream key, slot}.
const RING_ADDR_BITS: usize = STREAM_KEY_BITS + RECV_RING_BITS;

// `rx_msgs`'s `in_op` codes.
const MSGS_PACKET: u64 = 0;
const MSGS_POP: u64 = 1;
const MSGS_CLEAR: u64 = 2;

// Control states: a Rust const for `match` and a same-named `Constant`.
const S_IDLE: usize = 0;
const S_CHK: usize = 1;
const S_CHK2: usize = 2;
const S_SACK1: usize = 3;
const S_SACK2: usize = 4;
const S_MSG1: usize = 5;
const S_MSG2: usize = 6;
const S_DESC: usize = 7;
const S_POP: usize = 8;
const S_POP1: usize = 9;
const S_POP2: usize = 10;
const S_CPL: usize = 11;
const S_NAK: usize = 12;
const S_COMMIT: usize = 13;
const S_COMMIT1: usize = 14;
const S_COMMIT2: usize = 15;
const S_ACKG: usize = 16;
const S_ACKG1: usize = 17;
const S_ACKG2: usize = 18;
const S_ACK: usize = 19;
const S_FB: usize = 20;
const S_POST: usize = 21;
const S_POST1: usize = 22;
const S_T0: usize = 23;
const S_T1: usize = 24;
const S_T2: usize = 25;
const S_CTL: usize = 26;

/// Path key: {connection, path}.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct PathKey {
    pub path: Bits<PATH_BITS>,
    pub conn: Bits<CONN_KEY_BITS>,
}

/// Stream key: {connection, stream}.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct StreamKey {
    pub stream: Bits<STREAM_BITS>,
    pub conn: Bits<CONN_KEY_BITS>,
}

/// Address of a ring entry: {stream key, slot}.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct RingAddr {
    pub slot: Bits<RECV_RING_BITS>,
    pub key: Bits<STREAM_KEY_BITS>,
}

/// A stream's ring: receive sequence number of the oldest waiting buffer
/// (its slot is the low bits) and the number waiting.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct RingMeta {
    pub base: Bits<32>,
    pub count: Bits<CNT_BITS>,
}

/// A posted receive buffer.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct RingEntry {
    pub addr: Bits<64>,
    pub len: Bits<32>,
    pub id: Bits<32>,
}

/// A path key's last data packet: its timestamp and source port, for ACKs
/// sent by the timer.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct PathLast {
    pub ts: Bits<32>,
    pub sport: Bits<16>,
}

/// Zero extension of a ring count to 32 bits.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ZextCount {
    pub lo: Bits<CNT_BITS>,
    pub hi: Bits<{ 32 - CNT_BITS }>,
}

/// Zero extension of 16 bits to 64.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Zext16to64 {
    pub lo: Bits<16>,
    pub hi: Bits<48>,
}

/// Zero extension of 32 bits to 64.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Zext32to64 {
    pub lo: Bits<32>,
    pub hi: Bits<32>,
}

/// The receive path.
#[allow(non_snake_case)]
#[derive(LogicBlock, HdlDefault)]
pub struct RxPath {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub cfg_port: Signal<In, Bits<16>>,
    pub cfg_mac: Signal<In, Bits<48>>,
    pub cfg_ip: Signal<In, Bits<32>>,
    pub cfg_ack_every: Signal<In, Bits<16>>,
    pub conn_wr: Signal<In, bool>,
    pub conn_wr_index: Signal<In, Bits<CONN_KEY_BITS>>,
    pub conn_wr_valid_bit: Signal<In, bool>,
    pub conn_wr_peer_ip: Signal<In, Bits<32>>,
    pub conn_wr_paths: Signal<In, Bits<5>>,
    pub conn_wr_generation: Signal<In, Bits<8>>,
    pub mr_wr: Signal<In, bool>,
    pub mr_wr_index: Signal<In, Bits<MR_BITS>>,
    pub mr_wr_valid_bit: Signal<In, bool>,
    pub mr_wr_rkey: Signal<In, Bits<32>>,
    pub mr_wr_base: Signal<In, Bits<64>>,
    pub mr_wr_len: Signal<In, Bits<64>>,
    pub mr_wr_remote_write: Signal<In, bool>,
    pub mr_wr_conn: Signal<In, Bits<16>>,
    pub ctl_valid: Signal<In, bool>,
    pub ctl_ready: Signal<Out, bool>,
    pub ctl_op: Signal<In, bool>,
    pub ctl_key: Signal<In, Bits<PATH_KEY_BITS>>,
    pub ctl_psn: Signal<In, Bits<24>>,
    pub post_valid: Signal<In, bool>,
    pub post_ready: Signal<Out, bool>,
    pub post_key: Signal<In, Bits<STREAM_KEY_BITS>>,
    pub post_addr: Signal<In, Bits<64>>,
    pub post_len: Signal<In, Bits<32>>,
    pub post_id: Signal<In, Bits<32>>,
    pub timer_valid: Signal<In, bool>,
    pub timer_ready: Signal<Out, bool>,
    pub timer_key: Signal<In, Bits<PATH_KEY_BITS>>,
    pub s_axis_tdata: Signal<In, Bits<64>>,
    pub s_axis_tkeep: Signal<In, Bits<8>>,
    pub s_axis_tvalid: Signal<In, bool>,
    pub s_axis_tready: Signal<Out, bool>,
    pub s_axis_tlast: Signal<In, bool>,
    pub s_axis_tuser: Signal<In, bool>,
    pub m_dma_cmd_valid: Signal<Out, bool>,
    pub m_dma_cmd_ready: Signal<In, bool>,
    pub m_dma_cmd_addr: Signal<Out, Bits<64>>,
    pub m_dma_cmd_len: Signal<Out, Bits<16>>,
    pub m_dma_data_tdata: Signal<Out, Bits<64>>,
    pub m_dma_data_tkeep: Signal<Out, Bits<8>>,
    pub m_dma_data_tvalid: Signal<Out, bool>,
    pub m_dma_data_tready: Signal<In, bool>,
    pub m_dma_data_tlast: Signal<Out, bool>,
    pub m_ack_valid: Signal<Out, bool>,
    pub m_ack_ready: Signal<In, bool>,
    pub m_ack_key: Signal<Out, Bits<PATH_KEY_BITS>>,
    pub m_ack_cum: Signal<Out, Bits<24>>,
    pub m_ack_sack: Signal<Out, Bits<256>>,
    pub m_ack_ts: Signal<Out, Bits<32>>,
    pub m_ack_sport: Signal<Out, Bits<16>>,
    pub m_ack_pending: Signal<Out, Bits<16>>,
    pub m_ack_ce: Signal<Out, Bits<16>>,
    pub m_nak_valid: Signal<Out, bool>,
    pub m_nak_ready: Signal<In, bool>,
    pub m_nak_key: Signal<Out, Bits<PATH_KEY_BITS>>,
    pub m_nak_psn: Signal<Out, Bits<24>>,
    pub m_nak_stream: Signal<Out, Bits<16>>,
    pub m_nak_msg_seq: Signal<Out, Bits<32>>,
    pub m_nak_code: Signal<Out, Bits<8>>,
    pub m_nak_sport: Signal<Out, Bits<16>>,
    pub m_arm_valid: Signal<Out, bool>,
    pub m_arm_key: Signal<Out, Bits<PATH_KEY_BITS>>,
    pub m_fb_valid: Signal<Out, bool>,
    pub m_fb_ready: Signal<In, bool>,
    pub m_fb_nak: Signal<Out, bool>,
    pub m_fb_key: Signal<Out, Bits<PATH_KEY_BITS>>,
    pub m_fb_psn: Signal<Out, Bits<24>>,
    pub m_fb_ts: Signal<Out, Bits<32>>,
    pub m_fb_sack: Signal<Out, Bits<256>>,
    pub m_fb_ts_echo: Signal<Out, Bits<32>>,
    pub m_fb_hint: Signal<Out, Bits<32>>,
    pub m_fb_ce: Signal<Out, Bits<16>>,
    pub m_fb_pkts: Signal<Out, Bits<16>>,
    pub m_fb_code: Signal<Out, Bits<8>>,
    pub m_fb_stream: Signal<Out, Bits<16>>,
    pub m_fb_msg_seq: Signal<Out, Bits<32>>,
    pub m_data_valid: Signal<Out, bool>,
    pub m_data_conn: Signal<Out, Bits<CONN_KEY_BITS>>,
    pub m_msg_valid: Signal<Out, bool>,
    pub m_msg_conn: Signal<Out, Bits<CONN_KEY_BITS>>,
    pub m_msg_began: Signal<Out, bool>,
    pub m_msg_popped: Signal<Out, bool>,
    pub m_cpl_valid: Signal<Out, bool>,
    pub m_cpl_ready: Signal<In, bool>,
    pub m_cpl_key: Signal<Out, Bits<STREAM_KEY_BITS>>,
    pub m_cpl_kind: Signal<Out, Bits<2>>,
    pub m_cpl_status: Signal<Out, Bits<2>>,
    pub m_cpl_seq: Signal<Out, Bits<32>>,
    pub m_cpl_len: Signal<Out, Bits<32>>,
    pub m_cpl_imm: Signal<Out, Bits<32>>,
    pub m_cpl_id: Signal<Out, Bits<32>>,
    pub cnt_frames: Signal<Out, Bits<32>>,
    pub cnt_data: Signal<Out, Bits<32>>,
    pub cnt_dup: Signal<Out, Bits<32>>,
    pub cnt_dup_retx: Signal<Out, Bits<32>>,
    pub cnt_oow: Signal<Out, Bits<32>>,
    pub cnt_malformed: Signal<Out, Bits<32>>,
    pub cnt_bad_conn: Signal<Out, Bits<32>>,
    pub cnt_access: Signal<Out, Bits<32>>,
    pub cnt_no_recv: Signal<Out, Bits<32>>,
    pub cnt_ce: Signal<Out, Bits<32>>,
    pub cnt_bytes: Signal<Out, Bits<64>>,
    pub cnt_post_drop: Signal<Out, Bits<32>>,
    /// Zero the counters (`control.ctrl` bit 1).
    pub clear_stats: Signal<In, bool>,
    parse: RxParseOf<HALF_RATE_CRC, MAX_FRAME_LEN>,
    fifo: FrameFifoOf<RX_FIFO_BITS, RX_FIFO_PTR_BITS>,
    check: RxCheck,
    sack: Sack<PATH_KEY_BITS, WINDOW>,
    msgs: RxMsgs,
    place: RxPlace,
    ackg: AckGen<PATH_KEY_BITS>,
    fields: RxFields,
    dst: DstFields,
    // ---- parse results: {good} in `hq_good`, headers in `hq` ----
    hq: RAM<Bits<HB>, HQ_BITS>,
    fb_fold: FoldSack<WINDOW>,
    hq_good: DFF<Bits<{ 1 << HQ_BITS }>>,
    hq_wr: DFF<Bits<HQ_BITS>>,
    hq_rd: DFF<Bits<HQ_BITS>>,
    hq_cur: DFF<Bits<HQ_BITS>>,
    /// Without a queue (`rx_header_queue` 0): the header of the frame being
    /// processed, loaded as the control logic takes it from the parser.
    hq_hdr: DFF<Bits<HB>>,
    // ---- receive rings ----
    meta: RAM<RingMeta, STREAM_KEY_BITS>,
    ring: RAM<RingEntry, RING_ADDR_BITS>,
    ring_ra_q: DFF<Bits<RING_ADDR_BITS>>,
    cur_base: DFF<Bits<32>>,
    cur_count: DFF<Bits<CNT_BITS>>,
    pk: DFF<Bits<STREAM_KEY_BITS>>,
    pa: DFF<Bits<64>>,
    pl: DFF<Bits<32>>,
    pi: DFF<Bits<32>>,
    // ---- per path key: the last data packet's timestamp and source port ----
    tsp: RAM<PathLast, PATH_KEY_BITS>,
    t_key: DFF<Bits<PATH_KEY_BITS>>,
    // ---- control ----
    st: DFF<Bits<5>>,
    init_busy: DFF<bool>,
    init_addr: DFF<Bits<STREAM_KEY_BITS>>,
    acc_ok: DFF<bool>,
    w_addr: DFF<Bits<64>>,
    probe: DFF<bool>,
    fail: DFF<Bits<2>>,
    urgent: DFF<bool>,
    d_place: DFF<bool>,
    d_addr: DFF<Bits<64>>,
    f_pop: DFF<bool>,
    f_nak: DFF<bool>,
    f_commit: DFF<bool>,
    f_ackg: DFF<bool>,
    nak_code: DFF<Bits<8>>,
    ctl_op_q: DFF<bool>,
    ctl_key_q: DFF<Bits<PATH_KEY_BITS>>,
    ctl_psn_q: DFF<Bits<24>>,
    // ---- outputs held in registers ----
    a_cum: DFF<Bits<24>>,
    a_map: DFF<Bits<256>>,
    a_pending: DFF<Bits<16>>,
    a_ce: DFF<Bits<16>>,
    a_ts: DFF<Bits<32>>,
    a_sport: DFF<Bits<16>>,
    a_key: DFF<Bits<PATH_KEY_BITS>>,
    arm_v: DFF<bool>,
    arm_k: DFF<Bits<PATH_KEY_BITS>>,
    data_v: DFF<bool>,
    data_c: DFF<Bits<CONN_KEY_BITS>>,
    c_kind: DFF<Bits<2>>,
    c_status: DFF<Bits<2>>,
    c_seq: DFF<Bits<32>>,
    c_len: DFF<Bits<32>>,
    c_imm: DFF<Bits<32>>,
    c_id: DFF<Bits<32>>,
    n_frames: DFF<Bits<32>>,
    n_data: DFF<Bits<32>>,
    n_dup: DFF<Bits<32>>,
    n_dup_retx: DFF<Bits<32>>,
    n_oow: DFF<Bits<32>>,
    n_malformed: DFF<Bits<32>>,
    n_bad_conn: DFF<Bits<32>>,
    n_access: DFF<Bits<32>>,
    n_no_recv: DFF<Bits<32>>,
    n_ce: DFF<Bits<32>>,
    n_post_drop: DFF<Bits<32>>,
    n_bytes: DFF<Bits<64>>,
    // ---- decoded frame ----
    is_write: Signal<Local, bool>,
    is_send: Signal<Local, bool>,
    is_data: Signal<Local, bool>,
    is_nak: Signal<Local, bool>,
    ce: Signal<Local, bool>,
    pkey_s: Signal<Local, PathKey>,
    pkey: Signal<Local, Bits<PATH_KEY_BITS>>,
    skey_s: Signal<Local, StreamKey>,
    skey: Signal<Local, Bits<STREAM_KEY_BITS>>,
    ctl_skey_s: Signal<Local, StreamKey>,
    ctl_skey: Signal<Local, Bits<STREAM_KEY_BITS>>,
    p_good: Signal<Local, bool>,
    // ---- taking work ----
    sub_ready: Signal<Local, bool>,
    idle: Signal<Local, bool>,
    take_ctl: Signal<Local, bool>,
    take_post: Signal<Local, bool>,
    take_timer: Signal<Local, bool>,
    take_frame: Signal<Local, bool>,
    hq_any: Signal<Local, bool>,
    hq_full: Signal<Local, bool>,
    hq_take: Signal<Local, bool>,
    hq_ra: Signal<Local, Bits<HQ_BITS>>,
    /// The frame taken now is good (its parse result and addresses).
    take_good: Signal<Local, bool>,
    // ---- rings ----
    m_base: Signal<Local, Bits<32>>,
    m_count: Signal<Local, Bits<CNT_BITS>>,
    meta_ra: Signal<Local, Bits<STREAM_KEY_BITS>>,
    ring_re: Signal<Local, bool>,
    ring_ra_s: Signal<Local, RingAddr>,
    ring_ra: Signal<Local, Bits<RING_ADDR_BITS>>,
    post_ra_s: Signal<Local, RingAddr>,
    q_addr: Signal<Local, Bits<64>>,
    q_len: Signal<Local, Bits<32>>,
    q_id: Signal<Local, Bits<32>>,
    cur_count_z: Signal<Local, ZextCount>,
    cur_count32: Signal<Local, Bits<32>>,
    rsn_ahead: Signal<Local, Bits<32>>,
    have_buf: Signal<Local, bool>,
    room: Signal<Local, bool>,
    // ---- per-frame decisions ----
    chk_ok: Signal<Local, bool>,
    new_fail: Signal<Local, Bits<2>>,
    after_commit: Signal<Local, Bits<5>>,
    after_nak: Signal<Local, Bits<5>>,
    after_pop: Signal<Local, Bits<5>>,
    after_desc: Signal<Local, Bits<5>>,
    offset_z: Signal<Local, Zext32to64>,
    plen_z: Signal<Local, Zext16to64>,
    offset64: Signal<Local, Bits<64>>,
    plen64: Signal<Local, Bits<64>>,
    // sub-block outputs and header bits this logic does not read
    unused_ok: Signal<Local, bool>,
    // ---- codes and sizes ----
    #[constant(S_IDLE as u64)]
    S_IDLE: Constant<Bits<5>>,
    #[constant(S_CHK as u64)]
    S_CHK: Constant<Bits<5>>,
    #[constant(S_CHK2 as u64)]
    S_CHK2: Constant<Bits<5>>,
    #[constant(S_SACK1 as u64)]
    S_SACK1: Constant<Bits<5>>,
    #[constant(S_SACK2 as u64)]
    S_SACK2: Constant<Bits<5>>,
    #[constant(S_MSG1 as u64)]
    S_MSG1: Constant<Bits<5>>,
    #[constant(S_MSG2 as u64)]
    S_MSG2: Constant<Bits<5>>,
    #[constant(S_DESC as u64)]
    S_DESC: Constant<Bits<5>>,
    #[constant(S_POP as u64)]
    S_POP: Constant<Bits<5>>,
    #[constant(S_POP1 as u64)]
    S_POP1: Constant<Bits<5>>,
    #[constant(S_POP2 as u64)]
    S_POP2: Constant<Bits<5>>,
    #[constant(S_CPL as u64)]
    S_CPL: Constant<Bits<5>>,
    #[constant(S_NAK as u64)]
    S_NAK: Constant<Bits<5>>,
    #[constant(S_COMMIT as u64)]
    S_COMMIT: Constant<Bits<5>>,
    #[constant(S_COMMIT1 as u64)]
    S_COMMIT1: Constant<Bits<5>>,
    #[constant(S_COMMIT2 as u64)]
    S_COMMIT2: Constant<Bits<5>>,
    #[constant(S_ACKG as u64)]
    S_ACKG: Constant<Bits<5>>,
    #[constant(S_ACKG1 as u64)]
    S_ACKG1: Constant<Bits<5>>,
    #[constant(S_ACKG2 as u64)]
    S_ACKG2: Constant<Bits<5>>,
    #[constant(S_ACK as u64)]
    S_ACK: Constant<Bits<5>>,
    #[constant(S_FB as u64)]
    S_FB: Constant<Bits<5>>,
    #[constant(S_POST as u64)]
    S_POST: Constant<Bits<5>>,
    #[constant(S_POST1 as u64)]
    S_POST1: Constant<Bits<5>>,
    #[constant(S_T0 as u64)]
    S_T0: Constant<Bits<5>>,
    #[constant(S_T1 as u64)]
    S_T1: Constant<Bits<5>>,
    #[constant(S_T2 as u64)]
    S_T2: Constant<Bits<5>>,
    #[constant(S_CTL as u64)]
    S_CTL: Constant<Bits<5>>,
    #[constant(VERDICT_NEW)]
    verdict_new: Constant<Bits<2>>,
    #[constant(VERDICT_DUP)]
    verdict_dup: Constant<Bits<2>>,
    #[constant(action::ARM)]
    act_arm: Constant<Bits<2>>,
    #[constant(action::NOW)]
    act_now: Constant<Bits<2>>,
    #[constant(Opcode::Write.code() as u64)]
    op_write: Constant<Bits<8>>,
    #[constant(Opcode::WriteImm.code() as u64)]
    op_write_imm: Constant<Bits<8>>,
    #[constant(Opcode::Send.code() as u64)]
    op_send: Constant<Bits<8>>,
    #[constant(Opcode::Nak.code() as u64)]
    op_nak: Constant<Bits<8>>,
    // the opcode as `rx_msgs` holds it (its low two bits)
    #[constant(Opcode::Send.code() as u64 & 3)]
    msg_send: Constant<Bits<2>>,
    #[constant(Opcode::WriteImm.code() as u64 & 3)]
    msg_write_imm: Constant<Bits<2>>,
    #[constant(MSGS_PACKET)]
    msgs_packet: Constant<Bits<2>>,
    #[constant(MSGS_POP)]
    msgs_pop: Constant<Bits<2>>,
    #[constant(MSGS_CLEAR)]
    msgs_clear: Constant<Bits<2>>,
    #[constant(Ecn::Ce as u64)]
    ecn_ce: Constant<Bits<2>>,
    #[constant(flags::RETX as u64)]
    flag_retx: Constant<Bits<8>>,
    #[constant(flags::ACK_REQ as u64)]
    flag_ack_req: Constant<Bits<8>>,
    #[constant(1u64 << PATH_BITS)]
    path_limit: Constant<Bits<8>>,
    #[constant(1u64 << STREAM_BITS)]
    stream_limit: Constant<Bits<16>>,
    #[constant(RECV_RING as u64)]
    ring_size: Constant<Bits<CNT_BITS>>,
    #[constant(CompletionStatus::Success.code() as u64)]
    fail_none: Constant<Bits<2>>,
    #[constant(CompletionStatus::RemoteAccessError.code() as u64)]
    fail_access: Constant<Bits<2>>,
    #[constant(CompletionStatus::RecvTooSmall.code() as u64)]
    fail_small: Constant<Bits<2>>,
    #[constant(NakCode::Access.code() as u64)]
    nak_access: Constant<Bits<8>>,
    #[constant(NakCode::NoRecv.code() as u64)]
    nak_no_recv: Constant<Bits<8>>,
    #[constant(NakCode::RecvTooSmall.code() as u64)]
    nak_too_small: Constant<Bits<8>>,
    #[constant(RX_CPL_RECV as u64)]
    kind_recv: Constant<Bits<2>>,
    #[constant(RX_CPL_WRITE_IMM as u64)]
    kind_write_imm: Constant<Bits<2>>,
    #[constant(HQ_DEPTH)]
    hq_depth: Constant<Bits<HQ_BITS>>,
    /// No header queue: the control logic takes a header from the parser.
    #[constant(HQ_DEPTH == 0)]
    hq_direct: Constant<bool>,
    #[constant(PATH_BITS as u64)]
    conn_in_path_key: Constant<Bits<32>>,
    #[constant(STREAM_BITS as u64)]
    conn_in_stream_key: Constant<Bits<32>>,
    #[constant(1u64)]
    one_hq: Constant<Bits<HQ_BITS>>,
    #[constant(1u64)]
    one_hq_good: Constant<Bits<{ 1 << HQ_BITS }>>,
    #[constant(1u64)]
    one_key: Constant<Bits<STREAM_KEY_BITS>>,
    #[constant(1u64)]
    one_cnt: Constant<Bits<CNT_BITS>>,
    #[constant(1u64)]
    one32: Constant<Bits<32>>,
    #[constant(0u64)]
    zero_hq: Constant<Bits<HQ_BITS>>,
    #[constant(0u64)]
    zero_key: Constant<Bits<STREAM_KEY_BITS>>,
    #[constant(0u64)]
    zero_cnt: Constant<Bits<CNT_BITS>>,
    #[constant(0u64)]
    zero_cnt_hi: Constant<Bits<{ 32 - CNT_BITS }>>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
    #[constant(0u64)]
    zero48: Constant<Bits<48>>,
    #[constant(0u64)]
    zero64: Constant<Bits<64>>,
}

// The key layout below assumes the default build.
const _: () = assert!(PATH_KEY_BITS == CONN_KEY_BITS + PATH_BITS && STREAM_KEY_BITS == CONN_KEY_BITS + STREAM_BITS);
const _: () = assert!(super::rx_check::CONNS == 1 << CONN_KEY_BITS);
const _: () = assert!(2 * HQ_DEPTH as usize <= 1 << HQ_BITS);

impl Logic for RxPath {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, hq_good, hq_wr, hq_rd, hq_cur, hq_hdr, ring_ra_q, cur_base, cur_count, pk, pa, pl, pi, t_key, st,
            init_busy, init_addr, acc_ok, w_addr, probe, fail, urgent, d_place, d_addr, f_pop, f_nak, f_commit,
            f_ackg, nak_code, ctl_op_q, ctl_key_q, ctl_psn_q, a_cum, a_map, a_pending, a_ce, a_ts, a_sport, a_key,
            arm_v, arm_k, data_v, data_c, c_kind, c_status, c_seq, c_len, c_imm, c_id, n_frames, n_data, n_dup,
            n_dup_retx, n_oow, n_malformed, n_bad_conn, n_access, n_no_recv, n_ce, n_post_drop, n_bytes
        );
        self.parse.clock.next = self.clock.val();
        self.parse.reset.next = self.reset.val();
        self.fifo.clock.next = self.clock.val();
        self.fifo.reset.next = self.reset.val();
        self.check.clock.next = self.clock.val();
        self.check.reset.next = self.reset.val();
        self.sack.clock.next = self.clock.val();
        self.sack.reset.next = self.reset.val();
        self.msgs.clock.next = self.clock.val();
        self.msgs.reset.next = self.reset.val();
        self.place.clock.next = self.clock.val();
        self.place.reset.next = self.reset.val();
        self.ackg.clock.next = self.clock.val();
        self.ackg.reset.next = self.reset.val();
        self.hq.read_clock.next = self.clock.val();
        self.hq.write_clock.next = self.clock.val();
        self.meta.read_clock.next = self.clock.val();
        self.meta.write_clock.next = self.clock.val();
        self.ring.read_clock.next = self.clock.val();
        self.ring.write_clock.next = self.clock.val();
        self.tsp.read_clock.next = self.clock.val();
        self.tsp.write_clock.next = self.clock.val();

        // ---- the frame being processed: its headers are hq's output ----
        if self.hq_direct.val() {
            self.fields.hdr.next = self.hq_hdr.q.val();
        } else {
            self.fields.hdr.next = self.hq.read_data.val();
        }
        self.is_write.next = (self.fields.opcode.val() == self.op_write.val()) | (self.fields.opcode.val() == self.op_write_imm.val());
        self.is_send.next = self.fields.opcode.val() == self.op_send.val();
        self.is_data.next = self.is_write.val() | self.is_send.val();
        self.is_nak.next = self.fields.opcode.val() == self.op_nak.val();
        self.ce.next = self.fields.ecn.val() == self.ecn_ce.val();
        self.pkey_s.next.path = self.fields.path.val().get_bits::<PATH_BITS>(0);
        self.pkey_s.next.conn = self.fields.conn.val().get_bits::<CONN_KEY_BITS>(0);
        self.pkey.next = self.pkey_s.val().into();
        self.skey_s.next.stream = self.fields.stream.val().get_bits::<STREAM_BITS>(0);
        self.skey_s.next.conn = self.fields.conn.val().get_bits::<CONN_KEY_BITS>(0);
        self.skey.next = self.skey_s.val().into();
        self.ctl_skey_s.next.stream = self.ctl_key_q.q.val().get_bits::<STREAM_BITS>(0);
        self.ctl_skey_s.next.conn =
            self.ctl_key_q.q.val().get_bits::<CONN_KEY_BITS>(self.conn_in_path_key.val().index());
        self.ctl_skey.next = self.ctl_skey_s.val().into();
        self.dst.hdr.next = self.parse.m_hdr.val();
        self.p_good.next = self.parse.m_good.val()
            & (self.dst.dst_mac.val() == self.cfg_mac.val())
            & (self.dst.dst_ip.val() == self.cfg_ip.val());

        // ---- what to take next: control, a post, a timer, a frame ----
        self.sub_ready.next =
            self.sack.ready.val() & self.msgs.ready.val() & self.ackg.ready.val() & self.check.ready.val();
        self.idle.next = (self.st.q.val() == self.S_IDLE.val()) & !self.init_busy.q.val() & self.sub_ready.val();
        self.take_ctl.next = self.idle.val() & self.ctl_valid.val();
        self.take_post.next = self.idle.val() & !self.ctl_valid.val() & self.post_valid.val();
        self.take_timer.next = self.idle.val() & !self.ctl_valid.val() & !self.post_valid.val() & self.timer_valid.val();
        // Parse results wait in a queue (with their verdict already given to
        // the frame FIFO), so the parser takes the next frame while the
        // control logic is busy with an earlier one.
        self.hq_any.next = self.hq_wr.q.val() != self.hq_rd.q.val();
        self.hq_full.next = (self.hq_wr.q.val() - self.hq_rd.q.val()) == self.hq_depth.val();
        self.hq_take.next = self.parse.m_valid.val() & !self.hq_full.val() & self.fifo.verdict_ready.val();
        self.take_good.next = self.hq_good.q.val().get_bit(self.hq_rd.q.val().index());
        // Without a queue the parser's result is the frame waiting, taken
        // (and its verdict given) when the control logic takes the frame.
        if self.hq_direct.val() {
            self.hq_any.next = self.parse.m_valid.val() & self.fifo.verdict_ready.val();
            self.take_good.next = self.p_good.val();
        }
        self.take_frame.next = self.idle.val()
            & !self.ctl_valid.val()
            & !self.post_valid.val()
            & !self.timer_valid.val()
            & self.hq_any.val();
        if self.hq_direct.val() {
            self.hq_take.next = self.take_frame.val();
            if self.take_frame.val() {
                self.hq_hdr.d.next = self.parse.m_hdr.val();
            }
        }
        // The RAM's output register holds the last frame taken: read its
        // slot again until the next one is taken.
        if self.take_frame.val() {
            self.hq_ra.next = self.hq_rd.q.val();
        } else {
            self.hq_ra.next = self.hq_cur.q.val();
        }
        self.hq_cur.d.next = self.hq_ra.val();
        self.hq.read_address.next = self.hq_ra.val();
        self.hq.write_address.next = self.hq_wr.q.val();
        self.hq.write_data.next = self.parse.m_hdr.val();
        self.hq.write_enable.next = self.hq_take.val() & !self.hq_direct.val();

        // ---- the MAC stream feeds the parser and the frame FIFO together ----
        self.parse.cfg_port.next = self.cfg_port.val();
        self.parse.s_axis_tdata.next = self.s_axis_tdata.val();
        self.parse.s_axis_tkeep.next = self.s_axis_tkeep.val();
        self.parse.s_axis_tlast.next = self.s_axis_tlast.val();
        self.parse.s_axis_tuser.next = self.s_axis_tuser.val();
        self.parse.s_axis_tvalid.next = self.s_axis_tvalid.val() & self.fifo.s_axis_tready.val();
        self.parse.m_ready.next = self.hq_take.val();
        self.fifo.s_axis_tdata.next = self.s_axis_tdata.val();
        self.fifo.s_axis_tkeep.next = self.s_axis_tkeep.val();
        self.fifo.s_axis_tlast.next = self.s_axis_tlast.val();
        self.fifo.s_axis_tvalid.next = self.s_axis_tvalid.val() & self.parse.s_axis_tready.val();
        self.fifo.verdict_valid.next = self.hq_take.val();
        self.fifo.verdict_good.next = self.p_good.val();
        self.s_axis_tready.next = self.parse.s_axis_tready.val() & self.fifo.s_axis_tready.val();
        self.fifo.m_axis_tready.next = self.place.s_axis_tready.val();
        self.place.s_axis_tdata.next = self.fifo.m_axis_tdata.val();
        self.place.s_axis_tvalid.next = self.fifo.m_axis_tvalid.val();
        self.place.s_axis_tlast.next = self.fifo.m_axis_tlast.val();
        self.place.desc_valid.next = self.st.q.val() == self.S_DESC.val();
        self.place.desc_place.next = self.d_place.q.val();
        self.place.desc_addr.next = self.d_addr.q.val();
        self.place.desc_len.next = self.fields.plen.val();
        self.place.m_cmd_ready.next = self.m_dma_cmd_ready.val();
        self.place.m_data_tready.next = self.m_dma_data_tready.val();
        self.m_dma_cmd_valid.next = self.place.m_cmd_valid.val();
        self.m_dma_cmd_addr.next = self.place.m_cmd_addr.val();
        self.m_dma_cmd_len.next = self.place.m_cmd_len.val();
        self.m_dma_data_tdata.next = self.place.m_data_tdata.val();
        self.m_dma_data_tkeep.next = self.place.m_data_tkeep.val();
        self.m_dma_data_tvalid.next = self.place.m_data_tvalid.val();
        self.m_dma_data_tlast.next = self.place.m_data_tlast.val();

        // ---- tables ----
        self.check.conn_wr.next = self.conn_wr.val();
        self.check.conn_wr_index.next = self.conn_wr_index.val();
        self.check.conn_wr_valid_bit.next = self.conn_wr_valid_bit.val();
        self.check.conn_wr_peer_ip.next = self.conn_wr_peer_ip.val();
        self.check.conn_wr_paths.next = self.conn_wr_paths.val();
        self.check.conn_wr_generation.next = self.conn_wr_generation.val();
        self.check.mr_wr.next = self.mr_wr.val();
        self.check.mr_wr_index.next = self.mr_wr_index.val();
        self.check.mr_wr_valid_bit.next = self.mr_wr_valid_bit.val();
        self.check.mr_wr_rkey.next = self.mr_wr_rkey.val();
        self.check.mr_wr_base.next = self.mr_wr_base.val();
        self.check.mr_wr_len.next = self.mr_wr_len.val();
        self.check.mr_wr_remote_write.next = self.mr_wr_remote_write.val();
        self.check.mr_wr_conn.next = self.mr_wr_conn.val();
        self.check.in_valid.next = self.st.q.val() == self.S_CHK.val();
        self.check.in_conn.next = self.fields.conn.val();
        self.check.in_path.next = self.fields.path.val();
        self.check.in_generation.next = self.fields.generation.val();
        self.check.in_src_ip.next = self.fields.src_ip.val();
        self.check.in_write.next = self.is_write.val();
        self.check.in_rkey.next = self.fields.rkey.val();
        self.check.in_remote_addr.next = self.fields.raddr.val();
        self.check.in_offset.next = self.fields.offset.val();
        self.check.in_payload_len.next = self.fields.plen.val();
        self.check.in_msg_len.next = self.fields.msg_len.val();

        // ---- receive rings: per stream key, base RSN and count; 16 buffers ----
        if self.st.q.val() == self.S_POST.val() {
            self.meta_ra.next = self.pk.q.val();
        } else {
            self.meta_ra.next = self.skey.val();
        }
        self.meta.read_address.next = self.meta_ra.val();
        self.m_base.next = self.meta.read_data.val().base;
        self.m_count.next = self.meta.read_data.val().count;
        self.ring_re.next = (self.st.q.val() == self.S_CHK2.val()) | (self.st.q.val() == self.S_POP.val());
        self.ring_ra_s.next.key = self.skey.val();
        if self.st.q.val() == self.S_CHK2.val() {
            self.ring_ra_s.next.slot = self.fields.rkey.val().get_bits::<RECV_RING_BITS>(0);
        } else {
            self.ring_ra_s.next.slot = self.cur_base.q.val().get_bits::<RECV_RING_BITS>(0);
        }
        // Read on CHK2 and POP only: between reads the address is kept, so
        // the entry read stays on the RAM's output.
        if self.ring_re.val() {
            self.ring_ra.next = self.ring_ra_s.val().into();
        } else {
            self.ring_ra.next = self.ring_ra_q.q.val();
        }
        self.ring_ra_q.d.next = self.ring_ra.val();
        self.ring.read_address.next = self.ring_ra.val();
        self.q_addr.next = self.ring.read_data.val().addr;
        self.q_len.next = self.ring.read_data.val().len;
        self.q_id.next = self.ring.read_data.val().id;
        self.cur_count_z.next.lo = self.cur_count.q.val();
        self.cur_count_z.next.hi = self.zero_cnt_hi.val();
        self.cur_count32.next = self.cur_count_z.val().into();
        self.rsn_ahead.next = self.fields.rkey.val() - self.cur_base.q.val();
        self.have_buf.next = self.rsn_ahead.val() < self.cur_count32.val();
        self.room.next = self.m_count.val() < self.ring_size.val();
        // a post goes to slot (base + count) mod 16
        self.post_ra_s.next.key = self.pk.q.val();
        self.post_ra_s.next.slot =
            self.m_base.val().get_bits::<RECV_RING_BITS>(0) + self.m_count.val().get_bits::<RECV_RING_BITS>(0);
        self.ring.write_address.next = self.post_ra_s.val().into();
        self.ring.write_data.next.addr = self.pa.q.val();
        self.ring.write_data.next.len = self.pl.q.val();
        self.ring.write_data.next.id = self.pi.q.val();
        self.ring.write_enable.next = (self.st.q.val() == self.S_POST1.val()) & self.room.val();
        if self.init_busy.q.val() {
            self.meta.write_address.next = self.init_addr.q.val();
            self.meta.write_data.next.base = self.zero32.val();
            self.meta.write_data.next.count = self.zero_cnt.val();
            self.meta.write_enable.next = true;
        } else if (self.st.q.val() == self.S_POST1.val()) & self.room.val() {
            self.meta.write_address.next = self.pk.q.val();
            self.meta.write_data.next.base = self.m_base.val();
            self.meta.write_data.next.count = self.m_count.val() + self.one_cnt.val();
            self.meta.write_enable.next = true;
        } else if (self.st.q.val() == self.S_POP2.val())
            & self.msgs.out_popped.val()
            & (self.msgs.out_opcode.val() == self.msg_send.val())
        {
            self.meta.write_address.next = self.skey.val();
            self.meta.write_data.next.base = self.cur_base.q.val() + self.one32.val();
            self.meta.write_data.next.count = self.cur_count.q.val() - self.one_cnt.val();
            self.meta.write_enable.next = true;
        } else {
            self.meta.write_address.next = self.ctl_skey.val();
            self.meta.write_data.next.base = self.zero32.val();
            self.meta.write_data.next.count = self.zero_cnt.val();
            self.meta.write_enable.next = (self.st.q.val() == self.S_CTL.val()) & self.ctl_op_q.q.val();
        }

        // ---- per path key: timestamp and source port of the last data packet ----
        self.tsp.read_address.next = self.t_key.q.val();
        self.tsp.write_address.next = self.pkey.val();
        self.tsp.write_data.next.ts = self.fields.ts.val();
        self.tsp.write_data.next.sport = self.fields.sport.val();
        self.tsp.write_enable.next = self.st.q.val() == self.S_ACKG.val();

        // ---- per-frame decisions ----
        self.chk_ok.next = self.check.out_conn_ok.val()
            & (self.fields.path.val() < self.path_limit.val())
            & (!self.is_data.val() | (self.fields.stream.val() < self.stream_limit.val()));
        if self.is_write.val() {
            if self.acc_ok.q.val() {
                self.new_fail.next = self.fail_none.val();
            } else {
                self.new_fail.next = self.fail_access.val();
            }
        } else if self.fields.msg_len.val() > self.q_len.val() {
            self.new_fail.next = self.fail_small.val();
        } else {
            self.new_fail.next = self.fail_none.val();
        }
        if self.f_ackg.q.val() {
            self.after_commit.next = self.S_ACKG.val();
        } else {
            self.after_commit.next = self.S_IDLE.val();
        }
        if self.f_commit.q.val() {
            self.after_nak.next = self.S_COMMIT.val();
        } else {
            self.after_nak.next = self.after_commit.val();
        }
        if self.f_nak.q.val() {
            self.after_pop.next = self.S_NAK.val();
        } else {
            self.after_pop.next = self.after_nak.val();
        }
        if self.f_pop.q.val() {
            self.after_desc.next = self.S_POP.val();
        } else {
            self.after_desc.next = self.after_pop.val();
        }
        self.offset_z.next.lo = self.fields.offset.val();
        self.offset_z.next.hi = self.zero32.val();
        self.plen_z.next.lo = self.fields.plen.val();
        self.plen_z.next.hi = self.zero48.val();
        self.offset64.next = self.offset_z.val().into();
        self.plen64.next = self.plen_z.val().into();

        // ---- the keyed state blocks: one operation at a time ----
        self.sack.in_valid.next = false;
        self.sack.in_op.next = false;
        self.sack.in_key.next = self.pkey.val();
        self.sack.in_psn.next = self.fields.psn.val();
        self.sack.in_commit.next = false;
        self.msgs.in_valid.next = false;
        self.msgs.in_op.next = self.msgs_packet.val();
        self.msgs.in_key.next = self.skey.val();
        self.msgs.in_seq.next = self.fields.msg_seq.val();
        self.msgs.in_len.next = self.fields.msg_len.val();
        self.msgs.in_opcode.next = self.fields.opcode.val().get_bits::<2>(0);
        self.msgs.in_imm.next = self.fields.imm.val();
        self.msgs.in_payload.next = self.fields.plen.val();
        self.msgs.in_fail.next = self.new_fail.val();
        self.msgs.in_apply.next = !(self.is_send.val() & !self.have_buf.val());
        self.ackg.in_valid.next = false;
        self.ackg.in_op.next = false;
        self.ackg.in_key.next = self.pkey.val();
        self.ackg.in_urgent.next = self.urgent.q.val();
        self.ackg.in_ce.next = self.ce.val();
        self.ackg.in_ack_every.next = self.cfg_ack_every.val();
        match self.st.q.val().index() {
            S_CHK2 => {
                self.sack.in_valid.next = self.chk_ok.val() & self.is_data.val();
            }
            S_SACK2 => {
                self.msgs.in_valid.next = self.sack.out_verdict.val() == self.verdict_new.val();
            }
            S_POP => {
                self.msgs.in_valid.next = true;
                self.msgs.in_op.next = self.msgs_pop.val();
            }
            S_COMMIT => {
                self.sack.in_valid.next = true;
                self.sack.in_commit.next = true;
            }
            S_ACKG => {
                self.ackg.in_valid.next = true;
            }
            S_T0 => {
                self.sack.in_valid.next = true;
                self.sack.in_key.next = self.t_key.q.val();
                self.ackg.in_valid.next = true;
                self.ackg.in_op.next = true;
                self.ackg.in_key.next = self.t_key.q.val();
            }
            S_CTL => {
                self.sack.in_valid.next = !self.ctl_op_q.q.val();
                self.sack.in_op.next = true;
                self.sack.in_key.next = self.ctl_key_q.q.val();
                self.sack.in_psn.next = self.ctl_psn_q.q.val();
                self.msgs.in_valid.next = self.ctl_op_q.q.val();
                self.msgs.in_op.next = self.msgs_clear.val();
                self.msgs.in_key.next = self.ctl_skey.val();
            }
            _ => {}
        }

        // ---- outputs ----
        self.ready.next = !self.init_busy.q.val() & self.sub_ready.val();
        self.ctl_ready.next = self.idle.val();
        self.post_ready.next = self.idle.val() & !self.ctl_valid.val();
        self.timer_ready.next = self.idle.val() & !self.ctl_valid.val() & !self.post_valid.val();
        self.m_ack_valid.next = self.st.q.val() == self.S_ACK.val();
        self.m_ack_key.next = self.a_key.q.val();
        self.m_ack_cum.next = self.a_cum.q.val();
        self.m_ack_sack.next = self.a_map.q.val();
        self.m_ack_ts.next = self.a_ts.q.val();
        self.m_ack_sport.next = self.a_sport.q.val();
        self.m_ack_pending.next = self.a_pending.q.val();
        self.m_ack_ce.next = self.a_ce.q.val();
        self.m_nak_valid.next = self.st.q.val() == self.S_NAK.val();
        self.m_nak_key.next = self.pkey.val();
        self.m_nak_psn.next = self.fields.psn.val();
        self.m_nak_stream.next = self.fields.stream.val();
        self.m_nak_msg_seq.next = self.fields.msg_seq.val();
        self.m_nak_code.next = self.nak_code.q.val();
        self.m_nak_sport.next = self.fields.sport.val();
        self.m_arm_valid.next = self.arm_v.q.val();
        self.m_arm_key.next = self.arm_k.q.val();
        self.m_fb_valid.next = self.st.q.val() == self.S_FB.val();
        self.m_fb_nak.next = self.is_nak.val();
        self.m_fb_key.next = self.pkey.val();
        self.m_fb_psn.next = self.fields.psn.val();
        self.m_fb_ts.next = self.fields.ts.val();
        // Folded onto this build's W slots: the send side's queue keeps W
        // bits of it, not 256.
        self.fb_fold.sack.next = self.fields.sack.val();
        self.m_fb_sack.next = self.fb_fold.folded.val();
        self.m_fb_ts_echo.next = self.fields.ts_echo.val();
        self.m_fb_hint.next = self.fields.hint.val();
        self.m_fb_ce.next = self.fields.ecn_ce.val();
        self.m_fb_pkts.next = self.fields.pkts.val();
        self.m_fb_code.next = self.fields.nak_code.val();
        self.m_fb_stream.next = self.fields.stream.val();
        self.m_fb_msg_seq.next = self.fields.nak_msg.val();
        self.m_cpl_valid.next = self.st.q.val() == self.S_CPL.val();
        self.m_cpl_key.next = self.skey.val();
        self.m_cpl_kind.next = self.c_kind.q.val();
        self.m_cpl_status.next = self.c_status.q.val();
        self.m_cpl_seq.next = self.c_seq.q.val();
        self.m_cpl_len.next = self.c_len.q.val();
        self.m_cpl_imm.next = self.c_imm.q.val();
        self.m_cpl_id.next = self.c_id.q.val();
        self.m_data_valid.next = self.data_v.q.val();
        self.m_data_conn.next = self.data_c.q.val();
        self.m_msg_valid.next = self.msgs.out_valid.val();
        self.m_msg_conn.next = self.msgs.out_key.val().get_bits::<CONN_KEY_BITS>(self.conn_in_stream_key.val().index());
        self.m_msg_began.next = self.msgs.out_began.val();
        self.m_msg_popped.next = self.msgs.out_popped.val();
        self.cnt_frames.next = self.n_frames.q.val();
        self.cnt_data.next = self.n_data.q.val();
        self.cnt_dup.next = self.n_dup.q.val();
        self.cnt_dup_retx.next = self.n_dup_retx.q.val();
        self.cnt_oow.next = self.n_oow.q.val();
        self.cnt_malformed.next = self.n_malformed.q.val();
        self.cnt_bad_conn.next = self.n_bad_conn.q.val();
        self.cnt_access.next = self.n_access.q.val();
        self.cnt_no_recv.next = self.n_no_recv.q.val();
        self.cnt_ce.next = self.n_ce.q.val();
        self.cnt_bytes.next = self.n_bytes.q.val();
        self.cnt_post_drop.next = self.n_post_drop.q.val();

        // ---- control ----
        self.arm_v.d.next = false;
        self.data_v.d.next = false;
        match self.st.q.val().index() {
            S_IDLE => {
                if self.take_ctl.val() {
                    self.ctl_op_q.d.next = self.ctl_op.val();
                    self.ctl_key_q.d.next = self.ctl_key.val();
                    self.ctl_psn_q.d.next = self.ctl_psn.val();
                    self.st.d.next = self.S_CTL.val();
                } else if self.take_post.val() {
                    self.pk.d.next = self.post_key.val();
                    self.pa.d.next = self.post_addr.val();
                    self.pl.d.next = self.post_len.val();
                    self.pi.d.next = self.post_id.val();
                    self.st.d.next = self.S_POST.val();
                } else if self.take_timer.val() {
                    self.t_key.d.next = self.timer_key.val();
                    self.st.d.next = self.S_T0.val();
                } else if self.take_frame.val() {
                    self.n_frames.d.next = self.n_frames.q.val() + self.one32.val();
                    if self.take_good.val() {
                        self.st.d.next = self.S_CHK.val();
                    } else {
                        self.n_malformed.d.next = self.n_malformed.q.val() + self.one32.val();
                    }
                }
            }
            S_CTL => {
                self.st.d.next = self.S_IDLE.val();
            }
            S_POST => {
                self.st.d.next = self.S_POST1.val();
            }
            S_POST1 => {
                if !self.room.val() {
                    self.n_post_drop.d.next = self.n_post_drop.q.val() + self.one32.val();
                }
                self.st.d.next = self.S_IDLE.val();
            }
            S_T0 => {
                self.st.d.next = self.S_T1.val();
            }
            S_T1 => {
                self.st.d.next = self.S_T2.val();
            }
            S_T2 => {
                self.a_cum.d.next = self.sack.out_cum.val();
                self.a_map.d.next = self.sack.out_slots.val();
                self.a_pending.d.next = self.ackg.out_pending.val();
                self.a_ce.d.next = self.ackg.out_ce.val();
                self.a_ts.d.next = self.tsp.read_data.val().ts;
                self.a_sport.d.next = self.tsp.read_data.val().sport;
                self.a_key.d.next = self.t_key.q.val();
                if self.ackg.out_action.val() == self.act_now.val() {
                    self.st.d.next = self.S_ACK.val();
                } else {
                    self.st.d.next = self.S_IDLE.val();
                }
            }
            S_CHK => {
                self.st.d.next = self.S_CHK2.val();
            }
            S_CHK2 => {
                self.acc_ok.d.next = self.check.out_access_ok.val();
                self.w_addr.d.next = self.check.out_addr.val();
                self.cur_base.d.next = self.m_base.val();
                self.cur_count.d.next = self.m_count.val();
                self.d_place.d.next = false;
                self.f_pop.d.next = false;
                self.f_nak.d.next = false;
                self.f_commit.d.next = false;
                self.f_ackg.d.next = false;
                self.urgent.d.next = (self.fields.flags.val() & self.flag_ack_req.val()).any();
                if !self.chk_ok.val() {
                    self.n_bad_conn.d.next = self.n_bad_conn.q.val() + self.one32.val();
                    self.st.d.next = self.S_DESC.val();
                } else if !self.is_data.val() {
                    self.st.d.next = self.S_FB.val();
                } else {
                    self.n_data.d.next = self.n_data.q.val() + self.one32.val();
                    self.data_v.d.next = true;
                    self.data_c.d.next = self.fields.conn.val().get_bits::<CONN_KEY_BITS>(0);
                    if self.ce.val() {
                        self.n_ce.d.next = self.n_ce.q.val() + self.one32.val();
                    }
                    self.st.d.next = self.S_SACK1.val();
                }
            }
            S_FB => {
                if self.m_fb_ready.val() {
                    self.st.d.next = self.S_DESC.val();
                }
            }
            S_SACK1 => {
                self.st.d.next = self.S_SACK2.val();
            }
            S_SACK2 => {
                self.a_cum.d.next = self.sack.out_cum.val();
                self.a_map.d.next = self.sack.out_slots.val();
                self.probe.d.next = self.is_send.val() & !self.have_buf.val();
                self.fail.d.next = self.new_fail.val();
                if self.is_write.val() {
                    self.d_addr.d.next = self.w_addr.q.val();
                } else {
                    self.d_addr.d.next = self.q_addr.val() + self.offset64.val();
                }
                if self.sack.out_verdict.val() == self.verdict_new.val() {
                    if self.sack.out_hole.val() {
                        self.urgent.d.next = true;
                    }
                    self.st.d.next = self.S_MSG1.val();
                } else {
                    if self.sack.out_verdict.val() == self.verdict_dup.val() {
                        self.n_dup.d.next = self.n_dup.q.val() + self.one32.val();
                        if (self.fields.flags.val() & self.flag_retx.val()).any() {
                            self.n_dup_retx.d.next = self.n_dup_retx.q.val() + self.one32.val();
                        }
                    } else {
                        self.n_oow.d.next = self.n_oow.q.val() + self.one32.val();
                    }
                    self.urgent.d.next = true;
                    self.f_ackg.d.next = true;
                    self.st.d.next = self.S_DESC.val();
                }
            }
            S_MSG1 => {
                self.st.d.next = self.S_MSG2.val();
            }
            S_MSG2 => {
                if self.probe.q.val() & self.msgs.out_ok.val() {
                    // No receive buffer yet: not received, the sender retries.
                    self.n_no_recv.d.next = self.n_no_recv.q.val() + self.one32.val();
                    self.nak_code.d.next = self.nak_no_recv.val();
                    self.f_nak.d.next = true;
                } else {
                    self.f_commit.d.next = true;
                    self.f_ackg.d.next = true;
                    if self.probe.q.val() | !self.msgs.out_ok.val() | (self.fail.q.val() != self.fail_none.val()) {
                        self.n_access.d.next = self.n_access.q.val() + self.one32.val();
                        if (self.fail.q.val() == self.fail_small.val()) & !self.probe.q.val() & self.msgs.out_ok.val() {
                            self.nak_code.d.next = self.nak_too_small.val();
                        } else {
                            self.nak_code.d.next = self.nak_access.val();
                        }
                        self.f_nak.d.next = true;
                    } else {
                        self.n_bytes.d.next = self.n_bytes.q.val() + self.plen64.val();
                        self.d_place.d.next = true;
                    }
                    self.f_pop.d.next = !self.probe.q.val() & self.msgs.out_ok.val();
                }
                self.st.d.next = self.S_DESC.val();
            }
            S_DESC => {
                if self.place.desc_ready.val() {
                    self.st.d.next = self.after_desc.val();
                }
            }
            S_POP => {
                self.st.d.next = self.S_POP1.val();
            }
            S_POP1 => {
                self.st.d.next = self.S_POP2.val();
            }
            S_POP2 => {
                // A pop's result comes three cycles after it is given.
                if self.msgs.out_valid.val() {
                    self.c_status.d.next = self.msgs.out_fail.val();
                    self.c_seq.d.next = self.msgs.out_seq.val();
                    self.c_len.d.next = self.msgs.out_len.val();
                    self.c_imm.d.next = self.msgs.out_imm.val();
                    if !self.msgs.out_popped.val() {
                        self.st.d.next = self.after_pop.val();
                    } else if self.msgs.out_opcode.val() == self.msg_send.val() {
                        self.c_kind.d.next = self.kind_recv.val();
                        self.c_id.d.next = self.q_id.val();
                        self.cur_base.d.next = self.cur_base.q.val() + self.one32.val();
                        self.cur_count.d.next = self.cur_count.q.val() - self.one_cnt.val();
                        self.st.d.next = self.S_CPL.val();
                    } else if (self.msgs.out_opcode.val() == self.msg_write_imm.val())
                        & (self.msgs.out_fail.val() == self.fail_none.val())
                    {
                        self.c_kind.d.next = self.kind_write_imm.val();
                        self.c_id.d.next = self.zero32.val();
                        self.st.d.next = self.S_CPL.val();
                    } else {
                        self.st.d.next = self.S_POP.val();
                    }
                }
            }
            S_CPL => {
                if self.m_cpl_ready.val() {
                    self.st.d.next = self.S_POP.val();
                }
            }
            S_NAK => {
                if self.m_nak_ready.val() {
                    self.st.d.next = self.after_nak.val();
                }
            }
            S_COMMIT => {
                self.st.d.next = self.S_COMMIT1.val();
            }
            S_COMMIT1 => {
                self.st.d.next = self.S_COMMIT2.val();
            }
            S_COMMIT2 => {
                self.a_cum.d.next = self.sack.out_cum.val();
                self.a_map.d.next = self.sack.out_slots.val();
                self.st.d.next = self.after_commit.val();
            }
            S_ACKG => {
                self.st.d.next = self.S_ACKG1.val();
            }
            S_ACKG1 => {
                self.st.d.next = self.S_ACKG2.val();
            }
            S_ACKG2 => {
                self.a_pending.d.next = self.ackg.out_pending.val();
                self.a_ce.d.next = self.ackg.out_ce.val();
                self.a_ts.d.next = self.fields.ts.val();
                self.a_sport.d.next = self.fields.sport.val();
                self.a_key.d.next = self.pkey.val();
                if self.ackg.out_action.val() == self.act_now.val() {
                    self.st.d.next = self.S_ACK.val();
                } else {
                    self.arm_v.d.next = self.ackg.out_action.val() == self.act_arm.val();
                    self.arm_k.d.next = self.pkey.val();
                    self.st.d.next = self.S_IDLE.val();
                }
            }
            S_ACK => {
                if self.m_ack_ready.val() {
                    self.st.d.next = self.S_IDLE.val();
                }
            }
            _ => {
                self.st.d.next = self.S_IDLE.val();
            }
        }
        if self.hq_take.val() {
            if self.p_good.val() {
                self.hq_good.d.next = self.hq_good.q.val() | (self.one_hq_good.val() << self.hq_wr.q.val());
            } else {
                self.hq_good.d.next = self.hq_good.q.val() & !(self.one_hq_good.val() << self.hq_wr.q.val());
            }
            self.hq_wr.d.next = self.hq_wr.q.val() + self.one_hq.val();
        }
        if self.take_frame.val() {
            self.hq_rd.d.next = self.hq_rd.q.val() + self.one_hq.val();
        }
        if self.init_busy.q.val() {
            self.init_addr.d.next = self.init_addr.q.val() + self.one_key.val();
            if self.init_addr.q.val().all() {
                self.init_busy.d.next = false;
            }
        }
        if self.reset.val() | self.clear_stats.val() {
            self.n_frames.d.next = self.zero32.val();
            self.n_data.d.next = self.zero32.val();
            self.n_dup.d.next = self.zero32.val();
            self.n_dup_retx.d.next = self.zero32.val();
            self.n_oow.d.next = self.zero32.val();
            self.n_malformed.d.next = self.zero32.val();
            self.n_bad_conn.d.next = self.zero32.val();
            self.n_access.d.next = self.zero32.val();
            self.n_no_recv.d.next = self.zero32.val();
            self.n_ce.d.next = self.zero32.val();
            self.n_post_drop.d.next = self.zero32.val();
            self.n_bytes.d.next = self.zero64.val();
        }
        if self.reset.val() {
            self.st.d.next = self.S_IDLE.val();
            self.init_busy.d.next = true;
            self.init_addr.d.next = self.zero_key.val();
            self.hq_wr.d.next = self.zero_hq.val();
            self.hq_rd.d.next = self.zero_hq.val();
            self.arm_v.d.next = false;
            self.data_v.d.next = false;
        }

        self.unused_ok.next = false
            & (self.parse.m_error.val().any()
                | self.parse.m_len.val().any()
                | self.sack.out_valid.val()
                | self.sack.out_key.val().any()
                | self.sack.out_high.val().any()
                | self.msgs.out_key.val().any()
                | self.ackg.out_valid.val()
                | self.ackg.out_key.val().any()
                | self.check.out_valid.val()
                | self.fifo.m_axis_tkeep.val().any()
                | self.fields.conn.val().any()
                | self.fields.path.val().any()
                | self.fields.stream.val().any()
                | self.fields.rkey.val().any()
                | self.fields.opcode.val().any()
                | self.m_base.val().any()
                | self.m_count.val().any());
    }
}
