//! One definition of the settings at reset (`ferroce_proto::defaults`):
//! the register map's reset values, the model's `EndpointConfig` and the
//! driver's `Config::new` must agree, register by register, and the
//! driver's bring-up must write every one of them.

use ferroce_driver::driver::Config;
use ferroce_proto::defaults::DEFAULTS;
use ferroce_proto::model::EndpointConfig;
use ferroce_proto::regs::control::{
    self, ACK_DELAY_NS, ACK_EVERY, CTRL, IP, LINE_RATE_MBPS, MAC_HI, MAC_LO, MTU, PORT_SEED, RECOVERY, RNR_DELAY_NS,
    RTO_MIN_NS, UDP_PORT, WINDOW_CAP, WINDOW_SCALE,
};
use ferroce_proto::regs::{Access, Reg};
use ferroce_proto::types::Time;

fn ns(t: Time) -> u32 {
    assert_eq!(t % 1000, 0, "{t} ps is a whole number of ns");
    u32::try_from(t / 1000).unwrap()
}

#[test]
fn every_default_is_its_registers_reset_value() {
    for (reg, v) in DEFAULTS.settings() {
        assert_eq!(reg.register().reset, v, "{reg}: reset {}, DEFAULTS {v}", reg.register().reset);
    }
    // The one the copies disagreed on: docs/protocol.md's 50 us.
    assert_eq!(DEFAULTS.rnr_delay_ns, 50_000);
}

/// Bring-up writes every writable `control` register but `ctrl` (written
/// last, to enable), and the settings among them are exactly the defaults'.
#[test]
fn the_driver_writes_every_setting_and_starts_from_the_defaults() {
    let driver = Config::new([2, 0, 0, 0, 0, 1], [10, 0, 0, 1]).settings();
    let writable: Vec<Reg> = control::ALL
        .iter()
        .copied()
        .filter(|r| matches!(r.register().access, Access::Rw | Access::Wo) && *r != CTRL)
        .collect();
    let written: Vec<Reg> = driver.iter().map(|(r, _)| *r).collect();
    for r in &writable {
        assert!(written.contains(r), "bring-up does not write {r}");
    }
    assert_eq!(written.len(), writable.len(), "each register once: {written:?}");
    let addresses = [MAC_LO, MAC_HI, IP];
    let settings: Vec<(Reg, u32)> = driver.into_iter().filter(|(r, _)| !addresses.contains(r)).collect();
    assert_eq!(settings, DEFAULTS.settings(), "the driver's Config::new against DEFAULTS");
}

#[test]
fn the_models_defaults_are_the_register_resets() {
    let model = EndpointConfig::defaults([2, 0, 0, 0, 0, 1], [10, 0, 0, 1]);
    // The model has every setting but the source-port seed (its ports come
    // from its own `seed`).
    let rows = [
        (UDP_PORT, model.port as u32),
        (LINE_RATE_MBPS, model.line_rate_mbps),
        (MTU, model.mtu),
        (ACK_EVERY, model.ack_every as u32),
        (ACK_DELAY_NS, ns(model.ack_delay)),
        (RTO_MIN_NS, ns(model.rto_min)),
        (RNR_DELAY_NS, ns(model.rnr_delay)),
        (RECOVERY, model.recovery.register().expect("the RTL implements the model's default recovery")),
        (WINDOW_CAP, model.max_cwnd),
        (WINDOW_SCALE, model.recovery.window_scale() as u32),
    ];
    let without_seed: Vec<Reg> = DEFAULTS.settings().iter().map(|(r, _)| *r).filter(|r| *r != PORT_SEED).collect();
    assert_eq!(rows.map(|(r, _)| r).to_vec(), without_seed, "a row per setting");
    for (reg, v) in rows {
        let reset = reg.register().reset;
        assert_eq!(v, reset, "{reg}: model {v}, register reset {reset}");
    }
}
