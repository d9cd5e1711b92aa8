//! `dma_read`: the engine's DMA reads on Corundum's descriptor-driven DMA.
//!
//! The engine asks for `(addr, len)` and takes the bytes back as a stream,
//! in command order. Corundum's DMA reads host memory into a RAM of the
//! application's (`dma_psdpram`, written through `data_dma_ram_wr_cmd_*`)
//! when given a descriptor `{dma_addr, ram_sel, ram_addr, len, tag}`, and
//! reports each read's end with its tag and an error code, possibly out of
//! order; `dma_client_axis_source` streams a RAM region out on its own
//! descriptor `{ram_addr, len, tag}` and reports when it has read it.
//!
//! For each command this block takes a region of the staging RAM
//! ([`StageRing`]), a slot (the tag, up to [`SLOTS`] reads in flight) and
//! issues the read descriptor; once the read of the oldest slot not yet
//! streamed has ended it issues that slot's source descriptor, so the
//! engine gets its data in command order; the source's status gives the
//! region back. A read that ends with an error is still streamed (the
//! engine's read port has no error path) and is counted in `errors`.
//!
//! * `s_cmd_*`: the engine's `m_dma_rd_cmd_*`.
//! * `m_desc_*`, `s_status_*`: Corundum's `m_axis_data_dma_read_desc_*` and
//!   `s_axis_data_dma_read_desc_status_*` (RAM select 0).
//! * `m_src_*`, `s_src_status_valid`: `dma_client_axis_source`'s read
//!   descriptor and status.
//! * `errors`: reads that ended with a non-zero error code.
//!
//! Ports: `clock`, `reset` (synchronous, active high). A command is taken
//! in the cycle it is offered when a slot and room are free and the last
//! descriptor has gone; descriptors are registered.

use rust_hdl::prelude::*;

use crate::blocks::trees::RegFile;
use crate::blocks::{HdlDefault, HdlStruct};
use crate::corundum::stage_ring::{StageRing, CHARGE_BITS, STAGE_BITS};
use crate::corundum::{SLOTS, SLOT_BITS};

/// A slot's region: RAM address and length.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Region {
    pub ram_addr: Bits<STAGE_BITS>,
    pub len: Bits<16>,
}

/// The read side of the adapter.
#[derive(LogicBlock, HdlDefault)]
pub struct DmaRead {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s_cmd_valid: Signal<In, bool>,
    pub s_cmd_ready: Signal<Out, bool>,
    pub s_cmd_addr: Signal<In, Bits<64>>,
    pub s_cmd_len: Signal<In, Bits<16>>,
    pub m_desc_dma_addr: Signal<Out, Bits<64>>,
    pub m_desc_ram_addr: Signal<Out, Bits<STAGE_BITS>>,
    pub m_desc_len: Signal<Out, Bits<16>>,
    pub m_desc_tag: Signal<Out, Bits<SLOT_BITS>>,
    pub m_desc_valid: Signal<Out, bool>,
    pub m_desc_ready: Signal<In, bool>,
    pub s_status_tag: Signal<In, Bits<SLOT_BITS>>,
    pub s_status_error: Signal<In, Bits<4>>,
    pub s_status_valid: Signal<In, bool>,
    pub m_src_ram_addr: Signal<Out, Bits<STAGE_BITS>>,
    pub m_src_len: Signal<Out, Bits<16>>,
    pub m_src_tag: Signal<Out, Bits<SLOT_BITS>>,
    pub m_src_valid: Signal<Out, bool>,
    pub m_src_ready: Signal<In, bool>,
    pub s_src_status_valid: Signal<In, bool>,
    pub errors: Signal<Out, Bits<32>>,

    ring: StageRing,
    regions: RegFile<Region, SLOT_BITS, SLOTS>,
    charges: RegFile<Bits<CHARGE_BITS>, SLOT_BITS, SLOTS>,

    /// Slots taken, streamed and given back, counted with a wrap bit.
    head: DFF<Bits<{ SLOT_BITS + 1 }>>,
    stream: DFF<Bits<{ SLOT_BITS + 1 }>>,
    tail: DFF<Bits<{ SLOT_BITS + 1 }>>,
    /// Per slot: its read has ended.
    done: DFF<Bits<SLOTS>>,
    desc_valid: DFF<bool>,
    desc_dma_addr: DFF<Bits<64>>,
    desc_ram_addr: DFF<Bits<STAGE_BITS>>,
    desc_len: DFF<Bits<16>>,
    desc_tag: DFF<Bits<SLOT_BITS>>,
    src_valid: DFF<bool>,
    src_ram_addr: DFF<Bits<STAGE_BITS>>,
    src_len: DFF<Bits<16>>,
    src_tag: DFF<Bits<SLOT_BITS>>,
    error_count: DFF<Bits<32>>,

    full: Signal<Local, bool>,
    take: Signal<Local, bool>,
    issue: Signal<Local, bool>,
    set_mask: Signal<Local, Bits<SLOTS>>,
    stream_slot: Signal<Local, Bits<SLOT_BITS>>,
    clear_mask: Signal<Local, Bits<SLOTS>>,
    region_in: Signal<Local, Region>,
    region_out: Signal<Local, Region>,

