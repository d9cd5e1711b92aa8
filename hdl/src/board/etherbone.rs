//! `etherbone`: LiteX's Etherbone over UDP/IPv4 on the board's Ethernet
//! port, a second host bridge beside UARTBone (the Colorlight 5A-75B has no
//! USB UART), and the ARP answers that make the board reachable.
//! The format and the addresses are `ferroce_proto::board::etherbone`'s.
//!
//! Receive: the block watches the MAC's receive stream beside the frame
//! store (it never holds it back). It keeps the first five beats of each
//! frame and writes the UDP payload, realigned to 64-bit words, into a
//! 2-KiB request RAM as it passes, used as a ring: a frame's payload goes
//! after the last request taken. At a frame's last beat it takes:
//! * an Etherbone request: to the board's MAC, IPv4 without options and
//!   unfragmented, UDP to [`PORT`](ferroce_proto::board::etherbone::PORT)
//!   at the board's IP, a payload of 8 to 2048 bytes in whole words, all
//!   of it in the frame, no MAC error;
//! * an ARP request for the board's IP (to it or broadcast).
//!
//! Two at a time: while one request (or ARP request) is served, the next
//! is received and waits, if its frame's words fit in the ring beside the
//! one served (writes are not answered, so LiteX's client sends a read right
//! behind a write without waiting). Requests for the board that arrive
//! while one waits, or that do not fit, are counted in `dropped` and not
//! served (the host's client retries). The IPv4 header checksum is not
//! checked (the MAC's FCS covers the frame).
//!
//! Serving: the request's words are read back three cycles each (the
//! RAM's output is registered before it is decoded); each record's writes
//! and reads go to the bus one at a time (`bus_*`, as
//! UARTBone's: word addresses, held until `bus_ready`); the answer (the
//! packet header, and per record with reads its header, `base_ret` and the
//! words read) is written to a 2-KiB answer RAM of its own (the receive
//! side writes the request RAM meanwhile). A malformed packet (bad
//! magic, version or sizes; a record longer than the packet) is dropped
//! where it is found, counted, and not answered; records before it have
//! been done.
//!
//! Send: the answer frame (Ethernet, IPv4 with its checksum, UDP from
//! `PORT` to the request's source port with checksum 0, the answer) or the
//! ARP reply goes out on `m_*` (64-bit AXI-Stream with `tkeep` and
//! `tlast`), a beat every two cycles at best; frames shorter than 60
//! bytes are padded by the MAC.
//!
//! Ports (`clock`; `reset` synchronous, active high): `mac`, `ip` (the
//! board's addresses in wire order: the first byte in bits 7:0); `rx_*`
//! (the watched stream: `tdata`, `tkeep`, `tvalid`, `tlast`, `tuser` bad
//! frame); `m_*`; `bus_*`; `dropped` (requests not served, wrapping).

use rust_hdl::prelude::*;

use crate::blocks::{HdlDefault, HdlStruct};

const X_BITS: usize = 4;
const X_IDLE: usize = 0;
const X_FETCH: usize = 1;
const X_USE: usize = 2;
const X_BUS: usize = 3;
const X_PUSH: usize = 4;
const X_END: usize = 5;
const X_LOAD: usize = 6;
const X_LAND: usize = 7;
const X_OUT: usize = 8;
/// The request word read in `X_FETCH` is registered (`rd_q`) before
/// `X_USE` decodes it: the block RAM's output is slow (5.8 ns on the
/// LFE5U-25F) and the decoding long.
const X_WAIT: usize = 9;

const P_BITS: usize = 3;
const P_HDR0: usize = 0;
const P_HDR1: usize = 1;
const P_REC: usize = 2;
const P_WBASE: usize = 3;
const P_WDATA: usize = 4;
const P_RBASE: usize = 5;
const P_RADDR: usize = 6;

/// Payload words are 64-bit RAM words: 256 of them for the request, as
/// many for the answer.
const RAM_BITS: usize = 8;

/// A payload word from two beats: bytes 2-7 of one, 0-1 of the next.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Realign {
    pub lo: Bits<48>,
    pub hi: Bits<16>,
}

/// An output beat from two payload-aligned words: bytes 6-7 of one, 0-5
/// of the next.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct OutBeat {
    pub lo: Bits<16>,
    pub hi: Bits<48>,
}

/// Four bytes in the other order (wire order to a big-endian number and
/// back).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Swap32 {
    pub b0: Bits<8>,
    pub b1: Bits<8>,
    pub b2: Bits<8>,
    pub b3: Bits<8>,
}

/// Two 32-bit halves of a RAM word.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Halves {
    pub lo: Bits<32>,
    pub hi: Bits<32>,
}

/// Two 16-bit halves.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Halves16 {
    pub lo: Bits<16>,
    pub hi: Bits<16>,
}

/// Two bytes.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Bytes2 {
    pub lo: Bits<8>,
    pub hi: Bits<8>,
}

/// A MAC address from 2 + 4 bytes.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Mac2x4 {
    pub lo: Bits<16>,
    pub hi: Bits<32>,
}

/// A record header word of an answer: `rcount` 0, `wcount`, byte enables,
/// flags 0 (as a big-endian number: `rcount` in bits 7:0).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct AnswerRecord {
    pub rcount: Bits<8>,
    pub wcount: Bits<8>,
    pub be: Bits<8>,
    pub flags: Bits<8>,
}

/// A byte count zero-extended to 10 bits.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Ext8 {
    pub lo: Bits<8>,
    pub hi: Bits<2>,
}

/// A 16-bit number zero-extended to 20 bits.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Ext16 {
    pub lo: Bits<16>,
    pub hi: Bits<4>,
}

/// A 4-bit number zero-extended to 20 bits.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Ext4 {
    pub lo: Bits<4>,
    pub hi: Bits<16>,
}

/// A word count as bytes (times 4), 16 bits.
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Times4 {
    pub zero: Bits<2>,
    pub n: Bits<10>,
    pub hi: Bits<4>,
}

/// The answer's first 42 bytes after 6 bytes of padding: six 64-bit words
/// aligned as the payload (which starts at frame byte 42). Fields are named
/// by their first byte in the frame; two-byte fields are in wire order
/// (the first byte in bits 7:0).
#[derive(Copy, Clone, Debug, PartialEq, Default, HdlStruct)]
pub struct Head {
    pub pad: Bits<48>,
    pub dst: Bits<48>,
    pub src: Bits<48>,
    pub b12: Bits<16>,
    pub b14: Bits<16>,
    pub b16: Bits<16>,
    pub b18: Bits<16>,
    pub b20: Bits<16>,
    pub b22: Bits<16>,
    pub b24: Bits<16>,
    pub b26: Bits<32>,
    pub b30: Bits<32>,
    pub b34: Bits<16>,
    pub b36: Bits<16>,
    pub b38: Bits<16>,
    pub b40: Bits<16>,
}

