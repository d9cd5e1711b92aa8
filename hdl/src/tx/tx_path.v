// tx_path control logic (see tx_path.rs). 1 << CB connections, 8 paths and
// 8 streams each; keys {conn[CB-1:0], path or stream[2:0]}.
localparam CB = @CB@;             // connection key bits
localparam PB = @PB@;             // path bits: up to 1 << PB paths
localparam KB = CB + PB;          // path key bits
localparam SB = CB + 3;           // stream key bits (8 streams)
localparam NC = 1 << CB;
localparam NK = NC << PB;         // path keys
localparam NS = NC * 8;           // stream keys
localparam NP = 1 << PB;
localparam [CB-1:0] C_ONE = 1;
localparam [KB-1:0] K_ONE = 1;
localparam [PB-1:0] P_ONE = 1;
localparam [CB+1:0] NC_W = NC;
localparam [2:0] R_LOAD = 3'd0, R_SEND = 3'd1, R_ACK = 3'd2, R_TAKE = 3'd3, R_RTO = 3'd4, R_HOLD = 3'd5,
  R_RELEASE = 3'd6;
localparam [5:0] S_IDLE = 6'd0, S_SETUP = 6'd1, S_CTLF = 6'd3, S_A1 = 6'd4, S_A2 = 6'd5,
  S_CREDIT = 6'd6, S_CR1 = 6'd7, S_COMPL = 6'd9, S_CPL = 6'd10, S_HC = 6'd11, S_HC1 = 6'd12,
  S_HC2 = 6'd13, S_REPATH = 6'd14, S_REPATH2 = 6'd15, S_NAK = 6'd16, S_HOLD1 = 6'd17, S_HOLD2 = 6'd18,
  S_FAIL = 6'd19, S_SKIP = 6'd20, S_RTO1 = 6'd21, S_RTO2 = 6'd22, S_REL1 = 6'd23, S_REL2 = 6'd24,
  S_SCAN = 6'd25, S_TRY = 6'd26, S_TAKE1 = 6'd27, S_TAKE2 = 6'd28, S_TAKE3 = 6'd29, S_TAKE4 = 6'd30,
  S_PICK = 6'd31, S_PICK2 = 6'd32, S_SEND1 = 6'd33, S_SEND2 = 6'd34, S_HDR = 6'd35, S_DMA = 6'd36,
  S_RTO0 = 6'd38, S_SETUP0 = 6'd39, S_CREDITED = 6'd40, S_RELEASED = 6'd41, S_SENDW = 6'd42,
  S_SETUPW = 6'd43, S_A3 = 6'd44;
reg [5:0] st;
reg [5:0] ret; // where S_COMPL returns to
reg skip_compl; // S_SKIP goes on to S_COMPL (else to S_IDLE)
reg [13:0] e_len_q;

// ---- connections ----
reg [NC-1:0] c_valid;
reg [7:0] c_gen [0:NC-1];
reg [15:0] c_remote [0:NC-1];
reg [47:0] c_mac [0:NC-1];
reg [31:0] c_ip [0:NC-1];
reg [PB:0] c_paths [0:NC-1];
reg [3:0] c_streams [0:NC-1];
reg [PB-1:0] c_prr [0:NC-1]; // new data: next path to prefer
reg [PB-1:0] c_rrr [0:NC-1]; // retransmissions: next path to look at
reg [2:0] c_srr [0:NC-1]; // next stream to look at
reg [CB-1:0] conn_rr;

// ---- paths ----
reg [15:0] p_sport [0:NK-1];
reg [8:0] p_cwnd [0:NK-1];
reg [8:0] p_out [0:NK-1];
reg [23:0] p_next [0:NK-1];
reg [NK-1:0] p_can;
reg [NK-1:0] p_queued;
reg [NK-1:0] p_retired;
reg [NK-1:0] p_armed;
reg [2:0] p_run [0:NK-1]; // RTOs in a row, at most 5: the timer's backoff
reg [31:0] p_sent [0:NK-1]; // for the register window
reg [31:0] p_retx [0:NK-1];
reg [31:0] p_ecn [0:NK-1];
reg [55:0] p_srtt [0:NK-1]; // smoothed RTT and its variation, ps
reg [55:0] p_var [0:NK-1];
reg [NK-1:0] p_has;         // a sample has been taken

// ---- streams and their messages (16 per stream, slot = seq mod 16) ----
reg [4:0] s_count [0:NS-1];
reg [31:0] s_base [0:NS-1];
reg [4:0] s_seg [0:NS-1];
reg [31:0] s_off [0:NS-1];
reg [31:0] s_rsn [0:NS-1];
reg [1:0] m_op [0:NS*16-1];
reg [31:0] m_len [0:NS*16-1];
reg [63:0] m_local [0:NS*16-1];
reg [63:0] m_remote [0:NS*16-1];
reg [31:0] m_rkey [0:NS*16-1];
reg [31:0] m_imm [0:NS*16-1];
reg [31:0] m_id [0:NS*16-1];
reg [31:0] m_acked [0:NS*16-1];
reg [1:0] m_fail [0:NS*16-1];

