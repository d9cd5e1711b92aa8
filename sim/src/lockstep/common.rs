//! What the send-side and receive-side lockstep harnesses share: the
//! endpoints' addresses, a model's ports by name and its reset, the input
//! handshake, bounded waits and settling, the output-stream checker, the
//! RTL's keys, and the codes the RTL's ports carry, taken from
//! `ferroce_proto` rather than retyped.

use std::collections::HashMap;
use std::sync::Arc;

use ferroce_proto::params::{SackBitmap, PATH_BITS, RX_CPL_RECV, RX_CPL_WRITE_IMM, SACK_BYTES, STREAM_BITS};
use ferroce_proto::transport::{CompletionKind, WorkRequest};
use ferroce_proto::types::Time;
use ferroce_proto::wire::Opcode;
use ferroce_proto::ConnId;

use ferroce_hdl::emit::PATH_KEY_BITS;

use crate::verilator::{ModelLib, Port, Sim};

/// The sender A of the send-side run.
pub const A_MAC: [u8; 6] = [2, 0, 0, 0, 0, 0xa];
pub const A_IP: [u8; 4] = [10, 0, 0, 10];
/// The receiver B of both runs.
pub const B_MAC: [u8; 6] = [2, 0, 0, 0, 0, 0xb];
pub const B_IP: [u8; 4] = [10, 0, 0, 11];
/// Payload bytes per packet in both runs: small, so messages span many
/// packets.
pub const MTU: u32 = 256;

/// Cycles an input handshake may wait for `ready`.
const HANDSHAKE_LIMIT: u64 = 10_000;

/// A Verilator model clocked by `clock`, with its ports looked up by name
/// once.
#[allow(missing_debug_implementations)]
pub struct Io {
    pub s: Sim,
    ports: HashMap<String, Port>,
}

impl Io {
    pub fn new(lib: &Arc<ModelLib>) -> Io {
        let mut s = Sim::new(lib);
        s.clock("clock");
        Io { s, ports: HashMap::new() }
    }

    /// Reset, then wait for `ready`: the per-key stores clear themselves
    /// in 2^PATH_KEY_BITS cycles after reset (allowed four times that).
    pub fn reset(&mut self) {
        self.s.reset("reset", Some("ready"), 4 << PATH_KEY_BITS);
    }

    pub fn port(&mut self, n: &str) -> Port {
        if let Some(p) = self.ports.get(n) {
            return *p;
        }
        let p = self.s.port(n);
        self.ports.insert(n.to_string(), p);
        p
    }

    pub fn set(&mut self, n: &str, v: u64) {
        let p = self.port(n);
        self.s.set(p, v);
    }

    pub fn get(&mut self, n: &str) -> u64 {
        let p = self.port(n);
        self.s.get(p)
    }

    pub fn set_words(&mut self, n: &str, words: &[u32]) {
        let p = self.port(n);
        self.s.set_words(p, words);
    }

    pub fn get_words(&mut self, n: &str) -> Vec<u32> {
        let p = self.port(n);
        self.s.get_words(p)
    }

    /// A SACK-bitmap port as its bytes, byte 0 lowest.
    pub fn get_bitmap(&mut self, n: &str) -> SackBitmap {
        words_to_bytes(&self.get_words(n))
    }
}

/// A harness around an [`Io`], whose own cycle function runs its models
/// (DMA, MAC, random back-pressure) around each clock edge.
pub trait Harness {
    fn io(&mut self) -> &mut Io;
}

/// Offer one input transfer: `fields` and `valid` held until `ready` is
/// seen high, `cycle` run for every cycle it waits and the one it is taken.
pub fn handshake<H: Harness>(
    h: &mut H,
    valid: &str,
    ready: &str,
    fields: &[(&str, u64)],
    mut cycle: impl FnMut(&mut H),
) {
    let io = h.io();
    for (n, v) in fields {
        io.set(n, *v);
    }
    io.set(valid, 1);
    let mut waited = 0;
    loop {
        let io = h.io();
        io.s.eval();
        let taken = io.get(ready) == 1;
        cycle(h);
        if taken {
            break;
        }
        waited += 1;
        assert!(waited < HANDSHAKE_LIMIT, "{valid} never taken");
    }
    h.io().set(valid, 0);
}

