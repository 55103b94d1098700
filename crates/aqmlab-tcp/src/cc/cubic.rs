//! CUBIC (RFC 9438).
//!
//! The specification is in real numbers with windows in segments and time in seconds, so the
//! window function is evaluated in `f64` from integer-ns times (`now - t_epoch`, converted only for
//! the formula); `cwnd` itself is kept in bytes with a fractional remainder.
//!
//! * §4.2: `W_cubic(t) = C·(t − K)³ + W_max`, `K = ∛((W_max − cwnd_epoch)/C)`, where `t` runs from
//!   `t_epoch`, the first ACK in congestion avoidance after a reduction. After a loss
//!   `cwnd_epoch = β·W_max`, so `K = ∛(W_max·(1 − β)/C)`. If `cwnd_epoch ≥ W_max` (no loss yet, or
//!   growth past `W_max` in slow start) `K = 0` and the curve is anchored at `cwnd_epoch`.
//! * §4.4–4.5: per ACK, `target = W_cubic(t + RTT)` clamped to `[cwnd, 1.5·cwnd]` and
//!   `cwnd += (target − cwnd)/cwnd` per acknowledged segment (RTT = SRTT).
//! * §4.3: Reno-friendly estimate `W_est` starts at `cwnd_epoch` and grows by
//!   `α_cubic · segments_acked / cwnd` with `α_cubic = 3(1 − β)/(1 + β)`, switching to 1 once
//!   `W_est ≥ cwnd_prior`. When `W_cubic(t) < W_est`, `cwnd` follows `W_est`. Deviation: we take
//!   `max(cwnd, W_est)` (as Linux) instead of assigning `W_est`, which could shrink `cwnd` when it
//!   was ahead on the `t + RTT` target.
//! * §4.6: on congestion `ssthresh = cwnd = max(β·cwnd, 2·SMSS)` (RFC 9438 allows `cwnd` in place of
//!   FlightSize; Linux does the same). ECN-Echo is handled as a loss (§4.6 last paragraph).
//! * §4.7: fast convergence: `W_max = cwnd·(1 + β)/2` if `cwnd < W_max` before the reduction.
//! * §4.8: on RTO, `ssthresh` as above, `cwnd` = 1 SMSS, and a new epoch starts after slow start.
//!   A timeout that follows a reduction with no ACK of new data in between (the timer's
//!   retransmission lost again, or a timeout during fast recovery) keeps `ssthresh` and `W_max`:
//!   §4.8 defers to RFC 5681, whose §3.1 holds `ssthresh` when a retransmission is lost again,
//!   and Linux's `tcp_enter_loss` likewise keeps it in recovery, and in a loss episode until an
//!   ACK resets the retransmission count (our flag: any ACK of new data). Reducing again would
//!   shrink from the one-segment window of the first timeout (`ssthresh` → 2 segments,
//!   `W_max` ≈ 1).
//! * Slow start is standard (RFC 5681 with byte counting, as [`super::Reno`]), with HyStart++ when
//!   configured ([`super::HyStart`], driven by the sender; §4.10 for the exit without a loss).
//!
//! With [`CubicParams::linux`], three things Linux's `tcp_cubic.c` does beyond the RFC, so that a
//! simulation can be set beside Linux's cubic (`aqmlab shell`):
//! * its HyStart ([`LinuxHyStart`]) ends slow start with `ssthresh = cwnd`, leaving `W_max`
//!   unset (not §4.10's `W_max = cwnd`);
//! * until the first reduction (`last_max_cwnd == 0`) the window grows by at least one segment
//!   per 20 acknowledged (`bictcp_update`: `if (ca->last_max_cwnd == 0 && ca->cnt > 20)
//!   ca->cnt = 20; /* increase cwnd 5% per RTT */`), where the cubic curve anchored at the
//!   window (`K = 0`) starts flat;
//! * a timeout clears `W_max` and the HyStart state (`bictcp_state` on `TCP_CA_Loss` calls
//!   `bictcp_reset`), so both apply again in the slow start after it.

use super::{slow_start, AckEvent, Congestion, CongestionControl, LinuxHyStart};
use crate::config::CubicParams;
use aqmlab_core::SimTime;

