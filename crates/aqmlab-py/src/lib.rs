//! PyO3 bindings: the native module `aqmlab._core`. Only this crate knows Python; every error is
//! mapped once here to the exception hierarchy re-exported by `python/aqmlab/exceptions.py`.
#![allow(unsafe_code)] // PyO3's macros expand to unsafe FFI glue.

mod columns;
mod csv_file;
mod parquet_file;
mod series;

use aqmlab_qdisc::replay::{self as replay_mod, ReplaySummary};
use aqmlab_qdisc::uniform::parse_uniforms;
use aqmlab_qdisc::{registry, Kind, Params, Qdisc, UniformSource};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::sync::Arc;

create_exception!(
    _core,
    AqmlabError,
    PyException,
    "Base class of every aqmlab error."
);
create_exception!(
    _core,
    ParameterError,
    AqmlabError,
    "An unknown discipline or parameter, or a bad value."
);
create_exception!(
    _core,
    ScheduleError,
    AqmlabError,
    "A schedule file that cannot be read or parsed."
);
create_exception!(
    _core,
    ReplayError,
    AqmlabError,
    "A replay that could not finish (e.g. the uniforms file ran out)."
);
create_exception!(
    _core,
    ScenarioError,
    AqmlabError,
    "A scenario file that cannot be used (the message names file, line and key)."
);

/// The bytes of `path` (a schedule or a uniforms file), read up to its kind's size cap.
fn read_file(path: &str, kind: aqmlab_core::input::InputKind) -> PyResult<Vec<u8>> {
    aqmlab_core::input::read_capped(std::path::Path::new(path), kind)
        .map_err(ScheduleError::new_err)
}

/// The bytes of the scenario (or sweep) file at `path`, read as a run reads its scenario: up
/// to the scenario's size cap ([`aqmlab_core::input::SCENARIO`]), so Python's reads of a
/// sweep's inputs stop where a run's do, with the same one-line error (ScenarioError). `what`
/// is what the error calls the file: "scenario" (the default), "sweep file", or "scenario or
/// sweep file" (a file read to tell which it is).
#[pyfunction]
#[pyo3(signature = (path, what="scenario"))]
fn read_scenario_file<'py>(
    py: Python<'py>,
    path: &str,
    what: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let what = match what {
        "scenario" => "scenario",
        "sweep file" => "sweep file",
        "scenario or sweep file" => "scenario or sweep file",
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "what: expected \"scenario\", \"sweep file\" or \"scenario or sweep file\", got {other:?}"
            )))
        }
    };
    let kind = aqmlab_core::input::InputKind {
        what,
        ..aqmlab_core::input::SCENARIO
    };
    let bytes = aqmlab_core::input::read_capped(std::path::Path::new(path), kind)
        .map_err(ScenarioError::new_err)?;
    Ok(PyBytes::new(py, &bytes))
}

/// `text` (the file `file`) read as TOML, as the scenario reader reads it: raises ScenarioError
/// with its syntax error said as a scenario's is (`FILE:LINE: not valid TOML at column C: ...`),
/// so a sweep file's syntax error reads like a scenario's.
#[pyfunction]
fn check_toml(file: &str, text: &str) -> PyResult<()> {
    aqmlab_sim::scenario::check_toml(file, text).map_err(scenario_err)
}

/// Refuses scenario `text` (the file `file`) with more `[[flows]]` tables than a scenario may
/// have, as a run does before it reads the TOML (ScenarioError, the run's message): a sweep
/// calls it before reading a file as TOML to tell a sweep file from a scenario, which for a
/// file of 400 000 flow tables took seconds and hundreds of MB.
///
/// The count is the loader's (`edits.rs` `resolve_with_edits`, which refuses such a file before
/// reading it, with this message; its header test is `is_flows_header`), made here so the
/// simulator's sources, which key a sweep's cache (`SOURCE_HASH`), stay as they are.
#[pyfunction]
fn check_flow_tables(file: &str, text: &str) -> PyResult<()> {
    // `[[flows]]`, spaces allowed inside the brackets, a comment after.
    let header = |line: &str| {
        let rest = line.trim_start().strip_prefix("[[").map(str::trim_start);
        let rest = rest
            .and_then(|r| r.strip_prefix("flows"))
            .map(str::trim_start);
        let rest = rest.and_then(|r| r.strip_prefix("]]")).map(str::trim_start);
        rest.is_some_and(|r| r.is_empty() || r.starts_with('#'))
    };
    let tables = text.lines().filter(|l| header(l)).count();
    let most = aqmlab_sim::scenario::MAX_FLOWS;
    if tables > most {
        return Err(scenario_err(aqmlab_sim::scenario::ScenarioError {
            file: file.to_string(),
            line: None,
            path: "flows".into(),
            msg: format!("expected at most {most} flows, got {tables}"),
        }));
    }
    Ok(())
}

