//! `cargo xtask tools`: pinned tools installed without root into `.tools/`.

pub fn run(_args: &[String]) -> anyhow::Result<()> {
    anyhow::bail!("not yet")
}
