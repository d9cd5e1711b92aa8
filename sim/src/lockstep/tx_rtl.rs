//! `tx_path` in Verilator with its DMA read model, MAC sink and output
//! checks.

use std::collections::VecDeque;
use std::sync::Arc;

use ferroce_hdl::tx::rtt::SUM_BITS as RTO_NS_BITS;
use ferroce_proto::rng::Rng;
use ferroce_proto::transport::Completion;
use ferroce_proto::Iova;

use super::common::{self, beat, stream_key, unbeat, Harness, Io, OutStream, StallCheck};
use crate::memory::Memory;
use crate::verilator::ModelLib;

/// A send completion as `tx_path`'s `m_cpl_*` port reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxCompletion {
    /// Stream key.
    pub key: u64,
    pub status: u8,
    pub seq: u32,
    pub len: u32,
    pub id: u64,
    pub imm: Option<u32>,
}

impl TxCompletion {
    /// A completion of the model sender as the RTL reports it.
    pub fn of_model(c: &Completion) -> TxCompletion {
        TxCompletion {
            key: stream_key(c.conn, c.stream.0),
            status: c.status.code(),
            seq: c.msg_seq.0,
            len: c.len,
            id: c.id.0,
            imm: c.imm,
        }
    }
}

/// A retransmission-timer request (`m_rto_*`): arm the path's timer for
/// `base << shift` ps, or disarm it.
#[derive(Debug, Clone, Copy)]
pub struct RtoRequest {
    pub key: u64,
    pub arm: bool,
    /// Backoff shift.
    pub shift: u64,
    /// Base timeout in ps.
    pub base: u64,
}

/// A NO_RECV hold (`m_rnr_*`): the path's PSN waits for a release.
#[derive(Debug, Clone, Copy)]
pub struct Hold {
    pub key: u64,
    pub psn: u32,
}

/// A DMA read being answered: its bytes and how many have gone out.
struct Reading {
    data: Vec<u8>,
    at: usize,
}

/// Output streams with back-pressure, in the order their readies are drawn.
const STREAMS: &[OutStream] = &[
    OutStream { valid: "m_rd_cmd_valid", ready: "m_rd_cmd_ready", payload: &["m_rd_cmd_addr", "m_rd_cmd_len"] },
    OutStream {
        valid: "m_axis_tvalid",
        ready: "m_axis_tready",
        payload: &["m_axis_tdata", "m_axis_tkeep", "m_axis_tlast"],
    },
    OutStream {
        valid: "m_cpl_valid",
        ready: "m_cpl_ready",
        payload: &["m_cpl_key", "m_cpl_status", "m_cpl_seq", "m_cpl_len", "m_cpl_id", "m_cpl_imm"],
    },
];
const RD_CMD: usize = 0;
const MAC: usize = 1;
const CPL: usize = 2;

/// Chance that each output stream is stalled in a cycle.
const STALL: [f64; 3] = [0.2, 0.2, 0.3];

/// `tx_path` in Verilator with its DMA read model, MAC sink and output
/// checks.
#[allow(missing_debug_implementations)]
pub struct TxRtl {
    pub io: Io,
    rng: Rng,
    /// DMA reads waiting: (address, length).
    reads: VecDeque<(u64, usize)>,
    reading: Option<Reading>,
    frame: Vec<u8>,
    pub frames: VecDeque<Vec<u8>>,
    pub(super) cpls: VecDeque<TxCompletion>,
    /// RTO arm and disarm requests and NO_RECV holds, in order.
    pub(super) rtos: Vec<RtoRequest>,
    /// Tail-probe timer requests (`m_probe_*`; the key is the connection).
    pub(super) probes: Vec<RtoRequest>,
    pub(super) holds: Vec<Hold>,
    done: Option<bool>,
    /// The last data frame's connection and payload bytes, as `tx_sent_conn`
    /// and `tx_sent_len` gave them.
    pub last_sent: Option<(u64, u64)>,
    stalls: StallCheck,
    /// Cycles run: the register window's path key sweeps `window_keys`
    /// with it.
    cycles: u64,
    /// The path keys the register window looks at, one after another (none:
    /// key 0).
    pub window_keys: Vec<u64>,
}

