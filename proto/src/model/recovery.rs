//! Loss-recovery and start-up settings beyond the first protocol version
//! (`v0`), measured with `cargo xtask bench-scale` (see docs/protocol.md,
//! "Recovery profile"). [`Recovery::v0`] is the default (the registers'
//! reset values); [`Recovery::v1`] turns every change on. The RTL
//! implements both, and every setting [`Recovery::register`] accepts.
//!
//! The pure arithmetic of the changes lives here so that it can be tested
//! alone and later mirrored by RTL blocks.

use crate::types::Time;

/// Where retransmissions go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepairRoute {
    /// On the lost packet's own path (its source port): v0.
    SamePath,
    /// Same path index and PSN, but on the source port of the connection's
    /// cleanest other path (fewest losses in its current epoch), so a
    /// repair does not go back into a loss burst on the lost packet's route.
    CleanPath,
}

/// Settings of the loss-recovery and start-up mechanisms. Each field's
/// v0 value keeps the behaviour the RTL implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recovery {
    /// Connection-level loss detection by send time (RACK across paths): a
    /// packet not acknowledged is lost once a packet of the same
    /// connection sent more than the reordering window after it, on any
    /// path, has been acknowledged. v0: off (holes found per path only).
    pub rack: bool,
    /// Least reordering window of `rack`; the window is
    /// max(min RTT / 4, this) + the receiver's ACK delay (a packet's ACK
    /// may wait that long for company while a later one is acknowledged
    /// at once).
    pub reo_min: Time,
    /// Tail probes: when a connection with packets outstanding has sent
    /// nothing for max(srtt + 4 rttvar + ack_delay, `probe_min`) (the timer
    /// restarts at every packet it sends, new or resent, and an ACK does not
    /// restart it unless it brings the connection's first RTT sample;
    /// doubling per probe without progress; before its first RTT sample
    /// the estimate is the endpoint's latest, and with none at all the
    /// timeout is `rto_min`), each of its paths with packets outstanding resends one
    /// (its newest, else its oldest outstanding), asking for an ACK, so
    /// SACK and `rack` see the tail. v0: off.
    pub probe: bool,
    pub probe_min: Time,
    pub repair_route: RepairRoute,
    /// A path is re-pathed when its losses in an epoch of 64 new packets
    /// reach epoch / 2^`repath_loss_shift`. v0: 2 (a quarter).
    pub repath_loss_shift: u32,
    /// Connection window: packets the connection may have neither
    /// acknowledged nor SACKed, over all its paths: ECN AIMD as a path's
    /// window (floor one packet per connection), capped before the first
    /// ACK with a rate hint at `start_window` and after it at the hint
    /// times `base_rtt` plus a quarter (drain headroom) plus two packets.
    /// v0: off (only the per-path windows).
    pub conn_window: bool,
    pub start_window: u32,
    /// ECN echoes cut the paths' windows too. v0: true. Off, the paths'
    /// windows only grow and the connection window alone answers ECN: a
    /// sender whose first window was marked in a queue it shared with
    /// nearer senders then is not held to a few packets per path while its
    /// longer RTT needs more in flight.
    pub path_ecn_cut: bool,
    /// The fabric's base round-trip time, as configured by the operator.
    pub base_rtt: Time,
    /// Doublings of the RTO (per consecutive RTO of a path) and of the
    /// probe timeout (per probe without progress) at most. v0: 5 (32 x).
    pub max_backoff: u32,
    /// `rack` without its wait on the ACK's own path: a packet of that
    /// path sent more than the reordering window before a packet of the
    /// same path that this ACK acknowledges is lost, even while the path's
    /// newest packet is in flight and recent (the ACK carries the path's
    /// SACK state, so a lost ACK cannot mislead it). Finds a lost repair on
    /// a path that keeps sending, which with clean-route repairs the marker
    /// rule no longer does. v0: off; v1: on.
    pub path_rack: bool,
    /// The receiver withholds the rate hint for one activity window after
    /// it turns busy. v0: true; false sends it from the first ACK.
    pub hint_warmup: bool,
}

