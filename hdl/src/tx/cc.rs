//! `cc`: per-path congestion window, AIMD on ECN echo.
//! Reference: `ferroce_proto::model::cc::Window`.
//!
//! Ports (`clock`; `reset` synchronous, active high; 2^K path keys):
//! * `ready` (out): low during the 2^K-cycle clearing sweep after reset.
//! * `in_valid`, `in_op` (0 ACK, 1 load), `in_key`: one operation per
//!   cycle, no back-pressure. An ACK carries `in_newly` (packets newly
//!   acknowledged), `in_ce` (CE marks echoed), `in_outstanding` (packets
//!   still unacknowledged), `in_srtt` and `in_now` (one time unit, 32-bit
//!   wrapping) and `in_max` (window cap). A load starts the key at `in_max`.
//! * `out_valid`, `out_key`, `out_cwnd`, `out_cut`: two cycles after each
//!   ACK, the window after it and whether it was halved. Loads produce no
//!   output.

use rust_hdl::prelude::*;

use ferroce_proto::model::cc::Window;

use crate::blocks::keyed::KeyedState;

/// Bits of one key's state: {last_cut[31:0], credit[8:0], cwnd[8:0]}.
pub const STATE_BITS: usize = 32 + 9 + 9;

/// Combinational core: state and ACK in, next state out.
#[derive(LogicBlock, Default)]
pub struct CcCore {
    pub state: Signal<In, Bits<STATE_BITS>>,
    pub load: Signal<In, bool>,
    pub newly: Signal<In, Bits<9>>,
    pub ce: Signal<In, Bits<16>>,
    pub outstanding: Signal<In, Bits<9>>,
    pub srtt: Signal<In, Bits<32>>,
    pub now: Signal<In, Bits<32>>,
    pub max: Signal<In, Bits<9>>,
    pub new_state: Signal<Out, Bits<STATE_BITS>>,
    pub cut: Signal<Out, bool>,
}

fn pack(w: &Window) -> Bits<STATE_BITS> {
    let mut s = Bits::<STATE_BITS>::default();
    s.set_bits::<9>(0, (w.cwnd as u64).into());
    s.set_bits::<9>(9, (w.credit as u64).into());
    s.set_bits::<32>(18, w.last_cut.into());
    s
}

impl Logic for CcCore {
    fn update(&mut self) {
        let max = self.max.val().index() as u32;
        if self.load.val() {
            self.new_state.next = pack(&Window::new(max));
            self.cut.next = false;
            return;
        }
        let st = self.state.val();
        let mut w = Window {
            cwnd: st.get_bits::<9>(0).index() as u32,
            credit: st.get_bits::<9>(9).index() as u32,
            last_cut: st.get_bits::<32>(18).index() as u64,
        };
        let cut = w.on_ack(
            self.now.val().index() as u64,
            self.newly.val().index() as u32,
            self.ce.val().index() as u32,
            self.outstanding.val().index() as u32,
            self.srtt.val().index() as u64,
            max,
        );
        self.new_state.next = pack(&w);
        self.cut.next = cut;
    }

    fn connect(&mut self) {
        self.new_state.connect();
        self.cut.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(CC_CORE_VERILOG.into())
    }
}

