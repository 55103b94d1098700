//! Resolving an (edited, expanded) scenario text into a [`ResolvedScenario`], step by step:
//! the text read into the raw types ([`parse`]), the run's timing ([`timing`]), the flow count
//! ([`flow_count`]), the topology ([`read_topology`], the `--qdisc` swaps checked against it by
//! [`check_swaps`]), each link direction's discipline parameters typed once ([`disc_params`]),
//! the series' size ([`check_series`]), the flows and their routes ([`resolve_flows`],
//! [`crossings`], [`check_flows`]), the link directions, each with its discipline's parameters
//! checked once ([`direction`]), and their randomness ([`jitter`], [`links_random`]), the byte
//! buffers read from them ([`byte_limits`]), the buffers against the
//! packets crossing them ([`check_buffers`]), the output ([`output`]), and the windows
//! ([`super::windows`]). Each step reads only what it is given and reports errors as the whole
//! does, in the same order.

use super::disc_params::{disc_params, DirParams};
use super::*;
use crate::resolved::{FlowPlan, ResolvedDirection, ResolvedFlow};
use crate::topology::Routes;

/// A byte limit of a link direction: `(limit, span, key path)`.
type ByteLimit = (u64, std::ops::Range<usize>, String);

/// A link direction as the file gives it: `(name, settings, key path)`.
type DirCfg = (String, RawDirection, String);

