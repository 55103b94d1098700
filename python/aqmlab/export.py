"""``aqmlab export --flent``: a run's series as a flent data file (``.flent.gz``).

flent stores a test as gzipped JSON (its data format version 4): ``metadata`` (the test's name,
its parameters, times), ``x_values`` (seconds from the start), ``results`` (one list per series,
aligned with ``x_values``, ``null`` where a series has no value) and ``raw_values`` (per series,
the samples as ``{"t": absolute time, "val": value}``: what flent's plots draw). flent
draws a file with the plots of the test its ``NAME`` names; aqmlab writes its runs as flent's
``tcp_nup`` test ("TCP upload - N streams w/ping"), whose plots are throughput per stream,
their sum, average and fairness, and latency:

* ``TCP upload::i``: the i-th TCP flow's goodput per bin (Mbit/s), from ``flows``;
* ``TCP upload sum`` / ``avg`` / ``fairness``: their sum, mean and Jain's index per bin
  (:func:`aqmlab.jain.index`; ``null`` in a bin where every flow delivered nothing: 0/0);
* ``Ping (ms) ICMP``: the mean smoothed RTT of the TCP flows in the bin (ms) — aqmlab has no
  ping; under load, the sRTT is the latency a ping through the same queue would see.

``flent -i FILE.flent.gz -p totals`` (or ``flent-gui FILE.flent.gz``) then shows the aqmlab run
as it shows a testbed run.
"""

from __future__ import annotations

import gzip
import json
import math
import os
from typing import Any

from aqmlab import __version__
from aqmlab.exceptions import AqmlabError
from aqmlab.jain import index as jain_index

FLENT_FORMAT = 4
#: flent's dates are ISO 8601; a simulated run has no wall-clock start, so the epoch stands in.
EPOCH = "1970-01-01T00:00:00.000000Z"


def flent_data(folder: str) -> dict[str, Any]:
    """The flent data structure of the run in ``folder``."""
    from aqmlab.results import Run

    run = Run(folder)
    summary = run.summary
    flows = run.table("flows")
    if flows is None:
        raise AqmlabError(f"{folder}: no flows.parquet or flows.csv: the run kept no series")
    bin_s = float(summary["bin_s"])
    tcp = [f["id"] for f in summary["flows"] if f["kind"] == "tcp"]
    if not tcp:
        raise AqmlabError(f"{folder}: the run has no TCP flow to export as flent's tcp_nup")
    if "flow_series" in summary:
        # Only the flows that keep a time series (`[output] flow_series`) have rows.
        kept = set(summary["flow_series"])
        tcp = [f for f in tcp if f in kept]
        if not tcp:
            raise AqmlabError(
                f"{folder}: no TCP flow kept a time series (summary.json's flow_series; "
                '[output] flow_series = "all" or a list of flows keeps them)'
            )
    times = sorted(set(flows["t_s"].tolist()))
    index = {t: i for i, t in enumerate(times)}
    n = len(times)
    results: dict[str, list[Any]] = {}
    srtt_sum, srtt_n = [0.0] * n, [0] * n
    for k, fid in enumerate(tcp):
        series: list[Any] = [None] * n
        for row in flows[flows["flow"] == fid].itertuples():
            i = index[row.t_s]
            series[i] = row.delivered_bytes * 8 / bin_s / 1e6
            if not math.isnan(row.srtt_ms):
                srtt_sum[i] += row.srtt_ms
                srtt_n[i] += 1
        results[f"TCP upload::{k + 1}"] = series
    per_bin = list(zip(*(results[f"TCP upload::{k + 1}"] for k in range(len(tcp)))))
    results["TCP upload sum"] = [_agg(v, sum) for v in per_bin]
    results["TCP upload avg"] = [_agg(v, lambda xs: sum(xs) / len(xs)) for v in per_bin]
    results["TCP upload fairness"] = [_agg(v, _fairness) for v in per_bin]
    results["Ping (ms) ICMP"] = [s / c if c else None for s, c in zip(srtt_sum, srtt_n)]
    length = float(summary["sim_time_s"])
    metadata = {
        "NAME": "tcp_nup",
        "TITLE": f"aqmlab {summary.get('scenario', '')} seed {summary.get('seed')}",
        "SCENARIO": summary.get("scenario"),
        "NOTE": f"simulated by aqmlab {__version__}; 'Ping (ms) ICMP' is the TCP flows' mean "
        "smoothed RTT per bin",
        "TIME": EPOCH,
        "T0": EPOCH,
        "LENGTH": length,
        "TOTAL_LENGTH": length,
        "STEP_SIZE": bin_s,
        "DELAY": 0,
        "HOST": "aqmlab",
        "HOSTS": ["aqmlab"],
        "LOCAL_HOST": "aqmlab",
        "IP_VERSION": 4,
        "TEST_PARAMETERS": {"upload_streams": str(len(tcp))},
        "FLENT_VERSION": "aqmlab-export",
        "DATA_FILENAME": None,
    }
    units = {
        name: ("ms" if name.startswith("Ping") else "Idx" if "fairness" in name else "Mbits/s")
        for name in results
    }
    metadata["SERIES_META"] = {name: {"UNITS": u} for name, u in units.items()}
    # The epoch is T0, so a sample's absolute time is its offset.
    raw = {
        name: [{"t": t, "val": v} for t, v in zip(times, vals) if v is not None]
        for name, vals in results.items()
    }
    return {
        "metadata": metadata,
        "version": FLENT_FORMAT,
        "x_values": times,
        "results": results,
        "raw_values": raw,
    }


def _agg(values: tuple, fn: Any) -> Any:
    xs = [v for v in values if v is not None]
    return fn(xs) if xs else None


def _fairness(xs: list[float]) -> float | None:
    """Jain's index of a bin's goodputs; null where it is undefined (every flow at 0)."""
    j = jain_index(xs)
    return None if math.isnan(j) else j


def export_flent(folder: str, out: str | None = None) -> str:
    """Write ``folder``'s run as ``<scenario>.flent.gz`` (or ``out``); return the path."""
    data = flent_data(folder)
    out = out or os.path.join(folder, f"{data['metadata']['SCENARIO'] or 'run'}.flent.gz")
    if not out.endswith(".flent.gz"):
        raise AqmlabError(f"--out {out}: flent data files end in .flent.gz")
    data["metadata"]["DATA_FILENAME"] = os.path.basename(out)
    tmp = out + ".partial"
    # mtime=0: the same run gives the same bytes.
    with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        f.write(json.dumps(data, indent=2, sort_keys=True).encode())
    os.replace(tmp, out)
    return out
