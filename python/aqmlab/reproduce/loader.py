"""Run a reproduction's folder (:mod:`aqmlab.reproduce.folder`) into a
:class:`~aqmlab.reproduce.common.Reproduction`.

The steps, all declared but the figures (the folder's module, ``reproduction.py``, draws
them: ``figures(ctx)``; and a claim's ``"py:NAME"`` predicate or describe is its function):

1. the mode's parameters (``[quick]`` or ``[full]``) are read, the command line's options
   (``[options.NAME]``: cellular's ``--trace``) set theirs, those given as ``{ expr }`` are
   computed (:mod:`aqmlab.reproduce.param_expr`);
2. every ``[[sweep]]`` runs into ``OUT/<name>`` (its scenario copied beside it as
   ``OUT/<scenario file>``), each run reduced in the worker by its ``reduce``; the
   ``[[window]]`` and ``[[derive]]`` columns (:mod:`aqmlab.reproduce.metrics`) are added to a
   sweep's results;
3. ``[table]`` averages a sweep's results over seeds; the ``[numbers.NAME]`` are computed for
   the claims and for ``results.json``;
4. the hypothesis tests ``claims.toml`` declares run (:mod:`aqmlab.reproduce.hypotheses`),
   every claim is graded with :mod:`aqmlab.reproduce.common`'s model, and the tests explain the
   claims that do not hold where they find the same failure;
5. the ``[[report_table]]`` s and ``discussion`` paragraphs (:mod:`aqmlab.reproduce.report_table`,
   :mod:`aqmlab.reproduce.discussion`), then ``figures(ctx)``, make the report.

The module's other hooks (``prepare``, ``derive``, ``numbers``, ``annotate``, ``tables``,
``discussion``) each have a declared equivalent (:data:`RETIRED`): a module defining one is
refused, one line naming it and what to declare instead.
"""

from __future__ import annotations

import importlib.util
import math
import os
import re
import sys
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce import (
    claim_missing,
    claim_note,
    describe_expr,
    fill_format,
    fit,
    hypotheses,
    metrics,
    number_text,
    param_expr,
    published,
    reduced_columns,
    reference_frames,
    report_table,
    sample_claims,
)
from aqmlab.reproduce import common as cm
from aqmlab.reproduce import options as option_defs
from aqmlab.reproduce.discussion import paragraphs
from aqmlab.reproduce.fill_format import FORMATTER
from aqmlab.reproduce.folder import ClaimDef, Experiment
from aqmlab.reproduce.predicate import compile_predicate


@dataclass
class Context:
    """What a reproduction's steps fill in and its figures see."""

    experiment: Experiment
    out: str
    quick: bool
    seeds: list[int]
    jobs: int | None
    progress: bool
    options: dict[str, Any]
    #: The mode's parameters (``[quick]`` or ``[full]``), options and ``{ expr }`` computed.
    params: dict[str, Any]
    #: Sweep name -> its :class:`aqmlab.sweepresult.SweepResult`.
    sweeps: dict[str, Any] = field(default_factory=dict)
    #: Sweep name (or ``[frames.NAME]``) -> its results with the declared columns.
    frames: dict[str, Any] = field(default_factory=dict)
    #: The ``[table]``'s rows: means over seeds (a DataFrame), or None.
    table: Any = None
    #: The ``[table]`` before its mean over seeds: each cell the list of its runs' values in
    #: seed order (a claim's ``per_seed`` on a table column).
    table_seeds: Any = None
    #: Named values for claims and ``results.json`` (``[numbers.NAME]``).
    numbers: dict[str, Any] = field(default_factory=dict)
    #: Graded claims by id, once graded.
    claims: dict[str, cm.Claim] = field(default_factory=dict)
    #: The command that repeats this reproduction.
    command: str = ""
    #: Claim id -> the outcome of each test its hypotheses declare (one per entry of its
    #: ``explanation``, None where none): :mod:`aqmlab.reproduce.hypotheses`.
    tests: dict[str, list[Any]] = field(default_factory=dict)

    def fill(self, text: str) -> str:
        """``text`` with ``{param}`` (and ``{param:g}``-style) fields replaced by the mode's
        parameters, ``{out}`` by the output folder; after the runs, a named number too
        (``{best_buffer[512 kb/s]}``)."""
        try:
            return FORMATTER.vformat(text, (), {**self.numbers, **self.params, "out": self.out})
        except (KeyError, IndexError, ValueError, AttributeError) as e:
            raise AqmlabError(
                f"{self.experiment.folder}: {text!r}: no parameter {e} in [quick]/[full]"
            ) from None

    def value(self, v: Any) -> Any:
        """A value of the experiment file: a text that is exactly ``"{param}"`` becomes the
        parameter's value (its type kept), other texts are filled in, lists and tables
        recursively."""
        if isinstance(v, str):
            m = re.fullmatch(r"\{(\w+)\}", v)
            if m and m.group(1) in self.params:
                return self.params[m.group(1)]
            return self.fill(v) if "{" in v else v
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, dict):
            return {k: self.value(x) for k, x in v.items()}
        return v