impl Default for Recovery {
    fn default() -> Recovery {
        Recovery::v0()
    }
}

impl Recovery {
    /// The first protocol version (what the RTL implements).
    pub const fn v0() -> Recovery {
        Recovery {
            rack: false,
            reo_min: 1_000_000,
            probe: false,
            probe_min: 10_000_000,
            repair_route: RepairRoute::SamePath,
            repath_loss_shift: 2,
            conn_window: false,
            start_window: 32,
            path_ecn_cut: true,
            base_rtt: 10_000_000,
            max_backoff: 5,
            hint_warmup: true,
            path_rack: false,
        }
    }

    /// Every change on.
    pub const fn v1() -> Recovery {
        Recovery {
            rack: true,
            probe: true,
            repair_route: RepairRoute::CleanPath,
            repath_loss_shift: 4,
            conn_window: true,
            start_window: 8,
            path_ecn_cut: false,
            max_backoff: 2,
            hint_warmup: false,
            path_rack: true,
            ..Recovery::v0()
        }
    }

    /// `control.recovery`: the lowest bit of `max_backoff`'s field.
    pub const MAX_BACKOFF_AT: u32 = 0;
    /// `control.recovery`: the lowest bit of `repath_loss_shift`'s field.
    pub const LOSS_SHIFT_AT: u32 = 3;
    /// `control.recovery`: the width of those two fields.
    pub const FIELD_BITS: u32 = 3;
    /// `control.recovery`: the bit of `path_ecn_cut`.
    pub const ECN_CUT_BIT: u32 = 6;
    /// `control.recovery`: the bit of `hint_warmup`.
    pub const WARMUP_BIT: u32 = 7;
    /// `control.recovery`: the bit of `probe` (in builds with tail probes,
    /// `engine_info.recovery` bit 0).
    pub const PROBE_BIT: u32 = 8;
    /// `control.recovery`: the bit of `rack` (in builds with it,
    /// `engine_info.recovery` bit 1).
    pub const RACK_BIT: u32 = 9;
    /// `control.recovery`: the bit of `conn_window` (in builds with it,
    /// `engine_info.recovery` bit 2).
    pub const CONN_WINDOW_BIT: u32 = 10;
    /// `control.recovery`: the bit of `repair_route` (set: `CleanPath`; in
    /// builds with it, `engine_info.recovery` bit 3).
    pub const REPAIR_ROUTE_BIT: u32 = 11;
    /// `control.recovery`: the bit of `path_rack` (in builds with `rack`).
    pub const PATH_RACK_BIT: u32 = 12;
    /// The connection window's start (`start_window`) in the RTL: v1's.
    pub const RTL_START_WINDOW: u32 = Recovery::v1().start_window;
    /// Fraction bits of [`Recovery::window_scale`].
    pub const WINDOW_SCALE_FRAC: u32 = 16;
    /// Bits of `control.window_scale` (a base RTT up to 1.34 ms).
    pub const WINDOW_SCALE_BITS: u32 = 24;
    const FIELD_MAX: u32 = (1 << Recovery::FIELD_BITS) - 1;

    /// The settings of the `control.recovery` register, which the RTL
    /// implements today (bits 2:0 `max_backoff`, 5:3 `repath_loss_shift`,
    /// bit 6 `path_ecn_cut`, bit 7 `hint_warmup`, bit 8 `probe`, bit 9
    /// `rack`, bit 10 `conn_window`, bit 11 `repair_route`, bit 12
    /// `path_rack`), as that
    /// register holds
    /// them; the other fields are not in it. Out-of-range values are cut to
    /// their bits: [`Recovery::register`] refuses them.
    pub const fn word(&self) -> u32 {
        (self.max_backoff & Recovery::FIELD_MAX) << Recovery::MAX_BACKOFF_AT
            | (self.repath_loss_shift & Recovery::FIELD_MAX) << Recovery::LOSS_SHIFT_AT
            | (self.path_ecn_cut as u32) << Recovery::ECN_CUT_BIT
            | (self.hint_warmup as u32) << Recovery::WARMUP_BIT
            | (self.probe as u32) << Recovery::PROBE_BIT
            | (self.rack as u32) << Recovery::RACK_BIT
            | (self.conn_window as u32) << Recovery::CONN_WINDOW_BIT
            | (matches!(self.repair_route, RepairRoute::CleanPath) as u32) << Recovery::REPAIR_ROUTE_BIT
            | (self.path_rack as u32) << Recovery::PATH_RACK_BIT
    }

