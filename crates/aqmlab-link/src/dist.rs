//! Random durations a scenario can give where it would give a time: a flow's `start`
//! (`"uniform(0s, 1s)"`) and a link direction's `jitter` (`"uniform(0ms, 1ms)"`).
//!
//! Draws are exact in integer nanoseconds for `uniform` (`a + ⌊U·(b − a + 1)⌋` ns, U in [0, 1)
//! with 53 bits, so every nanosecond of [a, b] is possible) and rounded to the nanosecond for
//! `exponential` (inverse transform). Each user draws from its own named stream
//! ([`aqmlab_core::Xoshiro256pp::for_stream`]), so the same scenario and seed give the same draws.

use aqmlab_core::units::parse_duration;
use aqmlab_core::{SimDuration, Xoshiro256pp};

/// A duration: fixed, or drawn from a distribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DurationDist {
    /// Always this duration.
    Fixed(SimDuration),
    /// Uniform on [lo, hi] (nanosecond resolution).
    Uniform(SimDuration, SimDuration),
    /// Exponential with this mean.
    Exponential(SimDuration),
}

/// What a duration-or-distribution value must look like (for error messages).
pub const EXPECTED: &str =
    "a duration like \"2s\", or a distribution: \"uniform(0s, 1s)\" or \"exponential(500ms)\"";

impl DurationDist {
    /// Parses `"2s"`, `"uniform(A, B)"` (A ≤ B) or `"exponential(MEAN)"`; the error says what
    /// was expected and repeats the text.
    pub fn parse(s: &str) -> Result<Self, String> {
        let bad = || format!("expected {EXPECTED}, got {s:?}");
        let t = s.trim();
        let Some(open) = t.find('(') else {
            return parse_duration(t)
                .map(DurationDist::Fixed)
                .map_err(|_| bad());
        };
        let (name, rest) = t.split_at(open);
        let inner = rest
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .ok_or_else(bad)?;
        let args: Vec<SimDuration> = inner
            .split(',')
            .map(|a| parse_duration(a.trim()))
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        match (name.trim(), args.as_slice()) {
            ("uniform", &[lo, hi]) if lo <= hi => Ok(DurationDist::Uniform(lo, hi)),
            ("uniform", &[lo, hi]) => Err(format!(
                "expected uniform(A, B) with A <= B, got {s:?} ({lo} > {hi})"
            )),
            ("exponential", &[mean]) => Ok(DurationDist::Exponential(mean)),
            _ => Err(bad()),
        }
    }

    /// True unless the duration is fixed.
    pub fn is_random(&self) -> bool {
        !matches!(self, DurationDist::Fixed(_))
    }

    /// The largest value a draw can take (`None`: unbounded).
    pub fn max(&self) -> Option<SimDuration> {
        match *self {
            DurationDist::Fixed(d) => Some(d),
            DurationDist::Uniform(_, hi) => Some(hi),
            DurationDist::Exponential(_) => None,
        }
    }

    /// The mean.
    pub fn mean(&self) -> SimDuration {
        match *self {
            DurationDist::Fixed(d) | DurationDist::Exponential(d) => d,
            DurationDist::Uniform(lo, hi) => {
                SimDuration::from_nanos(lo.as_nanos() + (hi.as_nanos() - lo.as_nanos()) / 2)
            }
        }
    }

    /// One draw; a fixed duration uses no random number. Exponential draws are capped at `cap`.
    pub fn sample(&self, rng: &mut Xoshiro256pp, cap: SimDuration) -> SimDuration {
        match *self {
            DurationDist::Fixed(d) => d,
            DurationDist::Uniform(lo, hi) => {
                let span = hi.as_nanos() - lo.as_nanos();
                if span == 0 {
                    return lo;
                }
                // ⌊U·(span + 1)⌋ ≤ span: U < 1 and span + 1 ≤ 2^64 fits an f64 product well
                // below the next integer only for spans under 2^53 ns (104 days), which
                // MAX_TIME keeps.
                let k = (rng.next_f64() * (span as f64 + 1.0)) as u64;
                SimDuration::from_nanos(lo.as_nanos() + k.min(span))
            }
            DurationDist::Exponential(mean) => {
                let ns = rng.exponential(mean.as_nanos() as f64).round();
                SimDuration::from_nanos((ns as u64).min(cap.as_nanos()))
            }
        }
    }
}

