//! `cargo xtask timing`: the longest register-to-register paths of a
//! synthesised ECP5 netlist (yosys's JSON after `synth_ecp5`), with a simple
//! delay model, in seconds instead of the hour or two that place and route
//! takes to say the same. It ranks paths; it does not sign them off.
//!
//! The model, per cell on a path (ns): a LUT4 0.14 plus its output's route;
//! a carry cell (CCU2C) 0.28 into its carry out, 0.04 carry to carry, 0.23
//! to 0.26 to a sum output; a flip-flop's clock to output 0.31; a block
//! RAM's (DP16KD) read data 4.0 after its clock; a LUT RAM's (DPR16X4) read
//! data 0.6 after its address; a multiplier (MULT18X18D, unregistered) 4.5;
//! a route 0.45 + 0.12 log2(1 + fanout) (none between carry cells). On
//! the ECPIX-5 build around the `ecp5-85` engine at 75 MHz it put the path
//! nextpnr routed at 69.0 ns at 78.7 ns (docs/boards.md).

use std::collections::HashMap;
use std::path::Path;

use anyhow::Context;
use serde_json::Value;

/// Where a net's value comes from: a cell's output port.
pub(crate) struct Driver {
    pub(crate) cell: usize,
    port: String,
}

pub(crate) struct Cell {
    pub(crate) name: String,
    pub(crate) kind: String,
    /// (port, direction is output, bits)
    pub(crate) ports: Vec<(String, bool, Vec<u64>)>,
}

