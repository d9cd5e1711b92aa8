//! `tx_path`: the whole send side, from work requests to frames.
//! Reference: `ferroce_proto::model::Endpoint` as a sender
//! (`poll_transmit`/`transmit`, `on_ack`, `on_nak`, `on_rto`, the
//! `SendQueue` with its message window and send completions).
//!
//! ```text
//!  work requests ─► message rings ─┐            ┌─► DMA read (payload) ─┐
//!  feedback (ACK/NAK) ─► control ──┼─ retx, cc, health, spray, seg_log ─┴─► tx_build ─► MAC
//!  ACK/NAK requests (rx_path) ─────┘
//! ```
//!
//! One control FSM does one thing at a time, in this priority: connection
//! setup, ACK and NAK frames asked for by the receive side, received
//! ACKs/NAKs (`fb_*`), retransmission timeouts, releases of held PSNs,
//! work-request intake, and, when `tx_go` is high, one transmit attempt:
//! connections take turns; on a connection, queued retransmissions come
//! first (paths taking turns, lowest PSN first: `retx` TAKE, the PSN's
//! segment from `seg_log`, the header fields from its message), then new
//! data (a path from `spray` by free window, a segment of the next stream
//! with data, round-robin, within the message window of 16). A packet's
//! payload is read from host memory (`m_rd_cmd_*`, data on `s_rd_*`;
//! retransmissions re-read it) and its header goes to `tx_build`; the read
//! is asked for first, so that it overlaps the frame still being sent.
//!
//! An ACK credits the newly acknowledged PSNs' bytes to their messages (in
//! PSN order from the oldest); a message completes when it is fully sent
//! and acknowledged, in order per stream (`m_cpl_*`). A NAK ACCESS or
//! RECV_TOO_SMALL fails its message (no more of it is sent; it completes
//! with that status); NO_RECV holds the PSN and asks for a release later
//! (`m_rnr_*`; the caller answers on `release_*` after the retry delay).
//!
//! Timers are outside, as for `rx_path`: `m_rto_*` arms (or disarms) a
//! path's retransmission timer, for the base timeout `m_rto_base` (ps)
//! shifted left by `m_rto_shift` (the RTOs in a row, at most 5); `rto_*` reports that it
//! fired. Pacing is
//! outside too: `tx_go` is the permission to send (tie high for none), and
//! a transmit attempt passes over the connections whose bit of `tx_mask` is
//! low (all ones for no pacing).
//!
//! Ports (`clock`; `reset` synchronous, active high; `ready` low during
//! the clearing sweeps after reset):
//! * `cfg_*`: MAC and IPv4 address, UDP port, MTU (payload bytes), window
//!   cap, RTOs before re-pathing and retirement, the least RTO (ns), the
//!   rate hint put in ACKs; `now`: the time in ns (timestamps and `cc`).
//!
//! Each path keeps a smoothed RTT and its variation (in ps, as the model:
//! a sample per ACK from its timestamp echo, `srtt = (7 srtt + sample) / 8`,
//! `rttvar = (3 rttvar + |srtt - sample|) / 4`, the first sample giving
//! `srtt = sample`, `rttvar = sample / 2`); an RTO is
//! `max(2 srtt + 4 rttvar, cfg_rto_min)` (`cfg_rto_min` before the first
//! sample), given in ps on `m_rto_base` with each arming.
//! * `ctl_*`: op 0 sets up connection `ctl_conn` (remote number, peer MAC
//!   and IPv4 address, paths, streams, the first PSN of every path,
//!   `ctl_psn`, and the generation its packets carry, `ctl_generation`);
//!   op 1 seeds the source-port
//!   generator with `ctl_seed`.
//! * `wr_*`: a work request for stream key `wr_key` (`wr_op` 1 WRITE, 2
//!   WRITE with immediate, 3 SEND); `wr_ready` low while the stream has 16
//!   messages.
//! * `fb_*`: a received ACK or NAK (from `rx_path`), SACK in slot order.
//! * `ack_*`, `nak_*`: ACK and NAK frames to send (from `rx_path`).
//! * `rto_*`, `release_*`: a timer fired; a held PSN may go again.
//! * `tx_go`: may start a transmit attempt; `tx_done` pulses at its end,
//!   with `tx_sent` if it produced a data frame (`tx_sent_conn` its
//!   connection, `tx_sent_len` its payload bytes).
//! * `m_rd_cmd_*`, `s_rd_*`: DMA reads of payloads, data in command order.
//! * `m_axis_*`: frames to the MAC.
//! * `m_cpl_*`: send completions (`status` 0 success, 1 remote access
//!   error, 2 receive buffer too small).
//! * `pt_key` in, `pt_*` out: one path's state for the register window
//!   (source port, window, retired, data packets sent and retransmitted, CE
//!   marks echoed).
//! * `cnt_*`: the send counters of `ferroce_proto::Stats`.
//!
//! Keys: path key = {connection, path[2:0]}, stream key = {connection,
//! stream[2:0]}, as in `rx_path` (`CONN_KEY_BITS` of connection).
//!
//! State is kept in arrays read combinationally; the work request, stream
//! and path arrays are the first to move into block RAM (see docs/rtl.md).

