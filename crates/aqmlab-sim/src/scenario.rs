//! Scenario files: TOML, with values written as users write them (`10Mbps`, `20ms`, `830p`).
//!
//! A scenario has a `duration`, a `seed`, a topology (a `[dumbbell]` builder, or `nodes` plus
//! `[[links]]`), and `[[flows]]`. Every error names the file, the line and the key path, and
//! says what was expected, e.g.
//! `dyn.toml:14: links[0].rate: expected a rate with a unit, like "10Mbps" …, got "10 MB"`.
//! Problems are found before anything is simulated, including values a run could not sensibly
//! use: times beyond [`MAX_TIME`], rates beyond [`MAX_RATE`], time series beyond
//! [`MAX_SERIES_VALUES`], and byte buffers smaller than a packet that must cross them.
//!
//! A full-duplex link `NAME` has two directions, `NAME` (from → to) and `NAME.rev` (to → from).
//! Each direction has its own rate, delay and queue discipline; `[links.reverse]` overrides any
//! of them for the reverse direction.

use crate::dist::{start_stream, DurationDist};
use crate::rate::{DeliveryTrace, LinkRate, StepSchedule};
use crate::world::{Sim, TcpApp, TcpSpec, UdpSpec};
use aqmlab_core::units;
use aqmlab_core::{Bitrate, Ecn, SimDuration, SimTime};
use aqmlab_qdisc::Kind;
use aqmlab_tcp::{CcKind, RtoSsthresh, TcpConfig};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::Spanned;

mod apps;
mod disc_params;
mod edits;
mod flow_keys;
mod flows;
mod links;
mod raw_units;
mod resolve;
mod syntax;
mod tcp;

pub use crate::resolved::{ResolvedOutput, ResolvedScenario};
pub use apps::DEFAULT_REQUEST_BYTES;
pub use edits::{apply_sets, apply_unsets};
use flow_keys::RawFlow;
pub use flow_keys::{flow_keys_markdown, Applies, FlowKey, FLOW_KEYS};
use flows::{check_flows, crossings, resolve_flows, Crossing, RawFlows};
use links::{direction, largest_per_link, link_rate, params_byte_limit, read_topology, DirIn};
use raw_units::{Delays, Rate, Size, Step, Time, TimeDist};
pub use resolve::resolve_with_edits;
pub use syntax::check_toml;
use syntax::syntax_error;
use tcp::tcp_config;

type S = Spanned<String>;

/// A scenario that cannot be used; displays as one line `FILE:LINE: PATH: what was expected`
/// (control characters, e.g. a newline in a quoted key, are shown escaped).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ScenarioError {
    /// The scenario file.
    pub file: String,
    /// 1-based line of the offending key, when known.
    pub line: Option<usize>,
    /// Key path, e.g. `links[0].rate`.
    pub path: String,
    /// What was wrong and what was expected.
    pub msg: String,
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&one_line(&self.file))?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        f.write_str(": ")?;
        if !self.path.is_empty() {
            write!(f, "{}: ", one_line(&self.path))?;
        }
        f.write_str(&one_line(&self.msg))
    }
}

/// `s` with control characters escaped (`\n`, `\u{1b}`), so an error stays on one line.
fn one_line(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return s.into();
    }
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    name: Option<String>,
    description: Option<String>,
    duration: Time,
    #[serde(default, deserialize_with = "seed_value")]
    seed: Option<u64>,
    bin: Option<Time>,
    dumbbell: Option<RawDumbbell>,
    nodes: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    links: Vec<RawDirection>,
    #[serde(default)]
    flows: Vec<RawFlow>,
    output: Option<RawOutput>,
    /// Time before the measurements of the `after_warmup` window start.
    warmup: Option<Time>,
    /// Measurement windows, each with its own summary.
    #[serde(default)]
    windows: Vec<RawWindow>,
}

/// `[[windows]]`: a named measurement window `[from, to)`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWindow {
    name: S,
    from: Time,
    to: Time,
}

/// A seed: a whole number 0..2^64-1, as an integer or (above TOML's integer range, as the
/// resolved scenario writes it) a string of digits.
fn seed_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    struct V;
    impl serde::de::Visitor<'_> for V {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a whole number 0..18446744073709551615")
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| {
                E::custom(format!(
                    "expected a whole number 0..18446744073709551615, got {v}"
                ))
            })
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<u64, E> {
            v.parse().map_err(|_| {
                E::custom(format!(
                    "expected a whole number 0..18446744073709551615, got {v:?}"
                ))
            })
        }
    }
    d.deserialize_any(V).map(Some)
}

