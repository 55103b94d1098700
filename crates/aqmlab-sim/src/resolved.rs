//! The fully resolved scenario: every value of a scenario after the defaults, the `--unset` and
//! `--set` edits, `count = N` and the `--qdisc` swaps were applied, typed and checked
//! ([`ResolvedScenario`], made by [`crate::scenario::resolve_with_edits`] without building a
//! simulation). The simulator is built from it ([`ResolvedScenario::build_sim`]), the emulator
//! takes its link directions from it, and `scenario.resolved.toml` is its serialization
//! ([`ResolvedScenario::to_toml`]): a scenario file in which every value is written out (every
//! discipline parameter included), so that running it reproduces the run bit for bit.
//!
//! The file is always in the general form: `nodes` and `[[links]]` (a dumbbell becomes its
//! links, with the same names and order), each link with a full `reverse` table. Its flows are
//! written from the typed flows ([`flow_table`]): every key that applies to the flow's kind,
//! congestion control and application, in canonical units (`"1500ms"`, `"10Mbps"`, `"300B"`),
//! defaults included; a random start keeps its distribution. Random streams are named by link
//! directions and flows (their names, or their positions when unnamed), which the resolved file
//! keeps, so its draws are the same. `tests/scenario.rs` rebuilds the resolved file of every
//! bundled scenario and checks that it gives the same links and flows.

use crate::dist::DurationDist;
use crate::rate::LinkRate;
use crate::topology::{LinkConfig, Routes};
use crate::windows::WindowSpec;
use crate::world::{
    Arrivals, BuildError, IdleDist, OnOff, Sim, SizeDist, TcpApp, TcpSpec, UdpSpec, VideoSpec,
};
use aqmlab_core::{Ecn, SimDuration, SimTime};
use aqmlab_qdisc::{AnyConfig, Params, UniformSource, Written};
use aqmlab_tcp::{CcKind, TcpConfig};
use std::path::PathBuf;
use toml_edit::{value, Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, Value};

/// One link direction, resolved: its rate, delay, loss and jitter, and its discipline's
/// parameters, typed and checked.
#[derive(Clone, Debug)]
pub struct ResolvedDirection {
    /// Direction name (`NAME` or `NAME.rev`).
    pub name: String,
    /// Sending node.
    pub from: u32,
    /// Receiving node.
    pub to: u32,
    /// Rate over time.
    pub rate: LinkRate,
    /// The trace file the rate was read from (an absolute path), when `trace = "..."`.
    pub trace: Option<PathBuf>,
    /// Propagation delay.
    pub delay: SimDuration,
    /// Every parameter of the discipline, given or default, parsed and range-checked.
    pub params: Params,
    /// The discipline's configuration, built from `params`.
    pub qdisc: AnyConfig,
    /// Random loss probability.
    pub loss: f64,
    /// The per-packet jitter: as written (`"uniform(0ms, 1ms)"`) and parsed.
    pub jitter: Option<(String, DurationDist)>,
}

impl ResolvedDirection {
    /// The link direction the simulator runs, its discipline built with its own random stream
    /// (`link/NAME/qdisc` of `seed`).
    pub fn link_config(&self, seed: u64) -> LinkConfig {
        LinkConfig {
            name: self.name.clone(),
            from: self.from,
            to: self.to,
            rate: self.rate.clone(),
            delay: self.delay,
            qdisc: self.qdisc.clone().build(UniformSource::Rng(
                aqmlab_core::Xoshiro256pp::for_stream(seed, &format!("link/{}/qdisc", self.name)),
            )),
            loss: self.loss,
        }
    }
}

impl ResolvedDirection {
    /// The link direction as the emulator drives it (and as [`ResolvedScenario::build_sim`]
    /// puts it in the simulation): its discipline built, its losses and jitter with their own
    /// random streams of `seed`.
    pub fn link_parts(&self, seed: u64) -> crate::link::LinkParts {
        self.link_config(seed)
            .into_parts(seed, self.jitter.as_ref().map(|(_, d)| *d))
    }
}

