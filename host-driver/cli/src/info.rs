//! `ferroce info`.

use ferroce_proto::regs::engine_info;

/// Options of `info`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: crate::Target,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let (mut bus, engine) = crate::connect(&a.target)?;
    let mut params = Vec::new();
    for &r in engine_info::ALL {
        params.push((r.register().name, bus.read32(engine.addr(r))?));
    }
    if a.target.json {
        let blocks: Vec<_> = engine
            .blocks
            .iter()
            .map(|(n, f)| serde_json::json!({"name": n, "offset": f.offset, "type": f.type_id, "version": f.version}))
            .collect();
        let p: serde_json::Map<_, _> = params.iter().map(|(n, v)| (n.to_string(), serde_json::json!(v))).collect();
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({"blocks": blocks, "parameters": p}))?);
        return Ok(());
    }
    println!("{:<12} {:>8} {:>12} {:>10}", "block", "offset", "type", "version");
    for (n, f) in &engine.blocks {
        println!("{n:<12} {:>#8x} {:>#12x} {:>#10x}", f.offset, f.type_id, f.version);
    }
    println!();
    for (n, v) in params {
        println!("{n:<12} {v}");
    }
    Ok(())
}
