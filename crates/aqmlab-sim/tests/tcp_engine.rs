//! TCP through the real engine (scenario files → links → queue disciplines → TCP state machines).

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::{build, Overrides, Scenario};
use aqmlab_sim::summary::summary;
use std::path::Path;

fn scenario(text: &str) -> Scenario {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    match build(text, "t.toml", dir, "t", &Overrides::default()) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

fn run(text: &str) -> serde_json::Value {
    let mut s = scenario(text);
    s.sim.run_until(SimTime::ZERO + s.duration);
    summary(&s.name, s.seed, &s.sim.report(), 0.0)
}

/// A dumbbell: `n` senders, 10 Mb/s bottleneck with 20 ms one-way delay, 1 ms access links;
/// base RTT = 2·(1 + 20 + 1) = 44 ms, BDP = 10 Mb/s · 44 ms ≈ 37 × 1500-B packets.
fn dumbbell(n: usize, qdisc: &str, buffer: &str, flows: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[dumbbell]
senders = {n}
access_rate = "1Gbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
rate = "10Mbps"
delay = "20ms"
qdisc = "{qdisc}"
buffer = "{buffer}"
{flows}
"#
    )
}

fn bulk(from: &str, to: &str, cc: &str) -> String {
    format!("[[flows]]\nkind = \"tcp\"\nfrom = \"{from}\"\nto = \"{to}\"\ncc = \"{cc}\"\n")
}

#[test]
fn one_newreno_flow_fills_a_one_bdp_droptail_buffer() {
    let s = run(&dumbbell(
        1,
        "droptail",
        "37p",
        &bulk("s1", "r1", "newreno"),
        "60s",
    ));
    let b = &s["links"]["bottleneck"];
    let util = b["utilization"].as_f64().unwrap();
    assert!(util >= 0.95, "utilization {util}");
    let goodput = s["flows"][0]["goodput_bps"].as_f64().unwrap();
    // Goodput excludes the 40-B headers: at most 1460/1500 of the link.
    assert!(
        goodput > 0.95 * 10e6 * 1460.0 / 1500.0 * 0.97,
        "goodput {goodput}"
    );
    assert!(
        b["dropped_pkts"].as_u64().unwrap() > 0,
        "a loss-based flow must fill the buffer"
    );
}

#[test]
fn two_equal_rtt_flows_share_fairly() {
    let flows = bulk("s1", "r1", "cubic") + &bulk("s2", "r2", "cubic");
    let s = run(&dumbbell(2, "droptail", "37p", &flows, "60s"));
    let j = s["fairness"]["jain_goodput"].as_f64().unwrap();
    assert!(j >= 0.95, "Jain {j}");
    assert!(s["links"]["bottleneck"]["utilization"].as_f64().unwrap() > 0.9);
}

#[test]
fn codel_keeps_tcp_delay_low_where_droptail_does_not() {
    let flows: String = (1..=4)
        .map(|i| bulk(&format!("s{i}"), &format!("r{i}"), "cubic"))
        .collect();
    let tail = run(&dumbbell(4, "droptail", "1000p", &flows, "30s"));
    let codel = run(&dumbbell(4, "codel", "1000p", &flows, "30s"));
    let p50 = |s: &serde_json::Value| {
        s["links"]["bottleneck"]["sojourn_ms"]["p50"]
            .as_f64()
            .unwrap()
    };
    assert!(p50(&tail) > 100.0, "tail drop median {}", p50(&tail));
    assert!(p50(&codel) < 10.0, "CoDel median {}", p50(&codel));
    let util = codel["links"]["bottleneck"]["utilization"]
        .as_f64()
        .unwrap();
    assert!(util > 0.9, "CoDel utilization {util}");
}

