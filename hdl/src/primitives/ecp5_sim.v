// Simulation models of the ECP5 primitives in the board builds (our PLL
// instance and LiteEth's RGMII PHY), for Verilator. Synthesis never reads
// this file: yosys and nextpnr map the primitives themselves. Behaviour as
// Lattice describes it (FPGA-TN-02035, "ECP5 and ECP5-5G High-Speed I/O
// Interface": IDDRX1F gives the rising-edge sample on Q0 and the following
// falling-edge sample on Q1, both at the next rising edge; ODDRX1F sends D0
// while SCLK is high and D1 while it is low; FPGA-TN-02200, "ECP5 and
// ECP5-5G sysCLOCK PLL/DLL": with CLKOP fed back, CLKOP = CLKI * CLKFB_DIV /
// CLKI_DIV). Delays (DELAYG) and the PLL's phase are not modelled.

// The PLL: divides CLKI (CLKI_DIV a multiple of CLKFB_DIV); LOCK after 16
// output cycles.
module EHXPLLL #(
    parameter PLLRST_ENA = "DISABLED", parameter INTFB_WAKE = "DISABLED",
    parameter STDBY_ENABLE = "DISABLED", parameter DPHASE_SOURCE = "DISABLED",
    parameter OUTDIVIDER_MUXA = "DIVA", parameter OUTDIVIDER_MUXB = "DIVB",
    parameter OUTDIVIDER_MUXC = "DIVC", parameter OUTDIVIDER_MUXD = "DIVD",
    parameter integer CLKI_DIV = 1, parameter CLKOP_ENABLE = "ENABLED",
    parameter integer CLKOP_DIV = 8, parameter integer CLKOP_CPHASE = 0,
    parameter integer CLKOP_FPHASE = 0, parameter FEEDBK_PATH = "CLKOP",
    parameter integer CLKFB_DIV = 1
) (
    input RST, input STDBY, input CLKI, input CLKFB, input PHASESEL0, input PHASESEL1,
    input PHASEDIR, input PHASESTEP, input PHASELOADREG, input PLLWAKESYNC, input ENCLKOP,
    output reg CLKOP, output CLKINTFB, output reg LOCK
);
    localparam integer EDGES = CLKI_DIV / CLKFB_DIV;
    integer edges;
    integer cycles;
    initial begin
        if (CLKI_DIV % CLKFB_DIV != 0) $fatal(1, "EHXPLLL model: CLKI_DIV %0d is not a multiple of CLKFB_DIV %0d", CLKI_DIV, CLKFB_DIV);
        CLKOP = 1'b0;
        LOCK = 1'b0;
        edges = 0;
        cycles = 0;
    end
    assign CLKINTFB = 1'b0;
    always @(posedge CLKI or negedge CLKI) begin
        if (edges + 1 == EDGES) begin
            edges <= 0;
            CLKOP <= ~CLKOP;
        end else begin
            edges <= edges + 1;
        end
    end
    always @(posedge CLKOP) begin
        if (cycles < 16) cycles <= cycles + 1;
        else LOCK <= 1'b1;
    end
endmodule

// Double-data-rate input.
module IDDRX1F (input D, input SCLK, input RST, output reg Q0, output reg Q1);
    reg rise;
    reg fall;
    initial begin
        rise = 1'b0;
        fall = 1'b0;
        Q0 = 1'b0;
        Q1 = 1'b0;
    end
    always @(posedge SCLK) begin
        rise <= D;
        Q0 <= rise;
        Q1 <= fall;
    end
    always @(negedge SCLK) fall <= D;
endmodule

// Double-data-rate output.
module ODDRX1F (input D0, input D1, input SCLK, input RST, output Q);
    reg d0;
    reg d1;
    reg d1_low;
    initial begin
        d0 = 1'b0;
        d1 = 1'b0;
        d1_low = 1'b0;
    end
    always @(posedge SCLK) begin
        d0 <= D0;
        d1 <= D1;
    end
    always @(negedge SCLK) d1_low <= d1;
    assign Q = SCLK ? d0 : d1_low;
endmodule

// Input delay: none in simulation.
module DELAYG #(parameter DEL_MODE = "USER_DEFINED", parameter DEL_VALUE = 0) (input A, output Z);
    assign Z = A;
endmodule

// Flip-flop with asynchronous preset (powers up set).
module FD1S3BX (input D, input CK, input PD, output reg Q);
    initial Q = 1'b1;
    always @(posedge CK or posedge PD) begin
        if (PD) Q <= 1'b1;
        else Q <= D;
    end
endmodule
