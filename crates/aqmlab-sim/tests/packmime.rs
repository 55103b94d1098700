//! PackMime-HTTP web traffic (`model = "packmime"`): the generators against ns-2.35's own draws,
//! and the model through the engine.
//!
//! The ns-2 figures are from `ns bench/ns2/packmime_quantiles.tcl 2000000 2 5` (Debian's ns2
//! 2.35): 2·10⁶ draws with seed 2, independent of the seed-1 draws the generator's tables come
//! from (`src/packmime.rs`).

use aqmlab_core::{math, SimTime, Xoshiro256pp};
use aqmlab_sim::packmime::{PackMime, REQUEST_QUANTILES, RESPONSE_QUANTILES};
use aqmlab_sim::scenario::{build, Overrides};
use std::path::Path;

/// `(p, quantile)` of ns-2's seed-2 draws.
const NS2_REQUEST: [(f64, f64); 9] = [
    (0.01, 122.0),
    (0.1, 279.0),
    (0.25, 350.0),
    (0.5, 423.0),
    (0.75, 514.0),
    (0.9, 868.0),
    (0.99, 3049.0),
    (0.999, 14270.0),
    (0.9999, 65315.0),
];
const NS2_RESPONSE: [(f64, f64); 9] = [
    (0.01, 57.0),
    (0.1, 128.0),
    (0.25, 246.0),
    (0.5, 881.0),
    (0.75, 5260.0),
    (0.9, 14791.0),
    (0.99, 71374.0),
    (0.999, 469378.0),
    (0.9999, 2863710.0),
];
const NS2_SERVER_DELAY: [(f64, f64); 5] = [
    (0.01, 0.000291223),
    (0.1, 0.000874362),
    (0.25, 0.00195604),
    (0.5, 0.00588532),
    (0.75, 0.0238568),
];
/// ns-2's sample means (seeds 1 and 2): requests 585.4 and 583.3 B, responses 7979 and 8390 B,
/// server delays 21.99 and 22.01 ms.
const NS2_MEANS: [(f64, f64); 3] = [(585.4, 583.3), (7979.0, 8390.0), (0.021986, 0.022009)];

/// The sorted draws of `n` calls of `f`.
fn draws(n: usize, mut f: impl FnMut(&mut Xoshiro256pp) -> f64) -> Vec<f64> {
    let mut rng = Xoshiro256pp::for_stream(7, "packmime-test");
    let mut v: Vec<f64> = (0..n).map(|_| f(&mut rng)).collect();
    v.sort_by(f64::total_cmp);
    v
}

fn quantile(sorted: &[f64], p: f64) -> f64 {
    sorted[((p * sorted.len() as f64).ceil() as usize).max(1) - 1]
}

/// Relative tolerance for the quantile at probability p: sampling error grows in the tail.
fn tolerance(p: f64) -> f64 {
    match p {
        p if p <= 0.99 => 0.03,
        p if p <= 0.999 => 0.06,
        _ => 0.2,
    }
}

#[test]
fn sizes_match_ns2_packmime_quantiles() {
    for (what, table, ns2, f) in [
        (
            "request",
            &REQUEST_QUANTILES[..],
            &NS2_REQUEST,
            PackMime::request_size as fn(&mut Xoshiro256pp) -> u64,
        ),
        (
            "response",
            &RESPONSE_QUANTILES[..],
            &NS2_RESPONSE,
            PackMime::response_size,
        ),
    ] {
        let ours = draws(1_000_000, |r| f(r) as f64);
        for &(p, q) in ns2 {
            let got = quantile(&ours, p);
            // A byte or two at the smallest sizes: both are whole bytes.
            assert!(
                (got - q).abs() <= (tolerance(p) * q).max(2.0),
                "{what} p = {p}: ours {got}, ns-2 {q}"
            );
        }
        // The table's exact mean: the interpolated quantile function integrated over (0, 1),
        // the Pareto tail in closed form. Heavy tails make sample means noisy (ns-2's two seeds
        // differ by 5 % for responses): within 10 % of theirs.
        let n = 200_000;
        let (pn, _) = table[table.len() - 1];
        let body: f64 = (0..n)
            .map(|i| PackMime::quantile(table, pn * (i as f64 + 0.5) / n as f64))
            .sum::<f64>()
            * pn
            / n as f64;
        let q_last = PackMime::quantile(table, pn);
        let q_999 = PackMime::quantile(table, 0.999);
        let alpha = math::ln((1.0 - 0.999) / (1.0 - pn)) / math::ln(q_last / q_999);
        let mean = body + q_last * (1.0 - pn) * alpha / (alpha - 1.0);
        let (a, b) = if what == "request" {
            NS2_MEANS[0]
        } else {
            NS2_MEANS[1]
        };
        let ns2 = (a + b) / 2.0;
        assert!(
            (mean / ns2 - 1.0).abs() < 0.1,
            "{what}: mean {mean:.0} vs ns-2 {ns2:.0}"
        );
    }
}

