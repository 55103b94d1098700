"""A reproduction as a folder: ``experiment.toml``, ``claims.toml``, its scenarios and an
optional Python module (docs/reproductions.md, "A reproduction's folder").

:func:`load` reads and checks a folder into an :class:`Experiment`; every error is one line
naming the file and the key and what was expected. :mod:`aqmlab.reproduce.loader` runs it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce import (
    claim_note,
    reference_frames,
    sample_claims,
)
from aqmlab.reproduce.metrics import DeriveDef, NumberDef, load_derives, load_numbers
from aqmlab.reproduce.predicate import ARM_NAMES, compile_predicate, ordering_on_arms
from aqmlab.reproduce.reference_frames import FrameDef
from aqmlab.sweepspec import QDISC_PREFIX, Axis, toml_doc

EXPERIMENT = "experiment.toml"
CLAIMS = "claims.toml"
#: The module a folder's ``module`` key names when it names none and this file exists.
DEFAULT_MODULE = "reproduction.py"
#: Claim kinds (docs/reproductions.md, "Verdicts").
KINDS = ("numeric", "qualitative", "range", "not graded")
MODES = ("quick", "full")


@dataclass
class SweepDef:
    """One sweep a reproduction runs into ``OUT/<name>``."""

    name: str
    scenario: str  # an absolute path
    axes: list[Axis]
    sets: dict[str, Any]
    unset: list[str]
    #: The file in OUT the scenario is written to, with the sweep's fixed overrides.
    written_as: str = ""
    #: "/path/FILE.py:function" (a user's reducer) or a built-in one, "module:function" (a
    #: ``[sweep.reduce.packet_log]``), run on each finished run in the worker
    #: (SweepSpec.reduce), or "".
    reduce: str = ""
    #: The keyword arguments ``reduce`` is called with (SweepSpec.reduce_args).
    reduce_args: dict[str, Any] = field(default_factory=dict)


@dataclass
class TableDef:
    """The reproduction's table: a sweep's results (with its declared columns),
    averaged over seeds per combination of ``by``; ``columns`` maps a metric's name to the
    results column it averages. ``numbers[name]`` in ``results.json`` holds its rows."""

    name: str
    title: str
    sweep: str
    by: list[str]
    columns: dict[str, str]
    headers: dict[str, str]
    note: str = ""


@dataclass
class ClaimDef:
    """One ``[[claim]]`` of ``claims.toml`` (docs/reproductions.md lists the keys)."""

    id: str
    claim: str
    source: str
    location: str
    kind: str
    published: Any
    metric: str
    measured: str
    why: str = ""
    read_off: float = 0.0
    spread: str = ""
    digits: int | None = None
    arm_column: str = ""
    arms: list[str] = field(default_factory=list)
    counterfactual: str = ""
    counterfactual_arms: list[str] = field(default_factory=list)
    predicate: str = ""
    #: The compared quantity's stated resolution: two sides of an ordering comparison within it
    #: of each other are a tie (:mod:`aqmlab.reproduce.predicate`).
    resolution: float = 0.0
    #: Each arm's delivered share of its link, a metric spelt as ``metric`` is (a table column,
    #: or a path with ``{arm}``): a point where every arm is under the stalled fraction is a
    #: tie of runs that delivered almost nothing.
    delivered: str = ""
    #: qualitative/range without ``delivered``: why no run of the claim's points can stall, or
    #: why a stalled run cannot pass the predicate (such a claim needs one or the other).
    stalls: str = ""
    #: qualitative/range: the per-seed values of ``metric`` (a numbers path in its shape whose
    #: leaves are lists in seed order, or the ``[table]`` column read seed by seed): an order
    #: of the arms' values (against each other or a constant) within our seeds' noise is no
    #: pass (:mod:`aqmlab.reproduce.predicate`).
    per_seed: str = ""
    #: qualitative/range without ``per_seed``: why its order needs no noise band.
    noise: str = ""
    points: list[str] = field(default_factory=list)
    point_name: str = ""
    where: dict[str, list[Any]] = field(default_factory=dict)
    most: bool = False
    describe: str = ""
    note: str = ""
    #: Where ``note`` is added (``note = { text, when }``: claim_note.py); "": always.
    note_when: str = ""
    #: The hypotheses for a ``differs`` / ``does not hold``, each with the run that tests it
    #: and what that run showed: ``{hypothesis, tested_by, outcome}`` (texts; ``{number}``
    #: fields filled).
    explanation: list[dict[str, str]] = field(default_factory=list)
    #: ``unexplained = true`` (or a text saying what is untested): no tested hypothesis
    #: accounts for a ``differs`` / ``does not hold``; beside a refuted ``explanation`` too.
    unexplained: bool = False
    unexplained_why: str = ""
    not_graded: str = ""
    #: Why the claim is not graded when its metric has no number in this run (a point the
    #: mode does not run): claim_missing.py.
    missing: str = ""
    #: The test whose quantities the predicate names, the arms being samples
    #: (sample_claims.py).
    sample_test: str = ""
    #: The test each entry of ``explanation`` declares (``test = KIND``:
    #: :mod:`aqmlab.reproduce.hypotheses`), None for a hypothesis whose outcome is a text.
    tests: list[Any] = field(default_factory=list)


@dataclass
class Experiment:
    folder: str
    name: str
    title: str
    sources: list[str]
    module: str | None
    seeds: int
    modes: dict[str, dict[str, Any]]
    sweeps: list[SweepDef]
    table: TableDef | None
    parameters: dict[str, Any]
    #: Texts, and ``{ text, when }`` paragraphs (discussion.py).
    discussion: list[Any]
    commands: list[str]
    claims: list[ClaimDef]
    #: ``[[derive]]``: per-run columns (:mod:`aqmlab.reproduce.metrics`).
    derives: list[DeriveDef] = field(default_factory=list)
    #: ``[numbers.NAME]``: named numbers over the runs.
    numbers: list[NumberDef] = field(default_factory=list)
    #: ``[[window]]``: per-run columns cut from a run's packet log and series by time
    #: (windows.py).
    windows: list[Any] = field(default_factory=list)
    #: ``[frames.NAME]``: CSV files of the folder, or a sweep's means, read as results
    #: (reference_frames).
    frames: list[FrameDef] = field(default_factory=list)
    #: ``[[report_table]]``: the report's tables of numbers or of a sweep's or a frame's rows
    #: (report_table.py).
    report_tables: list[Any] = field(default_factory=list)
    #: Nothing in the scenarios draws at random: every run uses seed 1, whatever --seeds says.
    deterministic: bool = False
    #: ``[options.NAME]``: the command line's options it takes (options.py).
    options: list[Any] = field(default_factory=list)


def is_folder(path: str) -> bool:
    """Whether ``path`` is a reproduction's folder (it holds an ``experiment.toml``)."""
    return os.path.isfile(os.path.join(path, EXPERIMENT))


