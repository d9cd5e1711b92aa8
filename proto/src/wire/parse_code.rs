//! The class of a [`parse`](super::parse) result, as a small code: what the
//! RTL parser (`rx_parse`) reports for each frame, and what its tests and
//! the receive path compare against the model.

use super::Frame;
use crate::Error;

/// Parse result classes: one per `Error` variant [`parse`](super::parse)
/// returns, plus the MAC's own bad-frame flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    None = 0,
    Truncated = 1,
    NotFerroce = 2,
    BadField = 3,
    BadLength = 4,
    BadCrc = 5,
    BadIpChecksum = 6,
    UnknownOpcode = 7,
    /// The MAC flagged the frame (FCS or PHY error).
    MacError = 8,
}

impl ErrorCode {
    /// Every code, in code order.
    pub const ALL: [ErrorCode; 9] = [
        ErrorCode::None,
        ErrorCode::Truncated,
        ErrorCode::NotFerroce,
        ErrorCode::BadField,
        ErrorCode::BadLength,
        ErrorCode::BadCrc,
        ErrorCode::BadIpChecksum,
        ErrorCode::UnknownOpcode,
        ErrorCode::MacError,
    ];
    /// Bits of a code.
    pub const BITS: usize = 4;

    /// The code's number.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The code of a parse result of the model.
    pub fn of(r: &Result<Frame<'_>, Error>) -> ErrorCode {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_in_order_and_fit_their_width() {
        for (i, c) in ErrorCode::ALL.iter().enumerate() {
            assert_eq!(c.code() as usize, i);
            assert!((c.code() as usize) < 1 << ErrorCode::BITS);
        }
    }
}
