//! The flow half of a scenario: each `[[flows]]` entry checked and added to the simulation (UDP
//! sources, TCP flows and their applications), and the largest packet each puts on the link
//! directions of its path.

use super::*;

/// A flow checked and resolved, not yet in a simulation, with the span its simulation errors
/// (an unreachable destination) name.
pub(super) struct PlannedFlow {
    spec: Planned,
    /// `start`, the time or the distribution it was drawn from.
    start: DurationDist,
    span: std::ops::Range<usize>,
    /// `dscp = N`: the DSCP its packets carry.
    dscp: Option<u8>,
}

use crate::resolved::{FlowPlan as Planned, ResolvedFlow};

/// The scenario's flows as read: each `[[flows]]` table once, with the number of flows it stands
/// for. A table with `count = N` and no per-flow lists is read once and stamped N times here
/// (its instances named `NAME-1` ... `NAME-N`), rather than written out as N tables and read N
/// times ([`super::edits`]; issue 24).
pub(super) struct RawFlows {
    tables: Vec<RawFlow>,
    /// Per table, `Some(N)` for a stamped one (`count = N`), `None` for one flow.
    stamps: Vec<Option<usize>>,
    len: usize,
}

impl RawFlows {
    /// `tables` as the edited document holds them, `stamps` as [`super::edits`] made them (per
    /// table; missing ones are `None`, so an empty list means no table was stamped).
    pub(super) fn new(tables: Vec<RawFlow>, stamps: &[Option<usize>]) -> RawFlows {
        let stamps: Vec<Option<usize>> = (0..tables.len())
            .map(|t| stamps.get(t).copied().flatten())
            .collect();
        let len = stamps.iter().map(|s| s.unwrap_or(1)).sum();
        RawFlows {
            tables,
            stamps,
            len,
        }
    }

    /// The number of flows (every stamp counted).
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Each flow in the scenario's order: its table, and for a stamped one its instance
    /// (0-based).
    pub(super) fn iter(&self) -> impl Iterator<Item = (&RawFlow, Option<usize>)> {
        self.tables
            .iter()
            .zip(&self.stamps)
            .flat_map(|(t, s)| match *s {
                Some(n) => Stamps::Some(t, 0..n),
                None => Stamps::One(Some(t)),
            })
    }

    /// The index of the first flow table `table` stands for.
    pub(super) fn first_flow(stamps: &[Option<usize>], table: usize) -> usize {
        (0..table)
            .map(|t| stamps.get(t).copied().flatten().unwrap_or(1))
            .sum()
    }
}

/// The flows one table stands for ([`RawFlows::iter`]).
enum Stamps<'a> {
    One(Option<&'a RawFlow>),
    Some(&'a RawFlow, std::ops::Range<usize>),
}

impl<'a> Iterator for Stamps<'a> {
    type Item = (&'a RawFlow, Option<usize>);
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Stamps::One(t) => t.take().map(|t| (t, None)),
            Stamps::Some(t, js) => js.next().map(|j| (*t, Some(j))),
        }
    }
}

/// One flow being resolved: the context (for errors), its table, its key path (`flows[3]`) and
/// its index among the flows (its start's random stream).
struct FlowAt<'a> {
    cx: &'a Ctx<'a>,
    f: &'a RawFlow,
    p: &'a str,
    i: usize,
}

/// A flow's settings common to udp and tcp flows: its name, end nodes and times.
struct FlowCommon {
    name: Option<String>,
    src: u32,
    dst: u32,
    /// The start, drawn when random, and the time or distribution it came from.
    start: SimTime,
    start_spec: DurationDist,
    start_random: bool,
    stop: Option<SimTime>,
}

/// Checks and resolves the scenario's flows, without a simulation; true when one of them draws
/// at random (a random start, on/off periods, random traffic), so that the seed matters. Each
/// flow in steps: its name ([`flow_name`]), end nodes, times ([`flow_times`]), then the
/// settings of its kind ([`udp_flow`], [`tcp_flow`]).
pub(super) fn resolve_flows(
    cx: &Ctx<'_>,
    flows: &RawFlows,
    nodes: &[String],
    duration: SimDuration,
    seed: u64,
) -> Result<(Vec<PlannedFlow>, bool), ScenarioError> {
    let lookup = NodeLookup::new(nodes);
    let mut planned = Vec::with_capacity(flows.len());
    let mut random = false;
    // Each name given, with the first flow that has it.
    let mut flow_names: std::collections::BTreeMap<String, usize> = Default::default();
    for (i, (f, instance)) in flows.iter().enumerate() {
        let p = format!("flows[{i}]");
        let x = FlowAt { cx, f, p: &p, i };
        let name = flow_name(&x, instance, &mut flow_names)?;
        let node = |s: &S, path: &str| node_index(cx, &lookup, s, path);
        let (src, dst) = (
            node(&f.from, &format!("{p}.from"))?,
            node(&f.to, &format!("{p}.to"))?,
        );
        let c = flow_times(&x, name, (src, dst), (duration, seed))?;
        random |= c.start_random;
        let (flow, draws) = match f.kind.get_ref().as_str() {
            "udp" => udp_flow(&x, c)?,
            "tcp" => tcp_flow(&x, c)?,
            other => {
                return Err(cx.err(
                    Some(f.kind.span()),
                    format!("{p}.kind"),
                    format!("expected udp or tcp, got {other:?}"),
                ));
            }
        };
        random |= draws;
        planned.push(flow);
    }
    Ok((planned, random))
}

