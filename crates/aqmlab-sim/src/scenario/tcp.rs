//! A TCP flow's sender settings from its `[[flows]]` keys (`docs/data-format.md`, "Scenario
//! keys for TCP"): the congestion control, the loss-recovery options and every sender knob,
//! each checked and reported with its key path.

use super::raw_units::FlowTime;
use super::*;

fn int_in(
    cx: &Ctx<'_>,
    v: &Option<Spanned<i64>>,
    path: String,
    lo: i64,
    hi: i64,
    what: &str,
) -> Result<Option<u32>, ScenarioError> {
    match v {
        None => Ok(None),
        Some(x) if (lo..=hi).contains(x.get_ref()) => Ok(Some(*x.get_ref() as u32)),
        Some(x) => Err(cx.err(
            Some(x.span()),
            path,
            format!("expected {what} between {lo} and {hi}, got {}", x.get_ref()),
        )),
    }
}

/// TCP parameters of a flow; defaults are `TcpConfig::default()` (Linux-like) with CUBIC. Read
/// in steps, each checking its keys in the order errors are reported: the congestion control
/// ([`cc_knob`]), the segment counts ([`segment_knobs`]), the switches ([`switch_knobs`]), the
/// timers ([`timer_knobs`]), then the other knobs ([`tcp_knobs`]); the whole checked last.
pub(super) fn tcp_config(cx: &Ctx<'_>, f: &RawFlow, p: &str) -> Result<TcpConfig, ScenarioError> {
    let k = FlowIn { cx, f, p };
    let mut cfg = TcpConfig::with_cc(CcKind::Cubic);
    cc_knob(&k, &mut cfg)?;
    segment_knobs(&k, &mut cfg)?;
    switch_knobs(&k, &mut cfg)?;
    timer_knobs(&k, &mut cfg)?;
    tcp_knobs(&k, &mut cfg)?;
    cfg.validate()
        .map_err(|e| cx.err(Some(f.kind.span()), p, e.to_string()))?;
    Ok(cfg)
}

/// `cc`: the congestion control, by its name (CUBIC unless given).
fn cc_knob(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    if let Some(cc) = &f.cc {
        cfg.cc.kind = match cc.get_ref().as_str() {
            "tahoe" => CcKind::Tahoe,
            "reno" => CcKind::Reno,
            "newreno" => CcKind::NewReno,
            "cubic" => CcKind::Cubic,
            "vegas" => CcKind::Vegas,
            "dctcp" => CcKind::Dctcp,
            "bbr" => CcKind::Bbr,
            "bbr3" => CcKind::Bbr3,
            "prague" => CcKind::Prague,
            "ledbat" => CcKind::Ledbat,
            other => {
                return Err(cx.err(
                    Some(cc.span()),
                    format!("{p}.cc"),
                    format!(
                        "expected tahoe, reno, newreno, cubic, vegas, dctcp, bbr, bbr3, prague or ledbat, got {other:?}"
                    ),
                ))
            }
        };
    }
    Ok(())
}

/// `mss` (bytes), `max_window` and `initial_cwnd` (segments), each in its range.
fn segment_knobs(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    if let Some(m) = int_in(
        cx,
        &f.mss,
        format!("{p}.mss"),
        100,
        65_495,
        "an MSS in bytes",
    )? {
        cfg.mss = m;
    }
    if let Some(w) = int_in(
        cx,
        &f.max_window,
        format!("{p}.max_window"),
        1,
        1 << 24,
        "a window in segments",
    )? {
        cfg.max_window_segments = Some(w);
    }
    if let Some(w) = int_in(
        cx,
        &f.initial_cwnd,
        format!("{p}.initial_cwnd"),
        1,
        1 << 16,
        "an initial window in segments",
    )? {
        cfg.initial_cwnd_segments = w;
    }
    Ok(())
}

/// The switches `delayed_ack`, `sack`, `ecn`, `accecn` (Prague: both on unless set),
/// `handshake` and `hystart` (not with Vegas).
fn switch_knobs(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    if let Some(b) = f.delayed_ack {
        cfg.delayed_ack = b;
    }
    if let Some(b) = f.sack {
        cfg.sack = b;
    }
    if let Some(b) = f.ecn {
        cfg.ecn = b;
    }
    if cfg.cc.kind == CcKind::Prague {
        // TCP Prague negotiates AccECN itself (RFC 9768; issue 22): ECN on unless set.
        cfg.ecn = f.ecn.unwrap_or(true);
        cfg.accecn = true;
    }
    if let Some(b) = f.accecn {
        cfg.accecn = b;
    }
    if let Some(b) = f.handshake {
        cfg.handshake = b;
    }
    if let Some(b) = f.hystart {
        if b && cfg.cc.kind == CcKind::Vegas {
            return Err(cx.err(
                Some(f.kind.span()),
                format!("{p}.hystart"),
                "HyStart++ applies to reno, newreno and cubic (Vegas has its own slow-start exit)",
            ));
        }
        cfg.cc.hystart = b;
    }
    Ok(())
}

/// `min_rto` (above 0, at most the maximum RTO) and `delack_timeout` (above 0, below 500 ms).
fn timer_knobs(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    if let Some(r) = &f.min_rto {
        let path = format!("{p}.min_rto");
        let d = r.checked(cx, &path)?.0;
        if d == SimDuration::ZERO || d > cfg.max_rto {
            return Err(cx.err(
                Some(r.span()),
                path,
                format!(
                    "expected a minimum RTO > 0 and at most the maximum RTO, {}, got {:?}",
                    cfg.max_rto,
                    r.text()
                ),
            ));
        }
        cfg.min_rto = d;
    }
    if let Some(r) = &f.delack_timeout {
        // Linux holds a delayed ACK up to 40 ms (the default), ns-2's DelAck sink 100 ms, ns-3
        // 200 ms: comparisons with those simulators set it.
        let path = format!("{p}.delack_timeout");
        let d = r.checked(cx, &path)?.0;
        if d == SimDuration::ZERO || d >= SimDuration::from_millis(500) {
            return Err(cx.err(
                Some(r.span()),
                path,
                format!(
                    "expected a delayed-ACK timeout > 0 and below 500ms (RFC 9293 §3.8.6.3), got {:?}",
                    r.text()
                ),
            ));
        }
        cfg.delack_timeout = d;
    }
    Ok(())
}

