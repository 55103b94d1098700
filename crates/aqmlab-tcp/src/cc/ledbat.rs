//! LEDBAT, Low Extra Delay Background Transport (RFC 6817 §2.4.2, the sender's pseudo-code).
//!
//! * Delay samples ([`CongestionControl::on_delay_sample`]): one per ACK that advances
//!   `snd_una`, the receiver's timestamp less the echoed one (RFC 7323; the simulation's clocks
//!   agree, so this is the one-way delay plus any delayed-ACK hold). Each sample enters the
//!   current filter (the last `CURRENT_FILTER` samples; FILTER is their minimum, §3.4.2) and
//!   the base history (`BASE_HISTORY` one-minute minima: a new entry when the minute changes,
//!   else the last entry's minimum, §2.4.2 `update_base_delay`).
//! * Per ACK, once a sample exists: `queuing_delay = FILTER(current) − MIN(base)`,
//!   `off_target = (TARGET − queuing_delay) / TARGET`,
//!   `cwnd += GAIN · off_target · bytes_newly_acked · MSS / cwnd`, then
//!   `cwnd = min(cwnd, flightsize + ALLOWED_INCREASE·MSS)` (flightsize before the ACK,
//!   ALLOWED_INCREASE = 1 by default, [`LedbatParams::allowed_increase`]) and `cwnd = max(cwnd, MIN_CWND·MSS)`. The window shrinks when the
//!   queueing delay exceeds the target.
//! * Loss (once per window of data, the sender's recovery): `cwnd = min(cwnd, max(cwnd/2,
//!   MIN_CWND·MSS))`; a timeout: one segment (§2.4.2).
//! * Slow start (not in RFC 6817; ns-3 `TcpLedbat`'s default `SSParam`): Reno's slow start until
//!   the window first reaches `ssthresh` or a loss, never again afterwards. Before the first
//!   delay sample, congestion avoidance is Reno's (one segment per window), as ns-3's.

use super::{half_flight, slow_start, AckEvent, Congestion, CongestionControl};
use crate::config::LedbatParams;
use aqmlab_core::{SimDuration, SimTime};

/// One minute: the base history's granularity (RFC 6817 §2.4.2 `round_to_minute`).
const MINUTE_NS: u64 = 60_000_000_000;
/// The longest current filter or base history kept (fixed arrays: nothing allocates per ACK).
const MAX_SAMPLES: usize = 16;

/// A ring of the last `len` values (at most [`MAX_SAMPLES`]).
#[derive(Clone, Debug)]
struct Ring {
    vals: [SimDuration; MAX_SAMPLES],
    len: usize,
    n: usize,
    next: usize,
}

impl Ring {
    fn new(len: usize) -> Self {
        Ring {
            vals: [SimDuration::ZERO; MAX_SAMPLES],
            len: len.clamp(1, MAX_SAMPLES),
            n: 0,
            next: 0,
        }
    }
    fn push(&mut self, v: SimDuration) {
        self.vals[self.next] = v;
        self.next = (self.next + 1) % self.len;
        self.n = (self.n + 1).min(self.len);
    }
    /// The newest value, made the minimum of itself and `v`.
    fn lower_last(&mut self, v: SimDuration) {
        let last = (self.next + self.len - 1) % self.len;
        self.vals[last] = self.vals[last].min(v);
    }
    fn min(&self) -> Option<SimDuration> {
        self.vals[..self.n].iter().copied().min()
    }
}

/// LEDBAT state.
#[derive(Clone, Debug)]
pub struct Ledbat {
    p: LedbatParams,
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Fractional window growth not yet applied (bytes; may be negative).
    carry: f64,
    /// Reno byte counting before the first delay sample.
    bytes_acked: u64,
    /// Still allowed to slow start (cleared for good when it first stops).
    can_slow_start: bool,
    current: Ring,
    base: Ring,
    /// The minute of the last base-history rollover.
    last_minute: Option<u64>,
}

impl Ledbat {
    /// LEDBAT with parameters `p`, initial window `initial_cwnd` bytes.
    pub fn new(p: LedbatParams, mss: u64, initial_cwnd: u64) -> Self {
        Ledbat {
            p,
            mss,
            cwnd: initial_cwnd,
            ssthresh: u64::MAX,
            carry: 0.0,
            bytes_acked: 0,
            can_slow_start: p.slow_start,
            current: Ring::new(usize::from(p.current_filter)),
            base: Ring::new(usize::from(p.base_history)),
            last_minute: None,
        }
    }