#: The module's hooks the loader no longer calls, each with the declared feature that does what
#: it did (docs/reproductions.md, "The module"). No built-in reproduction defines one: each
#: last use became the declaration named here.
RETIRED = {
    "prepare": "[options.NAME] and { expr = ... } parameters of [full]/[quick] (with their "
    "set, unset, keep and sweeps)",
    "derive": "[[derive]] or [[window]] columns, or a [[sweep]]'s reduce",
    "numbers": "[numbers.NAME]",
    "annotate": "a claim's note = { text, when } or a hypothesis test in claims.toml",
    "tables": "[[report_table]]",
    "discussion": "discussion paragraphs { text, when }",
}


def load_module(exp: Experiment) -> ModuleType | None:
    """The folder's module (its figures and ``py:`` functions), loaded; a module defining a
    retired hook (:data:`RETIRED`) is refused, naming the module, the function and what to
    declare instead."""
    if exp.module is None:
        return None
    name = f"aqmlab_reproduction_{exp.name.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(name, exp.module)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    for hook, instead in RETIRED.items():
        fn = getattr(mod, hook, None)
        if callable(fn) and getattr(fn, "__module__", None) == name:
            raise AqmlabError(
                f"{exp.module}: {hook}(): the loader no longer calls a module's {hook}; "
                f"declare it in experiment.toml as {instead} (docs/reproductions.md): the "
                "module holds the figures and py: predicates"
            )
    return mod


