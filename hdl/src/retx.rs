//! `retx`: the retransmit scheduler's per-path state.
//! Reference: `ferroce_proto::model::retx::PathLog`.
//!
//! For each of 2^K path keys, block RAM holds the PSN window (next, una,
//! the retransmission marker) and four 256-bit bitmaps indexed by PSN mod
//! 256: SACKed, queued for retransmission, resent, held. Every operation
//! is a handful of bitmap operations with circular range masks,
//! find-first/last-set trees and population counts; no shifter.
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `ready` (out): low during the 2^K-cycle clearing sweep after reset.
//! * `in_valid`, `in_op`, `in_key`, `in_psn`, `in_sack`: one operation per
//!   cycle, no back-pressure. `in_op`: 0 LOAD (start at `in_psn`), 1 SEND
//!   (take the next PSN), 2 ACK (cumulative `in_psn`, bitmap `in_sack`),
//!   3 TAKE (next retransmission, lowest PSN first), 4 RTO (queue every
//!   unacknowledged PSN), 5 HOLD `in_psn`, 6 RELEASE `in_psn`.
//! * Two cycles later, for every operation: `out_valid`, `out_key`,
//!   `out_op`, `out_ok` (SEND: a PSN was free; ACK: not stale; TAKE:
//!   something was queued; HOLD/RELEASE: it applied), `out_psn` (SEND,
//!   TAKE), `out_newly` (ACK: the newly acknowledged PSNs by slot),
//!   `out_count` (ACK: newly acknowledged; RTO: queued), `out_lost` (ACK:
//!   found lost), and the path's state after it: `out_outstanding`,
//!   `out_queued` (anything to resend), `out_can_send`.

use std::fmt::Write as _;

use rust_hdl::prelude::*;

use ferroce_proto::model::retx::PathLog;
use ferroce_proto::Psn;

use crate::keyed::KeyedState;

/// Operation codes on `in_op`.
pub mod op {
    pub const LOAD: u64 = 0;
    pub const SEND: u64 = 1;
    pub const ACK: u64 = 2;
    pub const TAKE: u64 = 3;
    pub const RTO: u64 = 4;
    pub const HOLD: u64 = 5;
    pub const RELEASE: u64 = 6;
}

/// Bits of one path's state: {held, rexmit, queued, sacked, marker, una, next}.
pub const STATE_BITS: usize = 3 * 24 + 4 * 256;

/// The combinational core: one path's state and one operation in, the
/// results and the next state out. Custom Verilog; the Rust `update` runs
/// the reference model for rust-hdl's simulator.
#[derive(LogicBlock, Default)]
pub struct RetxCore {
    pub state: Signal<In, Bits<STATE_BITS>>,
    pub op: Signal<In, Bits<3>>,
    pub psn: Signal<In, Bits<24>>,
    pub sack: Signal<In, Bits<256>>,
    pub new_state: Signal<Out, Bits<STATE_BITS>>,
    pub ok: Signal<Out, bool>,
    pub out_psn: Signal<Out, Bits<24>>,
    pub newly: Signal<Out, Bits<256>>,
    pub count: Signal<Out, Bits<9>>,
    pub lost: Signal<Out, Bits<9>>,
    pub outstanding: Signal<Out, Bits<9>>,
    pub queued: Signal<Out, bool>,
    pub can_send: Signal<Out, bool>,
    _log: Box<Option<PathLog>>,
}

impl Logic for RetxCore {
    // The Rust side of this block is the model itself; rust-hdl's simulator
    // is not used for it (the Verilator test compares the Verilog with the
    // model), so its update only keeps the outputs defined.
    fn update(&mut self) {
        let log = self._log.get_or_insert_with(|| PathLog::starting_at(Psn::new(0)));
        self.ok.next = false;
        self.out_psn.next = 0.into();
        self.newly.next = 0.into();
        self.count.next = 0.into();
        self.lost.next = 0.into();
        self.outstanding.next = (log.outstanding() as u64).into();
        self.queued.next = log.has_queued();
        self.can_send.next = log.can_send();
        self.new_state.next = self.state.val();
    }

