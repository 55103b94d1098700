"""codel-target's figures. experiment.toml and claims.toml hold the rest (docs/reproductions.md,
"A reproduction's folder"): the quick run's RTTs (``keep``), the utilization in percent and the
target as a % of the RTT (``[[derive]]``), the target at which one flow reaches 90 %
(``reduce = "crossing"``) and the interval hypothesis's outcome in words (``[numbers]`` of
``text``).
"""

from __future__ import annotations

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


def one_flow(g: Any, rtt: str) -> tuple[list[float], list[float]]:
    ts, us = [], []
    for t in TARGETS_MS:
        r = g[(g["case"] == f"1 flow, target {t} ms") & (g["rtt_ms"] == rtt)]
        if len(r) == 1:
            ts.append(float(t))
            us.append(float(r["util"].iloc[0]))
    return ts, us


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