def run(
    exp: Experiment,
    out: str,
    quick: bool,
    seeds: list[int],
    jobs: int | None,
    progress: bool,
    options: dict[str, Any],
    command: str,
) -> cm.Reproduction:
    from aqmlab.reproduce import windows
    from aqmlab.sweepspec import SweepSpec

    mod = load_module(exp)
    mode = exp.modes["quick" if quick else "full"]
    ctx = Context(exp, out, quick, seeds, jobs, progress, options, dict(mode["params"]))
    ctx.command = command
    # The command line's options ([options.NAME]), then the parameters computed from the others.
    option_defs.apply(exp.options, options, ctx.params)
    param_expr.compute(ctx.params, f"{exp.folder}/experiment.toml: {'quick' if quick else 'full'}")
    os.makedirs(out, exist_ok=True)
    for s in exp.sweeps:
        if mode["sweeps"] and s.name not in mode["sweeps"]:
            continue  # the mode runs only the sweeps it names
        sets = {**ctx.value(s.sets), **ctx.value(mode["set"])}
        axes = [_keep(a, mode["keep"], ctx) for a in s.axes]
        unset = [*s.unset, *mode["unset"]]
        _write_scenario(s.scenario, sets, unset, os.path.join(out, s.written_as))
        spec = SweepSpec(
            s.scenario,
            axes,
            sets,
            ctx.seeds,
            unset=unset,
            reduce=s.reduce or None,
            reduce_args=s.reduce_args,
        )
        res = cm.run_sweep_or_fail(
            spec, os.path.join(out, s.name), exp.name, quick, jobs, progress, command=command
        )
        ctx.sweeps[s.name] = res
        runs = os.path.join(out, s.name, "runs")
        df = res.results.copy()
        df = reduced_columns.add(df, res.out) if s.reduce else df
        df = windows.columns(df, exp.windows, s.name, runs, ctx.fill)
        ctx.frames[s.name] = metrics.derive(df, exp.derives, s.name, ctx.fill)
    ctx.frames.update(reference_frames.frames(exp.frames, exp.derives, ctx.fill, ctx.frames))
    if exp.table is not None:
        t = exp.table
        df = ctx.frames[t.sweep]
        for col in t.columns.values():
            if col not in df.columns:
                raise AqmlabError(
                    f"{exp.folder}: table.columns: no column {col!r} in the results of sweep "
                    f"{t.sweep!r}"
                )
        ctx.table = (
            df.groupby(t.by, sort=False)
            .agg(**{name: (col, "mean") for name, col in t.columns.items()})
            .reset_index()
        )
        ctx.numbers[t.name] = ctx.table.to_dict("records")
        seeded = df.sort_values("seed", kind="stable") if "seed" in df.columns else df
        ctx.table_seeds = (
            seeded.groupby(t.by, sort=False)
            .agg(**{name: (col, list) for name, col in t.columns.items()})
            .reset_index()
        )
    declared_numbers(ctx)
    ctx.tests = hypotheses.run(ctx, mod)
    for c in exp.claims:
        ctx.claims[c.id] = grade(c, ctx, mod)
    hypotheses.settle(ctx)
    if quick and mode["note"]:
        for claim in ctx.claims.values():
            claim.add_note(ctx.fill(mode["note"]))
    tables = []
    if exp.table is not None:
        t = exp.table
        cols = [*t.by, *t.columns]
        tables.append(
            cm.Table(
                ctx.fill(t.title) if t.title else "Means over seeds",
                [t.headers.get(k, k) for k in cols],
                [list(r) for r in ctx.table[cols].itertuples(index=False, name=None)],
                ctx.fill(t.note) if t.note else "",
            )
        )
    tables += report_table.build(exp.report_tables, ctx)
    discussion = paragraphs(exp.discussion, ctx)
    figures = (mod.figures(ctx) if callable(getattr(mod, "figures", None)) else None) or []
    commands = [command] + [ctx.fill(c) for c in exp.commands]
    return cm.Reproduction(
        exp.name,
        exp.title,
        exp.sources,
        ctx.value(exp.parameters) if exp.parameters else dict(ctx.params),
        list(ctx.claims.values()),
        tables,
        figures,
        {k: v for k, v in ctx.numbers.items() if not k.startswith("_")},
        discussion,
        quick,
        ctx.seeds,
        commands=commands,
    )


def declared_numbers(ctx: Context) -> None:
    """The experiment's ``[numbers.NAME]`` over ``ctx.frames``, into ``ctx.numbers``."""
    for nd in ctx.experiment.numbers:
        if isinstance(nd, fit.FitDef):
            ctx.numbers[nd.name] = fit.compute(nd, ctx)
            continue
        if isinstance(nd, published.PublishedDef):
            ctx.numbers[nd.name] = published.compute(nd, ctx.experiment.claims)
            continue
        if isinstance(nd, number_text.TextDef):
            ctx.numbers[nd.name] = number_text.compute(nd, ctx)
            continue
        refs = {f.name for f in getattr(ctx.experiment, "frames", [])}  # read when named
        frames = {
            k: v for k, v in ctx.frames.items() if getattr(nd, "sweeps", None) or k not in refs
        }
        ctx.numbers[nd.name] = metrics.compute(nd, frames, ctx.fill, ctx.numbers)


def _keep(a: Any, keep: dict[str, list[Any]], ctx: Context) -> Any:
    """Axis ``a`` with its parameters filled in, and only the values the mode's ``keep`` lists
    for its column (in the axis's order)."""
    from aqmlab.sweepspec import Axis

    col = a.keys[0]
    values = [v for v in a.values if col not in keep or v[0] in keep[col]]
    if not values:
        raise AqmlabError(f"{ctx.experiment.folder}: keep.{col}: no value of the axis is kept")
    if a.cases is not None:
        return Axis(a.keys, values, {v[0]: ctx.value(a.cases[v[0]]) for v in values})
    return Axis(a.keys, [tuple(ctx.value(list(v))) for v in values])


