//! Loss recovery driven by hand-made ACKs, with the exact values the RFC text gives: the
//! `ssthresh` a retransmission timeout sets (RFC 5681 §3.1), PRR's sending rate (RFC 6937),
//! RFC 6675's rescue retransmission and Tahoe's reaction to a loss.
//!
//! Every test uses an MSS of 1000 bytes, no handshake (the first window goes out at
//! `connect`: data starts at sequence number 1, so segment k covers [1000k − 999, 1000k + 1))
//! and an initial window of 10 segments.

use aqmlab_core::{SimDuration, SimTime};
use aqmlab_tcp::segment::ACK;
use aqmlab_tcp::{CcKind, Recovery, RtoSsthresh, Segment, TcpConfig, TcpSender};

const MSS: u64 = 1000;

fn cfg(kind: CcKind) -> TcpConfig {
    TcpConfig {
        mss: MSS as u32,
        handshake: false,
        ..TcpConfig::with_cc(kind)
    }
}

/// First byte of segment `k` (1-based).
fn seg(k: u64) -> u64 {
    1 + (k - 1) * MSS
}

/// An ACK of everything below `ack` with SACK blocks `blocks` (most recent first).
fn ack(ack: u64, blocks: &[(u64, u64)]) -> Segment {
    let mut s = Segment {
        ack,
        flags: ACK,
        rwnd: u32::MAX,
        ..Segment::default()
    };
    for (i, b) in blocks.iter().enumerate() {
        s.sack[i] = *b;
    }
    s
}

/// The segments' first bytes, in sending order.
fn seqs(out: &[Segment]) -> Vec<u64> {
    out.iter().map(|s| s.seq).collect()
}

/// A bulk sender that has sent its 10-segment initial window at time 0.
fn started(c: &TcpConfig) -> (TcpSender, Vec<Segment>) {
    let mut tx = TcpSender::new(c, None);
    let mut out = Vec::new();
    tx.connect(SimTime::ZERO, &mut out);
    assert_eq!(seqs(&out), (1..=10).map(seg).collect::<Vec<_>>());
    (tx, out)
}

/// Segment 1 of the initial window is lost and segments 2..=last are SACKed, one ACK each, at
/// 100 ms. Returns what the sender sent in response.
fn sack_upto(tx: &mut TcpSender, last: u64) -> Vec<u64> {
    let t = SimTime::from_millis(100);
    let mut out = Vec::new();
    for k in 2..=last {
        tx.on_segment(t, &ack(1, &[(seg(2), seg(k + 1))]), &mut out);
    }
    seqs(&out)
}

#[test]
fn timeout_in_sack_recovery_never_raises_ssthresh() {
    let (mut tx, _) = started(&cfg(CcKind::NewReno));
    // The first two duplicate ACKs (SACKing segments 2 and 3) each release a new segment,
    // 11 and 12 (limited transmit, RFC 3042, implied by RFC 6675's pipe). The third starts
    // recovery (RFC 6675 §5): ssthresh = cwnd = FlightSize / 2 (step 4.2) with FlightSize =
    // min(snd_nxt − snd_una, cwnd) = min(12 000, 10 000), and segment 1 is resent at once
    // (step 4.3). pipe = 12 000 − 3 000 SACKed − 1 000 lost + 1 000 resent = 9 000. Segments
    // 5-10 SACKed: pipe falls by 1 000 each, and from pipe 4 000 on each ACK sends one new
    // segment (§5 (C), NextSeg rule 2): 13 and 14.
    let sent = sack_upto(&mut tx, 10);
    assert_eq!(sent, vec![seg(11), seg(12), seg(1), seg(13), seg(14)]);
    assert_eq!(tx.recovery(), Recovery::Fast);
    assert_eq!(tx.stats().ssthresh_bytes, 5000);
    assert_eq!(tx.pipe(), 5000);
    assert_eq!(tx.snd_nxt() - tx.snd_una(), 14_000);

    // The retransmission is lost too and the timer (1 s, RFC 6298 §2.1, from time 0) expires.
    // snd_nxt − snd_una is now 14 000: read as FlightSize it would *raise* ssthresh to 7 000.
    // The data in the network is the pipe, 5 000: ssthresh = max(5 000 / 2, 2·SMSS) = 2 500
    // (RFC 5681 §3.1 eq. 4), cwnd = 1 SMSS, and segment 1 goes out again.
    let mut out = Vec::new();
    let t1 = tx.next_timer().unwrap();
    assert_eq!(t1, SimTime::from_secs(1));
    tx.on_timer(t1, &mut out);
    assert_eq!(seqs(&out), vec![seg(1)]);
    assert_eq!(tx.recovery(), Recovery::Timeout);
    assert_eq!(
        (tx.stats().ssthresh_bytes, tx.stats().cwnd_bytes),
        (2500, 1000)
    );

    // It is lost again: "the given segment has already been retransmitted by way of the
    // retransmission timer at least once, [so] the value of ssthresh is held constant".
    out.clear();
    let t2 = tx.next_timer().unwrap();
    assert_eq!(
        t2,
        t1 + SimDuration::from_secs(2),
        "RFC 6298 §5.5 doubles the RTO"
    );
    tx.on_timer(t2, &mut out);
    assert_eq!(seqs(&out), vec![seg(1)]);
    assert_eq!(
        (tx.stats().ssthresh_bytes, tx.stats().cwnd_bytes),
        (2500, 1000)
    );
    assert_eq!(tx.stats().timeouts, 2);
}