/// A TCP flow's keys as its sender's settings are read from them: where the flow is in the
/// file (for errors) and its `[[flows]]` table.
struct FlowIn<'a> {
    cx: &'a Ctx<'a>,
    f: &'a RawFlow,
    /// The flow's key path (`flows[0]`).
    p: &'a str,
}

/// The RTO bounds, loss recovery and congestion-control parameters of a flow (issue 14), in
/// steps, each checking its keys in the order errors are reported: the RTO's
/// ([`rto_knobs`]), loss recovery's ([`recovery_knobs`]), a key of another controller refused
/// ([`refuse_other_cc`]), then each controller's ([`cubic_knobs`], [`vegas_knobs`],
/// [`ledbat_knobs`], [`dctcp_prague_knobs`]) and Vegas's alpha <= beta ([`vegas_order`]).
fn tcp_knobs(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    rto_knobs(k, cfg)?;
    recovery_knobs(k, cfg)?;
    refuse_other_cc(k, cfg)?;
    cubic_knobs(k, cfg)?;
    vegas_knobs(k, cfg)?;
    ledbat_knobs(k, cfg)?;
    dctcp_prague_knobs(k, cfg)?;
    vegas_order(k, cfg)
}

/// `max_rto` (at least the minimum RTO) and `initial_rto`, each a duration > 0.
fn rto_knobs(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    let positive = |v: &FlowTime, key: &str| -> Result<SimDuration, ScenarioError> {
        let path = format!("{p}.{key}");
        let d = v.checked(cx, &path)?;
        if d == SimDuration::ZERO {
            return Err(cx.err(Some(v.span()), path, "expected a duration > 0"));
        }
        Ok(d)
    };
    if let Some(v) = &f.max_rto {
        cfg.max_rto = positive(v, "max_rto")?;
        if cfg.max_rto < cfg.min_rto {
            return Err(cx.err(
                Some(v.span()),
                format!("{p}.max_rto"),
                format!(
                    "expected a maximum RTO of at least the minimum RTO, {}, got {:?}",
                    cfg.min_rto,
                    v.text()
                ),
            ));
        }
    }
    if let Some(v) = &f.initial_rto {
        // RFC 6298 §2.1 says 1 s (the default); ns-2 and ns-3 use 3 s (RFC 1122's value).
        cfg.initial_rto = positive(v, "initial_rto")?;
    }
    Ok(())
}

/// Loss recovery, in steps, each with the options it needs, in the order errors are reported:
/// `initial_ssthresh` and `dupack_threshold` ([`threshold_knobs`]), `prr` and `recovery`
/// ([`sack_recovery_knobs`]), `rescue` and `recover_guard` ([`guard_knobs`]), `rto_ssthresh`
/// ([`rto_ssthresh_knob`]), and `pacing`.
fn recovery_knobs(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    threshold_knobs(k, cfg)?;
    sack_recovery_knobs(k, cfg)?;
    guard_knobs(k, cfg)?;
    rto_ssthresh_knob(k, cfg)?;
    if let Some(b) = k.f.pacing {
        // Linux's sk_pacing_rate / ns-3's TcpSocketState pacing (issue 22).
        cfg.pacing = b;
    }
    Ok(())
}

/// `initial_ssthresh` (segments, kept in bytes of the flow's MSS) and `dupack_threshold`.
fn threshold_knobs(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    if let Some(w) = int_in(
        cx,
        &f.initial_ssthresh,
        format!("{p}.initial_ssthresh"),
        2,
        1 << 24,
        "an initial ssthresh in segments",
    )? {
        cfg.initial_ssthresh = Some(u64::from(w) * u64::from(cfg.mss));
    }
    if let Some(n) = int_in(
        cx,
        &f.dupack_threshold,
        format!("{p}.dupack_threshold"),
        1,
        1000,
        "a duplicate-ACK threshold",
    )? {
        cfg.dupack_threshold = n;
    }
    Ok(())
}

/// `prr` and `recovery = "rack"`, each of which needs `sack = true`.
fn sack_recovery_knobs(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    if let Some(b) = f.prr {
        if b && !cfg.sack {
            return Err(cx.err(
                Some(f.kind.span()),
                format!("{p}.prr"),
                "prr (RFC 6937) needs sack = true: it paces recovery by RFC 6675's pipe",
            ));
        }
        cfg.prr = b;
    }
    if let Some(r) = &f.recovery {
        // Loss detection: RFC 6675's DupThresh and IsLost, or RACK (RFC 8985, Linux's default).
        cfg.rack = match r.get_ref().as_str() {
            "rfc6675" => false,
            "rack" if cfg.sack => true,
            "rack" => {
                return Err(cx.err(
                    Some(r.span()),
                    format!("{p}.recovery"),
                    "recovery = \"rack\" (RFC 8985) needs sack = true: it learns of deliveries from SACK",
                ))
            }
            other => {
                return Err(cx.err(
                    Some(r.span()),
                    format!("{p}.recovery"),
                    format!("expected rfc6675 or rack, got {other:?}"),
                ))
            }
        };
    }
    Ok(())
}