def _write_scenario(scenario: str, sets: dict[str, Any], unset: list[str], path: str) -> None:
    """The sweep's scenario with its fixed overrides, resolved (every default written out), as
    ``path``: ``aqmlab run PATH`` repeats the sweep's base run."""
    from aqmlab.run import load

    header = f"# The scenario {os.path.basename(scenario)} with the sweep's fixed overrides.\n"
    if os.path.isdir(path):
        raise AqmlabError(
            f"{path}: a folder where this reproduction writes its copy of "
            f"{os.path.basename(scenario)}: choose another output folder (--out)"
        )
    if os.path.lexists(path):
        # Only a copy an earlier run of the reproduction wrote is replaced: with --out naming
        # the reproduction's own folder (or any folder holding a user's file of that name)
        # this would write over the user's scenario.
        with open(path, encoding="utf-8", errors="replace") as f:
            if f.readline() != header:
                raise AqmlabError(
                    f"{path}: a file this reproduction did not write (its copy of "
                    f"{os.path.basename(scenario)} starts with {header.strip()!r}), so it "
                    "will not replace it: choose another output folder (--out)"
                )
    text = load(scenario, set=sets, unset=unset).resolved_toml()
    with open(path, "w", encoding="utf-8") as f:
        f.write(header)
        f.write(text)


def grade(c: ClaimDef, ctx: Context, mod: ModuleType | None) -> cm.Claim:
    """Grade claim ``c`` on the context's table and numbers."""
    where = f"{ctx.experiment.folder}/claims.toml: claim {c.id!r}"
    if claim_missing.absent(ctx, c):  # no number this run: not graded, saying why
        return claim_missing.not_graded(ctx, c)
    if c.kind == "not graded":
        claim = cm.not_graded(c.claim, c.source, c.published, c.not_graded)
    elif c.kind == "numeric":
        claim = cm.numeric(
            c.claim,
            c.source,
            ctx.fill(c.measured) if c.measured else c.metric,
            c.published,
            _number(ctx, c, where),
            why=c.why,
            read_off=c.read_off,
            spread=_spread(ctx, c, where),
            seeds=len(ctx.seeds),
            digits=c.digits,
        )
    else:
        pred = _predicate(c, mod, where)
        describe = _describe(c, mod, where)
        points = _points(ctx, c, c.arms, where)
        cf_points = _points(ctx, c, c.counterfactual_arms, where)
        if c.delivered:
            # Each point's values with its arms' delivered shares; every arm stalled: a tie.
            pred = _unless_stalled(pred)
            d = _points(ctx, c, c.arms, where, metric=c.delivered)
            cf_d = _points(ctx, c, c.counterfactual_arms, where, metric=c.delivered)
            points = {k: _Point(v, d[k]) for k, v in points.items()}
            cf_points = {k: _Point(v, cf_d[k]) for k, v in cf_points.items()}
        if c.per_seed:
            # Each point's values seed by seed: an order within their noise is no pass.
            points = _with_seeds(ctx, c, points, c.arms, where)
            cf_points = _with_seeds(ctx, c, cf_points, c.counterfactual_arms, where)
        if c.kind == "qualitative":
            (ours,), (cf,) = points.values(), cf_points.values()
            claim = cm.qualitative(
                c.claim,
                c.source,
                ctx.fill(c.measured) if c.measured else c.metric,
                c.published,
                pred,
                ours,
                c.counterfactual,
                cf,
                describe=describe,
            )
        else:
            claim = cm.over_range(
                c.claim,
                c.source,
                ctx.fill(c.measured) if c.measured else c.metric,
                c.published,
                pred,
                points,
                c.counterfactual,
                cf_points,
                describe=describe,
                most=c.most,
            )
    if c.kind in ("qualitative", "range"):
        if claim.verdict in (cm.HOLDS, cm.FAILS) and _noise_could_undo(c, ctx):
            # An order our seeds' noise could undo, decided where that noise was not assessed:
            # at the points that decide (a range's ties and points within noise decide nothing).
            undecided = {r["point"] for r in claim.points if r["tie"] or r["stalled"] or r["noise"]}
            per_seed = {
                k: getattr(v, "per_seed", None) for k, v in points.items() if k not in undecided
            }
            unassessed = cm.noise_not_assessed(per_seed, list(ctx.seeds))
            if unassessed:
                claim.add_note(unassessed)
        # The threshold's reason first, then how the verdict is reached.
        claim.why = f"{ctx.fill(c.why)}; {claim.why}"
        if c.stalls:
            claim.why += f"; no delivered share: {ctx.fill(c.stalls)}"
    claim_note.add(claim, c.note, c.note_when, ctx, where)
    explain(claim, c, ctx)
    claim = claim_missing.no_points(claim, c, ctx.fill)
    claim.id = c.id
    claim.location = c.location
    return claim


