//! `rx_msgs`: message tracking per (connection, stream) at the receiver.
//! Reference: `ferroce_proto::model::msgwin::MsgWindow`.
//!
//! For each of 2^K stream keys, block RAM holds the next message to deliver
//! and 16 slots (`MSG_WINDOW`), one per message after it: valid, opcode
//! (1 WRITE, 2 WRITE with immediate, 3 SEND), failure (0 none, 1 remote
//! access error, 2 receive buffer too small), length, bytes received
//! (saturating) and immediate.
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `in_valid`, `in_op` (0 packet, 1 pop, 2 clear), `in_key`. A packet
//!   gives `in_seq`, `in_len`, `in_opcode`, `in_imm`, `in_payload`,
//!   `in_fail` and `in_apply` (record it if it passes; low for a packet only
//!   being checked).
//! * Two cycles later: `out_valid`, `out_key`, `out_ok` (packet: it passes
//!   the window and consistency check; `out_began`: it was recorded into a
//!   free slot, the first packet seen of its message), `out_popped` (pop: the next message
//!   was complete and is delivered) with `out_seq`, `out_opcode`, `out_len`,
//!   `out_imm`, `out_fail`.

use std::fmt::Write as _;

use rust_hdl::prelude::*;

use crate::blocks::keyed::KeyedState;

/// Bits of one slot: {imm, recv, len, fail[1:0], opcode[1:0], valid}.
pub const SLOT_BITS: usize = 1 + 2 + 2 + 32 + 32 + 32;
/// Slots per stream.
pub const SLOTS: usize = 16;
/// Bits of one stream's state: {slots, next[31:0]}.
pub const STATE_BITS: usize = 32 + SLOTS * SLOT_BITS;

/// Combinational core.
#[derive(LogicBlock, Default)]
pub struct MsgCore {
    pub state: Signal<In, Bits<STATE_BITS>>,
    pub op: Signal<In, Bits<2>>,
    pub seq: Signal<In, Bits<32>>,
    pub len: Signal<In, Bits<32>>,
    pub opcode: Signal<In, Bits<2>>,
    pub imm: Signal<In, Bits<32>>,
    pub payload: Signal<In, Bits<16>>,
    pub fail: Signal<In, Bits<2>>,
    pub apply: Signal<In, bool>,
    pub new_state: Signal<Out, Bits<STATE_BITS>>,
    pub ok: Signal<Out, bool>,
    pub popped: Signal<Out, bool>,
    /// A packet recorded into a free slot: a message begun.
    pub began: Signal<Out, bool>,
    pub p_seq: Signal<Out, Bits<32>>,
    pub p_opcode: Signal<Out, Bits<2>>,
    pub p_len: Signal<Out, Bits<32>>,
    pub p_imm: Signal<Out, Bits<32>>,
    pub p_fail: Signal<Out, Bits<2>>,
}

impl Logic for MsgCore {
    // Verified in Verilator against the model; rust-hdl's simulator is not
    // used for this block, so the Rust side only keeps outputs defined.
    fn update(&mut self) {
        self.new_state.next = self.state.val();
        self.ok.next = false;
        self.popped.next = false;
        self.began.next = false;
        self.p_seq.next = 0.into();
        self.p_opcode.next = 0.into();
        self.p_len.next = 0.into();
        self.p_imm.next = 0.into();
        self.p_fail.next = 0.into();
    }

    fn connect(&mut self) {
        self.new_state.connect();
        self.ok.connect();
        self.popped.connect();
        self.p_seq.connect();
        self.p_opcode.connect();
        self.p_len.connect();
        self.began.connect();
        self.p_imm.connect();
        self.p_fail.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(core_verilog())
    }
}

