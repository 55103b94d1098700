"""A sweep's run reduced, in its worker, to statistics of one link's packet log
(docs/reproductions.md, "A reduced sweep"): a ``[[sweep]]``'s ``[sweep.reduce.packet_log]``
declares the link, the statistics and their parameters, and each run's ``reduced.json`` holds
them (its packet log is then not kept, so runs of days stay practical: lstf-codel's 259,200 s).

The statistics (each in :data:`STATISTICS`, any subset; ``packets``, the count, always):

* ``delay_s``: the mean, variance (n - 1) and standard deviation of the packets' sojourns (s),
  per dequeued packet;
* ``delay_s_changes``: the same over the records an ns-2 ``Trace/Var`` of the delay writes, one
  when the traced value changes (a dequeue whose sojourn equals the last one writes none), so
  a run of packets that wait 0 s is one record (Ford 2020's ``d_exp_``);
* ``queue_bytes``: the queue in bytes (each packet counted from its arrival, departure -
  sojourn, to its departure), its moments weighted by time over the log's first to last event;
* ``queue_bytes_changes``: the queue after each enqueue and dequeue that changed it, averaged
  as ``Trace/Var`` records (``curq_``), not weighted by time;
* ``slack_s``, ``slack_s_changes``: an exponentially weighted moving average of the sojourns,
  s <- (1 - a)·s + a·d after every dequeue from s = 0 (LSTF-CoDel's slack, Ford 2020 Eq. (2)),
  per packet and over its value-change records; ``a`` is ``slack_alpha``, a number or the
  ``set`` key whose value in the run it is (a run without that key has none);
* ``samples_s``, ``samples_changes_s``: ``samples`` sojourns (s) evenly spaced over the packets
  that left from ``samples_after_s`` on (``np.linspace(0, n - 1, samples).round()``), and over
  the value-change records of those: the two-sample tests' samples (``test = "two-sample"``);
  none when fewer than ``samples`` left.

Streamed: a three-day run logs about 87 million packets, and holding them (as lstf-codel's
reducer did until issue 24) took about 10 GB; now it peaks at about 250 MB whatever the run's
length. The log is read twice (once when no statistic needs the first pass), batch by batch,
by :func:`aqmlab.results.row_group_batches`, the reader of run folders (it only hands over the
file's values, row group by row group; every statistic is computed here, and the run key holds
this file's content hash, ``sweep.reducer_identity``), and nothing is kept but a batch, the
events since the earliest arrival still to be read (468 at most on one three-day run's log,
whose longest sojourn is 0.64 s) and sums:

* every mean and variance is a sum accumulated exactly (integers, or floats summed exactly as
  integers), so it is the same however the log is cut into batches, and the correctly rounded
  value of its definition;
* the queue in bytes needs the arrivals and departures in time order. The log is in departure
  order and a discipline that reorders (LSTF) makes the arrivals (departure - sojourn) out of
  order; the first pass notes the earliest arrival of each batch, and the second releases an
  event only once no later batch can hold an earlier one (see ``_QueueLevel``).
"""

from __future__ import annotations

import math
import os
from typing import Any

from aqmlab.exceptions import AqmlabError

#: The statistics a packet log is reduced to (the module's docstring says what each is).
STATISTICS = (
    "delay_s",
    "delay_s_changes",
    "queue_bytes",
    "queue_bytes_changes",
    "slack_s",
    "slack_s_changes",
    "samples_s",
    "samples_changes_s",
)
#: Delays drawn for the two-sample tests by default (Ford 2020's n = 500).
SAMPLES = 500
#: Packet-log rows taken at a time (at most a row group's).
BATCH_ROWS = 1 << 16
#: The largest batch the exact sums below take at once (their int64 and float64 partial sums
#: stay exact below it).
_CHUNK = 1 << 20
#: The reducer a ``[sweep.reduce.packet_log]`` runs (``SweepSpec.reduce``).
REDUCER = "aqmlab.reproduce.packet_log:reduce_run"


