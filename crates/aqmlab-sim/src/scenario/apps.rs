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
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A repeat flow's table, its `app` on line 4.
    const REPEAT: &str = "kind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\napp = \"repeat\"\n";

    type Error = (Option<usize>, String, String);

    /// The step `step` on the flow `flows[0]` read from the table `REPEAT` + `keys` (its spans
    /// in that table): what it gives, or its error's `(line, key path, message)`.
    fn on<T>(
        keys: &str,
        step: impl Fn(&AppIn<'_>) -> Result<T, ScenarioError>,
    ) -> Result<T, Error> {
        let table = format!("{REPEAT}{keys}");
        let f: RawFlow = toml::from_str(&table).unwrap();
        let cx = Ctx {
            file: "t.toml".into(),
            text: &table,
            dir: PathBuf::new(),
        };
        let span = f.app.as_ref().map(|a| a.span());
        let x = AppIn {
            cx: &cx,
            f: &f,
            p: "flows[0]",
            span,
        };
        step(&x).map_err(|e| (e.line, e.path, e.msg))
    }

    fn e<T>(line: usize, path: &str, msg: &str) -> Result<T, Error> {
        Err((Some(line), path.to_string(), msg.to_string()))
    }

    fn ms(n: u64) -> SimDuration {
        SimDuration::from_millis(n)
    }

    #[test]
    fn repeat_size_is_bytes_or_drawn_from_size_mean() {
        let size = |keys: &str| on(keys, repeat_size);
        assert_eq!(
            size("bytes = \"1MB\""),
            Ok(SizeDist::Constant { bytes: 1_000_000 })
        );
        assert_eq!(
            size("size_mean = \"10KB\""),
            Ok(SizeDist::Pareto {
                mean: 10_000.0,
                shape: 1.2
            })
        );
        let msg = "give the transfer size either as bytes (each the same) or with size_mean (drawn): not both";
        assert_eq!(
            size("size_mean = \"10KB\"\nbytes = \"1MB\""),
            e(6, "flows[0].bytes", msg)
        );
        let msg = "size_dist needs size_mean (bytes gives every transfer the same size)";
        assert_eq!(
            size("bytes = \"1MB\"\nsize_dist = \"pareto\""),
            e(6, "flows[0].size_dist", msg)
        );
        // None: the app's line.
        let msg = "repeated transfers need a size: bytes = \"1MB\", or size_mean (with size_dist)";
        assert_eq!(size(""), e(4, "flows[0].bytes", msg));
        assert_eq!(
            size("bytes = \"0B\""),
            e(5, "flows[0].bytes", "expected bytes > 0")
        );
    }

    #[test]
    fn repeat_idle_is_constant_uniform_or_exponential() {
        let idle = |keys: &str| on(keys, repeat_idle);
        assert_eq!(idle("idle = \"10s\""), Ok(IdleDist::Constant(ms(10_000))));
        assert_eq!(
            idle("idle = \"250ms\"\nidle_dist = \"constant\""),
            Ok(IdleDist::Constant(ms(250)))
        );
        assert_eq!(
            idle("idle = \"2s\"\nidle_dist = \"exponential\""),
            Ok(IdleDist::Exponential { mean: ms(2000) })
        );
        let uniform = Ok(IdleDist::Uniform {
            lo: ms(5000),
            hi: ms(15_000),
        });
        assert_eq!(idle("idle = [\"5s\", \"15s\"]"), uniform);
        assert_eq!(
            idle("idle = [\"5s\", \"15s\"]\nidle_dist = \"uniform\""),
            uniform
        );
        let msg = "repeated transfers need an idle period: idle = \"10s\", or idle = [\"5s\", \"15s\"] (uniform)";
        assert_eq!(idle(""), e(4, "flows[0].idle", msg));
        let msg = "expected a uniform range of two durations, like [\"5s\", \"15s\"], got [\"1s\", \"2s\", \"3s\"]";
        assert_eq!(
            idle("idle = [\"1s\", \"2s\", \"3s\"]"),
            e(5, "flows[0].idle", msg)
        );
        let msg = "idle_dist = \"uniform\" needs a range of two durations, like idle = [\"5s\", \"15s\"], got \"10s\"";
        assert_eq!(
            idle("idle = \"10s\"\nidle_dist = \"uniform\""),
            e(5, "flows[0].idle", msg)
        );
        let msg = "expected constant, uniform or exponential, got \"nope\"";
        assert_eq!(
            idle("idle = [\"15s\", \"5s\"]\nidle_dist = \"nope\""),
            e(6, "flows[0].idle_dist", msg)
        );
    }

    #[test]
    fn idle_one_is_a_single_duration() {
        let one = |keys: &str| on(keys, |x| idle_one(x, x.f.idle.as_ref().unwrap()));
        assert_eq!(one("idle = \"3s\""), Ok(ms(3000)));
        let msg = "expected a duration with a unit, like \"10s\", got [\"5s\", \"15s\"]";
        assert_eq!(one("idle = [\"5s\", \"15s\"]"), e(5, "flows[0].idle", msg));
        let msg = "expected a duration with a unit, like \"5ms\", \"100us\", \"1.5s\" or \"250ns\", got \"x\"";
        assert_eq!(one("idle = \"x\""), e(5, "flows[0].idle", msg));
    }

    #[test]
    fn idle_range_is_low_to_high_each_element_named() {
        let range = |keys: &str| {
            on(keys, |x| {
                let v = x.f.idle.as_ref().unwrap();
                let IdleValue::List(a) = &v.value else {
                    panic!("a list")
                };
                idle_range(x, v, a)
            })
        };
        assert_eq!(
            range("idle = [\"5s\", \"5s\"]"),
            Ok(IdleDist::Uniform {
                lo: ms(5000),
                hi: ms(5000)
            })
        );
        let msg = "expected [low, high] with low ≤ high, got [\"15s\", \"5s\"]";
        assert_eq!(
            range("idle = [\"15s\", \"5s\"]"),
            e(5, "flows[0].idle", msg)
        );
        // The first element that is not a duration names itself.
        let msg = "expected a duration with a unit, like \"5ms\", \"100us\", \"1.5s\" or \"250ns\", got \"y\"";
        assert_eq!(
            range("idle = [\"5s\", \"y\"]"),
            e(5, "flows[0].idle[1]", msg)
        );
        let msg = "expected a duration with a unit, like \"5ms\", \"100us\", \"1.5s\" or \"250ns\", got \"x\"";
        assert_eq!(
            range("idle = [\"x\", \"y\"]"),
            e(5, "flows[0].idle[0]", msg)
        );
    }

    #[test]
    fn idle_restart_is_for_a_reused_connection() {
        let reuse = |keys: &str| on(keys, repeat_reuse);
        assert_eq!(reuse(""), Ok((false, true)));
        assert_eq!(reuse("reuse = true"), Ok((true, true)));
        assert_eq!(
            reuse("reuse = true\nidle_restart = false"),
            Ok((true, false))
        );
        let msg = "idle_restart applies to a reused connection (reuse = true): each fresh connection starts from its initial window";
        assert_eq!(
            reuse("idle_restart = true"),
            e(4, "flows[0].idle_restart", msg)
        );
        assert_eq!(
            reuse("reuse = false\nidle_restart = false"),
            e(4, "flows[0].idle_restart", msg)
        );
    }

    #[test]
    fn repeat_reports_the_size_then_the_idle_period_then_the_reuse() {
        let repeat = |keys: &str| {
            on(keys, |x| repeat(x.cx, x.f, x.p, x.span.clone())).map_err(|(_, path, _)| path)
        };
        let all = "bytes = \"0B\"\nidle = \"x\"\nidle_restart = true";
        assert_eq!(repeat(all), Err("flows[0].bytes".into()));
        let rest = "bytes = \"1B\"\nidle = \"x\"\nidle_restart = true";
        assert_eq!(repeat(rest), Err("flows[0].idle".into()));
        let last = "bytes = \"1B\"\nidle = \"1s\"\nidle_restart = true";
        assert_eq!(repeat(last), Err("flows[0].idle_restart".into()));
        assert_eq!(
            repeat("bytes = \"1B\"\nidle = \"1s\"\nreuse = true"),
            Ok(TcpApp::Repeat {
                size: SizeDist::Constant { bytes: 1 },
                idle: IdleDist::Constant(ms(1000)),
                reuse: true,
                restart_after_idle: true,
            })
        );
    }

    #[test]
    fn a_size_is_pareto_lognormal_or_constant_each_with_its_own_keys() {
        let size = |keys: &str| on(keys, |x| size_dist(x.cx, x.f, x.p));
        assert_eq!(
            size(""),
            Ok(SizeDist::Pareto {
                mean: 50_000.0,
                shape: 1.2
            })
        );
        assert_eq!(
            size("size_dist = \"lognormal\"\nsize_mean = \"2KB\"\nsize_sigma = 0.5"),
            Ok(SizeDist::Lognormal {
                mean: 2000.0,
                sigma: 0.5
            })
        );
        assert_eq!(
            size("size_dist = \"constant\"\nsize_mean = \"700B\""),
            Ok(SizeDist::Constant { bytes: 700 })
        );
        assert_eq!(
            size("size_mean = \"0B\""),
            e(5, "flows[0].size_mean", "expected a mean size ≥ 1 byte")
        );
        assert_eq!(
            size("size_dist = \"uniform\""),
            e(
                5,
                "flows[0].size_dist",
                "expected pareto, lognormal or constant, got \"uniform\""
            )
        );
        // Another distribution's parameter is refused, named with the distribution.
        assert_eq!(
            size("size_sigma = 1.0"),
            e(
                5,
                "flows[0].size_sigma",
                "size_sigma does not apply to size_dist = \"pareto\""
            )
        );
        assert_eq!(
            size("size_dist = \"lognormal\"\nsize_shape = 1.5"),
            e(
                6,
                "flows[0].size_shape",
                "size_shape does not apply to size_dist = \"lognormal\""
            )
        );
        assert_eq!(
            size("size_dist = \"constant\"\nsize_sigma = 1.0")
                .unwrap_err()
                .2,
            "size_sigma does not apply to size_dist = \"constant\""
        );
    }

    #[test]
    fn a_pareto_shape_is_above_1_and_finite() {
        let shape = |keys: &str| on(keys, |x| pareto_shape(x.cx, x.f, x.p));
        assert_eq!(shape(""), Ok(1.2));
        assert_eq!(shape("size_shape = 1.01"), Ok(1.01));
        assert_eq!(
            shape("size_shape = 1.0"),
            e(
                5,
                "flows[0].size_shape",
                "expected a Pareto shape > 1 (finite mean), got 1"
            )
        );
        assert_eq!(
            shape("size_shape = inf").unwrap_err().2,
            "expected a Pareto shape > 1 (finite mean), got inf"
        );
    }

    #[test]
    fn a_lognormal_sigma_keeps_the_mean_and_a_spread_a_run_shows() {
        let sigma = |keys: &str, mean: f64| on(keys, |x| lognormal_sigma(x.cx, x.f, x.p, mean));
        assert_eq!(sigma("", 50_000.0), Ok(1.0));
        assert_eq!(sigma("size_sigma = 0.0", 50_000.0), Ok(0.0));
        assert_eq!(sigma("size_sigma = 3.0", 50_000.0), Ok(3.0));
        assert_eq!(
            sigma("size_sigma = 3.01", 50_000.0),
            e(
                5,
                "flows[0].size_sigma",
                "expected sigma from 0 to 3 (above 3 a run's transfers would not show the mean: \
                 their spread, √(exp(σ²) − 1), is 90 times the mean at σ = 3), got 3.01"
            )
        );
        // A small mean: √(2·ln 10) = 2.1459…
        assert_eq!(sigma("size_sigma = 2.14", 10.0), Ok(2.14));
        assert_eq!(
            sigma("size_sigma = 2.15", 10.0).unwrap_err().2,
            "expected sigma from 0 to 2.145 (√(2·ln size_mean) for size_mean = 10 bytes: above \
             it most sizes would be under 1 byte and clamped to 1, so the mean would not be \
             kept), got 2.15"
        );
        assert_eq!(
            sigma("size_sigma = -0.1", 50_000.0).unwrap_err().2,
            "expected sigma from 0 to 3 (above 3 a run's transfers would not show the mean: \
             their spread, √(exp(σ²) − 1), is 90 times the mean at σ = 3), got -0.1"
        );
    }

    #[test]
    fn a_ladder_has_increasing_rates_above_0() {
        let ladder = |keys: &str| on(keys, |x| ladder(x.cx, x.f, x.p));
        assert_eq!(
            ladder("ladder = [\"1Mbps\", \"2.5Mbps\"]"),
            Ok(vec![
                Bitrate::from_bps(1_000_000),
                Bitrate::from_bps(2_500_000)
            ])
        );
        assert_eq!(
            ladder(""),
            e(
                4,
                "flows[0].ladder",
                "a video needs its bitrate ladder, like ladder = [\"1Mbps\", \"2.5Mbps\", \"5Mbps\"]"
            )
        );
        assert_eq!(
            ladder("ladder = []"),
            e(5, "flows[0].ladder", "expected at least one rate")
        );
        assert_eq!(
            ladder("ladder = [\"2Mbps\", \"2Mbps\"]"),
            e(
                5,
                "flows[0].ladder[1]",
                "expected increasing rates > 0, got \"2Mbps\""
            )
        );
        assert_eq!(
            ladder("ladder = [\"0Mbps\"]"),
            e(
                5,
                "flows[0].ladder[0]",
                "expected increasing rates > 0, got \"0Mbps\""
            )
        );
    }

    #[test]
    fn a_safety_is_a_share_in_0_to_1() {
        let safety = |keys: &str| on(keys, |x| safety(x.cx, x.f, x.p));
        assert_eq!(safety(""), Ok(0.9));
        assert_eq!(safety("safety = 1.0"), Ok(1.0));
        assert_eq!(safety("safety = 0.01"), Ok(0.01));
        assert_eq!(
            safety("safety = 0.0"),
            e(
                5,
                "flows[0].safety",
                "expected a share of the measured throughput in (0, 1], got 0"
            )
        );
        assert_eq!(
            safety("safety = 1.5").unwrap_err().2,
            "expected a share of the measured throughput in (0, 1], got 1.5"
        );
    }

    #[test]
    fn a_video_has_a_segment_of_1ms_or_more_and_a_buffer_of_a_segment_or_more() {
        let video = |keys: &str| on(keys, |x| video(x.cx, x.f, x.p));
        let ladder = "ladder = [\"1Mbps\"]\n";
        assert_eq!(
            video(ladder),
            Ok(TcpApp::Video(VideoSpec {
                segment: SimDuration::from_secs(2),
                ladder: vec![Bitrate::from_bps(1_000_000)],
                buffer: SimDuration::from_secs(20),
                safety: 0.9,
                request_bytes: DEFAULT_REQUEST_BYTES,
            }))
        );
        assert_eq!(
            video(&format!("{ladder}segment = \"999us\"")),
            e(
                6,
                "flows[0].segment",
                "expected a segment duration of at least 1ms"
            )
        );
        assert_eq!(
            video(&format!(
                "{ladder}segment = \"4s\"\nplayout_buffer = \"3s\""
            )),
            e(
                7,
                "flows[0].playout_buffer",
                "expected a playout buffer of at least one segment"
            )
        );
        // A buffer not given (20 s) is named at the segment that outgrows it.
        assert_eq!(
            video(&format!("{ladder}segment = \"21s\"")),
            e(
                6,
                "flows[0].playout_buffer",
                "expected a playout buffer of at least one segment"
            )
        );
        let one = video(&format!(
            "{ladder}segment = \"1ms\"\nplayout_buffer = \"1ms\""
        ));
        assert!(matches!(one, Ok(TcpApp::Video(v)) if v.buffer == v.segment));
    }

    /// `step` on flow `flows[0]` read from the table `kind = "tcp"` (line 1) + `keys` (from
    /// line 2) + its `from` and `to`, given the app's span (the kind's without an app) as `tcp_app` gives it.
    fn tcp<T>(
        keys: &str,
        step: impl Fn(
            &Ctx<'_>,
            &RawFlow,
            &str,
            Option<std::ops::Range<usize>>,
        ) -> Result<T, ScenarioError>,
    ) -> Result<T, Error> {
        let table = format!("kind = \"tcp\"\n{keys}\nfrom = \"a\"\nto = \"b\"\n");
        let f: RawFlow = toml::from_str(&table).unwrap();
        let cx = Ctx::new("t.toml", &table, std::path::Path::new(""));
        let span = f.app.as_ref().map(|a| a.span()).or(Some(f.kind.span()));
        step(&cx, &f, "flows[0]", span).map_err(|e| (e.line, e.path, e.msg))
    }

    #[test]
    fn on_off_periods_need_both_times_an_on_time_above_0_and_a_shape_above_1() {
        let periods = |keys: &str| tcp(keys, |cx, f, p, _| on_off(cx, f, p));
        assert_eq!(periods(""), Ok(None));
        assert_eq!(
            periods("on_time = \"1s\"\noff_time = \"2s\""),
            Ok(Some(OnOff {
                mean_on: SimDuration::from_secs(1),
                mean_off: SimDuration::from_secs(2),
                pareto_shape: None
            }))
        );
        assert_eq!(
            periods("on_time = \"1s\"\noff_time = \"0s\"\nonoff_shape = 1.5")
                .map(|o| o.unwrap().pareto_shape),
            Ok(Some(1.5))
        );
        assert_eq!(
            periods("on_time = \"1s\""),
            e(
                1,
                "flows[0]",
                "an on/off source needs both on_time and off_time"
            )
        );
        assert_eq!(
            periods("onoff_shape = 1.5"),
            e(
                2,
                "flows[0].onoff_shape",
                "onoff_shape needs on_time and off_time"
            )
        );
        assert_eq!(
            periods("on_time = \"0s\"\noff_time = \"1s\""),
            e(2, "flows[0].on_time", "expected a mean on time > 0")
        );
        assert_eq!(
            periods("on_time = \"1s\"\noff_time = \"1s\"\nonoff_shape = 1.0"),
            e(
                4,
                "flows[0].onoff_shape",
                "expected a Pareto shape > 1, got 1"
            )
        );
    }

    #[test]
    fn an_app_takes_its_own_keys_only() {
        let app = |keys: &str| tcp(keys, |cx, f, p, _| tcp_app(cx, f, p));
        assert_eq!(app(""), Ok(TcpApp::Bulk));
        assert_eq!(
            app("app = \"finite\"\nbytes = \"2kB\""),
            Ok(TcpApp::Finite { bytes: 2000 })
        );
        assert_eq!(
            app("app = \"bulky\""),
            e(
                2,
                "flows[0].app",
                "expected bulk, finite, repeat, onoff, web, page or video, got \"bulky\""
            )
        );
        assert_eq!(
            app("bytes = \"1MB\""),
            e(
                1,
                "flows[0].bytes",
                "a bulk transfer is infinite: use app = \"finite\" with bytes"
            )
        );
        assert_eq!(
            app("app = \"finite\"\nbytes = \"1MB\"\nsize_mean = \"1kB\""),
            e(
                2,
                "flows[0].app",
                "size_dist, size_mean, size_shape and size_sigma belong to app = \"web\", \"page\" and \"repeat\""
            )
        );
        assert_eq!(
            app("app = \"page\"\nconns_per_s = 1.0\nbytes = \"1MB\""),
            e(
                2,
                "flows[0].bytes",
                "a page's objects are sized by size_dist/size_mean, a video's segments by ladder and segment: not bytes"
            )
        );
        // A key of another application, with the hint for a tcp flow's rate.
        assert_eq!(
            app("rate = \"1Mbps\""),
            e(
                2,
                "flows[0].rate",
                "rate belongs to udp flows and app = \"onoff\" (a tcp flow's rate is its congestion control's; use bytes or size_mean for transfer sizes)"
            )
        );
    }

    #[test]
    fn an_onoff_app_writes_at_a_rate_above_0_in_writes_of_1_byte_to_1_gib() {
        let onoff = |keys: &str| tcp(&format!("app = \"onoff\"\n{keys}"), onoff);
        let periods = "on_time = \"1s\"\noff_time = \"1s\"\n";
        assert_eq!(
            onoff(&format!(
                "rate = \"1Mbps\"\n{periods}size = 1073741824\nidle_restart = false"
            )),
            Ok(TcpApp::OnOff {
                rate: Bitrate::from_bps(1_000_000),
                write_bytes: 1 << 30,
                periods: OnOff {
                    mean_on: SimDuration::from_secs(1),
                    mean_off: SimDuration::from_secs(1),
                    pareto_shape: None
                },
                restart_after_idle: false
            })
        );
        let write = |keys: &str| {
            onoff(&format!("rate = \"1Mbps\"\n{periods}{keys}")).map(|a| match a {
                TcpApp::OnOff { write_bytes, .. } => write_bytes,
                _ => unreachable!(),
            })
        };
        assert_eq!(write(""), Ok(1460));
        assert_eq!(write("size = 1"), Ok(1));
        assert_eq!(
            write("size = 1073741825"),
            e(
                6,
                "flows[0].size",
                "expected the bytes of each write, from 1 to 1073741824, got 1073741825"
            )
        );
        assert_eq!(
            onoff(periods),
            e(
                2,
                "flows[0].rate",
                "an on/off application needs the rate it writes at during on periods, like rate = \"64kbps\""
            )
        );
        assert_eq!(
            onoff(&format!("rate = \"0bps\"\n{periods}")),
            e(3, "flows[0].rate", "expected a rate > 0")
        );
        assert_eq!(
            onoff("rate = \"1Mbps\""),
            e(
                2,
                "flows[0]",
                "an on/off application needs on_time and off_time (mean periods; onoff_shape for Pareto)"
            )
        );
        assert_eq!(
            onoff("bytes = \"1MB\"").unwrap_err().2,
            "an on/off application writes size bytes at rate during its on periods, not bytes"
        );
    }

    #[test]
    fn arrivals_are_poisson_or_periodic_one_of_them() {
        let arr = |keys: &str| {
            tcp(keys, |cx, f, p, span| {
                arrivals(cx, f, p, span, "none given")
            })
        };
        assert_eq!(
            arr("conns_per_s = 2.5"),
            Ok(Arrivals::Poisson { per_s: 2.5 })
        );
        assert_eq!(
            arr("conns_per_s = 1e6"),
            Ok(Arrivals::Poisson { per_s: 1e6 })
        );
        assert_eq!(
            arr("interval = \"1us\""),
            Ok(Arrivals::Periodic {
                interval: SimDuration::from_micros(1)
            })
        );
        assert_eq!(arr(""), e(1, "flows[0].conns_per_s", "none given"));
        assert_eq!(
            arr("conns_per_s = 1.0\ninterval = \"1s\""),
            e(
                3,
                "flows[0].interval",
                "give conns_per_s (Poisson arrivals) or interval (one request every interval), not both"
            )
        );
        let over = "expected a rate in (0, 1000000] connections per second, got";
        assert_eq!(
            arr("conns_per_s = 0.0"),
            e(2, "flows[0].conns_per_s", &format!("{over} 0"))
        );
        assert_eq!(
            arr("conns_per_s = 1000001.0").unwrap_err().2,
            format!("{over} 1000001")
        );
        assert_eq!(
            arr("interval = \"999ns\""),
            e(
                2,
                "flows[0].interval",
                "expected an interval of at least 1us, got \"999ns\""
            )
        );
    }

    #[test]
    fn a_web_flow_is_the_simple_model_or_packmime() {
        let web = |keys: &str| tcp(&format!("app = \"web\"\n{keys}"), web);
        assert_eq!(
            web("conns_per_s = 1.0\nrequest_size = \"1B\""),
            Ok(TcpApp::Web {
                arrivals: Arrivals::Poisson { per_s: 1.0 },
                size: SizeDist::Pareto {
                    mean: 50_000.0,
                    shape: 1.2
                },
                request_bytes: 1
            })
        );
        assert_eq!(
            web("model = \"packmime\"\nconns_per_s = 3.0\nhttp = \"1.1\""),
            Ok(TcpApp::PackMime {
                conns_per_s: 3.0,
                http11: true
            })
        );
        assert_eq!(
            web("model = \"ns2\""),
            e(
                3,
                "flows[0].model",
                "expected simple or packmime, got \"ns2\""
            )
        );
        assert_eq!(
            web("conns_per_s = 1.0\nhttp = \"1.1\""),
            e(
                4,
                "flows[0].http",
                "http belongs to model = \"packmime\" (the simple model's connections carry one exchange each)"
            )
        );
        assert_eq!(
            web("conns_per_s = 1.0\nrequest_size = \"0B\""),
            e(
                4,
                "flows[0].request_size",
                "expected a request size ≥ 1 byte, like request_size = \"300B\""
            )
        );
        assert_eq!(
            web("bytes = \"1MB\"").unwrap_err().2,
            "web responses are sized by size_dist/size_mean and requests by request_size, not bytes"
        );
    }

    #[test]
    fn packmime_takes_its_rate_and_http_version_only() {
        let pm = |keys: &str| {
            tcp(
                &format!("app = \"web\"\nmodel = \"packmime\"\n{keys}"),
                packmime,
            )
        };
        assert_eq!(
            pm("conns_per_s = 2.0"),
            Ok(TcpApp::PackMime {
                conns_per_s: 2.0,
                http11: false
            })
        );
        assert_eq!(
            pm("conns_per_s = 2.0\nsize_mean = \"1kB\""),
            e(
                5,
                "flows[0].size_mean",
                "size_mean belongs to the simple web model: with model = \"packmime\", PackMime draws the arrivals and the request and response sizes (conns_per_s sets its rate)"
            )
        );
        assert_eq!(
            pm(""),
            e(
                2,
                "flows[0].conns_per_s",
                "PackMime web traffic needs its rate of new connections, like conns_per_s = 5.0"
            )
        );
        assert_eq!(
            pm("conns_per_s = -1.0"),
            e(
                4,
                "flows[0].conns_per_s",
                "expected a rate in (0, 1000000] connections per second, got -1"
            )
        );
        assert_eq!(
            pm("conns_per_s = 2.0\nhttp = \"2\""),
            e(5, "flows[0].http", "expected \"1.0\" or \"1.1\", got \"2\"")
        );
    }

    #[test]
    fn a_page_has_1_to_100000_objects_and_connections() {
        let page = |keys: &str| tcp(&format!("app = \"page\"\nconns_per_s = 0.5\n{keys}"), page);
        assert_eq!(
            page(""),
            Ok(TcpApp::Page {
                arrivals: Arrivals::Poisson { per_s: 0.5 },
                objects: 50,
                parallel: 6,
                size: SizeDist::Pareto {
                    mean: 50_000.0,
                    shape: 1.2
                },
                request_bytes: 300
            })
        );
        let counts = |keys: &str| {
            page(keys).map(|a| match a {
                TcpApp::Page {
                    objects, parallel, ..
                } => (objects, parallel),
                _ => unreachable!(),
            })
        };
        assert_eq!(counts("objects = 1\nparallel = 100000"), Ok((1, 100_000)));
        assert_eq!(
            counts("objects = 0"),
            e(
                4,
                "flows[0].objects",
                "expected objects per page from 1 to 100000, got 0"
            )
        );
        assert_eq!(
            counts("parallel = 100001"),
            e(
                4,
                "flows[0].parallel",
                "expected connections per page from 1 to 100000, got 100001"
            )
        );
    }

    #[test]
    fn an_idle_duration_is_its_value_or_its_error_at_the_values_line() {
        let checked = |r: Result<SimDuration, String>| {
            on("idle = \"5ms\"", |x| {
                idle_checked(x, x.f.idle.as_ref().unwrap(), &r, "flows[0].idle[1]")
            })
        };
        assert_eq!(checked(Ok(ms(5))), Ok(ms(5)));
        assert_eq!(checked(Err("bad".into())), e(5, "flows[0].idle[1]", "bad"));
    }

    #[test]
    fn a_request_size_is_at_least_a_byte_and_a_present_key_has_its_place() {
        let size = |keys: &str| {
            on(keys, |x| {
                request_size(x.cx, x.f.request_size.as_ref().unwrap(), x.p)
            })
        };
        assert_eq!(size("request_size = \"1B\""), Ok(1));
        assert_eq!(size("request_size = \"2kB\""), Ok(2000));
        assert_eq!(
            size("request_size = \"0B\""),
            e(
                5,
                "flows[0].request_size",
                "expected a request size ≥ 1 byte, like request_size = \"300B\""
            )
        );
        let table = format!("{REPEAT}request_size = \"1B\"\n");
        let f: RawFlow = toml::from_str(&table).unwrap();
        let (key, given, at) = present("request_size", &f.request_size);
        assert_eq!((key, given), ("request_size", true));
        assert_eq!(&table[at.unwrap()], "\"1B\"");
        assert_eq!(present("interval", &f.interval), ("interval", false, None));
    }
}
