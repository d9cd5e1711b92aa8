// ferroce as Corundum's application block: the body of `mqnic_app_block`.
//
// `cargo xtask corundum` writes fpga/app/ferroce/rtl/mqnic_app_block.v into a
// Corundum checkout as the parameter and port list of that checkout's own
// fpga/app/template/rtl/mqnic_app_block.v (from `module mqnic_app_block` to
// the `);` that closes the ports) followed by this file, so the block always
// has exactly the interface of the Corundum it is built into and this project
// keeps none of Corundum's text.
//
// This is the project's only hand-written Verilog: parameter checks, wiring
// and instances. All of ferroce's logic is in `ferroce_app` (rust-hdl,
// hdl/src/corundum/app.rs, emitted into rtl/ferroce_app.v); the staging RAMs
// and the stream clients are Corundum's own `dma_psdpram`,
// `dma_client_axis_source` and `dma_client_axis_sink`. See docs/corundum.md.

localparam FERROCE_APP_ID = 32'h4645524f;
localparam STAGE_SIZE = 65536;       // bytes of each staging RAM (stage_ring.rs)
localparam STAGE_ADDR_WIDTH = 16;
localparam SLOT_WIDTH = 3;           // tags: DMA operations in flight each way
localparam RX_USER_WIDTH = 97;       // mac_tap.rs: timestamp and bad-frame bit
localparam TX_USER_WIDTH = 17;       // mac_tap.rs: tag and bad-frame bit

// check configuration
initial begin
    if (APP_ID != FERROCE_APP_ID) begin
        $error("Error: APP_ID must be ferroce's 32'h4645524f, got 32'h%x (instance %m)", APP_ID);
        $finish;
    end
    if (!APP_CTRL_ENABLE || !APP_DMA_ENABLE || !APP_AXIS_SYNC_ENABLE) begin
        $error("Error: ferroce needs APP_CTRL_ENABLE, APP_DMA_ENABLE and APP_AXIS_SYNC_ENABLE (instance %m)");
        $finish;
    end
    if (AXIS_SYNC_DATA_WIDTH != 64) begin
        $error("Error: ferroce's engine is 64 bits wide; AXIS_SYNC_DATA_WIDTH is %d (instance %m)", AXIS_SYNC_DATA_WIDTH);
        $finish;
    end
    if (AXIS_SYNC_RX_USER_WIDTH > RX_USER_WIDTH || AXIS_SYNC_TX_USER_WIDTH > TX_USER_WIDTH) begin
        $error("Error: MAC tuser wider than ferroce's tap carries (instance %m)");
        $finish;
    end
    if (AXIL_APP_CTRL_ADDR_WIDTH != 24 || AXIL_APP_CTRL_DATA_WIDTH != 32) begin
        $error("Error: ferroce's BAR2 decoder needs 24-bit addresses and 32-bit data (instance %m)");
        $finish;
    end
    if (DMA_ADDR_WIDTH != 64 || DMA_LEN_WIDTH != 16) begin
        $error("Error: ferroce needs 64-bit DMA addresses and 16-bit lengths (instance %m)");
        $finish;
    end
    if (DMA_TAG_WIDTH < SLOT_WIDTH || RAM_ADDR_WIDTH < STAGE_ADDR_WIDTH) begin
        $error("Error: DMA tags or RAM addresses too narrow for ferroce (instance %m)");
        $finish;
    end
end

/*
 * ferroce: the engine, BAR2, the DMA adapter and port 0's MAC tap
 */
wire [STAGE_ADDR_WIDTH-1:0] rd_desc_ram_addr, wr_desc_ram_addr;
wire [SLOT_WIDTH-1:0]       rd_desc_tag, wr_desc_tag;

