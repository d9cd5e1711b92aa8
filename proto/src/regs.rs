//! The register map: the single source of truth for the RTL register decoder,
//! the driver's accessors and `docs/regmap.md`.
//!
//! Like Corundum, the engine's registers are a chain of blocks. Every block
//! starts with three registers: type (+0x00), version (+0x04) and the offset
//! of the next block from the start of the region (+0x08, 0 for the last).
//! A driver walks the chain and never hard-codes a base address.

// The settings at reset, shared with the model and the driver.
use crate::defaults::DEFAULTS as D;

/// How software may access a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read-only, set by the hardware; writes are answered with an error.
    Ro,
    /// Read-only constant of the build (its reset value); writes are
    /// answered with an error.
    Const,
    /// Read-write.
    Rw,
    /// Write-only (doorbells, commands); reads return 0.
    Wo,
}

impl Access {
    fn as_str(self) -> &'static str {
        match self {
            Access::Ro => "RO",
            Access::Const => "RO (constant)",
            Access::Rw => "RW",
            Access::Wo => "WO",
        }
    }
}

/// The values a register takes, `min..=max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub min: u32,
    pub max: u32,
}

impl Bounds {
    pub const fn contains(self, value: u32) -> bool {
        self.min <= value && value <= self.max
    }
}

impl core::fmt::Display for Bounds {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}..={}", self.min, self.max)
    }
}

/// One 32-bit register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Register {
    pub name: &'static str,
    /// Byte offset within the block (multiple of 4).
    pub offset: u32,
    pub access: Access,
    pub reset: u32,
    pub doc: &'static str,
    /// Values a write may leave in the register (`None`: any). A write that
    /// would leave another is answered with an error and changes nothing:
    /// these are values the hardware cannot use (a field narrower than 32
    /// bits, a timer beyond its reach, a zero it would divide or loop by).
    pub range: Option<Bounds>,
    /// Self-clearing bits: a write of 1 acts once and the bit reads as 0
    /// (it is never stored).
    pub pulse: u32,
}

impl Register {
    /// The register, taking only `min..=max`.
    const fn within(self, min: u32, max: u32) -> Register {
        Register { range: Some(Bounds { min, max }), ..self }
    }

    /// The register with self-clearing bits `mask`.
    const fn pulsing(self, mask: u32) -> Register {
        Register { pulse: mask, ..self }
    }
}

/// A register block.
#[derive(Debug, Clone, Copy)]
pub struct Block {
    pub name: &'static str,
    pub type_id: u32,
    pub version: u32,
    pub doc: &'static str,
    /// Registers after the three header registers.
    pub regs: &'static [Register],
}

/// Size of every block's address window.
pub const BLOCK_SPAN: u32 = 0x100;
/// Version of every block in this release: major.minor.patch as 0x00MMmmpp.
pub const VERSION: u32 = 0x0000_0100;
/// Corundum's application-info block type in BAR0.
pub const CORUNDUM_APP_INFO_TYPE: u32 = 0x0000_c005;
/// APP_ID that ferroce reports in Corundum's app-info block ("FERO").
pub const APP_ID: u32 = 0x4645_524f;

/// Largest payload per packet (`engine_info.max_mtu`).
pub const MAX_MTU: u32 = crate::config::EngineConfig::CORUNDUM.max_mtu;
/// Connections of this build (`engine_info.max_conns`).
pub const MAX_CONNS: u32 = crate::config::EngineConfig::CORUNDUM.conns() as u32;
/// Paths per connection (`engine_info.max_paths`).
pub const MAX_PATHS: u32 = crate::config::EngineConfig::CORUNDUM.paths() as u32;
/// Streams per connection (`engine_info.max_streams`).
pub const MAX_STREAMS: u32 = crate::config::EngineConfig::CORUNDUM.streams() as u32;
/// Clock period in picoseconds (`engine_info.clock_ps`).
pub const CLOCK_PS: u32 = crate::config::EngineConfig::CORUNDUM.clock_ps;
/// Packets a path may have in flight (`engine_info.max_in_flight`).
pub const MAX_IN_FLIGHT: u32 = crate::config::EngineConfig::CORUNDUM.in_flight_per_path as u32;
/// Memory-region slots (`engine_info.max_mrs`).
pub const MAX_MRS: u32 = crate::config::EngineConfig::CORUNDUM.memory_regions as u32;
/// Bits of the engine's DMA addresses (`engine_info.dma_addr_bits`).
pub const DMA_ADDR_BITS: u32 = crate::config::EngineConfig::CORUNDUM.dma_addr_bits;
/// Loss-recovery mechanisms built in (`engine_info.recovery`).
pub const RECOVERY_BUILT: u32 = crate::config::EngineConfig::CORUNDUM.recovery_built();
/// `engine_info.recovery`: tail probes are built in.
pub const BUILT_TAIL_PROBES: u32 = 1;
/// `engine_info.recovery`: connection-level loss detection (`rack`) is
/// built in.
pub const BUILT_RACK: u32 = 2;
/// `engine_info.recovery`: the connection window (`conn_window`) is built
/// in.
pub const BUILT_CONN_WINDOW: u32 = 4;
/// `engine_info.recovery`: repairs on a clean route (`repair_route`) are
/// built in.
pub const BUILT_CLEAN_REPAIRS: u32 = 8;
/// Largest PSN (24 bits).
const PSN_MAX: u32 = (1 << 24) - 1;
/// Largest value of a 16-bit field.
const U16: u32 = u16::MAX as u32;
/// Longest delay of the engine's timers in ns: they compare 32-bit
/// deadlines as signed differences, so one further ahead would look past.
const TIMER_NS: u32 = i32::MAX as u32;
/// Largest ring-size exponent: the engine keeps five bits of it.
const RING_LOG: u32 = 31;

