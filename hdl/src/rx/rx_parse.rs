//! `rx_parse`: the receive parser and validator. Takes frames from the MAC
//! (AXI-Stream, 64-bit) and, for each frame, produces one result: whether
//! `ferroce_proto::wire::parse` would accept it, and if not the class of
//! error (the same checks in the same order), with the frame's first 106
//! bytes (every header) and its length.
//!
//! Field offsets and widths are not typed here: the Verilog is generated
//! from the header tables in `ferroce_proto::wire::headers`, and the CRC
//! update equations from the CRC definition in `ferroce_proto::wire::crc`.
//!
//! Ports (`clock`; `reset` synchronous, active high):
//! * `s_axis_*`: frames, byte 0 in `tdata[7:0]`; `tkeep` all ones but on
//!   the last beat, where it is contiguous from lane 0. A frame longer
//!   than `ferroce_proto::wire::MAX_FRAME_LEN` (16383) bytes is a length
//!   error, as the model's parse has it.
//!   `tuser` high on any beat marks the frame bad (the MAC's FCS or PHY
//!   error flag, as Corundum's and verilog-ethernet's MACs set bit 0 of
//!   `tuser` on the last beat): its result is [`ErrorCode::MacError`],
//!   before any other check.
//! * `cfg_port`: the UDP destination port of ferroce.
//! * `m_valid`/`m_ready`: one result per frame, held until taken; with it
//!   `m_good`, `m_error` (see [`ErrorCode`]), `m_len` (frame bytes) and
//!   `m_hdr` (frame bytes 0-105, byte i at bits 8i..8i+7; bytes past the
//!   frame's end are unspecified).
//!
//! Throughput: one beat per cycle, plus one cycle per frame for the checks
//! (`s_axis_tready` is low in the cycle after a frame's last beat, and
//! while a result waits to be taken). Latency: the result is valid two
//! cycles after the last beat.

use std::fmt::Write as _;

use rust_hdl::prelude::*;

use ferroce_proto::wire::headers::{ACK, COMMON, CRC_LEN, DATA, ETH, IPV4, NAK, UDP};
use ferroce_proto::wire::Header;

use crate::layout::L2L4;
use ferroce_proto::Error;

pub use crate::layout::HDR_BYTES;
/// Width of `m_hdr`.
pub const HDR_BITS: usize = HDR_BYTES * 8;

/// `m_error` codes: one per `ferroce_proto::Error` variant the parser returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    None = 0,
    Truncated = 1,
    NotFerroce = 2,
    BadField = 3,
    BadLength = 4,
    BadCrc = 5,
    BadIpChecksum = 6,
    UnknownOpcode = 7,
    /// The MAC flagged the frame (`tuser`): FCS or PHY error.
    MacError = 8,
}

impl ErrorCode {
    /// The code the RTL reports for a parse result of the model.
    pub fn of(r: &Result<ferroce_proto::wire::Frame<'_>, Error>) -> ErrorCode {
        match r {
            Ok(_) => ErrorCode::None,
            Err(Error::Truncated { .. }) => ErrorCode::Truncated,
            Err(Error::NotFerroce { .. }) => ErrorCode::NotFerroce,
            Err(Error::BadField { .. }) => ErrorCode::BadField,
            Err(Error::BadLength { .. }) => ErrorCode::BadLength,
            Err(Error::BadCrc { .. }) => ErrorCode::BadCrc,
            Err(Error::BadIpChecksum) => ErrorCode::BadIpChecksum,
            Err(Error::UnknownOpcode(_)) => ErrorCode::UnknownOpcode,
            Err(other) => panic!("parse does not return {other:?}"),
        }
    }
}

