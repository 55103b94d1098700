//! Every TCP parameter of the sender can be set from a scenario file (issue 14), and a bad
//! value fails with one line naming the key.

use aqmlab_core::SimDuration;
use aqmlab_sim::scenario::{build, Overrides};
use aqmlab_sim::world::FlowSpec;
use aqmlab_tcp::{CcKind, CongestionControl, RtoSsthresh, TcpConfig};
use std::path::Path;

fn scenario(flow_keys: &str) -> String {
    format!(
        r#"
duration = "1s"
[dumbbell]
senders = 1
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
{flow_keys}
"#
    )
}

fn cfg(flow_keys: &str) -> Result<TcpConfig, String> {
    let s = build(
        &scenario(flow_keys),
        "t.toml",
        Path::new("."),
        "t",
        &Overrides::default(),
    )
    .map_err(|e| e.to_string())?;
    match s.sim.flow_spec(0) {
        Some(FlowSpec::Tcp(t)) => Ok(t.cfg),
        _ => panic!("a tcp flow"),
    }
}

#[test]
fn every_sender_parameter_is_a_scenario_key() {
    let c = cfg(r#"cc = "newreno"
mss = 1000
initial_rto = "3s"
max_rto = "120s"
min_rto = "1s"
initial_ssthresh = 20
dupack_threshold = 4
prr = true
recovery = "rack"
rescue = false
initial_cwnd = 2
max_window = 64"#)
    .unwrap();
    assert_eq!(c.cc.kind, CcKind::NewReno);
    assert_eq!(c.initial_rto, SimDuration::from_secs(3));
    assert_eq!(c.max_rto, SimDuration::from_secs(120));
    assert_eq!(c.min_rto, SimDuration::from_secs(1));
    assert_eq!(c.initial_ssthresh, Some(20_000));
    assert_eq!(c.dupack_threshold, 4);
    assert!(c.prr && c.rack && !c.rescue);
    assert!(!cfg("recovery = \"rfc6675\"").unwrap().rack);
    assert_eq!(
        (c.initial_cwnd_segments, c.max_window_segments),
        (2, Some(64))
    );

    let c = cfg(r#"cc = "cubic"
cubic_beta = 0.5
cubic_c = 0.8
cubic_fast_convergence = false
cubic_reno_friendly = false
hystart = true"#)
    .unwrap();
    assert_eq!((c.cc.cubic.beta, c.cc.cubic.c), (0.5, 0.8));
    assert!(!c.cc.cubic.fast_convergence && !c.cc.cubic.reno_friendly && c.cc.hystart);
    assert!(!c.cc.cubic.linux);
    assert!(
        cfg("cc = \"cubic\"\ncubic_linux = true")
            .unwrap()
            .cc
            .cubic
            .linux
    );

    // ns-3's Vegas defaults (ns-2's are 1/3/1, ours).
    let c = cfg("cc = \"vegas\"\nvegas_alpha = 2\nvegas_beta = 4\nvegas_gamma = 1").unwrap();
    assert_eq!(
        (c.cc.vegas.alpha, c.cc.vegas.beta, c.cc.vegas.gamma),
        (2, 4, 1)
    );

    assert_eq!(cfg("cc = \"tahoe\"").unwrap().cc.kind, CcKind::Tahoe);
}

#[test]
fn dctcp_g_sets_the_ewma_gain() {
    // RFC 8257 §3.3: α ← (1 − g)·α + g·F, g = 1/16 unless set.
    let dctcp = |k: &str| cfg(&format!("cc = \"dctcp\"\necn = true\n{k}")).unwrap();
    assert_eq!(dctcp("").cc.dctcp.g, 0.0625);
    let c = dctcp("dctcp_g = 0.25");
    assert_eq!(c.cc.dctcp.g, 0.25);
    // The flow's α with g = 1/4 from α₀ = 1 over windows marked F = 0, 1, 1/2:
    // 0.75, 0.8125, 0.734375 (each (3/4)·α + F/4, exact in binary).
    let mut d = aqmlab_tcp::cc::Dctcp::new(c.cc.dctcp, 1000, 10_000);
    let mut alphas = Vec::new();
    for (w, marked) in [(1u64, 0u64), (2, 10), (3, 5)] {
        d.on_ecn_feedback(&aqmlab_tcp::EcnFeedback {
            now: aqmlab_core::SimTime::ZERO,
            acked_bytes: 10_000,
            delivered_bytes: 10_000,
            marked_bytes: marked * 1000,
            delivered_packets: 10,
            ce_packets: 0,
            ece: marked > 0,
            snd_una: w * 10_000,
            snd_nxt: w * 10_000,
        });
        alphas.push(d.alpha());
    }
    assert_eq!(alphas, vec![0.75, 0.8125, 0.734375]);
    assert_eq!(dctcp("dctcp_g = 1").cc.dctcp.g, 1.0);
}

#[test]
fn prague_ecn_fallback_sets_the_mode() {
    let prague = |k: &str| cfg(&format!("cc = \"prague\"\n{k}"));
    assert_eq!(prague("").unwrap().cc.prague.ecn_fallback, 0);
    assert_eq!(
        prague("prague_ecn_fallback = 1")
            .unwrap()
            .cc
            .prague
            .ecn_fallback,
        1
    );
    assert_eq!(
        prague("prague_ecn_fallback = 3").unwrap_err(),
        "t.toml:17: flows[0].prague_ecn_fallback: expected a mode (0 none, 1 classic-ECN detection and fallback, 2 detection only) between 0 and 2, got 3"
    );
}

#[test]
fn a_bad_dctcp_g_names_its_key() {
    let e = |keys: &str| cfg(keys).unwrap_err();
    for bad in ["0", "1.5", "-0.0625"] {
        let got = e(&format!("cc = \"dctcp\"\necn = true\ndctcp_g = {bad}"));
        assert!(
            got.starts_with("t.toml:18: flows[0].dctcp_g: expected an EWMA gain 0 < g <= 1 (RFC 8257 §3.3: 1/16), got"),
            "{got}"
        );
    }
    assert_eq!(
        e("cc = \"cubic\"\ndctcp_g = 0.5"),
        "t.toml:13: flows[0].dctcp_g: dctcp_g applies to cc = \"dctcp\"; this flow has cc = \"cubic\""
    );
}

#[test]
fn bad_knobs_name_their_key() {
    let e = |keys: &str| cfg(keys).unwrap_err();
    assert_eq!(
        e("cc = \"newreno\"\ncubic_beta = 0.5"),
        "t.toml:13: flows[0].cubic_beta: cubic_beta applies to cc = \"cubic\"; this flow has cc = \"newreno\""
    );
    assert_eq!(
        e("cc = \"cubic\"\ncubic_beta = 1.5"),
        "t.toml:17: flows[0].cubic_beta: expected a decrease factor 0 < beta < 1 (RFC 9438: 0.7), got 1.5"
    );
    let linux_and_hystart = e("cc = \"cubic\"\nhystart = true\ncubic_linux = true");
    assert!(
        linux_and_hystart.contains("flows[0].cubic_linux: cubic_linux brings Linux's own HyStart"),
        "{linux_and_hystart}"
    );
    assert!(e("cc = \"newreno\"\ncubic_linux = true").contains("cubic_linux applies to cc"));
    assert_eq!(
        e("sack = false\nprr = true"),
        "t.toml:13: flows[0].prr: prr (RFC 6937) needs sack = true: it paces recovery by RFC 6675's pipe"
    );
    assert_eq!(
        e("cc = \"vegas\"\nvegas_alpha = 5"),
        "t.toml:17: flows[0].vegas_alpha: expected vegas_alpha <= vegas_beta, got 5 > 3"
    );
    assert_eq!(
        e("initial_rto = \"0s\""),
        "t.toml:16: flows[0].initial_rto: expected a duration > 0"
    );
    assert_eq!(
        e("min_rto = \"2s\"\nmax_rto = \"1s\""),
        "t.toml:17: flows[0].max_rto: expected a maximum RTO of at least the minimum RTO, 2s, got \"1s\""
    );
    assert_eq!(
        e("initial_ssthresh = 1"),
        "t.toml:16: flows[0].initial_ssthresh: expected an initial ssthresh in segments between 2 and 16777216, got 1"
    );
    assert_eq!(
        e("recovery = \"fack\""),
        "t.toml:16: flows[0].recovery: expected rfc6675 or rack, got \"fack\""
    );
    assert_eq!(
        e("sack = false\nrecovery = \"rack\""),
        "t.toml:17: flows[0].recovery: recovery = \"rack\" (RFC 8985) needs sack = true: it learns of deliveries from SACK"
    );
    assert_eq!(
        e("cc = \"westwood\""),
        "t.toml:16: flows[0].cc: expected tahoe, reno, newreno, cubic, vegas, dctcp, bbr, bbr3, prague or ledbat, got \"westwood\""
    );
}

#[test]
fn recover_guard_is_classic_renos_alone() {
    // Off by default (RFC 5681 §3.2 has no recovery point); ns-2's Agent/TCP/Reno has it on.
    let reno = |k: &str| cfg(&format!("cc = \"reno\"\nsack = false\n{k}"));
    assert!(!reno("").unwrap().recover_guard);
    assert!(reno("recover_guard = true").unwrap().recover_guard);
    assert!(!reno("recover_guard = false").unwrap().recover_guard);
    // NewReno and Tahoe always guard, SACK recovery has RFC 6675's RecoveryPoint: refused.
    let expect = |keys: &str, cc: &str, sack: bool| {
        assert_eq!(
            cfg(keys).unwrap_err(),
            format!(
                "t.toml:13: flows[0].recover_guard: recover_guard applies to cc = \"reno\" with \
                 sack = false (NewReno and Tahoe always guard, SACK recovery uses RFC 6675's \
                 RecoveryPoint); this flow has cc = \"{cc}\", sack = {sack}"
            )
        );
    };
    expect("cc = \"reno\"\nrecover_guard = true", "reno", true);
    expect(
        "cc = \"newreno\"\nsack = false\nrecover_guard = true",
        "newreno",
        false,
    );
    expect("recover_guard = false", "cubic", true);
}

#[test]
fn rto_ssthresh_is_the_reno_familys() {
    // RFC 5681 §3.1 by default; ns-2.35's rule on request, for Tahoe, Reno and NewReno.
    assert_eq!(
        cfg("cc = \"reno\"").unwrap().rto_ssthresh,
        RtoSsthresh::Rfc5681
    );
    for cc in ["tahoe", "reno", "newreno"] {
        let c = cfg(&format!("cc = \"{cc}\"\nrto_ssthresh = \"ns2\"")).unwrap();
        assert_eq!(c.rto_ssthresh, RtoSsthresh::Ns2);
        let c = cfg(&format!("cc = \"{cc}\"\nrto_ssthresh = \"rfc5681\"")).unwrap();
        assert_eq!(c.rto_ssthresh, RtoSsthresh::Rfc5681);
    }
    assert_eq!(
        cfg("cc = \"reno\"\nrto_ssthresh = \"ns3\"").unwrap_err(),
        "t.toml:17: flows[0].rto_ssthresh: expected rfc5681 or ns2, got \"ns3\""
    );
    assert_eq!(
        cfg("cc = \"cubic\"\nrto_ssthresh = \"ns2\"").unwrap_err(),
        "t.toml:17: flows[0].rto_ssthresh: rto_ssthresh applies to cc = \"tahoe\", \"reno\" and \
         \"newreno\" (the controllers whose timeout halves the FlightSize the sender gives); \
         this flow has cc = \"cubic\""
    );
}
