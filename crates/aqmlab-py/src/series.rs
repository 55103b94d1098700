//! A chunk of a run's time series as Python sees it (`Run.take_series`): per table (`links`,
//! `flows`, `packets`, `drops`, `states`, `flow_states`; docs/data-format.md), its columns as Arrow buffers
//! ([`crate::columns`]), so the Python side wraps them without converting each value.

use crate::columns::{F64Column, I64Column, StrColumn};
use aqmlab_sim::world::{FlowSpec, SeriesChunk, Sim};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Where bin `i` of a chunk lies: its start and the part of it within the run.
struct BinClock {
    first_bin: usize,
    bin_ns: u64,
    now_ns: u64,
}

impl BinClock {
    /// Bin start in seconds, from integer nanoseconds: k·bin_ns / 1e9 is the double nearest the
    /// true value (k·bin_s would give 0.30000000000000004 for the fourth 100 ms bin).
    fn t_s(&self, i: usize) -> f64 {
        ((self.first_bin + i) as u64 * self.bin_ns) as f64 / 1e9
    }
    /// The part of bin i within the run, seconds: the whole bin but for the last, partial one a
    /// take to the end hands out.
    fn covered_s(&self, i: usize) -> f64 {
        let start = (self.first_bin + i) as u64 * self.bin_ns;
        ((start + self.bin_ns).min(self.now_ns).saturating_sub(start)) as f64 / 1e9
    }
}

/// The records of every link direction (each list in time order), merged in order of (time,
/// direction), with each record's direction: a chunk holds the records of one stretch of
/// simulated time, so successive chunks' rows follow that one order however the run was cut
/// into steps.
fn in_time_order<'a, R>(
    per_link: &'a [Vec<R>],
    t_ns: impl Fn(&R) -> u64 + 'a,
) -> impl Iterator<Item = (usize, &'a R)> + 'a {
    let mut next = vec![0usize; per_link.len()];
    std::iter::from_fn(move || {
        // The direction whose next record is earliest (the first such on a tie); few
        // directions, so a scan beats a heap.
        let (l, r) = per_link
            .iter()
            .enumerate()
            .filter_map(|(l, recs)| recs.get(next[l]).map(|r| (l, r)))
            .min_by_key(|&(l, r)| (t_ns(r), l))?;
        next[l] += 1;
        Some((l, r))
    })
}

/// `sum / n`, NaN when there were no samples.
fn mean(sum: u64, n: u64) -> f64 {
    if n == 0 {
        f64::NAN
    } else {
        sum as f64 / n as f64
    }
}

/// The mean of `n` durations summing to `sum_ns`, in milliseconds; NaN when there were none.
fn mean_ms(sum_ns: u64, n: u64) -> f64 {
    mean(sum_ns, n) / 1e6
}

/// Takes the bins ended since the last take (every bin left with `to_end`) from `sim` as a dict
/// of tables; `cumulative` holds each flow's bytes delivered in the chunks handed out before.
pub fn take<'py>(
    py: Python<'py>,
    sim: &mut Sim,
    cumulative: &mut Vec<u64>,
    to_end: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let names: Vec<String> = sim.link_names().map(str::to_string).collect();
    let clock = BinClock {
        first_bin: 0,
        bin_ns: sim.report_bin().as_nanos(),
        now_ns: sim.now().as_nanos(),
    };
    let mut c = sim.take_series(to_end);
    let clock = BinClock {
        first_bin: c.first_bin,
        ..clock
    };
    let d = PyDict::new(py);
    d.set_item("links", links(py, &names, &c, &clock)?)?;
    d.set_item("flows", flows(py, sim, &mut c, &clock, cumulative)?)?;
    d.set_item("packets", packets(py, &names, &c)?)?;
    d.set_item("drops", drops(py, &names, &c)?)?;
    d.set_item("states", states(py, &names, &c)?)?;
    d.set_item("flow_states", flow_states(py, &c)?)?;
    Ok(d)
}

