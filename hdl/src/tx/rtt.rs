//! `rtt`: one path's round-trip estimate, as the model keeps it
//! (`ferroce_proto::model::Endpoint`'s `on_ack` sample and `rto`), in
//! combinational logic.
//!
//! An estimate is a time in ps kept as whole ns and the ps left over
//! ([`Est`]: `ns x 1000 + ps`, `ps < 1000`), so that the ns the rest of the
//! send path wants need no division. Inputs: the path's smoothed RTT `srtt`
//! and variation `rttvar`, `has` (a sample has been taken), the time `now`
//! (ns) and the ACK's timestamp echo `ts` (ns), the least RTO `rto_min` (ns).
//! Outputs:
//! * `srtt_next`, `rttvar_next`: the estimates after the sample
//!   `(now - ts) x 1000` ps: `srtt = (7 srtt + sample) / 8`,
//!   `var = (3 var + |srtt - sample|) / 4`; the first sample gives
//!   `srtt = sample`, `var = sample / 2`;
//! * `rto`: `max(2 srtt + 4 var, rto_min x 1000)` ps (`rto_min` before the
//!   first sample), as whole ns and the ps left over ([`Rto`]): the engine's
//!   timer takes the ns, and no product by 1000 is made;
//! * `srtt_ns`: `srtt / 1000` rounded down (0 before the first sample), for
//!   `cc`'s one cut per RTT and the register window: the estimate's `ns`.
//!
//! The divisions are exact in this form, and both estimates come from one
//! difference of ns parts, `t = sample_ns - srtt_ns` (below 2^32 either
//! way). With `A = 7 srtt_ns + sample_ns = 8 srtt_ns + t`, `7 srtt + sample
//! = 1000 A + 7 ps`; writing `A = 8 a + m` (`m < 8`), `a = srtt_ns +
//! floor(t / 8)` and `m = t mod 8`, and the eighth is `1000 a + 125 m +
//! floor(7 ps / 8)`, the last two terms (below 1 750) carrying at most one
//! ns (their carry, from the sign of the terms less 1 000, is the carry-in
//! of `a`'s addition). `|srtt - sample|` is `-t` ns and srtt's ps when
//! `t <= 0`, else `t` ns or, with ps left, `t - 1` ns and `1000 - ps`: one
//! addition of 1, 0 or -1 to `t` or its complement. The variation's quarter
//! is the same with `A = 3 var_ns + diff_ns = 4 var_ns + e`, `e = diff_ns -
//! var_ns`, `A = 4 a + m`, `250 m + floor((3 ps + diff_ps) / 4)`. A sample
//! is below 2^32 ns (a 32-bit difference of times) and each new estimate
//! lies between the old one and the sample (or the difference), so both
//! stay below 2^32 ns: the ns parts are 32 bits, the sums on them 36.
//! The RTO `2 srtt + 4 var` is `1000 q + y` with `q` the sum of the ns parts
//! (36 bits) and `y` of the ps parts (below 6 000): its ns are `q + k` with
//! `k = floor(y / 1000)` (at most 5, from five compares with constants),
//! its ps `y - 1000 k`; it exceeds `rto_min x 1000` ps exactly when its ns
//! exceed `rto_min`, or equal it with ps left over.

use rust_hdl::prelude::*;

use crate::blocks::{HdlDefault, HdlStruct};

/// Width of sums of ns parts, and of the RTO's ns: at most `6 x 2^32` ns
/// (`2 srtt + 4 var`, each below 2^32 ns) or `rto_min`.
pub const SUM_BITS: usize = 36;
/// Width of sums of ps parts (at most 5 994).
const PS_SUM_BITS: usize = 13;
// The sign of a ps sum less 1 000 is its bit 12 (the update writes the
// number: rust-hdl emits a name as it is, and the Verilog has no such
// parameter).
const _: () = assert!(PS_SUM_BITS == 13);

/// A time in ps as `ns x 1000 + ps`, `ps < 1000`.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Est {
    pub ns: Bits<32>,
    pub ps: Bits<10>,
}