/// A flow, resolved: what it is added to the simulation with.
#[derive(Clone, Debug)]
pub enum FlowPlan {
    /// A UDP source.
    Udp(UdpSpec),
    /// A TCP flow and its application, boxed (over 300 bytes, where a UDP source's is about
    /// 100: while a run is built, every flow's plan is held beside its state; issue 24).
    Tcp(Box<TcpSpec>),
}

/// A flow, resolved and checked (its route exists).
#[derive(Clone, Debug)]
pub struct ResolvedFlow {
    /// What it is added with.
    pub plan: FlowPlan,
    /// `start`: the time, or the distribution the plan's start was drawn from (from the flow's
    /// own stream of the seed, so the resolved file writes the distribution, not the draw).
    pub start: DurationDist,
    /// `dscp = N`: the DSCP its packets carry.
    pub dscp: Option<u8>,
}

/// `[output]`, resolved: the link directions (in link order) whose packets are logged and whose
/// discipline state is traced.
#[derive(Clone, Debug, Default)]
pub struct ResolvedOutput {
    /// CSV series rather than Parquet.
    pub csv: bool,
    /// Directions whose every packet is logged (the file's and `--packet-log`'s).
    pub packet_log: Vec<String>,
    /// Directions whose discipline's state variables are recorded.
    pub trace: Vec<String>,
    /// TCP flows (by index, ascending) whose sender state is sampled, each with its interval.
    pub trace_flows: Vec<(usize, SimDuration)>,
    /// Each flow's one-way delay distribution after the warm-up is measured
    /// ([`Sim::measure_owd`]).
    pub owd_distribution: bool,
    /// `flow_series`: which flows keep a time series.
    pub flow_series: FlowSeries,
}

/// `[output] flow_series`: which flows keep a time series (`flows.parquet`). A flow without
/// one counts nothing per bin and has no rows; its summary is the same.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum FlowSeries {
    /// `"auto"`: every flow's while the scenario has at most
    /// [`crate::scenario::SERIES_FLOWS`] flows, none above.
    #[default]
    Auto,
    /// `"all"`: every flow's, however many.
    All,
    /// `"none"`: no flow's.
    None,
    /// A list: these flows' (indices, ascending, each once).
    Flows(Vec<usize>),
}

impl FlowSeries {
    /// Whether flow `i` of a scenario of `n` flows keeps its time series.
    pub fn keeps(&self, i: usize, n: usize) -> bool {
        match self {
            FlowSeries::Auto => n <= crate::scenario::SERIES_FLOWS,
            FlowSeries::All => true,
            FlowSeries::None => false,
            FlowSeries::Flows(v) => v.binary_search(&i).is_ok(),
        }
    }

    /// How many flows of a scenario of `n` flows keep their time series.
    pub fn count(&self, n: usize) -> usize {
        match self {
            FlowSeries::Flows(v) => v.len(),
            _ if self.keeps(0, n) => n,
            _ => 0,
        }
    }
}

/// A scenario with every value resolved and checked: what the simulator and the emulator are
/// built from, and what `scenario.resolved.toml` writes.
#[derive(Clone, Debug)]
pub struct ResolvedScenario {
    /// Name (from the file, or the file stem).
    pub name: String,
    /// Free text.
    pub description: String,
    /// How long to simulate.
    pub duration: SimDuration,
    /// Master seed (after `--seed`).
    pub seed: u64,
    /// Time-series bin.
    pub bin: SimDuration,
    /// Node names, in order.
    pub nodes: Vec<String>,
    /// The link directions: each forward direction followed by its reverse.
    pub directions: Vec<ResolvedDirection>,
    /// Next hops over `directions`.
    pub routes: Routes,
    /// The flows, in `[[flows]]` order.
    pub flows: Vec<ResolvedFlow>,
    /// Measurement windows (the warm-up's first, when `warmup`).
    pub windows: Vec<WindowSpec>,
    /// The first window is the warm-up's.
    pub warmup: bool,
    /// `[output]`.
    pub output: ResolvedOutput,
    /// Something in the scenario draws random numbers, so the seed matters.
    pub random: bool,
    /// The file's discipline parameters a `--qdisc` swap dropped: `(link direction, NAME=VALUE)`.
    pub dropped_params: Vec<(String, String)>,
    /// Things the scenario may do but its author should know about, one line each.
    pub warnings: Vec<String>,
}

