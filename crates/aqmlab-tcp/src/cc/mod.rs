//! Congestion control behind a narrow, clock-free interface.
//!
//! The sender owns loss detection and recovery; a congestion controller only owns `cwnd` and
//! `ssthresh` (in bytes) and reacts to four events, each carrying `now`:
//!
//! * [`CongestionControl::on_ack`]: an ACK advanced `snd_una` outside loss recovery (window growth).
//! * [`CongestionControl::on_congestion`]: fast retransmit or an ECN echo (multiplicative decrease).
//! * [`CongestionControl::on_recovery_exit`]: fast recovery ended with a full ACK.
//! * [`CongestionControl::on_rto`]: the retransmission timer expired.
//!
//! and, with ECN, sees every ACK's echo ([`CongestionControl::on_ecn_feedback`]; DCTCP).
//! A model-based controller (BBR) also sees every ACK's delivery-rate sample
//! ([`CongestionControl::on_rate_sample`]) and sets the pacing rate
//! ([`CongestionControl::pacing_rate`]).
//!
//! [`AnyCc`] dispatches over the built-in algorithms with a `match` (no `dyn` on the hot path), as
//! smoltcp's `AnyController`. The trait exists so tests and experiments can write their own.

mod bbr;
mod bbr3;
mod bbr_model;
mod cubic;
mod dctcp;
mod hystart;
mod hystart_linux;
mod ledbat;
mod prague;
mod prague_classic;
mod reno;
mod vegas;

pub use bbr::{Bbr, BbrMode};
pub use bbr3::{Bbr3, Bbr3Mode, Phase};
pub use cubic::Cubic;
pub use dctcp::Dctcp;
pub use hystart::{Growth, HyStart, CSS_GROWTH_DIVISOR};
pub use hystart_linux::LinuxHyStart;
pub use ledbat::Ledbat;
pub use prague::Prague;
pub use prague_classic::ClassicEcnDetector;
pub use reno::Reno;
pub use vegas::Vegas;

use crate::accecn::EcnMode;
use crate::config::{CcConfig, CcKind};
use aqmlab_core::{SimDuration, SimTime};

/// Everything a controller may look at when an ACK advances `snd_una`.
#[derive(Clone, Copy, Debug)]
pub struct AckEvent {
    /// Arrival time of the ACK.
    pub now: SimTime,
    /// Bytes newly acknowledged cumulatively by this ACK.
    pub acked_bytes: u64,
    /// RTT sample taken from this ACK (Karn's rule already applied).
    pub rtt: Option<SimDuration>,
    /// Smoothed RTT after this ACK.
    pub srtt: Option<SimDuration>,
    /// `snd_una` after the ACK.
    pub snd_una: u64,
    /// `snd_nxt` (one past the highest byte sent).
    pub snd_nxt: u64,
    /// Bytes in flight after the ACK (RFC 6675 `pipe`).
    pub in_flight: u64,
    /// True if the window, not the receiver window or the application, limited sending when this
    /// ACK arrived (RFC 7661's "cwnd-limited"); controllers grow only then.
    pub cwnd_limited: bool,
    /// Sender MSS in bytes.
    pub mss: u64,
}

/// What one ACK said about ECN marks: with classic ECN or DCTCP's echo, an ACK that advanced
/// `snd_una` (RFC 8257 §3.3 steps 1–2); with AccECN, any ACK that newly delivered data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EcnFeedback {
    /// Arrival time of the ACK.
    pub now: SimTime,
    /// Bytes newly acknowledged cumulatively.
    pub acked_bytes: u64,
    /// Bytes the ACK newly delivered: classic ECN, `acked_bytes` (SACKed bytes are not
    /// counted, RFC 8257 §3.3); AccECN, cumulatively or by SACK (RFC 9768 Appendix A.1).
    pub delivered_bytes: u64,
    /// Of those, bytes reported CE-marked: all of them if the ACK carried ECE (classic, DCTCP's
    /// echo); with AccECN, `ce_packets` segments' worth, at most `delivered_bytes`.
    pub marked_bytes: u64,
    /// `delivered_bytes` in segments (rounded up).
    pub delivered_packets: u64,
    /// AccECN: CE-marked packets newly reported by the ACE field (0 with classic ECN).
    pub ce_packets: u64,
    /// The ACK signals congestion: ECN-Echo set, or with AccECN a non-zero `ce_packets`.
    pub ece: bool,
    /// `snd_una` after the ACK.
    pub snd_una: u64,
    /// `snd_nxt` when the ACK arrived.
    pub snd_nxt: u64,
}

