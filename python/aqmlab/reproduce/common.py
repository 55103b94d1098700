"""What every reproduction shares: its claims and verdicts, and the files it writes.

A reproduction's folder:

* ``sweep/``: the sweep it ran (``results.parquet``, ``summary.csv``, ``runs/``), reused by the
  next start as any sweep's folder is;
* ``scenario.toml``: the base scenario, as run (``aqmlab run DIR/scenario.toml`` repeats a run);
* ``figures/``: PNG and SVG;
* ``results.json``: every number the reproduction reports, and each claim of the paper with the
  published value, ours and a verdict;
* ``report.md`` and ``report.html``: the parameters, our tables beside the published numbers,
  the figures, and a short comparison that says where we differ and why.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from aqmlab import __version__
from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce.predicate import NOISE, STALLED, TIE, is_tie

AGREES = "agrees"
DIFFERS = "differs"
HOLDS = "holds"
FAILS = "does not hold"
CANNOT = "cannot discriminate"
NOT_GRADED = "not graded"
UNEXPLAINED = "unexplained"
#: A run is *stalled* when its bottleneck carried less than this share of what the link could
#: carry in the measured window. A point where every arm's run is stalled is a tie of runs that
#: deliver almost nothing (:data:`STALLED`): never a win for either arm. A predicate's
#: :data:`TIE` (equal values, :mod:`aqmlab.reproduce.predicate`) is not a pass either.
STALLED_FRACTION = 0.10

#: The verdict vocabulary (docs/reproductions.md).
VERDICTS = (AGREES, DIFFERS, HOLDS, FAILS, CANNOT)


@dataclass
class Claim:
    """One statement of a source document, graded against our run (docs/reproductions.md).

    ``published`` and ``ours`` are numbers or short texts. ``verdict``: ``agrees`` / ``differs``
    / ``cannot discriminate`` for a number (:func:`grade_number`: agrees within the source's
    allowance, differs outside it plus our seeds' 95 % interval, cannot discriminate between;
    ``tolerance`` says how much and ``why`` where the allowance comes from: the source's
    ``precision``, a figure read-off; then our seeds' interval);
    ``holds`` / ``does not hold`` / ``cannot discriminate`` for a qualitative finding, whose
    predicate is also evaluated on a named ``counterfactual`` arm (``counterfactual_ours``,
    ``counterfactual_verdict``): a predicate that is also true there cannot tell the claim from
    its counterfactual; ``not graded: <why>`` where a number cannot be graded. A claim over a
    range lists every ``points`` entry it was evaluated at and the ``failing`` ones. A
    ``differs`` carries an ``explanation``: a hypothesis and the run that tests it, or
    ``unexplained``."""

    claim: str
    source: str
    published: Any
    ours: Any
    verdict: str
    tolerance: str = ""
    note: str = ""
    kind: str = "numeric"
    metric: str = ""
    precision: str = ""
    why: str = ""
    counterfactual: str = ""
    counterfactual_ours: Any = None
    counterfactual_verdict: str = ""
    points: list[dict[str, Any]] = field(default_factory=list)
    failing: list[str] = field(default_factory=list)
    explanation: str = ""
    #: The explanation's parts (a reproduction folder's claims.toml): ``hypothesis``,
    #: ``tested_by``, ``outcome``; and whether the difference is left unexplained.
    hypotheses: list[dict[str, str]] = field(default_factory=list)
    unexplained: bool = False
    #: The claim's id and where in its source it is (a reproduction folder's claims.toml).
    id: str = ""
    location: str = ""

    def add_note(self, text: str) -> None:
        self.note = (self.note + "; " if self.note else "") + text


def printed_precision(printed: str) -> tuple[float, int]:
    """Half a unit in the last digit of a number as the source printed it, and its significant
    digits: ``"2.7"`` -> (0.05, 2), ``"97"`` -> (0.5, 2), ``"0.00859185"`` -> (5e-9, 6)."""
    text = printed.strip().lstrip("+-")
    mantissa = re.split("[eE]", text)[0]
    exp = int(re.split("[eE]", text)[1]) if re.search("[eE]", text) else 0
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    digits = len(mantissa.replace(".", "").lstrip("0")) or 1
    return 0.5 * 10.0 ** (exp - decimals), digits


def seeds_for(seeds: int, spread: float, width: float) -> int:
    """An estimate of how many seeds would bring our seeds' 95 % half-width ``spread`` (from
    ``seeds`` seeds) under ``width``: ``ceil(seeds · (spread / width)²)``, the half-width
    falling as 1/√n with the per-seed scatter held. An estimate: the scatter of more seeds is
    not known, and Student's t falls as seeds are added (4.30 at 3 seeds, 2.26 at 10), so it
    errs high."""
    if not width > 0:
        raise ValueError(f"seeds_for: width {width!r}: expected a positive number")
    return max(seeds, math.ceil(seeds * (spread / width) ** 2 - 1e-9))


def grade_number(
    ours: float, published: float, allowance: float, spread: float | None, seeds: int | None
) -> tuple[str, str]:
    """The verdict on ``ours`` against ``published`` and a note (docs/reproductions.md,
    "Verdicts"). ``allowance`` is the source's own (printed precision + read-off); ``spread``
    our seeds' 95 % half-width over ``seeds`` seeds, or None with one seed:

    * **agrees** when ``|ours - published| <= allowance``;
    * **differs** when it is outside ``allowance + spread``;
    * **cannot discriminate** in between: our seeds' interval reaches the source's value but
      our mean is outside its allowance. The note names the interval, the allowance and an
      estimate of the seeds that would bring the interval under the allowance
      (:func:`seeds_for`), and of those that would narrow it below our distance from the
      allowance's edge (a verdict either way if the mean stays).

    An agreement whose interval is wider than the allowance still agrees (the source's
    allowance is met), but the note says how many times wider and how many seeds would bring
    it under: the agreement then rests on a mean our own noise could move out of it."""
    d = abs(ours - published)
    s = spread or 0.0
    if s and seeds is None:
        raise ValueError("numeric: a seeds' spread needs the number of seeds it is over")
    if d <= allowance * (1 + 1e-12):
        verdict = AGREES
    elif d <= (allowance + s) * (1 + 1e-12):
        verdict = CANNOT
    else:
        verdict = DIFFERS
    note = ""
    if verdict == CANNOT and seeds is not None:
        gap = d - allowance
        under = (
            f"about {seeds_for(seeds, s, allowance)} seeds would bring our interval under the "
            "allowance"
            if s > allowance
            else "our interval is already under the allowance"
        )
        note = (
            f"|ours − published| = {d:.3g} is outside the source's allowance ±{allowance:.2g} "
            f"and within it plus our seeds' 95 % interval ±{s:.2g} ({seeds} seeds): our seeds "
            f"cannot tell; {under}, about {seeds_for(seeds, s, gap)} seeds under our distance "
            f"from its edge, {gap:.3g} (estimates: n·(interval ÷ width)², rounded up)"
        )
    elif verdict == AGREES and seeds is not None and s > allowance:
        note = (
            f"agrees within the source's allowance ±{allowance:.2g}, but our seeds' 95 % "
            f"interval ±{s:.2g} ({seeds} seeds) is {s / allowance:.2g} times it: our own noise "
            f"could move the mean out; about {seeds_for(seeds, s, allowance)} seeds would "
            f"bring the interval under the allowance (an estimate: n·(interval ÷ "
            f"allowance)², rounded up)"
        )
    return verdict, note


def numeric(
    claim: str,
    source: str,
    metric: str,
    published: str,
    ours: float | None,
    *,
    why: str = "",
    read_off: float = 0.0,
    spread: float | None = None,
    seeds: int | None = None,
    explanation: str = "",
    digits: int | None = None,
) -> Claim:
    """A published number graded against ours (:func:`grade_number`). ``published`` is the text
    as the source printed it: the source's allowance is half a unit in its last printed digit,
    plus ``read_off`` (the error of reading the value off a figure, or an "about", stated in
    ``why``). ``spread`` is the half-width of our seeds' 95 % interval (:func:`seed_spread`;
    ``None`` when one seed ran, or the claim declares no spread) over ``seeds`` seeds: it
    never widens what agrees, only what cannot be told from the source's value (``cannot
    discriminate``) rather than ``differs``."""
    half, sig = printed_precision(published)
    pub = float(published)
    allowance = half + read_off
    parts = [f"printed as {published} (±{half:.2g})"]
    if read_off:
        parts.append(f"read-off ±{read_off:.2g}")
    seeds_part = (
        f"seeds' 95 % CI ±{spread:.2g}"
        if spread is not None
        else "one seed: no CI"
        if (seeds or 1) < 2
        else f"no CI over our {seeds} seeds (the claim declares no spread)"
    )
    note = ""
    if ours is None or (isinstance(ours, float) and math.isnan(ours)):
        verdict = f"{NOT_GRADED}: we have no value"
    else:
        verdict, note = grade_number(ours, pub, allowance, spread, seeds)
    d = digits or max(sig + 1, 3)
    return Claim(
        claim,
        source,
        published,
        fmt(ours, d) if ours is not None else None,
        verdict,
        tolerance=f"±{allowance:.2g} ({', '.join(parts)}); {seeds_part}",
        note=note,
        kind="numeric",
        metric=metric,
        precision=f"{sig} significant digits",
        why=why or "the source's printed precision",
        explanation=(explanation or UNEXPLAINED) if verdict == DIFFERS else "",
    )


def explanation_text(hypotheses: list[dict[str, str]], unexplained: bool, why: str = "") -> str:
    """One text for the report: ``unexplained`` (and what is untested), then each tested
    hypothesis, its run and its outcome."""
    parts = [UNEXPLAINED + (f" ({why})" if why else "")] if unexplained else []
    parts += [
        f"hypothesis: {h['hypothesis']}; tested by: {h['tested_by']}; outcome: {h['outcome']}"
        for h in hypotheses
    ]
    return "; ".join(parts)


def seed_spread(values: Any) -> float | None:
    """Half-width of the 95 % confidence interval of the mean of per-seed values (Student's t);
    ``None`` for fewer than two (a missing value, None or NaN, left out)."""
    import numpy as np
    from scipy import stats

    v = np.asarray([x for x in values if x is not None and x == x], dtype=float)
    if len(v) < 2:
        return None
    return float(stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v)))


def _true(r: Any) -> bool:
    """A predicate's result: :data:`TIE`, :data:`STALLED` (or any text) is not true; numpy
    booleans are."""
    return not isinstance(r, str) and r is not None and bool(r)


def _tie_word(r: Any) -> str:
    """``"tie"`` / ``"stalled"`` / ``"noise"`` for a predicate's tie, else ``""``."""
    return str(r) if is_tie(r) else ""


def noise_text(r: Any, short: bool = False) -> str:
    """A predicate's tie within noise (:class:`aqmlab.reproduce.predicate.Noise`) in words:
    the difference of the compared sides, their per-seed 95 % half-width, the seeds, and an
    estimate of the seeds that would decide (:func:`seeds_for`, the half-width brought under
    the difference's distance from the resolution); ``short``: the numbers alone (a range's
    points, after :data:`NOISE_HOW`)."""
    res = f" + resolution {r.resolution:.3g}" if r.resolution else ""
    n = seeds_for(r.seeds, r.h, abs(r.d) - r.resolution)
    if short:
        return f"{r.d:+.3g} ±{r.h:.3g}{res}, {r.seeds} seeds, about {n} would decide"
    return (
        f"difference {r.d:+.3g} within our seeds' noise ±{r.h:.3g}{res} (95 % half-width of "
        f"the per-seed differences, {r.seeds} seeds); about {n} seeds would decide (an "
        "estimate: n·(half-width ÷ |difference|)², rounded up)"
    )


#: How :func:`noise_text`'s short form reads.
NOISE_HOW = (
    "difference ± the 95 % half-width of the per-seed differences; seeds that would decide: "
    "n·(half-width ÷ |difference|)², rounded up, an estimate"
)


def qualitative(
    claim: str,
    source: str,
    metric: str,
    published: str,
    predicate: Callable[[Any], Any],
    ours: Any,
    counterfactual: str,
    cf: Any,
    describe: Callable[[Any], str] = lambda v: fmt(v),
    note: str = "",
) -> Claim:
    """A qualitative finding: ``predicate(ours)`` on our arms, and the same predicate on the
    ``counterfactual`` arms ``cf`` (e.g. CoDel replaced by tail drop). ``holds`` only when the
    predicate is true on ours and false on the counterfactual; true on both is ``cannot
    discriminate``. A predicate returning :data:`TIE` or :data:`STALLED` on ours (equal values,
    or runs that delivered nothing) is ``cannot discriminate``: a tie is not a pass, and not a
    failure of the claim either; so is :data:`NOISE` (an order within our seeds' scatter), the
    note giving the difference, its half-width, the seeds and the seeds that would decide."""
    r = predicate(ours)
    ok = _true(r)
    cf_ok = _true(predicate(cf))
    tie = _tie_word(r)
    verdict = CANNOT if tie else FAILS if not ok else (CANNOT if cf_ok else HOLDS)
    if tie == NOISE:
        note = (note + "; " if note else "") + f"within noise: {describe(ours)}, " + noise_text(r)
    elif tie:
        note = (note + "; " if note else "") + (
            f"a {tie}: {describe(ours)}"
            + (" (every arm's run delivered almost nothing)" if tie == STALLED else "")
            + ", equal within the claim's resolution, is evidence for neither order"
        )
    return Claim(
        claim,
        source,
        published,
        describe(ours),
        verdict,
        note=note,
        kind="qualitative",
        metric=metric,
        why="qualitative: the predicate is also evaluated on the counterfactual",
        counterfactual=counterfactual,
        counterfactual_ours=describe(cf),
        counterfactual_verdict=HOLDS if cf_ok else FAILS,
    )


def over_range(
    claim: str,
    source: str,
    metric: str,
    published: str,
    predicate: Callable[[Any], Any],
    points: dict[str, Any],
    counterfactual: str,
    cf_points: dict[str, Any],
    describe: Callable[[Any], str] = lambda v: fmt(v),
    most: bool = False,
    note: str = "",
) -> Claim:
    """A finding over a range (every rate, every buffer, every α): ``predicate`` evaluated at
    every point of ``points``; it holds when true at every point (``most``: at more than half,
    for a source that says "in most scenarios"). A point where the predicate returns
    :data:`TIE`, :data:`STALLED` or :data:`NOISE` is *undecided*: no pass, listed among the
    failing points as ``POINT (tie)``, ``POINT (stalled)`` or ``POINT (within noise)``. A claim
    whose every point passes or is undecided, one or more undecided (``most``: the passes
    alone no majority, with the undecided points one), is ``cannot discriminate``, its note
    counting and naming the undecided points by why (:func:`_undecided_note`); a point that is
    false makes it ``does not hold`` (docs/reproductions.md, "Verdicts"). The counterfactual
    is evaluated at every point of ``cf_points`` the same way; holding there too is ``cannot
    discriminate``."""

    noisy: dict[str, Any] = {}

    def grade(pts: dict[str, Any]) -> tuple[bool, list[dict[str, Any]]]:
        rows = []
        for name, args in pts.items():
            r = predicate(args)
            rows.append(
                {
                    "point": name,
                    "ours": describe(args),
                    "ok": _true(r),
                    "stalled": isinstance(r, str) and r == STALLED,
                    "tie": isinstance(r, str) and r == TIE,
                    "noise": isinstance(r, str) and r == NOISE,
                }
            )
            if rows[-1]["noise"]:
                noisy[name] = r
        n_ok = sum(r["ok"] for r in rows)
        passed = bool(rows) and (n_ok > len(rows) / 2 if most else n_ok == len(rows))
        return passed, rows

    ok, rows = grade(points)
    ours_noisy = dict(noisy)
    cf_ok, cf_rows = grade(cf_points)
    failing = [
        r["point"]
        + (
            " (stalled)"
            if r["stalled"]
            else " (tie)"
            if r["tie"]
            else " (within noise)"
            if r["noise"]
            else ""
        )
        for r in rows
        if not r["ok"]
    ]
    stalled = sum(r["stalled"] for r in rows)
    ties = sum(r["tie"] for r in rows)
    n_noise = sum(r["noise"] for r in rows)
    extra = (
        [f"{ties} tie" + "s" * (ties > 1)] * bool(ties)
        + [f"{stalled} stalled"] * bool(stalled)
        + [f"{n_noise} within noise"] * bool(n_noise)
    )
    ours = f"{sum(r['ok'] for r in rows)} of {len(rows)} points" + (
        f" ({', '.join(extra)})" if extra else ""
    )
    cf_n = sum(r["ok"] for r in cf_rows)
    # Undecided: every point passes or is a tie, stalled or within noise, one or more of them
    # undecided (most: the passes alone are no majority, with the undecided points they are);
    # evidence for neither order, so the claim cannot discriminate. A false point decides.
    n_ok = sum(r["ok"] for r in rows)
    n_und = ties + stalled + n_noise
    undecided = (
        n_und > 0
        and not ok
        and (n_ok + n_und > len(rows) / 2 if most else n_ok + n_und == len(rows))
    )
    verdict = CANNOT if undecided else FAILS if not ok else (CANNOT if cf_ok else HOLDS)
    if undecided:
        note = (note + "; " if note else "") + _undecided_note(rows, ours_noisy, most)
    return Claim(
        claim,
        source,
        published,
        ours,
        verdict,
        note=note,
        kind="range",
        metric=metric,
        why=("most" if most else "every") + " point of the range the claim names",
        counterfactual=counterfactual,
        counterfactual_ours=f"{cf_n} of {len(cf_rows)} points",
        counterfactual_verdict=HOLDS if cf_ok else FAILS,
        points=rows,
        failing=failing,
    )


def _undecided_note(rows: list[dict[str, Any]], noisy: dict[str, Any], most: bool) -> str:
    """Why a range claim cannot discriminate (:func:`over_range`): how many of its points are
    undecided, and which, by why (ties, stalled, within noise with their numbers)."""
    named = {k: [r["point"] for r in rows if r[k]] for k in ("tie", "stalled", "noise")}
    n, n_ok = len(rows), sum(r["ok"] for r in rows)
    n_und = sum(map(len, named.values()))
    if n_und == n:
        head = "every point is " + (
            "a tie" if named["tie"] or named["stalled"] else "within our seeds' noise"
        )
    else:
        n_fail = n - n_ok - n_und
        head = f"{n_und} of {n} points undecided" + (
            f" ({n_ok} pass, no majority alone, a majority with the undecided"
            + (f"; {n_fail} fail" if n_fail else "")
            + ")"
            if most
            else " (every other point passes)"
        )
    parts = []
    if named["tie"]:
        k = len(named["tie"])
        parts.append(
            f"{k} tie{'s' * (k > 1)} (equal values within the claim's resolution): "
            + ", ".join(named["tie"])
        )
    if named["stalled"]:
        parts.append(
            f"{len(named['stalled'])} stalled (every arm's run delivered almost nothing): "
            + ", ".join(named["stalled"])
        )
    if noisy:
        parts.append(
            f"{len(noisy)} within our seeds' noise ({NOISE_HOW}) at "
            + "; ".join(f"{p}: {noise_text(r, short=True)}" for p, r in noisy.items())
        )
    return f"{head}, evidence for neither order: " + "; ".join(parts)


def noise_not_assessed(per_seed: dict[str, Any], seeds: list[int]) -> str:
    """The clause a ``holds`` / ``does not hold`` on an order our seeds' noise could have
    undone carries where that noise was not assessed (docs/reproductions.md, "Verdicts"): one
    seed ran, or the seeds' values are identical (seeds that drew nothing: no scatter to
    measure). ``per_seed``: the per-seed values of each point that decides the verdict (not a
    range's ties), one list per arm in seed order (None where the claim has none); ``seeds``:
    the seeds run. "" where the noise was assessed."""
    lists = {p: [list(v) for v in (vals or ())] for p, vals in per_seed.items()}
    n = max((len(v) for vs in lists.values() for v in vs), default=len(seeds))
    if n < 2:
        return "seed noise not assessed: one seed"
    same = [
        p
        for p, vs in lists.items()
        if vs and all(len(v) > 1 and len({repr(x) for x in v}) == 1 for v in vs)
    ]
    # Points whose arms' lists cannot be paired seed by seed (a list under two values, or
    # lists of different lengths): decided on the means, with no band.
    unpaired = [
        p
        for p, vs in lists.items()
        if vs and (len({len(v) for v in vs}) != 1 or min(map(len, vs)) < 2)
    ]
    unpaired_text = (
        f"seed noise not assessed at {'; '.join(unpaired)}: fewer than two paired seeds there"
        if unpaired
        else ""
    )
    same = [p for p in same if p not in unpaired]
    if not same:
        return unpaired_text
    run = (
        f"{n} seeds"
        if not seeds
        else f"seeds {seeds[0]}-{seeds[-1]}"
        if seeds == list(range(seeds[0], seeds[-1] + 1))
        else "seeds " + ", ".join(map(str, seeds))
    )
    if len(same) == len(lists):
        return f"seed noise not assessed: {run} identical"
    text = f"seed noise not assessed at {'; '.join(same)}: {run} identical there"
    return "; ".join(x for x in (text, unpaired_text) if x)


def not_graded(claim: str, source: str, published: Any, why: str, ours: Any = None) -> Claim:
    """A published number we cannot grade, and why."""
    return Claim(claim, source, published, ours, f"{NOT_GRADED}: {why}", kind="not graded")


def stalled(fraction_of_link: float) -> bool:
    """A run that carried less than :data:`STALLED_FRACTION` of its link's capacity."""
    return not fraction_of_link >= STALLED_FRACTION


def identical_seeds(df: Any, by: list[str], metrics: list[str]) -> list[str]:
    """The groups (``by`` values joined) whose every seed gave identical ``metrics``: seeds that
    drew nothing, where a "mean over seeds" is one run repeated."""
    out = []
    if "seed" in df.columns and df["seed"].nunique() < 2:
        return out
    cols = [m for m in metrics if m in df.columns]
    for key, g in df.groupby(by, sort=False):
        if len(g) > 1 and all(g[c].nunique(dropna=False) == 1 for c in cols):
            out.append(", ".join(str(k) for k in (key if isinstance(key, tuple) else (key,))))
    return out


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[Any]]
    note: str = ""


