//! `csr`: the AXI-Lite register file, generated from the register map in
//! `ferroce_proto::regs` (same offsets, access types, reset values and
//! ranges), built per preset: the `engine_info` constants and the ranges
//! bounded by the build's sizes come from its `EngineConfig`.
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
//! The decoder is loops over tables of `Constant`s built from the map:
//! the stored registers (address, range, write-only), the hardware
//! registers (address) and the constants (block headers: type, version,
//! next; the `Const` registers). A write selects its register, merges the
//! byte lanes into the old value and checks that value against the
//! register's range; the register bus is one vector written at the
//! selected register's offset.

use rust_hdl::prelude::*;

use ferroce_proto::regs::{self, Access, BLOCKS, N_HARDWARE, N_STORED};

use super::cfg::CONFIG;
use crate::blocks::{HdlDefault, HdlStruct};

/// Address bits of the AXI-Lite port.
pub const ADDR_BITS: usize = 16;
/// Width of the `regs` bus.
pub const STORED_BITS: usize = 32 * N_STORED;
/// Width of the `hw` bus.
pub const HW_BITS: usize = 32 * N_HARDWARE;
/// Registers read as constants: three header registers per block and the
/// `Const` registers.
pub const N_CONST: usize = 3 * BLOCKS.len() + count_const();
/// Bits of an offset into the `regs` bus.
const OFFSET_BITS: usize = usize::BITS as usize - STORED_BITS.leading_zeros() as usize;

/// AXI response OKAY.
const AXI_OKAY: u64 = 0;
/// AXI response SLVERR.
const AXI_SLVERR: u64 = 2;

const fn count_const() -> usize {
    let mut n = 0;
    let mut b = 0;
    while b < BLOCKS.len() {
        let mut r = 0;
        while r < BLOCKS[b].regs.len() {
            if matches!(BLOCKS[b].regs[r].access, Access::Const) {
                n += 1;
            }
            r += 1;
        }
        b += 1;
    }
    n
}

/// The constant registers, (address, value), headers first.
fn constants() -> Vec<(u32, u32)> {
    let mut v = Vec::with_capacity(N_CONST);
    for (i, b) in BLOCKS.iter().enumerate() {
        let base = regs::block_base(i);
        let next = if i + 1 < BLOCKS.len() { regs::block_base(i + 1) } else { 0 };
        v.extend([(base, b.type_id), (base + 4, b.version), (base + 8, next)]);
    }
    v.extend(regs::all_regs().filter(|(_, r)| r.access == Access::Const).map(|(a, r)| (a, reset_at(a, r))));
    v
}

/// Stored register i.
fn stored(i: usize) -> regs::Register {
    *regs::stored()[i].1
}

/// The values stored register i may take in this build (any, if it has
/// no range).
fn bounds(i: usize) -> regs::Bounds {
    let (addr, r) = regs::stored()[i];
    let range = regs::Reg::at(addr).map_or(r.range, |h| CONFIG.range(h));
    range.unwrap_or(regs::Bounds { min: 0, max: u32::MAX })
}

/// The value of the register at `addr` after reset in this build (the
/// `engine_info` constants follow the build).
fn reset_at(addr: u32, r: &regs::Register) -> u32 {
    regs::Reg::at(addr).map_or(r.reset, |h| CONFIG.reset(h))
}

/// Every stored register at its reset value, as the `regs` bus.
fn reset_bus() -> Bits<STORED_BITS> {
    let mut bus = Bits::<STORED_BITS>::default();
    for (i, (_, r)) in regs::stored().iter().enumerate() {
        bus = bus | (bit_cast::<STORED_BITS, 32>((r.reset as u64).into()) << (32 * i) as u64);
    }
    bus
}

/// A 32-bit word at the bottom of the `regs` bus.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct BusWord {
    pub word: Bits<32>,
    pub zero: Bits<{ STORED_BITS - 32 }>,
}

/// The write strobes as a bit mask.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ByteMask {
    pub b0: Bits<8>,
    pub b1: Bits<8>,
    pub b2: Bits<8>,
    pub b3: Bits<8>,
}