/// `[output]`: how the series are written and which optional metrics are kept.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawOutput {
    /// `parquet` (default) or `csv`.
    format: Option<S>,
    /// Link directions whose every packet is logged (as `--packet-log`).
    #[serde(default)]
    packet_log: Vec<S>,
    /// Link directions whose discipline's state variables are recorded as they change (as
    /// `aqmlab replay --trace`).
    #[serde(default)]
    trace: Vec<S>,
    /// TCP flows whose sender state is sampled (`aqmlab.run(..., trace_flows=...)`,
    /// `aqmlab run --trace-flow`): `[{ flow = 0, every = "10ms" }]`.
    #[serde(default)]
    trace_flows: Vec<RawTraceFlow>,
    /// Each flow's measured one-way delay distribution after the warm-up, in the summary
    /// (`flows[i].owd_distribution`); off by default (a sketch per flow).
    #[serde(default)]
    owd_distribution: bool,
    /// Which flows keep a time series (`flows.parquet`): `"auto"` (the default: every flow's
    /// while the scenario has at most [`SERIES_FLOWS`] flows, none above), `"all"`, `"none"`,
    /// or a list of flows by index or `name`.
    flow_series: Option<Spanned<toml::Value>>,
}

/// One entry of `[output] trace_flows`: a flow's index in the scenario and how often its
/// sender state is sampled.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTraceFlow {
    flow: Spanned<i64>,
    every: S,
}

/// A link's settings: used for `[[links]]` entries, for `[dumbbell.bottleneck]`, and for the
/// `reverse` table that overrides the other direction. `name`, `from` and `to` belong to
/// `[[links]]` only (elsewhere they are implied), and a `reverse` has no `reverse` of its own;
/// [`check_link_keys`] enforces both.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawDirection {
    name: Option<S>,
    from: Option<S>,
    to: Option<S>,
    rate: Option<Rate>,
    schedule: Option<Vec<Step>>,
    trace: Option<S>,
    delay: Option<Time>,
    qdisc: Option<S>,
    buffer: Option<Size>,
    params: Option<Spanned<toml::Table>>,
    loss: Option<Spanned<f64>>,
    /// A random extra delay per packet (`"uniform(0ms, 1ms)"`), never reordering the link.
    jitter: Option<TimeDist>,
    reverse: Option<Box<RawDirection>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDumbbell {
    senders: Spanned<u32>,
    access_rate: Rate,
    /// One delay for every sender, or a list with one per sender.
    sender_delay: Delays,
    /// One delay for every receiver, or a list with one per receiver.
    receiver_delay: Delays,
    access_buffer: Option<Size>,
    bottleneck: RawDirection,
}

/// A built scenario: the simulation, its duration, and what it was made from.
pub struct Scenario {
    /// Name (from the file, or the file stem).
    pub name: String,
    /// Free text.
    pub description: String,
    /// How long to simulate.
    pub duration: SimDuration,
    /// Master seed.
    pub seed: u64,
    /// The simulation, ready to run.
    pub sim: Sim,
    /// Time series go to CSV files rather than Parquet (`[output] format = "csv"`).
    pub csv: bool,
    /// Something in the scenario draws random numbers (a discipline, a lossy link, random
    /// traffic, a random start), so the seed matters; `aqmlab run` warns when it does not.
    pub random: bool,
    /// The fully resolved scenario file: every value after defaults and overrides; running it
    /// reproduces this run bit for bit ([`crate::resolved`]).
    pub resolved: String,
    /// The file's discipline parameters a `--qdisc` swap dropped: `(link direction, NAME=VALUE)`.
    pub dropped_params: Vec<(String, String)>,
    /// Things the scenario is allowed to do but its author should know about, one line each
    /// (`aqmlab run` prints them; `summary.json` keeps them): e.g. RED's automatic parameters
    /// on a link with several rates.
    pub warnings: Vec<String>,
    /// Measurement windows (the warm-up's first), each with its own summary
    /// ([`crate::windows`]).
    pub windows: Vec<crate::windows::WindowSpec>,
}

