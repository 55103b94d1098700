//! Putting a simulation together: the flows' specifications ([`TcpSpec`], [`UdpSpec`]), the
//! checks that reject a bad configuration before the run ([`BuildError`]), building the link
//! directions and adding the flows, each flow with its own random stream; and what a flow is
//! while it runs (`Flow`, `FlowKind`), since it is made from its spec here. Nothing here runs
//! once the event loop has started.

use super::apps::AppState;
use super::{Ev, Link, OnOff, Sim, TcpApp};
use crate::arena::Arena;
use crate::dist::DurationDist;
use crate::event::{EventQueue, Lane};
use crate::link::LinkDirection;
use crate::topology::{LinkConfig, Routes};
use aqmlab_core::{Bitrate, Ecn, SimDuration, SimTime, Xoshiro256pp};
use aqmlab_link::bins::Bins;
use aqmlab_report::{FlowBin, FlowInfo, FlowMetrics};
use aqmlab_tcp::TcpConfig;
use std::sync::Arc;

/// A TCP flow: one connection (bulk, finite, on/off) or a sequence of them (web, repeated
/// transfers).
#[derive(Clone, Debug)]
pub struct TcpSpec {
    /// Sending node (for web traffic, the server: it sends the responses).
    pub src: u32,
    /// Receiving node (for web traffic, the client: it opens the connections and sends the requests).
    pub dst: u32,
    /// When the application starts.
    pub start: SimTime,
    /// Web, repeat and on/off applications: no new requests, transfers or writes at or after
    /// this time.
    pub stop: Option<SimTime>,
    /// TCP parameters and congestion control.
    pub cfg: TcpConfig,
    /// The application.
    pub app: TcpApp,
    /// SYN retransmissions before a connection gives up (counted in `transfers_failed`). `None`:
    /// [`TcpConfig::syn_retries`] (6, as Linux) for web connections, and never for bulk and
    /// finite flows, which keep retrying as an application that reconnects would.
    pub syn_retries: Option<u32>,
    /// The flow's name (see [`UdpSpec::name`]).
    pub name: Option<String>,
}

/// A constant-bit-rate UDP source.
#[derive(Clone, Debug)]
pub struct UdpSpec {
    /// Sending node.
    pub src: u32,
    /// Receiving node.
    pub dst: u32,
    /// Sending rate.
    pub rate: Bitrate,
    /// Datagram size in bytes (IP size).
    pub size: u32,
    /// First send.
    pub start: SimTime,
    /// No sends at or after this time.
    pub stop: Option<SimTime>,
    /// On/off source: send at `rate` during on periods only.
    pub on_off: Option<OnOff>,
    /// The ECN codepoint of every datagram (e.g. ECT(1), to exercise an L4S queue).
    pub ecn: Ecn,
    /// The flow's name. It names the flow's random stream (`flow/NAME/app`; unnamed, the flow's
    /// index), so that a flow added before a named one leaves its draws alone.
    pub name: Option<String>,
}

