//! `RegFifo`: a first-in first-out queue of up to `N` entries of type `T`
//! held in registers, for the short queues between blocks (eight or
//! sixteen entries; anything larger belongs in block RAM).
//!
//! * `push` with `push_data` writes an entry at the clock edge; the caller
//!   pushes only while `full` is low (a push into a full queue is ignored).
//! * `valid` and `data`: the oldest entry, combinational from the
//!   registers; `pop` removes it at the clock edge (ignored when empty).
//! * `count`: entries held (P bits, N < 2^P). A push shows the cycle
//!   after; a push and a pop in one cycle keep the count.
//!
//! `N` is `2^A` (the read and write indices are A bits). [`RamFifo`] is the
//! same queue with its entries in a RAM, for wide entries.

use rust_hdl::prelude::*;

/// A register FIFO of `N = 2^A` entries with a `P`-bit count.
#[derive(LogicBlock)]
pub struct RegFifo<T: Synth, const A: usize, const P: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub push: Signal<In, bool>,
    pub push_data: Signal<In, T>,
    pub full: Signal<Out, bool>,
    pub valid: Signal<Out, bool>,
    pub data: Signal<Out, T>,
    pub pop: Signal<In, bool>,
    pub count: Signal<Out, Bits<P>>,
    entries: [DFF<T>; N],
    wr: DFF<Bits<A>>,
    rd: DFF<Bits<A>>,
    used: DFF<Bits<P>>,
    do_push: Signal<Local, bool>,
    do_pop: Signal<Local, bool>,
    index: [Constant<Bits<A>>; N],
    one_a: Constant<Bits<A>>,
    one_p: Constant<Bits<P>>,
    zero_p: Constant<Bits<P>>,
    size: Constant<Bits<P>>,
}

impl<T: Synth, const A: usize, const P: usize, const N: usize> Default for RegFifo<T, A, P, N> {
    fn default() -> Self {
        assert!(N == 1 << A && N < 1 << P, "RegFifo: N = 2^A entries, counted in P bits");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            push_data: Default::default(),
            full: Default::default(),
            valid: Default::default(),
            data: Default::default(),
            pop: Default::default(),
            count: Default::default(),
            entries: std::array::from_fn(|_| Default::default()),
            wr: Default::default(),
            rd: Default::default(),
            used: Default::default(),
            do_push: Default::default(),
            do_pop: Default::default(),
            index: std::array::from_fn(|i| Constant::new((i as u64).into())),
            one_a: Constant::new(1u64.into()),
            one_p: Constant::new(1u64.into()),
            zero_p: Constant::new(0u64.into()),
            size: Constant::new((N as u64).into()),
        }
    }
}

impl<T: Synth, const A: usize, const P: usize, const N: usize> Logic for RegFifo<T, A, P, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr, rd, used);
        self.do_push.next = self.push.val() & (self.used.q.val() != self.size.val());
        self.do_pop.next = self.pop.val() & (self.used.q.val() != self.zero_p.val());
        for i in 0..N {
            self.entries[i].clock.next = self.clock.val();
            self.entries[i].d.next = self.entries[i].q.val();
            if self.do_push.val() & (self.wr.q.val() == self.index[i].val()) {
                self.entries[i].d.next = self.push_data.val();
            }
        }
        self.data.next = self.entries[0].q.val();
        for i in 1..N {
            if self.rd.q.val() == self.index[i].val() {
                self.data.next = self.entries[i].q.val();
            }
        }
        if self.do_push.val() {
            self.wr.d.next = self.wr.q.val() + self.one_a.val();
        }
        if self.do_pop.val() {
            self.rd.d.next = self.rd.q.val() + self.one_a.val();
        }
        if self.do_push.val() & !self.do_pop.val() {
            self.used.d.next = self.used.q.val() + self.one_p.val();
        }
        if self.do_pop.val() & !self.do_push.val() {
            self.used.d.next = self.used.q.val() - self.one_p.val();
        }
        if self.reset.val() {
            self.wr.d.next = self.index[0].val();
            self.rd.d.next = self.index[0].val();
            self.used.d.next = self.zero_p.val();
        }
        self.full.next = self.used.q.val() == self.size.val();
        self.valid.next = self.used.q.val() != self.zero_p.val();
        self.count.next = self.used.q.val();
    }
}

