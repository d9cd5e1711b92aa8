//! The board tops' host bridge (`hdl/src/board/`), as the host sees it: the
//! address map behind LiteX's UARTBone protocol, and the protocol's bytes.
//! One definition for the RTL, the driver's UART backend and the board
//! simulation.
//!
//! Byte addresses on the bridge's bus (UARTBone carries them divided by 4):
//! * `0x0000_0000`: the engine's registers (as in `docs/regmap.md`);
//! * [`RAM_BASE`]: the board memory, the engine's "host memory" (its DMA
//!   sees the same bytes from address 0 up; addresses wrap at its size);
//! * [`STATUS_BASE`]: board counters and facts, read only.

pub mod etherbone;

/// Board memory, as the bridge sees it.
pub const RAM_BASE: u32 = 0x1000_0000;
/// Board counters and facts, as the bridge sees them.
pub const STATUS_BASE: u32 = 0x2000_0000;
/// Board counter: frames the receive store dropped (it was full).
pub const STATUS_RX_DROPPED: u32 = STATUS_BASE;
/// Board counter: register accesses the engine answered with an error.
pub const STATUS_AXIL_ERRORS: u32 = STATUS_BASE + 4;
/// Board counter: frames the MAC dropped for a bad FCS.
pub const STATUS_CRC_ERRORS: u32 = STATUS_BASE + 8;
/// Board fact: bytes of board memory.
pub const STATUS_RAM_BYTES: u32 = STATUS_BASE + 12;
/// Board counter: Etherbone requests for the board that were not served
/// (one was being served, or it was malformed).
pub const STATUS_EB_DROPPED: u32 = STATUS_BASE + 16;

/// UARTBone command bytes (LiteX 2024.12, `litex/soc/cores/uart.py`,
/// `Stream2Wishbone`; host side `litex/tools/remote/comm_uart.py`). A
/// command is the command byte, a length byte (32-bit words), the word
/// address in four bytes (most significant first) and, for a write, the
/// words (four bytes each, most significant first). A read is answered with
/// its words the same way; a write is not answered.
pub mod uartbone {
    /// Write, incrementing address.
    pub const WRITE: u8 = 0x01;
    /// Read, incrementing address.
    pub const READ: u8 = 0x02;
    /// Write, fixed address.
    pub const WRITE_FIXED: u8 = 0x03;
    /// Read, fixed address.
    pub const READ_FIXED: u8 = 0x04;
    /// Most words in one command (the length is one byte; LiteX's client
    /// sends at most 255).
    pub const MAX_WORDS: usize = 255;

    /// A command's bytes: `cmd` at byte address `addr` (a multiple of 4),
    /// `words` long, with `data` for a write.
    pub fn command(cmd: u8, addr: u32, words: usize, data: &[u32]) -> Vec<u8> {
        assert!((1..=MAX_WORDS).contains(&words), "1 to {MAX_WORDS} words per command");
        assert_eq!(addr % 4, 0, "word-aligned address");
        let mut b = Vec::with_capacity(6 + 4 * data.len());
        b.push(cmd);
        b.push(words as u8);
        b.extend((addr / 4).to_be_bytes());
        for w in data {
            b.extend(w.to_be_bytes());
        }
        b
    }
}
