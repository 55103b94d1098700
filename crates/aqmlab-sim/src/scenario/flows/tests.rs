use super::*;

type Err = (Option<usize>, String, String);

/// The step `step` on flow `flows[1]` (index 1) read from the flow table `table` (its spans
/// in `table`).
fn on<T>(
    table: &str,
    step: impl FnOnce(&FlowAt<'_>) -> Result<T, ScenarioError>,
) -> Result<T, Err> {
    let f: RawFlow = toml::from_str(table).unwrap();
    let cx = Ctx {
        file: "t.toml".into(),
        text: table,
        dir: PathBuf::new(),
    };
    step(&FlowAt {
        cx: &cx,
        f: &f,
        p: "flows[1]",
        i: 1,
    })
    .map_err(|e| (e.line, e.path, e.msg))
}

fn e<T>(line: usize, path: &str, msg: &str) -> Result<T, Err> {
    Err((Some(line), path.to_string(), msg.to_string()))
}

const UDP: &str = "kind = \"udp\"\nfrom = \"a\"\nto = \"b\"\n";

fn times(keys: &str) -> Result<(SimTime, Option<SimTime>, bool), Err> {
    let ten_s = (SimDuration::from_secs(10), 1);
    on(&format!("{UDP}{keys}"), |x| {
        flow_times(x, None, (0, 1), ten_s)
    })
    .map(|c| (c.start, c.stop, c.start_random))
}

#[test]
fn flow_name_is_numbered_when_stamped_and_unique() {
    let mut names = Default::default();
    let table = format!("{UDP}name = \"v\"");
    assert_eq!(
        on(&table, |x| flow_name(x, None, &mut names)),
        Ok(Some("v".to_string()))
    );
    assert_eq!(
        on(&table, |x| flow_name(x, Some(2), &mut names)),
        Ok(Some("v-3".to_string()))
    );
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        vec![("v".to_string(), 1), ("v-3".to_string(), 1)]
    );
    let mut names = [("v".to_string(), 0)].into_iter().collect();
    let msg = "flows[0] is named \"v\" already: expected a unique name";
    assert_eq!(
        on(&table, |x| flow_name(x, None, &mut names)),
        e(4, "flows[1].name", msg)
    );
    let msg = "expected a non-empty name without control characters";
    let empty = format!("{UDP}name = \"\"");
    assert_eq!(
        on(&empty, |x| flow_name(x, None, &mut names)),
        e(4, "flows[1].name", msg)
    );
    assert_eq!(on(UDP, |x| flow_name(x, None, &mut names)), Ok(None));
}

#[test]
fn flow_times_start_before_the_end_and_stop_after_the_start() {
    let at = |ms| SimTime::ZERO + SimDuration::from_millis(ms);
    assert_eq!(times(""), Ok((at(0), None, false)));
    assert_eq!(
        times("start = \"2s\"\nstop = \"3s\""),
        Ok((at(2000), Some(at(3000)), false))
    );
    let msg =
        "expected a start before the end of the run (10s), got \"10s\": this flow would never run";
    assert_eq!(times("start = \"10s\""), e(4, "flows[1].start", msg));
    let msg = "expected a stop after the start (2s), got \"2s\": this flow would never run";
    assert_eq!(
        times("start = \"2s\"\nstop = \"2s\""),
        e(5, "flows[1].stop", msg)
    );
    // A random start is a draw: neither is checked, and the flag says so.
    let (start, _, random) = times("start = \"uniform(0s, 20s)\"\nstop = \"1s\"").unwrap();
    assert!(random && start < at(20_000));
}

