//! A board's system side in Verilator (`hdl/src/board/`): the host bridge
//! (UART, UARTBone, AXI-Lite), the board memory, the frame stores and an
//! engine (the whole engine, or the stand-in), with the world around it in
//! Rust:
//! * the host's end of the serial line, bit by bit at
//!   [`TEST_BIT_CYCLES`] cycles per bit, 8N1 ([`SimBoard::send`],
//!   [`SimBoard::take`]);
//! * the MAC as LiteEth's core behaves at 1 Gb/s with the ECPIX-5's system
//!   clock ([`Mac`]): the send side takes 64-bit beats into a 32-beat FIFO that
//!   drains at the line rate with the preamble and inter-frame gap, pads
//!   frames to 60 bytes; the receive side delivers a beat every
//!   [`BEAT_CYCLES`] cycles
//!   and cannot wait, `last_be` one-hot, `error` on a bad frame's last beat,
//!   and counts those in `mac_crc_errors`;
//! * the cable: a loopback plug (each frame comes back as sent), losing or
//!   corrupting frames at given rates, with a host on it: frames to
//!   [`HOST_MAC`] go to the host ([`SimBoard::take_host`]) instead, and the
//!   host's frames come in beside the looped ones ([`SimBoard::inject`]),
//!   as Etherbone's requests and answers do; a frame the board sends to its
//!   own Etherbone address (the stand-in echoes every frame it gets) is not
//!   looped, as a switch does not send a frame back out of the port that
//!   address is on, and is counted in [`Mac::filtered`].

use std::collections::VecDeque;
use std::sync::Arc;

use ferroce_hdl::emit::board::{SIM_RAM_BITS, SIM_TIMEOUT, STORE_BITS, TEST_BIT_CYCLES};
use ferroce_proto::rng::Rng;

use crate::verilator::{undefined_collisions, ModelLib, Port, Sim};
use crate::Result;

/// Which engine the simulated board carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardEngine {
    /// The whole engine in the ECPIX-5's build (`ecp5-85`), as its
    /// bitstream carries it.
    Engine,
    /// The stand-in (`cargo xtask bitstream --engine stand-in`): the
    /// register file and a MAC loopback.
    StandIn,
}

/// The board core's model with `engine`, built once per process.
pub fn model(engine: BoardEngine) -> Result<Arc<ModelLib>> {
    use ferroce_hdl::board::core::{BoardCore, Ecp5_85BoardCore};
    const W: usize = SIM_RAM_BITS;
    const A: usize = STORE_BITS;
    match engine {
        BoardEngine::Engine => ModelLib::of_block("board_engine_ecp5_85", || {
            undefined_collisions(&ferroce_hdl::emit::verilog_of(|| {
                Ecp5_85BoardCore::<W, A, { A + 1 }>::new(TEST_BIT_CYCLES, SIM_TIMEOUT)
            }))
        }),
        BoardEngine::StandIn => ModelLib::of_block("board_stand_in", || {
            undefined_collisions(&ferroce_hdl::emit::verilog_of(|| {
                BoardCore::<W, A, { A + 1 }>::new(TEST_BIT_CYCLES, SIM_TIMEOUT)
            }))
        }),
    }
}

/// The host on the simulated board's cable (a locally administered MAC).
pub const HOST_MAC: [u8; 6] = [0x02, 0x00, 0x00, 0x00, 0x00, 0xfe];
/// The host's IPv4 address, on the boards' default network.
pub const HOST_IP: [u8; 4] = [192, 168, 1, 100];

/// Bytes of the simulated board's memory.
pub const RAM_BYTES: u64 = 8 << SIM_RAM_BITS;

/// The host's end of the serial line.
#[derive(Debug, Default)]
struct Line {
    /// Levels still to drive on `uart_rx`, one per cycle.
    out: VecDeque<bool>,
    /// Receiving from `uart_tx`: cycles into the character, or None.
    rx_at: Option<u64>,
    rx_byte: u8,
    got: Vec<u8>,
    /// Characters whose stop bit was low.
    framing_errors: u64,
}

impl Line {
    fn send(&mut self, bytes: &[u8]) {
        let bc = TEST_BIT_CYCLES as usize;
        for &b in bytes {
            let bits = std::iter::once(false).chain((0..8).map(|i| b >> i & 1 == 1)).chain(std::iter::once(true));
            for bit in bits {
                self.out.extend(std::iter::repeat_n(bit, bc));
            }
        }
    }

    /// One cycle of `uart_tx` at `line`, sampled in each bit's middle.
    fn sample(&mut self, line: bool) {
        let bc = TEST_BIT_CYCLES as u64;
        let Some(t) = self.rx_at else {
            if !line {
                self.rx_at = Some(0);
            }
            return;
        };
        let t = t + 1;
        self.rx_at = Some(t);
        if t < bc / 2 || (t - bc / 2) % bc != 0 {
            return;
        }
        match (t - bc / 2) / bc {
            1..=8 => self.rx_byte = self.rx_byte >> 1 | (line as u8) << 7,
            9 => {
                if line {
                    self.got.push(self.rx_byte);
                } else {
                    self.framing_errors += 1;
                }
                self.rx_at = None;
            }
            _ => {}
        }
    }
}

