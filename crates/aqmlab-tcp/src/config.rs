//! Connection and congestion-control parameters, with defaults and validation.

use aqmlab_core::SimDuration;
use thiserror::Error;

/// A configuration the state machines cannot run with.
#[derive(Clone, Debug, PartialEq, Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A parameter is outside its valid range.
    #[error("tcp.{field}: {reason}")]
    OutOfRange {
        /// Field path, e.g. `cc.cubic.beta`.
        field: &'static str,
        /// What was expected.
        reason: &'static str,
    },
}

/// The congestion-control algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CcKind {
    /// Tahoe (4.3BSD-Tahoe, Jacobson 1988; ns-2's `Agent/TCP`): fast retransmit but no fast
    /// recovery. DupThresh duplicate ACKs set `ssthresh` as Reno does (RFC 5681 §3.2 step 2)
    /// and `cwnd` to one segment, and the sender goes back to `snd_una` in slow start, as
    /// after a timeout but without backing off the timer.
    Tahoe,
    /// Classic Reno (RFC 5681). With `sack = false`, fast recovery ends on the first ACK of new
    /// data (no partial-ACK handling), as in 4.3BSD-Reno and ns-2's `Agent/TCP/Reno`.
    Reno,
    /// NewReno: Reno's AIMD window (RFC 5681) with RFC 6582 partial-ACK recovery when SACK is off.
    #[default]
    NewReno,
    /// CUBIC (RFC 9438).
    Cubic,
    /// Vegas (Brakmo & Peterson 1995), following ns-2's `Agent/TCP/Vegas`.
    Vegas,
    /// DCTCP (RFC 8257): Reno's growth and loss response; an ECN echo cuts the window by
    /// `α/2`, with `α` the EWMA of the fraction of bytes marked per window. Needs `ecn`.
    Dctcp,
    /// BBR v1 (Cardwell et al. 2016; Linux `tcp_bbr.c`): a model of the path's bottleneck
    /// bandwidth and minimum RTT sets the pacing rate and the window. Paces always; needs
    /// `sack`.
    Bbr,
    /// BBR v3 (draft-ietf-ccwg-bbr; the google/bbr `v3` branch): v1's model with loss and
    /// ECN bounds (`inflight_hi`, `inflight_lo`, `bw_lo`) and the DOWN/CRUISE/REFILL/UP
    /// probing cycle. Paces always; needs `sack`.
    Bbr3,
    /// TCP Prague (draft-briscoe-iccrg-prague-congestion-control; the L4STeam `tcp_prague.c`):
    /// DCTCP's scalable response on AccECN feedback, ECT(1), RTT-independent additive increase
    /// and Reno on loss. Needs `ecn` and `accecn`; falls back to Reno (with classic ECN or
    /// without ECN) when the peer does not negotiate AccECN.
    Prague,
    /// LEDBAT (RFC 6817): a less-than-best-effort sender that holds the one-way queueing delay
    /// it adds near a target, from TCP timestamps (RFC 7323) echoed by the receiver.
    Ledbat,
}

impl CcKind {
    /// BBR v1 or v3: model-based, paced at its own rate, window set in recovery itself.
    pub const fn is_bbr(self) -> bool {
        matches!(self, CcKind::Bbr | CcKind::Bbr3)
    }

    /// Stable lower-case name (`tahoe`, `reno`, `newreno`, `cubic`, `vegas`, `dctcp`, `bbr`,
    /// `bbr3`, `prague`, `ledbat`).
    pub const fn as_str(self) -> &'static str {
        match self {
            CcKind::Tahoe => "tahoe",
            CcKind::Reno => "reno",
            CcKind::NewReno => "newreno",
            CcKind::Cubic => "cubic",
            CcKind::Vegas => "vegas",
            CcKind::Dctcp => "dctcp",
            CcKind::Bbr => "bbr",
            CcKind::Bbr3 => "bbr3",
            CcKind::Prague => "prague",
            CcKind::Ledbat => "ledbat",
        }
    }
}

/// CUBIC parameters (RFC 9438 §4, §5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicParams {
    /// `C` in segments/s³ (RFC 9438 §5: 0.4).
    pub c: f64,
    /// Multiplicative decrease factor `β_cubic` (RFC 9438 §4.6: 0.7).
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7).
    pub fast_convergence: bool,
    /// Reno-friendly region (RFC 9438 §4.3).
    pub reno_friendly: bool,
    /// What Linux's CUBIC (net/ipv4/tcp_cubic.c) does beyond RFC 9438: its own HyStart in slow
    /// start ([`crate::cc::LinuxHyStart`]), and until the first reduction a window growth of at
    /// least 5 % per RTT; a timeout clears its state, as `bictcp_reset`. Off by default.
    pub linux: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            linux: false,
        }
    }
}

