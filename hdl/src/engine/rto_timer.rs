//! `rto_timer`: one retransmission timer per path key, as a deadline in
//! block RAM and a scanner that visits one key per cycle.
//!
//! Ports (`clock`; `reset` synchronous, active high; 2^K keys):
//! * `now`: the time base (cycles or any tick, 32-bit wrapping).
//! * `set_valid` with `set_key`, `set_arm` and `set_deadline`: arm the key's
//!   timer for `set_deadline`, or (`set_arm` low) disarm it. One per cycle.
//! * `fire_valid` with `fire_key`: an armed timer has expired
//!   (`now - deadline`, as a signed 32-bit number, is >= 0). Each arming
//!   fires at most once, no earlier than its deadline and at most
//!   2^K + 3 cycles after it (one scan round plus the pipeline); re-arming
//!   or disarming before then replaces it.
//! * `ready`: low during the 2^K-cycle clearing sweep after reset.

use rust_hdl::prelude::*;

/// The timers.
#[derive(LogicBlock, Default)]
pub struct RtoTimer<const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub now: Signal<In, Bits<32>>,
    pub set_valid: Signal<In, bool>,
    pub set_key: Signal<In, Bits<K>>,
    pub set_arm: Signal<In, bool>,
    pub set_deadline: Signal<In, Bits<32>>,
    pub fire_valid: Signal<Out, bool>,
    pub fire_key: Signal<Out, Bits<K>>,
}

impl<const K: usize> Logic for RtoTimer<K> {
    // Verified in Verilator; rust-hdl's simulator is not used for this block,
    // so the Rust side only keeps outputs defined.
    fn update(&mut self) {
        self.ready.next = false;
        self.fire_valid.next = false;
        self.fire_key.next = 0.into();
    }

    fn connect(&mut self) {
        self.ready.connect();
        self.fire_valid.connect();
        self.fire_key.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            r#"
localparam N = {n};
reg [32:0] mem [0:N-1]; // {{armed, deadline}}
reg [N-1:0] fired;
reg [{k1}:0] scan;
reg [{k1}:0] scan_q;
reg [32:0] entry;
reg scan_ok;
reg busy;
reg fire_q;
reg [{k1}:0] fire_key_q;
reg read_stale;
wire [31:0] late = now - entry[31:0];
// The entry read is stale if the key was written in the cycle it was read;
// a write to it in this cycle supersedes it too.
wire expired = scan_ok & ~read_stale & entry[32] & (late < 32'h80000000) & ~fired[scan_q];
wire superseded = set_valid & (set_key == scan_q);
always @(posedge clock) begin
  entry <= mem[scan];
  read_stale <= set_valid & (set_key == scan);
  scan_q <= scan;
  scan_ok <= ~busy;
  scan <= scan + {{{{{k1}{{1'b0}}}}, 1'b1}};
  fire_q <= expired & ~superseded;
  fire_key_q <= scan_q;
  if (expired & ~superseded) fired[scan_q] <= 1'b1;
  if (busy) begin
    mem[scan] <= 33'd0;
    if (&scan) busy <= 1'b0;
  end else if (set_valid) begin
    mem[set_key] <= {{set_arm, set_deadline}};
    fired[set_key] <= 1'b0;
  end
  if (reset) begin
    busy <= 1'b1;
    scan <= {{{k}{{1'b0}}}};
    scan_ok <= 1'b0;
    read_stale <= 1'b0;
    fire_q <= 1'b0;
    fired <= {{N{{1'b0}}}};
  end
end
always @(*) begin
  ready = ~busy;
  fire_valid = fire_q;
  fire_key = fire_key_q;
end
"#,
            n = 1usize << K,
            k = K,
            k1 = K - 1
        ))
    }
}
