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
//!   marks since the last ACK). The rate hint is the sender side's.
//! * `m_nak_*`: a NAK for a refused data packet.
//! * `m_arm_valid`/`m_arm_key`: one-cycle request to arm an ACK timer.
//! * `m_fb_*`: a received ACK (`m_fb_nak` low) or NAK for the send side
//!   (`m_fb_sack` in slot order, like `m_ack_sack`).
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
//! Frames wait in `frame_fifo` (16 KiB) while their headers are processed;
//! `s_axis_tready` drops when it or the parser's result slot is full.

use std::fmt::Write as _;

use rust_hdl::prelude::*;

use ferroce_proto::wire::headers::{ACK, COMMON, DATA, ETH, IPV4, NAK, UDP};
use ferroce_proto::wire::Header;

use crate::rx::ack_gen::AckGen;
use crate::emit::{CONN_KEY_BITS, PATH_BITS, PATH_KEY_BITS, STREAM_KEY_BITS};
use crate::rx::frame_fifo::FrameFifo;
use crate::layout::{extract, frame_offset, HDR_BYTES};
use crate::rx::rx_check::RxCheck;
use crate::rx::rx_msgs::RxMsgs;
use crate::rx::rx_parse::RxParse;
use crate::rx::rx_place::RxPlace;
use crate::rx::sack::Sack;

/// Receive buffers waiting per stream.
pub const RING: usize = 16;

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

/// The receive path.
#[derive(LogicBlock, Default)]
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
    pub mr_wr_index: Signal<In, Bits<4>>,
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
    parse: RxParse,
    fifo: FrameFifo,
    check: RxCheck,
    sack: Sack<PATH_KEY_BITS>,
    msgs: RxMsgs<STREAM_KEY_BITS>,
    place: RxPlace,
    ackg: AckGen<PATH_KEY_BITS>,
}

// The key layout below assumes the default build.
const _: () = assert!(PATH_KEY_BITS == CONN_KEY_BITS + PATH_BITS && STREAM_KEY_BITS == CONN_KEY_BITS + 3);
const _: () = assert!(crate::rx::rx_check::CONNS == 1 << CONN_KEY_BITS);

impl Logic for RxPath {
    // Verified in Verilator against the model; rust-hdl's simulator is not
    // used for this block, so the Rust side only keeps outputs defined.
    fn update(&mut self) {}

