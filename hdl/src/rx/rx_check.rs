//! `rx_check`: the connection and memory-region checks of a received data
//! packet, and its placement address.
//! Reference: `ferroce_proto::model::mr::MrTable::check_write` and the
//! endpoint's connection check (known connection, packet from its peer,
//! path within its paths, of the connection's generation).
//!
//! Tables (written by the CSR windows): `CONNS` connections (valid, peer
//! IPv4 address, path count, generation) and `MRS` memory regions (valid, rkey, base,
//! length, remote-write permission, owning connection). The rkey is looked
//! up in parallel in all regions (the lowest matching slot wins; the driver
//! never registers an rkey twice).
//!
//! Storage: the regions' valid bits and rkeys are registers (cleared by
//! reset, and matched in parallel); the connections (valid bit included)
//! and the regions' other fields are in two rust-hdl `RAM`s with a
//! registered read: the connection's entry is read at `in_conn`, the
//! region's at the matching slot, and both checks finish in the next cycle
//! from the RAMs' outputs and the packet's fields, which the caller holds
//! through that cycle (so they are not registered here: the tables the
//! hand-written Verilog kept in LUT-RAM with a combinational read cost
//! read registers now, and these are what pays for them). A table write
//! lands at the clock edge, so a packet is judged by the tables as they
//! were before that cycle's writes.
//!
//! Ports (`clock`; `reset` clears both tables: the regions at once, the
//! connections by a sweep of one entry a cycle, 2^CONN_KEY_BITS cycles,
//! while `ready` is low and connection writes are ignored):
//! * `conn_wr`: write connection `conn_wr_index` (`conn_wr_valid_bit`,
//!   `conn_wr_peer_ip`, `conn_wr_paths`, `conn_wr_generation`).
//! * `mr_wr`: write region `mr_wr_index` (`mr_wr_valid_bit`, `mr_wr_rkey`,
//!   `mr_wr_base`, `mr_wr_len`, `mr_wr_remote_write`, `mr_wr_conn`).
//! * `in_valid` with the packet's `in_conn`, `in_path`, `in_src_ip`,
//!   `in_generation`,
//!   `in_write` (WRITE or WRITE with immediate), `in_rkey`,
//!   `in_remote_addr`, `in_offset`, `in_payload_len`, `in_msg_len`: the
//!   fields stay as they are through the next cycle.
//! * One cycle later (combinational from the read registers, the packet's
//!   address sums registered in the first cycle and the held fields): `out_valid`, `out_conn_ok`, `out_access_ok` (WRITEs:
//!   the region check of both the whole message and this packet; SENDs:
//!   true) and `out_addr` (`remote_addr + offset`).
//!
//! Addresses have the build's DMA address bits (`DMA_ADDR_BITS`, A): the
//! table keeps A bits of base and length (`mr_wr_*` are cut to them; the
//! registers are bounded so), the remote address's bits above A are not
//! summed (a remote address with any of them set is refused), and an
//! access must end below 2^A (at A = 64: not wrap), as
//! `MrTable::with_addr_bits` has it. `out_addr` has A bits. The sums keep
//! their 65-bit form; with the operands' bits above A constant zero,
//! synthesis keeps A + 1 bits of them.

use ferroce_proto::params::{GENERATION_BITS, RKEY_BITS};
use rust_hdl::prelude::*;

use crate::blocks::{HdlDefault, HdlStruct};
pub use super::cfg::MRS;
use super::cfg::{CONN_KEY_BITS, DMA_ADDR_BITS, DMA_ADDR_MASK, MR_BITS};

/// Connections in the table.
pub const CONNS: usize = 1 << CONN_KEY_BITS;
const _: () = assert!(1 << MR_BITS == MRS);

/// A connection's entry.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ConnEntry {
    pub valid: bool,
    pub peer_ip: Bits<32>,
    pub paths: Bits<5>,
    pub generation: Bits<GENERATION_BITS>,
}

/// A region's entry, less its valid bit and its rkey.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct MrEntry {
    pub base: Bits<DMA_ADDR_BITS>,
    pub len: Bits<DMA_ADDR_BITS>,
    pub conn: Bits<16>,
    pub remote_write: bool,
}

