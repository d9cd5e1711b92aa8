//! The engine's build configuration: how many connections, paths and
//! streams a build holds, its data width, largest MTU and clock. One
//! [`EngineConfig`] is the single source of a build's sizes: the RTL's key
//! widths and table depths (`ferroce_hdl::presets`), the `engine_info`
//! constants and the ranges bounded by them ([`EngineConfig::info`],
//! [`EngineConfig::range`]), the limits a lockstep run gives the model, and
//! the driver's bounds (which it reads back from `engine_info`).
//!
//! Named presets ([`PRESETS`]):
//! * `corundum`: 64 connections x 16 paths x 8 streams at 250 MHz, the size
//!   for a Corundum NIC (and the default build);
//! * `ecp5-85`: 8 x 8 x 8 at 25 MHz, for the ECPIX-5 (LFE5UM5G-85F);
//! * `ecp5-25`: 2 x 4 x 2 at 50 MHz, for the Colorlight 5A-75B (LFE5U-25F).
//!
//! Sizes are powers of two (a key is {connection, path} or {connection,
//! stream} in bits), and so are the packets in flight per path (256, the
//! SACK field's width, or fewer: a path's send and receive windows). The
//! message window per stream (16) and the data width (64) are the same in
//! every build today; [`EngineConfig::check`] says so when asked for others.

use crate::params::{MEMORY_REGIONS, MSG_WINDOW, SACK_WINDOW};
use crate::regs::{self, Bounds, Reg};

