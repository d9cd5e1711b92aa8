//! Minimal pcap writer (LINKTYPE_ETHERNET, nanosecond timestamps) so that a
//! simulated run can be opened in Wireshark.

use std::io::Write;

use ferroce_proto::Time;

/// Writes frames to a pcap stream.
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: W,
}

impl<W: Write> PcapWriter<W> {
    /// Write the global header.
    pub fn new(mut out: W) -> std::io::Result<Self> {
        out.write_all(&0xa1b2_3c4du32.to_le_bytes())?; // nanosecond magic
        out.write_all(&2u16.to_le_bytes())?;
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?;
        out.write_all(&0u32.to_le_bytes())?;
        out.write_all(&65535u32.to_le_bytes())?;
        out.write_all(&1u32.to_le_bytes())?; // Ethernet
        Ok(PcapWriter { out })
    }

    /// Append one frame seen at `t` (picoseconds).
    pub fn frame(&mut self, t: Time, frame: &[u8]) -> std::io::Result<()> {
        let ns = t / 1000;
        self.out.write_all(&((ns / 1_000_000_000) as u32).to_le_bytes())?;
        self.out.write_all(&((ns % 1_000_000_000) as u32).to_le_bytes())?;
        self.out.write_all(&(frame.len() as u32).to_le_bytes())?;
        self.out.write_all(&(frame.len() as u32).to_le_bytes())?;
        self.out.write_all(frame)
    }

    /// Flush and return the inner writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_record_layout() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        w.frame(1_500_000_000_123_000, &[0xaa, 0xbb]).unwrap();
        let b = w.finish().unwrap();
        assert_eq!(b.len(), 24 + 16 + 2);
        assert_eq!(&b[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(u32::from_le_bytes(b[24..28].try_into().unwrap()), 1500);
        assert_eq!(u32::from_le_bytes(b[28..32].try_into().unwrap()), 123);
        assert_eq!(&b[40..], &[0xaa, 0xbb]);
    }
}