/// CUBIC state.
#[derive(Clone, Debug)]
pub struct Cubic {
    p: CubicParams,
    mss: u64,
    cwnd: u64,
    /// Fractional bytes of window growth not yet added to `cwnd`.
    frac: f64,
    ssthresh: u64,
    /// `W_max` in segments (0 until the first congestion event).
    w_max: f64,
    /// `cwnd` before the last reduction, in segments (`cwnd_prior`, §4.3).
    cwnd_prior: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch: Option<SimTime>,
    /// `K` in seconds.
    k: f64,
    /// The `W_max` of the current curve (equals `cwnd_epoch` when `K = 0`).
    origin: f64,
    /// `W_est` in segments.
    w_est: f64,
    /// A reduction (loss, ECN or timeout) has happened and no ACK of new data since: a timeout
    /// now belongs to the same congestion episode (§4.8).
    reduced_unacked: bool,
    /// Linux's HyStart ([`CubicParams::linux`] only).
    hystart: Option<Box<LinuxHyStart>>,
}

impl Cubic {
    /// A CUBIC controller with initial window `initial_cwnd` bytes.
    pub fn new(p: CubicParams, mss: u64, initial_cwnd: u64) -> Self {
        Cubic {
            p,
            mss,
            cwnd: initial_cwnd,
            frac: 0.0,
            ssthresh: u64::MAX,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            k: 0.0,
            origin: 0.0,
            w_est: 0.0,
            reduced_unacked: false,
            hystart: p.linux.then(|| Box::new(LinuxHyStart::new())),
        }
    }

    /// `W_cubic(t)` in segments for the current epoch (RFC 9438 eq. 1).
    pub fn w_cubic(&self, t_secs: f64) -> f64 {
        {
            let d = t_secs - self.k;
            self.p.c * d * d * d + self.origin
        }
    }

    /// `K` of the current epoch, seconds.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// `W_max` in segments.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    fn seg(&self, bytes: u64) -> f64 {
        bytes as f64 / self.mss as f64
    }

    fn reduce(&mut self) {
        let cwnd_seg = self.seg(self.cwnd);
        // §4.7 fast convergence.
        self.w_max = if self.p.fast_convergence && cwnd_seg < self.w_max {
            cwnd_seg * (1.0 + self.p.beta) / 2.0
        } else {
            cwnd_seg
        };
        self.cwnd_prior = cwnd_seg;
        // §4.6 multiplicative decrease.
        let reduced = (self.cwnd as f64 * self.p.beta) as u64;
        self.ssthresh = reduced.max(2 * self.mss);
        self.epoch = None;
        self.frac = 0.0;
        self.reduced_unacked = true;
    }

    /// Congestion-avoidance growth for `acked` bytes (RFC 9438 §4.2-4.5).
    fn grow(&mut self, ev: &AckEvent, acked: u64) {
        let cwnd_seg = self.seg(self.cwnd);
        let epoch = match self.epoch {
            Some(e) => e,
            None => {
                // §4.2: a new epoch starts with the first ACK in congestion avoidance.
                self.epoch = Some(ev.now);
                if cwnd_seg < self.w_max {
                    self.k = aqmlab_core::math::cbrt((self.w_max - cwnd_seg) / self.p.c);
                    self.origin = self.w_max;
                } else {
                    self.k = 0.0;
                    self.origin = cwnd_seg;
                }
                self.w_est = cwnd_seg;
                ev.now
            }
        };
        let t = ev.now.saturating_since(epoch).as_secs_f64();
        let rtt = ev.srtt.map_or(0.0, |r| r.as_secs_f64());
        let segs_acked = acked as f64 / self.mss as f64;

        // §4.3 Reno-friendly region.
        if self.p.reno_friendly {
            let b = self.p.beta;
            let alpha = if self.w_est >= self.cwnd_prior {
                1.0
            } else {
                3.0 * (1.0 - b) / (1.0 + b)
            };
            self.w_est += alpha * segs_acked / cwnd_seg;
            if self.w_cubic(t) < self.w_est {
                let est_bytes = (self.w_est * self.mss as f64) as u64;
                if est_bytes > self.cwnd {
                    self.cwnd = est_bytes;
                }
                return;
            }
        }

        // §4.4 concave / §4.5 convex regions.
        let target = self.w_cubic(t + rtt).clamp(cwnd_seg, 1.5 * cwnd_seg);
        let inc_bytes = (target - cwnd_seg) / cwnd_seg * segs_acked * self.mss as f64;
        self.frac += inc_bytes;
        let whole = self.frac.floor();
        self.frac -= whole;
        self.cwnd += whole as u64;
    }
}