const fn r(name: &'static str, offset: u32, access: Access, reset: u32, doc: &'static str) -> Register {
    Register { name, offset, access, reset, doc, range: None, pulse: 0 }
}

use Access::{Const, Ro, Rw, Wo};

/// Every block in chain order.
pub const BLOCKS: &[Block] = &[
    Block {
        name: "engine_info",
        type_id: 0x4645_0001,
        version: VERSION,
        doc: "What this engine was built with.",
        regs: &[
            r("build_id", 0x0c, Const, 0, "build identifier (set at generation)"),
            r("data_width", 0x10, Const, 64, "MAC and DMA data width in bits"),
            r("max_conns", 0x14, Const, MAX_CONNS, "connections supported"),
            r("max_paths", 0x18, Const, MAX_PATHS, "paths per connection supported"),
            r("max_streams", 0x1c, Const, MAX_STREAMS, "streams per connection supported"),
            r("max_mtu", 0x20, Const, MAX_MTU, "largest payload per packet in bytes"),
            r(
                "clock_ps",
                0x24,
                Const,
                CLOCK_PS,
                "clock period in picoseconds (the engine's time base counts ns from it)",
            ),
            r(
                "max_in_flight",
                0x28,
                Const,
                MAX_IN_FLIGHT,
                "packets a path may have in flight (its send window's slots; at most the 256 of a SACK)",
            ),
            r("max_mrs", 0x2c, Const, MAX_MRS, "memory-region slots (`mr_table.index` below it)"),
            r(
                "dma_addr_bits",
                0x30,
                Const,
                DMA_ADDR_BITS,
                "bits of the DMA addresses the engine drives: rings, buffers and regions lie below 2^this, and the \
                 `_hi` halves of ring bases and of region bases and lengths are bounded by it",
            ),
            r(
                "recovery",
                0x34,
                Const,
                RECOVERY_BUILT,
                "loss-recovery mechanisms built in beyond v0's: bit 0 tail probes (`control.recovery` bit 8); bit 1 \
                 connection-level loss detection by send time (`control.recovery` bit 9); bit 2 the connection \
                 window (`control.recovery` bit 10); bit 3 repairs on a clean route (`control.recovery` bit \
                 11)",
            ),
        ],
    },
    Block {
        name: "control",
        type_id: 0x4645_0002,
        version: VERSION,
        doc: "Enable, addresses and transport timing.",
        regs: &[
            r("ctrl", 0x0c, Rw, 0, "bit0 enable; bit1 clear statistics (self-clearing)").pulsing(0b10),
            r("status", 0x10, Ro, 0, "bit0 running; bit1 a DMA error was seen"),
            r("mac_lo", 0x14, Rw, 0, "local MAC address bytes 2-5 (byte 2 in bits 31:24)"),
            r("mac_hi", 0x18, Rw, 0, "local MAC address bytes 0-1 in bits 15:0").within(0, U16),
            r("ip", 0x1c, Rw, 0, "local IPv4 address"),
            r("udp_port", 0x20, Rw, D.udp_port as u32, "UDP destination port of ferroce").within(0, U16),
            r("line_rate_mbps", 0x24, Rw, D.line_rate_mbps, "line rate used for pacing and the rate hint")
                .within(1, u32::MAX),
            r("mtu", 0x28, Rw, D.mtu, "payload bytes per packet").within(1, MAX_MTU),
            r("ack_every", 0x2c, Rw, D.ack_every as u32, "ACK after this many data packets on a path").within(1, U16),
            r("ack_delay_ns", 0x30, Rw, D.ack_delay_ns, "...or this long after the first unacknowledged one")
                .within(0, TIMER_NS),
            r("rto_min_ns", 0x34, Rw, D.rto_min_ns, "lower bound of the retransmission timeout").within(0, TIMER_NS),
            r("rnr_delay_ns", 0x38, Rw, D.rnr_delay_ns, "retry delay after a SEND found no receive buffer")
                .within(0, TIMER_NS),
            r(
                "port_seed",
                0x3c,
                Rw,
                D.port_seed,
                "seed of the source-port generator; writing it reseeds (0: a fixed seed)",
            ),
            r(
                "recovery",
                0x40,
                Rw,
                D.recovery.word(),
                "loss recovery: bits 2:0 RTO doublings at most; 5:3 re-path when an epoch's losses << this >= its \
                 packets; bit 6 ECN cuts the paths' windows; bit 7 no rate hint in the first activity window; bit 8 \
                 tail probes (a build without them, `engine_info.recovery` bit 0 clear, takes 0 to 0xff); bit 9 \
                 connection-level loss detection by send time (a build without it, `engine_info.recovery` bit 1 \
                 clear, takes 0 to 0x1ff); bit 10 a window per connection over all its paths, ECN AIMD capped by \
                 the rate hint (a build without it, `engine_info.recovery` bit 2 clear, takes 0 to 0x3ff); bit 11 \
                 retransmissions on the route of the connection's cleanest other live path (a build without it, \
                 `engine_info.recovery` bit 3 clear, takes 0 to 0x7ff); bit 12 connection-level loss detection \
                 without its wait on the ACK's own path, against that path's own latest acknowledged packet (with \
                 bit 9)",
            )
            .within(0, 0x1fff),
            r(
                "window_cap",
                0x44,
                Rw,
                D.window_cap,
                "packets a path may have in flight at most (its window's cap): a sender talking to a build with a \
                 smaller window sets that build's max_in_flight here; at most this build's max_in_flight",
            )
            .within(1, MAX_IN_FLIGHT),
            r(
                "window_scale",
                0x48,
                Rw,
                D.recovery.window_scale() as u32,
                "the connection window's bytes per Mb/s of rate hint, 2^-16 units: the fabric's base RTT plus a \
                 quarter at 1 Mb/s (`Recovery::window_scale`; reset: 10 us, 1.5625 bytes); the window is capped at \
                 these bytes of its receiver's hint in frames, plus two",
            )
            .within(0, (1 << crate::model::Recovery::WINDOW_SCALE_BITS) - 1),
        ],
    },
    Block {
        name: "conn_table",
        type_id: 0x4645_0003,
        version: VERSION,
        doc: "Connection table, written through a window: set the fields, then `cmd`.",
        regs: &[
            r("index", 0x0c, Rw, 0, "connection number the window refers to"),
            r("remote_id", 0x10, Rw, 0, "the peer's number for this connection"),
            r("peer_ip", 0x14, Rw, 0, "peer IPv4 address"),
            r("peer_mac_lo", 0x18, Rw, 0, "peer MAC bytes 2-5"),
            r("peer_mac_hi", 0x1c, Rw, 0, "peer MAC bytes 0-1").within(0, U16),
            r("paths", 0x20, Rw, 1, "paths, 1 to max_paths (checked by `cmd`)"),
            r("streams", 0x24, Rw, 1, "streams, 1 to max_streams (checked by `cmd`)"),
            r("initial_rate_mbps", 0x28, Rw, 0, "rate before the first ACK (0: line rate)"),
            r("cmd", 0x2c, Wo, 0, "1 write the entry at index; 2 read it into the window; 3 close it"),
            r("cmd_status", 0x30, Ro, 0, "0 done; 1 busy; 2 bad index or value"),
            r("tx_psn", 0x34, Rw, 0, "first PSN this side sends on every path").within(0, PSN_MAX),
            r("rx_psn", 0x38, Rw, 0, "first PSN expected from the peer on every path (its tx_psn)").within(0, PSN_MAX),
            r("generation", 0x3c, Rw, 0, "generation of this life of the connection, the same at both ends")
                .within(0, 255),
        ],
    },
    Block {
        name: "path_table",
        type_id: 0x4645_0004,
        version: VERSION,
        doc: "Per-path state, read through a window.",
        regs: &[
            r("index", 0x0c, Rw, 0, "connection * max_paths + path").within(0, MAX_CONNS * MAX_PATHS - 1),
            r("sport", 0x10, Ro, 0, "current UDP source port"),
            r("cwnd", 0x14, Ro, 0, "window in packets (16.16 fixed point)"),
            r("srtt_ns", 0x18, Ro, 0, "smoothed RTT"),
            r("state", 0x1c, Ro, 0, "bit0 retired"),
            r("sent", 0x20, Ro, 0, "data packets sent"),
            r("retransmitted", 0x24, Ro, 0, "packets retransmitted"),
            r("ecn_echoes", 0x28, Ro, 0, "CE marks echoed by the receiver"),
        ],
    },
    Block {
        name: "mr_table",
        type_id: 0x4645_0005,
        version: VERSION,
        doc: "Memory regions open to remote WRITEs, written through a window.",
        regs: &[
            r("index", 0x0c, Rw, 0, "table slot").within(0, MAX_MRS - 1),
            r("rkey", 0x10, Rw, 0, "remote key"),
            r("base_lo", 0x14, Rw, 0, "region start, bits 31:0"),
            r("base_hi", 0x18, Rw, 0, "region start, bits 63:32"),
            r("len_lo", 0x1c, Rw, 0, "region length, bits 31:0"),
            r("len_hi", 0x20, Rw, 0, "region length, bits 63:32"),
            r("access", 0x24, Rw, 0, "bit0 remote write"),
            r("conn", 0x28, Rw, 0, "the only connection allowed to write").within(0, U16),
            r("cmd", 0x2c, Wo, 0, "1 write the slot; 2 read it into the window; 3 invalidate it"),
            r("cmd_status", 0x30, Ro, 0, "0 done; 1 busy; 2 bad slot or value"),
        ],
    },
    Block {
        name: "queues",
        type_id: 0x4645_0006,
        version: VERSION,
        doc: "Send, receive and completion rings in host memory, and their doorbells.",
        regs: &[
            r("sq_base_lo", 0x0c, Rw, 0, "send queue ring address, bits 31:0"),
            r("sq_base_hi", 0x10, Rw, 0, "send queue ring address, bits 63:32"),
            r("sq_log_size", 0x14, Rw, 0, "log2 of send queue entries (0: the ring is off)").within(0, RING_LOG),
            r("sq_prod", 0x18, Rw, 0, "send queue producer index: the doorbell"),
            r("sq_cons", 0x1c, Ro, 0, "send queue consumer index"),
            r("rq_base_lo", 0x20, Rw, 0, "receive queue ring address, bits 31:0"),
            r("rq_base_hi", 0x24, Rw, 0, "receive queue ring address, bits 63:32"),
            r("rq_log_size", 0x28, Rw, 0, "log2 of receive queue entries (0: the ring is off)").within(0, RING_LOG),
            r("rq_prod", 0x2c, Rw, 0, "receive queue producer index: the doorbell"),
            r("rq_cons", 0x30, Ro, 0, "receive queue consumer index"),
            r("cq_base_lo", 0x34, Rw, 0, "completion ring address, bits 31:0"),
            r("cq_base_hi", 0x38, Rw, 0, "completion ring address, bits 63:32"),
            r("cq_log_size", 0x3c, Rw, 0, "log2 of completion ring entries").within(0, RING_LOG),
            r("cq_prod", 0x40, Ro, 0, "completion producer index"),
            r("cq_cons", 0x44, Rw, 0, "completion consumer index, written by the host"),
        ],
    },
    Block {
        name: "stats",
        type_id: 0x4645_0007,
        version: VERSION,
        doc: "Counters (32-bit, wrapping), cleared by control.ctrl bit1.",
        regs: &[
            r("tx_data", 0x0c, Ro, 0, "data packets sent"),
            r("tx_retx", 0x10, Ro, 0, "data packets retransmitted"),
            r("tx_acks", 0x14, Ro, 0, "ACKs sent"),
            r("tx_naks", 0x18, Ro, 0, "NAKs sent"),
            r("rx_data", 0x1c, Ro, 0, "data packets received"),
            r("rx_dup", 0x20, Ro, 0, "duplicate data packets"),
            r("rx_out_of_window", 0x24, Ro, 0, "data packets beyond the SACK window"),
            r("rx_malformed", 0x28, Ro, 0, "frames dropped by the parser (length, CRC, opcode, MAC-flagged)"),
            r("rx_bad_conn", 0x2c, Ro, 0, "frames of no connection: unknown, wrong peer or generation"),
            r("rx_access_violation", 0x30, Ro, 0, "data packets refused and NAK'd (region, buffer size, window)"),
            r("rx_no_recv", 0x34, Ro, 0, "SENDs without a receive buffer"),
            r("rx_ecn_ce", 0x38, Ro, 0, "CE-marked data packets"),
            r("rtos", 0x3c, Ro, 0, "retransmission timeouts"),
            r("repaths", 0x40, Ro, 0, "paths moved to a new source port"),
            r("bytes_placed_lo", 0x44, Ro, 0, "payload bytes written to host memory, bits 31:0"),
            r("bytes_placed_hi", 0x48, Ro, 0, "payload bytes written to host memory, bits 63:32"),
            r("tail_probes", 0x4c, Ro, 0, "packets resent by tail probes"),
        ],
    },
];