#[test]
fn timeout_outside_recovery_halves_the_data_in_the_network() {
    let (mut tx, _) = started(&cfg(CcKind::NewReno));
    // One duplicate ACK SACKs segment 10: limited transmit (RFC 3042) sends segment 11.
    let mut out = Vec::new();
    tx.on_segment(
        SimTime::from_millis(100),
        &ack(1, &[(seg(10), seg(11))]),
        &mut out,
    );
    assert_eq!(seqs(&out), vec![seg(11)]);
    assert_eq!(tx.recovery(), Recovery::None);
    // At the timeout 11 000 bytes are outstanding, 1 000 of them SACKed (they have left the
    // network): FlightSize = pipe = 10 000, ssthresh = 5 000.
    out.clear();
    tx.on_timer(SimTime::from_secs(1), &mut out);
    assert_eq!(seqs(&out), vec![seg(1)]);
    assert_eq!(
        (tx.stats().ssthresh_bytes, tx.stats().cwnd_bytes),
        (5000, 1000)
    );
}

#[test]
fn timeout_without_sack_halves_flight_size() {
    let c = TcpConfig {
        sack: false,
        ..cfg(CcKind::NewReno)
    };
    let (mut tx, _) = started(&c);
    let mut out = Vec::new();
    // Nothing is acknowledged: FlightSize = pipe = 10 000, ssthresh = 5 000 (RFC 5681 eq. 4).
    tx.on_timer(SimTime::from_secs(1), &mut out);
    assert_eq!(
        (tx.stats().ssthresh_bytes, tx.stats().cwnd_bytes),
        (5000, 1000)
    );
}

/// Segment 1 of a 20-segment initial window is lost; ACKs SACK segments 2, 3, … one at a time
/// (10 ms apart from 100 ms). Returns, per ACK from the fourth on (the first three are the
/// duplicate ACKs that end in recovery), the segments that ACK released.
fn prr_run(prr: bool) -> Vec<Vec<u64>> {
    let c = TcpConfig {
        initial_cwnd_segments: 20,
        prr,
        ..cfg(CcKind::NewReno)
    };
    let mut tx = TcpSender::new(&c, None);
    let mut out = Vec::new();
    tx.connect(SimTime::ZERO, &mut out);
    let mut per_ack = Vec::new();
    for k in 2..=14 {
        out.clear();
        let t = SimTime::from_millis(100 + 10 * k);
        tx.on_segment(t, &ack(1, &[(seg(2), seg(k + 1))]), &mut out);
        if k == 4 {
            // Recovery: ssthresh = min(22 000, cwnd 20 000) / 2 (segments 21 and 22 went
            // out by limited transmit), and the fast retransmission.
            assert_eq!(seqs(&out), vec![seg(1)]);
            assert_eq!(tx.stats().ssthresh_bytes, 10_000);
        }
        if k > 4 {
            per_ack.push(seqs(&out));
        }
    }
    per_ack
}