/// Command-line style overrides applied while building.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// `--seed N`.
    pub seed: Option<u64>,
    /// `--qdisc LINK=KIND`: swap the discipline on the named link direction(s), keeping the buffer
    /// limit. `LINK` names a link (both directions) or one direction (`NAME.rev`).
    pub qdisc: Vec<(String, String)>,
    /// `--packet-log LINK`: log every packet through these link directions.
    pub packet_log: Vec<String>,
    /// `--trace-flow FLOW=EVERY`: sample these TCP flows' sender state (`EVERY` a duration
    /// such as `10ms`), beside the file's `[output] trace_flows`; an entry here replaces the
    /// file's for the same flow.
    pub trace_flows: Vec<(u64, String)>,
    /// Key paths of discipline parameters a `--set` wrote (`dumbbell.bottleneck.params.order`,
    /// or a whole `...params` table): a `--qdisc` swap drops the file's parameters, which belong
    /// to the discipline it named, but keeps these, given for the swapped-in one.
    pub set_params: Vec<String>,
    /// The keys of the `--set` edits a sweep varies, each with the option that varies it
    /// (`--vary`): an error about one names that option (`--vary KEY=VALUE`), as the user
    /// wrote it, not `--set`.
    pub varied: Vec<(String, String)>,
    /// Called at once with a warning that should be seen before the scenario is built (a flow
    /// count over [`WARN_FLOWS`], with the memory the run is projected to take); without it,
    /// the warning goes to [`Scenario::warnings`] like the others.
    pub warn_now: Option<fn(&str)>,
}

struct Ctx<'a> {
    file: String,
    text: &'a str,
    dir: PathBuf,
}

impl<'a> Ctx<'a> {
    /// The context of scenario `text`, read from `file` (as errors name it) in folder `dir`
    /// (where the files it names are).
    fn new(file: &str, text: &'a str, dir: &Path) -> Self {
        Ctx {
            file: file.to_string(),
            text,
            dir: dir.to_path_buf(),
        }
    }

    fn line_of(&self, span: std::ops::Range<usize>) -> usize {
        self.text[..span.start.min(self.text.len())]
            .matches('\n')
            .count()
            + 1
    }
    fn err(
        &self,
        span: Option<std::ops::Range<usize>>,
        path: impl Into<String>,
        msg: impl Into<String>,
    ) -> ScenarioError {
        ScenarioError {
            file: self.file.clone(),
            line: span.map(|s| self.line_of(s)),
            path: path.into(),
            msg: msg.into(),
        }
    }
    /// A duration of at most [`MAX_TIME`].
    fn duration(&self, v: &S, path: &str) -> Result<SimDuration, ScenarioError> {
        raw_units::time_value(v.get_ref()).map_err(|m| self.err(Some(v.span()), path, m))
    }
}

/// The longest time a scenario may name (its duration, a delay, a start, a schedule step):
/// 10^6 s, about 11.6 days, like the longest mahimahi trace period. Simulated time is kept in
/// `u64` nanoseconds (584 years), so sums of a few such times never come near overflowing.
pub const MAX_TIME: SimDuration = SimDuration::from_secs(1_000_000);

/// The fastest rate a scenario may name: 1 Tb/s. Faster links send even a 1500-byte packet in
/// a few nanoseconds, the simulator's time resolution.
pub const MAX_RATE: Bitrate = Bitrate::from_bps(1_000_000_000_000);

/// The most flows a scenario may have (each keeps its counters, sketches and series).
pub const MAX_FLOWS: usize = 100_000;

/// Above this many flows a scenario is built only after a warning with the memory its run is
/// projected to take ([`flows_memory_warning`]).
pub const WARN_FLOWS: usize = 10_000;

/// `[output] flow_series = "auto"` (the default) keeps every flow's time series while the
/// scenario has at most this many flows, none above: at 10,000 flows in 100-ms bins the series
/// were 6.4 rows per delivered packet, built whatever the traffic, and taking them 39 % of a
/// run's instructions (issue 24 item 3). The largest scenario of `scenarios/`, the tests and the
/// reproductions has 1,000 flows (the scale benchmark's 1,000-flow row), so all keep theirs.
pub const SERIES_FLOWS: usize = 1_000;

