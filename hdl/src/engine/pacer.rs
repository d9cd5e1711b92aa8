//! `pacer`: per-connection pacing. Reference:
//! `ferroce_proto::model::cc::Pacer`.
//!
//! For each of 2^K connections block RAM holds `next` (when the next packet
//! may leave, 48.16 fixed point) and the cost of a byte (16.16). Time is a
//! 48-bit cycle count.
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `in_valid`, `in_op` (0 LOAD: start at `in_cost`, 1 SET: change the
//!   cost, 2 SEND: `in_bytes` left at `in_now`, 3 QUERY), `in_key`,
//!   `in_now`, `in_cost`, `in_bytes`: one operation per cycle.
//! * Two cycles later: `out_valid`, `out_key`, `out_may` (a packet may leave
//!   at `in_now`, judged before the operation) and `out_ready_at` (the
//!   first cycle at which one may, after it).

use rust_hdl::prelude::*;

use crate::blocks::keyed::KeyedState;

/// Bits of one connection's state: {cost[31:0], next[63:0]}.
pub const STATE_BITS: usize = 96;

/// Combinational core.
#[derive(LogicBlock, Default)]
pub struct PacerCore {
    pub state: Signal<In, Bits<STATE_BITS>>,
    pub op: Signal<In, Bits<2>>,
    pub now: Signal<In, Bits<48>>,
    pub cost: Signal<In, Bits<32>>,
    pub bytes: Signal<In, Bits<14>>,
    pub new_state: Signal<Out, Bits<STATE_BITS>>,
    pub may: Signal<Out, bool>,
    pub ready_at: Signal<Out, Bits<48>>,
}

impl Logic for PacerCore {
    // Verified in Verilator against the model; rust-hdl's simulator is not
    // used for this block, so the Rust side only keeps outputs defined.
    fn update(&mut self) {
        self.new_state.next = self.state.val();
        self.may.next = false;
        self.ready_at.next = 0.into();
    }

    fn connect(&mut self) {
        self.new_state.connect();
        self.may.connect();
        self.ready_at.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            r#"
wire [63:0] next_q = state[63:0];
wire [31:0] cost_q = state[95:64];
wire [63:0] now_q = {now, 16'd0};
wire may_now = now_q >= next_q;
wire [63:0] start = may_now ? now_q : next_q;
wire [45:0] spend = {14'd0, cost_q} * {32'd0, bytes};
reg [63:0] n_next;
reg [31:0] n_cost;
always @(*) begin
  n_next = next_q;
  n_cost = cost_q;
  case (op)
    2'd0: begin
      n_next = 64'd0;
      n_cost = cost;
    end
    2'd1: n_cost = cost;
    2'd2: n_next = start + {18'd0, spend};
    default: ;
  endcase
end
// ceil(n_next / 2^16): the whole part, plus one if any fraction.
wire [47:0] rounded = n_next[63:16] + {47'd0, n_next[15:0] != 16'd0};
always @(*) begin
  new_state = {n_cost, n_next};
  may = may_now;
  ready_at = rounded;
end
"#
            .into(),
        )
    }
}

/// Pacers for 2^K connections.
#[derive(LogicBlock, Default)]
pub struct Pacer<const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_op: Signal<In, Bits<2>>,
    pub in_key: Signal<In, Bits<K>>,
    pub in_now: Signal<In, Bits<48>>,
    pub in_cost: Signal<In, Bits<32>>,
    pub in_bytes: Signal<In, Bits<14>>,
    pub out_valid: Signal<Out, bool>,
    pub out_key: Signal<Out, Bits<K>>,
    pub out_may: Signal<Out, bool>,
    pub out_ready_at: Signal<Out, Bits<48>>,
    core: PacerCore,
    store: KeyedState<K, STATE_BITS>,
    s1_op: DFF<Bits<2>>,
    s1_now: DFF<Bits<48>>,
    s1_cost: DFF<Bits<32>>,
    s1_bytes: DFF<Bits<14>>,
    o_valid: DFF<bool>,
    o_key: DFF<Bits<K>>,
    o_may: DFF<bool>,
    o_ready_at: DFF<Bits<48>>,
}

impl<const K: usize> Logic for Pacer<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_op, s1_now, s1_cost, s1_bytes, o_valid, o_key, o_may, o_ready_at);
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.store.rd_valid.next = self.in_valid.val();
        self.store.rd_key.next = self.in_key.val();
        self.s1_op.d.next = self.in_op.val();
        self.s1_now.d.next = self.in_now.val();
        self.s1_cost.d.next = self.in_cost.val();
        self.s1_bytes.d.next = self.in_bytes.val();
        self.core.state.next = self.store.state.val();
        self.core.op.next = self.s1_op.q.val();
        self.core.now.next = self.s1_now.q.val();
        self.core.cost.next = self.s1_cost.q.val();
        self.core.bytes.next = self.s1_bytes.q.val();
        self.store.wr_valid.next = true;
        self.store.wr_state.next = self.core.new_state.val();
        self.o_valid.d.next = self.store.s1_valid.val();
        self.o_key.d.next = self.store.s1_key.val();
        self.o_may.d.next = self.core.may.val();
        self.o_ready_at.d.next = self.core.ready_at.val();
        if self.reset.val() {
            self.o_valid.d.next = false;
        }
        self.ready.next = self.store.ready.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_key.next = self.o_key.q.val();
        self.out_may.next = self.o_may.q.val();
        self.out_ready_at.next = self.o_ready_at.q.val();
    }
}
