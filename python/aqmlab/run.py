"""Run a scenario file (``aqmlab run``)."""

from __future__ import annotations

import json
import math
import numbers
import os
import sys
import time
from dataclasses import dataclass
from typing import Any

from aqmlab import _core

__all__ = ["RunResult", "TomlText", "load", "run", "simulate"]

#: Show the progress bar once a run has taken this many wall-clock seconds.
PROGRESS_AFTER_S = 1.0

#: The most time-series bins a run holds in memory before handing them to the output files.
MAX_STEP_BINS = 10_000


@dataclass
class RunResult:
    """A finished run: ``summary`` (the dict written to ``summary.json``) and two pandas
    DataFrames of time series, ``links`` (per link direction and bin: ingress/egress bytes, the
    largest backlog, drops, packets released and their mean sojourn) and ``flows`` (per flow and
    bin: delivered and cumulative bytes, the mean smoothed RTT);
    ``packets`` is the per-packet log when one was asked for. docs/data-format.md lists every
    column. The DataFrames are None for a
    run made with ``keep=False`` (its series are in the output files only)."""

    summary: dict[str, Any]
    links: Any
    flows: Any
    packets: Any = None


def _progress(frac: float, sim_s: float, total_s: float, wall_s: float) -> None:
    width = 30
    done = int(frac * width)
    bar = "#" * done + "." * (width - done)
    sys.stderr.write(f"\r[{bar}] {sim_s:8.1f}/{total_s:.1f} s simulated, {wall_s:6.1f} s wall")
    sys.stderr.flush()


def load(
    scenario: str | os.PathLike[str],
    *,
    seed: int | None = None,
    qdisc: dict[str, str] | None = None,
    set: dict[str, Any] | None = None,  # noqa: A002 - mirrors the --set flag
    packet_log: list[str] | None = None,
) -> Any:
    """Read and check ``scenario`` with its overrides (as :func:`run` takes them), without
    simulating: the native run, ready to advance. Raises :class:`aqmlab.ScenarioError`."""
    if not isinstance(scenario, (str, os.PathLike)):
        raise TypeError(f"scenario: expected a path or TOML text, got {type(scenario).__name__}")
    sets = [(k, _toml_value(v)) for k, v in (set or {}).items()]
    # TOML text rather than a path: it has a newline, or an "=" and names no file. Errors then
    # name it "<string>".
    text = scenario if isinstance(scenario, str) and _is_toml_text(scenario) else None
    path = "<string>" if text is not None else os.fspath(scenario)
    return _core.load_scenario(
        path, seed, list((qdisc or {}).items()), sets, list(packet_log or []), text
    )


def run(
    scenario: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    seed: int | None = None,
    qdisc: dict[str, str] | None = None,
    set: dict[str, Any] | None = None,  # noqa: A002 - mirrors the --set flag
    csv: bool = False,
    progress: bool | None = None,
    packet_log: list[str] | None = None,
    keep: bool = True,
) -> RunResult:
    """Run the scenario ``scenario``: a path to a TOML file, or the TOML text itself.

    ``seed`` overrides the file's seed; ``qdisc`` swaps disciplines by link name
    (``{"bottleneck": "droptail"}``, keeping the buffer); ``set`` overrides any key by its path
    (``{"dumbbell.bottleneck.rate": "20Mbps", "flows[0].delayed_ack": False}``; a
    :class:`TomlText` value is read as the command line reads it). With ``out``, writes
    ``summary.json`` and the series (``links.parquet``, ``flows.parquet``, or ``.csv`` with
    ``csv=True`` or the scenario's ``[output] format = "csv"``) there.
    ``progress`` shows a bar on stderr for runs longer than a second (default: when stderr is
    a terminal). ``packet_log`` names link directions whose every packet is recorded, beside
    those of the scenario's ``[output] packet_log``
    (``packets`` DataFrame and file: link, t_ns, sojourn_ns, size, flow). The series are
    written to ``out`` as the run goes, so the simulator's memory stays flat however long it
    runs; ``keep=False`` also leaves them out of the returned DataFrames (``aqmlab run`` does
    this), for runs whose series would not fit in memory. Raises
    :class:`aqmlab.ScenarioError` on bad input, before simulating.
    """
    r = load(scenario, seed=seed, qdisc=qdisc, set=set, packet_log=packet_log)
    return simulate(r, out, csv=csv, progress=progress, keep=keep)


def simulate(
    r: Any,
    out: str | os.PathLike[str] | None = None,
    *,
    csv: bool = False,
    progress: bool | None = None,
    keep: bool = True,
) -> RunResult:
    """Run ``r``, a scenario :func:`load` read, to its end: :func:`run` after the loading."""
    from aqmlab.series import SeriesSink

    show = sys.stderr.isatty() if progress is None else progress
    total = r.duration_s
    # Each step's bins are handed to the sink as the run goes: at most MAX_STEP_BINS of them
    # are ever held in memory, however long the run.
    steps = max(200, math.ceil(total / r.bin_s / MAX_STEP_BINS))
    sink = SeriesSink(
        ["links", "flows", "packets"] if r.logs_packets else ["links", "flows"],
        None if out is None else os.fspath(out),
        csv or r.csv,
        keep,
    )
    t0 = time.monotonic()
    shown = False
    try:
        for k in range(1, steps + 1):
            r.advance(total * k / steps)
            sink.add(r.take_series())
            wall = time.monotonic() - t0
            if show and (shown or wall > PROGRESS_AFTER_S):
                shown = True
                _progress(k / steps, r.now_s, total, wall)
        summary = json.loads(r.summary_json())
        sink.add(r.take_series(to_end=True))
    except BaseException:
        sink.abort()  # Ctrl-C or a failed write: leave no half-written files behind
        raise
    finally:
        if shown:
            sys.stderr.write("\n")
    tables = sink.close()
    if out is not None:
        with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=2)
            f.write("\n")
    links, flows, packets = tables["links"], tables["flows"], tables.get("packets")
    return RunResult(summary, links, flows, packets)


def _is_toml_text(s: str) -> bool:
    # A path may hold "=" (runs/rate=10M.toml); TOML text on one line names no .toml file.
    return "\n" in s or ("=" in s and not s.endswith(".toml") and not os.path.exists(s))


class TomlText(str):
    """A ``set`` value as typed after ``--set KEY=``: read as TOML when it is a TOML value
    (``10``, ``1.5``, ``true``, ``"x"``, ``["0s", "1Mbps"]``), otherwise as a string
    (``10Mbps``). A plain ``str`` is always a string."""


def _toml_value(v: Any) -> str:
    """A Python value as a TOML literal, so ``set={"name": "123"}`` stays a string."""
    if isinstance(v, TomlText):
        return str(v)
    if isinstance(v, bool) or type(v).__name__ == "bool_":  # numpy.bool_ too
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    # A JSON string is a valid TOML basic string (non-ASCII kept as is: TOML has no surrogates).
    return json.dumps(str(v), ensure_ascii=False)