    fn connect(&mut self) {
        self.new_state.connect();
        self.ok.connect();
        self.out_psn.connect();
        self.newly.connect();
        self.count.connect();
        self.lost.connect();
        self.outstanding.connect();
        self.queued.connect();
        self.can_send.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(core_verilog())
    }
}

/// Verilog for a balanced population count of a 256-bit vector `v` into a
/// 9-bit wire `name`.
fn popcount(name: &str, v: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "wire [8:0] {name};");
    let _ = writeln!(s, "generate begin : pc_{name}");
    // level l has 256 >> l sums of l+1 bits, stored 9 bits apart.
    for l in 0..=8usize {
        let _ = writeln!(s, "  wire [{}:0] lv{l};", (256 >> l) * 9 - 1);
    }
    let _ = writeln!(s, "  genvar i;");
    let _ = writeln!(
        s,
        "  for (i = 0; i < 256; i = i + 1) begin : l0\n    assign lv0[9 * i +: 9] = {{8'd0, {v}[i]}};\n  end"
    );
    for l in 1..=8usize {
        let _ = writeln!(
            s,
            "  for (i = 0; i < {}; i = i + 1) begin : l{l}\n    assign lv{l}[9 * i +: 9] = lv{}[9 * (2 * i) +: 9] + lv{}[9 * (2 * i + 1) +: 9];\n  end",
            256 >> l,
            l - 1,
            l - 1
        );
    }
    let _ = writeln!(s, "  assign {name} = lv8;");
    let _ = writeln!(s, "end endgenerate");
    s
}

/// Verilog for the lowest set bit of 256-bit `v`: `{name}_any`, `{name}_at`.
fn first_set(name: &str, v: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "wire {name}_any;\nwire [7:0] {name}_at;");
    let _ = writeln!(s, "generate begin : ffs_{name}");
    let _ = writeln!(s, "  wire [511:1] val;\n  wire [4095:8] idx;\n  genvar i;");
    let _ = writeln!(
        s,
        "  for (i = 0; i < 256; i = i + 1) begin : leaf\n    assign val[256 + i] = {v}[i];\n    assign idx[(256 + i) * 8 +: 8] = i[7:0];\n  end"
    );
    let _ = writeln!(
        s,
        "  for (i = 1; i < 256; i = i + 1) begin : node\n    assign val[i] = val[2 * i] | val[2 * i + 1];\n    \
         assign idx[i * 8 +: 8] = val[2 * i] ? idx[2 * i * 8 +: 8] : idx[(2 * i + 1) * 8 +: 8];\n  end"
    );
    let _ = writeln!(s, "  assign {name}_any = val[1];\n  assign {name}_at = idx[15:8];");
    let _ = writeln!(s, "end endgenerate");
    s
}

/// Verilog for the highest set bit: the lowest of the bit-reversed vector.
fn last_set(name: &str, v: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "wire [255:0] {name}_rev;");
    let _ = writeln!(
        s,
        "generate begin : rev_{name}\n  genvar i;\n  for (i = 0; i < 256; i = i + 1) begin : r\n    assign {name}_rev[i] = {v}[255 - i];\n  end\nend endgenerate"
    );
    s.push_str(&first_set(&format!("{name}_r"), &format!("{name}_rev")));
    let _ = writeln!(s, "wire {name}_any = {name}_r_any;\nwire [7:0] {name}_at = 8'd255 - {name}_r_at;");
    s
}

/// Thermometer `ge_{name}[i] = (i >= x)` for an 8-bit `x`.
fn thermometer(name: &str, x: &str) -> String {
    format!(
        "wire [255:0] ge_{name};\nassign ge_{name}[0] = ({x} == 8'd0);\nassign ge_{name}[255] = 1'b1;\n\
         generate begin : th_{name}\n  genvar i;\n  for (i = 1; i < 255; i = i + 1) begin : t\n    \
         assign ge_{name}[i] = (i[7:0] >= {x});\n  end\nend endgenerate\n"
    )
}

