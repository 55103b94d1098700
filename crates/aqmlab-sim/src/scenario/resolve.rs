//! Resolving a scenario text into a [`ResolvedScenario`] ([`resolve_with_edits`]), step by step:
//! the `--unset`s, `--set`s and `count = N` applied ([`edit`]), the text read into the raw types
//! (its errors worded by [`parse_error`]), the run's timing ([`timing`]), the flow count
//! ([`flow_count`]), the topology ([`read_topology`], the `--qdisc` swaps checked against it by
//! [`check_swaps`]), each link direction's discipline and the parameters it keeps ([`disc_of`]),
//! the flows and their routes ([`resolve_flows`],
//! [`crossings`], [`check_flows`]), the link directions, each with its rate ([`link_rate`]),
//! then its discipline's parameters typed and checked once ([`discipline`]) ([`direction`]), and their randomness ([`jitter`], [`links_random`]), the byte
//! buffers read from them ([`byte_limits`]), the buffers against the
//! packets crossing them ([`check_buffers`]), the output ([`output`]), the series' size for
//! the flows that keep one ([`check_series`]; after the flows, so a flow's error comes first),
//! and the windows
//! ([`super::windows`]). Each step reads only what it is given and reports errors as the whole
//! does, in the same order.

use super::disc_params::{disc_of, discipline, DirParams};
use super::edits::{edit, refuse_flow_tables, with_set_params};
use super::flows::PlannedFlow;
use super::*;
use crate::resolved::{FlowPlan, FlowSeries, ResolvedDirection, ResolvedFlow, ResolvedOutput};
use crate::topology::Routes;

/// A byte limit of a link direction: `(limit, span, key path)`.
type ByteLimit = (u64, std::ops::Range<usize>, String);

/// A link direction as the file gives it: `(name, settings, key path)`.
type DirCfg = (String, RawDirection, String);

/// Resolves a scenario from TOML `text` (without building a simulation) after removing the keys
/// `unsets` and applying the `--set` edits `sets` (`edit`, which also expands the flows'
/// `count = N`): every value read, typed and checked, the flows' routes and the links'
/// disciplines' parameters worked out. An error about the edited text names the file's line or
/// the `--set` that wrote its key (`Edited::blame`).
pub fn resolve_with_edits(
    text: &str,
    file: &str,
    dir: &Path,
    default_name: &str,
    unsets: &[String],
    sets: &[(String, String)],
    ov: &Overrides,
) -> Result<ResolvedScenario, ScenarioError> {
    refuse_flow_tables(text, file)?;
    let ed = edit(text, file, unsets, sets, &ov.varied, true)?;
    let (ov, blame) = (&*with_set_params(ov, sets), |e| ed.blame(e));
    let cx = Ctx::new(file, &ed.text, dir);
    // Read into the raw types (units typed once; a discipline parameter stays a TOML value).
    let mut raw: RawScenario = serde_path_to_error::deserialize(toml::Deserializer::new(&ed.text))
        .map_err(|e| blame(first_stamp(parse_error(&cx, e), ed.stamps())))?;
    let raw_flows = RawFlows::new(std::mem::take(&mut raw.flows), ed.stamps());
    let (duration, bin) = timing(&cx, &raw).map_err(blame)?;
    let seed = ov.seed.or(raw.seed).unwrap_or(1);
    let mut warnings = flow_count(&cx, raw_flows.len(), ov).map_err(blame)?;
    let (nodes, dir_cfgs, ends) = read_topology(&cx, &raw).map_err(blame)?;
    check_swaps(&cx, &dir_cfgs, ov).map_err(blame)?;
    // Each direction's discipline, the parameters it keeps and those a --qdisc swap dropped.
    let disc: Vec<DirParams> = dir_cfgs.iter().map(|c| disc_of(&cx, c, ov)).collect();
    // The flows first: their largest packet on each link direction gives `mtu = "auto"`.
    let on = flows_on_links(&cx, raw_flows, &nodes, &ends, duration, seed).map_err(blame)?;
    // Each link direction: its rate, then its discipline (each value typed and checked once).
    let mut directions = Vec::with_capacity(dir_cfgs.len());
    for (i, ((name, d, path), dp)) in dir_cfgs.iter().zip(&disc).enumerate() {
        let x = DirIn {
            cx: &cx,
            name,
            d,
            path,
            ends: ends[i],
            dp,
            largest_packet: on.largest[i],
        };
        let rate = link_rate(&x).map_err(blame)?;
        let disc = discipline(&x, &rate, &mut warnings).map_err(blame)?;
        directions.push(direction(&x, rate, disc).map_err(blame)?);
    }
    let dropped_params = disc.into_iter().flat_map(|dp| dp.dropped).collect();
    let random = jitter_and_randomness(&mut directions, &dir_cfgs, on.random);
    let (flows, routes) = on
        .checked(&cx, &nodes, &dir_cfgs, &directions, ov)
        .map_err(blame)?;
    let output = output(&cx, raw.output.unwrap_or_default(), ov, &directions, &flows);
    let output = output.map_err(blame)?;
    // Only the flows that keep a series write one (`[output] flow_series`).
    let with_series = output.flow_series.count(flows.len());
    check_series(&cx, &raw.bin, duration, bin, directions.len(), with_series).map_err(blame)?;
    warnings.extend(series_warning(&output, flows.len()));
    let windows = windows(&cx, &raw.warmup, &raw.windows, duration).map_err(blame)?;
    Ok(ResolvedScenario {
        name: raw.name.unwrap_or_else(|| default_name.to_string()),
        description: raw.description.unwrap_or_default(),
        duration,
        seed,
        bin,
        nodes,
        directions,
        routes,
        flows,
        windows,
        warmup: raw.warmup.is_some(),
        output,
        random,
        dropped_params,
        warnings,
    })
}

