"""Run a scenario file (``aqmlab run``).

The path of a ``set`` value of the API (``aqmlab.run(S, set={"dumbbell.bottleneck.params.target":
"5ms"})``) to CoDel's typed ``target``, counted as ``crates/aqmlab-sim/src/scenario/
disc_params.rs`` counts ``aqmlab run --set``'s: 12 functions (15 before issue 20 cut
``_native_args``, ``resolve_expanded`` and ``disc_params``):

1. `run.py` `run`: the dict, to
2. `run.py` `load`, which has each value written once as the text the native loader reads
   by
3. `run.py` `_toml_value` (a ``TomlText`` as typed, any other value as its TOML literal),
   and gives it with its key to
4. `lib.rs` `load_scenario`, then on as in ``disc_params.rs``'s list from its 3rd function
   (``resolve_with_edits``) to its 10th (``codel_params_from``).

``crates/aqmlab-sim/tests/set_path.rs`` pins the list.
"""

from __future__ import annotations

import contextlib
import json
import math
import numbers
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aqmlab import _core, scenarios

__all__ = [
    "RunResult",
    "TomlText",
    "load",
    "provenance_base",
    "provenance_of",
    "run",
    "simulate",
]

#: Show the progress bar once a run has taken this many wall-clock seconds.
PROGRESS_AFTER_S = 1.0

#: The most time-series bins a run holds in memory before handing them to the output files.
MAX_STEP_BINS = 10_000

#: The most rows of the flows table (one per flow and bin) a step hands over, but for one bin
#: of more flows than that: a run of many flows takes its series a bin or a few at a time.
MAX_STEP_ROWS = 65_536

#: Per thread, a callable that raises to stop the run going on in that thread: signal handlers
#: run only in the main thread, so a sweep stops its runs in other threads through this
#: (:func:`stopped_by`). The simulator calls it every 0.2 s of wall time.
_STOP_CHECK = threading.local()


@contextlib.contextmanager
def stopped_by(check: Any) -> Any:
    """Runs made in this thread inside the ``with`` call ``check()`` every 0.2 s of wall time;
    an exception it raises stops the run (its files are cleaned up, as after Ctrl-C)."""
    _STOP_CHECK.fn = check
    try:
        yield
    finally:
        _STOP_CHECK.fn = None


#: Wall seconds one step of the simulation aims at, for a lively progress bar and output files
#: that grow as the run goes. (A signal does not wait for a step's end: a step looks at pending
#: signals every 0.2 s of wall time, so Ctrl-C, SIGTERM and SIGHUP stop any run within a second.)
STEP_WALL_S = 0.1


@dataclass
class RunResult:
    """A finished run: ``summary`` (the dict written to ``summary.json``) and two pandas
    DataFrames of time series, ``links`` (per link direction and bin: ingress/egress bytes, the
    largest backlog, drops, packets released and their mean sojourn) and ``flows`` (per flow and
    bin: delivered and cumulative bytes, the mean smoothed RTT);
    ``packets`` is the per-packet log when one was asked for, and ``drops`` its drops (with
    their reason and flow); ``states`` the traced disciplines' state changes (``[output] trace``:
    link, t_ns, var, value); ``flow_states`` the sampled sender state of the flows
    ``trace_flows`` names (flow, t_ns, var, value). docs/data-format.md lists every column. The
    DataFrames are None for a run made with ``keep=False`` (its series are in the output files
    only); such a run's ``summary``, made into a folder, is read from its ``summary.json`` when
    first asked for."""

    summary: dict[str, Any]
    links: Any
    flows: Any
    packets: Any = None
    drops: Any = None
    states: Any = None
    flow_states: Any = None


class SummaryFile:
    """A run's ``summary.json``, which :class:`RunResult` reads into its ``summary`` dict only
    when that is first asked for: a run of many flows that only writes its files never holds
    the summary as Python objects (about 1.6 kB a flow; issue 24). Its bytes (``data``), or,
    for a run made with ``keep=False`` into a folder, the file's path (``path``): the text was
    written straight into the file, never held (about 1.2 kB a flow)."""

    __slots__ = ("data", "path")

    def __init__(self, data: bytes | None = None, path: str | None = None) -> None:
        self.data = data
        self.path = path

    def read(self) -> bytes:
        """The bytes of ``summary.json``."""
        if self.data is not None:
            return self.data
        assert self.path is not None
        with open(self.path, "rb") as f:
            return f.read()


