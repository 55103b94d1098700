"""A run's ``summary.json`` as one flat row of named metrics: the columns of a sweep's
``results`` table (``docs/data-format.md``, "Sweeps", lists the naming rules).

* a link direction's values: ``<link>.<key>``, nested keys joined by dots
  (``bottleneck.sojourn_ms.p50``, ``bottleneck.drops_by_reason.overlimit``);
* a flow's values: ``flows[<i>].<key>`` (``flows[0].goodput_bps``, ``flows[2].srtt_ms.p99``),
  indexed as ``--set flows[i]`` indexes them; in a measurement window,
  ``windows.<name>.flows[<i>].<key>`` (``windows.after_warmup.flows[0].goodput_bps``);
* run-wide values: ``fairness.jain_goodput``, ``fairness.jain_drops``, ``events``,
  ``sim_time_s``, and the totals over flows ``total.goodput_bps``, ``total.delivered_bytes``,
  ``total.dropped_pkts``, ``total.retransmits``, ``total.timeouts``.

``wall_s`` is left out on purpose: it is the one value that differs between identical runs, and
a sweep's tables must be identical wherever and however often it runs.
"""

from __future__ import annotations

from typing import Any

#: Summary keys that are not metrics (descriptions of the run, or wall-clock time).
_SKIP_TOP = {
    "format_version", "scenario", "seed", "wall_s", "bin_s", "links", "flows", "fairness",
    # How the run was made (paths, the command line, the version): not a result.
    "provenance",
}  # fmt: skip
#: A flow's descriptive fields (strings or ids), left out of the metrics.
_SKIP_FLOW = {"id", "name", "kind", "cc", "app", "src", "dst"}
#: Flow counters summed into ``total.<key>``.
TOTALS = ("goodput_bps", "delivered_bytes", "dropped_pkts", "retransmits", "timeouts")
#: Nested count tables whose missing keys mean zero (a reason that never happened).
_ZERO_FILL = ("drops_by_reason", "marks_by_reason")


def _walk(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for k in sorted(value):
            _walk(f"{prefix}.{k}", value[k], out)
    elif isinstance(value, bool):
        out[prefix] = int(value)
    elif value is None or isinstance(value, (int, float, str)):
        out[prefix] = value
    # lists and other shapes are not metrics


def not_a_summary(doc: dict[str, Any]) -> str | None:
    """What keeps the JSON object ``doc`` from being a run's summary as :func:`flatten` reads
    it (None: nothing): a table of links, a list of flows, and the optional tables
    (``fairness``, ``windows``) as tables."""
    links = doc.get("links")
    if not isinstance(links, dict) or not links:
        return "has no table of links"
    if not all(isinstance(v, dict) for v in links.values()):
        return "has a link that is not a table"
    flows = doc.get("flows")
    if not isinstance(flows, list) or not all(isinstance(f, dict) for f in flows):
        return "has no list of flows"
    for k in ("fairness", "windows"):
        if not isinstance(doc.get(k, {}), dict):
            return f"has a {k} that is not a table"
    for w in doc.get("windows", {}).values():
        if not isinstance(w, dict) or not isinstance(w.get("flows", []), list):
            return "has a window that is not a table with a list of flows"
        if not all(isinstance(f, dict) for f in w.get("flows", [])):
            return "has a window's flow that is not a table"
    return None


def flatten(summary: dict[str, Any]) -> dict[str, Any]:
    """The metrics of one run's summary, as ``{column: value}`` (numbers, None, and a link's
    ``qdisc`` name)."""
    out: dict[str, Any] = {}
    for k in sorted(summary):
        if k not in _SKIP_TOP:
            _walk(k, summary[k], out)
    for wname, window in sorted(summary.get("windows", {}).items()):
        # A window's flows, as the run's: ``windows.<name>.flows[<i>].<key>``.
        for i, flow in enumerate(window.get("flows", [])):
            for k in sorted(flow):
                if k not in _SKIP_FLOW:
                    _walk(f"windows.{wname}.flows[{i}].{k}", flow[k], out)
    for k, v in sorted(summary.get("fairness", {}).items()):
        _walk(f"fairness.{k}", v, out)
    for name, link in summary.get("links", {}).items():
        _walk(name, link, out)
    flows = summary.get("flows", [])
    for i, flow in enumerate(flows):
        for k in sorted(flow):
            if k not in _SKIP_FLOW:
                _walk(f"flows[{i}].{k}", flow[k], out)
    for k in TOTALS:
        vals = [f.get(k) for f in flows if isinstance(f.get(k), (int, float))]
        out[f"total.{k}"] = sum(vals) if vals else None
    return out


def is_zero_filled(column: str) -> bool:
    """Whether a missing value in ``column`` means 0 (a drop or mark reason that never
    happened in that run) rather than "not measured"."""
    return any(f".{t}." in column for t in _ZERO_FILL)
