//! Verilator harness: build emitted Verilog into a shared library once (per
//! content hash, cached under `target/verilator/`), load it, and drive its
//! ports from Rust by pointer, so only `eval()` crosses the FFI boundary.
//!
//! Why this and not the `verilated` crate or marlin-verilator: see
//! `docs/verilator.md`.
#![allow(unsafe_code)]

use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use crate::tools;
use crate::{Error, Result};

/// Bumped whenever the shim or the build flags change (part of the cache key).
const SHIM_VERSION: u32 = 4;

/// C++ flags of the model. GCC 12's SLP vectoriser (on at -O2 since GCC 12)
/// copies a `VlWide` field of the model's root with `movdqa`, an aligned
/// 16-byte load, at a field offset of 8 mod 16, and the model crashes
/// with a segmentation fault (seen on the engine with `rto_timer` in
/// rust-hdl: the copy of `rx_msgs`' state in `nba_sequent`; the field's
/// offset moves whenever the design changes, so any model can hit it).
/// Loop vectorisation is not involved and stays on.
const CFLAGS: &str = "-fPIC -O2 -fno-tree-slp-vectorize";

/// Waveform kind, from `FERROCE_TRACE`: a path ending in `.vcd` gives VCD,
/// any other path FST.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trace {
    None,
    Fst,
    Vcd,
}

impl Trace {
    fn from_env() -> Trace {
        match std::env::var("FERROCE_TRACE") {
            Ok(p) if p.ends_with(".vcd") => Trace::Vcd,
            Ok(p) if !p.is_empty() => Trace::Fst,
            _ => Trace::None,
        }
    }
}

#[repr(C)]
struct RawPort {
    name: *const c_char,
    width: u32,
    output: u32,
    data: *mut c_void,
}

type NewFn = unsafe extern "C" fn(*const c_char) -> *mut c_void;
type HandleFn = unsafe extern "C" fn(*mut c_void);
type DumpFn = unsafe extern "C" fn(*mut c_void, u64);
type PortsFn = unsafe extern "C" fn(*mut c_void, *mut RawPort, u32) -> u32;

/// A built and loaded Verilator model.
#[derive(Debug)]
pub struct ModelLib {
    name: String,
    path: PathBuf,
    lib: libloading::Library,
    trace: Trace,
}

/// FNV-1a, 64 bits: the key of cached builds.
pub fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| tools::workspace_root().join("target"), PathBuf::from)
}

fn run(model: &str, cmd: &mut Command, log: &Path) -> Result<()> {
    let out = cmd.output().map_err(|e| Error::Verilator { model: model.into(), msg: format!("{cmd:?}: {e}") })?;
    let mut text = out.stdout;
    text.extend_from_slice(&out.stderr);
    let _ = std::fs::write(log, &text);
    if !out.status.success() {
        let tail: String = String::from_utf8_lossy(&text)
            .lines()
            .rev()
            .take(30)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n");
        return Err(Error::Verilator { model: model.into(), msg: format!("{cmd:?} failed:\n{tail}") });
    }
    Ok(())
}

/// Ports declared in a Verilated header: (name, width, output).
fn parse_ports(header: &str) -> Vec<(String, u32, bool)> {
    let mut out = Vec::new();
    for line in header.lines() {
        let l = line.trim();
        let Some(rest) = l.strip_prefix("VL_") else {
            continue;
        };
        let (dir, rest) = if let Some(r) = rest.strip_prefix("IN") {
            (false, r)
        } else if let Some(r) = rest.strip_prefix("OUT") {
            (true, r)
        } else {
            continue;
        };
        let Some(open) = rest.find("(&") else {
            continue;
        };
        let args: Vec<&str> = rest[open + 2..].trim_end_matches(");").split(',').collect();
        if args.len() < 3 {
            continue;
        }
        let (Ok(msb), Ok(lsb)) = (args[1].trim().parse::<u32>(), args[2].trim().parse::<u32>()) else {
            continue;
        };
        out.push((args[0].to_string(), msb - lsb + 1, dir));
    }
    out
}

