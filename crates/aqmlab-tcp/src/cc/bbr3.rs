//! BBR v3 (`cc = "bbr3"`): draft-ietf-ccwg-bbr (Cardwell, Swett, Beshay; the "BBR v3" the
//! google/bbr `v3` branch's `tcp_bbr.c` implements, whose rules and constants this follows).
//! Section names below are the draft's.
//!
//! What v3 adds to v1's model (`bbr.rs`; "Network Path Model"):
//! * upper bounds `bw_hi` / `inflight_hi`, the most the path carried before loss or ECN said
//!   "too much": `bw_hi` is the maximum delivery rate over the last two bandwidth-probing
//!   cycles ("BBR.max_bw Max Filter"), `inflight_hi` is cut when a probe's loss rate exceeds
//!   2 % (`BBRLossThresh`) or its CE-mark rate 50 % (`ecn_thresh`), to the flight that had
//!   gone out or 70 % of the target (`BBRBeta` = 0.7 in the draft's sense; "Updating the
//!   Model Upon Packet Loss");
//! * lower bounds `bw_lo` / `inflight_lo`, cut once per round with loss or ECN while not
//!   probing: to `max(latest, 0.7 × lo)` on loss, `inflight_lo × (1 − α/3)` on ECN with the
//!   DCTCP-like mark-rate EWMA α (g = 1/16, initial 1) ("BBR.bw_shortterm",
//!   "BBR.inflight_shortterm");
//! * the model's bandwidth is `min(bw_hi, bw_lo)`.
//!
//! The state machine ("State Machine Operation"):
//! * STARTUP, pacing gain 2.77 (≈ 4 ln 2), cwnd gain 2, until three rounds without 25 %
//!   growth, or (in recovery, at a round's end) six loss events and over 2 % loss in a round,
//!   or two rounds with over 50 % CE marks ("Exiting Startup Based on Packet Loss", ECN);
//! * DRAIN, pacing gain 1/2.885, until the flight is at most one BDP;
//! * PROBE_BW in four phases ("ProbeBW"): DOWN (pacing 0.91 in v3, 0.90 in the draft) until
//!   the flight is at most the BDP and below `inflight_hi` less 15 % headroom; CRUISE (1.0,
//!   headroom kept) until the wall-clock probe wait, 2 s plus U[0, 1) s, has passed or as many
//!   rounds as a Reno flow at this BDP would take (at most 63, less U{0, 1}); REFILL (1.0,
//!   lower bounds cleared) for one round; UP (pacing 1.25, cwnd gain 2.25), `inflight_hi`
//!   growing by 1, 2, 4, … segments per round, until the loss or ECN rate says too high, the
//!   flight reaches the old `inflight_hi`, or the bandwidth stops growing; then DOWN again;
//! * PROBE_RTT when the 5 s `probe_rtt_min` filter expires: the window at half a BDP for
//!   200 ms and a round ("ProbeRTT"), then back to PROBE_BW (CRUISE) or STARTUP.
//!
//! Loss recovery's window (packet conservation, restore afterwards) is v1's, as in v3
//! (`bbr_model::RecoveryWindow`, shared).
//! ECN is used as v3 does: with precise (DCTCP-style or AccECN) feedback and only while the
//! minimum RTT is at most 5 ms (`bbr_ecn_max_rtt_us`). Not modelled: the ACK-aggregation
//! allowance, idle restart, PLB, the TLP-based loss-probe recovery, the fast path.

use super::bbr_model::{
    bdp, send_quantum_segments, splitmix64, Pacing, ProbeRttStep, ProbeRttTimer, RecoveryWindow,
    FULL_BW_COUNT, FULL_BW_THRESH, MIN_CWND_SEGMENTS, MIN_RTT_FILTER_LEN,
};
use super::{AckEvent, CaState, Congestion, CongestionControl, EcnFeedback, RateSample};
use crate::accecn::EcnMode;
use aqmlab_core::{SimDuration, SimTime};

/// STARTUP's pacing gain ("Startup"): 2.77 ≈ 4 ln 2.
pub const STARTUP_PACING_GAIN: f64 = 2.77;
/// STARTUP's cwnd gain ("Startup").
pub const STARTUP_CWND_GAIN: f64 = 2.0;
/// DRAIN's pacing gain: v3's `bbr_drain_gain` = 1/2.885.
pub const DRAIN_PACING_GAIN: f64 = 1.0 / 2.885;
/// The cwnd gain outside STARTUP and PROBE_BW's UP.
pub const CWND_GAIN: f64 = 2.0;
/// PROBE_BW UP's pacing gain.
pub const UP_PACING_GAIN: f64 = 1.25;
/// PROBE_BW UP's cwnd gain: 2 + v3's `bbr_bw_probe_cwnd_gain` of 1/4.
pub const UP_CWND_GAIN: f64 = 2.25;
/// PROBE_BW DOWN's pacing gain (v3's 91/100; the draft's `ProbeBW_DOWN` 0.90).
pub const DOWN_PACING_GAIN: f64 = 0.91;
/// PROBE_RTT's window: half a BDP ("ProbeRTT", `BBRProbeRTTCwndGain`).
pub const PROBE_RTT_CWND_GAIN: f64 = 0.5;
/// How often PROBE_RTT comes: the `probe_rtt_min` filter's length.
pub const PROBE_RTT_INTERVAL: SimDuration = SimDuration::from_secs(5);
/// Loss rate over one flight above which probing has gone too far (`BBRLossThresh`).
pub const LOSS_THRESH: f64 = 0.02;
/// CE-mark rate above which probing has gone too far (v3's `bbr_ecn_thresh`).
pub const ECN_THRESH: f64 = 0.5;
/// Multiplicative cut on loss: to `1 − BETA` (v3's `bbr_beta` 0.3; the draft's `BBRBeta` 0.7
/// is the factor kept).
pub const BETA: f64 = 0.3;
/// The mark-rate EWMA's gain (v3's `bbr_ecn_alpha_gain`).
pub const ECN_ALPHA_GAIN: f64 = 1.0 / 16.0;
/// On ECN, `inflight_lo` is cut to `1 − ECN_FACTOR × α`.
pub const ECN_FACTOR: f64 = 1.0 / 3.0;
/// Headroom left under `inflight_hi` while cruising (`BBRHeadroom`).
pub const HEADROOM: f64 = 0.15;
/// Loss events in a STARTUP recovery round that, with a loss rate above 2 %, end STARTUP.
pub const FULL_LOSS_COUNT: u32 = 6;
/// Rounds with CE marks above 50 % that end STARTUP.
pub const FULL_ECN_COUNT: u32 = 2;
/// At most this many rounds between bandwidth probes (Reno coexistence).
pub const PROBE_MAX_ROUNDS: u64 = 63;
/// The round bound is lowered by U{0 .. this − 1}.
pub const PROBE_RAND_ROUNDS: u64 = 2;
/// The wall-clock wait between probes: `PROBE_BASE + U[0, PROBE_RAND)`.
pub const PROBE_BASE: SimDuration = SimDuration::from_secs(2);
/// See [`PROBE_BASE`].
pub const PROBE_RAND: SimDuration = SimDuration::from_secs(1);
/// Above this minimum RTT ECN marks are ignored (v3's `bbr_ecn_max_rtt_us`).
pub const ECN_MAX_RTT: SimDuration = SimDuration::from_millis(5);
/// After a cycle with marks but no loss, the re-probe's first increment is this fraction of
/// `inflight_hi` (v3's `bbr_ecn_reprobe_gain`).
pub const ECN_REPROBE_GAIN: f64 = 0.5;