def _read(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise AqmlabError(f"{path}: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise AqmlabError(f"{path}: not UTF-8 text: expected a TOML file") from None
    return toml_doc(path, text)  # a syntax error said as a scenario's


class _Table:
    """A TOML table being read: typed getters whose errors name the file and the key."""

    def __init__(self, path: str, where: str, doc: Any, known: tuple[str, ...]):
        self.path, self.where = path, where
        if not isinstance(doc, dict):
            raise self.error("", "a table")
        self.doc = doc
        for k in doc:
            if k not in known:
                raise AqmlabError(
                    f"{path}: {self._key(k)}: unknown key (expected one of {', '.join(known)})"
                )

    def _key(self, k: str) -> str:
        return f"{self.where}.{k}" if self.where and k else (self.where or k)

    def error(self, k: str, expected: str) -> AqmlabError:
        got = self.doc.get(k) if k and isinstance(getattr(self, "doc", None), dict) else None
        tail = f", got {got!r}" if got is not None else ""
        return AqmlabError(f"{self.path}: {self._key(k)}: expected {expected}{tail}")

    def str(self, k: str, default: str | None = None) -> str:
        v = self.doc.get(k, default)
        if not isinstance(v, str) or (default is None and not v):
            raise self.error(k, "a text")
        return v

    def strs(self, k: str) -> list[str]:
        v = self.doc.get(k, [])
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise self.error(k, "a list of texts")
        return v

    def table(self, k: str) -> dict[str, Any]:
        v = self.doc.get(k, {})
        if not isinstance(v, dict):
            raise self.error(k, "a table")
        return v

    def num(self, k: str, default: float) -> float:
        v = self.doc.get(k, default)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.error(k, "a number")
        return float(v)


def load(folder: str) -> Experiment:
    """Read and check the reproduction in ``folder``."""
    from aqmlab.reproduce import discussion, options, param_expr, report_table, windows

    folder = os.path.abspath(folder)
    path = os.path.join(folder, EXPERIMENT)
    if not os.path.isfile(path):
        raise AqmlabError(f"{folder}: no {EXPERIMENT} (a reproduction's folder holds one)")
    t = _Table(
        path,
        "",
        _read(path),
        (
            "name", "title", "sources", "module", "seeds", "quick", "full", "sweep", "table",
            "parameters", "discussion", "commands", "derive", "numbers", "frames", "window",
            "report_table", "deterministic", "options",
        ),
    )  # fmt: skip
    module = t.doc.get("module")
    if module is None and os.path.isfile(os.path.join(folder, DEFAULT_MODULE)):
        module = DEFAULT_MODULE
    if module is not None:
        if not isinstance(module, str) or not os.path.isfile(os.path.join(folder, module)):
            raise t.error("module", f"a Python file in {folder}")
        module = os.path.join(folder, module)
    seeds = t.doc.get("seeds", 3)
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise t.error("seeds", "the number of seeds a full run uses (at least 1)")
    modes = {}
    for m in MODES:
        mt = _Table(path, m, t.table(m), (*_MODE_KEYS, *_params(t.table(m))))
        params = {k: v for k, v in mt.doc.items() if k not in _MODE_KEYS}
        param_expr.check(path, m, params)
        keep = mt.table("keep")
        if not all(isinstance(v, list) for v in keep.values()):
            raise mt.error("keep", "a table of COLUMN = [the axis values to run]")
        modes[m] = {
            "params": params,
            "set": mt.table("set"),
            "unset": mt.strs("unset"),
            "note": mt.str("note", ""),
            "keep": keep,
            "sweeps": mt.strs("sweeps"),
        }
    sweeps_doc = t.doc.get("sweep", [])
    if not isinstance(sweeps_doc, list) or not sweeps_doc:
        raise t.error("sweep", "one or more [[sweep]] tables")
    sweeps = [_sweep(path, folder, i, s) for i, s in enumerate(sweeps_doc)]
    names = [s.name for s in sweeps]
    if len(set(names)) != len(names):
        raise t.error("sweep", "sweeps of distinct names")
    for m in MODES:
        unknown = [n for n in modes[m]["sweeps"] if n not in names]
        if unknown:
            raise _Table(path, m, {}, ()).error(
                "sweeps", f"names of [[sweep]]s ({', '.join(names)})"
            )
    written = [s.written_as for s in sweeps]
    if len(set(written)) != len(written):
        raise t.error("sweep", "distinct written_as (sweeps sharing a scenario file name them)")
    table = _table(path, t.doc["table"], names) if "table" in t.doc else None
    frames = reference_frames.load(path, t.doc.get("frames", {}), folder, names)
    exp = Experiment(
        folder=folder,
        name=t.str("name"),
        title=t.str("title"),
        sources=t.strs("sources"),
        module=module,
        seeds=seeds,
        modes=modes,
        sweeps=sweeps,
        table=table,
        parameters=t.table("parameters"),
        discussion=discussion.load(
            path, t.doc.get("discussion", []), [*names, *(f.name for f in frames)]
        ),
        commands=t.strs("commands"),
        claims=load_claims(
            os.path.join(folder, CLAIMS), deterministic=t.doc.get("deterministic") is True
        ),
        derives=load_derives(path, t.doc.get("derive", []), [*names, *(f.name for f in frames)]),
        numbers=load_numbers(path, t.doc.get("numbers", {}), [*names, *(f.name for f in frames)]),
        windows=windows.load(path, t.doc.get("window", []), names),
        frames=frames,
        report_tables=report_table.load(
            path, t.doc.get("report_table", []), [*names, *(f.name for f in frames)]
        ),
        deterministic=t.doc.get("deterministic", False),
        options=options.load(path, t.doc.get("options", {})),
    )
    if not isinstance(exp.deterministic, bool):
        raise t.error("deterministic", "true or false (true: every run uses seed 1)")
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", exp.name):
        raise t.error("name", "a name of lower-case letters, digits, - and _")
    return exp


_MODE_KEYS = ("set", "note", "unset", "keep", "sweeps")


def _params(doc: dict[str, Any]) -> tuple[str, ...]:
    return tuple(k for k in doc if k not in _MODE_KEYS)


def _sweep(path: str, folder: str, i: int, doc: Any) -> SweepDef:
    t = _Table(
        path,
        f"sweep[{i}]",
        doc,
        ("name", "scenario", "set", "unset", "axis", "written_as", "reduce"),
    )
    base = t.str("scenario")
    scen = base if os.path.isabs(base) else os.path.join(folder, base)
    if not os.path.isfile(scen):
        from aqmlab.scenarios import resolve

        scen = resolve(base)
        if not os.path.isfile(scen):
            raise t.error("scenario", f"a scenario file (relative to {folder}) or a bundled name")
    axes_doc = t.doc.get("axis", [])
    if not isinstance(axes_doc, list):
        raise t.error("axis", "[[sweep.axis]] tables")
    axes = [_axis(path, f"sweep[{i}].axis[{j}]", a) for j, a in enumerate(axes_doc)]
    written_as = t.str("written_as", os.path.basename(scen))
    if os.path.basename(written_as) != written_as or not written_as.endswith(".toml"):
        raise t.error("written_as", "a file name ending in .toml")
    reduce, reduce_args = _reducer(t, folder)
    return SweepDef(
        t.str("name", "sweep"),
        scen,
        axes,
        t.table("set"),
        t.strs("unset"),
        written_as,
        reduce,
        reduce_args,
    )


def _reducer(t: _Table, folder: str) -> tuple[str, dict[str, Any]]:
    """A sweep's ``reduce``: a declared reducer, ``[sweep.reduce.packet_log]``
    (:mod:`aqmlab.reproduce.packet_log`), or a user's function, ``"FILE.py:FUNCTION"``."""
    doc = t.doc.get("reduce", "")
    if isinstance(doc, dict):
        from aqmlab.reproduce import packet_log

        if list(doc) != ["packet_log"]:
            raise t.error("reduce", 'a table [sweep.reduce.packet_log], or "FILE.py:FUNCTION"')
        args = packet_log.parse(f"{t.path}: {t.where}.reduce.packet_log", doc["packet_log"])
        return packet_log.REDUCER, args
    reduce = t.str("reduce", "")
    if reduce:
        file, _, fn = reduce.rpartition(":")
        if not fn.isidentifier() or not os.path.isfile(os.path.join(folder, file)):
            raise t.error(
                "reduce",
                f"[sweep.reduce.packet_log], or FILE.py:FUNCTION, a Python file in {folder} and "
                "its function",
            )
        reduce = f"{os.path.join(folder, file)}:{fn}"
    return reduce, {}


def _axis(path: str, where: str, doc: Any) -> Axis:
    """``key`` + ``values`` (one key varied), ``qdisc`` + ``values`` (a link's discipline),
    ``zip`` (a table of KEY = [values] moving together) or ``cases`` (named cases, a table of
    tables of overrides, whose column is ``column``, default ``case``)."""
    t = _Table(path, where, doc, ("key", "qdisc", "values", "zip", "cases", "column"))
    kinds = [k for k in ("key", "qdisc", "zip", "cases") if k in t.doc]
    if len(kinds) != 1:
        raise t.error("", "one of key, qdisc, zip or cases")
    kind = kinds[0]
    if kind == "cases":
        cases = t.table("cases")
        if not cases or not all(isinstance(v, dict) for v in cases.values()):
            raise t.error("cases", 'tables of overrides, like cases."tail drop" = {...}')
        return Axis.of_cases(cases, t.str("column", "case"))
    if kind == "zip":
        group = t.table("zip")
        lens = {len(v) if isinstance(v, list) else -1 for v in group.values()}
        if not group or len(lens) != 1 or -1 in lens or 0 in lens:
            raise t.error("zip", "a table of KEY = [values], every list of one length")
        keys = list(group)
        return Axis(keys, list(zip(*(group[k] for k in keys))))
    values = t.doc.get("values")
    if not isinstance(values, list) or not values:
        raise t.error("values", "a non-empty list of values")
    key = t.str(kind)
    key = QDISC_PREFIX + key if kind == "qdisc" else key
    return Axis([key], [(v,) for v in values])


def _table(path: str, doc: Any, sweeps: list[str]) -> TableDef:
    t = _Table(path, "table", doc, ("name", "title", "sweep", "by", "columns", "headers", "note"))
    sweep = t.str("sweep", sweeps[0])
    if sweep not in sweeps:
        raise t.error("sweep", f"one of the sweeps ({', '.join(sweeps)})")
    cols = t.table("columns")
    if not cols or not all(isinstance(v, str) for v in cols.values()):
        raise t.error("columns", "a table of NAME = results column")
    headers = t.table("headers")
    return TableDef(
        name=t.str("name", "table"),
        title=t.str("title", ""),
        sweep=sweep,
        by=t.strs("by"),
        columns=dict(cols),
        headers={k: str(v) for k, v in headers.items()},
        note=t.str("note", ""),
    )


_CLAIM_KEYS = tuple(k for k in ClaimDef.__dataclass_fields__ if k != "tests")


def load_claims(path: str, deterministic: bool = True) -> list[ClaimDef]:
    """The ``[[claim]]`` tables of ``path``, checked: ids unique, each kind's keys present,
    predicates well formed; ``deterministic = False`` (a reproduction whose seeds draw): every
    order of an arm-dependent value declares ``per_seed`` or ``noise``."""
    doc = _read(path)
    top = _Table(path, "", doc, ("claim", "hypothesis"))
    # Hypotheses several claims name (explanation = "NAME").
    shared = {
        name: _hypothesis(path, f"hypothesis.{name}", h, outcome=False, name=name)
        for name, h in top.table("hypothesis").items()
    }
    items = top.doc.get("claim", [])
    if not isinstance(items, list) or not items:
        raise top.error("claim", "one or more [[claim]] tables")
    out: list[tuple[_Table, ClaimDef]] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        t = _Table(path, f"claim[{i}]", item, _CLAIM_KEYS)
        cid = t.str("id")
        if not re.fullmatch(r"[a-z0-9][a-z0-9_.-]*", cid):
            raise t.error("id", "an id of lower-case letters, digits, '.', '-' and '_'")
        if cid in seen:
            raise t.error("id", "an id no other claim has")
        seen.add(cid)
        t.where = f"claim {cid!r}"
        kind = t.str("kind")
        if kind not in KINDS:
            raise t.error("kind", " or ".join(KINDS))
        where = t.table("where")
        for k, v in where.items():
            if not isinstance(v, list):
                where[k] = [v]
        digits = t.doc.get("digits")
        if digits is not None and (isinstance(digits, bool) or not isinstance(digits, int)):
            raise t.error("digits", "a number of significant digits")
        explanation = _explanation(t, shared)
        note, note_when = claim_note.load(t)
        c = ClaimDef(
            id=cid,
            claim=t.str("claim"),
            source=t.str("source"),
            location=t.str("location", ""),
            kind=kind,
            published=t.doc.get("published"),
            metric=t.str("metric", ""),
            measured=t.str("measured", ""),
            why=t.str("why", ""),
            read_off=t.num("read_off", 0.0),
            spread=t.str("spread", ""),
            digits=digits,
            arm_column=t.str("arm_column", ""),
            arms=t.strs("arms"),
            counterfactual=t.str("counterfactual", ""),
            counterfactual_arms=t.strs("counterfactual_arms"),
            predicate=t.str("predicate", ""),
            resolution=t.num("resolution", 0.0),
            delivered=t.str("delivered", ""),
            stalls=t.str("stalls", ""),
            per_seed=t.str("per_seed", ""),
            noise=t.str("noise", ""),
            points=t.strs("points"),
            point_name=t.str("point_name", ""),
            where=where,
            most=bool(t.doc.get("most", False)),
            describe=t.str("describe", ""),
            note=note,
            note_when=note_when,
            explanation=[h for h, _ in explanation],
            tests=[test for _, test in explanation],
            unexplained=bool(t.doc.get("unexplained", False)),
            unexplained_why=t.doc["unexplained"]
            if isinstance(t.doc.get("unexplained"), str)
            else "",
            not_graded=t.str("not_graded", ""),
            missing=t.str("missing", ""),
            sample_test=t.str("sample_test", ""),
        )
        _check_claim(t, c)
        out.append((t, c))
    for t, c in out:
        _check_noise(t, c, deterministic)
    return [c for _, c in out]


#: The keys of a claim's ``explanation`` table, all required.
EXPLANATION_KEYS = ("hypothesis", "tested_by", "outcome")


def _hypothesis(
    path: str, where: str, doc: Any, outcome: bool = True, name: str = ""
) -> tuple[dict[str, str], Any]:
    """An explanation table's texts and the test it declares (``test = KIND``:
    :mod:`aqmlab.reproduce.hypotheses`, which computes its outcome when the table gives none);
    ``outcome=False``: a ``[hypothesis.NAME]`` may leave its outcome to each claim that names it
    (each claim tests it at its own point)."""
    from aqmlab.reproduce import hypotheses, hypothesis_modes

    e = _Table(path, where, doc, (*EXPLANATION_KEYS, *hypotheses.TEST_KEYS, hypothesis_modes.KEY))
    test = hypotheses.parse(e, name or where)
    # A table's outcome is required unless it is a shared one's (each claim may give its own)
    # or its test computes it.
    needed = (outcome and test is None) or "outcome" in e.doc
    keys = EXPLANATION_KEYS if needed else EXPLANATION_KEYS[:2]
    return hypothesis_modes.attach(e, {k: e.str(k) for k in keys}), test


def _explanation(t: _Table, shared: dict[str, tuple[dict[str, str], Any]]) -> list[tuple]:
    """A claim's ``explanation``: a table, the name of a ``[hypothesis.NAME]`` of the file,
    ``{ shared = "NAME", outcome = ... }`` (the shared hypothesis with this claim's outcome),
    or a list of them; each with the test it declares (or None)."""
    v = t.doc.get("explanation", [])
    out = []

    def named(name: Any, key: str) -> tuple[dict[str, str], Any]:
        if not isinstance(name, str) or name not in shared:
            raise t.error(
                key, f"a [hypothesis.NAME] of the file ({', '.join(shared) or 'none'}) or a table"
            )
        return shared[name]

    for i, e in enumerate(v if isinstance(v, list) else [v]):
        where = f"explanation[{i}]"
        if isinstance(e, str):
            h, test = named(e, "explanation")
            if "outcome" not in h and test is None:
                raise t.error(
                    "explanation",
                    f'{{ shared = "{e}", outcome = ... }}: [hypothesis.{e}] leaves the outcome '
                    "to each claim",
                )
            out.append((h, test))
        elif isinstance(e, dict) and "shared" in e:
            u = _Table(t.path, f"{t.where}.{where}", e, ("shared", "outcome"))
            h, test = named(e["shared"], f"{where}.shared")
            if "outcome" in h or test is not None:
                has = "one" if "outcome" in h else "its test's"
                raise u.error("outcome", f"no outcome: [hypothesis.{e['shared']}] has {has}")
            out.append(({**h, "outcome": u.str("outcome")}, None))
        else:
            out.append(_hypothesis(t.path, f"{t.where}.{where}", e))
    return out


def _check_claim(t: _Table, c: ClaimDef) -> None:
    u = t.doc.get("unexplained")
    if u is not None and not (u is True or (isinstance(u, str) and u)):
        raise t.error("unexplained", "true, or a text (what is untested)")
    if c.published is None:
        raise t.error("published", "the published value, as the source printed it")
    if c.kind == "not graded":
        if not c.not_graded:
            raise t.error("not_graded", "why the claim cannot be graded")
        return
    if not c.metric:
        raise t.error("metric", "the name of the metric that grades the claim")
    if not c.explanation and not c.unexplained:
        # Any graded claim can come out "differs" / "does not hold" (issue 19 item 4).
        raise t.error(
            "explanation",
            "explanation = { hypothesis = ..., tested_by = ..., outcome = ... } or "
            "unexplained = true (what a differs / does not hold is put down to)",
        )
    if c.kind == "numeric":
        if not isinstance(c.published, str):
            raise t.error("published", 'the number as printed, as a text ("2.7")')
        try:
            float(c.published)
        except ValueError:
            raise t.error("published", 'a number as printed ("2.7")') from None
        if c.read_off and not c.why:
            # Without a why the allowance is the printed digit's (docs/reproductions.md); a
            # read-off widens it and says where it comes from.
            raise t.error("why", "a text saying where the read-off allowance comes from")
        return
    if not c.arms or len(c.arms) > len(ARM_NAMES):
        raise t.error("arms", f"1 to {len(ARM_NAMES)} arms (values of arm_column)")
    if len(c.counterfactual_arms) != len(c.arms):
        raise t.error("counterfactual_arms", f"{len(c.arms)} arms, as many as arms")
    if not c.counterfactual:
        raise t.error("counterfactual", "what the counterfactual arms are, in words")
    _check_counterfactual(t, c)
    if not c.why:
        # Every threshold says where it comes from (issue 19): the source's word and how it is
        # read, or that the number is ours and why.
        raise t.error(
            "why",
            "a text saying where the predicate's threshold comes from: the source's word "
            "quoted and how it is read ('\"far below\" read as under 1/10'), or that the "
            "number is our reading and why",
        )
    if not c.delivered and not c.stalls:
        # Ties of runs that delivered nothing are no wins (docs/reproductions.md, "Ties and
        # stalled runs"): a qualitative or range claim names each arm's delivered share, or
        # says why its runs cannot stall (or what a stalled run does to it).
        raise t.error(
            "delivered",
            "each arm's delivered share of its link (a metric spelt as metric is), or "
            'stalls = "why no run of this claim can stall (or pass while stalled)"',
        )
    if c.resolution < 0:
        raise t.error("resolution", "the quantity's resolution, 0 or more")
    if not c.arm_column and "{arm}" not in c.metric:
        raise t.error("arm_column", "the table column the arms are values of")
    if not c.predicate:
        raise t.error("predicate", 'an expression of the arms ("a < b") or "py:FUNCTION"')
    if c.kind == "range" and not c.points and "{arm}" not in c.metric:
        raise t.error(
            "points",
            "the table columns whose combinations are the range's points (or a metric "
            "{arm} path to the module's {point: value} numbers)",
        )
    if c.kind == "qualitative" and c.points:
        raise t.error("points", "no points (a qualitative claim is one point; use kind = range)")
    if c.sample_test:  # the predicate names a test's quantities (sample_claims.py)
        sample_claims.check(t, c)
    elif not c.predicate.startswith("py:"):
        compile_predicate(c.predicate, len(c.arms), f"{t.path}: {t.where}", c.resolution)


def _check_noise(t: _Table, c: ClaimDef, deterministic: bool) -> None:
    """An order of an arm-dependent value (against another or a constant) is graded against our
    seeds' noise (docs/reproductions.md, "Ties and stalled runs"): where the seeds draw, such a
    claim names its per-seed values, or says why it has none."""
    if (c.per_seed or c.noise) and c.kind not in ("qualitative", "range"):
        raise t.error("per_seed" if c.per_seed else "noise", "only on a qualitative or range claim")
    if c.per_seed and "{arm}" in c.metric and "{arm}" not in c.per_seed:
        raise t.error("per_seed", "a numbers path with {arm}, in the shape of metric")
    if deterministic or c.per_seed or c.noise or c.kind not in ("qualitative", "range"):
        return
    if c.sample_test or c.predicate.startswith("py:"):
        return
    if ordering_on_arms(c.predicate):
        raise t.error(
            "per_seed",
            "the per-seed values of the metric (a numbers path in its shape whose leaves are "
            'lists in seed order, reduce = "list"; or the [table] column itself), or '
            'noise = "why this order needs no noise band": the predicate orders a value of '
            "the arms (against another or a constant) and the seeds draw",
        )


def _check_counterfactual(t: _Table, c: ClaimDef) -> None:
    """A counterfactual must be able to hold if the claim's difference did not exist: one that
    compares a configuration with itself (an arm twice), or is the claim's own arms, cannot
    tell anything from the claim (issue 19)."""
    cf = c.counterfactual_arms
    twice = sorted({a for a in cf if cf.count(a) > 1})
    if twice:
        raise AqmlabError(
            f"{t.path}: {t.where}: counterfactual_arms compares {twice[0]!r} with itself "
            f"({cf}); expected distinct arms, e.g. the claim's arms swapped"
        )
    if cf == c.arms:
        raise AqmlabError(
            f"{t.path}: {t.where}: counterfactual_arms are the claim's own arms ({cf}); "
            "expected a different configuration, e.g. the arms swapped"
        )
