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

use ferroce_sim::lockstep::{recv_lockstep, Mix};

ferroce_sim::equivalence_inputs!(rx_path_inputs: ferroce_hdl::rx::rx_path::RxPath;
    reset, cfg_port, cfg_mac, cfg_ip, cfg_ack_every, conn_wr, conn_wr_index, conn_wr_valid_bit, conn_wr_peer_ip,
    conn_wr_paths, conn_wr_generation, mr_wr, mr_wr_index, mr_wr_valid_bit, mr_wr_rkey, mr_wr_base, mr_wr_len,
    mr_wr_remote_write, mr_wr_conn, ctl_valid, ctl_op, ctl_key, ctl_psn, post_valid, post_key, post_addr, post_len,
    post_id, timer_valid, timer_key, s_axis_tdata, s_axis_tkeep, s_axis_tvalid, s_axis_tlast, s_axis_tuser,
    m_dma_cmd_ready, m_dma_data_tready, m_ack_ready, m_nak_ready, m_fb_ready, m_cpl_ready, clear_stats);

/// Cycles of the lockstep run replayed into rust-hdl's simulator: the
/// clearing sweep after reset (2^PATH_KEY_BITS cycles), bring-up and the
/// first frames.
const REPLAYED: u64 = 40_000;

#[test]
fn receive_path_matches_the_model_frame_by_frame() {
    let mix = Mix { seed: 42, msgs: [500, 200], junk: 0.04, loss: 0.03, dup: 0.02, ce: 0.05, corrupt: 0.01 };
    ferroce_sim::verilator::record_next("rx_path", REPLAYED);
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
    // The same Rust in rust-hdl's own simulator, on this run's first cycles.
    let rec = ferroce_sim::verilator::take_recording("rx_path").expect("the first cycles were recorded");
    // No frame in these cycles is out of its window and no receive buffer
    // is posted beyond a full ring: those two counters stay at zero here
    // (the run's own assertions above count out-of-window frames later).
    ferroce_sim::equivalence::check_replay::<rx_path_inputs>("rx_path", &rec, &["cnt_oow", "cnt_post_drop"]);
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
