//! `stage_ring`: space in one of the DMA adapter's staging RAMs, handed out
//! as a ring and given back in the order it was taken.
//!
//! Each request of `len` bytes takes a contiguous region starting on a
//! [`ALIGN`]-byte boundary (the widest RAM word Corundum's DMA RAM
//! interface uses: 1024-bit segments at 512-bit PCIe), so a region never
//! shares a RAM word with another. A request that does not fit before the
//! end of the RAM starts again at 0 and is charged for the bytes it skips.
//! When the ring is empty it starts again at 0, so any request up to the
//! RAM's size fits an empty ring.
//!
//! * `len` -> `fits`, `addr`, `charge`: the region a request of `len` bytes
//!   would take now (combinational), and what it counts against the RAM.
//! * `take`: take that region (only when `fits`).
//! * `free`, `free_charge`: give back the oldest region taken, by its
//!   charge.
//!
//! Ports: `clock`, `reset` (synchronous, active high: the ring is empty).

use rust_hdl::prelude::*;

use crate::blocks::{HdlDefault, HdlStruct};

/// Staging RAM address bits: 64 KiB each way.
pub const STAGE_BITS: usize = 16;
/// Bits of a charge: up to twice the RAM's size less one.
pub const CHARGE_BITS: usize = STAGE_BITS + 1;
/// Region alignment in bytes.
pub const ALIGN: u64 = 128;

/// A length at charge width.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Wide {
    pub lo: Bits<STAGE_BITS>,
    pub hi: bool,
}

/// The ring.
#[derive(LogicBlock, HdlDefault)]
pub struct StageRing {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub len: Signal<In, Bits<STAGE_BITS>>,
    pub fits: Signal<Out, bool>,
    pub addr: Signal<Out, Bits<STAGE_BITS>>,
    pub charge: Signal<Out, Bits<CHARGE_BITS>>,
    pub take: Signal<In, bool>,
    pub free: Signal<In, bool>,
    pub free_charge: Signal<In, Bits<CHARGE_BITS>>,

    /// Where the next region starts (when the ring is not empty).
    off: DFF<Bits<STAGE_BITS>>,
    /// Bytes charged and not yet given back.
    used: DFF<Bits<CHARGE_BITS>>,

    len_parts: Signal<Local, Wide>,
    len_wide: Signal<Local, Bits<CHARGE_BITS>>,
    need: Signal<Local, Bits<CHARGE_BITS>>,
    base: Signal<Local, Bits<STAGE_BITS>>,
    base_parts: Signal<Local, Wide>,
    base_wide: Signal<Local, Bits<CHARGE_BITS>>,
    room: Signal<Local, Bits<CHARGE_BITS>>,
    next_off: Signal<Local, Bits<STAGE_BITS>>,
    add: Signal<Local, Bits<CHARGE_BITS>>,
    sub: Signal<Local, Bits<CHARGE_BITS>>,

    #[constant(ALIGN - 1)]
    align_less_one: Constant<Bits<CHARGE_BITS>>,
    #[constant((1u64 << CHARGE_BITS) - ALIGN)]
    align_mask: Constant<Bits<CHARGE_BITS>>,
    #[constant(1u64 << STAGE_BITS)]
    size: Constant<Bits<CHARGE_BITS>>,
    #[constant(0u64)]
    zero: Constant<Bits<CHARGE_BITS>>,
    #[constant(0u64)]
    zero_addr: Constant<Bits<STAGE_BITS>>,
}

impl Logic for StageRing {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, off, used);
        self.len_parts.next.lo = self.len.val();
        self.len_parts.next.hi = false;
        self.len_wide.next = self.len_parts.val().into();
        self.need.next = (self.len_wide.val() + self.align_less_one.val()) & self.align_mask.val();
        if self.used.q.val() == self.zero.val() {
            self.base.next = self.zero_addr.val();
        } else {
            self.base.next = self.off.q.val();
        }
        self.base_parts.next.lo = self.base.val();
        self.base_parts.next.hi = false;
        self.base_wide.next = self.base_parts.val().into();
        self.room.next = self.size.val() - self.base_wide.val();
        if self.need.val() <= self.room.val() {
            self.addr.next = self.base.val();
            self.charge.next = self.need.val();
            self.next_off.next = self.base.val() + self.need.val().get_bits::<STAGE_BITS>(0);
        } else {
            self.addr.next = self.zero_addr.val();
            self.charge.next = self.room.val() + self.need.val();
            self.next_off.next = self.need.val().get_bits::<STAGE_BITS>(0);
        }
        self.fits.next = self.charge.val() <= self.size.val() - self.used.q.val();

        self.add.next = self.zero.val();
        if self.take.val() {
            self.add.next = self.charge.val();
            self.off.d.next = self.next_off.val();
        }
        self.sub.next = self.zero.val();
        if self.free.val() {
            self.sub.next = self.free_charge.val();
        }
        self.used.d.next = self.used.q.val() + self.add.val() - self.sub.val();
        if self.reset.val() {
            self.off.d.next = self.zero_addr.val();
            self.used.d.next = self.zero.val();
        }
    }
}
