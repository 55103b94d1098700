//! The application keys of a `[[flows]]` entry: what a TCP flow's `app` does (`bulk`,
//! `finite`, `repeat`, `onoff`, `web`) and a UDP flow's on/off periods. Each function checks
//! that the keys it reads belong to the application and names the key of any error.

use super::raw_units::{AtSpan, Bytes, FlowTime, Idle, IdleValue};
use super::{Ctx, RawFlow, ScenarioError};
use crate::world::{Arrivals, IdleDist, OnOff, SizeDist, TcpApp, VideoSpec};
use aqmlab_core::{Bitrate, SimDuration};
use toml::Spanned;

/// Size of a web request when the scenario gives no `request_size`. An HTTP request is a GET line
/// and its headers, a few hundred bytes: one segment, small beside the responses. PackMime-HTTP
/// (ns-2) samples request sizes from a distribution fitted to traces; one fixed size keeps the
/// request leg simple while still paying its handshake, its serialisation and its one-way delay.
pub const DEFAULT_REQUEST_BYTES: u64 = 300;

/// The on/off periods given by `on_time`, `off_time` and `onoff_shape` (none of them: `None`).
pub(super) fn on_off(cx: &Ctx<'_>, f: &RawFlow, p: &str) -> Result<Option<OnOff>, ScenarioError> {
    match (&f.on_time, &f.off_time) {
        (None, None) => {
            if let Some(sh) = &f.onoff_shape {
                return Err(cx.err(
                    Some(sh.span()),
                    format!("{p}.onoff_shape"),
                    "onoff_shape needs on_time and off_time",
                ));
            }
            Ok(None)
        }
        (Some(on), Some(off)) => {
            let mean_on = on.checked(cx, &format!("{p}.on_time"))?;
            let mean_off = off.checked(cx, &format!("{p}.off_time"))?;
            if mean_on == SimDuration::ZERO {
                return Err(cx.err(
                    Some(on.span()),
                    format!("{p}.on_time"),
                    "expected a mean on time > 0",
                ));
            }
            let pareto_shape = match &f.onoff_shape {
                Some(sh) if *sh.get_ref() > 1.0 && sh.get_ref().is_finite() => Some(*sh.get_ref()),
                Some(sh) => {
                    return Err(cx.err(
                        Some(sh.span()),
                        format!("{p}.onoff_shape"),
                        format!("expected a Pareto shape > 1, got {}", sh.get_ref()),
                    ))
                }
                None => None,
            };
            Ok(Some(OnOff {
                mean_on,
                mean_off,
                pareto_shape,
            }))
        }
        _ => Err(cx.err(
            Some(f.kind.span()),
            p.to_string(),
            "an on/off source needs both on_time and off_time",
        )),
    }
}

/// A key that is present, and where (`None` for a value without a span: the app's line).
type Present<'a> = (&'a str, bool, Option<std::ops::Range<usize>>);

/// The first of `keys` that is present, as an error saying where it belongs.
fn refuse(
    cx: &Ctx<'_>,
    span: Option<std::ops::Range<usize>>,
    p: &str,
    keys: &[Present<'_>],
    belongs: &str,
) -> Result<(), ScenarioError> {
    match keys.iter().find(|(_, present, _)| *present) {
        Some((key, _, at)) => Err(cx.err(
            at.clone().or(span),
            format!("{p}.{key}"),
            format!("{key} belongs to {belongs}"),
        )),
        None => Ok(()),
    }
}

fn present<'a, T: AtSpan>(key: &'a str, v: &Option<T>) -> Present<'a> {
    (key, v.is_some(), v.as_ref().map(|x| x.at()))
}

