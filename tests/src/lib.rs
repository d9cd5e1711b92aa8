//! End-to-end tests across the crates live in `tests/tests/`: the engine
//! through the driver (`engine.rs`) and over the fabric (`fabric.rs`),
//! captures replayed into the Linux kernel (`replay.rs`) and decoded by
//! tshark with the generated dissector (`dissector.rs`). This library holds
//! what they share: building frames with deliberate defects and writing
//! captures.

use std::path::{Path, PathBuf};

use ferroce_proto::wire::headers::{CRC_LEN, ETH, IPV4, UDP};
use ferroce_proto::wire::{crc32, internet_checksum};

const L2L4: usize = ETH.len + IPV4.len + UDP.len;

/// The transport bytes of `frame` (common header to the end of the payload,
/// without the CRC trailer).
pub fn transport(frame: &[u8]) -> Vec<u8> {
    frame[L2L4..frame.len() - CRC_LEN].to_vec()
}

/// `frame` with its transport header and payload replaced by `tp` and a
/// trailer of `crc` (the right CRC when `None`); the IPv4 and UDP lengths
/// and the IPv4 checksum are fixed, so only the transport is wrong.
pub fn reframe(frame: &[u8], tp: &[u8], crc: Option<u32>) -> Vec<u8> {
    let mut out = frame[..L2L4].to_vec();
    out.extend_from_slice(tp);
    out.extend_from_slice(&crc.unwrap_or_else(|| crc32(tp)).to_le_bytes());
    let ip_len = out.len() - ETH.len;
    let ip = &mut out[ETH.len..ETH.len + IPV4.len];
    ferroce_proto::wire::headers::fields::ipv4::TOTAL_LEN.set(ip, ip_len as u64);
    ferroce_proto::wire::headers::fields::ipv4::CHECKSUM.set(ip, 0);
    let c = internet_checksum(ip);
    ferroce_proto::wire::headers::fields::ipv4::CHECKSUM.set(ip, c as u64);
    let udp = &mut out[ETH.len + IPV4.len..L2L4];
    ferroce_proto::wire::headers::fields::udp::LEN.set(udp, (ip_len - IPV4.len) as u64);
    out
}

/// Write `frames` to a pcap file, 1 us apart.
pub fn write_pcap(path: &Path, frames: &[Vec<u8>]) -> std::io::Result<()> {
    let f = std::fs::File::create(path)?;
    let mut w = ferroce_sim::pcap::PcapWriter::new(std::io::BufWriter::new(f))?;
    for (i, fr) in frames.iter().enumerate() {
        w.frame(i as u64 * 1_000_000, fr)?;
    }
    w.finish()?;
    Ok(())
}

/// A fresh scratch folder under `target/` for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = ferroce_sim::tools::workspace_root().join("target/e2e").join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a scratch folder under target/");
    d
}
