//! Protocol mechanics: handshake timing, RFC 6298 timer arithmetic, Karn's rule, the receiver's
//! ACK policy and SACK blocks, loss recovery (SACK and NewReno), ECN.

mod harness;

use aqmlab_core::{Bitrate, SimDuration, SimTime};
use aqmlab_tcp::segment::{ACK, CWR, ECE, SYN};
use aqmlab_tcp::{
    CcKind, Handshake, Recovery, RttEstimator, Segment, TcpConfig, TcpReceiver, TcpSender,
};
use harness::{FlowSpec, LinkSpec, Net};
use std::cell::RefCell;
use std::rc::Rc;

fn link(mbps: u64, one_way_ms: u64, buffer: usize) -> LinkSpec {
    LinkSpec {
        rate: Bitrate::from_mbps(mbps),
        delay: SimDuration::from_millis(one_way_ms),
        buffer_pkts: buffer,
        loss: None,
    }
}

// ----- handshake and flow completion time ---------------------------------------------------

fn one_packet_fct(delayed_ack: bool) -> (SimTime, SimTime) {
    let r = Bitrate::from_mbps(10);
    let d = SimDuration::from_millis(20);
    let payload = 1000u64;
    let cfg = TcpConfig {
        delayed_ack,
        ..TcpConfig::default()
    };
    let mut spec = FlowSpec::bulk(cfg);
    spec.app_bytes = Some(payload);
    let mut net = Net::new(link(10, 20, 100), vec![spec]);
    assert!(net.run_until_complete(SimTime::from_secs(5)));
    let got = net.flows[0].tx.stats().completed_at.unwrap();
    // SYN (40 B on the wire) is serialised at the bottleneck and propagates (d); the SYN-ACK
    // returns (d, no queue on the ACK path); the data segment (payload + 40 B) is serialised and
    // propagates (d); the ACK returns (d). With delayed ACKs the lone segment waits for the
    // 40 ms delayed-ACK timer at the receiver.
    let mut expect = SimTime::ZERO + r.tx_time(40) + d + d + r.tx_time(payload + 40) + d + d;
    if delayed_ack {
        expect += cfg.delack_timeout;
    }
    assert_eq!(net.flows[0].rx.delivered_bytes(), payload);
    (got, expect)
}

#[test]
fn handshake_and_one_packet_fct_match_the_formula() {
    let (got, expect) = one_packet_fct(false);
    assert_eq!(got, expect, "FCT without delayed ACK");
    // 4·20 ms + 32 µs + 832 µs
    assert_eq!(got.as_nanos(), 80_000_000 + 32_000 + 832_000);
    let (got, expect) = one_packet_fct(true);
    assert_eq!(got, expect, "FCT with delayed ACK");
}

#[test]
fn no_handshake_saves_one_rtt() {
    let cfg = TcpConfig {
        handshake: false,
        delayed_ack: false,
        ..TcpConfig::default()
    };
    let mut spec = FlowSpec::bulk(cfg);
    spec.app_bytes = Some(1000);
    let mut net = Net::new(link(10, 20, 100), vec![spec]);
    assert!(net.run_until_complete(SimTime::from_secs(5)));
    let r = Bitrate::from_mbps(10);
    let expect = SimTime::ZERO + r.tx_time(1040) + SimDuration::from_millis(40);
    assert_eq!(net.flows[0].tx.stats().completed_at, Some(expect));
}

// ----- RFC 6298 ------------------------------------------------------------------------------

/// Reference RFC 6298 arithmetic in f64 seconds.
fn reference(samples_ms: &[f64], min_rto: f64, max_rto: f64) -> Vec<(f64, f64, f64)> {
    let mut out = Vec::new();
    let (mut srtt, mut rttvar) = (0.0f64, 0.0f64);
    for (i, &r) in samples_ms.iter().enumerate() {
        let r = r / 1e3;
        if i == 0 {
            srtt = r;
            rttvar = r / 2.0;
        } else {
            rttvar = 0.75 * rttvar + 0.25 * (srtt - r).abs();
            srtt = 0.875 * srtt + 0.125 * r;
        }
        let rto = (srtt + 4.0 * rttvar).clamp(min_rto, max_rto);
        out.push((srtt, rttvar, rto));
    }
    out
}

