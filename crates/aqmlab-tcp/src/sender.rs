//! The data sender: handshake, transmission, RTT/RTO, loss recovery and ECN.
//!
//! # Scoreboard
//! Every segment in `[snd_una, snd_nxt)` is one entry of a `VecDeque` ring (amortised: it grows to
//! the largest window once and is then reused). Segments are cut at MSS boundaries when first sent
//! and never re-packetised. Each entry keeps its last send time and four flags:
//! `ever_retx` (Karn), `sacked`, `lost` (RFC 6675 `IsLost`, or everything after an RTO) and `retx`
//! (retransmitted in the current recovery episode and not yet SACKed). Byte counters of the flags
//! make RFC 6675 `pipe` O(1): `pipe = FlightSize − SACKed − lost + retransmitted`.
//!
//! # Loss recovery
//! * SACK on: RFC 6675. Recovery starts on the DupThresh-th duplicate ACK or when `IsLost(snd_una)`
//!   (§5), at most once per window (`RecoveryPoint`, RFC 6582 §3.2 step 2 / RFC 6675 §5). The first
//!   segment is retransmitted at once (§5 step 4.3); afterwards, while `cwnd − pipe ≥ 1 SMSS`,
//!   `NextSeg` (§4) picks a lost segment above `HighRxt` (rule 1), else new data (rule 2), else an
//!   unSACKed segment below the highest SACK (rule 3), else, once per recovery, the segment
//!   holding the highest unSACKed byte (rule 4, the rescue retransmission). Recovery ends when
//!   `snd_una` reaches the recovery point. `ssthresh = cwnd = FlightSize / 2` on entry, with
//!   FlightSize `min(snd_nxt − snd_una, cwnd)` (`TcpSender::flight_size`).
//! * Options: PRR (RFC 6937) paces the reduction in SACK recovery; RACK (RFC 8985) replaces
//!   DupThresh and `IsLost` with time-based marks, which also find lost retransmissions;
//!   Tahoe (`CcKind::Tahoe`) restarts from `snd_una` in slow start instead of fast recovery.
//! * SACK off, NewReno: RFC 6582 §3.2 — window inflation by one SMSS per duplicate ACK,
//!   retransmission of the first unacknowledged segment on each partial ACK with deflation, timer
//!   reset on the first partial ACK only ("Impatient" variant), `cwnd = ssthresh` on the full ACK.
//!   A new fast retransmit (NewReno's or Tahoe's) needs duplicate ACKs beyond `recover`
//!   (§3.2 step 1): `TcpSender::past_recovery_point`.
//! * SACK off, classic Reno (`CcKind::Reno`): RFC 5681 §3.2 — the first ACK of new data ends
//!   recovery and there is no recovery-point guard (with `TcpConfig::recover_guard`, RFC 6582
//!   §3.2 step 1's guard as ns-2's `Agent/TCP/Reno` applies it).
//! * Outside recovery the send test uses `pipe` too; with SACK this lets the first DupThresh − 1
//!   duplicate ACKs release new data, which is Limited Transmit (RFC 3042).
//!
//! # Retransmission timer (RFC 6298 §5)
//! Started when data is sent and the timer is off (5.1), stopped when everything is acknowledged
//! (5.2), restarted on each ACK of new data (5.3; NewReno partial ACKs per RFC 6582). On expiry:
//! back off (5.5), `ssthresh = max(FlightSize/2, 2·SMSS)` with FlightSize the pipe, never above
//! its value on entering fast recovery, and held if the oldest segment was already resent by
//! the timer (`TcpSender::rto_flight_size`; `TcpConfig::rto_ssthresh` = `Ns2`: ns-2.35's half of
//! `min(cwnd, window)` in whole packets at every expiry), and `cwnd` = 1 SMSS (RFC 5681 §3.1), mark
//! every unSACKed segment lost and retransmit from `snd_una` in slow start (go-back-N that skips
//! SACKed data; SACK information is kept, deviating from RFC 2018 §8's advice to clear it since our
//! receiver never reneges). A new fast recovery cannot start until the pre-timeout data is acked
//! (RFC 6582 §4, RFC 6675 §5.1). RTT samples obey Karn's rule: none from an ACK that covers any
//! retransmitted segment; the sample is taken from the newest segment the ACK covers.
//!
//! # ECN (RFC 3168 §6.1)
//! Negotiated on SYN / SYN-ACK (or assumed when the handshake is off, or taken from the
//! [`Handshake`] for an [`established`](TcpSender::established) sender). New data is sent ECT(0);
//! retransmissions are not ECT (§6.1.5). An ACK with ECE reduces the window as a loss would, but at
//! most once per window of data (§6.1.2): not again until an ACK above the `snd_nxt` of the
//! reduction arrives, and not during loss recovery. The next new data segment carries CWR; a
//! loss-triggered reduction or an RTO also sets CWR.
//!
//! # AccECN (RFC 9768)
//! With `accecn`, the SYN requests AccECN and the SYN-ACK decides the mode (`accecn.rs`: AccECN,
//! or the fallback to classic ECN or none). In AccECN mode each ACK that newly delivers data
//! (cumulatively or by SACK) is decoded into CE-marked packets ([`crate::accecn::AceDecoder`],
//! with the safety rule for a counter that may have cycled); the controller sees the count in
//! [`EcnFeedback`], and a non-zero count is the congestion signal that classic ECN's ECE was,
//! still acted on at most once per window. CWR is not sent (the three flags are the ACE field;
//! data segments carry the initial ACE value 5 of the unused reverse direction). TCP Prague's
//! data is ECT(1).

use std::collections::VecDeque;

use crate::accecn::{self, AceDecoder, EcnMode, INITIAL_CEP};
use crate::cc::{
    AckEvent, AnyCc, CaState, Congestion, CongestionControl, EcnFeedback, Growth, HyStart,
};
use crate::config::{CcKind, RtoSsthresh, TcpConfig};
use crate::rtt::RttEstimator;
use crate::segment::{ts_clock, Segment, ACK, AE, CWR, ECE, SYN};
use aqmlab_core::{SimDuration, SimTime};
use ns2_timeout::ns2_rto_flight_size;

mod ns2_timeout;
mod pacing;
mod prr;
mod rack;
mod rate;
use pacing::Pacer;
use prr::Prr;
use rack::Rack;
use rate::RateEstimator;

/// Counters and current values for output. Kept up to date after every call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    /// Payload bytes cumulatively acknowledged.
    pub bytes_acked: u64,
    /// Segments sent, SYNs and retransmissions included.
    pub segments_sent: u64,
    /// Data segments retransmitted (fast, recovery and timeout retransmissions).
    pub retransmits: u64,
    /// Retransmission-timer expiries (SYN timeouts included).
    pub timeouts: u64,
    /// Fast-recovery episodes entered.
    pub fast_recoveries: u64,
    /// Window reductions caused by ECN-Echo (or, with AccECN, by newly reported CE marks).
    pub ecn_reductions: u64,
    /// With AccECN: CE-marked packets the receiver reported, as decoded from the ACE field
    /// (`s.cep − 5`, the safety rule included).
    pub ce_reported: u64,
    /// Smoothed RTT.
    pub srtt: Option<SimDuration>,
    /// RTT variation.
    pub rttvar: Option<SimDuration>,
    /// Minimum RTT sample.
    pub min_rtt: Option<SimDuration>,
    /// Current retransmission timeout (with backoff).
    pub rto: SimDuration,
    /// Congestion window in bytes.
    pub cwnd_bytes: u64,
    /// Slow-start threshold in bytes (`u64::MAX` until the first reduction).
    pub ssthresh_bytes: u64,
    /// When every application byte had been acknowledged.
    pub completed_at: Option<SimTime>,
    /// When the connection gave up: the last SYN retransmission allowed
    /// ([`TcpConfig::syn_retries`]) timed out.
    pub aborted_at: Option<SimTime>,
}

