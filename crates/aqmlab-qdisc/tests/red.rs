//! RED against its specification: the EWMA and its idle-time decay (FJ93 §6), the drop
//! probability curve (FJ93 §4, gentle RED), drop spacing with and without `wait` (FJ93 §7, ns-2
//! `wait_`), byte mode, Adaptive RED's max_p rule (Floyd, Gummadi, Shenker 2001) and ECN.
//!
//! Most tests use `w_q=1`, which makes `avg` equal to the queue an arrival sees, and hold the
//! queue constant (an accepted arrival is followed by one dequeue), so `p_b` is fixed.

use aqmlab_core::math::pow;
use aqmlab_core::{Ecn, FlowId, Packet, SimTime};
use aqmlab_qdisc::red::{Red, RedConfig};
use aqmlab_qdisc::{
    registry, DropReason, MarkReason, Params, Qdisc, QdiscEvent, QueueDisc, Stage, UniformSource,
};
use proptest::prelude::*;
use std::sync::Arc;

fn build(items: &[&str], u: UniformSource) -> Qdisc<Red> {
    let p = Params::new(
        "red",
        aqmlab_qdisc::red::PARAMS,
        &Params::split_pairs(items).unwrap(),
    )
    .unwrap();
    Qdisc::new(Red::new(RedConfig::from_params(&p).unwrap(), u))
}

fn list(draws: Vec<f64>) -> UniformSource {
    UniformSource::List {
        draws: Arc::from(draws),
        next: 0,
    }
}

fn state(q: &Qdisc<Red>, name: &str) -> f64 {
    let mut out = None;
    q.inner().visit_state(&mut |n, v| {
        if n == name {
            out = Some(v);
        }
    });
    out.unwrap_or_else(|| panic!("no state variable {name}"))
}

fn ms(t: u64) -> SimTime {
    SimTime::from_millis(t)
}

fn us(t: u64) -> SimTime {
    SimTime::from_nanos(t * 1000)
}

struct Driver {
    q: Qdisc<Red>,
    next_id: u64,
}

/// What happened to one arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Queued,
    Marked,
    Dropped(DropReason),
}

impl Driver {
    fn new(items: &[&str], u: UniformSource) -> Self {
        Driver {
            q: build(items, u),
            next_id: 0,
        }
    }
    fn arrive(&mut self, t: SimTime, size: u32, ecn: Ecn) -> Fate {
        let mut p = Packet::new(self.next_id, size, FlowId(0));
        p.ecn = ecn;
        self.next_id += 1;
        self.q.enqueue(t, p);
        let mut fate = Fate::Queued;
        for e in self.q.events() {
            match *e {
                QdiscEvent::Dropped { pkt, stage, reason } if pkt.id == p.id => {
                    assert_eq!(stage, Stage::Enqueue);
                    fate = Fate::Dropped(reason);
                }
                QdiscEvent::Marked { pkt, reason } if pkt.id == p.id => {
                    assert_eq!(reason, MarkReason::RedEarly);
                    assert_eq!(pkt.ecn, Ecn::Ce);
                    fate = Fate::Marked;
                }
                _ => panic!("unexpected event {e:?}"),
            }
        }
        fate
    }
    /// One arrival to a queue held constant: an accepted arrival is followed by a dequeue.
    fn arrive_held(&mut self, t: SimTime, size: u32, ecn: Ecn) -> Fate {
        let f = self.arrive(t, size, ecn);
        if !matches!(f, Fate::Dropped(_)) {
            assert!(self.q.dequeue(t).is_some());
        }
        f
    }
    /// Arrivals at `t` until `n` packets are queued.
    fn fill(&mut self, t: SimTime, n: u32, size: u32) {
        let mut guard = 0;
        while self.q.backlog().packets < n {
            self.arrive(t, size, Ecn::NotEct);
            guard += 1;
            assert!(guard < 100_000, "cannot fill to {n}");
        }
    }
    fn st(&self, name: &str) -> f64 {
        state(&self.q, name)
    }
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300)
}

// ---------------------------------------------------------------------------------------------
// The average queue (FJ93 §6)

