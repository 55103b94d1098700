//! The link half of a scenario: the topology (`[dumbbell]` or `nodes` + `[[links]]`), each link
//! direction's rate, delay, discipline, buffer, loss and jitter, and the discipline defaults
//! that depend on the traffic (CoDel's MTU) or on the link (RED's rate and delay).

use super::disc_params::{swap_of, DirParams};
use super::*;
use crate::resolved::ResolvedDirection;
use aqmlab_qdisc::{Given, Value};

/// The link directions' settings as the file gives them: `(name, settings, key path)`.
type DirCfgs = Vec<(String, RawDirection, String)>;

/// The topology: the node names, the link directions' settings and their `(from, to)` nodes.
type Topology = (Vec<String>, DirCfgs, Vec<(u32, u32)>);

/// Reads the topology, `[dumbbell]` or `nodes` + `[[links]]`, into the node names and the link
/// directions' settings (`(name, settings, key path)`, a `reverse` merged with its forward
/// direction's) and `(from, to)` nodes, in link order. A dumbbell's hosts and access links are
/// read by [`dumbbell_hosts`]; the nodes and a link's ends and name by [`check_nodes`] and
/// [`link_ends`]. The bottleneck's and each link's settings (its discipline's `params` among
/// them) are taken here, as the file gives them, for [`super::disc_params::discipline`] (the
/// path of a `--set` parameter, `tests/set_path.rs`). Errors come in this order: a dumbbell's
/// hosts', its bottleneck's keys; or the nodes', then each link's keys and ends.
pub(super) fn read_topology(cx: &Ctx<'_>, raw: &RawScenario) -> Result<Topology, ScenarioError> {
    let nodes_span = raw.nodes.as_ref().map(Spanned::span);
    let mut nodes: Vec<String> = raw
        .nodes
        .as_ref()
        .map(|n| n.get_ref().clone())
        .unwrap_or_default();
    let mut dir_cfgs: DirCfgs = Vec::new();
    let mut ends: Vec<(u32, u32)> = Vec::new();
    if let Some(d) = &raw.dumbbell {
        // Not the bottleneck, whose settings are taken below.
        let hosts = Hosts {
            cx,
            links_too: !raw.links.is_empty() || !nodes.is_empty(),
            senders: &d.senders,
            delays: [&d.sender_delay, &d.receiver_delay],
            access: (&d.access_rate, &d.access_buffer),
        };
        (nodes, dir_cfgs, ends) = dumbbell_hosts(&hosts)?;
        let (gw1, gw2) = (*d.senders.get_ref(), *d.senders.get_ref() + 1);
        let b = &d.bottleneck;
        check_link_keys(cx, b, "dumbbell.bottleneck", false)?;
        let fwd = RawDirection {
            reverse: None,
            ..b.clone()
        };
        let rev = merge(&fwd, b.reverse.as_deref());
        dir_cfgs.push(("bottleneck".into(), fwd, "dumbbell.bottleneck".into()));
        ends.push((gw1, gw2));
        let rev_path = "dumbbell.bottleneck.reverse".into();
        dir_cfgs.push(("bottleneck.rev".into(), rev, rev_path));
        ends.push((gw2, gw1));
    } else {
        check_nodes(cx, &nodes, nodes_span)?;
        let lookup = NodeLookup::new(&nodes);
        for (i, l) in raw.links.iter().enumerate() {
            let p = format!("links[{i}]");
            check_link_keys(cx, l, &p, true)?;
            let keys = [&l.from, &l.to, &l.name];
            let (a, b, name) = link_ends(&LinkIn::new(cx, &lookup, &p, keys, &dir_cfgs))?;
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
    Ok((nodes, dir_cfgs, ends))
}

/// A `[dumbbell]`'s hosts as the file gives them: the number of senders (each with a receiver),
/// their delays, and their access links' rate and buffer. Not its bottleneck, which
/// [`read_topology`] takes.
struct Hosts<'a> {
    cx: &'a Ctx<'a>,
    /// Whether `nodes` or `[[links]]` are given too (refused).
    links_too: bool,
    senders: &'a Spanned<u32>,
    /// `sender_delay`, `receiver_delay`.
    delays: [&'a Delays; 2],
    /// The access links' `access_rate` and `access_buffer`.
    access: (&'a Rate, &'a Option<Size>),
}

/// A dumbbell's hosts (the dumbbell the only topology given): 1 to 1000 senders, their delays
/// ([`host_delays`]), the nodes ([`host_nodes`]) and the access links' directions
/// ([`access_dirs`]).
fn dumbbell_hosts(h: &Hosts<'_>) -> Result<Topology, ScenarioError> {
    if h.links_too {
        return Err(h.cx.err(
            None,
            "dumbbell",
            "give either [dumbbell] or nodes + [[links]], not both",
        ));
    }
    let n = *h.senders.get_ref();
    if n == 0 || n > 1000 {
        return Err(h.cx.err(
            Some(h.senders.span()),
            "dumbbell.senders",
            format!("expected 1 to 1000 senders, got {n}"),
        ));
    }
    let sd = host_delays(h, h.delays[0], "sender_delay")?;
    let rd = host_delays(h, h.delays[1], "receiver_delay")?;
    let (dir_cfgs, ends) = access_dirs(h, &sd, &rd);
    Ok((host_nodes(n), dir_cfgs, ends))
}

/// The delay of each of the dumbbell's hosts (`what`: `sender_delay` or `receiver_delay`), read
/// (and checked) with the file: one delay is every host's; a list has one per host.
fn host_delays(h: &Hosts<'_>, v: &Delays, what: &str) -> Result<Vec<Time>, ScenarioError> {
    let n = *h.senders.get_ref();
    match &v.value {
        raw_units::DelayList::PerHost(list) if list.len() == n as usize => Ok(list.clone()),
        raw_units::DelayList::PerHost(list) => Err(h.cx.err(
            Some(v.span.clone()),
            format!("dumbbell.{what}"),
            format!(
                "expected one delay or a list of {n} (one per sender), got {} values",
                list.len()
            ),
        )),
        raw_units::DelayList::One(one) => Ok(vec![one.clone(); n as usize]),
    }
}

/// A dumbbell's node names: `s1`..`sN`, `gw1`, `gw2`, `r1`..`rN`.
fn host_nodes(n: u32) -> Vec<String> {
    let mut nodes = Vec::new();
    for i in 1..=n {
        nodes.push(format!("s{i}"));
    }
    nodes.push("gw1".into());
    nodes.push("gw2".into());
    for i in 1..=n {
        nodes.push(format!("r{i}"));
    }
    nodes
}

/// The access links' directions, each host's in turn: `sI.access` (sender to `gw1`) and its
/// `.rev`, then `rI.access` (`gw2` to receiver) and its `.rev`, each with the access rate and
/// buffer and its host's delay (`sd`, `rd`), and their `(from, to)` nodes.
fn access_dirs(h: &Hosts<'_>, sd: &[Time], rd: &[Time]) -> (DirCfgs, Vec<(u32, u32)>) {
    let n = *h.senders.get_ref();
    let mut dir_cfgs: DirCfgs = Vec::new();
    let mut ends: Vec<(u32, u32)> = Vec::new();
    let gw1 = n;
    let gw2 = n + 1;
    let access = |delay: &Time| RawDirection {
        rate: Some(h.access.0.clone()),
        delay: Some(delay.clone()),
        buffer: h.access.1.clone(),
        ..Default::default()
    };
    for i in 0..n {
        let a = access(&sd[i as usize]);
        let path = format!("dumbbell.sender_delay[{i}]");
        dir_cfgs.push((format!("s{}.access", i + 1), a.clone(), path.clone()));
        ends.push((i, gw1));
        dir_cfgs.push((format!("s{}.access.rev", i + 1), a, path));
        ends.push((gw1, i));
        let b = access(&rd[i as usize]);
        let path = format!("dumbbell.receiver_delay[{i}]");
        dir_cfgs.push((format!("r{}.access", i + 1), b.clone(), path.clone()));
        ends.push((gw2, gw2 + 1 + i));
        dir_cfgs.push((format!("r{}.access.rev", i + 1), b, path));
        ends.push((gw2 + 1 + i, gw2));
    }
    (dir_cfgs, ends)
}

/// The `nodes` of a topology without a dumbbell: 1 to 4000, each named (not blank, no control
/// characters), each once.
fn check_nodes(
    cx: &Ctx<'_>,
    nodes: &[String],
    nodes_span: Option<std::ops::Range<usize>>,
) -> Result<(), ScenarioError> {
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
    Ok(())
}

/// One `[[links]]` entry's ends and name as the file gives them, with the nodes and the link
/// directions read before it (whose names it must not repeat).
struct LinkIn<'a> {
    cx: &'a Ctx<'a>,
    lookup: &'a NodeLookup<'a>,
    /// The link's key path (`links[0]`).
    p: &'a str,
    /// `from`, `to`, `name`.
    keys: [&'a Option<S>; 3],
    before: &'a DirCfgs,
}

impl<'a> LinkIn<'a> {
    fn new(
        cx: &'a Ctx<'a>,
        lookup: &'a NodeLookup<'a>,
        p: &'a str,
        keys: [&'a Option<S>; 3],
        before: &'a DirCfgs,
    ) -> Self {
        LinkIn {
            cx,
            lookup,
            p,
            keys,
            before,
        }
    }
}

/// A link's `(from, to)` nodes and name: `from`, `to` and `name` given, the ends two different
/// nodes, the name not empty, not ending in `.rev` and not used before.
fn link_ends(x: &LinkIn<'_>) -> Result<(u32, u32, String), ScenarioError> {
    let (cx, p) = (x.cx, x.p);
    let node = |s: &S, path: &str| node_index(cx, x.lookup, s, path);
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
        required(x.keys[0], "from")?,
        required(x.keys[1], "to")?,
        required(x.keys[2], "name")?,
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
    if x.before.iter().any(|(n, _, _)| *n == name) {
        return Err(cx.err(
            Some(lname.span()),
            format!("{p}.name"),
            format!("link name {name:?} is used twice"),
        ));
    }
    Ok((a, b, name))
}

/// Checks the keys that depend on where a link table stands: `name`/`from`/`to` only in
/// `[[links]]` (`is_link`), `delay` everywhere but in `reverse`, and no `reverse` in a `reverse`.
pub(super) fn check_link_keys(
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
pub(super) fn refuse_endpoints(
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
pub(super) fn merge(fwd: &RawDirection, over: Option<&RawDirection>) -> RawDirection {
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
/// the buffer). The key and its place come from the file (`d`); the value from the parameters
/// as the direction's discipline took them (`typed`: parsed once, nothing read again here).
pub(super) fn params_byte_limit(
    name: &str,
    d: &RawDirection,
    path: &str,
    ov: &Overrides,
    typed: &aqmlab_qdisc::Params,
) -> Option<(u64, std::ops::Range<usize>, String)> {
    let swapped = swap_of(ov, name).is_some();
    let params = d.params.as_ref().filter(|_| !swapped)?;
    let at = |n: u64, key: &str| Some((n, params.span(), format!("{path}.params.{key}")));
    let given = |key: &str| params.get_ref().contains_key(key);
    let memory_limit = || match typed.has_param("memory_limit") {
        true => typed.opt_bytes("memory_limit"),
        false => None,
    };
    if given("limit") && typed.has_param("limit") {
        match typed.value("limit") {
            Value::Size(units::Size::Bytes(n)) => return at(n, "limit"),
            // The FQ schedulers take a byte `limit` as their memory limit.
            _ if !given("memory_limit") && typed.is_given("memory_limit") => {
                return memory_limit().and_then(|n| at(n, "limit"))
            }
            _ => {}
        }
    }
    memory_limit()
        .filter(|_| given("memory_limit"))
        .and_then(|n| at(n, "memory_limit"))
}

/// One link direction to resolve ([`direction`]): where its settings are in the file, its end
/// nodes, its discipline and the keys of its `params` table it keeps
/// ([`super::disc_params::disc_of`]), and the largest packet the scenario's flows put on it
/// ([`largest_per_link`]).
pub(super) struct DirIn<'a> {
    pub(super) cx: &'a Ctx<'a>,
    /// The direction's name (`NAME`, or `NAME.rev` for a reverse).
    pub(super) name: &'a str,
    /// Its settings as the file gives them (a `reverse` merged with its forward's).
    pub(super) d: &'a RawDirection,
    /// Its key path in the file (`links[0]`, `dumbbell.bottleneck.reverse`, …).
    pub(super) path: &'a str,
    /// Its `(from, to)` nodes.
    pub(super) ends: (u32, u32),
    pub(super) dp: &'a DirParams,
    pub(super) largest_packet: u32,
}

/// Resolves one link direction from its rate ([`link_rate`]) and its discipline's checked
/// parameters and configuration ([`super::disc_params::discipline`], which [`resolve_with_edits`]
/// makes between them, so their errors come in that order): its delay, its loss ([`link_loss`],
/// whose error comes last) and the absolute path of its trace ([`trace_path`]).
pub(super) fn direction(
    x: &DirIn<'_>,
    rate: LinkRate,
    (params, qdisc): (aqmlab_qdisc::Params, aqmlab_qdisc::AnyConfig),
) -> Result<ResolvedDirection, ScenarioError> {
    let delay =
        *x.d.delay
            .as_ref()
            .expect("delay is required on links and set on reverses")
            .get();
    Ok(ResolvedDirection {
        name: x.name.to_string(),
        from: x.ends.0,
        to: x.ends.1,
        rate,
        trace: trace_path(x),
        delay,
        params,
        qdisc,
        loss: link_loss(x)?,
        jitter: None,
    })
}

/// The direction's rate: exactly one of a constant `rate` (above 0), a `schedule` of steps or a
/// delivery `trace` file.
pub(super) fn link_rate(x: &DirIn<'_>) -> Result<LinkRate, ScenarioError> {
    let (cx, d, path) = (x.cx, x.d, x.path);
    let given = [d.rate.is_some(), d.schedule.is_some(), d.trace.is_some()]
        .iter()
        .filter(|x| **x)
        .count();
    if given != 1 {
        let msg = format!(
            "link {}: expected exactly one of rate, schedule or trace, got {given}",
            x.name
        );
        return Err(cx.err(None, path, msg));
    }
    if let Some(r) = &d.rate {
        let bps = *r.get();
        if bps.as_bps() == 0 {
            return Err(cx.err(
                Some(r.span()),
                key_of(path, "rate"),
                "expected a rate > 0 (use a schedule for outages that end)",
            ));
        }
        Ok(LinkRate::Constant(bps))
    } else if let Some(steps) = &d.schedule {
        schedule_rate(x, steps)
    } else {
        trace_rate(x, d.trace.as_ref().expect("one of three is given"))
    }
}

/// A `schedule`'s rate: each step read with the file; its time and rate checked here, naming
/// the step (the offending step's own line, the first step's when the error is about them all).
fn schedule_rate(x: &DirIn<'_>, steps: &[Step]) -> Result<LinkRate, ScenarioError> {
    let (cx, path) = (x.cx, x.path);
    let mut v = Vec::with_capacity(steps.len());
    for (i, s) in steps.iter().enumerate() {
        let p = format!("{path}.schedule[{i}]");
        v.push((
            SimTime::ZERO + s.at.checked(cx, &p)?,
            s.rate.checked(cx, &p)?,
        ));
    }
    let schedule = StepSchedule::new(v).map_err(|e| {
        let line = steps.get(e.line.saturating_sub(1)).map(|s| s.at.span());
        let step = if e.line > 0 {
            format!("[{}]", e.line - 1)
        } else {
            String::new()
        };
        cx.err(line, format!("{path}.schedule{step}"), e.msg)
    })?;
    Ok(LinkRate::Steps(schedule))
}

/// A `trace`'s rate: the delivery trace file (relative to the scenario's folder) read, capped
/// at [`aqmlab_core::input::TRACE`] bytes, as UTF-8 text.
fn trace_rate(x: &DirIn<'_>, t: &S) -> Result<LinkRate, ScenarioError> {
    let err = |msg: String| x.cx.err(Some(t.span()), format!("{}.trace", x.path), msg);
    let p = x.cx.dir.join(t.get_ref());
    let bytes = aqmlab_core::input::read_capped(&p, aqmlab_core::input::TRACE).map_err(err)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        err(format!(
            "{}: not UTF-8 text: expected a delivery trace (one millisecond per line)",
            p.display()
        ))
    })?;
    let tr = DeliveryTrace::parse(&text).map_err(|e| err(format!("{}: {e}", p.display())))?;
    Ok(LinkRate::trace(tr))
}

/// The discipline's `limit` the direction's `buffer` gives (a size above 0), if it has one.
/// Refused when given twice: a buffer, and a `limit` this direction's discipline takes from its
/// `params` (the file's, unless a `--qdisc` swap dropped it; a `--set` of this direction's
/// limit, which a swap keeps; [`super::disc_params::disc_of`]).
pub(super) fn buffer_limit(x: &DirIn<'_>) -> Result<Option<(String, Given)>, ScenarioError> {
    let (cx, d, path) = (x.cx, x.d, x.path);
    let Some(b) = &d.buffer else { return Ok(None) };
    if let Some(params) = &d.params {
        if x.dp.kept.iter().any(|k| k == "limit") {
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
                    b.text()
                ),
            ));
        }
    }
    let size = *b.get();
    if matches!(size, units::Size::Packets(0) | units::Size::Bytes(0)) {
        let msg = "expected a buffer > 0";
        return Err(cx.err(Some(b.span()), key_of(path, "buffer"), msg));
    }
    Ok(Some(("limit".into(), Given::Typed(Value::Size(size)))))
}

