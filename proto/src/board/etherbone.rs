//! LiteX's Etherbone over UDP, as the board tops answer it
//! (`hdl/src/board/etherbone.rs`) and the driver's `--backend etherbone`
//! speaks it: the bridge's bus (the same map as UARTBone's) reached from a
//! host over the board's Ethernet port.
//!
//! The format is LiteX 2024.12's (`litex/tools/remote/etherbone.py`, host
//! side `comm_udp.py`; the board side `liteeth/frontend/etherbone.py`),
//! 32-bit addresses and data, every number most significant byte first:
//! * a packet: magic `0x4e6f`, a byte of version (1, high nibble) and flags
//!   (`pr` probe reply 0x02, `pf` probe 0x01), a byte of address and port
//!   sizes (`0x44`), four bytes of padding, then records;
//! * a record: a byte of flags (`wff` 0x40: writes to one address), the
//!   byte enables, `wcount`, `rcount`; then, when `wcount` > 0, the base
//!   write address and `wcount` words; when `rcount` > 0, the address the
//!   answer is to be written to (`base_ret`) and `rcount` read addresses;
//! * the answer to a record with reads is a record writing the words read
//!   to `base_ret` (`wcount` = the reads, `rcount` 0); writes are not
//!   answered; a probe (`pf`) is answered by a header with `pr`.
//!
//! The board answers to the UDP port the request came from, from
//! [`PORT`], and answers ARP requests for its address.

/// The UDP port the board listens on (LiteX's default).
pub const PORT: u16 = 1234;
/// The packet magic.
pub const MAGIC: u16 = 0x4e6f;
/// Version 1 in the high nibble of the flags byte.
pub const VERSION: u8 = 0x10;
/// Flag: probe reply.
pub const PR: u8 = 0x02;
/// Flag: probe.
pub const PF: u8 = 0x01;
/// 32-bit addresses and 32-bit data.
pub const SIZES: u8 = 0x44;
/// Record flag: every write goes to the base address.
pub const WFF: u8 = 0x40;
/// Most words a record writes or reads (its counts are one byte).
pub const MAX_WORDS: usize = 255;
/// Most bytes of a request's UDP payload the boards take (the rest of a
/// longer one is dropped, and the request with it): a record of 255 reads
/// or writes with the packet header fits.
pub const MAX_REQUEST: usize = 2048;

/// The boards' addresses until the bitstream is built with others
/// (LiteX's defaults for Etherbone).
pub const BOARD_MAC: [u8; 6] = [0x10, 0xe2, 0xd5, 0x00, 0x00, 0x00];
pub const BOARD_IP: [u8; 4] = [192, 168, 1, 50];

fn header(flags: u8) -> Vec<u8> {
    let mut b = MAGIC.to_be_bytes().to_vec();
    b.extend([VERSION | flags, SIZES, 0, 0, 0, 0]);
    b
}

/// A probe (as LiteX's `CommUDP.probe` sends it: the header and four bytes
/// of padding).
pub fn probe() -> Vec<u8> {
    let mut b = header(PF);
    b.extend([0; 4]);
    b
}

/// One record writing `data` from byte address `addr` up.
pub fn writes(addr: u32, data: &[u32]) -> Vec<u8> {
    assert!((1..=MAX_WORDS).contains(&data.len()), "1 to {MAX_WORDS} words per record");
    let mut b = header(0);
    b.extend([0, 0x0f, data.len() as u8, 0]);
    b.extend(addr.to_be_bytes());
    data.iter().for_each(|w| b.extend(w.to_be_bytes()));
    b
}

/// One record reading the words at byte addresses `addrs`, answered to
/// `base_ret`.
pub fn reads(base_ret: u32, addrs: &[u32]) -> Vec<u8> {
    assert!((1..=MAX_WORDS).contains(&addrs.len()), "1 to {MAX_WORDS} words per record");
    let mut b = header(0);
    b.extend([0, 0x0f, 0, addrs.len() as u8]);
    b.extend(base_ret.to_be_bytes());
    addrs.iter().for_each(|a| b.extend(a.to_be_bytes()));
    b
}

/// What a board answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A probe's answer.
    Probe,
    /// Words read, per record: (`base_ret`, words).
    Reads(Vec<(u32, Vec<u32>)>),
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes(b.try_into().expect("4 bytes"))
}

/// Parse an answer (a UDP payload), or say why it is not one.
pub fn parse_reply(b: &[u8]) -> Result<Reply, String> {
    if b.len() < 8 || u16::from_be_bytes([b[0], b[1]]) != MAGIC {
        return Err(format!("not an Etherbone packet ({} bytes)", b.len()));
    }
    if b[2] & 0xf0 != VERSION || b[3] != SIZES {
        return Err(format!("Etherbone version/flags {:#04x}, sizes {:#04x}", b[2], b[3]));
    }
    if b[2] & PR != 0 {
        return Ok(Reply::Probe);
    }
    let mut records = Vec::new();
    let mut at = 8;
    while at < b.len() {
        let r = b.get(at..at + 4).ok_or("a record header cut short")?;
        let (wcount, rcount) = (r[2] as usize, r[3] as usize);
        if rcount != 0 || wcount == 0 {
            return Err(format!("an answer record with {wcount} writes and {rcount} reads"));
        }
        let body = b.get(at + 4..at + 8 + 4 * wcount).ok_or("an answer record cut short")?;
        records.push((be32(&body[..4]), body[4..].chunks(4).map(be32).collect()));
        at += 8 + 4 * wcount;
    }
    Ok(Reply::Reads(records))
}

