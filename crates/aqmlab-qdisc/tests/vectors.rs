//! Agreement with ns-3 3.37's decisions on the bundled schedules (`vectors/README.md` gives the
//! parameters ns-3 used). DropTail, CoDel (ns-3 arithmetic), RED and PIE (both with ns-3's random
//! draws) agree on every packet. (The issue asked only for PIE's outcome counts within a few
//! percent; that weaker check is kept too, for the `rfc` variant.) FQ-CoDel with `variant=ns3`
//! agrees on every packet of the four multi-flow schedules `fq_*`, made by our own ns-3 driver
//! (`vectors/tools/`), and the tests count what each of Linux's rules would change.

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

/// The multi-flow FQ-CoDel schedules (`vectors/tools/gen_fq_schedules.py`) and the parameters
/// ns-3 3.37's `FqCoDelQueueDisc` ran them with (`vectors/tools/make_fq_vectors.sh`): FqCoDel's
/// defaults except the quantum (ns-3 takes the device MTU; there is no device) and, on
/// `fq_overflow`, the limit.
const FQ_NS3: &[(&str, &str)] = &[
    ("fq_sizes", "limit=10240p"),
    ("fq_sparse", "limit=10240p"),
    ("fq_overflow", "limit=64p"),
    ("fq_ecn", "limit=10240p"),
];

fn fq_run(schedule: &str, limit: &str, extra: &[&str]) -> Vec<aqmlab_qdisc::replay::Decision> {
    let mut params = vec![
        limit,
        "flows=1024",
        "quantum=1514",
        "drop_batch=64",
        "ecn=true",
        "target=5ms",
        "interval=100ms",
    ];
    params.extend_from_slice(extra);
    run(schedule, "fq_codel", &params, UniformSource::seeded(1)).decisions
}

#[test]
fn fq_codel_ns3_variant_agrees_with_ns3_fq_codel() {
    for (s, limit) in FQ_NS3 {
        let ours = fq_run(s, limit, &["variant=ns3"]);
        assert_same(&ours, &reference(s, "fq_codel"));
    }
}

/// ns-3 3.37's set-associative hash (`EnableSetAssociativeHash`, `SetWays` 8, after Linux CAKE's
/// `cake_hash`): fourteen flows crowd the first set of eight queues on `fq_setways`
/// (`vectors/tools/gen_setways_schedule.py`, `make_fq_vectors.sh`). `hash=set_associative`
/// agrees with ns-3 on every packet; without it (`hash=flow_id`, ns-3's own run without the
/// set-associative hash disagrees on 2,992 of the 3,186) most packets differ.
#[test]
fn fq_codel_set_associative_hash_agrees_with_ns3() {
    let theirs = reference("fq_setways", "fq_codel");
    let ours = fq_run(
        "fq_setways",
        "limit=10240p",
        &["variant=ns3", "hash=set_associative", "set_ways=8"],
    );
    assert_same(&ours, &theirs);
    let plain = fq_run("fq_setways", "limit=10240p", &["variant=ns3"]);
    assert!(differing(&plain, &theirs) > 2000);
    // Sets of 4 instead of 8 are another hash.
    let four = fq_run(
        "fq_setways",
        "limit=10240p",
        &["variant=ns3", "hash=set_associative", "set_ways=4"],
    );
    assert!(differing(&four, &theirs) > 100);
}

