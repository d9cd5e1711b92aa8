//! `spray`: path choice for new packets and source-port entropy.
//! Reference: `ferroce_proto::model::spray` (`pick`, `PortGen`).
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * Choice: with `pick_valid`, the per-path inputs `present`, `span_ok`,
//!   `retired` (one bit per path, path i at bit i), `free` (9 bits per path,
//!   path i at bits 9i..9i+8) and the round-robin start `rr` are taken; one
//!   cycle later `out_valid` pulses with `out_found` and `out_path`: the
//!   eligible path with the most free window, ties to the first from `rr`
//!   (retired paths only if every present path is retired). One choice per
//!   cycle; a balanced 16-leaf comparison tree (depth 4) over the keys
//!   {eligible, free, rank}, rank being 15 minus the distance from `rr`, so
//!   that the largest key wins and the first path from `rr` wins a tie.
//! * Entropy: `seed_valid` loads the 32-bit xorshift state from `seed`.
//!   `port_req` (with `port_avoid`) asks for a new source port; the block
//!   steps the xorshift once per cycle until the port (49152 + top 14 bits)
//!   differs from `port_avoid`, then pulses `port_valid` with `port`.
//!   `port_busy` is high meanwhile; requests while busy are ignored.

use rust_hdl::prelude::*;

use ferroce_proto::model::spray::PORT_BASE;
use ferroce_proto::params::{SACK_WINDOW, SPRAY_ZERO_SEED};

use super::cfg::PATH_BITS;

use crate::blocks::{HdlDefault, HdlStruct};

/// Paths per connection the block handles.
pub const PATHS: usize = 1 << PATH_BITS;

/// Leaves of the comparison tree: 16, the most paths of any build; a
/// smaller build's leaves above its paths hold the key 0, which no
/// eligible path loses to (synthesis removes them).
const LEAVES: usize = 16;
const _: () = assert!(PATHS <= LEAVES);

/// Bits of a path's free window (0 to `SACK_WINDOW` packets).
pub const FREE_BITS: usize = 9;
const _: () = assert!(SACK_WINDOW < 1 << FREE_BITS);

/// A path's key in the comparison tree: the largest wins.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Key {
    pub rank: Bits<PATH_BITS>,
    pub free: Bits<FREE_BITS>,
    pub eligible: bool,
}

/// Bits of a place in `free`.
const FREE_AT_BITS: usize = crate::blocks::index_bits(FREE_BITS * PATHS);

/// Width of a [`Key`].
const KEY_BITS: usize = PATH_BITS + FREE_BITS + 1;

/// Packs one path's [`Key`] (a block of its own: `#[hdl_gen]` cannot
/// assign a field of an array element).
#[derive(LogicBlock, Default)]
pub struct KeyPack {
    pub rank: Signal<In, Bits<PATH_BITS>>,
    pub free: Signal<In, Bits<FREE_BITS>>,
    pub eligible: Signal<In, bool>,
    pub key: Signal<Out, Bits<KEY_BITS>>,
    key_fields: Signal<Local, Key>,
}

impl Logic for KeyPack {
    #[hdl_gen]
    fn update(&mut self) {
        self.key_fields.next.rank = self.rank.val();
        self.key_fields.next.free = self.free.val();
        self.key_fields.next.eligible = self.eligible.val();
        self.key.next = self.key_fields.val().into();
    }
}

/// The top 14 bits of the xorshift state, zero-extended to a port.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct PortOffset {
    pub lo: Bits<14>,
    pub hi: Bits<2>,
}

