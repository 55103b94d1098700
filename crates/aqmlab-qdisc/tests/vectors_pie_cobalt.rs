//! Agreement with ns-3 3.37 on vectors of our own made by `vectors/tools/fq_replay.cc`
//! (`vectors/README.md`, "FQ-PIE, COBALT and BLUE on our own runs"): FQ-PIE on the four `fq_*`
//! schedules, FQ-PIE's and PIE's L4S mode, standalone COBALT on `tiny` and the ECN mix
//! `l4s_mix`, and the `blue` schedule, where COBALT's BLUE part draws and drops at random. The
//! expected outcome counts and BLUE drops are read from ns-3's `.summary.json`, not written here.

mod common;
use aqmlab_qdisc::contract::{DropReason, Stage};
use aqmlab_qdisc::replay::ReplayOutput;
use aqmlab_qdisc::UniformSource;
use common::*;

/// The driver's FQ scheduler parameters (`make_fq_vectors.sh`).
const FQ: &[&str] = &["flows=1024", "quantum=1514", "drop_batch=64", "ecn=true"];

/// Replays a schedule; also returns how many packets BLUE dropped (COBALT's random drops).
fn run_counting(
    schedule: &str,
    kind: &str,
    params: &[&str],
    uniforms: UniformSource,
) -> (ReplayOutput, u64) {
    let (out, q) = run_keeping(schedule, kind, params, uniforms);
    let blue = q
        .stats()
        .drops(Stage::Dequeue, DropReason::BlueEarly)
        .packets;
    // A single COBALT's draws (an FQ kind's children each draw from their own copy).
    if let (Some(UniformSource::List { next, .. }), "cobalt") = (q.inner().uniforms(), kind) {
        eprintln!("{schedule} {kind}: {next} random draws, {blue} BLUE drops");
        assert!(*next as u64 >= blue, "a BLUE drop without a draw");
    }
    (out, blue)
}

/// Checks one vector packet by packet and against its summary; returns our BLUE drops.
fn check(schedule: &str, kind: &str, reference_name: &str, params: &[&str]) -> u64 {
    let (ours, blue) = run_counting(schedule, kind, params, ns3_uniforms());
    let theirs = reference(schedule, reference_name);
    assert_same(&ours.decisions, &theirs);
    assert_eq!(
        outcome_counts(&ours.decisions),
        ns3_counts(schedule, reference_name),
        "{schedule}.{reference_name}"
    );
    blue
}

/// How many packets differ from the vector with `params` (a counterfactual).
fn differing_with(
    schedule: &str,
    kind: &str,
    reference_name: &str,
    params: &[&str],
    uniforms: UniformSource,
) -> usize {
    let (ours, _) = run_counting(schedule, kind, params, uniforms);
    differing(&ours.decisions, &reference(schedule, reference_name))
}

/// `params` with `name=...` replaced by `switch` (or `switch` added).
fn switched<'a>(params: &[&'a str], switch: &'a str) -> Vec<&'a str> {
    let name = switch.split('=').next().unwrap();
    let mut p: Vec<&str> = params
        .iter()
        .copied()
        .filter(|p| !p.starts_with(&format!("{name}=")))
        .collect();
    p.push(switch);
    p
}

#[test]
fn fq_pie_agrees_with_ns3_on_our_schedules() {
    // (schedule, limit, counterfactual switches, whether PIE's random drops decide packets).
    // On fq_overflow every drop is an overflow (the scheduler's fattest-flow batch or a flow
    // queue's own limit): PIE's early drop never fires, so its switches change nothing there
    // and the scheduler's are the counterfactuals.
    let cases: [(&str, &str, &[&str], bool); 4] = [
        ("fq_sizes", "limit=10240p", &["t_update=16ms"], true),
        ("fq_sparse", "limit=10240p", &["t_update=16ms"], true),
        (
            "fq_overflow",
            "limit=64p",
            &["drop_batch=8", "flow_limit=none"],
            false,
        ),
        ("fq_ecn", "limit=10240p", &["t_update=16ms"], true),
    ];
    for (schedule, limit, switches, random) in cases {
        let params = with(FQ, &[limit]);
        check(schedule, "fq_pie", "fq_pie", &params);
        for switch in switches {
            let n = differing_with(
                schedule,
                "fq_pie",
                "fq_pie",
                &switched(&params, switch),
                ns3_uniforms(),
            );
            assert!(n > 0, "{schedule}: {switch} changes nothing");
        }
        // Each flow's PIE draws from its own copy of ns-3's stream; other draws change
        // decisions wherever PIE drops at random.
        let n = differing_with(
            schedule,
            "fq_pie",
            "fq_pie",
            &params,
            UniformSource::seeded(1),
        );
        assert_eq!(
            n > 0,
            random,
            "{schedule}: {n} packets differ with other draws"
        );
    }
}

