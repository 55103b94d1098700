"""Orders within our seeds' noise (docs/reproductions.md, "Ties and stalled runs"): an ordering
comparison with an arm-dependent side (against another, or a constant) is a tie "within noise"
when the difference of its sides on the means is within the claim's resolution (between two
arm-dependent sides only) plus the 95 % Student-t half-width of the per-seed differences,
paired by seed; such a claim cannot discriminate, however its predicate is written."""

from __future__ import annotations

import json
import math

import pytest
from aqmlab.reproduce import common as cm
from aqmlab.reproduce.loader import _Point
from aqmlab.reproduce.predicate import NOISE, TIE, compile_predicate
from conftest import example_folder, refused_in_one_line, run_cli

#: Student's t, 97.5 % quantile, 2 degrees of freedom (3 seeds): the 95 % two-sided interval.
T2 = 4.302652729749462


def point(means, *per_seed):
    """A point's arm values with each arm's per-seed values (no delivered share)."""
    return _Point(tuple(means), None, per_seed or None)


# Three seeds: a = 2, 0, 4 (mean 2), b = 1, 1, 1 (mean 1); differences 1, -1, 3: mean 1,
# standard deviation 2, half-width T2 · 2 / √3 = 4.968 > |2 - 1|: within noise.
NOISY = point((2.0, 1.0), [2.0, 0.0, 4.0], [1.0, 1.0, 1.0])
# Differences 1, 1.1, 0.9: standard deviation 0.1, half-width 0.248 < 1: an order.
CLEAR = point((2.0, 1.0), [2.0, 2.1, 1.9], [1.0, 1.0, 1.0])


def test_an_order_within_the_seeds_half_width_is_a_noise_tie_with_its_numbers():
    r = compile_predicate("a > b", 2, "w")(NOISY)
    assert r == NOISE
    assert r.d == 1.0 and r.seeds == 3 and r.resolution == 0.0
    assert r.h == pytest.approx(T2 * 2 / math.sqrt(3), rel=1e-12)
    # The counterfactual, the arms swapped: false on the means, but within the same noise.
    swapped = compile_predicate("a > b", 2, "w")(point((1.0, 2.0), [1.0] * 3, [2.0, 0.0, 4.0]))
    assert swapped == NOISE and swapped.d == -1.0


def test_beyond_the_half_width_the_order_stands_and_one_seed_changes_nothing():
    pred = compile_predicate("a > b", 2, "w")
    assert pred(CLEAR) is True
    assert compile_predicate("a < b", 2, "w")(CLEAR) is False
    # One seed: no half-width, the comparison is today's (a pass; equal values a tie).
    assert pred(point((2.0, 1.0), [2.0], [1.0])) is True
    assert pred(point((1.0, 1.0), [1.0], [1.0])) == TIE
    # No per-seed values at all: as before.
    assert pred((2.0, 1.0)) is True
    # The resolution widens the band: |d| = 1 <= 0.8 + 0.248.
    r = compile_predicate("a > b", 2, "w", resolution=0.8)(CLEAR)
    assert r == NOISE and r.h == pytest.approx(T2 * 0.1 / math.sqrt(3), rel=1e-9)


def test_the_sides_are_the_same_expression_on_each_seeds_values():
    # a < b / 10, means 0.5 and 4.0: d = 0.5 - 0.4 = 0.1; per seed a - b/10 with a = 0.5, 0.1,
    # 0.9 and b = 4 each: 0.1, -0.3, 0.5 (standard deviation 0.4, half-width 0.994).
    r = compile_predicate("a < b / 10", 2, "w")(point((0.5, 4.0), [0.5, 0.1, 0.9], [4.0, 4.0, 4.0]))
    assert r == NOISE and r.d == pytest.approx(0.1)
    assert r.h == pytest.approx(T2 * 0.4 / math.sqrt(3), rel=1e-9)
    # A comparison with a constant has the band too: a = 2, 0, 4 against 1.5, differences 0.5,
    # -1.5, 2.5 (standard deviation 2, half-width 4.968 > 0.5).
    r = compile_predicate("a > 1.5", 2, "w")(NOISY)
    assert r == NOISE and r.d == 0.5 and r.h == pytest.approx(T2 * 2 / math.sqrt(3), rel=1e-12)


