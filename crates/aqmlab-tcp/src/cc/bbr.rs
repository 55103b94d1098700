//! BBR v1 (`cc = "bbr"`): Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR:
//! Congestion-Based Congestion Control", ACM Queue 14(5), 2016; draft-cardwell-iccrg-bbr-
//! congestion-control-00 (2017); Linux `net/ipv4/tcp_bbr.c`, whose arithmetic this follows.
//!
//! The model: `BtlBw`, the windowed maximum of the delivery-rate samples over the last 10
//! packet-timed round trips (draft §4.1.1), and `RTprop`, the minimum RTT over the last 10 s
//! (§4.1.2). From them the pacing rate, `pacing_gain × BtlBw` less Linux's 1 % margin
//! (§4.2.1; `bbr_pacing_margin_percent`), and the window, `cwnd_gain × BDP` plus the send
//! quantum's allowance (§4.2.3, `bbr_quantization_budget`). The state machine (§4.3):
//! * STARTUP, gains 2/ln 2, until three rounds in a row grow `BtlBw` by less than 25 %
//!   (§4.3.2.2, `bbr_check_full_bw_reached`);
//! * DRAIN, pacing gain ln 2/2, until the data in flight is at most one BDP (§4.3.3);
//! * PROBE_BW, cwnd gain 2, pacing gains cycling 5/4, 3/4, 1 ×6, each phase one `RTprop`
//!   long; 5/4 lasts until the flight reaches 5/4 BDP or a loss, 3/4 ends early once the
//!   flight is down to a BDP; the cycle starts at a random phase other than 3/4 (§4.3.4);
//! * PROBE_RTT, entered when `RTprop` has not been refreshed for 10 s: window 4 segments for
//!   200 ms and at least one round trip, then back to PROBE_BW (or STARTUP) (§4.3.5).
//!
//! Loss recovery as Linux's `bbr_set_cwnd_to_recover_or_restore`: the window drops by the data
//! newly marked lost, packet conservation (`cwnd ≥ in flight + delivered`) in the first round
//! of fast recovery, the window before the loss restored when recovery ends; a timeout sets the
//! window to one segment and clears the STARTUP growth baseline (`bbr_set_state`).
//! The ACK-aggregation allowance as Linux's `bbr_update_ack_aggregation` and
//! `bbr_ack_aggregation_cwnd`: once the pipe is full, the window's target grows by the largest
//! recent excess of data ACKed over what `BtlBw` predicts since the start of the current ACK
//! epoch (a max over two 5-round slots: the last 5-10 rounds), at most the window and at most
//! 100 ms of `BtlBw`.
//! Not modelled: Linux's long-term bandwidth (policer) estimate, idle restart.

use super::bbr_model::{
    bdp, send_quantum_segments, splitmix64, Pacing, ProbeRttStep, ProbeRttTimer, RecoveryWindow,
};
pub use super::bbr_model::{FULL_BW_COUNT, FULL_BW_THRESH, MIN_CWND_SEGMENTS};
use super::{AckEvent, Congestion, CongestionControl, RateSample};
use aqmlab_core::{SimDuration, SimTime};

/// STARTUP's gains: 2/ln 2 (§4.3.2.1), the smallest that doubles the sending rate per round.
pub const HIGH_GAIN: f64 = 2.0 / std::f64::consts::LN_2;
/// DRAIN's pacing gain, ln 2/2 (§4.3.3), the inverse of [`HIGH_GAIN`].
pub const DRAIN_GAIN: f64 = std::f64::consts::LN_2 / 2.0;
/// PROBE_BW's window gain (§4.3.4).
pub const CWND_GAIN: f64 = 2.0;
/// Length of the `RTprop` filter (§4.1.2.3).
pub const RTPROP_FILTER_LEN: SimDuration = super::bbr_model::MIN_RTT_FILTER_LEN;
/// PROBE_BW's pacing-gain cycle (§4.3.4.3).
pub const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// Length of the `BtlBw` filter in round trips (§4.1.1.3).
pub const BTL_BW_FILTER_ROUNDS: u64 = 10;
/// Rounds per slot of the ACK-aggregation max filter (Linux `bbr_extra_acked_win_rtts`); two
/// slots, so the filter remembers 5 to 10 rounds.
pub const EXTRA_ACKED_WIN_ROUNDS: u32 = 5;
/// The allowance is at most this much time at `BtlBw` (Linux `bbr_extra_acked_max_us`).
pub const EXTRA_ACKED_MAX: SimDuration = SimDuration::from_millis(100);
/// An ACK epoch that has counted this many segments starts again (Linux
/// `bbr_ack_epoch_acked_reset_thresh`).
pub const ACK_EPOCH_RESET_SEGMENTS: u64 = 1 << 20;

