//! The parallel CRC-32 of the ferroce trailer (`ferroce_proto::wire::crc32`),
//! as combinational rust-hdl blocks: [`Crc32Bytes`] takes a fixed number of
//! bytes a step, [`Crc32Step`] any count from 0 to 8. Each next-state bit is
//! the parity of the register and data bits under a mask computed from the
//! CRC's definition (`wire::crc32_step_masks`), not typed here.

use rust_hdl::prelude::*;

use ferroce_proto::wire::crc32_step_masks;

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

/// The register `crc` after the low `bytes` bytes (0-8) of `data`, byte 0
/// in bits 0-7. Combinational.
///
/// Eight bytes take one step; fewer take up to three, of 4, 2 and 1 bytes
/// as `bytes`' bits say, each from the last one's result and the data after
/// the bytes it took. One parity tree per bit for each of 8, 4, 2 and 1
/// bytes instead of one for each count from 1 to 8: on ECP5 the block was
/// about 2 000 LUT4 with a step per count.
#[derive(LogicBlock, HdlDefault)]
pub struct Crc32Step {
    pub crc: Signal<In, Bits<32>>,
    pub data: Signal<In, Bits<64>>,
    pub bytes: Signal<In, Bits<4>>,
    pub crc_next: Signal<Out, Bits<32>>,
    s8: Crc32Bytes<8>,
    // four, then two, then one: the register and the data left after each
    s4: Crc32Bytes<4>,
    c4: Signal<Local, Bits<32>>,
    d4: Signal<Local, Bits<64>>,
    s2: Crc32Bytes<2>,
    c2: Signal<Local, Bits<32>>,
    d2: Signal<Local, Bits<64>>,
    s1: Crc32Bytes<1>,
    c1: Signal<Local, Bits<32>>,
    #[constant(8u64)]
    eight: Constant<Bits<4>>,
    #[constant(32u64)]
    four_bytes: Constant<Bits<6>>,
    #[constant(16u64)]
    two_bytes: Constant<Bits<6>>,
}

impl Logic for Crc32Step {
    #[hdl_gen]
    fn update(&mut self) {
        self.s8.crc.next = self.crc.val();
        self.s8.data.next = self.data.val();
        // 4 bytes if bit 2 of the count is set
        self.s4.crc.next = self.crc.val();
        self.s4.data.next = self.data.val();
        self.c4.next = self.crc.val();
        self.d4.next = self.data.val();
        if self.bytes.val().get_bit(2) {
            self.c4.next = self.s4.crc_next.val();
            self.d4.next = self.data.val() >> self.four_bytes.val();
        }
        // then 2 if bit 1 is
        self.s2.crc.next = self.c4.val();
        self.s2.data.next = self.d4.val();
        self.c2.next = self.c4.val();
        self.d2.next = self.d4.val();
        if self.bytes.val().get_bit(1) {
            self.c2.next = self.s2.crc_next.val();
            self.d2.next = self.d4.val() >> self.two_bytes.val();
        }
        // then 1 if bit 0 is
        self.s1.crc.next = self.c2.val();
        self.s1.data.next = self.d2.val();
        self.c1.next = self.c2.val();
        if self.bytes.val().get_bit(0) {
            self.c1.next = self.s1.crc_next.val();
        }
        self.crc_next.next = self.c1.val();
        if self.bytes.val() == self.eight.val() {
            self.crc_next.next = self.s8.crc_next.val();
        }
    }
}
