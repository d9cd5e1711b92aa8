//! A simulated board (`ferroce_sim::board`) as a byte link or as a host on
//! its cable: in-process ([`SimBoardLink`] for UARTBone, [`SimBoardNet`]
//! for Etherbone; the simulation runs while the driver waits), or served
//! ([`serve`]) behind a pseudo-terminal, where any program that opens
//! serial ports (this driver's UART backend, LiteX's `litex_server`) can
//! talk to it as to a board on a USB UART, and on a UDP socket, where the
//! driver's Etherbone backend reaches it as a board on the network.

use std::sync::atomic::{AtomicBool, Ordering};

use ferroce_proto::board::etherbone as eb;
use ferroce_sim::board::{SimBoard, HOST_IP, HOST_MAC};

use crate::board::{ByteLink, Datagrams};
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

/// The host's UDP port on a simulated board's cable.
const HOST_PORT: u16 = 50_000;

/// The host on a simulated board's cable, in-process: a datagram sent is
/// a frame from [`HOST_MAC`] / [`HOST_IP`] to the board's Etherbone port;
/// frames the board sends to the host are its answers.
#[allow(missing_debug_implementations)]
pub struct SimBoardNet {
    pub board: SimBoard,
    /// Most cycles to wait for an answer.
    pub limit: u64,
}

impl SimBoardNet {
    pub fn new(board: SimBoard) -> Self {
        SimBoardNet { board, limit: 2_000_000 }
    }
}

/// A datagram's frame from the host to the board's Etherbone port.
fn to_board(payload: &[u8], from_port: u16) -> Vec<u8> {
    eb::udp_frame((HOST_MAC, HOST_IP, from_port), (eb::BOARD_MAC, eb::BOARD_IP, eb::PORT), payload)
}

/// The payloads of the board's frames to the host's UDP port `port`.
fn from_board(frames: Vec<Vec<u8>>, port: u16) -> Vec<Vec<u8>> {
    frames
        .iter()
        .filter_map(|f| eb::parse_udp_frame(f))
        .filter(|(from, to, _)| from.2 == eb::PORT && to.2 == port)
        .map(|(_, _, p)| p.to_vec())
        .collect()
}

impl Datagrams for SimBoardNet {
    fn send(&mut self, payload: &[u8]) -> Result<()> {
        self.board.inject(to_board(payload, HOST_PORT));
        Ok(())
    }

    fn recv(&mut self) -> Result<Option<Vec<u8>>> {
        let start = self.board.cycles();
        while self.board.cycles() - start < self.limit {
            self.board.run(64);
            if let Some(p) = from_board(self.board.take_host(), HOST_PORT).into_iter().next() {
                return Ok(Some(p));
            }
        }
        Ok(None)
    }

    fn idle(&mut self) -> Result<()> {
        self.board.run(500);
        Ok(())
    }
}

/// Cycles simulated between looks at the pseudo-terminal and the socket.
const SLICE: u64 = 200;

