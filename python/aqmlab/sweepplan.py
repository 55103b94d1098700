"""Planning a sweep: every run of a :class:`~aqmlab.sweepspec.SweepSpec`, loaded (so checked)
and keyed by content, before any run is simulated (:func:`plan`). Each :class:`Task` carries
what its worker runs: the resolved scenario planning keyed (zlib-compressed), so nothing is
resolved again in the worker (:mod:`aqmlab.sweep` executes the tasks).

The path of a ``--vary`` value (``aqmlab sweep S --vary dumbbell.bottleneck.params.target=5ms,
10ms``) to CoDel's typed ``target``, counted as ``crates/aqmlab-sim/src/scenario/disc_params.rs``
counts ``aqmlab run --set``'s (every function that has the value in hand on its way, the callers
that only pass it on included): the text as typed goes to the native loader, which reads it as
it reads a ``--set`` value, as for a run. Planning (the key), 14 functions:

1. `cli.py` `_cmd_sweep`: the ``--vary`` strings, to
2. `sweepspec.py` `from_cli`, which has
3. `sweepspec.py` `_axis_values` split the key from the values' text (at the commas outside
   brackets and quotes); each text is kept as typed (``Axis.texts``; ``literal`` reads it
   only for the results table), in the spec given to
4. `sweep.py` `run_sweep`, and from it to
5. `sweepplan.py` `plan`, which makes each point's ``(KEY, TEXT)`` pairs and gives them to
6. `lib.rs` `resolve_scenario`, the native loader, then on as in ``disc_params.rs``'s list
   from its 3rd function (``resolve_with_edits``) to its 10th (``codel_params_from``).

A run the cache lacks is built from the resolved scenario planning keyed (``Task.resolved``),
not from the values again: in the worker, ``execute`` gives that text to ``load_scenario`` with
no edit and no override (its seed and its disciplines are in it) and checks that it loads as
itself, so the worker runs the very scenario that was keyed, and the value's path ends at the
planning's 14. Beyond the run's 10, what a sweep cannot do without: splitting a list of values
and planning each point. Counted the same way: a ``--set`` value (kept as typed: ``TomlText``)
takes ``_cmd_sweep``, ``from_cli``, ``run_sweep``, ``plan`` and the 9 native functions (13); a
sweep file's ``[vary]`` values, read by ``from_file`` (``read_toml``, ``listed``) as TOML,
are written once as TOML by ``plan``'s ``_toml_value`` (16); ``aqmlab.sweep``'s ``set`` values
take ``sweep``, ``run_sweep``, ``plan``, ``_toml_value`` and the 9 (13).

Before (f332cc3, the run's path then 11): 17 functions to plan and 22 to execute a run (20 with one
job) for a ``--vary`` value, 15 for a ``--set`` value and for the API's ``set``, 18 to plan and 23
to execute for a sweep file's ``[vary]``. ``sweepspec.py``'s ``split_values`` (the split at the
commas, now in ``_axis_values``) and ``overrides`` (the pairs, now made in ``plan``) were on the
way; and a run's pairs went on from ``plan`` through ``run_sweep``, ``_run_planned``,
``_run_local``, its ``worker``, ``in_process`` or ``in_worker_process`` and ``execute`` to
``load_scenario``, resolved again. Before issue 20 these paths were 26 and 32 functions (20 for a
``--set`` value, 19 for the API's, 28 for a file's ``[vary]``): ``_pair`` and ``_values`` (now
``_axis_values``), ``literal`` and ``_toml_loads`` (the text read as TOML) and ``_toml_value``
(written as TOML again), ``_plan_points``, ``split_point``, and the Python API
(``aqmlab.run.resolve`` and, in the worker, ``run`` and ``load``) with its ``_native_args``.
``crates/aqmlab-sim/tests/set_path.rs`` pins the lists.

Looked at and kept (none only forwards the value or reads it again): ``_axis_values`` (the one
split of ``--vary``, ``--qdisc`` and ``--zip``: folded into ``from_cli`` it would be the same work
in a longer function); ``run_sweep`` (the runner every caller uses, which checks its arguments
before planning); ``_toml_value`` (a Python value as TOML: done by the native loader through
PyO3 it would be a Rust function on the path in its place, and a second copy of its rules,
which ``toml_text`` still needs for a scenario given as a dict)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import ScenarioError
from aqmlab.sweepspec import QDISC_PREFIX, SweepSpec, read_input

#: Bump when the meaning of a run folder changes, so old caches are not reused.
#: 2: the key covers the content of the files a scenario names.
CACHE_FORMAT = 2


@dataclass
class Task:
    """One run of a sweep: what a worker needs to simulate it, and where it goes."""

    index: int  # position in the results table
    point: dict[str, Any]
    seed: int | None
    key: str  # the run's content hash; "" when the point failed to load
    scenario: str  # the path the main process used
    path: str  # the native loader's name of the scenario (errors name it)
    sets: dict[str, Any]  # as the manifest and a reducer see them
    qdisc: dict[str, str]
    #: The resolved scenario the key hashes (zlib-compressed ``resolved_toml()``): what the
    #: worker runs, so it runs the very scenario that was keyed, with nothing resolved again.
    resolved: bytes = b""
    #: ``summary.json``'s provenance (``aqmlab.run.provenance_of``), made while planning.
    provenance: dict[str, Any] | None = None
    error: str | None = None  # a load error: the run is not executed
    reduce: str | None = None  # "module:function" run on the run's folder in the worker
    reduce_args: dict[str, Any] | None = None  # its keyword arguments
    unset: list[str] | None = None  # keys removed before the overrides (--unset)
    files: dict[str, str] | None = None  # the files the scenario names: path -> SHA-256


def _identity(r: Any, hashes: dict[str, str] | None = None) -> dict[str, Any]:
    """What decides a run's results: the resolved scenario (every value after defaults and
    overrides, as the core writes it), the content of every file it names (a trace edited in
    place is another run, though its path is the same), the seed, aqmlab's version and build,
    and the fingerprint of the simulator's sources (an edited simulator never reuses a cached
    run). ``hashes`` keeps the files' hashes already computed, by path."""
    from aqmlab import __version__, _core

    resolved = r.resolved_toml()
    hashes = {} if hashes is None else hashes
    files = {}
    for path in named_files(resolved):
        if path not in hashes:
            hashes[path] = _file_hash(path)
        files[path] = hashes[path]
    return {
        "format": CACHE_FORMAT,
        "version": __version__,
        "build": _core.BUILD,
        "source": _core.SOURCE_HASH,
        "seed": r.seed,
        "scenario": resolved,
        "files": files,
    }


