//! The applications: what the flows' sources do, and when.
//!
//! * UDP: a constant-bit-rate source, or an on/off one ([`OnOff`], ns-2's `Traffic/Pareto` and
//!   `Traffic/Exponential`).
//! * TCP ([`TcpApp`]): a bulk transfer; one finite transfer; transfers repeated after idle
//!   periods ([`TcpApp::Repeat`]); an on/off application writing at a rate during its on periods
//!   into one connection ([`TcpApp::OnOff`]); web request/response exchanges arriving as a
//!   Poisson process or periodically ([`TcpApp::Web`]); web pages of many objects over parallel
//!   connections ([`TcpApp::Page`], in `page`); adaptive video ([`TcpApp::Video`], in `video`).
//!
//! Every application draws from its flow's own random stream (`flow/<index or name>/app`), so
//! adding a flow changes no other flow's draws. This module holds the applications' types and
//! the engine's handlers of their events; the connections themselves are the engine's
//! (`open_conn`, `after_sender_activity`).

use super::video::{VideoSpec, VideoState};
use super::{Ev, FlowKind, Payload, Sim, LEG_OPEN};
use crate::event::Lane;
use crate::packmime::PackMime;
use crate::packmime::{Exchange, ThinkTimes};
use aqmlab_core::{Bitrate, FlowId, Packet, SimDuration, SimTime, Xoshiro256pp};
use aqmlab_tcp::Segment;

/// What a TCP flow's application does.
#[derive(Clone, Debug, PartialEq)]
pub enum TcpApp {
    /// An infinite transfer ("FTP").
    Bulk,
    /// One transfer of `bytes`, whose completion time is measured.
    Finite {
        /// Bytes to transfer.
        bytes: u64,
    },
    /// Web-like traffic: requests arrive at `dst` (the client), a Poisson process or
    /// periodically. For each, the client opens a fresh connection to `src` (the server): SYN,
    /// SYN-ACK, then a request of `request_bytes`; once the server has received the whole request
    /// it sends a response of random size back over the same connection (the second leg,
    /// already established).
    Web {
        /// When requests arrive.
        arrivals: Arrivals,
        /// Response size distribution.
        size: SizeDist,
        /// Request size in bytes (≥ 1).
        request_bytes: u64,
    },
    /// Web traffic as PackMime-HTTP generates it ([`crate::packmime`]): the same
    /// request/response exchanges as [`TcpApp::Web`], one per connection (with `http11`, several
    /// on some), with PackMime's connection gaps, request and response sizes, and server delay
    /// before each response.
    PackMime {
        /// New connections per second (PackMime's `rate`).
        conns_per_s: f64,
        /// HTTP/1.1 (ns-2's `use-http-1.1`): some connections are persistent and carry several
        /// exchanges ([`PackMime::http11_exchanges`]).
        http11: bool,
    },
    /// Transfers one after another, each followed by an idle period: a transfer of `size`
    /// bytes; once every byte is acknowledged, an idle period drawn from `idle`; then the next
    /// (the CoDel article's consumer-edge uploads, ns-2 scripts' repeated FTPs). Each transfer
    /// is measured as a finite one (`transfers_*`, `fct_*`).
    Repeat {
        /// Size of each transfer.
        size: SizeDist,
        /// Idle period after each transfer.
        idle: IdleDist,
        /// `false`: each transfer opens a fresh connection (handshake, initial window), as a
        /// client that connects per upload. `true`: one connection carries them all, as an
        /// ns-2 FTP agent sent again; the first transfer opens it and the later ones are
        /// written into it, measured from the write.
        reuse: bool,
        /// With `reuse`: RFC 5681 §4.1's restart window after an idle period longer than the
        /// RTO (see [`aqmlab_tcp::TcpSender::write`]).
        restart_after_idle: bool,
    },
    /// An on/off application over one TCP connection: in bursts it writes `write_bytes` into
    /// the connection at `rate` (one write every `write_bytes·8/rate`); between bursts (off
    /// periods) it writes nothing (ns-2's `Application/Traffic/Pareto` over a TCP agent; bursts
    /// as [`OnOff`] says).
    /// TCP sends what was written as its window allows. No transfers are counted.
    OnOff {
        /// Writing rate during on periods.
        rate: Bitrate,
        /// Bytes per write (≥ 1).
        write_bytes: u32,
        /// On and off periods.
        periods: OnOff,
        /// RFC 5681 §4.1's restart window after an idle period longer than the RTO.
        restart_after_idle: bool,
    },
    /// Web pages (RFC 7928 §7.2, `world::page`): page requests arrive at `dst` (the client)
    /// as `arrivals`; for each, the client opens `parallel` persistent connections to `src` at
    /// once and fetches the page's `objects` objects over them, each a request of
    /// `request_bytes` and a response drawn from `size`. Each object is a transfer; the page's
    /// completion time is measured (`pages_*`, `page_time_ns`).
    Page {
        /// When page requests arrive.
        arrivals: Arrivals,
        /// Objects per page (≥ 1).
        objects: u32,
        /// Parallel connections per page (≥ 1).
        parallel: u32,
        /// Object size distribution.
        size: SizeDist,
        /// Request size in bytes (≥ 1).
        request_bytes: u64,
    },
    /// Adaptive video streaming over one persistent connection from `src` (the server) to
    /// `dst` (the client): segments at rates chosen from the measured throughput
    /// (`world::video`).
    Video(VideoSpec),
}

