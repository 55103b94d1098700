//! The measurements of `metrics.rs`, checked against identities: drops attributed to flows add
//! up to the links' drops, the time-integrated queue equals the sojourn times summed over the
//! packets (Little's law, exactly), the sojourn variance equals the packet log's, each bin's
//! capacity is the rate integrated over it, and the TCP window series follow the sender.

use aqmlab_core::SimTime;
use aqmlab_report::Report;
use aqmlab_sim::scenario::{build, Overrides, Scenario};
use aqmlab_sim::summary::summary;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn load(file: &str, ov: &Overrides) -> Scenario {
    let path = root().join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    build(&text, file, path.parent().unwrap(), "t", ov).unwrap_or_else(|e| panic!("{e}"))
}

fn text(t: &str, ov: &Overrides) -> Scenario {
    build(t, "t.toml", &root(), "t", ov).unwrap_or_else(|e| panic!("{e}"))
}

fn run(mut s: Scenario, until_s: u64) -> (Scenario, Report) {
    let end = (SimTime::ZERO + aqmlab_core::SimDuration::from_secs(until_s))
        .min(SimTime::ZERO + s.duration);
    s.sim.run_until(end);
    let r = s.sim.report();
    (s, r)
}

#[test]
fn drops_marks_and_arrivals_attributed_to_flows_add_up_to_the_links() {
    // ECN marks, wire loss, web, UDP and a finite transfer; and the dynamic link's drops.
    for (file, secs) in [
        ("tests/reference/scenarios/mixed.toml", 20),
        ("scenarios/codel-dynamic-link.toml", 110),
        ("scenarios/web-overload.toml", 5),
    ] {
        let (_, r) = run(load(file, &Overrides::default()), secs);
        let mut any_drop = false;
        for (li, l) in r.links.iter().enumerate() {
            let here = || {
                r.flows
                    .iter()
                    .filter_map(move |f| f.at_links.iter().find(|(k, _)| *k as usize == li))
                    .map(|(_, c)| c)
            };
            let sum = |f: fn(&aqmlab_report::FlowAtLink) -> u64| here().map(f).sum::<u64>();
            assert_eq!(
                sum(|c| c.arrived_pkts),
                l.m.enqueued_pkts,
                "{file} {}: arrivals",
                l.name
            );
            assert_eq!(
                sum(|c| c.arrived_bytes),
                l.m.ingress_bytes,
                "{file} {}: bytes",
                l.name
            );
            assert_eq!(
                sum(|c| c.dropped_pkts),
                l.m.dropped_pkts,
                "{file} {}: drops",
                l.name
            );
            assert_eq!(
                sum(|c| c.marked_pkts),
                l.m.marked_pkts,
                "{file} {}: marks",
                l.name
            );
            assert_eq!(
                sum(|c| c.lost_pkts),
                l.m.lost_pkts,
                "{file} {}: losses",
                l.name
            );
            for (k, &n) in l.m.drops_by_reason.iter().enumerate() {
                let got: u64 = here().map(|c| c.drops_by_reason()[k]).sum();
                assert_eq!(got, n, "{file} {}: drops by reason {k}", l.name);
            }
            for (k, &n) in l.m.marks_by_reason.iter().enumerate() {
                let got: u64 = here().map(|c| c.marks_by_reason()[k]).sum();
                assert_eq!(got, n, "{file} {}: marks by reason {k}", l.name);
            }
            any_drop |= l.m.dropped_pkts > 0;
        }
        assert!(any_drop, "{file}: the check needs drops");
        // A flow's drops anywhere are its drops and losses at every link direction.
        for (i, f) in r.flows.iter().enumerate() {
            let at: u64 = f
                .at_links
                .iter()
                .map(|(_, c)| c.dropped_pkts + c.lost_pkts)
                .sum();
            assert_eq!(at, f.dropped_pkts, "{file}: flows[{i}]");
        }
    }
}

/// A UDP overload through a tail-drop bottleneck that stops at 2 s and drains before the end.
const OVERLOAD: &str = r#"
duration = "3s"
bin = "100ms"
[dumbbell]
senders = 2
access_rate = "100Mbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
schedule = [["0s", "10Mbps"], ["1.05s", "4Mbps"]]
delay = "10ms"
qdisc = "droptail"
buffer = "150p"
[[flows]]
kind = "udp"
from = "s1"
to = "r1"
rate = "8Mbps"
size = 1000
stop = "2s"
[[flows]]
kind = "udp"
from = "s2"
to = "r2"
rate = "3Mbps"
size = 1500
stop = "2s"
"#;

