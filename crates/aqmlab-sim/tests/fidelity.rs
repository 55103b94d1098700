//! Issue 14: two canonical dumbbell scenarios (`tests/fidelity/`) also run in ns-2.35 and
//! ns-3.37, whose figures over [10, 60) s, means of 3 seeds with start times U[0, 1) s, are:
//! * CoDel, 8 flows: about 75 drops and a mean queue of 16-18 packets;
//! * RED, 4 flows: 138-146 drops and a mean queue of about 5 packets.
//!
//! The CoDel scenario is also checked against ns-3 3.37 running the same set-up
//! (`tests/fidelity/ns3/`), which does not give the issue's CoDel figures either.
//!
//! The figures come from the bottleneck's per-bin series for the bins in [10, 60) s: the drops
//! per bin, and the time-averaged queue by Little's law, the sum of the sojourn times of the
//! packets released in those bins over the 50 s (the report carries no per-bin backlog
//! integral; the output files' `mean_backlog_pkts`, from the series chunks, agrees with this
//! figure to 0.01 packet in the CoDel runs; packets a discipline drops at dequeue, as CoDel
//! does, are left out of it).
//!
//! The test runs in the debug build (about 30 s for the nine runs); `--nocapture` prints the
//! figures: `cargo test -p aqmlab-sim --test fidelity -- --nocapture`.

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::Overrides;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    here.canonicalize().unwrap_or(here)
}

/// `(drops, mean queue in packets)` of the bottleneck over [10, 60) s of scenario `file` in
/// tests/fidelity, its text edited by `edit`, run with `seed`.
fn figures(file: &str, edit: fn(&str) -> String, seed: u64) -> (u64, f64) {
    let ov = Overrides {
        seed: Some(seed),
        ..Overrides::default()
    };
    let dir = root().join("tests/fidelity");
    let text = edit(&std::fs::read_to_string(dir.join(file)).unwrap());
    let mut s = aqmlab_sim::scenario::build(&text, file, &dir, file, &ov).unwrap();
    assert!(
        s.random,
        "{file}: the random start times make the seed matter"
    );
    s.sim.run_until(SimTime::ZERO + s.duration);
    let r = s.sim.report();
    let bin_ns = r.bin.as_nanos();
    let (lo, hi) = (
        (10_000_000_000 / bin_ns) as usize,
        (60_000_000_000 / bin_ns) as usize,
    );
    let l = r
        .links
        .iter()
        .find(|l| l.name == "bottleneck")
        .expect("a bottleneck");
    let window = |v: &[u64]| -> u64 { v.iter().take(hi).skip(lo).sum() };
    let drops = window(&l.m.drops_per_bin);
    let queue = window(&l.m.sojourn_sum_ns_per_bin) as f64 / 50e9;
    (drops, queue)
}

/// The file as written.
fn as_written(text: &str) -> String {
    text.to_string()
}

/// Every flow with RFC 6937's Proportional Rate Reduction (`prr = true`).
fn with_prr(text: &str) -> String {
    let edited = text.replace("delayed_ack = false\n", "delayed_ack = false\nprr = true\n");
    assert_eq!(edited.matches("prr = true").count(), 8, "one per flow");
    edited
}

/// Mean drops and mean queue over seeds 1-3, printed with each seed's figures.
fn mean_of_three(file: &str, edit: fn(&str) -> String) -> (f64, f64) {
    let runs: Vec<(u64, f64)> = (1..=3).map(|seed| figures(file, edit, seed)).collect();
    let drops = runs.iter().map(|r| r.0 as f64).sum::<f64>() / 3.0;
    let queue = runs.iter().map(|r| r.1).sum::<f64>() / 3.0;
    println!("{file}: per seed (drops, mean queue) {runs:.2?}; mean {drops:.1} drops, {queue:.2} packets");
    (drops, queue)
}

/// `x` within ±25 % of `reference`.
fn near(x: f64, reference: f64) -> bool {
    (x - reference).abs() <= 0.25 * reference
}