    fn connect(&mut self) {
        self.ready.connect();
        self.ctl_ready.connect();
        self.post_ready.connect();
        self.timer_ready.connect();
        self.s_axis_tready.connect();
        self.m_dma_cmd_valid.connect();
        self.m_dma_cmd_addr.connect();
        self.m_dma_cmd_len.connect();
        self.m_dma_data_tdata.connect();
        self.m_dma_data_tkeep.connect();
        self.m_dma_data_tvalid.connect();
        self.m_dma_data_tlast.connect();
        self.m_ack_valid.connect();
        self.m_ack_key.connect();
        self.m_ack_cum.connect();
        self.m_ack_sack.connect();
        self.m_ack_ts.connect();
        self.m_ack_sport.connect();
        self.m_ack_pending.connect();
        self.m_ack_ce.connect();
        self.m_nak_valid.connect();
        self.m_nak_key.connect();
        self.m_nak_psn.connect();
        self.m_nak_stream.connect();
        self.m_nak_msg_seq.connect();
        self.m_nak_code.connect();
        self.m_nak_sport.connect();
        self.m_arm_valid.connect();
        self.m_arm_key.connect();
        self.m_fb_valid.connect();
        self.m_fb_nak.connect();
        self.m_fb_key.connect();
        self.m_fb_psn.connect();
        self.m_fb_ts.connect();
        self.m_fb_sack.connect();
        self.m_fb_ts_echo.connect();
        self.m_fb_hint.connect();
        self.m_fb_ce.connect();
        self.m_fb_pkts.connect();
        self.m_fb_code.connect();
        self.m_fb_stream.connect();
        self.m_fb_msg_seq.connect();
        self.m_data_valid.connect();
        self.m_data_conn.connect();
        self.m_msg_valid.connect();
        self.m_msg_conn.connect();
        self.m_msg_began.connect();
        self.m_msg_popped.connect();
        self.m_cpl_valid.connect();
        self.m_cpl_key.connect();
        self.m_cpl_kind.connect();
        self.m_cpl_status.connect();
        self.m_cpl_seq.connect();
        self.m_cpl_len.connect();
        self.m_cpl_imm.connect();
        self.m_cpl_id.connect();
        self.cnt_frames.connect();
        self.cnt_data.connect();
        self.cnt_dup.connect();
        self.cnt_dup_retx.connect();
        self.cnt_oow.connect();
        self.cnt_malformed.connect();
        self.cnt_bad_conn.connect();
        self.cnt_access.connect();
        self.cnt_no_recv.connect();
        self.cnt_ce.connect();
        self.cnt_bytes.connect();
        self.cnt_post_drop.connect();
        // Every input of the sub-blocks is driven by the custom Verilog.
        // parse
        self.parse.clock.connect();
        self.parse.reset.connect();
        self.parse.s_axis_tdata.connect();
        self.parse.s_axis_tkeep.connect();
        self.parse.s_axis_tvalid.connect();
        self.parse.s_axis_tlast.connect();
        self.parse.s_axis_tuser.connect();
        self.parse.cfg_port.connect();
        self.parse.m_ready.connect();
        // fifo
        self.fifo.clock.connect();
        self.fifo.reset.connect();
        self.fifo.s_axis_tdata.connect();
        self.fifo.s_axis_tkeep.connect();
        self.fifo.s_axis_tvalid.connect();
        self.fifo.s_axis_tlast.connect();
        self.fifo.verdict_valid.connect();
        self.fifo.verdict_good.connect();
        self.fifo.m_axis_tready.connect();
        // check
        self.check.clock.connect();
        self.check.reset.connect();
        self.check.conn_wr.connect();
        self.check.conn_wr_index.connect();
        self.check.conn_wr_valid_bit.connect();
        self.check.conn_wr_peer_ip.connect();
        self.check.conn_wr_paths.connect();
        self.check.conn_wr_generation.connect();
        self.check.mr_wr.connect();
        self.check.mr_wr_index.connect();
        self.check.mr_wr_valid_bit.connect();
        self.check.mr_wr_rkey.connect();
        self.check.mr_wr_base.connect();
        self.check.mr_wr_len.connect();
        self.check.mr_wr_remote_write.connect();
        self.check.mr_wr_conn.connect();
        self.check.in_valid.connect();
        self.check.in_conn.connect();
        self.check.in_path.connect();
        self.check.in_generation.connect();
        self.check.in_src_ip.connect();
        self.check.in_write.connect();
        self.check.in_rkey.connect();
        self.check.in_remote_addr.connect();
        self.check.in_offset.connect();
        self.check.in_payload_len.connect();
        self.check.in_msg_len.connect();
        // sack
        self.sack.clock.connect();
        self.sack.reset.connect();
        self.sack.in_valid.connect();
        self.sack.in_op.connect();
        self.sack.in_key.connect();
        self.sack.in_psn.connect();
        self.sack.in_commit.connect();
        // msgs
        self.msgs.clock.connect();
        self.msgs.reset.connect();
        self.msgs.in_valid.connect();
        self.msgs.in_op.connect();
        self.msgs.in_key.connect();
        self.msgs.in_seq.connect();
        self.msgs.in_len.connect();
        self.msgs.in_opcode.connect();
        self.msgs.in_imm.connect();
        self.msgs.in_payload.connect();
        self.msgs.in_fail.connect();
        self.msgs.in_apply.connect();
        // place
        self.place.clock.connect();
        self.place.reset.connect();
        self.place.desc_valid.connect();
        self.place.desc_place.connect();
        self.place.desc_addr.connect();
        self.place.desc_len.connect();
        self.place.s_axis_tdata.connect();
        self.place.s_axis_tvalid.connect();
        self.place.s_axis_tlast.connect();
        self.place.m_cmd_ready.connect();
        self.place.m_data_tready.connect();
        // ackg
        self.ackg.clock.connect();
        self.ackg.reset.connect();
        self.ackg.in_valid.connect();
        self.ackg.in_op.connect();
        self.ackg.in_key.connect();
        self.ackg.in_urgent.connect();
        self.ackg.in_ce.connect();
        self.ackg.in_ack_every.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog())
    }
}

