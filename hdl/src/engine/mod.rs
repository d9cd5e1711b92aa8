//! The engine: its top (`ferroce_engine`, in [`top`], built per preset in
//! [`crate::presets`]) and the blocks it holds that do not depend on a
//! build's sizes (the pacer, its rate divider, the timers, the register
//! structs). The top re-exported here is the `corundum` preset's.

pub mod pacer;
pub mod rate_div;
pub mod regs;
pub mod ack_timer;
pub mod rto_timer;

pub use crate::presets::corundum::top;
pub use top::*;