impl Est {
    /// `t` ps, which must be below 2^32 ns.
    pub fn from_ps(t: u64) -> Est {
        assert!(t / 1000 < 1 << 32, "{t} ps is beyond 2^32 ns");
        Est { ns: (t / 1000).into(), ps: (t % 1000).into() }
    }

    /// The time in ps.
    pub fn to_ps(&self) -> u64 {
        self.ns.to_u64() * 1000 + self.ps.to_u64()
    }
}

/// A ns part zero-extended to the sums' width.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct NsWide {
    pub lo: Bits<32>,
    pub hi: Bits<{ SUM_BITS - 32 }>,
}

/// A ps part zero-extended to its sums' width.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct PsWide {
    pub lo: Bits<10>,
    pub hi: Bits<{ PS_SUM_BITS - 10 }>,
}

/// An RTO as `ns x 1000 + ps`, `ps < 1000`.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Rto {
    pub ns: Bits<SUM_BITS>,
    pub ps: Bits<10>,
}

impl Rto {
    /// The time in ps.
    pub fn to_ps(&self) -> u64 {
        self.ns.to_u64() * 1000 + self.ps.to_u64()
    }
}

/// A carry zero-extended to the sums of ns parts.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct BitWide {
    pub lo: bool,
    pub hi: Bits<{ SUM_BITS - 1 }>,
}

/// A count below 8 zero-extended to the sums of ns parts.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct SmallWide {
    pub lo: Bits<3>,
    pub hi: Bits<{ SUM_BITS - 3 }>,
}

