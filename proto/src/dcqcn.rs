//! DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA
//! Deployments", SIGCOMM 2015): the rate control that deployed RoCEv2 NICs
//! run, used by the go-back-N baseline. The reaction point (sender) keeps a
//! current rate `rc`, a target rate `rt` and a congestion estimate `alpha`;
//! the notification point (receiver) returns a CNP at most once per
//! `cnp_interval` while CE-marked packets arrive.
//!
//! * CNP: `rt = rc`, `rc = rc (1 - alpha / 2)`, `alpha = (1 - g) alpha + g`;
//!   the increase counters restart.
//! * Every `alpha_timer` without a CNP: `alpha = (1 - g) alpha`.
//! * Rate increase events, one per `increase_timer` and one per
//!   `byte_counter` bytes sent: while both counts are below `fast_recovery`
//!   steps, fast recovery `rc = (rt + rc) / 2`; then additive increase
//!   (`rt += ai`) and, once both counts pass it, hyper increase
//!   (`rt += i hai` at the i-th step beyond it), each followed by
//!   `rc = (rt + rc) / 2`.
//!
//! Timers are advanced lazily when the sender sends or hears a CNP, which
//! gives the same rates as running them on their own.

use crate::types::{us, Time};

/// The algorithm's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DcqcnConfig {
    pub line_rate_mbps: u32,
    /// EWMA gain of `alpha`.
    pub g: f64,
    pub alpha_timer: Time,
    pub increase_timer: Time,
    pub byte_counter: u64,
    pub fast_recovery: u32,
    pub ai_mbps: f64,
    pub hai_mbps: f64,
    pub min_rate_mbps: f64,
    /// The receiver's least spacing of CNPs to one sender.
    pub cnp_interval: Time,
}

impl DcqcnConfig {
    /// The parameters of the DCQCN paper as this project reads them (g =
    /// 1/256, alpha and rate timers of 55 us, a 10 MB byte counter, F = 5
    /// fast-recovery steps, R_AI = 40 Mb/s, CNPs at most every 50 us) for a
    /// `line_rate_mbps` NIC; R_HAI = 10 R_AI and the 100 Mb/s floor are
    /// this project's choice.
    pub fn paper(line_rate_mbps: u32) -> DcqcnConfig {
        DcqcnConfig {
            line_rate_mbps,
            g: 1.0 / 256.0,
            alpha_timer: us(55),
            increase_timer: us(55),
            byte_counter: 10_000_000,
            fast_recovery: 5,
            ai_mbps: 40.0,
            hai_mbps: 400.0,
            min_rate_mbps: 100.0,
            cnp_interval: us(50),
        }
    }
}

/// One sender's DCQCN state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dcqcn {
    cfg: DcqcnConfig,
    rc: f64,
    rt: f64,
    alpha: f64,
    next_alpha: Time,
    next_increase: Time,
    bytes: u64,
    timer_steps: u32,
    byte_steps: u32,
}

impl Dcqcn {
    /// A sender starting at line rate.
    pub fn new(cfg: DcqcnConfig) -> Dcqcn {
        let line = cfg.line_rate_mbps as f64;
        Dcqcn {
            cfg,
            rc: line,
            rt: line,
            alpha: 1.0,
            next_alpha: cfg.alpha_timer,
            next_increase: cfg.increase_timer,
            bytes: 0,
            timer_steps: 0,
            byte_steps: 0,
        }
    }

    /// The current rate in Mb/s.
    pub fn rate_mbps(&self) -> f64 {
        self.rc
    }

    fn increase(&mut self) {
        let f = self.cfg.fast_recovery;
        let (t, b) = (self.timer_steps, self.byte_steps);
        if t.max(b) >= f {
            if t.min(b) > f {
                self.rt += (t.min(b) - f) as f64 * self.cfg.hai_mbps;
            } else {
                self.rt += self.cfg.ai_mbps;
            }
        }
        self.rt = self.rt.min(self.cfg.line_rate_mbps as f64);
        self.rc = (self.rt + self.rc) / 2.0;
    }

    /// Run the timers up to `now`.
    fn advance(&mut self, now: Time) {
        while self.next_alpha <= now {
            self.alpha *= 1.0 - self.cfg.g;
            self.next_alpha += self.cfg.alpha_timer;
        }
        while self.next_increase <= now {
            self.timer_steps += 1;
            self.increase();
            self.next_increase += self.cfg.increase_timer;
        }
    }

    /// `bytes` were sent at `now`.
    pub fn on_send(&mut self, now: Time, bytes: u64) {
        self.advance(now);
        self.bytes += bytes;
        while self.bytes >= self.cfg.byte_counter {
            self.bytes -= self.cfg.byte_counter;
            self.byte_steps += 1;
            self.increase();
        }
    }

    /// A CNP arrived at `now`.
    pub fn on_cnp(&mut self, now: Time) {
        self.advance(now);
        self.rt = self.rc;
        self.rc = (self.rc * (1.0 - self.alpha / 2.0)).max(self.cfg.min_rate_mbps);
        self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g;
        self.next_alpha = now + self.cfg.alpha_timer;
        self.next_increase = now + self.cfg.increase_timer;
        self.bytes = 0;
        self.timer_steps = 0;
        self.byte_steps = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_by_alpha_then_recovers_halfway_per_step() {
        let g = 1.0 / 256.0;
        let mut d = Dcqcn::new(DcqcnConfig::paper(100_000));
        d.on_cnp(us(1));
        assert_eq!(d.rate_mbps(), 50_000.0, "alpha starts at 1: the first cut halves");
        assert_eq!(d.alpha, 1.0);
        // One timer step of fast recovery: halfway back to the target.
        d.on_send(us(56), 1000);
        assert_eq!(d.rate_mbps(), 75_000.0);
        // 59 us after the CNP alpha has decayed once; the cut uses that.
        d.on_cnp(us(60));
        assert_eq!(d.rt, 75_000.0);
        assert_eq!(d.rate_mbps(), 75_000.0 * (1.0 - (1.0 - g) / 2.0));
        assert_eq!(d.alpha, (1.0 - g) * (1.0 - g) + g);
    }

    #[test]
    fn recovers_to_line_rate_without_cnps() {
        let mut d = Dcqcn::new(DcqcnConfig::paper(100_000));
        d.on_cnp(0);
        d.on_send(us(20_000), 1000);
        assert!(d.rate_mbps() > 99_000.0, "{}", d.rate_mbps());
        assert!(d.rate_mbps() <= 100_000.0);
        assert!(d.alpha < 0.5, "alpha decays without CNPs: {}", d.alpha);
    }
}
