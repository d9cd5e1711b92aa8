//! One definition of the settings at reset (`ferroce_proto::defaults`):
//! the register map's reset values, the model's `EndpointConfig` and the
//! driver's `Config::new` must agree, register by register.

use ferroce_driver::driver::Config;
use ferroce_proto::defaults::DEFAULTS;
use ferroce_proto::model::EndpointConfig;
use ferroce_proto::regs;
use ferroce_proto::types::Time;

fn reset(reg: &str) -> u32 {
    regs::register("control", reg).unwrap().1.reset
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
        ("udp_port", reset("udp_port"), None, model.port as u32),
        ("line_rate_mbps", reset("line_rate_mbps"), Some(driver.line_rate_mbps), model.line_rate_mbps),
        ("mtu", reset("mtu"), Some(driver.mtu), model.mtu),
        ("ack_every", reset("ack_every"), Some(driver.ack_every), model.ack_every as u32),
        ("ack_delay_ns", reset("ack_delay_ns"), Some(driver.ack_delay_ns), ns(model.ack_delay)),
        ("rto_min_ns", reset("rto_min_ns"), Some(driver.rto_min_ns), ns(model.rto_min)),
        ("rnr_delay_ns", reset("rnr_delay_ns"), Some(driver.rnr_delay_ns), ns(model.rnr_delay)),
    ];
    for (reg, reset, driver, model) in rows {
        assert_eq!(reset, model, "control.{reg}: register reset {reset}, model {model}");
        if let Some(d) = driver {
            assert_eq!(d, reset, "control.{reg}: driver's Config::new {d}, register reset {reset}");
        }
    }
    assert_eq!(driver.port_seed, reset("port_seed"), "control.port_seed");
    // The one the copies disagreed on: docs/protocol.md's 50 us.
    assert_eq!(DEFAULTS.rnr_delay_ns, 50_000);
}

/// Every writable `control` register the driver sets at bring-up has a
/// default here, so none of them can drift back to a value of its own.
#[test]
fn every_setting_the_driver_writes_has_its_reset_from_the_defaults() {
    let d = DEFAULTS;
    let want = [
        ("udp_port", d.udp_port as u32),
        ("line_rate_mbps", d.line_rate_mbps),
        ("mtu", d.mtu),
        ("ack_every", d.ack_every as u32),
        ("ack_delay_ns", d.ack_delay_ns),
        ("rto_min_ns", d.rto_min_ns),
        ("rnr_delay_ns", d.rnr_delay_ns),
        ("port_seed", d.port_seed),
    ];
    for (reg, v) in want {
        assert_eq!(reset(reg), v, "control.{reg}");
    }
}
