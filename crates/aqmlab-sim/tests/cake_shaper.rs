//! CAKE's shaper run by the simulator's links: the discipline refuses a dequeue before its next
//! send time and names it ([`aqmlab_qdisc::QueueDisc::next_send_time`]), and the link wakes
//! then. On a 10 Mb/s link a CAKE shaped to 5 Mb/s spaces back-to-back packets by its own rate
//! exactly (`cake_advance_shaper`: adjusted length × 1600 ns per byte at 5 Mb/s, Linux's fixed
//! point `(1e9 << 34) / 625000 = 1600 << 34`), with overhead and ATM cells where asked, and
//! packets are conserved.

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::{build, Overrides};
use std::path::Path;

/// A UDP flow of 1500-byte packets at 12 Mb/s through link `l` (10 Mb/s) with `params`.
fn run(params: &str) -> (Vec<u64>, aqmlab_report::Report) {
    let text = format!(
        r#"
name = "cake-shaper"
duration = "4s"
nodes = ["a", "b"]

[[links]]
name = "l"
from = "a"
to = "b"
rate = "10Mbps"
delay = "2ms"
qdisc = "cake"
{params}
buffer = "200p"

[[flows]]
kind = "udp"
from = "a"
to = "b"
rate = "12Mbps"
size = 1500
"#
    );
    let ov = Overrides {
        packet_log: vec!["l".into()],
        ..Overrides::default()
    };
    let mut sc = build(&text, "<test>", Path::new("."), "t", &ov).unwrap();
    sc.sim.run_until(SimTime::from_secs(4));
    let log = sc.sim.packet_logs().find(|(n, _)| *n == "l").unwrap().1;
    assert!(log.iter().all(|r| r.size == 1500));
    let gaps = log.windows(2).map(|w| w[1].t_ns - w[0].t_ns).collect();
    (gaps, sc.sim.report())
}

/// The gaps once the queue has formed (the first packets meet an idle shaper).
fn steady(gaps: &[u64]) -> &[u64] {
    &gaps[20..]
}

fn conserved(r: &aqmlab_report::Report) -> (u64, u64) {
    let l = r.links.iter().find(|l| l.name == "l").unwrap();
    let m = &l.m;
    assert_eq!(
        m.enqueued_pkts,
        m.delivered_pkts + m.dropped_pkts + l.backlog_pkts as u64 + l.in_flight as u64,
        "arrivals = departures + drops + backlog"
    );
    (m.delivered_bytes, m.dropped_pkts)
}

#[test]
fn shaped_cake_sends_at_its_rate_not_the_links() {
    let (gaps, r) = run(r#"params = { bandwidth = "5Mbps" }"#);
    // 1500 B × 1600 ns/B = 2.4 ms between packets: 5 Mb/s, not the link's 10 (1.2 ms).
    assert!(steady(&gaps).iter().all(|&g| g == 2_400_000), "{gaps:?}");
    let (delivered, dropped) = conserved(&r);
    // 12 Mb/s offered into 5: the rest is dropped, and 4 s carry at most 5 Mb/s × 4 s.
    assert!(dropped > 100, "{dropped}");
    assert!(delivered <= 5_000_000 / 8 * 4 + 1500, "{delivered}");
    assert!(delivered >= 5_000_000 / 8 * 4 * 99 / 100, "{delivered}");
}

#[test]
fn shaped_cake_spaces_by_atm_cells_with_overhead() {
    // 1500 + 18 = 1518 B → ⌈1518/48⌉ = 32 cells × 53 = 1696 B at 1600 ns/B = 2,713,600 ns.
    let (gaps, r) = run(r#"params = { bandwidth = "5Mbps", overhead = 18, atm = "atm" }"#);
    assert!(steady(&gaps).iter().all(|&g| g == 2_713_600), "{gaps:?}");
    conserved(&r);
    // PTM: 1518 + ⌈1518/64⌉ = 1542 B → 2,467,200 ns.
    let (gaps, r) = run(r#"params = { bandwidth = "5Mbps", overhead = 18, atm = "ptm" }"#);
    assert!(steady(&gaps).iter().all(|&g| g == 2_467_200), "{gaps:?}");
    conserved(&r);
}

#[test]
fn unshaped_cake_sends_at_the_links_rate() {
    // The counterfactual: without a bandwidth the link's 10 Mb/s spaces packets (1.2 ms).
    let (gaps, r) = run("");
    assert!(steady(&gaps).iter().all(|&g| g == 1_200_000), "{gaps:?}");
    conserved(&r);
}