/// RED's idle-time correction and automatic values need the link rate: given as `bandwidth`
/// unless the user did. A schedule gives its first positive rate ([`first_positive_rate`]), a
/// trace its mean rate; the warning returned says so when the link has other rates
/// ([`other_rates`]), since ns-2 read one fixed rate from its link.
pub(super) fn red_bandwidth_from_link(
    x: &DirIn<'_>,
    kind: Kind,
    pairs: &mut Vec<(String, Given)>,
    rate: &LinkRate,
) -> Option<String> {
    if kind != Kind::Red || pairs.iter().any(|(k, _)| k == "bandwidth") {
        return None;
    }
    let used = first_positive_rate(rate);
    pairs.push(("bandwidth".into(), Given::Typed(Value::Rate(used))));
    let (name, path) = (x.name, x.path);
    other_rates(rate, used).map(|why| format!(
        "link {name}: RED's idle-time correction and automatic parameters use bandwidth = {used} ({why}); set {path}.params.bandwidth to choose the rate"
    ))
}

/// Why the rate `used` is not the link's only one: None for a constant rate; a schedule's other
/// rates (in their order, each once); a trace's varying rate.
fn other_rates(rate: &LinkRate, used: aqmlab_core::Bitrate) -> Option<String> {
    match rate {
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
        LinkRate::Trace { .. } => Some("the mean rate of its trace, whose rate varies".to_string()),
    }
}

