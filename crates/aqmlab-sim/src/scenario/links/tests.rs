use super::super::disc_params::{disc_of, discipline};
use super::*;
use aqmlab_core::Bitrate;

/// A link direction `l` at `links[0]` read from the link table `table` (its spans in
/// `table`), with its discipline and the parameters it keeps as [`disc_of`] gives them (the
/// `--qdisc` swap `swap`, if any).
struct One {
    text: String,
    d: RawDirection,
    dp: DirParams,
}

fn ctx(text: &str) -> Ctx<'_> {
    Ctx {
        file: "t.toml".into(),
        text,
        dir: PathBuf::from("/data"),
    }
}

fn one(table: &str, swap: Option<&str>) -> One {
    let d: RawDirection = toml::from_str(table).unwrap();
    let ov = Overrides {
        qdisc: swap
            .map(|k| ("l".to_string(), k.to_string()))
            .into_iter()
            .collect(),
        ..Overrides::default()
    };
    let cfg = ("l".to_string(), d.clone(), "links[0]".to_string());
    let dp = disc_of(&ctx(table), &cfg, &ov);
    One {
        text: table.to_string(),
        d,
        dp,
    }
}

impl One {
    fn with<T>(&self, f: impl FnOnce(&DirIn<'_>) -> T) -> T {
        let cx = ctx(&self.text);
        f(&DirIn {
            cx: &cx,
            name: "l",
            d: &self.d,
            path: "links[0]",
            ends: (0, 1),
            dp: &self.dp,
            largest_packet: 540,
        })
    }
}

/// `(line, key path, message)` of an error.
fn err<T: std::fmt::Debug>(r: Result<T, ScenarioError>) -> (Option<usize>, String, String) {
    let e = r.unwrap_err();
    (e.line, e.path, e.msg)
}

fn e(line: Option<usize>, path: &str, msg: &str) -> (Option<usize>, String, String) {
    (line, path.to_string(), msg.to_string())
}

fn steps(rate: &LinkRate) -> Vec<(SimTime, u64)> {
    match rate {
        LinkRate::Steps(s) => s.steps().iter().map(|(t, r)| (*t, r.as_bps())).collect(),
        LinkRate::Constant(r) => vec![(SimTime::ZERO, r.as_bps())],
        LinkRate::Trace { .. } => panic!("a trace"),
    }
}

#[test]
fn link_rate_is_exactly_one_of_rate_schedule_or_trace() {
    let rate = |t: &str| one(t, None).with(link_rate);
    let at = |ms| SimTime::ZERO + SimDuration::from_millis(ms);
    assert!(matches!(
        rate("rate = \"10Mbps\"").unwrap(),
        LinkRate::Constant(r) if r == Bitrate::from_mbps(10)
    ));
    let sched = "delay = \"5ms\"\nschedule = [[\"0s\", \"0Mbps\"], [\"2s\", \"5Mbps\"]]";
    assert_eq!(
        steps(&rate(sched).unwrap()),
        vec![(at(0), 0), (at(2000), 5_000_000)]
    );
    let none = "delay = \"5ms\"";
    let msg = "link l: expected exactly one of rate, schedule or trace, got 0";
    assert_eq!(err(rate(none)), e(None, "links[0]", msg));
    let two = "rate = \"1Mbps\"\ntrace = \"t.txt\"";
    let msg = "link l: expected exactly one of rate, schedule or trace, got 2";
    assert_eq!(err(rate(two)), e(None, "links[0]", msg));
    let zero = "delay = \"5ms\"\nrate = \"0Mbps\"";
    let msg = "expected a rate > 0 (use a schedule for outages that end)";
    assert_eq!(err(rate(zero)), e(Some(2), "links[0].rate", msg));
    // A step out of order names itself and its line.
    let back = "schedule = [\n[\"0s\", \"1Mbps\"],\n[\"2s\", \"2Mbps\"],\n[\"1s\", \"3Mbps\"]]";
    let (line, path, msg) = err(rate(back));
    assert_eq!(
        (line, path.as_str()),
        (Some(4), "links[0].schedule[2]"),
        "{msg}"
    );
    let late = "schedule = [\n[\"1s\", \"1Mbps\"]]";
    let (line, path, msg) = err(rate(late));
    assert_eq!(
        (line, path.as_str()),
        (Some(2), "links[0].schedule[0]"),
        "{msg}"
    );
    // A trace is read from the scenario's folder.
    let (line, path, msg) = err(rate("trace = \"no-such.trace\""));
    assert_eq!((line, path.as_str()), (Some(1), "links[0].trace"));
    assert!(msg.contains("/data/no-such.trace"), "{msg}");
}

#[test]
fn buffer_limit_is_a_size_above_zero_given_once() {
    let limit = |t: &str| one(t, None).with(buffer_limit);
    let typed = |s| Some(("limit".to_string(), Given::Typed(Value::Size(s))));
    assert_eq!(limit("rate = \"1Mbps\"").unwrap(), None);
    assert_eq!(
        limit("buffer = \"3000B\"").unwrap(),
        typed(units::Size::Bytes(3000))
    );
    assert_eq!(
        limit("buffer = \"100p\"").unwrap(),
        typed(units::Size::Packets(100))
    );
    let msg = "expected a buffer > 0";
    assert_eq!(
        err(limit("qdisc = \"codel\"\nbuffer = \"0p\"")),
        e(Some(2), "links[0].buffer", msg)
    );
    let twice = "qdisc = \"codel\"\nbuffer = \"100p\"\nparams = { limit = \"50p\" }";
    let msg = "the buffer is given twice, as links[0].buffer = \"100p\" and as links[0].params.limit: give one of them";
    assert_eq!(err(limit(twice)), e(Some(2), "links[0].buffer", msg));
    // A --qdisc swap drops the file's params.limit: the buffer alone gives the limit.
    assert_eq!(
        one(twice, Some("pie")).with(buffer_limit).unwrap(),
        typed(units::Size::Packets(100))
    );
}

#[test]
fn red_takes_the_links_first_positive_rate_as_its_bandwidth() {
    let bw = |table: &str, kind: Kind, given: &[&str]| {
        let o = one(table, None);
        let rate = o.with(link_rate).unwrap();
        let mut pairs: Vec<(String, Given)> = given
            .iter()
            .map(|k| (k.to_string(), Given::Typed(Value::Bytes(1))))
            .collect();
        let warning = o.with(|x| red_bandwidth_from_link(x, kind, &mut pairs, &rate));
        (pairs, warning)
    };
    let rate = |r| ("bandwidth".to_string(), Given::Typed(Value::Rate(r)));
    assert_eq!(
        bw("rate = \"10Mbps\"", Kind::Red, &[]),
        (vec![rate(Bitrate::from_mbps(10))], None)
    );
    // Given by the user, or not RED: nothing taken from the link.
    let given = bw("rate = \"10Mbps\"", Kind::Red, &["bandwidth"]);
    assert_eq!((given.0.len(), given.1), (1, None));
    assert_eq!(bw("rate = \"10Mbps\"", Kind::Codel, &[]), (vec![], None));
    // A schedule that starts with an outage: its first positive rate, and a warning naming
    // its other rates, each once.
    let sched = "schedule = [[\"0s\", \"0Mbps\"], [\"1s\", \"5Mbps\"], [\"2s\", \"0Mbps\"], [\"3s\", \"5Mbps\"]]";
    assert_eq!(
            bw(sched, Kind::Red, &[]),
            (
                vec![rate(Bitrate::from_mbps(5))],
                Some("link l: RED's idle-time correction and automatic parameters use bandwidth = 5Mbps (its schedule's first positive rate; it also runs at 0bps); set links[0].params.bandwidth to choose the rate".to_string())
            )
        );
}

#[test]
fn other_rates_says_why_a_rate_is_not_the_links_only_one() {
    let five = Bitrate::from_mbps(5);
    assert_eq!(other_rates(&LinkRate::Constant(five), five), None);
    let st = |v: &[u64]| {
        let s = v.iter().enumerate().map(|(i, m)| {
            (
                SimTime::ZERO + SimDuration::from_secs(i as u64),
                Bitrate::from_mbps(*m),
            )
        });
        LinkRate::Steps(StepSchedule::new(s.collect()).unwrap())
    };
    assert_eq!(other_rates(&st(&[5, 5]), five), None);
    assert_eq!(
        other_rates(&st(&[5, 10, 2, 10]), five).as_deref(),
        Some("its schedule's first positive rate; it also runs at 10Mbps, 2Mbps")
    );
}

#[test]
fn config_error_names_the_key_the_value_came_from() {
    let config = |table: &str, swap| {
        let o = one(&format!("{table}\ndelay = \"1ms\""), swap);
        let rate = LinkRate::Constant(Bitrate::from_mbps(10));
        let err = o.with(|x| discipline(x, &rate, &mut Vec::new()).unwrap_err());
        (err.line, err.path)
    };
    // A parameter the file gave: its key, the params table's line.
    let bad_target = "qdisc = \"codel\"\nparams = { target = \"-1ms\" }";
    assert_eq!(
        config(bad_target, None),
        (Some(2), "links[0].params.target".to_string())
    );
    // The limit the buffer gave: the buffer.
    let bad_buffer = "qdisc = \"fq_codel\"\nbuffer = \"5000000000p\"";
    assert_eq!(
        config(bad_buffer, None),
        (Some(2), "links[0].buffer".to_string())
    );
    // A --qdisc swap: the swap, no line.
    assert_eq!(
        config(bad_buffer, Some("fq_codel")),
        (None, "--qdisc l=fq_codel".to_string())
    );
    // An error about no one key: the params table, its line.
    let o = one("qdisc = \"codel\"\nparams = { target = \"5ms\" }", None);
    let dup = aqmlab_qdisc::ConfigError::Duplicate("target".into());
    let e = o.with(|x| config_error(x, dup));
    assert_eq!((e.line, e.path.as_str()), (Some(2), "links[0].params"));
}

#[test]
fn link_loss_is_a_probability_below_one() {
    let loss = |t: &str| one(t, None).with(link_loss);
    assert_eq!(loss("rate = \"1Mbps\"").unwrap(), 0.0);
    assert_eq!(loss("loss = 0.25").unwrap(), 0.25);
    assert_eq!(loss("loss = 0.0").unwrap(), 0.0);
    let msg = "expected a loss probability in [0, 1), got 1";
    assert_eq!(
        err(loss("rate = \"1Mbps\"\nloss = 1.0")),
        e(Some(2), "links[0].loss", msg)
    );
    let msg = "expected a loss probability in [0, 1), got -0.1";
    assert_eq!(err(loss("loss = -0.1")), e(Some(1), "links[0].loss", msg));
}

#[test]
fn trace_path_is_absolute_from_the_scenarios_folder() {
    let path = |t: &str| one(t, None).with(trace_path);
    assert_eq!(path("rate = \"1Mbps\""), None);
    assert_eq!(
        path("trace = \"traces/a.down\""),
        Some(PathBuf::from("/data/traces/a.down"))
    );
    assert_eq!(
        path("trace = \"/t/b.down\""),
        Some(PathBuf::from("/t/b.down"))
    );
}

/// A direction resolved as `resolve_with_edits` resolves it: its rate ([`link_rate`]), its
/// discipline ([`discipline`]), then the rest ([`direction`]).
fn resolved(x: &DirIn<'_>, warnings: &mut Vec<String>) -> Result<ResolvedDirection, ScenarioError> {
    let rate = link_rate(x)?;
    let disc = discipline(x, &rate, warnings)?;
    direction(x, rate, disc)
}

#[test]
fn direction_gives_its_discipline_the_values_from_the_buffer_link_and_traffic() {
    let table = "rate = \"10Mbps\"\ndelay = \"20ms\"\nbuffer = \"30000B\"\nqdisc = \"fq_codel\"\nparams = { target = \"3ms\" }\nloss = 0.5";
    let o = one(table, None);
    let mut warnings = Vec::new();
    let r = o.with(|x| resolved(x, &mut warnings)).unwrap();
    assert_eq!((r.name.as_str(), r.from, r.to, r.loss), ("l", 0, 1, 0.5));
    assert_eq!(r.delay, SimDuration::from_millis(20));
    // The byte buffer as FQ-CoDel's memory limit, the given target, mtu from the traffic.
    assert_eq!(r.params.value("memory_limit"), Value::Bytes(30000));
    assert_eq!(
        r.params.value("target"),
        Value::Duration(SimDuration::from_millis(3))
    );
    assert_eq!(r.params.value("mtu"), Value::Bytes(540));
    assert!(warnings.is_empty());
    // RED: the link's rate and delay.
    let red = "rate = \"10Mbps\"\ndelay = \"20ms\"\nqdisc = \"red\"";
    let o = one(red, None);
    let r = o.with(|x| resolved(x, &mut warnings)).unwrap();
    assert_eq!(
        r.params.value("bandwidth"),
        Value::Rate(Bitrate::from_mbps(10))
    );
    assert_eq!(
        r.params.value("delay"),
        Value::Duration(SimDuration::from_millis(20))
    );
}

fn with(kind: Kind, given: &[(&str, &str)], largest: u32) -> aqmlab_qdisc::Params {
    let pairs: Vec<(String, String)> = given
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut p = aqmlab_qdisc::Params::new(kind.name(), kind.params(), &pairs).unwrap();
    let parsed = aqmlab_qdisc::texts_parsed();
    mtu_from_traffic(&mut p, largest).unwrap();
    // A typed edit: nothing is parsed again.
    assert_eq!(aqmlab_qdisc::texts_parsed(), parsed);
    p
}

#[test]
fn mtu_auto_is_the_largest_packet_before_the_discipline_is_built() {
    let mtu = |p: &aqmlab_qdisc::Params| (p.raw_value("mtu").to_string(), p.value("mtu"));
    let bytes = |n: u64| Value::Bytes(n);
    // The default "auto": the largest packet, plus Linux's 14-byte Ethernet header.
    assert_eq!(
        mtu(&with(Kind::Codel, &[], 540)),
        ("540B".into(), bytes(540))
    );
    assert_eq!(
        mtu(&with(Kind::FqCodel, &[("variant", "linux")], 540)),
        ("554B".into(), bytes(554))
    );
    assert_eq!(
        mtu(&with(Kind::LstfCodel, &[("mtu", "auto")], 1040)),
        ("1040B".into(), bytes(1040))
    );
    // Left alone: a fixed mtu, a direction no flow crosses, a discipline without the rule.
    assert_eq!(
        mtu(&with(Kind::Codel, &[("mtu", "1500B")], 540)),
        ("1500B".into(), bytes(1500))
    );
    assert_eq!(
        mtu(&with(Kind::Codel, &[], 0)),
        ("auto".into(), Value::Word("auto"))
    );
    assert!(!with(Kind::Pie, &[], 540).has_param("mtu"));
    // The value is one the discipline takes, and the same as had it been given as text.
    let p = with(Kind::Codel, &[], 540);
    let given = aqmlab_qdisc::Params::new(
        "codel",
        Kind::Codel.params(),
        &[("mtu".to_string(), "540B".to_string())],
    )
    .unwrap();
    assert_eq!(
        aqmlab_qdisc::AnyConfig::from_params(&p).unwrap(),
        aqmlab_qdisc::AnyConfig::from_params(&given).unwrap()
    );
    assert_eq!(p.resolved(), given.resolved());
}
/// `(name, key path, (from, to))` of each link direction read, with its delay in ms.
fn dirs(t: &(DirCfgs, Vec<(u32, u32)>)) -> Vec<(String, String, (u32, u32), u64)> {
    let delay = |d: &RawDirection| d.delay.as_ref().unwrap().get().as_nanos() / 1_000_000;
    t.0.iter()
        .zip(&t.1)
        .map(|((n, d, p), e)| (n.clone(), p.clone(), *e, delay(d)))
        .collect()
}

/// [`dumbbell_hosts`] of the `[dumbbell]` table `table` (its spans in `table`), given with
/// nodes or links when `links_too`.
fn hosts(table: &str, links_too: bool) -> Result<Topology, (Option<usize>, String, String)> {
    let d: RawDumbbell = toml::from_str(table).unwrap();
    let cx = ctx(table);
    let h = Hosts {
        cx: &cx,
        links_too,
        senders: &d.senders,
        delays: [&d.sender_delay, &d.receiver_delay],
        access: (&d.access_rate, &d.access_buffer),
    };
    dumbbell_hosts(&h).map_err(|e| (e.line, e.path, e.msg))
}

const DUMBBELL: &str = "access_rate = \"1Gbps\"\naccess_buffer = \"50p\"\nbottleneck = { delay = \"9ms\", params = { target = \"5ms\" } }\n";

#[test]
fn dumbbell_hosts_are_one_to_a_thousand_senders_with_their_access_links() {
    let table = format!(
        "{DUMBBELL}senders = 2\nsender_delay = \"1ms\"\nreceiver_delay = [\"2ms\", \"3ms\"]"
    );
    let (nodes, dir_cfgs, ends) = hosts(&table, false).unwrap();
    assert_eq!(nodes, ["s1", "s2", "gw1", "gw2", "r1", "r2"]);
    let s = |n: &str, p: &str, e: (u32, u32), ms: u64| (n.to_string(), p.to_string(), e, ms);
    let (sd, rd) = ("dumbbell.sender_delay", "dumbbell.receiver_delay");
    assert_eq!(
        dirs(&(dir_cfgs.clone(), ends)),
        vec![
            s("s1.access", &format!("{sd}[0]"), (0, 2), 1),
            s("s1.access.rev", &format!("{sd}[0]"), (2, 0), 1),
            s("r1.access", &format!("{rd}[0]"), (3, 4), 2),
            s("r1.access.rev", &format!("{rd}[0]"), (4, 3), 2),
            s("s2.access", &format!("{sd}[1]"), (1, 2), 1),
            s("s2.access.rev", &format!("{sd}[1]"), (2, 1), 1),
            s("r2.access", &format!("{rd}[1]"), (3, 5), 3),
            s("r2.access.rev", &format!("{rd}[1]"), (5, 3), 3),
        ]
    );
    // The access rate and buffer; nothing of the bottleneck's.
    let (_, a, _) = &dir_cfgs[0];
    assert_eq!(a.rate.as_ref().unwrap().get().as_bps(), 1_000_000_000);
    assert_eq!(*a.buffer.as_ref().unwrap().get(), units::Size::Packets(50));
    assert!(a.params.is_none() && a.qdisc.is_none());
    assert_eq!(
        hosts(
            &table
                .replace("2\n", "1000\n")
                .replace("[\"2ms\", \"3ms\"]", "\"1ms\""),
            false
        )
        .unwrap()
        .0
        .len(),
        2002
    );
}

#[test]
fn dumbbell_hosts_refuse_other_topologies_then_bad_counts_then_bad_delays() {
    let at = |senders: &str, rd: &str, links_too| {
        let table =
            format!("{DUMBBELL}senders = {senders}\nsender_delay = \"1ms\"\nreceiver_delay = {rd}");
        hosts(&table, links_too).map(|_| ())
    };
    let both = "give either [dumbbell] or nodes + [[links]], not both";
    assert_eq!(at("0", "[\"1ms\"]", true), Err(e(None, "dumbbell", both)));
    let msg = "expected 1 to 1000 senders, got 0";
    assert_eq!(
        at("0", "[\"1ms\"]", false),
        Err(e(Some(4), "dumbbell.senders", msg))
    );
    let msg = "expected 1 to 1000 senders, got 1001";
    assert_eq!(
        at("1001", "\"1ms\"", false),
        Err(e(Some(4), "dumbbell.senders", msg))
    );
    let msg = "expected one delay or a list of 2 (one per sender), got 3 values";
    assert_eq!(
        at("2", "[\"1ms\", \"1ms\", \"1ms\"]", false),
        Err(e(Some(6), "dumbbell.receiver_delay", msg))
    );
}

#[test]
fn host_nodes_are_the_senders_the_gateways_and_the_receivers() {
    assert_eq!(host_nodes(1), ["s1", "gw1", "gw2", "r1"]);
    assert_eq!(
        host_nodes(3),
        ["s1", "s2", "s3", "gw1", "gw2", "r1", "r2", "r3"]
    );
}

#[test]
fn check_nodes_wants_one_to_4000_names_each_once() {
    let check = |names: &[&str]| {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let cx = ctx("nodes = []\n");
        check_nodes(&cx, &names, Some(0..10)).map_err(|e| (e.line, e.path, e.msg))
    };
    assert_eq!(check(&["a", "b"]), Ok(()));
    let msg = "no topology: expected a [dumbbell] table, or nodes = [...] and [[links]]";
    assert_eq!(check(&[]), Err(e(None, "", msg)));
    let many: Vec<String> = (0..4001).map(|i| format!("n{i}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let msg = "expected at most 4000 nodes, got 4001";
    assert_eq!(check(&many), Err(e(Some(1), "nodes", msg)));
    assert_eq!(check(&many[..4000]), Ok(()));
    let msg =
        "expected a node name that is not empty or blank and has no control characters, got \" \"";
    assert_eq!(check(&["a", " "]), Err(e(Some(1), "nodes[1]", msg)));
    let msg = "expected a node name that is not empty or blank and has no control characters, got \"a\\nb\"";
    assert_eq!(check(&["a\nb"]), Err(e(Some(1), "nodes[0]", msg)));
    let msg = "node \"a\" is listed twice";
    assert_eq!(check(&["a", "b", "a"]), Err(e(Some(1), "nodes[2]", msg)));
}

#[test]
fn link_ends_are_two_named_nodes_and_a_new_name() {
    let names: Vec<String> = ["a", "b", "c"].iter().map(|n| n.to_string()).collect();
    let lookup = NodeLookup::new(&names);
    let before: DirCfgs = vec![("x".into(), RawDirection::default(), "links[0]".into())];
    let ends = |table: &str| {
        let l: RawDirection = toml::from_str(table).unwrap();
        let cx = ctx(table);
        let keys = [&l.from, &l.to, &l.name];
        link_ends(&LinkIn::new(&cx, &lookup, "links[1]", keys, &before))
            .map_err(|e| (e.line, e.path, e.msg))
    };
    let link = |from: &str, to: &str, name: &str| {
        format!("from = \"{from}\"\nto = \"{to}\"\nname = \"{name}\"")
    };
    assert_eq!(ends(&link("c", "a", "ca")), Ok((2, 0, "ca".to_string())));
    // The keys' errors in order: from, to, name given; the nodes; the name.
    let need = |k: &str| format!("a link needs {k} = ...");
    assert_eq!(ends(""), Err(e(None, "links[1].from", &need("from"))));
    assert_eq!(
        ends("from = \"z\""),
        Err(e(None, "links[1].to", &need("to")))
    );
    assert_eq!(
        ends("from = \"z\"\nto = \"z\""),
        Err(e(None, "links[1].name", &need("name")))
    );
    let msg = "expected one of the nodes (a, b, c), got \"z\"";
    assert_eq!(
        ends(&link("z", "z", "x")),
        Err(e(Some(1), "links[1].from", msg))
    );
    assert_eq!(
        ends(&link("a", "z", "x")),
        Err(e(Some(2), "links[1].to", msg))
    );
    let msg = "a link must join two different nodes";
    assert_eq!(
        ends(&link("b", "b", "x")),
        Err(e(Some(2), "links[1].to", msg))
    );
    let msg =
        "a link name must be non-empty and not end in .rev (NAME.rev names its reverse direction)";
    assert_eq!(
        ends(&link("a", "b", "ab.rev")),
        Err(e(Some(3), "links[1].name", msg))
    );
    assert_eq!(
        ends(&link("a", "b", "")),
        Err(e(Some(3), "links[1].name", msg))
    );
    let msg = "link name \"x\" is used twice";
    assert_eq!(
        ends(&link("a", "b", "x")),
        Err(e(Some(3), "links[1].name", msg))
    );
}

#[test]
fn read_topology_takes_each_links_settings_as_the_file_gives_them() {
    let read = |text: &str| {
        let raw: RawScenario = toml::from_str(text).unwrap();
        let cx = ctx(text);
        read_topology(&cx, &raw).map_err(|e| (e.line, e.path, e.msg))
    };
    let params = |d: &RawDirection| d.params.as_ref().map(|p| p.get_ref().to_string());
    let target = Some("target = \"5ms\"\n".to_string());
    let text = format!("duration = \"1s\"\n[dumbbell]\nsenders = 1\nsender_delay = \"1ms\"\nreceiver_delay = \"1ms\"\n{DUMBBELL}");
    let (nodes, dir_cfgs, ends) = read(&text).unwrap();
    assert_eq!(nodes, ["s1", "gw1", "gw2", "r1"]);
    let (name, b, path) = &dir_cfgs[4];
    assert_eq!(
        (name.as_str(), path.as_str()),
        ("bottleneck", "dumbbell.bottleneck")
    );
    assert_eq!((params(b), ends[4]), (target.clone(), (1, 2)));
    let (name, rev, path) = &dir_cfgs[5];
    assert_eq!(
        (name.as_str(), path.as_str()),
        ("bottleneck.rev", "dumbbell.bottleneck.reverse")
    );
    assert_eq!((params(rev), ends[5]), (target.clone(), (2, 1)));
    // Links: each link's direction and its reverse, in order.
    let text = "duration = \"1s\"\nnodes = [\"a\", \"b\"]\n[[links]]\nname = \"l\"\nfrom = \"a\"\nto = \"b\"\ndelay = \"1ms\"\nparams = { target = \"5ms\" }\nreverse = { qdisc = \"pie\" }";
    let (nodes, dir_cfgs, ends) = read(text).unwrap();
    assert_eq!(nodes, ["a", "b"]);
    let names: Vec<(&str, &str)> = dir_cfgs
        .iter()
        .map(|(n, _, p)| (n.as_str(), p.as_str()))
        .collect();
    assert_eq!(names, [("l", "links[0]"), ("l.rev", "links[0].reverse")]);
    assert_eq!(ends, [(0, 1), (1, 0)]);
    // A new discipline on the reverse starts from its own defaults.
    assert_eq!(
        (params(&dir_cfgs[0].1), params(&dir_cfgs[1].1)),
        (target, None)
    );
    // The topology's errors: a dumbbell alone, then its keys; the nodes, then each link's.
    let both = format!("{text}\n[dumbbell]\nsenders = 1\nsender_delay = \"1ms\"\nreceiver_delay = \"1ms\"\n{DUMBBELL}");
    let msg = "give either [dumbbell] or nodes + [[links]], not both";
    assert_eq!(read(&both).map(|_| ()), Err(e(None, "dumbbell", msg)));
    let msg = "a link needs a delay, like delay = \"10ms\"";
    assert_eq!(
        read(&text.replace("delay = \"1ms\"\n", "")).map(|_| ()),
        Err(e(None, "links[0].delay", msg))
    );
    let msg = "node \"a\" is listed twice";
    assert_eq!(
        read(
            &text
                .replace("\"a\", \"b\"", "\"a\", \"a\"")
                .replace("delay = \"1ms\"\n", "")
        )
        .map(|_| ()),
        Err(e(Some(2), "nodes[1]", msg))
    );
}

/// `check_link_keys` on the direction table `table` at `links[0]` (a `[[links]]` entry
/// when `is_link`, else a table whose ends are implied, like a dumbbell's bottleneck).
fn link_keys(table: &str, is_link: bool) -> Result<(), ScenarioError> {
    let d: RawDirection = toml::from_str(table).unwrap();
    check_link_keys(&ctx(table), &d, "links[0]", is_link)
}

#[test]
fn check_link_keys_wants_a_delay_and_no_endpoints_where_implied() {
    let ends = "name = \"l\"\nfrom = \"a\"\nto = \"b\"\ndelay = \"5ms\"";
    link_keys(ends, true).unwrap();
    // Where the ends are implied, the first of name, from, to is refused, with its line.
    let msg = "name is implied here: remove it";
    assert_eq!(
        err(link_keys(ends, false)),
        e(Some(1), "links[0].name", msg)
    );
    let from = "delay = \"5ms\"\nfrom = \"a\"";
    let msg = "from is implied here: remove it";
    assert_eq!(
        err(link_keys(from, false)),
        e(Some(2), "links[0].from", msg)
    );
    link_keys("delay = \"5ms\"", false).unwrap();
    let msg = "a link needs a delay, like delay = \"10ms\"";
    assert_eq!(
        err(link_keys("rate = \"1Mbps\"", true)),
        e(None, "links[0].delay", msg)
    );
    // A reverse direction inherits the delay, never names its ends, has no reverse.
    link_keys("delay = \"5ms\"\nreverse = { rate = \"1Mbps\" }", true).unwrap();
    let rev_to = "delay = \"5ms\"\n[reverse]\nto = \"a\"";
    let msg = "to is implied by the link: remove it";
    assert_eq!(
        err(link_keys(rev_to, true)),
        e(Some(3), "links[0].reverse.to", msg)
    );
    let rev_rev =
        "delay = \"5ms\"\n[reverse]\nrate = \"1Mbps\"\n[reverse.reverse]\nrate = \"2Mbps\"";
    let msg = "a reverse direction has no reverse of its own";
    assert_eq!(
        err(link_keys(rev_rev, true)),
        e(None, "links[0].reverse.reverse", msg)
    );
}

#[test]
fn refuse_endpoints_names_the_first_of_name_from_to() {
    let refuse = |table: &str| {
        let d: RawDirection = toml::from_str(table).unwrap();
        refuse_endpoints(&ctx(table), &d, "p", "why")
    };
    refuse("delay = \"5ms\"\nrate = \"1Mbps\"").unwrap();
    assert_eq!(
        err(refuse("to = \"b\"\nfrom = \"a\"")),
        e(Some(2), "p.from", "from is why: remove it")
    );
    assert_eq!(
        err(refuse("to = \"b\"\nname = \"n\"")),
        e(Some(2), "p.name", "name is why: remove it")
    );
    assert_eq!(
        err(refuse("rate = \"1Mbps\"\nto = \"b\"")),
        e(Some(2), "p.to", "to is why: remove it")
    );
}

#[test]
fn largest_per_link_is_the_largest_crossing_or_0() {
    let c = |link, size| Crossing {
        flow: 0,
        link,
        size,
        what: "x".into(),
    };
    let crossings = [c(0, 540), c(2, 40), c(0, 1540), c(2, 1500), c(0, 60)];
    assert_eq!(largest_per_link(&crossings, 4), [1540, 0, 1500, 0]);
    assert_eq!(largest_per_link(&[], 2), [0, 0]);
}

/// The reverse direction's settings: the forward's, each replaced where the reverse gives it;
/// a rate of any form (rate, schedule, trace) replaces the forward's whole, and a discipline of
/// its own starts from its own parameters.
#[test]
fn merge_takes_the_reverses_settings_over_the_forwards() {
    let fwd: RawDirection = toml::from_str(
        "name = \"l\"\nfrom = \"a\"\nto = \"b\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
         qdisc = \"codel\"\nbuffer = \"100p\"\nloss = 0.01\njitter = \"1ms\"\n\
         params = { target = \"7ms\" }\n",
    )
    .unwrap();
    let text = |v: &Option<Time>| v.as_ref().map(|t| t.text().to_string());
    let rate = |v: &Option<Rate>| v.as_ref().map(|r| r.text().to_string());
    let qdisc = |d: &RawDirection| d.qdisc.as_ref().map(|q| q.get_ref().clone());
    let target = |d: &RawDirection| {
        d.params
            .as_ref()
            .map(|p| p.get_ref()["target"].as_str().unwrap().to_string())
    };
    // No reverse table: the forward's settings as they are.
    let same = merge(&fwd, None);
    assert_eq!(same.name.as_ref().map(|n| n.get_ref().as_str()), Some("l"));
    // A reverse table: never a name or ends of its own; the rest inherited unless given.
    let over: RawDirection = toml::from_str("delay = \"9ms\"\n").unwrap();
    let m = merge(&fwd, Some(&over));
    assert!(m.name.is_none() && m.from.is_none() && m.to.is_none());
    assert_eq!(text(&m.delay).as_deref(), Some("9ms"));
    assert_eq!(rate(&m.rate).as_deref(), Some("10Mbps"));
    assert_eq!(qdisc(&m).as_deref(), Some("codel"));
    assert_eq!(target(&m).as_deref(), Some("7ms"));
    assert_eq!(m.loss.as_ref().map(|l| *l.get_ref()), Some(0.01));
    assert!(m.buffer.is_some() && m.jitter.is_some());
    // A schedule replaces the forward's rate.
    let over: RawDirection = toml::from_str("schedule = [[\"0s\", \"1Mbps\"]]\n").unwrap();
    let m = merge(&fwd, Some(&over));
    assert_eq!(rate(&m.rate), None);
    assert_eq!(m.schedule.as_ref().map(Vec::len), Some(1));
    // Its own discipline: none of the forward's parameters.
    let over: RawDirection = toml::from_str("qdisc = \"pie\"\n").unwrap();
    let m = merge(&fwd, Some(&over));
    assert_eq!((qdisc(&m).as_deref(), target(&m)), (Some("pie"), None));
    // Its own parameters for the same discipline replace the forward's table.
    let over: RawDirection = toml::from_str("params = { target = \"3ms\" }\n").unwrap();
    let m = merge(&fwd, Some(&over));
    assert_eq!(
        (qdisc(&m).as_deref(), target(&m).as_deref()),
        (Some("codel"), Some("3ms"))
    );
}

#[test]
fn a_byte_limit_of_an_fq_scheduler_is_its_memory_limit() {
    use aqmlab_qdisc::Value;
    let bytes = |n| Value::Size(units::Size::Bytes(n));
    let mut typed = vec![("limit".to_string(), Given::Typed(bytes(30_000)))];
    fq_byte_limit(&mut typed);
    assert_eq!(
        typed,
        [(
            "memory_limit".to_string(),
            Given::Typed(Value::Bytes(30_000))
        )]
    );
    let mut read = vec![
        ("target".to_string(), Given::Text("5ms".into())),
        (
            "limit".to_string(),
            Given::Read("30kB".into(), Ok(bytes(30_000))),
        ),
    ];
    fq_byte_limit(&mut read);
    assert_eq!(
        read[1],
        (
            "memory_limit".to_string(),
            Given::Read("30kB".into(), Ok(Value::Bytes(30_000)))
        )
    );
    assert_eq!(read[0], ("target".to_string(), Given::Text("5ms".into())));
    // A limit in packets, or one that did not read, stays the limit.
    let packets = vec![(
        "limit".to_string(),
        Given::Typed(Value::Size(units::Size::Packets(100))),
    )];
    let mut p = packets.clone();
    fq_byte_limit(&mut p);
    assert_eq!(p, packets);
    let mut t = vec![("limit".to_string(), Given::Text("lots".into()))];
    fq_byte_limit(&mut t);
    assert_eq!(t, [("limit".to_string(), Given::Text("lots".into()))]);
}

#[test]
fn red_takes_the_links_delay_unless_given_one() {
    let ms = SimDuration::from_millis;
    let mut pairs = vec![("w_q".to_string(), Given::Text("auto".into()))];
    assert!(red_delay_from_link(Kind::Red, &mut pairs, ms(5)));
    assert_eq!(
        pairs[1],
        (
            "delay".to_string(),
            Given::Typed(aqmlab_qdisc::Value::Duration(ms(5)))
        )
    );
    let given = vec![("delay".to_string(), Given::Text("20ms".into()))];
    let mut p = given.clone();
    assert!(!red_delay_from_link(Kind::Red, &mut p, ms(5)));
    assert_eq!(p, given);
    let mut p = Vec::new();
    assert!(!red_delay_from_link(Kind::Codel, &mut p, ms(5)));
    assert!(p.is_empty());
}

#[test]
fn red_warns_of_the_delay_it_takes_only_with_a_jitter_and_an_automatic_w_q() {
    let red = |pairs: &[(&str, &str)]| {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        aqmlab_qdisc::Params::new("red", Kind::Red.params(), &pairs).unwrap()
    };
    let warned = |p: &aqmlab_qdisc::Params, jitter: Option<&str>| {
        let mut w = Vec::new();
        warn_red_delay_without_jitter(
            p,
            SimDuration::from_millis(5),
            jitter,
            "l",
            "links[0]",
            &mut w,
        );
        w
    };
    let auto = red(&[]);
    assert_eq!(
        warned(&auto, Some("uniform(0ms, 1ms)")),
        [
            "link l: RED's automatic w_q uses delay = 5ms (the link's delay without its jitter \
          \"uniform(0ms, 1ms)\"); set links[0].params.delay to choose the delay"
        ]
    );
    assert!(warned(&auto, None).is_empty());
    assert!(warned(&red(&[("w_q", "0.002")]), Some("1ms")).is_empty());
    assert!(warned(&red(&[("adaptive", "true")]), Some("1ms")).is_empty());
}

#[test]
fn reds_idle_rate_is_the_first_positive_rate_of_a_schedule() {
    let mbps = |n: u64| Bitrate::from_bps(n * 1_000_000);
    let s = |steps: Vec<(u64, Bitrate)>| {
        LinkRate::Steps(
            StepSchedule::new(
                steps
                    .into_iter()
                    .map(|(t, r)| (SimTime::from_secs(t), r))
                    .collect(),
            )
            .unwrap(),
        )
    };
    assert_eq!(first_positive_rate(&LinkRate::Constant(mbps(10))), mbps(10));
    assert_eq!(
        first_positive_rate(&s(vec![(0, mbps(3)), (1, mbps(7))])),
        mbps(3)
    );
    // An outage first: the rate after it.
    let outage = s(vec![(0, mbps(0)), (1, mbps(0)), (2, mbps(7)), (3, mbps(9))]);
    assert_eq!(first_positive_rate(&outage), mbps(7));
}

#[test]
fn a_schedules_error_names_the_step_at_fault() {
    let sched = |steps: &str| {
        let o = one(&format!("schedule = [\n{steps}]\n"), None);
        let s = o.d.schedule.clone().unwrap();
        o.with(|x| schedule_rate(x, &s))
    };
    let ok = sched("[\"0s\", \"0bps\"],\n[\"1s\", \"2Mbps\"],\n").unwrap();
    let LinkRate::Steps(st) = ok else {
        panic!("a schedule")
    };
    assert_eq!(
        st.steps(),
        [
            (SimTime::ZERO, Bitrate::from_bps(0)),
            (SimTime::from_secs(1), Bitrate::from_bps(2_000_000))
        ]
    );
    assert_eq!(
        err(sched("[\"0s\", \"1Mbps\"],\n[\"0s\", \"2Mbps\"],\n")),
        e(
            Some(3),
            "links[0].schedule[1]",
            "step times must increase: 0.000000000s comes after 0.000000000s"
        )
    );
    assert_eq!(
        err(sched("[\"1s\", \"1Mbps\"],\n")),
        e(
            Some(2),
            "links[0].schedule[0]",
            "the first step must start at 0s, got 1.000000000s"
        )
    );
    assert_eq!(
        err(sched("")),
        e(
            None,
            "links[0].schedule",
            "expected at least one [time, rate] step"
        )
    );
}

#[test]
fn a_trace_is_read_from_the_scenarios_folder_as_utf8_text() {
    let dir = std::env::temp_dir().join(format!("aqmlab-trace-rate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ok.trace"), "1\n2\n").unwrap();
    std::fs::write(dir.join("bin.trace"), [0xff, 0xfe, b'\n']).unwrap();
    let o = one("trace = \"ok.trace\"\n", None);
    let rate = |name: &str| {
        let text = format!("trace = {name:?}\n");
        let d: RawDirection = toml::from_str(&text).unwrap();
        let cx = Ctx {
            file: "t.toml".into(),
            text: &text,
            dir: dir.clone(),
        };
        let x = DirIn {
            cx: &cx,
            name: "l",
            d: &d,
            path: "links[0]",
            ends: (0, 1),
            dp: &o.dp,
            largest_packet: 540,
        };
        trace_rate(&x, d.trace.as_ref().unwrap())
    };
    assert!(matches!(rate("ok.trace"), Ok(LinkRate::Trace { .. })));
    let bin = dir.join("bin.trace");
    assert_eq!(
        err(rate("bin.trace")),
        e(
            Some(1),
            "links[0].trace",
            &format!(
                "{}: not UTF-8 text: expected a delivery trace (one millisecond per line)",
                bin.display()
            )
        )
    );
    let (line, path, msg) = err(rate("none.trace"));
    assert_eq!((line, path.as_str()), (Some(1), "links[0].trace"));
    assert!(
        msg.contains(&dir.join("none.trace").display().to_string()),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The hosts of the `[dumbbell]` table `table` (its spans in `table`), and `f` on them.
fn with_hosts<T>(table: &str, f: impl FnOnce(&Hosts<'_>) -> T) -> T {
    let d: RawDumbbell = toml::from_str(table).unwrap();
    let cx = ctx(table);
    let h = Hosts {
        cx: &cx,
        links_too: false,
        senders: &d.senders,
        delays: [&d.sender_delay, &d.receiver_delay],
        access: (&d.access_rate, &d.access_buffer),
    };
    f(&h)
}

const HOSTS: &str = "senders = 2\naccess_rate = \"100Mbps\"\nsender_delay = [\"1ms\", \"2ms\"]\n\
                     receiver_delay = \"3ms\"\naccess_buffer = \"50p\"\n\
                     bottleneck = { rate = \"10Mbps\", delay = \"5ms\" }\n";

#[test]
fn a_dumbbells_host_delays_are_one_for_all_or_one_per_host() {
    let texts = |v: Vec<Time>| v.iter().map(|t| t.text().to_string()).collect::<Vec<_>>();
    with_hosts(HOSTS, |h| {
        let sd = host_delays(h, h.delays[0], "sender_delay").unwrap();
        assert_eq!(texts(sd), ["1ms", "2ms"]);
        let rd = host_delays(h, h.delays[1], "receiver_delay").unwrap();
        assert_eq!(texts(rd), ["3ms", "3ms"]);
    });
    let three = HOSTS.replace("[\"1ms\", \"2ms\"]", "[\"1ms\", \"2ms\", \"3ms\"]");
    with_hosts(&three, |h| {
        assert_eq!(
            err(host_delays(h, h.delays[0], "sender_delay")),
            e(
                Some(3),
                "dumbbell.sender_delay",
                "expected one delay or a list of 2 (one per sender), got 3 values"
            )
        );
    });
}

#[test]
fn a_dumbbells_access_links_are_each_hosts_two_directions_in_turn() {
    with_hosts(HOSTS, |h| {
        let sd = host_delays(h, h.delays[0], "sender_delay").unwrap();
        let rd = host_delays(h, h.delays[1], "receiver_delay").unwrap();
        let (dirs, ends) = access_dirs(h, &sd, &rd);
        let named: Vec<(&str, &str, String)> = dirs
            .iter()
            .map(|(n, d, p)| {
                (
                    n.as_str(),
                    p.as_str(),
                    d.delay.as_ref().unwrap().text().to_string(),
                )
            })
            .collect();
        let want = [
            ("s1.access", "dumbbell.sender_delay[0]", "1ms"),
            ("s1.access.rev", "dumbbell.sender_delay[0]", "1ms"),
            ("r1.access", "dumbbell.receiver_delay[0]", "3ms"),
            ("r1.access.rev", "dumbbell.receiver_delay[0]", "3ms"),
            ("s2.access", "dumbbell.sender_delay[1]", "2ms"),
            ("s2.access.rev", "dumbbell.sender_delay[1]", "2ms"),
            ("r2.access", "dumbbell.receiver_delay[1]", "3ms"),
            ("r2.access.rev", "dumbbell.receiver_delay[1]", "3ms"),
        ];
        let want: Vec<(&str, &str, String)> = want
            .iter()
            .map(|(n, p, d)| (*n, *p, d.to_string()))
            .collect();
        assert_eq!(named, want);
        // Nodes s1 s2 gw1 gw2 r1 r2: 0 1 2 3 4 5.
        assert_eq!(
            ends,
            [
                (0, 2),
                (2, 0),
                (3, 4),
                (4, 3),
                (1, 2),
                (2, 1),
                (3, 5),
                (5, 3)
            ]
        );
        // Each with the access rate and buffer.
        assert!(dirs
            .iter()
            .all(|(_, d, _)| d.rate.as_ref().unwrap().text() == "100Mbps"
                && d.buffer.as_ref().unwrap().text() == "50p"));
    });
}

#[test]
fn a_byte_limit_given_as_a_parameter_names_the_key_it_was_given_at() {
    let limit = |table: &str, kind: Kind, typed: &[(&str, &str)], swap: Option<&str>| {
        let d: RawDirection = toml::from_str(table).unwrap();
        let pairs: Vec<(String, String)> = typed
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let typed = aqmlab_qdisc::Params::new(kind.name(), kind.params(), &pairs).unwrap();
        let ov = Overrides {
            qdisc: swap
                .map(|k| ("l".to_string(), k.to_string()))
                .into_iter()
                .collect(),
            ..Overrides::default()
        };
        params_byte_limit("l", &d, "links[0]", &ov, &typed).map(|(n, _, k)| (n, k))
    };
    let codel = "qdisc = \"codel\"\nparams = { limit = \"30000B\" }\n";
    assert_eq!(
        limit(codel, Kind::Codel, &[("limit", "30000B")], None),
        Some((30_000, "links[0].params.limit".to_string()))
    );
    // In packets: no byte limit; dropped by a swap: none either.
    assert_eq!(
        limit(
            "qdisc = \"codel\"\nparams = { limit = \"100p\" }\n",
            Kind::Codel,
            &[("limit", "100p")],
            None
        ),
        None
    );
    assert_eq!(
        limit(codel, Kind::Codel, &[("limit", "30000B")], Some("pie")),
        None
    );
    // FQ-CoDel: a byte limit is its memory limit, named where the file gave it.
    let fq = "qdisc = \"fq_codel\"\nparams = { limit = \"30000B\" }\n";
    assert_eq!(
        limit(fq, Kind::FqCodel, &[("memory_limit", "30000B")], None),
        Some((30_000, "links[0].params.limit".to_string()))
    );
    let fq = "qdisc = \"fq_codel\"\nparams = { memory_limit = \"2000B\" }\n";
    assert_eq!(
        limit(fq, Kind::FqCodel, &[("memory_limit", "2000B")], None),
        Some((2_000, "links[0].params.memory_limit".to_string()))
    );
    // A discipline's default memory limit is not the file's.
    assert_eq!(
        limit("qdisc = \"fq_codel\"\n", Kind::FqCodel, &[], None),
        None
    );
}
