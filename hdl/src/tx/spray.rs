//! `spray`: path choice for new packets and source-port entropy.
//! Reference: `ferroce_proto::model::spray` (`pick`, `PortGen`).
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * Choice: with `pick_valid`, the per-path inputs `present`, `span_ok`,
//!   `retired` (one bit per path, path i at bit i), `free` (9 bits per path,
//!   path i at bits 9i..9i+8) and the round-robin start `rr` are taken; one
//!   cycle later `out_valid` pulses with `out_found` and `out_path`: the
//!   eligible path with the most free window, ties to the first from `rr`
//!   (retired paths only if every present path is retired). One choice per
//!   cycle; a balanced 16-leaf comparison tree (depth 4).
//! * Entropy: `seed_valid` loads the 32-bit xorshift state from `seed`.
//!   `port_req` (with `port_avoid`) asks for a new source port; the block
//!   steps the xorshift once per cycle until the port (49152 + top 14 bits)
//!   differs from `port_avoid`, then pulses `port_valid` with `port`.
//!   `port_busy` is high meanwhile; requests while busy are ignored.

use rust_hdl::prelude::*;

use ferroce_proto::model::spray::{self, Candidate, PortGen};

/// Paths per connection the block handles.
pub const PATHS: usize = 16;

/// The sprayer.
#[derive(LogicBlock, Default)]
pub struct Spray {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub pick_valid: Signal<In, bool>,
    pub present: Signal<In, Bits<PATHS>>,
    pub span_ok: Signal<In, Bits<PATHS>>,
    pub retired: Signal<In, Bits<PATHS>>,
    pub free: Signal<In, Bits<{ 9 * PATHS }>>,
    pub rr: Signal<In, Bits<4>>,
    pub out_valid: Signal<Out, bool>,
    pub out_found: Signal<Out, bool>,
    pub out_path: Signal<Out, Bits<4>>,
    pub seed_valid: Signal<In, bool>,
    pub seed: Signal<In, Bits<32>>,
    pub port_req: Signal<In, bool>,
    pub port_avoid: Signal<In, Bits<16>>,
    pub port_busy: Signal<Out, bool>,
    pub port_valid: Signal<Out, bool>,
    pub port: Signal<Out, Bits<16>>,
    _sim: Box<SimState>,
}

/// rust-hdl simulation state (the Verilog keeps it in registers).
#[derive(Default)]
struct SimState {
    out: Option<Option<usize>>,
    gen: Option<PortGen>,
    busy: Option<u16>,
    port: Option<u16>,
}

impl Logic for Spray {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let st = &mut *self._sim;
            st.out = self.pick_valid.val().then(|| {
                let c: Vec<Candidate> = (0..PATHS)
                    .map(|i| Candidate {
                        present: self.present.val().get_bit(i),
                        free: self.free.val().get_bits::<9>(9 * i).index() as u32,
                        span_ok: self.span_ok.val().get_bit(i),
                        retired: self.retired.val().get_bit(i),
                    })
                    .collect();
                spray::pick(&c, self.rr.val().index())
            });
            st.port = None;
            if let Some(avoid) = st.busy.take() {
                st.port = Some(st.gen.get_or_insert(PortGen::new(0)).next_port(avoid));
            }
            if self.port_req.val() && st.port.is_none() {
                st.busy = Some(self.port_avoid.val().index() as u16);
            }
            if self.seed_valid.val() {
                st.gen = Some(PortGen::new(self.seed.val().index() as u32));
            }
            if self.reset.val() {
                *st = SimState::default();
            }
        }
        let st = &*self._sim;
        self.out_valid.next = st.out.is_some();
        self.out_found.next = matches!(st.out, Some(Some(_)));
        self.out_path.next = (st.out.flatten().unwrap_or(0) as u64).into();
        self.port_busy.next = st.busy.is_some();
        self.port_valid.next = st.port.is_some();
        self.port.next = (st.port.unwrap_or(0) as u64).into();
    }

    fn connect(&mut self) {
        self.out_valid.connect();
        self.out_found.connect();
        self.out_path.connect();
        self.port_busy.connect();
        self.port_valid.connect();
        self.port.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(SPRAY_VERILOG.into())
    }
}