/// Vegas thresholds in packets (ns-2 defaults `v_alpha_ = 1`, `v_beta_ = 3`, `v_gamma_ = 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VegasParams {
    /// Increase the window when fewer than `alpha` packets are queued in the network.
    pub alpha: u32,
    /// Decrease the window when more than `beta` packets are queued.
    pub beta: u32,
    /// Leave slow start when more than `gamma` packets are queued.
    pub gamma: u32,
}

impl Default for VegasParams {
    fn default() -> Self {
        VegasParams {
            alpha: 1,
            beta: 3,
            gamma: 1,
        }
    }
}

/// DCTCP parameters (RFC 8257 §3.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DctcpParams {
    /// EWMA gain `g` of `α ← (1 − g)·α + g·F` (RFC 8257 §3.3 and §4.2: 1/16; ns-3
    /// `DctcpShiftG` 0.0625, Linux `dctcp_shift_g` 4).
    pub g: f64,
    /// `α` before the first observation window ends (ns-3 `DctcpAlphaOnInit` 1.0, Linux
    /// `dctcp_alpha_on_init` 1024/1024): the first ECN echo halves the window.
    pub initial_alpha: f64,
}

impl Default for DctcpParams {
    fn default() -> Self {
        DctcpParams {
            g: 1.0 / 16.0,
            initial_alpha: 1.0,
        }
    }
}

/// TCP Prague parameters (the L4STeam reference `tcp_prague.c`'s module parameters; its EWMA
/// gain is fixed at 1/16, `PRAGUE_SHIFT_G`). Kept small: every flow's config carries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PragueParams {
    /// RTT-independence target in µs (`prague_rtt_target`, 25 000): past the transition, a flow with
    /// a smoothed RTT below it grows by `(srtt / target)²` segments per RTT, as much per second
    /// as a flow at the target RTT (`RTT_CONTROL_RATE`), and updates `α` and reduces at most
    /// once per target RTT. Zero disables RTT independence.
    pub rtt_target_us: u32,
    /// Rounds (RTTs) after slow start before RTT independence applies (`prague_rtt_transition`,
    /// 500).
    pub rtt_transition: u32,
    /// Classic-ECN-AQM detection (`prague_ecn_fallback`, default 0 as the reference's):
    /// 0 none, 1 detection and fallback, 2 detection only (`cc/prague_classic.rs`).
    pub ecn_fallback: u8,
}

impl Default for PragueParams {
    fn default() -> Self {
        PragueParams {
            rtt_target_us: 25_000,
            rtt_transition: 500,
            ecn_fallback: 0,
        }
    }
}

/// LEDBAT parameters (RFC 6817 §2.5, §3.3; ns-3 `TcpLedbat`'s attributes). Kept small, as
/// [`PragueParams`]: every flow's config carries them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LedbatParams {
    /// `TARGET` in µs: the queueing delay LEDBAT aims to add (RFC 6817 §2.5.1: at most 100 ms;
    /// ns-3 `TargetDelay` 100 ms; RFC 7928 §5.4 tests with 5 ms).
    pub target_us: u32,
    /// `GAIN` (RFC 6817 §2.5.2: at most 1, the default; RFC 7928 §5.4 tests with 10).
    pub gain: f32,
    /// `ALLOWED_INCREASE` in segments: how far the window may exceed the flight before an ACK
    /// (RFC 6817 §2.5.3: SHOULD be 1, MUST be greater than 0). 0 reproduces ns-3 3.37's
    /// `TcpLedbat`, whose cap is the flight alone (its later `AllowedIncrease` attribute, 1,
    /// is the RFC's).
    pub allowed_increase: f32,
    /// `BASE_HISTORY`: one-minute minima kept for the base delay (RFC 6817 §3.3: 10).
    pub base_history: u8,
    /// `CURRENT_FILTER`: recent samples the current delay is the minimum of (ns-3
    /// `NoiseFilterLen` 4).
    pub current_filter: u8,
    /// `MIN_CWND` in segments (RFC 6817 §2.4.2: 2).
    pub min_cwnd_segments: u8,
    /// Standard slow start until the first time the window reaches `ssthresh` (ns-3's default
    /// `SSParam`; RFC 6817 §2.4.2 does not specify slow start).
    pub slow_start: bool,
}

impl Default for LedbatParams {
    fn default() -> Self {
        LedbatParams {
            target_us: 100_000,
            gain: 1.0,
            allowed_increase: 1.0,
            base_history: 10,
            current_filter: 4,
            min_cwnd_segments: 2,
            slow_start: true,
        }
    }
}

