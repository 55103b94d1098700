"""``red-bursty``: Floyd & Jacobson 1993, as seed 003 ("Seeing RED") reproduced them.

Part 1 (their Figs. 5/6): two FTPs over a 45 Mb/s, 20 ms gateway; tail drop with buffers of
15-140 packets against RED (buffer 100, min_th 3-50, max_th = 3·min_th, w_q 0.002, max_p 1/50):
throughput against the average queue, one point per run.

Part 2 (their Figs. 11-14, ``scenarios/red-bursty.toml``): nodes 1-4 (window 12, 1 ms) and the
bursty node 5 (window 8, 16 ms) share a 45 Mb/s gateway; tail drop with buffers of 8-22 packets
against RED with min_th 3-14 (max_th 3·min_th, buffer 4·min_th): node 5's share of the
throughput and of the drops, the average queue and the utilization.

Everything is measured after a 1-s warm-up. The average queue is Little's law on the gateway's
discipline: the summed sojourns of the packets it released in the window ÷ the window's length.
"""

from __future__ import annotations

import math
import os
import shutil
from typing import Any

from aqmlab.reproduce.common import (
    STALLED,
    STALLED_FRACTION,
    Reproduction,
    Table,
    flow_bytes,
    fmt,
    over_range,
    qualitative,
    stalled,
    window_stats,
)
from aqmlab.reproduce.style import colour, delay_axis, title

NAME = "red-bursty"
TITLE = (
    "RED vs tail drop: throughput vs average queue, and the bursty node 5 (Floyd & Jacobson 1993)"
)
TD_BUFFERS_1 = [15, 30, 45, 60, 75, 90, 100, 110, 120, 130, 140]
RED_MIN_TH_1 = [3, 5, 7, 10, 15, 20, 25, 30, 35, 40, 50]
TD_BUFFERS_2 = [8, 10, 12, 14, 16, 18, 20, 22]
RED_MIN_TH_2 = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
CCS = ["tahoe", "reno"]
#: The paper's phase-effect randomisation: each source's packets wait a random time of up to one
#: packet's service time at the gateway (1000 B at 45 Mb/s) before they go out.
JITTER = "uniform(0ms, 0.178ms)"
#: "In proportion": node 5's drop share ÷ throughput share within this band (FJ93 give no
#: number; their Fig. 14 shows RED's points on the diagonal).
PROPORTION_BAND = (0.75, 4 / 3)
#: Throughput, queue and shares are measured after this warm-up (cbcase: 1 s).
WARMUP_S = 1.0
SOURCES = [
    "S. Floyd, V. Jacobson, Random Early Detection Gateways for Congestion Avoidance, IEEE/ACM "
    "ToN 1(4), 1993: Figs. 5-6 (throughput vs average queue), Figs. 11-14 (bias against bursty "
    "traffic)",
    "'Seeing RED' (seed 003) and its parameter lists (shared/reference/red.md §6)",
]

TWO_FTP = """\
# Written by aqmlab reproduce red-bursty: Floyd & Jacobson's Fig. 6 topology.
name = "red-fig6"
duration = "{duration}"
seed = 1
nodes = ["n1", "n2", "gw", "sink"]

[[links]]
name = "n1"
from = "n1"
to = "gw"
rate = "100Mbps"
delay = "1ms"
buffer = "10000p"

[[links]]
name = "n2"
from = "n2"
to = "gw"
rate = "100Mbps"
delay = "1ms"
buffer = "10000p"

[[links]]
name = "bottleneck"
from = "gw"
to = "sink"
rate = "45Mbps"
delay = "20ms"
qdisc = "red"
buffer = "100p"
params = {{ {red_params} }}
reverse = {{ qdisc = "droptail", buffer = "10000p" }}

[[flows]]
kind = "tcp"
from = "n1"
to = "sink"
cc = "reno"
mss = 960
max_window = 240
sack = false
delayed_ack = false
initial_cwnd = 1
start = "0s"

[[flows]]
kind = "tcp"
from = "n2"
to = "sink"
cc = "reno"
mss = 960
max_window = 240
sack = false
delayed_ack = false
initial_cwnd = 1
start = "0.13s"
"""

RED_1993 = {"mode": "packet", "w_q": 0.002, "max_p": 0.02, "gentle": False, "wait": False}


def _red(link: str, min_th: int, buffer: int) -> dict[str, Any]:
    out: dict[str, Any] = {f"{link}.buffer": f"{buffer}p"}
    for k, v in {**RED_1993, "min_th": min_th, "max_th": 3 * min_th}.items():
        out[f"{link}.params.{k}"] = v
    return out


def _td(link: str, qkey: str, buffer: int) -> dict[str, Any]:
    return {qkey: "droptail", f"{link}.buffer": f"{buffer}p"}


