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
/// Bytes of a SACK bitmap.
pub const SACK_BYTES: usize = SACK_WINDOW / 8;
/// A SACK bitmap as the ACK carries it: slot i in byte i / 8, bit i % 8.
pub type SackBitmap = [u8; SACK_BYTES];
/// Message window per stream: message n + MSG_WINDOW is taken only after
/// message n completed.
pub const MSG_WINDOW: usize = 16;
/// Width of a memory region's remote key.
pub const RKEY_BITS: usize = 32;
/// Width of a connection's generation (common-header byte 15).
pub const GENERATION_BITS: usize = 8;

/// The default hardware build's (`corundum`'s) connection-key width (64
/// connections), from its [`crate::config::EngineConfig`].
pub const CONN_KEY_BITS: usize = crate::config::EngineConfig::CORUNDUM.conn_bits;
/// The default build's path field of a path key (16 paths per connection).
pub const PATH_BITS: usize = crate::config::EngineConfig::CORUNDUM.path_bits;
/// The default build's stream field of a stream key (8 streams per
/// connection).
pub const STREAM_BITS: usize = crate::config::EngineConfig::CORUNDUM.stream_bits;
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

// ---- cc, health, pacer, rate_div ----
// The per-path and per-connection blocks of the
// send side. Operation codes on their `in_op` ports (driven by `tx_path` and
// the engine) and the widths of their fields.

/// `cc`: window width in packets (0..=SACK_WINDOW).
pub const CWND_BITS: usize = SACK_SLOT_BITS + 1;
/// `cc`: `in_op` of an ACK.
pub const CC_OP_ACK: usize = 0;
/// `cc`: `in_op` of a load (the key starts at its cap).
pub const CC_OP_LOAD: usize = 1;
/// `health`: `in_op` of a new packet sent.
pub const HEALTH_OP_SENT: usize = 0;
/// `health`: `in_op` of an ACK.
pub const HEALTH_OP_ACK: usize = 1;
/// `health`: `in_op` of a retransmission timeout.
pub const HEALTH_OP_RTO: usize = 2;
/// `health`: width of the epoch's sent and lost counters (saturating).
pub const HEALTH_EPOCH_BITS: usize = 16;
/// `health`: width of the run of timeouts (saturating).
pub const HEALTH_RTO_BITS: usize = 8;
/// `pacer`: `in_op` LOAD (start at `in_cost`).
pub const PACER_OP_LOAD: usize = 0;
/// `pacer`: `in_op` SET (change the cost).
pub const PACER_OP_SET: usize = 1;
/// `pacer`: `in_op` SEND (bytes left at now).
pub const PACER_OP_SEND: usize = 2;
/// `pacer`: `in_op` QUERY.
pub const PACER_OP_QUERY: usize = 3;
/// `pacer`: width of the time base in cycles.
pub const PACER_TIME_BITS: usize = 48;
/// `rate_div`: bits per byte, in `Pacer::cost_q16`'s numerator.
pub const BITS_PER_BYTE: u64 = 8;

/// Consecutive RTOs on a path after which it gets a new source port: the
/// model's default and the engine's setting.
pub const REPATH_AFTER_RTOS: u32 = 1;

/// Consecutive RTOs on a path after which it takes no new data: the
/// model's default and the engine's setting.
pub const RETIRE_AFTER_RTOS: u32 = 3;

/// A sender counts as active for the receiver's rate hint this long after
/// its last packet (ns): the model's default and the engine's window.
pub const ACTIVE_WINDOW_NS: u64 = 20_000;
