//! Sized constants. rust-hdl writes literals in `#[hdl_gen]` code as 32-bit
//! (`(32'h1) & 7'h7f`), which Verilator's -Wall flags as width mismatches,
//! and its `Constant` has no `Default`, so blocks that hold one cannot derive
//! it. `Lit<N, V>` is a leaf block whose output is the N-bit value V, written
//! with its exact width. It uses `always_comb` (SystemVerilog): a Verilog-2005
//! `always @*` with nothing to read never runs, and rust-hdl declares every
//! output `reg`, which rules out `assign`.

use rust_hdl::prelude::*;

/// The constant `V` on `N` bits.
#[derive(LogicBlock, Default)]
pub struct Lit<const N: usize, const V: u64> {
    pub value: Signal<Out, Bits<N>>,
}

impl<const N: usize, const V: u64> Logic for Lit<N, V> {
    fn update(&mut self) {
        self.value.next = V.into();
    }

    fn connect(&mut self) {
        self.value.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!("always_comb value = {N}'d{V};"))
    }
}