#[test]
fn rto_follows_rfc6298_for_a_sample_sequence() {
    let samples = [
        100.0, 120.0, 80.0, 300.0, 95.5, 101.0, 100.0, 100.0, 7.0, 450.25,
    ];
    let mut est = RttEstimator::new(
        SimDuration::from_secs(1),
        SimDuration::from_millis(200),
        SimDuration::from_secs(60),
    );
    assert_eq!(est.rto(), SimDuration::from_secs(1), "§2.1 initial RTO");
    assert!(est.srtt().is_none());
    let refs = reference(&samples, 0.2, 60.0);
    for (&s, &(srtt, rttvar, rto)) in samples.iter().zip(&refs) {
        est.on_sample(SimDuration::from_secs_f64(s / 1e3));
        // Integer-ns truncation: SRTT/RTTVAR within 10 ns, RTO (= SRTT + 4·RTTVAR) within 50 ns.
        let close = |a: SimDuration, b: f64| (a.as_secs_f64() - b).abs() < 10e-9;
        let close_rto = |a: SimDuration, b: f64| (a.as_secs_f64() - b).abs() < 50e-9;
        assert!(close(est.srtt().unwrap(), srtt), "srtt after {s} ms");
        assert!(close(est.rttvar().unwrap(), rttvar), "rttvar after {s} ms");
        assert!(
            close_rto(est.rto(), rto),
            "rto after {s} ms: {:?} vs {rto}",
            est.rto()
        );
    }
    // First sample exactly: SRTT = R, RTTVAR = R/2, RTO = 3R.
    let mut e = RttEstimator::new(
        SimDuration::from_secs(1),
        SimDuration::from_millis(1),
        SimDuration::from_secs(60),
    );
    e.on_sample(SimDuration::from_millis(100));
    assert_eq!(e.srtt(), Some(SimDuration::from_millis(100)));
    assert_eq!(e.rttvar(), Some(SimDuration::from_millis(50)));
    assert_eq!(e.rto(), SimDuration::from_millis(300));
    // Second sample 60 ms: RTTVAR = 3/4·50 + 1/4·40 = 47.5; SRTT = 7/8·100 + 1/8·60 = 95.
    e.on_sample(SimDuration::from_millis(60));
    assert_eq!(e.rttvar(), Some(SimDuration::from_micros(47_500)));
    assert_eq!(e.srtt(), Some(SimDuration::from_millis(95)));
    assert_eq!(e.rto(), SimDuration::from_millis(95 + 190));
}

#[test]
fn min_rto_backoff_and_max_rto() {
    let mut e = RttEstimator::new(
        SimDuration::from_secs(1),
        SimDuration::from_millis(200),
        SimDuration::from_secs(2),
    );
    for _ in 0..20 {
        e.on_sample(SimDuration::from_millis(10));
    }
    assert_eq!(e.rto(), SimDuration::from_millis(200), "min RTO respected");
    e.backoff();
    assert_eq!(e.rto(), SimDuration::from_millis(400));
    e.backoff();
    assert_eq!(e.rto(), SimDuration::from_millis(800));
    e.backoff();
    e.backoff();
    assert_eq!(e.rto(), SimDuration::from_secs(2), "capped at max RTO");
    e.on_sample(SimDuration::from_millis(10));
    assert_eq!(
        e.rto(),
        SimDuration::from_millis(200),
        "a new sample ends backoff"
    );
}

