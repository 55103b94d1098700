//! Measurement windows: `warmup = "10s"` and `[[windows]] name = ..., from = ..., to = ...`.
//!
//! A window `[from, to)` gets a summary of its own (`summary.json`'s `windows.<name>`): the
//! sojourn times of the packets each link direction released in it, in a sketch of their own,
//! and the counts of the run over it (drops, marks, bytes, utilization, each flow's goodput),
//! as the differences of the run's counters at its two ends. [`Windows::run_until`] runs the
//! simulation to each window edge in turn, so the counters are read exactly there: after every
//! event before the edge, none at or after it, as a run of duration `to` ends. A window
//! `[0, T)` therefore has exactly the summary of the same run cut at `T`
//! (`tests/measurements.rs` checks it).

use crate::world::{jain, LinkReport, Sim, Totals};
use aqmlab_core::SimTime;
use aqmlab_link::SojournStats;
use aqmlab_qdisc::{DropReason, MarkReason};
use aqmlab_report::FlowMetrics;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// A window as the scenario names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowSpec {
    /// Name (`after_warmup` for the warm-up's).
    pub name: String,
    /// Start (inclusive).
    pub from: SimTime,
    /// End (exclusive).
    pub to: SimTime,
}

/// The name of the window a `warmup` makes: from the warm-up's end to the end of the run.
pub const AFTER_WARMUP: &str = "after_warmup";

/// The counters of a flow that a window's summary takes the differences of: at an edge, their
/// values; in a closed window, the differences. Plain numbers (32 bytes a flow), so that a
/// window costs a run of many flows little (issue 24).
#[derive(Clone, Copy, Debug, Default)]
struct FlowCounts {
    delivered_bytes: u64,
    sent_pkts: u64,
    dropped_pkts: u64,
    transfers_completed: u64,
}

impl FlowCounts {
    fn of(m: &FlowMetrics) -> FlowCounts {
        FlowCounts {
            delivered_bytes: m.delivered_bytes,
            sent_pkts: m.sent_pkts,
            dropped_pkts: m.dropped_pkts,
            transfers_completed: m.transfers_completed,
        }
    }

    /// These counts less those `a` of an earlier edge.
    fn since(self, a: FlowCounts) -> FlowCounts {
        FlowCounts {
            delivered_bytes: self.delivered_bytes - a.delivered_bytes,
            sent_pkts: self.sent_pkts - a.sent_pkts,
            dropped_pkts: self.dropped_pkts - a.dropped_pkts,
            transfers_completed: self.transfers_completed - a.transfers_completed,
        }
    }
}

/// The run's counters at a window edge: each link direction's report (a run has a few) and
/// each flow's [`FlowCounts`], read in place ([`Sim::totals`]), not a [`crate::world::Report`]
/// (which clones every flow's metrics and series).
struct Edge {
    links: Vec<LinkReport>,
    flows: Vec<FlowCounts>,
}

impl Edge {
    fn of(sim: &Sim) -> Edge {
        let mut t = sim.totals();
        let flows = (0..t.flow_count())
            .map(|i| FlowCounts::of(&t.flow(i).0))
            .collect();
        Edge {
            links: std::mem::take(&mut t.links),
            flows,
        }
    }
}

struct Open {
    slot: usize,
    /// Shared by the windows that open at the same edge.
    start: Arc<Edge>,
}

/// A closed window's summary: every key but `flows` as JSON (a few per link direction), and
/// each flow's counts over the window, written out with the summary ([`WindowsSummary`]).
struct Closed {
    rest: Map<String, Value>,
    flows: Vec<FlowCounts>,
    secs: f64,
}

/// The windows of a run, as it goes: open, closed (with their summaries) or to come.
pub struct Windows {
    specs: Vec<WindowSpec>,
    open: Vec<Option<Open>>,
    done: Vec<Option<Closed>>,
}

impl Windows {
    /// The windows `specs` of a run that has not started.
    pub fn new(specs: Vec<WindowSpec>) -> Windows {
        let n = specs.len();
        Windows {
            specs,
            open: (0..n).map(|_| None).collect(),
            done: (0..n).map(|_| None).collect(),
        }
    }

    /// Whether there are any.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// Runs `sim` to `until` ([`Sim::run_until`]), stopping at each window edge on the way
    /// (and at one at `until` itself) to open or close the window there.
    pub fn run_until(&mut self, sim: &mut Sim, until: SimTime) {
        self.run_until_unless(sim, until, &mut || false);
    }

