//! `rx_check`: the connection and memory-region checks of a received data
//! packet, and its placement address.
//! Reference: `ferroce_proto::model::mr::MrTable::check_write` and the
//! endpoint's connection check (known connection, packet from its peer,
//! path within its paths, of the connection's generation).
//!
//! Tables (written by the CSR windows): `CONNS` connections (valid, peer
//! IPv4 address, path count, generation) and `MRS` memory regions (valid, rkey, base,
//! length, remote-write permission, owning connection). The rkey is looked
//! up in parallel in all regions (the lowest matching slot wins; the driver
//! never registers an rkey twice).
//!
//! Ports (`clock`; `reset` clears both tables):
//! * `conn_wr`: write connection `conn_wr_index` (`conn_wr_valid_bit`,
//!   `conn_wr_peer_ip`, `conn_wr_paths`, `conn_wr_generation`).
//! * `mr_wr`: write region `mr_wr_index` (`mr_wr_valid_bit`, `mr_wr_rkey`,
//!   `mr_wr_base`, `mr_wr_len`, `mr_wr_remote_write`, `mr_wr_conn`).
//! * `in_valid` with the packet's `in_conn`, `in_path`, `in_src_ip`,
//!   `in_generation`,
//!   `in_write` (WRITE or WRITE with immediate), `in_rkey`,
//!   `in_remote_addr`, `in_offset`, `in_payload_len`, `in_msg_len`.
//! * One cycle later: `out_valid`, `out_conn_ok`, `out_access_ok` (WRITEs:
//!   the region check of both the whole message and this packet; SENDs:
//!   true) and `out_addr` (`remote_addr + offset`).

use rust_hdl::prelude::*;

use crate::emit::CONN_KEY_BITS;

/// Connections in the table.
pub const CONNS: usize = 1 << CONN_KEY_BITS;
/// Memory regions in the table.
pub const MRS: usize = 16;

/// The checker.
#[derive(LogicBlock, Default)]
pub struct RxCheck {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub conn_wr: Signal<In, bool>,
    pub conn_wr_index: Signal<In, Bits<CONN_KEY_BITS>>,
    pub conn_wr_valid_bit: Signal<In, bool>,
    pub conn_wr_peer_ip: Signal<In, Bits<32>>,
    pub conn_wr_paths: Signal<In, Bits<5>>,
    pub conn_wr_generation: Signal<In, Bits<8>>,
    pub mr_wr: Signal<In, bool>,
    pub mr_wr_index: Signal<In, Bits<4>>,
    pub mr_wr_valid_bit: Signal<In, bool>,
    pub mr_wr_rkey: Signal<In, Bits<32>>,
    pub mr_wr_base: Signal<In, Bits<64>>,
    pub mr_wr_len: Signal<In, Bits<64>>,
    pub mr_wr_remote_write: Signal<In, bool>,
    pub mr_wr_conn: Signal<In, Bits<16>>,
    pub in_valid: Signal<In, bool>,
    pub in_conn: Signal<In, Bits<16>>,
    pub in_path: Signal<In, Bits<8>>,
    pub in_src_ip: Signal<In, Bits<32>>,
    pub in_generation: Signal<In, Bits<8>>,
    pub in_write: Signal<In, bool>,
    pub in_rkey: Signal<In, Bits<32>>,
    pub in_remote_addr: Signal<In, Bits<64>>,
    pub in_offset: Signal<In, Bits<32>>,
    pub in_payload_len: Signal<In, Bits<16>>,
    pub in_msg_len: Signal<In, Bits<32>>,
    pub out_valid: Signal<Out, bool>,
    pub out_conn_ok: Signal<Out, bool>,
    pub out_access_ok: Signal<Out, bool>,
    pub out_addr: Signal<Out, Bits<64>>,
}

impl Logic for RxCheck {
    // Verified in Verilator against the model; rust-hdl's simulator is not
    // used for this block, so the Rust side only keeps outputs defined.
    fn update(&mut self) {
        self.out_valid.next = false;
        self.out_conn_ok.next = false;
        self.out_access_ok.next = false;
        self.out_addr.next = 0.into();
    }

    fn connect(&mut self) {
        self.out_valid.connect();
        self.out_conn_ok.connect();
        self.out_access_ok.connect();
        self.out_addr.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(VERILOG.replace("@CB@", &CONN_KEY_BITS.to_string()))
    }
}