/// The state machine's states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bbr3Mode {
    /// Filling the pipe.
    Startup,
    /// Draining STARTUP's queue.
    Drain,
    /// Probing for bandwidth in the phase given.
    ProbeBw(Phase),
    /// Draining to measure the minimum RTT.
    ProbeRtt,
}

/// PROBE_BW's phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Drain the probe's queue (pacing 0.91).
    Down,
    /// Hold the flight with headroom (pacing 1).
    Cruise,
    /// Refill the pipe for one round (pacing 1).
    Refill,
    /// Probe for more (pacing 1.25).
    Up,
}

/// Where the ACKs stand relative to a bandwidth probe (v3's `ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// BBR v3 state.
#[derive(Clone, Debug)]
pub struct Bbr3 {
    mss: u64,
    initial_cwnd: u64,
    cwnd: u64,
    mode: Bbr3Mode,
    ack_phase: AckPhase,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// The max filter over the last two probing cycles: `[previous, current]`, bytes/s.
    bw_hi: [f64; 2],
    bw_lo: f64,
    bw_latest: f64,
    inflight_hi: u64,
    inflight_lo: u64,
    inflight_latest: u64,
    round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    loss_round_delivered: u64,
    loss_round_start: bool,
    min_rtt: Option<SimDuration>,
    min_rtt_stamp: SimTime,
    probe_rtt_min: Option<SimDuration>,
    probe_rtt_min_stamp: SimTime,
    probe_rtt: ProbeRttTimer,
    app_limited_until: u64,
    full_bw: f64,
    full_bw_count: u32,
    full_bw_now: bool,
    full_bw_reached: bool,
    loss_in_round: bool,
    ecn_in_round: bool,
    loss_in_cycle: bool,
    ecn_in_cycle: bool,
    loss_events_in_round: u32,
    startup_ecn_rounds: u32,
    ecn_mode: EcnMode,
    ecn_alpha: f64,
    /// Linux's CWR state: an ECN echo starts it until `snd_una` passes the `snd_nxt` of that
    /// moment (`high_seq`); 0 when Open.
    cwr_high: u64,
    delivered: u64,
    delivered_ce: u64,
    alpha_last_delivered: u64,
    alpha_last_delivered_ce: u64,
    cycle_stamp: SimTime,
    probe_wait: SimDuration,
    rounds_since_probe: u64,
    bw_probe_up_rounds: u32,
    bw_probe_up_cnt: u64,
    bw_probe_up_acks: u64,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    cwnd_limited: bool,
    pacing: Pacing,
    rec: RecoveryWindow,
}

impl Bbr3 {
    /// A controller for segments of `mss` bytes, starting with an `initial_cwnd`-byte window.
    pub fn new(mss: u64, initial_cwnd: u64) -> Self {
        Bbr3 {
            mss,
            initial_cwnd,
            cwnd: initial_cwnd,
            mode: Bbr3Mode::Startup,
            ack_phase: AckPhase::Init,
            pacing_gain: STARTUP_PACING_GAIN,
            cwnd_gain: STARTUP_CWND_GAIN,
            bw_hi: [0.0; 2],
            bw_lo: f64::INFINITY,
            bw_latest: 0.0,
            inflight_hi: u64::MAX,
            inflight_lo: u64::MAX,
            inflight_latest: 0,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            loss_round_delivered: 0,
            loss_round_start: false,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_min: None,
            probe_rtt_min_stamp: SimTime::ZERO,
            probe_rtt: ProbeRttTimer::default(),
            app_limited_until: 0,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_now: false,
            full_bw_reached: false,
            loss_in_round: false,
            ecn_in_round: false,
            loss_in_cycle: false,
            ecn_in_cycle: false,
            loss_events_in_round: 0,
            startup_ecn_rounds: 0,
            ecn_mode: EcnMode::Off,
            ecn_alpha: 1.0,
            cwr_high: 0,
            delivered: 0,
            delivered_ce: 0,
            alpha_last_delivered: 0,
            alpha_last_delivered_ce: 0,
            cycle_stamp: SimTime::ZERO,
            probe_wait: PROBE_BASE,
            rounds_since_probe: 0,
            bw_probe_up_rounds: 0,
            bw_probe_up_cnt: u64::MAX,
            bw_probe_up_acks: 0,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            cwnd_limited: true,
            pacing: Pacing::new(STARTUP_PACING_GAIN, initial_cwnd),
            rec: RecoveryWindow::default(),
        }
    }

