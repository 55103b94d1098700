"""A mode's parameter computed from the others: ``duration_s = { expr = "..." }`` in
``[full]`` or ``[quick]`` (docs/reproductions.md, "Options"), an expression as
"Metrics as data" reads them, of the mode's parameters (after the command line's options set
theirs, before anything runs), with one more function, ``trace_period_s(path)``: a
mahimahi trace's period in s (:mod:`aqmlab.reproduce.mahimahi`). cellular's full run lasts its
trace's period, 60-300 s: ``min(300.0, max(60.0, trace_period_s(trace)))``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce import metrics

GRAMMAR = replace(
    metrics._GRAMMAR,
    calls={**metrics._GRAMMAR.calls, "trace_period_s": 1},
    calls_error="only abs(), div(), min(), max(), number(), split() and trace_period_s() may "
    "be called",
)


def _expr(v: Any) -> str | None:
    return v["expr"] if isinstance(v, dict) and list(v) == ["expr"] else None


def check(path: str, mode: str, params: dict[str, Any]) -> None:
    """Each ``{ expr }`` parameter of the mode compiles (errors name the file and the key)."""
    for k, v in params.items():
        text = _expr(v)
        if text is not None:
            if not isinstance(text, str):
                raise AqmlabError(f"{path}: {mode}.{k}.expr: expected a text, got {text!r}")
            metrics.compile_expr(text, f"{path}: {mode}.{k}.expr", GRAMMAR)


def compute(params: dict[str, Any], where: str) -> None:
    """Each ``{ expr }`` parameter replaced by its value, in order (an expression may name
    those above it)."""
    for k, v in params.items():
        text = _expr(v)
        if text is None:
            continue
        e = metrics.compile_expr(text, f"{where}.{k}.expr", GRAMMAR)
        missing = [c for c in e.columns() if c not in params]
        if missing:
            raise AqmlabError(f"{where}.{k}.expr: no parameter {missing[0]!r}")
        params[k] = metrics._eval(e.tree, params, e.names)
