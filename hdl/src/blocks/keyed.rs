//! `KeyedState`: S bits of state for each of 2^K keys in block RAM, read in
//! one cycle and written back in the next, with the write of the previous
//! cycle forwarded so that back-to-back operations on one key see each
//! other. Cleared to zero by a sweep after reset (uninitialised RAM is X).
//!
//! Use: present `rd_key` with `rd_valid` in cycle t; in cycle t+1 `state`
//! holds that key's state (`s1_valid`, `s1_key` say which), and the caller
//! writes the new state with `wr_valid`/`wr_state` in the same cycle
//! (the key is `s1_key`). `ready` is low during the 2^K-cycle sweep; reads
//! are ignored then.

use rust_hdl::prelude::*;

use crate::blocks::HdlDefault;

/// Keyed state store.
#[derive(LogicBlock, HdlDefault)]
pub struct KeyedState<const K: usize, const S: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub rd_valid: Signal<In, bool>,
    pub rd_key: Signal<In, Bits<K>>,
    pub s1_valid: Signal<Out, bool>,
    pub s1_key: Signal<Out, Bits<K>>,
    pub state: Signal<Out, Bits<S>>,
    pub wr_valid: Signal<In, bool>,
    pub wr_state: Signal<In, Bits<S>>,
    ram: RAM<Bits<S>, K>,
    valid: DFF<bool>,
    key: DFF<Bits<K>>,
    fw_valid: DFF<bool>,
    fw_key: DFF<Bits<K>>,
    fw_state: DFF<Bits<S>>,
    init_busy: DFF<bool>,
    init_addr: DFF<Bits<K>>,
    #[constant(1u64)]
    one: Constant<Bits<K>>,
    #[constant(0u64)]
    zero_key: Constant<Bits<K>>,
    #[constant(0u64)]
    zero_state: Constant<Bits<S>>,
}

impl<const K: usize, const S: usize> Logic for KeyedState<K, S> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, key, fw_valid, fw_key, fw_state, init_busy, init_addr);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_address.next = self.rd_key.val();
        self.valid.d.next = self.rd_valid.val() & !self.init_busy.q.val();
        self.key.d.next = self.rd_key.val();

        // The RAM read missed the write made at the same edge: forward it.
        if self.fw_valid.q.val() & (self.fw_key.q.val() == self.key.q.val()) {
            self.state.next = self.fw_state.q.val();
        } else {
            self.state.next = self.ram.read_data.val();
        }
        self.s1_valid.next = self.valid.q.val();
        self.s1_key.next = self.key.q.val();

        self.fw_valid.d.next = self.valid.q.val() & self.wr_valid.val();
        self.fw_key.d.next = self.key.q.val();
        self.fw_state.d.next = self.wr_state.val();

        if self.init_busy.q.val() {
            self.ram.write_address.next = self.init_addr.q.val();
            self.ram.write_data.next = self.zero_state.val();
            self.ram.write_enable.next = true;
            self.init_addr.d.next = self.init_addr.q.val() + self.one.val();
            if self.init_addr.q.val().all() {
                self.init_busy.d.next = false;
            }
        } else {
            self.ram.write_address.next = self.key.q.val();
            self.ram.write_data.next = self.wr_state.val();
            self.ram.write_enable.next = self.valid.q.val() & self.wr_valid.val();
        }

        if self.reset.val() {
            self.init_busy.d.next = true;
            self.init_addr.d.next = self.zero_key.val();
            self.valid.d.next = false;
            self.fw_valid.d.next = false;
        }
        self.ready.next = !self.init_busy.q.val();
    }
}
