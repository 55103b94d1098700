//! Runs a scenario file without Python, for profiling and for training the profile-guided build
//! (`scripts/pgo-install.sh`):
//! `cargo run --release -p aqmlab-sim --example run_scenario -- scenarios/bulk-dumbbell.toml`.
//! Arguments after the file swap disciplines as `aqmlab run --qdisc` does: `bottleneck=pie`.
//! `--steps=N` runs in N equal steps, taking (and dropping) the time series after each, as
//! `aqmlab run` and `aqmlab bench` do; without it the series stay in the simulation to the
//! end, so that a run of many flows also measures their growth (issue 24 item 3).

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::{load, Overrides};
use std::path::Path;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "scenarios/bulk-dumbbell.toml".into());
    let mut overrides = Overrides::default();
    let mut steps = None;
    for swap in args {
        if let Some(n) = swap.strip_prefix("--steps=") {
            match n.parse::<u32>() {
                Ok(n) if n > 0 => steps = Some(n),
                _ => {
                    eprintln!("aqmlab: error: `{swap}`: expected --steps=N, N a whole number > 0");
                    std::process::exit(2);
                }
            }
            continue;
        }
        let Some((link, kind)) = swap.split_once('=') else {
            eprintln!("aqmlab: error: `{swap}`: expected LINK=KIND, e.g. bottleneck=pie");
            std::process::exit(2);
        };
        overrides.qdisc.push((link.into(), kind.into()));
    }
    let mut s = match load(Path::new(&path), &overrides) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("aqmlab: error: {e}");
            std::process::exit(2);
        }
    };
    match steps {
        None => s.sim.run_until(SimTime::ZERO + s.duration),
        Some(n) => {
            for k in 1..=n {
                let ns = s.duration.as_nanos() as u128 * k as u128 / n as u128;
                s.sim.run_until(SimTime::from_nanos(ns as u64));
                drop(s.sim.take_series(false));
            }
        }
    }
    let r = s.sim.report();
    let delivered: u64 = r.flows.iter().map(|f| f.delivered_pkts).sum();
    println!(
        "{}: {} events, {} packets delivered",
        s.name, r.events, delivered
    );
    #[cfg(feature = "event-counts")]
    print_event_counts(&s.sim, &r, delivered);
}

/// The events by kind, then per link direction (with the `event-counts` feature).
#[cfg(feature = "event-counts")]
fn print_event_counts(sim: &aqmlab_sim::world::Sim, r: &aqmlab_report::Report, delivered: u64) {
    let c = sim.event_counts();
    let counted: u64 = c.by_kind.iter().sum();
    assert_eq!(counted, r.events, "every event processed is counted once");
    let per_pkt = |n: u64| n as f64 / delivered.max(1) as f64;
    for (name, &n) in aqmlab_sim::world::EVENT_KINDS.iter().zip(&c.by_kind) {
        if n > 0 {
            println!(
                "{name:>10} {n:>10} {:>7.3} per delivered packet",
                per_pkt(n)
            );
        }
    }
    let at = |v: &[u64], l: usize| v.get(l).copied().unwrap_or(0);
    println!(
        "{:>20} {:>10} {:>10} {:>14}",
        "link", "TxDone", "PipeHead", "woke at end"
    );
    for (l, link) in r.links.iter().enumerate() {
        println!(
            "{:>20} {:>10} {:>10} {:>14}",
            link.name,
            at(&c.tx_done, l),
            at(&c.pipe_head, l),
            at(&c.woke_at_tx_end, l)
        );
    }
}
