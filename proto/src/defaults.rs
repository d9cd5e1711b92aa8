//! The engine's settings at reset, defined once: the register map's reset
//! values ([`crate::regs`]), the reference model's
//! [`EndpointConfig::new`](crate::model::EndpointConfig::new) and the
//! driver's `Config::new` all take them from [`DEFAULTS`], and
//! `host-driver/tests/defaults.rs` pins the three equal.

use crate::model::Recovery;
use crate::regs::{control, Reg};

/// Settings a driver writes at bring-up (`control` block) and the model
/// starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Defaults {
    /// UDP destination port of ferroce traffic.
    pub udp_port: u16,
    /// The port's line rate: pacing and the receiver's rate hint.
    pub line_rate_mbps: u32,
    /// Payload bytes per packet.
    pub mtu: u32,
    /// Acknowledge after this many data packets on a path...
    pub ack_every: u16,
    /// ...or this long after the first unacknowledged one.
    pub ack_delay_ns: u32,
    /// Lower bound of the retransmission timeout.
    pub rto_min_ns: u32,
    /// Retry delay after a SEND found no receive buffer (the NAK NO_RECV
    /// hold of docs/protocol.md): 50 us, half the lowest RTO, so a retry
    /// comes before the timeout would resend the packet anyway.
    pub rnr_delay_ns: u32,
    /// Seed of the source-port generator (0: a fixed seed).
    pub port_seed: u32,
    /// The loss-recovery settings the RTL implements (`control.recovery`,
    /// [`Recovery::word`]): v0's.
    pub recovery: Recovery,
    /// Packets a path may have in flight at most (the model's
    /// `max_cwnd`): the largest window, 256; a build's own window bounds
    /// it further.
    pub window_cap: u32,
}

impl Defaults {
    /// Each setting with the `control` register that holds it, as a driver
    /// writes them (every writable `control` register but `ctrl` and the
    /// endpoint's own addresses; a test checks the list is complete).
    pub const fn settings(&self) -> [(Reg, u32); 11] {
        [
            (control::UDP_PORT, self.udp_port as u32),
            (control::LINE_RATE_MBPS, self.line_rate_mbps),
            (control::MTU, self.mtu),
            (control::ACK_EVERY, self.ack_every as u32),
            (control::ACK_DELAY_NS, self.ack_delay_ns),
            (control::RTO_MIN_NS, self.rto_min_ns),
            (control::RNR_DELAY_NS, self.rnr_delay_ns),
            (control::PORT_SEED, self.port_seed),
            (control::RECOVERY, self.recovery.word()),
            (control::WINDOW_CAP, self.window_cap),
            (control::WINDOW_SCALE, self.recovery.window_scale() as u32),
        ]
    }
}

/// The defaults of this release.
pub const DEFAULTS: Defaults = Defaults {
    udp_port: crate::wire::FERROCE_PORT,
    line_rate_mbps: 10_000,
    mtu: 1024,
    ack_every: 4,
    ack_delay_ns: 2_000,
    rto_min_ns: 100_000,
    rnr_delay_ns: 50_000,
    port_seed: 0,
    recovery: Recovery::v0(),
    window_cap: crate::params::SACK_WINDOW as u32,
};