/// The parser.
#[derive(LogicBlock, Default)]
pub struct RxParse {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub s_axis_tdata: Signal<In, Bits<64>>,
    pub s_axis_tkeep: Signal<In, Bits<8>>,
    pub s_axis_tvalid: Signal<In, bool>,
    pub s_axis_tready: Signal<Out, bool>,
    pub s_axis_tlast: Signal<In, bool>,
    pub s_axis_tuser: Signal<In, bool>,
    pub cfg_port: Signal<In, Bits<16>>,
    pub m_valid: Signal<Out, bool>,
    pub m_ready: Signal<In, bool>,
    pub m_good: Signal<Out, bool>,
    pub m_error: Signal<Out, Bits<4>>,
    pub m_len: Signal<Out, Bits<14>>,
    pub m_hdr: Signal<Out, Bits<HDR_BITS>>,
    _sim: Box<SimState>,
}

/// rust-hdl simulation state: the frame so far and the pending result.
#[derive(Default)]
struct SimState {
    frame: Vec<u8>,
    /// A beat of the frame so far had `tuser` set.
    flagged: bool,
    checking: Option<(Vec<u8>, bool)>,
    result: Option<(ErrorCode, Vec<u8>)>,
}

impl Logic for RxParse {
    fn update(&mut self) {
        let st = &mut *self._sim;
        let ready = st.checking.is_none() && (st.result.is_none() || self.m_ready.val());
        if self.clock.pos_edge() {
            if st.result.is_some() && self.m_ready.val() {
                st.result = None;
            }
            if let Some((f, flagged)) = st.checking.take() {
                if st.result.is_none() {
                    let code = if flagged {
                        ErrorCode::MacError
                    } else {
                        ErrorCode::of(&ferroce_proto::wire::parse(&f, self.cfg_port.val().index() as u16))
                    };
                    st.result = Some((code, f));
                } else {
                    st.checking = Some((f, flagged));
                }
            }
            if ready && self.s_axis_tvalid.val() {
                let d = self.s_axis_tdata.val();
                for lane in 0..8 {
                    if self.s_axis_tkeep.val().get_bit(lane) {
                        st.frame.push(d.get_bits::<8>(8 * lane).index() as u8);
                    }
                }
                st.flagged |= self.s_axis_tuser.val();
                if self.s_axis_tlast.val() {
                    st.checking = Some((std::mem::take(&mut st.frame), std::mem::take(&mut st.flagged)));
                }
            }
            if self.reset.val() {
                *st = SimState::default();
            }
        }
        let st = &*self._sim;
        self.s_axis_tready.next = st.checking.is_none() && (st.result.is_none() || self.m_ready.val());
        self.m_valid.next = st.result.is_some();
        let (code, f) = st.result.clone().unwrap_or((ErrorCode::None, Vec::new()));
        self.m_good.next = st.result.is_some() && code == ErrorCode::None;
        self.m_error.next = (code as u64).into();
        self.m_len.next = (f.len() as u64).into();
        let mut h = Bits::<HDR_BITS>::default();
        for (i, b) in f.iter().take(HDR_BYTES).enumerate() {
            h.set_bits::<8>(8 * i, (*b as u64).into());
        }
        self.m_hdr.next = h;
    }

    fn connect(&mut self) {
        self.s_axis_tready.connect();
        self.m_valid.connect();
        self.m_good.connect();
        self.m_error.connect();
        self.m_len.connect();
        self.m_hdr.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog())
    }
}

/// A Verilog expression for field `name` of `h` in the header buffer `hb`.
fn field(h: &Header, name: &str) -> (String, usize) {
    (crate::layout::extract(h, name, "hb"), h.field(name).bits)
}

/// GF(2) form of feeding `n` bytes to the reflected CRC-32 register: for
/// each output bit, which state bits and which data bits it XORs.
pub fn crc_equations(n: usize) -> Vec<(u32, u64)> {
    const POLY: u32 = 0xedb8_8320;
    // bit i of the register as (state mask, data mask)
    let mut c: Vec<(u32, u64)> = (0..32).map(|i| (1u32 << i, 0u64)).collect();
    for k in 0..n {
        for (j, cj) in c.iter_mut().enumerate().take(8) {
            cj.1 ^= 1u64 << (8 * k + j);
        }
        for _ in 0..8 {
            let lsb = c[0];
            for i in 0..31 {
                c[i] = c[i + 1];
            }
            c[31] = (0, 0);
            for (i, ci) in c.iter_mut().enumerate() {
                if POLY >> i & 1 == 1 {
                    ci.0 ^= lsb.0;
                    ci.1 ^= lsb.1;
                }
            }
        }
    }
    c
}