#[test]
fn the_time_integrated_queue_is_the_sum_of_the_sojourn_times() {
    let ov = Overrides {
        packet_log: vec!["bottleneck".into()],
        ..Overrides::default()
    };
    let (s, r) = run(text(OVERLOAD, &ov), 3);
    let li = r.links.iter().position(|l| l.name == "bottleneck").unwrap();
    let rows = &r.link_rows[li];
    let log = s
        .sim
        .packet_logs()
        .find(|(n, _)| *n == "bottleneck")
        .unwrap()
        .1;
    assert_eq!(r.links[li].backlog_pkts, 0, "the queue has drained");
    assert!(r.links[li].m.dropped_pkts > 0 && log.len() > 1000);
    // Little's law, exactly: each packet adds its sojourn to the backlog's integral (tail drop
    // refuses a packet before it is queued, so drops add nothing).
    let area_pkt: u128 = rows.iter().map(|b| b.queue_pkt_ns).sum();
    let area_byte: u128 = rows.iter().map(|b| b.queue_byte_ns).sum();
    let soj: u128 = log.iter().map(|p| p.sojourn_ns as u128).sum();
    let soj_bytes: u128 = log
        .iter()
        .map(|p| p.sojourn_ns as u128 * p.size as u128)
        .sum();
    assert_eq!(area_pkt, soj);
    assert_eq!(area_byte, soj_bytes);
    // Per bin, the mean queue lies between 0 and the bin's largest backlog.
    let bin_ns = r.bin.as_nanos() as u128;
    for b in rows {
        assert!(b.queue_pkt_ns <= b.max_backlog_pkts as u128 * bin_ns);
        assert!(b.queue_byte_ns <= b.max_backlog_bytes as u128 * bin_ns);
    }
    // A full queue of 150 packets through the 4 Mb/s phase: the mean is near the limit.
    let mean_15 = rows[15].queue_pkt_ns as f64 / bin_ns as f64;
    assert!((140.0..=150.0).contains(&mean_15), "{mean_15}");

    // The sojourn variance is that of the logged sojourns (the log has every released packet).
    let n = log.len() as f64;
    let mean = log.iter().map(|p| p.sojourn_ns as f64).sum::<f64>() / n;
    let var = log
        .iter()
        .map(|p| (p.sojourn_ns as f64 - mean) * (p.sojourn_ns as f64 - mean))
        .sum::<f64>()
        / n;
    let got = r.links[li].m.sojourn_moments.variance();
    assert!((got - var).abs() <= 1e-9 * var, "{got} vs {var}");
    let sm = summary("t", 1, &r, 0.0);
    let b = &sm["links"]["bottleneck"];
    let std_ms = b["sojourn_ms"]["std"].as_f64().unwrap();
    assert!((std_ms - var.sqrt() / 1e6).abs() < 1e-6, "{std_ms}");
    assert!((b["sojourn_var_ms2"].as_f64().unwrap() - var / 1e12).abs() < 1e-6 * var / 1e12);

    // Capacity per bin: 10 Mb/s, then 4 Mb/s from 1.05 s (the bin [1.0, 1.1) holds both).
    assert_eq!(rows[0].capacity_bits, 1_000_000);
    assert_eq!(rows[10].capacity_bits, 500_000 + 200_000);
    assert_eq!(rows[20].capacity_bits, 400_000);
    let total: u64 = rows.iter().map(|b| b.capacity_bits).sum();
    assert_eq!(total, 10_000_000 * 105 / 100 + 4_000_000 * 195 / 100);
}

