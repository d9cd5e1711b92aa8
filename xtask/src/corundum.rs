//! `cargo xtask corundum`: ferroce as the application block of a Corundum
//! checkout.
//!
//! Writes `fpga/app/ferroce/` into the checkout: `rtl/mqnic_app_block.v`
//! (the checkout's own parameter and port list from
//! `fpga/app/template/rtl/mqnic_app_block.v`, then `fpga/corundum/
//! mqnic_app_block.v`), `rtl/ferroce_app.v` (the engine and its adapters,
//! emitted from rust-hdl) and a README; and for each `--board` (a board
//! variant under `fpga/mqnic/`, such as `AU200/fpga_25g`) a build
//! directory `fpga_app_ferroce/` beside the variant's own `fpga/`, with
//! its Makefile (the ferroce files added to `SYN_FILES`) and `config.tcl`
//! (`APP_ENABLE`, `APP_ID` and the interfaces ferroce uses switched on).
//! Running it again writes the same files.

use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Context};

/// Files of the checkout that make it Corundum.
const MARKERS: &[&str] = &["fpga/common/rtl/mqnic_core.v", "fpga/app/template/rtl/mqnic_app_block.v"];
/// The template whose parameter and port list the block takes.
const TEMPLATE: &str = "fpga/app/template/rtl/mqnic_app_block.v";
/// Where the application goes in the checkout.
pub const APP_DIR: &str = "fpga/app/ferroce";

/// Corundum's modules the block instantiates, as a board Makefile names them.
const CORUNDUM_FILES: &[&str] =
    &["lib/pcie/rtl/dma_psdpram.v", "lib/pcie/rtl/dma_client_axis_sink.v", "lib/pcie/rtl/dma_client_axis_source.v"];

/// Application parameters set in a board's config.tcl.
fn app_params() -> Vec<(&'static str, String)> {
    vec![
        ("APP_ID", format!("32'h{:08x}", ferroce_proto::regs::APP_ID)),
        ("APP_ENABLE", "1".into()),
        ("APP_CTRL_ENABLE", "1".into()),
        ("APP_DMA_ENABLE", "1".into()),
        ("APP_AXIS_DIRECT_ENABLE", "1".into()),
        ("APP_AXIS_SYNC_ENABLE", "1".into()),
        ("APP_AXIS_IF_ENABLE", "1".into()),
    ]
}

pub fn run(dir: &Path, boards: &[String]) -> anyhow::Result<()> {
    check_corundum(dir)?;
    let app = dir.join(APP_DIR);
    std::fs::create_dir_all(app.join("rtl"))?;
    eprintln!("corundum: emitting the engine and its adapters (a minute or two) ...");
    write(&app.join("rtl/ferroce_app.v"), &ferroce_hdl::corundum::app::verilog())?;
    write(&app.join("rtl/mqnic_app_block.v"), &app_block(dir)?)?;
    write(&app.join("README.md"), README)?;
    testbench(dir)?;
    println!("wrote {}", app.display());
    let mut builds = Vec::new();
    for b in boards {
        let build = board(dir, b)?;
        println!("wrote {}", build.display());
        builds.push(build);
    }
    if boards.is_empty() {
        println!(
            "no --board given: name a board variant under fpga/mqnic/ (such as AU200/fpga_25g) for a build directory"
        );
    }
    for b in &builds {
        println!("next, with Vivado (not run here): cd {} && make   # bitstream fpga.bit", b.display());
    }
    Ok(())
}

/// Corundum's template testbench, whose Makefile ferroce's derives from
/// and whose `TB` class ferroce's bench uses.
const TEMPLATE_TB: &str = "fpga/app/template/tb/mqnic_core_pcie_us";
/// ferroce's full-NIC testbench in the checkout.
pub const TB_DIR: &str = "fpga/app/ferroce/tb/mqnic_core_pcie_us";

