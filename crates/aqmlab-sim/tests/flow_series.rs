//! `[output] flow_series`: which flows keep a time series (issue 24 item 3). A flow without one
//! has no rows, and the run is otherwise the same: the summary (every flow's totals, the links)
//! byte for byte, and a kept flow's rows exactly those of a run where every flow keeps them.

use aqmlab_core::SimTime;
use aqmlab_report::FlowBin;
use aqmlab_sim::pyjson::to_pretty;
use aqmlab_sim::scenario::{build, Overrides, Scenario, SERIES_FLOWS};
use aqmlab_sim::summary::Summary;

/// `tcp` bulk TCP flows and a UDP flow named "video" (the last) through a 10 Mb/s bottleneck,
/// with `[output] flow_series = SERIES` when given.
fn scenario(tcp: usize, series: Option<&str>) -> Scenario {
    let output = series.map_or(String::new(), |v| format!("[output]\nflow_series = {v}\n"));
    let text = format!(
        "name = \"many\"\nduration = \"1s\"\nbin = \"100ms\"\n{output}\
         [dumbbell]\nsenders = 2\naccess_rate = \"1Gbps\"\nsender_delay = \"1ms\"\n\
         receiver_delay = \"1ms\"\n[dumbbell.bottleneck]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n\
         qdisc = \"droptail\"\nbuffer = \"200p\"\n\
         [[flows]]\nkind = \"tcp\"\ncount = {tcp}\nfrom = \"s1\"\nto = \"r1\"\n\
         start = \"uniform(0s, 500ms)\"\n\
         [[flows]]\nkind = \"udp\"\nname = \"video\"\nfrom = \"s2\"\nto = \"r2\"\nrate = \"1Mbps\"\n"
    );
    build(
        &text,
        "many.toml",
        ".".as_ref(),
        "many",
        &Overrides::default(),
    )
    .unwrap()
}

/// Runs `s` to its end in steps of 300 ms (the last within a bin), taking the series after
/// each as `aqmlab run` does: each flow's rows, joined, and the summary (wall time 0).
fn run(mut s: Scenario) -> (Vec<Vec<FlowBin>>, String) {
    let mut rows = vec![Vec::new(); s.sim.flow_count()];
    for t in [300, 600, 900, 1000] {
        s.sim.run_until(SimTime::from_millis(t));
        // A flow without a series counted nothing per bin: it holds no rows, even before a take.
        let held = s.sim.report().flow_rows;
        for (k, r) in held.iter().enumerate() {
            assert!(
                s.sim.flow_has_series(k) || r.is_empty(),
                "flow {k} holds rows"
            );
        }
        let c = s.sim.take_series(t == 1000);
        for (k, r) in c.flows.into_iter().enumerate() {
            rows[k].extend(r);
        }
    }
    let summary = to_pretty(&Summary::of("many", 1, s.sim.totals(), 0.0));
    (rows, summary)
}

#[test]
fn auto_keeps_no_series_above_the_count_and_the_summary_is_unchanged() {
    assert_eq!(SERIES_FLOWS, 1_000);
    // 1,001 flows: "auto" keeps none, says so once, and the resolved file leaves the key out.
    let auto = scenario(SERIES_FLOWS, None);
    assert_eq!(auto.sim.flows_with_series(), Some(vec![]));
    let said: Vec<_> = auto
        .warnings
        .iter()
        .filter(|w| {
            w.starts_with("output.flow_series: \"auto\" keeps no flow's time series with more than 1000 flows (here 1001): ")
        })
        .collect();
    assert_eq!(said.len(), 1, "{:?}", auto.warnings);
    assert!(!auto.resolved.contains("flow_series"));
    let all = scenario(SERIES_FLOWS, Some("\"all\""));
    assert_eq!(all.sim.flows_with_series(), None);
    assert!(!all.warnings.iter().any(|w| w.contains("flow_series")));
    assert!(all.resolved.contains("flow_series = \"all\""));

    let (rows_auto, summary_auto) = run(auto);
    let (rows_all, summary_all) = run(all);
    assert!(rows_auto.iter().all(Vec::is_empty));
    // Every flow has its 10 rows with "all", and the traffic is in them.
    assert!(rows_all.iter().all(|r| r.len() == 10));
    let delivered: u64 = rows_all.iter().flatten().map(|b| b.delivered_bytes).sum();
    assert!(delivered > 500_000, "{delivered} bytes delivered");
    assert_eq!(summary_auto, summary_all);

    // Up to the count, "auto" keeps every flow's series and says nothing.
    let at = scenario(SERIES_FLOWS - 1, None);
    assert_eq!(at.sim.flows_with_series(), None);
    assert!(!at.warnings.iter().any(|w| w.contains("flow_series")));
}

#[test]
fn listed_flows_keep_their_series_exactly() {
    // Flows by index and by name (the UDP flow, the last: 1,000).
    let listed = scenario(SERIES_FLOWS, Some("[\"video\", 7, 0]"));
    assert_eq!(listed.sim.flows_with_series(), Some(vec![0, 7, 1000]));
    // The resolved file lists them by index and is read back to the same choice.
    assert!(listed.resolved.contains("flow_series = [0, 7, 1000]"));
    let again = build(
        &listed.resolved,
        "r.toml",
        ".".as_ref(),
        "r",
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(again.sim.flows_with_series(), Some(vec![0, 7, 1000]));

    let (rows_listed, summary_listed) = run(listed);
    let (rows_all, summary_all) = run(scenario(SERIES_FLOWS, Some("\"all\"")));
    for (k, rows) in rows_listed.iter().enumerate() {
        if [0, 7, 1000].contains(&k) {
            assert_eq!(rows, &rows_all[k], "flow {k}");
        } else {
            assert!(rows.is_empty(), "flow {k}");
        }
    }
    // The rows carry traffic: the UDP flow's bytes, a TCP flow's sender samples.
    assert!(rows_listed[1000].iter().any(|b| b.delivered_bytes > 0));
    let tcp = rows_listed[0].iter().chain(&rows_listed[7]);
    assert!(tcp.clone().any(|b| b.acks > 0 && b.srtt_samples > 0));
    assert_eq!(summary_listed, summary_all);
    // "none": no flow keeps its series, whatever the count.
    let none = scenario(3, Some("\"none\""));
    assert_eq!(none.sim.flows_with_series(), Some(vec![]));
    assert!(none.resolved.contains("flow_series = \"none\""));
    assert!(run(none).0.iter().all(Vec::is_empty));
}
