//! HyStart++ (RFC 9406): leaving the initial slow start on a rise in round-trip delay, before
//! the buffer overflows.
//!
//! RFC 9438 §4.10 says CUBIC SHOULD use it; it is optional here (`CcConfig::hystart`, off by
//! default) because the seed experiments ran on ns-2 stacks that predate it.
//!
//! The state machine only watches ACKs; the sender asks it, for each ACK that would grow the
//! window in the initial slow start, how to grow ([`Growth`]):
//! * §4.2: rounds are delimited by `windowEnd` (`snd_nxt` when a round starts; a round ends with
//!   the ACK that covers it). Each round keeps the minimum RTT of its samples.
//! * Standard slow start: once a round has `N_RTT_SAMPLE` samples and the previous round a
//!   minimum, if `currentRoundMinRTT ≥ lastRoundMinRTT + RttThresh`, with `RttThresh =
//!   clamp(lastRoundMinRTT / MIN_RTT_DIVISOR, MIN_RTT_THRESH, MAX_RTT_THRESH)`, enter Conservative
//!   Slow Start (CSS) with `cssBaselineMinRtt = currentRoundMinRTT`.
//! * CSS: the window grows by a quarter of what slow start would add (`CSS_GROWTH_DIVISOR`). A
//!   round with `N_RTT_SAMPLE` samples whose minimum falls below the baseline means the exit was
//!   spurious: back to slow start. After `CSS_ROUNDS` rounds, congestion avoidance
//!   (`ssthresh = cwnd`).
//! * §4.3: only the initial slow start uses it; a loss, an ECN echo or a timeout ends it.
//!
//! Slow start's own growth stays RFC 3465's `min(N, 2·SMSS)` per ACK. RFC 9406 writes
//! `min(N, L·SMSS)` with `L = 8` for an unpaced sender; the two differ only on stretch ACKs of
//! more than two segments. In CSS, `min(N, 8·SMSS) / 4 = min(N / 4, 2·SMSS)`, which is what the
//! controller computes when handed `N / 4`.

use aqmlab_core::SimDuration;

/// §4.3 constants.
pub const MIN_RTT_THRESH: SimDuration = SimDuration::from_millis(4);
/// Upper clamp of the delay-increase threshold.
pub const MAX_RTT_THRESH: SimDuration = SimDuration::from_millis(16);
/// The threshold is this fraction of the last round's minimum RTT (before clamping).
pub const MIN_RTT_DIVISOR: u64 = 8;
/// RTT samples a round needs before its minimum is trusted.
pub const N_RTT_SAMPLE: u32 = 8;
/// CSS grows the window this many times slower than slow start.
pub const CSS_GROWTH_DIVISOR: u64 = 4;
/// Rounds of CSS before congestion avoidance.
pub const CSS_ROUNDS: u32 = 5;

/// How the sender should treat an ACK's window growth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// Standard slow start: grow by the ACKed bytes.
    SlowStart,
    /// Conservative slow start: grow by the ACKed bytes divided by [`CSS_GROWTH_DIVISOR`].
    Conservative,
    /// CSS is over: set `ssthresh = cwnd` and continue in congestion avoidance.
    EnterCongestionAvoidance,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    SlowStart,
    Css { rounds_done: u32 },
    Over,
}

/// HyStart++ state of one sender.
#[derive(Clone, Debug)]
pub struct HyStart {
    phase: Phase,
    /// `windowEnd`: the round ends when `snd_una` reaches it (0 before the first round).
    window_end: u64,
    last_round_min: Option<SimDuration>,
    current_round_min: Option<SimDuration>,
    samples: u32,
    css_baseline: Option<SimDuration>,
}

impl Default for HyStart {
    fn default() -> Self {
        Self::new()
    }
}

impl HyStart {
    /// The state at the start of a connection (standard slow start, no rounds yet).
    pub fn new() -> Self {
        HyStart {
            phase: Phase::SlowStart,
            window_end: 0,
            last_round_min: None,
            current_round_min: None,
            samples: 0,
            css_baseline: None,
        }
    }

    /// True until the initial slow start has ended (by CSS, a loss, an ECN echo or a timeout).
    pub fn active(&self) -> bool {
        self.phase != Phase::Over
    }

    /// True while in Conservative Slow Start.
    pub fn in_css(&self) -> bool {
        matches!(self.phase, Phase::Css { .. })
    }

    /// The initial slow start ended some other way (loss, ECN, RTO): HyStart++ is done (§4.3).
    pub fn finish(&mut self) {
        self.phase = Phase::Over;
    }

