//! `ack_gen`: per-path ACK coalescing. Reference:
//! `ferroce_proto::model::ackgen::AckState`.
//!
//! Ports (`clock`; `reset` synchronous, active high; 2^K path keys):
//! * `ready` (out): low during the clearing sweep after reset.
//! * `in_valid`, `in_op` (0 packet, 1 timer fired), `in_key`, `in_urgent`
//!   (the sender asked, a duplicate, beyond the window or a new hole),
//!   `in_ce` (the packet was CE-marked), `in_ack_every`.
//! * Two cycles later: `out_valid`, `out_key`, `out_action` (0 wait, 1 arm
//!   the ACK timer, 2 send an ACK now) with `out_pending` and `out_ce` for
//!   the ACK.

use rust_hdl::prelude::*;

use crate::blocks::keyed::KeyedState;

/// Bits of one path's state: {armed, ce[15:0], pending[15:0]}.
pub const STATE_BITS: usize = 33;

/// `out_action` codes.
pub mod action {
    pub const WAIT: u64 = 0;
    pub const ARM: u64 = 1;
    pub const NOW: u64 = 2;
}

/// Combinational core.
#[derive(LogicBlock, Default)]
pub struct AckCore {
    pub state: Signal<In, Bits<STATE_BITS>>,
    pub timer: Signal<In, bool>,
    pub urgent: Signal<In, bool>,
    pub ce: Signal<In, bool>,
    pub ack_every: Signal<In, Bits<16>>,
    pub new_state: Signal<Out, Bits<STATE_BITS>>,
    pub action: Signal<Out, Bits<2>>,
    pub pending: Signal<Out, Bits<16>>,
    pub ce_count: Signal<Out, Bits<16>>,
}

impl Logic for AckCore {
    // Verified in Verilator against the model; rust-hdl's simulator is not
    // used for this block, so the Rust side only keeps outputs defined.
    fn update(&mut self) {
        self.new_state.next = self.state.val();
        self.action.next = 0.into();
        self.pending.next = 0.into();
        self.ce_count.next = 0.into();
    }

    fn connect(&mut self) {
        self.new_state.connect();
        self.action.connect();
        self.pending.connect();
        self.ce_count.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            r#"
wire [15:0] pend = state[15:0];
wire [15:0] ces = state[31:16];
wire armed = state[32];
wire [15:0] pend1 = (pend == 16'hffff) ? pend : pend + 16'd1;
wire [15:0] ces1 = (ce & (ces != 16'hffff)) ? ces + 16'd1 : ces;
always @(*) begin
  new_state = state;
  action = 2'd0;
  pending = 16'd0;
  ce_count = 16'd0;
  if (timer) begin
    if (armed) begin
      action = 2'd2;
      pending = pend;
      ce_count = ces;
      new_state = 33'd0;
    end
  end else if (urgent | (pend1 >= ack_every)) begin
    action = 2'd2;
    pending = pend1;
    ce_count = ces1;
    new_state = 33'd0;
  end else begin
    action = armed ? 2'd0 : 2'd1;
    new_state = {1'b1, ces1, pend1};
  end
end
"#
            .into(),
        )
    }
}

/// Coalescing state for 2^K paths.
#[derive(LogicBlock, Default)]
pub struct AckGen<const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_op: Signal<In, bool>,
    pub in_key: Signal<In, Bits<K>>,
    pub in_urgent: Signal<In, bool>,
    pub in_ce: Signal<In, bool>,
    pub in_ack_every: Signal<In, Bits<16>>,
    pub out_valid: Signal<Out, bool>,
    pub out_key: Signal<Out, Bits<K>>,
    pub out_action: Signal<Out, Bits<2>>,
    pub out_pending: Signal<Out, Bits<16>>,
    pub out_ce: Signal<Out, Bits<16>>,
    core: AckCore,
    store: KeyedState<K, STATE_BITS>,
    s1_timer: DFF<bool>,
    s1_urgent: DFF<bool>,
    s1_ce: DFF<bool>,
    s1_every: DFF<Bits<16>>,
    o_valid: DFF<bool>,
    o_key: DFF<Bits<K>>,
    o_action: DFF<Bits<2>>,
    o_pending: DFF<Bits<16>>,
    o_ce: DFF<Bits<16>>,
}

impl<const K: usize> Logic for AckGen<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_timer, s1_urgent, s1_ce, s1_every, o_valid, o_key, o_action, o_pending, o_ce);
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.store.rd_valid.next = self.in_valid.val();
        self.store.rd_key.next = self.in_key.val();
        self.s1_timer.d.next = self.in_op.val();
        self.s1_urgent.d.next = self.in_urgent.val();
        self.s1_ce.d.next = self.in_ce.val();
        self.s1_every.d.next = self.in_ack_every.val();
        self.core.state.next = self.store.state.val();
        self.core.timer.next = self.s1_timer.q.val();
        self.core.urgent.next = self.s1_urgent.q.val();
        self.core.ce.next = self.s1_ce.q.val();
        self.core.ack_every.next = self.s1_every.q.val();
        self.store.wr_valid.next = true;
        self.store.wr_state.next = self.core.new_state.val();
        self.o_valid.d.next = self.store.s1_valid.val();
        self.o_key.d.next = self.store.s1_key.val();
        self.o_action.d.next = self.core.action.val();
        self.o_pending.d.next = self.core.pending.val();
        self.o_ce.d.next = self.core.ce_count.val();
        if self.reset.val() {
            self.o_valid.d.next = false;
        }
        self.ready.next = self.store.ready.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_key.next = self.o_key.q.val();
        self.out_action.next = self.o_action.q.val();
        self.out_pending.next = self.o_pending.q.val();
        self.out_ce.next = self.o_ce.q.val();
    }
}