class _LazySummary:
    """``RunResult.summary``: a dict, read from a :class:`SummaryFile` on first use."""

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        v = obj.__dict__["summary"]
        if isinstance(v, SummaryFile):
            v = obj.__dict__["summary"] = json.loads(v.read())
        return v

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__["summary"] = value


# After @dataclass made __init__ (which sets self.summary, through this descriptor).
RunResult.summary = _LazySummary()  # type: ignore[assignment]


def _progress(frac: float, sim_s: float, total_s: float, wall_s: float) -> None:
    width = 30
    done = int(frac * width)
    bar = "#" * done + "." * (width - done)
    sys.stderr.write(f"\r[{bar}] {sim_s:8.1f}/{total_s:.1f} s simulated, {wall_s:6.1f} s wall")
    sys.stderr.flush()


def _check_args(
    seed: Any,
    qdisc: Any,
    set: Any,  # noqa: A002 - mirrors the --set flag
    packet_log: Any,
    unset: Any = None,
) -> None:
    """Bad arguments of :func:`load` and :func:`run`, named as the caller wrote them."""
    if seed is not None:
        check_seed(seed)
    for name, value, example in (
        ("qdisc", qdisc, '{"bottleneck": "pie"}'),
        ("set", set, '{"dumbbell.bottleneck.rate": "20Mbps"}'),
    ):
        if value is not None and not isinstance(value, Mapping):
            raise TypeError(f"{name}: expected a dict like {example}, got {type(value).__name__}")
    if qdisc is not None:
        for k, v in qdisc.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise TypeError(f"qdisc: expected link and discipline names, got {k!r}: {v!r}")
    for name, value, example in (
        ("packet_log", packet_log, '["bottleneck"]'),
        ("unset", unset, '["flows[0].stop"]'),
    ):
        if value is None:
            continue
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            what = "a string" if isinstance(value, (str, bytes)) else type(value).__name__
            raise TypeError(f"{name}: expected a list like {example}, got {what}")
        for x in value:
            if not isinstance(x, str):
                raise TypeError(f"{name}: expected names, got {x!r}")


def check_seed(seed: Any) -> None:
    """Raises ValueError unless ``seed`` is a whole number 0..2^64-1 (the seeds' range)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2**64:
        raise ValueError(f"seed: expected a whole number 0..2^64-1, got {seed!r}")


def load(
    scenario: str | os.PathLike[str] | Mapping[str, Any],
    *,
    seed: int | None = None,
    qdisc: dict[str, str] | None = None,
    set: dict[str, Any] | None = None,  # noqa: A002 - mirrors the --set flag
    packet_log: list[str] | None = None,
    unset: list[str] | None = None,
    trace_flows: Mapping[int, float | str] | None = None,
    warn: bool = True,
) -> Any:
    """Read and check ``scenario`` with its overrides (as :func:`run` takes them), without
    simulating: the native run, ready to advance. Raises :class:`aqmlab.ScenarioError`.

    Each ``set`` value is written once as the text the native loader reads, as it reads the
    command line's ``--set`` values (:func:`_toml_value`: a :class:`TomlText` as typed, any
    other value as its TOML literal), and handed to it with its key."""
    _check_args(seed, qdisc, set, packet_log, unset)
    path, text = scenario_arg(scenario)
    return _core.load_scenario(
        path,
        seed,
        list((qdisc or {}).items()),
        sets=[(k, _toml_value(v, f"set: {k}")) for k, v in (set or {}).items()],
        packet_log=list(packet_log or []),
        text=text,
        unsets=list(unset or []),
        trace_flows=_trace_flows(trace_flows),
        warn=warn,
    )


def _trace_flows(trace_flows: Any) -> list[tuple[int, str]]:
    """``trace_flows`` (``{FLOW: EVERY}``, ``EVERY`` in seconds or a duration such as
    ``"10ms"``) as the native loader's ``--trace-flow FLOW=EVERY`` pairs."""
    if trace_flows is None:
        return []
    if not isinstance(trace_flows, Mapping):
        raise TypeError(
            f"trace_flows: expected a dict like {{0: 0.01}}, got {type(trace_flows).__name__}"
        )
    out = []
    for flow, every in trace_flows.items():
        if isinstance(flow, bool) or not isinstance(flow, numbers.Integral) or flow < 0:
            raise ValueError(f"trace_flows: expected flow indices 0, 1, ..., got {flow!r}")
        if isinstance(every, str):
            text = every
        elif (
            isinstance(every, numbers.Real)
            and not isinstance(every, bool)
            and math.isfinite(every)
            and every > 0
        ):
            text = f"{round(every * 1e9)}ns"
        else:
            raise ValueError(
                f"trace_flows: flow {flow}: expected a positive number of seconds or a"
                f' duration such as "10ms", got {every!r}'
            )
        out.append((int(flow), text))
    return out


