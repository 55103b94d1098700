//! TCP Prague's detection of a classic ECN AQM on the path, and its fallback
//! (draft-briscoe-iccrg-prague-congestion-control §2.4.2, "Coexistence with a classic ECN AQM";
//! the L4STeam reference `tcp_prague.c`'s `prague_classic_ecn_detection` and
//! `prague_classic_ecn_fallback`, module parameter `prague_ecn_fallback`).
//!
//! An L4S AQM keeps a queue of about a millisecond that varies little; a classic AQM (RED,
//! PIE, CoDel marking ECT(1) as ECT(0)) holds a deeper queue, whose variation shows in the
//! RTT. Once per round (where Prague updates α) a score `s` moves by
//!
//! * `V · log2(mdev / V0)` with `V` = 1/2 and `V0` = 750 µs: the RTT's mean deviation against a
//!   reference L4S queue's; below `V0` the score falls, above it rises;
//! * `+ D · log2(max(depth / D0, 1))` with `D` = 1/2 and `D0` = 2 ms, `depth = srtt − min_rtt`:
//!   a standing queue only ever adds;
//!
//! and is kept in [0, `C_STICKY`] = [0, 17] (the reference's α units: `L_STICKY` = 8, the
//! transition over the next 1, then 8 more of hysteresis). `srtt` and `mdev` are the
//! reference's own slow EWMAs of every RTT sample (not RFC 6298's): gains `2^-gs` and
//! `2^-(gs+1)` with `gs = ilog2(W) + ilog2(W)/2 + 1` (at most 18) for `W` the slow-start
//! threshold in segments when a reduction begins.
//!
//! Fallback (`prague_ecn_fallback` = 1): while `s > 8`, a reduction uses
//! `max(α, 0.625 · (min(s, 9) − 8))` for α: at `s ≥ 9` Prague cuts its window by at least
//! 31 %, a classic flow's cut, and competes with Reno and CUBIC on their terms.
//!
//! The reference works in fixed point (the logs as integer `ilog2` with a carried remainder,
//! α in 2⁻²⁰); this works in `f64` with exact `log2`.

/// Weight of the RTT variation term (`V`, 1/2).
const V: f64 = 0.5;
/// Weight of the queue depth term (`D`, 1/2).
const D: f64 = 0.5;
/// Reference RTT variation of an L4S queue (`V0_LG`: about 750 µs).
const V0_US: f64 = 750.0;
/// Reference queue depth (`D0_LG`: about 2 ms).
const D0_US: f64 = 2000.0;
/// Scores up to this are pure L4S behaviour (`L_STICKY`, 8 in α units).
pub const L_STICKY: f64 = 8.0;
/// The transition from L4S to classic ends here (`CLASSIC_ECN` = `L_STICKY` + 1).
pub const CLASSIC_ECN: f64 = L_STICKY + 1.0;
/// The score's ceiling (`C_STICKY` = `CLASSIC_ECN` + `L_STICKY`).
pub const C_STICKY: f64 = CLASSIC_ECN + L_STICKY;
/// Slowest EWMA gain shift (`PRAGUE_MAX_SRTT_BITS`).
const MAX_SRTT_SHIFT: u32 = 18;

/// The detector's state.
#[derive(Clone, Debug)]
pub struct ClassicEcnDetector {
    /// Smoothed RTT (µs), 0 before the first sample.
    srtt_us: f64,
    /// Mean deviation of the RTT samples (µs).
    mdev_us: f64,
    /// Smallest RTT sample (µs).
    min_rtt_us: f64,
    /// Gain shift of `srtt` (`g_srtt_shift`); `mdev`'s is one more.
    shift: u32,
    /// The classic-ECN score `s`.
    score: f64,
}

impl Default for ClassicEcnDetector {
    fn default() -> Self {
        Self::new()
    }
}

impl ClassicEcnDetector {
    /// Before any sample: the slowest gains, score 0 (pure L4S).
    pub fn new() -> Self {
        ClassicEcnDetector {
            srtt_us: 0.0,
            mdev_us: 1.0,
            min_rtt_us: f64::INFINITY,
            shift: MAX_SRTT_SHIFT,
            score: 0.0,
        }
    }

    /// The score `s`.
    pub fn score(&self) -> f64 {
        self.score
    }

    /// The smoothed RTT and mean deviation (µs) the score reads.
    pub fn srtt_mdev_us(&self) -> (f64, f64) {
        (self.srtt_us, self.mdev_us)
    }

    /// One RTT sample (the reference's `prague_rtt_estimator`, on every ACK with a sample).
    pub fn on_rtt_sample(&mut self, rtt_us: f64) {
        self.min_rtt_us = self.min_rtt_us.min(rtt_us);
        if self.srtt_us == 0.0 {
            self.srtt_us = rtt_us;
            self.mdev_us = 1.0;
            return;
        }
        let err = rtt_us - self.srtt_us;
        self.srtt_us += err / f64::from(1u32 << self.shift);
        self.mdev_us += (err.abs() - self.mdev_us) / f64::from(1u32 << (self.shift + 1));
    }

