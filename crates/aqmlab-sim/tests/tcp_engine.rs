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

/// One web exchange from server s1 to client r1: a request of `request` bytes, a response of
/// exactly `response` bytes (lognormal with σ = 0), no further requests (`stop` before the
/// next arrival).
fn one_web_exchange(request: &str, response: &str, extra: &str) -> String {
    format!(
        "[[flows]]\nkind = \"tcp\"\nfrom = \"s1\"\nto = \"r1\"\napp = \"web\"\nconns_per_s = 0.001\nstop = \"1ms\"\nrequest_size = \"{request}\"\nsize_dist = \"lognormal\"\nsize_sigma = 0.0\nsize_mean = \"{response}\"\n{extra}"
    )
}

#[test]
fn one_packet_web_exchange_matches_the_formula() {
    // The client (r1) opens the connection, the server (s1) answers a 100-B request with a
    // 100-B response. Every link is idle, so, one way (1 ms + 20 ms + 1 ms of propagation):
    // a 40-B control packet takes c = 22 ms + 2·320 ns + 32 µs, a 140-B data packet
    // d = 22 ms + 2·1.12 µs + 112 µs. SYN (c), SYN-ACK (c), the request carrying the handshake
    // ACK (d), the response, sent as soon as the request is in (d), and its ACK (c), which
    // completes the exchange at the server: FCT = 3c + 2d. The server's ACK of the request
    // leaves behind the response and delays nothing. With delayed ACKs the client holds the
    // ACK of the lone response segment for the 40-ms timer; the server's delayed ACK of the
    // request goes out with the response instead of waiting.
    let c: u64 = 22_000_000 + 2 * 320 + 32_000;
    let d: u64 = 22_000_000 + 2 * 1_120 + 112_000;
    for (delayed_ack, expected) in [(false, 3 * c + 2 * d), (true, 3 * c + 2 * d + 40_000_000)] {
        let flow = one_web_exchange("100B", "100B", &format!("delayed_ack = {delayed_ack}\n"));
        let mut sc = scenario(&dumbbell(1, "droptail", "100p", &flow, "2s"));
        sc.sim.run_until(SimTime::ZERO + sc.duration);
        let r = sc.sim.report();
        let m = &r.flows[0];
        assert_eq!((m.transfers_started, m.transfers_completed), (1, 1));
        assert_eq!(m.fct_ns.count(), 1);
        assert_eq!(
            m.fct_ns.max(),
            expected as f64,
            "delayed_ack = {delayed_ack}"
        );
        assert_eq!(m.fct_ns.mean(), expected as f64);
        assert_eq!(
            expected,
            if delayed_ack {
                150_326_400
            } else {
                110_326_400
            }
        );
        // Goodput counts the response only; every packet of both legs is counted.
        assert_eq!(m.delivered_bytes, 100);
        // SYN, request, response ACK; SYN-ACK, request ACK, response.
        assert_eq!((m.sent_pkts, m.delivered_pkts, m.dropped_pkts), (6, 6, 0));
        assert_eq!(m.retransmits, 0);
        // A smoothed RTT after each ACK a sender receives: the client's SYN-ACK and request
        // ACK, the server's response ACK. Without delayed ACKs the largest is the server's:
        // SYN-ACK → request (c + d) seeded its estimator and the response's sample is c + d.
        assert_eq!(m.srtt_ns.count(), 3);
        if !delayed_ack {
            assert_eq!(m.srtt_ns.max(), (c + d) as f64);
        }
        assert_eq!(sc.sim.tcp_connections_open(), 0);
    }
    // The delayed-ACK timer is what the client holds the response's ACK for: ns-3's 200 ms.
    let flow = one_web_exchange(
        "100B",
        "100B",
        "delayed_ack = true\ndelack_timeout = \"200ms\"\n",
    );
    let mut sc = scenario(&dumbbell(1, "droptail", "100p", &flow, "2s"));
    sc.sim.run_until(SimTime::ZERO + sc.duration);
    assert_eq!(
        sc.sim.report().flows[0].fct_ns.max(),
        (3 * c + 2 * d + 200_000_000) as f64
    );
}

