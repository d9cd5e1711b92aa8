//! The driver's pieces that need no engine: bring-up and table commands
//! against the register map's twin with every register write logged,
//! register-block discovery on chains laid out by hand, the PCI sysfs and
//! character-device backends on files in a temporary folder, the real OS
//! layer on plain files and anonymous memory, and DMA memory bounds.

// The OS layer's ioctl and adopt are unsafe: its tests call them.
#![allow(unsafe_code)]

use std::collections::HashMap;
use std::os::fd::IntoRawFd;
use std::path::{Path, PathBuf};

use ferroce_driver::discover::{self, Engine, Found};
use ferroce_driver::driver::{Config, ConnSpec, Device, Driver, MrSpec, RingSpec};
use ferroce_driver::os::{FakeOs, Fd, Mapping, Os, RealOs, ValueIoctl};
use ferroce_driver::pci::{self, Bar, Mqnic};
use ferroce_driver::vfio::{self, DmaMemory, HwDevice, Vfio};
use ferroce_driver::{Error, RegisterAccess, Result, Twin};
use ferroce_proto::regs::{self, conn_table, control, mr_table, queues, Reg};
use ferroce_proto::rings::{Rqe, Wqe, WqeOp, CQE_BYTES, RQE_BYTES};

/// The twin's registers with every access logged, 64 KiB of memory at 0 and
/// a command status that reads busy for `busy_polls` idles.
struct Logged {
    twin: Twin,
    reads: Vec<u32>,
    writes: Vec<(u32, u32)>,
    mem: Vec<u8>,
    /// Writes of host memory beyond `mem`: (address, bytes).
    outside: Vec<(u64, usize)>,
    idles: usize,
    busy_polls: usize,
}

impl RegisterAccess for Logged {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        self.reads.push(offset);
        self.twin.read32(offset)
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.writes.push((offset, value));
        self.twin.write32(offset, value)
    }
}

impl Device for Logged {
    fn write_mem(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        match self.mem.get_mut(addr as usize..addr as usize + data.len()) {
            Some(m) => m.copy_from_slice(data),
            None => self.outside.push((addr, data.len())),
        }
        Ok(())
    }
    fn read_mem(&mut self, addr: u64, buf: &mut [u8]) -> Result<()> {
        buf.copy_from_slice(&self.mem[addr as usize..addr as usize + buf.len()]);
        Ok(())
    }
    fn idle(&mut self) -> Result<()> {
        self.idles += 1;
        if self.idles == self.busy_polls {
            for status in [conn_table::CMD_STATUS, mr_table::CMD_STATUS] {
                self.twin.file.set(status.offset(), 0);
            }
        }
        Ok(())
    }
}

fn logged() -> Logged {
    Logged {
        twin: Twin::default(),
        reads: Vec::new(),
        writes: Vec::new(),
        mem: vec![0; 1 << 16],
        outside: Vec::new(),
        idles: 0,
        busy_polls: 0,
    }
}

fn cfg() -> Config {
    Config::new([2, 0, 0, 0, 0, 1], [10, 0, 0, 1])
}

/// Send ring of 4 at 0x1000, receive ring of 4 at 0x2000, completions 8 at 0x3000.
fn rings() -> (RingSpec, RingSpec, RingSpec) {
    (
        RingSpec { base: 0x1000, log_size: 2 },
        RingSpec { base: 0x2000, log_size: 2 },
        RingSpec { base: 0x3000, log_size: 3 },
    )
}

fn up_with(dev: Logged) -> Driver<Logged> {
    let (sq, rq, cq) = rings();
    Driver::bring_up(dev, &cfg(), sq, rq, cq).expect("bring-up")
}

fn up() -> Driver<Logged> {
    up_with(logged())
}

fn reg(d: &mut Driver<Logged>, r: Reg) -> u32 {
    d.dev.twin.file.get(r.offset())
}

#[test]
fn bring_up_writes_every_setting_to_its_register_and_enables_last() {
    let c = Config {
        udp_port: 4242,
        mtu: 4096,
        ack_every: 7,
        ack_delay_ns: 3_000,
        rto_min_ns: 250_000,
        rnr_delay_ns: 6_000,
        port_seed: 0x1234,
        line_rate_mbps: 25_000,
        window_cap: 200,
        ..Config::new([0x02, 0x11, 0x22, 0x33, 0x44, 0x55], [192, 168, 1, 20])
    };
    let sq = RingSpec { base: 0x1_2345_6000, log_size: 16 };
    let rq = RingSpec { base: 0x2_0000_0020, log_size: 1 };
    let cq = RingSpec { base: 0x3_0000_0040, log_size: 5 };
    let mut d = Driver::bring_up(logged(), &c, sq, rq, cq).unwrap();
    let want = [
        (control::MAC_LO, 0x2233_4455),
        (control::UDP_PORT, 4242),
        (control::MAC_HI, 0x0211),
        (control::IP, 0xc0a8_0114),
        (control::MTU, 4096),
        (control::ACK_EVERY, 7),
        (control::ACK_DELAY_NS, 3_000),
        (control::RTO_MIN_NS, 250_000),
        (control::RNR_DELAY_NS, 6_000),
        (control::PORT_SEED, 0x1234),
        (control::LINE_RATE_MBPS, 25_000),
        (control::WINDOW_CAP, 200),
        (queues::SQ_BASE_LO, 0x2345_6000),
        (queues::SQ_BASE_HI, 1),
        (queues::SQ_LOG_SIZE, 16),
        (queues::RQ_BASE_LO, 0x20),
        (queues::RQ_BASE_HI, 2),
        (queues::RQ_LOG_SIZE, 1),
        (queues::CQ_BASE_LO, 0x40),
        (queues::CQ_BASE_HI, 3),
        (queues::CQ_LOG_SIZE, 5),
        (control::CTRL, 1),
    ];
    for (r, v) in want {
        assert_eq!(reg(&mut d, r), v, "{r}");
    }
    assert_eq!(d.dev.writes.last(), Some(&(regs::control::CTRL.offset(), 1)), "enabled after everything else");
    let shown = format!("{d:?}");
    assert!(shown.starts_with("Driver { sq: Ring { spec: RingSpec { base: 4886716416, log_size: 16 }"), "{shown}");
    assert_eq!(d.dev.writes.iter().filter(|w| w.0 == regs::control::CTRL.offset()).count(), 1);
    assert_eq!(d.dev.outside, [(cq.base, CQE_BYTES << 5)], "the completion ring zeroed, nothing else written");
}

