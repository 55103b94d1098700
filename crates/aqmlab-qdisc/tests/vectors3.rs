//! Agreement with ns-3 3.37's newer queue discs (`vectors/README.md`, "vectors 3"): COBALT,
//! FQ-COBALT, FQ-PIE and the L4S modes of CoDel and FQ-CoDel, packet by packet, with the
//! parameters ns-3 ran with (`vectors/*.attrs.txt` lists every attribute).

mod common;
use aqmlab_qdisc::UniformSource;
use common::*;

/// The FQ scheduler's parameters of every FQ vector (ns-3: Flows 1024, quantum 1514 set by
/// hand, DropBatchSize 64, MaxSize 10240p, no perturbation).
const FQ: &[&str] = &[
    "limit=10240p",
    "flows=1024",
    "quantum=1514",
    "drop_batch=64",
];

fn with<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<&'a str> {
    a.iter().chain(b).copied().collect()
}

const CODEL_L4S: &[&str] = &[
    "variant=ns3",
    "limit=1000p",
    "target=5ms",
    "interval=100ms",
    "mtu=1500",
    "ecn=true",
    "l4s=true",
    "ce_threshold=1ms",
];

#[test]
fn codel_l4s_mode_agrees_with_ns3() {
    let ours = run("l4s_mix", "codel", CODEL_L4S, UniformSource::seeded(1));
    assert_same(&ours.decisions, &reference("l4s_mix", "codel"));
    // The README's counts: 4,590 delivered, 6,582 marked, 890 CoDel drops, 35 tail drops.
    assert_eq!(outcome_counts(&ours.decisions), [4590, 6582, 35, 890, 0]);
}

#[test]
fn codel_without_l4s_mode_disagrees_on_l4s_mix() {
    // The counterfactual: the same CoDel with the classic ce_threshold instead of L4S mode.
    let params: Vec<&str> = CODEL_L4S
        .iter()
        .copied()
        .filter(|p| *p != "l4s=true")
        .collect();
    let ours = run("l4s_mix", "codel", &params, UniformSource::seeded(1));
    let theirs = reference("l4s_mix", "codel");
    let differ = ours
        .decisions
        .iter()
        .zip(&theirs)
        .filter(|(a, b)| a != b)
        .count();
    assert!(differ > 1000, "only {differ} packets differ");
}

const FQ_CODEL_L4S: &[&str] = &[
    "variant=ns3",
    "target=5ms",
    "interval=100ms",
    "mtu=1500",
    "ecn=true",
    "l4s=true",
    "ce_threshold=1ms",
];

#[test]
fn fq_codel_l4s_mode_agrees_with_ns3() {
    let ours = run(
        "l4s_sparse",
        "fq_codel",
        &with(FQ, FQ_CODEL_L4S),
        UniformSource::seeded(1),
    );
    assert_same(&ours.decisions, &reference("l4s_sparse", "fq_codel"));
    assert_eq!(outcome_counts(&ours.decisions), [7963, 512, 0, 1725, 0]);
    // What this vector distinguishes: without the threshold no packet is marked (all 512
    // differ); but the classic ce_threshold marking (l4s off) makes the same decisions here,
    // because the ECT(1) flows never build CoDel's 5 ms standing queue (`l4s_mix` above is the
    // vector that tells L4S mode from classic marking).
    let differing = |params: Vec<&str>| {
        let ours = run("l4s_sparse", "fq_codel", &params, UniformSource::seeded(1));
        let theirs = reference("l4s_sparse", "fq_codel");
        ours.decisions
            .iter()
            .zip(&theirs)
            .filter(|(a, b)| a != b)
            .count()
    };
    let all = with(FQ, FQ_CODEL_L4S);
    let no_threshold = all
        .iter()
        .map(|p| {
            if p.starts_with("ce_threshold") {
                "ce_threshold=off"
            } else {
                p
            }
        })
        .collect();
    assert_eq!(differing(no_threshold), 512);
    let classic = all.iter().copied().filter(|p| *p != "l4s=true").collect();
    assert_eq!(differing(classic), 0);
}
