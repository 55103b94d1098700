//! The traffic models through the engine, each against a hand computation or theory: repeated
//! transfers with idle periods (`app = "repeat"`), periodic web requests (`interval`), and
//! on/off applications over TCP (`app = "onoff"`).

use aqmlab_core::SimTime;
use aqmlab_report::Report;
use aqmlab_sim::scenario::{build, Overrides, Scenario};
use std::path::Path;

fn scenario(text: &str) -> Scenario {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    match build(text, "t.toml", dir, "t", &Overrides::default()) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

fn run(text: &str) -> (Report, Scenario) {
    let mut s = scenario(text);
    s.sim.run_until(SimTime::ZERO + s.duration);
    (s.sim.report(), s)
}

/// A dumbbell: `n` senders, a `rate` bottleneck with 20 ms one-way delay, 1 Gb/s access links
/// with 1 ms; base RTT 44 ms.
fn dumbbell(n: usize, rate: &str, buffer: &str, flows: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[dumbbell]
senders = {n}
access_rate = "1Gbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
rate = "{rate}"
delay = "20ms"
qdisc = "droptail"
buffer = "{buffer}"
{flows}
"#
    )
}

fn flow(from: &str, to: &str, keys: &str) -> String {
    format!("[[flows]]\nkind = \"tcp\"\nfrom = \"{from}\"\nto = \"{to}\"\n{keys}\n")
}

/// One-way times on the idle 10 Mb/s dumbbell (as in `tcp_engine.rs`): a 40-B control packet
/// takes c = 22 ms + 2·320 ns + 32 µs, a 140-B data packet d = 22 ms + 2·1.12 µs + 112 µs.
const C: u64 = 22_000_000 + 2 * 320 + 32_000;
const D: u64 = 22_000_000 + 2 * 1_120 + 112_000;

#[test]
fn repeated_transfers_with_a_constant_idle_follow_the_hand_count() {
    // Fresh connections: each 100-B transfer takes SYN + SYN-ACK + data + ACK = 3c + d; the
    // next starts 1 s after it completes. Starts at k·(3c + d + 1 s): k = 0..9 before 10 s.
    let keys = "app = \"repeat\"\nbytes = \"100B\"\nidle = \"1s\"\ndelayed_ack = false";
    let (r, sc) = run(&dumbbell(
        1,
        "10Mbps",
        "100p",
        &flow("s1", "r1", keys),
        "10s",
    ));
    let m = &r.flows[0];
    let fct = 3 * C + D;
    assert_eq!(fct, 88_212_160);
    assert_eq!((m.transfers_started, m.transfers_completed), (10, 10));
    assert_eq!((m.fct_ns.mean(), m.fct_ns.max()), (fct as f64, fct as f64));
    assert_eq!(m.delivered_bytes, 1000);
    assert_eq!(r.flow_info[0].app, "repeat");
    assert_eq!(sc.sim.tcp_connections_open(), 0, "each connection is freed");

    // One reused connection: the first transfer pays the handshake, the others only data out
    // and ACK back (c + d). Starts: 0, then 3c + d + 1 s, then every c + d + 1 s: ten before 10 s.
    let keys = format!("{keys}\nreuse = true");
    let (r, sc) = run(&dumbbell(
        1,
        "10Mbps",
        "100p",
        &flow("s1", "r1", &keys),
        "10s",
    ));
    let m = &r.flows[0];
    assert_eq!((m.transfers_started, m.transfers_completed), (10, 10));
    assert_eq!(m.fct_ns.max(), (3 * C + D) as f64);
    let mean = (3 * C + D + 9 * (C + D)) as f64 / 10.0;
    assert!((m.fct_ns.mean() - mean).abs() < 1.0, "{}", m.fct_ns.mean());
    assert_eq!(m.delivered_bytes, 1000);
    assert_eq!(
        sc.sim.tcp_connections_open(),
        1,
        "the connection stays open"
    );
}

