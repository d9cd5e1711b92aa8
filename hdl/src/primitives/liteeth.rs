//! `liteeth_core`: LiteEth's ECP5 RGMII PHY and 64-bit MAC, generated at
//! build time by `fpga/liteeth/liteeth_core.py` (ports documented there);
//! the synthesis reads the generated file with the board top.

use rust_hdl::prelude::*;

/// The generated module's ports this instance connects, by name.
pub const PORTS: &[&str] = &[
    "sys_clk",
    "sys_rst",
    "rgmii_clocks_rx",
    "rgmii_clocks_tx",
    "rgmii_rst_n",
    "rgmii_rx_ctl",
    "rgmii_rx_data",
    "rgmii_tx_ctl",
    "rgmii_tx_data",
    "rx_valid",
    "rx_ready",
    "rx_last",
    "rx_data",
    "rx_last_be",
    "rx_error",
    "tx_valid",
    "tx_ready",
    "tx_first",
    "tx_last",
    "tx_data",
    "tx_last_be",
    "tx_error",
    "crc_errors",
];
/// The generated module's ports left open.
pub const UNUSED: &[&str] = &["rx_first", "preamble_errors"];

/// The instance; its ports are the generated module's, by name.
#[derive(LogicBlock, Default)]
pub struct LiteEthCore {
    pub sys_clk: Signal<In, Clock>,
    pub sys_rst: Signal<In, bool>,
    pub rgmii_clocks_rx: Signal<In, Clock>,
    pub rgmii_clocks_tx: Signal<Out, bool>,
    pub rgmii_rst_n: Signal<Out, bool>,
    pub rgmii_rx_ctl: Signal<In, bool>,
    pub rgmii_rx_data: Signal<In, Bits<4>>,
    pub rgmii_tx_ctl: Signal<Out, bool>,
    pub rgmii_tx_data: Signal<Out, Bits<4>>,
    pub rx_valid: Signal<Out, bool>,
    pub rx_ready: Signal<In, bool>,
    pub rx_last: Signal<Out, bool>,
    pub rx_data: Signal<Out, Bits<64>>,
    pub rx_last_be: Signal<Out, Bits<8>>,
    pub rx_error: Signal<Out, Bits<8>>,
    pub tx_valid: Signal<In, bool>,
    pub tx_ready: Signal<Out, bool>,
    pub tx_first: Signal<In, bool>,
    pub tx_last: Signal<In, bool>,
    pub tx_data: Signal<In, Bits<64>>,
    pub tx_last_be: Signal<In, Bits<8>>,
    pub tx_error: Signal<In, Bits<8>>,
    pub crc_errors: Signal<Out, Bits<32>>,
}

impl Logic for LiteEthCore {
    fn update(&mut self) {}

    fn connect(&mut self) {
        self.rgmii_clocks_tx.connect();
        self.rgmii_rst_n.connect();
        self.rgmii_tx_ctl.connect();
        self.rgmii_tx_data.connect();
        self.rx_valid.connect();
        self.rx_last.connect();
        self.rx_data.connect();
        self.rx_last_be.connect();
        self.rx_error.connect();
        self.tx_ready.connect();
        self.crc_errors.connect();
    }

    fn hdl(&self) -> Verilog {
        let ports: Vec<String> = PORTS.iter().map(|p| format!(".{p}({p})")).collect();
        Verilog::Wrapper(Wrapper {
            code: format!(
                "liteeth_core liteeth_i ({}, {});",
                ports.join(", "),
                UNUSED.iter().map(|p| format!(".{p}()")).collect::<Vec<_>>().join(", ")
            ),
            cores: String::new(),
        })
    }
}