/// Call `step` until it says done, at most `limit` times (`what` names the
/// wait that never ended).
pub fn until<H>(h: &mut H, limit: u64, what: &str, mut step: impl FnMut(&mut H) -> bool) {
    let mut n = 0;
    while !step(h) {
        n += 1;
        assert!(n < limit, "{what}");
    }
}

/// Run `cycle` (which says whether anything moved) until nothing has moved
/// for `quiet` cycles in a row.
pub fn settle_quiet<H>(h: &mut H, quiet: u32, mut cycle: impl FnMut(&mut H) -> bool) {
    let mut still = 0;
    while still < quiet {
        still = if cycle(h) { 0 } else { still + 1 };
    }
}

/// An output stream with back-pressure: its valid and ready ports and the
/// payload that must stay stable while it is stalled.
#[derive(Debug, Clone, Copy)]
pub struct OutStream {
    pub valid: &'static str,
    pub ready: &'static str,
    pub payload: &'static [&'static str],
}

/// The stream contract on a block's outputs (house rule 5): a stream that
/// shows `valid` while stalled keeps `valid` and its payload until taken.
#[derive(Debug, Default)]
pub struct StallCheck {
    /// Streams stalled last cycle, with the payload they showed.
    held: HashMap<&'static str, Vec<u32>>,
}

impl StallCheck {
    /// After `eval`, with this cycle's readies driven: check every stream
    /// and say, per stream, whether it transfers this cycle.
    pub fn observe(&mut self, io: &mut Io, streams: &[OutStream]) -> Vec<bool> {
        streams
            .iter()
            .map(|st| {
                if io.get(st.valid) == 0 {
                    assert!(!self.held.contains_key(st.valid), "{} dropped while stalled", st.valid);
                    return false;
                }
                let now: Vec<u32> = st.payload.iter().flat_map(|p| io.get_words(p)).collect();
                if let Some(h) = self.held.get(st.valid) {
                    assert_eq!(h, &now, "{}: data changed while stalled", st.valid);
                }
                let taken = io.get(st.ready) == 1;
                if taken {
                    self.held.remove(st.valid);
                } else {
                    self.held.insert(st.valid, now);
                }
                taken
            })
            .collect()
    }

    /// No stream is stalled with data.
    pub fn is_clear(&self) -> bool {
        self.held.is_empty()
    }
}

/// The RTL's stream key: {connection, stream[STREAM_BITS-1:0]}.
pub fn stream_key(conn: ConnId, stream: u16) -> u64 {
    (conn.0 as u64) << STREAM_BITS | stream as u64
}

/// The RTL's path key: {connection, path[PATH_BITS-1:0]}.
pub fn path_key(conn: ConnId, path: u8) -> u64 {
    (conn.0 as u64) << PATH_BITS | path as u64
}

/// The connection of a stream key.
pub fn stream_key_conn(key: u64) -> u64 {
    key >> STREAM_BITS
}

/// The connection of a path key.
pub fn path_key_conn(key: u64) -> u64 {
    key >> PATH_BITS
}

/// A MAC address as the RTL's 48-bit port, byte 0 highest.
pub fn mac_word(m: [u8; 6]) -> u64 {
    u64::from_be_bytes([0, 0, m[0], m[1], m[2], m[3], m[4], m[5]])
}

/// An IPv4 address as the RTL's 32-bit port, byte 0 highest.
pub fn ip_word(ip: [u8; 4]) -> u64 {
    u32::from_be_bytes(ip) as u64
}

