//! Agreement with ns-3 3.37's decisions on the bundled schedules (`vectors/README.md` gives the
//! parameters ns-3 used). DropTail, CoDel (ns-3 arithmetic), RED and PIE (both with ns-3's random
//! draws) agree on every packet. (The issue asked only for PIE's outcome counts within a few
//! percent; that weaker check is kept too, for the `rfc` variant.)

mod common;
use aqmlab_qdisc::UniformSource;
use common::*;

const RED_NS3: &[&str] = &[
    "limit=1000p",
    "mode=packet",
    "min_th=5",
    "max_th=15",
    "w_q=0.002",
    "max_p=0.02",
    "mean_pkt_size=1500",
    "gentle=true",
    "wait=true",
    "bandwidth=10Mbps",
];

#[test]
fn droptail_agrees_with_ns3_pfifo() {
    for s in ["tiny", "overload"] {
        let ours = run(s, "droptail", &["limit=1000p"], UniformSource::seeded(1));
        assert_same(&ours.decisions, &reference(s, "pfifo"));
    }
}

#[test]
fn codel_ns3_variant_agrees_with_ns3_codel() {
    for s in ["tiny", "overload"] {
        let ours = run(
            s,
            "codel",
            &["variant=ns3", "limit=1000p"],
            UniformSource::seeded(1),
        );
        assert_same(&ours.decisions, &reference(s, "codel"));
    }
    // The vectors README: first drop at 124.8 ms and 3,306 drops on `overload`.
    let ours = run(
        "overload",
        "codel",
        &["variant=ns3", "limit=1000p"],
        UniformSource::seeded(1),
    );
    assert_eq!(ours.summary.dropped_dequeue, 3306);
    let first = ours
        .decisions
        .iter()
        .filter(|d| d.deq_t_ns >= 0 && d.outcome == aqmlab_qdisc::replay::Outcome::DroppedDequeue)
        .map(|d| d.deq_t_ns)
        .min();
    assert_eq!(first, Some(124_800_000));
}

#[test]
fn red_with_ns3_uniforms_agrees_with_ns3_red() {
    for s in ["tiny", "overload"] {
        let ours = run(s, "red", RED_NS3, ns3_uniforms());
        assert_same(&ours.decisions, &reference(s, "red"));
    }
}

#[test]
fn pie_with_ns3_uniforms_agrees_with_ns3_pie() {
    for s in ["tiny", "overload"] {
        let ours = run(s, "pie", &["limit=1000p"], ns3_uniforms());
        assert_same(&ours.decisions, &reference(s, "pie"));
    }
}

#[test]
fn pie_rfc_variant_outcome_counts_within_a_few_percent_of_ns3() {
    for s in ["tiny", "overload"] {
        let ours = outcome_counts(
            &run(s, "pie", &["limit=1000p", "variant=rfc"], ns3_uniforms()).decisions,
        );
        let theirs = outcome_counts(&reference(s, "pie"));
        for (i, name) in [
            "delivered",
            "marked",
            "dropped_enqueue",
            "dropped_dequeue",
            "queued_at_end",
        ]
        .iter()
        .enumerate()
        {
            let (a, b) = (ours[i] as f64, theirs[i] as f64);
            let tol = (0.05 * b).max(3.0);
            assert!(
                (a - b).abs() <= tol,
                "{s}: {name}: ours {a} vs ns-3 {b} (tolerance {tol})"
            );
        }
    }
}
