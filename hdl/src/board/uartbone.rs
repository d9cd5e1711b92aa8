//! `uartbone`: LiteX's UART-to-Wishbone bridge protocol ("UARTBone", LiteX
//! 2024.12 `litex/soc/cores/uart.py`, `Stream2Wishbone`; its host side is
//! `litex/tools/remote/comm_uart.py`), over bytes, as a bus master.
//!
//! A command from the host is: one command byte (0x01 write, incrementing
//! address; 0x02 read, incrementing; 0x03 write, fixed address; 0x04 read,
//! fixed), one length byte (32-bit words, 0 meaning 256), the word address
//! (byte address / 4) in four bytes, most significant first, and for a
//! write the words, four bytes each, most significant first. A read answers
//! with its words the same way. Writes get no answer. Other command bytes
//! are ignored after their address. As in LiteX, a command still being
//! received after `timeout` cycles (100 ms) is abandoned; a bus access once
//! started is always finished.
//!
//! Ports (`clock`; `reset` synchronous, active high): `s_*` bytes from the
//! UART receiver, `m_*` bytes to the transmitter; the bus: `bus_valid`,
//! `bus_we`, `bus_addr` (word address), `bus_wdata` held until the one-cycle
//! `bus_ready`, which brings `bus_rdata` for a read (Wishbone's cyc/stb,
//! we, adr, dat_w, ack, dat_r).

use rust_hdl::prelude::*;

use crate::blocks::{HdlDefault, HdlStruct};

/// A byte zero-extended to a word (rust-hdl has no zero-extension).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct ByteWord {
    pub byte: Bits<8>,
    pub zero: Bits<24>,
}

const STATE_BITS: usize = 3;
const S_CMD: usize = 0;
const S_LEN: usize = 1;
const S_ADDR: usize = 2;
const S_WDATA: usize = 3;
const S_WRITE: usize = 4;
const S_READ: usize = 5;
const S_SEND: usize = 6;

/// The protocol engine.
#[allow(non_snake_case)] // state constants named as the `match` labels
#[derive(LogicBlock, HdlDefault)]
pub struct UartBone {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s_valid: Signal<In, bool>,
    pub s_ready: Signal<Out, bool>,
    pub s_data: Signal<In, Bits<8>>,
    pub m_valid: Signal<Out, bool>,
    pub m_ready: Signal<In, bool>,
    pub m_data: Signal<Out, Bits<8>>,
    pub bus_valid: Signal<Out, bool>,
    pub bus_we: Signal<Out, bool>,
    pub bus_addr: Signal<Out, Bits<32>>,
    pub bus_wdata: Signal<Out, Bits<32>>,
    pub bus_ready: Signal<In, bool>,
    pub bus_rdata: Signal<In, Bits<32>>,

    state: DFF<Bits<STATE_BITS>>,
    cmd: DFF<Bits<8>>,
    len: DFF<Bits<8>>,
    words: DFF<Bits<8>>,
    nbytes: DFF<Bits<2>>,
    addr: DFF<Bits<32>>,
    data: DFF<Bits<32>>,
    incr: DFF<bool>,
    idle: DFF<Bits<32>>,

    take: Signal<Local, bool>,
    /// The current word is done (written; or read and sent).
    word_done: Signal<Local, bool>,
    byte_in: Signal<Local, ByteWord>,
    byte_word: Signal<Local, Bits<32>>,
    shifted_in: Signal<Local, Bits<32>>,
    last_byte: Signal<Local, bool>,
    last_word: Signal<Local, bool>,

    #[constant(S_CMD as u64)]
    S_CMD: Constant<Bits<STATE_BITS>>,
    #[constant(S_LEN as u64)]
    S_LEN: Constant<Bits<STATE_BITS>>,
    #[constant(S_ADDR as u64)]
    S_ADDR: Constant<Bits<STATE_BITS>>,
    #[constant(S_WDATA as u64)]
    S_WDATA: Constant<Bits<STATE_BITS>>,
    #[constant(S_WRITE as u64)]
    S_WRITE: Constant<Bits<STATE_BITS>>,
    #[constant(S_READ as u64)]
    S_READ: Constant<Bits<STATE_BITS>>,
    #[constant(S_SEND as u64)]
    S_SEND: Constant<Bits<STATE_BITS>>,
    #[constant(0x01u64)]
    cmd_write_incr: Constant<Bits<8>>,
    #[constant(0x02u64)]
    cmd_read_incr: Constant<Bits<8>>,
    #[constant(0x03u64)]
    cmd_write_fixed: Constant<Bits<8>>,
    #[constant(0x04u64)]
    cmd_read_fixed: Constant<Bits<8>>,
    #[constant(7_500_000u64)]
    timeout: Constant<Bits<32>>,
    #[constant(0u64)]
    zero24: Constant<Bits<24>>,
    #[constant(8u64)]
    byte_shift: Constant<Bits<32>>,
    #[constant(1u64)]
    one32: Constant<Bits<32>>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
    #[constant(1u64)]
    one8: Constant<Bits<8>>,
    #[constant(0u64)]
    zero8: Constant<Bits<8>>,
    #[constant(1u64)]
    one2: Constant<Bits<2>>,
    #[constant(0u64)]
    zero2: Constant<Bits<2>>,
    #[constant(3u64)]
    three2: Constant<Bits<2>>,
}

