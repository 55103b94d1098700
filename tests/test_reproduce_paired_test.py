"""The hypothesis test ``paired`` (docs/reproductions.md, "Hypothesis tests";
aqmlab.reproduce.paired_test): a range claim's failure put down to our seeds' scatter, tested
by the arms' difference paired by seed at each selected point. Each outcome on made-up
numbers with its exact text, the claim explained after grading only where it confirms, the
numbers it writes under ``number`` (results.json), and bad keys refused in one line."""

from __future__ import annotations

import pytest
from conftest import example_folder, refused_in_one_line

CLAIMS = """
[[claim]]
id = "never-more"
claim = "A never above B"
source = "S"
kind = "range"
published = "A ≤ B"
metric = "_r.{arm}"
arms = ["a", "b"]
predicate = "a <= b"
noise = "made-up numbers, one value per arm: no seeds"
why = "no margin"
stalls = "made-up numbers"
counterfactual = "swapped"
counterfactual_arms = ["b", "a"]
[claim.explanation]
hypothesis = "noise"
tested_by = "the seeds paired"
test = "paired"
reference = "_pairs"
at = "mean > 0"
number = "noise_test"
leaves = "A above B beyond the scatter"
texts.point = "{point}: A {a:fmt} vs B {b:fmt}, higher in {higher} of {seeds}, A−B {mean:+.3g}"
texts.none = "no point has A above B"
texts.refuted = "refuted at {points}"
texts.untested = "not tested at {points}"
texts.supports = "supports"
"""


def _pair(a: float, b: float, half, seeds: int = 10, higher: int = 5) -> dict:
    return {"seeds": seeds, "higher": higher, "a": a, "b": b, "mean": a - b, "half": half}


def _run(tmp_path, pairs: dict, claims: str = CLAIMS):
    """The loader's steps on made-up numbers: the tests, the grading, then settling."""
    from aqmlab.reproduce import hypotheses
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context, grade

    exp = load(str(example_folder(tmp_path, claims)))
    ctx = Context(exp, "/nonexistent", False, [1], None, False, {}, {})
    ctx.numbers["_pairs"] = pairs
    ctx.numbers["_r"] = {
        arm: {p: v[arm] if isinstance(v, dict) else v for p, v in pairs.items()}
        for arm in ("a", "b")
    }
    ctx.tests = hypotheses.run(ctx, None)
    for c in exp.claims:
        ctx.claims[c.id] = grade(c, ctx, None)
    hypotheses.settle(ctx)
    return ctx.claims["never-more"], ctx.tests["never-more"][0], ctx.numbers


def test_every_interval_across_zero_supports_and_explains(tmp_path):
    # x: A above by 0.05 ± 0.3 (across 0); y: A below (not selected by at = "mean > 0").
    pairs = {"x": _pair(3.05, 3.0, 0.3), "y": _pair(2.0, 3.0, 0.1)}
    c, r, numbers = _run(tmp_path, pairs)
    assert c.verdict == "does not hold" and c.failing == ["x"]
    assert r.points[""]["outcome"] == "confirmed"
    assert r.text == (
        "x: A 3.05 vs B 3.00, higher in 5 of 10, A−B +0.05 (95 % CI -0.25 to +0.35); supports"
    )
    assert not c.unexplained and "outcome: x: A 3.05" in c.explanation
    # results.json's numbers: the tested points (all but half, with the interval), by name.
    got = numbers["noise_test"]
    assert got["supports"] is True and got["beyond_noise"] == []
    assert list(got["cells"]) == ["x"]
    x = got["cells"]["x"]
    assert list(x) == ["seeds", "higher", "a", "b", "mean", "lo", "hi", "decided", "interval"]
    assert (x["lo"], x["hi"]) == pytest.approx((-0.25, 0.35))
    assert x["interval"] and not x["decided"]


def test_an_interval_excluding_zero_refutes_and_leaves_it_unexplained(tmp_path):
    pairs = {"x": _pair(3.05, 3.0, 0.3), "z": _pair(3.5, 3.0, 0.1, higher=10)}
    c, r, numbers = _run(tmp_path, pairs)
    assert r.points[""]["outcome"] == "refuted"
    assert r.text.endswith("(95 % CI +0.4 to +0.6); refuted at z")
    assert numbers["noise_test"]["beyond_noise"] == ["z"]
    assert numbers["noise_test"]["supports"] is False
    assert c.unexplained
    assert c.explanation.startswith("unexplained (A above B beyond the scatter); hypothesis")


def test_no_interval_is_not_tested_and_no_point_tests_nothing(tmp_path):
    # One seed: no half-width, no interval.
    c, r, numbers = _run(tmp_path, {"x": _pair(3.5, 3.0, None, seeds=1, higher=1)})
    assert r.points[""]["outcome"] == "unexplained"
    assert r.text.endswith("A−B +0.5 (no interval); not tested at x")
    assert numbers["noise_test"]["cells"]["x"]["interval"] is False and c.unexplained
    # No point selected (A never above on the mean): noise accounts for nothing.
    c, r, numbers = _run(tmp_path, {"y": _pair(3.0, 3.0, 0.1)})
    assert r.text == "no point has A above B" and r.points[""]["outcome"] == "unexplained"
    assert numbers["noise_test"] == {"cells": {}, "beyond_noise": [], "supports": False}


def test_without_at_every_point_is_tested(tmp_path):
    claims = CLAIMS.replace('at = "mean > 0"\n', "")
    _, r, numbers = _run(tmp_path, {"x": _pair(3.05, 3.0, 0.3), "y": _pair(2.0, 3.0, 0.1)}, claims)
    assert list(numbers["noise_test"]["cells"]) == ["x", "y"]
    assert r.points[""]["outcome"] == "refuted" and r.text.endswith("refuted at y")


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            ('texts.none = "no point has A above B"\n', ""),
            "explanation[0].texts.none: expected a text",
        ),
        (('at = "mean > 0"', 'at = "mean >"'), "explanation[0].at: 'mean >' is not an expression"),
        (
            ("refuted at {points}", "refuted at {where}"),
            "texts.refuted: expected a template of {points}",
        ),
        (
            ('leaves = "A', 'band = [1, 2]\nleaves = "A'),
            "explanation[0].band: expected no such key",
        ),
        (('reference = "_pairs"\n', ""), "explanation[0].reference: expected a text"),
    ],
)
def test_a_bad_paired_table_is_refused_in_one_line(tmp_path, edit, expected):
    claims = CLAIMS.replace(*edit)
    assert claims != CLAIMS
    refused_in_one_line(example_folder(tmp_path, claims), "claims.toml", expected)


def test_a_reference_that_is_no_table_of_points_is_one_line(tmp_path):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _run(tmp_path, {"x": 1.0})
    assert "\n" not in str(e.value) and "claims.toml: claim 'never-more'" in str(e.value)
    assert "reference: '_pairs' is not a table of points, each with a mean" in str(e.value)
