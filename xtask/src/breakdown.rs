//! `cargo xtask breakdown`: what each block of a synthesised engine costs,
//! read from yosys's flattened ECP5 netlist (the JSON `synth-engine`
//! writes), so that fitting a preset to its device starts from where the
//! cells are rather than from guesses.
//!
//! Synthesising block by block would count each block without the
//! constants its parent ties to it (the engine's two frame builders, for
//! one, each drop the half of the header the other sends), and yosys's
//! hierarchical synthesis of the whole engine did not finish. So the
//! netlist is flattened, and a cell is charged to the block of the first
//! named net it drives: flattening names a net `txp.retx.o_newly` after
//! the instance path of the signal it was, and a cell that drives only
//! nets without such a name (logic that yosys's mapper made up) is charged
//! to the first named net downstream of it. A block's count is therefore
//! the logic that computes its signals, including the logic its parent
//! computes into its inputs when those nets carry the child's name.
//!
//! Writes a table per block at a given depth of the instance tree (the
//! engine's own logic is `(top)`), largest first, with LUT4 equivalents
//! (a CCU2C counted as two LUT4s, as `synth` does), FF, LUT RAM (DPR16X4),
//! DP16KD and MULT18X18D.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::path::Path;

use crate::timing;

/// One block's cells.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    pub lut4: u64,
    pub ccu2c: u64,
    pub ff: u64,
    pub dpr: u64,
    pub dp16kd: u64,
    pub mult: u64,
}

impl Cost {
    pub fn lut4_equivalent(&self) -> u64 {
        self.lut4 + 2 * self.ccu2c
    }

    fn add(&mut self, kind: &str) -> bool {
        let n = match kind {
            "LUT4" => &mut self.lut4,
            "CCU2C" => &mut self.ccu2c,
            "TRELLIS_FF" => &mut self.ff,
            "TRELLIS_DPR16X4" => &mut self.dpr,
            "DP16KD" => &mut self.dp16kd,
            "MULT18X18D" => &mut self.mult,
            _ => return false,
        };
        *n += 1;
        true
    }

    fn plus(&mut self, o: &Cost) {
        self.lut4 += o.lut4;
        self.ccu2c += o.ccu2c;
        self.ff += o.ff;
        self.dpr += o.dpr;
        self.dp16kd += o.dp16kd;
        self.mult += o.mult;
    }
}

/// The block a net named `name` belongs to, `depth` instances deep:
/// `txp.retx.o_newly` is in `txp.retx` (depth 2) and `txp` (depth 1);
/// yosys's suffixes (`_TRELLIS_FF_Q...`), a child's port seen from its
/// parent (`txp.build$m_axis_tdata`) and instance indices (`cqe$1`) are
/// read as such. `None` for a name yosys made up (`$abc$...`).
pub fn block_of(name: &str, depth: usize) -> Option<String> {
    if name.starts_with('$') || name.starts_with('\\') {
        return None;
    }
    let name = name.find("_TRELLIS").map_or(name, |i| &name[..i]);
    let mut parts: Vec<&str> =
        name.split(['.', '$']).filter(|p| !p.is_empty() && !p.bytes().all(|b| b.is_ascii_digit())).collect();
    parts.pop(); // the signal itself
    parts.truncate(depth);
    Some(if parts.is_empty() { "(top)".to_string() } else { parts.join(".") })
}

/// Every block's cells at `depth`, largest (in LUT4 equivalents) first.
pub fn blocks(json: &Path, depth: usize) -> anyhow::Result<Vec<(String, Cost)>> {
    rows_by(json, |s| block_of(s, depth))
}

/// The signal a net named `name` is, if it lies in block `prefix`
/// (`txp.cbuild.nx_hb` for `txp.cbuild$nx_hb$q_TRELLIS_FF_Q_3`, in
/// `txp.cbuild`); the nets of other blocks are `(elsewhere)`.
pub fn signal_in(name: &str, prefix: &str) -> Option<String> {
    let block = block_of(name, usize::MAX)?;
    let name = name.find("_TRELLIS").map_or(name, |i| &name[..i]);
    let parts: Vec<&str> =
        name.split(['.', '$']).filter(|p| !p.is_empty() && !p.bytes().all(|b| b.is_ascii_digit())).collect();
    let inside = block == prefix || block.starts_with(&format!("{prefix}."));
    Some(if inside { parts.join(".") } else { "(elsewhere)".to_string() })
}