/// The state machine's states (§4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BbrMode {
    /// Filling the pipe.
    Startup,
    /// Draining the queue STARTUP built.
    Drain,
    /// Cruising, probing for bandwidth by the gain cycle.
    ProbeBw,
    /// Draining the queue to measure the minimum RTT.
    ProbeRtt,
}

/// BBR v1 state.
#[derive(Clone, Debug)]
pub struct Bbr {
    mss: u64,
    initial_cwnd: u64,
    cwnd: u64,
    mode: BbrMode,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Per-round maxima of the last [`BTL_BW_FILTER_ROUNDS`] rounds: `(round, bytes/s)`.
    bw_slots: [(u64, f64); BTL_BW_FILTER_ROUNDS as usize],
    round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    min_rtt: Option<SimDuration>,
    min_rtt_stamp: SimTime,
    probe_rtt: ProbeRttTimer,
    /// Rate samples of data sent before this delivered count are application-limited (the
    /// PROBE_RTT window limits them; Linux marks them so through `tp->app_limited`).
    app_limited_until: u64,
    full_bw: f64,
    full_bw_count: u32,
    full_bw_reached: bool,
    cycle_idx: usize,
    cycle_stamp: SimTime,
    pacing: Pacing,
    rec: RecoveryWindow,
    /// ACK aggregation (Linux `bbr->ack_epoch_mstamp`, `ack_epoch_acked`, `extra_acked[2]`,
    /// `extra_acked_win_rtts`, `extra_acked_win_idx`), counted in segments as Linux does.
    ack_epoch_start: SimTime,
    ack_epoch_acked: u64,
    extra_acked: [u64; 2],
    extra_acked_win_rounds: u32,
    extra_acked_idx: usize,
    /// Off only in tests (the counterfactual without the allowance).
    aggregation: bool,
}

impl Bbr {
    /// A controller for segments of `mss` bytes, starting with an `initial_cwnd`-byte window.
    pub fn new(mss: u64, initial_cwnd: u64) -> Self {
        Bbr {
            mss,
            initial_cwnd,
            cwnd: initial_cwnd,
            mode: BbrMode::Startup,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            bw_slots: [(0, 0.0); BTL_BW_FILTER_ROUNDS as usize],
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt: ProbeRttTimer::default(),
            app_limited_until: 0,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: SimTime::ZERO,
            pacing: Pacing::new(HIGH_GAIN, initial_cwnd),
            rec: RecoveryWindow::default(),
            ack_epoch_start: SimTime::ZERO,
            ack_epoch_acked: 0,
            extra_acked: [0; 2],
            extra_acked_win_rounds: 0,
            extra_acked_idx: 0,
            aggregation: true,
        }
    }

