//! `dma_write`: the engine's DMA writes on Corundum's descriptor-driven
//! DMA.
//!
//! The engine gives `(addr, len)` and then exactly `len` bytes; its writes
//! must land in order. Corundum's DMA writes a region of a RAM of the
//! application's (`dma_psdpram`, read through `data_dma_ram_rd_cmd_*`) to
//! host memory when given a descriptor `{dma_addr, ram_sel, ram_addr, len,
//! tag}` and reports its end with the tag and an error code;
//! `dma_client_axis_sink` writes a stream into a RAM region on its own
//! descriptor `{ram_addr, len, tag}` and reports, in order, when it has.
//!
//! For each command this block takes a region of the staging RAM
//! ([`StageRing`]) and a slot (the tag, up to [`SLOTS`] writes in flight),
//! issues the sink descriptor (the engine's bytes go straight to the sink:
//! `m_sink_t*` is `s_t*`), and once the sink has the bytes in RAM issues
//! the write descriptor; descriptors go out in command order, so writes
//! land in order. A region is given back when its write has ended and all
//! older ones have; a write that ends with an error is counted in
//! `errors`.
//!
//! * `s_cmd_*`, `s_t*`: the engine's `m_dma_wr_cmd_*` and `m_dma_wr_t*`.
//! * `m_sink_*`, `s_sink_status_valid`, `m_sink_t*`:
//!   `dma_client_axis_sink`'s descriptor, status and data.
//! * `m_desc_*`, `s_status_*`: Corundum's `m_axis_data_dma_write_desc_*` and
//!   `s_axis_data_dma_write_desc_status_*` (RAM select 0, no immediate).
//! * `errors`: writes that ended with a non-zero error code.
//!
//! Ports: `clock`, `reset` (synchronous, active high). Descriptors are
//! registered; the data path is combinational.

use rust_hdl::prelude::*;

use crate::blocks::trees::RegFile;
use crate::blocks::{HdlDefault, HdlStruct};
use crate::corundum::stage_ring::{StageRing, CHARGE_BITS, STAGE_BITS};
use crate::corundum::{SLOTS, SLOT_BITS};

/// A slot's write: host address, RAM address and length.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Write {
    pub dma_addr: Bits<64>,
    pub ram_addr: Bits<STAGE_BITS>,
    pub len: Bits<16>,
}

/// The write side of the adapter.
#[derive(LogicBlock, HdlDefault)]
pub struct DmaWrite {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s_cmd_valid: Signal<In, bool>,
    pub s_cmd_ready: Signal<Out, bool>,
    pub s_cmd_addr: Signal<In, Bits<64>>,
    pub s_cmd_len: Signal<In, Bits<16>>,
    pub s_tdata: Signal<In, Bits<64>>,
    pub s_tkeep: Signal<In, Bits<8>>,
    pub s_tvalid: Signal<In, bool>,
    pub s_tready: Signal<Out, bool>,
    pub s_tlast: Signal<In, bool>,
    pub m_sink_ram_addr: Signal<Out, Bits<STAGE_BITS>>,
    pub m_sink_len: Signal<Out, Bits<16>>,
    pub m_sink_tag: Signal<Out, Bits<SLOT_BITS>>,
    pub m_sink_valid: Signal<Out, bool>,
    pub m_sink_ready: Signal<In, bool>,
    pub s_sink_status_valid: Signal<In, bool>,
    pub m_sink_tdata: Signal<Out, Bits<64>>,
    pub m_sink_tkeep: Signal<Out, Bits<8>>,
    pub m_sink_tvalid: Signal<Out, bool>,
    pub m_sink_tready: Signal<In, bool>,
    pub m_sink_tlast: Signal<Out, bool>,
    pub m_desc_dma_addr: Signal<Out, Bits<64>>,
    pub m_desc_ram_addr: Signal<Out, Bits<STAGE_BITS>>,
    pub m_desc_len: Signal<Out, Bits<16>>,
    pub m_desc_tag: Signal<Out, Bits<SLOT_BITS>>,
    pub m_desc_valid: Signal<Out, bool>,
    pub m_desc_ready: Signal<In, bool>,
    pub s_status_tag: Signal<In, Bits<SLOT_BITS>>,
    pub s_status_error: Signal<In, Bits<4>>,
    pub s_status_valid: Signal<In, bool>,
    pub errors: Signal<Out, Bits<32>>,