/// A TCP flow's application, from `app` and the keys that go with it.
pub(super) fn tcp_app(cx: &Ctx<'_>, f: &RawFlow, p: &str) -> Result<TcpApp, ScenarioError> {
    let app = f
        .app
        .as_ref()
        .map(|a| a.get_ref().as_str())
        .unwrap_or("bulk");
    let span = f.app.as_ref().map(|a| a.span()).or(Some(f.kind.span()));
    let size_keys = f.size_dist.is_some()
        || f.size_mean.is_some()
        || f.size_shape.is_some()
        || f.size_sigma.is_some();
    // Keys that belong to some applications only, refused on the others (the flow-key table
    // says which): at the key when it keeps its place, else at the app's line.
    if let Some((k, at)) = super::flow_keys::wrong_app(&f.given(), app) {
        let hint = if k.applies == super::Applies::UdpOrApp(&["onoff"]) {
            " (a tcp flow's rate is its congestion control's; use bytes or size_mean for transfer sizes)"
        } else if k.name == "idle_restart" {
            " (with reuse = true on a repeat)"
        } else {
            ""
        };
        return Err(cx.err(
            at.clone().or(span),
            format!("{p}.{}", k.name),
            format!("{} belongs to {}{hint}", k.name, k.applies.describe()),
        ));
    }
    match app {
        "bulk" | "finite" | "onoff" | "video" if size_keys => Err(cx.err(
            span,
            format!("{p}.app"),
            "size_dist, size_mean, size_shape and size_sigma belong to app = \"web\", \"page\" and \"repeat\"",
        )),
        "page" | "video" if f.bytes.is_some() => Err(cx.err(
            span,
            format!("{p}.bytes"),
            "a page's objects are sized by size_dist/size_mean, a video's segments by ladder and segment: not bytes",
        )),
        "bulk" if f.bytes.is_some() => Err(cx.err(
            span,
            format!("{p}.bytes"),
            "a bulk transfer is infinite: use app = \"finite\" with bytes",
        )),
        "bulk" => Ok(TcpApp::Bulk),
        "finite" => Ok(TcpApp::Finite {
            bytes: bytes(cx, f, p, span)?,
        }),
        "repeat" => repeat(cx, f, p, span),
        "onoff" => onoff(cx, f, p, span),
        "web" => web(cx, f, p, span),
        "page" => page(cx, f, p, span),
        "video" => video(cx, f, p),
        other => Err(cx.err(
            span,
            format!("{p}.app"),
            format!("expected bulk, finite, repeat, onoff, web, page or video, got {other:?}"),
        )),
    }
}

/// `bytes`, required and > 0.
fn bytes(
    cx: &Ctx<'_>,
    f: &RawFlow,
    p: &str,
    span: Option<std::ops::Range<usize>>,
) -> Result<u64, ScenarioError> {
    let b = f.bytes.as_ref().ok_or_else(|| {
        cx.err(
            span,
            format!("{p}.bytes"),
            "a finite transfer needs bytes, like bytes = \"10MB\"",
        )
    })?;
    let bytes = b.checked(cx, &format!("{p}.bytes"))?.0;
    if bytes == 0 {
        return Err(cx.err(Some(b.span()), format!("{p}.bytes"), "expected bytes > 0"));
    }
    Ok(bytes)
}

/// A flow's application keys as they are read: where the flow is in the file (for errors), its
/// `[[flows]]` table, and the place an error about a missing key names (its `app`'s, else its
/// `kind`'s).
struct AppIn<'a> {
    cx: &'a Ctx<'a>,
    f: &'a RawFlow,
    /// The flow's key path (`flows[0]`).
    p: &'a str,
    span: Option<std::ops::Range<usize>>,
}

/// `app = "repeat"`: `bytes` or `size_*`, `idle` (and `idle_dist`), `reuse`, `idle_restart`, in
/// steps, errors in this order: the transfers' size ([`repeat_size`]), the idle period
/// ([`repeat_idle`]), the connection's reuse ([`repeat_reuse`]).
fn repeat(
    cx: &Ctx<'_>,
    f: &RawFlow,
    p: &str,
    span: Option<std::ops::Range<usize>>,
) -> Result<TcpApp, ScenarioError> {
    let x = AppIn { cx, f, p, span };
    let size = repeat_size(&x)?;
    let idle = repeat_idle(&x)?;
    let (reuse, restart_after_idle) = repeat_reuse(&x)?;
    Ok(TcpApp::Repeat {
        size,
        idle,
        reuse,
        restart_after_idle,
    })
}

