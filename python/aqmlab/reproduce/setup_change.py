"""A hypothesis's outcome from one change of the set-up (docs/reproductions.md, "Metrics as
data": ``[numbers.NAME]`` with ``setup_change``): "the set-up's X, not our model, puts these
points outside the claim's band", tested by a reference (another simulator) on the same set-up
and by both run again with X changed. The number is the outcome's text, for a hypothesis's
``outcome = "{NAME}"`` (not the hypothesis test ``test = "rerun"``, rerun.py, which reruns
some of a claim's own runs).

``setup_change`` is the path of a number declared above holding ``{set-up: {point: value}}``;
``ours``, ``reference``, ``ours_changed``, ``reference_changed`` name its four set-ups (ours
and the reference before the change, and after it); ``points`` maps each point to its label in
the text, in order; ``band = [low, high]`` is the claim's inside, ``band_name`` its noun
("proportion": in proportion, out of proportion); ``text`` holds the words the outcome is
written with (the keys of :data:`TEXT`). At each point ours puts outside the band:

* the reference outside too: the set-up, not our model (if none: ``refuted``); of those,
  where the change brings both inside, the change's cause is confirmed (``supports``), where
  the reference stays outside, another part of the set-up (not tested further);
* the reference inside: not the cause (``otherwise`` says what tests it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce.common import seed_spread

#: The words of the outcome (red-bursty's, in its experiment.toml, as examples).
TEXT = {
    "measured": "what is compared (node 5's drop share ÷ throughput share)",
    "ours": "our simulator (aqmlab)",
    "reference": "the reference (ns-2.35)",
    "runs": "the runs compared (Tahoe; seeds 1-3 for ns-2.35)",
    "before": "the set-up (with RED's buffer of 4 min_th)",
    "after": "the changed set-up (with 100 packets)",
    "change": "the change, as a subject (the 100-packet buffer)",
    "cause": "the cause tested (the buffer of 4 min_th)",
    "cause_short": "the cause in short (the buffer)",
    "otherwise": "what tests the points the cause does not explain (the seeds hypothesis tests it)",
}
KEYS = ("setup_change", "ours", "reference", "ours_changed", "reference_changed", "points", "band")
KEYS = (*KEYS, "band_name", "text", "reference_seeds")


@dataclass
class SetupChange:
    values: str
    setups: tuple[str, str, str, str]  # ours, reference, ours_changed, reference_changed
    points: dict[str, str]  # point -> its label
    band: tuple[float, float]
    band_name: str
    text: dict[str, str]
    #: The path of a number ``{point: [value per seed]}``: the reference's seeds before the
    #: change ("" where it has none).
    reference_seeds: str = ""


def number(name: str, where: str, d: dict[str, Any]) -> Any:
    """A ``[numbers.NAME]`` of ``setup_change``, checked."""
    from aqmlab.reproduce.metrics import NumberDef

    for k in d:
        if k not in KEYS:
            raise AqmlabError(
                f"{where}.{k}: not with setup_change (expected one of {', '.join(KEYS)})"
            )
    texts = {}
    for k in (
        "setup_change",
        "ours",
        "reference",
        "ours_changed",
        "reference_changed",
        "band_name",
    ):
        v = d.get(k)
        if not isinstance(v, str) or not v:
            raise AqmlabError(f"{where}.{k}: expected a text, got {v!r}")
        texts[k] = v
    pts = d.get("points")
    if not isinstance(pts, dict) or not pts or not all(isinstance(v, str) for v in pts.values()):
        raise AqmlabError(f'{where}.points: expected a table of POINT = "its label", got {pts!r}')
    band = d.get("band")
    if (
        not isinstance(band, list)
        or len(band) != 2
        or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in band)
        or not band[0] < band[1]
    ):
        raise AqmlabError(f"{where}.band: expected [low, high], two numbers, low < high")
    text = d.get("text")
    missing = [k for k in TEXT if not isinstance(text, dict) or not isinstance(text.get(k), str)]
    if missing:
        raise AqmlabError(f"{where}.text.{missing[0]}: expected a text: {TEXT[missing[0]]}")
    extra = [k for k in text if k not in TEXT]
    if extra:
        raise AqmlabError(
            f"{where}.text.{extra[0]}: unknown key (expected one of {', '.join(TEXT)})"
        )
    seeds = d.get("reference_seeds", "")
    if not isinstance(seeds, str):
        raise AqmlabError(
            f"{where}.reference_seeds: expected a text (a number's path), got {seeds!r}"
        )
    r = SetupChange(
        texts["setup_change"],
        (texts["ours"], texts["reference"], texts["ours_changed"], texts["reference_changed"]),
        dict(pts),
        (float(band[0]), float(band[1])),
        texts["band_name"],
        dict(text),
        seeds,
    )
    return NumberDef(name, [], "", [], {}, [], None, {}, where, setup_change=r)


def value(nd: Any, numbers: dict[str, Any]) -> str:
    """The outcome's text from the number ``setup_change`` names (declared above)."""
    from aqmlab.reproduce.loader import split_path

    r: SetupChange = nd.setup_change
    v: Any = numbers
    for k in split_path(r.values):
        if not isinstance(v, dict) or k not in v:
            raise AqmlabError(
                f"{nd.where}.setup_change: no number {r.values!r} (declared above this one)"
            )
        v = v[k]
    tables = []
    for i, s in enumerate(r.setups):
        t = v.get(s) if isinstance(v, dict) else None
        if t is None and i != 2:
            raise AqmlabError(
                f"{nd.where}.{KEYS[i + 1]}: no set-up {s!r} in {r.values!r} "
                f"(it has {', '.join(map(str, v))})"
            )
        tables.append(t)
    ours, ref, ours_changed, ref_changed = tables
    ref_seeds: Any = None
    if r.reference_seeds:
        ref_seeds = numbers
        for k in split_path(r.reference_seeds):
            if not isinstance(ref_seeds, dict) or k not in ref_seeds:
                raise AqmlabError(
                    f"{nd.where}.reference_seeds: no number {r.reference_seeds!r} (declared "
                    "above this one)"
                )
            ref_seeds = ref_seeds[k]
    return text(r, ours, ours_changed, ref, ref_changed, ref_seeds)


