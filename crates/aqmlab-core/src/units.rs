//! Parsing values as users write them: `5ms`, `10Mbps`, `1000p`, `1.5MB`, `0.002`, `true`.
//!
//! Every parser returns a [`UnitError`] whose message says what was expected, so a caller can
//! prefix it with the parameter name or the file position and show it as one line.
//! Decimal prefixes are powers of ten (`MB` = 10^6 bytes, `Mbps` = 10^6 bit/s); binary ones are
//! spelled `KiB`, `MiB`, `GiB`.

use crate::rate::Bitrate;
use crate::time::SimDuration;
use std::fmt;

/// A value that could not be parsed, with what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("expected {expected}, got {got:?}")]
pub struct UnitError {
    /// What a valid value looks like, e.g. `a duration like "5ms"`.
    pub expected: &'static str,
    /// The text that was given.
    pub got: String,
}

fn err(expected: &'static str, got: &str) -> UnitError {
    UnitError {
        expected,
        got: got.to_string(),
    }
}

/// A buffer size: a number of packets or a number of bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// A limit in packets (`1000p`).
    Packets(u64),
    /// A limit in bytes (`1.5MB`, `64KiB`, `1500B`).
    Bytes(u64),
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Size::Packets(n) => write!(f, "{n}p"),
            Size::Bytes(n) => write!(f, "{n}B"),
        }
    }
}

/// Splits `"12.5ms"` into `(12.5, "ms")`. The number must be finite and non-negative; it may
/// have a decimal exponent (`1e3ms`, `2.5e-1s`), so a number too large for its unit is reported
/// as out of range (e.g. `1e12s`) rather than as a missing unit.
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let b = s.as_bytes();
    let mut end = b
        .iter()
        .position(|&c| !(c.is_ascii_digit() || c == b'.' || c == b'+'))
        .unwrap_or(b.len());
    // An exponent: `e` or `E`, an optional sign, then at least one digit (so a unit that
    // starts with `e` would still be a unit).
    if end > 0 && matches!(b.get(end), Some(b'e' | b'E')) {
        let mut j = end + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let digits = b[j.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits > 0 {
            end = j + digits;
        }
    }
    let (num, unit) = s.split_at(end);
    if num.is_empty() || num.starts_with('+') {
        return None;
    }
    let v: f64 = num.parse().ok()?;
    if !v.is_finite() || v < 0.0 {
        return None;
    }
    Some((v, unit.trim()))
}

const DURATION: &str = "a duration with a unit, like \"5ms\", \"100us\", \"1.5s\" or \"250ns\"";

/// [`UnitError::expected`] of a value that parses but does not fit 64 bits (of nanoseconds,
/// bits per second, bytes or packets): callers that have a documented maximum name it.
pub const BEYOND_64_BITS: &str = "a value within 64 bits (this one is beyond the maximum)";

/// Parses a duration: a non-negative number followed by `ns`, `us`, `ms` or `s`.
pub fn parse_duration(s: &str) -> Result<SimDuration, UnitError> {
    let (v, unit) = split_number(s).ok_or_else(|| err(DURATION, s))?;
    // tc's spellings too (`msec`, `usec`, `secs`).
    let scale = match unit {
        "ns" | "nsec" | "nsecs" => 1.0,
        "us" | "µs" | "usec" | "usecs" => 1e3,
        "ms" | "msec" | "msecs" => 1e6,
        "s" | "sec" | "secs" => 1e9,
        _ => return Err(err(DURATION, s)),
    };
    let ns = (v * scale).round();
    if ns > u64::MAX as f64 {
        return Err(err(BEYOND_64_BITS, s));
    }
    Ok(SimDuration::from_nanos(ns as u64))
}

const BITRATE: &str =
    "a rate with a unit, like \"10Mbps\", \"1.5Gbps\", \"500kbps\" or \"64000bps\"";

/// Parses a bit rate: a non-negative number followed by `bps`, `kbps`, `Mbps` or `Gbps`
/// (`bit/s` spellings and `Mbit` are accepted too).
pub fn parse_bitrate(s: &str) -> Result<Bitrate, UnitError> {
    let (v, unit) = split_number(s).ok_or_else(|| err(BITRATE, s))?;
    // tc's spellings too (`10mbit`, `500kbit`, `1gbit`). Not tc's `mbps`, which means
    // megabytes per second there and megabits here: it stays refused rather than mean either.
    let scale = match unit {
        "bps" | "bit/s" | "bit" => 1.0,
        "kbps" | "Kbps" | "kbit/s" | "kbit" | "Kbit" => 1e3,
        "Mbps" | "Mbit/s" | "Mbit" | "mbit" => 1e6,
        "Gbps" | "Gbit/s" | "Gbit" | "gbit" => 1e9,
        _ => return Err(err(BITRATE, s)),
    };
    let bps = (v * scale).round();
    if bps > u64::MAX as f64 {
        return Err(err(BEYOND_64_BITS, s));
    }
    Ok(Bitrate::from_bps(bps as u64))
}

const SIZE: &str =
    "a size in packets like \"1000p\" or in bytes like \"1500B\", \"64KB\", \"1.5MB\"";

