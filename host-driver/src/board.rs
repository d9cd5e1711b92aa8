//! An engine on an open FPGA board (ECPIX-5, Colorlight 5A-75B; see
//! `docs/boards.md`), reached through the board's host bridge: LiteX's
//! UARTBone protocol over a byte link ([`ByteLink`]: a serial port, a
//! pseudo-terminal, or a simulated board in-process). The bridge's bus
//! holds the engine's registers, the board memory the engine reaches by
//! DMA, and the board's counters (`ferroce_proto::board`).
//!
//! [`BoardDevice`] is a [`Device`]: the driver, `ferroce info/regs/stats`
//! and the loopback run work on it as on a NIC.

use std::time::Duration;

use ferroce_proto::board::{uartbone, RAM_BASE, STATUS_RAM_BYTES};
use ferroce_proto::regs::REGION_BYTES;

use crate::driver::Device;
use crate::{Error, RegisterAccess, Result};

/// Bytes both ways with a board.
pub trait ByteLink {
    /// Send `bytes`.
    fn send(&mut self, bytes: &[u8]) -> Result<()>;
    /// Receive exactly `buf.len()` bytes, or fail with [`Error::Timeout`].
    fn recv(&mut self, buf: &mut [u8]) -> Result<()>;
    /// Let the board work a while (a simulated board runs cycles; a real
    /// one is given a millisecond).
    fn idle(&mut self) -> Result<()> {
        std::thread::sleep(Duration::from_millis(1));
        Ok(())
    }
}

impl<L: ByteLink + ?Sized> ByteLink for Box<L> {
    fn send(&mut self, bytes: &[u8]) -> Result<()> {
        (**self).send(bytes)
    }
    fn recv(&mut self, buf: &mut [u8]) -> Result<()> {
        (**self).recv(buf)
    }
    fn idle(&mut self) -> Result<()> {
        (**self).idle()
    }
}

/// LiteX's UARTBone client: 32-bit words at byte addresses on the bridge's
/// bus, in commands of at most [`uartbone::MAX_WORDS`] words.
#[derive(Debug)]
pub struct UartBone<L> {
    pub link: L,
}

impl<L: ByteLink> UartBone<L> {
    pub fn new(link: L) -> Self {
        UartBone { link }
    }

    /// Read `out.len()` words from byte address `addr` up.
    pub fn read(&mut self, addr: u32, out: &mut [u32]) -> Result<()> {
        for (k, chunk) in out.chunks_mut(uartbone::MAX_WORDS).enumerate() {
            let at = addr.wrapping_add((4 * k * uartbone::MAX_WORDS) as u32);
            self.link.send(&uartbone::command(uartbone::READ, at, chunk.len(), &[]))?;
            let mut bytes = vec![0u8; 4 * chunk.len()];
            self.link.recv(&mut bytes).map_err(|e| match e {
                Error::Timeout(what) => Error::Timeout(format!(
                    "the board's answer to a read of {} words at {at:#x} ({what}); is the board \
                     running the ferroce bitstream, and the line at the bridge's speed?",
                    chunk.len()
                )),
                e => e,
            })?;
            for (w, b) in chunk.iter_mut().zip(bytes.chunks(4)) {
                *w = u32::from_be_bytes(b.try_into().expect("4 bytes"));
            }
        }
        Ok(())
    }

    /// Write `data` from byte address `addr` up (UARTBone does not answer
    /// writes: a later read is the proof they landed).
    pub fn write(&mut self, addr: u32, data: &[u32]) -> Result<()> {
        for (k, chunk) in data.chunks(uartbone::MAX_WORDS).enumerate() {
            let at = addr.wrapping_add((4 * k * uartbone::MAX_WORDS) as u32);
            self.link.send(&uartbone::command(uartbone::WRITE, at, chunk.len(), chunk))?;
        }
        Ok(())
    }

    pub fn read32(&mut self, addr: u32) -> Result<u32> {
        let mut w = [0u32];
        self.read(addr, &mut w)?;
        Ok(w[0])
    }
}

/// An engine on a board: its registers at bus address 0, its DMA memory
/// (the board memory) at [`RAM_BASE`].
#[derive(Debug)]
pub struct BoardDevice<L> {
    pub bone: UartBone<L>,
    ram_bytes: u64,
}

