//! `ferroce stats`: the engine's counters, and per-path state through the
//! path-table window (write `path_table.index`, read its fields).

use ferroce_proto::regs::{engine_info, path_table, stats, MAX_CONNS, MAX_PATHS};

/// Options of `stats`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: crate::Target,
    /// Connection whose paths to show (below the engine's
    /// `engine_info.max_conns`: 64 in the corundum build).
    #[arg(
        long,
        default_value_t = 0,
        allow_negative_numbers = true,
        value_parser = clap::value_parser!(u32).range(0..MAX_CONNS as i64)
    )]
    conn: u32,
    /// Paths of the connection to show (1 to the engine's
    /// `engine_info.max_paths`: 16 in the corundum build).
    #[arg(
        long,
        default_value_t = 8,
        allow_negative_numbers = true,
        value_parser = clap::value_parser!(u32).range(1..=MAX_PATHS as i64)
    )]
    paths: u32,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let (mut bus, engine) = crate::connect(&a.target)?;
    let max_conns = bus.read32(engine.addr(engine_info::MAX_CONNS))?;
    let max_paths = bus.read32(engine.addr(engine_info::MAX_PATHS))?;
    anyhow::ensure!(
        a.conn < max_conns && a.paths <= max_paths,
        "this engine has {max_conns} connections of up to {max_paths} paths (engine_info); \
         --conn {} --paths {} is outside them",
        a.conn,
        a.paths
    );
    let mut counters = Vec::new();
    for &r in stats::ALL {
        counters.push((r.register().name, bus.read32(engine.addr(r))?));
    }
    use path_table::{CWND, ECN_ECHOES, RETRANSMITTED, SENT, SPORT, SRTT_NS, STATE};
    let window = [SPORT, CWND, SRTT_NS, STATE, SENT, RETRANSMITTED, ECN_ECHOES];
    let fields: Vec<&str> = window.iter().map(|r| r.register().name).collect();
    let mut paths = Vec::new();
    for p in 0..a.paths {
        bus.write32(engine.addr(path_table::INDEX), a.conn * max_paths + p)?;
        let mut row = Vec::new();
        for r in window {
            row.push(bus.read32(engine.addr(r))?);
        }
        paths.push(row);
    }
    if a.target.json {
        let c: serde_json::Map<_, _> = counters.iter().map(|(n, v)| (n.to_string(), serde_json::json!(v))).collect();
        let p: Vec<serde_json::Value> = paths
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let mut m: serde_json::Map<_, _> =
                    fields.iter().zip(row).map(|(f, v)| (f.to_string(), serde_json::json!(v))).collect();
                m.insert("path".into(), serde_json::json!(i));
                serde_json::Value::Object(m)
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({"counters": c, "conn": a.conn, "paths": p}))?);
        return Ok(());
    }
    for (n, v) in &counters {
        println!("{n:<20} {v}");
    }
    println!(
        "\nconnection {}:\n{:<5} {}",
        a.conn,
        "path",
        fields.iter().map(|f| format!("{f:>14}")).collect::<String>()
    );
    for (i, row) in paths.iter().enumerate() {
        println!("{i:<5} {}", row.iter().map(|v| format!("{v:>14}")).collect::<String>());
    }
    Ok(())
}