/// The transfers' size: `bytes` (each the same), or `size_mean` (with `size_dist`: drawn), not
/// both, and one of them.
fn repeat_size(x: &AppIn<'_>) -> Result<SizeDist, ScenarioError> {
    let (cx, f, p, span) = (x.cx, x.f, x.p, &x.span);
    Ok(match (&f.bytes, &f.size_mean) {
        (Some(b), Some(_)) => {
            return Err(cx.err(
                Some(b.span()),
                format!("{p}.bytes"),
                "give the transfer size either as bytes (each the same) or with size_mean (drawn): not both",
            ))
        }
        (Some(_), None) if f.size_dist.is_some() => {
            return Err(cx.err(
                f.size_dist.as_ref().map(|d| d.span()),
                format!("{p}.size_dist"),
                "size_dist needs size_mean (bytes gives every transfer the same size)",
            ))
        }
        (Some(_), None) => SizeDist::Constant {
            bytes: bytes(cx, f, p, span.clone())?,
        },
        (None, Some(_)) => size_dist(cx, f, p)?,
        (None, None) => {
            return Err(cx.err(
                span.clone(),
                format!("{p}.bytes"),
                "repeated transfers need a size: bytes = \"1MB\", or size_mean (with size_dist)",
            ))
        }
    })
}

/// The idle period between transfers, required: `idle` (one duration, or `[low, high]`) by
/// `idle_dist` (constant unless given; uniform for a range, [`idle_range`]; exponential).
fn repeat_idle(x: &AppIn<'_>) -> Result<IdleDist, ScenarioError> {
    let (cx, f, p) = (x.cx, x.f, x.p);
    let idle_v = f.idle.as_ref().ok_or_else(|| {
        cx.err(
            x.span.clone(),
            format!("{p}.idle"),
            "repeated transfers need an idle period: idle = \"10s\", or idle = [\"5s\", \"15s\"] (uniform)",
        )
    })?;
    let path = format!("{p}.idle");
    let dist = f.idle_dist.as_ref().map(|d| d.get_ref().as_str());
    Ok(match (&idle_v.value, dist) {
        (IdleValue::List(a), None | Some("uniform")) if a.len() == 2 => idle_range(x, idle_v, a)?,
        (IdleValue::List(_), None | Some("uniform")) => {
            return Err(cx.err(
                Some(idle_v.span()),
                path,
                format!(
                    "expected a uniform range of two durations, like [\"5s\", \"15s\"], got {}",
                    idle_v.shown()
                ),
            ))
        }
        (_, None | Some("constant")) => IdleDist::Constant(idle_one(x, idle_v)?),
        (_, Some("exponential")) => IdleDist::Exponential {
            mean: idle_one(x, idle_v)?,
        },
        // One duration for uniform idle periods: their range is two.
        (IdleValue::One(_), Some("uniform")) => {
            return Err(cx.err(
                Some(idle_v.span()),
                path,
                format!(
                    "idle_dist = \"uniform\" needs a range of two durations, like idle = [\"5s\", \"15s\"], got {}",
                    idle_v.shown()
                ),
            ))
        }
        (_, Some(other)) => {
            return Err(cx.err(
                f.idle_dist.as_ref().map(|d| d.span()),
                format!("{p}.idle_dist"),
                format!("expected constant, uniform or exponential, got {other:?}"),
            ))
        }
    })
}