#[test]
fn codel_dumbbell_against_the_issues_figures_and_ns3() {
    let (drops, queue) = mean_of_three("codel.toml", as_written);
    // References: about 75 drops, mean queue 16-18 packets (17 taken). aqmlab measures 49.7
    // drops (51, 51, 47) and 25.3 packets: fewer drops and a longer queue, both outside
    // ±25 %. ns-3 3.37 running this set-up (tests/fidelity/ns3/) does not give the references'
    // figures either: 41-48 drops in every configuration that fills the link, so the issue's
    // runs differed in something it does not state. What holds is checked: the drops lie within
    // -50 %/+25 % of the references and the queue within ±60 %.
    assert!((0.5 * 75.0..=1.25 * 75.0).contains(&drops), "drops {drops}");
    assert!((queue - 17.0).abs() <= 0.6 * 17.0, "mean queue {queue}");
    // ns-3 3.37 as measured here, in the configuration closest to aqmlab's (tests/fidelity/ns3/
    // README.md: 16 MiB socket buffers so the window never binds, a 1-packet device queue,
    // no timestamps, the PPP header compensated) with TcpClassicRecovery (cwnd = ssthresh, as
    // the file's recovery): 46.3 drops (46, 48, 45), and 22.44 packets in the queue disc plus
    // 0.91 in the device queue. aqmlab's sojourn runs to the start of transmission, so its
    // queue includes what waits in ns-3's device queue: 23.35.
    assert!(near(drops, 46.3), "drops {drops} against ns-3's 46.3");
    assert!(
        near(queue, 23.35),
        "mean queue {queue} against ns-3's 23.35"
    );
}

#[test]
fn codel_dumbbell_with_prr_agrees_with_ns3() {
    // ns-3's default recovery is TcpPrrRecovery (RFC 6937); aqmlab's `prr = true`. ns-3 3.37,
    // configured as above with PRR: 51.0 drops (55, 52, 46) and 20.85 + 0.89 = 21.74 packets.
    // aqmlab: 52.3 drops (50, 56, 51) and 20.42 packets.
    let (drops, queue) = mean_of_three("codel.toml", with_prr);
    assert!(near(drops, 51.0), "drops {drops} against ns-3's 51.0");
    assert!(
        near(queue, 21.74),
        "mean queue {queue} against ns-3's 21.74"
    );
}

#[test]
fn red_dumbbell_agrees_with_ns2_and_ns3() {
    let (drops, queue) = mean_of_three("red.toml", as_written);
    // References: 138-146 drops (142 taken), mean queue about 5 packets. aqmlab: 113.3 drops
    // (118, 111, 111) and 5.61 packets; before the timeout fix, 1932 drops and 8.63 packets.
    assert!(near(drops, 142.0), "drops {drops}");
    assert!(near(queue, 5.0), "mean queue {queue}");
}

/// A two-flow TCP dumbbell whose second flow starts at `start`.
fn two_flows(start: &str) -> String {
    format!(
        r#"
duration = "1s"
[dumbbell]
senders = 2
access_rate = "100Mbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
rate = "10Mbps"
delay = "10ms"
buffer = "100p"
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
start = "250ms"
[[flows]]
kind = "tcp"
from = "s2"
to = "r2"
start = "{start}"
"#
    )
}

fn build_seed(text: &str, seed: u64) -> Result<aqmlab_sim::scenario::Scenario, String> {
    let ov = Overrides {
        seed: Some(seed),
        ..Overrides::default()
    };
    aqmlab_sim::scenario::build(text, "t.toml", &root(), "t", &ov).map_err(|e| e.to_string())
}

/// The start of flow `i` as the report gives it.
fn start_of(s: &aqmlab_sim::scenario::Scenario, i: usize) -> u64 {
    s.sim.report().flow_info[i].start.as_nanos()
}

#[test]
fn a_random_start_is_drawn_from_the_flows_stream() {
    let text = two_flows("uniform(0s, 1s)");
    let starts: Vec<u64> = (1..=4)
        .map(|seed| {
            let s = build_seed(&text, seed).unwrap();
            assert!(s.random);
            assert_eq!(start_of(&s, 0), 250_000_000, "a fixed start stays fixed");
            start_of(&s, 1)
        })
        .collect();
    assert!(starts.iter().all(|&t| t <= 1_000_000_000), "{starts:?}");
    assert!(
        starts.windows(2).all(|w| w[0] != w[1]),
        "each seed draws its own start: {starts:?}"
    );
    assert_eq!(start_of(&build_seed(&text, 3).unwrap(), 1), starts[2]);
    // Nothing else in this scenario is random: a fixed start leaves the seed without effect.
    assert!(!build_seed(&two_flows("0s"), 1).unwrap().random);
}