/// The sender's loss-recovery state, as Linux's `icsk_ca_state` (Open, Recovery, Loss).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum CaState {
    /// No recovery.
    #[default]
    Open,
    /// Fast recovery.
    Recovery,
    /// After a retransmission timeout.
    Loss,
}

/// One ACK's delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation §3.3) with the
/// window state a model-based controller needs; given on every ACK, in recovery too.
#[derive(Clone, Copy, Debug, Default)]
pub struct RateSample {
    /// Arrival time of the ACK.
    pub now: SimTime,
    /// `rs.delivery_rate` in bytes per second, `None` when the ACK gives no valid sample.
    pub delivery_rate: Option<f64>,
    /// `rs.prior_delivered`: the connection's delivered count when the newest segment this
    /// ACK delivered was sent (round-trip counting).
    pub prior_delivered: u64,
    /// `C.delivered` after this ACK, bytes.
    pub delivered: u64,
    /// `rs.is_app_limited`.
    pub app_limited: bool,
    /// Bytes this ACK delivered, cumulatively or by SACK.
    pub newly_delivered: u64,
    /// Bytes this ACK marked lost.
    pub newly_lost: u64,
    /// `rs.lost`: bytes marked lost since the newest segment this ACK delivered was sent
    /// (BBR v3's loss rate over one flight).
    pub lost: u64,
    /// `rs.tx_in_flight`: bytes in flight when that segment was sent, itself included.
    pub tx_in_flight: u64,
    /// RTT of the newest delivered segment that was never retransmitted.
    pub rtt: Option<SimDuration>,
    /// Bytes in flight (RFC 6675 `pipe`) before the ACK.
    pub prior_in_flight: u64,
    /// Bytes in flight after the ACK.
    pub in_flight: u64,
    /// Recovery state after the ACK.
    pub ca_state: CaState,
    /// Sender MSS in bytes.
    pub mss: u64,
}

/// Why the window is being reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Congestion {
    /// Loss detected by duplicate ACKs / SACK (fast retransmit).
    Loss,
    /// An ACK carried ECN-Echo (RFC 3168 §6.1.2).
    Ecn,
}

