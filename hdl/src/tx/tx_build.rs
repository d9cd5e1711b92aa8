//! `tx_build`: the frame builder. Takes one packet's fields (the semantic
//! `Repr` of `ferroce_proto::wire`) and, for data packets, its payload from
//! the DMA read stream, and sends the whole frame to the MAC: Ethernet,
//! IPv4 (with its checksum), UDP, the transport header, the payload and the
//! CRC trailer. Byte for byte what `ferroce_proto::wire::encode` produces.
//!
//! Field placement is generated from the header tables, the CRC update from
//! the CRC definition (the same equations as `rx_parse`).
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `hdr_valid`/`hdr_ready` with the field ports (`eth_*`, `ip_*`,
//!   `udp_*`, `bth_*` for the common header, `data_*`, `ack_*`, `nak_*`):
//!   one packet. The header is built when taken and waits in a holding
//!   register while the frame before it is still going out, so the next
//!   packet can be handed over (and its payload asked for) one frame ahead.
//! * `busy`: a frame is held or going out.
//! * `s_payload_*` (AXI-Stream, 64-bit): a data packet's payload, exactly
//!   `data_payload_len` bytes, `tkeep` contiguous from lane 0, all ones but
//!   on the last beat.
//! * `m_axis_*` (AXI-Stream, 64-bit): the frame, byte 0 in `tdata[7:0]`.
//!
//! A 16-byte packing buffer joins the sources; the output runs at one beat
//! per cycle once it holds 8 bytes, with `m_axis_tready` back-pressure and
//! `s_payload_tvalid` gaps absorbed.

use std::fmt::Write as _;

use rust_hdl::prelude::*;

use ferroce_proto::wire::headers::{ACK, COMMON, DATA, ETH, IPV4, NAK, UDP};
use ferroce_proto::wire::Header;

use crate::layout::{frame_offset, slices, HDR_BYTES, L2L4};
use crate::rx::rx_parse::crc_update_verilog;

/// Field ports: (port, header, field).
pub const PORTS: &[(&str, &Header, &str)] = &[
    ("eth_dst", &ETH, "dst"),
    ("eth_src", &ETH, "src"),
    ("ip_dscp", &IPV4, "dscp"),
    ("ip_ecn", &IPV4, "ecn"),
    ("ip_ttl", &IPV4, "ttl"),
    ("ip_src", &IPV4, "src"),
    ("ip_dst", &IPV4, "dst"),
    ("udp_sport", &UDP, "sport"),
    ("udp_dport", &UDP, "dport"),
    ("bth_opcode", &COMMON, "opcode"),
    ("bth_conn", &COMMON, "conn"),
    ("bth_path", &COMMON, "path"),
    ("bth_psn", &COMMON, "psn"),
    ("bth_timestamp", &COMMON, "timestamp"),
    ("bth_stream", &COMMON, "stream"),
    ("bth_flags", &COMMON, "flags"),
    ("bth_generation", &COMMON, "generation"),
    ("data_msg_seq", &DATA, "msg_seq"),
    ("data_msg_len", &DATA, "msg_len"),
    ("data_offset", &DATA, "offset"),
    ("data_payload_len", &DATA, "payload_len"),
    ("data_remote_addr", &DATA, "remote_addr"),
    ("data_rkey", &DATA, "rkey"),
    ("data_immediate", &DATA, "immediate"),
    ("ack_sack", &ACK, "sack"),
    ("ack_ts_echo", &ACK, "ts_echo"),
    ("ack_rate_hint", &ACK, "rate_hint"),
    ("ack_ecn_ce", &ACK, "ecn_ce"),
    ("ack_acked_pkts", &ACK, "acked_pkts"),
    ("nak_code", &NAK, "code"),
    ("nak_msg_seq", &NAK, "msg_seq"),
    ("nak_info", &NAK, "info"),
];

/// The frame builder.
#[derive(LogicBlock, Default)]
pub struct TxBuild {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub hdr_valid: Signal<In, bool>,
    pub hdr_ready: Signal<Out, bool>,
    pub busy: Signal<Out, bool>,
    pub eth_dst: Signal<In, Bits<48>>,
    pub eth_src: Signal<In, Bits<48>>,
    pub ip_dscp: Signal<In, Bits<6>>,
    pub ip_ecn: Signal<In, Bits<2>>,
    pub ip_ttl: Signal<In, Bits<8>>,
    pub ip_src: Signal<In, Bits<32>>,
    pub ip_dst: Signal<In, Bits<32>>,
    pub udp_sport: Signal<In, Bits<16>>,
    pub udp_dport: Signal<In, Bits<16>>,
    pub bth_opcode: Signal<In, Bits<8>>,
    pub bth_conn: Signal<In, Bits<16>>,
    pub bth_path: Signal<In, Bits<8>>,
    pub bth_psn: Signal<In, Bits<24>>,
    pub bth_timestamp: Signal<In, Bits<32>>,
    pub bth_stream: Signal<In, Bits<16>>,
    pub bth_flags: Signal<In, Bits<8>>,
    pub bth_generation: Signal<In, Bits<8>>,
    pub data_msg_seq: Signal<In, Bits<32>>,
    pub data_msg_len: Signal<In, Bits<32>>,
    pub data_offset: Signal<In, Bits<32>>,
    pub data_payload_len: Signal<In, Bits<16>>,
    pub data_remote_addr: Signal<In, Bits<64>>,
    pub data_rkey: Signal<In, Bits<32>>,
    pub data_immediate: Signal<In, Bits<32>>,
    pub ack_sack: Signal<In, Bits<256>>,
    pub ack_ts_echo: Signal<In, Bits<32>>,
    pub ack_rate_hint: Signal<In, Bits<32>>,
    pub ack_ecn_ce: Signal<In, Bits<16>>,
    pub ack_acked_pkts: Signal<In, Bits<16>>,
    pub nak_code: Signal<In, Bits<8>>,
    pub nak_msg_seq: Signal<In, Bits<32>>,
    pub nak_info: Signal<In, Bits<32>>,
    pub s_payload_tdata: Signal<In, Bits<64>>,
    pub s_payload_tkeep: Signal<In, Bits<8>>,
    pub s_payload_tvalid: Signal<In, bool>,
    pub s_payload_tready: Signal<Out, bool>,
    pub s_payload_tlast: Signal<In, bool>,
    pub m_axis_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tvalid: Signal<Out, bool>,
    pub m_axis_tready: Signal<In, bool>,
    pub m_axis_tlast: Signal<Out, bool>,
}

impl TxBuild {
    /// Mark every input as driven: a parent's custom Verilog drives them
    /// (rust-hdl requires each child input to be connected).
    pub fn connect_inputs(&mut self) {
        self.clock.connect();
        self.reset.connect();
        self.hdr_valid.connect();
        self.eth_dst.connect();
        self.eth_src.connect();
        self.ip_dscp.connect();
        self.ip_ecn.connect();
        self.ip_ttl.connect();
        self.ip_src.connect();
        self.ip_dst.connect();
        self.udp_sport.connect();
        self.udp_dport.connect();
        self.bth_opcode.connect();
        self.bth_conn.connect();
        self.bth_path.connect();
        self.bth_psn.connect();
        self.bth_timestamp.connect();
        self.bth_stream.connect();
        self.bth_flags.connect();
        self.bth_generation.connect();
        self.data_msg_seq.connect();
        self.data_msg_len.connect();
        self.data_offset.connect();
        self.data_payload_len.connect();
        self.data_remote_addr.connect();
        self.data_rkey.connect();
        self.data_immediate.connect();
        self.ack_sack.connect();
        self.ack_ts_echo.connect();
        self.ack_rate_hint.connect();
        self.ack_ecn_ce.connect();
        self.ack_acked_pkts.connect();
        self.nak_code.connect();
        self.nak_msg_seq.connect();
        self.nak_info.connect();
        self.s_payload_tdata.connect();
        self.s_payload_tkeep.connect();
        self.s_payload_tvalid.connect();
        self.s_payload_tlast.connect();
        self.m_axis_tready.connect();
    }
}

impl Logic for TxBuild {
    // Verified in Verilator against wire::encode; rust-hdl's simulator is not
    // used for this block, so the Rust side only keeps outputs defined.
    fn update(&mut self) {
        self.hdr_ready.next = false;
        self.busy.next = false;
        self.s_payload_tready.next = false;
        self.m_axis_tdata.next = 0.into();
        self.m_axis_tkeep.next = 0.into();
        self.m_axis_tvalid.next = false;
        self.m_axis_tlast.next = false;
    }

    fn connect(&mut self) {
        self.hdr_ready.connect();
        self.busy.connect();
        self.s_payload_tready.connect();
        self.m_axis_tdata.connect();
        self.m_axis_tkeep.connect();
        self.m_axis_tvalid.connect();
        self.m_axis_tlast.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog())
    }
}