use rust_hdl::prelude::*;

use crate::tx::cc::Cc;
use crate::emit::{CONNS, CONN_KEY_BITS, PATH_BITS, PATH_KEY_BITS, STREAM_KEY_BITS};
use crate::tx::health::PathHealth;
use crate::tx::retx::Retx;
use crate::tx::seg_log::SegLog;
use crate::tx::spray::Spray;
use crate::tx::verilog_trees::{first_set, thermometer};
use crate::tx::tx_build::TxBuild;

// `spray` chooses among 16 paths, so the path field is 4 bits.
const _: () = assert!(PATH_BITS == 4 && PATH_KEY_BITS == CONN_KEY_BITS + PATH_BITS);
const _: () = assert!(STREAM_KEY_BITS == CONN_KEY_BITS + 3);

/// Counter ports, named after `ferroce_proto::Stats`.
pub const COUNTERS: &[&str] =
    &["cnt_tx_data", "cnt_tx_retx", "cnt_tx_acks", "cnt_tx_naks", "cnt_rtos", "cnt_repaths", "cnt_naks_received"];

/// The send path.
#[derive(LogicBlock, Default)]
pub struct TxPath {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub cfg_mac: Signal<In, Bits<48>>,
    pub cfg_ip: Signal<In, Bits<32>>,
    pub cfg_port: Signal<In, Bits<16>>,
    pub cfg_mtu: Signal<In, Bits<14>>,
    pub cfg_max_cwnd: Signal<In, Bits<9>>,
    pub cfg_repath_after: Signal<In, Bits<8>>,
    pub cfg_retire_after: Signal<In, Bits<8>>,
    pub cfg_rto_min: Signal<In, Bits<32>>,
    pub cfg_hint: Signal<In, Bits<32>>,
    pub now: Signal<In, Bits<32>>,
    pub ctl_valid: Signal<In, bool>,
    pub ctl_ready: Signal<Out, bool>,
    pub ctl_op: Signal<In, bool>,
    pub ctl_conn: Signal<In, Bits<CONN_KEY_BITS>>,
    pub ctl_remote: Signal<In, Bits<16>>,
    pub ctl_mac: Signal<In, Bits<48>>,
    pub ctl_ip: Signal<In, Bits<32>>,
    pub ctl_paths: Signal<In, Bits<5>>,
    pub ctl_streams: Signal<In, Bits<4>>,
    pub ctl_psn: Signal<In, Bits<24>>,
    pub ctl_generation: Signal<In, Bits<8>>,
    pub ctl_seed: Signal<In, Bits<32>>,
    pub wr_valid: Signal<In, bool>,
    pub wr_ready: Signal<Out, bool>,
    pub wr_key: Signal<In, Bits<STREAM_KEY_BITS>>,
    pub wr_op: Signal<In, Bits<2>>,
    pub wr_len: Signal<In, Bits<32>>,
    pub wr_local: Signal<In, Bits<64>>,
    pub wr_remote: Signal<In, Bits<64>>,
    pub wr_rkey: Signal<In, Bits<32>>,
    pub wr_imm: Signal<In, Bits<32>>,
    pub wr_id: Signal<In, Bits<32>>,
    pub fb_valid: Signal<In, bool>,
    pub fb_ready: Signal<Out, bool>,
    pub fb_nak: Signal<In, bool>,
    pub fb_key: Signal<In, Bits<PATH_KEY_BITS>>,
    pub fb_psn: Signal<In, Bits<24>>,
    pub fb_sack: Signal<In, Bits<256>>,
    pub fb_ce: Signal<In, Bits<16>>,
    pub fb_code: Signal<In, Bits<8>>,
    pub fb_stream: Signal<In, Bits<16>>,
    pub fb_msg_seq: Signal<In, Bits<32>>,
    pub fb_ts: Signal<In, Bits<32>>,
    pub ack_valid: Signal<In, bool>,
    pub ack_ready: Signal<Out, bool>,
    pub ack_key: Signal<In, Bits<PATH_KEY_BITS>>,
    pub ack_cum: Signal<In, Bits<24>>,
    pub ack_sack: Signal<In, Bits<256>>,
    pub ack_ts: Signal<In, Bits<32>>,
    pub ack_sport: Signal<In, Bits<16>>,
    pub ack_pending: Signal<In, Bits<16>>,
    pub ack_ce: Signal<In, Bits<16>>,
    pub nak_valid: Signal<In, bool>,
    pub nak_ready: Signal<Out, bool>,
    pub nak_key: Signal<In, Bits<PATH_KEY_BITS>>,
    pub nak_psn: Signal<In, Bits<24>>,
    pub nak_stream: Signal<In, Bits<16>>,
    pub nak_msg_seq: Signal<In, Bits<32>>,
    pub nak_code: Signal<In, Bits<8>>,
    pub nak_sport: Signal<In, Bits<16>>,
    pub rto_valid: Signal<In, bool>,
    pub rto_ready: Signal<Out, bool>,
    pub rto_key: Signal<In, Bits<PATH_KEY_BITS>>,
    pub release_valid: Signal<In, bool>,
    pub release_ready: Signal<Out, bool>,
    pub release_key: Signal<In, Bits<PATH_KEY_BITS>>,
    pub release_psn: Signal<In, Bits<24>>,
    pub tx_go: Signal<In, bool>,
    pub tx_mask: Signal<In, Bits<CONNS>>,
    pub tx_done: Signal<Out, bool>,
    pub tx_sent: Signal<Out, bool>,
    pub tx_sent_conn: Signal<Out, Bits<CONN_KEY_BITS>>,
    pub tx_sent_len: Signal<Out, Bits<14>>,
    pub m_rto_valid: Signal<Out, bool>,
    pub m_rto_key: Signal<Out, Bits<PATH_KEY_BITS>>,
    pub m_rto_arm: Signal<Out, bool>,
    pub m_rto_shift: Signal<Out, Bits<3>>,
    pub m_rto_base: Signal<Out, Bits<56>>,
    pub m_rnr_valid: Signal<Out, bool>,
    pub m_rnr_key: Signal<Out, Bits<PATH_KEY_BITS>>,
    pub m_rnr_psn: Signal<Out, Bits<24>>,
    pub m_rd_cmd_valid: Signal<Out, bool>,
    pub m_rd_cmd_ready: Signal<In, bool>,
    pub m_rd_cmd_addr: Signal<Out, Bits<64>>,
    pub m_rd_cmd_len: Signal<Out, Bits<16>>,
    pub s_rd_tdata: Signal<In, Bits<64>>,
    pub s_rd_tkeep: Signal<In, Bits<8>>,
    pub s_rd_tvalid: Signal<In, bool>,
    pub s_rd_tready: Signal<Out, bool>,
    pub s_rd_tlast: Signal<In, bool>,
    pub m_axis_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tvalid: Signal<Out, bool>,
    pub m_axis_tready: Signal<In, bool>,
    pub m_axis_tlast: Signal<Out, bool>,
    pub m_cpl_valid: Signal<Out, bool>,
    pub m_cpl_ready: Signal<In, bool>,
    pub m_cpl_key: Signal<Out, Bits<STREAM_KEY_BITS>>,
    pub m_cpl_status: Signal<Out, Bits<2>>,
    pub m_cpl_seq: Signal<Out, Bits<32>>,
    pub m_cpl_len: Signal<Out, Bits<32>>,
    pub m_cpl_id: Signal<Out, Bits<32>>,
    pub m_cpl_imm: Signal<Out, Bits<32>>,
    pub m_cpl_has_imm: Signal<Out, bool>,
    pub pt_key: Signal<In, Bits<PATH_KEY_BITS>>,
    pub pt_sport: Signal<Out, Bits<16>>,
    pub pt_cwnd: Signal<Out, Bits<9>>,
    pub pt_retired: Signal<Out, bool>,
    pub pt_sent: Signal<Out, Bits<32>>,
    pub pt_retx: Signal<Out, Bits<32>>,
    pub pt_ecn: Signal<Out, Bits<32>>,
    pub pt_srtt: Signal<Out, Bits<32>>,
    pub cnt_tx_data: Signal<Out, Bits<32>>,
    pub cnt_tx_retx: Signal<Out, Bits<32>>,
    pub cnt_tx_acks: Signal<Out, Bits<32>>,
    pub cnt_tx_naks: Signal<Out, Bits<32>>,
    pub cnt_rtos: Signal<Out, Bits<32>>,
    pub cnt_repaths: Signal<Out, Bits<32>>,
    pub cnt_naks_received: Signal<Out, Bits<32>>,
    retx: Retx<PATH_KEY_BITS>,
    cc: Cc<PATH_KEY_BITS>,
    health: PathHealth<PATH_KEY_BITS>,
    spray: Spray,
    seglog: SegLog<{ PATH_KEY_BITS + 8 }>,
    build: TxBuild,
    cbuild: TxBuild,
}

