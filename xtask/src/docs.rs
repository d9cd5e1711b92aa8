//! Generated documentation: docs/wire.md, docs/regmap.md, docs/rings.md
//! and the Wireshark dissector docs/ferroce.lua.

use anyhow::Context;

/// The generated files and their contents.
pub fn generated() -> Vec<(&'static str, String)> {
    vec![
        ("docs/wire.md", ferroce_proto::wire::markdown()),
        ("docs/regmap.md", ferroce_proto::regs::markdown()),
        ("docs/ferroce.lua", ferroce_proto::wire::dissector_lua()),
        ("docs/rings.md", ferroce_proto::rings::markdown()),
    ]
}

pub fn run(check: bool) -> anyhow::Result<()> {
    let mut stale = Vec::new();
    for (rel, text) in generated() {
        let path = crate::root().join(rel);
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        if old == text {
            println!("{rel}: up to date");
        } else if check {
            stale.push(rel);
        } else {
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
            println!("{rel}: written");
        }
    }
    if !stale.is_empty() {
        anyhow::bail!("stale generated docs: {} (run `cargo xtask docs`)", stale.join(", "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// CI's staleness check: the committed generated docs equal what the
    /// field tables and the register map produce now.
    #[test]
    fn generated_docs_are_up_to_date() {
        for (rel, text) in super::generated() {
            let on_disk = std::fs::read_to_string(crate::root().join(rel)).unwrap_or_default();
            assert!(on_disk == text, "{rel} is stale: run `cargo xtask docs`");
        }
    }
}