/// A flow's name, if given: a stamped flow's (`count = N`) is its table's, numbered; non-empty,
/// without control characters, and unique (`flow_names`: each name given, with its first flow).
fn flow_name(
    x: &FlowAt<'_>,
    instance: Option<usize>,
    flow_names: &mut std::collections::BTreeMap<String, usize>,
) -> Result<Option<String>, ScenarioError> {
    let (cx, p, i) = (x.cx, x.p, x.i);
    let Some(n) = &x.f.name else { return Ok(None) };
    // A stamped flow's name: its table's, numbered (as `count = N` names them).
    let v = match instance {
        Some(j) => format!("{}-{}", n.get_ref(), j + 1),
        None => n.get_ref().clone(),
    };
    if v.is_empty() || v.chars().any(char::is_control) {
        return Err(cx.err(
            Some(n.span()),
            format!("{p}.name"),
            "expected a non-empty name without control characters",
        ));
    }
    if let Some(j) = flow_names.get(&v) {
        return Err(cx.err(
            Some(n.span()),
            format!("{p}.name"),
            format!("flows[{j}] is named {v:?} already: expected a unique name"),
        ));
    }
    flow_names.insert(v.clone(), i);
    Ok(Some(v))
}

/// A flow's common settings: its name and end nodes as given, and its times: the start (a time,
/// or a distribution drawn from the flow's own stream of `seed`) before the end of the run
/// (`duration`), the stop after the start (both unless the start is random).
fn flow_times(
    x: &FlowAt<'_>,
    name: Option<String>,
    (src, dst): (u32, u32),
    (duration, seed): (SimDuration, u64),
) -> Result<FlowCommon, ScenarioError> {
    let (cx, f, p, i) = (x.cx, x.f, x.p, x.i);
    let mut start_random = false;
    let (start, start_spec) = match &f.start {
        Some(s) => {
            // A time, or a distribution drawn from the flow's own stream.
            let d = *s.get();
            start_random = d.is_random();
            let mut rng =
                aqmlab_core::Xoshiro256pp::for_stream(seed, &start_stream(i, name.as_deref()));
            (SimTime::ZERO + d.sample(&mut rng, MAX_TIME), d)
        }
        None => (SimTime::ZERO, DurationDist::Fixed(SimDuration::ZERO)),
    };
    let stop = f.stop.as_ref().map(|s| SimTime::ZERO + *s.get());
    // A flow that could never send is a slip, not a wish. (A random start that falls after
    // the end is a draw, not a slip: it is left alone.)
    if !start_random && start >= SimTime::ZERO + duration {
        return Err(cx.err(
            f.start.as_ref().map(|s| s.span()),
            format!("{p}.start"),
            format!(
                "expected a start before the end of the run ({duration}), got {:?}: this flow would never run",
                f.start.as_ref().map_or("0s", |s| s.text())
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
                    sv.text()
                ),
            ));
        }
    }
    Ok(FlowCommon {
        name,
        src,
        dst,
        start,
        start_spec,
        start_random,
        stop,
    })
}

/// A udp flow: its rate (> 0), packet size, on/off periods and ECN codepoint; no TCP key. True
/// when it draws at random (on/off periods). In steps: [`udp_rate`], [`udp_size`], the TCP keys
/// refused, the on/off periods, [`udp_ecn`] and [`check_dscp`].
fn udp_flow(x: &FlowAt<'_>, c: FlowCommon) -> Result<(PlannedFlow, bool), ScenarioError> {
    let (cx, f, p) = (x.cx, x.f, x.p);
    let FlowCommon {
        name,
        src,
        dst,
        start,
        start_spec,
        stop,
        ..
    } = c;
    let rate = udp_rate(x)?;
    let size = udp_size(x)?;
    // Every TCP key is refused on a udp flow, rather than silently ignored.
    if let Some(key) = super::flow_keys::wrong_kind(&f.given()) {
        return Err(cx.err(
            Some(f.kind.span()),
            format!("{p}.{key}"),
            format!("{key} belongs to tcp flows; this flow has kind = \"udp\""),
        ));
    }
    let on_off = apps::on_off(cx, f, p)?;
    let random = on_off.is_some();
    let ecn = udp_ecn(x)?;
    Ok((
        PlannedFlow {
            spec: Planned::Udp(UdpSpec {
                src,
                dst,
                rate,
                size,
                start,
                stop,
                on_off,
                ecn,
                name,
            }),
            start: start_spec,
            span: f.from.span(),
            dscp: check_dscp(cx, f, p)?,
        },
        random,
    ))
}