/// The memory a run takes per flow, in bytes, beyond [`BASE_RUN_BYTES`]: the slope of a
/// least-squares line through the peak resident memory of `aqmlab run bench/flow-memory.toml`
/// (1 s of N bulk CUBIC flows through a 1 Gb/s FQ-CoDel dumbbell) for N = 10^3, 10^4, 3·10^4 and
/// 5·10^4: 45,198, 139,660, 304,564 and 519,424 KiB, each the mean of two runs (README,
/// "Limits", gives the command).
pub const BYTES_PER_FLOW: u64 = 9_700;

/// The same line's intercept: the run's memory apart from its flows (Python and the simulator's
/// fixed state; `aqmlab run` loads no pandas or pyarrow), in bytes.
pub const BASE_RUN_BYTES: u64 = 36_800_000;

/// The warning for a scenario of `n` flows: the memory its run is projected to take.
pub fn flows_memory_warning(n: usize) -> String {
    let projected = BASE_RUN_BYTES + n as u64 * BYTES_PER_FLOW;
    format!(
        "flows: {n} flows (over {WARN_FLOWS}): the run is projected to take about {} MB of memory ({} kB per flow as measured on bulk TCP flows; more with packet logs or long queues)",
        projected.div_ceil(1_000_000),
        BYTES_PER_FLOW.div_ceil(1000)
    )
}

/// The most time-series values a run may write: (10 per link direction + 6 per flow that keeps
/// its series) per bin.
pub const MAX_SERIES_VALUES: u64 = 100_000_000;

/// The nodes' indices by name, made once for a scenario's links or flows: a search of the list
/// per flow end made start-up grow with flows × nodes (10,000 flows over 2,002 nodes spent over
/// a quarter of their 4-s run's instructions comparing names; issue 24).
pub(super) struct NodeLookup<'a> {
    names: &'a [String],
    index: std::collections::BTreeMap<&'a str, u32>,
}

impl<'a> NodeLookup<'a> {
    pub(super) fn new(names: &'a [String]) -> Self {
        let mut index = std::collections::BTreeMap::new();
        for (i, n) in names.iter().enumerate() {
            // The first of two equal names, as the search found it (a repeat is refused later).
            index.entry(n.as_str()).or_insert(i as u32);
        }
        NodeLookup { names, index }
    }
}

/// The index of the node named by `s`, or an error listing the nodes.
fn node_index(
    cx: &Ctx<'_>,
    lookup: &NodeLookup<'_>,
    s: &S,
    path: &str,
) -> Result<u32, ScenarioError> {
    let nodes = lookup.names;
    lookup
        .index
        .get(s.get_ref().as_str())
        .copied()
        .ok_or_else(|| {
            cx.err(
                Some(s.span()),
                path,
                format!(
                    "expected one of the nodes ({}), got {:?}",
                    nodes.join(", "),
                    s.get_ref()
                ),
            )
        })
}

/// Reads and builds the scenario at `path`.
pub fn load(path: &Path, ov: &Overrides) -> Result<Scenario, ScenarioError> {
    Scenario::from_resolved(resolve_file(path, ov)?)
}

/// The scenario file at `path`, read: `(text, file name for errors, directory relative paths
/// resolve from, default name)`.
fn read_scenario(path: &Path) -> Result<(String, String, PathBuf, String), ScenarioError> {
    let file = path.display().to_string();
    let bytes =
        aqmlab_core::input::read_capped(path, aqmlab_core::input::SCENARIO).map_err(|e| {
            ScenarioError {
                file: file.clone(),
                line: None,
                path: String::new(),
                // The message starts with the path, which the error shows already.
                msg: e
                    .strip_prefix(&format!("{file}: "))
                    .unwrap_or(&e)
                    .to_string(),
            }
        })?;
    let text = String::from_utf8(bytes).map_err(|_| ScenarioError {
        file: file.clone(),
        line: None,
        path: String::new(),
        msg: "not UTF-8 text: expected a TOML scenario file".into(),
    })?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok((text, file, dir, stem))
}

/// Builds a scenario from TOML `text`; `file` names it in errors, relative trace paths are
/// resolved against `dir`. Flows with `count = N` are expanded first (`edits`).
pub fn build(
    text: &str,
    file: &str,
    dir: &Path,
    default_name: &str,
    ov: &Overrides,
) -> Result<Scenario, ScenarioError> {
    build_with_edits(text, file, dir, default_name, &[], &[], ov)
}

