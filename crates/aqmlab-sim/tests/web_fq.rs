//! A web flow's overlapping exchanges (`app = "web"`: a fresh connection per request, opened
//! whether or not the previous response has arrived) through FQ-CoDel: Linux hashes each TCP
//! connection's 5-tuple (their client ports differ) to a queue of its own, so each open
//! connection gets a DRR share (RFC 8290 §4.1, §4.2). `conns=merge` (one queue per flow) is the
//! counterfactual. A web flow whose exchanges never overlap keeps its flow id as the key of
//! every packet: `split` and `merge` give the same run, bit for bit.

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::{build, Overrides};
use aqmlab_sim::summary::summary;
use std::path::Path;

/// A bulk NewReno flow (flow 0, s1 to r1) and a web flow (flow 1, served by s2 to r2) across a
/// 10-Mb/s bottleneck with FQ-CoDel and `params` (TOML), for 20 s. The web client asks every
/// `interval` for a response of `size`, until `stop`. Returns the run's summary, the bulk
/// flow's share of the bytes delivered in the last 10 s, and the most queues FQ-CoDel held
/// packets in at once (`active_flows`).
fn run(params: &str, interval: &str, size: &str, stop: &str) -> (serde_json::Value, f64, f64) {
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
qdisc = "fq_codel"
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
app = "web"
interval = "{interval}"
size_dist = "constant"
size_mean = "{size}"
stop = "{stop}"
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
    let mut sum = summary(&s.name, s.seed, &r, 0.0);
    sum.as_object_mut().unwrap().remove("wall_s");
    let bottleneck = s.sim.link_names().position(|n| n == "bottleneck").unwrap();
    let half = (s.duration.as_nanos() / 2 / s.sim.report_bin().as_nanos()) as usize;
    let mut series = s.sim.take_series(true);
    let bytes = |f: usize| -> u64 {
        series.flows[f][half..]
            .iter()
            .map(|b| b.delivered_bytes)
            .sum()
    };
    let (bulk, web) = (bytes(0), bytes(1));
    let most_active = series
        .states
        .swap_remove(bottleneck)
        .iter()
        .filter(|c| c.var == "active_flows")
        .map(|c| c.value)
        .fold(0.0, f64::max);
    (sum, bulk as f64 / (bulk + web) as f64, most_active)
}

#[test]
fn fq_codel_gives_each_open_connection_of_a_web_flow_a_queue_and_a_share() {
    // Requests at 0, 1 and 2 s for 40 MB each: none completes in the run (40 MB takes 32 s of
    // the whole link), so from 2 s on the web flow has 3 connections open, all backlogged.
    let (sum, share, active) = run("", "1s", "40MB", "2.5s");
    assert_eq!(sum["flows"][1]["transfers_started"], 3);
    assert_eq!(sum["flows"][1]["transfers_completed"], 0);
    assert_eq!(
        active, 4.0,
        "the bulk flow and the web flow's 3 connections"
    );
    assert!((0.21..0.29).contains(&share), "1/4 expected, got {share}");
    // Counterfactual: every connection keyed by the flow, one queue, half the link (a little
    // less: the lone NewReno flow's queue runs empty now and then, the web flow's does not).
    let (_, share, active) = run(r#"conns = "merge""#, "1s", "40MB", "2.5s");
    assert_eq!(active, 2.0);
    assert!((0.42..0.53).contains(&share), "1/2 expected, got {share}");
}

#[test]
fn a_web_flow_whose_exchanges_do_not_overlap_keeps_its_flow_key() {
    // 20-kB responses every 500 ms: each arrives in a few RTTs, long before the next request.
    // Three queues, `hash=flow_id`: the flows' keys 0 and 1 get queues 0 and 1; a connection
    // keyed apart (2 flows + its slot, 1: the bulk flow's connection holds slot 0) would get
    // queue 0, the bulk flow's, and the run would differ.
    let (split, _, active) = run("flows = 3", "500ms", "20kB", "19s");
    assert_eq!(split["flows"][1]["transfers_completed"], 38);
    assert_eq!(active, 2.0);
    let (merge, _, _) = run(r#"flows = 3, conns = "merge""#, "500ms", "20kB", "19s");
    assert_eq!(split, merge);
}