/// The estimator.
#[derive(LogicBlock, HdlDefault)]
pub struct Rtt {
    pub srtt: Signal<In, Est>,
    pub rttvar: Signal<In, Est>,
    pub has: Signal<In, bool>,
    pub now: Signal<In, Bits<32>>,
    pub ts: Signal<In, Bits<32>>,
    pub rto_min: Signal<In, Bits<32>>,
    pub srtt_next: Signal<Out, Est>,
    pub rttvar_next: Signal<Out, Est>,
    pub rto: Signal<Out, Rto>,
    pub srtt_ns: Signal<Out, Bits<32>>,
    // the sample (ns) and the parts at the sums' widths
    s: Signal<Local, Bits<32>>,
    s_z: Signal<Local, NsWide>,
    sw: Signal<Local, Bits<SUM_BITS>>,
    qs_z: Signal<Local, NsWide>,
    qs: Signal<Local, Bits<SUM_BITS>>,
    qv_z: Signal<Local, NsWide>,
    qv: Signal<Local, Bits<SUM_BITS>>,
    rs_z: Signal<Local, PsWide>,
    rs: Signal<Local, Bits<PS_SUM_BITS>>,
    rv_z: Signal<Local, PsWide>,
    rv: Signal<Local, Bits<PS_SUM_BITS>>,
    // t = sample - srtt's ns (two's complement), the one difference both
    // estimates are made from
    t: Signal<Local, Bits<SUM_BITS>>,
    t_neg: Signal<Local, bool>,
    t_sh: Signal<Local, Bits<SUM_BITS>>,
    t_lo: Signal<Local, Bits<SUM_BITS>>,
    // srtt: 7 srtt's ns + sample = 8 srtt's ns + t, x = 125 (t mod 8) + floor(7 ps / 8)
    m7: Signal<Local, Bits<PS_SUM_BITS>>,
    x7: Signal<Local, Bits<PS_SUM_BITS>>,
    x7m: Signal<Local, Bits<PS_SUM_BITS>>,
    c7: Signal<Local, bool>,
    c7_z: Signal<Local, BitWide>,
    c7w: Signal<Local, Bits<SUM_BITS>>,
    s_ns: Signal<Local, Bits<SUM_BITS>>,
    s_ps: Signal<Local, Bits<PS_SUM_BITS>>,
    // |srtt - sample| as ns and ps: (t, or its complement) plus 0, 1 or -1
    d_flip: Signal<Local, Bits<32>>,
    d_add: Signal<Local, Bits<32>>,
    d_ns: Signal<Local, Bits<32>>,
    d_ps: Signal<Local, Bits<10>>,
    dn_z: Signal<Local, NsWide>,
    dn: Signal<Local, Bits<SUM_BITS>>,
    dp_z: Signal<Local, PsWide>,
    dp: Signal<Local, Bits<PS_SUM_BITS>>,
    // var: 3 var's ns + diff = 4 var's ns + e, e = diff - var's ns,
    // x = 250 (e mod 4) + floor((3 ps + diff) / 4)
    e: Signal<Local, Bits<SUM_BITS>>,
    e_sh: Signal<Local, Bits<SUM_BITS>>,
    e_lo: Signal<Local, Bits<SUM_BITS>>,
    m3: Signal<Local, Bits<PS_SUM_BITS>>,
    b3: Signal<Local, Bits<PS_SUM_BITS>>,
    x3: Signal<Local, Bits<PS_SUM_BITS>>,
    x3m: Signal<Local, Bits<PS_SUM_BITS>>,
    c3: Signal<Local, bool>,
    c3_z: Signal<Local, BitWide>,
    c3w: Signal<Local, Bits<SUM_BITS>>,
    v_ns: Signal<Local, Bits<SUM_BITS>>,
    v_ps: Signal<Local, Bits<PS_SUM_BITS>>,
    // 2 srtt + 4 var = 1000 q + y = 1000 (q + k) + (y - 1000 k), and rto_min
    q: Signal<Local, Bits<SUM_BITS>>,
    y: Signal<Local, Bits<PS_SUM_BITS>>,
    k: Signal<Local, Bits<3>>,
    kps: Signal<Local, Bits<PS_SUM_BITS>>,
    k_z: Signal<Local, SmallWide>,
    kw: Signal<Local, Bits<SUM_BITS>>,
    est_ns: Signal<Local, Bits<SUM_BITS>>,
    est_ps: Signal<Local, Bits<PS_SUM_BITS>>,
    min_z: Signal<Local, NsWide>,
    min36: Signal<Local, Bits<SUM_BITS>>,
    // the sums' bits above the estimates (zero by the bounds above) and
    // those above the remainders
    unused_ok: Signal<Local, bool>,
    #[constant(0u64)]
    zero_ns: Constant<Bits<{ SUM_BITS - 32 }>>,
    #[constant(0u64)]
    zero_ps: Constant<Bits<{ PS_SUM_BITS - 10 }>>,
    #[constant(0u64)]
    zero_k: Constant<Bits<{ SUM_BITS - 3 }>>,
    #[constant(0u64)]
    zero3: Constant<Bits<3>>,
    #[constant(0u64)]
    zero_ps13: Constant<Bits<PS_SUM_BITS>>,
    /// 1000 j ps, j = 1..5: the thresholds of the RTO's ps sum.
    #[constants(|j: usize| 1000 * (j as u64 + 1))]
    k_at: [Constant<Bits<PS_SUM_BITS>>; 5],
    #[constants(|j: usize| j as u64 + 1)]
    k_of: [Constant<Bits<3>>; 5],
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
    #[constant(u32::MAX as u64)]
    ones32: Constant<Bits<32>>,
    #[constant(0u64)]
    zero_wide1: Constant<Bits<{ SUM_BITS - 1 }>>,
    #[constant(0u64)]
    zero10: Constant<Bits<10>>,
    #[constant(500u64)]
    half10: Constant<Bits<10>>,
    #[constant(1000u64)]
    k1000_10: Constant<Bits<10>>,
    #[constant(1000u64)]
    k1000: Constant<Bits<PS_SUM_BITS>>,
    #[constant(1u64)]
    one32: Constant<Bits<32>>,
    #[constant(7u64)]
    mask8: Constant<Bits<SUM_BITS>>,
    #[constant(3u64)]
    mask4: Constant<Bits<SUM_BITS>>,
    #[constant(0u64)]
    at0: Constant<Bits<6>>,
    #[constant(0u64)]
    at0_ps: Constant<Bits<4>>,
}