@dataclass
class Reproduction:
    """What a reproduction found: written out by :func:`write`."""

    name: str
    title: str
    sources: list[str]
    parameters: dict[str, Any]
    claims: list[Claim]
    tables: list[Table]
    figures: list[str]  # paths of PNG files (an SVG beside each)
    numbers: dict[str, Any]
    discussion: list[str]
    quick: bool
    seeds: list[int]
    wall_s: float = 0.0
    commands: list[str] = field(default_factory=list)
    #: Sweep points whose seeds all gave identical results (:func:`identical_seed_points`).
    identical_seeds: list[str] = field(default_factory=list)


def telling_digits(values: Any, digits: int = 3) -> int:
    """The significant digits, ``digits`` at least, with which :func:`fmt` prints every two
    unequal numbers of ``values`` unequal (issue 19's D5: a claim's arms that differ never
    print as a tie: 13.553 vs 13.552, not 13.6 vs 13.6); what is no finite number is left
    out."""
    nums = sorted(
        {
            float(v)
            for v in values
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        }
    )
    while digits < 17 and any(fmt(x, digits) == fmt(y, digits) for x, y in zip(nums, nums[1:])):
        digits += 1
    return digits


def fmt(v: Any, digits: int = 3) -> str:
    """A number with ``digits`` significant digits whatever its size (1.029 -> "1.03",
    0.04983 -> "0.0498", 45.67 -> "45.7"), integers and numbers of more than ``digits`` integer
    digits in full with thousands separators, very small or large ones in exponent form."""
    if v is None:
        return "–"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        if v == 0:
            return "0"
        a = abs(v)
        if a >= 1e7 or a < 1e-4:
            return f"{v:.{digits - 1}e}"
        mag = math.floor(math.log10(a))
        decimals = digits - 1 - mag
        if decimals <= 0:
            return f"{round(v):,}"
        text = f"{v:.{decimals}f}"
        # Rounding may carry into a new digit (9.996 -> "10.00"): one decimal fewer.
        if abs(float(text)) >= 10 ** (mag + 1) and decimals > 0:
            text = f"{v:.{decimals - 1}f}"
        return text
    return str(v)


