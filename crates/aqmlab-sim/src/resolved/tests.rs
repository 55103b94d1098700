use super::*;
use crate::scenario::{resolve_with_edits, Overrides, Scenario};
use std::path::Path;

#[test]
fn a_whole_number_beyond_tomls_integers_is_written_as_its_digits() {
    assert_eq!(
        param_value(Written::Integer(i64::MAX as u64)).as_integer(),
        Some(i64::MAX)
    );
    assert_eq!(
        param_value(Written::Integer(u64::MAX)).as_str(),
        Some("18446744073709551615")
    );
    // and read back by the spec of a whole number to the same value
    let spec = aqmlab_qdisc::ParamSpec::integer("n", "0", "");
    assert_eq!(
        spec.parse("k", "18446744073709551615"),
        Ok(aqmlab_qdisc::Value::Integer(u64::MAX))
    );
}

const TEXT: &str = r#"
duration = "2s"
nodes = ["a", "b", "c"]

[[links]]
name = "ab"
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"
qdisc = "codel"

[[links]]
name = "bc"
from = "b"
to = "c"
rate = "20Mbps"
delay = "1ms"

[[flows]]
kind = "tcp"
from = "a"
to = "c"

[output]
packet_log = ["bc", "ab", "bc"]
"#;

fn resolve(text: &str, sets: &[(&str, &str)]) -> Result<ResolvedScenario, String> {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    resolve_with_edits(
        text,
        "t.toml",
        Path::new(""),
        "t",
        &[],
        &sets,
        &Overrides::default(),
    )
    .map_err(|e| e.to_string())
}

#[test]
fn a_set_parameter_is_typed_in_the_resolved_scenario() {
    let r = resolve(TEXT, &[("links[0].params.target", "7ms")]).unwrap();
    assert_eq!(r.directions.len(), 4);
    let ab = &r.directions[0];
    assert_eq!(ab.name, "ab");
    assert_eq!(ab.params.duration("target"), SimDuration::from_millis(7));
    // The configuration is the one those parameters make, and differs from the default's.
    assert_eq!(ab.qdisc, AnyConfig::from_params(&ab.params).unwrap());
    let default = resolve(TEXT, &[]).unwrap();
    assert!(matches!(ab.qdisc, AnyConfig::Codel(_)));
    assert_ne!(ab.qdisc, default.directions[0].qdisc);
    // CoDel's mtu = "auto": the flow's largest segment on this direction, before any build.
    assert_ne!(ab.params.raw_value("mtu"), "auto");
    // The reverse inherits the discipline, not the --set on the forward direction's key.
    assert_eq!(r.directions[1].name, "ab.rev");
    assert_eq!(r.directions[1].params.kind(), "codel");
}

#[test]
fn the_simulation_and_the_resolved_file_come_from_one_resolved_scenario() {
    let r = resolve(TEXT, &[]).unwrap();
    let sc = Scenario::from_resolved(r.clone()).unwrap();
    assert_eq!(sc.resolved, r.to_toml());
    let names: Vec<&str> = sc.sim.link_names().collect();
    let resolved: Vec<&str> = r.directions.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, resolved);
    // Packet logs in link order, each once, as the simulation keeps them.
    assert_eq!(r.output.packet_log, ["ab", "bc"]);
    let logged: Vec<&str> = sc.sim.packet_logs().map(|(n, _)| n).collect();
    assert_eq!(logged, ["ab", "bc"]);
}

#[test]
fn the_resolved_file_resolves_to_itself() {
    let r = resolve(TEXT, &[("links[1].params.limit", "50p")]).unwrap();
    let text = r.to_toml();
    assert!(text.contains("limit = \"50p\""), "{text}");
    let again = resolve(&text, &[]).unwrap();
    assert_eq!(again.to_toml(), text);
    assert_eq!(again.directions[2].qdisc, r.directions[2].qdisc);
}

#[test]
fn an_unreachable_destination_is_refused_without_a_simulation() {
    let text = TEXT.replace(
        r#"nodes = ["a", "b", "c"]"#,
        r#"nodes = ["a", "b", "c", "d"]"#,
    ) + "\n[[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"d\"\nrate = \"1Mbps\"\n";
    let e = resolve(&text, &[]).unwrap_err();
    assert!(
        e.contains("flows[1]") && e.contains("no route from a to d"),
        "{e}"
    );
}

