"""The ``rerun`` hypothesis test (docs/reproductions.md, "Hypothesis tests"): a hypothesis that
blames some of the claim's runs on one setting is tested by a sweep that repeats those runs
with the setting changed. Each run of that sweep replaces the run of the claim's sweeps with
the same values of ``match`` (its load, rate, RTT, discipline, seed); the numbers the claim
reads (its ``metric`` and ``delivered``, ``[numbers.NAME]`` of experiment.toml) are computed
again over the runs so swapped, ``where`` limiting them to some runs (the load the sweep
repeats: like compared with like), and the claim's predicate is evaluated again, under the
claims' rules (a tie or a stalled point is no pass), at each point where it fails. Where the
claim declares ``per_seed`` (a ``[numbers.NAME]`` over runs too), it is computed again over
the same runs, and the predicate, before and after, reads it: an order within our seeds'
noise is neither a pass nor a failure (docs/reproductions.md, "Ties and stalled runs"), and a
point ours has within noise is no failure to rerun.

The outcome is the common rule (:func:`aqmlab.reproduce.hypotheses.outcome`) over the failing
points the rerun reaches: ``confirmed`` where the predicate passes at all of them, ``cannot
tell: within our seeds' noise`` where it passes or is within noise at all, one or more within
it, ``refuted`` at none (none within noise either), ``unexplained`` otherwise, or where the
rerun reaches none. After grading, a claim that does not hold is explained only when the
outcome is ``confirmed``, the rerun reaches every failing point, and it replaced every run
``blames`` names (the runs the hypothesis holds responsible, all of which a complete test
repeats); otherwise it stays ``unexplained``, with what is left named.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Real
from types import SimpleNamespace
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce.hypotheses import NOISY, Result, Test, is_noise, noise_words, outcome

#: The keys of a ``test = "rerun"`` table (besides ``test`` and the hypothesis's texts).
KEYS = ("sweeps", "match", "where", "blames", "label")


@dataclass
class Rerun(Test):
    """A ``test = "rerun"`` table: ``sweeps`` (the rerun), ``match`` (the columns naming the
    run a rerun run replaces), ``where`` and ``blames`` (``{column: value or [values]}``),
    ``label`` (the rerun in the outcome's text) and ``at`` (the file and table, for errors)."""

    sweeps: list[str] = field(default_factory=list)
    match: list[str] = field(default_factory=list)
    blames: dict[str, list[Any]] = field(default_factory=dict)
    at: str = ""


@dataclass
class RerunResult(Result):
    """A rerun's outcome for one claim; ``explains``: whether it accounts for every failing
    point (the rule above), ``why`` what it leaves when it does not."""

    explains: bool = False
    why: str = ""


def _values(t: Any, k: str) -> dict[str, list[Any]]:
    """``{column: value or [values]}`` of key ``k``, each as a list of scalars."""
    out: dict[str, list[Any]] = {}
    for col, v in t.table(k).items():
        vals = v if isinstance(v, list) else [v]
        if not vals or not all(isinstance(x, (str, int, float)) for x in vals):
            raise t.error(k, "a table of column = a value or a list of values")
        out[col] = vals
    return out


def parse(t: Any, name: str) -> Rerun:
    """The ``rerun`` test of hypothesis table ``t`` (a :class:`aqmlab.reproduce.folder._Table`);
    every error one line naming the file, the table and the key."""
    from aqmlab.reproduce.hypotheses import TEST_KEYS

    extra = [k for k in TEST_KEYS if k not in ("test", *KEYS) and k in t.doc]
    if extra:
        raise t.error(extra[0], f"a key of test = 'rerun' ({', '.join(KEYS)})")
    sweeps, match = t.strs("sweeps"), t.strs("match")
    if not sweeps:
        raise t.error("sweeps", "the names of the [[sweep]]s that rerun the claim's runs")
    if not match:
        raise t.error("match", "the columns that name the run a rerun run replaces")
    return Rerun(
        name,
        "rerun",
        "",
        "",
        where=_values(t, "where"),
        label=t.str("label", ""),
        sweeps=sweeps,
        match=match,
        blames=_values(t, "blames"),
        at=f"{t.path}: {t.where}",
    )


def _select(df: Any, where: dict[str, list[Any]]) -> Any:
    for k, vals in where.items():
        df = df[df[k].isin(vals)]
    return df


def _keys(df: Any, match: list[str]) -> list[tuple]:
    return list(df[match].itertuples(index=False, name=None))


def swap(
    frames: dict[str, Any], sources: list[str], rerun: Any, t: Rerun, feeds: Any = None
) -> tuple[dict[str, Any], dict[str, Any], int, int]:
    """``sources``' frames (their ``where`` runs) with each run that a run of ``rerun`` matches
    (the same values of ``match``) replaced by it; the rerun runs that went in, per sweep; and
    how many of the runs ``blames`` names (of those ``feeds(df)`` selects: the runs the claim's
    number reads) were replaced, of how many."""
    import pandas as pd

    by_key = dict(zip(_keys(rerun, t.match), range(len(rerun))))
    if len(by_key) < len(rerun):
        raise AqmlabError(
            f"{t.at}.match: two runs of {', '.join(t.sweeps)} share the values of "
            f"{t.match}: add the column that tells them apart"
        )
    out, went_in, blamed, replaced = {}, {}, 0, 0
    for s in sources:
        df = _select(frames[s], t.where)
        keys = _keys(df, t.match)
        hit = [k in by_key for k in keys]
        rows = rerun.iloc[[by_key[k] for k, h in zip(keys, hit) if h]]
        mask = pd.Series(hit, index=df.index, dtype=bool)
        out[s] = pd.concat([df[~mask], rows], ignore_index=True)
        if len(rows):
            went_in[s] = rows
        if t.blames:
            b = _select(df if feeds is None else df.loc[feeds(df)], t.blames).index
            blamed += len(b)
            replaced += int(mask.loc[b].sum())
    return out, went_in, replaced, blamed


def run(t: Rerun, c: Any, ctx: Any, mod: Any) -> RerunResult:
    """Test ``t`` for claim ``c`` on the run's frames (before the claims are graded)."""
    import pandas as pd

    from aqmlab.reproduce import loader, metrics

    declared = {s.name for s in ctx.experiment.sweeps}
    for s in t.sweeps:
        if s not in declared:
            raise AqmlabError(f"{t.at}.sweeps: no [[sweep]] named {s!r} in experiment.toml")
    label = t.label or ", ".join(t.sweeps)
    ran = [ctx.frames[s] for s in t.sweeps if s in ctx.frames and len(ctx.frames[s])]
    if not ran:
        return RerunResult(t, f"{label} was not run", {}, why=f"{label} was not run")
    rerun = pd.concat(ran, ignore_index=True)
    numbers = {n.name: n for n in ctx.experiment.numbers}
    # The numbers computed again over the swapped runs: the metric, its delivered share and
    # its per-seed values (the noise band, as the claim's own grading reads them).
    read = [m for m in (c.metric, c.delivered, c.per_seed) if m]
    names = [loader.split_path(m)[0] for m in read]
    for m, n in zip(read, names):
        if "{arm}" not in m or n not in numbers or numbers[n].expr:
            raise AqmlabError(
                f"{t.at}.test: test = 'rerun' needs claim {c.id!r}'s metric, delivered and "
                f"per_seed to be paths with {{arm}} of a [numbers.NAME] over runs, not {m!r}"
            )
    sources = [s for s in dict.fromkeys(x for n in names for x in numbers[n].sweeps)] or [
        s for s in ctx.frames if s not in t.sweeps
    ]
    sources = [s for s in sources if s in ctx.frames]
    for k in dict.fromkeys([*t.match, *t.where, *t.blames]):
        for s, df in [*((s, ctx.frames[s]) for s in sources), (label, rerun)]:
            if k not in df.columns:
                key = "match" if k in t.match else "where" if k in t.where else "blames"
                raise AqmlabError(f"{t.at}.{key}: no column {k!r} in the results of {s}")
    nd = numbers[names[0]]

    def feeds(df: Any) -> Any:
        """The runs the claim's metric reads (its number's ``where``)."""
        if not nd.where_expr or not len(df):
            return [True] * len(df)
        expr = metrics.compile_expr(ctx.fill(nd.where_expr), f"{nd.where}.where")
        return expr.eval(df, "the claim's runs").astype(bool).to_numpy()

    frames, went_in, replaced, blamed = swap(ctx.frames, sources, rerun, t, feeds)
    # With ``where``, the claim's values over those runs as run: like compared with like.
    as_run = {s: _select(ctx.frames[s], t.where) for s in sources} if t.where else None

    def recompute(fr: dict[str, Any]) -> Any:
        new = dict(ctx.numbers)
        for n in dict.fromkeys(names):
            if any(s in fr for s in numbers[n].sweeps or fr):
                new[n] = metrics.compute(numbers[n], fr, ctx.fill, new)
            else:
                new[n] = {}
        return SimpleNamespace(numbers=new, table=ctx.table)

    pred = loader._predicate(c, mod, t.at)
    if c.delivered:
        pred = loader._unless_stalled(pred)
    describe = loader._describe(c, mod, t.at)

    def points(cx: Any) -> dict[str, Any]:
        """Point -> the arms' values (with their delivered shares), where every arm has one."""
        per = [loader._named(cx, c.metric.replace("{arm}", a)) or {} for a in c.arms]
        dels = [
            loader._named(cx, c.delivered.replace("{arm}", a)) or {} if c.delivered else {}
            for a in c.arms
        ]
        if c.kind != "range":  # one point, each arm a number
            per, dels = [{"": v} for v in per], [{"": v} for v in dels]
        out = {}
        for p in per[0] if per else {}:
            if all(isinstance(v, dict) and isinstance(v.get(p), Real) for v in per):
                vals = tuple(v[p] for v in per)
                if c.delivered and all(isinstance(d, dict) and p in d for d in dels):
                    vals = loader._Point(vals, tuple(d[p] for d in dels))
                out[p] = vals
        return loader._with_seeds(cx, c, out, c.arms, t.at) if c.per_seed else out

    before = points(ctx)
    shown = points(recompute(as_run)) if as_run is not None else before
    after = points(recompute(frames))
    # The points a swapped run reaches, through any arm (an arm the rerun leaves keeps its runs).
    reached: set[str] = set()
    if went_in:
        cx = recompute(went_in)
        for a in c.arms:
            v = loader._named(cx, c.metric.replace("{arm}", a))
            reached |= set(v) if isinstance(v, dict) else {""} if v is not None else set()
    # Ours within noise is no failure to explain (hypotheses.failing_points).
    failing = [p for p, v in before.items() if (r := pred(v)) is not True and not is_noise(r)]
    tested = [p for p in failing if p in reached and p in after]
    rerun_r = {p: pred(after[p]) for p in tested}
    held = [p for p in tested if rerun_r[p] is True]
    noise = {p: r for p, r in rerun_r.items() if is_noise(r)}
    result = outcome(tested, tested, held, noise)
    left = [p for p in failing if p not in tested]
    each = "; ".join(
        f"{p or 'ours'}: {describe(shown[p]) if p in shown else '–'} → {describe(after[p])}"
        + (f" (within noise: {noise_words({'': noise[p]})})" if p in noise else "")
        for p in tested
    )
    within = (
        " over the runs where " + ", ".join(f"{k} = {_list(v)}" for k, v in t.where.items())
        if t.where
        else ""
    )
    text = (
        f"the claim's predicate with the runs of {label} in place of those with the same "
        f"{', '.join(t.match)}{within}: {each or 'no failing point rerun'}; passes at "
        f"{len(held)} of {len(tested)} failing point{'s' * (len(tested) != 1)} rerun: {result}"
    )
    why = []
    if noise:
        why.append(f"{NOISY} with {label}{_named(list(noise))}")
    if tested and len(held) + len(noise) < len(tested):
        still = [p for p in tested if p not in held and p not in noise]
        why.append(f"still failing with {label}{_named(still)}")
    if left:
        why.append(f"failing points {label} does not rerun{_named(left)}")
        text += f"; not rerun{_named(left)}"
    if t.blames and replaced < blamed:
        runs = ", ".join(f"{k} = {_list(v)}" for k, v in t.blames.items())
        cover = f"it reruns {replaced} of the {blamed} runs where {runs}"
        why.append(cover)
        text += f"; {cover}, the others kept as run"
    res = {p: {"before": before[p], "after": after[p], "ok": p in held} for p in tested}
    return RerunResult(
        t,
        text,
        res,
        noise=noise,
        explains=bool(failing) and not why and result == "confirmed",
        why="; ".join(why),
    )


def _named(points: list[str]) -> str:
    """``": P1, P2"``: the points named; nothing for a qualitative claim's one point (``""``)."""
    return "" if points == [""] else f": {', '.join(points)}"


def _list(v: list[Any]) -> str:
    return " or ".join(repr(x) if isinstance(x, str) else f"{x:g}" for x in v)


def settle(ctx: Any) -> None:
    """After grading: each claim with ``rerun`` tests that does not hold is explained only
    when one of them accounts for every failing point (:class:`RerunResult`'s ``explains``)."""
    from aqmlab.reproduce.common import FAILS, explanation_text

    for cid, results in ctx.tests.items():
        reruns = [r for r in results if isinstance(r, RerunResult)]
        c = ctx.claims.get(cid)
        if not reruns or c is None or c.verdict != FAILS or not c.hypotheses:
            continue
        c.unexplained = not any(r.explains for r in reruns)
        why = "; ".join(r.why for r in reruns if r.why)
        c.explanation = explanation_text(c.hypotheses, c.unexplained, why if c.unexplained else "")


def result(ctx: Any, claim_id: str) -> RerunResult | None:
    """Claim ``claim_id``'s first ``rerun`` test's outcome (for a module's text)."""
    for r in ctx.tests.get(claim_id, []):
        if isinstance(r, RerunResult):
            return r
    return None