/// `rescue`, and `recover_guard`, which only classic Reno without SACK takes.
fn guard_knobs(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    if let Some(b) = f.rescue {
        // RFC 6675 §4 rule 4 (on by default, as the RFC says; Linux and ns-3 leave it out).
        cfg.rescue = b;
    }
    if let Some(b) = f.recover_guard {
        // RFC 6582 §3.2 step 1's guard for classic Reno (ns-2's Agent/TCP/Reno with bugFix_);
        // off by default, as RFC 5681 §3.2 has none. Only classic Reno's recovery lacks it.
        if cfg.cc.kind != CcKind::Reno || cfg.sack {
            return Err(cx.err(
                Some(f.kind.span()),
                format!("{p}.recover_guard"),
                format!(
                    "recover_guard applies to cc = \"reno\" with sack = false (NewReno and Tahoe \
                     always guard, SACK recovery uses RFC 6675's RecoveryPoint); this flow has \
                     cc = \"{}\", sack = {}",
                    cfg.cc.kind.as_str(),
                    cfg.sack
                ),
            ));
        }
        cfg.recover_guard = b;
    }
    Ok(())
}

/// `rto_ssthresh`: `rfc5681` or `ns2`, for Tahoe, Reno and NewReno only.
fn rto_ssthresh_knob(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    if let Some(r) = &f.rto_ssthresh {
        // RFC 5681 §3.1 equation (4), or ns-2.35's TcpAgent::timeout (for comparisons with
        // ns-2: tests/fidelity/ns2/README.md).
        let Some(rule) = RtoSsthresh::parse(r.get_ref()) else {
            return Err(cx.err(
                Some(r.span()),
                format!("{p}.rto_ssthresh"),
                format!("expected rfc5681 or ns2, got {:?}", r.get_ref()),
            ));
        };
        if !matches!(cfg.cc.kind, CcKind::Tahoe | CcKind::Reno | CcKind::NewReno) {
            return Err(cx.err(
                Some(r.span()),
                format!("{p}.rto_ssthresh"),
                format!(
                    "rto_ssthresh applies to cc = \"tahoe\", \"reno\" and \"newreno\" (the \
                     controllers whose timeout halves the FlightSize the sender gives); this \
                     flow has cc = \"{}\"",
                    cfg.cc.kind.as_str()
                ),
            ));
        }
        cfg.rto_ssthresh = rule;
    }
    Ok(())
}

/// Parameters of one algorithm are refused with another, rather than silently ignored.
fn refuse_other_cc(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    // The flow-key table says which algorithm each belongs to.
    if let Some(k) = super::flow_keys::wrong_cc(&f.given(), cfg.cc.kind) {
        return Err(cx.err(
            Some(f.kind.span()),
            format!("{p}.{}", k.name),
            format!(
                "{} applies to {}; this flow has cc = \"{}\"",
                k.name,
                k.applies.describe(),
                cfg.cc.kind.as_str()
            ),
        ));
    }
    Ok(())
}

/// CUBIC's `cubic_beta`, `cubic_c` and switches (RFC 9438).
fn cubic_knobs(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    if let Some(b) = &f.cubic_beta {
        let x = *b.get_ref();
        if !(x > 0.0 && x < 1.0) {
            return Err(cx.err(
                Some(b.span()),
                format!("{p}.cubic_beta"),
                format!("expected a decrease factor 0 < beta < 1 (RFC 9438: 0.7), got {x}"),
            ));
        }
        cfg.cc.cubic.beta = x;
    }
    if let Some(c) = &f.cubic_c {
        let x = *c.get_ref();
        if !(x > 0.0 && x <= 1e6) {
            return Err(cx.err(
                Some(c.span()),
                format!("{p}.cubic_c"),
                format!("expected C > 0 in segments/s^3 (RFC 9438: 0.4), got {x}"),
            ));
        }
        cfg.cc.cubic.c = x;
    }
    if let Some(b) = f.cubic_fast_convergence {
        cfg.cc.cubic.fast_convergence = b;
    }
    if let Some(b) = f.cubic_reno_friendly {
        cfg.cc.cubic.reno_friendly = b;
    }
    if let Some(b) = f.cubic_linux {
        if b && cfg.cc.hystart {
            return Err(cx.err(
                Some(f.kind.span()),
                format!("{p}.cubic_linux"),
                "cubic_linux brings Linux's own HyStart: drop hystart (HyStart++, RFC 9406)",
            ));
        }
        cfg.cc.cubic.linux = b;
    }
    Ok(())
}

/// Vegas's `vegas_alpha`, `vegas_beta`, `vegas_gamma`: packets, 0 to 1000.
fn vegas_knobs(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    let packets = |v: &Option<Spanned<i64>>, key: &str| {
        int_in(cx, v, format!("{p}.{key}"), 0, 1000, "a number of packets")
    };
    if let Some(a) = packets(&f.vegas_alpha, "vegas_alpha")? {
        cfg.cc.vegas.alpha = a;
    }
    if let Some(b) = packets(&f.vegas_beta, "vegas_beta")? {
        cfg.cc.vegas.beta = b;
    }
    if let Some(g) = packets(&f.vegas_gamma, "vegas_gamma")? {
        cfg.cc.vegas.gamma = g;
    }
    Ok(())
}

