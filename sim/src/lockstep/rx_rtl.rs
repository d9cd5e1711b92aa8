//! `rx_path` in Verilator with its DMA write sink, random back-pressure on
//! every output stream and the checks on them; its outputs as the
//! receive-side lockstep compares them with the model's.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use ferroce_proto::params::{SackBitmap, SACK_BYTES};
use ferroce_proto::rng::Rng;
use ferroce_proto::transport::Completion;
use ferroce_proto::wire::{self, Body};

use super::common::{
    self, beat, ip_word, mac_word, path_key, rx_cpl_kind, stream_key, unbeat, Harness, Io, OutStream, StallCheck, B_IP,
    B_MAC,
};
use crate::verilator::ModelLib;

/// Data packets per ACK at B, in the model and the RTL.
pub const ACK_EVERY: u16 = 4;

/// One DMA write into B's memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DmaWrite {
    pub addr: u64,
    pub data: Vec<u8>,
}

/// An ACK request (`m_ack_*`), or an ACK frame of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ack {
    /// Path key.
    pub key: u64,
    pub cum: u32,
    pub sack: SackBitmap,
    pub ts_echo: u32,
    pub sport: u16,
    /// Data packets the ACK covers.
    pub pkts: u16,
    /// CE-marked packets among them.
    pub ce: u16,
}

/// A NAK request (`m_nak_*`), or a NAK frame of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nak {
    /// Path key.
    pub key: u64,
    pub psn: u32,
    pub stream: u16,
    pub msg_seq: u32,
    pub code: u8,
    pub sport: u16,
}

/// A receive completion (`m_cpl_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxCompletion {
    /// Stream key.
    pub key: u64,
    pub kind: u8,
    pub status: u8,
    pub seq: u32,
    pub len: u32,
    pub imm: u32,
    pub id: u64,
}

impl RxCompletion {
    pub fn of_model(c: &Completion) -> RxCompletion {
        RxCompletion {
            key: stream_key(c.conn, c.stream.0),
            kind: rx_cpl_kind(c.kind),
            status: c.status.code(),
            seq: c.msg_seq.0,
            len: c.len,
            imm: c.imm.unwrap_or(0),
            id: c.id.0,
        }
    }
}

/// An ACK or NAK for the send side (`m_fb_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Feedback {
    pub nak: bool,
    /// Path key.
    pub key: u64,
    pub psn: u32,
    pub ts: u32,
    pub sack: SackBitmap,
    pub ts_echo: u32,
    pub hint: u32,
    pub ce: u16,
    pub pkts: u16,
    pub code: u8,
    pub stream: u16,
    pub msg_seq: u32,
}

impl Feedback {
    /// The feedback port shows every field for both frame types; the ones
    /// of the other type are header bytes of no meaning, so they are zeroed.
    fn masked(self) -> Feedback {
        if self.nak {
            Feedback { sack: [0; SACK_BYTES], ts_echo: 0, hint: 0, ce: 0, pkts: 0, ..self }
        } else {
            Feedback { code: 0, msg_seq: 0, ..self }
        }
    }

    /// What the feedback port shows for an ACK or NAK frame B accepts.
    pub fn of_frame(p: &wire::Frame<'_>) -> Option<Feedback> {
        let c = p.transport.common;
        let none = Feedback {
            nak: false,
            key: path_key(c.conn, c.path.0),
            psn: c.psn.get(),
            ts: c.timestamp,
            sack: [0; SACK_BYTES],
            ts_echo: 0,
            hint: 0,
            ce: 0,
            pkts: 0,
            code: 0,
            stream: c.stream.0,
            msg_seq: 0,
        };
        Some(match p.transport.body {
            Body::Ack(a) => Feedback {
                sack: a.sack,
                ts_echo: a.ts_echo,
                hint: a.rate_hint_mbps,
                ce: a.ecn_ce,
                pkts: a.acked_pkts,
                ..none
            },
            Body::Nak(n) => Feedback { nak: true, code: n.code.code(), msg_seq: n.msg_seq.0, ..none },
            Body::Data(_) => return None,
        })
    }
}

/// What the receiver produced for one frame or timer round.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Out {
    pub writes: Vec<DmaWrite>,
    pub acks: Vec<Ack>,
    pub naks: Vec<Nak>,
    pub cpls: Vec<RxCompletion>,
    pub fbs: Vec<Feedback>,
}

