//! What a run reports of one flow: what it is ([`FlowInfo`]), its totals ([`FlowMetrics`]),
//! and its per-bin series, as rows while a run goes on ([`FlowBin`]) or as the columns a
//! report fills in ([`FlowBinColumns`]).

use crate::{FlowLinks, Receiver};
use aqmlab_core::SimTime;
use aqmlab_link::sketch::QuantileSketch;
use std::sync::Arc;

/// What a flow is, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowInfo {
    /// `udp` or `tcp`.
    pub kind: &'static str,
    /// Congestion control (TCP only).
    pub cc: Option<&'static str>,
    /// Application: `cbr`, `bulk`, `finite`, `web`, `onoff`.
    pub app: &'static str,
    /// When the flow starts.
    pub start: SimTime,
    /// Source node name (shared by the flows of a node: two strings a flow cost 80 bytes;
    /// issue 24).
    pub src: Arc<str>,
    /// Destination node name.
    pub dst: Arc<str>,
    /// The name the scenario gave the flow, if any.
    pub name: Option<String>,
}

/// Per-flow measurements.
#[derive(Clone, Debug, Default)]
pub struct FlowMetrics {
    /// Packets sent by the source.
    pub sent_pkts: u64,
    /// Bytes sent by the source.
    pub sent_bytes: u64,
    /// Packets that reached the destination.
    pub delivered_pkts: u64,
    /// Bytes that reached the destination.
    pub delivered_bytes: u64,
    /// Packets dropped anywhere on the path.
    pub dropped_pkts: u64,
    /// Per link direction the flow's packets reached: arrivals, drops and marks by reason,
    /// wire losses.
    pub at_links: FlowLinks,
    /// What the flow's receiving end saw of its data packets: one-way delay, jitter, losses.
    pub receiver: Receiver,
    /// The per-bin columns a report fills in ([`FlowMetrics::delivered_bytes_per_bin`] and
    /// the others); `None` in the running simulation, which keeps a flow's bins as rows. One
    /// pointer, not three empty vectors: 64 bytes less for every flow (issue 24).
    per_bin: Option<Box<FlowBinColumns>>,
    /// TCP: segments retransmitted (web: requests and responses).
    pub retransmits: u64,
    /// TCP: retransmission-timer expiries (SYN timeouts included).
    pub timeouts: u64,
    /// TCP: fast-recovery episodes.
    pub fast_recoveries: u64,
    /// TCP: transfers started (finite and web; for web, a request/response exchange).
    pub transfers_started: u64,
    /// TCP: transfers completed.
    pub transfers_completed: u64,
    /// TCP: transfers abandoned because the connection could not be opened (the SYN went
    /// unanswered through every retransmission allowed). A bulk flow counts no transfers
    /// started, but 1 here if it gives up (only with `syn_retries` set).
    pub transfers_failed: u64,
    /// TCP: flow completion times of completed transfers, ns (handshake included; for web,
    /// from the request's arrival to the response's last byte acknowledged).
    pub fct_ns: QuantileSketch,
    /// Web pages (the simulator's `TcpApp::Page`): pages requested.
    pub pages_started: u64,
    /// Web pages wholly fetched (every object acknowledged).
    pub pages_completed: u64,
    /// Web pages of which a connection never opened.
    pub pages_failed: u64,
    /// Web pages: completion time of each page completed, from its request to its last object
    /// acknowledged, ns (RFC 7928 §2.1).
    pub page_time_ns: QuantileSketch,
    /// Adaptive video (the simulator's `TcpApp::Video`): segments wholly received by the client.
    pub video_segments: u64,
    /// Adaptive video: the sum of those segments' rates, b/s (÷ `video_segments`: the mean).
    pub video_bitrate_sum_bps: u64,
    /// Adaptive video: segments whose rate differs from the one before.
    pub video_switches: u64,
    /// Adaptive video: stalls (the playout buffer ran dry after playback had started),
    /// including one going on at the report.
    pub video_rebuffers: u64,
    /// Adaptive video: time stalled, ns (including a stall going on at the report).
    pub video_rebuffer_ns: u64,
    /// Adaptive video: from the flow's start to the first segment's arrival (playback starts).
    pub video_startup_ns: Option<u64>,
    /// TCP: a sender's smoothed RTT after every ACK it receives, ns (web: the client's and the
    /// server's).
    pub srtt_ns: QuantileSketch,
}

/// A flow's series as columns, one value per time bin (a report's [`FlowMetrics`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowBinColumns {
    /// Bytes delivered per time bin.
    pub delivered_bytes: Vec<u64>,
    /// TCP: sum of the sender's smoothed-RTT samples (one per ACK received) in each time bin, ns.
    pub srtt_sum_ns: Vec<u64>,
    /// TCP: number of those samples in each time bin.
    pub srtt_samples: Vec<u64>,
}

impl FlowMetrics {
    /// Bytes delivered per time bin (empty but in a report).
    pub fn delivered_bytes_per_bin(&self) -> &[u64] {
        self.per_bin.as_deref().map_or(&[], |c| &c.delivered_bytes)
    }

    /// TCP: sum of the sender's smoothed-RTT samples (one per ACK received) in each time bin, ns.
    pub fn srtt_sum_ns_per_bin(&self) -> &[u64] {
        self.per_bin.as_deref().map_or(&[], |c| &c.srtt_sum_ns)
    }

    /// TCP: number of those samples in each time bin.
    pub fn srtt_samples_per_bin(&self) -> &[u64] {
        self.per_bin.as_deref().map_or(&[], |c| &c.srtt_samples)
    }

    /// Sets the per-bin columns (a report's).
    pub fn set_per_bin(&mut self, columns: FlowBinColumns) {
        self.per_bin = Some(Box::new(columns));
    }
}

/// One time bin of a flow's series (see [`FlowMetrics`] for each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowBin {
    /// Bytes delivered.
    pub delivered_bytes: u64,
    /// Sum of the sender's smoothed-RTT samples, ns.
    pub srtt_sum_ns: u64,
    /// Number of those samples.
    pub srtt_samples: u64,
    /// TCP: ACKs the flow's senders received in the bin (the samples below).
    pub acks: u64,
    /// TCP: sum of the sender's congestion window after each of them, bytes.
    pub cwnd_sum_bytes: u64,
    /// TCP: sum of the sender's slow-start threshold after each of them, when it was set
    /// (before the first reduction it is unbounded and not summed), bytes.
    pub ssthresh_sum_bytes: u64,
    /// TCP: number of those set thresholds.
    pub ssthresh_samples: u64,
}