/// The flows on the topology, before the link directions are made ([`flows_on_links`]).
struct FlowsOnLinks {
    /// Each flow planned ([`resolve_flows`]).
    planned: Vec<PlannedFlow>,
    /// Whether any flow's traffic or start is random.
    random: bool,
    /// The routes between the nodes over the link directions' `ends`.
    routes: Routes,
    /// The largest packet each flow puts on each link direction of its route ([`crossings`]).
    crossings: Vec<Crossing>,
    /// The largest packet on each link direction, 0 where no flow crosses it
    /// ([`largest_per_link`]).
    largest: Vec<u32>,
}

/// The flows of the file (`raw_flows`, done with here: the resolved file is written from the
/// typed flows) planned ([`resolve_flows`]), routed over the link directions' `ends`, and the
/// packets they put on each direction.
fn flows_on_links(
    cx: &Ctx<'_>,
    raw_flows: RawFlows,
    nodes: &[String],
    ends: &[(u32, u32)],
    duration: SimDuration,
    seed: u64,
) -> Result<FlowsOnLinks, ScenarioError> {
    let (planned, random) = resolve_flows(cx, &raw_flows, nodes, duration, seed)?;
    let routes = Routes::compute(nodes.len(), ends);
    let crossings = crossings(cx, &raw_flows, nodes, &planned, &routes, ends)?;
    let largest = largest_per_link(&crossings, ends.len());
    Ok(FlowsOnLinks {
        planned,
        random,
        routes,
        crossings,
        largest,
    })
}

impl FlowsOnLinks {
    /// The flows checked on their routes ([`check_flows`]), then the link directions' byte
    /// buffers ([`byte_limits`]) against the packets crossing them ([`check_buffers`]): the
    /// flows, and the routes.
    fn checked(
        self,
        cx: &Ctx<'_>,
        nodes: &[String],
        dir_cfgs: &[DirCfg],
        directions: &[ResolvedDirection],
        ov: &Overrides,
    ) -> Result<(Vec<ResolvedFlow>, Routes), ScenarioError> {
        let flows = check_flows(cx, self.planned, nodes, &self.routes)?;
        let limits = byte_limits(dir_cfgs, directions, ov);
        check_buffers(cx, &self.crossings, &limits, dir_cfgs)?;
        Ok((flows, self.routes))
    }
}