impl Harness for TxRtl {
    fn io(&mut self) -> &mut Io {
        &mut self.io
    }
}

impl TxRtl {
    pub fn new(lib: &Arc<ModelLib>, seed: u64) -> TxRtl {
        let mut r = TxRtl {
            io: Io::new(lib),
            rng: Rng::new(seed),
            reads: VecDeque::new(),
            reading: None,
            frame: Vec::new(),
            frames: VecDeque::new(),
            cpls: VecDeque::new(),
            rtos: Vec::new(),
            probes: Vec::new(),
            holds: Vec::new(),
            done: None,
            last_sent: None,
            stalls: StallCheck::default(),
            cycles: 0,
            window_keys: Vec::new(),
        };
        r.io.reset();
        r
    }

    pub fn set(&mut self, n: &str, v: u64) {
        self.io.set(n, v);
    }

    pub fn get(&mut self, n: &str) -> u64 {
        self.io.get(n)
    }

    /// One cycle with the DMA read model, the MAC sink and the output ports.
    fn cycle(&mut self, mem: &Memory) {
        let beat_len = self.offer_read_data(mem);
        let readies: Vec<bool> = STALL.iter().map(|p| !self.rng.chance(*p)).collect();
        for (st, ready) in STREAMS.iter().zip(&readies) {
            self.io.set(st.ready, *ready as u64);
        }
        // The register window looks at a path after another, a new one
        // every 64 cycles (nothing here reads it; the rust-hdl replay
        // compares it). Each change costs the control logic the three
        // cycles of loading the path for the window's snapshot.
        self.cycles += 1;
        let n = self.window_keys.len() as u64;
        let key = if n == 0 { 0 } else { self.window_keys[((self.cycles >> 6) % n) as usize] };
        self.io.set("pt_key", key);
        self.io.s.eval();
        let fired = self.stalls.observe(&mut self.io, STREAMS);
        if let Some(n) = beat_len {
            if self.io.get("s_rd_tready") == 1 {
                let r = self.reading.as_mut().expect("reading");
                r.at += n;
                if r.at == r.data.len() {
                    self.reading = None;
                }
            }
        }
        self.take_outputs(&fired);
        self.io.s.tick();
    }

    /// DMA read data: the current read's next beat, sometimes late; the
    /// beat's length if one is offered.
    fn offer_read_data(&mut self, mem: &Memory) -> Option<usize> {
        if self.reading.is_none() && self.rng.chance(0.5) {
            if let Some((addr, len)) = self.reads.pop_front() {
                self.reading = Some(Reading { data: mem.slice(Iova(addr), len).to_vec(), at: 0 });
            }
        }
        let offer = match &self.reading {
            Some(r) if !self.rng.chance(0.2) => {
                let bytes = &r.data[r.at..(r.at + 8).min(r.data.len())];
                Some((beat(bytes), (r.at + bytes.len() == r.data.len()) as u64, bytes.len()))
            }
            _ => None,
        };
        self.io.set("s_rd_tvalid", offer.is_some() as u64);
        let ((data, keep), last, n) = offer?;
        self.io.set("s_rd_tdata", data);
        self.io.set("s_rd_tkeep", keep);
        self.io.set("s_rd_tlast", last);
        Some(n)
    }