#[test]
fn avg_follows_the_ewma_to_a_constant_queue() {
    let w: f64 = 0.002;
    let mut d = Driver::new(
        &["min_th=5000", "max_th=6000", "w_q=0.002", "limit=1000p"],
        UniformSource::seeded(1),
    );
    // From avg 0, 10 arrivals at t=0 see queues 0, 1, …, 9.
    d.fill(ms(0), 10, 1500);
    let a0: f64 = (0..10)
        .map(|i| w * pow(1.0 - w, (9 - i) as f64) * i as f64)
        .sum();
    assert!(close(d.st("avg"), a0, 1e-12), "{} vs {a0}", d.st("avg"));
    // Then n arrivals that all see q = 10: avg_n = q − (q − a0)(1 − w)^n.
    for n in 1..=3000u64 {
        d.arrive_held(ms(n), 1500, Ecn::NotEct);
        let want = 10.0 - (10.0 - a0) * pow(1.0 - w, (n as i32) as f64);
        assert!(
            close(d.st("avg"), want, 1e-11),
            "n={n}: {} vs {want}",
            d.st("avg")
        );
    }
    // Time constant −1/ln(1−w) ≈ 500 arrivals: 63 % of the step covered by then (FJ93 §6).
    let a500 = 10.0 - (10.0 - a0) * pow(1.0 - w, (500) as f64);
    assert!(((a500 - a0) / (10.0 - a0) - 0.632).abs() < 0.001);
    assert_eq!(d.q.stats().dropped().packets, 0);
}

#[test]
fn avg_from_zero_is_q_times_one_minus_decay() {
    // Byte mode with a single 1-byte packet kept queued: after it, every arrival sees q = 1 byte
    // (and nothing is ever dropped: q ≤ 1 disables early drops).
    let w: f64 = 0.01;
    let mut d = Driver::new(
        &[
            "mode=byte",
            "min_th=0.5",
            "max_th=100",
            "w_q=0.01",
            "mean_pkt_size=1",
        ],
        UniformSource::seeded(1),
    );
    d.arrive(ms(0), 1, Ecn::NotEct); // sees 0: avg stays 0
    assert_eq!(d.st("avg"), 0.0);
    for n in 1..=1000i32 {
        d.arrive_held(ms(n as u64), 1, Ecn::NotEct);
        let want = 1.0 * (1.0 - pow(1.0 - w, (n) as f64));
        assert!(close(d.st("avg"), want, 1e-12), "n={n}");
    }
    assert_eq!(d.q.stats().dropped().packets, 0);
}

#[test]
fn avg_decays_over_idle_time_as_m_empty_arrivals() {
    // 10 Mb/s, 1500-byte mean packets: the link sends 833.3 packets/s, so 12 ms idle = 10
    // packet times and 12.5 ms idle = 10.42 → 10 (ns-2/ns-3 truncate m).
    let w: f64 = 0.002;
    for (idle_us, m) in [
        (12_000u64, 10i32),
        (12_500, 10),
        (1_000, 0),
        (10_000_000, 8333),
    ] {
        let mut d = Driver::new(
            &[
                "min_th=5000",
                "max_th=6000",
                "w_q=0.002",
                "mean_pkt_size=1500",
                "bandwidth=10Mbps",
            ],
            UniformSource::seeded(1),
        );
        d.fill(ms(0), 20, 1500);
        for n in 1..=200 {
            d.arrive_held(ms(n), 1500, Ecn::NotEct);
        }
        let a1 = d.st("avg");
        assert!(a1 > 5.0);
        // Drain: dequeues do not touch avg.
        for _ in 0..d.q.backlog().packets {
            assert!(d.q.dequeue(ms(300)).is_some());
        }
        assert_eq!(d.st("avg"), a1);
        assert_eq!(d.st("idle"), 0.0);
        // The first empty dequeue starts the idle period; later polls do not move it.
        let t0 = 400_000u64;
        assert!(d.q.dequeue(us(t0)).is_none());
        assert_eq!(d.st("idle"), 1.0);
        assert!(d.q.dequeue(us(t0 + idle_us / 2)).is_none());
        // An arrival to the empty queue after the idle time: avg·(1−w)^m for the idle time and
        // one more factor for the arrival itself (it sees q = 0).
        d.arrive(us(t0 + idle_us), 1500, Ecn::NotEct);
        let want = a1 * pow(1.0 - w, (m + 1) as f64);
        assert!(
            close(d.st("avg"), want, 1e-12),
            "idle {idle_us} us: {} vs {want}",
            d.st("avg")
        );
        assert_eq!(d.st("idle"), 0.0);
    }
}

