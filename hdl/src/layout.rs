//! Where header fields sit in a frame, from the header tables of
//! `ferroce_proto::wire`: shared by the generators that extract fields
//! (`rx_parse`) and place them (`tx_build`).

use ferroce_proto::wire::headers::{ACK, COMMON, DATA, ETH, IPV4, UDP};
use ferroce_proto::wire::Header;

/// Bytes of Ethernet + IPv4 + UDP: where the transport header starts.
pub const L2L4: usize = ETH.len + IPV4.len + UDP.len;
/// Header bytes of the longest packet (ACK).
pub const HDR_BYTES: usize = L2L4 + COMMON.len + ACK.len;
/// Frame offset of a data packet's payload.
pub const PAYLOAD_OFFSET: usize = L2L4 + COMMON.len + DATA.len;

/// Frame offset of header `h` (the extensions all follow the common header).
pub fn frame_offset(h: &Header) -> usize {
    match h.name {
        n if n == ETH.name => 0,
        n if n == IPV4.name => ETH.len,
        n if n == UDP.name => ETH.len + IPV4.len,
        n if n == COMMON.name => L2L4,
        _ => L2L4 + COMMON.len,
    }
}

/// The part of a field that lies in one frame byte: bits `top..=bottom` of a
/// header buffer (frame byte i at bits 8i..8i+7) hold value bits
/// `vtop..=vbottom` of the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slice {
    pub top: usize,
    pub bottom: usize,
    pub vtop: usize,
    pub vbottom: usize,
}

/// The slices of field `name` of `h`, most significant first.
pub fn slices(h: &Header, name: &str) -> Vec<Slice> {
    let f = h.field(name);
    let (start, end) = (f.bit_offset, f.bit_offset + f.bits); // header bit stream, MSB first
    (f.byte_offset()..f.end_byte())
        .map(|k| {
            let lo = start.max(8 * k);
            let hi = end.min(8 * k + 8); // exclusive
            let byte = frame_offset(h) + k;
            Slice {
                top: 8 * byte + 7 - (lo - 8 * k),
                bottom: 8 * byte + 7 - (hi - 1 - 8 * k),
                // stream position q is value bit bits - 1 - (q - start)
                vtop: f.bits - 1 - (lo - start),
                vbottom: f.bits - 1 - (hi - 1 - start),
            }
        })
        .collect()
}

/// A Verilog expression for field `name` of `h` in the header buffer `buf`
/// (frame byte i at bits 8i..8i+7): its slices, most significant first.
pub fn extract(h: &Header, name: &str, buf: &str) -> String {
    let mut parts: Vec<String> = slices(h, name)
        .iter()
        .map(|p| if p.top == p.bottom { format!("{buf}[{}]", p.top) } else { format!("{buf}[{}:{}]", p.top, p.bottom) })
        .collect();
    if parts.len() == 1 {
        parts.remove(0)
    } else {
        format!("{{{}}}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_across_two_bytes_splits_at_the_byte() {
        // IPv4 frag_off: 13 bits, the low 5 of frame byte 20 and all of byte 21.
        assert_eq!(
            slices(&IPV4, "frag_off"),
            vec![
                Slice { top: 164, bottom: 160, vtop: 12, vbottom: 8 },
                Slice { top: 175, bottom: 168, vtop: 7, vbottom: 0 }
            ]
        );
        assert_eq!(PAYLOAD_OFFSET, 90);
    }
}
