//! The data receiver: cumulative and selective ACKs, delayed ACKs, ECN echo.
//!
//! * SYN → SYN-ACK (`seq` 0, `ack` 1), with ECE when both ends want ECN (RFC 3168 §6.1.1).
//! * In-order data advances `rcv_nxt` and drains the out-of-order intervals it reaches.
//! * ACK policy (RFC 5681 §4.2, RFC 1122 §4.2.3.2): with delayed ACKs, ACK once at least two
//!   full-sized segments are unacknowledged, or when the delayed-ACK timer (started by the first
//!   unacknowledged segment) fires. ACK immediately on an out-of-order segment (a duplicate ACK),
//!   on a segment that fills all or part of a gap, and on a duplicate segment.
//! * SACK (RFC 2018 §4): up to three blocks; the first holds the segment that triggered the ACK,
//!   the others the most recently reported blocks still outstanding, then the highest remaining.
//!   D-SACK (RFC 2883) is not generated.
//! * ECN (RFC 3168 §6.1.3): a CE-marked data packet makes every following ACK carry ECE until a
//!   data packet with CWR arrives.
//! * DCTCP (`cc = dctcp`, RFC 8257 §3.2): each ACK's ECE is instead the CE bit of the last data
//!   packet received (CWR is ignored). A data packet whose CE bit differs from the previous one's
//!   while a delayed ACK is held first sends that ACK at once, with the old ECE value, so that
//!   every ACK covers packets of one CE state: the sender counts marked bytes exactly.
//! * AccECN (`accecn`, RFC 9768): the SYN-ACK answers as `accecn.rs` says; once negotiated,
//!   every CE-marked packet but a SYN increments `r.cep` (from 5, §3.2.1) and every ACK carries
//!   `r.cep mod 8` in its ACE field (AE, CWR, ECE; §3.2.2.2). The ACK policy adds §3.2.2.5.1's
//!   change-triggered ACK (a CE data packet after a non-CE one is ACKed at once) and its
//!   increment-triggered ACK (`n` = 2 CE marks since the last ACK).
//! * The advertised window is the configured cap, constant (no receive-buffer model).
//! * Handshake summary ([`TcpReceiver::handshake`]): whether ECN was negotiated, whether the
//!   SYN-ACK went out more than once, and the RTT from the (only) SYN-ACK to the first segment
//!   that completes the handshake (its ACK, or data carrying it), as a passive opener measures it.

use crate::accecn::{self, EcnMode, INITIAL_CEP};
use crate::config::{CcKind, TcpConfig};
use crate::segment::{ts_clock, Segment, ACK, CWR, ECE, SYN};
use crate::sender::Handshake;
use aqmlab_core::{SimDuration, SimTime};

/// The receiving end of one connection.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    mss: u64,
    delayed_ack: bool,
    delack_timeout: SimDuration,
    sack: bool,
    ecn_wanted: bool,
    accecn_wanted: bool,
    /// AccECN negotiated: ACKs carry the ACE counter.
    accurate: bool,
    /// `r.cep` (RFC 9768 §3.2.1): CE-marked packets received, plus 5.
    r_cep: u64,
    /// The last packet received was CE-marked (change-triggered ACKs, §3.2.2.5.1).
    last_ce: bool,
    /// CE marks since the last ACK (increment-triggered ACKs, §3.2.2.5.1).
    ce_since_ack: u32,
    /// DCTCP's CE echo (RFC 8257 §3.2) in place of RFC 3168's latch.
    dctcp_echo: bool,
    rwnd: u32,
    /// ECN negotiated.
    ecn_ok: bool,
    rcv_nxt: u64,
    /// Out-of-order data above `rcv_nxt`: sorted, disjoint, non-adjacent `[start, end)`.
    ooo: Vec<(u64, u64)>,
    /// Blocks in the order they were last reported, most recent first (starts only; refreshed
    /// against `ooo` when an ACK is built).
    recent: [u64; 3],
    n_recent: usize,
    unacked_bytes: u64,
    delack_at: Option<SimTime>,
    /// ACKs carry ECE. RFC 3168: set by CE, cleared by CWR. DCTCP: the CE state, the CE bit
    /// of the last data packet.
    ece_pending: bool,
    delivered: u64,
    acks_sent: u64,
    /// When the last SYN-ACK was sent, and how many were sent.
    synack_at: Option<SimTime>,
    synacks_sent: u32,
    /// Time from the SYN-ACK to the first segment after it; `None` until then.
    handshake_rtt: Option<SimDuration>,
    /// RFC 7323 §4.3: the `TSval` to echo (`TS.Recent`, 0: none yet), and the `ack` of the
    /// last ACK sent (`Last.ACK.sent`); the sender decides whether timestamps are used (its
    /// data carry them).
    ts_recent: u32,
    last_ack_sent: u64,
    /// The time of the event being handled: an ACK's `TSval`.
    clock: SimTime,
}