/// Each direction's `jitter` put into it ([`jitter`]), and whether the seed matters: a
/// discipline that draws, a lossy link ([`links_random`]), random jitter, random traffic or a
/// random start (`flows_random`). `aqmlab run` warns when nothing is random.
fn jitter_and_randomness(
    directions: &mut [ResolvedDirection],
    dir_cfgs: &[DirCfg],
    flows_random: bool,
) -> bool {
    let links = links_random(directions);
    let jitter = jitter(directions, dir_cfgs);
    links | jitter | flows_random
}

/// `e`, an error reading flow table `t` of the edited text (`flows[t].KEY`), said about the
/// first flow stamped from it, so that it names that flow as the file's `count` made it.
fn first_stamp(mut e: ScenarioError, stamps: &[Option<usize>]) -> ScenarioError {
    if let Some((t, tail)) = e
        .path
        .strip_prefix("flows[")
        .and_then(|r| r.split_once(']'))
    {
        if let Ok(t) = t.parse::<usize>() {
            e.path = format!("flows[{}]{tail}", RawFlows::first_flow(stamps, t));
        }
    }
    e
}

/// An error reading the scenario text into the raw types ([`resolve_with_edits`]), naming the
/// key path and saying what was expected as a user would.
fn parse_error(cx: &Ctx<'_>, e: serde_path_to_error::Error<toml::de::Error>) -> ScenarioError {
    let text = cx.text;
    // A syntax error is said as every TOML syntax error is (read again only to tell it from a
    // value of the wrong type, on this error path).
    if let Err(syntax) = check_toml(&cx.file, text) {
        return syntax;
    }
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
        msg.push_str(" (write values with units in quotes, e.g. \"10Mbps\", \"20ms\", \"830p\")");
    }
    cx.err(
        inner.span(),
        if path == "." { String::new() } else { path },
        msg,
    )
}