#[test]
fn repeated_transfers_with_random_idle_match_renewal_theory() {
    // A transfer of 100 B takes 3c + d = 88.2 ms; with idle periods of mean 10 s the cycles
    // form a renewal process: over T the count is about T / (10 s + 88.2 ms), with variance
    // T·σ²/μ³ (σ² the idle variance: 100/12 s² for U(5, 15), 100 s² for the exponential).
    let t = 20_000.0;
    let mu = 10.0 + (3 * C + D) as f64 * 1e-9;
    for (idle, var) in [
        ("idle = [\"5s\", \"15s\"]", 100.0 / 12.0),
        ("idle = \"10s\"\nidle_dist = \"exponential\"", 100.0),
    ] {
        let keys = format!("app = \"repeat\"\nbytes = \"100B\"\n{idle}\ndelayed_ack = false");
        let text = dumbbell(1, "10Mbps", "100p", &flow("s1", "r1", &keys), "20000s");
        let (r, _) = run(&text);
        let n = r.flows[0].transfers_started as f64;
        let (expect, sd) = (t / mu, (t * var / (mu * mu * mu)).sqrt());
        assert!(
            (n - expect).abs() < 4.0 * sd,
            "{idle}: {n} transfers, expected {expect:.1} ± {sd:.1}"
        );
        // Same scenario and seed: the same draws.
        let (again, _) = run(&text);
        assert_eq!(
            again.flows[0].transfers_started,
            r.flows[0].transfers_started
        );
        assert_eq!(again.flows[0].fct_ns.mean(), r.flows[0].fct_ns.mean());
    }
}

#[test]
fn a_reused_connection_restarts_from_the_initial_window_after_idle() {
    // 40 segments per transfer, 5 s apart (far above the RTO). From the initial window of 10,
    // slow start (one segment per ACK, no delayed ACKs) sends 10, 20, then 10: three round
    // trips of 44 ms. A window kept from the first transfer sends all 40 in one.
    let base =
        "app = \"repeat\"\nbytes = \"58400B\"\nidle = \"5s\"\ndelayed_ack = false\nreuse = true";
    let later_fct = |extra: &str| {
        let keys = format!("{base}\n{extra}");
        let (r, _) = run(&dumbbell(
            1,
            "10Mbps",
            "1000p",
            &flow("s1", "r1", &keys),
            "30s",
        ));
        let m = &r.flows[0];
        assert_eq!(m.transfers_completed, 6, "{extra}");
        assert_eq!(m.retransmits, 0);
        // The first transfer (handshake, slow start) is the slowest either way; the others
        // are the median.
        m.fct_ns.quantile(0.5) * 1e-9
    };
    let restart = later_fct("");
    let kept = later_fct("idle_restart = false");
    // Serialising 40 × 1500 B at 10 Mb/s takes 48 ms: kept ≈ 88 ms + 48 ms; restarted, three
    // round trips plus the last round's serialisation.
    // Kept: the 40 segments go at once; the last leaves the 10 Mb/s link after 40 × 1.2 ms and
    // is acknowledged one RTT (44 ms) later: 92 ms. Restarted: 10 segments, then 20 (one round
    // trip later), then the last 10 (another): 3 RTTs plus the last round's 12 ms of
    // serialisation, 144 ms and a little.
    assert!((0.090..0.095).contains(&kept), "kept window: {kept}");
    assert!(
        (0.143..0.150).contains(&restart),
        "restart window: {restart}"
    );
}

