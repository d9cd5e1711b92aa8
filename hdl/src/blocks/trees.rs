//! Trees over 256-bit vectors (one bit per PSN slot of a path's window):
//! lowest and highest set bit, population count and thermometer masks, and
//! a small register file.
//!
//! All are combinational blocks of `#[hdl_gen]` logic, log-depth with a
//! fan-in of at most 16 per level:
//! * [`FirstSet256`] / [`LastSet256`]: a 16-leaf tree picks the first (last)
//!   16-bit group with a set bit, a second one the bit inside that group
//!   (a part-select `v[base +: 16]`). Each 16-leaf tree ([`FirstSet16`],
//!   [`LastSet16`]) chooses its index by nested conditions on the ORs of
//!   its halves, so Verilator evaluates one root-to-leaf path instead of
//!   every node (a flat tree of 255 `if` nodes is a priority chain in
//!   Verilator's C++, about 5 x slower on traffic); synthesis builds the
//!   same balanced mux tree.
//! * [`Popcount256`]: three SWAR steps on the whole vector (2-, 4- and
//!   8-bit fields: no carry leaves a field), then an adder tree over the 32
//!   byte counts.
//! * [`Thermo256`]: `ge[i] = (i >= x)` in eight vector steps, carry-free
//!   (no comparator per bit, no variable shifter); [`Decode256`], the
//!   one-hot `1 << x`, likewise.
//!
//! Verilator cost: a shift of a wide vector by an amount that is not a
//! multiple of 32 moves every bit, a field of a packed struct at an
//! offset that is not a multiple of 32 likewise; both are avoided here
//! (steps on 32-bit words, then word-aligned halves).
//!
//! Circular ranges of slots come from two thermometers: `[a, b)` is
//! `ge(a) & !ge(b)` when `a <= b` and `ge(a) | !ge(b)` when it wraps.
//!
//! # Small state: register arrays
//!
//! rust-hdl's only memory with a variable index is `RAM` (registered
//! read); anything larger than about 16 entries belongs there. Smaller
//! arrays are DFFs written through a decoder and read through a mux loop,
//! which [`RegFile`] packages: one write port, one combinational read port.
//!
//! ```
//! use ferroce_hdl::blocks::trees::RegFile;
//! use ferroce_hdl::rust_hdl::prelude::*;
//!
//! /// 8 entries of 24 bits, index 3 bits.
//! let regs = RegFile::<Bits<24>, 3, 8>::default();
//! let v = ferroce_hdl::emit::verilog(regs);
//! assert!(v.contains("module top"));
//! ```
//!
//! In a block that needs several fields per entry or several write ports,
//! write the same pattern in its own `update()`: for each entry `i`,
//! `self.r[i].d.next = self.r[i].q.val()` then `if we & (wa == self.idx[i].val())
//! { self.r[i].d.next = wd }` (an array of `Constant` indices); read with
//! `out = r[0]` then `if ra == idx[i] { out = r[i] }` for `i` in `1..N`.

use rust_hdl::prelude::*;

use crate::blocks::{HdlDefault, HdlStruct};

/// Sixteen flags packed into a 16-bit word (flag `fi` at bit i): the input
/// of a 16-leaf tree built from per-group ORs (`#[hdl_gen]` has no
/// concatenation).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Flags16 {
    pub f0: bool,
    pub f1: bool,
    pub f2: bool,
    pub f3: bool,
    pub f4: bool,
    pub f5: bool,
    pub f6: bool,
    pub f7: bool,
    pub f8: bool,
    pub f9: bool,
    pub f10: bool,
    pub f11: bool,
    pub f12: bool,
    pub f13: bool,
    pub f14: bool,
    pub f15: bool,
}

/// An 8-bit slot index as its two 4-bit halves (group, bit in the group).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Slot {
    pub lo: Bits<4>,
    pub hi: Bits<4>,
}

