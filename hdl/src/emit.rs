//! Verilog emission: each block as a self-contained file whose top module is
//! `top` with clean port names (rust-hdl names inner instances with `$`).

use rust_hdl::prelude::*;

/// Verilog of `block`, checked by rust-hdl.
pub fn verilog<B: Block>(mut block: B) -> String {
    block.connect_all();
    generate_verilog(&block)
}

/// Stack for building and emitting a block: rust-hdl walks a block's
/// `update()` recursively, and the engine's nesting needs more than a test
/// thread's 2 MiB.
const EMIT_STACK: usize = 256 << 20;

/// [`verilog`] of the block `make` builds, on a thread of its own with a
/// stack deep enough for the engine.
pub fn verilog_of<B: Block>(make: impl FnOnce() -> B + Send) -> String {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("emit".into())
            .stack_size(EMIT_STACK)
            .spawn_scoped(s, || verilog(make()))
            .expect("a thread to emit Verilog on")
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e))
    })
}

/// The sizes of the default build (the `corundum` preset): connection-key,
/// path-field, path-key and stream-key widths, and connections.
pub use crate::presets::corundum::cfg::{CONNS, CONN_KEY_BITS, PATH_BITS, PATH_KEY_BITS, STREAM_KEY_BITS};

use crate::presets::corundum::cfg::ACK_QUEUE_BITS;
/// The `corundum` build's ACK timers, as its engine has them.
pub type AckTimerOfCorundum =
    crate::engine::ack_timer::AckTimer<PATH_KEY_BITS, ACK_QUEUE_BITS, { ACK_QUEUE_BITS + 1 }, { 1 << ACK_QUEUE_BITS }>;

/// Sizes of the board blocks as emitted for tests and lint.
pub mod board {
    /// Board memory: 2^13 words of 64 bits (64 KiB).
    pub const RAM_BITS: usize = 13;
    /// Frame stores: 2^11 beats (16 KiB, a 9000-byte frame).
    pub const STORE_BITS: usize = 11;
    /// UART bit time in the tests' models: 8 cycles.
    pub const TEST_BIT_CYCLES: u16 = 8;
    /// UARTBone's give-up time in the tests' models: 2000 cycles.
    pub const TEST_TIMEOUT: u32 = 2000;
    /// UARTBone's give-up time in the simulated board a host program talks
    /// to (its pauses are in wall-clock time): 2^22 cycles.
    pub const SIM_TIMEOUT: u32 = 1 << 22;
    /// Board memory of the simulated board, as the ECPIX-5's: 2^14 words
    /// (128 KiB).
    pub const SIM_RAM_BITS: usize = 14;
}

/// Every block with its emitted Verilog, for `cargo xtask emit` and the
/// Verilator tests.
pub fn all() -> Vec<(&'static str, String)> {
    let mut blocks = corundum();
    blocks.extend(engine_and_boards());
    // every preset's engine (`ferroce_engine` is the corundum build)
    blocks.extend(crate::presets::BUILT.iter().map(|b| (b.block, (b.emit)())));
    blocks.sort_by_key(|b| b.0);
    blocks
}

/// The blocks between Corundum's interfaces and the engine
/// ([`crate::corundum`]).
pub fn corundum() -> Vec<(&'static str, String)> {
    vec![
        ("app_ctrl", verilog(crate::corundum::app_ctrl::AppCtrl::default())),
        ("dma_read", verilog(crate::corundum::dma_read::DmaRead::default())),
        ("dma_write", verilog(crate::corundum::dma_write::DmaWrite::default())),
        ("mac_tap", verilog(crate::corundum::mac_tap::MacTap::default())),
        ("stage_ring", verilog(crate::corundum::stage_ring::StageRing::default())),
    ]
}