/// Byte offset of block `i` in the register region.
pub const fn block_base(i: usize) -> u32 {
    i as u32 * BLOCK_SPAN
}

/// A register of the map as a typed handle: its block's and its own place
/// in [`BLOCKS`]. The constants in the per-block modules ([`control::MTU`],
/// [`queues::SQ_PROD`], ...) are found in the map when the crate compiles
/// (a name the map lacks does not compile), and the map's tests check that
/// every register has exactly one; nothing looks a register up by name at
/// run time but the CLI, which takes names from its user ([`Reg::find`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reg {
    /// Index of the block in [`BLOCKS`].
    pub block: usize,
    /// Index of the register in its block's `regs`.
    pub index: usize,
}

impl Reg {
    /// `block.name` in the map; in a constant, a name the map lacks stops
    /// the build.
    pub const fn named(block: &str, name: &str) -> Reg {
        let mut b = 0;
        while b < BLOCKS.len() {
            if crate::str_eq(BLOCKS[b].name, block) {
                let mut r = 0;
                while r < BLOCKS[b].regs.len() {
                    if crate::str_eq(BLOCKS[b].regs[r].name, name) {
                        return Reg { block: b, index: r };
                    }
                    r += 1;
                }
            }
            b += 1;
        }
        panic!("no such register in the register map")
    }

