//! Field tables: every header is a list of big-endian bit fields. The same
//! table drives encode/decode here, the byte offsets used by the RTL, and the
//! generated `docs/wire.md`.

/// One field of a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Identifier used in code and docs.
    pub name: &'static str,
    /// Offset of the field's first bit from the start of the header, in bits
    /// (bit 0 is the most significant bit of byte 0).
    pub bit_offset: usize,
    /// Width in bits. Fields wider than 64 bits are byte arrays and must be
    /// byte aligned.
    pub bits: usize,
    /// What the field means.
    pub doc: &'static str,
}

impl Field {
    /// Byte offset of the first bit.
    pub const fn byte_offset(&self) -> usize {
        self.bit_offset / 8
    }
    /// One past the last byte the field touches.
    pub const fn end_byte(&self) -> usize {
        (self.bit_offset + self.bits).div_ceil(8)
    }

    /// Read the field from `hdr` (which starts at the header's first byte).
    /// Panics if `hdr` is too short: callers check the header length first.
    pub fn get(&self, hdr: &[u8]) -> u64 {
        debug_assert!(self.bits <= 64, "{} is a byte array", self.name);
        let first = self.byte_offset();
        let last = self.end_byte();
        let mut acc: u128 = 0;
        for &b in &hdr[first..last] {
            acc = (acc << 8) | b as u128;
        }
        let tail_pad = last * 8 - (self.bit_offset + self.bits);
        ((acc >> tail_pad) & ((1u128 << self.bits) - 1)) as u64
    }

    /// Write `value` (truncated to the field width) into `hdr`.
    pub fn set(&self, hdr: &mut [u8], value: u64) {
        debug_assert!(self.bits <= 64, "{} is a byte array", self.name);
        let first = self.byte_offset();
        let last = self.end_byte();
        let tail_pad = last * 8 - (self.bit_offset + self.bits);
        let mask: u128 = ((1u128 << self.bits) - 1) << tail_pad;
        let mut acc: u128 = 0;
        for &b in &hdr[first..last] {
            acc = (acc << 8) | b as u128;
        }
        acc = (acc & !mask) | (((value as u128) << tail_pad) & mask);
        for i in (first..last).rev() {
            hdr[i] = acc as u8;
            acc >>= 8;
        }
    }

    /// The bytes of a byte-aligned field.
    pub fn bytes<'a>(&self, hdr: &'a [u8]) -> &'a [u8] {
        debug_assert!(self.bit_offset % 8 == 0 && self.bits % 8 == 0);
        &hdr[self.byte_offset()..self.end_byte()]
    }

    /// Mutable bytes of a byte-aligned field.
    pub fn bytes_mut<'a>(&self, hdr: &'a mut [u8]) -> &'a mut [u8] {
        debug_assert!(self.bit_offset % 8 == 0 && self.bits % 8 == 0);
        &mut hdr[self.byte_offset()..self.end_byte()]
    }
}

/// A header: a name, a length and its fields in order.
#[derive(Debug, Clone, Copy)]
pub struct Header {
    /// Name used in docs.
    pub name: &'static str,
    /// Length in bytes.
    pub len: usize,
    /// Fields in wire order, covering every bit exactly once.
    pub fields: &'static [Field],
    /// What the header is for.
    pub doc: &'static str,
}

impl Header {
    /// The field called `name`, in a `const`: a name the table lacks stops
    /// the build (the constants of [`super::fields`] are made so).
    pub const fn named(&self, name: &str) -> Field {
        let mut i = 0;
        while i < self.fields.len() {
            if crate::str_eq(self.fields[i].name, name) {
                return self.fields[i];
            }
            i += 1;
        }
        panic!("no such field in the header table")
    }

    /// The field called `name`, from a name known only at run time (the
    /// dissector's generator, tests that go over every field). Panics on a
    /// typo: tables are static.
    pub fn field(&self, name: &str) -> &'static Field {
        self.fields
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("header {} has no field {name}", self.name))
    }
}

/// `Field` constructor for the static tables.
pub const fn f(name: &'static str, bit_offset: usize, bits: usize, doc: &'static str) -> Field {
    Field { name, bit_offset, bits, doc }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unaligned_fields_round_trip_without_touching_neighbours() {
        let a = f("a", 4, 12, "");
        let b = f("b", 16, 24, "");
        let mut buf = [0xffu8; 5];
        a.set(&mut buf, 0xabc);
        assert_eq!(buf, [0xfa, 0xbc, 0xff, 0xff, 0xff]);
        b.set(&mut buf, 0x12_3456);
        assert_eq!(buf, [0xfa, 0xbc, 0x12, 0x34, 0x56]);
        assert_eq!(a.get(&buf), 0xabc);
        assert_eq!(b.get(&buf), 0x12_3456);
        a.set(&mut buf, 0xffff_f001);
        assert_eq!(a.get(&buf), 0x001, "value is truncated to the width");
        assert_eq!(buf[0], 0xf0);
    }
}
