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
//! Data frames have their own builder (`build`), ACK and NAK frames
//! theirs (`cbuild`), and between frames an ACK or NAK frame goes first;
//! a build with `EngineConfig::one_frame_builder` makes every frame in
//! `build`, in the order the control logic decides them.
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
//! shifted left by `m_rto_shift` (the RTOs in a row, at most `cfg_max_backoff`); `rto_*`
//! reports that it fired. Pacing is
//! outside too: `tx_go` is the permission to send (tie high for none), and
//! a transmit attempt passes over the connections whose bit of `tx_mask` is
//! low (all ones for no pacing).
//!
//! Ports (`clock`; `reset` synchronous, active high; `ready` low during
//! the clearing sweeps after reset):
//! * `cfg_*`: MAC and IPv4 address, UDP port, MTU (payload bytes), window
//!   cap, RTOs before re-pathing and retirement, the least RTO (ns), the
//!   rate hint put in ACKs; from `control.recovery`, the RTO's doublings at
//!   most (`cfg_max_backoff`), the re-path threshold (`cfg_loss_shift`:
//!   an epoch's losses << this >= its packets) and whether ECN echoes cut
//!   the paths' windows (`cfg_path_ecn_cut`); `now`: the time in ns
//!   (timestamps and `cc`).
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
//! * `fb_*`: a received ACK or NAK (from `rx_path`), its SACK bitmap by
//!   slot of this build's window (PSN mod W: `rx_path` folds the ACK's
//!   256-bit field onto the W slots; the bits at and above W ignored).
//! * `ack_*`, `nak_*`: ACK and NAK frames to send (from `rx_path`); the
//!   ACK's bitmap by slot of this build's window (PSN mod W, the bits at
//!   and above W ignored), put in wire order with `ack_cum` here.
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
//!   marks echoed), from a snapshot of that path; `pt_valid`: the snapshot
//!   is of `pt_key`'s path. When `pt_key` changes, `pt_valid` falls at once
//!   and the control logic loads the new path from its tables as its next
//!   operation (before ACKs and feedback; three cycles), after which every
//!   change of the path is copied into the snapshot a cycle later.
//! * `cnt_*`: the send counters of `ferroce_proto::Stats`.
//!
//! Keys: path key = {connection, path[2:0]}, stream key = {connection,
//! stream[2:0]}, as in `rx_path` (`CONN_KEY_BITS` of connection).
//!
//! # State and its block RAM
//!
//! Every table is a rust-hdl `RAM` (one registered read port, one write
//! port): nothing is read combinationally by a variable index. The control
//! logic works on one connection at a time and keeps what it works on in
//! registers, its context: the read address of each table is the key the
//! next cycle works on (`*_n`), so the data are there in the state after a
//! key changes and are copied into the context then (the `cap_*` states);
//! every change is made to the context and written through to the table in
//! the same cycle. A table is read again only after its last write has
//! landed (two cycles), which the states' order guarantees.
//!
//! * `conns` ([`ConnCtx`]), per connection: peer, remote number,
//!   generation, paths, streams and the round-robin starts.
//! * `lane_p[i]` ([`PathSum`]), one table per path number, per connection:
//!   window, packets out, queued retransmissions, may send, retired, timer
//!   armed. One read gives all paths of a connection, for the choices
//!   (queued paths, `spray`'s inputs).
//! * `lane_s[i]` ([`StreamState`]), one table per stream number, per
//!   connection: messages in the ring, segmentation point, next receive
//!   sequence number.
//! * `paths` ([`PathDetail`]), per path key: source port, next PSN, RTO
//!   run, RTT estimates, counters. The register window reads one path,
//!   the one `pt_key` selects, from a snapshot in flip-flops ([`Window`]):
//!   a table of every path's copy (a second read port of `paths` and
//!   `lane_p`) cost about 400 LUT4 equivalents in `ecp5-25`, where a path
//!   is looked at once per host read.
//! * `msg_desc` ([`MsgDesc`]) and `msg_prog` ([`MsgProg`]), per message
//!   slot {stream key, seq mod 16}: the work request, and its bytes
//!   acknowledged and failure.
//!
//! A work request is taken in two cycles (its stream's ring is read
//! first); when the ring is full the request waits, and is not looked at
//! again until a completion frees a slot or `wr_valid` falls.

use rust_hdl::prelude::*;

use super::cfg::{
    CONNS, CONN_KEY_BITS, HALF_RATE_CRC, ONE_FRAME_BUILDER, PATH_BITS, PATH_KEY_BITS, SERIAL_CRC_TAIL, STREAM_BITS, STREAM_KEY_BITS,
    CLEAN_REPAIRS, CONN_WINDOW, RACK, TAIL_PROBES, WINDOW, WINDOW_SLOT_BITS,
};
use super::repair::Repair;
use super::rx_path::{PathKey, StreamKey};
use super::spray::{Spray, FREE_BITS, PATHS};
use crate::blocks::trees::{Decode256, FirstSet256, Thermo256};
use crate::blocks::{index_bits, low_ones, HdlDefault, HdlStruct};
use crate::rx::sack::SackWire;
use crate::tx::cc::Cc;
use crate::tx::crc_append::CrcAppend;
use crate::tx::health::PathHealth;
use crate::tx::retx::{op as retx_op, Retx, OP_BITS};
use crate::tx::rtt::{Est, ProbeTime, Rto, Rtt};
use crate::tx::seg_log::SegLog;
use crate::tx::tx_build::TxBuild;
use ferroce_proto::model::Recovery;
use ferroce_proto::params::{
    CWND_BITS, HEALTH_EPOCH_BITS, HEALTH_OP_ACK, HEALTH_OP_RTO, HEALTH_OP_SENT, HEALTH_RTO_BITS, MSG_WINDOW,
};
use ferroce_proto::wire::{NakCode, Opcode};

const _: () = assert!(PATHS == 1 << PATH_BITS && STREAM_BITS <= 3 && MSG_WINDOW == 16);

/// Counter ports, named after `ferroce_proto::Stats`.
pub const COUNTERS: &[&str] =
    &["cnt_tx_data", "cnt_tx_retx", "cnt_tx_acks", "cnt_tx_naks", "cnt_rtos", "cnt_repaths", "cnt_naks_received", "cnt_tail_probes"];

/// The least tail-probe timeout (ns): the model's (`Recovery::probe_min`,
/// which `Recovery::register` holds to it).
const PROBE_MIN_NS: u64 = Recovery::v0().probe_min / 1000;

/// The least reordering window of `rack` (ns): the model's
/// (`Recovery::reo_min`, which `Recovery::register` holds to it).
const REO_MIN_NS: u64 = Recovery::v0().reo_min / 1000;

/// Streams per connection.
const STREAMS: usize = 1 << STREAM_BITS;
/// One past the last element of a chain over the paths.
const PATHS_END: usize = PATHS + 1;
/// One past the last element of a chain over the streams.
const STREAMS_END: usize = STREAMS + 1;
/// Bits of a message slot index (seq mod `MSG_WINDOW`).
const SLOT_BITS: usize = 4;
/// Bits of a stream's message count (0..=16).
const COUNT_BITS: usize = SLOT_BITS + 1;
/// Bits of a message slot address {stream key, slot}.
const MSG_ADDR_BITS: usize = STREAM_KEY_BITS + SLOT_BITS;
/// Bits of a send-log address {path key, PSN mod WINDOW}.
const LOG_ADDR_BITS: usize = PATH_KEY_BITS + WINDOW_SLOT_BITS;
/// The bits of `fb_stream` above a stream number (a NAK for a stream
/// this build does not have fails nothing).
const FB_STREAM_HI: usize = 16 - STREAM_BITS;
/// Bits of a scan count (0..=CONNS).
const SCAN_BITS: usize = CONN_KEY_BITS + 1;

/// A connection's settings and round-robin starts.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ConnCtx {
    pub mac: Bits<48>,
    pub ip: Bits<32>,
    pub remote: Bits<16>,
    pub generation: Bits<8>,
    pub paths: Bits<{ PATH_BITS + 1 }>,
    pub streams: Bits<{ STREAM_BITS + 1 }>,
    /// New data: the path to prefer next.
    pub prr: Bits<PATH_BITS>,
    /// Retransmissions: the path to look at next.
    pub rrr: Bits<PATH_BITS>,
    /// The stream to look at next.
    pub srr: Bits<STREAM_BITS>,
    /// Tail probes: the connection's round-trip estimate (from every
    /// path's ACKs, as a path's), its probes without progress (at most 7)
    /// and whether its probe timer is armed.
    pub has: bool,
    pub srtt: Est,
    pub rttvar: Est,
    pub probes: Bits<3>,
    pub parmed: bool,
    /// `rack`: the connection's least RTT sample (ns; valid with `has`)
    /// and the latest send time (ns) of a packet acknowledged for the
    /// first time (a resent one only if its ACK came at least that RTT
    /// after the resend).
    pub min_rtt: Bits<32>,
    pub rack_ts: Bits<32>,
    /// `rack`: no candidate of the connection was sent before this time
    /// (ns): the least send time of the candidates the last walk passed
    /// over as not lost, or the time of that walk (or of the set-up) when
    /// it met none. A walk is only needed when rack_ts is more than the
    /// reordering window after it (or the floor is out of range).
    pub rack_floor: Bits<32>,
    /// The connection window (`conn_window`): the window, packets
    /// acknowledged since it last grew, when it was last halved (ns), and
    /// the receiver's latest rate hint (Mb/s, at most the line rate; 0
    /// before the first).
    pub cwnd: Bits<CW_BITS>,
    pub credit: Bits<CW_BITS>,
    pub last_cut: Bits<32>,
    pub hint: Bits<32>,
}

/// What the choices need of a path.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct PathSum {
    pub cwnd: Bits<CWND_BITS>,
    pub out: Bits<CWND_BITS>,
    pub queued: bool,
    pub can: bool,
    pub retired: bool,
    pub armed: bool,
    /// Clean-route repairs (`clean_repairs`): the path's losses in its
    /// epoch and timeouts in a row (`health`'s, copied with each of its
    /// results; constant 0 in a build without them).
    pub lost: Bits<HEALTH_EPOCH_BITS>,
    pub rtos: Bits<HEALTH_RTO_BITS>,
}

/// The rest of a path's state.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct PathDetail {
    pub sport: Bits<16>,
    pub next_psn: Bits<24>,
    /// RTOs in a row, at most 5: the timer's backoff.
    pub run: Bits<3>,
    pub has: bool,
    pub srtt: Est,
    pub rttvar: Est,
    pub sent: Bits<32>,
    pub retx: Bits<32>,
    pub ecn: Bits<32>,
    /// `rack`: the latest send time (ns) of a packet of this path
    /// acknowledged for the first time (by the connection's rule), for
    /// `path_rack`.
    pub rack_ts: Bits<32>,
}

/// A path's register window.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Window {
    pub sport: Bits<16>,
    pub cwnd: Bits<CWND_BITS>,
    pub retired: bool,
    pub sent: Bits<32>,
    pub retx: Bits<32>,
    pub ecn: Bits<32>,
    pub srtt_ns: Bits<32>,
}

/// A stream's message ring: `count` messages from sequence number `base`,
/// the segmentation point `seg` messages in at byte `off`, and the receive
/// sequence number of its next SEND.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct StreamState {
    pub count: Bits<COUNT_BITS>,
    pub seg: Bits<COUNT_BITS>,
    pub base: Bits<32>,
    pub off: Bits<32>,
    pub rsn: Bits<32>,
}

/// A work request in its slot (`rkey` is the receive sequence number for
/// a SEND).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct MsgDesc {
    pub op: Bits<2>,
    pub len: Bits<32>,
    pub local: Bits<64>,
    pub remote: Bits<64>,
    pub rkey: Bits<32>,
    pub imm: Bits<32>,
    pub id: Bits<32>,
}

/// A message's progress: bytes acknowledged, failure, and its length.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct MsgProg {
    pub acked: Bits<32>,
    pub fail: Bits<2>,
    pub len: Bits<32>,
}

/// A message slot's address.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct MsgAddr {
    pub slot: Bits<SLOT_BITS>,
    pub key: Bits<STREAM_KEY_BITS>,
}

/// A send-log address.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct LogAddr {
    pub slot: Bits<WINDOW_SLOT_BITS>,
    pub key: Bits<PATH_KEY_BITS>,
}

/// A send-log entry (`seg_log::ENTRY_BITS`).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct LogEntry {
    pub stream: Bits<STREAM_BITS>,
    pub seq: Bits<32>,
    pub off: Bits<32>,
    pub len: Bits<14>,
}
/// Bits of a [`LogEntry`].
const LOG_ENTRY_BITS: usize = <LogEntry as Synth>::BITS;
/// Bits of a place in a [`LogEntry`].
const LE_AT_BITS: usize = index_bits(LOG_ENTRY_BITS);

/// Zero extensions.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Z5to32 {
    pub lo: Bits<COUNT_BITS>,
    pub hi: Bits<{ 32 - COUNT_BITS }>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Z14to32 {
    pub lo: Bits<14>,
    pub hi: Bits<18>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Z16to32 {
    pub lo: Bits<16>,
    pub hi: Bits<16>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Z32to64 {
    pub lo: Bits<32>,
    pub hi: Bits<32>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ZPath {
    pub lo: Bits<PATH_BITS>,
    pub hi: Bits<1>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ZStream {
    pub lo: Bits<STREAM_BITS>,
    pub hi: Bits<1>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ZConn {
    pub lo: Bits<CONN_KEY_BITS>,
    pub hi: Bits<1>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ZStream16 {
    pub lo: Bits<STREAM_BITS>,
    pub hi: Bits<{ 16 - STREAM_BITS }>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ZPath8 {
    pub lo: Bits<PATH_BITS>,
    pub hi: Bits<{ 8 - PATH_BITS }>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ZOp8 {
    pub lo: Bits<2>,
    pub hi: Bits<6>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ZLen16 {
    pub lo: Bits<14>,
    pub hi: Bits<2>,
}
/// One path's free window at its place in `spray`'s input.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ZFree {
    pub lo: Bits<FREE_BITS>,
    pub hi: Bits<{ FREE_BITS * (PATHS - 1) }>,
}
/// The connection mask twice, for a rotation.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Twice {
    pub lo: Bits<CONNS>,
    pub hi: Bits<CONNS>,
}
/// A connection mask widened for the 256-bit tree.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ZConns {
    pub lo: Bits<CONNS>,
    pub hi: Bits<{ 256 - CONNS }>,
}

/// Bits of a connection window, its packets out and its cap (a path's
/// window bits plus the path number's: all paths' windows at their cap).
pub const CW_BITS: usize = CWND_BITS + PATH_BITS;
/// Bits of the connection window's products and byte counts (a 32-bit
/// hint times the 24-bit scale).
pub const CW_PROD_BITS: usize = 56;
/// Bits of `control.window_scale`, and its fraction bits.
const CW_SCALE_BITS: usize = Recovery::WINDOW_SCALE_BITS as usize;
const CW_SCALE_FRAC: u64 = Recovery::WINDOW_SCALE_FRAC as u64;
/// The connection window's start, before its first rate hint
/// (`Recovery::window_cap` with no hint; `Recovery::register` holds
/// `start_window` to it).
const CW_START: u64 = if Recovery::RTL_START_WINDOW > 1 { Recovery::RTL_START_WINDOW as u64 } else { 1 };
/// A data frame's bytes on the wire beyond its payload (the model's
/// `frame_bytes`).
const FRAME_OVERHEAD: u64 = (ferroce_proto::wire::DATA_FRAME_OVERHEAD + ferroce_proto::wire::WIRE_OVERHEAD) as u64;

/// A connection count zero-extended to the window's product width.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct CwOutZ {
    pub lo: Bits<CW_BITS>,
    pub hi: Bits<{ CW_PROD_BITS - CW_BITS }>,
}
/// A frame's wire bytes zero-extended to the window's product width.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct CwFrameZ {
    pub lo: Bits<14>,
    pub hi: Bits<{ CW_PROD_BITS - 14 }>,
}
/// A rate hint zero-extended to the window's product width.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct CwHintZ {
    pub lo: Bits<32>,
    pub hi: Bits<{ CW_PROD_BITS - 32 }>,
}
/// The window's scale zero-extended to the product width.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct CwScaleZ {
    pub lo: Bits<CW_SCALE_BITS>,
    pub hi: Bits<{ CW_PROD_BITS - CW_SCALE_BITS }>,
}

/// hint x scale, both operands and the product at one width.
impl std::ops::Mul<CwScaleZ> for CwHintZ {
    type Output = Bits<CW_PROD_BITS>;

    fn mul(self, rhs: CwScaleZ) -> Bits<CW_PROD_BITS> {
        let a = Bits::<CW_PROD_BITS>::from(self).to_u64() as u128;
        let b = Bits::<CW_PROD_BITS>::from(rhs).to_u64() as u128;
        (((a * b) & ((1u128 << CW_PROD_BITS) - 1)) as u64).into()
    }
}
/// A path's count zero-extended to a connection's.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct CwPathZ {
    pub lo: Bits<CWND_BITS>,
    pub hi: Bits<PATH_BITS>,
}
/// The window cap and the path count, zero-extended to 16 bits for their
/// product (rust-hdl's `Bits` multiplies 16 x 16).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct CwMaxZ {
    pub lo: Bits<CWND_BITS>,
    pub hi: Bits<{ 16 - CWND_BITS }>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct CwPathsZ {
    pub lo: Bits<{ PATH_BITS + 1 }>,
    pub hi: Bits<{ 16 - PATH_BITS - 1 }>,
}

/// window cap x paths, both operands and the product at 16 bits.
impl std::ops::Mul<CwPathsZ> for CwMaxZ {
    type Output = Bits<16>;

    fn mul(self, rhs: CwPathsZ) -> Bits<16> {
        let a = Bits::<16>::from(self).to_u64();
        let b = Bits::<16>::from(rhs).to_u64();
        ((a * b) & 0xffff).into()
    }
}

/// packets x frame bytes, both operands and the product at one width (as
/// `pacer`'s product: `#[hdl_gen]` writes `a * b`, exact at equal widths;
/// the operands' zero high bits let synthesis shrink it to 12 x 14).
impl std::ops::Mul<CwFrameZ> for CwOutZ {
    type Output = Bits<CW_PROD_BITS>;

    fn mul(self, rhs: CwFrameZ) -> Bits<CW_PROD_BITS> {
        let a = Bits::<CW_PROD_BITS>::from(self).to_u64() as u128;
        let b = Bits::<CW_PROD_BITS>::from(rhs).to_u64() as u128;
        (((a * b) & ((1u128 << CW_PROD_BITS) - 1)) as u64).into()
    }
}

/// The connection window (`Recovery::conn_window`; the model's
/// `Endpoint::conn_free` and the connection's `cc::Window`), combinational:
/// whether the connection may send a new packet, and its window after an
/// ACK.
///
/// It may when its packets out (`out`, over all its paths) are below both
/// its window and its cap: before the first rate hint (`hint` 0) the
/// start window, after it `ceil(B / F) + 2` packets, where `F` is a data
/// frame's wire bytes (`mtu` plus the headers) and `B` the bytes of a base
/// RTT at the hint with a quarter's headroom, `floor(hint x scale /
/// 2^16)` (`scale`: `control.window_scale`; `Recovery::window_cap`).
/// `out < ceil(B / F) + 2` is taken as `out < 2` or `(out - 2) F < B`,
/// which needs no division.
///
/// After an ACK that newly acknowledged `newly` packets and echoed `ce`
/// marks at `now` (ns), with the connection's smoothed RTT `srtt` (ns) and
/// `out` counted after the ACK: `cc`'s AIMD at the connection's cap `max`
/// (the window cap times its paths).
#[derive(LogicBlock, HdlDefault)]
pub struct ConnWin {
    pub cwnd: Signal<In, Bits<CW_BITS>>,
    pub credit: Signal<In, Bits<CW_BITS>>,
    pub last_cut: Signal<In, Bits<32>>,
    pub hint: Signal<In, Bits<32>>,
    pub scale: Signal<In, Bits<CW_SCALE_BITS>>,
    pub out: Signal<In, Bits<CW_BITS>>,
    pub mtu: Signal<In, Bits<14>>,
    pub newly: Signal<In, Bits<CWND_BITS>>,
    pub ce: Signal<In, Bits<16>>,
    pub now: Signal<In, Bits<32>>,
    pub srtt: Signal<In, Bits<32>>,
    pub max: Signal<In, Bits<CW_BITS>>,
    pub room: Signal<Out, bool>,
    pub cwnd_next: Signal<Out, Bits<CW_BITS>>,
    pub credit_next: Signal<Out, Bits<CW_BITS>>,
    pub cut_next: Signal<Out, Bits<32>>,
    // the cap
    out_m2: Signal<Local, CwOutZ>,
    frame: Signal<Local, CwFrameZ>,
    spent: Signal<Local, Bits<CW_PROD_BITS>>,
    hz: Signal<Local, CwHintZ>,
    sz: Signal<Local, CwScaleZ>,
    hs: Signal<Local, Bits<CW_PROD_BITS>>,
    bytes: Signal<Local, Bits<CW_PROD_BITS>>,
    cap_ok: Signal<Local, bool>,
    // the AIMD
    marked: Signal<Local, bool>,
    since: Signal<Local, Bits<32>>,
    out1: Signal<Local, Bits<CW_BITS>>,
    limit: Signal<Local, Bits<CW_BITS>>,
    half: Signal<Local, Bits<CW_BITS>>,
    newly_z: Signal<Local, CwPathZ>,
    sum: Signal<Local, Bits<CW_BITS>>,
    #[constant(CW_START)]
    start: Constant<Bits<CW_BITS>>,
    #[constant(2u64)]
    two: Constant<Bits<CW_BITS>>,
    #[constant(1u64)]
    one: Constant<Bits<CW_BITS>>,
    #[constant(0u64)]
    zero: Constant<Bits<CW_BITS>>,
    #[constant(FRAME_OVERHEAD)]
    overhead: Constant<Bits<14>>,
    #[constant(0u64)]
    zero_out_hi: Constant<Bits<{ CW_PROD_BITS - CW_BITS }>>,
    #[constant(0u64)]
    zero_frame_hi: Constant<Bits<{ CW_PROD_BITS - 14 }>>,
    #[constant(0u64)]
    zero_hint_hi: Constant<Bits<{ CW_PROD_BITS - 32 }>>,
    #[constant(0u64)]
    zero_scale_hi: Constant<Bits<{ CW_PROD_BITS - CW_SCALE_BITS }>>,
    #[constant(CW_SCALE_FRAC)]
    scale_frac: Constant<Bits<8>>,
    #[constant(0u64)]
    zero_path_hi: Constant<Bits<PATH_BITS>>,
}

impl Logic for ConnWin {
    #[hdl_gen]
    fn update(&mut self) {
        // B = floor(hint x scale / 2^16) bytes
        self.hz.next.lo = self.hint.val();
        self.hz.next.hi = self.zero_hint_hi.val();
        self.sz.next.lo = self.scale.val();
        self.sz.next.hi = self.zero_scale_hi.val();
        self.hs.next = self.hz.val() * self.sz.val();
        self.bytes.next = self.hs.val() >> self.scale_frac.val();
        // (out - 2) x F, read only when out >= 2
        self.out_m2.next.lo = self.out.val() - self.two.val();
        self.out_m2.next.hi = self.zero_out_hi.val();
        self.frame.next.lo = self.mtu.val() + self.overhead.val();
        self.frame.next.hi = self.zero_frame_hi.val();
        self.spent.next = self.out_m2.val() * self.frame.val();
        if !self.hint.val().any() {
            self.cap_ok.next = self.out.val() < self.start.val();
        } else {
            self.cap_ok.next = (self.out.val() < self.two.val()) | (self.spent.val() < self.bytes.val());
        }
        self.room.next = (self.out.val() < self.cwnd.val()) & self.cap_ok.val();

        // cc's AIMD on the connection's counts
        self.marked.next = self.ce.val().any();
        self.since.next = self.now.val() - self.last_cut.val();
        self.out1.next = self.out.val() + self.one.val();
        self.limit.next = self.out1.val();
        if self.cwnd.val() < self.out1.val() {
            self.limit.next = self.cwnd.val();
        }
        self.half.next = self.limit.val() >> 1;
        self.newly_z.next.lo = self.newly.val();
        self.newly_z.next.hi = self.zero_path_hi.val();
        self.sum.next = self.credit.val() + Bits::<CW_BITS>::from(self.newly_z.val());
        self.cwnd_next.next = self.cwnd.val();
        self.credit_next.next = self.credit.val();
        self.cut_next.next = self.last_cut.val();
        if self.marked.val() {
            if self.since.val() > self.srtt.val() {
                self.cut_next.next = self.now.val();
                self.credit_next.next = self.zero.val();
                if self.half.val().any() {
                    self.cwnd_next.next = self.half.val();
                } else {
                    self.cwnd_next.next = self.one.val();
                }
            }
        } else if self.newly.val().any() {
            if self.sum.val() >= self.cwnd.val() {
                self.credit_next.next = self.zero.val();
                if self.cwnd.val() >= self.max.val() {
                    self.cwnd_next.next = self.max.val();
                } else {
                    self.cwnd_next.next = self.cwnd.val() + self.one.val();
                }
            } else {
                self.credit_next.next = self.sum.val();
            }
        }
    }
}

/// What the choices read of one path's [`PathSum`]: its flags, and its free
/// window (`cwnd - out`, or 0) at bit `at` of `spray`'s input
/// (combinational).
#[derive(LogicBlock, HdlDefault)]
pub struct PathView {
    pub sum: Signal<In, PathSum>,
    pub at: Signal<In, Bits<8>>,
    pub queued: Signal<Out, bool>,
    pub can: Signal<Out, bool>,
    pub retired: Signal<Out, bool>,
    /// Packets outstanding.
    pub busy: Signal<Out, bool>,
    pub free: Signal<Out, Bits<{ FREE_BITS * PATHS }>>,
    /// Packets outstanding, at a connection count's width.
    pub out_z: Signal<Out, Bits<CW_BITS>>,
    /// The path's epoch losses at bit `lost_at` of `repair`'s input.
    pub lost_at: Signal<In, Bits<8>>,
    pub lost: Signal<Out, Bits<{ HEALTH_EPOCH_BITS * PATHS }>>,
    lost_z: Signal<Local, ZLost>,
    lost_b: Signal<Local, Bits<{ HEALTH_EPOCH_BITS * PATHS }>>,
    out_w: Signal<Local, CwPathZ>,
    free_z: Signal<Local, ZFree>,
    free_b: Signal<Local, Bits<{ FREE_BITS * PATHS }>>,
    // the timer flag, which the choices do not read
    unused_ok: Signal<Local, bool>,
    #[constant(0u64)]
    zero_free: Constant<Bits<FREE_BITS>>,
    #[constant(0u64)]
    zero_hi: Constant<Bits<{ FREE_BITS * (PATHS - 1) }>>,
    #[constant(0u64)]
    zero_path: Constant<Bits<PATH_BITS>>,
    #[constant(0u64)]
    zero_lost_hi: Constant<Bits<{ HEALTH_EPOCH_BITS * (PATHS - 1) }>>,
}

/// A path's epoch losses widened to `repair`'s input.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ZLost {
    pub lo: Bits<HEALTH_EPOCH_BITS>,
    pub hi: Bits<{ HEALTH_EPOCH_BITS * (PATHS - 1) }>,
}

