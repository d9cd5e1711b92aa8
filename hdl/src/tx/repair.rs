//! `repair`: the route of a retransmission when repairs take a clean route
//! (`Recovery::repair_route` `CleanPath`). Reference:
//! `ferroce_proto::model::Endpoint::repair_sport`.
//!
//! Combinational. Inputs: the connection's paths (`present`, path i at bit
//! i), which of them are retired, each path's losses in its current epoch
//! (`lost`, 16 bits per path, path i at bits 16i..16i+15), the lost
//! packet's path `p` and its timeouts in a row (`turn`). Output `q`: the
//! path whose source port the repair takes.
//!
//! The other live paths (present, not retired, not `p`) are taken in the
//! order p+1, p+2, ... around the connection's paths. Counting that order
//! modulo 2^PATH_BITS instead of modulo the connection's path count gives
//! the same order, since the paths past the count are not present. With
//! none, `q` is `p`. After timeouts in a row (`turn` > 0) `q` is the
//! (`turn` mod their number)-th of them (from 0), so consecutive repairs
//! of a path whose route may be dead try different routes; otherwise it is
//! the one with the fewest losses, the first in that order on a tie.
//!
//! Structure: the fewest losses by a balanced 16-leaf comparison tree over
//! the keys {eligible, !lost, rank} (rank: `PATHS - 1` minus the distance
//! from p+1, so the largest key wins and the nearest wins a tie, as in
//! `spray`); the turn by the live mask rotated to start at p+1, its
//! population, `turn` mod that population (restoring division, one step
//! per bit of `turn`) and the set bit of that rank (a chain of running
//! counts).

use rust_hdl::prelude::*;

use ferroce_proto::params::{HEALTH_EPOCH_BITS, HEALTH_RTO_BITS};

use super::cfg::PATH_BITS;
use super::spray::PATHS;
use crate::blocks::{HdlDefault, HdlStruct};

/// Leaves of the comparison tree: 16, the most paths of any build.
const LEAVES: usize = 16;
const _: () = assert!(PATHS <= LEAVES);

/// Bits of a count of paths, and of a remainder step of the division.
const N_BITS: usize = PATH_BITS + 1;

/// A path's key in the comparison tree: the largest wins.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct RouteKey {
    pub rank: Bits<PATH_BITS>,
    pub clean: Bits<HEALTH_EPOCH_BITS>,
    pub eligible: bool,
}

/// Width of a [`RouteKey`].
const KEY_BITS: usize = PATH_BITS + HEALTH_EPOCH_BITS + 1;

/// Packs one path's [`RouteKey`] (a block of its own: `#[hdl_gen]` cannot
/// assign a field of an array element).
#[derive(LogicBlock, Default)]
pub struct RouteKeyPack {
    pub rank: Signal<In, Bits<PATH_BITS>>,
    pub lost: Signal<In, Bits<HEALTH_EPOCH_BITS>>,
    pub eligible: Signal<In, bool>,
    pub key: Signal<Out, Bits<KEY_BITS>>,
    key_fields: Signal<Local, RouteKey>,
}

impl Logic for RouteKeyPack {
    #[hdl_gen]
    fn update(&mut self) {
        self.key_fields.next.rank = self.rank.val();
        self.key_fields.next.clean = !self.lost.val();
        self.key_fields.next.eligible = self.eligible.val();
        self.key.next = self.key_fields.val().into();
    }
}

/// A path number widened to a count.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct PathZ {
    pub lo: Bits<PATH_BITS>,
    pub hi: bool,
}