def _md_table(t: Table) -> str:
    lines = [f"**{t.title}**", ""]
    lines.append("| " + " | ".join(t.header) + " |")
    lines.append("|" + "---|" * len(t.header))
    for r in t.rows:
        lines.append("| " + " | ".join(fmt(v) for v in r) + " |")
    if t.note:
        lines += ["", t.note]
    return "\n".join(lines)


def write(rep: Reproduction, out: str) -> dict[str, str]:
    """Write ``results.json``, ``report.md`` and ``report.html`` into ``out``; return their
    paths."""
    os.makedirs(out, exist_ok=True)
    doc = {
        "name": rep.name,
        "title": rep.title,
        "aqmlab_version": __version__,
        "quick": rep.quick,
        "seeds": rep.seeds,
        "wall_s": rep.wall_s,
        "sources": rep.sources,
        "parameters": rep.parameters,
        "numbers": rep.numbers,
        "claims": [asdict(c) for c in rep.claims],
        "tables": [asdict(t) for t in rep.tables],
        "figures": [os.path.relpath(p, out) for p in rep.figures],
        "commands": rep.commands,
        "identical_seeds": rep.identical_seeds,
        "verdicts": {
            v: sum(c.verdict.split(":")[0] == v for c in rep.claims)
            for v in (*VERDICTS, NOT_GRADED)
        },
    }
    paths = {}
    paths["results.json"] = _put(out, "results.json", json.dumps(doc, indent=2, default=str) + "\n")
    paths["report.md"] = _put(out, "report.md", _markdown(rep, out))
    paths["report.html"] = _put(out, "report.html", _html(rep, out))
    return paths