wire [STAGE_ADDR_WIDTH-1:0] src_desc_ram_addr, sink_desc_ram_addr;
wire [15:0]                 src_desc_len, sink_desc_len;
wire [SLOT_WIDTH-1:0]       src_desc_tag, sink_desc_tag;
wire [RAM_ADDR_WIDTH-1:0]   src_desc_ram_addr_full = src_desc_ram_addr;
wire [RAM_ADDR_WIDTH-1:0]   sink_desc_ram_addr_full = sink_desc_ram_addr;
wire                        src_desc_valid, src_desc_ready, src_status_valid;
wire                        sink_desc_valid, sink_desc_ready, sink_status_valid;
wire [63:0]                 src_tdata, sink_tdata;
wire [7:0]                  src_tkeep, sink_tkeep;
wire                        src_tvalid, src_tready, src_tlast;
wire                        sink_tvalid, sink_tready, sink_tlast;

wire [RX_USER_WIDTH-1:0]    rx_tuser_in = s_axis_sync_rx_tuser[AXIS_SYNC_RX_USER_WIDTH-1:0];
wire [RX_USER_WIDTH-1:0]    rx_tuser_out;
wire [TX_USER_WIDTH-1:0]    tx_tuser_in = s_axis_sync_tx_tuser[AXIS_SYNC_TX_USER_WIDTH-1:0];
wire [TX_USER_WIDTH-1:0]    tx_tuser_out;