/// Cells by the group `group` gives the first named net they drive (or
/// the first named net downstream), largest first.
fn rows_by(json: &Path, group: impl Fn(&str) -> Option<String>) -> anyhow::Result<Vec<(String, Cost)>> {
    let n = timing::load(json)?;
    let mut consumers: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut outputs: Vec<Vec<u64>> = Vec::with_capacity(n.cells.len());
    for (i, c) in n.cells.iter().enumerate() {
        let mut o = Vec::new();
        for (_, out, bits) in &c.ports {
            for b in bits {
                if *out {
                    o.push(*b);
                } else {
                    consumers.entry(*b).or_default().push(i);
                }
            }
        }
        outputs.push(o);
    }
    let named = |b: &u64| n.names.get(b).and_then(|s| group(s));
    // The first named net at or downstream of a cell's outputs (breadth
    // first); memoised per cell.
    let mut owner: Vec<Option<String>> = vec![None; n.cells.len()];
    let mut totals: HashMap<String, Cost> = HashMap::new();
    for (i, c) in n.cells.iter().enumerate() {
        let mut cost = Cost::default();
        if !cost.add(&c.kind) {
            continue;
        }
        let block = match outputs[i].iter().find_map(named) {
            Some(b) => b,
            None => {
                let mut seen = std::collections::HashSet::from([i]);
                let mut queue = VecDeque::from([i]);
                let mut found = None;
                while let Some(x) = queue.pop_front() {
                    if let Some(b) = owner[x].clone().or_else(|| outputs[x].iter().find_map(named)) {
                        found = Some(b);
                        break;
                    }
                    for b in &outputs[x] {
                        for &y in consumers.get(b).into_iter().flatten() {
                            if seen.insert(y) {
                                queue.push_back(y);
                            }
                        }
                    }
                }
                found.unwrap_or_else(|| "(unnamed)".to_string())
            }
        };
        owner[i] = Some(block.clone());
        totals.entry(block).or_default().plus(&cost);
    }
    let mut rows: Vec<(String, Cost)> = totals.into_iter().collect();
    rows.sort_by(|a, b| b.1.lut4_equivalent().cmp(&a.1.lut4_equivalent()).then(a.0.cmp(&b.0)));
    Ok(rows)
}

/// The rows as a markdown table, with a total; blocks below `min` LUT4
/// equivalents, FF and memories alike, summed into one row.
pub fn table(rows: &[(String, Cost)], min: u64) -> String {
    let mut s = String::from(
        "| block | LUT4 equivalent | LUT4 | CCU2C | FF | DPR16X4 | DP16KD | MULT18X18D |\n|---|---|---|---|---|---|---|---|\n",
    );
    let line = |s: &mut String, name: &str, c: &Cost| {
        let _ = writeln!(
            s,
            "| {name} | {} | {} | {} | {} | {} | {} | {} |",
            c.lut4_equivalent(),
            c.lut4,
            c.ccu2c,
            c.ff,
            c.dpr,
            c.dp16kd,
            c.mult
        );
    };
    let (mut rest, mut rest_n, mut total) = (Cost::default(), 0, Cost::default());
    for (name, c) in rows {
        total.plus(c);
        let small = c.lut4_equivalent() < min && c.ff < min && c.dpr == 0 && c.dp16kd == 0 && c.mult == 0;
        if small {
            rest.plus(c);
            rest_n += 1;
        } else {
            line(&mut s, &format!("`{name}`"), c);
        }
    }
    if rest_n > 0 {
        line(&mut s, &format!("{rest_n} smaller blocks"), &rest);
    }
    line(&mut s, "**total**", &total);
    s
}

/// Where the breakdown of a preset's engine is recorded.
pub fn record_path(preset: &str) -> String {
    format!("docs/bench/rtl-engine-blocks-{preset}.md")
}

/// Record the breakdown of `preset`'s engine from its netlist `json`, at
/// depths 1 and 2; returns where.
pub fn write(preset: &str, json: &Path) -> anyhow::Result<String> {
    let path = record_path(preset);
    let mut md = format!(
        "# The `{preset}` engine's cells by block\n\n\
         Written by `cargo xtask synth-engine --preset {preset}` (or `cargo xtask breakdown --preset {preset} \
         --write`) from the flattened ECP5 netlist that its synthesis record \
         ([rtl-engine-synth{}.json](rtl-engine-synth{}.json)) counts. A cell is charged to the block of the first \
         named net it drives, or of the first named net downstream of it (xtask/src/breakdown.rs says why and \
         how); a block holds what computes its signals. LUT4 equivalents count a CCU2C as two LUT4s; a LUT RAM \
         (DPR16X4) takes a further four LUT4 places when packed. Blocks with fewer than 100 LUT4 equivalents \
         and 100 FF and no memory or multiplier are summed in one row.\n",
        if preset == "corundum" { String::new() } else { format!("-{preset}") },
        if preset == "corundum" { String::new() } else { format!("-{preset}") },
    );
    for depth in [1, 2] {
        let rows = blocks(json, depth)?;
        let _ = write!(
            md,
            "\n## {} of the instance tree\n\n{}",
            ["", "The top level", "Two levels"][depth],
            table(&rows, 100)
        );
    }
    std::fs::write(crate::root().join(&path), md)?;
    Ok(path)
}

