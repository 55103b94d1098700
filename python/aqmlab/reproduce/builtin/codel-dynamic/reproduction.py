"""codel-dynamic's figures. Every number, table and paragraph is declared data
(docs/reproductions.md, "A reproduction's folder"): experiment.toml cuts each run's packet log
into the six phases ([[window]]), reads ns-2.35's table (ns2-codel-dynamic.csv, [frames.ns2]),
declares every mean, spread (the seed-paired ones too) and ratio as [numbers.NAME], laid out as
results.json has them, the report's tables as [[report_table]]s (ns-2.35's beside ours too) and
its paragraphs as [[discussion]]s (the ns-2.35 comparison, one per RED arm, with its ratios
phase by phase); claims.toml's web-load hypothesis is a declared test ("toward"), its
quick-run hypothesis one of modes = ["quick"].
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.common import fmt, link_series, packet_sojourns_ms
from aqmlab.reproduce.style import colour, delay_axis, title
from aqmlab.reproduce.windows import bounds

LINK = "bottleneck"


def _phases(ctx: Any) -> list[tuple[float, float, float]]:
    """experiment.toml's phases (its [[window]]): ``(from_s, to_s, rate_bps)``."""
    w = ctx.experiment.windows[0]
    rates = w.fields["rate_mbps"]
    return [(t0, t1, r * 1e6) for (t0, t1), r in zip(bounds(w, ctx.fill), rates)]


def figures(ctx: Any) -> list[str]:
    runs_dir = os.path.join(ctx.out, "sweep", "runs")
    return _figures(ctx.out, runs_dir, ctx.frames["sweep"], ctx.numbers["cases"], _phases(ctx))


def _figures(out, runs_dir, df, per_case, phases) -> list[str]:
    from aqmlab.plot import _plt, _save

    plt = _plt()
    figdir = os.path.join(out, "figures")
    first = {case: df[df["case"] == case]["run"].iloc[0] for case in per_case}
    files: list[str] = []

    def scatter(ax, case, color, most=150_000):
        t, s = packet_sojourns_ms(os.path.join(runs_dir, first[case]), LINK)
        step = max(1, len(t) // most)
        # Rasterized: an SVG with a vector marker per packet takes minutes to write.
        ax.plot(
            t[::step], s[::step], ".", ms=1.2, alpha=0.5, color=color, label=case, rasterized=True
        )

    # Fig. 7a: per-packet queueing delay, tail drop against CoDel.
    fig, ax = plt.subplots(figsize=(9, 4.2))
    scatter(ax, "tail drop 830p", colour("tail drop"))
    scatter(ax, "CoDel", colour("CoDel"))
    _phase_marks(ax, phases)
    delay_axis(ax, symlog=True)
    ax.set(xlabel="time (s)", ylabel="queueing delay (ms)")
    title(ax, "Per-packet queueing delay at the bottleneck, seed 1", "NJ12 Fig. 7a")
    # Beside the axes: inside, it covered the phases' rate labels.
    ax.legend(
        loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, markerscale=8, fontsize=8
    )
    files += _save(fig, figdir, "delay_vs_time")

    # Every discipline, one panel each.
    cases = list(per_case)
    fig, axes = plt.subplots(4, 2, figsize=(11, 11), sharex=True, sharey=True)
    for ax, case in zip(axes.flat, cases):
        scatter(ax, case, colour(case), most=40_000)
        delay_axis(ax, symlog=True)
        ax.set_title(f"{case}: median {fmt(per_case[case]['p50_ms'])} ms", fontsize=9)
        ax.grid(True, alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    for ax in axes[:, 0]:
        ax.set_ylabel("delay (ms)")
    title(fig, "Per-packet queueing delay, every discipline, seed 1", "NJ12 Fig. 7a")
    files += _save(fig, figdir, "delay_all_disciplines")

    # Fig. 7c: cumulative MB sent by the bottleneck.
    fig, ax = plt.subplots(figsize=(9, 4.2))
    for case in cases:
        s = link_series(os.path.join(runs_dir, first[case]), LINK)
        ax.plot(
            s["t_s"],
            s["egress_bytes"].cumsum() / 1e6,
            color=colour(case),
            ls=":" if case == "tail drop 10p" else "--" if "Adaptive" in case else "-",
            label=case,
        )
    cap_t, cap_mb = [0.0], [0.0]
    for t0, t1, r in phases:
        cap_t.append(t1)
        cap_mb.append(cap_mb[-1] + r * (t1 - t0) / 8e6)
    ax.plot(cap_t, cap_mb, "k--", lw=1, label="capacity")
    _phase_marks(ax, phases)
    ax.set(xlabel="time (s)", ylabel="cumulative MB sent")
    ax.set_ylim(bottom=0)
    title(ax, "Cumulative bytes through the bottleneck, seed 1", "NJ12 Fig. 7c")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=8)
    files += _save(fig, figdir, "cumulative_mb")

    # CS244's plot: ingress vs egress throughput of the bottleneck, with its capacity.
    fig, axes = plt.subplots(2, 1, figsize=(9, 7), sharex=True, sharey=True)
    for ax, case in zip(axes, ("tail drop 830p", "CoDel")):
        s = link_series(os.path.join(runs_dir, first[case]), LINK)
        bin_s = float(s["t_s"].iloc[1] - s["t_s"].iloc[0])
        ax.plot(s["t_s"], s["ingress_bytes"] * 8 / bin_s / 1e6, lw=0.7, label="ingress")
        ax.plot(s["t_s"], s["egress_bytes"] * 8 / bin_s / 1e6, lw=0.7, label="egress")
        ax.step(
            [p[0] for p in phases] + [phases[-1][1]],
            [p[2] / 1e6 for p in phases] + [phases[-1][2] / 1e6],
            "k--",
            where="post",
            lw=1,
            label="capacity",
        )
        delay_axis(ax, symlog=True)  # a throughput: never negative either
        ax.set(ylabel="throughput (Mb/s)", title=f"{case}: bottleneck ingress and egress")
        ax.legend(fontsize=8)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    title(fig, "Ingress and egress of the bottleneck, seed 1", "CS244 2015's plot of NJ12 Fig. 7")
    files += _save(fig, figdir, "ingress_egress")
    return [f for f in files if f.endswith(".png")]


def _phase_marks(ax, phases) -> None:
    for t0, _, r in phases:
        ax.axvline(t0, color="grey", lw=0.5, alpha=0.5)
        ax.text(
            t0,
            0.98,
            f" {r / 1e6:g} Mb/s",
            transform=ax.get_xaxis_transform(),
            fontsize=7,
            va="top",
            color="grey",
        )
    ax.grid(True, alpha=0.3)
