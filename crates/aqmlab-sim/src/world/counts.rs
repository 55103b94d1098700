//! How many events of each kind a run processed, and per link direction how many transmission
//! ends and propagation heads it cost and how often a packet had to wait behind a transmission
//! that was to end without a wake-up (`Offer::WakeAtTxEnd`): where the events per delivered
//! packet come from (issue 24). Only with the `event-counts` feature, for measurements:
//! `cargo run --release -p aqmlab-sim --features event-counts --example run_scenario -- FILE`.
//! Without the feature none of this is compiled and the event loop is unchanged.

use super::{Ev, Sim};

/// The kinds of the event loop's events (`Ev`), in the order of [`EventCounts::by_kind`].
pub const EVENT_KINDS: [&str; 9] = [
    "TxDone",
    "PipeHead",
    "UdpSend",
    "TcpStart",
    "WebArrival",
    "AppNext",
    "WebReply",
    "WebNext",
    "TcpTimer",
];

/// Events processed so far, by kind and, for the packet events, by link direction.
#[derive(Clone, Debug, Default)]
pub struct EventCounts {
    /// Per kind, in the order of [`EVENT_KINDS`].
    pub by_kind: [u64; EVENT_KINDS.len()],
    /// Per link direction (by index, as in the report's links): transmission ends.
    pub tx_done: Vec<u64>,
    /// Per link direction: propagation heads (one per packet that crossed it).
    pub pipe_head: Vec<u64>,
    /// Per link direction: packets that waited behind a transmission that was to end without
    /// an event, so that its end became a `TxDone` event.
    pub woke_at_tx_end: Vec<u64>,
}

/// Adds one at `l` of `v`, growing it as needed.
fn bump(v: &mut Vec<u64>, l: u32) {
    let l = l as usize;
    if v.len() <= l {
        v.resize(l + 1, 0);
    }
    v[l] += 1;
}

impl EventCounts {
    /// Counts event `ev`, about to run.
    pub(super) fn event(&mut self, ev: &Ev) {
        let kind = match *ev {
            Ev::TxDone(l) => {
                bump(&mut self.tx_done, l);
                0
            }
            Ev::PipeHead(l) => {
                bump(&mut self.pipe_head, l);
                1
            }
            Ev::UdpSend(_) => 2,
            Ev::TcpStart(_) => 3,
            Ev::WebArrival(_) => 4,
            Ev::AppNext(_) => 5,
            Ev::WebReply { .. } => 6,
            Ev::WebNext { .. } => 7,
            Ev::TcpTimer { .. } => 8,
        };
        self.by_kind[kind] += 1;
    }

    /// Counts a packet that waited at link `l` behind a transmission whose end had no event.
    pub(super) fn woke_at_tx_end(&mut self, l: u32) {
        bump(&mut self.woke_at_tx_end, l);
    }
}

impl Sim {
    /// The events processed so far, by kind and link direction.
    pub fn event_counts(&self) -> &EventCounts {
        &self.counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_kind_and_link() {
        let mut c = EventCounts::default();
        c.event(&Ev::PipeHead(2));
        c.event(&Ev::PipeHead(2));
        c.event(&Ev::TxDone(0));
        c.event(&Ev::UdpSend(7));
        c.woke_at_tx_end(1);
        assert_eq!(c.by_kind[..3], [1, 2, 1]);
        assert_eq!(c.pipe_head, [0, 0, 2]);
        assert_eq!(c.tx_done, [1]);
        assert_eq!(c.woke_at_tx_end, [0, 1]);
    }
}
