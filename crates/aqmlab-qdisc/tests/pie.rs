//! PIE (RFC 8033) against its specification with hand-computed values, and against ns-3 3.37's
//! decisions packet by packet.

mod common;
use aqmlab_core::{Ecn, FlowId, Packet, SimDuration, SimTime};
use aqmlab_qdisc::pie::{Pie, PieConfig, PARAMS};
use aqmlab_qdisc::{
    DropReason, MarkReason, Params, Qdisc, QdiscEvent, QueueDisc, Stage, UniformSource,
};
use common::*;
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::sync::Arc;

fn cfg(items: &[&str]) -> PieConfig {
    let pairs = Params::split_pairs(items).unwrap();
    PieConfig::from_params(&Params::new("pie", PARAMS, &pairs).unwrap()).unwrap()
}

fn cfg_err(items: &[&str]) -> String {
    let pairs = Params::split_pairs(items).unwrap();
    Params::new("pie", PARAMS, &pairs)
        .and_then(|p| PieConfig::from_params(&p))
        .unwrap_err()
        .to_string()
}

/// A source whose every draw is `u`.
fn constant(u: f64) -> UniformSource {
    UniformSource::List {
        draws: Arc::from(vec![u; 200_000]),
        next: 0,
    }
}

fn pie(items: &[&str], u: UniformSource) -> Qdisc<Pie> {
    Qdisc::new(Pie::new(cfg(items), u))
}

fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}

fn pkt(id: u64) -> Packet {
    Packet::new(id, 1000, FlowId(0))
}

fn ect(id: u64, ecn: Ecn) -> Packet {
    let mut p = pkt(id);
    p.ecn = ecn;
    p
}

/// `x` ms in seconds, converted as the discipline converts nanoseconds.
fn s(x_ms: u64) -> f64 {
    (x_ms * 1_000_000) as f64 / 1e9
}

fn state(q: &Qdisc<Pie>, name: &str) -> f64 {
    let mut v = f64::NAN;
    q.inner().visit_state(&mut |n, x| {
        if n == name {
            v = x
        }
    });
    v
}

#[track_caller]
fn assert_close(a: f64, b: f64) {
    assert!(
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300),
        "{a:e} != {b:e} (expected)"
    );
}

// RFC 8033 §4.2, written out for the tests: alpha 0.125, beta 1.25, target 15 ms.
const ALPHA: f64 = 0.125;
const BETA: f64 = 1.25;

/// The auto-tuning table of RFC 8033 §4.2.
fn divisor(drop_prob: f64) -> f64 {
    match drop_prob {
        d if d < 0.000001 => 2048.0,
        d if d < 0.00001 => 512.0,
        d if d < 0.0001 => 128.0,
        d if d < 0.001 => 32.0,
        d if d < 0.01 => 8.0,
        d if d < 0.1 => 2.0,
        _ => 1.0,
    }
}

