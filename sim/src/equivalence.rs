//! Equivalence of a block's two simulations: its `#[hdl_gen]` Rust run in
//! rust-hdl's own simulator, and the Verilog rust-hdl emits from that Rust
//! run in Verilator, on the same random stimulus, every output port
//! compared every cycle (`sim/tests/hdl_equivalence.rs` lists the blocks).
//!
//! The rust-hdl side is driven directly, without its threaded `Simulation`:
//! inputs are set through `.next`, the circuit settles (`update_all()` until
//! nothing changes), then the clock rises and it settles again. Outputs are
//! read generically by name through rust-hdl's `Probe` visitor; inputs need a
//! setter per block ([`Inputs`], written by [`equivalence_test!`] from the
//! list of a block's input fields).
//!
//! Each cycle: new inputs are set on both, the clock rises, and every output
//! is compared (so outputs show the registers after the edge and the inputs
//! of the cycle). Reset is high in the first cycle (and in any listed in
//! [`Config::resets`]), low otherwise.

use std::collections::BTreeMap;
use std::fmt;

use ferroce_hdl::rust_hdl::core::atom::{Atom, AtomKind};
use ferroce_hdl::rust_hdl::core::block::Block;
use ferroce_hdl::rust_hdl::core::probe::Probe;
use ferroce_hdl::rust_hdl::prelude::Bits;
use ferroce_proto::rng::Rng;

use crate::verilator::{ModelLib, Recording, Sim};

/// A value that an input port of this type can be set to from 32-bit words,
/// least significant first (bits above the port's width are dropped).
pub trait FromWords: Sized {
    fn from_words(words: &[u32]) -> Self;
}

impl FromWords for bool {
    fn from_words(words: &[u32]) -> bool {
        words.first().is_some_and(|w| w & 1 == 1)
    }
}

impl<const N: usize> FromWords for Bits<N> {
    fn from_words(words: &[u32]) -> Bits<N> {
        let mut b = Bits::<N>::default();
        for i in 0..N {
            if words.get(i / 32).is_some_and(|w| w >> (i % 32) & 1 == 1) {
                b = b.replace_bit(i, true);
            }
        }
        b
    }
}

/// The inputs of a rust-hdl block, settable by name: implemented on a
/// marker type by [`equivalence_test!`] from the list of the block's input
/// fields (a marker, not the block, so that a test crate may implement it).
pub trait Inputs {
    type Block: Block + Default;
    /// The block's input fields, clock included.
    const NAMES: &'static [&'static str];
    /// Set input `name`'s `.next`; false if the block has no such input.
    fn set(block: &mut Self::Block, name: &str, words: &[u32]) -> bool;
    /// Set the clock input (field `clock`, which every block has).
    fn clock(block: &mut Self::Block, high: bool);
}

/// One line per block: `equivalence_test!(name: Type; input, input, ...)`
/// or, with a [`Config`] expression, `equivalence_test!(name: Type; inputs;
/// config)` writes the test `name` that runs [`check`] on `Type` (built by
/// `Default`) as Verilator model `name`. The inputs are the block's input
/// fields other than `clock`; the harness checks the list against the
/// block's ports, so a forgotten input is reported, not left at zero.
#[macro_export]
macro_rules! equivalence_test {
    ($name:ident: $ty:ty; $($input:ident),* $(,)?) => {
        $crate::equivalence_test!($name: $ty; $($input),*; $crate::equivalence::Config::default());
    };
    ($name:ident: $ty:ty; $($input:ident),*; $cfg:expr) => {
        $crate::equivalence_inputs!($name: $ty; $($input),*);
        #[test]
        fn $name() {
            $crate::equivalence::check::<$name>(stringify!($name), &$cfg);
        }
    };
}

/// `equivalence_inputs!(Marker: Type; input, input, ...)`: the marker type
/// implementing [`Inputs`] for block `Type`, for [`replay`] and [`compare`]
/// (the inputs are the block's input fields other than `clock`).
#[macro_export]
macro_rules! equivalence_inputs {
    ($name:ident: $ty:ty; $($input:ident),* $(,)?) => {
        #[allow(non_camel_case_types)]
        #[derive(Debug)]
        struct $name {}
        impl $crate::equivalence::Inputs for $name {
            type Block = $ty;
            const NAMES: &'static [&'static str] = &["clock", $(stringify!($input)),*];
            fn set(block: &mut $ty, name: &str, words: &[u32]) -> bool {
                match name {
                    $(stringify!($input) => {
                        block.$input.next = $crate::equivalence::FromWords::from_words(words);
                        true
                    })*
                    _ => false,
                }
            }
            fn clock(block: &mut $ty, high: bool) {
                block.clock.next = $crate::equivalence::Clock::from(high);
            }
        }
    };
}

