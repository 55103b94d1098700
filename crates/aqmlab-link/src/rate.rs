//! How fast a link sends over time, and exactly when a packet's last bit leaves.
//!
//! A link's rate is a [`LinkRate`]: a constant [`Bitrate`], a step schedule
//! (`[[0s, 100Mbps], [50s, 10Mbps], …]`), or a mahimahi trace of delivery opportunities.
//!
//! **Rate changes take effect on the packet in flight**, as on a real link whose clock changes:
//! bits already sent stay sent, and the remaining bits go at the new rate. [`LinkRate::tx_end`]
//! integrates the rate piecewise from the start of transmission. A rate of 0 means the link is
//! down: transmission pauses until the rate is positive again.
//!
//! **mahimahi traces** follow mm-link's byte accounting (`shared/reference/traces_and_tools.md`
//! §1.1). Each line is one delivery opportunity at that millisecond, and each opportunity carries
//! up to 1504 bytes. Several small packets can share one opportunity, and a larger packet spreads
//! over several. Bytes of an opportunity left over when the queue is empty are wasted. The trace
//! repeats with a period equal to its last timestamp. A packet "leaves" at the opportunity that
//! carries its last byte.

use aqmlab_core::{Bitrate, SimDuration, SimTime};
use std::fmt;

/// Bytes one mahimahi delivery opportunity carries (mm-link's `PACKET_SIZE`).
pub const MAHIMAHI_OPPORTUNITY_BYTES: u32 = 1504;

/// A piecewise-constant rate: `(from, rate)` steps sorted by time, the first at time 0. The last
/// rate holds forever.
#[derive(Clone, Debug, PartialEq)]
pub struct StepSchedule {
    steps: Vec<(SimTime, Bitrate)>,
}

/// A step schedule or trace that cannot be used, with what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{msg}", if *.line > 0 { format!("line {}: ", .line) } else { String::new() })]
pub struct RateError {
    /// 1-based line (traces) or step index + 1 (schedules); 0 when not about one line.
    pub line: usize,
    /// What was wrong and what was expected.
    pub msg: String,
}

fn rerr(line: usize, msg: impl Into<String>) -> RateError {
    RateError {
        line,
        msg: msg.into(),
    }
}

impl StepSchedule {
    /// A schedule from `(time, rate)` steps. The first must be at time 0 and times must increase.
    pub fn new(steps: Vec<(SimTime, Bitrate)>) -> Result<Self, RateError> {
        match steps.first() {
            None => return Err(rerr(0, "expected at least one [time, rate] step")),
            Some((t, _)) if *t != SimTime::ZERO => {
                return Err(rerr(1, format!("the first step must start at 0s, got {t}")))
            }
            _ => {}
        }
        for (i, w) in steps.windows(2).enumerate() {
            if w[1].0 <= w[0].0 {
                return Err(rerr(
                    i + 2,
                    format!(
                        "step times must increase: {} comes after {}",
                        w[1].0, w[0].0
                    ),
                ));
            }
        }
        if let Some((_, last)) = steps.last() {
            if last.as_bps() == 0 {
                return Err(rerr(steps.len(), "the last step has rate 0: the link would never send again (a rate of 0 is for outages that end)"));
            }
        }
        Ok(StepSchedule { steps })
    }
    /// The steps.
    pub fn steps(&self) -> &[(SimTime, Bitrate)] {
        &self.steps
    }
    fn index_at(&self, t: SimTime) -> usize {
        self.steps.partition_point(|(s, _)| *s <= t) - 1
    }
    /// The rate in force at `t`.
    pub fn rate_at(&self, t: SimTime) -> Bitrate {
        self.steps[self.index_at(t)].1
    }
    /// When `bytes` bytes starting at `start` have been sent (piecewise integration, exact in
    /// integer nanoseconds: the final step rounds up, so a packet never leaves early).
    pub fn tx_end(&self, start: SimTime, bytes: u32) -> SimTime {
        // Remaining work in bit·ns units (bits × 1e9), so a partial step subtracts exactly
        // rate × elapsed_ns and no rounding accumulates across steps.
        let mut i = self.index_at(start);
        // Fast path, the common case: the packet ends within the step it starts in. Same
        // ceil(bits·1e9 / rate) as the loop's first step, in u64 arithmetic.
        let rate = self.steps[i].1;
        if rate.as_bps() > 0 {
            let need = rate.tx_time(bytes as u64);
            match self.steps.get(i + 1) {
                Some(&(n, _)) if n - start >= need => return start + need,
                None => return start + need,
                Some(_) => {}
            }
        }
        let mut work: u128 = bytes as u128 * 8 * 1_000_000_000;
        let mut t = start;
        loop {
            let rate = self.steps[i].1.as_bps() as u128;
            let next = self.steps.get(i + 1).map(|s| s.0);
            if rate > 0 {
                let need_ns = work.div_ceil(rate);
                match next {
                    Some(n) if (n - t).as_nanos() as u128 >= need_ns => {
                        return t + SimDuration::from_nanos(need_ns as u64);
                    }
                    None => {
                        return t + SimDuration::from_nanos(need_ns.min(u64::MAX as u128) as u64)
                    }
                    Some(n) => work -= rate * (n - t).as_nanos() as u128,
                }
            }
            let Some(n) = next else {
                unreachable!(
                    "the last step has rate 0 but some step is positive: validated in new()"
                )
            };
            t = n;
            i += 1;
        }
    }
    /// Bits the link could send in `[from, to)`.
    pub fn capacity_bits(&self, from: SimTime, to: SimTime) -> u128 {
        let mut bits = 0u128;
        for (i, (s, r)) in self.steps.iter().enumerate() {
            let e = self.steps.get(i + 1).map_or(SimTime::MAX, |x| x.0);
            let (a, b) = ((*s).max(from), e.min(to));
            if b > a {
                bits += r.as_bps() as u128 * (b - a).as_nanos() as u128 / 1_000_000_000;
            }
        }
        bits
    }
}