    /// A reduction begins with slow-start threshold `ssthresh_segments` (the reference's
    /// `prague_update_rtt_scaling`): the EWMAs' gains follow the window, slower for larger
    /// windows (more samples per RTT).
    pub fn on_reduction(&mut self, ssthresh_segments: u64) {
        let lg = 63 - ssthresh_segments.max(1).leading_zeros();
        self.shift = (lg + lg / 2 + 1).min(MAX_SRTT_SHIFT);
    }

    /// One round's update of the score (`prague_classic_ecn_detection`).
    pub fn on_round(&mut self) {
        if self.srtt_us == 0.0 || !self.min_rtt_us.is_finite() {
            return;
        }
        let mut s = self.score + V * (self.mdev_us.max(1.0).log2() - V0_US.log2());
        if self.srtt_us > self.min_rtt_us {
            let depth = self.srtt_us - self.min_rtt_us;
            s += D * (depth / D0_US).log2().max(0.0);
        }
        self.score = s.clamp(0.0, C_STICKY);
    }

    /// The α a reduction uses (`prague_classic_ecn_fallback`): α itself up to `L_STICKY`,
    /// then at least `0.625 · (min(s, 9) − 8)`.
    pub fn fallback_alpha(&self, alpha: f64) -> f64 {
        if self.score <= L_STICKY {
            return alpha;
        }
        let c = (self.score.min(CLASSIC_ECN) - L_STICKY) * 0.625;
        alpha.max(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(srtt_us: f64, mdev_us: f64, min_rtt_us: f64, score: f64) -> ClassicEcnDetector {
        ClassicEcnDetector {
            srtt_us,
            mdev_us,
            min_rtt_us,
            shift: 7,
            score,
        }
    }

    #[test]
    fn a_round_adds_half_the_log_of_variation_and_depth() {
        // mdev 1500 µs = 2·V0: +0.5; depth 8 ms = 4·D0: +0.5·2 = +1.
        let mut d = at(18_000.0, 1500.0, 10_000.0, 3.0);
        d.on_round();
        assert!((d.score() - 4.5).abs() < 1e-12, "{}", d.score());
        // mdev 375 µs = V0/2: −0.5; depth 1 ms < D0: nothing (a shallow queue never subtracts).
        let mut d = at(11_000.0, 375.0, 10_000.0, 3.0);
        d.on_round();
        assert!((d.score() - 2.5).abs() < 1e-12, "{}", d.score());
        // Kept in [0, 17].
        let mut d = at(11_000.0, 375.0, 10_000.0, 0.2);
        d.on_round();
        assert_eq!(d.score(), 0.0);
        let mut d = at(1e6, 1e5, 10_000.0, 16.0);
        d.on_round();
        assert_eq!(d.score(), C_STICKY);
    }

    #[test]
    fn the_fallback_raises_alpha_only_above_l_sticky() {
        let d = at(0.0, 1.0, 0.0, 8.0);
        assert_eq!(d.fallback_alpha(0.1), 0.1);
        let d = at(0.0, 1.0, 0.0, 8.5);
        assert_eq!(d.fallback_alpha(0.1), 0.3125);
        assert_eq!(d.fallback_alpha(0.5), 0.5);
        // From CLASSIC_ECN up: at least 0.625, a cut of 31.25 % (α/2).
        for s in [9.0, 12.0, 17.0] {
            assert_eq!(at(0.0, 1.0, 0.0, s).fallback_alpha(0.0), 0.625);
        }
    }

    #[test]
    fn the_ewmas_gains_follow_the_window() {
        let mut d = ClassicEcnDetector::new();
        d.on_rtt_sample(10_000.0);
        assert_eq!(d.srtt_mdev_us(), (10_000.0, 1.0));
        // ssthresh 30 segments: ilog2 = 4, shift 4 + 2 + 1 = 7; mdev's 8.
        d.on_reduction(30);
        d.on_rtt_sample(10_128.0);
        assert_eq!(d.srtt_mdev_us(), (10_001.0, 1.0 + 127.0 / 256.0));
        // The reference's first reduction sees an infinite ssthresh: the slowest gains.
        d.on_reduction(u64::MAX);
        assert_eq!(d.shift, MAX_SRTT_SHIFT);
        assert_eq!(d.min_rtt_us, 10_000.0);
    }

    #[test]
    fn a_steady_l4s_queue_stays_l4s_and_a_classic_one_crosses_over() {
        // A DualPI2 L queue: RTT 10.2 ms ± 0.1 ms around a 10 ms minimum: mdev ≈ 100 µs.
        let mut l = ClassicEcnDetector::new();
        l.on_reduction(30);
        let mut c = l.clone();
        for i in 0..20_000u32 {
            let wiggle = if i % 2 == 0 { 100.0 } else { -100.0 };
            l.on_rtt_sample(10_200.0 + wiggle);
            // A classic AQM queue: 15 ms ± 4 ms on a 10 ms path.
            let q = if i % 2 == 0 { 4000.0 } else { -4000.0 };
            c.on_rtt_sample(25_000.0 + q);
            if i % 20 == 19 {
                l.on_round();
                c.on_round();
            }
        }
        assert_eq!(l.score(), 0.0);
        assert_eq!(c.score(), C_STICKY);
        assert_eq!(l.fallback_alpha(0.05), 0.05);
        assert_eq!(c.fallback_alpha(0.05), 0.625);
    }
}