/// Every discipline with its parameter table and its cost: a list of dicts `{name, summary,
/// params: [{name, default, type, unit, range, help, tuning, tuning_how}], facts: {state,
/// per_flow, per_packet, timers, spec}}` (`tuning`: fixed, derived or adapted, RFC 7928 §12;
/// `facts`: RFC 7928 §11).
#[pyfunction]
fn list_qdiscs(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for k in Kind::ALL {
        let d = PyDict::new(py);
        d.set_item("name", k.name())?;
        d.set_item("summary", k.summary())?;
        let ps = PyList::empty(py);
        for p in k.params() {
            let pd = PyDict::new(py);
            pd.set_item("name", p.name)?;
            pd.set_item("default", p.default)?;
            pd.set_item("type", p.type_name())?;
            pd.set_item("unit", p.unit_text())?;
            pd.set_item("range", p.range_text())?;
            pd.set_item("help", p.help)?;
            pd.set_item("tuning", p.tuning.kind())?;
            pd.set_item("tuning_how", p.tuning.how())?;
            ps.append(pd)?;
        }
        d.set_item("params", ps)?;
        let f = k.facts();
        let fd = PyDict::new(py);
        fd.set_item("state", f.state)?;
        fd.set_item("per_flow", f.per_flow)?;
        fd.set_item("per_packet", f.per_packet)?;
        fd.set_item("timers", f.timers)?;
        fd.set_item("spec", f.spec)?;
        d.set_item("facts", fd)?;
        out.append(d)?;
    }
    Ok(out)
}

/// The text of `aqmlab replay --list`.
#[pyfunction]
fn list_text() -> String {
    registry::list_text()
}

fn summary_dict<'py>(
    py: Python<'py>,
    kind: &str,
    s: &ReplaySummary,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("qdisc", kind)?;
    d.set_item("packets", s.packets)?;
    d.set_item("delivered", s.delivered)?;
    d.set_item("marked", s.marked)?;
    d.set_item("dropped_enqueue", s.dropped_enqueue)?;
    d.set_item("dropped_dequeue", s.dropped_dequeue)?;
    d.set_item("queued_at_end", s.queued_at_end)?;
    d.set_item("dequeue_calls", s.dequeue_calls)?;
    d.set_item("deq_lines_skipped", s.deq_lines_skipped)?;
    Ok(d)
}

/// Replays the schedule at `schedule_path` through discipline `kind` built from `params`
/// (`["NAME=VALUE", ...]`). Returns `{"decisions_csv", "summary", "trace_csv"}`.
#[pyfunction]
#[pyo3(signature = (kind, schedule_path, params=Vec::new(), uniforms_path=None, seed=1, trace=false))]
fn replay<'py>(
    py: Python<'py>,
    kind: &str,
    schedule_path: &str,
    params: Vec<String>,
    uniforms_path: Option<&str>,
    seed: u64,
    trace: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let pairs = Params::split_pairs(&params).map_err(|e| ParameterError::new_err(e.to_string()))?;
    let k = Kind::from_name(kind).map_err(|e| ParameterError::new_err(e.to_string()))?;
    let uniforms = match uniforms_path {
        None => UniformSource::Rng(aqmlab_core::Xoshiro256pp::for_stream(
            seed,
            &format!("replay/qdisc/{}", k.name()),
        )),
        Some(path) => {
            let bytes = read_file(path, aqmlab_core::input::UNIFORMS)?;
            let text = std::str::from_utf8(&bytes).map_err(|_| {
                ScheduleError::new_err(format!(
                    "{path}: not a text file: expected one number in [0, 1] per line"
                ))
            })?;
            let draws =
                parse_uniforms(text).map_err(|e| ScheduleError::new_err(format!("{path}: {e}")))?;
            UniformSource::List {
                draws: Arc::from(draws),
                next: 0,
            }
        }
    };
    let qdisc = registry::build(kind, &pairs, uniforms)
        .map_err(|e| ParameterError::new_err(e.to_string()))?;
    if uniforms_path.is_some() && qdisc.uniforms().is_none() {
        return Err(ParameterError::new_err(format!(
            "--uniforms: {} draws no random numbers, so a uniforms file does not apply",
            k.name()
        )));
    }
    let bytes = read_file(schedule_path, aqmlab_core::input::SCHEDULE)?;
    let (out, csv, trace_csv) = py
        .allow_threads(|| -> Result<_, String> {
            let rows =
                replay_mod::parse_schedule(&bytes).map_err(|e| format!("{schedule_path}: {e}"))?;
            let mut q = Qdisc::new(qdisc);
            let out = replay_mod::replay(&mut q, &rows, trace)
                .map_err(|e| format!("{schedule_path}: {e}"))?;
            let mut csv = Vec::with_capacity(out.decisions.len() * 32);
            replay_mod::write_decisions(&mut csv, &out.decisions).map_err(|e| e.to_string())?;
            let trace_csv = if trace {
                let mut t = Vec::new();
                replay_mod::write_trace(&mut t, &out.trace).map_err(|e| e.to_string())?;
                Some(String::from_utf8(t).expect("ASCII"))
            } else {
                None
            };
            Ok((out, String::from_utf8(csv).expect("ASCII"), trace_csv))
        })
        .map_err(|msg| {
            if msg.contains("uniforms file ran out") {
                ReplayError::new_err(msg)
            } else {
                ScheduleError::new_err(msg)
            }
        })?;
    let d = PyDict::new(py);
    d.set_item("decisions_csv", csv)?;
    d.set_item("summary", summary_dict(py, k.name(), &out.summary)?)?;
    d.set_item("trace_csv", trace_csv)?;
    Ok(d)
}

