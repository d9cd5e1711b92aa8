//! `cargo xtask mutants`: single-line mutants of the RTL run against the
//! tests. Each mutant changes one piece of one block's emitted Verilog
//! (through the Verilator harness's `FERROCE_MUTANT` hook, so no source
//! file is touched and every model that contains the block, the engine
//! too, is built with the change); it is killed when one of its tests
//! fails. Writes the RTL section of `docs/bench/mutants.md`.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::Context;

/// One mutant: the block whose Verilog it changes, the text and its
/// replacement, what kind of mistake it stands for, and the test binaries
/// that should catch it (run in turn until one fails).
struct Mutant {
    block: &'static str,
    what: &'static str,
    from: &'static str,
    to: &'static str,
    tests: &'static [(&'static str, &'static str)],
}

const RX_CHECK: &[(&str, &str)] = &[("ferroce-sim", "rtl_rx_check"), ("ferroce-driver", "edges")];
const SACK: &[(&str, &str)] = &[("ferroce-sim", "rtl_sack"), ("ferroce-sim", "rtl_rx_path")];
const RX_MSGS: &[(&str, &str)] = &[("ferroce-sim", "rtl_rx_msgs"), ("ferroce-sim", "rtl_rx_path")];
const RX_PARSE: &[(&str, &str)] = &[("ferroce-sim", "rtl_rx_parse"), ("ferroce-driver", "edges")];
const ENGINE: &[(&str, &str)] = &[("ferroce-driver", "edges"), ("ferroce-tests", "engine")];

