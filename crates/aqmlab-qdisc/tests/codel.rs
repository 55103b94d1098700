//! CoDel against RFC 8289 §5 and the Linux / ns-3 arithmetic, with exact expected values.

use aqmlab_core::units::Size;
use aqmlab_core::{Ecn, FlowId, Packet, SimTime};
use aqmlab_qdisc::codel::{Codel, CodelConfig, Variant};
use aqmlab_qdisc::{DropReason, MarkReason, Qdisc, QdiscEvent, Stage};

const MS: u64 = 1_000_000;

fn codel(variant: Variant) -> Qdisc<Codel> {
    Qdisc::new(Codel::new(CodelConfig::with_defaults(
        Size::Packets(100_000),
        variant,
    )))
}

fn fill(q: &mut Qdisc<Codel>, t_ns: u64, n: u64, size: u32) {
    for i in 0..n {
        q.enqueue(SimTime::from_nanos(t_ns), Packet::new(i, size, FlowId(0)));
    }
}

fn drops_in_last_call(q: &Qdisc<Codel>) -> usize {
    q.events()
        .iter()
        .filter(|e| matches!(e, QdiscEvent::Dropped { .. }))
        .count()
}

#[test]
fn never_drops_while_sojourn_below_target() {
    // Arrivals every 1 ms, each served 4.9 ms later: the sojourn is always 4.9 ms < 5 ms.
    let mut q = codel(Variant::Rfc);
    for k in 0..10_000u64 {
        let t = k * MS;
        q.enqueue(SimTime::from_nanos(t), Packet::new(k, 1500, FlowId(0)));
        if k >= 4 {
            let p = q.dequeue(SimTime::from_nanos(t + MS - 100_000)).unwrap();
            assert!(t + MS - 100_000 - p.enqueue_ns < 5 * MS);
        }
    }
    assert_eq!(q.stats().dropped().packets, 0);
}

#[test]
fn never_drops_when_at_most_one_mtu_would_remain() {
    // A standing queue of N 1000-B packets; every 10 ms one arrives and then one is served: the
    // sojourn is 10·N ms (above target) and after removing the head N·1000 B remain. With N = 1
    // that is ≤ one 1500-B MTU, so CoDel must never drop (RFC 8289 §5.4 non-starvation rule);
    // with N = 2 (2000 B left) it must.
    for v in [Variant::Rfc, Variant::Linux, Variant::Ns3] {
        for (n, must_drop) in [(1u64, false), (2, true)] {
            let mut q = codel(v);
            fill(&mut q, 0, n, 1000);
            for k in 1..=1000u64 {
                let t = SimTime::from_nanos(k * 10 * MS);
                q.enqueue(t, Packet::new(n + k, 1000, FlowId(0)));
                q.dequeue(t);
            }
            assert_eq!(q.stats().dropped().packets > 0, must_drop, "{v:?} N={n}");
        }
    }
}

#[test]
fn first_drop_exactly_one_interval_after_sojourn_first_exceeded_target() {
    // RFC variant: sojourn first seen above target at 10 ms → first_above_time = 110 ms; the
    // drop comes at the first dequeue with now >= 110 ms, not a nanosecond earlier.
    let mut q = codel(Variant::Rfc);
    fill(&mut q, 0, 1000, 1000);
    q.dequeue(SimTime::from_nanos(10 * MS)).unwrap();
    assert_eq!(drops_in_last_call(&q), 0);
    q.dequeue(SimTime::from_nanos(110 * MS - 1)).unwrap();
    assert_eq!(drops_in_last_call(&q), 0);
    q.dequeue(SimTime::from_nanos(110 * MS)).unwrap();
    assert_eq!(drops_in_last_call(&q), 1);
    assert!(q.inner().state().dropping);
    assert_eq!(q.inner().state().count, 1);
    assert_eq!(q.inner().state().drop_next, 210 * MS);

    // Linux arithmetic: 1024-ns units and a strictly-after comparison: at 110 ms (107421 units,
    // = 9765 + 97656) it is not yet "after"; the first unit after is 107422 (110 000 128 ns).
    let mut q = codel(Variant::Linux);
    fill(&mut q, 0, 1000, 1000);
    q.dequeue(SimTime::from_nanos(10 * MS)).unwrap();
    q.dequeue(SimTime::from_nanos(110_000_127)).unwrap();
    assert_eq!(drops_in_last_call(&q), 0);
    q.dequeue(SimTime::from_nanos(110_000_128)).unwrap();
    assert_eq!(drops_in_last_call(&q), 1);
}

