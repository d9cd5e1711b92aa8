//! The driver's ring, doorbell and completion logic against the register
//! map's RAM twin (the hardware's side played by the test through the twin's
//! read-only registers) and a memory buffer: ring full, doorbells,
//! completions and their consumer index, commands refused or never
//! finishing, and bad input refused before anything is written.

use ferroce_driver::driver::{Config, ConnSpec, Device, Driver, MrSpec, RingSpec};
use ferroce_driver::{Error, RegisterAccess, Result, Twin};
use ferroce_proto::regs;
use ferroce_proto::rings::{Cqe, CqeKind, Wqe, WqeOp, CQE_BYTES, WQE_BYTES};

/// The twin's registers and 1 MiB of memory at 0x10_0000.
struct TwinDevice {
    twin: Twin,
    mem: Vec<u8>,
    idles: usize,
}

const BASE: u64 = 0x10_0000;

impl RegisterAccess for TwinDevice {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        self.twin.read32(offset)
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.twin.write32(offset, value)
    }
}

impl Device for TwinDevice {
    fn write_mem(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        let o = (addr - BASE) as usize;
        self.mem[o..o + data.len()].copy_from_slice(data);
        Ok(())
    }
    fn read_mem(&mut self, addr: u64, buf: &mut [u8]) -> Result<()> {
        let o = (addr - BASE) as usize;
        buf.copy_from_slice(&self.mem[o..o + buf.len()]);
        Ok(())
    }
    fn idle(&mut self) -> Result<()> {
        self.idles += 1;
        Ok(())
    }
}

fn cfg() -> Config {
    Config { port_seed: 1, ..Config::new([2, 0, 0, 0, 0, 1], [10, 0, 0, 1]) }
}

fn rings() -> (RingSpec, RingSpec, RingSpec) {
    (
        RingSpec { base: BASE, log_size: 2 },
        RingSpec { base: BASE + 0x1000, log_size: 2 },
        RingSpec { base: BASE + 0x2000, log_size: 3 },
    )
}

fn up() -> Driver<TwinDevice> {
    let dev = TwinDevice { twin: Twin::default(), mem: vec![0; 1 << 20], idles: 0 };
    let (sq, rq, cq) = rings();
    Driver::bring_up(dev, &cfg(), sq, rq, cq).expect("bring-up")
}

fn wqe(id: u32) -> Wqe {
    Wqe { op: WqeOp::Write, stream: 1, conn: 2, len: 100, local: BASE + 0x8000, remote: 0x9000, rkey: 7, imm: 0, id }
}

#[test]
fn bring_up_writes_the_settings_and_enables_last() {
    let mut d = up();
    let t = &mut d.dev.twin;
    assert_eq!(t.read32(regs::control::MTU.offset()).unwrap(), 1024);
    assert_eq!(t.read32(regs::control::IP.offset()).unwrap(), 0x0a00_0001);
    assert_eq!(t.read32(regs::queues::SQ_BASE_LO.offset()).unwrap(), BASE as u32);
    assert_eq!(t.read32(regs::queues::CQ_LOG_SIZE.offset()).unwrap(), 3);
    assert_eq!(t.read32(regs::control::CTRL.offset()).unwrap(), 1, "enabled");
}

#[test]
fn the_send_ring_fills_and_drains_with_the_consumer_index() {
    let mut d = up();
    for id in 0..4 {
        assert!(d.post_send(&wqe(id)).unwrap(), "slot {id}");
    }
    assert!(!d.post_send(&wqe(4)).unwrap(), "a ring of 4 is full");
    assert_eq!(d.dev.twin.read32(regs::queues::SQ_PROD.offset()).unwrap(), 0, "no doorbell yet");
    d.ring_doorbells().unwrap();
    assert_eq!(d.dev.twin.read32(regs::queues::SQ_PROD.offset()).unwrap(), 4);
    // Entries are in the ring, slot by slot.
    for id in 0..4u32 {
        let at = id as usize * WQE_BYTES;
        assert_eq!(&d.dev.mem[at..at + WQE_BYTES], &wqe(id).encode()[..]);
    }
    // The engine consumed two: room for two more, wrapping to slots 0 and 1.
    d.dev.twin.file.set(regs::queues::SQ_CONS.offset(), 2);
    assert!(d.post_send(&wqe(4)).unwrap());
    assert!(d.post_send(&wqe(5)).unwrap());
    assert!(!d.post_send(&wqe(6)).unwrap());
    assert_eq!(&d.dev.mem[..WQE_BYTES], &wqe(4).encode()[..]);
    d.ring_doorbells().unwrap();
    assert_eq!(d.dev.twin.read32(regs::queues::SQ_PROD.offset()).unwrap(), 6);
}