impl TcpReceiver {
    /// A receiver for `cfg`. Panics if `cfg` does not validate.
    pub fn new(cfg: &TcpConfig) -> Self {
        if let Err(e) = cfg.validate() {
            panic!("invalid TcpConfig: {e}");
        }
        let rwnd = cfg
            .max_window_bytes()
            .map_or(u32::MAX, |w| w.min(u64::from(u32::MAX)) as u32);
        TcpReceiver {
            mss: u64::from(cfg.mss),
            delayed_ack: cfg.delayed_ack,
            delack_timeout: cfg.delack_timeout,
            sack: cfg.sack,
            ecn_wanted: cfg.ecn,
            accecn_wanted: cfg.ecn && cfg.accecn,
            accurate: cfg.ecn && cfg.accecn && !cfg.handshake,
            r_cep: INITIAL_CEP,
            last_ce: false,
            ce_since_ack: 0,
            // BBR v3 wants precise ACKs too (v3's `bbr_precise_ece_ack`).
            dctcp_echo: matches!(cfg.cc.kind, CcKind::Dctcp | CcKind::Bbr3),
            rwnd,
            ecn_ok: cfg.ecn && !cfg.handshake,
            rcv_nxt: 1,
            ooo: Vec::with_capacity(16),
            recent: [0; 3],
            n_recent: 0,
            unacked_bytes: 0,
            delack_at: None,
            ece_pending: false,
            delivered: 0,
            acks_sent: 0,
            synack_at: None,
            synacks_sent: 0,
            handshake_rtt: None,
            ts_recent: 0,
            last_ack_sent: 1,
            clock: SimTime::ZERO,
        }
    }

    /// The receiver of the second direction of an open connection (see
    /// [`crate::TcpSender::established`]): no handshake, ECN-capable when the connection's
    /// handshake negotiated `ecn` (with AccECN feedback if `cfg.accecn` too: both ends of a
    /// simulated connection read one config, so AccECN was negotiated whenever ECN was).
    /// `cfg.handshake` and `cfg.ecn` are ignored. Panics if `cfg` does not validate.
    pub fn established(cfg: &TcpConfig, ecn: bool) -> Self {
        TcpReceiver::new(&TcpConfig {
            handshake: false,
            ecn,
            accecn: ecn && cfg.accecn,
            ..*cfg
        })
    }

