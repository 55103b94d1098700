//! Runs a scenario file without Python, for profiling:
//! `cargo run --release -p aqmlab-sim --example run_scenario -- scenarios/bulk-dumbbell.toml`.

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::{load, Overrides};
use std::path::Path;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "scenarios/bulk-dumbbell.toml".into());
    let mut s = match load(Path::new(&path), &Overrides::default()) {
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
