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
//! `N` is `2^A` (the read and write indices are A bits).

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
