//! Sizes shared by the reference model, the RTL, the driver and the tests:
//! one place for each, so that the RTL's widths and windows follow the
//! protocol instead of being retyped. Codes are the public enums of
//! [`crate::wire`], [`crate::transport`] and [`crate::model`] (each with
//! `ALL` and its wire or hardware code).

/// PSN width in bits (PSNs wrap at 2^24).
pub const PSN_BITS: usize = 24;
/// SACK window: packets a path may have between its cumulative PSN and its
/// highest PSN, and the bits of its SACK bitmap.
pub const SACK_WINDOW: usize = 256;
/// Bits of a slot index in the SACK bitmap (`PSN mod SACK_WINDOW`).
pub const SACK_SLOT_BITS: usize = 8;
/// Message window per stream: message n + MSG_WINDOW is taken only after
/// message n completed.
pub const MSG_WINDOW: usize = 16;
/// Width of a memory region's remote key.
pub const RKEY_BITS: usize = 32;
/// Width of a connection's generation (common-header byte 15).
pub const GENERATION_BITS: usize = 8;

/// Hardware build: connection-key width (64 connections).
pub const CONN_KEY_BITS: usize = 6;
/// Hardware build: path field of a path key (16 paths per connection).
pub const PATH_BITS: usize = 4;
/// Hardware build: stream field of a stream key (8 streams per connection).
pub const STREAM_BITS: usize = 3;
/// Hardware build: memory regions in the receive-side table.
pub const MEMORY_REGIONS: usize = 16;
/// Hardware build: posted receive buffers per stream.
pub const RECV_RING: usize = 16;

const _: () = assert!(1 << SACK_SLOT_BITS == SACK_WINDOW);

// ---- rx_path ----

/// Hardware build: bits of a slot index in a stream's receive-buffer ring.
pub const RECV_RING_BITS: usize = 4;
/// `rx_path`'s receive-completion kinds (`m_cpl_kind`): a SEND arrived in a
/// posted receive buffer.
pub const RX_CPL_RECV: u8 = 1;
/// `rx_path`'s receive-completion kinds (`m_cpl_kind`): a WRITE with
/// immediate arrived.
pub const RX_CPL_WRITE_IMM: u8 = 2;

const _: () = assert!(1 << RECV_RING_BITS == RECV_RING);

// ---- spray ----

/// The xorshift state that replaces a zero seed of the source-port
/// generator (xorshift sticks at 0): `PortGen::new(0)` starts from it.
pub const SPRAY_ZERO_SEED: u32 = 0x2545_f491;