/// A flow as it was added: [`Sim::flow_spec`].
#[derive(Clone, Copy, Debug)]
pub enum FlowSpec<'a> {
    /// A UDP source.
    Udp(&'a UdpSpec),
    /// A TCP flow.
    Tcp(&'a TcpSpec),
}

/// A flow's kind and the state its application keeps. A TCP flow's spec (over 300 bytes of
/// configuration and application, read when a connection opens, never per packet) is boxed, so
/// that a UDP flow, or many idle ones, does not carry its room (issue 24: `Flow` went from 1,328
/// to 1,056 bytes; `flow_state_stays_small` in world.rs).
pub(super) enum FlowKind {
    Udp {
        spec: UdpSpec,
        next_seq: u64,
        /// Time between packets, when it is a whole number of nanoseconds (`None`: see
        /// [`udp_send_time`](super::apps::udp_send_time)).
        interval: Option<SimDuration>,
        /// The current burst's first packet (the flow's start, for a CBR source), and packets
        /// sent since.
        epoch: (SimTime, u64),
        /// On/off sources: packets left in the current burst, counting the next; 0 before the
        /// start ([`OnOff`](super::apps::OnOff)).
        burst_left: u64,
        rng: Xoshiro256pp,
    },
    Tcp {
        spec: Box<TcpSpec>,
        rng: Xoshiro256pp,
        app: AppState,
    },
}

pub(super) struct Flow {
    pub(super) info: FlowInfo,
    pub(super) kind: FlowKind,
    /// Totals and sketches; its per-bin series stay empty while running (they are in `series`,
    /// and a report fills them in).
    pub(super) m: FlowMetrics,
    /// The time series, one row per bin (none, ever, without `keeps_series`).
    pub(super) series: Vec<FlowBin>,
    /// It keeps a time series (`[output] flow_series`, [`Sim::drop_flow_series`]): without
    /// one, a packet costs it only its totals.
    pub(super) keeps_series: bool,
    /// DSCP of the flow's packets ([`Sim::set_dscp`]; 0 = best effort).
    pub(super) dscp: u8,
    /// Its sender state's samples, when asked for ([`Sim::trace_flow_state`]).
    pub(super) state_trace: Option<Box<super::flow_state::FlowStateTrace>>,
    /// TCP: its connections open now (opened and not yet freed). A connection that opens while
    /// another is open gets a classification key of its own (`Conn::own_queue`).
    pub(super) open_conns: u32,
}

impl Flow {
    /// The flow's destination node (a web flow's client).
    pub(super) fn dst(&self) -> u32 {
        match &self.kind {
            FlowKind::Udp { spec, .. } => spec.dst,
            FlowKind::Tcp { spec, .. } => spec.dst,
        }
    }
}

/// An error in how a simulation was put together (found before it runs).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// A link names a node that does not exist.
    #[error("link {link}: node index {node} does not exist")]
    NoSuchNode {
        /// Link name.
        link: String,
        /// The bad index.
        node: u32,
    },
    /// A flow's destination cannot be reached from its source.
    #[error("flow {flow}: there is no route from {src} to {dst}")]
    NoRoute {
        /// Flow index.
        flow: usize,
        /// Source node name.
        src: String,
        /// Destination node name.
        dst: String,
    },
    /// A parameter out of range.
    #[error("{0}")]
    Invalid(String),
}

/// The name of flow `idx`'s random stream: by its name if it has one, else by its index (so
/// appending a flow changes no other flow's draws, and naming flows makes that hold for any
/// insertion).
fn flow_stream(idx: usize, name: Option<&str>) -> String {
    match name {
        Some(n) => format!("flow/name/{n}/app"),
        None => format!("flow/{idx}/app"),
    }
}

impl Sim {
    /// Builds a simulation over `nodes` (names) and `links`, with time series in bins of `bin`.
    pub fn new(
        nodes: Vec<String>,
        links: Vec<LinkConfig>,
        bin: SimDuration,
    ) -> Result<Sim, BuildError> {
        Sim::with_seed(nodes, links, bin, 1)
    }

    /// Like [`Sim::new`], with the master seed of every random stream (link losses, traffic).
    pub fn with_seed(
        nodes: Vec<String>,
        links: Vec<LinkConfig>,
        bin: SimDuration,
        seed: u64,
    ) -> Result<Sim, BuildError> {
        for l in &links {
            for n in [l.from, l.to] {
                if n as usize >= nodes.len() {
                    return Err(BuildError::NoSuchNode {
                        link: l.name.clone(),
                        node: n,
                    });
                }
            }
        }
        if bin == SimDuration::ZERO {
            return Err(BuildError::Invalid(
                "the time-series bin must be > 0".into(),
            ));
        }
        let ends: Vec<(u32, u32)> = links.iter().map(|l| (l.from, l.to)).collect();
        let routes = Routes::compute(nodes.len(), &ends);
        Ok(Sim::with_routes(nodes, links, routes, bin, seed))
    }