    /// `block.name`, from names a user typed.
    pub fn find(block: &str, name: &str) -> Option<Reg> {
        let b = BLOCKS.iter().position(|x| x.name == block)?;
        let r = BLOCKS[b].regs.iter().position(|x| x.name == name)?;
        Some(Reg { block: b, index: r })
    }

    /// The register at absolute offset `offset` in the map's own layout.
    pub fn at(offset: u32) -> Option<Reg> {
        ALL_HANDLES.iter().flat_map(|b| b.iter()).copied().find(|r| r.offset() == offset)
    }

    /// The register's description.
    pub const fn register(self) -> &'static Register {
        &BLOCKS[self.block].regs[self.index]
    }

    /// Its block's name.
    pub const fn block_name(self) -> &'static str {
        BLOCKS[self.block].name
    }

    /// Byte offset within its block.
    pub const fn offset_in_block(self) -> u32 {
        self.register().offset
    }

    /// Absolute offset in the map's own layout (blocks [`BLOCK_SPAN`]
    /// apart, as the engine lays them out; a driver adds the block's base
    /// it found instead).
    pub const fn offset(self) -> u32 {
        block_base(self.block) + self.register().offset
    }
}

impl core::fmt::Display for Reg {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{}", self.block_name(), self.register().name)
    }
}