impl Logic for Rtt {
    #[hdl_gen]
    fn update(&mut self) {
        self.s.next = self.now.val() - self.ts.val();
        self.s_z.next.lo = self.s.val();
        self.s_z.next.hi = self.zero_ns.val();
        self.sw.next = self.s_z.val().into();
        self.qs_z.next.lo = self.srtt.val().ns;
        self.qs_z.next.hi = self.zero_ns.val();
        self.qs.next = self.qs_z.val().into();
        self.qv_z.next.lo = self.rttvar.val().ns;
        self.qv_z.next.hi = self.zero_ns.val();
        self.qv.next = self.qv_z.val().into();
        self.rs_z.next.lo = self.srtt.val().ps;
        self.rs_z.next.hi = self.zero_ps.val();
        self.rs.next = self.rs_z.val().into();
        self.rv_z.next.lo = self.rttvar.val().ps;
        self.rv_z.next.hi = self.zero_ps.val();
        self.rv.next = self.rv_z.val().into();

        // t = sample - srtt's ns: below 2^32 either way, so bit 32 (and every
        // bit above it) is its sign.
        self.t.next = self.sw.val() - self.qs.val();
        self.t_neg.next = self.t.val().get_bit(32);
        // floor(t / 8) in its low 32 bits (all the sum below keeps): t's
        // bits 32 and up are its sign.
        self.t_sh.next = self.t.val() >> 3;

        // (7 srtt + sample) / 8: 7 srtt's ns + sample = 8 srtt's ns + t,
        // so its eighth is srtt's ns + floor(t / 8), and t mod 8 goes on
        // with the ps.
        self.t_lo.next = self.t.val() & self.mask8.val();
        self.m7.next = self.t_lo.val().get_bits::<PS_SUM_BITS>(self.at0.val().index());
        self.x7.next =
            (self.m7.val() << 7) - (self.m7.val() << 1) - self.m7.val() + (((self.rs.val() << 3) - self.rs.val()) >> 3);
        // x7 < 2 000: x7 - 1 000 is negative exactly when its sign, bit
        // 12 (PS_SUM_BITS - 1), is set.
        self.x7m.next = self.x7.val() - self.k1000.val();
        self.c7.next = !self.x7m.val().get_bit(12);
        self.c7_z.next.lo = self.c7.val();
        self.c7_z.next.hi = self.zero_wide1.val();
        self.c7w.next = self.c7_z.val().into();
        self.s_ns.next = self.qs.val() + self.t_sh.val() + self.c7w.val();
        self.s_ps.next = self.x7.val();
        if self.c7.val() {
            self.s_ps.next = self.x7m.val();
        }

        // |srtt - sample|: srtt >= sample exactly when its ns part is
        // (t <= 0): -t = !t + 1 ns and srtt's ps; otherwise t ns (no ps
        // left) or t - 1 ns and 1000 - ps. One addition of 1, 0 or -1 to t
        // or its complement.
        self.d_flip.next = self.t.val().get_bits::<32>(self.at0.val().index());
        self.d_add.next = self.zero32.val();
        self.d_ps.next = self.zero10.val();
        if self.t_neg.val() | !self.t.val().any() {
            self.d_flip.next = !self.t.val().get_bits::<32>(self.at0.val().index());
            self.d_add.next = self.one32.val();
            self.d_ps.next = self.srtt.val().ps;
        } else if self.srtt.val().ps.any() {
            self.d_add.next = self.ones32.val();
            self.d_ps.next = self.k1000_10.val() - self.srtt.val().ps;
        }
        self.d_ns.next = self.d_flip.val() + self.d_add.val();
        self.dn_z.next.lo = self.d_ns.val();
        self.dn_z.next.hi = self.zero_ns.val();
        self.dn.next = self.dn_z.val().into();
        self.dp_z.next.lo = self.d_ps.val();
        self.dp_z.next.hi = self.zero_ps.val();
        self.dp.next = self.dp_z.val().into();

        // (3 var + |srtt - sample|) / 4: 3 var's ns + diff = 4 var's ns + e,
        // e = diff - var's ns, so its quarter is var's ns + floor(e / 4).
        self.e.next = self.dn.val() - self.qv.val();
        self.e_sh.next = self.e.val() >> 2;
        self.e_lo.next = self.e.val() & self.mask4.val();
        self.m3.next = self.e_lo.val().get_bits::<PS_SUM_BITS>(self.at0.val().index());
        self.b3.next = (self.rv.val() << 1) + self.rv.val() + self.dp.val();
        self.x3.next = (self.m3.val() << 8) - (self.m3.val() << 2) - (self.m3.val() << 1) + (self.b3.val() >> 2);
        self.x3m.next = self.x3.val() - self.k1000.val();
        self.c3.next = !self.x3m.val().get_bit(12);
        self.c3_z.next.lo = self.c3.val();
        self.c3_z.next.hi = self.zero_wide1.val();
        self.c3w.next = self.c3_z.val().into();
        self.v_ns.next = self.qv.val() + self.e_sh.val() + self.c3w.val();
        self.v_ps.next = self.x3.val();
        if self.c3.val() {
            self.v_ps.next = self.x3m.val();
        }

        if self.has.val() {
            self.srtt_next.next.ns = self.s_ns.val().get_bits::<32>(self.at0.val().index());
            self.srtt_next.next.ps = self.s_ps.val().get_bits::<10>(self.at0_ps.val().index());
            self.rttvar_next.next.ns = self.v_ns.val().get_bits::<32>(self.at0.val().index());
            self.rttvar_next.next.ps = self.v_ps.val().get_bits::<10>(self.at0_ps.val().index());
        } else {
            self.srtt_next.next.ns = self.s.val();
            self.srtt_next.next.ps = self.zero10.val();
            self.rttvar_next.next.ns = self.s.val() >> 1;
            if self.s.val().get_bit(0) {
                self.rttvar_next.next.ps = self.half10.val();
            } else {
                self.rttvar_next.next.ps = self.zero10.val();
            }
        }

        // max(2 srtt + 4 var, rto_min), as ns and ps
        self.q.next = (self.qs.val() << 1) + (self.qv.val() << 2);
        self.y.next = (self.rs.val() << 1) + (self.rv.val() << 2);
        self.k.next = self.zero3.val();
        self.kps.next = self.zero_ps13.val();
        for j in 0..5 {
            if self.y.val() >= self.k_at[j].val() {
                self.k.next = self.k_of[j].val();
                self.kps.next = self.k_at[j].val();
            }
        }
        self.k_z.next.lo = self.k.val();
        self.k_z.next.hi = self.zero_k.val();
        self.kw.next = self.k_z.val().into();
        self.est_ns.next = self.q.val() + self.kw.val();
        self.est_ps.next = self.y.val() - self.kps.val();
        self.min_z.next.lo = self.rto_min.val();
        self.min_z.next.hi = self.zero_ns.val();
        self.min36.next = self.min_z.val().into();
        self.rto.next.ns = self.min36.val();
        self.rto.next.ps = self.zero10.val();
        if self.has.val()
            & ((self.est_ns.val() > self.min36.val())
                | ((self.est_ns.val() == self.min36.val()) & self.est_ps.val().any()))
        {
            self.rto.next.ns = self.est_ns.val();
            self.rto.next.ps = self.est_ps.val().get_bits::<10>(self.at0_ps.val().index());
        }
        if self.has.val() {
            self.srtt_ns.next = self.srtt.val().ns;
        } else {
            self.srtt_ns.next = self.zero32.val();
        }
        self.unused_ok.next = false
            & (self.s_ns.val().any()
                | self.est_ps.val().any()
                | self.v_ns.val().any()
                | self.s_ps.val().any()
                | self.v_ps.val().any()
                | self.t_lo.val().any()
                | self.e_lo.val().any());
    }
}

