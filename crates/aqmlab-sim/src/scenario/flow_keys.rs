//! The keys of a `[[flows]]` table, declared once each ([`FLOW_KEYS`]): its name, its raw type
//! (the field of [`RawFlow`] it is read into), where it applies (kind, application, congestion
//! control) and what it means. The loader's "unknown key" error (serde's, from the struct), its
//! "this key does not belong here" errors ([`wrong_kind`], [`wrong_cc`], [`wrong_app`]) and
//! `docs/flow-keys.md` ([`flow_keys_markdown`]) all read this one table, as a discipline's
//! parameters are read from its parameter table (`aqmlab_qdisc::params`).

use super::raw_units::{AnyTime, AtSpan, Bytes, FlowRate, FlowTime, Idle, Time, TimeDist};
use super::S;
use aqmlab_tcp::CcKind;
use serde::Deserialize;
use std::ops::Range;
use toml::Spanned;

/// Where a flow key applies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Applies {
    /// Every flow.
    Any,
    /// `kind = "udp"` only.
    Udp,
    /// `kind = "tcp"`, any application and congestion control.
    Tcp,
    /// UDP flows, and TCP flows with one of these applications.
    UdpOrApp(&'static [&'static str]),
    /// TCP flows with one of these applications (`app`, default `bulk`).
    App(&'static [&'static str]),
    /// TCP flows with this congestion control.
    Cc(CcKind),
}

impl Applies {
    /// True for a key only a tcp flow takes.
    pub fn tcp_only(self) -> bool {
        matches!(self, Applies::Tcp | Applies::App(_) | Applies::Cc(_))
    }

    /// Where it applies, as the errors and the docs say it.
    pub fn describe(self) -> String {
        match self {
            Applies::Any => "every flow".into(),
            Applies::Udp => "udp flows".into(),
            Applies::Tcp => "tcp flows".into(),
            Applies::UdpOrApp(apps) => format!("udp flows and {}", apps_list(apps)),
            Applies::App(apps) => apps_list(apps),
            Applies::Cc(kind) => format!("cc = \"{}\"", kind.as_str()),
        }
    }
}

/// `app = "web"`, `app = "web" and "page"`, `app = "web", "page" and "video"`.
fn apps_list(apps: &[&str]) -> String {
    let quoted: Vec<String> = apps.iter().map(|a| format!("\"{a}\"")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => format!("app = {last}"),
        Some((last, rest)) => format!("app = {} and {last}", rest.join(", ")),
    }
}

/// One `[[flows]]` key.
#[derive(Clone, Copy, Debug)]
pub struct FlowKey {
    /// The key.
    pub name: &'static str,
    /// Where it applies.
    pub applies: Applies,
    /// Refused where it does not apply by its own check, with a message that says more (e.g.
    /// `bytes` on a bulk flow: "a bulk transfer is infinite: use app = \"finite\""), rather
    /// than by the table's (`wrong_app`, `wrong_cc`); a udp flow refuses it as any TCP key.
    pub own_check: bool,
    /// What it sets.
    pub doc: &'static str,
}

/// Where a key was given: `None` absent; `Some(span)` given, at `span` when the raw value
/// keeps one (booleans do not).
pub(super) type Given = Option<Option<Range<usize>>>;

trait GivenAt {
    fn given(&self) -> Given;
}

impl<T: AtSpan> GivenAt for Option<T> {
    fn given(&self) -> Given {
        self.as_ref().map(|v| Some(v.at()))
    }
}

impl GivenAt for Option<bool> {
    fn given(&self) -> Given {
        self.map(|_| None)
    }
}

impl<T> GivenAt for Spanned<T> {
    fn given(&self) -> Given {
        Some(Some(self.span()))
    }
}