/// The error of the direction's discipline configuration, naming the key it is about: the
/// `--qdisc` swap when one named the discipline (its limit is the buffer's); else the buffer
/// for the limit it gave, else the `params` key the file (or a `--set`) gave, else the table.
pub(super) fn config_error(x: &DirIn<'_>, e: aqmlab_qdisc::ConfigError) -> ScenarioError {
    let (cx, d, path) = (x.cx, x.d, x.path);
    if let Some(k) = x.dp.swapped.as_deref() {
        return ScenarioError {
            file: cx.file.clone(),
            line: None,
            path: format!("--qdisc {}={k}", x.name),
            msg: e.to_string(),
        };
    }
    let about = match &e {
        aqmlab_qdisc::ConfigError::Value { name, .. }
        | aqmlab_qdisc::ConfigError::Invalid { name, .. } => Some(*name),
        aqmlab_qdisc::ConfigError::UnknownParam { name, .. } => Some(name.as_str()),
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
            match about.filter(|_| in_params) {
                Some(n) => format!("{path}.params.{n}"),
                None => format!("{path}.params"),
            },
            e.to_string(),
        ),
    }
}

/// The direction's random loss probability: 0 unless given, in [0, 1).
fn link_loss(x: &DirIn<'_>) -> Result<f64, ScenarioError> {
    match &x.d.loss {
        None => Ok(0.0),
        Some(l) if (0.0..1.0).contains(l.get_ref()) => Ok(*l.get_ref()),
        Some(l) => Err(x.cx.err(
            Some(l.span()),
            format!("{}.loss", x.path),
            format!("expected a loss probability in [0, 1), got {}", l.get_ref()),
        )),
    }
}

