//! TCP Prague (draft-briscoe-iccrg-prague-congestion-control; the L4STeam reference
//! `tcp_prague.c`, whose rules are followed here in aqmlab's byte-counted window).
//!
//! * **Feedback**: AccECN (RFC 9768). Each ACK reports the CE-marked packets it newly delivers
//!   ([`EcnFeedback::ce_packets`]). Prague's data is ECT(1) (the sender sets it) and paced.
//! * **α**: once per round (an RTT: `snd_una` passes the `snd_nxt` of the round's start),
//!   `α ← (1 − g)·α + g·F`, `F` = CE-marked / delivered packets in the round, `g` = 1/16, `α`
//!   from 1; not before the first CE mark (the reference's `saw_ce`: no AQM seen, no update).
//!   With RTT independence active, also not before one target RTT since the last update.
//! * **Reduction**: on a CE report (at most once per window of data, the sender's rule; with RTT
//!   independence active, at most once per target RTT): `cwnd ← cwnd·(1 − α/2)`, `ssthresh =
//!   cwnd`, at least 2 segments (the reference's `prague_enter_cwr`).
//! * **Growth**: slow start as Reno's; in congestion avoidance each ACK adds
//!   `ai · acked / cwnd` segments, counting only the bytes that were not CE-marked (the
//!   reference subtracts `ece_delta` from `acked_sacked`), whole segments as they accumulate.
//! * **RTT independence** (`RTT_CONTROL_RATE`, target 25 ms): after `rtt_transition` rounds of
//!   congestion avoidance, a flow whose smoothed RTT `R` is below the target `T` grows by
//!   `ai = (R/T)²` segments per RTT instead of 1 ([`ai_ack_increase`]): in segments per second,
//!   `(R/T)²/R` per RTT, `R/T²` per second of window change per RTT of `R`, i.e. the same rate
//!   of change of *rate* (`Δw/R` per `R`, `(R/T)²/R²` = `1/T²`) as a flow at `T`. At or above
//!   the target, or above 100 ms (the reference's `MAX_SCALED_RTT`), `ai` = 1.
//! * **Loss**: Reno's halving (`max(FlightSize/2, 2·SMSS)`), no growth until recovery ends;
//!   a timeout as Reno's.
//! * **Fallback**: without AccECN (the peer negotiated classic ECN or none), Prague is Reno
//!   (the reference switches to its `prague_reno` ops), and the sender sends ECT(0).
//! * **Classic ECN AQM detection** (draft §2.4.2, the reference's `classic_ecn` heuristic from
//!   the RTT's variation and the standing queue; [`ClassicEcnDetector`]): off by default, as
//!   the reference's `prague_ecn_fallback` = 0. Then a Prague flow behind a classic
//!   single-queue ECN AQM (a RED or PIE that marks ECT(1) like ECT(0)) takes more than its
//!   share against Reno or CUBIC, as L4S's "classic ECN bottleneck" concern says. With
//!   `ecn_fallback` = 1 a reduction uses at least the detector's classic α; with 2 the score is
//!   kept (`prague_classic_ecn` in the state trace) but not acted on.
//!
//! Where the reference works in fixed point (α in 2⁻²⁰, RTT in 128 µs units), this works in
//! `f64` and nanoseconds; the rounding differs in the last bits.

use super::prague_classic::ClassicEcnDetector;
use super::{half_flight, slow_start, AckEvent, Congestion, CongestionControl, EcnFeedback, Reno};
use crate::accecn::EcnMode;
use crate::config::PragueParams;
use aqmlab_core::{SimDuration, SimTime};

/// EWMA gain of α (`PRAGUE_SHIFT_G` 4).
const G: f64 = 1.0 / 16.0;

/// RTTs above this are not scaled (the reference's `MAX_SCALED_RTT`, 100 ms).
const MAX_SCALED_RTT: SimDuration = SimDuration::from_millis(100);

/// The additive increase, in segments per RTT, of a flow with smoothed RTT `srtt` once RTT
/// independence applies (`RTT_CONTROL_RATE`, the reference's `prague_rate_scaled_ai_ack_increase`):
/// `(srtt / target)²` below the target, 1 at or above it, 1 above 100 ms or without a target.
pub fn ai_ack_increase(srtt: SimDuration, target: SimDuration) -> f64 {
    if target.as_nanos() == 0 || srtt.as_nanos() == 0 || srtt > MAX_SCALED_RTT || srtt >= target {
        return 1.0;
    }
    let r = srtt.as_nanos() as f64 / target.as_nanos() as f64;
    r * r
}