/// One module per block, one [`Reg`] per register, named as in the map in
/// upper case; `ALL` lists the block's handles in map order.
macro_rules! handles {
    ($($block:ident { $($konst:ident = $name:literal),* $(,)? })*) => {
        $(
            #[doc = concat!("Handles of the `", stringify!($block), "` block's registers.")]
            pub mod $block {
                use super::Reg;
                $(
                    #[doc = concat!("`", stringify!($block), ".", $name, "`")]
                    pub const $konst: Reg = Reg::named(stringify!($block), $name);
                )*
                /// Every handle of this block, in map order.
                pub const ALL: &[Reg] = &[$($konst),*];
            }
        )*
        /// Every handle, block by block.
        pub const ALL_HANDLES: &[&[Reg]] = &[$($block::ALL),*];
    };
}

handles! {
    engine_info {
        BUILD_ID = "build_id", DATA_WIDTH = "data_width", MAX_CONNS = "max_conns", MAX_PATHS = "max_paths",
        MAX_STREAMS = "max_streams", MAX_MTU = "max_mtu", CLOCK_PS = "clock_ps", MAX_IN_FLIGHT = "max_in_flight",
        MAX_MRS = "max_mrs", DMA_ADDR_BITS = "dma_addr_bits", RECOVERY = "recovery",
    }
    control {
        CTRL = "ctrl", STATUS = "status", MAC_LO = "mac_lo", MAC_HI = "mac_hi", IP = "ip", UDP_PORT = "udp_port",
        LINE_RATE_MBPS = "line_rate_mbps", MTU = "mtu", ACK_EVERY = "ack_every", ACK_DELAY_NS = "ack_delay_ns",
        RTO_MIN_NS = "rto_min_ns", RNR_DELAY_NS = "rnr_delay_ns", PORT_SEED = "port_seed", RECOVERY = "recovery",
        WINDOW_CAP = "window_cap", WINDOW_SCALE = "window_scale",
    }
    conn_table {
        INDEX = "index", REMOTE_ID = "remote_id", PEER_IP = "peer_ip", PEER_MAC_LO = "peer_mac_lo",
        PEER_MAC_HI = "peer_mac_hi", PATHS = "paths", STREAMS = "streams", INITIAL_RATE_MBPS = "initial_rate_mbps",
        CMD = "cmd", CMD_STATUS = "cmd_status", TX_PSN = "tx_psn", RX_PSN = "rx_psn", GENERATION = "generation",
    }
    path_table {
        INDEX = "index", SPORT = "sport", CWND = "cwnd", SRTT_NS = "srtt_ns", STATE = "state", SENT = "sent",
        RETRANSMITTED = "retransmitted", ECN_ECHOES = "ecn_echoes",
    }
    mr_table {
        INDEX = "index", RKEY = "rkey", BASE_LO = "base_lo", BASE_HI = "base_hi", LEN_LO = "len_lo",
        LEN_HI = "len_hi", ACCESS = "access", CONN = "conn", CMD = "cmd", CMD_STATUS = "cmd_status",
    }
    queues {
        SQ_BASE_LO = "sq_base_lo", SQ_BASE_HI = "sq_base_hi", SQ_LOG_SIZE = "sq_log_size", SQ_PROD = "sq_prod",
        SQ_CONS = "sq_cons", RQ_BASE_LO = "rq_base_lo", RQ_BASE_HI = "rq_base_hi", RQ_LOG_SIZE = "rq_log_size",
        RQ_PROD = "rq_prod", RQ_CONS = "rq_cons", CQ_BASE_LO = "cq_base_lo", CQ_BASE_HI = "cq_base_hi",
        CQ_LOG_SIZE = "cq_log_size", CQ_PROD = "cq_prod", CQ_CONS = "cq_cons",
    }
    stats {
        TX_DATA = "tx_data", TX_RETX = "tx_retx", TX_ACKS = "tx_acks", TX_NAKS = "tx_naks", RX_DATA = "rx_data",
        RX_DUP = "rx_dup", RX_OUT_OF_WINDOW = "rx_out_of_window", RX_MALFORMED = "rx_malformed",
        RX_BAD_CONN = "rx_bad_conn", RX_ACCESS_VIOLATION = "rx_access_violation", RX_NO_RECV = "rx_no_recv",
        RX_ECN_CE = "rx_ecn_ce", RTOS = "rtos", REPATHS = "repaths", BYTES_PLACED_LO = "bytes_placed_lo",
        BYTES_PLACED_HI = "bytes_placed_hi", TAIL_PROBES = "tail_probes",
    }
}