impl<L: ByteLink> BoardDevice<L> {
    /// Open the board behind `link`: reads how much board memory it has
    /// (which also proves that something speaks UARTBone there).
    pub fn open(link: L) -> Result<Self> {
        let mut bone = UartBone::new(link);
        let ram_bytes = bone.read32(STATUS_RAM_BYTES)? as u64;
        if ram_bytes == 0 || !ram_bytes.is_power_of_two() || ram_bytes > (1 << 27) {
            return Err(Error::System(format!(
                "the board reports {ram_bytes} bytes of board memory: not a ferroce board top"
            )));
        }
        Ok(BoardDevice { bone, ram_bytes })
    }

    /// Bytes of board memory (the engine's DMA addresses 0 up to this).
    pub fn ram_bytes(&self) -> u64 {
        self.ram_bytes
    }

    fn check_range(&self, addr: u64, len: usize) -> Result<()> {
        if addr.checked_add(len as u64).is_none_or(|end| end > self.ram_bytes) {
            return Err(Error::BadRequest(format!(
                "{len} bytes at {addr:#x} are beyond the board's {} bytes of memory",
                self.ram_bytes
            )));
        }
        Ok(())
    }
}

impl<L: ByteLink> RegisterAccess for BoardDevice<L> {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        check_register(offset)?;
        self.bone.read32(offset)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        check_register(offset)?;
        self.bone.write(offset, &[value])
    }
}

fn check_register(offset: u32) -> Result<()> {
    if offset % 4 != 0 || offset >= REGION_BYTES {
        return Err(Error::Access { offset, what: "not a register of the engine's region".into() });
    }
    Ok(())
}

/// Word-aligned span covering `len` bytes at `addr`: (first word's byte
/// address, words).
fn span(addr: u64, len: usize) -> (u64, usize) {
    let start = addr & !3;
    let end = (addr + len as u64).div_ceil(4) * 4;
    (start, ((end - start) / 4) as usize)
}

