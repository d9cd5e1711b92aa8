//! The send path: segmentation, path choice, loss bitmaps, the send log,
//! congestion windows, path health and the frame builder, joined by
//! [`tx_path`].

pub mod cc;
pub mod health;
pub mod retx;
pub mod rtt;
pub mod seg_log;
pub mod segmenter;
pub mod spray;
pub mod tx_build;
pub mod tx_path;
