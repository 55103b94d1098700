//! Agreement with ns-3 3.37 on our own schedules (`vectors/README.md`, "FQ-COBALT and L4S
//! FQ-CoDel/FQ-COBALT on our own schedules"; made by `vectors/tools/fq_replay.cc`): FQ-COBALT on
//! backlogged flows of four sizes, a sparse flow beside bulk flows, overflow, and an
//! ECT(0)/ECT(1)/not-ECT/CE mix; FQ-CoDel's and FQ-COBALT's L4S mode on that mix.

mod common;
use common::*;

/// The driver's FQ parameters (`make_fq_vectors.sh`): Flows 1024, quantum 1514, DropBatchSize
/// 64, UseEcn, Target 5 ms, Interval 100 ms; MaxSize per schedule.
fn fq(limit: &'static str) -> Vec<&'static str> {
    vec![
        limit,
        "flows=1024",
        "quantum=1514",
        "drop_batch=64",
        "target=5ms",
        "interval=100ms",
        "ecn=true",
    ]
}

const L4S: &[&str] = &["l4s=true", "ce_threshold=1ms"];

fn differing_from(schedule: &str, kind: &str, reference_kind: &str, params: &[&str]) -> usize {
    let ours = run(schedule, kind, params, ns3_uniforms());
    differing(&ours.decisions, &reference(schedule, reference_kind))
}

#[test]
fn fq_cobalt_agrees_with_ns3_on_our_schedules() {
    // (schedule, MaxSize, outcome counts: delivered, marked, dropped at enqueue, at dequeue, left)
    let cases = [
        ("fq_sizes", "limit=10240p", [1011, 0, 0, 52, 46]),
        ("fq_sparse", "limit=10240p", [1252, 0, 0, 121, 0]),
        ("fq_overflow", "limit=64p", [941, 0, 699, 104, 0]),
        ("fq_ecn", "limit=10240p", [996, 45, 0, 47, 151]),
    ];
    for (schedule, limit, counts) in cases {
        let ours = run(schedule, "fq_cobalt", &fq(limit), ns3_uniforms());
        assert_same(&ours.decisions, &reference(schedule, "fq_cobalt"));
        assert_eq!(outcome_counts(&ours.decisions), counts, "{schedule}");
    }
}

#[test]
fn l4s_modes_agree_with_ns3_on_the_ecn_mix() {
    let params: Vec<&str> = fq("limit=10240p")
        .into_iter()
        .chain(L4S.iter().copied())
        .collect();
    let mut codel = params.clone();
    codel.extend(["variant=ns3", "mtu=1500"]);
    for (kind, params, counts) in [
        ("fq_codel", &codel, [848, 193, 0, 42, 156]),
        ("fq_cobalt", &params, [839, 202, 0, 47, 151]),
    ] {
        let ours = run("fq_ecn", kind, params, ns3_uniforms());
        assert_same(
            &ours.decisions,
            &reference("fq_ecn", &format!("{kind}_l4s")),
        );
        assert_eq!(outcome_counts(&ours.decisions), counts, "{kind}");
        // Counterfactual: without L4S mode (the same ce_threshold, classic marking) the
        // vector tells the difference.
        let classic: Vec<&str> = params
            .iter()
            .copied()
            .filter(|p| *p != "l4s=true")
            .collect();
        let n = differing_from("fq_ecn", kind, &format!("{kind}_l4s"), &classic);
        assert!(n > 50, "{kind}: only {n} packets differ without l4s");
    }
}

#[test]
fn fq_cobalt_vectors_distinguish_cobalt_from_codel() {
    // FQ-CoDel (ns-3 arithmetic) in FQ-COBALT's place on the same vectors: COBALT's take-back of
    // due signals and its missing MTU exemption change decisions on each backlogged schedule.
    for (schedule, limit) in [
        ("fq_sizes", "limit=10240p"),
        ("fq_sparse", "limit=10240p"),
        ("fq_overflow", "limit=64p"),
        ("fq_ecn", "limit=10240p"),
    ] {
        let mut p = fq(limit);
        p.extend(["variant=ns3", "mtu=1500"]);
        let n = differing_from(schedule, "fq_codel", "fq_cobalt", &p);
        eprintln!("{schedule}: fq_codel differs from ns-3's fq_cobalt on {n} packets");
        assert!(n > 0, "{schedule}");
    }
}