/// A build of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineConfig {
    /// The preset's name (`cargo xtask emit --preset NAME`).
    pub name: &'static str,
    /// log2 of the connections.
    pub conn_bits: usize,
    /// log2 of the paths per connection.
    pub path_bits: usize,
    /// log2 of the streams per connection.
    pub stream_bits: usize,
    /// Messages a stream may have outstanding (the message window).
    pub msgs_per_stream: usize,
    /// Packets a path may have in flight (its SACK window).
    pub in_flight_per_path: usize,
    /// Bits per beat of the MAC and DMA streams.
    pub data_width: usize,
    /// Largest payload per packet, in bytes.
    pub max_mtu: u32,
    /// Bytes of the receive frame FIFO (4096 to 16384, a power of two),
    /// which holds each frame until its checks are done: the receiver
    /// takes frames of up to this many bytes (and at most
    /// [`MAX_FRAME_LEN`](crate::wire::MAX_FRAME_LEN)) and refuses longer
    /// ones as a length error ([`EngineConfig::max_frame_len`]). It must
    /// hold a frame of `max_mtu`.
    pub rx_fifo_bytes: u32,
    /// Memory regions open to remote WRITEs (2 to 16, a power of two):
    /// each is compared with every WRITE's key at once.
    pub memory_regions: usize,
    /// Received frames' headers that may wait while the receive control
    /// logic handles an earlier frame (0, 1, 2 or 4). Frames arrive one
    /// beat a cycle and the control logic spends 12 to 20 cycles on a data
    /// frame, so short frames queue at line rate; a board whose port is
    /// slower than its beats needs fewer. The queue costs a header (504
    /// bits) per place. At 0 a parsed header waits in the parser, which
    /// takes no further frame until the control logic takes it, and the
    /// control logic reads it from one register (no queue, and no
    /// multiplexer choosing the slot being processed).
    pub rx_header_queue: usize,
    /// The send side's CRC takes the zero bytes past a frame's last byte
    /// back one a cycle (up to 7 cycles a frame, in which no beat enters)
    /// instead of in the last beat's step: one CRC matrix instead of four.
    /// For a build whose clock outpaces its port, such as a board's
    /// Gigabit port (a 64-byte frame is 672 ns on the wire; its 8 beats and
    /// 7 more cycles are 300 ns at 50 MHz); not for one that sends a beat
    /// every cycle.
    pub serial_crc_tail: bool,
    /// Bytes the send and receive CRCs take a cycle: 8 (a beat a cycle) or
    /// 4 (each beat under a CRC in two cycles: half the matrix, half the
    /// frame paths' rate; the send side must take its CRC's tail serially).
    /// For a build whose beats outpace its port more than twice, such as a
    /// board's Gigabit port at 64 bits and 50 MHz (3.2 Gb/s of beats); its
    /// line rate ([`EngineConfig::line_mbps`]) is then the CRCs'.
    pub crc_bytes: usize,
    /// Data frames and ACK and NAK frames are built by one frame builder
    /// instead of one each. With two, an ACK or NAK frame goes out
    /// between two data frames even when the next data frame's header is
    /// already waiting, and its header is made while a data frame goes
    /// out; with one, frames go out in the order the control logic decides
    /// them (it still takes ACK and NAK requests before data), and an ACK
    /// decided while a data frame waits goes out after it. For a build
    /// whose port is slower than its beats, where a frame builder (header
    /// buffers, field placement, IPv4 checksum) is a large share of the
    /// logic.
    pub one_frame_builder: bool,
    /// Bits of the DMA addresses the engine drives (32 to 64), as a
    /// device's DMA mask: host memory the engine reaches (its rings, the
    /// buffers of its work requests, its memory regions) lies below
    /// 2^`dma_addr_bits`. The registers holding the upper halves of ring
    /// bases and region bases and lengths are bounded by it, the driver
    /// refuses buffers above it, and a remote WRITE whose end passes it is
    /// refused like one outside its region. Remote addresses sent to the
    /// peer are the peer's and keep 64 bits. A board whose memory is a few
    /// KiB to MiB needs 32: the address sums and compares, and the region
    /// table, are half as wide.
    pub dma_addr_bits: u32,
    /// Clock period in picoseconds.
    pub clock_ps: u32,
    /// Tail probes (`Recovery::probe`) are built in: a per-connection
    /// timer, round-trip estimate and probe count, and the probe's pass
    /// over the connection's paths (`engine_info.recovery` bit 0). A build
    /// without them takes `control.recovery` values below 0x100 only.
    pub tail_probes: bool,
    /// Connection-level loss detection by send time (`Recovery::rack`) is
    /// built in: a send time per PSN slot, the connection's least RTT and
    /// latest acknowledged send time, and the walk over the connection's
    /// paths after each ACK (`engine_info.recovery` bit 1). Needs
    /// `tail_probes`; a build without it takes `control.recovery` values
    /// below 0x200 only.
    pub rack: bool,
    /// The connection window (`Recovery::conn_window`) is built in: per
    /// connection an ECN AIMD window over all its paths' packets, its
    /// packets out and its receiver's latest rate hint, which caps it
    /// (`engine_info.recovery` bit 2). Needs `rack` (the connection's
    /// round-trip estimate is the tail probes'); a build without it takes
    /// `control.recovery` values below 0x400 only.
    pub conn_window: bool,
    /// Repairs on a clean route (`Recovery::repair_route` `CleanPath`) are
    /// built in: each path's losses in its epoch and timeouts in a row
    /// beside its window, the choice of the connection's cleanest other
    /// live path (or, after timeouts in a row, the next in turn) for each
    /// retransmission, and a copy of every path's source port to read
    /// that path's route from (`engine_info.recovery` bit 3). Needs
    /// `conn_window`; a build without it takes `control.recovery` values
    /// below 0x800 only.
    pub clean_repairs: bool,
}

impl EngineConfig {
    /// The Corundum build: 64 connections x 16 paths x 8 streams, 64-bit,
    /// 250 MHz.
    pub const CORUNDUM: EngineConfig = EngineConfig {
        name: "corundum",
        conn_bits: 6,
        path_bits: 4,
        stream_bits: 3,
        msgs_per_stream: MSG_WINDOW,
        in_flight_per_path: SACK_WINDOW,
        data_width: 64,
        max_mtu: 4096,
        rx_fifo_bytes: 16384,
        memory_regions: MEMORY_REGIONS,
        rx_header_queue: 4,
        serial_crc_tail: false,
        crc_bytes: 8,
        one_frame_builder: false,
        dma_addr_bits: 64,
        clock_ps: 4000,
        tail_probes: true,
        rack: true,
        conn_window: true,
        clean_repairs: true,
    };

    /// The ECPIX-5 build (LFE5UM5G-85F): 8 connections x 8 paths x 8
    /// streams at 25 MHz (the clock its logic closes timing at on that
    /// device, docs/boards.md), 64 packets in flight per path (a path's bitmaps
    /// and send log are a quarter of the full window's; at 4.8 Gb/s and
    /// 4 KiB packets 64 packets are 440 us of one path's traffic).
    pub const ECP5_85: EngineConfig = EngineConfig {
        name: "ecp5-85",
        conn_bits: 3,
        path_bits: 3,
        stream_bits: 3,
        in_flight_per_path: 64,
        clock_ps: 40_000,
        ..EngineConfig::CORUNDUM
    };

