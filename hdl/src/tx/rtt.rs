//! `rtt`: one path's round-trip estimate, as the model keeps it
//! (`ferroce_proto::model::Endpoint`'s `on_ack` sample and `rto`), in
//! combinational logic.
//!
//! Inputs: the path's smoothed RTT `srtt` and variation `rttvar` (ps), `has`
//! (a sample has been taken), the time `now` (ns) and the ACK's timestamp
//! echo `ts` (ns), the least RTO `rto_min` (ns). Outputs:
//! * `srtt_next`, `rttvar_next`: the estimates after the sample
//!   `(now - ts) x 1000` ps: `srtt = (7 srtt + sample) / 8`,
//!   `var = (3 var + |srtt - sample|) / 4`; the first sample gives
//!   `srtt = sample`, `var = sample / 2`;
//! * `rto`: `max(2 srtt + 4 var, rto_min x 1000)` ps (`rto_min` before the
//!   first sample);
//! * `srtt_ns`: `srtt / 1000` rounded down (0 before the first sample), for
//!   `cc`'s one cut per RTT and the register window.
//!
//! All arithmetic is 56 bits wide (products by 1000, 7 and 3 as shifts and
//! adds). The division is exact: `floor(x / 1000) = (x * M) >> 66` with
//! `M = ceil(2^66 / 1000)` for every `x < 2^56` (Granlund and Montgomery,
//! "Division by invariant integers using multiplication", PLDI 1994), so
//! the cut-once-per-RTT test agrees with the model's comparison in ps.

use std::ops::Mul;

use rust_hdl::prelude::*;

use crate::blocks::{HdlDefault, HdlStruct};

/// Width of the estimates (ps).
pub const EST_BITS: usize = 56;
/// Width of the exact quotient's product.
const PROD_BITS: usize = 2 * EST_BITS + 1;
/// `ceil(2^66 / 1000)`: a 57-bit multiplier.
pub const DIV1000_M: u128 = (1u128 << 66).div_ceil(1000);
/// Where the quotient starts in the product.
const DIV1000_SHIFT: usize = 66;

/// A time in ns zero-extended to the estimates' width.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Ns56 {
    pub lo: Bits<32>,
    pub hi: Bits<{ EST_BITS - 32 }>,
}

/// An estimate zero-extended to the product's width.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct EstWide {
    pub lo: Bits<EST_BITS>,
    pub hi: Bits<{ PROD_BITS - EST_BITS }>,
}

/// The multiplier at the product's width.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct MWide {
    pub lo: Bits<64>,
    pub hi: Bits<{ PROD_BITS - 64 }>,
}

/// x * M at one width: `#[hdl_gen]` writes `a * b`, exact and lint-clean at
/// equal widths (rust-hdl's `Bits` multiplies only 16 x 16, hence this
/// impl for the simulation).
impl Mul<MWide> for EstWide {
    type Output = Bits<PROD_BITS>;

    fn mul(self, rhs: MWide) -> Bits<PROD_BITS> {
        let a = Bits::<PROD_BITS>::from(self).to_u128();
        let b = Bits::<PROD_BITS>::from(rhs).to_u128();
        let p = a.wrapping_mul(b) & ((1u128 << PROD_BITS) - 1);
        let lo: Bits<PROD_BITS> = (p as u64).into();
        let hi: Bits<PROD_BITS> = ((p >> 64) as u64).into();
        lo | (hi << 64)
    }
}

/// The estimator.
#[derive(LogicBlock, HdlDefault)]
pub struct Rtt {
    pub srtt: Signal<In, Bits<EST_BITS>>,
    pub rttvar: Signal<In, Bits<EST_BITS>>,
    pub has: Signal<In, bool>,
    pub now: Signal<In, Bits<32>>,
    pub ts: Signal<In, Bits<32>>,
    pub rto_min: Signal<In, Bits<32>>,
    pub srtt_next: Signal<Out, Bits<EST_BITS>>,
    pub rttvar_next: Signal<Out, Bits<EST_BITS>>,
    pub rto: Signal<Out, Bits<EST_BITS>>,
    pub srtt_ns: Signal<Out, Bits<32>>,
    rtt_z: Signal<Local, Ns56>,
    rtt56: Signal<Local, Bits<EST_BITS>>,
    rtt_ps: Signal<Local, Bits<EST_BITS>>,
    min56: Signal<Local, Bits<EST_BITS>>,
    min_z: Signal<Local, Ns56>,
    min_ps: Signal<Local, Bits<EST_BITS>>,
    diff: Signal<Local, Bits<EST_BITS>>,
    est: Signal<Local, Bits<EST_BITS>>,
    srtt_w: Signal<Local, EstWide>,
    prod: Signal<Local, Bits<PROD_BITS>>,
    // the product's bits below and above the quotient
    unused_ok: Signal<Local, bool>,
    #[constant(0u64)]
    zero_hi: Constant<Bits<{ EST_BITS - 32 }>>,
    #[constant(0u64)]
    zero_wide: Constant<Bits<{ PROD_BITS - EST_BITS }>>,
    #[constant(MWide { lo: (DIV1000_M as u64).into(), hi: ((DIV1000_M >> 64) as u64).into() })]
    m: Constant<MWide>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
    #[constant(DIV1000_SHIFT as u64)]
    shift: Constant<Bits<7>>,
}