#[test]
fn udp_flow_needs_a_rate_and_takes_its_own_keys() {
    let udp = |keys: &str| {
        on(&format!("{UDP}{keys}"), |x| {
            let c = flow_times(x, None, (0, 1), (SimDuration::from_secs(10), 1))?;
            udp_flow(x, c)
        })
        .map(|(p, random)| match p.spec {
            Planned::Udp(u) => (u.rate.as_bps(), u.size, u.ecn, random),
            Planned::Tcp(_) => panic!("a tcp flow"),
        })
    };
    assert_eq!(
        udp("rate = \"1Mbps\""),
        Ok((1_000_000, 1500, Ecn::NotEct, false))
    );
    assert_eq!(
        udp("rate = \"1Mbps\"\nsize = 200\necn_codepoint = \"ect1\""),
        Ok((1_000_000, 200, Ecn::Ect1, false))
    );
    assert_eq!(
        udp(""),
        e(
            1,
            "flows[1].rate",
            "a udp flow needs a rate, like rate = \"64kbps\""
        )
    );
    assert_eq!(
        udp("rate = \"0bps\""),
        e(4, "flows[1].rate", "expected a rate > 0")
    );
    let msg = "expected a packet size in bytes between 20 and 65535, got 19";
    assert_eq!(
        udp("rate = \"1Mbps\"\nsize = 19"),
        e(5, "flows[1].size", msg)
    );
    let msg = "expected not_ect, ect0, ect1 or ce, got \"x\"";
    assert_eq!(
        udp("rate = \"1Mbps\"\necn_codepoint = \"x\""),
        e(5, "flows[1].ecn_codepoint", msg)
    );
    let msg = "cc belongs to tcp flows; this flow has kind = \"udp\"";
    assert_eq!(
        udp("rate = \"1Mbps\"\ncc = \"reno\""),
        e(1, "flows[1].cc", msg)
    );
}

#[test]
fn tcp_flow_refuses_udp_keys_and_checks_syn_retries() {
    let tcp = |keys: &str| {
        let table = format!("kind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\n{keys}");
        on(&table, |x| {
            let c = flow_times(x, None, (0, 1), (SimDuration::from_secs(10), 1))?;
            tcp_flow(x, c)
        })
        .map(|(p, random)| match p.spec {
            Planned::Tcp(t) => (t.syn_retries, random),
            Planned::Udp(_) => panic!("a udp flow"),
        })
    };
    assert_eq!(tcp(""), Ok((None, false)));
    assert_eq!(
        tcp("handshake = true\nsyn_retries = 3"),
        Ok((Some(3), false))
    );
    let msg = "expected a number of SYN retransmissions from 0 to 127, got 128";
    assert_eq!(
        tcp("handshake = true\nsyn_retries = 128"),
        e(5, "flows[1].syn_retries", msg)
    );
    let (line, path, _) = tcp("handshake = false\nsyn_retries = 3").unwrap_err();
    assert_eq!((line, path.as_str()), (Some(5), "flows[1].syn_retries"));
    let (line, path, _) = tcp("ecn_codepoint = \"ect0\"").unwrap_err();
    assert_eq!((line, path.as_str()), (Some(4), "flows[1].ecn_codepoint"));
    let (line, path, msg) = tcp("stop = \"5s\"").unwrap_err();
    assert_eq!((line, path.as_str()), (Some(4), "flows[1].stop"));
    assert!(msg.starts_with("stop applies to udp flows"), "{msg}");
}

/// Nodes `a`, `b`, `c` in a line (links 0 `a`→`b`, 1 `b`→`a`, 2 `b`→`c`, 3 `c`→`b`) and
/// `d`, linked to none.
const NODES: [&str; 4] = ["a", "b", "c", "d"];
const ENDS: [(u32, u32); 4] = [(0, 1), (1, 0), (1, 2), (2, 1)];