    /// The Colorlight 5A-75B build (LFE5U-25F): 2 connections x 4 paths x 2
    /// streams at 50 MHz (the board's system clock: its LFE5U-25F, speed
    /// grade 6, does not close 75 MHz), 16 packets in flight per path (64
    /// per connection, far more than its 1 Gb/s port's bandwidth-delay
    /// product; the send and receive bitmaps, their trees and the send log
    /// shrink with it), four memory regions (each is a key compared with
    /// every WRITE's), no received header queue: a parsed header waits in
    /// the parser (its port brings a beat every 1.6 cycles at most, a
    /// 64-byte frame in 13 cycles or more; the board's frame store takes
    /// bursts), CRCs of four bytes a cycle (its frame paths carry 1.6 Gb/s,
    /// more than its port's 1 Gb/s), the send CRC's last zero bytes taken
    /// back one a cycle, one frame builder for data, ACK and NAK frames,
    /// payloads of up to 2048 bytes and a 4-KiB receive FIFO (3 block
    /// RAMs, not 9: its board's memory and frame stores share the device's
    /// 56; a 2048-byte payload needs jumbo frames on a Gigabit switch
    /// already, whose usual MTU carries 1024).
    pub const ECP5_25: EngineConfig = EngineConfig {
        name: "ecp5-25",
        conn_bits: 1,
        path_bits: 2,
        stream_bits: 1,
        in_flight_per_path: 8,
        max_mtu: 2048,
        rx_fifo_bytes: 4096,
        memory_regions: 4,
        rx_header_queue: 0,
        serial_crc_tail: true,
        crc_bytes: 4,
        one_frame_builder: true,
        dma_addr_bits: 32,
        clock_ps: 20_000,
        tail_probes: false,
        rack: false,
        conn_window: false,
        clean_repairs: false,
        ..EngineConfig::CORUNDUM
    };

    /// Bits of a slot of a path's send window (PSN mod
    /// `in_flight_per_path`).
    pub const fn window_slot_bits(&self) -> usize {
        self.in_flight_per_path.trailing_zeros() as usize
    }

    /// Connections.
    pub const fn conns(&self) -> usize {
        1 << self.conn_bits
    }

    /// Paths per connection.
    pub const fn paths(&self) -> usize {
        1 << self.path_bits
    }

    /// Streams per connection.
    pub const fn streams(&self) -> usize {
        1 << self.stream_bits
    }

    /// The frame paths' line rate at this clock (Mb/s): one beat of
    /// `data_width` bits per cycle, or `crc_bytes` a cycle when the CRCs
    /// take fewer bytes than a beat.
    pub const fn line_mbps(&self) -> u32 {
        let bits = if 8 * self.crc_bytes < self.data_width { 8 * self.crc_bytes } else { self.data_width };
        (bits as u64 * 1_000_000 / self.clock_ps as u64) as u32
    }

    /// Longest frame the receiver takes, bytes: its FIFO's, at most
    /// [`MAX_FRAME_LEN`](crate::wire::MAX_FRAME_LEN) (the model's
    /// `EndpointConfig::max_frame_len` for a lockstep run).
    pub const fn max_frame_len(&self) -> usize {
        let fifo = self.rx_fifo_bytes as usize;
        if fifo < crate::wire::MAX_FRAME_LEN {
            fifo
        } else {
            crate::wire::MAX_FRAME_LEN
        }
    }

    /// Beats of the receive frame FIFO, log2.
    pub const fn rx_fifo_beat_bits(&self) -> usize {
        (self.rx_fifo_bytes as usize / (self.data_width / 8)).trailing_zeros() as usize
    }

    /// Bits of a path key {connection, path}.
    pub const fn path_key_bits(&self) -> usize {
        self.conn_bits + self.path_bits
    }

