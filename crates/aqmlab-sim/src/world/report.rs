//! What a run measures and hands out: the [`Report`] snapshot, with each flow's totals and
//! per-bin rows ([`FlowMetrics`], [`FlowBin`]; these types live in `aqmlab-report`, which the
//! live emulator shares), the [`Totals`] a summary reads, the [`SeriesChunk`]s
//! [`Sim::take_series`] streams out between steps, and the switches that choose what else is recorded (per-packet logs, state
//! traces, measurement windows). Kept apart from the event loop: nothing here runs per packet;
//! it reads what the handlers counted.

use super::{DropRecord, LinkBin, LinkReport, PacketRecord, Sim};
use aqmlab_core::{SimDuration, SimTime};
use aqmlab_link::SojournStats;
use aqmlab_report::{FlowBin, FlowBinColumns, FlowInfo, FlowMetrics, OwdPair, Report};
use std::borrow::Cow;

/// The time series of bins `[first_bin, first_bin + bins)` (absolute indices), handed out by
/// [`Sim::take_series`] and no longer held by the simulation.
#[derive(Clone, Debug, Default)]
pub struct SeriesChunk {
    /// Absolute index of the first bin.
    pub first_bin: usize,
    /// Number of bins.
    pub bins: usize,
    /// Per link direction (in the order of [`Report::links`]): one row per bin.
    pub links: Vec<Vec<LinkBin>>,
    /// Per flow: one row per bin; none for a flow that keeps no series
    /// ([`Sim::drop_flow_series`]).
    pub flows: Vec<Vec<FlowBin>>,
    /// Per link direction: the per-packet log records since the last take (empty when the
    /// link keeps no log).
    pub packets: Vec<Vec<PacketRecord>>,
    /// Per link direction: the log's drops since the last take.
    pub drops: Vec<Vec<DropRecord>>,
    /// Per link direction: its discipline's state changes since the last take (empty when not
    /// traced).
    pub states: Vec<Vec<aqmlab_qdisc::StateChange>>,
    /// Per flow: its sender state's samples since the last take (empty when not traced:
    /// [`Sim::trace_flow_state`]).
    pub flow_states: Vec<Vec<super::FlowStateRow>>,
}

/// A run's totals as a summary reads them ([`crate::summary::Summary`]): a [`Report`]'s, or
/// the simulation's own, borrowed ([`Sim::totals`]), so that the summary of a run of many flows
/// copies no flow's metrics (a [`Sim::report`] clones each, and its series: issue 24). It holds
/// no time series.
pub struct Totals<'a> {
    /// Simulated time reached.
    pub sim_time: SimTime,
    /// Events processed.
    pub events: u64,
    /// Width of the time-series bins.
    pub bin: SimDuration,
    /// Per link direction.
    pub links: Vec<LinkReport>,
    /// The warm-up's end and per flow (perhaps fewer than the flows: the rest measured
    /// nothing) the one-way delays of its data packets since, as in [`Report::owd`].
    owd: Option<(SimTime, &'a [OwdPair])>,
    flows: TotalsFlows<'a>,
}

/// Where [`Totals`] reads each flow's metrics from.
enum TotalsFlows<'a> {
    Report(&'a [FlowMetrics], &'a [FlowInfo]),
    Sim(&'a Sim),
}

impl<'a> Totals<'a> {
    /// The number of flows.
    pub fn flow_count(&self) -> usize {
        match self.flows {
            TotalsFlows::Report(m, _) => m.len(),
            TotalsFlows::Sim(s) => s.flow_count(),
        }
    }

    /// Flow `i`'s metrics, as [`Report::flows`] holds them (a stall going on counted: a copy
    /// then; its per-bin vectors are empty), and what it is.
    pub fn flow(&self, i: usize) -> (Cow<'a, FlowMetrics>, &'a FlowInfo) {
        match self.flows {
            TotalsFlows::Report(m, info) => (Cow::Borrowed(&m[i]), &info[i]),
            TotalsFlows::Sim(s) => {
                let f = &s.flows[i];
                let m = match s.video_stall_now(i as u32) {
                    None => Cow::Borrowed(&f.m),
                    Some(stall) => {
                        let mut m = f.m.clone();
                        m.video_rebuffers += 1;
                        m.video_rebuffer_ns += stall.as_nanos();
                        Cow::Owned(m)
                    }
                };
                (m, &f.info)
            }
        }
    }

