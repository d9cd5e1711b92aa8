//! `csr`: the AXI-Lite register file, generated from the register map in
//! `ferroce_proto::regs` (same offsets, access types and reset values).
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `s_axil_*`: AXI-Lite slave, 16-bit byte address, 32-bit data, one
//!   outstanding write and one outstanding read. A write is taken when
//!   `awvalid` and `wvalid` are both high (`awready`/`wready` answer in the
//!   same cycle), its response follows one cycle later; a read answers one
//!   cycle after `arvalid`. Unmapped or misaligned addresses, writes to
//!   read-only registers and writes that would leave a register outside its
//!   range (`Register::range`, judged on the value after `wstrb`) answer
//!   SLVERR and change nothing; write-only registers read as 0. `wstrb`
//!   enables bytes.
//! * `regs` (out): every RW and WO register, register i of
//!   `ferroce_proto::regs::stored()` at bits 32i..32i+31; `strobe` (out): bit
//!   i pulses for one cycle after register i is written.
//! * `hw` (in): every hardware-set RO register, register j of
//!   `ferroce_proto::regs::hardware()` at bits 32j..32j+31.
//!
//! Block headers (type, version, next) and the engine_info constants are
//! constants in the decoder.

use std::fmt::Write as _;

use rust_hdl::prelude::*;

use ferroce_proto::regs::{self, Access, RegFile, BLOCKS, N_HARDWARE, N_STORED};

/// Address bits of the AXI-Lite port.
pub const ADDR_BITS: usize = 16;
/// Width of the `regs` bus.
pub const STORED_BITS: usize = 32 * N_STORED;
/// Width of the `hw` bus.
pub const HW_BITS: usize = 32 * N_HARDWARE;

/// The register file.
#[derive(LogicBlock, Default)]
pub struct Csr {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s_axil_awaddr: Signal<In, Bits<ADDR_BITS>>,
    pub s_axil_awvalid: Signal<In, bool>,
    pub s_axil_awready: Signal<Out, bool>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, bool>,
    pub s_axil_wready: Signal<Out, bool>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, bool>,
    pub s_axil_bready: Signal<In, bool>,
    pub s_axil_araddr: Signal<In, Bits<ADDR_BITS>>,
    pub s_axil_arvalid: Signal<In, bool>,
    pub s_axil_arready: Signal<Out, bool>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, bool>,
    pub s_axil_rready: Signal<In, bool>,
    pub regs: Signal<Out, Bits<STORED_BITS>>,
    pub strobe: Signal<Out, Bits<N_STORED>>,
    pub hw: Signal<In, Bits<HW_BITS>>,
    _state: Box<SimState>,
}

/// State for rust-hdl's own simulator (the Verilog keeps it in registers).
#[derive(Default)]
struct SimState {
    file: Option<RegFile>,
    bvalid: bool,
    bresp: u64,
    rvalid: bool,
    rresp: u64,
    rdata: u64,
    strobe: u64,
}

const OKAY: u64 = 0;
const SLVERR: u64 = 2;

impl Logic for Csr {
    fn update(&mut self) {
        let wr_fire = self.s_axil_awvalid.val() && self.s_axil_wvalid.val() && !self._state.bvalid;
        let rd_fire = self.s_axil_arvalid.val() && !self._state.rvalid;
        if self.clock.pos_edge() {
            let hw = self.hw.val();
            let st = &mut *self._state;
            let file = st.file.get_or_insert_with(RegFile::new);
            for (j, (addr, _)) in regs::hardware().iter().enumerate() {
                file.set(*addr, hw.get_bits::<32>(32 * j).index() as u32);
            }
            st.strobe = 0;
            if wr_fire {
                let addr = self.s_axil_awaddr.val().index() as u32;
                let r = file.write_strobed(
                    addr,
                    self.s_axil_wdata.val().index() as u32,
                    self.s_axil_wstrb.val().index() as u8,
                );
                st.bvalid = true;
                st.bresp = if r.is_ok() { OKAY } else { SLVERR };
                if r.is_ok() {
                    if let Some(i) = regs::stored().iter().position(|(a, _)| *a == addr) {
                        st.strobe = 1 << i;
                    }
                }
            } else if self.s_axil_bready.val() {
                st.bvalid = false;
            }
            if rd_fire {
                let r = file.read(self.s_axil_araddr.val().index() as u32);
                st.rvalid = true;
                st.rresp = if r.is_ok() { OKAY } else { SLVERR };
                st.rdata = r.unwrap_or(0) as u64;
            } else if self.s_axil_rready.val() {
                st.rvalid = false;
            }
            if self.reset.val() {
                *st = SimState::default();
            }
        }
        let st = &*self._state;
        self.s_axil_awready.next = wr_fire;
        self.s_axil_wready.next = wr_fire;
        self.s_axil_bvalid.next = st.bvalid;
        self.s_axil_bresp.next = st.bresp.into();
        self.s_axil_arready.next = rd_fire;
        self.s_axil_rvalid.next = st.rvalid;
        self.s_axil_rresp.next = st.rresp.into();
        self.s_axil_rdata.next = st.rdata.into();
        let mut bus = Bits::<STORED_BITS>::default();
        let file = st.file.clone().unwrap_or_default();
        for (i, (addr, _)) in regs::stored().iter().enumerate() {
            bus.set_bits::<32>(32 * i, (file.get(*addr) as u64).into());
        }
        self.regs.next = bus;
        self.strobe.next = st.strobe.into();
    }