macro_rules! connect_all {
    ($($sig:expr),* $(,)?) => { $( $sig.connect(); )* };
}

impl Logic for TxPath {
    // Verified in Verilator against the model; rust-hdl's simulator is not
    // used for this block.
    fn update(&mut self) {}

    fn connect(&mut self) {
        connect_all!(
            self.ready,
            self.ctl_ready,
            self.wr_ready,
            self.fb_ready,
            self.ack_ready,
            self.nak_ready,
            self.rto_ready,
            self.release_ready,
            self.tx_done,
            self.tx_sent,
            self.tx_sent_conn,
            self.tx_sent_len,
            self.m_rto_valid,
            self.m_rto_key,
            self.m_rto_arm,
            self.m_rto_shift,
            self.m_rnr_valid,
            self.m_rnr_key,
            self.m_rnr_psn,
            self.m_rd_cmd_valid,
            self.m_rd_cmd_addr,
            self.m_rd_cmd_len,
            self.s_rd_tready,
            self.m_axis_tdata,
            self.m_axis_tkeep,
            self.m_axis_tvalid,
            self.m_axis_tlast,
            self.m_cpl_valid,
            self.m_cpl_key,
            self.m_cpl_status,
            self.m_cpl_seq,
            self.m_cpl_len,
            self.m_cpl_id,
            self.m_cpl_imm,
            self.m_cpl_has_imm,
            self.pt_sport,
            self.pt_cwnd,
            self.pt_retired,
            self.pt_sent,
            self.pt_retx,
            self.pt_ecn,
            self.pt_srtt,
            self.m_rto_base,
            self.cnt_tx_data,
            self.cnt_tx_retx,
            self.cnt_tx_acks,
            self.cnt_tx_naks,
            self.cnt_rtos,
            self.cnt_repaths,
            self.cnt_naks_received,
            // Every input of the sub-blocks is driven by the custom Verilog.
            self.retx.clock,
            self.retx.reset,
            self.retx.in_valid,
            self.retx.in_op,
            self.retx.in_key,
            self.retx.in_psn,
            self.retx.in_sack,
            self.cc.clock,
            self.cc.reset,
            self.cc.in_valid,
            self.cc.in_op,
            self.cc.in_key,
            self.cc.in_newly,
            self.cc.in_ce,
            self.cc.in_outstanding,
            self.cc.in_srtt,
            self.cc.in_now,
            self.cc.in_max,
            self.health.clock,
            self.health.reset,
            self.health.in_valid,
            self.health.in_op,
            self.health.in_key,
            self.health.in_newly,
            self.health.in_lost,
            self.health.in_repath_after,
            self.health.in_retire_after,
            self.spray.clock,
            self.spray.reset,
            self.spray.pick_valid,
            self.spray.present,
            self.spray.span_ok,
            self.spray.retired,
            self.spray.free,
            self.spray.rr,
            self.spray.seed_valid,
            self.spray.seed,
            self.spray.port_req,
            self.spray.port_avoid,
            self.seglog.clock,
            self.seglog.wr_valid,
            self.seglog.wr_addr,
            self.seglog.wr_entry,
            self.seglog.rd_addr,
        );
        self.build.connect_inputs();
        self.cbuild.connect_inputs();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog())
    }
}

/// The control logic (`tx_path.v`) with its generated trees.
pub fn verilog() -> String {
    let trees = [
        thermometer("start", "start_slot"),
        "wire [255:0] n_hi = newly & ge_start;\nwire [255:0] n_lo = newly & ~ge_start;\n".to_string(),
        first_set("nh", "n_hi"),
        first_set("nl", "n_lo"),
    ]
    .concat();
    let cbuild: String =
        crate::tx::tx_build::PORTS.iter().map(|(p, _, _)| format!("  cbuild${p} = build${p};\n")).collect();
    include_str!("tx_path.v")
        .replace("@CB@", &CONN_KEY_BITS.to_string())
        .replace("@PB@", &PATH_BITS.to_string())
        .replace("// @NEWLY_TREES@\n", &trees)
        .replace("// @CBUILD@\n", &cbuild)
}
