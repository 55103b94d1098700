//! AccECN (RFC 9768) through the sender and receiver: the negotiation on SYN / SYN-ACK with its
//! fallbacks (Table 2), and the CE count the sender decodes from the ACE field, exact when no
//! ACK is lost and safe (Appendix A.2.1) when a run of lost ACKs hides a wrap of the counter.

use aqmlab_core::{SimDuration, SimTime};
use aqmlab_tcp::segment::{AE, CWR, ECE, SYN};
use aqmlab_tcp::{CcKind, Segment, TcpConfig, TcpReceiver, TcpSender};

fn cfg(kind: CcKind, ecn: bool, accecn: bool) -> TcpConfig {
    TcpConfig {
        ecn,
        accecn,
        ..TcpConfig::with_cc(kind)
    }
}

/// Runs the handshake between a client with `c` and a server with `s`; returns the SYN's and
/// SYN-ACK's ECN flags, both ends' (ECN, AccECN) state, and the first data segment.
fn handshake(c: &TcpConfig, s: &TcpConfig) -> (u8, u8, (bool, bool), (bool, bool), Segment) {
    let mut tx = TcpSender::new(c, Some(100_000));
    let mut rx = TcpReceiver::new(s);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let t = |ms| SimTime::ZERO + SimDuration::from_millis(ms);
    tx.connect(t(0), &mut a);
    assert!(a[0].has(SYN));
    let syn = a[0].flags & (AE | CWR | ECE);
    rx.on_segment(t(10), &a[0], &mut b);
    let synack = b[0].flags & (AE | CWR | ECE);
    a.clear();
    tx.on_segment(t(20), &b[0], &mut a);
    let data = *a
        .iter()
        .find(|x| x.len > 0)
        .expect("data after the handshake");
    let hs = rx.handshake();
    (
        syn,
        synack,
        (tx.ecn_negotiated(), tx.accecn_negotiated()),
        (hs.ecn, hs.accecn),
        data,
    )
}

#[test]
fn negotiation_and_fallback_table_2() {
    let acc = cfg(CcKind::Cubic, true, true);
    let classic = cfg(CcKind::Cubic, true, false);
    let none = cfg(CcKind::Cubic, false, false);
    // AccECN both ends: (1,1,1) → (0,1,0) (Not-ECT SYN).
    let (syn, sa, c, s, d) = handshake(&acc, &acc);
    assert_eq!((syn, sa), (AE | CWR | ECE, CWR));
    assert_eq!((c, s), ((true, true), (true, true)));
    assert!(d.ect && !d.ect1, "CUBIC on AccECN still sends ECT(0)");
    assert_eq!(
        d.ace(),
        5,
        "data carries the reverse direction's initial ACE"
    );
    // AccECN client, classic server: (0,0,1), classic ECN.
    let (_, sa, c, s, d) = handshake(&acc, &classic);
    assert_eq!(sa, ECE);
    assert_eq!((c, s), ((true, false), (true, false)));
    assert!(d.ect);
    // AccECN client, server without ECN: (0,0,0), no ECN, Not-ECT data.
    let (_, sa, c, s, d) = handshake(&acc, &none);
    assert_eq!(sa, 0);
    assert_eq!((c, s), ((false, false), (false, false)));
    assert!(!d.ect);
    // Classic client, AccECN server: (0,1,1) → (0,0,1): classic, as before AccECN.
    let (syn, sa, c, s, _) = handshake(&classic, &acc);
    assert_eq!((syn, sa), (CWR | ECE, ECE));
    assert_eq!((c, s), ((true, false), (true, false)));
    // Classic both ends: unchanged RFC 3168 negotiation.
    let (syn, sa, c, _, _) = handshake(&classic, &classic);
    assert_eq!((syn, sa, c), (CWR | ECE, ECE, (true, false)));
}

#[test]
fn prague_sends_ect1_only_with_accecn_and_falls_back_to_reno() {
    let prague = cfg(CcKind::Prague, true, true);
    let (_, _, c, _, d) = handshake(&prague, &prague);
    assert_eq!(c, (true, true));
    assert!(d.ect && d.ect1, "Prague's data is ECT(1)");
    // Against a classic ECN receiver: classic ECN, ECT(0), Reno's window.
    let (_, _, c, _, d) = handshake(&prague, &cfg(CcKind::Cubic, true, false));
    assert_eq!(c, (true, false));
    assert!(d.ect && !d.ect1);
    let (_, _, c, _, d) = handshake(&prague, &cfg(CcKind::Cubic, false, false));
    assert_eq!(c, (false, false));
    assert!(!d.ect && !d.ect1);
}

