//! Pacing (`pacing = true`): segments leave at most at `rate = ratio × max(cwnd, pipe) / srtt`,
//! with `ratio` 200 % while `cwnd < ssthresh / 2` (slow start) and 120 % otherwise: Linux's
//! `tcp_update_pacing_rate` (`tcp_pacing_ss_ratio`, `tcp_pacing_ca_ratio`) and ns-3's
//! `TcpSocketState` pacing (`PacingSsRatio`, `PacingCaRatio`).
//!
//! After each transmission of `len` payload bytes the next may leave no earlier than
//! `max(now, next) + len / rate` (Linux's `tcp_wstamp_ns` update), so an idle period earns no
//! burst credit. Until the first RTT sample there is no rate and nothing is paced (Linux divides
//! by `srtt` only once it has one; ns-3's `PaceInitialWindow` is off by default).

use aqmlab_core::{SimDuration, SimTime};

/// Linux's `tcp_pacing_ca_ratio`, percent.
pub(crate) const CA_RATIO_PCT: u64 = 120;

/// The pacing rate's ratio in percent: 200 in slow start (`cwnd < ssthresh / 2`), else
/// `ca_pct` (120, Linux's default; TCP Prague 100).
pub(crate) fn ratio_pct(cwnd: u64, ssthresh: u64, ca_pct: u64) -> u64 {
    if cwnd < ssthresh / 2 {
        200
    } else {
        ca_pct
    }
}

/// The time `len` bytes take at `ratio_pct` % of `window / srtt`: `len·srtt·100 /
/// (ratio_pct·window)`, in whole nanoseconds (rounded down).
pub(crate) fn gap(len: u64, window: u64, srtt: SimDuration, ratio_pct: u64) -> SimDuration {
    let den = u128::from(ratio_pct) * u128::from(window.max(1));
    let ns = u128::from(len) * u128::from(srtt.as_nanos()) * 100 / den;
    SimDuration::from_nanos(ns.min(u128::from(u64::MAX)) as u64)
}

/// When the next segment may leave.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Pacer {
    /// Earliest departure of the next segment.
    pub(super) next_at: SimTime,
    /// A transmission was held back until `next_at`: the sender's timer must wake it.
    pub(super) waiting: bool,
}

impl Pacer {
    /// True if a segment may leave at `now`; otherwise marks the sender as waiting.
    pub(super) fn may_send(&mut self, now: SimTime) -> bool {
        self.waiting = now < self.next_at;
        !self.waiting
    }

    /// A segment left at `now`; the next may leave `gap` after it (or after the previous
    /// departure time, if that is later).
    pub(super) fn on_sent(&mut self, now: SimTime, gap: SimDuration) {
        self.next_at = self.next_at.max(now) + gap;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_ratios_and_exact_gaps() {
        assert_eq!(ratio_pct(10, 40, CA_RATIO_PCT), 200);
        assert_eq!(
            ratio_pct(20, 40, CA_RATIO_PCT),
            120,
            "cwnd = ssthresh/2 is no longer slow start"
        );
        assert_eq!(ratio_pct(10, u64::MAX, 100), 200);
        assert_eq!(
            ratio_pct(20, 40, 100),
            100,
            "Prague: 100 % in congestion avoidance"
        );
        let srtt = SimDuration::from_millis(100);
        // 10 × 1460 B per 100 ms at 200 %: 292 000 B/s, 1460 B take 5 ms.
        assert_eq!(gap(1460, 14_600, srtt, 200), SimDuration::from_millis(5));
        // At 120 %: 175 200 B/s, 1460 B take 8.333… ms, rounded down to the nanosecond.
        assert_eq!(
            gap(1460, 14_600, srtt, 120),
            SimDuration::from_nanos(8_333_333)
        );
    }

    #[test]
    fn departures_are_spaced_and_idle_time_earns_no_credit() {
        let mut p = Pacer::default();
        let t0 = SimTime::from_millis(100);
        let g = SimDuration::from_millis(5);
        assert!(p.may_send(t0));
        p.on_sent(t0, g);
        assert!(!p.may_send(t0) && p.waiting);
        assert!(p.may_send(t0 + g));
        p.on_sent(t0 + g, g);
        assert_eq!(p.next_at, t0 + g + g);
        // After a second of silence the next departure is one gap after it, not earlier.
        let late = SimTime::from_secs(2);
        assert!(p.may_send(late));
        p.on_sent(late, g);
        assert_eq!(p.next_at, late + g);
    }
}
