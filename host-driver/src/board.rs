//! An engine on an open FPGA board (ECPIX-5, Colorlight 5A-75B; see
//! `docs/boards.md`), reached through one of the board's host bridges
//! ([`Bridge`]): LiteX's UARTBone protocol over a byte link ([`ByteLink`]:
//! a serial port, a pseudo-terminal, or a simulated board in-process), or
//! LiteX's Etherbone over UDP ([`Etherbone`] on [`Datagrams`]: a socket, or
//! a simulated board's cable). The bridge's bus holds the engine's
//! registers, the board memory the engine reaches by DMA, and the board's
//! counters (`ferroce_proto::board`).
//!
//! [`BoardDevice`] is a [`Device`]: the driver, `ferroce info/regs/stats`
//! and the loopback run work on it as on a NIC.

use std::time::Duration;

use ferroce_proto::board::{etherbone as eb, uartbone, RAM_BASE, STATUS_RAM_BYTES};
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

/// Byte address of the `k`th command of `per` words from `addr` up (both
/// bridges split long transfers so).
fn chunk_base(addr: u32, k: usize, per: usize) -> u32 {
    addr.wrapping_add((4 * k * per) as u32)
}

/// A host bridge: 32-bit words at byte addresses on the board's bus.
pub trait Bridge {
    /// Read `out.len()` words from byte address `addr` up.
    fn read(&mut self, addr: u32, out: &mut [u32]) -> Result<()>;
    /// Write `data` from byte address `addr` up.
    fn write(&mut self, addr: u32, data: &[u32]) -> Result<()>;
    /// Let the board work a while.
    fn idle(&mut self) -> Result<()>;

    fn read32(&mut self, addr: u32) -> Result<u32> {
        let mut w = [0u32];
        self.read(addr, &mut w)?;
        Ok(w[0])
    }
}

