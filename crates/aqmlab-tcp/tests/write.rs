//! `TcpSender::write`: an application writing more into an open connection (repeated transfers
//! on one connection, on/off applications), and RFC 5681 §4.1's restart window after idle.

use aqmlab_core::{SimDuration, SimTime};
use aqmlab_tcp::{CcKind, Segment, TcpConfig, TcpReceiver, TcpSender};

/// Delivers every segment in `out` to `rx` at `t` and every ACK back to `tx` at `t + rtt`,
/// until nothing is left to send (a lossless path, one round trip per round).
fn exchange(tx: &mut TcpSender, rx: &mut TcpReceiver, t: &mut SimTime, out: &mut Vec<Segment>) {
    let rtt = SimDuration::from_millis(50);
    while !out.is_empty() {
        let mut acks = Vec::new();
        for s in out.drain(..) {
            rx.on_segment(*t, &s, &mut acks);
        }
        *t += rtt;
        for a in &acks {
            tx.on_segment(*t, a, out);
        }
    }
}

fn config() -> TcpConfig {
    TcpConfig {
        handshake: false,
        delayed_ack: false,
        ..TcpConfig::with_cc(CcKind::NewReno)
    }
}

#[test]
fn writes_extend_the_transfer_and_complete_again() {
    let cfg = config();
    let mut tx = TcpSender::new(&cfg, Some(0));
    let mut rx = TcpReceiver::new(&cfg);
    let mut t = SimTime::ZERO;
    let mut out = Vec::new();
    tx.connect(t, &mut out);
    assert!(out.is_empty() && tx.is_complete(), "nothing written yet");
    // 3000 bytes: two full segments and one of 80 bytes, all in the initial window.
    tx.write(t, 3000, true, &mut out);
    assert!(!tx.is_complete());
    assert_eq!(
        out.iter().map(|s| s.len).collect::<Vec<_>>(),
        [1460, 1460, 80]
    );
    exchange(&mut tx, &mut rx, &mut t, &mut out);
    assert!(tx.is_complete());
    assert_eq!(tx.stats().completed_at, Some(SimTime::from_millis(50)));
    assert_eq!(rx.delivered_bytes(), 3000);
    // More, later: it continues the same byte stream.
    t = SimTime::from_millis(60);
    tx.write(t, 100, true, &mut out);
    assert_eq!((out.len(), out[0].seq, out[0].len), (1, 3001, 100));
    exchange(&mut tx, &mut rx, &mut t, &mut out);
    assert!(tx.is_complete());
    assert_eq!(rx.delivered_bytes(), 3100);
    assert_eq!(tx.stats().retransmits, 0);

    // A sender of unlimited data ignores writes.
    let mut bulk = TcpSender::new(&cfg, None);
    bulk.connect(SimTime::ZERO, &mut out);
    let n = out.len();
    bulk.write(SimTime::ZERO, 1_000_000, true, &mut out);
    assert_eq!(out.len(), n);
}

#[test]
fn the_window_restarts_after_an_idle_rto_unless_told_not_to() {
    for restart in [true, false] {
        let cfg = config();
        let iw = u64::from(cfg.initial_cwnd_segments) * u64::from(cfg.mss);
        let mut tx = TcpSender::new(&cfg, Some(0));
        let mut rx = TcpReceiver::new(&cfg);
        let mut t = SimTime::ZERO;
        let mut out = Vec::new();
        tx.connect(t, &mut out);
        // 100 segments in slow start: the window grows well past the initial one.
        tx.write(t, 100 * 1460, restart, &mut out);
        exchange(&mut tx, &mut rx, &mut t, &mut out);
        let grown = tx.stats().cwnd_bytes;
        assert!(grown > 4 * iw, "{grown}");
        // Idle for less than the RTO (200 ms minimum here): the window is kept either way.
        t += SimDuration::from_millis(150);
        tx.write(t, 1460, restart, &mut out);
        assert_eq!(tx.stats().cwnd_bytes, grown);
        exchange(&mut tx, &mut rx, &mut t, &mut out);
        // Idle for 5 s, far beyond the RTO: min(IW, cwnd) with the restart, as before without.
        let before = tx.stats().cwnd_bytes;
        t += SimDuration::from_secs(5);
        tx.write(t, 100 * 1460, restart, &mut out);
        let expect = if restart { iw } else { before };
        assert_eq!(tx.stats().cwnd_bytes, expect, "restart = {restart}");
        assert_eq!(out.len() as u64, expect / 1460, "restart = {restart}");
    }
}
