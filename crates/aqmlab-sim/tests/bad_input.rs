//! Bad scenario input: each case fails before simulating with one line naming the key (and
//! never the loader's internal type names), and the spellings it accepts.

use aqmlab_sim::scenario::{build, Overrides, MAX_FLOWS};
use std::path::Path;

const BASE: &str = r#"duration = "10s"
[dumbbell]
senders = 1
access_rate = "1Gbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
rate = "10Mbps"
delay = "10ms"
buffer = "100p"
[[flows]]
kind = "udp"
from = "s1"
to = "r1"
rate = "1Mbps"
"#;

fn err(text: &str) -> String {
    match build(text, "t.toml", Path::new("."), "t", &Overrides::default()) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => {
            let s = e.to_string();
            assert!(!s.contains('\n'), "one line: {s}");
            assert!(!s.contains("Raw"), "an internal type name: {s}");
            s
        }
    }
}

fn ok(text: &str) {
    if let Err(e) = build(text, "t.toml", Path::new("."), "t", &Overrides::default()) {
        panic!("{e}");
    }
}

#[test]
fn a_flow_that_can_never_run_is_refused() {
    let e = err(&format!("{BASE}start = \"10s\"\n"));
    assert_eq!(
        e,
        "t.toml:16: flows[0].start: expected a start before the end of the run (10s), got \"10s\": this flow would never run"
    );
    let e = err(&format!("{BASE}start = \"2s\"\nstop = \"2s\"\n"));
    assert!(
        e.starts_with("t.toml:17: flows[0].stop: expected a stop after the start (2s), got \"2s\""),
        "{e}"
    );
    ok(&format!("{BASE}start = \"2s\"\nstop = \"2.5s\"\n"));
}

#[test]
fn values_beyond_64_bits_name_the_key_and_the_limit() {
    let e = err(&BASE.replace("buffer = \"100p\"", "buffer = \"99999999999999999999999p\""));
    assert_eq!(
        e,
        "t.toml:10: dumbbell.bottleneck.buffer: \"99999999999999999999999p\" is beyond the 64-bit range: expected at most 18446744073709551615 (bytes, packets, bit/s or ns)"
    );
    // An exponent is a number like any other: 1e30 bytes is out of range, not a missing unit.
    let e = err(&BASE.replace("buffer = \"100p\"", "buffer = \"1e30B\""));
    assert!(
        e.contains("dumbbell.bottleneck.buffer: \"1e30B\" is beyond the 64-bit range"),
        "{e}"
    );
    let e = err(&BASE.replace(
        "buffer = \"100p\"",
        "buffer = \"100000000000000000000000B\"",
    ));
    assert!(
        e.contains(
            "dumbbell.bottleneck.buffer: \"100000000000000000000000B\" is beyond the 64-bit range"
        ),
        "{e}"
    );
    // A duration or rate too large for 64 bits is beyond the documented maximum.
    let e = err(&BASE.replace(
        "duration = \"10s\"",
        "duration = \"99999999999999999999999s\"",
    ));
    assert!(
        e.starts_with(
            "t.toml:1: duration: expected a duration of at most 1000000s (about 11.6 days)"
        ) && e.ends_with("which is beyond the maximum"),
        "{e}"
    );
    let e = err(&BASE.replace("rate = \"10Mbps\"", "rate = \"99999999999999999999Gbps\""));
    assert!(
        e.contains("expected a rate of at most 1000Gbps") && e.ends_with("beyond the maximum"),
        "{e}"
    );
}

#[test]
fn empty_node_names_are_refused() {
    let graph = r#"duration = "1s"
nodes = ["a", " "]
[[links]]
name = "l"
from = "a"
to = " "
rate = "1Mbps"
delay = "1ms"
"#;
    let e = err(graph);
    assert!(
        e.starts_with("t.toml:2: nodes[1]: expected a node name that is not empty or blank"),
        "{e}"
    );
    assert!(err(&graph.replace("\" \"", "\"\"")).contains("nodes[1]"));
}

