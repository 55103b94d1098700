"""Drive one queue discipline from an arrival/service schedule (``aqmlab replay``)."""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass
from typing import Any

from aqmlab import _core

__all__ = ["ReplayResult", "list_qdiscs", "replay"]


@dataclass(frozen=True)
class ReplayResult:
    """What a replay produced.

    ``decisions_csv`` has one row per packet (``id,enq_t_ns,outcome,deq_t_ns``); ``summary`` counts
    each outcome; ``trace_csv`` (``t_ns,var,value``) lists the discipline's state changes when
    tracing was asked for.
    """

    decisions_csv: str
    summary: dict[str, Any]
    trace_csv: str | None = None

    def decisions(self) -> list[dict[str, Any]]:
        """The decisions as a list of dicts with integer times."""
        rows = csv.DictReader(io.StringIO(self.decisions_csv))
        return [
            {
                "id": int(r["id"]),
                "enq_t_ns": int(r["enq_t_ns"]),
                "outcome": r["outcome"],
                "deq_t_ns": int(r["deq_t_ns"]),
            }
            for r in rows
        ]

    def sojourns_ns(self) -> list[int]:
        """Sojourn time of every delivered (or marked) packet, in id order."""
        return [
            d["deq_t_ns"] - d["enq_t_ns"]
            for d in self.decisions()
            if d["outcome"] in ("delivered", "marked")
        ]

    def to_pandas(self):
        """The decisions as a pandas DataFrame."""
        import pandas as pd

        return pd.read_csv(io.StringIO(self.decisions_csv))


def list_qdiscs() -> list[dict[str, Any]]:
    """Every discipline with its parameters (defaults, ranges, help, and whether each is fixed,
    derived or adapted, and from what: RFC 7928 §12) and its implementation cost (``facts``:
    state, per flow, per packet, timers, spec: RFC 7928 §11)."""
    return _core.list_qdiscs()


def replay(
    schedule: str | os.PathLike[str],
    qdisc: str,
    params: dict[str, Any] | list[str] | None = None,
    *,
    uniforms: str | os.PathLike[str] | None = None,
    seed: int = 1,
    trace: bool = False,
) -> ReplayResult:
    """Replay ``schedule`` (a CSV file ``t_ns,op,size[,flow][,ecn]``) through ``qdisc``.

    ``params`` maps parameter names to values written as on the command line
    (``{"target": "5ms", "limit": "1000p"}``) or is a list of ``"NAME=VALUE"`` strings.
    ``uniforms`` is a file of U(0,1) draws (one per line) used instead of the seeded generator.
    Raises :class:`aqmlab.exceptions.ParameterError`, :class:`~aqmlab.exceptions.ScheduleError`
    or :class:`~aqmlab.exceptions.ReplayError` with a one-line message on bad input.
    """
    from aqmlab.run import check_seed

    check_seed(seed)
    if params is None:
        items: list[str] = []
    elif isinstance(params, dict):
        items = [f"{k}={_fmt(v)}" for k, v in params.items()]
    else:
        items = list(params)
    out = _core.replay(
        qdisc,
        os.fspath(schedule),
        items,
        None if uniforms is None else os.fspath(uniforms),
        seed,
        trace,
    )
    return ReplayResult(out["decisions_csv"], dict(out["summary"]), out["trace_csv"])


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