fn core_verilog() -> String {
    let mut s = String::new();
    let _ = writeln!(s, "localparam SB = {SLOT_BITS};");
    s.push_str(
        r#"wire [31:0] next = state[31:0];
wire [15:0] s_valid;
wire [31:0] s_len [0:15];
wire [31:0] s_recv [0:15];
wire [1:0] s_op [0:15];
wire [1:0] s_fail [0:15];
wire [31:0] s_imm [0:15];
genvar gi;
generate
  for (gi = 0; gi < 16; gi = gi + 1) begin : slot
    assign s_valid[gi] = state[32 + SB * gi];
    assign s_op[gi] = state[32 + SB * gi + 1 +: 2];
    assign s_fail[gi] = state[32 + SB * gi + 3 +: 2];
    assign s_len[gi] = state[32 + SB * gi + 5 +: 32];
    assign s_recv[gi] = state[32 + SB * gi + 37 +: 32];
    assign s_imm[gi] = state[32 + SB * gi + 69 +: 32];
  end
endgenerate
wire [31:0] ahead = seq - next;
wire [3:0] si = seq[3:0];
wire fresh = ~s_valid[si];
wire check_ok = (ahead < 32'd16) & (fresh | ((s_len[si] == len) & (s_op[si] == opcode)));
// The slot after recording this packet.
wire [31:0] base_recv = fresh ? 32'd0 : s_recv[si];
wire [32:0] sum = {1'b0, base_recv} + {17'd0, payload};
wire [31:0] recv1 = sum[32] ? 32'hffffffff : sum[31:0];
wire [1:0] base_fail = fresh ? 2'd0 : s_fail[si];
wire [1:0] fail1 = (base_fail != 2'd0) ? base_fail : fail;
wire [31:0] len1 = fresh ? len : s_len[si];
wire [31:0] imm1 = fresh ? imm : s_imm[si];
wire [1:0] op1 = fresh ? opcode : s_op[si];
wire [SB-1:0] slot_rec = {imm1, (fail != 2'd0) ? len1 : recv1, len1, fail1, op1, 1'b1};
// The next message, if complete.
wire [3:0] ni = next[3:0];
wire can_pop = s_valid[ni] & (s_recv[ni] >= s_len[ni]);
reg [31:32+16*SB] unused_top;
always @(*) begin
  new_state = state;
  ok = 1'b0;
  popped = 1'b0;
  began = 1'b0;
  p_seq = 32'd0;
  p_opcode = 2'd0;
  p_len = 32'd0;
  p_imm = 32'd0;
  p_fail = 2'd0;
  case (op)
    2'd0: begin
      ok = check_ok;
      began = check_ok & apply & fresh;
      if (check_ok & apply) new_state[32 + SB * si +: SB] = slot_rec;
    end
    2'd1: if (can_pop) begin
      popped = 1'b1;
      p_seq = next;
      p_opcode = s_op[ni];
      p_len = s_len[ni];
      p_imm = s_imm[ni];
      p_fail = s_fail[ni];
      new_state[31:0] = next + 32'd1;
      new_state[32 + SB * ni] = 1'b0;
    end
    2'd2: new_state = 0;
    default: ;
  endcase
end
"#,
    );
    s.replace("reg [31:32+16*SB] unused_top;\n", "")
}

/// Message tracking for 2^K streams.
#[derive(LogicBlock, Default)]
pub struct RxMsgs<const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_op: Signal<In, Bits<2>>,
    pub in_key: Signal<In, Bits<K>>,
    pub in_seq: Signal<In, Bits<32>>,
    pub in_len: Signal<In, Bits<32>>,
    pub in_opcode: Signal<In, Bits<2>>,
    pub in_imm: Signal<In, Bits<32>>,
    pub in_payload: Signal<In, Bits<16>>,
    pub in_fail: Signal<In, Bits<2>>,
    pub in_apply: Signal<In, bool>,
    pub out_valid: Signal<Out, bool>,
    pub out_key: Signal<Out, Bits<K>>,
    pub out_ok: Signal<Out, bool>,
    pub out_popped: Signal<Out, bool>,
    pub out_began: Signal<Out, bool>,
    pub out_seq: Signal<Out, Bits<32>>,
    pub out_opcode: Signal<Out, Bits<2>>,
    pub out_len: Signal<Out, Bits<32>>,
    pub out_imm: Signal<Out, Bits<32>>,
    pub out_fail: Signal<Out, Bits<2>>,
    core: MsgCore,
    store: KeyedState<K, STATE_BITS>,
    s1_op: DFF<Bits<2>>,
    s1_seq: DFF<Bits<32>>,
    s1_len: DFF<Bits<32>>,
    s1_opcode: DFF<Bits<2>>,
    s1_imm: DFF<Bits<32>>,
    s1_payload: DFF<Bits<16>>,
    s1_fail: DFF<Bits<2>>,
    s1_apply: DFF<bool>,
    o_valid: DFF<bool>,
    o_key: DFF<Bits<K>>,
    o_ok: DFF<bool>,
    o_popped: DFF<bool>,
    o_began: DFF<bool>,
    o_seq: DFF<Bits<32>>,
    o_opcode: DFF<Bits<2>>,
    o_len: DFF<Bits<32>>,
    o_imm: DFF<Bits<32>>,
    o_fail: DFF<Bits<2>>,
}

impl<const K: usize> Logic for RxMsgs<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_op, s1_seq, s1_len, s1_opcode, s1_imm, s1_payload, s1_fail, s1_apply, o_valid, o_key, o_ok,
            o_popped, o_began, o_seq, o_opcode, o_len, o_imm, o_fail
        );
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.store.rd_valid.next = self.in_valid.val();
        self.store.rd_key.next = self.in_key.val();
        self.s1_op.d.next = self.in_op.val();
        self.s1_seq.d.next = self.in_seq.val();
        self.s1_len.d.next = self.in_len.val();
        self.s1_opcode.d.next = self.in_opcode.val();
        self.s1_imm.d.next = self.in_imm.val();
        self.s1_payload.d.next = self.in_payload.val();
        self.s1_fail.d.next = self.in_fail.val();
        self.s1_apply.d.next = self.in_apply.val();
        self.core.state.next = self.store.state.val();
        self.core.op.next = self.s1_op.q.val();
        self.core.seq.next = self.s1_seq.q.val();
        self.core.len.next = self.s1_len.q.val();
        self.core.opcode.next = self.s1_opcode.q.val();
        self.core.imm.next = self.s1_imm.q.val();
        self.core.payload.next = self.s1_payload.q.val();
        self.core.fail.next = self.s1_fail.q.val();
        self.core.apply.next = self.s1_apply.q.val();
        self.store.wr_valid.next = true;
        self.store.wr_state.next = self.core.new_state.val();
        self.o_valid.d.next = self.store.s1_valid.val();
        self.o_key.d.next = self.store.s1_key.val();
        self.o_ok.d.next = self.core.ok.val();
        self.o_popped.d.next = self.core.popped.val();
        self.o_began.d.next = self.core.began.val();
        self.o_seq.d.next = self.core.p_seq.val();
        self.o_opcode.d.next = self.core.p_opcode.val();
        self.o_len.d.next = self.core.p_len.val();
        self.o_imm.d.next = self.core.p_imm.val();
        self.o_fail.d.next = self.core.p_fail.val();
        if self.reset.val() {
            self.o_valid.d.next = false;
        }
        self.ready.next = self.store.ready.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_key.next = self.o_key.q.val();
        self.out_ok.next = self.o_ok.q.val();
        self.out_popped.next = self.o_popped.q.val();
        self.out_began.next = self.o_began.q.val();
        self.out_seq.next = self.o_seq.q.val();
        self.out_opcode.next = self.o_opcode.q.val();
        self.out_len.next = self.o_len.q.val();
        self.out_imm.next = self.o_imm.q.val();
        self.out_fail.next = self.o_fail.q.val();
    }
}