/// TCP Prague state.
#[derive(Clone, Debug)]
pub struct Prague {
    p: PragueParams,
    /// `p.rtt_target_us` as a duration.
    target: SimDuration,
    mss: u64,
    /// The feedback mode; anything but AccECN makes this Reno.
    mode: EcnMode,
    /// Reno, for the fallback.
    reno: Reno,
    cwnd: u64,
    ssthresh: u64,
    /// Growth credit not yet applied, in bytes × `target²` (ns²): each ACK adds
    /// `acked · srtt²` (or `acked · target²` when `ai` = 1) and a segment is added per
    /// `cwnd · target²`, so `ai = (srtt/target)²` is applied exactly, in integers.
    acc: u128,
    alpha: f64,
    saw_ce: bool,
    in_loss: bool,
    /// Rounds of congestion avoidance so far.
    round: u32,
    /// `snd_una` that ends the current round; set by the first ACK.
    next_seq: Option<u64>,
    /// Packets delivered and CE-marked in the current round.
    delivered: u64,
    delivered_ce: u64,
    /// Bytes the last feedback reported CE-marked, not counted as growth by the next ACK.
    pending_ce_bytes: u64,
    alpha_stamp: SimTime,
    cwr_stamp: Option<SimTime>,
    srtt: Option<SimDuration>,
    reductions: u64,
    /// The classic-ECN-AQM detector, fed only with `p.ecn_fallback` > 0.
    classic: ClassicEcnDetector,
}

impl Prague {
    /// Prague with parameters `p`, initial window `initial_cwnd` bytes.
    pub fn new(p: PragueParams, mss: u64, initial_cwnd: u64) -> Self {
        Prague {
            p,
            target: SimDuration::from_micros(u64::from(p.rtt_target_us)),
            mss,
            mode: EcnMode::Accurate,
            reno: Reno::new(mss, initial_cwnd),
            cwnd: initial_cwnd,
            ssthresh: u64::MAX,
            acc: 0,
            alpha: 1.0,
            saw_ce: false,
            in_loss: false,
            round: 0,
            next_seq: None,
            delivered: 0,
            delivered_ce: 0,
            pending_ce_bytes: 0,
            alpha_stamp: SimTime::ZERO,
            cwr_stamp: None,
            srtt: None,
            reductions: 0,
            classic: ClassicEcnDetector::new(),
        }
    }

    /// The marking estimate `α`.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The classic-ECN detector's score (0 without detection).
    pub fn classic_ecn(&self) -> f64 {
        self.classic.score()
    }

    /// True while the peer's feedback is AccECN (not fallen back to Reno).
    pub fn is_scalable(&self) -> bool {
        self.mode == EcnMode::Accurate
    }

    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// RTT independence applies: a target is set, congestion avoidance, and enough rounds.
    fn rtt_indep(&self) -> bool {
        self.target.as_nanos() > 0 && !self.in_slow_start() && self.round >= self.p.rtt_transition
    }

    /// The current increase per RTT in segments.
    pub fn ai(&self) -> f64 {
        let (num, den) = self.ai_ratio();
        num as f64 / den as f64
    }

    /// [`Prague::ai`] as the exact ratio `(num, target²)` in ns².
    fn ai_ratio(&self) -> (u128, u128) {
        let t = u128::from(self.target.as_nanos()).max(1);
        let den = t * t;
        match self.srtt {
            Some(r) if self.round >= self.p.rtt_transition => {
                if ai_ack_increase(r, self.target) < 1.0 {
                    let r = u128::from(r.as_nanos());
                    (r * r, den)
                } else {
                    (den, den)
                }
            }
            _ => (den, den),
        }
    }

    fn new_round(&mut self, snd_nxt: u64) {
        self.next_seq = Some(snd_nxt);
        self.delivered = 0;
        self.delivered_ce = 0;
        if !self.in_slow_start() {
            self.round = self.round.saturating_add(1);
        }
    }
}