impl Logic for Rtt {
    #[hdl_gen]
    fn update(&mut self) {
        // sample = (now - ts) x 1000 = x 1024 - x 16 - x 8
        self.rtt_z.next.lo = self.now.val() - self.ts.val();
        self.rtt_z.next.hi = self.zero_hi.val();
        self.rtt56.next = self.rtt_z.val().into();
        self.rtt_ps.next = (self.rtt56.val() << 10) - (self.rtt56.val() << 4) - (self.rtt56.val() << 3);
        self.min_z.next.lo = self.rto_min.val();
        self.min_z.next.hi = self.zero_hi.val();
        self.min56.next = self.min_z.val().into();
        self.min_ps.next = (self.min56.val() << 10) - (self.min56.val() << 4) - (self.min56.val() << 3);
        if self.srtt.val() > self.rtt_ps.val() {
            self.diff.next = self.srtt.val() - self.rtt_ps.val();
        } else {
            self.diff.next = self.rtt_ps.val() - self.srtt.val();
        }
        if self.has.val() {
            self.srtt_next.next = (((self.srtt.val() << 3) - self.srtt.val()) + self.rtt_ps.val()) >> 3;
            self.rttvar_next.next = (((self.rttvar.val() << 1) + self.rttvar.val()) + self.diff.val()) >> 2;
        } else {
            self.srtt_next.next = self.rtt_ps.val();
            self.rttvar_next.next = self.rtt_ps.val() >> 1;
        }
        self.est.next = (self.srtt.val() << 1) + (self.rttvar.val() << 2);
        if self.has.val() & (self.est.val() > self.min_ps.val()) {
            self.rto.next = self.est.val();
        } else {
            self.rto.next = self.min_ps.val();
        }
        self.srtt_w.next.lo = self.srtt.val();
        self.srtt_w.next.hi = self.zero_wide.val();
        self.prod.next = self.srtt_w.val() * self.m.val();
        self.unused_ok.next = false & self.prod.val().any();
        if self.has.val() {
            self.srtt_ns.next = self.prod.val().get_bits::<32>(self.shift.val().index());
        } else {
            self.srtt_ns.next = self.zero32.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferroce_proto::rng::Rng;

    /// The model's arithmetic, in ps, for one sample.
    fn model(srtt: u64, var: u64, has: bool, now: u32, ts: u32, rto_min: u32) -> (u64, u64, u64, u64) {
        let mask = (1u64 << EST_BITS) - 1;
        let sample = (now.wrapping_sub(ts) as u64) * 1000;
        let (s, v) = if has {
            (((7 * srtt + sample) & mask) >> 3, ((3 * var + srtt.abs_diff(sample)) & mask) >> 2)
        } else {
            (sample, sample / 2)
        };
        let min = rto_min as u64 * 1000;
        let est = (2 * srtt + 4 * var) & mask;
        let rto = if has && est > min { est } else { min };
        // The quotient keeps its low 32 bits (ns) as the port does.
        (s, v, rto, if has { (srtt / 1000) as u32 as u64 } else { 0 })
    }

    #[test]
    fn the_estimator_computes_what_the_model_does() {
        let mut uut = Rtt::default();
        uut.connect_all();
        let mut rng = Rng::new(3);
        for i in 0..4000 {
            // Estimates up to tens of ms, and a few near the top of 56 bits.
            let top = if i % 10 == 0 { (1u64 << EST_BITS) - 1 } else { 50_000_000_000 };
            let (srtt, var) = (rng.below(top), rng.below(top / 4));
            let has = i % 7 != 0;
            let ts = rng.next_u64() as u32;
            let now = ts.wrapping_add(rng.below(10_000_000) as u32);
            let rto_min = rng.below(1_000_000) as u32;
            uut.srtt.next = srtt.into();
            uut.rttvar.next = var.into();
            uut.has.next = has;
            uut.now.next = (now as u64).into();
            uut.ts.next = (ts as u64).into();
            uut.rto_min.next = (rto_min as u64).into();
            for _ in 0..8 {
                uut.update_all();
            }
            let got = (uut.srtt_next.val().to_u64(), uut.rttvar_next.val().to_u64(), uut.rto.val().to_u64(), uut.srtt_ns.val().to_u64());
            assert_eq!(got, model(srtt, var, has, now, ts, rto_min), "srtt {srtt} var {var} has {has} now {now} ts {ts}");
        }
    }

    #[test]
    fn the_quotient_is_exact_over_56_bits() {
        let m = DIV1000_M;
        let mut rng = Rng::new(9);
        for x in (0..5000u128).chain([(1 << 56) - 1, (1 << 56) - 1000, 999, 1000, 1001]).chain((0..5000).map(|_| rng.below(1 << 56) as u128)) {
            assert_eq!((x * m) >> DIV1000_SHIFT, x / 1000, "{x}");
        }
    }
}