impl TcpApp {
    /// Whether the application draws anything from its random stream (so that the seed can
    /// change a run): Poisson arrivals, random sizes or periods.
    pub fn draws_at_random(&self) -> bool {
        match self {
            TcpApp::Bulk | TcpApp::Finite { .. } => false,
            TcpApp::Web { arrivals, size, .. } | TcpApp::Page { arrivals, size, .. } => {
                !matches!(arrivals, Arrivals::Periodic { .. })
                    || !matches!(size, SizeDist::Constant { .. })
            }
            TcpApp::PackMime { .. } | TcpApp::OnOff { .. } => true,
            TcpApp::Video(_) => false,
            TcpApp::Repeat { size, idle, .. } => {
                !matches!(size, SizeDist::Constant { .. }) || !matches!(idle, IdleDist::Constant(_))
            }
        }
    }

    /// The application's name in reports.
    pub fn name(&self) -> &'static str {
        match self {
            TcpApp::Bulk => "bulk",
            TcpApp::Finite { .. } => "finite",
            TcpApp::Web { .. } | TcpApp::PackMime { .. } => "web",
            TcpApp::Repeat { .. } => "repeat",
            TcpApp::OnOff { .. } => "onoff",
            TcpApp::Page { .. } => "page",
            TcpApp::Video(_) => "video",
        }
    }

    /// Checks the parameters; the error says what is wrong.
    pub(super) fn validate(&self) -> Result<(), String> {
        match self {
            TcpApp::Bulk => Ok(()),
            TcpApp::Finite { bytes } if *bytes == 0 => {
                Err("a finite transfer needs bytes > 0".into())
            }
            TcpApp::Finite { .. } => Ok(()),
            TcpApp::Web {
                arrivals,
                size,
                request_bytes,
            } => {
                if *request_bytes == 0 {
                    return Err("web requests need request_bytes > 0".into());
                }
                match *arrivals {
                    Arrivals::Poisson { per_s } if !(per_s.is_finite() && per_s > 0.0) => {
                        return Err("web traffic needs a rate > 0 connections/s".into())
                    }
                    Arrivals::Periodic { interval } if interval == SimDuration::ZERO => {
                        return Err("periodic requests need an interval > 0".into())
                    }
                    _ => {}
                }
                size.validate("response sizes")
            }
            TcpApp::PackMime { conns_per_s, .. } => {
                if conns_per_s.is_finite() && *conns_per_s > 0.0 {
                    Ok(())
                } else {
                    Err("web traffic needs a rate > 0 connections/s".into())
                }
            }
            TcpApp::Repeat { size, idle, .. } => {
                size.validate("transfer sizes")?;
                idle.validate()
            }
            TcpApp::OnOff {
                rate,
                write_bytes,
                periods,
                ..
            } => {
                if rate.as_bps() == 0 || *write_bytes == 0 {
                    return Err(
                        "an on/off application needs a rate > 0 and writes of ≥ 1 byte".into(),
                    );
                }
                periods.validate()
            }
            TcpApp::Page {
                arrivals,
                objects,
                parallel,
                size,
                request_bytes,
            } => {
                if *objects == 0 || *parallel == 0 || *request_bytes == 0 {
                    return Err(
                        "web pages need objects ≥ 1, parallel ≥ 1 and request_bytes ≥ 1".into(),
                    );
                }
                TcpApp::Web {
                    arrivals: *arrivals,
                    size: *size,
                    request_bytes: *request_bytes,
                }
                .validate()
            }
            TcpApp::Video(v) => v.validate(),
        }
    }
}