def text(
    r: SetupChange,
    ours: dict,
    ours_changed: dict | None,
    ref: dict,
    ref_changed: dict,
    ref_seeds: dict | None = None,
) -> str:
    """The outcome (module docstring) from the four set-ups' ``{point: value}`` (``ours_changed``
    None where ours with the change did not run)."""
    from aqmlab.reproduce.common import fmt

    lo, hi = r.band
    w, inn = r.text, r.band_name

    def inside(x: float) -> bool:
        return lo <= x <= hi

    pts = list(r.points)
    each = "; ".join(
        f"{r.points[p]}: {fmt(ours.get(p, math.nan))} | {fmt(ref.get(p, math.nan))}"
        + (
            f" → {fmt(ours_changed.get(p, math.nan)) if ours_changed else '–'} | "
            f"{fmt(ref_changed.get(p, math.nan))}"
        )
        for p in pts
    )
    ours_out = [p for p in pts if p in ours and not inside(ours[p])]
    same = [p for p in ours_out if p in ref and not inside(ref[p])]
    differ = [p for p in ours_out if p not in same]
    # Where the reference's own seeds reach across the band's nearer edge (its mean within
    # their 95 % half-width of it: docs/reproductions.md, "Hypothesis tests"), it cannot tell.
    # Inside or out, a reference whose mean is within its seeds' half-width of the nearer
    # edge tells neither "the set-up" nor "not the cause" there.
    noisy = {}
    for p in same + [p for p in differ if p in ref]:
        h = seed_spread((ref_seeds or {}).get(p) or [])
        edge = min((lo, hi), key=lambda e: abs(ref[p] - e))
        if h is not None and abs(ref[p] - edge) <= h:
            noisy[p] = h
    same = [p for p in same if p not in noisy]
    differ = [p for p in differ if p not in noisy]
    out = (
        f"{w['measured']}, {w['ours']} | {w['reference']} ({w['runs']}) {w['before']} → "
        f"{w['after']}: {each}. "
    )
    # Of the points both put outside, those the change brings inside in both (the cause) and
    # those it does not (another part of the set-up).
    fixed = [
        p
        for p in same
        if inside(ref_changed.get(p, math.nan))
        and ours_changed
        and inside(ours_changed.get(p, math.nan))
    ]
    kept = [p for p in same if p not in fixed]
    parts = []
    if noisy:
        shown = ", ".join(f"{p} ({fmt(ref[p])} ±{h:.2g})" for p, h in noisy.items())
        parts.append(
            f"{w['reference']}'s mean at {shown} is within its seeds' noise of the band's "
            "edge: it cannot tell there"
        )
    if not ours_out:
        parts.append(f"every point of ours is in {inn}")
    elif not same and not noisy:
        parts.append(
            f"{w['reference']} on the same set-up is in {inn} at every point where ours is not: "
            "refuted"
        )
    else:
        if same:
            parts.append(
                f"{w['reference']} on the same set-up is out of {inn} too at "
                f"{', '.join(same)}: there the set-up, not {w['ours']}'s model, fails the claim"
            )
        if fixed:
            parts.append(
                f"at {', '.join(fixed)} {w['change']} brings both simulators in {inn}: "
                f"{w['cause']} is the cause (supports)"
            )
        if kept:
            parts.append(
                f"at {', '.join(kept)} {w['reference']} stays out of {inn} {w['after']} too: "
                f"there it is another part of the set-up, not {w['cause_short']} (not tested "
                "further)"
            )
        if differ:
            parts.append(
                f"at {', '.join(differ)} {w['reference']} is in {inn} and ours is not: not "
                f"{w['cause_short']} ({w['otherwise']})"
            )
    return out + "; ".join(parts) + "."