ferroce_app app_inst (
    .clock(clk),
    .reset(rst),

    .s_axil_awaddr(s_axil_app_ctrl_awaddr),
    .s_axil_awvalid(s_axil_app_ctrl_awvalid),
    .s_axil_awready(s_axil_app_ctrl_awready),
    .s_axil_wdata(s_axil_app_ctrl_wdata),
    .s_axil_wstrb(s_axil_app_ctrl_wstrb),
    .s_axil_wvalid(s_axil_app_ctrl_wvalid),
    .s_axil_wready(s_axil_app_ctrl_wready),
    .s_axil_bresp(s_axil_app_ctrl_bresp),
    .s_axil_bvalid(s_axil_app_ctrl_bvalid),
    .s_axil_bready(s_axil_app_ctrl_bready),
    .s_axil_araddr(s_axil_app_ctrl_araddr),
    .s_axil_arvalid(s_axil_app_ctrl_arvalid),
    .s_axil_arready(s_axil_app_ctrl_arready),
    .s_axil_rdata(s_axil_app_ctrl_rdata),
    .s_axil_rresp(s_axil_app_ctrl_rresp),
    .s_axil_rvalid(s_axil_app_ctrl_rvalid),
    .s_axil_rready(s_axil_app_ctrl_rready),

    .m_rd_desc_dma_addr(m_axis_data_dma_read_desc_dma_addr),
    .m_rd_desc_ram_addr(rd_desc_ram_addr),
    .m_rd_desc_len(m_axis_data_dma_read_desc_len),
    .m_rd_desc_tag(rd_desc_tag),
    .m_rd_desc_valid(m_axis_data_dma_read_desc_valid),
    .m_rd_desc_ready(m_axis_data_dma_read_desc_ready),
    .s_rd_status_tag(s_axis_data_dma_read_desc_status_tag[SLOT_WIDTH-1:0]),
    .s_rd_status_error(s_axis_data_dma_read_desc_status_error),
    .s_rd_status_valid(s_axis_data_dma_read_desc_status_valid),

    .m_src_ram_addr(src_desc_ram_addr),
    .m_src_len(src_desc_len),
    .m_src_tag(src_desc_tag),
    .m_src_valid(src_desc_valid),
    .m_src_ready(src_desc_ready),
    .s_src_status_valid(src_status_valid),
    .s_src_tdata(src_tdata),
    .s_src_tkeep(src_tkeep),
    .s_src_tvalid(src_tvalid),
    .s_src_tready(src_tready),
    .s_src_tlast(src_tlast),

    .m_sink_ram_addr(sink_desc_ram_addr),
    .m_sink_len(sink_desc_len),
    .m_sink_tag(sink_desc_tag),
    .m_sink_valid(sink_desc_valid),
    .m_sink_ready(sink_desc_ready),
    .s_sink_status_valid(sink_status_valid),
    .m_sink_tdata(sink_tdata),
    .m_sink_tkeep(sink_tkeep),
    .m_sink_tvalid(sink_tvalid),
    .m_sink_tready(sink_tready),
    .m_sink_tlast(sink_tlast),

    .m_wr_desc_dma_addr(m_axis_data_dma_write_desc_dma_addr),
    .m_wr_desc_ram_addr(wr_desc_ram_addr),
    .m_wr_desc_len(m_axis_data_dma_write_desc_len),
    .m_wr_desc_tag(wr_desc_tag),
    .m_wr_desc_valid(m_axis_data_dma_write_desc_valid),
    .m_wr_desc_ready(m_axis_data_dma_write_desc_ready),
    .s_wr_status_tag(s_axis_data_dma_write_desc_status_tag[SLOT_WIDTH-1:0]),
    .s_wr_status_error(s_axis_data_dma_write_desc_status_error),
    .s_wr_status_valid(s_axis_data_dma_write_desc_status_valid),

    .s_rx_tdata(s_axis_sync_rx_tdata[63:0]),
    .s_rx_tkeep(s_axis_sync_rx_tkeep[7:0]),
    .s_rx_tvalid(s_axis_sync_rx_tvalid[0]),
    .s_rx_tready(s_axis_sync_rx_tready[0]),
    .s_rx_tlast(s_axis_sync_rx_tlast[0]),
    .s_rx_tuser(rx_tuser_in),
    .m_rx_tdata(m_axis_sync_rx_tdata[63:0]),
    .m_rx_tkeep(m_axis_sync_rx_tkeep[7:0]),
    .m_rx_tvalid(m_axis_sync_rx_tvalid[0]),
    .m_rx_tready(m_axis_sync_rx_tready[0]),
    .m_rx_tlast(m_axis_sync_rx_tlast[0]),
    .m_rx_tuser(rx_tuser_out),
    .s_tx_tdata(s_axis_sync_tx_tdata[63:0]),
    .s_tx_tkeep(s_axis_sync_tx_tkeep[7:0]),
    .s_tx_tvalid(s_axis_sync_tx_tvalid[0]),
    .s_tx_tready(s_axis_sync_tx_tready[0]),
    .s_tx_tlast(s_axis_sync_tx_tlast[0]),
    .s_tx_tuser(tx_tuser_in),
    .m_tx_tdata(m_axis_sync_tx_tdata[63:0]),
    .m_tx_tkeep(m_axis_sync_tx_tkeep[7:0]),
    .m_tx_tvalid(m_axis_sync_tx_tvalid[0]),
    .m_tx_tready(m_axis_sync_tx_tready[0]),
    .m_tx_tlast(m_axis_sync_tx_tlast[0]),
    .m_tx_tuser(tx_tuser_out)
);

assign m_axis_sync_rx_tuser[AXIS_SYNC_RX_USER_WIDTH-1:0] = rx_tuser_out[AXIS_SYNC_RX_USER_WIDTH-1:0];
assign m_axis_sync_tx_tuser[AXIS_SYNC_TX_USER_WIDTH-1:0] = tx_tuser_out[AXIS_SYNC_TX_USER_WIDTH-1:0];

assign m_axis_data_dma_read_desc_ram_sel = 0;
assign m_axis_data_dma_read_desc_ram_addr = rd_desc_ram_addr;
assign m_axis_data_dma_read_desc_tag = rd_desc_tag;
assign m_axis_data_dma_write_desc_ram_sel = 0;
assign m_axis_data_dma_write_desc_ram_addr = wr_desc_ram_addr;
assign m_axis_data_dma_write_desc_imm = 0;
assign m_axis_data_dma_write_desc_imm_en = 1'b0;
assign m_axis_data_dma_write_desc_tag = wr_desc_tag;

