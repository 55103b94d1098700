//! Scenario files: a valid file builds and runs; each kind of bad input fails before simulating
//! with one line naming the file, line and key path.

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::{build, Overrides, Scenario, ScenarioError};
use std::path::Path;

const GOOD: &str = r#"
name = "udp-over-dumbbell"
duration = "2s"
seed = 7

[dumbbell]
senders = 2
access_rate = "100Mbps"
sender_delay = ["1ms", "2ms"]
receiver_delay = "3ms"
access_buffer = "1000p"

[dumbbell.bottleneck]
rate = "10Mbps"
delay = "10ms"
qdisc = "codel"
buffer = "100p"
params = { target = "5ms", interval = "100ms" }

[[flows]]
kind = "udp"
from = "s1"
to = "r1"
rate = "6Mbps"
size = 1500

[[flows]]
kind = "udp"
from = "s2"
to = "r2"
rate = "6Mbps"
start = "500ms"
"#;

fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    parse_with(text, &Overrides::default())
}

fn parse_with(text: &str, ov: &Overrides) -> Result<Scenario, ScenarioError> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    build(text, "t.toml", dir, "t", ov)
}

fn err(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_valid_dumbbell_builds_and_runs() {
    let mut s = parse(GOOD).unwrap();
    assert_eq!((s.name.as_str(), s.seed), ("udp-over-dumbbell", 7));
    s.sim.run_until(SimTime::ZERO + s.duration);
    let r = s.sim.report();
    let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    assert_eq!(b.qdisc, "codel");
    assert!(b.utilization > 0.7, "{}", b.utilization);
    assert!(b.m.dropped_pkts > 0);
    assert_eq!(r.flows.len(), 2);
}

#[test]
fn qdisc_override_swaps_the_discipline_and_keeps_the_buffer() {
    let ov = Overrides {
        seed: Some(3),
        qdisc: vec![("bottleneck".into(), "droptail".into())],
        packet_log: vec!["bottleneck".into()],
        ..Overrides::default()
    };
    let mut s = parse_with(GOOD, &ov).unwrap();
    assert_eq!(s.seed, 3);
    s.sim.run_until(SimTime::ZERO + s.duration);
    let r = s.sim.report();
    let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    assert_eq!(b.qdisc, "droptail");
    // The 100-packet buffer is kept: the backlog never exceeded it.
    assert!(
        b.m.max_backlog_pkts <= 100 && b.m.max_backlog_pkts >= 99,
        "{}",
        b.m.max_backlog_pkts
    );
    let rev = r.links.iter().find(|l| l.name == "bottleneck.rev").unwrap();
    assert_eq!(rev.qdisc, "droptail");
    // The per-packet log holds one record per packet released, with the summary's sojourns.
    let (name, log) = s.sim.packet_logs().next().unwrap();
    assert_eq!(name, "bottleneck");
    assert_eq!(log.len() as u64, b.m.delivered_pkts + b.in_flight as u64);
    let max = log.iter().map(|r| r.sojourn_ns).max().unwrap() as f64;
    assert_eq!(max, b.m.sojourn_ns.max());
    let e = parse_with(
        GOOD,
        &Overrides {
            seed: None,
            qdisc: vec![("nope".into(), "red".into())],
            packet_log: vec![],
            ..Overrides::default()
        },
    )
    .err()
    .unwrap();
    assert!(
        e.to_string()
            .starts_with("t.toml: --qdisc nope=red: no link named \"nope\"; links: s1.access"),
        "{e}"
    );
}

#[test]
fn unknown_key_names_line_and_path() {
    let e = err(&GOOD.replace("access_buffer", "acess_buffer"));
    assert!(e.starts_with("t.toml:11: dumbbell.acess_buffer: unknown field `acess_buffer`, expected one of `senders`"), "{e}");
}

#[test]
fn value_without_unit_names_line_and_path() {
    let e = err(&GOOD.replace("rate = \"10Mbps\"", "rate = \"10\""));
    assert_eq!(e, "t.toml:14: dumbbell.bottleneck.rate: expected a rate with a unit, like \"10Mbps\", \"1.5Gbps\", \"500kbps\" or \"64000bps\", got \"10\"");
    let e = err(&GOOD.replace("buffer = \"100p\"", "buffer = \"100\""));
    assert!(
        e.starts_with("t.toml:17: dumbbell.bottleneck.buffer: expected a size in packets"),
        "{e}"
    );
}

#[test]
fn negative_rate_is_refused() {
    let e = err(&GOOD.replace("rate = \"6Mbps\"\nsize", "rate = \"-6Mbps\"\nsize"));
    assert!(
        e.starts_with("t.toml:24: flows[0].rate: expected a rate with a unit"),
        "{e}"
    );
}

#[test]
fn wrong_type_names_the_path() {
    let e = err(&GOOD.replace("senders = 2", "senders = \"two\""));
    assert!(
        e.starts_with(
            "t.toml:7: dumbbell.senders: invalid type: string \"two\", expected a whole number ≥ 0"
        ),
        "{e}"
    );
}

#[test]
fn bad_qdisc_parameter_is_reported_with_its_link() {
    let e = err(&GOOD.replace("target = \"5ms\"", "target = \"5\""));
    assert!(
        e.starts_with(
            "t.toml:18: dumbbell.bottleneck.params.target: codel: parameter target = 5: expected a duration"
        ),
        "{e}"
    );
    let e = err(&GOOD.replace("qdisc = \"codel\"", "qdisc = \"blue\""));
    assert!(
        e.starts_with("t.toml:16: dumbbell.bottleneck.qdisc: unknown queue discipline \"blue\""),
        "{e}"
    );
}

const GRAPH: &str = r#"
duration = "2s"
nodes = ["a", "b", "c"]

[[links]]
name = "ab"
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"

[[links]]
name = "bc"
from = "b"
to = "c"
schedule = [["0s", "10Mbps"], ["0.5s", "1Mbps"]]
delay = "5ms"
qdisc = "red"
buffer = "50p"
reverse = { rate = "1Mbps", qdisc = "droptail" }

[[flows]]
kind = "udp"
from = "a"
to = "c"
rate = "2Mbps"
"#;

#[test]
fn explicit_graph_with_schedule_and_reverse_override() {
    let mut s = parse(GRAPH).unwrap();
    s.sim.run_until(SimTime::ZERO + s.duration);
    let r = s.sim.report();
    let bc = r.links.iter().find(|l| l.name == "bc").unwrap();
    assert_eq!(bc.qdisc, "red");
    assert!(
        bc.m.dropped_pkts > 0,
        "1 Mb/s after 0.5 s cannot carry 2 Mb/s"
    );
    assert_eq!(
        r.links.iter().find(|l| l.name == "bc.rev").unwrap().qdisc,
        "droptail"
    );
}

#[test]
fn flow_between_unconnected_nodes_is_refused() {
    let text = GRAPH
        .replace(
            "nodes = [\"a\", \"b\", \"c\"]",
            "nodes = [\"a\", \"b\", \"c\", \"d\"]",
        )
        .replace(
            "to = \"c\"\nrate = \"2Mbps\"",
            "to = \"d\"\nrate = \"2Mbps\"",
        );
    let e = err(&text);
    assert!(
        e.contains("flows[0]: flow 0: there is no route from a to d"),
        "{e}"
    );
    let e = err(&GRAPH.replace(
        "to = \"c\"\nrate = \"2Mbps\"",
        "to = \"z\"\nrate = \"2Mbps\"",
    ));
    assert!(
        e.contains("flows[0].to: expected one of the nodes (a, b, c), got \"z\""),
        "{e}"
    );
}

#[test]
fn schedule_and_trace_errors() {
    let e = err(&GRAPH.replace("[\"0.5s\", \"1Mbps\"]", "[\"0.5s\"]"));
    assert!(
        e.contains("links[1].schedule[1]: expected a [time, rate] pair"),
        "{e}"
    );
    let e = err(&GRAPH.replace(
        "[[\"0s\", \"10Mbps\"], [\"0.5s\", \"1Mbps\"]]",
        "[[\"1s\", \"10Mbps\"]]",
    ));
    assert!(
        e.contains("links[1].schedule[0]: the first step must start at 0s"),
        "{e}"
    );
    let e = err(&GRAPH.replace(
        "schedule = [[\"0s\", \"10Mbps\"], [\"0.5s\", \"1Mbps\"]]",
        "trace = \"traces/missing.down\"",
    ));
    assert!(
        e.starts_with("t.toml:16: links[1].trace: ")
            && e.contains("traces/missing.down: cannot read the trace: "),
        "{e}"
    );
    let e = err(&GRAPH.replace(
        "rate = \"10Mbps\"\ndelay",
        "rate = \"10Mbps\"\ntrace = \"x\"\ndelay",
    ));
    assert!(
        e.contains("links[0]: link ab: expected exactly one of rate, schedule or trace, got 2"),
        "{e}"
    );
}

#[test]
fn trace_driven_link_runs() {
    let text = GRAPH.replace(
        "schedule = [[\"0s\", \"10Mbps\"], [\"0.5s\", \"1Mbps\"]]",
        "trace = \"traces/Verizon-LTE-short.down\"",
    );
    let mut s = parse(&text).unwrap();
    s.sim.run_until(SimTime::ZERO + s.duration);
    let bc = s
        .sim
        .report()
        .links
        .into_iter()
        .find(|l| l.name == "bc")
        .unwrap();
    assert!(bc.m.delivered_pkts > 0);
    assert!(bc.utilization <= 1.0);
}

#[test]
fn missing_topology_and_bad_toml() {
    assert_eq!(
        err("duration = \"1s\"\n"),
        "t.toml: no topology: expected a [dumbbell] table, or nodes = [...] and [[links]]"
    );
    let e = err("duration = \"1s\nfoo");
    assert!(e.starts_with("t.toml:1:"), "{e}");
    assert!(err("duration = \"0s\"\nnodes=[\"a\"]\n")
        .starts_with("t.toml:1: duration: expected a duration > 0"));
}

#[test]
fn set_overrides_edit_the_file_before_building() {
    use aqmlab_sim::scenario::apply_sets;
    let sets = vec![
        ("dumbbell.bottleneck.rate".to_string(), "20Mbps".to_string()),
        ("flows[1].rate".to_string(), "1Mbps".to_string()),
        ("seed".to_string(), "42".to_string()),
        (
            "dumbbell.bottleneck.params.target".to_string(),
            "2ms".to_string(),
        ),
    ];
    let text = apply_sets(GOOD, "t.toml", &sets).unwrap();
    assert!(text.contains("rate = \"20Mbps\""));
    assert!(text.contains("seed = 42"));
    // Lines are kept, so errors after a --set still point at the file's lines.
    assert_eq!(text.lines().count(), GOOD.lines().count());
    let s = parse(&text).unwrap();
    assert_eq!(s.seed, 42);
    let e = apply_sets(GOOD, "t.toml", &[("flows[5].rate".into(), "1Mbps".into())]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.toml: --set flows[5].rate: flows has 2 elements, no [5]"
    );
    let e = apply_sets(GOOD, "t.toml", &[("duration.x".into(), "1".into())]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.toml: --set duration.x: duration is not a table"
    );
    // A value that becomes wrong is reported like any other.
    let text = apply_sets(
        GOOD,
        "t.toml",
        &[("dumbbell.bottleneck.delay".into(), "10".into())],
    )
    .unwrap();
    let e = parse(&text).err().unwrap().to_string();
    assert!(
        e.starts_with(
            "t.toml:15: dumbbell.bottleneck.delay: invalid type: integer `10`, expected a string"
        ),
        "{e}"
    );
}

#[test]
fn a_named_flow_keeps_its_random_draws_when_flows_are_added_before_it() {
    // Two disjoint paths (a-b and c-d), so the flows share nothing but the master seed: the
    // web flow's arrivals and sizes come only from its random stream.
    let graph = "duration = \"20s\"\nnodes = [\"a\", \"b\", \"c\", \"d\"]\n\
        [[links]]\nname = \"ab\"\nfrom = \"a\"\nto = \"b\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
        [[links]]\nname = \"cd\"\nfrom = \"c\"\nto = \"d\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n";
    let web = |name: &str| {
        format!(
            "[[flows]]\n{name}kind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\napp = \"web\"\nconns_per_s = 20.0\nsize_mean = \"20KB\"\n"
        )
    };
    let onoff = "[[flows]]\nkind = \"udp\"\nfrom = \"c\"\nto = \"d\"\nrate = \"1Mbps\"\non_time = \"1s\"\noff_time = \"1s\"\n";
    // (transfers started, response bytes delivered) of the web flow, flow `at` of the scenario.
    let web_draws = |text: &str, at: usize| {
        let mut s = parse(text).unwrap();
        s.sim.run_until(SimTime::ZERO + s.duration);
        let f = &s.sim.report().flows[at];
        (f.transfers_started, f.delivered_bytes)
    };
    let alone = web_draws(&format!("{graph}{}", web("")), 0);
    assert!(alone.0 > 300, "{alone:?}");
    // Appended after it, a flow changes nothing: streams are named by position.
    assert_eq!(web_draws(&format!("{graph}{}{onoff}", web("")), 0), alone);
    // Inserted before it, an unnamed flow shifts its stream to another position...
    let shifted = web_draws(&format!("{graph}{onoff}{}", web("")), 1);
    assert_ne!(shifted, alone);
    // ...while a named one keeps its stream wherever it stands.
    let named = web("name = \"browsing\"\n");
    let alone = web_draws(&format!("{graph}{named}"), 0);
    assert_eq!(web_draws(&format!("{graph}{onoff}{named}"), 1), alone);
    // Names are unique.
    let e = err(&format!("{graph}{named}{named}"));
    assert!(
        e.contains("flows[1].name: flows[0] is named \"browsing\" already"),
        "{e}"
    );
}

#[test]
fn the_output_table_picks_the_format_and_the_packet_log() {
    let with = |output: &str| parse(&format!("{GOOD}\n[output]\n{output}\n"));
    let s = with("format = \"csv\"\npacket_log = [\"bottleneck.rev\"]").unwrap();
    assert!(s.csv);
    let logged: Vec<&str> = s.sim.packet_logs().map(|(n, _)| n).collect();
    assert_eq!(logged, ["bottleneck.rev"]);
    let s = with("format = \"parquet\"").unwrap();
    assert!(!s.csv && s.sim.packet_logs().next().is_none());
    assert!(!parse(GOOD).unwrap().csv);
    let e = with("format = \"xlsx\"").err().unwrap().to_string();
    assert!(
        e.contains(": output.format: expected \"parquet\" or \"csv\", got \"xlsx\""),
        "{e}"
    );
    let e = with("packet_log = [\"bottleneck\", \"nowhere\"]")
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains(": output.packet_log[1]: no link direction named \"nowhere\" (NAME or NAME.rev): expected one of"),
        "{e}"
    );
    let e = with("logs = true").err().unwrap().to_string();
    assert!(e.contains("output.logs: unknown field `logs`"), "{e}");
}