def _tcp_axis(flows: int, ccs: list[str]) -> Any:
    """The TCP variant of every flow, one case per variant (column ``tcp``)."""
    from aqmlab.sweepspec import Axis

    return Axis.of_cases({cc: {f"flows[{i}].cc": cc for i in range(flows)} for cc in ccs}, "tcp")


def run(
    out: str,
    quick: bool,
    seeds: list[int],
    jobs: int | None,
    progress: bool,
    options: dict[str, Any],
) -> Reproduction:
    from aqmlab.reproduce.common import bundled_scenario, run_sweep_or_fail
    from aqmlab.sweepspec import Axis, SweepSpec

    # Quick: the same points and length, one TCP (the paper's) and one seed; the runs are
    # short anyway, and fewer points made the small-buffer averages a matter of chance.
    duration = 10.0
    ccs = CCS[:1] if quick else CCS

    os.makedirs(out, exist_ok=True)
    cmd = f"aqmlab reproduce {NAME}" + (" --quick" if quick else "")

    # Part 1: throughput vs average queue.
    p1 = os.path.join(out, "scenario-fig6.toml")
    with open(p1, "w", encoding="utf-8") as f:
        red = 'mode = "packet", min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.02, '
        red += "gentle = false, wait = false"
        f.write(TWO_FTP.format(duration=f"{duration:g}s", red_params=red))
    cases1 = {f"tail drop {b}p": _td("links[2]", "qdisc:bottleneck", b) for b in TD_BUFFERS_1}
    cases1 |= {f"RED min_th {m}": _red("links[2]", m, 100) for m in RED_MIN_TH_1}
    jitter1 = {f"links[{i}].jitter": JITTER for i in range(2)}
    spec1 = SweepSpec(p1, [Axis.of_cases(cases1, "point"), _tcp_axis(2, ccs)], jitter1, seeds)
    r1 = run_sweep_or_fail(spec1, os.path.join(out, "sweep-fig6"), NAME, quick, jobs, progress)
    # Part 2: node 5.
    p2 = os.path.join(out, "scenario-fig11.toml")
    shutil.copyfile(bundled_scenario("red-bursty"), p2)
    link2 = "links[5]"
    cases2 = {f"tail drop {b}p": _td(link2, "qdisc:bottleneck", b) for b in TD_BUFFERS_2}
    cases2 |= {f"RED min_th {m}": _red(link2, m, 4 * m) for m in RED_MIN_TH_2}
    spec2 = SweepSpec(
        p2,
        [Axis.of_cases(cases2, "point"), _tcp_axis(5, ccs)],
        {"duration": f"{duration:g}s", **{f"links[{i}].jitter": JITTER for i in range(5)}},
        seeds,
    )
    r2 = run_sweep_or_fail(spec2, os.path.join(out, "sweep-fig11"), NAME, quick, jobs, progress)

    d1 = r1.results.copy()
    d1["kind"] = ["tail drop" if p.startswith("tail") else "RED" for p in d1["point"]]
    d1 = d1[d1["tcp"] == CCS[0]].copy()  # the figures and claims use the first variant
    # Measured after a warm-up, as the paper's runs (and cbcase's, 1 s) were.
    runs1 = os.path.join(out, "sweep-fig6", "runs")
    w1 = [window_stats(os.path.join(runs1, k), "bottleneck", WARMUP_S, duration) for k in d1["run"]]
    d1["avg_queue"] = [w["avg_queue"] for w in w1]
    d1["throughput"] = [w["bytes"] * 8 / 45e6 / (duration - WARMUP_S) for w in w1]
    g1 = d1.groupby(["point", "kind"], sort=False)[["avg_queue", "throughput"]].mean().reset_index()

    d2 = r2.results.copy()
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
    import numpy as np

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

    def wins(pair: tuple[float, float]) -> Any:
        if stalled(pair[0]) or stalled(pair[1]):
            return STALLED
        return pair[0] > pair[1]

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
            r.point: (
                r.n5_drop_share_pct / r.n5_share_pct if r.n5_share_pct else math.nan,
                r.utilization,
            )
            for r in g.itertuples()
        }

    def out_of_proportion(x: tuple[float, float]) -> Any:
        return STALLED if stalled(x[1]) else x[0] > PROPORTION_BAND[1]

    def in_proportion(x: tuple[float, float]) -> Any:
        return STALLED if stalled(x[1]) else PROPORTION_BAND[0] <= x[0] <= PROPORTION_BAND[1]

    band = f"{PROPORTION_BAND[0]:g}-{PROPORTION_BAND[1]:.3g}"
    claims = [
        over_range(
            "for the same average queue RED gets higher throughput than tail drop",
            "FJ93 Figs. 5-6",
            "throughput (fraction of 45 Mb/s): RED interpolated at each tail-drop point's "
            "average queue > tail drop's",
            "RED above tail drop",
            wins,
            above(red1, td1),
            "the arms swapped: tail drop above RED at each RED point",
            above(td1, red1),
            describe=lambda x: f"{fmt(x[0])} vs {fmt(x[1])}",
        ),
        qualitative(
            "RED gives node 5 a larger throughput share than tail drop with small buffers",
            "FJ93 Figs. 11-12",
            "node 5's throughput share, mean over buffers 8-14 p (tail drop) and min_th 3-7 (RED)",
            "RED > tail drop",
            lambda x: x[0] > x[1],
            (red_share, td_share),
            "the arms swapped (tail drop > RED)",
            (td_share, red_share),
            describe=lambda x: f"{fmt(x[0])} % vs {fmt(x[1])} %",
        ),
        over_range(
            "tail drop drops node 5 out of proportion to its throughput (small buffers)",
            "FJ93 Figs. 13-14",
            f"node 5's drop share ÷ throughput share > {PROPORTION_BAND[1]:.3g} at each "
            "buffer 8-14 p",
            "drop share ÷ throughput share > 1",
            out_of_proportion,
            ratios(small_td),
            "RED at min_th 3-7",
            ratios(small_red),
            describe=lambda x: fmt(x[0]),
        ),
        over_range(
            "with RED node 5's drops are in proportion to its throughput (small min_th)",
            "FJ93 Figs. 13-14",
            f"node 5's drop share ÷ throughput share within {band} at each min_th 3-7",
            "drop share ÷ throughput share ≈ 1",
            in_proportion,
            ratios(small_red),
            "tail drop at buffers 8-14 p",
            ratios(small_td),
            describe=lambda x: fmt(x[0]),
            note=f"'≈ 1' read as {band}: the paper gives no number, its Fig. 14 shows RED's "
            "points on the diagonal; a run is stalled below "
            f"{STALLED_FRACTION:g} of the link",
        ),
        qualitative(
            "RED drops node 5 less out of proportion than tail drop",
            "FJ93 Figs. 13-14",
            "mean drop share ÷ throughput share, RED (min_th 3-7) < tail drop (8-14 p)",
            "RED's ratio < tail drop's",
            lambda x: x[0] < x[1],
            (red_bias, td_bias),
            "the arms swapped (tail drop's < RED's)",
            (td_bias, red_bias),
            describe=lambda x: f"{fmt(x[0])} vs {fmt(x[1])}",
        ),
    ]
    stalled1 = [r.point for r in g1.itertuples() if stalled(r.throughput)]
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
    figures = _figures(out, g1, g2)
    discussion = [
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
        discussion.append(
            f"Under tail drop node 5 keeps {td_share:.2f} % of the link with small buffers, near "
            "its window-limited share, where the paper's node 5 fell towards nothing; it is "
            f"still dropped out of proportion to its throughput (ratio {td_bias:.2f} against "
            f"RED's {red_bias:.2f}), the bias the paper's Figs. 13-14 show, but recovers from "
            "its losses faster than in the paper. We have not found why."
        )
    red_best = float(g1[g1["kind"] == "RED"]["throughput"].max())
    if red_best < 0.9:
        discussion.append(
            f"RED's throughput in part 1 stays at or below {red_best:.2f} of the link, where the "
            "paper's RED points reach about 0.9 and more. Probable cause (not measured here): "
            "two windows of 240 packets exceed the path's 236-packet BDP plus the 100-packet "
            "buffer, so the flows overflow it, and every overflow takes a window back to one "
            "segment (Tahoe) or, for Reno without SACK, often to a timeout."
        )
    if quick:
        discussion.append(f"Quick run: {CCS[0]} only, one seed.")
    return Reproduction(
        NAME,
        TITLE,
        SOURCES,
        {
            "duration_s": duration,
            "tcp": CCS,
            "red_1993": RED_1993,
            "part1": {
                "tail_drop_buffers": TD_BUFFERS_1,
                "red_min_th": RED_MIN_TH_1,
                "red_buffer": 100,
                "max_th": "3·min_th",
            },
            "part2": {
                "tail_drop_buffers": TD_BUFFERS_2,
                "red_min_th": RED_MIN_TH_2,
                "red_buffer": "4·min_th",
                "max_th": "3·min_th",
            },
        },
        claims,
        [t1, t2],
        figures,
        {
            "part1": g1.to_dict("records"),
            "part2": g2.to_dict("records"),
            "node5_share_small_buffers": {"tail drop": td_share, "RED": red_share},
            "node5_drop_bias_small_buffers": {"tail drop": td_bias, "RED": red_bias},
        },
        discussion,
        quick,
        seeds,
        commands=[cmd],
    )


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