/// The same queue as [`RegFifo`], cycle for cycle, with its entries in a
/// RAM (LUT RAM at eight or sixteen entries) instead of registers: for
/// wide entries, where `N` registers of the entry's width and an `N`-way
/// read multiplexer cost more than the RAM.
///
/// The RAM reads at the clock edge the slot that will be the oldest after
/// it (`rd`, or `rd + 1` on a pop), so `data` is ready the cycle after.
/// The one case the RAM cannot answer is a push into that very slot in the
/// same edge (a RAM read returns the entry before the write): a one-entry
/// bypass holds the pushed entry for that cycle.
#[derive(LogicBlock)]
pub struct RamFifo<T: Synth, const A: usize, const P: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub push: Signal<In, bool>,
    pub push_data: Signal<In, T>,
    pub full: Signal<Out, bool>,
    pub valid: Signal<Out, bool>,
    pub data: Signal<Out, T>,
    pub pop: Signal<In, bool>,
    pub count: Signal<Out, Bits<P>>,
    ram: RAM<T, A>,
    wr: DFF<Bits<A>>,
    rd: DFF<Bits<A>>,
    used: DFF<Bits<P>>,
    bypass: DFF<bool>,
    bypass_data: DFF<T>,
    do_push: Signal<Local, bool>,
    do_pop: Signal<Local, bool>,
    rd_next: Signal<Local, Bits<A>>,
    zero_a: Constant<Bits<A>>,
    one_a: Constant<Bits<A>>,
    one_p: Constant<Bits<P>>,
    zero_p: Constant<Bits<P>>,
    size: Constant<Bits<P>>,
}

impl<T: Synth, const A: usize, const P: usize, const N: usize> Default for RamFifo<T, A, P, N> {
    fn default() -> Self {
        assert!(N == 1 << A && N < 1 << P, "RamFifo: N = 2^A entries, counted in P bits");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            push_data: Default::default(),
            full: Default::default(),
            valid: Default::default(),
            data: Default::default(),
            pop: Default::default(),
            count: Default::default(),
            ram: Default::default(),
            wr: Default::default(),
            rd: Default::default(),
            used: Default::default(),
            bypass: Default::default(),
            bypass_data: Default::default(),
            do_push: Default::default(),
            do_pop: Default::default(),
            rd_next: Default::default(),
            zero_a: Constant::new(0u64.into()),
            one_a: Constant::new(1u64.into()),
            one_p: Constant::new(1u64.into()),
            zero_p: Constant::new(0u64.into()),
            size: Constant::new((N as u64).into()),
        }
    }
}

impl<T: Synth, const A: usize, const P: usize, const N: usize> Logic for RamFifo<T, A, P, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr, rd, used, bypass, bypass_data);
        self.do_push.next = self.push.val() & (self.used.q.val() != self.size.val());
        self.do_pop.next = self.pop.val() & (self.used.q.val() != self.zero_p.val());
        self.rd_next.next = self.rd.q.val();
        if self.do_pop.val() {
            self.rd_next.next = self.rd.q.val() + self.one_a.val();
        }
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_address.next = self.rd_next.val();
        self.ram.write_address.next = self.wr.q.val();
        self.ram.write_data.next = self.push_data.val();
        self.ram.write_enable.next = self.do_push.val();
        self.bypass.d.next = self.do_push.val() & (self.wr.q.val() == self.rd_next.val());
        self.bypass_data.d.next = self.push_data.val();
        self.data.next = self.ram.read_data.val();
        if self.bypass.q.val() {
            self.data.next = self.bypass_data.q.val();
        }
        self.rd.d.next = self.rd_next.val();
        if self.do_push.val() {
            self.wr.d.next = self.wr.q.val() + self.one_a.val();
        }
        if self.do_push.val() & !self.do_pop.val() {
            self.used.d.next = self.used.q.val() + self.one_p.val();
        }
        if self.do_pop.val() & !self.do_push.val() {
            self.used.d.next = self.used.q.val() - self.one_p.val();
        }
        if self.reset.val() {
            self.wr.d.next = self.zero_a.val();
            self.rd.d.next = self.zero_a.val();
            self.used.d.next = self.zero_p.val();
            self.bypass.d.next = false;
        }
        self.full.next = self.used.q.val() == self.size.val();
        self.valid.next = self.used.q.val() != self.zero_p.val();
        self.count.next = self.used.q.val();
    }
}