/// `cargo xtask breakdown`: print the table of a netlist (`json`, or the
/// one `synth-engine` left for `preset`); with `write`, record a preset's.
/// With `signals`, the rows are the signals of that block instead.
pub fn run(
    json: Option<&Path>,
    preset: &str,
    depth: usize,
    signals: Option<&str>,
    write_record: bool,
) -> anyhow::Result<()> {
    ferroce_proto::config::preset(preset).map_err(anyhow::Error::msg)?;
    let default = crate::synth::engine_dir(preset).join("engine.json");
    let json = json.unwrap_or(&default);
    anyhow::ensure!(
        json.exists(),
        "{} does not exist: run `cargo xtask synth-engine --preset {preset}` first (it is left there by a \
         synthesis; a recorded one is not re-run, remove the record to run it again)",
        json.display()
    );
    eprintln!("breakdown: reading {} ...", json.display());
    if write_record {
        let path = write(preset, json)?;
        eprintln!("breakdown: written to {path}");
    }
    match signals {
        // a block's signals are small: every one of 20 LUT4 equivalents or more
        Some(prefix) => print!("{}", table(&rows_by(json, |s| signal_in(s, prefix))?, 20)),
        None => print!("{}", table(&blocks(json, depth)?, 100)),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_their_blocks() {
        assert_eq!(block_of("txp.retx.o_newly", 2).as_deref(), Some("txp.retx"));
        assert_eq!(block_of("txp.retx.o_newly", 1).as_deref(), Some("txp"));
        assert_eq!(block_of("txp.h_sport", 2).as_deref(), Some("txp"));
        assert_eq!(block_of("txp.build$m_axis_tdata", 2).as_deref(), Some("txp.build"));
        assert_eq!(block_of("txp.build.pend$q_TRELLIS_FF_Q_94_DI_LUT4_Z_D", 2).as_deref(), Some("txp.build"));
        assert_eq!(block_of("cqe$1.q", 2).as_deref(), Some("cqe"));
        assert_eq!(block_of("s_axil_rdata", 2).as_deref(), Some("(top)"));
        assert_eq!(block_of("$abc$123$auto$x", 2), None);
        assert_eq!(signal_in("txp.cbuild$nx_hb$q_TRELLIS_FF_Q_3", "txp.cbuild").as_deref(), Some("txp.cbuild.nx_hb.q"));
        assert_eq!(signal_in("txp.build.pend", "txp.cbuild").as_deref(), Some("(elsewhere)"));
    }

    /// A LUT driving a named net is that net's block's; a LUT driving only
    /// a made-up net is charged to the named net after it; a carry cell
    /// counts two LUT4 equivalents; cells of other kinds are not counted.
    #[test]
    fn cells_are_charged_to_the_block_of_what_they_drive() {
        let json = r#"{"modules": {"top": {"attributes": {"top": "00000000000000000000000000000001"},
          "netnames": {"a.x.s": {"bits": [2]}, "$abc$1$n": {"bits": [3]}, "b.t": {"bits": [4]},
                       "b.u": {"bits": [5]}, "$abc$2$c": {"bits": [6]}},
          "cells": {
            "l1": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [9], "Z": [2]}},
            "l2": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [2], "Z": [3]}},
            "l3": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [3], "Z": [4]}},
            "f": {"type": "TRELLIS_FF", "port_directions": {"DI": "input", "Q": "output"}, "connections": {"DI": [4], "Q": [5]}},
            "k": {"type": "CCU2C", "port_directions": {"A0": "input", "S0": "output"}, "connections": {"A0": [5], "S0": [6]}},
            "g": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [6], "Z": [2]}},
            "v": {"type": "VCC", "port_directions": {"Z": "output"}, "connections": {"Z": [7]}}
          }}}}"#;
        let path = std::env::temp_dir().join(format!("breakdown-test-{}.json", std::process::id()));
        std::fs::write(&path, json).unwrap();
        let rows = blocks(&path, 2).unwrap();
        let deep = blocks(&path, 1).unwrap();
        std::fs::remove_file(&path).unwrap();
        let get = |rows: &[(String, Cost)], n: &str| rows.iter().find(|r| r.0 == n).map(|r| r.1);
        // l1 and g drive a.x.s; l2 only a made-up net, read by l3 (b.t); the
        // carry cell's made-up net is read by g (a.x.s).
        assert_eq!(get(&rows, "a.x"), Some(Cost { lut4: 2, ccu2c: 1, ..Cost::default() }));
        assert_eq!(get(&rows, "b"), Some(Cost { lut4: 2, ff: 1, ..Cost::default() }));
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(rows[0].0, "a.x", "largest first: 4 LUT4 equivalents against 2");
        assert_eq!(get(&deep, "a").map(|c| c.lut4_equivalent()), Some(4));
        let t = table(&rows, 3);
        assert!(t.contains("| `a.x` | 4 | 2 | 1 | 0 | 0 | 0 | 0 |"), "{t}");
        assert!(t.contains("| 1 smaller blocks | 2 | 2 | 0 | 1 | 0 | 0 | 0 |"), "{t}");
        assert!(t.contains("| **total** | 6 | 4 | 1 | 1 | 0 | 0 | 0 |"), "{t}");
    }
}
