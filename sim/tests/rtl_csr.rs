//! The `csr` RTL block in Verilator against the register map's reference
//! (`ferroce_proto::regs::RegFile`): reset values, access types, byte
//! strobes, error responses for bad addresses and out-of-range values, and
//! the hardware-side buses,
//! driven through AXI-Lite with random stalls on both sides and a protocol
//! checker on the responses.

use ferroce_proto::regs::{self, BusError, RegFile, BLOCKS, REGION_BYTES};
use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{undefined_collisions, ModelLib, Port, Sim};

ferroce_sim::equivalence_inputs!(csr_inputs: ferroce_hdl::csr::Csr;
    reset, s_axil_awaddr, s_axil_awvalid, s_axil_wdata, s_axil_wstrb, s_axil_wvalid, s_axil_bready, s_axil_araddr,
    s_axil_arvalid, s_axil_rready, hw);

struct Axi {
    sim: Sim,
    rng: Rng,
    p: std::collections::HashMap<&'static str, Port>,
    /// Probability that the master stalls a cycle (valid late, ready low).
    stall: f64,
    strobes_seen: Vec<u64>,
    /// Self-clearing bits seen on `pulses`, with the strobe beside them.
    pulses_seen: Vec<(u64, u64)>,
}

const OKAY: u64 = 0;
const SLVERR: u64 = 2;

impl Axi {
    fn new(seed: u64, stall: f64) -> Axi {
        let v = ferroce_hdl::emit::verilog(ferroce_hdl::csr::Csr::default());
        Axi::on(&ModelLib::build("csr", &v).expect("csr model builds"), seed, stall)
    }

    /// On the model whose RAMs read anything when read and written at once
    /// (`undefined_collisions`), as the engine's models have it.
    fn undefined_collisions(seed: u64, stall: f64) -> Axi {
        let v = undefined_collisions(&ferroce_hdl::emit::verilog(ferroce_hdl::csr::Csr::default()));
        Axi::on(&ModelLib::build("csr_undefined_collisions", &v).expect("csr model builds"), seed, stall)
    }

    fn on(lib: &std::sync::Arc<ModelLib>, seed: u64, stall: f64) -> Axi {
        let mut sim = Sim::new(lib);
        sim.clock("clock");
        let names = [
            "reset",
            "s_axil_awaddr",
            "s_axil_awvalid",
            "s_axil_awready",
            "s_axil_wdata",
            "s_axil_wstrb",
            "s_axil_wvalid",
            "s_axil_wready",
            "s_axil_bresp",
            "s_axil_bvalid",
            "s_axil_bready",
            "s_axil_araddr",
            "s_axil_arvalid",
            "s_axil_arready",
            "s_axil_rdata",
            "s_axil_rresp",
            "s_axil_rvalid",
            "s_axil_rready",
            "regs",
            "strobe",
            "hw",
            "pulses",
        ];
        let p = names.iter().map(|n| (*n, sim.port(n))).collect();
        let mut a = Axi { sim, rng: Rng::new(seed), p, stall, strobes_seen: Vec::new(), pulses_seen: Vec::new() };
        a.set("reset", 1);
        a.tick();
        a.set("reset", 0);
        a
    }

    fn set(&mut self, n: &str, v: u64) {
        let p = self.p[n];
        self.sim.set(p, v);
    }

    fn get(&self, n: &str) -> u64 {
        self.sim.get(self.p[n])
    }

    fn tick(&mut self) {
        self.sim.tick();
        let s = self.get("strobe");
        if s != 0 {
            self.strobes_seen.push(s);
        }
        let pulses = self.get("pulses");
        if pulses != 0 {
            self.pulses_seen.push((pulses, s));
        }
    }

    fn stalled(&mut self) -> bool {
        self.rng.chance(self.stall)
    }

    /// Wait for a response channel with random back-pressure; check that the
    /// response holds steady while not accepted.
    fn take_response(&mut self, valid: &str, ready: &str, fields: &[&str]) -> Vec<u64> {
        let mut held: Option<Vec<u64>> = None;
        for _ in 0..1000 {
            self.sim.eval();
            if self.get(valid) == 1 {
                let now: Vec<u64> = fields.iter().map(|f| self.get(f)).collect();
                if let Some(h) = &held {
                    assert_eq!(h, &now, "{valid}: response changed while waiting for {ready}");
                }
                held = Some(now.clone());
                if !self.stalled() {
                    self.set(ready, 1);
                    self.tick();
                    self.set(ready, 0);
                    self.sim.eval();
                    return now;
                }
            } else {
                assert!(held.is_none(), "{valid} dropped before {ready}");
            }
            self.set(ready, 0);
            self.tick();
        }
        panic!("no response on {valid}");
    }