/// An Ethernet frame (no FCS) carrying an IPv4/UDP datagram, with the
/// header's checksum; the UDP checksum is 0 (none), as the boards send.
pub fn udp_frame(
    src: ([u8; 6], [u8; 4], u16),
    dst: ([u8; 6], [u8; 4], u16),
    payload: &[u8],
) -> Vec<u8> {
    let mut f = Vec::with_capacity(42 + payload.len());
    f.extend(dst.0);
    f.extend(src.0);
    f.extend([0x08, 0x00]);
    let total = (28 + payload.len()) as u16;
    let mut ip = vec![0x45, 0];
    ip.extend(total.to_be_bytes());
    ip.extend([0, 0, 0x40, 0, 64, 17, 0, 0]);
    ip.extend(src.1);
    ip.extend(dst.1);
    let c = crate::wire::internet_checksum(&ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    f.extend(ip);
    f.extend(src.2.to_be_bytes());
    f.extend(dst.2.to_be_bytes());
    f.extend(((8 + payload.len()) as u16).to_be_bytes());
    f.extend([0, 0]);
    f.extend(payload);
    f
}

/// The UDP datagram in an Ethernet frame: (source MAC, IP, port),
/// (destination MAC, IP, port), payload; None for anything else (or a
/// frame whose IPv4 header checksum is wrong).
#[allow(clippy::type_complexity)]
pub fn parse_udp_frame(f: &[u8]) -> Option<(([u8; 6], [u8; 4], u16), ([u8; 6], [u8; 4], u16), &[u8])> {
    if f.len() < 42 || f[12..14] != [0x08, 0x00] || f[14] != 0x45 || f[23] != 17 {
        return None;
    }
    if crate::wire::internet_checksum(&f[14..34]) != 0 {
        return None;
    }
    let ulen = u16::from_be_bytes([f[38], f[39]]) as usize;
    let payload = f.get(42..34 + ulen)?;
    let addr = |mac: &[u8], ip: &[u8], port: &[u8]| {
        (mac.try_into().expect("6"), ip.try_into().expect("4"), u16::from_be_bytes([port[0], port[1]]))
    };
    Some((addr(&f[6..12], &f[26..30], &f[34..36]), addr(&f[0..6], &f[30..34], &f[36..38]), payload))
}

/// An ARP request from (`mac`, `ip`) for `target`'s hardware address.
pub fn arp_request(mac: [u8; 6], ip: [u8; 4], target: [u8; 4]) -> Vec<u8> {
    let mut f = vec![0xff; 6];
    f.extend(mac);
    f.extend([0x08, 0x06, 0, 1, 0x08, 0x00, 6, 4, 0, 1]);
    f.extend(mac);
    f.extend(ip);
    f.extend([0; 6]);
    f.extend(target);
    f
}

/// The answer `arp_request(mac, ip, target)` gets from the holder of
/// (`target_mac`, `target`).
pub fn arp_reply(mac: [u8; 6], ip: [u8; 4], target_mac: [u8; 6], target: [u8; 4]) -> Vec<u8> {
    let mut f = mac.to_vec();
    f.extend(target_mac);
    f.extend([0x08, 0x06, 0, 1, 0x08, 0x00, 6, 4, 0, 2]);
    f.extend(target_mac);
    f.extend(target);
    f.extend(mac);
    f.extend(ip);
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes as LiteX's encoder writes them (computed by hand from
    /// `etherbone.py`: header fields swapped per byte, words big-endian).
    #[test]
    fn requests_are_litexs_bytes() {
        assert_eq!(probe(), [0x4e, 0x6f, 0x11, 0x44, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            writes(0x1000_0004, &[0xdead_beef]),
            [0x4e, 0x6f, 0x10, 0x44, 0, 0, 0, 0, 0, 0x0f, 1, 0, 0x10, 0, 0, 4, 0xde, 0xad, 0xbe, 0xef]
        );
        assert_eq!(reads(7, &[0x20]), [0x4e, 0x6f, 0x10, 0x44, 0, 0, 0, 0, 0, 0x0f, 0, 1, 0, 0, 0, 7, 0, 0, 0, 0x20]);
    }

    #[test]
    fn answers_parse_and_foreign_bytes_are_refused() {
        let mut a = header(0);
        a.extend([0, 0x0f, 2, 0, 0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(parse_reply(&a), Ok(Reply::Reads(vec![(9, vec![0x0102_0304, 0x0506_0708])])));
        assert_eq!(parse_reply(&header(PR)), Ok(Reply::Probe));
        assert!(parse_reply(&a[..a.len() - 1]).unwrap_err().contains("cut short"));
        assert!(parse_reply(&[0; 12]).unwrap_err().contains("not an Etherbone"));
    }

    #[test]
    fn udp_frames_round_trip() {
        let a = ([2, 0, 0, 0, 0, 1], [10, 0, 0, 1], 40000);
        let b = (BOARD_MAC, BOARD_IP, PORT);
        let f = udp_frame(a, b, &probe());
        assert_eq!(f.len(), 42 + 12);
        assert_eq!(parse_udp_frame(&f), Some((a, b, &probe()[..])));
        let mut bad = f.clone();
        bad[24] ^= 1;
        assert_eq!(parse_udp_frame(&bad), None, "a bad header checksum");
    }
}