/// A loaded scenario, run in chunks so Python can show progress and honour Ctrl-C.
/// How often, in wall seconds, a running step hands Python its pending signals (Ctrl-C): the
/// bound on how long a run takes to stop, less the ~10 ms between two looks at the clock.
const SIGNAL_CHECK_S: f64 = 0.2;

#[pyclass(unsendable)]
struct Run {
    scenario: aqmlab_sim::scenario::Scenario,
    /// The measurement windows, opened and closed as the run passes their edges.
    windows: aqmlab_sim::windows::Windows,
    wall_s: f64,
    /// Each flow's bytes delivered in the bins handed out so far (the `cumulative_bytes` column).
    cumulative: Vec<u64>,
    /// The resolved scenario's text (taken from `scenario.resolved`), Snappy-compressed: it
    /// lists every flow (about 115 bytes each, a few compressed), and is read only at the end.
    resolved: Vec<u8>,
    /// The `--set KEY=VALUE` strings [`load_scenario`] took as `set_args`, as it split them.
    set_args: Vec<(String, String)>,
}

impl Run {
    /// The resolved scenario's text ([`Run::resolved`] decompressed).
    fn resolved_text(&self) -> PyResult<String> {
        snap::raw::Decoder::new()
            .decompress_vec(&self.resolved)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(|| AqmlabError::new_err("the resolved scenario's text is corrupt"))
    }
    fn check_not_over(&self) -> PyResult<()> {
        if self.scenario.sim.series_ended() {
            return Err(AqmlabError::new_err(
                "this run is over: its series were taken to the end (take_series(to_end=True))",
            ));
        }
        Ok(())
    }
    /// The summary of this run so far, with its measurement windows, read from the simulation
    /// (no copy of each flow's metrics: [`aqmlab_sim::world::Sim::totals`]).
    fn summary(&self) -> aqmlab_sim::summary::Summary<'_> {
        let mut s = aqmlab_sim::summary::Summary::of(
            &self.scenario.name,
            self.scenario.seed,
            self.scenario.sim.totals(),
            self.wall_s,
        );
        if !self.windows.is_empty() {
            s.windows(&self.windows);
        }
        if let Some(kept) = self.scenario.sim.flows_with_series() {
            // Some flows keep no time series (`[output] flow_series`): which do.
            s.insert("flow_series", serde_json::json!(kept));
        }
        s
    }
}

