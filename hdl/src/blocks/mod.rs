//! The building-block library: small rust-hdl blocks and conventions that
//! the engine's blocks are written with (see docs/rtl.md).

pub mod keyed;
pub mod trees;

pub use ferroce_hdl_macros::{HdlDefault, HdlStruct};