/// Output streams with back-pressure, in the order their readies are drawn.
const STREAMS: &[OutStream] = &[
    OutStream { valid: "m_dma_cmd_valid", ready: "m_dma_cmd_ready", payload: &["m_dma_cmd_addr", "m_dma_cmd_len"] },
    OutStream {
        valid: "m_dma_data_tvalid",
        ready: "m_dma_data_tready",
        payload: &["m_dma_data_tdata", "m_dma_data_tkeep", "m_dma_data_tlast"],
    },
    OutStream {
        valid: "m_ack_valid",
        ready: "m_ack_ready",
        payload: &["m_ack_key", "m_ack_cum", "m_ack_ts", "m_ack_sport", "m_ack_pending", "m_ack_ce", "m_ack_sack"],
    },
    OutStream {
        valid: "m_nak_valid",
        ready: "m_nak_ready",
        payload: &["m_nak_key", "m_nak_psn", "m_nak_stream", "m_nak_msg_seq", "m_nak_code", "m_nak_sport"],
    },
    OutStream {
        valid: "m_cpl_valid",
        ready: "m_cpl_ready",
        payload: &["m_cpl_key", "m_cpl_kind", "m_cpl_status", "m_cpl_seq", "m_cpl_id"],
    },
    OutStream {
        valid: "m_fb_valid",
        ready: "m_fb_ready",
        payload: &["m_fb_key", "m_fb_psn", "m_fb_nak", "m_fb_sack", "m_fb_hint"],
    },
];
const DMA_CMD: usize = 0;
const DMA_DATA: usize = 1;
const ACK: usize = 2;
const NAK: usize = 3;
const CPL: usize = 4;
const FB: usize = 5;

/// The RTL receive path with its stimulus and the checks on its outputs.
#[allow(missing_debug_implementations)]
pub struct Rtl {
    pub io: Io,
    rng: Rng,
    stalls: StallCheck,
    /// DMA write commands waiting for their data, and the data so far.
    cmds: VecDeque<(u64, usize)>,
    data: Vec<u8>,
    /// ACK-timer arm requests (path keys).
    pub arms: Vec<u64>,
}

impl Harness for Rtl {
    fn io(&mut self) -> &mut Io {
        &mut self.io
    }
}

impl Rtl {
    pub fn new(lib: &Arc<ModelLib>, seed: u64) -> Rtl {
        let mut r = Rtl {
            io: Io::new(lib),
            rng: Rng::new(seed),
            stalls: StallCheck::default(),
            cmds: VecDeque::new(),
            data: Vec::new(),
            arms: Vec::new(),
        };
        r.io.reset();
        r.io.set("cfg_port", wire::FERROCE_PORT as u64);
        r.io.set("cfg_mac", mac_word(B_MAC));
        r.io.set("cfg_ip", ip_word(B_IP));
        r.io.set("cfg_ack_every", ACK_EVERY as u64);
        r
    }

    /// One cycle: random ready on every output stream, the protocol check,
    /// outputs taken into `out`. Returns whether anything moved out.
    fn cycle(&mut self, out: &mut Out) -> bool {
        for st in STREAMS {
            let ready = !self.rng.chance(0.25);
            self.io.set(st.ready, ready as u64);
        }
        self.io.s.eval();
        let fired = self.stalls.observe(&mut self.io, STREAMS);
        let mut moved = false;
        for (i, _) in fired.iter().enumerate().filter(|(_, f)| **f) {
            self.take(i, out);
            moved = true;
        }
        if self.io.get("m_arm_valid") == 1 {
            let k = self.io.get("m_arm_key");
            self.arms.push(k);
            moved = true;
        }
        self.io.s.tick();
        moved
    }

