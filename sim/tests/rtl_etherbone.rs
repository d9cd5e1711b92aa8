//! The board's Etherbone bridge (`hdl/src/board/etherbone.rs`) in
//! Verilator: requests as LiteX's client encodes them
//! (`ferroce_proto::board::etherbone`) arrive as frames on the watched
//! receive stream, beats with random gaps; a bus model answers after
//! random delays; answers leave under random back-pressure. Checked: the
//! bus sees exactly the writes and reads asked for, in order; answers and
//! ARP replies are byte for byte the frames a host expects; everything
//! not for the board is ignored; what cannot be served is counted. The
//! last test's first cycles are replayed into rust-hdl's simulator of the
//! same block, every output compared.

use std::collections::HashMap;

use ferroce_proto::board::etherbone::{self as eb, Reply, BOARD_IP, BOARD_MAC, PORT};
use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{ModelLib, Port, Sim};

ferroce_sim::equivalence_inputs!(etherbone_inputs: ferroce_hdl::board::etherbone::Etherbone;
    reset, mac, ip, rx_tdata, rx_tkeep, rx_tvalid, rx_tlast, rx_tuser, m_tready, bus_ready, bus_rdata);

/// Cycles of the first test replayed into rust-hdl's simulator.
const REPLAYED: u64 = 20_000;

const HOST_MAC: [u8; 6] = [0x02, 0x11, 0x22, 0x33, 0x44, 0x55];
const HOST_IP: [u8; 4] = [192, 168, 1, 100];
const HOST_PORT: u16 = 40_000;

fn wire(bytes: &[u8]) -> u64 {
    bytes.iter().enumerate().fold(0, |a, (i, b)| a | (*b as u64) << (8 * i))
}

struct Bridge {
    s: Sim,
    p: HashMap<&'static str, Port>,
    rng: Rng,
    /// The bus's memory (word address -> word).
    mem: HashMap<u32, u32>,
    /// Every bus access: (write, word address, data written or read).
    log: Vec<(bool, u32, u32)>,
    /// Cycles the bus still waits before answering the access offered.
    bus_wait: Option<u64>,
    /// Frames sent by the block, and the one being received.
    out: Vec<Vec<u8>>,
    cur: Vec<u8>,
    /// Chance per cycle that the output is held.
    hold: f64,
}

const PORTS: [&str; 20] = [
    "reset",
    "mac",
    "ip",
    "rx_tdata",
    "rx_tkeep",
    "rx_tvalid",
    "rx_tlast",
    "rx_tuser",
    "m_tdata",
    "m_tkeep",
    "m_tvalid",
    "m_tready",
    "m_tlast",
    "bus_valid",
    "bus_we",
    "bus_addr",
    "bus_wdata",
    "bus_ready",
    "bus_rdata",
    "dropped",
];

impl Bridge {
    fn new(seed: u64) -> Bridge {
        let lib = ModelLib::of_block("etherbone", || {
            ferroce_hdl::emit::verilog(ferroce_hdl::board::etherbone::Etherbone::default())
        })
        .expect("the etherbone model builds");
        let mut s = Sim::new(&lib);
        s.clock("clock");
        let p: HashMap<&'static str, Port> = PORTS.iter().map(|n| (*n, s.port(n))).collect();
        s.set(p["mac"], wire(&BOARD_MAC));
        s.set(p["ip"], wire(&BOARD_IP));
        s.set(p["reset"], 1);
        s.tick();
        s.set(p["reset"], 0);
        Bridge {
            s,
            p,
            rng: Rng::new(seed),
            mem: HashMap::new(),
            log: Vec::new(),
            bus_wait: None,
            out: Vec::new(),
            cur: Vec::new(),
            hold: 0.3,
        }
    }

    fn dropped(&self) -> u64 {
        self.s.get(self.p["dropped"])
    }