impl ResolvedScenario {
    /// The simulation of this scenario, ready to run: its links (disciplines built from their
    /// typed configurations), jitters, flows, packet logs and traces. Fails only on a
    /// `ResolvedScenario` not made by the resolver (one it would have refused).
    pub fn build_sim(&self) -> Result<Sim, BuildError> {
        self.check_ends_and_bin()?;
        let links = self
            .directions
            .iter()
            .map(|d| d.link_config(self.seed))
            .collect();
        let mut sim = Sim::with_routes(
            self.nodes.clone(),
            links,
            self.routes.clone(),
            self.bin,
            self.seed,
        );
        for d in &self.directions {
            if let Some((_, dist)) = &d.jitter {
                sim.set_jitter(&d.name, *dist);
            }
        }
        sim.reserve_flows(self.flows.len());
        for f in &self.flows {
            let idx = match &f.plan {
                FlowPlan::Udp(u) => sim.add_udp(u.clone()),
                FlowPlan::Tcp(t) => sim.add_tcp(TcpSpec::clone(t)),
            }?;
            if let Some(d) = f.dscp {
                sim.set_dscp(idx, d);
            }
        }
        for name in &self.output.packet_log {
            if !sim.log_packets(name) {
                return Err(BuildError::Invalid(format!(
                    "output.packet_log: no link direction named {name:?}"
                )));
            }
        }
        for name in &self.output.trace {
            if !sim.trace_state(name) {
                return Err(BuildError::Invalid(format!(
                    "output.trace: no link direction named {name:?}"
                )));
            }
        }
        for &(flow, every) in &self.output.trace_flows {
            sim.trace_flow_state(flow, every)
                .map_err(|e| BuildError::Invalid(format!("output.trace_flows: {e}")))?;
        }
        let n = self.flows.len();
        for i in (0..n).filter(|&i| !self.output.flow_series.keeps(i, n)) {
            sim.drop_flow_series(i);
        }
        if self.output.owd_distribution {
            // From the warm-up's end (its window is the first), else from the start.
            let from = match (self.warmup, self.windows.first()) {
                (true, Some(w)) => w.from,
                _ => SimTime::ZERO,
            };
            sim.measure_owd(from);
        }
        Ok(sim)
    }

    /// Refuses a link direction whose end is not one of the nodes, and a time-series bin of 0
    /// (which the resolver never makes).
    fn check_ends_and_bin(&self) -> Result<(), BuildError> {
        for d in &self.directions {
            for n in [d.from, d.to] {
                if n as usize >= self.nodes.len() {
                    return Err(BuildError::NoSuchNode {
                        link: d.name.clone(),
                        node: n,
                    });
                }
            }
        }
        if self.bin == SimDuration::ZERO {
            return Err(BuildError::Invalid(
                "the time-series bin must be > 0".into(),
            ));
        }
        Ok(())
    }

    /// The resolved scenario file (`scenario.resolved.toml`): this scenario, every value
    /// written out.
    pub fn to_toml(&self) -> String {
        resolved_toml(self)
    }
}

fn t(time: SimTime) -> String {
    (time - SimTime::ZERO).to_string()
}

fn direction_table(d: &ResolvedDirection) -> Table {
    let mut tb = Table::new();
    match (&d.rate, &d.trace) {
        (_, Some(p)) => {
            tb.insert("trace", value(p.display().to_string()));
        }
        (LinkRate::Constant(r), None) => {
            tb.insert("rate", value(r.to_string()));
        }
        (LinkRate::Steps(st), None) => {
            let mut a = Array::new();
            for (at, r) in st.steps() {
                let mut step = Array::new();
                step.push(t(*at));
                step.push(r.to_string());
                a.push(step);
            }
            tb.insert("schedule", value(a));
        }
        (LinkRate::Trace { .. }, None) => unreachable!("a trace rate keeps its file's path"),
    }
    tb.insert("delay", value(d.delay.to_string()));
    tb.insert("qdisc", value(d.params.kind()));
    if d.loss != 0.0 {
        tb.insert("loss", value(d.loss));
    }
    if let Some((j, _)) = &d.jitter {
        tb.insert("jitter", value(j.as_str()));
    }
    let mut params = InlineTable::new();
    // Each value in its type's TOML form (issue 20): booleans and numbers as themselves.
    for (k, v) in d.params.resolved_written() {
        params.insert(k, param_value(v));
    }
    tb.insert("params", value(params));
    tb
}

