//! Runs a scenario file without Python, for profiling and for training the profile-guided build
//! (`scripts/pgo-install.sh`):
//! `cargo run --release -p aqmlab-sim --example run_scenario -- scenarios/bulk-dumbbell.toml`.
//! Arguments after the file swap disciplines as `aqmlab run --qdisc` does: `bottleneck=pie`.

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::{load, Overrides};
use std::path::Path;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "scenarios/bulk-dumbbell.toml".into());
    let mut overrides = Overrides::default();
    for swap in args {
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
    s.sim.run_until(SimTime::ZERO + s.duration);
    let r = s.sim.report();
    let delivered: u64 = r.flows.iter().map(|f| f.delivered_pkts).sum();
    println!(
        "{}: {} events, {} packets delivered",
        s.name, r.events, delivered
    );
}