/// 1000 packets queued at t = 0 and one dequeued every 15 ms: the update due at 15·j ms sees the
/// sojourn of the packet that left at 15·j ms, i.e. a queueing delay of exactly 15·j ms. No
/// arrivals after t = 0, so there is no random draw at all.
#[test]
fn drop_prob_rises_by_the_update_formula_through_every_auto_tuning_regime() {
    for cap in [true, false] {
        let cap_param = format!("cap_drop_adjustment={cap}");
        let mut q = pie(
            &["limit=100000p", "burst_allowance=0ms", &cap_param],
            constant(0.5),
        );
        for id in 0..1000 {
            q.enqueue(SimTime::ZERO, pkt(id));
        }
        q.dequeue(ms(15));
        assert_eq!(
            q.inner().drop_prob(),
            0.0,
            "the update at 15 ms has not run"
        );
        q.dequeue(ms(30));
        // Update at 15 ms: qdelay 15 ms, qdelay_old 0:
        // p = 0.125·(0.015 − 0.015) + 1.25·(0.015 − 0) = 0.01875; drop_prob 0 < 1e-6 → /2048.
        assert_close(q.inner().drop_prob(), 9.1552734375e-6);
        q.dequeue(ms(45));
        // Update at 30 ms: p = 0.125·0.015 + 1.25·0.015 = 0.020625; drop_prob in [1e-6, 1e-5) → /512.
        assert_close(q.inner().drop_prob(), 9.1552734375e-6 + 0.020625 / 512.0);

        let mut dp = q.inner().drop_prob();
        // The two literal updates above used the rows /2048 and /512.
        let mut regimes = BTreeSet::from([2048, 512]);
        let mut capped = 0;
        let mut k = 4;
        while dp < 1.0 {
            assert!(k < 200, "drop_prob never reached 1");
            q.dequeue(ms(15 * k));
            // The update at 15·(k−1) ms: qdelay 15·(k−1) ms, qdelay_old 15·(k−2) ms.
            let (qd, old) = (s(15 * (k - 1)), s(15 * (k - 2)));
            let mut p = ALPHA * (qd - s(15)) + BETA * (qd - old);
            regimes.insert(divisor(dp) as u32);
            p /= divisor(dp);
            if cap && dp >= 0.1 && p > 0.02 {
                p = 0.02; // RFC 8033 §5.5
                capped += 1;
            }
            let expected = (dp + p).min(1.0);
            assert_close(q.inner().drop_prob(), expected);
            assert!(expected > dp, "drop_prob must rise while qdelay > target");
            if cap && dp >= 0.1 && expected < 1.0 {
                assert_close(expected - dp, 0.02);
            }
            dp = expected;
            k += 1;
        }
        assert_eq!(dp, 1.0, "clamped at 1");
        assert_eq!(
            regimes.into_iter().collect::<Vec<_>>(),
            [1, 2, 8, 32, 128, 512, 2048],
            "every row of the table was used"
        );
        // With the cap, drop_prob climbs the last 0.9 by exactly 2 % per update.
        if cap {
            // 0.1 → 1: 45 capped steps of 0.02 (the last one clamped at 1).
            assert_eq!((k, capped), (60, 45));
        } else {
            // Uncapped, the full PI step (0.125·(qdelay − target) + 0.01875 > 0.03) gets there
            // in about half the updates.
            assert_eq!((k, capped), (31, 0));
        }
        assert_eq!(q.inner().uniforms().used(), 0, "no arrival, no draw");
    }
}

/// Arrivals every 1 ms and departures every 2 ms from t = 0: the delay exceeds target within
/// 20 ms, and every draw says "drop" (u = 0).
fn overload_from_zero(q: &mut Qdisc<Pie>, from_ms: u64, to_ms: u64, first_id: u64) -> Vec<u64> {
    let mut drops = Vec::new();
    for t in from_ms..=to_ms {
        if t % 2 == 0 && t > from_ms {
            q.dequeue(ms(t));
        }
        q.enqueue(ms(t), pkt(first_id + t - from_ms));
        for e in q.events() {
            match *e {
                QdiscEvent::Dropped {
                    stage: Stage::Enqueue,
                    reason: DropReason::PieEarly,
                    ..
                } => drops.push(t),
                ref other => panic!("unexpected {other:?}"),
            }
        }
    }
    drops
}

#[test]
fn no_random_drop_within_the_burst_allowance() {
    for variant in ["ns3", "rfc"] {
        let v = format!("variant={variant}");
        let mut q = pie(&["limit=100000p", &v], constant(0.0));
        let drops = overload_from_zero(&mut q, 0, 150, 0);
        assert!(drops.is_empty(), "{variant}: {drops:?}");
        assert_eq!(q.inner().uniforms().used(), 0, "{variant}: no draw at all");
        assert!(
            state(&q, "qdelay_s") > 0.07,
            "the delay is far above target"
        );
        // The update due at 150 ms uses up the allowance; the next arrival is tested and dropped.
        let drops = overload_from_zero(&mut q, 151, 151, 151);
        assert_eq!(drops, [151], "{variant}");
        assert_eq!(q.inner().burst_allowance(), SimDuration::ZERO);
    }
    // A longer allowance protects longer: 300 ms → first drop at 301 ms.
    let mut q = pie(&["limit=100000p", "burst_allowance=300ms"], constant(0.0));
    let drops = overload_from_zero(&mut q, 0, 400, 0);
    assert_eq!(drops.first(), Some(&301));
}

