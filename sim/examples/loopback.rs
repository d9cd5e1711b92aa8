//! Model-level loopback: one ferroce connection across a lossy leaf-spine,
//! a few MiB of RDMA WRITEs, verified byte for byte.

use ferroce_proto::types::us;
use ferroce_sim::fabric::Loss;
use ferroce_sim::scenario::{run_messages, verify, Kind, Msg, NetConfig, Op, Pair};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut net = NetConfig::new(Kind::Ferroce);
    net.loss = Loss::Iid(0.01);
    let msgs: Vec<Msg> = (0..64).map(|i| Msg { op: Op::Write, stream: 0, len: 64 * 1024 - i * 7 }).collect();
    let mut pair = Pair::new(net, 4 << 20)?;
    pair.fill_source(7);
    let t0 = std::time::Instant::now();
    let report = run_messages(&mut pair, &msgs, us(100_000))?;
    let ok = verify(&pair, &msgs, &report);
    let bytes: u64 = msgs.iter().map(|m| m.len as u64).sum();
    println!(
        "{} messages, {bytes} bytes, {:.1} us simulated, {} retransmits, {} in {:?} wall: {}",
        msgs.len(),
        report.time as f64 / 1e6,
        report.sender_stats.tx_retx,
        report.sender_stats.tx_data,
        t0.elapsed(),
        match &ok { Ok(()) => "verified".to_string(), Err(e) => e.clone() }
    );
    ok.map_err(|e| e.into())
}
