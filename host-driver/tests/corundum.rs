//! The driver against a real Corundum register layout: BAR0's
//! register-block chain and BAR2's registers as Corundum's
//! `mqnic_core_pcie_us` with ferroce presents them in the full-NIC cocotb
//! testbench, captured by `cargo xtask corundum-test --capture
//! host-driver/tests/data/corundum_bars.txt` (the driver's first read of
//! each register during discovery, bring-up and the loopback), replayed
//! here without the NIC.

use ferroce_driver::cocotb::{Read32, Replay};
use ferroce_driver::discover::{check_corundum_app, walk, Engine};
use ferroce_driver::driver::{Config, Device, Driver, RingSpec};
use ferroce_driver::{Error, RegisterAccess, Result};
use ferroce_proto::config::EngineConfig;
use ferroce_proto::regs::{self, engine_info, queues, CORUNDUM_APP_INFO_TYPE};

fn capture() -> Vec<Read32> {
    include_str!("data/corundum_bars.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 3, "capture line {l:?}");
            (f[0].parse().unwrap(), u32::from_str_radix(f[1], 16).unwrap(), u32::from_str_radix(f[2], 16).unwrap())
        })
        .collect()
}

/// BAR2 as a device whose host memory keeps nothing (bring-up reads none).
struct Bar2(Replay);

impl RegisterAccess for Bar2 {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        self.0.read32(offset)
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.0.write32(offset, value)
    }
}

impl Device for Bar2 {
    /// Bring-up zeroes the completion ring; nothing to keep.
    fn write_mem(&mut self, _: u64, _: &[u8]) -> Result<()> {
        Ok(())
    }
    fn read_mem(&mut self, _: u64, _: &mut [u8]) -> Result<()> {
        Err(Error::BadRequest("no host memory in a replay".into()))
    }
    fn idle(&mut self) -> Result<()> {
        Ok(())
    }
}

/// BAR0: Corundum's chain from its firmware-ID block (type all ones) on,
/// the app-info block in it with ferroce's APP_ID.
#[test]
fn discovery_finds_ferroce_in_corundums_bar0() {
    let reads = capture();
    let mut bar0 = Replay::of(&reads, 0);
    let chain = walk(&mut bar0, 0).unwrap();
    assert_eq!(chain[0].type_id, 0xffff_ffff, "Corundum's chain starts with the firmware-ID block");
    assert!(chain.len() >= 4, "{chain:?}");
    let info = check_corundum_app(&mut bar0).unwrap();
    assert_eq!(info.type_id, CORUNDUM_APP_INFO_TYPE);
    assert!(chain.contains(&info));

    // The same NIC running another application is refused.
    let mut other = Replay::of(&reads, 0);
    other.values.insert(info.offset + 0x0c, 0x1234_0001);
    assert!(matches!(check_corundum_app(&mut other), Err(Error::AppId { found: 0x1234_0001, .. })));
}

/// BAR2: every block of the register map at its version, the build's
/// parameters those of the `corundum` preset, and the driver's bring-up
/// writing the rings and enabling the engine.
#[test]
fn bring_up_on_corundums_bar2() {
    let reads = capture();
    let mut bar2 = Replay::of(&reads, 2);
    let e = Engine::discover(&mut bar2, 0).unwrap();
    assert_eq!(e.blocks.len(), regs::BLOCKS.len());
    let preset = EngineConfig::CORUNDUM;
    for r in [engine_info::MAX_CONNS, engine_info::MAX_PATHS, engine_info::MAX_STREAMS] {
        assert_eq!(bar2.read32(e.addr(r)).unwrap(), preset.reset(r), "{r:?}");
    }

    let ring = |base, log_size| RingSpec { base, log_size };
    let cfg = Config::new([2, 0, 0, 0, 0, 1], [10, 0, 0, 1]);
    let d = Driver::bring_up(Bar2(bar2), &cfg, ring(0x10_0000, 5), ring(0x10_2000, 5), ring(0x10_4000, 7)).unwrap();
    let writes = &d.dev.0.writes;
    let wrote = |r| writes.iter().find(|(o, _)| *o == e.addr(r)).map(|(_, v)| *v);
    assert_eq!(wrote(queues::SQ_BASE_LO), Some(0x10_0000));
    assert_eq!(wrote(queues::CQ_LOG_SIZE), Some(7));
    assert_eq!(writes.last(), Some(&(e.addr(regs::control::CTRL), 1)), "enabled last");
}
