//! The measured one-way delay distribution (`[output] owd_distribution`, `Sim::measure_owd`)
//! checked against what it must equal: the receiver's own whole-run statistics (the same
//! samples), the path's constant delay (an idle path), the packet logs' sojourn times plus the
//! path's constant delay (queues, one or two in a row), and the path's least delay (a bound).
//! The last test is the counterfactual of the measurement: the distribution rebuilt from the
//! bottleneck's queue alone (what `aqmlab characterize` did before) is not it when another
//! queue on the path varies.

use aqmlab_core::SimTime;
use aqmlab_report::Report;
use aqmlab_sim::scenario::{build, Overrides, Scenario};
use aqmlab_sim::sketch::{QuantileSketch, REL_ERR};
use aqmlab_sim::summary::summary;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn run(t: &str) -> (Scenario, Report) {
    let mut s =
        build(t, "t.toml", &root(), "t", &Overrides::default()).unwrap_or_else(|e| panic!("{e}"));
    let end = SimTime::ZERO + s.duration;
    s.sim.run_until(end);
    let r = s.sim.report();
    (s, r)
}

fn sketch(r: &Report, flow: usize) -> &QuantileSketch {
    &r.owd.as_ref().expect("owd_distribution is on").1[flow][0]
}

/// The 101 levels characterize reports.
fn levels() -> impl Iterator<Item = f64> {
    (0..=100).map(|k| k as f64 / 100.0)
}

/// The sample of rank floor(q·(n−1)) of `sorted` (the sketch's rank rule).
fn exact(sorted: &[u64], q: f64) -> f64 {
    sorted[(q * (sorted.len() - 1) as f64).floor() as usize] as f64
}

/// Serialization of `bytes` at `bps`, ns.
fn tx_ns(bytes: u64, bps: u64) -> u64 {
    bytes * 8 * 1_000_000_000 / bps
}

/// A chain a -> b -> c of `ab` and `bc` (rate, delay; tail drop, 2000-packet buffers, or 200
/// with `rest` naming TCP flows), then `rest` (run keys, flows, output).
fn chain(ab: (&str, &str), bc: (&str, &str), rest: &str) -> String {
    let buffer = if rest.contains("tcp") { 200 } else { 2000 };
    format!(
        r#"name = "owd"
nodes = ["a", "b", "c"]
seed = 3
{rest}
[[links]]
name = "ab"
from = "a"
to = "b"
rate = "{}"
delay = "{}"
qdisc = "droptail"
buffer = "{buffer}p"

[[links]]
name = "bc"
from = "b"
to = "c"
rate = "{}"
delay = "{}"
qdisc = "droptail"
buffer = "{buffer}p"
"#,
        ab.0, ab.1, bc.0, bc.1
    )
}

#[test]
fn constant_rate_udp_on_an_idle_path_has_the_paths_constant_delay_at_every_quantile() {
    // 1 Mb/s of 1000-byte datagrams over 10 and 100 Mb/s: never a queue, so every packet takes
    // 7 + 3 ms of propagation and 0.8 + 0.08 ms of serialization.
    let t = chain(
        ("10Mbps", "7ms"),
        ("100Mbps", "3ms"),
        "duration = \"5s\"\nwarmup = \"1s\"\n[output]\nowd_distribution = true\n\
         [[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"1Mbps\"\nsize = 1000\n",
    );
    let (_, r) = run(&t);
    let d = (7_000_000 + 3_000_000 + tx_ns(1000, 10_000_000) + tx_ns(1000, 100_000_000)) as f64;
    let s = sketch(&r, 0);
    // One datagram every 8 ms for the 4 s after the warm-up.
    assert_eq!(s.count(), 500);
    assert_eq!((s.min(), s.max(), s.mean()), (d, d, d));
    for q in levels() {
        assert!((s.quantile(q) - d).abs() <= REL_ERR * d, "q {q}");
    }
}