def parse(where: str, doc: Any) -> dict[str, Any]:
    """A ``[sweep.reduce.packet_log]`` table checked, as the keyword arguments of
    :func:`reduce_run`; errors name ``where`` (the file and the table) and the key."""

    def err(key: str, expected: str) -> AqmlabError:
        got = doc.get(key) if isinstance(doc, dict) else doc
        tail = f", got {got!r}" if got is not None else ""
        return AqmlabError(f"{where}{'.' + key if key else ''}: expected {expected}{tail}")

    if not isinstance(doc, dict):
        raise err("", "a table: link, statistics, samples, samples_after_s, slack_alpha")
    known = ("link", "statistics", "samples", "samples_after_s", "slack_alpha")
    for k in doc:
        if k not in known:
            raise AqmlabError(f"{where}.{k}: unknown key (expected one of {', '.join(known)})")
    link = doc.get("link")
    if not isinstance(link, str) or not link:
        raise err("link", "the name of the link whose packet log is reduced")
    stats = doc.get("statistics", list(STATISTICS))
    if (
        not isinstance(stats, list)
        or not stats
        or not all(isinstance(s, str) and s in STATISTICS for s in stats)
    ):
        raise err("statistics", f"a list of some of {', '.join(STATISTICS)}")
    samples = doc.get("samples", SAMPLES)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 2:
        raise err("samples", "a whole number of delays, at least 2")
    after = doc.get("samples_after_s", 0.0)
    if isinstance(after, bool) or not isinstance(after, (int, float)) or not after >= 0:
        raise err("samples_after_s", "a time in s, 0 or more")
    alpha = doc.get("slack_alpha")
    slack = {"slack_s", "slack_s_changes"} & set(stats)
    if alpha is None and slack:
        raise err("slack_alpha", f"the slack's α (a number, or a set key) for {min(slack)}")
    if alpha is not None and (
        isinstance(alpha, bool)
        or not isinstance(alpha, (int, float, str))
        or (isinstance(alpha, (int, float)) and not 0 < alpha <= 1)
    ):
        raise err("slack_alpha", "a number in (0, 1], or the set key whose value in a run is it")
    return {
        "link": link,
        "statistics": [s for s in STATISTICS if s in stats],
        "samples": samples,
        "samples_after_s": float(after),
        "slack_alpha": alpha,
    }


def reduce_run(
    folder: str,
    point: dict[str, Any],
    sets: dict[str, Any],
    *,
    link: str,
    statistics: list[str] | tuple[str, ...] = STATISTICS,
    samples: int = SAMPLES,
    samples_after_s: float = 0.0,
    slack_alpha: float | str | None = None,
    batch_rows: int = BATCH_ROWS,
) -> dict[str, Any]:
    """``statistics`` of one run's packet log on ``link`` (run in the sweep's worker; the keyword
    arguments are a ``[sweep.reduce.packet_log]``'s, :func:`parse`).

    ``batch_rows`` changes how much is read at a time, never a result."""
    import numpy as np

    want = set(statistics)
    unknown = want - set(STATISTICS)
    if unknown:
        raise ValueError(f"no statistic {sorted(unknown)[0]!r} (expected some of {STATISTICS})")
    path = os.path.join(folder, "packets.parquet")
    alpha = sets.get(slack_alpha) if isinstance(slack_alpha, str) else slack_alpha
    a = float(alpha) if alpha is not None and want & {"slack_s", "slack_s_changes"} else None
    queue_wanted = bool(want & {"queue_bytes", "queue_bytes_changes"})
    samples_wanted = bool(want & {"samples_s", "samples_changes_s"})
    after_ns = int(samples_after_s * 1e9)

    # Pass 1 (for the queue, the samples and the slack's variance): each batch's earliest
    # arrival, the late delays' counts, the slack's sums.
    first_arrival: list[int] = []
    late_n = 0
    late_changes = _Changes()
    slack = _Slack(a)
    slack_sum, slack_c_sum = _ExactSum(), _ExactSum()
    slack_changes = _Changes()
    if queue_wanted or samples_wanted or a is not None:
        for dep, soj, _size in _batches(path, link, batch_rows):
            first_arrival.append(int((dep - soj).min()) if len(dep) else _NEVER)
            late = soj[dep >= after_ns]
            late_n += len(late)
            late_changes.take(late)
            if a is not None:
                s = slack.filter(soj / 1e9)
                slack_sum.add(s)
                slack_c_sum.add(slack_changes.take(s))
    # No batch after batch j arrives before after_batch[j].
    after_batch = np.minimum.accumulate([*first_arrival[1:], _NEVER][::-1])[::-1].tolist()

    # Pass 2: everything else.
    delay, delay_c = _IntMoments(), _IntMoments()
    delay_changes = _Changes()
    slack = _Slack(a)
    slack_mean, slack_c_mean = slack_sum.mean(), slack_c_sum.mean()
    slack_sq, slack_c_sq = _ExactSum(), _ExactSum()
    slack_changes = _Changes()
    # ``samples`` delays evenly spaced over the packets that left from samples_after_s on, and
    # over the value-change records of those (Ford's d_exp_ trace).
    picks = _Picks(late_n if samples_wanted else 0, samples)
    picks_c = _Picks(late_changes.n if samples_wanted else 0, samples)
    late_changes = _Changes()
    queue = _QueueLevel()
    for j, (dep, soj, size) in enumerate(_batches(path, link, batch_rows)):
        delay.add(soj)
        # Over ns-2 Trace/Var records, one written when the traced value changes. Distinct
        # sojourns in ns stay distinct in seconds (below 2**52 ns).
        if "delay_s_changes" in want:
            delay_c.add(delay_changes.take(soj))
        if a is not None:
            s = slack.filter(soj / 1e9)
            slack_sq.add(np.square(s - slack_mean))
            slack_c_sq.add(np.square(slack_changes.take(s) - slack_c_mean))
        if samples_wanted:
            late = soj[dep >= after_ns]
            picks.take(late)
            picks_c.take(late_changes.take(late))
        if queue_wanted:
            queue.take(dep - soj, dep, size, after_batch[j])

    out: dict[str, Any] = {"packets": delay.n}
    if "delay_s" in want:
        out["delay_s"] = delay.moments(10**9)
    if "delay_s_changes" in want:
        out["delay_s_changes"] = delay_c.moments(10**9)
    # Eq. (2): slack <- (1 - alpha)·slack + alpha·d_exp after every dequeue, from 0.
    if a is not None and delay.n:
        if "slack_s" in want:
            out["slack_s"] = _float_moments(slack_sum, slack_sq)
        if "slack_s_changes" in want:
            out["slack_s_changes"] = _float_moments(slack_c_sum, slack_c_sq)
    if picks.ready and "samples_s" in want:
        out["samples_s"] = [v / 1e9 for v in picks.values]
    if picks_c.ready and "samples_changes_s" in want:
        out["samples_changes_s"] = [v / 1e9 for v in picks_c.values]
    # curq_'s Trace/Var records: the queue after every enqueue and dequeue that changed it,
    # averaged as records (not weighted by time).
    if "queue_bytes_changes" in want:
        out["queue_bytes_changes"] = queue.changes.moments(1)
    if "queue_bytes" in want:
        out["queue_bytes"] = queue.time_weighted()
    return out


