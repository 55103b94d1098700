//! An arrival at a full queue at the very instant the link ends a transmission: the arrival is
//! handled first (and dropped) when its transmission on the previous link started before the
//! link's current one, as one event per packet scheduled when each transmission starts would
//! order them, and as ns-2.35 orders them (link/delay.cc `LinkDelay::recv` schedules a packet's
//! arrival at the next hop and the queue's `resume` when its transmission starts; its scheduler
//! runs equal-time events in the order they were scheduled).
//!
//! A UDP source sends 1000-B packets every 1 ms into an 8 Mb/s, 10 ms link (1 ms per packet:
//! back to back), then a 4 Mb/s link (2 ms per packet) with a tail-drop queue of 2 packets.
//! The second link starts sending at the first arrival, so every other arrival falls exactly on
//! the end of one of its transmissions. Each such arrival was sent 11 ms before (its
//! transmission on the first link started then) and the transmission that ends 2 ms before, so
//! the arrival comes first, finds the queue full and is dropped: every drop is at an instant
//! the link starts its next packet. Before this rule (a packet's arrival was scheduled only once
//! the packet ahead of it in the propagation pipe had arrived, 1 ms before) the transmission's
//! end came first and every drop fell 1 ms after one; this test failed then.

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::{build, Overrides};
use std::path::Path;

const SCENARIO: &str = r#"
name = "tie-order"
duration = "1s"
nodes = ["a", "g", "b"]

[[links]]
name = "access"
from = "a"
to = "g"
rate = "8Mbps"
delay = "10ms"
buffer = "1000p"

[[links]]
name = "bottleneck"
from = "g"
to = "b"
rate = "4Mbps"
delay = "1ms"
qdisc = "droptail"
buffer = "2p"

[[flows]]
kind = "udp"
from = "a"
to = "b"
rate = "8Mbps"
size = 1000
start = "0s"
"#;

#[test]
fn an_arrival_sent_before_the_transmission_started_is_queued_before_its_end() {
    let ov = Overrides {
        packet_log: vec!["bottleneck".into()],
        ..Overrides::default()
    };
    let mut sc = build(SCENARIO, "<test>", Path::new("."), "t", &ov).unwrap();
    sc.sim.run_until(SimTime::from_secs(1));
    let sent: Vec<u64> = {
        let (_, log) = sc
            .sim
            .packet_logs()
            .find(|(n, _)| *n == "bottleneck")
            .unwrap();
        log.iter().map(|r| r.t_ns).collect()
    };
    let (_, drops) = sc
        .sim
        .drop_logs()
        .find(|(n, _)| *n == "bottleneck")
        .unwrap();
    // The link sends from the first arrival (1 ms + 10 ms) every 2 ms.
    assert_eq!(sent[0], 11_000_000);
    assert!(
        sent.windows(2).all(|w| w[1] - w[0] == 2_000_000),
        "{sent:?}"
    );
    assert!(drops.len() > 400, "{} drops", drops.len());
    let at_a_start = drops
        .iter()
        .filter(|d| sent.binary_search(&d.t_ns).is_ok())
        .count();
    assert_eq!(
        at_a_start,
        drops.len(),
        "first drops at {:?}",
        drops.iter().take(4).map(|d| d.t_ns).collect::<Vec<_>>()
    );
}
