//! `segmenter`: cuts one connection's messages into packets, streams taking
//! turns. Reference: `ferroce_proto::model::sendq::SendQueue::next_segment`.
//!
//! Each of the 8 streams holds its head message (loaded from the send
//! queue by the work-request fetch): length, local address, and the header
//! fields that do not change along the message. A request for the next
//! packet picks, round-robin from the stream after the last one served, the
//! first stream whose head message has bytes left, and returns the packet:
//! its offset, length (up to `mtu`), local address (where the DMA read
//! starts) and whether it ends the message.
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `load_valid` with `load_stream` and the message (`load_len`,
//!   `load_local`, `load_remote`, `load_rkey`, `load_imm`, `load_opcode`,
//!   `load_msg_seq`): becomes the stream's head message.
//! * `need` (out): bit s set when stream s has no bytes left to send.
//! * `next_valid` with `mtu`: one packet. One cycle later `out_valid`, with
//!   `out_found` and the packet (`out_stream`, `out_msg_seq`, `out_opcode`,
//!   `out_msg_len`, `out_offset`, `out_len`, `out_local`, `out_remote`,
//!   `out_rkey`, `out_imm`, `out_last`).

use std::fmt::Write as _;

use rust_hdl::prelude::*;

/// Streams per connection.
pub const STREAMS: usize = 8;

/// The segmenter.
#[derive(LogicBlock, Default)]
pub struct Segmenter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub load_valid: Signal<In, bool>,
    pub load_stream: Signal<In, Bits<3>>,
    pub load_len: Signal<In, Bits<32>>,
    pub load_local: Signal<In, Bits<64>>,
    pub load_remote: Signal<In, Bits<64>>,
    pub load_rkey: Signal<In, Bits<32>>,
    pub load_imm: Signal<In, Bits<32>>,
    pub load_opcode: Signal<In, Bits<8>>,
    pub load_msg_seq: Signal<In, Bits<32>>,
    pub need: Signal<Out, Bits<STREAMS>>,
    pub next_valid: Signal<In, bool>,
    pub mtu: Signal<In, Bits<14>>,
    pub out_valid: Signal<Out, bool>,
    pub out_found: Signal<Out, bool>,
    pub out_stream: Signal<Out, Bits<3>>,
    pub out_msg_seq: Signal<Out, Bits<32>>,
    pub out_opcode: Signal<Out, Bits<8>>,
    pub out_msg_len: Signal<Out, Bits<32>>,
    pub out_offset: Signal<Out, Bits<32>>,
    pub out_len: Signal<Out, Bits<16>>,
    pub out_local: Signal<Out, Bits<64>>,
    pub out_remote: Signal<Out, Bits<64>>,
    pub out_rkey: Signal<Out, Bits<32>>,
    pub out_imm: Signal<Out, Bits<32>>,
    pub out_last: Signal<Out, bool>,
}

impl Logic for Segmenter {
    // Verified in Verilator against the model; rust-hdl's simulator is not
    // used for this block, so the Rust side only keeps outputs defined.
    fn update(&mut self) {
        self.need.next = 0.into();
        self.out_valid.next = false;
        self.out_found.next = false;
        self.out_stream.next = 0.into();
        self.out_msg_seq.next = 0.into();
        self.out_opcode.next = 0.into();
        self.out_msg_len.next = 0.into();
        self.out_offset.next = 0.into();
        self.out_len.next = 0.into();
        self.out_local.next = 0.into();
        self.out_remote.next = 0.into();
        self.out_rkey.next = 0.into();
        self.out_imm.next = 0.into();
        self.out_last.next = false;
    }

    fn connect(&mut self) {
        self.need.connect();
        self.out_valid.connect();
        self.out_found.connect();
        self.out_stream.connect();
        self.out_msg_seq.connect();
        self.out_opcode.connect();
        self.out_msg_len.connect();
        self.out_offset.connect();
        self.out_len.connect();
        self.out_local.connect();
        self.out_remote.connect();
        self.out_rkey.connect();
        self.out_imm.connect();
        self.out_last.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog())
    }
}

fn verilog() -> String {
    let mut s = String::from(
        r#"
reg [31:0] m_len [0:7];
reg [31:0] m_next [0:7];
reg [63:0] m_local [0:7];
reg [63:0] m_remote [0:7];
reg [31:0] m_rkey [0:7];
reg [31:0] m_imm [0:7];
reg [7:0] m_opcode [0:7];
reg [31:0] m_seq [0:7];
reg [7:0] loaded;
reg [2:0] rr;
wire [7:0] has_data;
genvar gi;
generate
  for (gi = 0; gi < 8; gi = gi + 1) begin : d
    assign has_data[gi] = loaded[gi] & (m_next[gi] < m_len[gi]);
  end
endgenerate
// First stream with data in round-robin order from rr.
reg [2:0] pick;
reg found;
always @(*) begin
  found = 1'b0;
  pick = 3'd0;
"#,
    );
    // Unrolled from the last candidate to the first so that the first wins.
    for k in (0..STREAMS).rev() {
        let _ = writeln!(s, "  if (has_data[rr + 3'd{k}]) begin found = 1'b1; pick = rr + 3'd{k}; end");
    }
    s.push_str(
        r#"end
wire [31:0] left = m_len[pick] - m_next[pick];
wire [31:0] seg = (left > {18'd0, mtu}) ? {18'd0, mtu} : left;
reg valid_q;
reg found_q;
reg [2:0] stream_q;
reg [31:0] seq_q;
reg [7:0] opcode_q;
reg [31:0] msg_len_q;
reg [31:0] offset_q;
reg [15:0] len_q;
reg [63:0] local_q;
reg [63:0] remote_q;
reg [31:0] rkey_q;
reg [31:0] imm_q;
reg last_q;
always @(posedge clock) begin
  valid_q <= next_valid;
  found_q <= next_valid & found;
  if (next_valid & found) begin
    stream_q <= pick;
    seq_q <= m_seq[pick];
    opcode_q <= m_opcode[pick];
    msg_len_q <= m_len[pick];
    offset_q <= m_next[pick];
    len_q <= seg[15:0];
    local_q <= m_local[pick] + {32'd0, m_next[pick]};
    remote_q <= m_remote[pick];
    rkey_q <= m_rkey[pick];
    imm_q <= m_imm[pick];
    last_q <= m_next[pick] + seg == m_len[pick];
    m_next[pick] <= m_next[pick] + seg;
    rr <= pick + 3'd1;
  end
  if (load_valid) begin
    loaded[load_stream] <= 1'b1;
    m_len[load_stream] <= load_len;
    m_next[load_stream] <= 32'd0;
    m_local[load_stream] <= load_local;
    m_remote[load_stream] <= load_remote;
    m_rkey[load_stream] <= load_rkey;
    m_imm[load_stream] <= load_imm;
    m_opcode[load_stream] <= load_opcode;
    m_seq[load_stream] <= load_msg_seq;
  end
  if (reset) begin
    loaded <= 8'd0;
    rr <= 3'd0;
    valid_q <= 1'b0;
    found_q <= 1'b0;
  end
end
always @(*) begin
  need = ~has_data;
  out_valid = valid_q;
  out_found = found_q;
  out_stream = stream_q;
  out_msg_seq = seq_q;
  out_opcode = opcode_q;
  out_msg_len = msg_len_q;
  out_offset = offset_q;
  out_len = len_q;
  out_local = local_q;
  out_remote = remote_q;
  out_rkey = rkey_q;
  out_imm = imm_q;
  out_last = last_q;
end
"#,
    );
    s
}