#[test]
fn one_packet_transfer_pays_the_handshake() {
    // Handshake then one 100-B segment, no delayed ACK. Every link is idle, so the FCT is
    // SYN out + SYN-ACK back + data out + ACK back = 2 RTT + serialisation of each packet on
    // each hop. One-way: 1 ms + 20 ms + 1 ms; 40-B packets at 1 Gb/s take 320 ns and at 10 Mb/s
    // 32 µs; the 140-B data packet takes 1.12 µs at 1 Gb/s and 112 µs at 10 Mb/s.
    let flow = "[[flows]]\nkind = \"tcp\"\nfrom = \"s1\"\nto = \"r1\"\napp = \"finite\"\nbytes = \"100B\"\ndelayed_ack = false\n";
    let s = run(&dumbbell(1, "droptail", "100p", flow, "2s"));
    let fct = s["flows"][0]["fct_s"].as_f64().unwrap();
    let prop = 4.0 * 22e-3;
    let ctl = 3.0 * (2.0 * 320e-9 + 32e-6); // SYN, SYN-ACK, ACK: two 1 Gb/s hops + the 10 Mb/s hop
    let data = 2.0 * 1.12e-6 + 112e-6;
    let expected = prop + ctl + data;
    assert!((fct - expected).abs() < 1e-6, "fct {fct} vs {expected}");
    assert_eq!(s["flows"][0]["transfers_completed"].as_u64(), Some(1));
    assert_eq!(s["flows"][0]["delivered_bytes"].as_u64(), Some(100));
}

#[test]
fn web_traffic_completes_transfers_and_recycles_connections() {
    let flow = "[[flows]]\nkind = \"tcp\"\nfrom = \"s1\"\nto = \"r1\"\napp = \"web\"\nconns_per_s = 20.0\nsize_mean = \"20KB\"\n";
    let mut sc = scenario(&dumbbell(1, "codel", "100p", flow, "60s"));
    sc.sim.run_until(SimTime::ZERO + sc.duration);
    let s = summary(&sc.name, sc.seed, &sc.sim.report(), 0.0);
    let f = &s["flows"][0];
    let started = f["transfers_started"].as_u64().unwrap();
    let done = f["transfers_completed"].as_u64().unwrap();
    // Poisson(20/s) over 60 s: 1200 ± a few sqrt(1200).
    assert!((1080..=1320).contains(&started), "{started}");
    assert!(done + 20 >= started, "{done} of {started} completed");
    // Offered load ≈ 20/s × 20 kB × 8 = 3.2 Mb/s of 10: delivered bytes match it.
    let mbps = f["goodput_bps"].as_f64().unwrap() / 1e6;
    assert!((2.0..4.5).contains(&mbps), "{mbps}");
    assert!(
        sc.sim.tcp_connections_open() < 50,
        "finished connections are freed"
    );
}

#[test]
fn same_seed_same_result_different_seed_different_result() {
    let flows = bulk("s1", "r1", "cubic")
        + "[[flows]]\nkind = \"tcp\"\nfrom = \"s2\"\nto = \"r2\"\napp = \"web\"\nconns_per_s = 5.0\n";
    let text = dumbbell(2, "red", "100p", &flows, "20s");
    let a = run(&text);
    let b = run(&text);
    assert_eq!(a, b);
    let c = run(&text.replace("duration = \"20s\"", "duration = \"20s\"\nseed = 2"));
    assert_ne!(a["flows"][1], c["flows"][1]);
}

#[test]
fn ecn_flows_are_marked_not_dropped_by_codel() {
    let flows: String = (1..=2)
        .map(|i| format!("[[flows]]\nkind = \"tcp\"\nfrom = \"s{i}\"\nto = \"r{i}\"\ncc = \"newreno\"\necn = true\n"))
        .collect();
    let text = dumbbell(2, "codel", "1000p", &flows, "30s").replace(
        "buffer = \"1000p\"",
        "buffer = \"1000p\"\nparams = { ecn = true }",
    );
    let s = run(&text);
    let b = &s["links"]["bottleneck"];
    assert!(b["marked_pkts"].as_u64().unwrap() > 10, "{b}");
    assert_eq!(b["dropped_pkts"].as_u64(), Some(0));
    assert_eq!(s["flows"][0]["retransmits"].as_u64(), Some(0));
    assert!(b["sojourn_ms"]["p50"].as_f64().unwrap() < 10.0);
}