fn links<'py>(
    py: Python<'py>,
    names: &[String],
    c: &SeriesChunk,
    clock: &BinClock,
) -> PyResult<Bound<'py, PyDict>> {
    let rows = names.len() * c.bins;
    let mut link = StrColumn::with_capacity(rows);
    let mut t_s = F64Column::with_capacity(rows);
    let [mut ingress, mut egress, mut backlog_pkts, mut backlog_bytes, mut drops, mut released] =
        std::array::from_fn(|_| I64Column::with_capacity(rows));
    let [mut sojourn_ms, mut mean_pkts, mut mean_bytes, mut capacity_bps] =
        std::array::from_fn(|_| F64Column::with_capacity(rows));
    // Bin by bin, every link direction's row: the rows of successive chunks then follow one
    // order, (bin, direction), however the run was cut into steps.
    for i in 0..c.bins {
        for (name, bins) in names.iter().zip(&c.links) {
            let b = &bins[i];
            link.push(name);
            t_s.push(clock.t_s(i));
            ingress.push(b.ingress_bytes);
            egress.push(b.egress_bytes);
            backlog_pkts.push(b.max_backlog_pkts);
            backlog_bytes.push(b.max_backlog_bytes);
            drops.push(b.drops);
            released.push(b.released_pkts);
            sojourn_ms.push(mean_ms(b.sojourn_sum_ns, b.released_pkts));
            // Time averages over the part of the bin within the run.
            let secs = clock.covered_s(i);
            let per_s = |x: f64| if secs > 0.0 { x / secs } else { f64::NAN };
            mean_pkts.push(per_s(b.queue_pkt_ns as f64 / 1e9));
            mean_bytes.push(per_s(b.queue_byte_ns as f64 / 1e9));
            capacity_bps.push(per_s(b.capacity_bits as f64));
        }
    }
    let d = PyDict::new(py);
    d.set_item("link", link.into_py(py)?)?;
    d.set_item("t_s", t_s.into_py(py))?;
    d.set_item("ingress_bytes", ingress.into_py(py))?;
    d.set_item("egress_bytes", egress.into_py(py))?;
    d.set_item("max_backlog_pkts", backlog_pkts.into_py(py))?;
    d.set_item("max_backlog_bytes", backlog_bytes.into_py(py))?;
    d.set_item("drops", drops.into_py(py))?;
    d.set_item("released_pkts", released.into_py(py))?;
    d.set_item("mean_sojourn_ms", sojourn_ms.into_py(py))?;
    d.set_item("mean_backlog_pkts", mean_pkts.into_py(py))?;
    d.set_item("mean_backlog_bytes", mean_bytes.into_py(py))?;
    d.set_item("capacity_bps", capacity_bps.into_py(py))?;
    Ok(d)
}

/// The flows table of chunk `c`, whose per-flow rows it frees once read (with a bin of many
/// flows, they and the columns made of them were both held: issue 24).
fn flows<'py>(
    py: Python<'py>,
    sim: &Sim,
    c: &mut SeriesChunk,
    clock: &BinClock,
    cumulative: &mut Vec<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    if cumulative.len() < c.flows.len() {
        cumulative.resize(c.flows.len(), 0);
    }
    // The flows that keep a series (`[output] flow_series`); the others have no rows.
    let kept: Vec<usize> = (0..c.flows.len())
        .filter(|&k| sim.flow_has_series(k))
        .collect();
    let rows = c.flows.iter().map(Vec::len).sum();
    let [mut flow, mut delivered, mut cum] =
        std::array::from_fn(|_| I64Column::with_capacity(rows));
    let [mut t_s, mut srtt_ms, mut cwnd, mut ssthresh] =
        std::array::from_fn(|_| F64Column::with_capacity(rows));
    let mut name = StrColumn::with_capacity(rows);
    // Each flow's name looked up once a chunk, not once a row: the lookup reads the flow and
    // its spec, two cache misses a row with thousands of flows (issue 24 item 3).
    let names: Vec<Option<&str>> = kept
        .iter()
        .map(|&k| {
            sim.flow_spec(k).and_then(|f| match f {
                FlowSpec::Udp(u) => u.name.as_deref(),
                FlowSpec::Tcp(t) => t.name.as_deref(),
            })
        })
        .collect();
    // Bin by bin, every flow's row (see `links`).
    for i in 0..c.bins {
        for (&k, &k_name) in kept.iter().zip(&names) {
            let b = &c.flows[k][i];
            cumulative[k] += b.delivered_bytes;
            flow.push(k as u64);
            t_s.push(clock.t_s(i));
            delivered.push(b.delivered_bytes);
            cum.push(cumulative[k]);
            srtt_ms.push(mean_ms(b.srtt_sum_ns, b.srtt_samples));
            name.push_opt(k_name);
            cwnd.push(mean(b.cwnd_sum_bytes, b.acks));
            ssthresh.push(mean(b.ssthresh_sum_bytes, b.ssthresh_samples));
        }
    }
    c.flows = Vec::new();
    let d = PyDict::new(py);
    d.set_item("flow", flow.into_py(py))?;
    d.set_item("t_s", t_s.into_py(py))?;
    d.set_item("delivered_bytes", delivered.into_py(py))?;
    d.set_item("cumulative_bytes", cum.into_py(py))?;
    d.set_item("srtt_ms", srtt_ms.into_py(py))?;
    d.set_item("name", name.into_py(py)?)?;
    d.set_item("cwnd_bytes", cwnd.into_py(py))?;
    d.set_item("ssthresh_bytes", ssthresh.into_py(py))?;
    Ok(d)
}

