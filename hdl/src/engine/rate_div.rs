//! `rate_div`: turns a receiver rate hint (Mb/s) into the pacer's cost of a
//! byte: `ceil(clock_mhz * 8 * 2^16 / rate)`, as
//! `ferroce_proto::model::cc::Pacer::cost_q16` computes it. A restoring
//! divider, one quotient bit per cycle (hints change once per ACK at most,
//! so 40 cycles per conversion are plenty).
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `in_valid`/`in_ready`, `in_rate_mbps` (0 is taken as 1), `in_clock_mhz`.
//! * `out_valid` pulses with `out_cost` when a conversion ends, 41 cycles
//!   after it was taken; `out_cost` holds until the next one is taken.

use rust_hdl::prelude::*;

use ferroce_proto::model::cc::Pacer as PacerModel;
use ferroce_proto::params::BITS_PER_BYTE;

use crate::blocks::{HdlDefault, HdlStruct};

/// Width of the quotient, the numerator and `out_cost`.
const QUO_BITS: usize = 40;
/// Width of the divisor (`in_rate_mbps`).
const DEN_BITS: usize = 32;
/// Width of `in_clock_mhz`.
const CLOCK_BITS: usize = 16;
/// The numerator is `clock_mhz << NUM_SHIFT` (x 8 bits, x 2^FRAC).
const NUM_SHIFT: usize = PacerModel::FRAC as usize + BITS_PER_BYTE.trailing_zeros() as usize;
/// Width of the remainder: one more than the divisor.
const REM_BITS: usize = DEN_BITS + 1;
/// Quotient bits kept by a shift.
const QUO_KEPT: usize = QUO_BITS - 1;
/// Width of the step counter.
const LEFT_BITS: usize = 6;

const _: () = assert!(QUO_BITS < 1 << LEFT_BITS && NUM_SHIFT + CLOCK_BITS <= QUO_BITS);

/// The numerator as loaded: {0, clock_mhz, 0}.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Numerator {
    pub lo: Bits<NUM_SHIFT>,
    pub clock_mhz: Bits<CLOCK_BITS>,
    pub hi: Bits<{ QUO_BITS - NUM_SHIFT - CLOCK_BITS }>,
}

/// The remainder shifted left by one with the numerator's next bit in.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Trial {
    pub bit: bool,
    pub rem: Bits<DEN_BITS>,
}

/// The divisor at the remainder's width.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct DenWide {
    pub den: Bits<DEN_BITS>,
    pub zero: bool,
}

/// The quotient shifted left by one with the new bit in.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct QuoShift {
    pub bit: bool,
    pub quo: Bits<QUO_KEPT>,
}

/// The divider.
#[derive(LogicBlock, HdlDefault)]
pub struct RateDiv {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_ready: Signal<Out, bool>,
    pub in_rate_mbps: Signal<In, Bits<DEN_BITS>>,
    pub in_clock_mhz: Signal<In, Bits<CLOCK_BITS>>,
    pub out_valid: Signal<Out, bool>,
    pub out_cost: Signal<Out, Bits<QUO_BITS>>,
    num: DFF<Bits<QUO_BITS>>,
    den: DFF<Bits<DEN_BITS>>,
    rem: DFF<Bits<REM_BITS>>,
    quo: DFF<Bits<QUO_BITS>>,
    left: DFF<Bits<LEFT_BITS>>,
    busy: DFF<bool>,
    done: DFF<bool>,
    num_init: Signal<Local, Numerator>,
    trial_parts: Signal<Local, Trial>,
    trial: Signal<Local, Bits<REM_BITS>>,
    den_parts: Signal<Local, DenWide>,
    den_wide: Signal<Local, Bits<REM_BITS>>,
    fits: Signal<Local, bool>,
    quo_shift: Signal<Local, QuoShift>,
    round_up: Signal<Local, Bits<QUO_BITS>>,
    #[constant(0u64)]
    zero_num_lo: Constant<Bits<NUM_SHIFT>>,
    #[constant(0u64)]
    zero_num_hi: Constant<Bits<{ QUO_BITS - NUM_SHIFT - CLOCK_BITS }>>,
    #[constant(1u64)]
    one_den: Constant<Bits<DEN_BITS>>,
    #[constant(0u64)]
    zero_rem: Constant<Bits<REM_BITS>>,
    #[constant(0u64)]
    zero_quo: Constant<Bits<QUO_BITS>>,
    #[constant(1u64)]
    one_quo: Constant<Bits<QUO_BITS>>,
    #[constant(QUO_BITS as u64)]
    steps: Constant<Bits<LEFT_BITS>>,
    #[constant(1u64)]
    one_left: Constant<Bits<LEFT_BITS>>,
    #[constant(QUO_BITS as u64 - 1)]
    num_msb: Constant<Bits<LEFT_BITS>>,
}

impl Logic for RateDiv {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, num, den, rem, quo, left, busy, done);
        // One restoring step: shift the numerator's top bit into the
        // remainder, subtract the divisor if it fits.
        self.trial_parts.next.bit = self.num.q.val().get_bit(self.num_msb.val().index());
        self.trial_parts.next.rem = self.rem.q.val().get_bits::<DEN_BITS>(0);
        self.trial.next = self.trial_parts.val().into();
        self.den_parts.next.den = self.den.q.val();
        self.den_parts.next.zero = false;
        self.den_wide.next = self.den_parts.val().into();
        self.fits.next = self.trial.val() >= self.den_wide.val();
        self.quo_shift.next.bit = self.fits.val();
        self.quo_shift.next.quo = self.quo.q.val().get_bits::<QUO_KEPT>(0);
        self.num_init.next.lo = self.zero_num_lo.val();
        self.num_init.next.clock_mhz = self.in_clock_mhz.val();
        self.num_init.next.hi = self.zero_num_hi.val();

        self.done.d.next = false;
        if self.busy.q.val() {
            if self.fits.val() {
                self.rem.d.next = self.trial.val() - self.den_wide.val();
            } else {
                self.rem.d.next = self.trial.val();
            }
            self.quo.d.next = self.quo_shift.val().into();
            self.num.d.next = self.num.q.val() << 1;
            self.left.d.next = self.left.q.val() - self.one_left.val();
            if self.left.q.val() == self.one_left.val() {
                self.busy.d.next = false;
                self.done.d.next = true;
            }
        } else if self.in_valid.val() {
            self.num.d.next = self.num_init.val().into();
            if self.in_rate_mbps.val().any() {
                self.den.d.next = self.in_rate_mbps.val();
            } else {
                self.den.d.next = self.one_den.val();
            }
            self.rem.d.next = self.zero_rem.val();
            self.quo.d.next = self.zero_quo.val();
            self.left.d.next = self.steps.val();
            self.busy.d.next = true;
        }
        if self.reset.val() {
            self.busy.d.next = false;
            self.done.d.next = false;
        }

        // Round up: one more if anything remained.
        if self.rem.q.val().any() {
            self.round_up.next = self.one_quo.val();
        } else {
            self.round_up.next = self.zero_quo.val();
        }
        self.in_ready.next = !self.busy.q.val();
        self.out_valid.next = self.done.q.val();
        self.out_cost.next = self.quo.q.val() + self.round_up.val();
    }
}
