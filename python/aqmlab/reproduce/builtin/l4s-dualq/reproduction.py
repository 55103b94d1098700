"""l4s-dualq's own code: the L queue's delay (each flow's one-way delay less its base), the
per-run metrics the claims read (their predicates, tolerances and stalled-run rule are
claims.toml's) and the figure; experiment.toml's report table and discussion show the known
trouble cases as findings, not verdicts.

experiment.toml and claims.toml hold the rest (docs/reproductions.md, "A reproduction's folder").
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce import common as cm
from aqmlab.reproduce.style import colour, log_ticks, title
from aqmlab.sweepspec import _toml_loads

#: Bytes of a full-sized packet on the wire (MSS 1448 + 52 bytes of headers): what the one-way
#: delay's base counts one transmission of per link.
PACKET_BYTES = 1500


def _parse(text: str) -> float:
    """A duration such as "2ms" or "1.5s", in ms."""
    t = text.strip()
    for unit, f in (("ms", 1.0), ("us", 1e-3), ("µs", 1e-3), ("ns", 1e-6), ("s", 1e3)):
        if t.endswith(unit):
            return float(t[: -len(unit)]) * f
    raise ValueError(text)


def _mbps(text: str) -> float:
    t = text.strip()
    for unit, f in (("Gbps", 1e3), ("Mbps", 1.0), ("kbps", 1e-3)):
        if t.endswith(unit):
            return float(t[: -len(unit)]) * f
    raise ValueError(text)


def _base_owd_ms(scenario: dict[str, Any], sender_delays: list[str], rate: str) -> list[float]:
    """Each flow's one-way delay through empty queues: its path's propagation delays and one
    packet's transmission on each of its three links (access, bottleneck, access)."""
    d = scenario["dumbbell"]
    b = d["bottleneck"]
    access_ms = PACKET_BYTES * 8 / (_mbps(d["access_rate"]) * 1e3)
    bottleneck_ms = PACKET_BYTES * 8 / (_mbps(rate) * 1e3)
    fixed = _parse(b["delay"]) + _parse(d["receiver_delay"]) + 2 * access_ms + bottleneck_ms
    return [_parse(s) + fixed for s in sender_delays]


def _axis(ctx: Any, column: str) -> dict[str, dict[str, Any]]:
    for s in ctx.experiment.sweeps:
        for a in s.axes:
            if a.keys == [column] and a.cases is not None:
                return a.cases
    raise KeyError(column)


def derive(df: Any, ctx: Any) -> Any:
    with open(os.path.join(ctx.experiment.folder, "scenario.toml"), encoding="utf-8") as f:
        scenario = _toml_loads(f.read())
    rtts = _axis(ctx, "rtts")
    rates = _axis(ctx, "rate_mbps")
    w = "windows.after_warmup."
    util = df[w + "links.bottleneck.utilization"]
    base = [
        _base_owd_ms(
            scenario,
            list(rtts[r]["dumbbell.sender_delay"]),
            rates[m]["dumbbell.bottleneck.rate"],
        )
        for r, m in zip(df["rtts"], df["rate_mbps"])
    ]
    # A stalled run (under 10 % of the link) keeps its metrics: the claims' `delivered` (util)
    # makes its point a tie, no pass, and the findings print it as stalled.
    df["util"] = util
    df["l_p50_ms"] = df["flows[0].one_way_delay_ms.p50"] - [b[0] for b in base]
    df["l_p99_ms"] = df["flows[0].one_way_delay_ms.p99"] - [b[0] for b in base]
    df["c_p50_ms"] = df["flows[1].one_way_delay_ms.p50"] - [b[1] for b in base]
    # Loss over the whole run, slow start included: a FIFO gives Prague no mark, so only a
    # loss ends its slow start there.
    nan = float("nan")
    sent = df["flows[0].data_pkts_sent"]
    df["l_loss"] = (df["flows[0].data_pkts_lost"] / sent).where(sent > 0, nan)
    cubic = df[w + "flows[1].goodput_bps"]
    df["ratio"] = (df[w + "flows[0].goodput_bps"] / cubic).where(cubic > 0, nan)
    return df


def _cell(g: Any, case: str, rate: str, rtts: str, col: str) -> float:
    """The cell's value; NaN where the run stalled or is missing."""
    r = g[(g["aqm"] == case) & (g["rate_mbps"] == rate) & (g["rtts"] == rtts)]
    if len(r) != 1 or cm.stalled(float(r["util"].iloc[0])):
        return float("nan")
    return float(r[col].iloc[0])


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save

    g = ctx.table
    plt = _plt()
    points = list(dict.fromkeys(zip(g["rate_mbps"], g["rtts"])))
    cases = list(dict.fromkeys(g["aqm"]))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    width = 0.8 / len(cases)
    for i, case in enumerate(cases):
        rows = [_cell(g, case, r, t, "l_p99_ms") for r, t in points]
        ratios = [_cell(g, case, r, t, "ratio") for r, t in points]
        xs = [j + (i - (len(cases) - 1) / 2) * width for j in range(len(points))]
        hatch = "//" if case.startswith("DualPI2,") or case.endswith("fallback") else ""
        for ax, ys in ((axes[0], rows), (axes[1], ratios)):
            ax.bar(xs, ys, width, color=colour(case), hatch=hatch, edgecolor="black", label=case)
    labels = [f"{r} Mb/s\n{t} RTTs" for r, t in points]
    axes[0].set(ylabel="Prague's queue delay p99 (ms)", yscale="log")
    axes[0].axhline(2.0, color="black", ls=":", lw=1)
    log_ticks(axes[0], [0.1, 0.3, 1, 2, 10, 30, 100, 300], axis="y")
    # A ratio on a log axis: 2:1 and 1:2 are as far from balance.
    axes[1].set(ylabel="Prague / CUBIC rate (after the warm-up)", yscale="log")
    axes[1].axhline(1.0, color="black", ls=":", lw=1)
    log_ticks(axes[1], [0.1, 0.3, 1, 3, 10, 30], axis="y")
    for ax in axes:
        ax.set_xticks(range(len(points)), labels, fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=3, fontsize=7)
    fig.subplots_adjust(bottom=0.24, wspace=0.3)
    title(
        fig,
        "Prague beside CUBIC: its queue and the rate balance",
        "De Schepper et al., arXiv 2209.01078; RFC 9332: no figure in the stored source",
    )
    files = _save(fig, os.path.join(ctx.out, "figures"), "l4s-dualq")
    return [f for f in files if f.endswith(".png")]