#[test]
fn periodic_requests_arrive_every_interval() {
    // 100-B requests and responses every second on an idle path: each exchange takes
    // 3c + 2d (tcp_engine.rs), and requests arrive at 0, 1, …, 9 s.
    let keys = "app = \"web\"\ninterval = \"1s\"\nrequest_size = \"100B\"\nsize_dist = \"constant\"\nsize_mean = \"100B\"\ndelayed_ack = false";
    let (r, _) = run(&dumbbell(
        1,
        "10Mbps",
        "100p",
        &flow("s1", "r1", keys),
        "10s",
    ));
    let m = &r.flows[0];
    assert_eq!((m.transfers_started, m.transfers_completed), (10, 10));
    let fct = (3 * C + 2 * D) as f64;
    assert_eq!((m.fct_ns.mean(), m.fct_ns.max()), (fct, fct));
    assert_eq!(m.delivered_bytes, 1000);

    // The CS244 mahimahi reproduction's load: an 800-kB page every 200 ms over 100 Mb/s,
    // 32 Mb/s offered. Over 10 s: 50 requests (at 0, 0.2, …, 9.8 s); `stop` ends them.
    let keys =
        "app = \"web\"\ninterval = \"200ms\"\nsize_dist = \"constant\"\nsize_mean = \"800kB\"";
    let (r, _) = run(&dumbbell(
        1,
        "100Mbps",
        "1000p",
        &flow("s1", "r1", keys),
        "10s",
    ));
    let m = &r.flows[0];
    assert_eq!(m.transfers_started, 50);
    assert!(m.transfers_completed >= 48, "{}", m.transfers_completed);
    let offered = 50.0 * 800_000.0;
    let got = m.delivered_bytes as f64;
    assert!(got > 0.95 * offered && got <= offered, "{got} of {offered}");
    let keys = format!("{keys}\nstop = \"5s\"");
    let (r, _) = run(&dumbbell(
        1,
        "100Mbps",
        "1000p",
        &flow("s1", "r1", &keys),
        "10s",
    ));
    assert_eq!(r.flows[0].transfers_started, 25);
    assert_eq!(r.flows[0].transfers_completed, 25);
}

/// Expected payload bytes per second of an on/off application writing `size` bytes every
/// τ = size·8/rate in bursts, silent for off periods of mean `m_off`, with exponential bursts
/// as ns-2.35's `Traffic/Exponential` draws them (tools/expoo.cc `EXPOO_Traffic::next_interval`):
/// N = max(1, ⌊X + 0.5⌋) writes, X exponential of mean μ = m_on/τ, and the next burst an
/// interval plus an off period after the last write, so a cycle lasts Nτ + off. E[⌊X + 0.5⌋] =
/// Σ_{k≥1} P(X ≥ k − 0.5) = e^{−0.5/μ}/(1 − e^{−1/μ}), and the max adds P(X < 0.5) =
/// 1 − e^{−0.5/μ}; the rate is E[N]·size / (E[N]·τ + m_off).
fn onoff_rate_exponential(size: f64, rate_bps: f64, m_on: f64, m_off: f64) -> f64 {
    use aqmlab_core::math::exp;
    let tau = size * 8.0 / rate_bps;
    let mu = m_on / tau;
    let n = exp(-0.5 / mu) / (1.0 - exp(-1.0 / mu)) + 1.0 - exp(-0.5 / mu);
    n * size / (n * tau + m_off)
}

#[test]
fn onoff_applications_offer_their_mean_load() {
    // 20 applications writing 100 B at 64 kb/s (every 12.5 ms) in exponential bursts of mean
    // 40 writes (0.5 s), off 0.5 s: 4.00 kB/s each (32 kb/s on average), 0.64 Mb/s in all over
    // a 10 Mb/s link that never congests, so what they write is what arrives.
    let apps: String = (1..=20)
        .map(|i| {
            flow(
                &format!("s{i}"),
                &format!("r{i}"),
                "app = \"onoff\"\nrate = \"64kbps\"\nsize = 100\non_time = \"500ms\"\noff_time = \"500ms\"",
            )
        })
        .collect();
    let t = 500.0;
    let (r, sc) = run(&dumbbell(20, "10Mbps", "1000p", &apps, "500s"));
    let per_app = onoff_rate_exponential(100.0, 64e3, 0.5, 0.5);
    assert!((per_app - 4000.6).abs() < 0.1, "{per_app}");
    let total: u64 = r.flows.iter().map(|m| m.delivered_bytes).sum();
    let expect = 20.0 * per_app * t;
    // The on time of each application over T has a standard deviation of about
    // sqrt(T·(σ_on²·μ_off² + σ_off²·μ_on²)/μ³) = 11 s of its 250 s: 0.5 % for the 20 together.
    assert!(
        (total as f64 / expect - 1.0).abs() < 0.03,
        "{total} bytes, expected {expect:.0}"
    );
    for (m, info) in r.flows.iter().zip(&r.flow_info) {
        assert_eq!(info.app, "onoff");
        assert_eq!(m.transfers_started, 0);
        assert_eq!(m.retransmits, 0);
    }
    assert_eq!(
        sc.sim.tcp_connections_open(),
        20,
        "one connection per application"
    );
}