impl<L: ByteLink> Device for BoardDevice<L> {
    fn write_mem(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        self.check_range(addr, data.len())?;
        if data.is_empty() {
            return Ok(());
        }
        let (start, words) = span(addr, data.len());
        let mut bytes = vec![0u8; 4 * words];
        let head = (addr - start) as usize;
        let tail = 4 * words - head - data.len();
        // Bytes of the first and last words that are not ours are read first.
        if head != 0 {
            let w = self.bone.read32(RAM_BASE + start as u32)?;
            bytes[..4].copy_from_slice(&w.to_le_bytes());
        }
        if tail != 0 {
            let w = self.bone.read32(RAM_BASE + (start as u32 + 4 * (words as u32 - 1)))?;
            bytes[4 * words - 4..].copy_from_slice(&w.to_le_bytes());
        }
        bytes[head..head + data.len()].copy_from_slice(data);
        let ws: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))).collect();
        self.bone.write(RAM_BASE + start as u32, &ws)
    }

    fn read_mem(&mut self, addr: u64, buf: &mut [u8]) -> Result<()> {
        self.check_range(addr, buf.len())?;
        if buf.is_empty() {
            return Ok(());
        }
        let (start, words) = span(addr, buf.len());
        let mut ws = vec![0u32; words];
        self.bone.read(RAM_BASE + start as u32, &mut ws)?;
        let bytes: Vec<u8> = ws.iter().flat_map(|w| w.to_le_bytes()).collect();
        let head = (addr - start) as usize;
        buf.copy_from_slice(&bytes[head..head + buf.len()]);
        Ok(())
    }

    fn idle(&mut self) -> Result<()> {
        self.bone.link.idle()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A board as bytes: a UARTBone server over a word memory, answering
    /// as the board top does (registers and board memory in one map).
    #[derive(Debug)]
    struct Fake {
        mem: std::collections::HashMap<u32, u32>,
        inbox: Vec<u8>,
        answer: std::collections::VecDeque<u8>,
        commands: usize,
    }

    impl Fake {
        fn new(ram_bytes: u32) -> Fake {
            let mut mem = std::collections::HashMap::new();
            mem.insert(STATUS_RAM_BYTES / 4, ram_bytes);
            Fake { mem, inbox: Vec::new(), answer: Default::default(), commands: 0 }
        }

        /// Serve every whole command received.
        fn serve(&mut self) {
            while self.inbox.len() >= 6 {
                let (cmd, n) = (self.inbox[0], self.inbox[1] as usize);
                let addr = u32::from_be_bytes(self.inbox[2..6].try_into().expect("4 bytes"));
                let len = if cmd == uartbone::WRITE { 6 + 4 * n } else { 6 };
                if self.inbox.len() < len {
                    return;
                }
                for i in 0..n as u32 {
                    if cmd == uartbone::WRITE {
                        let b = &self.inbox[6 + 4 * i as usize..10 + 4 * i as usize];
                        self.mem.insert(addr + i, u32::from_be_bytes(b.try_into().expect("4 bytes")));
                    } else {
                        let w = self.mem.get(&(addr + i)).copied().unwrap_or(0);
                        self.answer.extend(w.to_be_bytes());
                    }
                }
                self.inbox.drain(..len);
                self.commands += 1;
            }
        }
    }

    impl ByteLink for Fake {
        fn send(&mut self, bytes: &[u8]) -> Result<()> {
            self.inbox.extend_from_slice(bytes);
            self.serve();
            Ok(())
        }
        fn recv(&mut self, buf: &mut [u8]) -> Result<()> {
            if self.answer.len() < buf.len() {
                return Err(Error::Timeout(format!("{} of {} bytes", self.answer.len(), buf.len())));
            }
            for b in buf {
                *b = self.answer.pop_front().expect("counted");
            }
            Ok(())
        }
    }

    #[test]
    fn memory_bytes_at_any_alignment_land_in_the_bridges_words() {
        let mut d = BoardDevice::open(Fake::new(4096)).expect("opens");
        assert_eq!(d.ram_bytes(), 4096);
        let mut model = vec![0u8; 4096];
        let mut rng = ferroce_proto::rng::Rng::new(4);
        for _ in 0..300 {
            let len = rng.below(1500) as usize;
            let addr = rng.below((4096 - len) as u64 + 1);
            let data: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            d.write_mem(addr, &data).expect("write");
            model[addr as usize..addr as usize + len].copy_from_slice(&data);
            let (a, n) = (rng.below(4000), rng.below(96) as usize);
            let mut got = vec![0u8; n];
            d.read_mem(a, &mut got).expect("read");
            assert_eq!(got, model[a as usize..a as usize + n], "{n} bytes at {a:#x}");
        }
        // The bridge holds the same bytes as words, little-endian, at RAM_BASE.
        for (i, c) in model.chunks(4).enumerate() {
            let w = d.bone.link.mem.get(&(RAM_BASE / 4 + i as u32)).copied().unwrap_or(0);
            assert_eq!(w, u32::from_le_bytes(c.try_into().expect("4 bytes")), "word {i}");
        }
    }

    #[test]
    fn long_transfers_are_split_into_commands_of_at_most_255_words() {
        let mut d = BoardDevice::open(Fake::new(1 << 16)).expect("opens");
        let data: Vec<u8> = (0..4 * 600).map(|i| i as u8).collect();
        let before = d.bone.link.commands;
        d.write_mem(0, &data).expect("write");
        assert_eq!(d.bone.link.commands - before, 3, "600 words in 255 + 255 + 90");
        let mut back = vec![0u8; data.len()];
        d.read_mem(0, &mut back).expect("read");
        assert_eq!(back, data);
    }

    #[test]
    fn out_of_range_accesses_are_refused_before_anything_is_sent() {
        let mut d = BoardDevice::open(Fake::new(4096)).expect("opens");
        let before = d.bone.link.commands;
        let e = d.write_mem(4000, &[0u8; 100]).expect_err("beyond the memory");
        assert!(e.to_string().contains("beyond the board's 4096 bytes"), "{e}");
        assert!(d.read32(REGION_BYTES).is_err(), "past the register region");
        assert!(d.write32(2, 0).is_err(), "unaligned register");
        assert_eq!(d.bone.link.commands, before);
    }

    #[test]
    fn a_silent_or_foreign_line_is_not_taken_for_a_board() {
        let e = BoardDevice::open(Fake::new(0)).expect_err("no memory");
        assert!(e.to_string().contains("not a ferroce board top"), "{e}");
        #[derive(Debug)]
        struct Mute;
        impl ByteLink for Mute {
            fn send(&mut self, _: &[u8]) -> Result<()> {
                Ok(())
            }
            fn recv(&mut self, buf: &mut [u8]) -> Result<()> {
                Err(Error::Timeout(format!("0 of {} bytes", buf.len())))
            }
        }
        let e = BoardDevice::open(Mute).expect_err("no answer");
        assert!(matches!(e, Error::Timeout(ref m) if m.contains("ferroce bitstream")), "{e}");
    }
}
