//! `ferroce stats`: the engine's counters, and per-path state through the
//! path-table window (write `path_table.index`, read its fields).

use ferroce_proto::regs::{BLOCKS, MAX_CONNS, MAX_PATHS};

/// Options of `stats`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: crate::Target,
    /// Connection whose paths to show (0-63).
    #[arg(
        long,
        default_value_t = 0,
        allow_negative_numbers = true,
        value_parser = clap::value_parser!(u32).range(0..MAX_CONNS as i64)
    )]
    conn: u32,
    /// Paths of the connection to show (1-16).
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
    let stats = BLOCKS.iter().find(|b| b.name == "stats").expect("the map has stats");
    let mut counters = Vec::new();
    for r in stats.regs {
        counters.push((r.name, bus.read32(engine.offset_of("stats", r.name)?)?));
    }
    let fields = ["sport", "cwnd", "srtt_ns", "state", "sent", "retransmitted", "ecn_echoes"];
    let index = engine.offset_of("path_table", "index")?;
    let mut paths = Vec::new();
    for p in 0..a.paths {
        bus.write32(index, a.conn * MAX_PATHS + p)?;
        let mut row = Vec::new();
        for f in fields {
            row.push(bus.read32(engine.offset_of("path_table", f)?)?);
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