/// The block.
#[allow(non_snake_case)] // state constants named as the `match` labels
#[derive(LogicBlock, HdlDefault)]
pub struct Etherbone {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub mac: Signal<In, Bits<48>>,
    pub ip: Signal<In, Bits<32>>,
    pub rx_tdata: Signal<In, Bits<64>>,
    pub rx_tkeep: Signal<In, Bits<8>>,
    pub rx_tvalid: Signal<In, bool>,
    pub rx_tlast: Signal<In, bool>,
    pub rx_tuser: Signal<In, bool>,
    pub m_tdata: Signal<Out, Bits<64>>,
    pub m_tkeep: Signal<Out, Bits<8>>,
    pub m_tvalid: Signal<Out, bool>,
    pub m_tready: Signal<In, bool>,
    pub m_tlast: Signal<Out, bool>,
    pub bus_valid: Signal<Out, bool>,
    pub bus_we: Signal<Out, bool>,
    pub bus_addr: Signal<Out, Bits<32>>,
    pub bus_wdata: Signal<Out, Bits<32>>,
    pub bus_ready: Signal<In, bool>,
    pub bus_rdata: Signal<In, Bits<32>>,
    pub dropped: Signal<Out, Bits<32>>,

    /// The request ring: written by the receive side, read while serving.
    req_ram: RAM<Bits<64>, RAM_BITS>,
    /// The answer: written while serving, read while sending. (One block
    /// RAM of 512 words for both took two DP16KD where these take four,
    /// but its one write port could not take a request arriving while an
    /// answer is written.)
    ans_ram: RAM<Bits<64>, RAM_BITS>,
    /// The request RAM's output, registered.
    rd_q: DFF<Bits<64>>,
    req_wa: Signal<Local, Bits<RAM_BITS>>,
    req_wd: Signal<Local, Bits<64>>,
    req_we: Signal<Local, bool>,
    req_ra: Signal<Local, Bits<RAM_BITS>>,
    ans_wa: Signal<Local, Bits<RAM_BITS>>,
    ans_wd: Signal<Local, Bits<64>>,
    ans_we: Signal<Local, bool>,
    ans_ra: Signal<Local, Bits<RAM_BITS>>,

    // The ring.
    /// Where the frame being received writes its payload (the end of the
    /// last request taken), and where the served request starts.
    w_base: DFF<Bits<RAM_BITS>>,
    r_base: DFF<Bits<RAM_BITS>>,
    /// RAM words the frame being received may write beside the request
    /// served (all of the ring once that request's words are read, and
    /// while ARP is answered).
    room: DFF<Bits<12>>,
    /// The frame's last beat has more than two bytes: its bytes 2-7 are a
    /// RAM word of their own (`tail`), and the RAM words the frame took.
    has_tail: Signal<Local, bool>,
    used: Signal<Local, Bits<12>>,
    /// A payload beat of the frame being received, and whether it cannot be
    /// written (a request waits, or the ring is full there).
    pay_beat: Signal<Local, bool>,
    blocked: Signal<Local, bool>,
    /// A payload word of this frame was not written.
    over: DFF<bool>,
    over_now: Signal<Local, bool>,
    /// The request (or ARP request) taken and waiting to be served.
    nx_valid: DFF<bool>,
    nx_arp: DFF<bool>,
    nx_mac: DFF<Bits<48>>,
    nx_ip: DFF<Bits<32>>,
    nx_port: DFF<Bits<16>>,
    nx_nwords: DFF<Bits<10>>,
    nx_base: DFF<Bits<RAM_BITS>>,
    nx_len: DFF<Bits<12>>,

    // Receive.
    /// Beat of the frame being received (saturating).
    rbeat: DFF<Bits<12>>,
    h0: DFF<Bits<64>>,
    h1: DFF<Bits<64>>,
    h2: DFF<Bits<64>>,
    h3: DFF<Bits<64>>,
    h4: DFF<Bits<64>>,
    /// Bytes 40-41.
    b40: DFF<Bits<16>>,
    prev: DFF<Bits<64>>,
    flush: DFF<bool>,
    flush_at: DFF<Bits<RAM_BITS>>,
    drops: DFF<Bits<32>>,

    // Serving.
    arp: DFF<bool>,
    x: DFF<Bits<X_BITS>>,
    phase: DFF<Bits<P_BITS>>,
    peer_mac: DFF<Bits<48>>,
    peer_ip: DFF<Bits<32>>,
    peer_port: DFF<Bits<16>>,
    /// Request words, and the next to read.
    nwords: DFF<Bits<10>>,
    j: DFF<Bits<10>>,
    word: DFF<Bits<32>>,
    addr: DFF<Bits<32>>,
    wcnt: DFF<Bits<8>>,
    rcnt: DFF<Bits<8>>,
    wff: DFF<bool>,
    be: DFF<Bits<8>>,
    probe: DFF<bool>,
    has_rec: DFF<bool>,
    /// Answer words so far, the RAM word being filled, its first half.
    ans_n: DFF<Bits<10>>,
    ans_at: DFF<Bits<RAM_BITS>>,
    ans_lo: DFF<Bits<32>>,
    ans_odd: DFF<bool>,
    /// Sending: the payload-aligned word index (0-5 the head), the two
    /// words of the beat.
    oq: DFF<Bits<10>>,
    sp: DFF<Bits<64>>,
    sn: DFF<Bits<64>>,

    beat: Signal<Local, bool>,
    rbeat_m6: Signal<Local, Bits<12>>,
    rbeat_m5: Signal<Local, Bits<12>>,
    plen: Signal<Local, Bits<12>>,
    q_m6: Signal<Local, Bits<10>>,
    flen_m1: Signal<Local, Bits<16>>,
    in_head: Signal<Local, bool>,
    last_bytes: Signal<Local, Bits<12>>,
    frame_bytes: Signal<Local, Bits<12>>,
    realign: Signal<Local, Realign>,
    tail: Signal<Local, Realign>,
    realign_bits: Signal<Local, Bits<64>>,
    tail_bits: Signal<Local, Bits<64>>,
    src_mac: Signal<Local, Mac2x4>,
    src_mac_bits: Signal<Local, Bits<48>>,
    dst_ip: Signal<Local, Halves16>,
    dst_ip_bits: Signal<Local, Bits<32>>,
    arp_mac: Signal<Local, Mac2x4>,
    arp_mac_bits: Signal<Local, Bits<48>>,
    arp_target: Signal<Local, Halves16>,
    arp_target_bits: Signal<Local, Bits<32>>,
    ulen_parts: Signal<Local, Bytes2>,
    ulen16: Signal<Local, Bits<16>>,
    ulen: Signal<Local, Bits<12>>,
    eb_for_us: Signal<Local, bool>,
    eb_ok: Signal<Local, bool>,
    arp_ok: Signal<Local, bool>,
    drop_rx: Signal<Local, bool>,
    drop_x: Signal<Local, bool>,