const SPRAY_VERILOG: &str = r#"
// Choice: key = {eligible, free, rank}; the largest key wins. rank makes the
// first path in round-robin order from rr win a tie.
wire any_live = |(present & ~retired);
wire [15:0] eligible;
wire [14*16-1:0] key;
genvar gi;
generate
  for (gi = 0; gi < 16; gi = gi + 1) begin : leaf
    wire [3:0] offset = gi[3:0] - rr;
    assign eligible[gi] = present[gi] & span_ok[gi] & (~retired[gi] | ~any_live) & (free[9 * gi +: 9] != 9'd0);
    assign key[14 * gi +: 14] = {eligible[gi], free[9 * gi +: 9], 4'd15 - offset};
  end
endgenerate
// Balanced tree in heap order: leaves 16..31, root 1.
wire [14*32-1:28] node_key;
wire [4*32-1:8] node_idx;
generate
  for (gi = 0; gi < 16; gi = gi + 1) begin : leaves
    assign node_key[14 * (16 + gi) +: 14] = key[14 * gi +: 14];
    assign node_idx[4 * (16 + gi) +: 4] = gi[3:0];
  end
  for (gi = 2; gi < 16; gi = gi + 1) begin : nodes
    wire left = node_key[14 * (2 * gi) +: 14] >= node_key[14 * (2 * gi + 1) +: 14];
    assign node_key[14 * gi +: 14] = left ? node_key[14 * (2 * gi) +: 14] : node_key[14 * (2 * gi + 1) +: 14];
    assign node_idx[4 * gi +: 4] = left ? node_idx[4 * (2 * gi) +: 4] : node_idx[4 * (2 * gi + 1) +: 4];
  end
endgenerate
// The root: only whether the winner is eligible, and which it is.
wire root_left = node_key[28 +: 14] >= node_key[42 +: 14];
wire best_eligible = root_left ? node_key[41] : node_key[55];
wire [3:0] best_idx = root_left ? node_idx[8 +: 4] : node_idx[12 +: 4];

// Entropy: 32-bit xorshift, one step per cycle while busy.
reg [31:0] state;
reg busy;
reg [15:0] avoid_q;
wire [31:0] s1 = state ^ (state << 13);
wire [31:0] s2 = s1 ^ (s1 >> 17);
wire [31:0] s3 = s2 ^ (s2 << 5);
wire [15:0] candidate = 16'd49152 + {2'b00, s3[31:18]};

reg valid_q;
reg found_q;
reg [3:0] path_q;
reg port_valid_q;
reg [15:0] port_q;
always @(posedge clock) begin
  valid_q <= pick_valid;
  found_q <= best_eligible;
  path_q <= best_eligible ? best_idx : 4'd0;
  port_valid_q <= 1'b0;
  if (busy) begin
    state <= s3;
    if (candidate != avoid_q) begin
      busy <= 1'b0;
      port_valid_q <= 1'b1;
      port_q <= candidate;
    end
  end else if (port_req) begin
    busy <= 1'b1;
    avoid_q <= port_avoid;
  end
  if (seed_valid) state <= (seed == 32'd0) ? 32'h2545f491 : seed;
  if (reset) begin
    valid_q <= 1'b0;
    found_q <= 1'b0;
    path_q <= 4'd0;
    busy <= 1'b0;
    port_valid_q <= 1'b0;
    port_q <= 16'd0;
    avoid_q <= 16'd0;
    state <= 32'h2545f491;
  end
end
always @(*) begin
  out_valid = valid_q;
  out_found = found_q;
  out_path = path_q;
  port_busy = busy;
  port_valid = port_valid_q;
  port = port_q;
end
"#;
