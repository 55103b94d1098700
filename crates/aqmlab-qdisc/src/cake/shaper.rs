//! The shaper (paper §3.5; `cake_set_rate`, `cake_calc_overhead`, `cake_advance_shaper`):
//! deficit mode, the adjusted length with overhead, MPU and ATM/PTM framing.

use super::{Cake, CakeConfig};

/// `atm`: cell framing of the link below IP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// None.
    NoAtm,
    /// ATM: 48 payload bytes per 53-byte cell.
    Atm,
    /// PTM (64b/65b): one byte per 64 or part thereof.
    Ptm,
}

/// A byte rate as Linux keeps it: nanoseconds per byte in fixed point, `ns >> shift`
/// (`cake_set_rate`). `ns == 0`: unlimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    /// Scaled nanoseconds per byte.
    pub ns: u64,
    /// The scale.
    pub shift: u8,
}

impl Rate {
    /// `bytes_per_s` (0: unlimited) as `cake_set_rate` converts it: `(1e9 << 34) / rate`, then
    /// halved (and the shift decreased) until it fits 34 bits. Rates below 64 B/s count as 64.
    pub fn from_bytes_per_s(bytes_per_s: u64) -> Rate {
        if bytes_per_s == 0 {
            return Rate { ns: 0, shift: 0 };
        }
        let mut shift = 34u8;
        let mut ns = ((1_000_000_000u128 << 34) / bytes_per_s.max(64) as u128) as u64;
        while ns >> 34 != 0 {
            ns >>= 1;
            shift -= 1;
        }
        Rate { ns, shift }
    }
    /// Time to send `len` bytes, ns (`(len · rate_ns) >> rate_shft`).
    #[inline]
    pub fn duration(self, len: u32) -> u64 {
        (len as u64 * self.ns) >> self.shift
    }
}

impl CakeConfig {
    /// The size the shaper charges for a packet of `size` bytes (`cake_calc_overhead`): plus
    /// `overhead`, at least `mpu`, then ATM cells (`⌈len/48⌉·53`) or PTM (`len + ⌈len/64⌉`).
    pub fn adjusted_len(&self, size: u32) -> u32 {
        let mut len = (size as i64 + self.overhead as i64).max(0) as u64;
        len = len.max(self.mpu as u64);
        len = match self.framing {
            Framing::NoAtm => len,
            Framing::Atm => len.div_ceil(48) * 53,
            Framing::Ptm => len + len.div_ceil(64),
        };
        len.min(u32::MAX as u64) as u32
    }
}

impl Cake {
    /// Charges a sent packet to the shapers (`cake_advance_shaper`) and deficits.
    pub(super) fn charge(&mut self, t: usize, i: usize, len: u32, now: i64) {
        let shaped = self.rate.ns != 0;
        let tin = &mut self.tins[t];
        if shaped {
            let tin_dur = tin.rate.duration(len) as i64;
            let global = self.rate.duration(len) as i64;
            if tin.time_next < now {
                tin.time_next += tin_dur;
            } else if tin.time_next < now + tin_dur {
                tin.time_next = now + tin_dur;
            }
            self.time_next += global;
            self.failsafe_next += global + (global >> 1);
        }
        tin.hot[i].deficit -= len as i64;
        tin.deficit -= len as i64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_fixed_point_matches_cake_set_rate() {
        // 10 Mb/s = 1.25e6 B/s = 800 ns per byte exactly: (1e9 << 34) / 1.25e6 = 800 << 34,
        // halved 10 times to fit 34 bits.
        let r = Rate::from_bytes_per_s(1_250_000);
        assert_eq!(
            r,
            Rate {
                ns: 800 << 24,
                shift: 24
            }
        );
        assert_eq!(r.duration(1696), 1_356_800);
        assert_eq!(Rate::from_bytes_per_s(0).duration(1500), 0);
    }
}