#: Later than any time in a log.
_NEVER = (1 << 63) - 1


def _batches(path: str, link: str, batch_rows: int) -> Any:
    """The rows of ``link`` of the log, batch by batch: departure time, sojourn (ns) and size
    as int64 arrays, in the log's order (departure order), streamed a row group at a time by
    the one reader of run folders (:func:`aqmlab.results.row_group_batches`)."""
    import numpy as np

    from aqmlab.results import row_group_batches

    for cols in row_group_batches(path, ["t_ns", "sojourn_ns", "size"], link, batch_rows):
        dep, soj, size = (c.astype(np.int64) for c in cols)
        if len(soj) and int(soj.min()) < 0:
            raise ValueError(f"{path}: a negative sojourn_ns ({int(soj.min())})")
        yield dep, soj, size


class _QueueLevel:
    """The queue in bytes over time: each packet adds its size from its arrival to its
    departure. Its events in time order, an arrival before a departure of the same time and
    events of one kind and time in log order (a stable sort of all arrivals, then all
    departures, by time), give the level after each event.

    Why the order is right with one batch at a time: a batch's events are held (``arr``,
    ``dep``) until released; after batch j, with every later packet arriving at or after
    ``after`` (the least arrival of the batches after j, from the first pass) and departing no
    earlier than it arrived, every event not yet read sorts after the arrivals at times
    <= ``after`` and the departures at times < ``after``, which are released. What stays
    held is at most the events since the earliest arrival still to be read: a batch plus the
    packets that left while the longest-waiting packet still in the queue waited."""

    def __init__(self) -> None:
        import numpy as np

        self.arr = np.zeros(0, np.int64), np.zeros(0, np.int64)  # times, sizes, sorted
        self.dep = np.zeros(0, np.int64), np.zeros(0, np.int64)
        self.level = 0
        self.t: int | None = None  # the last released event's time
        self.start: int | None = None
        self.changes = _IntMoments()
        self._changes = _Changes()  # the levels after each event, as Trace/Var records them
        self.at = np.zeros(0, np.int64)  # ns spent at each level 0, 1, ...

    def take(self, arr_t: Any, dep_t: Any, size: Any, after: int) -> None:
        import numpy as np

        ta = np.concatenate([self.arr[0], arr_t])
        sa = np.concatenate([self.arr[1], size])
        td = np.concatenate([self.dep[0], dep_t])
        sd = np.concatenate([self.dep[1], -size])
        # Held events come first in each kind and are in order: a stable sort keeps log order
        # within a time (numpy's stable sort of int64 merges the sorted runs in linear time).
        t = np.concatenate([ta, td])
        order = np.argsort(t, kind="stable")
        t = t[order]
        is_arr = order < len(ta)
        delta = np.concatenate([sa, sd])[order]
        go = (t < after) | ((t == after) & is_arr)
        n = int(np.count_nonzero(go))  # a prefix
        rest, keep = order[n:], is_arr[n:]
        ia, idx = rest[keep], rest[~keep] - len(ta)
        self.arr = ta[ia], sa[ia]
        self.dep = td[idx], sd[idx]
        self._release(t[:n], delta[:n])

    def _release(self, t: Any, delta: Any) -> None:
        import numpy as np

        if not len(t):
            return
        level = np.cumsum(delta)
        level += self.level
        self.changes.add(self._changes.take(level))
        # Each level holds from its event to the next one.
        if self.t is None:
            self.start = int(t[0])
            held, dt = level[:-1], np.diff(t)
        else:
            held = np.concatenate([[self.level], level[:-1]])
            dt = np.diff(t, prepend=self.t)
        if len(held):
            top = int(held.max()) + 1
            if top > len(self.at):
                self.at = np.concatenate([self.at, np.zeros(top - len(self.at), np.int64)])
            # float64 weights: every partial sum is integer ns below 2**53, so exact.
            self.at[:top] += np.bincount(held, weights=dt, minlength=top).astype(np.int64)
        self.level = int(level[-1])
        self.t = int(t[-1])

    def time_weighted(self) -> dict[str, float]:
        import numpy as np

        if self.t is None or self.start is None or self.t <= self.start:
            return {"mean": math.nan, "var": math.nan, "std": math.nan}
        held = np.flatnonzero(self.at)
        return _time_weighted(held.tolist(), self.at[held].tolist())


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
    if len(level) == 0 or int(dt.sum()) <= 0:
        return {"mean": math.nan, "var": math.nan, "std": math.nan}
    lo = int(level.min())
    at = np.bincount(level - lo, weights=dt)  # ns spent at each level lo, lo + 1, ...
    held = np.flatnonzero(at)
    return _time_weighted((held + lo).tolist(), [int(t) for t in at[held].tolist()])


