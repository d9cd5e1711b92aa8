//! The building-block library in rust-hdl's own simulator (the same
//! `#[hdl_gen]` logic that becomes the Verilog) against Rust references on
//! random inputs.

use ferroce_hdl::blocks::fifo::{RamFifo, RegFifo};
use ferroce_hdl::blocks::trees::{Decode256, FirstSet1024, FirstSet256, LastSet256, Popcount256, RegFile, Thermo256};
use ferroce_hdl::rust_hdl::prelude::*;
use ferroce_proto::rng::Rng;

/// Re-evaluates `block` until no signal changes (combinational settling).
fn settle<B: Block>(block: &mut B) {
    for _ in 0..1000 {
        block.update_all();
        if !block.has_changed() {
            return;
        }
    }
    panic!("the block did not settle");
}

fn block<B: Block + Default>() -> B {
    let mut b = B::default();
    b.connect_all();
    b
}

/// A random 256-bit vector as four words, from empty through sparse to
/// dense and full (the trees' corner cases).
fn vector(rng: &mut Rng) -> [u64; 4] {
    let mut w = [0u64; 4];
    match rng.below(6) {
        0 => {}
        1 => w = [u64::MAX; 4],
        2 => {
            for _ in 0..1 + rng.below(3) {
                let b = rng.below(256) as usize;
                w[b / 64] |= 1 << (b % 64);
            }
        }
        3 => {
            // dense with a few holes
            w = [u64::MAX; 4];
            for _ in 0..1 + rng.below(3) {
                let b = rng.below(256) as usize;
                w[b / 64] &= !(1 << (b % 64));
            }
        }
        _ => {
            for x in &mut w {
                *x = rng.next_u64() & rng.next_u64();
            }
        }
    }
    w
}

fn to_bits(w: &[u64; 4]) -> Bits<256> {
    let mut b = Bits::<256>::default();
    for (i, &x) in w.iter().enumerate() {
        b.set_bits::<64>(64 * i, x.into());
    }
    b
}

fn bit(w: &[u64; 4], i: usize) -> bool {
    w[i / 64] >> (i % 64) & 1 == 1
}

#[test]
fn first_set_finds_the_lowest_set_bit() {
    let mut uut: FirstSet256 = block();
    let mut rng = Rng::new(1);
    for _ in 0..3000 {
        let w = vector(&mut rng);
        uut.v.next = to_bits(&w);
        settle(&mut uut);
        let want = (0..256).find(|&i| bit(&w, i));
        assert_eq!(uut.any.val(), want.is_some(), "{w:x?}");
        if let Some(i) = want {
            assert_eq!(uut.at.val().index(), i, "{w:x?}");
        }
    }
}

#[test]
fn last_set_finds_the_highest_set_bit() {
    let mut uut: LastSet256 = block();
    let mut rng = Rng::new(2);
    for _ in 0..3000 {
        let w = vector(&mut rng);
        uut.v.next = to_bits(&w);
        settle(&mut uut);
        let want = (0..256).rev().find(|&i| bit(&w, i));
        assert_eq!(uut.any.val(), want.is_some(), "{w:x?}");
        if let Some(i) = want {
            assert_eq!(uut.at.val().index(), i, "{w:x?}");
        }
    }
}

#[test]
fn popcount_counts_every_set_bit() {
    let mut uut: Popcount256 = block();
    let mut rng = Rng::new(3);
    for _ in 0..3000 {
        let w = vector(&mut rng);
        uut.v.next = to_bits(&w);
        settle(&mut uut);
        let want: u32 = w.iter().map(|x| x.count_ones()).sum();
        assert_eq!(uut.count.val().index() as u32, want, "{w:x?}");
    }
}

#[test]
fn thermometer_sets_every_slot_at_or_above_x() {
    let mut uut: Thermo256 = block();
    for x in 0..256usize {
        uut.x.next = (x as u64).into();
        settle(&mut uut);
        let ge = uut.ge.val();
        for i in 0..256 {
            assert_eq!(ge.get_bit(i), i >= x, "x {x}, slot {i}");
        }
    }
}

#[test]
fn decoder_sets_only_bit_x() {
    let mut uut: Decode256 = block();
    for x in 0..256usize {
        uut.x.next = (x as u64).into();
        settle(&mut uut);
        let hot = uut.hot.val();
        for i in 0..256 {
            assert_eq!(hot.get_bit(i), i == x, "x {x}, slot {i}");
        }
    }
}

