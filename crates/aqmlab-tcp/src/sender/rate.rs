//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02, as Linux's
//! `tcp_rate.c`): each segment is stamped at transmission with the connection's delivered
//! count and times (§3.2 "Transmitting or retransmitting a data packet"); each ACK that
//! delivers segments, cumulatively or by SACK, takes the stamp of the most recently sent one
//! (§3.3 "Upon receiving an ACK"), and the sample is the data delivered since that segment was
//! sent over the longer of the send and ACK intervals (§3.3 "GenerateRateSample"), discarded
//! when that interval is shorter than the minimum RTT.

use crate::cc::RateSample;
use aqmlab_core::{SimDuration, SimTime};

/// What a segment carries from its (re)transmission (§3.1 "Per-packet (P) state").
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Stamp {
    /// `P.delivered`: `C.delivered` when the segment was sent.
    pub(super) delivered: u64,
    /// `P.delivered_time`.
    pub(super) delivered_time: SimTime,
    /// `P.first_sent_time`.
    pub(super) first_sent_time: SimTime,
    /// `P.is_app_limited`.
    pub(super) app_limited: bool,
    /// `P.lost`: `C.lost` when the segment was sent (BBR v3's loss rate per flight).
    pub(super) lost: u64,
    /// `P.tx_in_flight`: bytes in flight when the segment was sent, itself included.
    pub(super) tx_in_flight: u64,
}

/// The connection's rate state (§3.1 "Per-connection (C) state") and the sample being built
/// from the current ACK.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RateEstimator {
    /// `C.delivered`: bytes delivered so far.
    pub(super) delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// `C.app_limited`: 0, or the delivered count that ends the application-limited period.
    app_limited: u64,
    /// `C.lost`: bytes ever marked lost (never decreases).
    lost: u64,
    /// The newest delivered segment's stamp in this ACK: `(P.delivered, P.delivered_time,
    /// send_elapsed, ack_elapsed, P.is_app_limited)`, with `(P.lost, P.tx_in_flight)`.
    newest: Option<(u64, SimTime, SimDuration, SimDuration, bool)>,
    newest_flight: (u64, u64),
    /// Bytes delivered by this ACK.
    newly: u64,
    /// The RTT of the newest delivered segment never retransmitted, with its send time.
    rtt: Option<(SimTime, SimDuration)>,
}

impl RateEstimator {
    /// Stamps a segment sent at `now` with `in_flight` bytes (RFC 6675 `pipe`) outstanding
    /// before it (§3.2: an idle connection restarts both clocks).
    /// `len` is the segment's payload (counted in `P.tx_in_flight`).
    pub(super) fn on_send(&mut self, now: SimTime, in_flight: u64, len: u64) -> Stamp {
        if in_flight == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        Stamp {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited != 0,
            lost: self.lost,
            tx_in_flight: in_flight + len,
        }
    }

    /// `len` bytes were newly marked lost (`C.lost += len`).
    pub(super) fn on_lost(&mut self, len: u64) {
        self.lost += len;
    }

    /// §3.3 "UpdateRateSample": `len` bytes sent at `sent_at` with stamp `p` were delivered
    /// at `now` (cumulatively or by SACK, once each); `retransmitted` excludes the segment
    /// from the RTT sample (Karn).
    pub(super) fn on_delivered(
        &mut self,
        now: SimTime,
        len: u64,
        sent_at: SimTime,
        p: &Stamp,
        retransmitted: bool,
    ) {
        self.delivered += len;
        self.delivered_time = now;
        self.newly += len;
        if self.newest.is_none_or(|n| p.delivered >= n.0) {
            self.newest = Some((
                p.delivered,
                p.delivered_time,
                sent_at.saturating_since(p.first_sent_time),
                now.saturating_since(p.delivered_time),
                p.app_limited,
            ));
            self.newest_flight = (p.lost, p.tx_in_flight);
            self.first_sent_time = sent_at;
        }
        if !retransmitted && self.rtt.is_none_or(|(t, _)| sent_at >= t) {
            self.rtt = Some((sent_at, now.saturating_since(sent_at)));
        }
    }

    /// §3.4 "Detecting application-limited phases": the application had nothing to send
    /// while the window had room.
    pub(super) fn on_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// §3.3 "GenerateRateSample" at the end of an ACK; resets the per-ACK state. `min_rtt`
    /// is the connection's minimum RTT.
    pub(super) fn take_sample(&mut self, min_rtt: Option<SimDuration>) -> Sample {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let newest = self.newest.take();
        let newly = std::mem::take(&mut self.newly);
        let rtt = self.rtt.take().map(|(_, r)| r);
        let mut s = Sample {
            newly_delivered: newly,
            rtt,
            ..Sample::default()
        };
        let Some((prior_delivered, _, send_elapsed, ack_elapsed, app_limited)) = newest else {
            return s;
        };
        s.prior_delivered = prior_delivered;
        s.app_limited = app_limited;
        s.lost = self.lost - self.newest_flight.0;
        s.tx_in_flight = self.newest_flight.1;
        let interval = send_elapsed.max(ack_elapsed);
        let delivered = self.delivered - prior_delivered;
        if interval > SimDuration::ZERO && min_rtt.is_none_or(|m| interval >= m) {
            s.rate = Some((delivered, interval));
        }
        s
    }
}

/// One ACK's sample, before the sender adds the window state ([`RateSample`]).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Sample {
    pub(super) newly_delivered: u64,
    pub(super) rtt: Option<SimDuration>,
    pub(super) prior_delivered: u64,
    pub(super) app_limited: bool,
    /// `rs.lost`: bytes marked lost since the newest delivered segment was sent.
    pub(super) lost: u64,
    /// `rs.tx_in_flight`: bytes in flight when it was sent.
    pub(super) tx_in_flight: u64,
    /// `(rs.delivered, rs.interval)`, when the sample is valid.
    pub(super) rate: Option<(u64, SimDuration)>,
}