    /// One cycle, offering `beat` (data, keep, last, bad) on the watched stream.
    fn cycle(&mut self, beat: Option<(u64, u64, bool, bool)>) {
        let p = &self.p;
        self.s.set(p["rx_tvalid"], beat.is_some() as u64);
        if let Some((d, k, l, u)) = beat {
            self.s.set(p["rx_tdata"], d);
            self.s.set(p["rx_tkeep"], k);
            self.s.set(p["rx_tlast"], l as u64);
            self.s.set(p["rx_tuser"], u as u64);
        }
        let ready = !self.rng.chance(self.hold);
        self.s.set(p["m_tready"], ready as u64);
        self.s.set(p["bus_ready"], 0);
        self.s.eval();
        if self.s.get(p["bus_valid"]) == 1 {
            let wait = *self.bus_wait.get_or_insert_with(|| self.rng.below(4));
            if wait == 0 {
                let (we, addr) = (self.s.get(p["bus_we"]) == 1, self.s.get(p["bus_addr"]) as u32);
                let data = if we {
                    let d = self.s.get(p["bus_wdata"]) as u32;
                    self.mem.insert(addr, d);
                    d
                } else {
                    let d = self.mem.get(&addr).copied().unwrap_or(addr ^ 0x5a5a_0000);
                    self.s.set(p["bus_rdata"], d as u64);
                    d
                };
                self.log.push((we, addr, data));
                self.s.set(p["bus_ready"], 1);
                self.s.eval();
                self.bus_wait = None;
            } else {
                self.bus_wait = Some(wait - 1);
            }
        } else {
            assert!(self.bus_wait.is_none(), "bus_valid dropped before bus_ready");
        }
        if ready && self.s.get(p["m_tvalid"]) == 1 {
            let (d, k) = (self.s.get(p["m_tdata"]), self.s.get(p["m_tkeep"]));
            let last = self.s.get(p["m_tlast"]) == 1;
            let n = if last { 64 - (k as u64).leading_zeros() as usize } else { 8 };
            assert_eq!(k, if n == 8 { 0xff } else { (1 << n) - 1 }, "contiguous keep");
            self.cur.extend((0..n).map(|i| (d >> (8 * i)) as u8));
            if last {
                self.out.push(std::mem::take(&mut self.cur));
            }
        }
        self.s.tick();
    }

    /// Send `frame` (no FCS) beat by beat with random gaps, bad if `bad`.
    fn send(&mut self, frame: &[u8], bad: bool) {
        let n = frame.len().div_ceil(8);
        for (i, c) in frame.chunks(8).enumerate() {
            while self.rng.chance(0.5) {
                self.cycle(None);
            }
            let last = i + 1 == n;
            self.cycle(Some((wire(c), (1u64 << c.len()) - 1, last, last && bad)));
        }
    }

    /// Send `frame` (no FCS) as a MAC at 1 Gb/s delivers it to a system
    /// clock of `beat` cycles per 64-bit beat: a beat every `beat` cycles,
    /// then the preamble, FCS and gap (three beats' time).
    fn send_at_line_rate(&mut self, frame: &[u8], beat: usize) {
        let n = frame.len().div_ceil(8);
        for (i, c) in frame.chunks(8).enumerate() {
            self.cycle(Some((wire(c), (1u64 << c.len()) - 1, i + 1 == n, false)));
            (1..beat).for_each(|_| self.cycle(None));
        }
        (0..3 * beat).for_each(|_| self.cycle(None));
    }

    /// Run until nothing has happened for a while.
    fn settle(&mut self) {
        let mut quiet = 0;
        while quiet < 3000 {
            let before = (self.log.len(), self.out.len(), self.cur.len());
            self.cycle(None);
            quiet = if (self.log.len(), self.out.len(), self.cur.len()) == before { quiet + 1 } else { 0 };
        }
    }

    /// A request from the host, padded to 60 bytes as a MAC sends it.
    fn request(&mut self, payload: &[u8]) {
        let mut f = eb::udp_frame((HOST_MAC, HOST_IP, HOST_PORT), (BOARD_MAC, BOARD_IP, PORT), payload);
        f.resize(f.len().max(60), 0);
        self.send(&f, false);
    }
}