#[test]
fn an_error_in_a_set_key_names_the_set_not_a_line() {
    use aqmlab_sim::scenario::build_with_sets;
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let with = |sets: &[(&str, &str)]| {
        let sets: Vec<(String, String)> = sets
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        build_with_sets(GOOD, "t.toml", dir, "t", &sets, &Overrides::default())
    };
    let msg = |sets: &[(&str, &str)]| with(sets).err().expect("an error").to_string();
    assert_eq!(
        msg(&[("dumbbell.bottleneck.delay", "10")]),
        "t.toml: --set dumbbell.bottleneck.delay=10: invalid type: integer `10`, expected a string \
         (give a unit where one belongs, like 20ms or 10Mbps; after --set a bare number or boolean \
         is read as one, so quote text: dumbbell.bottleneck.delay='\"10\"')"
    );
    assert!(msg(&[("dumbbell.colour", "1")])
        .starts_with("t.toml: --set dumbbell.colour=1: unknown field `colour`"));
    assert!(msg(&[("dumbbell.bottleneck.params.target", "5")]).starts_with(
        "t.toml: --set dumbbell.bottleneck.params.target=5: codel: parameter target = 5: expected a duration > 0 (like 5ms"
    ));
    // An error elsewhere in the file keeps its line, though a --set was given.
    let bad = GOOD.replace("senders = 2", "senders = 0");
    let e = build_with_sets(
        &bad,
        "t.toml",
        dir,
        "t",
        &[("seed".into(), "5".into())],
        &Overrides::default(),
    )
    .err()
    .expect("an error");
    assert!(
        e.to_string().starts_with("t.toml:7: dumbbell.senders"),
        "{e}"
    );
    // Good sets build.
    assert_eq!(with(&[("seed", "5")]).unwrap().seed, 5);
    // A parameter error in the file is the file's, though a --set wrote another parameter
    // (the message lists every parameter name, target among them).
    let bad = GOOD.replace("interval = \"100ms\"", "interval = \"100ms\", foo = 1");
    let sets = [(
        "dumbbell.bottleneck.params.target".to_string(),
        "2ms".to_string(),
    )];
    let e = build_with_sets(&bad, "t.toml", dir, "t", &sets, &Overrides::default())
        .err()
        .expect("an error")
        .to_string();
    assert!(
        e.starts_with("t.toml:18: dumbbell.bottleneck.params.foo: codel has no parameter \"foo\""),
        "{e}"
    );
    // A set value that reads as a number where a string is expected: quote it.
    assert!(msg(&[("name", "1")]).starts_with(
        "t.toml: --set name=1: invalid type: integer `1`, expected a string (give a unit"
    ));
    // A key a --set inserts shifts the edited text's lines; an error further down still names
    // the file's line (flows[0].to is on line 23 of GOOD).
    let bad = GOOD.replace("to = \"r1\"", "to = \"r9\"");
    let sets = [("dumbbell.bottleneck.loss".to_string(), "0.01".to_string())];
    let e = build_with_sets(&bad, "t.toml", dir, "t", &sets, &Overrides::default())
        .err()
        .expect("an error")
        .to_string();
    assert!(e.starts_with("t.toml:23: flows[0].to:"), "{e}");
    // A date is taken as text.
    assert_eq!(with(&[("name", "2024-05-01")]).unwrap().name, "2024-05-01");
}

