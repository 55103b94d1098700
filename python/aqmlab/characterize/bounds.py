"""The range each characterization metric can take, and the 95 % interval cut to it.

With few seeds (quick mode's 2: Student's t with one degree of freedom, t = 12.7) the t
interval of a non-negative metric's mean often reaches below 0, and that of a ratio above 1.
The true mean lies in the metric's range, so the interval intersected with the range covers it
exactly as often as the t interval does (if μ ∈ [lo, hi] and μ ∈ [a, b], then μ ∈ [lo, hi] ∩
[a, b]): the cut keeps the 95 % coverage and only drops values that cannot be. The cut end is
named (``"clipped": ["low"]``) so that a reader knows the interval is the t interval cut, not
one from a method for bounded parameters (Mandelkern, "Setting confidence intervals for bounded
parameters", Statistical Science 17(2), 2002, discusses those and this cut's shortcoming: an
interval can shrink to a point at the bound).
"""

from __future__ import annotations

import math

#: Metric (its name before any ``[GROUP]`` or ``@PHASE``) → (lowest, highest) value; None for
#: no bound. A metric not listed is not cut.
RANGES: dict[str, tuple[float | None, float | None]] = {
    **{
        k: (0.0, None)
        for k in (
            "goodput_mbps",
            "goodput_ratio",
            "utilization",  # not cut at 1: a rate schedule's edges can count a little above it
            "queue_delay_ms",
            "queue_delay_p99_ms",
            "max_backlog_pkts",
            "owd_ms",
            "pdv_p99_ms",
            "jitter_ms",
            "fct_s",
            "page_time_s",
            "pages_completed",
            "video_bitrate_mbps",
            "video_rebuffer_s",
            "video_switches",
            "loss_gap_ms",
            "loss_gap_flow_ms",
            "startup_s",
            "min_rtt_ms",
            "goodput_10rtt_p10_mbps",
            "goodput_10rtt_p50_mbps",
            "goodput_10rtt_p90_mbps",
        )
    },
    **{
        k: (0.0, 1.0)
        for k in ("loss_ratio", "mark_ratio", "sync_ratio", "jain_goodput", "jain_10rtt")
    },
}


def base(name: str) -> str:
    """``loss_ratio[aqm1]`` → ``loss_ratio``; ``queue_delay_ms@mild`` → ``queue_delay_ms``."""
    return name.split("[", 1)[0].split("@", 1)[0]


def clip(name: str, lo: float, hi: float) -> tuple[float, float, list[str]]:
    """The interval ``[lo, hi]`` of metric ``name`` cut to its range, and which ends were cut
    (``"low"``, ``"high"``). NaN ends stay NaN."""
    low, high = RANGES.get(base(name), (None, None))
    cut = []
    if low is not None and not math.isnan(lo) and lo < low:
        lo = low
        cut.append("low")
    if high is not None and not math.isnan(hi) and hi > high:
        hi = high
        cut.append("high")
    return lo, hi, cut
