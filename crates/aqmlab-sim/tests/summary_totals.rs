//! The summary read from the simulation itself (`Sim::totals`, which copies no flow's metrics:
//! issue 24) is the summary of a report, byte for byte: with web pages, one-way delay sketches,
//! and a video flow stalled at the moment it is written (whose stall the summary adds in).

use aqmlab_core::{SimDuration, SimTime};
use aqmlab_sim::pyjson::to_pretty;
use aqmlab_sim::scenario::{build, Overrides};
use aqmlab_sim::summary::Summary;

const MIX: &str = r#"
name = "mix"
duration = "10s"
seed = 3
warmup = "1s"
[output]
owd_distribution = true
[dumbbell]
senders = 1
access_rate = "1Gbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
rate = "2Mbps"
delay = "20ms"
qdisc = "fq_codel"
[[flows]]
kind = "tcp"
app = "page"
count = 2
objects = 10
parallel = 4
conns_per_s = 1.0
size_dist = "lognormal"
size_mean = "10kB"
size_sigma = 1.0
from = "s1"
to = "r1"
start = "uniform(0s, 1s)"
[[flows]]
kind = "tcp"
app = "video"
segment = "2s"
ladder = ["1Mbps", "1.5Mbps"]
playout_buffer = "4s"
from = "s1"
to = "r1"
name = "video"
[[flows]]
kind = "tcp"
cc = "cubic"
count = 2
from = "s1"
to = "r1"
start = "uniform(0s, 1s)"
"#;

#[test]
fn summary_of_the_simulation_is_the_summary_of_its_report() {
    let mut s = build(MIX, "mix.toml", ".".as_ref(), "mix", &Overrides::default()).unwrap();
    let video = 2;
    let t = SimTime::ZERO + SimDuration::from_millis(8_000);
    s.sim.run_until(t);
    s.sim.take_series(false);
    let before = s.sim.report().flows[video].video_rebuffer_ns;
    s.sim.run_until(t + SimDuration::from_millis(1));
    let r = s.sim.report();
    // A stall goes on (its time grows with the clock): the summary counts it from the flow's
    // state, so a summary that read only the flow's totals would differ.
    assert!(
        r.flows[video].video_rebuffer_ns > before && before > 0,
        "the video flow is stalled: {before} ns, then {} ns",
        r.flows[video].video_rebuffer_ns
    );
    assert!(r.owd.is_some() && r.flows.len() == 5);
    let of_report = to_pretty(&Summary::new("mix", 3, &r, 0.5));
    let of_sim = to_pretty(&Summary::of("mix", 3, s.sim.totals(), 0.5));
    assert_eq!(of_sim, of_report);
    assert!(of_sim.contains("\"owd_distribution\"") && of_sim.contains("\"pages\""));
}