/// What the handshake that opened a connection established, as the accepting end saw it
/// ([`crate::TcpReceiver::handshake`]); it starts a sender in the other direction with
/// [`TcpSender::established`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Handshake {
    /// ECN was negotiated (RFC 3168 §6.1.1), or assumed because the handshake is disabled.
    pub ecn: bool,
    /// AccECN feedback was negotiated (RFC 9768 §3.1.1).
    pub accecn: bool,
    /// The handshake's RTT sample, if it has a Karn-valid one.
    pub rtt: Option<SimDuration>,
    /// The SYN or SYN-ACK was sent more than once.
    pub retransmitted: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Closed,
    SynSent,
    Established,
}

/// Loss-recovery state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Open / congestion avoidance.
    None,
    /// Fast recovery after DupThresh duplicate ACKs or SACK loss detection.
    Fast,
    /// Retransmitting after a timeout, until the pre-timeout data is acknowledged.
    Timeout,
}

#[derive(Clone, Copy, Debug)]
struct TxSeg {
    seq: u64,
    len: u32,
    sent_at: SimTime,
    ever_retx: bool,
    sacked: bool,
    lost: bool,
    retx: bool,
    /// Delivery-rate stamp of the last transmission (`sender/rate.rs`).
    rate: rate::Stamp,
}

impl TxSeg {
    fn end(&self) -> u64 {
        self.seq + u64::from(self.len)
    }
}

/// The sending end of one connection.
#[derive(Clone, Debug)]
pub struct TcpSender {
    mss: u64,
    dupthresh: u32,
    sack: bool,
    ecn_wanted: bool,
    accecn_wanted: bool,
    handshake: bool,
    classic_reno: bool,
    /// `TcpConfig::recover_guard`: classic Reno with RFC 6582 §3.2 step 1's guard (ns-2's
    /// `bugFix_`).
    recover_guard: bool,
    /// `TcpConfig::rto_ssthresh`: the timeout's `ssthresh` rule.
    rto_ssthresh: RtoSsthresh,
    /// Tahoe: DupThresh duplicate ACKs restart from `snd_una` in slow start (no fast recovery).
    tahoe: bool,
    /// Proportional Rate Reduction (RFC 6937) in SACK fast recovery, when configured: its
    /// state in the current recovery.
    prr: Option<Prr>,
    /// RACK (RFC 8985) loss detection, when configured.
    rack: Option<Rack>,
    /// Pacing (`pacing = true`, `sender/pacing.rs`), when configured.
    pacer: Option<Pacer>,
    /// Delivery-rate estimation (`sender/rate.rs`), only for a controller that reads the
    /// samples ([`CongestionControl::wants_rate_samples`]): other flows skip its per-segment
    /// stamps and per-ACK sample.
    rate: Option<RateEstimator>,
    /// The pacing ratio in congestion avoidance, percent.
    pacing_ca_pct: u64,
    /// Stamp data with `TSval` and take one-way delay samples from ACKs (RFC 7323), for a
    /// controller that needs them ([`TcpConfig::timestamps`]).
    timestamps: bool,
    /// RFC 6675's rescue retransmission (NextSeg rule 4).
    rescue: bool,
    initial_cwnd: u64,
    cc: AnyCc,
    /// HyStart++ state while the initial slow start lasts, when configured.
    hystart: Option<HyStart>,
    rtt: RttEstimator,
    state: State,
    syn_sent_at: SimTime,
    syn_retx: bool,
    /// SYN retransmissions so far, and how many are allowed.
    syn_retransmissions: u32,
    syn_retries: u32,
    snd_una: u64,
    snd_nxt: u64,
    /// One past the last application byte (`u64::MAX` for unlimited data).
    app_end: u64,
    snd_wnd: u64,
    segs: VecDeque<TxSeg>,
    sacked_bytes: u64,
    lost_bytes: u64,
    retx_bytes: u64,
    highest_sacked: u64,
    /// Every unSACKed segment below this sequence number is marked lost, and no segment at or
    /// above it is (IsLost is monotone: a segment with enough SACKed data above it has a
    /// fortiori every lower one). Marking extends it upwards, so neither the IsLost walk nor
    /// the search for the next retransmission revisits the marked region on every ACK: with
    /// windows of hundreds of segments that turned recovery quadratic.
    lost_boundary: u64,
    /// Sequence ranges, segment-aligned, sorted and disjoint, whose every segment is SACKed
    /// (the SACK blocks applied so far, above `snd_una`). A SACK block repeats what earlier
    /// blocks said and extends it, so applying one walks only the part these do not cover.
    sack_islands: Vec<(u64, u64)>,
    /// No retransmission candidate (lost, unSACKed, not yet resent) lies in
    /// `[high_rxt, scan_from)`: the last search found none below it. New candidates appear only
    /// at or above `lost_boundary`, or everywhere when the retransmit marks are cleared (which
    /// resets this).
    scan_from: u64,
    dupacks: u32,
    recovery: Recovery,
    /// RFC 6582 `recover` / RFC 6675 `RecoveryPoint` (as one past the highest byte sent).
    recover: u64,
    /// RFC 6675 `HighRxt` (as one past the highest byte retransmitted in this episode).
    high_rxt: u64,
    /// NewReno (no SACK) inflated window during fast recovery, bytes.
    rec_cwnd: u64,
    /// RFC 6675 `RescueRxt` (as one past the highest byte, like `recover`): `None` while
    /// undefined.
    rescue_rxt: Option<u64>,
    /// RACK: the most recently sent segment the current ACK delivered, `(xmit_ts, end_seq,
    /// RTT)`.
    rack_delivered: Option<(SimTime, u64, SimDuration)>,
    partial_acks: u32,
    ecn_ok: bool,
    /// AccECN negotiated: ACKs carry the ACE counter.
    accurate: bool,
    /// `s.cep` (RFC 9768 §3.2.2.2).
    ace: AceDecoder,
    /// Send ECT(1) instead of ECT(0) (TCP Prague on an AccECN connection).
    l4s: bool,
    cwr_pending: bool,
    ecn_recover: u64,
    rto_at: Option<SimTime>,
    stats: SenderStats,
}