/// Karn's rule end to end: the only data segment is lost, the RTO retransmits it, and the ACK
/// of the retransmission yields no sample — SRTT stays the SYN's sample and the backed-off RTO
/// stays in force.
#[test]
fn karn_no_sample_from_retransmission_and_backoff_persists() {
    let cfg = TcpConfig {
        delayed_ack: false,
        ..TcpConfig::default()
    };
    let mut spec = FlowSpec::bulk(cfg);
    spec.app_bytes = Some(1000);
    spec.drop_data = vec![0];
    let mut net = Net::new(link(10, 50, 100), vec![spec]);
    assert!(net.run_until_complete(SimTime::from_secs(10)));
    let st = net.flows[0].tx.stats();
    let r = Bitrate::from_mbps(10);
    let syn_rtt = r.tx_time(40) + SimDuration::from_millis(100);
    assert_eq!(st.timeouts, 1);
    assert_eq!(st.retransmits, 1);
    assert_eq!(st.srtt, Some(syn_rtt), "no sample from the retransmission");
    let rto_after_syn = SimDuration::from_nanos(3 * syn_rtt.as_nanos());
    assert_eq!(
        st.rto,
        SimDuration::from_nanos(2 * rto_after_syn.as_nanos()),
        "backoff kept"
    );
    // FCT = handshake (1 RTT) + RTO + one data RTT.
    let data_rtt = r.tx_time(1040) + SimDuration::from_millis(100);
    let expect = SimTime::ZERO + syn_rtt + rto_after_syn + data_rtt;
    assert_eq!(st.completed_at, Some(expect));
}