#[test]
fn drops_are_spaced_interval_over_sqrt_count() {
    // A standing queue far above target, dequeued every 0.1 ms. Each drop happens at the first
    // dequeue at or after drop_next, and drop_next advances by round(100 ms / sqrt(count)) from
    // the previous drop_next (RFC 8289 §5.5: scheduled from drop_next, not from now).
    let mut q = codel(Variant::Rfc);
    fill(&mut q, 0, 20_000, 1000);
    let step = 100_000u64;
    let mut expected_next = 0u64;
    let mut drops: Vec<u64> = vec![];
    let mut t = 10 * MS;
    while drops.len() < 12 {
        q.dequeue(SimTime::from_nanos(t));
        let n = drops_in_last_call(&q);
        assert!(n <= 1, "one drop per dequeue at this spacing");
        if n == 1 {
            let s = q.inner().state();
            if drops.is_empty() {
                assert_eq!(t, 110 * MS);
            } else {
                assert!(
                    t >= expected_next && t < expected_next + step,
                    "drop at {t}, due {expected_next}"
                );
            }
            drops.push(t);
            let want = if s.count == 1 {
                t + 100 * MS
            } else {
                expected_next + (1e8 / (s.count as f64).sqrt()).round() as u64
            };
            assert_eq!(s.drop_next, want, "count {}", s.count);
            expected_next = want;
        }
        t += step;
    }
    assert_eq!(q.inner().state().count, 12);
}

#[test]
fn several_drops_in_one_dequeue_when_drop_next_is_far_behind() {
    // Enter the dropping state, then stay silent for a second: the next dequeue finds drop_next
    // far in the past and drops until drop_next passes now (RFC 8289 §5.5 while loop).
    let mut q = codel(Variant::Rfc);
    fill(&mut q, 0, 20_000, 1000);
    q.dequeue(SimTime::from_nanos(10 * MS));
    q.dequeue(SimTime::from_nanos(110 * MS));
    assert_eq!(drops_in_last_call(&q), 1);
    q.dequeue(SimTime::from_nanos(1110 * MS));
    // drop_next: 210, +70.71, +57.74, +50, +44.72, +40.82, +37.80, +35.36, +33.33, +31.62,
    // +30.15, +28.87, +27.74, +26.73, +25.82, +25 ... the loop drops while now >= drop_next.
    let mut dn = 210.0f64;
    let mut count = 1.0f64;
    let mut expect = 0;
    while dn <= 1110.0 {
        expect += 1;
        count += 1.0;
        dn += 100.0 / count.sqrt();
    }
    assert_eq!(drops_in_last_call(&q), expect);
    assert_eq!(q.inner().state().count, 1 + expect as u32);
}

/// Drives CoDel into the dropping state until `count` reaches `target_count`, then empties the
/// queue (leaving the dropping state). Returns the time reached.
fn episode(q: &mut Qdisc<Codel>, start_ns: u64, target_count: u32) -> u64 {
    fill(q, start_ns, 5000, 1000);
    let mut t = start_ns + 10 * MS;
    while q.inner().state().count < target_count || !q.inner().state().dropping {
        q.dequeue(SimTime::from_nanos(t));
        t += MS;
    }
    while q.backlog().packets > 0 {
        q.dequeue(SimTime::from_nanos(t));
    }
    assert!(!q.inner().state().dropping);
    t
}

