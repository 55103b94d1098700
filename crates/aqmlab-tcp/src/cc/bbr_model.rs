//! The pieces BBR v1 (`bbr.rs`) and BBR v3 (`bbr3.rs`) share: the BDP from a bandwidth and
//! the minimum RTT, the send quantum, the hash behind their "random" draws, the pacing rate
//! ([`Pacing`]), the window's per-ACK step with loss recovery ([`RecoveryWindow`]) and
//! PROBE_RTT's exit timer ([`ProbeRttTimer`]).

use super::{CaState, RateSample};
use aqmlab_core::{SimDuration, SimTime};

/// Minimum window in segments (Linux `bbr_cwnd_min_target`; draft-ietf-ccwg-bbr
/// `BBR.MinPipeCwnd` = 4 packets).
pub const MIN_CWND_SEGMENTS: u64 = 4;
/// Growth that counts as still filling the pipe: 25 % (v1 and v3 alike).
pub const FULL_BW_THRESH: f64 = 1.25;
/// Rounds without that growth before the pipe counts as full.
pub const FULL_BW_COUNT: u32 = 3;
/// Linux's `bbr_pacing_margin_percent`: pacing 1 % below the model's rate.
pub const PACING_MARGIN: f64 = 0.01;
/// Time spent in PROBE_RTT at the reduced window.
pub const PROBE_RTT_DURATION: SimDuration = SimDuration::from_millis(200);
/// Length of the minimum-RTT filter.
pub const MIN_RTT_FILTER_LEN: SimDuration = SimDuration::from_secs(10);

/// `bw × min_rtt × gain` in bytes, rounded up to whole segments (`bbr_bdp`); `initial`
/// (the initial window) before any RTT sample.
pub(super) fn bdp(bw: f64, min_rtt: Option<SimDuration>, gain: f64, mss: u64, initial: u64) -> u64 {
    let Some(rtt) = min_rtt else {
        return initial;
    };
    let bytes = bw * rtt.as_secs_f64() * gain;
    (bytes / mss as f64).ceil() as u64 * mss
}

/// The send quantum in segments at a pacing rate of `rate` bytes/s, as ns-3's
/// `TcpBbr::SetSendQuantum` and Linux's `bbr_tso_segs_goal` give it at these rates: 1 below
/// 1.2 Mb/s, 2 below 24 Mb/s, else 1 ms of pacing up to 64 KB.
pub(super) fn send_quantum_segments(rate: f64, mss: u64) -> u64 {
    if rate < 1.2e6 / 8.0 {
        1
    } else if rate < 24e6 / 8.0 {
        2
    } else {
        ((rate * 1e-3).min(65_536.0) as u64 / mss).max(2)
    }
}

/// SplitMix64's finaliser (a fixed hash): BBR's random draws are hashes of the time and the
/// delivered count, so the same run gives the same draws.
pub(super) fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The pacing rate as v1 and v3 both set it (Linux `bbr_init_pacing_rate_from_rtt` and
/// `bbr_set_pacing_rate`; BBR v1 draft §4.2.1, draft-ietf-ccwg-bbr "Pacing Rate"): at first
/// STARTUP's gain × the initial window / RTT (1 ms before any RTT sample, then the first
/// sample's RTT), afterwards `gain × bw` less [`PACING_MARGIN`], never lowered before the pipe
/// is full.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pacing {
    rate: Option<f64>,
    has_seen_rtt: bool,
    startup_gain: f64,
    initial_cwnd: u64,
}

impl Pacing {
    /// The rate before any RTT sample, for an `initial_cwnd`-byte window.
    pub(super) fn new(startup_gain: f64, initial_cwnd: u64) -> Self {
        let mut p = Pacing {
            rate: None,
            has_seen_rtt: false,
            startup_gain,
            initial_cwnd,
        };
        p.init(SimDuration::from_millis(1));
        p
    }

    /// The rate, bytes/s.
    pub(super) fn rate(&self) -> Option<f64> {
        self.rate
    }

    fn init(&mut self, rtt: SimDuration) {
        let rtt = rtt.as_secs_f64().max(1e-6);
        self.rate =
            Some(self.startup_gain * self.initial_cwnd as f64 / rtt * (1.0 - PACING_MARGIN));
    }

    /// On a rate sample with RTT `rtt`: the model's bandwidth `bw` (bytes/s) at `gain`.
    pub(super) fn update(
        &mut self,
        rtt: Option<SimDuration>,
        bw: f64,
        gain: f64,
        full_bw_reached: bool,
    ) {
        if !self.has_seen_rtt {
            if let Some(r) = rtt {
                self.has_seen_rtt = true;
                self.init(r);
            }
        }
        let rate = bw * gain * (1.0 - PACING_MARGIN);
        if rate > 0.0 && (full_bw_reached || self.rate.is_none_or(|p| rate > p)) {
            self.rate = Some(rate);
        }
    }
}

/// The window's loss-recovery state, as Linux's `bbr_set_cwnd_to_recover_or_restore` (the
/// same in v1 and v3): the window before recovery (`prior_cwnd`), the previous ACK's recovery
/// state, and packet conservation in recovery's first round.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RecoveryWindow {
    pub(super) prior_cwnd: u64,
    pub(super) prev_ca: CaState,
    pub(super) packet_conservation: bool,
}

