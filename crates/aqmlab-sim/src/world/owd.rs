//! The measured one-way delay of every data packet, per flow, after the warm-up, when asked for
//! (`[output] owd_distribution = true`, [`Sim::measure_owd`]): the distribution behind RFC 7928
//! §2.6's one-way delay and PDV CDFs (RFC 5481 §4.2's PDV, D(i) − D(min), is each value less the
//! flow's exact least one).
//!
//! A packet's one-way delay is from its sending (the stamp [`Sim::new_payload`] puts on it at
//! the sender) to its arrival at the receiving end, every queue, transmission and propagation
//! on its path included: the same value the receiver's [`aqmlab_report::Receiver`] takes for
//! its whole-run statistics. Here only the packets arriving at or after the warm-up's end count,
//! each into its flow's [`QuantileSketch`] (exact count, sum, min and max; every quantile
//! within [`crate::sketch::REL_ERR`] of a sample's value at that rank).
//!
//! Each flow has two sketches, one per direction (RFC 7928 §2.6 asks for the one-way delay, so a
//! direction's own): its data toward its destination (every flow's data; a web or page flow's
//! responses, which cross the link under test as a bulk flow's data does) and back toward its
//! source (a web or page client's requests, over the reverse path). One sketch for both would
//! give a web flow one least delay, the smaller direction's, and so PDVs (D(i) − D(min)) of
//! the responses measured against the requests' path.
//!
//! Off unless asked: the sketches are a side table of the simulation, not part of a flow, so a
//! run without it keeps no per-flow state for it, and pays one `Option` test per delivered
//! packet. With it, a sketch's counters grow once per new bucket reached, never per packet.

use super::Sim;
use aqmlab_core::SimTime;
use aqmlab_report::OwdPair;

/// Per flow, the one-way delays of its data packets arriving from `from_ns` on, by direction.
#[derive(Debug)]
pub(super) struct OwdSketches {
    from_ns: u64,
    flows: Vec<OwdPair>,
}

impl OwdSketches {
    /// A data packet of flow `flow` sent at `sent_ns` arrives at `now_ns`: at the flow's
    /// destination, or (`back`) at its source.
    #[inline]
    pub(super) fn arrive(&mut self, flow: usize, back: bool, sent_ns: u64, now_ns: u64) {
        if now_ns < self.from_ns {
            return;
        }
        if flow >= self.flows.len() {
            self.grow(flow);
        }
        self.flows[flow][back as usize].add(now_ns - sent_ns);
    }

    /// Room for flow `flow` (a flow added after the measurement was asked for): once per flow.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, flow: usize) {
        self.flows.resize_with(flow + 1, Default::default);
    }
}

impl Sim {
    /// Starts measuring each flow's one-way delay distribution over its data packets arriving
    /// at or after `from` (the warm-up's end), handed out by [`Sim::report`]
    /// ([`Report::owd`](aqmlab_report::Report::owd)).
    pub fn measure_owd(&mut self, from: SimTime) {
        self.owd = Some(Box::new(OwdSketches {
            from_ns: from.as_nanos(),
            flows: vec![Default::default(); self.flows.len()],
        }));
    }

    /// `(from, per-flow sketch pairs)` when [`Sim::measure_owd`] was asked for, borrowed:
    /// perhaps fewer pairs than flows (a flow past them has measured nothing).
    pub(super) fn owd_view(&self) -> Option<(SimTime, &[OwdPair])> {
        self.owd
            .as_deref()
            .map(|o| (SimTime::from_nanos(o.from_ns), o.flows.as_slice()))
    }

    /// `(from, per-flow sketches)` when [`Sim::measure_owd`] was asked for: a pair of sketches
    /// per flow (toward its destination, back toward its source), in flow order.
    pub(super) fn owd_report(&self) -> Option<(SimTime, Vec<OwdPair>)> {
        self.owd.as_ref().map(|o| {
            let mut flows = o.flows.clone();
            flows.resize_with(self.flows.len(), Default::default);
            (SimTime::from_nanos(o.from_ns), flows)
        })
    }
}
