//! `csr`: the AXI-Lite register file, generated from the register map in
//! `ferroce_proto::regs` (same offsets, access types, reset values and
//! ranges), built per preset: the `engine_info` constants and the ranges
//! bounded by the build's sizes come from its `EngineConfig`.
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `s_axil_*`: AXI-Lite slave, 16-bit byte address, 32-bit data, one
//!   outstanding write and one outstanding read. A write is taken when
//!   `awvalid` and `wvalid` are both high (`awready`/`wready` answer in the
//!   same cycle), its response follows two cycles later; a read's answer
//!   follows two cycles after `arvalid` is taken (not in the cycle after a
//!   write is taken: a read taken then would meet the write in the RAM).
//!   Unmapped or misaligned
//!   addresses, writes to read-only registers and writes that would leave a
//!   register outside its range (`Register::range`, judged on the value
//!   after `wstrb`) answer SLVERR and change nothing; write-only registers
//!   read as 0. `wstrb` enables bytes. Nothing is taken during the
//!   `N_STORED`-cycle sweep after reset.
//! * `regs` (out): every RW and WO register, register i of
//!   `ferroce_proto::regs::stored()` at bits 32i..32i+31; `strobe` (out): bit
//!   i pulses for one cycle after register i is written.
//! * `pulses` (out): the self-clearing bits (`Register::pulse`) a write
//!   set, in the cycle its `strobe` bit pulses; they are never stored (the
//!   register reads them as 0).
//! * `hw` (in): every hardware-set RO register, register j of
//!   `ferroce_proto::regs::hardware()` at bits 32j..32j+31.
//!
//! The decoder is loops over tables of `Constant`s built from the map:
//! the stored registers (address, index, range, write-only, reset value),
//! the hardware registers (address) and the constants (block headers:
//! type, version, next; the `Const` registers). An address is decoded to a
//! stored register's index; the stored registers live twice: in flip-flops
//! (the `regs` bus) and, for the host's reads, in two small RAMs indexed
//! by register (one read by writes, for the old value that `wstrb` merges
//! into; one read by reads), so that no access selects one register out of
//! the whole bus in logic (that selection, twice over 46 registers, was
//! most of the block's logic). A write reads the old value, then merges
//! the byte lanes, checks the value against the register's range and
//! writes the flip-flops and both RAMs; a read reads the RAM (or selects a
//! hardware register or a constant), then answers. After reset a sweep
//! writes every register's reset value into the RAMs.

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
/// Bits of a stored register's index.
pub const IDX_BITS: usize = crate::blocks::index_bits(N_STORED);
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
    pub pulses: Signal<Out, Bits<32>>,
    regs_q: DFF<Bits<STORED_BITS>>,
    pulses_q: DFF<Bits<32>>,
    /// The written register's self-clearing bits.
    w_pulse: DFF<Bits<32>>,
    wr_pulse: Signal<Local, Bits<32>>,
    wr_kept: Signal<Local, Bits<32>>,
    strobe_q: DFF<Bits<N_STORED>>,
    bvalid: DFF<bool>,
    bresp: DFF<Bits<2>>,
    rvalid: DFF<bool>,
    rresp: DFF<Bits<2>>,
    rdata: DFF<Bits<32>>,
    /// The stored registers by index: read by writes (the old value) and
    /// by reads.
    shadow_w: RAM<Bits<32>, IDX_BITS>,
    shadow_r: RAM<Bits<32>, IDX_BITS>,
    /// The sweep after reset writing the reset values into both RAMs.
    sweep: DFF<bool>,
    sweep_idx: DFF<Bits<IDX_BITS>>,
    sweep_value: Signal<Local, Bits<32>>,
    /// A write taken last cycle: its register, whether the address names a
    /// stored register, its range, data and byte mask.
    w_pend: DFF<bool>,
    w_idx: DFF<Bits<IDX_BITS>>,
    w_hit: DFF<bool>,
    w_min: DFF<Bits<32>>,
    w_max: DFF<Bits<32>>,
    w_data: DFF<Bits<32>>,
    w_mask: DFF<Bits<32>>,
    /// A read taken last cycle: whether it reads the RAM, its answer
    /// otherwise, and whether the address is mapped.
    r_pend: DFF<bool>,
    r_ram: DFF<bool>,
    r_other: DFF<Bits<32>>,
    r_ok: DFF<bool>,
    wr_fire: Signal<Local, bool>,
    rd_fire: Signal<Local, bool>,
    byte_mask: Signal<Local, ByteMask>,
    wr_any: Signal<Local, bool>,
    wr_idx: Signal<Local, Bits<IDX_BITS>>,
    wr_min: Signal<Local, Bits<32>>,
    wr_max: Signal<Local, Bits<32>>,
    wr_value: Signal<Local, Bits<32>>,
    wr_ok: Signal<Local, bool>,
    value_word: Signal<Local, BusWord>,
    value_wide: Signal<Local, Bits<STORED_BITS>>,
    rd_ok: Signal<Local, bool>,
    rd_ram: Signal<Local, bool>,
    rd_idx: Signal<Local, Bits<IDX_BITS>>,
    rd_value: Signal<Local, Bits<32>>,
    /// Stored registers: address, range, write-only (reads 0), offset on
    /// the bus, strobe bit.
    #[constants(|i: usize| regs::stored()[i].0 as u64)]
    stored_addr: [Constant<Bits<ADDR_BITS>>; N_STORED],
    #[constants(|i: usize| i as u64)]
    stored_idx: [Constant<Bits<IDX_BITS>>; N_STORED],
    #[constants(|i: usize| stored(i).reset as u64)]
    stored_reset: [Constant<Bits<32>>; N_STORED],
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
    #[constants(|i: usize| stored(i).pulse as u64)]
    stored_pulse: [Constant<Bits<32>>; N_STORED],
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
    #[constant(0u64)]
    zero_idx: Constant<Bits<IDX_BITS>>,
    #[constant(1u64)]
    one_idx: Constant<Bits<IDX_BITS>>,
    #[constant((N_STORED - 1) as u64)]
    last_idx: Constant<Bits<IDX_BITS>>,
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
        dff_setup!(
            self, clock, regs_q, strobe_q, bvalid, bresp, rvalid, rresp, rdata, sweep, sweep_idx, w_pend, w_idx, w_hit,
            w_min, w_max, w_data, w_mask, r_pend, r_ram, r_other, r_ok, pulses_q, w_pulse
        );
        self.shadow_w.read_clock.next = self.clock.val();
        self.shadow_w.write_clock.next = self.clock.val();
        self.shadow_r.read_clock.next = self.clock.val();
        self.shadow_r.write_clock.next = self.clock.val();
        self.wr_fire.next = self.s_axil_awvalid.val()
            & self.s_axil_wvalid.val()
            & !self.bvalid.q.val()
            & !self.w_pend.q.val()
            & !self.sweep.q.val();
        // A read is not taken while a write's second cycle writes the RAMs:
        // its read of `shadow_r` would meet that write (undefined, see
        // docs/rtl.md); a cycle later it reads the new value.
        self.rd_fire.next = self.s_axil_arvalid.val()
            & !self.rvalid.q.val()
            & !self.r_pend.q.val()
            & !self.sweep.q.val()
            & !self.w_pend.q.val();

        // Write, first cycle: the stored register at awaddr (its index, to
        // read its old value), its range, the data and the byte mask.
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
        self.wr_any.next = false;
        self.wr_idx.next = self.zero_idx.val();
        self.wr_min.next = self.zero_word.val();
        self.wr_max.next = self.zero_word.val();
        self.wr_pulse.next = self.zero_word.val();
        for i in 0..N_STORED {
            if self.s_axil_awaddr.val() == self.stored_addr[i].val() {
                self.wr_any.next = true;
                self.wr_idx.next = self.stored_idx[i].val();
                self.wr_min.next = self.stored_min[i].val();
                self.wr_max.next = self.stored_max[i].val();
                self.wr_pulse.next = self.stored_pulse[i].val();
            }
        }
        self.shadow_w.read_address.next = self.wr_idx.val();
        if self.wr_fire.val() {
            self.w_pend.d.next = true;
            self.w_idx.d.next = self.wr_idx.val();
            self.w_hit.d.next = self.wr_any.val();
            self.w_min.d.next = self.wr_min.val();
            self.w_max.d.next = self.wr_max.val();
            self.w_data.d.next = self.s_axil_wdata.val();
            self.w_mask.d.next = self.byte_mask.val().into();
            self.w_pulse.d.next = self.wr_pulse.val();
        } else {
            self.w_pend.d.next = false;
        }

        // Write, second cycle: the bytes merged into the old value, the
        // range checked, the flip-flops and both RAMs written.
        self.wr_value.next =
            (self.shadow_w.read_data.val() & !self.w_mask.q.val()) | (self.w_data.q.val() & self.w_mask.q.val());
        self.wr_ok.next = self.w_hit.q.val()
            & (self.wr_value.val() >= self.w_min.q.val())
            & (self.wr_value.val() <= self.w_max.q.val());
        // Self-clearing bits act (`pulses`) and are not kept.
        self.wr_kept.next = self.wr_value.val() & !self.w_pulse.q.val();
        self.value_word.next.word = self.wr_kept.val();
        self.value_word.next.zero = self.zero_bus_hi.val();
        self.value_wide.next = self.value_word.val().into();
        self.shadow_w.write_address.next = self.w_idx.q.val();
        self.shadow_w.write_data.next = self.wr_kept.val();
        self.shadow_w.write_enable.next = self.w_pend.q.val() & self.wr_ok.val();
        self.shadow_r.write_address.next = self.w_idx.q.val();
        self.shadow_r.write_data.next = self.wr_kept.val();
        self.shadow_r.write_enable.next = self.w_pend.q.val() & self.wr_ok.val();

        // The sweep after reset: every register's reset value into the
        // RAMs, one a cycle.
        self.sweep_value.next = self.zero_word.val();
        for i in 0..N_STORED {
            if self.sweep_idx.q.val() == self.stored_idx[i].val() {
                self.sweep_value.next = self.stored_reset[i].val();
            }
        }
        if self.sweep.q.val() {
            self.shadow_w.write_address.next = self.sweep_idx.q.val();
            self.shadow_w.write_data.next = self.sweep_value.val();
            self.shadow_w.write_enable.next = true;
            self.shadow_r.write_address.next = self.sweep_idx.q.val();
            self.shadow_r.write_data.next = self.sweep_value.val();
            self.shadow_r.write_enable.next = true;
            self.sweep_idx.d.next = self.sweep_idx.q.val() + self.one_idx.val();
            if self.sweep_idx.q.val() == self.last_idx.val() {
                self.sweep.d.next = false;
            }
        }

        // Read, first cycle: a stored register is read from its RAM (write-
        // only ones read 0); a hardware register or a constant is selected.
        self.rd_ok.next = false;
        self.rd_ram.next = false;
        self.rd_idx.next = self.zero_idx.val();
        // A constant or a hardware register: every address is one
        // register's, so at most one hits, and the value is the OR of the
        // hit ones, accumulated in `rd_value` as `Crc32Bytes` builds its next
        // state bit by bit (an AND-OR; a chain of multiplexers, which
        // synthesis cannot know to be one-hot, costs a LUT per bit and
        // register).
        self.rd_value.next = self.zero_word.val();
        for k in 0..N_CONST {
            if self.s_axil_araddr.val() == self.const_addr[k].val() {
                self.rd_ok.next = true;
                self.rd_value.next = self.rd_value.val() | self.const_value[k].val();
            }
        }
        for i in 0..N_STORED {
            if self.s_axil_araddr.val() == self.stored_addr[i].val() {
                self.rd_ok.next = true;
                self.rd_idx.next = self.stored_idx[i].val();
                self.rd_ram.next = !self.stored_wo[i].val();
            }
        }
        // The hardware registers are selected only for an access (cheaper
        // to simulate).
        if self.rd_fire.val() {
            for j in 0..N_HARDWARE {
                if self.s_axil_araddr.val() == self.hw_addr[j].val() {
                    self.rd_ok.next = true;
                    self.rd_value.next = self.rd_value.val() | self.hw.val().get_bits::<32>(32 * j);
                }
            }
        }
        self.shadow_r.read_address.next = self.rd_idx.val();
        if self.rd_fire.val() {
            self.r_pend.d.next = true;
            self.r_ram.d.next = self.rd_ram.val();
            self.r_other.d.next = self.rd_value.val();
            self.r_ok.d.next = self.rd_ok.val();
        } else {
            self.r_pend.d.next = false;
        }

        if self.w_pend.q.val() {
            self.bvalid.d.next = true;
            if self.wr_ok.val() {
                self.bresp.d.next = self.okay.val();
            } else {
                self.bresp.d.next = self.slverr.val();
            }
        } else if self.s_axil_bready.val() {
            self.bvalid.d.next = false;
        }
        if self.r_pend.q.val() {
            self.rvalid.d.next = true;
            if self.r_ok.q.val() {
                self.rresp.d.next = self.okay.val();
            } else {
                self.rresp.d.next = self.slverr.val();
            }
            if self.r_ram.q.val() {
                self.rdata.d.next = self.shadow_r.read_data.val();
            } else {
                self.rdata.d.next = self.r_other.q.val();
            }
        } else if self.s_axil_rready.val() {
            self.rvalid.d.next = false;
        }
        self.strobe_q.d.next = self.zero_strobe.val();
        self.pulses_q.d.next = self.zero_word.val();
        if self.w_pend.q.val() & self.wr_ok.val() {
            self.pulses_q.d.next = self.wr_value.val() & self.w_pulse.q.val();
            for i in 0..N_STORED {
                if self.w_idx.q.val() == self.stored_idx[i].val() {
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
            self.pulses_q.d.next = self.zero_word.val();
            self.regs_q.d.next = self.regs_reset.val();
            self.sweep.d.next = true;
            self.sweep_idx.d.next = self.zero_idx.val();
            self.w_pend.d.next = false;
            self.r_pend.d.next = false;
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
        self.pulses.next = self.pulses_q.q.val();
    }
}