/// Reads and resolves the scenario at `path`, without building a simulation.
pub fn resolve_file(path: &Path, ov: &Overrides) -> Result<ResolvedScenario, ScenarioError> {
    let (text, file, dir, stem) = read_scenario(path)?;
    resolve_with_edits(&text, &file, &dir, &stem, &[], &[], ov)
}

impl Scenario {
    /// The scenario `r` describes, its simulation built from it, and `r` written out as
    /// [`Scenario::resolved`].
    pub fn from_resolved(r: ResolvedScenario) -> Result<Scenario, ScenarioError> {
        let mut resolved = r.to_toml();
        // Kept for the run's life: without the room its growth left (up to half again).
        resolved.shrink_to_fit();
        let sim = r.build_sim().map_err(|e| ScenarioError {
            file: r.name.clone(),
            line: None,
            path: String::new(),
            msg: e.to_string(),
        })?;
        Ok(Scenario {
            name: r.name,
            description: r.description,
            duration: r.duration,
            seed: r.seed,
            sim,
            csv: r.output.csv,
            random: r.random,
            resolved,
            dropped_params: r.dropped_params,
            warnings: r.warnings,
            windows: r.windows,
        })
    }
}

/// [`resolve_with_edits`], and the simulation built from what it resolved.
pub fn build_with_edits(
    text: &str,
    file: &str,
    dir: &Path,
    default_name: &str,
    unsets: &[String],
    sets: &[(String, String)],
    ov: &Overrides,
) -> Result<Scenario, ScenarioError> {
    Scenario::from_resolved(resolve_with_edits(
        text,
        file,
        dir,
        default_name,
        unsets,
        sets,
        ov,
    )?)
}

/// [`build_with_edits`] without `--unset`s.
pub fn build_with_sets(
    text: &str,
    file: &str,
    dir: &Path,
    default_name: &str,
    sets: &[(String, String)],
    ov: &Overrides,
) -> Result<Scenario, ScenarioError> {
    build_with_edits(text, file, dir, default_name, &[], sets, ov)
}

/// The measurement windows: the warm-up's (`after_warmup`, from its end to the run's,
/// [`warmup_window`]) and the `[[windows]]` ([`window`]), each within the run and named once.
fn windows(
    cx: &Ctx<'_>,
    warmup: &Option<Time>,
    raw_windows: &[RawWindow],
    duration: SimDuration,
) -> Result<Vec<crate::windows::WindowSpec>, ScenarioError> {
    let mut out = Vec::new();
    if let Some(w) = warmup {
        out.push(warmup_window(cx, w, duration)?);
    }
    for (i, w) in raw_windows.iter().enumerate() {
        let w = window(cx, &format!("windows[{i}]"), w, &out, duration)?;
        out.push(w);
    }
    Ok(out)
}

/// The window `after_warmup` of a `warmup` shorter than the run: from its end to the run's.
fn warmup_window(
    cx: &Ctx<'_>,
    w: &Time,
    duration: SimDuration,
) -> Result<crate::windows::WindowSpec, ScenarioError> {
    let d = *w.get();
    if d >= duration {
        return Err(cx.err(
            Some(w.span()),
            "warmup",
            format!(
                "expected a warm-up shorter than the duration ({duration}), got {:?}",
                w.text()
            ),
        ));
    }
    Ok(crate::windows::WindowSpec {
        name: crate::windows::AFTER_WARMUP.into(),
        from: SimTime::ZERO + d,
        to: SimTime::ZERO + duration,
    })
}

/// Window `w` (key path `p`) of a run of `duration`: a name neither empty, nor with control
/// characters, nor one of the windows before it (`before`), and an end after its start, within
/// the run.
fn window(
    cx: &Ctx<'_>,
    p: &str,
    w: &RawWindow,
    before: &[crate::windows::WindowSpec],
    duration: SimDuration,
) -> Result<crate::windows::WindowSpec, ScenarioError> {
    use crate::windows::AFTER_WARMUP;
    let name = w.name.get_ref();
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(cx.err(
            Some(w.name.span()),
            format!("{p}.name"),
            "expected a non-empty name without control characters",
        ));
    }
    if before.iter().any(|o| o.name == *name) {
        let why = if name == AFTER_WARMUP {
            "names the window `warmup` makes"
        } else {
            "is used twice"
        };
        return Err(cx.err(
            Some(w.name.span()),
            format!("{p}.name"),
            format!("window name {name:?} {why}: expected a unique name"),
        ));
    }
    let from = SimTime::ZERO + *w.from.get();
    let to = SimTime::ZERO + *w.to.get();
    if to <= from {
        return Err(cx.err(
            Some(w.to.span()),
            format!("{p}.to"),
            format!(
                "expected the window to end after it starts ({:?}), got {:?}",
                w.from.text(),
                w.to.text()
            ),
        ));
    }
    if to > SimTime::ZERO + duration {
        return Err(cx.err(
            Some(w.to.span()),
            format!("{p}.to"),
            format!(
                "expected a window within the run (duration {duration}), got {:?}",
                w.to.text()
            ),
        ));
    }
    Ok(crate::windows::WindowSpec {
        name: name.clone(),
        from,
        to,
    })
}