    /// Whether the receiver's ACK timers queue their armings (the RTL's
    /// `ack_timer`, each firing within 3 cycles of its deadline) rather
    /// than scan the keys (`rto_timer`, one key a cycle, so up to a round
    /// of 2^path_key_bits cycles late): where a round is more than an
    /// eighth of the default ACK delay (the `corundum` and `ecp5-85`
    /// builds; `ecp5-25`'s round is 8 cycles, 160 ns).
    pub const fn ack_timer_queued(&self) -> bool {
        (1u64 << self.path_key_bits()) * self.clock_ps as u64 > crate::defaults::DEFAULTS.ack_delay_ns as u64 * 1000 / 8
    }

    /// Bits of the receiver's queue of ACK-timer armings (the RTL's
    /// `ack_timer`): an arming waits one ACK delay and there is at most one
    /// per received frame, so 64 hold the default 2 us of minimum-size
    /// frames at 250 MHz (62); a build with fewer path keys has that many
    /// (at least 16). With the queue full the oldest arming fires early.
    pub const fn ack_queue_bits(&self) -> usize {
        let k = self.path_key_bits();
        if k < 4 {
            4
        } else if k > 6 {
            6
        } else {
            k
        }
    }

    /// Bits of a stream key {connection, stream}.
    pub const fn stream_key_bits(&self) -> usize {
        self.conn_bits + self.stream_bits
    }

