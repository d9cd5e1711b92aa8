//! The Corundum adapter blocks (`hdl/src/corundum/`) in Verilator against
//! models of what Corundum puts around them: its DMA engine (descriptors
//! taken with random stalls, each operation ending after a random delay and
//! out of order, some with an error code), the application's staging RAMs,
//! and `dma_client_axis_source`/`_sink` streaming them out and in with
//! random stalls. The engine's side is driven as the engine drives it
//! (reads back in command order, each write's bytes after its command).
//!
//! The models touch the staging RAM late (the DMA engine writes a read's
//! bytes into it just before its status, reads a write's bytes just before
//! its status), so two operations given overlapping regions would corrupt
//! each other's bytes, and every byte is compared.

use std::collections::{HashMap, VecDeque};

use ferroce_hdl::corundum::stage_ring::{ALIGN, STAGE_BITS};
use ferroce_hdl::corundum::SLOTS;
use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{ModelLib, Port, Sim};

const STAGE: usize = 1 << STAGE_BITS;
const HOST: usize = 1 << 20;

struct Dut {
    sim: Sim,
    ports: HashMap<String, Port>,
}

impl Dut {
    fn new(name: &str, verilog: &str) -> Dut {
        let lib = ModelLib::build(name, verilog).expect("model builds");
        let mut sim = Sim::new(&lib);
        sim.clock("clock");
        let mut d = Dut { sim, ports: HashMap::new() };
        d.set("reset", 1);
        d.sim.tick();
        d.set("reset", 0);
        d
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
}

fn pack(b: &[u8]) -> u64 {
    b.iter().enumerate().fold(0u64, |a, (i, x)| a | (*x as u64) << (8 * i))
}

/// A random length: mostly short, some MTU-sized, a few large.
fn random_len(rng: &mut Rng) -> usize {
    match rng.below(10) {
        0 => 4096 + rng.below(20_000) as usize,
        1..=3 => 1000 + rng.below(9000) as usize,
        _ => 1 + rng.below(300) as usize,
    }
}

/// A region handed to Corundum must be aligned and inside the RAM.
fn check_region(ram_addr: u64, len: u64) {
    assert_eq!(ram_addr % ALIGN, 0, "region at {ram_addr:#x} is not aligned");
    assert!(ram_addr as usize + len as usize <= STAGE, "region {ram_addr:#x}+{len} leaves the RAM");
}

/// One DMA operation in Corundum's engine: (due cycle, tag, dma addr, ram addr, len, error).
type Op = (u64, u64, u64, u64, u64, u64);

/// Takes the due operation with the earliest due cycle, if any (so
/// operations end out of order).
fn due(ops: &mut Vec<Op>, now: u64) -> Option<Op> {
    let i = ops.iter().enumerate().filter(|(_, o)| o.0 <= now).min_by_key(|(_, o)| o.0).map(|(i, _)| i)?;
    Some(ops.swap_remove(i))
}

#[test]
fn reads_come_back_in_command_order_through_the_staging_ram() {
    let mut d = Dut::new("dma_read", &ferroce_hdl::emit::verilog(ferroce_hdl::corundum::dma_read::DmaRead::default()));
    let mut rng = Rng::new(41);
    let host: Vec<u8> = (0..HOST).map(|_| rng.next_u64() as u8).collect();
    let mut ram = vec![0u8; STAGE];
    let cmds: Vec<(u64, u64)> = (0..600)
        .map(|_| {
            let len = random_len(&mut rng) as u64;
            (rng.below((HOST - len as usize) as u64), len)
        })
        .collect();
    let (mut next_cmd, mut got, mut cur) = (0, 0, Vec::new());
    let mut ops: Vec<Op> = Vec::new();
    // The source: the descriptor it is streaming and how far it is.
    let mut src: VecDeque<(u64, u64)> = VecDeque::new();
    let mut src_at = 0u64;
    let (mut injected, mut max_in_flight) = (0u64, 0usize);
    let mut now = 0u64;
    while got < cmds.len() {
        now += 1;
        assert!(now < 5_000_000, "stuck after {got} reads");
        // Engine: offer the next command at random.
        let offer = next_cmd < cmds.len() && !rng.chance(0.3);
        d.set("s_cmd_valid", offer as u64);
        if offer {
            d.set("s_cmd_addr", cmds[next_cmd].0);
            d.set("s_cmd_len", cmds[next_cmd].1);
        }
        let desc_ready = !rng.chance(0.3);
        d.set("m_desc_ready", desc_ready as u64);
        // Corundum's DMA: one status per cycle for an operation that is due.
        let status = due(&mut ops, now);
        d.set("s_status_valid", status.is_some() as u64);
        if let Some((_, tag, dma, ram_addr, len, err)) = status {
            let (a, r, n) = (dma as usize, ram_addr as usize, len as usize);
            ram[r..r + n].copy_from_slice(&host[a..a + n]);
            d.set("s_status_tag", tag);
            d.set("s_status_error", err);
        }
        let src_ready = !rng.chance(0.3);
        d.set("m_src_ready", src_ready as u64);
        // The source streams its oldest descriptor, 8 bytes a beat, with stalls.
        let beat = src.front().copied().filter(|_| !rng.chance(0.2)).map(|(r, n)| {
            let k = (n - src_at).min(8);
            let s = (r + src_at) as usize;
            (pack(&ram[s..s + k as usize]), k, src_at + k == n)
        });
        let engine_ready = !rng.chance(0.3);
        d.sim.eval();
        if offer && d.get("s_cmd_ready") == 1 {
            next_cmd += 1;
        }
        max_in_flight = max_in_flight.max(ops.len());
        if d.get("m_desc_valid") == 1 && desc_ready {
            let (ram_addr, len) = (d.get("m_desc_ram_addr"), d.get("m_desc_len"));
            check_region(ram_addr, len);
            let err = if rng.chance(0.02) { 1 + rng.below(15) } else { 0 };
            injected += (err != 0) as u64;
            ops.push((now + 5 + rng.below(300), d.get("m_desc_tag"), d.get("m_desc_dma_addr"), ram_addr, len, err));
        }
        if d.get("m_src_valid") == 1 && src_ready {
            src.push_back((d.get("m_src_ram_addr"), d.get("m_src_len")));
        }
        // The source's stream goes to the engine (checked here, as the engine would take it).
        let mut src_status = false;
        if let Some((data, k, last)) = beat {
            if engine_ready {
                cur.extend_from_slice(&data.to_le_bytes()[..k as usize]);
                src_at += k;
                if last {
                    let (a, n) = cmds[got];
                    assert_eq!(cur.len() as u64, n, "read {got}: length");
                    assert!(cur == host[a as usize..(a + n) as usize], "read {got}: bytes differ");
                    cur.clear();
                    got += 1;
                    src.pop_front();
                    src_at = 0;
                    src_status = true;
                }
            }
        }
        d.sim.tick();
        // The source reports the descriptor it has finished (the next cycle).
        d.set("s_src_status_valid", src_status as u64);
    }
    d.set("s_src_status_valid", 0);
    d.sim.eval();
    assert_eq!(d.get("errors"), injected, "reads that ended with an error are counted");
    assert!(injected > 0, "the test injected errors");
    assert!(max_in_flight >= SLOTS / 2, "reads overlapped in Corundum's DMA ({max_in_flight} at most)");
}

#[test]
fn writes_land_in_command_order_through_the_staging_ram() {
    let mut d =
        Dut::new("dma_write", &ferroce_hdl::emit::verilog(ferroce_hdl::corundum::dma_write::DmaWrite::default()));
    let mut rng = Rng::new(43);
    let mut host = vec![0u8; HOST];
    let mut ram = vec![0u8; STAGE];
    // Writes to disjoint host ranges, each with its own bytes.
    let mut cmds: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut at = 0u64;
    while cmds.len() < 600 {
        let len = random_len(&mut rng);
        if at as usize + len > HOST {
            break;
        }
        cmds.push((at, (0..len).map(|_| rng.next_u64() as u8).collect()));
        at += len as u64 + rng.below(64);
    }
    let (mut next_cmd, mut sent, mut in_data) = (0, 0usize, false);
    // The sink: descriptors taken, bytes written, statuses due.
    let mut sink: VecDeque<(u64, u64)> = VecDeque::new();
    let mut sink_at = 0u64;
    let mut sink_done: VecDeque<u64> = VecDeque::new();
    let mut ops: Vec<Op> = Vec::new();
    let mut issued: Vec<u64> = Vec::new();
    let (mut finished, mut injected) = (0usize, 0u64);
    let mut now = 0u64;
    while finished < cmds.len() {
        now += 1;
        assert!(now < 5_000_000, "stuck after {finished} writes");
        // Engine: a command, then its bytes (as the engine: one write at a time).
        let offer_cmd = !in_data && next_cmd < cmds.len() && !rng.chance(0.3);
        d.set("s_cmd_valid", offer_cmd as u64);
        if offer_cmd {
            d.set("s_cmd_addr", cmds[next_cmd].0);
            d.set("s_cmd_len", cmds[next_cmd].1.len() as u64);
        }
        let offer_data = in_data && !rng.chance(0.2);
        d.set("s_tvalid", offer_data as u64);
        if offer_data {
            let data = &cmds[next_cmd - 1].1;
            let k = (data.len() - sent).min(8);
            d.set("s_tdata", pack(&data[sent..sent + k]));
            d.set("s_tkeep", (1u64 << k) - 1);
            d.set("s_tlast", (sent + k == data.len()) as u64);
        }
        let sink_ready = !rng.chance(0.3);
        d.set("m_sink_ready", sink_ready as u64);
        let sink_tready = !sink.is_empty() && !rng.chance(0.3);
        d.set("m_sink_tready", sink_tready as u64);
        let sink_status = sink_done.front().is_some_and(|&t| t <= now);
        if sink_status {
            sink_done.pop_front();
        }
        d.set("s_sink_status_valid", sink_status as u64);
        let desc_ready = !rng.chance(0.3);
        d.set("m_desc_ready", desc_ready as u64);
        let status = due(&mut ops, now);
        d.set("s_status_valid", status.is_some() as u64);
        if let Some((_, tag, dma, ram_addr, len, err)) = status {
            let (a, r, n) = (dma as usize, ram_addr as usize, len as usize);
            host[a..a + n].copy_from_slice(&ram[r..r + n]);
            d.set("s_status_tag", tag);
            d.set("s_status_error", err);
            finished += 1;
        }
        d.sim.eval();
        if offer_cmd && d.get("s_cmd_ready") == 1 {
            next_cmd += 1;
            in_data = true;
            sent = 0;
        }
        if d.get("m_sink_valid") == 1 && sink_ready {
            let (ram_addr, len) = (d.get("m_sink_ram_addr"), d.get("m_sink_len"));
            check_region(ram_addr, len);
            sink.push_back((ram_addr, len));
        }
        if offer_data {
            assert_eq!(d.get("m_sink_tvalid"), 1, "the engine's bytes go straight to the sink");
            if sink_tready {
                assert_eq!(d.get("s_tready"), 1);
                let (r, n) = *sink.front().expect("a sink descriptor");
                let (data, keep) = (d.get("m_sink_tdata"), d.get("m_sink_tkeep"));
                let k = keep.count_ones() as u64;
                let s = (r + sink_at) as usize;
                ram[s..s + k as usize].copy_from_slice(&data.to_le_bytes()[..k as usize]);
                sink_at += k;
                sent += k as usize;
                if d.get("m_sink_tlast") == 1 {
                    assert_eq!(sink_at, n, "the sink got its descriptor's length");
                    sink.pop_front();
                    sink_at = 0;
                    in_data = false;
                    sink_done.push_back(now + 1 + rng.below(20));
                }
            }
        }
        if d.get("m_desc_valid") == 1 && desc_ready {
            let (ram_addr, len) = (d.get("m_desc_ram_addr"), d.get("m_desc_len"));
            check_region(ram_addr, len);
            let dma = d.get("m_desc_dma_addr");
            issued.push(dma);
            let err = if rng.chance(0.02) { 1 + rng.below(15) } else { 0 };
            injected += (err != 0) as u64;
            ops.push((now + 5 + rng.below(300), d.get("m_desc_tag"), dma, ram_addr, len, err));
        }
        d.sim.tick();
    }
    d.set("s_status_valid", 0);
    d.sim.eval();
    let order: Vec<u64> = cmds.iter().map(|c| c.0).collect();
    assert_eq!(issued, order, "write descriptors go out in command order");
    for (i, (a, data)) in cmds.iter().enumerate() {
        assert!(host[*a as usize..*a as usize + data.len()] == data[..], "write {i}: bytes in host memory differ");
    }
    assert_eq!(d.get("errors"), injected, "writes that ended with an error are counted");
    assert!(injected > 0, "the test injected errors");
}

/// ferroce's UDP port in the tap tests (not the default: the tap must use
/// `cfg_port`).
const PORT: u16 = 4242;

/// A frame of kind `k`: 0 ferroce's (IPv4, UDP to `PORT`), 1 UDP to another
/// port, 2 IPv4 with options and UDP to `PORT`, 3 not IPv4, 4 shorter
/// than the held head; random payload.
fn tap_frame(rng: &mut Rng, k: u64) -> Vec<u8> {
    let mut f = vec![0u8; 14 + 20 + 8];
    f[..12].iter_mut().for_each(|b| *b = rng.next_u64() as u8);
    f[12..14].copy_from_slice(&[0x08, 0x00]);
    f[14] = 0x45;
    f[23] = 17;
    f[36..38].copy_from_slice(&PORT.to_be_bytes());
    match k {
        1 => f[36..38].copy_from_slice(&(PORT + 1 + rng.below(100) as u16).to_be_bytes()),
        2 => f[14] = 0x46,
        3 => f[12..14].copy_from_slice(&[0x86, 0xdd]),
        4 => f.truncate(14 + rng.below(20) as usize),
        _ => {}
    }
    if k != 4 {
        f.extend((0..rng.below(1500)).map(|_| rng.next_u64() as u8));
    }
    f
}

/// Beats of a frame: (data, keep, last).
fn beats(f: &[u8]) -> Vec<(u64, u64, bool)> {
    let n = f.len().div_ceil(8);
    f.chunks(8).enumerate().map(|(i, c)| (pack(c), (1u64 << c.len()) - 1, i + 1 == n)).collect()
}

/// A stream's receiver with random `tready` and a protocol check: a beat
/// offered and not taken stays the same until taken.
#[derive(Default)]
struct Taker {
    frames: Vec<(Vec<u8>, Vec<u32>)>,
    cur: Vec<u8>,
    held: Option<(u64, u64, u64, Vec<u32>)>,
}

impl Taker {
    fn watch(&mut self, d: &mut Dut, prefix: &str, ready: bool, user: bool) {
        if d.get(&format!("{prefix}tvalid")) != 1 {
            assert!(self.held.is_none(), "{prefix}tvalid dropped while stalled");
            return;
        }
        let u = if user {
            let p = d.p(&format!("{prefix}tuser"));
            d.sim.get_words(p)
        } else {
            Vec::new()
        };
        let beat =
            (d.get(&format!("{prefix}tdata")), d.get(&format!("{prefix}tkeep")), d.get(&format!("{prefix}tlast")), u);
        if let Some(h) = &self.held {
            assert_eq!(*h, beat, "{prefix} beat changed while stalled");
        }
        if !ready {
            self.held = Some(beat);
            return;
        }
        self.held = None;
        let k = beat.1.count_ones() as usize;
        assert_eq!(beat.1, (1u64 << k) - 1, "{prefix}tkeep is contiguous from lane 0");
        self.cur.extend_from_slice(&beat.0.to_le_bytes()[..k]);
        if beat.2 == 1 {
            self.frames.push((std::mem::take(&mut self.cur), beat.3));
        }
    }
}

#[test]
fn tap_sends_ferroce_frames_to_the_engine_and_passes_the_rest() {
    let mut d = Dut::new("mac_tap", &ferroce_hdl::emit::verilog(ferroce_hdl::corundum::mac_tap::MacTap::default()));
    let mut rng = Rng::new(47);
    d.set("cfg_port", PORT as u64);
    let frames: Vec<(Vec<u8>, u64)> = (0..800)
        .map(|i| {
            let k = rng.below(5);
            (tap_frame(&mut rng, k), if i % 7 == 0 { 0x1_0000_0001 + i as u64 } else { i as u64 * 2 })
        })
        .collect();
    let all: Vec<(u64, u64, bool, u64)> =
        frames.iter().flat_map(|(f, u)| beats(f).into_iter().map(move |(a, b, c)| (a, b, c, *u))).collect();
    let (mut engine, mut nic) = (Taker::default(), Taker::default());
    let (mut at, mut now, mut offered) = (0, 0u64, false);
    let want_engine: Vec<&Vec<u8>> = frames.iter().filter(|(f, _)| is_ferroce(f)).map(|(f, _)| f).collect();
    while engine.frames.len() + nic.frames.len() < frames.len() {
        now += 1;
        assert!(now < 2_000_000, "stuck");
        // A beat offered stays offered until taken.
        let offer = at < all.len() && (offered || !rng.chance(0.2));
        offered = offer;
        d.set("s_rx_tvalid", offer as u64);
        if offer {
            let (data, keep, last, user) = all[at];
            d.set("s_rx_tdata", data);
            d.set("s_rx_tkeep", keep);
            d.set("s_rx_tlast", last as u64);
            let p = d.p("s_rx_tuser");
            d.sim.set_words(p, &[user as u32, (user >> 32) as u32, 0, 1]);
        }
        let (er, nr) = (!rng.chance(0.3), !rng.chance(0.3));
        d.set("m_eng_tready", er as u64);
        d.set("m_rx_tready", nr as u64);
        d.sim.eval();
        if offer && d.get("s_rx_tready") == 1 {
            at += 1;
            offered = false;
        }
        engine.watch(&mut d, "m_eng_", er, true);
        nic.watch(&mut d, "m_rx_", nr, true);
        d.sim.tick();
    }
    let got_engine: Vec<&Vec<u8>> = engine.frames.iter().map(|(f, _)| f).collect();
    assert_eq!(got_engine, want_engine, "the engine gets exactly ferroce's frames, in order");
    let want_nic: Vec<(&Vec<u8>, u64)> = frames.iter().filter(|(f, _)| !is_ferroce(f)).map(|(f, u)| (f, *u)).collect();
    assert_eq!(nic.frames.len(), want_nic.len());
    for ((f, u), (w, wu)) in nic.frames.iter().zip(&want_nic) {
        assert_eq!(f, *w, "the NIC gets the other frames unchanged, in order");
        assert_eq!(u[..], [*wu as u32, (*wu >> 32) as u32, 0, 1], "with their tuser (all 97 bits)");
    }
    d.sim.eval();
    assert_eq!(d.get("eng_rx_frames"), want_engine.len() as u64);
    assert!(want_engine.len() > 100 && want_nic.len() > 400);
}

/// ferroce's by the tap's rule.
fn is_ferroce(f: &[u8]) -> bool {
    f.len() >= 40 && f[12..14] == [8, 0] && f[14] == 0x45 && f[23] == 17 && f[36..38] == PORT.to_be_bytes()
}

#[test]
fn tap_merges_whole_frames_from_the_nic_and_the_engine() {
    let mut d = Dut::new("mac_tap", &ferroce_hdl::emit::verilog(ferroce_hdl::corundum::mac_tap::MacTap::default()));
    let mut rng = Rng::new(53);
    let nic: Vec<Vec<u8>> = (0..300).map(|_| tap_frame(&mut rng, 1)).collect();
    let eng: Vec<Vec<u8>> = (0..300).map(|_| tap_frame(&mut rng, 0)).collect();
    let nic_beats: Vec<(u64, u64, bool, u64)> = nic
        .iter()
        .enumerate()
        .flat_map(|(i, f)| beats(f).into_iter().map(move |(a, b, c)| (a, b, c, (i as u64) << 1 | 0x1_0000)))
        .collect();
    let eng_beats: Vec<(u64, u64, bool)> = eng.iter().flat_map(|f| beats(f)).collect();
    let mut out = Taker::default();
    let (mut a, mut b, mut now) = (0, 0, 0u64);
    let (mut nic_offered, mut eng_offered) = (false, false);
    while out.frames.len() < nic.len() + eng.len() {
        now += 1;
        assert!(now < 2_000_000, "stuck");
        let offer_nic = a < nic_beats.len() && (nic_offered || !rng.chance(0.2));
        nic_offered = offer_nic;
        d.set("s_tx_tvalid", offer_nic as u64);
        if offer_nic {
            let (x, k, l, u) = nic_beats[a];
            d.set("s_tx_tdata", x);
            d.set("s_tx_tkeep", k);
            d.set("s_tx_tlast", l as u64);
            d.set("s_tx_tuser", u);
        }
        let offer_eng = b < eng_beats.len() && (eng_offered || !rng.chance(0.2));
        eng_offered = offer_eng;
        d.set("s_eng_tvalid", offer_eng as u64);
        if offer_eng {
            let (x, k, l) = eng_beats[b];
            d.set("s_eng_tdata", x);
            d.set("s_eng_tkeep", k);
            d.set("s_eng_tlast", l as u64);
        }
        let ready = !rng.chance(0.3);
        d.set("m_tx_tready", ready as u64);
        d.sim.eval();
        if offer_nic && d.get("s_tx_tready") == 1 {
            a += 1;
            nic_offered = false;
        }
        if offer_eng && d.get("s_eng_tready") == 1 {
            b += 1;
            eng_offered = false;
        }
        out.watch(&mut d, "m_tx_", ready, true);
        d.sim.tick();
    }
    // Each frame whole, each source's in order; the engine's with tuser 0.
    let (mut i, mut j) = (0, 0);
    for (f, u) in &out.frames {
        if i < nic.len() && *f == nic[i] {
            assert_eq!(u[0] as u64, (i as u64) << 1 | 0x1_0000, "the NIC's tuser is kept");
            i += 1;
        } else {
            assert_eq!(*f, eng[j], "frames are whole and in order");
            assert_eq!(u[0], 0, "the engine's frames carry tag 0");
            j += 1;
        }
    }
    d.sim.eval();
    assert_eq!(d.get("eng_tx_frames"), eng.len() as u64);
}

/// BAR2 through `app_ctrl`: engine accesses passed on (the engine's side
/// answering after random delays, with an error for a value it refuses),
/// the application block read locally, everything else refused, the tap's
/// port following accepted writes to `control.udp_port`.
#[test]
fn bar2_reaches_the_engine_registers_and_the_application_block() {
    use ferroce_hdl::corundum::app_ctrl::{AppCtrl, APP_BASE, APP_BLOCK_TYPE, APP_BLOCK_VERSION};
    use ferroce_proto::regs;
    let mut d = Dut::new("app_ctrl", &ferroce_hdl::emit::verilog(AppCtrl::default()));
    let mut rng = Rng::new(59);
    let port_reg = regs::control::UDP_PORT.offset();
    let reset_port = regs::control::UDP_PORT.register().reset as u64;
    d.set("dma_rd_errors", 11);
    d.set("dma_wr_errors", 12);
    d.set("eng_rx_frames", 13);
    d.set("eng_tx_frames", 14);
    d.sim.eval();
    assert_eq!(d.get("cfg_port"), reset_port, "the tap starts at the register's reset value");
    // The engine's side: a word store; the value 0 written to udp_port is refused.
    let mut engine: HashMap<u64, u64> = HashMap::new();
    let mut pending_b: Option<(u64, u64)> = None;
    let mut pending_r: Option<(u64, u64, u64)> = None;
    // One BAR2 access: (write?, address, data) -> (response, read data).
    let mut access = |d: &mut Dut, rng: &mut Rng, write: bool, addr: u64, data: u64| -> (u64, u64) {
        let (mut aw, mut ar, mut result) = (write, !write, None);
        for _ in 0..2000 {
            d.set("s_axil_awvalid", aw as u64);
            d.set("s_axil_wvalid", aw as u64);
            d.set("s_axil_awaddr", addr);
            d.set("s_axil_wdata", data);
            d.set("s_axil_wstrb", 0xf);
            d.set("s_axil_arvalid", ar as u64);
            d.set("s_axil_araddr", addr);
            let (bready, rready) = (!rng.chance(0.3), !rng.chance(0.3));
            d.set("s_axil_bready", bready as u64);
            d.set("s_axil_rready", rready as u64);
            d.set("m_axil_awready", !rng.chance(0.3) as u64);
            d.set("m_axil_wready", !rng.chance(0.3) as u64);
            d.set("m_axil_arready", !rng.chance(0.3) as u64);
            let b = pending_b.filter(|p| p.0 == 0);
            d.set("m_axil_bvalid", b.is_some() as u64);
            d.set("m_axil_bresp", b.map_or(0, |p| p.1));
            let r = pending_r.filter(|p| p.0 == 0);
            d.set("m_axil_rvalid", r.is_some() as u64);
            d.set("m_axil_rdata", r.map_or(0, |p| p.1));
            d.set("m_axil_rresp", r.map_or(0, |p| p.2));
            d.sim.eval();
            if aw && d.get("s_axil_awready") == 1 {
                assert_eq!(d.get("s_axil_wready"), 1, "address and data are taken together");
                aw = false;
            }
            if ar && d.get("s_axil_arready") == 1 {
                ar = false;
            }
            // The engine side takes address and data (any order) and answers later.
            if d.get("m_axil_awvalid") == 1 && d.get("m_axil_awready") == 1 {
                assert!(pending_b.is_none());
                let a = d.get("m_axil_awaddr");
                assert_eq!(a, addr & 0xffff, "the engine gets BAR2's offset");
                let ok = !(a == port_reg as u64 && data == 0);
                if ok {
                    engine.insert(a, data);
                }
                pending_b = Some((rng.below(20), if ok { 0 } else { 2 }));
            }
            if d.get("m_axil_arvalid") == 1 && d.get("m_axil_arready") == 1 {
                let a = d.get("m_axil_araddr");
                pending_r = Some((rng.below(20), engine.get(&a).copied().unwrap_or(0), 0));
            }
            if b.is_some() && d.get("m_axil_bready") == 1 {
                pending_b = None;
            }
            if r.is_some() && d.get("m_axil_rready") == 1 {
                pending_r = None;
            }
            if d.get("s_axil_bvalid") == 1 && bready {
                result = Some((d.get("s_axil_bresp"), 0));
            }
            if d.get("s_axil_rvalid") == 1 && rready {
                result = Some((d.get("s_axil_rresp"), d.get("s_axil_rdata")));
            }
            d.sim.tick();
            if let Some(p) = pending_b.as_mut() {
                p.0 = p.0.saturating_sub(1);
            }
            if let Some(p) = pending_r.as_mut() {
                p.0 = p.0.saturating_sub(1);
            }
            if let Some(x) = result {
                return x;
            }
        }
        panic!("BAR2 access to {addr:#x} not answered");
    };
    // Engine registers: written and read back through the engine side.
    for i in 0..40u64 {
        let a = 4 * rng.below(0x4000);
        let v = rng.next_u64() as u32 as u64 | 1;
        assert_eq!(access(&mut d, &mut rng, true, a, v), (0, 0), "write {i} to {a:#x}");
        assert_eq!(access(&mut d, &mut rng, false, a, 0), (0, v), "read {i} of {a:#x}");
    }
    // The tap's port follows accepted writes only.
    assert_eq!(access(&mut d, &mut rng, true, port_reg as u64, 4242).0, 0);
    assert_eq!(d.get("cfg_port"), 4242);
    assert_eq!(access(&mut d, &mut rng, true, port_reg as u64, 0).0, 2, "the engine refuses port 0");
    assert_eq!(d.get("cfg_port"), 4242, "a refused write leaves the tap's port");
    // The application block.
    let app = |o: u64| APP_BASE as u64 + o;
    let want = [
        (0x00, APP_BLOCK_TYPE as u64),
        (0x04, APP_BLOCK_VERSION as u64),
        (0x08, 0),
        (0x0c, regs::APP_ID as u64),
        (0x10, 11),
        (0x14, 12),
        (0x18, 13),
        (0x1c, 14),
        (0x20, 4242),
    ];
    for (o, v) in want {
        assert_eq!(access(&mut d, &mut rng, false, app(o), 0), (0, v), "application register +{o:#x}");
    }
    assert_eq!(access(&mut d, &mut rng, true, app(0x10), 5).0, 2, "the application block is read only");
    assert_eq!(access(&mut d, &mut rng, false, app(0x24), 0).0, 2, "past the application block");
    assert_eq!(access(&mut d, &mut rng, false, 0x80_0000, 0).0, 2, "elsewhere in BAR2");
}