/// Registers software writes (RW and WO), in map order: the RTL exposes
/// them as one bus, register i at bits 32i..32i+31.
pub fn stored() -> Vec<(u32, &'static Register)> {
    all_regs().filter(|(_, r)| matches!(r.access, Access::Rw | Access::Wo)).collect()
}

/// Registers the hardware sets (RO, not constants), in map order: the RTL
/// takes them as one input bus.
pub fn hardware() -> Vec<(u32, &'static Register)> {
    all_regs().filter(|(_, r)| r.access == Access::Ro).collect()
}

/// Every register with its absolute offset.
pub fn all_regs() -> impl Iterator<Item = (u32, &'static Register)> {
    BLOCKS.iter().enumerate().flat_map(|(i, b)| b.regs.iter().map(move |r| (block_base(i) + r.offset, r)))
}

/// Number of [`stored`] registers.
pub const N_STORED: usize = count(&[Access::Rw, Access::Wo]);
/// Number of [`hardware`] registers.
pub const N_HARDWARE: usize = count(&[Access::Ro]);
/// Bytes spanned by the register region.
pub const REGION_BYTES: u32 = BLOCKS.len() as u32 * BLOCK_SPAN;

const fn count(kinds: &[Access]) -> usize {
    let mut n = 0;
    let mut b = 0;
    while b < BLOCKS.len() {
        let mut r = 0;
        while r < BLOCKS[b].regs.len() {
            let mut k = 0;
            while k < kinds.len() {
                if BLOCKS[b].regs[r].access as u8 == kinds[k] as u8 {
                    n += 1;
                }
                k += 1;
            }
            r += 1;
        }
        b += 1;
    }
    n
}

/// Header registers every block starts with.
const HEADER: [(&str, u32); 3] = [("type", 0x00), ("version", 0x04), ("next", 0x08)];

/// What an AXI-Lite access to the register region answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusError {
    /// No register at that address, or not 4-byte aligned (AXI SLVERR).
    Unmapped,
    /// Write to a read-only register (AXI SLVERR); nothing changes.
    ReadOnly,
    /// Write that would leave a value outside the register's
    /// [`Register::range`] (AXI SLVERR); nothing changes.
    OutOfRange,
}

/// The register file as the RTL decoder must behave: the reference for the
/// CSR block and the RAM-backed twin for driver tests. Hardware-updated
/// registers (status, counters) are set with [`RegFile::set`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegFile {
    values: Vec<u32>,
}

impl Default for RegFile {
    fn default() -> Self {
        Self::new()
    }
}

impl RegFile {
    /// All registers at their reset values.
    pub fn new() -> RegFile {
        let mut values = vec![0u32; BLOCKS.len() * BLOCK_SPAN as usize / 4];
        for (i, b) in BLOCKS.iter().enumerate() {
            let base = block_base(i) as usize / 4;
            values[base] = b.type_id;
            values[base + 1] = b.version;
            values[base + 2] = if i + 1 < BLOCKS.len() { block_base(i + 1) } else { 0 };
            for r in b.regs {
                values[base + r.offset as usize / 4] = r.reset;
            }
        }
        RegFile { values }
    }

    /// The access type of the register at `addr`, its range, if any, and
    /// its self-clearing bits.
    fn lookup(addr: u32) -> Option<(Access, Option<Bounds>, u32)> {
        if addr % 4 != 0 {
            return None;
        }
        let i = (addr / BLOCK_SPAN) as usize;
        let off = addr % BLOCK_SPAN;
        let b = BLOCKS.get(i)?;
        if HEADER.iter().any(|&(_, o)| o == off) {
            return Some((Access::Ro, None, 0));
        }
        b.regs.iter().find(|r| r.offset == off).map(|r| (r.access, r.range, r.pulse))
    }

    /// Bus read.
    pub fn read(&self, addr: u32) -> core::result::Result<u32, BusError> {
        match Self::lookup(addr) {
            None => Err(BusError::Unmapped),
            Some((Access::Wo, _, _)) => Ok(0),
            Some(_) => Ok(self.values[addr as usize / 4]),
        }
    }

    /// Bus write.
    pub fn write(&mut self, addr: u32, value: u32) -> core::result::Result<(), BusError> {
        match Self::lookup(addr) {
            None => Err(BusError::Unmapped),
            Some((Access::Ro | Access::Const, _, _)) => Err(BusError::ReadOnly),
            Some((_, Some(b), _)) if !b.contains(value) => Err(BusError::OutOfRange),
            Some((_, _, pulse)) => {
                self.values[addr as usize / 4] = value & !pulse;
                Ok(())
            }
        }
    }

    /// Bus write with byte enables (`strb` bit i enables byte i, least
    /// significant first), as AXI-Lite does.
    pub fn write_strobed(&mut self, addr: u32, value: u32, strb: u8) -> core::result::Result<(), BusError> {
        let old = self.read(addr).map(|_| self.get_raw(addr))?;
        let mut mask = 0u32;
        for i in 0..4 {
            if strb & (1 << i) != 0 {
                mask |= 0xff << (8 * i);
            }
        }
        self.write(addr, (old & !mask) | (value & mask))
    }