    wire_word: Signal<Local, Bits<32>>,
    wsw: Signal<Local, Swap32>,
    w: Signal<Local, Bits<32>>,
    jn: Signal<Local, Bits<10>>,
    at_end: Signal<Local, bool>,
    wc10: Signal<Local, Ext8>,
    rc10: Signal<Local, Ext8>,
    wc10_bits: Signal<Local, Bits<10>>,
    rc10_bits: Signal<Local, Bits<10>>,
    need_w: Signal<Local, Bits<10>>,
    need: Signal<Local, Bits<10>>,
    rec_w: Signal<Local, AnswerRecord>,
    rec_r: Signal<Local, AnswerRecord>,
    rec_w_bits: Signal<Local, Bits<32>>,
    rec_r_bits: Signal<Local, Bits<32>>,
    push: Signal<Local, bool>,
    push_v: Signal<Local, Bits<32>>,
    psw: Signal<Local, Swap32>,
    push_wire: Signal<Local, Bits<32>>,
    pair: Signal<Local, Halves>,
    pair_bits: Signal<Local, Bits<64>>,

    ans_bytes: Signal<Local, Times4>,
    pay: Signal<Local, Bits<16>>,
    udp_len: Signal<Local, Bits<16>>,
    ip_len: Signal<Local, Bits<16>>,
    flen: Signal<Local, Bits<16>>,
    last_q16: Signal<Local, Bits<16>>,
    last_q: Signal<Local, Bits<10>>,
    /// Bits no logic needs (the lint's `unused` pattern).
    unused_bits: Signal<Local, bool>,
    ip_len_w: Signal<Local, Bytes2>,
    udp_len_w: Signal<Local, Bytes2>,
    ip_len_wire: Signal<Local, Bits<16>>,
    udp_len_wire: Signal<Local, Bits<16>>,
    t_len: Signal<Local, Ext16>,
    t_ip0: Signal<Local, Ext16>,
    t_ip1: Signal<Local, Ext16>,
    t_pip0: Signal<Local, Ext16>,
    t_pip1: Signal<Local, Ext16>,
    t_len20: Signal<Local, Bits<20>>,
    t_ip0_20: Signal<Local, Bits<20>>,
    t_ip1_20: Signal<Local, Bits<20>>,
    t_pip0_20: Signal<Local, Bits<20>>,
    t_pip1_20: Signal<Local, Bits<20>>,
    sum: Signal<Local, Bits<20>>,
    sum_lo: Signal<Local, Ext16>,
    sum_hi: Signal<Local, Ext4>,
    sum_lo20: Signal<Local, Bits<20>>,
    sum_hi20: Signal<Local, Bits<20>>,
    fold1: Signal<Local, Bits<20>>,
    f1_lo: Signal<Local, Ext16>,
    f1_hi: Signal<Local, Ext4>,
    f1_lo20: Signal<Local, Bits<20>>,
    f1_hi20: Signal<Local, Bits<20>>,
    fold2: Signal<Local, Bits<20>>,
    csum_wire: Signal<Local, Bits<16>>,
    arp26: Signal<Local, Halves16>,
    arp30: Signal<Local, Halves16>,
    arp26_bits: Signal<Local, Bits<32>>,
    arp30_bits: Signal<Local, Bits<32>>,
    head: Signal<Local, Head>,
    head_bits: Signal<Local, Bits<384>>,
    head_q: Signal<Local, Bits<64>>,
    out: Signal<Local, OutBeat>,
    out_bits: Signal<Local, Bits<64>>,
    out_last: Signal<Local, bool>,

    #[constant(X_IDLE as u64)]
    X_IDLE: Constant<Bits<X_BITS>>,
    #[constant(X_FETCH as u64)]
    X_FETCH: Constant<Bits<X_BITS>>,
    #[constant(X_USE as u64)]
    X_USE: Constant<Bits<X_BITS>>,
    #[constant(X_BUS as u64)]
    X_BUS: Constant<Bits<X_BITS>>,
    #[constant(X_PUSH as u64)]
    X_PUSH: Constant<Bits<X_BITS>>,
    #[constant(X_END as u64)]
    X_END: Constant<Bits<X_BITS>>,
    #[constant(X_LOAD as u64)]
    X_LOAD: Constant<Bits<X_BITS>>,
    #[constant(X_LAND as u64)]
    X_LAND: Constant<Bits<X_BITS>>,
    #[constant(X_OUT as u64)]
    X_OUT: Constant<Bits<X_BITS>>,
    #[constant(X_WAIT as u64)]
    X_WAIT: Constant<Bits<X_BITS>>,
    #[constant(P_HDR0 as u64)]
    P_HDR0: Constant<Bits<P_BITS>>,
    #[constant(P_HDR1 as u64)]
    P_HDR1: Constant<Bits<P_BITS>>,
    #[constant(P_REC as u64)]
    P_REC: Constant<Bits<P_BITS>>,
    #[constant(P_WBASE as u64)]
    P_WBASE: Constant<Bits<P_BITS>>,
    #[constant(P_WDATA as u64)]
    P_WDATA: Constant<Bits<P_BITS>>,
    #[constant(P_RBASE as u64)]
    P_RBASE: Constant<Bits<P_BITS>>,
    #[constant(P_RADDR as u64)]
    P_RADDR: Constant<Bits<P_BITS>>,