#[test]
fn lost_syn_is_retransmitted_after_initial_rto() {
    // Drop nothing in data, but make the SYN-ACK path irrelevant: use the sender directly.
    let cfg = TcpConfig::default();
    let mut tx = TcpSender::new(&cfg, Some(10_000));
    let mut out = Vec::new();
    tx.connect(SimTime::ZERO, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(tx.next_timer(), Some(SimTime::from_secs(1)));
    out.clear();
    tx.on_timer(SimTime::from_millis(999), &mut out);
    assert!(out.is_empty(), "stale timer call is harmless");
    tx.on_timer(SimTime::from_secs(1), &mut out);
    assert_eq!(out.len(), 1, "SYN retransmitted");
    assert_eq!(
        tx.next_timer(),
        Some(SimTime::from_secs(3)),
        "RTO doubled to 2 s"
    );
    out.clear();
    let synack = Segment {
        seq: 0,
        ack: 1,
        flags: aqmlab_tcp::segment::SYN | ACK,
        rwnd: u32::MAX,
        ..Segment::default()
    };
    tx.on_segment(SimTime::from_millis(3100), &synack, &mut out);
    // RFC 5681 §3.1: one segment after a lost SYN; RFC 6298 §5.7: RTO = 3 s.
    assert_eq!(out.len(), 1);
    assert_eq!(tx.stats().cwnd_bytes, 1460);
    assert_eq!(tx.stats().rto, SimDuration::from_secs(3));
    assert_eq!(tx.stats().srtt, None);
}

#[test]
fn an_unanswered_syn_gives_up_after_syn_retries() {
    // Linux's default: 6 retransmissions with the RTO doubling from 1 s (capped at 60 s), then
    // the connection is abandoned when the last one times out.
    let cfg = TcpConfig::default();
    assert_eq!(cfg.syn_retries, 6);
    let mut tx = TcpSender::new(&cfg, Some(10_000));
    let mut out = Vec::new();
    tx.connect(SimTime::ZERO, &mut out);
    let mut expect = SimDuration::ZERO;
    let mut rto = cfg.initial_rto;
    for k in 0..=cfg.syn_retries {
        expect = expect + rto;
        rto = SimDuration::from_nanos((rto.as_nanos() * 2).min(cfg.max_rto.as_nanos()));
        let at = tx.next_timer().expect("the SYN timer is armed");
        assert_eq!(at, SimTime::ZERO + expect, "timeout {k}");
        out.clear();
        tx.on_timer(at, &mut out);
        if k < cfg.syn_retries {
            assert_eq!(out.len(), 1, "SYN retransmission {}", k + 1);
            assert!(!tx.is_aborted());
        }
    }
    // 1 + 2 + 4 + 8 + 16 + 32 + 60 s.
    assert_eq!(expect, SimDuration::from_secs(123));
    assert!(out.is_empty() && tx.is_aborted() && !tx.is_complete());
    assert_eq!(tx.stats().aborted_at, Some(SimTime::from_secs(123)));
    assert_eq!(tx.next_timer(), None, "nothing left to do");
}

// ----- the reply direction of a request/response connection ----------------------------------

#[test]
fn established_sender_starts_from_the_handshake_the_server_saw() {
    // Client → server: SYN, SYN-ACK, a 300-B request carrying the handshake ACK, each taking
    // d = 100 ms. The server measures SYN-ACK → request = 2d; a reply sender seeded with it has
    // SRTT = 2d and RTO = 3·2d = 600 ms (not the 1 s initial RTO), and is ECN-capable because
    // the handshake negotiated ECN.
    let cfg = TcpConfig {
        ecn: true,
        delayed_ack: false,
        ..TcpConfig::default()
    };
    let d = SimDuration::from_millis(100);
    let t = |k: u64| SimTime::ZERO + SimDuration::from_nanos(k * d.as_nanos());
    let mut client = TcpSender::new(&cfg, Some(300));
    let mut server = TcpReceiver::new(&cfg);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    client.connect(t(0), &mut a);
    server.on_segment(t(1), &a[0], &mut b);
    a.clear();
    client.on_segment(t(2), &b[0], &mut a);
    assert_eq!(a.len(), 1, "the request carries the handshake ACK");
    b.clear();
    server.on_segment(t(3), &a[0], &mut b);
    assert_eq!(server.delivered_bytes(), 300);
    let hs = server.handshake();
    assert_eq!(
        hs,
        Handshake {
            ecn: true,
            accecn: false,
            rtt: Some(SimDuration::from_millis(200)),
            retransmitted: false
        }
    );
    let mut reply = TcpSender::established(&cfg, Some(5000), hs);
    assert_eq!(reply.stats().srtt, Some(SimDuration::from_millis(200)));
    assert_eq!(reply.stats().rto, SimDuration::from_millis(600));
    let mut out = Vec::new();
    reply.connect(t(3), &mut out);
    // No SYN: 5000 B at once in the initial window (3 × 1460 + 620), all ECT.
    let lens: Vec<u32> = out.iter().map(|s| s.len).collect();
    assert_eq!(lens, [1460, 1460, 1460, 620]);
    assert!(out.iter().all(|s| s.ect && !s.has(SYN) && s.seq >= 1));
    assert!(reply.ecn_negotiated());
    assert_eq!(
        reply.next_timer(),
        Some(t(3) + SimDuration::from_millis(600))
    );
    // The client's receiver for the reply echoes a CE mark as ECE.
    let mut rx = TcpReceiver::established(&cfg, client.ecn_negotiated());
    let mut seg = out[0];
    seg.ce = true;
    let mut acks = Vec::new();
    rx.on_segment(t(4), &seg, &mut acks);
    assert!(acks[0].has(ECE) && acks[0].ack == 1461);
    for s in &out[1..] {
        rx.on_segment(t(4), s, &mut acks);
    }
    assert_eq!(rx.delivered_bytes(), 5000);
    let mut none = Vec::new();
    for ack in &acks {
        reply.on_segment(t(5), ack, &mut none);
    }
    assert!(reply.is_complete());
    assert_eq!(reply.stats().ecn_reductions, 1);

    // Without ECN negotiated the reply is not ECN-capable, whatever the configuration says.
    let mut plain = TcpSender::established(&cfg, Some(100), Handshake { ecn: false, ..hs });
    let mut out = Vec::new();
    plain.connect(t(3), &mut out);
    assert!(!out[0].ect && !plain.ecn_negotiated());
}

#[test]
fn established_sender_after_a_repeated_syn_ack_has_no_sample() {
    // A duplicate SYN (the client timed out) makes the server send a second SYN-ACK: no
    // Karn-valid sample, so the reply starts with RTO = 3 s and one segment (RFC 6298 §5.7,
    // RFC 5681 §3.1), as the connecting sender does after a lost SYN.
    let cfg = TcpConfig::default();
    let mut server = TcpReceiver::new(&cfg);
    let syn = Segment {
        seq: 0,
        flags: SYN,
        rwnd: u32::MAX,
        ..Segment::default()
    };
    let mut b = Vec::new();
    server.on_segment(SimTime::ZERO, &syn, &mut b);
    server.on_segment(SimTime::from_secs(1), &syn, &mut b);
    assert_eq!(b.len(), 2, "each SYN is answered");
    server.on_segment(SimTime::from_millis(1100), &data(1, 300), &mut b);
    let hs = server.handshake();
    assert_eq!((hs.rtt, hs.retransmitted), (None, true));
    let mut reply = TcpSender::established(&cfg, Some(10_000), hs);
    let mut out = Vec::new();
    reply.connect(SimTime::from_millis(1100), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(reply.stats().rto, SimDuration::from_secs(3));
    // With the handshake disabled there is nothing to measure: the initial RTO (1 s) applies.
    let cfg = TcpConfig {
        handshake: false,
        ..TcpConfig::default()
    };
    let mut server = TcpReceiver::new(&cfg);
    server.on_segment(SimTime::ZERO, &data(1, 300), &mut b);
    let hs = server.handshake();
    assert_eq!((hs.rtt, hs.retransmitted), (None, false));
    let reply = TcpSender::established(&cfg, Some(10_000), hs);
    assert_eq!(reply.stats().rto, SimDuration::from_secs(1));
}

#[test]
fn ack_now_sends_the_delayed_ack_at_once() {
    let cfg = TcpConfig::default();
    let mut rx = TcpReceiver::new(&TcpConfig {
        handshake: false,
        ..cfg
    });
    let mut out = Vec::new();
    rx.ack_now(&mut out);
    assert!(out.is_empty(), "nothing to acknowledge");
    rx.on_segment(SimTime::ZERO, &data(1, 300), &mut out);
    assert!(out.is_empty() && rx.next_timer().is_some(), "delayed");
    rx.ack_now(&mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, 301);
    assert_eq!(rx.next_timer(), None);
}

// ----- receiver ------------------------------------------------------------------------------

fn data(seq: u64, len: u32) -> Segment {
    Segment {
        seq,
        len,
        ack: 1,
        flags: ACK,
        ..Segment::default()
    }
}

#[test]
fn receiver_delayed_ack_every_second_segment_or_timeout() {
    let cfg = TcpConfig {
        mss: 1000,
        handshake: false,
        ..TcpConfig::default()
    };
    let mut rx = TcpReceiver::new(&cfg);
    let mut out = Vec::new();
    let ms = SimTime::from_millis;
    rx.on_segment(ms(0), &data(1, 1000), &mut out);
    assert!(out.is_empty());
    assert_eq!(rx.next_timer(), Some(ms(40)));
    rx.on_segment(ms(1), &data(1001, 1000), &mut out);
    assert_eq!(out.len(), 1, "ACK on the second full segment");
    assert_eq!(out[0].ack, 2001);
    assert_eq!(rx.next_timer(), None);
    out.clear();
    rx.on_segment(ms(2), &data(2001, 1000), &mut out);
    assert!(out.is_empty());
    assert_eq!(rx.next_timer(), Some(ms(42)));
    rx.on_timer(ms(41), &mut out);
    assert!(out.is_empty(), "early timer call is harmless");
    rx.on_timer(ms(42), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, 3001);
    assert_eq!(rx.next_timer(), None);

    let cfg_now = TcpConfig {
        delayed_ack: false,
        ..cfg
    };
    let mut rx = TcpReceiver::new(&cfg_now);
    out.clear();
    for i in 0..3 {
        rx.on_segment(ms(i), &data(1 + 1000 * i, 1000), &mut out);
    }
    assert_eq!(
        out.iter().map(|s| s.ack).collect::<Vec<_>>(),
        [1001, 2001, 3001]
    );
}

#[test]
fn receiver_out_of_order_sends_immediate_dupacks_with_sack_blocks() {
    let cfg = TcpConfig {
        mss: 1000,
        handshake: false,
        ..TcpConfig::default()
    };
    let mut rx = TcpReceiver::new(&cfg);
    let mut out = Vec::new();
    let t = SimTime::ZERO;
    let seg = |k: u64| data(1 + 1000 * k, 1000); // segment k covers [1 + 1000k, 1001 + 1000k)
    rx.on_segment(t, &seg(0), &mut out);
    rx.on_segment(t, &seg(1), &mut out);
    assert_eq!(out.len(), 1);
    out.clear();
    let mut step = |k: u64, ack: u64, blocks: &[(u64, u64)], out: &mut Vec<Segment>| {
        rx.on_segment(t, &seg(k), out);
        assert_eq!(out.len(), 1, "immediate ACK for segment {k}");
        assert_eq!(out[0].ack, ack, "cumulative ACK after segment {k}");
        assert_eq!(
            out[0].sack_blocks(),
            blocks,
            "SACK blocks after segment {k}"
        );
        out.clear();
    };
    step(3, 2001, &[(3001, 4001)], &mut out);
    step(5, 2001, &[(5001, 6001), (3001, 4001)], &mut out);
    step(4, 2001, &[(3001, 6001)], &mut out);
    step(7, 2001, &[(7001, 8001), (3001, 6001)], &mut out);
    step(
        9,
        2001,
        &[(9001, 10001), (7001, 8001), (3001, 6001)],
        &mut out,
    );
    step(
        11,
        2001,
        &[(11001, 12001), (9001, 10001), (7001, 8001)],
        &mut out,
    );
    // Gap fill: ACK at once; the remaining blocks, most recent first.
    step(
        2,
        6001,
        &[(11001, 12001), (9001, 10001), (7001, 8001)],
        &mut out,
    );
    step(6, 8001, &[(11001, 12001), (9001, 10001)], &mut out);
    step(8, 10001, &[(11001, 12001)], &mut out);
    step(10, 12001, &[], &mut out);
    // Duplicate segment: immediate ACK, nothing new.
    step(0, 12001, &[], &mut out);
    assert_eq!(rx.delivered_bytes(), 12_000);
}

#[test]
fn receiver_echoes_ece_until_cwr() {
    let cfg = TcpConfig {
        mss: 1000,
        handshake: false,
        ecn: true,
        delayed_ack: false,
        ..TcpConfig::default()
    };
    let mut rx = TcpReceiver::new(&cfg);
    let mut out = Vec::new();
    let t = SimTime::ZERO;
    let mut s = data(1, 1000);
    s.ect = true;
    rx.on_segment(t, &s, &mut out);
    s.seq = 1001;
    s.ce = true;
    rx.on_segment(t, &s, &mut out);
    s.seq = 2001;
    s.ce = false;
    rx.on_segment(t, &s, &mut out);
    s.seq = 3001;
    s.flags |= CWR;
    rx.on_segment(t, &s, &mut out);
    let ece: Vec<bool> = out.iter().map(|a| a.has(ECE)).collect();
    assert_eq!(ece, [false, true, true, false]);
}

// ----- loss recovery -------------------------------------------------------------------------

struct Episode {
    entered: Option<SimTime>,
    exited: Option<SimTime>,
}

/// A window-limited bulk flow (30 segments < BDP of 42, so no queue and a constant RTT) losing
/// segments `drops`; returns the fast-recovery episode boundaries.
fn recovery_run(cfg: TcpConfig, drops: Vec<u64>) -> (Net, Episode) {
    let mut spec = FlowSpec::bulk(TcpConfig {
        max_window_segments: Some(30),
        ..cfg
    });
    spec.drop_data = drops;
    let mut net = Net::new(link(10, 25, 1000), vec![spec]);
    let ep = Rc::new(RefCell::new(Episode {
        entered: None,
        exited: None,
    }));
    let ep2 = ep.clone();
    net.observer = Some(Box::new(move |now, _, tx: &TcpSender| {
        let mut e = ep2.borrow_mut();
        if tx.recovery() == Recovery::Fast && e.entered.is_none() {
            e.entered = Some(now);
        }
        if tx.recovery() == Recovery::None && e.entered.is_some() && e.exited.is_none() {
            e.exited = Some(now);
        }
    }));
    net.run_until(SimTime::from_secs(6));
    let e = ep.borrow();
    let episode = Episode {
        entered: e.entered,
        exited: e.exited,
    };
    (net, episode)
}

fn rtt_of(net: &Net) -> f64 {
    net.flows[0].tx.stats().min_rtt.unwrap().as_secs_f64()
}

#[test]
fn sack_repairs_three_losses_in_one_window_in_about_one_rtt() {
    let (net, ep) = recovery_run(TcpConfig::default(), vec![300, 305, 310]);
    let st = net.flows[0].tx.stats();
    assert_eq!(st.timeouts, 0);
    assert_eq!(st.fast_recoveries, 1);
    // The three losses, and RFC 6675's rescue retransmission (§4 rule 4) of the highest
    // unSACKed segment: the receive window leaves no new data to send.
    assert_eq!(st.retransmits, 4);
    let dur = (ep.exited.unwrap() - ep.entered.unwrap()).as_secs_f64();
    let rtts = dur / rtt_of(&net);
    eprintln!(
        "SACK recovery of 3 losses: {:.1} ms = {rtts:.2} RTT",
        dur * 1e3
    );
    assert!(rtts < 1.7, "SACK recovery took {rtts:.2} RTTs");
    assert!(rtts > 0.9);
}

#[test]
fn newreno_repairs_three_losses_one_rtt_each_without_timeout() {
    let cfg = TcpConfig {
        sack: false,
        ..TcpConfig::with_cc(CcKind::NewReno)
    };
    let (net, ep) = recovery_run(cfg, vec![300, 305, 310]);
    let st = net.flows[0].tx.stats();
    assert_eq!(st.timeouts, 0);
    assert_eq!(st.fast_recoveries, 1);
    assert_eq!(st.retransmits, 3);
    let dur = (ep.exited.unwrap() - ep.entered.unwrap()).as_secs_f64();
    let rtts = dur / rtt_of(&net);
    eprintln!(
        "NewReno recovery of 3 losses: {:.1} ms = {rtts:.2} RTT",
        dur * 1e3
    );
    assert!(
        (2.7..3.5).contains(&rtts),
        "NewReno recovery took {rtts:.2} RTTs"
    );
}

#[test]
fn classic_reno_halves_once_per_detected_loss() {
    // Classic Reno leaves recovery at the first partial ACK; the second loss of the window needs
    // a new fast retransmit (or a timeout): more than one window reduction for one window of loss.
    let cfg = TcpConfig {
        sack: false,
        ..TcpConfig::with_cc(CcKind::Reno)
    };
    let (net, _) = recovery_run(cfg, vec![300, 310]);
    let st = net.flows[0].tx.stats();
    assert!(st.fast_recoveries + st.timeouts >= 2, "{st:?}");
}

#[test]
fn rto_recovers_a_lost_retransmission() {
    // Segment 300 and its fast retransmission are both lost: only the timer can repair it.
    let mut spec = FlowSpec::bulk(TcpConfig {
        max_window_segments: Some(30),
        ..TcpConfig::default()
    });
    let seq = 1 + 300 * 1460;
    spec.drop_seq_tx = vec![(seq, 0), (seq, 1)];
    let mut net = Net::new(link(10, 25, 1000), vec![spec]);
    net.run_until(SimTime::from_secs(6));
    let st = net.flows[0].tx.stats();
    assert_eq!(net.flows[0].drops, 2);
    assert_eq!(st.fast_recoveries, 1, "{st:?}");
    assert_eq!(st.timeouts, 1, "{st:?}");
    assert!(
        st.bytes_acked > 1_000_000,
        "flow continues after the timeout"
    );

    // A whole window is lost (a 30-segment blackout): no duplicate ACKs, so the timer fires and
    // the window is resent go-back-N style in slow start from one segment — about log2(30) ≈ 5
    // round trips, not 30.
    let mut spec = FlowSpec::bulk(TcpConfig {
        max_window_segments: Some(30),
        sack: false,
        ..TcpConfig::default()
    });
    spec.drop_data = (300..330).collect();
    let mut net = Net::new(link(10, 25, 1000), vec![spec]);
    let span = Rc::new(RefCell::new((None::<SimTime>, None::<SimTime>)));
    let s2 = span.clone();
    net.observer = Some(Box::new(move |now, _, tx: &TcpSender| {
        let mut s = s2.borrow_mut();
        if tx.recovery() == Recovery::Timeout && s.0.is_none() {
            s.0 = Some(now);
        }
        if tx.recovery() == Recovery::None && s.0.is_some() && s.1.is_none() {
            s.1 = Some(now);
        }
    }));
    net.run_until(SimTime::from_secs(6));
    let st = net.flows[0].tx.stats();
    assert_eq!(st.timeouts, 1, "{st:?}");
    let (a, b) = *span.borrow();
    let rtts = (b.unwrap() - a.unwrap()).as_secs_f64() / rtt_of(&net);
    eprintln!(
        "go-back-N after RTO: {rtts:.1} RTTs, {} retransmits",
        st.retransmits
    );
    assert!((3.0..9.0).contains(&rtts), "{rtts} RTTs");
    assert_eq!(st.retransmits, 30);
}

// ----- ECN -----------------------------------------------------------------------------------

#[test]
fn ecn_one_reduction_per_rtt_and_no_retransmission() {
    let cfg = TcpConfig {
        ecn: true,
        max_window_segments: Some(30),
        ..TcpConfig::default()
    };
    let mut spec = FlowSpec::bulk(cfg);
    // Four marks within one window, then one more many RTTs later.
    spec.mark_data = vec![300, 301, 305, 320, 600];
    let mut net = Net::new(link(10, 25, 1000), vec![spec]);
    let cw = Rc::new(RefCell::new(Vec::<(SimTime, u64)>::new()));
    let cw2 = cw.clone();
    net.observer = Some(Box::new(move |now, _, tx: &TcpSender| {
        cw2.borrow_mut().push((now, tx.stats().cwnd_bytes));
    }));
    net.run_until(SimTime::from_secs(3));
    assert!(net.flows[0].tx.ecn_negotiated());
    let st = net.flows[0].tx.stats().clone();
    assert_eq!(net.flows[0].marks, 5);
    assert_eq!(st.retransmits, 0);
    assert_eq!(st.timeouts, 0);
    assert_eq!(st.fast_recoveries, 0);
    assert_eq!(
        st.ecn_reductions, 2,
        "marks 300..320 share one window, 600 is later"
    );
    // The reductions halve the window (flight 30 segments → 15).
    let trace = cw.borrow();
    let drops: Vec<(u64, u64)> = trace
        .windows(2)
        .filter(|w| w[1].1 < w[0].1)
        .map(|w| (w[0].1, w[1].1))
        .collect();
    assert_eq!(drops.len(), 2, "{drops:?}");
    for (before, after) in drops {
        assert!(after <= before / 2 + 1460, "{before} -> {after}");
    }
}

#[test]
fn without_ecn_segments_are_not_ect() {
    let cfg = TcpConfig {
        handshake: false,
        ..TcpConfig::default()
    };
    let mut tx = TcpSender::new(&cfg, None);
    let mut out = Vec::new();
    tx.connect(SimTime::ZERO, &mut out);
    assert_eq!(out.len(), 10, "initial window of 10 segments");
    assert!(out.iter().all(|s| !s.ect && s.len == 1460));
    let cfg = TcpConfig { ecn: true, ..cfg };
    let mut tx = TcpSender::new(&cfg, None);
    out.clear();
    tx.connect(SimTime::ZERO, &mut out);
    assert!(out.iter().all(|s| s.ect));
}
