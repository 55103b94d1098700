"""lstf-codel's reducer: the paper's statistics of one run from its bottleneck packet log, run
in the sweep's worker (experiment.toml's ``reduce``), so the 259,200-s runs' logs are never kept.

Its own file: the sweep's run key holds this file's content hash, so editing the report's code
(reproduction.py) does not reduce three-day runs again.
"""

from __future__ import annotations

import math
import os
from typing import Any

LINK = "bottleneck"
#: The CBR starts at 300 s (scenario.toml); the tests' samples are drawn after it.
CBR_START_S = 300.0
#: Delays drawn for the t- and F-tests (the paper's n = 500).
SAMPLES = 500


def reduce_run(folder: str, point: dict[str, Any], sets: dict[str, Any]) -> dict[str, Any]:
    """The paper's statistics of one run, from its bottleneck packet log (run in the worker).

    A three-day run logs about 36 million packets: the log is read batch by batch into integer
    arrays (nanoseconds, bytes), and the large intermediate arrays are freed as soon as they
    are used, so a run needs a few GB, not tens."""
    import numpy as np
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    deps, sojs, sizes = [], [], []
    log = pq.ParquetFile(os.path.join(folder, "packets.parquet"))
    for batch in log.iter_batches(
        columns=["link", "t_ns", "sojourn_ns", "size"], batch_size=1 << 20
    ):
        keep = pc.equal(batch.column(0), LINK)
        b = batch.filter(keep)
        deps.append(b.column(1).to_numpy().astype(np.int64))
        sojs.append(b.column(2).to_numpy().astype(np.int64))
        sizes.append(b.column(3).to_numpy().astype(np.int64))
    dep_ns = np.concatenate(deps) if deps else np.zeros(0, np.int64)
    soj_ns = np.concatenate(sojs) if sojs else np.zeros(0, np.int64)
    size = np.concatenate(sizes) if sizes else np.zeros(0, np.int64)
    del deps, sojs, sizes
    soj = soj_ns / 1e9
    out: dict[str, Any] = {"packets": int(len(soj))}
    out["delay_s"] = _moments(soj)
    # The author's statistic: the mean over ns-2 Trace/Var records of d_exp_, one written when
    # the traced value changes (a dequeue whose sojourn equals the last one writes none).
    out["delay_s_changes"] = _moments(_changes(soj))
    # Eq. (2): slack <- (1 - alpha)·slack + alpha·d_exp after every dequeue, from 0.
    alpha = sets.get("links[2].params.alpha")
    if alpha is not None and len(soj):
        from scipy.signal import lfilter

        a = float(alpha)
        # s[i] = (1 - a)·s[i-1] + a·d[i], s[-1] = 0: a first-order recursive filter.
        slack = lfilter([a], [1.0, -(1.0 - a)], soj)
        out["slack_s"] = _moments(slack)
        out["slack_s_changes"] = _moments(_changes(slack))
        del slack
    # 500 delays evenly spaced over the packets that left after the CBR started.
    late = soj[dep_ns >= int(CBR_START_S * 1e9)]
    if len(late) >= SAMPLES:
        idx = np.linspace(0, len(late) - 1, SAMPLES).round().astype(int)
        out["samples_s"] = late[idx].tolist()
    # The same over the value-change records (the author's d_exp_ trace).
    late_c = _changes(late)
    if len(late_c) >= SAMPLES:
        idx = np.linspace(0, len(late_c) - 1, SAMPLES).round().astype(int)
        out["samples_changes_s"] = late_c[idx].tolist()
    del soj, late, late_c
    # The queue in bytes over time: each packet adds its size from its arrival to its departure.
    times = np.concatenate([dep_ns - soj_ns, dep_ns])
    del dep_ns, soj_ns
    order = np.argsort(times, kind="stable")
    times = times[order]
    level = np.concatenate([size, -size])[order]
    del order, size
    np.cumsum(level, out=level)
    # The author's statistic: curq_'s Trace/Var records, the queue after every enqueue and
    # dequeue that changed it, averaged as records (not weighted by time).
    out["queue_bytes_changes"] = _moments(_changes(level.astype(np.float64)))
    span = int(times[-1] - times[0]) if len(times) > 1 else 0
    if span > 0:
        dt = np.diff(times)  # level[k] holds from times[k] to times[k + 1]
        del times
        lv = level[:-1].astype(np.float64)
        mean_q = float(np.dot(lv, dt) / span)
        var_q = float(np.dot((lv - mean_q) ** 2, dt) / span)
        out["queue_bytes"] = {"mean": mean_q, "var": var_q, "std": math.sqrt(var_q)}
    else:
        out["queue_bytes"] = {"mean": math.nan, "var": math.nan, "std": math.nan}
    return out


def _changes(x: Any) -> Any:
    """The values of a series at the records a ns-2 Trace/Var writes: its first value and
    every value that differs from the one before."""
    import numpy as np

    if len(x) == 0:
        return x
    keep = np.empty(len(x), dtype=bool)
    keep[0] = True
    np.not_equal(x[1:], x[:-1], out=keep[1:])
    return x[keep]


def _moments(x: Any) -> dict[str, float]:
    import numpy as np

    if len(x) == 0:
        return {"mean": math.nan, "var": math.nan, "std": math.nan}
    m = float(np.mean(x))
    v = float(np.var(x, ddof=1)) if len(x) > 1 else math.nan
    return {"mean": m, "var": v, "std": math.sqrt(v) if v == v else math.nan}