/// ferroce's testbench beside the application (`fpga/corundum/tb/`): the
/// bench, its Makefile (the template's, changed as [`tb_makefile`] says)
/// and the links the Makefile's source paths go through, as the template
/// application has them.
fn testbench(dir: &Path) -> anyhow::Result<()> {
    let tb = dir.join(TB_DIR);
    std::fs::create_dir_all(&tb)?;
    let template = dir.join(TEMPLATE_TB).join("Makefile");
    let text = std::fs::read_to_string(&template).with_context(|| format!("reading {}", template.display()))?;
    write(&tb.join("Makefile"), &tb_makefile(&text)?)?;
    let bench = std::fs::read_to_string(crate::root().join("fpga/corundum/tb/test_ferroce.py"))?;
    write(&tb.join("test_ferroce.py"), &bench)?;
    let app = dir.join(APP_DIR);
    for (link, to) in [("rtl/common", "../../../common/rtl/"), ("lib", "../../lib/")] {
        if std::fs::symlink_metadata(app.join(link)).is_err() {
            std::os::unix::fs::symlink(to, app.join(link)).with_context(|| format!("linking {link}"))?;
        }
    }
    Ok(())
}

/// The template bench's Makefile for ferroce: ferroce's module and bench,
/// ferroce's APP_ID, a 64-bit MAC side (10G; ferroce's engine is 64 bits
/// wide) and two ports on the one interface (with one, Corundum's
/// `mqnic_rx_queue_map.v` has a zero-width part select that Verilator
/// refuses). Fails if the template does not have a line it changes.
pub fn tb_makefile(template: &str) -> anyhow::Result<String> {
    let app_id = format!("export PARAM_APP_ID := $(shell echo $$((0x{:08x})) )", ferroce_proto::regs::APP_ID);
    let changes: [(&str, String); 5] = [
        ("MODULE   = test_$(DUT)", "MODULE   = test_ferroce".into()),
        (
            "VERILOG_SOURCES += ../../rtl/mqnic_app_block.v\n",
            "VERILOG_SOURCES += ../../rtl/mqnic_app_block.v\nVERILOG_SOURCES += ../../rtl/ferroce_app.v\n".into(),
        ),
        ("export PARAM_PORTS_PER_IF := 1\n", "export PARAM_PORTS_PER_IF := 2\n".into()),
        ("export PARAM_AXIS_ETH_DATA_WIDTH := 512\n", "export PARAM_AXIS_ETH_DATA_WIDTH := 64\n".into()),
        ("export PARAM_APP_ID := $(shell echo $$((0x12340001)) )", app_id),
    ];
    let mut out =
        format!("# Generated by `cargo xtask corundum` (ferroce) from {TEMPLATE_TB}/Makefile of this checkout.\n\n");
    let mut text = template.to_string();
    for (from, to) in changes {
        ensure!(text.matches(from).count() == 1, "the template bench's Makefile has no single line {:?}", from.trim());
        text = text.replacen(from, &to, 1);
    }
    out.push_str(&text);
    Ok(out)
}

/// Refuse a tree that is not a Corundum checkout.
pub fn check_corundum(dir: &Path) -> anyhow::Result<()> {
    ensure!(dir.is_dir(), "{} is not a directory", dir.display());
    let missing: Vec<&str> = MARKERS.iter().copied().filter(|m| !dir.join(m).is_file()).collect();
    ensure!(missing.is_empty(), "{} is not a Corundum checkout: no {}", dir.display(), missing.join(", no "));
    Ok(())
}

/// The checkout's parameter and port list of `mqnic_app_block`, then ours.
pub fn app_block(dir: &Path) -> anyhow::Result<String> {
    let path = dir.join(TEMPLATE);
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let start = text
        .find("module mqnic_app_block")
        .with_context(|| format!("no module mqnic_app_block in {}", path.display()))?;
    let end = text[start..]
        .match_indices("\n);")
        .next()
        .map(|(i, _)| start + i + 3)
        .with_context(|| format!("no end of the port list in {}", path.display()))?;
    let body = std::fs::read_to_string(crate::root().join("fpga/corundum/mqnic_app_block.v"))?;
    Ok(format!(
        "// Generated by `cargo xtask corundum` (ferroce): the parameter and port list of\n// {TEMPLATE} of this checkout, then ferroce's fpga/corundum/mqnic_app_block.v.\n\n`resetall\n`timescale 1ns / 1ps\n`default_nettype none\n\n{}\n\n{body}",
        &text[start..end]
    ))
}

