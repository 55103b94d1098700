"""red-vs-codel's own code: the tests of the hypotheses that RED's settings make its delay
differ from CoDel's (claims.toml's [hypothesis.*]), whose outcomes experiment.toml's
verdict-dependent paragraph names, and the figure.

Its tests use the common rules of :mod:`aqmlab.reproduce.hypotheses` (the outcome rule, the
claim's predicate on other arms, within a factor of a reference) but are not declared in
claims.toml as red-bursty's are: their outcomes are numbers of results.json
(``settings_test``, ``ared_itself``, ``ared_slope``), which ``numbers()`` gives before any claim
is graded and any declared test runs; one hypothesis (``ared-itself``) reports two tests and a
comparison in one outcome, tested at the points another hypothesis's test leaves, and two
read ns-2.35's runs from this folder's CSV. Declaring them would need a test kind for "the
claim's predicate on other arms" (a ``[table]`` claim's), one whose points are those another
test leaves, reference values from a CSV for a ``[table]`` claim, and a way to write a test's
outcome into results.json's numbers.

experiment.toml and claims.toml hold the rest, the goodput per run too (a ``[[derive]]``'s
``sum``; docs/reproductions.md, "A reproduction's folder").
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.common import FAILS, explanation_text, fmt
from aqmlab.reproduce.hypotheses import (
    CONFIRMED,
    UNEXPLAINED,
    factor_test,
    predicate_test,
)
from aqmlab.reproduce.predicate import compile_predicate
from aqmlab.reproduce.style import colour, title

CCS = ["cubic", "vegas"]
QDISCS = ["tail drop", "RED", "CoDel"]
#: experiment.toml's RED set otherwise (the hypothesis runs), each beside CoDel.
VARIANTS = ["RED, 1 s w_q", "ARED", "RED, ns-2 byte mode"]
#: ns-2.35's runs of the same set-up (tests/fidelity/ns2/kuhn14.sh writes this folder's table):
#: a name for claims.toml → kuhn14.tcl's discipline. "ns-2 byte mode" is Queue/RED as ns-2.35
#: ships it, beside our CoDel; "ns-2 RED" is our RED arm's configuration run in ns-2.35, and
#: "ns-2 ARED" our ARED arm's (packet mode, 1500 B, adaptive_ 1, q_weight_ 0: 1-exp(-1/C)).
NS2_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ns2-kuhn14.csv")
NS2_RUNS = {"ns-2 byte mode": "red-default", "ns-2 RED": "red", "ns-2 ARED": "ared"}
NS2_BUFFERS = {"100000": "unlimited"}
#: Our ARED arm with ns-2.35's gentle slope (RED's gentle_slope = initial: ns-2.35 red.cc
#: REDQueue::reset fixes the gentle segment's v_c and v_d from the initial max_p), compared with
#: ns-2.35's ARED at the points our ARED leaves ([hypothesis.ared-itself]).
SLOPE_ARM = "ARED, ns-2 gentle slope"
#: "The same queue": ours ÷ ns-2.35's within [1/SAME_FACTOR, SAME_FACTOR] (a quarter either
#: way; our RED arm is 0.95-1.05 times ns-2.35's Queue/RED in the same configuration).
SAME_FACTOR = 1.25
#: The claim whose difference the variants test.
TESTED = "delay-comparable"
#: The bottleneck: 1 Mb/s, 1500-byte packets (experiment.toml's mean_pkt_size), and CoDel's
#: target and interval (its defaults, RFC 8289 §4.2-4.3), for the threshold rule.
LINK_BPS, PKT_BYTES = 1e6, 1500
CODEL_TARGET_S, CODEL_INTERVAL_S = 0.005, 0.100


def threshold_rule(target_s: float, link_bps: float = LINK_BPS, pkt: int = PKT_BYTES) -> tuple:
    """RED's thresholds for a target queueing delay (ARED §5, ns-2.35 red.cc initialize_params):
    min_th = max(5, target·C/2) packets, max_th = 3·min_th, C the link's packets per second."""
    min_th = max(5.0, target_s * link_bps / (8 * pkt) / 2)
    return min_th, 3 * min_th