// ---------------------------------------------------------------------------------------------
// The drop probability curve (FJ93 §4; gentle: Floyd 2000)

/// p_b seen by an arrival to a queue of `q` packets (w_q = 1, so avg = q), or None if the
/// arrival was a forced drop. (`wait` lets the fill pass p_b ≥ 0.5, where FJ93's
/// p_b/(1 − count·p_b) is ≥ 1 from count 1 on and every arrival is dropped.)
fn p_b_at(extra: &[&str], q: u32) -> Option<f64> {
    let mut items = vec!["w_q=1", "min_th=4", "max_th=20", "max_p=0.1", "wait=true"];
    items.extend_from_slice(extra);
    let mut d = Driver::new(&items, UniformSource::seeded(7));
    d.fill(ms(0), q, 1000);
    // Two probes: the first after the fill may only restart count (avg crossing min_th).
    let mut fate = Fate::Queued;
    for t in 1..=2 {
        fate = d.arrive_held(ms(t), 1000, Ecn::NotEct);
        assert_eq!(d.st("avg"), q as f64);
    }
    if fate == Fate::Dropped(DropReason::RedForced) {
        return None;
    }
    Some(d.st("p_b"))
}

#[test]
fn drop_probability_is_linear_between_the_thresholds() {
    let (min_th, max_th, max_p) = (4.0, 20.0, 0.1);
    for q in 0..=19u32 {
        let avg = q as f64;
        let want = if avg < min_th {
            0.0
        } else {
            max_p * (avg - min_th) / (max_th - min_th)
        };
        for gentle in ["gentle=true", "gentle=false"] {
            let got = p_b_at(&[gentle], q).unwrap();
            assert!(
                (got - want).abs() <= 1e-15,
                "q={q} {gentle}: {got} vs {want}"
            );
        }
    }
    // Non-gentle: forced drops from max_th on.
    assert_eq!(p_b_at(&["gentle=false"], 20), None);
}

#[test]
fn gentle_probability_rises_from_max_p_to_one_up_to_twice_max_th() {
    let (max_th, max_p) = (20.0, 0.1);
    for q in 20..=39u32 {
        let avg = q as f64;
        let want = max_p + (1.0 - max_p) * (avg - max_th) / max_th;
        let got = p_b_at(&["gentle=true"], q).unwrap();
        assert!((got - want).abs() <= 1e-14, "q={q}: {got} vs {want}");
    }
    // avg = 1.5·max_th: halfway between max_p and 1.
    let mid = p_b_at(&["gentle=true"], 30).unwrap();
    assert!((mid - 0.55).abs() <= 1e-15);
    // Forced drops from 2·max_th on.
    assert_eq!(p_b_at(&["gentle=true"], 40), None);
}

#[test]
fn no_draws_and_no_drops_below_min_th() {
    // A list source counts the draws: none while avg < min_th, none for the arrival that
    // crosses min_th, one per later arrival in the random-drop region, none for forced drops.
    let mut d = Driver::new(
        &[
            "w_q=1",
            "min_th=5",
            "max_th=15",
            "max_p=0.1",
            "gentle=false",
        ],
        list(vec![0.999_999; 100]),
    );
    d.fill(ms(0), 4, 1000);
    for t in 1..=5000 {
        assert_eq!(d.arrive_held(ms(t), 1000, Ecn::NotEct), Fate::Queued);
    }
    assert_eq!(d.q.inner().uniforms().used(), 0);
    assert_eq!(d.st("p_a"), 0.0);
    d.arrive(ms(6000), 1000, Ecn::NotEct); // sees 4: still below
    d.arrive(ms(6000), 1000, Ecn::NotEct); // sees 5 = min_th: restarts count, no draw
    assert_eq!(d.q.inner().uniforms().used(), 0);
    assert_eq!(d.st("count"), 1.0);
    d.arrive(ms(6000), 1000, Ecn::NotEct); // sees 6: one draw
    assert_eq!(d.q.inner().uniforms().used(), 1);
    d.fill(ms(6000), 15, 1000);
    let used = d.q.inner().uniforms().used();
    assert_eq!(
        d.arrive(ms(6000), 1000, Ecn::NotEct),
        Fate::Dropped(DropReason::RedForced)
    );
    assert_eq!(d.q.inner().uniforms().used(), used);
}

