//! The send path: segmentation, path choice, loss bitmaps, the send log,
//! congestion windows, path health and the frame builder, joined by
//! [`tx_path`].

pub mod cc;
pub mod crc_append;
pub mod health;
pub mod retx;
pub mod rtt;
pub mod seg_log;
pub mod segmenter;
pub mod tx_build;

// Sized by the build: built per preset in `crate::presets`; the
// `corundum` preset's here.
pub use crate::presets::corundum::{repair, spray, tx_path};