/*
 * Staging RAMs: host reads land in the read RAM and leave through the
 * source; the engine's writes enter the write RAM through the sink
 */
wire [RAM_SEG_COUNT*RAM_SEG_ADDR_WIDTH-1:0] src_ram_rd_cmd_addr;
wire [RAM_SEG_COUNT-1:0]                    src_ram_rd_cmd_valid, src_ram_rd_cmd_ready;
wire [RAM_SEG_COUNT*RAM_SEG_DATA_WIDTH-1:0] src_ram_rd_resp_data;
wire [RAM_SEG_COUNT-1:0]                    src_ram_rd_resp_valid, src_ram_rd_resp_ready;

wire [RAM_SEG_COUNT*RAM_SEG_BE_WIDTH-1:0]   sink_ram_wr_cmd_be;
wire [RAM_SEG_COUNT*RAM_SEG_ADDR_WIDTH-1:0] sink_ram_wr_cmd_addr;
wire [RAM_SEG_COUNT*RAM_SEG_DATA_WIDTH-1:0] sink_ram_wr_cmd_data;
wire [RAM_SEG_COUNT-1:0]                    sink_ram_wr_cmd_valid, sink_ram_wr_cmd_ready, sink_ram_wr_done;

dma_psdpram #(
    .SIZE(STAGE_SIZE),
    .SEG_COUNT(RAM_SEG_COUNT),
    .SEG_DATA_WIDTH(RAM_SEG_DATA_WIDTH),
    .SEG_BE_WIDTH(RAM_SEG_BE_WIDTH),
    .SEG_ADDR_WIDTH(RAM_SEG_ADDR_WIDTH),
    .PIPELINE(RAM_PIPELINE)
)
read_ram_inst (
    .clk(clk),
    .rst(rst),
    .wr_cmd_be(data_dma_ram_wr_cmd_be),
    .wr_cmd_addr(data_dma_ram_wr_cmd_addr),
    .wr_cmd_data(data_dma_ram_wr_cmd_data),
    .wr_cmd_valid(data_dma_ram_wr_cmd_valid),
    .wr_cmd_ready(data_dma_ram_wr_cmd_ready),
    .wr_done(data_dma_ram_wr_done),
    .rd_cmd_addr(src_ram_rd_cmd_addr),
    .rd_cmd_valid(src_ram_rd_cmd_valid),
    .rd_cmd_ready(src_ram_rd_cmd_ready),
    .rd_resp_data(src_ram_rd_resp_data),
    .rd_resp_valid(src_ram_rd_resp_valid),
    .rd_resp_ready(src_ram_rd_resp_ready)
);

dma_psdpram #(
    .SIZE(STAGE_SIZE),
    .SEG_COUNT(RAM_SEG_COUNT),
    .SEG_DATA_WIDTH(RAM_SEG_DATA_WIDTH),
    .SEG_BE_WIDTH(RAM_SEG_BE_WIDTH),
    .SEG_ADDR_WIDTH(RAM_SEG_ADDR_WIDTH),
    .PIPELINE(RAM_PIPELINE)
)
write_ram_inst (
    .clk(clk),
    .rst(rst),
    .wr_cmd_be(sink_ram_wr_cmd_be),
    .wr_cmd_addr(sink_ram_wr_cmd_addr),
    .wr_cmd_data(sink_ram_wr_cmd_data),
    .wr_cmd_valid(sink_ram_wr_cmd_valid),
    .wr_cmd_ready(sink_ram_wr_cmd_ready),
    .wr_done(sink_ram_wr_done),
    .rd_cmd_addr(data_dma_ram_rd_cmd_addr),
    .rd_cmd_valid(data_dma_ram_rd_cmd_valid),
    .rd_cmd_ready(data_dma_ram_rd_cmd_ready),
    .rd_resp_data(data_dma_ram_rd_resp_data),
    .rd_resp_valid(data_dma_ram_rd_resp_valid),
    .rd_resp_ready(data_dma_ram_rd_resp_ready)
);