impl UartBone {
    /// A bridge that abandons a command still being received after
    /// `timeout_cycles` cycles.
    pub fn new(timeout_cycles: u32) -> Self {
        Self { timeout: Constant::new((timeout_cycles as u64).into()), ..Default::default() }
    }
}

impl Logic for UartBone {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, cmd, len, words, nbytes, addr, data, incr, idle);
        self.s_ready.next = false;
        self.m_valid.next = false;
        self.bus_valid.next = false;
        self.bus_we.next = false;
        self.bus_addr.next = self.addr.q.val();
        self.bus_wdata.next = self.data.q.val();
        self.m_data.next = self.data.q.val().get_bits::<8>(24);
        self.byte_in.next.byte = self.s_data.val();
        self.byte_in.next.zero = self.zero24.val();
        self.byte_word.next = self.byte_in.val().into();
        self.take.next = false;
        self.word_done.next = false;
        self.last_byte.next = self.nbytes.q.val() == self.three2.val();
        self.last_word.next = self.words.q.val() == self.len.q.val() - self.one8.val();

        match self.state.q.val().index() {
            S_CMD => {
                self.s_ready.next = true;
                if self.s_valid.val() {
                    self.cmd.d.next = self.s_data.val();
                    self.state.d.next = self.S_LEN.val();
                }
            }
            S_LEN => {
                self.s_ready.next = true;
                if self.s_valid.val() {
                    self.len.d.next = self.s_data.val();
                    self.nbytes.d.next = self.zero2.val();
                    self.state.d.next = self.S_ADDR.val();
                }
            }
            S_ADDR => {
                self.s_ready.next = true;
                self.take.next = self.s_valid.val();
            }
            S_WDATA => {
                self.s_ready.next = true;
                self.take.next = self.s_valid.val();
            }
            S_WRITE => {
                self.bus_valid.next = true;
                self.bus_we.next = true;
                self.word_done.next = self.bus_ready.val();
            }
            S_READ => {
                self.bus_valid.next = true;
                if self.bus_ready.val() {
                    self.data.d.next = self.bus_rdata.val();
                    self.nbytes.d.next = self.zero2.val();
                    self.state.d.next = self.S_SEND.val();
                }
            }
            S_SEND => {
                self.m_valid.next = true;
                if self.m_ready.val() {
                    self.data.d.next = self.data.q.val() << self.byte_shift.val();
                    self.nbytes.d.next = self.nbytes.q.val() + self.one2.val();
                    self.word_done.next = self.last_byte.val();
                }
            }
            _ => {
                self.state.d.next = self.S_CMD.val();
            }
        }

        // A word written, or read and sent: the next, or the command's end.
        if self.word_done.val() {
            self.words.d.next = self.words.q.val() + self.one8.val();
            if self.incr.q.val() {
                self.addr.d.next = self.addr.q.val() + self.one32.val();
            }
            if self.last_word.val() {
                self.state.d.next = self.S_CMD.val();
            } else if self.bus_we.val() {
                self.state.d.next = self.S_WDATA.val();
            } else {
                self.state.d.next = self.S_READ.val();
            }
        }

        // Address and write-data bytes, most significant first.
        if self.state.q.val() == self.S_ADDR.val() {
            self.shifted_in.next = (self.addr.q.val() << self.byte_shift.val()) | self.byte_word.val();
        } else {
            self.shifted_in.next = (self.data.q.val() << self.byte_shift.val()) | self.byte_word.val();
        }
        if self.take.val() {
            self.nbytes.d.next = self.nbytes.q.val() + self.one2.val();
            if self.state.q.val() == self.S_ADDR.val() {
                self.addr.d.next = self.shifted_in.val();
                if self.last_byte.val() {
                    self.words.d.next = self.zero8.val();
                    self.incr.d.next = (self.cmd.q.val() == self.cmd_write_incr.val())
                        | (self.cmd.q.val() == self.cmd_read_incr.val());
                    self.state.d.next = self.S_CMD.val();
                    if (self.cmd.q.val() == self.cmd_write_incr.val())
                        | (self.cmd.q.val() == self.cmd_write_fixed.val())
                    {
                        self.state.d.next = self.S_WDATA.val();
                    }
                    if (self.cmd.q.val() == self.cmd_read_incr.val()) | (self.cmd.q.val() == self.cmd_read_fixed.val())
                    {
                        self.state.d.next = self.S_READ.val();
                    }
                }
            } else {
                self.data.d.next = self.shifted_in.val();
                if self.last_byte.val() {
                    self.state.d.next = self.S_WRITE.val();
                }
            }
        }

        // LiteX's timeout, applied only while receiving.
        if (self.state.q.val() == self.S_LEN.val())
            | (self.state.q.val() == self.S_ADDR.val())
            | (self.state.q.val() == self.S_WDATA.val())
        {
            self.idle.d.next = self.idle.q.val() + self.one32.val();
            if self.idle.q.val() == self.timeout.val() {
                self.state.d.next = self.S_CMD.val();
            }
        } else {
            self.idle.d.next = self.zero32.val();
        }

        if self.reset.val() {
            self.state.d.next = self.S_CMD.val();
            self.idle.d.next = self.zero32.val();
        }
    }
}