/// Declares each flow key once: the field of [`RawFlow`] it is read into, and its row of
/// [`FLOW_KEYS`] (same order).
macro_rules! flow_keys {
    ($( $key:ident : $ty:ty => $applies:expr, $own:expr, $doc:literal; )*) => {
        /// A `[[flows]]` table as the file gives it: one field per row of [`FLOW_KEYS`].
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(in crate::scenario) struct RawFlow {
            $( pub(in crate::scenario) $key: $ty, )*
        }

        /// Every key a `[[flows]]` table takes, in the order the checks report them.
        pub const FLOW_KEYS: &[FlowKey] = &[
            $( FlowKey { name: stringify!($key), applies: $applies, own_check: $own, doc: $doc }, )*
        ];

        const N_KEYS: usize = [$(stringify!($key)),*].len();

        impl RawFlow {
            /// Where each key of [`FLOW_KEYS`] was given, in the table's order.
            pub(super) fn given(&self) -> [Given; N_KEYS] {
                [ $( GivenAt::given(&self.$key), )* ]
            }
        }
    };
}

use Applies::{Any, App, Cc, Tcp, Udp, UdpOrApp};
const WEB: &[&str] = &["web"];
const WEB_PAGE: &[&str] = &["web", "page"];
const WEB_PAGE_VIDEO: &[&str] = &["web", "page", "video"];
const SIZED: &[&str] = &["web", "page", "repeat"];
const PAGE: &[&str] = &["page"];
const VIDEO: &[&str] = &["video"];
const REPEAT: &[&str] = &["repeat"];
const ONOFF: &[&str] = &["onoff"];