    /// The state.
    pub fn mode(&self) -> BbrMode {
        self.mode
    }
    /// The current pacing gain.
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }
    /// The current window gain.
    pub fn cwnd_gain(&self) -> f64 {
        self.cwnd_gain
    }
    /// `BtlBw`, bytes per second: the maximum sample of the last 10 rounds.
    pub fn btl_bw(&self) -> f64 {
        let lo = (self.round_count + 1).saturating_sub(BTL_BW_FILTER_ROUNDS);
        self.bw_slots
            .iter()
            .filter(|(r, _)| *r >= lo)
            .map(|(_, b)| *b)
            .fold(0.0, f64::max)
    }
    /// `RTprop`.
    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.min_rtt
    }
    /// Packet-timed round trips counted so far.
    pub fn round_count(&self) -> u64 {
        self.round_count
    }
    /// True once STARTUP found the pipe full.
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    /// `BDP × gain` in bytes, rounded up to whole segments (`bbr_bdp`); the initial window
    /// before any RTT sample.
    fn bdp(&self, bw: f64, gain: f64) -> u64 {
        bdp(bw, self.min_rtt, gain, self.mss, self.initial_cwnd)
    }

    /// `bbr_inflight` = `bbr_quantization_budget(bbr_bdp(bw, gain))`: three send quanta more,
    /// rounded up to an even number of segments, and two more in PROBE_BW's 5/4 phase.
    fn inflight(&self, bw: f64, gain: f64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_quantization_budget` of `bytes` (whole segments).
    fn quantization_budget(&self, bytes: u64) -> u64 {
        let mut segs = bytes.div_ceil(self.mss)
            + 3 * send_quantum_segments(self.pacing.rate().unwrap_or(0.0), self.mss);
        segs = (segs + 1) & !1;
        if self.mode == BbrMode::ProbeBw && self.cycle_idx == 0 {
            segs += 2;
        }
        segs * self.mss
    }

    fn min_cwnd(&self) -> u64 {
        MIN_CWND_SEGMENTS * self.mss
    }

    /// §4.1.1.5: round counting and the `BtlBw` filter (`bbr_update_bw`).
    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let Some(bw) = rs.delivery_rate else { return };
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = rs.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.rec.packet_conservation = false;
        }
        let app_limited = rs.app_limited || rs.prior_delivered < self.app_limited_until;
        if !app_limited || bw >= self.btl_bw() {
            let slot = &mut self.bw_slots[(self.round_count % BTL_BW_FILTER_ROUNDS) as usize];
            if slot.0 == self.round_count {
                slot.1 = slot.1.max(bw);
            } else {
                *slot = (self.round_count, bw);
            }
        }
    }

    /// The recent maximum excess of ACKed data, in segments (Linux `bbr_extra_acked`).
    pub fn extra_acked_segments(&self) -> u64 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// Linux `bbr_update_ack_aggregation`: an ACK epoch starts whenever the data ACKed since
    /// the last one falls to what `BtlBw` predicts over the time since (or after 2^20
    /// segments); the excess over the prediction, at most the window, feeds a max filter of two
    /// slots, the older cleared every [`EXTRA_ACKED_WIN_ROUNDS`] rounds. In segments, with
    /// the prediction rounded down, as Linux counts them.
    fn update_ack_aggregation(&mut self, rs: &RateSample) {
        if rs.newly_delivered == 0 || rs.delivery_rate.is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rounds = (self.extra_acked_win_rounds + 1).min(31);
            if self.extra_acked_win_rounds >= EXTRA_ACKED_WIN_ROUNDS {
                self.extra_acked_win_rounds = 0;
                self.extra_acked_idx ^= 1;
                self.extra_acked[self.extra_acked_idx] = 0;
            }
        }
        let acked = rs.newly_delivered.div_ceil(self.mss);
        // Linux counts the epoch in whole microseconds.
        let epoch_us = rs.now.saturating_since(self.ack_epoch_start).as_nanos() / 1000;
        let mut expected = self.segments_at_btl_bw(epoch_us);
        if self.ack_epoch_acked <= expected
            || self.ack_epoch_acked + acked >= ACK_EPOCH_RESET_SEGMENTS
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_start = rs.now;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + acked).min(ACK_EPOCH_RESET_SEGMENTS - 1);
        let extra = (self.ack_epoch_acked - expected).min(self.cwnd / self.mss);
        let slot = &mut self.extra_acked[self.extra_acked_idx];
        *slot = (*slot).max(extra);
    }

    /// Whole segments `BtlBw` delivers in `us` microseconds, rounded down.
    fn segments_at_btl_bw(&self, us: u64) -> u64 {
        (self.btl_bw() * us as f64 / (1e6 * self.mss as f64)) as u64
    }

    /// Linux `bbr_ack_aggregation_cwnd`: once the pipe is full, the recent excess, at most
    /// 100 ms of `BtlBw` (rounded down to segments); in bytes.
    fn ack_aggregation_cwnd(&self) -> u64 {
        if !self.aggregation || !self.full_bw_reached {
            return 0;
        }
        let cap = self.segments_at_btl_bw(EXTRA_ACKED_MAX.as_nanos() / 1000);
        self.extra_acked_segments().min(cap) * self.mss
    }

    /// `bbr_set_cwnd`'s target: BDP × `cwnd_gain` plus the ACK-aggregation allowance, then
    /// the quantization budget.
    fn target_cwnd(&self) -> u64 {
        self.quantization_budget(
            self.bdp(self.btl_bw(), self.cwnd_gain) + self.ack_aggregation_cwnd(),
        )
    }

    /// §4.3.4.4 (`bbr_is_next_cycle_phase`).
    fn is_next_cycle_phase(&self, rs: &RateSample) -> bool {
        let full_length = self
            .min_rtt
            .is_some_and(|m| rs.now.saturating_since(self.cycle_stamp) > m);
        let bw = self.btl_bw();
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        if self.pacing_gain > 1.0 {
            return full_length
                && (rs.newly_lost > 0
                    || rs.prior_in_flight >= self.inflight(bw, self.pacing_gain));
        }
        full_length || rs.prior_in_flight <= self.inflight(bw, 1.0)
    }

    fn advance_cycle_phase(&mut self, now: SimTime) {
        self.cycle_idx = (self.cycle_idx + 1) % PACING_GAIN_CYCLE.len();
        self.cycle_stamp = now;
    }

    /// §4.3.4.3: PROBE_BW starts at a random phase other than 3/4 (Linux: `cycle_idx = 7 −
    /// U{0..6}`, then one advance). The draw is a hash of the time and the delivered count,
    /// so the same run gives the same phase.
    fn enter_probe_bw(&mut self, now: SimTime, delivered: u64) {
        self.mode = BbrMode::ProbeBw;
        let r = (splitmix64(now.as_nanos() ^ delivered.rotate_left(32)) % 7) as usize;
        self.cycle_idx = PACING_GAIN_CYCLE.len() - 1 - r;
        self.advance_cycle_phase(now);
    }

    /// §4.3.2.2 (`bbr_check_full_bw_reached`).
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.app_limited {
            return;
        }
        let bw = self.btl_bw();
        if bw >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= FULL_BW_COUNT;
    }

    /// §4.3.3 (`bbr_check_drain`).
    fn check_drain(&mut self, rs: &RateSample) {
        if self.mode == BbrMode::Startup && self.full_bw_reached {
            self.mode = BbrMode::Drain;
        }
        if self.mode == BbrMode::Drain && rs.in_flight <= self.inflight(self.btl_bw(), 1.0) {
            self.enter_probe_bw(rs.now, rs.delivered);
        }
    }

    /// §4.1.2.3 and §4.3.5 (`bbr_update_min_rtt`).
    fn update_min_rtt(&mut self, rs: &RateSample) {
        let expired = rs.now > self.min_rtt_stamp + RTPROP_FILTER_LEN;
        if let Some(r) = rs.rtt {
            if self.min_rtt.is_none_or(|m| r < m) || expired {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = rs.now;
            }
        }
        if expired && self.mode != BbrMode::ProbeRtt && self.min_rtt.is_some() {
            self.mode = BbrMode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt.reset();
        }
        if self.mode == BbrMode::ProbeRtt {
            // Samples of data sent while the window is held down say nothing of the path.
            self.app_limited_until = (rs.delivered + rs.in_flight).max(1);
            let step =
                self.probe_rtt
                    .on_ack(rs.now, rs.in_flight, self.min_cwnd(), self.round_start);
            match step {
                ProbeRttStep::Started => self.next_round_delivered = rs.delivered,
                ProbeRttStep::Hold => {}
                ProbeRttStep::Exit => {
                    self.min_rtt_stamp = rs.now;
                    self.cwnd = self.cwnd.max(self.rec.prior_cwnd);
                    if self.full_bw_reached {
                        self.enter_probe_bw(rs.now, rs.delivered);
                    } else {
                        self.mode = BbrMode::Startup;
                    }
                }
            }
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            BbrMode::Startup => (HIGH_GAIN, HIGH_GAIN),
            BbrMode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            BbrMode::ProbeBw => (PACING_GAIN_CYCLE[self.cycle_idx], CWND_GAIN),
            BbrMode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// §4.2.1 (`bbr_set_pacing_rate`; [`Pacing`]): never lowered before the pipe is full.
    fn set_pacing_rate(&mut self, rs: &RateSample) {
        let bw = self.btl_bw();
        self.pacing
            .update(rs.rtt, bw, self.pacing_gain, self.full_bw_reached);
    }

    /// `bbr_save_cwnd`.
    fn save_cwnd(&mut self) {
        self.rec.save(self.cwnd, self.mode == BbrMode::ProbeRtt);
    }

    /// §4.2.3 (`bbr_set_cwnd` with `bbr_set_cwnd_to_recover_or_restore`;
    /// [`RecoveryWindow::set_cwnd`]): growth toward BDP × gain plus the ACK-aggregation
    /// allowance, then the quantization budget; 4 segments in PROBE_RTT.
    fn set_cwnd(&mut self, rs: &RateSample) {
        let target = self.target_cwnd();
        let (cwnd, entered) = self.rec.set_cwnd(
            rs,
            self.cwnd,
            target,
            self.full_bw_reached,
            self.initial_cwnd,
            self.mss,
        );
        self.cwnd = cwnd;
        if entered {
            // The first round of fast recovery: packet conservation, a round starts now.
            self.next_round_delivered = rs.delivered;
        }
        if self.mode == BbrMode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.min_cwnd());
        }
    }
}

