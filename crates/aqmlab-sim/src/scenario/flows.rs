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
mod tests {
    use super::*;

    type Err = (Option<usize>, String, String);

    /// The step `step` on flow `flows[1]` (index 1) read from the flow table `table` (its spans
    /// in `table`).
    fn on<T>(
        table: &str,
        step: impl FnOnce(&FlowAt<'_>) -> Result<T, ScenarioError>,
    ) -> Result<T, Err> {
        let f: RawFlow = toml::from_str(table).unwrap();
        let cx = Ctx {
            file: "t.toml".into(),
            text: table,
            dir: PathBuf::new(),
        };
        step(&FlowAt {
            cx: &cx,
            f: &f,
            p: "flows[1]",
            i: 1,
        })
        .map_err(|e| (e.line, e.path, e.msg))
    }

    fn e<T>(line: usize, path: &str, msg: &str) -> Result<T, Err> {
        Err((Some(line), path.to_string(), msg.to_string()))
    }

    const UDP: &str = "kind = \"udp\"\nfrom = \"a\"\nto = \"b\"\n";

    fn times(keys: &str) -> Result<(SimTime, Option<SimTime>, bool), Err> {
        let ten_s = (SimDuration::from_secs(10), 1);
        on(&format!("{UDP}{keys}"), |x| {
            flow_times(x, None, (0, 1), ten_s)
        })
        .map(|c| (c.start, c.stop, c.start_random))
    }

    #[test]
    fn flow_name_is_numbered_when_stamped_and_unique() {
        let mut names = Default::default();
        let table = format!("{UDP}name = \"v\"");
        assert_eq!(
            on(&table, |x| flow_name(x, None, &mut names)),
            Ok(Some("v".to_string()))
        );
        assert_eq!(
            on(&table, |x| flow_name(x, Some(2), &mut names)),
            Ok(Some("v-3".to_string()))
        );
        assert_eq!(
            names.into_iter().collect::<Vec<_>>(),
            vec![("v".to_string(), 1), ("v-3".to_string(), 1)]
        );
        let mut names = [("v".to_string(), 0)].into_iter().collect();
        let msg = "flows[0] is named \"v\" already: expected a unique name";
        assert_eq!(
            on(&table, |x| flow_name(x, None, &mut names)),
            e(4, "flows[1].name", msg)
        );
        let msg = "expected a non-empty name without control characters";
        let empty = format!("{UDP}name = \"\"");
        assert_eq!(
            on(&empty, |x| flow_name(x, None, &mut names)),
            e(4, "flows[1].name", msg)
        );
        assert_eq!(on(UDP, |x| flow_name(x, None, &mut names)), Ok(None));
    }

    #[test]
    fn flow_times_start_before_the_end_and_stop_after_the_start() {
        let at = |ms| SimTime::ZERO + SimDuration::from_millis(ms);
        assert_eq!(times(""), Ok((at(0), None, false)));
        assert_eq!(
            times("start = \"2s\"\nstop = \"3s\""),
            Ok((at(2000), Some(at(3000)), false))
        );
        let msg = "expected a start before the end of the run (10s), got \"10s\": this flow would never run";
        assert_eq!(times("start = \"10s\""), e(4, "flows[1].start", msg));
        let msg = "expected a stop after the start (2s), got \"2s\": this flow would never run";
        assert_eq!(
            times("start = \"2s\"\nstop = \"2s\""),
            e(5, "flows[1].stop", msg)
        );
        // A random start is a draw: neither is checked, and the flag says so.
        let (start, _, random) = times("start = \"uniform(0s, 20s)\"\nstop = \"1s\"").unwrap();
        assert!(random && start < at(20_000));
    }

    #[test]
    fn udp_flow_needs_a_rate_and_takes_its_own_keys() {
        let udp = |keys: &str| {
            on(&format!("{UDP}{keys}"), |x| {
                let c = flow_times(x, None, (0, 1), (SimDuration::from_secs(10), 1))?;
                udp_flow(x, c)
            })
            .map(|(p, random)| match p.spec {
                Planned::Udp(u) => (u.rate.as_bps(), u.size, u.ecn, random),
                Planned::Tcp(_) => panic!("a tcp flow"),
            })
        };
        assert_eq!(
            udp("rate = \"1Mbps\""),
            Ok((1_000_000, 1500, Ecn::NotEct, false))
        );
        assert_eq!(
            udp("rate = \"1Mbps\"\nsize = 200\necn_codepoint = \"ect1\""),
            Ok((1_000_000, 200, Ecn::Ect1, false))
        );
        assert_eq!(
            udp(""),
            e(
                1,
                "flows[1].rate",
                "a udp flow needs a rate, like rate = \"64kbps\""
            )
        );
        assert_eq!(
            udp("rate = \"0bps\""),
            e(4, "flows[1].rate", "expected a rate > 0")
        );
        let msg = "expected a packet size in bytes between 20 and 65535, got 19";
        assert_eq!(
            udp("rate = \"1Mbps\"\nsize = 19"),
            e(5, "flows[1].size", msg)
        );
        let msg = "expected not_ect, ect0, ect1 or ce, got \"x\"";
        assert_eq!(
            udp("rate = \"1Mbps\"\necn_codepoint = \"x\""),
            e(5, "flows[1].ecn_codepoint", msg)
        );
        let msg = "cc belongs to tcp flows; this flow has kind = \"udp\"";
        assert_eq!(
            udp("rate = \"1Mbps\"\ncc = \"reno\""),
            e(1, "flows[1].cc", msg)
        );
    }

    #[test]
    fn tcp_flow_refuses_udp_keys_and_checks_syn_retries() {
        let tcp = |keys: &str| {
            let table = format!("kind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\n{keys}");
            on(&table, |x| {
                let c = flow_times(x, None, (0, 1), (SimDuration::from_secs(10), 1))?;
                tcp_flow(x, c)
            })
            .map(|(p, random)| match p.spec {
                Planned::Tcp(t) => (t.syn_retries, random),
                Planned::Udp(_) => panic!("a udp flow"),
            })
        };
        assert_eq!(tcp(""), Ok((None, false)));
        assert_eq!(
            tcp("handshake = true\nsyn_retries = 3"),
            Ok((Some(3), false))
        );
        let msg = "expected a number of SYN retransmissions from 0 to 127, got 128";
        assert_eq!(
            tcp("handshake = true\nsyn_retries = 128"),
            e(5, "flows[1].syn_retries", msg)
        );
        let (line, path, _) = tcp("handshake = false\nsyn_retries = 3").unwrap_err();
        assert_eq!((line, path.as_str()), (Some(5), "flows[1].syn_retries"));
        let (line, path, _) = tcp("ecn_codepoint = \"ect0\"").unwrap_err();
        assert_eq!((line, path.as_str()), (Some(4), "flows[1].ecn_codepoint"));
        let (line, path, msg) = tcp("stop = \"5s\"").unwrap_err();
        assert_eq!((line, path.as_str()), (Some(4), "flows[1].stop"));
        assert!(msg.starts_with("stop applies to udp flows"), "{msg}");
    }

    /// Nodes `a`, `b`, `c` in a line (links 0 `a`→`b`, 1 `b`→`a`, 2 `b`→`c`, 3 `c`→`b`) and
    /// `d`, linked to none.
    const NODES: [&str; 4] = ["a", "b", "c", "d"];
    const ENDS: [(u32, u32); 4] = [(0, 1), (1, 0), (1, 2), (2, 1)];

    /// `step` on the `[[flows]]` of `text` (its tables stamped as `stamps` says), resolved over
    /// [`NODES`] and [`ENDS`] for a 10 s run.
    fn on_flows<T>(
        text: &str,
        stamps: &[Option<usize>],
        step: impl FnOnce(
            &Ctx<'_>,
            &RawFlows,
            Vec<PlannedFlow>,
            &[String],
            &crate::topology::Routes,
        ) -> Result<T, ScenarioError>,
    ) -> Result<T, Err> {
        #[derive(serde::Deserialize)]
        struct Flows {
            flows: Vec<RawFlow>,
        }
        let raw: Flows = toml::from_str(text).unwrap();
        let flows = RawFlows::new(raw.flows, stamps);
        let cx = Ctx {
            file: "t.toml".into(),
            text,
            dir: PathBuf::new(),
        };
        let nodes: Vec<String> = NODES.iter().map(|n| n.to_string()).collect();
        let routes = crate::topology::Routes::compute(nodes.len(), &ENDS);
        let (planned, _) = resolve_flows(&cx, &flows, &nodes, SimDuration::from_secs(10), 1)
            .map_err(|e| (e.line, e.path, e.msg))?;
        step(&cx, &flows, planned, &nodes, &routes).map_err(|e| (e.line, e.path, e.msg))
    }

    #[test]
    fn crossings_are_by_flow_the_way_out_then_back_along_the_path() {
        let text = "[[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"1Mbps\"\n\
                    size = 200\n\
                    [[flows]]\nkind = \"tcp\"\nfrom = \"c\"\nto = \"b\"\nmss = 500\n";
        // The tcp table stamped twice: flows 1 and 2.
        let got = on_flows(
            text,
            &[None, Some(2)],
            |cx, flows, planned, nodes, routes| {
                crossings(cx, flows, nodes, &planned, routes, &ENDS)
            },
        )
        .unwrap();
        let got: Vec<_> = got
            .iter()
            .map(|c| (c.flow, c.link, c.size, c.what.to_string()))
            .collect();
        let seg = "its segments: 500 bytes of data + 40 of headers";
        let row = |flow, link, size, what: &str| (flow, link, size, what.to_string());
        assert_eq!(
            got,
            [
                // A UDP flow's datagrams along a→b→c, and nothing back.
                row(0, 0, 200, "its datagrams"),
                row(0, 2, 200, "its datagrams"),
                // A TCP flow's segments c→b, then its ACKs b→c.
                row(1, 3, 540, seg),
                row(1, 2, 40, "its ACKs"),
                row(2, 3, 540, seg),
                row(2, 2, 40, "its ACKs"),
            ]
        );
    }

    #[test]
    fn check_flows_keeps_each_flows_start_and_dscp_and_refuses_no_route() {
        let ok = "[[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"c\"\nrate = \"1Mbps\"\n\
                  dscp = 10\nstart = \"2s\"\n\
                  [[flows]]\nkind = \"tcp\"\nfrom = \"c\"\nto = \"a\"\n";
        let got = on_flows(ok, &[], |cx, _, planned, nodes, routes| {
            check_flows(cx, planned, nodes, routes)
        })
        .unwrap();
        let got: Vec<_> = got
            .iter()
            .map(|f| {
                let kind = match f.plan {
                    Planned::Udp(_) => "udp",
                    Planned::Tcp(_) => "tcp",
                };
                (kind, f.start, f.dscp)
            })
            .collect();
        let at = |s| DurationDist::Fixed(SimDuration::from_secs(s));
        assert_eq!(got, [("udp", at(2), Some(10)), ("tcp", at(0), None)]);
        // d is linked to nothing: the error names the flow and (a udp flow) the line of its `from`.
        let no_route =
            format!("{ok}[[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"d\"\nrate = \"1Mbps\"\n");
        assert_eq!(
            on_flows(&no_route, &[], |cx, _, planned, nodes, routes| {
                check_flows(cx, planned, nodes, routes)
            })
            .map(|_| ()),
            e(14, "flows[2]", "flow 2: there is no route from a to d")
        );
    }

    #[test]
    fn check_dscp_is_6_bits() {
        let dscp = |keys: &str| on(&format!("{UDP}{keys}"), |x| check_dscp(x.cx, x.f, x.p));
        assert_eq!(dscp(""), Ok(None));
        assert_eq!(dscp("dscp = 0"), Ok(Some(0)));
        assert_eq!(dscp("dscp = 63"), Ok(Some(63)));
        let msg = "expected a DSCP from 0 to 63, got 64";
        assert_eq!(dscp("dscp = 64"), e(4, "flows[1].dscp", msg));
        let msg = "expected a DSCP from 0 to 63, got -1";
        assert_eq!(dscp("dscp = -1"), e(4, "flows[1].dscp", msg));
    }

    #[test]
    fn first_flow_counts_each_stamp_before_the_table() {
        let stamps = [None, Some(3), None, Some(2)];
        let firsts: Vec<usize> = (0..=5).map(|t| RawFlows::first_flow(&stamps, t)).collect();
        // Tables past the list stand for one flow each.
        assert_eq!(firsts, [0, 1, 4, 5, 7, 8]);
        assert_eq!(RawFlows::first_flow(&[], 3), 3);
    }

    #[test]
    fn a_udp_size_is_20_to_65535_bytes_and_its_ecn_one_of_four_codepoints() {
        let size = |keys: &str| on(&format!("{UDP}{keys}"), udp_size);
        assert_eq!(size(""), Ok(1500));
        assert_eq!(size("size = 20"), Ok(20));
        assert_eq!(size("size = 65535"), Ok(65535));
        assert_eq!(
            size("size = 65536"),
            e(
                4,
                "flows[1].size",
                "expected a packet size in bytes between 20 and 65535, got 65536"
            )
        );
        let ecn = |keys: &str| on(&format!("{UDP}{keys}"), udp_ecn);
        assert_eq!(ecn(""), Ok(Ecn::NotEct));
        for (text, cp) in [
            ("not_ect", Ecn::NotEct),
            ("ect0", Ecn::Ect0),
            ("ect1", Ecn::Ect1),
            ("ce", Ecn::Ce),
        ] {
            assert_eq!(ecn(&format!("ecn_codepoint = {text:?}")), Ok(cp));
        }
        assert_eq!(
            ecn("ecn_codepoint = \"CE\""),
            e(
                4,
                "flows[1].ecn_codepoint",
                "expected not_ect, ect0, ect1 or ce, got \"CE\""
            )
        );
        let rate = |keys: &str| on(&format!("{UDP}{keys}"), udp_rate);
        assert_eq!(rate("rate = \"1bps\"").map(|r| r.as_bps()), Ok(1));
        assert_eq!(
            rate("rate = \"0Mbps\""),
            e(4, "flows[1].rate", "expected a rate > 0")
        );
    }

    #[test]
    fn the_largest_packets_of_a_flow_are_its_data_and_what_comes_back() {
        let text = "[[flows]]\nkind = \"udp\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\n\
                    size = 200\n\
                    [[flows]]\nkind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\nmss = 500\n\
                    [[flows]]\nkind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\nmss = 500\n\
                    app = \"finite\"\nbytes = \"300B\"\n\
                    [[flows]]\nkind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\nmss = 500\n\
                    app = \"web\"\nconns_per_s = 1.0\nrequest_size = \"100B\"\n\
                    [[flows]]\nkind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\nmss = 500\n\
                    app = \"finite\"\nbytes = \"5000B\"\n";
        let largest = on_flows(text, &[], |_, _, planned, _, _| {
            Ok(planned.iter().map(largest_packets).collect::<Vec<_>>())
        })
        .unwrap();
        let p = |n: u32, what: &str| (n, what.to_string());
        assert_eq!(
            largest,
            [
                (p(200, "its datagrams"), p(0, "")),
                (
                    p(540, "its segments: 500 bytes of data + 40 of headers"),
                    p(40, "its ACKs")
                ),
                (
                    p(340, "its segments: 300 bytes of data + 40 of headers"),
                    p(40, "its ACKs")
                ),
                (
                    p(540, "its responses: 500 bytes of data + 40 of headers"),
                    p(140, "its requests: 100 bytes of data + 40 of headers")
                ),
                // A transfer longer than a segment: segments of the MSS.
                (
                    p(540, "its segments: 500 bytes of data + 40 of headers"),
                    p(40, "its ACKs")
                ),
            ]
        );
    }
}
