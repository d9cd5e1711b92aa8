//! Property tests: random seeds, loss rates, operations and message sizes
//! from 1 byte to 4 MiB; every run must complete byte-exact.

use ferroce_proto::types::us;
use ferroce_sim::fabric::Loss;
use ferroce_sim::scenario::{run_messages, verify, Kind, Msg, NetConfig, Op, Pair};
use proptest::prelude::*;

fn msg() -> impl Strategy<Value = Msg> {
    // Log-uniform sizes so that 1 B and 4 MiB are both likely.
    (0u32..=22, any::<u32>(), 0u8..3, 0u16..4).prop_map(|(bits, r, op, stream)| {
        let len = if bits == 0 { 1 } else { (1u32 << bits) + r % (1u32 << bits) }.min(4 << 20);
        let op = match op {
            0 => Op::Write,
            1 => Op::WriteImm(r),
            _ => Op::Send,
        };
        Msg { op, stream, len }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn any_workload_completes_byte_exact(
        msgs in proptest::collection::vec(msg(), 1..6),
        seed in any::<u64>(),
        loss in prop_oneof![Just(0.0), 0.0..0.1f64],
        paths in 1u8..=16,
        mtu in prop_oneof![Just(1024u32), Just(4096u32), 256u32..9000],
    ) {
        let mut net = NetConfig::new(Kind::Ferroce);
        net.seed = seed;
        net.loss = Loss::Iid(loss);
        net.paths = paths;
        net.streams = 4;
        net.mtu = mtu;
        let bytes: usize = msgs.iter().map(|m| m.len as usize).sum();
        let mut pair = Pair::new(net, bytes).unwrap();
        pair.fill_source(seed);
        let report = run_messages(&mut pair, &msgs, us(500_000)).unwrap();
        if let Err(e) = verify(&pair, &msgs, &report) {
            panic!("{e}: {msgs:?} seed {seed} loss {loss} paths {paths} mtu {mtu}");
        }
        prop_assert_eq!(report.receiver_stats.bytes_placed, bytes as u64);
    }
}