/// The largest timestamp accepted in a trace (about 11.6 days), so times in ns never overflow.
pub const MAX_TRACE_MS: u64 = 1_000_000_000;

/// A mahimahi link trace: delivery opportunities at millisecond offsets, repeating.
#[derive(Clone, PartialEq, Eq)]
pub struct DeliveryTrace {
    opportunities_ms: Vec<u64>,
    period_ms: u64,
}

impl fmt::Debug for DeliveryTrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DeliveryTrace({} opportunities / {} ms)",
            self.opportunities_ms.len(),
            self.period_ms
        )
    }
}

impl DeliveryTrace {
    /// Parses mahimahi's format: one non-negative integer (ms) per line, non-decreasing, at least
    /// one line, the last > 0. A trailing newline is allowed; empty lines elsewhere are not.
    pub fn parse(text: &str) -> Result<Self, RateError> {
        let mut v = Vec::new();
        if text.trim().is_empty() {
            return Err(rerr(
                0,
                "the trace is empty: expected one timestamp (ms) per line",
            ));
        }
        let lines: Vec<&str> = text
            .strip_suffix('\n')
            .unwrap_or(text)
            .split('\n')
            .collect();
        for (i, raw) in lines.iter().enumerate() {
            let line = raw.trim_end_matches('\r').trim();
            if line.is_empty() {
                return Err(rerr(
                    i + 1,
                    "empty line: expected one whole number of milliseconds per line",
                ));
            }
            let ms: u64 = line.parse().ok().filter(|ms| *ms <= MAX_TRACE_MS).ok_or_else(|| {
                rerr(
                    i + 1,
                    format!("expected a whole number of milliseconds between 0 and {MAX_TRACE_MS}, got {line:?}"),
                )
            })?;
            if let Some(&prev) = v.last() {
                if ms < prev {
                    return Err(rerr(
                        i + 1,
                        format!("timestamps must not decrease: {ms} comes after {prev}"),
                    ));
                }
            }
            v.push(ms);
        }
        let period_ms = *v.last().ok_or_else(|| {
            rerr(
                0,
                "the trace is empty: expected one timestamp (ms) per line",
            )
        })?;
        if period_ms == 0 {
            return Err(rerr(
                lines.len(),
                "the last timestamp must be > 0 (it is the trace's period)",
            ));
        }
        Ok(DeliveryTrace {
            opportunities_ms: v,
            period_ms,
        })
    }
    /// Opportunities per period.
    pub fn len(&self) -> usize {
        self.opportunities_ms.len()
    }
    /// Never empty (checked at parse time).
    pub fn is_empty(&self) -> bool {
        false
    }
    /// The period in ms.
    pub fn period_ms(&self) -> u64 {
        self.period_ms
    }
    /// Time of opportunity number `k` (counting from 0 over repeated periods).
    #[inline]
    pub fn opportunity_time(&self, k: u64) -> SimTime {
        let n = self.opportunities_ms.len() as u64;
        // Saturating: far beyond any run (scenarios are at most 11.6 days), but never a wrap.
        let ms = (k / n)
            .saturating_mul(self.period_ms)
            .saturating_add(self.opportunities_ms[(k % n) as usize]);
        SimTime::from_nanos(ms.saturating_mul(1_000_000))
    }
    /// Index of the first opportunity at or after `t`.
    pub fn first_at_or_after(&self, t: SimTime) -> u64 {
        let n = self.opportunities_ms.len() as u64;
        let period_ns = self.period_ms * 1_000_000;
        let mut cycle = t.as_nanos() / period_ns;
        let mut within_ns = t.as_nanos() - cycle * period_ns;
        if within_ns == 0 && cycle > 0 {
            // The last opportunity of the previous cycle sits exactly at this boundary.
            cycle -= 1;
            within_ns = period_ns;
        }
        let idx = self
            .opportunities_ms
            .partition_point(|&ms| ms * 1_000_000 < within_ns) as u64;
        // Opportunities at exactly the period boundary belong to the next cycle's time 0 too.
        cycle * n + idx
    }
    /// Mean rate over one period (1504 bytes per opportunity).
    pub fn mean_rate(&self) -> Bitrate {
        let bits = self.opportunities_ms.len() as u128 * MAHIMAHI_OPPORTUNITY_BYTES as u128 * 8;
        Bitrate::from_bps((bits * 1000 / self.period_ms as u128) as u64)
    }
}