/// The window cap bring-up writes is the smaller of the configured one and
/// the build's window (`engine_info.max_in_flight`), which bounds it anyway.
#[test]
fn bring_up_caps_the_window_at_the_builds() {
    let (sq, rq, cq) = rings();
    for (window, cap, written) in [(16, 256, 16), (16, 8, 8), (16, 16, 16), (256, 256, 256), (64, 100, 64)] {
        let mut dev = logged();
        dev.twin.file.set(regs::engine_info::MAX_IN_FLIGHT.offset(), window);
        let mut d = Driver::bring_up(dev, &Config { window_cap: cap, ..cfg() }, sq, rq, cq).unwrap();
        assert_eq!(reg(&mut d, control::WINDOW_CAP), written, "window {window}, cap {cap}");
    }
}

#[test]
fn bring_up_refuses_settings_out_of_range() {
    let (sq, rq, cq) = rings();
    let refused = |c: Config, sq: RingSpec, rq: RingSpec, cq: RingSpec| {
        matches!(Driver::bring_up(logged(), &c, sq, rq, cq), Err(Error::BadRequest(_)))
    };
    assert!(refused(Config { mtu: 4097, ..cfg() }, sq, rq, cq));
    assert!(refused(Config { mtu: 0, ..cfg() }, sq, rq, cq));
    assert!(refused(Config { line_rate_mbps: 0, ..cfg() }, sq, rq, cq));
    assert!(refused(Config { window_cap: 0, ..cfg() }, sq, rq, cq));
    assert!(refused(Config { window_cap: 257, ..cfg() }, sq, rq, cq));
    assert!(refused(cfg(), RingSpec { log_size: 17, ..sq }, rq, cq));
    assert!(refused(cfg(), sq, RingSpec { log_size: 17, ..rq }, cq));
    assert!(refused(cfg(), sq, rq, RingSpec { log_size: 0, ..cq }));
    assert!(refused(cfg(), sq, RingSpec { base: 0x2010, ..rq }, cq), "receive entries are 32 bytes");
    assert!(refused(cfg(), sq, rq, RingSpec { base: 0x3010, ..cq }), "completions are 32 bytes");
    assert!(refused(cfg(), RingSpec { base: 0x1020, ..sq }, rq, cq), "send entries are 64 bytes");
    assert!(!refused(cfg(), sq, RingSpec { base: 0x2020, ..rq }, RingSpec { base: 0x3020, ..cq }));
}

#[test]
fn rings_start_where_the_engine_s_indices_are() {
    let mut dev = logged();
    dev.twin.file.set(regs::queues::SQ_CONS.offset(), 5);
    dev.twin.file.set(regs::queues::RQ_CONS.offset(), 9);
    dev.twin.file.set(regs::queues::CQ_PROD.offset(), 3);
    let mut d = up_with(dev);
    assert_eq!(reg(&mut d, queues::SQ_PROD), 5);
    assert_eq!(reg(&mut d, queues::RQ_PROD), 9);
    assert_eq!(reg(&mut d, queues::CQ_CONS), 3);
    // The next entries go to slot 5 % 4 = 1 of the send ring and 9 % 4 = 1 of the receive ring.
    let w = Wqe { op: WqeOp::Send, stream: 0, conn: 0, len: 8, local: 0x8000, remote: 0, rkey: 0, imm: 0, id: 77 };
    assert!(d.post_send(&w).unwrap());
    assert_eq!(d.dev.mem[0x1040..0x1080], w.encode());
    let r = Rqe { conn: 0, stream: 0, len: 8, addr: 0x9000, id: 78 };
    assert!(d.post_recv(&r).unwrap());
    assert_eq!(d.dev.mem[0x2020..0x2040], r.encode());
    d.ring_doorbells().unwrap();
    assert_eq!((reg(&mut d, queues::SQ_PROD), reg(&mut d, queues::RQ_PROD)), (6, 10));
}

#[test]
fn the_receive_ring_fills_and_drains_with_its_consumer_index() {
    let mut d = up();
    let r = |id: u32| Rqe { conn: 1, stream: 2, len: 64, addr: 0x9000 + id as u64 * 64, id };
    for id in 0..4 {
        assert!(d.post_recv(&r(id)).unwrap(), "slot {id}");
    }
    assert!(!d.post_recv(&r(4)).unwrap(), "a ring of 4 is full");
    for id in 0..4u32 {
        let at = 0x2000 + id as usize * RQE_BYTES;
        assert_eq!(d.dev.mem[at..at + RQE_BYTES], r(id).encode());
    }
    d.dev.twin.file.set(regs::queues::RQ_CONS.offset(), 1);
    assert!(d.post_recv(&r(4)).unwrap());
    assert!(!d.post_recv(&r(5)).unwrap());
    assert_eq!(d.dev.mem[0x2000..0x2000 + RQE_BYTES], r(4).encode());
    d.ring_doorbells().unwrap();
    assert_eq!(reg(&mut d, queues::RQ_PROD), 5);
    assert_eq!(reg(&mut d, queues::SQ_PROD), 0, "the send ring is untouched");
}

