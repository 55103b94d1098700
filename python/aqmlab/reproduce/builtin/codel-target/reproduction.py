"""codel-target's own code: the target at which one flow reaches 90 % (linear between the two
swept targets around it), the interval hypothesis's outcome (a verdict chosen from two runs'
utilizations, in words), and the figures.

experiment.toml and claims.toml hold the rest (docs/reproductions.md, "A reproduction's folder"):
the quick run's RTTs (``keep``) and the utilization in percent (``[[derive]]``) too.
"""

from __future__ import annotations

import math
import os
from typing import Any

from aqmlab.reproduce.style import colour, log_ticks, title

TARGETS_MS = [1, 3, 5, 10, 20, 30, 50]
FOUR = [
    "4 flows, CoDel 1 ms / 100 ms",
    "4 flows, CoDel 5 ms / 50 ms",
    "4 flows, CoDel 5 ms / 100 ms",
    "4 flows, CoDel 5 ms / 200 ms",
    "4 flows, tail drop 83 p",
]


def crossing(targets: list[float], utils: list[float], level: float = 0.9) -> float:
    """The first target at which ``utils`` reaches ``level``, linear between the two swept
    targets around it; NaN when it never does."""
    for i, (t, u) in enumerate(zip(targets, utils)):
        if u >= level:
            if i == 0:
                return t
            t0, u0 = targets[i - 1], utils[i - 1]
            return t0 + (level - u0) * (t - t0) / (u - u0)
    return math.nan


def one_flow(g: Any, rtt: str) -> tuple[list[float], list[float]]:
    ts, us = [], []
    for t in TARGETS_MS:
        r = g[(g["case"] == f"1 flow, target {t} ms") & (g["rtt_ms"] == rtt)]
        if len(r) == 1:
            ts.append(float(t))
            us.append(float(r["util"].iloc[0]))
    return ts, us


def numbers(ctx: Any) -> dict[str, Any]:
    """``target_pct_at_90``: the target, as % of the 100 ms RTT, at which one flow's
    utilization first reaches 90 %."""
    ts, us = one_flow(ctx.table, "100")
    # At a 100 ms RTT a target in ms is also its share of the RTT in %.
    return {"target_pct_at_90": crossing(ts, us), "_interval_test": interval_test(ctx.table)}


def interval_test(g: Any) -> str:
    """The outcome of the interval hypothesis (claims.toml, excellent-utilization): four flows'
    utilization at RTT 300 ms with CoDel's interval 100 ms and 200 ms."""
    util = {}
    for iv in (100, 200):
        r = g[(g["case"] == f"4 flows, CoDel 5 ms / {iv} ms") & (g["rtt_ms"] == "300")]
        if len(r) != 1:
            return "RTT 300 ms was not run"
        util[iv] = float(r["util"].iloc[0])
    if util[200] >= 0.9 > util[100]:
        verdict = "supported"
    elif util[200] > util[100]:
        verdict = "in part (the longer interval gains, but stays under 0.9)"
    else:
        verdict = "not supported"
    return (
        f"{verdict}: at RTT 300 ms four flows get {util[100]:.3f} of the link with the 100 ms "
        f"interval and {util[200]:.3f} with 200 ms"
    )


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save

    g = ctx.table
    rtts = list(dict.fromkeys(g["rtt_ms"]))
    plt = _plt()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    ax = axes[0]
    styles = ["o-", "s--", "^-.", "v:", "D-"]
    for i, rtt in enumerate(rtts):
        ts, us = one_flow(g, rtt)
        ax.plot(
            [100 * t / float(rtt) for t in ts],
            us,
            styles[i % len(styles)],
            color=colour("CoDel"),
            alpha=0.4 + 0.6 * (i + 1) / len(rtts),
            label=f"RTT {rtt} ms",
        )
    ax.axhline(0.9, color="#7f7f7f", lw=0.8, ls=":")
    ax.set_xscale("log")
    log_ticks(ax, [1, 3, 10, 30, 100, 300])
    ax.set(xlabel="target (% of RTT)", ylabel="utilization", title="one Reno flow")
    ax.set_ylim(0, 1.05)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    x = [float(r) for r in rtts]
    for j, (col, label) in enumerate(
        (("util", "utilization"), ("median_ms", "median sojourn (ms)"))
    ):
        ax = axes[j + 1]
        for k, case in enumerate(FOUR):
            sub = g[g["case"] == case]
            if len(sub):
                ax.plot(
                    [float(r) for r in sub["rtt_ms"]],
                    sub[col],
                    styles[k % len(styles)],
                    color=colour(case),
                    alpha=1.0 if "5 ms / 100" in case or "tail" in case else 0.5,
                    label=case.replace("4 flows, ", ""),
                )
        ax.set_xscale("log")
        log_ticks(ax, x)
        ax.set(xlabel="RTT (ms)", ylabel=label, title="four Reno flows")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    axes[1].legend(fontsize=7)
    title(
        fig,
        "CoDel's target and interval against the RTT",
        "BITAG slide 'CoDel in a nutshell': target 1-20 ms",
    )
    files = _save(fig, os.path.join(ctx.out, "figures"), "target_rtt")
    return [f for f in files if f.endswith(".png")]