/// A duration of the idle period, read with the file (`raw_units::Idle`), checked here: an
/// error names `path` (the flow's key, or the list's element) and the value's line.
fn idle_checked(
    x: &AppIn<'_>,
    idle_v: &Idle,
    r: &Result<SimDuration, String>,
    path: &str,
) -> Result<SimDuration, ScenarioError> {
    r.clone()
        .map_err(|m| x.cx.err(Some(idle_v.span()), path, m))
}

/// The idle period as one duration (a list refused).
fn idle_one(x: &AppIn<'_>, idle_v: &Idle) -> Result<SimDuration, ScenarioError> {
    let path = format!("{}.idle", x.p);
    match &idle_v.value {
        IdleValue::One(r) => idle_checked(x, idle_v, r, &path),
        IdleValue::List(_) => Err(x.cx.err(
            Some(idle_v.span()),
            path,
            format!(
                "expected a duration with a unit, like \"10s\", got {}",
                idle_v.shown()
            ),
        )),
    }
}

/// Uniform idle periods from the range `[low, high]` (`a`, two durations), low ≤ high.
fn idle_range(
    x: &AppIn<'_>,
    idle_v: &Idle,
    a: &[Result<SimDuration, String>],
) -> Result<IdleDist, ScenarioError> {
    let path = format!("{}.idle", x.p);
    let lo = idle_checked(x, idle_v, &a[0], &format!("{path}[0]"))?;
    let hi = idle_checked(x, idle_v, &a[1], &format!("{path}[1]"))?;
    if hi < lo {
        return Err(x.cx.err(
            Some(idle_v.span()),
            path,
            format!(
                "expected [low, high] with low ≤ high, got {}",
                idle_v.shown()
            ),
        ));
    }
    Ok(IdleDist::Uniform { lo, hi })
}

/// `reuse` (off unless given) and `idle_restart` (on unless given), which only a reused
/// connection takes: `(reuse, restart_after_idle)`.
fn repeat_reuse(x: &AppIn<'_>) -> Result<(bool, bool), ScenarioError> {
    let (cx, f, p) = (x.cx, x.f, x.p);
    let reuse = f.reuse.unwrap_or(false);
    if f.idle_restart.is_some() && !reuse {
        return Err(cx.err(
            x.span.clone(),
            format!("{p}.idle_restart"),
            "idle_restart applies to a reused connection (reuse = true): each fresh connection starts from its initial window",
        ));
    }
    Ok((reuse, f.idle_restart.unwrap_or(true)))
}

/// `app = "onoff"`: `rate`, `size` (bytes per write), `on_time`, `off_time`, `onoff_shape`.
fn onoff(
    cx: &Ctx<'_>,
    f: &RawFlow,
    p: &str,
    span: Option<std::ops::Range<usize>>,
) -> Result<TcpApp, ScenarioError> {
    if f.bytes.is_some() {
        return Err(cx.err(
            span,
            format!("{p}.bytes"),
            "an on/off application writes size bytes at rate during its on periods, not bytes",
        ));
    }
    let rate = f.rate.as_ref().ok_or_else(|| {
        cx.err(
            span.clone(),
            format!("{p}.rate"),
            "an on/off application needs the rate it writes at during on periods, like rate = \"64kbps\"",
        )
    })?;
    let r = rate.checked(cx, &format!("{p}.rate"))?;
    if r.as_bps() == 0 {
        return Err(cx.err(
            Some(rate.span()),
            format!("{p}.rate"),
            "expected a rate > 0",
        ));
    }
    let write_bytes = match &f.size {
        Some(s) if (1..=1 << 30).contains(s.get_ref()) => *s.get_ref() as u32,
        Some(s) => {
            return Err(cx.err(
                Some(s.span()),
                format!("{p}.size"),
                format!(
                    "expected the bytes of each write, from 1 to {}, got {}",
                    1 << 30,
                    s.get_ref()
                ),
            ))
        }
        None => 1460,
    };
    let periods = on_off(cx, f, p)?.ok_or_else(|| {
        cx.err(
            span,
            p.to_string(),
            "an on/off application needs on_time and off_time (mean periods; onoff_shape for Pareto)",
        )
    })?;
    Ok(TcpApp::OnOff {
        rate: r,
        write_bytes,
        periods,
        restart_after_idle: f.idle_restart.unwrap_or(true),
    })
}

