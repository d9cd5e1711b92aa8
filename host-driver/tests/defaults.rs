//! One definition of the settings at reset (`ferroce_proto::defaults`):
//! the register map's reset values, the model's `EndpointConfig` and the
//! driver's `Config::new` must agree, register by register.

use ferroce_driver::driver::Config;
use ferroce_proto::defaults::DEFAULTS;
use ferroce_proto::model::EndpointConfig;
use ferroce_proto::regs::control::{
    ACK_DELAY_NS, ACK_EVERY, LINE_RATE_MBPS, MTU, PORT_SEED, RNR_DELAY_NS, RTO_MIN_NS, UDP_PORT,
};
use ferroce_proto::regs::Reg;
use ferroce_proto::types::Time;

fn reset(reg: Reg) -> u32 {
    reg.register().reset
}

fn ns(t: Time) -> u32 {
    assert_eq!(t % 1000, 0, "{t} ps is a whole number of ns");
    u32::try_from(t / 1000).unwrap()
}

#[test]
fn register_resets_model_defaults_and_driver_config_are_the_same_settings() {
    let (mac, ip) = ([2, 0, 0, 0, 0, 1], [10, 0, 0, 1]);
    let driver = Config::new(mac, ip);
    let model = EndpointConfig::defaults(mac, ip);
    // (register, its reset value, the driver's value, the model's value)
    let rows = [
        (UDP_PORT, reset(UDP_PORT), None, model.port as u32),
        (LINE_RATE_MBPS, reset(LINE_RATE_MBPS), Some(driver.line_rate_mbps), model.line_rate_mbps),
        (MTU, reset(MTU), Some(driver.mtu), model.mtu),
        (ACK_EVERY, reset(ACK_EVERY), Some(driver.ack_every), model.ack_every as u32),
        (ACK_DELAY_NS, reset(ACK_DELAY_NS), Some(driver.ack_delay_ns), ns(model.ack_delay)),
        (RTO_MIN_NS, reset(RTO_MIN_NS), Some(driver.rto_min_ns), ns(model.rto_min)),
        (RNR_DELAY_NS, reset(RNR_DELAY_NS), Some(driver.rnr_delay_ns), ns(model.rnr_delay)),
    ];
    for (reg, reset, driver, model) in rows {
        assert_eq!(reset, model, "{reg}: register reset {reset}, model {model}");
        if let Some(d) = driver {
            assert_eq!(d, reset, "{reg}: driver's Config::new {d}, register reset {reset}");
        }
    }
    assert_eq!(driver.port_seed, reset(PORT_SEED), "control.port_seed");
    // The one the copies disagreed on: docs/protocol.md's 50 us.
    assert_eq!(DEFAULTS.rnr_delay_ns, 50_000);
}

/// Every writable `control` register the driver sets at bring-up has a
/// default here, so none of them can drift back to a value of its own.
#[test]
fn every_setting_the_driver_writes_has_its_reset_from_the_defaults() {
    let d = DEFAULTS;
    let want = [
        (UDP_PORT, d.udp_port as u32),
        (LINE_RATE_MBPS, d.line_rate_mbps),
        (MTU, d.mtu),
        (ACK_EVERY, d.ack_every as u32),
        (ACK_DELAY_NS, d.ack_delay_ns),
        (RTO_MIN_NS, d.rto_min_ns),
        (RNR_DELAY_NS, d.rnr_delay_ns),
        (PORT_SEED, d.port_seed),
    ];
    for (reg, v) in want {
        assert_eq!(reset(reg), v, "{reg}");
    }
}