#[test]
fn register_file_reads_what_was_written() {
    const A: usize = 3;
    const N: usize = 6;
    let mut uut: RegFile<Bits<24>, A, N> = block();
    let mut rng = Rng::new(4);
    let mut model = [0u64; N];
    let edge = |uut: &mut RegFile<Bits<24>, A, N>| {
        uut.clock.next = Clock::from(true);
        settle(uut);
        uut.clock.next = Clock::from(false);
        settle(uut);
    };
    uut.reset.next = true;
    edge(&mut uut);
    uut.reset.next = false;
    for _ in 0..3000 {
        let (we, wi, wd) = (rng.chance(0.5), rng.below(N as u64) as usize, rng.next_u64() & 0xff_ffff);
        let ri = rng.below(1 << A) as usize;
        uut.wr_enable.next = we;
        uut.wr_index.next = (wi as u64).into();
        uut.wr_data.next = wd.into();
        uut.rd_index.next = (ri as u64).into();
        settle(&mut uut);
        let want = if ri < N { model[ri] } else { model[0] };
        assert_eq!(uut.rd_data.val().to_u64(), want, "read {ri}");
        edge(&mut uut);
        if we {
            model[wi] = wd;
        }
    }
    uut.reset.next = true;
    edge(&mut uut);
    for i in 0..N {
        uut.rd_index.next = (i as u64).into();
        settle(&mut uut);
        assert_eq!(uut.rd_data.val().to_u64(), 0, "cleared by reset");
    }
}

#[test]
fn first_set_of_1024_finds_the_lowest_set_bit_in_any_quarter() {
    let mut uut: FirstSet1024 = block();
    let mut rng = Rng::new(5);
    for _ in 0..2000 {
        // Each quarter empty, sparse, dense or full on its own.
        let quarters = [vector(&mut rng), vector(&mut rng), vector(&mut rng), vector(&mut rng)];
        let mut v = Bits::<1024>::default();
        for (q, w) in quarters.iter().enumerate() {
            v.set_bits::<256>(256 * q, to_bits(w));
        }
        uut.v.next = v;
        settle(&mut uut);
        let want = (0..1024).find(|&i| bit(&quarters[i / 256], i % 256));
        assert_eq!(uut.any.val(), want.is_some(), "{quarters:x?}");
        match want {
            Some(i) => assert_eq!(uut.at.val().index(), i, "{quarters:x?}"),
            None => assert_eq!(uut.at.val().index(), 1023, "none set: the last index"),
        }
    }
}

/// Drives a FIFO of 4 entries of 20 bits through random pushes and pops
/// against a `VecDeque`, checking its outputs before every edge.
macro_rules! fifo_against_a_queue {
    ($fifo:ident) => {{
    const A: usize = 2;
    const P: usize = 3;
    const N: usize = 4;
    type Fifo = $fifo<Bits<20>, A, P, N>;
    let mut uut: Fifo = block();
    let mut rng = Rng::new(6);
    let mut model = std::collections::VecDeque::new();
    let edge = |uut: &mut Fifo| {
        uut.clock.next = Clock::from(true);
        settle(uut);
        uut.clock.next = Clock::from(false);
        settle(uut);
    };
    uut.reset.next = true;
    edge(&mut uut);
    uut.reset.next = false;
    let (mut full_pushes, mut empty_pops, mut both) = (0, 0, 0);
    for _ in 0..5000 {
        // Phases that fill and drain, so that full and empty both occur.
        let push = rng.chance(if model.len() < 2 { 0.8 } else { 0.4 });
        let pop = rng.chance(0.45);
        let d = rng.next_u64() & 0xf_ffff;
        uut.push.next = push;
        uut.push_data.next = d.into();
        uut.pop.next = pop;
        settle(&mut uut);
        assert_eq!(uut.count.val().index(), model.len(), "count");
        assert_eq!(uut.full.val(), model.len() == N, "full");
        assert_eq!(uut.valid.val(), !model.is_empty(), "valid");
        if let Some(&head) = model.front() {
            assert_eq!(uut.data.val().to_u64(), head, "the oldest entry");
        }
        full_pushes += usize::from(push && model.len() == N);
        empty_pops += usize::from(pop && model.is_empty());
        both += usize::from(push && pop && !model.is_empty() && model.len() < N);
        edge(&mut uut);
        let popped = pop && !model.is_empty();
        if push && model.len() < N {
            model.push_back(d);
        }
        if popped {
            model.pop_front();
        }
    }
    assert!(full_pushes > 50 && empty_pops > 50 && both > 50, "{full_pushes} {empty_pops} {both}");
    uut.reset.next = true;
    edge(&mut uut);
    settle(&mut uut);
    assert!(!uut.valid.val() && uut.count.val().index() == 0, "emptied by reset");
    }};
}

#[test]
fn register_fifo_keeps_order_count_and_refuses_when_full() {
    fifo_against_a_queue!(RegFifo);
}

/// The RAM FIFO is the register FIFO cycle for cycle, including a push into
/// the slot being read (its bypass).
#[test]
fn ram_fifo_keeps_order_count_and_refuses_when_full() {
    fifo_against_a_queue!(RamFifo);
}