/// Which congestion control to run, with every algorithm's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct CcConfig {
    /// The algorithm.
    pub kind: CcKind,
    /// Used when `kind` is [`CcKind::Cubic`].
    pub cubic: CubicParams,
    /// Used when `kind` is [`CcKind::Vegas`].
    pub vegas: VegasParams,
    /// Used when `kind` is [`CcKind::Dctcp`].
    pub dctcp: DctcpParams,
    /// Used when `kind` is [`CcKind::Prague`].
    pub prague: PragueParams,
    /// Used when `kind` is [`CcKind::Ledbat`].
    pub ledbat: LedbatParams,
    /// HyStart++ (RFC 9406) in the initial slow start. Off by default: the seed experiments'
    /// ns-2 stacks predate it, although RFC 9438 §4.10 says CUBIC SHOULD use it. Not for Vegas,
    /// which has its own slow-start exit.
    pub hystart: bool,
}

impl TcpConfig {
    /// Whether the connection uses the timestamps option (RFC 7323): when its controller needs
    /// one-way delay samples (LEDBAT, RFC 6817 §2.3).
    pub fn timestamps(&self) -> bool {
        self.cc.kind == CcKind::Ledbat
    }
}

impl CcConfig {
    /// `kind` with default parameters.
    pub fn new(kind: CcKind) -> Self {
        CcConfig {
            kind,
            ..CcConfig::default()
        }
    }
}

/// Parameters of one TCP connection (both ends read the same struct).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpConfig {
    /// Sender maximum segment size in payload bytes (default 1460; 500 and 1000 are also common in
    /// the classic AQM papers).
    pub mss: u32,
    /// Initial window in segments (RFC 6928 / Linux: 10). ns-2's default is `windowInit_ = 2`
    /// (older scripts: 1), RFC 3390 gives `min(4·MSS, max(2·MSS, 4380))`, i.e. 3–4 segments.
    pub initial_cwnd_segments: u32,
    /// Lower bound on the retransmission timeout (Linux `TCP_RTO_MIN` 200 ms; RFC 6298 §2.4 says 1 s).
    pub min_rto: SimDuration,
    /// RTO before the first RTT sample (RFC 6298 §2.1: 1 s).
    pub initial_rto: SimDuration,
    /// Upper bound on the RTO after backoff (RFC 6298 §2.5 allows ≥ 60 s).
    pub max_rto: SimDuration,
    /// Receive-window cap in segments (`None`: unlimited). ns-2's `window_`; e.g. 8 in the RED paper.
    pub max_window_segments: Option<u32>,
    /// Delayed ACKs (RFC 5681 §4.2 / RFC 1122 §4.2.3.2): ACK every second full-sized segment or
    /// after [`TcpConfig::delack_timeout`]; out-of-order and gap-filling segments are ACKed at once.
    pub delayed_ack: bool,
    /// Delayed-ACK timer (Linux `TCP_DELACK_MIN` 40 ms; ns-2 `interval_` 100 ms).
    pub delack_timeout: SimDuration,
    /// SACK (RFC 2018) with RFC 6675 loss recovery. Off: NewReno (RFC 6582) or classic Reno recovery.
    pub sack: bool,
    /// Negotiate ECN (RFC 3168).
    pub ecn: bool,
    /// With `ecn`: request Accurate ECN (RFC 9768) in the SYN and, as the receiver, accept it;
    /// falls back to classic ECN or none when the peer does not support it (`accecn.rs`).
    pub accecn: bool,
    /// Three-way handshake before data (off: the first data goes out at `connect`).
    pub handshake: bool,
    /// DupThresh (RFC 5681 §3.2, RFC 6675 §2): 3.
    pub dupack_threshold: u32,
    /// SYN retransmissions before the connection gives up (Linux `tcp_syn_retries`, 6: 123 s
    /// with the default 1 s initial and 60 s maximum RTO; the final expiry counts as a timeout
    /// too). Without a limit, a path that never answers keeps every connection of a web flow
    /// open, and memory grows with simulated time.
    pub syn_retries: u32,
    /// Congestion control.
    pub cc: CcConfig,
    /// Initial `ssthresh` in bytes (`None`: arbitrarily high, RFC 5681 §3.1; ns-2's
    /// `ssthresh_` is 0, meaning the same).
    pub initial_ssthresh: Option<u64>,
    /// Proportional Rate Reduction (RFC 6937, PRR-SSRB) during SACK fast recovery: the window
    /// falls to `ssthresh` in proportion to the data delivered, instead of at once (RFC 6675).
    /// Needs `sack`. Linux and ns-3 (`TcpPrrRecovery`) use it by default.
    pub prr: bool,
    /// RACK (RFC 8985) loss detection in place of RFC 6675's DupThresh rule: a segment is lost
    /// once a segment sent after it has been delivered and a reordering window has passed, which
    /// also finds a lost retransmission without the retransmission timer. Needs `sack`. Linux's
    /// default; the tail loss probe is not modelled.
    pub rack: bool,
    /// RFC 6675's rescue retransmission (§4 NextSeg rule 4, a SHOULD): once per SACK recovery,
    /// when no lost segment and no new data can be sent, resend the segment holding the highest
    /// unSACKed byte. Neither Linux (which probes the tail with TLP instead) nor ns-3 does it.
    pub rescue: bool,
    /// Classic Reno without SACK only: refuse a new fast retransmit until the cumulative ACK
    /// covers more than `recover` (the highest byte sent at the last fast retransmit or
    /// timeout), the guard RFC 6582 §3.2 step 1 gives NewReno. RFC 5681 §3.2's Reno has no such
    /// check, so it is off by default; ns-2's `Agent/TCP/Reno` applies it (`bugFix_`, true by
    /// default), and with it a second loss in one window waits for the retransmission timer.
    pub recover_guard: bool,
    /// The `ssthresh` a retransmission timeout sets ([`RtoSsthresh`]): RFC 5681 §3.1's
    /// (default) or ns-2's.
    pub rto_ssthresh: RtoSsthresh,
    /// Pacing at the sender: `rate = ratio × max(cwnd, pipe) / srtt`, ratio 200 % in slow start
    /// (`cwnd < ssthresh / 2`) and 120 % after, as Linux's `sk_pacing_rate` and ns-3's
    /// `TcpSocketState` pacing; nothing is paced before the first RTT sample.
    pub pacing: bool,
}