const CC_CORE_VERILOG: &str = r#"
wire [8:0] cwnd = state[8:0];
wire [8:0] credit = state[17:9];
wire [31:0] last_cut = state[49:18];
wire marked = ce != 16'd0;
wire [31:0] since = now - last_cut;
wire halve = marked & (since > srtt);
wire [9:0] outstanding_1 = {1'b0, outstanding} + 10'd1;
wire [9:0] limit = ({1'b0, cwnd} < outstanding_1) ? {1'b0, cwnd} : outstanding_1;
wire [9:0] half = limit >> 1;
wire [8:0] halved = (half == 10'd0) ? 9'd1 : half[8:0];
wire [9:0] sum = {1'b0, credit} + {1'b0, newly};
wire grow = sum >= {1'b0, cwnd};
wire [9:0] bigger = {1'b0, cwnd} + 10'd1;
wire [8:0] grown = (bigger > {1'b0, max}) ? max : bigger[8:0];
always @(*) begin
  cut = 1'b0;
  new_state = state;
  if (load) begin
    new_state = {32'd0, 9'd0, (max == 9'd0) ? 9'd1 : max};
  end else if (marked) begin
    if (halve) begin
      cut = 1'b1;
      new_state = {now, 9'd0, halved};
    end
  end else if (newly != 9'd0) begin
    new_state = grow ? {last_cut, 9'd0, grown} : {last_cut, sum[8:0], cwnd};
  end
end
"#;

/// The window store for 2^K paths.
#[derive(LogicBlock, Default)]
pub struct Cc<const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_op: Signal<In, bool>,
    pub in_key: Signal<In, Bits<K>>,
    pub in_newly: Signal<In, Bits<9>>,
    pub in_ce: Signal<In, Bits<16>>,
    pub in_outstanding: Signal<In, Bits<9>>,
    pub in_srtt: Signal<In, Bits<32>>,
    pub in_now: Signal<In, Bits<32>>,
    pub in_max: Signal<In, Bits<9>>,
    pub out_valid: Signal<Out, bool>,
    pub out_key: Signal<Out, Bits<K>>,
    pub out_cwnd: Signal<Out, Bits<9>>,
    pub out_cut: Signal<Out, bool>,
    core: CcCore,
    store: KeyedState<K, STATE_BITS>,
    s1_op: DFF<bool>,
    s1_newly: DFF<Bits<9>>,
    s1_ce: DFF<Bits<16>>,
    s1_outstanding: DFF<Bits<9>>,
    s1_srtt: DFF<Bits<32>>,
    s1_now: DFF<Bits<32>>,
    s1_max: DFF<Bits<9>>,
    o_valid: DFF<bool>,
    o_key: DFF<Bits<K>>,
    o_cwnd: DFF<Bits<9>>,
    o_cut: DFF<bool>,
}

impl<const K: usize> Logic for Cc<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_op,
            s1_newly,
            s1_ce,
            s1_outstanding,
            s1_srtt,
            s1_now,
            s1_max,
            o_valid,
            o_key,
            o_cwnd,
            o_cut
        );
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.store.rd_valid.next = self.in_valid.val();
        self.store.rd_key.next = self.in_key.val();
        self.s1_op.d.next = self.in_op.val();
        self.s1_newly.d.next = self.in_newly.val();
        self.s1_ce.d.next = self.in_ce.val();
        self.s1_outstanding.d.next = self.in_outstanding.val();
        self.s1_srtt.d.next = self.in_srtt.val();
        self.s1_now.d.next = self.in_now.val();
        self.s1_max.d.next = self.in_max.val();

        self.core.state.next = self.store.state.val();
        self.core.load.next = self.s1_op.q.val();
        self.core.newly.next = self.s1_newly.q.val();
        self.core.ce.next = self.s1_ce.q.val();
        self.core.outstanding.next = self.s1_outstanding.q.val();
        self.core.srtt.next = self.s1_srtt.q.val();
        self.core.now.next = self.s1_now.q.val();
        self.core.max.next = self.s1_max.q.val();
        self.store.wr_valid.next = true;
        self.store.wr_state.next = self.core.new_state.val();

        self.o_valid.d.next = self.store.s1_valid.val() & !self.s1_op.q.val();
        self.o_key.d.next = self.store.s1_key.val();
        self.o_cwnd.d.next = self.core.new_state.val().get_bits::<9>(0);
        self.o_cut.d.next = self.core.cut.val();
        if self.reset.val() {
            self.o_valid.d.next = false;
        }

        self.ready.next = self.store.ready.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_key.next = self.o_key.q.val();
        self.out_cwnd.next = self.o_cwnd.q.val();
        self.out_cut.next = self.o_cut.q.val();
    }
}