// ---------------------------------------------------------------------------------------------
// Spacing of drops (FJ93 §7; ns-2 wait_)

/// Inter-drop gaps (arrivals since the previous drop, the dropped one included) with the queue
/// held at 10 packets: p_b = 0.1·(10 − 5)/(15 − 5) = 0.05, 1/p_b = 20.
fn gaps(wait: bool, u: UniformSource, drops: usize) -> Vec<u64> {
    let w = if wait { "wait=true" } else { "wait=false" };
    let mut d = Driver::new(&["w_q=1", "min_th=5", "max_th=15", "max_p=0.1", w], u);
    d.fill(ms(0), 10, 1000);
    let mut out = Vec::with_capacity(drops);
    let mut since = 0u64;
    let mut t = 0;
    while out.len() < drops {
        t += 1;
        since += 1;
        assert!(since < 1000);
        if let Fate::Dropped(r) = d.arrive_held(SimTime::from_nanos(t), 1000, Ecn::NotEct) {
            assert_eq!(r, DropReason::RedEarly);
            assert_eq!(d.st("p_b"), 0.05);
            out.push(since);
            since = 0;
        }
    }
    out.remove(0); // the first gap started during the fill
    out
}

fn histogram(g: &[u64], lo: u64, hi: u64) -> Vec<usize> {
    (lo..=hi)
        .map(|k| g.iter().filter(|&&x| x == k).count())
        .collect()
}

fn assert_uniform(g: &[u64], lo: u64, hi: u64) {
    assert_eq!(*g.iter().min().unwrap(), lo);
    assert_eq!(*g.iter().max().unwrap(), hi);
    let expect = g.len() as f64 / (hi - lo + 1) as f64;
    for (i, c) in histogram(g, lo, hi).iter().enumerate() {
        assert!(
            (*c as f64 - expect).abs() < 0.12 * expect,
            "gap {}: {c} vs {expect}",
            lo + i as u64
        );
    }
    let mean = g.iter().sum::<u64>() as f64 / g.len() as f64;
    assert!(
        (mean - (lo + hi) as f64 / 2.0).abs() < 0.15,
        "mean gap {mean}"
    );
}

#[test]
fn without_wait_gaps_are_uniform_and_at_most_1_over_pb() {
    // p_a = p_b/(1 − count·p_b), count = arrivals since the last drop including this one
    // (FJ93 Fig. 2, ns-2): P(gap = n) = p_b/(1 − p_b) for n = 1 … 1/p_b − 1 = 19, and the
    // 19th arrival is dropped for sure (count·p_b = 0.95, p_a = 1).
    let g = gaps(false, UniformSource::seeded(42), 20_000);
    assert_uniform(&g, 1, 19);
}

#[test]
fn with_wait_gaps_are_between_1_over_pb_and_2_over_pb() {
    // ns-2 wait_: p_a = 0 while count·p_b < 1, then p_b/(2 − count·p_b): P(gap = n) = p_b for
    // n = 1/p_b … 2/p_b − 1 = 20 … 39.
    let g = gaps(true, UniformSource::seeded(42), 20_000);
    assert_uniform(&g, 20, 39);
}

