//! Model-level loopback: one ferroce connection across a lossy leaf-spine
//! fabric, RDMA WRITEs of a few MiB, verified byte for byte.
//!
//! Run with `--help` for the options.

use ferroce_proto::types::us;
use ferroce_sim::fabric::Loss;
use ferroce_sim::scenario::{run_messages, verify, Kind, Msg, NetConfig, Op, Pair};

const HELP: &str = "\
loopback: RDMA WRITEs over the ferroce reference model and the fabric model,
verified byte for byte (exit status 1 if any byte or completion is wrong)

Options:
  --size BYTES     total bytes to move (default 4194304)
  --msg BYTES      message size (default 65536)
  --paths N        paths per connection, 1-16 (default 8)
  --streams N      ordered streams (default 4)
  --loss P         i.i.d. loss on every spine-to-leaf link (default 0.01)
  --mtu BYTES      payload bytes per packet (default 1024)
  --seed N         seed for data, loss and entropy (default 7)
  --gbn            run the go-back-N baseline instead of ferroce
  --pcap FILE      write every frame the hosts send or receive (also FERROCE_PCAP)
  --help           this text
";

fn parse() -> Result<(NetConfig, u64, u32, Option<String>), String> {
    let mut net = NetConfig::new(Kind::Ferroce);
    net.loss = Loss::Iid(0.01);
    net.streams = 4;
    net.seed = 7;
    let (mut size, mut msg) = (4u64 << 20, 64 * 1024u32);
    let mut pcap = std::env::var("FERROCE_PCAP").ok();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        let num = |v: String, name: &str| v.parse::<f64>().map_err(|_| format!("{name}: not a number: {v}"));
        match a.as_str() {
            "--help" | "-h" => {
                print!("{HELP}");
                std::process::exit(0);
            }
            "--size" => size = num(val(&a)?, &a)? as u64,
            "--msg" => msg = num(val(&a)?, &a)? as u32,
            "--paths" => net.paths = num(val(&a)?, &a)? as u8,
            "--streams" => net.streams = num(val(&a)?, &a)? as u16,
            "--loss" => {
                let p = num(val(&a)?, &a)?;
                if !(0.0..1.0).contains(&p) {
                    return Err(format!("--loss must be in [0, 1), got {p}"));
                }
                net.loss = if p > 0.0 { Loss::Iid(p) } else { Loss::None };
            }
            "--mtu" => net.mtu = num(val(&a)?, &a)? as u32,
            "--seed" => net.seed = num(val(&a)?, &a)? as u64,
            "--gbn" => net.kind = Kind::Gbn,
            "--pcap" => pcap = Some(val(&a)?),
            other => return Err(format!("unknown option {other} (see --help)")),
        }
    }
    if size == 0 || msg == 0 || size > 1 << 30 {
        return Err("--size must be 1..=1 GiB and --msg at least 1".into());
    }
    Ok((net, size, msg, pcap))
}

fn main() {
    let (net, size, msg, pcap) = match parse() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let mut msgs = Vec::new();
    let mut left = size;
    while left > 0 {
        let len = left.min(msg as u64) as u32;
        msgs.push(Msg { op: Op::Write, stream: (msgs.len() % net.streams.max(1) as usize) as u16, len });
        left -= len as u64;
    }
    let result = (|| -> Result<(), String> {
        let mut pair = Pair::new(net, size as usize).map_err(|e| e.to_string())?;
        if let Some(p) = &pcap {
            pair.fabric.capture(std::path::Path::new(p)).map_err(|e| format!("--pcap {p}: {e}"))?;
        }
        pair.fill_source(net.seed);
        let t0 = std::time::Instant::now();
        let report = run_messages(&mut pair, &msgs, us(10_000_000)).map_err(|e| e.to_string())?;
        pair.fabric.finish_capture().map_err(|e| format!("pcap: {e}"))?;
        let ok = verify(&pair, &msgs, &report);
        let s = report.sender_stats;
        let secs = report.time as f64 * 1e-12;
        println!("transport        {:?}", net.kind);
        println!("messages         {} ({} bytes, {} streams, {} paths)", msgs.len(), size, net.streams, net.paths);
        println!("loss             {:.4} per spine-to-leaf link", net.loss.mean());
        println!("simulated time   {:.1} us", secs * 1e6);
        println!(
            "goodput          {:.2} Gb/s ({:.3} of line)",
            size as f64 * 8.0 / secs / 1e9,
            size as f64 * 8.0 / secs / (net.rate_mbps as f64 * 1e6)
        );
        println!("data packets     {} sent, {} retransmitted, {} timeouts", s.tx_data, s.tx_retx, s.rtos);
        println!("wall time        {:.2?}", t0.elapsed());
        if let Some(p) = &pcap {
            println!("pcap             {p}");
        }
        ok.map(|()| println!("verified         every byte and completion"))
    })();
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