#[test]
fn a_buffer_given_twice_names_both_keys() {
    let e = err(&BASE.replace(
        "buffer = \"100p\"",
        "buffer = \"100p\"\nparams = { limit = \"50p\" }",
    ));
    assert_eq!(
        e,
        "t.toml:10: dumbbell.bottleneck.buffer: the buffer is given twice, as dumbbell.bottleneck.buffer = \"100p\" and as dumbbell.bottleneck.params.limit: give one of them"
    );
    // Either alone is fine.
    ok(&BASE.replace("buffer = \"100p\"", "params = { limit = \"50p\" }"));
}

/// Two links, `l0` (a buffer, and a CoDel `limit` a `--qdisc` swap drops) and `l1` (CoDel),
/// resolved with the `--set` edits `sets` and the swap `l0=pie`.
fn two_links_swapped(sets: &[(&str, &str)]) -> Result<(), String> {
    let text = r#"duration = "1s"
nodes = ["a", "b", "c"]
[[links]]
name = "l0"
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"
buffer = "100p"
qdisc = "codel"
params = { limit = "50p", target = "5ms" }
[[links]]
name = "l1"
from = "b"
to = "c"
rate = "10Mbps"
delay = "5ms"
qdisc = "codel"
[[flows]]
kind = "udp"
from = "a"
to = "c"
rate = "1Mbps"
"#;
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let ov = Overrides {
        qdisc: vec![("l0".into(), "pie".into())],
        ..Default::default()
    };
    aqmlab_sim::scenario::resolve_with_edits(text, "t.toml", Path::new("."), "t", &[], &sets, &ov)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn a_buffer_is_given_twice_only_by_its_own_directions_limit() {
    // The swap drops l0's `limit` and keeps its buffer; a --set of the other link's limit
    // gives l0 nothing (it was refused as l0's buffer given twice).
    two_links_swapped(&[]).unwrap();
    two_links_swapped(&[("links[1].params.limit", "80p")]).unwrap();
    two_links_swapped(&[("links[1].params", "{ limit = \"80p\" }")]).unwrap();
    // A --set of l0's own limit (or its whole table) is the buffer given twice.
    let twice = "t.toml:9: links[0].buffer: the buffer is given twice, as links[0].buffer = \"100p\" and as links[0].params.limit: give one of them";
    assert_eq!(
        two_links_swapped(&[("links[0].params.limit", "80p")]).unwrap_err(),
        twice
    );
    assert_eq!(
        two_links_swapped(&[("links[0].params", "{ limit = \"80p\" }")]).unwrap_err(),
        twice
    );
}

#[test]
fn internal_type_names_never_show() {
    let e = err("duration = \"1s\"\ndumbbell = \"x\"\n");
    assert!(
        e.contains("dumbbell: invalid type: string \"x\", expected a table"),
        "{e}"
    );
    let e = err(&BASE.replace("[dumbbell.bottleneck]\n", "bottleneck = 5\n[x]\n"));
    assert!(e.contains("expected a table"), "{e}");
    let e = err("duration = \"1s\"\nflows = 3\n");
    assert!(
        e.contains("flows: invalid type: integer `3`, expected a list"),
        "{e}"
    );
}

#[test]
fn flows_are_limited_in_number() {
    let flow = "[[flows]]\nkind = \"udp\"\nfrom = \"s1\"\nto = \"r1\"\nrate = \"1kbps\"\n";
    let many = format!("{BASE}{}", flow.repeat(MAX_FLOWS));
    assert_eq!(
        err(&many),
        format!(
            "t.toml: flows: expected at most {MAX_FLOWS} flows, got {}",
            MAX_FLOWS + 1
        )
    );
}

#[test]
fn tc_spellings_of_units_are_accepted() {
    ok(&BASE
        .replace("rate = \"10Mbps\"", "rate = \"10mbit\"")
        .replace("delay = \"10ms\"", "delay = \"10msec\""));
    ok(&BASE
        .replace("rate = \"1Mbps\"", "rate = \"500kbit\"")
        .replace("duration = \"10s\"", "duration = \"10secs\""));
    ok(&BASE
        .replace("rate = \"10Mbps\"", "rate = \"1gbit\"")
        .replace("delay = \"10ms\"", "delay = \"250usec\""));
    // tc's "mbps" is megabytes per second there: refused here rather than misread.
    assert!(err(&BASE.replace("rate = \"10Mbps\"", "rate = \"10mbps\""))
        .contains("expected a rate with a unit"));
}

/// Issue 20: `size_sigma = 1000` was accepted, and a web flow's transfers were then 1 byte each.
/// The bound is min(3, √(2·ln size_mean)) (`world::max_lognormal_sigma`).
#[test]
fn lognormal_sigma_is_bounded() {
    let web = BASE.replace(
        "kind = \"udp\"\nfrom = \"s1\"\nto = \"r1\"\nrate = \"1Mbps\"\n",
        "kind = \"tcp\"\nfrom = \"s1\"\nto = \"r1\"\napp = \"web\"\nconns_per_s = 5\nsize_dist = \"lognormal\"\nsize_sigma = SIGMA\n",
    );
    ok(&web.replace("SIGMA", "3.0"));
    let e = err(&web.replace("SIGMA", "1000"));
    assert!(
        e.starts_with("t.toml:18: flows[0].size_sigma: expected sigma from 0 to 3 (above 3 ")
            && e.ends_with("got 1000"),
        "{e}"
    );
    let e = err(&web.replace("SIGMA", "3.01"));
    assert!(e.contains("expected sigma from 0 to 3 "), "{e}");
    // A 20-byte mean: the median 20·exp(−σ²/2) reaches 1 byte at σ = √(2·ln 20) = 2.4477.
    let small = web.replace("size_sigma", "size_mean = \"20B\"\nsize_sigma");
    ok(&small.replace("SIGMA", "2.447"));
    let e = err(&small.replace("SIGMA", "2.448"));
    assert!(
        e.contains("expected sigma from 0 to 2.447 (√(2·ln size_mean)"),
        "{e}"
    );
    assert_eq!(aqmlab_sim::world::max_lognormal_sigma(1.0), 0.0);
}

/// Issue 20: a seed beyond TOML's integers said "number too large to fit in target type"
/// without its key.
#[test]
fn too_large_integers_name_their_key() {
    let e = err(&format!("seed = 18446744073709551615\n{BASE}"));
    assert!(
        e.starts_with("t.toml:1: seed: expected a whole number from -9223372036854775808 to 9223372036854775807 (TOML's integer range), got a larger one; write a larger seed"),
        "{e}"
    );
    ok(&format!("seed = \"18446744073709551615\"\n{BASE}"));
    let e = err(&BASE.replace(
        "buffer = \"100p\"",
        "params = { limit = 99999999999999999999 }",
    ));
    assert!(
        e.starts_with("t.toml:10: limit: expected a whole number"),
        "{e}"
    );
}

/// Counts are added up before any is expanded: ten tables of `count = 100000` fail at once.
#[test]
fn counts_are_limited_before_expanding() {
    let flow =
        "[[flows]]\ncount = 100000\nkind = \"udp\"\nfrom = \"s1\"\nto = \"r1\"\nrate = \"1kbps\"\n";
    #[allow(clippy::disallowed_methods)] // wall time bounds the test, not the model
    let t0 = std::time::Instant::now();
    assert_eq!(
        err(&format!("{BASE}{}", flow.repeat(10))),
        format!("t.toml: flows: expected at most {MAX_FLOWS} flows, got 1000001 (counts included)")
    );
    assert!(t0.elapsed().as_secs_f64() < 5.0, "{:?}", t0.elapsed());
}

static WARNED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn count_warning(msg: &str) {
    assert!(
        msg.starts_with(
            "t.toml: flows: 10001 flows (over 10000): the run is projected to take about 134 MB"
        ),
        "{msg}"
    );
    WARNED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

/// Over WARN_FLOWS flows, a warning with the projected memory: through `warn_now` before the
/// scenario is built, else among the scenario's warnings.
#[test]
fn many_flows_warn_with_projected_memory() {
    use aqmlab_sim::scenario::{BASE_RUN_BYTES, BYTES_PER_FLOW, WARN_FLOWS};
    assert_eq!(WARN_FLOWS, 10_000);
    // 36.8 MB + 10001 · 9.7 kB = 133.81 MB, rounded up.
    assert_eq!(
        (BASE_RUN_BYTES + 10_001 * BYTES_PER_FLOW).div_ceil(1_000_000),
        134
    );
    let many = BASE.replace("[[flows]]\n", "[[flows]]\ncount = 10001\n");
    let sc = build(&many, "t.toml", Path::new("."), "t", &Overrides::default()).unwrap();
    assert_eq!(
        sc.warnings
            .iter()
            .filter(|w| w.contains("10001 flows"))
            .count(),
        1
    );
    let ov = Overrides {
        warn_now: Some(count_warning),
        ..Overrides::default()
    };
    let sc = build(&many, "t.toml", Path::new("."), "t", &ov).unwrap();
    assert_eq!(WARNED.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert!(!sc.warnings.iter().any(|w| w.contains("10001 flows")));
    let fewer = BASE.replace("[[flows]]\n", "[[flows]]\ncount = 10000\n");
    let sc = build(&fewer, "t.toml", Path::new("."), "t", &ov).unwrap();
    assert_eq!(WARNED.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert!(!sc.warnings.iter().any(|w| w.contains("flows (over")));
}

/// Too many `[[flows]]` tables are refused before the TOML is read (reading 280 000 tables took
/// 1.2 GB): the syntax error at the end of this file is never reached.
#[test]
fn too_many_flow_tables_are_refused_before_reading() {
    let flow = "[[ flows ]] # one\nkind = \"udp\"\n";
    let text = format!("{BASE}{}this is not TOML\n", flow.repeat(MAX_FLOWS));
    assert_eq!(
        err(&text),
        format!(
            "t.toml: flows: expected at most {MAX_FLOWS} flows, got {}",
            MAX_FLOWS + 1
        )
    );
    // At the limit, the file is read, and its error is the syntax error.
    let text = format!(
        "{}{}this is not TOML\n",
        BASE.replace("[[flows]]\n", "[[flows]]\nx = 1\n"),
        flow.repeat(MAX_FLOWS - 1)
    );
    assert!(!err(&text).contains("at most"));
}

/// `[output] flow_series`: one of its words or a list of flows, each an index of the scenario's
/// flows or a flow's name, at most once; an error names the key (an entry by its position) and
/// what was expected.
#[test]
fn flow_series_names_the_key_and_what_it_expects() {
    let named = BASE.replace("rate = \"1Mbps\"\n", "rate = \"1Mbps\"\nname = \"video\"\n");
    let with = |v: &str| format!("{named}[output]\nflow_series = {v}\n");
    let expected =
        "expected \"auto\", \"all\", \"none\" or a list of flows (each an index or a name)";
    assert_eq!(
        err(&with("\"every\"")),
        format!("t.toml:18: output.flow_series: {expected}, got \"every\"")
    );
    assert_eq!(
        err(&with("true")),
        format!("t.toml:18: output.flow_series: {expected}, got true")
    );
    assert_eq!(
        err(&with("[1]")),
        "t.toml:18: output.flow_series[0]: expected a flow index 0..1 (the scenario has 1 flows), got 1"
    );
    assert_eq!(
        err(&with("[0, -1]")),
        "t.toml:18: output.flow_series[1]: expected a flow index 0..1 (the scenario has 1 flows), got -1"
    );
    assert_eq!(
        err(&with("[\"audio\"]")),
        "t.toml:18: output.flow_series[0]: expected the name of a flow, got \"audio\": no flow has it"
    );
    assert_eq!(
        err(&with("[0, \"video\"]")),
        "t.toml:18: output.flow_series[1]: flow 0 is listed twice: expected each flow at most once"
    );
    assert_eq!(
        err(&with("[0.5]")),
        "t.toml:18: output.flow_series[0]: expected a flow index or a flow's name, got 0.5"
    );
    for v in [
        "\"auto\"",
        "\"all\"",
        "\"none\"",
        "[]",
        "[0]",
        "[\"video\"]",
    ] {
        ok(&with(v));
    }
}
