//! The parallel CRC-32 of the ferroce trailer (`ferroce_proto::wire::crc32`),
//! as combinational rust-hdl blocks: [`Crc32Bytes`] takes a fixed number of
//! bytes a step, [`Crc32Step`] any count from 0 to 8. Each next-state bit is
//! the parity of the register and data bits under a mask computed from the
//! CRC's definition (`wire::crc32_step_masks`), not typed here.

use rust_hdl::prelude::*;

use ferroce_proto::wire::{crc32_register_before_zeros, crc32_step_masks};

use crate::blocks::{HdlDefault, HdlStruct};

/// The CRC register and a data word, as the equations of
/// [`crc32_step_masks`] see them.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct CrcIn {
    pub state: Bits<32>,
    pub data: Bits<64>,
}

/// The CRC-32 mask for `bytes` (1-8) bytes and next-state bit `bit`, over
/// [`CrcIn`].
fn crc_mask(bytes: usize, bit: usize) -> Bits<96> {
    let (sm, dm) = crc32_step_masks(bytes)[bit];
    Bits::<96>::from(sm as u64) | (Bits::<96>::from(dm) << 32)
}

/// The register `crc` after the low `N` bytes (1-8) of `data`, byte 0 in
/// bits 0-7. Combinational.
#[derive(LogicBlock, HdlDefault)]
pub struct Crc32Bytes<const N: usize> {
    pub crc: Signal<In, Bits<32>>,
    pub data: Signal<In, Bits<64>>,
    pub crc_next: Signal<Out, Bits<32>>,
    w: Signal<Local, CrcIn>,
    x: Signal<Local, Bits<96>>,
    /// Mask of next-state bit i.
    #[constants(|i: usize| crc_mask(N, i))]
    m: [Constant<Bits<96>>; 32],
    #[constants(|i: usize| 1u64 << i)]
    bit: [Constant<Bits<32>>; 32],
    #[constant(0u64)]
    zero: Constant<Bits<32>>,
}

impl<const N: usize> Logic for Crc32Bytes<N> {
    #[hdl_gen]
    fn update(&mut self) {
        self.w.next.state = self.crc.val();
        self.w.next.data = self.data.val();
        self.x.next = self.w.val().into();
        self.crc_next.next = self.zero.val();
        for i in 0..32 {
            if (self.x.val() & self.m[i].val()).xor() {
                self.crc_next.next = self.crc_next.val() | self.bit[i].val();
            }
        }
    }
}

/// Bit `bit` of the register that `zeros` zero bytes take to a given
/// register (the inverse of their step, which is one to one and linear): the
/// input bits whose parity it is.
fn unzero_mask(zeros: usize, bit: usize) -> Bits<32> {
    let m =
        (0..32).filter(|&j| crc32_register_before_zeros(1 << j, zeros) >> bit & 1 == 1).fold(0u64, |m, j| m | 1 << j);
    Bits::<32>::from(m)
}

/// The register that `N` zero bytes take to `crc`. Combinational.
#[derive(LogicBlock, HdlDefault)]
pub struct Crc32Unzero<const N: usize> {
    pub crc: Signal<In, Bits<32>>,
    pub crc_before: Signal<Out, Bits<32>>,
    #[constants(|i: usize| unzero_mask(N, i))]
    m: [Constant<Bits<32>>; 32],
    #[constants(|i: usize| 1u64 << i)]
    bit: [Constant<Bits<32>>; 32],
    #[constant(0u64)]
    zero: Constant<Bits<32>>,
}

impl<const N: usize> Logic for Crc32Unzero<N> {
    #[hdl_gen]
    fn update(&mut self) {
        self.crc_before.next = self.zero.val();
        for i in 0..32 {
            if (self.crc.val() & self.m[i].val()).xor() {
                self.crc_before.next = self.crc_before.val() | self.bit[i].val();
            }
        }
    }
}

/// The register `crc` after the low `bytes` (0-8) bytes of `data`, whose
/// lanes at and above `bytes` must be zero. Combinational: one 8-byte step
/// over the word, whose zero bytes past the end are then taken back
/// ([`Crc32Unzero`] by 4, 2 and 1 bytes as `8 - bytes` has them), instead of
/// steps of 4, 2 and 1 bytes of data after it: taking zeros back needs the
/// register's bits only, not the data's.
#[derive(LogicBlock, HdlDefault)]
pub struct Crc32Step {
    pub crc: Signal<In, Bits<32>>,
    pub data: Signal<In, Bits<64>>,
    pub bytes: Signal<In, Bits<4>>,
    pub crc_next: Signal<Out, Bits<32>>,
    s8: Crc32Bytes<8>,
    u4: Crc32Unzero<4>,
    u2: Crc32Unzero<2>,
    u1: Crc32Unzero<1>,
    zeros: Signal<Local, Bits<4>>,
    c4: Signal<Local, Bits<32>>,
    c2: Signal<Local, Bits<32>>,
    #[constant(8u64)]
    eight: Constant<Bits<4>>,
}

impl Logic for Crc32Step {
    #[hdl_gen]
    fn update(&mut self) {
        self.s8.crc.next = self.crc.val();
        self.s8.data.next = self.data.val();
        self.zeros.next = self.eight.val() - self.bytes.val();
        self.u4.crc.next = self.s8.crc_next.val();
        self.c4.next = self.s8.crc_next.val();
        if self.zeros.val().get_bit(2) {
            self.c4.next = self.u4.crc_before.val();
        }
        self.u2.crc.next = self.c4.val();
        self.c2.next = self.c4.val();
        if self.zeros.val().get_bit(1) {
            self.c2.next = self.u2.crc_before.val();
        }
        self.u1.crc.next = self.c2.val();
        self.crc_next.next = self.c2.val();
        if self.zeros.val().get_bit(0) {
            self.crc_next.next = self.u1.crc_before.val();
        }
        // No bytes: eight zeros in and out again.
        if self.zeros.val().get_bit(3) {
            self.crc_next.next = self.crc.val();
        }
    }
}