// ---- the operation in progress ----
reg [CB-1:0] cur;       // connection
reg [PB-1:0] pth;       // path
reg [2:0] stm;          // stream
reg [CB:0] scan_n;      // connections tried in this attempt
reg [255:0] newly;
reg [8:0] a_count;
reg [8:0] a_lost;
reg [15:0] a_ce;
reg [23:0] a_psn;
reg [31:0] a_msg;
reg [1:0] a_status;
reg [7:0] start_slot;
reg [31:0] h_seq;       // header fields of the packet being sent
reg [31:0] h_off;
reg [13:0] h_len;
reg [7:0] h_flags;
reg [23:0] h_psn;
reg [7:0] h_opcode;
reg [3:0] h_kind;       // 0 data, 1 ACK, 2 NAK
reg [255:0] h_sack;
reg [31:0] h_ts_echo;
reg [15:0] h_ce;
reg [15:0] h_pending;
reg [15:0] h_sport;
reg [15:0] h_stream;
reg [31:0] h_nak_msg;
reg [7:0] h_nak_code;
reg done_v;
reg sent_v;
reg [CB-1:0] sent_c;
reg [13:0] sent_l;
reg rto_v;
reg rto_a;
reg [2:0] rto_s;
reg [55:0] rto_b;
reg [31:0] a_ts;         // the ACK's timestamp echo
reg [KB-1:0] rto_k;
reg rnr_v;
reg [KB-1:0] rnr_k;
reg [23:0] rnr_p;
reg init_busy;
reg [KB-1:0] init_addr;
reg [31:0] n_data, n_retx, n_acks, n_naks, n_rtos, n_repaths, n_naks_rx;

wire sub_ready = retx$ready & cc$ready & health$ready;
wire idle = (st == S_IDLE) & ~init_busy & sub_ready;
wire take_ctl = idle & ctl_valid;
// A frame is decided only when its builder can take the header at once
// (each holds one besides the frame going out), so the FSM never waits for
// the MAC and takes the receive side's ACK and NAK requests meanwhile.
wire ack_in = ack_valid & cbuild$hdr_ready;
wire nak_in = nak_valid & cbuild$hdr_ready;
wire take_ack = idle & ~ctl_valid & ack_in;
wire take_nak = idle & ~ctl_valid & ~ack_in & nak_in;
wire take_fb = idle & ~ctl_valid & ~ack_in & ~nak_in & fb_valid;
wire take_rto = idle & ~ctl_valid & ~ack_in & ~nak_in & ~fb_valid & rto_valid;
wire take_rel = idle & ~ctl_valid & ~ack_in & ~nak_in & ~fb_valid & ~rto_valid & release_valid;
wire wr_room = s_count[wr_key] < 5'd16;
wire take_wr = idle & ~ctl_valid & ~ack_in & ~nak_in & ~fb_valid & ~rto_valid & ~release_valid & wr_valid & wr_room;
wire take_go = idle & ~ctl_valid & ~ack_in & ~nak_in & ~fb_valid & ~rto_valid & ~release_valid
  & ~(wr_valid & wr_room) & tx_go & build$hdr_ready;
