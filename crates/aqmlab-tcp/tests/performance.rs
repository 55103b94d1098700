//! Whole-flow behaviour compared with theory: utilization with a one-BDP DropTail buffer, the
//! Mathis et al. throughput formula under random loss, fairness of two flows, CUBIC's window
//! curve and Reno-friendly region (RFC 9438) and Vegas's standing queue for several (α, β).

mod harness;

use aqmlab_core::{Bitrate, SimDuration, SimTime};
use aqmlab_tcp::cc::Cubic;
use aqmlab_tcp::{
    AckEvent, CcKind, Congestion, CongestionControl, CubicParams, Recovery, TcpConfig, TcpSender,
};
use harness::{jain, state_value, Bernoulli, FlowSpec, LinkSpec, Net};
use std::cell::RefCell;
use std::rc::Rc;

const MSS: u64 = 1460;
const PKT: u64 = MSS + 40;

/// Bottleneck R with one-way delay d (RTT = 2d) and a buffer of one BDP in packets.
fn bdp_link(mbps: u64, one_way_ms: u64) -> LinkSpec {
    let bdp_bytes = mbps * 1_000_000 / 8 * (2 * one_way_ms) / 1000;
    LinkSpec {
        rate: Bitrate::from_mbps(mbps),
        delay: SimDuration::from_millis(one_way_ms),
        buffer_pkts: (bdp_bytes / PKT) as usize,
        loss: None,
    }
}

fn utilization(cfg: TcpConfig) -> f64 {
    let mut net = Net::new(bdp_link(10, 25), vec![FlowSpec::bulk(cfg)]);
    net.run_until(SimTime::from_secs(5));
    let b0 = net.link_bytes;
    net.run_until(SimTime::from_secs(60));
    let st = net.flows[0].tx.stats();
    assert!(
        st.fast_recoveries > 5,
        "the buffer overflowed repeatedly: {st:?}"
    );
    (net.link_bytes - b0) as f64 * 8.0 / (10e6 * 55.0)
}

#[test]
fn reno_fills_a_one_bdp_droptail_link() {
    let cfg = TcpConfig {
        sack: false,
        ..TcpConfig::with_cc(CcKind::Reno)
    };
    let u = utilization(cfg);
    eprintln!("Reno (no SACK) utilization {:.2} %", u * 100.0);
    assert!(u >= 0.95, "utilization {u}");
}

#[test]
fn newreno_fills_a_one_bdp_droptail_link() {
    let u = utilization(TcpConfig::with_cc(CcKind::NewReno));
    eprintln!("NewReno+SACK utilization {:.2} %", u * 100.0);
    assert!(u >= 0.95, "utilization {u}");
    let cfg = TcpConfig {
        sack: false,
        ..TcpConfig::with_cc(CcKind::NewReno)
    };
    let u = utilization(cfg);
    eprintln!("NewReno (no SACK) utilization {:.2} %", u * 100.0);
    assert!(u >= 0.95, "utilization {u}");
}