#[test]
fn prr_spreads_the_reduction_over_the_acks() {
    // RFC 6937 §3.1 with RecoverFS = snd.nxt − snd.una = 22 000 and ssthresh = 10 000: while
    // pipe > ssthresh, sndcnt = CEIL(prr_delivered · 10 000 / 22 000) − prr_out.
    // prr_delivered is 1 000 per ACK (2 000 on the first ACK after the one that began
    // recovery), and prr_out starts at the 1 000 of the fast retransmission, so ACK j
    // (j = 1, 2, …) allows CEIL((j + 1) · 10 000 / 22) − prr_out: 0, 364, 819, 1 273 → a
    // segment at j = 4, then 728, 1 182 → one at j = 6, 637, 1 091 → j = 8, 546, 1 000 →
    // j = 10 (pipe, 19 000 − 1 000·j + what was sent, stays above 10 000 throughout).
    let prr = prr_run(true);
    let sent: Vec<(usize, Vec<u64>)> = prr
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.is_empty())
        .map(|(j, s)| (j + 1, s.clone()))
        .collect();
    assert_eq!(
        sent,
        vec![
            (4, vec![seg(23)]),
            (6, vec![seg(24)]),
            (8, vec![seg(25)]),
            (10, vec![seg(26)]),
        ]
    );
    // RFC 6675 alone sets cwnd = ssthresh at once and waits until pipe (19 000 − 1 000·j) is
    // a segment below it: nothing until ACK 10.
    let plain = prr_run(false);
    let sent: Vec<(usize, Vec<u64>)> = plain
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.is_empty())
        .map(|(j, s)| (j + 1, s.clone()))
        .collect();
    assert_eq!(sent, vec![(10, vec![seg(23)])]);
}

#[test]
fn prr_needs_sack() {
    let c = TcpConfig {
        sack: false,
        prr: true,
        ..cfg(CcKind::NewReno)
    };
    assert_eq!(
        c.validate().unwrap_err().to_string(),
        "tcp.prr: PRR (RFC 6937) needs sack = true: it paces by RFC 6675's pipe"
    );
}

#[test]
fn rescue_retransmission_resends_the_tail_once_per_recovery() {
    // A 10-segment transfer loses segments 1 and 10. Three duplicate ACKs (SACKing 2-4) start
    // recovery: ssthresh = cwnd = 5 000, segment 1 is resent, pipe = 10 000 − 3 000 − 1 000 +
    // 1 000 = 7 000. Segments 5, 6, 7 SACKed bring pipe to 4 000: room for a segment, but
    // rule 1 finds no lost segment above HighRxt (segment 10 has no SACKed data above it),
    // rule 2 no new data, rule 3 nothing unSACKed below the highest SACK. Rule 4: HighACK
    // is above an undefined RescueRxt, so the segment holding the highest outstanding
    // unSACKed byte, segment 10, goes out, and RescueRxt = RecoveryPoint.
    let (mut tx, _) = {
        let mut tx = TcpSender::new(&cfg(CcKind::NewReno), Some(10_000));
        let mut out = Vec::new();
        tx.connect(SimTime::ZERO, &mut out);
        (tx, out)
    };
    let mut sent = Vec::new();
    let t = SimTime::from_millis(100);
    for k in 2..=9 {
        let mut out = Vec::new();
        tx.on_segment(t, &ack(1, &[(seg(2), seg(k + 1))]), &mut out);
        sent.push((k, seqs(&out)));
    }
    assert_eq!(
        sent,
        vec![
            (2, vec![]),
            (3, vec![]),
            (4, vec![seg(1)]),
            (5, vec![]),
            (6, vec![]),
            (7, vec![seg(10)]),
            (8, vec![]),
            (9, vec![]),
        ]
    );
    assert_eq!(tx.stats().retransmits, 2);
    // With `rescue = false` (Linux, ns-3) the same ACKs release segment 1 only.
    let mut plain = TcpSender::new(
        &TcpConfig {
            rescue: false,
            ..cfg(CcKind::NewReno)
        },
        Some(10_000),
    );
    let mut out = Vec::new();
    plain.connect(SimTime::ZERO, &mut out);
    out.clear();
    for k in 2..=9 {
        plain.on_segment(t, &ack(1, &[(seg(2), seg(k + 1))]), &mut out);
    }
    assert_eq!(seqs(&out), vec![seg(1)]);
    // The resent segment 1 arrives: the ACK covers 1-9 and leaves recovery (snd_una reaches
    // neither the recovery point nor beyond RescueRxt: no second rescue); segment 10's
    // rescue copy completes the transfer without waiting for the 1 s timer.
    let mut out = Vec::new();
    tx.on_segment(SimTime::from_millis(150), &ack(seg(10), &[]), &mut out);
    assert!(out.is_empty(), "{out:?}");
    tx.on_segment(SimTime::from_millis(160), &ack(seg(11), &[]), &mut out);
    assert!(tx.is_complete());
    assert_eq!(tx.stats().timeouts, 0);
}