    /// What the outputs give this cycle: DMA read commands, frame bytes,
    /// completions, timer requests, the end of a transmit attempt.
    fn take_outputs(&mut self, fired: &[bool]) {
        let io = &mut self.io;
        if fired[RD_CMD] {
            let (a, l) = (io.get("m_rd_cmd_addr"), io.get("m_rd_cmd_len") as usize);
            assert!(l > 0, "a DMA read of nothing");
            self.reads.push_back((a, l));
        }
        if fired[MAC] {
            unbeat(io.get("m_axis_tdata"), io.get("m_axis_tkeep"), &mut self.frame);
            if io.get("m_axis_tlast") == 1 {
                self.frames.push_back(std::mem::take(&mut self.frame));
            }
        }
        if fired[CPL] {
            let imm = (io.get("m_cpl_has_imm") == 1).then(|| io.get("m_cpl_imm") as u32);
            self.cpls.push_back(TxCompletion {
                key: io.get("m_cpl_key"),
                status: io.get("m_cpl_status") as u8,
                seq: io.get("m_cpl_seq") as u32,
                len: io.get("m_cpl_len") as u32,
                id: io.get("m_cpl_id"),
                imm,
            });
        }
        if io.get("m_rto_valid") == 1 {
            let (key, arm) = (io.get("m_rto_key"), io.get("m_rto_arm") == 1);
            // `m_rto_base` is {ns (36 bits, from bit 0), ps (10 bits)}.
            let rto = io.get("m_rto_base");
            let base = (rto & ((1 << RTO_NS_BITS) - 1)) * 1000 + (rto >> RTO_NS_BITS);
            self.rtos.push(RtoRequest { key, arm, shift: io.get("m_rto_shift"), base });
        }
        if io.get("m_probe_valid") == 1 {
            let (key, arm) = (io.get("m_probe_key"), io.get("m_probe_arm") == 1);
            let t = io.get("m_probe_base");
            let base = (t & ((1 << RTO_NS_BITS) - 1)) * 1000 + (t >> RTO_NS_BITS);
            self.probes.push(RtoRequest { key, arm, shift: io.get("m_probe_shift"), base });
        }
        if io.get("m_rnr_valid") == 1 {
            self.holds.push(Hold { key: io.get("m_rnr_key"), psn: io.get("m_rnr_psn") as u32 });
        }
        if io.get("tx_done") == 1 {
            self.done = Some(io.get("tx_sent") == 1);
        }
        if io.get("tx_sent") == 1 {
            self.last_sent = Some((io.get("tx_sent_conn"), io.get("tx_sent_len")));
        }
    }

    /// Offer one input transfer until `ready` takes it.
    pub fn handshake(&mut self, valid: &str, ready: &str, fields: &[(&str, u64)], mem: &Memory) {
        common::handshake(self, valid, ready, fields, |r| r.cycle(mem));
    }

    /// The register window on path `key`: (source port, window, retired,
    /// sent, retransmitted, CE echoes, srtt in ns), once `pt_valid` says
    /// the snapshot is of that path; `None` if it never does in 64 cycles.
    pub fn window(&mut self, key: u64, mem: &Memory) -> Option<[u64; 7]> {
        self.window_keys = vec![key];
        for _ in 0..64 {
            self.cycle(mem);
            if self.io.get("pt_valid") == 1 && self.io.get("pt_key") == key {
                let names = ["pt_sport", "pt_cwnd", "pt_retired", "pt_sent", "pt_retx", "pt_ecn", "pt_srtt"];
                return Some(names.map(|n| self.io.get(n)));
            }
        }
        None
    }

    /// Run until every started frame has left and nothing moves.
    pub fn settle(&mut self, mem: &Memory) {
        for _ in 0..40 {
            self.cycle(mem);
        }
        // `ctl_ready` is high when the control logic is idle.
        common::until(self, 100_000, "a frame never finished", |r| {
            let busy = !r.frame.is_empty() || !r.reads.is_empty() || r.reading.is_some() || r.get("ctl_ready") == 0;
            if busy {
                r.cycle(mem);
            }
            !busy
        });
        for _ in 0..40 {
            self.cycle(mem);
        }
    }

    /// One transmit attempt; the frame it sent, if any.
    pub fn transmit(&mut self, mem: &Memory) -> Option<Vec<u8>> {
        self.done = None;
        self.set("tx_go", 1);
        common::until(self, 10_000, "transmit attempt never ended", |r| {
            if r.done.is_some() {
                return true;
            }
            r.io.s.eval();
            if r.get("tx_done") == 1 {
                r.set("tx_go", 0);
            }
            r.cycle(mem);
            false
        });
        self.set("tx_go", 0);
        let sent = self.done.take().expect("done");
        self.settle(mem);
        assert!(self.done.is_none(), "one attempt per permission");
        if sent {
            assert_eq!(self.frames.len(), 1, "one frame per attempt");
        } else {
            assert!(self.frames.is_empty(), "a frame without an attempt");
        }
        self.frames.pop_front()
    }
}
