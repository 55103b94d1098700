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
use crate::topology::LinkConfig;
use crate::world::{FlowSpec, Sim, TcpApp, TcpSpec, UdpSpec};
use aqmlab_core::units::{self, UnitError};
use aqmlab_core::{Bitrate, SimDuration, SimTime};
use aqmlab_qdisc::{registry, Kind, UniformSource};
use aqmlab_tcp::{CcKind, TcpConfig};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::Spanned;

mod apps;
mod edits;
mod tcp;

pub use apps::DEFAULT_REQUEST_BYTES;
pub use edits::{apply_sets, apply_unsets, build_with_edits, build_with_sets};
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
    duration: S,
    #[serde(default, deserialize_with = "seed_value")]
    seed: Option<u64>,
    bin: Option<S>,
    dumbbell: Option<RawDumbbell>,
    nodes: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    links: Vec<RawDirection>,
    #[serde(default)]
    flows: Vec<RawFlow>,
    output: Option<RawOutput>,
    /// Time before the measurements of the `after_warmup` window start.
    warmup: Option<S>,
    /// Measurement windows, each with its own summary.
    #[serde(default)]
    windows: Vec<RawWindow>,
}

/// `[[windows]]`: a named measurement window `[from, to)`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWindow {
    name: S,
    from: S,
    to: S,
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
    rate: Option<S>,
    schedule: Option<Vec<Vec<S>>>,
    trace: Option<S>,
    delay: Option<S>,
    qdisc: Option<S>,
    buffer: Option<S>,
    params: Option<Spanned<toml::Table>>,
    loss: Option<Spanned<f64>>,
    /// A random extra delay per packet (`"uniform(0ms, 1ms)"`), never reordering the link.
    jitter: Option<S>,
    reverse: Option<Box<RawDirection>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDumbbell {
    senders: Spanned<u32>,
    access_rate: S,
    /// One delay for every sender, or a list with one per sender.
    sender_delay: Spanned<toml::Value>,
    /// One delay for every receiver, or a list with one per receiver.
    receiver_delay: Spanned<toml::Value>,
    access_buffer: Option<S>,
    bottleneck: RawDirection,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFlow {
    name: Option<S>,
    kind: S,
    from: S,
    to: S,
    start: Option<S>,
    stop: Option<S>,
    rate: Option<S>,
    size: Option<Spanned<i64>>,
    on_time: Option<S>,
    off_time: Option<S>,
    onoff_shape: Option<Spanned<f64>>,
    // TCP
    cc: Option<S>,
    app: Option<S>,
    bytes: Option<S>,
    conns_per_s: Option<Spanned<f64>>,
    size_dist: Option<S>,
    size_mean: Option<S>,
    size_shape: Option<Spanned<f64>>,
    size_sigma: Option<Spanned<f64>>,
    request_size: Option<S>,
    model: Option<S>,
    http: Option<S>,
    interval: Option<S>,
    idle: Option<Spanned<toml::Value>>,
    idle_dist: Option<S>,
    reuse: Option<bool>,
    idle_restart: Option<bool>,
    mss: Option<Spanned<i64>>,
    max_window: Option<Spanned<i64>>,
    initial_cwnd: Option<Spanned<i64>>,
    delayed_ack: Option<bool>,
    sack: Option<bool>,
    ecn: Option<bool>,
    handshake: Option<bool>,
    hystart: Option<bool>,
    min_rto: Option<S>,
    delack_timeout: Option<S>,
    syn_retries: Option<Spanned<i64>>,
    initial_rto: Option<S>,
    max_rto: Option<S>,
    initial_ssthresh: Option<Spanned<i64>>,
    dupack_threshold: Option<Spanned<i64>>,
    prr: Option<bool>,
    recovery: Option<S>,
    rescue: Option<bool>,
    cubic_beta: Option<Spanned<f64>>,
    cubic_c: Option<Spanned<f64>>,
    cubic_fast_convergence: Option<bool>,
    cubic_reno_friendly: Option<bool>,
    vegas_alpha: Option<Spanned<i64>>,
    vegas_beta: Option<Spanned<i64>>,
    vegas_gamma: Option<Spanned<i64>>,
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
    /// Key paths of discipline parameters a `--set` wrote (`dumbbell.bottleneck.params.order`,
    /// or a whole `...params` table): a `--qdisc` swap drops the file's parameters, which belong
    /// to the discipline it named, but keeps these, given for the swapped-in one.
    pub set_params: Vec<String>,
}

struct Ctx<'a> {
    file: String,
    text: &'a str,
    dir: PathBuf,
}