#[test]
fn on_off_udp_sources_average_their_duty_cycle() {
    for (shape, tol) in [("", 0.1), ("onoff_shape = 2.5\n", 0.2)] {
        let text = format!(
            "duration = \"400s\"\nbin = \"1s\"\nnodes = [\"a\", \"b\"]\n[[links]]\nname = \"ab\"\nfrom = \"a\"\nto = \"b\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\n[[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"b\"\nrate = \"2Mbps\"\non_time = \"1s\"\noff_time = \"3s\"\n{shape}"
        );
        let mut s = parse(&text).unwrap();
        s.sim.run_until(SimTime::ZERO + s.duration);
        let r = s.sim.report();
        let f = &r.flows[0];
        // Duty cycle 1/(1+3): a mean of 0.5 Mb/s.
        let mean_bps = f.delivered_bytes as f64 * 8.0 / 400.0;
        assert!((mean_bps / 0.5e6 - 1.0).abs() < tol, "{shape}: {mean_bps}");
        // Real silences and full-rate seconds both occur.
        let bins = f.delivered_bytes_per_bin();
        assert!(bins.iter().filter(|&&b| b == 0).count() > 100);
        assert!(bins.iter().any(|&b| b >= 2_000_000 / 8 - 1500));
        assert_eq!(r.flow_info[0].app, "onoff");
    }
    let e = err("duration = \"1s\"\nnodes = [\"a\", \"b\"]\n[[links]]\nname = \"ab\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\non_time = \"1s\"\n");
    assert!(
        e.contains("flows[0]: an on/off source needs both on_time and off_time"),
        "{e}"
    );
    let e = err("duration = \"1s\"\nnodes = [\"a\", \"b\"]\n[[links]]\nname = \"ab\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\nloss = 1.5\n");
    assert!(
        e.contains("links[0].loss: expected a loss probability in [0, 1), got 1.5"),
        "{e}"
    );
}