def _put(out: str, name: str, text: str) -> str:
    path = os.path.join(out, name)
    with open(path + ".partial", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".partial", path)
    return path


def _claims_table(rep: Reproduction) -> Table:
    def cf(c: Claim) -> str:
        if not c.counterfactual:
            return ""
        return f"{c.counterfactual}: {fmt(c.counterfactual_ours)} → {c.counterfactual_verdict}"

    def notes(c: Claim) -> str:
        bits = [c.note]
        if c.failing:
            bits.append("fails at " + ", ".join(c.failing))
        if c.explanation:
            bits.append(
                ("why: " if not c.explanation.startswith(UNEXPLAINED) else "") + c.explanation
            )
        return "; ".join(b for b in bits if b)

    return Table(
        "The paper's claims beside ours",
        [
            "claim",
            "source",
            "published",
            "aqmlab",
            "verdict",
            "tolerance (why)",
            "counterfactual → its verdict",
            "notes",
        ],
        [
            [
                c.claim,
                f"{c.source} ({c.location})" if c.location else c.source,
                c.published,
                c.ours,
                c.verdict,
                f"{c.tolerance} ({c.why})" if c.tolerance else c.why,
                cf(c),
                notes(c),
            ]
            for c in rep.claims
        ],
        note="Verdicts (docs/reproductions.md): a number agrees within the source's allowance "
        "(printed precision, read-off), differs outside it plus our seeds' 95 % interval, and "
        "cannot discriminate in between; a finding holds only when the predicate is true on "
        "our arms and false on the counterfactual, and cannot discriminate when it is true on "
        "both; not graded says why.",
    )