    /// The state.
    pub fn mode(&self) -> Bbr3Mode {
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
    /// `max_bw`: the larger of the two cycles' maxima, bytes/s.
    pub fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }
    /// The model's bandwidth, `min(max_bw, bw_lo)`.
    pub fn bw(&self) -> f64 {
        self.max_bw().min(self.bw_lo)
    }
    /// `inflight_hi`, bytes (`u64::MAX` while unset).
    pub fn inflight_hi(&self) -> u64 {
        self.inflight_hi
    }
    /// `inflight_lo`, bytes (`u64::MAX` while unset).
    pub fn inflight_lo(&self) -> u64 {
        self.inflight_lo
    }
    /// `bw_lo`, bytes/s (infinite while unset).
    pub fn bw_lo(&self) -> f64 {
        self.bw_lo
    }
    /// The ECN mark-rate EWMA α.
    pub fn ecn_alpha(&self) -> f64 {
        self.ecn_alpha
    }
    /// The minimum RTT.
    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.min_rtt
    }
    /// True once STARTUP found the pipe full.
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    fn bdp(&self, bw: f64, gain: f64) -> u64 {
        bdp(bw, self.min_rtt, gain, self.mss, self.initial_cwnd)
    }

    /// `bbr_inflight`: the BDP at `gain` with v3's quantization budget (at least three send
    /// quanta and 4 segments; two segments more in UP).
    fn inflight(&self, bw: f64, gain: f64) -> u64 {
        let quanta = 3 * send_quantum_segments(self.pacing.rate().unwrap_or(0.0), self.mss);
        let mut segs = self
            .bdp(bw, gain)
            .div_ceil(self.mss)
            .max(quanta)
            .max(MIN_CWND_SEGMENTS);
        if self.mode == Bbr3Mode::ProbeBw(Phase::Up) {
            segs += 2;
        }
        segs * self.mss
    }

    fn min_cwnd(&self) -> u64 {
        MIN_CWND_SEGMENTS * self.mss
    }

    /// `min(BDP, cwnd)`: the flight the model aims at.
    fn target_inflight(&self) -> u64 {
        self.inflight(self.bw(), 1.0).min(self.cwnd)
    }

    /// `inflight_hi` less 15 % headroom, at least 4 segments ("ProbeBW_CRUISE").
    fn inflight_with_headroom(&self) -> u64 {
        if self.inflight_hi == u64::MAX {
            return u64::MAX;
        }
        let headroom = ((self.inflight_hi as f64 * HEADROOM) as u64).max(self.mss);
        self.inflight_hi
            .saturating_sub(headroom)
            .max(self.min_cwnd())
    }

    fn probe_rtt_cwnd(&self) -> u64 {
        self.bdp(self.bw(), PROBE_RTT_CWND_GAIN)
            .max(self.min_cwnd())
    }

    fn is_probing_bandwidth(&self) -> bool {
        matches!(
            self.mode,
            Bbr3Mode::Startup | Bbr3Mode::ProbeBw(Phase::Refill | Phase::Up)
        )
    }

    fn ecn_eligible(&self) -> bool {
        self.ecn_mode != EcnMode::Off && self.min_rtt.is_some_and(|m| m <= ECN_MAX_RTT)
    }

    fn draw(&self, now: SimTime, salt: u64) -> u64 {
        splitmix64(now.as_nanos() ^ self.delivered.rotate_left(32) ^ salt)
    }

    /// Packet-timed rounds ("Per-ACK Steps"): one ends when data sent after its start is
    /// delivered.
    fn update_round(&mut self, rs: &RateSample) {
        self.round_start = false;
        if rs.newly_delivered > 0 && rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = rs.delivered;
            self.round_count += 1;
            self.rounds_since_probe += 1;
            self.round_start = true;
            self.rec.packet_conservation = false;
        }
    }

    /// v3's `bbr_update_latest_delivery_signals` and the loss rounds.
    fn update_latest_delivery_signals(&mut self, rs: &RateSample, bw: Option<f64>) {
        self.loss_round_start = false;
        let Some(bw) = bw else { return };
        if rs.newly_delivered == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(bw);
        self.inflight_latest = self.inflight_latest.max(rs.delivered - rs.prior_delivered);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = rs.delivered;
            self.loss_round_start = true;
        }
    }

    /// "BBR.max_bw Max Filter" and the once-per-round lower-bound adaptation.
    fn update_congestion_signals(&mut self, rs: &RateSample, bw: Option<f64>) {
        let Some(bw) = bw else { return };
        if rs.newly_delivered == 0 {
            return;
        }
        let app_limited = rs.app_limited || rs.prior_delivered < self.app_limited_until;
        if !app_limited || bw >= self.max_bw() {
            self.bw_hi[1] = self.bw_hi[1].max(bw);
        }
        self.loss_in_round |= rs.newly_lost > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds();
        self.loss_in_round = false;
        self.ecn_in_round = false;
    }

    /// "BBR.bw_shortterm" / "BBR.inflight_shortterm": once per round with loss or ECN, and
    /// only when not probing.
    fn adapt_lower_bounds(&mut self) {
        if self.is_probing_bandwidth() {
            return;
        }
        let mut ecn_inflight_lo = u64::MAX;
        if self.ecn_in_round {
            if self.inflight_lo == u64::MAX {
                self.inflight_lo = self.cwnd;
            }
            let cut = 1.0 - self.ecn_alpha * ECN_FACTOR;
            ecn_inflight_lo = (self.inflight_lo as f64 * cut) as u64;
        }
        if self.loss_in_round {
            if self.bw_lo == f64::INFINITY {
                self.bw_lo = self.max_bw();
            }
            if self.inflight_lo == u64::MAX {
                self.inflight_lo = self.cwnd;
            }
            self.bw_lo = self.bw_latest.max(self.bw_lo * (1.0 - BETA));
            self.inflight_lo = self
                .inflight_latest
                .max((self.inflight_lo as f64 * (1.0 - BETA)) as u64);
        }
        self.inflight_lo = self.inflight_lo.min(ecn_inflight_lo);
    }

    fn reset_lower_bounds(&mut self) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = u64::MAX;
    }

    fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
    }

    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// The ECN mark rate since the round's start, and once per round the EWMA α (v3's
    /// `bbr_update_ecn_alpha`); two rounds above 50 % end STARTUP.
    fn update_ecn_alpha(&mut self) {
        if !self.round_start || !self.ecn_eligible() {
            return;
        }
        let delivered = self.delivered - self.alpha_last_delivered;
        if delivered == 0 {
            return;
        }
        let ce_ratio = (self.delivered_ce - self.alpha_last_delivered_ce) as f64 / delivered as f64;
        self.ecn_alpha =
            ((1.0 - ECN_ALPHA_GAIN) * self.ecn_alpha + ECN_ALPHA_GAIN * ce_ratio).min(1.0);
        self.alpha_last_delivered = self.delivered;
        self.alpha_last_delivered_ce = self.delivered_ce;
        if !self.full_bw_reached && ce_ratio >= ECN_THRESH {
            self.startup_ecn_rounds += 1;
            if self.startup_ecn_rounds >= FULL_ECN_COUNT {
                self.handle_queue_too_high_in_startup();
            }
        } else {
            self.startup_ecn_rounds = 0;
        }
    }

    /// "Updating the Model Upon Packet Loss": over 2 % of the flight lost since the newest
    /// delivered segment was sent, or over 50 % of the data delivered this round CE-marked.
    fn is_inflight_too_high(&self, rs: &RateSample) -> bool {
        if rs.lost > 0
            && rs.tx_in_flight > 0
            && rs.lost as f64 > rs.tx_in_flight as f64 * LOSS_THRESH
        {
            return true;
        }
        if self.ecn_eligible() {
            let delivered = self.delivered - self.alpha_last_delivered;
            let ce = self.delivered_ce - self.alpha_last_delivered_ce;
            if ce > 0 && delivered > 0 && ce as f64 > delivered as f64 * ECN_THRESH {
                return true;
            }
        }
        false
    }

    fn handle_queue_too_high_in_startup(&mut self) {
        self.full_bw_reached = true;
        self.inflight_hi = self.inflight(self.max_bw(), 1.0).max(self.inflight_latest);
    }

    /// "Exiting Startup Based on Packet Loss": at a round's end in recovery, six loss events
    /// and a loss rate above 2 %.
    fn check_loss_too_high_in_startup(&mut self, rs: &RateSample) {
        if self.full_bw_reached {
            return;
        }
        if rs.newly_lost > 0 {
            self.loss_events_in_round = (self.loss_events_in_round + 1).min(15);
        }
        if self.loss_round_start
            && rs.ca_state == CaState::Recovery
            && self.loss_events_in_round >= FULL_LOSS_COUNT
            && self.is_inflight_too_high(rs)
        {
            self.handle_queue_too_high_in_startup();
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// "Exiting Startup Based on Bandwidth Plateau": three rounds with the sample below
    /// 1.25 × the rate that last grew by 25 %.
    fn check_full_bw_reached(&mut self, rs: &RateSample, bw: Option<f64>) {
        if self.full_bw_now || rs.app_limited {
            return;
        }
        let Some(bw) = bw else { return };
        if bw >= self.full_bw * FULL_BW_THRESH {
            self.reset_full_bw();
            self.full_bw = bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_COUNT;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// "Drain".
    fn check_drain(&mut self, rs: &RateSample) {
        if self.mode == Bbr3Mode::Startup && self.full_bw_reached {
            self.mode = Bbr3Mode::Drain;
            self.reset_congestion_signals();
        }
        if self.mode == Bbr3Mode::Drain && rs.in_flight <= self.inflight(self.max_bw(), 1.0) {
            self.mode = Bbr3Mode::ProbeBw(Phase::Down);
            self.start_probe_down(rs.now);
        }
    }

    /// "ProbeBW_DOWN": a new cycle; the next probe after the wall-clock wait `2 s + U[0,
    /// 1 s)` or after `min(63, BDP in segments) − U{0, 1}` rounds.
    fn start_probe_down(&mut self, now: SimTime) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = u64::MAX;
        let r = self.draw(now, 0x5bd1_e995);
        self.rounds_since_probe = r % PROBE_RAND_ROUNDS;
        self.probe_wait = PROBE_BASE + SimDuration::from_nanos((r >> 8) % PROBE_RAND.as_nanos());
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_round_delivered = self.delivered;
        self.mode = Bbr3Mode::ProbeBw(Phase::Down);
    }

    /// "ProbeBW_CRUISE".
    fn start_probe_cruise(&mut self) {
        if self.inflight_lo != u64::MAX {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.mode = Bbr3Mode::ProbeBw(Phase::Cruise);
    }

    /// "ProbeBW_REFILL": the lower bounds are cleared, one round at pacing gain 1.
    fn start_probe_refill(&mut self, up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = up_rounds;
        self.bw_probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_round_delivered = self.delivered;
        self.mode = Bbr3Mode::ProbeBw(Phase::Refill);
    }

    /// "ProbeBW_UP".
    fn start_probe_up(&mut self, now: SimTime, bw: f64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_round_delivered = self.delivered;
        self.cycle_stamp = now;
        self.reset_full_bw();
        self.full_bw = bw;
        self.mode = Bbr3Mode::ProbeBw(Phase::Up);
        self.raise_inflight_hi_slope();
    }

    /// Each round of UP doubles the growth of `inflight_hi`: one segment per `cwnd / 2^k`
    /// segments delivered.
    fn raise_inflight_hi_slope(&mut self) {
        let growth = 1u64 << self.bw_probe_up_rounds.min(30);
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (self.cwnd / self.mss / growth).max(1);
    }

    fn probe_inflight_hi_upward(&mut self, rs: &RateSample) {
        if !self.cwnd_limited || self.cwnd < self.inflight_hi {
            return;
        }
        self.bw_probe_up_acks += rs.newly_delivered.div_ceil(self.mss);
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.bw_probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi += delta * self.mss;
        }
        if self.round_start {
            self.raise_inflight_hi_slope();
        }
    }

    /// The probe went too far: `inflight_hi` to `max(tx_in_flight, 0.7 × target)`, once per
    /// probe, and DOWN.
    fn handle_inflight_too_high(&mut self, rs: &RateSample) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if !rs.app_limited {
            let target = (self.target_inflight() as f64 * (1.0 - BETA)) as u64;
            self.inflight_hi = rs.tx_in_flight.max(target);
        }
        if self.mode == Bbr3Mode::ProbeBw(Phase::Up) {
            self.start_probe_down(rs.now);
        }
    }

    /// v3's `bbr_adapt_upper_bounds`; true if it changed the phase.
    fn adapt_upper_bounds(&mut self, rs: &RateSample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if matches!(self.mode, Bbr3Mode::ProbeBw(_)) && !rs.app_limited {
                // The max filter advances once per probing cycle.
                self.bw_hi = [self.bw_hi[1], 0.0];
            }
            if matches!(self.mode, Bbr3Mode::ProbeBw(_))
                && self.stopped_risky_probe
                && !self.prev_probe_too_high
            {
                self.start_probe_refill(0);
                return true;
            }
        }
        if self.is_inflight_too_high(rs) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(rs);
            }
        } else {
            if self.inflight_hi == u64::MAX {
                return false;
            }
            if rs.tx_in_flight > self.inflight_hi {
                self.inflight_hi = rs.tx_in_flight;
            }
            if self.mode == Bbr3Mode::ProbeBw(Phase::Up) {
                self.probe_inflight_hi_upward(rs);
            }
        }
        false
    }

    /// Time to probe: after a cycle with marks but no loss, once the marks have ceased (the
    /// sender is back in Linux's Open state, out of the CWR state an ECN echo puts it in for
    /// a window); otherwise after the
    /// wall-clock wait or the Reno-coexistence rounds.
    fn check_time_to_probe_bw(&mut self, rs: &RateSample) -> bool {
        if self.ecn_eligible()
            && self.ecn_in_cycle
            && !self.loss_in_cycle
            && rs.ca_state == CaState::Open
            && self.cwr_high == 0
        {
            let segs = (self.inflight_hi as f64 * ECN_REPROBE_GAIN / self.mss as f64).max(1.0);
            self.start_probe_refill(segs.log2().floor() as u32);
            return true;
        }
        let waited = rs.now.saturating_since(self.cycle_stamp) > self.probe_wait;
        let rounds = PROBE_MAX_ROUNDS.min(self.target_inflight().div_ceil(self.mss));
        if waited || self.rounds_since_probe >= rounds {
            self.start_probe_refill(0);
            return true;
        }
        false
    }

    /// v3's `bbr_update_cycle_phase`.
    fn update_cycle_phase(&mut self, rs: &RateSample, bw: Option<f64>) {
        if !self.full_bw_reached {
            return;
        }
        if self.adapt_upper_bounds(rs) {
            return;
        }
        let Bbr3Mode::ProbeBw(phase) = self.mode else {
            return;
        };
        let inflight = rs.prior_in_flight;
        match phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(rs);
            }
            Phase::Refill => {
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_probe_up(rs.now, bw.unwrap_or(0.0));
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if self.cwnd_limited && self.cwnd >= self.inflight_hi {
                    self.reset_full_bw();
                    self.full_bw = bw.unwrap_or(0.0);
                } else if self.full_bw_now {
                    done = true;
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_probe_down(rs.now);
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(rs) {
                    return;
                }
                if inflight <= self.inflight_with_headroom()
                    && inflight <= self.inflight(self.max_bw(), 1.0)
                {
                    self.start_probe_cruise();
                }
            }
        }
    }

    fn exit_probe_rtt(&mut self, now: SimTime) {
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.start_probe_down(now);
            self.start_probe_cruise();
        } else {
            self.mode = Bbr3Mode::Startup;
        }
    }

    /// "ProbeRTT": `probe_rtt_min` over 5 s, `min_rtt` over 10 s; when the former expires,
    /// the window goes to half a BDP for 200 ms and a round.
    fn update_min_rtt(&mut self, rs: &RateSample) {
        let probe_rtt_expired = rs.now > self.probe_rtt_min_stamp + PROBE_RTT_INTERVAL;
        if let Some(r) = rs.rtt {
            if self.probe_rtt_min.is_none_or(|m| r < m) || probe_rtt_expired {
                self.probe_rtt_min = Some(r);
                self.probe_rtt_min_stamp = rs.now;
            }
        }
        let min_rtt_expired = rs.now > self.min_rtt_stamp + MIN_RTT_FILTER_LEN;
        if let Some(p) = self.probe_rtt_min {
            if self.min_rtt.is_none_or(|m| p <= m) || min_rtt_expired {
                self.min_rtt = Some(p);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
        if probe_rtt_expired && self.mode != Bbr3Mode::ProbeRtt && self.min_rtt.is_some() {
            self.mode = Bbr3Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt.reset();
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_round_delivered = self.delivered;
        }
        if self.mode == Bbr3Mode::ProbeRtt {
            self.app_limited_until = (rs.delivered + rs.in_flight).max(1);
            let step = self.probe_rtt.on_ack(
                rs.now,
                rs.in_flight,
                self.probe_rtt_cwnd(),
                self.round_start,
            );
            match step {
                ProbeRttStep::Started => self.next_round_delivered = rs.delivered,
                ProbeRttStep::Hold => {}
                ProbeRttStep::Exit => {
                    self.probe_rtt_min_stamp = rs.now;
                    self.cwnd = self.cwnd.max(self.rec.prior_cwnd);
                    self.exit_probe_rtt(rs.now);
                }
            }
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Bbr3Mode::Startup => (STARTUP_PACING_GAIN, STARTUP_CWND_GAIN),
            Bbr3Mode::Drain => (DRAIN_PACING_GAIN, STARTUP_CWND_GAIN),
            Bbr3Mode::ProbeBw(Phase::Up) => (UP_PACING_GAIN, UP_CWND_GAIN),
            Bbr3Mode::ProbeBw(Phase::Down) => (DOWN_PACING_GAIN, CWND_GAIN),
            Bbr3Mode::ProbeBw(_) => (1.0, CWND_GAIN),
            Bbr3Mode::ProbeRtt => (1.0, CWND_GAIN),
        };
    }

    /// "Pacing Rate" ([`Pacing`]): never lowered before the pipe is full.
    fn set_pacing_rate(&mut self, rs: &RateSample) {
        let bw = self.bw();
        self.pacing
            .update(rs.rtt, bw, self.pacing_gain, self.full_bw_reached);
    }

    fn save_cwnd(&mut self) {
        self.rec.save(self.cwnd, self.mode == Bbr3Mode::ProbeRtt);
    }

    /// "Congestion Window": recovery's conservation and restore as v1, growth toward
    /// `cwnd_gain × BDP`, then the bounds of the model ("Modulating cwnd ...").
    fn set_cwnd(&mut self, rs: &RateSample) {
        let target = self.inflight(self.bw(), self.cwnd_gain);
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
        if self.mode == Bbr3Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
        self.bound_cwnd_for_inflight_model();
    }

    /// v3's `bbr_bound_cwnd_for_inflight_model`: `inflight_hi` while probing (DOWN, REFILL,
    /// UP), with headroom while cruising and in PROBE_RTT, and `inflight_lo` always.
    fn bound_cwnd_for_inflight_model(&mut self) {
        let mut cap = match self.mode {
            Bbr3Mode::ProbeBw(Phase::Cruise) | Bbr3Mode::ProbeRtt => self.inflight_with_headroom(),
            Bbr3Mode::ProbeBw(_) => self.inflight_hi,
            _ => u64::MAX,
        };
        cap = cap.min(self.inflight_lo).max(self.min_cwnd());
        self.cwnd = self.cwnd.min(cap);
    }
}

impl CongestionControl for Bbr3 {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        u64::MAX
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        self.cwnd_limited = ev.cwnd_limited;
    }
    fn on_congestion(&mut self, _now: SimTime, _flight_size: u64, kind: Congestion) {
        // ECN acts through the mark rate (`on_ecn_feedback`), not the classic halving.
        if kind == Congestion::Loss {
            self.save_cwnd();
        }
    }
    fn on_ecn_mode(&mut self, mode: EcnMode) {
        self.ecn_mode = mode;
    }
    fn on_ecn_feedback(&mut self, fb: &EcnFeedback) {
        self.delivered_ce += fb.marked_bytes;
        if self.cwr_high != 0 && fb.snd_una >= self.cwr_high {
            self.cwr_high = 0;
        }
        if fb.ece && self.cwr_high == 0 {
            self.cwr_high = fb.snd_nxt.max(1);
        }
        if fb.marked_bytes > 0 && self.ecn_eligible() {
            self.ecn_in_round = true;
            self.ecn_in_cycle = true;
        }
    }
    fn on_rto(&mut self, _now: SimTime, _flight_size: Option<u64>) {
        self.cwnd = self
            .rec
            .on_rto(self.cwnd, self.mode == Bbr3Mode::ProbeRtt, self.mss);
        self.reset_full_bw();
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
        self.delivered = rs.delivered;
        let bw = rs.delivery_rate.filter(|_| rs.newly_delivered > 0);
        if rs.newly_lost > 0 {
            self.loss_in_cycle = true;
        }
        self.update_round(rs);
        self.update_latest_delivery_signals(rs, bw);
        self.update_congestion_signals(rs, bw);
        self.check_loss_too_high_in_startup(rs);
        self.update_ecn_alpha();
        self.check_full_bw_reached(rs, bw);
        self.check_drain(rs);
        self.update_cycle_phase(rs, bw);
        self.update_min_rtt(rs);
        self.update_gains();
        self.set_pacing_rate(rs);
        self.set_cwnd(rs);
        if self.loss_round_start {
            // v3's `bbr_advance_latest_delivery_signals`.
            self.bw_latest = bw.unwrap_or(0.0);
            self.inflight_latest = rs.delivered - rs.prior_delivered;
        }
    }
    fn pacing_rate(&self) -> Option<f64> {
        self.pacing.rate()
    }
    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        let mode = match self.mode {
            Bbr3Mode::Startup => 0.0,
            Bbr3Mode::Drain => 1.0,
            Bbr3Mode::ProbeBw(Phase::Down) => 2.0,
            Bbr3Mode::ProbeBw(Phase::Cruise) => 2.25,
            Bbr3Mode::ProbeBw(Phase::Refill) => 2.5,
            Bbr3Mode::ProbeBw(Phase::Up) => 2.75,
            Bbr3Mode::ProbeRtt => 3.0,
        };
        visit("bbr_mode", mode);
        visit("btl_bw_bps", self.bw() * 8.0);
        visit(
            "rtprop_s",
            self.min_rtt.map_or(f64::NAN, SimDuration::as_secs_f64),
        );
        visit("pacing_gain", self.pacing_gain);
        visit("pacing_rate_bps", self.pacing.rate().unwrap_or(0.0) * 8.0);
        let b = |x: u64| if x == u64::MAX { f64::NAN } else { x as f64 };
        visit("inflight_hi", b(self.inflight_hi));
        visit("inflight_lo", b(self.inflight_lo));
        visit("ecn_alpha", self.ecn_alpha);
    }
}