/// Lowest set bit of a 16-bit vector: `any`, and its index `at` (15 when
/// none is set). Combinational.
#[derive(LogicBlock, HdlDefault)]
pub struct FirstSet16 {
    pub v: Signal<In, Bits<16>>,
    pub any: Signal<Out, bool>,
    pub at: Signal<Out, Bits<4>>,
    // p[i]: bits 2i..2i+1, q[i]: bits 4i..4i+3, h[i]: bits 8i..8i+7.
    p: [Signal<Local, bool>; 8],
    q: [Signal<Local, bool>; 4],
    h: [Signal<Local, bool>; 2],
    #[constants(|i: usize| i as u64)]
    leaf: [Constant<Bits<4>>; 16],
}

impl Logic for FirstSet16 {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..8 {
            self.p[i].next = self.v.val().get_bit(2 * i) | self.v.val().get_bit(2 * i + 1);
        }
        for i in 0..4 {
            self.q[i].next = self.p[2 * i].val() | self.p[2 * i + 1].val();
        }
        for i in 0..2 {
            self.h[i].next = self.q[2 * i].val() | self.q[2 * i + 1].val();
        }
        self.any.next = self.h[0].val() | self.h[1].val();
        if self.h[0].val() {
            if self.q[0].val() {
                if self.p[0].val() {
                    if self.v.val().get_bit(0) {
                        self.at.next = self.leaf[0].val();
                    } else {
                        self.at.next = self.leaf[1].val();
                    }
                } else if self.v.val().get_bit(2) {
                    self.at.next = self.leaf[2].val();
                } else {
                    self.at.next = self.leaf[3].val();
                }
            } else if self.p[2].val() {
                if self.v.val().get_bit(4) {
                    self.at.next = self.leaf[4].val();
                } else {
                    self.at.next = self.leaf[5].val();
                }
            } else if self.v.val().get_bit(6) {
                self.at.next = self.leaf[6].val();
            } else {
                self.at.next = self.leaf[7].val();
            }
        } else if self.q[2].val() {
            if self.p[4].val() {
                if self.v.val().get_bit(8) {
                    self.at.next = self.leaf[8].val();
                } else {
                    self.at.next = self.leaf[9].val();
                }
            } else if self.v.val().get_bit(10) {
                self.at.next = self.leaf[10].val();
            } else {
                self.at.next = self.leaf[11].val();
            }
        } else if self.p[6].val() {
            if self.v.val().get_bit(12) {
                self.at.next = self.leaf[12].val();
            } else {
                self.at.next = self.leaf[13].val();
            }
        } else if self.v.val().get_bit(14) {
            self.at.next = self.leaf[14].val();
        } else {
            self.at.next = self.leaf[15].val();
        }
    }
}

/// Highest set bit of a 16-bit vector: `any`, and its index `at` (0 when
/// none is set). Combinational.
#[derive(LogicBlock, HdlDefault)]
pub struct LastSet16 {
    pub v: Signal<In, Bits<16>>,
    pub any: Signal<Out, bool>,
    pub at: Signal<Out, Bits<4>>,
    p: [Signal<Local, bool>; 8],
    q: [Signal<Local, bool>; 4],
    h: [Signal<Local, bool>; 2],
    #[constants(|i: usize| i as u64)]
    leaf: [Constant<Bits<4>>; 16],
}