    ring: StageRing,
    writes: RegFile<Write, SLOT_BITS, SLOTS>,
    charges: RegFile<Bits<CHARGE_BITS>, SLOT_BITS, SLOTS>,

    /// Slots taken, filled by the sink, issued and given back (wrap bit).
    head: DFF<Bits<{ SLOT_BITS + 1 }>>,
    filled: DFF<Bits<{ SLOT_BITS + 1 }>>,
    issued: DFF<Bits<{ SLOT_BITS + 1 }>>,
    tail: DFF<Bits<{ SLOT_BITS + 1 }>>,
    /// Per slot: its write has ended.
    done: DFF<Bits<SLOTS>>,
    sink_valid: DFF<bool>,
    sink_ram_addr: DFF<Bits<STAGE_BITS>>,
    sink_len: DFF<Bits<16>>,
    sink_tag: DFF<Bits<SLOT_BITS>>,
    desc_valid: DFF<bool>,
    desc_dma_addr: DFF<Bits<64>>,
    desc_ram_addr: DFF<Bits<STAGE_BITS>>,
    desc_len: DFF<Bits<16>>,
    desc_tag: DFF<Bits<SLOT_BITS>>,
    error_count: DFF<Bits<32>>,

    full: Signal<Local, bool>,
    take: Signal<Local, bool>,
    issue: Signal<Local, bool>,
    give_back: Signal<Local, bool>,
    set_mask: Signal<Local, Bits<SLOTS>>,
    tail_slot: Signal<Local, Bits<SLOT_BITS>>,
    clear_mask: Signal<Local, Bits<SLOTS>>,
    write_in: Signal<Local, Write>,
    write_out: Signal<Local, Write>,

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

impl Logic for DmaWrite {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            head,
            filled,
            issued,
            tail,
            done,
            sink_valid,
            sink_ram_addr,
            sink_len,
            sink_tag,
            desc_valid,
            desc_dma_addr,
            desc_ram_addr,
            desc_len,
            desc_tag,
            error_count
        );
        self.ring.clock.next = self.clock.val();
        self.ring.reset.next = self.reset.val();
        self.writes.clock.next = self.clock.val();
        self.writes.reset.next = self.reset.val();
        self.charges.clock.next = self.clock.val();
        self.charges.reset.next = self.reset.val();

        // The engine's bytes go straight to the sink.
        self.m_sink_tdata.next = self.s_tdata.val();
        self.m_sink_tkeep.next = self.s_tkeep.val();
        self.m_sink_tvalid.next = self.s_tvalid.val();
        self.m_sink_tlast.next = self.s_tlast.val();
        self.s_tready.next = self.m_sink_tready.val();

        // Take a command: a slot, a region, the sink descriptor.
        self.full.next = (self.head.q.val() - self.tail.q.val()) == self.slots.val();
        self.ring.len.next = self.s_cmd_len.val();
        self.s_cmd_ready.next = !self.sink_valid.q.val() & !self.full.val() & self.ring.fits.val();
        self.take.next = self.s_cmd_valid.val() & self.s_cmd_ready.val();
        self.ring.take.next = self.take.val();
        self.write_in.next.dma_addr = self.s_cmd_addr.val();
        self.write_in.next.ram_addr = self.ring.addr.val();
        self.write_in.next.len = self.s_cmd_len.val();
        self.writes.wr_enable.next = self.take.val();
        self.writes.wr_index.next = self.head.q.val().get_bits::<SLOT_BITS>(0);
        self.writes.wr_data.next = self.write_in.val();
        self.charges.wr_enable.next = self.take.val();
        self.charges.wr_index.next = self.head.q.val().get_bits::<SLOT_BITS>(0);
        self.charges.wr_data.next = self.ring.charge.val();
        if self.sink_valid.q.val() & self.m_sink_ready.val() {
            self.sink_valid.d.next = false;
        }
        if self.take.val() {
            self.sink_valid.d.next = true;
            self.sink_ram_addr.d.next = self.ring.addr.val();
            self.sink_len.d.next = self.s_cmd_len.val();
            self.sink_tag.d.next = self.head.q.val().get_bits::<SLOT_BITS>(0);
            self.head.d.next = self.head.q.val() + self.one_slot.val();
        }
        self.m_sink_valid.next = self.sink_valid.q.val();
        self.m_sink_ram_addr.next = self.sink_ram_addr.q.val();
        self.m_sink_len.next = self.sink_len.q.val();
        self.m_sink_tag.next = self.sink_tag.q.val();