/// When web requests arrive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arrivals {
    /// A Poisson process of `per_s` requests per second (exponential gaps).
    Poisson {
        /// Mean rate, requests per second.
        per_s: f64,
    },
    /// One request every `interval`, the first at the flow's start.
    Periodic {
        /// Time between requests.
        interval: SimDuration,
    },
}

/// A distribution of transfer sizes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeDist {
    /// Pareto with the given mean (bytes) and tail index `shape` (> 1).
    Pareto {
        /// Mean size in bytes.
        mean: f64,
        /// Tail index.
        shape: f64,
    },
    /// Lognormal with the given mean (bytes) and `sigma` of the underlying normal.
    Lognormal {
        /// Mean size in bytes.
        mean: f64,
        /// Standard deviation of ln(size).
        sigma: f64,
    },
    /// Always `bytes` (no random draw).
    Constant {
        /// The size in bytes.
        bytes: u64,
    },
}

/// The largest `size_sigma` a lognormal size distribution may have: 3, and less when the mean is
/// small, so that the median size `mean·exp(−σ²/2)` is at least 1 byte, i.e. σ ≤ √(2·ln mean).
///
/// * Above √(2·ln mean) most draws fall under 1 byte and are clamped up to it, so the
///   configured mean is not kept (issue 20: σ = 1000 made a web flow's transfers 1 byte each).
/// * Above 3 the mean is carried by rare huge transfers: the sizes' coefficient of variation
///   √(exp(σ²) − 1) is 90 at σ = 3, so 10^4 transfers show their mean within ±0.9 % (one
///   standard error), but 2981 at σ = 4 (±30 %): a run would not show the mean it was given.
pub fn max_lognormal_sigma(mean: f64) -> f64 {
    let median_bound = if mean > 1.0 {
        (2.0 * aqmlab_core::math::ln(mean)).sqrt()
    } else {
        0.0
    };
    median_bound.min(MAX_LOGNORMAL_SIGMA)
}

/// The absolute bound of [`max_lognormal_sigma`].
pub const MAX_LOGNORMAL_SIGMA: f64 = 3.0;

impl SizeDist {
    pub(super) fn sample(&self, rng: &mut Xoshiro256pp) -> u64 {
        let x = match *self {
            SizeDist::Pareto { mean, shape } => rng.pareto(mean, shape),
            SizeDist::Lognormal { mean, sigma } => {
                rng.lognormal(aqmlab_core::math::ln(mean) - sigma * sigma / 2.0, sigma)
            }
            SizeDist::Constant { bytes } => return bytes.max(1),
        };
        x.round().clamp(1.0, 1e12) as u64
    }

    fn validate(&self, what: &str) -> Result<(), String> {
        let ok = match *self {
            SizeDist::Pareto { mean, shape } => mean >= 1.0 && shape > 1.0,
            SizeDist::Lognormal { mean, sigma } => {
                mean >= 1.0 && sigma >= 0.0 && sigma <= max_lognormal_sigma(mean)
            }
            SizeDist::Constant { bytes } => bytes >= 1,
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "{what} need a mean ≥ 1 byte (and a Pareto shape > 1, a lognormal sigma within max_lognormal_sigma)"
            ))
        }
    }
}

/// A distribution of idle periods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IdleDist {
    /// Always the same.
    Constant(SimDuration),
    /// Uniform in `[lo, hi)`, to the nanosecond.
    Uniform {
        /// Shortest.
        lo: SimDuration,
        /// Longest (exclusive; equal to `lo` for a constant).
        hi: SimDuration,
    },
    /// Exponential with this mean.
    Exponential {
        /// Mean.
        mean: SimDuration,
    },
}

