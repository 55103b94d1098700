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

use crate::metrics::SojournStats;
use crate::world::{jain, Report, Sim};
use aqmlab_core::SimTime;
use aqmlab_qdisc::{DropReason, MarkReason};
use serde_json::{json, Map, Value};

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

struct Open {
    slot: usize,
    start: Report,
}

/// The windows of a run, as it goes: open, closed (with their summaries) or to come.
pub struct Windows {
    specs: Vec<WindowSpec>,
    open: Vec<Option<Open>>,
    done: Vec<Option<Value>>,
}

impl Windows {
    /// The windows `specs` of a run that has not started.
    pub fn new(specs: Vec<WindowSpec>) -> Windows {
        let n = specs.len();
        Windows {
            specs,
            open: (0..n).map(|_| None).collect(),
            done: vec![None; n],
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
            let mut start: Option<Report> = None;
            for i in 0..self.specs.len() {
                if self.open[i].is_none() && self.done[i].is_none() && self.specs[i].from == edge {
                    let r = match &start {
                        Some(r) => r.clone(),
                        None => start.insert(sim.report()).clone(),
                    };
                    let slot = sim.begin_window();
                    self.open[i] = Some(Open { slot, start: r });
                }
            }
            let mut end: Option<Report> = None;
            for i in 0..self.specs.len() {
                if self.done[i].is_none() && self.specs[i].to == edge {
                    if let Some(o) = self.open[i].take() {
                        let soj = sim.end_window(o.slot);
                        if end.is_none() {
                            end = Some(sim.report());
                        }
                        let e = end.as_ref().expect("just set");
                        self.done[i] = Some(window_summary(&self.specs[i], &o.start, e, &soj));
                    }
                }
            }
        }
        sim.now() >= until || sim.run_until_unless(until, stop)
    }

    /// `{name: summary}` of the windows closed so far.
    pub fn summary(&self) -> Value {
        let mut m = Map::new();
        for (w, d) in self.specs.iter().zip(&self.done) {
            if let Some(v) = d {
                m.insert(w.name.clone(), v.clone());
            }
        }
        Value::Object(m)
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
/// and its own sojourn times `soj` (per link direction, in link order).
fn window_summary(w: &WindowSpec, a: &Report, b: &Report, soj: &[SojournStats]) -> Value {
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
    let mut flows = Vec::with_capacity(b.flows.len());
    let mut goodputs = Vec::new();
    for (i, (fa, fb)) in a.flows.iter().zip(&b.flows).enumerate() {
        let bytes = fb.delivered_bytes - fa.delivered_bytes;
        let goodput = if secs > 0.0 {
            bytes as f64 * 8.0 / secs
        } else {
            0.0
        };
        if b.flow_info[i].start < w.to {
            goodputs.push(goodput);
        }
        flows.push(json!({
            "id": i,
            "name": b.flow_info[i].name,
            "delivered_bytes": bytes,
            "goodput_bps": goodput,
            "sent_pkts": fb.sent_pkts - fa.sent_pkts,
            "dropped_pkts": fb.dropped_pkts - fa.dropped_pkts,
            "transfers_completed": fb.transfers_completed - fa.transfers_completed,
        }));
    }
    json!({
        "from_s": (w.from - SimTime::ZERO).as_secs_f64(),
        "to_s": (w.to - SimTime::ZERO).as_secs_f64(),
        "links": links,
        "flows": flows,
        "fairness": { "jain_goodput": jain(&goodputs) },
    })
}