/// The hooks a congestion controller implements. Windows are in bytes.
pub trait CongestionControl {
    /// Congestion window.
    fn cwnd(&self) -> u64;
    /// Slow-start threshold.
    fn ssthresh(&self) -> u64;
    /// An ACK advanced `snd_una` outside loss recovery.
    fn on_ack(&mut self, ev: &AckEvent);
    /// A congestion signal: set `ssthresh` and `cwnd`. `flight_size` is `snd_nxt - snd_una`.
    fn on_congestion(&mut self, now: SimTime, flight_size: u64, kind: Congestion);
    /// An ACK advanced `snd_una` on an ECN-capable connection, in or out of loss recovery;
    /// called before the ECN-Echo reaction ([`CongestionControl::on_congestion`] with
    /// [`Congestion::Ecn`]) the same ACK may cause.
    fn on_ecn_feedback(&mut self, _fb: &EcnFeedback) {}
    /// The handshake settled the connection's ECN feedback mode (`accecn.rs`); called once,
    /// before any data is sent.
    fn on_ecn_mode(&mut self, _mode: EcnMode) {}
    /// A one-way delay sample from an ACK that advanced `snd_una` (the receiver's timestamp
    /// less the echoed one, RFC 7323; only for controllers that ask the sender to stamp its
    /// segments, [`crate::TcpConfig::timestamps`]); called before [`CongestionControl::on_ack`].
    fn on_delay_sample(&mut self, _now: SimTime, _owd: SimDuration) {}
    /// Fast recovery ended (the recovery point was cumulatively acknowledged).
    fn on_recovery_exit(&mut self, _now: SimTime) {}
    /// The retransmission timer expired: `cwnd` = the loss window. `flight_size` is the
    /// FlightSize RFC 5681 §3.1 equation (4) is to halve (the sender's RFC 6675 `pipe`, capped
    /// during fast recovery so that `ssthresh` cannot rise), or `None` when `ssthresh` is held
    /// (the oldest segment was already resent by the timer, §3.1).
    fn on_rto(&mut self, now: SimTime, flight_size: Option<u64>);
    /// Replaces the initial window (RFC 5681 §3.1: one segment after a lost SYN).
    fn reset_initial_window(&mut self, cwnd: u64);
    /// Leaves slow start without a congestion signal (HyStart++, RFC 9406 §4.2): `ssthresh =
    /// cwnd`, and congestion avoidance from the current window.
    fn exit_slow_start(&mut self, now: SimTime);
    /// Replaces the initial `ssthresh` (a configured [`crate::TcpConfig::initial_ssthresh`]).
    fn set_initial_ssthresh(&mut self, ssthresh: u64);
    /// Whether the controller reads delivery-rate samples: only then does the sender keep the
    /// estimate (`sender/rate.rs`) and call [`CongestionControl::on_rate_sample`].
    fn wants_rate_samples(&self) -> bool {
        false
    }
    /// Every ACK's delivery-rate sample, after the other hooks for that ACK (model-based
    /// controllers set `cwnd` here); called only when
    /// [`CongestionControl::wants_rate_samples`].
    fn on_rate_sample(&mut self, _rs: &RateSample) {}
    /// The rate segments are to be paced at, bytes per second, when the controller sets it
    /// (otherwise the sender's `pacing` ratio of `cwnd / srtt` applies).
    fn pacing_rate(&self) -> Option<f64> {
        None
    }
    /// Reports internal state for tracing.
    fn visit_state(&self, _visit: &mut dyn FnMut(&'static str, f64)) {}
}

/// Slow start with appropriate byte counting (RFC 3465 §2.2, L = 2·SMSS): returns the bytes of
/// `acked` left over once `cwnd` reaches `ssthresh`, to be used by congestion avoidance.
pub(crate) fn slow_start(cwnd: &mut u64, ssthresh: u64, acked: u64, mss: u64) -> u64 {
    let inc = acked.min(2 * mss);
    let room = ssthresh.saturating_sub(*cwnd);
    if inc <= room {
        *cwnd += inc;
        0
    } else {
        *cwnd = (*cwnd).max(ssthresh);
        inc - room
    }
}

/// `max(FlightSize / 2, 2·SMSS)`: RFC 5681 §3.1 equation (4).
pub(crate) fn half_flight(flight_size: u64, mss: u64) -> u64 {
    (flight_size / 2).max(2 * mss)
}

/// Enum dispatch over the built-in controllers.
#[derive(Clone, Debug)]
pub enum AnyCc {
    /// Tahoe, Reno and NewReno (the same window arithmetic but Tahoe's one-segment window after
    /// a loss; they differ in the sender's recovery).
    Reno(Reno),
    /// CUBIC.
    Cubic(Cubic),
    /// Vegas.
    Vegas(Vegas),
    /// DCTCP.
    Dctcp(Dctcp),
    /// BBR v1.
    Bbr(Box<Bbr>),
    /// BBR v3.
    Bbr3(Box<Bbr3>),
    /// TCP Prague.
    Prague(Prague),
    /// LEDBAT.
    Ledbat(Ledbat),
}

impl AnyCc {
    /// Builds the controller `cfg` names with an initial window of `initial_cwnd` bytes.
    pub fn new(cfg: &CcConfig, mss: u64, initial_cwnd: u64) -> Self {
        match cfg.kind {
            CcKind::Reno | CcKind::NewReno => AnyCc::Reno(Reno::new(mss, initial_cwnd)),
            CcKind::Tahoe => AnyCc::Reno(Reno::tahoe(mss, initial_cwnd)),
            CcKind::Cubic => AnyCc::Cubic(Cubic::new(cfg.cubic, mss, initial_cwnd)),
            CcKind::Vegas => AnyCc::Vegas(Vegas::new(cfg.vegas, mss, initial_cwnd)),
            CcKind::Dctcp => AnyCc::Dctcp(Dctcp::new(cfg.dctcp, mss, initial_cwnd)),
            CcKind::Bbr => AnyCc::Bbr(Box::new(Bbr::new(mss, initial_cwnd))),
            CcKind::Bbr3 => AnyCc::Bbr3(Box::new(Bbr3::new(mss, initial_cwnd))),
            CcKind::Prague => AnyCc::Prague(Prague::new(cfg.prague, mss, initial_cwnd)),
            CcKind::Ledbat => AnyCc::Ledbat(Ledbat::new(cfg.ledbat, mss, initial_cwnd)),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $cc:ident => $e:expr) => {
        match $self {
            AnyCc::Reno($cc) => $e,
            AnyCc::Cubic($cc) => $e,
            AnyCc::Vegas($cc) => $e,
            AnyCc::Dctcp($cc) => $e,
            AnyCc::Bbr($cc) => $e,
            AnyCc::Bbr3($cc) => $e,
            AnyCc::Prague($cc) => $e,
            AnyCc::Ledbat($cc) => $e,
        }
    };
}

impl CongestionControl for AnyCc {
    fn cwnd(&self) -> u64 {
        dispatch!(self, c => c.cwnd())
    }
    fn ssthresh(&self) -> u64 {
        dispatch!(self, c => c.ssthresh())
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        dispatch!(self, c => c.on_ack(ev))
    }
    fn on_congestion(&mut self, now: SimTime, flight_size: u64, kind: Congestion) {
        dispatch!(self, c => c.on_congestion(now, flight_size, kind))
    }
    fn on_ecn_feedback(&mut self, fb: &EcnFeedback) {
        dispatch!(self, c => c.on_ecn_feedback(fb))
    }
    fn on_ecn_mode(&mut self, mode: EcnMode) {
        dispatch!(self, c => c.on_ecn_mode(mode))
    }
    fn on_delay_sample(&mut self, now: SimTime, owd: SimDuration) {
        dispatch!(self, c => c.on_delay_sample(now, owd))
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_recovery_exit(now))
    }
    fn on_rto(&mut self, now: SimTime, flight_size: Option<u64>) {
        dispatch!(self, c => c.on_rto(now, flight_size))
    }
    fn reset_initial_window(&mut self, cwnd: u64) {
        dispatch!(self, c => c.reset_initial_window(cwnd))
    }
    fn exit_slow_start(&mut self, now: SimTime) {
        dispatch!(self, c => c.exit_slow_start(now))
    }
    fn set_initial_ssthresh(&mut self, ssthresh: u64) {
        dispatch!(self, c => c.set_initial_ssthresh(ssthresh))
    }
    fn wants_rate_samples(&self) -> bool {
        dispatch!(self, c => c.wants_rate_samples())
    }
    fn on_rate_sample(&mut self, rs: &RateSample) {
        dispatch!(self, c => c.on_rate_sample(rs))
    }
    fn pacing_rate(&self) -> Option<f64> {
        dispatch!(self, c => c.pacing_rate())
    }
    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        dispatch!(self, c => c.visit_state(visit))
    }
}