/// A link's rate over time, with the state a trace needs between packets.
#[derive(Clone, Debug)]
pub enum LinkRate {
    /// A constant rate.
    Constant(Bitrate),
    /// A step schedule.
    Steps(StepSchedule),
    /// A mahimahi trace, with the next unused opportunity and the bytes left in the last one used.
    Trace {
        /// The trace.
        trace: DeliveryTrace,
        /// Index of the next opportunity not yet (fully) used.
        next: u64,
        /// `(time, bytes)` left in the last opportunity used; usable only by a packet that starts
        /// at that same instant (back-to-back), otherwise wasted.
        leftover: (SimTime, u32),
    },
}

impl LinkRate {
    /// A trace-driven rate starting at the trace's beginning.
    pub fn trace(trace: DeliveryTrace) -> Self {
        LinkRate::Trace {
            trace,
            next: 0,
            leftover: (SimTime::ZERO, 0),
        }
    }

    /// When a packet of `bytes` whose transmission starts at `start` has left. Transmissions must
    /// be requested in time order (one packet at a time, as a link sends them).
    #[inline]
    pub fn tx_end(&mut self, start: SimTime, bytes: u32) -> SimTime {
        // Inline for a constant rate (every hop of most topologies pays this call); the rest out
        // of line, so that its code does not weigh on the inlining of the packet path.
        match self {
            LinkRate::Constant(r) => start + r.tx_time(bytes as u64),
            _ => self.tx_end_varying(start, bytes),
        }
    }

    /// [`LinkRate::tx_end`] for a step schedule or a trace.
    #[inline(never)]
    fn tx_end_varying(&mut self, start: SimTime, bytes: u32) -> SimTime {
        match self {
            LinkRate::Constant(_) => unreachable!("tx_end handles a constant rate inline"),
            LinkRate::Steps(s) => s.tx_end(start, bytes),
            LinkRate::Trace {
                trace,
                next,
                leftover,
            } => {
                let mut remaining = bytes;
                let mut end = start;
                if leftover.0 == start && leftover.1 > 0 {
                    let take = remaining.min(leftover.1);
                    remaining -= take;
                    leftover.1 -= take;
                    end = start;
                }
                if remaining > 0 {
                    *next = (*next).max(trace.first_at_or_after(start));
                }
                while remaining > 0 {
                    let t = trace.opportunity_time(*next);
                    *next += 1;
                    let take = remaining.min(MAHIMAHI_OPPORTUNITY_BYTES);
                    remaining -= take;
                    end = t;
                    *leftover = (t, MAHIMAHI_OPPORTUNITY_BYTES - take);
                }
                end
            }
        }
    }