/// Assignments placing `value` (an expression of the field's width) into
/// the header buffer `hc` at the field's place.
fn place(h: &Header, name: &str, value: &str) -> String {
    let mut s = String::new();
    for p in slices(h, name) {
        let _ = writeln!(s, "    hc[{}:{}] = {value}[{}:{}];", p.top, p.bottom, p.vtop, p.vbottom);
    }
    s
}

/// The builder's Verilog body.
pub fn verilog() -> String {
    let mut s = String::new();
    s.push_str("// Generated from ferroce_proto::wire (header tables and CRC): do not edit.\n");
    let _ = writeln!(s, "reg [{}:0] hc;", 8 * HDR_BYTES - 1);
    s.push_str(
        "wire is_data = (bth_opcode == 8'h01) | (bth_opcode == 8'h02) | (bth_opcode == 8'h03);\n\
         wire is_ack = bth_opcode == 8'h10;\n",
    );
    let _ = writeln!(
        s,
        "wire [15:0] hdr_len = is_data ? 16'd{} : is_ack ? 16'd{} : 16'd{};",
        L2L4 + COMMON.len + DATA.len,
        L2L4 + COMMON.len + ACK.len,
        L2L4 + COMMON.len + NAK.len
    );
    s.push_str("wire [15:0] pay_len = is_data ? data_payload_len : 16'd0;\n");
    s.push_str("wire [15:0] ip_total = hdr_len + pay_len + 16'd4 - 16'd14;\n");
    s.push_str("wire [15:0] udp_len = ip_total - 16'd20;\n");
    s.push_str("reg [15:0] ip_csum;\n");
    let fixed = [
        (&ETH, "ethertype", "16'h0800"),
        (&IPV4, "version", "4'd4"),
        (&IPV4, "ihl", "4'd5"),
        (&IPV4, "total_len", "ip_total"),
        (&IPV4, "ident", "16'd0"),
        (&IPV4, "flags", "3'b010"),
        (&IPV4, "frag_off", "13'd0"),
        (&IPV4, "protocol", "8'd17"),
        (&IPV4, "checksum", "ip_csum"),
        (&UDP, "len", "udp_len"),
        (&UDP, "checksum", "16'd0"),
        (&COMMON, "version", "4'd1"),
        (&COMMON, "reserved0", "4'd0"),
    ];
    // Constants become named wires so that they can be sliced.
    let mut named = Vec::new();
    for (h, name, v) in fixed {
        let wire = format!("k_{}_{}", frame_offset(h), name);
        let _ = writeln!(s, "wire [{}:0] {wire} = {v};", h.field(name).bits - 1);
        named.push((h, name, wire));
    }
    // Header buffer, from the tables.
    s.push_str("always @(*) begin\n    hc = 0;\n");
    for (port, h, field) in PORTS.iter().filter(|(_, h, _)| ![DATA.name, ACK.name, NAK.name].contains(&h.name)) {
        s.push_str(&place(h, field, port));
    }
    for (h, name, wire) in &named {
        s.push_str(&place(h, name, wire));
    }
    for (ext, cond) in [(&DATA, "is_data"), (&ACK, "is_ack"), (&NAK, "~is_data & ~is_ack")] {
        let _ = writeln!(s, "  if ({cond}) begin");
        for (port, h, field) in PORTS.iter().filter(|(_, h, _)| h.name == ext.name) {
            s.push_str(&place(h, field, port));
        }
        let _ = writeln!(s, "  end");
    }
    s.push_str("end\n");
    // IPv4 checksum over the header with its checksum field zero: the
    // buffer above uses ip_csum, so sum the words from the fields directly.
    s.push_str(
        "wire [31:0] ip_sum0 = {16'd0, 4'd4, 4'd5, ip_dscp, ip_ecn} + {16'd0, ip_total} + {16'd0, 16'd0} + \
         {16'd0, 3'b010, 13'd0} + {16'd0, ip_ttl, 8'd17} + {16'd0, ip_src[31:16]} + {16'd0, ip_src[15:0]} + \
         {16'd0, ip_dst[31:16]} + {16'd0, ip_dst[15:0]};\n\
         wire [31:0] ip_sum1 = {16'd0, ip_sum0[15:0]} + {16'd0, ip_sum0[31:16]};\n\
         wire [15:0] ip_sum2 = ip_sum1[15:0] + ip_sum1[31:16];\n\
         always @(*) ip_csum = ~ip_sum2;\n",
    );
    // Sequencer: header beats, payload beats, trailer, into a 16-byte packer.
    let _ = writeln!(s, "reg [{}:0] hb, nx_hb;", 8 * HDR_BYTES - 1);
    s.push_str(
        r#"localparam IDLE = 2'd0, HEAD = 2'd1, PAY = 2'd2, TRAIL = 2'd3;
reg [1:0] phase;
reg [15:0] hlen;
reg has_pay;
// The next frame's header, held until this one has left.
reg nx_valid;
reg [15:0] nx_hlen;
reg nx_has_pay;
reg [15:0] pos;
reg [31:0] crc;
reg [127:0] pend;
reg [4:0] cnt;
reg done_in;
// Output side: a beat when 8 bytes wait, or the rest once input is done.
wire [4:0] out_n = (cnt >= 5'd8) ? 5'd8 : cnt;
wire out_valid = (cnt >= 5'd8) | (done_in & (cnt != 5'd0));
wire out_fire = out_valid & m_axis_tready;
wire [4:0] cnt_after = out_fire ? cnt - out_n : cnt;
wire [127:0] pend_after = out_fire ? (pend >> {out_n, 3'b000}) : pend;
// Input side: this cycle's bytes, if they fit.
reg [63:0] in_data;
reg [3:0] in_n;
reg in_avail;
reg in_crc;
always @(*) begin
  in_data = 64'd0;
  in_n = 4'd0;
  in_avail = 1'b0;
  in_crc = 1'b1;
  case (phase)
    HEAD: begin
      in_data = hb[{pos[6:3], 6'd0} +: 64];
      in_n = (hlen - pos >= 16'd8) ? 4'd8 : hlen[3:0] - pos[3:0];
      in_avail = 1'b1;
    end
    PAY: begin
      in_data = s_payload_tdata;
      in_n = s_payload_tkeep[7] ? 4'd8 : s_payload_tkeep[6] ? 4'd7 : s_payload_tkeep[5] ? 4'd6 :
             s_payload_tkeep[4] ? 4'd5 : s_payload_tkeep[3] ? 4'd4 : s_payload_tkeep[2] ? 4'd3 :
             s_payload_tkeep[1] ? 4'd2 : s_payload_tkeep[0] ? 4'd1 : 4'd0;
      in_avail = s_payload_tvalid;
    end
    TRAIL: begin
      in_data = {32'd0, ~crc};
      in_n = 4'd4;
      in_avail = 1'b1;
      in_crc = 1'b0;
    end
    default: ;
  endcase
end
wire fits = {1'b0, cnt_after} + {2'b00, in_n} <= 6'd16;
wire in_take = in_avail & fits & (phase != IDLE);
// CRC over frame bytes from the transport header on (pos >= 42).
wire [15:0] pos_end = pos + {12'd0, in_n};
wire [15:0] ahead = (pos >= 16'd42) ? 16'd0 : 16'd42 - pos;
wire [3:0] lo = (ahead >= 16'd8) ? 4'd8 : ahead[3:0];
wire [3:0] ncrc = (in_crc & (in_n > lo)) ? in_n - lo : 4'd0;
wire [63:0] cdata = in_data >> {lo[2:0], 3'b000};
"#,
    );
    s.push_str(&crc_update_verilog());
    s.push_str(
        r#"wire [127:0] in_mask = (128'd1 << {in_n, 3'b000}) - 128'd1;
wire [127:0] in_placed = ({64'd0, in_data} & in_mask) << {cnt_after, 3'b000};
always @(posedge clock) begin
  pend <= in_take ? (pend_after | in_placed) : pend_after;
  cnt <= in_take ? cnt_after + {1'b0, in_n} : cnt_after;
  if (in_take) begin
    pos <= pos_end;
    crc <= crc_next;
  end
  if (hdr_valid & ~nx_valid) begin
    nx_hb <= hc;
    nx_hlen <= hdr_len;
    nx_has_pay <= is_data & (data_payload_len != 16'd0);
    nx_valid <= 1'b1;
  end
  case (phase)
    IDLE: if (nx_valid & (cnt == 5'd0) & ~done_in) begin
      hb <= nx_hb;
      hlen <= nx_hlen;
      has_pay <= nx_has_pay;
      nx_valid <= 1'b0;
      pos <= 16'd0;
      crc <= 32'hffffffff;
      phase <= HEAD;
    end
    HEAD: if (in_take & (pos_end == hlen)) phase <= has_pay ? PAY : TRAIL;
    PAY: if (in_take & s_payload_tlast) phase <= TRAIL;
    TRAIL: if (in_take) begin
      phase <= IDLE;
      done_in <= 1'b1;
    end
    default: ;
  endcase
  if (done_in & out_fire & (cnt_after == 5'd0)) done_in <= 1'b0;
  if (reset) begin
    phase <= IDLE;
    cnt <= 5'd0;
    pend <= 128'd0;
    done_in <= 1'b0;
    pos <= 16'd0;
    crc <= 32'hffffffff;
    hlen <= 16'd0;
    has_pay <= 1'b0;
    nx_valid <= 1'b0;
  end
end
always @(*) begin
  hdr_ready = ~nx_valid;
  busy = nx_valid | (phase != IDLE) | (cnt != 5'd0) | done_in;
  s_payload_tready = (phase == PAY) & fits;
  m_axis_tvalid = out_valid;
  m_axis_tdata = pend[63:0];
  m_axis_tkeep = (out_n >= 5'd8) ? 8'hff : ((8'd1 << out_n[2:0]) - 8'd1);
  m_axis_tlast = done_in & (cnt <= 5'd8);
end
"#,
    );
    s
}