#[test]
fn newreno_under_random_loss_follows_mathis() {
    // 100 Mb/s, RTT 50 ms, a huge buffer and random loss p on the data path only: throughput is
    // loss-limited, MSS/RTT·sqrt(3/(2p)) (Mathis et al. 1997; aqmlab's TCP counts acknowledged
    // bytes (RFC 3465), so delayed ACKs do not change the constant).
    for (p, secs) in [(0.001f64, 300), (0.003, 200), (0.01, 120)] {
        let text = format!(
            r#"
duration = "{secs}s"
[dumbbell]
senders = 1
access_rate = "1Gbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
rate = "100Mbps"
delay = "23ms"
buffer = "100000p"
loss = {p}
reverse = {{ loss = 0.0 }}
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
cc = "newreno"
"#
        );
        let s = run(&text);
        let goodput = s["flows"][0]["goodput_bps"].as_f64().unwrap();
        let mathis = 1460.0 * 8.0 / 0.050 * (3.0 / (2.0 * p)).sqrt();
        let ratio = goodput / mathis;
        assert!(
            (0.8..=1.2).contains(&ratio),
            "p={p}: {goodput} vs Mathis {mathis} (ratio {ratio:.3})"
        );
        let lost = s["links"]["bottleneck"]["lost_pkts"].as_u64().unwrap();
        assert!(lost > 100, "p={p}: only {lost} losses");
    }
}

#[test]
fn drop_reasons_add_up() {
    let flows: String = (1..=4)
        .map(|i| bulk(&format!("s{i}"), &format!("r{i}"), "cubic"))
        .collect();
    let s = run(&dumbbell(4, "codel", "60p", &flows, "20s"));
    let b = &s["links"]["bottleneck"];
    let reasons = b["drops_by_reason"].as_object().unwrap();
    let total: u64 = reasons.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(total, b["dropped_pkts"].as_u64().unwrap());
    assert!(reasons.contains_key("codel_target"), "{reasons:?}");
}

#[test]
fn reverse_direction_traffic_uses_the_reverse_queue() {
    // A download r1 -> s1 beside an upload s2 -> r2: each uses its own direction of the
    // full-duplex bottleneck, with its own queue. (Each direction also carries the other flow's
    // ACKs, so neither reaches full utilization: two-way traffic's ACK compression.)
    let flows = bulk("s2", "r2", "cubic") + &bulk("r1", "s1", "cubic");
    let s = run(&dumbbell(2, "codel", "100p", &flows, "20s"));
    let fwd = s["links"]["bottleneck"]["utilization"].as_f64().unwrap();
    let rev = s["links"]["bottleneck.rev"]["utilization"]
        .as_f64()
        .unwrap();
    assert!(fwd > 0.6 && rev > 0.6, "forward {fwd}, reverse {rev}");
    assert_eq!(s["links"]["bottleneck.rev"]["qdisc"], "codel");
    assert!(
        s["links"]["bottleneck.rev"]["enqueued_pkts"]
            .as_u64()
            .unwrap()
            > 10_000
    );
    for f in 0..2 {
        assert!(
            s["flows"][f]["goodput_bps"].as_f64().unwrap() > 5e6,
            "flow {f}"
        );
    }
}

#[test]
fn results_do_not_depend_on_how_the_run_is_chunked() {
    // The Python API advances in 200 steps, `aqmlab bench` in 2, a test in 1: same result.
    let flows = bulk("s1", "r1", "cubic")
        + "[[flows]]\nkind = \"tcp\"\nfrom = \"s2\"\nto = \"r2\"\napp = \"web\"\nconns_per_s = 8.0\n";
    let text = dumbbell(2, "codel", "100p", &flows, "20s");
    let whole = run(&text);
    let mut s = scenario(&text);
    for k in 1..=137u64 {
        s.sim
            .run_until(SimTime::from_nanos(20_000_000_000 * k / 137));
    }
    let chunked = summary(&s.name, s.seed, &s.sim.report(), 0.0);
    assert_eq!(whole, chunked);
}