#[test]
fn link_keys_depend_on_where_the_table_stands() {
    let e = err(&GOOD.replace(
        "[dumbbell.bottleneck]\n",
        "[dumbbell.bottleneck]\nname = \"b\"\n",
    ));
    assert!(
        e.starts_with("t.toml:14: dumbbell.bottleneck.name: name is implied here: remove it"),
        "{e}"
    );
    let e = err(&GRAPH.replace("name = \"ab\"\n", ""));
    assert!(e.contains("links[0].name: a link needs name = ..."), "{e}");
    let e = err(&GRAPH.replace(
        "reverse = { rate = \"1Mbps\", qdisc = \"droptail\" }",
        "reverse = { rate = \"1Mbps\", to = \"a\" }",
    ));
    assert!(
        e.contains("links[1].reverse.to: to is implied by the link: remove it"),
        "{e}"
    );
    let e = err(&GRAPH.replace("delay = \"5ms\"\nqdisc", "qdisc"));
    assert!(e.contains("links[1].delay: a link needs a delay"), "{e}");
}

#[test]
fn dumbbell_access_settings_are_reported_under_their_own_keys() {
    let e = err(&GOOD.replace("access_rate = \"100Mbps\"", "access_rate = \"fast\""));
    assert!(
        e.starts_with("t.toml:8: dumbbell.access_rate: expected a rate"),
        "{e}"
    );
    let e = err(&GOOD.replace("access_buffer = \"1000p\"", "access_buffer = \"1000\""));
    assert!(
        e.starts_with("t.toml:11: dumbbell.access_buffer: expected a size"),
        "{e}"
    );
}

fn udp_line(link: &str, flow_rate: &str, size: u32, duration: &str) -> String {
    format!(
        "duration = \"{duration}\"\nbin = \"1ms\"\nnodes = [\"a\", \"b\"]\n[[links]]\nname = \"ab\"\nfrom = \"a\"\nto = \"b\"\n{link}\ndelay = \"1ms\"\nbuffer = \"100p\"\n[[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"b\"\nrate = \"{flow_rate}\"\nsize = {size}\n"
    )
}

#[test]
fn a_transmission_ending_exactly_at_the_end_is_not_counted() {
    // 1500 B at 12 Mb/s take exactly 1 ms: a transmission ends at exactly 1 s. A run covers
    // [0, 1 s), so it is still on the wire: series and totals agree, utilization ≤ 1.
    for (link, rate, size) in [
        ("rate = \"12Mbps\"", "12Mbps", 1500),
        ("trace = \"one.trace\"", "20Mbps", 1504),
    ] {
        let dir = std::env::temp_dir().join("aqmlab-scn-test");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("one.trace"), "1\n").unwrap();
        let text = udp_line(link, rate, size, "1s");
        let mut s = build(&text, "t.toml", &dir, "t", &Overrides::default()).unwrap();
        s.sim.run_until(SimTime::ZERO + s.duration);
        let r = s.sim.report();
        let l = &r.links[0];
        assert_eq!(
            l.m.egress_bytes_per_bin.iter().sum::<u64>(),
            l.m.delivered_bytes,
            "{link}"
        );
        assert!(
            l.m.egress_bytes_per_bin.len() <= 1000,
            "{link}: {}",
            l.m.egress_bytes_per_bin.len()
        );
        assert!(
            l.utilization <= 1.0 && l.utilization > 0.99,
            "{link}: {}",
            l.utilization
        );
        assert_eq!(l.in_flight, 1, "{link}");
    }
}

#[test]
fn a_long_outage_does_not_grow_the_series_beyond_the_run() {
    let text = udp_line(
        "schedule = [[\"0s\", \"10Mbps\"], [\"0.5s\", \"0bps\"], [\"50000s\", \"10Mbps\"]]",
        "5Mbps",
        1500,
        "1s",
    );
    let mut s = parse(&text).unwrap();
    s.sim.run_until(SimTime::ZERO + s.duration);
    let l = &s.sim.report().links[0];
    assert!(
        l.m.egress_bytes_per_bin.len() <= 1000,
        "{}",
        l.m.egress_bytes_per_bin.len()
    );
    assert_eq!(l.in_flight, 1);
}

#[test]
fn flow_and_rate_bounds() {
    let web = GRAPH.replace(
        "kind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"2Mbps\"",
        "kind = \"tcp\"\nfrom = \"a\"\nto = \"c\"\napp = \"web\"\nconns_per_s = 1e12",
    );
    assert!(err(&web)
        .contains("flows[0].conns_per_s: expected a rate in (0, 1000000] connections per second"));
    let same = GRAPH.replace(
        "to = \"c\"\nrate = \"2Mbps\"",
        "to = \"a\"\nrate = \"2Mbps\"",
    );
    assert!(
        err(&same).contains("from and to are the same node (a)"),
        "{}",
        err(&same)
    );
    let stop = GRAPH.replace(
        "rate = \"2Mbps\"\n",
        "rate = \"2Mbps\"\nstart = \"1s\"\nstop = \"0.5s\"\n",
    );
    assert!(
        err(&stop).contains("flows[0].stop: expected a stop after the start (1s), got \"0.5s\""),
        "{}",
        err(&stop)
    );
    let buf = GRAPH.replace("buffer = \"50p\"", "buffer = \"0p\"");
    assert!(
        err(&buf).contains("links[1].buffer: expected a buffer > 0"),
        "{}",
        err(&buf)
    );
}