/// Resolves the (edited, expanded) scenario `text`: every value read, typed and checked, the
/// flows' routes and the links' disciplines' parameters worked out, without building a
/// simulation.
pub(super) fn resolve_expanded(
    text: &str,
    stamps: &[Option<usize>],
    file: &str,
    dir: &Path,
    default_name: &str,
    ov: &Overrides,
) -> Result<ResolvedScenario, ScenarioError> {
    let cx = Ctx {
        file: file.to_string(),
        text,
        dir: dir.to_path_buf(),
    };
    // The text read into the raw types, the values with units among them typed once
    // ([`super::raw_units`]); a discipline parameter's value stays a TOML value here.
    let mut raw: RawScenario = serde_path_to_error::deserialize(toml::Deserializer::new(text))
        .map_err(|e| first_stamp(parse_error(&cx, e), stamps))?;
    let raw_flows = RawFlows::new(std::mem::take(&mut raw.flows), stamps);
    let (duration, bin) = timing(&cx, &raw)?;
    let seed = ov.seed.or(raw.seed).unwrap_or(1);
    let mut warnings = flow_count(&cx, raw_flows.len(), ov)?;
    let (nodes, dir_cfgs, ends) = read_topology(&cx, &raw)?;
    check_swaps(&cx, &dir_cfgs, ov)?;
    // Each direction's discipline and parameters, each value typed once.
    let disc: Vec<DirParams> = dir_cfgs.iter().map(|c| disc_params(&cx, c, ov)).collect();
    check_series(
        &cx,
        &raw.bin,
        duration,
        bin,
        dir_cfgs.len(),
        raw_flows.len(),
    )?;
    // The flows, resolved before the links: the largest packet each puts on each link direction
    // of its route gives CoDel's `mtu = "auto"` before the discipline is built.
    let (planned, flows_random) = resolve_flows(&cx, &raw_flows, &nodes, duration, seed)?;
    let routes = Routes::compute(nodes.len(), &ends);
    let crossings = crossings(&cx, &raw_flows, &nodes, &planned, &routes, &ends)?;
    let largest = largest_per_link(&crossings, dir_cfgs.len());
    // The link directions, each with its discipline's parameters checked and configured.
    let mut directions = Vec::with_capacity(dir_cfgs.len());
    for (i, ((name, d, path), dp)) in dir_cfgs.iter().zip(&disc).enumerate() {
        let x = DirIn {
            cx: &cx,
            name,
            d,
            path,
            ends: ends[i],
            dp,
            largest_packet: largest[i],
        };
        directions.push(direction(&x, &mut warnings)?);
    }
    // The file's parameters the --qdisc swaps dropped, in link order.
    let dropped_params = disc.into_iter().flat_map(|dp| dp.dropped).collect();
    // Whether the seed matters: a discipline that draws, a lossy link, random jitter, random
    // traffic or a random start. `aqmlab run` warns when nothing is random.
    let mut random = links_random(&directions);
    random |= jitter(&mut directions, &dir_cfgs);
    random |= flows_random;
    let flows: Vec<ResolvedFlow> = check_flows(&cx, planned, &nodes, &routes)?;
    let limits = byte_limits(&dir_cfgs, &directions, ov);
    check_buffers(&cx, &crossings, &limits, &dir_cfgs)?;
    let output = output(&cx, raw.output.unwrap_or_default(), ov, &directions, &flows)?;
    let windows = windows(&cx, &raw.warmup, &raw.windows, duration)?;
    // The raw flows are done with (the resolved file is written from the typed flows).
    drop(raw_flows);
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

/// An error reading the scenario text into the raw types ([`resolve_expanded`]), naming the
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

/// Each link direction writes 10 series and each flow 6, a value per bin: refuses runs whose
/// series files alone would take gigabytes (a bin of "1ns" is more likely a slip than a wish).
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
                "{duration} in bins of {bin} for {n_dirs} link directions and {n_flows} flows makes {} time-series values, more than {MAX_SERIES_VALUES}: expected a bin of at least {min_bin}",
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
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Two nodes, one link `l` (and `l.rev`), one UDP flow: line 1 is `duration`.
    const TWO: &str = r#"duration = "10s"
nodes = ["a", "b"]
[[links]]
name = "l"
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"
buffer = "3000B"
[[flows]]
kind = "udp"
from = "a"
to = "b"
rate = "1Mbps"
"#;

    fn cx(text: &str) -> Ctx<'_> {
        Ctx {
            file: "t.toml".into(),
            text,
            dir: PathBuf::new(),
        }
    }

    /// The text of `cx` read into the raw types, as [`resolve_expanded`] reads it.
    fn parse(cx: &Ctx<'_>) -> Result<RawScenario, ScenarioError> {
        serde_path_to_error::deserialize(toml::Deserializer::new(cx.text))
            .map_err(|e| parse_error(cx, e))
    }

    /// `TWO` with `extra` inserted before its `[[links]]` (top-level keys) or after them
    /// (link keys), as `at_link` says.
    fn two_with(extra: &str, at_link: bool) -> String {
        let at = if at_link { "[[flows]]" } else { "[[links]]" };
        TWO.replacen(at, &format!("{extra}\n{at}"), 1)
    }

    /// The topology as [`resolve_expanded`] reads it: the nodes, the link directions and their
    /// ends ([`read_topology`]), the `--qdisc` swaps checked ([`check_swaps`]), and each
    /// direction's discipline parameters, typed ([`disc_params`]).
    #[allow(clippy::type_complexity)]
    fn topology(
        cx: &Ctx<'_>,
        raw: &RawScenario,
        ov: &Overrides,
    ) -> Result<(Vec<String>, Vec<DirCfg>, Vec<(u32, u32)>, Vec<DirParams>), ScenarioError> {
        let (nodes, dirs, ends) = read_topology(cx, raw)?;
        check_swaps(cx, &dirs, ov)?;
        let disc = dirs.iter().map(|c| disc_params(cx, c, ov)).collect();
        Ok((nodes, dirs, ends, disc))
    }

    /// Every link direction resolved ([`direction`]), as [`resolve_expanded`] does.
    fn directions(
        cx: &Ctx<'_>,
        dirs: &[DirCfg],
        disc: &[DirParams],
        ends: &[(u32, u32)],
        largest: &[u32],
        warnings: &mut Vec<String>,
    ) -> Result<Vec<ResolvedDirection>, ScenarioError> {
        let mut out = Vec::new();
        for (i, ((name, d, path), dp)) in dirs.iter().zip(disc).enumerate() {
            let x = DirIn {
                cx,
                name,
                d,
                path,
                ends: ends[i],
                dp,
                largest_packet: largest[i],
            };
            out.push(direction(&x, warnings)?);
        }
        Ok(out)
    }

    fn err_of<T>(r: Result<T, ScenarioError>) -> (Option<usize>, String, String) {
        match r {
            Ok(_) => panic!("expected an error"),
            Err(e) => (e.line, e.path, e.msg),
        }
    }

    #[test]
    fn parse_names_the_line_and_key_and_asks_for_quoted_units() {
        let text = TWO.replace("duration = \"10s\"", "duration = 10");
        let (line, path, msg) = err_of(parse(&cx(&text)));
        assert_eq!((line, path.as_str()), (Some(1), "duration"));
        assert_eq!(
            msg,
            "invalid type: integer `10`, expected a string (write values with units in quotes, e.g. \"10Mbps\", \"20ms\", \"830p\")"
        );
        let raw = parse(&cx(TWO)).unwrap();
        assert_eq!(
            (raw.duration.text(), *raw.duration.get()),
            ("10s", SimDuration::from_secs(10))
        );
        assert_eq!((raw.links.len(), raw.flows.len()), (1, 1));
    }

    #[test]
    fn timing_defaults_the_bin_and_refuses_zero_and_too_many_bins() {
        let t = |text: &str| timing(&cx(text), &parse(&cx(text)).unwrap());
        assert_eq!(
            t(TWO).unwrap(),
            (SimDuration::from_secs(10), SimDuration::from_millis(100))
        );
        // 10 s in 1 µs bins is exactly 10^7 bins: allowed; 500 ns bins are 2·10^7.
        assert_eq!(
            t(&two_with("bin = \"1us\"", false)).unwrap().1,
            SimDuration::from_micros(1)
        );
        assert_eq!(
            err_of(t(&two_with("bin = \"500ns\"", false))),
            (
                Some(3),
                "bin".into(),
                "10s in bins of 500ns makes more than 10,000,000 bins: expected a larger bin"
                    .into()
            )
        );
        assert_eq!(
            err_of(t(&TWO.replace("\"10s\"", "\"0s\""))),
            (Some(1), "duration".into(), "expected a duration > 0".into())
        );
        assert_eq!(
            err_of(t(&two_with("bin = \"0ms\"", false))).2,
            "expected a duration > 0"
        );
    }

    static WARNED: Mutex<Vec<String>> = Mutex::new(Vec::new());

    #[test]
    fn flow_count_refuses_over_the_limit_and_warns_over_the_threshold() {
        let c = cx(TWO);
        let ov = Overrides::default();
        assert_eq!(
            err_of(flow_count(&c, MAX_FLOWS + 1, &ov)),
            (
                None,
                "flows".into(),
                "expected at most 100000 flows, got 100001".into()
            )
        );
        assert!(flow_count(&c, MAX_FLOWS, &ov).is_ok());
        assert_eq!(
            flow_count(&c, WARN_FLOWS, &ov).unwrap(),
            Vec::<String>::new()
        );
        // 36.8 MB + 10001 × 9.7 kB = 133.8097 MB, rounded up.
        let w = flow_count(&c, WARN_FLOWS + 1, &ov).unwrap();
        assert_eq!(w, vec![flows_memory_warning(WARN_FLOWS + 1)]);
        assert!(w[0].starts_with("flows: 10001 flows (over 10000): the run is projected to take about 134 MB of memory (10 kB per flow"));
        // Given at once, with the file's name, when the caller asks so.
        let now = Overrides {
            warn_now: Some(|m| WARNED.lock().unwrap().push(m.to_string())),
            ..Default::default()
        };
        assert_eq!(
            flow_count(&c, WARN_FLOWS + 1, &now).unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(
            *WARNED.lock().unwrap(),
            vec![format!("t.toml: {}", flows_memory_warning(WARN_FLOWS + 1))]
        );
    }

    #[test]
    fn topology_lists_both_directions_and_checks_qdisc_swaps() {
        let raw = parse(&cx(TWO)).unwrap();
        let (nodes, dirs, ends, _) = topology(&cx(TWO), &raw, &Overrides::default()).unwrap();
        assert_eq!(nodes, ["a", "b"]);
        let names: Vec<(&str, &str)> = dirs
            .iter()
            .map(|(n, _, p)| (n.as_str(), p.as_str()))
            .collect();
        assert_eq!(names, [("l", "links[0]"), ("l.rev", "links[0].reverse")]);
        assert_eq!(ends, [(0, 1), (1, 0)]);
        let swap = |link: &str| Overrides {
            qdisc: vec![(link.into(), "pie".into())],
            ..Default::default()
        };
        assert!(topology(&cx(TWO), &raw, &swap("l.rev")).is_ok());
        assert!(topology(&cx(TWO), &raw, &swap("l")).is_ok());
        for bad in ["m", "m.rev", "l.rev.rev", ".rev", "", "L"] {
            assert_eq!(
                err_of(topology(&cx(TWO), &raw, &swap(bad))),
                (
                    None,
                    format!("--qdisc {bad}=pie"),
                    format!("no link named {bad:?}; links: l")
                )
            );
        }
    }

    /// `--qdisc` accepts exactly the directions' names because every `X.rev` comes with `X`,
    /// in both kinds of topology; the error for another name lists the links only.
    #[test]
    fn every_reverse_direction_comes_with_its_forward_one() {
        const BELL: &str = r#"duration = "10s"
[dumbbell]
senders = 2
bottleneck = { rate = "10Mbps", delay = "5ms" }
access_rate = "100Mbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[[flows]]
kind = "udp"
from = "s1"
to = "r1"
rate = "1Mbps"
"#;
        for text in [TWO, BELL] {
            let raw = parse(&cx(text)).unwrap();
            let (_, dirs, _, _) = topology(&cx(text), &raw, &Overrides::default()).unwrap();
            let names: Vec<&str> = dirs.iter().map(|(n, _, _)| n.as_str()).collect();
            for n in &names {
                if let Some(fwd) = n.strip_suffix(".rev") {
                    assert!(names.contains(&fwd), "{n} without {fwd} in {names:?}");
                }
            }
        }
        let raw = parse(&cx(BELL)).unwrap();
        let swap = |link: &str| Overrides {
            qdisc: vec![(link.into(), "pie".into())],
            ..Default::default()
        };
        for ok in ["bottleneck", "bottleneck.rev", "s2.access", "r1.access.rev"] {
            assert!(topology(&cx(BELL), &raw, &swap(ok)).is_ok(), "{ok}");
        }
        assert_eq!(
            err_of(topology(&cx(BELL), &raw, &swap("s3.access.rev"))),
            (
                None,
                "--qdisc s3.access.rev=pie".into(),
                "no link named \"s3.access.rev\"; links: s1.access, r1.access, s2.access, r2.access, bottleneck".into()
            )
        );
    }

    #[test]
    fn check_series_refuses_more_than_the_series_limit() {
        let c = cx(TWO);
        let ten = SimDuration::from_secs(10);
        // 10 s in 1 ms bins: 10^4 bins × (10 × 2 + 6 × 1) series = 260,000 values.
        assert!(check_series(&c, &None, ten, SimDuration::from_millis(1), 2, 1).is_ok());
        // In 1 µs bins: 2.6·10^8 values. At most ⌊10^8 / 26⌋ = 3,846,153 bins fit, so bins of
        // at least ⌈10^10 / 3,846,153⌉ = 2601 ns (2600 ns would make 100,000,004 values),
        // suggested as 2700 ns (two significant digits, rounded up).
        assert_eq!(
            err_of(check_series(&c, &None, ten, SimDuration::from_micros(1), 2, 1)),
            (
                None,
                "bin".into(),
                "10s in bins of 1us for 2 link directions and 1 flows makes 260000000 time-series values, more than 100000000: expected a bin of at least 2700ns".into()
            )
        );
        // The suggested bin is accepted, as is the exact least one, and one nanosecond less
        // is not.
        assert!(check_series(&c, &None, ten, SimDuration::from_nanos(2700), 2, 1).is_ok());
        assert!(check_series(&c, &None, ten, SimDuration::from_nanos(2601), 2, 1).is_ok());
        assert!(check_series(&c, &None, ten, SimDuration::from_nanos(2600), 2, 1).is_err());
        // 10^4 bins of 1 ms for 10^4 directions: exactly 10^8 values, allowed.
        assert!(check_series(&c, &None, ten, SimDuration::from_millis(1), 1000, 0).is_ok());
        assert!(check_series(&c, &None, ten, SimDuration::from_millis(1), 1000, 1).is_err());
    }

    /// The suggested bin is a round duration, never below the least one (the audit's
    /// 100000 s run was told "at least 112000018ns").
    #[test]
    fn the_suggested_bin_is_rounded_up_to_two_digits() {
        for (n, want) in [(0, 0), (99, 99), (100, 100), (101, 110), (2601, 2700)] {
            assert_eq!(round_up_2_digits(n), want);
        }
        let bin = SimDuration::from_nanos(round_up_2_digits(112_000_018));
        assert_eq!(bin.to_string(), "120ms");
        assert_eq!(round_up_2_digits(u64::MAX), u64::MAX);
    }

    fn limits(text: &str) -> Vec<Option<(u64, usize, String)>> {
        let c = cx(text);
        let raw = parse(&c).unwrap();
        let ov = Overrides::default();
        let (_, dirs, ends, disc) = topology(&c, &raw, &ov).unwrap();
        let largest = vec![0; dirs.len()];
        let mut warnings = Vec::new();
        let typed = directions(&c, &dirs, &disc, &ends, &largest, &mut warnings).unwrap();
        byte_limits(&dirs, &typed, &ov)
            .into_iter()
            .map(|l| l.map(|(n, span, key)| (n, c.line_of(span), key)))
            .collect()
    }

    #[test]
    fn byte_limits_name_the_key_the_limit_was_written_at() {
        // The reverse inherits the forward's buffer, and its key.
        assert_eq!(
            limits(TWO),
            [
                Some((3000, 9, "links[0].buffer".into())),
                Some((3000, 9, "links[0].buffer".into()))
            ]
        );
        // Its own buffer: its own key.
        let own = two_with("[links.reverse]\nbuffer = \"2000B\"", true);
        assert_eq!(
            limits(&own)[1],
            Some((2000, 11, "links[0].reverse.buffer".into()))
        );
        // A limit in packets holds any packet.
        assert_eq!(limits(&TWO.replace("\"3000B\"", "\"100p\"")), [None, None]);
    }

    fn dirs_of(
        text: &str,
        ov: &Overrides,
    ) -> Result<(Vec<ResolvedDirection>, Vec<DirCfg>, bool), ScenarioError> {
        let c = cx(text);
        let raw = parse(&c).unwrap();
        let (_, cfgs, ends, disc) = topology(&c, &raw, ov).unwrap();
        let mut warnings = Vec::new();
        let largest = vec![0; cfgs.len()];
        let mut d = directions(&c, &cfgs, &disc, &ends, &largest, &mut warnings)?;
        let jittered = jitter(&mut d, &cfgs);
        Ok((d, cfgs, jittered))
    }

    /// A discipline's parameters are typed as the topology is read, each value once by its
    /// spec; resolving a direction parses none of them again (only the defaults of the
    /// parameters not given).
    #[test]
    fn discipline_params_are_typed_with_the_topology_and_not_parsed_again() {
        use aqmlab_qdisc::{texts_parsed, Given, Value};
        let text = two_with(
            "qdisc = \"codel\"\nparams = { target = \"7ms\", interval = \"0.1s\" }",
            true,
        );
        let c = cx(&text);
        let raw = parse(&c).unwrap();
        let ov = Overrides::default();
        let before = texts_parsed();
        let (_, dirs, ends, disc) = topology(&c, &raw, &ov).unwrap();
        // Both directions' (the reverse inherits the table): 2 values each, read once.
        assert_eq!(texts_parsed() - before, 4);
        let ms = |n| Ok(Value::Duration(SimDuration::from_millis(n)));
        for dp in &disc {
            assert_eq!(dp.kind, Ok(Kind::Codel));
            let given: Vec<(&str, &Given)> = dp
                .given
                .iter()
                .map(|(k, g)| (k.as_str(), g.as_ref().unwrap()))
                .collect();
            assert_eq!(
                given,
                [
                    ("interval", &Given::Read("0.1s".into(), ms(100))),
                    ("target", &Given::Read("7ms".into(), ms(7)))
                ]
            );
        }
        let mut warnings = Vec::new();
        let largest = vec![0; dirs.len()];
        let before = texts_parsed();
        let d = directions(&c, &dirs, &disc, &ends, &largest, &mut warnings).unwrap();
        // Only the defaults: every row but target, interval and the buffer's limit (typed).
        let rows = Kind::Codel.params().len() as u64;
        assert_eq!(texts_parsed() - before, 2 * (rows - 3));
        assert_eq!(d[1].params.value("target"), ms(7).unwrap());
        // Written as given.
        assert_eq!(d[0].params.raw_value("interval"), "0.1s");
    }

    #[test]
    fn directions_carry_their_settings_and_a_swapped_discipline() {
        let ov = Overrides {
            qdisc: vec![("l.rev".into(), "pie".into())],
            ..Default::default()
        };
        let (d, _, jittered) = dirs_of(TWO, &ov).unwrap();
        assert_eq!((d[0].name.as_str(), d[0].from, d[0].to), ("l", 0, 1));
        assert_eq!((d[1].name.as_str(), d[1].from, d[1].to), ("l.rev", 1, 0));
        assert_eq!(d[1].delay, SimDuration::from_millis(5));
        assert_eq!(d[0].qdisc.kind(), Kind::DropTail);
        assert_eq!(d[1].qdisc.kind(), Kind::Pie);
        assert!(!jittered);
        // PIE draws random numbers; drop-tail alone does not.
        assert!(links_random(&d));
        let (d, _, _) = dirs_of(TWO, &Overrides::default()).unwrap();
        assert!(!links_random(&d));
        let (d, _, _) = dirs_of(&two_with("loss = 0.01", true), &Overrides::default()).unwrap();
        assert!(links_random(&d));
        // FQ-CoDel draws with its perturbed hash, as its typed parameters say: not with the
        // default hash, nor when a --qdisc swap dropped the file's hash.
        let fq = two_with(
            "qdisc = \"fq_codel\"\nparams = { hash = \"perturbed\" }",
            true,
        );
        let (d, _, _) = dirs_of(&fq, &Overrides::default()).unwrap();
        assert!(links_random(&d));
        let (d, _, _) =
            dirs_of(&fq.replace("perturbed", "flow_id"), &Overrides::default()).unwrap();
        assert!(!links_random(&d));
        let swap = Overrides {
            qdisc: vec![("l".into(), "fq_codel".into())],
            ..Default::default()
        };
        let (d, _, _) = dirs_of(&fq, &swap).unwrap();
        assert!(!links_random(&d));
    }

    #[test]
    fn jitter_is_read_into_its_direction_and_random_only_when_drawn() {
        let (d, _, jittered) = dirs_of(
            &two_with("jitter = \"uniform(0ms, 1ms)\"", true),
            &Overrides::default(),
        )
        .unwrap();
        assert!(jittered);
        assert_eq!(d[0].jitter.as_ref().unwrap().0, "uniform(0ms, 1ms)");
        let (d, _, jittered) =
            dirs_of(&two_with("jitter = \"1ms\"", true), &Overrides::default()).unwrap();
        assert!(!jittered);
        assert_eq!(
            d[0].jitter.as_ref().unwrap().1,
            DurationDist::Fixed(SimDuration::from_millis(1))
        );
        // A jitter that does not parse is refused as the file is read.
        let text = two_with("jitter = \"uniform(0ms)\"", true);
        let (line, path, _) = err_of(parse(&cx(&text)));
        assert_eq!((line, path.as_str()), (Some(10), "links[0].jitter"));
    }

    #[test]
    fn check_buffers_names_the_first_packet_a_limit_cannot_hold() {
        let c = cx(TWO);
        let (_, cfgs, _) = dirs_of(TWO, &Overrides::default()).unwrap();
        let limits = vec![None, Some((1000, 2..3, "links[0].buffer".to_string()))];
        let crossing = |link, size| Crossing {
            flow: 0,
            link,
            size,
            what: "its ACKs".into(),
        };
        // A packet exactly the limit's size fits; no limit on `l`.
        assert!(check_buffers(&c, &[crossing(0, 9000), crossing(1, 1000)], &limits, &cfgs).is_ok());
        assert_eq!(
            err_of(check_buffers(&c, &[crossing(1, 1000), crossing(1, 1001)], &limits, &cfgs)),
            (
                Some(1),
                "links[0].buffer".into(),
                "a buffer of 1000B cannot hold one 1001-byte packet of flows[0] (its ACKs) through link l.rev: expected at least 1001B".into()
            )
        );
    }

    /// `[output] trace_flows` and `--trace-flow`: a TCP flow's index, once in the file, the
    /// command line's entry replacing the file's; errors name the key and say what was expected.
    #[test]
    fn trace_flows_name_tcp_flows_once() {
        // Flow 0 is `TWO`'s UDP flow, flow 1 a TCP flow.
        let tcp = "[[flows]]\nkind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\n";
        let run = |output: &str, cli: &[(u64, &str)]| {
            let text = format!("{TWO}{tcp}[output]\n{output}\n");
            let ov = Overrides {
                trace_flows: cli.iter().map(|(f, e)| (*f, e.to_string())).collect(),
                ..Default::default()
            };
            resolve_with_edits(&text, "t.toml", Path::new(""), "t", &[], &[], &ov)
        };
        let ms = SimDuration::from_millis;
        let o = run("", &[]).unwrap().output;
        assert!(o.trace_flows.is_empty());
        let r = run("trace_flows = [{ flow = 1, every = \"10ms\" }]", &[]).unwrap();
        assert_eq!(r.output.trace_flows, [(1, ms(10))]);
        // Written to the resolved file, and read back the same.
        let toml = r.to_toml();
        assert!(
            toml.contains("trace_flows = [{ flow = 1, every = \"10ms\" }]"),
            "{toml}"
        );
        let again = resolve_with_edits(
            &toml,
            "r.toml",
            Path::new(""),
            "r",
            &[],
            &[],
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(again.output.trace_flows, [(1, ms(10))]);
        // The command line's entry replaces the file's.
        let o = run(
            "trace_flows = [{ flow = 1, every = \"10ms\" }]",
            &[(1, "2ms")],
        )
        .unwrap()
        .output;
        assert_eq!(o.trace_flows, [(1, ms(2))]);
        let err = |output: &str, cli: &[(u64, &str)]| match run(output, cli) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{output} {cli:?} accepted"),
        };
        let e = err("trace_flows = [{ flow = 0, every = \"10ms\" }]", &[]);
        assert!(
            e.contains("output.trace_flows[0].flow") && e.contains("flow 0 is a UDP flow"),
            "{e}"
        );
        let e = err("trace_flows = [{ flow = 2, every = \"10ms\" }]", &[]);
        assert!(
            e.contains("expected a flow index 0..2 (the scenario has 2 flows), got 2"),
            "{e}"
        );
        let e = err("trace_flows = [{ flow = -1, every = \"10ms\" }]", &[]);
        assert!(e.contains("got -1"), "{e}");
        let e = err(
            "trace_flows = [{ flow = 1, every = \"1ms\" }, { flow = 1, every = \"2ms\" }]",
            &[],
        );
        assert!(
            e.contains("output.trace_flows[1].flow") && e.contains("listed twice"),
            "{e}"
        );
        let e = err("trace_flows = [{ flow = 1, every = \"0s\" }]", &[]);
        assert!(
            e.contains("output.trace_flows[0].every") && e.contains("positive"),
            "{e}"
        );
        let e = err("trace_flows = [{ flow = 1, every = \"10\" }]", &[]);
        assert!(e.contains("output.trace_flows[0].every"), "{e}");
        let e = err("trace_flows = [{ flow = 1, often = \"10ms\" }]", &[]);
        assert!(e.contains("often"), "{e}");
        let e = err("", &[(0, "1ms")]);
        assert!(
            e.contains("--trace-flow 0=1ms") && e.contains("UDP flow"),
            "{e}"
        );
        let e = err("", &[(1, "fast")]);
        assert!(e.contains("--trace-flow 1=fast"), "{e}");
    }

    #[test]
    fn output_keeps_logs_and_traces_in_link_order_once() {
        let (d, _, _) = dirs_of(TWO, &Overrides::default()).unwrap();
        let out = |text: &str, cli: &[&str]| {
            let c = cx(text);
            let raw = parse(&c).unwrap();
            let ov = Overrides {
                packet_log: cli.iter().map(|s| s.to_string()).collect(),
                ..Default::default()
            };
            output(&c, raw.output.unwrap_or_default(), &ov, &d, &[])
        };
        let o = out(TWO, &[]).unwrap();
        assert_eq!((o.csv, o.packet_log.len(), o.trace.len()), (false, 0, 0));
        let text = format!(
            "{TWO}[output]\nformat = \"csv\"\npacket_log = [\"l.rev\", \"l\"]\ntrace = [\"l.rev\"]\n"
        );
        let o = out(&text, &["l"]).unwrap();
        assert!(o.csv);
        assert_eq!(o.packet_log, ["l", "l.rev"]);
        assert_eq!(o.trace, ["l.rev"]);
        assert_eq!(
            err_of(out(&format!("{TWO}[output]\nformat = \"json\"\n"), &[])),
            (
                Some(16),
                "output.format".into(),
                "expected \"parquet\" or \"csv\", got \"json\"".into()
            )
        );
        assert_eq!(
            err_of(out(TWO, &["m"])),
            (
                None,
                "--packet-log m".into(),
                "no link direction named \"m\" (NAME or NAME.rev): expected one of l, l.rev".into()
            )
        );
    }

    #[test]
    fn output_steps_read_the_format_the_logs_and_the_traces() {
        let text = "duration = \"1s\"\n[output]\nformat = \"parquet\"\npacket_log = [\"b\"]\ntrace = [\"a\", \"x\"]\n";
        let c = cx(text);
        let raw = parse(&c).unwrap().output.unwrap();
        let names = ["a", "b", "c"];
        let no_x = "no link direction named \"x\" (NAME or NAME.rev): expected one of a, b, c";
        assert_eq!(output_format(&c, raw.format.as_ref()), Ok(false));
        assert_eq!(output_format(&c, None), Ok(false));
        let ov = Overrides {
            packet_log: vec!["c".into()],
            ..Default::default()
        };
        assert_eq!(
            logged_directions(&c, &raw.packet_log, &ov, &names),
            Ok(vec![false, true, true])
        );
        assert_eq!(
            err_of(logged_directions(
                &c,
                &raw.trace,
                &Overrides::default(),
                &names
            )),
            (
                Some(5),
                "output.packet_log[1]".to_string(),
                no_x.to_string()
            )
        );
        assert_eq!(
            traced_directions(&c, &raw.trace[..1], &names),
            Ok(vec![true, false, false])
        );
        assert_eq!(
            err_of(traced_directions(&c, &raw.trace, &names)),
            (Some(5), "output.trace[1]".to_string(), no_x.to_string())
        );
    }

    #[test]
    fn windows_start_with_the_warm_ups_and_stay_within_the_run() {
        use crate::windows::WindowSpec;
        let w = |extra: &str| {
            let text = format!("{TWO}{extra}");
            let c = cx(&text);
            let raw = parse(&c).unwrap();
            windows(&c, &raw.warmup, &raw.windows, SimDuration::from_secs(10))
        };
        let text = "[[windows]]\nname = \"w\"\nfrom = \"1s\"\nto = \"10s\"\n";
        assert_eq!(w("").unwrap(), Vec::<WindowSpec>::new());
        let with_warmup = |extra: &str| {
            let text = format!("{}{extra}", two_with("warmup = \"2s\"", false));
            let c = cx(&text);
            let raw = parse(&c).unwrap();
            windows(&c, &raw.warmup, &raw.windows, SimDuration::from_secs(10))
        };
        assert_eq!(
            with_warmup(text).unwrap(),
            [
                WindowSpec {
                    name: "after_warmup".into(),
                    from: SimTime::from_secs(2),
                    to: SimTime::from_secs(10),
                },
                WindowSpec {
                    name: "w".into(),
                    from: SimTime::from_secs(1),
                    to: SimTime::from_secs(10),
                }
            ]
        );
        assert_eq!(
            err_of(w(&text.replace("\"10s\"", "\"11s\""))),
            (
                Some(18),
                "windows[0].to".into(),
                "expected a window within the run (duration 10s), got \"11s\"".into()
            )
        );
        assert_eq!(
            err_of(with_warmup(&text.replace("\"w\"", "\"after_warmup\""))).2,
            "window name \"after_warmup\" names the window `warmup` makes: expected a unique name"
        );
    }

    #[test]
    fn first_stamp_names_the_first_flow_of_the_table() {
        let at = |path: &str, stamps: &[Option<usize>]| {
            let e = ScenarioError {
                file: "t.toml".into(),
                line: Some(3),
                path: path.into(),
                msg: "bad".into(),
            };
            first_stamp(e, stamps).to_string()
        };
        let stamps = [Some(4), None, Some(2)];
        assert_eq!(at("flows[0].rate", &stamps), "t.toml:3: flows[0].rate: bad");
        assert_eq!(at("flows[1].rate", &stamps), "t.toml:3: flows[4].rate: bad");
        assert_eq!(at("flows[2]", &stamps), "t.toml:3: flows[5]: bad");
        // Other paths are left as they are.
        assert_eq!(at("links[1].rate", &stamps), "t.toml:3: links[1].rate: bad");
        assert_eq!(at("flows[x].rate", &stamps), "t.toml:3: flows[x].rate: bad");
        assert_eq!(at("flows", &stamps), "t.toml:3: flows: bad");
    }
}