/// The columns a packet-log row and a drop row share: link, t_ns, sojourn_ns, size, flow.
struct PacketColumns {
    link: StrColumn,
    t_ns: I64Column,
    sojourn_ns: I64Column,
    size: I64Column,
    flow: I64Column,
}

impl PacketColumns {
    fn with_capacity(rows: usize) -> Self {
        let [t_ns, sojourn_ns, size, flow] =
            std::array::from_fn(|_| I64Column::with_capacity(rows));
        PacketColumns {
            link: StrColumn::with_capacity(rows),
            t_ns,
            sojourn_ns,
            size,
            flow,
        }
    }

    fn push(&mut self, link: &str, t_ns: u64, sojourn_ns: u64, size: u32, flow: u32) {
        self.link.push(link);
        self.t_ns.push(t_ns);
        self.sojourn_ns.push(sojourn_ns);
        self.size.push(size.into());
        self.flow.push(flow.into());
    }

    fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("link", self.link.into_py(py)?)?;
        d.set_item("t_ns", self.t_ns.into_py(py))?;
        d.set_item("sojourn_ns", self.sojourn_ns.into_py(py))?;
        d.set_item("size", self.size.into_py(py))?;
        d.set_item("flow", self.flow.into_py(py))?;
        Ok(d)
    }
}

fn packets<'py>(
    py: Python<'py>,
    names: &[String],
    c: &SeriesChunk,
) -> PyResult<Bound<'py, PyDict>> {
    let mut cols = PacketColumns::with_capacity(c.packets.iter().map(Vec::len).sum());
    for (l, r) in in_time_order(&c.packets, |r| r.t_ns) {
        cols.push(&names[l], r.t_ns, r.sojourn_ns, r.size, r.flow);
    }
    cols.into_dict(py)
}

fn drops<'py>(py: Python<'py>, names: &[String], c: &SeriesChunk) -> PyResult<Bound<'py, PyDict>> {
    let rows = c.drops.iter().map(Vec::len).sum();
    let mut cols = PacketColumns::with_capacity(rows);
    let mut reason = StrColumn::with_capacity(rows);
    for (l, r) in in_time_order(&c.drops, |r| r.t_ns) {
        cols.push(&names[l], r.t_ns, r.sojourn_ns, r.size, r.flow);
        reason.push(r.reason.map_or("wire_loss", |x| x.as_str()));
    }
    let d = cols.into_dict(py)?;
    d.set_item("reason", reason.into_py(py)?)?;
    Ok(d)
}

fn states<'py>(py: Python<'py>, names: &[String], c: &SeriesChunk) -> PyResult<Bound<'py, PyDict>> {
    let rows = c.states.iter().map(Vec::len).sum();
    let [mut link, mut var] = std::array::from_fn(|_| StrColumn::with_capacity(rows));
    let mut t_ns = I64Column::with_capacity(rows);
    let mut value = F64Column::with_capacity(rows);
    for (l, ch) in in_time_order(&c.states, |ch| ch.t_ns) {
        link.push(&names[l]);
        t_ns.push(ch.t_ns);
        var.push(ch.var);
        value.push(ch.value);
    }
    let d = PyDict::new(py);
    d.set_item("link", link.into_py(py)?)?;
    d.set_item("t_ns", t_ns.into_py(py))?;
    d.set_item("var", var.into_py(py)?)?;
    d.set_item("value", value.into_py(py))?;
    Ok(d)
}

/// The traced flows' sender state samples, in order of (time, flow).
fn flow_states<'py>(py: Python<'py>, c: &SeriesChunk) -> PyResult<Bound<'py, PyDict>> {
    let rows = c.flow_states.iter().map(Vec::len).sum();
    let mut flow = I64Column::with_capacity(rows);
    let mut t_ns = I64Column::with_capacity(rows);
    let mut var = StrColumn::with_capacity(rows);
    let mut value = F64Column::with_capacity(rows);
    for (f, r) in in_time_order(&c.flow_states, |r| r.t.as_nanos()) {
        flow.push(f as u64);
        t_ns.push(r.t.as_nanos());
        var.push(r.var);
        value.push(r.value);
    }
    let d = PyDict::new(py);
    d.set_item("flow", flow.into_py(py))?;
    d.set_item("t_ns", t_ns.into_py(py))?;
    d.set_item("var", var.into_py(py)?)?;
    d.set_item("value", value.into_py(py))?;
    Ok(d)
}
