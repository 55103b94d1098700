"""RFC 7928 §2's metrics of one run, and the arithmetic behind them.

The pure functions (:func:`loss_events`, :func:`sync_ratio`, :func:`loss_gaps`,
:func:`gaussian_fit`, :func:`ellipse`; Jain's index is :func:`aqmlab.jain.index`) are tested on
hand-built inputs;
:func:`reduce_run` applies them to a run's folder, in the sweep's worker (``SweepSpec.reduce``),
so the packet log never leaves the worker.

Definitions, where the RFC leaves a choice (stated again in the report):

* **loss event** (§2.4, after Hassayoun & Ros): a loss at the bottleneck that falls outside
  every earlier event opens one, and the event takes every loss of the next base RTT (the
  smallest of the flows' propagation RTTs); the **global loss-synchronization ratio** is the
  mean over events of the share of the TCP flows that lose at least one packet in it.
* **interval between losses** (§2.3): the gaps between consecutive drops at the bottleneck,
  over all flows and within each flow.
* **flow startup time** (§2.1): from a TCP flow's first packet (its SYN) reaching the
  bottleneck to its first data packet leaving it (a handshake's round trip, plus any SYN loss).
* **goodput sampled every 10·minRTT** (§2.5): the time series' bin is set to 10·minRTT; the
  short-term fairness is Jain's index over the long-lived TCP flows present through each bin
  (seen at the bottleneck before and after it), averaged over the bins. Each such flow and
  bin is also a goodput sample (Mb/s): their per-flow series, their CDF and their p10, median
  and p90 over the run. The long-lived flows (bulk, or transfers back to back in one
  connection) also make Jain's index of goodputs.
* a flow counts in a loss event's share when it has been seen at the bottleneck before the
  event's start and after it (flows come and go in §8.2.5).
* **delay above minRTT** (§2.7): a flow's mean one-way delay less its one-way propagation delay.
* **web page completion time** (§2.1, "for web traffic, the whole page"): per page, from its
  request to its last object acknowledged (``app = "page"``, ``docs/models/page.md``); the mean
  over the pages completed in the run, all page flows pooled. The objects and the video's
  segments are left out of ``fct_s``, which is the other flows' transfers' mean.
* **adaptive video** (``app = "video"``, ``docs/models/video.md``): the mean of the chosen
  segment bitrates, the time spent rebuffering (the playout buffer dry after playback began)
  and the number of bitrate switches, over the whole run.
* **one-way delay per packet** (§2.6, for its CDF): measured by the simulator for every data
  packet reaching its receiver after the warm-up, from its sending to its arrival (every queue
  on the path, the first of two AQMs in a row (§10) included), into a quantile sketch per flow
  (``[output] owd_distribution``, the summary's ``flows[i].owd_distribution``:
  :func:`measured_delays`); each value within :data:`SKETCH_REL_ERR` of the true one. The
  data are those travelling toward the flow's destination: a web or page flow's responses,
  which cross the bottleneck under test (RFC 7928 §2.6); its requests, over the reverse path,
  are in a sketch of their own (``owd_distribution_reverse``), left out here, so that a
  flow's D(min) below is its responses' and not the reverse path's.
* **packet delay variation** (§2.6, RFC 5481 §4.2's PDV, D(i) − D(min)): per flow, each
  data packet's one-way delay less the least one-way delay of the flow's data packets after
  the warm-up (exact); ``pdv_p99_ms`` is its 99th percentile, averaged over flows. A PDV value
  is within :data:`SKETCH_REL_ERR` × its one-way delay (not × the PDV) of the true one.
* **CDFs** (§2.6): the bottleneck's queueing delay (every packet), one-way delay and PDV
  (every data packet, all flows pooled), and the goodput samples of every 10·minRTT (one per
  long-lived flow present through the bin): each run keeps 101 quantiles (p = 0, 0.01, ...,
  1); a discipline's CDF averages them over its seeds (each seed weighs the same).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from aqmlab.jain import index as jain_index
from aqmlab.sweepspec import _toml_loads

#: The bottleneck's forward direction, the one every template names so.
LINK = "bottleneck"
#: The first of two AQMs in a row (RFC 7928 §10), in the templates that have one.
FIRST_AQM = "aqm1"
#: Bytes of a packet with no payload (SYN, pure ACK): IPv4 + TCP headers.
HEADER_BYTES = 40
#: Quantiles of each distribution kept per run (at p = 0, 0.01, ..., 1) for the CDFs.
CDF_POINTS = 101
#: The simulator's quantile sketch (``aqmlab_link::sketch``): a bucket [lo, lo + w) with
#: w ≤ lo / 128 is reported by its midpoint, within w / 2 ≤ lo / 256 of every value in it (the
#: layout's bound its tests check; its ``REL_ERR``, 0.5 %, rounds it up).
SKETCH_REL_ERR = 1 / 256
#: The distributions of a run's ``reduced.json`` that ``characterization.json`` and the
#: report's CDFs give: name there → key here.
CDFS = {
    "queue_delay_ms": "sojourn_cdf_ms",
    "owd_ms": "owd_cdf_ms",
    "pdv_ms": "pdv_cdf_ms",
    "goodput_10rtt_mbps": "goodput_10rtt_cdf_mbps",
}


# --- loss events, synchronization, gaps ---------------------------------------------------------


def loss_events(times_s: Sequence[float], window_s: float) -> list[tuple[int, int]]:
    """Group loss times (sorted) into events: ``[(first index, end index)]``, each event the
    losses in ``[t0, t0 + window_s)`` from the first loss ``t0`` not in an earlier event."""
    events = []
    i, n = 0, len(times_s)
    while i < n:
        t0 = times_s[i]
        j = i
        while j < n and times_s[j] < t0 + window_s:
            j += 1
        events.append((i, j))
        i = j
    return events


def sync_ratio(
    drops: Sequence[tuple[float, int]],
    flows: Sequence[int],
    window_s: float,
    spans: dict[int, tuple[float, float]] | None = None,
) -> float | None:
    """The global loss-synchronization ratio (RFC 7928 §2.4): over the loss events of
    ``drops`` (``(time s, flow)``, only those of ``flows`` counted), the mean share of the
    flows that lose at least one packet in the event. With ``spans`` (``{flow: (first,
    last)}`` times it was seen), a flow counts in an event only when its span holds the
    event's start (flows that come and go, RFC 7928 §8.2.5). None without losses."""
    members = set(flows)
    if not members:
        return None
    ds = sorted((t, f) for t, f in drops if f in members)
    if not ds:
        return None
    times = [t for t, _ in ds]
    shares = []
    for a, b in loss_events(times, window_s):
        losing = {f for _, f in ds[a:b]}
        t0 = times[a]
        active = (
            {f for f in members if spans.get(f, (math.inf, -math.inf))[0] <= t0 <= spans[f][1]}
            if spans is not None
            else members
        )
        shares.append(len(losing) / len(active | losing))
    return math.fsum(shares) / len(shares)


