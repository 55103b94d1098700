//! The `summary.json` of a run (its keys are documented in `docs/data-format.md`).
//!
//! [`Summary`] serializes straight to its text: each flow's entry is built and written in
//! turn, so a run of many flows never holds the whole summary as a `serde_json::Value` tree
//! (about 8 kB a flow; issue 24), and it reads each flow's metrics where they are ([`Totals`]:
//! the simulation's own, with [`crate::world::Sim::totals`]) rather than from a copy.

use crate::world::{jain, Totals};
use aqmlab_qdisc::{DropReason, MarkReason};
use aqmlab_report::{FlowInfo, FlowMetrics, Report};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{json, Map, Value};

/// Milliseconds, rounded to nanosecond precision; JSON `null` for NaN (no samples).
fn ms(ns: f64) -> Value {
    if ns.is_finite() {
        json!(ns.round() / 1e6)
    } else {
        Value::Null
    }
}

/// `{reason: count}` for the reasons with a non-zero count.
fn by_reason<'a>(names: impl Iterator<Item = &'a str>, counts: &[u64]) -> Value {
    let mut m = Map::new();
    for (name, &c) in names.zip(counts) {
        if c > 0 {
            m.insert(name.to_string(), json!(c));
        }
    }
    Value::Object(m)
}

/// A flow's counts at each link direction its packets reached, by direction name, in the order
/// of the report's links.
fn at_links(r: &Totals, m: &FlowMetrics) -> Value {
    let mut v: Vec<_> = m.at_links.iter().collect();
    v.sort_by_key(|(l, _)| *l);
    let mut out = Map::new();
    for (l, c) in v {
        out.insert(
            r.links[l as usize].name.clone(),
            json!({
                "arrived_pkts": c.arrived_pkts,
                "arrived_bytes": c.arrived_bytes,
                "dropped_pkts": c.dropped_pkts,
                "drops_by_reason": by_reason(DropReason::ALL.iter().map(|r| r.as_str()), &c.drops_by_reason()),
                "marked_pkts": c.marked_pkts,
                "marks_by_reason": by_reason(MarkReason::ALL.iter().map(|r| r.as_str()), &c.marks_by_reason()),
                "lost_pkts": c.lost_pkts,
            }),
        );
    }
    Value::Object(out)
}

/// The summary of a run, written as JSON by serializing it (`serde_json::to_string`, or
/// [`crate::pyjson::to_pretty`] for the text of `summary.json`): its top-level keys in order, as
/// a `serde_json::Value` object would write them, with the `flows` entries made one at a time.
pub struct Summary<'a> {
    r: Totals<'a>,
    /// Every top-level key but `flows`.
    rest: Map<String, Value>,
    /// The measurement windows (`windows`), written as they are serialized.
    windows: Option<&'a crate::windows::Windows>,
}

impl<'a> Summary<'a> {
    /// The summary of `r` for scenario `name` run with `seed`; `wall_s` is measured by the caller.
    pub fn new(name: &str, seed: u64, r: &'a Report, wall_s: f64) -> Self {
        Self::of(name, seed, Totals::of_report(r), wall_s)
    }

    /// The summary of totals `r` (e.g. [`crate::world::Sim::totals`]), as [`Summary::new`].
    pub fn of(name: &str, seed: u64, r: Totals<'a>, wall_s: f64) -> Self {
        let t = r.sim_time.as_secs_f64();
        // Fairness is among the flows that have started: one that starts after the run's end
        // has had no chance to get a share.
        let mut goodputs = Vec::with_capacity(r.flow_count());
        let mut drops = Vec::with_capacity(r.flow_count());
        for (m, info) in r.flows() {
            if info.start.as_secs_f64() < t {
                goodputs.push(goodput(t, &m, info));
                drops.push(m.dropped_pkts as f64);
            }
        }
        let Value::Object(rest) = json!({
            "format_version": 1,
            "scenario": name,
            "seed": seed,
            "sim_time_s": t,
            "wall_s": wall_s,
            "events": r.events,
            "bin_s": r.bin.as_secs_f64(),
            "links": links(&r),
            "fairness": { "jain_goodput": jain(&goodputs), "jain_drops": jain(&drops) },
        }) else {
            unreachable!("json! of an object literal is an object")
        };
        Summary {
            r,
            rest,
            windows: None,
        }
    }

    /// Adds the top-level key `key` (not `flows`), e.g. the measurement windows' `windows`.
    pub fn insert(&mut self, key: &str, v: Value) {
        assert_ne!(key, "flows", "the summary's flows are made from its report");
        assert_ne!(key, "windows", "the windows are added by Summary::windows");
        self.rest.insert(key.to_string(), v);
    }

    /// Adds the top-level key `windows`: the summaries of the measurement windows `w` closed so
    /// far, made as they are written ([`crate::windows::Windows::view`]).
    pub fn windows(&mut self, w: &'a crate::windows::Windows) {
        self.windows = Some(w);
    }
}