/// Serve `board` until `stop` is set: on `pty`, bytes written to its slave
/// end go onto the board's serial input and bytes the board sends come out
/// there; on `udp`, each datagram goes to the board's Etherbone port as a
/// frame from the host (from the host's port 50000) and each answer goes
/// back to the datagram's sender. The board runs all the while (its engine
/// works between commands as a real one does).
pub fn serve(
    board: &mut SimBoard,
    mut pty: Option<&mut Pty>,
    udp: Option<&std::net::UdpSocket>,
    stop: &AtomicBool,
) -> Result<()> {
    if let Some(u) = udp {
        u.set_nonblocking(true).map_err(|e| Error::System(format!("UDP socket: {e}")))?;
    }
    let mut client: Option<std::net::SocketAddr> = None;
    let mut buf = vec![0u8; 4096];
    while !stop.load(Ordering::Relaxed) {
        if let Some(pty) = pty.as_deref_mut() {
            let input = pty.take()?;
            if !input.is_empty() {
                board.send(&input);
            }
        }
        if let Some(u) = udp {
            loop {
                match u.recv_from(&mut buf) {
                    Ok((n, from)) => {
                        client = Some(from);
                        board.inject(to_board(&buf[..n], HOST_PORT));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(Error::System(format!("UDP socket: {e}"))),
                }
            }
        }
        board.run(SLICE);
        if let Some(pty) = pty.as_deref_mut() {
            let out = board.take();
            if !out.is_empty() {
                pty.give(&out)?;
            }
        }
        let answers = from_board(board.take_host(), HOST_PORT);
        if let (Some(u), Some(to)) = (udp, client) {
            for a in answers {
                u.send_to(&a, to).map_err(|e| Error::System(format!("UDP socket: {e}")))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{BoardDevice, Bridge};
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
            serve(&mut board, Some(&mut pty), None, &stop).expect("serves without error");
            assert_eq!(client.join().expect("the client ends"), data, "what the in-process link wrote");
        });
    }

    /// The engine's board through Etherbone, in-process and on a UDP
    /// socket: the same answers as through UARTBone, a lost datagram sent
    /// again, the board's drop counter readable.
    #[test]
    fn a_simulated_board_answers_etherbone_in_process_and_on_a_socket() {
        let board = SimBoard::new(BoardEngine::StandIn, Cable::default()).expect("the model builds");
        let mut d = BoardDevice::open_etherbone(SimBoardNet::new(board)).expect("a board answers");
        assert!(d.bone.probe().expect("probe"), "a probe is answered");
        assert_eq!(d.ram_bytes(), RAM_BYTES);
        let want = ferroce_proto::regs::RegFile::new().read(0).expect("the first register");
        assert_eq!(d.read32(0).expect("register 0"), want);
        let data: Vec<u8> = (0..3001u32).map(|i| (i * 13 + 5) as u8).collect();
        d.write_mem(4093, &data).expect("write");
        let mut back = vec![0u8; data.len()];
        d.read_mem(4093, &mut back).expect("read");
        assert_eq!(back, data, "more than one record of 255 words each way");
        assert_eq!(d.bone.resent, 0);
        assert_eq!(d.bone.read32(ferroce_proto::board::STATUS_EB_DROPPED).expect("counter"), 0);

        // The same board on a UDP socket, with a client that drops the first
        // answer it gets (as a lossy network would): it sends again.
        let net = d.bone.net;
        let mut board = net.board;
        let sock = std::net::UdpSocket::bind("127.0.0.1:0").expect("a socket");
        let addr = sock.local_addr().expect("its address").to_string();
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let client = s.spawn(|| {
                struct Lossy(crate::board::Udp, bool);
                impl Datagrams for Lossy {
                    fn send(&mut self, p: &[u8]) -> Result<()> {
                        self.0.send(p)
                    }
                    fn recv(&mut self) -> Result<Option<Vec<u8>>> {
                        let a = self.0.recv()?;
                        if a.is_some() && !self.1 {
                            self.1 = true;
                            return Ok(None);
                        }
                        Ok(a)
                    }
                }
                let udp = crate::board::Udp::open(&addr, std::time::Duration::from_secs(1)).expect("socket");
                let mut d = BoardDevice::open_etherbone(Lossy(udp, false)).expect("a board answers on UDP");
                let mut back = vec![0u8; data.len()];
                d.read_mem(4093, &mut back).expect("read");
                let resent = d.bone.resent;
                stop.store(true, Ordering::Relaxed);
                (back, resent)
            });
            serve(&mut board, None, Some(&sock), &stop).expect("serves without error");
            let (back, resent) = client.join().expect("the client ends");
            assert_eq!(back, data, "what the in-process bridge wrote");
            assert_eq!(resent, 1, "the dropped answer's request was sent again");
        });
    }
}
