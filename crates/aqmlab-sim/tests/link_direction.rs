//! The link direction the live emulator drives (`aqmlab_sim::link::ClockedLink`) against the
//! simulator's own links: the same arrivals through the same link give the same packets out at
//! the same times with the same sojourns, drops and marks.
//!
//! A UDP CBR source overloads a CoDel link (1500-B packets every 800 µs into 11 Mb/s; the two
//! time grids never meet within the run, so no equal-time ordering rule is involved). The
//! simulator's packet log of the link is compared, record by record, with that of a
//! `ClockedLink` made from the same scenario's resolved link direction (as the emulator makes
//! it) and fed the same arrival times.

use aqmlab_core::{FlowId, Packet, SimDuration, SimTime};
use aqmlab_sim::link::ClockedLink;
use aqmlab_sim::scenario::{build, resolve_with_edits, Overrides};
use aqmlab_sim::world::{DropRecord, PacketRecord};
use std::path::Path;

fn scenario(qdisc: &str, params: &str) -> String {
    format!(
        r#"
name = "link-direction"
duration = "5s"
nodes = ["a", "b"]

[[links]]
name = "l"
from = "a"
to = "b"
rate = "11Mbps"
delay = "10ms"
qdisc = "{qdisc}"
{params}
buffer = "100p"

[[flows]]
kind = "udp"
from = "a"
to = "b"
rate = "15Mbps"
size = 1500
start = "100us"
"#
    )
}

fn check(qdisc: &str) {
    check_with(qdisc, "");
}

fn check_with(qdisc: &str, params: &str) {
    let ov = Overrides {
        packet_log: vec!["l".into()],
        ..Overrides::default()
    };
    let text = scenario(qdisc, params);
    let mut sc = build(&text, "<test>", Path::new("."), "t", &ov).unwrap();
    let end = SimTime::from_secs(5);
    sc.sim.run_until(end);
    let sim_log: Vec<PacketRecord> = sc
        .sim
        .packet_logs()
        .find(|(n, _)| *n == "l")
        .unwrap()
        .1
        .to_vec();
    let sim_drops: Vec<DropRecord> = sc
        .sim
        .drop_logs()
        .find(|(n, _)| *n == "l")
        .unwrap()
        .1
        .to_vec();
    let sim_report = sc.sim.report();

    // As the emulator takes it: from the resolved scenario, no simulation built.
    let r = resolve_with_edits(
        &text,
        "<test>",
        Path::new("."),
        "t",
        &[],
        &[],
        &Overrides::default(),
    )
    .unwrap();
    let part = r
        .directions
        .iter()
        .find(|d| d.name == "l")
        .unwrap()
        .link_parts(r.seed);
    let mut link = ClockedLink::new(part, SimDuration::from_millis(100));
    link.log_packets();
    let mut freed = Vec::new();
    // Arrivals every 800 µs (1500 B at 15 Mb/s) from 100 µs.
    let mut k = 0u64;
    loop {
        let t = SimTime::from_nanos(100_000 + k * 800_000);
        if t >= end {
            break;
        }
        link.arrive(t, Packet::new(k, 1500, FlowId(0)), &mut freed);
        k += 1;
    }
    link.advance(end - SimDuration::from_nanos(1), &mut freed);
    let (mut emu_log, mut emu_drops) = (Vec::new(), Vec::new());
    link.take_log(&mut emu_log, &mut emu_drops);
    // The log's drops too: the same packets, times and reasons.
    assert_eq!(emu_drops, sim_drops, "{qdisc}: the drop log");

    assert!(sim_log.len() > 1000, "{}", sim_log.len());
    assert_eq!(emu_log.len(), sim_log.len(), "{qdisc}: packets released");
    for (i, (a, b)) in sim_log.iter().zip(&emu_log).enumerate() {
        assert_eq!(a, b, "{qdisc}: record {i}");
    }
    let (r, rows) = link.report_with_rows(end);
    let i = sim_report.links.iter().position(|l| l.name == "l").unwrap();
    let s = &sim_report.links[i];
    // The time-averaged queue and the capacity, bin by bin.
    assert_eq!(rows, sim_report.link_rows[i], "{qdisc}: rows");
    assert_eq!(
        r.m.sojourn_moments, s.m.sojourn_moments,
        "{qdisc}: sojourn moments"
    );
    assert!(s.m.dropped_pkts > 100, "{qdisc}: an overload drops");
    assert_eq!(r.m.dropped_pkts, s.m.dropped_pkts, "{qdisc}: drops");
    assert_eq!(
        r.m.drops_by_reason, s.m.drops_by_reason,
        "{qdisc}: drops by reason"
    );
    assert_eq!(
        r.m.delivered_bytes, s.m.delivered_bytes,
        "{qdisc}: delivered"
    );
    assert_eq!(
        r.m.egress_bytes_per_bin, s.m.egress_bytes_per_bin,
        "{qdisc}"
    );
    assert_eq!(r.m.max_backlog_per_bin, s.m.max_backlog_per_bin, "{qdisc}");
}

#[test]
fn codel_link_matches_the_simulator_packet_for_packet() {
    check("codel");
}

#[test]
fn tail_drop_link_matches_the_simulator_packet_for_packet() {
    check("droptail");
}

#[test]
fn pie_link_matches_the_simulator_packet_for_packet() {
    // PIE draws random numbers: the same stream (the scenario's seed and link name) in both.
    check("pie");
}

#[test]
fn shaped_cake_link_matches_the_simulator_packet_for_packet() {
    // CAKE's shaper (5 Mb/s on the 11 Mb/s link) holds packets back and names its next send
    // time; both drivers wake the link then (`LinkDirection::held`).
    check_with(
        "cake",
        r#"params = { bandwidth = "5Mbps", overhead = 18, atm = "atm" }"#,
    );
}
