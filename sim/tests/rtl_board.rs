//! The board blocks in Verilator (`hdl/src/board/`): the frame stores
//! (whole frames out, drops counted), the board memory (DMA bytes at any
//! alignment, the bridge's words), the MAC adaptation (`last_be` and
//! `error` to `tkeep` and `tuser`), and the board core with the stand-in
//! engine spoken to over its UART in LiteX's UARTBone protocol, with frames
//! looped through its MAC side.
//!
//! Every stream has random stalls on both sides where the block allows it
//! (LiteEth's receive side cannot wait, so neither does a dropping store's
//! input).

use std::collections::HashMap;

use ferroce_proto::board::{RAM_BASE, STATUS_AXIL_ERRORS, STATUS_CRC_ERRORS, STATUS_RAM_BYTES, STATUS_RX_DROPPED};
use ferroce_hdl::emit::board::{RAM_BITS, STORE_BITS, TEST_BIT_CYCLES, TEST_TIMEOUT};
use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{ModelLib, Port, Sim};

/// A model with its ports by name.
struct Dut {
    sim: Sim,
    ports: HashMap<String, Port>,
}

impl Dut {
    fn new(name: &str, verilog: &str) -> Dut {
        let lib = ModelLib::build(name, verilog).expect("model builds");
        let mut sim = Sim::new(&lib);
        sim.clock("clock");
        Dut { sim, ports: HashMap::new() }
    }

    fn p(&mut self, n: &str) -> Port {
        if let Some(p) = self.ports.get(n) {
            return *p;
        }
        let p = self.sim.port(n);
        self.ports.insert(n.to_string(), p);
        p
    }

    fn set(&mut self, n: &str, v: u64) {
        let p = self.p(n);
        self.sim.set(p, v);
    }

    fn get(&mut self, n: &str) -> u64 {
        let p = self.p(n);
        self.sim.get(p)
    }

    fn reset(&mut self) {
        self.set("reset", 1);
        self.sim.tick();
        self.set("reset", 0);
    }
}

/// Bytes of a frame as 64-bit beats: (data, keep, last).
fn beats(f: &[u8]) -> Vec<(u64, u64, bool)> {
    f.chunks(8)
        .enumerate()
        .map(|(i, c)| {
            let d = c.iter().enumerate().fold(0u64, |a, (j, b)| a | (*b as u64) << (8 * j));
            (d, (1u64 << c.len()) - 1, (i + 1) * 8 >= f.len())
        })
        .collect()
}

/// The kept bytes of a beat, appended.
fn unpack(d: u64, keep: u64, out: &mut Vec<u8>) {
    out.extend((0..8).filter(|l| keep >> l & 1 == 1).map(|l| (d >> (8 * l)) as u8));
}

fn random_frames(rng: &mut Rng, n: usize, max: u64) -> Vec<Vec<u8>> {
    (0..n).map(|_| (0..1 + rng.below(max)).map(|_| rng.next_u64() as u8).collect()).collect()
}

fn store(drop: bool) -> Dut {
    use ferroce_hdl::board::frame_store::FrameStore;
    let b = if drop { FrameStore::<STORE_BITS, { STORE_BITS + 1 }>::dropping() } else { FrameStore::blocking() };
    let name = if drop { "frame_store_dropping" } else { "frame_store_blocking" };
    let mut d = Dut::new(name, &ferroce_hdl::emit::verilog(b));
    d.reset();
    d
}

/// Collects a stream's beats into frames and checks that a beat holds
/// while stalled.
#[derive(Default)]
struct Sink {
    frames: Vec<(Vec<u8>, bool)>,
    cur: Vec<u8>,
    held: Option<(u64, u64, u64, u64)>,
}

impl Sink {
    /// Watches this cycle's beat; true when a frame's first beat is taken.
    fn watch(&mut self, d: &mut Dut, prefix: &str, ready: bool) -> bool {
        let valid = d.get(&format!("{prefix}tvalid")) == 1;
        if !valid {
            assert!(self.held.is_none(), "tvalid dropped while stalled");
            return false;
        }
        let beat = (
            d.get(&format!("{prefix}tdata")),
            d.get(&format!("{prefix}tkeep")),
            d.get(&format!("{prefix}tlast")),
            d.get(&format!("{prefix}tuser")),
        );
        if let Some(h) = self.held {
            assert_eq!(h, beat, "beat changed while stalled");
        }
        if !ready {
            self.held = Some(beat);
            return false;
        }
        self.held = None;
        let first = self.cur.is_empty();
        unpack(beat.0, beat.1, &mut self.cur);
        if beat.2 == 1 {
            self.frames.push((std::mem::take(&mut self.cur), beat.3 == 1));
        }
        first
    }
}