#[test]
fn a_built_scenario_has_its_links_ends_among_the_nodes_and_a_bin() {
    let r = resolve(TEXT, &[]).unwrap();
    assert!(r.check_ends_and_bin().is_ok());
    let mut bad = r.clone();
    bad.directions[3].to = 3;
    assert_eq!(
        bad.check_ends_and_bin().unwrap_err().to_string(),
        "link bc.rev: node index 3 does not exist"
    );
    assert!(bad.build_sim().is_err());
    let mut bad = r.clone();
    bad.directions[0].from = 7;
    assert_eq!(
        bad.check_ends_and_bin().unwrap_err().to_string(),
        "link ab: node index 7 does not exist"
    );
    let mut bad = r;
    bad.bin = SimDuration::ZERO;
    assert_eq!(
        bad.check_ends_and_bin().unwrap_err().to_string(),
        "the time-series bin must be > 0"
    );
}

#[test]
fn a_repeated_transfers_idle_time_is_written_with_its_distribution() {
    let keys = |idle: IdleDist| {
        let mut tb = Table::new();
        idle_keys(&mut tb, &idle);
        tb.to_string()
    };
    let ms = SimDuration::from_millis;
    assert_eq!(
        keys(IdleDist::Constant(ms(20))),
        "idle = \"20ms\"\nidle_dist = \"constant\"\n"
    );
    assert_eq!(
        keys(IdleDist::Uniform {
            lo: ms(1),
            hi: ms(1500)
        }),
        "idle = [\"1ms\", \"1500ms\"]\nidle_dist = \"uniform\"\n"
    );
    assert_eq!(
        keys(IdleDist::Exponential { mean: ms(250) }),
        "idle = \"250ms\"\nidle_dist = \"exponential\"\n"
    );
}

#[test]
fn a_video_clients_keys_are_its_ladder_segment_buffer_safety_and_request() {
    let v = VideoSpec {
        segment: SimDuration::from_secs(2),
        ladder: vec![
            aqmlab_core::Bitrate::from_bps(500_000),
            aqmlab_core::Bitrate::from_bps(3_000_000),
        ],
        buffer: SimDuration::from_secs(30),
        safety: 0.75,
        request_bytes: 300,
    };
    let mut tb = Table::new();
    video_keys(&mut tb, &v);
    assert_eq!(
        tb.to_string(),
        "ladder = [\"500kbps\", \"3Mbps\"]\nsegment = \"2s\"\nplayout_buffer = \"30s\"\n\
             safety = 0.75\nrequest_size = \"300B\"\n"
    );
    // app_keys writes the application's name first, then its keys.
    let mut tb = Table::new();
    app_keys(&mut tb, &TcpApp::Video(v));
    assert_eq!(tb.to_string().lines().next(), Some("app = \"video\""));
    assert_eq!(tb.len(), 6);
    let mut tb = Table::new();
    app_keys(&mut tb, &TcpApp::Finite { bytes: 5000 });
    assert_eq!(tb.to_string(), "app = \"finite\"\nbytes = \"5000B\"\n");
    let mut tb = Table::new();
    app_keys(
        &mut tb,
        &TcpApp::Repeat {
            size: SizeDist::Constant { bytes: 1000 },
            idle: IdleDist::Constant(SimDuration::from_millis(5)),
            reuse: false,
            restart_after_idle: true,
        },
    );
    // No idle_restart without reuse (the loader refuses it there).
    assert_eq!(
        tb.to_string(),
        "app = \"repeat\"\nsize_dist = \"constant\"\nsize_mean = \"1000B\"\nidle = \"5ms\"\n\
             idle_dist = \"constant\"\nreuse = false\n"
    );
}