def named_files(resolved_toml: str) -> list[str]:
    """The files a resolved scenario names: every link direction's ``trace`` (an absolute
    path in the resolved scenario; a rate schedule is written inline, so it is no file)."""
    import re

    from aqmlab.sweepspec import _toml_loads

    if not re.search(r"""\btrace['"]?\s*=\s*['"]""", resolved_toml):
        return []  # no key trace holding a string: no need to parse (most of planning's time)
    found: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                if k == "trace" and isinstance(x, str):
                    found.append(x)
                else:
                    walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(_toml_loads(resolved_toml))
    return sorted(set(found))


def _file_hash(path: str) -> str:
    """The SHA-256 of the file's content (the loader has just read it, so it exists)."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except OSError as e:
        raise ScenarioError(f"{path}: cannot read it: {e.strerror or e}") from None
    return h.hexdigest()


def reducer_identity(reduce: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """What decides a reducer's output besides the run: its ``module:function`` name, the
    content hash of the module's source file, so that editing the reducer reduces cached runs
    again (a change confined to another module it calls is not seen: keep a reducer's
    arithmetic in its own module), and the keyword arguments it is called with, if any."""
    import importlib.util

    module = reduce.rpartition(":")[0]
    if module.endswith(".py"):  # a file's path (a reproduction folder's reducer)
        origin: str | None = module
    else:
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            spec = None
        origin = getattr(spec, "origin", None)
    code = _file_hash(origin) if origin and os.path.isfile(origin) else ""
    if module.endswith(".py"):  # a file's key does not depend on where the folder lies
        reduce = os.path.basename(module) + ":" + reduce.rpartition(":")[2]
    out: dict[str, Any] = {"name": reduce, "code": code}
    if args:
        out["args"] = args
    return out


def run_key(ident: dict[str, Any]) -> str:
    blob = json.dumps(ident, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()[:20]


def plan(spec: SweepSpec) -> list[Task]:
    """Every run of ``spec``, loaded (so checked) and keyed. A point whose values the
    scenario refuses becomes a task carrying its error; when every point is refused (the
    scenario itself is broken, or a varied key is unknown), nothing of the sweep could run:
    :class:`ScenarioError` with the first point's error.

    Each point is resolved without building the simulator (``_core.resolve_scenario``, with
    its ``set`` values as the loader takes them, ``[(KEY, TEXT)]``: a command-line value as
    typed, which the loader reads as it reads ``aqmlab run --set``; any other value written
    once as its TOML literal by :func:`aqmlab.run._toml_value`, a value without one named by
    the argument that gave it: ``set``, ``vary``, ``zip``, ``case "NAME"``): the key hashes
    the serialization of the resolved scenario a run is then built from."""
    from aqmlab import _core
    from aqmlab.run import TomlText, _toml_value, scenario_arg

    path, given_text = scenario_arg(spec.scenario)
    _check_base(spec.scenario, path)
    tasks: list[Task] = []
    hashes: dict[str, str] = {}
    seeds: Sequence[int | None] = spec.seeds or [None]
    # The loader's warnings (a many-flows scenario's memory) come once, not once per run.
    with contextlib.redirect_stderr(_Once(sys.stderr)):
        for combo in spec.combos():
            point = spec.point(combo)
            flags = spec.varied(point)
            # Each key's value and its command line's text (None for a Python value), the
            # fixed ones first; the point's discipline swaps apart.
            given = {k: (v, v if isinstance(v, TomlText) else None) for k, v in spec.sets.items()}
            qdisc: dict[str, str] = {}
            for axis, i in zip(spec.axes, combo):
                if axis.cases is not None:
                    kvs = [(k, (v, None)) for k, v in axis.cases[axis.values[i][0]].items()]
                else:
                    texts = axis.texts[i] if axis.texts is not None else (None,) * len(axis.keys)
                    kvs = list(zip(axis.keys, zip(axis.values[i], texts)))
                for k, (v, text) in kvs:
                    if k.startswith(QDISC_PREFIX):
                        qdisc[k[len(QDISC_PREFIX) :]] = str(v)
                    else:
                        given[k] = (v, text)
            named = {k: o.removeprefix("--").removesuffix(":") for k, o in flags.items()}
            loader_sets = [
                (k, _toml_value(v, f"{named.get(k, 'set')}: {k}") if text is None else text)
                for k, (v, text) in given.items()
            ]
            sets = {k: v for k, (v, _) in given.items()}  # as the manifests and a reducer see
            for seed in seeds:
                t = Task(len(tasks), point, seed, "", spec.scenario, path, sets, qdisc)
                t.reduce, t.unset = spec.reduce, list(spec.unset) or None
                t.reduce_args = dict(spec.reduce_args) or None
                try:
                    r = _core.resolve_scenario(
                        path,
                        seed,
                        list(qdisc.items()),
                        loader_sets,
                        [],
                        given_text,
                        list(spec.unset),
                        list(flags.items()),
                    )
                except ScenarioError as e:
                    t.error = str(e)
                else:
                    _key(t, r, spec, hashes, given_text is not None)
                tasks.append(t)
    if tasks and all(t.error is not None for t in tasks):
        raise ScenarioError(tasks[0].error)
    return tasks


def _check_base(scenario: str, path: str) -> None:
    """Refuses at once, as a run refuses it (not once per point), a scenario file over a
    run's size cap (a huge or endless file) or holding too many flow tables."""
    from aqmlab import _core

    if os.path.exists(scenario) and not os.path.isdir(scenario):
        data = read_input(scenario)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return  # each point's load says so
        _core.check_flow_tables(path, text)