#[pymethods]
impl Run {
    /// Simulated seconds to run in total.
    #[getter]
    fn duration_s(&self) -> f64 {
        self.scenario.duration.as_secs_f64()
    }
    /// The scenario asks for CSV series (`[output] format = "csv"`).
    #[getter]
    fn csv(&self) -> bool {
        self.scenario.csv
    }
    /// Some link direction logs every packet (`[output] packet_log` or `--packet-log`).
    #[getter]
    fn logs_packets(&self) -> bool {
        self.scenario.sim.packet_logs().next().is_some()
    }
    /// Some link direction's discipline state is traced (`[output] trace`).
    #[getter]
    fn traces_state(&self) -> bool {
        self.scenario.sim.traced_links().next().is_some()
    }
    /// Some flow's sender state is sampled (`trace_flow_state`).
    #[getter]
    fn traces_flow_state(&self) -> bool {
        self.scenario.sim.traces_flow_state()
    }
    /// Samples TCP flow `flow`'s sender state (window, RTT, its controller's model: BBR's
    /// btl_bw_bps, rtprop_s, bbr_mode, pacing_rate_bps...) every `every_s` simulated seconds,
    /// into the `flow_states` table. Call it before the run starts.
    fn trace_flow_state(&mut self, flow: i64, every_s: f64) -> PyResult<()> {
        self.check_not_over()?;
        if self.scenario.sim.now() > aqmlab_core::SimTime::ZERO {
            return Err(AqmlabError::new_err(
                "trace_flow_state: the run has started; ask before the first advance",
            ));
        }
        if !(every_s.is_finite() && every_s > 0.0 && every_s <= 1e6) {
            return Err(AqmlabError::new_err(format!(
                "trace_flow_state: every_s must be a positive number of seconds, got {every_s}"
            )));
        }
        let flow = usize::try_from(flow)
            .map_err(|_| AqmlabError::new_err(format!("trace_flow_state: no flow {flow}")))?;
        let every = aqmlab_core::SimDuration::from_nanos((every_s * 1e9).round().max(1.0) as u64);
        self.scenario
            .sim
            .trace_flow_state(flow, every)
            .map_err(|e| AqmlabError::new_err(format!("trace_flow_state: {e}")))
    }
    /// The number of flows.
    #[getter]
    fn flow_count(&self) -> usize {
        self.scenario.sim.flow_count()
    }
    /// The number of flows that keep a time series (each has a row per bin in the `flows`
    /// series; `[output] flow_series`).
    #[getter]
    fn series_flow_count(&self) -> usize {
        let sim = &self.scenario.sim;
        (0..sim.flow_count())
            .filter(|&k| sim.flow_has_series(k))
            .count()
    }
    /// Width of the time-series bins, seconds.
    #[getter]
    fn bin_s(&self) -> f64 {
        self.scenario.sim.report_bin().as_secs_f64()
    }
    /// Simulated seconds done.
    #[getter]
    fn now_s(&self) -> f64 {
        self.scenario.sim.now().as_secs_f64()
    }
    /// Scenario name.
    #[getter]
    fn name(&self) -> String {
        self.scenario.name.clone()
    }
    /// Master seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.scenario.seed
    }
    /// Something in the scenario draws random numbers, so the seed matters.
    #[getter]
    fn random(&self) -> bool {
        self.scenario.random
    }
    /// Runs until `until_s` simulated seconds (capped at the duration), without the GIL.
    /// `check`, when given, is called (with the GIL) every SIGNAL_CHECK_S of wall time, as
    /// pending signals are handled: an exception it raises stops the step. It is how a run in a
    /// thread other than the main one, where signal handlers never run, is stopped.
    #[pyo3(signature = (until_s, check=None))]
    fn advance(&mut self, py: Python<'_>, until_s: f64, check: Option<PyObject>) -> PyResult<()> {
        self.check_not_over()?;
        let end = aqmlab_core::SimTime::ZERO + self.scenario.duration;
        let until = (aqmlab_core::SimTime::ZERO + aqmlab_core::SimDuration::from_secs_f64(until_s))
            .min(end);
        #[allow(clippy::disallowed_methods)]
        // wall time is reported (wall_s), never used by the model
        let t0 = std::time::Instant::now();
        let sim = &mut self.scenario.sim;
        let windows = &mut self.windows;
        // Pending signals (Ctrl-C, SIGTERM, SIGHUP), then `check`.
        let look = |py: Python<'_>| -> PyResult<()> {
            py.check_signals()?;
            if let Some(f) = &check {
                f.call0(py)?;
            }
            Ok(())
        };
        // Ctrl-C, SIGTERM and SIGHUP reach Python's handlers only while it holds the GIL, which
        // a long step gives up: so every SIGNAL_CHECK_S of wall time (looked at every
        // STOP_CHECK_EVENTS events) the step takes the GIL back and runs them. A handler that
        // raises stops the step (a later call would go on where it stopped).
        let raised = py.allow_threads(|| {
            let mut raised = None;
            #[allow(clippy::disallowed_methods)] // wall time paces the checks, not the model
            let mut last = std::time::Instant::now();
            windows.run_until_unless(sim, until, &mut || {
                #[allow(clippy::disallowed_methods)]
                let now = std::time::Instant::now();
                if now.duration_since(last).as_secs_f64() < SIGNAL_CHECK_S {
                    return false;
                }
                last = now;
                raised = Python::with_gil(look).err();
                raised.is_some()
            });
            raised
        });
        self.wall_s += t0.elapsed().as_secs_f64();
        match raised {
            Some(e) => Err(e),
            None => look(py),
        }
    }
    /// The fully resolved scenario as TOML: every value after defaults, `--set` edits and
    /// `--qdisc` swaps, discipline parameters included; running it reproduces this run bit for
    /// bit. Its text depends only on what the run simulates, so it can key a cache.
    fn resolved_toml(&self) -> PyResult<String> {
        self.resolved_text()
    }
    /// Writes [`Run::resolved_toml`]'s text into the file at `path`, with no copy of it in
    /// Python (about 120 bytes a flow; issue 24). Raises OSError as [`Run::write_summary`] does.
    fn write_resolved_toml(&self, path: std::path::PathBuf) -> PyResult<()> {
        let text = self.resolved_text()?;
        std::fs::write(&path, text.as_bytes()).map_err(os_error)
    }
    /// The file's discipline parameters that `--qdisc` swaps dropped, as
    /// `[(link direction, "NAME=VALUE")]`.
    fn dropped_params(&self) -> Vec<(String, String)> {
        self.scenario.dropped_params.clone()
    }
    /// The `set_args` the run was loaded with (`--set KEY=VALUE`), as `[(KEY, VALUE)]` split
    /// and stripped, a key given twice once (its last value, at its first place): what the
    /// run's provenance records.
    fn set_args(&self) -> Vec<(String, String)> {
        self.set_args.clone()
    }
    /// Lines the scenario's author should read (e.g. RED's automatic parameters on a link with
    /// several rates); `aqmlab run` prints them.
    fn warnings(&self) -> Vec<String> {
        self.scenario.warnings.clone()
    }
    /// The summary as a JSON string (see docs/data-format.md).
    fn summary_json(&self) -> String {
        serde_json::to_string(&self.summary()).expect("a summary serializes")
    }
    /// The bytes of `summary.json`: the summary with `provenance` (JSON text as Python's
    /// `json.dumps(..., indent=2)` writes it) as its last key, and a final newline; what
    /// `json.dumps({**json.loads(summary_json()), "provenance": p}, indent=2) + "\n"` writes,
    /// made without the summary as Python objects and written straight into the `bytes`
    /// (its length is counted first), so a run of many flows holds the text once.
    fn summary_file<'py>(
        &self,
        py: Python<'py>,
        provenance: &str,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let s = self.summary();
        let n = aqmlab_sim::pyjson::pretty_len(&s);
        let tail = format!(
            ",\n  \"provenance\": {}\n}}\n",
            provenance.replace('\n', "\n  ")
        );
        PyBytes::new_with(py, n - 2 + tail.len(), |buf| {
            let mut w = &mut buf[..n];
            aqmlab_sim::pyjson::write_pretty(&s, &mut w)
                .map_err(|e| AqmlabError::new_err(format!("summary: {e}")))?;
            // The object's closing "\n}" gives way to the provenance entry.
            assert!(
                w.is_empty() && buf[n - 2..n] == *b"\n}",
                "the summary is an object of {n} bytes"
            );
            buf[n - 2..].copy_from_slice(tail.as_bytes());
            Ok(())
        })
    }
    /// Writes `summary.json`, the bytes [`Run::summary_file`] returns, into the file at `path`
    /// as they are made, so a run of many flows never holds the text (about 1.2 kB a flow;
    /// issue 24). Raises OSError (naming nothing: the caller names the file) when it cannot.
    ///
    /// With `with_resolved`, `provenance` (an object) lacks its last key, `resolved_scenario`,
    /// and it is written here from the run's own text ([`Run::resolved_toml`]), as
    /// `json.dumps` would have: so the caller holds no copy of it through the run, nor Python
    /// its JSON, nor this call their UTF-8 (each about 120 bytes a flow; issue 24).
    #[pyo3(signature = (path, provenance, with_resolved=false))]
    fn write_summary(
        &self,
        path: std::path::PathBuf,
        provenance: &str,
        with_resolved: bool,
    ) -> PyResult<()> {
        // The provenance object without its closing "}" (and the newline before it), when the
        // resolved scenario is to be appended as its last entry.
        let head = if with_resolved {
            if provenance == "{}" {
                "{"
            } else {
                provenance.strip_suffix("\n}").ok_or_else(|| {
                    AqmlabError::new_err("provenance: expected a JSON object indented by 2")
                })?
            }
        } else {
            provenance
        };
        let resolved = if with_resolved {
            self.resolved_text()?
        } else {
            String::new()
        };
        let s = self.summary();
        let write = || -> std::io::Result<()> {
            use std::io::Write as _;
            let f = std::fs::File::create(&path)?;
            let mut w = HoldBack {
                w: std::io::BufWriter::with_capacity(1 << 16, f),
                held: Vec::new(),
            };
            aqmlab_sim::pyjson::write_pretty(&s, &mut w)?;
            // The object's closing "\n}" gives way to the provenance entry.
            assert_eq!(w.held, b"\n}", "a summary is an object");
            // The provenance indented by one level, line by line (it holds the resolved
            // scenario, about 100 bytes a flow: no copy of it is made).
            w.w.write_all(b",\n  \"provenance\": ")?;
            for (i, line) in head.split('\n').enumerate() {
                if i > 0 {
                    w.w.write_all(b"\n  ")?;
                }
                w.w.write_all(line.as_bytes())?;
            }
            if with_resolved {
                let sep: &[u8] = if head == "{" { b"\n" } else { b",\n" };
                w.w.write_all(sep)?;
                w.w.write_all(b"    \"resolved_scenario\": ")?;
                aqmlab_sim::pyjson::write_pretty(resolved.as_str(), &mut w.w)?;
                w.w.write_all(b"\n  }")?;
            }
            w.w.write_all(b"\n}\n")?;
            w.w.flush()
        };
        write().map_err(os_error)
    }
    /// The time series of the bins that have ended since the last call (`to_end`: of every
    /// bin left, after the last `advance`; the run is then over), as tables of columns in
    /// Arrow's layout (`series.rs`): `{"links": {col: ...}, "flows": ..., "packets": ...,
    /// "drops": ..., "states": ...}`. The simulation forgets what it hands out, so a long run
    /// streamed this way keeps flat memory.
    #[pyo3(signature = (to_end=false))]
    fn take_series<'py>(&mut self, py: Python<'py>, to_end: bool) -> PyResult<Bound<'py, PyDict>> {
        self.check_not_over()?;
        series::take(py, &mut self.scenario.sim, &mut self.cumulative, to_end)
    }
}