def test_a_threshold_within_and_beyond_the_seeds_half_width():
    """``a >= 0.85``: the constant is the same on every seed, so the band is that of a's
    per-seed values less 0.85; the claim's resolution does not widen it (only between two
    arm-dependent sides, as for the exact tie)."""
    pred = compile_predicate("a >= 0.85", 1, "w")
    # a = 0.80, 0.86, 0.92 (mean 0.86): differences -0.05, 0.01, 0.07, standard deviation
    # 0.06, half-width T2 · 0.06 / √3 = 0.149 > d = 0.01.
    r = pred(point((0.86,), [0.80, 0.86, 0.92]))
    assert r == NOISE and r.d == pytest.approx(0.01) and r.seeds == 3 and r.resolution == 0.0
    assert r.h == pytest.approx(T2 * 0.06 / math.sqrt(3), rel=1e-9)
    # a = 0.95, 0.96, 0.97: d = 0.11 beyond the half-width T2 · 0.01 / √3 = 0.0248.
    clear = point((0.96,), [0.95, 0.96, 0.97])
    assert pred(clear) is True
    assert compile_predicate("a <= 0.85", 1, "w")(clear) is False
    assert compile_predicate("a >= 0.85", 1, "w", resolution=0.2)(clear) is True
    # The counterfactual arms under the same rule: within noise of the threshold is no pass,
    # so the claim is not undone by it (a pass there would make it cannot discriminate).
    c = cm.qualitative("x", "s", "m", "", pred, clear, "cf", point((0.86,), [0.80, 0.86, 0.92]))
    assert (c.verdict, c.counterfactual_verdict) == (cm.HOLDS, cm.FAILS)
    # A constant on the left, and abs() of a difference with a constant: the same band.
    assert compile_predicate("0.85 <= a", 1, "w")(point((0.86,), [0.80, 0.86, 0.92])) == NOISE
    r = compile_predicate("abs(a - 0.9) <= 0.05", 1, "w")(point((0.86,), [0.80, 0.86, 0.92]))
    # |a_s - 0.9| - 0.05 = 0.05, -0.01, -0.03 (standard deviation 0.0416): d = -0.01.
    assert r == NOISE and r.d == pytest.approx(-0.01)
    assert r.h == pytest.approx(T2 * 0.0416333199893 / math.sqrt(3), rel=1e-9)


def test_a_band_within_noise_at_both_edges_tells_its_nearer_edge():
    """red-bursty's node-5 band on ns-2.35's seeds 1-3 at RED min_th 4 (ratios 1.417, 2.199,
    1.413): the mean 1.676 is within the per-seed half-width (1.12) of both edges; the note
    gives the nearer, 4/3 (d = +0.343), not the first written, 0.75 (d = -0.926)."""
    s = [1.417, 2.199, 1.413]
    m = sum(s) / 3
    r = compile_predicate("0.75 <= a <= 4 / 3", 1, "w")(point((m,), s))
    assert r == NOISE and r.d == pytest.approx(m - 4 / 3)
    sd = math.sqrt(sum((x - m) ** 2 for x in s) / 2)
    assert r.h == pytest.approx(T2 * sd / math.sqrt(3), rel=1e-9)
    # Written as two comparisons joined by `and`, in either order: the same edge.
    for text in ("0.75 <= a and a <= 4 / 3", "a <= 4 / 3 and 0.75 <= a"):
        r = compile_predicate(text, 1, "w")(point((m,), s))
        assert r == NOISE and r.d == pytest.approx(m - 4 / 3), text


def test_a_constant_equal_to_the_mean_passes_ge_unless_the_seeds_scatter():
    pred = compile_predicate("a >= 0.85", 1, "w")
    assert pred((0.85,)) is True  # no per-seed values: today's comparison, no exact tie
    assert pred(point((0.85,), [0.85, 0.85, 0.85])) is True  # no scatter: no band
    assert compile_predicate("a > 0.85", 1, "w")(point((0.85,), [0.85] * 3)) is False
    r = pred(point((0.85,), [0.80, 0.85, 0.90]))  # d = 0 within ±0.124
    assert r == NOISE and r.d == 0.0 and r.h == pytest.approx(T2 * 0.05 / math.sqrt(3))


