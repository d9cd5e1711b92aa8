//! The receive path: parser, frame FIFO, connection and region checks,
//! SACK tracking, message windows, placement and ACK coalescing, joined by
//! [`rx_path`].

pub mod ack_gen;
pub mod frame_fifo;
pub mod rx_fields;
pub mod rx_parse;
pub mod rx_place;
pub mod sack;

// Sized by the build: built per preset in `crate::presets`; the
// `corundum` preset's here.
pub use crate::presets::corundum::{rx_check, rx_msgs, rx_path};