#[cfg(test)]
mod tests {
    use super::super::bbr_model::PROBE_RTT_DURATION;
    use super::*;

    const MSS: u64 = 1000;
    const RTT: SimDuration = SimDuration::from_millis(100);

    /// A sample that ends a round and delivers one segment at `bw` bytes/s, with `in_flight`
    /// bytes in flight before and after it.
    fn sample(b: &Bbr3, now: SimTime, bw: f64, in_flight: u64) -> RateSample {
        RateSample {
            now,
            delivery_rate: Some(bw),
            prior_delivered: b.next_round_delivered.max(b.loss_round_delivered),
            delivered: b.delivered + MSS,
            newly_delivered: MSS,
            rtt: Some(RTT),
            prior_in_flight: in_flight,
            in_flight,
            tx_in_flight: in_flight,
            mss: MSS,
            ..RateSample::default()
        }
    }

    /// One round of `RTT` per rate in `bws`.
    fn rounds(b: &mut Bbr3, t: &mut SimTime, bws: &[f64], in_flight: u64) {
        for &bw in bws {
            *t += RTT;
            let rs = sample(b, *t, bw, in_flight);
            b.on_rate_sample(&rs);
        }
    }

    /// A flow in PROBE_BW CRUISE at `bw` bytes/s over 100 ms.
    fn cruising_at(t: &mut SimTime, bw: f64) -> Bbr3 {
        let mut b = Bbr3::new(MSS, 10 * MSS);
        rounds(&mut b, t, &[bw; 4], 10 * MSS);
        assert_eq!(b.mode(), Bbr3Mode::ProbeBw(Phase::Cruise));
        b
    }