    /// The `control.recovery` register's value for these settings, or why
    /// an engine cannot run them: a setting its RTL holds constant (the
    /// start window, the least reordering window and probe timeout) asked
    /// for at another value, or a value beyond the register's field.
    pub fn register(&self) -> Result<u32, String> {
        let v0 = Recovery::v0();
        if self.conn_window && self.start_window != Recovery::RTL_START_WINDOW {
            return Err(format!(
                "start_window {}: the RTL's connection window starts at {} packets (Recovery::v1().start_window)",
                self.start_window,
                Recovery::RTL_START_WINDOW
            ));
        }
        if self.window_scale() >> Recovery::WINDOW_SCALE_BITS != 0 {
            return Err(format!(
                "base_rtt {} ps: the connection window's scale ({} bytes per Mb/s, 2^-16) does not fit the \
                 {}-bit control.window_scale",
                self.base_rtt,
                self.window_scale(),
                Recovery::WINDOW_SCALE_BITS
            ));
        }
        if self.probe && self.probe_min != v0.probe_min {
            return Err(format!(
                "probe_min {} ps: the RTL's least probe timeout is {} ps (Recovery::v0().probe_min)",
                self.probe_min, v0.probe_min
            ));
        }
        if self.rack && self.reo_min != v0.reo_min {
            return Err(format!(
                "reo_min {} ps: the RTL's least reordering window is {} ps (Recovery::v0().reo_min)",
                self.reo_min, v0.reo_min
            ));
        }
        for (name, v) in [("max_backoff", self.max_backoff), ("repath_loss_shift", self.repath_loss_shift)] {
            if v > Recovery::FIELD_MAX {
                return Err(format!("{name} {v} does not fit the recovery register (0 to {})", Recovery::FIELD_MAX));
            }
        }
        Ok(self.word())
    }

    /// The settings a `control.recovery` value stands for; v0 elsewhere.
    pub const fn from_word(word: u32) -> Recovery {
        Recovery {
            max_backoff: (word >> Recovery::MAX_BACKOFF_AT) & Recovery::FIELD_MAX,
            repath_loss_shift: (word >> Recovery::LOSS_SHIFT_AT) & Recovery::FIELD_MAX,
            path_ecn_cut: (word >> Recovery::ECN_CUT_BIT) & 1 == 1,
            hint_warmup: (word >> Recovery::WARMUP_BIT) & 1 == 1,
            probe: (word >> Recovery::PROBE_BIT) & 1 == 1,
            rack: (word >> Recovery::RACK_BIT) & 1 == 1,
            conn_window: (word >> Recovery::CONN_WINDOW_BIT) & 1 == 1,
            path_rack: (word >> Recovery::PATH_RACK_BIT) & 1 == 1,
            repair_route: if (word >> Recovery::REPAIR_ROUTE_BIT) & 1 == 1 {
                RepairRoute::CleanPath
            } else {
                RepairRoute::SamePath
            },
            start_window: if (word >> Recovery::CONN_WINDOW_BIT) & 1 == 1 {
                Recovery::RTL_START_WINDOW
            } else {
                Recovery::v0().start_window
            },
            ..Recovery::v0()
        }
    }