def test_a_ratio_band_and_its_product_form_give_the_same_verdict():
    """consumer-edge's codel-similar-data written both ways, on the same per-seed data: each
    side's comparison gets the band of its own per-seed differences, so neither form passes
    an order the seeds cannot tell."""
    ratio = compile_predicate("0.9 <= a / b <= 1.1", 2, "w")
    product = compile_predicate("0.9 * b <= a <= 1.1 * b", 2, "w")
    # b = 2, 1, 4 and a = 1.7, 1.05, 3.9 (ratios 0.85, 1.05, 0.975): on the means a / b =
    # 2.2167 / 2.3333 = 0.95, 0.05 above 0.9; per seed 0.9 - a_s / b_s = 0.05, -0.15, -0.075
    # (half-width 0.251) and 0.9 b_s - a_s = 0.1, -0.15, -0.3 (half-width 0.502).
    a, b = [1.7, 1.05, 3.9], [2.0, 1.0, 4.0]
    noisy = point((sum(a) / 3, sum(b) / 3), a, b)
    r, p = ratio(noisy), product(noisy)
    assert r == NOISE and p == NOISE
    assert r.d == pytest.approx(0.9 - 0.95) and p.d == pytest.approx(0.9 * 7 / 3 - 6.65 / 3)
    assert r.h == pytest.approx(T2 * 0.10103629710818451 / math.sqrt(3), rel=1e-9)
    assert p.h == pytest.approx(T2 * 0.2020725942163690 / math.sqrt(3), rel=1e-9)
    cf = point((1.0, 1.0))
    verdicts = {
        cm.qualitative("x", "s", "m", "", f, noisy, "cf", cf).verdict for f in (ratio, product)
    }
    assert verdicts == {cm.CANNOT}
    # a = b · (1, 1, 1) + a little: both forms pass beyond their half-widths.
    a, b = [1.0, 1.1, 0.9], [1.0, 1.1, 0.9]
    clear = point((1.0, 1.0), a, b)
    assert ratio(clear) is True and product(clear) is True
    verdicts = {
        cm.qualitative("x", "s", "m", "", f, clear, "cf", point((2.0, 1.0))).verdict
        for f in (ratio, product)
    }
    assert verdicts == {cm.HOLDS}


def test_and_or_not_with_a_noise_tie():
    ev = {
        t: compile_predicate(t, 2, "w")(NOISY)
        for t in (
            "a > b and a > -5",
            "a > b and a > 10",
            "a > b or a > -5",
            "a > b or a > 10",
            "not (a > b)",
            "a > b and a == b",
        )
    }
    # a against -5 and 10: |d| = 7 and 8, beyond the half-width 4.968.
    assert ev["a > b and a > -5"] == NOISE  # no false part: the noise decides
    assert ev["a > b and a > 10"] is False  # a false part is false
    assert ev["a > b or a > -5"] is True  # a true part is true
    assert ev["a > b or a > 10"] == NOISE
    assert ev["not (a > b)"] == NOISE
    # An exact tie outranks a noise one.
    assert (
        compile_predicate("a > b and a >= c", 3, "w")(
            _Point((2.0, 1.0, 2.0), None, ([2.0, 0.0, 4.0], [1.0] * 3, [2.0, 0.0, 4.0]))
        )
        == TIE
    )


def test_a_qualitative_claim_within_noise_cannot_discriminate_and_says_why():
    pred = compile_predicate("a > b", 2, "w")
    swapped = point((1.0, 2.0), [1.0] * 3, [2.0, 0.0, 4.0])
    c = cm.qualitative(
        "x", "s", "m", "a > b", pred, NOISY, "swapped", swapped, lambda v: f"{v[0]:g} vs {v[1]:g}"
    )
    assert c.verdict == cm.CANNOT and c.counterfactual_verdict == cm.FAILS
    h = T2 * 2 / math.sqrt(3)
    # Seeds that would decide: ⌈3 · (h / 1)²⌉ = ⌈74.05⌉ = 75.
    assert cm.seeds_for(3, h, 1.0) == 75
    assert c.note == (
        f"within noise: 2 vs 1, difference +1 within our seeds' noise ±{h:.3g} (95 % "
        "half-width of the per-seed differences, 3 seeds); about 75 seeds would decide (an "
        "estimate: n·(half-width ÷ |difference|)², rounded up)"
    )
    clear = cm.qualitative("x", "s", "m", "a > b", pred, CLEAR, "swapped", point((1.0, 2.0)))
    assert clear.verdict == cm.HOLDS and clear.note == ""


