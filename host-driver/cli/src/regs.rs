//! `ferroce regs`.

use ferroce_driver::driver::check_value;
use ferroce_proto::regs::{self, Access, ALL_HANDLES};

/// Options of `regs`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: crate::Target,
    /// Register to read (`block.register`); without it, dump every readable register.
    name: Option<String>,
    /// Value to write to it (decimal or 0x hex); one outside the register's
    /// range (docs/regmap.md) is refused and nothing is written.
    #[arg(allow_negative_numbers = true)]
    value: Option<String>,
}

fn split(name: &str) -> anyhow::Result<(&str, &str)> {
    name.split_once('.').ok_or_else(|| anyhow::anyhow!("name registers as block.register, e.g. control.mtu"))
}

fn parse_value(s: &str) -> anyhow::Result<u32> {
    let r = match s.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|_| anyhow::anyhow!("not a 32-bit value: {s}"))
}

/// The value to write to `block.reg`, if it is writable and takes it.
fn value_to_write(block: &str, reg: &str, text: &str) -> anyhow::Result<u32> {
    let value = parse_value(text)?;
    let Some(r) = regs::Reg::find(block, reg) else {
        anyhow::bail!("no register {block}.{reg} in the register map (`ferroce regs` lists them); nothing written");
    };
    if matches!(r.register().access, Access::Ro | Access::Const) {
        anyhow::bail!("{block}.{reg} is read-only; nothing written");
    }
    match check_value(r, value) {
        Err(ferroce_driver::Error::BadRequest(why)) => anyhow::bail!("{why}; nothing written"),
        r => r?,
    }
    Ok(value)
}

pub fn run(a: Args) -> anyhow::Result<()> {
    // A value is judged against the register map before the engine is
    // reached: over PCIe a refused write would go unseen.
    let write = match (&a.name, &a.value) {
        (Some(name), Some(v)) => {
            let (block, reg) = split(name)?;
            Some(value_to_write(block, reg, v)?)
        }
        _ => None,
    };
    let (mut bus, engine) = crate::connect(&a.target)?;
    let Some(name) = a.name else {
        let mut all = serde_json::Map::new();
        for &r in ALL_HANDLES.iter().copied().flatten().filter(|r| r.register().access != Access::Wo) {
            let v = bus.read32(engine.addr(r))?;
            if a.target.json {
                all.insert(r.to_string(), serde_json::json!(v));
            } else {
                println!("{:<32} {v:#010x}", r.to_string());
            }
        }
        if a.target.json {
            println!("{}", serde_json::to_string_pretty(&all)?);
        }
        return Ok(());
    };
    let (block, reg) = split(&name)?;
    let off = engine.offset_of(block, reg)?;
    if let Some(value) = write {
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