/// The register file.
#[derive(LogicBlock, HdlDefault)]
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
    regs_q: DFF<Bits<STORED_BITS>>,
    strobe_q: DFF<Bits<N_STORED>>,
    bvalid: DFF<bool>,
    bresp: DFF<Bits<2>>,
    rvalid: DFF<bool>,
    rresp: DFF<Bits<2>>,
    rdata: DFF<Bits<32>>,
    wr_fire: Signal<Local, bool>,
    rd_fire: Signal<Local, bool>,
    byte_mask: Signal<Local, ByteMask>,
    wmask: Signal<Local, Bits<32>>,
    wr_any: Signal<Local, bool>,
    wr_old: Signal<Local, Bits<32>>,
    wr_min: Signal<Local, Bits<32>>,
    wr_max: Signal<Local, Bits<32>>,
    wr_value: Signal<Local, Bits<32>>,
    wr_ok: Signal<Local, bool>,
    value_word: Signal<Local, BusWord>,
    value_wide: Signal<Local, Bits<STORED_BITS>>,
    rd_ok: Signal<Local, bool>,
    rd_value: Signal<Local, Bits<32>>,
    /// Stored registers: address, range, write-only (reads 0), offset on
    /// the bus, strobe bit.
    #[constants(|i: usize| regs::stored()[i].0 as u64)]
    stored_addr: [Constant<Bits<ADDR_BITS>>; N_STORED],
    #[constants(|i: usize| bounds(i).min as u64)]
    stored_min: [Constant<Bits<32>>; N_STORED],
    #[constants(|i: usize| bounds(i).max as u64)]
    stored_max: [Constant<Bits<32>>; N_STORED],
    #[constants(|i: usize| stored(i).access == Access::Wo)]
    stored_wo: [Constant<bool>; N_STORED],
    #[constants(|i: usize| (32 * i) as u64)]
    stored_offset: [Constant<Bits<OFFSET_BITS>>; N_STORED],
    #[constants(|i: usize| 1u64 << i)]
    stored_strobe: [Constant<Bits<N_STORED>>; N_STORED],
    /// Hardware registers: address.
    #[constants(|j: usize| regs::hardware()[j].0 as u64)]
    hw_addr: [Constant<Bits<ADDR_BITS>>; N_HARDWARE],
    /// Constant registers: address and value.
    #[constants(|k: usize| constants()[k].0 as u64)]
    const_addr: [Constant<Bits<ADDR_BITS>>; N_CONST],
    #[constants(|k: usize| constants()[k].1 as u64)]
    const_value: [Constant<Bits<32>>; N_CONST],
    #[constant(reset_bus())]
    regs_reset: Constant<Bits<STORED_BITS>>,
    #[constant(0u64)]
    zero_word: Constant<Bits<32>>,
    #[constant(0u64)]
    zero_bus_hi: Constant<Bits<{ STORED_BITS - 32 }>>,
    #[constant(u32::MAX as u64)]
    word_mask: Constant<Bits<STORED_BITS>>,
    #[constant(0u64)]
    zero_strobe: Constant<Bits<N_STORED>>,
    #[constant(0xffu64)]
    byte_ones: Constant<Bits<8>>,
    #[constant(0u64)]
    byte_zero: Constant<Bits<8>>,
    #[constant(AXI_OKAY)]
    okay: Constant<Bits<2>>,
    #[constant(AXI_SLVERR)]
    slverr: Constant<Bits<2>>,
}