#[doc(hidden)]
pub use ferroce_hdl::rust_hdl::prelude::Clock;

/// How an input is drawn each cycle.
#[derive(Debug, Clone)]
pub enum Stim {
    /// Uniform over the port's width.
    Full,
    /// 1 with this probability (for 1-bit ports).
    Chance(f64),
    /// Uniform in `0..n`.
    Below(u64),
    /// One of these values.
    OneOf(Vec<u64>),
    /// Always this value.
    Fixed(u64),
}

impl Stim {
    /// The default for a port: 1-bit ports (valid bits, flags) are high
    /// half the time; ports named like a key, an address, a slot, a
    /// stream, a path or an index take values below 8 so that state is hit
    /// again; anything else is uniform.
    pub fn default_for(name: &str, width: u32) -> Stim {
        let small = ["key", "addr", "slot", "stream", "path", "idx", "index", "conn", "sel"];
        if width == 1 {
            Stim::Chance(0.5)
        } else if small.iter().any(|s| name.contains(s)) {
            Stim::Below(8)
        } else {
            Stim::Full
        }
    }

    fn draw(&self, rng: &mut Rng, width: u32) -> Vec<u32> {
        let words = width.div_ceil(32) as usize;
        let mut w = vec![0u32; words];
        let put = |v: u64, w: &mut Vec<u32>| {
            w[0] = v as u32;
            if words > 1 {
                w[1] = (v >> 32) as u32;
            }
        };
        match self {
            Stim::Full => w.iter_mut().for_each(|x| *x = rng.next_u64() as u32),
            Stim::Chance(p) => put(rng.chance(*p) as u64, &mut w),
            Stim::Below(n) => put(rng.below((*n).max(1)), &mut w),
            Stim::OneOf(vs) => put(vs[rng.below(vs.len() as u64) as usize], &mut w),
            Stim::Fixed(v) => put(*v, &mut w),
        }
        mask(&mut w, width);
        w
    }
}

fn mask(w: &mut [u32], width: u32) {
    for (i, x) in w.iter_mut().enumerate() {
        let lo = 32 * i as u32;
        if lo >= width {
            *x = 0;
        } else if width - lo < 32 {
            *x &= (1u32 << (width - lo)) - 1;
        }
    }
}

/// One run's settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// Cycles after the first (reset) cycle.
    pub cycles: u64,
    pub seed: u64,
    /// Further cycles with reset high (besides cycle 0).
    pub resets: Vec<u64>,
    /// Stimulus per input name, replacing [`Stim::default_for`].
    pub stim: Vec<(&'static str, Stim)>,
    /// Outputs [`check`] lets keep one value all run (by default each must
    /// change at least once, or the stimulus did not reach it).
    pub may_stay: Vec<&'static str>,
    /// Draw the Verilator side's inputs from a different seed (only to show
    /// that the check fails).
    pub verilator_seed: Option<u64>,
}

impl Default for Config {
    fn default() -> Config {
        Config { cycles: 4000, seed: 1, resets: vec![], stim: vec![], may_stay: vec![], verilator_seed: None }
    }
}

impl Config {
    /// This config with `port` drawn from `stim`.
    pub fn with(mut self, port: &'static str, stim: Stim) -> Config {
        self.stim.push((port, stim));
        self
    }
}

/// The first difference found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub block: String,
    pub port: String,
    /// Cycle of the comparison; cycle 0 is the first (reset) cycle.
    pub cycle: u64,
    pub rust_hdl: Vec<u32>,
    pub verilator: Vec<u32>,
    /// The inputs of that cycle, as driven.
    pub inputs: Vec<(String, Vec<u32>)>,
}