#[test]
fn web_requests_travel_client_to_server_and_responses_back() {
    // Server s1, client r1. A 3000-B request (1460 + 1460 + 80) and a 5000-B response
    // (3 × 1460 + 620), no delayed ACKs. The client → server direction of the bottleneck
    // (`bottleneck.rev`) carries the SYN, the request and the response's ACKs; the server →
    // client direction carries the SYN-ACK, the request's ACKs and the response, the last
    // request ACK behind the response (it stands in for the ACK a server piggybacks on it).
    let flow = one_web_exchange("3000B", "5000B", "delayed_ack = false\n");
    let text = dumbbell(1, "droptail", "100p", &flow, "2s");
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let ov = Overrides {
        packet_log: vec!["bottleneck".into(), "bottleneck.rev".into()],
        ..Overrides::default()
    };
    let mut sc = build(&text, "t.toml", dir, "t", &ov).unwrap();
    sc.sim.run_until(SimTime::ZERO + sc.duration);
    let sizes = |name: &str| -> Vec<u32> {
        let (_, log) = sc.sim.packet_logs().find(|(n, _)| *n == name).unwrap();
        log.iter().map(|p| p.size).collect()
    };
    assert_eq!(
        sizes("bottleneck.rev"),
        [40, 1500, 1500, 120, 40, 40, 40, 40],
        "client → server"
    );
    assert_eq!(
        sizes("bottleneck"),
        [40, 40, 40, 1500, 1500, 1500, 660, 40],
        "server → client"
    );
    let r = sc.sim.report();
    let m = &r.flows[0];
    assert_eq!((m.transfers_started, m.transfers_completed), (1, 1));
    assert_eq!(m.delivered_bytes, 5000, "goodput is the response");
    assert_eq!((m.sent_pkts, m.delivered_pkts), (16, 16));
    let link = |name: &str| r.links.iter().find(|l| l.name == name).unwrap();
    assert_eq!(link("bottleneck.rev").m.enqueued_pkts, 8);
    assert_eq!(
        link("bottleneck.rev").m.ingress_bytes,
        40 + 1500 + 1500 + 120 + 4 * 40
    );
}