def _noise_could_undo(c: ClaimDef, ctx: Context) -> bool:
    """Whether claim ``c``'s verdict rests on an order within which our seeds' noise could lie
    (docs/reproductions.md, "Ties and stalled runs"): it declares ``per_seed``, or its
    predicate has an ordering comparison with an arm-dependent side; never in a
    ``deterministic`` reproduction."""
    from aqmlab.reproduce.predicate import ordering_on_arms

    if getattr(ctx.experiment, "deterministic", False) or c.sample_test:
        return False
    return bool(c.per_seed) or (not c.predicate.startswith("py:") and ordering_on_arms(c.predicate))


def explain(claim: cm.Claim, c: ClaimDef, ctx: Context) -> None:
    """A ``differs`` / ``does not hold``: the claim's hypothesis, the run that tests it and its
    outcome (``claims.toml``'s ``explanation``), or ``unexplained``, as fields of the claim and
    as one text for the report. Other verdicts carry none."""
    if claim.verdict not in (cm.DIFFERS, cm.FAILS):
        claim.explanation = ""
        return
    # A hypothesis whose table gives no outcome has it from its test (the tests not run when
    # a claim is graded alone, outside a reproduction's run).
    from aqmlab.reproduce import hypothesis_modes

    tests = getattr(ctx, "tests", {}).get(c.id) or [None] * len(c.explanation)
    pairs = hypothesis_modes.in_mode(c.explanation, tests, getattr(ctx, "quick", False))
    claim.hypotheses = [
        {k: ctx.fill(v) for k, v in h.items()}
        | ({} if "outcome" in h else {"outcome": r.text if r else "(its test was not run)"})
        for h, r in pairs
    ]
    claim.unexplained = c.unexplained or not pairs
    claim.explanation = cm.explanation_text(
        claim.hypotheses, claim.unexplained, ctx.fill(c.unexplained_why)
    )


class _Point(tuple):
    """A point's arm values (the tuple) with each arm's delivered share of its link and each
    arm's per-seed values (lists in seed order), where the claim declares them (or None)."""

    delivered: tuple | None
    per_seed: tuple | None

    def __new__(cls, values: tuple, delivered: Any, per_seed: Any = None) -> _Point:
        t = super().__new__(cls, values)
        t.delivered = None if delivered is None else tuple(delivered)
        t.per_seed = None if per_seed is None else tuple(per_seed)
        return t


def _with_seeds(ctx: Any, c: ClaimDef, points: dict[str, Any], arms: list[str], where: str) -> Any:
    """``points`` (point -> the arms' values, :func:`_points`'s, with their delivered shares)
    with each point's per-seed values, read at the claim's ``per_seed`` in ``ctx`` (the
    claim's grading, and the hypothesis tests on their own runs' numbers: hypotheses.py)."""
    s = _points(ctx, c, arms, where, metric=c.per_seed, per_seed=True)
    return {k: _Point(v, getattr(v, "delivered", None), _at(s, k)) for k, v in points.items()}


def _at(per_seed: dict[str, Any], point: str) -> Any:
    """A point's per-seed values: by its name, or by its name up to the first ``" ("`` (an
    interpolated point's abscissa differs seed by seed: matched.py's ``seeds``)."""
    if point in per_seed:
        return per_seed[point]
    return per_seed.get(point.split(" (")[0])


