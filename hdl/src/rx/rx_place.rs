//! `rx_place`: direct placement. For each accepted frame (from
//! `frame_fifo`) a descriptor says whether its payload goes to host memory
//! and where; the block issues one DMA write command (address, length) and
//! streams exactly the payload bytes, realigned to lane 0, on the DMA write
//! data stream. Frames not placed (ACKs, NAKs, refused packets) are
//! consumed and dropped.
//!
//! The payload of a data frame starts at byte 90 (Ethernet 14 + IPv4 20 +
//! UDP 8 + common 16 + data extension 32: lane 2 of beat 11), so the
//! realignment is a fixed two-lane shift with a six-byte carry.
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `desc_valid`/`desc_ready` with `desc_place`, `desc_addr`, `desc_len`:
//!   one per frame, in frame order, taken at the frame's first beat.
//! * `s_axis_*`: the frames (64-bit). The descriptor's length, not
//!   `tkeep`, says how many payload bytes a frame has (rx_parse checked it
//!   against the frame's length), so `tkeep` is not an input.
//! * `m_cmd_valid`/`m_cmd_ready` with `m_cmd_addr`, `m_cmd_len`: one DMA
//!   write per placed frame, before its data.
//! * `m_data_*`: the payload bytes (64-bit, `tlast` on each write's last beat).

use rust_hdl::prelude::*;

pub use crate::layout::PAYLOAD_OFFSET;

/// The placement block.
#[derive(LogicBlock, Default)]
pub struct RxPlace {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub desc_valid: Signal<In, bool>,
    pub desc_ready: Signal<Out, bool>,
    pub desc_place: Signal<In, bool>,
    pub desc_addr: Signal<In, Bits<64>>,
    pub desc_len: Signal<In, Bits<16>>,
    pub s_axis_tdata: Signal<In, Bits<64>>,
    pub s_axis_tvalid: Signal<In, bool>,
    pub s_axis_tready: Signal<Out, bool>,
    pub s_axis_tlast: Signal<In, bool>,
    pub m_cmd_valid: Signal<Out, bool>,
    pub m_cmd_ready: Signal<In, bool>,
    pub m_cmd_addr: Signal<Out, Bits<64>>,
    pub m_cmd_len: Signal<Out, Bits<16>>,
    pub m_data_tdata: Signal<Out, Bits<64>>,
    pub m_data_tkeep: Signal<Out, Bits<8>>,
    pub m_data_tvalid: Signal<Out, bool>,
    pub m_data_tready: Signal<In, bool>,
    pub m_data_tlast: Signal<Out, bool>,
}

impl Logic for RxPlace {
    // Verified in Verilator; rust-hdl's simulator is not used for this block,
    // so the Rust side only keeps outputs defined.
    fn update(&mut self) {
        self.desc_ready.next = false;
        self.s_axis_tready.next = false;
        self.m_cmd_valid.next = false;
        self.m_cmd_addr.next = 0.into();
        self.m_cmd_len.next = 0.into();
        self.m_data_tdata.next = 0.into();
        self.m_data_tkeep.next = 0.into();
        self.m_data_tvalid.next = false;
        self.m_data_tlast.next = false;
    }

    fn connect(&mut self) {
        self.desc_ready.connect();
        self.s_axis_tready.connect();
        self.m_cmd_valid.connect();
        self.m_cmd_addr.connect();
        self.m_cmd_len.connect();
        self.m_data_tdata.connect();
        self.m_data_tkeep.connect();
        self.m_data_tvalid.connect();
        self.m_data_tlast.connect();
    }

    fn hdl(&self) -> Verilog {
        assert_eq!(PAYLOAD_OFFSET % 8, 2, "the realignment below is a two-lane shift");
        Verilog::Custom(format!(
            r#"
localparam FIRST = 4'd{first}; // beat holding the payload's first bytes (lanes 2..7)
reg in_frame;      // a frame's descriptor has been taken
reg placing;
reg [3:0] beat;    // saturates at 15
reg [15:0] left;   // payload bytes still to send
reg [47:0] carry;  // lanes 2..7 of the previous beat
reg flush;         // the frame ended with payload bytes still in carry
reg cmd_v;
reg [63:0] cmd_a;
reg [15:0] cmd_l;
reg out_v;
reg [63:0] out_d;
reg [7:0] out_k;
reg out_l;
wire out_free = ~out_v | m_data_tready;
wire cmd_free = ~cmd_v | m_cmd_ready;
// A beat needs an output slot when it carries payload to send.
wire beat_emits = placing & (beat > FIRST) & (left != 16'd0);
wire start = ~in_frame & desc_valid & s_axis_tvalid & cmd_free & ~flush;
wire take = s_axis_tvalid & ~flush & (in_frame | start) & (~beat_emits | out_free);
wire [15:0] n = (left > 16'd8) ? 16'd8 : left;
wire [7:0] keep_n = (n >= 16'd8) ? 8'hff : ((8'd1 << n[2:0]) - 8'd1);
always @(posedge clock) begin
  if (m_cmd_ready) cmd_v <= 1'b0;
  if (m_data_tready) out_v <= 1'b0;
  if (start & desc_place & (desc_len != 16'd0)) begin
    cmd_v <= 1'b1;
    cmd_a <= desc_addr;
    cmd_l <= desc_len;
  end
  if (take) begin
    if (start) begin
      in_frame <= 1'b1;
      placing <= desc_place & (desc_len != 16'd0);
      left <= desc_len;
      beat <= 4'd1;
    end else if (beat != 4'd15) begin
      beat <= beat + 4'd1;
    end
    if ((start ? 4'd0 : beat) >= FIRST) carry <= s_axis_tdata[63:16];
    if (beat_emits & ~start) begin
      out_v <= 1'b1;
      out_d <= {{s_axis_tdata[15:0], carry}};
      out_k <= keep_n;
      out_l <= left == n;
      left <= left - n;
    end
    if (s_axis_tlast) begin
      in_frame <= 1'b0;
      // Payload bytes left after this beat sit in its lanes 2..7.
      if (placing & (((beat_emits & ~start) ? left - n : left) != 16'd0)) flush <= 1'b1;
      else placing <= 1'b0;
    end
  end
  if (flush & out_free) begin
    flush <= 1'b0;
    placing <= 1'b0;
    out_v <= 1'b1;
    out_d <= {{16'd0, carry}};
    out_k <= (8'd1 << left[2:0]) - 8'd1; // at most 6 bytes are left here
    out_l <= 1'b1;
    left <= 16'd0;
  end
  if (reset) begin
    in_frame <= 1'b0;
    placing <= 1'b0;
    flush <= 1'b0;
    cmd_v <= 1'b0;
    out_v <= 1'b0;
    beat <= 4'd0;
    left <= 16'd0;
  end
end
always @(*) begin
  desc_ready = start;
  s_axis_tready = take;
  m_cmd_valid = cmd_v;
  m_cmd_addr = cmd_a;
  m_cmd_len = cmd_l;
  m_data_tvalid = out_v;
  m_data_tdata = out_d;
  m_data_tkeep = out_k;
  m_data_tlast = out_l;
end
"#,
            first = PAYLOAD_OFFSET / 8
        ))
    }
}