/// The answer frame a host expects for `payload`.
fn answer(payload: &[u8]) -> Vec<u8> {
    eb::udp_frame((BOARD_MAC, BOARD_IP, PORT), (HOST_MAC, HOST_IP, HOST_PORT), payload)
}

fn read_answer(base_ret: u32, words: &[u32]) -> Vec<u8> {
    let mut b = vec![0x4e, 0x6f, 0x10, 0x44, 0, 0, 0, 0, 0, 0x0f, words.len() as u8, 0];
    b.extend(base_ret.to_be_bytes());
    words.iter().for_each(|w| b.extend(w.to_be_bytes()));
    b
}

#[test]
fn probes_writes_and_reads_are_served_as_litexs_client_expects() {
    let mut b = Bridge::new(1);

    // A probe: the header back with `pr`.
    b.request(&eb::probe());
    b.settle();
    assert_eq!(b.out, vec![answer(&[0x4e, 0x6f, 0x12, 0x44, 0, 0, 0, 0])]);
    assert_eq!(eb::parse_reply(eb::parse_udp_frame(&b.out[0]).expect("a UDP frame").2), Ok(Reply::Probe));
    assert!(b.log.is_empty());
    b.out.clear();

    // Writes of every length class, then reads of them back.
    let mut rng = Rng::new(7);
    for (round, n) in [1usize, 2, 3, 17, 254, 255].into_iter().enumerate() {
        let base = 0x1000_0000 + 4 * rng.below(1 << 12) as u32;
        let data: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        b.request(&eb::writes(base, &data));
        b.settle();
        assert!(b.out.is_empty(), "writes are not answered");
        let want: Vec<(bool, u32, u32)> =
            data.iter().enumerate().map(|(i, d)| (true, base / 4 + i as u32, *d)).collect();
        assert_eq!(b.log, want, "round {round}: {n} writes");
        b.log.clear();

        let addrs: Vec<u32> = (0..n).map(|i| base + 4 * i as u32).rev().collect();
        b.request(&eb::reads(round as u32 + 1, &addrs));
        b.settle();
        let back: Vec<u32> = data.iter().rev().copied().collect();
        assert_eq!(b.out, vec![answer(&read_answer(round as u32 + 1, &back))], "round {round}: {n} reads");
        let reads: Vec<(bool, u32, u32)> = addrs.iter().zip(&back).map(|(a, d)| (false, a / 4, *d)).collect();
        assert_eq!(b.log, reads);
        b.out.clear();
        b.log.clear();
    }
    assert_eq!(b.dropped(), 0);
}

/// LiteX's client sends a write and does not wait (writes are not
/// answered), so a read can follow it on the wire at once: both are
/// served, at the line rate of a 1 Gb/s port on the Colorlight's 50 MHz
/// system clock (a beat every 3.2 cycles, taken as 3).
#[test]
fn a_read_right_behind_a_write_is_served() {
    let mut b = Bridge::new(5);
    for n in [1usize, 2, 8] {
        let pad = |p: Vec<u8>| {
            let mut f = eb::udp_frame((HOST_MAC, HOST_IP, HOST_PORT), (BOARD_MAC, BOARD_IP, PORT), &p);
            f.resize(f.len().max(60), 0);
            f
        };
        let data: Vec<u32> = (0..n as u32).map(|i| 0x0123_4567 ^ (i << 24) ^ n as u32).collect();
        let w = pad(eb::writes(0x40, &data));
        let addrs: Vec<u32> = (0..n as u32).map(|i| 0x40 + 4 * i).collect();
        let r = pad(eb::reads(77, &addrs));
        b.send_at_line_rate(&w, 3);
        b.send_at_line_rate(&r, 3);
        b.settle();
        assert_eq!(b.dropped(), 0, "{n} words: the read was dropped");
        assert_eq!(b.out, vec![answer(&read_answer(77, &data))], "{n} words");
        b.out.clear();
    }
}