/// `step` on the `[[flows]]` of `text` (its tables stamped as `stamps` says), resolved over
/// [`NODES`] and [`ENDS`] for a 10 s run.
fn on_flows<T>(
    text: &str,
    stamps: &[Option<usize>],
    step: impl FnOnce(
        &Ctx<'_>,
        &RawFlows,
        Vec<PlannedFlow>,
        &[String],
        &crate::topology::Routes,
    ) -> Result<T, ScenarioError>,
) -> Result<T, Err> {
    #[derive(serde::Deserialize)]
    struct Flows {
        flows: Vec<RawFlow>,
    }
    let raw: Flows = toml::from_str(text).unwrap();
    let flows = RawFlows::new(raw.flows, stamps);
    let cx = Ctx {
        file: "t.toml".into(),
        text,
        dir: PathBuf::new(),
    };
    let nodes: Vec<String> = NODES.iter().map(|n| n.to_string()).collect();
    let routes = crate::topology::Routes::compute(nodes.len(), &ENDS);
    let (planned, _) = resolve_flows(&cx, &flows, &nodes, SimDuration::from_secs(10), 1)
        .map_err(|e| (e.line, e.path, e.msg))?;
    step(&cx, &flows, planned, &nodes, &routes).map_err(|e| (e.line, e.path, e.msg))
}

#[test]
fn crossings_are_by_flow_the_way_out_then_back_along_the_path() {
    let text = "[[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"1Mbps\"\n\
                    size = 200\n\
                    [[flows]]\nkind = \"tcp\"\nfrom = \"c\"\nto = \"b\"\nmss = 500\n";
    // The tcp table stamped twice: flows 1 and 2.
    let got = on_flows(
        text,
        &[None, Some(2)],
        |cx, flows, planned, nodes, routes| crossings(cx, flows, nodes, &planned, routes, &ENDS),
    )
    .unwrap();
    let got: Vec<_> = got
        .iter()
        .map(|c| (c.flow, c.link, c.size, c.what.to_string()))
        .collect();
    let seg = "its segments: 500 bytes of data + 40 of headers";
    let row = |flow, link, size, what: &str| (flow, link, size, what.to_string());
    assert_eq!(
        got,
        [
            // A UDP flow's datagrams along a→b→c, and nothing back.
            row(0, 0, 200, "its datagrams"),
            row(0, 2, 200, "its datagrams"),
            // A TCP flow's segments c→b, then its ACKs b→c.
            row(1, 3, 540, seg),
            row(1, 2, 40, "its ACKs"),
            row(2, 3, 540, seg),
            row(2, 2, 40, "its ACKs"),
        ]
    );
}

#[test]
fn check_flows_keeps_each_flows_start_and_dscp_and_refuses_no_route() {
    let ok = "[[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"1Mbps\"\n\
                  dscp = 10\nstart = \"2s\"\n\
                  [[flows]]\nkind = \"tcp\"\nfrom = \"c\"\nto = \"a\"\n";
    let got = on_flows(ok, &[], |cx, _, planned, nodes, routes| {
        check_flows(cx, planned, nodes, routes)
    })
    .unwrap();
    let got: Vec<_> = got
        .iter()
        .map(|f| {
            let kind = match f.plan {
                Planned::Udp(_) => "udp",
                Planned::Tcp(_) => "tcp",
            };
            (kind, f.start, f.dscp)
        })
        .collect();
    let at = |s| DurationDist::Fixed(SimDuration::from_secs(s));
    assert_eq!(got, [("udp", at(2), Some(10)), ("tcp", at(0), None)]);
    // d is linked to nothing: the error names the flow and (a udp flow) the line of its `from`.
    let no_route =
        format!("{ok}[[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"d\"\nrate = \"1Mbps\"\n");
    assert_eq!(
        on_flows(&no_route, &[], |cx, _, planned, nodes, routes| {
            check_flows(cx, planned, nodes, routes)
        })
        .map(|_| ()),
        e(14, "flows[2]", "flow 2: there is no route from a to d")
    );
}

#[test]
fn check_dscp_is_6_bits() {
    let dscp = |keys: &str| on(&format!("{UDP}{keys}"), |x| check_dscp(x.cx, x.f, x.p));
    assert_eq!(dscp(""), Ok(None));
    assert_eq!(dscp("dscp = 0"), Ok(Some(0)));
    assert_eq!(dscp("dscp = 63"), Ok(Some(63)));
    let msg = "expected a DSCP from 0 to 63, got 64";
    assert_eq!(dscp("dscp = 64"), e(4, "flows[1].dscp", msg));
    let msg = "expected a DSCP from 0 to 63, got -1";
    assert_eq!(dscp("dscp = -1"), e(4, "flows[1].dscp", msg));
}