impl CongestionControl for Prague {
    fn cwnd(&self) -> u64 {
        if self.is_scalable() {
            self.cwnd
        } else {
            self.reno.cwnd()
        }
    }
    fn ssthresh(&self) -> u64 {
        if self.is_scalable() {
            self.ssthresh
        } else {
            self.reno.ssthresh()
        }
    }
    fn on_ecn_mode(&mut self, mode: EcnMode) {
        self.mode = mode;
    }
    fn on_ecn_feedback(&mut self, fb: &EcnFeedback) {
        if !self.is_scalable() {
            return;
        }
        self.delivered += fb.delivered_packets;
        self.delivered_ce += fb.ce_packets;
        self.pending_ce_bytes += fb.marked_bytes;
        if fb.ce_packets > 0 {
            self.saw_ce = true;
        }
        let end = *self.next_seq.get_or_insert(fb.snd_nxt);
        if fb.snd_una < end {
            return;
        }
        if self.rtt_indep() && fb.now.saturating_since(self.alpha_stamp) < self.target {
            return; // the round goes on until a target RTT has passed
        }
        if self.saw_ce {
            if self.p.ecn_fallback > 0 {
                self.classic.on_round();
            }
            let f = self.delivered_ce as f64 / self.delivered.max(1) as f64;
            self.alpha = ((1.0 - G) * self.alpha + G * f).min(1.0);
            self.alpha_stamp = fb.now;
        }
        self.new_round(fb.snd_nxt);
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        if !self.is_scalable() {
            self.reno.on_ack(ev);
            return;
        }
        self.srtt = ev.srtt;
        if self.p.ecn_fallback > 0 {
            if let Some(r) = ev.rtt {
                self.classic.on_rtt_sample(r.as_nanos() as f64 / 1e3);
            }
        }
        let ce = self.pending_ce_bytes.min(ev.acked_bytes);
        self.pending_ce_bytes = 0;
        let mut acked = ev.acked_bytes - ce;
        if acked > 0 && !self.in_loss && ev.cwnd_limited {
            if self.in_slow_start() {
                acked = slow_start(&mut self.cwnd, self.ssthresh, acked, self.mss);
            }
            if acked > 0 {
                let (num, den) = self.ai_ratio();
                self.acc += u128::from(acked) * num;
                let one = u128::from(self.cwnd) * den;
                if self.acc >= one {
                    self.acc -= one;
                    self.cwnd += self.mss;
                }
            }
        }
    }
    fn on_congestion(&mut self, now: SimTime, flight_size: u64, kind: Congestion) {
        if !self.is_scalable() {
            self.reno.on_congestion(now, flight_size, kind);
            return;
        }
        match kind {
            Congestion::Ecn => {
                if self.rtt_indep()
                    && self
                        .cwr_stamp
                        .is_some_and(|t| now.saturating_since(t) < self.target)
                {
                    return;
                }
                self.cwr_stamp = Some(now);
                self.classic.on_reduction(self.ssthresh / self.mss);
                let alpha = if self.p.ecn_fallback == 1 {
                    self.classic.fallback_alpha(self.alpha)
                } else {
                    self.alpha
                };
                let w = (self.cwnd as f64 * (1.0 - alpha / 2.0)) as u64;
                self.cwnd = w.max(2 * self.mss);
                self.ssthresh = self.cwnd;
                self.reductions += 1;
            }
            Congestion::Loss => {
                self.classic.on_reduction(self.ssthresh / self.mss);
                self.ssthresh = half_flight(flight_size, self.mss);
                self.cwnd = self.ssthresh;
                self.acc = 0;
                self.in_loss = true;
            }
        }
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        self.in_loss = false;
        self.reno.on_recovery_exit(now);
    }
    fn on_rto(&mut self, now: SimTime, flight_size: Option<u64>) {
        if !self.is_scalable() {
            self.reno.on_rto(now, flight_size);
            return;
        }
        if let Some(f) = flight_size {
            self.ssthresh = half_flight(f, self.mss);
        }
        self.cwnd = self.mss;
        self.acc = 0;
        self.in_loss = false;
    }
    fn reset_initial_window(&mut self, cwnd: u64) {
        self.cwnd = cwnd;
        self.reno.reset_initial_window(cwnd);
    }
    fn exit_slow_start(&mut self, now: SimTime) {
        self.ssthresh = self.cwnd;
        self.reno.exit_slow_start(now);
    }
    fn set_initial_ssthresh(&mut self, ssthresh: u64) {
        self.ssthresh = ssthresh;
        self.reno.set_initial_ssthresh(ssthresh);
    }
    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        visit("prague_alpha", self.alpha);
        visit("prague_ai", self.ai());
        visit("prague_round", f64::from(self.round));
        visit("prague_scalable", f64::from(u8::from(self.is_scalable())));
        visit("prague_classic_ecn", self.classic.score());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    fn fb(now_ms: u64, pkts: u64, ce: u64, snd_una: u64, snd_nxt: u64) -> EcnFeedback {
        EcnFeedback {
            now: SimTime::ZERO + ms(now_ms),
            acked_bytes: pkts * MSS,
            delivered_bytes: pkts * MSS,
            marked_bytes: ce * MSS,
            delivered_packets: pkts,
            ce_packets: ce,
            ece: ce > 0,
            snd_una,
            snd_nxt,
        }
    }