#[test]
fn records_combine_and_fixed_address_writes_stay_put() {
    let mut b = Bridge::new(2);
    // One packet: a record writing 3 words to one address (wff) and reading
    // 2; a record reading 1; an empty record; a record writing 2.
    let mut p = vec![0x4e, 0x6f, 0x10, 0x44, 0, 0, 0, 0];
    p.extend([eb::WFF, 0x0f, 3, 2]);
    p.extend(0x40u32.to_be_bytes());
    p.extend([1u32, 2, 3].iter().flat_map(|w| w.to_be_bytes()));
    p.extend(0xaau32.to_be_bytes());
    p.extend([0x40u32, 0x44].iter().flat_map(|w| w.to_be_bytes()));
    p.extend([0, 0x0f, 0, 1]);
    p.extend(0xbbu32.to_be_bytes());
    p.extend(0x80u32.to_be_bytes());
    p.extend([0, 0, 0, 0]);
    p.extend([0, 0x0f, 2, 0]);
    p.extend(0x100u32.to_be_bytes());
    p.extend([7u32, 8].iter().flat_map(|w| w.to_be_bytes()));
    b.mem.insert(0x44 / 4, 0x4444);
    b.mem.insert(0x80 / 4, 0x8080);
    b.request(&p);
    b.settle();
    assert_eq!(
        b.log,
        vec![
            (true, 0x10, 1),
            (true, 0x10, 2),
            (true, 0x10, 3),
            (false, 0x10, 3),
            (false, 0x11, 0x4444),
            (false, 0x20, 0x8080),
            (true, 0x40, 7),
            (true, 0x41, 8),
        ]
    );
    let mut want = vec![0x4e, 0x6f, 0x10, 0x44, 0, 0, 0, 0];
    want.extend([0, 0x0f, 2, 0]);
    want.extend([0xaau32, 3, 0x4444].iter().flat_map(|w| w.to_be_bytes()));
    want.extend([0, 0x0f, 1, 0]);
    want.extend([0xbbu32, 0x8080].iter().flat_map(|w| w.to_be_bytes()));
    assert_eq!(b.out, vec![answer(&want)]);
    assert_eq!(
        eb::parse_reply(&want),
        Ok(Reply::Reads(vec![(0xaa, vec![3, 0x4444]), (0xbb, vec![0x8080])])),
        "the answer parses as the driver reads it"
    );
    assert_eq!(b.dropped(), 0);
}

#[test]
fn arp_requests_for_the_board_are_answered_and_other_frames_ignored() {
    let mut b = Bridge::new(3);
    let mut arp = eb::arp_request(HOST_MAC, HOST_IP, BOARD_IP);
    arp.resize(60, 0);
    b.send(&arp, false);
    b.settle();
    assert_eq!(b.out, vec![eb::arp_reply(HOST_MAC, HOST_IP, BOARD_MAC, BOARD_IP)]);
    b.out.clear();

    // Not for the board: another IP in ARP; Etherbone to another MAC, IP or
    // port; a bad frame; an IPv4 fragment; a ferroce frame.
    let mut other = eb::arp_request(HOST_MAC, HOST_IP, [192, 168, 1, 51]);
    other.resize(60, 0);
    b.send(&other, false);
    b.send(&arp, true);
    let to = |mac, ip, port| {
        let mut f = eb::udp_frame((HOST_MAC, HOST_IP, HOST_PORT), (mac, ip, port), &eb::probe());
        f.resize(60, 0);
        f
    };
    b.send(&to([0x10, 0xe2, 0xd5, 0, 0, 1], BOARD_IP, PORT), false);
    b.send(&to(BOARD_MAC, [192, 168, 1, 51], PORT), false);
    b.send(&to(BOARD_MAC, BOARD_IP, PORT + 1), false);
    let mut frag = to(BOARD_MAC, BOARD_IP, PORT);
    frag[20] |= 0x20;
    b.send(&frag, false);
    b.send(&to(BOARD_MAC, BOARD_IP, ferroce_proto::wire::FERROCE_PORT), false);
    b.settle();
    assert!(b.out.is_empty() && b.log.is_empty(), "{:?} {:?}", b.out, b.log);
    assert_eq!(b.dropped(), 0, "none of them was an Etherbone request for the board");
}

