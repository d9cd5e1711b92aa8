//! `EHXPLLL`, the ECP5 PLL, with one output (CLKOP) fed back to itself:
//! f_out = f_in * clkfb_div / clki_div, with the VCO at f_out * clkop_div
//! (400-800 MHz). Settings as `ecppll` (Project Trellis) computes them.

use rust_hdl::prelude::*;

/// The PLL: `clk_in` to `clk_out`, `locked` once stable.
#[derive(LogicBlock)]
pub struct Pll {
    pub clk_in: Signal<In, Clock>,
    pub clk_out: Signal<Out, Clock>,
    pub locked: Signal<Out, bool>,
    clki_div: Constant<Bits<8>>,
    clkfb_div: Constant<Bits<8>>,
    clkop_div: Constant<Bits<8>>,
    /// The input frequency, MHz (for the attributes nextpnr reads).
    f_in: Constant<Bits<16>>,
}

impl Default for Pll {
    fn default() -> Pll {
        Pll::from_100_to_75()
    }
}

impl Pll {
    /// 100 MHz (the ECPIX-5's oscillator) to 75 MHz: VCO 600 MHz.
    pub fn from_100_to_75() -> Pll {
        Pll::with(100, 4, 3, 8)
    }

    /// 100 MHz (the ECPIX-5's oscillator) to 25 MHz: VCO 600 MHz.
    pub fn from_100_to_25() -> Pll {
        Pll::with(100, 4, 1, 24)
    }

    /// 25 MHz (the Colorlight 5A-75B's oscillator) to 75 MHz: VCO 600 MHz.
    pub fn from_25_to_75() -> Pll {
        Pll::with(25, 1, 3, 8)
    }

    /// 25 MHz (the Colorlight 5A-75B's oscillator) to 50 MHz: VCO 600 MHz.
    pub fn from_25_to_50() -> Pll {
        Pll::with(25, 1, 2, 12)
    }

    fn with(f_in: u64, clki: u64, clkfb: u64, clkop: u64) -> Pll {
        let vco = f_in * clkfb * clkop / clki;
        assert!((400..=800).contains(&vco), "VCO at {vco} MHz, outside 400-800");
        Pll {
            clk_in: Default::default(),
            clk_out: Default::default(),
            locked: Default::default(),
            clki_div: Constant::new(clki.into()),
            clkfb_div: Constant::new(clkfb.into()),
            clkop_div: Constant::new(clkop.into()),
            f_in: Constant::new(f_in.into()),
        }
    }

    /// The input frequency, MHz.
    pub fn f_in_mhz(&self) -> u64 {
        self.f_in.val().index() as u64
    }

    /// The output frequency, MHz.
    pub fn f_out_mhz(&self) -> u64 {
        self.f_in.val().index() as u64 * self.clkfb_div.val().index() as u64 / self.clki_div.val().index() as u64
    }
}

impl Logic for Pll {
    fn update(&mut self) {}

    fn connect(&mut self) {
        self.clk_out.connect();
        self.locked.connect();
    }

    fn hdl(&self) -> Verilog {
        let (clki, clkfb, clkop) =
            (self.clki_div.val().index(), self.clkfb_div.val().index(), self.clkop_div.val().index());
        let (fin, fout) = (self.f_in.val().index(), self.f_out_mhz());
        Verilog::Wrapper(Wrapper {
            code: format!(
                r#"(* FREQUENCY_PIN_CLKI="{fin}", FREQUENCY_PIN_CLKOP="{fout}", ICP_CURRENT="12", LPF_RESISTOR="8", MFG_ENABLE_FILTEROPAMP="1", MFG_GMCREF_SEL="2" *)
EHXPLLL #(.PLLRST_ENA("DISABLED"), .INTFB_WAKE("DISABLED"), .STDBY_ENABLE("DISABLED"), .DPHASE_SOURCE("DISABLED"),
  .OUTDIVIDER_MUXA("DIVA"), .OUTDIVIDER_MUXB("DIVB"), .OUTDIVIDER_MUXC("DIVC"), .OUTDIVIDER_MUXD("DIVD"),
  .CLKI_DIV({clki}), .CLKOP_ENABLE("ENABLED"), .CLKOP_DIV({clkop}), .CLKOP_CPHASE({cphase}), .CLKOP_FPHASE(0),
  .FEEDBK_PATH("CLKOP"), .CLKFB_DIV({clkfb}))
pll_i (.RST(1'b0), .STDBY(1'b0), .CLKI(clk_in), .CLKOP(clk_out), .CLKFB(clk_out), .CLKINTFB(), .PHASESEL0(1'b0),
  .PHASESEL1(1'b0), .PHASEDIR(1'b1), .PHASESTEP(1'b1), .PHASELOADREG(1'b1), .PLLWAKESYNC(1'b0), .ENCLKOP(1'b0),
  .LOCK(locked));"#,
                cphase = clkop / 2,
            ),
            cores: String::new(),
        })
    }
}

/// Simulation models of the ECP5 primitives the board builds use (this
/// PLL; LiteEth's IDDRX1F, ODDRX1F, DELAYG and FD1S3BX), for Verilator
/// runs of a whole board top. Synthesis maps the primitives itself.
pub const SIM_MODELS: &str = include_str!("ecp5_sim.v");
