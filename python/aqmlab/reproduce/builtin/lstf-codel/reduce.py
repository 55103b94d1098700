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
    if len(times) > 1 and times[-1] > times[0]:
        # level[k] holds from times[k] to times[k + 1].
        out["queue_bytes"] = time_weighted_moments(level[:-1], np.diff(times))
    else:
        out["queue_bytes"] = {"mean": math.nan, "var": math.nan, "std": math.nan}
    del times, level
    return out


def time_weighted_moments(level: Any, dt: Any) -> dict[str, float]:
    """The time-weighted mean and variance of a step function of integers (the queue in bytes)
    that holds ``level[k]`` for ``dt[k]`` ns, bit-identical whatever the order of its steps
    and however the process is set up.

    The time spent at each level is summed first: integer nanoseconds, each total and partial
    sum below 2**53, so exact in float64 in any order. The moments over the distinct levels are
    then an exact integer sum (the mean) and a correctly rounded sum (``math.fsum``, the
    variance). (A dot product, as before, went to OpenBLAS, whose ``ddot`` splits a long
    vector over its threads; how many it starts depends on how numpy was first imported, and
    the sweep imports it under ``OPENBLAS_NUM_THREADS=1`` only when it starts worker
    processes, so the same run's variance differed in its last digits between ``--jobs 1``
    and ``--jobs 2``.)"""
    import numpy as np

    level = np.asarray(level, dtype=np.int64)
    dt = np.asarray(dt, dtype=np.int64)
    span = int(dt.sum())
    if len(level) == 0 or span <= 0:
        return {"mean": math.nan, "var": math.nan, "std": math.nan}
    lo = int(level.min())
    at = np.bincount(level - lo, weights=dt)  # ns spent at each level lo, lo + 1, ...
    held = np.flatnonzero(at)
    values = (held + lo).tolist()
    times = [int(t) for t in at[held].tolist()]
    # Python's integers are exact and their quotient is correctly rounded.
    mean = sum(v * t for v, t in zip(values, times)) / span
    var = math.fsum((v - mean) ** 2 * t for v, t in zip(values, times)) / span
    return {"mean": mean, "var": var, "std": math.sqrt(var)}


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