#[test]
fn tahoe_slow_starts_from_one_segment_after_three_duplicate_acks() {
    // Tahoe: the third duplicate ACK sets ssthresh = FlightSize / 2 = min(12 000, cwnd 10 000)
    // / 2 (segments 11 and 12 went out by limited transmit) and cwnd = 1 SMSS, resends segment
    // 1 and nothing else (pipe = 1 000 = cwnd), with no fast recovery.
    let (mut tx, _) = started(&cfg(CcKind::Tahoe));
    let sent = sack_upto(&mut tx, 10);
    assert_eq!(sent, vec![seg(11), seg(12), seg(1)]);
    assert_eq!(tx.recovery(), Recovery::Timeout);
    assert_eq!(
        (tx.stats().ssthresh_bytes, tx.stats().cwnd_bytes),
        (5000, 1000)
    );
    assert_eq!((tx.stats().fast_recoveries, tx.stats().timeouts), (1, 0));
    // The ACK of segment 1 (2-10 were SACKed): slow start, cwnd 1 000 + min(10 000, 2 000)
    // (RFC 3465, L = 2). Go-back-N: segments 11 and 12, outstanding when the loss was
    // detected, are presumed lost and resent, then new segment 13 fills the window of 3 000.
    let mut out = Vec::new();
    tx.on_segment(SimTime::from_millis(200), &ack(seg(11), &[]), &mut out);
    assert_eq!(tx.stats().cwnd_bytes, 3000);
    assert_eq!(seqs(&out), vec![seg(11), seg(12), seg(13)]);
    assert_eq!(tx.stats().retransmits, 3);
    // NewReno with the same losses keeps half the window and recovers in place.
    let (mut nr, _) = started(&cfg(CcKind::NewReno));
    sack_upto(&mut nr, 10);
    assert_eq!(nr.recovery(), Recovery::Fast);
    assert_eq!(
        (nr.stats().ssthresh_bytes, nr.stats().cwnd_bytes),
        (5000, 5000)
    );
}

/// A RACK (or plain RFC 6675) sender after its handshake: SYN at 0, SYN-ACK at 100 ms (RTT
/// sample 100 ms: min RTT and SRTT 100 ms), then its 10-segment window at 100 ms. Min RTO 1 s,
/// so the retransmission timer fires at 1.1 s.
fn rack_sender(rack: bool) -> TcpSender {
    let c = TcpConfig {
        mss: MSS as u32,
        rack,
        min_rto: SimDuration::from_secs(1),
        ..TcpConfig::with_cc(CcKind::NewReno)
    };
    let mut tx = TcpSender::new(&c, None);
    let mut out = Vec::new();
    tx.connect(SimTime::ZERO, &mut out);
    let syn_ack = Segment {
        ack: 1,
        flags: ACK | aqmlab_tcp::segment::SYN,
        rwnd: u32::MAX,
        ..Segment::default()
    };
    out.clear();
    tx.on_segment(SimTime::from_millis(100), &syn_ack, &mut out);
    assert_eq!(seqs(&out), (1..=10).map(seg).collect::<Vec<_>>());
    tx
}

fn at(tx: &mut TcpSender, ms: u64, blocks: &[(u64, u64)]) -> Vec<u64> {
    let mut out = Vec::new();
    tx.on_segment(SimTime::from_millis(ms), &ack(1, blocks), &mut out);
    seqs(&out)
}

#[test]
fn rack_reordering_timer_marks_the_hole_lost() {
    // One duplicate ACK at 200 ms SACKs segment 2 (sent at 100 ms): RACK.rtt = 100 ms and,
    // with fewer than DupThresh segments SACKed, reo_wnd = min(min_RTT / 4, SRTT) = 25 ms
    // (RFC 8985 §6.2 step 4). Segment 1 (sent at 100 ms) is lost once 100 + 100 + 25 ms have
    // passed: the reordering timer is armed for 225 ms (step 5). Limited transmit sends 11.
    let mut tx = rack_sender(true);
    assert_eq!(at(&mut tx, 200, &[(seg(2), seg(3))]), vec![seg(11)]);
    assert_eq!(tx.next_timer(), Some(SimTime::from_millis(225)));
    // It expires: segment 1 is lost, recovery starts and resends it.
    let mut out = Vec::new();
    tx.on_timer(SimTime::from_millis(225), &mut out);
    assert_eq!(seqs(&out), vec![seg(1)]);
    assert_eq!(tx.recovery(), Recovery::Fast);
    assert_eq!(tx.stats().timeouts, 0);
}