    /// Like [`Sim::with_seed`], with the routes computed already (by
    /// [`Routes::compute`] over these `links`' ends), and `nodes`, `links` and `bin` checked as
    /// [`Sim::with_seed`] checks them (a resolved scenario's are).
    pub fn with_routes(
        nodes: Vec<String>,
        links: Vec<LinkConfig>,
        routes: Routes,
        bin: SimDuration,
        seed: u64,
    ) -> Sim {
        let links = links
            .into_iter()
            .map(|l| Link {
                to: l.to,
                tx_seq: 0,
                dir: LinkDirection::new(l.into_parts(seed, None)),
            })
            .collect::<Vec<Link>>();
        let tcp_hints = links.iter().any(|l| l.dir.reads_tcp_hint());
        Sim {
            now: SimTime::ZERO,
            events: EventQueue::with_capacity(4096),
            payloads: Arena::with_capacity(4096),
            node_names: nodes.iter().map(|n| Arc::from(n.as_str())).collect(),
            nodes,
            links,
            routes,
            flows: Vec::new(),
            bins: Bins::new(bin.as_nanos()),
            conns: Arena::with_capacity(64),
            pages: Arena::with_capacity(8),
            next_gen: 0,
            segs: Vec::with_capacity(64),
            segs_reply: Vec::with_capacity(64),
            web_plan: Vec::new(),
            sent_ns: Vec::new(),
            seed,
            cur_seq: 0,
            idle_shortcut: true,
            tcp_hints,
            series_ended: false,
            owd: None,
            #[cfg(feature = "event-counts")]
            counts: Default::default(),
        }
    }

    /// Makes room for `n` more flows at once, so that adding many does not leave a vector up to
    /// twice their size (a flow's state is over 1 kB).
    pub fn reserve_flows(&mut self, n: usize) {
        self.flows.reserve_exact(n);
    }

    /// Adds a UDP CBR source; returns its flow index.
    pub fn add_udp(&mut self, spec: UdpSpec) -> Result<usize, BuildError> {
        let idx = self.flows.len();
        spec.check(idx, &self.nodes, &self.routes)?;
        let exact = (spec.size as u128 * 8_000_000_000).is_multiple_of(spec.rate.as_bps() as u128);
        let interval = exact.then(|| spec.rate.tx_time(spec.size as u64));
        self.events.push(spec.start, Ev::UdpSend(idx as u32));
        let info = FlowInfo {
            kind: "udp",
            cc: None,
            app: if spec.on_off.is_some() {
                "onoff"
            } else {
                "cbr"
            },
            start: spec.start,
            src: self.node_names[spec.src as usize].clone(),
            dst: self.node_names[spec.dst as usize].clone(),
            name: spec.name.clone(),
        };
        let rng = Xoshiro256pp::for_stream(self.seed, &flow_stream(idx, spec.name.as_deref()));
        self.flows.push(Flow {
            info,
            kind: FlowKind::Udp {
                epoch: (spec.start, 0),
                spec,
                next_seq: 0,
                interval,
                burst_left: 0,
                rng,
            },
            m: FlowMetrics::default(),
            series: Vec::new(),
            keeps_series: true,
            dscp: 0,
            state_trace: None,
            open_conns: 0,
        });
        Ok(idx)
    }

    /// Flow `flow` keeps no time series (`[output] flow_series`): it counts nothing per bin, and
    /// [`Sim::take_series`] gives it no rows. Its totals are unchanged.
    pub fn drop_flow_series(&mut self, flow: usize) {
        let f = &mut self.flows[flow];
        f.keeps_series = false;
        f.series = Vec::new();
    }

    /// Whether flow `flow` keeps a time series ([`Sim::drop_flow_series`]).
    pub fn flow_has_series(&self, flow: usize) -> bool {
        self.flows[flow].keeps_series
    }

    /// The flows that keep a time series, ascending, when some do not (`None` when all do).
    pub fn flows_with_series(&self) -> Option<Vec<usize>> {
        if self.flows.iter().all(|f| f.keeps_series) {
            return None;
        }
        Some(
            (0..self.flows.len())
                .filter(|&i| self.flows[i].keeps_series)
                .collect(),
        )
    }

    /// Sets the DSCP (0..63) that flow `flow`'s packets carry, both directions (CAKE's tins).
    pub fn set_dscp(&mut self, flow: usize, dscp: u8) {
        self.flows[flow].dscp = dscp & 63;
    }

    /// Adds a TCP flow; returns its flow index.
    pub fn add_tcp(&mut self, spec: TcpSpec) -> Result<usize, BuildError> {
        let idx = self.flows.len();
        spec.check(idx, &self.nodes, &self.routes)?;
        let app = spec.app.name();
        let info = FlowInfo {
            kind: "tcp",
            cc: Some(spec.cfg.cc.kind.as_str()),
            app,
            start: spec.start,
            src: self.node_names[spec.src as usize].clone(),
            dst: self.node_names[spec.dst as usize].clone(),
            name: spec.name.clone(),
        };
        // Each flow's randomness comes from its own stream: adding a flow changes no other's.
        let rng = Xoshiro256pp::for_stream(self.seed, &flow_stream(idx, spec.name.as_deref()));
        self.events
            .push_in(Lane::Timers, spec.start, Ev::TcpStart(idx as u32));
        self.flows.push(Flow {
            info,
            kind: FlowKind::Tcp {
                spec: Box::new(spec),
                rng,
                app: AppState::default(),
            },
            m: FlowMetrics::default(),
            series: Vec::new(),
            keeps_series: true,
            dscp: 0,
            state_trace: None,
            open_conns: 0,
        });
        Ok(idx)
    }