def _seeds_text(rep: Reproduction) -> list[str]:
    if not rep.identical_seeds:
        return []
    pts = "; ".join(rep.identical_seeds)
    return [
        f"**Seeds that drew nothing.** At these points every seed gave the same value of "
        f"every metric (spread under 1e-9 of the mean), so a 'mean over seeds' there is one "
        f"run repeated and its spread is 0 for no statistical reason: {pts}.",
        "",
    ]


def _seeds_titled(rep: Reproduction, t: Table) -> Table:
    """A table "means over seeds" says so only where the seeds drew something."""
    if rep.identical_seeds and "means over seeds" in t.title:
        return Table(
            t.title.replace(
                "means over seeds",
                "means over seeds, which drew nothing at some points: see 'Seeds that drew "
                "nothing'",
            ),
            t.header,
            t.rows,
            t.note,
        )
    return t


def _markdown(rep: Reproduction, out: str) -> str:
    mode = "quick (shortened for CI)" if rep.quick else "full"
    parts = [
        f"# {rep.title}",
        "",
        f"`aqmlab reproduce {rep.name}`, {mode} run, seeds {rep.seeds}, aqmlab {__version__}, "
        f"{rep.wall_s:.1f} s wall.",
        "",
        "Sources: " + "; ".join(rep.sources),
        "",
        *_seeds_text(rep),
        "## Claims",
        "",
        _md_table(_claims_table(rep)),
        "",
        "## Comparison",
        "",
        *[f"* {d}" for d in rep.discussion],
        "",
        "## Tables",
        "",
    ]
    for t in rep.tables:
        parts += [_md_table(_seeds_titled(rep, t)), ""]
    parts += ["## Figures", ""]
    for p in rep.figures:
        rel = os.path.relpath(p, out)
        parts += [f"![{os.path.basename(p)}]({rel})", ""]
    parts += [
        "## Parameters",
        "",
        "```json",
        json.dumps(rep.parameters, indent=2, default=str),
        "```",
        "",
        "## Commands",
        "",
    ]
    parts += [f"    {c}" for c in rep.commands]
    return "\n".join(parts) + "\n"