impl<B: Bridge + ?Sized> Bridge for Box<B> {
    fn read(&mut self, addr: u32, out: &mut [u32]) -> Result<()> {
        (**self).read(addr, out)
    }
    fn write(&mut self, addr: u32, data: &[u32]) -> Result<()> {
        (**self).write(addr, data)
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
}

impl<L: ByteLink> Bridge for UartBone<L> {
    fn read(&mut self, addr: u32, out: &mut [u32]) -> Result<()> {
        for (k, chunk) in out.chunks_mut(uartbone::MAX_WORDS).enumerate() {
            let at = chunk_base(addr, k, uartbone::MAX_WORDS);
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

    /// (UARTBone does not answer writes: a later read is the proof they
    /// landed.)
    fn write(&mut self, addr: u32, data: &[u32]) -> Result<()> {
        for (k, chunk) in data.chunks(uartbone::MAX_WORDS).enumerate() {
            let at = chunk_base(addr, k, uartbone::MAX_WORDS);
            self.link.send(&uartbone::command(uartbone::WRITE, at, chunk.len(), chunk))?;
        }
        Ok(())
    }

    fn idle(&mut self) -> Result<()> {
        self.link.idle()
    }
}

/// UDP datagrams both ways with a board's Etherbone bridge.
pub trait Datagrams {
    /// Send one datagram's payload to the board.
    fn send(&mut self, payload: &[u8]) -> Result<()>;
    /// The next datagram's payload from the board, or None when none came
    /// within the link's wait.
    fn recv(&mut self) -> Result<Option<Vec<u8>>>;
    /// Let the board work a while.
    fn idle(&mut self) -> Result<()> {
        std::thread::sleep(Duration::from_millis(1));
        Ok(())
    }
}

/// A board's Etherbone bridge at an address, through a UDP socket.
#[derive(Debug)]
pub struct Udp {
    socket: std::net::UdpSocket,
    pub board: std::net::SocketAddr,
}

impl Udp {
    /// `board` is `IP` (port [`eb::PORT`]) or `IP:PORT`; each wait for an
    /// answer lasts at most `wait`.
    pub fn open(board: &str, wait: Duration) -> Result<Udp> {
        let addr: std::net::SocketAddr = match board.parse::<std::net::IpAddr>() {
            Ok(ip) => (ip, eb::PORT).into(),
            Err(_) => board.parse().map_err(|_| {
                Error::BadRequest(format!("{board:?} is not an IP address or IP:port (e.g. 192.168.1.50)"))
            })?,
        };
        let local: std::net::SocketAddr =
            if addr.is_ipv4() { ([0, 0, 0, 0], 0).into() } else { (std::net::Ipv6Addr::UNSPECIFIED, 0).into() };
        let io = |e: std::io::Error| Error::System(format!("UDP socket to {addr}: {e}"));
        let socket = std::net::UdpSocket::bind(local).map_err(io)?;
        socket.connect(addr).map_err(io)?;
        socket.set_read_timeout(Some(wait)).map_err(io)?;
        Ok(Udp { socket, board: addr })
    }
}

impl Datagrams for Udp {
    fn send(&mut self, payload: &[u8]) -> Result<()> {
        self.socket.send(payload).map_err(|e| Error::System(format!("UDP to {}: {e}", self.board)))?;
        Ok(())
    }

    fn recv(&mut self) -> Result<Option<Vec<u8>>> {
        let mut buf = vec![0u8; 4096];
        match self.socket.recv(&mut buf) {
            Ok(n) => {
                buf.truncate(n);
                Ok(Some(buf))
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => Ok(None),
            // A port-unreachable answer to an earlier datagram: nobody there yet.
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => Ok(None),
            Err(e) => Err(Error::System(format!("UDP from {}: {e}", self.board))),
        }
    }
}

/// LiteX's Etherbone client over [`Datagrams`]: reads as records of at
/// most [`eb::MAX_WORDS`] reads; writes as a record of at most as many
/// writes followed, in the same packet, by one read, so that every packet
/// is answered and a lost one is sent again (writing the same words again
/// is harmless for memory and for the engine's registers, whose writes
/// set values). Each packet is tried [`Etherbone::TRIES`] times.
#[derive(Debug)]
pub struct Etherbone<T> {
    pub net: T,
    /// `base_ret` of the next packet: answers to older ones are ignored.
    tag: u32,
    /// Packets sent again after no answer came.
    pub resent: u64,
}

impl<T: Datagrams> Etherbone<T> {
    /// Tries per packet.
    pub const TRIES: usize = 5;

    pub fn new(net: T) -> Self {
        Etherbone { net, tag: 0x4645_0000, resent: 0 }
    }

    /// Whether a board answers a probe.
    pub fn probe(&mut self) -> Result<bool> {
        for _ in 0..Self::TRIES {
            self.net.send(&eb::probe())?;
            while let Some(a) = self.net.recv()? {
                if eb::parse_reply(&a) == Ok(eb::Reply::Probe) {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Send `packet` (whose answer has one record, to `self.tag`) until
    /// its answer comes: that record's words.
    fn exchange(&mut self, packet: &[u8], what: &str) -> Result<Vec<u32>> {
        for attempt in 0..Self::TRIES {
            if attempt > 0 {
                self.resent += 1;
            }
            self.net.send(packet)?;
            while let Some(a) = self.net.recv()? {
                if let Ok(eb::Reply::Reads(records)) = eb::parse_reply(&a) {
                    if let [(tag, words)] = &records[..] {
                        if *tag == self.tag {
                            self.tag = self.tag.wrapping_add(1);
                            return Ok(words.clone());
                        }
                    }
                }
            }
        }
        Err(Error::Timeout(format!(
            "no Etherbone answer to {what} after {} tries; is the board running the ferroce bitstream, \
             at that address, on this network?",
            Self::TRIES
        )))
    }
}

impl<T: Datagrams> Bridge for Etherbone<T> {
    fn read(&mut self, addr: u32, out: &mut [u32]) -> Result<()> {
        for (k, chunk) in out.chunks_mut(eb::MAX_WORDS).enumerate() {
            let at = chunk_base(addr, k, eb::MAX_WORDS);
            let addrs: Vec<u32> = (0..chunk.len() as u32).map(|i| at.wrapping_add(4 * i)).collect();
            let words = self.exchange(&eb::reads(self.tag, &addrs), &format!("a read of {} words at {at:#x}", chunk.len()))?;
            if words.len() != chunk.len() {
                return Err(Error::System(format!("{} words answered for {} read", words.len(), chunk.len())));
            }
            chunk.copy_from_slice(&words);
        }
        Ok(())
    }

    fn write(&mut self, addr: u32, data: &[u32]) -> Result<()> {
        for (k, chunk) in data.chunks(eb::MAX_WORDS).enumerate() {
            let at = chunk_base(addr, k, eb::MAX_WORDS);
            let mut packet = eb::writes(at, chunk);
            // The confirming read, a record of its own (after the header).
            packet.extend(&eb::reads(self.tag, &[STATUS_RAM_BYTES])[8..]);
            self.exchange(&packet, &format!("a write of {} words at {at:#x}", chunk.len()))?;
        }
        Ok(())
    }

    fn idle(&mut self) -> Result<()> {
        self.net.idle()
    }
}

/// An engine on a board: its registers at bus address 0, its DMA memory
/// (the board memory) at [`RAM_BASE`].
#[derive(Debug)]
pub struct BoardDevice<B> {
    pub bone: B,
    ram_bytes: u64,
}

impl<L: ByteLink> BoardDevice<UartBone<L>> {
    /// Open the board behind `link`, through UARTBone.
    pub fn open(link: L) -> Result<Self> {
        BoardDevice::with_bridge(UartBone::new(link))
    }
}

impl<T: Datagrams> BoardDevice<Etherbone<T>> {
    /// Open the board behind `net`, through Etherbone.
    pub fn open_etherbone(net: T) -> Result<Self> {
        BoardDevice::with_bridge(Etherbone::new(net))
    }
}

impl<B: Bridge> BoardDevice<B> {
    /// Open the board behind `bone`: reads how much board memory it has
    /// (which also proves that a ferroce board answers there).
    pub fn with_bridge(mut bone: B) -> Result<Self> {
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

impl<B: Bridge> RegisterAccess for BoardDevice<B> {
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

impl<B: Bridge> Device for BoardDevice<B> {
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
        self.bone.idle()
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