def test_a_range_within_noise_cannot_discriminate_a_true_failure_does_not_hold():
    pred = compile_predicate("a > b", 2, "w")
    cf = {"p1": point((1.0, 2.0)), "p2": point((1.0, 2.0)), "p3": point((1.0, 2.0))}
    lose = point((1.0, 2.0), [1.0, 1.1, 0.9], [2.0, 2.0, 2.0])  # clearly false
    c = cm.over_range("x", "s", "m", "a > b", pred, {"p1": CLEAR, "p2": NOISY}, "sw", cf)
    assert c.verdict == cm.CANNOT
    assert c.failing == ["p2 (within noise)"]
    assert [(r["point"], r["ok"], r["noise"], r["tie"]) for r in c.points] == [
        ("p1", True, False, False),
        ("p2", False, True, False),
    ]
    assert c.ours == "1 of 2 points (1 within noise)"
    assert c.note.endswith(
        f"at p2: +1 ±{T2 * 2 / math.sqrt(3):.3g}, 3 seeds, about 75 would decide"
    )
    bad = cm.over_range("x", "s", "m", "a > b", pred, {"p1": NOISY, "p2": lose}, "sw", cf)
    assert bad.verdict == cm.FAILS and bad.failing == ["p1 (within noise)", "p2"]
    every = cm.over_range("x", "s", "m", "a > b", pred, {"p1": NOISY, "p2": NOISY}, "sw", cf)
    assert every.verdict == cm.CANNOT and "every point is a tie" not in every.note
    # most: the noise points decide the majority (1 pass, 1 noise, 1 false of 3).
    most = {"p1": CLEAR, "p2": NOISY, "p3": lose}
    assert cm.over_range("x", "s", "m", "", pred, most, "sw", cf, most=True).verdict == cm.CANNOT
    most2 = {"p1": CLEAR, "p2": CLEAR, "p3": NOISY}
    assert cm.over_range("x", "s", "m", "", pred, most2, "sw", cf, most=True).verdict == cm.HOLDS
    most3 = {"p1": CLEAR, "p2": lose, "p3": lose}
    assert cm.over_range("x", "s", "m", "", pred, most3, "sw", cf, most=True).verdict == cm.FAILS


def test_an_order_on_the_arms_without_per_seed_or_noise_is_refused(tmp_path):
    text = (example_folder(tmp_path) / "claims.toml").read_text()
    d = example_folder(tmp_path, claims=text.replace('per_seed = "median_ms"', ""))
    refused_in_one_line(d, "claims.toml", "claim 'codel-below-taildrop'.per_seed: expected")
    # noise = "why" is the alternative; a deterministic reproduction needs neither.
    d = example_folder(
        tmp_path, claims=text.replace('per_seed = "median_ms"', 'noise = "one run per seed"')
    )
    from aqmlab.reproduce.folder import load

    load(str(d))
    d = example_folder(tmp_path, claims=text.replace('per_seed = "median_ms"', ""))
    exp = (
        (d / "experiment.toml").read_text().replace("seeds = 3", "seeds = 3\ndeterministic = true")
    )
    (d / "experiment.toml").write_text(exp)
    load(str(d))


CLAIM = """
[[claim]]
id = "taildrop-busier-200"
claim = "tail drop keeps the link busier than CoDel with a 200-packet buffer"
source = "test"
kind = "qualitative"
published = "tail drop > CoDel"
metric = "util"
where = { buffer = "200" }
arm_column = "discipline"
arms = ["tail drop", "CoDel"]
predicate = "a > b"
per_seed = "util"
why = "strictly above, no margin"
delivered = "util"
counterfactual = "the arms swapped"
counterfactual_arms = ["CoDel", "tail drop"]
unexplained = true
"""


def test_a_claim_held_on_one_seeds_margin_cannot_discriminate_over_three(tmp_path):
    """The worked example with random flow starts (so that seeds draw): tail drop's
    utilization above CoDel's at 200 packets holds on seed 1 alone (0.99686 vs 0.99549) and is
    within the seeds' noise over seeds 1-3 (differences +0.0014, +0.0005, +0.0045)."""
    d = example_folder(tmp_path)
    scn = (d / "scenario.toml").read_text()
    (d / "scenario.toml").write_text(
        scn.replace('cc = "cubic"', 'cc = "cubic"\nstart = "uniform(0s, 2s)"')
    )
    (d / "claims.toml").write_text((d / "claims.toml").read_text() + CLAIM)

    def verdict(*args):
        out = tmp_path / f"o{len(args)}"
        r = run_cli("reproduce", str(d), "--quick", *args, "--out", str(out), "-q")
        assert r.returncode == 0, r.stderr
        doc = json.loads((out / "results.json").read_text())
        claim = {c["id"]: c for c in doc["claims"]}["taildrop-busier-200"]
        return claim | {"report": (out / "report.md").read_text()}

    one = verdict()
    assert (one["verdict"], one["counterfactual_verdict"]) == (cm.HOLDS, cm.FAILS)
    # Held on one seed: results.json's note and the report's claims table say its noise was
    # not assessed (issue 19).
    assert "seed noise not assessed: one seed" in one["note"]
    row = next(r for r in one["report"].splitlines() if r.startswith("| tail drop keeps"))
    assert "seed noise not assessed: one seed" in row
    three = verdict("--seeds", "3")
    assert three["verdict"] == cm.CANNOT, three
    assert "within our seeds' noise" in three["note"] and "3 seeds" in three["note"]