flow_keys! {
    name: Option<S> => Any, false, "the flow's name (unique; names its random streams and its rows)";
    kind: S => Any, false, "`udp` or `tcp`";
    from: S => Any, false, "sending node (a web flow's server)";
    to: S => Any, false, "receiving node (a web flow's client)";
    start: Option<TimeDist> => Any, false, "a time, or a distribution (`\"uniform(A, B)\"`, `\"exponential(MEAN)\"`) drawn from the flow's own stream";
    stop: Option<Time> => Any, true, "no sends, requests or transfers at or after this time (not on bulk and finite transfers)";
    rate: Option<FlowRate> => UdpOrApp(ONOFF), false, "sending rate (on/off: during on periods)";
    size: Option<Spanned<i64>> => UdpOrApp(ONOFF), false, "UDP datagram bytes (20-65535, default 1500); on/off: bytes of each write (default 1460)";
    on_time: Option<FlowTime> => UdpOrApp(ONOFF), false, "mean on period: each burst is a count of packets (writes) of mean on_time ÷ (size·8/rate), rounded as ns-2.35's Traffic/Pareto and Traffic/Exponential; the source starts with an off period";
    off_time: Option<FlowTime> => UdpOrApp(ONOFF), false, "mean off period";
    onoff_shape: Option<Spanned<f64>> => UdpOrApp(ONOFF), false, "Pareto shape of the bursts and off periods (> 1; exponential without it)";
    ecn_codepoint: Option<S> => Udp, true, "`not_ect`, `ect0`, `ect1` or `ce` on every datagram";
    dscp: Option<Spanned<i64>> => Any, false, "DSCP of the flow's packets, 0-63";
    cc: Option<S> => Tcp, false, "congestion control (default `cubic`)";
    app: Option<S> => Tcp, false, "`bulk` (default), `finite`, `repeat`, `onoff`, `web`, `page` or `video`";
    bytes: Option<Bytes> => App(&["finite", "repeat"]), true, "bytes of a transfer";
    conns_per_s: Option<Spanned<f64>> => App(WEB_PAGE), false, "Poisson arrivals of connections (pages) per second";
    size_dist: Option<S> => App(SIZED), true, "`pareto` (default), `lognormal` or `constant` sizes";
    size_mean: Option<Bytes> => App(SIZED), true, "mean size (default 50kB)";
    size_shape: Option<Spanned<f64>> => App(SIZED), true, "Pareto shape (> 1, default 1.2)";
    size_sigma: Option<Spanned<f64>> => App(SIZED), true, "lognormal sigma (default 1)";
    request_size: Option<Bytes> => App(WEB_PAGE_VIDEO), false, "bytes of each request (default 300B)";
    model: Option<S> => App(WEB), false, "`simple` (default) or `packmime`";
    http: Option<S> => App(WEB), false, "PackMime's HTTP version, `\"1.0\"` (default) or `\"1.1\"`";
    interval: Option<FlowTime> => App(WEB_PAGE), false, "periodic arrivals, one every interval";
    idle: Option<Idle> => App(REPEAT), false, "idle period between transfers: a duration, or `[low, high]`";
    idle_dist: Option<S> => App(REPEAT), false, "`constant`, `uniform` or `exponential` idle periods";
    reuse: Option<bool> => App(REPEAT), false, "keep one connection for every transfer";
    idle_restart: Option<bool> => App(&["repeat", "onoff"]), false, "restart from the initial window after an idle RTO (repeat: with reuse = true; default true)";
    mss: Option<Spanned<i64>> => Tcp, false, "maximum segment size, bytes (100-65495, default 1460)";
    max_window: Option<Spanned<i64>> => Tcp, false, "receive-window cap, segments (default none)";
    initial_cwnd: Option<Spanned<i64>> => Tcp, false, "initial window, segments (default 10)";
    delayed_ack: Option<bool> => Tcp, false, "delayed ACKs (default true)";
    sack: Option<bool> => Tcp, false, "SACK (default true)";
    ecn: Option<bool> => Tcp, false, "negotiate ECN (default false; true with prague)";
    accecn: Option<bool> => Tcp, false, "Accurate ECN (default false; true with prague)";
    handshake: Option<bool> => Tcp, false, "three-way handshake (default true)";
    hystart: Option<bool> => Tcp, false, "HyStart++ (reno, newreno, cubic; default false)";
    min_rto: Option<AnyTime> => Tcp, false, "minimum RTO (default 200ms)";
    delack_timeout: Option<AnyTime> => Tcp, false, "delayed-ACK timer (default 40ms)";
    syn_retries: Option<Spanned<i64>> => Tcp, false, "SYN retransmissions before giving up (0-127; needs handshake)";
    initial_rto: Option<FlowTime> => Tcp, false, "RTO before the first sample (default 1s)";
    max_rto: Option<FlowTime> => Tcp, false, "maximum RTO (default 60s)";
    initial_ssthresh: Option<Spanned<i64>> => Tcp, false, "initial ssthresh, segments (default none)";
    dupack_threshold: Option<Spanned<i64>> => Tcp, false, "duplicate ACKs before fast retransmit (1-1000, default 3)";
    prr: Option<bool> => Tcp, false, "proportional rate reduction, RFC 6937 (needs sack)";
    recovery: Option<S> => Tcp, false, "`rfc6675` (default) or `rack` (needs sack)";
    rescue: Option<bool> => Tcp, false, "RFC 6675's rescue retransmission (default true)";
    recover_guard: Option<bool> => Cc(CcKind::Reno), true, "RFC 6582's guard for classic Reno (with sack = false only)";
    rto_ssthresh: Option<S> => Tcp, true, "the timeout's ssthresh: `rfc5681` (default, FlightSize / 2) or `ns2` (ns-2.35's min(cwnd, window) / 2 in whole packets, not held on a backed-off expiry); tahoe, reno and newreno only";
    pacing: Option<bool> => Tcp, false, "pace sends (default false)";
    cubic_beta: Option<Spanned<f64>> => Cc(CcKind::Cubic), false, "CUBIC's decrease factor (0 < beta < 1, default 0.7)";
    cubic_c: Option<Spanned<f64>> => Cc(CcKind::Cubic), false, "CUBIC's C, segments/s^3 (default 0.4)";
    cubic_fast_convergence: Option<bool> => Cc(CcKind::Cubic), false, "CUBIC's fast convergence (default true)";
    cubic_reno_friendly: Option<bool> => Cc(CcKind::Cubic), false, "CUBIC's Reno-friendly region (default true)";
    cubic_linux: Option<bool> => Cc(CcKind::Cubic), false, "Linux's CUBIC beyond RFC 9438 (not with hystart)";
    vegas_alpha: Option<Spanned<i64>> => Cc(CcKind::Vegas), false, "Vegas alpha, packets (default 1)";
    vegas_beta: Option<Spanned<i64>> => Cc(CcKind::Vegas), false, "Vegas beta, packets (default 3)";
    vegas_gamma: Option<Spanned<i64>> => Cc(CcKind::Vegas), false, "Vegas gamma, packets (default 1)";
    ledbat_target: Option<AnyTime> => Cc(CcKind::Ledbat), false, "LEDBAT's target delay (at most 100ms, the default)";
    ledbat_gain: Option<Spanned<f64>> => Cc(CcKind::Ledbat), false, "LEDBAT's gain (default 1)";
    ledbat_allowed_increase: Option<Spanned<f64>> => Cc(CcKind::Ledbat), false, "LEDBAT's allowed increase, segments 0-64 (default 1)";
    dctcp_g: Option<Spanned<f64>> => Cc(CcKind::Dctcp), false, "DCTCP's EWMA gain (0 < g <= 1, default 1/16)";
    prague_ecn_fallback: Option<Spanned<i64>> => Cc(CcKind::Prague), false, "Prague's classic-ECN detection: 0 none (default), 1 and fallback, 2 detection only";
    objects: Option<Spanned<i64>> => App(PAGE), false, "objects per page (default 50)";
    parallel: Option<Spanned<i64>> => App(PAGE), false, "connections per page (default 6)";
    segment: Option<FlowTime> => App(VIDEO), false, "media duration of a segment (default 2s)";
    ladder: Option<Spanned<Vec<FlowRate>>> => App(VIDEO), false, "the bitrate ladder, increasing (required)";
    playout_buffer: Option<FlowTime> => App(VIDEO), false, "playout buffer, media time (default 20s)";
    safety: Option<Spanned<f64>> => App(VIDEO), false, "share of the measured throughput the next rate may take (default 0.9)";
}

