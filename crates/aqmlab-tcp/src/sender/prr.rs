//! Proportional Rate Reduction (RFC 6937, PRR-SSRB, `prr = true`): in SACK fast recovery the
//! window is not cut to `ssthresh` at once but brought down to it in proportion to the data
//! delivered, so the sender keeps sending, one segment per `RecoverFS / ssthresh` delivered,
//! instead of falling silent for half a round trip and then bursting.

/// PRR's state for one fast recovery (RFC 6937 §3.1), in bytes.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Prr {
    /// `prr_delivered`: data delivered to the receiver since recovery began.
    delivered: u64,
    /// `prr_out`: data sent since recovery began.
    out: u64,
    /// `RecoverFS`: `snd.nxt − snd.una` when recovery began.
    recover_fs: u64,
    /// The window PRR allows until the next ACK: `pipe + sndcnt`.
    window: u64,
}

impl Prr {
    /// RFC 6937 §3.1, on entering recovery: `prr_delivered = prr_out = 0` and
    /// `RecoverFS = snd.nxt − snd.una` (`flight`). Nothing may be sent (but the fast
    /// retransmission) until the first ACK sets the window.
    pub(super) fn enter_recovery(&mut self, flight: u64) {
        *self = Prr {
            delivered: 0,
            out: 0,
            recover_fs: flight,
            window: 0,
        };
    }