    /// Every flow's [`Totals::flow`], in order.
    pub fn flows(&self) -> impl Iterator<Item = (Cow<'a, FlowMetrics>, &'a FlowInfo)> + '_ {
        (0..self.flow_count()).map(|i| self.flow(i))
    }

    /// With [`Sim::measure_owd`]: from when, and flow `i`'s one-way delays since, one sketch
    /// per direction (toward its destination, back toward its source).
    pub fn owd(&self, i: usize) -> Option<(SimTime, Cow<'a, OwdPair>)> {
        self.owd.map(|(from, s)| {
            let pair = s
                .get(i)
                .map_or_else(|| Cow::Owned(Default::default()), Cow::Borrowed);
            (from, pair)
        })
    }
}

impl<'a> Totals<'a> {
    /// The totals of report `r`, borrowed.
    pub fn of_report(r: &'a Report) -> Self {
        Totals {
            sim_time: r.sim_time,
            events: r.events,
            bin: r.bin,
            links: r.links.clone(),
            owd: r.owd.as_ref().map(|(from, s)| (*from, s.as_slice())),
            flows: TotalsFlows::Report(&r.flows, &r.flow_info),
        }
    }
}

/// Jain's fairness index of `xs`: (Σx)² / (n·Σx²); 1 when all equal, 1/n when one has all.
pub fn jain(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if s2 == 0.0 {
        1.0
    } else {
        s * s / (n * s2)
    }
}

impl Sim {
    /// Starts logging every packet the discipline of link `name` releases (see [`PacketRecord`]).
    /// Returns false if there is no such link.
    pub fn log_packets(&mut self, name: &str) -> bool {
        match self.links.iter_mut().find(|l| l.dir.name() == name) {
            Some(l) => {
                l.dir.log_packets();
                true
            }
            None => false,
        }
    }

    /// Starts recording the state variables of link direction `name`'s discipline as they
    /// change (CoDel's count and drop_next, RED's avg, PIE's drop probability, LSTF's slack:
    /// [`aqmlab_qdisc::StateTrace`]), handed out by [`Sim::take_series`]. Returns false if
    /// there is no such link.
    pub fn trace_state(&mut self, name: &str) -> bool {
        match self.links.iter_mut().find(|l| l.dir.name() == name) {
            Some(l) => {
                l.dir.trace_state();
                true
            }
            None => false,
        }
    }

    /// The link directions whose discipline state is traced ([`Sim::trace_state`]).
    pub fn traced_links(&self) -> impl Iterator<Item = &str> {
        self.links
            .iter()
            .filter(|l| l.dir.traced())
            .map(|l| l.dir.name())
    }

    /// [`Sim::take_series`] took the series to the end: the run is over (running it further,
    /// or taking again, panics).
    pub fn series_ended(&self) -> bool {
        self.series_ended
    }

    /// The names of the link directions, in the order of [`Report::links`].
    pub fn link_names(&self) -> impl Iterator<Item = &str> {
        self.links.iter().map(|l| l.dir.name())
    }

    /// The width of the time-series bins.
    pub fn report_bin(&self) -> SimDuration {
        SimDuration::from_nanos(self.bins.bin_ns)
    }

    /// Starts measuring the sojourn times of a window on every link direction; returns its slot
    /// for [`Sim::end_window`].
    pub fn begin_window(&mut self) -> usize {
        let k = self.links.first().map_or(0, |l| l.dir.windows_len());
        for l in &mut self.links {
            l.dir.begin_window();
        }
        k
    }

    /// Stops the window of slot `k`: its sojourn times per link direction (in link order).
    pub fn end_window(&mut self, k: usize) -> Vec<SojournStats> {
        self.links.iter_mut().map(|l| l.dir.end_window(k)).collect()
    }

    /// The drops of the per-packet logs: `(link name, records)` for every logged link.
    pub fn drop_logs(&self) -> impl Iterator<Item = (&str, &[DropRecord])> {
        self.links
            .iter()
            .filter(|l| l.dir.packet_log().is_some())
            .map(|l| (l.dir.name(), l.dir.drop_log()))
    }

    /// The per-packet logs: `(link name, records)` for every logged link.
    pub fn packet_logs(&self) -> impl Iterator<Item = (&str, &[PacketRecord])> {
        self.links
            .iter()
            .filter_map(|l| l.dir.packet_log().map(|v| (l.dir.name(), v)))
    }

