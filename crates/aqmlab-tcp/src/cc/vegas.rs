//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 13(8), 1995), modelled on ns-2's `Agent/TCP/Vegas`.
//!
//! Once per round trip — when the cumulative ACK passes the first byte sent after the previous
//! decision (`beg_seq`) — Vegas compares
//!
//! * `expected = W / BaseRTT` (what the window in use, `W`, would deliver with empty queues) and
//! * `actual = W / RTT`, with RTT the mean of the round's Karn-valid samples (or the round's
//!   duration if there were none),
//!
//! and turns the difference into packets queued in the network:
//! `δ = round((expected − actual)·BaseRTT)` packets `= W·(RTT − BaseRTT)/RTT`. `BaseRTT` is the
//! minimum RTT ever sampled.
//!
//! * Congestion avoidance: `δ > β` → `cwnd −= 1 segment`; `δ < α` → grow one segment over the next
//!   RTT; otherwise hold.
//! * Slow start: the window grows only every other RTT; when `δ > γ` Vegas leaves slow start
//!   (`ssthresh` = 2 segments) and trims `cwnd` by 1/8, as ns-2.
//! * Increases happen only while `cwnd − W ≤ 2` segments (ns-2's guard against growing a window
//!   the sender is not using).
//! * Loss (fast retransmit) and ECN: `cwnd = max(¾·cwnd, 2 segments)`, `ssthresh = cwnd` (the
//!   paper's and ns-2's 1/4 decrease; recovery continues in congestion avoidance).
//! * RTO: `ssthresh = max(FlightSize/2, 2·SMSS)`, `cwnd = 2` segments (ns-2 `v_slowstart_`).
//!
//! `W` is the flight size just before the ACK (`snd_nxt − snd_una + acked`), i.e. the paper's
//! "WindowSize" when the sender is window-limited. ns-2 uses the flight size *after* the ACK for
//! `expected` and the segments sent since the round began for `actual`; with delayed ACKs the
//! round boundary falls inside an ACKed pair, which biases `δ` by ±1–2 packets, and ns-2's
//! `cwnd − flight ≤ 2` growth guard stops growth for good once `cwnd` is fractional. Using `W`
//! for both rates removes those artefacts (in steady state the values agree).
//!
//! Delayed ACKs still matter: every ACK then releases two back-to-back segments, so every RTT
//! sample carries one packet of self-queueing that the `BaseRTT` of a lone segment does not.
//! Vegas reads that as `W·tx/RTT` packets of queue and may stop growing below the BDP (at
//! 10 Mb/s and 50 ms it settles near 70 % utilization). ns-2's Vegas runs are normally done with
//! the per-packet `TCPSink`, i.e. `delayed_ack = false`, which is what the tests use.
//!
//! Other deviations from ns-2: windows are in bytes with byte counting (one segment per RTT regardless
//! of delayed ACKs; ns-2 adds `1/cwnd` per ACK); ns-2's fine-grained Vegas retransmission timer
//! (early retransmit on the first dupACK) is not modelled — loss recovery is the sender's
//! ordinary SACK/NewReno machinery.

use super::{half_flight, AckEvent, Congestion, CongestionControl};
use crate::config::VegasParams;
use aqmlab_core::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Incr {
    Hold,
    SlowStart,
    Linear,
}

/// Vegas state.
#[derive(Clone, Debug)]
pub struct Vegas {
    p: VegasParams,
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    base_rtt: Option<SimDuration>,
    beg_seq: u64,
    beg_time: SimTime,
    started: bool,
    sum_rtt: u64,
    cnt_rtt: u32,
    inc_flag: bool,
    incr: Incr,
    ca_acc: u64,
    last_delta: i64,
}

impl Vegas {
    /// A Vegas controller with initial window `initial_cwnd` bytes.
    pub fn new(p: VegasParams, mss: u64, initial_cwnd: u64) -> Self {
        Vegas {
            p,
            mss,
            cwnd: initial_cwnd,
            ssthresh: u64::MAX,
            base_rtt: None,
            beg_seq: 0,
            beg_time: SimTime::ZERO,
            started: false,
            sum_rtt: 0,
            cnt_rtt: 0,
            // ns-2 starts with v_inc_flag_ = 1 and toggles before use, so the first round holds.
            inc_flag: true,
            incr: Incr::SlowStart,
            ca_acc: 0,
            last_delta: 0,
        }
    }

    /// Minimum RTT seen.
    pub fn base_rtt(&self) -> Option<SimDuration> {
        self.base_rtt
    }