impl Serialize for Summary<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.rest.len() + 1 + usize::from(self.windows.is_some());
        let mut m = s.serialize_map(Some(n))?;
        let mut flows = Some(Flows(&self.r));
        let mut windows = self.windows.map(|w| w.view(&self.r));
        // The keys in a `Map`'s (sorted) order, `flows` and `windows` in their places.
        for (k, v) in &self.rest {
            if k.as_str() > "flows" {
                if let Some(f) = flows.take() {
                    m.serialize_entry("flows", &f)?;
                }
            }
            if k.as_str() > "windows" {
                if let Some(w) = windows.take() {
                    m.serialize_entry("windows", &w)?;
                }
            }
            m.serialize_entry(k, v)?;
        }
        if let Some(f) = flows.take() {
            m.serialize_entry("flows", &f)?;
        }
        if let Some(w) = windows.take() {
            m.serialize_entry("windows", &w)?;
        }
        m.end()
    }
}

/// The `flows` array, each entry made as it is written.
struct Flows<'a, 'b>(&'b Totals<'a>);

impl Serialize for Flows<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mut seq = s.serialize_seq(Some(r.flow_count()))?;
        for (i, (m, info)) in r.flows().enumerate() {
            seq.serialize_element(&flow(r, i, &m, info))?;
        }
        seq.end()
    }
}

/// Builds the summary of `r` for scenario `name` run with `seed` as a `serde_json::Value`
/// (for tests and tools that look into it; [`Summary`] writes the same without the tree).
pub fn summary(name: &str, seed: u64, r: &Report, wall_s: f64) -> Value {
    serde_json::to_value(Summary::new(name, seed, r, wall_s))
        .expect("a summary serializes: its keys are strings")
}

/// A flow's measured one-way delay distribution after the warm-up (`[output]
/// owd_distribution`, [`crate::world::Sim::measure_owd`]): its summary and the sketch's
/// non-empty buckets `[lowest ns, highest ns, count]`, from which a reader pools flows or
/// takes any quantile (a bucket's value is its midpoint, clamped to the exact min and max).
fn owd_distribution(from: aqmlab_core::SimTime, s: &crate::sketch::QuantileSketch) -> Value {
    let buckets: Vec<[u64; 3]> = s.buckets().map(|(lo, hi, c)| [lo, hi, c]).collect();
    json!({
        "from_s": from.as_secs_f64(),
        "pkts": s.count(),
        "min_ms": ms(s.min()),
        "mean_ms": ms(s.mean()),
        "p50_ms": ms(s.quantile(0.5)),
        "p95_ms": ms(s.quantile(0.95)),
        "p99_ms": ms(s.quantile(0.99)),
        "max_ms": ms(s.max()),
        "buckets_ns": buckets,
    })
}

/// A flow's goodput (bit/s): a finite transfer's over its completion time; otherwise over the
/// time since the flow started (to `t`, the run's end in seconds).
fn goodput(t: f64, m: &FlowMetrics, info: &FlowInfo) -> f64 {
    let active_s = if info.app == "finite" && m.transfers_completed == 1 {
        m.fct_ns.mean() / 1e9
    } else {
        (t - info.start.as_secs_f64()).max(0.0)
    };
    if active_s > 0.0 {
        m.delivered_bytes as f64 * 8.0 / active_s
    } else {
        0.0
    }
}

/// The `links` object: each link direction's measurements, by name.
fn links(r: &Totals) -> Value {
    let mut links = Map::new();
    for (li, l) in r.links.iter().enumerate() {
        let s = &l.m.sojourn_ns;
        let mo = &l.m.sojourn_moments;
        // Drops in proportion to use: each flow's drops here over its arrivals here.
        let rates: Vec<f64> = r
            .flows()
            .filter_map(|(f, _)| {
                let (_, c) = f.at_links.iter().find(|(k, _)| *k as usize == li)?;
                (c.arrived_pkts > 0).then(|| c.dropped_pkts as f64 / c.arrived_pkts as f64)
            })
            .collect();
        links.insert(
            l.name.clone(),
            json!({
                "qdisc": l.qdisc,
                "sojourn_ms": {
                    "mean": ms(s.mean()), "p50": ms(s.quantile(0.50)), "p75": ms(s.quantile(0.75)),
                    "p95": ms(s.quantile(0.95)), "p99": ms(s.quantile(0.99)), "max": ms(s.max()),
                    "std": ms(mo.std()),
                },
                "sojourn_var_ms2": if mo.count() == 0 { Value::Null } else { json!(mo.variance() / 1e12) },
                "flows_arrived": rates.len(),
                "jain_drop_rate": if rates.is_empty() { Value::Null } else { json!(jain(&rates)) },
                "enqueued_pkts": l.m.enqueued_pkts,
                "delivered_pkts": l.m.delivered_pkts,
                "dropped_pkts": l.m.dropped_pkts,
                "marked_pkts": l.m.marked_pkts,
                "delivered_bytes": l.m.delivered_bytes,
                "utilization": l.utilization,
                "max_backlog_pkts": l.m.max_backlog_pkts,
                // What is still in the direction at the end: with these, every packet offered
                // is accounted for (enqueued = delivered + dropped + queued + transmitting).
                "queued_pkts_at_end": l.backlog_pkts,
                "transmitting_pkts_at_end": l.in_flight,
                "lost_pkts": l.m.lost_pkts,
                "drops_by_reason": by_reason(DropReason::ALL.iter().map(|r| r.as_str()), &l.m.drops_by_reason),
                "marks_by_reason": by_reason(MarkReason::ALL.iter().map(|r| r.as_str()), &l.m.marks_by_reason),
            }),
        );
    }
    Value::Object(links)
}

