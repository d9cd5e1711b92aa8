//! The `rx_check` RTL block in Verilator against the model's protection
//! checks (`MrTable::check_write` as `Delivery::place` applies it, and the
//! endpoint's connection check), with tables rewritten as it runs and
//! addresses aimed at region edges and at 64-bit wrap-around; and directed
//! edges with literal expectations (no model involved). Both for the
//! default build (64-bit DMA addresses) and for `ecp5-25`'s (32-bit: its
//! table, sums and limit), each against the model with that width.

use ferroce_hdl::rx::rx_check::CONNS;
use ferroce_proto::config::EngineConfig;
use ferroce_proto::model::mr::MrTable;
use ferroce_proto::rng::Rng;
use ferroce_proto::transport::{Access, MemoryRegion};
use ferroce_proto::{ConnId, Iova, Rkey};
use ferroce_sim::verilator::{ModelLib, Sim};

ferroce_sim::equivalence_inputs!(rx_check_inputs: ferroce_hdl::rx::rx_check::RxCheck;
    reset, conn_wr, conn_wr_index, conn_wr_valid_bit, conn_wr_peer_ip, conn_wr_paths, conn_wr_generation, mr_wr, mr_wr_index, mr_wr_valid_bit, mr_wr_rkey, mr_wr_base, mr_wr_len, mr_wr_remote_write, mr_wr_conn, in_valid, in_conn, in_path, in_src_ip, in_generation, in_write, in_rkey, in_remote_addr, in_offset, in_payload_len, in_msg_len);

#[derive(Clone, Copy, Default)]
struct Conn {
    valid: bool,
    peer: u32,
    paths: u8,
    generation: u8,
}

fn model() -> std::sync::Arc<ModelLib> {
    ModelLib::of_block("rx_check", || ferroce_hdl::emit::verilog(ferroce_hdl::rx::rx_check::RxCheck::default()))
        .expect("rx_check model builds")
}

/// `ecp5-25`'s block: 2 connections, 4 regions, 32-bit DMA addresses.
fn narrow_model() -> std::sync::Arc<ModelLib> {
    ModelLib::of_block("rx_check_ecp5_25", || {
        ferroce_hdl::emit::verilog(ferroce_hdl::presets::ecp5_25::rx_check::RxCheck::default())
    })
    .expect("rx_check (ecp5-25) model builds")
}

#[test]
fn checks_match_the_model() {
    let lib = model();
    ferroce_sim::verilator::record_next("rx_check", REPLAYED);
    random_checks(&lib, EngineConfig::CORUNDUM, 100_000);
    // The same Rust in rust-hdl's own simulator, on this test's first cycles.
    let rec = ferroce_sim::verilator::take_recording("rx_check").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<rx_check_inputs>("rx_check", &rec, &[]);
}

#[test]
fn a_32_bit_build_checks_as_the_model_with_32_bit_addresses() {
    // More packets: with two connections fewer pass the connection check.
    random_checks(&narrow_model(), EngineConfig::ECP5_25, 150_000);
}

