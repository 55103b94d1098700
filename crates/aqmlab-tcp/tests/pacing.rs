//! Pacing at the sender (`pacing = true`): after the first RTT sample, segments the window
//! allows leave `len / (ratio × max(cwnd, pipe) / srtt)` apart, ratio 200 % in slow start.

use aqmlab_core::{SimDuration, SimTime};
use aqmlab_tcp::segment::ACK;
use aqmlab_tcp::{Segment, TcpConfig, TcpSender};

fn ack(n: u64) -> Segment {
    Segment {
        seq: 1,
        ack: n,
        flags: ACK,
        rwnd: u32::MAX,
        ..Segment::default()
    }
}

/// Departure times (ns after the first ACK) of the segments sent from the first ACK at 100 ms
/// until `until` (before the retransmission timer, 300 ms after the ACK), firing the sender's timer whenever it asks.
fn departures(pacing: bool, acks: &[(u64, u64)], until: SimTime) -> Vec<u64> {
    let cfg = TcpConfig {
        mss: 1000,
        handshake: false,
        delayed_ack: false,
        initial_cwnd_segments: 10,
        pacing,
        ..TcpConfig::default()
    };
    let mut tx = TcpSender::new(&cfg, None);
    let mut out = Vec::new();
    tx.connect(SimTime::ZERO, &mut out);
    assert_eq!(
        out.len(),
        10,
        "the initial window is not paced (no RTT sample yet)"
    );
    let t0 = SimTime::from_millis(100);
    let mut times = Vec::new();
    let mut pending: Vec<(SimTime, u64)> = acks
        .iter()
        .map(|&(us_after, n)| (t0 + SimDuration::from_micros(us_after), n))
        .collect();
    pending.reverse();
    loop {
        let next_ack = pending.last().map(|a| a.0);
        let next_timer = tx.next_timer().filter(|&t| t < until);
        let now = match (next_ack, next_timer) {
            (Some(a), Some(t)) => a.min(t),
            (Some(a), None) => a,
            (None, Some(t)) => t,
            (None, None) => break,
        };
        if now >= until {
            break;
        }
        out.clear();
        if next_ack == Some(now) {
            let (_, n) = pending.pop().unwrap();
            tx.on_segment(now, &ack(n), &mut out);
        } else {
            tx.on_timer(now, &mut out);
        }
        times.extend(out.iter().map(|_| now.saturating_since(t0).as_nanos()));
    }
    times
}

#[test]
fn segments_leave_at_twice_cwnd_over_srtt_in_slow_start() {
    // ACK of segment 1 at 100 ms: srtt = 100 ms, slow start cwnd 10 000 → 11 000 bytes, pipe
    // 9 000: two segments are allowed. Pacing rate 200 % × 11 000 B / 100 ms = 220 000 B/s:
    // 1 000 bytes take 4 545 454 ns. The first leaves at once, the second one gap later.
    let t = departures(true, &[(0, 1001)], SimTime::from_millis(200));
    assert_eq!(t, vec![0, 4_545_454]);
    // The counterfactual: without pacing both leave with the ACK.
    assert_eq!(
        departures(false, &[(0, 1001)], SimTime::from_millis(200)),
        vec![0, 0]
    );
}

#[test]
fn congestion_avoidance_paces_at_120_percent() {
    // With ssthresh at 2 segments (after an RTO-like start) the ratio is 120 %: set it with
    // initial_ssthresh and check the gap: cwnd 10 000 (CA: +0 on the first ACK, pipe 9 000,
    // one segment allowed), then the second ACK 1 ms later allows one more.
    let cfg = TcpConfig {
        mss: 1000,
        handshake: false,
        delayed_ack: false,
        initial_ssthresh: Some(2000),
        pacing: true,
        ..TcpConfig::default()
    };
    let mut tx = TcpSender::new(&cfg, None);
    let mut out = Vec::new();
    tx.connect(SimTime::ZERO, &mut out);
    let t0 = SimTime::from_millis(100);
    out.clear();
    tx.on_segment(t0, &ack(1001), &mut out);
    assert_eq!(out.len(), 1);
    // 120 % × 10 000 B / 100 ms = 120 000 B/s: 1 000 bytes take 8 333 333 ns.
    out.clear();
    let t1 = t0 + SimDuration::from_millis(1);
    tx.on_segment(t1, &ack(2001), &mut out);
    assert!(out.is_empty(), "held back by pacing");
    assert_eq!(
        tx.next_timer(),
        Some(t0 + SimDuration::from_nanos(8_333_333))
    );
    tx.on_timer(t0 + SimDuration::from_nanos(8_333_333), &mut out);
    assert_eq!(out.len(), 1);
}