#[test]
fn web_request_size_is_checked_like_every_key() {
    let web = |extra: &str| {
        GRAPH.replace(
            "kind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"2Mbps\"",
            &format!("kind = \"tcp\"\nfrom = \"a\"\nto = \"c\"\napp = \"web\"\nconns_per_s = 5.0\n{extra}"),
        )
    };
    assert!(parse(&web("request_size = \"2KB\"")).is_ok());
    assert!(parse(&web("")).is_ok(), "request_size is optional");
    // `[[flows]]` is at line 22: kind, from, to, app, conns_per_s, then `request_size` at 28.
    let e = err(&web("request_size = 300"));
    assert!(
        e.starts_with(
            "t.toml:28: flows[0].request_size: invalid type: integer `300`, expected a string"
        ),
        "{e}"
    );
    let e = err(&web("request_size = \"0B\""));
    assert_eq!(
        e,
        "t.toml:28: flows[0].request_size: expected a request size ≥ 1 byte, like request_size = \"300B\""
    );
    let e = err(&web("request_size = \"3 apples\""));
    assert!(
        e.starts_with("t.toml:28: flows[0].request_size: expected a byte count"),
        "{e}"
    );
    let e = err(&web("requst_size = \"300B\""));
    assert!(
        e.starts_with("t.toml:28: flows[0].requst_size: unknown field `requst_size`"),
        "{e}"
    );
    // Only web flows have requests.
    // (without conns_per_s, so request_size alone must trigger the error)
    let e = err(&web("request_size = \"300B\"")
        .replace("app = \"web\"", "app = \"bulk\"")
        .replace("conns_per_s = 5.0\n", ""));
    assert!(
        e.contains("flows[0].request_size: request_size belongs to app = \"web\""),
        "{e}"
    );
    let e = err(&GRAPH.replace(
        "rate = \"2Mbps\"",
        "rate = \"2Mbps\"\nrequest_size = \"300B\"",
    ));
    assert!(
        e.contains("flows[0].request_size: request_size belongs to tcp flows; this flow has kind = \"udp\""),
        "{e}"
    );
}

#[test]
fn hystart_is_a_tcp_key_and_refused_for_vegas() {
    let tcp = |extra: &str| {
        GRAPH.replace(
            "kind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"2Mbps\"",
            &format!("kind = \"tcp\"\nfrom = \"a\"\nto = \"c\"\n{extra}"),
        )
    };
    assert!(parse(&tcp("cc = \"cubic\"\nhystart = true")).is_ok());
    assert!(parse(&tcp("cc = \"newreno\"\nhystart = false")).is_ok());
    // `[[flows]]` is at line 22; its `kind` key at 23 is where the flow's errors point.
    assert_eq!(
        err(&tcp("cc = \"vegas\"\nhystart = true")),
        "t.toml:23: flows[0].hystart: HyStart++ applies to reno, newreno and cubic (Vegas has its own slow-start exit)"
    );
    let e = err(&tcp("hystart = \"yes\""));
    assert!(
        e.starts_with(
            "t.toml:26: flows[0].hystart: invalid type: string \"yes\", expected a boolean"
        ),
        "{e}"
    );
}
// Regressions from fuzzing the scenario loader (`aqmlab_sim::fuzzing`, `fuzz/` target
// `scenario_text`): each bad input is one clear line, never a panic.

