//! DCTCP through the sender and receiver (RFC 8257 §3.3): the window falls by `α/2`, at most
//! once per window of data, with `α` the value the same ACK left.

mod harness;

use aqmlab_core::{Bitrate, SimDuration, SimTime};
use aqmlab_tcp::{CcKind, TcpConfig, TcpSender};
use harness::{state_value, FlowSpec, LinkSpec, Net};
use std::cell::RefCell;
use std::rc::Rc;

/// (cwnd, α) after every ACK of a 30-segment-window flow whose data packets number `marks`
/// are CE-marked, and its sender's ECN reductions.
fn run(kind: CcKind, marks: Vec<u64>) -> (Vec<(u64, f64)>, u64) {
    let cfg = TcpConfig {
        ecn: true,
        max_window_segments: Some(30),
        ..TcpConfig::with_cc(kind)
    };
    let mut spec = FlowSpec::bulk(cfg);
    spec.mark_data = marks;
    let link = LinkSpec {
        rate: Bitrate::from_mbps(10),
        delay: SimDuration::from_millis(25),
        buffer_pkts: 1000,
        loss: None,
    };
    let mut net = Net::new(link, vec![spec]);
    let trace = Rc::new(RefCell::new(Vec::new()));
    let t2 = trace.clone();
    net.observer = Some(Box::new(move |_, _, tx: &TcpSender| {
        t2.borrow_mut()
            .push((tx.stats().cwnd_bytes, state_value(tx, "dctcp_alpha")));
    }));
    net.run_until(SimTime::from_secs(3));
    let st = net.flows[0].tx.stats();
    assert_eq!((st.retransmits, st.timeouts), (0, 0));
    let t = trace.borrow().clone();
    (t, st.ecn_reductions)
}

/// The window reductions: (cwnd before, cwnd after, α after the reducing ACK).
fn reductions(trace: &[(u64, f64)]) -> Vec<(u64, u64, f64)> {
    trace
        .windows(2)
        .filter(|w| w[1].0 < w[0].0)
        .map(|w| (w[0].0, w[1].0, w[1].1))
        .collect()
}

#[test]
fn the_window_falls_by_half_alpha_once_per_window_of_data() {
    // Four marks within one window, one more many RTTs later.
    let (trace, n) = run(CcKind::Dctcp, vec![300, 301, 305, 320, 600]);
    assert_eq!(n, 2, "marks 300..320 share one window, 600 is later");
    let red = reductions(&trace);
    assert_eq!(red.len(), 2, "{red:?}");
    for &(before, after, alpha) in &red {
        // α has decayed from 1 by 15/16 per unmarked window: well below 1 here.
        assert!(alpha > 0.0 && alpha < 0.5, "{alpha}");
        let want = ((before as f64 * (1.0 - alpha / 2.0)) as u64).max(2 * 1460);
        assert_eq!(after, want, "cwnd·(1 − α/2) with α = {alpha}");
    }
    // α changes once per window: by 15/16 when nothing was marked, and for the windows that
    // held marks by more than that (F > 0: α = 15/16·α + F/16).
    let mut updates: Vec<(f64, f64)> = trace
        .windows(2)
        .filter(|w| w[1].1 != w[0].1)
        .map(|w| (w[0].1, w[1].1))
        .collect();
    let marked: Vec<(f64, f64)> = updates
        .iter()
        .copied()
        .filter(|&(a0, a1)| (a1 - a0 * 15.0 / 16.0).abs() > 1e-12)
        .collect();
    // Marks 300–320 may straddle an observation window's end; 600 is alone.
    assert!(
        (2..=3).contains(&marked.len()),
        "windows that held marks: {marked:?}"
    );
    for (a0, a1) in &marked {
        let f = 16.0 * (a1 - a0 * 15.0 / 16.0);
        assert!(f > 0.0 && f < 0.2, "marked fraction {f}");
    }
    updates.retain(|u| !marked.contains(u));
    assert!(updates.len() > 20, "{} unmarked windows", updates.len());
}

#[test]
fn newreno_halves_where_dctcp_cuts_by_half_alpha() {
    // The counterfactual: the same marks with RFC 3168's reaction halve the window.
    let (trace, n) = run(CcKind::NewReno, vec![300, 301, 305, 320, 600]);
    assert_eq!(n, 2);
    for (before, after, _) in reductions(&trace) {
        assert!(after <= before / 2 + 1460, "{before} -> {after}");
    }
    let (dtrace, _) = run(CcKind::Dctcp, vec![300, 301, 305, 320, 600]);
    for (before, after, _) in reductions(&dtrace) {
        assert!(after > before * 3 / 4, "DCTCP cut {before} -> {after}");
    }
}