    fn ack(bytes: u64, srtt_ms: u64) -> AckEvent {
        AckEvent {
            now: SimTime::ZERO,
            acked_bytes: bytes,
            rtt: None,
            srtt: Some(ms(srtt_ms)),
            snd_una: 0,
            snd_nxt: 0,
            in_flight: 0,
            cwnd_limited: true,
            mss: MSS,
        }
    }

    #[test]
    fn rtt_independent_increase_exact_values() {
        let t = ms(25);
        // (R/T)²: 12.5 ms → 1/4, 5 ms → 1/25, 20 ms → 0.64; at or above the target, 1.
        assert_eq!(ai_ack_increase(SimDuration::from_micros(12_500), t), 0.25);
        assert!((ai_ack_increase(ms(5), t) - 0.04).abs() < 1e-15);
        assert!((ai_ack_increase(ms(20), t) - 0.64).abs() < 1e-15);
        assert_eq!(ai_ack_increase(ms(25), t), 1.0);
        assert_eq!(ai_ack_increase(ms(80), t), 1.0);
        // Not scaled above 100 ms (even with a larger target) nor without a target.
        assert_eq!(ai_ack_increase(ms(150), ms(200)), 1.0);
        assert_eq!(ai_ack_increase(ms(5), SimDuration::ZERO), 1.0);
        // The point of it: windows grow by ai per RTT R, i.e. rates by ai/R per R, which is
        // 1/T per T for every R below T: a 5 ms flow's rate grows as fast as a 25 ms flow's.
        let rate_growth_per_s = |r: f64| ai_ack_increase(ms(r as u64), t) / (r * r);
        assert!((rate_growth_per_s(5.0) - rate_growth_per_s(25.0)).abs() < 1e-18);
    }

    #[test]
    fn growth_per_rtt_is_ai_segments_in_congestion_avoidance() {
        // 20-segment window in congestion avoidance, RTT 5 ms, past the transition: one
        // window of non-marked ACKs grows it by ai = (5/25)² = 0.04 segments; 25 windows by 1.
        let p = PragueParams {
            rtt_transition: 0,
            ..PragueParams::default()
        };
        let mut pr = Prague::new(p, MSS, 20 * MSS);
        pr.set_initial_ssthresh(20 * MSS);
        for _ in 0..20 {
            pr.on_ack(&ack(MSS, 5));
        }
        assert_eq!(pr.cwnd(), 20 * MSS);
        assert_eq!(pr.ai(), 0.04);
        for _ in 0..(24 * 20 - 1) {
            pr.on_ack(&ack(MSS, 5));
        }
        assert_eq!(
            pr.cwnd(),
            20 * MSS,
            "499 ACKs of one segment: 0.998 segments of credit"
        );
        pr.on_ack(&ack(MSS, 5));
        assert_eq!(
            pr.cwnd(),
            21 * MSS,
            "25 windows at 0.04 per window make one segment"
        );
        // At the target RTT, the same window grows by one segment per window (Reno).
        let mut at_target = Prague::new(p, MSS, 20 * MSS);
        at_target.set_initial_ssthresh(20 * MSS);
        for _ in 0..20 {
            at_target.on_ack(&ack(MSS, 25));
        }
        assert_eq!(at_target.cwnd(), 21 * MSS);
        // Before the transition (default 500 rounds), a window adds a full segment (Reno).
        let mut q = Prague::new(PragueParams::default(), MSS, 20 * MSS);
        q.set_initial_ssthresh(20 * MSS);
        for _ in 0..20 {
            q.on_ack(&ack(MSS, 5));
        }
        assert_eq!(q.cwnd(), 21 * MSS);
        // CE-marked bytes do not count as growth: a window whose every packet was marked
        // adds nothing.
        let mut m = Prague::new(p, MSS, 20 * MSS);
        m.set_initial_ssthresh(20 * MSS);
        for j in 1..=20 {
            m.on_ecn_feedback(&fb(0, 1, 1, j * MSS, 40 * MSS));
            m.on_ack(&ack(MSS, 30));
        }
        assert_eq!((m.cwnd(), m.acc), (20 * MSS, 0));
    }

