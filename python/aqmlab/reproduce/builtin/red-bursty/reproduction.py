"""red-bursty's own code: the throughput and Little's-law average queue after the warm-up
(from each run's series), node 5's shares, RED's throughput interpolated at tail drop's
queues, the stalled-run ties, the tables, the comparison and the figures. experiment.toml and
claims.toml hold the rest.
"""

from __future__ import annotations

import math
import os
from typing import Any

from aqmlab.reproduce.common import (
    STALLED,
    STALLED_FRACTION,
    Table,
    flow_bytes,
    fmt,
    stalled,
    window_stats,
)
from aqmlab.reproduce.style import colour, delay_axis, title

CCS = ["tahoe", "reno"]
#: The paper's phase-effect randomisation (experiment.toml's link jitter), for the text.
JITTER = "uniform(0ms, 0.178ms)"
#: "In proportion": node 5's drop share ÷ throughput share within this band (FJ93 give no
#: number; their Fig. 14 shows RED's points on the diagonal).
PROPORTION_BAND = (0.75, 4 / 3)
#: Throughput, queue and shares are measured after this warm-up (cbcase: 1 s).
WARMUP_S = 1.0
DURATION_S = 10.0


def numbers(ctx: Any) -> dict[str, Any]:
    import numpy as np

    out, duration = ctx.out, DURATION_S
    d1 = ctx.frames["sweep-fig6"].copy()
    d1["kind"] = ["tail drop" if p.startswith("tail") else "RED" for p in d1["point"]]
    d1 = d1[d1["tcp"] == CCS[0]].copy()  # the figures and claims use the first variant
    # Measured after a warm-up, as the paper's runs (and cbcase's, 1 s) were.
    runs1 = os.path.join(out, "sweep-fig6", "runs")
    w1 = [window_stats(os.path.join(runs1, k), "bottleneck", WARMUP_S, duration) for k in d1["run"]]
    d1["avg_queue"] = [w["avg_queue"] for w in w1]
    d1["throughput"] = [w["bytes"] * 8 / 45e6 / (duration - WARMUP_S) for w in w1]
    g1 = d1.groupby(["point", "kind"], sort=False)[["avg_queue", "throughput"]].mean().reset_index()

    d2 = ctx.frames["sweep-fig11"].copy()
    d2 = d2[d2["tcp"] == CCS[0]]
    d2["kind"] = ["tail drop" if p.startswith("tail") else "RED" for p in d2["point"]]
    runs2 = os.path.join(out, "sweep-fig11", "runs")
    fb = [flow_bytes(os.path.join(runs2, k), WARMUP_S, duration) for k in d2["run"]]
    d2["n5_share_pct"] = [100 * b.get(4, 0.0) / sum(b.values()) for b in fb]
    drops = sum(d2[f"flows[{i}].dropped_pkts"] for i in range(5))
    d2["n5_drop_share_pct"] = 100 * d2["flows[4].dropped_pkts"] / drops.where(drops > 0)
    w2 = [window_stats(os.path.join(runs2, k), "bottleneck", WARMUP_S, duration) for k in d2["run"]]
    d2["avg_queue"] = [w["avg_queue"] for w in w2]
    d2["utilization"] = [w["bytes"] * 8 / 45e6 / (duration - WARMUP_S) for w in w2]
    g2 = (
        d2.groupby(["point", "kind"], sort=False)[
            ["n5_share_pct", "n5_drop_share_pct", "avg_queue", "utilization"]
        ]
        .mean()
        .reset_index()
    )

    # Claim 1: for the same average queue, RED's throughput is higher: at each tail-drop
    # point inside RED's range of queues, RED's throughput interpolated at that queue; the
    # counterfactual swaps the arms (tail drop's interpolated at each RED point). A point where
    # both are stalled is a tie of runs that deliver almost nothing, not a win.
    red1 = g1[g1["kind"] == "RED"].sort_values("avg_queue")
    td1 = g1[g1["kind"] == "tail drop"].sort_values("avg_queue")

    def above(a: Any, b: Any) -> dict[str, Any]:
        """Every run of ``b``: a stalled one as itself; a live one inside the range of queues of
        ``a``'s live runs as (``a`` interpolated at its queue, its own throughput). ``a``'s
        stalled runs are listed too: a stalled run is no point of either curve."""
        live = a[~a["throughput"].map(stalled)]
        pts: dict[str, Any] = {}
        for r in b.itertuples():
            if stalled(r.throughput):
                pts[r.point] = (r.throughput, r.throughput)
            elif len(live) and live["avg_queue"].min() <= r.avg_queue <= live["avg_queue"].max():
                x = float(np.interp(r.avg_queue, live["avg_queue"], live["throughput"]))
                pts[f"{r.point} (queue {fmt(r.avg_queue)})"] = (x, r.throughput)
        for r in a.itertuples():
            if stalled(r.throughput):
                pts[r.point] = (r.throughput, r.throughput)
        return pts

    ours, cf = above(red1, td1), above(td1, red1)

    # Claim 2: node 5 with small buffers.
    small_td_pts = [f"tail drop {b}p" for b in (8, 10, 12, 14)]
    small_red_pts = [f"RED min_th {m}" for m in (3, 4, 5, 6, 7)]
    small_td = g2[g2["point"].isin(small_td_pts)]
    small_red = g2[g2["point"].isin(small_red_pts)]
    td_share, red_share = (
        float(small_td["n5_share_pct"].mean()),
        float(small_red["n5_share_pct"].mean()),
    )
    td_bias = float((small_td["n5_drop_share_pct"] / small_td["n5_share_pct"]).mean())
    red_bias = float((small_red["n5_drop_share_pct"] / small_red["n5_share_pct"]).mean())

    def ratios(g: Any) -> dict[str, Any]:
        return {
            "ratio": {
                r.point: r.n5_drop_share_pct / r.n5_share_pct if r.n5_share_pct else math.nan
                for r in g.itertuples()
            },
            "utilization": {r.point: r.utilization for r in g.itertuples()},
        }

    ctx.state.update(g1=g1, g2=g2)
    return {
        "part1": g1.to_dict("records"),
        "part2": g2.to_dict("records"),
        "node5_share_small_buffers": {"tail drop": td_share, "RED": red_share},
        "node5_drop_bias_small_buffers": {"tail drop": td_bias, "RED": red_bias},
        "_fig56": {
            "RED at tail drop's queues": {k: v[0] for k, v in ours.items()},
            "tail drop": {k: v[1] for k, v in ours.items()},
            "tail drop at RED's queues": {k: v[0] for k, v in cf.items()},
            "RED": {k: v[1] for k, v in cf.items()},
        },
        "_small": {
            "tail drop": {"share": td_share, "bias": td_bias},
            "RED": {"share": red_share, "bias": red_bias},
        },
        "_ratios": {"tail drop": ratios(small_td), "RED": ratios(small_red)},
    }