def _html(rep: Reproduction, out: str) -> str:
    from aqmlab.report import _e, _figures, _page, _table

    mode = "quick (shortened for CI)" if rep.quick else "full"
    body = [
        f"<p><code>aqmlab reproduce {_e(rep.name)}</code>, {mode} run, seeds "
        f"{_e(rep.seeds)}, {rep.wall_s:.1f} s wall.</p>",
        "<p>Sources: " + "; ".join(_e(s) for s in rep.sources) + "</p>",
    ]
    seeds = _seeds_text(rep)
    if seeds:
        body.append("<p>" + _e(seeds[0].replace("**", "")) + "</p>")
    body.append("<h2>Claims</h2>")
    ct = _claims_table(rep)
    body.append(_table(ct.header, [[fmt(v) for v in r] for r in ct.rows], left=8))
    body.append(f"<p>{_e(ct.note)}</p>")
    body.append(
        "<h2>Comparison</h2><ul>" + "".join(f"<li>{_e(d)}</li>" for d in rep.discussion) + "</ul>"
    )
    body.append("<h2>Tables</h2>")
    for t in rep.tables:
        t = _seeds_titled(rep, t)
        body.append(f"<h3>{_e(t.title)}</h3>")
        body.append(_table(t.header, [[fmt(v) for v in r] for r in t.rows], left=1))
        if t.note:
            body.append(f"<p>{_e(t.note)}</p>")
    body.append("<h2>Figures</h2>" + _figures(rep.figures))
    body.append(
        "<h2>Parameters</h2><pre>"
        + _e(json.dumps(rep.parameters, indent=2, default=str))
        + "</pre>"
    )
    body.append("<h2>Commands</h2><pre>" + _e("\n".join(rep.commands)) + "</pre>")
    return _page(rep.title, "\n".join(body))