        // The sink has the oldest unfilled slot's bytes in RAM (in order).
        if self.s_sink_status_valid.val() {
            self.filled.d.next = self.filled.q.val() + self.one_slot.val();
        }

        // Issue the write descriptors in order.
        self.writes.rd_index.next = self.issued.q.val().get_bits::<SLOT_BITS>(0);
        self.write_out.next = self.writes.rd_data.val();
        self.issue.next = (self.issued.q.val() != self.filled.q.val()) & !self.desc_valid.q.val();
        if self.desc_valid.q.val() & self.m_desc_ready.val() {
            self.desc_valid.d.next = false;
        }
        if self.issue.val() {
            self.desc_valid.d.next = true;
            self.desc_dma_addr.d.next = self.write_out.val().dma_addr;
            self.desc_ram_addr.d.next = self.write_out.val().ram_addr;
            self.desc_len.d.next = self.write_out.val().len;
            self.desc_tag.d.next = self.issued.q.val().get_bits::<SLOT_BITS>(0);
            self.issued.d.next = self.issued.q.val() + self.one_slot.val();
        }
        self.m_desc_valid.next = self.desc_valid.q.val();
        self.m_desc_dma_addr.next = self.desc_dma_addr.q.val();
        self.m_desc_ram_addr.next = self.desc_ram_addr.q.val();
        self.m_desc_len.next = self.desc_len.q.val();
        self.m_desc_tag.next = self.desc_tag.q.val();

        // A write ended: mark its slot, count an error.
        self.set_mask.next = self.zero_mask.val();
        if self.s_status_valid.val() {
            self.set_mask.next = self.one_mask.val() << self.s_status_tag.val();
            if self.s_status_error.val() != self.zero4.val() {
                self.error_count.d.next = self.error_count.q.val() + self.one32.val();
            }
        }
        self.errors.next = self.error_count.q.val();

        // Give back the oldest region once its write has ended.
        self.charges.rd_index.next = self.tail.q.val().get_bits::<SLOT_BITS>(0);
        self.tail_slot.next = self.tail.q.val().get_bits::<SLOT_BITS>(0);
        self.give_back.next =
            (self.tail.q.val() != self.issued.q.val()) & self.done.q.val().get_bit(self.tail_slot.val().index());
        self.ring.free.next = self.give_back.val();
        self.ring.free_charge.next = self.charges.rd_data.val();
        self.clear_mask.next = self.zero_mask.val();
        if self.give_back.val() {
            self.tail.d.next = self.tail.q.val() + self.one_slot.val();
            self.clear_mask.next = self.one_mask.val() << self.tail.q.val().get_bits::<SLOT_BITS>(0);
        }
        self.done.d.next = (self.done.q.val() | self.set_mask.val()) & !self.clear_mask.val();

        if self.reset.val() {
            self.head.d.next = self.zero_slot.val();
            self.filled.d.next = self.zero_slot.val();
            self.issued.d.next = self.zero_slot.val();
            self.tail.d.next = self.zero_slot.val();
            self.done.d.next = self.zero_mask.val();
            self.sink_valid.d.next = false;
            self.desc_valid.d.next = false;
            self.error_count.d.next = self.zero32.val();
        }
    }
}