/// `size_dist` (`pareto`, `lognormal`, `constant`), `size_mean` (default 50 kB), `size_shape`,
/// `size_sigma`.
fn size_dist(cx: &Ctx<'_>, f: &RawFlow, p: &str) -> Result<SizeDist, ScenarioError> {
    let mean = match &f.size_mean {
        Some(m) => m.checked(cx, &format!("{p}.size_mean"))?.0 as f64,
        None => 50_000.0,
    };
    if mean < 1.0 {
        return Err(cx.err(
            f.size_mean.as_ref().map(|m| m.span()),
            format!("{p}.size_mean"),
            "expected a mean size ≥ 1 byte",
        ));
    }
    let dist = f
        .size_dist
        .as_ref()
        .map(|d| d.get_ref().as_str())
        .unwrap_or("pareto");
    let not_for = |key: &str, present: Option<std::ops::Range<usize>>| match present {
        Some(sp) => Err(cx.err(
            Some(sp),
            format!("{p}.{key}"),
            format!("{key} does not apply to size_dist = {dist:?}"),
        )),
        None => Ok(()),
    };
    Ok(match dist {
        "pareto" => {
            not_for("size_sigma", f.size_sigma.as_ref().map(|x| x.span()))?;
            let shape = pareto_shape(cx, f, p)?;
            SizeDist::Pareto { mean, shape }
        }
        "lognormal" => {
            not_for("size_shape", f.size_shape.as_ref().map(|x| x.span()))?;
            let sigma = lognormal_sigma(cx, f, p, mean)?;
            SizeDist::Lognormal { mean, sigma }
        }
        "constant" => {
            not_for("size_shape", f.size_shape.as_ref().map(|x| x.span()))?;
            not_for("size_sigma", f.size_sigma.as_ref().map(|x| x.span()))?;
            SizeDist::Constant { bytes: mean as u64 }
        }
        other => {
            return Err(cx.err(
                f.size_dist.as_ref().map(|d| d.span()),
                format!("{p}.size_dist"),
                format!("expected pareto, lognormal or constant, got {other:?}"),
            ))
        }
    })
}

/// `size_shape` of a Pareto size (default 1.2): above 1, so that the mean is finite.
fn pareto_shape(cx: &Ctx<'_>, f: &RawFlow, p: &str) -> Result<f64, ScenarioError> {
    let shape = f.size_shape.as_ref().map(|x| *x.get_ref()).unwrap_or(1.2);
    if shape <= 1.0 || !shape.is_finite() {
        return Err(cx.err(
            f.size_shape.as_ref().map(|x| x.span()),
            format!("{p}.size_shape"),
            format!("expected a Pareto shape > 1 (finite mean), got {shape}"),
        ));
    }
    Ok(shape)
}

/// `size_sigma` of a lognormal size of mean `mean` bytes (default 1): from 0 to
/// [`crate::world::max_lognormal_sigma`] of the mean, which keeps the mean (most sizes not
/// clamped to 1 byte) and a spread a run shows (at most 3).
fn lognormal_sigma(cx: &Ctx<'_>, f: &RawFlow, p: &str, mean: f64) -> Result<f64, ScenarioError> {
    let sigma = f.size_sigma.as_ref().map(|x| *x.get_ref()).unwrap_or(1.0);
    let max = crate::world::max_lognormal_sigma(mean);
    if !(sigma >= 0.0 && sigma <= max) {
        let why = if max < crate::world::MAX_LOGNORMAL_SIGMA {
            format!(
                "√(2·ln size_mean) for size_mean = {mean} bytes: above it most sizes would be under 1 byte and clamped to 1, so the mean would not be kept"
            )
        } else {
            "above 3 a run's transfers would not show the mean: their spread, √(exp(σ²) − 1), is 90 times the mean at σ = 3".to_string()
        };
        return Err(cx.err(
            f.size_sigma.as_ref().map(|x| x.span()),
            format!("{p}.size_sigma"),
            format!(
                "expected sigma from 0 to {} ({why}), got {sigma}",
                (max * 1000.0).floor() / 1000.0
            ),
        ));
    }
    Ok(sigma)
}

