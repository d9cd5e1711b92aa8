//! A whole board top in Verilator, pins and all: the system clock from
//! the board's PLL (the ECP5 primitives' simulation models,
//! `hdl/src/primitives/ecp5_sim.v`), LiteEth's generated RGMII PHY and MAC,
//! and the Ethernet PHY chip on the other side of the RGMII pins played in
//! Rust ([`RgmiiBoard`]): frames to the board go out as RGMII does it
//! (preamble, start delimiter, the frame, its FCS, one byte per receive
//! clock as two nibbles, the low one on the rising edge; `rx_ctl` is the
//! data-valid on the rising edge and valid XOR error on the falling one;
//! at least 12 idle bytes between frames), and what the board drives on
//! its send pins is decoded the same way into frames, each with its FCS
//! checked, its preamble and the gap before it recorded.
//!
//! Time is in picoseconds: the board's oscillator and the PHY's 125 MHz
//! receive clock run at their own periods, the data pins change a quarter
//! period after each receive clock edge (centred, as an RGMII-ID PHY
//! drives them), and the send pins are read at the same points.

use std::collections::VecDeque;
use std::sync::Arc;

use ferroce_proto::wire::crc::crc32;

use crate::verilator::{ModelLib, Port, Sim};

/// The receive clock's period: 125 MHz.
pub const RGMII_PERIOD_PS: u64 = 8_000;
/// Idle bytes after each frame sent to the board (the inter-frame gap).
pub const GAP_BYTES: usize = 12;
/// The preamble and start-of-frame delimiter.
pub const PREAMBLE: [u8; 8] = [0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0xd5];

/// A frame the board sent, as it appeared on its RGMII send pins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentFrame {
    /// The frame without preamble and FCS.
    pub bytes: Vec<u8>,
    /// The preamble and delimiter were the standard eight bytes.
    pub preamble_ok: bool,
    /// The FCS matched the bytes.
    pub fcs_ok: bool,
    /// Some byte was sent with the error signal (`tx_ctl` differing between edges).
    pub error: bool,
    /// Idle byte times on the pins before it (since the last frame, or
    /// since the start).
    pub gap_before: u64,
}

/// One byte time on the pins: (rising ctl, rising nibble, falling ctl, falling nibble).
type Cycle = (bool, u8, bool, u8);

/// The bytes of a frame as RGMII sends them: preamble, the frame, its FCS
/// (`fcs`: the frame's CRC-32 for a good frame, sent least significant
/// byte first), then [`GAP_BYTES`] idle bytes.
pub fn encode(frame: &[u8], fcs: u32) -> Vec<Cycle> {
    let mut bytes = PREAMBLE.to_vec();
    bytes.extend(frame);
    bytes.extend(fcs.to_le_bytes());
    let mut out: Vec<Cycle> = bytes.iter().map(|&b| (true, b & 0xf, true, b >> 4)).collect();
    out.extend(std::iter::repeat_n((false, 0, false, 0), GAP_BYTES));
    out
}

/// Board top ports: the oscillator input, the RGMII pins.
struct Pins {
    clk_in: Port,
    rx_clock: Port,
    rx_ctl: Port,
    rx_data: Port,
    tx_ctl: Port,
    tx_data: Port,
    tx_clock: Port,
}

/// A board top with its RGMII pins on a simulated PHY.
pub struct RgmiiBoard {
    sim: Sim,
    pins: Pins,
    /// The oscillator's half period.
    clk_in_half_ps: u64,
    /// Now, in ps.
    now: u64,
    /// The oscillator's next edge, ps.
    next_clk_in: u64,
    clk_in: bool,
    /// Byte times queued for the board's receive pins.
    to_board: VecDeque<Cycle>,
    /// The byte time being driven now.
    driving: Cycle,
    /// The send pins' rising-edge half of the byte time being read.
    rising: (bool, u8),
    /// The frame being decoded from the send pins (with its preamble).
    decoding: Vec<u8>,
    decoding_error: bool,
    /// Idle byte times since the last frame; those before the frame being decoded.
    idle: u64,
    gap: u64,
    /// Frames decoded, oldest first.
    sent: VecDeque<SentFrame>,
    /// `rgmii_clocks_tx` followed the receive clock at every read.
    pub tx_clock_ok: bool,
}

impl std::fmt::Debug for RgmiiBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RgmiiBoard").field("now_ps", &self.now).field("sent", &self.sent.len()).finish()
    }
}

