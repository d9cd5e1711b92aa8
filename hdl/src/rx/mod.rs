//! The receive path: parser, frame FIFO, connection and region checks,
//! SACK tracking, message windows, placement and ACK coalescing, joined by
//! [`rx_path`].

pub mod ack_gen;
pub mod frame_fifo;
pub mod rx_check;
pub mod rx_fields;
pub mod rx_msgs;
pub mod rx_parse;
pub mod rx_path;
pub mod rx_place;
pub mod sack;
