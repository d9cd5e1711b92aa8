//! `sack`: the per-path receive tracker in RTL.
//!
//! Holds, for each of 2^K (connection, path) keys, the cumulative PSN, one
//! past the highest PSN seen and the 256-bit circular SACK bitmap indexed by
//! PSN mod 256, in three block RAMs indexed by key (cost grows with RAM,
//! not logic). Reference: `ferroce_proto::model::sack::SackTracker`.
//!
//! Ports (all synchronous to `clock`; `reset` is synchronous, active high):
//! * `ready` (out): low while the RAMs are being cleared after reset
//!   (2^K cycles); inputs are ignored then.
//! * `in_valid`, `in_op` (0 packet, 1 load), `in_key`, `in_psn`,
//!   `in_commit`: one operation per cycle, no back-pressure. A packet is
//!   classified; if it is new and `in_commit` is set its bit is recorded and
//!   the cumulative PSN advances. A load starts the key afresh at `in_psn`
//!   (connection setup with its initial PSN).
//! * `out_valid` with `out_key`, `out_verdict` (0 new, 1 duplicate, 2 out
//!   of window), `out_hole`, and the key's state after the packet:
//!   `out_cum`, `out_high`, `out_bitmap`. Two cycles after the packet;
//!   loads produce no output.
//!
//! Throughput one operation per cycle, any mix of keys: back-to-back
//! operations on one key are forwarded around the RAM's read latency.
//! The bitmap update uses thermometer masks and a balanced find-first-zero
//! tree, never a 256-bit barrel shifter.

use rust_hdl::prelude::*;

use crate::blocks::keyed::KeyedState;

use ferroce_proto::model::sack::{SackTracker, Verdict};
use ferroce_proto::Psn;

/// Verdict codes on `out_verdict`.
pub const VERDICT_NEW: u64 = 0;
pub const VERDICT_DUP: u64 = 1;
pub const VERDICT_OOW: u64 = 2;

/// The combinational core: one tracker state and one PSN in, the verdict and
/// the next state out. Custom Verilog (generate loops, balanced trees); the
/// Rust `update` is the reference model, for rust-hdl's own simulator.
#[derive(LogicBlock, Default)]
pub struct SackCore {
    /// Packed state: {bitmap[255:0], high[23:0], cum[23:0]}.
    pub state: Signal<In, Bits<STATE_BITS>>,
    pub psn: Signal<In, Bits<24>>,
    pub commit: Signal<In, Bool>,
    pub load: Signal<In, Bool>,
    pub verdict: Signal<Out, Bits<2>>,
    pub hole: Signal<Out, Bool>,
    pub new_state: Signal<Out, Bits<STATE_BITS>>,
}

type Bool = bool;

/// Bits of one key's state: bitmap, highest + 1, cumulative PSN.
pub const STATE_BITS: usize = 256 + 24 + 24;

fn pack(t: &SackTracker) -> Bits<STATE_BITS> {
    let mut s = Bits::<STATE_BITS>::default();
    s.set_bits::<24>(0, (t.cum().get() as u64).into());
    s.set_bits::<24>(24, (t.high().get() as u64).into());
    s.set_bits::<256>(48, bytes_to_map(t.bitmap()));
    s
}

/// Bits<256> <-> the model's byte array.
fn map_to_bytes(m: Bits<256>) -> [u8; 32] {
    let mut b = [0u8; 32];
    for (i, byte) in b.iter_mut().enumerate() {
        *byte = m.get_bits::<8>(i * 8).index() as u8;
    }
    b
}

fn bytes_to_map(b: &[u8; 32]) -> Bits<256> {
    let mut m = Bits::<256>::default();
    for (i, &byte) in b.iter().enumerate() {
        m.set_bits::<8>(i * 8, Bits::<8>::from(byte as u64));
    }
    m
}