/// The route chooser.
#[derive(LogicBlock, HdlDefault)]
pub struct Repair {
    pub present: Signal<In, Bits<PATHS>>,
    pub retired: Signal<In, Bits<PATHS>>,
    pub lost: Signal<In, Bits<{ HEALTH_EPOCH_BITS * PATHS }>>,
    pub p: Signal<In, Bits<PATH_BITS>>,
    pub turn: Signal<In, Bits<HEALTH_RTO_BITS>>,
    pub q: Signal<Out, Bits<PATH_BITS>>,
    #[constants(|i: usize| i as u64)]
    path_id: [Constant<Bits<PATH_BITS>>; PATHS],
    #[constants(|i: usize| (HEALTH_EPOCH_BITS * i) as u64)]
    lost_at: [Constant<Bits<{ crate::blocks::index_bits(HEALTH_EPOCH_BITS * PATHS) }>>; PATHS],
    /// Bit `HEALTH_RTO_BITS - 1 - b` of `turn`, the division's step b.
    #[constants(|b: usize| (HEALTH_RTO_BITS - 1 - b) as u64)]
    turn_bit: [Constant<Bits<{ crate::blocks::index_bits(HEALTH_RTO_BITS) }>>; HEALTH_RTO_BITS],
    #[constant(PATHS as u64 - 1)]
    last_rank: Constant<Bits<PATH_BITS>>,
    #[constant(1u64)]
    one_p: Constant<Bits<PATH_BITS>>,
    #[constant(1u64)]
    one_n: Constant<Bits<N_BITS>>,
    #[constant(0u64)]
    zero_n: Constant<Bits<N_BITS>>,
    #[constant(0u64)]
    zero_p: Constant<Bits<PATH_BITS>>,
    #[constant(0u64)]
    zero_turn: Constant<Bits<HEALTH_RTO_BITS>>,
    #[constant(0u64)]
    key0: Constant<Bits<KEY_BITS>>,
    #[constant(1u64)]
    one_paths: Constant<Bits<PATHS>>,
    #[constant(PATHS as u64)]
    paths_n: Constant<Bits<N_BITS>>,
    /// The other live paths.
    others: Signal<Local, Bits<PATHS>>,
    p1: Signal<Local, Bits<PATH_BITS>>,
    // ---- the fewest losses ----
    leaf: [RouteKeyPack; PATHS],
    key4: [Signal<Local, Bits<KEY_BITS>>; LEAVES],
    idx4: [Signal<Local, Bits<PATH_BITS>>; LEAVES],
    key3: [Signal<Local, Bits<KEY_BITS>>; 8],
    idx3: [Signal<Local, Bits<PATH_BITS>>; 8],
    key2: [Signal<Local, Bits<KEY_BITS>>; 4],
    idx2: [Signal<Local, Bits<PATH_BITS>>; 4],
    key1: [Signal<Local, Bits<KEY_BITS>>; 2],
    idx1: [Signal<Local, Bits<PATH_BITS>>; 2],
    best: Signal<Local, Bits<PATH_BITS>>,
    // ---- the turn ----
    p1_z: Signal<Local, PathZ>,
    shift: Signal<Local, Bits<N_BITS>>,
    back: Signal<Local, Bits<N_BITS>>,
    rot: Signal<Local, Bits<PATHS>>,
    /// Running count of the rotated mask's set bits below bit t.
    cnt: [Signal<Local, Bits<N_BITS>>; PATHS + 1],
    live_n: Signal<Local, Bits<N_BITS>>,
    /// Restoring division of `turn` by `live_n`: the remainder after step
    /// b, and step b's partial remainder before the subtraction.
    rem: [Signal<Local, Bits<N_BITS>>; HEALTH_RTO_BITS + 1],
    part: [Signal<Local, Bits<N_BITS>>; HEALTH_RTO_BITS],
    k: Signal<Local, Bits<N_BITS>>,
    at: Signal<Local, Bits<PATH_BITS>>,
    nth: Signal<Local, Bits<PATH_BITS>>,
}

/// `Repair::cnt`'s last element (loop bounds are the only place a build's
/// size can index an array).
const PATHS_END: usize = PATHS + 1;
/// `Repair::rem`'s last element.
const TURN_END: usize = HEALTH_RTO_BITS + 1;

impl Logic for Repair {
    #[hdl_gen]
    fn update(&mut self) {
        self.others.next = self.present.val() & !self.retired.val() & !(self.one_paths.val() << self.p.val());
        self.p1.next = self.p.val() + self.one_p.val();

        // The fewest losses: eligible, then clean, then near.
        for i in 0..PATHS {
            self.leaf[i].rank.next = self.last_rank.val() - (self.path_id[i].val() - self.p1.val());
            self.leaf[i].lost.next = self.lost.val().get_bits::<HEALTH_EPOCH_BITS>(self.lost_at[i].val().index());
            self.leaf[i].eligible.next = self.others.val().get_bit(i);
        }
        for i in 0..LEAVES {
            self.key4[i].next = self.key0.val();
            self.idx4[i].next = self.zero_p.val();
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
        if self.key1[0].val() >= self.key1[1].val() {
            self.best.next = self.idx1[0].val();
        } else {
            self.best.next = self.idx1[1].val();
        }

        // The turn: the other live paths from p+1 on, at bits 0, 1, ...
        self.p1_z.next.lo = self.p.val();
        self.p1_z.next.hi = false;
        self.shift.next = bit_cast::<N_BITS, N_BITS>(self.p1_z.val().into()) + self.one_n.val();
        self.back.next = self.paths_n.val() - self.shift.val();
        self.rot.next = (self.others.val() >> self.shift.val()) | (self.others.val() << self.back.val());
        self.cnt[0].next = self.zero_n.val();
        for t in 0..PATHS {
            self.cnt[t + 1].next = self.cnt[t].val();
            if self.rot.val().get_bit(t) {
                self.cnt[t + 1].next = self.cnt[t].val() + self.one_n.val();
            }
        }
        for t in PATHS..PATHS_END {
            self.live_n.next = self.cnt[t].val();
        }
        // turn mod live_n, a bit of turn per step from the top (a
        // remainder is below live_n, so a step's partial one fits N_BITS).
        self.rem[0].next = self.zero_n.val();
        for b in 0..HEALTH_RTO_BITS {
            self.part[b].next = self.rem[b].val() << self.one_n.val();
            if self.turn.val().get_bit(self.turn_bit[b].val().index()) {
                self.part[b].next = (self.rem[b].val() << self.one_n.val()) | self.one_n.val();
            }
            self.rem[b + 1].next = self.part[b].val();
            if self.part[b].val() >= self.live_n.val() {
                self.rem[b + 1].next = self.part[b].val() - self.live_n.val();
            }
        }
        for b in HEALTH_RTO_BITS..TURN_END {
            self.k.next = self.rem[b].val();
        }
        // The k-th set bit of the rotated mask (counts rise, so one matches).
        self.at.next = self.zero_p.val();
        for t in 0..PATHS {
            if self.rot.val().get_bit(t) & (self.cnt[t].val() == self.k.val()) {
                self.at.next = self.path_id[t].val();
            }
        }
        self.nth.next = self.p1.val() + self.at.val();

        if !self.live_n.val().any() {
            self.q.next = self.p.val();
        } else if self.turn.val() != self.zero_turn.val() {
            self.q.next = self.nth.val();
        } else {
            self.q.next = self.best.val();
        }
    }
}