#[test]
fn frame_store_drops_frames_whole_when_full_and_counts_them() {
    let mut d = store(true);
    let mut rng = Rng::new(19);
    let frames = random_frames(&mut rng, 1500, 1500);
    let mut sink = Sink::default();
    let mut cycle = 0u64;
    for (i, f) in frames.iter().enumerate() {
        for (n, &(data, keep, last)) in beats(f).iter().enumerate() {
            // Input never waits (as LiteEth's MAC); gaps between beats are random.
            while rng.chance(0.3) {
                d.set("s_axis_tvalid", 0);
                step(&mut d, &mut sink, &mut rng, cycle);
                cycle += 1;
            }
            d.set("s_axis_tvalid", 1);
            d.set("s_axis_tdata", data);
            d.set("s_axis_tkeep", keep);
            d.set("s_axis_tlast", last as u64);
            // Frame 7 is marked bad: tuser travels with its last beat.
            d.set("s_axis_tuser", (last && i == 7) as u64);
            assert!(n == 0 || d.get("s_axis_tready") == 1);
            step(&mut d, &mut sink, &mut rng, cycle);
            cycle += 1;
        }
    }
    d.set("s_axis_tvalid", 0);
    for _ in 0..20_000 {
        step(&mut d, &mut sink, &mut rng, u64::MAX);
    }
    // What came out is the input with whole frames left out, in order.
    let mut at = 0;
    for (n, (f, bad)) in sink.frames.iter().enumerate() {
        let k =
            frames[at..].iter().position(|g| g == f).unwrap_or_else(|| panic!("output frame {n} is no input frame"));
        at += k + 1;
        assert_eq!(*bad, at - 1 == 7, "tuser of frame {}", at - 1);
    }
    let dropped = (frames.len() - sink.frames.len()) as u64;
    assert_eq!(d.get("dropped"), dropped, "dropped frames counted");
    assert!(dropped > 50 && dropped < 1000, "{dropped} of {} frames dropped", frames.len());
}

/// One cycle of the dropping-store test: the output stalls hard in some
/// periods (so the store fills), lightly otherwise.
fn step(d: &mut Dut, sink: &mut Sink, rng: &mut Rng, cycle: u64) {
    let heavy = (cycle / 20_000) % 3 == 1;
    let ready = !rng.chance(if heavy { 0.95 } else { 0.2 });
    d.set("m_axis_tready", ready as u64);
    d.sim.eval();
    sink.watch(d, "m_axis_", ready);
    d.sim.tick();
}

#[test]
fn frame_store_sends_each_frame_in_one_go_under_back_pressure() {
    let mut d = store(false);
    let mut rng = Rng::new(5);
    let frames = random_frames(&mut rng, 400, 9000);
    let all: Vec<(u64, u64, bool)> = frames.iter().flat_map(|f| beats(f)).collect();
    // Input beats up to the end of each frame.
    let ends: Vec<usize> = frames.iter().scan(0, |n, f| Some(*n + f.len().div_ceil(8))).collect();
    let mut sink = Sink::default();
    let (mut at, mut cycles) = (0, 0u64);
    let mut refused = 0;
    while sink.frames.len() < frames.len() {
        cycles += 1;
        assert!(cycles < 10_000_000, "stuck after {} frames", sink.frames.len());
        // The sender pauses inside frames (as the engine waiting on DMA).
        let offer = at < all.len() && !rng.chance(0.4);
        d.set("s_axis_tvalid", offer as u64);
        if offer {
            d.set("s_axis_tdata", all[at].0);
            d.set("s_axis_tkeep", all[at].1);
            d.set("s_axis_tlast", all[at].2 as u64);
            d.set("s_axis_tuser", 0);
        }
        let ready = !rng.chance(if (cycles / 5_000) % 2 == 1 { 0.9 } else { 0.1 });
        d.set("m_axis_tready", ready as u64);
        d.sim.eval();
        let taken = offer && d.get("s_axis_tready") == 1;
        refused += (offer && !taken) as u64;
        let n = sink.frames.len();
        if sink.watch(&mut d, "m_axis_", ready) {
            // The MAC must never run dry inside a frame: all of it is in.
            assert!(at >= ends[n], "frame {n} leaves before its last beat arrived");
        }
        d.sim.tick();
        at += taken as usize;
    }
    for (n, (f, bad)) in sink.frames.iter().enumerate() {
        assert!(f == &frames[n] && !bad, "frame {n} differs");
    }
    assert_eq!(d.get("dropped"), 0);
    assert!(refused > 1000, "the store filled and refused beats {refused} times");
}

