use super::*;
use std::sync::Mutex;

/// Two nodes, one link `l` (and `l.rev`), one UDP flow: line 1 is `duration`.
const TWO: &str = r#"duration = "10s"
nodes = ["a", "b"]
[[links]]
name = "l"
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"
buffer = "3000B"
[[flows]]
kind = "udp"
from = "a"
to = "b"
rate = "1Mbps"
"#;

fn cx(text: &str) -> Ctx<'_> {
    Ctx {
        file: "t.toml".into(),
        text,
        dir: PathBuf::new(),
    }
}

/// The text of `cx` read into the raw types, as [`resolve_with_edits`] reads it.
fn parse(cx: &Ctx<'_>) -> Result<RawScenario, ScenarioError> {
    serde_path_to_error::deserialize(toml::Deserializer::new(cx.text))
        .map_err(|e| parse_error(cx, e))
}

/// `TWO` with `extra` inserted before its `[[links]]` (top-level keys) or after them
/// (link keys), as `at_link` says.
fn two_with(extra: &str, at_link: bool) -> String {
    let at = if at_link { "[[flows]]" } else { "[[links]]" };
    TWO.replacen(at, &format!("{extra}\n{at}"), 1)
}

/// The topology as [`resolve_with_edits`] reads it: the nodes, the link directions and their
/// ends ([`read_topology`]), the `--qdisc` swaps checked ([`check_swaps`]), and each
/// direction's discipline and the parameters it keeps ([`disc_of`]).
#[allow(clippy::type_complexity)]
fn topology(
    cx: &Ctx<'_>,
    raw: &RawScenario,
    ov: &Overrides,
) -> Result<(Vec<String>, Vec<DirCfg>, Vec<(u32, u32)>, Vec<DirParams>), ScenarioError> {
    let (nodes, dirs, ends) = read_topology(cx, raw)?;
    check_swaps(cx, &dirs, ov)?;
    let disc = dirs.iter().map(|c| disc_of(cx, c, ov)).collect();
    Ok((nodes, dirs, ends, disc))
}

/// Every link direction resolved as [`resolve_with_edits`] does: its rate ([`link_rate`]), its
/// discipline ([`discipline`]), then the rest ([`direction`]).
fn directions(
    cx: &Ctx<'_>,
    dirs: &[DirCfg],
    disc: &[DirParams],
    ends: &[(u32, u32)],
    largest: &[u32],
    warnings: &mut Vec<String>,
) -> Result<Vec<ResolvedDirection>, ScenarioError> {
    let mut out = Vec::new();
    for (i, ((name, d, path), dp)) in dirs.iter().zip(disc).enumerate() {
        let x = DirIn {
            cx,
            name,
            d,
            path,
            ends: ends[i],
            dp,
            largest_packet: largest[i],
        };
        let rate = link_rate(&x)?;
        let disc = discipline(&x, &rate, warnings)?;
        out.push(direction(&x, rate, disc)?);
    }
    Ok(out)
}

fn err_of<T>(r: Result<T, ScenarioError>) -> (Option<usize>, String, String) {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => (e.line, e.path, e.msg),
    }
}

#[test]
fn parse_names_the_line_and_key_and_asks_for_quoted_units() {
    let text = TWO.replace("duration = \"10s\"", "duration = 10");
    let (line, path, msg) = err_of(parse(&cx(&text)));
    assert_eq!((line, path.as_str()), (Some(1), "duration"));
    assert_eq!(
            msg,
            "invalid type: integer `10`, expected a string (write values with units in quotes, e.g. \"10Mbps\", \"20ms\", \"830p\")"
        );
    let raw = parse(&cx(TWO)).unwrap();
    assert_eq!(
        (raw.duration.text(), *raw.duration.get()),
        ("10s", SimDuration::from_secs(10))
    );
    assert_eq!((raw.links.len(), raw.flows.len()), (1, 1));
}

#[test]
fn timing_defaults_the_bin_and_refuses_zero_and_too_many_bins() {
    let t = |text: &str| timing(&cx(text), &parse(&cx(text)).unwrap());
    assert_eq!(
        t(TWO).unwrap(),
        (SimDuration::from_secs(10), SimDuration::from_millis(100))
    );
    // 10 s in 1 µs bins is exactly 10^7 bins: allowed; 500 ns bins are 2·10^7.
    assert_eq!(
        t(&two_with("bin = \"1us\"", false)).unwrap().1,
        SimDuration::from_micros(1)
    );
    assert_eq!(
        err_of(t(&two_with("bin = \"500ns\"", false))),
        (
            Some(3),
            "bin".into(),
            "10s in bins of 500ns makes more than 10,000,000 bins: expected a larger bin".into()
        )
    );
    assert_eq!(
        err_of(t(&TWO.replace("\"10s\"", "\"0s\""))),
        (Some(1), "duration".into(), "expected a duration > 0".into())
    );
    assert_eq!(
        err_of(t(&two_with("bin = \"0ms\"", false))).2,
        "expected a duration > 0"
    );
}

