//! `frame_fifo`: holds received frames until their verdict (from
//! `rx_parse`, which knows only at a frame's end whether its CRC and lengths
//! hold) and passes on the good ones, so that nothing of a bad frame ever
//! reaches host memory.
//!
//! Frames are written as they arrive, with their `tlast`, into a 2^A-beat
//! RAM; verdicts arrive in frame order (any time after the frame's first
//! beat) into a small queue. The output side takes a frame's verdict before
//! its first beat: a good frame streams out, a bad one is read and dropped.
//!
//! Ports (`clock`; `reset` synchronous, active high): `s_axis_*` in
//! (`tready` low when the RAM is full; of a frame longer than the RAM the
//! first 2^A - 1 beats are kept, ending it, and the rest discarded, so such a
//! frame cannot wedge the FIFO), `verdict_valid`/`verdict_good`
//! (at most 16 waiting), `m_axis_*` out with back-pressure.

use rust_hdl::prelude::*;

/// Beats of frame storage, log2 (2048 beats: a 9000-byte frame and then some).
pub const DEPTH_BITS: usize = 11;

/// The frame FIFO.
#[derive(LogicBlock, Default)]
pub struct FrameFifo {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s_axis_tdata: Signal<In, Bits<64>>,
    pub s_axis_tkeep: Signal<In, Bits<8>>,
    pub s_axis_tvalid: Signal<In, bool>,
    pub s_axis_tready: Signal<Out, bool>,
    pub s_axis_tlast: Signal<In, bool>,
    pub verdict_valid: Signal<In, bool>,
    pub verdict_good: Signal<In, bool>,
    pub verdict_ready: Signal<Out, bool>,
    pub m_axis_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tvalid: Signal<Out, bool>,
    pub m_axis_tready: Signal<In, bool>,
    pub m_axis_tlast: Signal<Out, bool>,
}

impl Logic for FrameFifo {
    // Verified in Verilator; rust-hdl's simulator is not used for this block,
    // so the Rust side only keeps outputs defined.
    fn update(&mut self) {
        self.s_axis_tready.next = false;
        self.verdict_ready.next = false;
        self.m_axis_tdata.next = 0.into();
        self.m_axis_tkeep.next = 0.into();
        self.m_axis_tvalid.next = false;
        self.m_axis_tlast.next = false;
    }

    fn connect(&mut self) {
        self.s_axis_tready.connect();
        self.verdict_ready.connect();
        self.m_axis_tdata.connect();
        self.m_axis_tkeep.connect();
        self.m_axis_tvalid.connect();
        self.m_axis_tlast.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            r#"
localparam A = {a};
reg [72:0] mem [0:(1 << A) - 1]; // {{tlast, tkeep, tdata}}
reg [A:0] wr;
reg [A:0] rd;
wire [A:0] used = wr - rd;
wire full = used[A];
// A frame longer than the RAM would never see its verdict (it comes at the
// frame's end) and would wedge the FIFO: its first 2^A - 1 beats are kept,
// the last of them marked as its end, and the rest discarded. The parser
// finds such a frame too long, so its verdict is bad and it is dropped.
reg [A:0] wbeats;
reg wdrop;
wire at_cap = wbeats == {{1'b0, {{A{{1'b1}}}}}};
wire take = s_axis_tvalid & (wdrop | ~full);
// Verdicts in frame order.
reg [15:0] vq;
reg [4:0] vcount;
wire v_take = verdict_valid & (vcount != 5'd16);
// Output: a one-beat register in front of the RAM read.
reg [72:0] out_q;
reg out_valid;
reg in_frame;      // the current frame's verdict has been taken
reg frame_good;
wire have_data = used != {{(A + 1){{1'b0}}}};
wire need_verdict = ~in_frame;
wire can_start = need_verdict & (vcount != 5'd0);
wire out_free = ~out_valid | m_axis_tready;
// Read a beat when there is one, the frame's verdict is known, and the
// output register is free (or the frame is being dropped).
wire rd_go = have_data & (in_frame | can_start) & (out_free | ~(in_frame ? frame_good : vq[0]));
wire [72:0] beat = mem[rd[A-1:0]];
wire beat_good = in_frame ? frame_good : vq[0];
wire pop_verdict = rd_go & ~in_frame;
always @(posedge clock) begin
  if (take) begin
    if (~wdrop) begin
      mem[wr[A-1:0]] <= {{s_axis_tlast | at_cap, s_axis_tkeep, s_axis_tdata}};
      wr <= wr + 1'b1;
    end
    wbeats <= s_axis_tlast ? {{(A + 1){{1'b0}}}} : wbeats + 1'b1;
    if (at_cap & ~s_axis_tlast) wdrop <= 1'b1;
    if (s_axis_tlast) wdrop <= 1'b0;
  end
  if (m_axis_tready) out_valid <= 1'b0;
  if (rd_go) begin
    rd <= rd + 1'b1;
    if (beat_good) begin
      out_q <= beat;
      out_valid <= 1'b1;
    end
    if (~in_frame) begin
      in_frame <= 1'b1;
      frame_good <= vq[0];
    end
    if (beat[72]) in_frame <= 1'b0;
  end
  // Verdict queue: shift out at a frame start, shift in at the top.
  case ({{v_take, pop_verdict}})
    2'b01: begin
      vq <= vq >> 1;
      vcount <= vcount - 5'd1;
    end
    2'b10: begin
      vq[vcount[3:0]] <= verdict_good;
      vcount <= vcount + 5'd1;
    end
    2'b11: begin
      vq <= (vq >> 1) | ({{15'd0, verdict_good}} << (vcount[3:0] - 4'd1));
    end
    default: ;
  endcase
  if (reset) begin
    wr <= {{(A + 1){{1'b0}}}};
    rd <= {{(A + 1){{1'b0}}}};
    wbeats <= {{(A + 1){{1'b0}}}};
    wdrop <= 1'b0;
    vcount <= 5'd0;
    vq <= 16'd0;
    out_valid <= 1'b0;
    in_frame <= 1'b0;
    frame_good <= 1'b0;
  end
end
always @(*) begin
  s_axis_tready = wdrop | ~full;
  verdict_ready = vcount != 5'd16;
  m_axis_tvalid = out_valid;
  m_axis_tdata = out_q[63:0];
  m_axis_tkeep = out_q[71:64];
  m_axis_tlast = out_q[72];
end
"#,
            a = DEPTH_BITS
        ))
    }
}