#[test]
fn reentry_soon_resumes_with_count_minus_lastcount() {
    let mut q = codel(Variant::Rfc);
    let t = episode(&mut q, 0, 6);
    let s = *q.inner().state();
    assert_eq!((s.count, s.lastcount), (6, 1));
    // Re-enter soon (within 16 intervals of drop_next): count resumes at 6 - 1 = 5.
    let t2 = t + 10 * MS;
    fill(&mut q, t2, 5000, 1000);
    q.dequeue(SimTime::from_nanos(t2 + 10 * MS));
    q.dequeue(SimTime::from_nanos(t2 + 110 * MS));
    let s = *q.inner().state();
    assert!(s.dropping);
    assert_eq!((s.count, s.lastcount), (5, 5));
    assert_eq!(
        s.drop_next,
        t2 + 110 * MS + (1e8 / 5f64.sqrt()).round() as u64
    );
}

#[test]
fn reentry_late_restarts_at_one() {
    let mut q = codel(Variant::Rfc);
    let t = episode(&mut q, 0, 6);
    let drop_next = q.inner().state().drop_next;
    // Re-enter more than 16 intervals after drop_next: count restarts at 1.
    let t2 = t.max(drop_next) + 1700 * MS;
    fill(&mut q, t2, 5000, 1000);
    q.dequeue(SimTime::from_nanos(t2 + 10 * MS));
    q.dequeue(SimTime::from_nanos(t2 + 110 * MS));
    let s = *q.inner().state();
    assert!(s.dropping);
    assert_eq!((s.count, s.lastcount), (1, 1));
}

/// ns-3's `codel-queue-disc` BasicDrop case (reference notes codel.md §5): 20 × 1000 B at t = 0,
/// dequeues at 10 ms, 210 ms (twice) and 420 ms. With the Linux/ns-3 arithmetic: 19 queued after
/// 10 ms; 17 queued and 1 drop after the first 210 ms; 16 after the second; 12 queued and 4 drops
/// after 420 ms. With the exact square root: 13 queued and 3 drops after 420 ms.
#[test]
fn ns3_basic_drop_case() {
    for (v, queued_end, drops_end) in [
        (Variant::Ns3, 12, 4),
        (Variant::Linux, 12, 4),
        (Variant::Rfc, 13, 3),
    ] {
        let mut q = codel(v);
        fill(&mut q, 0, 20, 1000);
        q.dequeue(SimTime::from_nanos(10 * MS));
        assert_eq!(
            (q.backlog().packets, q.stats().dropped().packets),
            (19, 0),
            "{v:?}"
        );
        q.dequeue(SimTime::from_nanos(210 * MS));
        assert_eq!(
            (q.backlog().packets, q.stats().dropped().packets),
            (17, 1),
            "{v:?}"
        );
        q.dequeue(SimTime::from_nanos(210 * MS));
        assert_eq!(
            (q.backlog().packets, q.stats().dropped().packets),
            (16, 1),
            "{v:?}"
        );
        q.dequeue(SimTime::from_nanos(420 * MS));
        assert_eq!(
            (q.backlog().packets, q.stats().dropped().packets),
            (queued_end, drops_end),
            "{v:?}"
        );
    }
}

#[test]
fn ecn_marks_instead_of_dropping_and_enters_without_extra_dequeue() {
    // ns-3 BasicMark case 2: all packets ECN-capable. Entering the dropping state marks the
    // packet and removes only that one; later signals are one mark per dequeue.
    let mut cfg = CodelConfig::with_defaults(Size::Packets(500), Variant::Ns3);
    cfg.params.ecn = true;
    let mut q = Qdisc::new(Codel::new(cfg));
    for i in 0..20 {
        let mut p = Packet::new(i, 1000, FlowId(0));
        p.ecn = Ecn::Ect0;
        q.enqueue(SimTime::ZERO, p);
    }
    q.dequeue(SimTime::from_nanos(10 * MS));
    let p = q.dequeue(SimTime::from_nanos(210 * MS)).unwrap();
    assert_eq!(p.ecn, Ecn::Ce);
    assert_eq!(q.backlog().packets, 18);
    assert_eq!(q.stats().marks(MarkReason::CodelTarget).packets, 1);
    q.dequeue(SimTime::from_nanos(210 * MS));
    assert_eq!(q.stats().marks(MarkReason::CodelTarget).packets, 1);
    q.dequeue(SimTime::from_nanos(420 * MS));
    assert_eq!(q.stats().marks(MarkReason::CodelTarget).packets, 2);
    assert_eq!(q.backlog().packets, 16);
    assert_eq!(q.stats().dropped().packets, 0);
    assert_eq!(
        q.stats()
            .drops(Stage::Dequeue, DropReason::CodelTarget)
            .packets,
        0
    );
}

