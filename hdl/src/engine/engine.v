// ferroce_engine glue (see engine.rs). References to registers (reg:, strobe:
// and hw: a block and register name, in double braces) are replaced by the
// register file's bus slices.
localparam NS = {{ns_per_cycle}}; // ns per clock cycle: the time base
localparam CB = {{conn_key_bits}}; // connection key bits
localparam PB = {{path_bits}};      // path bits
localparam KB = CB + PB;          // path key bits
localparam SB = CB + 3;           // stream key bits
localparam NC = 1 << CB;
localparam NK = NC << PB;         // path keys
localparam [31:0] NP32 = 1 << PB;
localparam [31:0] NC32 = NC;

// ---- time ----
reg [47:0] now48;                 // ns since reset (pacing)
wire [31:0] now_ns = now48[31:0]; // timestamps and timers

// ---- configuration from the register file ----
wire enable = {{reg:control.ctrl}}[0];
wire [47:0] cfg_mac = {{{reg:control.mac_hi}}[15:0], {{reg:control.mac_lo}}};
wire [31:0] cfg_ip = {{reg:control.ip}};
wire [15:0] cfg_port = {{reg:control.udp_port}}[15:0];
wire [13:0] cfg_mtu = {{reg:control.mtu}}[13:0];
wire [15:0] cfg_ack_every = {{reg:control.ack_every}}[15:0];
wire [31:0] cfg_ack_delay = {{reg:control.ack_delay_ns}};
wire [31:0] cfg_rto = {{reg:control.rto_min_ns}};
// The send path's RTO (ps, from its RTT estimate) in ns: x * 1049 / 2^20.
wire [66:0] rto_ns_wide = {11'd0, txp$m_rto_base} * 67'd1049;
wire [31:0] rto_ns = rto_ns_wide[51:20];
wire [31:0] cfg_rnr = {{reg:control.rnr_delay_ns}};

// ---- connection and region commands ----
localparam [3:0] C_IDLE = 4'd0, C_RX = 4'd1, C_TX = 4'd2, C_LOAD = 4'd3, C_CLEAR = 4'd4, C_SEED = 4'd5,
  C_PACE = 4'd6;
reg [3:0] cst;
reg [3:0] c_i;          // path or stream being set up
reg [1:0] conn_status;  // 0 done, 1 busy, 2 bad
reg [1:0] mr_status;
reg mr_w;
reg mr_valid_bit;
reg seed_pending;
reg conn_pend;
wire eng_ready = rxp$ready & txp$ready & ackt$ready & rtot$ready & pace$ready;
wire [31:0] c_index = {{reg:conn_table.index}};
wire [31:0] c_paths = {{reg:conn_table.paths}};
wire [31:0] c_streams = {{reg:conn_table.streams}};
wire [31:0] c_cmd = {{reg:conn_table.cmd}};
wire c_ok = (c_index < NC32) & (c_paths >= 32'd1) & (c_paths <= NP32) & (c_streams >= 32'd1) & (c_streams <= 32'd8);
wire [31:0] m_index = {{reg:mr_table.index}};
wire [31:0] pt_index = {{reg:path_table.index}}; // connection * 16 + path
wire [31:0] m_cmd = {{reg:mr_table.cmd}};

// ---- rings ----
wire [63:0] sq_base = {{{reg:queues.sq_base_hi}}, {{reg:queues.sq_base_lo}}};
wire [63:0] rq_base = {{{reg:queues.rq_base_hi}}, {{reg:queues.rq_base_lo}}};
wire [63:0] cq_base = {{{reg:queues.cq_base_hi}}, {{reg:queues.cq_base_lo}}};
wire [4:0] sq_log = {{reg:queues.sq_log_size}}[4:0];
wire [4:0] rq_log = {{reg:queues.rq_log_size}}[4:0];
wire [4:0] cq_log = {{reg:queues.cq_log_size}}[4:0];
wire [31:0] sq_prod = {{reg:queues.sq_prod}};
wire [31:0] rq_prod = {{reg:queues.rq_prod}};
wire [31:0] cq_cons = {{reg:queues.cq_cons}};
reg [31:0] sq_cons;
reg [31:0] rq_cons;
reg [31:0] cq_prod;
wire [31:0] sq_mask = (32'd1 << sq_log) - 32'd1;
wire [31:0] rq_mask = (32'd1 << rq_log) - 32'd1;
wire [31:0] cq_mask = (32'd1 << cq_log) - 32'd1;

// Work-request fetch: 64-byte entries, {id[63:0] @32, imm @28, rkey @24,
// remote @16, local @8, len @4, conn[15:0] @2, stream @1, op @0}.
localparam [2:0] F_IDLE = 3'd0, F_CMD = 3'd1, F_DATA = 3'd2, F_OFFER = 3'd3;
reg [2:0] sqf;
reg [511:0] wqe;
reg [2:0] wqe_beat;
reg [2:0] rqf;
reg [255:0] rqe;
reg [1:0] rqe_beat;
wire [7:0] w_op = wqe[7:0];
wire [7:0] w_stream = wqe[15:8];
wire [15:0] w_conn = wqe[31:16];
// Each connection's stream count as set up (0: not set up), so that a work
// request for a stream the connection does not have fails at once.
reg [3:0] e_streams [0:NC-1];
integer ei;
wire [3:0] w_streams = e_streams[w_conn[CB-1:0]];
wire w_ok = (w_op >= 8'd1) & (w_op <= 8'd3) & (w_conn < NC32[15:0]) & (w_stream < {4'd0, w_streams})
  & (wqe[63:32] != 32'd0);
wire [15:0] r_conn = rqe[15:0];
wire [7:0] r_stream = rqe[23:16];
wire [3:0] r_streams = e_streams[r_conn[CB-1:0]];
wire r_ok = (r_conn < NC32[15:0]) & (r_stream < {4'd0, r_streams}) & (rqe[63:32] != 32'd0);

// ---- DMA reads: payloads (tx_path), work requests, receive buffers ----
// One command at a time; data comes back in command order, routed by a
// queue of who asked (0 tx_path, 1 send queue, 2 receive queue).
reg [1:0] rd_who [0:7];
reg [2:0] rd_wr;
reg [2:0] rd_rd;
wire [3:0] rd_used = {1'b0, rd_wr - rd_rd};
wire rd_room = rd_used < 4'd7;
wire [1:0] rd_head = rd_who[rd_rd];
wire rd_any = rd_wr != rd_rd;
wire grant_tx = rd_room & txp$m_rd_cmd_valid;
wire grant_sq = rd_room & ~txp$m_rd_cmd_valid & (sqf == F_CMD);
wire grant_rq = rd_room & ~txp$m_rd_cmd_valid & (sqf != F_CMD) & (rqf == F_CMD);

// ---- completions: 32-byte entries ----
// bytes: kind @0 (1 send done, 2 receive, 3 WRITE with immediate), status
// @1, stream @2, flags @3 (bit0: imm valid), conn[15:0] @4, msg_seq @8,
// len @12, imm @16, id @20.
localparam [1:0] Q_IDLE = 2'd0, Q_CMD = 2'd1, Q_DATA = 2'd2;
reg [1:0] cqs;
reg [255:0] cqe;
reg [1:0] cqe_beat;
wire cq_room = (cq_prod - cq_cons) < (cq_mask + 32'd1);
wire take_rx_cpl = (cqs == Q_IDLE) & cq_room & rxp$m_cpl_valid;
wire take_tx_cpl = (cqs == Q_IDLE) & cq_room & ~rxp$m_cpl_valid & txp$m_cpl_valid;
// A malformed work request completes at once with status 3.
wire take_bad_wr = (cqs == Q_IDLE) & cq_room & ~rxp$m_cpl_valid & ~txp$m_cpl_valid & (sqf == F_OFFER) & ~w_ok;

// ---- DMA writes: placement (rx_path) and completions, whole writes ----
reg wr_busy;
reg wr_cq; // the write in progress is a completion
wire wr_pick_rx = ~wr_busy & rxp$m_dma_cmd_valid;
wire wr_pick_cq = ~wr_busy & ~rxp$m_dma_cmd_valid & (cqs == Q_CMD);

// ---- queues from the receive side to the send side: received ACKs/NAKs
// and ACKs to send wait here, so the receive side never waits for the frame
// the send side is sending ----
reg [KB+384:0] fbq [0:7];
reg [3:0] fbq_wr;
reg [3:0] fbq_rd;
wire fbq_any = fbq_wr != fbq_rd;
wire fbq_full = (fbq_wr - fbq_rd) == 4'd8;
wire [KB+384:0] fbq_out = fbq[fbq_rd[2:0]];
reg [KB+359:0] ackq [0:7];
reg [3:0] ackq_wr;
reg [3:0] ackq_rd;
wire ackq_any = ackq_wr != ackq_rd;
wire ackq_full = (ackq_wr - ackq_rd) == 4'd8;
wire [KB+359:0] ackq_out = ackq[ackq_rd[2:0]];

// ---- timers ----
reg [NK-1:0] ack_pend;
reg [NK-1:0] rto_pend;
// @TIMER_TREES@
reg [31:0] rnr_t [0:15];
reg [KB-1:0] rnr_k [0:15];
reg [23:0] rnr_p [0:15];
reg [3:0] rnr_wr;
reg [3:0] rnr_rd;
wire rnr_any = rnr_wr != rnr_rd;
wire [31:0] rnr_left = rnr_t[rnr_rd] - now_ns;
wire rnr_due = rnr_any & rnr_left[31];

// ---- pacing (the model's cc::Pacer per connection, in ns) ----
// A connection sends at the rate its receiver's hint gives (at most the
// line rate; before the first hint, conn_table.initial_rate_mbps or the
// line rate). The pacer block holds each connection's next permitted time
// and the cost of a byte; rate_div turns rates into costs. pc_ready is the
// first ns at which a connection may send; pc_wait holds it back from the
// frame it just sent until the pacer has accounted for that frame.
localparam [13:0] FRAME_EXTRA = {{frame_extra}}; // a data frame's bytes on the wire besides its payload
localparam [31:0] ACTIVE_NS = {{active_ns}};     // the receiver's activity window
// A connection may start a frame this long before its permitted time:
// deciding a frame and reading its payload by DMA take time before it
// reaches the MAC, and a pacer that waited for the exact time would leave
// that much idle before every frame. The pacer counts on from the
// permitted time, not from the early start, so the rate over more than one
// frame is exact.
localparam [47:0] PACE_LEAD_NS = 48'd1000;
wire [31:0] cfg_line = {{reg:control.line_rate_mbps}};
reg [47:0] pc_ready [0:NC-1];
reg [NC-1:0] pc_wait;
reg [NC-1:0] pc_may;
reg [31:0] pc_rate [0:NC-1];
reg [NC-1:0] pc_dirty;    // the connection's cost is to be (re)computed
reg [NC-1:0] pc_load;     // ...and its pacer restarted (connection set-up)
reg cv_busy;              // rate_div converting for cv_conn
reg [CB-1:0] cv_conn;
reg cv_load;
reg set_v;                // a cost waiting for the pacer's port
reg [CB-1:0] set_c;
reg [31:0] set_cost;
reg set_load;
reg p1_v, p2_v, p1_send, p2_send;
wire pc_send = txp$tx_sent;
integer pci;
always @(*) begin
  for (pci = 0; pci < NC; pci = pci + 1) pc_may[pci] = ~pc_wait[pci] & (now48 + PACE_LEAD_NS >= pc_ready[pci]);
end
// @PACE_TREE@
wire cv_start = ~cv_busy & ~set_v & pd_any & rdiv$in_ready;
wire [31:0] fb_rate = (rxp$m_fb_hint < cfg_line) ? rxp$m_fb_hint : cfg_line;
wire [CB-1:0] fb_conn = rxp$m_fb_key[KB-1:PB];
wire fb_hint = rxp$m_fb_valid & ~fbq_full & ~rxp$m_fb_nak & (rxp$m_fb_hint != 32'd0)
  & (e_streams[fb_conn] != 4'd0) & (pc_rate[fb_conn] != fb_rate);
wire [31:0] c_init = {{reg:conn_table.initial_rate_mbps}};
wire [31:0] c_rate = (c_init != 32'd0 && c_init < cfg_line) ? c_init : cfg_line;
wire pace_idle = ~(|pc_dirty) & ~cv_busy & ~set_v & ~p1_v & ~p2_v;

// ---- the receiver's rate hint (the model's Endpoint::rate_hint): the line
// rate over the connections active at this receiver, those heard from
// within ACTIVE_NS, or within 8 x ACTIVE_NS with a message begun and not
// delivered; none until one window after the receiver became busy ----
reg [31:0] ra_last [0:NC-1];  // ns of each connection's last data packet
reg [NC-1:0] ra_heard;        // heard from (cleared 8 windows after)
reg [7:0] ra_part [0:NC-1];   // messages begun and not delivered
reg [NC-1:0] ra_recent;
reg [NC-1:0] ra_act;
reg [6:0] ra_count;
reg [CB-1:0] ra_i;            // the sweep that forgets silent connections
reg ra_has;                   // busy since ra_since
reg ra_warm;                  // ...for a window at least
reg [31:0] ra_since;
reg [31:0] ra_age;
integer rai;
always @(*) begin
  ra_count = 7'd0;
  for (rai = 0; rai < NC; rai = rai + 1) begin
    ra_age = now_ns - ra_last[rai];
    ra_recent[rai] = ra_heard[rai] & (ra_age <= ACTIVE_NS);
    ra_act[rai] = ra_heard[rai] & ((ra_age <= ACTIVE_NS) | ((ra_age <= 8 * ACTIVE_NS) & (ra_part[rai] != 8'd0)));
    ra_count = ra_count + {6'd0, ra_act[rai]};
  end
end
wire [31:0] ra_div = (ra_count == 7'd0) ? 32'd1 : {25'd0, ra_count};
wire [31:0] hint = ra_warm ? cfg_line / ra_div : 32'd0;
wire [31:0] ra_sweep_age = now_ns - ra_last[ra_i];

always @(*) begin
  csr$clock = clock;
  csr$reset = reset;
  csr$s_axil_awaddr = s_axil_awaddr;
  csr$s_axil_awvalid = s_axil_awvalid;
  s_axil_awready = csr$s_axil_awready;
  csr$s_axil_wdata = s_axil_wdata;
  csr$s_axil_wstrb = s_axil_wstrb;
  csr$s_axil_wvalid = s_axil_wvalid;
  s_axil_wready = csr$s_axil_wready;
  s_axil_bresp = csr$s_axil_bresp;
  s_axil_bvalid = csr$s_axil_bvalid;
  csr$s_axil_bready = s_axil_bready;
  csr$s_axil_araddr = s_axil_araddr;
  csr$s_axil_arvalid = s_axil_arvalid;
  s_axil_arready = csr$s_axil_arready;
  s_axil_rdata = csr$s_axil_rdata;
  s_axil_rresp = csr$s_axil_rresp;
  s_axil_rvalid = csr$s_axil_rvalid;
  csr$s_axil_rready = s_axil_rready;

  // receive path
  rxp$clock = clock;
  rxp$reset = reset;
  rxp$cfg_port = cfg_port;
  rxp$cfg_mac = cfg_mac;
  rxp$cfg_ip = cfg_ip;
  rxp$cfg_ack_every = cfg_ack_every;
  rxp$conn_wr = (cst == C_RX);
  rxp$conn_wr_index = c_index[CB-1:0];
  rxp$conn_wr_valid_bit = c_cmd[1:0] == 2'd1;
  rxp$conn_wr_peer_ip = {{reg:conn_table.peer_ip}};
  rxp$conn_wr_paths = c_paths[4:0];
  rxp$conn_wr_generation = {{reg:conn_table.generation}}[7:0];
  rxp$mr_wr = mr_w;
  rxp$mr_wr_index = m_index[3:0];
  rxp$mr_wr_valid_bit = mr_valid_bit;
  rxp$mr_wr_rkey = {{reg:mr_table.rkey}};
  rxp$mr_wr_base = {{{reg:mr_table.base_hi}}, {{reg:mr_table.base_lo}}};
  rxp$mr_wr_len = {{{reg:mr_table.len_hi}}, {{reg:mr_table.len_lo}}};
  rxp$mr_wr_remote_write = {{reg:mr_table.access}}[0];
  rxp$mr_wr_conn = {{reg:mr_table.conn}}[15:0];
  rxp$ctl_valid = (cst == C_LOAD) | (cst == C_CLEAR);
  rxp$ctl_op = cst == C_CLEAR;
  rxp$ctl_key = {c_index[CB-1:0], c_i[PB-1:0]};
  rxp$ctl_psn = {{reg:conn_table.rx_psn}}[23:0];
  rxp$post_valid = rqf == F_OFFER & r_ok;
  rxp$post_key = {r_conn[CB-1:0], r_stream[2:0]};
  rxp$post_addr = rqe[127:64];
  rxp$post_len = rqe[63:32];
  rxp$post_id = rqe[159:128];
  rxp$timer_valid = ack_any;
  rxp$timer_key = ack_at;
  rxp$s_axis_tdata = s_mac_rx_tdata;
  rxp$s_axis_tkeep = s_mac_rx_tkeep;
  rxp$s_axis_tvalid = s_mac_rx_tvalid;
  s_mac_rx_tready = rxp$s_axis_tready;
  rxp$s_axis_tlast = s_mac_rx_tlast;
  rxp$s_axis_tuser = s_mac_rx_tuser;
  rxp$m_dma_cmd_ready = wr_pick_rx & m_dma_wr_cmd_ready;
  rxp$m_dma_data_tready = wr_busy & ~wr_cq & m_dma_wr_tready;
  rxp$m_ack_ready = ~ackq_full;
  rxp$m_nak_ready = txp$nak_ready;
  rxp$m_fb_ready = ~fbq_full;
  rxp$m_cpl_ready = take_rx_cpl;

  // send path
  txp$clock = clock;
  txp$reset = reset;
  txp$cfg_mac = cfg_mac;
  txp$cfg_ip = cfg_ip;
  txp$cfg_port = cfg_port;
  txp$cfg_mtu = cfg_mtu;
  txp$cfg_max_cwnd = 9'd256;
  txp$cfg_repath_after = 8'd1;
  txp$cfg_retire_after = 8'd3;
  txp$cfg_rto_min = cfg_rto;
  txp$cfg_hint = hint;
  txp$now = now_ns;
  txp$ctl_valid = (cst == C_TX) | (cst == C_SEED);
  txp$ctl_op = cst == C_SEED;
  txp$ctl_conn = c_index[CB-1:0];
  txp$ctl_remote = {{reg:conn_table.remote_id}}[15:0];
  txp$ctl_mac = {{{reg:conn_table.peer_mac_hi}}[15:0], {{reg:conn_table.peer_mac_lo}}};
  txp$ctl_ip = {{reg:conn_table.peer_ip}};
  txp$ctl_paths = c_paths[PB:0];
  txp$ctl_streams = c_streams[3:0];
  txp$ctl_psn = {{reg:conn_table.tx_psn}}[23:0];
  txp$ctl_generation = {{reg:conn_table.generation}}[7:0];
  txp$ctl_seed = {{reg:control.port_seed}};
  txp$wr_valid = (sqf == F_OFFER) & w_ok;
  txp$wr_key = {w_conn[CB-1:0], w_stream[2:0]};
  txp$wr_op = w_op[1:0];
  txp$wr_len = wqe[63:32];
  txp$wr_local = wqe[127:64];
  txp$wr_remote = wqe[191:128];
  txp$wr_rkey = wqe[223:192];
  txp$wr_imm = wqe[255:224];
  txp$wr_id = wqe[287:256];
  txp$fb_valid = fbq_any;
  txp$fb_nak = fbq_out[KB+384];
  txp$fb_key = fbq_out[KB+383:384];
  txp$fb_psn = fbq_out[383:360];
  txp$fb_sack = fbq_out[359:104];
  txp$fb_ce = fbq_out[103:88];
  txp$fb_code = fbq_out[87:80];
  txp$fb_stream = fbq_out[79:64];
  txp$fb_msg_seq = fbq_out[63:32];
  txp$fb_ts = fbq_out[31:0];
  txp$ack_valid = ackq_any;
  txp$ack_key = ackq_out[KB+359:360];
  txp$ack_cum = ackq_out[359:336];
  txp$ack_sack = ackq_out[335:80];
  txp$ack_ts = ackq_out[79:48];
  txp$ack_sport = ackq_out[47:32];
  txp$ack_pending = ackq_out[31:16];
  txp$ack_ce = ackq_out[15:0];
  txp$nak_valid = rxp$m_nak_valid;
  txp$nak_key = rxp$m_nak_key;
  txp$nak_psn = rxp$m_nak_psn;
  txp$nak_stream = rxp$m_nak_stream;
  txp$nak_msg_seq = rxp$m_nak_msg_seq;
  txp$nak_code = rxp$m_nak_code;
  txp$nak_sport = rxp$m_nak_sport;
  txp$rto_valid = rto_any;
  txp$rto_key = rto_at;
  txp$release_valid = rnr_due;
  txp$release_key = rnr_k[rnr_rd];
  txp$release_psn = rnr_p[rnr_rd];
  txp$tx_go = enable;
  txp$tx_mask = pc_may;
  txp$m_rd_cmd_ready = grant_tx & m_dma_rd_cmd_ready;
  txp$s_rd_tdata = s_dma_rd_tdata;
  txp$s_rd_tkeep = s_dma_rd_tkeep;
  txp$s_rd_tvalid = s_dma_rd_tvalid & rd_any & (rd_head == 2'd0);
  txp$s_rd_tlast = s_dma_rd_tlast;
  txp$m_axis_tready = m_mac_tx_tready;
  m_mac_tx_tdata = txp$m_axis_tdata;
  m_mac_tx_tkeep = txp$m_axis_tkeep;
  m_mac_tx_tvalid = txp$m_axis_tvalid;
  m_mac_tx_tlast = txp$m_axis_tlast;
  txp$m_cpl_ready = take_tx_cpl;
  txp$pt_key = {pt_index[CB+3:4], pt_index[3:0]};

  // timers
  ackt$clock = clock;
  ackt$reset = reset;
  ackt$now = now_ns;
  ackt$set_valid = rxp$m_arm_valid;
  ackt$set_key = rxp$m_arm_key;
  ackt$set_arm = 1'b1;
  ackt$set_deadline = now_ns + cfg_ack_delay;
  rtot$clock = clock;
  rtot$reset = reset;
  rtot$now = now_ns;
  rtot$set_valid = txp$m_rto_valid;
  rtot$set_key = txp$m_rto_key;
  rtot$set_arm = txp$m_rto_arm;
  rtot$set_deadline = now_ns + (rto_ns << txp$m_rto_shift);

  // pacing
  pace$clock = clock;
  pace$reset = reset;
  pace$in_valid = pc_send | set_v;
  pace$in_op = pc_send ? 2'd2 : set_load ? 2'd0 : 2'd1;
  pace$in_key = pc_send ? txp$tx_sent_conn : set_c;
  pace$in_now = now48;
  pace$in_cost = set_cost;
  pace$in_bytes = txp$tx_sent_len + FRAME_EXTRA;
  rdiv$clock = clock;
  rdiv$reset = reset;
  rdiv$in_valid = cv_start;
  rdiv$in_rate_mbps = pc_rate[pd_at];
  rdiv$in_clock_mhz = 16'd1000; // the pacer counts ns: 1000 per us

  // DMA read port
  m_dma_rd_cmd_valid = (txp$m_rd_cmd_valid | (sqf == F_CMD) | (rqf == F_CMD)) & rd_room;
  m_dma_rd_cmd_addr = txp$m_rd_cmd_valid ? txp$m_rd_cmd_addr
    : (sqf == F_CMD) ? sq_base + {26'd0, sq_cons & sq_mask, 6'd0} : rq_base + {27'd0, rq_cons & rq_mask, 5'd0};
  m_dma_rd_cmd_len = txp$m_rd_cmd_valid ? txp$m_rd_cmd_len : (sqf == F_CMD) ? 16'd64 : 16'd32;
  s_dma_rd_tready = rd_any & ((rd_head == 2'd0) ? txp$s_rd_tready : 1'b1);

  // DMA write port
  m_dma_wr_cmd_valid = wr_pick_rx | wr_pick_cq;
  m_dma_wr_cmd_addr = wr_pick_rx ? rxp$m_dma_cmd_addr : cq_base + {27'd0, cq_prod & cq_mask, 5'd0};
  m_dma_wr_cmd_len = wr_pick_rx ? rxp$m_dma_cmd_len : 16'd32;
  m_dma_wr_tdata = wr_cq ? cqe[64 * cqe_beat +: 64] : rxp$m_dma_data_tdata;
  m_dma_wr_tkeep = wr_cq ? 8'hff : rxp$m_dma_data_tkeep;
  m_dma_wr_tvalid = wr_busy & (wr_cq ? (cqs == Q_DATA) : rxp$m_dma_data_tvalid);
  m_dma_wr_tlast = wr_cq ? (cqe_beat == 2'd3) : rxp$m_dma_data_tlast;

  // registers the hardware sets
  csr$hw = {{hw_bits}}'d0;
  {{hw:control.status}} = {31'd0, enable};
  {{hw:conn_table.cmd_status}} = {30'd0, conn_status};
  {{hw:mr_table.cmd_status}} = {30'd0, mr_status};
  {{hw:queues.sq_cons}} = sq_cons;
  {{hw:queues.rq_cons}} = rq_cons;
  {{hw:queues.cq_prod}} = cq_prod;
  // The path window: connection * 16 + path.
  if (pt_index[31:CB+4] == {(28-CB){1'b0}}) begin
    {{hw:path_table.sport}} = {16'd0, txp$pt_sport};
    {{hw:path_table.cwnd}} = {7'd0, txp$pt_cwnd, 16'd0};
    {{hw:path_table.state}} = {31'd0, txp$pt_retired};
    {{hw:path_table.sent}} = txp$pt_sent;
    {{hw:path_table.retransmitted}} = txp$pt_retx;
    {{hw:path_table.ecn_echoes}} = txp$pt_ecn;
    {{hw:path_table.srtt_ns}} = txp$pt_srtt;
  end
  {{hw:stats.tx_data}} = txp$cnt_tx_data;
  {{hw:stats.tx_retx}} = txp$cnt_tx_retx;
  {{hw:stats.tx_acks}} = txp$cnt_tx_acks;
  {{hw:stats.tx_naks}} = txp$cnt_tx_naks;
  {{hw:stats.rx_data}} = rxp$cnt_data;
  {{hw:stats.rx_dup}} = rxp$cnt_dup;
  {{hw:stats.rx_out_of_window}} = rxp$cnt_oow;
  {{hw:stats.rx_malformed}} = rxp$cnt_malformed;
  {{hw:stats.rx_bad_conn}} = rxp$cnt_bad_conn;
  {{hw:stats.rx_access_violation}} = rxp$cnt_access;
  {{hw:stats.rx_no_recv}} = rxp$cnt_no_recv;
  {{hw:stats.rx_ecn_ce}} = rxp$cnt_ce;
  {{hw:stats.rtos}} = txp$cnt_rtos;
  {{hw:stats.repaths}} = txp$cnt_repaths;
  {{hw:stats.bytes_placed_lo}} = rxp$cnt_bytes[31:0];
  {{hw:stats.bytes_placed_hi}} = rxp$cnt_bytes[63:32];
end

always @(posedge clock) begin

  // ---- connection setup: rx tables, tx connection, path PSNs, streams ----
  case (cst)
    C_IDLE: begin
      // Commands wait for the clearing sweeps after reset (the paths' and
      // the timers'), which take 2^(path key bits) cycles.
      if (conn_pend & eng_ready) begin
        conn_pend <= 1'b0;
        if (~c_ok || (c_cmd != 32'd1 && c_cmd != 32'd3)) begin
          conn_status <= 2'd2;
        end else begin
          conn_status <= 2'd1;
          cst <= C_RX;
        end
      end else if (seed_pending & eng_ready) begin
        seed_pending <= 1'b0;
        cst <= C_SEED;
      end
    end
    C_RX: begin
      c_i <= 4'd0;
      e_streams[c_index[CB-1:0]] <= (c_cmd == 32'd1) ? c_streams[3:0] : 4'd0;
      if (c_cmd == 32'd3) begin
        conn_status <= 2'd0;
        cst <= C_IDLE;
      end else begin
        cst <= C_TX;
      end
    end
    C_TX: if (txp$ctl_ready) cst <= C_LOAD;
    C_LOAD: if (rxp$ctl_ready) begin
      if ({28'd0, c_i} + 32'd1 >= c_paths) begin
        c_i <= 4'd0;
        cst <= C_CLEAR;
      end else begin
        c_i <= c_i + 4'd1;
      end
    end
    C_CLEAR: if (rxp$ctl_ready) begin
      if ({28'd0, c_i} + 32'd1 >= c_streams) begin
        cst <= C_PACE;
      end else begin
        c_i <= c_i + 4'd1;
      end
    end
    // The connection's pacer starts at its initial rate before the
    // command completes.
    C_PACE: if (pace_idle) begin
      conn_status <= 2'd0;
      cst <= C_IDLE;
    end
    C_SEED: if (txp$ctl_ready) cst <= C_IDLE;
    default: cst <= C_IDLE;
  endcase
  if ({{strobe:control.port_seed}}) seed_pending <= 1'b1;
  if ({{strobe:conn_table.cmd}}) begin
    conn_pend <= 1'b1;
    conn_status <= 2'd1;
  end

  // ---- memory regions ----
  mr_w <= 1'b0;
  if ({{strobe:mr_table.cmd}}) begin
    if (m_index >= 32'd16 || (m_cmd != 32'd1 && m_cmd != 32'd3)) begin
      mr_status <= 2'd2;
    end else begin
      mr_w <= 1'b1;
      mr_valid_bit <= m_cmd == 32'd1;
      mr_status <= 2'd0;
    end
  end

  // ---- send queue fetch ----
  case (sqf)
    F_IDLE: if (enable && sq_prod != sq_cons && sq_log != 5'd0) sqf <= F_CMD;
    F_CMD: if (grant_sq & m_dma_rd_cmd_ready) begin
      wqe_beat <= 3'd0;
      sqf <= F_DATA;
    end
    F_DATA: if (s_dma_rd_tvalid && rd_any && rd_head == 2'd1) begin
      wqe[64 * wqe_beat +: 64] <= s_dma_rd_tdata;
      wqe_beat <= wqe_beat + 3'd1;
      if (s_dma_rd_tlast) sqf <= F_OFFER;
    end
    F_OFFER: if (w_ok ? txp$wr_ready : take_bad_wr) begin
      sq_cons <= sq_cons + 32'd1;
      sqf <= F_IDLE;
    end
    default: sqf <= F_IDLE;
  endcase

  // ---- receive queue fetch ----
  case (rqf)
    F_IDLE: if (enable && rq_prod != rq_cons && rq_log != 5'd0) rqf <= F_CMD;
    F_CMD: if (grant_rq & m_dma_rd_cmd_ready) begin
      rqe_beat <= 2'd0;
      rqf <= F_DATA;
    end
    F_DATA: if (s_dma_rd_tvalid && rd_any && rd_head == 2'd2) begin
      rqe[64 * rqe_beat +: 64] <= s_dma_rd_tdata;
      rqe_beat <= rqe_beat + 2'd1;
      if (s_dma_rd_tlast) rqf <= F_OFFER;
    end
    F_OFFER: if (~r_ok | rxp$post_ready) begin
      rq_cons <= rq_cons + 32'd1;
      rqf <= F_IDLE;
    end
    default: rqf <= F_IDLE;
  endcase

  // ---- DMA read routing ----
  if (m_dma_rd_cmd_valid & m_dma_rd_cmd_ready) begin
    rd_who[rd_wr] <= grant_tx ? 2'd0 : grant_sq ? 2'd1 : 2'd2;
    rd_wr <= rd_wr + 3'd1;
  end
  if (s_dma_rd_tvalid & s_dma_rd_tready & s_dma_rd_tlast) rd_rd <= rd_rd + 3'd1;

  // ---- completion writer ----
  case (cqs)
    Q_IDLE: begin
      if (take_rx_cpl) begin
        cqe <= {64'd0, rxp$m_cpl_id, rxp$m_cpl_imm, rxp$m_cpl_len, rxp$m_cpl_seq, 16'd0, {(16-CB){1'b0}}, rxp$m_cpl_key[SB-1:3],
          7'd0, rxp$m_cpl_kind == 2'd2, 5'd0, rxp$m_cpl_key[2:0], 6'd0, rxp$m_cpl_status,
          (rxp$m_cpl_kind == 2'd1) ? 8'd2 : 8'd3};
        cqs <= Q_CMD;
      end else if (take_tx_cpl) begin
        cqe <= {64'd0, txp$m_cpl_id, txp$m_cpl_imm, txp$m_cpl_len, txp$m_cpl_seq, 16'd0, {(16-CB){1'b0}}, txp$m_cpl_key[SB-1:3],
          7'd0, txp$m_cpl_has_imm, 5'd0, txp$m_cpl_key[2:0], 6'd0, txp$m_cpl_status, 8'd1};
        cqs <= Q_CMD;
      end else if (take_bad_wr) begin
        cqe <= {64'd0, wqe[287:256], 32'd0, wqe[63:32], 32'd0, 16'd0, w_conn, 8'd0, w_stream, 8'd3, 8'd1};
        cqs <= Q_CMD;
      end
    end
    Q_CMD: if (wr_pick_cq & m_dma_wr_cmd_ready) begin
      cqe_beat <= 2'd0;
      cqs <= Q_DATA;
    end
    Q_DATA: if (m_dma_wr_tready) begin
      cqe_beat <= cqe_beat + 2'd1;
      if (cqe_beat == 2'd3) begin
        cq_prod <= cq_prod + 32'd1;
        cqs <= Q_IDLE;
      end
    end
    default: cqs <= Q_IDLE;
  endcase

  // ---- DMA write arbitration: a write keeps the port until its last beat ----
  if (wr_pick_rx & m_dma_wr_cmd_ready) begin
    wr_busy <= 1'b1;
    wr_cq <= 1'b0;
  end else if (wr_pick_cq & m_dma_wr_cmd_ready) begin
    wr_busy <= 1'b1;
    wr_cq <= 1'b1;
  end
  if (m_dma_wr_tvalid & m_dma_wr_tready & m_dma_wr_tlast) wr_busy <= 1'b0;

  // ---- receive-to-send queues ----
  if (rxp$m_fb_valid & ~fbq_full) begin
    fbq[fbq_wr[2:0]] <= {rxp$m_fb_nak, rxp$m_fb_key, rxp$m_fb_psn, rxp$m_fb_sack, rxp$m_fb_ce, rxp$m_fb_code,
      rxp$m_fb_stream, rxp$m_fb_msg_seq, rxp$m_fb_ts_echo};
    fbq_wr <= fbq_wr + 4'd1;
  end
  if (fbq_any & txp$fb_ready) fbq_rd <= fbq_rd + 4'd1;
  if (rxp$m_ack_valid & ~ackq_full) begin
    ackq[ackq_wr[2:0]] <= {rxp$m_ack_key, rxp$m_ack_cum, rxp$m_ack_sack, rxp$m_ack_ts, rxp$m_ack_sport,
      rxp$m_ack_pending, rxp$m_ack_ce};
    ackq_wr <= ackq_wr + 4'd1;
  end
  if (ackq_any & txp$ack_ready) ackq_rd <= ackq_rd + 4'd1;

  // ---- timers: fired keys wait until taken; a newer request replaces them ----
  if (ackt$fire_valid) ack_pend[ackt$fire_key] <= 1'b1;
  if (ack_any & rxp$timer_ready) ack_pend[ack_at] <= 1'b0;
  if (rxp$m_arm_valid) ack_pend[rxp$m_arm_key] <= 1'b0;
  if (rxp$m_ack_valid) ack_pend[rxp$m_ack_key] <= 1'b0;
  if (rtot$fire_valid) rto_pend[rtot$fire_key] <= 1'b1;
  if (rto_any & txp$rto_ready) rto_pend[rto_at] <= 1'b0;
  if (txp$m_rto_valid) rto_pend[txp$m_rto_key] <= 1'b0;
  if (txp$m_rnr_valid) begin
    rnr_t[rnr_wr] <= now_ns + cfg_rnr;
    rnr_k[rnr_wr] <= txp$m_rnr_key;
    rnr_p[rnr_wr] <= txp$m_rnr_psn;
    rnr_wr <= rnr_wr + 4'd1;
  end
  if (rnr_due & txp$release_ready) rnr_rd <= rnr_rd + 4'd1;

  // ---- pacing ----
  now48 <= now48 + NS;
  p1_v <= pace$in_valid;
  p2_v <= p1_v;
  p1_send <= pc_send;
  p2_send <= p1_send;
  if (cv_start) begin
    cv_busy <= 1'b1;
    cv_conn <= pd_at;
    cv_load <= pc_load[pd_at];
    pc_dirty[pd_at] <= 1'b0;
    pc_load[pd_at] <= 1'b0;
  end
  if (rdiv$out_valid) begin
    cv_busy <= 1'b0;
    set_v <= 1'b1;
    set_c <= cv_conn;
    set_cost <= rdiv$out_cost[31:0];
    set_load <= cv_load;
  end else if (set_v & ~pc_send) begin
    set_v <= 1'b0;
  end
  if (pace$out_valid) begin
    pc_ready[pace$out_key] <= pace$out_ready_at;
    if (p2_send) pc_wait[pace$out_key] <= 1'b0;
  end
  if (pc_send) pc_wait[txp$tx_sent_conn] <= 1'b1;
  if (fb_hint) begin
    pc_rate[fb_conn] <= fb_rate;
    pc_dirty[fb_conn] <= 1'b1;
  end
  if (cst == C_RX && c_cmd == 32'd1) begin
    pc_rate[c_index[CB-1:0]] <= c_rate;
    pc_dirty[c_index[CB-1:0]] <= 1'b1;
    pc_load[c_index[CB-1:0]] <= 1'b1;
  end

  // ---- activity at this receiver ----
  ra_i <= ra_i + 1'b1;
  if (ra_heard[ra_i] && ra_sweep_age > 8 * ACTIVE_NS) ra_heard[ra_i] <= 1'b0;
  if (ra_has && ~ra_warm && now_ns - ra_since >= ACTIVE_NS) ra_warm <= 1'b1;
  if (rxp$m_data_valid) begin
    if (~(|ra_recent)) begin
      ra_has <= 1'b1;
      ra_warm <= 1'b0;
      ra_since <= now_ns;
    end
    ra_last[rxp$m_data_conn] <= now_ns;
    ra_heard[rxp$m_data_conn] <= 1'b1;
  end
  if (rxp$m_msg_valid & rxp$m_msg_began & ~(&ra_part[rxp$m_msg_conn]))
    ra_part[rxp$m_msg_conn] <= ra_part[rxp$m_msg_conn] + 8'd1;
  if (rxp$m_msg_valid & rxp$m_msg_popped & (ra_part[rxp$m_msg_conn] != 8'd0))
    ra_part[rxp$m_msg_conn] <= ra_part[rxp$m_msg_conn] - 8'd1;
  if (cst == C_RX) begin
    ra_heard[c_index[CB-1:0]] <= 1'b0;
    ra_part[c_index[CB-1:0]] <= 8'd0;
  end

  if (reset) begin
    now48 <= 48'd0;
    pc_wait <= {NC{1'b0}};
    pc_dirty <= {NC{1'b0}};
    pc_load <= {NC{1'b0}};
    for (pci = 0; pci < NC; pci = pci + 1) begin
      pc_ready[pci] <= 48'd0;
      pc_rate[pci] <= 32'd0;
      ra_part[pci] <= 8'd0;
      ra_last[pci] <= 32'd0;
    end
    cv_busy <= 1'b0;
    set_v <= 1'b0;
    p1_v <= 1'b0;
    p2_v <= 1'b0;
    p1_send <= 1'b0;
    p2_send <= 1'b0;
    ra_heard <= {NC{1'b0}};
    ra_i <= {CB{1'b0}};
    ra_has <= 1'b0;
    ra_warm <= 1'b0;
    ra_since <= 32'd0;
    cst <= C_IDLE;
    conn_status <= 2'd0;
    mr_status <= 2'd0;
    mr_w <= 1'b0;
    seed_pending <= 1'b0;
    conn_pend <= 1'b0;
    for (ei = 0; ei < NC; ei = ei + 1) e_streams[ei] <= 4'd0;
    sqf <= F_IDLE;
    rqf <= F_IDLE;
    sq_cons <= 32'd0;
    rq_cons <= 32'd0;
    cq_prod <= 32'd0;
    rd_wr <= 3'd0;
    rd_rd <= 3'd0;
    cqs <= Q_IDLE;
    wr_busy <= 1'b0;
    wr_cq <= 1'b0;
    ack_pend <= {NK{1'b0}};
    rto_pend <= {NK{1'b0}};
    rnr_wr <= 4'd0;
    rnr_rd <= 4'd0;
    fbq_wr <= 4'd0;
    fbq_rd <= 4'd0;
    ackq_wr <= 4'd0;
    ackq_rd <= 4'd0;
  end
end

// Outputs of the sub-blocks and bus bits the glue does not use (registers
// the glue reads through other names, counters not in the map, readiness
// the paths already account for).
wire unused_ok = &{1'b0, rto_ns_wide[66:52], rto_ns_wide[19:0], csr$regs, csr$strobe, rxp$m_fb_ts, pace$out_may, rdiv$out_cost[39:32],
  rxp$m_fb_pkts, rxp$cnt_frames, rxp$cnt_dup_retx, rxp$cnt_post_drop, txp$tx_done, txp$tx_sent,
  txp$cnt_naks_received, wqe[511:288], rqe[255:160], rqe[31:24], rnr_left[30:0], 1'b0};