def _time_weighted(values: list[int], times: list[int]) -> dict[str, float]:
    """The moments of levels ``values`` held ``times`` ns in all (Python integers)."""
    span = sum(times)
    if span <= 0:
        return {"mean": math.nan, "var": math.nan, "std": math.nan}
    # Python's integers are exact and their quotient is correctly rounded.
    mean = sum(v * t for v, t in zip(values, times)) / span
    var = math.fsum((v - mean) ** 2 * t for v, t in zip(values, times)) / span
    return {"mean": mean, "var": var, "std": math.sqrt(var)}


class _Changes:
    """The values of a series, given in pieces, at the records a ns-2 Trace/Var writes: its
    first value and every value that differs from the one before."""

    def __init__(self) -> None:
        self.last: list[Any] = []  # the last value seen, if any
        self.n = 0  # values kept so far

    def take(self, x: Any) -> Any:
        import numpy as np

        if len(x) == 0:
            return x
        keep = np.empty(len(x), dtype=bool)
        keep[0] = not self.last or x[0] != self.last[0]
        np.not_equal(x[1:], x[:-1], out=keep[1:])
        self.last = [x[-1]]
        out = x[keep]
        self.n += len(out)
        return out


class _Picks:
    """The values at ``np.linspace(0, n - 1, k).round()`` of a series of ``n`` values given in
    pieces (none unless ``n >= k``)."""

    def __init__(self, n: int, k: int) -> None:
        import numpy as np

        self.ready = n >= k
        self.idx = np.linspace(0, n - 1, k).round().astype(np.int64) if self.ready else []
        self.seen = 0
        self.values: list[int] = []

    def take(self, x: Any) -> None:
        if self.ready:
            sel = self.idx[(self.idx >= self.seen) & (self.idx < self.seen + len(x))]
            self.values.extend(x[sel - self.seen].tolist())
        self.seen += len(x)