/// The key path of setting `key` (`rate`, `delay`, `buffer`) of the link direction at `path`.
/// A dumbbell's access links (`dumbbell.sender_delay[i]`) share `access_rate` and
/// `access_buffer`, and their delay is the element itself.
fn key_of(path: &str, key: &str) -> String {
    if path.starts_with("dumbbell.sender_delay") || path.starts_with("dumbbell.receiver_delay") {
        match key {
            "rate" => "dumbbell.access_rate".into(),
            "buffer" => "dumbbell.access_buffer".into(),
            _ => path.into(),
        }
    } else {
        format!("{path}.{key}")
    }
}

/// A parameter's value as the file wrote it (a string without its quotes).
fn toml_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// serde's Rust type names in `msg` ("expected u64", "expected struct RawDumbbell") said as a
/// user would.
fn plain_types(msg: &str) -> String {
    let mut out = msg.to_string();
    // The loader's own types are tables to the user: "expected struct RawDumbbell".
    while let Some(i) = out.find("struct Raw") {
        let end = out[i + 7..]
            .find(|c: char| !c.is_ascii_alphanumeric())
            .map_or(out.len(), |j| i + 7 + j);
        out.replace_range(i..end, "a table");
    }
    out = out.replace("expected a sequence", "expected a list");
    for (rust, plain) in [
        ("expected u8", "expected a whole number \u{2265} 0"),
        ("expected u16", "expected a whole number \u{2265} 0"),
        ("expected u32", "expected a whole number \u{2265} 0"),
        ("expected u64", "expected a whole number \u{2265} 0"),
        ("expected usize", "expected a whole number \u{2265} 0"),
        ("expected i32", "expected a whole number"),
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
    ] {
        if let Some(rest) = out.strip_suffix(rust) {
            out = format!("{rest}{plain}");
        }
    }
    out
}

/// The TOML parser's `message` on one line. Some syntax errors come without one (a carriage
/// return not followed by a newline): say what was found at `span` instead.
fn toml_message(message: &str, text: &str, span: Option<std::ops::Range<usize>>) -> String {
    if message.contains("number too large to fit in target type") {
        return too_large_integer(text, span);
    }
    if !message.trim().is_empty() {
        return message.trim().replace('\n', " ");
    }
    let found = span
        .and_then(|s| text.get(s.start..))
        .and_then(|t| t.chars().next());
    match found {
        Some('\r') => {
            "a carriage return (\\r) not followed by a newline: expected \\n or \\r\\n line endings"
                .into()
        }
        Some(c) => format!("invalid TOML at {c:?}"),
        None => "invalid TOML at the end of the file".into(),
    }
}

/// The parser's "number too large to fit in target type" said with the key it was given to (the
/// text before `=` on the value's line) and what fits: TOML integers are signed 64-bit.
fn too_large_integer(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    let key = span
        .and_then(|s| {
            let start = s.start.min(text.len());
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let before = text[line_start..start].trim_end().strip_suffix('=')?;
            // In an inline table the last `KEY =` before the value names it.
            let k = before.rsplit([',', '{']).next().unwrap_or(before).trim();
            (!k.is_empty()).then(|| k.to_string())
        })
        .unwrap_or_else(|| "a value".to_string());
    let hint = if key.trim_matches('"') == "seed" {
        "; write a larger seed (up to 18446744073709551615) as a string of digits, e.g. seed = \"18446744073709551615\""
    } else {
        ""
    };
    format!(
        "{key}: expected a whole number from -9223372036854775808 to 9223372036854775807 (TOML's integer range), got a larger one{hint}"
    )
}

#[cfg(test)]
mod tests;