#[test]
fn control_characters_in_keys_stay_on_one_line() {
    // A quoted key with a newline used to split the error over two lines.
    let e = err(&GOOD.replace("seed = 7", "seed = 7\n\"a\\nb\" = 1"));
    assert!(
        e.starts_with("t.toml:5: a\\nb: unknown field `a b`, expected one of `name`"),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
    // `--set` paths are dotted bare keys: anything else is refused, escaped.
    use aqmlab_sim::scenario::apply_sets;
    let e = apply_sets(GOOD, "t.toml", &[("flows[0].a\nb".into(), "1".into())]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.toml: --set flows[0].a\\nb: expected a dotted key path like dumbbell.bottleneck.rate (keys of letters, digits, _ and -), got \"a\\nb\""
    );
}

#[test]
fn times_beyond_the_limit_are_refused() {
    // A duration near u64::MAX ns used to run until a trace link's opportunity time overflowed
    // (`attempt to multiply with overflow` in debug builds).
    let e = err(&GOOD.replace("duration = \"2s\"", "duration = \"18446744073s\""));
    assert_eq!(
        e,
        "t.toml:3: duration: expected a duration of at most 1000000s (about 11.6 days), got \"18446744073s\", which is beyond the maximum"
    );
    let e = err(&GOOD.replace("start = \"500ms\"", "start = \"1000000000s\""));
    assert!(
        e.starts_with("t.toml:32: flows[1].start: expected a duration of at most 1000000s"),
        "{e}"
    );
    let e = err(&GRAPH.replace("[\"0.5s\", \"1Mbps\"]", "[\"1000001s\", \"1Mbps\"]"));
    assert!(
        e.contains("links[1].schedule[1]: expected a duration of at most 1000000s"),
        "{e}"
    );
}

#[test]
fn a_trace_link_runs_to_the_longest_duration() {
    // One opportunity every 10^6 s: a 65535-byte datagram needs 44 of them, ending 4.4e16 ns in.
    let text = udp_line(
        "trace = \"crates/aqmlab-sim/tests/fuzz-traces/slow.trace\"",
        "1bps",
        65535,
        "1000000s",
    )
    .replace("bin = \"1ms\"", "bin = \"1000s\"");
    let mut s = parse(&text).unwrap();
    s.sim.run_until(SimTime::ZERO + s.duration);
    let r = s.sim.report();
    assert_eq!(r.links[0].in_flight, 1);
    assert_eq!(r.flows[0].sent_pkts, 2);
}

#[test]
fn rates_beyond_the_limit_are_refused() {
    // 18446744073709551615bps made every packet take 1 ns: a UDP source sent 10^7 packets in
    // 10 ms, and the link reported a utilization of 9e-9.
    for rate in ["18446744073709551615bps", "1e30Gbps", "1001Gbps"] {
        let e = err(&GOOD.replace("rate = \"10Mbps\"", &format!("rate = \"{rate}\"")));
        assert!(
            e.starts_with("t.toml:14: dumbbell.bottleneck.rate: expected a"),
            "{e}"
        );
    }
    let e = err(&GOOD.replace("rate = \"10Mbps\"", "rate = \"1001Gbps\""));
    assert_eq!(
        e,
        "t.toml:14: dumbbell.bottleneck.rate: expected a rate of at most 1000Gbps, got \"1001Gbps\", which is beyond the maximum"
    );
    let e = err(&GOOD.replace("rate = \"6Mbps\"\nsize", "rate = \"2000Gbps\"\nsize"));
    assert!(
        e.starts_with("t.toml:24: flows[0].rate: expected a rate of at most 1000Gbps"),
        "{e}"
    );
    let e = err(&GOOD.replace("access_rate = \"100Mbps\"", "access_rate = \"1e30Gbps\""));
    assert!(e.starts_with("t.toml:8: dumbbell.access_rate:"), "{e}");
}

#[test]
fn udp_sources_keep_their_rate_when_the_interval_is_not_whole_nanoseconds() {
    // 20-byte datagrams at 100 Gb/s go every 1.6 ns. Rounding each interval up to 2 ns sent
    // 80 Gb/s; they now go at the exact times rounded up, 6250 in 10 µs.
    let text = udp_line("rate = \"1000Gbps\"", "100Gbps", 20, "10us").replace("1ms", "1us");
    let mut s = parse(&text).unwrap();
    s.sim.run_until(SimTime::ZERO + s.duration);
    assert_eq!(s.sim.report().flows[0].sent_pkts, 6250);
}

#[test]
fn time_series_that_would_take_gigabytes_are_refused() {
    // 1000 senders (4002 link directions) in 1 ns bins over 1 ms: 2·10^10 values, which the
    // report allocated for every link direction (an abort, out of memory).
    let text = GOOD
        .replace("duration = \"2s\"", "duration = \"1ms\"\nbin = \"1ns\"")
        .replace("start = \"500ms\"", "start = \"500us\"")
        .replace("senders = 2", "senders = 1000")
        .replace(
            "sender_delay = [\"1ms\", \"2ms\"]",
            "sender_delay = \"1ms\"",
        );
    assert_eq!(
        err(&text),
        "t.toml:4: bin: 1ms in bins of 1ns for 4002 link directions and 2 flows with a series makes 40032000000 time-series values, more than 100000000: expected a bin of at least 410ns"
    );
}

/// Only the flows that keep a series (`[output] flow_series`) count toward the series limit:
/// "auto" above 1,000 flows, "none" or a short list let a fine bin through that every flow's
/// series would not.
#[test]
fn the_series_limit_counts_only_the_flows_that_keep_a_series() {
    // 1 ms in 1 ns bins: 10^6 bins × (10 × 10 link directions + 6 per flow with a series).
    let fine = GOOD
        .replace("duration = \"2s\"", "duration = \"1ms\"\nbin = \"1ns\"")
        .replace("start = \"500ms\"", "start = \"500us\"");
    let with = |series: &str| format!("{fine}\n[output]\nflow_series = {series}\n");
    // No flow's: 10^8 values, the limit itself.
    assert!(parse(&with("\"none\"")).is_ok());
    // One flow's: 1.06·10^8; both flows' (also "auto" at 2 flows): 1.12·10^8.
    assert_eq!(
        err(&with("[0]")),
        "t.toml:4: bin: 1ms in bins of 1ns for 10 link directions and 1 flows with a series makes 106000000 time-series values, more than 100000000: expected a bin of at least 2ns"
    );
    for all in ["\"all\"", "\"auto\""] {
        assert!(err(&with(all)).contains("and 2 flows with a series makes 112000000"));
    }
}

#[test]
fn a_minimum_rto_above_the_maximum_names_min_rto() {
    // It used to be reported as `flows[0]: tcp.max_rto: expected max_rto >= min_rto`, a key the
    // scenario cannot set.
    let tcp = GRAPH.replace(
        "kind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"2Mbps\"",
        "kind = \"tcp\"\nfrom = \"a\"\nto = \"c\"\nmin_rto = \"61s\"",
    );
    assert_eq!(
        err(&tcp),
        "t.toml:26: flows[0].min_rto: expected a minimum RTO > 0 and at most the maximum RTO, 60s, got \"61s\""
    );
    assert!(err(&tcp.replace("61s", "0s"))
        .starts_with("t.toml:26: flows[0].min_rto: expected a minimum RTO > 0"));
}

#[test]
fn access_link_errors_name_the_dumbbell_keys() {
    // These were reported under keys no scenario has: `dumbbell.sender_delay[0].delay`,
    // `dumbbell.sender_delay[0].rate`, `dumbbell.sender_delay[0].buffer`.
    let e = err(&GOOD.replace("receiver_delay = \"3ms\"", "receiver_delay = \"-3ms\""));
    assert!(
        e.starts_with("t.toml:10: dumbbell.receiver_delay: expected a duration with a unit"),
        "{e}"
    );
    let e = err(&GOOD.replace("[\"1ms\", \"2ms\"]", "[\"1ms\", \"2000000s\"]"));
    assert!(
        e.starts_with("t.toml:9: dumbbell.sender_delay[1]: expected a duration of at most"),
        "{e}"
    );
    let e = err(&GOOD.replace("access_rate = \"100Mbps\"", "access_rate = \"0bps\""));
    assert!(
        e.starts_with("t.toml:8: dumbbell.access_rate: expected a rate > 0"),
        "{e}"
    );
    let e = err(&GOOD.replace("access_buffer = \"1000p\"", "access_buffer = \"0p\""));
    assert_eq!(
        e,
        "t.toml:11: dumbbell.access_buffer: expected a buffer > 0"
    );
}

#[test]
fn a_discipline_that_cannot_take_the_buffer_names_the_buffer_or_the_swap() {
    // Errors in a limit that came from `buffer` were reported under `params`, even when the
    // scenario had none or the discipline came from `--qdisc` (whose parameters are dropped).
    let big = GOOD.replace("buffer = \"100p\"", "buffer = \"4294967296p\"");
    let e = err(&big
        .replace("qdisc = \"codel\"", "qdisc = \"fq_codel\"")
        .replace("params = { target = \"5ms\", interval = \"100ms\" }\n", ""));
    assert!(
        e.starts_with("t.toml:17: dumbbell.bottleneck.buffer: fq_codel: parameter limit = 4294967296p: expected a size in packets or bytes in (0, 4294967295]"),
        "{e}"
    );
    let ov = Overrides {
        qdisc: vec![("bottleneck".into(), "fq_codel".into())],
        ..Overrides::default()
    };
    let e = parse_with(&big, &ov).err().unwrap().to_string();
    assert!(
        e.starts_with("t.toml: --qdisc bottleneck=fq_codel: fq_codel: parameter limit = 4294967296p: expected a size in packets or bytes in (0, 4294967295]"),
        "{e}"
    );
}

#[test]
fn a_byte_buffer_must_hold_the_largest_packet_through_it() {
    // A 1000-byte buffer drops every 1500-byte packet: the flow never delivers anything.
    let e = err(&GOOD.replace("buffer = \"100p\"", "buffer = \"1000B\""));
    assert_eq!(
        e,
        "t.toml:17: dumbbell.bottleneck.buffer: a buffer of 1000B cannot hold one 1500-byte packet of flows[0] (its datagrams) through link bottleneck: expected at least 1500B"
    );
    let tcp = GRAPH.replace(
        "kind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"2Mbps\"",
        "kind = \"tcp\"\nfrom = \"a\"\nto = \"c\"\nmss = 960",
    );
    assert!(parse(&tcp.replace("buffer = \"50p\"", "buffer = \"1000B\"")).is_ok());
    let e = err(&tcp.replace("buffer = \"50p\"", "buffer = \"999B\""));
    assert!(e.starts_with("t.toml:19: links[1].buffer: a buffer of 999B cannot hold one 1000-byte packet of flows[0] (its segments: 960 bytes of data + 40 of headers) through link bc"), "{e}");
    // The reverse direction carries the ACKs (40 bytes).
    let e = err(&tcp
        .replace("buffer = \"50p\"", "buffer = \"1000B\"")
        .replace(
            "reverse = { rate = \"1Mbps\", qdisc = \"droptail\" }",
            "reverse = { rate = \"1Mbps\", buffer = \"39B\" }",
        ));
    assert!(e.starts_with("t.toml:20: links[1].reverse.buffer: a buffer of 39B cannot hold one 40-byte packet of flows[0] (its ACKs) through link bc.rev"), "{e}");
    // A reverse direction without its own buffer has the forward one, named where it is written.
    let back = GRAPH
        .replace("buffer = \"50p\"", "buffer = \"1000B\"")
        .replace(
            "from = \"a\"\nto = \"c\"\nrate = \"2Mbps\"",
            "from = \"c\"\nto = \"a\"\nrate = \"2Mbps\"",
        );
    let e = err(&back);
    assert!(e.starts_with("t.toml:19: links[1].buffer: a buffer of 1000B cannot hold one 1500-byte packet of flows[0] (its datagrams) through link bc.rev"), "{e}");
}

#[test]
fn the_first_packet_that_does_not_fit_is_named() {
    // Flows in file order, not the largest packet through the link (flows[1]'s 2000 bytes).
    let two = format!(
        "{}\n[[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"1Mbps\"\nsize = 2000\n",
        GRAPH
            .replace("buffer = \"50p\"", "buffer = \"1100B\"")
            .replace("rate = \"2Mbps\"", "rate = \"2Mbps\"\nsize = 1150")
    );
    assert_eq!(
        err(&two),
        "t.toml:19: links[1].buffer: a buffer of 1100B cannot hold one 1150-byte packet of flows[0] (its datagrams) through link bc: expected at least 1150B"
    );
}

#[test]
fn a_byte_limit_given_as_a_parameter_must_hold_the_largest_packet_too() {
    let no_buffer = GOOD.replace("buffer = \"100p\"\n", "");
    let e = err(&no_buffer.replace(
        "interval = \"100ms\" }",
        "interval = \"100ms\", limit = \"1000B\" }",
    ));
    assert_eq!(
        e,
        "t.toml:17: dumbbell.bottleneck.params.limit: a buffer of 1000B cannot hold one 1500-byte packet of flows[0] (its datagrams) through link bottleneck: expected at least 1500B"
    );
    assert!(parse(&no_buffer.replace(
        "interval = \"100ms\" }",
        "interval = \"100ms\", limit = \"1500B\" }"
    ))
    .is_ok());
    // FQ-CoDel's byte limit is its memory limit.
    let fq = no_buffer
        .replace("qdisc = \"codel\"", "qdisc = \"fq_codel\"")
        .replace(
            "params = { target = \"5ms\", interval = \"100ms\" }",
            "params = { memory_limit = \"1KB\" }",
        );
    let e = err(&fq);
    assert!(e.starts_with("t.toml:17: dumbbell.bottleneck.params.memory_limit: a buffer of 1000B cannot hold one 1500-byte packet"), "{e}");
    // With a buffer in packets beside it, and as a bare number of bytes.
    let fq_packets = fq.replace(
        "params = { memory_limit = \"1KB\" }",
        "buffer = \"100p\"\nparams = { memory_limit = 1000 }",
    );
    let e = err(&fq_packets);
    assert!(e.starts_with("t.toml:18: dumbbell.bottleneck.params.memory_limit: a buffer of 1000B cannot hold one 1500-byte packet"), "{e}");
    assert!(parse(&fq_packets.replace("memory_limit = 1000", "memory_limit = \"2KB\"")).is_ok());
    // A `--qdisc` swap drops the parameters, and with them the limit.
    let ov = Overrides {
        qdisc: vec![("bottleneck".into(), "droptail".into())],
        ..Overrides::default()
    };
    assert!(parse_with(&fq, &ov).is_ok());
}

#[test]
fn a_lone_carriage_return_is_explained() {
    // The TOML parser reports a CR without LF with an empty message: the error was `t.toml:2: `.
    let text = GOOD.replace("seed = 7\n", "seed = 7\n\rbin = \"1s\"\n");
    let expected = "t.toml:5: not valid TOML at column 1: a carriage return (\\r) not followed by a newline: expected \\n or \\r\\n line endings";
    assert_eq!(err(&text), expected);
    use aqmlab_sim::scenario::apply_sets;
    let e = apply_sets(&text, "t.toml", &[("seed".into(), "1".into())]).unwrap_err();
    assert_eq!(e.to_string(), expected);
    // CRLF line endings are fine.
    assert!(parse(&GOOD.replace('\n', "\r\n")).is_ok());
}

#[test]
fn tcp_keys_on_a_udp_flow_are_refused_not_ignored() {
    for key in [
        "mss = 1000",
        "sack = false",
        "ecn = true",
        "delayed_ack = false",
        "initial_cwnd = 4",
        "hystart = true",
        "min_rto = \"1s\"",
        "delack_timeout = \"100ms\"",
        "syn_retries = 3",
        "size_mean = \"10KB\"",
    ] {
        let name = key.split(' ').next().unwrap();
        let e = err(&GRAPH.replace("rate = \"2Mbps\"", &format!("rate = \"2Mbps\"\n{key}")));
        assert!(
            e.contains(&format!(
                "flows[0].{name}: {name} belongs to tcp flows; this flow has kind = \"udp\""
            )),
            "{key}: {e}"
        );
    }
}

#[test]
fn delack_timeout_is_a_duration_below_half_a_second() {
    let tcp = |extra: &str| {
        GRAPH.replace(
            "kind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"2Mbps\"",
            &format!("kind = \"tcp\"\nfrom = \"a\"\nto = \"c\"\n{extra}"),
        )
    };
    assert!(parse(&tcp("delack_timeout = \"200ms\"")).is_ok());
    for bad in ["\"0ms\"", "\"500ms\"", "\"2s\""] {
        let e = err(&tcp(&format!("delack_timeout = {bad}")));
        assert!(
            e.starts_with("t.toml:26: flows[0].delack_timeout: expected a delayed-ACK timeout > 0 and below 500ms"),
            "{bad}: {e}"
        );
    }
    let e = err(&tcp("delack_timeout = 40"));
    assert!(
        e.starts_with("t.toml:26: flows[0].delack_timeout: invalid type"),
        "{e}"
    );
}

#[test]
fn a_node_listed_twice_is_named_with_its_line() {
    let e = err("duration = \"1s\"\nnodes = [\"a\", \"b\",\n  \"a\"]\n");
    assert_eq!(e, "t.toml:2: nodes[2]: node \"a\" is listed twice");
}

#[test]
fn a_qdisc_swap_keeps_the_parameters_a_set_gave_but_not_the_files() {
    use aqmlab_sim::scenario::build_with_sets;
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let swap_to_pie = Overrides {
        qdisc: vec![("bottleneck".into(), "pie".into())],
        ..Overrides::default()
    };
    // GOOD overloads its bottleneck (12 Mb/s of UDP into 10 Mb/s), whose file names CoDel with
    // target = "5ms". PIE pushes the queueing delay towards its own target (15 ms by default;
    // after 2 s the median is still above it, about 40 ms, and about 90 ms with 60 ms).
    let median_ms = |text: &str, sets: &[(&str, &str)]| {
        let sets: Vec<(String, String)> = sets
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut s = build_with_sets(text, "t.toml", dir, "t", &sets, &swap_to_pie).unwrap();
        s.sim.run_until(SimTime::from_secs(2));
        let r = s.sim.report();
        let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
        assert_eq!(b.qdisc, "pie");
        b.m.sojourn_ns.quantile(0.5) / 1e6
    };
    let default = median_ms(GOOD, &[]);
    // The file's target (CoDel's) is dropped by the swap, whatever its value...
    let file_60 = GOOD.replace("target = \"5ms\"", "target = \"60ms\"");
    assert_ne!(file_60, GOOD);
    assert_eq!(median_ms(&file_60, &[]), default);
    // ...but a --set given with the swap is for the swapped-in discipline.
    let set_60 = median_ms(GOOD, &[("dumbbell.bottleneck.params.target", "60ms")]);
    assert!(
        default < 60.0 && set_60 > 1.5 * default,
        "default {default} ms, with target 60ms {set_60} ms"
    );
    // A set parameter the new kind does not have is an error, not silently dropped.
    let sets = vec![(
        "dumbbell.bottleneck.params.order".to_string(),
        "as_coded".to_string(),
    )];
    let e = build_with_sets(GOOD, "t.toml", dir, "t", &sets, &swap_to_pie)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("order"), "{e}");
}