#[test]
fn window_series_follow_the_sender() {
    // Two bulk flows: one through a large buffer (no loss within 3 s), one through a lossy link.
    let t = r#"
duration = "3s"
nodes = ["a", "b", "c", "d"]
[[links]]
name = "clean"
from = "a"
to = "b"
rate = "10Mbps"
delay = "10ms"
buffer = "10000p"
[[links]]
name = "lossy"
from = "c"
to = "d"
rate = "10Mbps"
delay = "10ms"
buffer = "10000p"
loss = 0.02
[[flows]]
kind = "tcp"
from = "a"
to = "b"
cc = "reno"
initial_cwnd = 10
[[flows]]
kind = "tcp"
from = "c"
to = "d"
cc = "reno"
"#;
    let (_, r) = run(text(t, &Overrides::default()), 3);
    let clean = &r.flow_rows[0];
    let lossy = &r.flow_rows[1];
    // No reduction yet: the slow-start threshold is unset, so never sampled.
    assert!(clean.iter().all(|b| b.ssthresh_samples == 0));
    assert!(lossy.iter().any(|b| b.ssthresh_samples > 0));
    // Slow start: the mean window grows from bin to bin while it lasts, from at least the
    // initial window (10 segments of 1448 bytes).
    let mean = |b: &aqmlab_report::FlowBin| b.cwnd_sum_bytes as f64 / b.acks as f64;
    let active: Vec<f64> = clean.iter().filter(|b| b.acks > 0).map(mean).collect();
    assert!(active[0] >= 10.0 * 1448.0, "{active:?}");
    assert!(active.windows(2).take(5).all(|w| w[1] > w[0]), "{active:?}");
    // An ACK per bin sample: srtt is sampled at the same ACKs once measured.
    for b in clean.iter().chain(lossy) {
        assert!(b.srtt_samples <= b.acks);
    }
}

#[test]
fn a_lone_udp_flow_sees_propagation_plus_transmission_delay() {
    // 1000-byte datagrams: 8 µs at 1 Gb/s on each access link, 800 µs at 10 Mb/s on the
    // bottleneck; 2 + 10 + 3 ms of propagation. At 1 Mb/s nothing ever waits.
    let t = r#"
duration = "2s"
[dumbbell]
senders = 1
access_rate = "1Gbps"
sender_delay = "2ms"
receiver_delay = "3ms"
[dumbbell.bottleneck]
rate = "10Mbps"
delay = "10ms"
qdisc = "codel"
[[flows]]
kind = "udp"
from = "s1"
to = "r1"
rate = "1Mbps"
size = 1000
stop = "1.5s"
"#;
    let (_, r) = run(text(t, &Overrides::default()), 2);
    let rx = &r.flows[0].receiver;
    let want = 2_000_000 + 8_000 + 10_000_000 + 800_000 + 3_000_000 + 8_000;
    assert_eq!(rx.received_pkts, 188); // sent at 0, 8, ..., 1496 ms
    assert_eq!(rx.delay_ns.max(), want as f64);
    assert_eq!(rx.delay_ns.mean(), want as f64);
    assert_eq!(rx.delay_moments.variance(), 0.0);
    assert_eq!(rx.jitter_ns, 0.0);
    assert_eq!((rx.sent_pkts, rx.lost_pkts), (rx.received_pkts, 0));
    let s = summary("t", 1, &r, 0.0);
    let f = &s["flows"][0];
    assert_eq!(
        f["one_way_delay_ms"]["p50"].as_f64().unwrap(),
        want as f64 / 1e6
    );
    assert_eq!(f["loss_rate"].as_f64().unwrap(), 0.0);
    assert_eq!(f["jitter_ms"].as_f64().unwrap(), 0.0);
}

#[test]
fn receivers_count_every_data_packet_sent_as_received_or_lost() {
    // The overload drains by the end: nothing is in flight, so sent = received + lost, and the
    // losses are the drops (UDP has no ACKs). Jitter follows RFC 3550 over the arrivals.
    let ov = Overrides {
        packet_log: vec!["bottleneck".into()],
        ..Overrides::default()
    };
    let (_, r) = run(text(OVERLOAD, &ov), 3);
    for f in &r.flows[..2] {
        let rx = &f.receiver;
        assert!(rx.lost_pkts > 0);
        assert_eq!(rx.sent_pkts, rx.received_pkts + rx.lost_pkts);
        assert_eq!(rx.lost_pkts, f.dropped_pkts);
        assert_eq!(rx.sent_pkts, f.sent_pkts);
        assert!(rx.jitter_ns > 0.0);
        // Queueing adds to the one-way delay: the largest is at least the full queue's wait.
        assert!(rx.delay_ns.max() > 100e6, "{}", rx.delay_ns.max());
    }
    // TCP: the finite transfer's segments and ACKs; its receiver counts segments only.
    let (_, r) = run(
        load(
            "tests/reference/scenarios/mixed.toml",
            &Overrides::default(),
        ),
        20,
    );
    for (i, f) in r.flows.iter().enumerate() {
        let rx = &f.receiver;
        assert!(rx.received_pkts > 0);
        assert!(
            rx.received_pkts + rx.lost_pkts <= rx.sent_pkts,
            "flows[{i}]"
        );
        if r.flow_info[i].kind == "udp" {
            assert_eq!(rx.sent_pkts, f.sent_pkts);
        } else {
            // Its ACKs are sent too, but are not data.
            assert!(rx.sent_pkts < f.sent_pkts, "flows[{i}]");
        }
    }
}