/// How a retransmission timeout sets `ssthresh` (`rto_ssthresh` in a scenario).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RtoSsthresh {
    /// RFC 5681 §3.1 equation (4): `ssthresh = max(FlightSize / 2, 2·SMSS)`, held constant
    /// when the timer expires again for a segment it already retransmitted
    /// (`TcpSender::rto_flight_size` says how FlightSize is read).
    #[default]
    Rfc5681,
    /// ns-2.35's `TcpAgent::timeout` (`tcp.cc`): `slowdown(CLOSE_SSTHRESH_HALF |
    /// CLOSE_CWND_RESTART)` sets `ssthresh_ = max(⌊window() / 2⌋, 2)` packets, with `window()
    /// = ⌊min(cwnd_, wnd_)⌋`, at every expiry: half the congestion window (not the data
    /// outstanding, which a Reno sender that refused a fast retransmit has more of), in whole
    /// packets, and not held on a backed-off expiry (where `cwnd_` is 1, so 2 packets).
    Ns2,
}

impl RtoSsthresh {
    /// The scenario's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            RtoSsthresh::Rfc5681 => "rfc5681",
            RtoSsthresh::Ns2 => "ns2",
        }
    }

    /// Parses a scenario's `rto_ssthresh`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "rfc5681" => Some(RtoSsthresh::Rfc5681),
            "ns2" => Some(RtoSsthresh::Ns2),
            _ => None,
        }
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            initial_cwnd_segments: 10,
            min_rto: SimDuration::from_millis(200),
            initial_rto: SimDuration::from_secs(1),
            max_rto: SimDuration::from_secs(60),
            max_window_segments: None,
            delayed_ack: true,
            delack_timeout: SimDuration::from_millis(40),
            sack: true,
            ecn: false,
            accecn: false,
            handshake: true,
            dupack_threshold: 3,
            syn_retries: 6,
            cc: CcConfig::default(),
            initial_ssthresh: None,
            prr: false,
            rack: false,
            rescue: true,
            recover_guard: false,
            rto_ssthresh: RtoSsthresh::Rfc5681,
            pacing: false,
        }
    }
}

impl TcpConfig {
    /// The defaults with congestion control `kind`.
    pub fn with_cc(kind: CcKind) -> Self {
        TcpConfig {
            cc: CcConfig::new(kind),
            ..TcpConfig::default()
        }
    }