def resolve(
    scenario: str | os.PathLike[str] | Mapping[str, Any],
    *,
    seed: int | None = None,
    qdisc: dict[str, str] | None = None,
    set: dict[str, Any] | None = None,  # noqa: A002 - mirrors the --set flag
    packet_log: list[str] | None = None,
    unset: list[str] | None = None,
    varied: dict[str, str] | None = None,
) -> Any:
    """Read, check and resolve ``scenario`` with its overrides (as :func:`load` takes them),
    without building the simulator: ``.resolved_toml()`` (what a run built from the same
    inputs writes as ``scenario.resolved.toml``) and ``.seed``. ``varied`` names the option
    (``--vary``) that gave some of the ``set`` keys, which errors then name instead of
    ``--set``. Raises :class:`aqmlab.ScenarioError` as :func:`load` does."""
    _check_args(seed, qdisc, set, packet_log, unset)
    path, text = scenario_arg(scenario)
    # A value without a TOML form is named by the argument that gave it: ``set``, or the one
    # ``varied`` names for its key (``--vary`` is ``vary``, as a sweep's caller wrote it).
    given = {k: o.removeprefix("--").removesuffix(":") for k, o in (varied or {}).items()}
    return _core.resolve_scenario(
        path,
        seed,
        list((qdisc or {}).items()),
        [(k, _toml_value(v, f"{given.get(k, 'set')}: {k}")) for k, v in (set or {}).items()],
        list(packet_log or []),
        text,
        list(unset or []),
        list((varied or {}).items()),
    )


def scenario_arg(
    scenario: str | os.PathLike[str] | Mapping[str, Any],
) -> tuple[str, str | None]:
    """The native loader's ``path`` and ``text`` for ``scenario``: a path (a bundled
    scenario's name resolved), TOML text (``"<string>"``) or a dict (``"<dict>"``)."""
    if isinstance(scenario, Mapping):
        text: str | None = toml_text(scenario)
        path = "<dict>"
    elif isinstance(scenario, (str, os.PathLike)):
        # TOML text rather than a path: it has a newline, or an "=" and names no file. Errors
        # then name it "<string>".
        text = scenario if isinstance(scenario, str) and _is_toml_text(scenario) else None
        # A bundled scenario's name (``codel-dynamic-link``) as the command line takes it.
        path = "<string>" if text is not None else scenarios.resolve(scenario)
    else:
        raise TypeError(
            f"scenario: expected a path, TOML text or a dict, got {type(scenario).__name__}"
        )
    return path, text


def toml_text(scenario: Mapping[str, Any]) -> str:
    """A scenario given as a dict (as a TOML file reads: tables are dicts, ``[[flows]]`` a list
    of dicts), as TOML text: the top-level values, then each table (``[dumbbell]``) and each
    list of tables (``[[flows]]``) under its header, with the tables inside them inline."""

    def is_tables(v: Any) -> bool:
        return isinstance(v, (list, tuple)) and bool(v) and all(isinstance(x, Mapping) for x in v)

    def entries(d: Mapping[str, Any], prefix: str = "") -> list[str]:
        out = []
        for k, v in d.items():
            if not isinstance(k, str):
                raise TypeError(f"scenario: expected string keys, got {k!r}")
            out.append(f"{_toml_key(k)} = {_toml_value(v, f'scenario: {prefix}{k}')}")
        return out

    top = {k: v for k, v in scenario.items() if not isinstance(v, Mapping) and not is_tables(v)}
    lines = entries(top)
    for k, v in scenario.items():
        if isinstance(v, Mapping):
            lines += ["", f"[{_toml_key(k)}]", *entries(v, f"{k}.")]
        elif is_tables(v):
            for i, t in enumerate(v):
                lines += ["", f"[[{_toml_key(k)}]]", *entries(t, f"{k}[{i}].")]
    return "\n".join(lines) + "\n"


