//! The flows of an emulated run: each direction of each transport 5-tuple seen on the devices
//! (as FQ-CoDel sees flows), numbered in order of first appearance. The number is the packet's
//! `FlowId`, as in the simulator, so the per-packet log, the summary's `flows[i]` and
//! `flows.parquet` agree.
//!
//! Per flow: packets read from its sending device, packets and IP bytes written to the far one
//! (IP bytes: the forwarder sees packets, not what the application received), packets dropped
//! by the discipline or lost on the wire, and the bytes delivered per time bin. A new flow
//! allocates its entry; a packet of a known flow allocates nothing.

use crate::ip;
use aqmlab_core::{FlowId, SimDuration, SimTime};
use aqmlab_report::{FlowBinColumns, FlowInfo, FlowMetrics};
use std::collections::BTreeMap;

struct LiveFlow {
    info: FlowInfo,
    m: FlowMetrics,
    /// Bytes delivered per bin.
    series: Vec<u64>,
}

/// Every flow seen so far.
pub struct FlowTable {
    index: BTreeMap<u32, u32>,
    flows: Vec<LiveFlow>,
    bin_ns: u64,
}

impl FlowTable {
    /// An empty table, with series in bins of `bin`.
    pub fn new(bin: SimDuration) -> FlowTable {
        FlowTable {
            index: BTreeMap::new(),
            flows: Vec::new(),
            bin_ns: bin.as_nanos().max(1),
        }
    }

    /// The flow of packet `pkt`, read at `now` (a new one is added); counts it as sent.
    pub fn sent(&mut self, pkt: &[u8], now: SimTime) -> FlowId {
        let key = ip::flow(pkt).0;
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                let i = self.flows.len() as u32;
                let (kind, src, dst) = ip::endpoints(pkt);
                self.flows.push(LiveFlow {
                    info: FlowInfo {
                        kind,
                        cc: None,
                        app: "live",
                        start: now,
                        src: src.into(),
                        dst: dst.into(),
                        name: None,
                    },
                    m: FlowMetrics::default(),
                    series: Vec::new(),
                });
                self.index.insert(key, i);
                i
            }
        };
        self.flows[i as usize].m.sent_pkts += 1;
        self.flows[i as usize].m.sent_bytes += pkt.len() as u64;
        FlowId(i)
    }

    /// A packet of `flow` of `bytes` was written to the far device at `now`.
    pub fn delivered(&mut self, flow: FlowId, bytes: u32, now: SimTime) {
        let bin = (now.as_nanos() / self.bin_ns) as usize;
        if let Some(f) = self.flows.get_mut(flow.0 as usize) {
            f.m.delivered_pkts += 1;
            f.m.delivered_bytes += bytes as u64;
            if f.series.len() <= bin {
                f.series.resize(bin + 1, 0);
            }
            f.series[bin] += bytes as u64;
        }
    }

    /// A packet of `flow` was dropped or lost.
    pub fn dropped(&mut self, flow: FlowId) {
        if let Some(f) = self.flows.get_mut(flow.0 as usize) {
            f.m.dropped_pkts += 1;
        }
    }

    /// Each flow's measurements and description, as a simulator's report holds them.
    pub fn report(&self) -> (Vec<FlowMetrics>, Vec<FlowInfo>) {
        let metrics = self
            .flows
            .iter()
            .map(|f| {
                let mut m = f.m.clone();
                m.set_per_bin(FlowBinColumns {
                    delivered_bytes: f.series.clone(),
                    ..FlowBinColumns::default()
                });
                m
            })
            .collect();
        (metrics, self.flows.iter().map(|f| f.info.clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp(sport: u16) -> Vec<u8> {
        let mut p = vec![
            0x45, 0, 0, 40, 0, 0, 0x40, 0, 64, 6, 0, 0, 198, 18, 0, 2, 198, 18, 0, 1,
        ];
        p.extend_from_slice(&sport.to_be_bytes());
        p.extend_from_slice(&5001u16.to_be_bytes());
        p.resize(40, 0);
        p
    }

    #[test]
    fn flows_are_numbered_in_order_and_counted() {
        let mut t = FlowTable::new(SimDuration::from_millis(100));
        let t0 = SimTime::ZERO;
        assert_eq!(t.sent(&tcp(40000), t0), FlowId(0));
        assert_eq!(t.sent(&tcp(40001), t0), FlowId(1));
        assert_eq!(t.sent(&tcp(40000), t0), FlowId(0));
        t.delivered(FlowId(0), 40, SimTime::from_millis(250));
        t.dropped(FlowId(1));
        let (m, info) = t.report();
        assert_eq!((m[0].sent_pkts, m[0].delivered_bytes), (2, 40));
        assert_eq!(m[0].delivered_bytes_per_bin(), [0, 0, 40]);
        assert_eq!(m[1].dropped_pkts, 1);
        assert_eq!(info[0].kind, "tcp");
        assert_eq!(&*info[0].src, "198.18.0.2:40000");
        assert_eq!(&*info[0].dst, "198.18.0.1:5001");
    }
}