#[test]
fn without_a_warm_up_the_sketch_is_the_receivers_own_and_with_one_its_tail() {
    // Two NewReno flows through a 10 Mb/s tail-drop bottleneck: a queue that varies.
    let flows = "[[flows]]\nkind = \"tcp\"\ncc = \"newreno\"\nfrom = \"a\"\nto = \"c\"\n\
                 [[flows]]\nkind = \"tcp\"\ncc = \"newreno\"\nfrom = \"a\"\nto = \"c\"\n\
                 start = \"0.5s\"\n[output]\nowd_distribution = true\n";
    let ab = ("1Gbps", "2ms");
    let bc = ("10Mbps", "20ms");
    let (_, r) = run(&chain(ab, bc, &format!("duration = \"8s\"\n{flows}")));
    for (i, f) in r.flows.iter().enumerate() {
        let (s, rx) = (sketch(&r, i), &f.receiver.delay_ns);
        assert_eq!(s.count(), f.receiver.received_pkts);
        assert!(s.count() > 500, "flow {i}: {}", s.count());
        assert_eq!(
            (s.mean(), s.min(), s.max()),
            (rx.mean(), rx.min(), rx.max())
        );
        for q in levels() {
            assert_eq!(s.quantile(q).to_bits(), rx.quantile(q).to_bits(), "q {q}");
        }
        assert!(s.max() > 2.0 * s.min(), "flow {i}: a queue that varies");
    }
    // With a warm-up: only the packets arriving after it, so fewer, and the least delay of a
    // data packet is at least the path's propagation and a full segment's serialization
    // (1500 bytes on the wire: bulk TCP sends only full segments).
    let (_, w) = run(&chain(
        ab,
        bc,
        &format!("duration = \"8s\"\nwarmup = \"3s\"\n{flows}"),
    ));
    let base = (22_000_000 + tx_ns(1500, 1_000_000_000) + tx_ns(1500, 10_000_000)) as f64;
    for (i, f) in w.flows.iter().enumerate() {
        let s = sketch(&w, i);
        assert!(
            s.count() > 200 && s.count() < f.receiver.received_pkts,
            "flow {i}"
        );
        assert!(s.min() >= base, "flow {i}: {} < {base}", s.min());
        assert!(s.min() >= f.receiver.delay_ns.min());
    }
    // The summary gives it, buckets and all: they count the packets.
    let j = summary("t", 3, &w, 0.0);
    let d = &j["flows"][0]["owd_distribution"];
    assert_eq!(d["from_s"], 3.0);
    let n: u64 = d["buckets_ns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b[2].as_u64().unwrap())
        .sum();
    assert_eq!(n, sketch(&w, 0).count());
    assert_eq!(d["pkts"].as_u64().unwrap(), n);
    // Off by default: no sketch, no summary key.
    let (_, off) = run(&chain(
        ab,
        bc,
        &format!(
            "duration = \"1s\"\n{}",
            flows.replace("owd_distribution = true", "")
        ),
    ));
    assert!(off.owd.is_none());
    assert!(summary("t", 3, &off, 0.0)["flows"][0]
        .get("owd_distribution")
        .is_none());
}

/// Flow `flow`'s sojourn times at link `link`, in the order its packets left the discipline.
fn sojourns(s: &Scenario, link: &str, flow: u32) -> Vec<u64> {
    let (_, log) = s.sim.packet_logs().find(|(n, _)| *n == link).unwrap();
    log.iter()
        .filter(|p| p.flow == flow)
        .map(|p| p.sojourn_ns)
        .collect()
}

/// The exact one-way delays `base + Σ sojourns` (one per packet, in order), sorted; and the
/// sketch's relation to them: same count and sum, every quantile within the error bound.
fn check_against(s: &QuantileSketch, exact_owd: &mut [u64]) {
    exact_owd.sort_unstable();
    assert_eq!(s.count(), exact_owd.len() as u64);
    let mean = exact_owd.iter().map(|&v| v as u128).sum::<u128>() as f64 / exact_owd.len() as f64;
    assert!(
        (s.mean() - mean).abs() <= 1e-9 * mean,
        "{} {mean}",
        s.mean()
    );
    assert_eq!(s.min(), exact_owd[0] as f64);
    for q in levels() {
        let e = exact(exact_owd, q);
        assert!(
            (s.quantile(q) - e).abs() <= REL_ERR * e,
            "q {q}: {} vs {e}",
            s.quantile(q)
        );
    }
}

#[test]
fn with_a_queue_each_delay_is_the_paths_constant_plus_the_bottlenecks_sojourn() {
    // 12 Mb/s of 1000-byte datagrams into 10 Mb/s for 2 s: a queue that grows to about 500
    // packets (within the buffer: no drop), then drains before the run ends. The 100 Mb/s first
    // link never queues (a datagram every 0.67 ms, 0.08 ms to send).
    let t = chain(
        ("100Mbps", "1ms"),
        ("10Mbps", "5ms"),
        "duration = \"4s\"\n[output]\nowd_distribution = true\npacket_log = [\"ab\", \"bc\"]\n\
         [[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"12Mbps\"\nsize = 1000\n\
         stop = \"2s\"\n",
    );
    let (sc, r) = run(&t);
    assert!(sojourns(&sc, "ab", 0).iter().all(|&v| v == 0));
    let base = 6_000_000 + tx_ns(1000, 100_000_000) + tx_ns(1000, 10_000_000);
    let mut owd: Vec<u64> = sojourns(&sc, "bc", 0).iter().map(|v| base + v).collect();
    assert!(owd.len() > 2900 && *owd.iter().max().unwrap() > base + 300_000_000);
    assert_eq!(r.links[2].m.dropped_pkts, 0);
    // Little's law's side: the mean delay above the path's constant is the mean sojourn.
    check_against(sketch(&r, 0), &mut owd);
}

#[test]
fn two_queues_in_a_row_are_measured_and_the_bottleneck_only_rebuild_is_not_it() {
    // Flow 0 crosses both links; cross traffic fills the first (flow 1, a -> b, 0.5-1.5 s) and
    // then the second (flow 2, b -> c, 2-3 s): each queue in turn, 6 + 6 Mb/s into 10 Mb/s
    // (no drop: about 250 packets at most).
    let t = chain(
        ("10Mbps", "2ms"),
        ("10Mbps", "10ms"),
        "duration = \"5s\"\n[output]\nowd_distribution = true\npacket_log = [\"ab\", \"bc\"]\n\
         [[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"6Mbps\"\nsize = 1000\n\
         stop = \"4s\"\n\
         [[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"b\"\nrate = \"6Mbps\"\nsize = 1000\n\
         start = \"0.5s\"\nstop = \"1.5s\"\n\
         [[flows]]\nkind = \"udp\"\nfrom = \"b\"\nto = \"c\"\nrate = \"6Mbps\"\nsize = 1000\n\
         start = \"2s\"\nstop = \"3s\"\n",
    );
    let (sc, r) = run(&t);
    assert_eq!(r.links[0].m.dropped_pkts + r.links[2].m.dropped_pkts, 0);
    let (q1, q2) = (sojourns(&sc, "ab", 0), sojourns(&sc, "bc", 0));
    assert_eq!(
        q1.len(),
        q2.len(),
        "no drop: the same packets, in order (FIFO)"
    );
    assert!(q1.iter().max() > Some(&50_000_000) && q2.iter().max() > Some(&50_000_000));
    let base = 12_000_000 + 2 * tx_ns(1000, 10_000_000);
    let mut owd: Vec<u64> = q1.iter().zip(&q2).map(|(a, b)| base + a + b).collect();
    let s = sketch(&r, 0);
    check_against(s, &mut owd);
    // The rebuild: the bottleneck's sojourn plus a constant that makes the mean the receiver's.
    let mean_q2 = q2.iter().sum::<u64>() as f64 / q2.len() as f64;
    let mut rebuilt: Vec<f64> = q2
        .iter()
        .map(|&v| v as f64 + (s.mean() - mean_q2))
        .collect();
    rebuilt.sort_by(f64::total_cmp);
    let worst = levels()
        .map(|q| {
            let e = rebuilt[(q * (rebuilt.len() - 1) as f64).floor() as usize];
            (s.quantile(q) - e).abs() / s.quantile(q)
        })
        .fold(0.0, f64::max);
    assert!(
        worst > 10.0 * REL_ERR,
        "the rebuild missed the first queue: {worst}"
    );
}

#[test]
fn a_web_flows_responses_and_requests_have_a_sketch_each() {
    // A web server at a, its client at c: the responses take a -> b -> c (30 ms of propagation),
    // the requests c -> b -> a over reverse directions of 1 + 2 ms. One sketch for both would
    // have the requests' least delay (about 3 ms) as the responses' D(min).
    let t = format!(
        "{}reverse = {{ delay = \"1ms\" }}\n",
        chain(
            ("100Mbps", "20ms"),
            ("10Mbps", "10ms"),
            "duration = \"10s\"\n[output]\nowd_distribution = true\n\
             [[flows]]\nkind = \"tcp\"\nfrom = \"a\"\nto = \"c\"\napp = \"web\"\n\
             interval = \"200ms\"\nsize_dist = \"constant\"\nsize_mean = \"20kB\"\n",
        )
        .replacen(
            "qdisc = \"droptail\"\nbuffer = \"200p\"\n",
            "qdisc = \"droptail\"\nbuffer = \"200p\"\nreverse = { delay = \"2ms\" }\n",
            1
        )
    );
    let (_, r) = run(&t);
    let [to_dst, to_src] = &r.owd.as_ref().unwrap().1[0];
    let f = &r.flows[0];
    let resp_base = (30_000_000 + tx_ns(1500, 100_000_000)) as f64;
    assert!(to_dst.min() >= resp_base, "{} < {resp_base}", to_dst.min());
    // Every packet the receivers count in one of them: 49 responses or more of 14 segments
    // (20,000 bytes), and as many requests (with their SYNs).
    assert_eq!(to_dst.count() + to_src.count(), f.receiver.received_pkts);
    assert!(to_src.count() >= 49 && to_dst.count() >= 14 * 49);
    assert!(
        to_src.min() >= 3_000_000.0 && to_src.min() < 4_000_000.0,
        "{}",
        to_src.min()
    );
    // The summary: the responses' as `owd_distribution`, the requests' beside it.
    let j = summary("t", 3, &r, 0.0);
    let d = &j["flows"][0];
    assert_eq!(d["owd_distribution"]["pkts"], to_dst.count());
    assert_eq!(d["owd_distribution"]["min_ms"], to_dst.min() / 1e6);
    assert_eq!(d["owd_distribution_reverse"]["pkts"], to_src.count());
}