/// The first key only a tcp flow takes that a udp flow gives.
pub(super) fn wrong_kind(given: &[Given]) -> Option<&'static str> {
    FLOW_KEYS
        .iter()
        .zip(given)
        .find(|(k, g)| k.applies.tcp_only() && g.is_some())
        .map(|(k, _)| k.name)
}

/// The first key of another congestion control than `cc` that a tcp flow gives.
pub(super) fn wrong_cc(given: &[Given], cc: CcKind) -> Option<&'static FlowKey> {
    FLOW_KEYS
        .iter()
        .zip(given)
        .find_map(|(k, g)| match k.applies {
            Cc(kind) if !k.own_check && kind != cc && g.is_some() => Some(k),
            _ => None,
        })
}

/// The first key of other applications than `app` that a tcp flow gives, with where it was
/// given.
pub(super) fn wrong_app<'a>(
    given: &'a [Given],
    app: &str,
) -> Option<(&'static FlowKey, &'a Option<Range<usize>>)> {
    FLOW_KEYS
        .iter()
        .zip(given)
        .find_map(|(k, g)| match k.applies {
            App(apps) | UdpOrApp(apps) if !k.own_check && !apps.contains(&app) => {
                g.as_ref().map(|at| (k, at))
            }
            _ => None,
        })
}

/// `docs/flow-keys.md`: every `[[flows]]` key, where it applies and what it sets.
pub fn flow_keys_markdown() -> String {
    let mut s = String::from(
        "# `[[flows]]` keys\n\n\
         Generated from the flow-key table (`crates/aqmlab-sim/src/scenario/flow_keys.rs`), \
         which the scenario loader's errors read too: a key given where it does not apply is \
         refused in one line naming it. Regenerate with \
         `AQMLAB_BLESS=1 cargo test -p aqmlab-sim --lib flow_keys`. Values, ranges and units: \
         `docs/data-format.md` and the README.\n\n\
         | key | applies to | sets |\n|---|---|---|\n",
    );
    for k in FLOW_KEYS {
        let applies = match k.applies {
            Applies::App(_) | Applies::Cc(_) => format!("tcp flows with {}", k.applies.describe()),
            other => other.describe(),
        };
        s.push_str(&format!(
            "| `{}` | {} | {} |\n",
            k.name,
            applies.replace('"', "`"),
            k.doc
        ));
    }
    s
}

#[cfg(test)]
mod tests;