/// A udp flow's `rate`: given, and above 0.
fn udp_rate(x: &FlowAt<'_>) -> Result<aqmlab_core::Bitrate, ScenarioError> {
    let (cx, f, p) = (x.cx, x.f, x.p);
    let rate = f.rate.as_ref().ok_or_else(|| {
        cx.err(
            Some(f.kind.span()),
            format!("{p}.rate"),
            "a udp flow needs a rate, like rate = \"64kbps\"",
        )
    })?;
    let rate = rate.checked(cx, &format!("{p}.rate"))?;
    if rate.as_bps() == 0 {
        return Err(cx.err(
            f.rate.as_ref().map(|r| r.span()),
            format!("{p}.rate"),
            "expected a rate > 0",
        ));
    }
    Ok(rate)
}

/// A udp flow's packet `size`, bytes: from 20 to 65535, 1500 when not given.
fn udp_size(x: &FlowAt<'_>) -> Result<u32, ScenarioError> {
    let (cx, f, p) = (x.cx, x.f, x.p);
    match &f.size {
        Some(s) if (20..=65_535).contains(s.get_ref()) => Ok(*s.get_ref() as u32),
        Some(s) => Err(cx.err(
            Some(s.span()),
            format!("{p}.size"),
            format!(
                "expected a packet size in bytes between 20 and 65535, got {}",
                s.get_ref()
            ),
        )),
        None => Ok(1500),
    }
}

/// A udp flow's `ecn_codepoint` (RFC 3168 §5), not-ECT when not given.
fn udp_ecn(x: &FlowAt<'_>) -> Result<Ecn, ScenarioError> {
    let (cx, f, p) = (x.cx, x.f, x.p);
    let Some(s) = &f.ecn_codepoint else {
        return Ok(Ecn::NotEct);
    };
    match s.get_ref().as_str() {
        "not_ect" => Ok(Ecn::NotEct),
        "ect0" => Ok(Ecn::Ect0),
        "ect1" => Ok(Ecn::Ect1),
        "ce" => Ok(Ecn::Ce),
        other => Err(cx.err(
            Some(s.span()),
            format!("{p}.ecn_codepoint"),
            format!("expected not_ect, ect0, ect1 or ce, got {other:?}"),
        )),
    }
}

/// A tcp flow: its sender's settings ([`tcp_config`]), application, stop (for the
/// applications that stop) and SYN retries. True when its application draws at random.
fn tcp_flow(x: &FlowAt<'_>, c: FlowCommon) -> Result<(PlannedFlow, bool), ScenarioError> {
    let (cx, f, p) = (x.cx, x.f, x.p);
    let FlowCommon {
        name,
        src,
        dst,
        start,
        start_spec,
        stop,
        ..
    } = c;
    if let Some(s) = &f.ecn_codepoint {
        return Err(cx.err(
            Some(s.span()),
            format!("{p}.ecn_codepoint"),
            "ecn_codepoint belongs to udp flows; a tcp flow sends ECT(0) with ecn = true, ECT(1) with cc = \"prague\"",
        ));
    }
    let cfg = tcp_config(cx, f, p)?;
    let app = apps::tcp_app(cx, f, p)?;
    let random = app.draws_at_random();
    if let (Some(st), TcpApp::Bulk | TcpApp::Finite { .. }) = (&f.stop, &app) {
        return Err(cx.err(Some(st.span()), format!("{p}.stop"), if matches!(app, TcpApp::Bulk) { "stop applies to udp flows and the web, repeat and onoff applications: a bulk flow runs to the end (use app = \"finite\" with bytes for a transfer that ends)" } else { "stop applies to udp flows and the web, repeat and onoff applications: a finite transfer ends when its bytes are delivered" }));
    }
    let syn_retries = match &f.syn_retries {
        None => None,
        Some(n) if !cfg.handshake => return Err(cx.err(
            Some(n.span()),
            format!("{p}.syn_retries"),
            "syn_retries needs handshake = true: without a handshake there is no SYN to retransmit",
        )),
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
    Ok((
        PlannedFlow {
            spec: Planned::Tcp(Box::new(TcpSpec {
                src,
                dst,
                start,
                stop,
                cfg,
                app,
                syn_retries,
                name,
            })),
            start: start_spec,
            span: f.kind.span(),
            dscp: check_dscp(cx, f, p)?,
        },
        random,
    ))
}

/// The resolved flows, each checked as the simulation would check it when adding it (a
/// destination reachable over `routes`, a valid TCP configuration and application), without
/// a simulation.
pub(super) fn check_flows(
    cx: &Ctx<'_>,
    planned: Vec<PlannedFlow>,
    nodes: &[String],
    routes: &crate::topology::Routes,
) -> Result<Vec<ResolvedFlow>, ScenarioError> {
    planned
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            match &f.spec {
                Planned::Udp(u) => u.check(i, nodes, routes),
                Planned::Tcp(t) => t.check(i, nodes, routes),
            }
            .map_err(|e| cx.err(Some(f.span), format!("flows[{i}]"), e.to_string()))?;
            Ok(ResolvedFlow {
                plan: f.spec,
                start: f.start,
                dscp: f.dscp,
            })
        })
        .collect()
}