    fn get_raw(&self, addr: u32) -> u32 {
        self.values[addr as usize / 4]
    }

    /// Hardware-side update of any mapped register.
    pub fn set(&mut self, addr: u32, value: u32) {
        assert!(Self::lookup(addr).is_some(), "unmapped register {addr:#x}");
        self.values[addr as usize / 4] = value;
    }

    /// Raw value of a mapped register (write-only ones included), for the
    /// hardware side of a model.
    pub fn get(&self, addr: u32) -> u32 {
        self.values[addr as usize / 4]
    }
}

/// `docs/regmap.md`, generated from [`BLOCKS`].
pub fn markdown() -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "# ferroce register map\n");
    let _ = writeln!(
        s,
        "Generated by `cargo xtask docs` from `proto/src/regs.rs`; do not edit by hand \
         (CI fails when this file is stale).\n\n\
         All registers are 32 bits wide and 4-byte aligned. The region is a chain of \
         blocks, Corundum style: each starts with `type` (+0x00), `version` (+0x04) and \
         `next` (+0x08, offset of the next block from the start of the region, 0 for the \
         last). A driver walks the chain from offset 0. Reads or writes of unmapped or \
         misaligned addresses, writes to RO registers, and writes that would leave a \
         register outside its range (the `range` column, inclusive; empty: any 32-bit \
         value) answer SLVERR and change nothing; WO registers read as 0. Under Corundum the region is the application \
         BAR (BAR2) and Corundum's app-info block (type {CORUNDUM_APP_INFO_TYPE:#06x}) in \
         BAR0 carries APP_ID {APP_ID:#010x}.\n"
    );
    let _ = writeln!(s, "| offset | block | type | version |\n|---|---|---|---|");
    for (i, b) in BLOCKS.iter().enumerate() {
        let _ = writeln!(
            s,
            "| {:#06x} | [{}](#{}) | {:#010x} | {:#010x} |",
            block_base(i),
            b.name,
            b.name,
            b.type_id,
            b.version
        );
    }
    for (i, b) in BLOCKS.iter().enumerate() {
        let base = block_base(i);
        let _ = writeln!(s, "\n## {}\n\n{}\n", b.name, b.doc);
        let _ = writeln!(s, "| offset | register | access | reset | range | meaning |\n|---|---|---|---|---|---|");
        let next = if i + 1 < BLOCKS.len() { block_base(i + 1) } else { 0 };
        for (name, off, reset, doc) in [
            ("type", 0, b.type_id, "block type"),
            ("version", 4, b.version, "block version"),
            ("next", 8, next, "offset of the next block, 0 for the last"),
        ] {
            let _ = writeln!(s, "| {:#06x} | `{name}` | RO | {reset:#x} |  | {doc} |", base + off);
        }
        for reg in b.regs {
            let range = reg.range.map(|b| format!("`{b}`")).unwrap_or_default();
            let _ = writeln!(
                s,
                "| {:#06x} | `{}` | {} | {:#x} | {range} | {} |",
                base + reg.offset,
                reg.name,
                reg.access.as_str(),
                reg.reset,
                reg.doc
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_register_has_exactly_one_handle_named_as_in_the_map() {
        let handles: Vec<Reg> = ALL_HANDLES.iter().flat_map(|b| b.iter().copied()).collect();
        assert_eq!(ALL_HANDLES.len(), BLOCKS.len(), "a module per block");
        for (b, block) in BLOCKS.iter().enumerate() {
            let mine: Vec<&Reg> = handles.iter().filter(|h| h.block == b).collect();
            assert_eq!(mine.len(), block.regs.len(), "handles of {}", block.name);
            for (i, r) in block.regs.iter().enumerate() {
                let h = Reg { block: b, index: i };
                assert_eq!(handles.iter().filter(|x| **x == h).count(), 1, "{}.{}", block.name, r.name);
                assert_eq!(Reg::find(block.name, r.name), Some(h));
                assert_eq!(h.offset(), block_base(b) + r.offset);
                assert_eq!(h.to_string(), format!("{}.{}", block.name, r.name));
            }
        }
        assert_eq!(control::MTU.register().name, "mtu");
        assert_eq!(queues::CQ_CONS.offset(), block_base(5) + 0x44, "the map's own layout");
        assert_eq!(Reg::find("control", "nope"), None);
    }

    #[test]
    fn blocks_are_well_formed() {
        let mut types = std::collections::HashSet::new();
        for b in BLOCKS {
            assert!(types.insert(b.type_id), "duplicate type {:#x}", b.type_id);
            let mut offs = std::collections::HashSet::new();
            for r in b.regs {
                assert!(r.offset % 4 == 0 && r.offset >= 0x0c && r.offset < BLOCK_SPAN, "{}.{}", b.name, r.name);
                assert!(offs.insert(r.offset), "{}.{} overlaps", b.name, r.name);
            }
        }
    }

    #[test]
    fn chain_walk_finds_every_block_from_reset_values() {
        let rf = RegFile::new();
        let mut at = 0u32;
        let mut seen = Vec::new();
        loop {
            seen.push(rf.read(at).unwrap());
            assert_eq!(rf.read(at + 4).unwrap(), VERSION);
            at = rf.read(at + 8).unwrap();
            if at == 0 {
                break;
            }
        }
        assert_eq!(seen, BLOCKS.iter().map(|b| b.type_id).collect::<Vec<_>>());
    }

    #[test]
    fn bus_errors_change_nothing() {
        let mut rf = RegFile::new();
        let port = control::UDP_PORT.offset();
        assert_eq!(rf.read(port), Ok(17989));
        assert_eq!(rf.read(port + 1), Err(BusError::Unmapped));
        assert_eq!(rf.write(port + 2, 1), Err(BusError::Unmapped));
        assert_eq!(rf.read(0x3c), Err(BusError::Unmapped), "hole after engine_info registers");
        assert_eq!(rf.read(BLOCKS.len() as u32 * BLOCK_SPAN), Err(BusError::Unmapped));
        let status = control::STATUS.offset();
        assert_eq!(rf.write(status, 7), Err(BusError::ReadOnly));
        assert_eq!(rf.write(0, 7), Err(BusError::ReadOnly), "block type");
        assert_eq!(rf.read(status), Ok(0));
        let cmd = conn_table::CMD.offset();
        assert_eq!(rf.write(cmd, 1), Ok(()));
        assert_eq!(rf.read(cmd), Ok(0), "write-only reads as 0");
        assert_eq!(rf.get(cmd), 1);
        assert_eq!(rf.write(port, 4000), Ok(()));
        assert_eq!(rf.read(port), Ok(4000));
    }

    #[test]
    fn self_clearing_bits_act_and_read_as_zero() {
        let mut rf = RegFile::new();
        let ctrl = control::CTRL.offset();
        assert_eq!(control::CTRL.register().pulse, 0b10);
        assert_eq!(rf.write(ctrl, 0b11), Ok(()));
        assert_eq!(rf.read(ctrl), Ok(0b01), "bit 1 is not kept");
        assert_eq!(rf.write_strobed(ctrl, 0b10, 0b1), Ok(()));
        assert_eq!(rf.read(ctrl), Ok(0), "nor is bit 0 when written 0");
    }

    fn ranged() -> Vec<(u32, &'static str, &'static Register, Bounds)> {
        BLOCKS
            .iter()
            .enumerate()
            .flat_map(|(i, b)| b.regs.iter().map(move |r| (block_base(i) + r.offset, b.name, r)))
            .filter_map(|(a, b, r)| r.range.map(|range| (a, b, r, range)))
            .collect()
    }

    #[test]
    fn ranges_sit_on_writable_registers_and_hold_their_reset_values() {
        for (_, b, r, range) in ranged() {
            assert!(matches!(r.access, Access::Rw | Access::Wo), "{b}.{}: a range on a register nobody writes", r.name);
            assert!(range.min <= range.max, "{b}.{}: empty range {range}", r.name);
            assert!(range.contains(r.reset), "{b}.{}: reset {} outside {range}", r.name, r.reset);
        }
        let rf = RegFile::new();
        let max_mtu = rf.read(engine_info::MAX_MTU.offset()).unwrap();
        let mtu = control::MTU.register();
        assert_eq!(mtu.range, Some(Bounds { min: 1, max: max_mtu }), "control.mtu is 1..=engine_info.max_mtu");
        for reg in [control::ACK_EVERY, control::LINE_RATE_MBPS] {
            assert!(reg.register().range.is_some_and(|b| b.min >= 1), "{reg} refuses 0");
        }
    }

    #[test]
    fn ranged_registers_take_both_ends_and_refuse_one_beyond_either() {
        let all = ranged();
        assert!(all.len() >= 3, "control.mtu, ack_every and line_rate_mbps at least");
        for (addr, b, r, range) in all {
            let name = format!("{b}.{}", r.name);
            let mut rf = RegFile::new();
            for v in [range.min, range.max] {
                assert_eq!(rf.write(addr, v), Ok(()), "{name} takes {v}");
                assert_eq!(rf.get(addr), v, "{name} holds {v}");
            }
            let before = rf.clone();
            for v in [range.min.checked_sub(1), range.max.checked_add(1)].into_iter().flatten() {
                assert_eq!(rf.write(addr, v), Err(BusError::OutOfRange), "{name} refuses {v}");
                assert_eq!(rf, before, "a refused write to {name} changed something");
            }
        }
    }

    #[test]
    fn a_strobed_write_is_judged_by_the_value_it_would_leave() {
        let mut rf = RegFile::new();
        let mtu = control::MTU.offset();
        assert_eq!(rf.read(mtu), Ok(1024));
        // Clearing byte 1 of 0x400 would leave 0.
        assert_eq!(rf.write_strobed(mtu, 0, 0b0010), Err(BusError::OutOfRange));
        assert_eq!(rf.read(mtu), Ok(1024));
        // Byte 1 of 0x1100 would leave 0x1100, beyond max_mtu.
        assert_eq!(rf.write_strobed(mtu, 0x1100, 0b0010), Err(BusError::OutOfRange));
        assert_eq!(rf.read(mtu), Ok(1024));
        assert_eq!(rf.write_strobed(mtu, 0x0200_0010, 0b0001), Ok(()));
        assert_eq!(rf.read(mtu), Ok(0x410));
    }
}