    fn connect(&mut self) {
        self.s_axil_awready.connect();
        self.s_axil_wready.connect();
        self.s_axil_bvalid.connect();
        self.s_axil_bresp.connect();
        self.s_axil_arready.connect();
        self.s_axil_rvalid.connect();
        self.s_axil_rresp.connect();
        self.s_axil_rdata.connect();
        self.regs.connect();
        self.strobe.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(decoder_verilog())
    }
}

/// The decoder, written from the register map.
pub fn decoder_verilog() -> String {
    let stored = regs::stored();
    let hardware = regs::hardware();
    let a = ADDR_BITS;
    let mut s = String::new();
    let _ = writeln!(s, "// Generated from ferroce_proto::regs: do not edit.");
    let _ = writeln!(s, "reg bvalid_q;\nreg [1:0] bresp_q;\nreg rvalid_q;\nreg [1:0] rresp_q;\nreg [31:0] rdata_q;");
    let _ = writeln!(s, "reg [{}:0] regs_q;\nreg [{}:0] strobe_q;", STORED_BITS - 1, N_STORED - 1);
    let _ = writeln!(s, "wire wr_fire = s_axil_awvalid & s_axil_wvalid & ~bvalid_q;");
    let _ = writeln!(s, "wire rd_fire = s_axil_arvalid & ~rvalid_q;");
    let _ = writeln!(
        s,
        "wire [31:0] wmask = {{{{8{{s_axil_wstrb[3]}}}}, {{8{{s_axil_wstrb[2]}}}}, {{8{{s_axil_wstrb[1]}}}}, {{8{{s_axil_wstrb[0]}}}}}};"
    );
    let _ = writeln!(
        s,
        "always @(*) begin\n  s_axil_awready = wr_fire;\n  s_axil_wready = wr_fire;\n  s_axil_bvalid = bvalid_q;\n  \
         s_axil_bresp = bresp_q;\n  s_axil_arready = rd_fire;\n  s_axil_rvalid = rvalid_q;\n  s_axil_rresp = rresp_q;\n  \
         s_axil_rdata = rdata_q;\n  regs = regs_q;\n  strobe = strobe_q;\nend"
    );
    // Read decode.
    let _ = writeln!(s, "reg [31:0] rd_value;\nreg rd_ok;\nalways @(*) begin\n  rd_ok = 1'b1;\n  rd_value = 32'd0;\n  case (s_axil_araddr)");
    for (i, b) in BLOCKS.iter().enumerate() {
        let base = regs::block_base(i);
        let next = if i + 1 < BLOCKS.len() { regs::block_base(i + 1) } else { 0 };
        for (off, v, what) in [(0, b.type_id, "type"), (4, b.version, "version"), (8, next, "next")] {
            let _ = writeln!(s, "    {a}'h{:04x}: rd_value = 32'h{v:08x}; // {}.{what}", base + off, b.name);
        }
    }
    for (addr, r) in regs::all_regs() {
        let value = match r.access {
            Access::Const => format!("32'h{:08x}", r.reset),
            Access::Wo => "32'd0".to_string(),
            Access::Rw => {
                let i = stored.iter().position(|(x, _)| *x == addr).expect("RW is stored");
                format!("regs_q[{}:{}]", 32 * i + 31, 32 * i)
            }
            Access::Ro => {
                let j = hardware.iter().position(|(x, _)| *x == addr).expect("RO is hardware");
                format!("hw[{}:{}]", 32 * j + 31, 32 * j)
            }
        };
        let _ = writeln!(s, "    {a}'h{addr:04x}: rd_value = {value}; // {}", r.name);
    }
    let _ = writeln!(s, "    default: rd_ok = 1'b0;\n  endcase\nend");
    // Write decode: only RW and WO registers accept writes, and a ranged
    // one only a value in its range once the byte enables are applied.
    let mut accept = Vec::with_capacity(N_STORED);
    for (i, (_, r)) in stored.iter().enumerate() {
        let terms = range_terms(&format!("wr_value_{i}"), r);
        if terms.is_empty() {
            accept.push("1'b1".to_string());
            continue;
        }
        let (hi, lo) = (32 * i + 31, 32 * i);
        let _ = writeln!(
            s,
            "wire [31:0] wr_value_{i} = (regs_q[{hi}:{lo}] & ~wmask) | (s_axil_wdata & wmask); // {}\n\
             wire wr_in_range_{i} = {};",
            r.name,
            terms.join(" & ")
        );
        accept.push(format!("wr_in_range_{i}"));
    }
    let _ = writeln!(
        s,
        "reg wr_ok;\nreg [{}:0] wr_sel;\nalways @(*) begin\n  wr_ok = 1'b0;\n  wr_sel = {N_STORED}'d0;\n  case (s_axil_awaddr)",
        N_STORED - 1
    );
    for (i, (addr, r)) in stored.iter().enumerate() {
        let ok = &accept[i];
        let _ = writeln!(s, "    {a}'h{addr:04x}: begin wr_ok = {ok}; wr_sel[{i}] = {ok}; end // {}", r.name);
    }
    let _ = writeln!(s, "    default: wr_ok = 1'b0;\n  endcase\nend");
    let mut reset = String::new();
    for (i, (_, r)) in stored.iter().enumerate() {
        let _ = writeln!(reset, "    regs_q[{}:{}] <= 32'h{:08x};", 32 * i + 31, 32 * i, r.reset);
    }
    let _ = writeln!(s, "always @(posedge clock) begin\n  strobe_q <= {N_STORED}'d0;");
    let _ = writeln!(
        s,
        "  if (wr_fire) begin\n    bvalid_q <= 1'b1;\n    bresp_q <= wr_ok ? 2'b00 : 2'b10;\n  end else if (s_axil_bready) begin\n    bvalid_q <= 1'b0;\n  end"
    );
    let _ = writeln!(
        s,
        "  if (rd_fire) begin\n    rvalid_q <= 1'b1;\n    rresp_q <= rd_ok ? 2'b00 : 2'b10;\n    rdata_q <= rd_value;\n  end else if (s_axil_rready) begin\n    rvalid_q <= 1'b0;\n  end"
    );
    for i in 0..N_STORED {
        let (hi, lo) = (32 * i + 31, 32 * i);
        let _ = writeln!(
            s,
            "  if (wr_fire & wr_sel[{i}]) begin\n    regs_q[{hi}:{lo}] <= (regs_q[{hi}:{lo}] & ~wmask) | (s_axil_wdata & wmask);\n    strobe_q[{i}] <= 1'b1;\n  end"
        );
    }
    let _ = writeln!(
        s,
        "  if (reset) begin\n    bvalid_q <= 1'b0;\n    bresp_q <= 2'b00;\n    rvalid_q <= 1'b0;\n    rresp_q <= 2'b00;\n    rdata_q <= 32'd0;\n    strobe_q <= {N_STORED}'d0;\n{reset}  end\nend"
    );
    s
}

/// The compares that keep `value` in `r`'s range, leaving out those no
/// 32-bit value fails (a lint would flag them as constant).
fn range_terms(value: &str, r: &regs::Register) -> Vec<String> {
    let Some(b) = r.range else { return Vec::new() };
    let mut terms = Vec::new();
    if b.min > 0 {
        terms.push(format!("({value} >= 32'd{})", b.min));
    }
    if b.max < u32::MAX {
        terms.push(format!("({value} <= 32'd{})", b.max));
    }
    terms
}