def ared_band(
    min_th: float, max_th: float, link_bps: float = LINK_BPS, pkt: int = PKT_BYTES
) -> dict:
    """Adaptive RED's target band for the average queue (ARED §4, ns-2.35 red.cc updateMaxP:
    max_p falls below min_th + 0.4·(max_th − min_th) and rises above max_th − 0.4·(max_th −
    min_th)), in packets and in ms of queue at the link's rate."""
    part = 0.4 * (max_th - min_th)
    lo, hi = min_th + part, max_th - part
    per_pkt_ms = 8 * pkt / link_bps * 1000
    return {"lo_pkts": lo, "hi_pkts": hi, "lo_ms": lo * per_pkt_ms, "hi_ms": hi * per_pkt_ms}


def settings_test(predicate: str, failing: list[str], variant: dict, codel: dict) -> dict:
    """The outcome of one [hypothesis.*] of claims.toml: the claim's predicate on (RED
    set otherwise, CoDel) at each point where it fails on (RED, CoDel). ``confirmed``
    when it passes at every such point (RED's settings account for the difference),
    ``refuted`` when it passes at none (every point with its runs), ``unexplained`` when at
    some only (the others stay unexplained), or when a failing point lacks the runs (or none
    fails: nothing to test)."""
    pred = compile_predicate(predicate, 2, f"red-vs-codel: {TESTED}'s hypothesis runs")
    t = predicate_test(pred, failing, variant, codel)
    passed, outcome = t["held"], t["outcome"]
    each = "; ".join(f"{p}: {fmt(variant.get(p))} vs {fmt(codel.get(p))} ms" for p in failing)
    left = [p for p in failing if p not in passed]
    text = (
        f"at the points where RED's delay is not comparable with CoDel's, this RED vs CoDel: "
        f"{each or 'none'}; comparable at {len(passed)} of {len(failing)}: {outcome}"
        + (f" (not at {'; '.join(left)})" if outcome == UNEXPLAINED and left else "")
    )
    return {"outcome": outcome, "passed": passed, "text": text}


def same_failure_test(predicate: str, left: list[str], ns2: dict, codel: dict) -> dict:
    """The outcome of [hypothesis.ared-itself]: at each point where our ARED is still not
    comparable with CoDel (``left``), ns-2.35's ARED in the same configuration beside the same
    CoDel runs. ``confirmed`` when ns-2.35's is not comparable either at every such point (ARED
    as ns-2.35 implements it does not hold this load there: the difference is ARED's, not our
    implementation's), ``refuted`` when ns-2.35's is comparable at every one, ``unexplained``
    when at some only, or when a point lacks ns-2.35's run (or none is left: nothing to test)."""
    pred = compile_predicate(predicate, 2, f"red-vs-codel: {TESTED}'s ARED hypothesis")
    t = predicate_test(pred, left, ns2, codel, expect=False)
    fails, outcome = t["held"], t["outcome"]
    each = "; ".join(f"{p}: {fmt(ns2.get(p))} vs {fmt(codel.get(p))} ms" for p in left)
    text = (
        f"at the points where our ARED's delay is not comparable with CoDel's, ns-2.35's ARED "
        f"vs our CoDel: {each or 'none'}; not comparable at {len(fails)} of {len(left)}: "
        f"{outcome}"
    )
    return {"outcome": outcome, "failing": fails, "text": text}