#[test]
fn the_resolved_file_is_the_scenario_keys_the_links_the_flows_the_windows_and_the_output() {
    let text = format!("warmup = \"1s\"\nseed = \"18446744073709551615\"\n{TEXT}");
    let text = text.replace(
        "[output]",
        "[[windows]]\nname = \"w\"\nfrom = \"1.5s\"\nto = \"2s\"\n\n[output]",
    );
    let mut r = resolve(&text, &[]).unwrap();
    r.description = "d".into();
    let mut doc = DocumentMut::new();
    let windows = scenario_keys(&mut doc, &r);
    assert_eq!(
        doc.to_string(),
        "name = \"t\"\ndescription = \"d\"\nduration = \"2s\"\nseed = \"18446744073709551615\"\n\
             bin = \"100ms\"\nwarmup = \"1s\"\nnodes = [\"a\", \"b\", \"c\"]\n"
    );
    // The warm-up's window is the `warmup` key, not a [[windows]].
    assert_eq!(
        windows_tables(windows).to_string(),
        "[{ name = \"w\", from = \"1500ms\", to = \"2s\" }]"
    );
    let links = links_tables(&r);
    assert_eq!(links.len(), 2);
    let ab = links.get(0).unwrap().to_string();
    assert!(
        ab.starts_with("name = \"ab\"\nfrom = \"a\"\nto = \"b\"\nrate = \"10Mbps\"\n"),
        "{ab}"
    );
    // The reverse direction is the link's `reverse` table, with the same settings here.
    let rev = &links.get(0).unwrap()["reverse"];
    assert_eq!(rev["rate"].as_str(), Some("10Mbps"));
    assert_eq!(rev["qdisc"].as_str(), Some("codel"));
    assert!(rev.get("name").is_none() && rev.get("from").is_none());
    let bc = links.get(1).unwrap().to_string();
    assert!(
        bc.starts_with("name = \"bc\"\nfrom = \"b\"\nto = \"c\"\n"),
        "{bc}"
    );
    // The whole file: these parts, in this order, and the flows between them.
    let whole = resolved_toml(&r);
    let head = doc.to_string();
    assert!(whole.starts_with(&head), "{whole}");
    let at = |part: &str| whole.find(part).unwrap();
    assert!(at("[[links]]") < at("[[flows]]"));
    assert!(at("[[flows]]") < at("[[windows]]"));
    assert!(at("[[windows]]") < at("[output]"));
    assert_eq!(whole, r.to_toml());
}

#[test]
fn the_output_table_writes_the_traced_flows_and_the_delay_distribution_only_when_asked() {
    let mut o = ResolvedOutput {
        csv: false,
        packet_log: vec!["ab".into()],
        trace: vec![],
        trace_flows: vec![],
        owd_distribution: false,
        flow_series: FlowSeries::Auto,
    };
    assert_eq!(
        output_table(&o).to_string(),
        "format = \"parquet\"\npacket_log = [\"ab\"]\ntrace = []\n"
    );
    o.csv = true;
    o.trace_flows = vec![(2, SimDuration::from_millis(10))];
    o.owd_distribution = true;
    assert_eq!(
        output_table(&o).to_string(),
        "format = \"csv\"\npacket_log = [\"ab\"]\ntrace = []\n\
             trace_flows = [{ flow = 2, every = \"10ms\" }]\nowd_distribution = true\n"
    );
    // `flow_series` unless "auto" (the default), a list by index.
    o.flow_series = FlowSeries::Flows(vec![0, 7]);
    assert!(output_table(&o)
        .to_string()
        .ends_with("owd_distribution = true\nflow_series = [0, 7]\n"));
    o.flow_series = FlowSeries::None;
    assert!(output_table(&o)
        .to_string()
        .ends_with("flow_series = \"none\"\n"));
}

/// The `[[flows]]` table of the only flow of `TEXT` with its `[[flows]]` keys `keys`.
fn one_flow(keys: &str) -> String {
    let text = TEXT.replace("kind = \"tcp\"\nfrom = \"a\"\nto = \"c\"\n", keys);
    let r = resolve(&text, &[]).unwrap();
    flow_table(&r.flows[0], &r.nodes).to_string()
}

#[test]
fn a_udp_flows_table_has_its_rate_size_periods_and_codepoint() {
    assert_eq!(
        one_flow(
            "kind = \"udp\"\nname = \"v\"\nfrom = \"a\"\nto = \"c\"\nrate = \"1Mbps\"\n\
                 size = 200\non_time = \"1s\"\noff_time = \"2s\"\nonoff_shape = 1.5\n\
                 ecn_codepoint = \"ect1\"\nstop = \"1.5s\"\ndscp = 46\n"
        ),
        "kind = \"udp\"\nname = \"v\"\nfrom = \"a\"\nto = \"c\"\nstart = \"0s\"\n\
             stop = \"1500ms\"\ndscp = 46\nrate = \"1Mbps\"\nsize = 200\non_time = \"1s\"\n\
             off_time = \"2s\"\nonoff_shape = 1.5\necn_codepoint = \"ect1\"\n"
    );
}