impl Logic for PathView {
    #[hdl_gen]
    fn update(&mut self) {
        self.queued.next = self.sum.val().queued;
        self.can.next = self.sum.val().can;
        self.retired.next = self.sum.val().retired;
        self.busy.next = self.sum.val().out.any();
        self.free_z.next.lo = self.zero_free.val();
        if self.sum.val().cwnd > self.sum.val().out {
            self.free_z.next.lo = self.sum.val().cwnd - self.sum.val().out;
        }
        self.free_z.next.hi = self.zero_hi.val();
        self.free_b.next = self.free_z.val().into();
        self.free.next = self.free_b.val() << self.at.val();
        self.unused_ok.next = false & self.sum.val().armed & self.sum.val().rtos.any();
        self.lost_z.next.lo = self.sum.val().lost;
        self.lost_z.next.hi = self.zero_lost_hi.val();
        self.lost_b.next = self.lost_z.val().into();
        self.lost.next = self.lost_b.val() << self.lost_at.val();
        self.out_w.next.lo = self.sum.val().out;
        self.out_w.next.hi = self.zero_path.val();
        self.out_z.next = self.out_w.val().into();
    }
}

/// Whether one stream of a connection has a message to segment
/// (combinational).
#[derive(LogicBlock, Default)]
pub struct StreamView {
    pub state: Signal<In, StreamState>,
    pub has_data: Signal<Out, bool>,
    // the fields the choice does not read
    unused_ok: Signal<Local, bool>,
}

impl Logic for StreamView {
    #[hdl_gen]
    fn update(&mut self) {
        self.has_data.next = self.state.val().seg < self.state.val().count;
        self.unused_ok.next =
            false & (self.state.val().base.any() | self.state.val().off.any() | self.state.val().rsn.any());
    }
}

/// The ACK's bitmap from slot order (byte i: slots 8i..8i+7) to field
/// order (the field's first byte is its most significant): `b[k]` is slot
/// byte 31 - k.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct SackField {
    pub b0: Bits<8>,
    pub b1: Bits<8>,
    pub b2: Bits<8>,
    pub b3: Bits<8>,
    pub b4: Bits<8>,
    pub b5: Bits<8>,
    pub b6: Bits<8>,
    pub b7: Bits<8>,
    pub b8: Bits<8>,
    pub b9: Bits<8>,
    pub b10: Bits<8>,
    pub b11: Bits<8>,
    pub b12: Bits<8>,
    pub b13: Bits<8>,
    pub b14: Bits<8>,
    pub b15: Bits<8>,
    pub b16: Bits<8>,
    pub b17: Bits<8>,
    pub b18: Bits<8>,
    pub b19: Bits<8>,
    pub b20: Bits<8>,
    pub b21: Bits<8>,
    pub b22: Bits<8>,
    pub b23: Bits<8>,
    pub b24: Bits<8>,
    pub b25: Bits<8>,
    pub b26: Bits<8>,
    pub b27: Bits<8>,
    pub b28: Bits<8>,
    pub b29: Bits<8>,
    pub b30: Bits<8>,
    pub b31: Bits<8>,
}

/// The bitmap in field order (combinational).
#[derive(LogicBlock, Default)]
pub struct SackOrder {
    pub slots: Signal<In, Bits<256>>,
    pub field: Signal<Out, Bits<256>>,
    f: Signal<Local, SackField>,
}

impl Logic for SackOrder {
    #[hdl_gen]
    fn update(&mut self) {
        self.f.next.b0 = self.slots.val().get_bits::<8>(248);
        self.f.next.b1 = self.slots.val().get_bits::<8>(240);
        self.f.next.b2 = self.slots.val().get_bits::<8>(232);
        self.f.next.b3 = self.slots.val().get_bits::<8>(224);
        self.f.next.b4 = self.slots.val().get_bits::<8>(216);
        self.f.next.b5 = self.slots.val().get_bits::<8>(208);
        self.f.next.b6 = self.slots.val().get_bits::<8>(200);
        self.f.next.b7 = self.slots.val().get_bits::<8>(192);
        self.f.next.b8 = self.slots.val().get_bits::<8>(184);
        self.f.next.b9 = self.slots.val().get_bits::<8>(176);
        self.f.next.b10 = self.slots.val().get_bits::<8>(168);
        self.f.next.b11 = self.slots.val().get_bits::<8>(160);
        self.f.next.b12 = self.slots.val().get_bits::<8>(152);
        self.f.next.b13 = self.slots.val().get_bits::<8>(144);
        self.f.next.b14 = self.slots.val().get_bits::<8>(136);
        self.f.next.b15 = self.slots.val().get_bits::<8>(128);
        self.f.next.b16 = self.slots.val().get_bits::<8>(120);
        self.f.next.b17 = self.slots.val().get_bits::<8>(112);
        self.f.next.b18 = self.slots.val().get_bits::<8>(104);
        self.f.next.b19 = self.slots.val().get_bits::<8>(96);
        self.f.next.b20 = self.slots.val().get_bits::<8>(88);
        self.f.next.b21 = self.slots.val().get_bits::<8>(80);
        self.f.next.b22 = self.slots.val().get_bits::<8>(72);
        self.f.next.b23 = self.slots.val().get_bits::<8>(64);
        self.f.next.b24 = self.slots.val().get_bits::<8>(56);
        self.f.next.b25 = self.slots.val().get_bits::<8>(48);
        self.f.next.b26 = self.slots.val().get_bits::<8>(40);
        self.f.next.b27 = self.slots.val().get_bits::<8>(32);
        self.f.next.b28 = self.slots.val().get_bits::<8>(24);
        self.f.next.b29 = self.slots.val().get_bits::<8>(16);
        self.f.next.b30 = self.slots.val().get_bits::<8>(8);
        self.f.next.b31 = self.slots.val().get_bits::<8>(0);
        self.field.next = self.f.val().into();
    }
}

// Control states: a Rust const for `match` and a same-named `Constant`.
const S_IDLE: usize = 0;
const S_SETUP0: usize = 1;
const S_SETUPW: usize = 2;
const S_SETUP: usize = 3;
const S_CTLF0: usize = 4;
const S_CTLF: usize = 5;
const S_A1: usize = 6;
const S_A2: usize = 7;
const S_A3: usize = 8;
const S_CREDIT: usize = 9;
const S_CR1: usize = 10;
const S_CREDITED: usize = 11;
const S_COMPL0: usize = 12;
const S_COMPL: usize = 13;
const S_CPL: usize = 14;
const S_HC: usize = 15;
const S_HC1: usize = 16;
const S_HC2: usize = 17;
const S_REPATH: usize = 18;
const S_REPATH2: usize = 19;
const S_HOLD1: usize = 20;
const S_HOLD2: usize = 21;
const S_NAK: usize = 22;
const S_FAIL0: usize = 23;
const S_FAIL: usize = 24;
const S_SKIP0: usize = 25;
const S_SKIP: usize = 26;
const S_RTO0: usize = 27;
const S_RTO1: usize = 28;
const S_RTO2: usize = 29;
const S_REL1: usize = 30;
const S_REL2: usize = 31;
const S_RELEASED: usize = 32;
const S_SCAN: usize = 33;
const S_TRY: usize = 34;
const S_TAKE1: usize = 35;
const S_TAKE2: usize = 36;
const S_TAKE3: usize = 37;
const S_TAKE4: usize = 38;
const S_TAKE5: usize = 39;
const S_PICK: usize = 40;
const S_PICK2: usize = 41;
const S_SEND1: usize = 42;
const S_SENDW: usize = 43;
const S_SEND2: usize = 44;
const S_DMA: usize = 45;
const S_HDR: usize = 46;
const S_WR1: usize = 47;
const S_PT: usize = 48;
const S_PR0: usize = 49;
const S_PR1: usize = 50;
const S_PR2: usize = 51;
const S_PR3: usize = 52;
const S_PRN: usize = 53;
// `rack`'s walk over the connection's paths after an ACK
const S_RKL: usize = 54;
const S_RK2: usize = 55;
const S_RK3: usize = 56;
const S_RK4: usize = 57;
const S_RK5: usize = 58;
const S_RK6: usize = 59;
const S_RKD: usize = 60;
const S_RKH: usize = 61;
const S_RKN: usize = 62;

/// Packet kinds of the frame being built.
const K_DATA: u64 = 0;
const K_ACK: u64 = 1;
const K_NAK: u64 = 2;

/// Failure codes of a message (`m_cpl_status`).
const FAIL_ACCESS: u64 = 1;
const FAIL_TOO_SMALL: u64 = 2;

/// Data packet flags: last packet of its message, retransmission.
const F_LAST: u64 = 0x02;
const F_RETX_LAST: u64 = 0x03;