impl Logic for LastSet16 {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..8 {
            self.p[i].next = self.v.val().get_bit(2 * i) | self.v.val().get_bit(2 * i + 1);
        }
        for i in 0..4 {
            self.q[i].next = self.p[2 * i].val() | self.p[2 * i + 1].val();
        }
        for i in 0..2 {
            self.h[i].next = self.q[2 * i].val() | self.q[2 * i + 1].val();
        }
        self.any.next = self.h[0].val() | self.h[1].val();
        if self.h[1].val() {
            if self.q[3].val() {
                if self.p[7].val() {
                    if self.v.val().get_bit(15) {
                        self.at.next = self.leaf[15].val();
                    } else {
                        self.at.next = self.leaf[14].val();
                    }
                } else if self.v.val().get_bit(13) {
                    self.at.next = self.leaf[13].val();
                } else {
                    self.at.next = self.leaf[12].val();
                }
            } else if self.p[5].val() {
                if self.v.val().get_bit(11) {
                    self.at.next = self.leaf[11].val();
                } else {
                    self.at.next = self.leaf[10].val();
                }
            } else if self.v.val().get_bit(9) {
                self.at.next = self.leaf[9].val();
            } else {
                self.at.next = self.leaf[8].val();
            }
        } else if self.q[1].val() {
            if self.p[3].val() {
                if self.v.val().get_bit(7) {
                    self.at.next = self.leaf[7].val();
                } else {
                    self.at.next = self.leaf[6].val();
                }
            } else if self.v.val().get_bit(5) {
                self.at.next = self.leaf[5].val();
            } else {
                self.at.next = self.leaf[4].val();
            }
        } else if self.p[1].val() {
            if self.v.val().get_bit(3) {
                self.at.next = self.leaf[3].val();
            } else {
                self.at.next = self.leaf[2].val();
            }
        } else if self.v.val().get_bit(1) {
            self.at.next = self.leaf[1].val();
        } else {
            self.at.next = self.leaf[0].val();
        }
    }
}

/// Lowest set bit of a 256-bit vector: `any`, and its index `at` (255 when
/// none is set). Combinational: the first non-empty 16-bit group, then the
/// first set bit inside it.
#[derive(LogicBlock, HdlDefault)]
pub struct FirstSet256 {
    pub v: Signal<In, Bits<256>>,
    pub any: Signal<Out, bool>,
    pub at: Signal<Out, Bits<8>>,
    group: FirstSet16,
    word: FirstSet16,
    groups: Signal<Local, Flags16>,
    base: Signal<Local, Slot>,
    // the chosen group's first bit: base as an index
    base_at: Signal<Local, Bits<8>>,
    slot: Signal<Local, Slot>,
    #[constant(0u64)]
    zero4: Constant<Bits<4>>,
}

impl Logic for FirstSet256 {
    #[hdl_gen]
    fn update(&mut self) {
        self.groups.next.f0 = self.v.val().get_bits::<16>(0).any();
        self.groups.next.f1 = self.v.val().get_bits::<16>(16).any();
        self.groups.next.f2 = self.v.val().get_bits::<16>(32).any();
        self.groups.next.f3 = self.v.val().get_bits::<16>(48).any();
        self.groups.next.f4 = self.v.val().get_bits::<16>(64).any();
        self.groups.next.f5 = self.v.val().get_bits::<16>(80).any();
        self.groups.next.f6 = self.v.val().get_bits::<16>(96).any();
        self.groups.next.f7 = self.v.val().get_bits::<16>(112).any();
        self.groups.next.f8 = self.v.val().get_bits::<16>(128).any();
        self.groups.next.f9 = self.v.val().get_bits::<16>(144).any();
        self.groups.next.f10 = self.v.val().get_bits::<16>(160).any();
        self.groups.next.f11 = self.v.val().get_bits::<16>(176).any();
        self.groups.next.f12 = self.v.val().get_bits::<16>(192).any();
        self.groups.next.f13 = self.v.val().get_bits::<16>(208).any();
        self.groups.next.f14 = self.v.val().get_bits::<16>(224).any();
        self.groups.next.f15 = self.v.val().get_bits::<16>(240).any();
        self.group.v.next = self.groups.val().into();
        self.base.next.hi = self.group.at.val();
        self.base.next.lo = self.zero4.val();
        self.base_at.next = self.base.val().into();
        self.word.v.next = self.v.val().get_bits::<16>(self.base_at.val().index());
        self.slot.next.hi = self.group.at.val();
        self.slot.next.lo = self.word.at.val();
        // (the word's `any` says the same as the group's; both are read so
        // that no output of the word tree is left unused)
        self.any.next = self.group.any.val() & self.word.any.val();
        self.at.next = self.slot.val().into();
    }
}

/// A 10-bit index as a quarter (the top two bits) and a slot in it.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Slot1024 {
    pub lo: Bits<8>,
    pub hi: Bits<2>,
}