def _unless_stalled(pred: Any) -> Any:
    """``pred``, except at a point where every arm's run delivered less than the stalled
    fraction of its link: a tie of runs that delivered almost nothing (:data:`cm.STALLED`)."""

    def run(values: Any) -> Any:
        d = getattr(values, "delivered", None)
        if d is not None and all(cm.stalled(float(x)) for x in d):
            return cm.STALLED
        return pred(values)

    return run


def _named(ctx: Context, path: str) -> Any:
    """The number at ``path`` in ``ctx.numbers`` (``"cases.CoDel.p50_ms"``: keys joined by
    dots, a key itself holding none), or None where there is none."""
    if path in ctx.numbers:  # a name that is itself a key (the first format's), dots and all
        return ctx.numbers[path]
    v: Any = ctx.numbers
    for k in split_path(path):
        if not isinstance(v, dict) or k not in v:
            return None
        v = v[k]
    return v


def split_path(path: str) -> list[str]:
    """``cells."1.5 Mb/s".down`` -> ``["cells", "1.5 Mb/s", "down"]``: keys joined by dots, a
    key holding a dot in double quotes (as TOML's dotted keys)."""
    return [a if a else b for a, b in re.findall(r'"([^"]*)"|([^.]+)', path)]


def _number(ctx: Context, c: ClaimDef, where: str) -> float | None:
    v = _named(ctx, c.metric)
    if v is not None and not isinstance(v, (dict, list)):
        return float(v)
    if c.metric in ctx.numbers or split_path(c.metric)[0] in ctx.numbers:
        raise AqmlabError(
            f"{where}: metric {c.metric!r}: not a number of the run's numbers ([numbers.NAME])"
        )
    rows = _rows(ctx, c, where)
    if len(rows) != 1:
        raise AqmlabError(
            f"{where}: metric {c.metric!r}: expected one row of the table where {c.where}, "
            f"found {len(rows)}"
        )
    return float(rows[c.metric].iloc[0])


def _spread(ctx: Context, c: ClaimDef, where: str) -> float | None:
    if not c.spread:
        return None
    if c.spread not in ctx.numbers and split_path(c.spread)[0] not in ctx.numbers:
        raise AqmlabError(f"{where}: spread: no number {c.spread!r} ([numbers.NAME] names it)")
    v = _named(ctx, c.spread)
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def _rows(ctx: Context, c: ClaimDef, where: str, per_seed: bool = False) -> Any:
    g = ctx.table_seeds if per_seed else ctx.table
    if g is None:
        raise AqmlabError(
            f"{where}: metric {c.metric!r}: no such number, and the experiment has no [table]"
        )
    if c.metric not in g.columns:
        raise AqmlabError(
            f"{where}: metric {c.metric!r}: no such number or table column "
            f"(the table has {', '.join(map(str, g.columns))})"
        )
    sel = g
    for k, vals in c.where.items():
        if k not in g.columns:
            raise AqmlabError(f"{where}: where.{k}: no such table column")
        sel = sel[sel[k].isin(vals)]
    return sel


