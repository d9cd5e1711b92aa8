//! Board tops for open FPGA boards (LambdaConcept ECPIX-5, Colorlight
//! 5A-75B): everything between the board's pins and the engine.
//!
//! * [`frame_store`]: whole-frame FIFOs on both sides of the MAC (receive:
//!   drop a frame whole when full, counted; send: the MAC gets each frame
//!   in one go);
//! * [`mac_adapt`]: LiteEth's 64-bit MAC streams to and from AXI-Stream;
//! * [`board_ram`]: on-chip memory standing in for host memory behind the
//!   engine's DMA ports, also on the host bridge's bus;
//! * [`uart`], [`uartbone`], [`axil_master`]: the host bridge, LiteX's
//!   UARTBone protocol to a bus reaching the engine's registers (AXI-Lite)
//!   and the board memory;
//! * [`etherbone`]: the second host bridge, LiteX's Etherbone over UDP on
//!   the Ethernet port (and ARP answers), onto the same bus;
//! * [`stand_in`]: a block with the engine's ports that fits any ECP5 (the
//!   register file, a MAC loopback), until the engine's presets do;
//! * [`core`]: the system-clock side of a board top, with the engine as a
//!   parameter ([`board_core!`](crate::board_core)).

pub mod axil_master;
pub mod board_ram;
pub mod core;
pub mod etherbone;
pub mod frame_store;
pub mod mac_adapt;
pub mod stand_in;
pub mod uart;
pub mod uartbone;