    #[constant(1u64)]
    one12: Constant<Bits<12>>,
    #[constant(0u64)]
    zero12: Constant<Bits<12>>,
    #[constant(2u64)]
    two12: Constant<Bits<12>>,
    #[constant(3u64)]
    three12: Constant<Bits<12>>,
    #[constant(4u64)]
    four12: Constant<Bits<12>>,
    #[constant(5u64)]
    five12: Constant<Bits<12>>,
    #[constant(6u64)]
    six12: Constant<Bits<12>>,
    #[constant(7u64)]
    seven12: Constant<Bits<12>>,
    #[constant(8u64)]
    eight12: Constant<Bits<12>>,
    #[constant(16u64)]
    sixteen12: Constant<Bits<12>>,
    #[constant(34u64)]
    thirty_four12: Constant<Bits<12>>,
    /// The longest UDP datagram taken: 8 + 2048 bytes.
    #[constant(8u64 + ferroce_proto::board::etherbone::MAX_REQUEST as u64)]
    max_ulen12: Constant<Bits<12>>,
    #[constant(0xfffu64)]
    sat12: Constant<Bits<12>>,
    #[constant(1u64 << RAM_BITS)]
    ring12: Constant<Bits<12>>,
    #[constant(0u64)]
    zero2: Constant<Bits<2>>,
    #[constant(0u64)]
    zero4: Constant<Bits<4>>,
    #[constant(0u64)]
    zero6: Constant<Bits<6>>,
    #[constant(0u64)]
    zero8: Constant<Bits<8>>,
    #[constant(1u64)]
    one8: Constant<Bits<8>>,
    #[constant(0u64)]
    zero16: Constant<Bits<16>>,
    #[constant(0u64)]
    zero32: Constant<Bits<32>>,
    #[constant(1u64)]
    one32: Constant<Bits<32>>,
    #[constant(2u64)]
    two32: Constant<Bits<32>>,
    #[constant(4u64)]
    four32: Constant<Bits<32>>,
    #[constant(0u64)]
    zero48: Constant<Bits<48>>,
    #[constant(0u64)]
    zero64: Constant<Bits<64>>,
    #[constant(0xffff_ffff_ffffu64)]
    broadcast: Constant<Bits<48>>,
    #[constant(1u64)]
    one10: Constant<Bits<10>>,
    #[constant(0u64)]
    zero10: Constant<Bits<10>>,
    #[constant(6u64)]
    six10: Constant<Bits<10>>,
    #[constant(1u64)]
    one_at: Constant<Bits<RAM_BITS>>,
    #[constant(0u64)]
    zero_at: Constant<Bits<RAM_BITS>>,
    #[constant(1u64)]
    one16: Constant<Bits<16>>,
    #[constant(3u64)]
    three16: Constant<Bits<16>>,
    #[constant(8u64)]
    eight16: Constant<Bits<16>>,
    #[constant(28u64)]
    twenty_eight16: Constant<Bits<16>>,
    #[constant(42u64)]
    forty_two16: Constant<Bits<16>>,
    // Wire-order values (the first byte in bits 7:0).
    #[constant(0x0008u64)]
    ethertype_ipv4: Constant<Bits<16>>,
    #[constant(0x0608u64)]
    ethertype_arp: Constant<Bits<16>>,
    #[constant(0x45u64)]
    ipv4_no_options: Constant<Bits<8>>,
    #[constant(17u64)]
    udp: Constant<Bits<8>>,
    /// The Etherbone port.
    #[constant(((ferroce_proto::board::etherbone::PORT as u64) >> 8) | ((ferroce_proto::board::etherbone::PORT as u64 & 0xff) << 8))]
    port_wire: Constant<Bits<16>>,
    /// ARP: hardware type 1, protocol IPv4, sizes 6 and 4, request, reply.
    #[constant(0x0100u64)]
    arp_htype: Constant<Bits<16>>,
    #[constant(0x0008u64)]
    arp_ptype: Constant<Bits<16>>,
    #[constant(0x0406u64)]
    arp_sizes: Constant<Bits<16>>,
    #[constant(0x0100u64)]
    arp_request: Constant<Bits<16>>,
    #[constant(0x0200u64)]
    arp_reply: Constant<Bits<16>>,
    /// IPv4: version 4 and 5 header words, TOS 0; flags DF; TTL 64, UDP.
    #[constant(0x0045u64)]
    ip_b14: Constant<Bits<16>>,
    #[constant(0x0040u64)]
    ip_b20: Constant<Bits<16>>,
    #[constant(0x1140u64)]
    ip_b22: Constant<Bits<16>>,
    /// Their sum, the header's fixed words for the checksum (summed in
    /// wire order: the ones' complement sum does not depend on it).
    #[constant(0x0045u64 + 0x0040 + 0x1140)]
    ip_fixed: Constant<Bits<20>>,
    // Etherbone, as big-endian numbers.
    #[constant(0x4e6f_1044u64)]
    eb_head: Constant<Bits<32>>,
    #[constant(0x4e6f_1244u64)]
    eb_probe_head: Constant<Bits<32>>,
    #[constant(0x4e6fu64)]
    magic: Constant<Bits<16>>,
    #[constant(1u64)]
    version: Constant<Bits<4>>,
    #[constant(0x44u64)]
    sizes: Constant<Bits<8>>,
    #[constant(0xffu64)]
    keep8: Constant<Bits<8>>,
    #[constant(0x01u64)]
    keep1: Constant<Bits<8>>,
    #[constant(0x03u64)]
    keep2: Constant<Bits<8>>,
    #[constant(0x07u64)]
    keep3: Constant<Bits<8>>,
    #[constant(0x0fu64)]
    keep4: Constant<Bits<8>>,
    #[constant(0x1fu64)]
    keep5: Constant<Bits<8>>,
    #[constant(0x3fu64)]
    keep6: Constant<Bits<8>>,
    #[constant(0x7fu64)]
    keep7: Constant<Bits<8>>,
}

