//! ferroce as Corundum's application block (`mqnic_app_block`, see
//! `fpga/corundum/` and docs/corundum.md): the blocks between Corundum's
//! interfaces and the engine.
//!
//! * [`stage_ring`]: space in a staging RAM, taken and given back in order;
//! * [`dma_read`], [`dma_write`]: the engine's streaming DMA ports on
//!   Corundum's RAM-based, descriptor-driven DMA;
//! * [`mac_tap`]: ferroce's frames to and from the engine on a port's
//!   synchronous MAC streams, everything else passed through;
//! * [`app_ctrl`]: BAR2 to the engine's registers and the application
//!   block (APP_ID, error and frame counters).

pub mod app;
pub mod app_ctrl;
pub mod dma_read;
pub mod dma_write;
pub mod mac_tap;
pub mod stage_ring;

/// DMA operations in flight each way.
pub const SLOTS: usize = 8;
/// Bits of a slot number, which is the tag of the slot's DMA operation
/// (the shim checks that Corundum's tags are at least as wide).
pub const SLOT_BITS: usize = 3;
const _: () = assert!(1 << SLOT_BITS == SLOTS);