/// `packets` packets against the model of a build with `e`'s connections,
/// regions and DMA address bits; regions as its registers allow (base and
/// length below 2^A), remote addresses anywhere.
fn random_checks(lib: &std::sync::Arc<ModelLib>, e: EngineConfig, packets: u32) {
    let (conns, mrs, bits) = (e.conns(), e.memory_regions, e.dma_addr_bits);
    let top = if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
    let mut s = Sim::new(lib);
    s.clock("clock");
    let port = |s: &Sim, n: &str| s.port(n);
    let set = |s: &mut Sim, n: &str, v: u64| {
        let p = port(s, n);
        s.set(p, v)
    };
    s.reset("reset", Some("ready"), 1 << 10);
    let mut rng = Rng::new(4);
    let n_conns = conns;
    // Connection numbers and keys a little beyond the tables (the default
    // build's: 68 and 26, regions' keys below 24).
    let conn_span = n_conns as u64 + (n_conns as u64 / 16).max(1);
    let (key_span, region_keys) = (mrs as u64 + 10, mrs as u64 + 8);
    let mut conns = vec![Conn::default(); n_conns];
    let mut slots: Vec<Option<MemoryRegion>> = vec![None; mrs];
    let mut table = MrTable::with_addr_bits(bits);
    let (mut conn_ok, mut granted, mut denied) = (0u32, 0u32, 0u32);
    for n in 0..packets {
        // A packet, often aimed at a region's edges, judged by the tables as
        // they are before this cycle's table writes (which land at the edge).
        let path = rng.below(20) as u8;
        let src = rng.below(4) as u32;
        let write = !rng.chance(0.2);
        let rkey = rng.below(key_span) as u32;
        let target = slots.iter().flatten().find(|m| m.rkey.0 == rkey).copied();
        // Mostly the region's own connection, so that grants are common.
        let conn = match target {
            Some(m) if rng.chance(0.7) => m.conn.0,
            _ => rng.below(conn_span) as u16,
        };
        let msg_span = if rng.chance(0.5) { 1 << 10 } else { 1 << 16 };
        let msg_len = 1 + rng.below(msg_span) as u32;
        let remote = match (target, rng.below(4)) {
            (Some(m), 0) => m.base.0.wrapping_add(m.len).wrapping_sub(msg_len as u64), // flush with the end
            (Some(m), 1) => m.base.0.wrapping_add(rng.below(m.len + 10)).wrapping_sub(5),
            (Some(m), 2) => m.base.0,
            _ if rng.chance(0.1) => u64::MAX - rng.below(1 << 16),
            // Narrower DMA addresses: mostly below their top, some above.
            _ if bits < 64 && rng.chance(0.8) => rng.below(1 << 40) & top,
            _ => rng.below(1 << 40),
        };
        let offset = rng.below(msg_len as u64 + 3) as u32;
        let payload = 1 + rng.below(9000) as u16;
        let c = conns.get(conn as usize).copied().unwrap_or_default();
        // Mostly the connection's generation, else one of an earlier life.
        let generation = if rng.chance(0.8) { c.generation } else { c.generation.wrapping_sub(1) };
        let want_conn =
            (conn as usize) < n_conns && c.valid && c.peer == src && path < c.paths && c.generation == generation;
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
            ("in_generation", generation as u64),
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
            let i = rng.below(n_conns as u64) as usize;
            let c = Conn {
                valid: !rng.chance(0.2),
                peer: rng.below(4) as u32,
                paths: 1 + rng.below(16) as u8,
                generation: rng.below(2) as u8,
            };
            conns[i] = c;
            set(&mut s, "conn_wr", 1);
            set(&mut s, "conn_wr_index", i as u64);
            set(&mut s, "conn_wr_valid_bit", c.valid as u64);
            set(&mut s, "conn_wr_peer_ip", c.peer as u64);
            set(&mut s, "conn_wr_paths", c.paths as u64);
            set(&mut s, "conn_wr_generation", c.generation as u64);
        }
        if rng.chance(0.05) {
            let i = rng.below(mrs as u64) as usize;
            let used: Vec<u32> = slots
                .iter()
                .enumerate()
                .filter(|(j, m)| *j != i && m.is_some())
                .map(|(_, m)| m.unwrap().rkey.0)
                .collect();
            let rkey = loop {
                let r = rng.below(region_keys) as u32;
                if !used.contains(&r) {
                    break r;
                }
            };
            let base = if rng.chance(0.2) { top - rng.below(1 << 20) } else { rng.below(1 << 40) & top };
            let len = 1 + rng.below(1 << 20);
            let mr = MemoryRegion {
                rkey: Rkey(rkey),
                base: Iova(base),
                len,
                access: Access { remote_write: !rng.chance(0.2) },
                conn: ConnId(rng.below(conn_span) as u16),
            };
            let valid = !rng.chance(0.2) && base.checked_add(len).is_some();
            slots[i] = valid.then_some(mr);
            table = MrTable::with_addr_bits(bits);
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
        assert_eq!(s.get(port(&s, "out_addr")), remote.wrapping_add(offset as u64) & top, "packet {n}: address");
        conn_ok += want_conn as u32;
        granted += (write && want_access) as u32;
        denied += (write && !want_access) as u32;
    }
    assert!(
        conn_ok > 5_000 && granted > 5_000 && denied > 20_000,
        "{}: conn ok {conn_ok}, granted {granted}, denied {denied}",
        e.name
    );
}