/// A connection's tail-probe timeout before its backoff, as the model's
/// `Recovery::probe_timeout` (without the doubling): `max(srtt + 4 rttvar +
/// ack_delay, probe_min)` ps for an estimate (`has`), `rto_min` without
/// one; `ack_delay`, `probe_min` and `rto_min` in ns. The same form as
/// [`Rtt`]'s RTO: the ns parts summed (36 bits), the ps parts (below
/// 5 000) carrying at most four ns (combinational).
#[derive(LogicBlock, HdlDefault)]
pub struct ProbeTime {
    pub srtt: Signal<In, Est>,
    pub rttvar: Signal<In, Est>,
    pub has: Signal<In, bool>,
    pub ack_delay: Signal<In, Bits<32>>,
    pub probe_min: Signal<In, Bits<32>>,
    pub rto_min: Signal<In, Bits<32>>,
    pub timeout: Signal<Out, Rto>,
    qs_z: Signal<Local, NsWide>,
    qv_z: Signal<Local, NsWide>,
    qa_z: Signal<Local, NsWide>,
    pm_z: Signal<Local, NsWide>,
    rm_z: Signal<Local, NsWide>,
    rs_z: Signal<Local, PsWide>,
    rv_z: Signal<Local, PsWide>,
    q: Signal<Local, Bits<SUM_BITS>>,
    y: Signal<Local, Bits<PS_SUM_BITS>>,
    k: Signal<Local, Bits<3>>,
    kps: Signal<Local, Bits<PS_SUM_BITS>>,
    k_z: Signal<Local, SmallWide>,
    est_ns: Signal<Local, Bits<SUM_BITS>>,
    est_ps: Signal<Local, Bits<PS_SUM_BITS>>,
    pm: Signal<Local, Bits<SUM_BITS>>,
    #[constant(0u64)]
    zero_ns: Constant<Bits<{ SUM_BITS - 32 }>>,
    #[constant(0u64)]
    zero_ps: Constant<Bits<{ PS_SUM_BITS - 10 }>>,
    #[constant(0u64)]
    zero_k: Constant<Bits<{ SUM_BITS - 3 }>>,
    #[constant(0u64)]
    zero3: Constant<Bits<3>>,
    #[constant(0u64)]
    zero_ps13: Constant<Bits<PS_SUM_BITS>>,
    #[constant(0u64)]
    zero10: Constant<Bits<10>>,
    /// 1000 j ps, j = 1..4: the thresholds of the ps sum.
    #[constants(|j: usize| 1000 * (j as u64 + 1))]
    k_at: [Constant<Bits<PS_SUM_BITS>>; 4],
    #[constants(|j: usize| j as u64 + 1)]
    k_of: [Constant<Bits<3>>; 4],
    #[constant(0u64)]
    at0_ps: Constant<Bits<4>>,
}