/// The entry of flow `i` (metrics `m`, scenario `info`) in the summary's `flows`.
fn flow(r: &Totals, i: usize, m: &FlowMetrics, info: &FlowInfo) -> Value {
    let t = r.sim_time.as_secs_f64();
    let secs = |ns: f64| {
        if ns.is_finite() {
            json!(ns / 1e9)
        } else {
            Value::Null
        }
    };
    let goodput = goodput(t, m, info);
    let mut flow = json!({
        "id": i,
        "name": info.name,
        "kind": info.kind,
        "cc": info.cc,
        "app": info.app,
        "src": &*info.src,
        "dst": &*info.dst,
        "sent_pkts": m.sent_pkts,
        "delivered_pkts": m.delivered_pkts,
        "delivered_bytes": m.delivered_bytes,
        "dropped_pkts": m.dropped_pkts,
        "goodput_bps": goodput,
        "retransmits": m.retransmits,
        "timeouts": m.timeouts,
        "fast_recoveries": m.fast_recoveries,
        "transfers_started": m.transfers_started,
        "transfers_completed": m.transfers_completed,
        "transfers_failed": m.transfers_failed,
        "fct_s": if m.transfers_completed == 0 { Value::Null } else { secs(m.fct_ns.mean()) },
        "fct_p50_s": if m.transfers_completed == 0 { Value::Null } else { secs(m.fct_ns.quantile(0.5)) },
        "fct_p99_s": if m.transfers_completed == 0 { Value::Null } else { secs(m.fct_ns.quantile(0.99)) },
        "srtt_ms": { "mean": ms(m.srtt_ns.mean()), "p50": ms(m.srtt_ns.quantile(0.5)), "p99": ms(m.srtt_ns.quantile(0.99)) },
        "links": at_links(r, m),
        "one_way_delay_ms": {
            "mean": ms(m.receiver.delay_ns.mean()), "p50": ms(m.receiver.delay_ns.quantile(0.5)),
            "p95": ms(m.receiver.delay_ns.quantile(0.95)), "p99": ms(m.receiver.delay_ns.quantile(0.99)),
            "max": ms(m.receiver.delay_ns.max()), "std": ms(m.receiver.delay_moments.std()),
        },
        "jitter_ms": if m.receiver.received_pkts < 2 { Value::Null } else { ms(m.receiver.jitter_ns) },
        "data_pkts_sent": m.receiver.sent_pkts,
        "data_pkts_received": m.receiver.received_pkts,
        "data_pkts_lost": m.receiver.lost_pkts,
        "loss_rate": if m.receiver.sent_pkts == 0 { Value::Null } else { json!(m.receiver.loss_rate()) },
    });
    if let Some((from, pair)) = r.owd(i) {
        // Toward the flow's destination (its data; a web flow's responses), and, for a flow
        // with data the other way too (a web client's requests), back toward its source.
        let [to_dst, to_src] = &*pair;
        flow["owd_distribution"] = owd_distribution(from, to_dst);
        if to_src.count() > 0 {
            flow["owd_distribution_reverse"] = owd_distribution(from, to_src);
        }
    }
    let done = |n: u64, v: f64| if n == 0 { Value::Null } else { secs(v) };
    if info.app == "page" {
        // RFC 7928 §2.1: a web page's completion time, request to last object.
        flow["pages"] = json!({
            "started": m.pages_started,
            "completed": m.pages_completed,
            "failed": m.pages_failed,
            "time_s": done(m.pages_completed, m.page_time_ns.mean()),
            "time_p50_s": done(m.pages_completed, m.page_time_ns.quantile(0.5)),
            "time_p99_s": done(m.pages_completed, m.page_time_ns.quantile(0.99)),
        });
    }
    if info.app == "video" {
        let n = m.video_segments;
        flow["video"] = json!({
            "segments": n,
            "bitrate_mean_bps": if n == 0 { Value::Null } else { json!(m.video_bitrate_sum_bps as f64 / n as f64) },
            "switches": m.video_switches,
            "rebuffers": m.video_rebuffers,
            "rebuffer_s": m.video_rebuffer_ns as f64 / 1e9,
            "startup_s": m.video_startup_ns.map_or(Value::Null, |ns| json!(ns as f64 / 1e9)),
        });
    }
    flow
}