const MUTANTS: &[Mutant] = &[
    Mutant {
        block: "rx_check",
        what: "bound: a message may end one byte past its region",
        from: "(msg_end <= region_end)",
        to: "(msg_end <= region_end + 65'd1)",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "bound: a packet may end one byte past its region",
        from: "(pkt_end <= region_end)",
        to: "(pkt_end <= region_end + 65'd1)",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "bound: a message may start one byte before its region",
        from: "wire in_region_msg = ({1'b0, in_remote_addr} >= {1'b0, m_base[mi]})",
        to: "wire in_region_msg = ({1'b0, in_remote_addr} + 65'd1 >= {1'b0, m_base[mi]})",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "dropped condition: remote-write permission",
        from: "found & m_write[mi] & (m_conn[mi] == in_conn)",
        to: "found & (m_conn[mi] == in_conn)",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "dropped condition: the region's owning connection",
        from: "m_write[mi] & (m_conn[mi] == in_conn) & in_region_msg",
        to: "m_write[mi] & in_region_msg",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "off by one: a path index equal to the path count is accepted",
        from: "({3'd0, c_paths[ci]} > in_path)",
        to: "({3'd0, c_paths[ci]} >= in_path)",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "dropped condition: a message end that wraps past 2^64",
        from: "(msg_end <= region_end) & ~msg_end[64]",
        to: "(msg_end <= region_end)",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "dropped condition: SENDs pass the region check",
        from: "access_ok_q <= ~in_write | access_ok;",
        to: "access_ok_q <= access_ok;",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "swapped priority: the highest matching region slot wins",
        from: "assign x[gi * 4 +: 4] = v[2 * gi] ? x[2 * gi * 4 +: 4] : x[(2 * gi + 1) * 4 +: 4];",
        to: "assign x[gi * 4 +: 4] = v[2 * gi + 1] ? x[(2 * gi + 1) * 4 +: 4] : x[2 * gi * 4 +: 4];",
        tests: RX_CHECK,
    },
    Mutant {
        block: "sack",
        what: "window edge: a PSN 256 ahead is accepted",
        from: "wire in_window = d_cum < 24'd256;",
        to: "wire in_window = d_cum < 24'd257;",
        tests: SACK,
    },
    Mutant {
        block: "sack",
        what: "window edge: a PSN 255 ahead is refused",
        from: "wire in_window = d_cum < 24'd256;",
        to: "wire in_window = d_cum < 24'd255;",
        tests: SACK,
    },
    Mutant {
        block: "sack",
        what: "dropped condition: the next PSN in order counts as a new hole",
        from: "hole = is_new & ~d_high[23] & (d_high != 24'd0);",
        to: "hole = is_new & ~d_high[23];",
        tests: SACK,
    },
    Mutant {
        block: "rx_msgs",
        what: "window edge: message n + 16 accepted while n is open",
        from: "(ahead < 32'd16)",
        to: "(ahead < 32'd17)",
        tests: RX_MSGS,
    },
    Mutant {
        block: "rx_msgs",
        what: "dropped condition: a packet's opcode must match its message's",
        from: "((s_len[si] == len) & (s_op[si] == opcode))",
        to: "(s_len[si] == len)",
        tests: RX_MSGS,
    },
    Mutant {
        block: "ack_gen",
        what: "off by one: an ACK after ack_every + 1 packets",
        from: "(pend1 >= ack_every)",
        to: "(pend1 > ack_every)",
        tests: &[("ferroce-sim", "rtl_ack_gen"), ("ferroce-sim", "rtl_rx_path")],
    },
    Mutant {
        block: "cc",
        what: "dropped condition: the window is cut on every marked ACK, not once per RTT",
        from: "wire halve = marked & (since > srtt);",
        to: "wire halve = marked;",
        tests: &[("ferroce-sim", "rtl_cc"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "cc",
        what: "comparison: the window grows one ACK late",
        from: "wire grow = sum >= {1'b0, cwnd};",
        to: "wire grow = sum > {1'b0, cwnd};",
        tests: &[("ferroce-sim", "rtl_cc"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "health",
        what: "off by one: the loss epoch is 63 packets",
        from: "wire epoch_done = sent >= 16'd64;",
        to: "wire epoch_done = sent >= 16'd63;",
        tests: &[("ferroce-sim", "rtl_health"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "health",
        what: "comparison: a path is retired one RTO late",
        from: "if (rtos1 >= retire_after) n_ret = 1'b1;",
        to: "if (rtos1 > retire_after) n_ret = 1'b1;",
        tests: &[("ferroce-sim", "rtl_health"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "segmenter",
        what: "off by one: segments one byte short of the MTU",
        from: "? {18'd0, mtu} : left;",
        to: "? {18'd0, mtu} - 32'd1 : left;",
        tests: &[("ferroce-sim", "rtl_segmenter"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "rto_timer",
        what: "off by one: a timer fires one time unit early",
        from: "wire [31:0] late = now - entry[31:0];",
        to: "wire [31:0] late = now - entry[31:0] + 32'd1;",
        tests: &[("ferroce-sim", "rtl_rto_timer"), ("ferroce-tests", "engine")],
    },
    Mutant {
        block: "pacer",
        what: "dropped condition: a connection may always send at once",
        from: "wire may_now = now_q >= next_q;",
        to: "wire may_now = 1'b1;",
        tests: &[("ferroce-sim", "rtl_pacer"), ("ferroce-tests", "engine")],
    },
    Mutant {
        block: "spray",
        what: "dropped condition: retired paths take new data",
        from: "(~retired[gi] | ~any_live)",
        to: "1'b1",
        tests: &[("ferroce-sim", "rtl_spray"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "spray",
        what: "dropped condition: a path with no free window takes new data",
        from: " & (free[9 * gi +: 9] != 9'd0);",
        to: ";",
        tests: &[("ferroce-sim", "rtl_spray"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "retx",
        what: "off by one: a path counts as full at 255 packets in flight",
        from: "wire full = span == 24'd256;",
        to: "wire full = span == 24'd255;",
        tests: &[("ferroce-sim", "rtl_retx"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "rx_parse",
        what: "dropped condition: first fragments (MF) are accepted",
        from: "(f_ipv4_frag_off != 13'd0) | ((f_ipv4_flags & 3'b001) != 3'd0)",
        to: "(f_ipv4_frag_off != 13'd0)",
        tests: RX_PARSE,
    },
    Mutant {
        block: "rx_parse",
        what: "dropped condition: the MAC's bad-frame flag",
        from: "if (mac_bad) error = 4'd8;",
        to: "if (1'b0) error = 4'd8;",
        tests: RX_PARSE,
    },
    Mutant {
        block: "rx_parse",
        what: "dropped condition: the IPv4 header length",
        from: "(f_ipv4_version != 4'd4) | (f_ipv4_ihl != 4'd5)",
        to: "(f_ipv4_version != 4'd4)",
        tests: RX_PARSE,
    },
    Mutant {
        block: "rx_check",
        what: "dropped condition: a packet's generation must be its connection's",
        from: " & (c_gen[ci] == in_generation);",
        to: ";",
        tests: RX_CHECK,
    },
    Mutant {
        block: "tx_path",
        what: "dropped value: packets are sent in generation 0",
        from: "build$bth_generation = ccx$q[(32'h60)+:(8)];",
        to: "build$bth_generation = 8'd0;",
        tests: ENGINE,
    },
    Mutant {
        block: "tx_path",
        what: "dropped value: paths start at PSN 0 whatever tx_psn says",
        from: "a_psn$d = ctl_psn;",
        to: "a_psn$d = 24'd0;",
        tests: ENGINE,
    },
    Mutant {
        block: "frame_fifo",
        what: "dropped condition: a frame longer than the FIFO is kept whole",
        from: "wire at_cap = wbeats == {1'b0, {A{1'b1}}};",
        to: "wire at_cap = 1'b0;",
        tests: &[("ferroce-sim", "rtl_frame_fifo"), ("ferroce-driver", "edges")],
    },
    Mutant {
        block: "rx_parse",
        what: "dropped condition: frames longer than 16 383 bytes",
        from: "else if (too_long) error = 4'd4;",
        to: "else if (1'b0) error = 4'd4;",
        tests: RX_PARSE,
    },
    Mutant {
        block: "ferroce_engine",
        what: "off by one: the receive-queue doorbell",
        from: "(cfg[(32'h520)+:(32)] != rq_cons$q)",
        to: "(cfg[(32'h520)+:(32)] != rq_cons$q + 32'd1)",
        tests: ENGINE,
    },
    Mutant {
        block: "ferroce_engine",
        what: "comparison: one completion more than the ring holds",
        from: "cq_room = (cq_prod$q - cfg[(32'h5a0)+:(32)]) < (cq_mask + one32);",
        to: "cq_room = (cq_prod$q - cfg[(32'h5a0)+:(32)]) <= (cq_mask + one32);",
        tests: ENGINE,
    },
    Mutant {
        block: "ferroce_engine",
        what: "dropped mask: the send-queue index is not wrapped to the ring",
        from: "sq_slot[(32'h6)+:(32)] = sq_cons$q & sq_mask;",
        to: "sq_slot[(32'h6)+:(32)] = sq_cons$q;",
        tests: ENGINE,
    },
];

/// How one mutant fared.
struct Outcome {
    killed_by: Option<String>,
    seconds: f64,
}

pub fn run(only: Option<Vec<usize>>) -> anyhow::Result<()> {
    let root = crate::root();
    let dir = root.join("target/mutants");
    std::fs::create_dir_all(&dir)?;
    // Every mutant must change exactly the Verilog it names.
    let emitted = ferroce_hdl::emit::all();
    for (i, m) in MUTANTS.iter().enumerate() {
        let v = &emitted.iter().find(|(n, _)| *n == m.block).with_context(|| format!("no block {}", m.block))?.1;
        anyhow::ensure!(v.contains(m.from), "mutant {}: `{}` is not in {}'s Verilog", i + 1, m.from, m.block);
    }
    // Build the test binaries once, before any mutant.
    let mut build = Command::new("cargo");
    build.current_dir(&root).args(["test", "--release", "--no-run"]);
    for (pkg, test) in unique_tests() {
        build.args(["-p", pkg, "--test", test]);
    }
    anyhow::ensure!(build.status()?.success(), "building the test binaries failed");
    let mut rows = Vec::new();
    for (i, m) in MUTANTS.iter().enumerate() {
        let id = i + 1;
        if only.as_deref().is_some_and(|o| !o.contains(&id)) {
            continue;
        }
        eprintln!("mutant {id}/{}: {} ({})", MUTANTS.len(), m.what, m.block);
        let o = run_one(&root, &dir, id, m)?;
        eprintln!(
            "  {} in {:.0} s",
            o.killed_by.as_deref().map_or("SURVIVED".to_string(), |t| format!("killed by {t}")),
            o.seconds
        );
        rows.push((id, m, o));
    }
    let killed = rows.iter().filter(|r| r.2.killed_by.is_some()).count();
    let mut md = String::new();
    md.push_str(&format!(
        "Command: `cargo xtask mutants` ({} mutants in `xtask/src/mutants.rs`). Each changes one \
         piece of one block's emitted Verilog through the harness's `FERROCE_MUTANT` hook, so every \
         model containing the block (the engine too) is built with it; the listed test binaries run \
         in turn until one fails.\n\n**Killed {killed} of {}** ({:.0} %).\n\n\
         | # | block | mistake | killed by | seconds |\n|---|---|---|---|---|\n",
        MUTANTS.len(),
        rows.len(),
        100.0 * killed as f64 / rows.len().max(1) as f64
    ));
    for (id, m, o) in &rows {
        md.push_str(&format!(
            "| {id} | `{}` | {} | {} | {:.0} |\n",
            m.block,
            m.what,
            o.killed_by.as_deref().map_or("**survived**".to_string(), |t| format!("`{t}`")),
            o.seconds
        ));
    }
    let out = dir.join("rtl.md");
    std::fs::write(&out, &md)?;
    print!("{md}");
    eprintln!("written to {} (paste into docs/bench/mutants.md)", out.display());
    Ok(())
}

fn unique_tests() -> Vec<(&'static str, &'static str)> {
    let mut v: Vec<(&str, &str)> = MUTANTS.iter().flat_map(|m| m.tests.iter().copied()).collect();
    v.sort();
    v.dedup();
    v
}

fn run_one(root: &Path, dir: &Path, id: usize, m: &Mutant) -> anyhow::Result<Outcome> {
    let spec = dir.join(format!("mutant-{id}.txt"));
    let hits = dir.join(format!("mutant-{id}.txt.hits"));
    std::fs::write(&spec, format!("{}\n=>\n{}\n", m.from, m.to))?;
    let _ = std::fs::remove_file(&hits);
    let t = Instant::now();
    let mut killed_by = None;
    for (pkg, test) in m.tests {
        let log = dir.join(format!("mutant-{id}-{test}.log"));
        let out = Command::new("cargo")
            .current_dir(root)
            .env("FERROCE_MUTANT", &spec)
            .args(["test", "--release", "-q", "-p", pkg, "--test", test])
            .output()?;
        let text = [out.stdout, out.stderr].concat();
        std::fs::write(&log, &text)?;
        // A mutant Verilator cannot build is a broken script, not a kill.
        anyhow::ensure!(
            !String::from_utf8_lossy(&text).contains("verilator model "),
            "mutant {id}: a model did not build (see {})",
            log.display()
        );
        let hit = std::fs::read_to_string(&hits).unwrap_or_default();
        anyhow::ensure!(
            !hit.is_empty(),
            "mutant {id}: {pkg} --test {test} built no model containing it (see {})",
            log.display()
        );
        if !out.status.success() {
            killed_by = Some(format!("{pkg} --test {test}"));
            break;
        }
    }
    Ok(Outcome { killed_by, seconds: t.elapsed().as_secs_f64() })
}
