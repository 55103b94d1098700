//! The pieces BBR v1 (`bbr.rs`) and BBR v3 (`bbr3.rs`) share: the BDP from a bandwidth and
//! the minimum RTT, the send quantum, and the hash behind their "random" draws.

use super::{CaState, RateSample};
use aqmlab_core::SimDuration;

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
    pub(super) fn adjust(&mut self, rs: &RateSample, cwnd: u64, mss: u64) -> (u64, bool) {
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
}