/// Lowest set bit of a 1024-bit vector: `any`, and its index `at` (1023
/// when none is set). Combinational: a [`FirstSet256`] per quarter, the
/// first quarter with a set bit.
#[derive(LogicBlock, HdlDefault)]
pub struct FirstSet1024 {
    pub v: Signal<In, Bits<1024>>,
    pub any: Signal<Out, bool>,
    pub at: Signal<Out, Bits<10>>,
    quarter: [FirstSet256; 4],
    slot: Signal<Local, Slot1024>,
    #[constants(|i: usize| i as u64)]
    which: [Constant<Bits<2>>; 4],
}

impl Logic for FirstSet1024 {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..4 {
            self.quarter[i].v.next = self.v.val().get_bits::<256>(256 * i);
        }
        self.slot.next.hi = self.which[3].val();
        self.slot.next.lo = self.quarter[3].at.val();
        if self.quarter[2].any.val() {
            self.slot.next.hi = self.which[2].val();
            self.slot.next.lo = self.quarter[2].at.val();
        }
        if self.quarter[1].any.val() {
            self.slot.next.hi = self.which[1].val();
            self.slot.next.lo = self.quarter[1].at.val();
        }
        if self.quarter[0].any.val() {
            self.slot.next.hi = self.which[0].val();
            self.slot.next.lo = self.quarter[0].at.val();
        }
        self.any.next = self.quarter[0].any.val()
            | self.quarter[1].any.val()
            | self.quarter[2].any.val()
            | self.quarter[3].any.val();
        self.at.next = self.slot.val().into();
    }
}

/// Highest set bit of a 256-bit vector: `any`, and its index `at` (0 when
/// none is set). Combinational, as [`FirstSet256`] from the top.
#[derive(LogicBlock, HdlDefault)]
pub struct LastSet256 {
    pub v: Signal<In, Bits<256>>,
    pub any: Signal<Out, bool>,
    pub at: Signal<Out, Bits<8>>,
    group: LastSet16,
    word: LastSet16,
    groups: Signal<Local, Flags16>,
    base: Signal<Local, Slot>,
    // the chosen group's first bit: base as an index
    base_at: Signal<Local, Bits<8>>,
    slot: Signal<Local, Slot>,
    #[constant(0u64)]
    zero4: Constant<Bits<4>>,
}

impl Logic for LastSet256 {
    #[hdl_gen]
    fn update(&mut self) {
        self.groups.next.f0 = self.v.val().get_bits::<16>(0).any();
        self.groups.next.f1 = self.v.val().get_bits::<16>(16).any();
        self.groups.next.f2 = self.v.val().get_bits::<16>(32).any();
        self.groups.next.f3 = self.v.val().get_bits::<16>(48).any();
        self.groups.next.f4 = self.v.val().get_bits::<16>(64).any();
        self.groups.next.f5 = self.v.val().get_bits::<16>(80).any();
        self.groups.next.f6 = self.v.val().get_bits::<16>(96).any();
        self.groups.next.f7 = self.v.val().get_bits::<16>(112).any();
        self.groups.next.f8 = self.v.val().get_bits::<16>(128).any();
        self.groups.next.f9 = self.v.val().get_bits::<16>(144).any();
        self.groups.next.f10 = self.v.val().get_bits::<16>(160).any();
        self.groups.next.f11 = self.v.val().get_bits::<16>(176).any();
        self.groups.next.f12 = self.v.val().get_bits::<16>(192).any();
        self.groups.next.f13 = self.v.val().get_bits::<16>(208).any();
        self.groups.next.f14 = self.v.val().get_bits::<16>(224).any();
        self.groups.next.f15 = self.v.val().get_bits::<16>(240).any();
        self.group.v.next = self.groups.val().into();
        self.base.next.hi = self.group.at.val();
        self.base.next.lo = self.zero4.val();
        self.base_at.next = self.base.val().into();
        self.word.v.next = self.v.val().get_bits::<16>(self.base_at.val().index());
        self.slot.next.hi = self.group.at.val();
        self.slot.next.lo = self.word.at.val();
        // (the word's `any` says the same as the group's; both are read so
        // that no output of the word tree is left unused)
        self.any.next = self.group.any.val() & self.word.any.val();
        self.at.next = self.slot.val().into();
    }
}