    /// The transfer on output stream `i`.
    fn take(&mut self, i: usize, out: &mut Out) {
        let io = &mut self.io;
        match i {
            DMA_CMD => self.cmds.push_back((io.get("m_dma_cmd_addr"), io.get("m_dma_cmd_len") as usize)),
            DMA_DATA => {
                let (d, k) = (io.get("m_dma_data_tdata"), io.get("m_dma_data_tkeep"));
                assert!(k != 0 && k & (k + 1) == 0, "tkeep contiguous from lane 0: {k:#x}");
                unbeat(d, k, &mut self.data);
                if io.get("m_dma_data_tlast") == 1 {
                    let (addr, len) = self.cmds.pop_front().expect("DMA data after its command");
                    assert_eq!(len, self.data.len(), "DMA write at {addr:#x}: command length and data differ");
                    out.writes.push(DmaWrite { addr, data: std::mem::take(&mut self.data) });
                }
            }
            ACK => out.acks.push(Ack {
                key: io.get("m_ack_key"),
                cum: io.get("m_ack_cum") as u32,
                sack: io.get_bitmap("m_ack_sack"),
                ts_echo: io.get("m_ack_ts") as u32,
                sport: io.get("m_ack_sport") as u16,
                pkts: io.get("m_ack_pending") as u16,
                ce: io.get("m_ack_ce") as u16,
            }),
            NAK => out.naks.push(Nak {
                key: io.get("m_nak_key"),
                psn: io.get("m_nak_psn") as u32,
                stream: io.get("m_nak_stream") as u16,
                msg_seq: io.get("m_nak_msg_seq") as u32,
                code: io.get("m_nak_code") as u8,
                sport: io.get("m_nak_sport") as u16,
            }),
            CPL => out.cpls.push(RxCompletion {
                key: io.get("m_cpl_key"),
                kind: io.get("m_cpl_kind") as u8,
                status: io.get("m_cpl_status") as u8,
                seq: io.get("m_cpl_seq") as u32,
                len: io.get("m_cpl_len") as u32,
                imm: io.get("m_cpl_imm") as u32,
                id: io.get("m_cpl_id"),
            }),
            FB => out.fbs.push(Self::feedback(io)),
            _ => unreachable!(),
        }
    }

    fn feedback(io: &mut Io) -> Feedback {
        Feedback {
            nak: io.get("m_fb_nak") == 1,
            key: io.get("m_fb_key"),
            psn: io.get("m_fb_psn") as u32,
            ts: io.get("m_fb_ts") as u32,
            sack: io.get_bitmap("m_fb_sack"),
            ts_echo: io.get("m_fb_ts_echo") as u32,
            hint: io.get("m_fb_hint") as u32,
            ce: io.get("m_fb_ce") as u16,
            pkts: io.get("m_fb_pkts") as u16,
            code: io.get("m_fb_code") as u8,
            stream: io.get("m_fb_stream") as u16,
            msg_seq: io.get("m_fb_msg_seq") as u32,
        }
        .masked()
    }

    /// Run until nothing has moved for a while.
    pub fn settle(&mut self, out: &mut Out) {
        common::settle_quiet(self, 32, |r| r.cycle(out));
        assert!(self.stalls.is_clear() && self.cmds.is_empty() && self.data.is_empty());
    }

    /// Offer one handshake (`valid`, `ready`) with `fields` set until taken.
    pub fn handshake(&mut self, valid: &str, ready: &str, fields: &[(&str, u64)], out: &mut Out) {
        common::handshake(self, valid, ready, fields, |r| {
            r.cycle(out);
        });
    }

    /// One frame into the receive port, with random gaps, then settle.
    pub fn frame(&mut self, f: &[u8], out: &mut Out) {
        let mut at = 0;
        common::until(self, 100_000, "frame input stuck", |r| {
            if at >= f.len() {
                return true;
            }
            let offer = !r.rng.chance(0.2);
            let k = (f.len() - at).min(8);
            let (d, keep) = beat(&f[at..at + k]);
            r.io.set("s_axis_tdata", d);
            r.io.set("s_axis_tkeep", keep);
            r.io.set("s_axis_tlast", (at + k == f.len()) as u64);
            r.io.set("s_axis_tvalid", offer as u64);
            r.io.s.eval();
            let taken = offer && r.io.get("s_axis_tready") == 1;
            r.cycle(out);
            if taken {
                at += k;
            }
            false
        });
        self.io.set("s_axis_tvalid", 0);
        self.settle(out);
    }

    pub fn counters(&mut self) -> HashMap<&'static str, u64> {
        ferroce_hdl::rx::rx_path::COUNTERS.iter().map(|c| (*c, self.io.get(c))).collect()
    }
}