static WARNED: Mutex<Vec<String>> = Mutex::new(Vec::new());

#[test]
fn flow_count_refuses_over_the_limit_and_warns_over_the_threshold() {
    let c = cx(TWO);
    let ov = Overrides::default();
    assert_eq!(
        err_of(flow_count(&c, MAX_FLOWS + 1, &ov)),
        (
            None,
            "flows".into(),
            "expected at most 100000 flows, got 100001".into()
        )
    );
    assert!(flow_count(&c, MAX_FLOWS, &ov).is_ok());
    assert_eq!(
        flow_count(&c, WARN_FLOWS, &ov).unwrap(),
        Vec::<String>::new()
    );
    // 36.8 MB + 10001 × 9.7 kB = 133.8097 MB, rounded up.
    let w = flow_count(&c, WARN_FLOWS + 1, &ov).unwrap();
    assert_eq!(w, vec![flows_memory_warning(WARN_FLOWS + 1)]);
    assert!(w[0].starts_with("flows: 10001 flows (over 10000): the run is projected to take about 134 MB of memory (10 kB per flow"));
    // Given at once, with the file's name, when the caller asks so.
    let now = Overrides {
        warn_now: Some(|m| WARNED.lock().unwrap().push(m.to_string())),
        ..Default::default()
    };
    assert_eq!(
        flow_count(&c, WARN_FLOWS + 1, &now).unwrap(),
        Vec::<String>::new()
    );
    assert_eq!(
        *WARNED.lock().unwrap(),
        vec![format!("t.toml: {}", flows_memory_warning(WARN_FLOWS + 1))]
    );
}

#[test]
fn topology_lists_both_directions_and_checks_qdisc_swaps() {
    let raw = parse(&cx(TWO)).unwrap();
    let (nodes, dirs, ends, _) = topology(&cx(TWO), &raw, &Overrides::default()).unwrap();
    assert_eq!(nodes, ["a", "b"]);
    let names: Vec<(&str, &str)> = dirs
        .iter()
        .map(|(n, _, p)| (n.as_str(), p.as_str()))
        .collect();
    assert_eq!(names, [("l", "links[0]"), ("l.rev", "links[0].reverse")]);
    assert_eq!(ends, [(0, 1), (1, 0)]);
    let swap = |link: &str| Overrides {
        qdisc: vec![(link.into(), "pie".into())],
        ..Default::default()
    };
    assert!(topology(&cx(TWO), &raw, &swap("l.rev")).is_ok());
    assert!(topology(&cx(TWO), &raw, &swap("l")).is_ok());
    for bad in ["m", "m.rev", "l.rev.rev", ".rev", "", "L"] {
        assert_eq!(
            err_of(topology(&cx(TWO), &raw, &swap(bad))),
            (
                None,
                format!("--qdisc {bad}=pie"),
                format!("no link named {bad:?}; links: l")
            )
        );
    }
}

/// `--qdisc` accepts exactly the directions' names because every `X.rev` comes with `X`,
/// in both kinds of topology; the error for another name lists the links only.
#[test]
fn every_reverse_direction_comes_with_its_forward_one() {
    const BELL: &str = r#"duration = "10s"
[dumbbell]
senders = 2
bottleneck = { rate = "10Mbps", delay = "5ms" }
access_rate = "100Mbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[[flows]]
kind = "udp"
from = "s1"
to = "r1"
rate = "1Mbps"
"#;
    for text in [TWO, BELL] {
        let raw = parse(&cx(text)).unwrap();
        let (_, dirs, _, _) = topology(&cx(text), &raw, &Overrides::default()).unwrap();
        let names: Vec<&str> = dirs.iter().map(|(n, _, _)| n.as_str()).collect();
        for n in &names {
            if let Some(fwd) = n.strip_suffix(".rev") {
                assert!(names.contains(&fwd), "{n} without {fwd} in {names:?}");
            }
        }
    }
    let raw = parse(&cx(BELL)).unwrap();
    let swap = |link: &str| Overrides {
        qdisc: vec![(link.into(), "pie".into())],
        ..Default::default()
    };
    for ok in ["bottleneck", "bottleneck.rev", "s2.access", "r1.access.rev"] {
        assert!(topology(&cx(BELL), &raw, &swap(ok)).is_ok(), "{ok}");
    }
    assert_eq!(
            err_of(topology(&cx(BELL), &raw, &swap("s3.access.rev"))),
            (
                None,
                "--qdisc s3.access.rev=pie".into(),
                "no link named \"s3.access.rev\"; links: s1.access, r1.access, s2.access, r2.access, bottleneck".into()
            )
        );
}