/// A discipline parameter's value in the resolved file, as the loader reads it back to the
/// same value (`discipline`): a boolean as a TOML boolean, a number as a TOML float (written
/// in its shortest form that parses to it), a whole number as a TOML integer (as text beyond
/// TOML's integers), anything else as its text.
fn param_value(w: Written<'_>) -> Value {
    match w {
        Written::Bool(b) => Value::from(b),
        Written::Number(x) => Value::from(x),
        Written::Integer(n) => match i64::try_from(n) {
            Ok(i) => Value::from(i),
            Err(_) => Value::from(n.to_string()),
        },
        Written::Text(t) => Value::from(t),
    }
}

/// A byte count as the loader reads it back (`"300B"`).
fn bytes(n: u64) -> Item {
    value(format!("{n}B"))
}

/// An f32 parameter as the f64 the loader reads and narrows back to it: the shortest form when
/// that narrows to the same value, else the f32's exact value.
fn f32_item(x: f32) -> Item {
    let short: f64 = x.to_string().parse().unwrap_or(f64::from(x));
    value(if short as f32 == x {
        short
    } else {
        f64::from(x)
    })
}

/// A count the loader reads as an integer key.
fn int(n: impl Into<i64>) -> Item {
    value(n.into())
}

/// One `[[flows]]` table of the resolved file: every key that applies to the flow (its kind,
/// congestion control and application), defaults written out, in canonical units; the loader
/// reads it back to the same [`ResolvedFlow`] (`tests/resolved.rs`).
pub fn flow_table(f: &ResolvedFlow, nodes: &[String]) -> Table {
    let mut tb = Table::new();
    let (kind, src, dst, name, stop) = match &f.plan {
        FlowPlan::Udp(u) => ("udp", u.src, u.dst, &u.name, u.stop),
        FlowPlan::Tcp(t) => ("tcp", t.src, t.dst, &t.name, t.stop),
    };
    tb.insert("kind", value(kind));
    if let Some(n) = name {
        tb.insert("name", value(n.as_str()));
    }
    tb.insert("from", value(nodes[src as usize].as_str()));
    tb.insert("to", value(nodes[dst as usize].as_str()));
    tb.insert("start", value(f.start.to_string()));
    if let Some(s) = stop {
        tb.insert("stop", value(t(s)));
    }
    if let Some(d) = f.dscp {
        tb.insert("dscp", int(d));
    }
    match &f.plan {
        FlowPlan::Udp(u) => {
            tb.insert("rate", value(u.rate.to_string()));
            tb.insert("size", int(u.size));
            on_off_keys(&mut tb, u.on_off.as_ref());
            let ecn = match u.ecn {
                Ecn::NotEct => "not_ect",
                Ecn::Ect0 => "ect0",
                Ecn::Ect1 => "ect1",
                Ecn::Ce => "ce",
            };
            tb.insert("ecn_codepoint", value(ecn));
        }
        FlowPlan::Tcp(tcp) => {
            tb.insert("cc", value(tcp.cfg.cc.kind.as_str()));
            app_keys(&mut tb, &tcp.app);
            tcp_keys(&mut tb, &tcp.cfg, tcp.syn_retries);
        }
    }
    tb
}

fn on_off_keys(tb: &mut Table, o: Option<&OnOff>) {
    if let Some(o) = o {
        tb.insert("on_time", value(o.mean_on.to_string()));
        tb.insert("off_time", value(o.mean_off.to_string()));
        if let Some(shape) = o.pareto_shape {
            tb.insert("onoff_shape", value(shape));
        }
    }
}

fn arrival_keys(tb: &mut Table, a: &Arrivals) {
    match *a {
        Arrivals::Poisson { per_s } => tb.insert("conns_per_s", value(per_s)),
        Arrivals::Periodic { interval } => tb.insert("interval", value(interval.to_string())),
    };
}

