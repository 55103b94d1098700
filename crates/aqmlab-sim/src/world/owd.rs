//! The measured one-way delay of every data packet, per flow, after the warm-up, when asked for
//! (`[output] owd_distribution = true`, [`Sim::measure_owd`]): the distribution behind RFC 7928
//! §2.6's one-way delay and PDV CDFs (RFC 5481 §4.2's PDV, D(i) − D(min), is each value less the
//! flow's exact least one).
//!
//! A packet's one-way delay is from its sending (the stamp [`Sim::new_payload`] puts on it at
//! the sender) to its arrival at the receiving end, every queue, transmission and propagation
//! on its path included: the same value the receiver's [`crate::metrics::Receiver`] takes for
//! its whole-run statistics. Here only the packets arriving at or after the warm-up's end count,
//! each into its flow's [`QuantileSketch`] (exact count, sum, min and max; every quantile
//! within [`crate::sketch::REL_ERR`] of a sample's value at that rank).
//!
//! Off unless asked: the sketches are a side table of the simulation, not part of a flow, so a
//! run without it keeps no per-flow state for it, and pays one `Option` test per delivered
//! packet. With it, a sketch's counters grow once per new bucket reached, never per packet.

use super::Sim;
use crate::sketch::QuantileSketch;
use aqmlab_core::SimTime;

/// Per flow, the one-way delays of its data packets arriving from `from_ns` on.
#[derive(Debug)]
pub(super) struct OwdSketches {
    from_ns: u64,
    flows: Vec<QuantileSketch>,
}

impl OwdSketches {
    /// A data packet of flow `flow` sent at `sent_ns` arrives at `now_ns`.
    #[inline]
    pub(super) fn arrive(&mut self, flow: usize, sent_ns: u64, now_ns: u64) {
        if now_ns < self.from_ns {
            return;
        }
        if flow >= self.flows.len() {
            self.grow(flow);
        }
        self.flows[flow].add(now_ns - sent_ns);
    }

    /// Room for flow `flow` (a flow added after the measurement was asked for): once per flow.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, flow: usize) {
        self.flows.resize_with(flow + 1, QuantileSketch::new);
    }
}

impl Sim {
    /// Starts measuring each flow's one-way delay distribution over its data packets arriving
    /// at or after `from` (the warm-up's end), handed out by [`Sim::report`]
    /// ([`Report::owd`](super::Report::owd)).
    pub fn measure_owd(&mut self, from: SimTime) {
        self.owd = Some(Box::new(OwdSketches {
            from_ns: from.as_nanos(),
            flows: vec![QuantileSketch::new(); self.flows.len()],
        }));
    }

    /// `(from, per-flow sketches)` when [`Sim::measure_owd`] was asked for, borrowed: perhaps
    /// fewer sketches than flows (a flow past them has measured nothing).
    pub(super) fn owd_view(&self) -> Option<(SimTime, &[QuantileSketch])> {
        self.owd
            .as_deref()
            .map(|o| (SimTime::from_nanos(o.from_ns), o.flows.as_slice()))
    }

    /// `(from, per-flow sketches)` when [`Sim::measure_owd`] was asked for: one sketch per
    /// flow, in flow order.
    pub(super) fn owd_report(&self) -> Option<(SimTime, Vec<QuantileSketch>)> {
        self.owd.as_ref().map(|o| {
            let mut flows = o.flows.clone();
            flows.resize_with(self.flows.len(), QuantileSketch::new);
            (SimTime::from_nanos(o.from_ns), flows)
        })
    }
}