/// A packet as `rx_check` sees it.
#[derive(Clone, Copy, Debug)]
struct Pkt {
    conn: u16,
    path: u8,
    src: u32,
    generation: u8,
    write: bool,
    rkey: u32,
    remote: u64,
    offset: u32,
    payload: u16,
    msg_len: u32,
}

/// One region slot as the CSR window writes it.
struct Region {
    slot: u64,
    rkey: u32,
    base: u64,
    len: u64,
    write: bool,
    conn: u16,
}

/// The block, and its addresses' mask.
struct Checker(Sim, u64);

impl Checker {
    fn new() -> Checker {
        Checker::of(&model(), u64::MAX)
    }

    fn of(lib: &std::sync::Arc<ModelLib>, mask: u64) -> Checker {
        let mut s = Sim::new(lib);
        s.clock("clock");
        s.reset("reset", Some("ready"), 1 << 10);
        Checker(s, mask)
    }

    fn set(&mut self, n: &str, v: u64) {
        let p = self.0.port(n);
        self.0.set(p, v);
    }

    fn get(&self, n: &str) -> u64 {
        self.0.get(self.0.port(n))
    }

    fn conn(&mut self, index: u64, peer: u32, paths: u64, generation: u8) {
        for (n, v) in [
            ("conn_wr", 1),
            ("conn_wr_index", index),
            ("conn_wr_valid_bit", 1),
            ("conn_wr_peer_ip", peer as u64),
            ("conn_wr_paths", paths),
            ("conn_wr_generation", generation as u64),
        ] {
            self.set(n, v);
        }
        self.0.tick();
        self.set("conn_wr", 0);
    }

    fn region(&mut self, r: &Region) {
        for (n, v) in [
            ("mr_wr", 1),
            ("mr_wr_index", r.slot),
            ("mr_wr_valid_bit", 1),
            ("mr_wr_rkey", r.rkey as u64),
            ("mr_wr_base", r.base),
            ("mr_wr_len", r.len),
            ("mr_wr_remote_write", r.write as u64),
            ("mr_wr_conn", r.conn as u64),
        ] {
            self.set(n, v);
        }
        self.0.tick();
        self.set("mr_wr", 0);
    }

    /// (connection ok, access ok) for `p`.
    fn check(&mut self, p: Pkt) -> (bool, bool) {
        for (n, v) in [
            ("in_valid", 1),
            ("in_conn", p.conn as u64),
            ("in_path", p.path as u64),
            ("in_src_ip", p.src as u64),
            ("in_generation", p.generation as u64),
            ("in_write", p.write as u64),
            ("in_rkey", p.rkey as u64),
            ("in_remote_addr", p.remote),
            ("in_offset", p.offset as u64),
            ("in_payload_len", p.payload as u64),
            ("in_msg_len", p.msg_len as u64),
        ] {
            self.set(n, v);
        }
        self.0.tick();
        self.set("in_valid", 0);
        assert_eq!(self.get("out_valid"), 1);
        assert_eq!(self.get("out_addr"), p.remote.wrapping_add(p.offset as u64) & self.1, "{p:?}: address");
        (self.get("out_conn_ok") == 1, self.get("out_access_ok") == 1)
    }
}

const PEER: u32 = 0x0a00_0002;
const TOP: u64 = u64::MAX;

/// Connection 3 (peer PEER, 4 paths) with regions: rkey 0x11 writable at
/// [0x1000, 0x2000); rkey 0x22 read-only (no remote write) at 0x8000;
/// rkey 0x33 writable, owned by connection 4; rkey 0x44 writable, the last
/// 0x100 bytes of the 64-bit space (its end, 2^64, does not fit in 64 bits).
fn tables() -> Checker {
    let mut c = Checker::new();
    c.conn(3, PEER, 4, 0);
    c.conn(4, PEER, 1, 0);
    for r in [
        Region { slot: 0, rkey: 0x11, base: 0x1000, len: 0x1000, write: true, conn: 3 },
        Region { slot: 5, rkey: 0x22, base: 0x8000, len: 0x1000, write: false, conn: 3 },
        Region { slot: 9, rkey: 0x33, base: 0x9000, len: 0x1000, write: true, conn: 4 },
        Region { slot: 15, rkey: 0x44, base: TOP - 0xff, len: 0x100, write: true, conn: 3 },
    ] {
        c.region(&r);
    }
    c
}