/// A writer that passes on all but the last two bytes written to it (held back in `held`).
/// An OSError (errno, text) of `e`, naming nothing: the caller names the file.
fn os_error(e: std::io::Error) -> PyErr {
    let errno = e.raw_os_error().unwrap_or(0);
    let msg = e.to_string();
    // std's text of an OS error ends in " (os error N)"; Python's strerror does not.
    let msg = msg
        .split(" (os error")
        .next()
        .unwrap_or_default()
        .to_string();
    pyo3::exceptions::PyOSError::new_err((errno, msg))
}

struct HoldBack<W> {
    w: W,
    held: Vec<u8>,
}

impl<W: std::io::Write> std::io::Write for HoldBack<W> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.held.extend_from_slice(b);
        if let Some(n) = self.held.len().checked_sub(2).filter(|&n| n > 0) {
            self.w.write_all(&self.held[..n])?;
            self.held.drain(..n);
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes `msg` as an `aqmlab: warning:` line to Python's `sys.stderr` at once (before the
/// scenario is built, for a warning that must come before the memory is taken).
fn warn_now(msg: &str) {
    Python::with_gil(|py| {
        let line = format!("aqmlab: warning: {msg}\n");
        if let Ok(err) = py.import("sys").and_then(|sys| sys.getattr("stderr")) {
            let _ = err.call_method1("write", (line,));
            let _ = err.call_method0("flush");
        }
    });
}

/// The scenario's text, read from `path` unless given as `text` (then `path` only names the
/// scenario in errors, and relative paths, like traces, resolve from the current directory),
/// with `path`'s folder and file stem.
fn scenario_text(
    path: &str,
    text: Option<String>,
) -> PyResult<(String, std::path::PathBuf, String)> {
    let p = std::path::Path::new(path);
    let text = match text {
        Some(t) => t,
        None => {
            let bytes = aqmlab_core::input::read_capped(p, aqmlab_core::input::SCENARIO)
                .map_err(ScenarioError::new_err)?;
            String::from_utf8(bytes).map_err(|_| {
                ScenarioError::new_err(format!(
                    "{path}: not UTF-8 text: expected a TOML scenario file"
                ))
            })?
        }
    };
    let dir = p
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let stem = p
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok((text, dir, stem))
}

/// The overrides other than the `--unset` and `--set` edits (which
/// [`aqmlab_sim::scenario::resolve_with_edits`] takes as they are given).
fn overrides(
    seed: Option<u64>,
    qdisc: Vec<(String, String)>,
    packet_log: Vec<String>,
    varied: Vec<(String, String)>,
    trace_flows: Vec<(u64, String)>,
    warn: bool,
) -> aqmlab_sim::scenario::Overrides {
    aqmlab_sim::scenario::Overrides {
        seed,
        qdisc,
        packet_log,
        trace_flows,
        varied,
        // Without `warn`, the early warning (a many-flows scenario's memory) is only among
        // the run's warnings (`summary.json`'s provenance), not written to stderr.
        warn_now: warn.then_some(warn_now as fn(&str)),
        ..aqmlab_sim::scenario::Overrides::default()
    }
}

/// A scenario error as Python's ScenarioError.
fn scenario_err(e: aqmlab_sim::scenario::ScenarioError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

/// Loads the scenario at `path` with overrides: `seed`, `qdisc` (`[(LINK, KIND)]`) and `sets`
/// (`[(KEY.PATH, VALUE)]`; `varied`: `[(KEY.PATH, OPTION)]` for the keys a sweep varies, which
/// errors name by that option; `trace_flows`: `[(FLOW, EVERY)]` as `--trace-flow FLOW=EVERY`;
/// `warn`: write the warning of a many-flows scenario's memory to stderr at once, before it is
/// built; without, it is among the run's warnings only, as a sweep's workers load their runs).
/// Raises ScenarioError naming file, line and key on bad input.
/// `set_args` are `--set KEY=VALUE` strings as the command line gives them, split here (key
/// and value stripped as Python's `str.strip` does) and added to `sets` as a dict would take
/// them: a key given again keeps its first place and takes the last value. Its value is read
/// where the edit is made ([`aqmlab_sim::scenario::resolve_with_edits`]: a TOML value when it
/// is one, else the text).
#[pyfunction]
#[pyo3(signature = (path, seed=None, qdisc=Vec::new(), sets=Vec::new(), packet_log=Vec::new(), text=None, unsets=Vec::new(), varied=Vec::new(), trace_flows=Vec::new(), set_args=Vec::new(), warn=true))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments, each optional
fn load_scenario(
    py: Python<'_>,
    path: &str,
    seed: Option<u64>,
    qdisc: Vec<(String, String)>,
    mut sets: Vec<(String, String)>,
    packet_log: Vec<String>,
    text: Option<String>,
    unsets: Vec<String>,
    varied: Vec<(String, String)>,
    trace_flows: Vec<(u64, String)>,
    set_args: Vec<String>,
    warn: bool,
) -> PyResult<Run> {
    // Python's whitespace: Rust's and the separators U+001C..U+001F.
    let strip = |s: &str| {
        s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
            .to_string()
    };
    let mut split = Vec::with_capacity(set_args.len());
    for arg in &set_args {
        let (key, value) = match arg.split_once('=').map(|(k, v)| (strip(k), strip(v))) {
            Some((key, value)) if !key.is_empty() => (key, value),
            _ => {
                let shown = pyo3::types::PyString::new(py, arg).repr()?;
                let msg = format!("--set {shown}: expected NAME=VALUE");
                return Err(ScenarioError::new_err(msg));
            }
        };
        for list in [&mut sets, &mut split] {
            match list.iter_mut().find(|(k, _)| *k == key) {
                Some(kv) => kv.1 = value.clone(),
                None => list.push((key.clone(), value.clone())),
            }
        }
    }
    let (text, dir, stem) = scenario_text(path, text)?;
    let ov = overrides(seed, qdisc, packet_log, varied, trace_flows, warn);
    let r = aqmlab_sim::scenario::resolve_with_edits(&text, path, &dir, &stem, &unsets, &sets, &ov)
        .map_err(scenario_err)?;
    let mut sc = aqmlab_sim::scenario::Scenario::from_resolved(r)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let text = std::mem::take(&mut sc.resolved);
    let mut resolved = snap::raw::Encoder::new()
        .compress_vec(text.as_bytes())
        .map_err(|e| AqmlabError::new_err(format!("the resolved scenario: {e}")))?;
    drop(text);
    // `compress_vec` makes room for the worst case, more than the text itself.
    resolved.shrink_to_fit();
    Ok(Run {
        windows: aqmlab_sim::windows::Windows::new(sc.windows.clone()),
        scenario: sc,
        wall_s: 0.0,
        cumulative: Vec::new(),
        resolved,
        set_args: split,
    })
}

/// A scenario resolved without building its simulation: what a sweep hashes to key a run.
#[pyclass(frozen)]
struct Resolved {
    /// `scenario.resolved.toml`: the serialization of the resolved scenario a run is built from.
    toml: String,
    /// The master seed (after `--seed`).
    #[pyo3(get)]
    seed: u64,
    /// As [`Run::dropped_params`].
    dropped: Vec<(String, String)>,
    /// As [`Run::warnings`] of a run loaded without `warn` (the warning of a many-flows
    /// scenario's memory first: here it was written to stderr at once).
    warnings: Vec<String>,
}

#[pymethods]
impl Resolved {
    /// The fully resolved scenario as TOML, exactly as a run built from the same inputs
    /// writes it (`Run.resolved_toml()`).
    fn resolved_toml(&self) -> String {
        self.toml.clone()
    }
    /// As [`Run::dropped_params`]: what a run built from the same inputs records.
    fn dropped_params(&self) -> Vec<(String, String)> {
        self.dropped.clone()
    }
    /// As [`Run::warnings`] of a run built from the same inputs without `warn` (a sweep's
    /// worker): what its provenance records.
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
}

/// Resolves the scenario at `path` with the overrides [`load_scenario`] takes, without building
/// the simulator. Raises ScenarioError as `load_scenario` does.
#[pyfunction]
#[pyo3(signature = (path, seed=None, qdisc=Vec::new(), sets=Vec::new(), packet_log=Vec::new(), text=None, unsets=Vec::new(), varied=Vec::new(), trace_flows=Vec::new()))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments, each optional
fn resolve_scenario(
    path: &str,
    seed: Option<u64>,
    qdisc: Vec<(String, String)>,
    sets: Vec<(String, String)>,
    packet_log: Vec<String>,
    text: Option<String>,
    unsets: Vec<String>,
    varied: Vec<(String, String)>,
    trace_flows: Vec<(u64, String)>,
) -> PyResult<Resolved> {
    let (text, dir, stem) = scenario_text(path, text)?;
    let ov = overrides(seed, qdisc, packet_log, varied, trace_flows, true);
    let r = aqmlab_sim::scenario::resolve_with_edits(&text, path, &dir, &stem, &unsets, &sets, &ov)
        .map_err(scenario_err)?;
    let n = r.flows.len();
    let early = (n > aqmlab_sim::scenario::WARN_FLOWS)
        .then(|| aqmlab_sim::scenario::flows_memory_warning(n));
    Ok(Resolved {
        toml: r.to_toml(),
        seed: r.seed,
        warnings: early.into_iter().chain(r.warnings).collect(),
        dropped: r.dropped_params,
    })
}

/// The native module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("AqmlabError", py.get_type::<AqmlabError>())?;
    m.add("ParameterError", py.get_type::<ParameterError>())?;
    m.add("ScheduleError", py.get_type::<ScheduleError>())?;
    m.add("ReplayError", py.get_type::<ReplayError>())?;
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add_class::<Run>()?;
    m.add_class::<parquet_file::ParquetFile>()?;
    m.add_class::<csv_file::CsvFile>()?;
    m.add_function(wrap_pyfunction!(csv_file::float_repr, m)?)?;
    m.add_function(wrap_pyfunction!(load_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_scenario, m)?)?;
    m.add_class::<Resolved>()?;
    m.add_function(wrap_pyfunction!(list_qdiscs, m)?)?;
    m.add_function(wrap_pyfunction!(list_text, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(read_scenario_file, m)?)?;
    m.add_function(wrap_pyfunction!(check_toml, m)?)?;
    m.add_function(wrap_pyfunction!(check_flow_tables, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // How this module was compiled: "profile-guided" when scripts/pgo-install.sh built it (it
    // sets AQMLAB_BUILD), else "plain". Speed figures depend on it; results do not.
    m.add("BUILD", option_env!("AQMLAB_BUILD").unwrap_or("plain"))?;
    // A fingerprint of the simulator's sources (build.rs): results depend on it, so the sweep
    // cache keys runs by it.
    m.add("SOURCE_HASH", env!("AQMLAB_SOURCE_HASH"))?;
    // The crates that fingerprint covers, comma-separated (build.rs: what this one depends on).
    m.add("MODEL_CRATES", env!("AQMLAB_MODEL_CRATES"))?;
    Ok(())
}