#[test]
fn rack_detects_a_lost_retransmission_without_the_timer() {
    let run = |rack: bool| -> (Vec<(u64, Vec<u64>)>, TcpSender) {
        let mut tx = rack_sender(rack);
        let mut log = Vec::new();
        // Duplicate ACKs SACK segments 2, 3, 4 at 200, 210, 220 ms; 5-10 at 230-280 ms.
        for k in 2..=10u64 {
            let ms = 200 + 10 * (k - 2);
            log.push((ms, at(&mut tx, ms, &[(seg(2), seg(k + 1))])));
        }
        // Segments 11, 12 (sent at 200, 210 ms) SACKed at 300, 310 ms; 13 (sent at 260 ms)
        // at 360 ms.
        for (ms, k) in [(300, 11), (310, 12), (360, 13)] {
            log.push((ms, at(&mut tx, ms, &[(seg(2), seg(k + 1))])));
        }
        (log, tx)
    };
    let (log, tx) = run(true);
    // 220 ms: three segments SACKed, so reo_wnd = 0 and segment 1 (sent at 100 ms, RACK.xmit_ts
    // 100 ms with a higher end) is lost: 100 + 100 <= 220. Recovery resends it.
    assert_eq!(log[2], (220, vec![seg(1)]));
    // 360 ms: segment 13, sent at 260 ms, is delivered: RACK.xmit_ts = 260 ms, after the
    // retransmission of segment 1 at 220 ms, which is therefore lost too: 220 + RACK.rtt
    // (100 ms) + reo_wnd (0 in recovery) = 320 <= 360 ms. It goes out again at once.
    let (ms, sent) = &log[11];
    assert_eq!(*ms, 360);
    assert_eq!(sent.first(), Some(&seg(1)), "{sent:?}");
    assert_eq!((tx.stats().retransmits, tx.stats().timeouts), (2, 0));
    // RFC 6675 alone cannot know: segment 1's retransmission waits for the timer at 1.1 s.
    let (log, tx) = run(false);
    assert_eq!(log[2], (220, vec![seg(1)]));
    assert!(
        log[3..].iter().all(|(_, s)| !s.contains(&seg(1))),
        "{log:?}"
    );
    assert_eq!(tx.stats().retransmits, 1);
    assert_eq!(tx.next_timer(), Some(SimTime::from_millis(1100)));
}

/// A sender without SACK of kind `kind` that has sent an initial window of `iw` segments at 0.
fn started_nosack(kind: CcKind, iw: u32) -> TcpSender {
    let c = TcpConfig {
        sack: false,
        initial_cwnd_segments: iw,
        ..cfg(kind)
    };
    let mut tx = TcpSender::new(&c, None);
    let mut out = Vec::new();
    tx.connect(SimTime::ZERO, &mut out);
    assert_eq!(seqs(&out), (1..=u64::from(iw)).map(seg).collect::<Vec<_>>());
    tx
}

/// `n` ACKs of everything below `a` at `ms` milliseconds; the segments they released.
fn acks(tx: &mut TcpSender, ms: u64, a: u64, n: usize) -> Vec<u64> {
    let mut out = Vec::new();
    for _ in 0..n {
        tx.on_segment(SimTime::from_millis(ms), &ack(a, &[]), &mut out);
    }
    seqs(&out)
}

