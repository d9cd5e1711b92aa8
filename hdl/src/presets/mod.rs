//! The engine built per preset: one module per
//! [`ferroce_proto::config::EngineConfig`] preset, each holding the blocks
//! whose widths and table depths follow the build's sizes (the sprayer, the
//! receive path's checks, both paths and the engine top), compiled from the
//! same sources against that preset's [`corundum::cfg`]-like module of
//! sizes. Blocks that do not depend on the sizes, or take them as
//! parameters, are built once, outside.
//!
//! `presets::ecp5_85::top::Engine` is the `ecp5-85` engine; [`built`]
//! finds a preset's by name.

/// The sized modules of one preset, built from `$config`. Invoked from a
/// file in this directory: the paths are relative to it.
macro_rules! preset {
    ($config:expr) => {
        /// This build's sizes, from its configuration.
        pub mod cfg {
            use ferroce_proto::config::EngineConfig;

            /// The configuration.
            pub const CONFIG: EngineConfig = $config;
            const _: () = match CONFIG.check() {
                Ok(()) => (),
                Err(why) => panic!("{}", why),
            };
            /// Connection-key width.
            pub const CONN_KEY_BITS: usize = CONFIG.conn_bits;
            /// Path-field width.
            pub const PATH_BITS: usize = CONFIG.path_bits;
            /// Stream-field width.
            pub const STREAM_BITS: usize = CONFIG.stream_bits;
            /// Path-key width: {connection, path}.
            pub const PATH_KEY_BITS: usize = CONFIG.path_key_bits();
            /// The ACK timers queue their armings (`ack_timer`) rather than scan.
            pub const ACK_QUEUED: bool = CONFIG.ack_timer_queued();
            /// The ACK timers' queue of armings: 2^ACK_QUEUE_BITS entries.
            pub const ACK_QUEUE_BITS: usize = CONFIG.ack_queue_bits();
            /// Stream-key width: {connection, stream}.
            pub const STREAM_KEY_BITS: usize = CONFIG.stream_key_bits();
            /// Connections.
            pub const CONNS: usize = CONFIG.conns();
            /// PSNs a path may have in flight (its send window's slots).
            pub const WINDOW: usize = CONFIG.in_flight_per_path;
            /// Bits of a window slot (PSN mod `WINDOW`).
            pub const WINDOW_SLOT_BITS: usize = CONFIG.window_slot_bits();
            /// Memory regions.
            pub const MRS: usize = CONFIG.memory_regions;
            /// Bits of a memory-region index.
            pub const MR_BITS: usize = CONFIG.memory_regions.trailing_zeros() as usize;
            /// Received headers that may wait for the receive control logic.
            pub const RX_HEADER_QUEUE: usize = CONFIG.rx_header_queue;
            /// The send CRC takes a frame's last zero bytes back serially.
            pub const SERIAL_CRC_TAIL: bool = CONFIG.serial_crc_tail;
            /// The send and receive CRCs take four bytes a cycle, not eight.
            pub const HALF_RATE_CRC: bool = CONFIG.crc_bytes == 4;
            /// One frame builder for data, ACK and NAK frames.
            pub const ONE_FRAME_BUILDER: bool = CONFIG.one_frame_builder;
            /// Tail probes are built in.
            pub const TAIL_PROBES: bool = CONFIG.tail_probes;
            /// Connection-level loss detection by send time is built in.
            pub const RACK: bool = CONFIG.rack;
            /// The connection window is built in.
            pub const CONN_WINDOW: bool = CONFIG.conn_window;
            /// Repairs on a clean route are built in.
            pub const CLEAN_REPAIRS: bool = CONFIG.clean_repairs;
            /// Bits of the DMA addresses the engine drives.
            pub const DMA_ADDR_BITS: usize = CONFIG.dma_addr_bits as usize;
            /// Bits of an address sum with its carry.
            pub const DMA_SUM_BITS: usize = DMA_ADDR_BITS + 1;
            /// The DMA address bits, as a mask of 64.
            pub const DMA_ADDR_MASK: u64 = u64::MAX >> (64 - DMA_ADDR_BITS);
            /// Beats of the receive frame FIFO, log2, and its pointers' bits.
            pub const RX_FIFO_BITS: usize = CONFIG.rx_fifo_beat_bits();
            pub const RX_FIFO_PTR_BITS: usize = RX_FIFO_BITS + 1;
            /// Longest frame the receiver takes (its FIFO's bytes, at most
            /// `MAX_FRAME_LEN`).
            pub const MAX_FRAME_LEN: usize = CONFIG.max_frame_len();
            /// Slot-index bits of the received-header RAM: twice the queue
            /// (two slots, unused, without a queue).
            pub const RX_HEADER_SLOT_BITS: usize = if CONFIG.rx_header_queue == 0 {
                1
            } else {
                CONFIG.rx_header_queue.trailing_zeros() as usize + 1
            };
        }
        #[path = "../csr.rs"]
        pub mod csr;
        #[path = "../tx/spray.rs"]
        pub mod spray;
        #[path = "../tx/repair.rs"]
        pub mod repair;
        #[path = "../tx/tx_path.rs"]
        pub mod tx_path;
        #[path = "../rx/rx_msgs.rs"]
        pub mod rx_msgs;
        #[path = "../rx/rx_check.rs"]
        pub mod rx_check;
        #[path = "../rx/rx_path.rs"]
        pub mod rx_path;
        #[path = "../engine/top.rs"]
        pub mod top;
    };
}

pub mod corundum;
pub mod ecp5_25;
pub mod ecp5_85;

/// An engine this crate builds: its configuration, its block name in
/// `cargo xtask emit`'s output and its emitter.
#[derive(Debug, Clone, Copy)]
pub struct Built {
    pub config: ferroce_proto::config::EngineConfig,
    /// `ferroce_engine` for `corundum` (the default build),
    /// `ferroce_engine_<name>` (dashes as underscores) for the others.
    pub block: &'static str,
    /// The engine's Verilog.
    pub emit: fn() -> String,
}

fn emit_corundum() -> String {
    crate::emit::verilog_of(corundum::top::Engine::default)
}

fn emit_ecp5_85() -> String {
    crate::emit::verilog_of(ecp5_85::top::Engine::default)
}

fn emit_ecp5_25() -> String {
    crate::emit::verilog_of(ecp5_25::top::Engine::default)
}

/// Every preset's engine, in `ferroce_proto::config::PRESETS` order.
pub const BUILT: &[Built] = &[
    Built { config: corundum::cfg::CONFIG, block: "ferroce_engine", emit: emit_corundum },
    Built { config: ecp5_85::cfg::CONFIG, block: "ferroce_engine_ecp5_85", emit: emit_ecp5_85 },
    Built { config: ecp5_25::cfg::CONFIG, block: "ferroce_engine_ecp5_25", emit: emit_ecp5_25 },
];

/// The engine of the preset called `name`, or the error naming the
/// presets.
pub fn built(name: &str) -> Result<&'static Built, String> {
    let config = ferroce_proto::config::preset(name)?;
    BUILT
        .iter()
        .find(|b| b.config.name == config.name)
        .ok_or_else(|| format!("preset {name} has no engine in ferroce_hdl::presets"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_preset_has_its_engine() {
        let names: Vec<_> = super::BUILT.iter().map(|b| b.config).collect();
        assert_eq!(names, ferroce_proto::config::PRESETS);
        assert_eq!(super::built("corundum").map(|b| b.block), Ok("ferroce_engine"));
        assert!(super::built("ecp5").unwrap_err().contains("the presets are"));
    }
}