    fn write(&mut self, addr: u32, data: u32, strb: u8) -> u64 {
        // Address and data raised independently, each held until accepted.
        let (mut aw_up, mut w_up) = (false, false);
        self.set("s_axil_awaddr", addr as u64);
        self.set("s_axil_wdata", data as u64);
        self.set("s_axil_wstrb", strb as u64);
        for _ in 0..1000 {
            aw_up |= !self.stalled();
            w_up |= !self.stalled();
            self.set("s_axil_awvalid", aw_up as u64);
            self.set("s_axil_wvalid", w_up as u64);
            self.sim.eval();
            let accepted = self.get("s_axil_awready") == 1;
            assert_eq!(accepted, self.get("s_axil_wready") == 1, "address and data are taken together");
            assert!(!accepted || (aw_up && w_up), "ready without both valid");
            self.tick();
            if accepted {
                self.set("s_axil_awvalid", 0);
                self.set("s_axil_wvalid", 0);
                return self.take_response("s_axil_bvalid", "s_axil_bready", &["s_axil_bresp"])[0];
            }
        }
        panic!("write to {addr:#x} never accepted");
    }

    fn read(&mut self, addr: u32) -> (u64, u32) {
        self.set("s_axil_araddr", addr as u64);
        while self.stalled() {
            self.set("s_axil_arvalid", 0);
            self.tick();
        }
        self.set("s_axil_arvalid", 1);
        for _ in 0..1000 {
            self.sim.eval();
            let accepted = self.get("s_axil_arready") == 1;
            self.tick();
            if accepted {
                self.set("s_axil_arvalid", 0);
                let r = self.take_response("s_axil_rvalid", "s_axil_rready", &["s_axil_rresp", "s_axil_rdata"]);
                return (r[0], r[1] as u32);
            }
        }
        panic!("read of {addr:#x} never accepted");
    }

    fn set_hw(&mut self, words: &[u32]) {
        let p = self.p["hw"];
        self.sim.set_words(p, words);
    }

    fn regs_bus(&self) -> Vec<u32> {
        self.sim.get_words(self.p["regs"])
    }
}

fn resp(r: Result<(), BusError>) -> u64 {
    if r.is_ok() {
        OKAY
    } else {
        SLVERR
    }
}

#[test]
fn every_register_resets_to_the_map_and_reads_back() {
    let mut axi = Axi::new(1, 0.3);
    let mut model = RegFile::new();
    let hw: Vec<u32> = (0..regs::N_HARDWARE).map(|j| 0x1000_0000 + j as u32 * 0x0101).collect();
    axi.set_hw(&hw);
    for (j, (addr, _)) in regs::hardware().iter().enumerate() {
        model.set(*addr, hw[j]);
    }
    let mut checked = 0;
    for (i, b) in BLOCKS.iter().enumerate() {
        let base = regs::block_base(i);
        for off in [0u32, 4, 8].into_iter().chain(b.regs.iter().map(|r| r.offset)) {
            let addr = base + off;
            let (r, data) = axi.read(addr);
            assert_eq!(r, OKAY, "read {}+{off:#x}", b.name);
            assert_eq!(data, model.read(addr).unwrap(), "reset value of {}+{off:#x}", b.name);
            checked += 1;
        }
    }
    assert_eq!(checked, BLOCKS.iter().map(|b| b.regs.len() + 3).sum::<usize>());
    let bus = axi.regs_bus();
    for (i, (addr, r)) in regs::stored().iter().enumerate() {
        assert_eq!(bus[i], r.reset, "regs bus, {} at {addr:#x}", r.name);
    }
}