/// `app = "web"`: `conns_per_s` or `interval`, the response `size_*`, `request_size`.
fn web(
    cx: &Ctx<'_>,
    f: &RawFlow,
    p: &str,
    span: Option<std::ops::Range<usize>>,
) -> Result<TcpApp, ScenarioError> {
    if f.bytes.is_some() {
        return Err(cx.err(
            span,
            format!("{p}.bytes"),
            "web responses are sized by size_dist/size_mean and requests by request_size, not bytes",
        ));
    }
    match f.model.as_ref().map(|m| m.get_ref().as_str()) {
        None | Some("simple") => {
            if let Some(h) = &f.http {
                return Err(cx.err(
                    Some(h.span()),
                    format!("{p}.http"),
                    "http belongs to model = \"packmime\" (the simple model's connections carry one exchange each)",
                ));
            }
        }
        Some("packmime") => return packmime(cx, f, p, span),
        Some(other) => {
            return Err(cx.err(
                f.model.as_ref().map(|m| m.span()),
                format!("{p}.model"),
                format!("expected simple or packmime, got {other:?}"),
            ))
        }
    }
    let arrivals = arrivals(cx, f, p, span, "web traffic needs conns_per_s, like conns_per_s = 5.0, or a periodic interval, like interval = \"200ms\"")?;
    let size = size_dist(cx, f, p)?;
    // The request the client sends before the response (default: DEFAULT_REQUEST_BYTES).
    let request_bytes = request_bytes(cx, f, p)?;
    Ok(TcpApp::Web {
        arrivals,
        size,
        request_bytes,
    })
}

/// `conns_per_s` (Poisson arrivals) or `interval` (periodic), one of them required (`missing`:
/// the error without either).
fn arrivals(
    cx: &Ctx<'_>,
    f: &RawFlow,
    p: &str,
    span: Option<std::ops::Range<usize>>,
    missing: &str,
) -> Result<Arrivals, ScenarioError> {
    Ok(match (&f.conns_per_s, &f.interval) {
        (Some(_), Some(i)) => {
            return Err(cx.err(
                Some(i.span()),
                format!("{p}.interval"),
                "give conns_per_s (Poisson arrivals) or interval (one request every interval), not both",
            ))
        }
        (Some(rate), None) => {
            if !(*rate.get_ref() > 0.0 && *rate.get_ref() <= 1e6) {
                return Err(cx.err(
                    Some(rate.span()),
                    format!("{p}.conns_per_s"),
                    format!(
                        "expected a rate in (0, 1000000] connections per second, got {}",
                        rate.get_ref()
                    ),
                ));
            }
            Arrivals::Poisson {
                per_s: *rate.get_ref(),
            }
        }
        (None, Some(i)) => {
            let path = format!("{p}.interval");
            let interval = i.checked(cx, &path)?;
            if interval < SimDuration::from_micros(1) {
                return Err(cx.err(
                    Some(i.span()),
                    path,
                    format!("expected an interval of at least 1us, got {:?}", i.text()),
                ));
            }
            Arrivals::Periodic { interval }
        }
        (None, None) => return Err(cx.err(span, format!("{p}.conns_per_s"), missing)),
    })
}