/// Up to 8 bytes as one 64-bit stream beat: (data, keep), byte 0 in lane 0.
pub fn beat(bytes: &[u8]) -> (u64, u64) {
    let data = bytes.iter().enumerate().fold(0u64, |a, (i, b)| a | (*b as u64) << (8 * i));
    (data, (1u64 << bytes.len()) - 1)
}

/// The bytes of the lanes `keep` marks in a 64-bit beat, appended to `out`.
pub fn unbeat(data: u64, keep: u64, out: &mut Vec<u8>) {
    for lane in 0..8 {
        if keep >> lane & 1 == 1 {
            out.push((data >> (8 * lane)) as u8);
        }
    }
}

/// 32-bit words, least significant first, as a bitmap's little-endian bytes.
pub fn words_to_bytes(w: &[u32]) -> SackBitmap {
    let mut b = [0u8; SACK_BYTES];
    for (i, x) in w.iter().enumerate() {
        b[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    b
}

/// A bitmap's little-endian bytes as 32-bit words, least significant first.
pub fn bytes_to_words(b: &SackBitmap) -> Vec<u32> {
    b.chunks(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect()
}

/// The opcode a work request is sent with: `tx_path`'s `wr_op`.
pub fn wr_opcode(wr: &WorkRequest) -> Opcode {
    match wr {
        WorkRequest::Write { imm: Some(_), .. } => Opcode::WriteImm,
        WorkRequest::Write { imm: None, .. } => Opcode::Write,
        WorkRequest::Send { .. } => Opcode::Send,
    }
}

/// A receive completion's kind as `rx_path`'s `m_cpl_kind` reports it.
pub fn rx_cpl_kind(kind: CompletionKind) -> u8 {
    match kind {
        CompletionKind::Recv => RX_CPL_RECV,
        CompletionKind::WriteImm => RX_CPL_WRITE_IMM,
        CompletionKind::SendDone => panic!("a receiver reports no send completion"),
    }
}

/// Items in flight on a channel, each with its delivery time and a random
/// tie-break among equal times.
#[derive(Debug)]
pub struct Channel<T> {
    q: Vec<(Time, u64, T)>,
}

impl<T> Default for Channel<T> {
    fn default() -> Self {
        Channel { q: Vec::new() }
    }
}

impl<T> Channel<T> {
    pub fn push(&mut self, at: Time, tie: u64, item: T) {
        self.q.push((at, tie, item));
    }

    /// Order by delivery time, equal times by tie-break.
    pub fn sort(&mut self) {
        self.q.sort_by_key(|(t, r, _)| (*t, *r));
    }

    /// The first item, if it is due: in the order of the last [`sort`]
    /// (items pushed since come after the sorted ones).
    ///
    /// [`sort`]: Channel::sort
    pub fn pop_due(&mut self, now: Time) -> Option<T> {
        if self.q.first().is_some_and(|(t, _, _)| *t <= now) {
            Some(self.q.remove(0).2)
        } else {
            None
        }
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

/// The first step where the RTL and the model decided differently.
#[derive(Debug, Clone)]
pub struct Divergence {
    pub step: u64,
    pub cycle: u64,
    pub what: String,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "step {} (RTL cycle {}): {}", self.step, self.cycle, self.what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_split_back_into_their_connection() {
        let c = ConnId(45);
        assert_eq!(path_key_conn(path_key(c, 15)), 45);
        assert_eq!(stream_key_conn(stream_key(c, 7)), 45);
        assert_eq!(path_key(ConnId(1), 2), 1 << PATH_BITS | 2);
    }

    #[test]
    fn beats_pack_and_unpack_lane_0_first() {
        let (d, k) = beat(&[1, 2, 3]);
        assert_eq!((d, k), (0x03_02_01, 0b111));
        let mut out = Vec::new();
        unbeat(d, k, &mut out);
        assert_eq!(out, [1, 2, 3]);
        let b: SackBitmap = std::array::from_fn(|i| i as u8);
        assert_eq!(words_to_bytes(&bytes_to_words(&b)), b);
    }
}
