"""The hypothesis test ``test = "arms"`` (docs/reproductions.md, "Hypothesis tests"): a
qualitative or range claim's predicate on other arms, at the points where it fails on its own.
A hypothesis that puts a claim's failure down to one arm's configuration ("RED's settings") is
tested by an arm set otherwise run beside the same other arm: ``confirmed`` where the predicate
passes on it at every failing point, ``refuted`` at none, ``unexplained`` at some, or where a
point lacks a run (the common rule, :func:`aqmlab.reproduce.hypotheses.outcome`).

``compare`` holds one or more named comparisons, run in order, each of:

* ``arms``: the arms the claim's predicate is evaluated on, in place of its own: values of its
  ``arm_column`` (a ``[table]`` claim) or keys its metric's ``{arm}`` takes;
* ``frames``: ``[frames.NAME]`` whose rows join the ``[table]``'s for this comparison, in the
  table's columns (another simulator's runs of the same set-up: red-vs-codel's ns-2.35
  Queue/RED beside our CoDel);
* ``at``: the points it is evaluated at: the claim's failing points (default), ``"all"`` (every
  point of the claim) or the name of an earlier comparison of the claim (the points that one
  leaves: where it does not hold, or lacks a run);
* ``expect = false``: it holds where the predicate does not pass (the same failure on a
  reference); ``factor``: it holds where ``a ÷ b`` is within ``[1/factor, factor]`` (the same
  queue as a reference's), instead of the claim's predicate;
* ``each`` and ``text``: the outcome's words, templates as a ``[[discussion]]``'s
  (:mod:`aqmlab.reproduce.report_text`): ``each`` per point (fields ``point``, the arms' values
  ``a``, ``b``, ...; ``ratio`` = a ÷ b), ``text`` of ``each`` (the points' texts), ``points``,
  ``tested``, ``held``, ``left`` (lists of point names), ``ratios`` (a ÷ b at each point with
  both), ``outcome`` and ``factor``;
* ``numbers``: where the comparison's ``outcome``, ``text``, ``held`` (how many points) and
  ``points`` (of how many) go among the run's numbers, paths spelt as a claim's ``metric``
  (written before the claims are graded: an ``outcome`` template or a paragraph names them,
  ``results.json`` keeps those not starting with ``_``);
* ``explains = true``: after grading, a claim that does not hold is explained when one of its
  comparisons so marked is confirmed, and otherwise left unexplained, the hypothesis's
  ``leaves`` saying why.

Values are read and the predicate evaluated under the claims' rules (a tie, or a point whose
every arm's run is stalled, is no pass), with the arms' per-seed values where the claim
declares ``per_seed``: an order within our seeds' noise is neither a pass nor a failure
(docs/reproductions.md, "Ties and stalled runs"; a point ours has within noise is no failure
to test). A comparison whose points pass or are within noise, one or more within it, is
``cannot tell: within our seeds' noise`` (the common rule), its text followed by each such
point's numbers. A comparison with ``frames`` has none (another simulator's means over its
seeds), nor has ``factor`` (a ratio's band, not the predicate).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce.hypotheses import (
    CONFIRMED,
    NOISY,
    Result,
    Test,
    is_noise,
    noise_words,
    outcome,
    put_number,
)

KIND = "arms"
KEYS = ("test", "compare", "leaves")
COMPARE_KEYS = ("arms", "frames", "at", "expect", "factor", "each", "text", "numbers", "explains")
NUMBER_KEYS = ("outcome", "text", "held", "points")
TEXT_FIELDS = ("each", "points", "tested", "held", "left", "ratios", "outcome", "factor")


@dataclass
class Comparison:
    """One comparison of ``compare`` (see the module's docstring)."""

    name: str
    arms: list[str]
    frames: list[str] = field(default_factory=list)
    at: str = ""
    expect: bool = True
    factor: float | None = None
    each: str = "{point}: {a} vs {b}"
    text: str = "{choose(len(each) > 0, join(each, '; '), 'none')}: {outcome}"
    numbers: dict[str, str] = field(default_factory=dict)
    explains: bool = False
    where: str = ""


@dataclass
class ArmsTest(Test):
    compare: list[Comparison] = field(default_factory=list)
    leaves: str = ""


def parse(t: Any, name: str) -> ArmsTest:
    """A ``test = "arms"`` table's keys (``t``: folder._Table), checked: errors name the file,
    the table and the key."""
    from aqmlab.reproduce.folder import _Table
    from aqmlab.reproduce.hypotheses import TEST_KEYS
    from aqmlab.reproduce.report_text import check_template

    extra = [k for k in TEST_KEYS if k in t.doc and k not in KEYS]
    if extra:
        raise t.error(extra[0], f"no such key for test = '{KIND}' ({', '.join(KEYS)})")
    compare = t.table("compare")
    if not compare:
        raise t.error("compare", "a table of named comparisons, each { arms = [...], ... }")
    out: list[Comparison] = []
    for cname, d in compare.items():
        u = _Table(t.path, f"{t.where}.compare.{cname}", d, COMPARE_KEYS)
        arms = u.strs("arms")
        if len(arms) < 2:
            raise u.error("arms", "a list of two or more arms")
        at = u.str("at", "")  # an earlier comparison's name is checked at each claim
        factor = u.doc.get("factor")
        if factor is not None and (
            isinstance(factor, bool) or not isinstance(factor, (int, float)) or factor <= 1
        ):
            raise u.error("factor", "a number above 1 (a ÷ b within [1/factor, factor])")
        if factor is not None and len(arms) != 2:
            raise u.error("arms", "two arms with factor (a ÷ b)")
        for k in ("expect", "explains"):
            if not isinstance(u.doc.get(k, False), bool):
                raise u.error(k, "true or false")
        numbers = u.table("numbers")
        for k, v in numbers.items():
            if k not in NUMBER_KEYS or not isinstance(v, str) or not v:
                raise u.error("numbers", f"a table of {' / '.join(NUMBER_KEYS)} = a number's path")
        c = Comparison(
            cname,
            arms,
            u.strs("frames"),
            at,
            bool(u.doc.get("expect", True)),
            None if factor is None else float(factor),
            numbers=dict(numbers),
            explains=bool(u.doc.get("explains", False)),
            where=f"{t.path}: {u.where}",
        )
        for k in ("each", "text"):
            if k in u.doc:
                setattr(c, k, u.str(k))
            check_template(getattr(c, k), f"{c.where}.{k}")
        out.append(c)
    return ArmsTest(name, KIND, "", "", compare=out, leaves=t.str("leaves", ""))


def run(t: ArmsTest, c: Any, ctx: Any, mod: Any, earlier: list[Any]) -> Result:
    """Each comparison of ``t`` for claim ``c`` (``earlier``: the claim's results so far, for
    ``at``), its numbers written to ``ctx.numbers``: a :class:`Result` whose ``points`` maps
    each comparison's name to ``outcome``, ``points``, ``tested``, ``held``, ``left``, ``text``
    and ``explains``."""
    from aqmlab.reproduce import loader

    where = f"{ctx.experiment.folder}/claims.toml: claim {c.id!r}: hypothesis {t.name!r}"
    if c.kind not in ("qualitative", "range"):
        raise AqmlabError(f"{where}: test = '{KIND}' tests a qualitative or range claim")
    pred = loader._predicate(c, mod, where)
    if c.delivered:
        pred = loader._unless_stalled(pred)
    own = _values(ctx, c, c.arms, [], where)
    # Ours within noise is no failure to test (hypotheses.failing_points).
    failing = [
        p for p, v in own.items() if None in v or ((r := pred(v)) is not True and not is_noise(r))
    ]
    done = {n: r for e in earlier if isinstance(e.test, ArmsTest) for n, r in e.points.items()}
    records: dict[str, Any] = {}
    for cmp in t.compare:
        if cmp.factor is None and len(cmp.arms) != len(c.arms):
            raise AqmlabError(
                f"{cmp.where}.arms: {len(c.arms)} arms, as claim {c.id!r}'s predicate takes"
            )
        if not cmp.at:
            pts = failing
        elif cmp.at == "all":
            pts = list(own)
        elif cmp.at in {**done, **records}:
            pts = {**done, **records}[cmp.at]["left"]
        else:
            raise AqmlabError(
                f"{cmp.where}.at: no comparison {cmp.at!r} of claim {c.id!r} before it"
            )
        vals = _values(ctx, c, cmp.arms, cmp.frames, f"{cmp.where}.arms")
        tested = [p for p in pts if p in vals and None not in vals[p]]
        noise: dict[str, Any] = {}
        if cmp.factor is None:
            got = {p: pred(vals[p]) for p in tested}
            noise = {p: r for p, r in got.items() if is_noise(r)}
            held = [p for p in tested if p not in noise and (got[p] is True) == cmp.expect]
        else:
            tested = [p for p in tested if _nonzero(vals[p][0]) and _nonzero(vals[p][1])]
            f = cmp.factor
            held = [p for p in tested if 1.0 / f <= vals[p][0] / vals[p][1] <= f]
        rec = {
            "outcome": outcome(pts, tested, held, noise),
            "points": list(pts),
            "tested": tested,
            "held": held,
            "left": [p for p in pts if p not in held],
            "explains": cmp.explains,
        }
        rec["text"] = _text(ctx, cmp, rec, vals)
        if noise:  # whatever the template says: the points it cannot tell, with their numbers
            rec["text"] += f"; {NOISY} at {', '.join(noise)} ({noise_words(noise)})"
        rec["noise"] = noise
        records[cmp.name] = rec
        for k, path in cmp.numbers.items():
            v = rec[k] if k in ("outcome", "text") else len(rec[k])
            put_number(ctx.numbers, loader.split_path(path), v, f"{cmp.where}.numbers.{k}")
    noise = {p: r for rec in records.values() for p, r in rec["noise"].items()}
    return Result(t, "; ".join(r["text"] for r in records.values()), records, noise=noise)


def _nonzero(x: Any) -> bool:
    return bool(x) and not (isinstance(x, float) and math.isnan(x))


def _text(ctx: Any, cmp: Comparison, rec: dict[str, Any], vals: dict[str, Any]) -> str:
    from aqmlab.reproduce.predicate import ARM_NAMES
    from aqmlab.reproduce.report_text import fill

    each, ratios = [], []
    for p in rec["points"]:
        v = vals.get(p, (None,) * len(cmp.arms))
        arms = {
            a: None if x is None or (isinstance(x, float) and math.isnan(x)) else x
            for a, x in zip(ARM_NAMES, v)
        }
        ratio = arms["a"] / arms["b"] if _nonzero(arms["a"]) and _nonzero(arms["b"]) else None
        if ratio is not None:
            ratios.append(ratio)
        each.append(fill(ctx, cmp.each, {"point": p, **arms, "ratio": ratio}, f"{cmp.where}.each"))
    fields = {**{k: rec[k] for k in TEXT_FIELDS[1:5]}, "ratios": ratios}
    fields |= {"each": each, "outcome": rec["outcome"], "factor": cmp.factor}
    return str(fill(ctx, cmp.text, fields, f"{cmp.where}.text"))


def _values(ctx: Any, c: Any, arms: list[str], frames: list[str], where: str) -> dict[str, Any]:
    """Point -> the arms' values there (with each arm's delivered share, when the claim has
    ``delivered``, and per-seed values, when it has ``per_seed``), None for an arm without a
    run there: from the ``[table]`` and the ``frames``' rows (the ``[table]`` read seed by
    seed, as the claim's own grading reads it, where there are no ``frames``: theirs are
    means), or from the numbers the claim's ``{arm}`` metric names."""
    if "{arm}" in c.metric:
        if frames:
            raise AqmlabError(f"{where}: frames: only for a claim on the [table]'s columns")
        return _named_values(ctx, c, arms)
    parts = [ctx.table]
    for f in frames:
        if f not in ctx.frames:
            raise AqmlabError(f"{where}: frames: no frame {f!r} ran in this mode")
        parts.append(ctx.frames[f])
    cols = [*c.points, c.arm_column, c.metric, *([c.delivered] if c.delivered else [])]
    for f, df in zip(["[table]", *frames], parts):
        missing = [k for k in [*cols, *c.where] if k not in df.columns]
        if missing:
            raise AqmlabError(f"{where}: {f} has no column {missing[0]!r}")
    cells = _cells(c, arms, parts, cols, where)
    seeds: dict[str, Any] = {}
    table_seeds = getattr(ctx, "table_seeds", None)
    if c.per_seed and not frames and table_seeds is not None:
        cols = [*c.points, c.arm_column, c.per_seed]
        seeds = {p: v[c.per_seed] for p, v in _cells(c, arms, [table_seeds], cols, where).items()}
    return {
        p: _point(v[c.metric], v.get(c.delivered) if c.delivered else None, seeds.get(p))
        for p, v in cells.items()
    }


def _cells(
    c: Any, arms: list[str], parts: list[Any], cols: list[str], where: str
) -> dict[str, dict[str, list[Any]]]:
    """Point -> column -> each arm's value there (None without a row), from ``parts``' rows
    (the ``[table]``, frames), grouped by the claim's points, its ``where`` rows only."""
    import pandas as pd

    rows = pd.concat([df[cols] for df in parts], ignore_index=True)
    for k, vals in c.where.items():
        rows = rows[rows[k].isin(vals)]
    groups = rows.groupby(c.points, sort=False) if c.points else [((), rows)]
    out: dict[str, dict[str, list[Any]]] = {}
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        if c.point_name:
            name = c.point_name.format(**dict(zip(c.points, key)))
        else:
            name = ", ".join(str(k) for k in key)
        out[name] = {k: [] for k in cols[len(c.points) + 1 :]}
        for a in arms:
            r = g[g[c.arm_column] == a]
            if len(r) > 1:
                raise AqmlabError(f"{where}: arm {a!r}: {len(r)} rows at point {name!r}")
            for k in out[name]:
                out[name][k].append(r[k].iloc[0] if len(r) else None)
    return out


def _point(vals: list[Any], delivered: list[Any] | None, per_seed: Any = None) -> Any:
    """A point's arm values (with their delivered shares and per-seed values), None for an
    arm without a run; per-seed values only where every arm has them (paired by seed)."""
    from aqmlab.reproduce import loader

    if None in vals:
        return tuple(vals)
    if per_seed is not None and any(v is None for v in per_seed):
        per_seed = None
    if delivered is None and per_seed is None:
        return tuple(vals)
    return loader._Point(tuple(vals), delivered, per_seed)


def _named_values(ctx: Any, c: Any, arms: list[str]) -> dict[str, Any]:
    from aqmlab.reproduce import loader

    def arm(metric: str, a: str) -> dict[str, Any]:
        v = loader._named(ctx, metric.replace("{arm}", a))
        return v if isinstance(v, dict) else {}

    vals = [arm(c.metric, a) for a in arms]
    dels = [arm(c.delivered, a) for a in arms] if c.delivered else None
    seeds = [arm(c.per_seed, a) for a in arms] if c.per_seed else None
    out: dict[str, Any] = {}
    for p in arm(c.metric, c.arms[0]):
        # An arm without its delivered share there is not tested, as one without its value.
        have = [v.get(p) if dels is None or p in dels[i] else None for i, v in enumerate(vals)]
        out[p] = _point(
            have,
            None if dels is None else [d.get(p) for d in dels],
            None if seeds is None else [loader._at(s, p) for s in seeds],
        )
    return out


def settle(ctx: Any) -> None:
    """After grading: a claim that does not hold, with comparisons marked ``explains``, is
    explained when one of them is confirmed; otherwise it is unexplained, the first such
    hypothesis's ``leaves`` saying why."""
    from aqmlab.reproduce.common import FAILS, explanation_text

    for cid, results in ctx.tests.items():
        c = ctx.claims.get(cid)
        mine = [r for r in results if r is not None and isinstance(r.test, ArmsTest)]
        deciding = [(r, rec) for r in mine for rec in r.points.values() if rec["explains"]]
        if c is None or not deciding or c.verdict != FAILS or not c.hypotheses:
            continue
        c.unexplained = not any(rec["outcome"] == CONFIRMED for _, rec in deciding)
        why = ctx.fill(deciding[0][0].test.leaves) if c.unexplained else ""
        c.explanation = explanation_text(c.hypotheses, c.unexplained, why)