    /// A snapshot of every link's and flow's measurements at the current time.
    pub fn report(&self) -> Report {
        let mut link_rows = Vec::with_capacity(self.links.len());
        Report {
            sim_time: self.now,
            events: self.events.processed(),
            links: self
                .links
                .iter()
                .map(|l| {
                    let (report, rows) = l.dir.report(self.now, &self.bins);
                    link_rows.push(rows);
                    report
                })
                .collect(),
            flows: self
                .flows
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let mut m = f.m.clone();
                    if let Some(stall) = self.video_stall_now(i as u32) {
                        m.video_rebuffers += 1;
                        m.video_rebuffer_ns += stall.as_nanos();
                    }
                    m.set_per_bin(FlowBinColumns {
                        delivered_bytes: f.series.iter().map(|r| r.delivered_bytes).collect(),
                        srtt_sum_ns: f.series.iter().map(|r| r.srtt_sum_ns).collect(),
                        srtt_samples: f.series.iter().map(|r| r.srtt_samples).collect(),
                    });
                    m
                })
                .collect(),
            flow_info: self.flows.iter().map(|f| f.info.clone()).collect(),
            bin: SimDuration::from_nanos(self.bins.bin_ns),
            first_bin: self.bins.base,
            packets_alive: self.payloads.len(),
            link_rows,
            flow_rows: self.flows.iter().map(|f| f.series.clone()).collect(),
            owd: self.owd_report(),
        }
    }

    /// The number of flows.
    pub fn flow_count(&self) -> usize {
        self.flows.len()
    }

    /// The totals of [`Sim::report`] at the current time, borrowed from the simulation: no flow's
    /// metrics or series are copied.
    pub fn totals(&self) -> Totals<'_> {
        Totals {
            sim_time: self.now,
            events: self.events.processed(),
            bin: SimDuration::from_nanos(self.bins.bin_ns),
            links: self
                .links
                .iter()
                .map(|l| l.dir.report(self.now, &self.bins).0)
                .collect(),
            owd: self.owd_view(),
            flows: TotalsFlows::Sim(self),
        }
    }

    /// Hands out the time series of the bins that have ended (`to_end`: of every bin the run
    /// has touched, the last one perhaps partly) and the per-packet logs, and forgets them, so
    /// that memory stays flat however long the run: the caller streams them to a file between
    /// steps of [`Sim::run_until`]. A [`Report`] afterwards holds only the bins from
    /// [`Report::first_bin`] on; its totals are unaffected. After a take `to_end` the run is
    /// over.
    pub fn take_series(&mut self, to_end: bool) -> SeriesChunk {
        assert!(
            !self.series_ended,
            "the time series were taken to the end already"
        );
        let now = self.now;
        let bins = self.bins;
        let upto = if to_end {
            bins.touched_before(now)
        } else {
            bins.complete_before(now)
        };
        let k = upto.saturating_sub(bins.base);
        // Rows that get the carried level: the bins handed out and, if the run goes on, the
        // current one (it held that level when it began).
        let fill_to = if to_end { k } else { k + 1 };
        // Each list made at its size: one allocation each, not one per doubling.
        let (n_links, n_flows) = (self.links.len(), self.flows.len());
        let mut chunk = SeriesChunk {
            first_bin: bins.base,
            bins: k,
            links: Vec::with_capacity(n_links),
            flows: Vec::with_capacity(n_flows),
            packets: Vec::with_capacity(n_links),
            drops: Vec::with_capacity(n_links),
            states: Vec::with_capacity(n_links),
            flow_states: Vec::with_capacity(n_flows),
        };
        for l in &mut self.links {
            chunk.links.push(l.dir.take_rows(now, &bins, k, fill_to));
            let (packets, drops) = l.dir.take_logs();
            chunk.packets.push(packets);
            chunk.drops.push(drops);
            chunk.states.push(l.dir.take_state_changes());
        }
        for f in &mut self.flows {
            // The rows handed out leave with their allocation: a flow idle since (most, in a run
            // of many flows) keeps none, where draining would keep room for `k` rows each.
            let rows = if !f.keeps_series {
                // No series (`[output] flow_series`): no rows, and no allocation.
                Vec::new()
            } else if f.series.len() < k {
                let mut rows = std::mem::take(&mut f.series);
                // Room for the `k` rows only (a `resize` from none made room for four: a bin
                // of many idle flows held 224 bytes a flow where it needs 56; issue 24).
                rows.reserve_exact(k - rows.len());
                rows.resize(k, FlowBin::default());
                rows
            } else {
                // A flow that had a row in the step's last bin (or after) is likely to send on:
                // it keeps its allocation for the next step's rows, and its rows go out in one
                // of their exact size. Handing out its allocation (or splitting the rows off,
                // which left it the rest's exact room) made it grow again by doubling, an
                // allocation and a copy at each size, every step (issue 24 item 3).
                f.series.drain(..k).collect()
            };
            chunk.flows.push(rows);
            chunk.flow_states.push(
                f.state_trace
                    .as_deref_mut()
                    .map_or_else(Vec::new, |t| t.take()),
            );
        }
        self.bins.base = upto.max(bins.base);
        if to_end {
            // A report now holds no bins (its totals are whole); the cached bin is not used again.
            self.series_ended = true;
        } else {
            // Recompute the cached bin against the new base.
            self.bins.start_ns = u64::MAX;
            self.bins.set(now);
        }
        chunk
    }
}
