//! CRC-32 (IEEE 802.3 polynomial, reflected, init and final XOR 0xffffffff):
//! the ferroce trailer over transport header + payload, like RoCEv2's ICRC.

const fn make_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

static TABLE: [u32; 256] = make_table();

/// CRC-32 of a message followed by its CRC sent least significant byte
/// first: the same for every message, so a receiver can check the trailer
/// without knowing where the message ends.
pub const CRC_RESIDUE: u32 = 0x2144_df1c;

/// CRC-32 of `data`.
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for &b in data {
        c = TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

/// RFC 1071 Internet checksum of `data` (used for the IPv4 header).
pub fn internet_checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for pair in data.chunks(2) {
        let word = u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]);
        sum += word as u32;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_value() {
        // The standard check value of CRC-32/ISO-HDLC.
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn message_and_trailer_leave_the_residue() {
        for len in [0usize, 1, 7, 64, 1500] {
            let mut m: Vec<u8> = (0..len).map(|i| (i * 31 + 7) as u8).collect();
            let c = crc32(&m);
            m.extend_from_slice(&c.to_le_bytes());
            assert_eq!(crc32(&m), CRC_RESIDUE, "length {len}");
        }
    }

    #[test]
    fn ipv4_checksum_of_rfc_example() {
        // A well-known IPv4 header whose checksum is 0xb861.
        let hdr = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8,
            0x00, 0xc7,
        ];
        assert_eq!(internet_checksum(&hdr), 0xb861);
    }
}