/// Verilog for `crc_next`: the CRC register `crc` after the low `ncrc`
/// bytes (0-8) of `cdata`, from [`crc_equations`]. Shared with `tx_build`.
pub fn crc_update_verilog() -> String {
    let mut s = String::from("reg [31:0] crc_next;\nalways @(*) begin\n  case (ncrc)\n");
    for n in 1..=8 {
        let bits: Vec<String> = crc_equations(n)
            .iter()
            .map(|(sm, dm)| {
                let dmask = if n == 8 { *dm } else { dm & ((1u64 << (8 * n)) - 1) };
                format!("(^(crc & 32'h{sm:08x}) ^ ^(cdata & 64'h{dmask:016x}))")
            })
            .rev()
            .collect();
        let _ = writeln!(s, "    4'd{n}: crc_next = {{{}}};", bits.join(", "));
    }
    s.push_str("    default: crc_next = crc;\n  endcase\nend\n");
    s
}

// The length counter below (14 bits, saturating at 16383) is sized for it.
const _: () = assert!(ferroce_proto::wire::MAX_FRAME_LEN == (1 << 14) - 1);

/// The parser's Verilog body.
pub fn verilog() -> String {
    let mut s = String::new();
    let w = |s: &mut String, line: String| {
        s.push_str(&line);
        s.push('\n');
    };
    let l2l4 = L2L4;
    w(&mut s, "// Generated from ferroce_proto::wire (header tables and CRC): do not edit.".into());
    w(&mut s, format!("reg [{}:0] hb;", HDR_BITS - 1));
    w(&mut s, "reg [13:0] len;\nreg [3:0] beat;\nreg [31:0] crc;\nreg mac_bad;\nreg too_long;\nreg checking;\nreg res_valid;\nreg res_good;\nreg [3:0] res_error;\nreg [13:0] res_len;".into());
    w(&mut s, "wire in_ready = ~checking & (~res_valid | m_ready);".into());
    w(&mut s, "wire take = s_axis_tvalid & in_ready;".into());
    // Bytes in this beat (tkeep contiguous from lane 0).
    w(&mut s, "wire [3:0] nbytes = s_axis_tlast ? ({3'd0, s_axis_tkeep[0]} + {3'd0, s_axis_tkeep[1]} + {3'd0, s_axis_tkeep[2]} + {3'd0, s_axis_tkeep[3]} + {3'd0, s_axis_tkeep[4]} + {3'd0, s_axis_tkeep[5]} + {3'd0, s_axis_tkeep[6]} + {3'd0, s_axis_tkeep[7]}) : 4'd8;".into());
    // CRC coverage: frame bytes from l2l4 on.
    let first_beat = l2l4 / 8;
    let first_lane = l2l4 % 8;
    w(
        &mut s,
        format!(
            "wire [3:0] lo = (beat < 4'd{first_beat}) ? 4'd8 : (beat == 4'd{first_beat}) ? 4'd{first_lane} : 4'd0;"
        ),
    );
    w(&mut s, "wire [3:0] ncrc = (nbytes > lo) ? nbytes - lo : 4'd0;".into());
    w(&mut s, "wire [63:0] cdata = s_axis_tdata >> {lo[2:0], 3'b000};".into());
    s.push_str(&crc_update_verilog());
    w(
        &mut s,
        "always @(posedge clock) begin\n  if (res_valid & m_ready) res_valid <= 1'b0;\n  if (take) begin\n    \
         if (beat < 4'd13) hb[{beat, 6'd0} +: 64] <= s_axis_tdata;\n    \
         if (beat == 4'd13) hb[{}:832] <= s_axis_tdata[{}:0];\n    \
         if (beat != 4'd15) beat <= beat + 4'd1;\n    \
         len <= (len > 14'd16375) ? 14'd16383 : len + {10'd0, nbytes};\n    \
         crc <= crc_next;\n    \
         if (s_axis_tuser) mac_bad <= 1'b1;\n    \
         if ({1'b0, len} + {11'd0, nbytes} > 15'd16383) too_long <= 1'b1;\n    \
         if (s_axis_tlast) checking <= 1'b1;\n  end"
            .replace("{}:832", &format!("{}:832", HDR_BITS - 1))
            .replace("[{}:0]", &format!("[{}:0]", HDR_BITS - 833)),
    );
    w(
        &mut s,
        "  if (checking & (~res_valid | m_ready)) begin\n    checking <= 1'b0;\n    res_valid <= 1'b1;\n    \
         res_good <= (error == 4'd0);\n    res_error <= error;\n    res_len <= len;\n    \
         beat <= 4'd0;\n    len <= 14'd0;\n    crc <= 32'hffffffff;\n    mac_bad <= 1'b0;\n    too_long <= 1'b0;\n  end"
            .into(),
    );
    w(
        &mut s,
        "  if (reset) begin\n    beat <= 4'd0;\n    len <= 14'd0;\n    crc <= 32'hffffffff;\n    mac_bad <= 1'b0;\n    too_long <= 1'b0;\n    checking <= 1'b0;\n    \
         res_valid <= 1'b0;\n    res_good <= 1'b0;\n    res_error <= 4'd0;\n    res_len <= 14'd0;\n  end\nend"
            .into(),
    );
    // Fields, from the tables.
    let mut declared = String::new();
    let mut fld = |h: &Header, name: &str| -> String {
        let (expr, bits) = field(h, name);
        let wname = format!("f_{}_{}", h.name.split_whitespace().next().unwrap_or("h").to_lowercase(), name);
        let _ = writeln!(declared, "wire [{}:0] {wname} = {expr};", bits - 1);
        wname
    };
    let ethertype = fld(&ETH, "ethertype");
    let ip_version = fld(&IPV4, "version");
    let ip_ihl = fld(&IPV4, "ihl");
    let ip_flags = fld(&IPV4, "flags");
    let ip_frag = fld(&IPV4, "frag_off");
    let ip_total = fld(&IPV4, "total_len");
    let ip_proto = fld(&IPV4, "protocol");
    let udp_dport = fld(&UDP, "dport");
    let udp_len = fld(&UDP, "len");
    let version = fld(&COMMON, "version");
    let opcode = fld(&COMMON, "opcode");
    let msg_len = fld(&DATA, "msg_len");
    let offset = fld(&DATA, "offset");
    let payload_len = fld(&DATA, "payload_len");
    let nak_code = fld(&NAK, "code");
    s.push_str(&declared);
    // IPv4 header checksum: ones' complement sum of its ten words.
    let ip0 = ETH.len;
    let words: Vec<String> = (0..IPV4.len / 2)
        .map(|k| {
            format!(
                "{{16'd0, hb[{}:{}], hb[{}:{}]}}",
                8 * (ip0 + 2 * k) + 7,
                8 * (ip0 + 2 * k),
                8 * (ip0 + 2 * k + 1) + 7,
                8 * (ip0 + 2 * k + 1)
            )
        })
        .collect();
    w(&mut s, format!("wire [31:0] ip_sum0 = {};", words.join(" + ")));
    w(&mut s, "wire [31:0] ip_sum1 = {16'd0, ip_sum0[15:0]} + {16'd0, ip_sum0[31:16]};".into());
    w(&mut s, "wire [15:0] ip_sum = ip_sum1[15:0] + ip_sum1[31:16];".into());
    // Lengths, in 16 bits.
    w(&mut s, "wire [15:0] L = {2'd0, len};".into());
    w(&mut s, format!("wire [15:0] tp = L - 16'd{l2l4};"));
    w(&mut s, format!("wire [15:0] ext = tp - 16'd{};", CRC_LEN + COMMON.len));
    w(&mut s, format!("wire [15:0] payload = ext - 16'd{};", DATA.len));
    w(&mut s, format!("wire [32:0] end_offset = {{1'b0, {offset}}} + {{17'd0, {payload_len}}};"));
    w(&mut s, format!("wire is_data = ({opcode} == 8'h01) | ({opcode} == 8'h02) | ({opcode} == 8'h03);"));
    w(&mut s, format!("wire is_ack = {opcode} == 8'h10;"));
    w(&mut s, format!("wire is_nak = {opcode} == 8'h11;"));
    // The checks, in the order parse() makes them.
    let checks: Vec<(String, u8)> = vec![
        ("mac_bad".into(), ErrorCode::MacError as u8),
        ("too_long".into(), ErrorCode::BadLength as u8),
        (format!("L < 16'd{}", ETH.len), 1),
        (format!("{ethertype} != 16'h0800"), 2),
        (format!("L < 16'd{}", ETH.len + IPV4.len), 1),
        (format!("({ip_version} != 4'd4) | ({ip_ihl} != 4'd5)"), 3),
        ("ip_sum != 16'hffff".into(), 6),
        (format!("({ip_frag} != 13'd0) | (({ip_flags} & 3'b001) != 3'd0)"), 3),
        (format!("16'd{} + {ip_total} != L", ETH.len), 4),
        (format!("{ip_proto} != 8'd17"), 2),
        (format!("L < 16'd{l2l4}"), 1),
        (format!("{udp_dport} != cfg_port"), 2),
        (format!("{udp_len} != {ip_total} - 16'd{}", IPV4.len), 4),
        (format!("tp < 16'd{}", COMMON.len + CRC_LEN), 1),
        ("crc != 32'hdebb20e3".into(), 5),
        (format!("{version} != 4'd1"), 3),
        ("~(is_data | is_ack | is_nak)".into(), 7),
        (format!("is_data & (ext < 16'd{})", DATA.len), 1),
        (format!("is_data & (payload != {payload_len})"), 4),
        (format!("is_data & (({msg_len} == 32'd0) | ({payload_len} == 16'd0))"), 3),
        (format!("is_data & (end_offset > {{1'b0, {msg_len}}})"), 4),
        (format!("is_ack & (ext != 16'd{})", ACK.len), 4),
        (format!("is_nak & (ext != 16'd{})", NAK.len), 4),
        (format!("is_nak & (({nak_code} == 8'd0) | ({nak_code} > 8'd4))"), 3),
    ];
    w(&mut s, "reg [3:0] error;\nalways @(*) begin".into());
    let mut first = true;
    for (cond, code) in &checks {
        w(&mut s, format!("  {}if ({cond}) error = 4'd{code};", if first { "" } else { "else " }));
        first = false;
    }
    w(&mut s, "  else error = 4'd0;\nend".into());
    w(
        &mut s,
        "always @(*) begin\n  s_axis_tready = in_ready;\n  m_valid = res_valid;\n  m_good = res_good;\n  \
         m_error = res_error;\n  m_len = res_len;\n  m_hdr = hb;\nend"
            .into(),
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated equations compute the same CRC as the byte-wise table.
    #[test]
    fn crc_equations_match_the_reference() {
        let msg: Vec<u8> = (0..29u32).map(|i| (i * 37 + 11) as u8).collect();
        let mut state = 0xffff_ffffu32;
        for chunk in msg.chunks(8) {
            let mut data = 0u64;
            for (i, b) in chunk.iter().enumerate() {
                data |= (*b as u64) << (8 * i);
            }
            let eq = crc_equations(chunk.len());
            let mut next = 0u32;
            for (i, (sm, dm)) in eq.iter().enumerate() {
                let bit = ((state & sm).count_ones() + (data & dm).count_ones()) & 1;
                next |= bit << i;
            }
            state = next;
        }
        assert_eq!(!state, ferroce_proto::wire::crc32(&msg));
    }
}