def loss_gaps(drops: Sequence[tuple[float, int]]) -> tuple[list[float], list[float]]:
    """The intervals between consecutive losses (RFC 7928 §2.3), in seconds: over all flows,
    and within each flow (pooled)."""
    ds = sorted(drops)
    overall = [b[0] - a[0] for a, b in zip(ds, ds[1:])]
    per_flow: dict[int, list[float]] = {}
    for t, f in ds:
        per_flow.setdefault(f, []).append(t)
    within = [b - a for ts in per_flow.values() for a, b in zip(ts, ts[1:])]
    return overall, within


# --- the delay-goodput ellipse (RFC 7928 §2.7) --------------------------------------------------


def gaussian_fit(points: Sequence[tuple[float, float]]) -> tuple[list[float], list[list[float]]]:
    """The maximum-likelihood 2-D Gaussian of ``points``: mean and covariance (÷ n)."""
    n = len(points)
    if n == 0:
        raise ValueError("gaussian_fit: no points")
    mx = math.fsum(p[0] for p in points) / n
    my = math.fsum(p[1] for p in points) / n
    sxx = math.fsum((p[0] - mx) ** 2 for p in points) / n
    syy = math.fsum((p[1] - my) ** 2 for p in points) / n
    sxy = math.fsum((p[0] - mx) * (p[1] - my) for p in points) / n
    return [mx, my], [[sxx, sxy], [sxy, syy]]