impl Logic for Etherbone {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rbeat, h0, h1, h2, h3, h4, b40, prev, flush, flush_at, drops, arp, x, phase, peer_mac,
            peer_ip, peer_port, nwords, j, word, addr, wcnt, rcnt, wff, be, probe, has_rec, ans_n, ans_at, ans_lo,
            ans_odd, oq, sp, sn, rd_q, w_base, r_base, room, over, nx_valid, nx_arp, nx_mac, nx_ip, nx_port, nx_nwords,
            nx_base, nx_len
        );
        self.req_ram.read_clock.next = self.clock.val();
        self.req_ram.write_clock.next = self.clock.val();
        self.ans_ram.read_clock.next = self.clock.val();
        self.ans_ram.write_clock.next = self.clock.val();

        // ---- Receive: the head, and the payload into the request RAM. ----
        self.beat.next = self.rx_tvalid.val();
        self.rbeat_m6.next = self.rbeat.q.val() - self.six12.val();
        self.rbeat_m5.next = self.rbeat.q.val() - self.five12.val();
        self.q_m6.next = self.oq.q.val() - self.six10.val();
        self.in_head.next = self.rbeat.q.val() < self.five12.val();
        if self.beat.val() {
            self.prev.d.next = self.rx_tdata.val();
            if self.rx_tlast.val() {
                self.rbeat.d.next = self.zero12.val();
            } else if self.rbeat.q.val() != self.sat12.val() {
                self.rbeat.d.next = self.rbeat.q.val() + self.one12.val();
            }
            if self.in_head.val() {
                self.h0.d.next = self.h1.q.val();
                self.h1.d.next = self.h2.q.val();
                self.h2.d.next = self.h3.q.val();
                self.h3.d.next = self.h4.q.val();
                self.h4.d.next = self.rx_tdata.val();
            }
            if self.rbeat.q.val() == self.five12.val() {
                self.b40.d.next = self.rx_tdata.val().get_bits::<16>(0);
            }
        }
        self.realign.next.lo = self.prev.q.val().get_bits::<48>(16);
        self.realign.next.hi = self.rx_tdata.val().get_bits::<16>(0);
        self.realign_bits.next = self.realign.val().into();
        self.tail.next.lo = self.prev.q.val().get_bits::<48>(16);
        self.tail.next.hi = self.zero16.val();
        self.tail_bits.next = self.tail.val().into();
        // The frame's length at its last beat (tkeep is contiguous).
        self.last_bytes.next = self.eight12.val();
        if !self.rx_tkeep.val().get_bit(7) {
            self.last_bytes.next = self.seven12.val();
        }
        if !self.rx_tkeep.val().get_bit(6) {
            self.last_bytes.next = self.six12.val();
        }
        if !self.rx_tkeep.val().get_bit(5) {
            self.last_bytes.next = self.five12.val();
        }
        if !self.rx_tkeep.val().get_bit(4) {
            self.last_bytes.next = self.four12.val();
        }
        if !self.rx_tkeep.val().get_bit(3) {
            self.last_bytes.next = self.three12.val();
        }
        if !self.rx_tkeep.val().get_bit(2) {
            self.last_bytes.next = self.two12.val();
        }
        if !self.rx_tkeep.val().get_bit(1) {
            self.last_bytes.next = self.one12.val();
        }
        self.frame_bytes.next = (self.rbeat.q.val() << self.three12.val()) + self.last_bytes.val();

        // Fields of the held head (frame byte n is in beat n / 8, wire order).
        self.src_mac.next.lo = self.h0.q.val().get_bits::<16>(48);
        self.src_mac.next.hi = self.h1.q.val().get_bits::<32>(0);
        self.src_mac_bits.next = self.src_mac.val().into();
        self.dst_ip.next.lo = self.h3.q.val().get_bits::<16>(48);
        self.dst_ip.next.hi = self.h4.q.val().get_bits::<16>(0);
        self.dst_ip_bits.next = self.dst_ip.val().into();
        self.ulen_parts.next.lo = self.h4.q.val().get_bits::<8>(56);
        self.ulen_parts.next.hi = self.h4.q.val().get_bits::<8>(48);
        self.ulen16.next = self.ulen_parts.val().into();
        self.ulen.next = self.ulen16.val().get_bits::<12>(0);
        self.plen.next = self.ulen.val() - self.eight12.val();
        self.has_tail.next = self.rx_tkeep.val().get_bit(2);
        self.used.next = self.rbeat_m5.val();
        if self.has_tail.val() {
            self.used.next = self.rbeat_m5.val() + self.one12.val();
        }

        // The payload beat goes into the ring after the last request taken,
        // unless a request waits or the one served is there.
        self.pay_beat.next = self.beat.val() & (self.rbeat.q.val() >= self.six12.val());
        self.blocked.next = self.nx_valid.q.val() | (self.rbeat_m6.val() >= self.room.q.val());
        self.req_wa.next = self.w_base.q.val() + self.rbeat_m6.val().get_bits::<RAM_BITS>(0);
        self.req_wd.next = self.realign_bits.val();
        self.req_we.next = self.pay_beat.val() & !self.blocked.val();
        self.over_now.next = self.over.q.val() | (self.pay_beat.val() & self.blocked.val());
        self.over.d.next = self.over_now.val();
        if self.beat.val() & self.rx_tlast.val() {
            self.over.d.next = false;
        }
        self.flush.d.next = false;
        if self.flush.q.val() {
            // The payload's last word: bytes 2-7 of the frame's last beat.
            self.req_wa.next = self.flush_at.q.val();
            self.req_wd.next = self.tail_bits.val();
            self.req_we.next = true;
        }
        self.eb_for_us.next = (self.rbeat.q.val() >= self.five12.val())
            & (self.h0.q.val().get_bits::<48>(0) == self.mac.val())
            & (self.h1.q.val().get_bits::<16>(32) == self.ethertype_ipv4.val())
            & (self.h1.q.val().get_bits::<8>(48) == self.ipv4_no_options.val())
            & (self.h2.q.val().get_bits::<6>(32) == self.zero6.val())
            & (self.h2.q.val().get_bits::<8>(40) == self.zero8.val())
            & (self.h2.q.val().get_bits::<8>(56) == self.udp.val())
            & (self.dst_ip_bits.val() == self.ip.val())
            & (self.h4.q.val().get_bits::<16>(32) == self.port_wire.val());
        self.eb_ok.next = self.eb_for_us.val()
            & !self.rx_tuser.val()
            & (self.ulen16.val().get_bits::<4>(12) == self.zero4.val())
            & (self.ulen.val() >= self.sixteen12.val())
            & (self.ulen.val() <= self.max_ulen12.val())
            & (self.ulen.val().get_bits::<2>(0) == self.zero2.val())
            & (self.frame_bytes.val() >= self.ulen.val() + self.thirty_four12.val());
        self.arp_mac.next.lo = self.h2.q.val().get_bits::<16>(48);
        self.arp_mac.next.hi = self.h3.q.val().get_bits::<32>(0);
        self.arp_mac_bits.next = self.arp_mac.val().into();
        self.arp_target.next.lo = self.h4.q.val().get_bits::<16>(48);
        self.arp_target.next.hi = self.b40.q.val();
        self.arp_target_bits.next = self.arp_target.val().into();
        self.arp_ok.next = (self.rbeat.q.val() >= self.seven12.val())
            & !self.rx_tuser.val()
            & ((self.h0.q.val().get_bits::<48>(0) == self.mac.val())
                | (self.h0.q.val().get_bits::<48>(0) == self.broadcast.val()))
            & (self.h1.q.val().get_bits::<16>(32) == self.ethertype_arp.val())
            & (self.h1.q.val().get_bits::<16>(48) == self.arp_htype.val())
            & (self.h2.q.val().get_bits::<16>(0) == self.arp_ptype.val())
            & (self.h2.q.val().get_bits::<16>(16) == self.arp_sizes.val())
            & (self.h2.q.val().get_bits::<16>(32) == self.arp_request.val())
            & (self.arp_target_bits.val() == self.ip.val());

        self.drop_rx.next = false;
        if self.beat.val() & self.rx_tlast.val() {
            if self.nx_valid.q.val() {
                self.drop_rx.next = self.eb_for_us.val();
            } else if self.eb_ok.val()
                & !self.over_now.val()
                & (!self.has_tail.val() | (self.rbeat_m5.val() < self.room.q.val()))
            {
                self.nx_valid.d.next = true;
                self.nx_arp.d.next = false;
                self.nx_mac.d.next = self.src_mac_bits.val();
                self.nx_ip.d.next = self.h3.q.val().get_bits::<32>(16);
                self.nx_port.d.next = self.h4.q.val().get_bits::<16>(16);
                self.nx_nwords.d.next = self.plen.val().get_bits::<10>(2);
                self.nx_base.d.next = self.w_base.q.val();
                self.nx_len.d.next = self.used.val();
                self.w_base.d.next = self.w_base.q.val() + self.used.val().get_bits::<RAM_BITS>(0);
                // The payload's last word, if the last beat ends in it.
                self.flush.d.next = self.has_tail.val();
                self.flush_at.d.next = self.w_base.q.val() + self.rbeat_m5.val().get_bits::<RAM_BITS>(0);
            } else if self.arp_ok.val() {
                self.nx_valid.d.next = true;
                self.nx_arp.d.next = true;
                self.nx_mac.d.next = self.arp_mac_bits.val();
                self.nx_ip.d.next = self.h3.q.val().get_bits::<32>(32);
                self.nx_len.d.next = self.zero12.val();
            } else {
                self.drop_rx.next = self.eb_for_us.val();
            }
        }

        // ---- Serving: the request's words, the bus, the answer. ----
        self.req_ra.next = self.r_base.q.val() + self.j.q.val().get_bits::<RAM_BITS>(1);
        self.rd_q.d.next = self.req_ram.read_data.val();
        self.wire_word.next = self.rd_q.q.val().get_bits::<32>(0);
        if self.j.q.val().get_bit(0) {
            self.wire_word.next = self.rd_q.q.val().get_bits::<32>(32);
        }
        self.wsw.next.b0 = self.wire_word.val().get_bits::<8>(24);
        self.wsw.next.b1 = self.wire_word.val().get_bits::<8>(16);
        self.wsw.next.b2 = self.wire_word.val().get_bits::<8>(8);
        self.wsw.next.b3 = self.wire_word.val().get_bits::<8>(0);
        self.w.next = self.wsw.val().into();
        self.jn.next = self.j.q.val() + self.one10.val();
        self.at_end.next = self.jn.val() == self.nwords.q.val();
        // A record's words: its header, then base and words for each count.
        self.wc10.next.lo = self.w.val().get_bits::<8>(8);
        self.wc10.next.hi = self.zero2.val();
        self.wc10_bits.next = self.wc10.val().into();
        self.rc10.next.lo = self.w.val().get_bits::<8>(0);
        self.rc10.next.hi = self.zero2.val();
        self.rc10_bits.next = self.rc10.val().into();
        self.need_w.next = self.one10.val();
        if self.w.val().get_bits::<8>(8) != self.zero8.val() {
            self.need_w.next = self.wc10_bits.val() + self.one10.val() + self.one10.val();
        }
        self.need.next = self.need_w.val();
        if self.w.val().get_bits::<8>(0) != self.zero8.val() {
            self.need.next = self.need_w.val() + self.rc10_bits.val() + self.one10.val();
        }
        // An answer record's header, from the request's word or registers.
        self.rec_w.next.rcount = self.zero8.val();
        self.rec_w.next.wcount = self.w.val().get_bits::<8>(0);
        self.rec_w.next.be = self.w.val().get_bits::<8>(16);
        self.rec_w.next.flags = self.zero8.val();
        self.rec_w_bits.next = self.rec_w.val().into();
        self.rec_r.next.rcount = self.zero8.val();
        self.rec_r.next.wcount = self.rcnt.q.val();
        self.rec_r.next.be = self.be.q.val();
        self.rec_r.next.flags = self.zero8.val();
        self.rec_r_bits.next = self.rec_r.val().into();

        // ---- The answer frame. ----
        self.ans_bytes.next.zero = self.zero2.val();
        self.ans_bytes.next.n = self.ans_n.q.val();
        self.ans_bytes.next.hi = self.zero4.val();
        self.pay.next = self.ans_bytes.val().into();
        if self.arp.q.val() {
            self.pay.next = self.zero16.val();
        }
        self.udp_len.next = self.pay.val() + self.eight16.val();
        self.ip_len.next = self.pay.val() + self.twenty_eight16.val();
        self.flen.next = self.pay.val() + self.forty_two16.val();
        self.flen_m1.next = self.flen.val() - self.one16.val();
        self.last_q16.next = (self.flen_m1.val() >> self.three16.val()) + self.one16.val();
        self.last_q.next = self.last_q16.val().get_bits::<10>(0);
        self.ip_len_w.next.lo = self.ip_len.val().get_bits::<8>(8);
        self.ip_len_w.next.hi = self.ip_len.val().get_bits::<8>(0);
        self.ip_len_wire.next = self.ip_len_w.val().into();
        self.udp_len_w.next.lo = self.udp_len.val().get_bits::<8>(8);
        self.udp_len_w.next.hi = self.udp_len.val().get_bits::<8>(0);
        self.udp_len_wire.next = self.udp_len_w.val().into();

        // The IPv4 header checksum, summed in wire order.
        self.t_len.next.lo = self.ip_len_wire.val();
        self.t_len.next.hi = self.zero4.val();
        self.t_len20.next = self.t_len.val().into();
        self.t_ip0.next.lo = self.ip.val().get_bits::<16>(0);
        self.t_ip0.next.hi = self.zero4.val();
        self.t_ip0_20.next = self.t_ip0.val().into();
        self.t_ip1.next.lo = self.ip.val().get_bits::<16>(16);
        self.t_ip1.next.hi = self.zero4.val();
        self.t_ip1_20.next = self.t_ip1.val().into();
        self.t_pip0.next.lo = self.peer_ip.q.val().get_bits::<16>(0);
        self.t_pip0.next.hi = self.zero4.val();
        self.t_pip0_20.next = self.t_pip0.val().into();
        self.t_pip1.next.lo = self.peer_ip.q.val().get_bits::<16>(16);
        self.t_pip1.next.hi = self.zero4.val();
        self.t_pip1_20.next = self.t_pip1.val().into();
        self.sum.next = self.ip_fixed.val()
            + self.t_len20.val()
            + self.t_ip0_20.val()
            + self.t_ip1_20.val()
            + self.t_pip0_20.val()
            + self.t_pip1_20.val();
        self.sum_lo.next.lo = self.sum.val().get_bits::<16>(0);
        self.sum_lo.next.hi = self.zero4.val();
        self.sum_lo20.next = self.sum_lo.val().into();
        self.sum_hi.next.lo = self.sum.val().get_bits::<4>(16);
        self.sum_hi.next.hi = self.zero16.val();
        self.sum_hi20.next = self.sum_hi.val().into();
        self.fold1.next = self.sum_lo20.val() + self.sum_hi20.val();
        self.f1_lo.next.lo = self.fold1.val().get_bits::<16>(0);
        self.f1_lo.next.hi = self.zero4.val();
        self.f1_lo20.next = self.f1_lo.val().into();
        self.f1_hi.next.lo = self.fold1.val().get_bits::<4>(16);
        self.f1_hi.next.hi = self.zero16.val();
        self.f1_hi20.next = self.f1_hi.val().into();
        self.fold2.next = self.f1_lo20.val() + self.f1_hi20.val();
        self.csum_wire.next = !self.fold2.val().get_bits::<16>(0);

        self.arp26.next.lo = self.mac.val().get_bits::<16>(32);
        self.arp26.next.hi = self.ip.val().get_bits::<16>(0);
        self.arp26_bits.next = self.arp26.val().into();
        self.arp30.next.lo = self.ip.val().get_bits::<16>(16);
        self.arp30.next.hi = self.peer_mac.q.val().get_bits::<16>(0);
        self.arp30_bits.next = self.arp30.val().into();
        self.head.next.pad = self.zero48.val();
        self.head.next.dst = self.peer_mac.q.val();
        self.head.next.src = self.mac.val();
        if self.arp.q.val() {
            self.head.next.b12 = self.ethertype_arp.val();
            self.head.next.b14 = self.arp_htype.val();
            self.head.next.b16 = self.arp_ptype.val();
            self.head.next.b18 = self.arp_sizes.val();
            self.head.next.b20 = self.arp_reply.val();
            self.head.next.b22 = self.mac.val().get_bits::<16>(0);
            self.head.next.b24 = self.mac.val().get_bits::<16>(16);
            self.head.next.b26 = self.arp26_bits.val();
            self.head.next.b30 = self.arp30_bits.val();
            self.head.next.b34 = self.peer_mac.q.val().get_bits::<16>(16);
            self.head.next.b36 = self.peer_mac.q.val().get_bits::<16>(32);
            self.head.next.b38 = self.peer_ip.q.val().get_bits::<16>(0);
            self.head.next.b40 = self.peer_ip.q.val().get_bits::<16>(16);
        } else {
            self.head.next.b12 = self.ethertype_ipv4.val();
            self.head.next.b14 = self.ip_b14.val();
            self.head.next.b16 = self.ip_len_wire.val();
            self.head.next.b18 = self.zero16.val();
            self.head.next.b20 = self.ip_b20.val();
            self.head.next.b22 = self.ip_b22.val();
            self.head.next.b24 = self.csum_wire.val();
            self.head.next.b26 = self.ip.val();
            self.head.next.b30 = self.peer_ip.q.val();
            self.head.next.b34 = self.port_wire.val();
            self.head.next.b36 = self.peer_port.q.val();
            self.head.next.b38 = self.udp_len_wire.val();
            self.head.next.b40 = self.zero16.val();
        }
        self.head_bits.next = self.head.val().into();
        match self.oq.q.val().index() {
            0 => self.head_q.next = self.head_bits.val().get_bits::<64>(0),
            1 => self.head_q.next = self.head_bits.val().get_bits::<64>(64),
            2 => self.head_q.next = self.head_bits.val().get_bits::<64>(128),
            3 => self.head_q.next = self.head_bits.val().get_bits::<64>(192),
            4 => self.head_q.next = self.head_bits.val().get_bits::<64>(256),
            5 => self.head_q.next = self.head_bits.val().get_bits::<64>(320),
            _ => self.head_q.next = self.zero64.val(),
        }

        self.out_last.next = self.oq.q.val() == self.last_q.val();
        self.unused_bits.next = self.rx_tkeep.val().get_bit(0)
            | self.rbeat_m6.val().get_bits::<4>(8).any()
            | self.rbeat_m5.val().get_bits::<4>(8).any()
            | self.plen.val().get_bits::<2>(0).any()
            | self.q_m6.val().get_bits::<2>(8).any()
            | self.fold2.val().get_bits::<4>(16).any()
            | self.last_q16.val().get_bits::<6>(10).any();

        self.drop_x.next = false;
        self.push.next = false;
        self.push_v.next = self.word.q.val();
        self.bus_valid.next = false;
        self.bus_we.next = self.phase.q.val() == self.P_WDATA.val();
        self.bus_addr.next = self.word.q.val() >> self.two32.val();
        if self.phase.q.val() == self.P_WDATA.val() {
            self.bus_addr.next = self.addr.q.val() >> self.two32.val();
        }
        self.bus_wdata.next = self.word.q.val();
        self.m_tvalid.next = false;

        match self.x.q.val().index() {
            X_IDLE => {
                // The waiting request (or ARP request) is served.
                if self.nx_valid.q.val() {
                    self.nx_valid.d.next = false;
                    self.arp.d.next = self.nx_arp.q.val();
                    self.peer_mac.d.next = self.nx_mac.q.val();
                    self.peer_ip.d.next = self.nx_ip.q.val();
                    self.peer_port.d.next = self.nx_port.q.val();
                    self.nwords.d.next = self.nx_nwords.q.val();
                    self.r_base.d.next = self.nx_base.q.val();
                    self.room.d.next = self.ring12.val() - self.nx_len.q.val();
                    self.phase.d.next = self.P_HDR0.val();
                    self.j.d.next = self.zero10.val();
                    self.probe.d.next = false;
                    self.has_rec.d.next = false;
                    self.ans_n.d.next = self.zero10.val();
                    self.ans_at.d.next = self.zero_at.val();
                    self.ans_odd.d.next = false;
                    self.oq.d.next = self.zero10.val();
                    self.x.d.next = self.X_FETCH.val();
                    if self.nx_arp.q.val() {
                        self.x.d.next = self.X_LOAD.val();
                    }
                }
            }
            X_FETCH => {
                self.x.d.next = self.X_WAIT.val();
            }
            X_WAIT => {
                self.x.d.next = self.X_USE.val();
            }
            X_USE => {
                self.word.d.next = self.w.val();
                self.j.d.next = self.jn.val();
                self.x.d.next = self.X_FETCH.val();
                match self.phase.q.val().index() {
                    P_HDR0 => {
                        if (self.w.val().get_bits::<16>(16) != self.magic.val())
                            | (self.w.val().get_bits::<4>(12) != self.version.val())
                            | (self.w.val().get_bits::<8>(0) != self.sizes.val())
                        {
                            self.drop_x.next = true;
                            self.x.d.next = self.X_IDLE.val();
                            self.room.d.next = self.ring12.val();
                        } else {
                            self.push.next = true;
                            self.push_v.next = self.eb_head.val();
                            if self.w.val().get_bit(8) {
                                self.push_v.next = self.eb_probe_head.val();
                            }
                            self.probe.d.next = self.w.val().get_bit(8);
                            self.phase.d.next = self.P_HDR1.val();
                        }
                    }
                    P_HDR1 => {
                        self.push.next = true;
                        self.push_v.next = self.zero32.val();
                        self.phase.d.next = self.P_REC.val();
                        if self.probe.q.val() | self.at_end.val() {
                            self.x.d.next = self.X_END.val();
                        }
                    }
                    P_REC => {
                        if self.need.val() > self.nwords.q.val() - self.j.q.val() {
                            // A record longer than the packet: stop here.
                            self.drop_x.next = true;
                            self.x.d.next = self.X_END.val();
                        } else {
                            self.wcnt.d.next = self.w.val().get_bits::<8>(8);
                            self.rcnt.d.next = self.w.val().get_bits::<8>(0);
                            self.be.d.next = self.w.val().get_bits::<8>(16);
                            self.wff.d.next = self.w.val().get_bit(30);
                            if self.w.val().get_bits::<8>(8) != self.zero8.val() {
                                self.phase.d.next = self.P_WBASE.val();
                            } else if self.w.val().get_bits::<8>(0) != self.zero8.val() {
                                self.phase.d.next = self.P_RBASE.val();
                                self.push.next = true;
                                self.push_v.next = self.rec_w_bits.val();
                                self.has_rec.d.next = true;
                            } else if self.at_end.val() {
                                self.x.d.next = self.X_END.val();
                            }
                        }
                    }
                    P_WBASE => {
                        self.addr.d.next = self.w.val();
                        self.phase.d.next = self.P_WDATA.val();
                    }
                    P_WDATA => {
                        self.j.d.next = self.j.q.val();
                        self.x.d.next = self.X_BUS.val();
                    }
                    P_RBASE => {
                        // The record's header is pushed; base_ret next.
                        self.j.d.next = self.j.q.val();
                        self.x.d.next = self.X_PUSH.val();
                    }
                    P_RADDR => {
                        self.j.d.next = self.j.q.val();
                        self.x.d.next = self.X_BUS.val();
                    }
                    _ => {}
                }
            }
            X_PUSH => {
                self.push.next = true;
                self.j.d.next = self.jn.val();
                self.phase.d.next = self.P_RADDR.val();
                self.x.d.next = self.X_FETCH.val();
            }
            X_BUS => {
                self.bus_valid.next = true;
                if self.bus_ready.val() {
                    self.j.d.next = self.jn.val();
                    self.x.d.next = self.X_FETCH.val();
                    if self.phase.q.val() == self.P_WDATA.val() {
                        if !self.wff.q.val() {
                            self.addr.d.next = self.addr.q.val() + self.four32.val();
                        }
                        self.wcnt.d.next = self.wcnt.q.val() - self.one8.val();
                        if self.wcnt.q.val() == self.one8.val() {
                            if self.rcnt.q.val() != self.zero8.val() {
                                self.phase.d.next = self.P_RBASE.val();
                                self.push.next = true;
                                self.push_v.next = self.rec_r_bits.val();
                                self.has_rec.d.next = true;
                            } else {
                                self.phase.d.next = self.P_REC.val();
                                if self.at_end.val() {
                                    self.x.d.next = self.X_END.val();
                                }
                            }
                        }
                    } else {
                        self.push.next = true;
                        self.push_v.next = self.bus_rdata.val();
                        self.rcnt.d.next = self.rcnt.q.val() - self.one8.val();
                        if self.rcnt.q.val() == self.one8.val() {
                            self.phase.d.next = self.P_REC.val();
                            if self.at_end.val() {
                                self.x.d.next = self.X_END.val();
                            }
                        }
                    }
                }
            }
            X_END => {
                // The request's words are all read: the ring is free of it.
                self.room.d.next = self.ring12.val();
                self.oq.d.next = self.zero10.val();
                self.x.d.next = self.X_IDLE.val();
                if self.probe.q.val() | self.has_rec.q.val() {
                    self.x.d.next = self.X_LOAD.val();
                }
            }
            X_LOAD => {
                self.x.d.next = self.X_LAND.val();
            }
            X_LAND => {
                self.sn.d.next = self.head_q.val();
                if self.oq.q.val() >= self.six10.val() {
                    self.sn.d.next = self.ans_ram.read_data.val();
                }
                if self.oq.q.val() == self.zero10.val() {
                    self.sp.d.next = self.head_q.val();
                    self.oq.d.next = self.one10.val();
                    self.x.d.next = self.X_LOAD.val();
                } else {
                    self.x.d.next = self.X_OUT.val();
                }
            }
            X_OUT => {
                self.m_tvalid.next = true;
                if self.m_tready.val() {
                    self.sp.d.next = self.sn.q.val();
                    self.oq.d.next = self.oq.q.val() + self.one10.val();
                    self.x.d.next = self.X_LOAD.val();
                    if self.out_last.val() {
                        self.x.d.next = self.X_IDLE.val();
                    }
                }
            }
            _ => {}
        }
        if self.drop_rx.val() & self.drop_x.val() {
            self.drops.d.next = self.drops.q.val() + self.two32.val();
        } else if self.drop_rx.val() | self.drop_x.val() {
            self.drops.d.next = self.drops.q.val() + self.one32.val();
        }

        // The answer RAM: pushed words in pairs; X_END writes an odd last.
        self.psw.next.b0 = self.push_v.val().get_bits::<8>(24);
        self.psw.next.b1 = self.push_v.val().get_bits::<8>(16);
        self.psw.next.b2 = self.push_v.val().get_bits::<8>(8);
        self.psw.next.b3 = self.push_v.val().get_bits::<8>(0);
        self.push_wire.next = self.psw.val().into();
        self.pair.next.lo = self.ans_lo.q.val();
        self.pair.next.hi = self.push_wire.val();
        if self.x.q.val() == self.X_END.val() {
            self.pair.next.hi = self.zero32.val();
        }
        self.pair_bits.next = self.pair.val().into();
        self.ans_wa.next = self.ans_at.q.val();
        self.ans_wd.next = self.pair_bits.val();
        self.ans_we.next = (self.x.q.val() == self.X_END.val()) & self.ans_odd.q.val();
        if self.push.val() {
            self.ans_n.d.next = self.ans_n.q.val() + self.one10.val();
            if self.ans_odd.q.val() {
                self.ans_we.next = true;
                self.ans_at.d.next = self.ans_at.q.val() + self.one_at.val();
                self.ans_odd.d.next = false;
            } else {
                self.ans_lo.d.next = self.push_wire.val();
                self.ans_odd.d.next = true;
            }
        }
        self.ans_ra.next = self.q_m6.val().get_bits::<RAM_BITS>(0);

        // The RAMs' ports.
        self.req_ram.write_address.next = self.req_wa.val();
        self.req_ram.write_data.next = self.req_wd.val();
        self.req_ram.write_enable.next = self.req_we.val();
        self.req_ram.read_address.next = self.req_ra.val();
        self.ans_ram.write_address.next = self.ans_wa.val();
        self.ans_ram.write_data.next = self.ans_wd.val();
        self.ans_ram.write_enable.next = self.ans_we.val();
        self.ans_ram.read_address.next = self.ans_ra.val();

        // Beat q - 1: bytes 6-7 of word q - 1, 0-5 of word q.
        self.out.next.lo = self.sp.q.val().get_bits::<16>(48);
        self.out.next.hi = self.sn.q.val().get_bits::<48>(0);
        self.out_bits.next = self.out.val().into();
        self.m_tdata.next = self.out_bits.val();
        self.m_tlast.next = self.out_last.val();
        self.m_tkeep.next = self.keep8.val();
        if self.out_last.val() {
            match self.flen_m1.val().get_bits::<3>(0).index() {
                0 => self.m_tkeep.next = self.keep1.val(),
                1 => self.m_tkeep.next = self.keep2.val(),
                2 => self.m_tkeep.next = self.keep3.val(),
                3 => self.m_tkeep.next = self.keep4.val(),
                4 => self.m_tkeep.next = self.keep5.val(),
                5 => self.m_tkeep.next = self.keep6.val(),
                6 => self.m_tkeep.next = self.keep7.val(),
                _ => self.m_tkeep.next = self.keep8.val(),
            }
        }
        self.dropped.next = self.drops.q.val();

        if self.reset.val() {
            self.rbeat.d.next = self.zero12.val();
            self.nx_valid.d.next = false;
            self.room.d.next = self.ring12.val();
            self.over.d.next = false;
            self.flush.d.next = false;
            self.x.d.next = self.X_IDLE.val();
            self.drops.d.next = self.zero32.val();
        }
    }
}