/// A packet that arrives with CE already set, when CoDel signals on it: the linux and ns3
/// variants send it unchanged, as Linux (`INET_ECN_set_ce` succeeds on CE) and ns-3 3.37
/// (`Ipv4QueueDiscItem::Mark` accepts every codepoint but Not-ECT) do, and report no new mark;
/// the signal still counts (`count` 1, next signal scheduled). The rfc variant drops it.
#[test]
fn ce_arrivals_are_kept_by_linux_and_ns3_and_dropped_by_rfc() {
    for (v, kept) in [
        (Variant::Linux, true),
        (Variant::Ns3, true),
        (Variant::Rfc, false),
    ] {
        let mut cfg = CodelConfig::with_defaults(Size::Packets(500), v);
        cfg.params.ecn = true;
        let mut q = Qdisc::new(Codel::new(cfg));
        for i in 0..20 {
            let mut p = Packet::new(i, 1000, FlowId(0));
            p.ecn = Ecn::Ce;
            q.enqueue(SimTime::ZERO, p);
        }
        q.dequeue(SimTime::from_nanos(10 * MS));
        let p = q.dequeue(SimTime::from_nanos(210 * MS)).unwrap();
        assert_eq!((p.id, p.ecn), (if kept { 1 } else { 2 }, Ecn::Ce), "{v:?}");
        assert_eq!(q.stats().marks(MarkReason::CodelTarget).packets, 0, "{v:?}");
        assert_eq!(q.stats().dropped().packets, u64::from(!kept), "{v:?}");
        let s = q.inner().state();
        assert_eq!((s.dropping, s.count), (true, 1), "{v:?}");
    }
}

#[test]
fn ce_threshold_marks_packets_with_long_sojourn() {
    let mut cfg = CodelConfig::with_defaults(Size::Packets(500), Variant::Linux);
    cfg.params = aqmlab_qdisc::codel::CodelParams::new(
        Variant::Linux,
        aqmlab_core::SimDuration::from_millis(5),
        aqmlab_core::SimDuration::from_millis(100),
        1514,
        false,
        Some(aqmlab_core::SimDuration::from_millis(2)),
    );
    let mut q = Qdisc::new(Codel::new(cfg));
    for i in 0..3 {
        let mut p = Packet::new(i, 1000, FlowId(0));
        p.ecn = Ecn::Ect1;
        q.enqueue(SimTime::ZERO, p);
    }
    assert_eq!(q.dequeue(SimTime::from_nanos(MS)).unwrap().ecn, Ecn::Ect1);
    assert_eq!(q.dequeue(SimTime::from_nanos(3 * MS)).unwrap().ecn, Ecn::Ce);
    assert_eq!(q.stats().marks(MarkReason::CodelCeThreshold).packets, 1);
}

#[test]
fn overlimit_is_tail_drop() {
    let mut q = Qdisc::new(Codel::new(CodelConfig::with_defaults(
        Size::Packets(500),
        Variant::Rfc,
    )));
    fill(&mut q, 0, 503, 1000);
    assert_eq!(q.backlog().packets, 500);
    assert_eq!(
        q.stats()
            .drops(Stage::Enqueue, DropReason::Overlimit)
            .packets,
        3
    );
}
