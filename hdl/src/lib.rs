//! ferroce-hdl: the transport engine's RTL blocks in rust-hdl, emitted as
//! Verilog (see [`emit`]).

// rust-hdl block types carry no Debug.
#![allow(missing_debug_implementations)]

pub use rust_hdl;

pub mod ack_gen;
pub mod cc;
pub mod csr;
pub mod emit;
pub mod engine;
pub mod frame_fifo;
pub mod health;
pub mod keyed;
pub mod layout;
pub mod lit;
pub mod pacer;
pub mod rate_div;
pub mod retx;
pub mod rto_timer;
pub mod rx_check;
pub mod rx_msgs;
pub mod rx_parse;
pub mod rx_path;
pub mod rx_place;
pub mod sack;
pub mod seg_log;
pub mod segmenter;
pub mod spray;
pub mod trees;
pub mod tx_build;
pub mod tx_path;