/// Discipline parameters set on a link that has none, in a `[[links]]` entry: the `--set`
/// creates an inline table, which the loader reads (dotted keys it cannot: toml-rs/toml#798),
/// and dotted keys a user writes get a message saying how to write them instead.
#[test]
fn params_set_on_a_link_without_them_and_dotted_keys() {
    use aqmlab_sim::scenario::{apply_sets, build_with_sets};
    const LINKS: &str = r#"
name = "g"
duration = "1s"
nodes = ["a", "b"]

[[links]]
name = "l"
from = "a"
to = "b"
rate = "10Mbps"
delay = "1ms"
qdisc = "red"

[[flows]]
kind = "udp"
from = "a"
to = "b"
rate = "1Mbps"
"#;
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let sets = vec![
        ("links[0].params.mode".to_string(), "packet".to_string()),
        ("links[0].params.min_th".to_string(), "7".to_string()),
    ];
    let text = apply_sets(LINKS, "t.toml", &sets).unwrap();
    assert!(
        text.contains(r#"params = { mode = "packet", min_th = 7 }"#),
        "{text}"
    );
    build_with_sets(LINKS, "t.toml", dir, "t", &sets, &Overrides::default()).unwrap();
    let dotted = LINKS.replace("qdisc = \"red\"\n", "qdisc = \"red\"\nparams.min_th = 7\n");
    let e = err(&dotted);
    assert!(
        e.starts_with("t.toml:13: links[0].params.min_th: dotted keys")
            && e.contains("write the table inline"),
        "{e}"
    );
}

#[test]
fn ecn_codepoint_is_a_udp_key_naming_a_codepoint() {
    let udp =
        |extra: &str| GRAPH.replace("rate = \"2Mbps\"", &format!("rate = \"2Mbps\"\n{extra}"));
    for cp in ["not_ect", "ect0", "ect1", "ce"] {
        assert!(
            parse(&udp(&format!("ecn_codepoint = \"{cp}\""))).is_ok(),
            "{cp}"
        );
    }
    let e = err(&udp("ecn_codepoint = \"ect2\""));
    assert!(
        e.ends_with("flows[0].ecn_codepoint: expected not_ect, ect0, ect1 or ce, got \"ect2\""),
        "{e}"
    );
    let tcp = GRAPH.replace(
        "kind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"2Mbps\"",
        "kind = \"tcp\"\nfrom = \"a\"\nto = \"c\"\necn_codepoint = \"ect1\"",
    );
    let e = err(&tcp);
    assert!(
        e.ends_with("flows[0].ecn_codepoint: ecn_codepoint belongs to udp flows; a tcp flow sends ECT(0) with ecn = true, ECT(1) with cc = \"prague\""),
        "{e}"
    );
}
