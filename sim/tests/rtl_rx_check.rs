//! The `rx_check` RTL block in Verilator against the model's protection
//! checks (`MrTable::check_write` as `Delivery::place` applies it, and the
//! endpoint's connection check), with tables rewritten as it runs and
//! addresses aimed at region edges and at 64-bit wrap-around.

use ferroce_hdl::rx_check::CONNS;
use ferroce_proto::model::mr::MrTable;
use ferroce_proto::rng::Rng;
use ferroce_proto::transport::{Access, MemoryRegion};
use ferroce_proto::{ConnId, Iova, Rkey};
use ferroce_sim::verilator::{ModelLib, Sim};

#[derive(Clone, Copy, Default)]
struct Conn {
    valid: bool,
    peer: u32,
    paths: u8,
}

#[test]
fn checks_match_the_model() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::rx_check::RxCheck::default());
    let lib = ModelLib::build("rx_check", &v).expect("rx_check model builds");
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let port = |s: &Sim, n: &str| s.port(n);
    let set = |s: &mut Sim, n: &str, v: u64| {
        let p = port(s, n);
        s.set(p, v)
    };
    set(&mut s, "reset", 1);
    s.tick();
    set(&mut s, "reset", 0);
    let mut rng = Rng::new(4);
    let mut conns = [Conn::default(); CONNS];
    let mut slots: [Option<MemoryRegion>; 16] = [None; 16];
    let mut table = MrTable::default();
    let (mut conn_ok, mut granted, mut denied) = (0u32, 0u32, 0u32);
    for n in 0..100_000u32 {
        // A packet, often aimed at a region's edges, judged by the tables as
        // they are before this cycle's table writes (which land at the edge).
        let path = rng.below(20) as u8;
        let src = rng.below(4) as u32;
        let write = !rng.chance(0.2);
        let rkey = rng.below(26) as u32;
        let target = slots.iter().flatten().find(|m| m.rkey.0 == rkey).copied();
        // Mostly the region's own connection, so that grants are common.
        let conn = match target {
            Some(m) if rng.chance(0.7) => m.conn.0,
            _ => rng.below(CONNS as u64 + 4) as u16,
        };
        let msg_span = if rng.chance(0.5) { 1 << 10 } else { 1 << 16 };
        let msg_len = 1 + rng.below(msg_span) as u32;
        let remote = match (target, rng.below(4)) {
            (Some(m), 0) => m.base.0.wrapping_add(m.len).wrapping_sub(msg_len as u64), // flush with the end
            (Some(m), 1) => m.base.0.wrapping_add(rng.below(m.len + 10)).wrapping_sub(5),
            (Some(m), 2) => m.base.0,
            _ if rng.chance(0.1) => u64::MAX - rng.below(1 << 16),
            _ => rng.below(1 << 40),
        };
        let offset = rng.below(msg_len as u64 + 3) as u32;
        let payload = 1 + rng.below(9000) as u16;
        let c = conns.get(conn as usize).copied().unwrap_or_default();
        let want_conn = (conn as usize) < CONNS && c.valid && c.peer == src && path < c.paths;
        let addr = Iova(remote).checked_add(offset as u64);
        let want_access = !write
            || (addr.is_some()
                && table.check_write(ConnId(conn), Rkey(rkey), Iova(remote), msg_len as u64)
                && table.check_write(ConnId(conn), Rkey(rkey), addr.unwrap(), payload as u64));
        for (name, v) in [
            ("in_valid", 1),
            ("in_conn", conn as u64),
            ("in_path", path as u64),
            ("in_src_ip", src as u64),
            ("in_write", write as u64),
            ("in_rkey", rkey as u64),
            ("in_remote_addr", remote),
            ("in_offset", offset as u64),
            ("in_payload_len", payload as u64),
            ("in_msg_len", msg_len as u64),
        ] {
            set(&mut s, name, v);
        }
        set(&mut s, "conn_wr", 0);
        set(&mut s, "mr_wr", 0);
        if rng.chance(0.05) {
            let i = rng.below(CONNS as u64) as usize;
            let c = Conn { valid: !rng.chance(0.2), peer: rng.below(4) as u32, paths: 1 + rng.below(16) as u8 };
            conns[i] = c;
            set(&mut s, "conn_wr", 1);
            set(&mut s, "conn_wr_index", i as u64);
            set(&mut s, "conn_wr_valid_bit", c.valid as u64);
            set(&mut s, "conn_wr_peer_ip", c.peer as u64);
            set(&mut s, "conn_wr_paths", c.paths as u64);
        }
        if rng.chance(0.05) {
            let i = rng.below(16) as usize;
            let used: Vec<u32> = slots
                .iter()
                .enumerate()
                .filter(|(j, m)| *j != i && m.is_some())
                .map(|(_, m)| m.unwrap().rkey.0)
                .collect();
            let rkey = loop {
                let r = rng.below(24) as u32;
                if !used.contains(&r) {
                    break r;
                }
            };
            let base = if rng.chance(0.2) { u64::MAX - rng.below(1 << 20) } else { rng.below(1 << 40) };
            let len = 1 + rng.below(1 << 20);
            let mr = MemoryRegion {
                rkey: Rkey(rkey),
                base: Iova(base),
                len,
                access: Access { remote_write: !rng.chance(0.2) },
                conn: ConnId(rng.below(CONNS as u64 + 4) as u16),
            };
            let valid = !rng.chance(0.2) && base.checked_add(len).is_some();
            slots[i] = valid.then_some(mr);
            table = MrTable::default();
            for m in slots.iter().flatten() {
                table.register(*m).expect("unique rkeys, no wrap");
            }
            set(&mut s, "mr_wr", 1);
            set(&mut s, "mr_wr_index", i as u64);
            set(&mut s, "mr_wr_valid_bit", valid as u64);
            set(&mut s, "mr_wr_rkey", rkey as u64);
            set(&mut s, "mr_wr_base", base);
            set(&mut s, "mr_wr_len", len);
            set(&mut s, "mr_wr_remote_write", mr.access.remote_write as u64);
            set(&mut s, "mr_wr_conn", mr.conn.0 as u64);
        }
        s.tick();
        assert_eq!(s.get(port(&s, "out_valid")), 1);
        assert_eq!(s.get(port(&s, "out_conn_ok")) == 1, want_conn, "packet {n}: connection check");
        assert_eq!(
            s.get(port(&s, "out_access_ok")) == 1,
            want_access,
            "packet {n}: access check, write {write}, rkey {rkey}, addr {remote:#x}+{offset}, len {msg_len}/{payload}"
        );
        assert_eq!(s.get(port(&s, "out_addr")), remote.wrapping_add(offset as u64), "packet {n}: address");
        conn_ok += want_conn as u32;
        granted += (write && want_access) as u32;
        denied += (write && !want_access) as u32;
    }
    assert!(
        conn_ok > 5_000 && granted > 5_000 && denied > 20_000,
        "conn ok {conn_ok}, granted {granted}, denied {denied}"
    );
}
