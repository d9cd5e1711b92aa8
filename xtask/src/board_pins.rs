//! A board's whole top on its pins in Verilator: the Verilog a bitstream is
//! built from (the board top, LiteEth's generated RGMII PHY and MAC) with
//! the ECP5 primitives' simulation models, and the PHY chip played by
//! `ferroce_sim::rgmii`. The tests reach the board as a host on its cable
//! does: ARP, Etherbone through the driver, frames to the engine.

use std::sync::Arc;

use ferroce_sim::verilator::ModelLib;

use crate::bitstream::{self, Board, Engine};

/// The model of `board`'s top around `engine`, with LiteEth generated for it.
pub fn model(board: Board, engine: Engine) -> anyhow::Result<Arc<ModelLib>> {
    let eth = std::fs::read_to_string(bitstream::liteeth(board)?)?;
    let verilog = [board.top(engine), eth, ferroce_hdl::primitives::ecp5::SIM_MODELS.to_string()].join("\n");
    Ok(ModelLib::build(&format!("{}-pins", board.key()), &verilog)?)
}

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;

    use ferroce_driver::board::{BoardDevice, Bridge, Datagrams};
    use ferroce_driver::driver::Device;
    use ferroce_driver::RegisterAccess;
    use ferroce_proto::board::etherbone as eb;
    use ferroce_proto::board::{STATUS_CRC_ERRORS, STATUS_EB_DROPPED, STATUS_RX_DROPPED};
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
        let mut b = RgmiiBoard::new(&lib(), CLK_IN_MHZ);
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

    /// The host on the board's cable, for the driver's Etherbone client.
    struct Cable(RgmiiBoard);

    impl Datagrams for Cable {
        fn send(&mut self, payload: &[u8]) -> ferroce_driver::Result<()> {
            let f = eb::udp_frame((HOST_MAC, HOST_IP, HOST_PORT), (eb::BOARD_MAC, eb::BOARD_IP, eb::PORT), payload);
            self.0.send(&f);
            Ok(())
        }

        fn recv(&mut self) -> ferroce_driver::Result<Option<Vec<u8>>> {
            let answer = |f: &[u8]| {
                eb::parse_udp_frame(f).is_some_and(|(from, to, _)| {
                    from == (eb::BOARD_MAC, eb::BOARD_IP, eb::PORT) && to == (HOST_MAC, HOST_IP, HOST_PORT)
                })
            };
            Ok(wait_for(&mut self.0, answer).map(|f| eb::parse_udp_frame(&f).expect("an answer").2.to_vec()))
        }

        fn idle(&mut self) -> ferroce_driver::Result<()> {
            self.0.run_ps(1_000_000);
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
        let mut d = BoardDevice::open_etherbone(Cable(started())).expect("the board answers Etherbone");
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

        let mut d = BoardDevice::open_etherbone(Cable(b)).expect("the board answers Etherbone");
        assert_eq!(
            d.bone.read32(STATUS_CRC_ERRORS).expect("counter"),
            2,
            "both bad frames counted by LiteEth's FCS check"
        );
        assert_eq!(d.bone.read32(STATUS_RX_DROPPED).expect("counter"), 0);
    }
}