/// The sprayer.
#[derive(LogicBlock, HdlDefault)]
pub struct Spray {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub pick_valid: Signal<In, bool>,
    pub present: Signal<In, Bits<PATHS>>,
    pub span_ok: Signal<In, Bits<PATHS>>,
    pub retired: Signal<In, Bits<PATHS>>,
    pub free: Signal<In, Bits<{ FREE_BITS * PATHS }>>,
    pub rr: Signal<In, Bits<PATH_BITS>>,
    pub out_valid: Signal<Out, bool>,
    pub out_found: Signal<Out, bool>,
    pub out_path: Signal<Out, Bits<PATH_BITS>>,
    pub seed_valid: Signal<In, bool>,
    pub seed: Signal<In, Bits<32>>,
    pub port_req: Signal<In, bool>,
    pub port_avoid: Signal<In, Bits<16>>,
    pub port_busy: Signal<Out, bool>,
    pub port_valid: Signal<Out, bool>,
    pub port: Signal<Out, Bits<16>>,
    valid_q: DFF<bool>,
    found_q: DFF<bool>,
    path_q: DFF<Bits<PATH_BITS>>,
    state: DFF<Bits<32>>,
    busy: DFF<bool>,
    avoid_q: DFF<Bits<16>>,
    port_valid_q: DFF<bool>,
    port_q: DFF<Bits<16>>,
    #[constants(|i: usize| i as u64)]
    path_id: [Constant<Bits<PATH_BITS>>; PATHS],
    /// Where path i's free window starts in `free`.
    #[constants(|i: usize| (FREE_BITS * i) as u64)]
    free_at: [Constant<Bits<FREE_AT_BITS>>; PATHS],
    /// The eligible bit of a key.
    #[constant(KEY_BITS as u64 - 1)]
    eligible_bit: Constant<Bits<4>>,
    #[constant(PATHS as u64 - 1)]
    last_rank: Constant<Bits<PATH_BITS>>,
    #[constant(0u64)]
    path0: Constant<Bits<PATH_BITS>>,
    #[constant(0u64)]
    zero2: Constant<Bits<2>>,
    #[constant(0u64)]
    zero16: Constant<Bits<16>>,
    #[constant(PORT_BASE as u64)]
    port_base: Constant<Bits<16>>,
    #[constant(SPRAY_ZERO_SEED as u64)]
    zero_seed: Constant<Bits<32>>,
    #[constant(13u64)]
    xs_a: Constant<Bits<5>>,
    #[constant(17u64)]
    xs_b: Constant<Bits<5>>,
    #[constant(5u64)]
    xs_c: Constant<Bits<5>>,
    any_live: Signal<Local, bool>,
    leaf_free: [Signal<Local, Bits<FREE_BITS>>; PATHS],
    leaf: [KeyPack; PATHS],
    #[constant(0u64)]
    key0: Constant<Bits<KEY_BITS>>,
    key4: [Signal<Local, Bits<KEY_BITS>>; LEAVES],
    idx4: [Signal<Local, Bits<PATH_BITS>>; LEAVES],
    key3: [Signal<Local, Bits<KEY_BITS>>; 8],
    idx3: [Signal<Local, Bits<PATH_BITS>>; 8],
    key2: [Signal<Local, Bits<KEY_BITS>>; 4],
    idx2: [Signal<Local, Bits<PATH_BITS>>; 4],
    key1: [Signal<Local, Bits<KEY_BITS>>; 2],
    idx1: [Signal<Local, Bits<PATH_BITS>>; 2],
    best_eligible: Signal<Local, bool>,
    best: Signal<Local, Bits<PATH_BITS>>,
    s1: Signal<Local, Bits<32>>,
    s2: Signal<Local, Bits<32>>,
    s3: Signal<Local, Bits<32>>,
    offset: Signal<Local, PortOffset>,
    offset16: Signal<Local, Bits<16>>,
    candidate: Signal<Local, Bits<16>>,
}