#[test]
fn check_series_refuses_more_than_the_series_limit() {
    let c = cx(TWO);
    let ten = SimDuration::from_secs(10);
    // 10 s in 1 ms bins: 10^4 bins × (10 × 2 + 6 × 1) series = 260,000 values.
    assert!(check_series(&c, &None, ten, SimDuration::from_millis(1), 2, 1).is_ok());
    // In 1 µs bins: 2.6·10^8 values. At most ⌊10^8 / 26⌋ = 3,846,153 bins fit, so bins of
    // at least ⌈10^10 / 3,846,153⌉ = 2601 ns (2600 ns would make 100,000,004 values),
    // suggested as 2700 ns (two significant digits, rounded up).
    assert_eq!(
            err_of(check_series(&c, &None, ten, SimDuration::from_micros(1), 2, 1)),
            (
                None,
                "bin".into(),
                "10s in bins of 1us for 2 link directions and 1 flows with a series makes 260000000 time-series values, more than 100000000: expected a bin of at least 2700ns".into()
            )
        );
    // The suggested bin is accepted, as is the exact least one, and one nanosecond less
    // is not.
    assert!(check_series(&c, &None, ten, SimDuration::from_nanos(2700), 2, 1).is_ok());
    assert!(check_series(&c, &None, ten, SimDuration::from_nanos(2601), 2, 1).is_ok());
    assert!(check_series(&c, &None, ten, SimDuration::from_nanos(2600), 2, 1).is_err());
    // 10^4 bins of 1 ms for 10^4 directions: exactly 10^8 values, allowed.
    assert!(check_series(&c, &None, ten, SimDuration::from_millis(1), 1000, 0).is_ok());
    assert!(check_series(&c, &None, ten, SimDuration::from_millis(1), 1000, 1).is_err());
}

/// The suggested bin is a round duration, never below the least one (the audit's
/// 100000 s run was told "at least 112000018ns").
#[test]
fn the_suggested_bin_is_rounded_up_to_two_digits() {
    for (n, want) in [(0, 0), (99, 99), (100, 100), (101, 110), (2601, 2700)] {
        assert_eq!(round_up_2_digits(n), want);
    }
    let bin = SimDuration::from_nanos(round_up_2_digits(112_000_018));
    assert_eq!(bin.to_string(), "120ms");
    assert_eq!(round_up_2_digits(u64::MAX), u64::MAX);
}

fn limits(text: &str) -> Vec<Option<(u64, usize, String)>> {
    let c = cx(text);
    let raw = parse(&c).unwrap();
    let ov = Overrides::default();
    let (_, dirs, ends, disc) = topology(&c, &raw, &ov).unwrap();
    let largest = vec![0; dirs.len()];
    let mut warnings = Vec::new();
    let typed = directions(&c, &dirs, &disc, &ends, &largest, &mut warnings).unwrap();
    byte_limits(&dirs, &typed, &ov)
        .into_iter()
        .map(|l| l.map(|(n, span, key)| (n, c.line_of(span), key)))
        .collect()
}

#[test]
fn byte_limits_name_the_key_the_limit_was_written_at() {
    // The reverse inherits the forward's buffer, and its key.
    assert_eq!(
        limits(TWO),
        [
            Some((3000, 9, "links[0].buffer".into())),
            Some((3000, 9, "links[0].buffer".into()))
        ]
    );
    // Its own buffer: its own key.
    let own = two_with("[links.reverse]\nbuffer = \"2000B\"", true);
    assert_eq!(
        limits(&own)[1],
        Some((2000, 11, "links[0].reverse.buffer".into()))
    );
    // A limit in packets holds any packet.
    assert_eq!(limits(&TWO.replace("\"3000B\"", "\"100p\"")), [None, None]);
}

fn dirs_of(
    text: &str,
    ov: &Overrides,
) -> Result<(Vec<ResolvedDirection>, Vec<DirCfg>, bool), ScenarioError> {
    let c = cx(text);
    let raw = parse(&c).unwrap();
    let (_, cfgs, ends, disc) = topology(&c, &raw, ov).unwrap();
    let mut warnings = Vec::new();
    let largest = vec![0; cfgs.len()];
    let mut d = directions(&c, &cfgs, &disc, &ends, &largest, &mut warnings)?;
    let jittered = jitter(&mut d, &cfgs);
    Ok((d, cfgs, jittered))
}