/// LEDBAT's `ledbat_target`, `ledbat_gain` and `ledbat_allowed_increase` (RFC 6817).
fn ledbat_knobs(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    if let Some(t) = &f.ledbat_target {
        let path = format!("{p}.ledbat_target");
        let d = t.checked(cx, &path)?.0;
        if d == SimDuration::ZERO || d > SimDuration::from_millis(100) {
            return Err(cx.err(
                Some(t.span()),
                path,
                format!(
                    "expected a target delay > 0 and at most 100ms (RFC 6817 §2.5.1), got {:?}",
                    t.text()
                ),
            ));
        }
        cfg.cc.ledbat.target_us = (d.as_nanos() / 1000) as u32;
    }
    if let Some(g) = &f.ledbat_gain {
        let x = *g.get_ref();
        if !(x > 0.0 && x <= 1000.0) {
            return Err(cx.err(
                Some(g.span()),
                format!("{p}.ledbat_gain"),
                format!(
                    "expected a gain > 0 (RFC 6817 §2.5.2: at most 1; RFC 7928 §5.4: 10), got {x}"
                ),
            ));
        }
        cfg.cc.ledbat.gain = x as f32;
    }
    if let Some(a) = &f.ledbat_allowed_increase {
        let x = *a.get_ref();
        if !(0.0..=64.0).contains(&x) {
            return Err(cx.err(
                Some(a.span()),
                format!("{p}.ledbat_allowed_increase"),
                format!(
                    "expected segments between 0 and 64 (RFC 6817 §2.5.3: 1; 0 is ns-3 3.37's TcpLedbat), got {x}"
                ),
            ));
        }
        cfg.cc.ledbat.allowed_increase = x as f32;
    }
    Ok(())
}

/// DCTCP's `dctcp_g` (RFC 8257) and Prague's `prague_ecn_fallback`.
fn dctcp_prague_knobs(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    if let Some(g) = &f.dctcp_g {
        // RFC 8257 §3.3: the EWMA gain g of α ← (1 − g)·α + g·F, "0 < g < 1" (§4.2 suggests
        // 1/16); g = 1 (α is the last window's fraction) is accepted, as Linux's shift 0.
        let x = *g.get_ref();
        if !(x > 0.0 && x <= 1.0) {
            return Err(cx.err(
                Some(g.span()),
                format!("{p}.dctcp_g"),
                format!("expected an EWMA gain 0 < g <= 1 (RFC 8257 §3.3: 1/16), got {x}"),
            ));
        }
        cfg.cc.dctcp.g = x;
    }
    // The reference's prague_ecn_fallback: 0 none, 1 detection and fallback, 2 detection.
    if let Some(m) = int_in(
        cx,
        &f.prague_ecn_fallback,
        format!("{p}.prague_ecn_fallback"),
        0,
        2,
        "a mode (0 none, 1 classic-ECN detection and fallback, 2 detection only)",
    )? {
        cfg.cc.prague.ecn_fallback = m as u8;
    }
    Ok(())
}