impl IdleDist {
    /// The mean idle period.
    pub fn mean(&self) -> SimDuration {
        match *self {
            IdleDist::Constant(d) => d,
            IdleDist::Uniform { lo, hi } => {
                SimDuration::from_nanos(lo.as_nanos() + (hi.as_nanos() - lo.as_nanos()) / 2)
            }
            IdleDist::Exponential { mean } => mean,
        }
    }

    fn sample(&self, rng: &mut Xoshiro256pp) -> SimDuration {
        match *self {
            IdleDist::Constant(d) => d,
            IdleDist::Uniform { lo, hi } => {
                let span = (hi.as_nanos() - lo.as_nanos()) as f64;
                let x = (rng.next_f64() * span) as u64;
                SimDuration::from_nanos(lo.as_nanos() + x.min(hi.as_nanos() - lo.as_nanos()))
            }
            IdleDist::Exponential { mean } => {
                SimDuration::from_secs_f64(rng.exponential(mean.as_secs_f64()))
            }
        }
    }

    fn validate(&self) -> Result<(), String> {
        match *self {
            IdleDist::Uniform { lo, hi } if hi < lo => {
                Err("an idle range needs its low end ≤ its high end".into())
            }
            _ => Ok(()),
        }
    }
}

/// On/off periods of a source, as ns-2.35's `Application/Traffic/Pareto` (tools/pareto.cc,
/// `POO_Traffic::next_interval`) and `Application/Traffic/Exponential` (tools/expoo.cc,
/// `EXPOO_Traffic::next_interval`) make them.
///
/// ns-2 does not draw an on *duration*: with `interval` = size·8/rate, each burst is a number
/// of packets drawn with mean `mean_on / interval` (Pareto with the same shape, or
/// exponential) and rounded, `max(1, int(x + 0.5))`; the burst's packets go `interval` apart,
/// and the gap after its last packet is `interval` plus an off period (mean `mean_off`).
/// The source starts with that gap too: `TrafficGenerator::start` (tools/trafgen.cc) calls
/// `next_interval` before the first packet, so the first packet goes `interval` plus an off
/// period after the start. Each burst draws its packet count first, then the off period
/// before it (ns-2's order); the first burst is drawn at the start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OnOff {
    /// Mean on (burst) period: the mean burst is `mean_on / interval` packets.
    pub mean_on: SimDuration,
    /// Mean off (idle) period.
    pub mean_off: SimDuration,
    /// Pareto tail index (> 1) of the bursts and the off periods; `None` for exponential ones.
    pub pareto_shape: Option<f64>,
}

impl OnOff {
    fn draw(&self, mean: f64, rng: &mut Xoshiro256pp) -> f64 {
        match self.pareto_shape {
            // ns-2's `Random::pareto(mean·(shape−1)/shape, shape)`: the same scale.
            Some(shape) => rng.pareto(mean, shape),
            None => rng.exponential(mean),
        }
    }

    /// The next burst of a source sending `size`-byte packets (writes) at `rate`: its packet
    /// count (≥ 1) and the off period before it, drawn in that order (ns-2.35's
    /// `POO_Traffic::next_interval` and `EXPOO_Traffic::next_interval` when `rem_` is 0).
    pub(super) fn next_burst(
        &self,
        size: u32,
        rate: Bitrate,
        rng: &mut Xoshiro256pp,
    ) -> (u64, SimDuration) {
        let interval = size as f64 * 8.0 / rate.as_bps() as f64;
        let burst = self.draw(self.mean_on.as_secs_f64() / interval, rng);
        // `int(x + .5)`, at least 1 (a float-to-integer cast saturates).
        let n = ((burst + 0.5) as u64).max(1);
        let off = SimDuration::from_secs_f64(self.draw(self.mean_off.as_secs_f64(), rng));
        (n, off)
    }

    pub(super) fn validate(&self) -> Result<(), String> {
        if self.mean_on == SimDuration::ZERO
            || self
                .pareto_shape
                .is_some_and(|a| !(a > 1.0 && a.is_finite()))
        {
            return Err("an on/off source needs a mean on time > 0 and a Pareto shape > 1".into());
        }
        Ok(())
    }
}

