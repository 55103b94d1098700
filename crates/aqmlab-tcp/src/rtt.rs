//! Round-trip-time estimation and the retransmission timeout (RFC 6298).
//!
//! Integer nanoseconds throughout. The gains α = 1/8 and β = 1/4 (RFC 6298 §2.3) are applied with
//! integer division, so each update truncates by less than 1 ns. The clock granularity `G` of
//! §2.2–2.3 is taken as 0 (the simulated clock is exact); the configurable minimum RTO (§2.4)
//! dominates it in practice.

use aqmlab_core::SimDuration;

/// SRTT / RTTVAR / RTO state of one sender.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<u64>,
    rttvar: u64,
    /// The RTO currently in force, including any backoff (ns).
    rto: u64,
    min_rto: u64,
    max_rto: u64,
    min_rtt: Option<u64>,
}

impl RttEstimator {
    /// A fresh estimator: RTO = `initial` (RFC 6298 §2.1), clamped to `[min_rto, max_rto]`
    /// only from above (an initial RTO below `min_rto` is kept, as in §2.1 it is set directly).
    pub fn new(initial: SimDuration, min_rto: SimDuration, max_rto: SimDuration) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: 0,
            rto: initial.as_nanos().min(max_rto.as_nanos()),
            min_rto: min_rto.as_nanos(),
            max_rto: max_rto.as_nanos(),
            min_rtt: None,
        }
    }

    /// Feeds one valid sample `r` (Karn's rule is the caller's job: never pass a sample from a
    /// retransmitted segment). RFC 6298 §2.2 for the first sample, §2.3 afterwards; the RTO
    /// computed here also ends any backoff (§5.7 discussion, Karn & Partridge).
    pub fn on_sample(&mut self, r: SimDuration) {
        let r = r.as_nanos();
        match self.srtt {
            None => {
                // §2.2: SRTT <- R, RTTVAR <- R/2
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // §2.3: RTTVAR <- (1 - β)·RTTVAR + β·|SRTT - R'| first, with the old SRTT,
                // then SRTT <- (1 - α)·SRTT + α·R'.
                let err = srtt.abs_diff(r);
                self.rttvar = (3 * self.rttvar + err) / 4;
                self.srtt = Some((7 * srtt + r) / 8);
            }
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        // RTO <- SRTT + max(G, K·RTTVAR), K = 4; then §2.4 (min) and §2.5 (max).
        let raw = self.srtt.unwrap_or(r).saturating_add(4 * self.rttvar);
        self.rto = raw.clamp(self.min_rto, self.max_rto);
    }

    /// Exponential backoff after a timer expiry: RTO <- min(2·RTO, max RTO) (RFC 6298 §5.5).
    pub fn backoff(&mut self) {
        self.rto = self.rto.saturating_mul(2).min(self.max_rto);
    }

    /// Sets the RTO directly, e.g. to 3 s after a lost SYN (RFC 6298 §5.7).
    pub fn set_rto(&mut self, rto: SimDuration) {
        self.rto = rto.as_nanos().min(self.max_rto);
    }

    /// The retransmission timeout in force.
    pub fn rto(&self) -> SimDuration {
        SimDuration::from_nanos(self.rto)
    }

    /// Smoothed RTT, once a sample exists.
    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt.map(SimDuration::from_nanos)
    }

    /// RTT variation, once a sample exists.
    pub fn rttvar(&self) -> Option<SimDuration> {
        self.srtt.map(|_| SimDuration::from_nanos(self.rttvar))
    }

    /// Smallest sample seen.
    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.min_rtt.map(SimDuration::from_nanos)
    }
}