    /// Handles one arriving segment; ACKs (if any) are pushed to `out`.
    pub fn on_segment(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        if seg.has(SYN) {
            // RFC 3168 §6.1.1: an ECN-setup SYN has ECE and CWR; answer with ECE (not CWR).
            // RFC 9768 §3.1.2 Table 2: an AccECN SYN has AE too; answer with the SYN's IP-ECN.
            let (mode, fb) =
                accecn::server_response(self.ecn_wanted, self.accecn_wanted, seg.flags, seg.ce);
            self.ecn_ok = mode != EcnMode::Off;
            self.accurate = mode == EcnMode::Accurate;
            let flags = SYN | ACK | fb;
            out.push(Segment {
                seq: 0,
                ack: 1,
                flags,
                rwnd: self.rwnd,
                ..Segment::default()
            });
            self.acks_sent += 1;
            self.synack_at = Some(now);
            self.synacks_sent += 1;
            return;
        }
        if let (Some(t), None) = (self.synack_at, self.handshake_rtt) {
            // The first segment after the SYN-ACK acknowledges it (with data or without).
            self.handshake_rtt = Some(now.saturating_since(t));
        }
        if seg.len == 0 {
            return; // pure ACK (end of handshake): nothing to acknowledge
        }
        self.clock = now;
        if seg.ts != 0 {
            // RFC 7323 §4.3 (2): TS.Recent follows segments at or before the left edge of the
            // window last acknowledged, so that a delayed ACK echoes the earlier segment's
            // TSval, and never moves back (§5.2's modular comparison).
            let newer = self.ts_recent == 0 || seg.ts.wrapping_sub(self.ts_recent) as i32 >= 0;
            if seg.seq <= self.last_ack_sent && newer {
                self.ts_recent = seg.ts;
            }
        }
        let mut ce_ack_now = false;
        if self.accurate {
            // RFC 9768 §3.2: count every CE-marked packet (duplicates and retransmissions too).
            if seg.ce {
                self.r_cep += 1;
                self.ce_since_ack += 1;
            }
            ce_ack_now = (seg.ce && !self.last_ce) || self.ce_since_ack >= 2;
            self.last_ce = seg.ce;
        } else if self.ecn_ok && self.dctcp_echo {
            // RFC 8257 §3.2: on a change of CE state, the held delayed ACK goes out at once
            // with the old state's ECE; then the state follows the packet.
            if seg.ce != self.ece_pending {
                if self.delack_at.is_some() {
                    self.send_ack(None, out);
                }
                self.ece_pending = seg.ce;
            }
        } else if self.ecn_ok {
            if seg.has(CWR) {
                self.ece_pending = false;
            }
            if seg.ce {
                self.ece_pending = true;
            }
        }
        let start = seg.seq;
        let end = seg.seq + u64::from(seg.len);
        if end <= self.rcv_nxt {
            // Entirely duplicate: ACK at once (RFC 5681 §4.2).
            self.send_ack(None, out);
        } else if start <= self.rcv_nxt {
            let had_gap = !self.ooo.is_empty();
            let before = self.rcv_nxt;
            self.rcv_nxt = end;
            while let Some(&(s, e)) = self.ooo.first() {
                if s > self.rcv_nxt {
                    break;
                }
                self.rcv_nxt = self.rcv_nxt.max(e);
                self.ooo.remove(0);
            }
            self.delivered += self.rcv_nxt - before;
            if had_gap || !self.delayed_ack || ce_ack_now {
                self.send_ack(None, out);
            } else {
                self.unacked_bytes += end - before;
                if self.unacked_bytes >= 2 * self.mss {
                    self.send_ack(None, out);
                } else if self.delack_at.is_none() {
                    self.delack_at = Some(now + self.delack_timeout);
                }
            }
        } else {
            let block_start = self.insert_ooo(start, end);
            self.send_ack(Some(block_start), out);
        }
    }