def _key(t: Task, r: Any, spec: SweepSpec, hashes: dict[str, str], given_text: bool) -> None:
    """Keys task ``t`` by its resolved scenario ``r`` (:func:`_identity`), and keeps what its
    worker runs: the resolved scenario (zlib-compressed) and the run's provenance."""
    from aqmlab.run import provenance_of

    t.seed = r.seed
    ident = _identity(r, hashes)
    t.files = ident["files"] or None
    t.resolved = zlib.compress(ident["scenario"].encode(), 1)
    t.provenance = provenance_of(
        r,
        resolved=False,
        scenario="<string>" if given_text else spec.scenario,
        seed=t.seed,
        qdisc=t.qdisc,
        set=t.sets,
        unset=t.unset,
    )
    if spec.reduce:
        ident["reduce"] = reducer_identity(spec.reduce, spec.reduce_args)
    t.key = run_key(ident)


class _Once:
    """A text stream writing each line through to ``to`` the first time only."""

    def __init__(self, to: Any) -> None:
        self.to, self.seen, self.part = to, set(), ""

    def write(self, s: str) -> int:
        self.part += s
        *lines, self.part = self.part.split("\n")
        for line in lines:
            if line not in self.seen:
                self.seen.add(line)
                self.to.write(line + "\n")
        return len(s)

    def flush(self) -> None:
        self.to.flush()


__all__ = ["CACHE_FORMAT", "Task", "named_files", "plan", "reducer_identity", "run_key"]
