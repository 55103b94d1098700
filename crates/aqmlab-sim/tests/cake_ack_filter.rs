//! CAKE's ACK filter end to end ("Piece of CAKE" §4.3: on an asymmetric link the reverse
//! direction's queue holds ACKs that newer ones make redundant). One NewReno bulk flow a → b on
//! 10 Mb/s; its ACKs return over 100 kb/s through CAKE with and without the filter. The filter
//! drops queued ACKs, so fewer wait and they wait less, and the forward goodput does not fall.

use aqmlab_core::SimTime;
use aqmlab_qdisc::DropReason;
use aqmlab_sim::scenario::{build, Overrides};
use std::path::Path;

struct Out {
    forward_bytes: u64,
    ack_drops: u64,
    reverse_delivered: u64,
    reverse_max_backlog: u32,
    reverse_mean_sojourn_ms: f64,
}

fn run(ack_filter: &str) -> Out {
    let text = format!(
        r#"
name = "ack-filter"
duration = "20s"
nodes = ["a", "b"]

[[links]]
name = "l"
from = "a"
to = "b"
rate = "10Mbps"
delay = "20ms"
qdisc = "droptail"
buffer = "100p"
reverse = {{ rate = "100kbps", qdisc = "cake", params = {{ ack_filter = "{ack_filter}" }} }}

[[flows]]
kind = "tcp"
from = "a"
to = "b"
cc = "newreno"
"#
    );
    let mut sc = build(&text, "<test>", Path::new("."), "t", &Overrides::default()).unwrap();
    sc.sim.run_until(SimTime::from_secs(20));
    let r = sc.sim.report();
    let fwd = r.links.iter().find(|l| l.name == "l").unwrap();
    let rev = r.links.iter().find(|l| l.name == "l.rev").unwrap();
    assert_eq!(rev.qdisc, "cake");
    let m = &rev.m;
    assert_eq!(
        m.enqueued_pkts,
        m.delivered_pkts + m.dropped_pkts + rev.backlog_pkts as u64 + rev.in_flight as u64,
        "arrivals = departures + drops + backlog"
    );
    Out {
        forward_bytes: fwd.m.delivered_bytes,
        ack_drops: m.drops_by_reason[DropReason::AckFilter.index()],
        reverse_delivered: m.delivered_pkts,
        reverse_max_backlog: m.max_backlog_pkts,
        reverse_mean_sojourn_ms: m.sojourn_ns.mean() / 1e6,
    }
}

#[test]
fn ack_filter_thins_the_reverse_queue_without_costing_forward_goodput() {
    let off = run("no-ack-filter");
    let on = run("ack-filter");
    let aggressive = run("ack-filter-aggressive");
    eprintln!(
        "off: fwd {} B, acks sent {}, max queue {}, sojourn {:.2} ms",
        off.forward_bytes,
        off.reverse_delivered,
        off.reverse_max_backlog,
        off.reverse_mean_sojourn_ms
    );
    for (name, o) in [("ack-filter", &on), ("ack-filter-aggressive", &aggressive)] {
        eprintln!(
            "{name}: fwd {} B, acks sent {}, dropped {}, max queue {}, sojourn {:.2} ms",
            o.forward_bytes,
            o.reverse_delivered,
            o.ack_drops,
            o.reverse_max_backlog,
            o.reverse_mean_sojourn_ms
        );
        assert!(o.ack_drops > 100, "{name}: {} ACKs filtered", o.ack_drops);
        assert!(
            o.reverse_max_backlog < off.reverse_max_backlog,
            "{name}: at most {} ACKs queued against {}",
            o.reverse_max_backlog,
            off.reverse_max_backlog
        );
        assert!(
            o.reverse_mean_sojourn_ms < off.reverse_mean_sojourn_ms,
            "{name}"
        );
        // Forward goodput: not lower than without the filter (within 1 %).
        assert!(
            o.forward_bytes as f64 >= 0.99 * off.forward_bytes as f64,
            "{name}: {} against {} bytes forward",
            o.forward_bytes,
            off.forward_bytes
        );
    }
    assert_eq!(off.ack_drops, 0);
}