impl RecoveryWindow {
    /// `bbr_save_cwnd`: the window to restore after recovery or PROBE_RTT.
    pub(super) fn save(&mut self, cwnd: u64, in_probe_rtt: bool) {
        self.prior_cwnd = if self.prev_ca < CaState::Recovery && !in_probe_rtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    /// On an ACK that delivered data: the window less the bytes newly lost; on entering fast
    /// recovery, the flight plus the delivered bytes (packet conservation starts); on leaving
    /// it, at least the window saved before. Returns the window and whether recovery began
    /// (a new round starts then).
    fn adjust(&mut self, rs: &RateSample, cwnd: u64, mss: u64) -> (u64, bool) {
        let mut cwnd = cwnd;
        let mut entered = false;
        if rs.newly_lost > 0 {
            cwnd = cwnd.saturating_sub(rs.newly_lost).max(mss);
        }
        if rs.ca_state == CaState::Recovery && self.prev_ca != CaState::Recovery {
            self.packet_conservation = true;
            entered = true;
            cwnd = rs.in_flight + rs.newly_delivered;
        } else if self.prev_ca >= CaState::Recovery && rs.ca_state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca = rs.ca_state;
        (cwnd, entered)
    }

    /// `bbr_set_cwnd` up to each version's own caps (v1's PROBE_RTT window; v3's PROBE_RTT
    /// window and inflight bounds): on an ACK that delivered data, [`Self::adjust`], then in
    /// recovery's first round at least the flight plus the delivered bytes, else growth by the
    /// delivered bytes toward `target` (capped at it once the pipe is full; before that, grown
    /// below it or while fewer than `initial_cwnd` bytes have been delivered), at least
    /// [`MIN_CWND_SEGMENTS`]. `target` is the version's `cwnd_gain × BDP` with its budgets.
    /// Returns the window and whether fast recovery began (a round starts then).
    pub(super) fn set_cwnd(
        &mut self,
        rs: &RateSample,
        cwnd: u64,
        target: u64,
        full_bw_reached: bool,
        initial_cwnd: u64,
        mss: u64,
    ) -> (u64, bool) {
        let acked = rs.newly_delivered;
        if acked == 0 {
            self.prev_ca = rs.ca_state;
            return (cwnd, false);
        }
        let (mut cwnd, entered) = self.adjust(rs, cwnd, mss);
        if self.packet_conservation {
            cwnd = cwnd.max(rs.in_flight + acked);
        } else {
            if full_bw_reached {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || rs.delivered < initial_cwnd {
                cwnd += acked;
            }
            cwnd = cwnd.max(MIN_CWND_SEGMENTS * mss);
        }
        (cwnd, entered)
    }

    /// A retransmission timeout: `bbr_ssthresh` saves the window, `tcp_enter_loss` sets it to
    /// the segments in flight plus one (all are presumed lost: one segment), the state becomes
    /// Loss. Returns the new window.
    pub(super) fn on_rto(&mut self, cwnd: u64, in_probe_rtt: bool, mss: u64) -> u64 {
        self.save(cwnd, in_probe_rtt);
        self.prev_ca = CaState::Loss;
        mss
    }
}

/// What one ACK in PROBE_RTT did to [`ProbeRttTimer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ProbeRttStep {
    /// Still draining to the PROBE_RTT window, or holding it.
    Hold,
    /// The flight fell to the PROBE_RTT window: the 200 ms started, and a new round must
    /// start now (the caller sets its next round's end to the delivered count).
    Started,
    /// 200 ms and a round have passed at the PROBE_RTT window: leave PROBE_RTT.
    Exit,
}

/// PROBE_RTT's exit timer, the same in v1 and v3 (Linux `bbr_update_min_rtt` in both; BBR v1
/// draft §4.3.5 `BBRHandleProbeRTT`, draft-ietf-ccwg-bbr "ProbeRTT"): once the flight is at
/// most the PROBE_RTT window, hold it for [`PROBE_RTT_DURATION`] and at least one round trip,
/// then leave.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ProbeRttTimer {
    done: Option<SimTime>,
    round_done: bool,
}

impl ProbeRttTimer {
    /// Entering PROBE_RTT: the timer waits for the flight to fall (`probe_rtt_done_stamp = 0`).
    pub(super) fn reset(&mut self) {
        self.done = None;
    }

    /// When the 200 ms end, once started.
    #[cfg(test)]
    pub(super) fn done(&self) -> Option<SimTime> {
        self.done
    }

    /// One ACK in PROBE_RTT at `now` with `in_flight` bytes out, `window` the PROBE_RTT window,
    /// `round_start` whether this ACK began a round.
    pub(super) fn on_ack(
        &mut self,
        now: SimTime,
        in_flight: u64,
        window: u64,
        round_start: bool,
    ) -> ProbeRttStep {
        match self.done {
            None if in_flight <= window => {
                self.done = Some(now + PROBE_RTT_DURATION);
                self.round_done = false;
                ProbeRttStep::Started
            }
            None => ProbeRttStep::Hold,
            Some(done) => {
                if round_start {
                    self.round_done = true;
                }
                if self.round_done && now > done {
                    ProbeRttStep::Exit
                } else {
                    ProbeRttStep::Hold
                }
            }
        }
    }
}
