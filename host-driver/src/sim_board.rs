//! A simulated board (`ferroce_sim::board`) as a byte link: in-process
//! ([`SimBoardLink`], the simulation runs while the driver waits), or
//! behind a pseudo-terminal ([`serve`]), where any program that opens
//! serial ports (this driver's UART backend, LiteX's `litex_server`) can
//! talk to it as to a board on a USB UART.

use std::sync::atomic::{AtomicBool, Ordering};

use ferroce_sim::board::SimBoard;

use crate::board::ByteLink;
use crate::serial::Pty;
use crate::{Error, Result};

/// A simulated board, in-process.
#[allow(missing_debug_implementations)]
pub struct SimBoardLink {
    pub board: SimBoard,
    /// Most cycles to wait for an answer.
    pub limit: u64,
    /// Answer bytes received beyond what was asked for.
    extra: Vec<u8>,
}

impl SimBoardLink {
    pub fn new(board: SimBoard) -> Self {
        SimBoardLink { board, limit: 5_000_000, extra: Vec::new() }
    }
}

impl ByteLink for SimBoardLink {
    fn send(&mut self, bytes: &[u8]) -> Result<()> {
        self.board.send(bytes);
        Ok(())
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<()> {
        let start = self.board.cycles();
        while self.extra.len() < buf.len() {
            if self.board.cycles() - start > self.limit {
                return Err(Error::Timeout(format!(
                    "{} of {} bytes from the simulated board in {} cycles",
                    self.extra.len(),
                    buf.len(),
                    self.limit
                )));
            }
            self.board.run(64);
            self.extra.extend(self.board.take());
        }
        buf.copy_from_slice(&self.extra[..buf.len()]);
        self.extra.drain(..buf.len());
        Ok(())
    }

    fn idle(&mut self) -> Result<()> {
        self.board.run(500);
        Ok(())
    }
}

/// Cycles simulated between looks at the pseudo-terminal.
const SLICE: u64 = 200;

/// Serve `board` on `pty` until `stop` is set: bytes written to the pty's
/// slave end go onto the board's serial input, bytes the board sends come
/// out there. The board runs all the while (its engine works between
/// commands as a real one does).
pub fn serve(board: &mut SimBoard, pty: &mut Pty, stop: &AtomicBool) -> Result<()> {
    while !stop.load(Ordering::Relaxed) {
        let input = pty.take()?;
        if !input.is_empty() {
            board.send(&input);
        }
        board.run(SLICE);
        let out = board.take();
        if !out.is_empty() {
            pty.give(&out)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::BoardDevice;
    use crate::driver::Device;
    use crate::RegisterAccess;
    use ferroce_proto::board::{STATUS_AXIL_ERRORS, STATUS_RX_DROPPED};
    use ferroce_sim::board::{BoardEngine, Cable, RAM_BYTES};

    /// The stand-in board through the in-process link and through a
    /// pseudo-terminal: registers as the register map says after reset,
    /// board memory written and read back at odd alignments.
    #[test]
    fn a_simulated_board_answers_in_process_and_on_a_pty() {
        let board = SimBoard::new(BoardEngine::StandIn, Cable::default()).expect("the model builds");
        let mut d = BoardDevice::open(SimBoardLink::new(board)).expect("a board answers");
        assert_eq!(d.ram_bytes(), RAM_BYTES);
        let want = ferroce_proto::regs::RegFile::new().read(0).expect("the first register");
        assert_eq!(d.read32(0).expect("register 0"), want);
        let data: Vec<u8> = (0..1027u32).map(|i| (i * 7 + 3) as u8).collect();
        d.write_mem(4093, &data).expect("write");
        let mut back = vec![0u8; data.len()];
        d.read_mem(4093, &mut back).expect("read");
        assert_eq!(back, data);
        assert_eq!(d.bone.read32(STATUS_RX_DROPPED).expect("counter"), 0);
        assert_eq!(d.bone.read32(STATUS_AXIL_ERRORS).expect("counter"), 0);
        assert_eq!(d.bone.link.board.framing_errors(), 0);

        // The same board behind a pseudo-terminal, through the serial port code.
        let SimBoardLink { mut board, .. } = d.bone.link;
        let mut pty = Pty::open().expect("a pty");
        let path = pty.path().to_path_buf();
        let stop = AtomicBool::new(false);
        // The simulation stays on this thread (a model is not Send); the
        // host side runs on another, as a separate program would.
        std::thread::scope(|s| {
            let client = s.spawn(|| {
                let serial = crate::serial::Serial::open(&path, 115200, std::time::Duration::from_secs(20))
                    .expect("the pty opens as a serial port");
                let mut d = BoardDevice::open(serial).expect("a board answers on the pty");
                let mut back = vec![0u8; data.len()];
                d.read_mem(4093, &mut back).expect("read");
                stop.store(true, Ordering::Relaxed);
                back
            });
            serve(&mut board, &mut pty, &stop).expect("serves without error");
            assert_eq!(client.join().expect("the client ends"), data, "what the in-process link wrote");
        });
    }
}