    /// Checks every range; the state machines' constructors panic on an invalid config, so the
    /// engine calls this when it loads a scenario.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |field, reason| Err(ConfigError::OutOfRange { field, reason });
        if self.mss == 0 || self.mss > 65_495 {
            return bad("mss", "expected 1..=65495 bytes");
        }
        if self.initial_cwnd_segments == 0 {
            return bad("initial_cwnd_segments", "expected at least 1 segment");
        }
        if self.min_rto.as_nanos() == 0 {
            return bad("min_rto", "expected a positive duration");
        }
        if self.min_rto > self.max_rto {
            return bad("max_rto", "expected max_rto >= min_rto");
        }
        if self.initial_rto.as_nanos() == 0 {
            return bad("initial_rto", "expected a positive duration");
        }
        if self.max_window_segments == Some(0) {
            return bad("max_window_segments", "expected at least 1 segment");
        }
        if self.delayed_ack && self.delack_timeout.as_nanos() == 0 {
            return bad("delack_timeout", "expected a positive duration");
        }
        if self.dupack_threshold == 0 {
            return bad("dupack_threshold", "expected at least 1");
        }
        let c = &self.cc.cubic;
        if !(c.c > 0.0 && c.c.is_finite()) {
            return bad("cc.cubic.c", "expected a positive number");
        }
        if !(c.beta > 0.0 && c.beta < 1.0) {
            return bad("cc.cubic.beta", "expected 0 < beta < 1");
        }
        let v = &self.cc.vegas;
        if v.alpha > v.beta {
            return bad("cc.vegas.alpha", "expected alpha <= beta");
        }
        let d = &self.cc.dctcp;
        if !(d.g > 0.0 && d.g <= 1.0) {
            return bad("cc.dctcp.g", "expected 0 < g <= 1");
        }
        if !(0.0..=1.0).contains(&d.initial_alpha) {
            return bad("cc.dctcp.initial_alpha", "expected 0 <= alpha <= 1");
        }
        let l = &self.cc.ledbat;
        if l.target_us == 0 || l.target_us > 100_000 {
            return bad(
                "cc.ledbat.target",
                "expected 0 < target <= 100ms (RFC 6817 §2.5.1: TARGET MUST NOT exceed 100 ms)",
            );
        }
        if !(l.gain > 0.0 && l.gain.is_finite()) {
            return bad("cc.ledbat.gain", "expected a positive number");
        }
        if !(l.allowed_increase >= 0.0 && l.allowed_increase.is_finite()) {
            return bad(
                "cc.ledbat.allowed_increase",
                "expected a number of segments >= 0",
            );
        }
        if l.base_history == 0 || l.current_filter == 0 || l.min_cwnd_segments == 0 {
            return bad(
                "cc.ledbat",
                "base_history, current_filter and min_cwnd must be at least 1",
            );
        }
        if self.cc.kind == CcKind::Dctcp && !self.ecn {
            return bad(
                "ecn",
                "cc = dctcp needs ecn = true (RFC 8257 §3: DCTCP's signal is the ECN echo)",
            );
        }
        if self.cc.kind.is_bbr() && !self.sack {
            return bad(
                "sack",
                "cc = bbr and bbr3 need sack = true (their delivery-rate samples count SACKed data)",
            );
        }
        if self.accecn && !self.ecn {
            return bad(
                "accecn",
                "accecn = true needs ecn = true (RFC 9768 extends RFC 3168)",
            );
        }
        if self.cc.kind == CcKind::Prague && !(self.ecn && self.accecn) {
            return bad(
                "accecn",
                "cc = prague needs ecn = true and accecn = true (its signal is the count of CE marks)",
            );
        }
        if self.prr && !self.sack {
            return bad(
                "prr",
                "PRR (RFC 6937) needs sack = true: it paces by RFC 6675's pipe",
            );
        }
        if self
            .initial_ssthresh
            .is_some_and(|b| b < 2 * u64::from(self.mss))
        {
            return bad("initial_ssthresh", "expected at least 2 segments");
        }
        if self.cc.hystart && self.cc.kind == CcKind::Vegas {
            return bad(
                "cc.hystart",
                "HyStart++ applies to reno, newreno and cubic (Vegas has its own slow-start exit)",
            );
        }
        Ok(())
    }

    /// Receive-window cap in bytes, if any.
    pub fn max_window_bytes(&self) -> Option<u64> {
        self.max_window_segments
            .map(|w| u64::from(w) * u64::from(self.mss))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_errors_name_the_field() {
        assert!(TcpConfig::default().validate().is_ok());
        let mut c = TcpConfig::with_cc(CcKind::Cubic);
        c.cc.cubic.beta = 1.5;
        let e = c.validate().unwrap_err();
        assert_eq!(e.to_string(), "tcp.cc.cubic.beta: expected 0 < beta < 1");
        let c = TcpConfig {
            mss: 0,
            ..TcpConfig::default()
        };
        assert!(c.validate().is_err());
    }
}
