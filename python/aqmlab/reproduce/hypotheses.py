"""Hypothesis tests declared as data: a ``[hypothesis.NAME]`` table of ``claims.toml`` (or a
claim's own ``explanation`` table) with ``test = KIND`` is run by the loader, not by the
reproduction's module (docs/reproductions.md, "Hypothesis tests"). Its outcome is computed
for each claim that names it, at that claim's points, and fills the hypothesis's ``outcome``
when the table gives none.

The kinds (each the common form of what red-bursty's module computed by hand):

* ``reference``: the claim's own predicate evaluated on a reference's values at the claim's
  own points: the run's numbers (``[numbers.NAME]``) name the reference's values under
  ``reference`` in the shape the claim's metric (and ``delivered``) has (``_ns2._fig56.{arm}``
  for a claim whose metric is ``_fig56.{arm}``), so ns-2.35's runs of the same set-up are
  graded exactly as ours are (stalled runs and ties included), with the reference's per-seed
  values where its numbers hold them in the shape of the claim's ``per_seed``
  (``_ns2._fig56_seeds.{arm}``): an order within the reference's seeds' noise is neither a
  pass nor a failure there. After grading, a claim that does not hold is explained only where
  the reference fails the same points: each point ours fails and the reference passes (or has
  no point at, or cannot tell within its seeds' noise) leaves it ``unexplained``, named.
* ``bootstrap``: the noise of a figure over as many seeds as ours, from a reference's per-seed
  table (a CSV of the folder): at each of the claim's points, a ratio of two of its columns'
  means over ``k`` seeds drawn with replacement (``draws`` draws, a fixed generator), its
  2.5-97.5 % range against a band (``band``: the claim's "inside"). The outcomes, as a number
  is graded (common.grade_number: the scatter never widens what agrees): ``refuted`` (ours
  outside the band and outside the reference's range, or out by more than half its width),
  ``unexplained`` (the reference over all its seeds is out of the band too),
  ``cannot discriminate`` (half the range's width reaches ours' distance from the band's edge:
  a ``k``-seed figure cannot tell, with the seeds that would: common.seeds_for), ``not needed``
  (inside by more than that half-width). A point ours fails, the reference passes and this
  test cannot discriminate is no difference (the ``reference`` rule leaves it explained); a
  point ours passes and it cannot discriminate gets a note.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

from aqmlab.exceptions import AqmlabError

#: rerun.py, regrade.py, toward.py, arms_test.py, paired_test.py, axis_test.py
KINDS = ("reference", "bootstrap", "rerun", "regrade", "toward", "arms", "paired", "axis")
#: The keys a hypothesis table may hold besides its texts.
TEST_KEYS = (
    "test",
    "reference",
    "reference_name",
    "where",
    "point_name",
    "label",
    "ratio",
    "band",
    "band_name",
    "measured",
    "draws",
    *("sweeps", "match", "blames"),  # rerun (aqmlab.reproduce.rerun)
    "text",
    "leaves",
    "compare",  # arms (aqmlab.reproduce.arms_test)
    *("at", "texts"),  # paired (aqmlab.reproduce.paired_test), axis
    *("reach", "step", "unit", "bracket"),  # axis (aqmlab.reproduce.axis_test)
    "number",  # regrade, paired, axis: where results.json's numbers hold the test's outcome
)


@dataclass
class Test:
    """A hypothesis test declared in a hypothesis table (the keys of :data:`TEST_KEYS`)."""

    name: str
    kind: str
    #: reference: the name among the run's numbers holding the reference's values; bootstrap: a CSV
    #: file of the folder, one row per seed and point.
    reference: str
    #: How the reference is named in the outcome's text ("ns-2.35": "on ns-2.35's runs").
    reference_name: str
    #: bootstrap: the rows of the CSV to use (column = value), how a row's point is named
    #: (``"RED min_th {size}"``: the claim's point names) and labelled in the text, the
    #: numerator and denominator columns of the ratio, the band and the noun of its inside
    #: ("proportion": "in proportion", "out of proportion"), the ratio in words, the draws.
    where: dict[str, Any] = field(default_factory=dict)
    point_name: str = ""
    label: str = ""
    ratio: tuple[str, str] = ("", "")
    band: tuple[float, float] = (0.0, 0.0)
    band_name: str = ""
    measured: str = ""
    draws: int = 20_000


def parse(t: Any, name: str) -> Test | None:
    """The test a hypothesis table ``t`` (a :class:`aqmlab.reproduce.folder._Table`) declares,
    or None; every error one line naming the file, the table and the key."""
    if "test" not in t.doc:
        for k in TEST_KEYS:
            if k in t.doc:
                raise t.error("test", f"the kind of test ({' or '.join(KINDS)}) that {k} is for")
        return None
    kind = t.str("test")
    if kind not in KINDS:
        raise t.error("test", " or ".join(KINDS))
    if kind == "paired":
        from aqmlab.reproduce import paired_test

        return paired_test.parse(t, name)  # type: ignore[return-value]
    if kind == "axis":
        from aqmlab.reproduce import axis_test

        return axis_test.parse(t, name)  # type: ignore[return-value]
    if "number" in t.doc and kind != "regrade":
        raise t.error("number", f"no such key for test = '{kind}' (regrade, paired, axis only)")
    if kind == "rerun":
        return rerun.parse(t, name)
    if kind == "toward":
        from aqmlab.reproduce import toward

        return toward.parse(t, Test(name, kind, t.str("reference", ""), ""))
    if kind == "arms":
        from aqmlab.reproduce import arms_test

        return arms_test.parse(t, name)
    test = Test(name, kind, t.str("reference"), t.str("reference_name"))
    if kind == "regrade":
        from aqmlab.reproduce import regrade

        return regrade.parse(t, test)
    if kind == "reference":
        extra = [k for k in TEST_KEYS[3:] if k in t.doc]
        if extra:
            raise t.error(extra[0], "no such key for test = 'reference'")
        return test
    where = t.table("where")
    ratio = t.strs("ratio")
    if len(ratio) != 2 or not all(ratio):
        raise t.error("ratio", "[numerator column, denominator column]")
    band = t.doc.get("band")
    if (
        not isinstance(band, list)
        or len(band) != 2
        or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in band)
        or not band[0] < band[1]
    ):
        raise t.error("band", "[low, high], two numbers, low < high")
    draws = t.doc.get("draws", 20_000)
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 100:
        raise t.error("draws", "a whole number of bootstrap draws, at least 100")
    if not os.path.splitext(test.reference)[1] == ".csv":
        raise t.error("reference", "a CSV file of the folder (one row per seed and point)")
    return replace(
        test,
        where=dict(where),
        point_name=t.str("point_name"),
        label=t.str("label"),
        ratio=(ratio[0], ratio[1]),
        band=(float(band[0]), float(band[1])),
        band_name=t.str("band_name"),
        measured=t.str("measured"),
        draws=draws,
    )


@dataclass
class Result:
    """A test's outcome for one claim: the text for its ``outcome``, and per point what the
    rules after grading need (reference: whether the predicate passes; bootstrap: the
    point's range and outcome)."""

    test: Test
    text: str
    points: dict[str, Any]
    #: reference: whether the predicate passes at each point by its full name (with the
    #: reference's own interpolated value, as a module's text may name it): True, False, or
    #: its :class:`~aqmlab.reproduce.predicate.Noise` (neither: within the seeds' noise).
    named: dict[str, Any] = field(default_factory=dict)
    #: What the test writes under its table's ``number`` in results.json (regrade, axis: the
    #: outcome; paired: its points' numbers).
    record: Any = None
    #: reference, rerun, arms: the points the test's predicate finds within the seeds' noise
    #: of the runs it reads (point -> the predicate's Noise), whose seeds (``"our"``,
    #: ``"ns-2.35's"``): neither a pass nor a failure there (:data:`NOISY`).
    noise: dict[str, Any] = field(default_factory=dict)
    noise_of: str = "our"


def base(point: str) -> str:
    """A point's name without what follows it in parentheses (an interpolated value, a tie's
    or a stalled run's mark): the point it names in every table."""
    return point.split(" (")[0]


#: How a range claim marks a failing point within our seeds' noise (common.over_range).
WITHIN_NOISE = " (within noise)"


def failing_points(c: Any) -> list[str]:
    """A claim's failing points by name (:func:`base`), those within our seeds' noise left
    out: an undecided order is no failure for a hypothesis to explain."""
    return [base(p) for p in c.failing if not p.endswith(WITHIN_NOISE)]


def run(ctx: Any, mod: Any) -> dict[str, list[Result | None]]:
    """Every claim's tests (claim id -> one per entry of its ``explanation``), on the run's
    numbers; before grading, so that each fills its hypothesis's outcome."""
    out: dict[str, list[Result | None]] = {}
    for c in ctx.experiment.claims:
        if any(c.tests):
            done: list[Result | None] = []
            for t in c.tests:  # in order: an "arms" comparison may test where one above left
                done.append(None if t is None else _run(t, c, ctx, mod, done))
            out[c.id] = done
            for t, r in zip(c.tests, out[c.id]):
                if r is not None and getattr(t, "number", ""):
                    record(ctx, c, t, r)
    return out


def record(ctx: Any, c: Any, t: Any, r: Result) -> None:
    """A test's outcome (``r.record``) into results.json's numbers, at its table's ``number``:
    a path of keys joined by dots (as a claim's ``metric``), a template of the claim's metric's
    keys ``{0}``, ``{1}`` ... (consumer-edge's ``'fairness_by_class."{1}".{2}.outcome'`` for
    a claim whose metric is ``_fitted."512 kb/s".down.fairness_ct_pct``); the tables on the
    way are made where missing."""
    from aqmlab.reproduce.loader import split_path

    where = f"{ctx.experiment.folder}/claims.toml: claim {c.id!r}: hypothesis {t.name!r}.number"
    try:
        path = split_path(t.number.format(*split_path(c.metric)))
    except (IndexError, KeyError, ValueError) as e:
        raise AqmlabError(
            f"{where}: {t.number!r}: a path, {{0}}, {{1}} ... the keys of the claim's metric "
            f"{c.metric!r} ({e})"
        ) from None
    put_number(ctx.numbers, path, r.record, where)


def put_number(numbers: dict[str, Any], path: list[str], value: Any, where: str) -> None:
    """``value`` at the keys ``path`` of ``numbers`` (results.json's numbers), the tables on
    the way made where missing; one line naming ``where`` when a key on the way holds a
    number. What a test writes there (:func:`record`, ``arms``' ``numbers``)."""
    at = numbers
    for k in path[:-1]:
        at = at.setdefault(k, {})
        if not isinstance(at, dict):
            raise AqmlabError(f"{where}: {'.'.join(path)}: {k!r} holds a number, not a table")
    at[path[-1]] = value


def _run(t: Test, c: Any, ctx: Any, mod: Any, earlier: list[Any] | None = None) -> Result:
    where = f"{ctx.experiment.folder}/claims.toml: claim {c.id!r}: hypothesis {t.name!r}"
    if t.kind == "arms":
        from aqmlab.reproduce import arms_test

        return arms_test.run(t, c, ctx, mod, [r for r in earlier or [] if r is not None])  # type: ignore[arg-type]
    if isinstance(t, rerun.Rerun):
        return rerun.run(t, c, ctx, mod)
    if t.kind == "toward":
        from aqmlab.reproduce import toward

        return toward.run(t, c, ctx)
    if t.kind == "paired":
        from aqmlab.reproduce import paired_test

        return paired_test.run(t, c, ctx, where)  # type: ignore[arg-type]
    if t.kind == "axis":
        from aqmlab.reproduce import axis_test

        return axis_test.run(t, c, ctx, where)  # type: ignore[arg-type]
    if t.kind == "reference":
        named = reference_points(ctx, c, t.reference, mod, where)
        pts = {base(p): ok for p, ok in named.items()}
        noise = {p: v for p, v in pts.items() if is_noise(v)}
        text = reference_text(pts, t.reference_name)
        return Result(t, text, pts, named, noise=noise, noise_of=f"{t.reference_name}'s")
    if t.kind == "regrade":
        from aqmlab.reproduce import regrade

        return regrade.run(t, c, ctx, where)  # type: ignore[arg-type]
    from aqmlab.reproduce.loader import _points

    ours = {p: v[0] for p, v in _points(ctx, c, c.arms[:1], where).items()}
    table = reference_table(ctx.experiment.folder, t, where)
    r = bootstrap(t, ours, len(ctx.seeds), table)
    return Result(t, r["text"], r["points"])


def reference_number(ctx: Any, c: Any, reference: str, kind: str, where: str) -> Any:
    """What a test of a numeric claim (``regrade``, ``toward``) reads: the number
    ``REFERENCE.METRIC``, in the shape of claim ``c``'s metric, or None where there is none;
    a one-line error naming ``where`` when ``c`` is not numeric or the path is no number."""
    from aqmlab.reproduce import loader

    if c.kind != "numeric":
        raise AqmlabError(f"{where}: test = '{kind}' grades a numeric claim, not a {c.kind} one")
    v = loader._named(ctx, f"{reference}.{c.metric}")
    if v is not None and not isinstance(v, (int, float)):
        raise AqmlabError(f"{where}: reference: {reference}.{c.metric} is not one number")
    return v


def reference_points(ctx: Any, c: Any, ref: str, mod: Any, where: str) -> dict[str, Any]:
    """The claim's predicate on the reference's values (``REF.METRIC``, ``REF.DELIVERED``) at
    each of its points, under the claims' rules (a tie, or a point whose every arm's run is
    stalled, is no pass), with the reference's per-seed values where it has them
    (``REF.PER_SEED``: an order within their noise is neither): point -> True (passes),
    False, or the predicate's Noise."""
    from aqmlab.reproduce import loader

    if "{arm}" not in c.metric:
        raise AqmlabError(
            f"{where}: test = 'reference' needs a claim whose metric is a path with {{arm}} "
            f"of the run's numbers, not {c.metric!r}"
        )
    rc = replace(
        c,
        metric=f"{ref}.{c.metric}",
        delivered=f"{ref}.{c.delivered}" if c.delivered else "",
        per_seed=f"{ref}.{c.per_seed}" if c.per_seed else "",
    )
    pred = loader._predicate(c, mod, where)
    pts = loader._points(ctx, rc, c.arms, where)
    if rc.delivered:
        pred = loader._unless_stalled(pred)
        d = loader._points(ctx, rc, c.arms, where, metric=rc.delivered)
        pts = {k: loader._Point(v, d[k]) for k, v in pts.items()}
    if rc.per_seed and all(
        loader._named(ctx, rc.per_seed.replace("{arm}", a)) is not None for a in c.arms
    ):  # the reference's seeds, where its numbers hold them as ours (else means alone)
        pts = loader._with_seeds(ctx, rc, pts, c.arms, where)
    return {p: passes(pred(v)) for p, v in pts.items()}


def reference_text(pts: dict[str, Any], name: str) -> str:
    """The claim's predicate on the reference (``name``: "ns-2.35"), for the report: the
    outcome's text (points within the reference's seeds' noise: :data:`NOISY`)."""
    noise = {p: v for p, v in pts.items() if is_noise(v)}
    within = f"{NOISY_AT} {name}'s seeds' noise ({noise_words(noise)})" if noise else ""
    if list(pts) == [""]:
        if noise:
            return f"the predicate on {name}'s runs: {within}"
        return f"the predicate is {'true' if pts[''] else 'false'} on {name}'s runs"
    ok = [p for p, v in pts.items() if v is True]
    bad = [p for p, v in pts.items() if v is not True and p not in noise]
    return (
        f"true at {len(ok)} of {len(pts)} points on {name}'s runs"
        + (f", false at {', '.join(bad)}" if bad else "")
        + (f"; at {', '.join(noise)}: {within}" if noise else "")
    )


def reference_table(folder: str, t: Test, where: str) -> Any:
    """A bootstrap's CSV (``t.reference``, in the folder), its ``where`` rows, each with its
    point's name (``point``) and label (``label``)."""
    import pandas as pd

    path = os.path.join(folder, t.reference)
    if not os.path.isfile(path):
        raise AqmlabError(f"{where}: reference: no file {t.reference!r} in the folder")
    return name_rows(pd.read_csv(path), t, where)


def name_rows(d: Any, t: Test, where: str = "") -> Any:
    """A bootstrap's reference rows (a DataFrame): its ``where`` rows, each with its point's
    name (``point``) and label (``label``)."""
    need = [*t.where, *t.ratio]
    missing = [k for k in need if k not in d.columns]
    if missing:
        raise AqmlabError(f"{where}: {t.reference} has no column {missing[0]!r}")
    for k, v in t.where.items():
        d = d[d[k] == v]
    try:
        rows = d.to_dict("records")
        d = d.assign(
            point=[t.point_name.format(**r) for r in rows],
            label=[t.label.format(**r) for r in rows],
        )
    except (KeyError, IndexError, ValueError) as e:
        raise AqmlabError(f"{where}: point_name / label: no column {e} in {t.reference}") from None
    return d


def bootstrap(t: Test, ours: dict[str, float], k: int, rows: Any) -> dict[str, Any]:
    """The ``bootstrap`` test at each point of ``ours`` (point -> our value over ``k`` seeds),
    from the reference's ``rows`` (:func:`reference_table`): ``points`` (point -> ``lo``,
    ``hi``, ``ns2_all`` (the reference over all its seeds), ``outcome``, ``seeds``, ``k``) and
    the outcome's ``text``."""
    import numpy as np

    from aqmlab.reproduce.common import CANNOT, fmt, seeds_for

    lo_in, hi_in = t.band
    band = (hi_in - lo_in) / 2
    name, inn = t.reference_name, t.band_name
    out: dict[str, Any] = {}
    texts = []
    for point, ratio in ours.items():
        sel = rows[rows["point"] == point]
        num = sel[t.ratio[0]].to_numpy(float)
        den = sel[t.ratio[1]].to_numpy(float)
        n = len(sel)
        if n < 2 or k < 1 or ratio != ratio:
            continue
        picks = np.random.default_rng(0).integers(0, n, size=(t.draws, k))
        ratios = num[picks].mean(axis=1) / den[picks].mean(axis=1)
        lo, hi = (float(x) for x in np.quantile(ratios, [0.025, 0.975]))
        half = (hi - lo) / 2
        whole = float(num.mean() / den.mean())
        inside = lo_in <= ratio <= hi_in
        gap = min(abs(ratio - lo_in), abs(ratio - hi_in))
        seeds = None
        if not inside and not lo <= ratio <= hi:
            outcome, why = "refuted", f"outside {name}'s {k}-seed range: not its noise"
        elif not inside and not lo_in <= whole <= hi_in:
            outcome, why = "unexplained", f"{name} over all its seeds is out of {inn} too"
        elif half > 0 and half >= gap:
            seeds = (
                seeds_for(k, half, gap) if gap > 0 else None,
                seeds_for(k, half, band) if half > band else None,
            )
            outcome = CANNOT
            edge = lo_in if abs(ratio - lo_in) <= abs(ratio - hi_in) else hi_in
            why = (
                f"{name} itself, on the same set-up, ranges over {fmt(lo)}-{fmt(hi)} across "
                f"{k}-seed draws (±{fmt(half)}), more than ours' distance {fmt(gap)} from the "
                f"band's edge {fmt(edge)}: one {k}-seed figure cannot tell in {inn} from "
                "out of it here; "
                + (
                    f"about {seeds[0]} seeds would narrow the scatter below that distance, "
                    if seeds[0]
                    else "on the edge no number of seeds decides, "
                )
                + (
                    f"about {seeds[1]} below half the band (±{fmt(band)})"
                    if seeds[1]
                    else f"it is already below half the band (±{fmt(band)})"
                )
                + " (estimates: n·(half-range ÷ width)², rounded up)"
            )
        elif inside:
            outcome, why = "not needed", f"in {inn} by more than the {k}-seed scatter"
        else:
            outcome, why = "refuted", f"out of {inn} by more than the {k}-seed scatter"
        out[point] = {
            "lo": lo,
            "hi": hi,
            "ns2_all": whole,
            "outcome": outcome,
            "seeds": seeds[0] if seeds else None,
            "k": k,
        }
        texts.append(
            f"{sel['label'].iloc[0]}: ours {fmt(ratio)} over {k} seeds "
            f"({'in' if inside else 'out of'} {inn}); {name}'s over {k} of its {n} "
            f"seeds {fmt(lo)}-{fmt(hi)} (95 % of bootstrap draws), over all {fmt(whole)}: "
            f"{outcome} ({why})"
        )
    text = (
        f"{t.measured} against {name}'s scatter over seeds "
        f"({t.reference}): {'; '.join(texts) or 'no point to test'}"
    )
    return {"points": out, "text": text}


def settle(ctx: Any) -> None:
    """After grading: each claim with a ``reference`` test that does not hold is explained
    only where the reference fails the same points (unexplained at each point ours fails and
    the reference passes or lacks, unless a ``bootstrap`` test of the claim finds a figure over
    as many seeds cannot tell there); a point that passes on a figure a ``bootstrap`` test
    cannot decide gets a note, with the seeds that would."""
    from aqmlab.reproduce.common import CANNOT, FAILS, explanation_text

    for cid, results in ctx.tests.items():
        c = ctx.claims.get(cid)
        if c is None:
            continue
        from aqmlab.reproduce import regrade

        # toward shares regrade's rule: explained only where the test confirms.
        kinds = (regrade.KIND, "toward")
        regrade.settle(c, [r for r in results if r is not None and r.test.kind in kinds])
        from aqmlab.reproduce import paired_test

        paired_test.settle(c, [r for r in results if r is not None and r.test.kind == "paired"])
        from aqmlab.reproduce import axis_test

        axis_test.settle(c, [r for r in results if r is not None and r.test.kind == "axis"])
        refs = [r for r in results if r is not None and r.test.kind == "reference"]
        boots = [r for r in results if r is not None and r.test.kind == "bootstrap"]
        noise = {p: v for r in boots for p, v in r.points.items()}
        for r in boots:
            failing = {base(p) for p in c.failing}
            undecided = [
                (p, v)
                for p, v in r.points.items()
                if v["outcome"] == CANNOT and p not in failing and v.get("seeds")
            ]
            if undecided:
                c.add_note(
                    f"{', '.join(p for p, _ in undecided)} pass{'es' * (len(undecided) == 1)} "
                    f"on {undecided[0][1]['k']}-seed figures whose scatter "
                    f"({r.test.reference_name}'s over as many seeds, the {r.test.name} "
                    "hypothesis's test) reaches across the band's edge: our seeds cannot tell "
                    f"in {r.test.band_name} from out of it there; about "
                    f"{', '.join(str(v['seeds']) for _, v in undecided)} seeds would decide "
                    "(estimates)"
                )
        note_noise(c, results)
        if not refs or c.verdict != FAILS or not c.hypotheses:
            continue
        pts: dict[str, Any] = {}
        for r in refs:
            pts.update(r.points)
        ours_bad = set(failing_points(c))
        passed = sorted(p for p in ours_bad if pts.get(p) is True)
        passed = [p for p in passed if noise.get(p, {}).get("outcome") != CANNOT]
        absent = sorted(p for p in ours_bad if p not in pts)
        # Within the reference's noise: it neither passes nor fails there, so explains nothing.
        undecided = sorted(p for p in ours_bad if is_noise(pts.get(p)))
        if not c.failing and pts.get("", False) is True:
            passed = ["the comparison"]
        if not c.failing and is_noise(pts.get("")):
            undecided = ["the comparison"]
        c.unexplained = bool(passed or absent or undecided)
        name = refs[0].test.reference_name
        why = "; ".join(
            x
            for x in (
                f"{name}'s runs pass at {', '.join(passed)}" if passed else "",
                f"{name} has no point at {', '.join(absent)}" if absent else "",
                f"{name}'s runs {NOISY_AT} its seeds' noise at {', '.join(undecided)}"
                if undecided
                else "",
            )
            if x
        )
        c.explanation = explanation_text(c.hypotheses, c.unexplained, why)
    rerun.settle(ctx)
    from aqmlab.reproduce import arms_test

    arms_test.settle(ctx)


def reference_result(ctx: Any, claim_id: str) -> Result | None:
    """The outcome of claim ``claim_id``'s first ``reference`` test (for a module's text)."""
    for r in ctx.tests.get(claim_id, []):
        if r is not None and r.test.kind == "reference":
            return r
    return None


# The outcome rule every test over points shares (rerun.py, arms_test.py).

CONFIRMED, REFUTED, UNEXPLAINED = "confirmed", "refuted", "unexplained"
#: The outcome of a test whose points pass or are within the seeds' noise of the runs it
#: reads, one or more within it: it neither confirms nor refutes (never explains a claim).
NOISY = "cannot tell: within our seeds' noise"
#: How a reference's text words it ("cannot tell: within ns-2.35's seeds' noise").
NOISY_AT = "cannot tell: within"


def outcome(points: list[str], tested: list[str], held: list[str], noisy: Any = ()) -> str:
    """A test's outcome over ``points``, of which ``tested`` have the runs it needs, ``held``
    pass it and ``noisy`` are within the seeds' noise of its runs (the predicate's
    :class:`~aqmlab.reproduce.predicate.Noise`: neither pass nor failure): ``confirmed``
    when every point is tested and passes, :data:`NOISY` when every point is tested and
    passes or is within noise (one or more within it: the outcome rests on them),
    ``refuted`` when every point is tested and none passes or is within noise,
    ``unexplained`` otherwise (some pass and some fail, a run is missing, or there are no
    points: nothing to test)."""
    if points and len(tested) == len(points):
        if len(held) == len(points):
            return CONFIRMED
        if noisy and len(held) + len(noisy) == len(points):
            return NOISY
        if not held and not noisy:
            return REFUTED
    return UNEXPLAINED


def passes(r: Any) -> Any:
    """A predicate's result as a test reads it: True where it passes, the result itself
    where it is within noise (:func:`is_noise`), else False (a tie, a stall, a failure)."""
    return True if r is True else r if is_noise(r) else False


def is_noise(r: Any) -> bool:
    """Whether a predicate's result is a tie within our seeds' noise (predicate.NOISE)."""
    from aqmlab.reproduce.predicate import NOISE

    return isinstance(r, str) and r == NOISE


def noise_words(noisy: dict[str, Any]) -> str:
    """Points within noise (point -> the predicate's Noise), each with its difference, the
    per-seed differences' half-width, the seeds and the seeds that would decide
    (common.noise_text's short form, ``"P: +0.5 ±0.8, 3 seeds, about 8 would decide"``; a
    qualitative claim's one point unnamed)."""
    from aqmlab.reproduce.common import noise_text
    from aqmlab.reproduce.predicate import Noise

    def one(r: Any) -> str:
        return noise_text(r, short=True) if isinstance(r, Noise) else "within noise"

    return "; ".join(f"{p}: {one(r)}" if p else one(r) for p, r in noisy.items())


def note_noise(c: Any, results: list[Any]) -> None:
    """A claim that does not hold gets a note for each of its tests (reference, rerun, arms)
    whose predicate is within the seeds' noise of the runs it reads somewhere: the test
    cannot tell there, with the numbers and the seeds that would decide."""
    from aqmlab.reproduce.common import FAILS, NOISE_HOW

    if c.verdict != FAILS:
        return
    for r in results:
        if r is not None and r.noise:
            at = ", ".join(p or "ours" for p in r.noise)
            # A claim's own unnamed table is named by its place in the file
            # ("claim 'ID'.explanation[0]"), which the reader need not see.
            named = "explanation[" not in r.test.name
            which = f"the {r.test.name} hypothesis's" if named else "its hypothesis's"
            c.add_note(
                f"{which} test ({r.test.kind}) {NOISY_AT} "
                f"{r.noise_of} seeds' noise at {at} ({NOISE_HOW}): {noise_words(r.noise)}; "
                "it neither confirms nor refutes there"
            )


from aqmlab.reproduce import rerun  # noqa: E402  (test = "rerun"; it builds on this module)