#[test]
fn web_exchanges_with_ecn_and_multi_segment_requests_are_deterministic() {
    // Requests of several segments, ECN negotiated on every connection, CoDel marking both
    // directions, a bulk flow to congest: two runs give the same summary, chunked or not.
    let flows = format!(
        "{}ecn = true\n[[flows]]\nkind = \"tcp\"\nfrom = \"s2\"\nto = \"r2\"\napp = \"web\"\nconns_per_s = 10.0\nsize_mean = \"30KB\"\nrequest_size = \"4KB\"\necn = true\n",
        bulk("s1", "r1", "cubic")
    );
    let text = dumbbell(2, "codel", "100p", &flows, "20s").replace(
        "buffer = \"100p\"",
        "buffer = \"100p\"\nparams = { ecn = true }",
    );
    let a = run(&text);
    let b = run(&text);
    assert_eq!(a, b);
    let mut s = scenario(&text);
    for k in 1..=53u64 {
        s.sim
            .run_until(SimTime::from_nanos(20_000_000_000 * k / 53));
    }
    assert_eq!(a, summary(&s.name, s.seed, &s.sim.report(), 0.0));
    let web = &a["flows"][1];
    let done = web["transfers_completed"].as_u64().unwrap();
    assert!(done > 150, "{web}");
    assert!(a["links"]["bottleneck"]["marked_pkts"].as_u64().unwrap() > 0);
    // The requests (4 KB each) load the client → server direction.
    let rev = a["links"]["bottleneck.rev"]["delivered_bytes"]
        .as_u64()
        .unwrap();
    assert!(rev > done * 4000, "{rev}");
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
        // Isolated random losses are repaired by fast recovery, one episode per loss event
        // (a window can hold several), never more episodes than losses.
        let f = &s["flows"][0];
        let episodes = f["fast_recoveries"].as_u64().unwrap();
        assert!(
            episodes > lost / 4 && episodes <= lost,
            "p={p}: {episodes} of {lost}"
        );
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

#[test]
fn web_connections_over_a_dead_path_give_up_and_are_freed() {
    // The client → server direction loses (almost) every packet, so no SYN arrives: each
    // connection gives up when its 6th SYN retransmission times out, 123 s after it opened
    // (1 + 2 + 4 + 8 + 16 + 32 + 60 s). Open connections stay bounded by the arrival rate times
    // those 123 s instead of growing with the run.
    let text = r#"
duration = "400s"
[dumbbell]
senders = 1
access_rate = "1Gbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
rate = "10Mbps"
delay = "20ms"
buffer = "100p"
reverse = { loss = 0.999999 }
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
app = "web"
conns_per_s = 5.0
size_mean = "10KB"
"#;
    let mut sc = scenario(text);
    let mut most_open = 0;
    for t in 1..=400 {
        sc.sim.run_until(SimTime::from_secs(t));
        most_open = most_open.max(sc.sim.tcp_connections_open());
    }
    let s = summary(&sc.name, sc.seed, &sc.sim.report(), 0.0);
    let f = &s["flows"][0];
    let started = f["transfers_started"].as_u64().unwrap();
    let failed = f["transfers_failed"].as_u64().unwrap();
    assert_eq!(f["transfers_completed"].as_u64().unwrap(), 0);
    // A failed connection timed out 7 times (6 retransmissions, then the final expiry).
    let timeouts = f["timeouts"].as_u64().unwrap();
    assert!(
        timeouts >= 7 * failed && timeouts < 7 * started,
        "{timeouts}"
    );
    assert_eq!(f["fast_recoveries"].as_u64().unwrap(), 0);
    // Poisson(5/s): about 2000 started; those opened before 277 s have given up by 400 s.
    assert!((1800..=2200).contains(&started), "{started}");
    assert!(
        failed + 5 * 123 + 150 >= started && failed < started,
        "{failed} failed of {started}"
    );
    // At most about 5/s × 123 s open at once (plus Poisson spread).
    assert!(most_open <= 800, "{most_open} connections open at once");
    assert_eq!(sc.sim.tcp_connections_open() as u64, started - failed);
}

#[test]
fn a_bulk_flow_keeps_retrying_its_syn_through_a_long_outage() {
    // The bottleneck is down (rate 0) for the first 200 s, longer than the 123 s a web client
    // waits for a SYN-ACK: a bulk flow keeps retrying (every 60 s once the RTO is capped),
    // connects when the link comes back, and moves data; nothing counts as failed.
    let text = r#"
duration = "300s"
[dumbbell]
senders = 1
access_rate = "1Gbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
schedule = [["0s", "0bps"], ["200s", "10Mbps"]]
delay = "20ms"
buffer = "100p"
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
cc = "newreno"
"#;
    let s = run(text);
    let f = &s["flows"][0];
    assert_eq!(f["transfers_failed"].as_u64().unwrap(), 0);
    assert!(
        f["delivered_bytes"].as_u64().unwrap() > 10_000_000,
        "{}",
        f["delivered_bytes"]
    );

    // With `syn_retries = 2` the same flow gives up: its SYN goes at 0 s and again at 1 s and
    // 3 s (RTO 1 s, doubled), and the third expiry, at 7 s, ends it. Nothing is delivered.
    let give_up = format!("{text}syn_retries = 2\n");
    let mut sc = scenario(&give_up);
    sc.sim.run_until(SimTime::from_millis(6_999));
    assert_eq!(sc.sim.tcp_connections_open(), 1, "still trying at 6.999 s");
    sc.sim.run_until(SimTime::from_millis(7_001));
    assert_eq!(sc.sim.tcp_connections_open(), 0, "given up at 7 s");
    sc.sim.run_until(SimTime::from_secs(300));
    let s = summary(&sc.name, sc.seed, &sc.sim.report(), 0.0);
    let f = &s["flows"][0];
    assert_eq!(f["transfers_failed"].as_u64().unwrap(), 1);
    assert_eq!(f["timeouts"].as_u64().unwrap(), 3);
    assert_eq!(f["delivered_bytes"].as_u64().unwrap(), 0);
}

#[test]
fn syn_retries_must_be_a_count_from_0_to_127() {
    let flow = |v: &str| format!("{}syn_retries = {v}\n", bulk("s1", "r1", "newreno"));
    let load = |v: &str| {
        let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let text = dumbbell(1, "droptail", "100p", &flow(v), "1s");
        build(&text, "t.toml", dir, "t", &Overrides::default()).map_err(|e| e.to_string())
    };
    for ok in ["0", "6", "127"] {
        assert!(load(ok).is_ok(), "{ok}");
    }
    let range = "expected a number of SYN retransmissions from 0 to 127, got";
    for (bad, why) in [
        ("128", format!("{range} 128")),
        ("-1", format!("{range} -1")),
        ("1.5", "invalid type".to_string()),
        // Without a handshake there is no SYN: the key would be ignored, so it is refused.
        (
            "2\nhandshake = false",
            "syn_retries needs handshake = true".to_string(),
        ),
    ] {
        let e = load(bad)
            .err()
            .unwrap_or_else(|| panic!("{bad} was accepted"));
        assert!(
            e.contains("flows[0].syn_retries") && e.contains(&why),
            "{e}"
        );
    }
}

/// An idle tail-drop link passes a packet across its empty queue without calling the discipline
/// (`Qdisc::pass_through`). RED whose thresholds are never reached behaves as tail drop but
/// takes no shortcut, so a run with either at the bottleneck must report the same numbers.
#[test]
fn idle_link_shortcut_changes_nothing_a_report_shows() {
    let flows = format!(
        "{}{}[[flows]]\nkind = \"tcp\"\nfrom = \"s2\"\nto = \"r2\"\napp = \"web\"\nconns_per_s = 5.0\nsize_mean = \"30KB\"\n",
        bulk("s1", "r1", "newreno"),
        bulk("r2", "s2", "cubic"),
    );
    let plain = run(&dumbbell(2, "droptail", "60p", &flows, "20s"));
    let red = dumbbell(2, "red", "60p", &flows, "20s").replace(
        "buffer = \"60p\"",
        "buffer = \"60p\"\nparams = { min_th = 100000, max_th = 300000 }",
    );
    let red = run(&red);
    assert_eq!(plain["flows"], red["flows"]);
    assert_eq!(plain["fairness"], red["fairness"]);
    for (name, a) in plain["links"].as_object().unwrap() {
        let b = &red["links"][name];
        for key in [
            "sojourn_ms",
            "enqueued_pkts",
            "delivered_pkts",
            "dropped_pkts",
            "marked_pkts",
            "delivered_bytes",
            "utilization",
        ] {
            assert_eq!(a[key], b[key], "{name}.{key}");
        }
    }
    // Both directions of the bottleneck queue and drop, so the full path ran as well as the
    // shortcut (every handshake crosses an idle bottleneck).
    for name in ["bottleneck", "bottleneck.rev"] {
        let l = &plain["links"][name];
        assert!(l["dropped_pkts"].as_u64().unwrap() > 0, "{name}");
        assert!(l["sojourn_ms"]["p50"].as_f64().unwrap() > 0.0, "{name}");
    }
}

/// The whole report (every total, every time series, `empty_dequeues`) and the packet logs of
/// bundled scenarios, shortened, with the idle-link shortcut on and off: they must be equal.
#[test]
fn idle_link_shortcut_leaves_whole_reports_and_packet_logs_unchanged() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    for (file, duration, logged) in [
        (
            "bulk-dumbbell",
            "4s",
            &["s1.access", "bottleneck", "bottleneck.rev"][..],
        ),
        (
            "codel-dynamic-link",
            "52s",
            &["s1.access", "r2.access.rev", "bottleneck"][..],
        ),
        ("red-bursty", "5s", &["n1", "n5.rev"][..]),
        (
            "cellular-trace",
            "10s",
            &["bottleneck", "bottleneck.rev"][..],
        ),
    ] {
        let path = root.join("scenarios").join(format!("{file}.toml"));
        let text = std::fs::read_to_string(&path).unwrap();
        let start = text.find("\nduration = \"").expect("a duration line") + 1;
        let end = start + text[start..].find('\n').unwrap();
        let text = format!(
            "{}duration = \"{duration}\"{}",
            &text[..start],
            &text[end..]
        );
        let run = |shortcut: bool| {
            let ov = Overrides {
                packet_log: logged.iter().map(|s| s.to_string()).collect(),
                ..Overrides::default()
            };
            let dir = root.join("scenarios");
            let mut s = build(&text, "t.toml", &dir, file, &ov).unwrap_or_else(|e| panic!("{e}"));
            s.sim.set_idle_shortcut(shortcut);
            // In two pieces, so the empty dequeue owed at the end of a piece is checked too.
            let third = aqmlab_core::SimDuration::from_nanos(s.duration.as_nanos() / 3);
            s.sim.run_until(SimTime::ZERO + third);
            s.sim.run_until(SimTime::ZERO + s.duration);
            let logs: Vec<String> = s.sim.packet_logs().map(|l| format!("{l:?}")).collect();
            (format!("{:?}", s.sim.report()), logs)
        };
        let (fast, slow) = (run(true), run(false));
        assert!(
            fast.1.iter().all(|l| l.len() > 100),
            "{file}: packets were logged"
        );
        assert!(fast.0 == slow.0, "{file}: the reports differ");
        assert!(fast.1 == slow.1, "{file}: the packet logs differ");
    }
}
