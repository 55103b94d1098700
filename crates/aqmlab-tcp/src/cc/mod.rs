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
//!
//! [`AnyCc`] dispatches over the built-in algorithms with a `match` (no `dyn` on the hot path), as
//! smoltcp's `AnyController`. The trait exists so tests and experiments can write their own.

mod cubic;
mod dctcp;
mod hystart;
mod hystart_linux;
mod ledbat;
mod reno;
mod vegas;

pub use cubic::Cubic;
pub use dctcp::Dctcp;
pub use hystart::{Growth, HyStart, CSS_GROWTH_DIVISOR};
pub use hystart_linux::LinuxHyStart;
pub use ledbat::Ledbat;
pub use reno::Reno;
pub use vegas::Vegas;

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

/// What one ACK that advanced `snd_una` said about ECN marks (RFC 8257 §3.3 steps 1–2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EcnFeedback {
    /// Bytes newly acknowledged cumulatively (SACKed bytes are not counted, RFC 8257 §3.3).
    pub acked_bytes: u64,
    /// The ACK carried ECN-Echo.
    pub ece: bool,
    /// `snd_una` after the ACK.
    pub snd_una: u64,
    /// `snd_nxt` when the ACK arrived.
    pub snd_nxt: u64,
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
    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        dispatch!(self, c => c.visit_state(visit))
    }
}