def wins(pair: tuple[float, float]) -> Any:
    if stalled(pair[0]) or stalled(pair[1]):
        return STALLED
    return pair[0] > pair[1]


def out_of_proportion(x: tuple[float, float]) -> Any:
    return STALLED if stalled(x[1]) else x[0] > PROPORTION_BAND[1]


def in_proportion(x: tuple[float, float]) -> Any:
    return STALLED if stalled(x[1]) else PROPORTION_BAND[0] <= x[0] <= PROPORTION_BAND[1]


def tables(ctx: Any) -> list[Table]:
    g1, g2 = ctx.state["g1"], ctx.state["g2"]
    t1 = Table(
        "Part 1 (Figs. 5-6): throughput vs average queue (means over seeds)",
        ["run", "average queue (packets)", "throughput (fraction of 45 Mb/s)"],
        [[r.point, r.avg_queue, r.throughput] for r in g1.itertuples()],
    )
    t2 = Table(
        "Part 2 (Figs. 11-14): node 5 (means over seeds)",
        ["run", "node 5 throughput %", "node 5 drop share %", "average queue", "utilization"],
        [
            [r.point, r.n5_share_pct, r.n5_drop_share_pct, r.avg_queue, r.utilization]
            for r in g2.itertuples()
        ],
    )
    return [t1, t2]