    /// RFC 6937 §3.1 for one ACK in recovery that delivered `delivered` bytes
    /// (`DeliveredData`, the change in `snd.una` plus the change in SACKed bytes), with `pipe`
    /// (RFC 6675) and `ssthresh` after it: the window until the next ACK is `pipe + sndcnt`,
    /// with PRR-SSRB, the slow-start reduction bound, once `pipe` has fallen to `ssthresh`:
    /// ```text
    /// prr_delivered += DeliveredData
    /// if pipe > ssthresh: sndcnt = CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out
    /// else:               sndcnt = MIN(ssthresh − pipe,
    ///                                  MAX(prr_delivered − prr_out, DeliveredData) + MSS)
    /// ```
    /// Returns that window, which [`window`](Self::window) reports until the next ACK.
    pub(super) fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64) -> u64 {
        self.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            let target = (u128::from(self.delivered) * u128::from(ssthresh))
                .div_ceil(u128::from(self.recover_fs.max(1)));
            (target as u64).saturating_sub(self.out)
        } else {
            let limit = self.delivered.saturating_sub(self.out).max(delivered) + mss;
            (ssthresh - pipe).min(limit)
        };
        self.window = pipe + sndcnt;
        self.window
    }

    /// RFC 6937 §3.1, on any data sent in recovery: `prr_out += (data sent)`. It counts every
    /// byte, the fast retransmission included (which RFC 6675 §5 step 4.3 sends whatever the
    /// window).
    pub(super) fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// The window the last ACK allowed: `pipe + sndcnt` (0 between entering recovery and the
    /// first [`on_ack`](Self::on_ack)).
    pub(super) fn window(&self) -> u64 {
        self.window
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// RFC 6937 §3.1's rules, written out independently of [`Prr::on_ack`], for one ACK:
    /// returns `sndcnt`.
    fn rfc_sndcnt(
        prr_delivered: u64,
        prr_out: u64,
        recover_fs: u64,
        delivered: u64,
        pipe: u64,
        ssthresh: u64,
    ) -> u64 {
        if pipe > ssthresh {
            // CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out, in exact integers.
            let mut q = prr_delivered * ssthresh / recover_fs;
            if q * recover_fs < prr_delivered * ssthresh {
                q += 1;
            }
            q.saturating_sub(prr_out)
        } else {
            let a = prr_delivered.saturating_sub(prr_out);
            let b = if a > delivered { a } else { delivered };
            let c = ssthresh - pipe;
            if c < b + MSS {
                c
            } else {
                b + MSS
            }
        }
    }

    #[test]
    fn entering_recovery_sets_recover_fs_and_closes_the_window() {
        let mut p = Prr::default();
        p.on_sent(3 * MSS);
        p.on_ack(2 * MSS, 5 * MSS, 4 * MSS, MSS);
        p.enter_recovery(20 * MSS);
        assert_eq!(p.window(), 0);
        assert_eq!(
            (p.delivered, p.out, p.recover_fs),
            (0, 0, 20 * MSS),
            "prr_delivered, prr_out, RecoverFS"
        );
    }

    /// The proportional part (pipe > ssthresh), checked by hand: RecoverFS = 20 segments,
    /// ssthresh = 10 (Reno's halving), one segment delivered per ACK and the fast
    /// retransmission counted in `prr_out`. `sndcnt = CEIL(prr_delivered · 10 / 20) − prr_out`
    /// lets one segment out per two delivered, the pacing RFC 6937 §4 illustrates.
    #[test]
    fn proportional_reduction_sends_one_segment_per_two_delivered() {
        let mut p = Prr::default();
        p.enter_recovery(20 * MSS);
        p.on_sent(MSS); // the fast retransmission
        let ssthresh = 10 * MSS;
        // Before the ACKs: 19 segments in the network (one lost), the retransmission added.
        let mut pipe = 20 * MSS;
        let mut sent_at = Vec::new();
        for ack in 1..=8u64 {
            pipe -= MSS; // the ACK's segment left the network
            let w = p.on_ack(MSS, pipe, ssthresh, MSS);
            // sndcnt = CEIL(ack · 1000 · 10 / 20) − prr_out.
            let expect = (ack * MSS).div_ceil(2).saturating_sub(p.out);
            assert_eq!(w, pipe + expect, "ACK {ack}");
            // Send whole segments while pipe + MSS ≤ window, as the sender's send test does.
            while pipe + MSS <= w {
                p.on_sent(MSS);
                pipe += MSS;
                sent_at.push(ack);
            }
        }
        // prr_out = 1 000 after the retransmission: CEIL(k · 500) − prr_out reaches a whole
        // segment at ACK 4 (2 000 − 1 000), 6 (3 000 − 2 000) and 8 (4 000 − 3 000).
        assert_eq!(sent_at, vec![4, 6, 8]);
        assert_eq!(p.out, 4 * MSS);
    }

    #[test]
    fn proportional_part_rounds_up() {
        // RecoverFS = 22 000, ssthresh = 10 000, prr_delivered = 3 000, prr_out = 1 000:
        // CEIL(30 000 000 / 22 000) = CEIL(1 363.6…) = 1 364, sndcnt = 364.
        let mut p = Prr::default();
        p.enter_recovery(22_000);
        p.on_sent(1000);
        p.on_ack(2000, 17_000, 10_000, MSS);
        assert_eq!(p.on_ack(1000, 16_000, 10_000, MSS), 16_000 + 364);
    }

    #[test]
    fn proportional_part_never_goes_negative() {
        // More already sent than the share: sndcnt = 0, the window is pipe.
        let mut p = Prr::default();
        p.enter_recovery(20 * MSS);
        p.on_sent(5 * MSS);
        assert_eq!(p.on_ack(MSS, 15 * MSS, 10 * MSS, MSS), 15 * MSS);
    }

    /// Once pipe ≤ ssthresh, PRR-SSRB: sndcnt = MIN(ssthresh − pipe,
    /// MAX(prr_delivered − prr_out, DeliveredData) + MSS).
    #[test]
    fn slow_start_reduction_bound_below_ssthresh() {
        // The MAX is prr_delivered − prr_out (5 000 − 1 000 = 4 000): + MSS = 5 000, below
        // ssthresh − pipe = 6 000.
        let mut p = Prr::default();
        p.enter_recovery(20 * MSS);
        p.on_sent(MSS);
        p.on_ack(4 * MSS, 12 * MSS, 10 * MSS, MSS);
        assert_eq!(p.on_ack(MSS, 4 * MSS, 10 * MSS, MSS), 4 * MSS + 5 * MSS);

        // The MAX is DeliveredData (3 000 > prr_delivered − prr_out = 0): + MSS = 4 000.
        let mut p = Prr::default();
        p.enter_recovery(20 * MSS);
        p.on_sent(3 * MSS);
        assert_eq!(p.on_ack(3 * MSS, 2 * MSS, 10 * MSS, MSS), 2 * MSS + 4 * MSS);

        // The MIN is ssthresh − pipe: the window is ssthresh, never above it.
        let mut p = Prr::default();
        p.enter_recovery(20 * MSS);
        assert_eq!(p.on_ack(6 * MSS, 9 * MSS, 10 * MSS, MSS), 10 * MSS);

        // pipe = ssthresh exactly takes this branch: sndcnt = 0.
        let mut p = Prr::default();
        p.enter_recovery(20 * MSS);
        assert_eq!(p.on_ack(6 * MSS, 10 * MSS, 10 * MSS, MSS), 10 * MSS);
    }

    /// Every ACK of a long sequence, against the rules written out separately.
    #[test]
    fn agrees_with_the_rfc_rules_ack_by_ack() {
        let (recover_fs, ssthresh) = (37 * MSS + 480, 13 * MSS + 120);
        let mut p = Prr::default();
        p.enter_recovery(recover_fs);
        p.on_sent(MSS);
        let (mut prr_delivered, mut prr_out) = (0, MSS);
        let mut pipe = 36 * MSS;
        // A deterministic mix of ACKs: single segments, stretch ACKs, partial segments.
        let mut x: u64 = 7;
        for i in 0..60 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let delivered = [MSS, 2 * MSS, 3 * MSS, 480, 0][(x >> 33) as usize % 5];
            pipe = pipe.saturating_sub(delivered);
            prr_delivered += delivered;
            let sndcnt = rfc_sndcnt(
                prr_delivered,
                prr_out,
                recover_fs,
                delivered,
                pipe,
                ssthresh,
            );
            let w = p.on_ack(delivered, pipe, ssthresh, MSS);
            assert_eq!(w, pipe + sndcnt, "ACK {i}: pipe {pipe}");
            assert_eq!(p.window(), w);
            while pipe + MSS <= w {
                p.on_sent(MSS);
                prr_out += MSS;
                pipe += MSS;
            }
        }
    }
}
