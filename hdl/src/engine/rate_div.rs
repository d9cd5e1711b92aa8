//! `rate_div`: turns a receiver rate hint (Mb/s) into the pacer's cost of a
//! byte: `ceil(clock_mhz * 8 * 2^16 / rate)`, as
//! `ferroce_proto::model::cc::Pacer::cost_q16` computes it. A restoring
//! divider, one quotient bit per cycle (hints change once per ACK at most,
//! so 40 cycles per conversion are plenty).
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `in_valid`/`in_ready`, `in_rate_mbps` (0 is taken as 1), `in_clock_mhz`.
//! * `out_valid` pulses with `out_cost` when a conversion ends.

use rust_hdl::prelude::*;

/// The divider.
#[derive(LogicBlock, Default)]
pub struct RateDiv {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_ready: Signal<Out, bool>,
    pub in_rate_mbps: Signal<In, Bits<32>>,
    pub in_clock_mhz: Signal<In, Bits<16>>,
    pub out_valid: Signal<Out, bool>,
    pub out_cost: Signal<Out, Bits<40>>,
}

impl Logic for RateDiv {
    // Verified in Verilator against the model; rust-hdl's simulator is not
    // used for this block, so the Rust side only keeps outputs defined.
    fn update(&mut self) {
        self.in_ready.next = false;
        self.out_valid.next = false;
        self.out_cost.next = 0.into();
    }

    fn connect(&mut self) {
        self.in_ready.connect();
        self.out_valid.connect();
        self.out_cost.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            r#"
// numerator = clock_mhz * 8 * 2^16 (35 bits), shifted in MSB first.
reg [39:0] num;
reg [31:0] den;
reg [32:0] rem;
reg [39:0] quo;
reg [5:0] left;
reg busy;
reg done_q;
wire [32:0] trial = {rem[31:0], num[39]};
wire fits = trial >= {1'b0, den};
wire [32:0] rem_next = fits ? trial - {1'b0, den} : trial;
always @(posedge clock) begin
  done_q <= 1'b0;
  if (busy) begin
    rem <= rem_next;
    quo <= {quo[38:0], fits};
    num <= {num[38:0], 1'b0};
    left <= left - 6'd1;
    if (left == 6'd1) begin
      busy <= 1'b0;
      done_q <= 1'b1;
    end
  end else if (in_valid) begin
    num <= {5'd0, in_clock_mhz, 19'd0};
    den <= (in_rate_mbps == 32'd0) ? 32'd1 : in_rate_mbps;
    rem <= 33'd0;
    quo <= 40'd0;
    left <= 6'd40;
    busy <= 1'b1;
  end
  if (reset) begin
    busy <= 1'b0;
    done_q <= 1'b0;
  end
end
always @(*) begin
  in_ready = ~busy;
  out_valid = done_q;
  // Round up: one more if anything remained.
  out_cost = quo + {39'd0, rem != 33'd0};
end
"#
            .into(),
        )
    }
}