/// Words as one hexadecimal number.
pub fn hex(words: &[u32]) -> String {
    let mut s = String::from("0x");
    let mut started = false;
    for (i, w) in words.iter().enumerate().rev() {
        if started {
            s.push_str(&format!("{w:08x}"));
        } else if *w != 0 || i == 0 {
            s.push_str(&format!("{w:x}"));
            started = true;
        }
    }
    s
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: output `{}` differs at cycle {}: rust-hdl {}, Verilator {} (inputs that cycle:",
            self.block,
            self.port,
            self.cycle,
            hex(&self.rust_hdl),
            hex(&self.verilator)
        )?;
        for (n, v) in &self.inputs {
            write!(f, " {n}={}", hex(v))?;
        }
        write!(f, ")")
    }
}

/// What a passing run covered.
#[derive(Debug, Clone)]
pub struct Report {
    pub cycles: u64,
    /// Output ports compared, with their widths.
    pub outputs: Vec<(String, u32)>,
    /// Per output, how many cycles its value changed (a port that never
    /// changes was compared but not exercised).
    pub toggles: BTreeMap<String, u64>,
}

/// Top-level ports of a rust-hdl block: (name, bits, output), and the
/// values of its outputs as words.
#[derive(Default)]
struct Ports {
    depth: usize,
    ports: Vec<(String, u32, bool)>,
    values: BTreeMap<String, Vec<u32>>,
}

impl Probe for Ports {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        let output = match signal.kind() {
            AtomKind::InputParameter => false,
            AtomKind::OutputParameter => true,
            _ => return,
        };
        let bits = signal.bits() as u32;
        self.ports.push((name.to_string(), bits, output));
        if output {
            self.values.insert(name.to_string(), literal_words(&format!("{:x}", signal.verilog()), bits));
        }
    }
}

/// `N'hXXXX` (rust-hdl's literal) as words.
fn literal_words(lit: &str, bits: u32) -> Vec<u32> {
    let hex = lit.rsplit_once('h').map_or(lit, |(_, h)| h);
    let mut w = vec![0u32; bits.div_ceil(32).max(1) as usize];
    for (i, c) in hex.chars().rev().enumerate() {
        let d = c.to_digit(16).unwrap_or_else(|| panic!("rust-hdl literal {lit:?}"));
        if let Some(x) = w.get_mut(i / 8) {
            *x |= d << (4 * (i % 8));
        }
    }
    mask(&mut w, bits);
    w
}

fn probe<B: Block>(uut: &B) -> Ports {
    let mut p = Ports::default();
    uut.accept("uut", &mut p);
    p
}

fn settle<B: Block>(uut: &mut B, block: &str, cycle: u64) {
    assert!(
        ferroce_hdl::rust_hdl::core::simulate::simulate(uut, 1000),
        "{block}: rust-hdl's simulation did not settle in 1000 passes at cycle {cycle} (a combinational loop?)"
    );
}