/// A WRITE of one packet (the whole message) of connection 3 on path 0.
fn write(rkey: u32, remote: u64, len: u32) -> Pkt {
    Pkt {
        conn: 3,
        path: 0,
        src: PEER,
        generation: 0,
        write: true,
        rkey,
        remote,
        offset: 0,
        payload: len as u16,
        msg_len: len,
    }
}

#[test]
fn region_edges_are_exact() {
    let mut c = tables();
    let cases: &[(&str, Pkt, bool)] = &[
        ("the whole region", write(0x11, 0x1000, 0x1000), true),
        ("the last byte inside", write(0x11, 0x1fff, 1), true),
        ("the first byte", write(0x11, 0x1000, 1), true),
        ("one byte past the end", write(0x11, 0x1001, 0x1000), false),
        ("the byte after the end", write(0x11, 0x2000, 1), false),
        ("one byte before the base", write(0x11, 0xfff, 2), false),
        ("below the base", write(0x11, 0xfff, 1), false),
        // A later packet inside the region of a message that starts a
        // byte before it: the message check refuses it.
        (
            "message starting one byte before the base",
            Pkt { offset: 1, payload: 0x10, msg_len: 0x100, ..write(0x11, 0xfff, 0) },
            false,
        ),
        // A message inside whose packet runs past the end, and a packet
        // inside whose message runs past it: both refused.
        (
            "packet past the end",
            Pkt { offset: 0xf00, payload: 0x101, msg_len: 0x1000, ..write(0x11, 0x1000, 0) },
            false,
        ),
        ("message past the end", Pkt { offset: 0, payload: 0x10, msg_len: 0x1001, ..write(0x11, 0x1000, 0) }, false),
        (
            "last packet flush with the end",
            Pkt { offset: 0xf00, payload: 0x100, msg_len: 0x1000, ..write(0x11, 0x1000, 0) },
            true,
        ),
        ("zero-length packet at the end", Pkt { payload: 0, msg_len: 0, ..write(0x11, 0x2000, 0) }, true),
        ("zero-length packet past the end", Pkt { payload: 0, msg_len: 0, ..write(0x11, 0x2001, 0) }, false),
        ("read-only region", write(0x22, 0x8000, 1), false),
        ("another connection's region", write(0x33, 0x9000, 1), false),
        ("at the top, below the last byte", write(0x44, TOP - 0xff, 0xff), true),
        ("at the top, reaching the last byte (2^64 end)", write(0x44, TOP - 0xff, 0x100), false),
        ("at the top, wrapping to 0", write(0x44, TOP, 2), false),
        (
            "a packet below the top of a message reaching 2^64",
            Pkt { offset: 0, payload: 0x10, msg_len: 0x100, ..write(0x44, TOP - 0xff, 0) },
            false,
        ),
        (
            "offset wrapping past 2^64",
            Pkt { offset: 0x200, payload: 1, msg_len: 0x10, ..write(0x44, TOP - 0xff, 0) },
            false,
        ),
    ];
    for (what, p, want) in cases {
        assert_eq!(c.check(*p), (true, *want), "{what}: {p:?}");
    }
}