def ellipse(
    mean: Sequence[float], cov: Sequence[Sequence[float]], eps: float = 0.05, n: int = 100
) -> list[tuple[float, float]]:
    """``n`` points of the 1−ε contour of the Gaussian (mean, cov): the points at squared
    Mahalanobis distance ``chi2.ppf(1 − ε, 2)``, inside which a fraction 1−ε of the mass lies."""
    import numpy as np
    from scipy.stats import chi2

    c = float(chi2.ppf(1.0 - eps, 2))
    vals, vecs = np.linalg.eigh(np.asarray(cov, dtype=float))
    vals = np.clip(vals, 0.0, None)
    theta = np.linspace(0.0, 2.0 * math.pi, n)
    unit = np.stack([np.cos(theta), np.sin(theta)])
    pts = vecs @ (np.sqrt(vals * c)[:, None] * unit) + np.asarray(mean, dtype=float)[:, None]
    return [(float(x), float(y)) for x, y in pts.T]


# --- one run ------------------------------------------------------------------------------------


def _seconds(text: str) -> float:
    from aqmlab.characterize.catalog import seconds

    return seconds(text, "resolved scenario")


def base_rtts(resolved: dict[str, Any]) -> list[float]:
    """Each flow's propagation round-trip time (s), from the resolved scenario's links: the
    forward delays along the path from ``from`` to ``to`` plus the reverse delays back."""
    adj: dict[str, list[tuple[str, float]]] = {}
    for link in resolved.get("links", []):
        fwd = _seconds(link["delay"])
        rev = _seconds(link.get("reverse", {}).get("delay", link["delay"]))
        adj.setdefault(link["from"], []).append((link["to"], fwd + rev))
        adj.setdefault(link["to"], []).append((link["from"], fwd + rev))
    out = []
    for flow in resolved.get("flows", []):
        # Breadth-first: the dumbbells here have one path per pair.
        seen, frontier = {flow["from"]: 0.0}, [flow["from"]]
        while frontier:
            nxt = []
            for node in frontier:
                for peer, d in adj.get(node, []):
                    if peer not in seen:
                        seen[peer] = seen[node] + d
                        nxt.append(peer)
            frontier = nxt
        out.append(seen.get(flow["to"], math.nan))
    return out


def _quantiles(values: Any, k: int) -> list[float]:
    import numpy as np

    if len(values) == 0:
        return []
    return [float(v) for v in np.quantile(values, np.linspace(0.0, 1.0, k))]


def queue_metrics(link: dict[str, Any]) -> dict[str, Any]:
    """A link direction's queue-level metrics from its summary counters (whole run): mean and
    99th-percentile sojourn, drop and mark ratios over enqueued packets, the largest backlog.
    The emulated runs read the forwarder's counters with the same function."""
    soj = link.get("sojourn_ms") or {}
    enq = link["enqueued_pkts"]
    return {
        "queue_delay_ms": soj.get("mean"),
        "queue_delay_p99_ms": soj.get("p99"),
        "loss_ratio": link["dropped_pkts"] / enq if enq else None,
        "mark_ratio": link["marked_pkts"] / enq if enq else None,
        "max_backlog_pkts": link["max_backlog_pkts"],
    }