#[test]
fn pie_l4s_modes_agree_with_ns3() {
    let l4s = ["l4s=true", "ce_threshold=1ms"];
    let cases: [(&str, &str, &str, Vec<&str>); 3] = [
        (
            "fq_ecn",
            "fq_pie",
            "fq_pie_l4s",
            with(FQ, &["limit=10240p"]),
        ),
        (
            "l4s_sparse",
            "fq_pie",
            "fq_pie_l4s",
            with(FQ, &["limit=10240p"]),
        ),
        ("l4s_mix", "pie", "pie_l4s", vec!["limit=1000p", "ecn=true"]),
    ];
    for (schedule, kind, name, base) in cases {
        let params = with(&base, &l4s);
        check(schedule, kind, name, &params);
        assert!(ns3_counts(schedule, name)[1] > 0, "{schedule}: no marks");
        // Without L4S mode (the same threshold) ECT(1) packets meet PIE's early drop instead.
        let n = differing_with(schedule, kind, name, &base, ns3_uniforms());
        assert!(
            n > 100,
            "{schedule}.{name}: only {n} packets differ without l4s"
        );
    }
}

#[test]
fn cobalt_agrees_with_ns3_on_our_runs() {
    check("tiny", "cobalt", "cobalt", &["limit=1000p"]);
    let ecn = ["limit=1000p", "ecn=true"];
    check("l4s_mix", "cobalt", "cobalt", &ecn);
    let l4s = with(&ecn, &["l4s=true", "ce_threshold=1ms"]);
    check("l4s_mix", "cobalt", "cobalt_l4s", &l4s);
    // Counterfactuals on the ECN mix: CoDel's interval, and ECN off.
    for (name, params, switch) in [
        ("cobalt", &ecn[..], "interval=90ms"),
        ("cobalt", &ecn[..], "ecn=false"),
        ("cobalt_l4s", &l4s[..], "l4s=false"),
    ] {
        let n = differing_with(
            "l4s_mix",
            "cobalt",
            name,
            &switched(params, switch),
            ns3_uniforms(),
        );
        assert!(n > 100, "l4s_mix.{name} {switch}: only {n} packets differ");
    }
}

/// The vectors where BLUE's probability leaves 0 and its random drops happen: ours agree packet
/// by packet, and our count of BLUE drops equals the one ns-3's driver counted (a drop at
/// dequeue that was not CoDel's signal).
#[test]
fn blue_random_drops_agree_with_ns3() {
    let blue = ["limit=100p", "ecn=true"];
    let cases: [(&str, &str, Vec<&str>); 4] = [
        ("blue", "cobalt", blue.to_vec()),
        ("blue", "fq_cobalt", with(FQ, &blue[..1])),
        ("l4s_mix", "cobalt", vec!["limit=1000p", "ecn=true"]),
        (
            "l4s_mix",
            "cobalt_l4s",
            vec!["limit=1000p", "ecn=true", "l4s=true", "ce_threshold=1ms"],
        ),
    ];
    for (schedule, name, params) in cases {
        let kind = name.trim_end_matches("_l4s");
        let ours = check(schedule, kind, name, &params);
        let theirs = summary_field(schedule, name, "blue_drops");
        assert_eq!(ours, theirs, "{schedule}.{name}: BLUE drops");
        assert!(ours > 0, "{schedule}.{name}: BLUE never dropped");
        // BLUE's drops follow ns-3's draws: another random stream, or another increment,
        // changes decisions.
        let n = differing_with(schedule, kind, name, &params, UniformSource::seeded(1));
        assert!(
            n > 50,
            "{schedule}.{name}: only {n} differ with other draws"
        );
        let n = differing_with(
            schedule,
            kind,
            name,
            &switched(&params, "increment=0.0078125"),
            ns3_uniforms(),
        );
        assert!(
            n > 50,
            "{schedule}.{name}: only {n} differ with increment 1/128"
        );
    }
}
