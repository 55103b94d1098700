//! DCTCP, the sender side (RFC 8257 §3.3); the receiver's CE echo is in `receiver.rs` (§3.2).
//!
//! * Per ACK that advances `snd_una` ([`CongestionControl::on_ecn_feedback`]): the bytes it
//!   acknowledges are added to `bytes_acked`, and to `bytes_marked` if it carries ECE
//!   (§3.3 steps 1–2; SACKed bytes are not counted).
//! * Once `snd_una` reaches `window_end` (one window of data, about one RTT): `F =
//!   bytes_marked / bytes_acked`, `α ← (1 − g)·α + g·F`, `window_end = snd_nxt`, both counters
//!   reset (steps 3–7). The first window ends at the `snd_nxt` of the first ACK, as ns-3's
//!   `TcpDctcp`; the test is `snd_una ≥ window_end`, as Linux's and ns-3's.
//! * An ECN echo ([`Congestion::Ecn`]; the sender calls it at most once per window of data,
//!   RFC 3168 §6.1.2, as §3.3 step 8 requires): `ssthresh = cwnd = max(cwnd·(1 − α/2), 2·SMSS)`.
//! * Growth, loss and timeout: Reno's ([`Reno`]; ns-3's `TcpDctcp` derives from `TcpLinuxReno`,
//!   Linux's DCTCP from Reno). A loss halves the window (§3.4: "react to loss episodes in the
//!   same way as conventional TCP"), where ns-3 and Linux cut it by `α/2` as for a mark.
//!
//! `g` is 1/16 and `α` starts at 1 by default ([`DctcpParams`]).

use super::{AckEvent, Congestion, CongestionControl, EcnFeedback, Reno};
use crate::config::DctcpParams;
use aqmlab_core::SimTime;

/// DCTCP state: Reno's window plus the marked-fraction estimator.
#[derive(Clone, Debug)]
pub struct Dctcp {
    reno: Reno,
    mss: u64,
    g: f64,
    alpha: f64,
    /// Bytes acknowledged in the current observation window (`DCTCP.BytesAcked`).
    bytes_acked: u64,
    /// Of those, bytes acknowledged by ACKs with ECE (`DCTCP.BytesMarked`).
    bytes_marked: u64,
    /// `snd_una` that ends the current observation window (`DCTCP.WindowEnd`); set by the
    /// first ACK.
    window_end: Option<u64>,
}

impl Dctcp {
    /// DCTCP with parameters `p`, initial window `initial_cwnd` bytes.
    pub fn new(p: DctcpParams, mss: u64, initial_cwnd: u64) -> Self {
        Dctcp {
            reno: Reno::new(mss, initial_cwnd),
            mss,
            g: p.g,
            alpha: p.initial_alpha,
            bytes_acked: 0,
            bytes_marked: 0,
            window_end: None,
        }
    }