def _points(
    ctx: Context,
    c: ClaimDef,
    arms: list[str],
    where: str,
    metric: str = "",
    per_seed: bool = False,
) -> dict[str, tuple]:
    """Point name -> the arms' values of the metric there (a qualitative claim: one point);
    ``metric`` instead of the claim's own (its ``delivered``); ``per_seed``: each value a list
    of per-seed values (its ``per_seed``: a numbers path whose leaves are lists, or a
    ``[table]`` column read from the table's per-seed lists)."""
    if metric:
        from dataclasses import replace

        c = replace(c, metric=metric)
    if c.sample_test:  # each arm a sample (sample_claims.py)
        return sample_claims.points(ctx, c, arms, where)
    named = ctx.numbers.get(c.metric)
    if isinstance(named, dict) and not c.points and "{arm}" not in c.metric:
        # The first format's spelling: the numbers name {arm: value} under the metric.
        missing = [a for a in arms if a not in named]
        if missing:
            raise AqmlabError(f"{where}: arms: {missing} not among {list(named)}")
        return {"": tuple(named[a] for a in arms)}
    if "{arm}" in c.metric:
        vals = []
        for a in arms:
            v = _named(ctx, c.metric.replace("{arm}", a))
            one = isinstance(v, (int, float)) and not isinstance(v, bool)  # a range's baseline
            if per_seed:
                one = isinstance(v, list)
                ok = isinstance(v, dict) or one if c.kind == "range" else one
            else:
                ok = (
                    isinstance(v, dict) or one
                    if c.kind == "range"
                    else not isinstance(v, (dict, list))
                )
            if v is None or isinstance(v, str) or not ok:
                what = "{point: number}" if c.kind == "range" else "number"
                what = f"per-seed list (per_seed: {what} with lists)" if per_seed else what
                raise AqmlabError(
                    f"{where}: metric {c.metric!r}: no {what} for arm {a!r} in the run's numbers"
                )
            vals.append(v)
        if c.kind != "range":
            return {"": tuple(vals)}
        # A range over the module's points: each arm a {point: value}, the first such arm's
        # points; an arm that is one number is that number at every point (a baseline).
        tables = [v for v in vals if isinstance(v, dict)]
        if not tables:
            raise AqmlabError(f"{where}: metric {c.metric!r}: no arm is a {{point: number}}")
        pts = tables[0]
        missing = [
            (a, p) for a, v in zip(arms, vals) if isinstance(v, dict) for p in pts if p not in v
        ]
        if missing:
            raise AqmlabError(f"{where}: arm {missing[0][0]!r} has no point {missing[0][1]!r}")
        return {p: tuple(v[p] if isinstance(v, dict) else v for v in vals) for p in pts}
    if per_seed and ctx.table_seeds is None:
        return {}  # a table a hook set, not the declared [table]'s: no per-seed values
    sel = _rows(ctx, c, where, per_seed)
    if c.arm_column not in sel.columns:
        raise AqmlabError(f"{where}: arm_column: no table column {c.arm_column!r}")
    groups = sel.groupby(c.points, sort=False) if c.points else [((), sel)]
    out = {}
    for key, rows in groups:
        key = key if isinstance(key, tuple) else (key,)
        vals = []
        for a in arms:
            r = rows[rows[c.arm_column] == a]
            if len(r) != 1:
                raise AqmlabError(
                    f"{where}: arm {a!r}: expected one row at point {key}, found {len(r)}"
                )
            vals.append(r[c.metric].iloc[0])
        if c.point_name:
            name = c.point_name.format(**dict(zip(c.points, key)))
        else:
            name = ", ".join(str(k) for k in key)
        out[name] = tuple(vals)
    return out


def _predicate(c: ClaimDef, mod: ModuleType | None, where: str) -> Any:
    if c.sample_test:  # the predicate names the test's quantities (sample_claims.py)
        return sample_claims.predicate(c, where)
    if c.predicate.startswith("py:"):
        fn = getattr(mod, c.predicate[3:], None) if mod is not None else None
        if fn is None:
            raise AqmlabError(
                f"{where}: predicate {c.predicate!r}: the module has no such function"
            )
        return fn
    return compile_predicate(c.predicate, len(c.arms), where, c.resolution)


def _describe(c: ClaimDef, mod: ModuleType | None, where: str) -> Any:
    from aqmlab.reproduce.predicate import ARM_NAMES

    if c.sample_test:
        return sample_claims.describe(c)
    if c.describe.startswith("py:"):
        fn = getattr(mod, c.describe[3:], None) if mod is not None else None
        if fn is None:
            raise AqmlabError(f"{where}: describe {c.describe!r}: the module has no such function")
        return fn
    template = c.describe or " vs ".join("{" + n + "}" for n in ARM_NAMES[: len(c.arms)])
    if describe_expr.has_expressions(template, ARM_NAMES[: len(c.arms)]):
        return describe_expr.compile_describe(template, ARM_NAMES[: len(c.arms)], where)

    def describe(values: tuple) -> str:
        return fill_format.describe(template, dict(zip(ARM_NAMES, values)))

    return describe