def reduce_run(folder: str, point: dict[str, Any], sets: dict[str, Any]) -> dict[str, Any]:
    """The §2 metrics of one run (in the sweep's worker): ``{"metrics": {name: value},
    "points": [[delay above minRTT ms, goodput Mb/s] per flow], "sojourn_cdf_ms": [...]}``."""
    import numpy as np
    import pandas as pd

    from aqmlab.results import Run

    run = Run(folder)
    summary = run.summary
    resolved = _toml_loads(run.resolved_toml or "")
    warmup = _seconds(resolved["warmup"]) if "warmup" in resolved else 0.0
    bin_s = _seconds(resolved["bin"])
    rtts = base_rtts(resolved)
    min_rtt = min(r for r in rtts if r == r) if rtts else math.nan
    flows = summary["flows"]
    tcp = [f["id"] for f in flows if f["kind"] == "tcp"]
    # The long-lived (window-limited) TCP flows: bulk, or transfers written back to back into
    # one connection; the application-limited ones are left out of the fairness indices.
    greedy = [
        f["id"]
        for f, spec in zip(flows, resolved.get("flows", []))
        if f["kind"] == "tcp" and (f["app"] == "bulk" or spec.get("reuse") is True)
    ]
    link = summary["links"][LINK]
    m: dict[str, Any] = {}

    # Throughput and fairness (whole run after the warm-up, from the summary's window).
    win = summary.get("windows", {}).get("after_warmup")
    gp = [w["goodput_bps"] for w in win["flows"]] if win else [f["goodput_bps"] for f in flows]
    m["goodput_mbps"] = math.fsum(gp) / 1e6
    # Undefined (NaN: no greedy flow, or none delivered) is written as null.
    j = jain_index([gp[i] for i in greedy])
    m["jain_goodput"] = None if math.isnan(j) else j
    m["utilization"] = (
        (win or summary)["links"][LINK]["utilization"] if win else link["utilization"]
    )

    # Queue-level metrics (the bottleneck's own counters, whole run).
    m.update(queue_metrics(link))
    first = summary["links"].get(FIRST_AQM)
    if first is not None:  # §10: the same counters at the first AQM
        soj = first.get("sojourn_ms") or {}
        enq = first["enqueued_pkts"]
        m[f"queue_delay_ms[{FIRST_AQM}]"] = soj.get("mean")
        m[f"loss_ratio[{FIRST_AQM}]"] = first["dropped_pkts"] / enq if enq else None
        m[f"mark_ratio[{FIRST_AQM}]"] = first["marked_pkts"] / enq if enq else None
        m[f"utilization[{FIRST_AQM}]"] = first["utilization"]

    # End-to-end delay and jitter (data packets at their receivers). The one-way delay's mean is
    # over the packets its CDF counts (the measured distribution, after the warm-up, as every
    # windowed metric); a summary without it gives the receivers' whole-run mean. The jitter is
    # over the flows whose receivers see one direction (a web client's requests and its
    # responses would mix two paths in one RFC 3550 estimate).
    m["owd_ms"] = owd_mean(flows)
    jit = [f["jitter_ms"] for f in one_way_flows(flows) if f.get("jitter_ms") is not None]
    m["jitter_ms"] = math.fsum(jit) / len(jit) if jit else None
    media = ("page", "video")
    fct = [f["fct_s"] for f in flows if f.get("fct_s") is not None and f["app"] not in media]
    m["fct_s"] = math.fsum(fct) / len(fct) if fct else None
    m.update(page_video(flows))

    # Per-flow points of the delay-goodput graph, and per-name goodput.
    points = []
    for f, g in zip(flows, gp):
        owd = flow_owd_mean(f)
        if owd is not None and rtts[f["id"]] == rtts[f["id"]]:
            points.append([owd - 1e3 * rtts[f["id"]] / 2, g / 1e6])
    by_name: dict[str, list[float]] = {}
    for f, g in zip(flows, gp):
        if f.get("name"):
            by_name.setdefault(f["name"].rsplit("-", 1)[0], []).append(g)
    for name, vals in sorted(by_name.items()):
        m[f"goodput_mbps[{name}]"] = math.fsum(vals) / len(vals) / 1e6
    fct_by: dict[str, list[float]] = {}
    for f in flows:
        if f.get("name") and f.get("fct_s") is not None and f["app"] not in media:
            fct_by.setdefault(f["name"].rsplit("-", 1)[0], []).append(f["fct_s"])
    for name, vals in sorted(fct_by.items()):
        m[f"fct_s[{name}]"] = math.fsum(vals) / len(vals)

    # The packet log and the drops: losses, synchronization, startup, PDV, the delay CDF.
    cols = ["link", "t_ns", "sojourn_ns", "size", "flow"]
    pk = run.packets(cols).to_pandas()
    dr = run.drops(cols).to_pandas()
    pk, dr = pk[pk["link"] == LINK], dr[dr["link"] == LINK]
    t0 = int(warmup * 1e9)
    dw = dr[dr["t_ns"] >= t0]
    drops = list(zip((dw["t_ns"] / 1e9).tolist(), dw["flow"].tolist()))
    tcp_drops = [d for d in drops if d[1] in set(tcp)]
    seen = pd.concat([pk[["t_ns", "flow"]], dr[["t_ns", "flow"]]])
    agg = seen.groupby("flow")["t_ns"].agg(["min", "max"])
    spans = {int(f): (lo / 1e9, hi / 1e9) for f, lo, hi in agg.itertuples()}
    m["sync_ratio"] = sync_ratio(tcp_drops, tcp, min_rtt, spans) if tcp else None
    overall, within = loss_gaps(drops)
    m["loss_gap_ms"] = 1e3 * math.fsum(overall) / len(overall) if overall else None
    m["loss_gap_flow_ms"] = 1e3 * math.fsum(within) / len(within) if within else None
    starts = []
    for fid in tcp:
        a = pk[pk["flow"] == fid]
        b = dr[dr["flow"] == fid]
        arr = pd_min(a["t_ns"] - a["sojourn_ns"], b["t_ns"] - b["sojourn_ns"])
        data = a[a["size"] > HEADER_BYTES]["t_ns"]
        if arr is not None and len(data):
            starts.append((int(data.min()) - arr) / 1e9)
    m["startup_s"] = math.fsum(starts) / len(starts) if starts else None
    pw = pk[pk["t_ns"] >= t0]
    owd = measured_delays(flows)
    # RFC 5481 §4.2: each flow's delays less its least (exact; the first value is that least).
    pdv = {f: (v - v[0], c) for f, (v, c) in owd.items()}
    levels = np.arange(CDF_POINTS) / (CDF_POINTS - 1)
    p99 = [ranked_quantiles(v, c, [0.99])[0] for v, c in pdv.values() if c.sum() >= 2]
    m["pdv_p99_ms"] = math.fsum(p99) / len(p99) if p99 else None
    cdf = _quantiles(pw["sojourn_ns"].to_numpy() / 1e6, CDF_POINTS)
    m.update(_per_rate(resolved, pw, warmup))
    m.update(per_level(summary))

    # Goodput every 10·minRTT (the series' bin): Jain's index over the TCP flows, per bin.
    fl = run.arrow("flows").to_pandas()
    fl = fl[(fl["t_s"] >= warmup) & fl["flow"].isin(greedy)]
    short = []
    bins: list[float] = []
    per_flow: dict[int, dict[float, float]] = {}
    for t, g in fl.groupby("t_s"):
        # The flows seen at the bottleneck from before the bin to after it.
        live = [
            (int(f), b)
            for f, b in zip(g["flow"], g["delivered_bytes"])
            if spans.get(int(f), (math.inf, -math.inf))[0] <= t and spans[int(f)][1] >= t + bin_s
        ]
        short.append(jain_index([b for _, b in live]))
        bins.append(float(t))
        for f, b in live:
            per_flow.setdefault(f, {})[float(t)] = 8 * float(b) / bin_s / 1e6
    short = [j for j in short if not math.isnan(j)]  # a bin where it is undefined
    m["jain_10rtt"] = math.fsum(short) / len(short) if short else None
    samples = np.array([g for series in per_flow.values() for g in series.values()])
    for pct in (10, 50, 90):
        m[f"goodput_10rtt_p{pct}_mbps"] = (
            float(np.quantile(samples, pct / 100)) if len(samples) else None
        )
    m["min_rtt_ms"] = 1e3 * min_rtt
    return {
        "metrics": m,
        "points": points,
        "sojourn_cdf_ms": cdf,
        "owd_cdf_ms": ranked_quantiles(*_pooled(owd), levels),
        "pdv_cdf_ms": ranked_quantiles(*_pooled(pdv), levels),
        "goodput_10rtt_cdf_mbps": _quantiles(samples, CDF_POINTS),
        "goodput_10rtt": {
            "bin_s": bin_s,
            "t_s": bins,
            "flows": {str(f): [v.get(t) for t in bins] for f, v in sorted(per_flow.items())},
        },
    }