    /// `FILTER(current_delays) − MIN(base_delays)`, once a sample exists (never negative: the
    /// base is a minimum over every sample, the current ones included).
    pub fn queuing_delay(&self) -> Option<SimDuration> {
        let (cur, base) = (self.current.min()?, self.base.min()?);
        Some(SimDuration::from_nanos(
            cur.as_nanos().saturating_sub(base.as_nanos()),
        ))
    }

    fn min_cwnd(&self) -> u64 {
        u64::from(self.p.min_cwnd_segments) * self.mss
    }
}

impl CongestionControl for Ledbat {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    fn on_delay_sample(&mut self, now: SimTime, owd: SimDuration) {
        self.current.push(owd);
        let minute = now.as_nanos() / MINUTE_NS;
        if self.last_minute != Some(minute) {
            self.last_minute = Some(minute);
            self.base.push(owd);
        } else {
            self.base.lower_last(owd);
        }
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        let mut acked = ev.acked_bytes;
        if self.can_slow_start && self.cwnd < self.ssthresh {
            if !ev.cwnd_limited {
                return;
            }
            acked = slow_start(&mut self.cwnd, self.ssthresh, acked, self.mss);
            if acked == 0 {
                return;
            }
        }
        self.can_slow_start = false;
        let Some(qd) = self.queuing_delay() else {
            // No delay sample yet: Reno's congestion avoidance.
            if ev.cwnd_limited {
                self.bytes_acked += acked;
                if self.bytes_acked >= self.cwnd {
                    self.bytes_acked -= self.cwnd;
                    self.cwnd += self.mss;
                }
            }
            return;
        };
        let target = f64::from(self.p.target_us) / 1e6;
        let off_target = (target - qd.as_secs_f64()) / target;
        self.carry +=
            f64::from(self.p.gain) * off_target * acked as f64 * self.mss as f64 / self.cwnd as f64;
        let whole = self.carry.trunc();
        self.carry -= whole;
        let mut cwnd = (self.cwnd as f64 + whole).max(0.0) as u64;
        let flight_before = ev.snd_nxt.saturating_sub(ev.snd_una) + ev.acked_bytes;
        let allowance = (f64::from(self.p.allowed_increase) * self.mss as f64) as u64;
        cwnd = cwnd.min(flight_before + allowance);
        self.cwnd = cwnd.max(self.min_cwnd());
    }
    fn on_congestion(&mut self, _now: SimTime, _flight_size: u64, _kind: Congestion) {
        self.cwnd = self.cwnd.min((self.cwnd / 2).max(self.min_cwnd()));
        self.ssthresh = self.cwnd;
        self.can_slow_start = false;
        self.carry = 0.0;
    }
    fn on_rto(&mut self, _now: SimTime, flight_size: Option<u64>) {
        if let Some(f) = flight_size {
            self.ssthresh = half_flight(f, self.mss);
        }
        self.cwnd = self.mss;
        self.carry = 0.0;
    }
    fn reset_initial_window(&mut self, cwnd: u64) {
        self.cwnd = cwnd;
    }
    fn exit_slow_start(&mut self, _now: SimTime) {
        self.ssthresh = self.cwnd;
        self.can_slow_start = false;
    }
    fn set_initial_ssthresh(&mut self, ssthresh: u64) {
        self.ssthresh = ssthresh;
    }
    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        if let Some(q) = self.queuing_delay() {
            visit("ledbat_queuing_delay_s", q.as_secs_f64());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    fn ack(acked: u64, snd_una: u64, snd_nxt: u64) -> AckEvent {
        AckEvent {
            now: SimTime::ZERO,
            acked_bytes: acked,
            rtt: None,
            srtt: None,
            snd_una,
            snd_nxt,
            in_flight: snd_nxt - snd_una,
            cwnd_limited: true,
            mss: MSS,
        }
    }

    fn params(target_ms: u32, gain: f32) -> LedbatParams {
        LedbatParams {
            target_us: target_ms * 1000,
            gain,
            slow_start: false,
            ..LedbatParams::default()
        }
    }

    #[test]
    fn growth_follows_the_off_target_fraction() {
        // Base 40 ms, current 65 ms: queuing delay 25 ms of a 100-ms target, off_target 0.75;
        // GAIN 1, 2000 bytes acked at cwnd 10000: cwnd += 0.75 · 2000 · 1000 / 10000 = 150.
        let mut l = Ledbat::new(params(100, 1.0), MSS, 10_000);
        l.on_delay_sample(SimTime::ZERO, ms(40));
        for _ in 0..4 {
            l.on_delay_sample(SimTime::ZERO, ms(65));
        }
        assert_eq!(l.queuing_delay(), Some(ms(25)));
        l.on_ack(&ack(2000, 2000, 20_000));
        assert_eq!(l.cwnd(), 10_150);
        // GAIN 10 at a 5-ms target: the same 25 ms is 4 targets above, off_target = −4:
        // cwnd −= 10 · 4 · 2000 · 1000 / 10000 = 8000, down to 2000, the MIN_CWND floor.
        let mut l = Ledbat::new(params(5, 10.0), MSS, 10_000);
        l.on_delay_sample(SimTime::ZERO, ms(40));
        for _ in 0..4 {
            l.on_delay_sample(SimTime::ZERO, ms(65));
        }
        l.on_ack(&ack(2000, 2000, 20_000));
        assert_eq!(l.cwnd(), 2000);
    }

    #[test]
    fn the_current_filter_is_the_minimum_of_the_last_samples() {
        let mut l = Ledbat::new(params(100, 1.0), MSS, 10_000);
        for d in [10, 50, 30, 70, 60, 80] {
            l.on_delay_sample(SimTime::ZERO, ms(d));
        }
        // Last four: 30, 70, 60, 80 → 30; base (one minute) 10.
        assert_eq!(l.queuing_delay(), Some(ms(20)));
        l.on_delay_sample(SimTime::ZERO, ms(90));
        // 70, 60, 80, 90 → 60.
        assert_eq!(l.queuing_delay(), Some(ms(50)));
    }

    #[test]
    fn the_base_history_forgets_after_ten_minutes() {
        // Minute 0: 10 ms; minutes 1-10: 40 ms. The 10-ms minute ages out of the ten kept.
        let mut l = Ledbat::new(params(100, 1.0), MSS, 10_000);
        l.on_delay_sample(SimTime::ZERO, ms(10));
        for m in 1..=9 {
            l.on_delay_sample(SimTime::from_nanos(m * MINUTE_NS), ms(40));
        }
        assert_eq!(l.base.min(), Some(ms(10)));
        l.on_delay_sample(SimTime::from_nanos(10 * MINUTE_NS), ms(40));
        assert_eq!(l.base.min(), Some(ms(40)));
        // Within a minute, a lower sample lowers that minute's entry.
        l.on_delay_sample(SimTime::from_nanos(10 * MINUTE_NS + 1), ms(35));
        assert_eq!(l.base.min(), Some(ms(35)));
    }

    #[test]
    fn growth_is_capped_by_the_flight_and_one_segment() {
        // No queueing (off_target 1) and a large ACK: the window may not exceed the flight
        // before the ACK (5000) plus ALLOWED_INCREASE (1000).
        let mut l = Ledbat::new(params(100, 1.0), MSS, 10_000);
        l.on_delay_sample(SimTime::ZERO, ms(40));
        l.on_ack(&ack(4000, 4000, 5000));
        assert_eq!(l.cwnd(), 6000);
    }

    #[test]
    fn loss_halves_once_with_the_floor_and_timeout_is_one_segment() {
        let mut l = Ledbat::new(params(100, 1.0), MSS, 10_000);
        l.on_congestion(SimTime::ZERO, 10_000, Congestion::Loss);
        assert_eq!((l.cwnd(), l.ssthresh()), (5000, 5000));
        let mut l = Ledbat::new(params(100, 1.0), MSS, 3000);
        l.on_congestion(SimTime::ZERO, 3000, Congestion::Loss);
        assert_eq!(l.cwnd(), 2000, "max(cwnd/2, MIN_CWND)");
        l.on_rto(SimTime::ZERO, Some(4000));
        assert_eq!((l.cwnd(), l.ssthresh()), (1000, 2000));
    }

    #[test]
    fn slow_start_once_then_never_again() {
        let p = LedbatParams {
            slow_start: true,
            ..params(100, 1.0)
        };
        let mut l = Ledbat::new(p, MSS, 2000);
        l.on_ack(&ack(2000, 2000, 4000));
        assert_eq!(l.cwnd(), 4000, "slow start: +2 segments");
        l.on_congestion(SimTime::ZERO, 4000, Congestion::Loss);
        l.set_initial_ssthresh(u64::MAX);
        l.on_delay_sample(SimTime::ZERO, ms(40));
        // off_target 1: +1 · 2000 · 1000 / 2000 = 1000, not slow start's 2000.
        l.on_ack(&ack(2000, 4000, 6000));
        assert_eq!(l.cwnd(), 3000);
    }
}