/// `ecp5-25`'s block (32-bit DMA addresses, 2 connections, 4 regions):
/// an access must end below 2^32, even in a region registered across it,
/// and a remote address above 2^32 does not alias the low addresses.
#[test]
fn a_32_bit_build_writes_below_2_to_the_32_only() {
    let mut c = Checker::of(&narrow_model(), u32::MAX as u64);
    c.conn(1, PEER, 4, 0);
    c.region(&Region { slot: 0, rkey: 0x11, base: 0x1000, len: 0x1000, write: true, conn: 1 });
    c.region(&Region { slot: 3, rkey: 0x44, base: 0xffff_ff00, len: 0x200, write: true, conn: 1 });
    let w = |rkey, remote, len| Pkt { conn: 1, ..write(rkey, remote, len) };
    let cases: &[(&str, Pkt, bool)] = &[
        ("a low region", w(0x11, 0x1000, 0x1000), true),
        ("ending at 2^32 - 1", w(0x44, 0xffff_ff00, 0xff), true),
        ("ending at 2^32", w(0x44, 0xffff_ff00, 0x100), false),
        ("at 2^32, inside the region as registered", w(0x44, 1 << 32, 1), false),
        ("a packet crossing 2^32", Pkt { offset: 0xf0, payload: 0x20, msg_len: 0xff, ..w(0x44, 0xffff_ff00, 0) }, false),
        ("the low region's addresses plus 2^32", w(0x11, (1 << 32) | 0x1000, 1), false),
        ("the low region's addresses plus 2^63", w(0x11, (1 << 63) | 0x1000, 1), false),
        ("zero bytes at 2^32 - 1", Pkt { payload: 0, msg_len: 0, ..w(0x44, 0xffff_ffff, 0) }, true),
    ];
    for (what, p, want) in cases {
        assert_eq!(c.check(*p), (true, *want), "{what}: {p:?}");
    }
    // Base and length are kept to 32 bits: the table has no more.
    c.region(&Region { slot: 0, rkey: 0x11, base: (1 << 40) | 0x1000, len: 0x1000, write: true, conn: 1 });
    assert_eq!(c.check(w(0x11, 0x1000, 1)), (true, true), "upper bits of a base are not kept");
}

#[test]
fn rkeys_matter_for_writes_only() {
    let mut c = tables();
    for write_op in [true, false] {
        // A key no slot holds, a key one off the region's, the key of a
        // read-only region, the key of another connection's region.
        for rkey in [0x12, 0x10, 0x22, 0x33, 0] {
            let p = Pkt { write: write_op, ..write(rkey, 0x1000, 0x100) };
            // SENDs carry their receive sequence number in the rkey field:
            // the region check does not apply to them.
            assert_eq!(c.check(p), (true, !write_op), "write {write_op}, rkey {rkey:#x}");
        }
    }
    // Two slots holding the same key (the model refuses that, the table
    // does not): the lower slot wins, so the upper one's range is closed.
    c.region(&Region { slot: 3, rkey: 0x11, base: 0x5000, len: 0x1000, write: true, conn: 3 });
    assert_eq!(c.check(write(0x11, 0x5000, 1)), (true, false), "the upper slot's range");
    assert_eq!(c.check(write(0x11, 0x1000, 1)), (true, true), "the lower slot's range");
    // A region rewritten with another key answers to the new key only.
    c.region(&Region { slot: 0, rkey: 0x55, base: 0x1000, len: 0x1000, write: true, conn: 3 });
    assert_eq!(c.check(write(0x11, 0x1000, 1)), (true, false), "old key");
    assert_eq!(c.check(write(0x55, 0x1000, 1)), (true, true), "new key");
}

#[test]
fn connection_check_needs_the_peer_and_a_path_of_the_connection() {
    let mut c = tables();
    let p = write(0x11, 0x1000, 1);
    assert_eq!(c.check(Pkt { path: 3, ..p }), (true, true), "the last path");
    assert!(!c.check(Pkt { path: 4, ..p }).0, "one path beyond");
    assert!(!c.check(Pkt { src: PEER + 1, ..p }).0, "another source address");
    assert!(!c.check(Pkt { conn: 2, ..p }).0, "a connection not set up");
    // Connection numbers above the table's alias no entry.
    assert!(!c.check(Pkt { conn: 3 + CONNS as u16, ..p }).0, "beyond the table");
    // Set up again in generation 7: packets of generation 0 (its earlier
    // life) no longer belong to it.
    c.conn(3, PEER, 4, 7);
    assert!(!c.check(p).0, "a packet of the earlier life");
    assert!(!c.check(Pkt { generation: 6, ..p }).0, "another generation");
    assert_eq!(c.check(Pkt { generation: 7, ..p }), (true, true), "the connection's generation");
}

/// Cycles of the main test's traffic replayed into rust-hdl's simulator.
const REPLAYED: u64 = 4000;