/// Mathis, Semke, Mahdavi & Ott (1997): `BW = MSS/RTT · C/√p`, `C = √(3/(2b))` where `b` is the
/// number of packets per window increment. Our Reno counts bytes in congestion avoidance
/// (RFC 3465), so the window grows by one MSS per RTT even with delayed ACKs: `b = 1`,
/// `C = √(3/2) ≈ 1.22`. (With ns-2's per-ACK `1/cwnd` increase and delayed ACKs, `b = 2` and
/// `C ≈ 0.87`.) The link is 100 Mb/s with RTT 50 ms (BDP ≈ 416 packets) and a huge buffer, so
/// windows never fill the pipe: every loss is random, the RTT is the base RTT, and throughput is
/// set by `p` alone. The run length gives roughly 250 loss events per point.
#[test]
fn newreno_throughput_follows_mathis_under_random_loss() {
    let rtt = 0.05;
    let mut report = Vec::new();
    for (i, &p) in [0.0005f64, 0.001, 0.005, 0.01].iter().enumerate() {
        let link = LinkSpec {
            rate: Bitrate::from_mbps(100),
            delay: SimDuration::from_millis(25),
            buffer_pkts: 10_000,
            loss: Some(Bernoulli {
                p,
                seed: 17 + i as u64,
            }),
        };
        let mathis = MSS as f64 * 8.0 / rtt * (1.5 / p).sqrt(); // bit/s of payload
        let pkts_per_s = mathis / (MSS as f64 * 8.0);
        let secs = (250.0 / p / pkts_per_s).clamp(20.0, 300.0);
        let warm = 5.0;
        let mut net = Net::new(link, vec![FlowSpec::bulk(TcpConfig::default())]);
        net.run_until(SimTime::ZERO + SimDuration::from_secs_f64(warm));
        let d0 = net.flows[0].rx.delivered_bytes();
        net.run_until(SimTime::ZERO + SimDuration::from_secs_f64(warm + secs));
        let got = (net.flows[0].rx.delivered_bytes() - d0) as f64 * 8.0 / secs;
        let st = net.flows[0].tx.stats();
        assert_eq!(net.queue_drops, 0, "no queue losses");
        let ratio = got / mathis;
        report.push(format!(
            "p={p}: {:.2} Mb/s vs Mathis {:.2} Mb/s, ratio {ratio:.3} ({} fast recoveries, {} RTOs, {secs:.0} s)",
            got / 1e6,
            mathis / 1e6,
            st.fast_recoveries,
            st.timeouts
        ));
        assert!((0.8..=1.2).contains(&ratio), "{}", report.join("\n"));
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn two_equal_rtt_flows_share_fairly() {
    let mut a = FlowSpec::bulk(TcpConfig::default());
    a.start = SimTime::ZERO;
    let mut b = FlowSpec::bulk(TcpConfig::default());
    b.start = SimTime::from_millis(500);
    let mut net = Net::new(bdp_link(10, 25), vec![a, b]);
    net.run_until(SimTime::from_secs(10));
    let d0: Vec<u64> = net.flows.iter().map(|f| f.rx.delivered_bytes()).collect();
    net.run_until(SimTime::from_secs(70));
    let x: Vec<f64> = net
        .flows
        .iter()
        .zip(&d0)
        .map(|(f, d)| (f.rx.delivered_bytes() - d) as f64 * 8.0 / 60.0)
        .collect();
    let j = jain(&x);
    eprintln!(
        "two NewReno flows: {:.2} / {:.2} Mb/s, Jain {j:.4}",
        x[0] / 1e6,
        x[1] / 1e6
    );
    assert!(j >= 0.95, "Jain index {j}: {x:?}");
    assert!(x.iter().sum::<f64>() > 0.9 * 10e6 * MSS as f64 / PKT as f64);
}

/// One CUBIC flow on an uncongested path (100 Mb/s, RTT 100 ms, BDP ≈ 830 packets) loses exactly
/// one segment during slow start. Afterwards the window must follow
/// `W(t) = C·(t − K)³ + W_max`, `K = ∛(W_max·(1 − β)/C)` (RFC 9438 eq. 1–2), with `W_max` the
/// window when the loss was detected and `t` measured from the end of fast recovery (the start
/// of the congestion-avoidance epoch). The implementation aims each ACK at `W(t + RTT)`, so the
/// window runs at most one RTT ahead of the curve; we allow 2 % of `W_max`.
#[test]
fn cubic_window_follows_the_cubic_curve_after_a_loss() {
    let cfg = TcpConfig::with_cc(CcKind::Cubic);
    let mut spec = FlowSpec::bulk(cfg);
    spec.drop_data = vec![200];
    let link = LinkSpec {
        rate: Bitrate::from_mbps(100),
        delay: SimDuration::from_millis(50),
        buffer_pkts: 10_000,
        loss: None,
    };
    let mut net = Net::new(link, vec![spec]);
    #[derive(Default)]
    struct Obs {
        prev_cwnd: f64,
        prev_rec: bool,
        w_max: Option<f64>,
        epoch: Option<SimTime>,
        trace: Vec<(SimTime, f64)>,
    }
    let obs = Rc::new(RefCell::new(Obs::default()));
    let o2 = obs.clone();
    net.observer = Some(Box::new(move |now, _, tx: &TcpSender| {
        let mut o = o2.borrow_mut();
        let cwnd = tx.stats().cwnd_bytes as f64 / MSS as f64;
        let rec = tx.recovery() == Recovery::Fast;
        if rec && !o.prev_rec && o.w_max.is_none() {
            o.w_max = Some(o.prev_cwnd);
        }
        if !rec && o.prev_rec && o.epoch.is_none() {
            o.epoch = Some(now);
        }
        if o.epoch.is_some() {
            o.trace.push((now, cwnd));
        }
        o.prev_cwnd = cwnd;
        o.prev_rec = rec;
    }));
    net.run_until(SimTime::from_secs(14));
    let st = net.flows[0].tx.stats();
    assert_eq!((st.fast_recoveries, st.timeouts), (1, 0), "{st:?}");
    let o = obs.borrow();
    let w_max = o.w_max.expect("recovery happened");
    let epoch = o.epoch.expect("recovery ended");
    assert!(
        (state_value(&net.flows[0].tx, "cubic_w_max") - w_max).abs() < 1e-9,
        "W_max is the window at detection"
    );
    let (c, beta) = (0.4, 0.7);
    let k = aqmlab_core::math::cbrt(w_max * (1.0 - beta) / c);
    let w = |t: f64| c * (t - k) * (t - k) * (t - k) + w_max;
    let mut worst: f64 = 0.0;
    let mut lines = Vec::new();
    for t in [0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0] {
        let at = epoch + SimDuration::from_secs_f64(t);
        let got = o
            .trace
            .iter()
            .take_while(|(ts, _)| *ts <= at)
            .last()
            .expect("trace covers t")
            .1;
        let err = (got - w(t)) / w_max;
        worst = worst.max(err.abs());
        lines.push(format!(
            "t={t:>4}: cwnd {got:7.2} W(t) {:7.2} err {:+.2} %",
            w(t),
            err * 100.0
        ));
    }
    eprintln!(
        "CUBIC W_max {w_max:.1} K {k:.3} s, worst error {:.2} % of W_max\n{}",
        worst * 100.0,
        lines.join("\n")
    );
    assert!(worst < 0.02, "{}", lines.join("\n"));
}

/// One Vegas flow (per-packet ACKs, as ns-2's `TCPSink`) on an uncongested path: 10 Mb/s, RTT
/// 50 ms, 1000 packets of buffer. Returns the time-average queue (packets) and the link
/// utilization over 20–40 s, after asserting that no loss happened.
fn vegas_steady_queue(alpha: u32, beta: u32) -> (f64, f64) {
    let link = LinkSpec {
        rate: Bitrate::from_mbps(10),
        delay: SimDuration::from_millis(25),
        buffer_pkts: 1000,
        loss: None,
    };
    let mut cfg = TcpConfig {
        delayed_ack: false,
        ..TcpConfig::with_cc(CcKind::Vegas)
    };
    cfg.cc.vegas.alpha = alpha;
    cfg.cc.vegas.beta = beta;
    let mut net = Net::new(link, vec![FlowSpec::bulk(cfg)]);
    net.run_until(SimTime::from_secs(20));
    net.reset_queue_stats();
    let b0 = net.link_bytes;
    net.run_until(SimTime::from_secs(40));
    let q = net.mean_queue();
    let util = (net.link_bytes - b0) as f64 * 8.0 / (10e6 * 20.0);
    let st = net.flows[0].tx.stats();
    eprintln!(
        "Vegas alpha {alpha} beta {beta}: mean queue {q:.2} packets (max {}), utilization {:.1} %, \
         cwnd {:.1} segments, delta {}",
        net.q_max,
        util * 100.0,
        st.cwnd_bytes as f64 / MSS as f64,
        state_value(&net.flows[0].tx, "vegas_delta_pkts")
    );
    assert_eq!(st.fast_recoveries + st.timeouts, 0, "no losses");
    (q, util)
}

/// Vegas on an uncongested path (big buffer): at steady state the time-average queue must lie
/// between α = 1 and β = 3 packets, and the link must stay busy.
#[test]
fn vegas_holds_between_alpha_and_beta_packets_queued() {
    let (q, util) = vegas_steady_queue(1, 3);
    assert!((1.0..=3.0).contains(&q), "mean queue {q}");
    assert!(util > 0.95, "utilization {util}");
}

/// Brakmo & Peterson (1995) §3.2: Vegas estimates the packets it keeps queued in the network as
/// `δ = (Expected − Actual)·BaseRTT = W·(RTT − BaseRTT)/RTT`, grows the window while `δ < α`,
/// shrinks it while `δ > β`, and so holds between α and β packets queued. On a single
/// uncongested bottleneck `RTT − BaseRTT` is the queueing delay `q·tx` and `W = BDP + q`, so
/// `δ = q`: the time-average queue must lie in `[α, β]` for any thresholds (measured: α + 1.33
/// for all three pairs). With the default (1, 3) a doubled estimate still lands in range (a
/// mean queue of 1.2–1.3 packets), so the thresholds are raised: with δ doubled Vegas holds
/// `2q` in `[α, β]`, about α/2 + 1 packets (measured 2.4–3.3 for (4, 6), 5.3–6.3 for (8, 12)),
/// below α.
#[test]
fn vegas_queue_follows_raised_alpha_and_beta() {
    for (alpha, beta) in [(4, 6), (8, 12)] {
        let (q, util) = vegas_steady_queue(alpha, beta);
        assert!(
            (f64::from(alpha)..=f64::from(beta)).contains(&q),
            "alpha {alpha} beta {beta}: mean queue {q}"
        );
        assert!(util > 0.95, "alpha {alpha} beta {beta}: utilization {util}");
    }
}

/// One CUBIC flow, 20 Mb/s, RTT 100 ms (BDP ≈ 167 packets), `buffer` packets of tail drop.
fn cubic_slow_start(hystart: bool, buffer: usize, secs: u64) -> Net {
    let mut cfg = TcpConfig::with_cc(CcKind::Cubic);
    cfg.cc.hystart = hystart;
    let link = LinkSpec {
        rate: Bitrate::from_mbps(20),
        delay: SimDuration::from_millis(50),
        buffer_pkts: buffer,
        loss: None,
    };
    let mut net = Net::new(link, vec![FlowSpec::bulk(cfg)]);
    net.run_until(SimTime::from_secs(secs));
    net
}

/// HyStart++ (RFC 9406) ends the initial slow start on the queueing delay the flow itself
/// causes: Conservative Slow Start, then congestion avoidance with `ssthresh = cwnd`, without a
/// loss, where plain slow start doubles the window until the buffer overflows (12 BDPs of
/// buffer, 8 s).
#[test]
fn hystart_leaves_slow_start_before_the_buffer_overflows() {
    let plain = cubic_slow_start(false, 2000, 8);
    let hs = cubic_slow_start(true, 2000, 8);
    let tx = &hs.flows[0].tx;
    let ssthresh_pkts = state_value(tx, "ssthresh") / MSS as f64;
    assert!(plain.queue_drops > 0, "slow start overshoots");
    assert_eq!((hs.queue_drops, tx.stats().retransmits), (0, 0));
    assert_eq!(state_value(tx, "hystart_phase"), 0.0, "CSS is over");
    // The exit needs a standing queue (a delay rise of at least 12.5 ms), and left through CSS
    // without a loss: ssthresh was set to cwnd, above the BDP and below what the path holds.
    assert!(
        ssthresh_pkts > 167.0 && ssthresh_pkts < 167.0 + 2000.0,
        "{ssthresh_pkts}"
    );
    assert!(hs.q_max < 2000 && plain.q_max == 2000);
}

/// With a shallower buffer (4 BDPs) the CSS rounds still outgrow it, but HyStart++ loses a small
/// fraction of what plain slow start loses.
#[test]
fn hystart_cuts_slow_start_losses_with_a_shallower_buffer() {
    let plain = cubic_slow_start(false, 700, 3);
    let hs = cubic_slow_start(true, 700, 3);
    assert!(
        hs.queue_drops * 4 < plain.queue_drops,
        "{} vs {}",
        hs.queue_drops,
        plain.queue_drops
    );
}

/// Drives a bare [`Cubic`] controller (MSS 1000 B) after one loss at `W_max = cwnd_prior = 100`
/// segments (so `cwnd_epoch = β·W_max = 70`): `rounds` round trips of `srtt`, each acknowledging
/// the window in use at its start (byte exact, one ACK per segment, spread evenly over the round,
/// always window-limited). Returns the window in segments at the start of each round (element 0:
/// right after the reduction).
fn cubic_rounds_after_loss(reno_friendly: bool, srtt: SimDuration, rounds: usize) -> Vec<f64> {
    let mss = 1000;
    let p = CubicParams {
        reno_friendly,
        ..CubicParams::default()
    };
    let mut c = Cubic::new(p, mss, 100 * mss);
    c.on_congestion(SimTime::ZERO, 100 * mss, Congestion::Loss);
    c.on_recovery_exit(SimTime::ZERO);
    let mut now = SimTime::ZERO;
    let mut snd_una = 0;
    let mut trace = vec![c.cwnd() as f64 / mss as f64];
    for _ in 0..rounds {
        let window = c.cwnd();
        let acks = window.div_ceil(mss);
        let mut left = window;
        for i in 0..acks {
            let acked = left.min(mss);
            left -= acked;
            snd_una += acked;
            c.on_ack(&AckEvent {
                now: now + SimDuration::from_nanos(srtt.as_nanos() * i / acks),
                acked_bytes: acked,
                rtt: Some(srtt),
                srtt: Some(srtt),
                snd_una,
                snd_nxt: snd_una + window,
                in_flight: window,
                cwnd_limited: true,
                mss,
            });
        }
        now += srtt;
        trace.push(c.cwnd() as f64 / mss as f64);
    }
    trace
}

/// RFC 9438 §4.3 (Reno-friendly region). After a loss at `W_max = cwnd_prior = 100` segments
/// CUBIC restarts from `cwnd_epoch = β·W_max = 70` with `K = ∛(W_max·(1 − β)/C) = 4.22 s`; at
/// t = 0 the curve rises `3·C·K² = 21.3` segments/s, i.e. 0.21 segment per RTT with a 10 ms RTT.
/// The AIMD estimate `W_est` starts at `cwnd_epoch` and gains `α_cubic·segments_acked/cwnd`
/// per ACK, `α_cubic = 3(1 − β)/(1 + β) = 0.529` while `W_est < cwnd_prior`, then 1: about α
/// and then 1 segment per RTT. That beats the curve (`W_cubic(0.57 s) ≈ 80.6`), so "cwnd SHOULD
/// be set to W_est" and the window must grow
///
/// * α_cubic per RTT from 70 until it reaches `cwnd_prior` = 100, i.e. after ⌈30/α⌉ = 57 RTTs,
/// * then 1 segment per RTT.
///
/// Tolerance: a round acknowledges the `w` segments in use at its start while the divisor
/// `cwnd` grows from `w` to `w + α` during it, so the per-RTT gain is in `[α·w/(w + α), α]`,
/// within 0.8 % of α for `w ≥ 70` (and of 1 for `w ≥ 140`); we allow 1 %, which also puts the
/// crossing at round 57 or 58. With the Reno-friendly region switched off the same ACKs must
/// follow the curve instead (`W_cubic(n·RTT)` within half a segment), far below `W_est`.
#[test]
fn cubic_follows_the_reno_friendly_estimate_on_a_short_rtt() {
    let srtt = SimDuration::from_millis(10);
    let (c, beta) = (0.4, 0.7);
    let alpha = 3.0 * (1.0 - beta) / (1.0 + beta);
    let on = cubic_rounds_after_loss(true, srtt, 200);
    let off = cubic_rounds_after_loss(false, srtt, 200);

    let slope = |tr: &[f64], a: usize, b: usize| (tr[b] - tr[a]) / (b - a) as f64;
    let slope_a = slope(&on, 0, 50);
    let slope_b = slope(&on, 100, 200);
    let crossing = on.iter().position(|&w| w >= 100.0);
    eprintln!(
        "CUBIC Reno-friendly, RTT 10 ms: {slope_a:.4} segments/RTT below cwnd_prior \
         (alpha_cubic {alpha:.4}), {slope_b:.4} above; cwnd_prior reached after {crossing:?} RTTs; \
         cwnd at 0.57 s {:.2} (reno_friendly off: {:.2})",
        on[57], off[57]
    );
    assert_eq!(on[0], 70.0, "cwnd_epoch = beta * W_max");
    assert!(
        (0.99 * alpha..=alpha + 1e-9).contains(&slope_a),
        "W_est grows alpha_cubic per RTT below cwnd_prior: {slope_a}"
    );
    assert!(
        matches!(crossing, Some(57..=58)),
        "cwnd_prior reached after {crossing:?} RTTs"
    );
    assert!(
        (0.99..=1.0 + 1e-9).contains(&slope_b),
        "W_est grows 1 per RTT above cwnd_prior: {slope_b}"
    );

    // Without §4.3 the window follows W_cubic(t) = C·(t − K)³ + W_max, much more slowly.
    let k = aqmlab_core::math::cbrt(100.0 * (1.0 - beta) / c);
    let w_cubic = |t: f64| c * (t - k) * (t - k) * (t - k) + 100.0;
    for n in (0..=200).step_by(10) {
        let t = n as f64 * srtt.as_secs_f64();
        assert!(
            (off[n] - w_cubic(t)).abs() < 0.5,
            "reno_friendly off, round {n}: cwnd {} vs W_cubic {}",
            off[n],
            w_cubic(t)
        );
    }
    assert!(slope(&off, 0, 50) < 0.5 * alpha);
    assert!(off[57] < on[57] - 15.0);
}