#[test]
fn server_delay_matches_ns2() {
    let ours = draws(1_000_000, PackMime::server_delay);
    for (p, q) in NS2_SERVER_DELAY {
        let got = quantile(&ours, p);
        assert!(
            (got / q - 1.0).abs() < 0.03,
            "p = {p}: ours {got}, ns-2 {q}"
        );
    }
    // Capped at 100 ms (W below 10), which more than 10 % of the draws reach.
    assert_eq!(quantile(&ours, 0.9), 0.1);
    assert_eq!(ours[ours.len() - 1], 0.1);
    let mean = ours.iter().sum::<f64>() / ours.len() as f64;
    let ns2 = (NS2_MEANS[2].0 + NS2_MEANS[2].1) / 2.0;
    assert!((mean / ns2 - 1.0).abs() < 0.01, "mean {mean} vs ns-2 {ns2}");
}

#[test]
fn connection_gaps_are_weibull_with_packmime_shape_and_mean() {
    for rate in [1.0, 5.0, 20.0, 100.0] {
        let pm = PackMime::new(rate);
        // PackMime's shape, logit⁻¹(0.352 + 0.388·log2(rate)): 0.588 at 1/s, 0.778 at 5/s.
        let x = 0.352 + 0.388 * math::ln(rate) / std::f64::consts::LN_2;
        let shape = 1.0 / (1.0 + math::exp(-x));
        assert!((pm.gap_shape - shape).abs() < 1e-12, "{rate}");
        let gaps = draws(1_000_000, |r| pm.gap(r));
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        assert!(
            (mean * rate - 1.0).abs() < 0.01,
            "rate {rate}: mean gap {mean}"
        );
        // The Weibull quantiles: scale·(−ln(1 − p))^(1/shape).
        for p in [0.1, 0.5, 0.9] {
            let q = pm.gap_scale * math::pow(-math::ln(1.0 - p), 1.0 / shape);
            let got = quantile(&gaps, p);
            assert!(
                (got / q - 1.0).abs() < 0.02,
                "rate {rate} p {p}: {got} vs {q}"
            );
        }
    }
    assert!((PackMime::new(5.0).gap_shape - 0.7778).abs() < 1e-4);
}

fn packmime_scenario(conns_per_s: f64, extra: &str) -> String {
    format!(
        r#"
duration = "300s"
[dumbbell]
senders = 1
access_rate = "1Gbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
rate = "100Mbps"
delay = "20ms"
qdisc = "droptail"
buffer = "1000p"
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
app = "web"
model = "packmime"
conns_per_s = {conns_per_s}
{extra}
"#
    )
}

#[test]
fn packmime_web_traffic_runs_at_its_connection_rate() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let text = packmime_scenario(5.0, "");
    let run = || {
        let mut s = build(&text, "t.toml", dir, "t", &Overrides::default()).unwrap();
        s.sim.run_until(SimTime::ZERO + s.duration);
        (s.sim.report(), s.sim.tcp_connections_open())
    };
    let (r, open) = run();
    let m = &r.flows[0];
    assert_eq!(r.flow_info[0].app, "web");
    // 5 connections/s over 300 s. The gaps are Weibull with shape 0.78 (coefficient of
    // variation 1.3): the count has a standard deviation of about sqrt(T·σ²/μ³) = 50.
    let n = m.transfers_started as f64;
    assert!((n - 1500.0).abs() < 200.0, "{n} connections");
    // An idle 100 Mb/s path: every exchange completes (but those still running at the end).
    assert!(m.transfers_completed + 5 >= m.transfers_started);
    assert!(open < 5, "{open} connections open");
    // The exchange takes the handshake, request, server delay and response: never less than
    // two round trips of 44 ms, and the server delay (mean 22 ms) shows in the mean.
    assert!(m.fct_ns.quantile(0.0) >= 88e6, "{}", m.fct_ns.quantile(0.0));
    assert!(m.fct_ns.mean() > 88e6 + 15e6, "{}", m.fct_ns.mean());
    // Same scenario and seed: the same run.
    let (again, _) = run();
    assert_eq!(again.flows[0].delivered_bytes, m.delivered_bytes);
    assert_eq!(again.flows[0].fct_ns.mean(), m.fct_ns.mean());
}

