//! The driver for hardware alone: without the `sim` feature the crate has
//! neither rust-hdl nor the Verilator harness among its dependencies, and
//! it compiles (so a production build pulls in neither).

use std::process::Command;

/// What `cargo` prints for `args`, run in the workspace, or the test fails.
fn cargo(args: &[&str]) -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let out = Command::new(env!("CARGO")).current_dir(root).args(args).output().expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn tree(features: &[&str]) -> Vec<String> {
    let mut args = vec!["tree", "--offline", "-p", "ferroce-driver", "-e", "normal", "--prefix", "none"];
    args.extend_from_slice(features);
    let mut crates: Vec<String> =
        cargo(&args).lines().filter_map(|l| l.split_whitespace().next()).map(str::to_string).collect();
    crates.sort();
    crates.dedup();
    crates
}

const HEAVY: &[&str] = &["ferroce-hdl", "ferroce-sim", "rust-hdl", "libloading"];

#[test]
fn without_the_sim_feature_the_driver_has_no_rtl_or_simulator_dependencies() {
    let light = tree(&["--no-default-features"]);
    for c in HEAVY {
        assert!(!light.iter().any(|x| x == c), "{c} is a dependency of the driver without `sim`: {light:?}");
    }
    assert!(light.iter().any(|x| x == "ferroce-proto"), "{light:?}");
    // The check can fail: the default build has them.
    let full = tree(&[]);
    for c in HEAVY {
        assert!(full.iter().any(|x| x == c), "{c} with `sim`: {full:?}");
    }
}

#[test]
fn without_the_sim_feature_the_driver_compiles() {
    let target = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/driver-without-sim");
    cargo(&["check", "--offline", "--quiet", "-p", "ferroce-driver", "--no-default-features", "--target-dir", target]);
}