/// The cable on the board's Ethernet port.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cable {
    /// Chance that a frame is lost.
    pub loss: f64,
    /// Chance that a frame arrives with a bad FCS (the MAC flags it).
    pub corrupt: f64,
    pub seed: u64,
}

/// LiteEth's MAC at 1 Gb/s as the board core sees it, with a loopback
/// cable.
#[derive(Debug)]
pub struct Mac {
    cable: Cable,
    rng: Rng,
    /// Send side: beats taken and not yet on the wire, and the frame being
    /// assembled from them.
    fifo: VecDeque<(u64, u8, bool)>,
    tx_cur: Vec<u8>,
    /// A frame's beats are being taken (its last not yet).
    tx_in_frame: bool,
    /// Cycles until the wire takes the next beat.
    wire_busy: u64,
    /// Receive side: beats to deliver, one per entry (None: an idle cycle).
    rx: VecDeque<Option<(u64, u64, bool, u64)>>,
    /// Frames sent, lost on the cable, and flagged bad on arrival.
    pub frames: u64,
    pub lost: u64,
    pub corrupted: u64,
    /// Beats the send side got with `first` where it should not be, or
    /// without it on a frame's first beat.
    pub first_errors: u64,
    /// Beats the send side got with `error` set (the board never sets it).
    pub tx_errors: u64,
    /// Every frame sent, as on the wire (padded, no FCS).
    pub sent: Vec<Vec<u8>>,
    /// Keep the frames sent in [`Mac::sent`].
    pub keep_sent: bool,
    /// Frames sent to the host, not taken yet.
    pub to_host: VecDeque<Vec<u8>>,
    /// Frames sent to the board's own Etherbone address, not looped.
    pub filtered: u64,
}

/// Cycles of a 64-bit beat (64 ns at 1 Gb/s) at the ECPIX-5's system clock
/// (the `ecp5-85` build's), rounded up.
pub const BEAT_CYCLES: u64 = 64_000_u64.div_ceil(ferroce_proto::config::EngineConfig::ECP5_85.clock_ps as u64);
/// Preamble, FCS and inter-frame gap: 24 bytes, 3 beats.
const GAP_BEATS: u64 = 3;
/// LiteEth's send FIFO (its clock-domain crossing), beats.
const TX_FIFO: usize = 32;
/// Shortest frame without its FCS (LiteEth pads to it).
const MIN_FRAME: usize = 60;

impl Mac {
    pub fn new(cable: Cable) -> Mac {
        Mac {
            cable,
            rng: Rng::new(cable.seed),
            fifo: VecDeque::new(),
            tx_cur: Vec::new(),
            tx_in_frame: false,
            wire_busy: 0,
            rx: VecDeque::new(),
            frames: 0,
            lost: 0,
            corrupted: 0,
            first_errors: 0,
            tx_errors: 0,
            sent: Vec::new(),
            keep_sent: false,
            to_host: VecDeque::new(),
            filtered: 0,
        }
    }

    /// A frame onto the cable: to the host, or back into the receive side.
    fn wire(&mut self, mut f: Vec<u8>) {
        if f.len() < MIN_FRAME {
            f.resize(MIN_FRAME, 0);
        }
        self.frames += 1;
        if self.keep_sent {
            self.sent.push(f.clone());
        }
        if f[..6] == HOST_MAC {
            self.to_host.push_back(f);
            return;
        }
        if f[..6] == ferroce_proto::board::etherbone::BOARD_MAC {
            self.filtered += 1;
            return;
        }
        self.arrive(f);
    }

    /// A frame into the receive side, through the cable's losses and
    /// corruption.
    fn arrive(&mut self, f: Vec<u8>) {
        if self.rng.chance(self.cable.loss) {
            self.lost += 1;
            return;
        }
        let bad = self.rng.chance(self.cable.corrupt);
        self.corrupted += bad as u64;
        let n = f.len().div_ceil(8);
        for (i, c) in f.chunks(8).enumerate() {
            let data = c.iter().enumerate().fold(0u64, |a, (j, b)| a | (*b as u64) << (8 * j));
            let last = i + 1 == n;
            let last_be = if last { 1u64 << (c.len() - 1) } else { 0 };
            let error = if last && bad { 0xff } else { 0 };
            self.rx.push_back(Some((data, last_be, last, error)));
            self.rx.extend(std::iter::repeat_n(None, BEAT_CYCLES as usize - 1));
        }
        self.rx.extend(std::iter::repeat_n(None, (GAP_BEATS * BEAT_CYCLES) as usize));
    }

    /// The wire takes the FIFO's next beat when it is free.
    fn drain(&mut self) {
        if self.wire_busy > 0 {
            self.wire_busy -= 1;
            return;
        }
        let Some((data, n, last)) = self.fifo.pop_front() else { return };
        self.tx_cur.extend((0..n).map(|l| (data >> (8 * l)) as u8));
        self.wire_busy = BEAT_CYCLES - 1;
        if last {
            let f = std::mem::take(&mut self.tx_cur);
            self.wire(f);
            self.wire_busy += GAP_BEATS * BEAT_CYCLES;
        }
    }
}