/// Run block `I::Block` (built with `Default` and `connect_all`) in rust-hdl and
/// its Verilog (`verilog`, the emission of the same block unless a test
/// changes it) in Verilator as model `name`, on the same stimulus.
pub fn compare<I: Inputs>(name: &str, verilog: &str, cfg: &Config) -> Result<Report, Box<Mismatch>> {
    let lib = ModelLib::build(name, verilog).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut sim = Sim::new(&lib);
    sim.clock("clock");
    let mut uut = I::Block::default();
    uut.connect_all();
    let ports = probe(&uut);
    let (inputs, outputs): (Vec<_>, Vec<_>) = ports.ports.iter().cloned().partition(|p| !p.2);
    // Both sides must have the same ports, and the setter list every input.
    for (n, w, out) in &ports.ports {
        assert!(sim.has_port(n), "{name}: port {n} of the rust-hdl block is not a port of the Verilog");
        let p = sim.port(n);
        assert_eq!(sim.width(p), *w, "{name}: port {n} is {w} bits in rust-hdl, {} in Verilog", sim.width(p));
        assert!(
            *out || I::NAMES.contains(&n.as_str()),
            "{name}: input {n} is missing from the block's list in equivalence_test!"
        );
    }
    for n in I::NAMES {
        assert!(
            inputs.iter().any(|i| i.0 == *n),
            "{name}: {n} in the equivalence_test! list is not an input of the block"
        );
    }
    let stims: Vec<(String, u32, Stim, crate::verilator::Port)> = inputs
        .iter()
        .filter(|i| i.0 != "clock")
        .map(|(n, w, _)| {
            let s = cfg.stim.iter().find(|(p, _)| p == n).map_or_else(|| Stim::default_for(n, *w), |s| s.1.clone());
            (n.clone(), *w, s, sim.port(n))
        })
        .collect();
    for (p, _) in &cfg.stim {
        assert!(stims.iter().any(|s| s.0 == *p), "{name}: stimulus for {p}, which is no input");
    }
    let outs: Vec<(String, u32, crate::verilator::Port)> =
        outputs.iter().map(|(n, w, _)| (n.clone(), *w, sim.port(n))).collect();
    let mut rng = Rng::new(cfg.seed);
    let mut other = cfg.verilator_seed.map(Rng::new);
    let mut toggles = Toggles::new(outs.iter().map(|o| &o.0));
    for cycle in 0..=cfg.cycles {
        let reset = cycle == 0 || cfg.resets.contains(&cycle);
        let mut driven = Vec::with_capacity(stims.len());
        for (n, w, s, p) in &stims {
            let v = if n == "reset" { vec![reset as u32] } else { s.draw(&mut rng, *w) };
            let vv = match &mut other {
                Some(r) if n != "reset" => s.draw(r, *w),
                _ => v.clone(),
            };
            sim.set_words(*p, &vv);
            driven.push((n.clone(), v));
        }
        let [_, got] = step::<I>(&mut uut, name, cycle, &driven);
        sim.tick();
        for (n, w, p) in &outs {
            let mut v = sim.get_words(*p);
            mask(&mut v, *w);
            same(name, cycle, (n, ""), &got[n], v, &driven)?;
            toggles.see(n, &got[n]);
        }
    }
    Ok(Report { cycles: cfg.cycles + 1, outputs: outs.iter().map(|o| (o.0.clone(), o.1)).collect(), toggles: toggles.count })
}

/// One cycle of the rust-hdl side: the inputs set, the clock low and
/// settled, then high and settled; the outputs before the edge and after.
fn step<I: Inputs>(uut: &mut I::Block, name: &str, cycle: u64, inputs: &[(String, Vec<u32>)]) -> [Outputs; 2] {
    for (n, v) in inputs {
        assert!(I::set(uut, n, v), "{name}: no setter for input {n}");
    }
    I::clock(uut, false);
    settle(uut, name, cycle);
    let before = probe(&*uut).values;
    I::clock(uut, true);
    settle(uut, name, cycle);
    [before, probe(&*uut).values]
}

/// Output values by port name.
type Outputs = BTreeMap<String, Vec<u32>>;

/// Output `port` equal on both sides, or the mismatch (`sample` says when
/// it was read, for the report).
fn same(
    name: &str,
    cycle: u64,
    (port, sample): (&str, &str),
    rust_hdl: &[u32],
    verilator: Vec<u32>,
    inputs: &[(String, Vec<u32>)],
) -> Result<(), Box<Mismatch>> {
    if rust_hdl == verilator.as_slice() {
        return Ok(());
    }
    Err(Box::new(Mismatch {
        block: name.into(),
        port: format!("{port}{sample}"),
        cycle,
        rust_hdl: rust_hdl.to_vec(),
        verilator,
        inputs: inputs.to_vec(),
    }))
}

/// How many times each output changed, from its last value seen.
struct Toggles {
    last: Outputs,
    count: BTreeMap<String, u64>,
}

impl Toggles {
    fn new<'a>(outputs: impl Iterator<Item = &'a String>) -> Toggles {
        Toggles { last: Outputs::new(), count: outputs.map(|o| (o.clone(), 0)).collect() }
    }

    fn see(&mut self, port: &str, value: &[u32]) {
        if self.last.get(port).is_some_and(|l| l.as_slice() != value) {
            *self.count.entry(port.into()).or_default() += 1;
        }
        self.last.insert(port.into(), value.to_vec());
    }
}

