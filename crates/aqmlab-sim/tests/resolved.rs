//! The resolved scenario (`scenario.resolved.toml`): rebuilt, it gives the same links, flows and
//! results as the run it was made from, bit for bit, and resolving it again changes nothing.

use aqmlab_core::SimTime;
use aqmlab_qdisc::{Type, Value};
use aqmlab_sim::scenario::{
    build, build_with_sets, resolve_with_edits, Overrides, ResolvedScenario, Scenario,
};
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
    // CoDel, RED, PIE, CAKE, DualPI2 and FQ-CoDel, their parameters given as TOML values and
    // as strings.
    check(PARAM_TYPES, &[], &ov, "4s");
    // UDP on/off, random starts, TCP on/off, repeat, PackMime, Vegas, LEDBAT, recover_guard.
    check(
        "crates/aqmlab-sim/tests/resolved-flow-kinds.toml",
        &[],
        &ov,
        "4s",
    );
}

/// Resolves `text` (a scenario, with its `--set` edits) without building it.
fn resolve(text: &str, sets: &[(&str, &str)]) -> ResolvedScenario {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    resolve_with_edits(
        text,
        "t.toml",
        Path::new("."),
        "t",
        &[],
        &sets,
        &Overrides::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

const PARAM_TYPES: &str = "crates/aqmlab-sim/tests/resolved-param-types.toml";

/// The `params` table of every link direction of a resolved file, by direction name
/// (`codel`, `codel.rev`).
fn written_params(resolved: &str) -> Vec<(String, toml::Table)> {
    let doc: toml::Table = resolved
        .parse()
        .unwrap_or_else(|e| panic!("{e}\n{resolved}"));
    let mut out = Vec::new();
    for l in doc["links"].as_array().unwrap() {
        let name = l["name"].as_str().unwrap();
        let params = |t: &toml::Value| t["params"].as_table().unwrap().clone();
        out.push((name.to_string(), params(l)));
        if let Some(r) = l.get("reverse") {
            out.push((format!("{name}.rev"), params(r)));
        }
    }
    out
}

/// Issue 20: the resolved file writes each discipline parameter in its type's TOML form (a
/// boolean as a boolean, a number as a float, a whole number as an integer; durations, rates,
/// sizes, choices and words like `auto` as their text), whether the file gave it as a TOML
/// value or as a string, and every discipline of the scenario is checked, each parameter.
#[test]
fn the_resolved_disciplines_parameters_are_written_in_their_types_toml_form() {
    let text = std::fs::read_to_string(root().join(PARAM_TYPES)).unwrap();
    let r = resolve(&text, &[]);
    let written = written_params(&r.to_toml());
    assert_eq!(written.len(), 12, "six links, each with its reverse");
    for d in &r.directions {
        let (_, table) = written.iter().find(|(n, _)| *n == d.name).unwrap();
        let kind = aqmlab_qdisc::Kind::from_name(d.params.kind()).unwrap();
        for spec in kind.params() {
            let w = &table[spec.name];
            let ok = match (spec.ty, d.params.value(spec.name)) {
                (_, Value::Word(word)) => w.as_str() == Some(word),
                (Type::Bool, Value::Bool(b)) => w.as_bool() == Some(b),
                (Type::Number, Value::Number(x)) => {
                    w.as_float().map(f64::to_bits) == Some(x.to_bits())
                }
                (Type::Integer, Value::Integer(n)) => w.as_integer() == i64::try_from(n).ok(),
                _ => w.as_str() == Some(d.params.raw_value(spec.name)),
            };
            assert!(ok, "{}: {} written as {w}", d.name, spec.name);
        }
    }
    // The values the issue names, given as strings or as TOML values.
    let get = |dir: &str, k: &str| written.iter().find(|(n, _)| n == dir).unwrap().1[k].clone();
    assert_eq!(get("codel", "ecn"), toml::Value::Boolean(true));
    assert_eq!(get("codel", "l4s"), toml::Value::Boolean(false));
    assert_eq!(get("codel", "limit"), toml::Value::String("100p".into()));
    assert_eq!(get("codel", "target"), toml::Value::String("3ms".into()));
    assert_eq!(get("red", "w_q"), toml::Value::Float(0.002)); // given as "0.002"
    assert_eq!(get("red", "gentle"), toml::Value::Boolean(false)); // given as "false"
    assert_eq!(get("red", "min_th"), toml::Value::Float(5.0)); // given as 5
    assert_eq!(get("red", "bottom"), toml::Value::String("auto".into()));
    assert_eq!(get("red", "mode"), toml::Value::String("packet".into()));
    assert_eq!(
        get("red", "bandwidth"),
        toml::Value::String("18Mbps".into())
    );
    assert_eq!(get("pie", "ecn"), toml::Value::Boolean(true)); // given as "true"
    assert_eq!(get("pie", "beta"), toml::Value::Float(1.25)); // given as "1.25"
    assert_eq!(get("cake", "overhead"), toml::Value::Float(0.0)); // a number (may be < 0)
    assert_eq!(get("dualpi2", "coupling_factor"), toml::Value::Integer(3));
    assert_eq!(
        get("dualpi2", "drop_on_overload"),
        toml::Value::Boolean(false)
    );
    assert_eq!(get("fq_codel", "drop_batch"), toml::Value::Integer(64));
    assert_eq!(get("fq_codel", "flows"), toml::Value::Integer(256)); // given as "256"
    assert_eq!(get("cake.rev", "head_drop"), toml::Value::Boolean(false)); // drop-tail
}

/// The resolved file read back gives every discipline parameter the value it was resolved to,
/// bit for bit: floats like 1/3 and 0.1 included, and the file is the same when resolved again.
#[test]
fn the_resolved_disciplines_parameters_read_back_bit_identical() {
    let text = std::fs::read_to_string(root().join(PARAM_TYPES)).unwrap();
    for (alpha, max_p) in [(1.0_f64 / 3.0, "0.1"), (0.1, "0.30000000000000004")] {
        // Written as Rust's shortest text that parses to the f64.
        let alpha_toml = format!("{alpha:?}");
        let a = resolve(
            &text,
            &[
                ("links[2].params.alpha", &alpha_toml),
                ("links[1].params.max_p", max_p),
            ],
        );
        let pie = a.directions.iter().find(|d| d.name == "pie").unwrap();
        assert_eq!(pie.params.f64("alpha").to_bits(), alpha.to_bits());
        let b = resolve(&a.to_toml(), &[]);
        assert_eq!(b.to_toml(), a.to_toml(), "resolving twice changes the file");
        assert_eq!(a.directions.len(), b.directions.len());
        for (da, db) in a.directions.iter().zip(&b.directions) {
            let kind = aqmlab_qdisc::Kind::from_name(da.params.kind()).unwrap();
            for spec in kind.params() {
                // Debug text: f64s shortest-exact, so any bit that moved shows.
                let (va, vb) = (da.params.value(spec.name), db.params.value(spec.name));
                assert_eq!(
                    format!("{va:?}"),
                    format!("{vb:?}"),
                    "{}: {}",
                    da.name,
                    spec.name
                );
            }
        }
    }
}

/// A discipline parameter given as a TOML boolean or number resolves, and runs, exactly as the
/// same value given as a string.
#[test]
fn a_parameter_given_as_a_toml_value_or_as_its_string_is_the_same() {
    let ov = Overrides::default();
    let as_values = [
        ("links[0].params.ecn", "true"),
        ("links[1].params.max_p", "0.1"),
        ("links[5].params.drop_batch", "64"),
    ];
    let as_strings = [
        ("links[0].params.ecn", "\"true\""),
        ("links[1].params.max_p", "\"0.1\""),
        ("links[5].params.drop_batch", "\"64\""),
    ];
    let a = load(PARAM_TYPES, &as_values, &ov);
    let b = load(PARAM_TYPES, &as_strings, &ov);
    assert_eq!(a.resolved, b.resolved);
    assert_eq!(result(a, "2s"), result(b, "2s"));
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