#[test]
fn tahoe_without_sack_ignores_duplicate_acks_at_recover() {
    // RFC 6582 §3.2 step 1 (and §4 for the go-back-N after a timeout, which Tahoe's restart
    // is): a new fast retransmit needs duplicate ACKs whose cumulative ACK "covers more than
    // recover", the highest byte sent when the last one started. Segments 1, 3 and 10 of a
    // 20-segment window are lost; the receiver holds the others.
    let mut tx = started_nosack(CcKind::Tahoe, 20);
    // Duplicate ACKs for 2, 4 and 5: the third restarts in slow start (RFC 5681 §3.2 step 2:
    // ssthresh = FlightSize / 2 = 10 000, cwnd = 1 SMSS) and resends segment 1. recover is the
    // end of segment 20. The other 14 duplicates (6-9, 11-20) change nothing.
    assert_eq!(acks(&mut tx, 100, seg(1), 3), vec![seg(1)]);
    assert_eq!(acks(&mut tx, 100, seg(1), 14), Vec::<u64>::new());
    assert_eq!(
        (tx.stats().ssthresh_bytes, tx.stats().cwnd_bytes),
        (10_000, 1000)
    );
    // Segment 1 arrives: ACK of 3. Slow start, cwnd 1 000 + min(2 000, 2 000) (RFC 3465,
    // L = 2); go-back-N resends 3, 4 and 5 (4 and 5 are duplicates at the receiver).
    assert_eq!(acks(&mut tx, 200, seg(3), 1), vec![seg(3), seg(4), seg(5)]);
    // Segment 3 arrives: ACK of 10, cwnd 5 000: 10-14 resent (11-14 are duplicates). The
    // duplicates 4 and 5 draw two duplicate ACKs of 10.
    assert_eq!(
        acks(&mut tx, 300, seg(10), 1),
        (10..=14).map(seg).collect::<Vec<_>>()
    );
    assert_eq!(acks(&mut tx, 300, seg(10), 2), Vec::<u64>::new());
    // Segment 10 arrives: ACK of 21 = recover (one past segment 20). The restart is over;
    // cwnd 7 000 (still below ssthresh) and seven new segments go out.
    assert_eq!(
        acks(&mut tx, 400, seg(21), 1),
        (21..=27).map(seg).collect::<Vec<_>>()
    );
    assert_eq!(tx.recovery(), Recovery::None);
    assert_eq!(tx.stats().cwnd_bytes, 7000);
    // The duplicates 11-14 draw four duplicate ACKs of 21. They acknowledge nothing beyond
    // recover: no fast retransmit, the window stays (before the fix the third reset cwnd to
    // 1 SMSS and resent segment 21, which had not been lost).
    assert_eq!(acks(&mut tx, 400, seg(21), 4), Vec::<u64>::new());
    assert_eq!(tx.recovery(), Recovery::None);
    assert_eq!(
        (tx.stats().ssthresh_bytes, tx.stats().cwnd_bytes),
        (10_000, 7000)
    );
    assert_eq!((tx.stats().fast_recoveries, tx.stats().retransmits), (1, 9));
    // Segment 21 arrives (ACK of 22: beyond recover, cwnd 8 000, 28 and 29 go out); 22 is
    // lost and 23-25 draw three duplicate ACKs of 22: these cover more than recover, so the
    // third fast-retransmits: ssthresh = min(snd_nxt − snd_una, cwnd) / 2 = 8 000 / 2.
    assert_eq!(acks(&mut tx, 500, seg(22), 1), vec![seg(28), seg(29)]);
    assert_eq!(acks(&mut tx, 500, seg(22), 3), vec![seg(22)]);
    assert_eq!(
        (tx.stats().ssthresh_bytes, tx.stats().cwnd_bytes),
        (4000, 1000)
    );
    assert_eq!(tx.stats().fast_recoveries, 2);
}

#[test]
fn newreno_without_sack_ignores_duplicate_acks_at_recover() {
    // The same rule for NewReno (RFC 6582 §3.2 step 1). Segment 1 of 10 is lost: the third
    // duplicate ACK enters fast recovery (ssthresh 5 000, cwnd = ssthresh + 3·SMSS, segment 1
    // resent); the next six inflate the window by 1 SMSS each (step 3), releasing 11-14.
    let mut tx = started_nosack(CcKind::NewReno, 10);
    assert_eq!(acks(&mut tx, 100, seg(1), 3), vec![seg(1)]);
    assert_eq!(
        acks(&mut tx, 100, seg(1), 6),
        (11..=14).map(seg).collect::<Vec<_>>()
    );
    assert_eq!(tx.recovery(), Recovery::Fast);
    // The full ACK (of 11 = recover) ends recovery: cwnd = ssthresh = 5 000 (step 5); 11-14
    // are outstanding, so one new segment, 15.
    assert_eq!(acks(&mut tx, 200, seg(11), 1), vec![seg(15)]);
    assert_eq!(tx.recovery(), Recovery::None);
    // Three duplicate ACKs of 11, at recover (a reordered or duplicated segment of the old
    // window): no new fast retransmit.
    assert_eq!(acks(&mut tx, 200, seg(11), 3), Vec::<u64>::new());
    assert_eq!(tx.recovery(), Recovery::None);
    assert_eq!(
        (tx.stats().fast_recoveries, tx.stats().cwnd_bytes),
        (1, 5000)
    );
    // Past recover, three duplicate ACKs of 12 do start one.
    acks(&mut tx, 300, seg(12), 1);
    assert_eq!(acks(&mut tx, 300, seg(12), 3), vec![seg(12)]);
    assert_eq!(tx.recovery(), Recovery::Fast);
    assert_eq!(tx.stats().fast_recoveries, 2);
}

