//! Where header fields sit in a frame, from the header tables of
//! `ferroce_proto::wire`: shared by the generators that extract fields
//! (`rx_parse`) and place them (`tx_build`).

use ferroce_proto::wire::headers::{ACK, COMMON, DATA, ETH, IPV4, UDP};
use ferroce_proto::wire::{Field, Header};

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

/// [`Header::field`] at compile time, for widths and offsets that are type
/// parameters: the field called `name`. Fails to compile on a typo.
pub const fn field_of(h: &Header, name: &str) -> Field {
    h.named(name)
}

/// [`frame_offset`] at compile time.
pub const fn frame_offset_of(h: &Header) -> usize {
    if ferroce_proto::str_eq(h.name, ETH.name) {
        0
    } else if ferroce_proto::str_eq(h.name, IPV4.name) {
        ETH.len
    } else if ferroce_proto::str_eq(h.name, UDP.name) {
        ETH.len + IPV4.len
    } else if ferroce_proto::str_eq(h.name, COMMON.name) {
        L2L4
    } else {
        L2L4 + COMMON.len
    }
}

/// Frame byte holding the last (least significant) bits of field `name`.
pub const fn field_last_byte(h: &Header, name: &str) -> usize {
    frame_offset_of(h) + field_of(h, name).end_byte() - 1
}

/// Where field `name` sits in the 32-bit big-endian word of the four frame
/// bytes that end at [`field_last_byte`]: its lowest bit. The field must fit
/// in that word.
pub const fn field_word_shift(h: &Header, name: &str) -> usize {
    let f = field_of(h, name);
    let shift = 8 * f.end_byte() - (f.bit_offset + f.bits);
    assert!(shift + f.bits <= 32, "field does not fit in four bytes");
    shift
}

/// 64-bit words of the header buffer (`HDR_BYTES` rounded up).
pub const HDR_WORDS: usize = HDR_BYTES.div_ceil(8);
/// Bits of the header buffer in big-endian form: frame byte 0 in the top
/// eight bits, so that every field is one contiguous run of bits.
pub const HDR_BE_BITS: usize = 64 * HDR_WORDS;

/// Where field `name` of `h` starts (its least significant bit) in the
/// big-endian header buffer.
pub fn be_offset(h: &Header, name: &str) -> usize {
    let f = h.field(name);
    HDR_BE_BITS - 8 * frame_offset(h) - f.bit_offset - f.bits
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

    #[test]
    fn compile_time_lookups_agree_with_the_tables() {
        for h in ferroce_proto::wire::headers::ALL {
            assert_eq!(frame_offset_of(h), frame_offset(h), "{}", h.name);
            for f in h.fields {
                assert_eq!(field_of(h, f.name), *f);
                assert_eq!(field_last_byte(h, f.name), frame_offset(h) + f.end_byte() - 1);
            }
        }
        // IPv4 frag_off: the low 13 bits of bytes 20-21.
        assert_eq!((field_last_byte(&IPV4, "frag_off"), field_word_shift(&IPV4, "frag_off")), (21, 0));
        assert_eq!((field_last_byte(&IPV4, "version"), field_word_shift(&IPV4, "version")), (14, 4));
    }
}
