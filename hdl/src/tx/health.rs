//! `health`: per-path loss epochs and timeout runs, deciding re-pathing and
//! retirement. Reference: `ferroce_proto::model::health::Health`.
//!
//! Ports (`clock`; `reset` synchronous, active high; 2^K path keys):
//! * `in_valid`, `in_op` (0 new packet sent, 1 ACK, 2 RTO), `in_key`,
//!   `in_newly` and `in_lost` (ACK), `in_repath_after` and
//!   `in_retire_after` (RTO): one event per cycle.
//! * Two cycles later: `out_valid`, `out_key`, `out_repath` (move the path
//!   to a new source port), `out_retired` (the path takes no new data).
//!
//! Counters are 16 bits (epoch) and 8 bits (timeout run), saturating.

use rust_hdl::prelude::*;

use crate::blocks::keyed::KeyedState;

/// Bits of one path's state: {retired, rtos[7:0], lost[15:0], sent[15:0]}.
pub const STATE_BITS: usize = 41;

/// Combinational core.
#[derive(LogicBlock, Default)]
pub struct HealthCore {
    pub state: Signal<In, Bits<STATE_BITS>>,
    pub op: Signal<In, Bits<2>>,
    pub newly: Signal<In, Bits<9>>,
    pub lost: Signal<In, Bits<9>>,
    pub repath_after: Signal<In, Bits<8>>,
    pub retire_after: Signal<In, Bits<8>>,
    pub new_state: Signal<Out, Bits<STATE_BITS>>,
    pub repath: Signal<Out, bool>,
    pub retired: Signal<Out, bool>,
}

impl Logic for HealthCore {
    // Verified in Verilator against the model; rust-hdl's simulator is not
    // used for this block, so the Rust side only keeps outputs defined.
    fn update(&mut self) {
        self.new_state.next = self.state.val();
        self.repath.next = false;
        self.retired.next = false;
    }

    fn connect(&mut self) {
        self.new_state.connect();
        self.repath.connect();
        self.retired.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            r#"
wire [15:0] sent = state[15:0];
wire [15:0] lostc = state[31:16];
wire [7:0] rtos = state[39:32];
wire ret = state[40];
wire [16:0] lost_sum = {1'b0, lostc} + {8'd0, lost};
wire [15:0] lost1 = lost_sum[16] ? 16'hffff : lost_sum[15:0];
wire ack_clears = newly != 9'd0;
wire epoch_done = sent >= 16'd64;
wire [17:0] lost_x4 = {lost1, 2'b00};
wire [7:0] rtos1 = (rtos == 8'hff) ? rtos : rtos + 8'd1;
reg [15:0] n_sent;
reg [15:0] n_lost;
reg [7:0] n_rtos;
reg n_ret;
always @(*) begin
  n_sent = sent;
  n_lost = lostc;
  n_rtos = rtos;
  n_ret = ret;
  repath = 1'b0;
  case (op)
    2'd0: n_sent = (sent == 16'hffff) ? sent : sent + 16'd1;
    2'd1: begin
      n_lost = lost1;
      if (ack_clears) begin
        n_rtos = 8'd0;
        n_ret = 1'b0;
      end
      if (epoch_done) begin
        repath = lost_x4 >= {2'b00, sent};
        n_sent = 16'd0;
        n_lost = 16'd0;
      end
    end
    2'd2: begin
      n_rtos = rtos1;
      if (rtos1 >= retire_after) n_ret = 1'b1;
      repath = rtos1 >= repath_after;
    end
    default: ;
  endcase
  new_state = {n_ret, n_rtos, n_lost, n_sent};
  retired = n_ret;
end
"#
            .into(),
        )
    }
}

/// Health counters for 2^K paths.
#[derive(LogicBlock, Default)]
pub struct PathHealth<const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_op: Signal<In, Bits<2>>,
    pub in_key: Signal<In, Bits<K>>,
    pub in_newly: Signal<In, Bits<9>>,
    pub in_lost: Signal<In, Bits<9>>,
    pub in_repath_after: Signal<In, Bits<8>>,
    pub in_retire_after: Signal<In, Bits<8>>,
    pub out_valid: Signal<Out, bool>,
    pub out_key: Signal<Out, Bits<K>>,
    pub out_repath: Signal<Out, bool>,
    pub out_retired: Signal<Out, bool>,
    core: HealthCore,
    store: KeyedState<K, STATE_BITS>,
    s1_op: DFF<Bits<2>>,
    s1_newly: DFF<Bits<9>>,
    s1_lost: DFF<Bits<9>>,
    s1_repath_after: DFF<Bits<8>>,
    s1_retire_after: DFF<Bits<8>>,
    o_valid: DFF<bool>,
    o_key: DFF<Bits<K>>,
    o_repath: DFF<bool>,
    o_retired: DFF<bool>,
}

impl<const K: usize> Logic for PathHealth<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_op,
            s1_newly,
            s1_lost,
            s1_repath_after,
            s1_retire_after,
            o_valid,
            o_key,
            o_repath,
            o_retired
        );
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.store.rd_valid.next = self.in_valid.val();
        self.store.rd_key.next = self.in_key.val();
        self.s1_op.d.next = self.in_op.val();
        self.s1_newly.d.next = self.in_newly.val();
        self.s1_lost.d.next = self.in_lost.val();
        self.s1_repath_after.d.next = self.in_repath_after.val();
        self.s1_retire_after.d.next = self.in_retire_after.val();
        self.core.state.next = self.store.state.val();
        self.core.op.next = self.s1_op.q.val();
        self.core.newly.next = self.s1_newly.q.val();
        self.core.lost.next = self.s1_lost.q.val();
        self.core.repath_after.next = self.s1_repath_after.q.val();
        self.core.retire_after.next = self.s1_retire_after.q.val();
        self.store.wr_valid.next = true;
        self.store.wr_state.next = self.core.new_state.val();
        self.o_valid.d.next = self.store.s1_valid.val();
        self.o_key.d.next = self.store.s1_key.val();
        self.o_repath.d.next = self.core.repath.val();
        self.o_retired.d.next = self.core.retired.val();
        if self.reset.val() {
            self.o_valid.d.next = false;
        }
        self.ready.next = self.store.ready.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_key.next = self.o_key.q.val();
        self.out_repath.next = self.o_repath.q.val();
        self.out_retired.next = self.o_retired.q.val();
    }
}