def one_way_flows(flows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The flows whose receiver statistics are one direction's: all but those with packets
    measured back toward their source (``owd_distribution_reverse``: a web or page client's
    requests), whose whole-run receiver statistics (``jitter_ms``, ``one_way_delay_ms``) mix
    the requests' path with the responses'. Without the measurement, every flow."""
    return [f for f in flows if not f.get("owd_distribution_reverse")]


def flow_owd_mean(f: dict[str, Any]) -> float | None:
    """A flow's mean one-way delay (ms) toward its destination: over the packets its measured
    distribution counts (``owd_distribution``: its data, a web flow's responses, after the
    warm-up), or, in a summary without it, its receiver's whole-run mean. None without
    packets."""
    d = f.get("owd_distribution")
    if d:
        return d["mean_ms"] if d.get("pkts") else None
    owd = f.get("one_way_delay_ms")
    return owd["mean"] if owd else None


def owd_mean(flows: list[dict[str, Any]]) -> float | None:
    """The mean one-way delay (ms) of the data packets of all flows: over the packets the
    measured distribution counts (``owd_distribution``, after the warm-up: exact count and
    mean), or, in a summary without it, the receivers' whole-run means weighted by their
    packets. None without packets."""
    dist = [f["owd_distribution"] for f in flows if f.get("owd_distribution")]
    if dist:
        n = sum(d["pkts"] for d in dist)
        return math.fsum(d["mean_ms"] * d["pkts"] for d in dist if d["pkts"]) / n if n else None
    recv = [f for f in flows if f.get("one_way_delay_ms")]
    n = sum(f["data_pkts_received"] for f in recv)
    return (
        math.fsum(f["one_way_delay_ms"]["mean"] * f["data_pkts_received"] for f in recv) / n
        if n
        else None
    )


def measured_delays(flows: list[dict[str, Any]]) -> dict[int, tuple[Any, Any]]:
    """Per flow, the one-way delays (ms) the simulator measured of its data packets after the
    warm-up, as ``(values, counts)`` ascending: the summary's ``owd_distribution`` buckets,
    each at its midpoint clamped to the exact least and greatest delay (as the simulator's own
    quantiles take them), except that the least and the greatest packet are given their exact
    delays (the first value is the flow's D(min)). Flows without packets are left out; a
    summary without the measurement (``[output] owd_distribution`` off) gives none."""
    import numpy as np

    out: dict[int, tuple[Any, Any]] = {}
    for f in flows:
        d = f.get("owd_distribution")
        if not d or not d["buckets_ns"]:
            continue
        b = np.array(d["buckets_ns"], dtype=np.float64)
        lo_ns, hi_ns = round(d["min_ms"] * 1e6), round(d["max_ms"] * 1e6)
        mid = np.clip(b[:, 0] + (b[:, 1] - b[:, 0]) / 2, lo_ns, hi_ns)
        counts = b[:, 2].astype(np.int64)
        # The least packet at its exact delay, then (with two or more) the greatest.
        counts[0] -= 1
        ends = [lo_ns]
        if counts.sum() > 0:
            counts[-1] -= 1
            ends.append(hi_ns)
        values = np.concatenate([[ends[0]], mid, ends[1:]]) / 1e6
        counts = np.concatenate([[1], counts, [1] * (len(ends) - 1)])
        keep = counts > 0
        out[int(f["id"])] = (values[keep], counts[keep])
    return out


def ranked_quantiles(values: Any, counts: Any, levels: Any) -> list[float]:
    """The ``levels``-quantiles of ``values`` each counted ``counts`` times, by the simulator's
    sketch's rule: the value of rank ``floor(q·(n−1))`` (the lowest rank 0). Empty when
    there are no values."""
    import numpy as np

    values, counts = np.asarray(values, dtype=np.float64), np.asarray(counts, dtype=np.int64)
    n = int(counts.sum()) if len(counts) else 0
    if n == 0:
        return []
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(counts[order])
    ranks = np.floor(np.asarray(levels, dtype=np.float64) * (n - 1)).astype(np.int64)
    return [float(v) for v in values[order][np.searchsorted(cum, ranks, side="right")]]


def _pooled(per_flow: dict[int, tuple[Any, Any]]) -> tuple[Any, Any]:
    """Every flow's ``(values, counts)`` as one."""
    import numpy as np

    if not per_flow:
        return np.array([]), np.array([], dtype=np.int64)
    vs, cs = zip(*per_flow.values())
    return np.concatenate(vs), np.concatenate(cs)


def _per_rate(resolved: dict[str, Any], pw: Any, warmup: float) -> dict[str, Any]:
    """With a rate schedule on the bottleneck (RFC 7928 §8.2.6): the queueing delay and the
    utilization while it runs at each of its rates, ``queue_delay_ms@100Mbps``,
    ``utilization@10Mbps`` (packets by the time they leave the discipline)."""
    import numpy as np

    from aqmlab.characterize.catalog import bps

    link = next((x for x in resolved.get("links", []) if x["name"] == LINK), None)
    if not link or "schedule" not in link:
        return {}
    starts = np.array([_seconds(t) for t, _ in link["schedule"]])
    labels = [r for _, r in link["schedule"]]
    rates = np.array([bps(r, "schedule") for r in labels])
    end = _seconds(resolved["duration"])
    edges = np.append(starts, end)
    t = pw["t_ns"].to_numpy() / 1e9
    idx = np.searchsorted(starts, t, side="right") - 1
    out: dict[str, Any] = {}
    for label in dict.fromkeys(labels):
        r = bps(label, "schedule")
        mask = rates[idx] == r
        # The time spent at this rate after the warm-up.
        span = sum(
            max(0.0, min(edges[i + 1], end) - max(edges[i], warmup))
            for i in range(len(starts))
            if rates[i] == r
        )
        out[f"queue_delay_ms@{label}"] = (
            float(pw["sojourn_ns"].to_numpy()[mask].mean()) / 1e6 if mask.any() else None
        )
        out[f"utilization@{label}"] = (
            float(pw["size"].to_numpy()[mask].sum()) * 8 / (r * span) if span > 0 else None
        )
    return out


def per_level(summary: dict[str, Any]) -> dict[str, Any]:
    """RFC 7928 §8.2.5: the bottleneck's queueing delay, loss ratio and utilization at each
    congestion level, over the measurement windows named after it (``mild0``, ``heavy1``...):
    ``queue_delay_ms@mild`` (weighted by the packets each window released), ``loss_ratio@mild``
    (drops ÷ arrivals), ``utilization@mild`` (the windows' mean, each the same length)."""
    import re

    acc: dict[str, dict[str, float]] = {}
    for name, w in summary.get("windows", {}).items():
        mt = re.fullmatch(r"(mild|medium|heavy)[0-9]+", name)
        if not mt or LINK not in w.get("links", {}):
            continue
        link = w["links"][LINK]
        a = acc.setdefault(mt.group(1), {"soj": 0.0, "rel": 0, "drop": 0, "enq": 0, "util": []})
        if link.get("sojourn_ms"):
            a["soj"] += link["sojourn_ms"]["mean"] * link["released_pkts"]
            a["rel"] += link["released_pkts"]
        a["drop"] += link["dropped_pkts"]
        a["enq"] += link["enqueued_pkts"]
        a["util"].append(link["utilization"])
    out: dict[str, Any] = {}
    for level, a in acc.items():
        out[f"queue_delay_ms@{level}"] = a["soj"] / a["rel"] if a["rel"] else None
        out[f"loss_ratio@{level}"] = a["drop"] / a["enq"] if a["enq"] else None
        out[f"utilization@{level}"] = math.fsum(a["util"]) / len(a["util"])
    return out


def page_video(flows: list[dict[str, Any]]) -> dict[str, Any]:
    """The web pages' and the adaptive video's metrics of a run's summary flows: the mean page
    completion time over every page completed (pooled over the page flows), the pages
    completed; the video flows' mean chosen bitrate (over their segments), rebuffering time and
    switches (summed over the video flows). Empty without such flows."""
    out: dict[str, Any] = {}
    pages = [f["pages"] for f in flows if f.get("pages")]
    if pages:
        done = [p for p in pages if p["completed"]]
        n = sum(p["completed"] for p in done)
        out["pages_completed"] = n
        out["page_time_s"] = (
            math.fsum(p["time_s"] * p["completed"] for p in done) / n if n else None
        )
    videos = [f["video"] for f in flows if f.get("video")]
    if videos:
        segs = sum(v["segments"] for v in videos)
        out["video_bitrate_mbps"] = (
            math.fsum(v["bitrate_mean_bps"] * v["segments"] for v in videos if v["segments"])
            / segs
            / 1e6
            if segs
            else None
        )
        out["video_rebuffer_s"] = math.fsum(v["rebuffer_s"] for v in videos)
        out["video_switches"] = sum(v["switches"] for v in videos)
    return out


def pd_min(*series: Any) -> int | None:
    vals = [int(s.min()) for s in series if len(s)]
    return min(vals) if vals else None