/// Classic Reno without SACK (RFC 5681 §3.2), with or without `recover_guard` (RFC 6582 §3.2
/// step 1's guard, ns-2's `Agent/TCP/Reno` with `bugFix_`): segments 1 and 5 of a 10-segment
/// window are lost, the receiver holds the others. Returns the sender after the partial ACK
/// and what three duplicate ACKs for the second hole then released.
fn reno_two_losses(guard: bool) -> (TcpSender, Vec<u64>) {
    reno_two_losses_with(guard, RtoSsthresh::Rfc5681)
}

/// [`reno_two_losses`] with the timeout's `ssthresh` rule `rto`.
fn reno_two_losses_with(guard: bool, rto: RtoSsthresh) -> (TcpSender, Vec<u64>) {
    let c = TcpConfig {
        sack: false,
        initial_cwnd_segments: 10,
        recover_guard: guard,
        rto_ssthresh: rto,
        ..cfg(CcKind::Reno)
    };
    let mut tx = TcpSender::new(&c, None);
    let mut out = Vec::new();
    tx.connect(SimTime::ZERO, &mut out);
    // Duplicate ACKs of 1 for 2, 3 and 4: the third fast-retransmits segment 1 (ssthresh =
    // FlightSize / 2 = 5 000, cwnd = ssthresh + 3 SMSS; recover = one past segment 10).
    assert_eq!(acks(&mut tx, 100, seg(1), 3), vec![seg(1)]);
    assert_eq!(tx.stats().ssthresh_bytes, 5000);
    // Five more for 6-10 inflate the window by 1 SMSS each (step 4): 13 000 against a flight
    // of 10 000 releases 11, 12 and 13.
    assert_eq!(
        acks(&mut tx, 100, seg(1), 5),
        (11..=13).map(seg).collect::<Vec<_>>()
    );
    // Segment 1 arrives: the ACK of 5 is new data, which ends classic Reno's recovery (step
    // 6: cwnd = ssthresh = 5 000). Nine segments (5-13) are outstanding: nothing is sent.
    assert_eq!(acks(&mut tx, 200, seg(5), 1), Vec::<u64>::new());
    assert_eq!(tx.recovery(), Recovery::None);
    assert_eq!(tx.stats().cwnd_bytes, 5000);
    // 11, 12 and 13 arrive: three duplicate ACKs of 5, which is not beyond recover.
    let sent = acks(&mut tx, 300, seg(5), 3);
    (tx, sent)
}

#[test]
fn classic_reno_fast_retransmits_again_within_one_window() {
    // RFC 5681 §3.2 has no recovery point: the third duplicate ACK of 5 is a new fast
    // retransmit, with ssthresh = min(FlightSize 9 000, cwnd 5 000) / 2 = 2 500 and cwnd =
    // ssthresh (the controller's cwnd; the 3 SMSS of inflation are the sender's).
    let (tx, sent) = reno_two_losses(false);
    assert_eq!(sent, vec![seg(5)]);
    assert_eq!(tx.recovery(), Recovery::Fast);
    assert_eq!(
        (tx.stats().fast_recoveries, tx.stats().ssthresh_bytes),
        (2, 2500)
    );
    assert_eq!(tx.stats().cwnd_bytes, 2500);
}

#[test]
fn reno_with_recover_guard_waits_for_the_timer() {
    // With the guard (ns-2's Agent/TCP/Reno: dupack_action does nothing unless highest_ack_ >
    // recover_) the same ACKs send nothing and change nothing; segment 5 waits for the
    // retransmission timer, restarted by the ACK of 5 at 200 ms with the initial RTO of 1 s
    // (no RTT sample: the ACK covers a retransmission, Karn).
    let (mut tx, sent) = reno_two_losses(true);
    assert_eq!(sent, Vec::<u64>::new());
    assert_eq!(tx.recovery(), Recovery::None);
    assert_eq!(
        (tx.stats().fast_recoveries, tx.stats().ssthresh_bytes),
        (1, 5000)
    );
    assert_eq!(tx.stats().cwnd_bytes, 5000);
    assert_eq!(tx.next_timer(), Some(SimTime::from_millis(1200)));
    let mut out = Vec::new();
    tx.on_timer(SimTime::from_millis(1200), &mut out);
    assert_eq!(seqs(&out), vec![seg(5)]);
    assert_eq!(tx.stats().timeouts, 1);
    // The timeout moved recover to one past segment 13 (RFC 6582 §4). 5 arrives: the ACK of
    // 14 (at recover) ends the timeout's recovery; slow start (cwnd 1 000 + 2 SMSS, RFC 3465
    // with L = 2) sends 14, 15 and 16.
    assert_eq!(
        acks(&mut tx, 1300, seg(14), 1),
        vec![seg(14), seg(15), seg(16)]
    );
    // 14 arrives (ACK of 15, beyond recover), 15 is lost and three duplicate ACKs of 15 come
    // back: beyond recover the guard lets them fast-retransmit (and the inflated window
    // releases one new segment, 19: the ACK of 15 had sent 17 and 18; ssthresh = 4 000 / 2).
    acks(&mut tx, 1400, seg(15), 1);
    assert_eq!(acks(&mut tx, 1400, seg(15), 3), vec![seg(15), seg(19)]);
    assert_eq!(tx.recovery(), Recovery::Fast);
    assert_eq!(tx.stats().fast_recoveries, 2);
    assert_eq!(tx.stats().ssthresh_bytes, 2000);
}

