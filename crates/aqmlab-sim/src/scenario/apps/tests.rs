use super::*;
use std::path::PathBuf;

/// A repeat flow's table, its `app` on line 4.
const REPEAT: &str = "kind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\napp = \"repeat\"\n";

type Error = (Option<usize>, String, String);

/// The step `step` on the flow `flows[0]` read from the table `REPEAT` + `keys` (its spans
/// in that table): what it gives, or its error's `(line, key path, message)`.
fn on<T>(keys: &str, step: impl Fn(&AppIn<'_>) -> Result<T, ScenarioError>) -> Result<T, Error> {
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
    step: impl Fn(&Ctx<'_>, &RawFlow, &str, Option<std::ops::Range<usize>>) -> Result<T, ScenarioError>,
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
