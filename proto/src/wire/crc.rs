//! CRC-32 (IEEE 802.3 polynomial, reflected, init and final XOR 0xffffffff):
//! the ferroce trailer over transport header + payload, like RoCEv2's ICRC.

/// The CRC-32 polynomial (IEEE 802.3), reflected.
pub const CRC_POLY: u32 = 0xedb8_8320;
/// Initial register value (and final XOR).
pub const CRC_INIT: u32 = 0xffff_ffff;

const fn make_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { CRC_POLY ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

static TABLE: [u32; 256] = make_table();

/// `SLICES[k][b]`: the register contribution of byte `b` followed by `k`
/// zero bytes, so that eight bytes are folded in with eight lookups at once
/// (slicing-by-8; the same CRC as one byte at a time, several times faster,
/// which is what the simulators spend most of their time on).
const fn make_slices() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    t[0] = make_table();
    let mut k = 1;
    while k < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            i += 1;
        }
        k += 1;
    }
    t
}

static SLICES: [[u32; 256]; 8] = make_slices();

/// CRC-32 of a message followed by its CRC sent least significant byte
/// first: the same for every message, so a receiver can check the trailer
/// without knowing where the message ends.
pub const CRC_RESIDUE: u32 = 0x2144_df1c;

/// The CRC register (before the final XOR) after `n` zero bytes from
/// `state`.
pub fn crc32_register_zeros(state: u32, n: usize) -> u32 {
    (0..n).fold(state, |c, _| (c >> 8) ^ TABLE[(c & 0xff) as usize])
}

/// The CRC register that `n` zero bytes take to `state`: the inverse of
/// [`crc32_register_zeros`]. A zero byte's step is one to one, as the top
/// byte of its result is the top byte of the table entry it XORed in, and
/// the 256 entries' top bytes differ.
pub fn crc32_register_before_zeros(state: u32, n: usize) -> u32 {
    (0..n).fold(state, |c, _| {
        let i = TABLE.iter().position(|t| t >> 24 == c >> 24).expect("every top byte names one entry");
        ((c ^ TABLE[i]) << 8) | i as u32
    })
}

/// CRC-32 of `data`.
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = CRC_INIT;
    let mut words = data.chunks_exact(8);
    for w in &mut words {
        let lo = c ^ u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        let t = &SLICES;
        c = t[7][(lo & 0xff) as usize]
            ^ t[6][(lo >> 8 & 0xff) as usize]
            ^ t[5][(lo >> 16 & 0xff) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][w[4] as usize]
            ^ t[2][w[5] as usize]
            ^ t[1][w[6] as usize]
            ^ t[0][w[7] as usize];
    }
    for &b in words.remainder() {
        c = TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

/// The register after feeding `bytes` (0-8) bytes at once, as equations
/// over GF(2): bit i of the next register is the parity of (register AND
/// `masks[i].0`) XOR the parity of (data AND `masks[i].1`), the data word
/// holding its first byte in bits 0-7 (as a 64-bit AXI-Stream beat does).
/// Data bits past `bytes` bytes are in no mask. The parallel CRC of the
/// RTL (`rx_parse`, `tx_build`) is built from these.
pub fn crc32_step_masks(bytes: usize) -> [(u32, u64); 32] {
    assert!(bytes <= 8, "a 64-bit word holds at most 8 bytes");
    // bit i of the register as (register mask, data mask)
    let mut c: [(u32, u64); 32] = core::array::from_fn(|i| (1u32 << i, 0u64));
    for k in 0..bytes {
        for (j, cj) in c.iter_mut().enumerate().take(8) {
            cj.1 ^= 1u64 << (8 * k + j);
        }
        for _ in 0..8 {
            let lsb = c[0];
            c.copy_within(1.., 0);
            c[31] = (0, 0);
            for (i, ci) in c.iter_mut().enumerate() {
                if CRC_POLY >> i & 1 == 1 {
                    ci.0 ^= lsb.0;
                    ci.1 ^= lsb.1;
                }
            }
        }
    }
    c
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
    fn zero_bytes_undone() {
        let mut tops: Vec<u32> = TABLE.iter().map(|t| t >> 24).collect();
        tops.sort_unstable();
        tops.dedup();
        assert_eq!(tops.len(), 256, "the table's top bytes differ");
        let mut x = 0x1234_5678u32;
        for n in 0..20 {
            x = x.wrapping_mul(2_654_435_761).rotate_left(7) ^ n as u32;
            assert_eq!(crc32_register_zeros(crc32_register_before_zeros(x, n), n), x, "{x:#x} after {n} zeros");
            assert_eq!(crc32_register_before_zeros(crc32_register_zeros(x, n), n), x, "{x:#x} before {n} zeros");
        }
        // Leading zeros from the register before them are the same CRC.
        let data = b"ferroce";
        let mut padded = vec![0u8; 3];
        padded.extend_from_slice(data);
        let pre = crc32_register_before_zeros(CRC_INIT, 3);
        let c = padded.iter().fold(pre, |c, &b| TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8));
        assert_eq!(!c, crc32(data));
    }

    #[test]
    fn eight_bytes_at_a_time_equals_one_at_a_time() {
        let bytewise = |d: &[u8]| !d.iter().fold(CRC_INIT, |c, &b| TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8));
        let data: Vec<u8> = (0..300u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for start in 0..9 {
            for end in start..data.len() {
                assert_eq!(crc32(&data[start..end]), bytewise(&data[start..end]), "bytes {start}..{end}");
            }
        }
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

    /// The parallel equations, fed a message in 8-byte words (the last one
    /// short, with junk past its end), give the byte-wise CRC.
    #[test]
    fn step_masks_match_the_bytewise_crc() {
        for len in [0usize, 1, 5, 8, 29, 64, 101] {
            let msg: Vec<u8> = (0..len as u32).map(|i| (i * 37 + 11) as u8).collect();
            let mut state = CRC_INIT;
            for chunk in msg.chunks(8) {
                let mut data = 0xa5a5_a5a5_a5a5_a5a5u64;
                for (i, b) in chunk.iter().enumerate() {
                    data = (data & !(0xffu64 << (8 * i))) | (*b as u64) << (8 * i);
                }
                let mut next = 0u32;
                for (i, (sm, dm)) in crc32_step_masks(chunk.len()).iter().enumerate() {
                    let bit = ((state & sm).count_ones() + (data & dm).count_ones()) & 1;
                    next |= bit << i;
                }
                state = next;
            }
            assert_eq!(!state, crc32(&msg), "length {len}");
        }
        assert_eq!(crc32_step_masks(0).map(|m| m.0), core::array::from_fn(|i| 1u32 << i));
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