def discussion(ctx: Any) -> list[str]:
    g1 = ctx.state["g1"]
    small = ctx.numbers["_small"]
    td_share, red_share = small["tail drop"]["share"], small["RED"]["share"]
    td_bias, red_bias = small["tail drop"]["bias"], small["RED"]["bias"]
    stalled1 = [r.point for r in g1.itertuples() if stalled(r.throughput)]
    out = [
        f"Stalled runs: {len(stalled1)} of {len(g1)} part-1 points carried less than "
        f"{STALLED_FRACTION:g} of the link after the warm-up"
        + (f" ({', '.join(stalled1)})" if stalled1 else "")
        + ". A stalled run is no point of either curve: a claim compared at it fails there "
        "(ties between runs that deliver almost nothing are not wins). Hypothesis: the "
        "TCP's recovery after a window-limited overflow (see the next point); test: rerun "
        "after a change to the TCP and see whether the stalled points move. Unexplained "
        "until then.",
        f"Measured after a {WARMUP_S:g}-s warm-up. The average queue is Little's law on the "
        "gateway (the summed sojourns of the packets it sent ÷ the time), the quantity the "
        "paper's 'average queue' axes show.",
        f"Node 5's window of 8 packets over a 36 ms RTT caps it near 4 % of the link: with "
        f"small buffers RED gives it {red_share:.2f} % and tail drop {td_share:.2f} %.",
        f"As the paper did to break phase effects, every source's packets are delayed by a "
        f"random time of up to one packet's service time at the gateway ({JITTER}, link "
        "jitter that never reorders a link), in both parts and for both disciplines.",
        f"TCP: {', '.join(CCS)} with 1000-byte packets and no delayed ACKs; the claims, tables "
        f"and figures use {CCS[0]} (the paper's TCP), and the sweep folders hold both.",
    ]
    if red_share <= td_share:
        out.append(
            f"Under tail drop node 5 keeps {td_share:.2f} % of the link with small buffers, near "
            "its window-limited share, where the paper's node 5 fell towards nothing; it is "
            f"still dropped out of proportion to its throughput (ratio {td_bias:.2f} against "
            f"RED's {red_bias:.2f}), the bias the paper's Figs. 13-14 show, but recovers from "
            "its losses faster than in the paper. We have not found why."
        )
    red_best = float(g1[g1["kind"] == "RED"]["throughput"].max())
    if red_best < 0.9:
        out.append(
            f"RED's throughput in part 1 stays at or below {red_best:.2f} of the link, where the "
            "paper's RED points reach about 0.9 and more. Probable cause (not measured here): "
            "two windows of 240 packets exceed the path's 236-packet BDP plus the 100-packet "
            "buffer, so the flows overflow it, and every overflow takes a window back to one "
            "segment (Tahoe) or, for Reno without SACK, often to a timeout."
        )
    if ctx.quick:
        out.append(f"Quick run: {CCS[0]} only, one seed.")
    return out


def figures(ctx: Any) -> list[str]:
    return _figures(ctx.out, ctx.state["g1"], ctx.state["g2"])


def _figures(out, g1, g2) -> list[str]:
    from aqmlab.plot import _plt, _save

    plt = _plt()
    figdir = os.path.join(out, "figures")
    files: list[str] = []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for kind, style in (("tail drop", "s--"), ("RED", "o-")):
        g = g1[g1["kind"] == kind].sort_values("avg_queue")
        live = g[~g["throughput"].map(stalled)]
        dead = g[g["throughput"].map(stalled)]
        ax.plot(live["avg_queue"], live["throughput"], style, color=colour(kind), label=kind)
        if len(dead):
            ax.plot(
                dead["avg_queue"],
                dead["throughput"],
                "x",
                ms=9,
                color=colour(kind),
                label=f"{kind}: {len(dead)} stalled runs (< {STALLED_FRACTION:g} of the link)",
            )
    ax.set(xlabel="average queue (packets)", ylabel="throughput (fraction of 45 Mb/s)")
    ax.set_xlim(left=0)
    ax.set_ylim(0, 1.05)
    title(ax, "Throughput vs average queue", "FJ93 Figs. 5-6")
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    files += _save(fig, figdir, "throughput_vs_queue")

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=False)
    for i, kind in enumerate(("tail drop", "RED")):
        g = g2[g2["kind"] == kind]
        x = [int(p.split()[-1].rstrip("p")) for p in g["point"]]
        c = colour(kind)
        axes[i].plot(x, g["n5_share_pct"], "o-", color=c, label="node 5 throughput %")
        axes[i].plot(
            x, g["n5_drop_share_pct"], "s--", color=c, alpha=0.6, label="node 5 drop share %"
        )
        axes[i].set(
            xlabel="buffer (packets)" if kind == "tail drop" else "min_th (packets)",
            ylabel="%",
            title=f"{kind}: node 5",
        )
        axes[i].set_ylim(bottom=0)
        ax2 = axes[i].twinx()
        ax2.plot(x, g["avg_queue"], ":", color="grey", label="average queue")
        ax2.set_ylabel("average queue (packets)")
        delay_axis(ax2)
        axes[i].legend(fontsize=8, loc="upper left")
        axes[i].grid(True, alpha=0.3)
    title(fig, "Bias against bursty traffic", "FJ93 Figs. 11-14")
    files += _save(fig, figdir, "node5")
    return [f for f in files if f.endswith(".png")]