/// The run's `(duration, bin)`: both > 0, the bin 100 ms unless given, and at most 10^7 bins.
fn timing(cx: &Ctx<'_>, raw: &RawScenario) -> Result<(SimDuration, SimDuration), ScenarioError> {
    let duration = *raw.duration.get();
    if duration == SimDuration::ZERO {
        return Err(cx.err(
            Some(raw.duration.span()),
            "duration",
            "expected a duration > 0",
        ));
    }
    let bin = match &raw.bin {
        Some(b) => {
            let d = *b.get();
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
    Ok((duration, bin))
}

/// Refuses more than [`MAX_FLOWS`] flows; above [`WARN_FLOWS`], the memory warning, given at once
/// to `ov.warn_now` or returned to start the scenario's warnings.
fn flow_count(cx: &Ctx<'_>, n: usize, ov: &Overrides) -> Result<Vec<String>, ScenarioError> {
    if n > MAX_FLOWS {
        return Err(cx.err(
            None,
            "flows",
            format!("expected at most {MAX_FLOWS} flows, got {n}"),
        ));
    }
    let mut early_warnings = Vec::new();
    if n > WARN_FLOWS {
        let msg = flows_memory_warning(n);
        match ov.warn_now {
            Some(warn) => warn(&format!("{}: {msg}", one_line(&cx.file))),
            None => early_warnings.push(msg),
        }
    }
    Ok(early_warnings)
}

/// Checks that every `--qdisc LINK=KIND` names a link or a direction of `dir_cfgs`.
fn check_swaps(cx: &Ctx<'_>, dir_cfgs: &[DirCfg], ov: &Overrides) -> Result<(), ScenarioError> {
    // Every direction `X.rev` comes with its forward direction `X` (`read_topology` pushes
    // them in pairs, and a link name cannot end in `.rev`), so a name that is a link or a
    // direction is one of the directions' names.
    for (name, kind) in &ov.qdisc {
        if !dir_cfgs.iter().any(|(n, _, _)| n == name) {
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
    Ok(())
}

/// Each link direction writes 10 series and each flow that keeps its series
/// (`[output] flow_series`) 6, a value per bin: refuses runs whose series files alone would
/// take gigabytes (a bin of "1ns" is more likely a slip than a wish).
fn check_series(
    cx: &Ctx<'_>,
    raw_bin: &Option<Time>,
    duration: SimDuration,
    bin: SimDuration,
    n_dirs: usize,
    n_flows: usize,
) -> Result<(), ScenarioError> {
    let bins = duration.as_nanos().div_ceil(bin.as_nanos());
    let series = 10 * n_dirs as u64 + 6 * n_flows as u64;
    if bins.saturating_mul(series) > MAX_SERIES_VALUES {
        // The smallest bin whose bin count (rounded up, as above) stays within the limit:
        // at most ⌊limit / series⌋ bins.
        let max_bins = (MAX_SERIES_VALUES / series).max(1);
        let min_bin =
            SimDuration::from_nanos(round_up_2_digits(duration.as_nanos().div_ceil(max_bins)));
        return Err(cx.err(
            raw_bin.as_ref().map(|b| b.span()),
            "bin",
            format!(
                "{duration} in bins of {bin} for {n_dirs} link directions and {n_flows} flows with a series makes {} time-series values, more than {MAX_SERIES_VALUES}: expected a bin of at least {min_bin}",
                bins as u128 * series as u128,
            ),
        ));
    }
    Ok(())
}

/// `n` rounded up to two significant digits (`112000018` → `120000000`), so a suggested bin
/// reads as a round duration ("120ms") and still fits.
fn round_up_2_digits(n: u64) -> u64 {
    let mut step = 1u64;
    while n / step >= 100 {
        step *= 10;
    }
    n.div_ceil(step).saturating_mul(step)
}

/// The byte limit of each link direction (a `buffer` in bytes, or its discipline's memory
/// limit), to check that each holds the largest packet of every flow through it.
fn byte_limits(
    dir_cfgs: &[DirCfg],
    directions: &[ResolvedDirection],
    ov: &Overrides,
) -> Vec<Option<ByteLimit>> {
    let mut byte_limits = Vec::with_capacity(dir_cfgs.len());
    for (i, ((name, d, path), typed)) in dir_cfgs.iter().zip(directions).enumerate() {
        let typed = &typed.params;
        // A reverse direction that inherited its parameters reports the forward's key.
        let params_span = |k: usize| dir_cfgs[k].1.params.as_ref().map(|p| p.span());
        let params_base = match path.strip_suffix(".reverse") {
            Some(fwd) if i > 0 && params_span(i - 1) == params_span(i) => fwd,
            _ => path.as_str(),
        };
        let Some(b) = &d.buffer else {
            byte_limits.push(params_byte_limit(name, d, params_base, ov, typed));
            continue;
        };
        let key = match path.strip_suffix(".reverse") {
            // Inherited from the forward direction, just before it.
            Some(fwd) if dir_cfgs[i - 1].1.buffer.as_ref().map(|f| f.span()) == Some(b.span()) => {
                format!("{fwd}.buffer")
            }
            _ => key_of(path, "buffer"),
        };
        byte_limits.push(match *b.get() {
            units::Size::Bytes(n) => Some((n, b.span(), key)),
            // FQ-CoDel keeps a packet limit and a memory limit side by side.
            units::Size::Packets(_) => params_byte_limit(name, d, params_base, ov, typed),
        });
    }
    byte_limits
}

/// Whether a link direction draws random numbers: a lossy link, or a discipline that draws
/// (RED, PIE, FQ-PIE, COBALT, FQ-COBALT, FQ-CoDel with `hash = "perturbed"`).
fn links_random(directions: &[ResolvedDirection]) -> bool {
    directions.iter().any(|l| {
        // The discipline's own (typed) parameters: a `hash` a `--qdisc` swap dropped is not.
        let perturbed = l.params.has_param("hash") && l.params.choice_name("hash") == "perturbed";
        l.loss > 0.0
            || matches!(
                l.qdisc.kind(),
                Kind::Red | Kind::Pie | Kind::FqPie | Kind::Cobalt | Kind::FqCobalt
            )
            || (l.qdisc.kind() == Kind::FqCodel && perturbed)
    })
}

/// Each direction's `jitter` (read when the file was), put into it; whether any is random.
fn jitter(directions: &mut [ResolvedDirection], dir_cfgs: &[DirCfg]) -> bool {
    let mut random = false;
    for (l, (_, d, _)) in directions.iter_mut().zip(dir_cfgs) {
        if let Some(j) = &d.jitter {
            random |= j.get().is_random();
            l.jitter = Some((j.text().to_string(), *j.get()));
        }
    }
    random
}

/// A byte limit below one packet drops every packet of the flows through it: refused, naming
/// the first such packet in the order of `crossings`.
fn check_buffers(
    cx: &Ctx<'_>,
    crossings: &[Crossing],
    byte_limits: &[Option<ByteLimit>],
    dir_cfgs: &[DirCfg],
) -> Result<(), ScenarioError> {
    for Crossing {
        flow,
        link,
        size,
        what,
    } in crossings
    {
        if let Some((limit, span, key)) = &byte_limits[*link] {
            if *limit < u64::from(*size) {
                return Err(cx.err(
                    Some(span.clone()),
                    key.clone(),
                    format!(
                        "a buffer of {limit}B cannot hold one {size}-byte packet of flows[{flow}] ({what}) through link {}: expected at least {size}B",
                        dir_cfgs[*link].0
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `[output]` with the command line's `--packet-log` and `--trace-flow`: the series' format, the
/// directions logged and traced, in link order, each once (as the simulation keeps them), and
/// the TCP flows whose sender state is sampled. In steps: [`output_format`],
/// [`logged_directions`], [`traced_directions`], [`trace_flows`].
fn output(
    cx: &Ctx<'_>,
    output: RawOutput,
    ov: &Overrides,
    directions: &[ResolvedDirection],
    flows: &[ResolvedFlow],
) -> Result<ResolvedOutput, ScenarioError> {
    let csv = output_format(cx, output.format.as_ref())?;
    let dir_names: Vec<&str> = directions.iter().map(|d| d.name.as_str()).collect();
    let logged = logged_directions(cx, &output.packet_log, ov, &dir_names)?;
    let traced = traced_directions(cx, &output.trace, &dir_names)?;
    let chosen = |on: &[bool]| -> Vec<String> {
        dir_names
            .iter()
            .zip(on)
            .filter(|(_, on)| **on)
            .map(|(n, _)| n.to_string())
            .collect()
    };
    Ok(ResolvedOutput {
        csv,
        packet_log: chosen(&logged),
        trace: chosen(&traced),
        trace_flows: trace_flows(cx, &output.trace_flows, ov, flows)?,
        owd_distribution: output.owd_distribution,
        flow_series: flow_series(cx, output.flow_series.as_ref(), flows)?,
    })
}

/// `[output] flow_series`: `"auto"` (also when absent), `"all"`, `"none"`, or a list of flows,
/// each by its index or its `name`, at most once.
fn flow_series(
    cx: &Ctx<'_>,
    v: Option<&Spanned<toml::Value>>,
    flows: &[ResolvedFlow],
) -> Result<FlowSeries, ScenarioError> {
    const EXPECTED: &str =
        "expected \"auto\", \"all\", \"none\" or a list of flows (each an index or a name)";
    let Some(v) = v else {
        return Ok(FlowSeries::Auto);
    };
    let err = |msg: String| cx.err(Some(v.span()), "output.flow_series", msg);
    let items = match v.get_ref() {
        toml::Value::String(s) => {
            return match s.as_str() {
                "auto" => Ok(FlowSeries::Auto),
                "all" => Ok(FlowSeries::All),
                "none" => Ok(FlowSeries::None),
                _ => Err(err(format!("{EXPECTED}, got {s:?}"))),
            }
        }
        toml::Value::Array(a) => a,
        other => return Err(err(format!("{EXPECTED}, got {other}"))),
    };
    let n = flows.len();
    // The flows' names, looked up once each (a list may name thousands of flows).
    let names: std::collections::BTreeMap<&str, usize> = flows
        .iter()
        .enumerate()
        .filter_map(|(i, f)| match &f.plan {
            FlowPlan::Udp(u) => u.name.as_deref().map(|s| (s, i)),
            FlowPlan::Tcp(t) => t.name.as_deref().map(|s| (s, i)),
        })
        .collect();
    let mut seen = vec![false; n];
    let mut chosen = Vec::with_capacity(items.len());
    for (k, item) in items.iter().enumerate() {
        let key = |msg: String| cx.err(Some(v.span()), format!("output.flow_series[{k}]"), msg);
        let i = match item {
            toml::Value::Integer(i) => {
                usize::try_from(*i).ok().filter(|&i| i < n).ok_or_else(|| {
                    key(format!(
                        "expected a flow index 0..{n} (the scenario has {n} flows), got {i}"
                    ))
                })?
            }
            toml::Value::String(s) => names.get(s.as_str()).copied().ok_or_else(|| {
                key(format!(
                    "expected the name of a flow, got {s:?}: no flow has it"
                ))
            })?,
            other => {
                return Err(key(format!(
                    "expected a flow index or a flow's name, got {other}"
                )))
            }
        };
        if std::mem::replace(&mut seen[i], true) {
            return Err(key(format!(
                "flow {i} is listed twice: expected each flow at most once"
            )));
        }
        chosen.push(i);
    }
    chosen.sort_unstable();
    Ok(FlowSeries::Flows(chosen))
}

/// The warning of a scenario whose flows keep no time series because there are more of them
/// than `"auto"` keeps ([`SERIES_FLOWS`]).
fn series_warning(output: &ResolvedOutput, n: usize) -> Option<String> {
    (output.flow_series == FlowSeries::Auto && n > SERIES_FLOWS).then(|| {
        format!(
            "output.flow_series: \"auto\" keeps no flow's time series with more than {SERIES_FLOWS} flows (here {n}): flows.parquet has no rows (the summary is whole); flow_series = \"all\" or a list of flows keeps them"
        )
    })
}

/// `[output] format`: true for `"csv"`, false for `"parquet"` (the default).
fn output_format(cx: &Ctx<'_>, format: Option<&S>) -> Result<bool, ScenarioError> {
    match format {
        None => Ok(false),
        Some(f) => match f.get_ref().as_str() {
            "parquet" => Ok(false),
            "csv" => Ok(true),
            other => Err(cx.err(
                Some(f.span()),
                "output.format",
                format!("expected \"parquet\" or \"csv\", got {other:?}"),
            )),
        },
    }
}

/// The error for a link direction `name` not among `dir_names`.
fn no_such_direction(name: &str, dir_names: &[&str]) -> String {
    format!(
        "no link direction named {name:?} (NAME or NAME.rev): expected one of {}",
        dir_names.join(", ")
    )
}

/// Per link direction (of `dir_names`), whether its packets are logged: asked for in the file
/// (`[output] packet_log`, each named by its key) or on the command line (`--packet-log`).
fn logged_directions(
    cx: &Ctx<'_>,
    packet_log: &[S],
    ov: &Overrides,
    dir_names: &[&str],
) -> Result<Vec<bool>, ScenarioError> {
    let asked = packet_log
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
    let mut logged = vec![false; dir_names.len()];
    for (name, span, key) in asked {
        match dir_names.iter().position(|n| *n == name) {
            Some(i) => logged[i] = true,
            None => return Err(cx.err(span, key, no_such_direction(name, dir_names))),
        }
    }
    Ok(logged)
}

/// Per link direction (of `dir_names`), whether it is traced (`[output] trace`).
fn traced_directions(
    cx: &Ctx<'_>,
    trace: &[S],
    dir_names: &[&str],
) -> Result<Vec<bool>, ScenarioError> {
    let mut traced = vec![false; dir_names.len()];
    for (i, n) in trace.iter().enumerate() {
        match dir_names.iter().position(|d| d == n.get_ref()) {
            Some(l) => traced[l] = true,
            None => {
                return Err(cx.err(
                    Some(n.span()),
                    format!("output.trace[{i}]"),
                    no_such_direction(n.get_ref(), dir_names),
                ))
            }
        }
    }
    Ok(traced)
}

/// The TCP flows whose sender state is sampled: the file's `[output] trace_flows` (a flow at
/// most once), then `--trace-flow`, whose entry replaces the file's for the same flow; by index.
fn trace_flows(
    cx: &Ctx<'_>,
    file: &[RawTraceFlow],
    ov: &Overrides,
    flows: &[ResolvedFlow],
) -> Result<Vec<(usize, SimDuration)>, ScenarioError> {
    let n = flows.len();
    // A flow index that names a TCP flow of this scenario, or what is wrong with it.
    let check = |flow: i64| -> Result<usize, String> {
        let i = usize::try_from(flow)
            .ok()
            .filter(|&i| i < n)
            .ok_or_else(|| {
                format!("expected a flow index 0..{n} (the scenario has {n} flows), got {flow}")
            })?;
        match flows[i].plan {
            FlowPlan::Tcp(_) => Ok(i),
            FlowPlan::Udp(_) => Err(format!(
                "flow {i} is a UDP flow: only a TCP flow has a sender state to sample"
            )),
        }
    };
    let positive = |d: SimDuration, what: &str| {
        if d == SimDuration::ZERO {
            Err(format!(
                "expected a positive sampling interval, got {what:?}"
            ))
        } else {
            Ok(d)
        }
    };
    let mut chosen: Vec<(usize, SimDuration)> = Vec::new();
    for (k, e) in file.iter().enumerate() {
        let key = format!("output.trace_flows[{k}]");
        let flow = check(*e.flow.get_ref())
            .map_err(|m| cx.err(Some(e.flow.span()), format!("{key}.flow"), m))?;
        if chosen.iter().any(|&(f, _)| f == flow) {
            return Err(cx.err(
                Some(e.flow.span()),
                format!("{key}.flow"),
                format!("flow {flow} is listed twice: expected each flow at most once"),
            ));
        }
        let path = format!("{key}.every");
        let every = cx.duration(&e.every, &path)?;
        let every = positive(every, e.every.get_ref())
            .map_err(|m| cx.err(Some(e.every.span()), path, m))?;
        chosen.push((flow, every));
    }
    for (flow, text) in &ov.trace_flows {
        let key = format!("--trace-flow {flow}={text}");
        let flow = i64::try_from(*flow).unwrap_or(i64::MAX);
        let flow = check(flow).map_err(|m| cx.err(None, key.clone(), m))?;
        let every = units::parse_duration(text)
            .map_err(|e| cx.err(None, key.clone(), e.to_string()))
            .and_then(|d| positive(d, text).map_err(|m| cx.err(None, key.clone(), m)))?;
        chosen.retain(|&(f, _)| f != flow);
        chosen.push((flow, every));
    }
    chosen.sort_by_key(|&(f, _)| f);
    Ok(chosen)
}

#[cfg(test)]
mod tests;