/// `request_size`, default [`DEFAULT_REQUEST_BYTES`].
fn request_bytes(cx: &Ctx<'_>, f: &RawFlow, p: &str) -> Result<u64, ScenarioError> {
    match &f.request_size {
        Some(r) => request_size(cx, r, p),
        None => Ok(DEFAULT_REQUEST_BYTES),
    }
}

/// Objects per page when the scenario gives no `objects`: RFC 7928 §7.2's "at least 50".
pub const DEFAULT_PAGE_OBJECTS: u32 = 50;
/// Parallel connections per page when the scenario gives no `parallel`: RFC 7928 §7.2's 6.
pub const DEFAULT_PAGE_PARALLEL: u32 = 6;

/// `app = "page"`: `conns_per_s` (pages per second) or `interval`, `objects`, `parallel`, the
/// objects' `size_*`, `request_size`.
fn page(
    cx: &Ctx<'_>,
    f: &RawFlow,
    p: &str,
    span: Option<std::ops::Range<usize>>,
) -> Result<TcpApp, ScenarioError> {
    let arrivals = arrivals(cx, f, p, span, "web pages need conns_per_s (pages per second, Poisson), like conns_per_s = 0.2, or a periodic interval, like interval = \"5s\"")?;
    let count = |v: &Option<Spanned<i64>>, key: &str, default: u32, what: &str| match v {
        None => Ok(default),
        Some(n) if (1..=100_000).contains(n.get_ref()) => Ok(*n.get_ref() as u32),
        Some(n) => Err(cx.err(
            Some(n.span()),
            format!("{p}.{key}"),
            format!("expected {what} from 1 to 100000, got {}", n.get_ref()),
        )),
    };
    Ok(TcpApp::Page {
        arrivals,
        objects: count(
            &f.objects,
            "objects",
            DEFAULT_PAGE_OBJECTS,
            "objects per page",
        )?,
        parallel: count(
            &f.parallel,
            "parallel",
            DEFAULT_PAGE_PARALLEL,
            "connections per page",
        )?,
        size: size_dist(cx, f, p)?,
        request_bytes: request_bytes(cx, f, p)?,
    })
}

/// `app = "video"`: `ladder` (required), `segment` (default 2 s), `playout_buffer` (default
/// 20 s), `safety` (default 0.9), `request_size`.
fn video(cx: &Ctx<'_>, f: &RawFlow, p: &str) -> Result<TcpApp, ScenarioError> {
    let ladder = ladder(cx, f, p)?;
    let dur = |v: &Option<FlowTime>, key: &str, default: SimDuration| match v {
        None => Ok(default),
        Some(d) => d.checked(cx, &format!("{p}.{key}")),
    };
    let segment = dur(&f.segment, "segment", SimDuration::from_secs(2))?;
    if segment < SimDuration::from_millis(1) {
        return Err(cx.err(
            f.segment.as_ref().map(|s| s.span()),
            format!("{p}.segment"),
            "expected a segment duration of at least 1ms",
        ));
    }
    let buffer = dur(
        &f.playout_buffer,
        "playout_buffer",
        SimDuration::from_secs(20),
    )?;
    if buffer < segment {
        return Err(cx.err(
            f.playout_buffer
                .as_ref()
                .map(|s| s.span())
                .or(f.segment.as_ref().map(|s| s.span())),
            format!("{p}.playout_buffer"),
            "expected a playout buffer of at least one segment",
        ));
    }
    let safety = safety(cx, f, p)?;
    Ok(TcpApp::Video(VideoSpec {
        segment,
        ladder,
        buffer,
        safety,
        request_bytes: request_bytes(cx, f, p)?,
    }))
}