    /// [`Windows::run_until`] that may stop early, as [`Sim::run_until_unless`] does (false
    /// when it did); a later call to the same `until` goes on where it stopped.
    pub fn run_until_unless(
        &mut self,
        sim: &mut Sim,
        until: SimTime,
        stop: &mut dyn FnMut() -> bool,
    ) -> bool {
        loop {
            let now = sim.now();
            // The next edge not yet handled, at or before `until`.
            let next = self
                .specs
                .iter()
                .enumerate()
                .flat_map(|(i, w)| {
                    let opened = self.open[i].is_some() || self.done[i].is_some();
                    let closed = self.done[i].is_some();
                    [(!opened).then_some(w.from), (!closed).then_some(w.to)]
                })
                .flatten()
                .filter(|&t| t <= until)
                .min();
            let Some(edge) = next else { break };
            if edge > now && !sim.run_until_unless(edge, stop) {
                return false;
            }
            let mut start: Option<Arc<Edge>> = None;
            for i in 0..self.specs.len() {
                if self.open[i].is_none() && self.done[i].is_none() && self.specs[i].from == edge {
                    let start = start.get_or_insert_with(|| Arc::new(Edge::of(sim))).clone();
                    let slot = sim.begin_window();
                    self.open[i] = Some(Open { slot, start });
                }
            }
            let mut end: Option<Edge> = None;
            for i in 0..self.specs.len() {
                if self.done[i].is_none() && self.specs[i].to == edge {
                    if let Some(o) = self.open[i].take() {
                        let soj = sim.end_window(o.slot);
                        let e = end.get_or_insert_with(|| Edge::of(sim));
                        self.done[i] = Some(close(sim, &self.specs[i], &o.start, e, &soj));
                    }
                }
            }
        }
        sim.now() >= until || sim.run_until_unless(until, stop)
    }

    /// `{name: summary}` of the windows closed so far, made as it is serialized (each flow's
    /// entry as it is written); `r` (the run's totals) names the flows.
    pub fn view<'s>(&'s self, r: &'s Totals<'_>) -> WindowsSummary<'s> {
        WindowsSummary {
            w: self,
            names: Box::new(move |i| r.flow(i).1.name.as_deref()),
        }
    }

    /// [`Windows::view`] as a JSON tree (for tests and tools that look into it).
    pub fn summary(&self, r: &Totals) -> Value {
        serde_json::to_value(self.view(r)).expect("a windows summary serializes")
    }
}

/// The `windows` object of a summary ([`Windows::view`]).
pub struct WindowsSummary<'s> {
    w: &'s Windows,
    names: Box<dyn Fn(usize) -> Option<&'s str> + 's>,
}

impl Serialize for WindowsSummary<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // In a `Map`'s (sorted) order, as the tree of the same windows would be written (the
        // scenario rejects a name used twice).
        let mut done: Vec<(&str, &Closed)> = (self.w.specs.iter().zip(&self.w.done))
            .filter_map(|(w, d)| Some((w.name.as_str(), d.as_ref()?)))
            .collect();
        done.sort_by(|a, b| a.0.cmp(b.0));
        let mut m = s.serialize_map(Some(done.len()))?;
        for (name, c) in done {
            m.serialize_entry(name, &ClosedSummary(c, &*self.names))?;
        }
        m.end()
    }
}

struct ClosedSummary<'c, 'n>(&'c Closed, &'c (dyn Fn(usize) -> Option<&'n str> + 'n));

impl Serialize for ClosedSummary<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = self.0;
        let mut m = s.serialize_map(Some(c.rest.len() + 1))?;
        let mut flows = Some(ClosedFlows(c, self.1));
        // The keys in a `Map`'s (sorted) order, `flows` in its place among them.
        for (k, v) in &c.rest {
            if k.as_str() > "flows" {
                if let Some(f) = flows.take() {
                    m.serialize_entry("flows", &f)?;
                }
            }
            m.serialize_entry(k, v)?;
        }
        if let Some(f) = flows.take() {
            m.serialize_entry("flows", &f)?;
        }
        m.end()
    }
}

/// A closed window's `flows` array, each entry made as it is written.
struct ClosedFlows<'c, 'n>(&'c Closed, &'c (dyn Fn(usize) -> Option<&'n str> + 'n));