impl Sample {
    /// Bytes per second over the sample's interval.
    pub(super) fn into_rate_sample(self, delivered: u64) -> RateSample {
        RateSample {
            delivery_rate: self.rate.map(|(d, i)| d as f64 / i.as_secs_f64()),
            prior_delivered: self.prior_delivered,
            delivered,
            app_limited: self.app_limited,
            newly_delivered: self.newly_delivered,
            rtt: self.rtt,
            lost: self.lost,
            tx_in_flight: self.tx_in_flight,
            ..RateSample::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_delivered_in_one_rtt_gives_its_rate() {
        // 10 segments of 1000 B sent back to back at t = 0 on an idle connection, ACKed one per
        // 10 ms from t = 100 ms: the last ACK's sample is 10 000 B over max(send 0, ack 100 ms
        // since t = 0's delivered_time) = 100 ms, 100 000 B/s.
        let mut r = RateEstimator::default();
        let t0 = SimTime::ZERO;
        let stamps: Vec<Stamp> = (0..10).map(|i| r.on_send(t0, i * 1000, 1000)).collect();
        let mut last = Sample::default();
        for (i, p) in stamps.iter().enumerate() {
            let now = SimTime::from_millis(100 + 10 * i as u64);
            r.on_delivered(now, 1000, t0, p, false);
            last = r.take_sample(Some(SimDuration::from_millis(100)));
        }
        assert_eq!(
            last.rate,
            Some((10_000, SimDuration::from_millis(190))),
            "ack_elapsed runs from delivered_time 0 to the last ACK at 190 ms"
        );
        assert_eq!(last.rtt, Some(SimDuration::from_millis(190)));
        assert_eq!(r.delivered, 10_000);
        // A sample whose interval is below the minimum RTT is discarded (§3.3).
        let mut r = RateEstimator::default();
        let p = r.on_send(t0, 0, 1000);
        r.on_delivered(SimTime::from_millis(50), 1000, t0, &p, false);
        assert_eq!(
            r.take_sample(Some(SimDuration::from_millis(100))).rate,
            None
        );
    }

    #[test]
    fn the_newest_segment_sets_the_sample_and_app_limited_ends_once_passed() {
        let mut r = RateEstimator::default();
        let p0 = r.on_send(SimTime::ZERO, 0, 1000);
        r.on_app_limited(1000);
        let p1 = r.on_send(SimTime::from_millis(5), 1000, 1000);
        assert!(!p0.app_limited && p1.app_limited);
        // Both delivered by one ACK at 105 ms: the sample is p1's (newest), app-limited.
        let now = SimTime::from_millis(105);
        r.on_delivered(now, 1000, SimTime::ZERO, &p0, false);
        r.on_delivered(now, 1000, SimTime::from_millis(5), &p1, false);
        let s = r.take_sample(None);
        assert!(s.app_limited);
        assert_eq!(s.newly_delivered, 2000);
        // delivered 2000 > app_limited mark 1000: the application-limited period is over.
        assert!(!r.on_send(now, 0, 1000).app_limited);
    }

    #[test]
    fn a_sample_carries_the_loss_since_its_segment_was_sent_and_its_flight() {
        // Four segments of 1000 B sent back to back, two of them marked lost
        // between the third and the fourth: an ACK for the first reports both losses (marked
        // since it was sent) against its flight of 1000 B; one for the fourth, none against
        // 4000 B (v3's rs.lost and rs.tx_in_flight).
        let mut r = RateEstimator::default();
        let t0 = SimTime::ZERO;
        let p: Vec<Stamp> = (0..3).map(|i| r.on_send(t0, i * 1000, 1000)).collect();
        r.on_lost(1000);
        r.on_lost(1000);
        let p3 = r.on_send(t0, 3000, 1000);
        let now = SimTime::from_millis(100);
        r.on_delivered(now, 1000, t0, &p[0], false);
        let s = r.take_sample(None);
        assert_eq!((s.lost, s.tx_in_flight), (2000, 1000));
        let rs = s.into_rate_sample(r.delivered);
        assert_eq!((rs.lost, rs.tx_in_flight), (2000, 1000));
        r.on_delivered(now, 1000, t0, &p3, false);
        let s = r.take_sample(None);
        assert_eq!((s.lost, s.tx_in_flight), (0, 4000));
    }

    #[test]
    fn only_a_controller_that_reads_rate_samples_keeps_the_estimate() {
        // BBR (v1 and v3) reads a sample on every ACK; the others never do, so their senders skip the
        // per-segment stamps and per-ACK samples altogether.
        use crate::config::{CcKind, TcpConfig};
        for kind in [
            CcKind::Tahoe,
            CcKind::Reno,
            CcKind::NewReno,
            CcKind::Cubic,
            CcKind::Vegas,
            CcKind::Dctcp,
            CcKind::Bbr,
            CcKind::Bbr3,
            CcKind::Prague,
            CcKind::Ledbat,
        ] {
            let mut cfg = TcpConfig::default();
            cfg.cc.kind = kind;
            cfg.ecn = matches!(kind, CcKind::Dctcp | CcKind::Prague);
            cfg.accecn = kind == CcKind::Prague;
            let s = super::super::TcpSender::new(&cfg, None);
            assert_eq!(s.rate.is_some(), kind.is_bbr(), "{kind:?}");
        }
    }
}