#[test]
fn random_accesses_match_the_reference_and_errors_change_nothing() {
    ferroce_sim::verilator::record_next("csr", REPLAYED);
    let mut axi = Axi::new(7, 0.4);
    let mut model = RegFile::new();
    let mapped: Vec<u32> = regs::all_regs().map(|(a, _)| a).chain((0..BLOCKS.len()).map(regs::block_base)).collect();
    let stored = regs::stored();
    let ranged: Vec<u32> = stored.iter().filter(|(_, r)| r.range.is_some()).map(|(a, _)| *a).collect();
    let pulsing: Vec<u32> = stored.iter().filter(|(_, r)| r.pulse != 0).map(|(a, _)| *a).collect();
    assert!(!pulsing.is_empty(), "a register with self-clearing bits");
    let mut rng = Rng::new(99);
    let (mut errors, mut writes_ok, mut out_of_range, mut edges_taken, mut pulsed) = (0, 0, 0, 0, 0);
    for n in 0..4000 {
        if n % 500 == 0 {
            let hw: Vec<u32> = (0..regs::N_HARDWARE).map(|_| rng.next_u64() as u32).collect();
            axi.set_hw(&hw);
            for (j, (addr, _)) in regs::hardware().iter().enumerate() {
                model.set(*addr, hw[j]);
            }
        }
        let addr = match rng.below(10) {
            0 => mapped[rng.below(mapped.len() as u64) as usize] + 1 + rng.below(3) as u32, // misaligned
            1 => REGION_BYTES + (rng.below(0x1000) as u32 & !3),                            // beyond the map
            2 => rng.below(REGION_BYTES as u64) as u32 & !3,                                // anywhere inside
            3 => ranged[rng.below(ranged.len() as u64) as usize],                           // a ranged register
            4 => pulsing[rng.below(pulsing.len() as u64) as usize],                         // self-clearing bits
            _ => mapped[rng.below(mapped.len() as u64) as usize],
        };
        if rng.chance(0.5) {
            let (mut data, mut strb) = (rng.next_u64() as u32, rng.below(16) as u8);
            // Ranged registers mostly get a value at or just beyond an end
            // of their range, all bytes enabled or not.
            let range = stored.iter().find(|(a, _)| *a == addr).and_then(|(_, r)| r.range);
            if let Some(b) = range.filter(|_| rng.chance(0.7)) {
                let edges = [b.min.wrapping_sub(1), b.min, b.max, b.max.wrapping_add(1)];
                data = edges[rng.below(4) as usize];
                if rng.chance(0.75) {
                    strb = 0xf;
                }
            }
            axi.strobes_seen.clear();
            axi.pulses_seen.clear();
            let got = axi.write(addr, data, strb);
            let r = model.write_strobed(addr, data, strb);
            let want = resp(r);
            assert_eq!(got, want, "write {data:#x} (strobe {strb:#x}) to {addr:#x} response");
            if want == OKAY {
                writes_ok += 1;
                if let Some(b) = range.filter(|b| strb == 0xf && (data == b.min || data == b.max)) {
                    edges_taken += 1;
                    assert_eq!(model.get(addr), data, "{b} edge");
                }
                let i = stored.iter().position(|(a, _)| *a == addr).expect("a writable register");
                assert_eq!(axi.strobes_seen, vec![1u64 << i], "strobe of {addr:#x}");
                // Self-clearing bits written as 1 pulse beside the strobe
                // (and were not kept: the model reads them as 0).
                let mask = (0..4).filter(|b| strb >> b & 1 == 1).fold(0u32, |m, b| m | 0xff << (8 * b));
                let want_pulses = data & mask & stored[i].1.pulse;
                let seen = if want_pulses == 0 { vec![] } else { vec![(want_pulses as u64, 1u64 << i)] };
                assert_eq!(axi.pulses_seen, seen, "pulses of {data:#x} (strobe {strb:#x}) to {addr:#x}");
                pulsed += (want_pulses != 0) as u32;
            } else {
                errors += 1;
                if r == Err(BusError::OutOfRange) {
                    out_of_range += 1;
                }
                assert!(axi.strobes_seen.is_empty() && axi.pulses_seen.is_empty(), "a refused write strobed");
            }
        } else {
            let (r, data) = axi.read(addr);
            match model.read(addr) {
                Ok(v) => assert_eq!((r, data), (OKAY, v), "read {addr:#x}"),
                Err(_) => {
                    assert_eq!(r, SLVERR, "read {addr:#x} must fail");
                    errors += 1;
                }
            }
        }
        let bus = axi.regs_bus();
        for (i, (a, r)) in stored.iter().enumerate() {
            assert_eq!(bus[i], model.get(*a), "regs bus {} after access {n}", r.name);
        }
    }
    assert!(
        errors > 500 && writes_ok > 500 && pulsed > 30,
        "errors {errors}, good writes {writes_ok}, pulses {pulsed}"
    );
    assert!(
        out_of_range > 100 && edges_taken > 60,
        "writes refused for their value {out_of_range}, range ends taken {edges_taken}"
    );
    // The same Rust in rust-hdl's own simulator, on this test's first cycles.
    drop(axi);
    let rec = ferroce_sim::verilator::take_recording("csr").expect("the first cycles were recorded");
    ferroce_sim::equivalence::check_replay::<csr_inputs>("csr", &rec, &[]);
}

/// Cycles of the random-access test's traffic replayed into rust-hdl's simulator.
const REPLAYED: u64 = 6000;