/// A discipline's parameters are typed where the direction's discipline is made
/// ([`discipline`]), each value once by its spec; the topology reads none of them (it notes
/// the keys kept), and nothing parses them again (only the defaults of the parameters not given).
#[test]
fn discipline_params_are_typed_once_where_the_discipline_is_made() {
    use aqmlab_qdisc::{texts_parsed, Value};
    let text = two_with(
        "qdisc = \"codel\"\nparams = { target = \"7ms\", interval = \"0.1s\" }",
        true,
    );
    let c = cx(&text);
    let raw = parse(&c).unwrap();
    let ov = Overrides::default();
    let before = texts_parsed();
    let (_, dirs, ends, disc) = topology(&c, &raw, &ov).unwrap();
    assert_eq!(texts_parsed() - before, 0);
    let ms = |n| Value::Duration(SimDuration::from_millis(n));
    for dp in &disc {
        assert_eq!(dp.kind, Ok(Kind::Codel));
        assert_eq!(dp.kept, ["interval", "target"]);
    }
    let mut warnings = Vec::new();
    let largest = vec![0; dirs.len()];
    let before = texts_parsed();
    let d = directions(&c, &dirs, &disc, &ends, &largest, &mut warnings).unwrap();
    // Both directions' (the reverse inherits the table): the 2 values given, read once each,
    // and the defaults of every row but target, interval and the buffer's limit (typed).
    let rows = Kind::Codel.params().len() as u64;
    assert_eq!(texts_parsed() - before, 2 * (2 + rows - 3));
    assert_eq!(d[1].params.value("target"), ms(7));
    // Written as given.
    assert_eq!(d[0].params.raw_value("interval"), "0.1s");
}

#[test]
fn directions_carry_their_settings_and_a_swapped_discipline() {
    let ov = Overrides {
        qdisc: vec![("l.rev".into(), "pie".into())],
        ..Default::default()
    };
    let (d, _, jittered) = dirs_of(TWO, &ov).unwrap();
    assert_eq!((d[0].name.as_str(), d[0].from, d[0].to), ("l", 0, 1));
    assert_eq!((d[1].name.as_str(), d[1].from, d[1].to), ("l.rev", 1, 0));
    assert_eq!(d[1].delay, SimDuration::from_millis(5));
    assert_eq!(d[0].qdisc.kind(), Kind::DropTail);
    assert_eq!(d[1].qdisc.kind(), Kind::Pie);
    assert!(!jittered);
    // PIE draws random numbers; drop-tail alone does not.
    assert!(links_random(&d));
    let (d, _, _) = dirs_of(TWO, &Overrides::default()).unwrap();
    assert!(!links_random(&d));
    let (d, _, _) = dirs_of(&two_with("loss = 0.01", true), &Overrides::default()).unwrap();
    assert!(links_random(&d));
    // FQ-CoDel draws with its perturbed hash, as its typed parameters say: not with the
    // default hash, nor when a --qdisc swap dropped the file's hash.
    let fq = two_with(
        "qdisc = \"fq_codel\"\nparams = { hash = \"perturbed\" }",
        true,
    );
    let (d, _, _) = dirs_of(&fq, &Overrides::default()).unwrap();
    assert!(links_random(&d));
    let (d, _, _) = dirs_of(&fq.replace("perturbed", "flow_id"), &Overrides::default()).unwrap();
    assert!(!links_random(&d));
    let swap = Overrides {
        qdisc: vec![("l".into(), "fq_codel".into())],
        ..Default::default()
    };
    let (d, _, _) = dirs_of(&fq, &swap).unwrap();
    assert!(!links_random(&d));
}

#[test]
fn jitter_is_read_into_its_direction_and_random_only_when_drawn() {
    let (d, _, jittered) = dirs_of(
        &two_with("jitter = \"uniform(0ms, 1ms)\"", true),
        &Overrides::default(),
    )
    .unwrap();
    assert!(jittered);
    assert_eq!(d[0].jitter.as_ref().unwrap().0, "uniform(0ms, 1ms)");
    let (d, _, jittered) =
        dirs_of(&two_with("jitter = \"1ms\"", true), &Overrides::default()).unwrap();
    assert!(!jittered);
    assert_eq!(
        d[0].jitter.as_ref().unwrap().1,
        DurationDist::Fixed(SimDuration::from_millis(1))
    );
    // A jitter that does not parse is refused as the file is read.
    let text = two_with("jitter = \"uniform(0ms)\"", true);
    let (line, path, _) = err_of(parse(&cx(&text)));
    assert_eq!((line, path.as_str()), (Some(10), "links[0].jitter"));
}

#[test]
fn check_buffers_names_the_first_packet_a_limit_cannot_hold() {
    let c = cx(TWO);
    let (_, cfgs, _) = dirs_of(TWO, &Overrides::default()).unwrap();
    let limits = vec![None, Some((1000, 2..3, "links[0].buffer".to_string()))];
    let crossing = |link, size| Crossing {
        flow: 0,
        link,
        size,
        what: "its ACKs".into(),
    };
    // A packet exactly the limit's size fits; no limit on `l`.
    assert!(check_buffers(&c, &[crossing(0, 9000), crossing(1, 1000)], &limits, &cfgs).is_ok());
    assert_eq!(
            err_of(check_buffers(&c, &[crossing(1, 1000), crossing(1, 1001)], &limits, &cfgs)),
            (
                Some(1),
                "links[0].buffer".into(),
                "a buffer of 1000B cannot hold one 1001-byte packet of flows[0] (its ACKs) through link l.rev: expected at least 1001B".into()
            )
        );
}