/// The send path.
#[allow(non_snake_case)]
#[derive(LogicBlock, HdlDefault)]
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
    pub cfg_max_backoff: Signal<In, Bits<3>>,
    pub cfg_loss_shift: Signal<In, Bits<{ crate::tx::health::LOSS_SHIFT_BITS }>>,
    pub cfg_path_ecn_cut: Signal<In, bool>,
    /// Tail probes (`control.recovery` bit 8; a build without them,
    /// `EngineConfig::tail_probes`, ignores it) and the receiver's ACK
    /// delay (ns), a term of the probe timeout.
    pub cfg_probe: Signal<In, bool>,
    pub cfg_ack_delay: Signal<In, Bits<32>>,
    /// Connection-level loss detection by send time (`control.recovery`
    /// bit 9; a build without it, `EngineConfig::rack`, ignores it).
    pub cfg_rack: Signal<In, bool>,
    /// `rack` without its wait on the ACK's own path, against that path's
    /// own latest acknowledged send time (`control.recovery` bit 12; a
    /// build without `rack` ignores it).
    pub cfg_path_rack: Signal<In, bool>,
    /// The connection window (`control.recovery` bit 10; a build without
    /// it, `EngineConfig::conn_window`, ignores it), and the line rate
    /// (Mb/s), which bounds the rate hints that cap it.
    pub cfg_conn_window: Signal<In, bool>,
    pub cfg_line: Signal<In, Bits<32>>,
    /// Repairs take the route of the connection's cleanest other live path
    /// (`control.recovery` bit 11; a build without them,
    /// `EngineConfig::clean_repairs`, ignores it).
    pub cfg_clean_repairs: Signal<In, bool>,
    /// The window cap's bytes per Mb/s of hint (`control.window_scale`).
    pub cfg_window_scale: Signal<In, Bits<CW_SCALE_BITS>>,
    pub now: Signal<In, Bits<32>>,
    pub ctl_valid: Signal<In, bool>,
    pub ctl_ready: Signal<Out, bool>,
    pub ctl_op: Signal<In, bool>,
    pub ctl_conn: Signal<In, Bits<CONN_KEY_BITS>>,
    pub ctl_remote: Signal<In, Bits<16>>,
    pub ctl_mac: Signal<In, Bits<48>>,
    pub ctl_ip: Signal<In, Bits<32>>,
    pub ctl_paths: Signal<In, Bits<{ PATH_BITS + 1 }>>,
    pub ctl_streams: Signal<In, Bits<{ STREAM_BITS + 1 }>>,
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
    /// An ACK's rate hint (Mb/s; 0: none).
    pub fb_hint: Signal<In, Bits<32>>,
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
    pub probe_valid: Signal<In, bool>,
    pub probe_ready: Signal<Out, bool>,
    pub probe_key: Signal<In, Bits<CONN_KEY_BITS>>,
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
    pub m_rto_base: Signal<Out, Rto>,
    pub m_probe_valid: Signal<Out, bool>,
    pub m_probe_key: Signal<Out, Bits<CONN_KEY_BITS>>,
    pub m_probe_arm: Signal<Out, bool>,
    pub m_probe_shift: Signal<Out, Bits<3>>,
    pub m_probe_base: Signal<Out, Rto>,
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
    pub pt_valid: Signal<Out, bool>,
    pub cnt_tx_data: Signal<Out, Bits<32>>,
    pub cnt_tx_retx: Signal<Out, Bits<32>>,
    pub cnt_tx_acks: Signal<Out, Bits<32>>,
    pub cnt_tx_naks: Signal<Out, Bits<32>>,
    pub cnt_rtos: Signal<Out, Bits<32>>,
    pub cnt_repaths: Signal<Out, Bits<32>>,
    pub cnt_naks_received: Signal<Out, Bits<32>>,
    pub cnt_tail_probes: Signal<Out, Bits<32>>,
    /// Zero the counters (`control.ctrl` bit 1).
    pub clear_stats: Signal<In, bool>,
    // ---- sub-blocks ----
    retx: Retx<PATH_KEY_BITS, WINDOW, TAIL_PROBES, RACK>,
    cc: Cc<PATH_KEY_BITS>,
    health: PathHealth<PATH_KEY_BITS>,
    spray: Spray,
    repair: Repair,
    seglog: SegLog<LOG_ADDR_BITS, LOG_ENTRY_BITS>,
    /// `rack`: each PSN slot's latest send time (ns), beside the log.
    sent_t: RAM<Bits<32>, LOG_ADDR_BITS>,
    build: TxBuild,
    cbuild: TxBuild,
    // the trailer's CRC, after the builders' multiplexer
    crc_out: CrcAppend<SERIAL_CRC_TAIL, HALF_RATE_CRC>,
    f_tdata: Signal<Local, Bits<64>>,
    f_tkeep: Signal<Local, Bits<8>>,
    f_tvalid: Signal<Local, bool>,
    f_tready: Signal<Local, bool>,
    f_tlast: Signal<Local, bool>,
    rtt: Rtt,
    // the connection's estimate, and its probe timeout
    crtt: Rtt,
    // the connection window, its packets out over the paths and its cap
    cwin: ConnWin,
    a_hint: DFF<Bits<32>>,
    cw_on: Signal<Local, bool>,
    cw_sub: Signal<Local, bool>,
    cw_lanes: Signal<Local, Bits<PATHS>>,
    ot_m: [Signal<Local, Bits<PATHS>>; PATHS],
    ot_acc: [Signal<Local, Bits<CW_BITS>>; PATHS + 1],
    ot_own: Signal<Local, CwPathZ>,
    cw_out: Signal<Local, Bits<CW_BITS>>,
    cm_paths: Signal<Local, Bits<{ PATH_BITS + 1 }>>,
    cm_a: Signal<Local, CwMaxZ>,
    cm_b: Signal<Local, CwPathsZ>,
    cm_p: Signal<Local, Bits<16>>,
    cw_max: Signal<Local, Bits<CW_BITS>>,
    cw_hint: Signal<Local, Bits<32>>,
    ptime: ProbeTime,
    sack_wire: SackWire<WINDOW>,
    sack_order: SackOrder,
    pview: [PathView; PATHS],
    sview: [StreamView; STREAMS],
    ge_start: Thermo256,
    first_hi: FirstSet256,
    first_lo: FirstSet256,
    slot_hot: Decode256,
    conn_first: FirstSet256,
    // ---- tables ----
    conns: RAM<ConnCtx, CONN_KEY_BITS>,
    lane_p: [RAM<PathSum, CONN_KEY_BITS>; PATHS],
    lane_s: [RAM<StreamState, CONN_KEY_BITS>; STREAMS],
    paths: RAM<PathDetail, PATH_KEY_BITS>,
    /// Clean-route repairs: every path's source port again (each write of
    /// `paths` copied), read at the repair's route ({connection, `rq`}).
    sports: RAM<Bits<16>, PATH_KEY_BITS>,
    msg_desc: RAM<MsgDesc, MSG_ADDR_BITS>,
    msg_prog: RAM<MsgProg, MSG_ADDR_BITS>,
    // ---- the context ----
    st: DFF<Bits<6>>,
    ret: DFF<Bits<6>>,
    skip_compl: DFF<bool>,
    cur: DFF<Bits<CONN_KEY_BITS>>,
    pth: DFF<Bits<PATH_BITS>>,
    stm: DFF<Bits<STREAM_BITS>>,
    ccx: DFF<ConnCtx>,
    ps: DFF<PathSum>,
    pd: DFF<PathDetail>,
    ss: DFF<StreamState>,
    mc: DFF<MsgDesc>,
    c_valid: DFF<Bits<CONNS>>,
    conn_rr: DFF<Bits<CONN_KEY_BITS>>,
    scan_n: DFF<Bits<SCAN_BITS>>,
    wr_blocked: DFF<bool>,
    // ---- the operation in progress ----
    // an ACK's bitmap by slot of the window, then the newly acknowledged
    // slots; read through `newly_w` (the bits at and above the window are
    // constant zero there, and synthesis drops them)
    newly: DFF<Bits<256>>,
    newly_w: Signal<Local, Bits<256>>,
    #[constant(low_ones::<256>(WINDOW))]
    in_window_bits: Constant<Bits<256>>,
    a_count: DFF<Bits<CWND_BITS>>,
    a_lost: DFF<Bits<CWND_BITS>>,
    a_ce: DFF<Bits<16>>,
    /// The path's RTOs in a row, at most `cfg_max_backoff`.
    run_c: Signal<Local, Bits<3>>,
    a_psn: DFF<Bits<24>>,
    a_msg: DFF<Bits<32>>,
    a_status: DFF<Bits<2>>,
    a_ts: DFF<Bits<32>>,
    start_slot: DFF<Bits<8>>,
    e_len_q: DFF<Bits<14>>,
    h_seq: DFF<Bits<32>>,
    h_off: DFF<Bits<32>>,
    h_len: DFF<Bits<14>>,
    h_flags: DFF<Bits<8>>,
    h_psn: DFF<Bits<24>>,
    h_opcode: DFF<Bits<8>>,
    h_kind: DFF<Bits<2>>,
    h_sack: DFF<Bits<256>>,
    h_ts_echo: DFF<Bits<32>>,
    h_ce: DFF<Bits<16>>,
    h_pending: DFF<Bits<16>>,
    h_sport: DFF<Bits<16>>,
    /// The data frame being built is a repair on the route in `h_sport`.
    h_clean: DFF<bool>,
    /// The route (path number) of the repair being taken.
    rq: DFF<Bits<PATH_BITS>>,
    h_stream: DFF<Bits<16>>,
    h_nak_msg: DFF<Bits<32>>,
    h_nak_code: DFF<Bits<8>>,
    done_v: DFF<bool>,
    sent_v: DFF<bool>,
    sent_c: DFF<Bits<CONN_KEY_BITS>>,
    sent_l: DFF<Bits<14>>,
    rto_v: DFF<bool>,
    rto_a: DFF<bool>,
    rto_s: DFF<Bits<3>>,
    rto_b: DFF<Rto>,
    rto_k: DFF<Bits<PATH_KEY_BITS>>,
    rnr_v: DFF<bool>,
    rnr_k: DFF<Bits<PATH_KEY_BITS>>,
    // tail probes: the latest estimate of any connection (for one without
    // its own yet), the timer request, probes sent
    last_has: DFF<bool>,
    last_srtt: DFF<Est>,
    last_var: DFF<Est>,
    pr_v: DFF<bool>,
    pr_a: DFF<bool>,
    pr_s: DFF<Bits<3>>,
    pr_b: DFF<Rto>,
    pr_k: DFF<Bits<CONN_KEY_BITS>>,
    n_probes: DFF<Bits<32>>,
    // the ACK in hand brought the connection's first RTT sample
    pr_first: DFF<bool>,
    // rack: the ACK's newly acknowledged PSNs that were resent (by slot);
    // the walk: in progress, before its first path, the candidate in
    // hand and whether it was resent, the path's losses found
    rexm: DFF<Bits<256>>,
    rk_walk: DFF<bool>,
    rk_first: DFF<bool>,
    rk_psn: DFF<Bits<24>>,
    rk_res: DFF<bool>,
    // the path's newest PSN in flight is being looked at; the path waits
    // (that PSN is a candidate sent within the window: the walk only
    // keeps the floor)
    rk_tail: DFF<bool>,
    rk_wait: DFF<bool>,
    /// `path_rack`: the path of the ACK the walk follows.
    rk_own: DFF<Bits<PATH_BITS>>,
    rk_lost: DFF<Bits<CWND_BITS>>,
    // the walk's floor so far (`ConnCtx::rack_floor`)
    rk_floor: DFF<Bits<32>>,
    rnr_p: DFF<Bits<24>>,
    w_pend: DFF<bool>,
    w_key: DFF<Bits<PATH_KEY_BITS>>,
    // the register window's snapshot: of path `ref_key`, valid when
    // `snap_ok`; `ref_req`: the control logic is to load `ref_key`'s path
    snap: DFF<Window>,
    snap_ok: DFF<bool>,
    ref_key: DFF<Bits<PATH_KEY_BITS>>,
    ref_req: DFF<bool>,
    ref_w: DFF<bool>,
    init_busy: DFF<bool>,
    init_addr: DFF<Bits<PATH_KEY_BITS>>,
    in_frame: DFF<bool>,
    sel_q: DFF<bool>,
    n_data: DFF<Bits<32>>,
    n_retx: DFF<Bits<32>>,
    n_acks: DFF<Bits<32>>,
    n_naks: DFF<Bits<32>>,
    n_rtos: DFF<Bits<32>>,
    n_repaths: DFF<Bits<32>>,
    n_naks_rx: DFF<Bits<32>>,
    // ---- next keys (the tables' read addresses) ----
    cur_n: Signal<Local, Bits<CONN_KEY_BITS>>,
    pth_n: Signal<Local, Bits<PATH_BITS>>,
    stm_n: Signal<Local, Bits<STREAM_BITS>>,
    pkey_s: Signal<Local, PathKey>,
    pkey: Signal<Local, Bits<PATH_KEY_BITS>>,
    pkey_n_s: Signal<Local, PathKey>,
    rkey_s: Signal<Local, PathKey>,
    cr_on: Signal<Local, bool>,
    lost_acc: [Signal<Local, Bits<{ HEALTH_EPOCH_BITS * PATHS }>>; PATHS + 1],
    skey_s: Signal<Local, StreamKey>,
    skey: Signal<Local, Bits<STREAM_KEY_BITS>>,
    // ---- taking work ----
    sub_ready: Signal<Local, bool>,
    idle: Signal<Local, bool>,
    take_ctl: Signal<Local, bool>,
    take_pt: Signal<Local, bool>,
    at_pt: Signal<Local, bool>,
    win_data: Signal<Local, Window>,
    /// The builder of ACK and NAK frames can take a header (`cbuild`, or
    /// `build` with one builder).
    ctl_hdr_ready: Signal<Local, bool>,
    ack_in: Signal<Local, bool>,
    nak_in: Signal<Local, bool>,
    take_ack: Signal<Local, bool>,
    take_nak: Signal<Local, bool>,
    take_fb: Signal<Local, bool>,
    take_rto: Signal<Local, bool>,
    take_rel: Signal<Local, bool>,
    probe_in: Signal<Local, bool>,
    take_probe: Signal<Local, bool>,
    // tail probes on; another path of the connection has packets out; the
    // probe count the timer's backoff uses; that count plus one
    pr_on: Signal<Local, bool>,
    others_busy: Signal<Local, bool>,
    pr_cnt: Signal<Local, Bits<3>>,
    pr_inc: Signal<Local, Bits<3>>,
    // rack: on; this ACK's RTT sample; the send time read from `sent_t`;
    // whether a newly acknowledged PSN raises the connection's rack_ts;
    // the reordering window; whether the candidate in hand is lost
    rk_on: Signal<Local, bool>,
    rk_sample: Signal<Local, Bits<32>>,
    rk_t: Signal<Local, Bits<32>>,
    rk_resent: Signal<Local, bool>,
    rk_counts: Signal<Local, bool>,
    rk_later: Signal<Local, Bits<32>>,
    rk_new_ok: Signal<Local, bool>,
    rk_plater: Signal<Local, Bits<32>>,
    rk_pcounts: Signal<Local, bool>,
    rk_pmargin: Signal<Local, Bits<32>>,
    rk_is_lost_own: Signal<Local, bool>,
    rk_lost_now: Signal<Local, bool>,
    prk_on: Signal<Local, bool>,
    rk_quarter: Signal<Local, Bits<32>>,
    rk_reo: Signal<Local, Bits<32>>,
    rk_margin: Signal<Local, Bits<32>>,
    rk_is_lost: Signal<Local, bool>,
    rk_ahead: Signal<Local, Bits<32>>,
    rk_need: Signal<Local, bool>,
    rk_dfl: Signal<Local, Bits<32>>,
    rk_below: Signal<Local, bool>,
    b_acc: [Signal<Local, Bits<PATHS>>; PATHS + 1],
    wr_want: Signal<Local, bool>,
    take_wr: Signal<Local, bool>,
    take_go: Signal<Local, bool>,
    room: Signal<Local, bool>,
    // ---- loading and changing the context ----
    cap_conn: Signal<Local, bool>,
    cap_path: Signal<Local, bool>,
    cap_stream: Signal<Local, bool>,
    s_sel: Signal<Local, Bits<STREAM_BITS>>,
    lane_p_at: Signal<Local, PathSum>,
    lane_s_at: Signal<Local, StreamState>,
    ccx_l: Signal<Local, ConnCtx>,
    ps_l: Signal<Local, PathSum>,
    pd_l: Signal<Local, PathDetail>,
    ss_l: Signal<Local, StreamState>,
    ccx_n: Signal<Local, ConnCtx>,
    ps_n: Signal<Local, PathSum>,
    pd_n: Signal<Local, PathDetail>,
    ss_n: Signal<Local, StreamState>,
    c_we: Signal<Local, bool>,
    c_wa: Signal<Local, Bits<CONN_KEY_BITS>>,
    ps_we: Signal<Local, bool>,
    pd_we: Signal<Local, bool>,
    ss_we: Signal<Local, bool>,
    s_clear: Signal<Local, bool>,
    ma_key_s: Signal<Local, StreamKey>,
    ma_s: Signal<Local, MsgAddr>,
    mw_s: Signal<Local, MsgAddr>,
    desc_we: Signal<Local, bool>,
    prog_we: Signal<Local, bool>,
    prog_n: Signal<Local, MsgProg>,
    desc_n: Signal<Local, MsgDesc>,
    // ---- the choices ----
    pth5: Signal<Local, ZPath>,
    pth_wraps: Signal<Local, bool>,
    pth_next: Signal<Local, Bits<PATH_BITS>>,
    stm4: Signal<Local, ZStream>,
    stm_next: Signal<Local, Bits<STREAM_BITS>>,
    c_may: Signal<Local, Twice>,
    rot: Signal<Local, Bits<{ 2 * CONNS }>>,
    rot_z: Signal<Local, ZConns>,
    cv_off_z: Signal<Local, ZConn>,
    scan_end: Signal<Local, bool>,
    rrr5: Signal<Local, ZPath>,
    srr4: Signal<Local, ZStream>,
    k_sum: [Signal<Local, Bits<{ PATH_BITS + 1 }>>; PATHS],
    k_at: [Signal<Local, Bits<{ PATH_BITS + 1 }>>; PATHS],
    ks_sum: [Signal<Local, Bits<{ STREAM_BITS + 1 }>>; STREAMS],
    ks_at: [Signal<Local, Bits<{ STREAM_BITS + 1 }>>; STREAMS],
    q_acc: [Signal<Local, Bits<PATHS>>; PATHS + 1],
    can_acc: [Signal<Local, Bits<PATHS>>; PATHS + 1],
    ret_acc: [Signal<Local, Bits<PATHS>>; PATHS + 1],
    free_acc: [Signal<Local, Bits<{ FREE_BITS * PATHS }>>; PATHS + 1],
    e_acc: [Signal<Local, Bits<STREAMS>>; STREAMS + 1],
    q_bits: Signal<Local, Bits<PATHS>>,
    e_bits: Signal<Local, Bits<STREAMS>>,
    q_found: Signal<Local, bool>,
    q_path: Signal<Local, Bits<PATH_BITS>>,
    e_found: Signal<Local, bool>,
    e_stream: Signal<Local, Bits<STREAM_BITS>>,
    // ---- messages and segments ----
    le: Signal<Local, LogEntry>,
    e_stm: Signal<Local, Bits<STREAM_BITS>>,
    count32: Signal<Local, Z5to32>,
    seg32: Signal<Local, Z5to32>,
    a_idx: Signal<Local, Bits<32>>,
    seg_left: Signal<Local, Bits<32>>,
    mtu32: Signal<Local, Z14to32>,
    seg_len: Signal<Local, Bits<32>>,
    seg_last: Signal<Local, bool>,
    e_len32: Signal<Local, Z14to32>,
    ce32: Signal<Local, Z16to32>,
    ce_b: Signal<Local, Bits<32>>,
    mtu_b: Signal<Local, Bits<32>>,
    seg_b: Signal<Local, Bits<32>>,
    count_b: Signal<Local, Bits<32>>,
    e_len_b: Signal<Local, Bits<32>>,
    rd_off_b: Signal<Local, Bits<64>>,
    slot_front: Signal<Local, Bits<SLOT_BITS>>,
    // Fields of the stream and path state and of the log entry as signals
    // of their own: rust-hdl writes a part of a struct field as a chained
    // part select (`s[10 +: 32][0 +: 4]`), which Icarus Verilog refuses.
    ss_base: Signal<Local, Bits<32>>,
    ss_seg: Signal<Local, Bits<COUNT_BITS>>,
    ss_count: Signal<Local, Bits<COUNT_BITS>>,
    pd_next_psn: Signal<Local, Bits<24>>,
    le_seq: Signal<Local, Bits<32>>,
    slot_seg: Signal<Local, Bits<SLOT_BITS>>,
    log_rd: Signal<Local, LogAddr>,
    log_wr: Signal<Local, LogAddr>,
    log_new: Signal<Local, LogEntry>,
    n_found: Signal<Local, bool>,
    n_slot: Signal<Local, Bits<8>>,
    sel_ctl: Signal<Local, bool>,
    rd_off: Signal<Local, Z32to64>,
    h_stream16: Signal<Local, ZStream16>,
    h_path8: Signal<Local, ZPath8>,
    h_op8: Signal<Local, ZOp8>,
    h_len16: Signal<Local, ZLen16>,
    // sub-block outputs and bits this logic does not read
    unused_ok: Signal<Local, bool>,
    // ---- constants ----
    #[constant(S_IDLE as u64)]
    S_IDLE: Constant<Bits<6>>,
    #[constant(S_SETUP0 as u64)]
    S_SETUP0: Constant<Bits<6>>,
    #[constant(S_SETUPW as u64)]
    S_SETUPW: Constant<Bits<6>>,
    #[constant(S_SETUP as u64)]
    S_SETUP: Constant<Bits<6>>,
    #[constant(S_CTLF0 as u64)]
    S_CTLF0: Constant<Bits<6>>,
    /// `build` makes ACK and NAK frames too (`cbuild` is left idle, its
    /// frames never chosen, and synthesis removes it).
    #[constant(ONE_FRAME_BUILDER)]
    one_builder: Constant<bool>,
    #[constant(S_CTLF as u64)]
    S_CTLF: Constant<Bits<6>>,
    #[constant(S_A1 as u64)]
    S_A1: Constant<Bits<6>>,
    #[constant(S_A2 as u64)]
    S_A2: Constant<Bits<6>>,
    #[constant(S_A3 as u64)]
    S_A3: Constant<Bits<6>>,
    #[constant(S_CREDIT as u64)]
    S_CREDIT: Constant<Bits<6>>,
    #[constant(S_CR1 as u64)]
    S_CR1: Constant<Bits<6>>,
    #[constant(S_CREDITED as u64)]
    S_CREDITED: Constant<Bits<6>>,
    #[constant(S_COMPL0 as u64)]
    S_COMPL0: Constant<Bits<6>>,
    #[constant(S_COMPL as u64)]
    S_COMPL: Constant<Bits<6>>,
    #[constant(S_CPL as u64)]
    S_CPL: Constant<Bits<6>>,
    #[constant(S_HC as u64)]
    S_HC: Constant<Bits<6>>,
    #[constant(S_HC1 as u64)]
    S_HC1: Constant<Bits<6>>,
    #[constant(S_HC2 as u64)]
    S_HC2: Constant<Bits<6>>,
    #[constant(S_REPATH as u64)]
    S_REPATH: Constant<Bits<6>>,
    #[constant(S_REPATH2 as u64)]
    S_REPATH2: Constant<Bits<6>>,
    #[constant(S_HOLD1 as u64)]
    S_HOLD1: Constant<Bits<6>>,
    #[constant(S_HOLD2 as u64)]
    S_HOLD2: Constant<Bits<6>>,
    #[constant(S_NAK as u64)]
    S_NAK: Constant<Bits<6>>,
    #[constant(S_FAIL0 as u64)]
    S_FAIL0: Constant<Bits<6>>,
    #[constant(S_FAIL as u64)]
    S_FAIL: Constant<Bits<6>>,
    #[constant(S_SKIP0 as u64)]
    S_SKIP0: Constant<Bits<6>>,
    #[constant(S_SKIP as u64)]
    S_SKIP: Constant<Bits<6>>,
    #[constant(S_RTO0 as u64)]
    S_RTO0: Constant<Bits<6>>,
    #[constant(S_RTO1 as u64)]
    S_RTO1: Constant<Bits<6>>,
    #[constant(S_RTO2 as u64)]
    S_RTO2: Constant<Bits<6>>,
    #[constant(S_REL1 as u64)]
    S_REL1: Constant<Bits<6>>,
    #[constant(S_REL2 as u64)]
    S_REL2: Constant<Bits<6>>,
    #[constant(S_RELEASED as u64)]
    S_RELEASED: Constant<Bits<6>>,
    #[constant(S_SCAN as u64)]
    S_SCAN: Constant<Bits<6>>,
    #[constant(S_TRY as u64)]
    S_TRY: Constant<Bits<6>>,
    #[constant(S_TAKE1 as u64)]
    S_TAKE1: Constant<Bits<6>>,
    #[constant(S_TAKE2 as u64)]
    S_TAKE2: Constant<Bits<6>>,
    #[constant(S_TAKE3 as u64)]
    S_TAKE3: Constant<Bits<6>>,
    #[constant(S_TAKE4 as u64)]
    S_TAKE4: Constant<Bits<6>>,
    #[constant(S_TAKE5 as u64)]
    S_TAKE5: Constant<Bits<6>>,
    #[constant(S_PICK as u64)]
    S_PICK: Constant<Bits<6>>,
    #[constant(S_PICK2 as u64)]
    S_PICK2: Constant<Bits<6>>,
    #[constant(S_SEND1 as u64)]
    S_SEND1: Constant<Bits<6>>,
    #[constant(S_SENDW as u64)]
    S_SENDW: Constant<Bits<6>>,
    #[constant(S_SEND2 as u64)]
    S_SEND2: Constant<Bits<6>>,
    #[constant(S_DMA as u64)]
    S_DMA: Constant<Bits<6>>,
    #[constant(S_HDR as u64)]
    S_HDR: Constant<Bits<6>>,
    #[constant(S_WR1 as u64)]
    S_WR1: Constant<Bits<6>>,
    #[constant(retx_op::LOAD)]
    R_LOAD: Constant<Bits<OP_BITS>>,
    #[constant(retx_op::SEND)]
    R_SEND: Constant<Bits<OP_BITS>>,
    #[constant(retx_op::ACK)]
    R_ACK: Constant<Bits<OP_BITS>>,
    #[constant(retx_op::TAKE)]
    R_TAKE: Constant<Bits<OP_BITS>>,
    #[constant(retx_op::RTO)]
    R_RTO: Constant<Bits<OP_BITS>>,
    #[constant(retx_op::HOLD)]
    R_HOLD: Constant<Bits<OP_BITS>>,
    #[constant(retx_op::RELEASE)]
    R_RELEASE: Constant<Bits<OP_BITS>>,
    #[constant(HEALTH_OP_SENT as u64)]
    H_SENT: Constant<Bits<2>>,
    #[constant(HEALTH_OP_ACK as u64)]
    H_ACK: Constant<Bits<2>>,
    #[constant(HEALTH_OP_RTO as u64)]
    H_RTO: Constant<Bits<2>>,
    #[constant(K_DATA)]
    K_DATA: Constant<Bits<2>>,
    #[constant(K_ACK)]
    K_ACK: Constant<Bits<2>>,
    #[constant(K_NAK)]
    K_NAK: Constant<Bits<2>>,
    #[constant(Opcode::Ack as u64)]
    OP_ACK: Constant<Bits<8>>,
    #[constant(Opcode::Nak as u64)]
    OP_NAK: Constant<Bits<8>>,
    #[constant(Opcode::WriteImm as u64)]
    OP_WRITE_IMM: Constant<Bits<2>>,
    #[constant(Opcode::Send as u64)]
    OP_SEND: Constant<Bits<2>>,
    #[constant(Opcode::WriteImm as u64)]
    OP8_WRITE_IMM: Constant<Bits<8>>,
    #[constant(Opcode::Send as u64)]
    OP8_SEND: Constant<Bits<8>>,
    #[constant(NakCode::Access as u64)]
    NAK_ACCESS: Constant<Bits<8>>,
    #[constant(NakCode::NoRecv as u64)]
    NAK_NO_RECV: Constant<Bits<8>>,
    #[constant(NakCode::RecvTooSmall as u64)]
    NAK_TOO_SMALL: Constant<Bits<8>>,
    #[constant(FAIL_ACCESS)]
    FAIL_ACCESS: Constant<Bits<2>>,
    #[constant(FAIL_TOO_SMALL)]
    FAIL_TOO_SMALL: Constant<Bits<2>>,
    #[constant(F_LAST)]
    F_LAST: Constant<Bits<8>>,
    #[constant(F_RETX_LAST)]
    F_RETX_LAST: Constant<Bits<8>>,
    #[constant(0u64)]
    zero2: Constant<Bits<2>>,
    #[constant(0u64)]
    zero3: Constant<Bits<3>>,
    #[constant(0u64)]
    zero_ce: Constant<Bits<16>>,
    #[constant(0u64)]
    zero8: Constant<Bits<8>>,
    #[constant(0u64)]
    zero14: Constant<Bits<14>>,
    #[constant(0u64)]
    zero16: Constant<Bits<16>>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
    #[constant(0u64)]
    zero64: Constant<Bits<64>>,
    #[constant(0u64)]
    zero256: Constant<Bits<256>>,
    #[constant(0u64)]
    zero_cwnd: Constant<Bits<CWND_BITS>>,
    #[constant(Est::default())]
    zero_est: Constant<Est>,
    #[constant(0u64)]
    zero_path: Constant<Bits<PATH_BITS>>,
    #[constant(0u64)]
    zero_stream: Constant<Bits<STREAM_BITS>>,
    #[constant(0u64)]
    zero_count: Constant<Bits<COUNT_BITS>>,
    #[constant(0u64)]
    zero_scan: Constant<Bits<SCAN_BITS>>,
    #[constant(0u64)]
    zero_key: Constant<Bits<PATH_KEY_BITS>>,
    #[constant(0u64)]
    zero_conns: Constant<Bits<CONNS>>,
    #[constant(0u64)]
    zero_paths: Constant<Bits<PATHS>>,
    #[constant(0u64)]
    zero_streams: Constant<Bits<STREAMS>>,
    #[constant(0u64)]
    zero_free: Constant<Bits<{ FREE_BITS * PATHS }>>,
    #[constant(0u64)]
    zero_rot_hi: Constant<Bits<{ 256 - CONNS }>>,
    #[constant(0u64)]
    zero1: Constant<Bits<1>>,
    #[constant(0u64)]
    zero_z5: Constant<Bits<{ 32 - COUNT_BITS }>>,
    #[constant(0u64)]
    zero18: Constant<Bits<18>>,
    // a PSN's slot in the build's window
    #[constant((WINDOW - 1) as u64)]
    window_slot_mask: Constant<Bits<8>>,
    #[constant(0u64)]
    zero13: Constant<Bits<{ 16 - STREAM_BITS }>>,
    #[constant(0u64)]
    zero4: Constant<Bits<{ 8 - PATH_BITS }>>,
    #[constant(0u64)]
    zero6: Constant<Bits<6>>,
    #[constant(1u64)]
    one_conns: Constant<Bits<CONNS>>,
    #[constant(1u64)]
    one_path: Constant<Bits<PATH_BITS>>,
    #[constant(1u64)]
    one_stream: Constant<Bits<STREAM_BITS>>,
    #[constant(1u64)]
    one_count: Constant<Bits<COUNT_BITS>>,
    #[constant(1u64)]
    one_run: Constant<Bits<3>>,
    #[constant(1u64)]
    one_scan: Constant<Bits<SCAN_BITS>>,
    #[constant(1u64)]
    one_key: Constant<Bits<PATH_KEY_BITS>>,
    #[constant(1u64)]
    one_p5: Constant<Bits<{ PATH_BITS + 1 }>>,
    #[constant(1u64)]
    one_s4: Constant<Bits<{ STREAM_BITS + 1 }>>,
    #[constant(1u64)]
    one24: Constant<Bits<24>>,
    #[constant(1u64)]
    one32: Constant<Bits<32>>,
    #[constant(MSG_WINDOW as u64)]
    msg_window: Constant<Bits<COUNT_BITS>>,
    #[constant(CONNS as u64)]
    conns_w: Constant<Bits<SCAN_BITS>>,
    #[constant((1u64 << PATHS) - 1)]
    ones_paths: Constant<Bits<PATHS>>,
    /// Where a send-log entry's fields start.
    #[constant(STREAM_BITS as u64)]
    le_seq_at: Constant<Bits<LE_AT_BITS>>,
    #[constant((STREAM_BITS + 32) as u64)]
    le_off_at: Constant<Bits<LE_AT_BITS>>,
    #[constant((STREAM_BITS + 64) as u64)]
    le_len_at: Constant<Bits<LE_AT_BITS>>,
    #[constant(PATH_BITS as u64)]
    conn_in_pkey: Constant<Bits<{ index_bits(PATH_KEY_BITS) }>>,
    #[constant(STREAM_BITS as u64)]
    conn_in_skey: Constant<Bits<{ index_bits(STREAM_KEY_BITS) }>>,
    #[constant(STREAM_BITS as u64)]
    stream_hi_at: Constant<Bits<{ index_bits(16) }>>,
    #[constant(StreamState::default())]
    stream_zero: Constant<StreamState>,
    #[constant(PathSum::default())]
    path_sum_zero: Constant<PathSum>,
    #[constant(PathDetail::default())]
    path_zero: Constant<PathDetail>,
    #[constant(Window::default())]
    window_zero: Constant<Window>,
    #[constant(S_PT as u64)]
    S_PT: Constant<Bits<6>>,
    #[constant(S_PR0 as u64)]
    S_PR0: Constant<Bits<6>>,
    #[constant(S_PR1 as u64)]
    S_PR1: Constant<Bits<6>>,
    #[constant(S_PR2 as u64)]
    S_PR2: Constant<Bits<6>>,
    #[constant(S_PR3 as u64)]
    S_PR3: Constant<Bits<6>>,
    #[constant(S_PRN as u64)]
    S_PRN: Constant<Bits<6>>,
    #[constant(retx_op::PROBE)]
    R_PROBE: Constant<Bits<OP_BITS>>,
    #[constant(retx_op::FIRST)]
    R_FIRST: Constant<Bits<OP_BITS>>,
    #[constant(retx_op::AFTER)]
    R_AFTER: Constant<Bits<OP_BITS>>,
    #[constant(retx_op::LOSE)]
    R_LOSE: Constant<Bits<OP_BITS>>,
    /// `rack` is built in (`EngineConfig::rack`): without it every use is
    /// constant and synthesis removes it.
    #[constant(RACK)]
    rack_built: Constant<bool>,
    #[constant(REO_MIN_NS)]
    reo_min: Constant<Bits<32>>,
    /// How far ahead of rack_ts the floor plus the window may be for the
    /// walk to be skipped (ns), and the sign bit of a 32-bit time difference.
    #[constant(1u64 << 22)]
    rk_range: Constant<Bits<32>>,
    #[constant(1u64 << 31)]
    half32: Constant<Bits<32>>,
    #[constant(2u64)]
    two_sh: Constant<Bits<8>>,
    #[constant(0u64)]
    zero24: Constant<Bits<24>>,
    #[constant(1u64)]
    one_cwnd: Constant<Bits<CWND_BITS>>,
    #[constant(S_RKL as u64)]
    S_RKL: Constant<Bits<6>>,
    #[constant(S_RK2 as u64)]
    S_RK2: Constant<Bits<6>>,
    #[constant(S_RK3 as u64)]
    S_RK3: Constant<Bits<6>>,
    #[constant(S_RK4 as u64)]
    S_RK4: Constant<Bits<6>>,
    #[constant(S_RK5 as u64)]
    S_RK5: Constant<Bits<6>>,
    #[constant(S_RK6 as u64)]
    S_RK6: Constant<Bits<6>>,
    #[constant(S_RKD as u64)]
    S_RKD: Constant<Bits<6>>,
    #[constant(S_RKH as u64)]
    S_RKH: Constant<Bits<6>>,
    #[constant(S_RKN as u64)]
    S_RKN: Constant<Bits<6>>,
    /// Tail probes are built in (`EngineConfig::tail_probes`): without
    /// them every use is constant and synthesis removes it.
    #[constant(TAIL_PROBES)]
    probes_built: Constant<bool>,
    #[constant(PROBE_MIN_NS)]
    probe_min: Constant<Bits<32>>,
    /// The connection window is built in (`EngineConfig::conn_window`):
    /// without it every use is constant and synthesis removes it.
    #[constant(CONN_WINDOW)]
    cw_built: Constant<bool>,
    /// Clean-route repairs are built in (`EngineConfig::clean_repairs`).
    #[constant(CLEAN_REPAIRS)]
    cr_built: Constant<bool>,
    #[constants(|i: usize| (HEALTH_EPOCH_BITS * i) as u64)]
    lost_at: [Constant<Bits<8>>; PATHS],
    #[constant(0u64)]
    zero_lost: Constant<Bits<{ HEALTH_EPOCH_BITS * PATHS }>>,
    #[constant(0u64)]
    zero_epoch: Constant<Bits<HEALTH_EPOCH_BITS>>,
    #[constant(0u64)]
    zero_rtos: Constant<Bits<HEALTH_RTO_BITS>>,
    #[constant(0u64)]
    zero_cw: Constant<Bits<CW_BITS>>,
    #[constant(1u64)]
    one_cw: Constant<Bits<CW_BITS>>,
    #[constant(0u64)]
    zero_cm_hi: Constant<Bits<{ 16 - CWND_BITS }>>,
    #[constant(0u64)]
    zero_cp_hi: Constant<Bits<{ 16 - PATH_BITS - 1 }>>,
    #[constant(7u64)]
    probes_max: Constant<Bits<3>>,
    #[constant(Rto::default())]
    zero_rto: Constant<Rto>,
    #[constant(1u64)]
    one_pathsv: Constant<Bits<PATHS>>,
    #[constant(0u64)]
    zero_conn: Constant<Bits<CONN_KEY_BITS>>,
    #[constant(1u64)]
    one_conn: Constant<Bits<CONN_KEY_BITS>>,
    #[constant(0u64)]
    zero_ce_hi: Constant<Bits<16>>,
    #[constant(26u64)]
    dscp: Constant<Bits<6>>,
    #[constant(2u64)]
    ecn_ect0: Constant<Bits<2>>,
    #[constant(64u64)]
    ttl: Constant<Bits<8>>,
    #[constants(|i: usize| i as u64)]
    lane_id: [Constant<Bits<PATH_BITS>>; PATHS],
    #[constants(|i: usize| i as u64)]
    stream_id: [Constant<Bits<STREAM_BITS>>; STREAMS],
    #[constants(|j: usize| (PATHS - 1 - j) as u64)]
    k5_rev: [Constant<Bits<{ PATH_BITS + 1 }>>; PATHS],
    #[constants(|j: usize| (STREAMS - 1 - j) as u64)]
    k4_rev: [Constant<Bits<{ STREAM_BITS + 1 }>>; STREAMS],
    #[constants(|i: usize| 1u64 << i)]
    path_bit: [Constant<Bits<PATHS>>; PATHS],
    #[constants(|i: usize| 1u64 << i)]
    stream_bit: [Constant<Bits<STREAMS>>; STREAMS],
    #[constants(|i: usize| (FREE_BITS * i) as u64)]
    free_at: [Constant<Bits<8>>; PATHS],
}