/// A TCP application's running state (in its flow).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AppState {
    /// The connection the application keeps open (slot, generation): a reused connection of
    /// repeated transfers, or an on/off application's.
    pub(super) conn: Option<(u32, u32)>,
    /// On/off: writes left in the current burst, counting the next; 0 before the start.
    pub(super) burst_left: u64,
    /// On/off: the current burst's first write, and writes since.
    pub(super) epoch: (SimTime, u64),
    /// PackMime HTTP/1.1: the flow's think-time parameters, drawn at its first connection.
    pub(super) think: Option<ThinkTimes>,
    /// Adaptive video: the playout.
    pub(super) video: VideoState,
}

/// What a persistent web connection carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WebKind {
    /// PackMime HTTP/1.1: a server delay before each response, think times between requests.
    PackMime,
    /// Objects of web page (slot in `Sim::pages`): no server delay, no think time.
    Page(u32),
    /// Adaptive video segments, each exchange added when the one before it has arrived.
    Video,
}

/// The exchanges of a persistent web connection (PackMime's HTTP/1.1) and how far they are.
#[derive(Debug)]
pub(super) struct WebMore {
    /// The exchanges, in order (the first is the connection's `web`).
    pub(super) ex: Vec<Exchange>,
    /// Request bytes up to and including each exchange's (the server's receiver counts them).
    pub(super) req_end: Vec<u64>,
    /// Response bytes up to and including each exchange's.
    pub(super) rsp_end: Vec<u64>,
    /// When each request was sent.
    pub(super) started: Vec<SimTime>,
    /// Requests the client has sent.
    pub(super) asked: usize,
    /// Responses the server has started.
    pub(super) answered: usize,
    /// Responses the client has wholly received.
    pub(super) received: usize,
    /// Responses wholly acknowledged to the server (the exchanges completed).
    pub(super) completed: usize,
    /// What the connection carries.
    pub(super) kind: WebKind,
}

impl WebMore {
    pub(super) fn new(ex: &[Exchange], now: SimTime, kind: WebKind) -> WebMore {
        let mut sum = (0, 0);
        let (req_end, rsp_end) = ex
            .iter()
            .map(|e| {
                sum = (sum.0 + e.request, sum.1 + e.response);
                sum
            })
            .unzip();
        let mut started = vec![SimTime::ZERO; ex.len()];
        started[0] = now;
        WebMore {
            ex: ex.to_vec(),
            req_end,
            rsp_end,
            started,
            asked: 1,
            answered: 0,
            received: 0,
            completed: 0,
            kind,
        }
    }

    /// Adds an exchange after the last.
    pub(super) fn push(&mut self, e: Exchange) {
        let (req, rsp) = (
            self.req_end.last().copied().unwrap_or(0),
            self.rsp_end.last().copied().unwrap_or(0),
        );
        self.req_end.push(req + e.request);
        self.rsp_end.push(rsp + e.response);
        self.started.push(SimTime::ZERO);
        self.ex.push(e);
    }
}

/// When packet `k` (from 0) of a source sending `size`-byte packets at `rate` since `epoch`
/// goes: `epoch + ceil(k·size·8·1e9 / rate)` ns. Computed from the epoch rather than by adding a
/// rounded interval per packet, so the source keeps its rate on average when the interval is
/// not a whole number of nanoseconds (20-byte packets at 1 Tb/s go 6 or 7 to a nanosecond).
fn udp_send_time(epoch: SimTime, k: u64, size: u32, rate: Bitrate) -> SimTime {
    let ns = (k as u128 * size as u128 * 8_000_000_000).div_ceil(rate.as_bps() as u128);
    epoch + SimDuration::from_nanos(ns.min(u64::MAX as u128) as u64)
}

