"""``aqmlab plot``: figures from a run's or a sweep's saved results, without simulating again.

Every figure is written as PNG and SVG into ``DIR/figures/`` with labelled axes and units.

* A run folder (``summary.json``; the arms of a ``--compare`` are its subfolders and share each
  figure): queueing delay vs time, cumulative delivered MB vs time, a link's ingress and egress
  throughput (with its capacity where the series has it), queue length vs time, the CDF of
  sojourn times, per-flow goodput, and per-flow cwnd where the series has it.
* A sweep folder (``results.parquet``): each metric against an axis, one line per value of a
  second axis, with 95 % confidence intervals over seeds; and a delay-throughput plot
  (95th-percentile sojourn against total goodput, one series per discipline, the delay axis
  reversed as Pantheon draws it, so better is up and to the right).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from aqmlab.exceptions import AqmlabError

#: Metrics a sweep's figures show by default (``LINK`` is the link plotted).
DEFAULT_SWEEP_METRICS = [
    "LINK.sojourn_ms.p50",
    "LINK.sojourn_ms.p95",
    "LINK.utilization",
    "LINK.dropped_pkts",
    "total.goodput_bps",
    "fairness.jain_goodput",
]
#: At most this many points of a packet log are drawn (evenly thinned), so a long log still
#: plots in seconds; the CDF uses every packet.
MAX_SCATTER = 200_000
#: The most figures one sweep plot makes when facets multiply them.
MAX_FACETS = 24


def _plt() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise AqmlabError("plotting needs matplotlib: pip install matplotlib") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # Reproducible SVG files: fixed ids, no creation date.
    plt.rcParams["svg.hashsalt"] = "aqmlab"
    plt.rcParams["figure.dpi"] = 100
    return plt


def _save(fig: Any, out: str, name: str) -> list[str]:
    os.makedirs(out, exist_ok=True)
    paths = []
    for ext in ("png", "svg"):
        p = os.path.join(out, f"{name}.{ext}")
        meta = {"Date": None} if ext == "svg" else {"Software": "aqmlab"}
        fig.savefig(p, bbox_inches="tight", metadata=meta)
        paths.append(p)
    _plt().close(fig)
    return paths


def unit_of(metric: str) -> tuple[str, float]:
    """The axis label's unit and the factor to apply, from a metric name's suffix."""
    last = metric.split(".")[-2] if metric.split(".")[-1] in _QUANTILES else metric.split(".")[-1]
    if last.endswith("_ms"):
        return "ms", 1.0
    if last.endswith("_bps"):
        return "Mb/s", 1e-6
    if last.endswith("_bytes"):
        return "MB", 1e-6
    if last.endswith("_pkts") or last in ("retransmits", "timeouts"):
        return "packets", 1.0
    if last.endswith("_s"):
        return "s", 1.0
    return "", 1.0


_QUANTILES = {"mean", "p50", "p75", "p95", "p99", "max", "std", "var"}


def label_of(metric: str) -> str:
    unit, _ = unit_of(metric)
    return f"{metric} ({unit})" if unit else metric


# --- reading saved results --------------------------------------------------------------------


def choose_link(summary: dict) -> str:
    """The link direction to plot: ``bottleneck`` when there is one, else the direction with
    the largest mean sojourn (then the most drops)."""
    links = summary.get("links", {})
    if "bottleneck" in links:
        return "bottleneck"
    if not links:
        raise AqmlabError("the run has no link directions to plot")

    def weight(item: tuple[str, dict]) -> tuple:
        soj = (item[1].get("sojourn_ms") or {}).get("mean") or 0.0
        return (soj, item[1].get("dropped_pkts", 0), item[0])

    return max(links.items(), key=weight)[0]


# --- a run ---------------------------------------------------------------------------------------


def plot_run(folder: str, link: str | None = None, out: str | None = None) -> list[str]:
    """Every figure of a run folder (and its ``--compare`` arms); returns the files written."""
    from aqmlab.reproduce.style import delay_axis
    from aqmlab.results import Run

    plt = _plt()
    arms = []
    folders = Run(folder).arms()
    for label, r in folders:
        summary = r.summary
        arms.append(
            {
                "label": label if len(folders) > 1 else summary.get("scenario", label),
                "summary": summary,
                "links": r.table("links"),
                "flows": r.table("flows"),
                "packets": r.table("packets"),
            }
        )
    first = arms[0]["summary"]
    link = link or choose_link(first)
    for a in arms:
        if link not in a["summary"].get("links", {}):
            names = ", ".join(a["summary"].get("links", {}))
            raise AqmlabError(f"--link {link}: no such link direction (the run has {names})")
    if len(arms) > 1:  # name the discipline of the arm that ran as written
        arms[0]["label"] = f"as written: {first['links'][link].get('qdisc', '?')}"
    out = out or os.path.join(folder, "figures")
    title = f"{first.get('scenario', '')}: {link}"
    files: list[str] = []

    def series(a: dict, table: str) -> Any:
        df = a[table]
        if df is None:
            return None
        return df[df["link"] == link] if table == "links" else df

    # Queueing delay vs time.
    fig, ax = plt.subplots(figsize=(9, 4))
    for a in arms:
        pk = a["packets"]
        if pk is not None and (pk["link"] == link).any():
            p = pk[pk["link"] == link]
            step = max(1, len(p) // MAX_SCATTER)
            p = p.iloc[::step]
            ax.plot(
                p["t_ns"] / 1e9,
                p["sojourn_ns"] / 1e6,
                ".",
                ms=1.5,
                alpha=0.5,
                label=a["label"],
                rasterized=True,  # an SVG with a vector marker per packet takes minutes
            )
        elif series(a, "links") is not None:
            s = series(a, "links")
            ax.plot(s["t_s"], s["mean_sojourn_ms"], lw=1, label=f"{a['label']} (per-bin mean)")
    ax.set(xlabel="time (s)", ylabel="queueing delay (ms)", title=f"{title}: queueing delay")
    delay_axis(ax, symlog=True)
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(True, alpha=0.3)
    files += _save(fig, out, "delay")

    # Cumulative delivered MB vs time (all flows, or those that keep a series: `[output]
    # flow_series`; none drawn for a run whose flows keep none).
    with_rows = [a for a in arms if a["flows"] is not None and not a["flows"].empty]
    if with_rows:
        fig, ax = plt.subplots(figsize=(9, 4))
        for a in with_rows:
            per_bin = a["flows"].groupby("t_s", sort=True)["delivered_bytes"].sum()
            ax.plot(per_bin.index, per_bin.cumsum() / 1e6, label=a["label"])
        kept = first.get("flow_series")
        of = "" if kept is None else f" (the {len(kept)} flows with a time series)"
        ax.set(
            xlabel="time (s)",
            ylabel="delivered (MB)",
            title=f"{first.get('scenario', '')}: cumulative bytes delivered to applications{of}",
        )
        ax.legend(fontsize=8)
        ax.grid(True, alpha=0.3)
        files += _save(fig, out, "cumulative")

    # Ingress vs egress throughput of the link, with its capacity where known.
    if series(arms[0], "links") is not None:
        fig, ax = plt.subplots(figsize=(9, 4))
        bin_s = first.get("bin_s") or 0.1
        for i, a in enumerate(arms):
            s = series(a, "links")
            color = f"C{i}"
            ax.plot(
                s["t_s"],
                s["egress_bytes"] * 8 / bin_s / 1e6,
                color=color,
                lw=1,
                label=f"{a['label']} egress",
            )
            ax.plot(
                s["t_s"],
                s["ingress_bytes"] * 8 / bin_s / 1e6,
                color=color,
                lw=1,
                ls="--",
                alpha=0.7,
                label=f"{a['label']} ingress",
            )
        cap = series(arms[0], "links")
        if "capacity_bps" in cap.columns:
            ax.plot(cap["t_s"], cap["capacity_bps"] / 1e6, color="k", lw=1, label="capacity")
        ax.set(xlabel="time (s)", ylabel="throughput (Mb/s)", title=f"{title}: throughput")
        ax.legend(fontsize=8, ncol=2)
        ax.grid(True, alpha=0.3)
        files += _save(fig, out, "throughput")

        # Queue length vs time.
        fig, ax = plt.subplots(figsize=(9, 4))
        for a in arms:
            s = series(a, "links")
            col = next(
                (c for c in ("mean_backlog_pkts", "avg_backlog_pkts") if c in s.columns), None
            )
            if col:
                ax.plot(s["t_s"], s[col], lw=1, label=f"{a['label']} (time-averaged)")
            ax.plot(
                s["t_s"],
                s["max_backlog_pkts"],
                lw=0.8,
                alpha=0.6,
                label=f"{a['label']} (per-bin max)",
            )
        ax.set(xlabel="time (s)", ylabel="queue length (packets)", title=f"{title}: queue")
        ax.legend(fontsize=8)
        ax.grid(True, alpha=0.3)
        files += _save(fig, out, "queue")

    # CDF of sojourn times: every packet where a log exists, else the per-bin means weighted
    # by the packets each bin released (labelled as such: it is not a per-packet CDF).
    import numpy as np

    fig, ax = plt.subplots(figsize=(6, 4))
    for a in arms:
        pk = a["packets"]
        if pk is not None and (pk["link"] == link).any():
            v = np.sort(pk.loc[pk["link"] == link, "sojourn_ns"].to_numpy() / 1e6)
            ax.plot(v, np.arange(1, len(v) + 1) / len(v), label=a["label"])
        elif series(a, "links") is not None:
            s = series(a, "links").dropna(subset=["mean_sojourn_ms"])
            s = s[s["released_pkts"] > 0].sort_values("mean_sojourn_ms")
            if len(s):
                w = s["released_pkts"].cumsum() / s["released_pkts"].sum()
                ax.step(
                    s["mean_sojourn_ms"],
                    w,
                    where="post",
                    label=f"{a['label']} (per-bin means, no packet log)",
                )
    ax.set(xlabel="sojourn time (ms)", ylabel="fraction of packets", title=f"{title}: CDF")
    delay_axis(ax, "x", symlog=True)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    files += _save(fig, out, "sojourn_cdf")

    # Per-flow goodput, grouped by arm.
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(first.get("flows", [])) * len(arms)), 4))
    width = 0.8 / len(arms)
    for i, a in enumerate(arms):
        fl = a["summary"].get("flows", [])
        xs = np.arange(len(fl)) + i * width
        ax.bar(xs, [(f.get("goodput_bps") or 0) / 1e6 for f in fl], width, label=a["label"])
    names = [f.get("name") or f"flow {f['id']}" for f in first.get("flows", [])]
    ax.set_xticks(
        np.arange(len(names)) + width * (len(arms) - 1) / 2,
        names,
        rotation=45,
        ha="right",
        fontsize=8,
    )
    ax.set(ylabel="goodput (Mb/s)", title=f"{first.get('scenario', '')}: per-flow goodput")
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    files += _save(fig, out, "goodput")

    # Per-flow cwnd, where the series has it.
    fl = arms[0]["flows"]
    if fl is not None and "cwnd_pkts" in fl.columns:
        fig, ax = plt.subplots(figsize=(9, 4))
        for fid, g in fl.groupby("flow", sort=True):
            ax.plot(g["t_s"], g["cwnd_pkts"], lw=0.8, label=f"flow {fid}")
        ax.set(
            xlabel="time (s)",
            ylabel="cwnd (packets)",
            title=f"{first.get('scenario', '')}: congestion windows ({arms[0]['label']})",
        )
        ax.legend(fontsize=7, ncol=4)
        ax.grid(True, alpha=0.3)
        files += _save(fig, out, "cwnd")
    return files


# --- a sweep -------------------------------------------------------------------------------------


def plot_sweep(
    folder: str,
    metrics: Sequence[str] | None = None,
    x: str | None = None,
    by: str | None = None,
    link: str | None = None,
    out: str | None = None,
) -> list[str]:
    """Metrics against an axis, a line per value of another, 95 % CIs; and delay-throughput."""
    from aqmlab.results import Sweep

    plt = _plt()
    sweep = Sweep(folder)
    res, summ = sweep.results, sweep.summary
    axes = sweep.columns
    if not axes:
        raise AqmlabError(f"{folder}: the sweep varies nothing: there is no axis to plot against")
    for name, v in (("--x", x), ("--by", by)):
        if v is not None and v not in axes:
            raise AqmlabError(f"{name} {v}: not an axis of this sweep (axes: {', '.join(axes)})")
    x = x or axes[0]
    rest = [a for a in axes if a != x]
    by = by or (rest[0] if rest else None)
    facets = [a for a in rest if a != by]
    link = link or ("bottleneck" if any(c.startswith("bottleneck.") for c in res.columns) else None)
    wanted = metrics or [m.replace("LINK", link or "") for m in DEFAULT_SWEEP_METRICS]
    present = set(summ["metric"])
    for m in wanted:
        if metrics and m not in present:
            raise AqmlabError(f"--metric {m}: no such metric in {folder}/summary.csv")
    wanted = [m for m in wanted if m in present]
    out = out or os.path.join(folder, "figures")
    files: list[str] = []
    keyed = summ.copy()
    for a in axes:
        keyed[a] = keyed[a].astype(str)
    facet_values = (keyed[facets].drop_duplicates().to_dict("records") if facets else [{}])[
        :MAX_FACETS
    ]
    xs_order = list(dict.fromkeys(keyed[x]))
    numeric_x = _all_numeric(xs_order)
    for fv in facet_values:
        sub = keyed
        for k, v in fv.items():
            sub = sub[sub[k] == v]
        suffix = "".join(f"_{_slug(k)}={_slug(v)}" for k, v in fv.items())
        for m in wanted:
            fig, ax = plt.subplots(figsize=(7, 4))
            unit, scale = unit_of(m)
            groups = [(None, sub)] if by is None else list(sub.groupby(by, sort=False))
            for gv, g in groups:
                g = g[g["metric"] == m]
                g = g.set_index(x).reindex(xs_order).dropna(subset=["mean"])
                pos = (
                    [float(v) for v in g.index]
                    if numeric_x
                    else [xs_order.index(v) for v in g.index]
                )
                err = (g["ci95_high"] - g["mean"]).fillna(0) * scale
                ax.errorbar(
                    pos,
                    g["mean"] * scale,
                    yerr=err,
                    marker="o",
                    capsize=3,
                    label=None if gv is None else f"{by} = {gv}",
                )
            if not numeric_x:
                ax.set_xticks(range(len(xs_order)), xs_order)
            title = m + (f" ({', '.join(f'{k}={v}' for k, v in fv.items())})" if fv else "")
            ax.set(xlabel=x, ylabel=label_of(m), title=title)
            if by is not None:
                ax.legend(fontsize=8)
            ax.grid(True, alpha=0.3)
            files += _save(fig, out, f"{_slug(m)}_vs_{_slug(x)}{suffix}")
        files += _delay_throughput(plt, sub, axes, link, out, suffix, fv)
    return files


def _delay_throughput(plt, summ, axes, link, out, suffix, fv) -> list[str]:
    delay, tput = f"{link}.sojourn_ms.p95", "total.goodput_bps"
    if link is None or not {delay, tput} <= set(summ["metric"]):
        return []
    qaxes = [a for a in axes if a.startswith("qdisc:")]
    series_axis = qaxes[0] if qaxes else axes[0]
    others = [a for a in axes if a != series_axis and a not in fv]
    fig, ax = plt.subplots(figsize=(7, 5))
    for i, (sv, g) in enumerate(summ.groupby(series_axis, sort=False)):
        d = g[g["metric"] == delay].set_index(others) if others else g[g["metric"] == delay]
        t = g[g["metric"] == tput].set_index(others) if others else g[g["metric"] == tput]
        ax.errorbar(
            d["mean"].to_numpy(),
            t["mean"].to_numpy() / 1e6,
            xerr=(d["ci95_high"] - d["mean"]).fillna(0).to_numpy(),
            yerr=(t["ci95_high"] - t["mean"]).fillna(0).to_numpy() / 1e6,
            fmt="o",
            color=f"C{i}",
            capsize=3,
            label=f"{series_axis} = {sv}",
        )
        if others:
            for (lbl, dv), tv in zip(d["mean"].items(), t["mean"].to_numpy()):
                ax.annotate(
                    str(lbl), (dv, tv / 1e6), fontsize=7, xytext=(3, 3), textcoords="offset points"
                )
    ax.invert_xaxis()
    ax.set(
        xlabel=f"95th percentile queueing delay at {link} (ms), better →",
        ylabel="total goodput (Mb/s)",
        title="delay vs throughput"
        + (f" ({', '.join(f'{k}={v}' for k, v in fv.items())})" if fv else ""),
    )
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    return _save(fig, out, f"delay_throughput{suffix}")


def _all_numeric(values: list[str]) -> bool:
    try:
        [float(v) for v in values]
    except ValueError:
        return False
    return True


def _slug(v: Any) -> str:
    return "".join(c if c.isalnum() or c in "-_.=" else "_" for c in str(v))


def plot(folder: str, **kw: Any) -> list[str]:
    """Figures of a run folder or a sweep folder, whichever ``folder`` is."""
    from aqmlab.results import kind

    if kind(folder) == "sweep":
        return plot_sweep(
            folder,
            metrics=kw.get("metrics"),
            x=kw.get("x"),
            by=kw.get("by"),
            link=kw.get("link"),
            out=kw.get("out"),
        )
    return plot_run(folder, link=kw.get("link"), out=kw.get("out"))