impl CongestionControl for Bbr {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        u64::MAX
    }
    fn on_ack(&mut self, _ev: &AckEvent) {}
    fn on_congestion(&mut self, _now: SimTime, _flight_size: u64, kind: Congestion) {
        // BBR v1 does not react to ECN; a loss saves the window to restore after recovery.
        if kind == Congestion::Loss {
            self.save_cwnd();
        }
    }
    fn on_rto(&mut self, _now: SimTime, _flight_size: Option<u64>) {
        // Linux: the window to one segment ([`RecoveryWindow::on_rto`]);
        // `bbr_set_state(TCP_CA_Loss)` clears the STARTUP baseline and starts a round.
        self.cwnd = self
            .rec
            .on_rto(self.cwnd, self.mode == BbrMode::ProbeRtt, self.mss);
        self.full_bw = 0.0;
        self.round_start = true;
    }
    fn reset_initial_window(&mut self, cwnd: u64) {
        self.cwnd = cwnd;
    }
    fn exit_slow_start(&mut self, _now: SimTime) {}
    fn set_initial_ssthresh(&mut self, _ssthresh: u64) {}
    fn wants_rate_samples(&self) -> bool {
        true
    }
    fn on_rate_sample(&mut self, rs: &RateSample) {
        self.update_bw(rs);
        self.update_ack_aggregation(rs);
        if self.mode == BbrMode::ProbeBw && self.is_next_cycle_phase(rs) {
            self.advance_cycle_phase(rs.now);
        }
        self.check_full_bw_reached(rs);
        self.check_drain(rs);
        self.update_min_rtt(rs);
        self.update_gains();
        self.set_pacing_rate(rs);
        self.set_cwnd(rs);
    }
    fn pacing_rate(&self) -> Option<f64> {
        self.pacing.rate()
    }
    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        let mode = match self.mode {
            BbrMode::Startup => 0.0,
            BbrMode::Drain => 1.0,
            BbrMode::ProbeBw => 2.0,
            BbrMode::ProbeRtt => 3.0,
        };
        visit("bbr_mode", mode);
        visit("btl_bw_bps", self.btl_bw() * 8.0);
        visit(
            "rtprop_s",
            self.min_rtt.map_or(f64::NAN, SimDuration::as_secs_f64),
        );
        visit("pacing_gain", self.pacing_gain);
        visit("pacing_rate_bps", self.pacing.rate().unwrap_or(0.0) * 8.0);
    }
}