    /// The named profiles a user can ask for: `v0` (the registers' reset
    /// values) and `v1` (every change; a build without
    /// `EngineConfig::tail_probes`, `rack`, `conn_window` or
    /// `clean_repairs` refuses it).
    pub const PROFILES: [&'static str; 2] = ["v0", "v1"];

    /// The profile named `name` (one of [`Recovery::PROFILES`]).
    pub fn profile(name: &str) -> Result<Recovery, String> {
        match name {
            "v0" => Ok(Recovery::v0()),
            "v1" => Ok(Recovery::v1()),
            _ => Err(format!("no recovery profile {name:?} (there are {})", Recovery::PROFILES.join(", "))),
        }
    }

    /// Is every field at its v0 value?
    pub fn is_v0(&self) -> bool {
        *self == Recovery::v0()
    }

    /// The reordering window of `rack` for a connection whose least RTT
    /// sample is `min_rtt`, with ACKs delayed up to `ack_delay`.
    pub fn reo_window(&self, min_rtt: Option<Time>, ack_delay: Time) -> Time {
        min_rtt.map_or(self.reo_min, |m| (m / 4).max(self.reo_min)) + ack_delay
    }

    /// The probe timeout after `probes` probes without progress, for a
    /// smoothed RTT and its mean deviation `rtt` (`None`: `rto_min`) and
    /// an ACK delay `ack_delay`.
    pub fn probe_timeout(&self, rtt: Option<(Time, Time)>, ack_delay: Time, rto_min: Time, probes: u32) -> Time {
        rtt.map_or(rto_min, |(s, v)| (s + 4 * v + ack_delay).max(self.probe_min)) << probes.min(self.max_backoff)
    }

    /// The connection window's bytes per Mb/s of rate hint: a base RTT
    /// plus a quarter (drain headroom) at 1 Mb/s, `base_rtt` x 5/4 / 8e6
    /// (ps), with [`Recovery::WINDOW_SCALE_FRAC`] fraction bits, rounded
    /// down (`control.window_scale`; 10 us: 1.5625 bytes, exactly).
    pub const fn window_scale(&self) -> u64 {
        (self.base_rtt << Recovery::WINDOW_SCALE_FRAC) * 5 / (4 * 8_000_000)
    }

    /// The connection window's cap for a rate hint of `hint_mbps` (0: no
    /// hint yet), with frames of `frame_bytes` on the wire: the bytes of
    /// [`Recovery::window_scale`] at the hint (rounded down) in frames
    /// (rounded up), plus two.
    pub fn window_cap(&self, hint_mbps: u32, frame_bytes: u32) -> u32 {
        if hint_mbps == 0 {
            return self.start_window.max(1);
        }
        let bytes = (hint_mbps as u64 * self.window_scale()) >> Recovery::WINDOW_SCALE_FRAC;
        bytes.div_ceil(frame_bytes.max(1) as u64) as u32 + 2
    }
}

/// Is a packet sent at `sent` lost, when the latest send time of an
/// acknowledged packet of its connection is `rack_ts` and the reordering
/// window is `reo`?
pub fn rack_lost(sent: Time, rack_ts: Time, reo: Time) -> bool {
    sent.saturating_add(reo) < rack_ts
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_register_holds_what_the_rtl_implements() {
        for r in [Recovery::v0(), Recovery::v1(), Recovery { repair_route: RepairRoute::SamePath, ..Recovery::v1() }] {
            assert_eq!(Recovery::from_word(r.register().unwrap()), r);
        }
        assert_eq!(Recovery::v0().word(), 0xd5);
        assert_eq!(Recovery::v1().word(), 0x1f22);
        let windowed = Recovery::v1();
        let e = Recovery { start_window: 16, ..windowed }.register().unwrap_err();
        assert!(e.contains("start_window 16"), "{e}");
        assert!(Recovery { base_rtt: 20_000_000, ..windowed }.register().is_ok());
        let e = Recovery { base_rtt: 2_000_000_000, ..windowed }.register().unwrap_err();
        assert!(e.contains("base_rtt 2000000000 ps") && e.contains("window_scale"), "{e}");
        let unwindowed = Recovery { conn_window: false, start_window: 16, ..windowed };
        assert!(unwindowed.register().is_ok());
        let e = Recovery { reo_min: 2_000_000, ..Recovery::v1() }.register().unwrap_err();
        assert!(e.contains("reo_min 2000000 ps"), "{e}");
        let e = Recovery { probe_min: 5_000_000, ..Recovery::v1() }.register().unwrap_err();
        assert!(e.contains("probe_min 5000000 ps"), "{e}");
        let e = Recovery { max_backoff: 8, ..Recovery::v0() }.register().unwrap_err();
        assert!(e.contains("max_backoff 8"), "{e}");
        let e = Recovery { repath_loss_shift: 9, ..Recovery::v0() }.register().unwrap_err();
        assert!(e.contains("repath_loss_shift 9"), "{e}");
        for name in Recovery::PROFILES {
            assert!(Recovery::profile(name).is_ok(), "{name}");
        }
        assert_eq!(Recovery::profile("v1"), Ok(Recovery::v1()));
        assert!(Recovery::profile("v1-rtl").unwrap_err().contains("there are v0, v1"));
    }

    use super::*;
    use crate::types::us;

    #[test]
    fn v0_is_the_default_and_v1_differs_in_every_mechanism() {
        assert!(Recovery::default().is_v0());
        let v1 = Recovery::v1();
        assert!(v1.rack && v1.probe && v1.conn_window && !v1.hint_warmup && !v1.path_ecn_cut);
        assert_eq!(v1.start_window, 8);
        assert_eq!((v1.repair_route, v1.repath_loss_shift), (RepairRoute::CleanPath, 4));
    }

    #[test]
    fn reordering_window_probe_timeout_and_window_cap() {
        let r = Recovery::v1();
        assert_eq!(r.reo_window(None, us(2)), us(3));
        assert_eq!(r.reo_window(Some(us(2)), us(2)), us(3), "floor");
        assert_eq!(r.reo_window(Some(us(12)), us(2)), us(5), "a quarter of the least RTT");
        assert_eq!(r.probe_timeout(None, us(2), us(100), 0), us(100), "no sample: rto_min");
        assert_eq!(r.probe_timeout(Some((us(3), us(1))), us(2), us(100), 0), us(10), "floor");
        assert_eq!(r.probe_timeout(Some((us(20), us(1))), us(2), us(100), 0), us(26));
        assert_eq!(r.probe_timeout(Some((us(20), us(1))), us(2), us(100), 2), us(104), "doubling per probe");
        assert_eq!(r.probe_timeout(Some((us(20), us(1))), us(2), us(100), 9), us(104), "at most twice (v1)");
        let v0 = Recovery::v0();
        assert_eq!(v0.probe_timeout(Some((us(20), us(1))), us(2), us(100), 9), us(26 * 32), "v0: five times");
        assert_eq!(r.window_cap(0, 1084), 8, "start window before any hint");
        // 100 Gb/s over 10 us: 125 000 bytes; +25 % = 156 250 bytes = 145
        // frames of 1084 bytes (rounded up), +2.
        assert_eq!(r.window_cap(100_000, 1084), 147);
        // A 64th of it: 1953 bytes -> 2441 -> 3 frames, +2.
        assert_eq!(r.window_cap(100_000 / 64, 1084), 5);
        assert_eq!(r.window_scale(), 102_400, "1.5625 bytes per Mb/s at 10 us");
        let r16 = Recovery { base_rtt: us(16), ..r };
        assert_eq!(r16.window_scale(), 163_840);
        // 16 Gb/s over 16 us: 32 000 bytes; +25 % = 40 000 = 36 frames of
        // 1 138 bytes (rounded up), +2.
        assert_eq!(r16.window_cap(16_000, 1138), 38);
        assert!(rack_lost(us(1), us(3), us(1)));
        assert!(!rack_lost(us(1), us(2), us(1)), "within the reordering window");
    }
}
