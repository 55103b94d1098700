//! RACK loss detection (RFC 8985, `recovery = "rack"`): the most recently sent segment
//! delivered so far dates the others, and a segment sent sufficiently earlier than it is lost;
//! this also finds a lost retransmission without waiting for the timer.

use super::*;

/// RACK state (RFC 8985 §6.1): the most recently sent segment delivered so far, its RTT, and
/// the reordering timer.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Rack {
    /// `RACK.xmit_ts` and `RACK.end_seq` (`None` until a first delivery).
    pub(super) latest: Option<(SimTime, u64)>,
    /// `RACK.rtt`.
    pub(super) rtt: SimDuration,
    /// The reordering timer (§6.2 step 5), when armed.
    pub(super) timer: Option<SimTime>,
}

/// RFC 8985 §6.2 `RACK_sent_after(t1, seq1, t2, seq2)`: `t1 > t2 || (t1 == t2 && seq1 > seq2)`.
pub(super) fn sent_after(a: (SimTime, u64), b: (SimTime, u64)) -> bool {
    a.0 > b.0 || (a.0 == b.0 && a.1 > b.1)
}

impl TcpSender {
    /// Notes a newly delivered (cumulatively or selectively acknowledged) segment for RACK
    /// (RFC 8985 §6.2 step 2): the most recently sent one. A retransmitted segment is left
    /// out (Karn's rule, as for RTT samples): without the timestamps option its delivery may
    /// be the original's, and RFC 8985's fallback, keeping it when its RTT is at least the
    /// minimum RTT, fails behind a deep queue, where a delayed original arrives more than a
    /// minimum RTT after the retransmission was sent. Taking it then dates `RACK.xmit_ts` too
    /// late and declares segments still queued lost: on `tests/fidelity/codel.toml` with PRR,
    /// 225 spurious retransmissions in a run, against 13 with this rule. A lost retransmission
    /// is still found from the delivery of data first sent after it.
    pub(super) fn rack_note(&mut self, now: SimTime, x: &TxSeg) {
        if self.rack.is_none() {
            return;
        }
        if x.ever_retx {
            return;
        }
        let rtt = now.saturating_since(x.sent_at);
        let this = (x.sent_at, x.end());
        if self
            .rack_delivered
            .is_none_or(|(t, e, _)| sent_after(this, (t, e)))
        {
            self.rack_delivered = Some((this.0, this.1, rtt));
        }
    }

    /// RFC 8985 §6.2 step 2 for the ACK just processed: `RACK.rtt` from the most recently sent
    /// segment it delivered, and `RACK.xmit_ts` / `RACK.end_seq` if it was sent after the last.
    pub(super) fn rack_update(&mut self) {
        let (Some(r), Some((t, e, rtt))) = (self.rack.as_mut(), self.rack_delivered) else {
            return;
        };
        r.rtt = rtt;
        if r.latest.is_none_or(|l| sent_after((t, e), l)) {
            r.latest = Some((t, e));
        }
    }

    /// RFC 8985 §6.2 steps 4-5: the reordering window, then every unSACKed segment sent before
    /// `RACK.xmit_ts` whose `xmit_ts + RACK.rtt + reo_wnd` has passed is lost; for the others
    /// the reordering timer is armed for when it passes. A lost retransmission is marked lost
    /// again: it leaves the pipe and `HighRxt` comes down to it, so NextSeg rule 1 resends it.
    ///
    /// Step 4 with `RACK.reord` false (links here never reorder, and step 3's detection of
    /// reordering is not modelled): `reo_wnd` is 0 in loss recovery or once more than
    /// (DupThresh − 1)·SMSS is SACKed, else `min(min_RTT / 4, SRTT)`.
    pub(super) fn rack_detect(&mut self, now: SimTime) {
        let Some(r) = self.rack else { return };
        let Some(latest) = r.latest else { return };
        let sacked_enough = self.sacked_bytes > u64::from(self.dupthresh - 1) * self.mss;
        let reo_wnd = if self.recovery != Recovery::None || sacked_enough {
            SimDuration::ZERO
        } else {
            let quarter = self.rtt.min_rtt().map_or(SimDuration::ZERO, |m| {
                SimDuration::from_nanos(m.as_nanos() / 4)
            });
            self.rtt.srtt().map_or(quarter, |s| quarter.min(s))
        };
        let wait = r.rtt + reo_wnd;
        let mut timer: Option<SimTime> = None;
        // Lost retransmissions: below HighRxt (segments resent in this episode).
        let top = self.segs.partition_point(|x| x.seq < self.high_rxt);
        for i in 0..top {
            let x = self.segs[i];
            if !x.retx || x.sacked || !sent_after(latest, (x.sent_at, x.end())) {
                continue;
            }
            let due = x.sent_at + wait;
            if due <= now {
                let len = u64::from(x.len);
                self.segs[i].retx = false;
                self.retx_bytes -= len;
                self.high_rxt = self.high_rxt.min(x.seq);
                self.scan_from = 0;
            } else {
                timer = Some(timer.map_or(due, |t| t.min(due)));
            }
        }
        // First transmissions, in sequence (and so sending) order from the lost boundary.
        let from = self.segs.partition_point(|x| x.seq < self.lost_boundary);
        let mut lost_to = None;
        for i in from..self.segs.len() {
            let x = &self.segs[i];
            if x.sacked || x.retx {
                continue; // delivered, or resent by NextSeg rule 3 or 4 (lost only with those below)
            }
            if !sent_after(latest, (x.sent_at, x.end())) {
                break; // sent after everything delivered: nothing above can be lost yet
            }
            let due = x.sent_at + wait;
            if due <= now {
                lost_to = Some(i);
            } else {
                timer = Some(timer.map_or(due, |t| t.min(due)));
                break;
            }
        }
        if let Some(t) = lost_to {
            for i in from..=t {
                let x = &mut self.segs[i];
                if !x.sacked && !x.lost {
                    x.lost = true;
                    self.lost_bytes += u64::from(x.len);
                    // The delivery-rate estimate's `C.lost` (BBR v3's loss rate) counts what
                    // RACK finds lost too, as the three other places that mark losses do.
                    if let Some(r) = self.rate.as_mut() {
                        r.on_lost(u64::from(x.len));
                    }
                }
            }
            self.lost_boundary = self.segs[t].end();
            self.debug_check_lost_boundary();
        }
        if let Some(r) = self.rack.as_mut() {
            r.timer = timer;
        }
    }
}
