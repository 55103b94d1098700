//! What a discipline costs to run, as RFC 7928 §11 ("Implementation Cost") asks of an AQM: the
//! state it keeps (in all, and per flow), the work it does per packet, and its periodic work.
//! Declared once per discipline, as `FACTS` beside its parameter table `PARAMS` (RFC 7928 §12's
//! operator control and auto-tuning is in the table itself: [`crate::params::Tuning`]), and read
//! by `aqmlab replay --list`, `docs/parameters.md`, the Python module and the characterization
//! report. The per-packet time is not a fact of the code but a measurement: `make bench`
//! (`benches/qdisc.rs`) records it with its commit, machine and date.

/// A discipline's implementation cost, in words, each fact citing where it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// The state kept for the whole discipline (the queue(s) aside from their packets).
    pub state: &'static str,
    /// The state kept per flow, or why there is none.
    pub per_flow: &'static str,
    /// The work per packet, enqueue and dequeue: comparisons, hashing, random draws, sorting.
    pub per_packet: &'static str,
    /// Periodic work (done lazily at the next call: a discipline schedules no events), or none.
    pub timers: &'static str,
    /// The specification the discipline implements, with the sections these facts rest on.
    pub spec: &'static str,
}

impl Facts {
    /// The facts as `(label, text)`, in the order `--list`, the docs and the report print them.
    pub fn rows(&self) -> [(&'static str, &'static str); 5] {
        [
            ("state", self.state),
            ("per flow", self.per_flow),
            ("per packet", self.per_packet),
            ("timers", self.timers),
            ("spec", self.spec),
        ]
    }
}