/// `[output] trace_flows` and `--trace-flow`: a TCP flow's index, once in the file, the
/// command line's entry replacing the file's; errors name the key and say what was expected.
#[test]
fn trace_flows_name_tcp_flows_once() {
    // Flow 0 is `TWO`'s UDP flow, flow 1 a TCP flow.
    let tcp = "[[flows]]\nkind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\n";
    let run = |output: &str, cli: &[(u64, &str)]| {
        let text = format!("{TWO}{tcp}[output]\n{output}\n");
        let ov = Overrides {
            trace_flows: cli.iter().map(|(f, e)| (*f, e.to_string())).collect(),
            ..Default::default()
        };
        resolve_with_edits(&text, "t.toml", Path::new(""), "t", &[], &[], &ov)
    };
    let ms = SimDuration::from_millis;
    let o = run("", &[]).unwrap().output;
    assert!(o.trace_flows.is_empty());
    let r = run("trace_flows = [{ flow = 1, every = \"10ms\" }]", &[]).unwrap();
    assert_eq!(r.output.trace_flows, [(1, ms(10))]);
    // Written to the resolved file, and read back the same.
    let toml = r.to_toml();
    assert!(
        toml.contains("trace_flows = [{ flow = 1, every = \"10ms\" }]"),
        "{toml}"
    );
    let again = resolve_with_edits(
        &toml,
        "r.toml",
        Path::new(""),
        "r",
        &[],
        &[],
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(again.output.trace_flows, [(1, ms(10))]);
    // The command line's entry replaces the file's.
    let o = run(
        "trace_flows = [{ flow = 1, every = \"10ms\" }]",
        &[(1, "2ms")],
    )
    .unwrap()
    .output;
    assert_eq!(o.trace_flows, [(1, ms(2))]);
    let err = |output: &str, cli: &[(u64, &str)]| match run(output, cli) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{output} {cli:?} accepted"),
    };
    let e = err("trace_flows = [{ flow = 0, every = \"10ms\" }]", &[]);
    assert!(
        e.contains("output.trace_flows[0].flow") && e.contains("flow 0 is a UDP flow"),
        "{e}"
    );
    let e = err("trace_flows = [{ flow = 2, every = \"10ms\" }]", &[]);
    assert!(
        e.contains("expected a flow index 0..2 (the scenario has 2 flows), got 2"),
        "{e}"
    );
    let e = err("trace_flows = [{ flow = -1, every = \"10ms\" }]", &[]);
    assert!(e.contains("got -1"), "{e}");
    let e = err(
        "trace_flows = [{ flow = 1, every = \"1ms\" }, { flow = 1, every = \"2ms\" }]",
        &[],
    );
    assert!(
        e.contains("output.trace_flows[1].flow") && e.contains("listed twice"),
        "{e}"
    );
    let e = err("trace_flows = [{ flow = 1, every = \"0s\" }]", &[]);
    assert!(
        e.contains("output.trace_flows[0].every") && e.contains("positive"),
        "{e}"
    );
    let e = err("trace_flows = [{ flow = 1, every = \"10\" }]", &[]);
    assert!(e.contains("output.trace_flows[0].every"), "{e}");
    let e = err("trace_flows = [{ flow = 1, often = \"10ms\" }]", &[]);
    assert!(e.contains("often"), "{e}");
    let e = err("", &[(0, "1ms")]);
    assert!(
        e.contains("--trace-flow 0=1ms") && e.contains("UDP flow"),
        "{e}"
    );
    let e = err("", &[(1, "fast")]);
    assert!(e.contains("--trace-flow 1=fast"), "{e}");
}