    /// A flow in PROBE_BW CRUISE at 100 kB/s over 100 ms (BDP 10 segments).
    fn cruising(t: &mut SimTime) -> Bbr3 {
        cruising_at(t, 1e5)
    }

    #[test]
    fn startup_gains_and_exit_after_three_rounds_without_25_percent_growth() {
        let mut b = Bbr3::new(MSS, 10 * MSS);
        let mut t = SimTime::ZERO;
        assert_eq!((b.pacing_gain(), b.cwnd_gain()), (2.77, 2.0));
        rounds(&mut b, &mut t, &[1e5, 2e5], 1_000_000);
        // Pacing 2.77 × 200 kB/s less 1 %; the window grows toward 2 × BDP = 40 segments.
        assert_eq!(b.pacing_rate(), Some(2e5 * 2.77 * 0.99));
        assert_eq!(b.inflight(2e5, b.cwnd_gain()), 40 * MSS);
        rounds(&mut b, &mut t, &[2.4e5, 2.45e5], 1_000_000);
        assert_eq!(
            (b.mode(), b.full_bw_count, b.full_bw),
            (Bbr3Mode::Startup, 2, 2e5)
        );
        rounds(&mut b, &mut t, &[2.499e5], 1_000_000);
        assert!(b.full_bw_reached());
        assert_eq!(b.mode(), Bbr3Mode::Drain);
        assert_eq!(b.pacing_gain(), 1.0 / 2.885);
        assert_eq!(b.pacing_rate(), Some(2.499e5 * DRAIN_PACING_GAIN * 0.99));
        // DRAIN ends once the flight is at most one BDP: 24.99 kB, 25 segments.
        rounds(&mut b, &mut t, &[2.499e5], 26 * MSS);
        assert_eq!(b.mode(), Bbr3Mode::Drain);
        rounds(&mut b, &mut t, &[2.499e5], 25 * MSS);
        assert!(matches!(b.mode(), Bbr3Mode::ProbeBw(_)));

        // Counterfactual: 25 % growth in the third round restarts the count.
        let mut c = Bbr3::new(MSS, 10 * MSS);
        let mut t = SimTime::ZERO;
        rounds(&mut c, &mut t, &[1e5, 2e5, 2.4e5, 2.45e5, 2.5e5], 1_000_000);
        assert_eq!(
            (c.mode(), c.full_bw_count, c.full_bw),
            (Bbr3Mode::Startup, 0, 2.5e5)
        );
    }

