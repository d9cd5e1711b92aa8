//! A board's whole top on its pins in Verilator: the Verilog a bitstream is
//! built from (the board top, LiteEth's generated RGMII PHY and MAC) with
//! the ECP5 primitives' simulation models, and the PHY chip played by
//! `ferroce_sim::rgmii`. The tests reach the board as a host on its cable
//! does: ARP, Etherbone through the driver, frames to the engine.

use std::sync::Arc;

use ferroce_sim::verilator::ModelLib;

use crate::bitstream::{self, Board, Engine};

/// The model of `board`'s top around `engine`, with LiteEth generated for it.
#[cfg_attr(not(test), allow(dead_code))]
pub fn model(board: Board, engine: Engine) -> anyhow::Result<Arc<ModelLib>> {
    let eth = std::fs::read_to_string(bitstream::liteeth(board)?)?;
    let verilog = [board.top(engine), eth, ferroce_hdl::primitives::ecp5::SIM_MODELS.to_string()].join("\n");
    Ok(ModelLib::build(&format!("{}-{}-pins", board.key(), engine.name(board)), &verilog)?)
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::sync::OnceLock;

    use ferroce_driver::board::{BoardDevice, Bridge, Datagrams};
    use ferroce_driver::discover::Engine as Blocks;
    use ferroce_driver::driver::Device;
    use ferroce_driver::loopback::{run_board, Op, Opts};
    use ferroce_driver::RegisterAccess;
    use ferroce_proto::board::etherbone as eb;
    use ferroce_proto::board::{STATUS_AXIL_ERRORS, STATUS_CRC_ERRORS, STATUS_EB_DROPPED, STATUS_RX_DROPPED};
    use ferroce_proto::rng::Rng;
    use ferroce_proto::wire::crc::crc32;
    use ferroce_sim::rgmii::{encode, RgmiiBoard, SentFrame, GAP_BYTES};

    use super::*;

    const HOST_MAC: [u8; 6] = [0x02, 0, 0, 0, 0, 0xfe];
    const HOST_IP: [u8; 4] = [192, 168, 1, 100];
    const HOST_PORT: u16 = 50_000;
    /// The ECPIX-5's oscillator.
    const CLK_IN_MHZ: u64 = 100;
    /// Time for the PLL to lock and the resets to end.
    const START_PS: u64 = 60_000_000;
    /// Longest wait for an answer.
    const WAIT_PS: u64 = 200_000_000;

    /// The ECPIX-5's top around the stand-in, built once per test binary.
    fn lib() -> Arc<ModelLib> {
        static LIB: OnceLock<Arc<ModelLib>> = OnceLock::new();
        LIB.get_or_init(|| model(Board::Ecpix5, Engine::StandIn).expect("the board top builds in Verilator")).clone()
    }

    fn started() -> RgmiiBoard {
        started_on(&lib())
    }

    fn started_on(lib: &Arc<ModelLib>) -> RgmiiBoard {
        let mut b = RgmiiBoard::new(lib, CLK_IN_MHZ);
        b.run_ps(START_PS);
        b
    }

    /// A frame the board sent must be well formed on the pins.
    fn well_formed(f: &SentFrame) {
        assert!(f.preamble_ok, "7 x 0x55 and 0xd5 before the frame");
        assert!(f.fcs_ok, "the FCS of {} bytes", f.bytes.len());
        assert!(!f.error, "no byte sent with the error signal");
        assert!(f.gap_before >= GAP_BYTES as u64, "{} idle bytes before the frame", f.gap_before);
        assert!(f.bytes.len() >= 60, "padded to 60 bytes before the FCS: {}", f.bytes.len());
    }

    /// Frames the board sends until one satisfies `want`.
    fn wait_for(b: &mut RgmiiBoard, want: impl Fn(&[u8]) -> bool) -> Option<Vec<u8>> {
        let end = b.now_ps() + WAIT_PS;
        while b.now_ps() < end {
            if let Some(f) = b.wait_frame(end - b.now_ps()) {
                well_formed(&f);
                if want(&f.bytes) {
                    return Some(f.bytes);
                }
            }
        }
        None
    }

    /// A loopback plug on the board's port that loses some frames and
    /// changes a byte of others (keeping their FCS, which no longer
    /// matches), as `ferroce_sim::board::Cable` does at the MAC.
    struct Plug {
        rng: Rng,
        loss: f64,
        corrupt: f64,
        /// Frames that reached the plug, lost, changed.
        looped: u64,
        lost: u64,
        corrupted: u64,
    }

    /// The board's cable: the host's frames go in; frames to the host come
    /// out to it; with a plug, every other frame goes back in through the
    /// plug, except frames to the board's own Etherbone address (which a
    /// switch would not send back out of the port they came from: the
    /// stand-in echoes every frame). Every frame the board sends must be
    /// well formed on the pins.
    struct Cable {
        b: RgmiiBoard,
        host: VecDeque<Vec<u8>>,
        plug: Option<Plug>,
        /// Frames the host sent.
        sent: u64,
    }

    impl Cable {
        fn new(b: RgmiiBoard) -> Cable {
            Cable { b, host: VecDeque::new(), plug: None, sent: 0 }
        }

        /// Run `ps` picoseconds, sorting the frames the board sends.
        fn run(&mut self, ps: u64) {
            let end = self.b.now_ps() + ps;
            while self.b.now_ps() < end {
                self.b.run_ps((end - self.b.now_ps()).min(1_000_000));
                while let Some(f) = self.b.take() {
                    well_formed(&f);
                    self.sort(f.bytes);
                }
            }
        }

        fn sort(&mut self, f: Vec<u8>) {
            if f[..6] == HOST_MAC {
                self.host.push_back(f);
                return;
            }
            let Some(p) = &mut self.plug else { return };
            if f[..6] == eb::BOARD_MAC {
                return;
            }
            p.looped += 1;
            if p.rng.chance(p.loss) {
                p.lost += 1;
            } else if p.rng.chance(p.corrupt) {
                p.corrupted += 1;
                let mut g = f.clone();
                g[20] ^= 0x10;
                self.b.send_raw(encode(&g, crc32(&f)));
            } else {
                self.b.send(&f);
            }
        }
    }

    impl Datagrams for Cable {
        fn send(&mut self, payload: &[u8]) -> ferroce_driver::Result<()> {
            let f = eb::udp_frame((HOST_MAC, HOST_IP, HOST_PORT), (eb::BOARD_MAC, eb::BOARD_IP, eb::PORT), payload);
            self.b.send(&f);
            self.sent += 1;
            Ok(())
        }

        fn recv(&mut self) -> ferroce_driver::Result<Option<Vec<u8>>> {
            let end = self.b.now_ps() + WAIT_PS;
            while self.b.now_ps() < end {
                while let Some(f) = self.host.pop_front() {
                    match eb::parse_udp_frame(&f) {
                        Some((from, to, p))
                            if from == (eb::BOARD_MAC, eb::BOARD_IP, eb::PORT)
                                && to == (HOST_MAC, HOST_IP, HOST_PORT) =>
                        {
                            return Ok(Some(p.to_vec()));
                        }
                        _ => {}
                    }
                }
                self.run(1_000_000);
            }
            Ok(None)
        }

        fn idle(&mut self) -> ferroce_driver::Result<()> {
            self.run(1_000_000);
            Ok(())
        }
    }

    /// ARP through LiteEth's PHY and MAC: the board answers with its
    /// address, the answer padded to 60 bytes with zeros.
    #[test]
    fn the_board_answers_arp_on_its_pins() {
        let mut b = started();
        // Padded to 60 bytes, as a host's MAC sends it.
        let mut req = eb::arp_request(HOST_MAC, HOST_IP, eb::BOARD_IP);
        req.resize(60, 0);
        b.send(&req);
        let want = eb::arp_reply(HOST_MAC, HOST_IP, eb::BOARD_MAC, eb::BOARD_IP);
        let got = wait_for(&mut b, |f| f[..6] == HOST_MAC && f[12..14] == [0x08, 0x06]).expect("an ARP answer");
        assert_eq!(got[..want.len()], want[..]);
        assert_eq!(got.len(), 60);
        assert!(got[want.len()..].iter().all(|&x| x == 0), "zero padding");
        assert!(b.tx_clock_ok, "rgmii_clocks_tx follows the receive clock");
    }

    /// The driver through Etherbone, UDP, IPv4, LiteEth and the RGMII pins:
    /// the engine's first register as the register map says, board memory
    /// written and read back across records, no frame dropped.
    #[test]
    fn the_driver_reaches_the_board_through_its_pins() {
        let mut d = BoardDevice::open_etherbone(Cable::new(started())).expect("the board answers Etherbone");
        assert!(d.bone.probe().expect("probe"), "a probe is answered");
        let want = ferroce_proto::regs::RegFile::new().read(0).expect("the first register");
        assert_eq!(d.read32(0).expect("register 0"), want);
        let data: Vec<u8> = (0..1203u32).map(|i| (i * 13 + 5) as u8).collect();
        d.write_mem(4093, &data).expect("write");
        let mut back = vec![0u8; data.len()];
        d.read_mem(4093, &mut back).expect("read");
        assert_eq!(back, data, "two records of up to 255 words each way");
        assert_eq!(d.bone.resent, 0, "no request sent twice");
        for (counter, name) in [(STATUS_RX_DROPPED, "receive drops"), (STATUS_EB_DROPPED, "Etherbone drops")] {
            assert_eq!(d.bone.read32(counter).expect("counter"), 0, "{name}");
        }
    }

    /// Frames of every length from the shortest to the longest, sent back
    /// to back at the line rate, come back from the stand-in whole and in
    /// order; frames whose FCS does not match are
    /// counted by LiteEth.
    #[test]
    fn frames_cross_the_pins_both_ways_and_bad_ones_are_counted() {
        let mut b = started();
        let mut rng = Rng::new(19);
        let lens = [60usize, 61, 63, 64, 67, 100, 127, 128, 129, 511, 1000, 1497, 1514];
        let frames: Vec<Vec<u8>> = lens
            .iter()
            .map(|&n| {
                // To a host that is not on this cable: not Etherbone's, not ARP.
                let mut f = vec![0x02, 0, 0, 0, 0, 0x33];
                f.extend(HOST_MAC);
                f.extend([0x88, 0xb5]);
                f.extend((14..n).map(|_| rng.next_u64() as u8));
                f
            })
            .collect();
        for f in &frames {
            b.send(f);
        }
        // A bad FCS, and a byte changed on the way: neither comes back.
        let bad = &frames[3];
        b.send_raw(encode(bad, crc32(bad) ^ 1));
        let mut hit = bad.clone();
        hit[20] ^= 0x10;
        b.send_raw(encode(&hit, crc32(bad)));
        for (i, f) in frames.iter().enumerate() {
            let got = b.wait_frame(WAIT_PS).unwrap_or_else(|| panic!("frame {i} ({} bytes) came back", f.len()));
            well_formed(&got);
            assert_eq!(got.bytes, *f, "frame {i}, {} bytes", f.len());
        }
        // LiteEth flags them (`tuser` on their last beat, which the engine
        // drops them by); the stand-in loops frames without looking at it,
        // so they come back, in order, with a fresh FCS.
        for (what, f) in [("bad FCS", bad), ("changed byte", &hit)] {
            let got = b.wait_frame(WAIT_PS).unwrap_or_else(|| panic!("the frame with a {what} looped"));
            assert_eq!(got.bytes, *f, "{what}");
        }
        b.run_ps(20_000_000);
        assert_eq!(b.take(), None, "nothing more");

        let mut d = BoardDevice::open_etherbone(Cable::new(b)).expect("the board answers Etherbone");
        assert_eq!(
            d.bone.read32(STATUS_CRC_ERRORS).expect("counter"),
            2,
            "both bad frames counted by LiteEth's FCS check"
        );
        assert_eq!(d.bone.read32(STATUS_RX_DROPPED).expect("counter"), 0);
    }

    /// The ECPIX-5's bitstream as built (its top around the `ecp5-85`
    /// engine, LiteEth's core) with a lossy loopback plug on its pins,
    /// driven by the driver's loopback run over Etherbone: the transfer is
    /// verified byte for byte; every frame the engine sent reached the
    /// plug; every frame the plug changed was flagged by LiteEth's FCS
    /// check, dropped by the engine and counted by both.
    #[test]
    fn a_lossy_loopback_through_the_engine_on_the_pins_is_verified_and_bad_frames_are_counted() {
        let lib = model(Board::Ecpix5, Engine::Preset).expect("the ECPIX-5's top builds in Verilator");
        let plug = Plug { rng: Rng::new(3), loss: 0.03, corrupt: 0.05, looped: 0, lost: 0, corrupted: 0 };
        let cable = Cable { plug: Some(plug), ..Cable::new(started_on(&lib)) };
        let dev = BoardDevice::open_etherbone(cable).expect("the board answers Etherbone");
        let o = Opts {
            op: Op::Mixed,
            size: 2500,
            count: 12,
            paths: 4,
            streams: 2,
            loss: 0.0,
            mtu: 512,
            line_rate_mbps: 1000,
            ..Opts::default()
        };
        let (r, mut dev) = run_board(dev, &o, &mut |_, _| {}).expect("the run completes");
        assert!(r.verified && r.bytes == 30_000 && r.completions == 12 + 8, "{r:?}");
        let (looped, lost, corrupted) = {
            let p = dev.bone.net.plug.as_ref().expect("the plug");
            (p.looped, p.lost, p.corrupted)
        };
        assert!(lost > 0 && corrupted > 0, "{lost} frames lost, {corrupted} changed of {looped}");
        assert!(dev.bone.net.b.tx_clock_ok, "rgmii_clocks_tx follows the receive clock");

        let engine = Blocks::discover(&mut dev, 0).expect("the engine's blocks");
        let stat = |dev: &mut BoardDevice<_>, name: &str| {
            dev.read32(engine.offset_of("stats", name).expect("a counter")).expect("read") as u64
        };
        let sent = ["tx_data", "tx_retx", "tx_acks", "tx_naks"].map(|n| stat(&mut dev, n));
        assert_eq!(sent.iter().sum::<u64>(), looped, "frames at the plug: data, repeats, ACKs, NAKs {sent:?}");
        // The host's Etherbone requests reach the engine too (beside the
        // bridge), which drops them as not its own: all those sent before
        // the counter's read, and perhaps the read's own.
        let before = dev.bone.net.sent;
        let malformed = stat(&mut dev, "rx_malformed");
        let after = dev.bone.net.sent;
        assert!(
            (corrupted + before..=corrupted + after).contains(&malformed),
            "{malformed} frames dropped by the parser: {corrupted} flagged bad by LiteEth and {before}..={after} requests"
        );
        assert!(sent[1] > 0, "the lost and changed data came again");
        assert_eq!(dev.bone.read32(STATUS_CRC_ERRORS).expect("read") as u64, corrupted, "LiteEth's FCS count");
        for (counter, name) in [
            (STATUS_RX_DROPPED, "receive drops"),
            (STATUS_AXIL_ERRORS, "refused accesses"),
            (STATUS_EB_DROPPED, "Etherbone drops"),
        ] {
            assert_eq!(dev.bone.read32(counter).expect("counter"), 0, "{name}");
        }
    }
}