def same_queue_test(points: list[str], ours: dict, ns2: dict, factor: float = SAME_FACTOR) -> dict:
    """Our ARED with ns-2.35's gentle slope against ns-2.35's ARED at ``points`` (the points our
    ARED leaves not comparable with CoDel). ``confirmed`` when ours ÷ ns-2.35's is within
    [1/factor, factor] at every point (the slope accounts for the difference between the two
    AREDs), ``refuted`` when at none, ``unexplained`` when at some only, or when a point lacks
    either run (or there are no points: nothing to test)."""
    t = factor_test(points, ours, ns2, factor)
    both, same, outcome = t["tested"], t["held"], t["outcome"]
    each = "; ".join(
        f"{p}: {fmt(ours.get(p))} vs {fmt(ns2.get(p))} ms"
        + (f" ({ours[p] / ns2[p]:.2f})" if p in both else "")
        for p in points
    )
    text = (
        f"ours with ns-2.35's gentle slope vs ns-2.35's ARED: {each or 'none'}; within a factor "
        f"{factor:g} at {len(same)} of {len(points)}: {outcome}"
    )
    return {"outcome": outcome, "same": same, "text": text}


def _delays(g: Any, discipline: str) -> dict[str, float]:
    """Mean delay per point ("tcp, buffer", the claim's point names) of one discipline."""
    sub = g[g["discipline"] == discipline]
    return {f"{r.tcp}, {r.buffer}": float(r.delay_mean) for r in sub.itertuples()}


def numbers(ctx: Any) -> dict[str, Any]:
    """The hypothesis runs' outcomes (claims.toml's [hypothesis.*] fill theirs from
    ``_settings_test``), and the thresholds the rule gives for CoDel's target and interval."""
    c = next(c for c in ctx.experiment.claims if c.id == TESTED)
    g = ctx.table
    red, codel = _delays(g, "RED"), _delays(g, "CoDel")
    pred = compile_predicate(c.predicate, 2, f"red-vs-codel: {TESTED}")
    failing = [p for p in red if p in codel and pred((red[p], codel[p])) is not True]
    tests = {v: settings_test(c.predicate, failing, _delays(g, v), codel) for v in VARIANTS}
    ns2 = ns2_delays(ctx.params["apps"], ctx.params["duration_s"])
    # The byte-mode RED as the claim's arm (not graded: the paper's RED settings are not
    # known): at how many points its delay is comparable with CoDel's, and with tail drop's.
    byte, tail = _delays(g, "RED, ns-2 byte mode"), _delays(g, "tail drop")
    as_arm = {
        "comparable_with_codel": sum(pred((byte[p], codel[p])) is True for p in byte if p in codel),
        "comparable_with_tail_drop": sum(
            pred((byte[p], tail[p])) is True for p in byte if p in tail
        ),
        "points": len(byte),
    }
    tests["ns-2 byte mode"] = settings_test(c.predicate, failing, ns2["ns-2 byte mode"], codel)
    ctx.state["settings_test"] = tests
    # Where ARED stays not comparable, ns-2.35's ARED in the same configuration (not a
    # settings test: it does not bear on annotate's verdict, only on why ARED fails there).
    ared = tests["ARED"]
    ared_left = [p for p in failing if p not in ared["passed"]]
    ared_ns2 = same_failure_test(c.predicate, ared_left, ns2["ns-2 ARED"], codel)
    ared_slope = same_queue_test(ared_left, _delays(g, SLOPE_ARM), ns2["ns-2 ARED"])
    rule = {
        f"{name} {t * 1000:g} ms": dict(zip(("min_th", "max_th"), threshold_rule(t)))
        for name, t in (("CoDel's target", CODEL_TARGET_S), ("CoDel's interval", CODEL_INTERVAL_S))
    }
    band = ared_band(*threshold_rule(CODEL_TARGET_S))
    return {
        "threshold_rule": rule,
        "ared_band_ms": band,
        "_ared_band": (
            f"{fmt(band['lo_pkts'])}-{fmt(band['hi_pkts'])} packets of the rule's thresholds, "
            f"{fmt(band['lo_ms'])}-{fmt(band['hi_ms'])} ms of queue at this link's rate"
        ),
        "_rule_text": "; ".join(
            f"{k}: min_th {fmt(v['min_th'])}, max_th {fmt(v['max_th'])} packets"
            for k, v in rule.items()
        ),
        "settings_test": {v: t["outcome"] for v, t in tests.items()},
        "_settings_test": {v: t["text"] for v, t in tests.items()},
        "ns2_red": ns2["ns-2 RED"],
        "ns2_ared": ns2["ns-2 ARED"],
        "ared_itself": ared_ns2["outcome"],
        "_ared_itself": ared_ns2["text"],
        "_ns2_ared_same": same_config_text(ared_left, _delays(g, "ARED"), ns2["ns-2 ARED"]),
        "ared_slope": ared_slope["outcome"],
        "_ared_slope": ared_slope["text"],
        "byte_mode_as_arm": as_arm,
        # experiment.toml's discussion: the median over the table's cells of the mean delay.
        "_median_delay": {
            d: g[g["discipline"] == d]["delay_mean"].median() for d in ("RED", "CoDel")
        },
        "_ns2_same": same_config_text(failing, red, ns2["ns-2 RED"]),
    }