#[test]
fn requests_are_checked_against_the_engine_s_connections_and_streams() {
    let mut d = up();
    // The engine has 64 connections of 8 streams.
    let w = |conn: u16, stream: u8| Wqe {
        op: WqeOp::Write,
        stream,
        conn,
        len: 1,
        local: 0x8000,
        remote: 0,
        rkey: 1,
        imm: 0,
        id: 1,
    };
    assert!(d.post_send(&w(63, 7)).unwrap());
    assert!(matches!(d.post_send(&w(64, 0)), Err(Error::BadRequest(_))));
    assert!(matches!(d.post_send(&w(0, 8)), Err(Error::BadRequest(_))));
    let r = |conn: u16, stream: u8, addr: u64, len: u32| Rqe { conn, stream, len, addr, id: 2 };
    assert!(d.post_recv(&r(63, 7, 0x9000, 16)).unwrap());
    assert!(matches!(d.post_recv(&r(64, 0, 0x9000, 16)), Err(Error::BadRequest(_))));
    assert!(matches!(d.post_recv(&r(0, 8, 0x9000, 16)), Err(Error::BadRequest(_))));
    assert!(matches!(d.post_recv(&r(0, 0, 0x9000, 0)), Err(Error::BadRequest(_))), "empty");
    assert!(matches!(d.post_recv(&r(0, 0, u64::MAX - 15, 16)), Err(Error::BadRequest(_))), "wraps");
    assert!(d.post_recv(&r(0, 0, u64::MAX - 16, 16)).unwrap(), "ends at the top");
    // A raw entry goes in as given.
    let raw = [0xee; 64];
    assert!(d.post_send_raw(&raw).unwrap());
    assert_eq!(d.dev.mem[0x1040..0x1080], raw);
}

#[test]
fn connect_takes_the_engine_s_limits_inclusive_and_writes_the_entry() {
    let mut d = up();
    let c = ConnSpec {
        index: 63,
        remote: 0x1234,
        peer_mac: [0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee],
        peer_ip: [10, 1, 2, 3],
        paths: 16,
        streams: 8,
        initial_rate_mbps: 2_500,
    };
    d.connect(&c).unwrap();
    for (r, v) in [
        (conn_table::INDEX, 63),
        (conn_table::REMOTE_ID, 0x1234),
        (conn_table::PEER_IP, 0x0a01_0203),
        (conn_table::PEER_MAC_LO, 0xbbcc_ddee),
        (conn_table::PEER_MAC_HI, 0x02aa),
        (conn_table::PATHS, 16),
        (conn_table::STREAMS, 8),
        (conn_table::INITIAL_RATE_MBPS, 2_500),
        (conn_table::CMD, 1),
    ] {
        assert_eq!(reg(&mut d, r), v, "{r}");
    }
    assert_eq!(d.dev.writes.last(), Some(&(regs::conn_table::CMD.offset(), 1)), "the command goes last");
    let writes = d.dev.writes.len();
    for bad in [
        ConnSpec { index: 64, ..c },
        ConnSpec { paths: 0, ..c },
        ConnSpec { paths: 17, ..c },
        ConnSpec { streams: 0, ..c },
        ConnSpec { streams: 9, ..c },
    ] {
        assert!(matches!(d.connect(&bad), Err(Error::BadRequest(_))), "{bad:?}");
    }
    assert_eq!(d.dev.writes.len(), writes, "nothing written for a refused connection");
}

#[test]
fn register_mr_writes_the_region_and_refuses_empty_wrapping_or_unknown_slots() {
    let mut d = up();
    let m = MrSpec { slot: 15, rkey: 0xabcd, base: 0x1_0000_2000, len: 0x3_0000_0010, remote_write: true, conn: 5 };
    d.register_mr(&m).unwrap();
    for (r, v) in [
        (mr_table::INDEX, 15),
        (mr_table::RKEY, 0xabcd),
        (mr_table::BASE_LO, 0x2000),
        (mr_table::BASE_HI, 1),
        (mr_table::LEN_LO, 0x10),
        (mr_table::LEN_HI, 3),
        (mr_table::ACCESS, 1),
        (mr_table::CONN, 5),
        (mr_table::CMD, 1),
    ] {
        assert_eq!(reg(&mut d, r), v, "{r}");
    }
    d.register_mr(&MrSpec { remote_write: false, ..m }).unwrap();
    assert_eq!(reg(&mut d, mr_table::ACCESS), 0);
    d.register_mr(&MrSpec { base: u64::MAX - 0x10, len: 0x10, ..m }).unwrap();
    let writes = d.dev.writes.len();
    for bad in [MrSpec { slot: 16, ..m }, MrSpec { len: 0, ..m }, MrSpec { base: u64::MAX - 0xf, len: 0x10, ..m }] {
        assert!(matches!(d.register_mr(&bad), Err(Error::BadRequest(_))), "{bad:?}");
    }
    assert_eq!(d.dev.writes.len(), writes, "nothing written for a refused region");
}

/// A build with fewer memory-region slots (`engine_info.max_mrs`: four in
/// `ecp5-25`) refuses a slot beyond them, saying how many it has.
#[test]
fn register_mr_refuses_a_slot_the_build_lacks() {
    let mut dev = logged();
    dev.twin.file.set(regs::engine_info::MAX_MRS.offset(), 4);
    let mut d = up_with(dev);
    let m = MrSpec { slot: 3, rkey: 7, base: 0x1000, len: 0x100, remote_write: true, conn: 0 };
    d.register_mr(&m).unwrap();
    assert_eq!(reg(&mut d, mr_table::INDEX), 3);
    let writes = d.dev.writes.len();
    match d.register_mr(&MrSpec { slot: 4, ..m }) {
        Err(Error::BadRequest(why)) => assert!(why.contains("4 memory-region slots"), "{why}"),
        other => panic!("slot 4 of 4: {other:?}"),
    }
    assert_eq!(d.dev.writes.len(), writes, "nothing written for a refused region");
}

#[test]
fn a_busy_command_is_polled_until_done_and_gives_up_after_a_thousand_polls() {
    let mut dev = logged();
    dev.busy_polls = 3;
    let mut d = up_with(dev);
    d.dev.twin.file.set(regs::mr_table::CMD_STATUS.offset(), 1);
    let m = MrSpec { slot: 0, rkey: 1, base: 0x1000, len: 0x100, remote_write: true, conn: 0 };
    d.register_mr(&m).unwrap();
    assert_eq!(d.dev.idles, 3, "done on the poll after the third wait");
    d.dev.twin.file.set(regs::mr_table::CMD_STATUS.offset(), 1);
    d.dev.busy_polls = 0;
    d.dev.idles = 0;
    assert!(matches!(d.register_mr(&m), Err(Error::Timeout(_))));
    assert_eq!(d.dev.idles, 1000);
    d.dev.twin.file.set(regs::mr_table::CMD_STATUS.offset(), 3);
    d.dev.idles = 0;
    assert!(matches!(d.register_mr(&m), Err(Error::Refused(_))), "any status but 0 and 1 is a refusal");
    assert_eq!(d.dev.idles, 0);
}