fn size_keys(tb: &mut Table, s: &SizeDist) {
    // Means are whole bytes: the loader reads them with units::parse_bytes.
    let mean = |m: f64| bytes(m as u64);
    match *s {
        SizeDist::Pareto { mean: m, shape } => {
            tb.insert("size_dist", value("pareto"));
            tb.insert("size_mean", mean(m));
            tb.insert("size_shape", value(shape));
        }
        SizeDist::Lognormal { mean: m, sigma } => {
            tb.insert("size_dist", value("lognormal"));
            tb.insert("size_mean", mean(m));
            tb.insert("size_sigma", value(sigma));
        }
        SizeDist::Constant { bytes: b } => {
            tb.insert("size_dist", value("constant"));
            tb.insert("size_mean", bytes(b));
        }
    }
}

/// `app` and the keys of that application.
fn app_keys(tb: &mut Table, app: &TcpApp) {
    tb.insert("app", value(app.name()));
    match app {
        TcpApp::Bulk => {}
        TcpApp::Finite { bytes: b } => {
            tb.insert("bytes", bytes(*b));
        }
        TcpApp::Web {
            arrivals,
            size,
            request_bytes,
        } => {
            tb.insert("model", value("simple"));
            arrival_keys(tb, arrivals);
            size_keys(tb, size);
            tb.insert("request_size", bytes(*request_bytes));
        }
        TcpApp::PackMime {
            conns_per_s,
            http11,
        } => {
            tb.insert("model", value("packmime"));
            tb.insert("conns_per_s", value(*conns_per_s));
            tb.insert("http", value(if *http11 { "1.1" } else { "1.0" }));
        }
        TcpApp::Repeat {
            size,
            idle,
            reuse,
            restart_after_idle,
        } => {
            size_keys(tb, size);
            idle_keys(tb, idle);
            tb.insert("reuse", value(*reuse));
            // Only a reused connection takes idle_restart (the loader refuses it otherwise).
            if *reuse {
                tb.insert("idle_restart", value(*restart_after_idle));
            }
        }
        TcpApp::OnOff {
            rate,
            write_bytes,
            periods,
            restart_after_idle,
        } => {
            tb.insert("rate", value(rate.to_string()));
            tb.insert("size", int(*write_bytes));
            on_off_keys(tb, Some(periods));
            tb.insert("idle_restart", value(*restart_after_idle));
        }
        TcpApp::Page {
            arrivals,
            objects,
            parallel,
            size,
            request_bytes,
        } => {
            arrival_keys(tb, arrivals);
            tb.insert("objects", int(*objects));
            tb.insert("parallel", int(*parallel));
            size_keys(tb, size);
            tb.insert("request_size", bytes(*request_bytes));
        }
        TcpApp::Video(v) => video_keys(tb, v),
    }
}

/// A repeated transfer's `idle` time between transfers and its `idle_dist`: a time (constant
/// or the mean of an exponential), or a uniform's `[lo, hi]`.
fn idle_keys(tb: &mut Table, idle: &IdleDist) {
    let (idle, dist) = match *idle {
        IdleDist::Constant(d) => (value(d.to_string()), "constant"),
        IdleDist::Uniform { lo, hi } => {
            let a: Array = [lo.to_string(), hi.to_string()].into_iter().collect();
            (value(a), "uniform")
        }
        IdleDist::Exponential { mean } => (value(mean.to_string()), "exponential"),
    };
    tb.insert("idle", idle);
    tb.insert("idle_dist", value(dist));
}

/// A video client's keys: its bitrate ladder, segment length, playout buffer, safety factor
/// and request size.
fn video_keys(tb: &mut Table, v: &VideoSpec) {
    let ladder: Array = v.ladder.iter().map(|r| r.to_string()).collect();
    tb.insert("ladder", value(ladder));
    tb.insert("segment", value(v.segment.to_string()));
    tb.insert("playout_buffer", value(v.buffer.to_string()));
    tb.insert("safety", value(v.safety));
    tb.insert("request_size", bytes(v.request_bytes));
}

