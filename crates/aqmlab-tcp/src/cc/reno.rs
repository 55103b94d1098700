//! Reno / NewReno window arithmetic (RFC 5681 §3.1).
//!
//! * Slow start: `cwnd += min(N, 2·SMSS)` per ACK acknowledging `N` new bytes (appropriate byte
//!   counting, RFC 3465 §2.2 with L = 2, so delayed ACKs still double the window per RTT, as Linux).
//! * Congestion avoidance: byte counting (RFC 5681 §3.1 / RFC 3465 §2.1): bytes acknowledged are
//!   accumulated and `cwnd` grows by one SMSS each time a full `cwnd` worth has been acknowledged,
//!   i.e. one segment per RTT whether or not the receiver delays ACKs. (ns-2 Reno increases by
//!   `1/cwnd` per ACK instead, which halves the growth rate under delayed ACKs.)
//! * Loss or ECN: `ssthresh = cwnd = max(FlightSize/2, 2·SMSS)` (equation 4).
//! * RTO: same `ssthresh`, `cwnd` = loss window = 1 SMSS.
//! * Tahoe ([`Reno::tahoe`]): a loss, too, leaves `cwnd` = 1 SMSS.

use super::{half_flight, slow_start, AckEvent, Congestion, CongestionControl};
use aqmlab_core::SimTime;

/// Reno AIMD state.
#[derive(Clone, Debug)]
pub struct Reno {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Bytes acknowledged since the last congestion-avoidance increase.
    bytes_acked: u64,
    /// Tahoe: a loss leaves one segment of window (slow start), not `ssthresh`.
    tahoe: bool,
}

impl Reno {
    /// Initial window `initial_cwnd` bytes; `ssthresh` starts arbitrarily high (RFC 5681 §3.1).
    pub fn new(mss: u64, initial_cwnd: u64) -> Self {
        Reno {
            mss,
            cwnd: initial_cwnd,
            ssthresh: u64::MAX,
            bytes_acked: 0,
            tahoe: false,
        }
    }

    /// Tahoe's window: as Reno's, but a loss sets `cwnd` to the loss window, one segment
    /// (Jacobson 1988; RFC 5681 §3.1 for the value of `ssthresh`), so slow start follows.
    pub fn tahoe(mss: u64, initial_cwnd: u64) -> Self {
        Reno {
            tahoe: true,
            ..Reno::new(mss, initial_cwnd)
        }
    }
}

impl Reno {
    /// `ssthresh = cwnd = w`: a multiplicative decrease computed by a controller built on
    /// Reno's window (DCTCP's `cwnd·(1 − α/2)`).
    pub(crate) fn reduce_to(&mut self, w: u64) {
        self.ssthresh = w;
        self.cwnd = w;
        self.bytes_acked = 0;
    }
}

impl CongestionControl for Reno {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        if !ev.cwnd_limited {
            return;
        }
        let mut acked = ev.acked_bytes;
        if self.cwnd < self.ssthresh {
            acked = slow_start(&mut self.cwnd, self.ssthresh, acked, self.mss);
            if acked == 0 {
                return;
            }
        }
        self.bytes_acked += acked;
        if self.bytes_acked >= self.cwnd {
            self.bytes_acked -= self.cwnd;
            self.cwnd += self.mss;
        }
    }
    fn on_congestion(&mut self, _now: SimTime, flight_size: u64, kind: Congestion) {
        self.ssthresh = half_flight(flight_size, self.mss);
        // Tahoe has no fast recovery: after a loss, slow start from one segment. (An ECN echo
        // halves the window, RFC 3168 §6.1.2, whatever the algorithm.)
        self.cwnd = if self.tahoe && kind == Congestion::Loss {
            self.mss
        } else {
            self.ssthresh
        };
        self.bytes_acked = 0;
    }
    fn on_rto(&mut self, _now: SimTime, flight_size: Option<u64>) {
        if let Some(f) = flight_size {
            self.ssthresh = half_flight(f, self.mss);
        }
        self.cwnd = self.mss;
        self.bytes_acked = 0;
    }
    fn reset_initial_window(&mut self, cwnd: u64) {
        self.cwnd = cwnd;
    }
    fn set_initial_ssthresh(&mut self, ssthresh: u64) {
        self.ssthresh = ssthresh;
    }
    fn exit_slow_start(&mut self, _now: SimTime) {
        self.ssthresh = self.cwnd;
        self.bytes_acked = 0;
    }
    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        visit("reno_bytes_acked", self.bytes_acked as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(bytes: u64) -> AckEvent {
        AckEvent {
            now: SimTime::ZERO,
            acked_bytes: bytes,
            rtt: None,
            srtt: None,
            snd_una: 0,
            snd_nxt: 0,
            in_flight: 0,
            cwnd_limited: true,
            mss: 1000,
        }
    }

    #[test]
    fn slow_start_then_one_segment_per_window() {
        let mut r = Reno::new(1000, 2000);
        r.on_ack(&ack(2000));
        assert_eq!(r.cwnd(), 4000);
        r.on_congestion(SimTime::ZERO, 10_000, Congestion::Loss);
        assert_eq!((r.cwnd(), r.ssthresh()), (5000, 5000));
        for _ in 0..4 {
            r.on_ack(&ack(1000));
        }
        assert_eq!(r.cwnd(), 5000, "no increase before a full window is acked");
        r.on_ack(&ack(1000));
        assert_eq!(r.cwnd(), 6000);
        r.on_rto(SimTime::ZERO, Some(3000));
        assert_eq!((r.cwnd(), r.ssthresh()), (1000, 2000));
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut r = Reno::new(1000, 2000);
        let mut ev = ack(2000);
        ev.cwnd_limited = false;
        r.on_ack(&ev);
        assert_eq!(r.cwnd(), 2000);
    }
}