impl CongestionControl for Cubic {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        self.reduced_unacked = false;
        if let Some(h) = &mut self.hystart {
            // `bictcp_acked` runs for every ACK, cwnd-limited or not.
            let cwnd_seg = self.cwnd as f64 / self.mss as f64;
            let in_ss = self.cwnd < self.ssthresh;
            if h.on_ack(ev.now, ev.rtt, ev.snd_una, ev.snd_nxt, cwnd_seg, in_ss) {
                self.ssthresh = self.cwnd;
            }
        }
        if !ev.cwnd_limited {
            return;
        }
        let mut acked = ev.acked_bytes;
        if self.cwnd < self.ssthresh {
            acked = slow_start(&mut self.cwnd, self.ssthresh, acked, self.mss);
            if acked == 0 {
                return;
            }
        }
        if self.p.linux && self.w_max == 0.0 {
            // At least one segment per 20 acknowledged until the first reduction.
            let floor = acked as f64 / 20.0;
            let before = self.cwnd as f64 + self.frac;
            self.grow(ev, acked);
            let short = before + floor - (self.cwnd as f64 + self.frac);
            if short > 0.0 {
                self.frac += short;
                let whole = self.frac.floor();
                self.frac -= whole;
                self.cwnd += whole as u64;
            }
            return;
        }
        self.grow(ev, acked);
    }
    fn on_congestion(&mut self, _now: SimTime, _flight_size: u64, _kind: Congestion) {
        self.reduce();
        self.cwnd = self.ssthresh;
    }
    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.reduced_unacked = false;
    }
    fn on_rto(&mut self, _now: SimTime, _flight_size: Option<u64>) {
        // CUBIC sizes its reduction from cwnd (§4.6), not from the sender's FlightSize, and
        // holds it by its own episode rule (any ACK of new data ends the episode, as Linux).
        if self.reduced_unacked {
            // The same episode (§4.8, RFC 5681 §3.1): ssthresh and W_max stay.
            self.epoch = None;
            self.frac = 0.0;
        } else {
            self.reduce();
        }
        self.cwnd = self.mss;
        if self.p.linux {
            // `bictcp_reset` on TCP_CA_Loss: no W_max, HyStart looks again.
            self.w_max = 0.0;
            self.hystart = Some(Box::new(LinuxHyStart::new()));
        }
    }
    fn reset_initial_window(&mut self, cwnd: u64) {
        self.cwnd = cwnd;
        // A restart after idle (RFC 5681 §4.1) starts a new epoch when congestion avoidance
        // resumes, as Linux shifts its epoch over an idle period.
        self.epoch = None;
        self.frac = 0.0;
    }
    fn set_initial_ssthresh(&mut self, ssthresh: u64) {
        self.ssthresh = ssthresh;
    }
    fn exit_slow_start(&mut self, _now: SimTime) {
        // §4.10: leaving the first slow start without a loss leaves W_max undefined; CUBIC sets
        // cwnd_prior = cwnd and starts a curve with K = 0 and W_max = cwnd at the start of
        // congestion avoidance (the epoch starts on the ACK that ends CSS, which the controller
        // handles right after this call).
        let cwnd_seg = self.seg(self.cwnd);
        self.ssthresh = self.cwnd;
        self.w_max = cwnd_seg;
        self.cwnd_prior = cwnd_seg;
        self.epoch = None;
        self.frac = 0.0;
    }
    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        visit("cubic_w_max", self.w_max);
        visit("cubic_k_s", self.k);
        visit("cubic_w_est", self.w_est);
        visit(
            "cubic_epoch_s",
            self.epoch.map_or(f64::NAN, |e| e.as_secs_f64()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqmlab_core::SimDuration;

    /// An ACK of one `mss`-byte segment at `now_s` seconds, window-limited, SRTT 100 ms.
    fn ack_at(now_s: u64, mss: u64) -> AckEvent {
        AckEvent {
            now: SimTime::from_secs(now_s),
            acked_bytes: mss,
            rtt: None,
            srtt: Some(SimDuration::from_millis(100)),
            snd_una: 0,
            snd_nxt: 0,
            in_flight: 0,
            cwnd_limited: true,
            mss,
        }
    }

    #[test]
    fn k_after_loss_matches_rfc_formula() {
        let mss = 1000;
        let mut c = Cubic::new(CubicParams::default(), mss, 100 * mss);
        c.on_congestion(SimTime::ZERO, 100 * mss, Congestion::Loss);
        assert_eq!(c.cwnd(), 70 * mss);
        assert_eq!(c.w_max(), 100.0);
        c.on_ack(&ack_at(1, mss));
        let k = aqmlab_core::math::cbrt(100.0f64 * 0.3 / 0.4);
        assert!((c.k() - k).abs() < 1e-12);
        assert!((c.w_cubic(c.k()) - 100.0).abs() < 1e-9);
        // A second loss below W_max triggers fast convergence.
        c.on_congestion(SimTime::from_secs(2), 70 * mss, Congestion::Loss);
        assert!((c.w_max() - 70.0 * 1.7 / 2.0).abs() < 0.05);
    }

    #[test]
    fn a_timeout_within_an_episode_keeps_ssthresh_and_w_max() {
        let mss = 1000;
        // Back-to-back timeouts: the second finds cwnd = 1 segment and must not reduce from it.
        let mut c = Cubic::new(CubicParams::default(), mss, 100 * mss);
        c.on_rto(SimTime::ZERO, Some(100 * mss));
        assert_eq!((c.cwnd(), c.ssthresh(), c.w_max()), (mss, 70 * mss, 100.0));
        c.on_rto(SimTime::from_secs(1), Some(100 * mss));
        assert_eq!((c.cwnd(), c.ssthresh(), c.w_max()), (mss, 70 * mss, 100.0));
        // Once new data is acknowledged, a later timeout is a new episode.
        c.on_ack(&ack_at(2, mss));
        assert_eq!(c.cwnd(), 2 * mss);
        c.on_rto(SimTime::from_secs(3), Some(2 * mss));
        assert_eq!(
            c.ssthresh(),
            2 * mss,
            "beta * 2 segments, floored at 2 segments"
        );
        assert!(c.w_max() < 100.0);

        // A timeout during fast recovery keeps the reduction the loss made.
        let mut c = Cubic::new(CubicParams::default(), mss, 100 * mss);
        c.on_congestion(SimTime::ZERO, 100 * mss, Congestion::Loss);
        c.on_rto(SimTime::from_secs(1), Some(100 * mss));
        assert_eq!((c.cwnd(), c.ssthresh(), c.w_max()), (mss, 70 * mss, 100.0));
        // After recovery ends, a timeout reduces again.
        let mut c = Cubic::new(CubicParams::default(), mss, 100 * mss);
        c.on_congestion(SimTime::ZERO, 100 * mss, Congestion::Loss);
        c.on_recovery_exit(SimTime::from_secs(1));
        c.on_rto(SimTime::from_secs(2), Some(70 * mss));
        assert_eq!(c.ssthresh(), 49 * mss);
    }

    #[test]
    fn linux_grows_at_least_five_percent_per_rtt_until_the_first_reduction() {
        let mss = 1000;
        let grown = |linux: bool, reduced_first: bool| {
            let p = CubicParams {
                linux,
                ..CubicParams::default()
            };
            let mut c = Cubic::new(p, mss, 100 * mss);
            if reduced_first {
                c.on_congestion(SimTime::ZERO, 0, Congestion::Loss);
                c.cwnd = 100 * mss;
                c.w_max = 100.0; // the curve sits at W_max: no growth of its own
            }
            c.set_initial_ssthresh(100 * mss);
            // One window of ACKs within the first 10 ms of congestion avoidance, where the
            // cubic curve anchored at the window is flat.
            for k in 0..100 {
                let mut ev = ack_at(0, mss);
                ev.now = SimTime::from_nanos(100_000 * k);
                ev.srtt = Some(SimDuration::from_millis(1));
                c.on_ack(&ev);
            }
            c.cwnd() as f64 / mss as f64
        };
        // 100 segments acknowledged: at least 5 more with Linux's floor, about 1 (Reno-friendly)
        // without it, and none of the floor once a reduction set W_max.
        assert!(grown(true, false) >= 105.0, "{}", grown(true, false));
        assert!(grown(false, false) < 102.0, "{}", grown(false, false));
        assert!(grown(true, true) < 102.0, "{}", grown(true, true));
    }
}