fn engine_and_boards() -> Vec<(&'static str, String)> {
    vec![
        ("axil_master", verilog(crate::board::axil_master::AxilMaster::<{ crate::csr::ADDR_BITS }>::default())),
        (
            "board_core",
            verilog(crate::board::core::BoardCore::<
                { board::RAM_BITS },
                { board::STORE_BITS },
                { board::STORE_BITS + 1 },
            >::new(board::TEST_BIT_CYCLES, board::TEST_TIMEOUT)),
        ),
        ("board_ram", verilog(crate::board::board_ram::BoardRam::<{ board::RAM_BITS }>::default())),
        (
            "frame_store",
            verilog(
                crate::board::frame_store::FrameStore::<{ board::STORE_BITS }, { board::STORE_BITS + 1 }>::dropping(),
            ),
        ),
        ("etherbone", verilog(crate::board::etherbone::Etherbone::default())),
        ("mac_adapt", verilog(crate::board::mac_adapt::MacAdapt::default())),
        ("stand_in", verilog(crate::board::stand_in::StandIn::default())),
        ("uart_rx", verilog(crate::board::uart::UartRx::new(board::TEST_BIT_CYCLES))),
        ("uart_tx", verilog(crate::board::uart::UartTx::new(board::TEST_BIT_CYCLES))),
        ("uartbone", verilog(crate::board::uartbone::UartBone::new(board::TEST_TIMEOUT))),
        ("ack_timer", verilog(AckTimerOfCorundum::default())),
        ("ack_gen", verilog(crate::rx::ack_gen::AckGen::<PATH_KEY_BITS>::default())),
        ("cc", verilog(crate::tx::cc::Cc::<PATH_KEY_BITS>::default())),
        ("crc_append", verilog(crate::tx::crc_append::CrcAppend::<false, false>::default())),
        ("crc_append_serial", verilog(crate::tx::crc_append::CrcAppend::<true, false>::default())),
        ("crc_append_half", verilog(crate::tx::crc_append::CrcAppend::<true, true>::default())),
        ("csr", verilog(crate::csr::Csr::default())),
        ("decode256", verilog(crate::blocks::trees::Decode256::default())),
        ("first_set256", verilog(crate::blocks::trees::FirstSet256::default())),
        ("frame_fifo", verilog(crate::rx::frame_fifo::FrameFifo::default())),
        ("health", verilog(crate::tx::health::PathHealth::<PATH_KEY_BITS>::default())),
        ("last_set256", verilog(crate::blocks::trees::LastSet256::default())),
        ("pacer", verilog(crate::engine::pacer::Pacer::<CONN_KEY_BITS>::default())),
        ("popcount256", verilog(crate::blocks::trees::Popcount256::default())),
        ("rate_div", verilog(crate::engine::rate_div::RateDiv::default())),
        ("reg_file", verilog(crate::blocks::trees::RegFile::<Bits<24>, 3, 8>::default())),
        ("retx", verilog(crate::tx::retx::Retx::<PATH_KEY_BITS>::default())),
        ("rto_timer", verilog(crate::engine::rto_timer::RtoTimer::<PATH_KEY_BITS>::default())),
        ("rx_check", verilog(crate::rx::rx_check::RxCheck::default())),
        ("rx_msgs", verilog(crate::rx::rx_msgs::RxMsgs::default())),
        ("rx_parse", verilog(crate::rx::rx_parse::RxParse::<false>::default())),
        ("rx_parse_half", verilog(crate::rx::rx_parse::RxParse::<true>::default())),
        ("rx_path", verilog(crate::rx::rx_path::RxPath::default())),
        ("rx_place", verilog(crate::rx::rx_place::RxPlace::default())),
        ("sack", verilog(crate::rx::sack::Sack::<PATH_KEY_BITS>::new())),
        ("seg_log", verilog(crate::tx::seg_log::SegLog::<{ PATH_KEY_BITS + 8 }>::default())),
        ("segmenter", verilog(crate::tx::segmenter::Segmenter::default())),
        ("spray", verilog(crate::tx::spray::Spray::default())),
        ("thermo256", verilog(crate::blocks::trees::Thermo256::default())),
        ("tx_build", verilog(crate::tx::tx_build::TxBuild::default())),
        ("tx_path", verilog_of(crate::tx::tx_path::TxPath::default)),
    ]
}