    /// Why this configuration cannot be built, if it cannot.
    pub const fn check(&self) -> Result<(), &'static str> {
        if self.rack && !self.tail_probes {
            return Err("rack needs tail probes (control.recovery's bits are taken in order)");
        }
        if self.conn_window && !self.rack {
            return Err("the connection window needs rack (control.recovery's bits are taken in order)");
        }
        if self.clean_repairs && !self.conn_window {
            return Err("clean-route repairs need the connection window (control.recovery's bits are taken in order)");
        }
        if self.conn_bits < 1 || self.conn_bits > 6 {
            return Err("connections must be 2 to 64");
        }
        if self.path_bits < 1 || self.path_bits > 4 {
            return Err("paths per connection must be 2 to 16");
        }
        if self.stream_bits < 1 || self.stream_bits > 3 {
            return Err("streams per connection must be 2 to 8");
        }
        if self.msgs_per_stream != MSG_WINDOW {
            return Err("the message window is 16 in every build");
        }
        if !self.in_flight_per_path.is_power_of_two() || self.in_flight_per_path < 8 || self.in_flight_per_path > SACK_WINDOW {
            return Err("packets in flight per path must be a power of two, 8 to 256 (the SACK window)");
        }
        if self.data_width != 64 {
            return Err("the data width is 64 bits in every build");
        }
        if self.crc_bytes != 8 && self.crc_bytes != 4 {
            return Err("the CRCs take 8 or 4 bytes a cycle");
        }
        if self.crc_bytes == 4 && !self.serial_crc_tail {
            return Err("CRCs of 4 bytes a cycle need the send CRC's tail taken serially");
        }
        if !self.memory_regions.is_power_of_two() || self.memory_regions < 2 || self.memory_regions > MEMORY_REGIONS {
            return Err("memory regions must be a power of two, 2 to 16");
        }
        if !matches!(self.rx_header_queue, 0 | 1 | 2 | 4) {
            return Err("the receive header queue holds 0, 1, 2 or 4 headers");
        }
        if self.max_mtu < 256 || self.max_mtu > 4096 {
            return Err("the largest MTU must be 256 to 4096 bytes");
        }
        if !self.rx_fifo_bytes.is_power_of_two() || self.rx_fifo_bytes < 4096 || self.rx_fifo_bytes > 16384 {
            return Err("the receive FIFO must be a power of two, 4096 to 16384 bytes");
        }
        if self.max_mtu as usize + crate::wire::DATA_FRAME_OVERHEAD > self.max_frame_len() {
            return Err("the receive FIFO must hold a frame of the largest MTU");
        }
        if self.dma_addr_bits < 32 || self.dma_addr_bits > 64 {
            return Err("DMA addresses must be 32 to 64 bits");
        }
        if self.clock_ps < 1000 {
            return Err("the clock period must be at least 1000 ps");
        }
        Ok(())
    }

    /// The build's `engine_info` constants, register by register.
    /// `engine_info.recovery`: the loss-recovery mechanisms built in.
    pub const fn recovery_built(&self) -> u32 {
        (if self.tail_probes { regs::BUILT_TAIL_PROBES } else { 0 })
            | (if self.rack { regs::BUILT_RACK } else { 0 })
            | (if self.conn_window { regs::BUILT_CONN_WINDOW } else { 0 })
            | if self.clean_repairs { regs::BUILT_CLEAN_REPAIRS } else { 0 }
    }

    pub const fn info(&self) -> [(Reg, u32); 10] {
        [
            (regs::engine_info::DATA_WIDTH, self.data_width as u32),
            (regs::engine_info::MAX_CONNS, self.conns() as u32),
            (regs::engine_info::MAX_PATHS, self.paths() as u32),
            (regs::engine_info::MAX_STREAMS, self.streams() as u32),
            (regs::engine_info::MAX_MTU, self.max_mtu),
            (regs::engine_info::CLOCK_PS, self.clock_ps),
            (regs::engine_info::MAX_IN_FLIGHT, self.in_flight_per_path as u32),
            (regs::engine_info::MAX_MRS, self.memory_regions as u32),
            (regs::engine_info::DMA_ADDR_BITS, self.dma_addr_bits),
            (regs::engine_info::RECOVERY, self.recovery_built()),
        ]
    }

    /// The value `reg` holds in this build: an `engine_info` constant, the
    /// build's window for `control.window_cap`, or the register's reset
    /// value.
    pub fn reset(&self, reg: Reg) -> u32 {
        if reg == regs::control::WINDOW_CAP {
            return self.in_flight_per_path as u32;
        }
        self.info().iter().find(|(r, _)| *r == reg).map_or(reg.register().reset, |(_, v)| *v)
    }

    /// Does this build reach [`base`, `base` + `len`)? See
    /// [`dma_reaches`].
    pub const fn dma_reaches(&self, base: u64, len: u64) -> bool {
        dma_reaches(self.dma_addr_bits, base, len)
    }

    /// The registers holding the upper 32 bits of a DMA address or of a
    /// region's length.
    pub const DMA_HIGH_HALVES: [Reg; 5] = [
        regs::queues::SQ_BASE_HI,
        regs::queues::RQ_BASE_HI,
        regs::queues::CQ_BASE_HI,
        regs::mr_table::BASE_HI,
        regs::mr_table::LEN_HI,
    ];

    /// The range of `reg` in this build: the map's, with the bounds that
    /// follow the build's sizes (`control.mtu` up to `max_mtu`,
    /// `path_table.index` below connections x paths, the upper halves of
    /// DMA addresses and region lengths within `dma_addr_bits`).
    pub fn range(&self, reg: Reg) -> Option<Bounds> {
        if self.dma_addr_bits < 64 && EngineConfig::DMA_HIGH_HALVES.contains(&reg) {
            Some(Bounds { min: 0, max: ((1u64 << (self.dma_addr_bits - 32)) - 1) as u32 })
        } else if reg == regs::control::MTU {
            Some(Bounds { min: 1, max: self.max_mtu })
        } else if reg == regs::control::WINDOW_CAP {
            Some(Bounds { min: 1, max: self.in_flight_per_path as u32 })
        } else if reg == regs::path_table::INDEX {
            Some(Bounds { min: 0, max: (self.conns() * self.paths()) as u32 - 1 })
        } else if reg == regs::mr_table::INDEX {
            Some(Bounds { min: 0, max: self.memory_regions as u32 - 1 })
        } else if reg == regs::control::RECOVERY && !self.tail_probes {
            Some(Bounds { min: 0, max: (1 << crate::model::Recovery::PROBE_BIT) - 1 })
        } else if reg == regs::control::RECOVERY && !self.rack {
            Some(Bounds { min: 0, max: (1 << crate::model::Recovery::RACK_BIT) - 1 })
        } else if reg == regs::control::RECOVERY && !self.conn_window {
            Some(Bounds { min: 0, max: (1 << crate::model::Recovery::CONN_WINDOW_BIT) - 1 })
        } else if reg == regs::control::RECOVERY && !self.clean_repairs {
            Some(Bounds { min: 0, max: (1 << crate::model::Recovery::REPAIR_ROUTE_BIT) - 1 })
        } else {
            reg.register().range
        }
    }
}

/// Does an engine whose DMA addresses have `bits` bits
/// (`engine_info.dma_addr_bits`) reach [`base`, `base` + `len`)? The end
/// must lie below 2^`bits` (at 64 bits: not wrap), as the engine's region
/// check has it for remote WRITEs.
pub const fn dma_reaches(bits: u32, base: u64, len: u64) -> bool {
    match base.checked_add(len) {
        Some(end) => bits >= 64 || end >> bits == 0,
        None => false,
    }
}