fn shim(ports: &[(String, u32, bool)], trace: Trace) -> String {
    let mut table = String::new();
    for (name, width, output) in ports {
        let data = if *width > 64 { format!("m->{name}.data()") } else { format!("&m->{name}") };
        table.push_str(&format!("        {{\"{name}\", {width}u, {}u, (void*)({data})}},\n", *output as u32));
    }
    let (open, dump, close) = (
        "    if (fst && *fst) { ctx->traceEverOn(true); h->tfp = new Tfp; h->m->trace(h->tfp, 99); h->tfp->open(fst); }\n",
        "    if (h->tfp) h->tfp->dump(t);\n",
        "    if (h->tfp) { h->tfp->close(); delete h->tfp; }\n",
    );
    let (inc, open, dump, close) = match trace {
        Trace::Fst => ("#include \"verilated_fst_c.h\"\ntypedef VerilatedFstC Tfp;\n", open, dump, close),
        Trace::Vcd => ("#include \"verilated_vcd_c.h\"\ntypedef VerilatedVcdC Tfp;\n", open, dump, close),
        Trace::None => ("class Tfp;\n", "", "", ""),
    };
    format!(
        r#"// Generated by ferroce-sim; do not edit.
#include "Vtop.h"
#include "verilated.h"
{inc}#include <cstdint>
struct Handle {{ VerilatedContext* ctx; Vtop* m; Tfp* tfp; }};
struct RawPort {{ const char* name; uint32_t width; uint32_t output; void* data; }};
extern "C" {{
void* ferroce_new(const char* fst) {{
    auto* ctx = new VerilatedContext;
    auto* h = new Handle{{ctx, new Vtop{{ctx}}, nullptr}};
{open}    return h;
}}
void ferroce_eval(void* p) {{ static_cast<Handle*>(p)->m->eval(); }}
void ferroce_dump(void* p, uint64_t t) {{ auto* h = static_cast<Handle*>(p); (void)h; (void)t;
{dump}}}
void ferroce_delete(void* p) {{
    auto* h = static_cast<Handle*>(p);
    h->m->final();
{close}    delete h->m; delete h->ctx; delete h;
}}
uint32_t ferroce_ports(void* p, RawPort* out, uint32_t max) {{
    Vtop* m = static_cast<Handle*>(p)->m;
    RawPort t[] = {{
{table}        {{nullptr, 0u, 0u, nullptr}}
    }};
    uint32_t n = sizeof(t) / sizeof(t[0]) - 1;
    for (uint32_t i = 0; i < n && i < max; ++i) out[i] = t[i];
    return n;
}}
}}
"#
    )
}