#[test]
fn output_keeps_logs_and_traces_in_link_order_once() {
    let (d, _, _) = dirs_of(TWO, &Overrides::default()).unwrap();
    let out = |text: &str, cli: &[&str]| {
        let c = cx(text);
        let raw = parse(&c).unwrap();
        let ov = Overrides {
            packet_log: cli.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        output(&c, raw.output.unwrap_or_default(), &ov, &d, &[])
    };
    let o = out(TWO, &[]).unwrap();
    assert_eq!((o.csv, o.packet_log.len(), o.trace.len()), (false, 0, 0));
    let text = format!(
        "{TWO}[output]\nformat = \"csv\"\npacket_log = [\"l.rev\", \"l\"]\ntrace = [\"l.rev\"]\n"
    );
    let o = out(&text, &["l"]).unwrap();
    assert!(o.csv);
    assert_eq!(o.packet_log, ["l", "l.rev"]);
    assert_eq!(o.trace, ["l.rev"]);
    assert_eq!(
        err_of(out(&format!("{TWO}[output]\nformat = \"json\"\n"), &[])),
        (
            Some(16),
            "output.format".into(),
            "expected \"parquet\" or \"csv\", got \"json\"".into()
        )
    );
    assert_eq!(
        err_of(out(TWO, &["m"])),
        (
            None,
            "--packet-log m".into(),
            "no link direction named \"m\" (NAME or NAME.rev): expected one of l, l.rev".into()
        )
    );
}

#[test]
fn output_steps_read_the_format_the_logs_and_the_traces() {
    let text = "duration = \"1s\"\n[output]\nformat = \"parquet\"\npacket_log = [\"b\"]\ntrace = [\"a\", \"x\"]\n";
    let c = cx(text);
    let raw = parse(&c).unwrap().output.unwrap();
    let names = ["a", "b", "c"];
    let no_x = "no link direction named \"x\" (NAME or NAME.rev): expected one of a, b, c";
    assert_eq!(output_format(&c, raw.format.as_ref()), Ok(false));
    assert_eq!(output_format(&c, None), Ok(false));
    let ov = Overrides {
        packet_log: vec!["c".into()],
        ..Default::default()
    };
    assert_eq!(
        logged_directions(&c, &raw.packet_log, &ov, &names),
        Ok(vec![false, true, true])
    );
    assert_eq!(
        err_of(logged_directions(
            &c,
            &raw.trace,
            &Overrides::default(),
            &names
        )),
        (
            Some(5),
            "output.packet_log[1]".to_string(),
            no_x.to_string()
        )
    );
    assert_eq!(
        traced_directions(&c, &raw.trace[..1], &names),
        Ok(vec![true, false, false])
    );
    assert_eq!(
        err_of(traced_directions(&c, &raw.trace, &names)),
        (Some(5), "output.trace[1]".to_string(), no_x.to_string())
    );
}

#[test]
fn windows_start_with_the_warm_ups_and_stay_within_the_run() {
    use crate::windows::WindowSpec;
    let w = |extra: &str| {
        let text = format!("{TWO}{extra}");
        let c = cx(&text);
        let raw = parse(&c).unwrap();
        windows(&c, &raw.warmup, &raw.windows, SimDuration::from_secs(10))
    };
    let text = "[[windows]]\nname = \"w\"\nfrom = \"1s\"\nto = \"10s\"\n";
    assert_eq!(w("").unwrap(), Vec::<WindowSpec>::new());
    let with_warmup = |extra: &str| {
        let text = format!("{}{extra}", two_with("warmup = \"2s\"", false));
        let c = cx(&text);
        let raw = parse(&c).unwrap();
        windows(&c, &raw.warmup, &raw.windows, SimDuration::from_secs(10))
    };
    assert_eq!(
        with_warmup(text).unwrap(),
        [
            WindowSpec {
                name: "after_warmup".into(),
                from: SimTime::from_secs(2),
                to: SimTime::from_secs(10),
            },
            WindowSpec {
                name: "w".into(),
                from: SimTime::from_secs(1),
                to: SimTime::from_secs(10),
            }
        ]
    );
    assert_eq!(
        err_of(w(&text.replace("\"10s\"", "\"11s\""))),
        (
            Some(18),
            "windows[0].to".into(),
            "expected a window within the run (duration 10s), got \"11s\"".into()
        )
    );
    assert_eq!(
        err_of(with_warmup(&text.replace("\"w\"", "\"after_warmup\""))).2,
        "window name \"after_warmup\" names the window `warmup` makes: expected a unique name"
    );
}

#[test]
fn the_warm_up_window_runs_from_its_end_to_the_runs_and_is_shorter_than_the_run() {
    use crate::windows::WindowSpec;
    let text = two_with("warmup = \"2s\"", false);
    let c = cx(&text);
    let raw = parse(&c).unwrap();
    let w = raw.warmup.as_ref().unwrap();
    assert_eq!(
        warmup_window(&c, w, SimDuration::from_secs(10)).unwrap(),
        WindowSpec {
            name: "after_warmup".into(),
            from: SimTime::from_secs(2),
            to: SimTime::from_secs(10),
        }
    );
    // Just shorter passes; the run's length is refused.
    let short = warmup_window(&c, w, SimDuration::from_nanos(2_000_000_001)).unwrap();
    assert_eq!(short.to, SimTime::from_nanos(2_000_000_001));
    assert_eq!(
        err_of(warmup_window(&c, w, SimDuration::from_secs(2))),
        (
            Some(3),
            "warmup".into(),
            "expected a warm-up shorter than the duration (2s), got \"2s\"".into()
        )
    );
}

#[test]
fn a_window_has_a_new_printable_name_and_ends_after_it_starts_within_the_run() {
    use crate::windows::WindowSpec;
    let one = |name: &str, from: &str, to: &str, before: &[WindowSpec]| {
        let text = format!("{TWO}[[windows]]\nname = {name:?}\nfrom = {from:?}\nto = {to:?}\n");
        let c = cx(&text);
        let raw = parse(&c).unwrap();
        window(
            &c,
            "windows[3]",
            &raw.windows[0],
            before,
            SimDuration::from_secs(10),
        )
    };
    let spec = |name: &str, from, to| WindowSpec {
        name: name.into(),
        from: SimTime::from_secs(from),
        to: SimTime::from_secs(to),
    };
    assert_eq!(one("w", "1s", "10s", &[]).unwrap(), spec("w", 1, 10));
    let taken = [spec("after_warmup", 2, 10), spec("v", 0, 1)];
    assert_eq!(one("w", "0s", "1s", &taken).unwrap(), spec("w", 0, 1));
    let printable = "expected a non-empty name without control characters";
    assert_eq!(
        err_of(one("", "1s", "2s", &[])),
        (Some(16), "windows[3].name".into(), printable.into())
    );
    assert_eq!(err_of(one("a\tb", "1s", "2s", &[])).2, printable);
    assert_eq!(
        err_of(one("v", "1s", "2s", &taken)),
        (
            Some(16),
            "windows[3].name".into(),
            "window name \"v\" is used twice: expected a unique name".into()
        )
    );
    assert_eq!(
        err_of(one("after_warmup", "1s", "2s", &taken)).2,
        "window name \"after_warmup\" names the window `warmup` makes: expected a unique name"
    );
    assert_eq!(
        err_of(one("w", "2s", "2s", &[])),
        (
            Some(18),
            "windows[3].to".into(),
            "expected the window to end after it starts (\"2s\"), got \"2s\"".into()
        )
    );
    assert_eq!(
        err_of(one("w", "2s", "10001ms", &[])),
        (
            Some(18),
            "windows[3].to".into(),
            "expected a window within the run (duration 10s), got \"10001ms\"".into()
        )
    );
}

#[test]
fn first_stamp_names_the_first_flow_of_the_table() {
    let at = |path: &str, stamps: &[Option<usize>]| {
        let e = ScenarioError {
            file: "t.toml".into(),
            line: Some(3),
            path: path.into(),
            msg: "bad".into(),
        };
        first_stamp(e, stamps).to_string()
    };
    let stamps = [Some(4), None, Some(2)];
    assert_eq!(at("flows[0].rate", &stamps), "t.toml:3: flows[0].rate: bad");
    assert_eq!(at("flows[1].rate", &stamps), "t.toml:3: flows[4].rate: bad");
    assert_eq!(at("flows[2]", &stamps), "t.toml:3: flows[5]: bad");
    // Other paths are left as they are.
    assert_eq!(at("links[1].rate", &stamps), "t.toml:3: links[1].rate: bad");
    assert_eq!(at("flows[x].rate", &stamps), "t.toml:3: flows[x].rate: bad");
    assert_eq!(at("flows", &stamps), "t.toml:3: flows: bad");
}

/// `TWO` resolved whole: the defaults (the name given by the caller, the seed 1 unless given),
/// the file's values, and its one UDP flow routed over `l`.
#[test]
fn resolve_with_edits_gives_the_defaults_the_values_and_the_routes() {
    let r = resolve_with_edits(
        TWO,
        "t.toml",
        Path::new(""),
        "two",
        &[],
        &[],
        &Overrides::default(),
    );
    let r = r.unwrap();
    assert_eq!((r.name.as_str(), r.description.as_str()), ("two", ""));
    assert_eq!((r.duration, r.seed), (SimDuration::from_secs(10), 1));
    assert_eq!(r.nodes, ["a", "b"]);
    let names: Vec<&str> = r.directions.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["l", "l.rev"]);
    assert_eq!(r.flows.len(), 1);
    assert_eq!(r.routes.next_link(0, 1), Some(0));
    assert_eq!(r.routes.next_link(1, 0), Some(1));
    assert!(!r.random && !r.warmup);
    assert!(r.dropped_params.is_empty() && r.warnings.is_empty());
    // The command line's seed wins; a named scenario keeps its name.
    let ov = Overrides {
        seed: Some(7),
        ..Default::default()
    };
    let text = format!("name = \"n\"\n{TWO}");
    let r = resolve_with_edits(&text, "t.toml", Path::new(""), "two", &[], &[], &ov).unwrap();
    assert_eq!((r.name.as_str(), r.seed), ("n", 7));
    // An error names the file, the line and the key.
    let text = TWO.replace("rate = \"1Mbps\"", "rate = \"fast\"");
    let e = resolve_with_edits(&text, "t.toml", Path::new(""), "two", &[], &[], &ov).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line, e.path.as_str()),
        ("t.toml", Some(14), "flows[0].rate")
    );
}

