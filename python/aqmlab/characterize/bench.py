"""RFC 7928 §11's per-packet cost as measured, never as stated: criterion's figures from
``make bench`` (``crates/aqmlab-qdisc/benches/qdisc.rs``), each with where it comes from.

:func:`read` reads, for every case of the bench, criterion's
``DIR/enqueue_dequeue_pair/<case>/new/estimates.json`` (its estimates of the time of one
iteration, one enqueue and one dequeue at steady state, in nanoseconds; the report uses the one
criterion prints, the slope, or the mean when there is none) and the bench's
``DIR/enqueue_dequeue_pair/<case>/aqmlab.json`` beside it (the discipline and parameters, the
commit and whether the tree was modified, the host, CPU, load average and time of the
measurement). A case without ``aqmlab.json`` (measured by a bench that did not record it) is
listed as such and its figure is not used: a figure whose provenance is unknown is not reported.
"""

from __future__ import annotations

import datetime
import json
import os
from typing import Any

from aqmlab.exceptions import AqmlabError

#: criterion's benchmark group in ``benches/qdisc.rs``.
GROUP = "enqueue_dequeue_pair"


def _json(path: str, folder: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise AqmlabError(f"--bench {folder}: cannot read {path}: {e}") from None
    if not isinstance(doc, dict):
        raise AqmlabError(f"--bench {folder}: {path} is not a JSON object")
    return doc


def read(folder: str) -> dict[str, Any]:
    """The measured cases in criterion's output folder ``folder`` (``target/criterion``; the
    ``target`` folder above it is accepted too): ``{folder, cases: [...], without_provenance:
    [case names]}``, each case with ``kind`` (the discipline), ``ns`` (criterion's typical time
    per enqueue+dequeue pair, the figure it prints: ``estimator`` says slope or mean), ``ci``
    and ``confidence_level``, and its provenance."""
    base = folder
    if not os.path.isdir(os.path.join(base, GROUP)) and os.path.isdir(
        os.path.join(base, "criterion", GROUP)
    ):
        base = os.path.join(base, "criterion")
    group = os.path.join(base, GROUP)
    if not os.path.isdir(group):
        raise AqmlabError(
            f"--bench {folder}: no criterion results ({GROUP}/<case>/new/estimates.json): "
            "run `make bench`, which writes them to target/criterion"
        )
    cases: list[dict[str, Any]] = []
    without: list[str] = []
    for name in sorted(os.listdir(group)):
        est_path = os.path.join(group, name, "new", "estimates.json")
        prov_path = os.path.join(group, name, "aqmlab.json")
        if not os.path.isfile(est_path):
            continue
        if not os.path.isfile(prov_path):
            without.append(name)
            continue
        est = _json(est_path, folder)
        prov = _json(prov_path, folder)
        # criterion's typical estimate, the one it prints: the slope of time over iterations
        # when it sampled linearly, else the mean.
        estimator = "slope" if est.get("slope") else "mean"
        try:
            typical = est[estimator]
            ci = typical["confidence_interval"]
            ns = float(typical["point_estimate"])
            lo, hi = float(ci["lower_bound"]), float(ci["upper_bound"])
            level = float(ci["confidence_level"])
            kind = str(prov["kind"])
            when = datetime.datetime.fromtimestamp(int(prov["unix_time"]), datetime.timezone.utc)
        except (KeyError, TypeError, ValueError) as e:
            raise AqmlabError(
                f"--bench {folder}: case {name}: missing or bad field {e} in its estimates.json "
                "or aqmlab.json"
            ) from None
        cases.append(
            {
                "case": name,
                "kind": kind,
                "params": list(prov.get("params", [])),
                "backlog_packets": prov.get("backlog_packets"),
                "flows": prov.get("flows"),
                "measures": prov.get("measures", ""),
                "ns": ns,
                "estimator": estimator,
                "ci": [lo, hi],
                "confidence_level": level,
                "commit": prov.get("commit") or "unknown",
                "modified": prov.get("modified"),
                "host": prov.get("host", ""),
                "cpu": prov.get("cpu", ""),
                "cpus": prov.get("cpus"),
                "loadavg": prov.get("loadavg", ""),
                "date": when.strftime("%Y-%m-%d %H:%M:%S UTC"),
            }
        )
    if not cases and not without:
        raise AqmlabError(
            f"--bench {folder}: no case has criterion's new/estimates.json: run `make bench`"
        )
    return {"folder": os.path.abspath(base), "cases": cases, "without_provenance": without}


def describe(case: dict[str, Any]) -> str:
    """One line: the figure, what was measured, and where it comes from."""
    lo, hi = case["ci"]
    setup = ", ".join(case["params"]) or "defaults"
    commit = case["commit"][:12] + (
        " (with uncommitted changes)"
        if case["modified"]
        else ""
        if case["modified"] is False
        else " (tree state unknown)"
    )
    machine = case["host"] or "unknown host"
    if case["cpu"]:
        machine += f", {case['cpu']}"
    if case["cpus"]:
        machine += f", {case['cpus']} CPUs"
    if case["loadavg"]:
        machine += f", load average {' '.join(case['loadavg'].split()[:3])} after the run"
    return (
        f"{case['ns']:.1f} ns per enqueue+dequeue pair (criterion's {case['estimator']}, "
        f"{case['confidence_level']:.0%} interval [{lo:.1f}, {hi:.1f}]), case {case['case']}: "
        f"{setup}, {case['backlog_packets']} packets queued, {case['flows']} flow(s); "
        f"commit {commit}; {machine}; {case['date']}"
    )