    #[test]
    fn startup_ends_on_loss_above_2_percent_with_six_loss_events_in_a_recovery_round() {
        let run = |lost_per_event: u64| {
            let mut b = Bbr3::new(MSS, 10 * MSS);
            let mut t = SimTime::ZERO;
            rounds(&mut b, &mut t, &[1e5, 2e5, 4e5], 100 * MSS);
            // Six ACKs within one round, each marking loss; the last one ends the round.
            let mut rs = sample(&b, t, 8e5, 100 * MSS);
            rs.ca_state = CaState::Recovery;
            for i in 0..6 {
                rs.now = t + SimDuration::from_millis(10 * (i + 1));
                rs.newly_lost = MSS;
                rs.lost = lost_per_event * (i + 1);
                rs.tx_in_flight = 100 * MSS;
                rs.prior_delivered = if i == 5 { b.loss_round_delivered } else { 0 };
                rs.delivered = b.delivered + MSS;
                b.on_rate_sample(&rs);
            }
            b
        };
        // 6 of 100 segments lost in the flight: 6 % > 2 %.
        let b = run(MSS);
        assert!(b.full_bw_reached(), "six loss events and 6 % loss");
        assert_eq!(b.mode(), Bbr3Mode::Drain);
        // inflight_hi = max(BDP at max_bw (800 kB/s × 100 ms = 80 segments), the flight
        // delivered in the latest round).
        assert_eq!(b.inflight_hi(), 80 * MSS);
        // Counterfactual: the same six events losing 2 % (2 of 100 segments) in all: no exit.
        let c = run(MSS / 3);
        assert!(!c.full_bw_reached());
        assert_eq!(c.mode(), Bbr3Mode::Startup);
    }