impl Ctx<'_> {
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
    fn unit<T>(
        &self,
        v: &S,
        path: &str,
        f: impl Fn(&str) -> Result<T, UnitError>,
    ) -> Result<T, ScenarioError> {
        f(v.get_ref()).map_err(|e| {
            let msg = if e.expected == units::BEYOND_64_BITS {
                format!(
                    "{:?} is beyond the 64-bit range: expected at most 18446744073709551615 (bytes, packets, bit/s or ns)",
                    v.get_ref()
                )
            } else {
                e.to_string()
            };
            self.err(Some(v.span()), path, msg)
        })
    }
    /// A duration of at most [`MAX_TIME`].
    fn duration(&self, v: &S, path: &str) -> Result<SimDuration, ScenarioError> {
        let beyond = || {
            self.err(
                Some(v.span()),
                path,
                format!(
                    "expected a duration of at most {}s (about 11.6 days), got {:?}, which is beyond the maximum",
                    MAX_TIME.as_nanos() / 1_000_000_000,
                    v.get_ref()
                ),
            )
        };
        let d = match units::parse_duration(v.get_ref()) {
            Err(e) if e.expected == units::BEYOND_64_BITS => return Err(beyond()),
            _ => self.unit(v, path, units::parse_duration)?,
        };
        if d > MAX_TIME {
            return Err(beyond());
        }
        Ok(d)
    }
    /// A rate of at most [`MAX_RATE`].
    fn rate(&self, v: &S, path: &str) -> Result<Bitrate, ScenarioError> {
        let beyond = || {
            self.err(
                Some(v.span()),
                path,
                format!(
                    "expected a rate of at most {MAX_RATE}, got {:?}, which is beyond the maximum",
                    v.get_ref()
                ),
            )
        };
        let r = match units::parse_bitrate(v.get_ref()) {
            Err(e) if e.expected == units::BEYOND_64_BITS => return Err(beyond()),
            _ => self.unit(v, path, units::parse_bitrate)?,
        };
        if r > MAX_RATE {
            return Err(beyond());
        }
        Ok(r)
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

/// The most time-series values a run may write: (10 per link direction + 6 per flow) per bin.
pub const MAX_SERIES_VALUES: u64 = 100_000_000;

/// The index of the node named by `s`, or an error listing the nodes.
fn node_index(cx: &Ctx<'_>, nodes: &[String], s: &S, path: &str) -> Result<u32, ScenarioError> {
    nodes
        .iter()
        .position(|n| n == s.get_ref())
        .map(|i| i as u32)
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
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ScenarioError {
        file: file.clone(),
        line: None,
        path: String::new(),
        msg: format!("cannot read the scenario: {e}"),
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
    build(&text, &file, &dir, &stem, ov)
}

/// Builds a scenario from TOML `text`; `file` names it in errors, relative trace paths are
/// resolved against `dir`. Flows with `count = N` are expanded first ([`crate::expand`]).
pub fn build(
    text: &str,
    file: &str,
    dir: &Path,
    default_name: &str,
    ov: &Overrides,
) -> Result<Scenario, ScenarioError> {
    match crate::expand::expand_counts(text, file)? {
        None => build_expanded(text, file, dir, default_name, ov),
        Some((edited, origins)) => build_expanded(&edited, file, dir, default_name, ov)
            .map_err(|e| crate::expand::unexpand_error(e, &origins, text, &edited)),
    }
}

fn build_expanded(
    text: &str,
    file: &str,
    dir: &Path,
    default_name: &str,
    ov: &Overrides,
) -> Result<Scenario, ScenarioError> {
    let cx = Ctx {
        file: file.to_string(),
        text,
        dir: dir.to_path_buf(),
    };
    let de = toml::Deserializer::new(text);
    let raw: RawScenario = serde_path_to_error::deserialize(de).map_err(|e| {
        // serde_spanned's wrapper shows up as a path segment; users never wrote it.
        let path = e
            .path()
            .to_string()
            .replace(".$__serde_spanned_private_value", "");
        let inner = e.into_inner();
        let mut msg = plain_types(&toml_message(inner.message(), text, inner.span()));
        if msg.ends_with("expected a borrowed string") {
            // toml-rs/toml#798: dotted keys (`params.target = "5ms"`) inside a table the
            // scenario keeps spans of.
            msg = "dotted keys cannot be read here: write the table inline, e.g. \
                   params = { target = \"5ms\", interval = \"100ms\" }"
                .to_string();
        }
        if msg.ends_with("expected a string") {
            msg.push_str(
                " (write values with units in quotes, e.g. \"10Mbps\", \"20ms\", \"830p\")",
            );
        }
        cx.err(
            inner.span(),
            if path == "." { String::new() } else { path },
            msg,
        )
    })?;

    let duration = cx.duration(&raw.duration, "duration")?;
    if duration == SimDuration::ZERO {
        return Err(cx.err(
            Some(raw.duration.span()),
            "duration",
            "expected a duration > 0",
        ));
    }
    let bin = match &raw.bin {
        Some(b) => {
            let d = cx.duration(b, "bin")?;
            if d == SimDuration::ZERO {
                return Err(cx.err(Some(b.span()), "bin", "expected a duration > 0"));
            }
            d
        }
        None => SimDuration::from_millis(100),
    };
    if duration.as_nanos() / bin.as_nanos() > 10_000_000 {
        return Err(cx.err(
            raw.bin.as_ref().map(|b| b.span()),
            "bin",
            format!("{duration} in bins of {bin} makes more than 10,000,000 bins: expected a larger bin"),
        ));
    }
    let seed = ov.seed.or(raw.seed).unwrap_or(1);
    if raw.flows.len() > MAX_FLOWS {
        return Err(cx.err(
            None,
            "flows",
            format!(
                "expected at most {MAX_FLOWS} flows, got {}",
                raw.flows.len()
            ),
        ));
    }

    let nodes_span = raw.nodes.as_ref().map(Spanned::span);
    let mut nodes: Vec<String> = raw
        .nodes
        .as_ref()
        .map(|n| n.get_ref().clone())
        .unwrap_or_default();
    let mut links: Vec<LinkConfig> = Vec::new();
    let mut dir_cfgs: Vec<(String, RawDirection, String)> = Vec::new(); // (name, settings, path)
    let mut ends: Vec<(u32, u32)> = Vec::new();

    if let Some(d) = &raw.dumbbell {
        if !raw.links.is_empty() || !nodes.is_empty() {
            return Err(cx.err(
                None,
                "dumbbell",
                "give either [dumbbell] or nodes + [[links]], not both",
            ));
        }
        let n = *d.senders.get_ref();
        if n == 0 || n > 1000 {
            return Err(cx.err(
                Some(d.senders.span()),
                "dumbbell.senders",
                format!("expected 1 to 1000 senders, got {n}"),
            ));
        }
        let delays = |v: &Spanned<toml::Value>, what: &str| -> Result<Vec<S>, ScenarioError> {
            let span = v.span();
            // Checked here so errors name the key the user wrote (`[i]` for a list's element).
            let one = |x: &toml::Value, key: String| match x {
                toml::Value::String(s) => {
                    let s = Spanned::new(span.clone(), s.clone());
                    cx.duration(&s, &key)?;
                    Ok(s)
                }
                other => Err(cx.err(
                    Some(span.clone()),
                    key,
                    format!("expected a delay like \"20ms\", got {}", other.type_str()),
                )),
            };
            match v.get_ref() {
                toml::Value::Array(list) if list.len() == n as usize => list
                    .iter()
                    .enumerate()
                    .map(|(i, x)| one(x, format!("dumbbell.{what}[{i}]")))
                    .collect(),
                toml::Value::Array(list) => Err(cx.err(
                    Some(span.clone()),
                    format!("dumbbell.{what}"),
                    format!(
                        "expected one delay or a list of {n} (one per sender), got {} values",
                        list.len()
                    ),
                )),
                x => Ok(vec![one(x, format!("dumbbell.{what}"))?; n as usize]),
            }
        };
        // Checked here so errors name the key the user wrote (the access links reuse them).
        cx.rate(&d.access_rate, "dumbbell.access_rate")?;
        if let Some(b) = &d.access_buffer {
            cx.unit(b, "dumbbell.access_buffer", units::parse_size)?;
        }
        let sd = delays(&d.sender_delay, "sender_delay")?;
        let rd = delays(&d.receiver_delay, "receiver_delay")?;
        for i in 1..=n {
            nodes.push(format!("s{i}"));
        }
        nodes.push("gw1".into());
        nodes.push("gw2".into());
        for i in 1..=n {
            nodes.push(format!("r{i}"));
        }
        let gw1 = n;
        let gw2 = n + 1;
        let access = |delay: &S| RawDirection {
            rate: Some(d.access_rate.clone()),
            delay: Some(delay.clone()),
            buffer: d.access_buffer.clone(),
            ..Default::default()
        };
        for i in 0..n {
            let a = access(&sd[i as usize]);
            dir_cfgs.push((
                format!("s{}.access", i + 1),
                a.clone(),
                format!("dumbbell.sender_delay[{i}]"),
            ));
            ends.push((i, gw1));
            dir_cfgs.push((
                format!("s{}.access.rev", i + 1),
                a,
                format!("dumbbell.sender_delay[{i}]"),
            ));
            ends.push((gw1, i));
            let b = access(&rd[i as usize]);
            dir_cfgs.push((
                format!("r{}.access", i + 1),
                b.clone(),
                format!("dumbbell.receiver_delay[{i}]"),
            ));
            ends.push((gw2, gw2 + 1 + i));
            dir_cfgs.push((
                format!("r{}.access.rev", i + 1),
                b,
                format!("dumbbell.receiver_delay[{i}]"),
            ));
            ends.push((gw2 + 1 + i, gw2));
        }
        let b = &d.bottleneck;
        check_link_keys(&cx, b, "dumbbell.bottleneck", false)?;
        let fwd = RawDirection {
            reverse: None,
            ..b.clone()
        };
        let rev = merge(&fwd, b.reverse.as_deref());
        dir_cfgs.push(("bottleneck".into(), fwd, "dumbbell.bottleneck".into()));
        ends.push((gw1, gw2));
        dir_cfgs.push((
            "bottleneck.rev".into(),
            rev,
            "dumbbell.bottleneck.reverse".into(),
        ));
        ends.push((gw2, gw1));
    } else {
        if nodes.is_empty() {
            return Err(cx.err(
                None,
                "",
                "no topology: expected a [dumbbell] table, or nodes = [...] and [[links]]",
            ));
        }
        if nodes.len() > 4000 {
            return Err(cx.err(
                nodes_span.clone(),
                "nodes",
                format!("expected at most 4000 nodes, got {}", nodes.len()),
            ));
        }
        for (i, nname) in nodes.iter().enumerate() {
            if nname.trim().is_empty() || nname.chars().any(char::is_control) {
                return Err(cx.err(
                    nodes_span.clone(),
                    format!("nodes[{i}]"),
                    format!("expected a node name that is not empty or blank and has no control characters, got {nname:?}"),
                ));
            }
            if nodes[..i].contains(nname) {
                return Err(cx.err(
                    nodes_span.clone(),
                    format!("nodes[{i}]"),
                    format!("node {nname:?} is listed twice"),
                ));
            }
        }
        let node = |s: &S, path: &str| node_index(&cx, &nodes, s, path);
        for (i, l) in raw.links.iter().enumerate() {
            let p = format!("links[{i}]");
            check_link_keys(&cx, l, &p, true)?;
            let required = |v: &Option<S>, key: &str| {
                v.clone().ok_or_else(|| {
                    cx.err(
                        None,
                        format!("{p}.{key}"),
                        format!("a link needs {key} = ..."),
                    )
                })
            };
            let (from, to, lname) = (
                required(&l.from, "from")?,
                required(&l.to, "to")?,
                required(&l.name, "name")?,
            );
            let (a, b) = (
                node(&from, &format!("{p}.from"))?,
                node(&to, &format!("{p}.to"))?,
            );
            if a == b {
                return Err(cx.err(
                    Some(to.span()),
                    format!("{p}.to"),
                    "a link must join two different nodes",
                ));
            }
            let name = lname.get_ref().clone();
            if name.ends_with(".rev") || name.is_empty() {
                return Err(cx.err(Some(lname.span()), format!("{p}.name"), "a link name must be non-empty and not end in .rev (NAME.rev names its reverse direction)"));
            }
            if dir_cfgs.iter().any(|(n, _, _)| *n == name) {
                return Err(cx.err(
                    Some(lname.span()),
                    format!("{p}.name"),
                    format!("link name {name:?} is used twice"),
                ));
            }
            let fwd = RawDirection {
                reverse: None,
                ..l.clone()
            };
            let rev = merge(&fwd, l.reverse.as_deref());
            dir_cfgs.push((name.clone(), fwd, p.clone()));
            ends.push((a, b));
            dir_cfgs.push((format!("{name}.rev"), rev, format!("{p}.reverse")));
            ends.push((b, a));
        }
    }

    for (name, kind) in &ov.qdisc {
        if !dir_cfgs
            .iter()
            .any(|(n, _, _)| n == name || n.strip_suffix(".rev") == Some(name))
        {
            let names: Vec<&str> = dir_cfgs
                .iter()
                .map(|(n, _, _)| n.as_str())
                .filter(|n| !n.ends_with(".rev"))
                .collect();
            return Err(ScenarioError {
                file: cx.file.clone(),
                line: None,
                path: format!("--qdisc {name}={kind}"),
                msg: format!("no link named {name:?}; links: {}", names.join(", ")),
            });
        }
    }

    // Each link direction writes 10 series and each flow 6, a value per bin: refuse runs whose
    // series files alone would take gigabytes (a bin of "1ns" is more likely a slip than a wish).
    let bins = duration.as_nanos().div_ceil(bin.as_nanos());
    let series = 10 * dir_cfgs.len() as u64 + 6 * raw.flows.len() as u64;
    if bins.saturating_mul(series) > MAX_SERIES_VALUES {
        let min_bin = SimDuration::from_nanos(
            (duration.as_nanos() as u128 * series as u128).div_ceil(MAX_SERIES_VALUES as u128)
                as u64,
        );
        return Err(cx.err(
            raw.bin.as_ref().map(|b| b.span()),
            "bin",
            format!(
                "{duration} in bins of {bin} for {} link directions and {} flows makes {} time-series values, more than {MAX_SERIES_VALUES}: expected a bin of at least {min_bin}",
                dir_cfgs.len(),
                raw.flows.len(),
                bins as u128 * series as u128,
            ),
        ));
    }

    // Byte limits, to check below that each holds the largest packet of every flow through it:
    // `(limit, span, key path)` per direction.
    let mut byte_limits: Vec<Option<(u64, std::ops::Range<usize>, String)>> = Vec::new();
    for (i, (name, d, path)) in dir_cfgs.iter().enumerate() {
        // A reverse direction that inherited its parameters reports the forward's key.
        let params_span = |k: usize| dir_cfgs[k].1.params.as_ref().map(|p| p.span());
        let params_base = match path.strip_suffix(".reverse") {
            Some(fwd) if i > 0 && params_span(i - 1) == params_span(i) => fwd,
            _ => path.as_str(),
        };
        let Some(b) = &d.buffer else {
            byte_limits.push(params_byte_limit(name, d, params_base, ov));
            continue;
        };
        let key = match path.strip_suffix(".reverse") {
            // Inherited from the forward direction, just before it.
            Some(fwd) if dir_cfgs[i - 1].1.buffer.as_ref().map(|f| f.span()) == Some(b.span()) => {
                format!("{fwd}.buffer")
            }
            _ => key_of(path, "buffer"),
        };
        byte_limits.push(match cx.unit(b, &key, units::parse_size)? {
            units::Size::Bytes(n) => Some((n, b.span(), key)),
            // FQ-CoDel keeps a packet limit and a memory limit side by side.
            units::Size::Packets(_) => params_byte_limit(name, d, params_base, ov),
        });
    }

    let mut resolved_dirs = Vec::with_capacity(dir_cfgs.len());
    let mut dropped_params = Vec::new();
    let mut warnings = Vec::new();
    for ((name, d, path), (from, to)) in dir_cfgs.iter().zip(&ends) {
        let swapped = ov
            .qdisc
            .iter()
            .rev()
            .find(|(n, _)| n == name || name.strip_suffix(".rev") == Some(n.as_str()));
        let (link, kind, params) = direction(
            &cx,
            name,
            d,
            path,
            *from,
            *to,
            seed,
            swapped.map(|(_, k)| k.as_str()),
            &ov.set_params,
            &mut dropped_params,
            &mut warnings,
        )?;
        resolved_dirs.push(crate::resolved::ResolvedDirection {
            name: name.clone(),
            from: *from,
            to: *to,
            rate: match &link.rate {
                LinkRate::Constant(r) => crate::resolved::RateSpec::Constant(*r),
                LinkRate::Steps(st) => crate::resolved::RateSpec::Schedule(st.steps().to_vec()),
                LinkRate::Trace { .. } => {
                    let p = cx
                        .dir
                        .join(d.trace.as_ref().expect("a trace rate").get_ref());
                    crate::resolved::RateSpec::Trace(std::path::absolute(&p).unwrap_or(p))
                }
            },
            delay: link.delay,
            qdisc: kind.name(),
            params,
            loss: link.loss,
            jitter: d.jitter.as_ref().map(|j| j.get_ref().clone()),
        });
        links.push(link);
    }

    // Whether the seed matters: a discipline that draws, a lossy link, random traffic or a
    // random start (below). `aqmlab run` warns when nothing is random.
    let mut random = links.iter().zip(&dir_cfgs).any(|(l, (_, d, _))| {
        let perturbed = d
            .params
            .as_ref()
            .is_some_and(|p| p.get_ref().get("hash").and_then(|h| h.as_str()) == Some("perturbed"));
        l.loss > 0.0
            || matches!(l.qdisc.kind(), Kind::Red | Kind::Pie)
            || (l.qdisc.kind() == Kind::FqCodel && perturbed)
    });
    let mut sim = Sim::with_seed(nodes.clone(), links, bin, seed)
        .map_err(|e| cx.err(None, "", e.to_string()))?;
    for (name, d, path) in &dir_cfgs {
        if let Some(j) = &d.jitter {
            let dist = start_dist(&cx, j, &format!("{path}.jitter"))?;
            random |= dist.is_random();
            sim.set_jitter(name, dist);
        }
    }
    let mut flow_names: Vec<&str> = Vec::new();
    for (i, f) in raw.flows.iter().enumerate() {
        let p = format!("flows[{i}]");
        let name = match &f.name {
            None => None,
            Some(n) => {
                let v = n.get_ref().as_str();
                if v.is_empty() || v.chars().any(char::is_control) {
                    return Err(cx.err(
                        Some(n.span()),
                        format!("{p}.name"),
                        "expected a non-empty name without control characters",
                    ));
                }
                if let Some(j) = flow_names.iter().position(|x| *x == v) {
                    return Err(cx.err(
                        Some(n.span()),
                        format!("{p}.name"),
                        format!("flows[{j}] is named {v:?} already: expected a unique name"),
                    ));
                }
                flow_names.push(v);
                Some(v.to_string())
            }
        };
        let node = |s: &S, path: &str| node_index(&cx, &nodes, s, path);
        let (src, dst) = (
            node(&f.from, &format!("{p}.from"))?,
            node(&f.to, &format!("{p}.to"))?,
        );
        let mut start_random = false;
        let start = match &f.start {
            Some(s) => {
                // A time, or a distribution drawn from the flow's own stream.
                let d = start_dist(&cx, s, &format!("{p}.start"))?;
                random |= d.is_random();
                start_random = d.is_random();
                let mut rng =
                    aqmlab_core::Xoshiro256pp::for_stream(seed, &start_stream(i, name.as_deref()));
                SimTime::ZERO + d.sample(&mut rng, MAX_TIME)
            }
            None => SimTime::ZERO,
        };
        let stop = match &f.stop {
            Some(s) => Some(SimTime::ZERO + cx.duration(s, &format!("{p}.stop"))?),
            None => None,
        };
        // A flow that could never send is a slip, not a wish. (A random start that falls after
        // the end is a draw, not a slip: it is left alone.)
        if !start_random && start >= SimTime::ZERO + duration {
            return Err(cx.err(
                f.start.as_ref().map(|s| s.span()),
                format!("{p}.start"),
                format!(
                    "expected a start before the end of the run ({duration}), got {:?}: this flow would never run",
                    f.start.as_ref().map_or("0s", |s| s.get_ref().as_str())
                ),
            ));
        }
        if let (Some(st), Some(sv), false) = (stop, &f.stop, start_random) {
            if st <= start {
                return Err(cx.err(
                    Some(sv.span()),
                    format!("{p}.stop"),
                    format!(
                        "expected a stop after the start ({}), got {:?}: this flow would never run",
                        start - SimTime::ZERO,
                        sv.get_ref()
                    ),
                ));
            }
        }
        match f.kind.get_ref().as_str() {
            "udp" => {
                let rate = f.rate.as_ref().ok_or_else(|| {
                    cx.err(
                        Some(f.kind.span()),
                        format!("{p}.rate"),
                        "a udp flow needs a rate, like rate = \"64kbps\"",
                    )
                })?;
                let rate = cx.rate(rate, &format!("{p}.rate"))?;
                if rate.as_bps() == 0 {
                    return Err(cx.err(
                        f.rate.as_ref().map(|r| r.span()),
                        format!("{p}.rate"),
                        "expected a rate > 0",
                    ));
                }
                let size = match &f.size {
                    Some(s) if (20..=65_535).contains(s.get_ref()) => *s.get_ref() as u32,
                    Some(s) => {
                        return Err(cx.err(
                            Some(s.span()),
                            format!("{p}.size"),
                            format!(
                                "expected a packet size in bytes between 20 and 65535, got {}",
                                s.get_ref()
                            ),
                        ))
                    }
                    None => 1500,
                };
                // Every TCP key is refused on a udp flow, rather than silently ignored.
                let present = [
                    f.cc.is_some(),
                    f.app.is_some(),
                    f.bytes.is_some(),
                    f.conns_per_s.is_some(),
                    f.size_dist.is_some(),
                    f.size_mean.is_some(),
                    f.size_shape.is_some(),
                    f.size_sigma.is_some(),
                    f.request_size.is_some(),
                    f.model.is_some(),
                    f.http.is_some(),
                    f.interval.is_some(),
                    f.idle.is_some(),
                    f.idle_dist.is_some(),
                    f.reuse.is_some(),
                    f.idle_restart.is_some(),
                    f.mss.is_some(),
                    f.max_window.is_some(),
                    f.initial_cwnd.is_some(),
                    f.delayed_ack.is_some(),
                    f.sack.is_some(),
                    f.ecn.is_some(),
                    f.handshake.is_some(),
                    f.hystart.is_some(),
                    f.min_rto.is_some(),
                    f.delack_timeout.is_some(),
                    f.syn_retries.is_some(),
                    f.initial_rto.is_some(),
                    f.max_rto.is_some(),
                    f.initial_ssthresh.is_some(),
                    f.dupack_threshold.is_some(),
                    f.prr.is_some(),
                    f.recovery.is_some(),
                    f.rescue.is_some(),
                    f.cubic_beta.is_some(),
                    f.cubic_c.is_some(),
                    f.cubic_fast_convergence.is_some(),
                    f.cubic_reno_friendly.is_some(),
                    f.vegas_alpha.is_some(),
                    f.vegas_beta.is_some(),
                    f.vegas_gamma.is_some(),
                ];
                if let Some((key, _)) = TCP_FLOW_KEYS.iter().zip(present).find(|(_, p)| *p) {
                    return Err(cx.err(
                        Some(f.kind.span()),
                        format!("{p}.{key}"),
                        format!("{key} belongs to tcp flows; this flow has kind = \"udp\""),
                    ));
                }
                let on_off = apps::on_off(&cx, f, &p)?;
                random |= on_off.is_some();
                sim.add_udp(UdpSpec {
                    src,
                    dst,
                    rate,
                    size,
                    start,
                    stop,
                    on_off,
                    name: name.clone(),
                })
                .map_err(|e| cx.err(Some(f.from.span()), &p, e.to_string()))?;
            }
            "tcp" => {
                let cfg = tcp_config(&cx, f, &p)?;
                let app = apps::tcp_app(&cx, f, &p)?;
                random |= app.draws_at_random();
                if let (Some(st), TcpApp::Bulk | TcpApp::Finite { .. }) = (&f.stop, &app) {
                    return Err(cx.err(Some(st.span()), format!("{p}.stop"), if matches!(app, TcpApp::Bulk) { "stop applies to udp flows and the web, repeat and onoff applications: a bulk flow runs to the end (use app = \"finite\" with bytes for a transfer that ends)" } else { "stop applies to udp flows and the web, repeat and onoff applications: a finite transfer ends when its bytes are delivered" }));
                }
                let syn_retries = match &f.syn_retries {
                    None => None,
                    Some(n) if !cfg.handshake => {
                        return Err(cx.err(
                            Some(n.span()),
                            format!("{p}.syn_retries"),
                            "syn_retries needs handshake = true: without a handshake there is no SYN to retransmit",
                        ))
                    }
                    // Linux caps tcp_syn_retries at 127 (MAX_TCP_SYNCNT).
                    Some(n) if (0..=127).contains(n.get_ref()) => Some(*n.get_ref() as u32),
                    Some(n) => {
                        return Err(cx.err(
                            Some(n.span()),
                            format!("{p}.syn_retries"),
                            format!(
                                "expected a number of SYN retransmissions from 0 to 127, got {}",
                                n.get_ref()
                            ),
                        ))
                    }
                };
                sim.add_tcp(TcpSpec {
                    src,
                    dst,
                    start,
                    stop,
                    cfg,
                    app,
                    syn_retries,
                    name: name.clone(),
                })
                .map_err(|e| cx.err(Some(f.kind.span()), &p, e.to_string()))?;
            }
            other => {
                return Err(cx.err(
                    Some(f.kind.span()),
                    format!("{p}.kind"),
                    format!("expected udp or tcp, got {other:?}"),
                ));
            }
        }
    }

    // A byte limit below one packet drops every packet of the flows through it.
    for (i, f) in raw.flows.iter().enumerate() {
        let (src, dst) = (
            node_index(&cx, &nodes, &f.from, "")?,
            node_index(&cx, &nodes, &f.to, "")?,
        );
        let Some(largest) = largest_packets(&sim, i) else {
            continue;
        };
        for (a, b, (size, what)) in [(src, dst, largest.0), (dst, src, largest.1)] {
            for l in sim.path(a, b) {
                if let Some((limit, span, key)) = &byte_limits[l] {
                    if *limit < size as u64 {
                        return Err(cx.err(
                            Some(span.clone()),
                            key.clone(),
                            format!(
                                "a buffer of {limit}B cannot hold one {size}-byte packet of flows[{i}] ({what}) through link {}: expected at least {size}B",
                                dir_cfgs[l].0
                            ),
                        ));
                    }
                }
            }
        }
    }

    mtu_defaults_from_traffic(&mut sim, &mut resolved_dirs, &raw.flows, &nodes, &cx, seed)?;

    let output = raw.output.unwrap_or_default();
    let csv = match &output.format {
        None => false,
        Some(f) => match f.get_ref().as_str() {
            "parquet" => false,
            "csv" => true,
            other => {
                return Err(cx.err(
                    Some(f.span()),
                    "output.format",
                    format!("expected \"parquet\" or \"csv\", got {other:?}"),
                ))
            }
        },
    };
    // Packet logs asked for in the file (`[output] packet_log`) and on the command line.
    let asked = output
        .packet_log
        .iter()
        .enumerate()
        .map(|(i, n)| {
            (
                n.get_ref().as_str(),
                Some(n.span()),
                format!("output.packet_log[{i}]"),
            )
        })
        .chain(
            ov.packet_log
                .iter()
                .map(|n| (n.as_str(), None, format!("--packet-log {n}"))),
        );
    for (name, span, key) in asked {
        if !sim.log_packets(name) {
            let names: Vec<&str> = sim.link_names().collect();
            return Err(cx.err(
                span,
                key,
                format!(
                    "no link direction named {name:?} (NAME or NAME.rev): expected one of {}",
                    names.join(", ")
                ),
            ));
        }
    }
    for (i, n) in output.trace.iter().enumerate() {
        if !sim.trace_state(n.get_ref()) {
            let names: Vec<&str> = sim.link_names().collect();
            return Err(cx.err(
                Some(n.span()),
                format!("output.trace[{i}]"),
                format!(
                    "no link direction named {:?} (NAME or NAME.rev): expected one of {}",
                    n.get_ref(),
                    names.join(", ")
                ),
            ));
        }
    }
    let windows = windows(&cx, &raw.warmup, &raw.windows, duration)?;
    let name = raw.name.unwrap_or_else(|| default_name.to_string());
    let description = raw.description.unwrap_or_default();
    let resolved = crate::resolved::resolved_toml(
        &crate::resolved::ResolvedHeader {
            name: &name,
            description: &description,
            duration,
            seed,
            bin,
            nodes: &nodes,
            csv,
            flows: raw_flow_tables(text),
            windows: &windows,
            warmup: raw.warmup.is_some(),
        },
        &resolved_dirs,
        &sim,
    );
    Ok(Scenario {
        name,
        description,
        duration,
        seed,
        sim,
        csv,
        random,
        resolved,
        dropped_params,
        warnings,
        windows,
    })
}

/// The `[[flows]]` tables of scenario `text`, as written (the resolved scenario copies them).
fn raw_flow_tables(text: &str) -> toml_edit::ArrayOfTables {
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return Default::default();
    };
    match doc.get("flows") {
        Some(toml_edit::Item::ArrayOfTables(a)) => a.clone(),
        // `flows = [{...}, ...]`: the same tables, inline.
        Some(toml_edit::Item::Value(toml_edit::Value::Array(a))) => a
            .iter()
            .filter_map(|v| v.as_inline_table().map(|t| t.clone().into_table()))
            .collect(),
        _ => Default::default(),
    }
}

/// The measurement windows: the warm-up's (`after_warmup`, from its end to the run's) and the
/// `[[windows]]`, each within the run and named once.
fn windows(
    cx: &Ctx<'_>,
    warmup: &Option<S>,
    raw_windows: &[RawWindow],
    duration: SimDuration,
) -> Result<Vec<crate::windows::WindowSpec>, ScenarioError> {
    use crate::windows::{WindowSpec, AFTER_WARMUP};
    let end = SimTime::ZERO + duration;
    let mut out: Vec<WindowSpec> = Vec::new();
    if let Some(w) = warmup {
        let d = cx.duration(w, "warmup")?;
        if d >= duration {
            return Err(cx.err(
                Some(w.span()),
                "warmup",
                format!(
                    "expected a warm-up shorter than the duration ({duration}), got {:?}",
                    w.get_ref()
                ),
            ));
        }
        out.push(WindowSpec {
            name: AFTER_WARMUP.into(),
            from: SimTime::ZERO + d,
            to: end,
        });
    }
    for (i, w) in raw_windows.iter().enumerate() {
        let p = format!("windows[{i}]");
        let name = w.name.get_ref();
        if name.is_empty() || name.chars().any(char::is_control) {
            return Err(cx.err(
                Some(w.name.span()),
                format!("{p}.name"),
                "expected a non-empty name without control characters",
            ));
        }
        if out.iter().any(|o| o.name == *name) {
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
        let from = SimTime::ZERO + cx.duration(&w.from, &format!("{p}.from"))?;
        let to = SimTime::ZERO + cx.duration(&w.to, &format!("{p}.to"))?;
        if to <= from {
            return Err(cx.err(
                Some(w.to.span()),
                format!("{p}.to"),
                format!(
                    "expected the window to end after it starts ({:?}), got {:?}",
                    w.from.get_ref(),
                    w.to.get_ref()
                ),
            ));
        }
        if to > end {
            return Err(cx.err(
                Some(w.to.span()),
                format!("{p}.to"),
                format!(
                    "expected a window within the run (duration {duration}), got {:?}",
                    w.to.get_ref()
                ),
            ));
        }
        out.push(WindowSpec {
            name: name.clone(),
            from,
            to,
        });
    }
    Ok(out)
}

/// The largest packet flow `i` sends from its source to its destination and back, with what
/// it is; `None` for a flow that is not in `sim`.
#[allow(clippy::type_complexity)]
fn largest_packets(sim: &Sim, i: usize) -> Option<((u32, String), (u32, String))> {
    use aqmlab_tcp::segment::HEADER_BYTES;
    let ack = (HEADER_BYTES, "its ACKs".to_string());
    Some(match sim.flow_spec(i)? {
        FlowSpec::Udp(u) => ((u.size, "its datagrams".into()), (0, String::new())),
        FlowSpec::Tcp(t) => {
            let mss = t.cfg.mss as u64;
            let seg = |bytes: u64, what: &str| {
                let len = bytes.min(mss);
                (
                    len as u32 + HEADER_BYTES,
                    format!("{what}: {len} bytes of data + {HEADER_BYTES} of headers"),
                )
            };
            match &t.app {
                TcpApp::Bulk => (seg(mss, "its segments"), ack),
                TcpApp::Finite { bytes } => (seg(*bytes, "its segments"), ack),
                TcpApp::Web { request_bytes, .. } => (
                    seg(mss, "its responses"),
                    seg(*request_bytes, "its requests"),
                ),
                TcpApp::PackMime { .. } => (seg(mss, "its responses"), seg(mss, "its requests")),
                TcpApp::Repeat { .. } | TcpApp::OnOff { .. } => (seg(mss, "its segments"), ack),
            }
        }
    })
}

/// The largest packet the scenario's flows put on each link direction (data one way, ACKs or
/// requests the other), bytes; 0 for a direction no flow crosses.
fn largest_packet_per_link(
    sim: &Sim,
    flows: &[RawFlow],
    nodes: &[String],
    cx: &Ctx<'_>,
) -> Result<Vec<u32>, ScenarioError> {
    let mut largest = vec![0u32; sim.link_names().count()];
    for (i, f) in flows.iter().enumerate() {
        let (src, dst) = (
            node_index(cx, nodes, &f.from, "")?,
            node_index(cx, nodes, &f.to, "")?,
        );
        let Some((fwd, back)) = largest_packets(sim, i) else {
            continue;
        };
        for (a, b, size) in [(src, dst, fwd.0), (dst, src, back.0)] {
            for l in sim.path(a, b) {
                largest[l] = largest[l].max(size);
            }
        }
    }
    Ok(largest)
}

/// CoDel's "never drop with at most one MTU queued" rule (RFC 8289 §5.4, the `mtu` parameter
/// of CoDel, FQ-CoDel and LSTF-CoDel) means one largest packet of the link: with `mtu = "auto"`
/// (the default) it becomes the largest packet the scenario puts on that direction, plus the
/// 14-byte Ethernet header Linux counts with `variant = "linux"` (its `psched_mtu`). A fixed
/// 1500 B would let a queue of three 500-byte packets stand where one would on a link that only
/// carries 500-byte packets. A direction no flow crosses keeps the fixed default. The
/// discipline is rebuilt with the value (nothing has been drawn from its stream yet, so the
/// rebuilt one is the same but for it), and the resolved scenario records it.
fn mtu_defaults_from_traffic(
    sim: &mut Sim,
    resolved_dirs: &mut [crate::resolved::ResolvedDirection],
    flows: &[RawFlow],
    nodes: &[String],
    cx: &Ctx<'_>,
    seed: u64,
) -> Result<(), ScenarioError> {
    let largest = largest_packet_per_link(sim, flows, nodes, cx)?;
    for (l, dir) in resolved_dirs.iter_mut().enumerate() {
        let kind = Kind::from_name(dir.qdisc).expect("a built discipline's name");
        if !matches!(kind, Kind::Codel | Kind::FqCodel | Kind::LstfCodel) || largest[l] == 0 {
            continue;
        }
        let linux = dir
            .params
            .iter()
            .any(|(k, v)| k == "variant" && v == "linux");
        let Some(slot) = dir
            .params
            .iter_mut()
            .find(|(k, v)| k == "mtu" && v == "auto")
        else {
            continue;
        };
        slot.1 = format!("{}B", largest[l] + if linux { 14 } else { 0 });
        let qdisc = registry::build(
            kind.name(),
            &dir.params,
            UniformSource::Rng(aqmlab_core::Xoshiro256pp::for_stream(
                seed,
                &format!("link/{}/qdisc", dir.name),
            )),
        )
        .map_err(|e| cx.err(None, format!("{}.params.mtu", dir.name), e.to_string()))?;
        sim.replace_qdisc(l, qdisc);
    }
    Ok(())
}

/// Checks the keys that depend on where a link table stands: `name`/`from`/`to` only in
/// `[[links]]` (`is_link`), `delay` everywhere but in `reverse`, and no `reverse` in a `reverse`.
fn check_link_keys(
    cx: &Ctx<'_>,
    d: &RawDirection,
    path: &str,
    is_link: bool,
) -> Result<(), ScenarioError> {
    if !is_link {
        refuse_endpoints(cx, d, path, "implied here")?;
    }
    if d.delay.is_none() {
        return Err(cx.err(
            None,
            format!("{path}.delay"),
            "a link needs a delay, like delay = \"10ms\"",
        ));
    }
    if let Some(r) = &d.reverse {
        let rp = format!("{path}.reverse");
        refuse_endpoints(cx, r, &rp, "implied by the link")?;
        if r.reverse.is_some() {
            return Err(cx.err(
                None,
                format!("{rp}.reverse"),
                "a reverse direction has no reverse of its own",
            ));
        }
    }
    Ok(())
}

/// An error if `d` names its own `name`, `from` or `to` where those are `why` (implied).
fn refuse_endpoints(
    cx: &Ctx<'_>,
    d: &RawDirection,
    path: &str,
    why: &str,
) -> Result<(), ScenarioError> {
    for (v, key) in [(&d.name, "name"), (&d.from, "from"), (&d.to, "to")] {
        if let Some(v) = v {
            return Err(cx.err(
                Some(v.span()),
                format!("{path}.{key}"),
                format!("{key} is {why}: remove it"),
            ));
        }
    }
    Ok(())
}

/// The reverse direction: the forward settings with `over`'s fields replacing them.
fn merge(fwd: &RawDirection, over: Option<&RawDirection>) -> RawDirection {
    let Some(o) = over else { return fwd.clone() };
    let rate_given = o.rate.is_some() || o.schedule.is_some() || o.trace.is_some();
    RawDirection {
        name: None,
        from: None,
        to: None,
        reverse: None,
        rate: if rate_given {
            o.rate.clone()
        } else {
            fwd.rate.clone()
        },
        schedule: if rate_given {
            o.schedule.clone()
        } else {
            fwd.schedule.clone()
        },
        trace: if rate_given {
            o.trace.clone()
        } else {
            fwd.trace.clone()
        },
        delay: o.delay.clone().or_else(|| fwd.delay.clone()),
        qdisc: o.qdisc.clone().or_else(|| fwd.qdisc.clone()),
        buffer: o.buffer.clone().or_else(|| fwd.buffer.clone()),
        loss: o.loss.clone().or_else(|| fwd.loss.clone()),
        jitter: o.jitter.clone().or_else(|| fwd.jitter.clone()),
        // A new discipline on the reverse direction starts from its own defaults.
        params: if o.qdisc.is_some() {
            o.params.clone()
        } else {
            o.params.clone().or_else(|| fwd.params.clone())
        },
    }
}

/// A byte limit given as a discipline parameter (`params.limit`, or FQ-CoDel's
/// `params.memory_limit`, which may come with a buffer in packets): `(bytes, span, key path)`.
/// None when the limit is in packets, absent, or dropped by a `--qdisc` swap (which keeps only
/// the buffer). A value that does not parse is left for the discipline's own error.
fn params_byte_limit(
    name: &str,
    d: &RawDirection,
    path: &str,
    ov: &Overrides,
) -> Option<(u64, std::ops::Range<usize>, String)> {
    let swapped = ov
        .qdisc
        .iter()
        .any(|(n, _)| n == name || name.strip_suffix(".rev") == Some(n.as_str()));
    let params = d.params.as_ref().filter(|_| !swapped)?;
    let at = |n: u64, key: &str| Some((n, params.span(), format!("{path}.params.{key}")));
    if let Some(toml::Value::String(v)) = params.get_ref().get("limit") {
        if let Ok(units::Size::Bytes(n)) = units::parse_size(v) {
            return at(n, "limit");
        }
    }
    // FQ-CoDel reads its memory limit as bytes, with or without a unit.
    match params.get_ref().get("memory_limit") {
        Some(toml::Value::String(v)) => units::parse_bytes(v)
            .ok()
            .and_then(|n| at(n, "memory_limit")),
        Some(toml::Value::Integer(n)) => u64::try_from(*n).ok().and_then(|n| at(n, "memory_limit")),
        _ => None,
    }
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

/// A built link direction, with its discipline's kind and every one of its parameters (given or
/// default: what the resolved scenario writes).
type BuiltDirection = (LinkConfig, Kind, Vec<(String, String)>);

#[allow(clippy::too_many_arguments)]
fn direction(
    cx: &Ctx<'_>,
    name: &str,
    d: &RawDirection,
    path: &str,
    from: u32,
    to: u32,
    seed: u64,
    swapped_kind: Option<&str>,
    set_params: &[String],
    dropped: &mut Vec<(String, String)>,
    warnings: &mut Vec<String>,
) -> Result<BuiltDirection, ScenarioError> {
    let given = [d.rate.is_some(), d.schedule.is_some(), d.trace.is_some()]
        .iter()
        .filter(|x| **x)
        .count();
    if given != 1 {
        return Err(cx.err(
            None,
            path,
            format!("link {name}: expected exactly one of rate, schedule or trace, got {given}"),
        ));
    }
    let rate = if let Some(r) = &d.rate {
        let bps = cx.rate(r, &key_of(path, "rate"))?;
        if bps.as_bps() == 0 {
            return Err(cx.err(
                Some(r.span()),
                key_of(path, "rate"),
                "expected a rate > 0 (use a schedule for outages that end)",
            ));
        }
        LinkRate::Constant(bps)
    } else if let Some(steps) = &d.schedule {
        let mut v = Vec::with_capacity(steps.len());
        for (i, s) in steps.iter().enumerate() {
            let p = format!("{path}.schedule[{i}]");
            let [t, r] = s.as_slice() else {
                return Err(cx.err(
                    s.first().map(|x| x.span()),
                    p,
                    format!(
                        "expected a [time, rate] pair like [\"50s\", \"10Mbps\"], got {} values",
                        s.len()
                    ),
                ));
            };
            v.push((SimTime::ZERO + cx.duration(t, &p)?, cx.rate(r, &p)?));
        }
        LinkRate::Steps(StepSchedule::new(v).map_err(|e| {
            // The offending step's own line (the first step's when the error is about them all).
            let line = steps
                .get(e.line.saturating_sub(1))
                .and_then(|s| s.first())
                .map(|x| x.span());
            let step = if e.line > 0 {
                format!("[{}]", e.line - 1)
            } else {
                String::new()
            };
            cx.err(line, format!("{path}.schedule{step}"), e.msg)
        })?)
    } else {
        let t = d.trace.as_ref().expect("one of three is given");
        let p = cx.dir.join(t.get_ref());
        let text = std::fs::read_to_string(&p).map_err(|e| {
            cx.err(
                Some(t.span()),
                format!("{path}.trace"),
                format!("cannot read the trace {}: {e}", p.display()),
            )
        })?;
        let tr = DeliveryTrace::parse(&text).map_err(|e| {
            cx.err(
                Some(t.span()),
                format!("{path}.trace"),
                format!("{}: {e}", p.display()),
            )
        })?;
        LinkRate::trace(tr)
    };
    let delay_s = d
        .delay
        .as_ref()
        .expect("delay is required on links and set on reverses");
    let delay = cx.duration(delay_s, &key_of(path, "delay"))?;

    let kind_s = d
        .qdisc
        .as_ref()
        .map(|s| s.get_ref().as_str())
        .unwrap_or("droptail");
    let kind_name = swapped_kind.unwrap_or(kind_s);
    let kind = Kind::from_name(kind_name).map_err(|e| {
        if swapped_kind.is_some() {
            ScenarioError {
                file: cx.file.clone(),
                line: None,
                path: format!("--qdisc {name}"),
                msg: e.to_string(),
            }
        } else {
            cx.err(
                d.qdisc.as_ref().map(|q| q.span()),
                format!("{path}.qdisc"),
                e.to_string(),
            )
        }
    })?;
    let mut pairs: Vec<(String, String)> = Vec::new();
    if let (Some(b), Some(params)) = (&d.buffer, &d.params) {
        if params.get_ref().contains_key("limit")
            && (swapped_kind.is_none()
                || set_params
                    .iter()
                    .any(|s| s.ends_with(".params.limit") || s.ends_with(".params")))
        {
            let params_key = match path.strip_suffix(".reverse") {
                Some(fwd) if b.span() == params.span() => fwd,
                _ => path,
            };
            return Err(cx.err(
                Some(b.span()),
                key_of(path, "buffer"),
                format!(
                    "the buffer is given twice, as {} = {:?} and as {params_key}.params.limit: give one of them",
                    key_of(path, "buffer"),
                    b.get_ref()
                ),
            ));
        }
    }
    if let Some(b) = &d.buffer {
        let size = cx.unit(b, &key_of(path, "buffer"), units::parse_size)?;
        if matches!(size, units::Size::Packets(0) | units::Size::Bytes(0)) {
            return Err(cx.err(
                Some(b.span()),
                key_of(path, "buffer"),
                "expected a buffer > 0",
            ));
        }
        pairs.push(("limit".into(), size.to_string()));
    }
    // Parameters belong to the discipline named in the file; a --qdisc swap keeps only the buffer
    // and the parameters a --set gave (for this direction, or for the forward direction a
    // `reverse` inherits from).
    let set_here = |k: &str| {
        let fwd = path.strip_suffix(".reverse");
        [Some(path), fwd].into_iter().flatten().any(|p| {
            set_params
                .iter()
                .any(|s| *s == format!("{p}.params") || *s == format!("{p}.params.{k}"))
        })
    };
    if let Some(params) = &d.params {
        for (k, v) in params.get_ref() {
            if swapped_kind.is_some() && !set_here(k) {
                dropped.push((name.to_string(), format!("{k}={}", toml_text(v))));
                continue;
            }
            let value = match v {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) => f.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                other => {
                    return Err(cx.err(
                        Some(params.span()),
                        format!("{path}.params.{k}"),
                        format!(
                            "expected a string, number or boolean, got {}",
                            other.type_str()
                        ),
                    ))
                }
            };
            pairs.push((k.clone(), value));
        }
    }
    // RED's idle-time correction and automatic values need the link rate: give it unless the
    // user did. A schedule gives its first positive rate, a trace its mean rate; say so when the
    // link has other rates, since ns-2 read one fixed rate from its link.
    if kind == Kind::Red && !pairs.iter().any(|(k, _)| k == "bandwidth") {
        let used = first_positive_rate(&rate);
        let other = match &rate {
            LinkRate::Constant(_) => None,
            LinkRate::Steps(st) => {
                let mut others: Vec<aqmlab_core::Bitrate> = Vec::new();
                for (_, r) in st.steps() {
                    if *r != used && !others.contains(r) {
                        others.push(*r);
                    }
                }
                let others: Vec<String> = others.iter().map(|r| r.to_string()).collect();
                (!others.is_empty()).then(|| {
                    format!(
                        "its schedule's first positive rate; it also runs at {}",
                        others.join(", ")
                    )
                })
            }
            LinkRate::Trace { .. } => {
                Some("the mean rate of its trace, whose rate varies".to_string())
            }
        };
        if let Some(why) = other {
            warnings.push(format!(
                "link {name}: RED's idle-time correction and automatic parameters use bandwidth = {used} ({why}); set {path}.params.bandwidth to choose the rate"
            ));
        }
        pairs.push(("bandwidth".into(), used.to_string()));
    }
    if kind == Kind::FqCodel {
        if let Some(i) = pairs
            .iter()
            .position(|(k, v)| k == "limit" && v.ends_with('B'))
        {
            let (_, v) = pairs.remove(i);
            pairs.push(("memory_limit".into(), v));
        }
    }
    let qdisc = registry::build(
        kind.name(),
        &pairs,
        UniformSource::Rng(aqmlab_core::Xoshiro256pp::for_stream(
            seed,
            &format!("link/{name}/qdisc"),
        )),
    )
    .map_err(|e| match swapped_kind {
        // The discipline and its limit come from `--qdisc` and the buffer.
        Some(k) => ScenarioError {
            file: cx.file.clone(),
            line: None,
            path: format!("--qdisc {name}={k}"),
            msg: e.to_string(),
        },
        None => {
            let about = match &e {
                aqmlab_qdisc::ConfigError::Value { name, .. }
                | aqmlab_qdisc::ConfigError::Invalid { name, .. } => Some(*name),
                _ => None,
            };
            let in_params = d
                .params
                .as_ref()
                .is_some_and(|p| about.is_some_and(|n| p.get_ref().contains_key(n)));
            match &d.buffer {
                // The limit the buffer gave.
                Some(b) if !in_params && matches!(about, Some("limit" | "memory_limit")) => {
                    cx.err(Some(b.span()), key_of(path, "buffer"), e.to_string())
                }
                _ => cx.err(
                    d.params
                        .as_ref()
                        .map(|p| p.span())
                        .or(d.qdisc.as_ref().map(|q| q.span())),
                    format!("{path}.params"),
                    e.to_string(),
                ),
            }
        }
    })?;
    let loss = match &d.loss {
        None => 0.0,
        Some(x) if (0.0..1.0).contains(x.get_ref()) => *x.get_ref(),
        Some(x) => {
            return Err(cx.err(
                Some(x.span()),
                format!("{path}.loss"),
                format!("expected a loss probability in [0, 1), got {}", x.get_ref()),
            ))
        }
    };
    // Every parameter, given or default: the resolved scenario writes them all.
    let resolved = aqmlab_qdisc::Params::new(kind.name(), kind.params(), &pairs)
        .map(|p| {
            p.resolved()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .unwrap_or(pairs);
    Ok((
        LinkConfig {
            name: name.to_string(),
            from,
            to,
            rate,
            delay,
            qdisc,
            loss,
        },
        kind,
        resolved,
    ))
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

/// A flow's `start` or a link's `jitter`: a time (at most [`MAX_TIME`]) or a distribution of
/// times.
fn start_dist(cx: &Ctx<'_>, v: &S, path: &str) -> Result<DurationDist, ScenarioError> {
    if !v.get_ref().contains('(') {
        return Ok(DurationDist::Fixed(cx.duration(v, path)?));
    }
    let d = DurationDist::parse(v.get_ref()).map_err(|m| cx.err(Some(v.span()), path, m))?;
    if d.max().unwrap_or(d.mean()) > MAX_TIME {
        return Err(cx.err(
            Some(v.span()),
            path,
            format!(
                "expected times of at most {}s (about 11.6 days), got {:?}",
                MAX_TIME.as_nanos() / 1_000_000_000,
                v.get_ref()
            ),
        ));
    }
    Ok(d)
}

/// The keys only a tcp flow takes (a udp flow refuses each of them), in the order the udp check
/// lists their presence.
pub const TCP_FLOW_KEYS: [&str; 41] = [
    "cc",
    "app",
    "bytes",
    "conns_per_s",
    "size_dist",
    "size_mean",
    "size_shape",
    "size_sigma",
    "request_size",
    "model",
    "http",
    "interval",
    "idle",
    "idle_dist",
    "reuse",
    "idle_restart",
    "mss",
    "max_window",
    "initial_cwnd",
    "delayed_ack",
    "sack",
    "ecn",
    "handshake",
    "hystart",
    "min_rto",
    "delack_timeout",
    "syn_retries",
    "initial_rto",
    "max_rto",
    "initial_ssthresh",
    "dupack_threshold",
    "prr",
    "recovery",
    "rescue",
    "cubic_beta",
    "cubic_c",
    "cubic_fast_convergence",
    "cubic_reno_friendly",
    "vegas_alpha",
    "vegas_beta",
    "vegas_gamma",
];

/// The rate RED's idle-time correction assumes: the link's rate at time 0, or for a schedule
/// that starts with an outage, its first positive rate (a trace's mean rate).
fn first_positive_rate(rate: &LinkRate) -> aqmlab_core::Bitrate {
    match rate {
        LinkRate::Steps(s) => s
            .steps()
            .iter()
            .map(|(_, r)| *r)
            .find(|r| r.as_bps() > 0)
            .unwrap_or(s.rate_at(SimTime::ZERO)),
        other => other.nominal_rate(SimTime::ZERO),
    }
}