/// The sender's keys, and those of its congestion control only (the loader refuses another
/// algorithm's parameters, and `recover_guard` but on classic Reno without SACK).
fn tcp_keys(tb: &mut Table, c: &TcpConfig, syn_retries: Option<u32>) {
    let d = |x: SimDuration| value(x.to_string());
    tb.insert("mss", int(c.mss));
    tb.insert("initial_cwnd", int(c.initial_cwnd_segments));
    if let Some(w) = c.max_window_segments {
        tb.insert("max_window", int(w));
    }
    if let Some(s) = c.initial_ssthresh {
        // Set in segments: a whole number of MSS.
        tb.insert("initial_ssthresh", value((s / u64::from(c.mss)) as i64));
    }
    tb.insert("delayed_ack", value(c.delayed_ack));
    tb.insert("delack_timeout", d(c.delack_timeout));
    tb.insert("sack", value(c.sack));
    tb.insert("ecn", value(c.ecn));
    tb.insert("accecn", value(c.accecn));
    tb.insert("handshake", value(c.handshake));
    if let Some(n) = syn_retries {
        tb.insert("syn_retries", int(n));
    }
    tb.insert("hystart", value(c.cc.hystart));
    tb.insert("min_rto", d(c.min_rto));
    tb.insert("initial_rto", d(c.initial_rto));
    tb.insert("max_rto", d(c.max_rto));
    tb.insert("dupack_threshold", int(c.dupack_threshold));
    tb.insert("prr", value(c.prr));
    tb.insert("recovery", value(if c.rack { "rack" } else { "rfc6675" }));
    tb.insert("rescue", value(c.rescue));
    if c.cc.kind == CcKind::Reno && !c.sack {
        tb.insert("recover_guard", value(c.recover_guard));
    }
    if matches!(c.cc.kind, CcKind::Tahoe | CcKind::Reno | CcKind::NewReno) {
        tb.insert("rto_ssthresh", value(c.rto_ssthresh.as_str()));
    }
    tb.insert("pacing", value(c.pacing));
    let cc = &c.cc;
    match cc.kind {
        CcKind::Cubic => {
            tb.insert("cubic_beta", value(cc.cubic.beta));
            tb.insert("cubic_c", value(cc.cubic.c));
            tb.insert("cubic_fast_convergence", value(cc.cubic.fast_convergence));
            tb.insert("cubic_reno_friendly", value(cc.cubic.reno_friendly));
            tb.insert("cubic_linux", value(cc.cubic.linux));
        }
        CcKind::Vegas => {
            tb.insert("vegas_alpha", int(cc.vegas.alpha));
            tb.insert("vegas_beta", int(cc.vegas.beta));
            tb.insert("vegas_gamma", int(cc.vegas.gamma));
        }
        CcKind::Ledbat => {
            let target = SimDuration::from_micros(u64::from(cc.ledbat.target_us));
            tb.insert("ledbat_target", d(target));
            tb.insert("ledbat_gain", f32_item(cc.ledbat.gain));
            tb.insert(
                "ledbat_allowed_increase",
                f32_item(cc.ledbat.allowed_increase),
            );
        }
        CcKind::Dctcp => {
            tb.insert("dctcp_g", value(cc.dctcp.g));
        }
        CcKind::Prague => {
            tb.insert("prague_ecn_fallback", int(cc.prague.ecn_fallback));
        }
        _ => {}
    }
}

fn names(v: &[String]) -> Array {
    v.iter().map(String::as_str).collect()
}

/// The resolved scenario file of `r` (in the simulation's link order: each forward direction
/// followed by its reverse).
fn resolved_toml(r: &ResolvedScenario) -> String {
    let mut doc = DocumentMut::new();
    let windows = scenario_keys(&mut doc, r);
    doc.insert("links", Item::ArrayOfTables(links_tables(r)));
    let mut text = doc.to_string();

    // The flows one table at a time, each written as the whole document would write it (a
    // table after the document's start has a blank line before its header): a document of
    // every flow's table took 2.3 kB per flow at once (issue 24).
    let mut one = DocumentMut::new();
    for f in &r.flows {
        let mut flows = ArrayOfTables::new();
        flows.push(flow_table(f, &r.nodes));
        one.insert("flows", Item::ArrayOfTables(flows));
        text.push('\n');
        text.push_str(&one.to_string());
    }

    let mut doc = DocumentMut::new();
    if !windows.is_empty() {
        doc.insert("windows", Item::ArrayOfTables(windows_tables(windows)));
    }
    doc.insert("output", Item::Table(output_table(&r.output)));
    text.push('\n');
    text.push_str(&doc.to_string());
    text
}