macro_rules! ports {
    ($($name:ident),* $(,)?) => {
        #[allow(non_snake_case)]
        #[derive(Debug)]
        struct Ports { $($name: Port,)* }
        impl Ports {
            fn new(s: &Sim) -> Ports {
                Ports { $($name: s.port(stringify!($name)),)* }
            }
        }
    };
}

ports!(
    reset,
    uart_rx,
    uart_tx,
    mac_rx_valid,
    mac_rx_ready,
    mac_rx_last,
    mac_rx_data,
    mac_rx_last_be,
    mac_rx_error,
    mac_tx_valid,
    mac_tx_ready,
    mac_tx_first,
    mac_tx_last,
    mac_tx_data,
    mac_tx_last_be,
    mac_tx_error,
    mac_crc_errors,
);

/// A simulated board: the board core in Verilator, its serial line and its
/// MAC with a loopback cable.
#[allow(missing_debug_implementations)]
pub struct SimBoard {
    sim: Sim,
    p: Ports,
    line: Line,
    pub mac: Mac,
    pub engine: BoardEngine,
    /// Cycles the receive side was offered a beat it refused (LiteEth
    /// cannot wait: the board must never refuse).
    pub rx_refused: u64,
}

impl SimBoard {
    /// A board out of reset carrying `engine`, its port looped back
    /// through `cable`.
    pub fn new(engine: BoardEngine, cable: Cable) -> Result<SimBoard> {
        let lib = model(engine)?;
        let mut sim = Sim::new(&lib);
        sim.clock("clock");
        let p = Ports::new(&sim);
        sim.set(p.uart_rx, 1);
        sim.set(p.reset, 1);
        for _ in 0..4 {
            sim.tick();
        }
        sim.set(p.reset, 0);
        let mut b = SimBoard { sim, p, line: Line::default(), mac: Mac::new(cable), engine, rx_refused: 0 };
        // The engine clears its stores after reset (128 cycles).
        b.run(1000);
        Ok(b)
    }

    /// Bytes from the host onto the board's serial input.
    pub fn send(&mut self, bytes: &[u8]) {
        self.line.send(bytes);
    }

    /// A frame from the host on the cable (no FCS; padded as a MAC pads).
    pub fn inject(&mut self, mut frame: Vec<u8>) {
        frame.resize(frame.len().max(MIN_FRAME), 0);
        self.mac.arrive(frame);
    }

    /// Frames the board sent to the host since the last call.
    pub fn take_host(&mut self) -> Vec<Vec<u8>> {
        self.mac.to_host.drain(..).collect()
    }

    /// Bytes the board has sent on its serial output since the last call.
    pub fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.line.got)
    }

    /// Bytes received and not taken yet.
    pub fn pending(&self) -> usize {
        self.line.got.len()
    }

    /// Whether the host's bytes are still going out on the line.
    pub fn sending(&self) -> bool {
        !self.line.out.is_empty()
    }

    /// Characters from the board whose stop bit was missing.
    pub fn framing_errors(&self) -> u64 {
        self.line.framing_errors
    }

    pub fn cycles(&self) -> u64 {
        self.sim.cycles()
    }

    /// Run `n` cycles.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.cycle();
        }
    }

    fn cycle(&mut self) {
        let (s, p) = (&mut self.sim, &self.p);
        s.set(p.uart_rx, self.line.out.pop_front().unwrap_or(true) as u64);
        let beat = self.mac.rx.pop_front().flatten();
        s.set(p.mac_rx_valid, beat.is_some() as u64);
        if let Some((data, last_be, last, error)) = beat {
            s.set(p.mac_rx_data, data);
            s.set(p.mac_rx_last_be, last_be);
            s.set(p.mac_rx_last, last as u64);
            s.set(p.mac_rx_error, error);
        }
        s.set(p.mac_crc_errors, self.mac.corrupted);
        let ready = self.mac.fifo.len() < TX_FIFO;
        s.set(p.mac_tx_ready, ready as u64);
        s.eval();
        self.rx_refused += (beat.is_some() && s.get(p.mac_rx_ready) == 0) as u64;
        if ready && s.get(p.mac_tx_valid) == 1 {
            let first = s.get(p.mac_tx_first) == 1;
            self.mac.first_errors += (first == self.mac.tx_in_frame) as u64;
            let last = s.get(p.mac_tx_last) == 1;
            self.mac.tx_in_frame = !last;
            self.mac.tx_errors += (s.get(p.mac_tx_error) != 0) as u64;
            let be = s.get(p.mac_tx_last_be);
            let n = if last { 64 - be.leading_zeros() as u8 } else { 8 };
            self.mac.fifo.push_back((s.get(p.mac_tx_data), n, last));
        }
        self.line.sample(s.get(p.uart_tx) == 1);
        s.tick();
        self.mac.drain();
    }
}
