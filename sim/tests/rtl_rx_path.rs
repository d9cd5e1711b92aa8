//! The whole receive path (`rx_path`) in Verilator against the reference
//! receiver (`ferroce_proto::model::Endpoint`), on whole frames.
//!
//! Two model senders run WRITEs, WRITEs with immediate and SENDs (some to a
//! read-only region, some past their receive buffer, some before their
//! receive buffer is posted) over a channel that loses, duplicates,
//! reorders, CE-marks and corrupts frames; junk is mixed in (random and
//! truncated frames, frames for another host, from an unknown peer, on an
//! unknown connection or path) and ACK/NAK frames for the send side. Every
//! frame goes to the model receiver and to the RTL; after each frame the
//! RTL's DMA writes, ACKs, NAKs, completions and feedback must equal the
//! model's, in order. The model's ACKs drive the senders, so losses are
//! repaired by real retransmissions. At the end the memory images and the
//! counters must be equal and every message complete.
//!
//! All output streams see random back-pressure and the input random gaps;
//! a checker asserts that every output holds its data while stalled.

use ferroce_sim::lockstep_rx::{recv_lockstep, Mix};

#[test]
fn receive_path_matches_the_model_frame_by_frame() {
    let mix = Mix { seed: 42, msgs: [500, 200], junk: 0.04, loss: 0.03, dup: 0.02, ce: 0.05, corrupt: 0.01 };
    let r = recv_lockstep(&mix, &mut |_| {}).unwrap_or_else(|d| panic!("{d}"));
    let st = r.stats;
    assert!(r.frames > 3_000, "{} frames", r.frames);
    assert!(st.rx_dup > 20 && st.rx_malformed > 20 && st.rx_bad_conn > 10 && st.rx_out_of_window > 5, "{st:?}");
    assert!(st.rx_access_violation > 5 && st.rx_no_recv > 5 && st.rx_ecn_ce > 20, "{st:?}");
    assert!(
        r.timer_acks > 10 && r.send_cpls > 20 && r.feedback > 10,
        "{} {} {}",
        r.timer_acks,
        r.send_cpls,
        r.feedback
    );
}

/// Over 10^5 malformed, truncated, random and refused frames between the
/// valid ones: none writes memory, each is counted as the model counts it,
/// and the valid frame after them is placed.
#[test]
fn junk_frames_are_dropped_counted_and_never_stall() {
    let mix = Mix { seed: 9, msgs: [800, 300], junk: 0.97, loss: 0.0, dup: 0.0, ce: 0.0, corrupt: 0.0 };
    let r = recv_lockstep(&mix, &mut |_| {}).unwrap_or_else(|d| panic!("{d}"));
    assert!(r.junk >= 100_000, "{} junk frames", r.junk);
    assert!(r.stats.rx_malformed > 50_000 && r.stats.rx_bad_conn > 10_000, "{:?}", r.stats);
}