#[test]
fn pareto_onoff_applications_offer_their_mean_load() {
    // Pareto bursts and off periods (shape 2.5, finite variance): 40 applications, mean on and
    // off 0.5 s, writing 100 B at 64 kb/s. ns-2.35's burst of max(1, ⌊X + 0.5⌋) writes, X of
    // mean 40, averages 40 writes up to a rounding term well under one, as with exponential
    // bursts, whose formula stands for it.
    let apps: String = (1..=40)
        .map(|i| {
            flow(
                &format!("s{i}"),
                &format!("r{i}"),
                "app = \"onoff\"\nrate = \"64kbps\"\nsize = 100\non_time = \"500ms\"\noff_time = \"500ms\"\nonoff_shape = 2.5",
            )
        })
        .collect();
    let (r, _) = run(&dumbbell(40, "10Mbps", "1000p", &apps, "300s"));
    let total: u64 = r.flows.iter().map(|m| m.delivered_bytes).sum();
    let expect = 40.0 * onoff_rate_exponential(100.0, 64e3, 0.5, 0.5) * 300.0;
    assert!(
        (total as f64 / expect - 1.0).abs() < 0.05,
        "{total} bytes, expected {expect:.0}"
    );
}

#[test]
fn onoff_over_a_congested_link_is_limited_by_tcp_not_by_the_application() {
    // 10 applications writing 1 Mb/s each half the time offer 5 Mb/s to a 1 Mb/s link: TCP
    // keeps it busy and delivers what the link carries, the rest waits in the senders.
    let apps: String = (1..=10)
        .map(|i| {
            flow(
                &format!("s{i}"),
                &format!("r{i}"),
                "app = \"onoff\"\nrate = \"1Mbps\"\non_time = \"1s\"\noff_time = \"1s\"\nonoff_shape = 1.5",
            )
        })
        .collect();
    let (r, _) = run(&dumbbell(10, "1Mbps", "45p", &apps, "60s"));
    let util = r
        .links
        .iter()
        .find(|l| l.name == "bottleneck")
        .unwrap()
        .utilization;
    assert!(util > 0.9, "utilization {util}");
    let drops: u64 = r.flows.iter().map(|m| m.dropped_pkts).sum();
    assert!(drops > 0, "a 45-packet buffer overflows");
}