dma_client_axis_source #(
    .RAM_ADDR_WIDTH(RAM_ADDR_WIDTH),
    .SEG_COUNT(RAM_SEG_COUNT),
    .SEG_DATA_WIDTH(RAM_SEG_DATA_WIDTH),
    .SEG_BE_WIDTH(RAM_SEG_BE_WIDTH),
    .SEG_ADDR_WIDTH(RAM_SEG_ADDR_WIDTH),
    .AXIS_DATA_WIDTH(64),
    .AXIS_KEEP_ENABLE(1),
    .AXIS_KEEP_WIDTH(8),
    .AXIS_LAST_ENABLE(1),
    .AXIS_ID_ENABLE(0),
    .AXIS_DEST_ENABLE(0),
    .AXIS_USER_ENABLE(0),
    .LEN_WIDTH(16),
    .TAG_WIDTH(SLOT_WIDTH)
)
source_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_read_desc_ram_addr(src_desc_ram_addr_full),
    .s_axis_read_desc_len(src_desc_len),
    .s_axis_read_desc_tag(src_desc_tag),
    .s_axis_read_desc_id(8'd0),
    .s_axis_read_desc_dest(8'd0),
    .s_axis_read_desc_user(1'b0),
    .s_axis_read_desc_valid(src_desc_valid),
    .s_axis_read_desc_ready(src_desc_ready),
    .m_axis_read_desc_status_tag(),
    .m_axis_read_desc_status_error(),
    .m_axis_read_desc_status_valid(src_status_valid),
    .m_axis_read_data_tdata(src_tdata),
    .m_axis_read_data_tkeep(src_tkeep),
    .m_axis_read_data_tvalid(src_tvalid),
    .m_axis_read_data_tready(src_tready),
    .m_axis_read_data_tlast(src_tlast),
    .m_axis_read_data_tid(),
    .m_axis_read_data_tdest(),
    .m_axis_read_data_tuser(),
    .ram_rd_cmd_addr(src_ram_rd_cmd_addr),
    .ram_rd_cmd_valid(src_ram_rd_cmd_valid),
    .ram_rd_cmd_ready(src_ram_rd_cmd_ready),
    .ram_rd_resp_data(src_ram_rd_resp_data),
    .ram_rd_resp_valid(src_ram_rd_resp_valid),
    .ram_rd_resp_ready(src_ram_rd_resp_ready),
    .enable(1'b1)
);

dma_client_axis_sink #(
    .RAM_ADDR_WIDTH(RAM_ADDR_WIDTH),
    .SEG_COUNT(RAM_SEG_COUNT),
    .SEG_DATA_WIDTH(RAM_SEG_DATA_WIDTH),
    .SEG_BE_WIDTH(RAM_SEG_BE_WIDTH),
    .SEG_ADDR_WIDTH(RAM_SEG_ADDR_WIDTH),
    .AXIS_DATA_WIDTH(64),
    .AXIS_KEEP_ENABLE(1),
    .AXIS_KEEP_WIDTH(8),
    .AXIS_LAST_ENABLE(1),
    .AXIS_ID_ENABLE(0),
    .AXIS_DEST_ENABLE(0),
    .AXIS_USER_ENABLE(0),
    .LEN_WIDTH(16),
    .TAG_WIDTH(SLOT_WIDTH)
)
sink_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_write_desc_ram_addr(sink_desc_ram_addr_full),
    .s_axis_write_desc_len(sink_desc_len),
    .s_axis_write_desc_tag(sink_desc_tag),
    .s_axis_write_desc_valid(sink_desc_valid),
    .s_axis_write_desc_ready(sink_desc_ready),
    .m_axis_write_desc_status_len(),
    .m_axis_write_desc_status_tag(),
    .m_axis_write_desc_status_id(),
    .m_axis_write_desc_status_dest(),
    .m_axis_write_desc_status_user(),
    .m_axis_write_desc_status_error(),
    .m_axis_write_desc_status_valid(sink_status_valid),
    .s_axis_write_data_tdata(sink_tdata),
    .s_axis_write_data_tkeep(sink_tkeep),
    .s_axis_write_data_tvalid(sink_tvalid),
    .s_axis_write_data_tready(sink_tready),
    .s_axis_write_data_tlast(sink_tlast),
    .s_axis_write_data_tid(8'd0),
    .s_axis_write_data_tdest(8'd0),
    .s_axis_write_data_tuser(1'b0),
    .ram_wr_cmd_be(sink_ram_wr_cmd_be),
    .ram_wr_cmd_addr(sink_ram_wr_cmd_addr),
    .ram_wr_cmd_data(sink_ram_wr_cmd_data),
    .ram_wr_cmd_valid(sink_ram_wr_cmd_valid),
    .ram_wr_cmd_ready(sink_ram_wr_cmd_ready),
    .ram_wr_done(sink_ram_wr_done),
    .enable(1'b1),
    .abort(1'b0)
);

/*
 * Ports other than 0: passed through; every port's other taps: passed through
 */
generate
    if (PORT_COUNT > 1) begin : other_ports
        localparam W = AXIS_SYNC_DATA_WIDTH, K = AXIS_SYNC_KEEP_WIDTH, N = PORT_COUNT;
        localparam RU = AXIS_SYNC_RX_USER_WIDTH, TU = AXIS_SYNC_TX_USER_WIDTH;
        assign m_axis_sync_rx_tdata[N*W-1:W] = s_axis_sync_rx_tdata[N*W-1:W];
        assign m_axis_sync_rx_tkeep[N*K-1:K] = s_axis_sync_rx_tkeep[N*K-1:K];
        assign m_axis_sync_rx_tvalid[N-1:1] = s_axis_sync_rx_tvalid[N-1:1];
        assign s_axis_sync_rx_tready[N-1:1] = m_axis_sync_rx_tready[N-1:1];
        assign m_axis_sync_rx_tlast[N-1:1] = s_axis_sync_rx_tlast[N-1:1];
        assign m_axis_sync_rx_tuser[N*RU-1:RU] = s_axis_sync_rx_tuser[N*RU-1:RU];
        assign m_axis_sync_tx_tdata[N*W-1:W] = s_axis_sync_tx_tdata[N*W-1:W];
        assign m_axis_sync_tx_tkeep[N*K-1:K] = s_axis_sync_tx_tkeep[N*K-1:K];
        assign m_axis_sync_tx_tvalid[N-1:1] = s_axis_sync_tx_tvalid[N-1:1];
        assign s_axis_sync_tx_tready[N-1:1] = m_axis_sync_tx_tready[N-1:1];
        assign m_axis_sync_tx_tlast[N-1:1] = s_axis_sync_tx_tlast[N-1:1];
        assign m_axis_sync_tx_tuser[N*TU-1:TU] = s_axis_sync_tx_tuser[N*TU-1:TU];
    end
endgenerate

assign m_axis_sync_tx_cpl_ts = s_axis_sync_tx_cpl_ts;
assign m_axis_sync_tx_cpl_tag = s_axis_sync_tx_cpl_tag;
assign m_axis_sync_tx_cpl_valid = s_axis_sync_tx_cpl_valid;
assign s_axis_sync_tx_cpl_ready = m_axis_sync_tx_cpl_ready;

assign m_axis_direct_tx_tdata = s_axis_direct_tx_tdata;
assign m_axis_direct_tx_tkeep = s_axis_direct_tx_tkeep;
assign m_axis_direct_tx_tvalid = s_axis_direct_tx_tvalid;
assign s_axis_direct_tx_tready = m_axis_direct_tx_tready;
assign m_axis_direct_tx_tlast = s_axis_direct_tx_tlast;
assign m_axis_direct_tx_tuser = s_axis_direct_tx_tuser;
assign m_axis_direct_tx_cpl_ts = s_axis_direct_tx_cpl_ts;
assign m_axis_direct_tx_cpl_tag = s_axis_direct_tx_cpl_tag;
assign m_axis_direct_tx_cpl_valid = s_axis_direct_tx_cpl_valid;
assign s_axis_direct_tx_cpl_ready = m_axis_direct_tx_cpl_ready;
assign m_axis_direct_rx_tdata = s_axis_direct_rx_tdata;
assign m_axis_direct_rx_tkeep = s_axis_direct_rx_tkeep;
assign m_axis_direct_rx_tvalid = s_axis_direct_rx_tvalid;
assign s_axis_direct_rx_tready = m_axis_direct_rx_tready;
assign m_axis_direct_rx_tlast = s_axis_direct_rx_tlast;
assign m_axis_direct_rx_tuser = s_axis_direct_rx_tuser;

assign m_axis_if_tx_tdata = s_axis_if_tx_tdata;
assign m_axis_if_tx_tkeep = s_axis_if_tx_tkeep;
assign m_axis_if_tx_tvalid = s_axis_if_tx_tvalid;
assign s_axis_if_tx_tready = m_axis_if_tx_tready;
assign m_axis_if_tx_tlast = s_axis_if_tx_tlast;
assign m_axis_if_tx_tid = s_axis_if_tx_tid;
assign m_axis_if_tx_tdest = s_axis_if_tx_tdest;
assign m_axis_if_tx_tuser = s_axis_if_tx_tuser;
assign m_axis_if_tx_cpl_ts = s_axis_if_tx_cpl_ts;
assign m_axis_if_tx_cpl_tag = s_axis_if_tx_cpl_tag;
assign m_axis_if_tx_cpl_valid = s_axis_if_tx_cpl_valid;
assign s_axis_if_tx_cpl_ready = m_axis_if_tx_cpl_ready;
assign m_axis_if_rx_tdata = s_axis_if_rx_tdata;
assign m_axis_if_rx_tkeep = s_axis_if_rx_tkeep;
assign m_axis_if_rx_tvalid = s_axis_if_rx_tvalid;
assign s_axis_if_rx_tready = m_axis_if_rx_tready;
assign m_axis_if_rx_tlast = s_axis_if_rx_tlast;
assign m_axis_if_rx_tid = s_axis_if_rx_tid;
assign m_axis_if_rx_tdest = s_axis_if_rx_tdest;
assign m_axis_if_rx_tuser = s_axis_if_rx_tuser;

/*
 * Unused: control DMA, the NIC's AXI-Lite, DDR, HBM, statistics, GPIO, JTAG
 */
assign m_axis_ctrl_dma_read_desc_dma_addr = 0;
assign m_axis_ctrl_dma_read_desc_ram_sel = 0;
assign m_axis_ctrl_dma_read_desc_ram_addr = 0;
assign m_axis_ctrl_dma_read_desc_len = 0;
assign m_axis_ctrl_dma_read_desc_tag = 0;
assign m_axis_ctrl_dma_read_desc_valid = 1'b0;
assign m_axis_ctrl_dma_write_desc_dma_addr = 0;
assign m_axis_ctrl_dma_write_desc_ram_sel = 0;
assign m_axis_ctrl_dma_write_desc_ram_addr = 0;
assign m_axis_ctrl_dma_write_desc_imm = 0;
assign m_axis_ctrl_dma_write_desc_imm_en = 1'b0;
assign m_axis_ctrl_dma_write_desc_len = 0;
assign m_axis_ctrl_dma_write_desc_tag = 0;
assign m_axis_ctrl_dma_write_desc_valid = 1'b0;
assign ctrl_dma_ram_wr_cmd_ready = {RAM_SEG_COUNT{1'b1}};
assign ctrl_dma_ram_wr_done = ctrl_dma_ram_wr_cmd_valid;
assign ctrl_dma_ram_rd_cmd_ready = ctrl_dma_ram_rd_resp_ready;
assign ctrl_dma_ram_rd_resp_data = 0;
assign ctrl_dma_ram_rd_resp_valid = ctrl_dma_ram_rd_cmd_valid;

assign m_axil_ctrl_awaddr = 0;
assign m_axil_ctrl_awprot = 0;
assign m_axil_ctrl_awvalid = 1'b0;
assign m_axil_ctrl_wdata = 0;
assign m_axil_ctrl_wstrb = 0;
assign m_axil_ctrl_wvalid = 1'b0;
assign m_axil_ctrl_bready = 1'b1;
assign m_axil_ctrl_araddr = 0;
assign m_axil_ctrl_arprot = 0;
assign m_axil_ctrl_arvalid = 1'b0;
assign m_axil_ctrl_rready = 1'b1;

assign m_axi_ddr_awid = 0;
assign m_axi_ddr_awaddr = 0;
assign m_axi_ddr_awlen = 0;
assign m_axi_ddr_awsize = 0;
assign m_axi_ddr_awburst = 0;
assign m_axi_ddr_awlock = 0;
assign m_axi_ddr_awcache = 0;
assign m_axi_ddr_awprot = 0;
assign m_axi_ddr_awqos = 0;
assign m_axi_ddr_awuser = 0;
assign m_axi_ddr_awvalid = 0;
assign m_axi_ddr_wdata = 0;
assign m_axi_ddr_wstrb = 0;
assign m_axi_ddr_wlast = 0;
assign m_axi_ddr_wuser = 0;
assign m_axi_ddr_wvalid = 0;
assign m_axi_ddr_bready = 0;
assign m_axi_ddr_arid = 0;
assign m_axi_ddr_araddr = 0;
assign m_axi_ddr_arlen = 0;
assign m_axi_ddr_arsize = 0;
assign m_axi_ddr_arburst = 0;
assign m_axi_ddr_arlock = 0;
assign m_axi_ddr_arcache = 0;
assign m_axi_ddr_arprot = 0;
assign m_axi_ddr_arqos = 0;
assign m_axi_ddr_aruser = 0;
assign m_axi_ddr_arvalid = 0;
assign m_axi_ddr_rready = 0;

assign m_axi_hbm_awid = 0;
assign m_axi_hbm_awaddr = 0;
assign m_axi_hbm_awlen = 0;
assign m_axi_hbm_awsize = 0;
assign m_axi_hbm_awburst = 0;
assign m_axi_hbm_awlock = 0;
assign m_axi_hbm_awcache = 0;
assign m_axi_hbm_awprot = 0;
assign m_axi_hbm_awqos = 0;
assign m_axi_hbm_awuser = 0;
assign m_axi_hbm_awvalid = 0;
assign m_axi_hbm_wdata = 0;
assign m_axi_hbm_wstrb = 0;
assign m_axi_hbm_wlast = 0;
assign m_axi_hbm_wuser = 0;
assign m_axi_hbm_wvalid = 0;
assign m_axi_hbm_bready = 0;
assign m_axi_hbm_arid = 0;
assign m_axi_hbm_araddr = 0;
assign m_axi_hbm_arlen = 0;
assign m_axi_hbm_arsize = 0;
assign m_axi_hbm_arburst = 0;
assign m_axi_hbm_arlock = 0;
assign m_axi_hbm_arcache = 0;
assign m_axi_hbm_arprot = 0;
assign m_axi_hbm_arqos = 0;
assign m_axi_hbm_aruser = 0;
assign m_axi_hbm_arvalid = 0;
assign m_axi_hbm_rready = 0;

assign m_axis_stat_tdata = 0;
assign m_axis_stat_tid = 0;
assign m_axis_stat_tvalid = 1'b0;

assign gpio_out = 0;
assign jtag_tdo = jtag_tdi;

endmodule

`resetall