    /// The link directions a packet from `src` to `dst` crosses, in order (empty without a route).
    pub fn path(&self, src: u32, dst: u32) -> Vec<usize> {
        self.routes.path(src, dst, |l| self.links[l].to)
    }

    /// What flow `i` was added with.
    pub fn flow_spec(&self, i: usize) -> Option<FlowSpec<'_>> {
        Some(match &self.flows.get(i)?.kind {
            FlowKind::Udp { spec, .. } => FlowSpec::Udp(spec),
            FlowKind::Tcp { spec, .. } => FlowSpec::Tcp(spec),
        })
    }

    /// Gives link direction `name` a random extra delay per packet, `jitter`, drawn from the
    /// link's own stream: a packet arrives `delay + jitter` after its last bit left, but never
    /// before the packet sent ahead of it on the same link (so the link never reorders).
    /// Returns false if no direction has that name.
    pub fn set_jitter(&mut self, name: &str, jitter: DurationDist) -> bool {
        let seed = self.seed;
        match self.links.iter_mut().find(|l| l.dir.name() == name) {
            Some(l) => {
                l.dir
                    .set_jitter(jitter, crate::topology::jitter_rng(seed, name));
                true
            }
            None => false,
        }
    }
}

impl UdpSpec {
    /// What [`Sim::add_udp`] refuses, checked without a simulation: a zero rate or size, no
    /// route from `src` to `dst` over `routes` (between `nodes`), a stop before the start, bad
    /// on/off periods. `idx` is the flow's index, which the error names.
    pub fn check(&self, idx: usize, nodes: &[String], routes: &Routes) -> Result<(), BuildError> {
        if self.size == 0 || self.rate.as_bps() == 0 {
            return Err(BuildError::Invalid(format!(
                "flow {idx}: UDP rate and packet size must be > 0"
            )));
        }
        check_route(idx, self.src, self.dst, nodes, routes)?;
        if self.stop.is_some_and(|st| st <= self.start) {
            return Err(BuildError::Invalid(format!(
                "flow {idx}: stop must come after start"
            )));
        }
        if let Some(o) = &self.on_off {
            o.validate()
                .map_err(|e| BuildError::Invalid(format!("flow {idx}: {e}")))?;
        }
        Ok(())
    }
}

impl TcpSpec {
    /// What [`Sim::add_tcp`] refuses, checked without a simulation: a bad TCP configuration, no
    /// route from `src` to `dst` over `routes` (between `nodes`), a bad application.
    pub fn check(&self, idx: usize, nodes: &[String], routes: &Routes) -> Result<(), BuildError> {
        self.cfg
            .validate()
            .map_err(|e| BuildError::Invalid(format!("flow {idx}: {e}")))?;
        check_route(idx, self.src, self.dst, nodes, routes)?;
        self.app
            .validate()
            .map_err(|e| BuildError::Invalid(format!("flow {idx}: {e}")))
    }
}

/// Flow `flow` from `src` to `dst` has a route over `routes` between `nodes`.
fn check_route(
    flow: usize,
    src: u32,
    dst: u32,
    nodes: &[String],
    routes: &Routes,
) -> Result<(), BuildError> {
    let n = nodes.len() as u32;
    if src == dst && src < n {
        return Err(BuildError::Invalid(format!(
            "flow {flow}: from and to are the same node ({})",
            nodes[src as usize]
        )));
    }
    if src >= n || dst >= n || src == dst || routes.next_link(src, dst).is_none() {
        let name = |i: u32| {
            nodes
                .get(i as usize)
                .cloned()
                .unwrap_or_else(|| format!("#{i}"))
        };
        return Err(BuildError::NoRoute {
            flow,
            src: name(src),
            dst: name(dst),
        });
    }
    Ok(())
}