/// The output gives a beat every cycle to a sink that always takes it (the
/// read lands in a second register while the output is held): frames
/// stored while the sink waited come out back to back, each beat the
/// cycle after the one before, and whole.
#[test]
fn frame_store_gives_a_beat_a_cycle_to_a_sink_that_always_takes() {
    let mut d = store(false);
    let mut rng = Rng::new(23);
    let frames = random_frames(&mut rng, 6, 1500);
    let all: Vec<(u64, u64, bool)> = frames.iter().flat_map(|f| beats(f)).collect();
    // Everything in while the sink waits.
    d.set("m_axis_tready", 0);
    for b in &all {
        d.set("s_axis_tvalid", 1);
        d.set("s_axis_tdata", b.0);
        d.set("s_axis_tkeep", b.1);
        d.set("s_axis_tlast", b.2 as u64);
        d.set("s_axis_tuser", 0);
        d.sim.eval();
        assert_eq!(d.get("s_axis_tready"), 1, "the store has room for six frames");
        d.sim.tick();
    }
    d.set("s_axis_tvalid", 0);
    // Then a sink that always takes: count the cycles from the first beat.
    let mut sink = Sink::default();
    let (mut taken, mut first, mut cycles) = (0usize, None, 0u64);
    while taken < all.len() {
        cycles += 1;
        assert!(cycles < 10 * all.len() as u64, "{taken} of {} beats out", all.len());
        d.set("m_axis_tready", 1);
        d.sim.eval();
        if d.get("m_axis_tvalid") == 1 {
            first.get_or_insert(cycles);
            taken += 1;
        }
        sink.watch(&mut d, "m_axis_", true);
        d.sim.tick();
    }
    let span = cycles + 1 - first.expect("a first beat");
    assert_eq!(span, all.len() as u64, "{} beats out in {span} cycles", all.len());
    for (n, (f, bad)) in sink.frames.iter().enumerate() {
        assert!(f == &frames[n] && !bad, "frame {n} differs");
    }
    assert_eq!(sink.frames.len(), frames.len());
}

/// The bridge's side of a bus (board memory or board core): one access at
/// a time, held until `bus_ready`.
#[derive(Default)]
struct Bus {
    /// (word address, Some(data) for a write) being offered.
    cur: Option<(u32, Option<u32>)>,
}

impl Bus {
    /// Drives this cycle; returns a finished access (address, write data
    /// or read answer, whether a write) after `eval`.
    fn drive(&mut self, d: &mut Dut) {
        let (valid, we, addr, data) = match self.cur {
            Some((a, w)) => (1, w.is_some() as u64, a as u64, w.unwrap_or(0) as u64),
            None => (0, 0, 0, 0),
        };
        d.set("bus_valid", valid);
        d.set("bus_we", we);
        d.set("bus_addr", addr);
        d.set("bus_wdata", data);
    }

    fn done(&mut self, d: &mut Dut) -> Option<(u32, u32, bool)> {
        if self.cur.is_none() || d.get("bus_ready") == 0 {
            return None;
        }
        let (a, w) = self.cur.take().expect("an access");
        Some((a, w.unwrap_or_else(|| d.get("bus_rdata") as u32), w.is_some()))
    }
}

/// Memory bytes of a 64-KiB board memory, the model.
const MEM: usize = 8 << RAM_BITS;

fn word_of(mem: &[u8], byte: usize) -> u32 {
    u32::from_le_bytes(mem[byte..byte + 4].try_into().expect("4 bytes"))
}

