//! Blocks with no behavioural form, instantiated as they are: the ECP5's
//! PLL ([`ecp5`]) and the LiteEth core generated at build time
//! ([`liteeth`], `fpga/liteeth/`). Each is a few lines of instantiation;
//! all logic around them is `#[hdl_gen]` rust-hdl.

pub mod ecp5;
pub mod liteeth;