impl Serialize for ClosedFlows<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = self.0;
        let mut seq = s.serialize_seq(Some(c.flows.len()))?;
        for (i, f) in c.flows.iter().enumerate() {
            seq.serialize_element(&json!({
                "id": i,
                "name": (self.1)(i),
                "delivered_bytes": f.delivered_bytes,
                "goodput_bps": goodput(f, c.secs),
                "sent_pkts": f.sent_pkts,
                "dropped_pkts": f.dropped_pkts,
                "transfers_completed": f.transfers_completed,
            }))?;
        }
        seq.end()
    }
}

/// A flow's goodput over a window of `secs` seconds, bit/s.
fn goodput(f: &FlowCounts, secs: f64) -> f64 {
    if secs > 0.0 {
        f.delivered_bytes as f64 * 8.0 / secs
    } else {
        0.0
    }
}

/// Milliseconds, rounded to nanosecond precision; `null` for NaN.
fn ms(ns: f64) -> Value {
    if ns.is_finite() {
        json!(ns.round() / 1e6)
    } else {
        Value::Null
    }
}

fn by_reason<'a>(names: impl Iterator<Item = &'a str>, a: &[u64], b: &[u64]) -> Value {
    let mut m = Map::new();
    for ((name, x), y) in names.zip(a).zip(b) {
        if y > x {
            m.insert(name.to_string(), json!(y - x));
        }
    }
    Value::Object(m)
}

/// The summary of window `w`: the run's counters at its end `b` less those at its start `a`,
/// and its own sojourn times `soj` (per link direction, in link order); `sim` tells when each
/// flow starts.
fn close(sim: &Sim, w: &WindowSpec, a: &Edge, b: &Edge, soj: &[SojournStats]) -> Closed {
    let secs = (w.to - w.from).as_secs_f64();
    let mut links = Map::new();
    for ((la, lb), s) in a.links.iter().zip(&b.links).zip(soj) {
        let (ma, mb) = (&la.m, &lb.m);
        let k = &s.sketch;
        let cap = lb.capacity_bits - la.capacity_bits;
        let delivered = mb.delivered_bytes - ma.delivered_bytes;
        links.insert(
            lb.name.clone(),
            json!({
                "sojourn_ms": {
                    "mean": ms(k.mean()), "p50": ms(k.quantile(0.50)), "p75": ms(k.quantile(0.75)),
                    "p95": ms(k.quantile(0.95)), "p99": ms(k.quantile(0.99)), "max": ms(k.max()),
                    "std": ms(s.moments.std()),
                },
                "enqueued_pkts": mb.enqueued_pkts - ma.enqueued_pkts,
                "released_pkts": s.moments.count(),
                "delivered_pkts": mb.delivered_pkts - ma.delivered_pkts,
                "delivered_bytes": delivered,
                "dropped_pkts": mb.dropped_pkts - ma.dropped_pkts,
                "marked_pkts": mb.marked_pkts - ma.marked_pkts,
                "lost_pkts": mb.lost_pkts - ma.lost_pkts,
                "drops_by_reason": by_reason(DropReason::ALL.iter().map(|r| r.as_str()), &ma.drops_by_reason, &mb.drops_by_reason),
                "marks_by_reason": by_reason(MarkReason::ALL.iter().map(|r| r.as_str()), &ma.marks_by_reason, &mb.marks_by_reason),
                "utilization": if cap == 0 { 0.0 } else { delivered as f64 * 8.0 / cap as f64 },
            }),
        );
    }
    let totals = sim.totals();
    let flows: Vec<FlowCounts> = a
        .flows
        .iter()
        .zip(&b.flows)
        .map(|(fa, fb)| fb.since(*fa))
        .collect();
    // Fairness is among the flows started before the window's end.
    let goodputs: Vec<f64> = flows
        .iter()
        .enumerate()
        .filter(|&(i, _)| totals.flow(i).1.start < w.to)
        .map(|(_, f)| goodput(f, secs))
        .collect();
    let Value::Object(rest) = json!({
        "from_s": (w.from - SimTime::ZERO).as_secs_f64(),
        "to_s": (w.to - SimTime::ZERO).as_secs_f64(),
        "links": links,
        "fairness": { "jain_goodput": jain(&goodputs) },
    }) else {
        unreachable!("json! of an object literal is an object")
    };
    Closed { rest, flows, secs }
}