/// The absolute path of the direction's trace file (relative to the scenario's folder), as the
/// resolved scenario names it, if it has one.
fn trace_path(x: &DirIn<'_>) -> Option<PathBuf> {
    x.d.trace.as_ref().map(|t| {
        let p = x.cx.dir.join(t.get_ref());
        std::path::absolute(&p).unwrap_or(p)
    })
}

/// The FQ schedulers count their `limit` in packets and take a byte limit as their memory
/// limit: a `limit` whose value is a size in bytes (a byte buffer, or a `params.limit` like
/// `"30000B"` or `"1.5MB"`) is given as `memory_limit`. The decision is on the typed value: a
/// `params.limit` was read once by the discipline's `limit` spec (a size, packets or bytes;
/// [`super::disc_params::discipline`]) and stays as read ([`Given::Read`], its text kept), so
/// nothing parses it again and its range is checked against the spec it ends up under; a text
/// that is not a size is refused as the `limit` it was given as.
pub(super) fn fq_byte_limit(pairs: &mut [(String, Given)]) {
    let Some((key, given)) = pairs.iter_mut().find(|(k, _)| k == "limit") else {
        return;
    };
    *given = match given {
        Given::Typed(Value::Size(units::Size::Bytes(n))) => Given::Typed(Value::Bytes(*n)),
        Given::Read(t, Ok(Value::Size(units::Size::Bytes(n)))) => {
            let n = *n;
            Given::Read(std::mem::take(t), Ok(Value::Bytes(n)))
        }
        _ => return,
    };
    *key = "memory_limit".into();
}