#[test]
fn rfc_burst_allowance_is_restored_once_the_queue_has_calmed_down() {
    let mut q = pie(&["limit=100000p", "variant=rfc"], constant(0.0));
    let drops = overload_from_zero(&mut q, 0, 300, 0);
    assert_eq!(drops.first(), Some(&151));
    // Drain at 300 ms; the queue stays empty (dequeues find nothing) while drop_prob decays.
    while q.dequeue(ms(300)).is_some() {}
    let mut t = 300;
    while q.inner().drop_prob() > 0.0 {
        t += 15;
        assert!(t < 60_000, "drop_prob never decayed to 0");
        assert!(q.dequeue(ms(t) + SimDuration::from_nanos(1)).is_none());
    }
    assert_eq!(q.inner().burst_allowance(), SimDuration::ZERO);
    assert!(q.inner().qdelay() == SimDuration::ZERO);
    // RFC 8033 §4.4: drop_prob 0 and both delays below target/2 → the next arrival restores
    // the full allowance, and a new burst is protected for 150 ms again.
    let start = t + 1;
    let used = q.inner().uniforms().used();
    q.enqueue(ms(start), pkt(10_000));
    assert_eq!(q.inner().burst_allowance(), SimDuration::from_millis(150));
    let drops = overload_from_zero(&mut q, start + 1, start + 140, 20_000);
    assert!(drops.is_empty(), "{drops:?}");
    assert_eq!(q.inner().uniforms().used(), used);
}

/// Overloads from t = 0 to 300 ms, drains, and steps the updates (empty dequeues just after each
/// update instant) until ns-3's burst machine reaches IN_BURST; returns that update's time.
fn ns3_calm_after_burst(q: &mut Qdisc<Pie>) -> u64 {
    overload_from_zero(q, 0, 300, 0);
    while q.dequeue(ms(300)).is_some() {}
    assert_eq!(state(q, "burst_state"), 1.0, "IN_BURST_PROTECTING");
    let mut t = 300;
    while state(q, "burst_state") != 2.0 {
        t += 15;
        assert!(t < 60_000, "never calm");
        assert!(q.dequeue(ms(t) + SimDuration::from_nanos(1)).is_none());
    }
    t
}

#[test]
fn ns3_grants_the_allowance_again_only_after_1_5_s_of_calm() {
    let mut q = pie(&["limit=100000p"], constant(0.0));
    let calm = ns3_calm_after_burst(&mut q);
    // The update at `calm` saw drop_prob 0, both delays below target/2 and no allowance left.
    assert_eq!(q.inner().drop_prob(), 0.0);
    assert_eq!(q.inner().burst_allowance(), SimDuration::ZERO);
    // An arrival now gets no allowance (the RFC variant would grant 150 ms here).
    q.enqueue(ms(calm + 1), pkt(50_000));
    assert_eq!(q.inner().burst_allowance(), SimDuration::ZERO);
    assert!(q.dequeue(ms(calm + 1)).is_some());
    // ns-3 leaves IN_BURST after more than BURST_RESET_TIMEOUT / t_update = 100 calm updates.
    for i in 1..=101 {
        let t = calm + 15 * i;
        assert!(q.dequeue(ms(t) + SimDuration::from_nanos(1)).is_none());
        let expect = if i <= 100 { 2.0 } else { 0.0 };
        assert_eq!(state(&q, "burst_state"), expect, "update {i}");
    }
    let t = calm + 15 * 101 + 1;
    q.enqueue(ms(t), pkt(50_001));
    assert_eq!(q.inner().burst_allowance(), SimDuration::from_millis(150));
    assert_eq!(state(&q, "burst_state"), 1.0);
}

/// 1000 packets at t = 0, one dequeued every 15 ms until drop_prob exceeds `min_dp`; returns the
/// time of the last dequeue (arrivals at that time see a constant drop_prob).
fn ramp(q: &mut Qdisc<Pie>, min_dp: f64) -> u64 {
    for id in 0..1000 {
        q.enqueue(SimTime::ZERO, pkt(id));
    }
    let mut k = 1;
    loop {
        q.dequeue(ms(15 * k));
        if q.inner().drop_prob() > min_dp {
            return 15 * k;
        }
        k += 1;
        assert!(k < 200);
    }
}