#[test]
fn the_packet_log_records_every_drop_with_its_reason_and_flow() {
    let ov = Overrides {
        packet_log: vec!["bottleneck".into()],
        ..Overrides::default()
    };
    let (s, r) = run(text(OVERLOAD, &ov), 3);
    let (s2, r2) = run(load("tests/reference/scenarios/mixed.toml", &ov), 20);
    for (s, r) in [(&s, &r), (&s2, &r2)] {
        let li = r.links.iter().position(|l| l.name == "bottleneck").unwrap();
        let l = &r.links[li];
        let drops = s
            .sim
            .drop_logs()
            .find(|(n, _)| *n == "bottleneck")
            .unwrap()
            .1;
        let wire = drops.iter().filter(|d| d.reason.is_none()).count() as u64;
        assert_eq!(drops.len() as u64, l.m.dropped_pkts + l.m.lost_pkts);
        assert_eq!(wire, l.m.lost_pkts);
        for reason in aqmlab_qdisc::DropReason::ALL {
            let n = drops.iter().filter(|d| d.reason == Some(*reason)).count() as u64;
            assert_eq!(n, l.m.drops_by_reason[reason.index()], "{reason:?}");
        }
        for (i, f) in r.flows.iter().enumerate() {
            let n = drops
                .iter()
                .filter(|d| d.flow == i as u32 && d.reason.is_some())
                .count();
            let at = f
                .at_links
                .iter()
                .find(|(k, _)| *k as usize == li)
                .map(|(_, c)| c.dropped_pkts);
            assert_eq!(n as u64, at.unwrap_or(0), "flows[{i}]");
        }
        assert!(drops.windows(2).all(|w| w[0].t_ns <= w[1].t_ns));
    }
    // Tail drop refuses a packet before it is queued: no time in the queue.
    let drops = s.sim.drop_logs().next().unwrap().1;
    assert!(!drops.is_empty() && drops.iter().all(|d| d.sojourn_ns == 0));
}

/// `sc` run to its end through its measurement windows.
fn run_windows(mut sc: Scenario) -> (Scenario, serde_json::Value) {
    let mut w = aqmlab_sim::windows::Windows::new(sc.windows.clone());
    let end = SimTime::ZERO + sc.duration;
    // In uneven steps, some ending on window edges, some across them.
    for s in [0.3, 1.0, 2.5, 2.5, 4.0, 7.77, 10.0, 30.0] {
        let t = SimTime::ZERO + aqmlab_core::SimDuration::from_secs_f64(s);
        w.run_until(&mut sc.sim, t.min(end));
    }
    w.run_until(&mut sc.sim, end);
    let v = w.summary(&sc.sim.totals());
    (sc, v)
}