def test_points_within_noise_are_no_failure_for_a_hypothesis_to_explain():
    """A reference test explains a range claim where the reference fails the points ours
    fails, and a report's ``failing_points`` lists them: a point within noise is neither."""
    from aqmlab.reproduce.hypotheses import failing_points

    c = cm.Claim("x", "s", "", "", cm.FAILS, kind="range")
    c.failing = ["p1 (queue 3.1) (within noise)", "p2 (queue 4.0) (tie)", "p3 (queue 5.2)"]
    assert failing_points(c) == ["p2", "p3"]


THRESHOLD = """
[[claim]]
id = "codel-util-high"
claim = "CoDel keeps the link at least half busy"
source = "test"
kind = "range"
published = "CoDel >= 0.5"
metric = "util"
points = ["buffer"]
arm_column = "discipline"
arms = ["CoDel"]
predicate = "a >= 0.5"
why = "our reading"
delivered = "util"
counterfactual = "tail drop"
counterfactual_arms = ["tail drop"]
unexplained = true
"""


def test_a_threshold_without_per_seed_or_noise_is_refused(tmp_path):
    """A comparison with a constant has the noise band too, so where the seeds draw the
    loader asks such a claim for its per-seed values or why it needs none."""
    text = (example_folder(tmp_path) / "claims.toml").read_text()
    d = example_folder(tmp_path, claims=text + THRESHOLD)
    refused_in_one_line(d, "claims.toml", "claim 'codel-util-high'.per_seed: expected")
    from aqmlab.reproduce.folder import load

    for key in ('per_seed = "util"', 'noise = "one run per seed"'):
        d = example_folder(tmp_path, claims=text + THRESHOLD.replace("why =", f"{key}\nwhy ="))
        load(str(d))


def test_noise_not_assessed_names_one_seed_or_the_identical_seeds_and_where():
    """The clause of a holds / does not hold on an order our seeds' noise could undo (issue
    19), from each point's per-seed values (one list per arm)."""
    f = cm.noise_not_assessed
    assert f({"p": ([1.0], [2.0])}, [1]) == "seed noise not assessed: one seed"
    assert f({"p": None}, [1]) == "seed noise not assessed: one seed"  # no per_seed
    assert f({"p": None}, [1, 2, 3]) == ""  # several seeds, none read: nothing to say
    assert f({"p": ([1.0, 1.1], [2.0, 2.0])}, [1, 2]) == ""  # one arm's seeds differ
    same = ([1.0, 1.0, 1.0], [2.0, 2.0, 2.0])
    assert f({"p": same}, [1, 2, 3]) == "seed noise not assessed: seeds 1-3 identical"
    assert f({"p": same, "q": ([1.0, 1.2, 1.1], [2.0] * 3)}, [1, 2, 3]) == (
        "seed noise not assessed at p: seeds 1-3 identical there"
    )
    assert f({"p": same}, [1, 3, 5]) == "seed noise not assessed: seeds 1, 3, 5 identical"
    # A point decided on one seed among several, or on lists that cannot be paired.
    three = ([1.0, 1.2, 1.1], [2.0, 2.1, 2.2])
    assert f({"p": ([1.0], [2.0]), "q": three}, [1, 2, 3]) == (
        "seed noise not assessed at p: fewer than two paired seeds there"
    )
    assert f({"p": ([1.0, 1.1, 1.2], [2.0, 2.1]), "q": three}, [1, 2, 3]) == (
        "seed noise not assessed at p: fewer than two paired seeds there"
    )
    # Points whose labels hold commas ("40, equal") are told apart by semicolons.
    two = {"40, equal": same, "120, equal": same, "120, unequal": ([1.0, 1.2, 1.1], [2.0] * 3)}
    assert f(two, [1, 2, 3]) == (
        "seed noise not assessed at 40, equal; 120, equal: seeds 1-3 identical there"
    )