fn build_uncached(name: &str, verilog: &str, trace: Trace, dir: &Path) -> Result<PathBuf> {
    let err = |msg: String| Error::Verilator { model: name.into(), msg };
    let bin = tools::ensure(&tools::VERILATOR, &mut |l| eprintln!("{l}"))?;
    let root = tools::verilator_root(&bin);
    let tmp = dir.with_extension(format!("tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    std::fs::write(tmp.join("top.v"), verilog)?;
    let mut v = Command::new(&bin);
    v.env("VERILATOR_ROOT", &root)
        .current_dir(&tmp)
        .args(["--cc", "--build", "-j", "2", "-O3", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module", "top"])
        .args(["--Mdir", "obj", "-CFLAGS", CFLAGS, "-MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include"]);
    match trace {
        Trace::Fst => {
            // Verilator 5.048's FST writer compresses with lz4 and zlib.
            if !Path::new("/usr/include/lz4.h").exists() {
                return Err(err("FST tracing needs the lz4 headers (Debian: apt-get install liblz4-dev); \
                                or give FERROCE_TRACE a .vcd path for VCD"
                    .into()));
            }
            v.arg("--trace-fst");
        }
        Trace::Vcd => {
            v.arg("--trace");
        }
        Trace::None => {}
    }
    v.arg("top.v");
    eprintln!("verilator: building model {name} in {} ...", dir.display());
    run(name, &mut v, &tmp.join("verilator.log"))?;
    let header = std::fs::read_to_string(tmp.join("obj/Vtop.h"))?;
    let ports = parse_ports(&header);
    if ports.is_empty() {
        return Err(err("no ports found in Vtop.h".into()));
    }
    std::fs::write(tmp.join("shim.cpp"), shim(&ports, trace))?;
    let mut cc = Command::new(std::env::var("CXX").unwrap_or_else(|_| "g++".into()));
    cc.current_dir(&tmp)
        .args(["-shared", "-fPIC", "-O2", "-std=gnu++17", "-Iobj"])
        .arg(format!("-I{}", root.join("include").display()))
        .arg(format!("-I{}", root.join("include/vltstd").display()))
        .args(["shim.cpp", "obj/libVtop.a", "obj/libverilated.a", "-pthread", "-o", "libmodel.so"]);
    if trace == Trace::Fst {
        cc.args(["-lz", "-llz4"]);
    }
    run(name, &mut cc, &tmp.join("cxx.log"))?;
    match std::fs::rename(&tmp, dir) {
        Ok(()) => {}
        Err(_) if dir.join("libmodel.so").exists() => {
            let _ = std::fs::remove_dir_all(&tmp); // another process built it meanwhile
        }
        Err(e) => return Err(err(format!("moving {} into place: {e}", tmp.display()))),
    }
    Ok(dir.join("libmodel.so"))
}

/// The mutation test's hook (`cargo xtask mutants`): with `FERROCE_MUTANT`
/// naming a file of two parts separated by a line `=>` (text to find, text
/// to put instead), every model whose Verilog contains the text is
/// built with it replaced, and its name is appended to the file's `.hits`
/// beside it. A block instantiated more than once has its text once per
/// instance, and every instance is changed: the mutant is one change to
/// the block.
fn mutant(name: &str, verilog: &str) -> Result<Option<String>> {
    let Some(path) = std::env::var_os("FERROCE_MUTANT") else {
        return Ok(None);
    };
    let bad = |msg: String| Error::Verilator { model: name.into(), msg };
    let spec = std::fs::read_to_string(&path).map_err(|e| bad(format!("FERROCE_MUTANT: {e}")))?;
    let (from, to) = spec.split_once("\n=>\n").ok_or_else(|| bad("FERROCE_MUTANT: no line `=>` in the file".into()))?;
    let to = to.strip_suffix('\n').unwrap_or(to);
    match verilog.matches(from).count() {
        0 => Ok(None),
        n => {
            let mut hits = PathBuf::from(&path).into_os_string();
            hits.push(".hits");
            let line = format!("{name} {n}\n");
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&hits)
                .and_then(|mut f| std::io::Write::write_all(&mut f, line.as_bytes()))
                .map_err(|e| bad(format!("FERROCE_MUTANT hits: {e}")))?;
            Ok(Some(verilog.replace(from, to)))
        }
    }
}

/// The read that a RAM's registered port takes in rust-hdl's `RAM`.
pub const RAM_READ: &str = "read_data <= mem[read_address];";

/// [`RAM_READ`] as [`undefined_collisions`] rewrites it.
pub const RAM_READ_UNDEFINED: &str =
    "read_data <= (write_enable && write_address == read_address) ? ~mem[read_address] : mem[read_address];";

/// `verilog` with every RAM's read of the word being written in the same
/// cycle made undefined, as synthesis is told it is (`no_rw_check` on every
/// memory, see docs/rtl.md): the model reads the word's complement then,
/// which differs from the old word in every bit and equals the new word
/// wherever that differs from the old one, so a design that uses such a
/// read, expecting either, fails its tests. Every rust-hdl `RAM` is
/// rewritten (its read and write clocks are one clock everywhere in the
/// project). The engine's and the boards' models are built from this;
/// the blocks' models are not, because their tests compare every output,
/// don't-cares included, with rust-hdl's simulation, whose `RAM` reads the
/// old word.
pub fn undefined_collisions(verilog: &str) -> String {
    verilog.replace(RAM_READ, RAM_READ_UNDEFINED)
}

impl ModelLib {
    /// Build (or reuse) the model for `verilog`, whose top module must be
    /// `top`. With `FERROCE_TRACE` set, the model is built with tracing.
    pub fn build(name: &str, verilog: &str) -> Result<Arc<ModelLib>> {
        // By name too: a model's name is its folder's and what `record_next` matches.
        static CACHE: OnceLock<Mutex<HashMap<(String, u64), Arc<ModelLib>>>> = OnceLock::new();
        let mutated = mutant(name, verilog)?;
        let verilog = mutated.as_deref().unwrap_or(verilog);
        let trace = Trace::from_env();
        let key = fnv(format!("{SHIM_VERSION}/{}/{trace:?}/{verilog}", tools::VERILATOR.spec).as_bytes());
        let cache = CACHE.get_or_init(Default::default);
        let mut guard =
            cache.lock().map_err(|_| Error::Verilator { model: name.into(), msg: "cache poisoned".into() })?;
        if let Some(m) = guard.get(&(name.to_string(), key)) {
            return Ok(m.clone());
        }
        let dir = target_dir().join("verilator").join(format!("{name}-{key:016x}"));
        let path = if dir.join("libmodel.so").exists() {
            dir.join("libmodel.so")
        } else {
            build_uncached(name, verilog, trace, &dir)?
        };
        // SAFETY: the library is one this module just built from its own
        // shim; loading it runs only Verilator's static initialisers.
        let lib = unsafe { libloading::Library::new(&path) }
            .map_err(|e| Error::Verilator { model: name.into(), msg: format!("loading {}: {e}", path.display()) })?;
        let m = Arc::new(ModelLib { name: name.into(), path, lib, trace });
        guard.insert((name.to_string(), key), m.clone());
        Ok(m)
    }

    /// The model of the block `name` whose Verilog `emit` writes, built
    /// once per process: later calls skip the emission too.
    pub fn of_block(name: &'static str, emit: impl FnOnce() -> String) -> Result<Arc<ModelLib>> {
        static BLOCKS: OnceLock<Mutex<HashMap<&'static str, Arc<ModelLib>>>> = OnceLock::new();
        let blocks = BLOCKS.get_or_init(Default::default);
        if let Some(m) =
            blocks.lock().map_err(|_| Error::Verilator { model: name.into(), msg: "cache poisoned".into() })?.get(name)
        {
            return Ok(m.clone());
        }
        let m = ModelLib::build(name, &emit())?;
        blocks
            .lock()
            .map_err(|_| Error::Verilator { model: name.into(), msg: "cache poisoned".into() })?
            .insert(name, m.clone());
        Ok(m)
    }

    /// Where the shared library is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sym<T: Copy>(&self, name: &[u8]) -> T {
        // SAFETY: the symbols are the shim's `extern "C"` functions whose
        // signatures match the types used at each call site.
        unsafe { *self.lib.get::<T>(name).unwrap_or_else(|e| panic!("{}: missing {e}", self.name)) }
    }
}

/// The ports and values of a model's first cycles, for replay in rust-hdl
/// (`equivalence::replay`): per cycle, every input as driven at the
/// rising edge, and every output just before the edge (the inputs applied
/// to the old state: combinational paths) and just after it.
#[derive(Debug, Clone, Default)]
pub struct Recording {
    /// Input ports other than the clock: (name, width).
    pub inputs: Vec<(String, u32)>,
    /// Output ports: (name, width).
    pub outputs: Vec<(String, u32)>,
    /// Per cycle, in the order of the two lists above: the inputs' words,
    /// the outputs' words before the edge and after it.
    pub cycles: Vec<RecordedCycle>,
}

/// One recorded cycle: inputs, outputs before the edge, outputs after it.
pub type RecordedCycle = (Vec<Vec<u32>>, Vec<Vec<u32>>, Vec<Vec<u32>>);

thread_local! {
    /// Model name -> cycles to record from its next instance in this
    /// thread, and the recordings finished.
    static RECORD: std::cell::RefCell<(HashMap<String, u64>, HashMap<String, Recording>)> =
        Default::default();
}

/// Record the first `cycles` clock cycles of the next instance of model
/// `model` created in this thread (the test that calls this drives it
/// however it likes; [`take_recording`] returns what it drove).
pub fn record_next(model: &str, cycles: u64) {
    RECORD.with(|r| r.borrow_mut().0.insert(model.into(), cycles));
}

/// The recording of model `model` asked for by [`record_next`], once the
/// instance has run its cycles or was dropped.
pub fn take_recording(model: &str) -> Option<Recording> {
    RECORD.with(|r| r.borrow_mut().1.remove(model))
}

/// A recording under way.
#[derive(Debug)]
struct Recorder {
    limit: u64,
    rec: Recording,
}

/// A port handle (index into the model's port table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Port(usize);

#[derive(Debug)]
struct PortInfo {
    name: String,
    width: u32,
    output: bool,
    data: *mut c_void,
}

/// One instance of a model.
#[derive(Debug)]
pub struct Sim {
    lib: Arc<ModelLib>,
    handle: *mut c_void,
    ports: Vec<PortInfo>,
    by_name: HashMap<String, usize>,
    eval: HandleFn,
    dump: DumpFn,
    time: u64,
    clock: Option<Port>,
    /// With `FERROCE_SIM_STATS=file`: time spent in `eval()`, in ns.
    stats: Option<u128>,
    /// See [`record_next`].
    recorder: Option<Recorder>,
    /// The last `eval()` saw the clock low, and no input has been set
    /// since: `tick` need not evaluate the low phase again.
    settled_low: bool,
}

impl Sim {
    /// A fresh instance. With `FERROCE_TRACE=path` the waveform goes to
    /// `path` (FST, or VCD for a `.vcd` path; later instances of the process
    /// write `stem.1.ext`, `stem.2.ext`, ...).
    pub fn new(lib: &Arc<ModelLib>) -> Sim {
        static INSTANCE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let fst = match (lib.trace, std::env::var("FERROCE_TRACE")) {
            (Trace::Fst | Trace::Vcd, Ok(p)) => {
                // One file per instance: later ones get a number before the extension.
                let i = INSTANCE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                match (i, p.rsplit_once('.')) {
                    (0, _) => p,
                    (_, Some((stem, ext))) => format!("{stem}.{i}.{ext}"),
                    (_, None) => format!("{p}.{i}"),
                }
            }
            _ => String::new(),
        };
        let fst = CString::new(fst).expect("no NUL in a path");
        let new: NewFn = lib.sym(b"ferroce_new\0");
        let ports_fn: PortsFn = lib.sym(b"ferroce_ports\0");
        // SAFETY: ferroce_new returns a heap handle owned by this Sim until Drop.
        let handle = unsafe { new(fst.as_ptr()) };
        let mut raw: Vec<RawPort> = (0..512)
            .map(|_| RawPort { name: std::ptr::null(), width: 0, output: 0, data: std::ptr::null_mut() })
            .collect();
        // SAFETY: `raw` has room for 512 entries and the shim writes at most that many.
        let n = unsafe { ports_fn(handle, raw.as_mut_ptr(), raw.len() as u32) } as usize;
        assert!(n <= raw.len(), "{}: more than 512 ports", lib.name);
        let ports: Vec<PortInfo> = raw[..n]
            .iter()
            .map(|r| PortInfo {
                // SAFETY: names are static C strings in the shim.
                name: unsafe { CStr::from_ptr(r.name) }.to_string_lossy().into_owned(),
                width: r.width,
                output: r.output != 0,
                data: r.data,
            })
            .collect();
        let by_name = ports.iter().enumerate().map(|(i, p)| (p.name.clone(), i)).collect();
        let recorder = RECORD
            .with(|r| r.borrow_mut().0.remove(&lib.name))
            .map(|limit| Recorder { limit, rec: Recording::default() });
        Sim {
            lib: lib.clone(),
            handle,
            ports,
            by_name,
            eval: lib.sym(b"ferroce_eval\0"),
            dump: lib.sym(b"ferroce_dump\0"),
            time: 0,
            clock: None,
            stats: std::env::var_os("FERROCE_SIM_STATS").map(|_| 0),
            settled_low: false,
            recorder,
        }
    }

    /// The input (`output` false) or output ports other than the clock, in port order.
    fn recorded(&self, output: bool) -> impl Iterator<Item = usize> + '_ {
        let clock = self.clock.map(|c| c.0);
        (0..self.ports.len()).filter(move |&i| self.ports[i].output == output && Some(i) != clock)
    }

    /// The words of every recorded input or output port.
    fn snapshot(&mut self, output: bool) -> Vec<Vec<u32>> {
        if self.recorder.as_ref().is_some_and(|r| r.rec.cycles.is_empty() && r.rec.outputs.is_empty()) {
            let names = |o: bool| self.recorded(o).map(|i| (self.ports[i].name.clone(), self.ports[i].width)).collect();
            let (inputs, outputs) = (names(false), names(true));
            let r = self.recorder.as_mut().expect("recording");
            (r.rec.inputs, r.rec.outputs) = (inputs, outputs);
        }
        self.recorded(output).map(|i| self.get_words(Port(i))).collect()
    }

    /// Hand a finished recording to [`take_recording`].
    fn finish_recording(&mut self) {
        if let Some(r) = self.recorder.take() {
            let name = self.lib.name.clone();
            RECORD.with(|x| x.borrow_mut().1.insert(name, r.rec));
        }
    }

    /// Has the model a port called `name`?
    pub fn has_port(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// The port called `name`; panics with the list of ports if there is none.
    pub fn port(&self, name: &str) -> Port {
        match self.by_name.get(name) {
            Some(&i) => Port(i),
            None => panic!(
                "{}: no port {name}; ports: {:?}",
                self.lib.name,
                self.ports.iter().map(|p| &p.name).collect::<Vec<_>>()
            ),
        }
    }

    /// Width of a port in bits.
    pub fn width(&self, p: Port) -> u32 {
        self.ports[p.0].width
    }

    /// Drive an input of up to 64 bits (truncated to its width).
    pub fn set(&mut self, p: Port, v: u64) {
        self.settled_low = false;
        let info = &self.ports[p.0];
        assert!(!info.output, "{} is an output", info.name);
        let v = if info.width < 64 { v & ((1u64 << info.width) - 1) } else { v };
        // SAFETY: `data` points at the port's storage in the live model,
        // sized by its width as Verilator lays it out (u8/u16/u32/u64, or
        // u32 words above 64 bits).
        unsafe {
            match info.width {
                0..=8 => *(info.data as *mut u8) = v as u8,
                9..=16 => *(info.data as *mut u16) = v as u16,
                17..=32 => *(info.data as *mut u32) = v as u32,
                33..=64 => *(info.data as *mut u64) = v,
                w => {
                    let words = std::slice::from_raw_parts_mut(info.data as *mut u32, w.div_ceil(32) as usize);
                    words.fill(0);
                    words[0] = v as u32;
                    words[1] = (v >> 32) as u32;
                }
            }
        }
    }

    /// Drive a wide input from 32-bit words, least significant first.
    pub fn set_words(&mut self, p: Port, words: &[u32]) {
        self.settled_low = false;
        let info = &self.ports[p.0];
        assert!(!info.output, "{} is an output", info.name);
        if info.width <= 64 {
            let v = words.first().copied().unwrap_or(0) as u64 | (words.get(1).copied().unwrap_or(0) as u64) << 32;
            return self.set(p, v);
        }
        let n = info.width.div_ceil(32) as usize;
        // SAFETY: as in `set`; `n` words belong to this port.
        let dst = unsafe { std::slice::from_raw_parts_mut(info.data as *mut u32, n) };
        for (i, d) in dst.iter_mut().enumerate() {
            *d = words.get(i).copied().unwrap_or(0);
        }
        let top = info.width % 32;
        if top != 0 {
            dst[n - 1] &= (1u32 << top) - 1;
        }
    }

    /// Read a port of up to 64 bits (the low 64 bits of a wider one).
    pub fn get(&self, p: Port) -> u64 {
        let info = &self.ports[p.0];
        // SAFETY: as in `set`, reading.
        unsafe {
            match info.width {
                0..=8 => *(info.data as *const u8) as u64,
                9..=16 => *(info.data as *const u16) as u64,
                17..=32 => *(info.data as *const u32) as u64,
                33..=64 => *(info.data as *const u64),
                _ => {
                    let w = info.data as *const u32;
                    *w as u64 | (*w.add(1) as u64) << 32
                }
            }
        }
    }

    /// Read a port as 32-bit words, least significant first.
    pub fn get_words(&self, p: Port) -> Vec<u32> {
        let info = &self.ports[p.0];
        if info.width <= 64 {
            let v = self.get(p);
            return if info.width <= 32 { vec![v as u32] } else { vec![v as u32, (v >> 32) as u32] };
        }
        // SAFETY: as in `set_words`, reading.
        unsafe { std::slice::from_raw_parts(info.data as *const u32, info.width.div_ceil(32) as usize) }.to_vec()
    }

    /// Settle combinational logic.
    pub fn eval(&mut self) {
        let start = self.stats.map(|_| std::time::Instant::now());
        // SAFETY: the handle is live until Drop.
        unsafe { (self.eval)(self.handle) }
        if let (Some(ns), Some(t)) = (&mut self.stats, start) {
            *ns += t.elapsed().as_nanos();
        }
        self.settled_low = self.clock.is_some_and(|c| self.get(c) == 0);
    }

    /// Settle combinational logic at `time` (in the caller's unit, rising
    /// from call to call), and write the waveform there when tracing: for
    /// models run on several clocks without [`Sim::tick`].
    pub fn eval_at(&mut self, time: u64) {
        self.eval();
        self.time = time;
        // SAFETY: the handle is live until Drop.
        unsafe { (self.dump)(self.handle, time) };
    }

    /// Use `name` as the clock for [`Sim::tick`].
    pub fn clock(&mut self, name: &str) {
        self.clock = Some(self.port(name));
    }

    /// One clock cycle: inputs set before the call are sampled at the rising
    /// edge; outputs read after it show the registers' new values.
    pub fn tick(&mut self) {
        let c = self.clock.expect("call Sim::clock first");
        let inputs = self.recorder.is_some().then(|| self.snapshot(false));
        // The low phase: already evaluated when the caller settled the
        // inputs with the clock low (the clock is left low after each
        // tick), which saves one evaluation of the model per cycle.
        if !self.settled_low {
            self.set(c, 0);
            self.eval();
        }
        let before = inputs.as_ref().map(|_| self.snapshot(true));
        // SAFETY: the handle is live until Drop.
        unsafe { (self.dump)(self.handle, self.time) };
        self.time += 1;
        self.set(c, 1);
        self.eval();
        // SAFETY: as above.
        unsafe { (self.dump)(self.handle, self.time) };
        self.time += 1;
        if let (Some(inputs), Some(before)) = (inputs, before) {
            let after = self.snapshot(true);
            let r = self.recorder.as_mut().expect("recording");
            r.rec.cycles.push((inputs, before, after));
            if r.rec.cycles.len() as u64 >= r.limit {
                self.finish_recording();
            }
        }
        // Leave the clock low (not yet evaluated: the outputs keep the new
        // register values) so that the caller's next `eval` is the next
        // cycle's low phase.
        self.set(c, 0);
    }

    /// Hold input `reset` high for one cycle, then run until output `ready`
    /// (if given) goes high, at most `limit` cycles.
    pub fn reset(&mut self, reset: &str, ready: Option<&str>, limit: u64) {
        let r = self.port(reset);
        self.set(r, 1);
        self.tick();
        self.set(r, 0);
        if let Some(ready) = ready {
            let rd = self.port(ready);
            let mut n = 0;
            while self.get(rd) == 0 {
                assert!(n < limit, "{}: {ready} still low after {limit} cycles", self.lib.name);
                self.tick();
                n += 1;
            }
        }
    }

    /// Cycles run so far.
    pub fn cycles(&self) -> u64 {
        self.time / 2
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        self.finish_recording();
        // With `FERROCE_SIM_STATS=file`, one line per instance is appended:
        // model name, clock cycles, ns spent in eval() (`cargo xtask
        // block-speed` sums them per block).
        if let (Some(ns), Some(path)) = (self.stats, std::env::var_os("FERROCE_SIM_STATS")) {
            use std::io::Write as _;
            if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
                let _ = writeln!(f, "{}\t{}\t{}", self.lib.name, self.cycles(), ns);
            }
        }
        let del: HandleFn = self.lib.sym(b"ferroce_delete\0");
        // SAFETY: the handle came from ferroce_new and is freed once here.
        unsafe { del(self.handle) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_verilated_port_declarations() {
        let h = "    VL_IN8(&clock,0,0);\n    VL_INW(&a,303,0,10);\n    VL_OUT(&o3,23,0);\n    VL_OUT64(&q,40,0);\n";
        assert_eq!(
            parse_ports(h),
            vec![("clock".into(), 1, false), ("a".into(), 304, false), ("o3".into(), 24, true), ("q".into(), 41, true)]
        );
    }
}