/// Vegas's alpha at most its beta (as given, or their defaults).
fn vegas_order(k: &FlowIn<'_>, cfg: &mut TcpConfig) -> Result<(), ScenarioError> {
    let (cx, f, p) = (k.cx, k.f, k.p);
    if cfg.cc.vegas.alpha > cfg.cc.vegas.beta {
        let span = f
            .vegas_alpha
            .as_ref()
            .or(f.vegas_beta.as_ref())
            .map(|x| x.span());
        return Err(cx.err(
            span,
            format!("{p}.vegas_alpha"),
            format!(
                "expected vegas_alpha <= vegas_beta, got {} > {}",
                cfg.cc.vegas.alpha, cfg.cc.vegas.beta
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    type Step = fn(&FlowIn<'_>, &mut TcpConfig) -> Result<(), ScenarioError>;

    /// The step `step` on a flow `flows[0]` of controller `cc` read from the flow table `table`
    /// (its spans in `table`): the settings it gives, or its error's `(line, key path, message)`.
    fn knob(
        table: &str,
        cc: CcKind,
        step: Step,
    ) -> Result<TcpConfig, (Option<usize>, String, String)> {
        knobs(table, cc, &[step])
    }

    /// The steps `steps`, in turn, as [`knob`] runs one.
    fn knobs(
        table: &str,
        cc: CcKind,
        steps: &[Step],
    ) -> Result<TcpConfig, (Option<usize>, String, String)> {
        let f: RawFlow = toml::from_str(table).unwrap();
        let cx = Ctx {
            file: "t.toml".into(),
            text: table,
            dir: PathBuf::new(),
        };
        let mut cfg = TcpConfig::with_cc(cc);
        let k = FlowIn {
            cx: &cx,
            f: &f,
            p: "flows[0]",
        };
        for step in steps {
            step(&k, &mut cfg).map_err(|e| (e.line, e.path, e.msg))?;
        }
        Ok(cfg)
    }

    /// The key path of the error [`tcp_config`] reports for the flow table `TCP` + `keys`.
    fn first_error(keys: &str) -> String {
        let table = format!("{TCP}{keys}");
        let f: RawFlow = toml::from_str(&table).unwrap();
        let cx = Ctx {
            file: "t.toml".into(),
            text: &table,
            dir: PathBuf::new(),
        };
        tcp_config(&cx, &f, "flows[0]").unwrap_err().path
    }

    fn e<T>(line: usize, path: &str, msg: &str) -> Result<T, (Option<usize>, String, String)> {
        Err((Some(line), path.to_string(), msg.to_string()))
    }

    const TCP: &str = "kind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\n";

    #[test]
    fn rto_knobs_are_durations_above_zero_max_at_least_min() {
        let rto = |keys: &str| knob(&format!("{TCP}{keys}"), CcKind::Cubic, rto_knobs);
        let c = rto("max_rto = \"30s\"\ninitial_rto = \"3s\"").unwrap();
        assert_eq!(
            (c.max_rto, c.initial_rto),
            (SimDuration::from_secs(30), SimDuration::from_secs(3))
        );
        let d = TcpConfig::with_cc(CcKind::Cubic);
        let c = rto("").unwrap();
        assert_eq!((c.max_rto, c.initial_rto), (d.max_rto, d.initial_rto));
        assert_eq!(
            rto("initial_rto = \"0s\"").map(|_| ()),
            e(4, "flows[0].initial_rto", "expected a duration > 0")
        );
        let msg = format!(
            "expected a maximum RTO of at least the minimum RTO, {}, got \"1ms\"",
            d.min_rto
        );
        assert_eq!(
            rto("max_rto = \"1ms\"").map(|_| ()),
            e(4, "flows[0].max_rto", &msg)
        );
    }

    #[test]
    fn recovery_knobs_need_the_options_they_build_on() {
        let rec = |keys: &str, cc| knob(&format!("{TCP}{keys}"), cc, recovery_knobs);
        let c = rec("initial_ssthresh = 10\ndupack_threshold = 5", CcKind::Cubic).unwrap();
        assert_eq!(c.initial_ssthresh, Some(10 * u64::from(c.mss)));
        assert_eq!(c.dupack_threshold, 5);
        let msg = "expected a duplicate-ACK threshold between 1 and 1000, got 0";
        assert_eq!(
            rec("dupack_threshold = 0", CcKind::Cubic).map(|_| ()),
            e(4, "flows[0].dupack_threshold", msg)
        );
        let msg = "expected an initial ssthresh in segments between 2 and 16777216, got 1";
        assert_eq!(
            rec("initial_ssthresh = 1", CcKind::Cubic).map(|_| ()),
            e(4, "flows[0].initial_ssthresh", msg)
        );
        let c = rec("recovery = \"rack\"", CcKind::Cubic).unwrap();
        assert!(c.rack && c.sack);
        assert!(!rec("recovery = \"rfc6675\"", CcKind::Cubic).unwrap().rack);
        let msg = "expected rfc6675 or rack, got \"nope\"";
        assert_eq!(
            rec("recovery = \"nope\"", CcKind::Cubic).map(|_| ()),
            e(4, "flows[0].recovery", msg)
        );
        let msg = "expected rfc5681 or ns2, got \"x\"";
        assert_eq!(
            rec("rto_ssthresh = \"x\"", CcKind::Reno).map(|_| ()),
            e(4, "flows[0].rto_ssthresh", msg)
        );
        let (_, path, msg) = rec("rto_ssthresh = \"ns2\"", CcKind::Cubic).unwrap_err();
        assert_eq!(path, "flows[0].rto_ssthresh");
        assert!(msg.ends_with("this flow has cc = \"cubic\""), "{msg}");
        assert_eq!(
            rec("rto_ssthresh = \"ns2\"", CcKind::Reno)
                .unwrap()
                .rto_ssthresh,
            RtoSsthresh::Ns2
        );
        assert!(rec("pacing = true", CcKind::Cubic).unwrap().pacing);
    }

    #[test]
    fn a_key_of_another_controller_is_refused() {
        let (line, path, msg) = knob(
            &format!("{TCP}vegas_alpha = 2"),
            CcKind::Cubic,
            refuse_other_cc,
        )
        .unwrap_err();
        // The flow's line (its `kind`), the key's path.
        assert_eq!((line, path.as_str()), (Some(1), "flows[0].vegas_alpha"));
        assert!(
            msg.starts_with("vegas_alpha applies to ")
                && msg.ends_with("; this flow has cc = \"cubic\""),
            "{msg}"
        );
        assert!(knob(
            &format!("{TCP}vegas_alpha = 2"),
            CcKind::Vegas,
            refuse_other_cc
        )
        .is_ok());
    }

    #[test]
    fn each_controllers_knobs_are_checked_against_their_range() {
        let run = |keys: &str, cc, step: Step| knob(&format!("{TCP}{keys}"), cc, step);
        let c = run(
            "cubic_beta = 0.5\ncubic_c = 0.8",
            CcKind::Cubic,
            cubic_knobs,
        )
        .unwrap();
        assert_eq!((c.cc.cubic.beta, c.cc.cubic.c), (0.5, 0.8));
        let msg = "expected a decrease factor 0 < beta < 1 (RFC 9438: 0.7), got 1";
        assert_eq!(
            run("cubic_beta = 1.0", CcKind::Cubic, cubic_knobs).map(|_| ()),
            e(4, "flows[0].cubic_beta", msg)
        );
        let c = run(
            "vegas_alpha = 3\nvegas_beta = 6\nvegas_gamma = 2",
            CcKind::Vegas,
            vegas_knobs,
        )
        .unwrap();
        assert_eq!(
            (c.cc.vegas.alpha, c.cc.vegas.beta, c.cc.vegas.gamma),
            (3, 6, 2)
        );
        let msg = "expected a number of packets between 0 and 1000, got 1001";
        assert_eq!(
            run("vegas_beta = 1001", CcKind::Vegas, vegas_knobs).map(|_| ()),
            e(4, "flows[0].vegas_beta", msg)
        );
        let c = run(
            "ledbat_target = \"50ms\"\nledbat_gain = 2.0",
            CcKind::Ledbat,
            ledbat_knobs,
        )
        .unwrap();
        assert_eq!((c.cc.ledbat.target_us, c.cc.ledbat.gain), (50_000, 2.0));
        let msg = "expected a target delay > 0 and at most 100ms (RFC 6817 §2.5.1), got \"101ms\"";
        assert_eq!(
            run("ledbat_target = \"101ms\"", CcKind::Ledbat, ledbat_knobs).map(|_| ()),
            e(4, "flows[0].ledbat_target", msg)
        );
        let c = run("dctcp_g = 1.0", CcKind::Dctcp, dctcp_prague_knobs).unwrap();
        assert_eq!(c.cc.dctcp.g, 1.0);
        let msg = "expected an EWMA gain 0 < g <= 1 (RFC 8257 §3.3: 1/16), got 0";
        assert_eq!(
            run("dctcp_g = 0.0", CcKind::Dctcp, dctcp_prague_knobs).map(|_| ()),
            e(4, "flows[0].dctcp_g", msg)
        );
        assert_eq!(
            run(
                "prague_ecn_fallback = 2",
                CcKind::Prague,
                dctcp_prague_knobs
            )
            .unwrap()
            .cc
            .prague
            .ecn_fallback,
            2
        );
    }

    #[test]
    fn vegas_alpha_is_at_most_its_beta() {
        let order = |keys: &str| {
            let table = format!("{TCP}{keys}");
            let f: RawFlow = toml::from_str(&table).unwrap();
            let cx = Ctx {
                file: "t.toml".into(),
                text: &table,
                dir: PathBuf::new(),
            };
            let k = FlowIn {
                cx: &cx,
                f: &f,
                p: "flows[0]",
            };
            let mut cfg = TcpConfig::with_cc(CcKind::Vegas);
            vegas_knobs(&k, &mut cfg).unwrap();
            vegas_order(&k, &mut cfg).map_err(|e| (e.line, e.path, e.msg))
        };
        assert_eq!(order("vegas_alpha = 4\nvegas_beta = 4"), Ok(()));
        let msg = "expected vegas_alpha <= vegas_beta, got 5 > 2";
        assert_eq!(
            order("vegas_alpha = 5\nvegas_beta = 2"),
            e(4, "flows[0].vegas_alpha", msg)
        );
        // Only the beta given: its line.
        let (line, path, _) = order("vegas_beta = 0").unwrap_err();
        assert_eq!((line, path.as_str()), (Some(4), "flows[0].vegas_alpha"));
    }
    #[test]
    fn cc_knob_names_the_ten_controllers() {
        let cc = |keys: &str| knob(&format!("{TCP}{keys}"), CcKind::Reno, cc_knob);
        let names = [
            ("tahoe", CcKind::Tahoe),
            ("reno", CcKind::Reno),
            ("newreno", CcKind::NewReno),
            ("cubic", CcKind::Cubic),
            ("vegas", CcKind::Vegas),
            ("dctcp", CcKind::Dctcp),
            ("bbr", CcKind::Bbr),
            ("bbr3", CcKind::Bbr3),
            ("prague", CcKind::Prague),
            ("ledbat", CcKind::Ledbat),
        ];
        for (name, kind) in names {
            assert_eq!(cc(&format!("cc = \"{name}\"")).unwrap().cc.kind, kind);
        }
        // None given: the controller it had.
        assert_eq!(cc("").unwrap().cc.kind, CcKind::Reno);
        let msg = "expected tahoe, reno, newreno, cubic, vegas, dctcp, bbr, bbr3, prague or ledbat, got \"Cubic\"";
        assert_eq!(cc("cc = \"Cubic\"").map(|_| ()), e(4, "flows[0].cc", msg));
    }

    #[test]
    fn segment_knobs_are_counts_in_their_ranges() {
        let seg = |keys: &str| knob(&format!("{TCP}{keys}"), CcKind::Cubic, segment_knobs);
        let c = seg("mss = 100\nmax_window = 16777216\ninitial_cwnd = 65536").unwrap();
        assert_eq!(
            (c.mss, c.max_window_segments, c.initial_cwnd_segments),
            (100, Some(16_777_216), 65_536)
        );
        let c = seg("mss = 65495\nmax_window = 1\ninitial_cwnd = 1").unwrap();
        assert_eq!(
            (c.mss, c.max_window_segments, c.initial_cwnd_segments),
            (65_495, Some(1), 1)
        );
        let d = TcpConfig::with_cc(CcKind::Cubic);
        let c = seg("").unwrap();
        assert_eq!(
            (c.mss, c.max_window_segments, c.initial_cwnd_segments),
            (d.mss, d.max_window_segments, d.initial_cwnd_segments)
        );
        let msg = "expected an MSS in bytes between 100 and 65495, got 99";
        assert_eq!(seg("mss = 99").map(|_| ()), e(4, "flows[0].mss", msg));
        let msg = "expected a window in segments between 1 and 16777216, got 0";
        assert_eq!(
            seg("max_window = 0").map(|_| ()),
            e(4, "flows[0].max_window", msg)
        );
        let msg = "expected an initial window in segments between 1 and 65536, got 65537";
        assert_eq!(
            seg("initial_cwnd = 65537").map(|_| ()),
            e(4, "flows[0].initial_cwnd", msg)
        );
    }

    #[test]
    fn switch_knobs_turn_ecn_on_for_prague_and_keep_hystart_from_vegas() {
        let sw = |keys: &str, cc| knob(&format!("{TCP}{keys}"), cc, switch_knobs);
        let flags = |c: TcpConfig| {
            (
                c.delayed_ack,
                c.sack,
                c.ecn,
                c.accecn,
                c.handshake,
                c.cc.hystart,
            )
        };
        let keys = "delayed_ack = false\nsack = false\necn = true\naccecn = true\nhandshake = false\nhystart = true";
        assert_eq!(
            flags(sw(keys, CcKind::Cubic).unwrap()),
            (false, false, true, true, false, true)
        );
        // Prague: ECN and AccECN on unless set.
        let c = sw("", CcKind::Prague).unwrap();
        assert_eq!((c.ecn, c.accecn), (true, true));
        let c = sw("ecn = false", CcKind::Prague).unwrap();
        assert_eq!((c.ecn, c.accecn), (false, true));
        let c = sw("accecn = false", CcKind::Prague).unwrap();
        assert_eq!((c.ecn, c.accecn), (true, false));
        let c = sw("", CcKind::Cubic).unwrap();
        assert_eq!((c.ecn, c.accecn), (false, false));
        // HyStart++ is refused with Vegas (at the flow's line), unless switched off.
        let msg =
            "HyStart++ applies to reno, newreno and cubic (Vegas has its own slow-start exit)";
        assert_eq!(
            sw("hystart = true", CcKind::Vegas).map(|_| ()),
            e(1, "flows[0].hystart", msg)
        );
        assert!(!sw("hystart = false", CcKind::Vegas).unwrap().cc.hystart);
    }

    #[test]
    fn timer_knobs_bound_the_minimum_rto_and_the_delayed_ack_timeout() {
        let timer = |keys: &str| knob(&format!("{TCP}{keys}"), CcKind::Cubic, timer_knobs);
        let c = timer("min_rto = \"60s\"\ndelack_timeout = \"499ms\"").unwrap();
        assert_eq!(
            (c.min_rto, c.delack_timeout),
            (SimDuration::from_secs(60), SimDuration::from_millis(499))
        );
        let d = TcpConfig::with_cc(CcKind::Cubic);
        assert_eq!(d.max_rto, SimDuration::from_secs(60));
        let msg = "expected a minimum RTO > 0 and at most the maximum RTO, 60s, got \"61s\"";
        assert_eq!(
            timer("min_rto = \"61s\"").map(|_| ()),
            e(4, "flows[0].min_rto", msg)
        );
        let msg = "expected a minimum RTO > 0 and at most the maximum RTO, 60s, got \"0s\"";
        assert_eq!(
            timer("min_rto = \"0s\"").map(|_| ()),
            e(4, "flows[0].min_rto", msg)
        );
        let msg =
            "expected a delayed-ACK timeout > 0 and below 500ms (RFC 9293 §3.8.6.3), got \"500ms\"";
        assert_eq!(
            timer("delack_timeout = \"500ms\"").map(|_| ()),
            e(4, "flows[0].delack_timeout", msg)
        );
        let msg =
            "expected a delayed-ACK timeout > 0 and below 500ms (RFC 9293 §3.8.6.3), got \"0s\"";
        assert_eq!(
            timer("delack_timeout = \"0s\"").map(|_| ()),
            e(4, "flows[0].delack_timeout", msg)
        );
    }

    #[test]
    fn tcp_config_reports_its_keys_errors_in_order() {
        // Each key wrong; taking the first error's key away reports the next.
        let mut keys = vec![
            ("cc", "cc = \"x\""),
            ("mss", "mss = 1"),
            ("max_window", "max_window = 0"),
            ("initial_cwnd", "initial_cwnd = 0"),
            ("hystart", "hystart = true"),
            ("min_rto", "min_rto = \"0s\""),
            ("delack_timeout", "delack_timeout = \"0s\""),
            ("max_rto", "max_rto = \"0s\""),
            ("initial_ssthresh", "initial_ssthresh = 1"),
            ("prr", "prr = true\nsack = false"),
            ("recover_guard", "recover_guard = true"),
            ("rto_ssthresh", "rto_ssthresh = \"x\""),
        ];
        let mut order = Vec::new();
        while !keys.is_empty() {
            let table: Vec<&str> = keys.iter().map(|(_, k)| *k).collect();
            // The hystart key errs only with Vegas.
            let vegas = keys[0].0 != "cc" && keys.iter().any(|(n, _)| *n == "hystart");
            let cc = if vegas { "cc = \"vegas\"\n" } else { "" };
            let first = first_error(&format!("{cc}{}", table.join("\n")));
            order.push(first.trim_start_matches("flows[0].").to_string());
            keys.remove(0);
        }
        let want = [
            "cc",
            "mss",
            "max_window",
            "initial_cwnd",
            "hystart",
            "min_rto",
            "delack_timeout",
            "max_rto",
            "initial_ssthresh",
            "prr",
            "recover_guard",
            "rto_ssthresh",
        ];
        assert_eq!(order, want);
    }

    #[test]
    fn threshold_knobs_count_the_ssthresh_in_the_flows_segments() {
        let steps: [Step; 2] = [segment_knobs, threshold_knobs];
        let th = |keys: &str| knobs(&format!("{TCP}{keys}"), CcKind::Cubic, &steps);
        let c = th("mss = 500\ninitial_ssthresh = 10\ndupack_threshold = 1000").unwrap();
        assert_eq!((c.initial_ssthresh, c.dupack_threshold), (Some(5000), 1000));
        let c = th("initial_ssthresh = 2\ndupack_threshold = 1").unwrap();
        assert_eq!(
            (c.initial_ssthresh, c.dupack_threshold),
            (Some(2 * u64::from(c.mss)), 1)
        );
        let msg = "expected an initial ssthresh in segments between 2 and 16777216, got 16777217";
        assert_eq!(
            th("initial_ssthresh = 16777217").map(|_| ()),
            e(4, "flows[0].initial_ssthresh", msg)
        );
        let msg = "expected a duplicate-ACK threshold between 1 and 1000, got 1001";
        assert_eq!(
            th("dupack_threshold = 1001").map(|_| ()),
            e(4, "flows[0].dupack_threshold", msg)
        );
    }

    #[test]
    fn prr_and_rack_need_sack() {
        let steps: [Step; 2] = [switch_knobs, sack_recovery_knobs];
        let rec = |keys: &str| knobs(&format!("{TCP}{keys}"), CcKind::Cubic, &steps);
        let c = rec("prr = true\nrecovery = \"rack\"").unwrap();
        assert_eq!((c.sack, c.prr, c.rack), (true, true, true));
        let c = rec("sack = false\nprr = false\nrecovery = \"rfc6675\"").unwrap();
        assert_eq!((c.sack, c.prr, c.rack), (false, false, false));
        let msg = "prr (RFC 6937) needs sack = true: it paces recovery by RFC 6675's pipe";
        assert_eq!(
            rec("sack = false\nprr = true").map(|_| ()),
            e(1, "flows[0].prr", msg)
        );
        let msg =
            "recovery = \"rack\" (RFC 8985) needs sack = true: it learns of deliveries from SACK";
        assert_eq!(
            rec("sack = false\nrecovery = \"rack\"").map(|_| ()),
            e(5, "flows[0].recovery", msg)
        );
    }

    #[test]
    fn recover_guard_is_classic_renos_without_sack() {
        let steps: [Step; 2] = [switch_knobs, guard_knobs];
        let guard = |keys: &str, cc| knobs(&format!("{TCP}{keys}"), cc, &steps);
        let c = guard(
            "sack = false\nrecover_guard = true\nrescue = false",
            CcKind::Reno,
        )
        .unwrap();
        assert_eq!((c.recover_guard, c.rescue), (true, false));
        let msg = "recover_guard applies to cc = \"reno\" with sack = false (NewReno and Tahoe always guard, SACK recovery uses RFC 6675's RecoveryPoint); this flow has cc = \"reno\", sack = true";
        assert_eq!(
            guard("recover_guard = true", CcKind::Reno).map(|_| ()),
            e(1, "flows[0].recover_guard", msg)
        );
        let msg = "recover_guard applies to cc = \"reno\" with sack = false (NewReno and Tahoe always guard, SACK recovery uses RFC 6675's RecoveryPoint); this flow has cc = \"newreno\", sack = false";
        assert_eq!(
            guard("sack = false\nrecover_guard = false", CcKind::NewReno).map(|_| ()),
            e(1, "flows[0].recover_guard", msg)
        );
    }

    #[test]
    fn rto_ssthresh_is_for_the_controllers_that_halve_the_flight_size() {
        let rule = |keys: &str, cc| knob(&format!("{TCP}{keys}"), cc, rto_ssthresh_knob);
        for cc in [CcKind::Tahoe, CcKind::Reno, CcKind::NewReno] {
            let c = rule("rto_ssthresh = \"ns2\"", cc).unwrap();
            assert_eq!(c.rto_ssthresh, RtoSsthresh::Ns2);
        }
        let c = rule("rto_ssthresh = \"rfc5681\"", CcKind::Tahoe).unwrap();
        assert_eq!(c.rto_ssthresh, RtoSsthresh::Rfc5681);
        let msg = "rto_ssthresh applies to cc = \"tahoe\", \"reno\" and \"newreno\" (the controllers whose timeout halves the FlightSize the sender gives); this flow has cc = \"bbr\"";
        assert_eq!(
            rule("rto_ssthresh = \"ns2\"", CcKind::Bbr).map(|_| ()),
            e(4, "flows[0].rto_ssthresh", msg)
        );
    }

    #[test]
    fn recovery_knobs_report_their_keys_errors_in_order() {
        let rec = |keys: &str| {
            knob(&format!("{TCP}{keys}"), CcKind::Cubic, recovery_knobs)
                .unwrap_err()
                .0
        };
        let all = "dupack_threshold = 0\nprr = true\nrecover_guard = true\nrto_ssthresh = \"x\"";
        let mut keys: Vec<&str> = all.lines().collect();
        let mut order = Vec::new();
        while !keys.is_empty() {
            // prr errs without sack: the table's sack is not read by this step, so it is
            // switched off in the settings the step starts from.
            let table = format!("{TCP}{}", keys.join("\n"));
            let f: RawFlow = toml::from_str(&table).unwrap();
            let cx = Ctx {
                file: "t.toml".into(),
                text: &table,
                dir: PathBuf::new(),
            };
            let mut cfg = TcpConfig::with_cc(CcKind::Cubic);
            cfg.sack = false;
            let k = FlowIn {
                cx: &cx,
                f: &f,
                p: "flows[0]",
            };
            order.push(recovery_knobs(&k, &mut cfg).unwrap_err().path);
            keys.remove(0);
        }
        assert_eq!(
            order,
            [
                "flows[0].dupack_threshold",
                "flows[0].prr",
                "flows[0].recover_guard",
                "flows[0].rto_ssthresh"
            ]
        );
        assert_eq!(rec("rto_ssthresh = \"x\""), Some(4));
    }

    #[test]
    fn int_in_takes_a_whole_number_within_its_bounds() {
        #[derive(serde::Deserialize)]
        struct V {
            v: Option<Spanned<i64>>,
        }
        let read = |text: &str| {
            let v: V = toml::from_str(text).unwrap();
            let cx = Ctx::new("t.toml", text, Path::new(""));
            int_in(
                &cx,
                &v.v,
                "flows[0].mss".into(),
                100,
                65_495,
                "a segment size",
            )
            .map_err(|e| (e.line, e.path, e.msg))
        };
        assert_eq!(read(""), Ok(None));
        assert_eq!(read("v = 100"), Ok(Some(100)));
        assert_eq!(read("v = 65495"), Ok(Some(65_495)));
        assert_eq!(
            read("\nv = 99"),
            e(
                2,
                "flows[0].mss",
                "expected a segment size between 100 and 65495, got 99"
            )
        );
        assert_eq!(
            read("v = 65496").unwrap_err().2,
            "expected a segment size between 100 and 65495, got 65496"
        );
    }

    #[test]
    fn tcp_knobs_run_their_steps_in_the_order_errors_are_reported() {
        let all = |keys: &str, cc| knob(&format!("{TCP}{keys}"), cc, tcp_knobs).map_err(|e| e.1);
        // An RTO error comes before a recovery error, which comes before another controller's key.
        let rto = "max_rto = \"1ms\"\n";
        let recovery = "dupack_threshold = 0\n";
        let other_cc = "vegas_alpha = 2\n";
        assert_eq!(
            all(&format!("{other_cc}{recovery}{rto}"), CcKind::Cubic),
            Err("flows[0].max_rto".to_string())
        );
        assert_eq!(
            all(&format!("{other_cc}{recovery}"), CcKind::Cubic),
            Err("flows[0].dupack_threshold".to_string())
        );
        assert_eq!(
            all(other_cc, CcKind::Cubic),
            Err("flows[0].vegas_alpha".to_string())
        );
        // Vegas's own order check last: alpha above beta.
        assert_eq!(
            all("vegas_alpha = 5\nvegas_beta = 3\n", CcKind::Vegas),
            Err("flows[0].vegas_alpha".to_string())
        );
        let c = all("cubic_beta = 0.5\n", CcKind::Cubic).unwrap();
        assert_eq!(c.cc.cubic.beta, 0.5);
    }
}