/// Delay from a cell's inputs to `port` (`None`: the inputs are not
/// followed, the output starts a path `base` after the clock), for input
/// `input` (`None` when the cell starts paths).
fn arc(kind: &str, port: &str, input: &str) -> Option<f64> {
    match kind {
        "LUT4" | "PFUMX" | "L6MUX21" => Some(0.14),
        "TRELLIS_DPR16X4" => input.starts_with("RAD").then_some(0.6),
        "MULT18X18D" => {
            let operand = (input.starts_with('A') || input.starts_with('B')) && input[1..].parse::<u32>().is_ok();
            operand.then_some(4.5)
        }
        "CCU2C" => {
            let last = port.chars().last();
            match (port, input) {
                ("COUT", "CIN") => Some(0.04),
                ("COUT", _) => Some(0.28),
                (_, "CIN") => Some(0.23),
                (_, i) if i.chars().last() == last => Some(0.26),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Output delay of a cell that starts paths (after its clock).
fn start(kind: &str) -> f64 {
    match kind {
        "TRELLIS_FF" => 0.31,
        "DP16KD" => 4.0,
        _ => 0.0,
    }
}

/// Whether `port` of a `kind` cell ends paths (a register's or memory's
/// input other than its clock).
fn ends(kind: &str, port: &str) -> bool {
    matches!(kind, "TRELLIS_FF" | "DP16KD" | "TRELLIS_DPR16X4")
        && !port.starts_with("CLK")
        && port != "WCK"
        && port != "RAD"
}

pub(crate) struct Netlist {
    pub(crate) cells: Vec<Cell>,
    pub(crate) driver: HashMap<u64, Driver>,
    fanout: HashMap<u64, u32>,
    pub(crate) names: HashMap<u64, String>,
}

pub(crate) fn load(path: &Path) -> anyhow::Result<Netlist> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let v: Value = serde_json::from_str(&text).with_context(|| format!("{} is not yosys JSON", path.display()))?;
    let modules = v["modules"].as_object().context("no modules")?;
    let (_, top) = modules
        .iter()
        .find(|(_, m)| m["attributes"]["top"].as_str().is_some_and(|t| t.trim_start_matches('0') == "1"))
        .context("no top module (attribute top)")?;
    let mut cells = Vec::new();
    for (name, c) in top["cells"].as_object().context("no cells")? {
        let kind = c["type"].as_str().unwrap_or_default().to_string();
        let dirs = &c["port_directions"];
        let mut ports = Vec::new();
        for (p, bits) in c["connections"].as_object().into_iter().flatten() {
            let out = dirs[p].as_str() == Some("output");
            let bits: Vec<u64> = bits.as_array().into_iter().flatten().filter_map(Value::as_u64).collect();
            ports.push((p.clone(), out, bits));
        }
        cells.push(Cell { name: name.clone(), kind, ports });
    }
    let mut driver = HashMap::new();
    let mut fanout = HashMap::new();
    for (i, c) in cells.iter().enumerate() {
        for (p, out, bits) in &c.ports {
            for b in bits {
                if *out {
                    driver.insert(*b, Driver { cell: i, port: p.clone() });
                } else {
                    *fanout.entry(*b).or_insert(0) += 1;
                }
            }
        }
    }
    // A net's name: its plainest (fewest '$', then shortest).
    let mut names: HashMap<u64, String> = HashMap::new();
    for (n, net) in top["netnames"].as_object().into_iter().flatten() {
        for b in net["bits"].as_array().into_iter().flatten().filter_map(Value::as_u64) {
            let better = names.get(&b).is_none_or(|o| (n.matches('$').count(), n.len()) < (o.matches('$').count(), o.len()));
            if better {
                names.insert(b, n.clone());
            }
        }
    }
    Ok(Netlist { cells, driver, fanout, names })
}

/// Arrival time of every net reached, and the input it came through.
fn arrivals(n: &Netlist) -> HashMap<u64, (f64, Option<u64>)> {
    let route = |b: u64| 0.45 + 0.12 * (1.0 + f64::from(*n.fanout.get(&b).unwrap_or(&0))).log2();
    let mut at: HashMap<u64, (f64, Option<u64>)> = HashMap::new();
    let nets: Vec<u64> = n.driver.keys().copied().collect();
    for root in nets {
        let mut stack = vec![root];
        while let Some(&b) = stack.last() {
            if at.contains_key(&b) {
                stack.pop();
                continue;
            }
            let Some(d) = n.driver.get(&b) else {
                at.insert(b, (0.0, None));
                stack.pop();
                continue;
            };
            let c = &n.cells[d.cell];
            let inputs: Vec<(u64, f64)> = c
                .ports
                .iter()
                .filter(|(_, out, _)| !out)
                .filter_map(|(p, _, bits)| arc(&c.kind, &d.port, p).map(|dl| (bits, dl)))
                .flat_map(|(bits, dl)| bits.iter().map(move |b| (*b, dl)))
                .collect();
            let pending: Vec<u64> = inputs.iter().map(|x| x.0).filter(|x| !at.contains_key(x)).collect();
            if !pending.is_empty() {
                stack.extend(pending);
                continue;
            }
            let (mut t, mut from) = (start(&c.kind), None);
            for (x, dl) in inputs {
                if at[&x].0 + dl > t || from.is_none() {
                    t = at[&x].0 + dl;
                    from = Some(x);
                }
            }
            let carry = c.kind == "CCU2C" && d.port == "COUT";
            at.insert(b, (t + if carry { 0.0 } else { route(b) }, from));
            stack.pop();
        }
    }
    at
}

/// The register a net's path starts from: the cell named up to its flop
/// or memory suffix.
fn owner(name: &str) -> String {
    let cut = ["_TRELLIS_FF_Q", ".q_TRELLIS", "$d_TRELLIS", ".ram.mem", "_DI", "_DOA", "_DOB"]
        .iter()
        .filter_map(|s| name.find(s))
        .min()
        .unwrap_or(name.len());
    name[..cut].to_string()
}

/// The `count` slowest (start register, end register) pairs, slowest first:
/// (estimated ns, nets on the path, start, end).
pub fn worst(json: &Path, count: usize) -> anyhow::Result<Vec<(f64, usize, String, String)>> {
    let n = load(json)?;
    let at = arrivals(&n);
    let mut ends_at: Vec<(f64, u64, usize)> = Vec::new();
    for (i, c) in n.cells.iter().enumerate() {
        for (p, out, bits) in &c.ports {
            if !out && ends(&c.kind, p) {
                ends_at.extend(bits.iter().filter_map(|b| at.get(b).map(|a| (a.0, *b, i))));
            }
        }
    }
    ends_at.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (t, b, cell) in ends_at {
        let mut x = b;
        let mut levels = 1;
        while let Some((_, Some(p))) = at.get(&x) {
            x = *p;
            levels += 1;
        }
        let from = match n.driver.get(&x) {
            Some(d) => owner(&n.cells[d.cell].name),
            None => format!("input {}", n.names.get(&x).map_or("?", String::as_str)),
        };
        let to = owner(&n.cells[cell].name);
        if seen.insert((from.clone(), to.clone())) {
            out.push((t, levels, from, to));
            if out.len() == count {
                break;
            }
        }
    }
    Ok(out)
}

pub fn run(json: &Path, count: usize) -> anyhow::Result<()> {
    eprintln!("timing: reading {} ...", json.display());
    let rows = worst(json, count)?;
    println!("estimated ns   nets  from -> to");
    for (t, levels, from, to) in rows {
        println!("{t:12.2}  {levels:5}  {from} -> {to}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// Two registers with two LUT4s between them, and a carry chain of two
    /// cells from another register: the estimates add up as the model says
    /// and the pairs come slowest first.
    #[test]
    fn paths_add_up_by_the_model() {
        let json = r#"{"modules": {"top": {"attributes": {"top": "00000000000000000000000000000001"},
          "netnames": {"a": {"bits": [2]}, "x": {"bits": [3]}, "y": {"bits": [4]}, "c": {"bits": [5]},
                       "co": {"bits": [6]}, "s": {"bits": [7]}},
          "cells": {
            "ra_TRELLIS_FF_Q": {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
                   "connections": {"CLK": [1], "DI": [4], "Q": [2]}},
            "l1": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [2], "Z": [3]}},
            "l2": {"type": "LUT4", "port_directions": {"A": "input", "B": "input", "Z": "output"},
                   "connections": {"A": [3], "B": [2], "Z": [4]}},
            "rc_TRELLIS_FF_Q": {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
                   "connections": {"CLK": [1], "DI": [7], "Q": [5]}},
            "k1": {"type": "CCU2C", "port_directions": {"A0": "input", "COUT": "output"}, "connections": {"A0": [5], "COUT": [6]}},
            "k2": {"type": "CCU2C", "port_directions": {"CIN": "input", "S0": "output"}, "connections": {"CIN": [6], "S0": [7]}}
          }}}}"#;
        let path = std::env::temp_dir().join(format!("timing-test-{}.json", std::process::id()));
        std::fs::write(&path, json).unwrap();
        let rows = super::worst(&path, 10).unwrap();
        std::fs::remove_file(&path).unwrap();
        let route = |fanout: f64| 0.45 + 0.12 * (1.0 + fanout).log2();
        // ra -> l1 -> l2 -> ra: clock to Q, the Q net (fanout 2), l1 and its net, l2 and its net.
        let lut_path = 0.31 + route(2.0) + 0.14 + route(1.0) + 0.14 + route(1.0);
        // rc -> k1 (into carry) -> k2 (carry to sum) -> rc.
        let carry_path = 0.31 + route(1.0) + 0.28 + 0.23 + route(1.0);
        assert_eq!(rows.len(), 2);
        assert!((rows[0].0 - lut_path).abs() < 1e-9, "{rows:?}");
        assert_eq!((rows[0].2.as_str(), rows[0].3.as_str()), ("ra", "ra"));
        assert!((rows[1].0 - carry_path).abs() < 1e-9, "{rows:?}");
        assert_eq!(rows[1].1, 3, "nets on the path: rc's output, the carry, the sum");
    }
}