/// The largest packet the scenario's flows put on each of `n_links` link directions, bytes; 0
/// for a direction no flow crosses.
pub(super) fn largest_per_link(crossings: &[Crossing], n_links: usize) -> Vec<u32> {
    let mut largest = vec![0u32; n_links];
    for c in crossings {
        largest[c.link] = largest[c.link].max(c.size);
    }
    largest
}

/// CoDel's "never drop with at most one MTU queued" rule (RFC 8289 §5.4, the `mtu` parameter
/// of CoDel, FQ-CoDel and LSTF-CoDel) means one largest packet of the link: with `mtu = "auto"`
/// (the default) it becomes the largest packet the scenario puts on that direction, plus the
/// 14-byte Ethernet header Linux counts with `variant = "linux"` (its `psched_mtu`). A fixed
/// 1500 B would let a queue of three 500-byte packets stand where one would on a link that only
/// carries 500-byte packets. A direction no flow crosses keeps the fixed default. The value is
/// set in the parsed parameters (a typed edit, nothing parsed again) before the discipline's
/// configuration is checked and built: the flows are resolved, and their routes computed,
/// before the links' disciplines are, so the resolved scenario records it and the discipline is
/// built once.
pub(super) fn mtu_from_traffic(
    params: &mut aqmlab_qdisc::Params,
    largest_packet: u32,
) -> Result<(), aqmlab_qdisc::ConfigError> {
    let kind = Kind::from_name(params.kind())?;
    if !matches!(kind, Kind::Codel | Kind::FqCodel | Kind::LstfCodel) || largest_packet == 0 {
        return Ok(());
    }
    if params.word("mtu") != Some("auto") {
        return Ok(());
    }
    let linux = params.choice_name("variant") == "linux";
    let mtu = u64::from(largest_packet) + if linux { 14 } else { 0 };
    params.set("mtu", Value::Bytes(mtu))
}