fn err(flows: &str) -> String {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let text = dumbbell(1, "10Mbps", "100p", flows, "10s");
    match build(&text, "t.toml", dir, "t", &Overrides::default()) {
        Ok(_) => panic!("expected an error for {flows}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_application_keys_name_the_line_and_key() {
    // The flow's table is on line 13 of the dumbbell text; its own keys follow from line 17.
    let tcp = |keys: &str| flow("s1", "r1", keys);
    for (keys, expected) in [
        (
            "app = \"repeat\"\nbytes = \"1MB\"",
            "t.toml:17: flows[0].idle: repeated transfers need an idle period",
        ),
        (
            "app = \"repeat\"\nidle = \"1s\"",
            "t.toml:17: flows[0].bytes: repeated transfers need a size",
        ),
        (
            "app = \"repeat\"\nbytes = \"1MB\"\nidle = [\"15s\", \"5s\"]",
            "t.toml:19: flows[0].idle: expected [low, high] with low ≤ high",
        ),
        (
            "app = \"repeat\"\nbytes = \"1MB\"\nidle = [\"5s\"]",
            "t.toml:19: flows[0].idle: expected a uniform range of two durations",
        ),
        (
            "app = \"repeat\"\nbytes = \"1MB\"\nidle = \"5\"",
            "t.toml:19: flows[0].idle: expected a duration with a unit",
        ),
        // The idle period, read with the file: a bad element names its index; a value of
        // another type, or a list where one duration is expected, quotes the value; one
        // duration for uniform idle periods (which panicked: "arrays are handled above").
        (
            "app = \"repeat\"\nbytes = \"1MB\"\nidle = [\"5s\", \"2000000s\"]",
            "t.toml:19: flows[0].idle[1]: expected a duration of at most 1000000s",
        ),
        (
            "app = \"repeat\"\nbytes = \"1MB\"\nidle = 5",
            "t.toml:19: flows[0].idle: expected a duration with a unit, like \"10s\", got 5",
        ),
        (
            "app = \"repeat\"\nbytes = \"1MB\"\nidle = [\"5s\", \"15s\"]\nidle_dist = \"exponential\"",
            "t.toml:19: flows[0].idle: expected a duration with a unit, like \"10s\", got [\"5s\", \"15s\"]",
        ),
        (
            "app = \"repeat\"\nbytes = \"1MB\"\nidle = \"5s\"\nidle_dist = \"uniform\"",
            "t.toml:19: flows[0].idle: idle_dist = \"uniform\" needs a range of two durations, like idle = [\"5s\", \"15s\"], got \"5s\"",
        ),
        (
            "app = \"repeat\"\nbytes = \"1MB\"\nidle = \"5s\"\nidle_dist = \"gamma\"",
            "t.toml:20: flows[0].idle_dist: expected constant, uniform or exponential, got \"gamma\"",
        ),
        (
            "app = \"repeat\"\nbytes = \"1MB\"\nidle = \"5s\"\nidle_restart = false",
            "flows[0].idle_restart: idle_restart applies to a reused connection",
        ),
        (
            "app = \"repeat\"\nbytes = \"1MB\"\nsize_mean = \"1MB\"\nidle = \"5s\"",
            "t.toml:18: flows[0].bytes: give the transfer size either as bytes",
        ),
        (
            "app = \"web\"\nconns_per_s = 5.0\ninterval = \"200ms\"",
            "t.toml:19: flows[0].interval: give conns_per_s (Poisson arrivals) or interval",
        ),
        (
            "app = \"web\"\ninterval = \"0s\"",
            "t.toml:18: flows[0].interval: expected an interval of at least 1us",
        ),
        (
            "app = \"web\"\nconns_per_s = 5.0\nsize_dist = \"constant\"\nsize_shape = 1.5",
            "t.toml:20: flows[0].size_shape: size_shape does not apply to size_dist = \"constant\"",
        ),
        (
            "rate = \"1Mbps\"",
            "t.toml:17: flows[0].rate: rate belongs to udp flows and app = \"onoff\"",
        ),
        (
            "app = \"finite\"\nbytes = \"1MB\"\nidle = \"1s\"",
            "t.toml:19: flows[0].idle: idle belongs to app = \"repeat\"",
        ),
        (
            "app = \"onoff\"\nrate = \"64kbps\"",
            "t.toml:17: flows[0]: an on/off application needs on_time and off_time",
        ),
        (
            "app = \"onoff\"\non_time = \"1s\"\noff_time = \"1s\"",
            "t.toml:17: flows[0].rate: an on/off application needs the rate",
        ),
        (
            "app = \"onoff\"\nrate = \"64kbps\"\non_time = \"1s\"\noff_time = \"1s\"\nonoff_shape = 1.0",
            "t.toml:21: flows[0].onoff_shape: expected a Pareto shape > 1, got 1",
        ),
        (
            "app = \"onoff\"\nrate = \"64kbps\"\nsize = 0\non_time = \"1s\"\noff_time = \"1s\"",
            "t.toml:19: flows[0].size: expected the bytes of each write",
        ),
        (
            "app = \"ftp\"",
            "t.toml:17: flows[0].app: expected bulk, finite, repeat, onoff, web, page or video, got \"ftp\"",
        ),
    ] {
        let e = err(&tcp(keys));
        assert!(e.contains(expected), "{keys}:\n{e}\nexpected: {expected}");
    }
    // A udp flow refuses the new TCP application keys.
    for key in [
        "idle = \"1s\"",
        "reuse = true",
        "interval = \"1s\"",
        "idle_restart = true",
    ] {
        let name = key.split(' ').next().unwrap();
        let e = err(&format!(
            "[[flows]]\nkind = \"udp\"\nfrom = \"s1\"\nto = \"r1\"\nrate = \"1Mbps\"\n{key}\n"
        ));
        assert!(
            e.contains(&format!("flows[0].{name}: {name} belongs to tcp flows")),
            "{key}: {e}"
        );
    }
}

#[test]
fn connections_that_never_open_are_counted_and_the_applications_go_on() {
    // A bottleneck that sends nothing for the whole run (an outage): each SYN goes unanswered
    // and, with syn_retries = 0, the connection gives up when its first RTO (1 s) expires.
    let lossy = |flows: &str| {
        dumbbell(2, "10Mbps", "100p", flows, "20s").replace(
            "rate = \"10Mbps\"",
            "schedule = [[\"0s\", \"0bps\"], [\"60s\", \"10Mbps\"]]",
        )
    };
    let repeat = flow(
        "s1",
        "r1",
        "app = \"repeat\"\nbytes = \"10KB\"\nidle = \"1s\"\nsyn_retries = 0",
    );
    let onoff = flow(
        "s2",
        "r2",
        "app = \"onoff\"\nrate = \"1Mbps\"\non_time = \"1s\"\noff_time = \"1s\"\nsyn_retries = 0",
    );
    let (r, sc) = run(&lossy(&(repeat + &onoff)));
    // Repeated transfers: a failure every 2 s (1 s of SYN timeout, 1 s idle): 10 in 20 s.
    let m = &r.flows[0];
    assert_eq!((m.transfers_started, m.transfers_failed), (10, 10));
    assert_eq!((m.transfers_completed, m.delivered_bytes), (0, 0));
    // On/off: the next write after a failure opens a new connection; at most one at a time.
    let m = &r.flows[1];
    assert!(m.transfers_failed >= 5, "{}", m.transfers_failed);
    assert_eq!(m.transfers_started, 0);
    assert!(sc.sim.tcp_connections_open() <= 2);
}

#[test]
fn repeated_transfers_with_drawn_sizes_have_the_distribution_mean() {
    // Lognormal sizes of mean 20 kB (σ = 1: standard deviation 1.31 × the mean), 1 s apart on
    // an uncongested path: the bytes per completed transfer average 20 kB, within 4 standard
    // errors (1.31 × 20 kB / √n).
    let keys = "app = \"repeat\"\nsize_dist = \"lognormal\"\nsize_mean = \"20KB\"\nsize_sigma = 1.0\nidle = \"1s\"";
    let (r, _) = run(&dumbbell(
        1,
        "10Mbps",
        "1000p",
        &flow("s1", "r1", keys),
        "3000s",
    ));
    let m = &r.flows[0];
    let n = m.transfers_completed as f64;
    assert!(n > 2000.0, "{n}");
    let mean = m.delivered_bytes as f64 / n;
    let se = 1.31 * 20_000.0 / n.sqrt();
    assert!(
        (mean - 20_000.0).abs() < 4.0 * se,
        "{mean} bytes per transfer, ± {se:.0}"
    );
}