/// The registers whose range is the build's: `control.mtu` up to
/// `engine_info.max_mtu` and `control.window_cap` up to `max_in_flight`.
#[test]
fn build_bounded_registers_refuse_beyond_either_end_and_take_the_builds_limit() {
    let mut axi = Axi::new(3, 0.3);
    let stored = regs::stored();
    for (reg, limit) in [
        (regs::control::MTU, regs::engine_info::MAX_MTU),
        (regs::control::WINDOW_CAP, regs::engine_info::MAX_IN_FLIGHT),
    ] {
        let at = reg.offset();
        let (r, max) = axi.read(limit.offset());
        assert_eq!(r, OKAY);
        let i = stored.iter().position(|(a, _)| *a == at).expect("stored");
        let (_, reset) = axi.read(at);
        for bad in [0, max + 1] {
            axi.strobes_seen.clear();
            assert_eq!(axi.write(at, bad, 0xf), SLVERR, "{reg} {bad}");
            assert!(axi.strobes_seen.is_empty(), "refused {reg} {bad} strobed");
            assert_eq!(axi.read(at), (OKAY, reset), "{reg} after refusing {bad}");
            assert_eq!(axi.regs_bus()[i], reset, "regs bus after refusing {reg} {bad}");
        }
        for good in [1, max] {
            axi.strobes_seen.clear();
            assert_eq!(axi.write(at, good, 0xf), OKAY, "{reg} {good}");
            assert_eq!(axi.strobes_seen, vec![1u64 << i]);
            assert_eq!(axi.read(at), (OKAY, good));
            assert_eq!(axi.regs_bus()[i], good);
        }
    }
}

/// A read taken while a write is under way (the same register, raised in
/// the cycle the write is taken, or in the next) answers the old value or
/// the new one, never anything else, on the model whose RAMs read anything
/// when read and written at once: a read is not taken in the cycle the
/// write's second half writes the RAMs.
#[test]
fn a_read_beside_a_write_of_its_register_reads_the_old_or_the_new_value() {
    let mut axi = Axi::undefined_collisions(7, 0.0);
    let mut rng = Rng::new(8);
    let stored: Vec<(u32, u32, u32)> = regs::stored()
        .iter()
        .filter(|(_, r)| r.access == regs::Access::Rw && r.range.is_none())
        .map(|(a, r)| (*a, r.reset, r.pulse))
        .collect();
    assert!(stored.len() >= 10, "{} unbounded read-write registers", stored.len());
    let mut value: std::collections::HashMap<u32, u32> = stored.iter().map(|&(a, v, _)| (a, v)).collect();
    for _ in 0..2 * regs::N_STORED {
        axi.tick(); // the sweep after reset, when nothing is taken
    }
    let (mut old_seen, mut new_seen) = (0, 0);
    for n in 0..400 {
        let (addr, _, pulse) = stored[rng.below(stored.len() as u64) as usize];
        let written = rng.next_u64() as u32;
        let new = written & !pulse; // self-clearing bits are not kept
        let lag = n % 2; // the read raised with the write, or a cycle after it is taken
        axi.set("s_axil_awaddr", addr as u64);
        axi.set("s_axil_wdata", written as u64);
        axi.set("s_axil_wstrb", 0xf);
        axi.set("s_axil_awvalid", 1);
        axi.set("s_axil_wvalid", 1);
        axi.set("s_axil_araddr", addr as u64);
        axi.set("s_axil_arvalid", (lag == 0) as u64);
        axi.set("s_axil_bready", 1);
        axi.set("s_axil_rready", 1);
        let (mut bresp, mut rdata, mut read_taken) = (None, None, false);
        for cycle in 0..20 {
            axi.sim.eval();
            let write_taken = axi.get("s_axil_awready") == 1;
            read_taken |= axi.get("s_axil_arready") == 1;
            let arready = axi.get("s_axil_arready") == 1;
            if axi.get("s_axil_bvalid") == 1 {
                bresp = Some(axi.get("s_axil_bresp"));
            }
            if axi.get("s_axil_rvalid") == 1 {
                rdata = Some(axi.get("s_axil_rdata") as u32);
            }
            axi.tick();
            if write_taken {
                axi.set("s_axil_awvalid", 0);
                axi.set("s_axil_wvalid", 0);
                axi.set("s_axil_arvalid", 1);
            }
            if arready {
                axi.set("s_axil_arvalid", 0);
            }
            if bresp.is_some() && rdata.is_some() {
                break;
            }
            assert!(cycle < 19, "write and read of {addr:#x} not both answered");
        }
        assert!(read_taken);
        assert_eq!(bresp, Some(OKAY), "write of {addr:#x}");
        let got = rdata.expect("a read answer");
        let old = value[&addr];
        assert!(got == old || got == new, "read of {addr:#x} beside its write: {got:#x}, old {old:#x}, new {new:#x}");
        old_seen += (got == old && old != new) as u32;
        new_seen += (got == new && old != new) as u32;
        if lag == 1 {
            assert_eq!(got, new, "a read raised after the write was taken reads the new value");
        }
        value.insert(addr, new);
    }
    assert!(old_seen > 100 && new_seen > 100, "old {old_seen}, new {new_seen}");
}