/// `dscp = N` on a flow: the DSCP its packets carry (RFC 2474's 6 bits).
fn check_dscp(cx: &Ctx<'_>, f: &RawFlow, p: &str) -> Result<Option<u8>, ScenarioError> {
    let Some(d) = &f.dscp else {
        return Ok(None);
    };
    let v = *d.get_ref();
    if !(0..=63).contains(&v) {
        return Err(cx.err(
            Some(d.span()),
            format!("{p}.dscp"),
            format!("expected a DSCP from 0 to 63, got {v}"),
        ));
    }
    Ok(Some(v as u8))
}

/// it is.
fn largest_packets(f: &PlannedFlow) -> ((u32, String), (u32, String)) {
    use aqmlab_tcp::segment::HEADER_BYTES;
    let ack = (HEADER_BYTES, "its ACKs".to_string());
    match &f.spec {
        Planned::Udp(u) => ((u.size, "its datagrams".into()), (0, String::new())),
        Planned::Tcp(t) => {
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
                TcpApp::Page { request_bytes, .. } => (
                    seg(mss, "its responses"),
                    seg(*request_bytes, "its requests"),
                ),
                TcpApp::Video(v) => (
                    seg(mss, "its responses"),
                    seg(v.request_bytes, "its requests"),
                ),
                TcpApp::Repeat { .. } | TcpApp::OnOff { .. } => (seg(mss, "its segments"), ack),
            }
        }
    }
}

/// One flow's largest packet in one direction, on one link direction of its path.
#[derive(Clone, Debug)]
pub(super) struct Crossing {
    /// The flow's index in `[[flows]]`.
    pub(super) flow: usize,
    /// The link direction's index (as in [`Sim::link_names`]).
    pub(super) link: usize,
    /// The packet's size on the wire, bytes.
    pub(super) size: u32,
    /// What the packet is (`its ACKs`, …), shared by the links of the path.
    pub(super) what: std::rc::Rc<str>,
}

/// The largest packet each flow puts on each link direction it crosses, data from
/// its source to its destination and ACKs or requests back, in that order: by flow, then the
/// way out before the way back, then along the path. A way with no packets (a UDP flow's way
/// back) crosses nothing. The scenario builder walks flows and paths once, here, for both the
/// byte-limit check and CoDel's `mtu = "auto"` defaults.
pub(super) fn crossings(
    cx: &Ctx<'_>,
    flows: &RawFlows,
    nodes: &[String],
    planned: &[PlannedFlow],
    routes: &crate::topology::Routes,
    ends: &[(u32, u32)],
) -> Result<Vec<Crossing>, ScenarioError> {
    let lookup = NodeLookup::new(nodes);
    let mut v = Vec::new();
    for (i, (f, _)) in flows.iter().enumerate() {
        let (src, dst) = (
            node_index(cx, &lookup, &f.from, "")?,
            node_index(cx, &lookup, &f.to, "")?,
        );
        let (fwd, back) = largest_packets(&planned[i]);
        for (a, b, (size, what)) in [(src, dst, fwd), (dst, src, back)] {
            if size == 0 {
                continue;
            }
            let what: std::rc::Rc<str> = what.into();
            for link in routes.path(a, b, |l| ends[l].1) {
                v.push(Crossing {
                    flow: i,
                    link,
                    size,
                    what: what.clone(),
                });
            }
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests;