/// Replay what a block's Verilator model was driven with (a
/// [`Recording`] of a test's own traffic, from
/// `verilator::record_next`) into the block's rust-hdl simulation, and
/// compare every output every cycle with what Verilator gave.
pub fn replay<I: Inputs>(name: &str, rec: &Recording) -> Result<Report, Box<Mismatch>> {
    let mut uut = I::Block::default();
    uut.connect_all();
    let ports = probe(&uut);
    let inputs: Vec<_> = ports.ports.iter().filter(|p| !p.2 && p.0 != "clock").map(|p| (p.0.clone(), p.1)).collect();
    let outputs: Vec<_> = ports.ports.iter().filter(|p| p.2).map(|p| (p.0.clone(), p.1)).collect();
    let sorted = |v: &[(String, u32)]| {
        let mut v = v.to_vec();
        v.sort();
        v
    };
    assert_eq!(
        sorted(&inputs),
        sorted(&rec.inputs),
        "{name}: the inputs of the rust-hdl block and of the recorded model"
    );
    assert_eq!(
        sorted(&outputs),
        sorted(&rec.outputs),
        "{name}: the outputs of the rust-hdl block and of the recorded model"
    );
    // An input missing from the block's list has no setter: `step` says so.
    let mut toggles = Toggles::new(outputs.iter().map(|o| &o.0));
    for (cycle, (ins, before, after)) in rec.cycles.iter().enumerate() {
        let driven: Vec<(String, Vec<u32>)> = rec.inputs.iter().map(|i| i.0.clone()).zip(ins.iter().cloned()).collect();
        let [got_before, got_after] = step::<I>(&mut uut, name, cycle as u64, &driven);
        // Before the edge the outputs show this cycle's inputs applied to the
        // old state (combinational paths); after it, the new state.
        for (sample, got, want) in [(" before the edge", &got_before, before), ("", &got_after, after)] {
            for ((n, w), v) in rec.outputs.iter().zip(want) {
                let mut v = v.clone();
                mask(&mut v, *w);
                same(name, cycle as u64, (n, sample), &got[n], v, &driven)?;
                toggles.see(n, &got[n]);
            }
        }
    }
    Ok(Report { cycles: rec.cycles.len() as u64, outputs, toggles: toggles.count })
}

/// [`replay`], panicking on the first mismatch and on an output that never
/// changed (other than those in `may_stay`).
pub fn check_replay<I: Inputs>(name: &str, rec: &Recording, may_stay: &[&str]) -> Report {
    match replay::<I>(name, rec) {
        Ok(r) => {
            assert_exercised(name, &r, may_stay);
            eprintln!(
                "{name}: {} outputs equal in rust-hdl and Verilator for {} cycles of the test's traffic",
                r.outputs.len(),
                r.cycles
            );
            r
        }
        Err(m) => panic!("{m}"),
    }
}

/// Every output changed at least once, but those in `may_stay`.
fn assert_exercised(name: &str, r: &Report, may_stay: &[&str]) {
    let idle: Vec<_> = r
        .toggles
        .iter()
        .filter(|(p, n)| **n == 0 && !may_stay.contains(&p.as_str()))
        .map(|(p, _)| p.as_str())
        .collect();
    assert!(
        idle.is_empty(),
        "{name}: outputs {idle:?} never changed in {} cycles: the stimulus does not exercise them",
        r.cycles
    );
}

/// [`compare`] on the block's own emitted Verilog; panics with the first
/// mismatch, and if an output never changed.
pub fn check<I: Inputs>(name: &str, cfg: &Config) -> Report {
    let verilog = ferroce_hdl::emit::verilog(I::Block::default());
    match compare::<I>(name, &verilog, cfg) {
        Ok(r) => {
            assert_exercised(name, &r, &cfg.may_stay);
            eprintln!("{name}: {} outputs equal in rust-hdl and Verilator for {} cycles", r.outputs.len(), r.cycles);
            r
        }
        Err(m) => panic!("{m}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_words() {
        assert_eq!(literal_words("40'h12345678ab", 40), vec![0x345678ab, 0x12]);
        assert_eq!(literal_words("1'h1", 1), vec![1]);
        assert_eq!(literal_words("3'hf", 3), vec![7]);
        assert_eq!(hex(&[0x345678ab, 0x12]), "0x12345678ab");
        assert_eq!(hex(&[5, 0, 0]), "0x5");
        assert_eq!(hex(&[0, 1]), "0x100000000");
        assert_eq!(Bits::<40>::from_words(&[0x345678ab, 0x12]), Bits::<40>::from(0x12345678abu64));
        assert!(bool::from_words(&[1]));
    }
}