    #[test]
    fn ecn_alpha_ewma_and_startup_exit_on_two_rounds_above_half_marked() {
        let run = |marked_per_round: u64, rtt: SimDuration| {
            let mut b = Bbr3::new(MSS, 10 * MSS);
            b.on_ecn_mode(EcnMode::Classic);
            let mut t = SimTime::ZERO;
            let mut out = Vec::new();
            for i in 0..4u64 {
                t += rtt;
                // Ten segments delivered per round, `marked_per_round` of them CE-marked.
                b.on_ecn_feedback(&EcnFeedback {
                    now: t,
                    acked_bytes: 10 * MSS,
                    delivered_bytes: 10 * MSS,
                    marked_bytes: marked_per_round * MSS,
                    delivered_packets: 10,
                    ce_packets: 0,
                    ece: marked_per_round > 0,
                    snd_una: 0,
                    snd_nxt: 0,
                });
                let mut rs = sample(&b, t, 1e5 * (1u64 << i) as f64, 100 * MSS);
                rs.delivered = b.delivered + 10 * MSS;
                rs.newly_delivered = 10 * MSS;
                rs.rtt = Some(rtt);
                b.on_rate_sample(&rs);
                out.push((b.ecn_alpha(), b.mode()));
            }
            out
        };
        let ms = SimDuration::from_millis(1);
        // 5 of 10 marked: α = 15/16 · 1 + 1/16 · 0.5 = 0.96875 after the first counted round
        // (the first sample sets the minimum RTT, so ECN counts from the second).
        let r = run(5, ms);
        assert_eq!(r[1].0, 0.96875);
        assert_eq!(r[2].0, 15.0 / 16.0 * 0.96875 + 0.5 / 16.0);
        assert_eq!(
            r[1].1,
            Bbr3Mode::Startup,
            "one round above 50 % is not enough"
        );
        assert_eq!(r[2].1, Bbr3Mode::Drain, "the second ends STARTUP");
        // Counterfactuals: 4 of 10 marked, or a 100 ms path (ECN ignored above 5 ms).
        assert!(run(4, ms).iter().all(|&(_, m)| m == Bbr3Mode::Startup));
        assert!(run(5, RTT)
            .iter()
            .all(|&(a, m)| a == 1.0 && m == Bbr3Mode::Startup));
    }

    #[test]
    fn probe_bw_cycle_cruise_refill_up_down_with_wall_clock_probe_wait() {
        let mut t = SimTime::ZERO;
        let mut b = cruising(&mut t);
        assert_eq!((b.pacing_gain(), b.cwnd_gain()), (1.0, 2.0));
        // The wait is drawn in [2 s, 3 s); BDP 10 segments bounds the rounds to 10 − U{0,1}.
        assert!(b.probe_wait >= PROBE_BASE && b.probe_wait < PROBE_BASE + PROBE_RAND);
        assert!(b.rounds_since_probe < PROBE_RAND_ROUNDS);
        // 100 ms rounds: the Reno-coexistence bound (≤ 10 rounds, 1 s) comes first.
        let start = t;
        let mut refill_at = None;
        for _ in 0..40 {
            rounds(&mut b, &mut t, &[1e5], 10 * MSS);
            if b.mode() == Bbr3Mode::ProbeBw(Phase::Refill) {
                refill_at = Some(t);
                break;
            }
        }
        let waited = refill_at.expect("REFILL").saturating_since(start);
        assert!(waited <= SimDuration::from_millis(1000), "{waited:?}");
        assert!(waited >= SimDuration::from_millis(800), "{waited:?}");
        assert_eq!(b.inflight_lo(), u64::MAX, "REFILL clears the lower bounds");
        // One round of REFILL, then UP at 1.25 / 2.25.
        rounds(&mut b, &mut t, &[1e5], 10 * MSS);
        assert_eq!(b.mode(), Bbr3Mode::ProbeBw(Phase::Up));
        assert_eq!((b.pacing_gain(), b.cwnd_gain()), (1.25, 2.25));
        assert_eq!(b.pacing_rate(), Some(1e5 * 1.25 * 0.99));
        // Loss of 3 segments of a 20-segment flight (15 % > 2 %): inflight_hi to
        // max(tx_in_flight = 20, 0.7 × target) and DOWN at 0.91.
        t += SimDuration::from_millis(10);
        let mut rs = sample(&b, t, 1e5, 20 * MSS);
        rs.prior_delivered = 0; // mid-round
        rs.lost = 3 * MSS;
        rs.newly_lost = 3 * MSS;
        b.on_rate_sample(&rs);
        assert_eq!(b.inflight_hi(), 20 * MSS);
        assert_eq!(b.mode(), Bbr3Mode::ProbeBw(Phase::Down));
        assert_eq!(b.pacing_gain(), 0.91);
        // DOWN → CRUISE needs the flight at most the BDP (10) and under inflight_hi less 15 %
        // headroom (17 segments).
        assert_eq!(b.inflight_with_headroom(), 17 * MSS);
        rounds(&mut b, &mut t, &[1e5], 11 * MSS);
        assert_eq!(b.mode(), Bbr3Mode::ProbeBw(Phase::Down));
        rounds(&mut b, &mut t, &[1e5], 10 * MSS);
        assert_eq!(b.mode(), Bbr3Mode::ProbeBw(Phase::Cruise));
        assert_eq!(b.cwnd(), 17 * MSS, "CRUISE caps the window at the headroom");

        // Counterfactual: 2 % loss exactly (not above) leaves UP alone.
        let mut t = SimTime::ZERO;
        let mut c = cruising(&mut t);
        while c.mode() != Bbr3Mode::ProbeBw(Phase::Up) {
            rounds(&mut c, &mut t, &[1e5], 10 * MSS);
        }
        t += SimDuration::from_millis(10);
        let mut rs = sample(&c, t, 1e5, 50 * MSS);
        rs.prior_delivered = 0;
        rs.lost = MSS;
        c.on_rate_sample(&rs);
        assert_eq!(c.mode(), Bbr3Mode::ProbeBw(Phase::Up));
        assert_eq!(c.inflight_hi(), u64::MAX);
    }