#[test]
fn board_ram_places_dma_bytes_at_any_alignment() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::board::board_ram::BoardRam::<RAM_BITS>::default());
    let mut d = Dut::new("board_ram", &v);
    d.reset();
    let mut rng = Rng::new(77);
    let mut mem = vec![0u8; MEM];
    let half = MEM / 2;
    // Phase 1: DMA writes below half, bus writes and reads above.
    let writes: Vec<(usize, Vec<u8>)> = (0..400)
        .map(|_| {
            let len = 1 + rng.below(600) as usize;
            (rng.below((half - len) as u64) as usize, (0..len).map(|_| rng.next_u64() as u8).collect())
        })
        .collect();
    let (mut cmd_at, mut beat_at, mut data_at) = (0usize, 0usize, 0usize);
    let mut bus = Bus::default();
    let mut bus_done = 0;
    let mut cycles = 0;
    while data_at < writes.len() {
        cycles += 1;
        assert!(cycles < 1_000_000, "DMA writes stuck at {data_at}");
        let offer_cmd = cmd_at < writes.len() && !rng.chance(0.3);
        d.set("s_dma_wr_cmd_valid", offer_cmd as u64);
        if offer_cmd {
            d.set("s_dma_wr_cmd_addr", writes[cmd_at].0 as u64);
            d.set("s_dma_wr_cmd_len", writes[cmd_at].1.len() as u64);
        }
        let bts = (data_at < cmd_at).then(|| beats(&writes[data_at].1));
        let offer_data = bts.is_some() && !rng.chance(0.3);
        d.set("s_dma_wr_tvalid", offer_data as u64);
        if let (true, Some(b)) = (offer_data, &bts) {
            d.set("s_dma_wr_tdata", b[beat_at].0);
            d.set("s_dma_wr_tkeep", b[beat_at].1);
            d.set("s_dma_wr_tlast", b[beat_at].2 as u64);
        }
        if bus.cur.is_none() && rng.chance(0.1) {
            let byte = half + 4 * rng.below((half / 4) as u64) as usize;
            let word = (RAM_BASE as usize + byte) as u32 / 4;
            bus.cur = Some((word, rng.chance(0.5).then(|| rng.next_u64() as u32)));
        }
        bus.drive(&mut d);
        d.sim.eval();
        let cmd_taken = offer_cmd && d.get("s_dma_wr_cmd_ready") == 1;
        let data_taken = offer_data && d.get("s_dma_wr_tready") == 1;
        let finished = bus.done(&mut d);
        d.sim.tick();
        cmd_at += cmd_taken as usize;
        if let (true, Some(b)) = (data_taken, bts) {
            let (addr, bytes) = &writes[data_at];
            let n = (bytes.len() - 8 * beat_at).min(8);
            mem[addr + 8 * beat_at..addr + 8 * beat_at + n].copy_from_slice(&bytes[8 * beat_at..8 * beat_at + n]);
            beat_at += 1;
            if beat_at == b.len() {
                (data_at, beat_at) = (data_at + 1, 0);
            }
        }
        if let Some((word, value, write)) = finished {
            let byte = (word as usize * 4) % MEM;
            if write {
                mem[byte..byte + 4].copy_from_slice(&value.to_le_bytes());
            } else {
                assert_eq!(value, word_of(&mem, byte), "bus read of byte {byte:#x}");
            }
            bus_done += 1;
        }
    }
    assert!(bus_done > 1000, "{bus_done} bus accesses during the DMA writes");
    // Phase 2: DMA reads anywhere, bus reads below half.
    let mut checked = 0;
    for _ in 0..600 {
        let len = 1 + rng.below(700) as usize;
        let addr = rng.below((MEM - len) as u64) as usize;
        let mut got = Vec::new();
        let mut sink_held: Option<(u64, u64, u64)> = None;
        let mut commanded = false;
        loop {
            d.set("s_dma_rd_cmd_valid", !commanded as u64);
            d.set("s_dma_rd_cmd_addr", addr as u64);
            d.set("s_dma_rd_cmd_len", len as u64);
            let ready = !rng.chance(0.3);
            d.set("m_dma_rd_tready", ready as u64);
            if bus.cur.is_none() && rng.chance(0.3) {
                let byte = 4 * rng.below((half / 4) as u64) as usize;
                bus.cur = Some(((RAM_BASE as usize + byte) as u32 / 4, None));
            }
            bus.drive(&mut d);
            d.sim.eval();
            let finished = bus.done(&mut d);
            commanded |= d.get("s_dma_rd_cmd_ready") == 1;
            let beat = (d.get("m_dma_rd_tvalid") == 1)
                .then(|| (d.get("m_dma_rd_tdata"), d.get("m_dma_rd_tkeep"), d.get("m_dma_rd_tlast")));
            d.sim.tick();
            if let Some((word, value, _)) = finished {
                assert_eq!(value, word_of(&mem, (word as usize * 4) % MEM), "bus read of word {word:#x}");
                checked += 1;
            }
            let Some(b) = beat else { continue };
            if let Some(h) = sink_held {
                assert_eq!(h, b, "read beat changed while stalled");
            }
            if !ready {
                sink_held = Some(b);
                continue;
            }
            sink_held = None;
            assert!(b.1 == 0xff || b.2 == 1, "a partial beat only at the end");
            unpack(b.0, b.1, &mut got);
            if b.2 == 1 {
                break;
            }
        }
        assert!(got == mem[addr..addr + len], "DMA read of {len} bytes at {addr:#x}");
    }
    assert!(checked > 1000, "{checked} bus reads checked");
    // Phase 3: a reader that always takes gets a beat every cycle.
    d.set("m_dma_rd_tready", 1);
    d.set("bus_valid", 0);
    for (addr, len) in [(0x40usize, 1024usize), (0x1003, 3000)] {
        let (mut got, mut commanded, mut at) = (Vec::new(), false, Vec::new());
        for cycle in 0..4 * len {
            d.set("s_dma_rd_cmd_valid", !commanded as u64);
            d.set("s_dma_rd_cmd_addr", addr as u64);
            d.set("s_dma_rd_cmd_len", len as u64);
            d.sim.eval();
            commanded |= d.get("s_dma_rd_cmd_ready") == 1;
            let beat = (d.get("m_dma_rd_tvalid") == 1)
                .then(|| (d.get("m_dma_rd_tdata"), d.get("m_dma_rd_tkeep"), d.get("m_dma_rd_tlast")));
            d.sim.tick();
            if let Some(b) = beat {
                unpack(b.0, b.1, &mut got);
                at.push(cycle);
                if b.2 == 1 {
                    break;
                }
            }
        }
        assert!(got == mem[addr..addr + len], "DMA read of {len} bytes at {addr:#x}");
        let span = at.last().expect("beats") + 1 - at[0];
        assert_eq!(span, at.len(), "{} beats over {span} cycles", at.len());
    }
}