/// Header fields the control logic uses: (wire, header, field).
const FIELDS: &[(&str, &Header, &str)] = &[
    ("h_ecn", &IPV4, "ecn"),
    ("h_src_ip", &IPV4, "src"),
    ("h_sport", &UDP, "sport"),
    ("h_opcode", &COMMON, "opcode"),
    ("h_conn", &COMMON, "conn"),
    ("h_path", &COMMON, "path"),
    ("h_psn", &COMMON, "psn"),
    ("h_ts", &COMMON, "timestamp"),
    ("h_stream", &COMMON, "stream"),
    ("h_flags", &COMMON, "flags"),
    ("h_gen", &COMMON, "generation"),
    ("h_msg_seq", &DATA, "msg_seq"),
    ("h_msg_len", &DATA, "msg_len"),
    ("h_offset", &DATA, "offset"),
    ("h_plen", &DATA, "payload_len"),
    ("h_raddr", &DATA, "remote_addr"),
    ("h_rkey", &DATA, "rkey"),
    ("h_imm", &DATA, "immediate"),
    ("h_ts_echo", &ACK, "ts_echo"),
    ("h_hint", &ACK, "rate_hint"),
    ("h_ecn_ce", &ACK, "ecn_ce"),
    ("h_pkts", &ACK, "acked_pkts"),
    ("h_nak_code", &NAK, "code"),
    ("h_nak_msg", &NAK, "msg_seq"),
];

/// The control logic and the wiring of the sub-blocks.
pub fn verilog() -> String {
    let mut s = String::new();
    let _ = writeln!(s, "localparam HB = {};", HDR_BYTES * 8);
    let _ = writeln!(s, "localparam CK = {CONN_KEY_BITS}; // connection key bits");
    let _ = writeln!(s, "localparam PB = {PATH_BITS}; // path bits");
    let _ = writeln!(s, "localparam PK = CK + PB; // path key bits");
    let _ = writeln!(s, "localparam SK = CK + 3; // stream key bits");
    let _ = writeln!(s, "localparam NKP = {}; // path keys", 1usize << PATH_KEY_BITS);
    let _ = writeln!(s, "localparam NK = {}; // stream keys", 1usize << STREAM_KEY_BITS);
    s.push_str("reg [HB-1:0] hb; // headers of the frame being processed\n");
    for (wire, h, name) in FIELDS {
        let bits = h.field(name).bits;
        let _ = writeln!(s, "wire [{}:0] {wire} = {};", bits - 1, extract(h, name, "hb"));
    }
    // The SACK bitmap in slot order (bit k: PSN k mod 256), as `sack` and
    // `retx` hold it: on the wire byte i carries slots 8i..8i+7.
    let f = ACK.field("sack");
    let first = frame_offset(&ACK) + f.byte_offset();
    let bytes: Vec<String> =
        (0..f.bits / 8).rev().map(|i| format!("hb[{}:{}]", 8 * (first + i) + 7, 8 * (first + i))).collect();
    let _ = writeln!(s, "wire [255:0] h_sack = {{{}}};", bytes.join(", "));
    let _ = writeln!(s, "wire [47:0] p_dst_mac = {};", extract(&ETH, "dst", "parse$m_hdr"));
    let _ = writeln!(s, "wire [31:0] p_dst_ip = {};", extract(&IPV4, "dst", "parse$m_hdr"));
    s.push_str(CONTROL);
    s
}

const CONTROL: &str = r#"
localparam [4:0] S_IDLE = 5'd0, S_CHK = 5'd1, S_CHK2 = 5'd2, S_SACK1 = 5'd3, S_SACK2 = 5'd4,
  S_MSG1 = 5'd5, S_MSG2 = 5'd6, S_DESC = 5'd7, S_POP = 5'd8, S_POP1 = 5'd9, S_POP2 = 5'd10,
  S_CPL = 5'd11, S_NAK = 5'd12, S_COMMIT = 5'd13, S_COMMIT1 = 5'd14, S_COMMIT2 = 5'd15,
  S_ACKG = 5'd16, S_ACKG1 = 5'd17, S_ACKG2 = 5'd18, S_ACK = 5'd19, S_FB = 5'd20,
  S_POST = 5'd21, S_POST1 = 5'd22, S_T0 = 5'd23, S_T1 = 5'd24, S_T2 = 5'd25, S_CTL = 5'd26;
localparam [1:0] VERDICT_NEW = 2'd0, VERDICT_DUP = 2'd1;
localparam [1:0] ACT_ARM = 2'd1, ACT_NOW = 2'd2;
reg [4:0] st;

// ---- decoded frame ----
wire is_write = (h_opcode == 8'h01) | (h_opcode == 8'h02);
wire is_send = h_opcode == 8'h03;
wire is_data = is_write | is_send;
wire is_nak = h_opcode == 8'h11;
wire ce = h_ecn == 2'b11;
wire [PK-1:0] pkey = {h_conn[CK-1:0], h_path[PB-1:0]};
wire [SK-1:0] skey = {h_conn[CK-1:0], h_stream[2:0]};
wire p_good = parse$m_good & (p_dst_mac == cfg_mac) & (p_dst_ip == cfg_ip);

