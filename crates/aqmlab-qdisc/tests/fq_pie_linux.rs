//! Linux `sch_fq_pie`'s rules (net/sched/sch_fq_pie.c, `fq_pie_init` and `fq_pie_change`, with
//! `pie_params_init` of include/net/pie.h) where our `fq_pie` follows Linux. Where it follows
//! ns-3's `FqPieQueueDisc` instead (overflow, the memory limit, an emptied new flow, the per-flow
//! limit, the ECN threshold's `<`), `docs/models/fq_pie.md` says so and why.

use aqmlab_core::units::Size;
use aqmlab_core::{Ecn, FlowId, Packet, SimTime};
use aqmlab_qdisc::fq::FqConfig;
use aqmlab_qdisc::fq_pie::{FqPie, FqPieConfig, PARAMS};
use aqmlab_qdisc::pie::Estimator;
use aqmlab_qdisc::{DropReason, MarkReason, Params, Qdisc, Stage, UniformSource};

fn config(params: &[&str]) -> Result<FqPieConfig, String> {
    let pairs = Params::split_pairs(params).map_err(|e| e.to_string())?;
    let p = Params::new("fq_pie", PARAMS, &pairs).map_err(|e| e.to_string())?;
    FqConfig::from_params(&p).map_err(|e| e.to_string())
}

/// `fq_pie_init`: limit 10 × 1024 packets, 1024 flows, quantum `psched_mtu` (1500 + 14 for
/// Ethernet), memory limit 32 MiB, ECN off with `ecn_prob` 10 %; `pie_params_init`: target
/// 15 ms, tupdate 15 ms, alpha 2 and beta 20 in Linux's 1/16 units (RFC 8033's 0.125 and 1.25),
/// dq_rate_estimator off (the delay is the packet's sojourn, from its enqueue timestamp).
#[test]
fn defaults_are_linux_fq_pie_init() {
    let c = config(&[]).unwrap();
    assert_eq!(c.limit, 10 * 1024);
    assert_eq!(c.flows, 1024);
    assert_eq!(c.quantum, 1514);
    assert_eq!(c.memory_limit, 32 << 20);
    let a = &c.aqm;
    assert!(!a.ecn);
    assert_eq!(a.ecn_threshold, 0.10);
    assert_eq!(a.estimator, Estimator::Timestamp);
    assert_eq!(a.target.as_nanos(), 15_000_000);
    assert_eq!(a.t_update.as_nanos(), 15_000_000);
    assert_eq!((a.alpha, a.beta), (2.0 / 16.0, 20.0 / 16.0));
    assert_eq!(a.limit, Size::Packets(10 * 1024));
}

/// `fq_pie_change`: "Number of flows must range in [1..65536]".
#[test]
fn flows_range_is_linux_1_to_65536() {
    assert_eq!(config(&["flows=1"]).unwrap().flows, 1);
    assert_eq!(config(&["flows=65536"]).unwrap().flows, 65536);
    for bad in ["flows=0", "flows=65537"] {
        let e = config(&[bad]).unwrap_err();
        assert!(e.contains("flows"), "{bad}: {e}");
    }
}

/// Drives one ECN-capable flow at 2.5 times a 1500-byte-per-millisecond link through FQ-PIE
/// with `ecn=true` and the given extra parameters; returns (marks, early drops of ECT packets,
/// other drops).
fn overload(extra: &[&str]) -> (u64, u64, u64) {
    let mut params = vec![
        "ecn=true",
        "burst_allowance=0ms",
        "t_update=10ms",
        "target=5ms",
    ];
    params.extend_from_slice(extra);
    let mut q = Qdisc::new(FqPie::new(
        config(&params).unwrap(),
        UniformSource::seeded(7),
    ));
    let (mut marks, mut early, mut other) = (0, 0, 0);
    let mut count = |q: &Qdisc<FqPie>| {
        for e in q.events() {
            match e {
                aqmlab_qdisc::QdiscEvent::Marked { reason, .. } => {
                    assert_eq!(*reason, MarkReason::PieEarly);
                    marks += 1;
                }
                aqmlab_qdisc::QdiscEvent::Dropped { pkt, stage, reason } => {
                    // sch_fq_pie drops during enqueue only.
                    assert_eq!(*stage, Stage::Enqueue);
                    if *reason == DropReason::PieEarly && pkt.ecn != Ecn::NotEct {
                        early += 1;
                    } else {
                        other += 1;
                    }
                }
            }
        }
    };
    let mut id = 0;
    for ms in 0..20_000u64 {
        for k in 0..5 {
            // Five arrivals per 2 ms, 400 µs apart; one departure per ms.
            if ms % 2 == 0 {
                let t = SimTime::from_nanos(ms * 1_000_000 + k * 400_000);
                let mut p = Packet::new(id, 1500, FlowId(1));
                p.ecn = Ecn::Ect0;
                id += 1;
                q.enqueue(t, p);
                count(&q);
            }
        }
        q.dequeue(SimTime::from_nanos(ms * 1_000_000 + 999_000));
        count(&q);
    }
    (marks, early, other)
}

/// Linux marks an ECN-capable packet PIE would drop while the flow's probability is within
/// `ecn_prob` (10 % by default) and drops it above: under a persistent 2.5× overload the
/// probability climbs past 10 %, so there are marks, then drops. With the threshold at 0 every
/// such packet is dropped. (At 100 % ours still drops once the probability reaches 1, where
/// Linux's `prob <= ecn_prob` would mark: see docs/models/fq_pie.md.)
#[test]
fn ecn_marks_below_ecn_prob_and_drops_above() {
    let (marks, early, other) = overload(&[]);
    // The probability passes 10 % within a few updates and stays above: 11 marks, then drops.
    assert!(
        marks > 0 && early > 1000,
        "marks {marks}, ECT early drops {early}"
    );
    assert_eq!(other, 0);
    let (marks, early, _) = overload(&["ecn_threshold=0"]);
    assert!(
        marks == 0 && early > 0,
        "threshold 0: marks {marks}, drops {early}"
    );
}
