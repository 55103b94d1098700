//! A discipline's state variables, recorded as they change: CoDel's `count` and `drop_next`,
//! RED's `avg`, PIE's drop probability, LSTF's slack ([`QueueDisc::visit_state`] names them).
//! `aqmlab replay --trace` and a scenario's `[output] trace` both record through this, held by
//! the [`crate::Qdisc`] wrapper, which notes the state after every enqueue and dequeue call.

use crate::contract::QueueDisc;

/// One state variable's new value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StateChange {
    /// When the call that changed it was made, ns.
    pub t_ns: u64,
    /// The variable, as the discipline names it.
    pub var: &'static str,
    /// Its value after the call.
    pub value: f64,
}

/// The changes since tracing began (or since the last [`StateTrace::take`]). The initial values
/// are not recorded: every discipline starts from zero state, which its documentation gives.
#[derive(Clone, Debug, Default)]
pub struct StateTrace {
    /// The last value of each variable, in the order the discipline visits them.
    last: Vec<(&'static str, f64)>,
    changes: Vec<StateChange>,
}

impl StateTrace {
    /// Starts tracing `q` from its present state.
    pub fn new<Q: QueueDisc + ?Sized>(q: &Q) -> Self {
        let mut last = Vec::new();
        q.visit_state(&mut |n, v| last.push((n, v)));
        StateTrace {
            last,
            changes: Vec::new(),
        }
    }

    /// Records, at `t_ns`, each variable of `q` whose value changed (bit for bit, so a NaN that
    /// stays NaN is not a change and -0.0 after 0.0 is).
    pub fn note<Q: QueueDisc + ?Sized>(&mut self, t_ns: u64, q: &Q) {
        let mut i = 0;
        let (last, changes) = (&mut self.last, &mut self.changes);
        q.visit_state(&mut |var, value| {
            if let Some(slot) = last.get_mut(i) {
                if slot.1.to_bits() != value.to_bits() {
                    changes.push(StateChange { t_ns, var, value });
                    slot.1 = value;
                }
            }
            i += 1;
        });
    }

    /// The changes recorded and not yet taken.
    pub fn changes(&self) -> &[StateChange] {
        &self.changes
    }

    /// Hands out the changes recorded so far and forgets them (a long run streams them out).
    pub fn take(&mut self) -> Vec<StateChange> {
        std::mem::take(&mut self.changes)
    }
}

#[cfg(test)]
mod tests {
    use crate::{registry, Qdisc, UniformSource};
    use aqmlab_core::{FlowId, Packet, SimTime};

    /// RED's average follows w_q·q + (1 − w_q)·avg at each arrival (Floyd & Jacobson §4): the
    /// trace holds exactly those values, at the arrivals' times, and nothing when avg holds.
    #[test]
    fn red_average_changes_are_recorded_at_each_arrival() {
        let params: Vec<(String, String)> = [
            ("limit", "100p"),
            ("min_th", "5"),
            ("max_th", "15"),
            ("w_q", "0.5"),
            ("max_p", "0.1"),
            ("bandwidth", "10Mbps"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let mut q = Qdisc::new(registry::build("red", &params, UniformSource::seeded(1)).unwrap());
        q.trace_state();
        for id in 0..3 {
            q.enqueue(
                SimTime::from_nanos(10_000 * id),
                Packet::new(id, 1000, FlowId(0)),
            );
        }
        let avg: Vec<(u64, f64)> = q
            .state_changes()
            .iter()
            .filter(|c| c.var == "avg")
            .map(|c| (c.t_ns, c.value))
            .collect();
        // Queue lengths seen at the arrivals: 0, 1, 2 → avg 0 (no change), 0.5, 1.25.
        assert_eq!(avg, vec![(10_000, 0.5), (20_000, 1.25)]);
        let taken = q.take_state_changes();
        assert!(!taken.is_empty());
        assert!(q.state_changes().is_empty());
    }

    /// Untraced, the wrapper records nothing.
    #[test]
    fn nothing_is_recorded_unless_asked() {
        let params = vec![("limit".to_string(), "10p".to_string())];
        let mut q =
            Qdisc::new(registry::build("codel", &params, UniformSource::seeded(1)).unwrap());
        q.enqueue(SimTime::ZERO, Packet::new(0, 1500, FlowId(0)));
        assert!(q.state_changes().is_empty());
    }
}