/// The scenario's own keys (`name`, `description`, `duration`, `seed`, `bin`, `warmup`,
/// `nodes`) put into `doc`; the windows other than the warm-up's, which the file writes as
/// `[[windows]]`.
fn scenario_keys<'a>(doc: &mut DocumentMut, r: &'a ResolvedScenario) -> &'a [WindowSpec] {
    doc.insert("name", value(r.name.as_str()));
    if !r.description.is_empty() {
        doc.insert("description", value(r.description.as_str()));
    }
    doc.insert("duration", value(r.duration.to_string()));
    // TOML integers are 64-bit signed: a seed above i64::MAX is written as a string of digits,
    // which the loader also reads.
    match i64::try_from(r.seed) {
        Ok(s) => doc.insert("seed", value(s)),
        Err(_) => doc.insert("seed", value(r.seed.to_string())),
    };
    doc.insert("bin", value(r.bin.to_string()));
    let mut windows = &r.windows[..];
    if r.warmup {
        doc.insert("warmup", value(t(windows[0].from)));
        windows = &windows[1..];
    }
    doc.insert("nodes", value(names(&r.nodes)));
    windows
}

/// The `[[links]]` of `r`: each pair of directions (forward, reverse) one link, the reverse
/// as its `reverse` table.
fn links_tables(r: &ResolvedScenario) -> ArrayOfTables {
    let mut links = ArrayOfTables::new();
    let mut it = r.directions.iter();
    while let (Some(fwd), Some(rev)) = (it.next(), it.next()) {
        let mut tb = Table::new();
        tb.insert("name", value(fwd.name.as_str()));
        tb.insert("from", value(r.nodes[fwd.from as usize].as_str()));
        tb.insert("to", value(r.nodes[fwd.to as usize].as_str()));
        for (k, v) in direction_table(fwd).iter() {
            tb.insert(k, v.clone());
        }
        tb.insert("reverse", Item::Table(direction_table(rev)));
        links.push(tb);
    }
    links
}

/// The `[[windows]]`: each window's name, start and end.
fn windows_tables(windows: &[WindowSpec]) -> ArrayOfTables {
    let mut ws = ArrayOfTables::new();
    for w in windows {
        let mut tb = Table::new();
        tb.insert("name", value(w.name.as_str()));
        tb.insert("from", value(t(w.from)));
        tb.insert("to", value(t(w.to)));
        ws.push(tb);
    }
    ws
}

/// The `[output]` table: the format, the logged and traced link directions, the traced flows
/// (each `{ flow, every }`), `owd_distribution` when on and `flow_series` unless `"auto"` (the
/// flows of a list by index).
fn output_table(o: &ResolvedOutput) -> Table {
    let mut output = Table::new();
    output.insert("format", value(if o.csv { "csv" } else { "parquet" }));
    output.insert("packet_log", value(names(&o.packet_log)));
    output.insert("trace", value(names(&o.trace)));
    if !o.trace_flows.is_empty() {
        let entries: Array = o
            .trace_flows
            .iter()
            .map(|&(flow, every)| {
                let mut tb = toml_edit::InlineTable::new();
                tb.insert("flow", (flow as i64).into());
                tb.insert("every", every.to_string().into());
                toml_edit::Value::InlineTable(tb)
            })
            .collect();
        output.insert("trace_flows", value(entries));
    }
    if o.owd_distribution {
        output.insert("owd_distribution", value(true));
    }
    match &o.flow_series {
        FlowSeries::Auto => {}
        FlowSeries::All => {
            output.insert("flow_series", value("all"));
        }
        FlowSeries::None => {
            output.insert("flow_series", value("none"));
        }
        FlowSeries::Flows(v) => {
            let a: Array = v.iter().map(|&i| i as i64).collect();
            output.insert("flow_series", value(a));
        }
    }
    output
}

#[cfg(test)]
mod tests;