#[cfg(test)]
mod tests {
    use super::super::bbr_model::PROBE_RTT_DURATION;
    use super::super::CaState;
    use super::*;

    const MSS: u64 = 1000;
    const RTT: SimDuration = SimDuration::from_millis(100);

    /// A rate sample that ends a round (its newest segment was sent at the start of the
    /// round) and delivers one segment.
    fn sample(b: &Bbr, now: SimTime, bw: f64, in_flight: u64, delivered: u64) -> RateSample {
        RateSample {
            now,
            delivery_rate: Some(bw),
            prior_delivered: b.next_round_delivered,
            delivered,
            newly_delivered: MSS,
            rtt: Some(RTT),
            prior_in_flight: in_flight,
            in_flight,
            mss: MSS,
            ..RateSample::default()
        }
    }

    /// Runs rounds of 100 ms, one sample each at rate `bws[i]`; returns the controller.
    fn rounds(b: &mut Bbr, t: &mut SimTime, delivered: &mut u64, bws: &[f64], in_flight: u64) {
        for &bw in bws {
            *t += RTT;
            *delivered += MSS;
            let rs = sample(b, *t, bw, in_flight, *delivered);
            b.on_rate_sample(&rs);
        }
    }

    #[test]
    fn startup_exits_after_three_rounds_without_25_percent_growth() {
        assert!((HIGH_GAIN - 2.885_390_081_78).abs() < 1e-11, "2/ln 2");
        let mut b = Bbr::new(MSS, 10 * MSS);
        let (mut t, mut d) = (SimTime::ZERO, 0);
        // 100, 200 kB/s: growth; then 240, 245, 249.9 kB/s, each < 1.25 × 200 kB/s.
        rounds(&mut b, &mut t, &mut d, &[1e5, 2e5], 1_000_000);
        assert_eq!(b.mode(), BbrMode::Startup);
        assert_eq!((b.pacing_gain(), b.cwnd_gain()), (HIGH_GAIN, HIGH_GAIN));
        rounds(&mut b, &mut t, &mut d, &[2.4e5, 2.45e5], 1_000_000);
        assert_eq!((b.full_bw_count, b.full_bw), (2, 2e5));
        assert_eq!(b.mode(), BbrMode::Startup);
        rounds(&mut b, &mut t, &mut d, &[2.499e5], 1_000_000);
        assert!(b.full_bw_reached());
        assert_eq!(b.mode(), BbrMode::Drain, "1 000 kB in flight > BDP");
        assert_eq!((b.pacing_gain(), b.cwnd_gain()), (DRAIN_GAIN, HIGH_GAIN));
        assert!((DRAIN_GAIN - 0.346_573_590_28).abs() < 1e-11, "ln 2/2");
        // Pacing at ln2/2 × BtlBw less 1 %: 0.3466 × 249 900 × 0.99.
        assert_eq!(b.pacing_rate(), Some(2.499e5 * DRAIN_GAIN * 0.99));

        // Counterfactual: 25 % growth (250 kB/s = 1.25 × 200 kB/s) in the third round resets
        // the count, and STARTUP goes on.
        let mut c = Bbr::new(MSS, 10 * MSS);
        let (mut t, mut d) = (SimTime::ZERO, 0);
        rounds(
            &mut c,
            &mut t,
            &mut d,
            &[1e5, 2e5, 2.4e5, 2.45e5, 2.5e5],
            1_000_000,
        );
        assert_eq!(
            (c.mode(), c.full_bw_count, c.full_bw),
            (BbrMode::Startup, 0, 2.5e5)
        );
    }