fn start_error(start: &str) -> String {
    match build_seed(&two_flows(start), 1) {
        Ok(_) => panic!("{start}: expected an error"),
        Err(e) => e,
    }
}

#[test]
fn a_bad_start_is_one_line_naming_the_key() {
    let e = start_error("uniform(1s)");
    assert_eq!(
        e,
        "t.toml:21: flows[1].start: expected a duration like \"2s\", or a distribution: \
         \"uniform(0s, 1s)\" or \"exponential(500ms)\", got \"uniform(1s)\""
    );
    let e = start_error("uniform(2s, 1s)");
    assert_eq!(
        e,
        "t.toml:21: flows[1].start: expected uniform(A, B) with A <= B, got \"uniform(2s, 1s)\" (2s > 1s)"
    );
    let e = start_error("uniform(0s, 2000000s)");
    assert!(
        e.starts_with("t.toml:21: flows[1].start: expected times of at most 1000000s"),
        "{e}"
    );
}

/// One sender, a jittered 100 Mb/s access link (`jitter` on `s1.access` through `[[links]]`),
/// a fast path on. `flow` is the flow table.
fn jitter_scenario(jitter: &str, flow: &str) -> String {
    format!(
        r#"
duration = "2s"
nodes = ["s1", "gw", "r1"]
[[links]]
name = "access"
from = "s1"
to = "gw"
rate = "100Mbps"
delay = "1ms"
buffer = "10000p"
jitter = "{jitter}"
[[links]]
name = "path"
from = "gw"
to = "r1"
rate = "1Gbps"
delay = "1ms"
buffer = "10000p"
[output]
packet_log = ["path"]
[[flows]]
{flow}
"#
    )
}

#[test]
fn jitter_delays_each_packet_within_its_range() {
    // A 1000-byte datagram every 10 ms: each crosses the idle access link in 80 us and
    // arrives 1 ms + U[0, 1 ms] later at the idle `path` link, which sends it at once: its
    // log shows the arrival times. Send k starts at 10k ms.
    let flow = "kind = \"udp\"\nfrom = \"s1\"\nto = \"r1\"\nrate = \"800kbps\"\nsize = 1000";
    let run = |jitter: &str| -> Vec<u64> {
        let mut s = build_seed(&jitter_scenario(jitter, flow), 1).unwrap();
        s.sim.run_until(SimTime::ZERO + s.duration);
        let (_, log) = s.sim.packet_logs().next().unwrap();
        log.iter()
            .enumerate()
            .map(|(k, r)| r.t_ns - (k as u64 * 10_000_000 + 80_000 + 1_000_000))
            .collect()
    };
    assert!(run("0ms").iter().all(|&x| x == 0));
    let extra = run("uniform(0ms, 1ms)");
    assert_eq!(extra.len(), 200);
    assert!(extra.iter().all(|&x| x <= 1_000_000), "{extra:?}");
    let mean = extra.iter().sum::<u64>() as f64 / 200.0;
    assert!(
        (400_000.0..600_000.0).contains(&mean),
        "mean extra delay {mean} ns"
    );
    assert_eq!(
        extra,
        run("uniform(0ms, 1ms)"),
        "the same seed draws the same jitter"
    );
}

#[test]
fn jitter_never_reorders_a_link() {
    // Back-to-back TCP segments 120 us apart, each delayed by up to 5 ms: without the
    // ordering rule most would overtake one another, and SACK would see holes, send duplicate
    // ACKs and retransmit. Nothing is lost here, so there must be no retransmission at all.
    let flow = "kind = \"tcp\"\nfrom = \"s1\"\nto = \"r1\"\ncc = \"newreno\"";
    let mut s = build_seed(&jitter_scenario("uniform(0ms, 5ms)", flow), 1).unwrap();
    assert!(s.random);
    s.sim.run_until(SimTime::ZERO + s.duration);
    let r = s.sim.report();
    let f = &r.flows[0];
    assert!(f.delivered_bytes > 10_000_000, "{}", f.delivered_bytes);
    assert_eq!((f.retransmits, f.fast_recoveries, f.timeouts), (0, 0, 0));
}