/// The flows of `text` on its topology, as [`resolve_with_edits`] gives them to the directions.
fn on_links(text: &str) -> Result<FlowsOnLinks, ScenarioError> {
    let c = cx(text);
    let mut raw = parse(&c).unwrap();
    let raw_flows = RawFlows::new(std::mem::take(&mut raw.flows), &[]);
    let (nodes, _, ends) = read_topology(&c, &raw).unwrap();
    flows_on_links(&c, raw_flows, &nodes, &ends, SimDuration::from_secs(10), 1)
}

#[test]
fn flows_on_links_route_the_flows_and_take_the_largest_packet_per_direction() {
    let on = on_links(TWO).unwrap();
    assert_eq!(on.planned.len(), 1);
    assert!(!on.random);
    assert_eq!(on.routes.next_link(0, 1), Some(0));
    let crossed: Vec<(usize, usize, u32)> = on
        .crossings
        .iter()
        .map(|c| (c.flow, c.link, c.size))
        .collect();
    // The UDP flow's 1500-byte datagrams on `l`; nothing comes back on `l.rev`.
    assert_eq!(crossed, [(0, 0, 1500)]);
    assert_eq!(on.largest, [1500, 0]);
    // A TCP flow of 1000-byte segments puts its ACKs on `l.rev`: the largest on `l` stays the
    // UDP flow's.
    let tcp = "[[flows]]\nkind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\nmss = 960\n";
    let on = on_links(&format!("{TWO}{tcp}")).unwrap();
    let crossed: Vec<(usize, usize, u32)> = on
        .crossings
        .iter()
        .map(|c| (c.flow, c.link, c.size))
        .collect();
    assert_eq!(crossed, [(0, 0, 1500), (1, 0, 1000), (1, 1, 40)]);
    assert_eq!(on.largest, [1500, 40]);
    // A random start makes the flows random.
    let text = TWO.replace(
        "rate = \"1Mbps\"",
        "rate = \"1Mbps\"\nstart = \"uniform(0s, 1s)\"",
    );
    assert!(on_links(&text).unwrap().random);
    // An error of the flows is the flows'.
    let text = TWO.replace("to = \"b\"\nrate = \"1M", "to = \"c\"\nrate = \"1M");
    let (line, path, msg) = err_of(on_links(&text));
    assert_eq!((line, path.as_str()), (Some(13), "flows[0].to"));
    assert_eq!(msg, "expected one of the nodes (a, b), got \"c\"");
}