    #[test]
    fn drain_ends_at_one_bdp_and_probe_bw_cycles_its_gains() {
        let mut b = Bbr::new(MSS, 10 * MSS);
        let (mut t, mut d) = (SimTime::ZERO, 0);
        rounds(&mut b, &mut t, &mut d, &[1e5, 1e5, 1e5, 1e5], 1_000_000);
        assert_eq!(b.mode(), BbrMode::Drain);
        // BDP = 100 kB/s × 100 ms = 10 segments; the exit threshold is bbr_inflight(bw, 1):
        // 10 + 3 send quanta of 1 segment (pacing < 1.2 Mb/s) = 13, rounded up to 14.
        assert_eq!(b.inflight(1e5, 1.0), 14 * MSS);
        rounds(&mut b, &mut t, &mut d, &[1e5], 15 * MSS);
        assert_eq!(b.mode(), BbrMode::Drain, "15 segments in flight > 14");
        rounds(&mut b, &mut t, &mut d, &[1e5], 14 * MSS);
        assert_eq!(b.mode(), BbrMode::ProbeBw);
        assert_eq!(b.cwnd_gain(), CWND_GAIN);
        assert_ne!(b.cycle_idx, 1, "the cycle never starts in the 3/4 phase");
        // Walk the cycle: each 1.0 phase lasts one RTprop; hold the flight at one BDP (10
        // segments) so 5/4 waits for 5/4 BDP and 3/4 ends at once.
        let mut seen = Vec::new();
        let bdp = 10 * MSS;
        for _ in 0..40 {
            t += SimDuration::from_millis(101);
            d += MSS;
            let inflight = if b.pacing_gain > 1.0 && seen.last() == Some(&1.25) {
                b.inflight(1e5, 1.25) // reached 5/4 BDP + quanta: leave the phase
            } else {
                bdp
            };
            let rs = sample(&b, t, 1e5, inflight, d);
            b.on_rate_sample(&rs);
            if seen.last() != Some(&b.pacing_gain()) || b.pacing_gain() == 1.0 {
                seen.push(b.pacing_gain());
            }
        }
        let start = seen.iter().position(|&g| g == 1.25).expect("a 5/4 phase");
        assert_eq!(
            &seen[start..start + 9],
            &[1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.25],
            "gains per RTprop-long phase"
        );
        // 5/4 phase: pacing 1.25 × 100 kB/s × 0.99, window 2 × BDP + quanta + 2.
        let mut p = b.clone();
        while p.cycle_idx != 0 {
            p.advance_cycle_phase(t);
        }
        p.update_gains();
        assert_eq!(p.inflight(1e5, 2.0), (20 + 3 + 1 + 2) * MSS);
    }

    #[test]
    fn probe_rtt_every_10_s_for_200_ms_at_4_segments() {
        let mut b = Bbr::new(MSS, 10 * MSS);
        let (mut t, mut d) = (SimTime::ZERO, 0);
        rounds(&mut b, &mut t, &mut d, &[1e5; 5], 10 * MSS);
        assert_eq!(b.mode(), BbrMode::ProbeBw);
        let stamp = b.min_rtt_stamp;
        assert_eq!(
            stamp,
            SimTime::from_millis(100),
            "RTprop set by the first sample"
        );
        // RTT samples never below 100 ms: at 10 s + 100 ms the filter has not yet expired.
        while t + RTT <= stamp + RTPROP_FILTER_LEN {
            rounds(&mut b, &mut t, &mut d, &[1e5], 10 * MSS);
            assert_ne!(b.mode(), BbrMode::ProbeRtt, "at {t:?}");
        }
        rounds(&mut b, &mut t, &mut d, &[1e5], 10 * MSS);
        assert_eq!(b.mode(), BbrMode::ProbeRtt, "expired at {t:?}");
        assert_eq!(b.cwnd(), 4 * MSS);
        assert_eq!((b.pacing_gain(), b.cwnd_gain()), (1.0, 1.0));
        // Flight still above 4 segments: the 200 ms have not started.
        let t_enter = t;
        rounds(&mut b, &mut t, &mut d, &[1e5], 6 * MSS);
        assert_eq!(b.probe_rtt.done(), None);
        // Flight at 4 segments: 200 ms from now and a round.
        rounds(&mut b, &mut t, &mut d, &[1e5], 4 * MSS);
        let t4 = t;
        assert_eq!(b.probe_rtt.done(), Some(t4 + PROBE_RTT_DURATION));
        // Samples every 50 ms: still PROBE_RTT at exactly +200 ms, out on the first after it.
        let mut left = None;
        for k in 1..=6 {
            t = t4 + SimDuration::from_millis(50 * k);
            d += MSS;
            let rs = sample(&b, t, 1e5, 4 * MSS, d);
            b.on_rate_sample(&rs);
            if b.mode() != BbrMode::ProbeRtt {
                left = Some(t);
                break;
            }
        }
        assert_eq!(left, Some(t4 + SimDuration::from_millis(250)));
        assert_eq!(b.mode(), BbrMode::ProbeBw);
        assert_eq!(b.min_rtt_stamp, t4 + SimDuration::from_millis(250));
        assert!(
            b.cwnd() >= 10 * MSS,
            "the window saved on entry is restored"
        );
        assert!(t_enter > stamp + RTPROP_FILTER_LEN);
        // Counterfactual: a lower RTT sample within the 10 s refreshes RTprop and no
        // PROBE_RTT comes.
        let mut c = Bbr::new(MSS, 10 * MSS);
        let (mut t, mut d) = (SimTime::ZERO, 0);
        rounds(&mut c, &mut t, &mut d, &[1e5; 5], 10 * MSS);
        for i in 0..150u64 {
            t += RTT;
            d += MSS;
            let mut rs = sample(&c, t, 1e5, 10 * MSS, d);
            rs.rtt = Some(SimDuration::from_nanos(RTT.as_nanos() - 1000 * (i + 1)));
            c.on_rate_sample(&rs);
            assert_ne!(c.mode(), BbrMode::ProbeRtt);
        }
    }