/// The guarded Reno of [`reno_with_recover_guard_waits_for_the_timer`] at its timeout (1.2 s)
/// and at the backed-off one that follows when the retransmission is lost too (3.2 s): `cwnd`
/// and `ssthresh` after each.
fn reno_timeouts(rto: RtoSsthresh) -> [(u64, u64); 2] {
    let (mut tx, _) = reno_two_losses_with(true, rto);
    let mut out = Vec::new();
    let mut after = |tx: &mut TcpSender, ms: u64| {
        assert_eq!(tx.next_timer(), Some(SimTime::from_millis(ms)));
        out.clear();
        tx.on_timer(SimTime::from_millis(ms), &mut out);
        assert_eq!(seqs(&out), vec![seg(5)]);
        (tx.stats().cwnd_bytes, tx.stats().ssthresh_bytes)
    };
    [after(&mut tx, 1200), after(&mut tx, 3200)]
}

#[test]
fn reno_timeout_ssthresh_rfc5681_and_ns2() {
    // At the first expiry 9 segments (5-13) are outstanding and cwnd is 5 000 (ssthresh after
    // the fast retransmit). RFC 5681 §3.1 eq. (4): ssthresh = FlightSize / 2 = 4 500, held at
    // the backed-off expiry of the same segment. ns-2.35 (slowdown(CLOSE_SSTHRESH_HALF)):
    // (int) (min(cwnd_, wnd_) / 2) = 5 / 2 = 2 packets, and again at the second expiry, where
    // cwnd_ is 1 (max(0, 2) = 2 packets).
    assert_eq!(
        reno_timeouts(RtoSsthresh::Rfc5681),
        [(1000, 4500), (1000, 4500)]
    );
    assert_eq!(
        reno_timeouts(RtoSsthresh::Ns2),
        [(1000, 2000), (1000, 2000)]
    );
}

/// A window of 11 segments sent at 0 and never acknowledged: `ssthresh` after the first expiry
/// (the initial RTO, 1 s) and after the backed-off second (3 s).
fn lost_window_ssthresh(rto: RtoSsthresh) -> [u64; 2] {
    let c = TcpConfig {
        sack: false,
        initial_cwnd_segments: 11,
        rto_ssthresh: rto,
        ..cfg(CcKind::Reno)
    };
    let mut tx = TcpSender::new(&c, None);
    let mut out = Vec::new();
    tx.connect(SimTime::ZERO, &mut out);
    assert_eq!(out.len(), 11);
    [1000, 3000].map(|ms| {
        assert_eq!(tx.next_timer(), Some(SimTime::from_millis(ms)));
        out.clear();
        tx.on_timer(SimTime::from_millis(ms), &mut out);
        assert_eq!(seqs(&out), vec![seg(1)]);
        tx.stats().ssthresh_bytes
    })
}

#[test]
fn ns2_timeout_ssthresh_is_whole_packets_and_not_held() {
    // RFC 5681 §3.1: FlightSize 11 000 / 2 = 5 500, held at the second expiry (the segment was
    // already resent by the timer). ns-2.35: (int) (11 / 2) = 5 packets, then with cwnd_ = 1
    // at the second expiry max((int) (1 / 2), 2) = 2 packets.
    assert_eq!(lost_window_ssthresh(RtoSsthresh::Rfc5681), [5500, 5500]);
    assert_eq!(lost_window_ssthresh(RtoSsthresh::Ns2), [5000, 2000]);
}