#[test]
fn a_tcp_flows_table_has_its_app_then_its_senders_and_its_controllers_keys() {
    let t = one_flow(
        "kind = \"tcp\"\nfrom = \"a\"\nto = \"c\"\ncc = \"vegas\"\napp = \"web\"\n\
             interval = \"200ms\"\nsize_dist = \"lognormal\"\nsize_mean = \"2kB\"\n",
    );
    let app = "cc = \"vegas\"\napp = \"web\"\nmodel = \"simple\"\ninterval = \"200ms\"\n\
                   size_dist = \"lognormal\"\nsize_mean = \"2000B\"\nsize_sigma = 1.0\n\
                   request_size = \"300B\"\nmss = 1460\n";
    assert!(t.contains(app), "{t}");
    // Vegas's own keys, and the ssthresh rule of the controllers that halve the flight.
    assert!(
        t.ends_with("pacing = false\nvegas_alpha = 1\nvegas_beta = 3\nvegas_gamma = 1\n"),
        "{t}"
    );
    assert!(!t.contains("cubic_") && !t.contains("rto_ssthresh") && !t.contains("recover_guard"));
    // Classic Reno without SACK: recover_guard and rto_ssthresh; no controller keys.
    let t = one_flow(
        "kind = \"tcp\"\nfrom = \"a\"\nto = \"c\"\ncc = \"reno\"\nsack = false\n\
             initial_ssthresh = 10\nmax_window = 64\n",
    );
    assert_eq!(
        t,
        "kind = \"tcp\"\nfrom = \"a\"\nto = \"c\"\nstart = \"0s\"\ncc = \"reno\"\n\
             app = \"bulk\"\nmss = 1460\ninitial_cwnd = 10\nmax_window = 64\n\
             initial_ssthresh = 10\ndelayed_ack = true\ndelack_timeout = \"40ms\"\nsack = false\n\
             ecn = false\naccecn = false\nhandshake = true\nhystart = false\n\
             min_rto = \"200ms\"\ninitial_rto = \"1s\"\nmax_rto = \"60s\"\n\
             dupack_threshold = 3\nprr = false\nrecovery = \"rfc6675\"\nrescue = true\n\
             recover_guard = false\nrto_ssthresh = \"rfc5681\"\npacing = false\n"
    );
    // Reno with SACK: no recover_guard (the loader refuses it there).
    let t = one_flow("kind = \"tcp\"\nfrom = \"a\"\nto = \"c\"\ncc = \"reno\"\n");
    assert!(
        t.contains("rescue = true\nrto_ssthresh = \"rfc5681\"\n"),
        "{t}"
    );
    let t =
        one_flow("kind = \"tcp\"\nfrom = \"a\"\nto = \"c\"\ncc = \"cubic\"\ncubic_beta = 0.5\n");
    assert!(t.contains("cubic_beta = 0.5\ncubic_c = 0.4\n"), "{t}");
    assert!(
        !t.contains("recover_guard") && !t.contains("rto_ssthresh"),
        "{t}"
    );
}

#[test]
fn sizes_arrivals_and_periods_are_written_in_the_loaders_units() {
    let keys = |f: &dyn Fn(&mut Table)| {
        let mut tb = Table::new();
        f(&mut tb);
        tb.to_string()
    };
    assert_eq!(
        keys(&|tb| size_keys(
            tb,
            &SizeDist::Pareto {
                mean: 1234.9,
                shape: 1.5
            }
        )),
        "size_dist = \"pareto\"\nsize_mean = \"1234B\"\nsize_shape = 1.5\n"
    );
    assert_eq!(
        keys(&|tb| size_keys(tb, &SizeDist::Constant { bytes: 7 })),
        "size_dist = \"constant\"\nsize_mean = \"7B\"\n"
    );
    assert_eq!(
        keys(&|tb| arrival_keys(tb, &Arrivals::Poisson { per_s: 2.5 })),
        "conns_per_s = 2.5\n"
    );
    assert_eq!(
        keys(&|tb| arrival_keys(
            tb,
            &Arrivals::Periodic {
                interval: SimDuration::from_millis(200)
            }
        )),
        "interval = \"200ms\"\n"
    );
    let on_off = OnOff {
        mean_on: SimDuration::from_secs(1),
        mean_off: SimDuration::from_millis(500),
        pareto_shape: None,
    };
    assert_eq!(
        keys(&|tb| on_off_keys(tb, Some(&on_off))),
        "on_time = \"1s\"\noff_time = \"500ms\"\n"
    );
    assert_eq!(keys(&|tb| on_off_keys(tb, None)), "");
    assert_eq!(
        keys(&|tb| {
            tb.insert("n", int(7u32));
        }),
        "n = 7\n"
    );
}