impl Logic for TxPath {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, st, ret, skip_compl, cur, pth, stm, ccx, ps, pd, ss, mc, c_valid, conn_rr, scan_n, wr_blocked,
            newly, a_count, a_lost, a_ce, a_psn, a_msg, a_status, a_ts, a_hint, start_slot, e_len_q, h_seq, h_off, h_len,
            h_flags, h_psn, h_opcode, h_kind, h_sack, h_ts_echo, h_ce, h_pending, h_sport, h_stream, h_nak_msg,
            h_nak_code, done_v, sent_v, sent_c, sent_l, rto_v, rto_a, rto_s, rto_b, rto_k, rnr_v, rnr_k, rnr_p, w_pend,
            w_key, init_busy, init_addr, in_frame, sel_q, n_data, n_retx, n_acks, n_naks, n_rtos, n_repaths, n_naks_rx,
            snap, snap_ok, ref_key, ref_req, ref_w, last_has, last_srtt, last_var, pr_v, pr_a, pr_s, pr_b, pr_k, n_probes,
            pr_first, rexm, rk_walk, rk_first, rk_psn, rk_res, rk_tail, rk_wait, rk_lost, rk_floor, h_clean, rq, rk_own
        );
        self.sent_t.read_clock.next = self.clock.val();
        self.sent_t.write_clock.next = self.clock.val();
        self.conns.read_clock.next = self.clock.val();
        self.conns.write_clock.next = self.clock.val();
        self.paths.read_clock.next = self.clock.val();
        self.paths.write_clock.next = self.clock.val();
        self.sports.read_clock.next = self.clock.val();
        self.sports.write_clock.next = self.clock.val();
        self.msg_desc.read_clock.next = self.clock.val();
        self.msg_desc.write_clock.next = self.clock.val();
        self.msg_prog.read_clock.next = self.clock.val();
        self.msg_prog.write_clock.next = self.clock.val();
        for i in 0..PATHS {
            self.lane_p[i].read_clock.next = self.clock.val();
            self.lane_p[i].write_clock.next = self.clock.val();
        }
        for i in 0..STREAMS {
            self.lane_s[i].read_clock.next = self.clock.val();
            self.lane_s[i].write_clock.next = self.clock.val();
        }
        self.retx.clock.next = self.clock.val();
        self.retx.reset.next = self.reset.val();
        self.cc.clock.next = self.clock.val();
        self.cc.reset.next = self.reset.val();
        self.health.clock.next = self.clock.val();
        self.health.reset.next = self.reset.val();
        self.spray.clock.next = self.clock.val();
        self.spray.reset.next = self.reset.val();
        self.seglog.clock.next = self.clock.val();
        self.build.clock.next = self.clock.val();
        self.build.reset.next = self.reset.val();
        self.cbuild.clock.next = self.clock.val();
        self.cbuild.reset.next = self.reset.val();

        // ---- keys of the operation in progress ----
        self.pkey_s.next.conn = self.cur.q.val();
        self.pkey_s.next.path = self.pth.q.val();
        self.pkey.next = self.pkey_s.val().into();
        self.skey_s.next.conn = self.cur.q.val();
        self.skey_s.next.stream = self.stm.q.val();
        self.skey.next = self.skey_s.val().into();

        // The send log's entry read in the previous cycle.
        self.le.next.stream = self.seglog.rd_entry.val().get_bits::<STREAM_BITS>(0);
        self.le.next.seq = self.seglog.rd_entry.val().get_bits::<32>(self.le_seq_at.val().index());
        self.le.next.off = self.seglog.rd_entry.val().get_bits::<32>(self.le_off_at.val().index());
        self.le.next.len = self.seglog.rd_entry.val().get_bits::<14>(self.le_len_at.val().index());
        self.le_seq.next = self.le.val().seq;
        self.e_stm.next = self.le.val().stream;

        // ---- taking work, in priority order ----
        self.sub_ready.next = self.retx.ready.val() & self.cc.ready.val() & self.health.ready.val();
        self.take_pt.next = (self.st.q.val() == self.S_IDLE.val())
            & !self.init_busy.q.val()
            & self.sub_ready.val()
            & self.ref_req.q.val();
        self.idle.next = (self.st.q.val() == self.S_IDLE.val())
            & !self.init_busy.q.val()
            & self.sub_ready.val()
            & !self.ref_req.q.val();
        self.take_ctl.next = self.idle.val() & self.ctl_valid.val();
        // A frame is decided only when its builder can take the header (each
        // holds one besides the frame going out), so the control logic never
        // waits for the MAC.
        self.ctl_hdr_ready.next = self.cbuild.hdr_ready.val();
        if self.one_builder.val() {
            self.ctl_hdr_ready.next = self.build.hdr_ready.val();
        }
        self.ack_in.next = self.ack_valid.val() & self.ctl_hdr_ready.val();
        self.nak_in.next = self.nak_valid.val() & self.ctl_hdr_ready.val();
        self.take_ack.next = self.idle.val() & !self.ctl_valid.val() & self.ack_in.val();
        self.take_nak.next = self.idle.val() & !self.ctl_valid.val() & !self.ack_in.val() & self.nak_in.val();
        self.take_fb.next =
            self.idle.val() & !self.ctl_valid.val() & !self.ack_in.val() & !self.nak_in.val() & self.fb_valid.val();
        self.take_rto.next = self.idle.val()
            & !self.ctl_valid.val()
            & !self.ack_in.val()
            & !self.nak_in.val()
            & !self.fb_valid.val()
            & self.rto_valid.val();
        self.probe_in.next = self.probe_valid.val() & self.probes_built.val();
        self.take_probe.next = self.idle.val()
            & !self.ctl_valid.val()
            & !self.ack_in.val()
            & !self.nak_in.val()
            & !self.fb_valid.val()
            & !self.rto_valid.val()
            & self.probe_in.val();
        self.take_rel.next = self.idle.val()
            & !self.ctl_valid.val()
            & !self.ack_in.val()
            & !self.nak_in.val()
            & !self.fb_valid.val()
            & !self.rto_valid.val()
            & !self.probe_in.val()
            & self.release_valid.val();
        self.wr_want.next = self.wr_valid.val() & !self.wr_blocked.q.val();
        self.take_wr.next = self.idle.val()
            & !self.ctl_valid.val()
            & !self.ack_in.val()
            & !self.nak_in.val()
            & !self.fb_valid.val()
            & !self.rto_valid.val()
            & !self.probe_in.val()
            & !self.release_valid.val()
            & self.wr_want.val();
        self.take_go.next = self.idle.val()
            & !self.ctl_valid.val()
            & !self.ack_in.val()
            & !self.nak_in.val()
            & !self.fb_valid.val()
            & !self.rto_valid.val()
            & !self.probe_in.val()
            & !self.release_valid.val()
            & !self.wr_want.val()
            & self.tx_go.val()
            & self.build.hdr_ready.val();

        // ---- the context: loaded in the state after its key changed ----
        self.cap_conn.next = false;
        self.cap_path.next = false;
        self.cap_stream.next = false;
        self.s_sel.next = self.stm.q.val();
        match self.st.q.val().index() {
            S_CTLF0 => {
                self.cap_conn.next = true;
            }
            S_A1 => {
                self.cap_conn.next = true;
                self.cap_path.next = true;
            }
            S_HOLD1 => {
                self.cap_conn.next = true;
                self.cap_path.next = true;
            }
            S_RTO0 => {
                self.cap_conn.next = true;
                self.cap_path.next = true;
            }
            S_REL1 => {
                self.cap_conn.next = true;
                self.cap_path.next = true;
            }
            S_FAIL0 => {
                self.cap_conn.next = true;
                self.cap_stream.next = true;
            }
            S_WR1 => {
                self.cap_conn.next = true;
                self.cap_stream.next = true;
            }
            S_TRY => {
                self.cap_conn.next = true;
            }
            S_PT => {
                self.cap_path.next = true;
            }
            S_PR0 => {
                self.cap_conn.next = self.probes_built.val();
                self.cap_path.next = self.probes_built.val();
            }
            S_RKL => {
                self.cap_path.next = self.rack_built.val();
            }
            S_TAKE1 => {
                self.cap_path.next = true;
            }
            S_SEND1 => {
                self.cap_path.next = true;
            }
            S_PICK => {
                self.cap_stream.next = true;
            }
            S_CR1 => {
                self.cap_stream.next = true;
                self.s_sel.next = self.e_stm.val();
            }
            _ => {}
        }
        self.lane_p_at.next = self.lane_p[0].read_data.val();
        for i in 1..PATHS {
            if self.pth.q.val() == self.lane_id[i].val() {
                self.lane_p_at.next = self.lane_p[i].read_data.val();
            }
        }
        self.lane_s_at.next = self.lane_s[0].read_data.val();
        for i in 1..STREAMS {
            if self.s_sel.val() == self.stream_id[i].val() {
                self.lane_s_at.next = self.lane_s[i].read_data.val();
            }
        }
        self.ccx_l.next = self.ccx.q.val();
        if self.cap_conn.val() {
            self.ccx_l.next = self.conns.read_data.val();
        }
        self.ps_l.next = self.ps.q.val();
        self.pd_l.next = self.pd.q.val();
        if self.cap_path.val() {
            self.ps_l.next = self.lane_p_at.val();
            self.pd_l.next = self.paths.read_data.val();
        }
        self.ss_l.next = self.ss.q.val();
        if self.cap_stream.val() {
            self.ss_l.next = self.lane_s_at.val();
        }
        self.ss_base.next = self.ss_l.val().base;
        self.ss_seg.next = self.ss_l.val().seg;
        self.ss_count.next = self.ss_l.val().count;
        self.pd_next_psn.next = self.pd_l.val().next_psn;
        self.ccx_n.next = self.ccx_l.val();
        self.ps_n.next = self.ps_l.val();
        self.pd_n.next = self.pd_l.val();
        self.ss_n.next = self.ss_l.val();
        self.c_we.next = false;
        self.c_wa.next = self.cur.q.val();
        self.ps_we.next = false;
        self.pd_we.next = false;
        self.ss_we.next = false;
        self.s_clear.next = false;

        // ---- derived values ----
        self.pth5.next.lo = self.pth.q.val();
        self.pth5.next.hi = self.zero1.val();
        self.pth_wraps.next = (bit_cast::<{ PATH_BITS + 1 }, { PATH_BITS + 1 }>(self.pth5.val().into())
            + self.one_p5.val())
            >= self.ccx_l.val().paths;
        if self.pth_wraps.val() {
            self.pth_next.next = self.zero_path.val();
        } else {
            self.pth_next.next = self.pth.q.val() + self.one_path.val();
        }
        self.stm4.next.lo = self.stm.q.val();
        self.stm4.next.hi = self.zero1.val();
        if (bit_cast::<{ STREAM_BITS + 1 }, { STREAM_BITS + 1 }>(self.stm4.val().into()) + self.one_s4.val())
            >= self.ccx_l.val().streams
        {
            self.stm_next.next = self.zero_stream.val();
        } else {
            self.stm_next.next = self.stm.q.val() + self.one_stream.val();
        }
        self.count32.next.lo = self.ss_l.val().count;
        self.count32.next.hi = self.zero_z5.val();
        self.seg32.next.lo = self.ss_l.val().seg;
        self.seg32.next.hi = self.zero_z5.val();
        self.seg_b.next = self.seg32.val().into();
        self.count_b.next = self.count32.val().into();
        self.a_idx.next = self.a_msg.q.val() - self.ss_l.val().base;
        self.slot_front.next = self.ss_base.val().get_bits::<SLOT_BITS>(0);
        self.slot_seg.next = self.ss_base.val().get_bits::<SLOT_BITS>(0) + self.ss_seg.val().get_bits::<SLOT_BITS>(0);
        // The segment the segmentation point gives (its message was read
        // since the stream was chosen).
        self.seg_left.next = self.msg_prog.read_data.val().len - self.ss_l.val().off;
        self.mtu32.next.lo = self.cfg_mtu.val();
        self.mtu32.next.hi = self.zero18.val();
        self.mtu_b.next = self.mtu32.val().into();
        if self.seg_left.val() < self.mtu_b.val() {
            self.seg_len.next = self.seg_left.val();
        } else {
            self.seg_len.next = self.mtu_b.val();
        }
        self.seg_last.next = self.seg_left.val() <= self.mtu_b.val();
        self.e_len32.next.lo = self.e_len_q.q.val();
        self.e_len32.next.hi = self.zero18.val();
        self.e_len_b.next = self.e_len32.val().into();
        self.ce32.next.lo = self.a_ce.q.val();
        self.ce32.next.hi = self.zero_ce_hi.val();
        self.ce_b.next = self.ce32.val().into();

        // RTT estimation for the path in the context.
        self.rtt.srtt.next = self.pd_l.val().srtt;
        self.rtt.rttvar.next = self.pd_l.val().rttvar;
        self.rtt.has.next = self.pd_l.val().has;
        self.rtt.now.next = self.now.val();
        self.rtt.ts.next = self.a_ts.q.val();
        self.rtt.rto_min.next = self.cfg_rto_min.val();
        // The connection's, from the same sample; the probe timeout from it,
        // else from the latest estimate of any connection.
        self.crtt.srtt.next = self.ccx_l.val().srtt;
        self.crtt.rttvar.next = self.ccx_l.val().rttvar;
        self.crtt.has.next = self.ccx_l.val().has;
        self.crtt.now.next = self.now.val();
        self.crtt.ts.next = self.a_ts.q.val();
        self.crtt.rto_min.next = self.cfg_rto_min.val();
        self.pr_on.next = self.cfg_probe.val() & self.probes_built.val();
        self.ptime.srtt.next = self.last_srtt.q.val();
        self.ptime.rttvar.next = self.last_var.q.val();
        self.ptime.has.next = self.last_has.q.val();
        if self.ccx_l.val().has {
            self.ptime.srtt.next = self.ccx_l.val().srtt;
            self.ptime.rttvar.next = self.ccx_l.val().rttvar;
            self.ptime.has.next = true;
        }
        self.ptime.ack_delay.next = self.cfg_ack_delay.val();
        self.ptime.probe_min.next = self.probe_min.val();
        self.ptime.rto_min.next = self.cfg_rto_min.val();
        if self.ccx_l.val().probes == self.probes_max.val() {
            self.pr_inc.next = self.probes_max.val();
        } else {
            self.pr_inc.next = self.ccx_l.val().probes + self.one_run.val();
        }
        self.pr_cnt.next = self.ccx_l.val().probes;
        // rack: a newly acknowledged PSN's send time (read with its log
        // entry) raises rack_ts unless it was resent less than the least
        // RTT ago (its ACK may be the original's); a candidate is lost when
        // rack_ts is more than the reordering window, max(least RTT / 4,
        // reo_min) + the ACK delay, after its send time (serial compares).
        self.rk_on.next = self.cfg_rack.val() & self.rack_built.val();
        self.rk_sample.next = self.now.val() - self.a_ts.q.val();
        self.rk_t.next = self.sent_t.read_data.val();
        self.rk_resent.next = (self.rexm.q.val() & self.slot_hot.hot.val()).any();
        self.rk_later.next = self.rk_t.val() - self.ccx_l.val().rack_ts;
        self.rk_new_ok.next =
            !self.rk_resent.val() | ((self.now.val() - self.rk_t.val()) >= self.ccx_l.val().min_rtt);
        self.rk_counts.next = self.rk_new_ok.val() & !self.rk_later.val().get_bit(31) & self.rk_later.val().any();
        // ... and the path's own (`path_rack`)
        self.rk_plater.next = self.rk_t.val() - self.pd_l.val().rack_ts;
        self.rk_pcounts.next = self.rk_new_ok.val() & !self.rk_plater.val().get_bit(31) & self.rk_plater.val().any();
        self.rk_quarter.next = self.ccx_l.val().min_rtt >> self.two_sh.val();
        if self.rk_quarter.val() < self.reo_min.val() {
            self.rk_quarter.next = self.reo_min.val();
        }
        self.rk_reo.next = self.rk_quarter.val() + self.cfg_ack_delay.val();
        self.rk_margin.next = self.ccx_l.val().rack_ts - (self.rk_t.val() + self.rk_reo.val());
        self.rk_is_lost.next = !self.rk_margin.val().get_bit(31) & self.rk_margin.val().any();
        // `path_rack`: on the ACK's own path, lost against the path's own
        // latest acknowledged send time even while the path waits (at
        // most the connection's, so a candidate lost by it is lost by the
        // connection's too).
        self.prk_on.next = self.cfg_path_rack.val() & self.rack_built.val();
        self.rk_pmargin.next = self.pd_l.val().rack_ts - (self.rk_t.val() + self.rk_reo.val());
        self.rk_is_lost_own.next = self.prk_on.val()
            & (self.pth.q.val() == self.rk_own.q.val())
            & !self.rk_pmargin.val().get_bit(31)
            & self.rk_pmargin.val().any();
        self.rk_lost_now.next = (self.rk_is_lost.val() & !self.rk_wait.q.val()) | self.rk_is_lost_own.val();
        // The walk can find nothing lost when every candidate was sent at
        // or after the floor and rack_ts is within the window after it:
        // floor + window - rack_ts in [0, 2^22 ns) (outside it, e.g. a
        // floor gone stale on an idle connection, the walk runs).
        self.rk_ahead.next = (self.ccx_l.val().rack_floor + self.rk_reo.val()) - self.ccx_l.val().rack_ts;
        self.rk_need.next = self.rk_on.val() & (self.rk_ahead.val() >= self.rk_range.val());
        self.rk_dfl.next = self.rk_t.val() - self.rk_floor.q.val();
        self.rk_below.next = self.rk_dfl.val() >= self.half32.val();

        // First newly acknowledged slot at or after start_slot, circularly:
        // the first at or after it, else the first before it.
        self.ge_start.x.next = self.start_slot.q.val();
        self.newly_w.next = self.newly.q.val() & self.in_window_bits.val();
        self.first_hi.v.next = self.newly_w.val() & self.ge_start.ge.val();
        self.first_lo.v.next = self.newly_w.val() & !self.ge_start.ge.val();
        self.n_found.next = self.first_hi.any.val() | self.first_lo.any.val();
        if self.first_hi.any.val() {
            self.n_slot.next = self.first_hi.at.val();
        } else {
            self.n_slot.next = self.first_lo.at.val();
        }
        self.slot_hot.x.next = self.n_slot.val();

        // ---- the transmit attempt's choices ----
        // The next set-up connection from cur on that the pacers let send.
        self.c_may.next.lo = self.c_valid.q.val() & self.tx_mask.val();
        self.c_may.next.hi = self.c_valid.q.val() & self.tx_mask.val();
        self.rot.next = bit_cast::<{ 2 * CONNS }, { 2 * CONNS }>(self.c_may.val().into()) >> self.cur.q.val();
        self.rot_z.next.lo = self.rot.val().get_bits::<CONNS>(0);
        self.rot_z.next.hi = self.zero_rot_hi.val();
        self.conn_first.v.next = self.rot_z.val().into();
        self.cv_off_z.next.lo = self.conn_first.at.val().get_bits::<CONN_KEY_BITS>(0);
        self.cv_off_z.next.hi = self.zero1.val();
        self.scan_end.next = !self.conn_first.any.val()
            | ((self.scan_n.q.val() + bit_cast::<SCAN_BITS, SCAN_BITS>(self.cv_off_z.val().into()))
                >= self.conns_w.val());
        // The connection's paths with queued retransmissions and streams
        // with a message to segment, from the read just made.
        self.q_acc[0].next = self.zero_paths.val();
        self.can_acc[0].next = self.zero_paths.val();
        self.ret_acc[0].next = self.zero_paths.val();
        self.free_acc[0].next = self.zero_free.val();
        self.b_acc[0].next = self.zero_paths.val();
        self.lost_acc[0].next = self.zero_lost.val();
        for i in 0..PATHS {
            self.pview[i].sum.next = self.lane_p[i].read_data.val();
            self.pview[i].at.next = self.free_at[i].val();
            self.pview[i].lost_at.next = self.lost_at[i].val();
            self.lost_acc[i + 1].next = self.lost_acc[i].val() | self.pview[i].lost.val();
            self.q_acc[i + 1].next = self.q_acc[i].val();
            if self.pview[i].queued.val() {
                self.q_acc[i + 1].next = self.q_acc[i].val() | self.path_bit[i].val();
            }
            self.can_acc[i + 1].next = self.can_acc[i].val();
            if self.pview[i].can.val() {
                self.can_acc[i + 1].next = self.can_acc[i].val() | self.path_bit[i].val();
            }
            self.ret_acc[i + 1].next = self.ret_acc[i].val();
            if self.pview[i].retired.val() {
                self.ret_acc[i + 1].next = self.ret_acc[i].val() | self.path_bit[i].val();
            }
            self.free_acc[i + 1].next = self.free_acc[i].val() | self.pview[i].free.val();
            self.b_acc[i + 1].next = self.b_acc[i].val();
            if self.pview[i].busy.val() {
                self.b_acc[i + 1].next = self.b_acc[i].val() | self.path_bit[i].val();
            }
        }
        self.e_acc[0].next = self.zero_streams.val();
        for i in 0..STREAMS {
            self.sview[i].state.next = self.lane_s[i].read_data.val();
            self.e_acc[i + 1].next = self.e_acc[i].val();
            if self.sview[i].has_data.val() {
                self.e_acc[i + 1].next = self.e_acc[i].val() | self.stream_bit[i].val();
            }
        }
        // The chains' last elements (loop bounds are the only place a
        // build's size can index them).
        for i in PATHS..PATHS_END {
            self.q_bits.next = self.q_acc[i].val() & !(self.ones_paths.val() << self.ccx_l.val().paths);
            // The connection's other paths with packets out (the one in
            // the context is in `ps`, whose lane may be being written).
            self.others_busy.next = (self.b_acc[i].val()
                & !(self.ones_paths.val() << self.ccx_l.val().paths)
                & !(self.one_pathsv.val() << self.pth.q.val()))
                .any();
        }
        for i in STREAMS..STREAMS_END {
            self.e_bits.next = self.e_acc[i].val();
        }
        // ---- the connection window: its packets out over its paths (in
        // the ACK's last state the context's own path's from `ps`, whose
        // lane may be being written), its cap (the window cap times its
        // paths, of the connection being set up in S_IDLE) ----
        self.cw_on.next = self.cfg_conn_window.val() & self.cw_built.val();
        self.cw_sub.next = self.st.q.val() == self.S_HC2.val();
        self.cw_lanes.next = !(self.ones_paths.val() << self.ccx_l.val().paths);
        if self.cw_sub.val() {
            self.cw_lanes.next = !(self.ones_paths.val() << self.ccx_l.val().paths)
                & !(self.one_pathsv.val() << self.pth.q.val());
        }
        self.ot_acc[0].next = self.zero_cw.val();
        for i in 0..PATHS {
            self.ot_m[i].next = self.cw_lanes.val() & self.path_bit[i].val();
            self.ot_acc[i + 1].next = self.ot_acc[i].val();
            if self.ot_m[i].val().any() {
                self.ot_acc[i + 1].next = self.ot_acc[i].val() + self.pview[i].out_z.val();
            }
        }
        self.ot_own.next.lo = self.zero_cwnd.val();
        if self.cw_sub.val() {
            self.ot_own.next.lo = self.ps_l.val().out;
        }
        self.ot_own.next.hi = self.zero_path.val();
        for i in PATHS..PATHS_END {
            self.cw_out.next = self.ot_acc[i].val() + Bits::<CW_BITS>::from(self.ot_own.val());
        }
        self.cm_paths.next = self.ccx_l.val().paths;
        if self.st.q.val() == self.S_IDLE.val() {
            self.cm_paths.next = self.ctl_paths.val();
        }
        self.cm_a.next.lo = self.cfg_max_cwnd.val();
        self.cm_a.next.hi = self.zero_cm_hi.val();
        self.cm_b.next.lo = self.cm_paths.val();
        self.cm_b.next.hi = self.zero_cp_hi.val();
        self.cm_p.next = self.cm_a.val() * self.cm_b.val();
        self.cw_max.next = self.cm_p.val().get_bits::<CW_BITS>(0);
        self.cw_hint.next = self.a_hint.q.val();
        if self.cfg_line.val() < self.a_hint.q.val() {
            self.cw_hint.next = self.cfg_line.val();
        }
        self.cwin.cwnd.next = self.ccx_l.val().cwnd;
        self.cwin.credit.next = self.ccx_l.val().credit;
        self.cwin.last_cut.next = self.ccx_l.val().last_cut;
        self.cwin.hint.next = self.ccx_l.val().hint;
        self.cwin.scale.next = self.cfg_window_scale.val();
        self.cwin.out.next = self.cw_out.val();
        self.cwin.mtu.next = self.cfg_mtu.val();
        self.cwin.newly.next = self.a_count.q.val();
        self.cwin.ce.next = self.a_ce.q.val();
        self.cwin.now.next = self.now.val();
        self.cwin.srtt.next = self.crtt.srtt_ns.val();
        self.cwin.max.next = self.cw_max.val();
        // First queued path from rrr, first stream with data from srr (turns
        // wrap at the connection's own counts).
        self.rrr5.next.lo = self.ccx_l.val().rrr;
        self.rrr5.next.hi = self.zero1.val();
        self.srr4.next.lo = self.ccx_l.val().srr;
        self.srr4.next.hi = self.zero1.val();
        // Entry j looks at distance 15 - j (7 - j) from the start; the last
        // match, the nearest, wins.
        self.q_found.next = false;
        self.q_path.next = self.zero_path.val();
        for j in 0..PATHS {
            self.k_sum[j].next =
                bit_cast::<{ PATH_BITS + 1 }, { PATH_BITS + 1 }>(self.rrr5.val().into()) + self.k5_rev[j].val();
            self.k_at[j].next = self.k_sum[j].val();
            if self.k_sum[j].val() >= self.ccx_l.val().paths {
                self.k_at[j].next = self.k_sum[j].val() - self.ccx_l.val().paths;
            }
            if (self.k5_rev[j].val() < self.ccx_l.val().paths)
                & self.q_bits.val().get_bit(self.k_at[j].val().get_bits::<PATH_BITS>(0).index())
            {
                self.q_found.next = true;
                self.q_path.next = self.k_at[j].val().get_bits::<PATH_BITS>(0);
            }
        }
        self.e_found.next = false;
        self.e_stream.next = self.zero_stream.val();
        for j in 0..STREAMS {
            self.ks_sum[j].next =
                bit_cast::<{ STREAM_BITS + 1 }, { STREAM_BITS + 1 }>(self.srr4.val().into()) + self.k4_rev[j].val();
            self.ks_at[j].next = self.ks_sum[j].val();
            if self.ks_sum[j].val() >= self.ccx_l.val().streams {
                self.ks_at[j].next = self.ks_sum[j].val() - self.ccx_l.val().streams;
            }
            if (self.k4_rev[j].val() < self.ccx_l.val().streams)
                & self.e_bits.val().get_bit(self.ks_at[j].val().get_bits::<STREAM_BITS>(0).index())
            {
                self.e_found.next = true;
                self.e_stream.next = self.ks_at[j].val().get_bits::<STREAM_BITS>(0);
            }
        }

        // ---- sub-block inputs ----
        self.sack_wire.slots.next = self.ack_sack.val();
        self.sack_wire.cum_slot.next = self.ack_cum.val().get_bits::<8>(0);
        self.sack_order.slots.next = self.sack_wire.field.val();
        self.retx.in_valid.next = false;
        self.retx.in_op.next = self.R_LOAD.val();
        self.retx.in_key.next = self.pkey.val();
        self.retx.in_psn.next = self.a_psn.q.val();
        self.retx.in_sack.next = self.newly_w.val();
        // Clean-route repairs: a resent PSN is not declared lost again by
        // the marker rule (its repair went by another route).
        self.cr_on.next = self.cfg_clean_repairs.val() & self.cr_built.val();
        self.retx.in_resent_rule.next = !self.cr_on.val();
        self.cc.in_valid.next = false;
        self.cc.in_op.next = false;
        self.cc.in_key.next = self.pkey.val();
        self.cc.in_newly.next = self.a_count.q.val();
        self.cc.in_ce.next = self.a_ce.q.val();
        if !self.cfg_path_ecn_cut.val() {
            self.cc.in_ce.next = self.zero_ce.val();
        }
        self.cc.in_outstanding.next = self.ps_l.val().out;
        self.cc.in_srtt.next = self.rtt.srtt_ns.val();
        self.cc.in_now.next = self.now.val();
        self.cc.in_max.next = self.cfg_max_cwnd.val();
        self.health.in_valid.next = false;
        self.health.in_op.next = self.H_SENT.val();
        self.health.in_key.next = self.pkey.val();
        self.health.in_newly.next = self.a_count.q.val();
        self.health.in_lost.next = self.a_lost.q.val();
        self.health.in_repath_after.next = self.cfg_repath_after.val();
        self.health.in_retire_after.next = self.cfg_retire_after.val();
        self.health.in_loss_shift.next = self.cfg_loss_shift.val();
        // The timer's backoff: the path's RTOs in a row, at most the
        // configured doublings.
        if self.pd_l.val().run > self.cfg_max_backoff.val() {
            self.run_c.next = self.cfg_max_backoff.val();
        } else {
            self.run_c.next = self.pd_l.val().run;
        }
        self.spray.pick_valid.next = self.st.q.val() == self.S_PICK.val();
        self.spray.present.next = !(self.ones_paths.val() << self.ccx_l.val().paths);
        for i in PATHS..PATHS_END {
            self.spray.span_ok.next = self.can_acc[i].val();
            self.spray.retired.next = self.ret_acc[i].val();
            self.spray.free.next = self.free_acc[i].val();
            self.repair.retired.next = self.ret_acc[i].val();
            self.repair.lost.next = self.lost_acc[i].val();
        }
        // A repair's route: from the connection's lanes and the repaired
        // path's (`pth`) timeouts in a row, taken in S_TAKE1.
        self.repair.present.next = !(self.ones_paths.val() << self.ccx_l.val().paths);
        self.repair.p.next = self.pth.q.val();
        self.repair.turn.next = self.lane_p_at.val().rtos;
        self.spray.rr.next = self.ccx_l.val().prr;
        self.spray.seed_valid.next = self.take_ctl.val() & self.ctl_op.val();
        self.spray.seed.next = self.ctl_seed.val();
        self.spray.port_req.next = (self.st.q.val() == self.S_SETUP0.val()) | (self.st.q.val() == self.S_REPATH.val());
        self.spray.port_avoid.next = self.zero16.val();
        if self.st.q.val() == self.S_REPATH.val() {
            self.spray.port_avoid.next = self.pd_l.val().sport;
        }
        self.log_rd.next.key = self.pkey.val();
        self.log_rd.next.slot = self.retx.out_psn.val().get_bits::<WINDOW_SLOT_BITS>(0);
        if self.st.q.val() == self.S_CREDIT.val() {
            self.log_rd.next.slot = self.n_slot.val().get_bits::<WINDOW_SLOT_BITS>(0);
        }
        self.seglog.rd_addr.next = self.log_rd.val().into();
        self.log_wr.next.key = self.pkey.val();
        self.log_wr.next.slot = self.retx.out_psn.val().get_bits::<WINDOW_SLOT_BITS>(0);
        self.seglog.wr_addr.next = self.log_wr.val().into();
        self.log_new.next.stream = self.stm.q.val();
        self.log_new.next.seq = self.ss_l.val().base + self.seg_b.val();
        self.log_new.next.off = self.ss_l.val().off;
        self.log_new.next.len = self.seg_len.val().get_bits::<14>(0);
        self.seglog.wr_entry.next = self.log_new.val().into();
        self.seglog.wr_valid.next = self.st.q.val() == self.S_SEND2.val();
        // a packet's send time, written when it is sent and resent
        self.sent_t.read_address.next = self.log_rd.val().into();
        self.sent_t.write_address.next = self.log_wr.val().into();
        self.sent_t.write_data.next = self.now.val();
        self.sent_t.write_enable.next = self.rack_built.val()
            & ((self.st.q.val() == self.S_SEND2.val()) | (self.st.q.val() == self.S_TAKE3.val()));

        // ---- message slots: the read address by state ----
        self.ma_key_s.next.conn = self.cur.q.val();
        self.ma_key_s.next.stream = self.stm.q.val();
        if (self.st.q.val() == self.S_CR1.val()) | (self.st.q.val() == self.S_TAKE4.val()) {
            self.ma_key_s.next.stream = self.e_stm.val();
        }
        self.ma_s.next.key = self.ma_key_s.val().into();
        self.ma_s.next.slot = self.slot_seg.val();
        match self.st.q.val().index() {
            S_FAIL0 => {
                self.ma_s.next.slot = self.a_msg.q.val().get_bits::<SLOT_BITS>(0);
            }
            S_FAIL => {
                self.ma_s.next.slot = self.a_msg.q.val().get_bits::<SLOT_BITS>(0);
            }
            S_CREDITED => {
                self.ma_s.next.slot = self.a_msg.q.val().get_bits::<SLOT_BITS>(0);
            }
            S_CR1 => {
                self.ma_s.next.slot = self.le_seq.val().get_bits::<SLOT_BITS>(0);
            }
            S_TAKE4 => {
                self.ma_s.next.slot = self.le_seq.val().get_bits::<SLOT_BITS>(0);
            }
            S_TAKE5 => {
                self.ma_s.next.slot = self.h_seq.q.val().get_bits::<SLOT_BITS>(0);
            }
            S_COMPL0 => {
                self.ma_s.next.slot = self.slot_front.val();
            }
            S_COMPL => {
                self.ma_s.next.slot = self.slot_front.val();
            }
            S_CPL => {
                self.ma_s.next.slot = self.slot_front.val();
            }
            _ => {}
        }
        self.msg_desc.read_address.next = self.ma_s.val().into();
        self.msg_prog.read_address.next = self.ma_s.val().into();
        self.mw_s.next.key = self.skey.val();
        self.mw_s.next.slot = self.a_msg.q.val().get_bits::<SLOT_BITS>(0);
        self.desc_we.next = false;
        self.prog_we.next = false;
        self.prog_n.next = self.msg_prog.read_data.val();
        self.desc_n.next.op = self.wr_op.val();
        self.desc_n.next.len = self.wr_len.val();
        self.desc_n.next.local = self.wr_local.val();
        self.desc_n.next.remote = self.wr_remote.val();
        self.desc_n.next.rkey = self.wr_rkey.val();
        if self.wr_op.val() == self.OP_SEND.val() {
            self.desc_n.next.rkey = self.ss_l.val().rsn;
        }
        self.desc_n.next.imm = self.wr_imm.val();
        self.desc_n.next.id = self.wr_id.val();
        self.room.next = self.ss_l.val().count < self.msg_window.val();

        // ---- control ----
        self.h_op8.next.lo = self.msg_desc.read_data.val().op;
        self.h_op8.next.hi = self.zero6.val();
        self.cur_n.next = self.cur.q.val();
        self.pth_n.next = self.pth.q.val();
        self.stm_n.next = self.stm.q.val();
        self.done_v.d.next = false;
        self.sent_v.d.next = false;
        self.rto_v.d.next = false;
        self.pr_v.d.next = false;
        self.pr_b.d.next = self.ptime.timeout.val();
        self.pr_k.d.next = self.cur.q.val();
        self.rnr_v.d.next = false;
        self.wr_ready.next = false;
        self.m_rd_cmd_valid.next = false;
        self.m_cpl_valid.next = false;
        self.build.hdr_valid.next = false;
        self.cbuild.hdr_valid.next = false;
        if !self.wr_valid.val() {
            self.wr_blocked.d.next = false;
        }
        match self.st.q.val().index() {
            S_IDLE => {
                if self.take_pt.val() {
                    // the register window's path, for its snapshot
                    self.cur_n.next = self.ref_key.q.val().get_bits::<CONN_KEY_BITS>(self.conn_in_pkey.val().index());
                    self.pth_n.next = self.ref_key.q.val().get_bits::<PATH_BITS>(0);
                    self.ref_req.d.next = false;
                    self.st.d.next = self.S_PT.val();
                } else if self.take_ctl.val() {
                    if !self.ctl_op.val() {
                        self.cur_n.next = self.ctl_conn.val();
                        self.c_valid.d.next = self.c_valid.q.val() | (self.one_conns.val() << self.ctl_conn.val());
                        self.ccx_n.next.mac = self.ctl_mac.val();
                        self.ccx_n.next.ip = self.ctl_ip.val();
                        self.ccx_n.next.remote = self.ctl_remote.val();
                        self.ccx_n.next.generation = self.ctl_generation.val();
                        self.ccx_n.next.paths = self.ctl_paths.val();
                        self.ccx_n.next.streams = self.ctl_streams.val();
                        self.ccx_n.next.prr = self.zero_path.val();
                        self.ccx_n.next.rrr = self.zero_path.val();
                        self.ccx_n.next.srr = self.zero_stream.val();
                        self.ccx_n.next.has = false;
                        self.ccx_n.next.srtt = self.zero_est.val();
                        self.ccx_n.next.rttvar = self.zero_est.val();
                        self.ccx_n.next.probes = self.zero3.val();
                        self.ccx_n.next.parmed = false;
                        // rack: nothing acknowledged yet, and nothing sent
                        // before now (so the first ACK needs no walk)
                        self.ccx_n.next.min_rtt = self.zero32.val();
                        self.ccx_n.next.rack_ts = self.now.val();
                        self.ccx_n.next.rack_floor = self.now.val();
                        // the connection window: all paths' windows, no
                        // hint yet
                        self.ccx_n.next.cwnd = self.cw_max.val();
                        if !self.cw_max.val().any() {
                            self.ccx_n.next.cwnd = self.one_cw.val();
                        }
                        self.ccx_n.next.credit = self.zero_cw.val();
                        self.ccx_n.next.last_cut = self.zero32.val();
                        self.ccx_n.next.hint = self.zero32.val();
                        self.c_we.next = true;
                        self.c_wa.next = self.ctl_conn.val();
                        self.s_clear.next = true;
                        self.pth_n.next = self.zero_path.val();
                        self.a_psn.d.next = self.ctl_psn.val();
                        self.st.d.next = self.S_SETUP0.val();
                    }
                } else if self.take_ack.val() {
                    self.cur_n.next = self.ack_key.val().get_bits::<CONN_KEY_BITS>(self.conn_in_pkey.val().index());
                    self.pth_n.next = self.ack_key.val().get_bits::<PATH_BITS>(0);
                    self.h_kind.d.next = self.K_ACK.val();
                    self.h_opcode.d.next = self.OP_ACK.val();
                    self.h_psn.d.next = self.ack_cum.val();
                    self.h_sack.d.next = self.sack_order.field.val();
                    self.h_ts_echo.d.next = self.ack_ts.val();
                    self.h_ce.d.next = self.ack_ce.val();
                    self.h_pending.d.next = self.ack_pending.val();
                    self.h_sport.d.next = self.ack_sport.val();
                    self.h_stream.d.next = self.zero16.val();
                    self.h_flags.d.next = self.zero8.val();
                    self.h_len.d.next = self.zero14.val();
                    self.n_acks.d.next = self.n_acks.q.val() + self.one32.val();
                    self.st.d.next = self.S_CTLF0.val();
                } else if self.take_nak.val() {
                    self.cur_n.next = self.nak_key.val().get_bits::<CONN_KEY_BITS>(self.conn_in_pkey.val().index());
                    self.pth_n.next = self.nak_key.val().get_bits::<PATH_BITS>(0);
                    self.h_kind.d.next = self.K_NAK.val();
                    self.h_opcode.d.next = self.OP_NAK.val();
                    self.h_psn.d.next = self.nak_psn.val();
                    self.h_sport.d.next = self.nak_sport.val();
                    self.h_stream.d.next = self.nak_stream.val();
                    self.h_nak_msg.d.next = self.nak_msg_seq.val();
                    self.h_nak_code.d.next = self.nak_code.val();
                    self.h_flags.d.next = self.zero8.val();
                    self.h_len.d.next = self.zero14.val();
                    self.n_naks.d.next = self.n_naks.q.val() + self.one32.val();
                    self.st.d.next = self.S_CTLF0.val();
                } else if self.take_fb.val() {
                    self.cur_n.next = self.fb_key.val().get_bits::<CONN_KEY_BITS>(self.conn_in_pkey.val().index());
                    self.pth_n.next = self.fb_key.val().get_bits::<PATH_BITS>(0);
                    self.stm_n.next = self.fb_stream.val().get_bits::<STREAM_BITS>(0);
                    self.a_psn.d.next = self.fb_psn.val();
                    self.a_msg.d.next = self.fb_msg_seq.val();
                    self.a_ce.d.next = self.fb_ce.val();
                    self.a_ts.d.next = self.fb_ts.val();
                    self.a_hint.d.next = self.fb_hint.val();
                    self.newly.d.next = self.fb_sack.val();
                    if !self.fb_nak.val() {
                        self.st.d.next = self.S_A1.val();
                    } else {
                        self.n_naks_rx.d.next = self.n_naks_rx.q.val() + self.one32.val();
                        if self.fb_code.val() == self.NAK_TOO_SMALL.val() {
                            self.a_status.d.next = self.FAIL_TOO_SMALL.val();
                        } else {
                            self.a_status.d.next = self.FAIL_ACCESS.val();
                        }
                        if self.fb_code.val() == self.NAK_NO_RECV.val() {
                            self.st.d.next = self.S_HOLD1.val();
                        } else if ((self.fb_code.val() == self.NAK_ACCESS.val())
                            | (self.fb_code.val() == self.NAK_TOO_SMALL.val()))
                            & (self.fb_stream.val().get_bits::<FB_STREAM_HI>(self.stream_hi_at.val().index())
                                == self.zero13.val())
                        {
                            self.st.d.next = self.S_FAIL0.val();
                        }
                    }
                } else if self.take_rto.val() {
                    self.cur_n.next = self.rto_key.val().get_bits::<CONN_KEY_BITS>(self.conn_in_pkey.val().index());
                    self.pth_n.next = self.rto_key.val().get_bits::<PATH_BITS>(0);
                    self.n_rtos.d.next = self.n_rtos.q.val() + self.one32.val();
                    self.st.d.next = self.S_RTO0.val();
                } else if self.take_probe.val() {
                    self.cur_n.next = self.probe_key.val();
                    self.pth_n.next = self.zero_path.val();
                    self.st.d.next = self.S_PR0.val();
                } else if self.take_rel.val() {
                    self.cur_n.next = self.release_key.val().get_bits::<CONN_KEY_BITS>(self.conn_in_pkey.val().index());
                    self.pth_n.next = self.release_key.val().get_bits::<PATH_BITS>(0);
                    self.a_psn.d.next = self.release_psn.val();
                    self.st.d.next = self.S_REL1.val();
                } else if self.take_wr.val() {
                    self.cur_n.next = self.wr_key.val().get_bits::<CONN_KEY_BITS>(self.conn_in_skey.val().index());
                    self.stm_n.next = self.wr_key.val().get_bits::<STREAM_BITS>(0);
                    self.st.d.next = self.S_WR1.val();
                } else if self.take_go.val() {
                    self.cur_n.next = self.conn_rr.q.val();
                    self.scan_n.d.next = self.zero_scan.val();
                    self.st.d.next = self.S_SCAN.val();
                }
            }

            // ---- the register window's path, loaded (its snapshot is
            // written in the next cycle) ----
            S_PT => {
                self.st.d.next = self.S_IDLE.val();
            }

            // ---- a work request into its stream's ring ----
            S_WR1 => {
                if self.wr_valid.val() & self.room.val() {
                    self.wr_ready.next = true;
                    self.mw_s.next.slot = self.slot_front.val() + self.ss_count.val().get_bits::<SLOT_BITS>(0);
                    self.desc_we.next = true;
                    self.prog_n.next.acked = self.zero32.val();
                    self.prog_n.next.fail = self.zero2.val();
                    self.prog_n.next.len = self.wr_len.val();
                    self.prog_we.next = true;
                    if self.wr_op.val() == self.OP_SEND.val() {
                        self.ss_n.next.rsn = self.ss_l.val().rsn + self.one32.val();
                    }
                    self.ss_n.next.count = self.ss_l.val().count + self.one_count.val();
                    self.ss_we.next = true;
                } else if self.wr_valid.val() {
                    self.wr_blocked.d.next = true;
                }
                self.st.d.next = self.S_IDLE.val();
            }

            // ---- connection setup: a source port, the PSN window and the window per path ----
            S_SETUP0 => {
                self.st.d.next = self.S_SETUPW.val();
            }
            S_SETUPW => {
                if self.spray.port_valid.val() {
                    self.pd_n.next.sport = self.spray.port.val();
                    self.st.d.next = self.S_SETUP.val();
                }
            }
            S_SETUP => {
                self.retx.in_valid.next = true;
                self.retx.in_op.next = self.R_LOAD.val();
                // cc's LOAD (`CC_OP_LOAD`): the window starts at its cap.
                self.cc.in_valid.next = true;
                self.cc.in_op.next = true;
                self.ps_n.next.cwnd = self.cfg_max_cwnd.val();
                self.ps_n.next.out = self.zero_cwnd.val();
                self.ps_n.next.queued = false;
                self.ps_n.next.can = true;
                self.ps_n.next.retired = false;
                self.ps_n.next.armed = false;
                self.ps_we.next = true;
                self.pd_n.next.next_psn = self.a_psn.q.val();
                self.pd_n.next.run = self.zero3.val();
                self.pd_n.next.has = false;
                self.pd_n.next.srtt = self.zero_est.val();
                self.pd_n.next.rttvar = self.zero_est.val();
                self.pd_n.next.sent = self.zero32.val();
                self.pd_n.next.retx = self.zero32.val();
                self.pd_n.next.ecn = self.zero32.val();
                self.pd_n.next.rack_ts = self.now.val();
                self.pd_we.next = true;
                if self.pth_wraps.val() {
                    self.st.d.next = self.S_IDLE.val();
                } else {
                    self.pth_n.next = self.pth.q.val() + self.one_path.val();
                    self.st.d.next = self.S_SETUP0.val();
                }
            }

            // ---- ACK and NAK frames ----
            S_CTLF0 => {
                self.st.d.next = self.S_CTLF.val();
            }
            S_CTLF => {
                if self.one_builder.val() {
                    self.build.hdr_valid.next = true;
                } else {
                    self.cbuild.hdr_valid.next = true;
                }
                if self.ctl_hdr_ready.val() {
                    self.st.d.next = self.S_IDLE.val();
                }
            }

            // ---- a received ACK ----
            S_A1 => {
                self.retx.in_valid.next = true;
                self.retx.in_op.next = self.R_ACK.val();
                self.st.d.next = self.S_A2.val();
            }
            S_A2 => {
                self.st.d.next = self.S_A3.val();
            }
            S_A3 => {
                if !self.retx.out_ok.val() {
                    self.st.d.next = self.S_IDLE.val();
                } else {
                    self.ps_n.next.out = self.retx.out_outstanding.val();
                    self.ps_n.next.queued = self.retx.out_queued.val();
                    self.ps_n.next.can = self.retx.out_can_send.val();
                    self.ps_we.next = true;
                    self.pd_n.next.srtt = self.rtt.srtt_next.val();
                    self.pd_n.next.rttvar = self.rtt.rttvar_next.val();
                    self.pd_n.next.has = true;
                    self.pd_n.next.ecn = self.pd_l.val().ecn + self.ce_b.val();
                    self.pd_we.next = true;
                    self.pr_first.d.next = !self.ccx_l.val().has;
                    if self.probes_built.val() {
                        self.ccx_n.next.srtt = self.crtt.srtt_next.val();
                        self.ccx_n.next.rttvar = self.crtt.rttvar_next.val();
                        self.ccx_n.next.has = true;
                        self.c_we.next = true;
                        self.last_srtt.d.next = self.crtt.srtt_next.val();
                        self.last_var.d.next = self.crtt.rttvar_next.val();
                        self.last_has.d.next = true;
                        if !self.ccx_l.val().has | (self.rk_sample.val() < self.ccx_l.val().min_rtt) {
                            self.ccx_n.next.min_rtt = self.rk_sample.val();
                        }
                    }
                    // the receiver's rate hint, at most the line rate
                    if self.cw_built.val() & self.a_hint.q.val().any() {
                        self.ccx_n.next.hint = self.cw_hint.val();
                        self.c_we.next = true;
                    }
                    self.rexm.d.next = self.retx.out_rexmit.val();
                    self.newly.d.next = self.retx.out_newly.val();
                    self.a_count.d.next = self.retx.out_count.val();
                    self.a_lost.d.next = self.retx.out_lost.val();
                    self.start_slot.d.next = self.pd_next_psn.val().get_bits::<8>(0) & self.window_slot_mask.val();
                    self.st.d.next = self.S_CREDIT.val();
                }
            }
            S_CREDIT => {
                if self.n_found.val() {
                    self.st.d.next = self.S_CR1.val();
                } else {
                    self.st.d.next = self.S_HC.val();
                }
            }
            S_CR1 => {
                // The log entry of slot n_slot is on rd_entry now (and its
                // send time on sent_t's read_data).
                if self.rack_built.val() & self.rk_counts.val() {
                    self.ccx_n.next.rack_ts = self.rk_t.val();
                    self.c_we.next = true;
                }
                if self.rack_built.val() & self.rk_pcounts.val() {
                    self.pd_n.next.rack_ts = self.rk_t.val();
                    self.pd_we.next = true;
                }
                self.newly.d.next = self.newly_w.val() & !self.slot_hot.hot.val();
                self.stm_n.next = self.e_stm.val();
                self.a_msg.d.next = self.le.val().seq;
                self.e_len_q.d.next = self.le.val().len;
                self.st.d.next = self.S_CREDITED.val();
            }
            S_CREDITED => {
                if self.a_idx.val() < self.count_b.val() {
                    self.prog_n.next.acked = self.msg_prog.read_data.val().acked + self.e_len_b.val();
                    self.prog_we.next = true;
                }
                self.ret.d.next = self.S_CREDIT.val();
                self.st.d.next = self.S_COMPL0.val();
            }
            S_HC => {
                self.health.in_valid.next = true;
                self.health.in_op.next = self.H_ACK.val();
                self.cc.in_valid.next = true;
                self.st.d.next = self.S_HC1.val();
            }
            S_HC1 => {
                self.st.d.next = self.S_HC2.val();
            }
            S_HC2 => {
                self.ps_n.next.retired = self.health.out_retired.val();
                self.ps_n.next.lost = self.health.out_lost.val();
                self.ps_n.next.rtos = self.health.out_rtos.val();
                self.ps_n.next.cwnd = self.cc.out_cwnd.val();
                self.ps_n.next.armed = self.ps_l.val().out != self.zero_cwnd.val();
                self.ps_we.next = true;
                self.rto_v.d.next = true;
                self.rto_b.d.next = self.rtt.rto.val();
                self.rto_k.d.next = self.pkey.val();
                self.rto_a.d.next = self.ps_l.val().out != self.zero_cwnd.val();
                // the connection window after the ACK (its packets out
                // counted after it)
                if self.cw_on.val() {
                    self.ccx_n.next.cwnd = self.cwin.cwnd_next.val();
                    self.ccx_n.next.credit = self.cwin.credit_next.val();
                    self.ccx_n.next.last_cut = self.cwin.cut_next.val();
                    self.c_we.next = true;
                }
                if self.a_count.q.val() != self.zero_cwnd.val() {
                    self.rto_s.d.next = self.zero3.val();
                    self.pd_n.next.run = self.zero3.val();
                    self.pd_we.next = true;
                } else {
                    self.rto_s.d.next = self.run_c.val();
                }
                // The probe timer: progress ends its backoff, and restarts
                // it only with the connection's first RTT sample (it runs
                // from the newest send); nothing outstanding stops it;
                // otherwise it runs on, or is armed if it is not.
                if self.pr_on.val() {
                    if self.a_count.q.val() != self.zero_cwnd.val() {
                        self.ccx_n.next.probes = self.zero3.val();
                        self.pr_cnt.next = self.zero3.val();
                    }
                    if !(self.others_busy.val() | (self.ps_l.val().out != self.zero_cwnd.val())) {
                        self.pr_v.d.next = true;
                        self.pr_a.d.next = false;
                        self.ccx_n.next.parmed = false;
                    } else if !self.ccx_l.val().parmed
                        | ((self.a_count.q.val() != self.zero_cwnd.val()) & self.pr_first.q.val())
                    {
                        self.pr_v.d.next = true;
                        self.pr_a.d.next = true;
                        self.ccx_n.next.parmed = true;
                    }
                    self.c_we.next = true;
                }
                // rack: then the walk over the connection's paths.
                self.rk_walk.d.next = self.rk_need.val();
                self.rk_first.d.next = true;
                self.rk_own.d.next = self.pth.q.val();
                self.rk_lost.d.next = self.zero_cwnd.val();
                self.rk_floor.d.next = self.now.val();
                if self.health.out_repath.val() {
                    self.st.d.next = self.S_REPATH.val();
                } else if self.rk_need.val() {
                    self.st.d.next = self.S_RKN.val();
                } else {
                    self.st.d.next = self.S_IDLE.val();
                }
            }
            S_REPATH => {
                self.st.d.next = self.S_REPATH2.val();
            }
            S_REPATH2 => {
                if self.spray.port_valid.val() {
                    self.pd_n.next.sport = self.spray.port.val();
                    self.pd_we.next = true;
                    self.n_repaths.d.next = self.n_repaths.q.val() + self.one32.val();
                    if self.rk_walk.q.val() & self.rack_built.val() {
                        self.st.d.next = self.S_RKN.val();
                    } else {
                        self.st.d.next = self.S_IDLE.val();
                    }
                }
            }

            // ---- rack: on each path of the connection in turn, first its
            // newest PSN in flight: if that is a candidate sent within the
            // window, the path waits for its ACK (nothing on it is lost
            // yet). Then the candidates (neither acknowledged, queued nor
            // held) from una up: a lost one is queued and counted (not on
            // a path that waits), a resent one that is not lost passed
            // over, and the first original that is not lost ends the path
            // (originals were sent in PSN order, so none above it is
            // lost); the candidates passed keep the floor, so a path that
            // waits is walked too. Then the path's health counts the
            // losses (which may re-path it). `PathLog::candidates` and
            // `Endpoint::rack_detect` in the model. (Without rack these
            // states are never entered, and do nothing but return.) ----
            S_RKL => {
                // the path's summary is loaded now
                if !self.rack_built.val() {
                    self.st.d.next = self.S_IDLE.val();
                } else if self.ps_l.val().out != self.zero_cwnd.val() {
                    self.retx.in_valid.next = true;
                    self.retx.in_op.next = self.R_AFTER.val();
                    self.retx.in_psn.next = self.pd_next_psn.val() - self.one24.val();
                    self.rk_tail.d.next = true;
                    self.rk_wait.d.next = false;
                    self.st.d.next = self.S_RK2.val();
                } else {
                    self.st.d.next = self.S_RKN.val();
                }
            }
            S_RK2 => {
                self.st.d.next = self.S_IDLE.val();
                if self.rack_built.val() {
                    self.st.d.next = self.S_RK3.val();
                }
            }
            S_RK3 => {
                // a candidate, or none; its send time is read now
                if !self.rack_built.val() {
                    self.st.d.next = self.S_IDLE.val();
                } else if self.retx.out_ok.val() {
                    self.rk_psn.d.next = self.retx.out_psn.val();
                    self.rk_res.d.next = self.retx.out_resent.val();
                    self.st.d.next = self.S_RK4.val();
                } else if self.rk_tail.q.val() {
                    // the newest is no candidate: the walk from una
                    self.rk_tail.d.next = false;
                    self.retx.in_valid.next = true;
                    self.retx.in_op.next = self.R_FIRST.val();
                    self.st.d.next = self.S_RK2.val();
                } else {
                    self.st.d.next = self.S_RKD.val();
                }
            }
            S_RK4 => {
                if !self.rack_built.val() {
                    self.st.d.next = self.S_IDLE.val();
                } else if self.rk_tail.q.val() {
                    // the newest is a candidate: the path waits unless it
                    // is lost; the walk from una either way
                    self.rk_tail.d.next = false;
                    self.rk_wait.d.next = !self.rk_is_lost.val();
                    self.retx.in_valid.next = true;
                    self.retx.in_op.next = self.R_FIRST.val();
                    self.st.d.next = self.S_RK2.val();
                } else if self.rk_lost_now.val() {
                    self.retx.in_valid.next = true;
                    self.retx.in_op.next = self.R_LOSE.val();
                    self.retx.in_psn.next = self.rk_psn.q.val();
                    self.st.d.next = self.S_RK5.val();
                } else if self.rk_res.q.val() {
                    self.retx.in_valid.next = true;
                    self.retx.in_op.next = self.R_AFTER.val();
                    self.retx.in_psn.next = self.rk_psn.q.val() + self.one24.val();
                    self.st.d.next = self.S_RK2.val();
                } else {
                    self.st.d.next = self.S_RKD.val();
                }
                // a candidate not lost: the floor (the originals above the
                // one ending the path were sent after it, their resends
                // later still; the newest was sent after all of them)
                if !self.rk_tail.q.val() & !self.rk_lost_now.val() & self.rk_below.val() {
                    self.rk_floor.d.next = self.rk_t.val();
                }
            }
            S_RK5 => {
                self.st.d.next = self.S_IDLE.val();
                if self.rack_built.val() {
                    self.st.d.next = self.S_RK6.val();
                }
            }
            S_RK6 => {
                // queued; on to the next candidate
                if self.rack_built.val() {
                    self.ps_n.next.out = self.retx.out_outstanding.val();
                    self.ps_n.next.queued = self.retx.out_queued.val();
                    self.ps_n.next.can = self.retx.out_can_send.val();
                    self.ps_we.next = true;
                    if self.retx.out_ok.val() {
                        self.rk_lost.d.next = self.rk_lost.q.val() + self.one_cwnd.val();
                    }
                    self.retx.in_valid.next = true;
                    self.retx.in_op.next = self.R_AFTER.val();
                    self.retx.in_psn.next = self.rk_psn.q.val() + self.one24.val();
                    self.st.d.next = self.S_RK2.val();
                } else {
                    self.st.d.next = self.S_IDLE.val();
                }
            }
            S_RKD => {
                // the path's losses to its health
                if !self.rack_built.val() {
                    self.st.d.next = self.S_IDLE.val();
                } else if self.rk_lost.q.val() != self.zero_cwnd.val() {
                    self.health.in_valid.next = true;
                    self.health.in_op.next = self.H_ACK.val();
                    self.health.in_newly.next = self.zero_cwnd.val();
                    self.health.in_lost.next = self.rk_lost.q.val();
                    self.st.d.next = self.S_RKH.val();
                } else {
                    self.st.d.next = self.S_RKN.val();
                }
            }
            S_RKH => {
                self.st.d.next = self.S_IDLE.val();
                if self.rack_built.val() {
                    self.st.d.next = self.S_RKN.val();
                }
            }
            S_RKN => {
                if !self.rack_built.val() {
                    self.st.d.next = self.S_IDLE.val();
                } else if self.rk_lost.q.val() != self.zero_cwnd.val() {
                    // the health's answer
                    self.ps_n.next.retired = self.health.out_retired.val();
                    self.ps_n.next.lost = self.health.out_lost.val();
                    self.ps_n.next.rtos = self.health.out_rtos.val();
                    self.ps_we.next = true;
                    self.rk_lost.d.next = self.zero_cwnd.val();
                    if self.health.out_repath.val() {
                        self.st.d.next = self.S_REPATH.val();
                    }
                } else if self.rk_first.q.val() {
                    self.rk_first.d.next = false;
                    self.pth_n.next = self.zero_path.val();
                    self.st.d.next = self.S_RKL.val();
                } else if self.pth_wraps.val() {
                    self.rk_walk.d.next = false;
                    self.ccx_n.next.rack_floor = self.rk_floor.q.val();
                    self.c_we.next = true;
                    self.st.d.next = self.S_IDLE.val();
                } else {
                    self.pth_n.next = self.pth_next.val();
                    self.st.d.next = self.S_RKL.val();
                }
            }

            // ---- NAKs ----
            S_HOLD1 => {
                self.retx.in_valid.next = true;
                self.retx.in_op.next = self.R_HOLD.val();
                self.st.d.next = self.S_HOLD2.val();
            }
            S_HOLD2 => {
                self.st.d.next = self.S_NAK.val();
            }
            S_NAK => {
                self.ps_n.next.out = self.retx.out_outstanding.val();
                self.ps_n.next.queued = self.retx.out_queued.val();
                self.ps_n.next.can = self.retx.out_can_send.val();
                self.ps_we.next = true;
                if self.retx.out_ok.val() {
                    self.rnr_v.d.next = true;
                    self.rnr_k.d.next = self.pkey.val();
                    self.rnr_p.d.next = self.a_psn.q.val();
                }
                self.st.d.next = self.S_IDLE.val();
            }
            // The model's SendQueue::fail. A NAK names a packet that was
            // sent, so its message is at or before the segmentation point;
            // the branch for a message beyond it keeps the model's rule (all
            // its bytes count as acknowledged) although no NAK reaches it.
            S_FAIL0 => {
                self.st.d.next = self.S_FAIL.val();
            }
            S_FAIL => {
                self.ret.d.next = self.S_IDLE.val();
                self.st.d.next = self.S_COMPL0.val();
                if (self.a_idx.val() < self.count_b.val()) & (self.msg_prog.read_data.val().fail == self.zero2.val()) {
                    self.prog_n.next.fail = self.a_status.q.val();
                    if self.a_idx.val() > self.seg_b.val() {
                        self.prog_n.next.acked =
                            self.msg_prog.read_data.val().acked + self.msg_prog.read_data.val().len;
                    } else if self.a_idx.val() == self.seg_b.val() {
                        self.prog_n.next.acked = self.msg_prog.read_data.val().acked
                            + self.msg_prog.read_data.val().len
                            - self.ss_l.val().off;
                    }
                    self.prog_we.next = true;
                    self.skip_compl.d.next = true;
                    if self.a_idx.val() == self.seg_b.val() {
                        self.ss_n.next.off = self.zero32.val();
                        self.ss_n.next.seg = self.ss_l.val().seg + self.one_count.val();
                        self.ss_we.next = true;
                        self.st.d.next = self.S_SKIP0.val();
                    }
                }
            }
            // Past failed messages at the segmentation point, then completions.
            S_SKIP0 => {
                self.st.d.next = self.S_SKIP.val();
            }
            S_SKIP => {
                if (self.ss_l.val().seg < self.ss_l.val().count)
                    & (self.msg_prog.read_data.val().fail != self.zero2.val())
                {
                    self.ss_n.next.seg = self.ss_l.val().seg + self.one_count.val();
                    self.ss_we.next = true;
                    self.st.d.next = self.S_SKIP0.val();
                } else if self.skip_compl.q.val() {
                    self.st.d.next = self.S_COMPL0.val();
                } else {
                    self.st.d.next = self.S_IDLE.val();
                }
            }
            S_COMPL0 => {
                self.st.d.next = self.S_COMPL.val();
            }
            S_COMPL => {
                if (self.ss_l.val().count != self.zero_count.val())
                    & (self.ss_l.val().seg != self.zero_count.val())
                    & (self.msg_prog.read_data.val().acked >= self.msg_prog.read_data.val().len)
                {
                    self.st.d.next = self.S_CPL.val();
                } else {
                    self.st.d.next = self.ret.q.val();
                }
            }
            S_CPL => {
                self.m_cpl_valid.next = true;
                if self.m_cpl_ready.val() {
                    self.ss_n.next.base = self.ss_l.val().base + self.one32.val();
                    self.ss_n.next.count = self.ss_l.val().count - self.one_count.val();
                    self.ss_n.next.seg = self.ss_l.val().seg - self.one_count.val();
                    self.ss_we.next = true;
                    self.wr_blocked.d.next = false;
                    self.st.d.next = self.S_COMPL0.val();
                }
            }

            // ---- a retransmission timeout ----
            S_RTO0 => {
                self.retx.in_valid.next = true;
                self.retx.in_op.next = self.R_RTO.val();
                self.health.in_valid.next = true;
                self.health.in_op.next = self.H_RTO.val();
                self.st.d.next = self.S_RTO1.val();
            }
            S_RTO1 => {
                self.st.d.next = self.S_RTO2.val();
            }
            S_RTO2 => {
                self.ps_n.next.out = self.retx.out_outstanding.val();
                self.ps_n.next.queued = self.retx.out_queued.val();
                self.ps_n.next.can = self.retx.out_can_send.val();
                self.ps_n.next.retired = self.health.out_retired.val();
                self.ps_n.next.lost = self.health.out_lost.val();
                self.ps_n.next.rtos = self.health.out_rtos.val();
                self.ps_n.next.armed = self.retx.out_outstanding.val() != self.zero_cwnd.val();
                self.ps_we.next = true;
                self.rto_v.d.next = true;
                self.rto_b.d.next = self.rtt.rto.val();
                self.rto_k.d.next = self.pkey.val();
                self.rto_a.d.next = self.retx.out_outstanding.val() != self.zero_cwnd.val();
                if self.run_c.val() == self.cfg_max_backoff.val() {
                    self.rto_s.d.next = self.cfg_max_backoff.val();
                } else {
                    self.rto_s.d.next = self.run_c.val() + self.one_run.val();
                    self.pd_n.next.run = self.run_c.val() + self.one_run.val();
                    self.pd_we.next = true;
                }
                if self.health.out_repath.val() {
                    self.st.d.next = self.S_REPATH.val();
                } else {
                    self.st.d.next = self.S_IDLE.val();
                }
            }

            // ---- a tail probe: each path of the connection with packets
            // out and none queued queues one (`retx` PROBE); then the
            // timer runs again, one backoff step further ----
            // (Without tail probes these states are never entered, and do
            // nothing but return.)
            S_PR0 => {
                self.st.d.next = self.S_IDLE.val();
                if self.probes_built.val() {
                    self.st.d.next = self.S_PR1.val();
                }
            }
            S_PR1 => {
                if !self.ccx_l.val().parmed | !self.probes_built.val() {
                    // disarmed since it fired
                    self.st.d.next = self.S_IDLE.val();
                } else if (self.ps_l.val().out != self.zero_cwnd.val()) & !self.ps_l.val().queued {
                    self.retx.in_valid.next = true;
                    self.retx.in_op.next = self.R_PROBE.val();
                    self.st.d.next = self.S_PR2.val();
                } else {
                    self.st.d.next = self.S_PRN.val();
                }
            }
            S_PR2 => {
                self.st.d.next = self.S_IDLE.val();
                if self.probes_built.val() {
                    self.st.d.next = self.S_PR3.val();
                }
            }
            S_PR3 => {
                if self.probes_built.val() {
                    self.ps_n.next.out = self.retx.out_outstanding.val();
                    self.ps_n.next.queued = self.retx.out_queued.val();
                    self.ps_n.next.can = self.retx.out_can_send.val();
                    self.ps_we.next = true;
                    if self.retx.out_ok.val() {
                        self.n_probes.d.next = self.n_probes.q.val() + self.one32.val();
                    }
                    self.st.d.next = self.S_PRN.val();
                } else {
                    self.st.d.next = self.S_IDLE.val();
                }
            }
            S_PRN => {
                if self.pth_wraps.val() | !self.probes_built.val() {
                    if self.probes_built.val() {
                        self.pr_cnt.next = self.pr_inc.val();
                        self.ccx_n.next.probes = self.pr_inc.val();
                        self.pr_v.d.next = true;
                        self.pr_a.d.next = self.others_busy.val() | (self.ps_l.val().out != self.zero_cwnd.val());
                        self.ccx_n.next.parmed =
                            self.others_busy.val() | (self.ps_l.val().out != self.zero_cwnd.val());
                        self.c_we.next = true;
                    }
                    self.st.d.next = self.S_IDLE.val();
                } else {
                    self.pth_n.next = self.pth_next.val();
                    self.st.d.next = self.S_PR0.val();
                }
            }

            // ---- a held PSN released ----
            S_REL1 => {
                self.retx.in_valid.next = true;
                self.retx.in_op.next = self.R_RELEASE.val();
                self.st.d.next = self.S_REL2.val();
            }
            S_REL2 => {
                self.st.d.next = self.S_RELEASED.val();
            }
            S_RELEASED => {
                self.ps_n.next.out = self.retx.out_outstanding.val();
                self.ps_n.next.queued = self.retx.out_queued.val();
                self.ps_n.next.can = self.retx.out_can_send.val();
                self.ps_we.next = true;
                self.st.d.next = self.S_IDLE.val();
            }

            // ---- one transmit attempt ----
            S_SCAN => {
                if self.scan_end.val() {
                    self.done_v.d.next = true;
                    self.st.d.next = self.S_IDLE.val();
                } else {
                    self.cur_n.next = self.cur.q.val() + self.cv_off_z.val().lo;
                    self.scan_n.d.next =
                        self.scan_n.q.val() + bit_cast::<SCAN_BITS, SCAN_BITS>(self.cv_off_z.val().into());
                    self.st.d.next = self.S_TRY.val();
                }
            }
            S_TRY => {
                if self.q_found.val() {
                    self.pth_n.next = self.q_path.val();
                    self.st.d.next = self.S_TAKE1.val();
                } else if self.e_found.val() & (!self.cw_on.val() | self.cwin.room.val()) {
                    // new data, if the connection window has room
                    self.stm_n.next = self.e_stream.val();
                    self.st.d.next = self.S_PICK.val();
                } else {
                    self.cur_n.next = self.cur.q.val() + self.one_conn.val();
                    self.scan_n.d.next = self.scan_n.q.val() + self.one_scan.val();
                    self.st.d.next = self.S_SCAN.val();
                }
            }
            S_TAKE1 => {
                self.retx.in_valid.next = true;
                self.retx.in_op.next = self.R_TAKE.val();
                self.rq.d.next = self.repair.q.val();
                self.st.d.next = self.S_TAKE2.val();
            }
            S_TAKE2 => {
                self.st.d.next = self.S_TAKE3.val();
            }
            S_TAKE3 => {
                // retx's output (the PSN) is valid now; the log read is under way.
                self.ps_n.next.out = self.retx.out_outstanding.val();
                self.ps_n.next.queued = self.retx.out_queued.val();
                self.ps_n.next.can = self.retx.out_can_send.val();
                self.ps_we.next = true;
                self.h_psn.d.next = self.retx.out_psn.val();
                self.ccx_n.next.rrr = self.pth_next.val();
                self.c_we.next = true;
                // Every send restarts the probe timer.
                if self.pr_on.val() {
                    self.pr_v.d.next = true;
                    self.pr_a.d.next = true;
                    self.ccx_n.next.parmed = true;
                }
                self.st.d.next = self.S_TAKE4.val();
            }
            S_TAKE4 => {
                self.stm_n.next = self.e_stm.val();
                self.h_seq.d.next = self.le.val().seq;
                self.h_off.d.next = self.le.val().off;
                self.h_len.d.next = self.le.val().len;
                self.h_kind.d.next = self.K_DATA.val();
                self.h_flags.d.next = self.F_RETX_LAST.val();
                // (the route's source port, read at {connection, rq} since S_TAKE2)
                self.h_clean.d.next = self.cr_on.val();
                if self.cr_on.val() {
                    self.h_sport.d.next = self.sports.read_data.val();
                }
                self.n_retx.d.next = self.n_retx.q.val() + self.one32.val();
                self.pd_n.next.retx = self.pd_l.val().retx + self.one32.val();
                self.pd_we.next = true;
                self.st.d.next = self.S_TAKE5.val();
            }
            S_TAKE5 => {
                self.mc.d.next = self.msg_desc.read_data.val();
                self.h_opcode.d.next = self.h_op8.val().into();
                self.st.d.next = self.S_DMA.val();
            }
            S_PICK => {
                self.st.d.next = self.S_PICK2.val();
            }
            S_PICK2 => {
                if self.spray.out_found.val() {
                    self.pth_n.next = self.spray.out_path.val();
                    self.st.d.next = self.S_SEND1.val();
                } else {
                    self.cur_n.next = self.cur.q.val() + self.one_conn.val();
                    self.scan_n.d.next = self.scan_n.q.val() + self.one_scan.val();
                    self.st.d.next = self.S_SCAN.val();
                }
            }
            S_SEND1 => {
                self.retx.in_valid.next = true;
                self.retx.in_op.next = self.R_SEND.val();
                self.health.in_valid.next = true;
                self.health.in_op.next = self.H_SENT.val();
                self.st.d.next = self.S_SENDW.val();
            }
            S_SENDW => {
                self.st.d.next = self.S_SEND2.val();
            }
            S_SEND2 => {
                // retx's output (the new PSN) is valid; the log entry is written now.
                self.ps_n.next.out = self.retx.out_outstanding.val();
                self.ps_n.next.queued = self.retx.out_queued.val();
                self.ps_n.next.can = self.retx.out_can_send.val();
                self.ps_n.next.retired = self.health.out_retired.val();
                self.ps_n.next.lost = self.health.out_lost.val();
                self.ps_n.next.rtos = self.health.out_rtos.val();
                self.pd_n.next.next_psn = self.retx.out_psn.val() + self.one24.val();
                self.pd_n.next.sent = self.pd_l.val().sent + self.one32.val();
                self.h_psn.d.next = self.retx.out_psn.val();
                self.h_seq.d.next = self.ss_l.val().base + self.seg_b.val();
                self.h_off.d.next = self.ss_l.val().off;
                self.h_len.d.next = self.seg_len.val().get_bits::<14>(0);
                self.h_kind.d.next = self.K_DATA.val();
                self.h_clean.d.next = false;
                self.mc.d.next = self.msg_desc.read_data.val();
                self.h_opcode.d.next = self.h_op8.val().into();
                if self.seg_last.val() {
                    self.h_flags.d.next = self.F_LAST.val();
                    self.ss_n.next.off = self.zero32.val();
                    self.ss_n.next.seg = self.ss_l.val().seg + self.one_count.val();
                } else {
                    self.h_flags.d.next = self.zero8.val();
                    self.ss_n.next.off = self.ss_l.val().off + self.seg_len.val();
                }
                self.ss_we.next = true;
                self.ccx_n.next.prr = self.pth_next.val();
                // (The stream search wraps at the connection's stream count,
                // so an unwrapped next stream would search the same way.)
                self.ccx_n.next.srr = self.stm_next.val();
                self.c_we.next = true;
                // Every send restarts the probe timer.
                if self.pr_on.val() {
                    self.pr_v.d.next = true;
                    self.pr_a.d.next = true;
                    self.ccx_n.next.parmed = true;
                }
                if !self.ps_l.val().armed {
                    self.rto_v.d.next = true;
                    self.rto_b.d.next = self.rtt.rto.val();
                    self.rto_k.d.next = self.pkey.val();
                    self.rto_a.d.next = true;
                    self.rto_s.d.next = self.run_c.val();
                    self.ps_n.next.armed = true;
                }
                self.ps_we.next = true;
                self.pd_we.next = true;
                self.n_data.d.next = self.n_data.q.val() + self.one32.val();
                self.st.d.next = self.S_DMA.val();
            }
            // The payload read goes out first, so that it arrives while the
            // frame before this one is still being sent.
            S_DMA => {
                self.m_rd_cmd_valid.next = true;
                if self.m_rd_cmd_ready.val() {
                    self.st.d.next = self.S_HDR.val();
                }
            }
            S_HDR => {
                self.build.hdr_valid.next = true;
                if self.build.hdr_ready.val() {
                    self.conn_rr.d.next = self.cur.q.val() + self.one_conn.val();
                    self.sent_v.d.next = true;
                    self.sent_c.d.next = self.cur.q.val();
                    self.sent_l.d.next = self.h_len.q.val();
                    self.done_v.d.next = true;
                    // A finished message may leave failed ones at the
                    // segmentation point.
                    self.skip_compl.d.next = false;
                    if self.h_flags.q.val() == self.F_LAST.val() {
                        self.st.d.next = self.S_SKIP0.val();
                    } else {
                        self.st.d.next = self.S_IDLE.val();
                    }
                }
            }
            _ => {
                self.st.d.next = self.S_IDLE.val();
            }
        }
        self.cur.d.next = self.cur_n.val();
        self.pth.d.next = self.pth_n.val();
        self.stm.d.next = self.stm_n.val();
        // Without tail probes the connection's estimate and probe state
        // are constant (their table columns unread, so removed).
        if !self.probes_built.val() {
            self.ccx_n.next.has = false;
            self.ccx_n.next.srtt = self.zero_est.val();
            self.ccx_n.next.rttvar = self.zero_est.val();
            self.ccx_n.next.probes = self.zero3.val();
            self.ccx_n.next.parmed = false;
        }
        // Without the connection window, its state is constant too.
        if !self.cw_built.val() {
            self.ccx_n.next.cwnd = self.zero_cw.val();
            self.ccx_n.next.credit = self.zero_cw.val();
            self.ccx_n.next.last_cut = self.zero32.val();
            self.ccx_n.next.hint = self.zero32.val();
        }
        // Without clean-route repairs, the lanes' copies of the paths'
        // health are constant too.
        if !self.cr_built.val() {
            self.ps_n.next.lost = self.zero_epoch.val();
            self.ps_n.next.rtos = self.zero_rtos.val();
        }
        // Without rack, its state is constant too.
        if !self.rack_built.val() {
            self.pd_n.next.rack_ts = self.zero32.val();
            self.rk_own.d.next = self.zero_path.val();
            self.ccx_n.next.min_rtt = self.zero32.val();
            self.ccx_n.next.rack_ts = self.zero32.val();
            self.ccx_n.next.rack_floor = self.zero32.val();
            self.rk_floor.d.next = self.zero32.val();
            self.rexm.d.next = self.zero256.val();
            self.rk_walk.d.next = false;
            self.rk_first.d.next = false;
            self.rk_psn.d.next = self.zero24.val();
            self.rk_res.d.next = false;
            self.rk_tail.d.next = false;
            self.rk_wait.d.next = false;
            self.rk_lost.d.next = self.zero_cwnd.val();
        }
        self.ccx.d.next = self.ccx_n.val();
        self.ps.d.next = self.ps_n.val();
        // The probe timer's backoff: the count the states above chose, at
        // most the configured doublings.
        if self.pr_cnt.val() > self.cfg_max_backoff.val() {
            self.pr_s.d.next = self.cfg_max_backoff.val();
        } else {
            self.pr_s.d.next = self.pr_cnt.val();
        }
        self.pd.d.next = self.pd_n.val();
        self.ss.d.next = self.ss_n.val();

        // ---- table reads: the keys of the next cycle ----
        self.conns.read_address.next = self.cur_n.val();
        for i in 0..PATHS {
            self.lane_p[i].read_address.next = self.cur_n.val();
        }
        for i in 0..STREAMS {
            self.lane_s[i].read_address.next = self.cur_n.val();
        }
        self.pkey_n_s.next.conn = self.cur_n.val();
        self.pkey_n_s.next.path = self.pth_n.val();
        self.paths.read_address.next = self.pkey_n_s.val().into();
        self.rkey_s.next.conn = self.cur.q.val();
        self.rkey_s.next.path = self.rq.q.val();
        self.sports.read_address.next = self.rkey_s.val().into();

        // ---- table writes: the context's changes, or the clearing sweep ----
        self.conns.write_address.next = self.c_wa.val();
        self.conns.write_data.next = self.ccx_n.val();
        self.conns.write_enable.next = self.c_we.val();
        self.paths.write_address.next = self.pkey.val();
        self.paths.write_data.next = self.pd_n.val();
        self.paths.write_enable.next = self.pd_we.val();
        self.sports.write_address.next = self.pkey.val();
        self.sports.write_data.next = self.pd_n.val().sport;
        self.sports.write_enable.next = self.pd_we.val() & self.cr_built.val();
        for i in 0..PATHS {
            self.lane_p[i].write_address.next = self.cur.q.val();
            self.lane_p[i].write_data.next = self.ps_n.val();
            self.lane_p[i].write_enable.next = self.ps_we.val() & (self.pth.q.val() == self.lane_id[i].val());
        }
        for i in 0..STREAMS {
            self.lane_s[i].write_address.next = self.cur.q.val();
            self.lane_s[i].write_data.next = self.ss_n.val();
            self.lane_s[i].write_enable.next = self.ss_we.val() & (self.stm.q.val() == self.stream_id[i].val());
            if self.s_clear.val() {
                self.lane_s[i].write_address.next = self.ctl_conn.val();
                self.lane_s[i].write_data.next = self.stream_zero.val();
                self.lane_s[i].write_enable.next = true;
            }
        }
        self.msg_desc.write_address.next = self.mw_s.val().into();
        self.msg_desc.write_data.next = self.desc_n.val();
        self.msg_desc.write_enable.next = self.desc_we.val();
        self.msg_prog.write_address.next = self.mw_s.val().into();
        self.msg_prog.write_data.next = self.prog_n.val();
        self.msg_prog.write_enable.next = self.prog_we.val();
        // The register window's snapshot: a cycle after each change of its
        // path (and after `S_PT` loaded it), the path as it now is.
        self.at_pt.next = self.st.q.val() == self.S_PT.val();
        self.w_pend.d.next = self.ps_we.val() | self.pd_we.val() | self.at_pt.val();
        self.w_key.d.next = self.pkey.val();
        self.ref_w.d.next = self.at_pt.val();
        self.win_data.next.sport = self.pd.q.val().sport;
        self.win_data.next.cwnd = self.ps.q.val().cwnd;
        self.win_data.next.retired = self.ps.q.val().retired;
        self.win_data.next.sent = self.pd.q.val().sent;
        self.win_data.next.retx = self.pd.q.val().retx;
        self.win_data.next.ecn = self.pd.q.val().ecn;
        self.win_data.next.srtt_ns = self.rtt.srtt_ns.val();
        if self.w_pend.q.val() & (self.w_key.q.val() == self.ref_key.q.val()) {
            self.snap.d.next = self.win_data.val();
            if self.ref_w.q.val() {
                self.snap_ok.d.next = true;
            }
        }
        // A new path asked for: the snapshot is of no path until it is
        // loaded.
        if self.pt_key.val() != self.ref_key.q.val() {
            self.ref_key.d.next = self.pt_key.val();
            self.snap_ok.d.next = false;
            self.ref_req.d.next = true;
        }
        if self.init_busy.q.val() {
            self.paths.write_address.next = self.init_addr.q.val();
            self.paths.write_data.next = self.path_zero.val();
            self.paths.write_enable.next = true;
            self.sports.write_address.next = self.init_addr.q.val();
            self.sports.write_data.next = self.path_zero.val().sport;
            self.sports.write_enable.next = self.cr_built.val();
            // every path is zero after the sweep
            self.snap.d.next = self.window_zero.val();
            self.snap_ok.d.next = true;
            self.ref_key.d.next = self.pt_key.val();
            self.ref_req.d.next = false;
            for i in 0..PATHS {
                self.lane_p[i].write_address.next = self.init_addr.q.val().get_bits::<CONN_KEY_BITS>(0);
                self.lane_p[i].write_data.next = self.path_sum_zero.val();
                self.lane_p[i].write_enable.next = true;
            }
            for i in 0..STREAMS {
                self.lane_s[i].write_address.next = self.init_addr.q.val().get_bits::<CONN_KEY_BITS>(0);
                self.lane_s[i].write_data.next = self.stream_zero.val();
                self.lane_s[i].write_enable.next = true;
            }
            self.init_addr.d.next = self.init_addr.q.val() + self.one_key.val();
            if self.init_addr.q.val().all() {
                self.init_busy.d.next = false;
            }
        }

        // ---- frames: data from `build`, ACK and NAK frames from `cbuild`
        // (or from `build` too, `one_builder`), their CRC trailer from
        // `crc_out` ----
        // The ACK and NAK fields, at `cbuild`'s inputs (and from there at
        // `build`'s with one builder).
        self.cbuild.ack_sack.next = self.h_sack.q.val();
        self.cbuild.ack_ts_echo.next = self.h_ts_echo.q.val();
        self.cbuild.ack_rate_hint.next = self.cfg_hint.val();
        self.cbuild.ack_ecn_ce.next = self.h_ce.q.val();
        self.cbuild.ack_acked_pkts.next = self.h_pending.q.val();
        self.cbuild.nak_code.next = self.h_nak_code.q.val();
        self.cbuild.nak_msg_seq.next = self.h_nak_msg.q.val();
        self.build.eth_dst.next = self.ccx.q.val().mac;
        self.build.eth_src.next = self.cfg_mac.val();
        self.build.ip_dscp.next = self.dscp.val();
        self.build.ip_ecn.next = self.ecn_ect0.val();
        self.build.ip_ttl.next = self.ttl.val();
        self.build.ip_src.next = self.cfg_ip.val();
        self.build.ip_dst.next = self.ccx.q.val().ip;
        self.build.udp_sport.next = self.h_sport.q.val();
        if (self.h_kind.q.val() == self.K_DATA.val()) & !self.h_clean.q.val() {
            self.build.udp_sport.next = self.pd.q.val().sport;
        }
        self.build.udp_dport.next = self.cfg_port.val();
        self.build.bth_opcode.next = self.h_opcode.q.val();
        self.build.bth_conn.next = self.ccx.q.val().remote;
        self.h_path8.next.lo = self.pth.q.val();
        self.h_path8.next.hi = self.zero4.val();
        self.build.bth_path.next = self.h_path8.val().into();
        self.build.bth_psn.next = self.h_psn.q.val();
        self.build.bth_timestamp.next = self.now.val();
        self.build.bth_stream.next = self.h_stream.q.val();
        self.h_stream16.next.lo = self.stm.q.val();
        self.h_stream16.next.hi = self.zero13.val();
        if self.h_kind.q.val() == self.K_DATA.val() {
            self.build.bth_stream.next = self.h_stream16.val().into();
        }
        self.build.bth_flags.next = self.h_flags.q.val();
        self.build.bth_generation.next = self.ccx.q.val().generation;
        self.build.data_msg_seq.next = self.h_seq.q.val();
        self.build.data_msg_len.next = self.mc.q.val().len;
        self.build.data_offset.next = self.h_off.q.val();
        self.h_len16.next.lo = self.h_len.q.val();
        self.h_len16.next.hi = self.zero2.val();
        self.build.data_payload_len.next = self.h_len16.val().into();
        self.build.data_remote_addr.next = self.mc.q.val().remote;
        if self.h_opcode.q.val() == self.OP8_SEND.val() {
            self.build.data_remote_addr.next = self.zero64.val();
        }
        self.build.data_rkey.next = self.mc.q.val().rkey;
        self.build.data_immediate.next = self.zero32.val();
        if self.h_opcode.q.val() == self.OP8_WRITE_IMM.val() {
            self.build.data_immediate.next = self.mc.q.val().imm;
        }
        self.build.ack_sack.next = self.zero256.val();
        self.build.ack_ts_echo.next = self.zero32.val();
        self.build.ack_rate_hint.next = self.zero32.val();
        self.build.ack_ecn_ce.next = self.zero16.val();
        self.build.ack_acked_pkts.next = self.zero16.val();
        self.build.nak_code.next = self.zero8.val();
        self.build.nak_msg_seq.next = self.zero32.val();
        self.build.nak_info.next = self.zero32.val();
        // ACK and NAK frames' own fields, set at `cbuild`'s inputs (above).
        if self.one_builder.val() {
            // The builder takes each kind's fields only for that kind.
            self.build.ack_sack.next = self.cbuild.ack_sack.val();
            self.build.ack_ts_echo.next = self.cbuild.ack_ts_echo.val();
            self.build.ack_rate_hint.next = self.cbuild.ack_rate_hint.val();
            self.build.ack_ecn_ce.next = self.cbuild.ack_ecn_ce.val();
            self.build.ack_acked_pkts.next = self.cbuild.ack_acked_pkts.val();
            self.build.nak_code.next = self.cbuild.nak_code.val();
            self.build.nak_msg_seq.next = self.cbuild.nak_msg_seq.val();
        }
        self.build.s_payload_tdata.next = self.s_rd_tdata.val();
        self.build.s_payload_tkeep.next = self.s_rd_tkeep.val();
        self.build.s_payload_tvalid.next = self.s_rd_tvalid.val();
        self.build.s_payload_tlast.next = self.s_rd_tlast.val();
        // ACK and NAK frames have a builder of their own, so that the control
        // logic hands one over while a data frame is still going out and
        // goes on to the next data packet.
        self.cbuild.eth_dst.next = self.build.eth_dst.val();
        self.cbuild.eth_src.next = self.build.eth_src.val();
        self.cbuild.ip_dscp.next = self.build.ip_dscp.val();
        self.cbuild.ip_ecn.next = self.build.ip_ecn.val();
        self.cbuild.ip_ttl.next = self.build.ip_ttl.val();
        self.cbuild.ip_src.next = self.build.ip_src.val();
        self.cbuild.ip_dst.next = self.build.ip_dst.val();
        self.cbuild.udp_sport.next = self.build.udp_sport.val();
        self.cbuild.udp_dport.next = self.build.udp_dport.val();
        self.cbuild.bth_opcode.next = self.build.bth_opcode.val();
        self.cbuild.bth_conn.next = self.build.bth_conn.val();
        self.cbuild.bth_path.next = self.build.bth_path.val();
        self.cbuild.bth_psn.next = self.build.bth_psn.val();
        self.cbuild.bth_timestamp.next = self.build.bth_timestamp.val();
        self.cbuild.bth_stream.next = self.build.bth_stream.val();
        self.cbuild.bth_flags.next = self.build.bth_flags.val();
        self.cbuild.bth_generation.next = self.build.bth_generation.val();
        // `cbuild` builds only ACK and NAK frames and `build` only data
        // frames: the fields the other kind carries are constant, so that
        // synthesis drops each builder's half of the header it never sends.
        self.cbuild.data_msg_seq.next = self.zero32.val();
        self.cbuild.data_msg_len.next = self.zero32.val();
        self.cbuild.data_offset.next = self.zero32.val();
        self.cbuild.data_payload_len.next = self.zero16.val();
        self.cbuild.data_remote_addr.next = self.zero64.val();
        self.cbuild.data_rkey.next = self.zero32.val();
        self.cbuild.data_immediate.next = self.zero32.val();
        self.cbuild.nak_info.next = self.zero32.val();
        self.cbuild.s_payload_tdata.next = self.zero64.val();
        self.cbuild.s_payload_tkeep.next = self.zero8.val();
        self.cbuild.s_payload_tvalid.next = false;
        self.cbuild.s_payload_tlast.next = false;
        // Between frames an ACK or NAK frame goes first: the receive side's
        // requests must not wait behind data.
        if self.in_frame.q.val() {
            self.sel_ctl.next = self.sel_q.q.val();
        } else {
            self.sel_ctl.next = self.cbuild.m_axis_tvalid.val();
        }
        if self.one_builder.val() {
            self.sel_ctl.next = false;
        }
        self.crc_out.clock.next = self.clock.val();
        self.crc_out.reset.next = self.reset.val();
        self.f_tready.next = self.crc_out.s_axis_tready.val();
        self.build.m_axis_tready.next = !self.sel_ctl.val() & self.f_tready.val();
        self.cbuild.m_axis_tready.next = self.sel_ctl.val() & self.f_tready.val();
        if self.sel_ctl.val() {
            self.f_tdata.next = self.cbuild.m_axis_tdata.val();
            self.f_tkeep.next = self.cbuild.m_axis_tkeep.val();
            self.f_tvalid.next = self.cbuild.m_axis_tvalid.val();
            self.f_tlast.next = self.cbuild.m_axis_tlast.val();
        } else {
            self.f_tdata.next = self.build.m_axis_tdata.val();
            self.f_tkeep.next = self.build.m_axis_tkeep.val();
            self.f_tvalid.next = self.build.m_axis_tvalid.val();
            self.f_tlast.next = self.build.m_axis_tlast.val();
        }
        if self.f_tvalid.val() & self.f_tready.val() {
            self.in_frame.d.next = !self.f_tlast.val();
            self.sel_q.d.next = self.sel_ctl.val();
        }
        self.crc_out.s_axis_tdata.next = self.f_tdata.val();
        self.crc_out.s_axis_tkeep.next = self.f_tkeep.val();
        self.crc_out.s_axis_tvalid.next = self.f_tvalid.val();
        self.crc_out.s_axis_tlast.next = self.f_tlast.val();
        self.crc_out.m_axis_tready.next = self.m_axis_tready.val();
        self.m_axis_tdata.next = self.crc_out.m_axis_tdata.val();
        self.m_axis_tkeep.next = self.crc_out.m_axis_tkeep.val();
        self.m_axis_tvalid.next = self.crc_out.m_axis_tvalid.val();
        self.m_axis_tlast.next = self.crc_out.m_axis_tlast.val();

        // ---- outputs ----
        self.ready.next = !self.init_busy.q.val() & self.sub_ready.val();
        self.ctl_ready.next = self.idle.val();
        self.ack_ready.next = self.take_ack.val();
        self.nak_ready.next = self.take_nak.val();
        self.fb_ready.next = self.take_fb.val();
        self.rto_ready.next = self.take_rto.val();
        self.release_ready.next = self.take_rel.val();
        self.probe_ready.next = self.take_probe.val();
        self.m_probe_valid.next = self.pr_v.q.val() & self.probes_built.val();
        self.m_probe_key.next = self.pr_k.q.val();
        self.m_probe_arm.next = self.pr_a.q.val();
        self.m_probe_shift.next = self.pr_s.q.val();
        self.m_probe_base.next = self.pr_b.q.val();
        self.cnt_tail_probes.next = self.n_probes.q.val();
        // Without tail probes: constant outputs (nothing behind them stays).
        if !self.probes_built.val() {
            self.m_probe_key.next = self.zero_conn.val();
            self.m_probe_arm.next = false;
            self.m_probe_shift.next = self.zero3.val();
            self.m_probe_base.next = self.zero_rto.val();
            self.cnt_tail_probes.next = self.zero32.val();
        }
        self.tx_done.next = self.done_v.q.val();
        self.tx_sent.next = self.sent_v.q.val();
        self.tx_sent_conn.next = self.sent_c.q.val();
        self.tx_sent_len.next = self.sent_l.q.val();
        self.m_rto_valid.next = self.rto_v.q.val();
        self.m_rto_key.next = self.rto_k.q.val();
        self.m_rto_arm.next = self.rto_a.q.val();
        self.m_rto_shift.next = self.rto_s.q.val();
        self.m_rto_base.next = self.rto_b.q.val();
        self.m_rnr_valid.next = self.rnr_v.q.val();
        self.m_rnr_key.next = self.rnr_k.q.val();
        self.m_rnr_psn.next = self.rnr_p.q.val();
        self.rd_off.next.lo = self.h_off.q.val();
        self.rd_off.next.hi = self.zero32.val();
        self.rd_off_b.next = self.rd_off.val().into();
        self.m_rd_cmd_addr.next = self.mc.q.val().local + self.rd_off_b.val();
        self.m_rd_cmd_len.next = self.h_len16.val().into();
        self.s_rd_tready.next = self.build.s_payload_tready.val();
        self.m_cpl_key.next = self.skey.val();
        self.m_cpl_status.next = self.msg_prog.read_data.val().fail;
        self.m_cpl_seq.next = self.ss_l.val().base;
        self.m_cpl_len.next = self.msg_prog.read_data.val().len;
        self.m_cpl_id.next = self.msg_desc.read_data.val().id;
        self.m_cpl_imm.next = self.msg_desc.read_data.val().imm;
        self.m_cpl_has_imm.next = self.msg_desc.read_data.val().op == self.OP_WRITE_IMM.val();
        self.pt_sport.next = self.snap.q.val().sport;
        self.pt_cwnd.next = self.snap.q.val().cwnd;
        self.pt_retired.next = self.snap.q.val().retired;
        self.pt_sent.next = self.snap.q.val().sent;
        self.pt_retx.next = self.snap.q.val().retx;
        self.pt_ecn.next = self.snap.q.val().ecn;
        self.pt_srtt.next = self.snap.q.val().srtt_ns;
        self.pt_valid.next = self.snap_ok.q.val() & (self.ref_key.q.val() == self.pt_key.val());
        self.cnt_tx_data.next = self.n_data.q.val();
        self.cnt_tx_retx.next = self.n_retx.q.val();
        self.cnt_tx_acks.next = self.n_acks.q.val();
        self.cnt_tx_naks.next = self.n_naks.q.val();
        self.cnt_rtos.next = self.n_rtos.q.val();
        self.cnt_repaths.next = self.n_repaths.q.val();
        self.cnt_naks_received.next = self.n_naks_rx.q.val();

        self.unused_ok.next = false
            & (self.build.busy.val()
                | self.cbuild.busy.val()
                | self.cbuild.s_payload_tready.val()
                | self.cc.out_cut.val()
                | self.cc.out_key.val().any()
                | self.cc.out_valid.val()
                | self.health.out_key.val().any()
                | self.health.out_valid.val()
                | self.retx.out_key.val().any()
                | self.retx.out_op.val().any()
                | self.retx.out_valid.val()
                | self.spray.out_valid.val()
                | self.spray.port_busy.val()
                | self.conn_first.at.val().any()
                | self.rot.val().any()
                | self.ss_base.val().any()
                | self.ss_seg.val().any()
                | self.ss_count.val().any()
                | self.pd_next_psn.val().any()
                | self.le_seq.val().any()
                | self.crtt.rto.val().ns.any()
                | self.crtt.rto.val().ps.any()
                | self.crtt.srtt_ns.val().any()
                | self.cm_p.val().any());
        for j in 0..PATHS {
            self.unused_ok.next = self.unused_ok.val() & self.k_at[j].val().any();
        }
        for j in 0..STREAMS {
            self.unused_ok.next = self.unused_ok.val() & self.ks_at[j].val().any();
        }

        if self.reset.val() {
            self.st.d.next = self.S_IDLE.val();
            self.c_valid.d.next = self.zero_conns.val();
            self.conn_rr.d.next = self.zero_conn.val();
            self.init_busy.d.next = true;
            self.init_addr.d.next = self.zero_key.val();
            self.in_frame.d.next = false;
            self.sel_q.d.next = false;
            self.wr_blocked.d.next = false;
            self.w_pend.d.next = false;
            self.ref_req.d.next = false;
            self.ref_w.d.next = false;
            self.snap_ok.d.next = false;
            self.done_v.d.next = false;
            self.sent_v.d.next = false;
            self.rto_v.d.next = false;
            self.rnr_v.d.next = false;
            self.pr_v.d.next = false;
            self.last_has.d.next = false;
        }
        if self.reset.val() | self.clear_stats.val() {
            self.n_data.d.next = self.zero32.val();
            self.n_retx.d.next = self.zero32.val();
            self.n_acks.d.next = self.zero32.val();
            self.n_naks.d.next = self.zero32.val();
            self.n_rtos.d.next = self.zero32.val();
            self.n_repaths.d.next = self.zero32.val();
            self.n_naks_rx.d.next = self.zero32.val();
            self.n_probes.d.next = self.zero32.val();
        }
    }
}