#[test]
fn first_flow_counts_each_stamp_before_the_table() {
    let stamps = [None, Some(3), None, Some(2)];
    let firsts: Vec<usize> = (0..=5).map(|t| RawFlows::first_flow(&stamps, t)).collect();
    // Tables past the list stand for one flow each.
    assert_eq!(firsts, [0, 1, 4, 5, 7, 8]);
    assert_eq!(RawFlows::first_flow(&[], 3), 3);
}

#[test]
fn a_udp_size_is_20_to_65535_bytes_and_its_ecn_one_of_four_codepoints() {
    let size = |keys: &str| on(&format!("{UDP}{keys}"), udp_size);
    assert_eq!(size(""), Ok(1500));
    assert_eq!(size("size = 20"), Ok(20));
    assert_eq!(size("size = 65535"), Ok(65535));
    assert_eq!(
        size("size = 65536"),
        e(
            4,
            "flows[1].size",
            "expected a packet size in bytes between 20 and 65535, got 65536"
        )
    );
    let ecn = |keys: &str| on(&format!("{UDP}{keys}"), udp_ecn);
    assert_eq!(ecn(""), Ok(Ecn::NotEct));
    for (text, cp) in [
        ("not_ect", Ecn::NotEct),
        ("ect0", Ecn::Ect0),
        ("ect1", Ecn::Ect1),
        ("ce", Ecn::Ce),
    ] {
        assert_eq!(ecn(&format!("ecn_codepoint = {text:?}")), Ok(cp));
    }
    assert_eq!(
        ecn("ecn_codepoint = \"CE\""),
        e(
            4,
            "flows[1].ecn_codepoint",
            "expected not_ect, ect0, ect1 or ce, got \"CE\""
        )
    );
    let rate = |keys: &str| on(&format!("{UDP}{keys}"), udp_rate);
    assert_eq!(rate("rate = \"1bps\"").map(|r| r.as_bps()), Ok(1));
    assert_eq!(
        rate("rate = \"0Mbps\""),
        e(4, "flows[1].rate", "expected a rate > 0")
    );
}

#[test]
fn the_largest_packets_of_a_flow_are_its_data_and_what_comes_back() {
    let text = "[[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\n\
                    size = 200\n\
                    [[flows]]\nkind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\nmss = 500\n\
                    [[flows]]\nkind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\nmss = 500\n\
                    app = \"finite\"\nbytes = \"300B\"\n\
                    [[flows]]\nkind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\nmss = 500\n\
                    app = \"web\"\nconns_per_s = 1.0\nrequest_size = \"100B\"\n\
                    [[flows]]\nkind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\nmss = 500\n\
                    app = \"finite\"\nbytes = \"5000B\"\n";
    let largest = on_flows(text, &[], |_, _, planned, _, _| {
        Ok(planned.iter().map(largest_packets).collect::<Vec<_>>())
    })
    .unwrap();
    let p = |n: u32, what: &str| (n, what.to_string());
    assert_eq!(
        largest,
        [
            (p(200, "its datagrams"), p(0, "")),
            (
                p(540, "its segments: 500 bytes of data + 40 of headers"),
                p(40, "its ACKs")
            ),
            (
                p(340, "its segments: 300 bytes of data + 40 of headers"),
                p(40, "its ACKs")
            ),
            (
                p(540, "its responses: 500 bytes of data + 40 of headers"),
                p(140, "its requests: 100 bytes of data + 40 of headers")
            ),
            // A transfer longer than a segment: segments of the MSS.
            (
                p(540, "its segments: 500 bytes of data + 40 of headers"),
                p(40, "its ACKs")
            ),
        ]
    );
}
