//! A snapshot of a run's measurements ([`Report`]): per link direction its report and per-bin
//! rows, per flow its metrics, description and per-bin rows, and, when measured, each flow's
//! one-way delay distributions ([`OwdPair`]). The simulator's `Sim::report` makes one; the live
//! emulator makes one at the end of a run; `aqmlab-sim`'s summary reads either alike.

use crate::{FlowBin, FlowInfo, FlowMetrics};
use aqmlab_core::{SimDuration, SimTime};
use aqmlab_link::sketch::QuantileSketch;
use aqmlab_link::{LinkBin, LinkReport};

/// A flow's one-way delays, one sketch per direction: `[toward its destination, back toward
/// its source]`.
pub type OwdPair = [QuantileSketch; 2];

/// Measurements of a run so far.
#[derive(Clone, Debug)]
pub struct Report {
    /// Simulated time reached.
    pub sim_time: SimTime,
    /// Events processed.
    pub events: u64,
    /// Per link direction.
    pub links: Vec<LinkReport>,
    /// Per flow.
    pub flows: Vec<FlowMetrics>,
    /// What each flow is.
    pub flow_info: Vec<FlowInfo>,
    /// Width of the time-series bins.
    pub bin: SimDuration,
    /// Absolute index of the first bin in the per-bin series (0 unless the simulator's
    /// `Sim::take_series` handed out earlier bins).
    pub first_bin: usize,
    /// Packets alive (queued, transmitting or propagating).
    pub packets_alive: usize,
    /// Per link direction, its time-series rows (every column, as the simulator's
    /// `Sim::take_series` hands them out), one per bin from [`Report::first_bin`] to now.
    pub link_rows: Vec<Vec<LinkBin>>,
    /// Per flow, its time-series rows, up to its last active bin.
    pub flow_rows: Vec<Vec<FlowBin>>,
    /// With the simulator's `Sim::measure_owd`: from when (the warm-up's end), and per flow the
    /// one-way delays (ns) of its data packets that arrived since: `[toward the flow's
    /// destination, back toward its source]` (a web flow's responses, its requests).
    pub owd: Option<(SimTime, Vec<OwdPair>)>,
}