#[test]
fn what_cannot_be_served_is_counted_and_not_answered() {
    ferroce_sim::verilator::record_next("etherbone", REPLAYED);
    let mut b = Bridge::new(4);
    // A bad frame, a datagram longer than its frame, a payload not in whole
    // words, a bad magic: dropped, counted, nothing on the bus.
    let mut f = eb::udp_frame((HOST_MAC, HOST_IP, HOST_PORT), (BOARD_MAC, BOARD_IP, PORT), &eb::reads(1, &[4]));
    b.send(&f, true);
    let n = f.len();
    f[38..40].copy_from_slice(&((n - 34 + 8) as u16).to_be_bytes());
    b.send(&f, false);
    b.request(&[0x4e, 0x6f, 0x10, 0x44, 0, 0, 0, 0, 0, 0x0f, 0, 1, 0, 0, 0, 1, 0, 0, 0, 4, 9, 9]);
    let mut bad = eb::reads(1, &[4]);
    bad[1] = 0x70;
    b.request(&bad);
    b.settle();
    assert!(b.out.is_empty() && b.log.is_empty(), "{:?} {:?}", b.out, b.log);
    assert_eq!(b.dropped(), 4);

    // A record claiming more words than the packet has: the record before
    // it is done, then the packet is dropped there, unanswered.
    let mut p = eb::writes(0x10, &[5]);
    p.extend([0, 0x0f, 0, 3]);
    p.extend(9u32.to_be_bytes());
    p.extend(0x20u32.to_be_bytes());
    b.request(&p);
    b.settle();
    assert_eq!(b.log, vec![(true, 4, 5)]);
    assert!(b.out.is_empty());
    assert_eq!(b.dropped(), 5);
    b.log.clear();

    // A request arriving while one is served waits and is served after it;
    // one more arriving while that one waits is dropped and counted.
    b.hold = 0.9;
    let word = |b: &Bridge, a: u32| b.mem.get(&(a / 4)).copied().unwrap_or((a / 4) ^ 0x5a5a_0000);
    let addrs: Vec<u32> = (0..200).map(|i| 4 * i).collect();
    b.request(&eb::reads(3, &addrs));
    b.request(&eb::probe());
    b.request(&eb::probe());
    b.settle();
    let want: Vec<u32> = addrs.iter().map(|a| word(&b, *a)).collect();
    assert_eq!(b.out, vec![answer(&read_answer(3, &want)), answer(&[0x4e, 0x6f, 0x12, 0x44, 0, 0, 0, 0])]);
    assert_eq!(b.log.len(), 200);
    assert_eq!(b.dropped(), 6);
    b.out.clear();
    b.log.clear();

    // Two requests of 255 reads (130 RAM words each) do not fit the ring
    // together: the second is dropped, the first answered whole.
    let addrs: Vec<u32> = (0..255).map(|i| 0x400 + 4 * i).collect();
    b.request(&eb::reads(4, &addrs));
    b.request(&eb::reads(5, &addrs));
    b.settle();
    let want: Vec<u32> = addrs.iter().map(|a| word(&b, *a)).collect();
    assert_eq!(b.out, vec![answer(&read_answer(4, &want))]);
    assert_eq!(b.log.len(), 255);
    assert_eq!(b.dropped(), 7);
    // And after it, the bridge serves again.
    b.out.clear();
    b.request(&eb::probe());
    b.settle();
    assert_eq!(b.out, vec![answer(&[0x4e, 0x6f, 0x12, 0x44, 0, 0, 0, 0])]);
    drop(b);
    let rec = ferroce_sim::verilator::take_recording("etherbone").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<etherbone_inputs>("etherbone", &rec, &[]);
}