    /// An ACK advanced `snd_una` (to `snd_una`, with `snd_nxt` the next byte to send) during
    /// the initial slow start, with the RTT sample it gave, if any.
    pub fn on_ack(&mut self, snd_una: u64, snd_nxt: u64, rtt: Option<SimDuration>) -> Growth {
        if self.phase == Phase::Over {
            return Growth::SlowStart;
        }
        if snd_una >= self.window_end {
            // A round ended (or the first one starts).
            if let Phase::Css { rounds_done } = &mut self.phase {
                *rounds_done += 1;
                if *rounds_done >= CSS_ROUNDS {
                    self.phase = Phase::Over;
                    return Growth::EnterCongestionAvoidance;
                }
            }
            self.last_round_min = self.current_round_min;
            self.current_round_min = None;
            self.samples = 0;
            self.window_end = snd_nxt;
        }
        if let Some(r) = rtt {
            self.current_round_min = Some(self.current_round_min.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        if self.samples >= N_RTT_SAMPLE {
            let current = self.current_round_min.expect("samples were taken");
            match self.phase {
                Phase::SlowStart => {
                    if let Some(last) = self.last_round_min {
                        let thresh = SimDuration::from_nanos(last.as_nanos() / MIN_RTT_DIVISOR)
                            .clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                        if current >= last + thresh {
                            self.css_baseline = Some(current);
                            self.phase = Phase::Css { rounds_done: 0 };
                        }
                    }
                }
                Phase::Css { .. } => {
                    if self.css_baseline.is_some_and(|b| current < b) {
                        // The delay rise was spurious: resume slow start.
                        self.css_baseline = None;
                        self.phase = Phase::SlowStart;
                    }
                }
                Phase::Over => unreachable!("returned above"),
            }
        }
        if self.in_css() {
            Growth::Conservative
        } else {
            Growth::SlowStart
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    /// Feeds one round of `n` ACKs with RTT `rtt`: the first acknowledges `start` (the previous
    /// round's windowEnd, so it opens the round while `snd_nxt` is `end`), the others move
    /// `snd_una` towards `end`. Returns the growth of the last ACK fed.
    fn round(h: &mut HyStart, start: u64, end: u64, n: u64, rtt: SimDuration) -> Growth {
        let mut g = Growth::SlowStart;
        for i in 0..n {
            g = h.on_ack(start + (end - start) * i / n, end, Some(rtt));
            if g == Growth::EnterCongestionAvoidance {
                break;
            }
        }
        g
    }

    #[test]
    fn a_delay_rise_of_the_threshold_enters_css_and_css_rounds_end_it() {
        let mut h = HyStart::new();
        assert_eq!(round(&mut h, 0, 10_000, 10, ms(100)), Growth::SlowStart);
        // 112 ms < 100 ms + 12.5 ms (100/8): still slow start.
        assert_eq!(
            round(&mut h, 10_000, 20_000, 10, ms(112)),
            Growth::SlowStart
        );
        assert!(!h.in_css());
        // Threshold 14 ms (112/8): 126 ms >= 126 ms enters CSS once 8 samples are in.
        assert_eq!(
            round(&mut h, 20_000, 30_000, 10, ms(126)),
            Growth::Conservative
        );
        // The CSS rounds (RTT staying high): congestion avoidance when the fifth one ends.
        let mut start = 30_000;
        for r in 0..CSS_ROUNDS {
            let g = round(&mut h, start, start + 10_000, 10, ms(130));
            let want = if r + 1 < CSS_ROUNDS {
                Growth::Conservative
            } else {
                Growth::EnterCongestionAvoidance
            };
            assert_eq!(g, want, "CSS round {r}");
            start += 10_000;
        }
        assert!(!h.active());
        assert_eq!(
            h.on_ack(start + 1, start + 2, Some(ms(130))),
            Growth::SlowStart
        );
    }

    #[test]
    fn threshold_is_clamped_to_4_and_16_ms() {
        // Short RTT: 20 ms / 8 = 2.5 ms → 4 ms.
        let mut h = HyStart::new();
        round(&mut h, 0, 100, 8, ms(20));
        assert_eq!(round(&mut h, 100, 200, 8, ms(23)), Growth::SlowStart);
        let mut h = HyStart::new();
        round(&mut h, 0, 100, 8, ms(20));
        assert_eq!(round(&mut h, 100, 200, 8, ms(24)), Growth::Conservative);
        // Long RTT: 400 ms / 8 = 50 ms → 16 ms.
        let mut h = HyStart::new();
        round(&mut h, 0, 100, 8, ms(400));
        assert_eq!(round(&mut h, 100, 200, 8, ms(415)), Growth::SlowStart);
        let mut h = HyStart::new();
        round(&mut h, 0, 100, 8, ms(400));
        assert_eq!(round(&mut h, 100, 200, 8, ms(416)), Growth::Conservative);
    }

    #[test]
    fn fewer_than_eight_samples_never_exit() {
        let mut h = HyStart::new();
        round(&mut h, 0, 100, 8, ms(100));
        assert_eq!(round(&mut h, 100, 200, 7, ms(500)), Growth::SlowStart);
    }

    #[test]
    fn a_round_below_the_baseline_resumes_slow_start() {
        let mut h = HyStart::new();
        round(&mut h, 0, 100, 8, ms(100));
        assert_eq!(round(&mut h, 100, 200, 8, ms(120)), Growth::Conservative);
        // The next round's minimum (110 ms) is below the 120 ms baseline: spurious exit.
        assert_eq!(round(&mut h, 200, 400, 8, ms(110)), Growth::SlowStart);
        assert!(h.active() && !h.in_css());
    }

    #[test]
    fn finish_ends_it() {
        let mut h = HyStart::new();
        h.finish();
        assert!(!h.active());
        assert_eq!(h.on_ack(10, 20, Some(ms(500))), Growth::SlowStart);
    }
}