    #[test]
    fn a_large_bdp_probes_on_the_wall_clock() {
        // 10 MB/s over 100 ms: BDP 1000 segments, so the round bound is 63 rounds (6.3 s) and
        // the wall clock (2-3 s) comes first.
        let mut b = Bbr3::new(MSS, 10 * MSS);
        let mut t = SimTime::ZERO;
        rounds(&mut b, &mut t, &[1e7; 4], 1000 * MSS);
        assert_eq!(b.mode(), Bbr3Mode::ProbeBw(Phase::Cruise));
        let (start, wait) = (b.cycle_stamp, b.probe_wait);
        while b.mode() == Bbr3Mode::ProbeBw(Phase::Cruise) {
            rounds(&mut b, &mut t, &[1e7], 1000 * MSS);
        }
        assert_eq!(b.mode(), Bbr3Mode::ProbeBw(Phase::Refill));
        // The first round after the wait has passed.
        let waited = t.saturating_since(start);
        assert!(
            waited > wait && waited <= wait + RTT,
            "{waited:?} vs {wait:?}"
        );
    }

    #[test]
    fn loss_while_cruising_cuts_bw_lo_and_inflight_lo_by_30_percent_once_per_round() {
        // 1 MB/s over 100 ms: BDP 100 segments, so the next probe is 2-3 s or 63 rounds away.
        let mut t = SimTime::ZERO;
        let mut b = cruising_at(&mut t, 1e6);
        // An ACK for many segments mid-round: the window grows by them to its target.
        t += SimDuration::from_millis(10);
        let mut rs = sample(&b, t, 1e6, 10 * MSS);
        (rs.prior_delivered, rs.newly_delivered) = (0, 200 * MSS - b.cwnd());
        b.on_rate_sample(&rs);
        assert_eq!(b.mode(), Bbr3Mode::ProbeBw(Phase::Cruise));
        assert_eq!(b.cwnd(), 200 * MSS, "2 × BDP");
        // A round at 400 kB/s with a loss in its middle (1 % of the flight: not "too high").
        let lossy_round = |b: &mut Bbr3, t: &mut SimTime| {
            rounds(b, t, &[4e5], 10 * MSS);
            *t += SimDuration::from_millis(10);
            let mut rs = sample(b, *t, 4e5, 10 * MSS);
            rs.prior_delivered = 0;
            rs.newly_lost = MSS;
            rs.lost = MSS;
            rs.tx_in_flight = 100 * MSS;
            b.on_rate_sample(&rs);
        };
        lossy_round(&mut b, &mut t);
        assert_eq!(b.bw_lo(), f64::INFINITY, "bounds move at the round's end");
        rounds(&mut b, &mut t, &[4e5], 10 * MSS);
        // bw_lo = max(bw_latest, 0.7 × max_bw) = max(400, 700) kB/s; inflight_lo =
        // max(latest flight, 0.7 × cwnd) = 0.7 × 200 segments.
        assert_eq!(b.bw_lo(), 700_000.0);
        assert_eq!(b.inflight_lo(), 140 * MSS);
        assert_eq!(b.bw(), 700_000.0);
        assert!(b.cwnd() <= 140 * MSS);
        // A second lossy round: 0.7 × 0.7.
        lossy_round(&mut b, &mut t);
        rounds(&mut b, &mut t, &[4e5], 10 * MSS);
        assert_eq!(b.mode(), Bbr3Mode::ProbeBw(Phase::Cruise));
        assert_eq!(b.bw_lo(), 700_000.0 * (1.0 - BETA), "490 kB/s");
        assert_eq!(b.inflight_lo(), 98 * MSS);
        // Counterfactual: rounds without loss leave them.
        rounds(&mut b, &mut t, &[4e5, 4e5], 10 * MSS);
        assert_eq!((b.bw_lo(), b.inflight_lo()), (700_000.0 * 0.7, 98 * MSS));
    }

    #[test]
    fn probe_rtt_every_5_s_at_half_a_bdp_for_200_ms() {
        let mut t = SimTime::ZERO;
        let mut b = Bbr3::new(MSS, 10 * MSS);
        // 1 MB/s over 100 ms: BDP 100 segments, PROBE_RTT's window 50.
        rounds(&mut b, &mut t, &[1e6; 4], 100 * MSS);
        assert_eq!(b.mode(), Bbr3Mode::ProbeBw(Phase::Cruise));
        let stamp = b.probe_rtt_min_stamp;
        assert_eq!(stamp, SimTime::from_millis(100));
        let mut entered = None;
        while entered.is_none() {
            rounds(&mut b, &mut t, &[1e6], 100 * MSS);
            if b.mode() == Bbr3Mode::ProbeRtt {
                entered = Some(t);
            }
        }
        let entered = entered.unwrap();
        // RTT samples of exactly 100 ms never lower the filter: it expires after 5 s.
        let five_s = SimDuration::from_secs(5);
        assert!(entered > stamp + five_s && entered <= stamp + five_s + RTT);
        assert_eq!(b.cwnd(), 50 * MSS);
        assert_eq!(b.pacing_gain(), 1.0);
        // Flight at 50 segments: 200 ms and a round from now.
        rounds(&mut b, &mut t, &[1e6], 50 * MSS);
        let t50 = t;
        assert_eq!(b.probe_rtt.done(), Some(t50 + PROBE_RTT_DURATION));
        let mut left = None;
        for k in 1..=6 {
            t = t50 + SimDuration::from_millis(50 * k);
            let rs = sample(&b, t, 1e6, 50 * MSS);
            b.on_rate_sample(&rs);
            if b.mode() != Bbr3Mode::ProbeRtt {
                left = Some(t);
                break;
            }
        }
        assert_eq!(left, Some(t50 + SimDuration::from_millis(250)));
        assert_eq!(b.mode(), Bbr3Mode::ProbeBw(Phase::Cruise));
        assert_eq!(b.probe_rtt_min_stamp, t50 + SimDuration::from_millis(250));
        // Counterfactual: RTT samples that keep falling refresh the filter: no PROBE_RTT.
        let mut t = SimTime::ZERO;
        let mut c = Bbr3::new(MSS, 10 * MSS);
        rounds(&mut c, &mut t, &[1e6; 4], 100 * MSS);
        for i in 0..100u64 {
            t += RTT;
            let mut rs = sample(&c, t, 1e6, 100 * MSS);
            rs.rtt = Some(SimDuration::from_nanos(RTT.as_nanos() - 1000 * (i + 1)));
            c.on_rate_sample(&rs);
            assert_ne!(c.mode(), Bbr3Mode::ProbeRtt);
        }
    }
}