    #[test]
    fn btl_bw_is_the_max_of_the_last_10_rounds() {
        let mut b = Bbr::new(MSS, 10 * MSS);
        let (mut t, mut d) = (SimTime::ZERO, 0);
        rounds(&mut b, &mut t, &mut d, &[5e5], 10 * MSS);
        rounds(&mut b, &mut t, &mut d, &[1e5; 9], 10 * MSS);
        assert_eq!(
            b.btl_bw(),
            5e5,
            "10 rounds: the first is still in the window"
        );
        rounds(&mut b, &mut t, &mut d, &[1e5], 10 * MSS);
        assert_eq!(b.btl_bw(), 1e5, "11th round: it has aged out");
        // An application-limited sample below the estimate is ignored; above it, kept.
        let mut rs = sample(&b, t + RTT, 0.5e5, 10 * MSS, d + MSS);
        rs.app_limited = true;
        b.on_rate_sample(&rs);
        assert_eq!(b.btl_bw(), 1e5);
    }

    #[test]
    fn recovery_conserves_then_restores_and_a_timeout_resets_to_one_segment() {
        let mut b = Bbr::new(MSS, 10 * MSS);
        let (mut t, mut d) = (SimTime::ZERO, 0);
        rounds(&mut b, &mut t, &mut d, &[1e5; 8], 10 * MSS);
        let before = b.cwnd();
        b.on_congestion(t, 10 * MSS, Congestion::Loss);
        t += SimDuration::from_millis(1);
        let mut rs = sample(&b, t, 1e5, 10 * MSS, d);
        rs.ca_state = CaState::Recovery;
        rs.newly_lost = MSS;
        rs.in_flight = 7 * MSS;
        b.on_rate_sample(&rs);
        assert_eq!(
            b.cwnd(),
            8 * MSS,
            "packet conservation: in flight + delivered"
        );
        rs.ca_state = CaState::Open;
        rs.newly_lost = 0;
        rs.now = t + RTT;
        b.on_rate_sample(&rs);
        assert_eq!(
            b.cwnd(),
            before + MSS,
            "restored after recovery, then grown by the ACK"
        );
        b.on_rto(t, None);
        assert_eq!(b.cwnd(), MSS);
        assert_eq!(b.btl_bw(), 1e5, "the model survives a timeout");
    }

