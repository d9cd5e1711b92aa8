//! The `seg_log` RTL block in Verilator: random writes and reads of segment
//! entries against a map, including reads of the address being written.

use std::collections::HashMap;

use ferroce_proto::rng::Rng;
use ferroce_sim::verilator::{ModelLib, Sim};

const A: usize = ferroce_hdl::emit::PATH_KEY_BITS + 8;

#[test]
fn entries_read_back_as_written() {
    let v = ferroce_hdl::emit::verilog(ferroce_hdl::tx::seg_log::SegLog::<A>::default());
    let lib = ModelLib::build("seg_log", &v).expect("seg_log model builds");
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
        // Half the reads hit an address written before, some the one being written now.
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
        if let Some(want) = before {
            assert_eq!(s.get_words(rd_entry), want.to_vec(), "address {ra:#x}");
            checked += 1;
        }
        if write {
            map.insert(wa, entry);
        }
    }
    assert!(checked > 20_000, "{checked} reads of written entries");
}