impl Logic for SackCore {
    fn update(&mut self) {
        let psn = Psn::new(self.psn.val().index() as u32);
        if self.load.val() {
            self.verdict.next = VERDICT_NEW.into();
            self.hole.next = false;
            self.new_state.next = pack(&SackTracker::starting_at(psn));
            return;
        }
        let st = self.state.val();
        let t = SackTracker::from_parts(
            Psn::new(st.get_bits::<24>(0).index() as u32),
            Psn::new(st.get_bits::<24>(24).index() as u32),
            map_to_bytes(st.get_bits::<256>(48)),
        );
        let mut next = t;
        let (code, hole) = match t.classify(psn) {
            Verdict::New { hole } => {
                if self.commit.val() {
                    next.accept(psn);
                }
                (VERDICT_NEW, hole)
            }
            Verdict::Duplicate => (VERDICT_DUP, false),
            Verdict::OutOfWindow => (VERDICT_OOW, false),
        };
        self.verdict.next = code.into();
        self.hole.next = hole;
        self.new_state.next = pack(&next);
    }

    fn connect(&mut self) {
        self.verdict.connect();
        self.hole.connect();
        self.new_state.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(SACK_CORE_VERILOG.into())
    }
}

const SACK_CORE_VERILOG: &str = r#"
wire [23:0] cum = state[23:0];
wire [23:0] high = state[47:24];
wire [255:0] map = state[303:48];
// Distance of the PSN from the cumulative PSN and from the highest, 24-bit
// serial arithmetic: bit 23 set means "before".
wire [23:0] d_cum = psn - cum;
wire [23:0] d_high = psn - high;
wire [7:0] slot = psn[7:0];
wire [7:0] cs = cum[7:0];
wire behind = d_cum[23];
wire in_window = d_cum < 24'd256;
wire seen = map[slot];
wire is_new = in_window & ~seen;
wire do_set = is_new & commit & ~load;
wire [255:0] onehot = {255'd0, 1'b1} << slot;
wire [255:0] m1 = do_set ? (map | onehot) : map;