#[test]
fn packmime_keys_are_checked() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let err = |text: &str| match build(text, "t.toml", dir, "t", &Overrides::default()) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    };
    let e = err(&packmime_scenario(5.0, "size_mean = \"8KB\""));
    assert!(
        e.contains("t.toml:20: flows[0].size_mean: size_mean belongs to the simple web model"),
        "{e}"
    );
    let e = err(&packmime_scenario(5.0, "").replace("conns_per_s = 5\n", ""));
    assert!(
        e.contains("flows[0].conns_per_s: PackMime web traffic needs its rate"),
        "{e}"
    );
    let e = err(&packmime_scenario(5.0, "").replace("packmime", "packmine"));
    assert!(
        e.contains("t.toml:18: flows[0].model: expected simple or packmime, got \"packmine\""),
        "{e}"
    );
    let e = err(&packmime_scenario(5.0, "")
        .replace("app = \"web\"", "app = \"finite\"\nbytes = \"1MB\"")
        .replace("conns_per_s = 5\n", ""));
    assert!(
        e.contains("flows[0].model: model belongs to app = \"web\""),
        "{e}"
    );
}

#[test]
fn http11_connections_carry_packmime_exchanges() {
    // With probability 0.09 a connection is persistent. Its pages: 1 with probability 0.82,
    // else 1 + ⌈W⌉, W exponential of mean 0.417 (E⌈W⌉ = 1/(1 − e^(−1/0.417)) = 1.100). Objects
    // on a lone page: 1 + ⌈W'⌉, W' of mean 1.578 (mean 1 + 1/(1 − e^(−1/1.578)) = 3.130); on
    // each of several pages, 1 with probability 0.69, else as on a lone page (mean 1.660).
    // Exchanges per persistent connection: 0.82·3.130 + 0.18·2.100·1.660 = 3.194; per
    // connection 0.91 + 0.09·3.194 = 1.197.
    let e_ceil = |mean: f64| 1.0 / (1.0 - math::exp(-1.0 / mean));
    let lone = 1.0 + e_ceil(1.578);
    let several = 0.69 + 0.31 * lone;
    let persistent = 0.82 * lone + 0.18 * (1.0 + e_ceil(0.417)) * several;
    let expect = 0.91 + 0.09 * persistent;
    assert!((expect - 1.197).abs() < 0.001, "{expect}");
    let mut rng = Xoshiro256pp::for_stream(3, "http11");
    let think = aqmlab_sim::packmime::ThinkTimes::draw(&mut rng);
    let mut plan = Vec::new();
    let (mut conns, mut exchanges, mut multi) = (0u64, 0u64, 0u64);
    for _ in 0..1_000_000 {
        PackMime::http11_exchanges(&mut rng, &think, &mut plan);
        conns += 1;
        exchanges += plan.len() as u64;
        multi += (plan.len() > 1) as u64;
        assert_eq!(plan[0].gap, 0.0);
        assert!(plan
            .iter()
            .all(|e| e.request == plan[0].request && e.response >= 1));
    }
    let per = exchanges as f64 / conns as f64;
    assert!(
        (per / expect - 1.0).abs() < 0.01,
        "{per} exchanges per connection"
    );
    assert!((multi as f64 / conns as f64 - 0.09).abs() < 0.002);

    // Through the engine: more exchanges than connections, each a transfer with its FCT.
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let run = |extra: &str| {
        let text = packmime_scenario(5.0, extra);
        let mut s = build(&text, "t.toml", dir, "t", &Overrides::default()).unwrap();
        s.sim.run_until(SimTime::ZERO + s.duration);
        (s.sim.report(), s.sim.tcp_connections_open())
    };
    let (r, open) = run("http = \"1.1\"");
    let m = &r.flows[0];
    let n = m.transfers_started as f64;
    // About 1500 connections and 1.2 exchanges each (fewer: think times between pages run
    // to seconds, and some fall after the end).
    assert!((1500.0..2200.0).contains(&n), "{n} exchanges");
    assert!(m.transfers_completed + 10 >= m.transfers_started);
    assert_eq!(m.fct_ns.count(), m.transfers_completed);
    assert!(open < 60, "{open} connections open");
    let (again, _) = run("http = \"1.1\"");
    assert_eq!(again.flows[0].delivered_bytes, m.delivered_bytes);
    assert_eq!(again.flows[0].transfers_completed, m.transfers_completed);
}
