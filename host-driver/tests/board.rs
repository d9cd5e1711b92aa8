//! The whole engine (the ECPIX-5's `ecp5-85` build) on a simulated board (`ferroce_sim::board`): the host
//! bridge, board memory and frame stores of the board tops around it, the
//! MAC as LiteEth's at 1 Gb/s, the port looped back through a cable that
//! loses frames and corrupts others. The driver reaches it only through
//! the UARTBone bridge, in-process.

use ferroce_driver::board::{BoardDevice, Bridge};
use ferroce_driver::discover::Engine;
use ferroce_driver::loopback::{run_board, Op, Opts};
use ferroce_driver::sim_board::SimBoardLink;
use ferroce_driver::RegisterAccess;
use ferroce_proto::board::{STATUS_AXIL_ERRORS, STATUS_CRC_ERRORS, STATUS_RX_DROPPED};
use ferroce_sim::board::{BoardEngine, Cable, SimBoard};

#[test]
fn a_lossy_loopback_on_the_simulated_board_is_verified_and_bad_frames_are_counted() {
    let cable = Cable { loss: 0.03, corrupt: 0.05, seed: 3 };
    let board = SimBoard::new(BoardEngine::Engine, cable).expect("the board model builds");
    let dev = BoardDevice::open(SimBoardLink::new(board)).expect("the board answers");
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

    let (lost, corrupted, frames) = {
        let m = &dev.bone.link.board.mac;
        assert_eq!(m.first_errors, 0, "`first` on each frame's first beat only");
        assert_eq!(m.tx_errors, 0, "no frame sent marked bad");
        (m.lost, m.corrupted, m.frames)
    };
    assert_eq!(dev.bone.link.board.rx_refused, 0, "the MAC's receive side was never held");
    assert!(lost > 0 && corrupted > 0, "{lost} frames lost, {corrupted} corrupted of {frames}");

    let engine = Engine::discover(&mut dev, 0).expect("the engine's blocks");
    let mut stat = |name: &str| dev.read32(engine.offset_of("stats", name).expect("a counter")).expect("read") as u64;
    // Every frame the engine sent went over the cable; every corrupted one
    // reached it flagged bad and was dropped and counted.
    // (tx_data counts first transmissions, tx_retx the repeats.)
    let sent = [stat("tx_data"), stat("tx_retx"), stat("tx_acks"), stat("tx_naks")];
    assert_eq!(sent.iter().sum::<u64>(), frames, "frames on the cable: data, repeats, ACKs, NAKs {sent:?}");
    assert_eq!(stat("rx_malformed"), corrupted, "frames flagged bad by the MAC");
    assert!(sent[1] > 0, "the lost and corrupted data came again");
    // The board's own counters: the MAC's FCS count, no drops, no refused accesses.
    assert_eq!(dev.bone.read32(STATUS_CRC_ERRORS).expect("read") as u64, corrupted);
    assert_eq!(dev.bone.read32(STATUS_RX_DROPPED).expect("read"), 0);
    assert_eq!(dev.bone.read32(STATUS_AXIL_ERRORS).expect("read"), 0);
    assert_eq!(dev.bone.link.board.framing_errors(), 0);
}