    /// Fires the delayed-ACK timer if it is due; stale calls do nothing.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.clock = now;
        if let Some(t) = self.delack_at {
            if now >= t {
                self.send_ack(None, out);
            }
        }
    }

    /// Sends at once the ACK the delayed-ACK timer is holding, if any: the application is
    /// sending data the other way, which would carry it (RFC 1122 §4.2.3.2, piggybacking).
    /// Its `TSval`, where timestamps are used, is the time of the last segment or timer the
    /// receiver handled.
    pub fn ack_now(&mut self, out: &mut Vec<Segment>) {
        if self.delack_at.is_some() {
            self.send_ack(None, out);
        }
    }

    /// What the handshake established, for a sender in the other direction
    /// ([`crate::TcpSender::established`]): ECN as negotiated, the SYN-ACK → first-segment RTT
    /// (none if the SYN-ACK went out more than once: Karn), and whether it did. With the
    /// handshake disabled: ECN as configured, no sample.
    pub fn handshake(&self) -> Handshake {
        let retransmitted = self.synacks_sent > 1;
        Handshake {
            ecn: self.ecn_ok,
            accecn: self.accurate,
            rtt: self.handshake_rtt.filter(|_| !retransmitted),
            retransmitted,
        }
    }

    /// When [`TcpReceiver::on_timer`] must next be called (the delayed-ACK deadline).
    pub fn next_timer(&self) -> Option<SimTime> {
        self.delack_at
    }

    /// In-order bytes handed to the application.
    pub fn delivered_bytes(&self) -> u64 {
        self.delivered
    }

    /// CE-marked packets received on an AccECN connection (`r.cep − 5`); 0 without AccECN.
    pub fn ce_packets(&self) -> u64 {
        self.r_cep - INITIAL_CEP
    }

    /// AccECN feedback was negotiated.
    pub fn accecn_negotiated(&self) -> bool {
        self.accurate
    }

    /// Next sequence number expected.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// ACK segments sent (SYN-ACKs included).
    pub fn acks_sent(&self) -> u64 {
        self.acks_sent
    }

    /// Out-of-order intervals held, lowest first.
    pub fn out_of_order(&self) -> &[(u64, u64)] {
        &self.ooo
    }

    /// Inserts `[s, e)` into the interval list, merging neighbours; returns the start of the
    /// interval now containing it.
    fn insert_ooo(&mut self, s: u64, e: u64) -> u64 {
        // First interval whose end reaches s (touching intervals merge).
        let i = self.ooo.partition_point(|&(_, ie)| ie < s);
        let mut ns = s;
        let mut ne = e;
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= ne {
            ns = ns.min(self.ooo[j].0);
            ne = ne.max(self.ooo[j].1);
            j += 1;
        }
        if j > i {
            self.ooo[i] = (ns, ne);
            self.ooo.drain(i + 1..j);
        } else {
            self.ooo.insert(i, (ns, ne));
        }
        ns
    }

    /// The interval containing `x`, if any.
    fn block_of(&self, x: u64) -> Option<(u64, u64)> {
        let i = self.ooo.partition_point(|&(_, e)| e <= x);
        self.ooo.get(i).copied().filter(|&(s, _)| s <= x)
    }

    fn send_ack(&mut self, trigger: Option<u64>, out: &mut Vec<Segment>) {
        let mut seg = Segment {
            seq: 1,
            ack: self.rcv_nxt,
            flags: ACK,
            rwnd: self.rwnd,
            ts: if self.ts_recent == 0 {
                0
            } else {
                ts_clock(self.clock).wrapping_sub(self.ts_recent).max(1)
            },
            ..Segment::default()
        };
        self.last_ack_sent = self.rcv_nxt;
        if self.accurate {
            seg.set_ace(self.r_cep); // RFC 9768 §3.2.2.2
            self.ce_since_ack = 0;
        } else if self.ece_pending {
            seg.flags |= ECE;
        }
        if self.sack && !self.ooo.is_empty() {
            let mut n = 0usize;
            let push = |blk: (u64, u64), seg: &mut Segment, n: &mut usize| {
                if *n < 3 && !seg.sack[..*n].contains(&blk) {
                    seg.sack[*n] = blk;
                    *n += 1;
                }
            };
            if let Some(b) = trigger.and_then(|x| self.block_of(x)) {
                push(b, &mut seg, &mut n);
            }
            for k in 0..self.n_recent {
                if let Some(b) = self.block_of(self.recent[k]) {
                    push(b, &mut seg, &mut n);
                }
            }
            for &b in self.ooo.iter().rev() {
                push(b, &mut seg, &mut n);
            }
            self.n_recent = n;
            for k in 0..n {
                self.recent[k] = seg.sack[k].0;
            }
        } else {
            self.n_recent = 0;
        }
        out.push(seg);
        self.acks_sent += 1;
        self.unacked_bytes = 0;
        self.delack_at = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64, len: u32) -> Segment {
        Segment {
            seq,
            len,
            flags: ACK,
            ack: 1,
            ..Segment::default()
        }
    }

    #[test]
    fn ooo_intervals_merge() {
        let cfg = TcpConfig {
            mss: 100,
            handshake: false,
            ..TcpConfig::default()
        };
        let mut r = TcpReceiver::new(&cfg);
        let mut out = Vec::new();
        r.on_segment(SimTime::ZERO, &data(301, 100), &mut out);
        r.on_segment(SimTime::ZERO, &data(101, 100), &mut out);
        assert_eq!(r.out_of_order(), &[(101, 201), (301, 401)]);
        r.on_segment(SimTime::ZERO, &data(201, 100), &mut out);
        assert_eq!(r.out_of_order(), &[(101, 401)]);
        r.on_segment(SimTime::ZERO, &data(1, 100), &mut out);
        assert!(r.out_of_order().is_empty());
        assert_eq!(r.rcv_nxt(), 401);
        assert_eq!(r.delivered_bytes(), 400);
    }

    fn ce_data(seq: u64, ce: bool) -> Segment {
        Segment {
            ect: true,
            ce,
            ..data(seq, 100)
        }
    }

    /// (ack, ECE) of the ACKs sent for each packet of `ces` (100-byte segments from seq 1),
    /// then for the delayed-ACK timer.
    fn echo(kind: CcKind, ces: &[bool]) -> Vec<Vec<(u64, bool)>> {
        let cfg = TcpConfig {
            mss: 100,
            handshake: false,
            ecn: true,
            delayed_ack: true,
            ..TcpConfig::with_cc(kind)
        };
        let mut r = TcpReceiver::new(&cfg);
        let mut res = Vec::new();
        let mut out = Vec::new();
        for (i, &ce) in ces.iter().enumerate() {
            out.clear();
            r.on_segment(SimTime::ZERO, &ce_data(1 + 100 * i as u64, ce), &mut out);
            res.push(out.iter().map(|a| (a.ack, a.has(ECE))).collect());
        }
        out.clear();
        r.on_timer(SimTime::from_secs(1), &mut out);
        res.push(out.iter().map(|a| (a.ack, a.has(ECE))).collect());
        res
    }

    #[test]
    fn dctcp_echo_follows_the_ce_state_with_an_immediate_ack_on_change() {
        // RFC 8257 §3.2 with delayed ACKs (one ACK per two segments).
        let ces = [false, false, true, true, true, false, false, true];
        let got = echo(CcKind::Dctcp, &ces);
        let want: Vec<Vec<(u64, bool)>> = vec![
            vec![],             // 1: held
            vec![(201, false)], // 2: second segment, CE state 0
            vec![],             // 3: CE, but nothing held: state 1, held
            vec![(401, true)],  // 4: ACK of 3–4, both CE
            vec![],             // 5: held (CE)
            vec![(501, true)],  // 6: state 1 → 0 with 5 held: 5's ACK at once with ECE; 6 held
            vec![(701, false)], // 7: ACK of 6–7, state 0
            vec![],             // 8: state 0 → 1, nothing held: held
            vec![(801, true)],  // delayed-ACK timer: ECE for 8
        ];
        assert_eq!(got, want);
        // Marked bytes per ACK are exact: the ACKs with ECE cover segments 3, 4, 5 and 8.
    }

    #[test]
    fn rfc3168_echo_latches_until_cwr_where_dctcp_does_not() {
        let ces = [false, false, true, true, true, false, false, true];
        let got = echo(CcKind::NewReno, &ces);
        // No CWR ever arrives: after the first CE every ACK carries ECE, and a change of CE
        // state sends nothing early.
        let want: Vec<Vec<(u64, bool)>> = vec![
            vec![],
            vec![(201, false)],
            vec![],
            vec![(401, true)],
            vec![],
            vec![(601, true)],
            vec![],
            vec![(801, true)],
            vec![],
        ];
        assert_eq!(got, want);
        // A DCTCP receiver ignores CWR: a CE packet with CWR still sets the CE state.
        let cfg = TcpConfig {
            mss: 100,
            handshake: false,
            ecn: true,
            delayed_ack: false,
            ..TcpConfig::with_cc(CcKind::Dctcp)
        };
        let mut r = TcpReceiver::new(&cfg);
        let mut out = Vec::new();
        let mut seg = ce_data(1, true);
        seg.flags |= CWR;
        r.on_segment(SimTime::ZERO, &seg, &mut out);
        assert!(out[0].has(ECE));
    }
}