#[test]
fn poll_returns_completions_across_the_ring_s_wrap_and_returns_space_only_when_it_took_some() {
    let mut dev = logged();
    dev.twin.file.set(regs::queues::CQ_PROD.offset(), 6);
    let mut d = up_with(dev);
    let cq_cons = regs::queues::CQ_CONS.offset();
    let before = d.dev.writes.iter().filter(|w| w.0 == cq_cons).count();
    assert!(d.poll().unwrap().is_empty());
    assert_eq!(d.dev.writes.iter().filter(|w| w.0 == cq_cons).count(), before, "nothing to return");
    // Completions 6, 7 and 8 sit in slots 6, 7 and 0 of the ring of 8 at 0x3000.
    for (seq, slot) in [(6u32, 6usize), (7, 7), (8, 0)] {
        let at = 0x3000 + slot * 32;
        d.dev.mem[at] = 1;
        d.dev.mem[at + 8..at + 12].copy_from_slice(&seq.to_le_bytes());
        d.dev.mem[at + 20..at + 24].copy_from_slice(&(100 + seq).to_le_bytes());
    }
    d.dev.twin.file.set(regs::queues::CQ_PROD.offset(), 9);
    let got: Vec<(u32, u32)> = d.poll().unwrap().iter().map(|c| (c.msg_seq, c.id)).collect();
    assert_eq!(got, vec![(6, 106), (7, 107), (8, 108)]);
    assert_eq!(d.dev.writes.iter().filter(|w| w.0 == cq_cons).count(), before + 1);
    assert_eq!(reg(&mut d, queues::CQ_CONS), 9);
}

/// A register bus of a plain map; unmapped words read as 0.
#[derive(Default)]
struct Chain(HashMap<u32, u32>);

impl Chain {
    fn block(&mut self, at: u32, type_id: u32, version: u32, next: u32) {
        self.0.insert(at, type_id);
        self.0.insert(at + 4, version);
        self.0.insert(at + 8, next);
    }
}

impl RegisterAccess for Chain {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        Ok(self.0.get(&offset).copied().unwrap_or(0))
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.0.insert(offset, value);
        Ok(())
    }
}

