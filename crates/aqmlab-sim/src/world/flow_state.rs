//! A TCP flow's sender state over time, when asked for ([`Sim::trace_flow_state`]): its window,
//! RTT estimate and its congestion controller's own model (BBR's `btl_bw_bps`, `rtprop_s`,
//! `bbr_mode`, `pacing_rate_bps`, ...: `TcpSender::visit_state` names them), sampled on the
//! first ACK at or after each multiple of an interval. Off unless asked: an untraced flow pays
//! one `Option` test per ACK, and a traced one grows its row buffer once per interval, never per
//! packet.

use super::Sim;
use aqmlab_core::{SimDuration, SimTime};
use aqmlab_tcp::TcpSender;

/// One sampled variable of one flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowStateRow {
    /// When it was sampled (the ACK's arrival).
    pub t: SimTime,
    /// Its name, as `TcpSender::visit_state` gives it.
    pub var: &'static str,
    /// Its value.
    pub value: f64,
}

/// The sampling of one flow: its interval, the next sample's time, the rows not yet taken.
#[derive(Debug)]
pub(super) struct FlowStateTrace {
    every: SimDuration,
    next: SimTime,
    rows: Vec<FlowStateRow>,
}

impl FlowStateTrace {
    /// Samples `sender` if the interval has come round (called on each ACK the sender takes).
    pub(super) fn on_ack(&mut self, now: SimTime, sender: &TcpSender) {
        if now < self.next {
            return;
        }
        // The next multiple of the interval after now: one sample per interval however many
        // ACKs arrive, and none owed for an interval without ACKs.
        let every = self.every.as_nanos();
        let since = (now - SimTime::ZERO).as_nanos();
        self.next = SimTime::ZERO + SimDuration::from_nanos((since / every + 1) * every);
        let rows = &mut self.rows;
        sender.visit_state(&mut |var, value| rows.push(FlowStateRow { t: now, var, value }));
    }

    /// The rows sampled since the last take.
    pub(super) fn take(&mut self) -> Vec<FlowStateRow> {
        std::mem::take(&mut self.rows)
    }
}

impl Sim {
    /// Starts sampling flow `flow`'s sender state every `every` (on the first ACK at or after
    /// each multiple of it), handed out per flow by [`Sim::take_series`]
    /// ([`SeriesChunk::flow_states`](super::SeriesChunk::flow_states)). Errors when there is no
    /// such TCP flow or `every` is zero.
    pub fn trace_flow_state(&mut self, flow: usize, every: SimDuration) -> Result<(), String> {
        if every == SimDuration::ZERO {
            return Err("the flow state sampling interval must be positive".into());
        }
        let n = self.flows.len();
        let f = self
            .flows
            .get_mut(flow)
            .ok_or_else(|| format!("no flow {flow} (the scenario has {n})"))?;
        if !matches!(f.kind, super::FlowKind::Tcp { .. }) {
            return Err(format!(
                "flow {flow} is not a TCP flow: it has no sender state"
            ));
        }
        f.state_trace = Some(Box::new(FlowStateTrace {
            every,
            next: SimTime::ZERO,
            rows: Vec::new(),
        }));
        Ok(())
    }

    /// True when some flow's sender state is sampled ([`Sim::trace_flow_state`]).
    pub fn traces_flow_state(&self) -> bool {
        self.flows.iter().any(|f| f.state_trace.is_some())
    }
}
