//! The driver against a fake sysfs tree laid out like a Corundum NIC running
//! ferroce (BAR0 with the app-info block, BAR2 with the engine's registers
//! from the register map's reference), and the CLI over it and over the
//! simulator.

use std::path::{Path, PathBuf};
use std::process::Command;

use ferroce_driver::discover::{check_corundum_app, Engine};
use ferroce_driver::pci::{self, Bar};
use ferroce_driver::{Error, RegisterAccess};
use ferroce_proto::regs::{self, RegFile, APP_ID, REGION_BYTES};

fn words_to_file(path: &Path, words: &[u32]) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(path, bytes).unwrap();
}

/// A fake sysfs with one Corundum device; `app_id` and a hook to change BAR2.
fn fake_sysfs(name: &str, app_id: u32, edit: impl FnOnce(&mut RegFile)) -> PathBuf {
    let root = std::env::temp_dir().join(format!("ferroce-sysfs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let dev = root.join("0000:01:00.0");
    std::fs::create_dir_all(&dev).unwrap();
    std::fs::write(dev.join("vendor"), "0x1234\n").unwrap();
    std::fs::write(dev.join("device"), "0x1001\n").unwrap();
    std::fs::write(dev.join("enable"), "1\n").unwrap();
    // Another device that must be ignored.
    let other = root.join("0000:00:1f.0");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("vendor"), "0x8086\n").unwrap();
    std::fs::write(other.join("device"), "0x1234\n").unwrap();
    // BAR0: a Corundum block, then the application-info block.
    let mut bar0 = vec![0u32; 0x200 / 4];
    bar0[0] = 0x0000_c000;
    bar0[1] = 0x0000_0100;
    bar0[2] = 0x100;
    bar0[0x100 / 4] = regs::CORUNDUM_APP_INFO_TYPE;
    bar0[0x104 / 4] = 0x0000_0100;
    bar0[0x108 / 4] = 0;
    bar0[0x10c / 4] = app_id;
    words_to_file(&dev.join("resource0"), &bar0);
    let mut file = RegFile::new();
    edit(&mut file);
    let bar2: Vec<u32> = (0..REGION_BYTES / 4).map(|i| file.read(4 * i).unwrap_or(0)).collect();
    words_to_file(&dev.join("resource2"), &bar2);
    root
}

#[test]
fn discovers_the_engine_through_sysfs() {
    let root = fake_sysfs("ok", APP_ID, |_| {});
    let devs = pci::find(&root, pci::CORUNDUM_ID).unwrap();
    assert_eq!(devs.len(), 1);
    assert_eq!(devs[0].bdf, "0000:01:00.0");
    let mut bar0 = Bar::map(&devs[0], 0).unwrap();
    assert_eq!(check_corundum_app(&mut bar0).unwrap().offset, 0x100);
    let mut bar2 = Bar::map(&devs[0], 2).unwrap();
    let e = Engine::discover(&mut bar2, 0).unwrap();
    assert_eq!(e.blocks.len(), regs::BLOCKS.len());
    let port = e.addr(regs::control::UDP_PORT);
    assert_eq!(bar2.read32(port).unwrap(), 17989);
    bar2.write32(port, 4242).unwrap();
    assert_eq!(bar2.read32(port).unwrap(), 4242);
    assert!(matches!(bar2.read32(REGION_BYTES + 8), Err(Error::Access { .. })), "outside the BAR");
    assert!(matches!(bar2.read32(2), Err(Error::Access { .. })), "misaligned");
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn refuses_another_application_and_other_versions() {
    let root = fake_sysfs("appid", 0x1234_5678, |_| {});
    let dev = pci::open(&root, "0000:01:00.0").unwrap();
    let mut bar0 = Bar::map(&dev, 0).unwrap();
    assert!(matches!(check_corundum_app(&mut bar0), Err(Error::AppId { found: 0x1234_5678, .. })));
    let root2 = fake_sysfs("version", APP_ID, |f| f.set(regs::block_base(regs::stats::TX_DATA.block) + 4, 0x200));
    let dev = pci::open(&root2, "0000:01:00.0").unwrap();
    let mut bar2 = Bar::map(&dev, 2).unwrap();
    assert!(matches!(Engine::discover(&mut bar2, 0), Err(Error::Version { name: "stats", found: 0x200, .. })));
    assert!(matches!(pci::open(&root2, "0000:09:00.0"), Err(Error::NoDevice(_))));
    std::fs::remove_dir_all(root).unwrap();
    std::fs::remove_dir_all(root2).unwrap();
}

fn cli(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ferroce")).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_reads_and_writes_over_pci_and_explains_errors() {
    let root = fake_sysfs("cli", APP_ID, |_| {});
    let sysfs = root.to_str().unwrap();
    let (ok, out, _) = cli(&["list", "--sysfs", sysfs]);
    assert!(ok && out.contains("0000:01:00.0") && !out.contains("0000:00:1f.0"), "{out}");
    let (ok, out, err) = cli(&["info", "--backend", "pci", "--sysfs", sysfs]);
    assert!(ok, "{err}");
    assert!(out.contains("engine_info") && out.contains("0x46450007") && out.contains("max_paths"), "{out}");
    let (ok, out, _) = cli(&["regs", "--backend", "pci", "--sysfs", sysfs, "control.mtu", "0x800"]);
    assert!(ok && out.contains("2048"), "{out}");
    let (ok, _, err) = cli(&["regs", "--backend", "pci", "--sysfs", sysfs, "control.status", "1"]);
    assert!(!ok && err.contains("read-only"), "{err}");
    let (ok, _, err) = cli(&["regs", "--backend", "pci", "--sysfs", sysfs, "control.nope"]);
    assert!(!ok && err.contains("control.nope"), "{err}");
    let (ok, _, err) = cli(&["info", "--backend", "pci", "--sysfs", sysfs, "--device", "0000:07:00.0"]);
    assert!(!ok && err.contains("no PCI device"), "{err}");
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn cli_info_over_the_simulated_register_file() {
    let (ok, out, err) = cli(&["info", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["blocks"].as_array().unwrap().len(), regs::BLOCKS.len());
    assert_eq!(v["parameters"]["max_paths"], 16);
    assert_eq!(v["parameters"]["max_conns"], 64);
    let (ok, out, _) = cli(&["regs", "control.ack_every", "9"]);
    assert!(ok && out.contains("(9)"), "{out}");
    let (ok, out, err) = cli(&["stats", "--json", "--paths", "4"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["paths"].as_array().unwrap().len(), 4);
    assert_eq!(v["counters"]["tx_data"], 0, "a fresh engine has sent nothing");
    let (ok, _, err) = cli(&["stats", "--paths", "17"]);
    assert!(!ok && err.contains("17"), "{err}");
}

#[test]
fn loopback_stats_json_has_every_counter_and_every_path() {
    let out = Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(["loopback", "--size", "20000", "--count", "6", "--paths", "4", "--loss", "0.05", "--stats", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let counters = v["stats"]["counters"].as_object().expect("stats.counters is an object");
    let stats = regs::BLOCKS.iter().find(|b| b.name == "stats").unwrap();
    for r in stats.regs {
        let name = r.name.strip_suffix("_lo").or(r.name.strip_suffix("_hi")).unwrap_or(r.name);
        assert!(counters.contains_key(name), "counter {name} in {counters:?}");
    }
    assert_eq!(counters["bytes_placed"], 120_000, "the 64-bit counter from its two halves");
    assert_eq!(counters["tx_retx"], v["retransmits"]);
    let paths = v["stats"]["paths"].as_array().expect("stats.paths");
    assert_eq!(paths.len(), 8, "4 paths of each of the 2 connections");
    let keys = ["conn", "path", "sport", "sent", "retransmitted", "ecn_echoes", "srtt_ns", "cwnd", "retired"];
    for p in paths {
        for k in keys {
            assert!(p.get(k).is_some(), "key {k} in {p}");
        }
    }
    let sum =
        |conn: u64, k: &str| paths.iter().filter(|p| p["conn"] == conn).map(|p| p[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum(0, "sent"), counters["tx_data"].as_u64().unwrap(), "connection 0 sent every data packet");
    assert_eq!(sum(0, "retransmitted"), counters["tx_retx"].as_u64().unwrap());
    assert_eq!(sum(1, "sent"), 0, "connection 1 only acknowledges");
    assert!(
        paths.iter().filter(|p| p["conn"] == 0).all(|p| p["srtt_ns"].as_u64().unwrap() > 0),
        "every path measured an RTT"
    );
    // Without --stats the report has none.
    let plain =
        Command::new(env!("CARGO_BIN_EXE_ferroce")).args(["loopback", "--count", "1", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&plain.stdout).expect("JSON on stdout");
    assert!(v.get("stats").is_none(), "{v}");
}

#[test]
fn loopback_json_reports_a_verified_transfer() {
    let out = Command::new(env!("CARGO_BIN_EXE_ferroce"))
        .args(["loopback", "--size", "20000", "--count", "6", "--loss", "0.02", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    for k in ["bytes", "messages", "verified", "goodput_fraction", "retransmits", "duration_cycles"] {
        assert!(v.get(k).is_some(), "key {k} in {v}");
    }
    assert_eq!(v["verified"], true);
    assert_eq!(v["bytes"], 120_000);
    assert_eq!(v["messages"], 6);
    // The simulator counts the wire: frames (with headers and ACKs) exceed the payload.
    let wire = v["wire_fraction"].as_f64().expect("wire_fraction on the simulator");
    let goodput = v["goodput_fraction"].as_f64().unwrap();
    assert!(wire > goodput && wire <= 1.0, "wire {wire}, goodput {goodput}");
    let stall = Command::new(env!("CARGO_BIN_EXE_ferroce")).args(["loopback", "--dma-stall", "0.95"]).output().unwrap();
    assert!(!stall.status.success());
    assert!(
        String::from_utf8_lossy(&stall.stderr).contains("--dma-stall"),
        "{}",
        String::from_utf8_lossy(&stall.stderr)
    );
    let bad = Command::new(env!("CARGO_BIN_EXE_ferroce")).args(["loopback", "--paths", "0"]).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--paths"), "{}", String::from_utf8_lossy(&bad.stderr));
}

/// A fake Corundum character device: a sparse file with BAR0 at offset 0
/// and the engine's registers at 1 << 40, and the sysfs class entry that
/// leads to its PCI device (whose resource files give the region sizes).
fn fake_mqnic(name: &str) -> (PathBuf, PathBuf) {
    let sysfs = fake_sysfs(&format!("mq-{name}"), APP_ID, |_| {});
    let pci = sysfs.join("0000:01:00.0");
    let root = std::env::temp_dir().join(format!("ferroce-mqnic-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("dev")).unwrap();
    std::fs::create_dir_all(root.join("sys/class/misc/mqnic0")).unwrap();
    std::os::unix::fs::symlink(&pci, root.join("sys/class/misc/mqnic0/device")).unwrap();
    let dev = root.join("dev/mqnic0");
    let bar0 = std::fs::read(pci.join("resource0")).unwrap();
    let bar2 = std::fs::read(pci.join("resource2")).unwrap();
    let f = std::fs::OpenOptions::new().create(true).truncate(true).read(true).write(true).open(&dev).unwrap();
    let region1 = 1u64 << 40;
    f.set_len(region1 + bar2.len() as u64).unwrap();
    use std::os::unix::fs::FileExt;
    f.write_all_at(&bar0, 0).unwrap();
    f.write_all_at(&bar2, region1).unwrap();
    (root, sysfs)
}

#[test]
fn corundum_character_device_maps_regions_at_their_offsets() {
    let (root, sysfs) = fake_mqnic("ok");
    let m = pci::Mqnic::open(&root.join("dev/mqnic0"), &root.join("sys")).unwrap();
    assert_eq!(pci::Mqnic::find(&root.join("dev")).unwrap(), vec![root.join("dev/mqnic0")]);
    assert_eq!(check_corundum_app(&mut m.map(0).unwrap()).unwrap().offset, 0x100);
    let mut r1 = m.map(1).unwrap();
    let e = Engine::discover(&mut r1, 0).unwrap();
    let port = e.addr(regs::control::UDP_PORT);
    assert_eq!(r1.read32(port).unwrap(), 17989);
    r1.write32(port, 777).unwrap();
    // The write went to the region's place in the device, nowhere else.
    let mut again = m.map(1).unwrap();
    assert_eq!(again.read32(port).unwrap(), 777);
    assert!(matches!(pci::Mqnic::open(&root.join("dev/mqnic9"), &root.join("sys")), Err(Error::NoDevice(_))));
    // The CLI over it.
    let (ok, out, err) = cli(&[
        "info",
        "--backend",
        "mqnic",
        "--dev-dir",
        root.join("dev").to_str().unwrap(),
        "--sysfs-root",
        root.join("sys").to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("stats"), "{out}");
    let (ok, _, err) = cli(&["info", "--backend", "mqnic", "--dev-dir", "/nonexistent-ferroce"]);
    assert!(!ok && err.contains("/nonexistent-ferroce"), "{err}");
    std::fs::remove_dir_all(root).unwrap();
    std::fs::remove_dir_all(sysfs).unwrap();
}

/// The word at byte `offset` of a BAR file.
fn bar_word(path: &Path, offset: u32) -> u32 {
    let b = std::fs::read(path).unwrap();
    let o = offset as usize;
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}

#[test]
fn cli_refuses_a_register_value_out_of_range_and_writes_nothing() {
    let root = fake_sysfs("range", APP_ID, |_| {});
    let sysfs = root.to_str().unwrap();
    let bar2 = root.join("0000:01:00.0/resource2");
    let (mtu_at, mtu) = (regs::control::MTU.offset(), regs::control::MTU.register());
    let max_mtu = RegFile::new().read(regs::engine_info::MAX_MTU.offset()).unwrap();
    assert_eq!(bar_word(&bar2, mtu_at), mtu.reset);
    for bad in [0, max_mtu + 1] {
        let value = bad.to_string();
        let (ok, out, err) = cli(&["regs", "--backend", "pci", "--sysfs", sysfs, "control.mtu", &value]);
        assert!(!ok && out.is_empty(), "{out}");
        assert!(err.contains(&format!("control.mtu: {bad} is out of range 1..={max_mtu}")), "{err}");
        assert_eq!(bar_word(&bar2, mtu_at), mtu.reset, "mtu {bad} reached the BAR");
        let (ok, out, err) = cli(&["regs", "--backend", "pci", "--sysfs", sysfs, "control.mtu"]);
        assert!(ok && out.contains(&format!("({})", mtu.reset)), "{out}{err}");
    }
    let (ok, out, err) = cli(&["regs", "--backend", "pci", "--sysfs", sysfs, "control.mtu", &max_mtu.to_string()]);
    assert!(ok && out.contains(&format!("({max_mtu})")), "{out}{err}");
    assert_eq!(bar_word(&bar2, mtu_at), max_mtu);
    // The simulator starts a fresh engine per invocation: the refusal and its
    // exit status.
    let out = Command::new(env!("CARGO_BIN_EXE_ferroce")).args(["regs", "control.mtu", "0"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("control.mtu: 0 is out of range 1..={max_mtu}")), "{err}");
    assert!(out.stdout.is_empty());
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn loopback_options_reach_their_range_checks_and_sizes_take_units() {
    for (opt, value, want) in
        [("--loss", "-0.1", "--loss must be in [0, 0.5) (got -0.1)"), ("--dma-stall", "-0.5", "--dma-stall must be in")]
    {
        let (ok, _, err) = cli(&["loopback", opt, value]);
        assert!(!ok && err.contains(want) && !err.contains("unexpected argument"), "{opt} {value}: {err}");
    }
    for (size, want) in [("1.5MiB", "not a size"), ("12XB", "not a size"), ("4096MiB", "more than 4294967295 bytes")] {
        let (ok, _, err) = cli(&["loopback", "--size", size, "--count", "1"]);
        assert!(!ok && err.contains("--size") && err.contains(want), "--size {size}: {err}");
    }
    let (ok, out, err) = cli(&["loopback", "--count", "1", "--size", "64KiB", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["bytes"].as_u64(), v["verified"].as_bool()), (Some(64 << 10), Some(true)));
    let (ok, out, err) = cli(&["loopback", "--count", "2", "--size", "1KB", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["bytes"].as_u64(), Some(2000));
}

/// `--recovery`: v1 runs a verified transfer on a lossy wire with
/// `control.recovery` at v1's values (every mechanism, repairs on clean
/// routes too); an unknown profile is refused by clap with the names.
#[test]
fn loopback_runs_the_recovery_profiles_and_refuses_others() {
    let (ok, out, err) =
        cli(&["loopback", "--count", "4", "--size", "16KiB", "--loss", "0.05", "--recovery", "v1", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["bytes"].as_u64(), v["verified"].as_bool()), (Some(4 << 14), Some(true)), "{v}");
    let (ok, _, err) = cli(&["loopback", "--recovery", "v9"]);
    assert!(!ok && err.contains("--recovery") && err.contains("v0, v1"), "{err}");
    // The window's base RTT: beyond its register refused by clap.
    let (ok, _, err) = cli(&["loopback", "--recovery", "v1", "--base-rtt", "5000"]);
    assert!(!ok && err.contains("--base-rtt"), "{err}");
}