#[test]
fn discovery_finds_the_blocks_wherever_the_chain_puts_them() {
    // The map's blocks in reverse order from 0x40, 0x1000 apart, with a
    // foreign block in the middle.
    let mut bus = Chain::default();
    let n = regs::BLOCKS.len() as u32;
    let at = |i: u32| 0x40 + 0x1000 * i;
    for (i, b) in regs::BLOCKS.iter().rev().enumerate() {
        let i = i as u32;
        let next = if i + 1 < n { at(i + 1) } else { 0x9_0000 };
        bus.block(at(i), b.type_id, b.version, next);
    }
    bus.block(0x9_0000, 0xdead_0001, 1, 0);
    let e = Engine::discover(&mut bus, 0x40).unwrap();
    let control = at(n - 2);
    assert_eq!(e.blocks[control::CTRL.block].1.offset, control);
    assert_eq!(e.addr(control::CTRL), control + 0x0c);
    assert_eq!(e.addr(regs::engine_info::MAX_MTU), at(n - 1) + 0x20);
    assert_eq!(e.addr(control::UDP_PORT), control + 0x20);
    // Names, as a user types them at the CLI, reach the same places.
    assert_eq!(e.offset_of("control", "udp_port").unwrap(), control + 0x20);
    assert_eq!(e.offset_of("engine_info", "max_mtu").unwrap(), at(n - 1) + 0x20);
    assert!(matches!(e.offset_of("control", "nonesuch"), Err(Error::NoRegister(_))));
    assert!(matches!(e.offset_of("nonesuch", "ctrl"), Err(Error::NoRegister(_))));
    let found = discover::walk(&mut bus, 0x40).unwrap();
    assert_eq!(found.len(), n as usize + 1);
    assert_eq!(found.last(), Some(&Found { offset: 0x9_0000, type_id: 0xdead_0001, version: 1 }));
    // Without the stats block (first in the chain) discovery names what is missing.
    let stats = &regs::BLOCKS[regs::stats::TX_DATA.block];
    bus.0.insert(at(0), 0xdead_0002);
    match Engine::discover(&mut bus, 0x40) {
        Err(Error::MissingBlock { type_id, name: "stats" }) => assert_eq!(type_id, stats.type_id),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_chain_that_is_misaligned_all_ones_looping_or_too_long_is_refused() {
    let mut bus = Chain::default();
    bus.block(0, 1, 1, 0x102);
    assert!(matches!(discover::walk(&mut bus, 0), Err(Error::Chain { offset: 0x102, .. })));
    assert!(matches!(discover::walk(&mut bus, 2), Err(Error::Chain { offset: 2, .. })));
    bus.block(0, 1, 1, 0x100);
    bus.block(0x100, 0xffff_ffff, 0xffff_ffff, 0);
    assert!(matches!(discover::walk(&mut bus, 0), Err(Error::Chain { offset: 0x100, .. })));
    bus.block(0x100, 2, 1, 0x100);
    assert!(matches!(discover::walk(&mut bus, 0), Err(Error::Chain { offset: 0x100, .. })), "next is itself");
    // 256 blocks end the walk normally; a 257th is taken for a loop.
    let mut long = Chain::default();
    for i in 0..256u32 {
        long.block(i * 16, 7, 1, if i < 255 { (i + 1) * 16 } else { 0 });
    }
    assert_eq!(discover::walk(&mut long, 0).unwrap().len(), 256);
    long.block(255 * 16, 7, 1, 256 * 16);
    long.block(256 * 16, 7, 1, 0);
    assert!(matches!(discover::walk(&mut long, 0), Err(Error::Chain { .. })));
}

#[test]
fn the_corundum_app_block_must_carry_ferroce_s_app_id() {
    let mut bar0 = Chain::default();
    bar0.block(0, 0x0000_c000, 0x100, 0x80);
    bar0.block(0x80, regs::CORUNDUM_APP_INFO_TYPE, 0x100, 0);
    bar0.0.insert(0x8c, regs::APP_ID);
    let f = discover::check_corundum_app(&mut bar0).unwrap();
    assert_eq!(f, Found { offset: 0x80, type_id: 0xc005, version: 0x100 });
    bar0.0.insert(0x8c, 0x1234_5678);
    match discover::check_corundum_app(&mut bar0) {
        Err(Error::AppId { found: 0x1234_5678, expected: 0x4645_524f }) => {}
        other => panic!("{other:?}"),
    }
    bar0.block(0x80, 0x0000_c001, 0x100, 0);
    assert!(matches!(discover::check_corundum_app(&mut bar0), Err(Error::MissingBlock { type_id: 0xc005, .. })));
}

#[test]
fn the_twin_answers_bus_errors_with_their_offset() {
    let mut t = Twin::default();
    match t.read32(0x3c) {
        Err(Error::Access { offset: 0x3c, what }) => assert_eq!(what, "Unmapped"),
        other => panic!("{other:?}"),
    }
    match t.write32(regs::control::STATUS.offset(), 1) {
        Err(Error::Access { offset, what }) => assert_eq!((offset, what.as_str()), (0x110, "ReadOnly")),
        other => panic!("{other:?}"),
    }
    t.write32(regs::control::MTU.offset(), 2048).unwrap();
    assert_eq!(t.read32(regs::control::MTU.offset()).unwrap(), 2048);
}

/// A fresh folder under the system's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("ferroce-units-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    root
}

fn pci_function(root: &Path, bdf: &str, vendor: &str, device: &str) -> PathBuf {
    let p = root.join(bdf);
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(p.join("vendor"), vendor).unwrap();
    std::fs::write(p.join("device"), device).unwrap();
    p
}

#[test]
fn pci_functions_are_found_by_identity_in_bdf_order() {
    let root = scratch("pci-find");
    pci_function(&root, "0000:03:00.0", "0x1234\n", "0x1001\n");
    pci_function(&root, "0000:01:00.0", "1234", "1001");
    pci_function(&root, "0000:02:00.0", "0x8086\n", "0x1001\n");
    pci_function(&root, "0000:04:00.0", "0x1234\n", "0x1002\n");
    pci_function(&root, "0000:05:00.0", "0xzz\n", "0x1001\n");
    std::fs::create_dir_all(root.join("0000:00:00.0")).unwrap();
    let found = pci::find(&root, pci::CORUNDUM_ID).unwrap();
    let names: Vec<(&str, u16, u16)> = found.iter().map(|d| (d.bdf.as_str(), d.vendor, d.device)).collect();
    assert_eq!(names, vec![("0000:01:00.0", 0x1234, 0x1001), ("0000:03:00.0", 0x1234, 0x1001)]);
    assert_eq!(found[0].path, root.join("0000:01:00.0"));
    let d = pci::open(&root, "0000:02:00.0").unwrap();
    assert_eq!((d.vendor, d.device, d.path), (0x8086, 0x1001, root.join("0000:02:00.0")));
    assert!(matches!(pci::open(&root, "0000:09:00.0"), Err(Error::NoDevice(_))));
    assert!(matches!(pci::open(&root, "0000:05:00.0"), Err(Error::NoDevice(_))));
    assert!(matches!(pci::find(&root.join("missing"), pci::CORUNDUM_ID), Err(Error::Io { .. })));
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn a_bar_is_mapped_from_its_resource_file_and_accessed_as_aligned_words() {
    let root = scratch("pci-bar");
    let p = pci_function(&root, "0000:01:00.0", "0x1234", "0x1001");
    std::fs::write(p.join("enable"), "0").unwrap();
    let words: Vec<u8> = (0..1024u32).flat_map(|i| (0x1000_0000 + i).to_le_bytes()).collect();
    std::fs::write(p.join("resource2"), words).unwrap();
    std::fs::write(p.join("resource0"), [0xff; 64]).unwrap();
    let dev = pci::open(&root, "0000:01:00.0").unwrap();
    let mut bar = Bar::map(&dev, 2).unwrap();
    assert_eq!((bar.len(), bar.is_empty()), (4096, false));
    assert_eq!(bar.read32(0).unwrap(), 0x1000_0000);
    assert_eq!(bar.read32(4092).unwrap(), 0x1000_03ff, "the last word");
    assert!(matches!(bar.read32(4096), Err(Error::Access { offset: 4096, .. })));
    assert!(matches!(bar.read32(4094), Err(Error::Access { .. })));
    assert!(matches!(bar.read32(2), Err(Error::Access { offset: 2, .. })));
    assert!(matches!(bar.write32(4096, 1), Err(Error::Access { .. })));
    bar.write32(8, 0xa1b2_c3d4).unwrap();
    assert_eq!(bar.read32(8).unwrap(), 0xa1b2_c3d4);
    drop(bar);
    let file = std::fs::read(dev.path.join("resource2")).unwrap();
    assert_eq!(file[8..12], [0xd4, 0xc3, 0xb2, 0xa1], "little-endian in the device");
    assert_eq!(std::fs::read_to_string(dev.path.join("enable")).unwrap(), "0", "answered: left alone");
    // A BAR that reads all ones has memory decoding off: it is enabled once.
    let mut bar0 = Bar::map(&dev, 0).unwrap();
    assert_eq!(bar0.read32(0).unwrap(), 0xffff_ffff);
    assert_eq!(std::fs::read_to_string(dev.path.join("enable")).unwrap(), "1");
    assert!(matches!(Bar::map(&dev, 4), Err(Error::Io { .. })), "no resource4");
    std::fs::write(dev.path.join("resource3"), b"").unwrap();
    assert!(matches!(Bar::map(&dev, 3), Err(Error::Access { .. })), "nothing to map");
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn the_corundum_character_device_maps_region_r_at_r_shl_40_sized_by_its_pci_bar() {
    let root = scratch("mqnic");
    let dev_dir = root.join("dev");
    std::fs::create_dir_all(&dev_dir).unwrap();
    let node = dev_dir.join("mqnic0");
    let f = std::fs::File::create(&node).unwrap();
    f.set_len((1 << 40) + 8192).unwrap();
    use std::os::unix::fs::FileExt;
    f.write_all_at(&0x1111_2222u32.to_le_bytes(), 0).unwrap();
    f.write_all_at(&0x3333_4444u32.to_le_bytes(), (1 << 40) + 4).unwrap();
    std::fs::write(dev_dir.join("mqnic1"), b"").unwrap();
    std::fs::write(dev_dir.join("tty0"), b"").unwrap();
    assert_eq!(Mqnic::find(&dev_dir).unwrap(), vec![dev_dir.join("mqnic0"), dev_dir.join("mqnic1")]);
    let sysfs = root.join("sys");
    let pci_dev = sysfs.join("class/misc/mqnic0/device");
    std::fs::create_dir_all(&pci_dev).unwrap();
    std::fs::write(pci_dev.join("resource0"), [0u8; 4096]).unwrap();
    std::fs::write(pci_dev.join("resource2"), [0u8; 8192]).unwrap();
    let m = Mqnic::open(&node, &sysfs).unwrap();
    assert_eq!(m.pci, pci_dev);
    let mut r0 = m.map(0).unwrap();
    assert_eq!((r0.len(), r0.read32(0).unwrap()), (4096, 0x1111_2222));
    let mut r1 = m.map(1).unwrap();
    assert_eq!((r1.len(), r1.read32(4).unwrap()), (8192, 0x3333_4444));
    assert!(matches!(Mqnic::open(&dev_dir.join("mqnic1"), &sysfs), Err(Error::NoDevice(_))), "no PCI device");
    assert!(matches!(Mqnic::open(&dev_dir.join("mqnic7"), &sysfs), Err(Error::NoDevice(_))), "no node");
    assert!(matches!(Mqnic::find(&root.join("missing")), Err(Error::Io { .. })));
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn the_real_os_opens_maps_and_queries_plain_files() {
    let root = scratch("realos");
    let path = root.join("dev0");
    std::fs::write(&path, vec![0u8; 1234]).unwrap();
    let mut os = RealOs::default();
    let fd = os.open(&path).unwrap();
    assert!(os.raw(fd) >= 0);
    assert_eq!(os.raw(Fd(99)), -1);
    // FIONREAD on a regular file: the bytes left to read, written through the buffer.
    let mut n = [0u8; 4];
    // SAFETY: FIONREAD writes an int; the failing request is refused
    // before the kernel touches the buffer.
    assert_eq!(unsafe { os.ioctl_buf(fd, libc::FIONREAD, &mut n) }.unwrap(), 0);
    assert_eq!(u32::from_le_bytes(n), 1234);
    // SAFETY: FIOCLEX takes no argument.
    let cloexec = unsafe { ValueIoctl::new(libc::FIOCLEX) };
    // SAFETY: a request no file of this kind knows: refused before any argument is read.
    let unknown = unsafe { ValueIoctl::new(0x4645_0000) };
    assert_eq!(os.ioctl_val(fd, cloexec, 0).unwrap(), 0);
    assert!(matches!(os.ioctl_val(fd, unknown, 0), Err(Error::Io { .. })), "not a tty: ENOTTY");
    assert!(matches!(unsafe { os.ioctl_buf(fd, 0x4645_0000, &mut n) }, Err(Error::Io { .. })));
    assert!(matches!(os.ioctl_val(Fd(99), cloexec, 0), Err(Error::BadRequest(_))));
    let mut m = os.map(fd, 0, 1234).unwrap();
    assert_eq!((m.len(), m.is_empty()), (1234, false));
    m.write(1000, &[7, 8, 9]).unwrap();
    let mut b = [0xff; 5];
    m.read(999, &mut b).unwrap();
    assert_eq!(b, [0, 7, 8, 9, 0]);
    m.write32(1228, 0x0403_0201).unwrap();
    assert_eq!(m.read32(1228), Some(0x0403_0201));
    // Nothing outside the mapping or misaligned is reached.
    assert_eq!((m.read32(1230), m.read32(1232), m.write32(1229, 0)), (None, None, None));
    assert_eq!((m.read(1230, &mut b), m.write(1233, &[1, 2])), (None, None));
    assert_eq!(m.read(usize::MAX, &mut b), None, "no wrap-around");
    drop(m);
    let file = std::fs::read(&path).unwrap();
    assert_eq!(file[1000..1003], [7, 8, 9], "a shared mapping of the file");
    assert_eq!(file[1228..1234], [1, 2, 3, 4, 0, 0], "the word little-endian, nothing written past the end");
    // A descriptor handed over (as an ioctl returns one) is adopted.
    let raw = std::fs::File::open(&path).unwrap().into_raw_fd();
    // SAFETY: `raw` was just released by its File and is owned by nothing else.
    let adopted = unsafe { os.adopt(raw, "adopted") }.unwrap();
    assert_eq!(os.raw(adopted), raw);
    // SAFETY: FIONREAD writes an int.
    assert_eq!(unsafe { os.ioctl_buf(adopted, libc::FIONREAD, &mut n) }.unwrap(), 0);
    assert_eq!(u32::from_le_bytes(n), 1234);
    assert!(matches!(os.open(&root.join("missing")), Err(Error::Io { .. })));
    assert!(matches!(os.map(Fd(99), 0, 4096), Err(Error::BadRequest(_))));
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn the_real_os_gives_pinned_zeroed_memory_that_pagemap_shows_present() {
    let mut os = RealOs::default();
    assert_eq!(os.page_size(), 4096);
    let mut m = os.alloc(3 * 4096, false).unwrap();
    assert_eq!(m.len(), 3 * 4096);
    let shown = format!("{m:?}");
    assert!(shown.starts_with("Mapping(12288 bytes at 0x"), "{shown}");
    let mut all = vec![0xff; 3 * 4096];
    m.read(0, &mut all).unwrap();
    assert!(all.iter().all(|&b| b == 0));
    m.write(4096, &[0x5a]).unwrap();
    m.read(4095, &mut all[..2]).unwrap();
    assert_eq!(all[..2], [0, 0x5a]);
    let vaddr = m.as_ptr() as u64;
    for page in 0..3 {
        let entry = os.pagemap(vaddr + page * 4096 + 100).unwrap();
        assert_eq!(entry >> 63, 1, "page {page} is present");
    }
    assert_eq!(os.pagemap(0).unwrap() >> 63, 0, "nothing is mapped at 0");
}

#[test]
fn the_stand_in_kernel_opens_under_its_root_and_records_every_ioctl() {
    let root = scratch("fakeos");
    std::fs::create_dir_all(root.join("dev")).unwrap();
    std::fs::write(root.join("dev/thing"), [0u8; 4096]).unwrap();
    let mut os = FakeOs::new(&root);
    let fd = os.open(Path::new("/dev/thing")).unwrap();
    assert_eq!((fd, os.raw(fd)), (Fd(0), 100));
    let second = os.open(Path::new("dev/thing")).unwrap();
    assert_eq!((second, os.raw(second)), (Fd(1), 101), "relative paths are under the root too");
    os.answer = Box::new(|_, req, buf| {
        if req == 2 {
            return Err(libc::EBUSY);
        }
        buf[0] = 0x99;
        Ok(5)
    });
    // SAFETY: the stand-in kernel reads no memory for any request.
    let (one, two) = unsafe { (ValueIoctl::new(1), ValueIoctl::new(2)) };
    assert_eq!(os.ioctl_val(fd, one, 0x0102_0304).unwrap(), 5);
    let e = os.ioctl_val(fd, two, 0).unwrap_err();
    assert!(matches!(&e, Error::Io { source, .. } if source.raw_os_error() == Some(libc::EBUSY)), "{e}");
    assert_eq!(os.calls[0], (PathBuf::from("/dev/thing"), 1, vec![4, 3, 2, 1, 0, 0, 0, 0]));
    assert_eq!(os.calls.len(), 2);
    let shown = format!("{os:?}");
    assert!(shown.starts_with("FakeOs { root: ") && shown.ends_with("calls: 2 }"), "{shown}");
    assert!(matches!(os.ioctl_val(Fd(5), one, 0), Err(Error::BadRequest(_))));
    os.pages.insert(3, 0x8000_0000_0000_0042);
    os.default_page = 7;
    assert_eq!(os.pagemap(3 * 4096 + 5).unwrap(), 0x8000_0000_0000_0042);
    assert_eq!(os.pagemap(4 * 4096).unwrap(), 7);
    assert_eq!(os.page_size(), 4096);
    assert_eq!(os.alloc(8192, true).unwrap().len(), 8192);
    let empty = os.alloc(0, false).unwrap();
    assert_eq!((empty.len(), empty.is_empty(), empty.read(0, &mut []), empty.read32(0)), (0, true, Some(()), None));
    let bar = Bar::from_mapping(empty, "nothing");
    assert_eq!((bar.len(), bar.is_empty()), (0, true));
    assert!(matches!(os.open(Path::new("/dev/none")), Err(Error::Io { .. })));
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn dma_memory_takes_its_last_byte_refuses_the_next_and_reads_the_page_frame_bits() {
    let root = scratch("dma");
    let mut os = FakeOs::new(&root);
    // Bits 55-62 of a pagemap entry are flags, not part of the frame.
    os.default_page = 1 << 63 | 0x7f << 55 | 0x42;
    let mut m = DmaMemory::hugepage(&mut os, 4096).unwrap();
    assert_eq!(m.iova(), 0x42 * 4096);
    assert_eq!((m.len(), m.is_empty()), (vfio::HUGE_PAGE, false));
    let end = m.iova() + vfio::HUGE_PAGE as u64;
    m.write(end - 2, &[0xab, 0xcd]).unwrap();
    let mut b = [0u8; 2];
    m.read(end - 2, &mut b).unwrap();
    assert_eq!(b, [0xab, 0xcd]);
    assert!(m.write(end - 1, &[1, 2]).is_err());
    assert!(m.read(end, &mut [0u8; 1]).is_err());
    assert!(m.read(m.iova() - 1, &mut [0u8; 1]).is_err());
    assert!(DmaMemory::hugepage(&mut os, vfio::HUGE_PAGE).is_ok(), "exactly one huge page");
    // Engine memory and registers of a hardware device go through the same bounds.
    let regs = Bar::from_mapping(os.alloc(4096, false).unwrap(), "regs");
    let mut hw = HwDevice { regs, mem: m };
    hw.write32(16, 0x0102_0304).unwrap();
    assert_eq!(hw.read32(16).unwrap(), 0x0102_0304);
    assert!(hw.read32(4096).is_err());
    hw.write_mem(0x42 * 4096 + 10, &[5, 6]).unwrap();
    let mut b = [0u8; 2];
    hw.read_mem(0x42 * 4096 + 10, &mut b).unwrap();
    assert_eq!(b, [5, 6]);
    assert!(hw.write_mem(end, &[1]).is_err());
    // Waiting for the engine gives it time: a command's thousand polls span 20 ms or more.
    let start = std::time::Instant::now();
    hw.idle().unwrap();
    assert!(start.elapsed() >= std::time::Duration::from_micros(20));
    std::fs::remove_dir_all(root).unwrap();
}

/// What the stand-in kernel answers an ioctl with.
type Answer = Box<dyn FnMut(&std::path::Path, u64, &mut [u8]) -> std::result::Result<i32, i32>>;

/// The stand-in kernel's answers for a VFIO group that is viable and hands
/// out device descriptor 9.
fn viable_group() -> Answer {
    Box::new(|_, req, buf| match req {
        vfio::VFIO_CHECK_EXTENSION => Ok(1),
        vfio::VFIO_GROUP_GET_STATUS => {
            buf[4] = 1;
            Ok(0)
        }
        vfio::VFIO_GROUP_GET_DEVICE_FD => Ok(9),
        _ => Ok(0),
    })
}

#[test]
fn vfio_refuses_another_api_version_and_empty_dma_memory() {
    let root = scratch("vfio-api");
    std::fs::create_dir_all(root.join("dev/vfio")).unwrap();
    std::fs::write(root.join("dev/vfio/vfio"), b"").unwrap();
    let mut os = FakeOs::new(&root);
    os.answer = Box::new(|_, req, _| Ok(if req == vfio::VFIO_GET_API_VERSION { 1 } else { 0 }));
    let e = Vfio::open(&mut os, 7, "0000:01:00.0").unwrap_err();
    assert!(e.to_string().contains("API version 1"), "{e}");
    std::fs::write(root.join("dev/vfio/7"), b"").unwrap();
    std::fs::create_dir_all(root.join("fd")).unwrap();
    std::fs::write(root.join("fd/9"), b"").unwrap();
    os.answer = viable_group();
    let mut v = Vfio::open(&mut os, 7, "0000:01:00.0").unwrap();
    assert!(matches!(DmaMemory::vfio(&mut os, &mut v, 0), Err(Error::BadRequest(_))));
    let a = DmaMemory::vfio(&mut os, &mut v, (2 << 20) + 1).unwrap();
    let b = DmaMemory::vfio(&mut os, &mut v, 2 << 20).unwrap();
    let c = DmaMemory::vfio(&mut os, &mut v, 1).unwrap();
    assert_eq!(
        (a.iova(), b.iova(), c.iova()),
        (vfio::IOVA_BASE, vfio::IOVA_BASE + (4 << 20), vfio::IOVA_BASE + (6 << 20))
    );
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn posting_reads_the_consumer_index_only_when_the_ring_looks_full() {
    let mut d = up();
    let (sq_cons, rq_cons) = (regs::queues::SQ_CONS.offset(), regs::queues::RQ_CONS.offset());
    d.dev.reads.clear();
    let w = Wqe { op: WqeOp::Write, stream: 0, conn: 0, len: 1, local: 0x8000, remote: 0, rkey: 1, imm: 0, id: 1 };
    let r = Rqe { conn: 0, stream: 0, len: 8, addr: 0x9000, id: 2 };
    for _ in 0..4 {
        assert!(d.post_send(&w).unwrap());
        assert!(d.post_recv(&r).unwrap());
    }
    assert!(!d.dev.reads.contains(&sq_cons) && !d.dev.reads.contains(&rq_cons), "room known without a read");
    assert!(!d.post_send(&w).unwrap());
    assert_eq!(d.dev.reads.iter().filter(|&&o| o == sq_cons).count(), 1);
    assert!(!d.post_recv(&r).unwrap());
    assert_eq!(d.dev.reads.iter().filter(|&&o| o == rq_cons).count(), 1);
}

#[test]
fn vfio_ioctl_numbers_are_those_of_linux_vfio_h() {
    // _IO(VFIO_TYPE = ';', VFIO_BASE = 100 + n).
    let numbers = [
        vfio::VFIO_GET_API_VERSION,
        vfio::VFIO_CHECK_EXTENSION,
        vfio::VFIO_SET_IOMMU,
        vfio::VFIO_GROUP_GET_STATUS,
        vfio::VFIO_GROUP_SET_CONTAINER,
        vfio::VFIO_GROUP_GET_DEVICE_FD,
        vfio::VFIO_DEVICE_GET_REGION_INFO,
        vfio::VFIO_IOMMU_MAP_DMA,
    ];
    assert_eq!(numbers, [0x3b64, 0x3b65, 0x3b66, 0x3b67, 0x3b68, 0x3b6a, 0x3b6c, 0x3b71]);
}

/// The stand-in kernel, recording the size and page kind of every allocation.
struct Allocs {
    os: FakeOs,
    allocs: Vec<(usize, bool)>,
}

impl Os for Allocs {
    fn open(&mut self, path: &Path) -> Result<Fd> {
        self.os.open(path)
    }
    fn ioctl_val(&mut self, fd: Fd, request: ValueIoctl, value: u64) -> Result<i32> {
        self.os.ioctl_val(fd, request, value)
    }
    unsafe fn ioctl_buf(&mut self, fd: Fd, request: u64, buf: &mut [u8]) -> Result<i32> {
        // SAFETY: passed on under the caller's contract.
        unsafe { self.os.ioctl_buf(fd, request, buf) }
    }
    fn raw(&self, fd: Fd) -> i32 {
        self.os.raw(fd)
    }
    unsafe fn adopt(&mut self, raw: i32, what: &str) -> Result<Fd> {
        // SAFETY: passed on under the caller's contract.
        unsafe { self.os.adopt(raw, what) }
    }
    fn map(&mut self, fd: Fd, offset: u64, len: usize) -> Result<Mapping> {
        self.os.map(fd, offset, len)
    }
    fn alloc(&mut self, len: usize, huge: bool) -> Result<Mapping> {
        self.allocs.push((len, huge));
        self.os.alloc(len, huge)
    }
    fn pagemap(&mut self, vaddr: u64) -> Result<u64> {
        self.os.pagemap(vaddr)
    }
}

#[test]
fn dma_memory_of_a_huge_page_or_more_asks_for_huge_pages() {
    let root = scratch("vfio-huge");
    for f in ["dev/vfio/vfio", "dev/vfio/7", "fd/9"] {
        std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
        std::fs::write(root.join(f), b"").unwrap();
    }
    let mut os = Allocs { os: FakeOs::new(&root), allocs: Vec::new() };
    os.os.answer = viable_group();
    let mut v = Vfio::open(&mut os, 7, "0000:01:00.0").unwrap();
    for len in [(2 << 20) - 1, 2 << 20, 3 << 20] {
        DmaMemory::vfio(&mut os, &mut v, len).unwrap();
    }
    DmaMemory::hugepage(&mut os, 4096).unwrap_err();
    assert_eq!(os.allocs, vec![((2 << 20) - 1, false), (2 << 20, true), (3 << 20, true), (2 << 20, true)]);
    std::fs::remove_dir_all(root).unwrap();
}
