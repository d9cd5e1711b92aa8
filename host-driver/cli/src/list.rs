//! `ferroce list`.

use ferroce_driver::pci;

/// Options of `list`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// sysfs folder of PCI devices.
    #[arg(long, default_value = pci::SYSFS_DEVICES, hide = true)]
    sysfs: std::path::PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let devs = pci::find(&a.sysfs, pci::CORUNDUM_ID)?;
    if a.json {
        let v: Vec<_> =
            devs.iter().map(|d| serde_json::json!({"bdf": d.bdf, "vendor": d.vendor, "device": d.device})).collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else if devs.is_empty() {
        println!("no Corundum devices (PCI 1234:1001); `--backend sim` runs the engine's Verilog instead");
    } else {
        for d in devs {
            println!("{}  {:04x}:{:04x}", d.bdf, d.vendor, d.device);
        }
    }
    Ok(())
}
