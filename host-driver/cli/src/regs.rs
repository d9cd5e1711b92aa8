//! `ferroce regs`.

use ferroce_proto::regs::{Access, BLOCKS};

/// Options of `regs`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: crate::Target,
    /// Register to read (`block.register`); without it, dump every readable register.
    name: Option<String>,
    /// Value to write to it (decimal or 0x hex).
    value: Option<String>,
}

fn parse_value(s: &str) -> anyhow::Result<u32> {
    let r = match s.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|_| anyhow::anyhow!("not a 32-bit value: {s}"))
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let (mut bus, engine) = crate::connect(&a.target)?;
    let Some(name) = a.name else {
        let mut all = serde_json::Map::new();
        for b in BLOCKS {
            for r in b.regs.iter().filter(|r| r.access != Access::Wo) {
                let v = bus.read32(engine.offset_of(b.name, r.name)?)?;
                if a.target.json {
                    all.insert(format!("{}.{}", b.name, r.name), serde_json::json!(v));
                } else {
                    println!("{:<32} {v:#010x}", format!("{}.{}", b.name, r.name));
                }
            }
        }
        if a.target.json {
            println!("{}", serde_json::to_string_pretty(&all)?);
        }
        return Ok(());
    };
    let (block, reg) =
        name.split_once('.').ok_or_else(|| anyhow::anyhow!("name registers as block.register, e.g. control.mtu"))?;
    let off = engine.offset_of(block, reg)?;
    if let Some(v) = a.value {
        let value = parse_value(&v)?;
        let access = BLOCKS
            .iter()
            .find(|b| b.name == block)
            .and_then(|b| b.regs.iter().find(|r| r.name == reg))
            .map(|r| r.access);
        if matches!(access, Some(Access::Ro | Access::Const)) {
            anyhow::bail!("{name} is read-only; nothing written");
        }
        bus.write32(off, value)?;
    }
    let v = bus.read32(off)?;
    if a.target.json {
        println!("{}", serde_json::json!({"name": name, "offset": off, "value": v}));
    } else {
        println!("{name} = {v:#010x} ({v})");
    }
    Ok(())
}