const VERILOG: &str = r#"
localparam CB = @CB@; // connection key bits
localparam NC = 1 << CB;
reg [NC-1:0] c_valid;
reg [31:0] c_peer [0:NC-1];
reg [4:0] c_paths [0:NC-1];
reg [7:0] c_gen [0:NC-1];
reg [15:0] m_valid;
reg [31:0] m_rkey [0:15];
reg [63:0] m_base [0:15];
reg [63:0] m_len [0:15];
reg [15:0] m_write;
reg [15:0] m_conn [0:15];

// Connection: known, from its peer, on one of its paths, of its generation.
wire conn_in_table = in_conn[15:CB] == {(16-CB){1'b0}};
wire [CB-1:0] ci = in_conn[CB-1:0];
wire conn_ok = conn_in_table & c_valid[ci] & (c_peer[ci] == in_src_ip) & ({3'd0, c_paths[ci]} > in_path)
  & (c_gen[ci] == in_generation);

// Region: the lowest valid slot whose rkey matches.
wire [15:0] hit;
genvar gi;
generate
  for (gi = 0; gi < 16; gi = gi + 1) begin : match_rkey
    assign hit[gi] = m_valid[gi] & (m_rkey[gi] == in_rkey);
  end
endgenerate
// Lowest set bit of hit: a balanced tree (heap order, leaves 16..31).
wire [31:1] v;
wire [127:4] x;
generate
  for (gi = 0; gi < 16; gi = gi + 1) begin : leaf
    assign v[16 + gi] = hit[gi];
    assign x[(16 + gi) * 4 +: 4] = gi[3:0];
  end
  for (gi = 1; gi < 16; gi = gi + 1) begin : node
    assign v[gi] = v[2 * gi] | v[2 * gi + 1];
    assign x[gi * 4 +: 4] = v[2 * gi] ? x[2 * gi * 4 +: 4] : x[(2 * gi + 1) * 4 +: 4];
  end
endgenerate
wire found = v[1];
wire [3:0] mi = x[7:4];
// Both checks of the model: the whole message, then this packet, each
// inside [base, base + len) with no wrap of addr + len.
wire [64:0] msg_end = {1'b0, in_remote_addr} + {33'd0, in_msg_len};
wire [64:0] pkt_addr = {1'b0, in_remote_addr} + {33'd0, in_offset};
wire [64:0] pkt_end = pkt_addr + {49'd0, in_payload_len};
wire [64:0] region_end = {1'b0, m_base[mi]} + {1'b0, m_len[mi]};
wire in_region_msg = ({1'b0, in_remote_addr} >= {1'b0, m_base[mi]}) & (msg_end <= region_end) & ~msg_end[64];
wire in_region_pkt = ~pkt_addr[64] & (pkt_addr >= {1'b0, m_base[mi]}) & (pkt_end <= region_end) & ~pkt_end[64];
wire access_ok = found & m_write[mi] & (m_conn[mi] == in_conn) & in_region_msg & in_region_pkt;

reg valid_q;
reg conn_ok_q;
reg access_ok_q;
reg [63:0] addr_q;
always @(posedge clock) begin
  valid_q <= in_valid;
  conn_ok_q <= conn_ok;
  access_ok_q <= ~in_write | access_ok;
  addr_q <= pkt_addr[63:0];
  if (conn_wr) begin
    c_valid[conn_wr_index] <= conn_wr_valid_bit;
    c_peer[conn_wr_index] <= conn_wr_peer_ip;
    c_paths[conn_wr_index] <= conn_wr_paths;
    c_gen[conn_wr_index] <= conn_wr_generation;
  end
  if (mr_wr) begin
    m_valid[mr_wr_index] <= mr_wr_valid_bit;
    m_rkey[mr_wr_index] <= mr_wr_rkey;
    m_base[mr_wr_index] <= mr_wr_base;
    m_len[mr_wr_index] <= mr_wr_len;
    m_write[mr_wr_index] <= mr_wr_remote_write;
    m_conn[mr_wr_index] <= mr_wr_conn;
  end
  if (reset) begin
    valid_q <= 1'b0;
    c_valid <= {NC{1'b0}};
    m_valid <= 16'd0;
  end
end
always @(*) begin
  out_valid = valid_q;
  out_conn_ok = conn_ok_q;
  out_access_ok = access_ok_q;
  out_addr = addr_q;
end
"#;