    /// The last `δ` (packets queued) computed.
    pub fn last_delta(&self) -> i64 {
        self.last_delta
    }

    fn end_of_round(&mut self, ev: &AckEvent) {
        let rtt_ns = if self.cnt_rtt > 0 {
            self.sum_rtt / u64::from(self.cnt_rtt)
        } else {
            ev.now.saturating_since(self.beg_time).as_nanos()
        };
        self.sum_rtt = 0;
        self.cnt_rtt = 0;
        let Some(base) = self.base_rtt else { return };
        if rtt_ns == 0 || base.as_nanos() == 0 {
            return;
        }
        let base_s = base.as_secs_f64();
        let rtt_s = rtt_ns as f64 * 1e-9;
        let mss = self.mss as f64;
        // The window in use when the ACK arrived (before it freed `acked_bytes`).
        let window = (ev.snd_nxt.saturating_sub(ev.snd_una) + ev.acked_bytes) as f64 / mss;
        let expected = window / base_s;
        let actual = window / rtt_s;
        let delta = ((expected - actual) * base_s + 0.5).floor() as i64;
        self.last_delta = delta;
        if self.cwnd < self.ssthresh {
            self.inc_flag = !self.inc_flag;
            if !self.inc_flag {
                self.incr = Incr::Hold;
            } else if delta > i64::from(self.p.gamma) {
                self.ssthresh = 2 * self.mss;
                self.cwnd = (self.cwnd - self.cwnd / 8).max(2 * self.mss);
                self.incr = Incr::Hold;
            } else {
                self.incr = Incr::SlowStart;
            }
        } else if delta > i64::from(self.p.beta) {
            self.cwnd = self.cwnd.saturating_sub(self.mss).max(2 * self.mss);
            self.incr = Incr::Hold;
        } else if delta < i64::from(self.p.alpha) {
            self.incr = Incr::Linear;
        } else {
            self.incr = Incr::Hold;
        }
    }
}

impl CongestionControl for Vegas {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        if let Some(r) = ev.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.sum_rtt += r.as_nanos();
            self.cnt_rtt += 1;
        }
        if !self.started {
            self.started = true;
            self.beg_seq = ev.snd_nxt;
            self.beg_time = ev.now;
        } else if ev.snd_una >= self.beg_seq {
            self.end_of_round(ev);
            self.beg_seq = ev.snd_nxt;
            self.beg_time = ev.now;
        }
        if self.incr == Incr::SlowStart && self.cwnd >= self.ssthresh {
            self.incr = Incr::Hold;
        }
        let in_use = ev.snd_nxt.saturating_sub(ev.snd_una) + ev.acked_bytes;
        if self.incr == Incr::Hold || self.cwnd.saturating_sub(in_use) > 2 * self.mss {
            return;
        }
        match self.incr {
            Incr::SlowStart => self.cwnd += ev.acked_bytes.min(2 * self.mss),
            Incr::Linear => {
                self.ca_acc += ev.acked_bytes;
                if self.ca_acc >= self.cwnd {
                    self.ca_acc -= self.cwnd;
                    self.cwnd += self.mss;
                }
            }
            Incr::Hold => {}
        }
    }
    fn on_congestion(&mut self, _now: SimTime, _flight_size: u64, _kind: Congestion) {
        self.cwnd = (self.cwnd - self.cwnd / 4).max(2 * self.mss);
        self.ssthresh = self.cwnd;
        self.incr = Incr::Hold;
        self.ca_acc = 0;
    }
    fn on_rto(&mut self, _now: SimTime, flight_size: Option<u64>) {
        if let Some(f) = flight_size {
            self.ssthresh = half_flight(f, self.mss);
        }
        self.cwnd = 2 * self.mss;
        self.incr = Incr::SlowStart;
        self.inc_flag = true;
        self.ca_acc = 0;
    }
    fn reset_initial_window(&mut self, cwnd: u64) {
        self.cwnd = cwnd;
    }
    fn set_initial_ssthresh(&mut self, ssthresh: u64) {
        self.ssthresh = ssthresh;
    }
    fn exit_slow_start(&mut self, _now: SimTime) {
        // Vegas leaves slow start by its own rule; HyStart++ is refused for it (config).
        self.ssthresh = self.cwnd;
    }
    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        visit(
            "vegas_base_rtt_s",
            self.base_rtt.map_or(f64::NAN, |b| b.as_secs_f64()),
        );
        visit("vegas_delta_pkts", self.last_delta as f64);
    }
}