impl RgmiiBoard {
    /// An instance of `lib` (a board top: `clk_in`, `rgmii_*` pins, and
    /// `uart_rx` held idle if it has one), its oscillator at `clk_in_mhz`.
    pub fn new(lib: &Arc<ModelLib>, clk_in_mhz: u64) -> RgmiiBoard {
        let mut sim = Sim::new(lib);
        let pins = Pins {
            clk_in: sim.port("clk_in"),
            rx_clock: sim.port("rgmii_clocks_rx"),
            rx_ctl: sim.port("rgmii_rx_ctl"),
            rx_data: sim.port("rgmii_rx_data"),
            tx_ctl: sim.port("rgmii_tx_ctl"),
            tx_data: sim.port("rgmii_tx_data"),
            tx_clock: sim.port("rgmii_clocks_tx"),
        };
        if sim.has_port("uart_rx") {
            let p = sim.port("uart_rx");
            sim.set(p, 1);
        }
        sim.eval();
        let half = 500_000 / clk_in_mhz;
        RgmiiBoard {
            sim,
            pins,
            clk_in_half_ps: half,
            now: 0,
            next_clk_in: half,
            clk_in: false,
            to_board: VecDeque::new(),
            driving: (false, 0, false, 0),
            rising: (false, 0),
            decoding: Vec::new(),
            decoding_error: false,
            idle: 0,
            gap: 0,
            sent: VecDeque::new(),
            tx_clock_ok: true,
        }
    }

    /// The time simulated, ps.
    pub fn now_ps(&self) -> u64 {
        self.now
    }

    /// Queue `frame` (without FCS) for the board's receive pins, with its
    /// correct FCS.
    pub fn send(&mut self, frame: &[u8]) {
        self.to_board.extend(encode(frame, crc32(frame)));
    }

    /// Queue already-encoded byte times (a frame with a bad FCS).
    pub fn send_raw(&mut self, cycles: Vec<Cycle>) {
        self.to_board.extend(cycles);
    }

    /// Byte times still queued for the board.
    pub fn queued(&self) -> usize {
        self.to_board.len()
    }

    /// The oldest frame the board sent and not yet taken.
    pub fn take(&mut self) -> Option<SentFrame> {
        self.sent.pop_front()
    }

    /// Run `ps` picoseconds.
    pub fn run_ps(&mut self, ps: u64) {
        let end = self.now + ps;
        while self.now < end {
            self.step();
        }
    }

    /// Run until the board has sent a frame (returned) or `limit_ps` has passed.
    pub fn wait_frame(&mut self, limit_ps: u64) -> Option<SentFrame> {
        let end = self.now + limit_ps;
        while self.sent.is_empty() && self.now < end {
            self.step();
        }
        self.take()
    }

    /// Advance to the next event: an oscillator edge, a receive clock edge
    /// or a data point a quarter period after one.
    fn step(&mut self) {
        let quarter = RGMII_PERIOD_PS / 4;
        let next_rgmii = (self.now / quarter + 1) * quarter;
        self.now = next_rgmii.min(self.next_clk_in);
        if self.now == self.next_clk_in {
            self.clk_in = !self.clk_in;
            self.sim.set(self.pins.clk_in, self.clk_in as u64);
            self.next_clk_in += self.clk_in_half_ps;
        }
        if self.now == next_rgmii {
            match (self.now % RGMII_PERIOD_PS) / quarter {
                0 => self.sim.set(self.pins.rx_clock, 1),
                2 => self.sim.set(self.pins.rx_clock, 0),
                1 => {
                    self.read_pins(true);
                    let (_, _, ctl, d) = self.driving;
                    self.drive(ctl, d);
                }
                _ => {
                    self.read_pins(false);
                    self.driving = self.to_board.pop_front().unwrap_or((false, 0, false, 0));
                    let (ctl, d, _, _) = self.driving;
                    self.drive(ctl, d);
                }
            }
        }
        // Waveforms (`FERROCE_TRACE`) in ns.
        self.sim.eval_at(self.now / 1000);
    }

    fn drive(&mut self, ctl: bool, data: u8) {
        self.sim.set(self.pins.rx_ctl, ctl as u64);
        self.sim.set(self.pins.rx_data, data as u64);
    }

    /// Read the send pins in the receive clock's high (`high`) or low half.
    fn read_pins(&mut self, high: bool) {
        let ctl = self.sim.get(self.pins.tx_ctl) != 0;
        let nibble = self.sim.get(self.pins.tx_data) as u8;
        let clock_high = self.sim.get(self.pins.tx_clock) != 0;
        // Before reset ends the forwarded clock may not run yet; once the
        // first frame is sent it must follow the receive clock.
        if (clock_high != high) && !self.sent.is_empty() {
            self.tx_clock_ok = false;
        }
        if high {
            self.rising = (ctl, nibble);
            return;
        }
        let (en, low) = self.rising;
        if en {
            if self.decoding.is_empty() {
                self.gap = std::mem::replace(&mut self.idle, 0);
            }
            self.decoding.push(low | nibble << 4);
            self.decoding_error |= en != ctl;
        } else {
            if !self.decoding.is_empty() {
                self.finish_frame();
            }
            self.idle += 1;
        }
    }

    fn finish_frame(&mut self) {
        let all = std::mem::take(&mut self.decoding);
        let whole = all.len() >= PREAMBLE.len() + 4;
        let body = if whole { &all[PREAMBLE.len()..all.len() - 4] } else { &all[..0] };
        self.sent.push_back(SentFrame {
            bytes: body.to_vec(),
            preamble_ok: whole && all[..PREAMBLE.len()] == PREAMBLE,
            fcs_ok: whole && crc32(body).to_le_bytes()[..] == all[all.len() - 4..],
            error: std::mem::take(&mut self.decoding_error),
            gap_before: self.gap,
        });
    }
}