/// Parses a buffer size: packets (`1000p`) or bytes (`1500B`, `64KB`, `1.5MB`, `1GB`, `64KiB`,
/// `1MiB`). A packet count must be a whole number.
pub fn parse_size(s: &str) -> Result<Size, UnitError> {
    let (v, unit) = split_number(s).ok_or_else(|| err(SIZE, s))?;
    let bytes_scale = match unit {
        "p" | "pkt" | "pkts" | "packets" => {
            if v.fract() != 0.0 {
                return Err(err(SIZE, s));
            }
            if v >= u64::MAX as f64 {
                return Err(err(BEYOND_64_BITS, s));
            }
            return Ok(Size::Packets(v as u64));
        }
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(err(SIZE, s)),
    };
    let b = (v * bytes_scale).round();
    if b >= u64::MAX as f64 {
        return Err(err(BEYOND_64_BITS, s));
    }
    Ok(Size::Bytes(b as u64))
}

/// Parses a byte count (`1514`, `1514B`, `32MB`): like [`parse_size`] but packets are refused and a
/// bare integer means bytes.
pub fn parse_bytes(s: &str) -> Result<u64, UnitError> {
    const BYTES: &str = "a byte count like \"1514\", \"1514B\" or \"32MB\"";
    if let Ok(n) = s.trim().parse::<u64>() {
        return Ok(n);
    }
    match parse_size(s) {
        Ok(Size::Bytes(b)) => Ok(b),
        _ => Err(err(BYTES, s)),
    }
}

/// Parses a finite real number (`0.002`, `1e-3`, `50`).
pub fn parse_f64(s: &str) -> Result<f64, UnitError> {
    const NUMBER: &str = "a number like \"0.002\"";
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(err(NUMBER, s)),
    }
}

/// Parses a non-negative integer.
pub fn parse_u64(s: &str) -> Result<u64, UnitError> {
    s.trim()
        .parse::<u64>()
        .map_err(|_| err("a whole number like \"1024\"", s))
}

/// Parses a boolean: `true`/`false`, `on`/`off`, `yes`/`no`, `1`/`0`.
pub fn parse_bool(s: &str) -> Result<bool, UnitError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "yes" | "1" => Ok(true),
        "false" | "off" | "no" | "0" => Ok(false),
        _ => Err(err("true or false", s)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("5ms").unwrap(), SimDuration::from_millis(5));
        assert_eq!(
            parse_duration("1.5s").unwrap(),
            SimDuration::from_millis(1500)
        );
        assert_eq!(
            parse_duration("100us").unwrap(),
            SimDuration::from_micros(100)
        );
        assert_eq!(
            parse_duration("250ns").unwrap(),
            SimDuration::from_nanos(250)
        );
        assert_eq!(parse_duration(" 0ms ").unwrap(), SimDuration::ZERO);
        assert_eq!(parse_duration("1e3ms").unwrap(), SimDuration::from_secs(1));
        assert_eq!(
            parse_duration("2.5E-1s").unwrap(),
            SimDuration::from_millis(250)
        );
        for bad in [
            "5",
            "ms",
            "-5ms",
            "5 parsecs",
            "",
            "1e",
            "1e+s",
            "inf s",
            "+5ms",
        ] {
            let e = parse_duration(bad).unwrap_err();
            assert!(
                e.to_string().contains("a duration with a unit"),
                "{bad}: {e}"
            );
        }
    }

    /// A number written with an exponent that is too large is out of range, not "a unit"
    /// missing (issue 20: `1e12s`); the same number in plain digits says the same.
    #[test]
    fn exponent_beyond_range() {
        for big in ["1e12s", "1000000000000s", "2e19ns"] {
            assert_eq!(
                parse_duration(big).unwrap_err().expected,
                BEYOND_64_BITS,
                "{big}"
            );
        }
        assert_eq!(
            parse_bitrate("1e20bps").unwrap_err().expected,
            BEYOND_64_BITS
        );
        assert_eq!(parse_size("1e30B").unwrap_err().expected, BEYOND_64_BITS);
        assert_eq!(
            parse_bitrate("1.5e6bps").unwrap(),
            Bitrate::from_bps(1_500_000)
        );
    }

    #[test]
    fn bitrates() {
        assert_eq!(parse_bitrate("10Mbps").unwrap(), Bitrate::from_mbps(10));
        assert_eq!(
            parse_bitrate("1.5Mbps").unwrap(),
            Bitrate::from_bps(1_500_000)
        );
        assert_eq!(
            parse_bitrate("2Gbps").unwrap(),
            Bitrate::from_bps(2_000_000_000)
        );
        assert_eq!(
            parse_bitrate("448kbps").unwrap(),
            Bitrate::from_bps(448_000)
        );
        assert!(parse_bitrate("10MB").is_err());
        assert!(parse_bitrate("10").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1000p").unwrap(), Size::Packets(1000));
        assert_eq!(parse_size("1.5MB").unwrap(), Size::Bytes(1_500_000));
        assert_eq!(parse_size("64KiB").unwrap(), Size::Bytes(65_536));
        assert_eq!(parse_size("1500B").unwrap(), Size::Bytes(1500));
        assert!(parse_size("1.5p").is_err());
        assert!(parse_size("1000").is_err());
        assert_eq!(parse_bytes("1514").unwrap(), 1514);
        assert_eq!(parse_bytes("32MB").unwrap(), 32_000_000);
        assert!(parse_bytes("10p").is_err());
    }

    #[test]
    fn scalars() {
        assert_eq!(parse_f64("0.002").unwrap(), 0.002);
        assert!(parse_f64("nan").is_err());
        assert!(parse_bool("on").unwrap());
        assert!(!parse_bool("False").unwrap());
        assert!(parse_bool("maybe").is_err());
        assert_eq!(parse_u64("1024").unwrap(), 1024);
        assert!(parse_u64("-1").is_err());
    }
}