/// RED's automatic `w_q` (ns-2.35 `q_weight_ -1`) needs the propagation delay of the link its
/// queue sits on: ns-2.35 reads it from the link (`LinkDelay::delay()`, `edp_.delay` in
/// red.cc's `link` command, then `initialize_params`), so unless the user gave `delay`, it is this
/// direction's `delay`, given typed with the other parameters (true when it was). The base
/// delay: a direction's delay is one number whatever its rate (constant, schedule or trace),
/// but a `jitter` adds a per-packet draw that ns-2's link has no counterpart for, so RED keeps
/// the base delay ([`warn_red_delay_without_jitter`] says so).
pub(super) fn red_delay_from_link(
    kind: Kind,
    pairs: &mut Vec<(String, Given)>,
    delay: SimDuration,
) -> bool {
    if kind != Kind::Red || pairs.iter().any(|(k, _)| k == "delay") {
        return false;
    }
    pairs.push(("delay".into(), Given::Typed(Value::Duration(delay))));
    true
}

/// A warning when RED's automatic `w_q` uses the link's delay of a direction with a `jitter`
/// (read from the parsed parameters). A `w_q` given, or Adaptive RED's `w_q` (which does not use
/// the delay), warns of nothing.
pub(super) fn warn_red_delay_without_jitter(
    params: &aqmlab_qdisc::Params,
    delay: SimDuration,
    jitter: Option<&str>,
    name: &str,
    path: &str,
    warnings: &mut Vec<String>,
) {
    let Some(j) = jitter else { return };
    if params.word("w_q") == Some("auto") && !params.bool("adaptive") {
        warnings.push(format!(
            "link {name}: RED's automatic w_q uses delay = {delay} (the link's delay without its jitter {:?}); set {path}.params.delay to choose the delay",
            j
        ));
    }
}

/// The rate RED's idle-time correction assumes: the link's rate at time 0, or for a schedule
/// that starts with an outage, its first positive rate (a trace's mean rate).
pub(super) fn first_positive_rate(rate: &LinkRate) -> aqmlab_core::Bitrate {
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

#[cfg(test)]
mod tests;
