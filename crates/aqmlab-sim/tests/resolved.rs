//! The resolved scenario (`scenario.resolved.toml`): rebuilt, it gives the same links, flows and
//! results as the run it was made from, bit for bit, and resolving it again changes nothing.

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::{build, build_with_sets, Overrides, Scenario};
use aqmlab_sim::summary::summary;
use aqmlab_sim::world::Sim;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(file: &str, sets: &[(&str, &str)], ov: &Overrides) -> Scenario {
    let path = root().join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    build_with_sets(&text, file, path.parent().unwrap(), "stem", &sets, ov)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Every flow's specification, as Debug text: what the simulation was built with.
fn flows(sim: &Sim) -> Vec<String> {
    (0..)
        .map_while(|i| sim.flow_spec(i))
        .map(|f| format!("{f:?}"))
        .collect()
}

/// The summary of `sc` run to `until`, without `wall_s`.
fn result(mut sc: Scenario, until: &str) -> String {
    let t = SimTime::ZERO + aqmlab_core::units::parse_duration(until).unwrap();
    sc.sim.run_until(t.min(SimTime::ZERO + sc.duration));
    let r = sc.sim.report();
    summary(&sc.name, sc.seed, &r, 0.0).to_string()
}

fn check(file: &str, sets: &[(&str, &str)], ov: &Overrides, until: &str) {
    let a = load(file, sets, ov);
    // Built from the resolved text alone, in another folder (its trace paths are absolute).
    let b = build(
        &a.resolved,
        "resolved",
        Path::new("/nonexistent"),
        "other",
        &Overrides::default(),
    )
    .unwrap_or_else(|e| {
        panic!(
            "{file}: the resolved scenario does not load: {e}\n{}",
            a.resolved
        )
    });
    assert_eq!(
        b.resolved, a.resolved,
        "{file}: resolving twice changes the file"
    );
    assert_eq!(flows(&b.sim), flows(&a.sim), "{file}: flows differ");
    assert_eq!(b.name, a.name);
    assert_eq!(b.seed, a.seed);
    assert_eq!(b.duration, a.duration);
    assert_eq!(b.csv, a.csv);
    let names_a: Vec<_> = a.sim.link_names().map(str::to_string).collect();
    let names_b: Vec<_> = b.sim.link_names().map(str::to_string).collect();
    assert_eq!(names_a, names_b, "{file}: link directions differ");
    assert_eq!(result(b, until), result(a, until), "{file}: results differ");
}

#[test]
fn bundled_scenarios_reproduce_from_their_resolved_files() {
    let ov = Overrides::default();
    check("scenarios/bulk-dumbbell.toml", &[], &ov, "3s");
    check("scenarios/codel-dynamic-link.toml", &[], &ov, "60s");
    check("scenarios/cellular-trace.toml", &[], &ov, "5s");
    check("scenarios/red-bursty.toml", &[], &ov, "5s");
    check("scenarios/web-overload.toml", &[], &ov, "2s");
    check("tests/reference/scenarios/mixed.toml", &[], &ov, "10s");
    // Pages, video, BBR v3, dctcp_g, prague_ecn_fallback, CAKE's shaper and ACK filter.
    check(
        "crates/aqmlab-sim/tests/resolved-new-keys.toml",
        &[],
        &ov,
        "4s",
    );
    // UDP on/off, random starts, TCP on/off, repeat, PackMime, Vegas, LEDBAT, recover_guard.
    check(
        "crates/aqmlab-sim/tests/resolved-flow-kinds.toml",
        &[],
        &ov,
        "4s",
    );
}

/// The `[[flows]]` table of flow `i` in a resolved file, as text (up to the next table).
fn flow_text(resolved: &str, i: usize) -> String {
    let at = resolved
        .match_indices("[[flows]]")
        .nth(i)
        .unwrap_or_else(|| panic!("no flows[{i}] in\n{resolved}"))
        .0;
    let rest = &resolved[at + 9..];
    let end = rest.find("\n[").unwrap_or(rest.len());
    rest[..end].to_string()
}

#[test]
fn the_resolved_flows_are_written_typed_every_key_explicit() {
    // What a --set gave, in canonical units, not as it was written.
    let sets = [
        ("flows[0].min_rto", "\"0.25s\""),
        ("flows[0].initial_ssthresh", "20"),
        ("flows[1].start", "\"uniform(0.5s, 1500ms)\""),
        ("flows[1].cc", "\"vegas\""),
        ("flows[1].vegas_beta", "6"),
    ];
    let a = load("scenarios/bulk-dumbbell.toml", &sets, &Overrides::default());
    let f0 = flow_text(&a.resolved, 0);
    assert!(f0.contains("\nmin_rto = \"250ms\"\n"), "{f0}");
    assert!(!f0.contains("0.25s"), "{f0}");
    assert!(f0.contains("\ninitial_ssthresh = 20\n"), "{f0}");
    let f1 = flow_text(&a.resolved, 1);
    assert!(
        f1.contains("\nstart = \"uniform(500ms, 1500ms)\"\n"),
        "{f1}"
    );
    assert!(f1.contains("\nvegas_beta = 6\n"), "{f1}");
    // Defaults the file never gave are written too, and only the flow's own algorithm's keys.
    for key in [
        "\nmss = 1460\n",
        "\ndelack_timeout = \"40ms\"\n",
        "\nmax_rto = \"60s\"\n",
        "\napp = \"bulk\"\n",
        "\nvegas_alpha = 1\n",
        "\nrecovery = \"rfc6675\"\n",
    ] {
        assert!(f1.contains(key), "{key} not in {f1}");
    }
    assert!(!f1.contains("cubic_"), "{f1}");
    check(
        "scenarios/bulk-dumbbell.toml",
        &sets,
        &Overrides::default(),
        "3s",
    );
}

#[test]
fn overrides_are_resolved_too() {
    // A swapped discipline, every TCP knob away from its default, a seed beyond TOML's integers.
    let ov = Overrides {
        seed: Some(u64::MAX),
        qdisc: vec![("bottleneck".into(), "pie".into())],
        packet_log: vec!["bottleneck.rev".into()],
        ..Overrides::default()
    };
    let sets = [
        ("flows[0].cc", "reno"),
        ("flows[0].mss", "1000"),
        ("flows[0].max_window", "300"),
        ("flows[0].initial_cwnd", "4"),
        ("flows[0].delayed_ack", "true"),
        ("flows[0].sack", "false"),
        ("flows[0].ecn", "true"),
        ("flows[0].hystart", "true"),
        ("flows[0].min_rto", "\"300ms\""),
        ("flows[0].delack_timeout", "\"100ms\""),
        ("flows[0].syn_retries", "3"),
        ("flows[0].recover_guard", "true"),
        ("flows[0].name", "\"first\""),
        ("flows[1].start", "\"1.5s\""),
        ("dumbbell.bottleneck.params.target", "\"20ms\""),
        ("dumbbell.bottleneck.loss", "0.001"),
        ("bin", "\"50ms\""),
    ];
    check("scenarios/bulk-dumbbell.toml", &sets, &ov, "4s");
    let a = load("scenarios/bulk-dumbbell.toml", &sets, &ov);
    // The discipline's parameters are all written, the one --set gave among them.
    assert!(a.resolved.contains("qdisc = \"pie\""), "{}", a.resolved);
    assert!(a.resolved.contains("target = \"20ms\""), "{}", a.resolved);
    assert!(
        a.resolved.contains("recover_guard = true"),
        "{}",
        a.resolved
    );
    assert!(
        a.resolved.contains("seed = \"18446744073709551615\""),
        "{}",
        a.resolved
    );
}