    #[test]
    fn alpha_ewma_per_round_exact_values() {
        // Rounds end when snd_una reaches the snd_nxt at the round's start; the first ends at
        // the first ACK's snd_nxt (10 000). No target-RTT gate (slow start: not RTT-independent).
        let mut pr = Prague::new(PragueParams::default(), MSS, 10 * MSS);
        // Round 1: 10 packets, none marked, no CE seen yet: α stays 1 (no AQM seen).
        for j in 1..=10 {
            pr.on_ecn_feedback(&fb(j, 1, 0, j * MSS, (j + 9) * MSS));
        }
        assert_eq!(pr.alpha(), 1.0);
        // Round 2 (ends at snd_una 19 000): 9 packets, 3 marked: α = 15/16 + (1/16)(1/3).
        for j in 11..=19 {
            let ce = u64::from(j <= 13);
            pr.on_ecn_feedback(&fb(j, 1, ce, j * MSS, (j + 9) * MSS));
        }
        let a2 = 15.0 / 16.0 + 1.0 / 48.0;
        assert!((pr.alpha() - a2).abs() < 1e-15, "{}", pr.alpha());
        // Round 3 (to 28 000): no marks: α = (15/16)·α₂.
        for j in 20..=28 {
            pr.on_ecn_feedback(&fb(j, 1, 0, j * MSS, (j + 9) * MSS));
        }
        assert!((pr.alpha() - 15.0 / 16.0 * a2).abs() < 1e-15);
        // Round 4: two ACKs of 4 and 5 packets, all 9 marked: F = 1 counted in packets.
        pr.on_ecn_feedback(&fb(30, 4, 4, 32 * MSS, 41 * MSS));
        pr.on_ecn_feedback(&fb(31, 5, 5, 37 * MSS, 46 * MSS));
        let a4 = 15.0 / 16.0 * (15.0 / 16.0 * a2) + 1.0 / 16.0;
        assert!((pr.alpha() - a4).abs() < 1e-15);
    }

    #[test]
    fn reduction_by_half_alpha_and_loss_halving() {
        let mut pr = Prague::new(PragueParams::default(), MSS, 40 * MSS);
        pr.alpha = 0.25;
        pr.on_congestion(SimTime::ZERO, 40 * MSS, Congestion::Ecn);
        assert_eq!((pr.cwnd(), pr.ssthresh()), (35_000, 35_000));
        // Loss: Reno's half of the flight size.
        pr.on_congestion(SimTime::ZERO, 30 * MSS, Congestion::Loss);
        assert_eq!((pr.cwnd(), pr.ssthresh()), (15_000, 15_000));
        // No growth in recovery.
        pr.on_ack(&ack(15 * MSS, 30));
        assert_eq!(pr.cwnd(), 15_000);
        pr.on_recovery_exit(SimTime::ZERO);
        for _ in 0..15 {
            pr.on_ack(&ack(MSS, 30));
        }
        assert_eq!(pr.cwnd(), 16_000);
    }

    #[test]
    fn rtt_independent_flows_reduce_at_most_once_per_target() {
        let p = PragueParams {
            rtt_transition: 0,
            ..PragueParams::default()
        };
        let mut pr = Prague::new(p, MSS, 40 * MSS);
        pr.set_initial_ssthresh(40 * MSS);
        pr.alpha = 0.5;
        let at = |x| SimTime::ZERO + ms(x);
        pr.on_congestion(at(100), 40 * MSS, Congestion::Ecn);
        assert_eq!(pr.cwnd(), 30_000);
        pr.on_congestion(at(110), 30 * MSS, Congestion::Ecn);
        assert_eq!(
            pr.cwnd(),
            30_000,
            "10 ms later, inside the 25 ms target: ignored"
        );
        pr.on_congestion(at(125), 30 * MSS, Congestion::Ecn);
        assert_eq!(pr.cwnd(), 22_500);
    }

    #[test]
    fn falls_back_to_reno_without_accecn() {
        for mode in [EcnMode::Classic, EcnMode::Off] {
            let mut pr = Prague::new(PragueParams::default(), MSS, 40 * MSS);
            pr.on_ecn_mode(mode);
            pr.alpha = 0.1;
            // A classic ECN echo halves (RFC 3168 §6.1.2), whatever α.
            pr.on_congestion(SimTime::ZERO, 40 * MSS, Congestion::Ecn);
            assert_eq!(pr.cwnd(), 20 * MSS);
            assert!(!pr.is_scalable());
        }
    }
}