/// Population count of a 256-bit vector (0..=256). Combinational.
#[derive(LogicBlock, HdlDefault)]
pub struct Popcount256 {
    pub v: Signal<In, Bits<256>>,
    pub count: Signal<Out, Bits<9>>,
    // Whole-vector steps: 2-, 4- and 8-bit fields each holding the count
    // of their bits (at most 8 in a byte: no carry crosses a field).
    c2: Signal<Local, Bits<256>>,
    c4: Signal<Local, Bits<256>>,
    c8: Signal<Local, Bits<256>>,
    // The adder tree over the 16 counts of byte pairs.
    s16: [Signal<Local, Bits<9>>; 16],
    s8: [Signal<Local, Bits<9>>; 8],
    s4: [Signal<Local, Bits<9>>; 4],
    s2: [Signal<Local, Bits<9>>; 2],
    #[constant(every_byte(0x55))]
    m1: Constant<Bits<256>>,
    #[constant(every_byte(0x33))]
    m2: Constant<Bits<256>>,
    #[constant(every_byte(0x0f))]
    m4: Constant<Bits<256>>,
    // a byte's count (at most 8) read as 9 bits
    #[constant(0xfu64)]
    nibble: Constant<Bits<9>>,
}

/// `byte` in every byte of a 256-bit vector.
fn every_byte(byte: u8) -> Bits<256> {
    let mut b = Bits::<256>::default();
    for i in 0..32 {
        b.set_bits::<8>(8 * i, (byte as u64).into());
    }
    b
}

impl Logic for Popcount256 {
    #[hdl_gen]
    fn update(&mut self) {
        self.c2.next = (self.v.val() & self.m1.val()) + ((self.v.val() >> 1_u64) & self.m1.val());
        self.c4.next = (self.c2.val() & self.m2.val()) + ((self.c2.val() >> 2_u64) & self.m2.val());
        self.c8.next = (self.c4.val() & self.m4.val()) + ((self.c4.val() >> 4_u64) & self.m4.val());
        for i in 0..15 {
            self.s16[i].next = (self.c8.val().get_bits::<9>(16 * i) & self.nibble.val())
                + (self.c8.val().get_bits::<9>(16 * i + 8) & self.nibble.val());
        }
        // the last byte read as the top 9 bits, shifted into place
        self.s16[15].next = (self.c8.val().get_bits::<9>(240) & self.nibble.val())
            + ((self.c8.val().get_bits::<9>(247) >> 1_u64) & self.nibble.val());
        for i in 0..8 {
            self.s8[i].next = self.s16[2 * i].val() + self.s16[2 * i + 1].val();
        }
        for i in 0..4 {
            self.s4[i].next = self.s8[2 * i].val() + self.s8[2 * i + 1].val();
        }
        for i in 0..2 {
            self.s2[i].next = self.s4[2 * i].val() + self.s4[2 * i + 1].val();
        }
        self.count.next = self.s2[0].val() + self.s2[1].val();
    }
}

/// A 64-bit vector as two 32-bit halves.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Halves32 {
    pub lo: Bits<32>,
    pub hi: Bits<32>,
}

/// A 128-bit vector as two 64-bit halves.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Halves64 {
    pub lo: Bits<64>,
    pub hi: Bits<64>,
}

/// A 256-bit vector as two 128-bit halves.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Halves128 {
    pub lo: Bits<128>,
    pub hi: Bits<128>,
}