    /// The current estimate of the fraction of marked bytes, `α`.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    fn cwnd(&self) -> u64 {
        self.reno.cwnd()
    }
    fn ssthresh(&self) -> u64 {
        self.reno.ssthresh()
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        self.reno.on_ack(ev);
    }
    fn on_ecn_feedback(&mut self, fb: &EcnFeedback) {
        self.bytes_acked += fb.delivered_bytes;
        self.bytes_marked += fb.marked_bytes;
        let end = *self.window_end.get_or_insert(fb.snd_nxt);
        if fb.snd_una < end {
            return;
        }
        let f = if self.bytes_acked > 0 {
            self.bytes_marked as f64 / self.bytes_acked as f64
        } else {
            0.0
        };
        self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
        self.window_end = Some(fb.snd_nxt);
        self.bytes_acked = 0;
        self.bytes_marked = 0;
    }
    fn on_congestion(&mut self, now: SimTime, flight_size: u64, kind: Congestion) {
        match kind {
            Congestion::Ecn => {
                let cwnd = self.reno.cwnd();
                let w = (cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64;
                self.reno.reduce_to(w.max(2 * self.mss));
            }
            Congestion::Loss => self.reno.on_congestion(now, flight_size, kind),
        }
    }
    fn on_rto(&mut self, now: SimTime, flight_size: Option<u64>) {
        self.reno.on_rto(now, flight_size);
    }
    fn reset_initial_window(&mut self, cwnd: u64) {
        self.reno.reset_initial_window(cwnd);
    }
    fn exit_slow_start(&mut self, now: SimTime) {
        self.reno.exit_slow_start(now);
    }
    fn set_initial_ssthresh(&mut self, ssthresh: u64) {
        self.reno.set_initial_ssthresh(ssthresh);
    }
    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        visit("dctcp_alpha", self.alpha);
        self.reno.visit_state(visit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn fb(acked: u64, ece: bool, snd_una: u64, snd_nxt: u64) -> EcnFeedback {
        EcnFeedback {
            now: SimTime::ZERO,
            acked_bytes: acked,
            delivered_bytes: acked,
            marked_bytes: if ece { acked } else { 0 },
            delivered_packets: acked.div_ceil(MSS),
            ce_packets: 0,
            ece,
            snd_una,
            snd_nxt,
        }
    }

    #[test]
    fn alpha_is_the_ewma_of_the_marked_fraction_per_window() {
        // A window-limited sender with 10 segments out: ACK j acknowledges segment j, and
        // when it arrives snd_nxt = (j + 9)·MSS. The first ACK sets the window end to 10·MSS,
        // so the windows are ACKs 1–10, then 11–19, 20–28, 29–37 (each ends at the snd_nxt of
        // the ACK that closed the previous one).
        let mut d = Dctcp::new(DctcpParams::default(), MSS, 10 * MSS);
        let marked = |j: u64| match j {
            1..=10 => true,   // window 1: F = 1
            11..=19 => false, // window 2: F = 0
            20..=22 => true,  // window 3: F = 3/9
            _ => false,       // window 4: F = 0
        };
        let mut alphas = Vec::new();
        for j in 1..=37 {
            let before = d.alpha();
            d.on_ecn_feedback(&fb(MSS, marked(j), j * MSS, (j + 9) * MSS));
            if [10, 19, 28, 37].contains(&j) {
                alphas.push(d.alpha());
                assert_eq!(d.window_end, Some((j + 9) * MSS));
            } else {
                assert_eq!(d.alpha(), before, "alpha moved inside a window at ACK {j}");
            }
        }
        // g = 1/16, α₀ = 1: α₁ = 15/16 + 1/16 = 1, α₂ = 15/16 = 0.9375,
        // α₃ = (15/16)² + (1/16)(1/3) = 0.899739583…, α₄ = (15/16)·α₃ = 0.843505859…
        assert_eq!(alphas[0], 1.0);
        assert_eq!(alphas[1], 0.9375);
        assert!(
            (alphas[2] - 0.899_739_583_333_333_3).abs() < 1e-15,
            "{alphas:?}"
        );
        assert!((alphas[3] - 0.843_505_859_375).abs() < 1e-15, "{alphas:?}");
    }

    #[test]
    fn alpha_updates_only_when_snd_una_reaches_the_window_end() {
        let mut d = Dctcp::new(DctcpParams::default(), MSS, 10 * MSS);
        // First ACK: window end = its snd_nxt = 10 000; α unchanged until snd_una ≥ 10 000.
        d.on_ecn_feedback(&fb(MSS, false, MSS, 10_000));
        for k in 2..10 {
            d.on_ecn_feedback(&fb(MSS, false, k * MSS, 20_000));
            assert_eq!(d.alpha(), 1.0);
        }
        d.on_ecn_feedback(&fb(MSS, false, 10_000, 20_000));
        assert_eq!(d.alpha(), 15.0 / 16.0, "F = 0 over the first window");
        assert_eq!(d.window_end, Some(20_000));
        assert_eq!((d.bytes_acked, d.bytes_marked), (0, 0));
    }

    #[test]
    fn marked_fraction_counts_bytes_not_acks() {
        // A 3-segment ACK with ECE and a 1-segment ACK without: F = 3/4, not 1/2.
        let mut d = Dctcp::new(
            DctcpParams {
                g: 0.5,
                initial_alpha: 0.0,
            },
            MSS,
            10 * MSS,
        );
        d.on_ecn_feedback(&fb(3 * MSS, true, 3 * MSS, 4 * MSS));
        d.on_ecn_feedback(&fb(MSS, false, 4 * MSS, 8 * MSS));
        assert_eq!(d.alpha(), 0.5 * 0.75);
    }

    #[test]
    fn ecn_echo_cuts_by_half_alpha_and_loss_halves() {
        let p = DctcpParams {
            g: 1.0 / 16.0,
            initial_alpha: 0.25,
        };
        let mut d = Dctcp::new(p, MSS, 40 * MSS);
        d.on_congestion(SimTime::ZERO, 40 * MSS, Congestion::Ecn);
        // cwnd·(1 − α/2) = 40 000 · 0.875 = 35 000.
        assert_eq!((d.cwnd(), d.ssthresh()), (35_000, 35_000));
        // α = 0 (no marks): no reduction at all.
        let mut z = Dctcp::new(
            DctcpParams {
                g: 1.0 / 16.0,
                initial_alpha: 0.0,
            },
            MSS,
            40 * MSS,
        );
        z.on_congestion(SimTime::ZERO, 40 * MSS, Congestion::Ecn);
        assert_eq!(z.cwnd(), 40 * MSS);
        // α = 1: halved, floored at 2 segments.
        let mut h = Dctcp::new(DctcpParams::default(), MSS, 3 * MSS);
        h.on_congestion(SimTime::ZERO, 3 * MSS, Congestion::Ecn);
        assert_eq!(h.cwnd(), 2 * MSS);
        // A loss is Reno's: half the flight size, whatever α.
        d.on_congestion(SimTime::ZERO, 30 * MSS, Congestion::Loss);
        assert_eq!((d.cwnd(), d.ssthresh()), (15_000, 15_000));
    }
}