// The next set-up connection from cur on (the transmit attempt's scan
// skips the others in one step).
// Connections the pacers hold back (tx_mask low) are skipped as well.
wire [NC-1:0] c_may = c_valid & tx_mask;
wire [2*NC-1:0] cv_rot = {c_may, c_may} >> cur;
reg [CB-1:0] cv_off;
reg cv_any;
integer cvi;
always @(*) begin
  cv_any = 1'b0;
  cv_off = {CB{1'b0}};
  for (cvi = NC - 1; cvi >= 0; cvi = cvi - 1)
    if (cv_rot[cvi]) begin
      cv_any = 1'b1;
      cv_off = cvi[CB-1:0];
    end
end

// ---- keys of the operation in progress ----
wire [KB-1:0] pkey = {cur, pth};
wire [SB-1:0] skey = {cur, stm};
wire [31:0] sbase = s_base[skey];
wire [4:0] scount = s_count[skey];
wire [4:0] sseg = s_seg[skey];
wire [31:0] soff = s_off[skey];
// RTT estimation (as the model, in ps): this path's sample, the updated
// estimates, and its RTO.
wire [31:0] rtt_ns = now - a_ts;
wire [55:0] rtt_sample = {24'd0, rtt_ns} * 56'd1000;
wire [55:0] srtt_q = p_srtt[pkey];
wire [55:0] var_q = p_var[pkey];
wire [55:0] rtt_diff = (srtt_q > rtt_sample) ? srtt_q - rtt_sample : rtt_sample - srtt_q;
wire [55:0] srtt_next = p_has[pkey] ? (srtt_q * 56'd7 + rtt_sample) >> 3 : rtt_sample;
wire [55:0] var_next = p_has[pkey] ? (var_q * 56'd3 + rtt_diff) >> 2 : rtt_sample >> 1;
wire [55:0] rto_min_ps = {24'd0, cfg_rto_min} * 56'd1000;
wire [55:0] rto_est = {srtt_q[54:0], 1'b0} + {var_q[53:0], 2'b00};
wire [55:0] rto_base = (p_has[pkey] && rto_est > rto_min_ps) ? rto_est : rto_min_ps;
// ps to ns for cc, exactly: floor(x / 1000) = (x * ceil(2^66 / 1000)) >> 66
// for x < 2^56 (Granlund and Montgomery, "Division by invariant integers
// using multiplication", 1994), so that cc's one cut per RTT agrees with
// the model's comparison in ps. The register window rounds:
// x * 1049 / 2^20 (0.04 % high).
wire [112:0] srtt_ns_wide = {57'd0, srtt_q} * {56'd0, 57'd73786976294838207};
wire [31:0] srtt_ns = p_has[pkey] ? srtt_ns_wide[97:66] : 32'd0;
wire [66:0] pt_srtt_wide = {11'd0, p_srtt[pt_key]} * 67'd1049;

wire [SB+3:0] seg_slot = {skey, sbase[3:0] + sseg[3:0]};   // message at the segmentation point
wire [SB+3:0] front_slot = {skey, sbase[3:0]};
wire [31:0] a_idx = a_msg - sbase;                      // a NAKed or credited message's index
wire [SB+3:0] a_slot = {skey, a_msg[3:0]};

// ---- the connection's paths and streams, for the choices ----
reg [NP-1:0] q_bits;  // paths with queued retransmissions
reg [7:0] e_bits;     // streams with a message to segment
reg [15:0] sp_present, sp_can, sp_retired;
reg [143:0] sp_free;
integer ii;
always @(*) begin
  sp_present = 16'd0;
  sp_can = 16'd0;
  sp_retired = 16'd0;
  sp_free = 144'd0;
  for (ii = 0; ii < NP; ii = ii + 1) begin
    q_bits[ii] = ({1'b0, ii[PB-1:0]} < c_paths[cur]) & p_queued[{cur, ii[PB-1:0]}];
    sp_present[ii] = {1'b0, ii[PB-1:0]} < c_paths[cur];
    sp_can[ii] = p_can[{cur, ii[PB-1:0]}];
    sp_retired[ii] = p_retired[{cur, ii[PB-1:0]}];
    sp_free[9 * ii +: 9] = (p_cwnd[{cur, ii[PB-1:0]}] > p_out[{cur, ii[PB-1:0]}])
      ? p_cwnd[{cur, ii[PB-1:0]}] - p_out[{cur, ii[PB-1:0]}] : 9'd0;
  end
  for (ii = 0; ii < 8; ii = ii + 1)
    e_bits[ii] = (ii[3:0] < c_streams[cur]) & (s_seg[{cur, ii[2:0]}] < s_count[{cur, ii[2:0]}]);
end

// First queued path from c_rrr, first stream with data from c_srr (turns
// wrap at the connection's own count).
reg q_found;
reg [PB-1:0] q_path;
reg e_found;
reg [2:0] e_stream;
reg [PB:0] k_at;
reg [3:0] ks_at;
integer k;
always @(*) begin
  q_found = 1'b0;
  q_path = {PB{1'b0}};
  e_found = 1'b0;
  e_stream = 3'd0;
  for (k = NP - 1; k >= 0; k = k - 1) begin
    k_at = {1'b0, c_rrr[cur]} + k[PB:0];
    if (k_at >= c_paths[cur]) k_at = k_at - c_paths[cur];
    if ((k[PB:0] < c_paths[cur]) && q_bits[k_at[PB-1:0]]) begin
      q_found = 1'b1;
      q_path = k_at[PB-1:0];
    end
  end
  for (k = 7; k >= 0; k = k - 1) begin
    ks_at = {1'b0, c_srr[cur]} + k[3:0];
    if (ks_at >= c_streams[cur]) ks_at = ks_at - c_streams[cur];
    if ((k[3:0] < c_streams[cur]) && e_bits[ks_at[2:0]]) begin
      e_found = 1'b1;
      e_stream = ks_at[2:0];
    end
  end
end

// First newly acknowledged slot at or after start_slot, circularly: the
// first at or after it, else the first before it (two balanced trees).
// @NEWLY_TREES@
wire n_found = nh_any | nl_any;
wire [7:0] n_slot = nh_any ? nh_at : nl_at;

// The segment the segmentation point gives.
wire [31:0] seg_left = m_len[seg_slot] - soff;
wire [31:0] mtu32 = {18'd0, cfg_mtu};
wire [31:0] seg_len = (seg_left < mtu32) ? seg_left : mtu32;
wire seg_last = seg_left <= mtu32;

// The log entry read back: {len[13:0], offset[31:0], msg_seq[31:0], stream[2:0]}.
wire [2:0] e_stm = seglog$rd_entry[2:0];
wire [31:0] e_seq = seglog$rd_entry[34:3];
wire [31:0] e_off = seglog$rd_entry[66:35];
wire [13:0] e_len = seglog$rd_entry[80:67];
wire [SB+3:0] h_slot = {cur, stm, h_seq[3:0]};

// SACK bitmap in slot order to the ACK field (byte i carries slots 8i..8i+7,
// the field's first byte is its most significant).
reg [255:0] sack_field;
integer b;
always @(*) begin
  for (b = 0; b < 32; b = b + 1) sack_field[8 * (31 - b) +: 8] = h_sack[8 * b +: 8];
end

// ---- sub-blocks ----
always @(*) begin
  retx$clock = clock;
  retx$reset = reset;
  retx$in_valid = 1'b0;
  retx$in_op = R_LOAD;
  retx$in_key = pkey;
  retx$in_psn = a_psn;
  retx$in_sack = newly;
  cc$clock = clock;
  cc$reset = reset;
  cc$in_valid = 1'b0;
  cc$in_op = 1'b0;
  cc$in_key = pkey;
  cc$in_newly = a_count;
  cc$in_ce = a_ce;
  cc$in_outstanding = p_out[pkey];
  cc$in_srtt = srtt_ns;
  cc$in_now = now;
  cc$in_max = cfg_max_cwnd;
  health$clock = clock;
  health$reset = reset;
  health$in_valid = 1'b0;
  health$in_op = 2'd0;
  health$in_key = pkey;
  health$in_newly = a_count;
  health$in_lost = a_lost;
  health$in_repath_after = cfg_repath_after;
  health$in_retire_after = cfg_retire_after;
  spray$clock = clock;
  spray$reset = reset;
  spray$pick_valid = st == S_PICK;
  spray$present = sp_present;
  spray$span_ok = sp_can;
  spray$retired = sp_retired;
  spray$free = sp_free;
  spray$rr = c_prr[cur];       // spray has 16 lanes: PB is 4
  spray$seed_valid = take_ctl & ctl_op;
  spray$seed = ctl_seed;
  spray$port_req = (st == S_SETUP0) | (st == S_REPATH);
  spray$port_avoid = (st == S_REPATH) ? p_sport[pkey] : 16'd0;
  seglog$clock = clock;
  seglog$wr_valid = 1'b0;
  seglog$wr_addr = {pkey, retx$out_psn[7:0]};
  seglog$wr_entry = {seg_len[13:0], soff, sbase + {27'd0, sseg}, stm};
  seglog$rd_addr = (st == S_CREDIT) ? {pkey, n_slot} : {pkey, retx$out_psn[7:0]};
  case (st)
    S_SETUP: begin
      retx$in_valid = 1'b1;
      retx$in_op = R_LOAD;
      cc$in_valid = 1'b1;
      cc$in_op = 1'b1;
    end
    S_A1: begin
      retx$in_valid = 1'b1;
      retx$in_op = R_ACK;
    end
    S_HC: begin
      health$in_valid = 1'b1;
      health$in_op = 2'd1;
      cc$in_valid = 1'b1;
    end
    S_HOLD1: begin
      retx$in_valid = 1'b1;
      retx$in_op = R_HOLD;
    end
    S_RTO0: begin
      retx$in_valid = 1'b1;
      retx$in_op = R_RTO;
      health$in_valid = 1'b1;
      health$in_op = 2'd2;
    end
    S_REL1: begin
      retx$in_valid = 1'b1;
      retx$in_op = R_RELEASE;
    end
    S_TAKE1: begin
      retx$in_valid = 1'b1;
      retx$in_op = R_TAKE;
    end
    S_SEND1: begin
      retx$in_valid = 1'b1;
      retx$in_op = R_SEND;
      health$in_valid = 1'b1;
      health$in_op = 2'd0;
    end
    S_SEND2: seglog$wr_valid = 1'b1;
    default: ;
  endcase
  build$clock = clock;
  build$reset = reset;
  build$hdr_valid = st == S_HDR;
  build$eth_dst = c_mac[cur];
  build$eth_src = cfg_mac;
  build$ip_dscp = 6'd26;
  build$ip_ecn = 2'b10;
  build$ip_ttl = 8'd64;
  build$ip_src = cfg_ip;
  build$ip_dst = c_ip[cur];
  build$udp_sport = (h_kind == 4'd0) ? p_sport[pkey] : h_sport;
  build$udp_dport = cfg_port;
  build$bth_opcode = h_opcode;
  build$bth_conn = c_remote[cur];
  build$bth_path = {{(8-PB){1'b0}}, pth};
  build$bth_psn = h_psn;
  build$bth_timestamp = now;
  build$bth_stream = h_stream;
  build$bth_flags = h_flags;
  build$bth_generation = c_gen[cur];
  build$data_msg_seq = h_seq;
  build$data_msg_len = m_len[h_slot];
  build$data_offset = h_off;
  build$data_payload_len = {2'd0, h_len};
  build$data_remote_addr = (h_opcode == 8'h03) ? 64'd0 : m_remote[h_slot];
  build$data_rkey = m_rkey[h_slot];
  build$data_immediate = (h_opcode == 8'h02) ? m_imm[h_slot] : 32'd0;
  build$ack_sack = sack_field;
  build$ack_ts_echo = h_ts_echo;
  build$ack_rate_hint = cfg_hint;
  build$ack_ecn_ce = h_ce;
  build$ack_acked_pkts = h_pending;
  build$nak_code = h_nak_code;
  build$nak_msg_seq = h_nak_msg;
  build$nak_info = 32'd0;
  build$s_payload_tdata = s_rd_tdata;
  build$s_payload_tkeep = s_rd_tkeep;
  build$s_payload_tvalid = s_rd_tvalid;
  build$s_payload_tlast = s_rd_tlast;
  build$m_axis_tready = ~sel_ctl & m_axis_tready;
  // ACK and NAK frames have a builder of their own, so that the FSM hands
  // one over while a data frame is still going out and goes on to the next
  // data packet (whose payload read then overlaps both frames).
// @CBUILD@
  cbuild$clock = clock;
  cbuild$reset = reset;
  cbuild$hdr_valid = st == S_CTLF;
  cbuild$s_payload_tdata = 64'd0;
  cbuild$s_payload_tkeep = 8'd0;
  cbuild$s_payload_tvalid = 1'b0;
  cbuild$s_payload_tlast = 1'b0;
  cbuild$m_axis_tready = sel_ctl & m_axis_tready;
end

// Between frames an ACK or NAK frame goes first: the receive side's
// requests must not wait behind data (each builder holds one frame and
// takes the next header meanwhile, so data frames follow without a gap).
reg in_frame, sel_q;
wire sel_ctl = in_frame ? sel_q : cbuild$m_axis_tvalid;
always @(posedge clock) begin
  if (m_axis_tvalid & m_axis_tready) begin
    in_frame <= ~m_axis_tlast;
    sel_q <= sel_ctl;
  end
  if (reset) begin
    in_frame <= 1'b0;
    sel_q <= 1'b0;
  end
end

// ---- outputs ----
always @(*) begin
  ready = ~init_busy & sub_ready;
  ctl_ready = idle;
  ack_ready = take_ack;
  nak_ready = take_nak;
  fb_ready = take_fb;
  rto_ready = take_rto;
  release_ready = take_rel;
  wr_ready = take_wr;
  tx_done = done_v;
  tx_sent = sent_v;
  tx_sent_conn = sent_c;
  tx_sent_len = sent_l;
  m_rto_valid = rto_v;
  m_rto_key = rto_k;
  m_rto_arm = rto_a;
  m_rto_shift = rto_s;
  m_rto_base = rto_b;
  m_rnr_valid = rnr_v;
  m_rnr_key = rnr_k;
  m_rnr_psn = rnr_p;
  m_rd_cmd_valid = st == S_DMA;
  m_rd_cmd_addr = m_local[h_slot] + {32'd0, h_off};
  m_rd_cmd_len = {2'd0, h_len};
  s_rd_tready = build$s_payload_tready;
  m_axis_tdata = sel_ctl ? cbuild$m_axis_tdata : build$m_axis_tdata;
  m_axis_tkeep = sel_ctl ? cbuild$m_axis_tkeep : build$m_axis_tkeep;
  m_axis_tvalid = sel_ctl ? cbuild$m_axis_tvalid : build$m_axis_tvalid;
  m_axis_tlast = sel_ctl ? cbuild$m_axis_tlast : build$m_axis_tlast;
  m_cpl_valid = st == S_CPL;
  m_cpl_key = skey;
  m_cpl_status = m_fail[front_slot];
  m_cpl_seq = sbase;
  m_cpl_len = m_len[front_slot];
  m_cpl_id = m_id[front_slot];
  m_cpl_imm = m_imm[front_slot];
  m_cpl_has_imm = m_op[front_slot] == 2'd2;
  // A path of no connection (none since reset) has no source port.
  pt_sport = c_valid[pt_key[KB-1:PB]] ? p_sport[pt_key] : 16'd0;
  pt_cwnd = p_cwnd[pt_key];
  pt_retired = p_retired[pt_key];
  pt_sent = p_sent[pt_key];
  pt_retx = p_retx[pt_key];
  pt_ecn = p_ecn[pt_key];
  pt_srtt = p_has[pt_key] ? pt_srtt_wide[51:20] : 32'd0;
  cnt_tx_data = n_data;
  cnt_tx_retx = n_retx;
  cnt_tx_acks = n_acks;
  cnt_tx_naks = n_naks;
  cnt_rtos = n_rtos;
  cnt_repaths = n_repaths;
  cnt_naks_received = n_naks_rx;
end

// The path state every retx operation reports.
task retx_update;
  begin
    p_out[retx$out_key] <= retx$out_outstanding;
    p_queued[retx$out_key] <= retx$out_queued;
    p_can[retx$out_key] <= retx$out_can_send;
  end
endtask

// ---- control ----
always @(posedge clock) begin
  done_v <= 1'b0;
  sent_v <= 1'b0;
  rto_v <= 1'b0;
  rnr_v <= 1'b0;
  case (st)
    S_IDLE: begin
      if (take_ctl) begin
        if (~ctl_op) begin
          cur <= ctl_conn;
          c_valid[ctl_conn] <= 1'b1;
          c_remote[ctl_conn] <= ctl_remote;
          c_mac[ctl_conn] <= ctl_mac;
          c_ip[ctl_conn] <= ctl_ip;
          c_paths[ctl_conn] <= ctl_paths;
          c_streams[ctl_conn] <= ctl_streams;
          c_gen[ctl_conn] <= ctl_generation;
          c_prr[ctl_conn] <= {PB{1'b0}};
          c_rrr[ctl_conn] <= {PB{1'b0}};
          c_srr[ctl_conn] <= 3'd0;
          for (ii = 0; ii < 8; ii = ii + 1) begin
            s_count[{ctl_conn, ii[2:0]}] <= 5'd0;
            s_base[{ctl_conn, ii[2:0]}] <= 32'd0;
            s_seg[{ctl_conn, ii[2:0]}] <= 5'd0;
            s_off[{ctl_conn, ii[2:0]}] <= 32'd0;
            s_rsn[{ctl_conn, ii[2:0]}] <= 32'd0;
          end
          pth <= {PB{1'b0}};
          a_psn <= ctl_psn;
          st <= S_SETUP0;
        end
      end else if (take_ack) begin
        cur <= ack_key[KB-1:PB];
        pth <= ack_key[PB-1:0];
        h_kind <= 4'd1;
        h_opcode <= 8'h10;
        h_psn <= ack_cum;
        h_sack <= ack_sack;
        h_ts_echo <= ack_ts;
        h_ce <= ack_ce;
        h_pending <= ack_pending;
        h_sport <= ack_sport;
        h_stream <= 16'd0;
        h_flags <= 8'd0;
        h_len <= 14'd0;
        n_acks <= n_acks + 32'd1;
        st <= S_CTLF;
      end else if (take_nak) begin
        cur <= nak_key[KB-1:PB];
        pth <= nak_key[PB-1:0];
        h_kind <= 4'd2;
        h_opcode <= 8'h11;
        h_psn <= nak_psn;
        h_sport <= nak_sport;
        h_stream <= nak_stream;
        h_nak_msg <= nak_msg_seq;
        h_nak_code <= nak_code;
        h_flags <= 8'd0;
        h_len <= 14'd0;
        n_naks <= n_naks + 32'd1;
        st <= S_CTLF;
      end else if (take_fb) begin
        cur <= fb_key[KB-1:PB];
        pth <= fb_key[PB-1:0];
        stm <= fb_stream[2:0];
        a_psn <= fb_psn;
        a_msg <= fb_msg_seq;
        a_ce <= fb_ce;
        a_ts <= fb_ts;
        newly <= fb_sack;
        if (~fb_nak) begin
          st <= S_A1;
        end else begin
          n_naks_rx <= n_naks_rx + 32'd1;
          a_status <= (fb_code == 8'd3) ? 2'd2 : 2'd1;
          if (fb_code == 8'd2) st <= S_HOLD1;
          else if ((fb_code == 8'd1 || fb_code == 8'd3) && fb_stream < 16'd8) st <= S_FAIL;
          else st <= S_IDLE;
        end
      end else if (take_rto) begin
        cur <= rto_key[KB-1:PB];
        pth <= rto_key[PB-1:0];
        n_rtos <= n_rtos + 32'd1;
        st <= S_RTO0;
      end else if (take_rel) begin
        cur <= release_key[KB-1:PB];
        pth <= release_key[PB-1:0];
        a_psn <= release_psn;
        st <= S_REL1;
      end else if (take_wr) begin
        m_op[{wr_key, s_base[wr_key][3:0] + s_count[wr_key][3:0]}] <= wr_op;
        m_len[{wr_key, s_base[wr_key][3:0] + s_count[wr_key][3:0]}] <= wr_len;
        m_local[{wr_key, s_base[wr_key][3:0] + s_count[wr_key][3:0]}] <= wr_local;
        m_remote[{wr_key, s_base[wr_key][3:0] + s_count[wr_key][3:0]}] <= wr_remote;
        m_rkey[{wr_key, s_base[wr_key][3:0] + s_count[wr_key][3:0]}] <= (wr_op == 2'd3) ? s_rsn[wr_key] : wr_rkey;
        m_imm[{wr_key, s_base[wr_key][3:0] + s_count[wr_key][3:0]}] <= wr_imm;
        m_id[{wr_key, s_base[wr_key][3:0] + s_count[wr_key][3:0]}] <= wr_id;
        m_acked[{wr_key, s_base[wr_key][3:0] + s_count[wr_key][3:0]}] <= 32'd0;
        m_fail[{wr_key, s_base[wr_key][3:0] + s_count[wr_key][3:0]}] <= 2'd0;
        if (wr_op == 2'd3) s_rsn[wr_key] <= s_rsn[wr_key] + 32'd1;
        s_count[wr_key] <= s_count[wr_key] + 5'd1;
      end else if (take_go) begin
        cur <= conn_rr;
        scan_n <= {(CB+1){1'b0}};
        st <= S_SCAN;
      end
    end

    // ---- connection setup: a source port, the PSN window and the window per path ----
    S_SETUP0: st <= S_SETUPW;
    S_SETUPW: if (spray$port_valid) begin
      p_sport[pkey] <= spray$port;
      st <= S_SETUP;
    end
    S_SETUP: begin
      p_cwnd[pkey] <= cfg_max_cwnd;
      p_out[pkey] <= 9'd0;
      p_next[pkey] <= a_psn;
      p_can[pkey] <= 1'b1;
      p_queued[pkey] <= 1'b0;
      p_retired[pkey] <= 1'b0;
      p_armed[pkey] <= 1'b0;
      p_run[pkey] <= 3'd0;
      p_sent[pkey] <= 32'd0;
      p_retx[pkey] <= 32'd0;
      p_ecn[pkey] <= 32'd0;
      p_has[pkey] <= 1'b0;
      if ({1'b0, pth} + {{PB{1'b0}}, 1'b1} >= c_paths[cur]) begin
        st <= S_IDLE;
      end else begin
        pth <= pth + P_ONE;
        st <= S_SETUP0;
      end
    end

    // ---- ACK and NAK frames ----
    S_CTLF: if (cbuild$hdr_ready) st <= S_IDLE;

    // ---- a received ACK ----
    S_A1: st <= S_A2;
    S_A2: st <= S_A3;
    S_A3: begin
      if (~retx$out_ok) begin
        st <= S_IDLE;
      end else begin
        retx_update;
        p_srtt[pkey] <= srtt_next;
        p_var[pkey] <= var_next;
        p_has[pkey] <= 1'b1;
        p_ecn[pkey] <= p_ecn[pkey] + {16'd0, a_ce};
        newly <= retx$out_newly;
        a_count <= retx$out_count;
        a_lost <= retx$out_lost;
        start_slot <= p_next[pkey][7:0];
        st <= S_CREDIT;
      end
    end
    S_CREDIT: st <= n_found ? S_CR1 : S_HC;
    S_CR1: begin
      // The log entry of slot n_slot is on rd_entry now.
      newly[n_slot] <= 1'b0;
      stm <= e_stm;
      a_msg <= e_seq;
      e_len_q <= e_len;
      st <= S_CREDITED;
    end
    S_CREDITED: begin
      if (a_idx < {27'd0, scount}) m_acked[a_slot] <= m_acked[a_slot] + {18'd0, e_len_q};
      ret <= S_CREDIT;
      st <= S_COMPL;
    end
    S_HC: st <= S_HC1;
    S_HC1: st <= S_HC2;
    S_HC2: begin
      p_retired[pkey] <= health$out_retired;
      p_cwnd[pkey] <= cc$out_cwnd;
      rto_v <= 1'b1;
      rto_b <= rto_base;
      rto_k <= pkey;
      rto_a <= p_out[pkey] != 9'd0;
      rto_s <= (a_count != 9'd0) ? 3'd0 : p_run[pkey];
      if (a_count != 9'd0) p_run[pkey] <= 3'd0;
      p_armed[pkey] <= p_out[pkey] != 9'd0;
      st <= health$out_repath ? S_REPATH : S_IDLE;
    end
    S_REPATH: st <= S_REPATH2;
    S_REPATH2: if (spray$port_valid) begin
      p_sport[pkey] <= spray$port;
      n_repaths <= n_repaths + 32'd1;
      st <= S_IDLE;
    end

    // ---- NAKs ----
    S_HOLD1: st <= S_HOLD2;
    S_HOLD2: st <= S_NAK;
    S_NAK: begin
      retx_update;
      if (retx$out_ok) begin
        rnr_v <= 1'b1;
        rnr_k <= pkey;
        rnr_p <= a_psn;
      end
      st <= S_IDLE;
    end
    // The model's SendQueue::fail. A NAK names a packet that was sent, so
    // its message is at or before the segmentation point; the branch for a
    // message beyond it keeps the model's rule (all its bytes count as
    // acknowledged) although no NAK reaches it.
    S_FAIL: begin
      if (a_idx < {27'd0, scount} && m_fail[a_slot] == 2'd0) begin
        m_fail[a_slot] <= a_status;
        if (a_idx > {27'd0, sseg}) m_acked[a_slot] <= m_acked[a_slot] + m_len[a_slot];
        else if (a_idx == {27'd0, sseg}) m_acked[a_slot] <= m_acked[a_slot] + m_len[a_slot] - soff;
        ret <= S_IDLE;
        skip_compl <= 1'b1;
        if (a_idx == {27'd0, sseg}) begin
          s_off[skey] <= 32'd0;
          s_seg[skey] <= sseg + 5'd1;
          st <= S_SKIP;
        end else begin
          st <= S_COMPL;
        end
      end else begin
        ret <= S_IDLE;
        st <= S_COMPL;
      end
    end
    // Past failed messages at the segmentation point, then completions.
    S_SKIP: begin
      if (sseg < scount && m_fail[seg_slot] != 2'd0) s_seg[skey] <= sseg + 5'd1;
      else st <= skip_compl ? S_COMPL : S_IDLE;
    end
    S_COMPL: begin
      if (scount != 5'd0 && sseg != 5'd0 && m_acked[front_slot] >= m_len[front_slot]) st <= S_CPL;
      else st <= ret;
    end
    S_CPL: if (m_cpl_ready) begin
      s_base[skey] <= sbase + 32'd1;
      s_count[skey] <= scount - 5'd1;
      s_seg[skey] <= sseg - 5'd1;
      st <= S_COMPL;
    end

    // ---- a retransmission timeout ----
    S_RTO0: st <= S_RTO1;
    S_RTO1: st <= S_RTO2;
    S_RTO2: begin
      retx_update;
      p_retired[pkey] <= health$out_retired;
      rto_v <= 1'b1;
      rto_b <= rto_base;
      rto_k <= pkey;
      rto_a <= retx$out_outstanding != 9'd0;
      rto_s <= (p_run[pkey] == 3'd5) ? 3'd5 : p_run[pkey] + 3'd1;
      if (p_run[pkey] != 3'd5) p_run[pkey] <= p_run[pkey] + 3'd1;
      p_armed[pkey] <= retx$out_outstanding != 9'd0;
      st <= health$out_repath ? S_REPATH : S_IDLE;
    end

    // ---- a held PSN released ----
    S_REL1: st <= S_REL2;
    S_REL2: st <= S_RELEASED;
    S_RELEASED: begin
      retx_update;
      st <= S_IDLE;
    end

    // ---- one transmit attempt ----
    S_SCAN: begin
      if (~cv_any | ({1'b0, scan_n} + {2'd0, cv_off} >= NC_W)) begin
        done_v <= 1'b1;
        st <= S_IDLE;
      end else begin
        cur <= cur + cv_off;
        scan_n <= scan_n + {1'b0, cv_off};
        st <= S_TRY;
      end
    end
    S_TRY: begin
      if (q_found) begin
        pth <= q_path;
        st <= S_TAKE1;
      end else if (e_found) begin
        stm <= e_stream;
        st <= S_PICK;
      end else begin
        cur <= cur + C_ONE;
        scan_n <= scan_n + {{CB{1'b0}}, 1'b1};
        st <= S_SCAN;
      end
    end
    S_TAKE1: st <= S_TAKE2;
    S_TAKE2: st <= S_TAKE3;
    S_TAKE3: begin
      // retx output (the PSN) is valid now; the log read is under way.
      retx_update;
      h_psn <= retx$out_psn;
      c_rrr[cur] <= ({1'b0, pth} + {{PB{1'b0}}, 1'b1} >= c_paths[cur]) ? {PB{1'b0}} : pth + P_ONE;
      st <= S_TAKE4;
    end
    S_TAKE4: begin
      stm <= e_stm;
      h_seq <= e_seq;
      h_off <= e_off;
      h_len <= e_len;
      h_kind <= 4'd0;
      h_stream <= {13'd0, e_stm};
      h_opcode <= {6'd0, m_op[{cur, e_stm, e_seq[3:0]}]};
      h_flags <= 8'h03;
      n_retx <= n_retx + 32'd1;
      p_retx[pkey] <= p_retx[pkey] + 32'd1;
      st <= S_DMA;
    end
    S_PICK: st <= S_PICK2;
    S_PICK2: begin
      if (spray$out_found) begin
        pth <= spray$out_path;
        st <= S_SEND1;
      end else begin
        cur <= cur + C_ONE;
        scan_n <= scan_n + {{CB{1'b0}}, 1'b1};
        st <= S_SCAN;
      end
    end
    S_SEND1: st <= S_SENDW;
    S_SENDW: st <= S_SEND2;
    S_SEND2: begin
      // retx output (the new PSN) is valid; the log entry is written now.
      retx_update;
      p_next[pkey] <= retx$out_psn + 24'd1;
      p_retired[pkey] <= health$out_retired;
      h_psn <= retx$out_psn;
      h_seq <= sbase + {27'd0, sseg};
      h_off <= soff;
      h_len <= seg_len[13:0];
      h_kind <= 4'd0;
      h_stream <= {13'd0, stm};
      h_opcode <= {6'd0, m_op[seg_slot]};
      h_flags <= seg_last ? 8'h02 : 8'h00;
      if (seg_last) begin
        s_off[skey] <= 32'd0;
        s_seg[skey] <= sseg + 5'd1;
      end else begin
        s_off[skey] <= soff + seg_len;
      end
      c_prr[cur] <= ({1'b0, pth} + {{PB{1'b0}}, 1'b1} >= c_paths[cur]) ? {PB{1'b0}} : pth + P_ONE;
      // (The stream search wraps at the connection's stream count, so an
      // unwrapped next stream would search the same way.)
      c_srr[cur] <= ({1'b0, stm} + 4'd1 >= c_streams[cur]) ? 3'd0 : stm + 3'd1;
      if (~p_armed[pkey]) begin
        rto_v <= 1'b1;
        rto_b <= rto_base;
        rto_k <= pkey;
        rto_a <= 1'b1;
        rto_s <= p_run[pkey];
        p_armed[pkey] <= 1'b1;
      end
      n_data <= n_data + 32'd1;
      p_sent[pkey] <= p_sent[pkey] + 32'd1;
      st <= S_DMA;
    end
    // The payload read goes out first, so that it arrives while the frame
    // before this one is still being sent.
    S_DMA: if (m_rd_cmd_ready) st <= S_HDR;
    S_HDR: if (build$hdr_ready) begin
      conn_rr <= cur + C_ONE;
      sent_v <= 1'b1;
      sent_c <= cur;
      sent_l <= h_len;
      done_v <= 1'b1;
      // A finished message may leave failed ones at the segmentation point.
      skip_compl <= 1'b0;
      st <= (h_flags == 8'h02) ? S_SKIP : S_IDLE;
    end
    default: st <= S_IDLE;
  endcase
  if (init_busy) begin
    s_count[init_addr[SB-1:0]] <= 5'd0;
    s_base[init_addr[SB-1:0]] <= 32'd0;
    s_seg[init_addr[SB-1:0]] <= 5'd0;
    s_off[init_addr[SB-1:0]] <= 32'd0;
    s_rsn[init_addr[SB-1:0]] <= 32'd0;
    p_cwnd[init_addr] <= 9'd0;
    p_out[init_addr] <= 9'd0;
    p_next[init_addr] <= 24'd0;
    p_run[init_addr] <= 3'd0;
    p_sent[init_addr] <= 32'd0;
    p_retx[init_addr] <= 32'd0;
    p_ecn[init_addr] <= 32'd0;
    init_addr <= init_addr + K_ONE;
    if (&init_addr) init_busy <= 1'b0;
  end
  if (reset) begin
    st <= S_IDLE;
    c_valid <= {NC{1'b0}};
    conn_rr <= {CB{1'b0}};
    init_busy <= 1'b1;
    init_addr <= {KB{1'b0}};
    p_can <= {NK{1'b0}};
    p_queued <= {NK{1'b0}};
    p_retired <= {NK{1'b0}};
    p_armed <= {NK{1'b0}};
    p_has <= {NK{1'b0}};
    n_data <= 32'd0;
    n_retx <= 32'd0;
    n_acks <= 32'd0;
    n_naks <= 32'd0;
    n_rtos <= 32'd0;
    n_repaths <= 32'd0;
    n_naks_rx <= 32'd0;
  end
end

// Sub-block outputs this logic does not use: each result is taken in the
// state that knows it is due.
wire unused_ok = &{1'b0, srtt_ns_wide[112:98], srtt_ns_wide[65:0], pt_srtt_wide[66:52], pt_srtt_wide[19:0], build$busy, cbuild$busy, cbuild$s_payload_tready, retx$out_valid, retx$out_op, cc$out_valid, cc$out_key, cc$out_cut, health$out_valid,
  health$out_key, spray$out_valid, spray$port_busy, 1'b0};
