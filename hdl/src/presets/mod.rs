//! The engine built per preset: one module per
//! [`ferroce_proto::config::EngineConfig`] preset, each holding the blocks
//! whose widths and table depths follow the build's sizes (the sprayer, the
//! receive path's checks, both paths and the engine top), compiled from the
//! same sources against that preset's [`corundum::cfg`]-like module of
//! sizes. Blocks that do not depend on the sizes, or take them as
//! parameters, are built once, outside.
//!
//! `presets::ecp5_85::top::Engine` is the `ecp5-85` engine; [`emit_engine`]
//! emits a preset's by name.

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
            /// Stream-key width: {connection, stream}.
            pub const STREAM_KEY_BITS: usize = CONFIG.stream_key_bits();
            /// Connections.
            pub const CONNS: usize = CONFIG.conns();
        }
        #[path = "../csr.rs"]
        pub mod csr;
        #[path = "../tx/spray.rs"]
        pub mod spray;
        #[path = "../tx/tx_path.rs"]
        pub mod tx_path;
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

/// The block name of a preset's engine in `cargo xtask emit`'s output:
/// `ferroce_engine` for `corundum` (the default build),
/// `ferroce_engine_<name>` (dashes as underscores) for the others.
pub fn engine_block_name(name: &str) -> &'static str {
    match name {
        "ecp5-85" => "ferroce_engine_ecp5_85",
        "ecp5-25" => "ferroce_engine_ecp5_25",
        _ => "ferroce_engine",
    }
}

/// The Verilog of the engine of the preset called `name`.
pub fn emit_engine(name: &str) -> Result<String, String> {
    let config = ferroce_proto::config::preset(name)?;
    Ok(match config.name {
        "corundum" => crate::emit::verilog_of(corundum::top::Engine::default),
        "ecp5-85" => crate::emit::verilog_of(ecp5_85::top::Engine::default),
        "ecp5-25" => crate::emit::verilog_of(ecp5_25::top::Engine::default),
        other => return Err(format!("preset {other} is not built in ferroce_hdl::presets")),
    })
}