/// The named presets.
pub const PRESETS: &[EngineConfig] = &[EngineConfig::CORUNDUM, EngineConfig::ECP5_85, EngineConfig::ECP5_25];

/// The preset called `name`, or an error listing the presets.
pub fn preset(name: &str) -> Result<EngineConfig, String> {
    PRESETS.iter().find(|p| p.name == name).copied().ok_or_else(|| {
        let names: Vec<_> = PRESETS.iter().map(|p| p.name).collect();
        format!("no preset called {name:?}; the presets are {}", names.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_can_be_built_and_has_a_unique_name() {
        for (i, p) in PRESETS.iter().enumerate() {
            assert_eq!(p.check(), Ok(()), "{}", p.name);
            assert!(PRESETS[..i].iter().all(|q| q.name != p.name), "{} twice", p.name);
            assert_eq!(preset(p.name), Ok(*p));
        }
        assert!(preset("ecp5").unwrap_err().contains("corundum, ecp5-85, ecp5-25"));
    }

    #[test]
    fn the_corundum_preset_is_the_register_maps_build() {
        let c = EngineConfig::CORUNDUM;
        for (reg, value) in c.info() {
            assert_eq!(reg.register().reset, value, "{reg}");
        }
        for reg in [regs::control::MTU, regs::path_table::INDEX, regs::mr_table::INDEX, regs::control::RECOVERY] {
            assert_eq!(c.range(reg), reg.register().range, "{reg}");
        }
    }

    #[test]
    fn the_receive_fifo_bounds_the_frames_a_build_takes() {
        // The full-size builds take what the model takes by default.
        for p in [EngineConfig::CORUNDUM, EngineConfig::ECP5_85] {
            assert_eq!((p.max_frame_len(), p.rx_fifo_beat_bits()), (crate::wire::MAX_FRAME_LEN, 11), "{}", p.name);
        }
        let e = EngineConfig::ECP5_25;
        assert_eq!((e.max_frame_len(), e.rx_fifo_beat_bits(), e.max_mtu), (4096, 9, 2048));
        let bad = |c: EngineConfig| c.check().unwrap_err();
        assert!(bad(EngineConfig { max_mtu: 4096, ..e }).contains("hold a frame of the largest MTU"));
        assert!(bad(EngineConfig { rx_fifo_bytes: 6144, ..e }).contains("power of two"));
        assert!(bad(EngineConfig { rx_fifo_bytes: 2048, ..e }).contains("4096 to 16384"));
        assert_eq!(EngineConfig { rx_fifo_bytes: 8192, max_mtu: 4096, ..e }.check(), Ok(()));
    }

    #[test]
    fn a_small_build_bounds_its_registers_by_its_sizes() {
        let e = EngineConfig::ECP5_25;
        assert_eq!(e.reset(regs::engine_info::MAX_CONNS), 2);
        assert_eq!(e.reset(regs::engine_info::MAX_PATHS), 4);
        assert_eq!(e.reset(regs::engine_info::MAX_STREAMS), 2);
        assert_eq!(e.reset(regs::control::MTU), regs::control::MTU.register().reset);
        assert_eq!(e.range(regs::path_table::INDEX), Some(Bounds { min: 0, max: 7 }));
        let bad = EngineConfig { stream_bits: 4, ..e };
        assert_eq!(bad.check(), Err("streams per connection must be 2 to 8"));
        for bad in [4, 12, 96, 512] {
            let bad = EngineConfig { in_flight_per_path: bad, ..e };
            assert!(bad.check().unwrap_err().contains("SACK window"));
        }
        assert_eq!(e.window_slot_bits(), 3);
        assert_eq!(e.reset(regs::engine_info::MAX_IN_FLIGHT), 8);
        assert_eq!(EngineConfig::ECP5_85.window_slot_bits(), 6);
        assert_eq!(e.reset(regs::engine_info::MAX_MRS), 4);
        assert_eq!(e.range(regs::mr_table::INDEX), Some(Bounds { min: 0, max: 3 }));
        assert_eq!(e.reset(regs::engine_info::DMA_ADDR_BITS), 32);
        assert_eq!(e.reset(regs::engine_info::RECOVERY), 0, "no tail probes");
        assert_eq!(e.range(regs::control::RECOVERY), Some(Bounds { min: 0, max: 0xff }));
        assert_eq!(
            EngineConfig::ECP5_85.reset(regs::engine_info::RECOVERY),
            regs::BUILT_TAIL_PROBES | regs::BUILT_RACK | regs::BUILT_CONN_WINDOW | regs::BUILT_CLEAN_REPAIRS
        );
        let probes_only = EngineConfig { rack: false, conn_window: false, clean_repairs: false, ..EngineConfig::ECP5_85 };
        assert_eq!(probes_only.reset(regs::engine_info::RECOVERY), regs::BUILT_TAIL_PROBES);
        assert_eq!(probes_only.range(regs::control::RECOVERY), Some(Bounds { min: 0, max: 0x1ff }));
        let no_window = EngineConfig { conn_window: false, clean_repairs: false, ..EngineConfig::ECP5_85 };
        assert_eq!(no_window.reset(regs::engine_info::RECOVERY), regs::BUILT_TAIL_PROBES | regs::BUILT_RACK);
        assert_eq!(no_window.range(regs::control::RECOVERY), Some(Bounds { min: 0, max: 0x3ff }));
        let no_clean = EngineConfig { clean_repairs: false, ..EngineConfig::ECP5_85 };
        assert_eq!(
            no_clean.reset(regs::engine_info::RECOVERY),
            regs::BUILT_TAIL_PROBES | regs::BUILT_RACK | regs::BUILT_CONN_WINDOW
        );
        assert_eq!(no_clean.range(regs::control::RECOVERY), Some(Bounds { min: 0, max: 0x7ff }));
        assert_eq!(EngineConfig::ECP5_85.range(regs::control::RECOVERY), Some(Bounds { min: 0, max: 0x1fff }));
        assert!(EngineConfig { conn_window: false, ..EngineConfig::ECP5_85 }.check().unwrap_err().contains("clean-route"));
        assert!(EngineConfig { tail_probes: false, conn_window: false, clean_repairs: false, ..EngineConfig::ECP5_85 }
            .check()
            .unwrap_err()
            .contains("rack"));
        assert!(EngineConfig { rack: false, clean_repairs: false, ..EngineConfig::ECP5_85 }
            .check()
            .unwrap_err()
            .contains("connection window"));
        for reg in EngineConfig::DMA_HIGH_HALVES {
            assert_eq!(e.range(reg), Some(Bounds { min: 0, max: 0 }), "{reg}");
            assert_eq!(EngineConfig::CORUNDUM.range(reg), reg.register().range, "{reg}");
            assert_eq!(EngineConfig { dma_addr_bits: 40, ..e }.range(reg), Some(Bounds { min: 0, max: 255 }), "{reg}");
        }
        assert!(e.dma_reaches(0xffff_f000, 0xfff) && !e.dma_reaches(0xffff_f000, 0x1000));
        assert!(!e.dma_reaches(u64::MAX, 2) && EngineConfig::CORUNDUM.dma_reaches(1 << 40, 1));
        assert!(!EngineConfig::CORUNDUM.dma_reaches(u64::MAX, 2));
        for bad in [0, 31, 65] {
            let bad = EngineConfig { dma_addr_bits: bad, ..e };
            assert_eq!(bad.check(), Err("DMA addresses must be 32 to 64 bits"));
        }
        for bad in [1, 3, 32] {
            let bad = EngineConfig { memory_regions: bad, ..e };
            assert!(bad.check().unwrap_err().contains("memory regions"), "{bad:?}");
        }
        // CRCs of four bytes a cycle: half the beats' rate (1.6 Gb/s at 50 MHz).
        assert_eq!(e.line_mbps(), 1600);
        assert_eq!(EngineConfig { crc_bytes: 8, ..e }.line_mbps(), 3200);
        assert_eq!(EngineConfig::CORUNDUM.line_mbps(), 16_000);
        for bad in [0, 2, 6, 16] {
            assert_eq!(EngineConfig { crc_bytes: bad, ..e }.check(), Err("the CRCs take 8 or 4 bytes a cycle"));
        }
        assert!(EngineConfig { serial_crc_tail: false, ..e }.check().unwrap_err().contains("serially"));
    }
}