/// Circular slot range [a, b) from the slots and their thermometers;
/// `full` says whether a == b means all 256 slots (else none).
fn range(name: &str, a: &str, b: &str, ge_a: &str, ge_b: &str, full: &str) -> String {
    format!(
        "wire [255:0] {name} = ({a} == {b}) ? ({full} ? {{256{{1'b1}}}} : 256'd0) : \
         (({a} < {b}) ? ({ge_a} & ~{ge_b}) : ({ge_a} | ~{ge_b}));\n"
    )
}

fn core_verilog() -> String {
    let mut s = String::new();
    s.push_str(
        r#"// Generated by ferroce-hdl (retx): do not edit.
wire [23:0] next = state[23:0];
wire [23:0] una = state[47:24];
wire [23:0] marker = state[71:48];
wire [255:0] sacked = state[327:72];
wire [255:0] queued_q = state[583:328];
wire [255:0] rexmit = state[839:584];
wire [255:0] held = state[1095:840];
wire [7:0] us = una[7:0];
wire [7:0] ns = next[7:0];
wire [7:0] cs = psn[7:0];
wire [23:0] span = next - una;
wire full = span == 24'd256;
wire [23:0] d_una = psn - una;
wire [23:0] d_next = psn - next;
wire stale = (d_una >= 24'h800000) | ((d_next < 24'h800000) & (d_next != 24'd0));
wire in_flight = (d_una < 24'h800000) & (d_next >= 24'h800000);
wire [255:0] onehot = {255'd0, 1'b1} << cs;
"#,
    );
    for (n, x) in [("us", "us"), ("ns", "ns"), ("cs", "cs")] {
        s.push_str(&thermometer(n, x));
    }
    // In flight: [una, next); after an ACK: [cum, next); acknowledged: [una, cum).
    s.push_str(&range("flight", "us", "ns", "ge_us", "ge_ns", "full"));
    let _ = writeln!(s, "wire [23:0] d_cum_next = next - psn;\nwire rest_full = d_cum_next == 24'd256;");
    s.push_str(&range("rest", "cs", "ns", "ge_cs", "ge_ns", "rest_full"));
    let _ = writeln!(s, "wire [23:0] d_cum_una = psn - una;\nwire acked_full = d_cum_una == 24'd256;");
    s.push_str(&range("acked", "us", "cs", "ge_us", "ge_cs", "acked_full"));
    // ACK
    let _ = writeln!(s, "wire [255:0] sack_in = sack & rest;");
    let _ = writeln!(s, "wire [255:0] sack_new = sack_in & ~sacked;");
    let _ = writeln!(s, "wire [255:0] ack_newly = (acked & ~sacked) | sack_new;");
    let _ = writeln!(s, "wire [255:0] ack_sacked = sacked | sack_new;");
    let _ = writeln!(s, "wire [255:0] ack_queued0 = queued_q & ~sack_new;");
    // Highest SACKed PSN in [cum, next): wrapped part (slots below cs) wins.
    let _ = writeln!(s, "wire [255:0] sack_hi = sack_in & ge_cs;\nwire [255:0] sack_lo = sack_in & ~ge_cs;");
    s.push_str(&last_set("hi", "sack_hi"));
    s.push_str(&last_set("lo", "sack_lo"));
    let _ = writeln!(s, "wire have_high = hi_any | lo_any;\nwire [7:0] hs = lo_any ? lo_at : hi_at;");
    let _ = writeln!(s, "wire [23:0] high = psn + {{16'd0, hs - cs}};\nwire [23:0] d_high_marker = high - marker;");
    let _ = writeln!(s, "wire resent_lost = d_high_marker < 24'h800000;");
    s.push_str(&thermometer("hs", "hs"));
    let _ = writeln!(s, "wire no_full = 1'b0;");
    s.push_str(&range("below_high", "cs", "hs", "ge_cs", "ge_hs", "no_full"));
    let _ = writeln!(
        s,
        "wire [255:0] holes = have_high ? (below_high & ~ack_sacked & ~ack_queued0 & ~held & (~rexmit | {{256{{resent_lost}}}})) : 256'd0;"
    );
    s.push_str(&popcount("n_newly", "ack_newly"));
    s.push_str(&popcount("n_holes", "holes"));
    // TAKE: lowest queued PSN from una (slots at or above us first).
    let _ = writeln!(s, "wire [255:0] q_live = queued_q & flight;");
    let _ = writeln!(s, "wire [255:0] q_hi = q_live & ge_us;\nwire [255:0] q_lo = q_live & ~ge_us;");
    s.push_str(&first_set("qh", "q_hi"));
    s.push_str(&first_set("ql", "q_lo"));
    let _ = writeln!(s, "wire take_any = qh_any | ql_any;\nwire [7:0] take_at = qh_any ? qh_at : ql_at;");
    let _ = writeln!(s, "wire [255:0] take_bit = {{255'd0, 1'b1}} << take_at;");
    // RTO
    let _ = writeln!(s, "wire [255:0] rto_add = flight & ~sacked & ~queued_q & ~held;");
    s.push_str(&popcount("n_rto", "rto_add"));
    // The state after the operation, and the path summary of that state.
    s.push_str(
        r#"reg [23:0] n_next;
reg [23:0] n_una;
reg [23:0] n_marker;
reg [255:0] n_sacked;
reg [255:0] n_queued;
reg [255:0] n_rexmit;
reg [255:0] n_held;
always @(*) begin
  n_next = next;
  n_una = una;
  n_marker = marker;
  n_sacked = sacked;
  n_queued = queued_q;
  n_rexmit = rexmit;
  n_held = held;
  ok = 1'b0;
  out_psn = 24'd0;
  newly = 256'd0;
  count = 9'd0;
  lost = 9'd0;
  case (op)
    3'd0: begin // LOAD
      n_next = psn;
      n_una = psn;
      n_marker = psn;
      n_sacked = 256'd0;
      n_queued = 256'd0;
      n_rexmit = 256'd0;
      n_held = 256'd0;
      ok = 1'b1;
    end
    3'd1: begin // SEND
      if (~full) begin
        ok = 1'b1;
        out_psn = next;
        n_next = next + 24'd1;
        n_sacked = sacked & ~({255'd0, 1'b1} << ns);
        n_queued = queued_q & ~({255'd0, 1'b1} << ns);
        n_rexmit = rexmit & ~({255'd0, 1'b1} << ns);
        n_held = held & ~({255'd0, 1'b1} << ns);
      end
    end
    3'd2: begin // ACK
      if (~stale) begin
        ok = 1'b1;
        n_una = psn;
        n_sacked = ack_sacked;
        n_queued = ack_queued0 | holes;
        newly = ack_newly;
        count = n_newly;
        lost = n_holes;
      end
    end
    3'd3: begin // TAKE
      if (take_any) begin
        ok = 1'b1;
        out_psn = una + {16'd0, take_at - us};
        n_queued = queued_q & ~take_bit;
        n_rexmit = rexmit | take_bit;
        n_marker = next;
      end
    end
    3'd4: begin // RTO
      ok = 1'b1;
      n_queued = queued_q | rto_add;
      count = n_rto;
    end
    3'd5: begin // HOLD
      if (in_flight & ~sacked[cs] & ~held[cs]) begin
        ok = 1'b1;
        n_held = held | onehot;
        n_queued = queued_q & ~onehot;
      end
    end
    3'd6: begin // RELEASE
      if (in_flight & held[cs]) begin
        n_held = held & ~onehot;
        if (~sacked[cs]) begin
          ok = 1'b1;
          n_queued = queued_q | onehot;
        end
      end
    end
    default: ;
  endcase
  new_state = {n_held, n_rexmit, n_queued, n_sacked, n_marker, n_una, n_next};
end
"#,
    );
    // Summary of the new state.
    s.push_str(
        r#"wire [23:0] n_span = n_next - n_una;
wire n_full = n_span == 24'd256;
"#,
    );
    let _ = writeln!(s, "wire [7:0] n_us = n_una[7:0];\nwire [7:0] n_ns = n_next[7:0];");
    s.push_str(&thermometer("nus", "n_us"));
    s.push_str(&thermometer("nns", "n_ns"));
    s.push_str(&range("n_flight", "n_us", "n_ns", "ge_nus", "ge_nns", "n_full"));
    let _ = writeln!(s, "wire [255:0] n_unacked = n_flight & ~n_sacked;");
    s.push_str(&popcount("n_out", "n_unacked"));
    let _ = writeln!(
        s,
        "always @(*) begin\n  outstanding = n_out;\n  queued = |(n_queued & n_flight);\n  can_send = ~n_full;\nend"
    );
    s
}

/// The scheduler's per-path state for 2^K paths.
#[derive(LogicBlock, Default)]
pub struct Retx<const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_op: Signal<In, Bits<3>>,
    pub in_key: Signal<In, Bits<K>>,
    pub in_psn: Signal<In, Bits<24>>,
    pub in_sack: Signal<In, Bits<256>>,
    pub out_valid: Signal<Out, bool>,
    pub out_key: Signal<Out, Bits<K>>,
    pub out_op: Signal<Out, Bits<3>>,
    pub out_ok: Signal<Out, bool>,
    pub out_psn: Signal<Out, Bits<24>>,
    pub out_newly: Signal<Out, Bits<256>>,
    pub out_count: Signal<Out, Bits<9>>,
    pub out_lost: Signal<Out, Bits<9>>,
    pub out_outstanding: Signal<Out, Bits<9>>,
    pub out_queued: Signal<Out, bool>,
    pub out_can_send: Signal<Out, bool>,
    core: RetxCore,
    store: KeyedState<K, STATE_BITS>,
    s1_op: DFF<Bits<3>>,
    s1_psn: DFF<Bits<24>>,
    s1_sack: DFF<Bits<256>>,
    o_valid: DFF<bool>,
    o_key: DFF<Bits<K>>,
    o_op: DFF<Bits<3>>,
    o_ok: DFF<bool>,
    o_psn: DFF<Bits<24>>,
    o_newly: DFF<Bits<256>>,
    o_count: DFF<Bits<9>>,
    o_lost: DFF<Bits<9>>,
    o_outstanding: DFF<Bits<9>>,
    o_queued: DFF<bool>,
    o_can_send: DFF<bool>,
}

impl<const K: usize> Logic for Retx<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_op,
            s1_psn,
            s1_sack,
            o_valid,
            o_key,
            o_op,
            o_ok,
            o_psn,
            o_newly,
            o_count,
            o_lost,
            o_outstanding,
            o_queued,
            o_can_send
        );
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.store.rd_valid.next = self.in_valid.val();
        self.store.rd_key.next = self.in_key.val();
        self.s1_op.d.next = self.in_op.val();
        self.s1_psn.d.next = self.in_psn.val();
        self.s1_sack.d.next = self.in_sack.val();

        self.core.state.next = self.store.state.val();
        self.core.op.next = self.s1_op.q.val();
        self.core.psn.next = self.s1_psn.q.val();
        self.core.sack.next = self.s1_sack.q.val();
        self.store.wr_valid.next = true;
        self.store.wr_state.next = self.core.new_state.val();

        self.o_valid.d.next = self.store.s1_valid.val();
        self.o_key.d.next = self.store.s1_key.val();
        self.o_op.d.next = self.s1_op.q.val();
        self.o_ok.d.next = self.core.ok.val();
        self.o_psn.d.next = self.core.out_psn.val();
        self.o_newly.d.next = self.core.newly.val();
        self.o_count.d.next = self.core.count.val();
        self.o_lost.d.next = self.core.lost.val();
        self.o_outstanding.d.next = self.core.outstanding.val();
        self.o_queued.d.next = self.core.queued.val();
        self.o_can_send.d.next = self.core.can_send.val();
        if self.reset.val() {
            self.o_valid.d.next = false;
        }

        self.ready.next = self.store.ready.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_key.next = self.o_key.q.val();
        self.out_op.next = self.o_op.q.val();
        self.out_ok.next = self.o_ok.q.val();
        self.out_psn.next = self.o_psn.q.val();
        self.out_newly.next = self.o_newly.q.val();
        self.out_count.next = self.o_count.q.val();
        self.out_lost.next = self.o_lost.q.val();
        self.out_outstanding.next = self.o_outstanding.q.val();
        self.out_queued.next = self.o_queued.q.val();
        self.out_can_send.next = self.o_can_send.q.val();
    }
}