class _Slack:
    """Eq. (2)'s slack, s[i] = (1 - a)·s[i-1] + a·d[i] from s[-1] = 0, over pieces of the
    delays: a first-order recursive filter whose state carries over, so the same values as
    over the whole series at once."""

    def __init__(self, a: float | None) -> None:
        self.a = a
        self.zi = [0.0]

    def filter(self, d: Any) -> Any:
        from scipy.signal import lfilter

        a = self.a
        assert a is not None
        if not len(d):  # lfilter gives no state for no input
            return d
        s, self.zi = lfilter([a], [1.0, -(1.0 - a)], d, zi=self.zi)
        return s


class _IntMoments:
    """The mean and variance (n - 1) of integers given in pieces, from their exact sums."""

    def __init__(self) -> None:
        self.n = 0
        self.s1 = 0
        self.s2 = 0

    def add(self, x: Any) -> None:
        import numpy as np

        for i in range(0, len(x), _CHUNK):
            c = np.asarray(x[i : i + _CHUNK], dtype=np.int64)
            self.n += len(c)
            if len(c) and int(c.min()) >= 0 and int(c.max()) < 1 << 42:
                # c = h·2**21 + l with h, l < 2**21: each product below 2**42 and each sum of
                # at most 2**20 of them below 2**62, exact in int64.
                h, low = c >> 21, c & ((1 << 21) - 1)
                self.s1 += int(c.sum())
                self.s2 += (int((h * h).sum()) << 42) + (int((h * low).sum()) << 22)
                self.s2 += int((low * low).sum())
            else:
                v = c.tolist()
                self.s1 += sum(v)
                self.s2 += sum(u * u for u in v)

    def moments(self, scale: int) -> dict[str, float]:
        """Those of the values divided by ``scale``, correctly rounded."""
        n = self.n
        if n == 0:
            return {"mean": math.nan, "var": math.nan, "std": math.nan}
        mean = self.s1 / (n * scale)
        if n == 1:
            return {"mean": mean, "var": math.nan, "std": math.nan}
        var = (n * self.s2 - self.s1 * self.s1) / (n * (n - 1) * scale * scale)
        return {"mean": mean, "var": var, "std": math.sqrt(var)}


class _ExactSum:
    """The exact sum of float64 values given in pieces, as an integer count of 2**-1126: every
    finite float64 is a 53-bit integer m times 2**(e - 53) with e >= -1073 (``np.frexp``)."""

    def __init__(self) -> None:
        self.total = 0
        self.n = 0

    def add(self, x: Any) -> None:
        import numpy as np

        for i in range(0, len(x), _CHUNK):
            c = np.asarray(x[i : i + _CHUNK], dtype=np.float64)
            self.n += len(c)
            if not len(c):
                continue
            if not np.isfinite(c).all():
                raise ValueError("a statistic's value is not finite")
            f, e = np.frexp(c)  # c = f·2**e, 0.5 <= |f| < 1 (0 for 0)
            m = (f * 2.0**53).astype(np.int64)  # c = m·2**(e - 53), exactly
            hi, lo = m >> 26, m & ((1 << 26) - 1)  # m = hi·2**26 + lo
            e0 = int(e.min())
            at = e - e0
            # Sums of at most 2**20 values below 2**27: exact in float64.
            shi = np.bincount(at, weights=hi).tolist()
            slo = np.bincount(at, weights=lo).tolist()
            for k, (h, low) in enumerate(zip(shi, slo)):
                if h or low:
                    self.total += ((int(h) << 26) + int(low)) << (e0 + k - 53 + 1126)

    def mean(self) -> float:
        """The mean, correctly rounded (NaN without values)."""
        return self.total / (self.n << 1126) if self.n else math.nan


def _float_moments(s: _ExactSum, sq: _ExactSum) -> dict[str, float]:
    """The mean and variance (n - 1) of a series from the exact sums of its values (``s``) and
    of the squares of their differences from that mean, each rounded (``sq``)."""
    if s.n == 0:
        return {"mean": math.nan, "var": math.nan, "std": math.nan}
    if s.n == 1:
        return {"mean": s.mean(), "var": math.nan, "std": math.nan}
    var = sq.total / ((s.n - 1) << 1126)
    return {"mean": s.mean(), "var": var, "std": math.sqrt(var)}
