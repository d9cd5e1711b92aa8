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
        from: "(msg_end$q <= region_end)",
        to: "(msg_end$q <= region_end + 65'd1)",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "bound: a packet may end one byte past its region",
        from: "(pkt_end$q <= region_end)",
        to: "(pkt_end$q <= region_end + 65'd1)",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "bound: a message may start one byte before its region",
        from: " & (remote65 >= base65)",
        to: " & (remote65 + 65'd1 >= base65)",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "dropped condition: remote-write permission",
        from: "(found$q & mr_ram$read_data[(32'h90)+:(1)] & (mr_ram",
        to: "(found$q & (mr_ram",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "dropped condition: the region's owning connection",
        from: " & (mr_ram$read_data[(32'h80)+:(16)] == in_conn) & in_region_msg",
        to: " & in_region_msg",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "off by one: a path index equal to the path count is accepted",
        from: "(conn_ram$read_data[(32'h21)+:(5)] > in_path[(32'h0)+:(5)])",
        to: "(conn_ram$read_data[(32'h21)+:(5)] >= in_path[(32'h0)+:(5)])",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "dropped condition: a message end that wraps past 2^64",
        from: "(msg_end$q <= region_end) & ~|(msg_end$q & past_dma)",
        to: "(msg_end$q <= region_end)",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "dropped condition: SENDs pass the region check",
        from: "out_access_ok = ~in_write | (",
        to: "out_access_ok = (",
        tests: RX_CHECK,
    },
    Mutant {
        block: "rx_check",
        what: "swapped priority: the highest matching region slot wins",
        from: "if (hit$1 & ~any_hit) begin",
        to: "if (hit$1) begin",
        tests: RX_CHECK,
    },
    Mutant {
        block: "sack",
        what: "window edge: a PSN 256 ahead is accepted",
        from: "in_window = d_cum < window;",
        to: "in_window = d_cum <= window;",
        tests: SACK,
    },
    Mutant {
        block: "sack",
        what: "window edge: a PSN 255 ahead is refused",
        from: "in_window = d_cum < window;",
        to: "in_window = d_cum < window - 24'd1;",
        tests: SACK,
    },
    Mutant {
        block: "sack",
        what: "dropped condition: the next PSN in order counts as a new hole",
        from: "hole = is_new & ~d_high[32'h17] & |d_high;",
        to: "hole = is_new & ~d_high[32'h17];",
        tests: SACK,
    },
    Mutant {
        block: "rx_msgs",
        what: "window edge: message n + 16 accepted while n is open",
        from: "(ahead < window)",
        to: "(ahead <= window)",
        tests: RX_MSGS,
    },
    Mutant {
        block: "rx_msgs",
        what: "dropped condition: a packet's opcode must match its message's",
        from: "((cur[(32'h4)+:(32)] == s1_len$q) & (cur[(32'h0)+:(2)] == s1_opcode$q))",
        to: "(cur[(32'h4)+:(32)] == s1_len$q)",
        tests: RX_MSGS,
    },
    Mutant {
        block: "ack_gen",
        what: "off by one: an ACK after ack_every + 1 packets",
        from: "(pending1 >= s1_every$q)",
        to: "(pending1 > s1_every$q)",
        tests: &[("ferroce-sim", "rtl_ack_gen"), ("ferroce-sim", "rtl_rx_path")],
    },
    Mutant {
        block: "cc",
        what: "dropped condition: the window is cut on every marked ACK, not once per RTT",
        from: "halve = marked & (since > s1_srtt$q);",
        to: "halve = marked;",
        tests: &[("ferroce-sim", "rtl_cc"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "cc",
        what: "comparison: the window grows one ACK late",
        from: "grow = sum_w >= ((cwnd_w) & 10'h3ff);",
        to: "grow = sum_w > ((cwnd_w) & 10'h3ff);",
        tests: &[("ferroce-sim", "rtl_cc"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "health",
        what: "off by one: the loss epoch is 63 packets",
        from: "localparam  epoch = 16'h40;",
        to: "localparam  epoch = 16'h3f;",
        tests: &[("ferroce-sim", "rtl_health"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "health",
        what: "comparison: a path is retired one RTO late",
        from: "if (rtos_inc >= s1_retire_after$q) begin",
        to: "if (rtos_inc > s1_retire_after$q) begin",
        tests: &[("ferroce-sim", "rtl_health"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "segmenter",
        what: "off by one: segments one byte short of the MTU",
        from: "seg = mtu32;",
        to: "seg = mtu32 - 32'd1;",
        tests: &[("ferroce-sim", "rtl_segmenter"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "rto_timer",
        what: "off by one: a timer fires one time unit early",
        from: "late = now - timers$read_data[(32'h0)+:(32)];",
        to: "late = now - timers$read_data[(32'h0)+:(32)] + 32'd1;",
        tests: &[("ferroce-sim", "rtl_rto_timer"), ("ferroce-tests", "engine")],
    },
    Mutant {
        block: "pacer",
        what: "dropped condition: a connection may always send at once",
        from: "may_now = now_q >= st[(32'h0)+:(64)];",
        to: "may_now = 1'b1;",
        tests: &[("ferroce-sim", "rtl_pacer"), ("ferroce-tests", "engine")],
    },
    Mutant {
        block: "spray",
        what: "dropped condition: retired paths take new data",
        from: "any_live = |(present & ~retired);",
        to: "any_live = 1'b0;",
        tests: &[("ferroce-sim", "rtl_spray"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "spray",
        what: "dropped condition: a path with no free window takes new data",
        from: ") & |leaf_free$",
        to: ") & 1'b1 | 1'b0 & |leaf_free$",
        tests: &[("ferroce-sim", "rtl_spray"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "retx",
        what: "off by one: a path counts as full at 255 packets in flight",
        from: "full = (next_psn - una) == window;",
        to: "full = (next_psn - una) == window - 24'd1;",
        tests: &[("ferroce-sim", "rtl_retx"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "rx_parse",
        what: "dropped condition: first fragments (MF) are accepted",
        from: " | |(f_ip_flags$value & ip_more_fragments)",
        to: "",
        tests: RX_PARSE,
    },
    Mutant {
        block: "rx_parse",
        what: "dropped condition: the MAC's bad-frame flag",
        from: "if (mac_bad$q) begin",
        to: "if (1'b0) begin",
        tests: RX_PARSE,
    },
    Mutant {
        block: "rx_parse",
        what: "dropped condition: the IPv4 header length",
        from: "(f_ip_version$value != ip_version4) | (f_ip_ihl$value != ip_ihl)",
        to: "(f_ip_version$value != ip_version4)",
        tests: RX_PARSE,
    },
    Mutant {
        block: "rx_check",
        what: "dropped condition: a packet's generation must be its connection's",
        from: " & (conn_ram$read_data[(32'h26)+:(8)] == in_generation);",
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
        from: "at_cap = wbeats$q == cap;",
        to: "at_cap = 1'b0;",
        tests: &[("ferroce-sim", "rtl_frame_fifo"), ("ferroce-driver", "edges")],
    },
    Mutant {
        block: "rx_parse",
        what: "dropped condition: frames longer than 16 383 bytes",
        from: "else if (too_long$q) begin",
        to: "else if (1'b0) begin",
        tests: RX_PARSE,
    },
    Mutant {
        block: "ferroce_engine",
        what: "off by one: the receive-queue doorbell",
        from: "(cfg[(32'h580)+:(32)] != rq_cons$q)",
        to: "(cfg[(32'h580)+:(32)] != rq_cons$q + 32'd1)",
        tests: ENGINE,
    },
    Mutant {
        block: "ferroce_engine",
        what: "comparison: one completion more than the ring holds",
        from: "cq_room = (cq_prod$q - cfg[(32'h600)+:(32)]) < (cq_mask + one32);",
        to: "cq_room = (cq_prod$q - cfg[(32'h600)+:(32)]) <= (cq_mask + one32);",
        tests: ENGINE,
    },
    Mutant {
        block: "ferroce_engine",
        what: "dropped mask: the send-queue index is not wrapped to the ring",
        from: "sq_slot[(32'h6)+:(32)] = sq_cons$q & sq_mask;",
        to: "sq_slot[(32'h6)+:(32)] = sq_cons$q;",
        tests: ENGINE,
    },
    Mutant {
        block: "tx_path",
        what: "dropped value: a tail probe does not raise the probe count (no backoff)",
        from: "ccx_n[(32'hd1)+:(3)] = pr_inc;",
        to: "ccx_n[(32'hd1)+:(3)] = ccx_l[(32'hd1)+:(3)];",
        tests: &[("ferroce-sim", "rtl_tx_path"), ("ferroce-tests", "engine")],
    },
    Mutant {
        block: "tx_path",
        what: "dropped condition: a tail probe resends on a path with retransmissions queued",
        from: "else if ((ps_l[(32'h9)+:(9)] != zero_cwnd) & ~ps_l[(32'h12)+:(1)]) begin",
        to: "else if ((ps_l[(32'h9)+:(9)] != zero_cwnd)) begin",
        tests: &[("ferroce-sim", "rtl_tx_path"), ("ferroce-tests", "engine")],
    },
    Mutant {
        block: "retx",
        what: "wrong choice: a tail probe resends the oldest candidate when the newest PSN is one",
        from: "else if (newest_cand) begin",
        to: "else if (1'b0) begin",
        tests: &[("ferroce-sim", "rtl_retx"), ("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "wrong rule: rack's walk ends a path at a resent candidate that is not lost",
        from: "else if (rk_res$q) begin",
        to: "else if (1'b0) begin",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "dropped term: rack's reordering window without the ACK delay",
        from: "rk_reo = rk_quarter + cfg_ack_delay;",
        to: "rk_reo = rk_quarter;",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "dropped condition: the ACK of a recently resent PSN raises rack_ts",
        from: "rk_new_ok = ~rk_resent | ",
        to: "rk_new_ok = 1'b1 | ",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "wrong bound: rack's floor ignores the candidates the walk passed over (later ACKs skip walks that would find losses)",
        from: "rk_below = rk_dfl >= half32;",
        to: "rk_below = 1'b0;",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "ack_timer",
        what: "dropped condition: an ACK timer's arming is taken before it is due",
        from: "due = late < half_range;",
        to: "due = 1'b1;",
        tests: &[("ferroce-sim", "rtl_rto_timer"), ("ferroce-tests", "engine")],
    },
    Mutant {
        block: "ack_timer",
        what: "dropped check: an ACK timer's replaced arming still fires",
        from: "(timers$read_data[(32'h0)+:(32)] == chk_deadline$q)",
        to: "1'b1",
        tests: &[("ferroce-sim", "rtl_rto_timer"), ("ferroce-tests", "engine")],
    },
    Mutant {
        block: "tx_path",
        what: "dropped condition: rack never waits for a path's newest packet (a lost ACK passes for lost packets)",
        from: "rk_wait$d = ~rk_is_lost;",
        to: "rk_wait$d = 1'b0;",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "wrong bound: rack's floor ignores the old candidates of a path that waits (later ACKs skip walks that would find losses)",
        from: "if (~rk_tail$q & ~rk_lost_now & rk_below) begin",
        to: "if (~rk_tail$q & ~rk_is_lost & rk_below) begin",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "dropped condition: new data goes out whatever the connection window",
        from: "else if (e_found & (~cw_on | cwin$room)) begin",
        to: "else if (e_found) begin",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "dropped check: the connection window is not capped by the rate hint (nor the start window)",
        from: "room = (out < cwnd) & cap_ok;",
        to: "room = (out < cwnd);",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "dropped condition: ECN echoes halve the connection window more than once an RTT",
        from: "if (since > srtt) begin",
        to: "if (1'b1) begin",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "inverted key: a repair takes the route of the connection's lossiest other path, not its cleanest",
        from: "key_fields[(32'h4)+:(16)] = ~lost;",
        to: "key_fields[(32'h4)+:(16)] = lost;",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "dropped branch: after timeouts in a row a repair still takes the cleanest route, not the next in turn",
        from: "else if (turn != zero_turn) begin",
        to: "else if (1'b0) begin",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "dropped condition: the marker rule declares resent PSNs lost again with clean-route repairs on",
        from: "retx$in_resent_rule = ~cr_on;",
        to: "retx$in_resent_rule = 1'b1;",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "dropped condition: repairs go out on their own path's source port",
        from: "if ((h_kind$q == K_DATA) & ~h_clean$q) begin",
        to: "if ((h_kind$q == K_DATA)) begin",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "dropped term: rack on the ACK's own path waits like the others (path_rack ignored)",
        from: "rk_lost_now = (rk_is_lost & ~rk_wait$q) | rk_is_lost_own;",
        to: "rk_lost_now = (rk_is_lost & ~rk_wait$q);",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "dropped condition: a path's own latest acknowledged send time is raised by early ACKs of resends",
        from: "rk_pcounts = rk_new_ok & ~rk_plater[32'h1f] & |rk_plater;",
        to: "rk_pcounts = ~rk_plater[32'h1f] & |rk_plater;",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "wrong rule: every ACK with progress restarts the probe timer, not only the connection's first sample",
        from: "((a_count$q != zero_cwnd) & pr_first$q)",
        to: "(a_count$q != zero_cwnd)",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
    Mutant {
        block: "tx_path",
        what: "dropped restart: a send leaves an armed probe timer running (both sends)",
        from: "                    c_we = 1'b1;\n                    if (pr_on) begin\n",
        to: "                    c_we = 1'b1;\n                    if (pr_on & ~ccx_l[(32'hd4)+:(1)]) begin\n",
        tests: &[("ferroce-sim", "rtl_tx_path")],
    },
];

/// Every mutant's text is in the Verilog of its block (`verilog_of`
/// gives a block's Verilog by name).
pub fn check_texts(verilog_of: impl Fn(&str) -> Option<String>) -> anyhow::Result<()> {
    for (i, m) in MUTANTS.iter().enumerate() {
        let v = verilog_of(m.block).with_context(|| format!("no block {}", m.block))?;
        anyhow::ensure!(v.contains(m.from), "mutant {}: `{}` is not in {}'s Verilog", i + 1, m.from, m.block);
    }
    Ok(())
}

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
    check_texts(|block| emitted.iter().find(|(n, _)| *n == block).map(|(_, v)| v.clone()))?;
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