def identical_seed_points(out: str) -> list[str]:
    """Every point of the sweeps in ``out`` (its folders holding a ``summary.csv``) where two
    or more seeds ran and every metric came out the same: seeds that drew nothing."""
    from aqmlab.results import read_summary
    from aqmlab.sweepresult import identical_seed_groups

    found = []
    for entry in sorted(os.listdir(out)):
        folder = os.path.join(out, entry)
        if not os.path.isfile(os.path.join(folder, "summary.csv")):
            continue
        s = read_summary(folder)
        for key in identical_seed_groups(s):
            found.append(f"{entry}: " + ", ".join(str(k) for k in key))
    return found


def run_sweep_or_fail(
    spec: Any,
    folder: str,
    name: str,
    quick: bool,
    jobs: Any,
    progress: bool,
    command: str | None = None,
) -> Any:
    """Run a reproduction's sweep into ``folder``; a failed run fails the reproduction
    (:class:`RunsFailed`), its message naming the first failed point (its axes' values) and
    its error, and the table that holds every one."""
    from aqmlab.sweep import run_sweep

    command = command or f"aqmlab reproduce {name}" + (" --quick" if quick else "")
    res = run_sweep(spec, folder, jobs=jobs, progress=progress, command=command)
    if res.failed:
        bad = res.results.loc[res.results["error"].notna(), [*spec.columns, "error"]]
        first = bad.iloc[0]
        point = ", ".join(f"{c} = {first[c]}" for c in spec.columns)
        raise RunsFailed(
            f"{name}: {res.failed} of {res.rows} runs failed; the first ({point}): "
            f"{first['error']}; every error is in the 'error' column of "
            f"{os.path.join(folder, 'results.csv')}, and a rerun into the same folder "
            "simulates only the failed runs"
        )
    return res