// ge_cs[i] = (i >= cs): thermometer mask, constant comparisons only.
wire [255:0] ge_cs;
genvar gi;
// i = 0 and i = 255 are written out: a loop term would compare a constant.
assign ge_cs[0] = (cs == 8'd0);
assign ge_cs[255] = 1'b1;
generate
  for (gi = 1; gi < 255; gi = gi + 1) begin : thermo_cs
    assign ge_cs[gi] = (gi[7:0] >= cs);
  end
endgenerate

// First zero of m1 at or after slot cs, else the first zero before it:
// two balanced find-first-set trees (heap order, leaves 256..511).
wire [255:0] z_hi = ~m1 & ge_cs;
wire [255:0] z_lo = ~m1 & ~ge_cs;
wire [511:1] v_hi;
wire [511:1] v_lo;
wire [4095:8] x_hi;
wire [4095:8] x_lo;
genvar gk;
generate
  for (gk = 0; gk < 256; gk = gk + 1) begin : leaf
    assign v_hi[256 + gk] = z_hi[gk];
    assign v_lo[256 + gk] = z_lo[gk];
    assign x_hi[(256 + gk) * 8 +: 8] = gk[7:0];
    assign x_lo[(256 + gk) * 8 +: 8] = gk[7:0];
  end
  for (gk = 1; gk < 256; gk = gk + 1) begin : node
    assign v_hi[gk] = v_hi[2 * gk] | v_hi[2 * gk + 1];
    assign v_lo[gk] = v_lo[2 * gk] | v_lo[2 * gk + 1];
    assign x_hi[gk * 8 +: 8] = v_hi[2 * gk] ? x_hi[2 * gk * 8 +: 8] : x_hi[(2 * gk + 1) * 8 +: 8];
    assign x_lo[gk * 8 +: 8] = v_lo[2 * gk] ? x_lo[2 * gk * 8 +: 8] : x_lo[(2 * gk + 1) * 8 +: 8];
  end
endgenerate
wire found_hi = v_hi[1];
wire found_lo = v_lo[1];
wire [7:0] zero_at = found_hi ? x_hi[15:8] : x_lo[15:8];
wire any_zero = found_hi | found_lo;
wire [8:0] advance = any_zero ? {1'b0, zero_at - cs} : 9'd256;

// Clear the run [cs, zero_at) that the cumulative PSN passes.
wire [255:0] ge_zero;
assign ge_zero[0] = (zero_at == 8'd0);
assign ge_zero[255] = 1'b1;
generate
  for (gi = 1; gi < 255; gi = gi + 1) begin : thermo_zero
    assign ge_zero[gi] = (gi[7:0] >= zero_at);
  end
endgenerate
wire [255:0] passed = ~any_zero ? {256{1'b1}} : (found_hi ? (ge_cs & ~ge_zero) : (ge_cs | ~ge_zero));

always @(*) begin
  if (load) begin
    verdict = 2'd0;
    hole = 1'b0;
    new_state = {256'd0, psn, psn};
  end else begin
    verdict = is_new ? 2'd0 : (in_window | behind) ? 2'd1 : 2'd2;
    hole = is_new & ~d_high[23] & (d_high != 24'd0);
    new_state = {m1 & ~passed, (do_set & ~d_high[23]) ? psn + 24'd1 : high, cum + {15'd0, advance}};
  end
end
"#;

/// The tracker for 2^K keys.
#[derive(LogicBlock, Default)]
pub struct Sack<const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bool>,
    pub ready: Signal<Out, Bool>,
    pub in_valid: Signal<In, Bool>,
    pub in_op: Signal<In, Bool>,
    pub in_key: Signal<In, Bits<K>>,
    pub in_psn: Signal<In, Bits<24>>,
    pub in_commit: Signal<In, Bool>,
    pub out_valid: Signal<Out, Bool>,
    pub out_key: Signal<Out, Bits<K>>,
    pub out_verdict: Signal<Out, Bits<2>>,
    pub out_hole: Signal<Out, Bool>,
    pub out_cum: Signal<Out, Bits<24>>,
    pub out_high: Signal<Out, Bits<24>>,
    pub out_bitmap: Signal<Out, Bits<256>>,
    core: SackCore,
    store: KeyedState<K, STATE_BITS>,
    // stage 1: the operation whose state the store is returning
    s1_op: DFF<Bool>,
    s1_psn: DFF<Bits<24>>,
    s1_commit: DFF<Bool>,
    // registered outputs
    o_valid: DFF<Bool>,
    o_key: DFF<Bits<K>>,
    o_verdict: DFF<Bits<2>>,
    o_hole: DFF<Bool>,
    o_state: DFF<Bits<STATE_BITS>>,
}

impl<const K: usize> Sack<K> {
    /// A tracker block (2^K keys).
    pub fn new() -> Self {
        Self::default()
    }
}

impl<const K: usize> Logic for Sack<K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_op, s1_psn, s1_commit, o_valid, o_key, o_verdict, o_hole, o_state);
        self.store.clock.next = self.clock.val();
        self.store.reset.next = self.reset.val();
        self.store.rd_valid.next = self.in_valid.val();
        self.store.rd_key.next = self.in_key.val();
        self.s1_op.d.next = self.in_op.val();
        self.s1_psn.d.next = self.in_psn.val();
        self.s1_commit.d.next = self.in_commit.val();

        self.core.state.next = self.store.state.val();
        self.core.psn.next = self.s1_psn.q.val();
        self.core.commit.next = self.s1_commit.q.val();
        self.core.load.next = self.s1_op.q.val();
        self.store.wr_valid.next = true;
        self.store.wr_state.next = self.core.new_state.val();

        self.o_valid.d.next = self.store.s1_valid.val() & !self.s1_op.q.val();
        self.o_key.d.next = self.store.s1_key.val();
        self.o_verdict.d.next = self.core.verdict.val();
        self.o_hole.d.next = self.core.hole.val();
        self.o_state.d.next = self.core.new_state.val();
        if self.reset.val() {
            self.o_valid.d.next = false;
        }

        self.ready.next = self.store.ready.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_key.next = self.o_key.q.val();
        self.out_verdict.next = self.o_verdict.q.val();
        self.out_hole.next = self.o_hole.q.val();
        self.out_cum.next = self.o_state.q.val().get_bits::<24>(0);
        self.out_high.next = self.o_state.q.val().get_bits::<24>(24);
        self.out_bitmap.next = self.o_state.q.val().get_bits::<256>(48);
    }
}
