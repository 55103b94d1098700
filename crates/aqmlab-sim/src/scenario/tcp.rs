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
mod tests;