#[test]
fn p_a_follows_the_count_formulas_exactly() {
    let pb: f64 = 0.1 * (10.0 - 5.0) / (15.0 - 5.0);
    for wait in [false, true] {
        let pa = |c: u64| -> f64 {
            let cp = c as f64 * pb;
            let p = if wait {
                if cp < 1.0 {
                    0.0
                } else if cp < 2.0 {
                    pb / (2.0 - cp)
                } else {
                    1.0
                }
            } else if cp < 1.0 {
                pb / (1.0 - cp)
            } else {
                1.0
            };
            p.min(1.0)
        };
        let above = |p: f64| {
            if p == 0.0 {
                1e-12
            } else {
                (p * (1.0 + 1e-9)).min(0.999_999_999)
            }
        };
        // The drop must come exactly at count k: draws just above p_a(c) before it, just below
        // p_a(k) at it. Two cycles: from count 6 (after the fill) and from count 1 (after a
        // drop). This pins p_a(count) to 1e-9 for every count.
        let ks: Vec<u64> = if wait {
            (20..=39).collect()
        } else {
            (6..=19).collect()
        };
        for k in ks {
            let mut draws = vec![0.999_999; 4]; // the fill's arrivals that see 6..9 packets
            for first in [6, 1] {
                for c in first..k {
                    draws.push(above(pa(c)));
                }
                draws.push(pa(k) * (1.0 - 1e-9));
            }
            let w = if wait { "wait=true" } else { "wait=false" };
            let mut d = Driver::new(
                &["w_q=1", "min_th=5", "max_th=15", "max_p=0.1", w],
                list(draws),
            );
            d.fill(ms(0), 10, 1000);
            assert_eq!(d.st("count"), 5.0);
            let mut t = 0;
            for first in [6, 1] {
                for c in first..=k {
                    t += 1;
                    let f = d.arrive_held(ms(t), 1000, Ecn::NotEct);
                    assert!(close(d.st("p_a"), pa(c), 1e-12), "wait={wait} c={c}");
                    if c < k {
                        assert_eq!(f, Fate::Queued, "wait={wait} k={k} c={c}");
                        assert_eq!(d.st("count"), c as f64);
                    } else {
                        assert_eq!(f, Fate::Dropped(DropReason::RedEarly), "wait={wait} k={k}");
                        assert_eq!(d.st("count"), 0.0);
                    }
                }
            }
            assert!(!d.q.inner().uniforms().exhausted());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Byte mode (FJ93 §4)

#[test]
fn byte_mode_scales_the_probability_by_size_over_mean() {
    // Queue 10 × 1000 B, thresholds 5000/15000 B, w_q = 1: p_b = 0.1·5000/10000 = 0.05.
    // The fill leaves count_bytes = 5000 (reset to the crossing arrival's 1000 B at 5000 B);
    // the probe of size s makes it 5000 + s, counted in mean-sized packets (integer division).
    for s in [100u32, 500, 1000, 1500, 4000] {
        for (u, dropped) in [(0.999_999, false), (1e-9, true)] {
            let mut d = Driver::new(
                &[
                    "mode=byte",
                    "w_q=1",
                    "min_th=5000",
                    "max_th=15000",
                    "max_p=0.1",
                    "mean_pkt_size=1000",
                    "wait=false",
                    "gentle=false",
                ],
                list(vec![0.999_999, 0.999_999, 0.999_999, 0.999_999, u]),
            );
            d.fill(ms(0), 10, 1000);
            assert_eq!(d.q.backlog().bytes, 10_000);
            let f = d.arrive(ms(1), s, Ecn::NotEct);
            let c = ((5000 + s) / 1000) as f64;
            let want = 0.05 / (1.0 - c * 0.05) * s as f64 / 1000.0;
            assert!(
                close(d.st("p_a"), want, 1e-12),
                "s={s}: {} vs {want}",
                d.st("p_a")
            );
            assert_eq!(d.st("p_b"), 0.05);
            assert_eq!(f == Fate::Dropped(DropReason::RedEarly), dropped, "s={s}");
        }
    }
    // In packet mode the size does not matter.
    let mut d = Driver::new(
        &["w_q=1", "min_th=5", "max_th=15", "max_p=0.1", "wait=false"],
        list(vec![0.999_999; 10]),
    );
    d.fill(ms(0), 10, 1000);
    d.arrive(ms(1), 100, Ecn::NotEct);
    let small = d.st("p_a");
    d.q.dequeue(ms(1));
    d.arrive(ms(2), 9000, Ecn::NotEct);
    // count went from c to c + 1: p_a(c+1) = p_b/(1 − (c+1)p_b), independent of size.
    let c = d.st("count");
    assert!(close(d.st("p_a"), 0.05 / (1.0 - c * 0.05), 1e-12));
    assert!(close(small, 0.05 / (1.0 - (c - 1.0) * 0.05), 1e-12));
}

// ---------------------------------------------------------------------------------------------
// Adaptive RED (Floyd, Gummadi, Shenker 2001, §4)

fn ared(max_p: &str, extra: &[&str]) -> Driver {
    let mut items = vec![
        "adaptive=true",
        "w_q=1",
        "min_th=5",
        "max_th=15",
        "ecn=true",
        "gentle=true",
        "bandwidth=10Mbps",
    ];
    items.push(max_p);
    items.extend_from_slice(extra);
    Driver::new(&items, UniformSource::seeded(3))
}

/// Holds the queue at `q` ECT packets (early signals become marks, so the queue stays put) with
/// one arrival per ms until `until_ms`, and checks max_p after every arrival against the rule
/// "at most once per interval (0.5 s), on the first arrival more than 0.5 s after the last
/// change: +min(0.01, max_p/4) if avg > max_th − 0.4·(max_th − min_th) and max_p < top,
/// ×0.9 if avg < min_th + 0.4·(max_th − min_th) and max_p > bottom".
fn run_ared(
    d: &mut Driver,
    q: u32,
    from_ms: u64,
    until_ms: u64,
    mut want: f64,
    mut last: u64,
) -> (f64, u64) {
    let (top, bottom) = (0.5, 0.008); // bottom = min(0.01, 80000 / 10^7)
    while d.q.backlog().packets < q {
        d.arrive(ms(from_ms), 1000, Ecn::Ect0);
    }
    for t in from_ms + 1..=until_ms {
        let f = d.arrive_held(ms(t), 1000, Ecn::Ect0);
        assert_ne!(f, Fate::Dropped(DropReason::RedEarly));
        if t * 1_000_000 > last + 500_000_000 {
            let avg = q as f64;
            if avg > 11.0 && want < top {
                want += (0.01f64).min(want / 4.0);
                last = t * 1_000_000;
            } else if avg < 9.0 && want > bottom {
                want *= 0.9;
                last = t * 1_000_000;
            }
        }
        assert_eq!(d.st("max_p"), want, "t={t} ms");
    }
    (want, last)
}

#[test]
fn adaptive_red_raises_max_p_additively_above_the_target_band() {
    let mut d = ared("max_p=0.02", &[]);
    let (end, _) = run_ared(&mut d, 14, 0, 40_000, 0.02, 0);
    // Spot values: unchanged at 500 ms, +0.005 (= max_p/4) at 501 ms, +0.00625 at 1002 ms.
    let mut d2 = ared("max_p=0.02", &[]);
    run_ared(&mut d2, 14, 0, 500, 0.02, 0);
    assert_eq!(d2.st("max_p"), 0.02);
    d2.arrive_held(ms(501), 1000, Ecn::Ect0);
    assert_eq!(d2.st("max_p"), 0.025);
    for t in 502..=1002 {
        d2.arrive_held(ms(t), 1000, Ecn::Ect0);
    }
    assert_eq!(d2.st("max_p"), 0.025 + 0.00625);
    // Stops once it reaches top (0.5): 0.49… + 0.01 ≥ 0.5.
    assert!((0.5..0.51).contains(&end), "{end}");
    assert!(d.q.stats().marked().packets > 0);
    assert_eq!(d.q.stats().dropped().packets, 0);
}

#[test]
fn adaptive_red_lowers_max_p_multiplicatively_below_the_band_and_holds_inside() {
    let mut d = ared("max_p=0.1", &[]);
    let (end, _) = run_ared(&mut d, 6, 0, 20_000, 0.1, 0);
    assert!(end <= 0.008 && end > 0.008 * 0.9, "{end}");
    // Inside the band [9, 11] nothing changes.
    let mut d = ared("max_p=0.1", &[]);
    let (end, _) = run_ared(&mut d, 10, 0, 5_000, 0.1, 0);
    assert_eq!(end, 0.1);
}

#[test]
fn adaptive_gentle_segment_starts_at_the_current_max_p() {
    let mut d = ared("max_p=0.02", &[]);
    let (mp, last) = run_ared(&mut d, 14, 0, 3_000, 0.02, 0);
    assert!(mp > 0.04);
    // Right after an update (no further update for 0.5 s), raise the queue to 1.5·max_th.
    let t = last / 1_000_000 + 1;
    while d.q.backlog().packets < 22 {
        d.arrive(ms(t), 1000, Ecn::Ect0);
    }
    d.arrive(ms(t), 1000, Ecn::Ect0); // sees 22
    d.arrive(ms(t), 1000, Ecn::Ect0); // sees 23
    assert_eq!(d.st("avg"), 23.0);
    let want = mp + (1.0 - mp) * (23.0 - 15.0) / 15.0;
    assert!(close(d.st("p_b"), want, 1e-12), "{} vs {want}", d.st("p_b"));
    assert_eq!(d.st("max_p"), mp);
}

// ---------------------------------------------------------------------------------------------
// ECN (RFC 3168 §7; ns-2 setbit_, ns-3 UseEcn)

/// Fates of 3000 arrivals to a queue held at `q` packets, all with codepoint `ecn`.
fn fates(q: u32, ecn_on: bool, ecn: Ecn) -> Vec<Fate> {
    let e = if ecn_on { "ecn=true" } else { "ecn=false" };
    let mut d = Driver::new(
        &[
            "w_q=1",
            "min_th=5",
            "max_th=15",
            "max_p=0.1",
            "gentle=true",
            e,
        ],
        UniformSource::seeded(11),
    );
    d.fill(ms(0), q, 1000);
    (1..=3000)
        .map(|t| d.arrive_held(ms(t), 1000, ecn))
        .collect()
}

#[test]
fn ecn_marks_ect_packets_and_drops_the_others() {
    let not_ect = fates(10, true, Ecn::NotEct);
    let ect0 = fates(10, true, Ecn::Ect0);
    let ect1 = fates(10, true, Ecn::Ect1);
    let no_ecn = fates(10, false, Ecn::Ect0);
    let early = |v: &[Fate], f: Fate| -> Vec<usize> {
        v.iter()
            .enumerate()
            .filter(|(_, x)| **x == f)
            .map(|(i, _)| i)
            .collect()
    };
    let dropped = early(&not_ect, Fate::Dropped(DropReason::RedEarly));
    assert!(dropped.len() > 50, "{}", dropped.len());
    // Same draws, same avg: the same arrivals are signalled, by a mark instead of a drop.
    assert_eq!(early(&ect0, Fate::Marked), dropped);
    assert_eq!(early(&ect1, Fate::Marked), dropped);
    assert!(early(&ect0, Fate::Dropped(DropReason::RedEarly)).is_empty());
    // Without the option, ECT packets are dropped like any other.
    assert_eq!(early(&no_ecn, Fate::Dropped(DropReason::RedEarly)), dropped);
    assert!(early(&no_ecn, Fate::Marked).is_empty());
    // A CE packet already carries the signal: queued unchanged, not counted as a mark.
    let ce = fates(10, true, Ecn::Ce);
    assert!(ce.iter().all(|f| *f == Fate::Queued));
}

#[test]
fn forced_drops_drop_ect_packets_too() {
    // Gentle: forced at avg ≥ 2·max_th = 30.
    let f = fates(30, true, Ecn::Ect0);
    assert!(f.iter().all(|x| *x == Fate::Dropped(DropReason::RedForced)));
}

// ---------------------------------------------------------------------------------------------
// count across forced and overlimit drops; limit

#[test]
fn forced_and_overlimit_drops_restart_count_unless_ns1_compat() {
    for (compat, want) in [("ns1_compat=false", 0.0), ("ns1_compat=true", 11.0)] {
        let mut d = Driver::new(
            &[
                "w_q=1",
                "min_th=5",
                "max_th=15",
                "max_p=0.1",
                "gentle=false",
                compat,
            ],
            list(vec![0.999_999; 100]),
        );
        // Arrivals seeing 5..14 packets: count 1..10, no drop (p_a ≤ 0.47 < the draws).
        d.fill(ms(0), 15, 1000);
        assert_eq!(d.st("count"), 10.0);
        assert_eq!(
            d.arrive(ms(1), 1000, Ecn::NotEct),
            Fate::Dropped(DropReason::RedForced)
        );
        assert_eq!(d.st("count"), want, "{compat}");
    }
    // Overlimit: a 3-packet limit below min_th.
    for (compat, want) in [("ns1_compat=false", 0.0), ("ns1_compat=true", 4.0)] {
        let mut d = Driver::new(
            &["limit=3p", "w_q=1", "min_th=5", "max_th=15", compat],
            UniformSource::seeded(1),
        );
        for _ in 0..3 {
            assert_eq!(d.arrive(ms(0), 1000, Ecn::NotEct), Fate::Queued);
        }
        assert_eq!(
            d.arrive(ms(0), 1000, Ecn::NotEct),
            Fate::Dropped(DropReason::Overlimit)
        );
        assert_eq!(d.st("count"), want, "{compat}");
    }
}

#[test]
fn byte_limit_is_honoured() {
    let mut d = Driver::new(&["limit=2500B", "min_th=100"], UniformSource::seeded(1));
    assert_eq!(d.arrive(ms(0), 1500, Ecn::NotEct), Fate::Queued);
    assert_eq!(
        d.arrive(ms(0), 1500, Ecn::NotEct),
        Fate::Dropped(DropReason::Overlimit)
    );
    assert_eq!(d.arrive(ms(0), 1000, Ecn::NotEct), Fate::Queued);
    assert_eq!(d.q.backlog().bytes, 2500);
}

// ---------------------------------------------------------------------------------------------
// Robustness: any parameter values either build or give an error; nothing panics.

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn arbitrary_parameters_and_traffic_never_panic(
        picks in proptest::collection::vec((0usize..18, 0usize..12), 0..8),
        pkts in proptest::collection::vec((0u64..3_000_000, 1u32..20_000, 0u8..4, any::<bool>()), 1..300),
        seed in any::<u64>(),
    ) {
        const VALUES: &[&str] = &[
            "auto", "0", "-1", "1", "0.5", "1e300", "nan", "5", "15", "1500B", "true", "x",
        ];
        let names: Vec<&str> = aqmlab_qdisc::red::PARAMS.iter().map(|p| p.name).collect();
        let mut given: Vec<(String, String)> = Vec::new();
        for (n, v) in picks {
            let name = names[n % names.len()];
            if given.iter().any(|(g, _)| g == name) {
                continue;
            }
            let mut value = VALUES[v].to_string();
            if v == 11 {
                value = match name {
                    "limit" => "2p".into(),
                    "bandwidth" => "1kbps".into(),
                    "mode" => "byte".into(),
                    "interval" | "delay" | "target_delay" => "1ns".into(),
                    _ => value,
                };
            }
            given.push((name.to_string(), value));
        }
        if let Ok(any) = registry::build("red", &given, UniformSource::seeded(seed)) {
            let mut q = Qdisc::new(any);
            let mut t = 0u64;
            for (i, (dt, size, ecn, deq)) in pkts.into_iter().enumerate() {
                t += dt;
                let mut p = Packet::new(i as u64, size, FlowId(0));
                p.ecn = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce][ecn as usize];
                q.enqueue(SimTime::from_nanos(t), p);
                if deq {
                    q.dequeue(SimTime::from_nanos(t));
                }
                prop_assert!(q.conserved());
            }
            let mut avg = f64::NAN;
            q.inner().visit_state(&mut |n, v| if n == "avg" { avg = v });
            prop_assert!(avg.is_finite() && avg >= 0.0);
        }
    }
}

/// `aqmlab replay --list` warns that `ns1_compat` has the opposite sense of ns-3's `Ns1Compat`
/// (ours true = ns-3's default false), since the shared name misleads ns-3 comparisons.
#[test]
fn list_says_ns1_compat_is_the_opposite_of_ns3_ns1compat() {
    let text = aqmlab_qdisc::registry::list_text();
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("ns1_compat "))
        .expect("ns1_compat is listed");
    assert!(line.contains("NOT ns-3's Ns1Compat"), "{line}");
    assert!(
        line.contains("true here behaves like ns-3's default Ns1Compat=false"),
        "{line}"
    );
}