    #[constant(SLOTS as u64)]
    slots: Constant<Bits<{ SLOT_BITS + 1 }>>,
    #[constant(1u64)]
    one_slot: Constant<Bits<{ SLOT_BITS + 1 }>>,
    #[constant(1u64)]
    one_mask: Constant<Bits<SLOTS>>,
    #[constant(0u64)]
    zero_mask: Constant<Bits<SLOTS>>,
    #[constant(0u64)]
    zero4: Constant<Bits<4>>,
    #[constant(0u64)]
    zero_slot: Constant<Bits<{ SLOT_BITS + 1 }>>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
    #[constant(1u64)]
    one32: Constant<Bits<32>>,
}

impl Logic for DmaRead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            head,
            stream,
            tail,
            done,
            desc_valid,
            desc_dma_addr,
            desc_ram_addr,
            desc_len,
            desc_tag,
            src_valid,
            src_ram_addr,
            src_len,
            src_tag,
            error_count
        );
        self.ring.clock.next = self.clock.val();
        self.ring.reset.next = self.reset.val();
        self.regions.clock.next = self.clock.val();
        self.regions.reset.next = self.reset.val();
        self.charges.clock.next = self.clock.val();
        self.charges.reset.next = self.reset.val();

        // Take a command: a slot, a region, the read descriptor.
        self.full.next = (self.head.q.val() - self.tail.q.val()) == self.slots.val();
        self.ring.len.next = self.s_cmd_len.val();
        self.s_cmd_ready.next = !self.desc_valid.q.val() & !self.full.val() & self.ring.fits.val();
        self.take.next = self.s_cmd_valid.val() & self.s_cmd_ready.val();
        self.ring.take.next = self.take.val();
        self.region_in.next.ram_addr = self.ring.addr.val();
        self.region_in.next.len = self.s_cmd_len.val();
        self.regions.wr_enable.next = self.take.val();
        self.regions.wr_index.next = self.head.q.val().get_bits::<SLOT_BITS>(0);
        self.regions.wr_data.next = self.region_in.val();
        self.charges.wr_enable.next = self.take.val();
        self.charges.wr_index.next = self.head.q.val().get_bits::<SLOT_BITS>(0);
        self.charges.wr_data.next = self.ring.charge.val();
        if self.desc_valid.q.val() & self.m_desc_ready.val() {
            self.desc_valid.d.next = false;
        }
        if self.take.val() {
            self.desc_valid.d.next = true;
            self.desc_dma_addr.d.next = self.s_cmd_addr.val();
            self.desc_ram_addr.d.next = self.ring.addr.val();
            self.desc_len.d.next = self.s_cmd_len.val();
            self.desc_tag.d.next = self.head.q.val().get_bits::<SLOT_BITS>(0);
            self.head.d.next = self.head.q.val() + self.one_slot.val();
        }
        self.m_desc_valid.next = self.desc_valid.q.val();
        self.m_desc_dma_addr.next = self.desc_dma_addr.q.val();
        self.m_desc_ram_addr.next = self.desc_ram_addr.q.val();
        self.m_desc_len.next = self.desc_len.q.val();
        self.m_desc_tag.next = self.desc_tag.q.val();

        // A read ended: mark its slot, count an error.
        self.set_mask.next = self.zero_mask.val();
        if self.s_status_valid.val() {
            self.set_mask.next = self.one_mask.val() << self.s_status_tag.val();
            if self.s_status_error.val() != self.zero4.val() {
                self.error_count.d.next = self.error_count.q.val() + self.one32.val();
            }
        }
        self.errors.next = self.error_count.q.val();

        // Stream the oldest slot once its read has ended.
        self.regions.rd_index.next = self.stream.q.val().get_bits::<SLOT_BITS>(0);
        self.region_out.next = self.regions.rd_data.val();
        self.stream_slot.next = self.stream.q.val().get_bits::<SLOT_BITS>(0);
        self.issue.next = (self.stream.q.val() != self.head.q.val())
            & self.done.q.val().get_bit(self.stream_slot.val().index())
            & !self.src_valid.q.val();
        self.clear_mask.next = self.zero_mask.val();
        if self.src_valid.q.val() & self.m_src_ready.val() {
            self.src_valid.d.next = false;
        }
        if self.issue.val() {
            self.src_valid.d.next = true;
            self.src_ram_addr.d.next = self.region_out.val().ram_addr;
            self.src_len.d.next = self.region_out.val().len;
            self.src_tag.d.next = self.stream.q.val().get_bits::<SLOT_BITS>(0);
            self.stream.d.next = self.stream.q.val() + self.one_slot.val();
            self.clear_mask.next = self.one_mask.val() << self.stream.q.val().get_bits::<SLOT_BITS>(0);
        }
        self.done.d.next = (self.done.q.val() | self.set_mask.val()) & !self.clear_mask.val();
        self.m_src_valid.next = self.src_valid.q.val();
        self.m_src_ram_addr.next = self.src_ram_addr.q.val();
        self.m_src_len.next = self.src_len.q.val();
        self.m_src_tag.next = self.src_tag.q.val();

        // The source has read the oldest region: give it back.
        self.charges.rd_index.next = self.tail.q.val().get_bits::<SLOT_BITS>(0);
        self.ring.free.next = self.s_src_status_valid.val();
        self.ring.free_charge.next = self.charges.rd_data.val();
        if self.s_src_status_valid.val() {
            self.tail.d.next = self.tail.q.val() + self.one_slot.val();
        }

        if self.reset.val() {
            self.head.d.next = self.zero_slot.val();
            self.stream.d.next = self.zero_slot.val();
            self.tail.d.next = self.zero_slot.val();
            self.done.d.next = self.zero_mask.val();
            self.desc_valid.d.next = false;
            self.src_valid.d.next = false;
            self.error_count.d.next = self.zero32.val();
        }
    }
}
