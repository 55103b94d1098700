//! Loss recovery driven by hand-made ACKs, with the exact values the RFC text gives: the
//! `ssthresh` a retransmission timeout sets (RFC 5681 §3.1), PRR's sending rate (RFC 6937),
//! RFC 6675's rescue retransmission and Tahoe's reaction to a loss.
//!
//! Every test uses an MSS of 1000 bytes, no handshake (the first window goes out at
//! `connect`: data starts at sequence number 1, so segment k covers [1000k − 999, 1000k + 1))
//! and an initial window of 10 segments.

use aqmlab_core::{SimDuration, SimTime};
use aqmlab_tcp::segment::ACK;
use aqmlab_tcp::{CcKind, Recovery, Segment, TcpConfig, TcpSender};

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
    s.n_sack = blocks.len() as u8;
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
    // recovery (RFC 6675 §5): ssthresh = cwnd = FlightSize / 2 = 12 000 / 2 (RFC 6675 §5 step
    // 4.2), and segment 1 is resent at once (step 4.3). pipe = 12 000 − 3 000 SACKed − 1 000
    // lost + 1 000 resent = 9 000. Segments 5-10 SACKed: pipe falls by 1 000 each, and from
    // pipe 5 000 on each ACK sends one new segment (§5 (C), NextSeg rule 2): 13, 14, 15.
    let sent = sack_upto(&mut tx, 10);
    assert_eq!(
        sent,
        vec![seg(11), seg(12), seg(1), seg(13), seg(14), seg(15)]
    );
    assert_eq!(tx.recovery(), Recovery::Fast);
    assert_eq!(tx.stats().ssthresh_bytes, 6000);
    assert_eq!(tx.pipe(), 6000);
    assert_eq!(tx.snd_nxt() - tx.snd_una(), 15_000);

    // The retransmission is lost too and the timer (1 s, RFC 6298 §2.1, from time 0) expires.
    // snd_nxt − snd_una is now 15 000: read as FlightSize it would *raise* ssthresh to 7 500.
    // The data in the network is the pipe, 6 000: ssthresh = max(6 000 / 2, 2·SMSS) = 3 000
    // (RFC 5681 §3.1 eq. 4), cwnd = 1 SMSS, and segment 1 goes out again.
    let mut out = Vec::new();
    let t1 = tx.next_timer().unwrap();
    assert_eq!(t1, SimTime::from_secs(1));
    tx.on_timer(t1, &mut out);
    assert_eq!(seqs(&out), vec![seg(1)]);
    assert_eq!(tx.recovery(), Recovery::Timeout);
    assert_eq!(
        (tx.stats().ssthresh_bytes, tx.stats().cwnd_bytes),
        (3000, 1000)
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
        (3000, 1000)
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