def _toml_key(k: str) -> str:
    bare = k and all(c.isascii() and (c.isalnum() or c in "_-") for c in k)
    return k if bare else json.dumps(k)


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
    unset: list[str] | None = None,
    trace_flows: Mapping[int, float | str] | None = None,
    warn: bool = True,
) -> RunResult:
    """Run the scenario ``scenario``: a path to a TOML file, the name of a bundled scenario
    (``"codel-dynamic-link"``, as ``aqmlab run`` takes it), the TOML text itself, or a dict
    of its keys (tables as dicts, ``flows`` a list of dicts). ``unset`` removes keys by their
    path (as ``aqmlab run --unset``).

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
    this), for runs whose series would not fit in memory, and with ``out`` writes the summary
    straight into ``summary.json`` (the result reads it from there when asked). Raises
    :class:`aqmlab.ScenarioError` on bad input, before simulating. ``trace_flows`` maps TCP
    flow indices to a sampling interval (seconds, or a duration such as ``"10ms"``): their
    sender state (window, RTT, and the controller's model, e.g. BBR's btl_bw_bps, rtprop_s,
    bbr_mode, pacing_rate_bps) is sampled on the first ACK of each interval into the
    ``flow_states`` table, beside the scenario's ``[output] trace_flows`` (an entry here
    replaces the file's for the same flow), as ``aqmlab run --trace-flow FLOW=EVERY``.
    ``warn=False`` leaves the warning of a scenario of many flows (the memory its run is
    projected to take) off stderr; it stays among the run's warnings in ``summary.json`` (a
    sweep's runs are loaded so: the sweep gave the warning once, while planning).
    """
    r = load(
        scenario,
        seed=seed,
        qdisc=qdisc,
        set=set,
        packet_log=packet_log,
        unset=unset,
        trace_flows=trace_flows,
        warn=warn,
    )
    if isinstance(scenario, Mapping):
        named: Any = "<dict>"
    elif isinstance(scenario, str) and _is_toml_text(scenario):
        named = "<string>"
    else:
        named = scenario
    prov = provenance_of(
        r,
        resolved=False,
        scenario=named,
        seed=seed,
        qdisc=qdisc,
        set=set,
        packet_log=packet_log,
        unset=unset,
    )
    return simulate(r, out, csv=csv, progress=progress, keep=keep, provenance=prov)


def provenance_of(
    r: Any,
    *,
    scenario: Any = None,
    seed: int | None = None,
    qdisc: dict[str, str] | None = None,
    set: dict[str, Any] | None = None,  # noqa: A002 - mirrors the --set flag
    packet_log: list[str] | None = None,
    command: list[str] | None = None,
    unset: list[str] | None = None,
    resolved: bool = True,
) -> dict[str, Any]:
    """What ``summary.json`` records of how a run was made (its ``provenance`` key): the aqmlab
    version and build, the command line, the scenario file and every override applied, the
    discipline parameters ``--qdisc`` dropped, and the fully resolved scenario (its last key;
    ``resolved=False`` leaves it out, for :func:`simulate` to add from the run itself without
    holding its text, about 120 bytes a flow, through the run: issue 24)."""
    dropped: dict[str, list[str]] = {}
    for link, kv in r.dropped_params():
        dropped.setdefault(link, []).append(kv)
    prov = {
        **provenance_base(command),
        "scenario_file": None if scenario is None else os.fspath(scenario),
        "seed": seed,
        "qdisc": [f"{k}={v}" for k, v in (qdisc or {}).items()],
        "set": [f"{k}={v}" for k, v in (set or {}).items()],
        "unset": list(unset or []),
        "packet_log": list(packet_log or []),
        "dropped_params": dropped,
        "warnings": list(r.warnings()),
    }
    if resolved:
        prov["resolved_scenario"] = r.resolved_toml()
    return prov