impl Logic for Csr {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, regs_q, strobe_q, bvalid, bresp, rvalid, rresp, rdata);
        self.wr_fire.next = self.s_axil_awvalid.val() & self.s_axil_wvalid.val() & !self.bvalid.q.val();
        self.rd_fire.next = self.s_axil_arvalid.val() & !self.rvalid.q.val();

        // Write: the stored register at awaddr, its bytes merged, its range.
        self.byte_mask.next.b0 = self.byte_zero.val();
        self.byte_mask.next.b1 = self.byte_zero.val();
        self.byte_mask.next.b2 = self.byte_zero.val();
        self.byte_mask.next.b3 = self.byte_zero.val();
        if self.s_axil_wstrb.val().get_bit(0) {
            self.byte_mask.next.b0 = self.byte_ones.val();
        }
        if self.s_axil_wstrb.val().get_bit(1) {
            self.byte_mask.next.b1 = self.byte_ones.val();
        }
        if self.s_axil_wstrb.val().get_bit(2) {
            self.byte_mask.next.b2 = self.byte_ones.val();
        }
        if self.s_axil_wstrb.val().get_bit(3) {
            self.byte_mask.next.b3 = self.byte_ones.val();
        }
        self.wmask.next = self.byte_mask.val().into();
        self.wr_any.next = false;
        self.wr_old.next = self.zero_word.val();
        self.wr_min.next = self.zero_word.val();
        self.wr_max.next = self.zero_word.val();
        // The decoders run only for an access (cheaper to simulate).
        if self.wr_fire.val() {
            for i in 0..N_STORED {
                if self.s_axil_awaddr.val() == self.stored_addr[i].val() {
                    self.wr_any.next = true;
                    self.wr_old.next = self.regs_q.q.val().get_bits::<32>(32 * i);
                    self.wr_min.next = self.stored_min[i].val();
                    self.wr_max.next = self.stored_max[i].val();
                }
            }
        }
        self.wr_value.next = (self.wr_old.val() & !self.wmask.val()) | (self.s_axil_wdata.val() & self.wmask.val());
        self.wr_ok.next =
            self.wr_any.val() & (self.wr_value.val() >= self.wr_min.val()) & (self.wr_value.val() <= self.wr_max.val());
        self.value_word.next.word = self.wr_value.val();
        self.value_word.next.zero = self.zero_bus_hi.val();
        self.value_wide.next = self.value_word.val().into();

        // Read: a constant, a stored register (write-only ones read 0) or a
        // hardware register.
        self.rd_ok.next = false;
        self.rd_value.next = self.zero_word.val();
        if self.rd_fire.val() {
            for k in 0..N_CONST {
                if self.s_axil_araddr.val() == self.const_addr[k].val() {
                    self.rd_ok.next = true;
                    self.rd_value.next = self.const_value[k].val();
                }
            }
            for i in 0..N_STORED {
                if self.s_axil_araddr.val() == self.stored_addr[i].val() {
                    self.rd_ok.next = true;
                    if !self.stored_wo[i].val() {
                        self.rd_value.next = self.regs_q.q.val().get_bits::<32>(32 * i);
                    }
                }
            }
            for j in 0..N_HARDWARE {
                if self.s_axil_araddr.val() == self.hw_addr[j].val() {
                    self.rd_ok.next = true;
                    self.rd_value.next = self.hw.val().get_bits::<32>(32 * j);
                }
            }
        }

        if self.wr_fire.val() {
            self.bvalid.d.next = true;
            if self.wr_ok.val() {
                self.bresp.d.next = self.okay.val();
            } else {
                self.bresp.d.next = self.slverr.val();
            }
        } else if self.s_axil_bready.val() {
            self.bvalid.d.next = false;
        }
        if self.rd_fire.val() {
            self.rvalid.d.next = true;
            if self.rd_ok.val() {
                self.rresp.d.next = self.okay.val();
            } else {
                self.rresp.d.next = self.slverr.val();
            }
            self.rdata.d.next = self.rd_value.val();
        } else if self.s_axil_rready.val() {
            self.rvalid.d.next = false;
        }
        self.strobe_q.d.next = self.zero_strobe.val();
        if self.wr_fire.val() & self.wr_ok.val() {
            for i in 0..N_STORED {
                if self.s_axil_awaddr.val() == self.stored_addr[i].val() {
                    self.regs_q.d.next = (self.regs_q.q.val() & !(self.word_mask.val() << self.stored_offset[i].val()))
                        | (self.value_wide.val() << self.stored_offset[i].val());
                    self.strobe_q.d.next = self.stored_strobe[i].val();
                }
            }
        }

        if self.reset.val() {
            self.bvalid.d.next = false;
            self.bresp.d.next = self.okay.val();
            self.rvalid.d.next = false;
            self.rresp.d.next = self.okay.val();
            self.rdata.d.next = self.zero_word.val();
            self.strobe_q.d.next = self.zero_strobe.val();
            self.regs_q.d.next = self.regs_reset.val();
        }
        self.s_axil_awready.next = self.wr_fire.val();
        self.s_axil_wready.next = self.wr_fire.val();
        self.s_axil_bvalid.next = self.bvalid.q.val();
        self.s_axil_bresp.next = self.bresp.q.val();
        self.s_axil_arready.next = self.rd_fire.val();
        self.s_axil_rvalid.next = self.rvalid.q.val();
        self.s_axil_rresp.next = self.rresp.q.val();
        self.s_axil_rdata.next = self.rdata.q.val();
        self.regs.next = self.regs_q.q.val();
        self.strobe.next = self.strobe_q.q.val();
    }
}