/// ferroce's build directory beside a board's build directory `name`
/// (under `fpga/mqnic/`, holding a Makefile and config.tcl, such as
/// `AU200/fpga_25g/fpga_10g`): `fpga_10g_app_ferroce`, or
/// `fpga_app_ferroce` beside `fpga`, as Corundum names its application
/// builds (`fpga_app_dma_bench`).
pub fn board(dir: &Path, name: &str) -> anyhow::Result<PathBuf> {
    ensure!(!name.split('/').any(|c| c == ".." || c.is_empty()), "board {name}: a path under fpga/mqnic/");
    let base = dir.join("fpga/mqnic").join(name);
    if !base.join("Makefile").is_file() || !base.join("config.tcl").is_file() {
        bail!(
            "no board build directory fpga/mqnic/{name} with a Makefile and config.tcl; those here: {}",
            Some(board_dirs(&dir.join("fpga/mqnic")).join(" "))
                .filter(|l| !l.is_empty())
                .unwrap_or_else(|| "none".into())
        );
    }
    let leaf = base.file_name().context("a board directory")?.to_string_lossy().into_owned();
    let variant = base.parent().context("a board variant")?.to_path_buf();
    let build = variant.join(format!("{leaf}_app_ferroce"));
    std::fs::create_dir_all(&build)?;
    let makefile = std::fs::read_to_string(base.join("Makefile"))?;
    write(&build.join("Makefile"), &board_makefile(&makefile)?)?;
    let config = std::fs::read_to_string(base.join("config.tcl"))?;
    write(&build.join("config.tcl"), &board_config(&config)?)?;
    // A variant reaches its sources through links (rtl/common, lib, app).
    let app_link = variant.join("app");
    if std::fs::symlink_metadata(&app_link).is_err() {
        let up = "../".repeat(variant.strip_prefix(dir.join("fpga")).map_or(3, |p| p.components().count()));
        std::os::unix::fs::symlink(format!("{up}app"), &app_link)
            .with_context(|| format!("linking {}", app_link.display()))?;
    }
    Ok(build)
}

/// Board build directories (holding a Makefile and config.tcl) under `root`, relative to it.
fn board_dirs(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        if d.join("Makefile").is_file() && d.join("config.tcl").is_file() {
            out.push(d.strip_prefix(root).unwrap_or(&d).display().to_string());
        }
        if d.strip_prefix(root).map_or(0, |p| p.components().count()) < 3 {
            stack
                .extend(std::fs::read_dir(&d).into_iter().flatten().flatten().map(|e| e.path()).filter(|p| p.is_dir()));
        }
    }
    out.sort();
    out
}

/// The board's Makefile with ferroce's files (and Corundum's modules it
/// instantiates, where missing) added to `SYN_FILES`, and the paths one
/// level deeper.
pub fn board_makefile(makefile: &str) -> anyhow::Result<String> {
    let last = makefile
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("SYN_FILES"))
        .map(|(i, _)| i)
        .last()
        .context("the board's Makefile has no SYN_FILES")?;
    let mut out = String::new();
    for (i, line) in makefile.lines().enumerate() {
        out.push_str(line);
        out.push('\n');
        if i == last {
            out.push_str("# ferroce (cargo xtask corundum)\n");
            out.push_str("SYN_FILES += app/ferroce/rtl/mqnic_app_block.v\n");
            out.push_str("SYN_FILES += app/ferroce/rtl/ferroce_app.v\n");
            for f in CORUNDUM_FILES {
                if !makefile.contains(f) {
                    out.push_str(&format!("SYN_FILES += {f}\n"));
                }
            }
        }
    }
    Ok(out)
}

/// The board's config.tcl with the application parameters set (changed
/// where the file sets them, added after its last parameter otherwise).
pub fn board_config(config: &str) -> anyhow::Result<String> {
    let mut lines: Vec<String> = config.lines().map(str::to_string).collect();
    for (name, value) in app_params() {
        let prefix = format!("dict set params {name} ");
        let line = format!("dict set params {name} \"{value}\"");
        if let Some(l) = lines.iter_mut().find(|l| l.trim_start().starts_with(&prefix)) {
            *l = line;
        } else {
            let at = lines
                .iter()
                .rposition(|l| l.trim_start().starts_with("dict set params "))
                .context("the board's config.tcl sets no parameters")?;
            lines.insert(at + 1, line);
        }
    }
    Ok(lines.join("\n") + "\n")
}