#[test]
fn completions_are_read_in_order_and_returned() {
    let mut d = up();
    assert!(d.poll().unwrap().is_empty());
    // The engine writes three completions and moves cq_prod.
    for i in 0..3u32 {
        let mut b = [0u8; CQE_BYTES];
        b[0] = CqeKind::SendDone as u8;
        b[2] = 1;
        b[4..6].copy_from_slice(&2u16.to_le_bytes());
        b[8..12].copy_from_slice(&i.to_le_bytes());
        b[12..16].copy_from_slice(&100u32.to_le_bytes());
        b[20..24].copy_from_slice(&(10 + i).to_le_bytes());
        let at = 0x2000 + i as usize * CQE_BYTES;
        d.dev.mem[at..at + CQE_BYTES].copy_from_slice(&b);
    }
    d.dev.twin.file.set(regs::queues::CQ_PROD.offset(), 3);
    let got: Vec<Cqe> = d.poll().unwrap();
    assert_eq!(got.iter().map(|c| (c.id, c.msg_seq)).collect::<Vec<_>>(), vec![(10, 0), (11, 1), (12, 2)]);
    assert!(got.iter().all(|c| c.kind == CqeKind::SendDone && c.len == 100 && c.conn == 2 && c.stream == 1));
    assert_eq!(d.dev.twin.read32(regs::queues::CQ_CONS.offset()).unwrap(), 3, "space returned");
    // A malformed entry is an error, not a guess.
    d.dev.mem[0x2000 + 3 * CQE_BYTES] = 9;
    d.dev.twin.file.set(regs::queues::CQ_PROD.offset(), 4);
    assert!(matches!(d.poll(), Err(Error::BadCompletion(_))));
}

#[test]
fn commands_refused_or_never_done_are_typed_errors() {
    let mut d = up();
    let c = ConnSpec {
        index: 3,
        remote: 4,
        peer_mac: [2, 0, 0, 0, 0, 2],
        peer_ip: [10, 0, 0, 2],
        paths: 4,
        streams: 2,
        initial_rate_mbps: 0,
    };
    // The twin's cmd_status reads 0: done at once.
    d.connect(&c).unwrap();
    assert_eq!(d.dev.twin.read32(regs::conn_table::PATHS.offset()).unwrap(), 4);
    d.dev.twin.file.set(regs::conn_table::CMD_STATUS.offset(), 2);
    assert!(matches!(d.connect(&c), Err(Error::Refused(_))));
    d.dev.twin.file.set(regs::conn_table::CMD_STATUS.offset(), 1);
    let idles = d.dev.idles;
    assert!(matches!(d.connect(&c), Err(Error::Timeout(_))));
    assert!(d.dev.idles > idles, "it waited between polls");
    let mr = MrSpec { slot: 0, rkey: 1, base: 0x1000, len: 0, remote_write: true, conn: 3 };
    assert!(matches!(d.register_mr(&mr), Err(Error::BadRequest(_))), "an empty region");
}

#[test]
fn bad_requests_are_refused_before_anything_is_written() {
    let mut d = up();
    let before = d.dev.mem.clone();
    assert!(matches!(d.post_send(&Wqe { len: 0, ..wqe(1) }), Err(Error::BadRequest(_))), "zero length");
    assert!(matches!(d.post_send(&Wqe { stream: 9, ..wqe(1) }), Err(Error::BadRequest(_))), "no such stream");
    let too_many = ConnSpec {
        index: 0,
        remote: 0,
        peer_mac: [0; 6],
        peer_ip: [0; 4],
        paths: 17,
        streams: 1,
        initial_rate_mbps: 0,
    };
    assert!(matches!(d.connect(&too_many), Err(Error::BadRequest(_))), "more paths than the engine has");
    assert!(d.dev.mem == before, "nothing reached the rings");
    // Rings not aligned to their entries, or of size 0, are refused at bring-up.
    let (sq, rq, cq) = rings();
    let dev = TwinDevice { twin: Twin::default(), mem: vec![0; 1 << 20], idles: 0 };
    let e = Driver::bring_up(dev, &cfg(), RingSpec { base: BASE + 8, ..sq }, rq, cq).unwrap_err();
    assert!(e.to_string().contains("multiple of 64"), "{e}");
    let dev = TwinDevice { twin: Twin::default(), mem: vec![0; 1 << 20], idles: 0 };
    assert!(Driver::bring_up(dev, &cfg(), sq, rq, RingSpec { log_size: 0, ..cq }).is_err());
    let dev = TwinDevice { twin: Twin::default(), mem: vec![0; 1 << 20], idles: 0 };
    assert!(Driver::bring_up(dev, &Config { mtu: 0, ..cfg() }, sq, rq, cq).is_err());
}