impl Sim {
    pub(super) fn on_udp_send(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        let FlowKind::Udp {
            spec,
            next_seq,
            interval,
            epoch,
            burst_left,
            rng,
        } = &mut fl.kind
        else {
            unreachable!("UdpSend for a TCP flow")
        };
        if spec.stop.is_some_and(|s| now >= s) {
            return;
        }
        if let Some(o) = spec.on_off.filter(|_| *burst_left == 0) {
            // The start of an on/off source: the first burst, after `interval` and an off
            // period (ns-2.35's `TrafficGenerator::start`, see [`OnOff`]).
            let (n, off) = o.next_burst(spec.size, spec.rate, rng);
            let first = udp_send_time(now, 1, spec.size, spec.rate) + off;
            (*burst_left, *epoch) = (n, (first, 0));
            self.events.push(first, Ev::UdpSend(f));
            return;
        }
        let seq = *next_seq;
        *next_seq += 1;
        fl.m.sent_pkts += 1;
        fl.m.sent_bytes += spec.size as u64;
        let (src, dst, size, ecn, dscp) = (spec.src, spec.dst, spec.size, spec.ecn, fl.dscp);
        epoch.1 += 1;
        let mut next = match interval {
            Some(i) => now + *i,
            None => udp_send_time(epoch.0, epoch.1, size, spec.rate),
        };
        if let Some(o) = spec.on_off {
            *burst_left -= 1;
            if *burst_left == 0 {
                // The burst's last packet: the next burst after `interval` and an off period.
                let (n, off) = o.next_burst(size, spec.rate, rng);
                next += off;
                (*burst_left, *epoch) = (n, (next, 0));
            }
        }
        self.events.push(next, Ev::UdpSend(f));
        fl.m.receiver.sent_pkts += 1;
        let slot = self.new_payload(Payload::Udp { seq });
        let mut p = Packet::new(super::packet_id(slot, dst), size, FlowId(f));
        p.ecn = ecn;
        // Hosts are node numbers (CAKE's host isolation); DSCP is the flow's.
        (p.src_host, p.dst_host, p.dscp) = (src as u16, dst as u16, dscp);
        self.forward(src, p);
    }

    pub(super) fn on_tcp_start(&mut self, f: u32) {
        let FlowKind::Tcp { spec, .. } = &self.flows[f as usize].kind else {
            unreachable!("TcpStart for a UDP flow")
        };
        match spec.app {
            TcpApp::Bulk => {
                self.open_conn(f, None, None, false);
            }
            TcpApp::Finite { bytes } => {
                self.open_conn(f, Some(bytes), None, false);
            }
            TcpApp::Web { .. } | TcpApp::PackMime { .. } => self.on_web_arrival(f),
            TcpApp::Page { .. } => self.on_page_arrival(f),
            TcpApp::Video(_) => self.open_video(f),
            TcpApp::Repeat { .. } | TcpApp::OnOff { .. } => self.on_app_next(f),
        }
    }

    /// A web request arrives now: the client opens a connection for it, and the next one is
    /// scheduled.
    pub(super) fn on_web_arrival(&mut self, f: u32) {
        if let FlowKind::Tcp { spec, .. } = &self.flows[f as usize].kind {
            if matches!(spec.app, TcpApp::Page { .. }) {
                return self.on_page_arrival(f);
            }
        }
        let now = self.now;
        let FlowKind::Tcp { spec, rng, app } = &mut self.flows[f as usize].kind else {
            unreachable!()
        };
        if spec.stop.is_some_and(|s| now >= s) {
            return;
        }
        // The request's and the response's sizes, the server's delay and the gap to the next;
        // `plan` holds a persistent connection's exchanges.
        let mut plan = std::mem::take(&mut self.web_plan);
        plan.clear();
        let (request, response, delay, gap) = match spec.app {
            TcpApp::Web {
                arrivals,
                size,
                request_bytes,
            } => {
                let bytes = size.sample(rng);
                let gap = match arrivals {
                    Arrivals::Poisson { per_s } => {
                        SimDuration::from_secs_f64(rng.exponential(1.0 / per_s))
                    }
                    Arrivals::Periodic { interval } => interval,
                };
                (request_bytes, bytes, SimDuration::ZERO, gap)
            }
            TcpApp::PackMime {
                conns_per_s,
                http11,
            } => {
                let (request, response) = if http11 {
                    let think = *app.think.get_or_insert_with(|| ThinkTimes::draw(rng));
                    PackMime::http11_exchanges(rng, &think, &mut plan);
                    (plan[0].request, plan[0].response)
                } else {
                    (PackMime::request_size(rng), PackMime::response_size(rng))
                };
                let delay = SimDuration::from_secs_f64(PackMime::server_delay(rng));
                let gap = SimDuration::from_secs_f64(PackMime::new(conns_per_s).gap(rng));
                (request, response, delay, gap)
            }
            _ => unreachable!("WebArrival for a non-web flow"),
        };
        // At least 1 ns between requests, so simulated time always advances.
        let gap = gap.max(SimDuration::from_nanos(1));
        self.events
            .push_in(Lane::Timers, now + gap, Ev::WebArrival(f));
        let (c, _) = self.open_conn(f, Some(request), Some(response), false);
        if let Some(conn) = self.conns.try_get_mut(c) {
            conn.reply_delay = delay;
            if plan.len() > 1 {
                // A persistent connection: the server draws a delay per request instead.
                conn.web_more = Some(Box::new(WebMore::new(&plan, now, WebKind::PackMime)));
            }
        }
        self.web_plan = plan;
    }