#[test]
fn derandomization_drops_at_8_5_and_never_below_0_85() {
    for u in [0.999, 0.0] {
        let mut q = pie(
            &["limit=100000p", "burst_allowance=0ms", "derandomize=true"],
            constant(u),
        );
        let t = ramp(&mut q, 0.03);
        let dp = q.inner().drop_prob();
        assert!(dp < 0.2 && state(&q, "qdelay_old_s") >= 0.0075);
        let (mut accu, mut draws, mut drops) = (0.0, 0, Vec::new());
        for i in 0..1000u64 {
            q.enqueue(ms(t), pkt(10_000 + i));
            let dropped = !q.events().is_empty();
            accu += dp;
            let expect = if accu < 0.85 {
                false
            } else if accu >= 8.5 {
                true
            } else {
                draws += 1;
                u <= dp
            };
            assert_eq!(dropped, expect, "u={u} arrival {i} accu {accu}");
            if dropped {
                assert!(accu >= 0.85, "never below 0.85");
                drops.push(i);
                accu = 0.0;
            }
            assert_close(q.inner().accu_prob(), accu);
        }
        assert_eq!(q.inner().uniforms().used(), draws, "u={u}");
        let gap = |n: f64| (n / dp).ceil() as u64; // arrivals per drop
        if u == 0.0 {
            // Every draw drops: a drop as soon as the accumulated probability reaches 0.85.
            assert_eq!(drops[0] + 1, gap(0.85));
            assert_eq!(drops[1] - drops[0], gap(0.85));
        } else {
            // No draw drops: a drop exactly when the accumulated probability reaches 8.5.
            assert_eq!(drops[0] + 1, gap(8.5));
            assert_eq!(drops[1] - drops[0], gap(8.5));
        }
    }
}