/// The host's end of the board's serial line, `TEST_BIT_CYCLES` cycles per
/// bit, 8N1: bytes out on `uart_rx`, bytes decoded from `uart_tx`.
#[derive(Default)]
struct Serial {
    /// Line levels still to drive, one per cycle.
    out: std::collections::VecDeque<bool>,
    /// Receiving: cycles into the character, or None while idle.
    rx_at: Option<u64>,
    rx_byte: u8,
    got: std::collections::VecDeque<u8>,
}

impl Serial {
    fn send(&mut self, bytes: &[u8]) {
        let bc = TEST_BIT_CYCLES as usize;
        for &b in bytes {
            let bits = std::iter::once(false).chain((0..8).map(|i| b >> i & 1 == 1)).chain(std::iter::once(true));
            for bit in bits {
                self.out.extend(std::iter::repeat_n(bit, bc));
            }
        }
    }

    /// One cycle of the line: drive `uart_rx`, sample `uart_tx` (after eval).
    fn drive(&mut self, d: &mut Dut) {
        let level = self.out.pop_front().unwrap_or(true);
        d.set("uart_rx", level as u64);
    }

    fn sample(&mut self, d: &mut Dut) {
        let line = d.get("uart_tx") == 1;
        let bc = TEST_BIT_CYCLES as u64;
        match self.rx_at {
            None if !line => self.rx_at = Some(0),
            None => {}
            Some(t) => {
                let t = t + 1;
                self.rx_at = Some(t);
                // Sample each bit in its middle: bit k at bc/2 + k*bc.
                if t >= bc / 2 && (t - bc / 2) % bc == 0 {
                    let k = (t - bc / 2) / bc;
                    match k {
                        1..=8 => self.rx_byte = self.rx_byte >> 1 | (line as u8) << 7,
                        9 => {
                            assert!(line, "stop bit");
                            self.got.push_back(self.rx_byte);
                            self.rx_at = None;
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

/// The board core with the stand-in engine, its serial line and its MAC
/// side (LiteEth's streams: frames in, frames out).
struct Board {
    d: Dut,
    serial: Serial,
    rng: Rng,
    mac_in: std::collections::VecDeque<Option<(u64, u64, bool, u64)>>,
    tx_ready: f64,
    tx_frames: Vec<Vec<u8>>,
    tx_cur: Vec<u8>,
    tx_first_ok: bool,
}

impl Board {
    fn new() -> Board {
        use ferroce_hdl::board::core::BoardCore;
        let core = BoardCore::<RAM_BITS, STORE_BITS, { STORE_BITS + 1 }>::new(TEST_BIT_CYCLES, TEST_TIMEOUT);
        let mut d = Dut::new("board_core", &ferroce_hdl::emit::verilog(core));
        d.set("uart_rx", 1);
        d.reset();
        Board {
            d,
            serial: Serial::default(),
            rng: Rng::new(3),
            mac_in: Default::default(),
            tx_ready: 0.9,
            tx_frames: Vec::new(),
            tx_cur: Vec::new(),
            tx_first_ok: true,
        }
    }

    /// A frame into the MAC receive side, as LiteEth delivers it at line
    /// rate (1 Gb/s: a 64-bit beat every `BEAT_CYCLES` cycles at the
    /// board's clock; it cannot wait), `last_be` one-hot, `error` set on the last beat for a bad
    /// frame.
    fn receive(&mut self, f: &[u8], bad: bool) {
        for (data, keep, last) in beats(f) {
            let last_be = if last { (keep + 1) >> 1 } else { 0 };
            self.mac_in.push_back(Some((data, last_be, last, if last && bad { 0x80 } else { 0 })));
            self.mac_in.extend(std::iter::repeat_n(None, ferroce_sim::board::BEAT_CYCLES as usize - 1));
        }
    }

    fn cycle(&mut self) {
        let d = &mut self.d;
        self.serial.drive(d);
        let beat = self.mac_in.pop_front().flatten();
        d.set("mac_rx_valid", beat.is_some() as u64);
        if let Some((data, last_be, last, error)) = beat {
            d.set("mac_rx_data", data);
            d.set("mac_rx_last_be", last_be);
            d.set("mac_rx_last", last as u64);
            d.set("mac_rx_error", error);
        }
        let ready = self.rng.chance(self.tx_ready);
        d.set("mac_tx_ready", ready as u64);
        d.sim.eval();
        assert_eq!(d.get("mac_rx_ready"), 1, "the MAC receive side is never held");
        if ready && d.get("mac_tx_valid") == 1 {
            self.tx_first_ok &= (d.get("mac_tx_first") == 1) == self.tx_cur.is_empty();
            let last = d.get("mac_tx_last") == 1;
            let be = d.get("mac_tx_last_be");
            assert_eq!(be.count_ones(), last as u32, "last_be one-hot on the last beat only");
            let keep = if last { (be << 1) - 1 } else { 0xff };
            unpack(d.get("mac_tx_data"), keep, &mut self.tx_cur);
            assert_eq!(d.get("mac_tx_error"), 0);
            if last {
                self.tx_frames.push(std::mem::take(&mut self.tx_cur));
            }
        }
        self.serial.sample(d);
        d.sim.tick();
    }

    /// Bytes answered on the serial line, waiting at most `limit` cycles.
    fn answer(&mut self, n: usize, limit: u64) -> Vec<u8> {
        for _ in 0..limit {
            if self.serial.got.len() >= n && self.serial.out.is_empty() {
                break;
            }
            self.cycle();
        }
        assert_eq!(self.serial.got.len(), n, "bytes answered");
        self.serial.got.drain(..).collect()
    }

    fn command(&mut self, cmd: u8, words: u8, byte_addr: u32, data: &[u32]) {
        let mut b = vec![cmd, words];
        b.extend((byte_addr / 4).to_be_bytes());
        for w in data {
            b.extend(w.to_be_bytes());
        }
        self.serial.send(&b);
    }

    fn write(&mut self, byte_addr: u32, data: &[u32]) {
        self.command(0x01, data.len() as u8, byte_addr, data);
        self.answer(0, 100 * 10 * TEST_BIT_CYCLES as u64 * (6 + 4 * data.len() as u64));
    }

    fn read_with(&mut self, cmd: u8, byte_addr: u32, words: usize) -> Vec<u32> {
        self.command(cmd, words as u8, byte_addr, &[]);
        let limit = 20 * 10 * TEST_BIT_CYCLES as u64 * (6 + 4 * words as u64);
        self.answer(4 * words, limit).chunks(4).map(|c| u32::from_be_bytes(c.try_into().expect("4 bytes"))).collect()
    }

    fn read(&mut self, byte_addr: u32, words: usize) -> Vec<u32> {
        self.read_with(0x02, byte_addr, words)
    }
}

#[test]
fn board_core_answers_uartbone_and_loops_frames() {
    use ferroce_proto::regs::{self, Access, RegFile};
    let mut b = Board::new();
    // Engine registers over UART, as the register map says after reset.
    let model = RegFile::new();
    let n = (0..).take_while(|i| model.read(4 * i).is_ok()).count();
    let first: Vec<u32> = (0..n as u32).map(|i| model.read(4 * i).expect("readable")).collect();
    assert!(n >= 3, "a block header");
    assert_eq!(b.read(0, n), first, "the first {n} registers");
    let (addr, _) =
        regs::stored().into_iter().find(|(_, r)| r.access == Access::Rw && r.range.is_none()).expect("a RW register");
    b.write(addr, &[0x1234_5678]);
    assert_eq!(b.read(addr, 1), vec![0x1234_5678], "register {addr:#x} written over UART");
    // Board memory: an incrementing burst, then a fixed-address read.
    let words: Vec<u32> = (0..40).map(|_| b.rng.next_u64() as u32).collect();
    b.write(RAM_BASE + 0x104, &words);
    assert_eq!(b.read(RAM_BASE + 0x104, 40), words, "board memory burst");
    assert_eq!(b.read_with(0x04, RAM_BASE + 0x108, 3), vec![words[1]; 3], "fixed-address read");
    // A register access the register file refuses is counted.
    assert_eq!(b.read(STATUS_AXIL_ERRORS, 1), vec![0]);
    b.read(regs::REGION_BYTES, 1);
    assert_eq!(b.read(STATUS_AXIL_ERRORS, 1), vec![1], "refused register read counted");
    b.d.set("mac_crc_errors", 0x0bad_f005);
    assert_eq!(b.read(STATUS_CRC_ERRORS, 1), vec![0x0bad_f005], "the MAC's FCS error count");
    assert_eq!(b.read(STATUS_RAM_BYTES, 1), vec![MEM as u32], "bytes of board memory");
    // Frames through the MAC side: the stand-in loops them back whole.
    let mut rng = Rng::new(8);
    let frames = random_frames(&mut rng, 60, 1500);
    for (i, f) in frames.iter().enumerate() {
        b.receive(f, i == 3);
        b.mac_in.extend(std::iter::repeat_n(None, rng.below(50) as usize));
    }
    while !b.mac_in.is_empty() {
        b.cycle();
    }
    for _ in 0..5_000 {
        b.cycle();
    }
    assert!(b.tx_frames == frames, "frames looped back intact, {} of {}", b.tx_frames.len(), frames.len());
    assert!(b.tx_first_ok, "first on each frame's first beat");
    // The MAC's send side held: the receive store fills and drops whole frames.
    b.tx_frames.clear();
    b.tx_ready = 0.0;
    let burst = random_frames(&mut rng, 100, 1500);
    for f in &burst {
        b.receive(f, false);
    }
    while !b.mac_in.is_empty() {
        b.cycle();
    }
    b.tx_ready = 0.9;
    for _ in 0..30_000 {
        b.cycle();
    }
    let mut at = 0;
    for f in &b.tx_frames {
        at += 1 + burst[at..].iter().position(|g| g == f).expect("a looped frame is one received whole");
    }
    let dropped = (burst.len() - b.tx_frames.len()) as u32;
    assert!(dropped > 10, "{dropped} frames dropped");
    assert_eq!(b.read(STATUS_RX_DROPPED, 1), vec![dropped], "drops counted on the bridge");
}
