//! The fully resolved scenario: a scenario file in which every value is written out after the
//! defaults, the `--set` edits and the `--qdisc` swaps were applied (every discipline parameter
//! included), so that running it reproduces the run it was made from bit for bit.
//!
//! Its links are made from what the run was built with (each link direction's settings as the
//! builder resolved them, every discipline parameter written out); its flows are the
//! `[[flows]]` tables as the edited file gives them. It is always in the general form: `nodes` and `[[links]]` (a dumbbell becomes its links, with the same names
//! and order), each link with a full `reverse` table. Random streams are named by link
//! directions and flows (their names, or their positions when unnamed), which the resolved file
//! keeps, so its draws are the same. `tests/scenario.rs` rebuilds the resolved file of every
//! bundled scenario and checks that it gives the same links and flows.

use crate::world::Sim;
use aqmlab_core::{Bitrate, SimDuration, SimTime};
use std::path::PathBuf;
use toml_edit::{value, Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, Value};

/// How a link direction's rate was given.
#[derive(Clone, Debug)]
pub enum RateSpec {
    /// `rate = "..."`.
    Constant(Bitrate),
    /// `schedule = [[time, rate], ...]`.
    Schedule(Vec<(SimTime, Bitrate)>),
    /// `trace = "..."`: the trace file's absolute path.
    Trace(PathBuf),
}

/// One link direction as the builder resolved it.
#[derive(Clone, Debug)]
pub struct ResolvedDirection {
    /// Direction name (`NAME` or `NAME.rev`).
    pub name: String,
    /// Sending node.
    pub from: u32,
    /// Receiving node.
    pub to: u32,
    /// Rate.
    pub rate: RateSpec,
    /// Propagation delay.
    pub delay: SimDuration,
    /// Discipline kind.
    pub qdisc: &'static str,
    /// Every parameter of the discipline, given or default, in its table's order.
    pub params: Vec<(String, String)>,
    /// Random loss probability.
    pub loss: f64,
    /// The per-packet jitter as written (`"uniform(0ms, 1ms)"`), if any.
    pub jitter: Option<String>,
}

/// What the resolved file is made from, besides the simulation's flows.
pub struct ResolvedHeader<'a> {
    /// Scenario name.
    pub name: &'a str,
    /// Free text.
    pub description: &'a str,
    /// Duration.
    pub duration: SimDuration,
    /// Master seed (after `--seed`).
    pub seed: u64,
    /// Time-series bin.
    pub bin: SimDuration,
    /// Node names, in order.
    pub nodes: &'a [String],
    /// CSV series.
    pub csv: bool,
    /// The `[[flows]]` tables of the scenario text the run was built from (after `--set`).
    pub flows: ArrayOfTables,
    /// Measurement windows (the warm-up's first, when `warmup`).
    pub windows: &'a [crate::windows::WindowSpec],
    /// The first window is the warm-up's.
    pub warmup: bool,
}

fn t(time: SimTime) -> String {
    (time - SimTime::ZERO).to_string()
}

fn direction_table(d: &ResolvedDirection) -> Table {
    let mut tb = Table::new();
    match &d.rate {
        RateSpec::Constant(r) => {
            tb.insert("rate", value(r.to_string()));
        }
        RateSpec::Schedule(steps) => {
            let mut a = Array::new();
            for (at, r) in steps {
                let mut step = Array::new();
                step.push(t(*at));
                step.push(r.to_string());
                a.push(step);
            }
            tb.insert("schedule", value(a));
        }
        RateSpec::Trace(p) => {
            tb.insert("trace", value(p.display().to_string()));
        }
    }
    tb.insert("delay", value(d.delay.to_string()));
    tb.insert("qdisc", value(d.qdisc));
    if d.loss != 0.0 {
        tb.insert("loss", value(d.loss));
    }
    if let Some(j) = &d.jitter {
        tb.insert("jitter", value(j.as_str()));
    }
    let mut params = InlineTable::new();
    for (k, v) in &d.params {
        params.insert(k, Value::from(v.as_str()));
    }
    tb.insert("params", value(params));
    tb
}

/// The resolved scenario file of `sim`, built from `header` and `directions` (in the
/// simulation's link order: each forward direction followed by its reverse).
pub fn resolved_toml(
    header: &ResolvedHeader<'_>,
    directions: &[ResolvedDirection],
    sim: &Sim,
) -> String {
    let mut doc = DocumentMut::new();
    doc.insert("name", value(header.name));
    if !header.description.is_empty() {
        doc.insert("description", value(header.description));
    }
    doc.insert("duration", value(header.duration.to_string()));
    // TOML integers are 64-bit signed: a seed above i64::MAX is written as a string of digits,
    // which the loader also reads.
    match i64::try_from(header.seed) {
        Ok(s) => doc.insert("seed", value(s)),
        Err(_) => doc.insert("seed", value(header.seed.to_string())),
    };
    doc.insert("bin", value(header.bin.to_string()));
    let mut windows = header.windows;
    if header.warmup {
        let w = &windows[0];
        doc.insert("warmup", value(t(w.from)));
        windows = &windows[1..];
    }
    let mut nodes = Array::new();
    for n in header.nodes {
        nodes.push(n.as_str());
    }
    doc.insert("nodes", value(nodes));

    let mut links = ArrayOfTables::new();
    let mut it = directions.iter();
    while let (Some(fwd), Some(rev)) = (it.next(), it.next()) {
        let mut tb = Table::new();
        tb.insert("name", value(fwd.name.as_str()));
        tb.insert("from", value(header.nodes[fwd.from as usize].as_str()));
        tb.insert("to", value(header.nodes[fwd.to as usize].as_str()));
        for (k, v) in direction_table(fwd).iter() {
            tb.insert(k, v.clone());
        }
        tb.insert("reverse", Item::Table(direction_table(rev)));
        links.push(tb);
    }
    doc.insert("links", Item::ArrayOfTables(links));

    // The flows as the (edited) file gives them: their keys grew with every traffic model and
    // TCP knob, and copying them is the one way that cannot miss one. Node names are kept, so
    // their `from` and `to` still name the same nodes.
    let flows = header.flows.clone();
    doc.insert("flows", Item::ArrayOfTables(flows));
    if !windows.is_empty() {
        let mut ws = ArrayOfTables::new();
        for w in windows {
            let mut tb = Table::new();
            tb.insert("name", value(w.name.as_str()));
            tb.insert("from", value(t(w.from)));
            tb.insert("to", value(t(w.to)));
            ws.push(tb);
        }
        doc.insert("windows", Item::ArrayOfTables(ws));
    }

    let mut output = Table::new();
    output.insert("format", value(if header.csv { "csv" } else { "parquet" }));
    let mut logs = Array::new();
    for (name, _) in sim.packet_logs() {
        logs.push(name);
    }
    output.insert("packet_log", value(logs));
    let mut traced = Array::new();
    for name in sim.traced_links() {
        traced.push(name);
    }
    output.insert("trace", value(traced));
    doc.insert("output", Item::Table(output));

    doc.to_string()
}