impl Logic for ProbeTime {
    #[hdl_gen]
    fn update(&mut self) {
        self.qs_z.next.lo = self.srtt.val().ns;
        self.qs_z.next.hi = self.zero_ns.val();
        self.qv_z.next.lo = self.rttvar.val().ns;
        self.qv_z.next.hi = self.zero_ns.val();
        self.qa_z.next.lo = self.ack_delay.val();
        self.qa_z.next.hi = self.zero_ns.val();
        self.pm_z.next.lo = self.probe_min.val();
        self.pm_z.next.hi = self.zero_ns.val();
        self.rm_z.next.lo = self.rto_min.val();
        self.rm_z.next.hi = self.zero_ns.val();
        self.rs_z.next.lo = self.srtt.val().ps;
        self.rs_z.next.hi = self.zero_ps.val();
        self.rv_z.next.lo = self.rttvar.val().ps;
        self.rv_z.next.hi = self.zero_ps.val();
        self.q.next = bit_cast::<SUM_BITS, SUM_BITS>(self.qs_z.val().into())
            + (bit_cast::<SUM_BITS, SUM_BITS>(self.qv_z.val().into()) << 2)
            + bit_cast::<SUM_BITS, SUM_BITS>(self.qa_z.val().into());
        self.y.next = bit_cast::<PS_SUM_BITS, PS_SUM_BITS>(self.rs_z.val().into())
            + (bit_cast::<PS_SUM_BITS, PS_SUM_BITS>(self.rv_z.val().into()) << 2);
        self.k.next = self.zero3.val();
        self.kps.next = self.zero_ps13.val();
        for j in 0..4 {
            if self.y.val() >= self.k_at[j].val() {
                self.k.next = self.k_of[j].val();
                self.kps.next = self.k_at[j].val();
            }
        }
        self.k_z.next.lo = self.k.val();
        self.k_z.next.hi = self.zero_k.val();
        self.est_ns.next = self.q.val() + bit_cast::<SUM_BITS, SUM_BITS>(self.k_z.val().into());
        self.est_ps.next = self.y.val() - self.kps.val();
        self.pm.next = self.pm_z.val().into();
        self.timeout.next.ns = self.rm_z.val().into();
        self.timeout.next.ps = self.zero10.val();
        if self.has.val() {
            self.timeout.next.ns = self.pm.val();
            if (self.est_ns.val() > self.pm.val()) | ((self.est_ns.val() == self.pm.val()) & self.est_ps.val().any()) {
                self.timeout.next.ns = self.est_ns.val();
                self.timeout.next.ps = self.est_ps.val().get_bits::<10>(self.at0_ps.val().index());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferroce_proto::rng::Rng;

    /// The model's arithmetic, in ps, for one sample.
    fn model(srtt: u64, var: u64, has: bool, now: u32, ts: u32, rto_min: u32) -> (u64, u64, u64, u64) {
        let sample = (now.wrapping_sub(ts) as u64) * 1000;
        let (s, v) =
            if has { ((7 * srtt + sample) / 8, (3 * var + srtt.abs_diff(sample)) / 4) } else { (sample, sample / 2) };
        let min = rto_min as u64 * 1000;
        let est = 2 * srtt + 4 * var;
        let rto = if has && est > min { est } else { min };
        (s, v, rto, if has { srtt / 1000 } else { 0 })
    }

    /// Runs the estimator on one sample; its outputs in ps (and ns).
    fn run(uut: &mut Rtt, srtt: u64, var: u64, has: bool, now: u32, ts: u32, rto_min: u32) -> (u64, u64, u64, u64) {
        uut.srtt.next = Est::from_ps(srtt);
        uut.rttvar.next = Est::from_ps(var);
        uut.has.next = has;
        uut.now.next = (now as u64).into();
        uut.ts.next = (ts as u64).into();
        uut.rto_min.next = (rto_min as u64).into();
        for _ in 0..8 {
            uut.update_all();
        }
        for e in [uut.srtt_next.val(), uut.rttvar_next.val()] {
            assert!(e.ps.to_u64() < 1000, "{e:?} keeps 1000 ps or more");
        }
        assert!(uut.rto.val().ps.to_u64() < 1000, "{:?} keeps 1000 ps or more", uut.rto.val());
        (uut.srtt_next.val().to_ps(), uut.rttvar_next.val().to_ps(), uut.rto.val().to_ps(), uut.srtt_ns.val().to_u64())
    }

    #[test]
    fn the_estimator_computes_what_the_model_does() {
        let mut uut = Rtt::default();
        uut.connect_all();
        let mut rng = Rng::new(3);
        // Every estimate the estimator can hold is below 2^32 ns.
        let limit = (1u64 << 32) * 1000;
        for i in 0..20_000 {
            // Estimates up to tens of ms, and some anywhere below the limit.
            let top = if i % 10 == 0 { limit } else { 50_000_000_000 };
            let (srtt, var) = (rng.below(top), rng.below(top));
            let has = i % 7 != 0;
            let ts = rng.next_u64() as u32;
            let span = if i % 10 == 1 { rng.next_u64() as u32 } else { rng.below(10_000_000) as u32 };
            let now = ts.wrapping_add(span);
            let rto_min = rng.below(1_000_000) as u32;
            let got = run(&mut uut, srtt, var, has, now, ts, rto_min);
            assert_eq!(
                got,
                model(srtt, var, has, now, ts, rto_min),
                "srtt {srtt} var {var} has {has} now {now} ts {ts}"
            );
        }
        // The edges: the largest estimates and samples, whole and odd ns, a
        // sample equal to the estimate and one ns either side of it.
        let edges = [0, 1, 999, 1000, 1001, 7999, 8000, limit - 1000, limit - 1];
        for (&srtt, &var) in edges.iter().flat_map(|a| edges.iter().map(move |b| (a, b))) {
            for sample_ns in [0u32, 1, 7, 8, (srtt / 1000) as u32, (srtt / 1000 + 1) as u32, u32::MAX] {
                for has in [false, true] {
                    let got = run(&mut uut, srtt, var, has, sample_ns, 0, 100);
                    assert_eq!(
                        got,
                        model(srtt, var, has, sample_ns, 0, 100),
                        "srtt {srtt} var {var} sample {sample_ns} ns"
                    );
                }
            }
        }
    }

    /// RTOs at and around `rto_min`: `2 srtt + 4 var` a whole number of
    /// ns equal to it, a ps above or below, and every count of thousands in
    /// the ps parts' sum (0 to 5).
    #[test]
    fn the_rto_meets_rto_min_as_the_model_does() {
        let mut uut = Rtt::default();
        uut.connect_all();
        for srtt_ps in [0u64, 1, 499, 500, 999, 1_000, 123_456_789] {
            for var_ps in [0u64, 1, 250, 999, 1_000, 7_654_321] {
                let est = 2 * srtt_ps + 4 * var_ps;
                for rto_min in [est / 1000, (est / 1000).saturating_sub(1), est / 1000 + 1] {
                    let rto_min = rto_min as u32;
                    let got = run(&mut uut, srtt_ps, var_ps, true, 5, 5, rto_min);
                    let want = model(srtt_ps, var_ps, true, 5, 5, rto_min);
                    assert_eq!(got.2, want.2, "srtt {srtt_ps} ps, var {var_ps} ps, rto_min {rto_min} ns");
                }
            }
        }
    }

    #[test]
    fn an_estimate_keeps_its_ps() {
        for t in [0, 1, 999, 1000, 123_456_789, (1u64 << 32) * 1000 - 1] {
            let e = Est::from_ps(t);
            assert!(e.ps.to_u64() < 1000);
            assert_eq!(e.to_ps(), t);
        }
    }

    #[test]
    fn the_probe_timeout_is_the_models() {
        use ferroce_proto::model::Recovery;
        let mut uut = ProbeTime::default();
        uut.connect_all();
        let r = Recovery::v1();
        let mut rng = Rng::new(9);
        let limit = (1u64 << 32) * 1000;
        let mut cases: Vec<(u64, u64, bool, u32, u32, u32)> = Vec::new();
        for i in 0..20_000 {
            let top = if i % 10 == 0 { limit } else { 50_000_000 };
            let ack_delay = if i % 10 == 1 { rng.next_u64() as u32 } else { rng.below(5_000) as u32 };
            let probe_min = rng.below(20_000) as u32;
            cases.push((rng.below(top), rng.below(top), i % 9 != 0, ack_delay, probe_min, rng.below(200_000) as u32));
        }
        // Sums at the floor, a ps either side, every carry count.
        for s in [0u64, 1, 999, 1000, 2_999, 7_654_321] {
            for v in [0u64, 1, 250, 999, 1000] {
                let est = s + 4 * v + 2_000_000;
                for pm in [est / 1000, est / 1000 + 1, (est / 1000).saturating_sub(1)] {
                    cases.push((s, v, true, 2_000, pm as u32, 100_000));
                }
            }
        }
        for (s, v, has, ack_delay, probe_min, rto_min) in cases {
            uut.srtt.next = Est::from_ps(s);
            uut.rttvar.next = Est::from_ps(v);
            uut.has.next = has;
            uut.ack_delay.next = (ack_delay as u64).into();
            uut.probe_min.next = (probe_min as u64).into();
            uut.rto_min.next = (rto_min as u64).into();
            for _ in 0..8 {
                uut.update_all();
            }
            let rec = Recovery { probe_min: probe_min as u64 * 1000, ..r };
            let want = rec.probe_timeout(has.then_some((s, v)), ack_delay as u64 * 1000, rto_min as u64 * 1000, 0);
            assert!(uut.timeout.val().ps.to_u64() < 1000);
            assert_eq!(uut.timeout.val().to_ps(), want, "srtt {s} var {v} has {has} ack_delay {ack_delay} min {probe_min}");
        }
    }
}