impl TcpSender {
    /// A sender for `cfg` with `app_bytes` to transfer (`None`: unlimited bulk data).
    /// Panics if `cfg` does not validate.
    pub fn new(cfg: &TcpConfig, app_bytes: Option<u64>) -> Self {
        if let Err(e) = cfg.validate() {
            panic!("invalid TcpConfig: {e}");
        }
        let mss = u64::from(cfg.mss);
        let initial_cwnd = u64::from(cfg.initial_cwnd_segments) * mss;
        let cc = AnyCc::new(&cfg.cc, mss, initial_cwnd);
        let rtt = RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto);
        let mut s = TcpSender {
            mss,
            dupthresh: cfg.dupack_threshold,
            sack: cfg.sack,
            ecn_wanted: cfg.ecn,
            accecn_wanted: cfg.ecn && cfg.accecn,
            handshake: cfg.handshake,
            classic_reno: cfg.cc.kind == CcKind::Reno && !cfg.sack,
            recover_guard: cfg.recover_guard,
            rto_ssthresh: cfg.rto_ssthresh,
            tahoe: cfg.cc.kind == CcKind::Tahoe,
            // BBR sets the window in recovery itself (Linux skips PRR for `cong_control`).
            prr: (cfg.prr && cfg.sack && !cfg.cc.kind.is_bbr()).then(Prr::default),
            rack: (cfg.rack && cfg.sack).then(Rack::default),
            // BBR paces at its own rate; TCP Prague always paces (the reference sets
            // SK_PACING_NEEDED), at 100 % of cwnd/srtt in congestion avoidance
            // (`prague_update_pacing_rate`).
            pacer: (cfg.pacing || (cfg.cc.kind.is_bbr() || cfg.cc.kind == CcKind::Prague))
                .then(Pacer::default),
            rate: cc.wants_rate_samples().then(RateEstimator::default),
            pacing_ca_pct: if cfg.cc.kind == CcKind::Prague {
                100
            } else {
                pacing::CA_RATIO_PCT
            },
            timestamps: cfg.timestamps(),
            rescue: cfg.rescue,
            initial_cwnd,
            cc,
            hystart: cfg.cc.hystart.then(HyStart::new),
            rtt,
            state: State::Closed,
            syn_sent_at: SimTime::ZERO,
            syn_retx: false,
            syn_retransmissions: 0,
            syn_retries: cfg.syn_retries,
            snd_una: 1,
            snd_nxt: 1,
            app_end: app_bytes.map_or(u64::MAX, |b| b.saturating_add(1)),
            snd_wnd: cfg.max_window_bytes().unwrap_or(u64::MAX),
            segs: VecDeque::with_capacity(64),
            sacked_bytes: 0,
            lost_bytes: 0,
            retx_bytes: 0,
            highest_sacked: 0,
            lost_boundary: 0,
            sack_islands: Vec::with_capacity(8),
            scan_from: 0,
            dupacks: 0,
            recovery: Recovery::None,
            recover: 0,
            high_rxt: 0,
            rec_cwnd: 0,
            rescue_rxt: None,
            rack_delivered: None,
            partial_acks: 0,
            ecn_ok: false,
            accurate: false,
            ace: AceDecoder::default(),
            l4s: cfg.cc.kind == CcKind::Prague,
            cwr_pending: false,
            ecn_recover: 0,
            rto_at: None,
            stats: SenderStats::default(),
        };
        if let Some(t) = cfg.initial_ssthresh {
            s.cc.set_initial_ssthresh(t);
        }
        s.refresh_stats();
        s
    }

    /// A sender for the second direction of a connection that is already open: the reply of a
    /// request/response exchange, sent by the end that accepted the connection. It skips the
    /// handshake (`connect` sends the first window of data at once) and starts from what the
    /// handshake that opened the connection established (see [`Handshake`]):
    /// * ECN-capable exactly when the handshake negotiated ECN (RFC 3168 §6.1.1 negotiates it
    ///   for the connection, both directions);
    /// * the RTT estimator seeded with `hs.rtt` (RFC 6298 §2.2: SRTT = R, RTTVAR = R/2,
    ///   RTO = max(min RTO, 3R)), as Linux seeds a passively opened connection from its
    ///   SYN-ACK → ACK sample; without a sample the RTO is `initial_rto` (§2.1);
    /// * if the SYN or SYN-ACK was retransmitted, no sample (Karn), RTO = 3 s (§5.7) and an
    ///   initial window of 1 SMSS (RFC 5681 §3.1), as for the connecting sender.
    ///
    /// `cfg.handshake` and `cfg.ecn` are ignored (the handshake already happened). Panics if
    /// `cfg` does not validate.
    pub fn established(cfg: &TcpConfig, app_bytes: Option<u64>, hs: Handshake) -> Self {
        let cfg = TcpConfig {
            handshake: false,
            ..*cfg
        };
        let mut s = TcpSender::new(&cfg, app_bytes);
        s.ecn_wanted = hs.ecn;
        s.accecn_wanted = hs.ecn && hs.accecn;
        s.apply_handshake(hs.rtt, hs.retransmitted);
        s.refresh_stats();
        s
    }

    /// Opens the connection: emits the SYN, or with the handshake disabled (or for an
    /// [`established`](TcpSender::established) sender) the first window of data.
    pub fn connect(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.state != State::Closed {
            return;
        }
        if self.handshake {
            self.state = State::SynSent;
            self.send_syn(now, out);
        } else {
            self.state = State::Established;
            let mode = match (self.ecn_wanted, self.accecn_wanted) {
                (true, true) => EcnMode::Accurate,
                (true, false) => EcnMode::Classic,
                _ => EcnMode::Off,
            };
            self.set_ecn_mode(mode);
            self.send_loop(now, out);
            self.check_complete(now);
        }
        self.refresh_stats();
    }

    /// The application writes `bytes` more to an open (or opening) connection: they are sent
    /// after the data written before, as the window allows, and the sender is complete again
    /// once they are all acknowledged. A sender of unlimited data ignores it.
    ///
    /// `restart_after_idle`: RFC 5681 §4.1's restart window. When everything sent has been
    /// acknowledged and the last ACK is more than one RTO old, the window goes back to
    /// `min(initial window, cwnd)` before anything is sent (as Linux does with its default
    /// `tcp_slow_start_after_idle = 1`, which halves per idle RTO down to that restart window).
    pub fn write(
        &mut self,
        now: SimTime,
        bytes: u64,
        restart_after_idle: bool,
        out: &mut Vec<Segment>,
    ) {
        if self.app_end == u64::MAX || bytes == 0 {
            return;
        }
        if let Some(done) = self.stats.completed_at {
            if restart_after_idle
                && self.state == State::Established
                && self.snd_una == self.snd_nxt
                && now - done > self.rtt.rto()
            {
                let rw = self.initial_cwnd.min(self.cc.cwnd());
                self.cc.reset_initial_window(rw);
            }
        }
        self.app_end = self.app_end.saturating_add(bytes).min(u64::MAX - 1);
        self.stats.completed_at = None;
        if self.state == State::Established {
            self.send_loop(now, out);
        }
        self.refresh_stats();
    }

    /// AccECN feedback was negotiated (RFC 9768), or assumed without a handshake.
    pub fn accecn_negotiated(&self) -> bool {
        self.accurate
    }

    /// Handles a segment from the receiver (SYN-ACK or ACK).
    pub fn on_segment(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        match self.state {
            State::Closed => {}
            State::SynSent => {
                if seg.has(SYN | ACK) && seg.ack == 1 {
                    self.establish(now, seg, out);
                }
            }
            State::Established => {
                if seg.has(ACK) && !seg.has(SYN) {
                    self.on_ack(now, seg, out);
                }
            }
        }
        self.refresh_stats();
    }

    /// Fires the retransmission timer if it is due; a stale call (before the deadline, or after
    /// the timer was cancelled) does nothing.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if let Some(r) = self
            .rack
            .as_mut()
            .filter(|r| r.timer.is_some_and(|t| t <= now))
        {
            // RFC 8985 §6.3: the reordering timer expired: detect losses again, then recover.
            r.timer = None;
            if self.state == State::Established && self.recovery != Recovery::Timeout {
                self.rack_detect(now);
                self.maybe_enter_recovery(now, out);
                self.send_loop(now, out);
                self.refresh_stats();
            }
        }
        if let Some(p) = self
            .pacer
            .as_mut()
            .filter(|p| p.waiting && p.next_at <= now)
        {
            // The paced transmission that was held back (send_loop waits again if it must).
            p.waiting = false;
            self.send_loop(now, out);
            self.refresh_stats();
        }
        let Some(at) = self.rto_at else { return };
        if now < at {
            return;
        }
        self.rto_at = None;
        match self.state {
            State::Closed => {}
            State::SynSent => {
                // RFC 6298 §5.5–5.6 for the SYN; §5.7 and RFC 5681 §3.1 apply once established.
                self.stats.timeouts += 1;
                if self.syn_retransmissions >= self.syn_retries {
                    // Give up, as Linux does after `tcp_syn_retries` (RFC 1122 §4.2.3.5 R2).
                    self.state = State::Closed;
                    self.stats.aborted_at = Some(now);
                } else {
                    self.syn_retransmissions += 1;
                    self.syn_retx = true;
                    self.rtt.backoff();
                    self.send_syn(now, out);
                }
            }
            State::Established => self.on_rto(now, out),
        }
        self.refresh_stats();
    }

    /// When [`TcpSender::on_timer`] must next be called (the retransmission timer, RACK's
    /// reordering timer or the pacing of a held-back segment, whichever comes first).
    pub fn next_timer(&self) -> Option<SimTime> {
        // Called after every segment in and out (the simulator's `arm_timers`): the earliest
        // of the three, without building an array of options.
        let earliest = |a: Option<SimTime>, b: Option<SimTime>| match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, None) => x,
            (None, y) => y,
        };
        let mut t = self.rto_at;
        if let Some(r) = &self.rack {
            t = earliest(t, r.timer);
        }
        if let Some(p) = &self.pacer {
            if p.waiting {
                t = earliest(t, Some(p.next_at));
            }
        }
        t
    }

    /// True once every application byte has been cumulatively acknowledged (never for bulk).
    pub fn is_complete(&self) -> bool {
        self.stats.completed_at.is_some()
    }

    /// True once the connection gave up (see [`SenderStats::aborted_at`]).
    pub fn is_aborted(&self) -> bool {
        self.stats.aborted_at.is_some()
    }

    /// Counters and current values.
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }

    /// Current loss-recovery state.
    pub fn recovery(&self) -> Recovery {
        self.recovery
    }

    /// Oldest unacknowledged sequence number.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    /// Next new sequence number to send.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }

    /// RFC 6675 `pipe`: bytes estimated to be in the network.
    pub fn pipe(&self) -> u64 {
        (self.snd_nxt - self.snd_una) - self.sacked_bytes - self.lost_bytes + self.retx_bytes
    }

    /// True when ECN was negotiated.
    pub fn ecn_negotiated(&self) -> bool {
        self.ecn_ok
    }

    /// Reports the state for tracing: `cwnd`, `ssthresh` (bytes), `srtt_s`, `rttvar_s`, `rto_s`,
    /// `in_flight` (pipe, bytes), `snd_una`, `snd_nxt`, `recovery` (0 open, 1 fast, 2 timeout),
    /// `dupacks`, and the controller's own variables.
    pub fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        visit("cwnd", self.cc.cwnd() as f64);
        visit("ssthresh", self.cc.ssthresh() as f64);
        if let Some(h) = &self.hystart {
            // 0: initial slow start over, 1: standard slow start, 2: conservative slow start.
            let phase = match (h.active(), h.in_css()) {
                (false, _) => 0.0,
                (true, false) => 1.0,
                (true, true) => 2.0,
            };
            visit("hystart_phase", phase);
        }
        visit(
            "srtt_s",
            self.rtt.srtt().map_or(f64::NAN, |d| d.as_secs_f64()),
        );
        visit(
            "rttvar_s",
            self.rtt.rttvar().map_or(f64::NAN, |d| d.as_secs_f64()),
        );
        visit("rto_s", self.rtt.rto().as_secs_f64());
        visit("in_flight", self.pipe() as f64);
        visit("snd_una", self.snd_una as f64);
        visit("snd_nxt", self.snd_nxt as f64);
        visit(
            "recovery",
            match self.recovery {
                Recovery::None => 0.0,
                Recovery::Fast => 1.0,
                Recovery::Timeout => 2.0,
            },
        );
        visit("dupacks", f64::from(self.dupacks));
        self.cc.visit_state(visit);
    }

    // ----- handshake -------------------------------------------------------------------------

    fn send_syn(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        // RFC 3168 §6.1.1 ECN-setup SYN (ECE, CWR); RFC 9768 §3.1.1 AccECN SYN (AE too).
        let flags = SYN | accecn::syn_flags(self.ecn_wanted, self.accecn_wanted);
        out.push(Segment {
            seq: 0,
            flags,
            rwnd: u32::MAX,
            ..Segment::default()
        });
        self.stats.segments_sent += 1;
        self.syn_sent_at = now;
        self.rto_at = Some(now + self.rtt.rto());
    }

    fn establish(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        self.state = State::Established;
        self.rto_at = None;
        self.snd_wnd = self.snd_wnd.min(u64::from(seg.rwnd));
        self.set_ecn_mode(accecn::client_mode(
            self.ecn_wanted,
            self.accecn_wanted,
            seg.flags,
        ));
        self.apply_handshake(Some(now - self.syn_sent_at), self.syn_retx);
        let before = self.stats.segments_sent;
        self.send_loop(now, out);
        if self.stats.segments_sent == before {
            // No data to piggyback the handshake ACK on: send it bare. With AccECN its ACE
            // field feeds back the SYN-ACK's IP-ECN field, Not-ECT: 0b010 (RFC 9768 Table 3).
            let mut ack = Segment {
                seq: self.snd_nxt,
                ack: 1,
                flags: ACK,
                rwnd: u32::MAX,
                ..Segment::default()
            };
            if self.accurate {
                ack.set_ace(0b010);
            }
            out.push(ack);
            self.stats.segments_sent += 1;
        }
        self.check_complete(now);
    }

    /// Enters the negotiated feedback mode and tells the controller.
    fn set_ecn_mode(&mut self, mode: EcnMode) {
        self.ecn_ok = mode != EcnMode::Off;
        self.accurate = mode == EcnMode::Accurate;
        self.l4s &= self.accurate;
        self.cc.on_ecn_mode(mode);
    }

    /// What a finished handshake means for the sender: its RTT `sample`, unless the SYN or
    /// SYN-ACK was `retransmitted`, in which case there is no valid sample (Karn), the RTO goes
    /// back to 3 s (RFC 6298 §5.7) and the initial window is 1 SMSS (RFC 5681 §3.1).
    fn apply_handshake(&mut self, sample: Option<SimDuration>, retransmitted: bool) {
        if retransmitted {
            if self.rtt.srtt().is_none() {
                self.rtt.set_rto(SimDuration::from_secs(3));
            }
            self.cc
                .reset_initial_window(self.mss.min(self.initial_cwnd));
        } else if let Some(r) = sample {
            self.rtt.on_sample(r);
        }
    }

    // ----- ACK processing --------------------------------------------------------------------

    fn on_ack(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        if seg.ack > self.snd_nxt || seg.ack < self.snd_una {
            return; // acknowledges unsent data, or an old reordered ACK
        }
        self.snd_wnd = u64::from(seg.rwnd);
        let flight_before = self.snd_nxt - self.snd_una;
        let cwnd_limited = self.pipe() + self.mss > self.cc.cwnd();
        let recovery_before = self.recovery;
        let sacked_before = self.sacked_bytes;
        let (pipe_before, lost_before) = (self.pipe(), self.lost_bytes);

        self.rack_delivered = None;
        let newly_sacked = if self.sack {
            self.apply_sack(now, seg)
        } else {
            0
        };

        let mut acked = 0;
        let mut sample = None;
        if seg.ack > self.snd_una {
            acked = seg.ack - self.snd_una;
            sample = self.advance_una(now, seg.ack);
            self.dupacks = 0;
            if let Some(r) = sample {
                self.rtt.on_sample(r);
            }
        } else if flight_before > 0 && seg.len == 0 && (!self.sack || newly_sacked > 0) {
            self.dupacks += 1;
            if self.recovery == Recovery::Fast && !self.sack {
                self.rec_cwnd += self.mss; // RFC 6582 §3.2 step 3 / RFC 5681 §3.2 step 4
            }
        }
        if self.rack.is_some() {
            self.rack_update();
            if self.recovery != Recovery::Timeout {
                self.rack_detect(now);
            }
        } else if self.sack && self.sacked_bytes > 0 {
            self.mark_lost();
        }

        // Leave recovery, or handle a partial ACK.
        let mut restart_timer = acked > 0;
        if acked > 0 {
            match self.recovery {
                Recovery::Fast if self.snd_una >= self.recover || self.classic_reno => {
                    self.end_recovery(now);
                }
                Recovery::Fast if !self.sack => {
                    // RFC 6582 §3.2 step 4: partial ACK.
                    self.partial_acks += 1;
                    self.retransmit_front(now, out);
                    self.rec_cwnd = self.rec_cwnd.saturating_sub(acked);
                    if acked >= self.mss {
                        self.rec_cwnd += self.mss;
                    }
                    self.rec_cwnd = self.rec_cwnd.max(self.mss);
                    restart_timer = self.partial_acks == 1;
                }
                Recovery::Timeout if self.snd_una >= self.recover => {
                    self.recovery = Recovery::None;
                    self.clear_retx();
                }
                _ => {}
            }
        }

        // Enter fast recovery.
        let mut reduced = self.maybe_enter_recovery(now, out);

        // RFC 6937 §3.1, on every ACK in recovery (the one that starts it included):
        // DeliveredData = change in snd.una + change in SACKed bytes.
        if self.prr.is_some() && self.recovery == Recovery::Fast {
            let delivered = (acked + self.sacked_bytes).saturating_sub(sacked_before);
            let (pipe, ssthresh) = (self.pipe(), self.cc.ssthresh());
            if let Some(p) = &mut self.prr {
                p.on_ack(delivered, pipe, ssthresh, self.mss);
            }
        }

        // Every ACK's echo, for DCTCP's marked fraction (RFC 8257 §3.3), before the reaction.
        // With AccECN: the CE packets this ACK newly reports (RFC 9768 §3.2.2.2), over the
        // data it newly delivers, cumulatively or by SACK (Appendix A.1's newlyAckedB).
        let mut signal = seg.has(ECE);
        if self.accurate {
            let delivered = (acked + self.sacked_bytes).saturating_sub(sacked_before);
            let pkts = delivered.div_ceil(self.mss);
            let ce = self.ace.on_ack(seg.ace(), pkts);
            signal = ce > 0;
            if delivered > 0 {
                self.cc.on_ecn_feedback(&EcnFeedback {
                    now,
                    acked_bytes: acked,
                    delivered_bytes: delivered,
                    marked_bytes: (ce * self.mss).min(delivered),
                    delivered_packets: pkts,
                    ce_packets: ce,
                    ece: signal,
                    snd_una: self.snd_una,
                    snd_nxt: self.snd_nxt,
                });
            }
        } else if self.ecn_ok && acked > 0 {
            let ece = seg.has(ECE);
            self.cc.on_ecn_feedback(&EcnFeedback {
                now,
                acked_bytes: acked,
                delivered_bytes: acked,
                marked_bytes: if ece { acked } else { 0 },
                delivered_packets: acked.div_ceil(self.mss),
                ce_packets: 0,
                ece,
                snd_una: self.snd_una,
                snd_nxt: self.snd_nxt,
            });
        }
        // ECN-Echo (RFC 3168 §6.1.2): once per window, never during recovery.
        if self.ecn_ok
            && signal
            && self.recovery == Recovery::None
            && !reduced
            && seg.ack > self.ecn_recover
        {
            self.cc
                .on_congestion(now, self.flight_size(), Congestion::Ecn);
            self.end_hystart();
            self.stats.ecn_reductions += 1;
            self.cwr_pending = true;
            self.ecn_recover = self.snd_nxt;
            reduced = true;
        }

        // Window growth: on ACKs of new data outside fast recovery (slow start continues while
        // retransmitting after a timeout).
        if acked > 0 && seg.ts != 0 {
            // The ACK's TSval less its TSecr: the one-way delay (RFC 6817 §2.3 from RFC
            // 7323's timestamps; one clock in the simulation).
            self.cc
                .on_delay_sample(now, SimDuration::from_micros(u64::from(seg.ts)));
        }
        if acked > 0
            && !reduced
            && recovery_before != Recovery::Fast
            && self.recovery != Recovery::Fast
        {
            let mut ev = AckEvent {
                now,
                acked_bytes: acked,
                rtt: sample,
                srtt: self.rtt.srtt(),
                snd_una: self.snd_una,
                snd_nxt: self.snd_nxt,
                in_flight: self.pipe(),
                cwnd_limited,
                mss: self.mss,
            };
            if let Some(h) = self.hystart.as_mut().filter(|h| h.active()) {
                if self.cc.cwnd() < self.cc.ssthresh() {
                    // RFC 9406 §4.2 in the initial slow start.
                    match h.on_ack(self.snd_una, self.snd_nxt, sample) {
                        Growth::SlowStart => {}
                        Growth::Conservative => ev.acked_bytes /= crate::cc::CSS_GROWTH_DIVISOR,
                        Growth::EnterCongestionAvoidance => self.cc.exit_slow_start(now),
                    }
                } else {
                    h.finish();
                }
            }
            self.cc.on_ack(&ev);
        }

        // The delivery-rate sample, on every ACK (`sender/rate.rs`), for a controller that
        // reads it.
        if let Some(rate) = self.rate.as_mut() {
            let mut rs = rate
                .take_sample(self.rtt.min_rtt())
                .into_rate_sample(rate.delivered);
            rs.now = now;
            rs.newly_lost = self.lost_bytes.saturating_sub(lost_before);
            rs.prior_in_flight = pipe_before;
            rs.in_flight = self.pipe();
            rs.ca_state = match self.recovery {
                Recovery::None => CaState::Open,
                Recovery::Fast => CaState::Recovery,
                Recovery::Timeout => CaState::Loss,
            };
            rs.mss = self.mss;
            self.cc.on_rate_sample(&rs);
        }

        if self.snd_una == self.snd_nxt {
            self.rto_at = None; // RFC 6298 §5.2
            if let Some(r) = self.rack.as_mut() {
                r.timer = None; // nothing left to declare lost
            }
        } else if restart_timer {
            self.rto_at = Some(now + self.rtt.rto()); // §5.3
        }
        self.send_loop(now, out);
        self.check_complete(now);
    }

    /// Enters fast recovery (or Tahoe's restart) if a loss is detected: DupThresh duplicate
    /// ACKs, or the oldest segment is marked lost (RFC 6675 `IsLost`, or RACK). Returns true
    /// if the window was reduced.
    fn maybe_enter_recovery(&mut self, now: SimTime, out: &mut Vec<Segment>) -> bool {
        if self.recovery == Recovery::None
            && self.snd_una < self.snd_nxt
            && self.past_recovery_point()
        {
            let front_lost = self.sack && self.segs.front().is_some_and(|s| s.lost);
            // With RACK, losses are its marks alone (RFC 8985 §3.2 replaces DupThresh).
            let dupthresh = self.rack.is_none() && self.dupacks >= self.dupthresh;
            if dupthresh || front_lost {
                if self.tahoe {
                    self.tahoe_restart(now, out);
                } else {
                    self.enter_recovery(now, out);
                }
                return true;
            }
        }
        false
    }

    /// True when duplicate ACKs may start a new fast retransmit: the cumulative ACK has passed
    /// the recovery point of the last fast retransmit or timeout (`recover`, one past the
    /// highest byte sent then; RFC 6582's `recover` is that byte).
    /// * Without SACK (NewReno, Tahoe): RFC 6582 §3.2 step 1, "if the Cumulative
    ///   Acknowledgment field covers more than recover" (and §4 after a timeout): the
    ///   duplicate ACKs must acknowledge beyond the highest byte sent then, `snd_una >
    ///   recover`. ACKs *at* `recover` do not qualify: Tahoe's go-back-N (and any timeout's)
    ///   resends segments the receiver already holds, and each such duplicate draws a
    ///   duplicate ACK for `recover` once the holes below it are filled. Letting three of
    ///   them fast-retransmit again reset Tahoe's window to 1 SMSS for no loss, over and over
    ///   (issue 19: 1,453 retransmissions for 22 drops). ns-2's `bugFix_` is the same test
    ///   (`highest_ack_ > recover_`).
    /// * With SACK: RFC 6675 §5, loss recovery ends once the cumulative ACK covers
    ///   `RecoveryPoint`, and a new one may start at once; duplicate segments bring no new SACK
    ///   information, so they are never counted as duplicate ACKs here.
    /// * Classic Reno without SACK (RFC 5681 §3.2): no guard, unless `recover_guard` asks for
    ///   the one above (ns-2's `Agent/TCP/Reno` with its default `bugFix_`: `dupack_action`
    ///   fast-retransmits only when `highest_ack_ > recover_`).
    fn past_recovery_point(&self) -> bool {
        if self.classic_reno && !self.recover_guard {
            true
        } else if self.sack {
            self.snd_una >= self.recover
        } else {
            self.snd_una > self.recover
        }
    }

    /// Marks segments covered by the SACK blocks; returns the bytes newly SACKed.
    fn apply_sack(&mut self, now: SimTime, seg: &Segment) -> u64 {
        let una = self.snd_una;
        let stale = self.sack_islands.partition_point(|&(_, e)| e <= una);
        self.sack_islands.drain(..stale);
        let mut newly = 0;
        for &(s, e) in seg.sack_blocks() {
            if e <= una || s >= e {
                continue;
            }
            // Walk the parts of [s, e) outside the islands: inside them everything is SACKed.
            let mut cur = s;
            let mut k = self.sack_islands.partition_point(|&(_, ie)| ie <= s);
            while cur < e {
                let (gap_end, next) = match self.sack_islands.get(k) {
                    Some(&(is, ie)) if is < e => (is.max(cur), ie),
                    _ => (e, e),
                };
                if cur < gap_end {
                    newly += self.sack_range(now, cur, gap_end, s, e);
                }
                cur = cur.max(next);
                k += 1;
            }
            // The segments wholly inside the block are all SACKed now: record their span.
            let first = self.segs.partition_point(|x| x.seq < s);
            let end = self.segs.partition_point(|x| x.end() <= e);
            if first < end {
                self.add_island(self.segs[first].seq, self.segs[end - 1].end());
            }
        }
        if cfg!(debug_assertions) && self.segs.len() <= 256 {
            for &(a, b) in &self.sack_islands {
                for x in self.segs.iter().filter(|x| x.seq >= a && x.end() <= b) {
                    debug_assert!(
                        x.sacked,
                        "segment {} in island [{a}, {b}) not SACKed",
                        x.seq
                    );
                }
            }
        }
        newly
    }

    /// Marks SACKed the segments that overlap [a, b) and lie wholly inside the block [s, e).
    fn sack_range(&mut self, now: SimTime, a: u64, b: u64, s: u64, e: u64) -> u64 {
        let mut newly = 0;
        let mut i = self.segs.partition_point(|x| x.end() <= a);
        while i < self.segs.len() && self.segs[i].seq < b {
            let x = self.segs[i];
            if x.seq >= s && x.end() <= e && !x.sacked {
                let len = u64::from(x.len);
                self.sacked_bytes += len;
                if x.lost {
                    self.lost_bytes -= len;
                }
                if x.retx {
                    self.retx_bytes -= len;
                }
                self.segs[i].sacked = true;
                newly += len;
                self.rack_note(now, &x);
                if let Some(r) = self.rate.as_mut() {
                    r.on_delivered(now, len, x.sent_at, &x.rate, x.ever_retx);
                }
                self.highest_sacked = self.highest_sacked.max(x.end());
            }
            i += 1;
        }
        newly
    }

    /// Adds the segment-aligned span [a, b) to the islands, merging those it overlaps or
    /// touches (segment boundaries, so a segment inside the union is inside one of them).
    fn add_island(&mut self, a: u64, b: u64) {
        let isl = &mut self.sack_islands;
        let lo = isl.partition_point(|&(_, ie)| ie < a);
        let hi = isl.partition_point(|&(is, _)| is <= b);
        if lo == hi {
            isl.insert(lo, (a, b));
        } else {
            let merged = (a.min(isl[lo].0), b.max(isl[hi - 1].1));
            isl[lo] = merged;
            isl.drain(lo + 1..hi);
        }
    }

    /// RFC 6675 §4 `IsLost`, applied to every unSACKed segment: lost when at least DupThresh
    /// SACKed segments, or more than (DupThresh − 1)·SMSS SACKed bytes, lie above it.
    fn mark_lost(&mut self) {
        let thresh_bytes = u64::from(self.dupthresh - 1) * self.mss;
        let mut n = 0u32;
        let mut bytes = 0u64;
        // Nothing lies SACKed above the highest SACKed byte, so no segment there can be lost:
        // walk down from the last segment below it to the SACKed segment at which enough
        // SACKed data lies at or above it; every unSACKed segment below that one is lost.
        let top = self.segs.partition_point(|x| x.seq < self.highest_sacked);
        let mut threshold_at = None;
        for i in (0..top).rev() {
            let x = &self.segs[i];
            if x.seq < self.lost_boundary {
                break; // everything below is marked already
            }
            if x.sacked {
                n += 1;
                bytes += u64::from(x.len);
                if n >= self.dupthresh || bytes > thresh_bytes {
                    threshold_at = Some(i);
                    break;
                }
            }
        }
        let Some(t) = threshold_at else { return };
        let from = self.segs.partition_point(|x| x.seq < self.lost_boundary);
        for i in from..t {
            let x = &mut self.segs[i];
            if !x.sacked && !x.lost {
                x.lost = true;
                self.lost_bytes += u64::from(x.len);
                if let Some(r) = self.rate.as_mut() {
                    r.on_lost(u64::from(x.len));
                }
            }
        }
        self.lost_boundary = self.segs[t].seq;
        self.debug_check_lost_boundary();
    }

    /// Debug builds: the `lost_boundary` invariant (skipped for large windows, where the check
    /// would make every ACK quadratic again).
    fn debug_check_lost_boundary(&self) {
        if cfg!(debug_assertions) && self.segs.len() <= 256 {
            for x in &self.segs {
                debug_assert!(
                    (x.seq < self.lost_boundary) == (x.lost && !x.sacked) || x.sacked,
                    "segment {} lost {} sacked {} boundary {}",
                    x.seq,
                    x.lost,
                    x.sacked,
                    self.lost_boundary
                );
            }
        }
    }

    /// Removes segments below `ack`; returns a Karn-valid RTT sample if there is one.
    fn advance_una(&mut self, now: SimTime, ack: u64) -> Option<SimDuration> {
        let mut any_retx = false;
        let mut newest: Option<SimTime> = None;
        while let Some(front) = self.segs.front().copied() {
            if front.end() <= ack {
                if !front.sacked {
                    self.rack_note(now, &front);
                    let len = u64::from(front.len);
                    if let Some(r) = self.rate.as_mut() {
                        r.on_delivered(now, len, front.sent_at, &front.rate, front.ever_retx);
                    }
                }
                self.forget(&front);
                any_retx |= front.ever_retx;
                newest = Some(front.sent_at);
                self.segs.pop_front();
            } else {
                if front.seq < ack {
                    // Partial acknowledgement of a segment (never produced by our receiver).
                    let cut = ack - front.seq;
                    let f = self.segs.front_mut().expect("front exists");
                    if f.sacked {
                        self.sacked_bytes -= cut;
                    } else {
                        if f.lost {
                            self.lost_bytes -= cut;
                        }
                        if f.retx {
                            self.retx_bytes -= cut;
                        }
                    }
                    f.seq = ack;
                    f.len -= cut as u32;
                    any_retx |= f.ever_retx;
                }
                break;
            }
        }
        self.stats.bytes_acked += ack - self.snd_una;
        self.snd_una = ack;
        if any_retx {
            None
        } else {
            newest.map(|t| now.saturating_since(t))
        }
    }

    fn forget(&mut self, x: &TxSeg) {
        let len = u64::from(x.len);
        if x.sacked {
            self.sacked_bytes -= len;
        } else {
            if x.lost {
                self.lost_bytes -= len;
            }
            if x.retx {
                self.retx_bytes -= len;
            }
        }
    }

    fn clear_retx(&mut self) {
        for x in self.segs.iter_mut() {
            x.retx = false;
        }
        self.retx_bytes = 0;
        // Every lost segment is a retransmission candidate again.
        self.scan_from = 0;
    }

    /// The window the send test compares `pipe` with: PRR's in SACK fast recovery, else `cwnd`.
    fn send_window(&self) -> u64 {
        match &self.prr {
            Some(p) if self.recovery == Recovery::Fast => p.window(),
            _ => self.cc.cwnd(),
        }
    }

    fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.stats.fast_recoveries += 1;
        if let Some(p) = &mut self.prr {
            p.enter_recovery(self.snd_nxt - self.snd_una);
        }
        self.cc
            .on_congestion(now, self.flight_size(), Congestion::Loss);
        self.end_hystart();
        self.recovery = Recovery::Fast;
        self.recover = self.snd_nxt;
        self.partial_acks = 0;
        self.clear_retx();
        self.high_rxt = self.snd_una;
        if self.ecn_ok {
            self.cwr_pending = true;
            self.ecn_recover = self.snd_nxt;
        }
        if self.sack {
            // RFC 6675 §5 step 4.3: the first segment is presumed lost and sent at once.
            if let Some(f) = self.segs.front_mut() {
                if !f.lost && !f.sacked {
                    f.lost = true;
                    self.lost_bytes += u64::from(f.len);
                    if let Some(r) = self.rate.as_mut() {
                        r.on_lost(u64::from(f.len));
                    }
                    // Nothing unacknowledged lies below the front segment.
                    self.lost_boundary = self.lost_boundary.max(f.end());
                }
            }
            self.debug_check_lost_boundary();
        } else {
            // RFC 6582 §3.2 step 2: cwnd = ssthresh + 3·SMSS.
            self.rec_cwnd = self.cc.ssthresh() + u64::from(self.dupthresh) * self.mss;
        }
        self.retransmit_front(now, out);
    }

    fn end_recovery(&mut self, now: SimTime) {
        self.recovery = Recovery::None;
        self.clear_retx();
        self.cc.on_recovery_exit(now);
    }

    /// FlightSize for a reduction on a loss or an ECN echo (RFC 5681 §3.2 step 2, RFC 6675 §5
    /// step 4.2, RFC 3168 §6.1.2): `snd_nxt − snd_una` (RFC 5681 §2), but at most `cwnd`.
    /// Equation (4) is an upper bound ("no more than"), and the cap matters only when a
    /// recovery follows another at once, its hole not yet filled: `snd_nxt − snd_una` then
    /// also counts the SACKed data of the first episode and the new data sent while it lasted,
    /// several windows' worth, and each episode *raised* `ssthresh` (with RACK, ten-fold in a
    /// few seconds on `tests/fidelity/red.toml`, then a retransmission storm). ns-2 likewise
    /// halves `min(cwnd, rwnd)`, and Linux's Reno halves `cwnd`. An application-limited flow,
    /// whose flight is below `cwnd`, still halves its flight. (RFC 6675's `pipe` would also
    /// bound it, as ns-3's `BytesInFlight` does, but it leaves out the DupThresh SACKed segments
    /// and the lost one, so each reduction takes about 2 segments more than half: 22 % below
    /// Mathis's throughput at p = 1 % in `tests/performance.rs`.)
    fn flight_size(&self) -> u64 {
        (self.snd_nxt - self.snd_una).min(self.cc.cwnd())
    }

    /// The FlightSize RFC 5681 §3.1 equation (4) takes at a timeout, `ssthresh = max(FlightSize
    /// / 2, 2·SMSS)`, or `None` when `ssthresh` is to be held:
    /// * "FlightSize is the amount of outstanding data in the network" (§3.1): read as RFC 6675's
    ///   `pipe`, not `snd_nxt − snd_una`, which during SACK recovery also counts the SACKed
    ///   data (it has left the network) and the data presumed lost, and keeps growing with the
    ///   new data recovery sends while `snd_una` waits at the hole;
    /// * in fast recovery, at most twice the `ssthresh` set on entering it, so a timeout never
    ///   raises `ssthresh` above that value (ns-3 takes `pipe` too; Linux keeps the entry value:
    ///   `docs/models/tcp.md`);
    /// * "when a TCP sender detects segment loss using the retransmission timer and the given
    ///   segment has already been retransmitted by way of the retransmission timer at least
    ///   once, the value of ssthresh is held constant" (§3.1): the oldest segment was resent in
    ///   the current timeout episode.
    /// * With `rto_ssthresh = ns2` instead, ns-2's rule at every expiry
    ///   ([`ns2_rto_flight_size`]).
    fn rto_flight_size(&self) -> Option<u64> {
        if self.rto_ssthresh == RtoSsthresh::Ns2 {
            // cc.cwnd() is the window without fast recovery's inflation (`rec_cwnd`), as
            // ns-2's Reno clears `dupwnd_` before its timeout halves `window()`.
            return Some(ns2_rto_flight_size(self.cc.cwnd(), self.snd_wnd, self.mss));
        }
        match self.recovery {
            Recovery::Timeout if self.segs.front().is_some_and(|f| f.retx) => None,
            Recovery::Fast => Some(self.pipe().min(self.cc.ssthresh().saturating_mul(2))),
            _ => Some(self.pipe()),
        }
    }

    fn on_rto(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.snd_una == self.snd_nxt {
            return;
        }
        self.stats.timeouts += 1;
        if let Some(r) = self.rack.as_mut() {
            r.timer = None;
        }
        let flight = self.rto_flight_size();
        self.cc.on_rto(now, flight);
        self.rtt.backoff();
        self.restart_from_una(now, out);
    }

    /// Tahoe's fast retransmit (no fast recovery): `ssthresh` as RFC 5681 §3.2 step 2 sets it
    /// (FlightSize / 2), `cwnd` = 1 SMSS, and everything unSACKed is resent from `snd_una` in
    /// slow start, as after a timeout but without backing off the timer; no new fast
    /// retransmit until the data outstanding now is acknowledged and, without SACK, more
    /// (RFC 6582 §3.2 step 1: [`TcpSender::past_recovery_point`]).
    fn tahoe_restart(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.stats.fast_recoveries += 1;
        self.cc
            .on_congestion(now, self.flight_size(), Congestion::Loss);
        self.rto_at = None; // restarted by the retransmission (RFC 6298 §5.1)
        self.restart_from_una(now, out);
    }

    /// After a timeout (or Tahoe's fast retransmit), with `cwnd` already reduced: every
    /// unSACKed segment is presumed lost and resent from `snd_una` in slow start.
    fn restart_from_una(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.end_hystart();
        self.recovery = Recovery::Timeout;
        self.recover = self.snd_nxt;
        self.dupacks = 0;
        self.clear_retx();
        self.high_rxt = self.snd_una;
        for x in self.segs.iter_mut() {
            if !x.sacked && !x.lost {
                x.lost = true;
                self.lost_bytes += u64::from(x.len);
                if let Some(r) = self.rate.as_mut() {
                    r.on_lost(u64::from(x.len));
                }
            }
        }
        self.lost_boundary = self.snd_nxt;
        self.debug_check_lost_boundary();
        if self.ecn_ok {
            self.cwr_pending = true;
            self.ecn_recover = self.snd_nxt;
        }
        self.send_loop(now, out);
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto());
        }
    }

    // ----- transmission ----------------------------------------------------------------------

    fn send_loop(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.state != State::Established {
            return;
        }
        // Pacing (`sender/pacing.rs`), checked once the window allows a segment: held back,
        // on_timer resumes at `next_at`.
        let paced = |s: &mut Self| !s.pacer.as_mut().is_none_or(|p| p.may_send(now));
        loop {
            if self.recovery == Recovery::Fast && !self.sack {
                // RFC 6582: new data while FlightSize stays within the inflated window.
                let len = self.next_new_len();
                if len == 0 || (self.snd_nxt - self.snd_una) + len > self.rec_cwnd || paced(self) {
                    break;
                }
                self.send_new(now, len, out);
                continue;
            }
            if self.pipe() + self.mss > self.send_window() || paced(self) {
                break; // RFC 6675 §5 (C): cwnd − pipe ≥ 1 SMSS
            }
            if self.recovery != Recovery::None {
                if let Some(i) = self.next_lost() {
                    self.retransmit(now, i, out);
                    continue;
                }
            }
            let len = self.next_new_len();
            if len > 0 {
                self.send_new(now, len, out);
                continue;
            }
            if self.recovery == Recovery::None
                && self.app_end.saturating_sub(self.snd_nxt) < self.mss
            {
                // The application has nothing to send with the window open (draft-cheng §3.4).
                let pipe = self.pipe();
                if let Some(r) = self.rate.as_mut() {
                    r.on_app_limited(pipe);
                }
            }
            if self.recovery == Recovery::Fast && self.sack {
                if let Some(i) = self.next_rule3() {
                    self.retransmit(now, i, out);
                    continue;
                }
                if let Some(i) = self.next_rescue() {
                    // RFC 6675 §4 rule 4: RescueRxt = RecoveryPoint; HighRxt is not updated.
                    self.rescue_rxt = Some(self.recover);
                    let high_rxt = self.high_rxt;
                    self.retransmit(now, i, out);
                    self.high_rxt = high_rxt;
                    continue;
                }
            }
            break;
        }
    }

    /// NextSeg rule 4 (RFC 6675 §4): "If the conditions for (1), (2), and (3) fail, but there
    /// exists outstanding unSACKed data, we provide the opportunity for a single 'rescue'
    /// retransmission per entry into loss recovery. If HighACK is greater than RescueRxt (or
    /// RescueRxt is undefined), then one segment of up to SMSS octets that MUST include the
    /// highest outstanding unSACKed sequence number SHOULD be returned". HighACK > RescueRxt
    /// is `snd_una > rescue_rxt` here (both one past the byte the RFC names).
    fn next_rescue(&self) -> Option<usize> {
        if !self.rescue || self.rescue_rxt.is_some_and(|r| self.snd_una <= r) {
            return None;
        }
        self.segs.iter().rposition(|x| !x.sacked)
    }

    /// Length of the next new segment allowed by the application and the receiver window.
    fn next_new_len(&self) -> u64 {
        let avail = self.app_end.saturating_sub(self.snd_nxt).min(self.mss);
        if avail == 0 {
            return 0;
        }
        let wnd_room = (self.snd_una.saturating_add(self.snd_wnd)).saturating_sub(self.snd_nxt);
        if wnd_room < avail {
            0
        } else {
            avail
        }
    }

    /// NextSeg rule 1: the first lost, unSACKed segment at or above `HighRxt` not yet resent.
    fn next_lost(&mut self) -> Option<usize> {
        // Candidates all lie below `lost_boundary`; none lies in [high_rxt, scan_from).
        let from = self.high_rxt.max(self.scan_from);
        let start = self.segs.partition_point(|x| x.seq < from);
        for i in start..self.segs.len() {
            let x = &self.segs[i];
            if x.seq >= self.lost_boundary {
                break;
            }
            if x.lost && !x.sacked && !x.retx {
                return Some(i);
            }
        }
        self.scan_from = self.scan_from.max(self.lost_boundary);
        None
    }

    /// NextSeg rule 3: an unSACKed segment above `HighRxt` with SACKed data above it.
    fn next_rule3(&self) -> Option<usize> {
        let start = self.segs.partition_point(|x| x.seq < self.high_rxt);
        // Segments are in sequence order, so none from the first ending at or above HighSACK
        // on can qualify: the walk stops there rather than at the end of the window.
        (start..self.segs.len())
            .take_while(|&i| self.segs[i].end() < self.highest_sacked)
            .find(|&i| !self.segs[i].sacked && !self.segs[i].retx)
    }

    fn send_new(&mut self, now: SimTime, len: u64, out: &mut Vec<Segment>) {
        let seq = self.snd_nxt;
        let rate = self.rate_stamp(now, len);
        self.segs.push_back(TxSeg {
            seq,
            len: len as u32,
            sent_at: now,
            ever_retx: false,
            sacked: false,
            lost: false,
            retx: false,
            rate,
        });
        self.snd_nxt += len;
        let mut flags = ACK;
        if self.accurate {
            // The flags are the reverse direction's ACE field (RFC 9768 §3.2.2); no CWR.
            flags |= AE | ECE; // r.cep = 5 (INITIAL_CEP): no data flows the other way
            debug_assert_eq!(INITIAL_CEP, 0b101);
            self.cwr_pending = false;
        } else if self.cwr_pending {
            flags |= CWR;
            self.cwr_pending = false;
        }
        self.emit(now, seq, len as u32, flags, self.ecn_ok, out);
    }

    /// The delivery-rate stamp of a segment sent now (`sender/rate.rs`); a default one when
    /// no estimate is kept.
    fn rate_stamp(&mut self, now: SimTime, len: u64) -> rate::Stamp {
        let pipe = self.pipe();
        self.rate
            .as_mut()
            .map_or_else(rate::Stamp::default, |r| r.on_send(now, pipe, len))
    }

    fn retransmit_front(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if !self.segs.is_empty() {
            self.retransmit(now, 0, out);
        }
    }

    fn retransmit(&mut self, now: SimTime, i: usize, out: &mut Vec<Segment>) {
        let stamp = self.rate_stamp(now, u64::from(self.segs[i].len));
        let x = &mut self.segs[i];
        x.rate = stamp;
        x.sent_at = now;
        x.ever_retx = true;
        if !x.retx && !x.sacked {
            x.retx = true;
            self.retx_bytes += u64::from(x.len);
        }
        let (seq, len) = (x.seq, x.len);
        self.high_rxt = self.high_rxt.max(seq + u64::from(len));
        self.stats.retransmits += 1;
        // RFC 3168 §6.1.5: retransmitted data is not ECN-capable.
        self.emit(now, seq, len, ACK, false, out);
    }

    fn emit(
        &mut self,
        now: SimTime,
        seq: u64,
        len: u32,
        flags: u8,
        ect: bool,
        out: &mut Vec<Segment>,
    ) {
        out.push(Segment {
            seq,
            len,
            ack: 1,
            flags,
            ect,
            ect1: ect && self.l4s,
            rwnd: u32::MAX,
            ts: if self.timestamps { ts_clock(now) } else { 0 },
            ..Segment::default()
        });
        self.stats.segments_sent += 1;
        if let (true, Some(rate)) = (self.pacer.is_some(), self.cc.pacing_rate()) {
            // The controller's own rate (BBR).
            let gap = SimDuration::from_secs_f64(f64::from(len) / rate.max(1.0));
            if let Some(p) = self.pacer.as_mut() {
                p.on_sent(now, gap);
            }
        } else if let (true, Some(srtt)) = (self.pacer.is_some(), self.rtt.srtt()) {
            let (cwnd, ssthresh) = (self.cc.cwnd(), self.cc.ssthresh());
            let ratio = pacing::ratio_pct(cwnd, ssthresh, self.pacing_ca_pct);
            let gap = pacing::gap(u64::from(len), cwnd.max(self.pipe()), srtt, ratio);
            if let Some(p) = self.pacer.as_mut() {
                p.on_sent(now, gap);
            }
        }
        if self.recovery == Recovery::Fast {
            if let Some(p) = &mut self.prr {
                p.on_sent(u64::from(len)); // RFC 6937 §3.1
            }
        }
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto()); // RFC 6298 §5.1
        }
    }

    /// A loss, an ECN echo or a timeout ends the initial slow start: HyStart++ is done
    /// (RFC 9406 §4.3: only the initial slow start uses it).
    fn end_hystart(&mut self) {
        if let Some(h) = &mut self.hystart {
            h.finish();
        }
    }

    fn check_complete(&mut self, now: SimTime) {
        if self.stats.completed_at.is_none() && self.snd_una >= self.app_end {
            self.stats.completed_at = Some(now);
            self.rto_at = None;
            if let Some(r) = self.rack.as_mut() {
                r.timer = None;
            }
        }
    }

    fn refresh_stats(&mut self) {
        self.stats.srtt = self.rtt.srtt();
        self.stats.rttvar = self.rtt.rttvar();
        self.stats.min_rtt = self.rtt.min_rtt();
        self.stats.rto = self.rtt.rto();
        self.stats.cwnd_bytes = self.cc.cwnd();
        self.stats.ssthresh_bytes = self.cc.ssthresh();
        self.stats.ce_reported = self.ace.marks();
    }
}
