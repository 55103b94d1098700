//! A web page's parallel connections (`app = "page"`, RFC 7928 §7.2) through flow-queue
//! disciplines: Linux hashes each connection's 5-tuple to a queue of its own, so FQ-CoDel
//! gives each connection a DRR share (RFC 8290 §4), and CAKE's host isolation still counts the
//! page as one host's traffic. `conns=merge` (one queue per flow) is the counterfactual.

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::{build, Overrides};
use std::path::Path;

/// A bulk NewReno flow (flow 0, s1 to r1) and one web page of 6 objects of 20 MB over 6
/// connections (flow 1, served by s2 to r2), both starting at 0 across a 10-Mb/s bottleneck
/// with `qdisc` and its `params` (TOML), for 20 s (no object finishes: every connection stays
/// backlogged). Returns the bulk flow's share of the bytes delivered in the last 10 s, and the
/// most queues the discipline held packets in at once (FQ-CoDel's `active_flows`; 0 for a
/// discipline without it).
fn run(qdisc: &str, params: &str) -> (f64, f64) {
    let text = format!(
        r#"
duration = "20s"
[dumbbell]
senders = 2
access_rate = "1Gbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
rate = "10Mbps"
delay = "10ms"
qdisc = "{qdisc}"
params = {{ {params} }}
buffer = "1000p"
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
initial_cwnd = 10
[[flows]]
kind = "tcp"
from = "s2"
to = "r2"
initial_cwnd = 10
app = "page"
objects = 6
parallel = 6
interval = "100s"
size_dist = "constant"
size_mean = "40MB"
"#
    );
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut s = match build(&text, "t.toml", dir, "t", &Overrides::default()) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    assert!(s.sim.trace_state("bottleneck"));
    s.sim.run_until(SimTime::ZERO + s.duration);
    let r = s.sim.report();
    assert_eq!(
        r.flows[1].transfers_completed, 0,
        "every connection still busy"
    );
    let bottleneck = s.sim.link_names().position(|n| n == "bottleneck").unwrap();
    let half = (s.duration.as_nanos() / 2 / s.sim.report_bin().as_nanos()) as usize;
    let mut series = s.sim.take_series(true);
    let bytes = |f: usize| -> u64 {
        series.flows[f][half..]
            .iter()
            .map(|b| b.delivered_bytes)
            .sum()
    };
    let (bulk, page) = (bytes(0), bytes(1));
    let most_active = series
        .states
        .swap_remove(bottleneck)
        .iter()
        .filter(|c| c.var == "active_flows")
        .map(|c| c.value)
        .fold(0.0, f64::max);
    (bulk as f64 / (bulk + page) as f64, most_active)
}

#[test]
fn fq_codel_gives_each_connection_of_a_page_a_queue_and_a_share() {
    let (share, active) = run("fq_codel", "");
    assert_eq!(active, 7.0, "the bulk flow and the page's 6 connections");
    assert!((0.12..0.17).contains(&share), "1/7 expected, got {share}");
    // Counterfactual: the page's connections keyed by the flow, one queue, half the link (a
    // little less: the lone NewReno flow's queue runs empty now and then, the page's does not).
    let (share, active) = run("fq_codel", r#"conns = "merge""#);
    assert_eq!(active, 2.0);
    assert!((0.42..0.53).contains(&share), "1/2 expected, got {share}");
}

#[test]
fn cake_counts_a_pages_connections_as_flows_but_the_page_as_one_host() {
    // `flows`: 7 flows, the bulk one gets 1/7; triple isolation: two hosts, half each (a
    // little less, as with FQ-CoDel's merged page above), not the 1/7 of 7 hosts.
    let (share, _) = run("cake", r#"flow_mode = "flows""#);
    assert!((0.12..0.17).contains(&share), "1/7 expected, got {share}");
    let (share, _) = run("cake", r#"flow_mode = "triple-isolate""#);
    assert!((0.40..0.53).contains(&share), "1/2 expected, got {share}");
}