/// The form [`DurationDist::parse`] reads back to the same value, in canonical units: `"2s"`,
/// `"uniform(0s, 1500ms)"`, `"exponential(500ms)"`.
impl std::fmt::Display for DurationDist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            DurationDist::Fixed(d) => write!(f, "{d}"),
            DurationDist::Uniform(lo, hi) => write!(f, "uniform({lo}, {hi})"),
            DurationDist::Exponential(m) => write!(f, "exponential({m})"),
        }
    }
}

/// The name of the random stream flow `idx` (or the flow named `name`) draws its start from:
/// the flow's own, apart from the one its application draws from, so that a random start
/// leaves the application's draws (web arrivals and sizes, on/off periods) as they were.
pub fn start_stream(idx: usize, name: Option<&str>) -> String {
    match name {
        Some(n) => format!("flow/name/{n}/start"),
        None => format!("flow/{idx}/start"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_what_parses_back_to_the_same_value() {
        for (text, shown) in [
            ("1500ms", "1500ms"),
            ("1.5s", "1500ms"),
            ("uniform(0s, 1.0000005s)", "uniform(0s, 1000000500ns)"),
            ("exponential(0.5s)", "exponential(500ms)"),
        ] {
            let d = DurationDist::parse(text).unwrap();
            assert_eq!(d.to_string(), shown);
            assert_eq!(DurationDist::parse(shown), Ok(d));
        }
    }

    #[test]
    fn parses_fixed_uniform_and_exponential() {
        let ms = SimDuration::from_millis;
        assert_eq!(
            DurationDist::parse("2s"),
            Ok(DurationDist::Fixed(SimDuration::from_secs(2)))
        );
        assert_eq!(
            DurationDist::parse(" uniform(0s, 1s) "),
            Ok(DurationDist::Uniform(ms(0), ms(1000)))
        );
        assert_eq!(
            DurationDist::parse("exponential(500ms)"),
            Ok(DurationDist::Exponential(ms(500)))
        );
        assert_eq!(
            DurationDist::parse("uniform(2s, 1s)").unwrap_err(),
            "expected uniform(A, B) with A <= B, got \"uniform(2s, 1s)\" (2s > 1s)"
        );
        for bad in [
            "uniform(1s)",
            "normal(1s, 2s)",
            "uniform(0s, 1s",
            "2",
            "exponential(x)",
        ] {
            assert_eq!(
                DurationDist::parse(bad).unwrap_err(),
                format!("expected {EXPECTED}, got {bad:?}"),
                "{bad}"
            );
        }
    }

    #[test]
    fn uniform_draws_stay_in_range_and_are_reproducible() {
        let d = DurationDist::Uniform(SimDuration::from_nanos(10), SimDuration::from_nanos(13));
        let mut a = Xoshiro256pp::for_stream(7, "x");
        let mut b = Xoshiro256pp::for_stream(7, "x");
        let mut seen = [0u32; 4];
        for _ in 0..4000 {
            let x = d.sample(&mut a, SimDuration::MAX);
            assert_eq!(x, d.sample(&mut b, SimDuration::MAX));
            seen[(x.as_nanos() - 10) as usize] += 1;
        }
        // Every value of [10, 13] ns is drawn, each about a quarter of the time.
        assert!(seen.iter().all(|&n| (850..1150).contains(&n)), "{seen:?}");
        let fixed = DurationDist::Fixed(SimDuration::from_secs(1));
        let before = a.clone().next_u64();
        assert_eq!(
            fixed.sample(&mut a, SimDuration::MAX),
            SimDuration::from_secs(1)
        );
        assert_eq!(a.next_u64(), before, "a fixed duration draws nothing");
    }
}