    /// The next step of a repeating or on/off application: a repeated transfer starts, or an
    /// on/off application writes (or its on period ends).
    pub(super) fn on_app_next(&mut self, f: u32) {
        let now = self.now;
        let FlowKind::Tcp { spec, rng, app } = &mut self.flows[f as usize].kind else {
            unreachable!("AppNext for a UDP flow")
        };
        if spec.stop.is_some_and(|s| now >= s) {
            return;
        }
        match spec.app {
            TcpApp::Repeat {
                size,
                reuse,
                restart_after_idle,
                ..
            } => {
                let bytes = size.sample(rng);
                let open = app.conn;
                match open.filter(|&(c, gen)| self.conn_alive(c, gen)) {
                    Some((c, _)) if reuse => {
                        let conn = self.conns.get_mut(c);
                        conn.start = now;
                        conn.measured = true;
                        self.flows[f as usize].m.transfers_started += 1;
                        self.write_conn(c, bytes, restart_after_idle);
                    }
                    _ => {
                        let c = self.open_conn(f, Some(bytes), None, reuse);
                        if reuse {
                            self.app_state(f).conn = Some(c);
                        }
                    }
                }
            }
            TcpApp::OnOff {
                rate,
                write_bytes,
                periods,
                restart_after_idle,
            } => {
                if app.burst_left == 0 {
                    // The start: the first burst, after `interval` and an off period (ns-2.35's
                    // `TrafficGenerator::start`, see [`OnOff`]).
                    let (n, off) = periods.next_burst(write_bytes, rate, rng);
                    let first = udp_send_time(now, 1, write_bytes, rate) + off;
                    (app.burst_left, app.epoch) = (n, (first, 0));
                    self.events.push_in(Lane::Timers, first, Ev::AppNext(f));
                    return;
                }
                app.epoch.1 += 1;
                let mut next = udp_send_time(app.epoch.0, app.epoch.1, write_bytes, rate);
                app.burst_left -= 1;
                if app.burst_left == 0 {
                    // The burst's last write: the next burst after `interval` and an off period.
                    let (n, off) = periods.next_burst(write_bytes, rate, rng);
                    next += off;
                    (app.burst_left, app.epoch) = (n, (next, 0));
                }
                self.events.push_in(Lane::Timers, next, Ev::AppNext(f));
                let open = app.conn;
                let c = match open.filter(|&(c, gen)| self.conn_alive(c, gen)) {
                    Some((c, _)) => c,
                    None => {
                        // The connection opens with nothing to send; the first write follows.
                        let c = self.open_conn(f, Some(0), None, true);
                        self.app_state(f).conn = Some(c);
                        c.0
                    }
                };
                self.write_conn(c, write_bytes as u64, restart_after_idle);
            }
            TcpApp::Bulk
            | TcpApp::Finite { .. }
            | TcpApp::Web { .. }
            | TcpApp::PackMime { .. }
            | TcpApp::Page { .. }
            | TcpApp::Video(_) => {
                unreachable!("AppNext for an application without steps")
            }
        }
    }

