"""lstf-codel's figures, tables and what depends on the verdicts. experiment.toml declares
every number (docs/reproductions.md, "Metrics as data"): ``runs`` (each case's reduce.py
statistics, read from its reduced.json as the columns ``reduced.KEY``, beside the FTP's and the
link's counters), ``_samples``, ``_dx`` and the paper's Welch t- and F-tests (``tests``,
``tests_by_alpha``, ``_f_ci``: ``test = "two-sample"``), and the discussion; claims.toml holds
the published values and grades the numbers (the significance claims with ``sample_test``, the
range claims against CoDel's one run as a baseline), a table row at an α the mode does not run
is not graded (``missing``). What stays here, and why:

- the tables (their layout: Tables II-VIII ours beside the published, each row naming a claim
  by id), the figure, and the discussion's paragraphs that depend on the verdicts or the mode.
"""

from __future__ import annotations

import math
import os
from typing import Any

from aqmlab.reproduce.common import Table, fmt, printed_precision
from aqmlab.reproduce.style import colour, title

ALPHAS = [0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875]
ORDERS = ["as_coded", "as_described"]
UNITS = ["author (5 s / 100 s)", "intended (5 ms / 100 ms)"]

#: Claim id's part per table row: (stats key, moment) -> the id's suffix (claims.toml, whose
#: ``published`` the tables and the figure print).
GRADED = {
    ("delay_s", "mean"): "delay-mean",
    ("delay_s", "std"): "delay-std",
    ("queue_bytes", "mean"): "queue-mean",
    ("queue_bytes", "std"): "queue-std",
    ("slack_s", "mean"): "slack-mean",
    ("slack_s", "std"): "slack-std",
}


def _author(run: dict, key: str, moment: str) -> tuple[float, float | None]:
    """(the author's statistic, the per-packet or time-weighted one)."""
    plain = (run.get(key) or {}).get(moment)
    changes = (run.get(f"{key}_changes") or {}).get(moment)
    return (math.nan if changes is None else changes), plain


def _published(ctx: Any, alpha: float | None, suffix: str) -> float:
    return float(_printed(ctx, alpha, suffix))  # type: ignore[arg-type]


def _printed(ctx: Any, alpha: float | None, suffix: str) -> str | None:
    """The paper's value of a table row as printed: claims.toml's ``published`` of the claim
    ``codel-SUFFIX`` or ``lstf-ALPHA-SUFFIX`` (every α, run or not)."""
    cid = "codel-" + suffix if alpha is None else f"lstf-{alpha:g}-{suffix}"
    return next((c.published for c in ctx.experiment.claims if c.id == cid), None)


def _row(name: str, s: dict) -> list:
    return [
        name,
        s["delay_s"]["mean"],
        s["delay_s"]["std"],
        s["queue_bytes"]["mean"],
        s["queue_bytes"]["std"],
        (s.get("slack_s") or {}).get("mean"),
        (s.get("slack_s") or {}).get("std"),
        s["goodput_mbps"],
        s["retransmits"],
        s["timeouts"],
        s["utilization"],
    ]


def _both(ctx: Any, stats: dict[str, Any], alphas: list[float]) -> Table:
    """Tables II-VI (as coded, author's units) with both statistics: the author's (means over
    value-change records, as ns-2's Trace/Var writes them; the claims grade these) and ours
    (per dequeued packet, the queue time-weighted), beside the published values."""
    author = UNITS[0]
    runs = [("CoDel", stats[f"CoDel, {author}"], None)]
    runs += [(f"LSTF α={a:g}", stats[f"LSTF α={a:g} as_coded, {author}"], a) for a in alphas]
    keys = [k for k in GRADED if k[0] != "slack_s"] + [k for k in GRADED if k[0] == "slack_s"]
    rows = []
    for name, run, a in runs:
        for key, moment in keys:
            if key == "slack_s" and a is None:
                continue
            changes, plain = _author(run, key, moment)
            printed = _printed(ctx, a, GRADED[(key, moment)])
            # One digit more than the paper printed, as the claims print ours.
            d = printed_precision(printed)[1] + 1 if printed else 3
            rows.append([name, GRADED[(key, moment)], printed, fmt(changes, d), fmt(plain, d)])
    return Table(
        "Tables II-VI with both statistics (as coded, author's units)",
        [
            "run",
            "statistic",
            "published",
            "over value-change records (the author's; graded)",
            "per packet (queue: time-weighted; ours)",
        ],
        rows,
        "The paper's means are over the records of ns-2 Trace/Var traces (d_exp_, curq_, "
        "slack_), one written when the value changes; ours weigh every dequeued packet (the "
        "queue: every instant) equally.",
    )