/// Each vector distinguishes some of the ns-3 rules that `variant=ns3` selects: switching one
/// rule back to Linux's (keeping everything else ns-3's) makes this many packets disagree with
/// ns-3 (a packet disagrees when its outcome or time differs). Every rule is caught by at least
/// one vector; `fq_sparse` distinguishes none of them (only the CoDel arithmetic: `variant=rfc`).
#[test]
fn fq_codel_vectors_distinguish_each_ns3_rule() {
    let cases: &[(&str, [usize; 4])] = &[
        // (switch, differing packets on fq_sizes, fq_sparse, fq_overflow, fq_ecn)
        ("empty_new_flow=remove_if_no_old", [512, 0, 0, 241]),
        ("overflow_count=bump", [0, 0, 1458, 0]),
        ("fattest_tie=lowest_bucket", [0, 0, 1387, 0]),
        ("flow_limit=none", [0, 0, 79, 0]),
        ("mtu_scope=total", [118, 0, 0, 0]),
    ];
    for (switch, want) in cases {
        let got: Vec<usize> = FQ_NS3
            .iter()
            .map(|(s, limit)| {
                differing(
                    &fq_run(s, limit, &["variant=ns3", switch]),
                    &reference(s, "fq_codel"),
                )
            })
            .collect();
        assert_eq!(got, want, "variant=ns3 {switch}");
    }
    // All of Linux's rules with ns-3's CoDel arithmetic, and the two other variants.
    let linux_rules = [
        "variant=ns3",
        "empty_new_flow=remove_if_no_old",
        "overflow_count=bump",
        "fattest_tie=lowest_bucket",
        "flow_limit=none",
        "mtu_scope=total",
    ];
    for (extra, want) in [
        (&linux_rules[..], [584, 0, 1585, 241]),
        (&["variant=linux"][..], [584, 0, 1585, 251]),
        (&["variant=rfc"][..], [580, 427, 1555, 502]),
    ] {
        let got: Vec<usize> = FQ_NS3
            .iter()
            .map(|(s, limit)| differing(&fq_run(s, limit, extra), &reference(s, "fq_codel")))
            .collect();
        assert_eq!(got, want, "{extra:?}");
    }
}

/// Random cross-check against ns-3 3.37 on schedules made by `vectors/tools/fq_crosscheck.py`
/// (which needs ns-3, so this test is ignored): set `AQMLAB_FQ_XCHECK` to its output folder.
/// Fails if any packet of any schedule differs, after listing each differing schedule.
/// `AQMLAB_FQ_XCHECK_EXTRA` adds parameters (e.g. one of Linux's rules, to see it matter).
#[test]
#[ignore = "needs schedules made with ns-3: see vectors/tools/fq_crosscheck.py"]
fn fq_codel_ns3_variant_agrees_with_ns3_on_random_schedules() {
    let dir = std::path::PathBuf::from(
        std::env::var("AQMLAB_FQ_XCHECK")
            .expect("set AQMLAB_FQ_XCHECK to fq_crosscheck.py's folder"),
    );
    let extra = std::env::var("AQMLAB_FQ_XCHECK_EXTRA").unwrap_or_default();
    let manifest = std::fs::read_to_string(dir.join("manifest.txt")).unwrap();
    let (mut schedules, mut packets, mut bad) = (0, 0, 0);
    for line in manifest.lines().filter(|l| !l.trim().is_empty()) {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap();
        let params: Vec<&str> = words
            .chain(["variant=ns3"])
            .chain(extra.split_whitespace())
            .collect();
        let read = |suffix: &str| std::fs::read(dir.join(format!("{name}.{suffix}"))).unwrap();
        let rows = aqmlab_qdisc::replay::parse_schedule(&read("schedule.csv")).unwrap();
        let pairs = aqmlab_qdisc::Params::split_pairs(&params).unwrap();
        let mut q = aqmlab_qdisc::Qdisc::new(
            aqmlab_qdisc::registry::build("fq_codel", &pairs, UniformSource::seeded(1)).unwrap(),
        );
        let ours = aqmlab_qdisc::replay::replay(&mut q, &rows, false)
            .unwrap()
            .decisions;
        let theirs = aqmlab_qdisc::replay::parse_decisions(
            &String::from_utf8(read("fq_codel.ns3.csv")).unwrap(),
        )
        .unwrap();
        let n = differing(&ours, &theirs);
        schedules += 1;
        packets += ours.len();
        if n > 0 {
            bad += 1;
            eprintln!("{line}: {n} of {} packets differ", ours.len());
        }
    }
    eprintln!("{bad} of {schedules} schedules ({packets} packets) differ");
    assert_eq!(bad, 0);
}