/// Zero-extensions to 65 bits, for sums with their carry.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Ext64 {
    pub lo: Bits<64>,
    pub hi: Bits<1>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ExtDma {
    pub lo: Bits<DMA_ADDR_BITS>,
    pub hi: Bits<{ 65 - DMA_ADDR_BITS }>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Ext32 {
    pub lo: Bits<32>,
    pub hi: Bits<33>,
}
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Ext16 {
    pub lo: Bits<16>,
    pub hi: Bits<49>,
}

/// The checker.
#[derive(LogicBlock, HdlDefault)]
pub struct RxCheck {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub conn_wr: Signal<In, bool>,
    pub conn_wr_index: Signal<In, Bits<CONN_KEY_BITS>>,
    pub conn_wr_valid_bit: Signal<In, bool>,
    pub conn_wr_peer_ip: Signal<In, Bits<32>>,
    pub conn_wr_paths: Signal<In, Bits<5>>,
    pub conn_wr_generation: Signal<In, Bits<GENERATION_BITS>>,
    pub mr_wr: Signal<In, bool>,
    pub mr_wr_index: Signal<In, Bits<MR_BITS>>,
    pub mr_wr_valid_bit: Signal<In, bool>,
    pub mr_wr_rkey: Signal<In, Bits<RKEY_BITS>>,
    pub mr_wr_base: Signal<In, Bits<64>>,
    pub mr_wr_len: Signal<In, Bits<64>>,
    pub mr_wr_remote_write: Signal<In, bool>,
    pub mr_wr_conn: Signal<In, Bits<16>>,
    pub in_valid: Signal<In, bool>,
    pub in_conn: Signal<In, Bits<16>>,
    pub in_path: Signal<In, Bits<8>>,
    pub in_src_ip: Signal<In, Bits<32>>,
    pub in_generation: Signal<In, Bits<GENERATION_BITS>>,
    pub in_write: Signal<In, bool>,
    pub in_rkey: Signal<In, Bits<RKEY_BITS>>,
    pub in_remote_addr: Signal<In, Bits<64>>,
    pub in_offset: Signal<In, Bits<32>>,
    pub in_payload_len: Signal<In, Bits<16>>,
    pub in_msg_len: Signal<In, Bits<32>>,
    pub ready: Signal<Out, bool>,
    pub out_valid: Signal<Out, bool>,
    pub out_conn_ok: Signal<Out, bool>,
    pub out_access_ok: Signal<Out, bool>,
    pub out_addr: Signal<Out, Bits<64>>,
    // Tables.
    conn_ram: RAM<ConnEntry, CONN_KEY_BITS>,
    /// The clearing sweep after reset: every connection entry written
    /// invalid, one a cycle.
    busy: DFF<bool>,
    sweep: DFF<Bits<CONN_KEY_BITS>>,
    mr_valid: [DFF<bool>; MRS],
    mr_rkey: [DFF<Bits<RKEY_BITS>>; MRS],
    mr_ram: RAM<MrEntry, MR_BITS>,
    // What the first cycle found (the packet's fields are held by the
    // caller through the second cycle).
    valid: DFF<bool>,
    known: DFF<bool>,
    found: DFF<bool>,
    conn_in_table: Signal<Local, bool>,
    hit: [Signal<Local, bool>; MRS],
    any_hit: Signal<Local, bool>,
    mr_index: Signal<Local, Bits<MR_BITS>>,
    x_remote: Signal<Local, Ext64>,
    x_offset: Signal<Local, Ext32>,
    x_msg_len: Signal<Local, Ext32>,
    x_payload: Signal<Local, Ext16>,
    x_base: Signal<Local, ExtDma>,
    x_len: Signal<Local, ExtDma>,
    /// The remote address has bits set above the DMA address bits.
    remote_high: Signal<Local, bool>,
    /// The table writes' bits above the DMA address bits, which the
    /// registers' ranges keep 0 and the table does not hold.
    unused_high: Signal<Local, bool>,
    remote65: Signal<Local, Bits<65>>,
    offset65: Signal<Local, Bits<65>>,
    msg_len65: Signal<Local, Bits<65>>,
    payload65: Signal<Local, Bits<65>>,
    len65: Signal<Local, Bits<65>>,
    base65: Signal<Local, Bits<65>>,
    // The packet's sums, from its fields in the first cycle (registered:
    // the second cycle only adds the region's base and length).
    msg_end: DFF<Bits<65>>,
    pkt_addr: DFF<Bits<65>>,
    pkt_end: DFF<Bits<65>>,
    pkt_addr_c: Signal<Local, Bits<65>>,
    region_end: Signal<Local, Bits<65>>,
    in_region_msg: Signal<Local, bool>,
    in_region_pkt: Signal<Local, bool>,
    #[constants(|i: usize| i as u64)]
    slot_id: [Constant<Bits<MR_BITS>>; MRS],
    #[constant(CONNS as u64)]
    conns: Constant<Bits<16>>,
    /// Paths beyond a 5-bit path count.
    #[constant(32u64)]
    path_limit: Constant<Bits<8>>,
    #[constant(1u64)]
    one_key: Constant<Bits<CONN_KEY_BITS>>,
    #[constant(0u64)]
    zero_key: Constant<Bits<CONN_KEY_BITS>>,
    #[constant(ConnEntry::default())]
    no_conn: Constant<ConnEntry>,
    #[constant(0u64)]
    zero1: Constant<Bits<1>>,
    #[constant(0u64)]
    zero33: Constant<Bits<33>>,
    #[constant(0u64)]
    zero49: Constant<Bits<49>>,
    #[constant(0u64)]
    zero_above_dma: Constant<Bits<{ 65 - DMA_ADDR_BITS }>>,
    /// The DMA address bits, and the sums' bits from 2^A on.
    #[constant(DMA_ADDR_MASK)]
    dma_mask: Constant<Bits<64>>,
    #[constant(Bits::<65>::mask() & !bit_cast::<65, 64>(DMA_ADDR_MASK.into()))]
    past_dma: Constant<Bits<65>>,
}

impl Logic for RxCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, busy, sweep, valid, known, found, msg_end, pkt_addr, pkt_end
        );
        for i in 0..MRS {
            self.mr_valid[i].clock.next = self.clock.val();
            self.mr_valid[i].d.next = self.mr_valid[i].q.val();
            self.mr_rkey[i].clock.next = self.clock.val();
            self.mr_rkey[i].d.next = self.mr_rkey[i].q.val();
        }
        self.conn_ram.read_clock.next = self.clock.val();
        self.conn_ram.write_clock.next = self.clock.val();
        self.mr_ram.read_clock.next = self.clock.val();
        self.mr_ram.write_clock.next = self.clock.val();

        // First cycle: the connection's entry and the region's slot.
        self.conn_in_table.next = self.in_conn.val() < self.conns.val();
        self.conn_ram.read_address.next = self.in_conn.val().get_bits::<CONN_KEY_BITS>(0);
        self.known.d.next = self.conn_in_table.val();
        // The lowest valid slot whose rkey matches.
        self.any_hit.next = false;
        self.mr_index.next = self.slot_id[0].val();
        for i in 0..MRS {
            self.hit[i].next = self.mr_valid[i].q.val() & (self.mr_rkey[i].q.val() == self.in_rkey.val());
        }
        for i in 0..MRS {
            if self.hit[i].val() & !self.any_hit.val() {
                self.any_hit.next = true;
                self.mr_index.next = self.slot_id[i].val();
            }
        }
        self.mr_ram.read_address.next = self.mr_index.val();
        self.found.d.next = self.any_hit.val();
        self.valid.d.next = self.in_valid.val();

        // Second cycle. Connection: known, from its peer, on one of its
        // paths, of its generation.
        self.out_valid.next = self.valid.q.val();
        self.out_conn_ok.next = self.known.q.val()
            & self.conn_ram.read_data.val().valid
            & (self.conn_ram.read_data.val().peer_ip == self.in_src_ip.val())
            & (self.in_path.val() < self.path_limit.val())
            & (self.conn_ram.read_data.val().paths > self.in_path.val().get_bits::<5>(0))
            & (self.conn_ram.read_data.val().generation == self.in_generation.val());
        // Region: both checks of the model, the whole message and then this
        // packet, each inside [base, base + len) and ending below 2^A.
        self.remote_high.next = (self.in_remote_addr.val() & !self.dma_mask.val()).any();
        self.x_remote.next.lo = self.in_remote_addr.val() & self.dma_mask.val();
        self.x_remote.next.hi = self.zero1.val();
        self.x_offset.next.lo = self.in_offset.val();
        self.x_offset.next.hi = self.zero33.val();
        self.x_msg_len.next.lo = self.in_msg_len.val();
        self.x_msg_len.next.hi = self.zero33.val();
        self.x_payload.next.lo = self.in_payload_len.val();
        self.x_payload.next.hi = self.zero49.val();
        self.x_base.next.lo = self.mr_ram.read_data.val().base;
        self.x_base.next.hi = self.zero_above_dma.val();
        self.x_len.next.lo = self.mr_ram.read_data.val().len;
        self.x_len.next.hi = self.zero_above_dma.val();
        self.remote65.next = self.x_remote.val().into();
        self.base65.next = self.x_base.val().into();
        self.offset65.next = self.x_offset.val().into();
        self.msg_len65.next = self.x_msg_len.val().into();
        self.payload65.next = self.x_payload.val().into();
        self.len65.next = self.x_len.val().into();
        self.msg_end.d.next = self.remote65.val() + self.msg_len65.val();
        self.pkt_addr_c.next = self.remote65.val() + self.offset65.val();
        self.pkt_addr.d.next = self.pkt_addr_c.val();
        self.pkt_end.d.next = self.pkt_addr_c.val() + self.payload65.val();
        self.region_end.next = self.base65.val() + self.len65.val();
        self.in_region_msg.next = !self.remote_high.val()
            & (self.remote65.val() >= self.base65.val())
            & (self.msg_end.q.val() <= self.region_end.val())
            & !(self.msg_end.q.val() & self.past_dma.val()).any();
        self.in_region_pkt.next = !(self.pkt_addr.q.val() & self.past_dma.val()).any()
            & (self.pkt_addr.q.val() >= self.base65.val())
            & (self.pkt_end.q.val() <= self.region_end.val())
            & !(self.pkt_end.q.val() & self.past_dma.val()).any();
        self.out_access_ok.next = !self.in_write.val()
            | (self.found.q.val()
                & self.mr_ram.read_data.val().remote_write
                & (self.mr_ram.read_data.val().conn == self.in_conn.val())
                & self.in_region_msg.val()
                & self.in_region_pkt.val());
        self.out_addr.next = self.pkt_addr.q.val().get_bits::<64>(0) & self.dma_mask.val();

        // Table writes.
        self.conn_ram.write_address.next = self.conn_wr_index.val();
        self.conn_ram.write_data.next.valid = self.conn_wr_valid_bit.val();
        self.conn_ram.write_data.next.peer_ip = self.conn_wr_peer_ip.val();
        self.conn_ram.write_data.next.paths = self.conn_wr_paths.val();
        self.conn_ram.write_data.next.generation = self.conn_wr_generation.val();
        self.conn_ram.write_enable.next = self.conn_wr.val();
        self.sweep.d.next = self.sweep.q.val() + self.one_key.val();
        if self.busy.q.val() {
            self.conn_ram.write_address.next = self.sweep.q.val();
            self.conn_ram.write_data.next = self.no_conn.val();
            self.conn_ram.write_enable.next = true;
            if self.sweep.q.val().all() {
                self.busy.d.next = false;
            }
        }
        self.mr_ram.write_address.next = self.mr_wr_index.val();
        self.unused_high.next =
            ((self.mr_wr_base.val() | self.mr_wr_len.val()) & !self.dma_mask.val()).any();
        self.mr_ram.write_data.next.base = self.mr_wr_base.val().get_bits::<DMA_ADDR_BITS>(0);
        self.mr_ram.write_data.next.len = self.mr_wr_len.val().get_bits::<DMA_ADDR_BITS>(0);
        self.mr_ram.write_data.next.conn = self.mr_wr_conn.val();
        self.mr_ram.write_data.next.remote_write = self.mr_wr_remote_write.val();
        self.mr_ram.write_enable.next = self.mr_wr.val();
        for i in 0..MRS {
            if self.mr_wr.val() & (self.mr_wr_index.val() == self.slot_id[i].val()) {
                self.mr_valid[i].d.next = self.mr_wr_valid_bit.val();
                self.mr_rkey[i].d.next = self.mr_wr_rkey.val();
            }
        }
        self.ready.next = !self.busy.q.val();
        if self.reset.val() {
            self.valid.d.next = false;
            self.busy.d.next = true;
            self.sweep.d.next = self.zero_key.val();
            for i in 0..MRS {
                self.mr_valid[i].d.next = false;
            }
        }
    }
}
