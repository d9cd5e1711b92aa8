//! `uart_rx`, `uart_tx`: 8N1 serial lines (8 data bits, least significant
//! first, no parity, one stop bit) at `bit_cycles` clock cycles per bit,
//! fixed when built (217 at 25 MHz for 115 200 baud).
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `uart_rx`: `rx` (the line, synchronised here through two registers),
//!   `m_valid`/`m_ready`/`m_data`: a byte, held until taken; a byte that
//!   arrives before the last was taken replaces it. A start bit that is not
//!   low at mid-bit is ignored; a byte without its stop bit is dropped.
//! * `uart_tx`: `s_valid`/`s_ready`/`s_data`: a byte to send, taken when the
//!   line is idle; `tx` (the line, high when idle).

use rust_hdl::prelude::*;

use crate::blocks::HdlDefault;

/// Bit positions of a character: the start bit, eight data bits, the stop bit.
const BITNO_BITS: usize = 4;

/// The receiver.
#[derive(LogicBlock, HdlDefault)]
pub struct UartRx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub rx: Signal<In, bool>,
    pub m_valid: Signal<Out, bool>,
    pub m_ready: Signal<In, bool>,
    pub m_data: Signal<Out, Bits<8>>,

    sync1: DFF<bool>,
    line: DFF<bool>,
    busy: DFF<bool>,
    count: DFF<Bits<16>>,
    bit_no: DFF<Bits<BITNO_BITS>>,
    shifter: DFF<Bits<8>>,
    out_valid: DFF<bool>,
    out_data: DFF<Bits<8>>,

    #[constant(651u64)]
    bit_cycles: Constant<Bits<16>>,
    #[constant(325u64)]
    half_cycles: Constant<Bits<16>>,
    #[constant(1u64)]
    one16: Constant<Bits<16>>,
    #[constant(0u64)]
    zero16: Constant<Bits<16>>,
    #[constant(1u64)]
    one_bit_no: Constant<Bits<BITNO_BITS>>,
    #[constant(0u64)]
    start_bit: Constant<Bits<BITNO_BITS>>,
    #[constant(9u64)]
    stop_bit: Constant<Bits<BITNO_BITS>>,
    #[constant(1u64)]
    one8: Constant<Bits<8>>,
    #[constant(0x80u64)]
    msb8: Constant<Bits<8>>,
}

impl UartRx {
    /// A receiver at `bit_cycles` clock cycles per bit (at least 4).
    pub fn new(bit_cycles: u16) -> Self {
        assert!(bit_cycles >= 4, "uart_rx: at least 4 cycles per bit");
        Self {
            bit_cycles: Constant::new((bit_cycles as u64).into()),
            half_cycles: Constant::new((bit_cycles as u64 / 2).into()),
            ..Default::default()
        }
    }
}

impl Logic for UartRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sync1, line, busy, count, bit_no, shifter, out_valid, out_data);
        self.sync1.d.next = self.rx.val();
        self.line.d.next = self.sync1.q.val();
        if self.m_ready.val() {
            self.out_valid.d.next = false;
        }
        if !self.busy.q.val() {
            // A falling edge: sample the start bit at its middle.
            if !self.line.q.val() {
                self.busy.d.next = true;
                self.count.d.next = self.half_cycles.val();
                self.bit_no.d.next = self.start_bit.val();
            }
        } else if self.count.q.val() != self.zero16.val() {
            self.count.d.next = self.count.q.val() - self.one16.val();
        } else {
            self.count.d.next = self.bit_cycles.val() - self.one16.val();
            self.bit_no.d.next = self.bit_no.q.val() + self.one_bit_no.val();
            if self.bit_no.q.val() == self.start_bit.val() {
                if self.line.q.val() {
                    self.busy.d.next = false;
                }
            } else if self.bit_no.q.val() == self.stop_bit.val() {
                self.busy.d.next = false;
                if self.line.q.val() {
                    self.out_valid.d.next = true;
                    self.out_data.d.next = self.shifter.q.val();
                }
            } else if self.line.q.val() {
                self.shifter.d.next = (self.shifter.q.val() >> self.one8.val()) | self.msb8.val();
            } else {
                self.shifter.d.next = self.shifter.q.val() >> self.one8.val();
            }
        }
        self.m_valid.next = self.out_valid.q.val();
        self.m_data.next = self.out_data.q.val();
        if self.reset.val() {
            self.sync1.d.next = true;
            self.line.d.next = true;
            self.busy.d.next = false;
            self.out_valid.d.next = false;
        }
    }
}

/// The transmitter.
#[derive(LogicBlock, HdlDefault)]
pub struct UartTx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s_valid: Signal<In, bool>,
    pub s_ready: Signal<Out, bool>,
    pub s_data: Signal<In, Bits<8>>,
    pub tx: Signal<Out, bool>,

    busy: DFF<bool>,
    count: DFF<Bits<16>>,
    bit_no: DFF<Bits<BITNO_BITS>>,
    shifter: DFF<Bits<8>>,
    line: DFF<bool>,

    #[constant(651u64)]
    bit_cycles: Constant<Bits<16>>,
    #[constant(1u64)]
    one16: Constant<Bits<16>>,
    #[constant(0u64)]
    zero16: Constant<Bits<16>>,
    #[constant(1u64)]
    one_bit_no: Constant<Bits<BITNO_BITS>>,
    #[constant(0u64)]
    start_bit: Constant<Bits<BITNO_BITS>>,
    #[constant(9u64)]
    stop_bit: Constant<Bits<BITNO_BITS>>,
    #[constant(1u64)]
    one8: Constant<Bits<8>>,
}

impl UartTx {
    /// A transmitter at `bit_cycles` clock cycles per bit.
    pub fn new(bit_cycles: u16) -> Self {
        assert!(bit_cycles >= 1, "uart_tx: at least one cycle per bit");
        Self { bit_cycles: Constant::new((bit_cycles as u64).into()), ..Default::default() }
    }
}

impl Logic for UartTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, count, bit_no, shifter, line);
        self.s_ready.next = !self.busy.q.val();
        if !self.busy.q.val() {
            self.line.d.next = true;
            if self.s_valid.val() {
                self.busy.d.next = true;
                self.shifter.d.next = self.s_data.val();
                self.bit_no.d.next = self.start_bit.val();
                self.count.d.next = self.bit_cycles.val() - self.one16.val();
                self.line.d.next = false;
            }
        } else if self.count.q.val() != self.zero16.val() {
            self.count.d.next = self.count.q.val() - self.one16.val();
        } else {
            // The next bit: a data bit, the stop bit, or done.
            self.count.d.next = self.bit_cycles.val() - self.one16.val();
            self.bit_no.d.next = self.bit_no.q.val() + self.one_bit_no.val();
            if self.bit_no.q.val() == self.stop_bit.val() {
                self.busy.d.next = false;
                self.line.d.next = true;
            } else if self.bit_no.q.val() == self.stop_bit.val() - self.one_bit_no.val() {
                self.line.d.next = true;
            } else {
                self.line.d.next = self.shifter.q.val().get_bit(0);
                self.shifter.d.next = self.shifter.q.val() >> self.one8.val();
            }
        }
        self.tx.next = self.line.q.val();
        if self.reset.val() {
            self.busy.d.next = false;
            self.line.d.next = true;
        }
    }
}