#[test]
fn checked_flows_keep_the_routes_and_refuse_a_buffer_below_a_packet() {
    let directions_of = |text: &str| {
        let c = cx(text);
        let raw = parse(&c).unwrap();
        let (nodes, cfgs, ends, disc) = topology(&c, &raw, &Overrides::default()).unwrap();
        let d = directions(&c, &cfgs, &disc, &ends, &[1500, 0], &mut Vec::new()).unwrap();
        (nodes, cfgs, d)
    };
    let (nodes, cfgs, d) = directions_of(TWO);
    let ov = Overrides::default();
    let (flows, routes) = on_links(TWO)
        .unwrap()
        .checked(&cx(TWO), &nodes, &cfgs, &d, &ov)
        .unwrap();
    assert_eq!(flows.len(), 1);
    assert_eq!(routes.next_link(0, 1), Some(0));
    let small = TWO.replace("\"3000B\"", "\"1499B\"");
    let (nodes, cfgs, d) = directions_of(&small);
    let r = on_links(&small)
        .unwrap()
        .checked(&cx(&small), &nodes, &cfgs, &d, &ov);
    assert_eq!(
        err_of(r),
        (
            Some(9),
            "links[0].buffer".into(),
            "a buffer of 1499B cannot hold one 1500-byte packet of flows[0] (its datagrams) \
             through link l: expected at least 1500B"
                .into()
        )
    );
}

#[test]
fn jitter_goes_into_the_directions_and_any_random_part_makes_the_run_random() {
    let random_of = |text: &str, flows_random: bool| {
        let c = cx(text);
        let raw = parse(&c).unwrap();
        let (_, cfgs, ends, disc) = topology(&c, &raw, &Overrides::default()).unwrap();
        let mut d = directions(&c, &cfgs, &disc, &ends, &[0, 0], &mut Vec::new()).unwrap();
        let random = jitter_and_randomness(&mut d, &cfgs, flows_random);
        (random, d[0].jitter.as_ref().map(|j| j.0.clone()))
    };
    assert_eq!(random_of(TWO, false), (false, None));
    assert_eq!(random_of(TWO, true), (true, None));
    let fixed = two_with("jitter = \"1ms\"", true);
    assert_eq!(random_of(&fixed, false), (false, Some("1ms".into())));
    let drawn = two_with("jitter = \"uniform(0ms, 1ms)\"", true);
    assert_eq!(
        random_of(&drawn, false),
        (true, Some("uniform(0ms, 1ms)".into()))
    );
    assert_eq!(
        random_of(&two_with("loss = 0.01", true), false),
        (true, None)
    );
    assert_eq!(
        random_of(&two_with("qdisc = \"red\"", true), false),
        (true, None)
    );
}

#[test]
fn an_unknown_direction_lists_the_directions() {
    assert_eq!(
        no_such_direction("x", &["l", "l.rev"]),
        "no link direction named \"x\" (NAME or NAME.rev): expected one of l, l.rev"
    );
}