#[test]
fn a_window_from_zero_equals_the_run_cut_at_its_end() {
    let base =
        std::fs::read_to_string(root().join("tests/reference/scenarios/mixed.toml")).unwrap();
    let windowed = format!(
        "{base}\n[[windows]]\nname = \"first\"\nfrom = \"0s\"\nto = \"7.5s\"\n\n[[windows]]\nname = \"mid\"\nfrom = \"2.5s\"\nto = \"10s\"\n"
    );
    let ov = Overrides {
        packet_log: vec!["bottleneck".into()],
        ..Overrides::default()
    };
    let (sc, w) = run_windows(text(
        &windowed.replace("duration = \"20s\"", "duration = \"12s\""),
        &ov,
    ));
    let cut = text(
        &base.replace("duration = \"20s\"", "duration = \"7.5s\""),
        &ov,
    );
    let (_, r) = run(cut, 8);
    let s = summary("t", 1, &r, 0.0);
    let first = &w["first"];
    for (name, l) in s["links"].as_object().unwrap() {
        let wl = &first["links"][name];
        assert_eq!(wl["sojourn_ms"], l["sojourn_ms"], "{name}: sojourn");
        for k in [
            "enqueued_pkts",
            "delivered_pkts",
            "delivered_bytes",
            "dropped_pkts",
            "marked_pkts",
            "lost_pkts",
            "drops_by_reason",
            "marks_by_reason",
            "utilization",
        ] {
            assert_eq!(wl[k], l[k], "{name}: {k}");
        }
    }
    for (i, f) in s["flows"].as_array().unwrap().iter().enumerate() {
        assert_eq!(
            first["flows"][i]["delivered_bytes"], f["delivered_bytes"],
            "flows[{i}]"
        );
        assert_eq!(
            first["flows"][i]["dropped_pkts"], f["dropped_pkts"],
            "flows[{i}]"
        );
    }
    // A window inside the run: its sojourn times are those the log has for its span.
    let log = sc.sim.packet_logs().next().unwrap().1;
    let inside: Vec<u64> = log
        .iter()
        .filter(|p| (2_500_000_000..10_000_000_000).contains(&p.t_ns))
        .map(|p| p.sojourn_ns)
        .collect();
    let mid = &w["mid"]["links"]["bottleneck"];
    assert_eq!(mid["released_pkts"].as_u64().unwrap(), inside.len() as u64);
    let mean = inside.iter().sum::<u64>() as f64 / inside.len() as f64;
    assert!((mid["sojourn_ms"]["mean"].as_f64().unwrap() - mean / 1e6).abs() < 1e-6);
    let max = *inside.iter().max().unwrap() as f64;
    assert_eq!(mid["sojourn_ms"]["max"].as_f64().unwrap(), max / 1e6);
    assert_eq!(w["mid"]["from_s"], 2.5);
    assert_eq!(w["mid"]["to_s"], 10.0);
}

#[test]
fn windows_are_checked_and_resolved() {
    let base =
        std::fs::read_to_string(root().join("tests/reference/scenarios/mixed.toml")).unwrap();
    let bad = |extra: &str| {
        build(
            &format!("{base}\n{extra}"),
            "t.toml",
            &root(),
            "t",
            &Overrides::default(),
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
    };
    let e = bad("[[windows]]\nname = \"w\"\nfrom = \"5s\"\nto = \"5s\"");
    assert!(
        e.contains("windows[0].to: expected the window to end after it starts"),
        "{e}"
    );
    let e = bad("[[windows]]\nname = \"w\"\nfrom = \"5s\"\nto = \"21s\"");
    assert!(
        e.contains("windows[0].to: expected a window within the run (duration 20s)"),
        "{e}"
    );
    let e = bad("[[windows]]\nname = \"w\"\nfrom = \"1s\"\nto = \"2s\"\n[[windows]]\nname = \"w\"\nfrom = \"1s\"\nto = \"2s\"");
    assert!(
        e.contains("windows[1].name: window name \"w\" is used twice"),
        "{e}"
    );
    let warm = base.replace("duration = \"20s\"", "duration = \"20s\"\nwarmup = \"20s\"");
    let e = build(&warm, "t.toml", &root(), "t", &Overrides::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("warmup: expected a warm-up shorter than the duration (20s)"),
        "{e}"
    );
    // A warm-up and a window go into the resolved file, and come back from it.
    let ok = format!(
        "{}\n[[windows]]\nname = \"w\"\nfrom = \"1s\"\nto = \"2s\"\n",
        base.replace("duration = \"20s\"", "duration = \"20s\"\nwarmup = \"5s\"")
    );
    let a = build(&ok, "t.toml", &root(), "t", &Overrides::default()).unwrap();
    assert_eq!(a.windows.len(), 2);
    assert_eq!(a.windows[0].name, "after_warmup");
    let b = build(&a.resolved, "r.toml", &root(), "t", &Overrides::default()).unwrap();
    assert_eq!(a.windows, b.windows);
}