#[test]
fn an_f32_is_written_in_its_shortest_form_that_narrows_back_to_it() {
    for x in [0.1f32, 1.0 / 3.0, 16_777_217.0, f32::MAX, f32::MIN_POSITIVE] {
        let item = f32_item(x);
        let written = item.as_float().unwrap();
        assert_eq!(written as f32, x, "{x}");
    }
    assert_eq!(f32_item(0.1).as_float(), Some(0.1));
    assert_eq!(f32_item(0.25).as_float(), Some(0.25));
}

#[test]
fn a_directions_table_has_its_rate_delay_discipline_and_what_it_adds() {
    let text = TEXT.replace(
        "rate = \"20Mbps\"\ndelay = \"1ms\"",
        "schedule = [[\"0s\", \"0bps\"], [\"1s\", \"5Mbps\"]]\ndelay = \"1ms\"\nloss = 0.5\n\
             jitter = \"uniform(0ms, 1ms)\"",
    );
    let r = resolve(&text, &[]).unwrap();
    let bc = direction_table(&r.directions[2]).to_string();
    assert_eq!(
        bc,
        "schedule = [[\"0s\", \"0bps\"], [\"1s\", \"5Mbps\"]]\ndelay = \"1ms\"\n\
             qdisc = \"droptail\"\nloss = 0.5\njitter = \"uniform(0ms, 1ms)\"\n\
             params = { limit = \"1000p\", head_drop = false }\n"
    );
    // Without loss or jitter, neither is written.
    let ab = direction_table(&r.directions[0]).to_string();
    assert!(
        ab.starts_with("rate = \"10Mbps\"\ndelay = \"5ms\"\nqdisc = \"codel\"\nparams = {"),
        "{ab}"
    );
    // The simulator's link direction: the direction's own values.
    let c = r.directions[2].link_config(1);
    assert_eq!(
        (c.name.as_str(), c.from, c.to, c.delay, c.loss),
        ("bc", 1, 2, SimDuration::from_millis(1), 0.5)
    );
    let _ = r.directions[2].link_parts(1);
}

#[test]
fn tcp_keys_write_the_syn_retries_when_given_and_each_controllers_own_keys() {
    let keys = |cc: CcKind, syn: Option<u32>| {
        let mut tb = Table::new();
        tcp_keys(&mut tb, &TcpConfig::with_cc(cc), syn);
        tb.to_string()
    };
    let tail = |t: &str| t[t.find("pacing = ").unwrap()..].to_string();
    assert!(keys(CcKind::Cubic, Some(3)).contains("handshake = true\nsyn_retries = 3\nhystart"));
    assert!(!keys(CcKind::Cubic, None).contains("syn_retries"));
    assert_eq!(
            tail(&keys(CcKind::Ledbat, None)),
            "pacing = false\nledbat_target = \"100ms\"\nledbat_gain = 1.0\nledbat_allowed_increase = 1.0\n"
        );
    assert_eq!(
        tail(&keys(CcKind::Dctcp, None)),
        "pacing = false\ndctcp_g = 0.0625\n"
    );
    assert_eq!(
        tail(&keys(CcKind::Prague, None)),
        "pacing = false\nprague_ecn_fallback = 0\n"
    );
    assert_eq!(tail(&keys(CcKind::NewReno, None)), "pacing = false\n");
    assert!(keys(CcKind::NewReno, None).contains("rescue = true\nrto_ssthresh = \"rfc5681\"\n"));
}