/// A video's `ladder`: at least one rate, each above 0 and above the one before it.
fn ladder(cx: &Ctx<'_>, f: &RawFlow, p: &str) -> Result<Vec<Bitrate>, ScenarioError> {
    let ladder_v = f.ladder.as_ref().ok_or_else(|| {
        cx.err(
            f.app.as_ref().map(|a| a.span()),
            format!("{p}.ladder"),
            "a video needs its bitrate ladder, like ladder = [\"1Mbps\", \"2.5Mbps\", \"5Mbps\"]",
        )
    })?;
    let mut ladder = Vec::with_capacity(ladder_v.get_ref().len());
    for (i, r) in ladder_v.get_ref().iter().enumerate() {
        let rate = r.checked(cx, &format!("{p}.ladder[{i}]"))?;
        if rate.as_bps() == 0 || ladder.last().is_some_and(|&prev| rate <= prev) {
            return Err(cx.err(
                Some(ladder_v.span()),
                format!("{p}.ladder[{i}]"),
                format!("expected increasing rates > 0, got {:?}", r.text()),
            ));
        }
        ladder.push(rate);
    }
    if ladder.is_empty() {
        return Err(cx.err(
            Some(ladder_v.span()),
            format!("{p}.ladder"),
            "expected at least one rate",
        ));
    }
    Ok(ladder)
}

/// A video's `safety` (default 0.9): the share of the measured throughput the next segment's
/// rate may take, in (0, 1].
fn safety(cx: &Ctx<'_>, f: &RawFlow, p: &str) -> Result<f64, ScenarioError> {
    match &f.safety {
        None => Ok(0.9),
        Some(x) if *x.get_ref() > 0.0 && *x.get_ref() <= 1.0 => Ok(*x.get_ref()),
        Some(x) => Err(cx.err(
            Some(x.span()),
            format!("{p}.safety"),
            format!(
                "expected a share of the measured throughput in (0, 1], got {}",
                x.get_ref()
            ),
        )),
    }
}

/// `app = "web"` with `model = "packmime"`: `conns_per_s` only (PackMime draws the rest).
fn packmime(
    cx: &Ctx<'_>,
    f: &RawFlow,
    p: &str,
    span: Option<std::ops::Range<usize>>,
) -> Result<TcpApp, ScenarioError> {
    refuse(
        cx,
        span.clone(),
        p,
        &[
            present("interval", &f.interval),
            present("request_size", &f.request_size),
            present("size_dist", &f.size_dist),
            present("size_mean", &f.size_mean),
            present("size_shape", &f.size_shape),
            present("size_sigma", &f.size_sigma),
        ],
        "the simple web model: with model = \"packmime\", PackMime draws the arrivals and the request and response sizes (conns_per_s sets its rate)",
    )?;
    let rate = f.conns_per_s.as_ref().ok_or_else(|| {
        cx.err(
            span,
            format!("{p}.conns_per_s"),
            "PackMime web traffic needs its rate of new connections, like conns_per_s = 5.0",
        )
    })?;
    if !(*rate.get_ref() > 0.0 && *rate.get_ref() <= 1e6) {
        return Err(cx.err(
            Some(rate.span()),
            format!("{p}.conns_per_s"),
            format!(
                "expected a rate in (0, 1000000] connections per second, got {}",
                rate.get_ref()
            ),
        ));
    }
    let http11 = match f.http.as_ref().map(|h| h.get_ref().as_str()) {
        None | Some("1.0") => false,
        Some("1.1") => true,
        Some(other) => {
            return Err(cx.err(
                f.http.as_ref().map(|h| h.span()),
                format!("{p}.http"),
                format!("expected \"1.0\" or \"1.1\", got {other:?}"),
            ))
        }
    };
    Ok(TcpApp::PackMime {
        conns_per_s: *rate.get_ref(),
        http11,
    })
}

fn request_size(cx: &Ctx<'_>, r: &Bytes, p: &str) -> Result<u64, ScenarioError> {
    let b = r.checked(cx, &format!("{p}.request_size"))?.0;
    if b == 0 {
        return Err(cx.err(
            Some(r.span()),
            format!("{p}.request_size"),
            "expected a request size ≥ 1 byte, like request_size = \"300B\"",
        ));
    }
    Ok(b)
}

#[cfg(test)]
mod tests;