/// Thermometer mask: `ge` bit i is set iff `i >= x`. Combinational.
///
/// Step j answers for the low j bits of x over slots [0, 2^j): with
/// h = 2^(j-1), `t_j = x[j-1] ? t_{j-1} << h : t_{j-1} | ones[h, 2h)`.
/// The first five steps work on 32 bits; the last three place the
/// previous step in one half of a twice as wide vector (word-aligned
/// halves: Verilator copies words where a wide shift by 1..16 would move
/// every bit).
#[derive(LogicBlock, HdlDefault)]
pub struct Thermo256 {
    pub x: Signal<In, Bits<8>>,
    pub ge: Signal<Out, Bits<256>>,
    t1: Signal<Local, Bits<32>>,
    t2: Signal<Local, Bits<32>>,
    t3: Signal<Local, Bits<32>>,
    t4: Signal<Local, Bits<32>>,
    t5: Signal<Local, Bits<32>>,
    t6: Signal<Local, Halves32>,
    t7: Signal<Local, Halves64>,
    t8: Signal<Local, Halves128>,
    #[constant(1u64)]
    one: Constant<Bits<32>>,
    // upper[j]: ones in [2^j, 2^(j+1))
    #[constants(|j: usize| upper_half(j))]
    upper: [Constant<Bits<32>>; 5],
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
    #[constant(u32::MAX as u64)]
    ones32: Constant<Bits<32>>,
    #[constant(0u64)]
    zero64: Constant<Bits<64>>,
    #[constant(u64::MAX)]
    ones64: Constant<Bits<64>>,
    #[constant(0u64)]
    zero128: Constant<Bits<128>>,
    #[constant(!Bits::<128>::default())]
    ones128: Constant<Bits<128>>,
}

/// Ones in [2^j, 2^(j+1)) of a 32-bit word (j < 5).
fn upper_half(j: usize) -> Bits<32> {
    let ones = |n: u32| if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
    ((ones(2 << j) & !ones(1 << j)) as u64).into()
}

impl Logic for Thermo256 {
    #[hdl_gen]
    fn update(&mut self) {
        if self.x.val().get_bit(0) {
            self.t1.next = self.one.val() << 1_u64;
        } else {
            self.t1.next = self.one.val() | self.upper[0].val();
        }
        if self.x.val().get_bit(1) {
            self.t2.next = self.t1.val() << 2_u64;
        } else {
            self.t2.next = self.t1.val() | self.upper[1].val();
        }
        if self.x.val().get_bit(2) {
            self.t3.next = self.t2.val() << 4_u64;
        } else {
            self.t3.next = self.t2.val() | self.upper[2].val();
        }
        if self.x.val().get_bit(3) {
            self.t4.next = self.t3.val() << 8_u64;
        } else {
            self.t4.next = self.t3.val() | self.upper[3].val();
        }
        if self.x.val().get_bit(4) {
            self.t5.next = self.t4.val() << 16_u64;
        } else {
            self.t5.next = self.t4.val() | self.upper[4].val();
        }
        if self.x.val().get_bit(5) {
            self.t6.next.lo = self.zero32.val();
            self.t6.next.hi = self.t5.val();
        } else {
            self.t6.next.lo = self.t5.val();
            self.t6.next.hi = self.ones32.val();
        }
        if self.x.val().get_bit(6) {
            self.t7.next.lo = self.zero64.val();
            self.t7.next.hi = self.t6.val().into();
        } else {
            self.t7.next.lo = self.t6.val().into();
            self.t7.next.hi = self.ones64.val();
        }
        if self.x.val().get_bit(7) {
            self.t8.next.lo = self.zero128.val();
            self.t8.next.hi = self.t7.val().into();
        } else {
            self.t8.next.lo = self.t7.val().into();
            self.t8.next.hi = self.ones128.val();
        }
        self.ge.next = self.t8.val().into();
    }
}

/// One-hot decoder: `hot` has only bit `x` set. Combinational; built as
/// [`Thermo256`] (no 256-bit variable shift).
#[derive(LogicBlock, HdlDefault)]
pub struct Decode256 {
    pub x: Signal<In, Bits<8>>,
    pub hot: Signal<Out, Bits<256>>,
    d1: Signal<Local, Bits<32>>,
    d2: Signal<Local, Bits<32>>,
    d3: Signal<Local, Bits<32>>,
    d4: Signal<Local, Bits<32>>,
    d5: Signal<Local, Bits<32>>,
    d6: Signal<Local, Halves32>,
    d7: Signal<Local, Halves64>,
    d8: Signal<Local, Halves128>,
    #[constant(1u64)]
    one: Constant<Bits<32>>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
    #[constant(0u64)]
    zero64: Constant<Bits<64>>,
    #[constant(0u64)]
    zero128: Constant<Bits<128>>,
}