/// Write `text` to `path` unless it already holds exactly that.
fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|t| t == text) {
        return Ok(());
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

const README: &str = "# ferroce\n\nferroce's RDMA transport engine as Corundum's application block, written by\n`cargo xtask corundum` of the ferroce project (do not edit: run it again).\n\n* `rtl/mqnic_app_block.v`: the block (this checkout's port list, then ferroce's shim);\n* `rtl/ferroce_app.v`: the engine, its DMA adapter, MAC tap and BAR2 decoder;\n* `tb/mqnic_core_pcie_us/`: the full-NIC cocotb bench with ferroce (run by `cargo xtask corundum-test`, which serves it ferroce's driver).\n\nBoard builds: `fpga/mqnic/<board>/<variant>/<build>_app_ferroce` (`make`, with Vivado).\n";

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn a_board_makefile_gets_ferroce_and_corundums_dma_clients() {
        let m = "FPGA_TOP = fpga\nSYN_FILES = rtl/fpga.v\nSYN_FILES += lib/pcie/rtl/dma_psdpram.v\n\nXDC_FILES = fpga.xdc\n";
        let out = board_makefile(m).unwrap();
        assert_eq!(
            out,
            "FPGA_TOP = fpga\nSYN_FILES = rtl/fpga.v\nSYN_FILES += lib/pcie/rtl/dma_psdpram.v\n# ferroce (cargo xtask corundum)\n\
             SYN_FILES += app/ferroce/rtl/mqnic_app_block.v\nSYN_FILES += app/ferroce/rtl/ferroce_app.v\n\
             SYN_FILES += lib/pcie/rtl/dma_client_axis_sink.v\nSYN_FILES += lib/pcie/rtl/dma_client_axis_source.v\n\nXDC_FILES = fpga.xdc\n"
        );
        assert!(board_makefile("all:\n").is_err(), "a Makefile without SYN_FILES is refused");
    }

    #[test]
    fn a_board_config_gets_ferroces_app_id_and_interfaces() {
        let c =
            "set params [dict create]\ndict set params IF_COUNT \"1\"\ndict set params APP_ENABLE \"0\"\nputs done\n";
        let out = board_config(c).unwrap();
        assert!(out.contains("dict set params APP_ENABLE \"1\"\n"), "{out}");
        assert!(out.contains("dict set params APP_ID \"32'h4645524f\"\n"), "{out}");
        assert!(out.contains("dict set params APP_DMA_ENABLE \"1\"\n"), "{out}");
        assert!(out.ends_with("puts done\n"));
        assert_eq!(board_config(&out).unwrap(), out, "setting them again changes nothing");
    }

    /// The Corundum tree the tests use: `FERROCE_CORUNDUM_DIR`, else the
    /// shared copy beside the checkout.
    pub(crate) fn corundum_tree() -> Option<PathBuf> {
        let p = std::env::var_os("FERROCE_CORUNDUM_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| crate::root().join("../shared/corundum"));
        p.join(MARKERS[0]).is_file().then_some(p)
    }

    /// A writable copy of `src` (the shared copy is read only).
    pub(crate) fn copy_tree(src: &Path, dst: &Path) {
        std::fs::create_dir_all(dst).unwrap();
        for e in std::fs::read_dir(src).unwrap().flatten() {
            let (from, to) = (e.path(), dst.join(e.file_name()));
            let t = std::fs::symlink_metadata(&from).unwrap().file_type();
            if t.is_dir() {
                copy_tree(&from, &to);
            } else if t.is_symlink() {
                std::os::unix::fs::symlink(std::fs::read_link(&from).unwrap(), &to).unwrap();
            } else {
                std::fs::write(&to, std::fs::read(&from).unwrap()).unwrap();
            }
        }
    }

    #[test]
    fn a_tree_that_is_not_corundum_is_refused() {
        let d = std::env::temp_dir().join(format!("ferroce-not-corundum-{}", std::process::id()));
        std::fs::create_dir_all(d.join("fpga/common/rtl")).unwrap();
        let e = run(&d, &[]).unwrap_err().to_string();
        assert!(e.contains("is not a Corundum checkout") && e.contains("mqnic_app_block.v"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// The overlay on a copy of Corundum: the files, the same files a second
    /// time, a board build directory, and the block elaborating in Verilator
    /// with Corundum's own modules at the 64-bit, one-port configuration.
    #[test]
    fn the_overlay_builds_with_corundums_modules_and_is_idempotent() {
        let Some(src) = corundum_tree() else {
            eprintln!("no Corundum tree (../shared/corundum or FERROCE_CORUNDUM_DIR): nothing to apply the overlay to");
            return;
        };
        let d = std::env::temp_dir().join(format!("ferroce-corundum-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        copy_tree(&src, &d);
        // A board variant as Corundum lays them out.
        let variant = d.join("fpga/mqnic/TEST/fpga_10g/fpga");
        std::fs::create_dir_all(&variant).unwrap();
        std::fs::write(
            variant.join("Makefile"),
            "SYN_FILES = rtl/fpga.v\nSYN_FILES += rtl/common/mqnic_core.v\n\ninclude ../common/vivado.mk\n",
        )
        .unwrap();
        std::fs::write(
            variant.join("config.tcl"),
            "set params [dict create]\ndict set params APP_ENABLE \"0\"\ndict set params DMA_LEN_WIDTH \"16\"\n",
        )
        .unwrap();
        let boards = vec!["TEST/fpga_10g/fpga".to_string()];
        run(&d, &boards).unwrap();
        let files = [
            "fpga/app/ferroce/rtl/mqnic_app_block.v",
            "fpga/app/ferroce/rtl/ferroce_app.v",
            "fpga/mqnic/TEST/fpga_10g/fpga_app_ferroce/Makefile",
            "fpga/mqnic/TEST/fpga_10g/fpga_app_ferroce/config.tcl",
        ];
        let first: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(d.join(f)).unwrap()).collect();
        run(&d, &boards).unwrap();
        let second: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(d.join(f)).unwrap()).collect();
        assert!(first == second, "a second run writes the same files");
        let block = String::from_utf8(first[0].clone()).unwrap();
        assert!(block.contains("module mqnic_app_block #") && block.contains("ferroce_app app_inst ("));
        assert!(String::from_utf8_lossy(&first[1]).contains("module ferroce_app("));
        assert!(!String::from_utf8_lossy(&first[1]).contains("module top"), "no module named top");
        assert!(String::from_utf8_lossy(&first[3]).contains("dict set params APP_ID \"32'h4645524f\""));
        assert!(run(&d, &["NOPE/fpga".to_string()]).unwrap_err().to_string().contains("TEST/fpga_10g/fpga"));
        assert_eq!(std::fs::read_link(d.join("fpga/mqnic/TEST/fpga_10g/app")).unwrap(), Path::new("../../../app"));

        // Elaborate the block with Corundum's modules (64-bit MAC side,
        // 256-bit PCIe), in Verilator and in Icarus Verilog (Corundum's
        // benches run in it by default): the same parameters and sources.
        let params = [
            ("APP_ID", "32'h4645524f"),
            ("AXIS_DATA_WIDTH", "64"),
            ("AXIL_APP_CTRL_ADDR_WIDTH", "24"),
            ("RAM_ADDR_WIDTH", "18"),
            ("DMA_TAG_WIDTH", "14"),
            ("RAM_SEG_COUNT", "2"),
            ("RAM_SEG_DATA_WIDTH", "256"),
        ];
        let pcie = d.join("fpga/lib/pcie/rtl");
        let mut sources = vec![d.join(files[0]), d.join(files[1])];
        sources.extend(["dma_psdpram.v", "dma_client_axis_sink.v", "dma_client_axis_source.v"].map(|f| pcie.join(f)));
        let bin = ferroce_sim::tools::ensure(&ferroce_sim::tools::VERILATOR, &mut |l| eprintln!("{l}")).unwrap();
        let out = std::process::Command::new(&bin)
            .env("VERILATOR_ROOT", ferroce_sim::tools::verilator_root(&bin))
            .args(["--lint-only", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module", "mqnic_app_block"])
            .args(params.map(|(p, v)| format!("-G{p}={v}")))
            .args(&sources)
            .output()
            .unwrap();
        assert!(out.status.success(), "verilator:\n{}", String::from_utf8_lossy(&out.stderr));

        let iv = ferroce_sim::tools::iverilog(&mut |l| eprintln!("{l}")).unwrap();
        let out = std::process::Command::new(iv.join("bin/iverilog"))
            .args(["-g2012", "-s", "mqnic_app_block", "-o"])
            .arg(d.join("icarus.vvp"))
            .args(params.map(|(p, v)| format!("-Pmqnic_app_block.{p}={v}")))
            .args(&sources)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && !err.contains("error"), "iverilog:\n{err}");
        assert!(d.join("icarus.vvp").is_file());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