def provenance_base(command: list[str] | None = None) -> dict[str, Any]:
    """The provenance every run records, simulated or emulated: the aqmlab version and build,
    and the command line that asked for it (None from the Python API)."""
    return {
        "aqmlab_version": _core.__version__,
        "build": _core.BUILD,
        "source_hash": _core.SOURCE_HASH,
        "command": None if command is None else list(command),
    }


def simulate(
    r: Any,
    out: str | os.PathLike[str] | None = None,
    *,
    csv: bool = False,
    progress: bool | None = None,
    keep: bool = True,
    provenance: dict[str, Any] | None = None,
    staged: str | None = None,
) -> RunResult:
    """Run ``r``, a scenario :func:`load` read, to its end: :func:`run` after the loading.

    With ``out``, the files are written to a staging folder and put in place at the end
    (:mod:`aqmlab.outdir`); ``staged`` is such a folder already made by the caller (``aqmlab
    run`` stages every arm of a comparison in one, and commits it once), with ``out`` the
    folder its files will be in, which error messages name. A ``provenance`` without
    ``resolved_scenario`` (:func:`provenance_of`'s ``resolved=False``) gets the run's own as its
    last key."""
    from aqmlab.outdir import OutputFolder, check_out

    if out is not None:
        check_out(out)
    show = sys.stderr.isatty() if progress is None else progress
    total = r.duration_s
    # At most MAX_STEP_BINS bins are held in memory between steps, however long the run; at
    # least 200 steps when a progress bar may show (without one, as in a sweep's runs, fewer
    # and longer steps spend less on handing the series over); and steps of about STEP_WALL_S
    # wall seconds, so the bar is lively and the files grow as the run goes: the first step is
    # short, and each next one is twice or half as long as the last, as it ran faster or slower
    # than that (the results, and the files' bytes, do not depend on where the steps fall).
    longest = r.bin_s * MAX_STEP_BINS
    # and at most about MAX_STEP_ROWS rows of the flows table (a row per flow that keeps a
    # series and bin), at least one bin: a step's series are held several times over as they
    # are handed to the files (about 200 bytes a row), which for 10^5 flows and a few bins a
    # step was more than the flows' own state (issue 24).
    longest = min(longest, r.bin_s * max(1, MAX_STEP_ROWS // max(1, r.series_flow_count)))
    if progress is not False:
        longest = min(total / 200, longest)
    step = min(longest, 0.01)
    folder = OutputFolder(out) if out is not None and staged is None else None
    write_dir = staged if staged is not None else (folder.stage if folder else None)
    shown_dir = None if out is None else os.fspath(out)
    sink = None
    t0 = time.monotonic()
    shown = False
    try:
        from aqmlab.series import SeriesSink

        sink = SeriesSink(
            ["links", "flows"]
            + (["packets", "drops"] if r.logs_packets else [])
            + (["states"] if r.traces_state else [])
            + (["flow_states"] if r.traces_flow_state else []),
            write_dir,
            csv or r.csv,
            keep,
            shown_dir=shown_dir,
        )
        check = getattr(_STOP_CHECK, "fn", None)
        while r.now_s < total:
            w0 = time.monotonic()
            r.advance(min(total, r.now_s + step), check)
            sink.add(r.take_series())
            now = time.monotonic()
            took = now - w0
            if took < STEP_WALL_S / 2:
                step = min(longest, step * 2)
            elif took > STEP_WALL_S * 2:
                step = max(r.bin_s / 1000, step / 2)
            wall = now - t0
            if show and (shown or wall > PROGRESS_AFTER_S):
                shown = True
                _progress(r.now_s / total, r.now_s, total, wall)
        # summary.json's bytes, made in Rust, with the provenance as its last key; without
        # `keep`, written straight into the file (the result reads it back when asked).
        # The resolved scenario (about 120 bytes a flow) is written from the run's own text,
        # without a copy of it in Python, unless the caller gave its own.
        if provenance is None:
            provenance = provenance_of(r, resolved=False)
        own_resolved = "resolved_scenario" not in provenance
        if write_dir is not None and not keep:
            prov = json.dumps(provenance, indent=2)
            _write_native(
                write_dir,
                shown_dir,
                "summary.json",
                lambda path: r.write_summary(path, prov, own_resolved),
            )
            summary = SummaryFile(path=os.path.join(shown_dir or write_dir, "summary.json"))
        else:
            if own_resolved:
                provenance = {**provenance, "resolved_scenario": r.resolved_toml()}
            summary = SummaryFile(r.summary_file(json.dumps(provenance, indent=2)))
        sink.add(r.take_series(to_end=True))
        tables = sink.close()
        if write_dir is not None:
            if summary.data is not None:
                _write_text(write_dir, shown_dir, "summary.json", summary.data)
            _write_native(write_dir, shown_dir, "scenario.resolved.toml", r.write_resolved_toml)
        if folder is not None:
            folder.commit()
    except BaseException:
        # Ctrl-C, a signal or a failed write: leave no half-written files behind.
        if sink is not None:
            sink.abort()
        if folder is not None:
            folder.abort()
        raise
    finally:
        if shown:
            sys.stderr.write("\n")
    links, flows = tables["links"], tables["flows"]
    return RunResult(
        summary,
        links,
        flows,
        tables.get("packets"),
        tables.get("drops"),
        tables.get("states"),
        tables.get("flow_states"),
    )


def _write_text(write_dir: str, shown_dir: str | None, name: str, text: str | bytes) -> None:
    """Writes ``name`` (``text``, or UTF-8 ``bytes``) into ``write_dir``; an error names it as
    it will be (in ``shown_dir``) and leaves no partial file."""
    path = os.path.join(write_dir, name)
    try:
        if isinstance(text, bytes):
            with open(path, "wb") as f:
                f.write(text)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.remove(path)
        shown = os.path.join(shown_dir or write_dir, name)
        raise OSError(e.errno, f"cannot write: {e.strerror or e}", shown) from None


def _write_native(
    write_dir: str, shown_dir: str | None, name: str, write: Callable[[str], None]
) -> None:
    """Writes ``name`` into ``write_dir`` from the run itself, ``write(path)``
    (``Run.write_summary``, ``Run.write_resolved_toml``); an error names it as
    :func:`_write_text` does."""
    path = os.path.join(write_dir, name)
    try:
        write(path)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.remove(path)
        shown = os.path.join(shown_dir or write_dir, name)
        raise OSError(e.errno, f"cannot write: {e.strerror or e}", shown) from None


def _is_toml_text(s: str) -> bool:
    """A string is TOML text, not a path, when it names no existing file and has a newline, or
    an "=" and no ".toml" ending: a path may hold "=" (runs/rate=10M.toml) or even a newline."""
    if os.path.exists(s):
        return False
    return "\n" in s or ("=" in s and not s.endswith(".toml"))


class TomlText(str):
    """A ``set`` value as typed after ``--set KEY=``: read as TOML when it is a TOML value
    (``10``, ``1.5``, ``true``, ``"x"``, ``["0s", "1Mbps"]``), otherwise as a string
    (``10Mbps``). A plain ``str`` is always a string."""


#: The Python types a scenario value (in ``set=`` or a dict scenario) may have, as errors name them.
TOML_TYPES = "str, int, float, bool, a list of them or a dict"


def _toml_value(v: Any, where: str = "scenario") -> str:
    """A Python value as a TOML literal, so ``set={"name": "123"}`` stays a string. ``where``
    names the key in the TypeError raised for a value TOML has no form of (bytes, None, ...)."""
    if isinstance(v, TomlText):
        return str(v)
    if isinstance(v, str):
        # A JSON string is a valid TOML basic string (non-ASCII kept: TOML has no surrogates).
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, bool) or type(v).__name__ == "bool_":  # numpy.bool_ too
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x, where) for x in v) + "]"
    if isinstance(v, Mapping):
        items = ", ".join(
            f"{_toml_key(str(k))} = {_toml_value(x, f'{where}.{k}')}" for k, x in v.items()
        )
        return "{" + items + "}"
    if isinstance(v, os.PathLike):
        return _toml_value(os.fspath(v), where)
    if v is None:
        raise TypeError(f"{where}: None has no TOML form: leave the key out instead")
    raise TypeError(f"{where}: expected {TOML_TYPES}, got {type(v).__name__} {v!r}")