#[test]
fn ecn_marks_instead_of_dropping_below_the_threshold() {
    let mut q = pie(
        &["limit=100000p", "burst_allowance=0ms", "ecn=true"],
        constant(0.0),
    );
    let t = ramp(&mut q, 0.0);
    assert!(q.inner().drop_prob() < 0.1);
    q.enqueue(ms(t), ect(5000, Ecn::Ect0));
    q.enqueue(ms(t), ect(5001, Ecn::Ect1));
    let marked: Vec<u64> = q
        .events()
        .iter()
        .map(|e| match *e {
            QdiscEvent::Marked {
                pkt,
                reason: MarkReason::PieEarly,
            } => {
                assert_eq!(pkt.ecn, Ecn::Ce);
                pkt.id
            }
            ref other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(marked, [5001], "events are per call");
    q.enqueue(ms(t), pkt(5002)); // not ECN-capable: dropped
    assert!(matches!(
        q.events(),
        [QdiscEvent::Dropped {
            reason: DropReason::PieEarly,
            stage: Stage::Enqueue,
            ..
        }]
    ));
    q.enqueue(ms(t), ect(5003, Ecn::Ce)); // already CE: passes unchanged, not our mark
    assert!(q.events().is_empty());
    assert_eq!(q.stats().marks(MarkReason::PieEarly).packets, 2);
    assert_eq!(
        q.stats()
            .drops(Stage::Enqueue, DropReason::PieEarly)
            .packets,
        1
    );
    assert_eq!(q.backlog().packets as u64, 1000 - t / 15 + 3);

    // At drop_prob >= 10 % ECN-capable packets are dropped too.
    let mut k = t / 15 + 1;
    while q.inner().drop_prob() < 0.1 {
        q.dequeue(ms(15 * k));
        k += 1;
    }
    q.enqueue(ms(15 * (k - 1)), ect(5004, Ecn::Ect0));
    assert!(matches!(
        q.events(),
        [QdiscEvent::Dropped {
            reason: DropReason::PieEarly,
            ..
        }]
    ));

    // Without ECN, or with a threshold of 0, ECN-capable packets are dropped.
    for params in [
        &["limit=100000p", "burst_allowance=0ms"][..],
        &[
            "limit=100000p",
            "burst_allowance=0ms",
            "ecn=true",
            "ecn_threshold=0",
        ],
    ] {
        let mut q = pie(params, constant(0.0));
        let t = ramp(&mut q, 0.0);
        q.enqueue(ms(t), ect(5000, Ecn::Ect0));
        assert!(
            matches!(q.events(), [QdiscEvent::Dropped { .. }]),
            "{params:?}"
        );
    }
}

#[test]
fn full_buffer_drops_overlimit_without_a_draw() {
    let mut q = pie(&["limit=3p"], constant(0.0));
    for id in 0..5 {
        q.enqueue(SimTime::ZERO, pkt(id));
    }
    assert_eq!(
        q.stats()
            .drops(Stage::Enqueue, DropReason::Overlimit)
            .packets,
        2
    );
    assert_eq!(q.inner().uniforms().used(), 0);
    let mut q = pie(&["limit=2500B"], constant(0.0));
    for id in 0..3 {
        q.enqueue(SimTime::ZERO, pkt(id));
    }
    assert_eq!(q.backlog().bytes, 2000);
    assert_eq!(
        q.stats()
            .drops(Stage::Enqueue, DropReason::Overlimit)
            .packets,
        1
    );
}

#[test]
fn bad_values_are_errors_naming_the_parameter() {
    for (given, expected) in [
        ("t_update=0ms", "a duration > 0"),
        ("target=0s", "a duration > 0"),
        ("alpha=-0.1", "a number in [0, 1e9] (1/s)"),
        ("alpha=1e10", "a number in [0, 1e9] (1/s)"),
        ("beta=-1", "a number in [0, 1e9] (1/s)"),
        ("alpha=abc", "a number in [0, 1e9] (1/s) (like 0.002)"),
        ("ecn_threshold=1.5", "a number in [0, 1] (probability)"),
        ("ecn=maybe", "true or false"),
        ("mean_pkt_size=0", "a byte count in [1, 4294967295]"),
        ("dq_threshold=0", "a byte count > 0"),
        ("limit=0p", "a size in packets or bytes > 0"),
        (
            "burst_allowance=-5ms",
            "a duration >= 0 (like 5ms, 100us, 1.5s or 250ns)",
        ),
        ("variant=linux", "one of ns3, rfc"),
        ("estimator=ewma", "one of timestamp, dq_rate"),
    ] {
        let (name, value) = given.split_once('=').unwrap();
        assert_eq!(
            cfg_err(&[given]),
            format!("pie: parameter {name} = {value}: expected {expected}")
        );
    }
    // Zero burst allowance, zero weights and a zero threshold are valid choices.
    cfg(&[
        "burst_allowance=0ms",
        "alpha=0",
        "beta=0",
        "ecn_threshold=0",
    ]);
}

#[test]
fn default_agrees_with_ns3_pie_on_every_packet() {
    for s in ["tiny", "overload"] {
        let ours = run(s, "pie", &["limit=1000p"], ns3_uniforms());
        assert_same(&ours.decisions, &reference(s, "pie"));
    }
}

#[test]
fn rfc_variant_has_the_same_outcome_counts_as_ns3_on_overload() {
    let ours = run(
        "overload",
        "pie",
        &["limit=1000p", "variant=rfc"],
        ns3_uniforms(),
    );
    assert_eq!(
        outcome_counts(&ours.decisions),
        outcome_counts(&reference("overload", "pie"))
    );
}

/// A discipline driven directly (no `Qdisc` wrapper), so a test can also call `advance_to`.
struct Direct {
    q: Pie,
    cx: aqmlab_qdisc::QdiscCx,
}

impl Direct {
    fn new(params: &[&str]) -> Self {
        Direct {
            q: Pie::new(cfg(params), UniformSource::seeded(7)),
            cx: aqmlab_qdisc::QdiscCx::new(),
        }
    }
    fn enq(&mut self, t: u64, mut p: Packet) -> Vec<QdiscEvent> {
        self.cx.clear();
        p.enqueue_ns = t;
        self.q.enqueue(SimTime::from_nanos(t), p, &mut self.cx);
        self.cx.events().to_vec()
    }
    fn deq(&mut self, t: u64) -> (Option<Packet>, Vec<QdiscEvent>) {
        self.cx.clear();
        let out = self.q.dequeue(SimTime::from_nanos(t), &mut self.cx);
        (out, self.cx.events().to_vec())
    }
    fn state(&self) -> Vec<(&'static str, u64)> {
        let mut v = Vec::new();
        self.q.visit_state(&mut |n, x| v.push((n, x.to_bits())));
        v
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The lazy update gives exactly what a timer firing at k·t_update (after the calls at that
    /// instant) gives: the same decisions, draws and state after every call (with and without
    /// ns-3's activation threshold).
    #[test]
    fn lazy_updates_equal_a_timer(
        ops in prop::collection::vec(
            (prop_oneof![4 => 0u64..2_500, 1 => 0u64..60_000], 0u8..3, 40u32..1500, 0u8..3),
            1..500,
        ),
        variant in prop::sample::select(vec!["variant=ns3", "variant=rfc"]),
        derandomize in any::<bool>(),
        dq_rate in any::<bool>(),
        active in prop::sample::select(vec![
            "active_threshold=off", "active_threshold=1ms", "active_threshold=300us",
        ]),
    ) {
        let d = format!("derandomize={derandomize}");
        let e = if dq_rate { "estimator=dq_rate" } else { "estimator=timestamp" };
        let params = ["limit=60p", "t_update=3ms", "target=2ms", "burst_allowance=9ms",
            "ecn=true", "dq_threshold=3000", variant, &d, e, active];
        let (mut lazy, mut timer) = (Direct::new(&params), Direct::new(&params));
        let tick = 3_000_000u64;
        let (mut t, mut next_tick, mut id) = (0u64, tick, 0u64);
        for (gap_us, kind, size, ecn) in ops {
            t += gap_us * 1000;
            while next_tick < t {
                // The timer fires at next_tick, after any call at that instant.
                timer.q.advance_to(SimTime::from_nanos(next_tick + 1));
                next_tick += tick;
                prop_assert_eq!(timer.q.next_update().as_nanos(), next_tick);
            }
            if kind < 2 {
                let mut p = Packet::new(id, size, FlowId(0));
                p.ecn = [Ecn::NotEct, Ecn::Ect0, Ecn::Ce][ecn as usize];
                id += 1;
                prop_assert_eq!(lazy.enq(t, p), timer.enq(t, p));
            } else {
                prop_assert_eq!(lazy.deq(t), timer.deq(t));
            }
            prop_assert_eq!(lazy.state(), timer.state());
            // The first update not yet run is the first grid instant at or after t.
            prop_assert_eq!(lazy.q.next_update().as_nanos(), t.div_ceil(tick).max(1) * tick);
        }
    }
}

#[test]
fn a_long_idle_gap_is_skipped_exactly() {
    for params in [
        ["limit=100000p", "variant=rfc"],
        ["limit=100000p", "variant=ns3"],
    ] {
        for gap in [2_000_000_000u64, 3_600_000_000_000] {
            idle_gap(&params, gap);
        }
    }
}

/// After a burst, one call `gap` later gives the state of stepping every update.
fn idle_gap(params: &[&str], gap: u64) {
    let (mut a, mut b) = (Direct::new(params), Direct::new(params));
    for x in [&mut a, &mut b] {
        for i in 0..300u64 {
            if i % 2 == 0 && i > 0 {
                x.deq(i * 1_000_000);
            }
            x.enq(i * 1_000_000, pkt(i));
        }
        while x.deq(300_000_000).0.is_some() {}
    }
    // a: one call an hour later; b: an empty dequeue after every update instant.
    let mut t = 300_000_000u64;
    while t < 300_000_000 + gap {
        t += 15_000_000;
        b.deq(t + 1);
        if gap <= 2_000_000_000 {
            // Also at every step of the way: a call at t + 1 ns from the drained state.
            let mut c = Direct::new(params);
            for i in 0..300u64 {
                if i % 2 == 0 && i > 0 {
                    c.deq(i * 1_000_000);
                }
                c.enq(i * 1_000_000, pkt(i));
            }
            while c.deq(300_000_000).0.is_some() {}
            c.deq(t + 1);
            assert_eq!(c.state(), b.state(), "{params:?} at {t}");
        }
    }
    a.deq(t + 1);
    assert_eq!(a.state(), b.state(), "{params:?}");
    assert_eq!(a.q.next_update().as_nanos(), t + 15_000_000);
    assert_eq!(b.q.next_update().as_nanos(), t + 15_000_000);
    assert_eq!(a.q.drop_prob(), 0.0);
    if params.contains(&"variant=ns3") && gap > 2_000_000_000 {
        assert_eq!(
            a.state()
                .iter()
                .find(|(n, _)| *n == "burst_state")
                .unwrap()
                .1,
            0f64.to_bits(),
            "back to NO_BURST"
        );
    }
}
