//! `seg_log`: the send log beside `retx`: for each path key and PSN slot
//! (PSN mod 256), what that PSN carries — stream, message sequence number,
//! offset and length — so that a retransmission can re-read its payload
//! from host memory and an acknowledgement can be credited to its message.
//! The model keeps the same in `TxPath::segs`.
//!
//! Ports (`clock`): addresses are {path key, PSN slot}, A = key bits + 8.
//! `wr_valid` with `wr_addr`, `wr_entry` records a PSN when it is first
//! sent; `rd_addr` reads one back, the entry on `rd_entry` one cycle later.
//! One write and one read per cycle; a read of the address written in the
//! same cycle returns the old entry.

use rust_hdl::prelude::*;

/// Bits of an entry in the `corundum` build: {len[13:0], offset[31:0],
/// msg_seq[31:0], stream[2:0]}; a build with fewer streams has a narrower
/// stream field (E = its `tx_path::LogEntry`'s width).
pub const ENTRY_BITS: usize = 3 + 32 + 32 + 14;

/// The log: 2^A entries of E bits in block RAM.
#[derive(LogicBlock, Default)]
pub struct SegLog<const A: usize, const E: usize = ENTRY_BITS> {
    pub clock: Signal<In, Clock>,
    pub wr_valid: Signal<In, bool>,
    pub wr_addr: Signal<In, Bits<A>>,
    pub wr_entry: Signal<In, Bits<E>>,
    pub rd_addr: Signal<In, Bits<A>>,
    pub rd_entry: Signal<Out, Bits<E>>,
    ram: RAM<Bits<E>, A>,
}

impl<const A: usize, const E: usize> Logic for SegLog<A, E> {
    #[hdl_gen]
    fn update(&mut self) {
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_address.next = self.rd_addr.val();
        self.ram.write_address.next = self.wr_addr.val();
        self.ram.write_data.next = self.wr_entry.val();
        self.ram.write_enable.next = self.wr_valid.val();
        self.rd_entry.next = self.ram.read_data.val();
    }
}
