//! Frames to and from pcap files (LINKTYPE_ETHERNET, nanosecond
//! timestamps) with the `pcap-file` crate, so that a simulated run can be
//! opened in Wireshark and a capture replayed.

use std::io::{Read, Write};
use std::time::Duration;

use ferroce_proto::Time;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapReader, PcapWriter as FileWriter};
use pcap_file::{DataLink, Endianness, PcapError, TsResolution};

/// Longest frame a record keeps whole: a 9000-byte jumbo payload and its
/// headers fit.
const SNAPLEN: u32 = 65_535;

fn io(e: PcapError) -> std::io::Error {
    match e {
        PcapError::IoError(e) => e,
        other => std::io::Error::new(std::io::ErrorKind::InvalidData, other),
    }
}

/// Writes frames to a pcap stream.
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: FileWriter<W>,
}

impl<W: Write> PcapWriter<W> {
    /// Write the global header.
    pub fn new(out: W) -> std::io::Result<Self> {
        let header = PcapHeader {
            snaplen: SNAPLEN,
            datalink: DataLink::ETHERNET,
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
            ..PcapHeader::default()
        };
        Ok(PcapWriter { out: FileWriter::with_header(out, header).map_err(io)? })
    }

    /// Append one frame seen at `t` (picoseconds).
    pub fn frame(&mut self, t: Time, frame: &[u8]) -> std::io::Result<()> {
        let ts = Duration::from_nanos(t / 1000);
        self.out.write_packet(&PcapPacket::new(ts, frame.len() as u32, frame)).map_err(io)?;
        Ok(())
    }

    /// Flush and return the inner writer.
    pub fn finish(self) -> std::io::Result<W> {
        let mut out = self.out.into_writer();
        out.flush()?;
        Ok(out)
    }
}

/// Every frame of a pcap stream with its time in picoseconds.
pub fn read_frames(input: impl Read) -> std::io::Result<Vec<(Time, Vec<u8>)>> {
    let mut r = PcapReader::new(input).map_err(io)?;
    let mut frames = Vec::new();
    while let Some(p) = r.next_packet() {
        let p = p.map_err(io)?;
        frames.push((p.timestamp.as_nanos() as Time * 1000, p.data.into_owned()));
    }
    Ok(frames)
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
        assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 1, "LINKTYPE_ETHERNET");
        assert_eq!(u32::from_le_bytes(b[24..28].try_into().unwrap()), 1500);
        assert_eq!(u32::from_le_bytes(b[28..32].try_into().unwrap()), 123);
        assert_eq!(&b[40..], &[0xaa, 0xbb]);
    }

    #[test]
    fn frames_read_back_with_their_times() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        w.frame(7_000, &[1, 2, 3]).unwrap();
        w.frame(2_000_000_000_001_000, &[4]).unwrap();
        let b = w.finish().unwrap();
        assert_eq!(read_frames(&b[..]).unwrap(), vec![(7_000, vec![1, 2, 3]), (2_000_000_000_001_000, vec![4])]);
    }
}