def tables(ctx: Any) -> list[Table]:
    stats, alphas = ctx.numbers["runs"], ctx.params["alphas"]
    header = [
        "run",
        "delay mean s",
        "delay std s",
        "queue mean B",
        "queue std B",
        "slack mean s",
        "slack std s",
        "FTP goodput Mb/s",
        "retransmits",
        "timeouts",
        "utilization",
    ]
    out = []
    for unit in UNITS:
        rows = [_row("CoDel", stats[f"CoDel, {unit}"])]
        for order in ORDERS:
            rows += [
                _row(f"LSTF α={a:g} {order}", stats[f"LSTF α={a:g} {order}, {unit}"])
                for a in alphas
            ]
        out.append(
            Table(
                f"{unit}: delay, queue and slack (Tables II-VI) and what they leave "
                "out: TCP goodput, retransmissions, utilization",
                header,
                rows,
                "Our statistics: delay and slack per dequeued packet, the queue time-weighted "
                "(the next table has the author's, over value-change records, beside them).",
            )
        )
    out.append(_both(ctx, stats, alphas))
    cols = ("delay-mean", "delay-std", "queue-mean", "slack-mean")
    pub = [["CoDel", *(_published(ctx, None, c) for c in cols[:3]), None]]
    pub += [[f"LSTF α={a:g}", *(_published(ctx, a, c) for c in cols)] for a in ALPHAS]
    out.append(
        Table(
            "Published (the paper's Tables II-VI)",
            ["run", "delay mean s", "delay std s", "queue mean B", "slack mean s"],
            pub,
        )
    )
    rows = [
        [
            f"α={a}",
            what,
            t["welch_t"],
            t["welch_df"],
            t["welch_p_one_sided"],
            t["welch_ci_low_s"],
            t["f"],
            ", ".join(str(d) for d in t["f_df"]),
            t["f_p_two_sided"],
            t["f_ci95"][0],
            t["f_ci95"][1],
        ]
        for a, by in ctx.numbers["tests_by_alpha"].items()
        for what, t in by.items()
    ]
    out.append(
        Table(
            "Tables VII-VIII at every α: CoDel against LSTF-CoDel (as coded, author's units), "
            "500 delays each after the CBR starts, over value-change records (the author's "
            "d_exp_ trace) and per dequeued packet (ours)",
            [
                "LSTF",
                "samples",
                "Welch's t",
                "df",
                "one-sided p",
                "95 % lower bound s",
                "F",
                "F df",
                "two-sided p",
                "F 95 % low",
                "F 95 % high",
            ],
            rows,
            "The paper prints these for α=0.5 over its trace records (t = 32.774, df 513.92, "
            "lower bound 0.02595785 s; F = 0.014954, 95 % interval 0.01254431-0.01782548); "
            "the claims grade that row.",
        )
    )
    return out


def discussion(ctx: Any) -> list[str]:
    """What depends on the verdicts and the mode (experiment.toml has the rest)."""
    out = []
    if ctx.claims["lstf-delay-below-codel"].verdict != "holds":
        out.append(
            "LSTF-CoDel's mean delay is not below CoDel's at every α here, unlike "
            "the paper's tables."
        )
    if ctx.quick:
        out.append(
            f"Quick run: {ctx.params['duration_s']:g} s simulated per run instead of 259,200 s."
        )
    return out


def figures(ctx: Any) -> list[str]:
    pub = {s: {a: _published(ctx, a, s) for a in ALPHAS} for s in ("delay-mean", "delay-std")}
    return _figures(ctx.out, ctx.numbers["runs"], ctx.params["alphas"], pub)


def _figures(out, stats, alphas, pub) -> list[str]:
    """Mean and std of the delay and the FTP's goodput across α; ``pub``: the paper's LSTF
    delay (``delay-mean``, ``delay-std``: α -> s)."""
    from aqmlab.plot import _plt, _save

    plt = _plt()
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for i, unit in enumerate(UNITS):
        for j, order in enumerate(ORDERS):
            ss = [stats[f"LSTF α={a:g} {order}, {unit}"] for a in alphas]
            style = dict(
                color=colour("LSTF-CoDel"),
                ls="-" if i == 0 else ":",
                marker="o" if j == 0 else "s",
                label=f"LSTF {order}, {unit}",
            )
            axes[0].plot(alphas, [s["delay_s"]["mean"] * 1e3 for s in ss], **style)
            axes[1].plot(alphas, [s["delay_s"]["std"] * 1e3 for s in ss], **style)
            axes[2].plot(alphas, [s["goodput_mbps"] for s in ss], **style)
        c = stats[f"CoDel, {unit}"]
        for ax, v in zip(
            axes, (c["delay_s"]["mean"] * 1e3, c["delay_s"]["std"] * 1e3, c["goodput_mbps"])
        ):
            ax.axhline(
                v, color=colour("CoDel"), ls="--" if i == 0 else "-.", lw=1, label=f"CoDel, {unit}"
            )
    axes[0].plot(
        ALPHAS,
        [pub["delay-mean"][a] * 1e3 for a in ALPHAS],
        "^:",
        color=colour("LSTF-CoDel"),
        mfc="white",
        label="paper, LSTF",
    )
    axes[1].plot(
        ALPHAS,
        [pub["delay-std"][a] * 1e3 for a in ALPHAS],
        "^:",
        color=colour("LSTF-CoDel"),
        mfc="white",
        label="paper, LSTF",
    )
    for ax, yl in zip(
        axes, ("mean queueing delay (ms)", "std of queueing delay (ms)", "FTP goodput (Mb/s)")
    ):
        ax.set(xlabel="forgetfulness α", ylabel=yl)
        ax.grid(True, alpha=0.3)
    axes[0].set_yscale("log")
    axes[1].set_ylim(bottom=0)
    axes[2].set_ylim(bottom=0)
    axes[2].legend(fontsize=7, loc="lower right")
    title(fig, "LSTF-CoDel vs CoDel across α (dashed: CoDel)", "Ford 2020 Tables II, V")
    files = _save(fig, os.path.join(out, "figures"), "alpha_sweep")
    return [f for f in files if f.endswith(".png")]
