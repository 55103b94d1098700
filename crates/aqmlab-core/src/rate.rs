//! Link rates.

use crate::time::SimDuration;
use std::fmt;

/// A rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bitrate(u64);

impl Bitrate {
    /// `bps` bits per second.
    pub const fn from_bps(bps: u64) -> Self {
        Bitrate(bps)
    }
    /// `mbps` megabits (10^6 bits) per second.
    pub const fn from_mbps(mbps: u64) -> Self {
        Bitrate(mbps * 1_000_000)
    }
    /// Bits per second.
    pub const fn as_bps(self) -> u64 {
        self.0
    }
    /// Time to serialise `bytes` at this rate: `ceil(bytes * 8 * 1e9 / bps)` nanoseconds, computed
    /// in `u128` so it neither overflows nor rounds a packet down to zero time.
    /// A zero rate gives [`SimDuration::MAX`].
    pub fn tx_time(self, bytes: u64) -> SimDuration {
        if self.0 == 0 {
            return SimDuration::MAX;
        }
        // Packet sizes keep the numerator within u64 (bytes < 2.3e9), and a u64 division is
        // several times faster than u128's library call; the result is the same.
        if bytes < (u64::MAX / 8_000_000_000) {
            return SimDuration::from_nanos((bytes * 8_000_000_000).div_ceil(self.0));
        }
        let num = bytes as u128 * 8 * 1_000_000_000;
        let ns = num.div_ceil(self.0 as u128);
        SimDuration::from_nanos(ns.min(u64::MAX as u128) as u64)
    }
}

impl fmt::Display for Bitrate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b.is_multiple_of(1_000_000_000) && b > 0 {
            write!(f, "{}Gbps", b / 1_000_000_000)
        } else if b.is_multiple_of(1_000_000) && b > 0 {
            write!(f, "{}Mbps", b / 1_000_000)
        } else if b.is_multiple_of(1_000) && b > 0 {
            write!(f, "{}kbps", b / 1_000)
        } else {
            write!(f, "{}bps", b)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn tx_time_examples() {
        assert_eq!(Bitrate::from_mbps(10).tx_time(1500).as_nanos(), 1_200_000);
        assert_eq!(Bitrate::from_bps(3).tx_time(1).as_nanos(), 2_666_666_667);
        assert_eq!(Bitrate::from_mbps(10).to_string(), "10Mbps");
    }

    proptest! {
        #[test]
        fn tx_time_is_monotone_and_never_zero(bps in 1u64..100_000_000_000, a in 1u64..100_000, b in 1u64..100_000) {
            let r = Bitrate::from_bps(bps);
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(r.tx_time(lo) <= r.tx_time(hi));
            prop_assert!(r.tx_time(lo).as_nanos() > 0);
        }
    }
}