    #[test]
    fn ack_aggregation_allowance_as_linux_bbr_extra_acked() {
        // 100 kB/s, RTprop 100 ms: BDP 10 segments; PROBE_BW after 5 rounds of one sample
        // each. Each of those ACKs (1 segment, 100 ms apart) is below the 10 segments BtlBw
        // predicts, so each starts an epoch and the excess is that 1 segment.
        let mut b = Bbr::new(MSS, 10 * MSS);
        let (mut t, mut d) = (SimTime::ZERO, 0);
        rounds(&mut b, &mut t, &mut d, &[1e5; 5], 10 * MSS);
        assert_eq!(b.mode(), BbrMode::ProbeBw);
        assert_eq!(b.extra_acked_segments(), 1);
        let quanta = 3; // 3 send quanta of 1 segment (pacing below 1.2 Mb/s)
        let five_fourths = if b.cycle_idx == 0 { 2 } else { 0 };
        // 2 BDP + 1 + 3 quanta = 24 (even); without the allowance 23, rounded up to 24.
        assert_eq!(b.target_cwnd(), (20 + 1 + quanta + five_fourths) * MSS);
        let mut off = b.clone();
        off.aggregation = false;
        assert_eq!(off.target_cwnd(), (20 + quanta + 1 + five_fourths) * MSS);

        // 8 segments ACKed 1 ms after the epoch began (BtlBw predicts 0.1 segment, rounded
        // down to 0): the epoch holds 1 + 8 = 9 segments, all of them excess.
        let burst = |b: &Bbr, now: SimTime, segs: u64, delivered: u64| RateSample {
            now,
            delivery_rate: Some(1e5),
            prior_delivered: b.next_round_delivered.saturating_sub(1),
            delivered,
            newly_delivered: segs * MSS,
            rtt: Some(RTT),
            prior_in_flight: 10 * MSS,
            in_flight: 10 * MSS,
            mss: MSS,
            ..RateSample::default()
        };
        d += 8 * MSS;
        let rs = burst(&b, t + SimDuration::from_millis(1), 8, d);
        b.on_rate_sample(&rs);
        assert!(!b.round_start);
        assert_eq!(b.extra_acked_segments(), 9);
        // Target: 2 BDP + 9 = 29, + 3 quanta = 32 (even).
        assert_eq!(b.target_cwnd(), (32 + five_fourths) * MSS);
        // Counterfactual: the same ACKs without the allowance leave the target at 24.
        let mut off = b.clone();
        off.aggregation = false;
        assert_eq!(off.target_cwnd(), (24 + five_fourths) * MSS);

        // Capped at 100 ms of BtlBw = 10 segments: 15 more segments 2 ms in (prediction 0.2
        // segment, 0) make the excess 24, and the window's target grows by 10 only.
        d += 15 * MSS;
        let cwnd_before = b.cwnd() / MSS;
        assert!(cwnd_before >= 10, "{cwnd_before}");
        let rs = burst(&b, t + SimDuration::from_millis(2), 15, d);
        b.on_rate_sample(&rs);
        assert_eq!(b.extra_acked_segments(), cwnd_before.min(24));
        assert_eq!(b.ack_aggregation_cwnd(), 10 * MSS);
        assert_eq!(b.target_cwnd(), (34 + five_fourths) * MSS);

        // The max filter: two slots of 5 rounds. The 5th round above switched slots, so the
        // burst's slot is cleared on the 10th round start after it, not the 9th.
        let burst_excess = b.extra_acked_segments();
        for r in 1..=10 {
            rounds(&mut b, &mut t, &mut d, &[1e5], 10 * MSS);
            let want = if r < 10 { burst_excess } else { 1 };
            assert_eq!(b.extra_acked_segments(), want, "round {r}");
        }
    }

    #[test]
    fn ack_aggregation_allowance_waits_for_a_full_pipe_and_resets_on_slow_acks() {
        let mut b = Bbr::new(MSS, 10 * MSS);
        let (mut t, mut d) = (SimTime::ZERO, 0);
        rounds(&mut b, &mut t, &mut d, &[1e5; 2], 10 * MSS);
        assert!(!b.full_bw_reached());
        // An excess in STARTUP is measured but not added (Linux: only once the pipe is full).
        d += 6 * MSS;
        let mut rs = sample(&b, t + SimDuration::from_millis(1), 1e5, 10 * MSS, d);
        rs.prior_delivered = 0;
        rs.newly_delivered = 6 * MSS;
        b.on_rate_sample(&rs);
        assert_eq!(b.extra_acked_segments(), 7);
        assert_eq!(b.ack_aggregation_cwnd(), 0);
        // ACKs at exactly BtlBw (2 segments every 20 ms at 100 segments/s) predict what they
        // deliver: each one starts a new epoch, so the excess they show is 2 segments.
        let mut c = Bbr::new(MSS, 10 * MSS);
        let (mut t, mut d) = (SimTime::ZERO, 0);
        rounds(&mut c, &mut t, &mut d, &[1e5; 12], 10 * MSS);
        for _ in 0..40 {
            t += SimDuration::from_millis(20);
            d += 2 * MSS;
            let mut rs = sample(&c, t, 1e5, 10 * MSS, d);
            rs.prior_delivered = 0;
            rs.newly_delivered = 2 * MSS;
            c.on_rate_sample(&rs);
            assert_eq!(c.ack_epoch_acked, 2, "epoch restarted at {t:?}");
        }
        assert_eq!(c.extra_acked_segments(), 2);
    }
}