/// Sends `n` segments over an AccECN connection without a handshake, CE-marking those whose
/// number (from 1) `mark` selects and losing the ACKs `lose_ack` selects by the number of
/// segments they acknowledge cumulatively. Returns (marks made, marks the receiver counted, CE
/// packets the sender decoded).
fn run(n: u64, mark: impl Fn(u64) -> bool, lose_ack: impl Fn(u64) -> bool) -> (u64, u64, u64) {
    let c = TcpConfig {
        handshake: false,
        max_window_segments: Some(16),
        ..cfg(CcKind::Cubic, true, true)
    };
    let mss = u64::from(c.mss);
    let mut tx = TcpSender::new(&c, Some(n * mss));
    let mut rx = TcpReceiver::new(&c);
    let (mut data, mut acks) = (Vec::new(), Vec::new());
    let mut now = SimTime::ZERO;
    tx.connect(now, &mut data);
    let mut marked = 0;
    for _ in 0..10_000 {
        if tx.is_complete() {
            break;
        }
        now += SimDuration::from_millis(10);
        for mut s in data.drain(..) {
            let k = (s.seq - 1) / mss + 1;
            if s.len > 0 && s.ect && mark(k) {
                s.ce = true;
                marked += 1;
            }
            rx.on_segment(now, &s, &mut acks);
        }
        rx.on_timer(now + SimDuration::from_secs(1), &mut acks);
        now += SimDuration::from_millis(10);
        for a in acks.drain(..) {
            if !lose_ack((a.ack - 1) / mss) {
                tx.on_segment(now, &a, &mut data);
            }
        }
        if data.is_empty() {
            // Every ACK of the flight was lost: the timer resends, as it would.
            now += SimDuration::from_secs(2);
            tx.on_timer(now, &mut data);
        }
    }
    assert!(tx.is_complete());
    (marked, rx.ce_packets(), tx.stats().ce_reported)
}

#[test]
fn ce_count_is_exact_without_ack_loss_across_many_wraps() {
    // 500 segments, every third and every seventh marked: 166 + 71 − 23 = 214 marks, the
    // 3-bit counter wraps 26 times; every ACK arrives, so the sender's count is exact.
    let (m, r, s) = run(500, |k| k % 3 == 0 || k % 7 == 0, |_| false);
    assert_eq!(m, 214);
    assert_eq!((r, s), (214, 214));
    // All marked, delayed ACKs of two: each ACK reports 2 (or 1, change-triggered).
    let (m, r, s) = run(200, |_| true, |_| false);
    assert_eq!((m, r, s), (200, 200, 200));
}

#[test]
fn lost_acks_hiding_a_wrap_are_counted_safely() {
    // The first flight (10 segments) is all CE-marked and every ACK but the last of it is
    // lost: the last reports ACE = (5 + 10) mod 8 = 7 for 10 newly delivered packets. The
    // minimal decoding, (7 − 5) mod 8 = 2, would undercount by 8; the safety rule counts
    // 10 − ((10 − 2) mod 8) = 10, the truth.
    // (10 segments: the initial window is the whole transfer.)
    let all_but_last = |acked: u64| acked < 10;
    let (m, r, s) = run(10, |k| k <= 10, all_but_last);
    assert_eq!((m, r), (10, 10));
    assert_eq!(s, 10, "the safety rule recovers the 8 marks the wrap hid");
    // Other counts in the same 10 packets: 3 marks (ACE moves by 3: 10 − 7 = 3) and 9 (ACE
    // moves by 1: 10 − ((10 − 1) mod 8) = 9) are decoded exactly, since no other count fits.
    let (_, _, s) = run(10, |k| k <= 3, all_but_last);
    assert_eq!(s, 3);
    let (_, _, s) = run(10, |k| k <= 9, all_but_last);
    assert_eq!(s, 9);
    // 2 marks are ambiguous with 10: the rule takes the safest case and counts 10.
    let (_, r, s) = run(10, |k| k <= 2, all_but_last);
    assert_eq!((r, s), (2, 10));
}