impl Logic for Spray {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid_q, found_q, path_q, state, busy, avoid_q, port_valid_q, port_q);

        // Leaves: the keys of the paths.
        self.any_live.next = (self.present.val() & !self.retired.val()).any();
        for i in 0..PATHS {
            self.leaf_free[i].next = self.free.val().get_bits::<FREE_BITS>(self.free_at[i].val().index());
            self.leaf[i].rank.next = self.last_rank.val() - (self.path_id[i].val() - self.rr.val());
            self.leaf[i].free.next = self.leaf_free[i].val();
            self.leaf[i].eligible.next = self.present.val().get_bit(i)
                & self.span_ok.val().get_bit(i)
                & (!self.retired.val().get_bit(i) | !self.any_live.val())
                & self.leaf_free[i].val().any();
        }
        // Balanced tree of 16 leaves, one level per loop (ranks differ, so
        // no two keys of paths are equal; padding leaves are 0 and name
        // path 0, which the root's eligible bit turns away).
        for i in 0..LEAVES {
            self.key4[i].next = self.key0.val();
            self.idx4[i].next = self.path0.val();
        }
        for i in 0..PATHS {
            self.key4[i].next = self.leaf[i].key.val();
            self.idx4[i].next = self.path_id[i].val();
        }
        for i in 0..8 {
            if self.key4[2 * i].val() >= self.key4[2 * i + 1].val() {
                self.key3[i].next = self.key4[2 * i].val();
                self.idx3[i].next = self.idx4[2 * i].val();
            } else {
                self.key3[i].next = self.key4[2 * i + 1].val();
                self.idx3[i].next = self.idx4[2 * i + 1].val();
            }
        }
        for i in 0..4 {
            if self.key3[2 * i].val() >= self.key3[2 * i + 1].val() {
                self.key2[i].next = self.key3[2 * i].val();
                self.idx2[i].next = self.idx3[2 * i].val();
            } else {
                self.key2[i].next = self.key3[2 * i + 1].val();
                self.idx2[i].next = self.idx3[2 * i + 1].val();
            }
        }
        for i in 0..2 {
            if self.key2[2 * i].val() >= self.key2[2 * i + 1].val() {
                self.key1[i].next = self.key2[2 * i].val();
                self.idx1[i].next = self.idx2[2 * i].val();
            } else {
                self.key1[i].next = self.key2[2 * i + 1].val();
                self.idx1[i].next = self.idx2[2 * i + 1].val();
            }
        }
        // The root: only whether the winner is eligible, and which it is.
        if self.key1[0].val() >= self.key1[1].val() {
            self.best_eligible.next = self.key1[0].val().get_bit(self.eligible_bit.val().index());
            self.best.next = self.idx1[0].val();
        } else {
            self.best_eligible.next = self.key1[1].val().get_bit(self.eligible_bit.val().index());
            self.best.next = self.idx1[1].val();
        }
        self.valid_q.d.next = self.pick_valid.val();
        self.found_q.d.next = self.best_eligible.val();
        if self.best_eligible.val() {
            self.path_q.d.next = self.best.val();
        } else {
            self.path_q.d.next = self.path0.val();
        }

        // Entropy: one xorshift step per cycle while busy.
        self.s1.next = self.state.q.val() ^ (self.state.q.val() << self.xs_a.val());
        self.s2.next = self.s1.val() ^ (self.s1.val() >> self.xs_b.val());
        self.s3.next = self.s2.val() ^ (self.s2.val() << self.xs_c.val());
        self.offset.next.lo = self.s3.val().get_bits::<14>(18);
        self.offset.next.hi = self.zero2.val();
        self.offset16.next = self.offset.val().into();
        self.candidate.next = self.port_base.val() + self.offset16.val();
        self.port_valid_q.d.next = false;
        if self.busy.q.val() {
            self.state.d.next = self.s3.val();
            if self.candidate.val() != self.avoid_q.q.val() {
                self.busy.d.next = false;
                self.port_valid_q.d.next = true;
                self.port_q.d.next = self.candidate.val();
            }
        } else if self.port_req.val() {
            self.busy.d.next = true;
            self.avoid_q.d.next = self.port_avoid.val();
        }
        if self.seed_valid.val() {
            if self.seed.val().any() {
                self.state.d.next = self.seed.val();
            } else {
                self.state.d.next = self.zero_seed.val();
            }
        }
        if self.reset.val() {
            self.valid_q.d.next = false;
            self.found_q.d.next = false;
            self.path_q.d.next = self.path0.val();
            self.busy.d.next = false;
            self.port_valid_q.d.next = false;
            self.port_q.d.next = self.zero16.val();
            self.avoid_q.d.next = self.zero16.val();
            self.state.d.next = self.zero_seed.val();
        }
        self.out_valid.next = self.valid_q.q.val();
        self.out_found.next = self.found_q.q.val();
        self.out_path.next = self.path_q.q.val();
        self.port_busy.next = self.busy.q.val();
        self.port_valid.next = self.port_valid_q.q.val();
        self.port.next = self.port_q.q.val();
    }
}

#[cfg(test)]
mod tests {
    use ferroce_proto::model::spray::PortGen;
    use ferroce_proto::params::SPRAY_ZERO_SEED;

    #[test]
    fn the_zero_seed_replacement_is_the_models() {
        assert_eq!(PortGen::new(0), PortGen::new(SPRAY_ZERO_SEED));
    }
}