    /// A transfer of flow `f` ended now (completed, or its connection never opened): a
    /// repeating application schedules its next transfer after an idle period.
    pub(super) fn on_transfer_end(&mut self, f: u32) {
        let now = self.now;
        let FlowKind::Tcp { spec, rng, .. } = &mut self.flows[f as usize].kind else {
            return;
        };
        if let TcpApp::Repeat { idle, .. } = spec.app {
            let at = now + idle.sample(rng);
            if spec.stop.is_none_or(|s| at < s) {
                self.events.push_in(Lane::Timers, at, Ev::AppNext(f));
            }
        }
    }

    fn app_state(&mut self, f: u32) -> &mut AppState {
        match &mut self.flows[f as usize].kind {
            FlowKind::Tcp { app, .. } => app,
            FlowKind::Udp { .. } => unreachable!("a TCP flow"),
        }
    }

    fn conn_alive(&self, c: u32, gen: u32) -> bool {
        self.conns.try_get(c).is_some_and(|x| x.gen == gen)
    }

    /// The application writes `bytes` into the open leg of connection `c`.
    fn write_conn(&mut self, c: u32, bytes: u64, restart_after_idle: bool) {
        self.write_leg(c, LEG_OPEN, bytes, restart_after_idle);
    }

    /// The sender of leg `leg` of connection `c` gets `bytes` more to send.
    pub(super) fn write_leg(&mut self, c: u32, leg: u8, bytes: u64, restart_after_idle: bool) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.segs);
        self.leg_mut(c, leg)
            .sender
            .write(now, bytes, restart_after_idle, &mut out);
        self.emit(c, leg, true, &mut out);
        self.segs = out;
        self.after_sender_activity(c, Some((leg, 0)));
    }

    /// A segment of persistent web connection `conn` reached a receiver, which now has `total`
    /// bytes in order and answered with `out` (sent here). The server (leg [`LEG_OPEN`]'s
    /// receiver) schedules its answer once a whole request is in, after a server delay; the
    /// client (leg `LEG_REPLY`'s) asks again a think time after a whole response is in.
    pub(super) fn persistent_web_delivered(
        &mut self,
        conn: u32,
        leg: u8,
        total: u64,
        out: &mut Vec<Segment>,
    ) {
        let now = self.now;
        let c = self.conns.get_mut(conn);
        let (gen, flow) = (c.gen, c.flow);
        let w = c.web_more.as_deref_mut().expect("a persistent connection");
        if leg == LEG_OPEN {
            if !c.reply_scheduled && w.answered < w.asked && total >= w.req_end[w.answered] {
                c.reply_scheduled = true;
                let FlowKind::Tcp { rng, .. } = &mut self.flows[flow as usize].kind else {
                    unreachable!()
                };
                // Only PackMime's servers think before they answer.
                let delay = if w.kind == WebKind::PackMime {
                    SimDuration::from_secs_f64(PackMime::server_delay(rng))
                } else {
                    SimDuration::ZERO
                };
                self.events
                    .push_in(Lane::Timers, now + delay, Ev::WebReply { conn, gen });
            }
        } else {
            while w.received < w.answered && total >= w.rsp_end[w.received] {
                w.received += 1;
                if w.kind == WebKind::Video {
                    // The next segment's rate and when to ask for it (one segment at a time).
                    self.video_segment_in(conn, gen);
                    break;
                }
                if w.received < w.ex.len() {
                    let gap = SimDuration::from_secs_f64(w.ex[w.received].gap.min(1e6));
                    self.events
                        .push_in(Lane::Timers, now + gap, Ev::WebNext { conn, gen });
                }
            }
        }
        self.emit(conn, leg, false, out);
        self.arm_timers(conn, Some((leg, 1)));
    }

    /// The client of persistent web connection `conn` sends its next request.
    pub(super) fn on_web_next(&mut self, conn: u32, gen: u32) {
        let now = self.now;
        let Some(c) = self.conns.try_get_mut(conn).filter(|c| c.gen == gen) else {
            return;
        };
        let flow = c.flow;
        let w = c.web_more.as_deref_mut().expect("a persistent connection");
        let k = w.asked;
        w.asked += 1;
        w.started[k] = now;
        let bytes = w.ex[k].request;
        self.flows[flow as usize].m.transfers_started += 1;
        self.write_leg(conn, LEG_OPEN, bytes, true);
    }
}