class RunsFailed(AqmlabError):
    """Some of a reproduction's runs failed (the runs that finished stay in its folders)."""


def bundled_scenario(name: str) -> str:
    """The path of a scenario bundled with aqmlab (``scenarios/NAME.toml``)."""
    from aqmlab.scenarios import resolve

    path = resolve(name)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"the bundled scenario {name!r} is not installed")
    return path


def packet_sojourns_ms(run_dir: str, link: str) -> tuple[Any, Any]:
    """``(t_s, sojourn_ms)`` numpy arrays of every packet the run's log has for ``link``."""
    from aqmlab.results import Run

    return Run(run_dir).sojourns_ms(link)


def link_series(run_dir: str, link: str) -> Any:
    from aqmlab.results import Run

    return Run(run_dir).link_series(link)


def phase_stats(
    run_dir: str, link: str, phases: list[tuple[float, float, float]]
) -> list[dict[str, float]]:
    """Per phase ``(from_s, to_s, rate_bps)``: median and 75th-percentile sojourn of the packets
    that left in it (from the packet log), the bytes the link sent in it (its series), and
    those bytes as a share of what the rate could carry."""
    import numpy as np

    t, soj = packet_sojourns_ms(run_dir, link)
    series = link_series(run_dir, link)
    out = []
    for t0, t1, rate in phases:
        sel = (t >= t0) & (t < t1)
        inside = (series["t_s"] >= t0 - 1e-9) & (series["t_s"] < t1 - 1e-9)
        sent = float(series.loc[inside, "egress_bytes"].sum())
        out.append(
            {
                "p50_ms": float(np.quantile(soj[sel], 0.5)) if sel.any() else math.nan,
                "p75_ms": float(np.quantile(soj[sel], 0.75)) if sel.any() else math.nan,
                "mb": sent / 1e6,
                "pct_of_max": 100.0 * sent * 8 / (rate * (t1 - t0)),
            }
        )
    return out


def window_stats(run_dir: str, link: str, t0: float, t1: float) -> dict[str, float]:
    """A link's throughput and average queue over the bins in [t0, t1), from its series:
    ``bytes`` sent, ``pkts`` released, ``drops``, and ``avg_queue`` by Little's law, the sum of
    the sojourns of the packets released in the window (bin count × bin mean) ÷ its length."""
    s = link_series(run_dir, link)
    w = s[(s["t_s"] >= t0 - 1e-9) & (s["t_s"] < t1 - 1e-9)]
    soj_s = (w["released_pkts"] * w["mean_sojourn_ms"].fillna(0.0)).sum() / 1e3
    return {
        "bytes": float(w["egress_bytes"].sum()),
        "pkts": float(w["released_pkts"].sum()),
        "drops": float(w["drops"].sum()),
        "avg_queue": float(soj_s) / (t1 - t0),
    }


def flow_bytes(run_dir: str, t0: float, t1: float) -> dict[int, float]:
    """Bytes each flow delivered in the bins of [t0, t1) (its series)."""
    from aqmlab.results import Run

    f = Run(run_dir).table("flows")
    w = f[(f["t_s"] >= t0 - 1e-9) & (f["t_s"] < t1 - 1e-9)]
    return {int(k): float(v) for k, v in w.groupby("flow")["delivered_bytes"].sum().items()}
