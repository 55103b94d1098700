//! Helpers shared by the integration tests: locate the bundled ns-3 vectors, replay a schedule
//! through a discipline, and compare decisions packet by packet.
#![allow(dead_code)]

use aqmlab_qdisc::replay::{self, Decision, Outcome, ReplayOutput};
use aqmlab_qdisc::uniform::parse_uniforms;
use aqmlab_qdisc::{registry, AnyQdisc, Qdisc, UniformSource};
use std::path::PathBuf;
use std::sync::Arc;

/// The repository's `vectors/` directory (a copy of ns-3 3.37's reference decisions).
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

pub fn read_vector(name: &str) -> String {
    let p = vectors_dir().join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

pub fn ns3_uniforms() -> UniformSource {
    let draws = parse_uniforms(&read_vector("ns3-uniforms.txt")).unwrap();
    UniformSource::List {
        draws: Arc::from(draws),
        next: 0,
    }
}

/// Replays `vectors/<schedule>.schedule.csv` through `kind` with `params`.
pub fn run(schedule: &str, kind: &str, params: &[&str], uniforms: UniformSource) -> ReplayOutput {
    run_keeping(schedule, kind, params, uniforms).0
}

/// As [`run`], also handing back the discipline after the replay (its counters and state).
pub fn run_keeping(
    schedule: &str,
    kind: &str,
    params: &[&str],
    uniforms: UniformSource,
) -> (ReplayOutput, Qdisc<AnyQdisc>) {
    let rows = replay::parse_schedule(read_vector(&format!("{schedule}.schedule.csv")).as_bytes())
        .unwrap();
    let pairs = aqmlab_qdisc::Params::split_pairs(params).unwrap();
    let mut q = Qdisc::new(registry::build(kind, &pairs, uniforms).unwrap());
    let out = replay::replay(&mut q, &rows, false).unwrap();
    assert!(q.conserved());
    (out, q)
}

/// The reference decisions `vectors/<schedule>.<qdisc>.ns3.csv`, sorted by id.
pub fn reference(schedule: &str, qdisc: &str) -> Vec<Decision> {
    replay::parse_decisions(&read_vector(&format!("{schedule}.{qdisc}.ns3.csv"))).unwrap()
}

/// How many packets' decisions differ (the two lists must cover the same packets).
pub fn differing(ours: &[Decision], theirs: &[Decision]) -> usize {
    assert_eq!(ours.len(), theirs.len(), "packet counts differ");
    ours.iter().zip(theirs).filter(|(a, b)| a != b).count()
}

/// Asserts packet-by-packet agreement, reporting the first few differences.
pub fn assert_same(ours: &[Decision], theirs: &[Decision]) {
    assert_eq!(ours.len(), theirs.len(), "packet counts differ");
    let diffs: Vec<_> = ours.iter().zip(theirs).filter(|(a, b)| a != b).collect();
    if !diffs.is_empty() {
        let first: Vec<String> = diffs
            .iter()
            .take(5)
            .map(|(a, b)| format!("\n  ours {a:?}\n  ns-3 {b:?}"))
            .collect();
        panic!(
            "{} of {} packets differ; first:{}",
            diffs.len(),
            ours.len(),
            first.join("")
        );
    }
}

/// Counts of each outcome.
pub fn outcome_counts(d: &[Decision]) -> [usize; 5] {
    let mut c = [0; 5];
    for x in d {
        c[match x.outcome {
            Outcome::Delivered => 0,
            Outcome::Marked => 1,
            Outcome::DroppedEnqueue => 2,
            Outcome::DroppedDequeue => 3,
            Outcome::QueuedAtEnd => 4,
        }] += 1;
    }
    c
}

/// An integer field of ns-3's `NAME.QDISC.ns3.summary.json` (one flat object of integers).
pub fn summary_field(schedule: &str, qdisc: &str, field: &str) -> u64 {
    let text = read_vector(&format!("{schedule}.{qdisc}.ns3.summary.json"));
    let key = format!("\"{field}\": ");
    let at = text
        .find(&key)
        .unwrap_or_else(|| panic!("no {field} in {text}"))
        + key.len();
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap()
}

/// ns-3's outcome counts in `outcome_counts`' order.
pub fn ns3_counts(schedule: &str, qdisc: &str) -> [usize; 5] {
    [
        "delivered",
        "marked",
        "dropped_enqueue",
        "dropped_dequeue",
        "queued_at_end",
    ]
    .map(|f| summary_field(schedule, qdisc, f) as usize)
}

/// Replays `schedule` through `kind` with `params` and ns-3's uniforms, and checks every packet
/// against `SCHEDULE.NAME.ns3.csv` and the outcome counts against its summary.
pub fn check_against_ns3(schedule: &str, kind: &str, name: &str, params: &[&str]) {
    let ours = run(schedule, kind, params, ns3_uniforms());
    assert_same(&ours.decisions, &reference(schedule, name));
    assert_eq!(
        outcome_counts(&ours.decisions),
        ns3_counts(schedule, name),
        "{schedule}.{name}"
    );
    eprintln!(
        "{schedule}.{name}: all {} packets agree ({kind} {})",
        ours.decisions.len(),
        params.join(" ")
    );
}

/// `a`'s parameters followed by `b`'s (a discipline's shared set and a vector's own).
pub fn with<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<&'a str> {
    a.iter().chain(b).copied().collect()
}
