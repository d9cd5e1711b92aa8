//! The `seg_log` RTL block in Verilator: random writes and reads of segment
//! entries against a map. A read of the address being written in the same
//! cycle is undefined, as synthesis has it (the model is built with
//! `undefined_collisions`), and such reads are not checked: the engine's
//! tests run on models where a use of one would go wrong.

use std::collections::HashMap;

use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{undefined_collisions, ModelLib, Sim, RAM_READ, RAM_READ_UNDEFINED};

const A: usize = ferroce_hdl::emit::PATH_KEY_BITS + 8;

#[test]
fn entries_read_back_as_written() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx::seg_log::SegLog::<A>::default());
    let lib = ModelLib::build("seg_log", &undefined_collisions(&v)).expect("seg_log model builds");
    let mut s = Sim::new(&lib);
    s.clock("clock");
    let p = |s: &Sim, n: &str| s.port(n);
    let (wr_valid, wr_addr, wr_entry, rd_addr, rd_entry) =
        (p(&s, "wr_valid"), p(&s, "wr_addr"), p(&s, "wr_entry"), p(&s, "rd_addr"), p(&s, "rd_entry"));
    let mut rng = Rng::new(3);
    let mut map: HashMap<u64, [u32; 3]> = HashMap::new();
    let mut checked = 0;
    for _ in 0..100_000 {
        let write = rng.chance(0.5);
        let (wa, entry) =
            (rng.below(1 << A), [rng.next_u64() as u32, rng.next_u64() as u32, rng.below(1 << 17) as u32]);
        s.set(wr_valid, write as u64);
        s.set(wr_addr, wa);
        s.set_words(wr_entry, &entry);
        // Half the reads hit an address written before, some the one being
        // written now (undefined then, so not checked).
        let ra = if rng.chance(0.1) {
            wa
        } else if rng.chance(0.5) {
            *map.keys().next().unwrap_or(&0)
        } else {
            rng.below(1 << A)
        };
        s.set(rd_addr, ra);
        let before = map.get(&ra).copied();
        s.tick();
        if let Some(want) = before.filter(|_| !(write && ra == wa)) {
            assert_eq!(s.get_words(rd_entry), want.to_vec(), "address {ra:#x}");
            checked += 1;
        }
        if write {
            map.insert(wa, entry);
        }
    }
    assert!(checked > 20_000, "{checked} reads of written entries");
}

/// What the models of the engine read when a RAM's word is read in the
/// cycle it is written: the old word's complement (`undefined_collisions`),
/// where rust-hdl's `RAM`, as emitted, reads the old word.
#[test]
fn a_read_of_the_entry_being_written_is_the_old_entrys_complement() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx::seg_log::SegLog::<A>::default());
    let poisoned = undefined_collisions(&v);
    assert_eq!(poisoned.matches("~mem[read_address]").count(), 1, "one RAM, rewritten once");
    let (old, new) = ([0x1234_5678, 0x9abc_def0, 0x1_5a5a], [0x0f0f_0f0f, 0x9abc_def0, 0x0_0001]);
    let mask = [u32::MAX, u32::MAX, (1 << 17) - 1];
    for (name, verilog, want) in [
        ("seg_log", &poisoned, [!old[0] & mask[0], !old[1] & mask[1], !old[2] & mask[2]]),
        ("seg_log_as_emitted", &v, old),
    ] {
        let lib = ModelLib::build(name, verilog).expect("seg_log model builds");
        let mut s = Sim::new(&lib);
        s.clock("clock");
        let (wr_valid, wr_addr, wr_entry, rd_addr, rd_entry) =
            (s.port("wr_valid"), s.port("wr_addr"), s.port("wr_entry"), s.port("rd_addr"), s.port("rd_entry"));
        s.set(wr_valid, 1);
        s.set(wr_addr, 5);
        s.set_words(wr_entry, &old);
        s.tick();
        s.set_words(wr_entry, &new);
        s.set(rd_addr, 5);
        s.tick();
        assert_eq!(s.get_words(rd_entry), want.to_vec(), "{name}: the read of the entry being written");
        s.set(wr_valid, 0);
        s.tick();
        assert_eq!(s.get_words(rd_entry), new.to_vec(), "{name}: the read a cycle later");
    }
}

/// Every RAM of an engine is rewritten in its model: no read of the old
/// word is left.
#[test]
fn every_ram_of_the_engine_is_modelled_with_undefined_collisions() {
    let v = (ferroce_hdl::presets::built("ecp5-25").expect("the preset").emit)();
    let rams = v.matches(RAM_READ).count();
    assert!(rams >= 20, "{rams} RAMs in the ecp5-25 engine");
    let poisoned = undefined_collisions(&v);
    assert_eq!(poisoned.matches(RAM_READ).count(), 0);
    assert_eq!(poisoned.matches(RAM_READ_UNDEFINED).count(), rams);
}