impl Logic for Decode256 {
    #[hdl_gen]
    fn update(&mut self) {
        if self.x.val().get_bit(0) {
            self.d1.next = self.one.val() << 1_u64;
        } else {
            self.d1.next = self.one.val();
        }
        if self.x.val().get_bit(1) {
            self.d2.next = self.d1.val() << 2_u64;
        } else {
            self.d2.next = self.d1.val();
        }
        if self.x.val().get_bit(2) {
            self.d3.next = self.d2.val() << 4_u64;
        } else {
            self.d3.next = self.d2.val();
        }
        if self.x.val().get_bit(3) {
            self.d4.next = self.d3.val() << 8_u64;
        } else {
            self.d4.next = self.d3.val();
        }
        if self.x.val().get_bit(4) {
            self.d5.next = self.d4.val() << 16_u64;
        } else {
            self.d5.next = self.d4.val();
        }
        if self.x.val().get_bit(5) {
            self.d6.next.lo = self.zero32.val();
            self.d6.next.hi = self.d5.val();
        } else {
            self.d6.next.lo = self.d5.val();
            self.d6.next.hi = self.zero32.val();
        }
        if self.x.val().get_bit(6) {
            self.d7.next.lo = self.zero64.val();
            self.d7.next.hi = self.d6.val().into();
        } else {
            self.d7.next.lo = self.d6.val().into();
            self.d7.next.hi = self.zero64.val();
        }
        if self.x.val().get_bit(7) {
            self.d8.next.lo = self.zero128.val();
            self.d8.next.hi = self.d7.val().into();
        } else {
            self.d8.next.lo = self.d7.val().into();
            self.d8.next.hi = self.zero128.val();
        }
        self.hot.next = self.d8.val().into();
    }
}

/// N registers of type T (N <= 2^A), one write port and one combinational
/// read port; cleared by a synchronous `reset`.
///
/// * `wr_enable`, `wr_index`, `wr_data`: written at the clock edge;
/// * `rd_index` -> `rd_data`: the register's current value (a write shows
///   the cycle after); an index >= N reads entry 0.
#[derive(LogicBlock)]
pub struct RegFile<T: Synth, const A: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub wr_enable: Signal<In, bool>,
    pub wr_index: Signal<In, Bits<A>>,
    pub wr_data: Signal<In, T>,
    pub rd_index: Signal<In, Bits<A>>,
    pub rd_data: Signal<Out, T>,
    regs: [DFF<T>; N],
    index: [Constant<Bits<A>>; N],
    zero: Constant<T>,
}

impl<T: Synth, const A: usize, const N: usize> Default for RegFile<T, A, N> {
    fn default() -> Self {
        assert!(N >= 1 && N <= 1 << A, "RegFile: 1 ..= 2^A entries");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            wr_enable: Default::default(),
            wr_index: Default::default(),
            wr_data: Default::default(),
            rd_index: Default::default(),
            rd_data: Default::default(),
            regs: std::array::from_fn(|_| Default::default()),
            index: std::array::from_fn(|i| Constant::new((i as u64).into())),
            zero: Constant::new(T::default()),
        }
    }
}

impl<T: Synth, const A: usize, const N: usize> Logic for RegFile<T, A, N> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..N {
            self.regs[i].clock.next = self.clock.val();
            self.regs[i].d.next = self.regs[i].q.val();
            if self.wr_enable.val() & (self.wr_index.val() == self.index[i].val()) {
                self.regs[i].d.next = self.wr_data.val();
            }
            if self.reset.val() {
                self.regs[i].d.next = self.zero.val();
            }
        }
        self.rd_data.next = self.regs[0].q.val();
        for i in 1..N {
            if self.rd_index.val() == self.index[i].val() {
                self.rd_data.next = self.regs[i].q.val();
            }
        }
    }
}