// ---- clearing sweep of the ring state after reset ----
reg init_busy;
reg [SK-1:0] init_addr;
wire sub_ready = sack$ready & msgs$ready & ackg$ready;
wire idle = (st == S_IDLE) & ~init_busy & sub_ready;
wire take_ctl = idle & ctl_valid;
wire take_post = idle & ~ctl_valid & post_valid;
wire take_timer = idle & ~ctl_valid & ~post_valid & timer_valid;
// Parse results wait in a queue (with their verdict already given to the
// frame FIFO), so the parser takes the next frame while the control logic
// is busy with an earlier one.
reg [HB:0] hq [0:3]; // {good, headers}
reg [2:0] hq_wr;
reg [2:0] hq_rd;
wire hq_any = hq_wr != hq_rd;
wire hq_full = (hq_wr - hq_rd) == 3'd4;
wire hq_take = parse$m_valid & ~hq_full & fifo$verdict_ready;
wire [HB:0] hq_out = hq[hq_rd[1:0]];
wire take_frame = idle & ~ctl_valid & ~post_valid & ~timer_valid & hq_any;

// ---- receive rings: per stream key, base RSN and count; 16 buffers ----
reg [31:0] rb_base [0:NK-1];
reg [4:0] rb_count [0:NK-1];
reg [63:0] rb_addr [0:NK*16-1];
reg [31:0] rb_len [0:NK*16-1];
reg [31:0] rb_id [0:NK*16-1];
reg [31:0] m_base;   // registered reads of rb_base/rb_count
reg [4:0] m_count;
reg [63:0] q_addr;   // registered read of one ring entry
reg [31:0] q_len;
reg [31:0] q_id;
reg [31:0] cur_base; // the current stream's ring, kept while popping
reg [4:0] cur_count;
reg [SK-1:0] pk;     // a post being taken
reg [63:0] pa;
reg [31:0] pl;
reg [31:0] pi;
wire [SK-1:0] meta_ra = (st == S_POST) ? pk : skey;
wire ring_re = (st == S_CHK2) | (st == S_POP);
wire [CK+6:0] ring_ra = (st == S_CHK2) ? {skey, h_rkey[3:0]} : {skey, cur_base[3:0]};
wire [31:0] rsn_ahead = h_rkey - cur_base;
wire have_buf = rsn_ahead < {27'd0, cur_count};
wire [31:0] post_slot = m_base + {27'd0, m_count};

// ---- per path key: timestamp and source port of the last data packet ----
reg [31:0] ts_m [0:NKP-1];
reg [15:0] sp_m [0:NKP-1];
reg [31:0] ts_q;
reg [15:0] sp_q;
reg [PK-1:0] t_key;

// ---- per-frame decisions ----
reg acc_ok;
reg [63:0] w_addr;
reg probe;       // a SEND without a buffer: check the window only
reg [1:0] fail;  // 0 none, 1 access, 2 receive buffer too small
reg urgent;
reg d_place;
reg [63:0] d_addr;
reg f_pop;
reg f_nak;
reg f_commit;
reg f_ackg;
reg [7:0] nak_code;
reg ctl_op_q;
reg [PK-1:0] ctl_key_q;
wire [SK-1:0] ctl_skey = {ctl_key_q[PK-1:PB], ctl_key_q[2:0]};
reg [23:0] ctl_psn_q;
wire chk_ok = check$out_conn_ok & (h_path < 8'd16) & (~is_data | (h_stream < 16'd8));
wire [1:0] new_fail = is_write ? (acc_ok ? 2'd0 : 2'd1) : ((h_msg_len > q_len) ? 2'd2 : 2'd0);
wire [4:0] after_commit = f_ackg ? S_ACKG : S_IDLE;
wire [4:0] after_nak = f_commit ? S_COMMIT : after_commit;
wire [4:0] after_pop = f_nak ? S_NAK : after_nak;
wire [4:0] after_desc = f_pop ? S_POP : after_pop;

// ---- outputs held in registers ----
reg [23:0] a_cum;
reg [255:0] a_map;
reg [15:0] a_pending;
reg [15:0] a_ce;
reg [31:0] a_ts;
reg [15:0] a_sport;
reg [PK-1:0] a_key;
reg arm_v;
reg data_v;
reg [CK-1:0] data_c;
reg [PK-1:0] arm_k;
reg [1:0] c_kind;
reg [1:0] c_status;
reg [31:0] c_seq;
reg [31:0] c_len;
reg [31:0] c_imm;
reg [31:0] c_id;
reg [31:0] n_frames, n_data, n_dup, n_dup_retx, n_oow, n_malformed, n_bad_conn, n_access, n_no_recv, n_ce, n_post_drop;
reg [63:0] n_bytes;

// ---- the MAC stream feeds the parser and the frame FIFO together ----
always @(*) begin
  parse$clock = clock;
  parse$reset = reset;
  parse$cfg_port = cfg_port;
  parse$s_axis_tdata = s_axis_tdata;
  parse$s_axis_tkeep = s_axis_tkeep;
  parse$s_axis_tlast = s_axis_tlast;
  parse$s_axis_tuser = s_axis_tuser;
  parse$s_axis_tvalid = s_axis_tvalid & fifo$s_axis_tready;
  parse$m_ready = hq_take;
  fifo$clock = clock;
  fifo$reset = reset;
  fifo$s_axis_tdata = s_axis_tdata;
  fifo$s_axis_tkeep = s_axis_tkeep;
  fifo$s_axis_tlast = s_axis_tlast;
  fifo$s_axis_tvalid = s_axis_tvalid & parse$s_axis_tready;
  fifo$verdict_valid = hq_take;
  fifo$verdict_good = p_good;
  s_axis_tready = parse$s_axis_tready & fifo$s_axis_tready;
  fifo$m_axis_tready = place$s_axis_tready;
  place$clock = clock;
  place$reset = reset;
  place$s_axis_tdata = fifo$m_axis_tdata;
  place$s_axis_tvalid = fifo$m_axis_tvalid;
  place$s_axis_tlast = fifo$m_axis_tlast;
  place$desc_valid = st == S_DESC;
  place$desc_place = d_place;
  place$desc_addr = d_addr;
  place$desc_len = h_plen;
  place$m_cmd_ready = m_dma_cmd_ready;
  place$m_data_tready = m_dma_data_tready;
  m_dma_cmd_valid = place$m_cmd_valid;
  m_dma_cmd_addr = place$m_cmd_addr;
  m_dma_cmd_len = place$m_cmd_len;
  m_dma_data_tdata = place$m_data_tdata;
  m_dma_data_tkeep = place$m_data_tkeep;
  m_dma_data_tvalid = place$m_data_tvalid;
  m_dma_data_tlast = place$m_data_tlast;
end

// ---- tables ----
always @(*) begin
  check$clock = clock;
  check$reset = reset;
  check$conn_wr = conn_wr;
  check$conn_wr_index = conn_wr_index;
  check$conn_wr_valid_bit = conn_wr_valid_bit;
  check$conn_wr_peer_ip = conn_wr_peer_ip;
  check$conn_wr_paths = conn_wr_paths;
  check$conn_wr_generation = conn_wr_generation;
  check$mr_wr = mr_wr;
  check$mr_wr_index = mr_wr_index;
  check$mr_wr_valid_bit = mr_wr_valid_bit;
  check$mr_wr_rkey = mr_wr_rkey;
  check$mr_wr_base = mr_wr_base;
  check$mr_wr_len = mr_wr_len;
  check$mr_wr_remote_write = mr_wr_remote_write;
  check$mr_wr_conn = mr_wr_conn;
  check$in_valid = st == S_CHK;
  check$in_conn = h_conn;
  check$in_path = h_path;
  check$in_generation = h_gen;
  check$in_src_ip = h_src_ip;
  check$in_write = is_write;
  check$in_rkey = h_rkey;
  check$in_remote_addr = h_raddr;
  check$in_offset = h_offset;
  check$in_payload_len = h_plen;
  check$in_msg_len = h_msg_len;
end

// ---- the keyed state blocks: one operation at a time ----
always @(*) begin
  sack$clock = clock;
  sack$reset = reset;
  sack$in_valid = 1'b0;
  sack$in_op = 1'b0;
  sack$in_key = pkey;
  sack$in_psn = h_psn;
  sack$in_commit = 1'b0;
  case (st)
    S_CHK2: sack$in_valid = chk_ok & is_data;
    S_COMMIT: begin sack$in_valid = 1'b1; sack$in_commit = 1'b1; end
    S_T0: begin sack$in_valid = 1'b1; sack$in_key = t_key; end
    S_CTL: begin
      sack$in_valid = ~ctl_op_q;
      sack$in_op = 1'b1;
      sack$in_key = ctl_key_q;
      sack$in_psn = ctl_psn_q;
    end
    default: ;
  endcase
  msgs$clock = clock;
  msgs$reset = reset;
  msgs$in_valid = 1'b0;
  msgs$in_op = 2'd0;
  msgs$in_key = skey;
  msgs$in_seq = h_msg_seq;
  msgs$in_len = h_msg_len;
  msgs$in_opcode = h_opcode[1:0];
  msgs$in_imm = h_imm;
  msgs$in_payload = h_plen;
  msgs$in_fail = new_fail;
  msgs$in_apply = ~(is_send & ~have_buf);
  case (st)
    S_SACK2: msgs$in_valid = sack$out_verdict == VERDICT_NEW;
    S_POP: begin msgs$in_valid = 1'b1; msgs$in_op = 2'd1; end
    S_CTL: begin msgs$in_valid = ctl_op_q; msgs$in_op = 2'd2; msgs$in_key = ctl_skey; end
    default: ;
  endcase
  ackg$clock = clock;
  ackg$reset = reset;
  ackg$in_valid = 1'b0;
  ackg$in_op = 1'b0;
  ackg$in_key = pkey;
  ackg$in_urgent = urgent;
  ackg$in_ce = ce;
  ackg$in_ack_every = cfg_ack_every;
  case (st)
    S_ACKG: ackg$in_valid = 1'b1;
    S_T0: begin ackg$in_valid = 1'b1; ackg$in_op = 1'b1; ackg$in_key = t_key; end
    default: ;
  endcase
end

// ---- outputs ----
always @(*) begin
  ready = ~init_busy & sub_ready;
  ctl_ready = idle;
  post_ready = idle & ~ctl_valid;
  timer_ready = idle & ~ctl_valid & ~post_valid;
  m_ack_valid = st == S_ACK;
  m_ack_key = a_key;
  m_ack_cum = a_cum;
  m_ack_sack = a_map;
  m_ack_ts = a_ts;
  m_ack_sport = a_sport;
  m_ack_pending = a_pending;
  m_ack_ce = a_ce;
  m_nak_valid = st == S_NAK;
  m_nak_key = pkey;
  m_nak_psn = h_psn;
  m_nak_stream = h_stream;
  m_nak_msg_seq = h_msg_seq;
  m_nak_code = nak_code;
  m_nak_sport = h_sport;
  m_arm_valid = arm_v;
  m_arm_key = arm_k;
  m_fb_valid = st == S_FB;
  m_fb_nak = is_nak;
  m_fb_key = pkey;
  m_fb_psn = h_psn;
  m_fb_ts = h_ts;
  m_fb_sack = h_sack;
  m_fb_ts_echo = h_ts_echo;
  m_fb_hint = h_hint;
  m_fb_ce = h_ecn_ce;
  m_fb_pkts = h_pkts;
  m_fb_code = h_nak_code;
  m_fb_stream = h_stream;
  m_fb_msg_seq = h_nak_msg;
  m_cpl_valid = st == S_CPL;
  m_cpl_key = skey;
  m_cpl_kind = c_kind;
  m_cpl_status = c_status;
  m_cpl_seq = c_seq;
  m_cpl_len = c_len;
  m_cpl_imm = c_imm;
  m_cpl_id = c_id;
  cnt_frames = n_frames;
  cnt_data = n_data;
  m_data_valid = data_v;
  m_data_conn = data_c;
  m_msg_valid = msgs$out_valid;
  m_msg_conn = msgs$out_key[SK-1:3];
  m_msg_began = msgs$out_began;
  m_msg_popped = msgs$out_popped;
  cnt_dup = n_dup;
  cnt_dup_retx = n_dup_retx;
  cnt_oow = n_oow;
  cnt_malformed = n_malformed;
  cnt_bad_conn = n_bad_conn;
  cnt_access = n_access;
  cnt_no_recv = n_no_recv;
  cnt_ce = n_ce;
  cnt_bytes = n_bytes;
  cnt_post_drop = n_post_drop;
end

// ---- memories ----
always @(posedge clock) begin
  m_base <= rb_base[meta_ra];
  m_count <= rb_count[meta_ra];
  ts_q <= ts_m[t_key];
  sp_q <= sp_m[t_key];
  if (ring_re) begin
    q_addr <= rb_addr[ring_ra];
    q_len <= rb_len[ring_ra];
    q_id <= rb_id[ring_ra];
  end
  if (st == S_POST1 && m_count < 5'd16) begin
    rb_addr[{pk, post_slot[3:0]}] <= pa;
    rb_len[{pk, post_slot[3:0]}] <= pl;
    rb_id[{pk, post_slot[3:0]}] <= pi;
  end
  if (st == S_ACKG) begin
    ts_m[pkey] <= h_ts;
    sp_m[pkey] <= h_sport;
  end
  if (init_busy) begin
    rb_base[init_addr] <= 32'd0;
    rb_count[init_addr] <= 5'd0;
  end else if (st == S_POST1 && m_count < 5'd16) begin
    rb_count[pk] <= m_count + 5'd1;
  end else if (st == S_POP2 && msgs$out_popped && msgs$out_opcode == 2'd3) begin
    rb_base[skey] <= cur_base + 32'd1;
    rb_count[skey] <= cur_count - 5'd1;
  end else if (st == S_CTL && ctl_op_q) begin
    rb_base[ctl_skey] <= 32'd0;
    rb_count[ctl_skey] <= 5'd0;
  end
end

// ---- control ----
always @(posedge clock) begin
  arm_v <= 1'b0;
  data_v <= 1'b0;
  case (st)
    S_IDLE: begin
      if (take_ctl) begin
        ctl_op_q <= ctl_op;
        ctl_key_q <= ctl_key;
        ctl_psn_q <= ctl_psn;
        st <= S_CTL;
      end else if (take_post) begin
        pk <= post_key;
        pa <= post_addr;
        pl <= post_len;
        pi <= post_id;
        st <= S_POST;
      end else if (take_timer) begin
        t_key <= timer_key;
        st <= S_T0;
      end else if (take_frame) begin
        hb <= hq_out[HB-1:0];
        n_frames <= n_frames + 32'd1;
        if (hq_out[HB]) st <= S_CHK;
        else n_malformed <= n_malformed + 32'd1;
      end
    end
    S_CTL: st <= S_IDLE;
    S_POST: st <= S_POST1;
    S_POST1: begin
      if (m_count >= 5'd16) n_post_drop <= n_post_drop + 32'd1;
      st <= S_IDLE;
    end
    S_T0: st <= S_T1;
    S_T1: st <= S_T2;
    S_T2: begin
      a_cum <= sack$out_cum;
      a_map <= sack$out_bitmap;
      a_pending <= ackg$out_pending;
      a_ce <= ackg$out_ce;
      a_ts <= ts_q;
      a_sport <= sp_q;
      a_key <= t_key;
      st <= (ackg$out_action == ACT_NOW) ? S_ACK : S_IDLE;
    end
    S_CHK: st <= S_CHK2;
    S_CHK2: begin
      acc_ok <= check$out_access_ok;
      w_addr <= check$out_addr;
      cur_base <= m_base;
      cur_count <= m_count;
      d_place <= 1'b0;
      f_pop <= 1'b0;
      f_nak <= 1'b0;
      f_commit <= 1'b0;
      f_ackg <= 1'b0;
      urgent <= h_flags[1];
      if (~chk_ok) begin
        n_bad_conn <= n_bad_conn + 32'd1;
        st <= S_DESC;
      end else if (~is_data) begin
        st <= S_FB;
      end else begin
        n_data <= n_data + 32'd1;
        data_v <= 1'b1;
        data_c <= h_conn[CK-1:0];
        if (ce) n_ce <= n_ce + 32'd1;
        st <= S_SACK1;
      end
    end
    S_FB: if (m_fb_ready) st <= S_DESC;
    S_SACK1: st <= S_SACK2;
    S_SACK2: begin
      a_cum <= sack$out_cum;
      a_map <= sack$out_bitmap;
      probe <= is_send & ~have_buf;
      fail <= new_fail;
      d_addr <= is_write ? w_addr : q_addr + {32'd0, h_offset};
      if (sack$out_verdict == VERDICT_NEW) begin
        if (sack$out_hole) urgent <= 1'b1;
        st <= S_MSG1;
      end else begin
        if (sack$out_verdict == VERDICT_DUP) begin
          n_dup <= n_dup + 32'd1;
          if (h_flags[0]) n_dup_retx <= n_dup_retx + 32'd1;
        end else begin
          n_oow <= n_oow + 32'd1;
        end
        urgent <= 1'b1;
        f_ackg <= 1'b1;
        st <= S_DESC;
      end
    end
    S_MSG1: st <= S_MSG2;
    S_MSG2: begin
      if (probe & msgs$out_ok) begin
        // No receive buffer yet: not received, the sender retries.
        n_no_recv <= n_no_recv + 32'd1;
        nak_code <= 8'd2;
        f_nak <= 1'b1;
      end else begin
        f_commit <= 1'b1;
        f_ackg <= 1'b1;
        if (probe | ~msgs$out_ok | (fail != 2'd0)) begin
          n_access <= n_access + 32'd1;
          nak_code <= (fail == 2'd2 && ~probe && msgs$out_ok) ? 8'd3 : 8'd1;
          f_nak <= 1'b1;
        end else begin
          n_bytes <= n_bytes + {48'd0, h_plen};
          d_place <= 1'b1;
        end
        f_pop <= ~probe & msgs$out_ok;
      end
      st <= S_DESC;
    end
    S_DESC: if (place$desc_ready) st <= after_desc;
    S_POP: st <= S_POP1;
    S_POP1: st <= S_POP2;
    S_POP2: begin
      c_status <= msgs$out_fail;
      c_seq <= msgs$out_seq;
      c_len <= msgs$out_len;
      c_imm <= msgs$out_imm;
      if (~msgs$out_popped) begin
        st <= after_pop;
      end else if (msgs$out_opcode == 2'd3) begin
        c_kind <= 2'd1;
        c_id <= q_id;
        cur_base <= cur_base + 32'd1;
        cur_count <= cur_count - 5'd1;
        st <= S_CPL;
      end else if (msgs$out_opcode == 2'd2 && msgs$out_fail == 2'd0) begin
        c_kind <= 2'd2;
        c_id <= 32'd0;
        st <= S_CPL;
      end else begin
        st <= S_POP;
      end
    end
    S_CPL: if (m_cpl_ready) st <= S_POP;
    S_NAK: if (m_nak_ready) st <= after_nak;
    S_COMMIT: st <= S_COMMIT1;
    S_COMMIT1: st <= S_COMMIT2;
    S_COMMIT2: begin
      a_cum <= sack$out_cum;
      a_map <= sack$out_bitmap;
      st <= after_commit;
    end
    S_ACKG: st <= S_ACKG1;
    S_ACKG1: st <= S_ACKG2;
    S_ACKG2: begin
      a_pending <= ackg$out_pending;
      a_ce <= ackg$out_ce;
      a_ts <= h_ts;
      a_sport <= h_sport;
      a_key <= pkey;
      if (ackg$out_action == ACT_NOW) begin
        st <= S_ACK;
      end else begin
        arm_v <= ackg$out_action == ACT_ARM;
        arm_k <= pkey;
        st <= S_IDLE;
      end
    end
    S_ACK: if (m_ack_ready) st <= S_IDLE;
    default: st <= S_IDLE;
  endcase
  if (hq_take) begin
    hq[hq_wr[1:0]] <= {p_good, parse$m_hdr};
    hq_wr <= hq_wr + 3'd1;
  end
  if (take_frame) hq_rd <= hq_rd + 3'd1;
  if (init_busy) begin
    init_addr <= init_addr + {{(SK-1){1'b0}}, 1'b1};
    if (&init_addr) init_busy <= 1'b0;
  end
  if (reset) begin
    st <= S_IDLE;
    init_busy <= 1'b1;
    init_addr <= {SK{1'b0}};
    hq_wr <= 3'd0;
    hq_rd <= 3'd0;
    arm_v <= 1'b0;
    data_v <= 1'b0;
    n_frames <= 32'd0;
    n_data <= 32'd0;
    n_dup <= 32'd0;
    n_dup_retx <= 32'd0;
    n_oow <= 32'd0;
    n_malformed <= 32'd0;
    n_bad_conn <= 32'd0;
    n_access <= 32'd0;
    n_no_recv <= 32'd0;
    n_ce <= 32'd0;
    n_post_drop <= 32'd0;
    n_bytes <= 64'd0;
  end
end

// Header and sub-block bits this logic does not use.
wire unused_ok = &{1'b0, parse$m_error, parse$m_len, hb, post_slot, sack$out_valid, sack$out_key, sack$out_high,
  msgs$out_key[2:0], ackg$out_valid, ackg$out_key, check$out_valid, fifo$m_axis_tkeep, h_conn[15:CK],
  h_path[7:PB], h_stream[15:3], h_rkey[31:4], h_ecn[0], h_flags[7:2], q_len[0], 1'b0};
"#;