    /// Bits the link could carry in `[from, to)`: the denominator of utilization.
    pub fn capacity_bits(&self, from: SimTime, to: SimTime) -> u128 {
        if to <= from {
            return 0;
        }
        match self {
            LinkRate::Constant(r) => {
                r.as_bps() as u128 * (to - from).as_nanos() as u128 / 1_000_000_000
            }
            LinkRate::Steps(s) => s.capacity_bits(from, to),
            LinkRate::Trace { trace, .. } => {
                let n = trace.first_at_or_after(to) - trace.first_at_or_after(from);
                n as u128 * MAHIMAHI_OPPORTUNITY_BYTES as u128 * 8
            }
        }
    }

    /// The nominal rate at `t` (for a trace, its mean rate), e.g. for RED's idle correction.
    pub fn nominal_rate(&self, t: SimTime) -> Bitrate {
        match self {
            LinkRate::Constant(r) => *r,
            LinkRate::Steps(s) => s.rate_at(t),
            LinkRate::Trace { trace, .. } => trace.mean_rate(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn constant_rate() {
        let mut r = LinkRate::Constant(Bitrate::from_mbps(10));
        assert_eq!(r.tx_end(ms(1), 1500), SimTime::from_nanos(2_200_000));
    }

    #[test]
    fn rate_change_applies_to_the_packet_in_flight() {
        // 100 Mb/s until 1 ms, then 10 Mb/s. A 1500-B packet (12 000 bits) starting at 0.95 ms
        // sends 5 000 bits in 50 µs at 100 Mb/s, then 7 000 bits at 10 Mb/s in 700 µs.
        let s = StepSchedule::new(vec![
            (ms(0), Bitrate::from_mbps(100)),
            (ms(1), Bitrate::from_mbps(10)),
        ])
        .unwrap();
        assert_eq!(
            s.tx_end(SimTime::from_nanos(950_000), 1500),
            SimTime::from_nanos(1_700_000)
        );
        // Entirely before the change: plain tx time.
        assert_eq!(s.tx_end(ms(0), 1500), SimTime::from_nanos(120_000));
        // A link that goes down (rate 0) pauses the packet until it comes back.
        let d = StepSchedule::new(vec![
            (ms(0), Bitrate::from_mbps(12)),
            (ms(1), Bitrate::from_bps(0)),
            (ms(5), Bitrate::from_mbps(12)),
        ])
        .unwrap();
        // 1500 B at 12 Mb/s = 1 ms; starting at 0.5 ms: half sent by 1 ms, the rest 5–5.5 ms.
        assert_eq!(
            d.tx_end(SimTime::from_nanos(500_000), 1500),
            SimTime::from_nanos(5_500_000)
        );
        assert_eq!(d.capacity_bits(ms(0), ms(6)), 24_000);
    }

    #[test]
    fn schedule_validation() {
        assert!(StepSchedule::new(vec![]).is_err());
        let e = StepSchedule::new(vec![(ms(1), Bitrate::from_mbps(1))]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 1: the first step must start at 0s, got 0.001000000s"
        );
        let e = StepSchedule::new(vec![
            (ms(0), Bitrate::from_mbps(1)),
            (ms(0), Bitrate::from_mbps(2)),
        ])
        .unwrap_err();
        assert!(e
            .to_string()
            .starts_with("line 2: step times must increase"));
        assert!(StepSchedule::new(vec![(ms(0), Bitrate::from_bps(0))]).is_err());
        let e = StepSchedule::new(vec![
            (ms(0), Bitrate::from_mbps(1)),
            (ms(5), Bitrate::from_bps(0)),
        ])
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("line 2: the last step has rate 0"),
            "{e}"
        );
    }

    #[test]
    fn trace_parsing_and_errors() {
        let t = DeliveryTrace::parse("1\n1\n3\n").unwrap();
        assert_eq!((t.len(), t.period_ms()), (3, 3));
        assert_eq!(t.mean_rate(), Bitrate::from_bps(3 * 1504 * 8 * 1000 / 3));
        assert_eq!(
            DeliveryTrace::parse("").unwrap_err().to_string(),
            "the trace is empty: expected one timestamp (ms) per line"
        );
        assert_eq!(
            DeliveryTrace::parse("1\n\n2\n").unwrap_err().to_string(),
            "line 2: empty line: expected one whole number of milliseconds per line"
        );
        assert_eq!(
            DeliveryTrace::parse("5\n3\n").unwrap_err().to_string(),
            "line 2: timestamps must not decrease: 3 comes after 5"
        );
        assert_eq!(
            DeliveryTrace::parse("1\nx\n").unwrap_err().to_string(),
            "line 2: expected a whole number of milliseconds between 0 and 1000000000, got \"x\""
        );
        assert!(DeliveryTrace::parse("99999999999999\n").is_err());
        assert!(DeliveryTrace::parse("0\n0\n")
            .unwrap_err()
            .to_string()
            .contains("must be > 0"));
    }

    #[test]
    fn trace_byte_accounting_follows_mahimahi() {
        // Opportunities at 1, 1, 3 ms; period 3 ms (so the next cycle's are at 4, 4, 6 ms).
        let mut r = LinkRate::trace(DeliveryTrace::parse("1\n1\n3\n").unwrap());
        // Two 700-B packets back to back share the first opportunity (1504 B).
        assert_eq!(r.tx_end(ms(0), 700), ms(1));
        assert_eq!(r.tx_end(ms(1), 700), ms(1));
        // A 1500-B packet starting at 1 ms uses the 104 B left, then 1396 B of the second one.
        assert_eq!(r.tx_end(ms(1), 1500), ms(1));
        // After an idle gap the leftover (108 B) is wasted: next opportunity at or after 2 ms is 3 ms.
        assert_eq!(r.tx_end(ms(2), 100), ms(3));
        // The trace repeats: a 3000-B packet at 3.5 ms needs two opportunities: 4 and 4 ms.
        assert_eq!(r.tx_end(SimTime::from_nanos(3_500_000), 3000), ms(4));
        assert_eq!(r.tx_end(ms(5), 10), ms(6));
        // The opportunity at a period boundary is used by a packet starting exactly there.
        let mut r = LinkRate::trace(DeliveryTrace::parse("1\n3\n").unwrap());
        assert_eq!(r.tx_end(ms(3), 100), ms(3));
        assert_eq!(r.tx_end(ms(3), 1500), ms(4));
        let c = LinkRate::trace(DeliveryTrace::parse("1\n3\n").unwrap());
        assert_eq!(
            c.capacity_bits(ms(0), ms(6) + aqmlab_core::SimDuration::from_nanos(1)),
            4 * 1504 * 8
        );
    }

    #[test]
    fn opportunity_times_saturate_instead_of_wrapping() {
        // Far beyond any run (at most 10^6 s), but never an overflow: one opportunity per
        // 10^9 ms, so opportunity k is at (k + 1)·10^15 ns, and k = 18 446 would wrap.
        let t = DeliveryTrace::parse("1000000000\n").unwrap();
        assert_eq!(
            t.opportunity_time(18_000),
            SimTime::from_nanos(18_001_000_000_000_000_000)
        );
        assert_eq!(t.opportunity_time(18_446), SimTime::MAX);
        assert_eq!(t.opportunity_time(u64::MAX), SimTime::MAX);
    }

    #[test]
    fn bundled_trace_mean_rate() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../traces/Verizon-LTE-short.down"
        ))
        .unwrap();
        let t = DeliveryTrace::parse(&text).unwrap();
        // shared/reference/traces_and_tools.md: Verizon-LTE-short has a 140 s period and a mean
        // of 5.04 Mb/s downstream.
        assert_eq!(t.period_ms() / 1000, 140);
        let mbps = t.mean_rate().as_bps() as f64 / 1e6;
        assert!((mbps - 5.04).abs() < 0.01, "{mbps}");
    }
}