def same_config_text(failing: list[str], ours: dict, ns2: dict) -> str:
    """Our RED arm beside ns-2.35's Queue/RED in the same configuration at each failing point,
    and the range of ours ÷ ns-2's over the points ns-2 ran."""
    each = "; ".join(f"{p}: {fmt(ns2.get(p))} ms (ours {fmt(ours.get(p))})" for p in failing)
    ratios = [ours[p] / ns2[p] for p in failing if ns2.get(p) and p in ours]
    if not ratios:
        return (each or "none") + " (no ns-2.35 run at these points)"
    return f"{each}; ours ÷ ns-2.35's {min(ratios):.2f}-{max(ratios):.2f}"


def ns2_delays(apps: int, duration_s: float) -> dict[str, dict[str, float]]:
    """ns-2.35's mean queueing delay per point ("tcp, buffer") for each of :data:`NS2_RUNS`, the
    mean over the table's seeds (1-3) of the runs with this mode's applications and length
    (an empty dict per run when the table has none: a mode kuhn14.sh did not run)."""
    import pandas as pd

    d = pd.read_csv(NS2_TABLE, dtype={"buffer": str})
    d = d[(d["apps"] == apps) & (d["duration_s"] == float(duration_s))]
    out: dict[str, dict[str, float]] = {}
    for name, qdisc in NS2_RUNS.items():
        sub = d[d["qdisc"] == qdisc].groupby(["tcp", "buffer"])["delay_mean_ms"].mean()
        out[name] = {f"{t}, {NS2_BUFFERS.get(b, b)}": float(v) for (t, b), v in sub.items()}
    return out


def annotate(ctx: Any) -> None:
    """The claim stays unexplained unless a hypothesis run is comparable with CoDel at every
    point where RED is not (its outcome ``confirmed``)."""
    c = ctx.claims.get(TESTED)
    if c is None or c.verdict != FAILS or not c.hypotheses:
        return
    tests = ctx.state["settings_test"]
    c.unexplained = not any(t["outcome"] == CONFIRMED for t in tests.values())
    why = "no RED set otherwise is comparable with CoDel at every point"
    c.explanation = explanation_text(c.hypotheses, c.unexplained, why if c.unexplained else "")


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save

    g = ctx.table
    plt = _plt()
    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    for i, cc in enumerate(CCS):
        for j, (col, label) in enumerate(
            (
                ("delay_mean", "mean queueing delay (ms)"),
                ("goodput", "goodput (Mb/s)"),
                ("fct", "FTP completion time (s)"),
            )
        ):
            ax = axes[i][j]
            for d in QDISCS:
                sub = g[(g["tcp"] == cc) & (g["discipline"] == d)]
                ax.plot(list(sub["buffer"]), sub[col], "o-", color=colour(d), label=d)
            ax.set(title=f"{cc}", xlabel="buffer (packets)", ylabel=label)
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=8)
    title(
        fig,
        "RED vs CoDel vs tail drop under Pareto on/off TCP traffic",
        "Kuhn et al. 2014; no figure in the stored source, slides 1-10 of 21",
    )
    fig.tight_layout()  # the top row's axis labels were drawn over the bottom row's titles
    files = _save(fig, os.path.join(ctx.out, "figures"), "delay_goodput_fct")
    return [f for f in files if f.endswith(".png")]
