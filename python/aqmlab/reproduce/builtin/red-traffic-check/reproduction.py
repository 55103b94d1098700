"""red-traffic-check's own code: the switch's departures in 10-ms bins over the measured window
(each run's series), their idle share and coefficient of variation, and the figure of the
traffic over time. experiment.toml (its report table too) and claims.toml hold the rest."""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.common import link_series
from aqmlab.reproduce.style import colour, title

#: The numbers' short arm names for the runs' cases.
ARMS = {"window 8": "w8", "window 240": "w240"}
LINK = "switch"


def _bins(ctx: Any, key: str) -> Any:
    """The switch's series over [t0, duration): one row per 10-ms bin."""
    p = ctx.params
    s = link_series(os.path.join(ctx.out, "sweep", "runs", key), LINK)
    return s[(s["t_s"] >= p["t0_s"] - 1e-9) & (s["t_s"] < p["duration_s"] - 1e-9)]


def numbers(ctx: Any) -> dict[str, Any]:
    df = ctx.frames["sweep"]
    span = ctx.params["duration_s"] - ctx.params["t0_s"]
    traffic, bins, series = {}, {}, {}
    for r in df.itertuples():
        w = _bins(ctx, r.run)
        pkts = w["released_pkts"].astype(float)
        arm = ARMS[r.case]
        mean = float(pkts.mean())
        bins[arm] = {
            "idle_share": float((pkts == 0).mean()),
            "cv": float(pkts.std(ddof=0) / mean) if mean else float("nan"),
        }
        traffic[arm] = {
            "rate_mbps": float(w["egress_bytes"].sum()) * 8 / span / 1e6,
            "share_of_link_pct": 100 * float(w["egress_bytes"].sum()) * 8 / span / 45e6,
            "pkts_per_bin_mean": mean,
            "pkts_per_bin_max": float(pkts.max()),
        }
        series[r.case] = (list(w["t_s"]), list(pkts))
    ctx.state["series"] = series
    return {"traffic": traffic, "_bins": bins}


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save

    plt = _plt()
    fig, axes = plt.subplots(2, 1, figsize=(9, 5.5), sharex=True)
    for ax, (case, style) in zip(axes, (("window 8", "-"), ("window 240", "--"))):
        t, pkts = ctx.state["series"][case]
        ax.step(t, pkts, style, where="post", color=colour("tail drop"), lw=0.9)
        ax.set_ylim(bottom=0)
        ax.set_ylabel("packets / 10 ms")
        ax.set_title(f"{case} (tail drop switch)", fontsize=9)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    title(fig, "One sender, window capped, 45 Mb/s 16 ms + 2 ms", "CS244 Seeing RED Fig. 1")
    files = _save(fig, os.path.join(ctx.out, "figures"), "traffic")
    return [f for f in files if f.endswith(".png")]
