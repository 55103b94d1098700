"""Hypothesis tests declared as data in claims.toml (aqmlab.reproduce.hypotheses): each kind on
made-up tables with exact values, and its outcome flipping when the numbers flip (the
counterfactual); a bad hypothesis table refused in one line naming the file, table and key."""

from __future__ import annotations

import pytest
from conftest import example_folder

#: A range claim on numbers(ctx), ours under "_m", a reference's under "_ref._m".
CLAIMS = """
[hypothesis.setup]
hypothesis = "the set-up"
tested_by = "the reference on the same set-up"
test = "reference"
reference = "_ref"
reference_name = "ns-2.35"

[[claim]]
id = "x"
claim = "RED above tail drop"
source = "S"
kind = "range"
published = "RED > tail drop"
metric = "_m.{arm}"
delivered = "_m.util.{arm}"
arms = ["RED", "tail drop"]
predicate = "a > b"
noise = "made-up numbers, one value per arm: no seeds"
why = "'above' read as strictly above"
counterfactual = "the arms swapped"
counterfactual_arms = ["tail drop", "RED"]
explanation = "setup"
"""


def _values(red: dict, td: dict, util: float = 0.9) -> dict:
    return {
        "RED": red,
        "tail drop": td,
        "util": {"RED": {p: util for p in red}, "tail drop": {p: util for p in td}},
    }


def _run(exp, ours: dict, ref: dict):
    """The loader's steps on made-up numbers: the tests, the grading, then the tests' rule."""
    from aqmlab.reproduce import hypotheses
    from aqmlab.reproduce.loader import Context, grade

    ctx = Context(exp, "/nonexistent", False, [1], None, False, {}, {})
    ctx.numbers.update({"_m": ours, "_ref": {"_m": ref}})
    ctx.tests = hypotheses.run(ctx, None)
    for c in exp.claims:
        ctx.claims[c.id] = grade(c, ctx, None)
    hypotheses.settle(ctx)
    return ctx.claims["x"]


def test_reference_grades_the_reference_with_the_claims_own_predicate(tmp_path):
    """test = "reference": the claim's predicate on the reference's values at the claim's own
    points; a claim that does not hold is explained only where the reference fails the same
    points, and unexplained (naming them) where the reference passes or has no point."""
    from aqmlab.reproduce import common as cm
    from aqmlab.reproduce.folder import load

    exp = load(str(example_folder(tmp_path, CLAIMS)))
    ours = _values(
        {"8p (queue 3.0)": 0.9, "10p (queue 4.0)": 0.8},
        {"8p (queue 3.0)": 0.95, "10p (queue 4.0)": 0.7},
    )
    # Ours fails at 8p; the reference fails there too (its own interpolated value in the name).
    ref = _values(
        {"8p (queue 2.9)": 0.5, "10p (queue 4.2)": 0.9},
        {"8p (queue 2.9)": 0.6, "10p (queue 4.2)": 0.8},
    )
    c = _run(exp, ours, ref)
    assert c.verdict == cm.FAILS and c.failing == ["8p (queue 3.0)"]
    assert c.hypotheses[0]["outcome"] == "true at 1 of 2 points on ns-2.35's runs, false at 8p"
    assert not c.unexplained and c.explanation.startswith("hypothesis: the set-up")
    # The counterfactual: the reference passes at 8p (0.7 > 0.6): ours' failure is not the
    # set-up's there.
    ref["RED"]["8p (queue 2.9)"] = 0.7
    c = _run(exp, ours, ref)
    assert c.hypotheses[0]["outcome"] == "true at 2 of 2 points on ns-2.35's runs"
    assert c.unexplained and "ns-2.35's runs pass at 8p" in c.explanation
    # A point the reference lacks is unexplained too.
    ref2 = _values({"10p (queue 4.2)": 0.9}, {"10p (queue 4.2)": 0.8})
    c = _run(exp, ours, ref2)
    assert c.unexplained and "ns-2.35 has no point at 8p" in c.explanation
    # The reference's stalled runs are graded as ours are: every arm under 0.1 of the link is
    # no pass, whatever the values.
    stalled = _values(
        {"8p (queue 2.9)": 0.7, "10p (queue 4.2)": 0.9},
        {"8p (queue 2.9)": 0.6, "10p (queue 4.2)": 0.8},
        util=0.05,
    )
    c = _run(exp, ours, stalled)
    assert c.hypotheses[0]["outcome"] == "true at 0 of 2 points on ns-2.35's runs, false at 8p, 10p"
    assert not c.unexplained


def test_reference_text_of_a_qualitative_claim():
    from aqmlab.reproduce.hypotheses import reference_text

    assert reference_text({"": True}, "ns-2.35") == "the predicate is true on ns-2.35's runs"
    assert reference_text({"": False}, "ns-2.35") == "the predicate is false on ns-2.35's runs"
    assert reference_text({"a": True, "b": False}, "ns-2.35") == (
        "true at 1 of 2 points on ns-2.35's runs, false at b"
    )


def _seeds_test():
    """red-bursty's [hypothesis.seeds], as its claims.toml declares it."""
    from aqmlab.reproduce import builtin_folder
    from aqmlab.reproduce.folder import load

    exp = load(builtin_folder("red-bursty"))
    (c,) = [c for c in exp.claims if c.id == "red-node5-in-proportion"]
    (t,) = [t for t in c.tests if t is not None and t.kind == "bootstrap"]
    return t


def test_bootstrap_outcome_flips_with_the_numbers():
    """test = "bootstrap" (red-bursty's seeds): lying inside the range the reference's ratio
    takes over k of its seeds is no evidence of noise, only that a k-seed figure cannot tell:
    where that scatter reaches across the band's edge from ours the outcome is "cannot
    discriminate" (in the band or not) with the seeds that would decide (common.seeds_for),
    never "confirmed"; out of the band outside the scatter: refuted; inside it, but the
    reference out of the band over all its seeds: unexplained; in the band beyond the
    scatter: not needed."""
    pd = pytest.importorskip("pandas")
    from aqmlab.reproduce.hypotheses import bootstrap, name_rows

    t = _seeds_test()
    assert t.band == (0.75, 4 / 3) and t.ratio == ("n5_drop_share_run_pct", "n5_share_pct")
    # The reference's 30 seeds: throughput share 3.5 % each; node 5's drop share alternating
    # 1.75 and 5.25 % (ratio 0.5 and 1.5 a seed, 1.0 over all), or all 7 % (2.0) at min_th 4,
    # or all 3.5 % (1.0, no scatter) at min_th 5; rows of another discipline left out.
    rows = [("red", 7, 3.5, 1.75 if i % 2 else 5.25) for i in range(30)]
    rows += [("red", 4, 3.5, 7.0) for _ in range(30)]
    rows += [("red", 5, 3.5, 3.5) for _ in range(30)]
    rows += [("droptail", 7, 3.5, 99.0) for _ in range(30)]
    cols = ["qdisc", "size", "n5_share_pct", "n5_drop_share_run_pct"]
    runs = name_rows(pd.DataFrame(rows, columns=cols), t)

    def test(ours, k=3):
        return bootstrap(t, ours, k, runs)

    r = test({"RED min_th 7": 0.674, "RED min_th 4": 2.0, "RED min_th 5": 1.0})
    seven = r["points"]["RED min_th 7"]
    # A 3-seed ratio here is 0.5, 0.833, 1.17 or 1.5: ±0.5 about 1.0, more than 0.674's
    # distance 0.076 from the band's edge 0.75.
    assert seven["outcome"] == "cannot discriminate", seven
    assert seven["lo"] == pytest.approx(0.5) and seven["hi"] == pytest.approx(1.5)
    assert seven["ns2_all"] == pytest.approx(1.0)
    # 3 × (0.5 / 0.076)² = 129.8 → 130; 3 × (0.5 / 0.2917)² = 8.8 → 9.
    assert seven["seeds"] == 130
    assert r["text"].startswith(
        "node 5's drop share ÷ throughput share against ns-2.35's scatter over seeds "
        "(ns2-node5-seeds.csv): min_th 7: ours 0.674 over 3 seeds (out of proportion); "
        "ns-2.35's over 3 of its 30 seeds 0.500-1.50 (95 % of bootstrap draws), over all 1.00: "
        "cannot discriminate (ns-2.35 itself, on the same set-up, ranges over 0.500-1.50 across "
        "3-seed draws (±0.500), more than ours' distance 0.0760 from the band's edge 0.750: one "
        "3-seed figure cannot tell in proportion from out of it here; about 130 seeds would "
        "narrow the scatter below that distance, about 9 below half the band (±0.292)"
    )
    # In the band (0.842) on the same scatter: a pass our seeds cannot decide either
    # (3 × (0.5 / 0.092)² = 88.6 → 89).
    inband = test({"RED min_th 7": 0.842})["points"]["RED min_th 7"]
    assert inband["outcome"] == "cannot discriminate" and inband["seeds"] == 89
    # Out of the band over all 30 in the reference too: the noise is not the cause.
    assert r["points"]["RED min_th 4"]["outcome"] == "unexplained"
    # No scatter and in the band: nothing for noise to explain.
    assert r["points"]["RED min_th 5"]["outcome"] == "not needed"
    # The counterfactuals: outside the scatter, refuted.
    far = test({"RED min_th 7": 0.3})
    assert far["points"]["RED min_th 7"]["outcome"] == "refuted"
    assert "(outside ns-2.35's 3-seed range: not its noise)" in far["text"]
    assert test({"RED min_th 5": 0.7})["points"]["RED min_th 5"]["outcome"] == "refuted"
    # As many seeds as the reference ran: its scatter narrows (±0.167), so 1.1, 0.233 inside
    # the band, is decided; 1.3, 0.033 inside, is not; 0.674 lies outside the scatter.
    wide = test({"RED min_th 7": 1.1}, 30)["points"]["RED min_th 7"]
    assert wide["lo"] < 1.0 < 1.1 < wide["hi"] and wide["outcome"] == "not needed"
    assert test({"RED min_th 7": 1.3}, 30)["points"]["RED min_th 7"]["outcome"] == (
        "cannot discriminate"
    )
    assert test({"RED min_th 7": 0.674}, 30)["points"]["RED min_th 7"]["outcome"] == "refuted"
    # A point the reference has no rows for is not tested.
    assert test({"RED min_th 9": 1.0})["text"].endswith("(ns2-node5-seeds.csv): no point to test")


def _settled(refs: dict, noise: dict | None = None, failing=None, verdict=None):
    """hypotheses.settle on one claim with a reference result and a bootstrap result."""
    from types import SimpleNamespace

    from aqmlab.reproduce import common as cm
    from aqmlab.reproduce.hypotheses import Result, Test

    c = cm.Claim("c", "s", "p", "2 of 4 points", verdict or cm.FAILS, kind="range")
    c.failing = ["tail drop 20p (queue 13.6) (tie)", "RED min_th 7"] if failing is None else failing
    c.hypotheses, c.unexplained = (
        [{"hypothesis": "the set-up", "tested_by": "t", "outcome": "o"}],
        False,
    )
    results = [Result(Test("setup", "reference", "_ns2", "ns-2.35"), "", refs)]
    if noise is not None:
        boot = Test("seeds", "bootstrap", "x.csv", "ns-2.35", band_name="proportion")
        results.append(Result(boot, "", noise))
    ctx = SimpleNamespace(claims={"c": c}, tests={"c": results})
    from aqmlab.reproduce.hypotheses import settle

    settle(ctx)
    return c


def test_settle_explains_only_where_the_reference_fails_too():
    """A claim that does not hold is unexplained at every failing point where the reference's
    runs pass or have no point, explained when the reference fails every one of them; where
    the reference passes, a point is no difference only when the bootstrap finds our seeds
    cannot tell there."""
    c = _settled({"tail drop 20p": False, "RED min_th 7": False})
    assert not c.unexplained and c.explanation.startswith("hypothesis: the set-up")
    c = _settled({"tail drop 20p": False, "RED min_th 7": True})
    assert c.unexplained and "ns-2.35's runs pass at RED min_th 7" in c.explanation

    def noise(outcome):
        return {"RED min_th 7": {"outcome": outcome, "seeds": None, "k": 3}}

    assert not _settled(
        {"tail drop 20p": False, "RED min_th 7": True}, noise("cannot discriminate")
    ).unexplained
    for other in ("refuted", "unexplained", "not needed"):
        assert _settled({"tail drop 20p": False, "RED min_th 7": True}, noise(other)).unexplained
    c = _settled({"tail drop 20p": False})
    assert c.unexplained and "ns-2.35 has no point at RED min_th 7" in c.explanation


def test_settle_notes_a_pass_the_bootstrap_cannot_decide():
    """A point that passes on a figure the bootstrap cannot decide still passes, with a note
    (as a number within the source's allowance still agrees, common.grade_number); a failing
    point, or one the bootstrap decides, gets none."""
    points = {
        "RED min_th 6": {"outcome": "not needed", "seeds": None, "k": 3},
        "RED min_th 7": {"outcome": "cannot discriminate", "seeds": 81, "k": 3},
        "RED min_th 3": {"outcome": "cannot discriminate", "seeds": 12, "k": 3},
    }
    c = _settled({}, points, failing=["RED min_th 3"])
    assert c.note == (
        "RED min_th 7 passes on 3-seed figures whose scatter (ns-2.35's over as many seeds, the "
        "seeds hypothesis's test) reaches across the band's edge: our seeds cannot tell in "
        "proportion from out of it there; about 81 seeds would decide (estimates)"
    )
    points["RED min_th 7"]["outcome"] = "not needed"
    assert _settled({}, points, failing=["RED min_th 3"]).note == ""


@pytest.mark.parametrize(
    "edit, expected",
    [
        (
            ('test = "reference"', 'test = "maybe"'),
            "hypothesis.setup.test: expected reference or bootstrap",
        ),
        (('reference = "_ref"\n', ""), "hypothesis.setup.reference: expected a text"),
        (('test = "reference"\n', ""), "hypothesis.setup.test: expected the kind of test"),
        (
            ('reference_name = "ns-2.35"', 'reference_name = "ns-2.35"\nband = [1, 2]'),
            "hypothesis.setup.band: expected no such key for test = 'reference'",
        ),
        (
            ('test = "reference"', 'test = "bootstrap"'),
            "hypothesis.setup.ratio: expected [numerator column, denominator column]",
        ),
        (
            ('test = "reference"', 'test = "bootstrap"\nratio = ["a", "b"]\nband = [2, 1]'),
            "hypothesis.setup.band: expected [low, high], two numbers, low < high",
        ),
        (
            ('hypothesis = "the set-up"', 'hypothesis = "the set-up"\nlabel = 3'),
            "hypothesis.setup.label: expected no such key for test = 'reference', got 3",
        ),
        (
            ('tested_by = "the reference on the same set-up"', 'tested_by = "t"\nwhere = {}'),
            "hypothesis.setup.where: expected no such key for test = 'reference'",
        ),
        (
            ('tested_by = "the reference on the same set-up"', 'tested_by = "t"\nfoo = 1'),
            "hypothesis.setup.foo: unknown key (expected one of hypothesis, tested_by, outcome",
        ),
    ],
)
def test_a_bad_hypothesis_table_is_refused_in_one_line(tmp_path, edit, expected):
    _refused(tmp_path, CLAIMS, edit, expected)


def _refused(tmp_path, base: str, edit: tuple[str, str], expected: str) -> None:
    """``base`` with one edit is refused when loaded, in one line naming the file and key."""
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.folder import load

    claims = base.replace(*edit)
    assert claims != base
    with pytest.raises(AqmlabError) as e:
        load(str(example_folder(tmp_path, claims)))
    msg = str(e.value)
    assert "\n" not in msg and "claims.toml: " in msg and expected in msg, msg


def test_a_tested_hypothesis_with_an_outcome_keeps_its_text(tmp_path):
    """A hypothesis with a test and its own outcome (red-bursty's buffer): the text is the
    table's, filled from the run; the test still decides whether the claim is explained."""
    from aqmlab.reproduce.folder import load

    claims = CLAIMS.replace(
        'reference_name = "ns-2.35"\n', 'reference_name = "ns-2.35"\noutcome = "{_said}"\n', 1
    )
    exp = load(str(example_folder(tmp_path, claims)))
    ours = _values({"8p": 0.9}, {"8p": 0.95})
    from aqmlab.reproduce import hypotheses
    from aqmlab.reproduce.loader import Context, grade

    ctx = Context(exp, "/nonexistent", False, [1], None, False, {}, {})
    ctx.numbers.update(
        {"_m": ours, "_ref": {"_m": _values({"8p": 0.9}, {"8p": 0.8})}, "_said": "text"}
    )
    ctx.tests = hypotheses.run(ctx, None)
    ctx.claims["x"] = grade(exp.claims[0], ctx, None)
    hypotheses.settle(ctx)
    c = ctx.claims["x"]
    assert c.hypotheses[0]["outcome"] == "text" and c.unexplained


def test_outcome_rule_flips_with_the_numbers():
    """The outcome rule (every point tested and held: confirmed; none held: refuted; else
    unexplained); the "arms" kind that applies it: tests/test_hypotheses_arms.py."""
    from aqmlab.reproduce.hypotheses import outcome

    assert outcome(["p", "q"], ["p", "q"], ["p", "q"]) == "confirmed"
    assert outcome(["p", "q"], ["p", "q"], []) == "refuted"
    assert outcome(["p", "q"], ["p", "q"], ["p"]) == "unexplained"
    assert outcome(["p", "q"], ["p"], ["p"]) == "unexplained"  # a run missing
    assert outcome(["p", "q"], ["p"], []) == "unexplained"  # not a refutation of q
    assert outcome([], [], []) == "unexplained"  # nothing to test


# test = "arms" (aqmlab.reproduce.arms_test): a claim's predicate on other arms at the points
# where it fails on its own; the points another comparison leaves (at), the same failure on a
# reference (expect = false), a ratio within a factor, the outcome written to the run's
# numbers, and the rule after grading (explains). red-vs-codel's own (a [table] claim, ns-2.35's
# runs as a frame): tests/test_explain_hypotheses.py.

ARMS_CLAIMS = """
[hypothesis.settings]
hypothesis = "RED's settings"
tested_by = "RED set otherwise, beside the same tail drop"
outcome = "{_tests[other]}"
test = "arms"
leaves = "no RED set otherwise passes everywhere"
[hypothesis.settings.compare.other]
arms = ["RED other", "tail drop"]
explains = true
each = "{point}: {a} vs {b}"
text = "{choose(len(each) > 0, join(each, '; '), 'none')}; {len(held)} of {len(points)}: {outcome}"
numbers = { outcome = "tests.other", text = "_tests.other" }

[hypothesis.same]
hypothesis = "RED itself, where RED set otherwise still fails"
tested_by = "a reference's RED"
test = "arms"
[hypothesis.same.compare.ref]
arms = ["RED ref", "tail drop"]
at = "other"
expect = false
numbers = { outcome = "tests.ref" }
[hypothesis.same.compare.factor]
arms = ["RED other", "RED ref"]
at = "other"
factor = 1.25
each = "{point} {ratio:.2f}"
text = "{join(each, ', ')}: {outcome}"
numbers = { outcome = "tests.factor", held = "tests.factor_held", points = "tests.factor_of" }
[hypothesis.same.compare.all]
arms = ["RED other", "tail drop"]
at = "all"
numbers = { held = "tests.all_held", points = "tests.all_of" }

[[claim]]
id = "x"
claim = "RED above tail drop"
source = "S"
kind = "range"
published = "RED > tail drop"
metric = "_m.{arm}"
delivered = "_m.util.{arm}"
arms = ["RED", "tail drop"]
predicate = "a > b"
noise = "made-up numbers, one value per arm: no seeds"
why = "'above' read as strictly above"
counterfactual = "the arms swapped"
counterfactual_arms = ["tail drop", "RED"]
explanation = ["settings", "same"]
"""

#: Ours fails at p and q (1 > 3, 2 > 3 are false), passes at r.
ARMS_OURS = {"RED": {"p": 1.0, "q": 2.0, "r": 5.0}, "tail drop": {"p": 3.0, "q": 3.0, "r": 4.0}}


def _arms(tmp_path, other: dict, ref: dict, util: dict | None = None, claims: str = ARMS_CLAIMS):
    """The loader's steps on made-up numbers: the tests, the grading, then the tests' rules."""
    from aqmlab.reproduce import hypotheses
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context, grade

    exp = load(str(example_folder(tmp_path, claims)))
    arms = {**ARMS_OURS, "RED other": other, "RED ref": ref}
    shares = {a: {p: 0.9 for p in v} for a, v in arms.items()}
    for a, pts in (util or {}).items():
        shares[a].update(pts)
    ctx = Context(exp, "/nonexistent", False, [1], None, False, {}, {})
    ctx.numbers["_m"] = {**arms, "util": shares}
    ctx.tests = hypotheses.run(ctx, None)
    ctx.claims["x"] = grade(exp.claims[0], ctx, None)
    hypotheses.settle(ctx)
    return ctx


def test_arms_at_the_failing_points_and_what_it_leaves(tmp_path):
    from aqmlab.reproduce import common as cm

    # RED set otherwise passes at p (4 > 3), not at q (2 > 3): unexplained, q left.
    ctx = _arms(tmp_path, {"p": 4.0, "q": 2.0, "r": 0.0}, {"q": 1.0})
    c, n = ctx.claims["x"], ctx.numbers
    assert c.verdict == cm.FAILS and c.failing == ["p", "q"]
    assert n["tests"]["other"] == "unexplained"
    assert n["_tests"]["other"] == "p: 4.00 vs 3.00; q: 2.00 vs 3.00; 1 of 2: unexplained"
    assert c.hypotheses[0]["outcome"] == n["_tests"]["other"]
    # The reference's RED at the point left (q): 1 > 3 fails too, the same failure: confirmed.
    assert n["tests"]["ref"] == "confirmed"
    # Ours set otherwise ÷ the reference's at q: 2 ÷ 1, outside [0.8, 1.25]: refuted.
    assert (n["tests"]["factor"], n["tests"]["factor_held"], n["tests"]["factor_of"]) == (
        "refuted",
        0,
        1,
    )
    # Every point of the claim: RED set otherwise above tail drop at p only (0 > 4 at r).
    assert (n["tests"]["all_held"], n["tests"]["all_of"]) == (1, 3)
    # No explaining comparison confirmed: unexplained, the hypothesis's leaves saying why.
    assert c.unexplained
    assert c.explanation.startswith("unexplained (no RED set otherwise passes everywhere)")
    # Its counterfactual: RED set otherwise passes at q too: confirmed, the claim explained,
    # and nothing left for the reference (no points: unexplained, nothing tested).
    ctx = _arms(tmp_path / "b", {"p": 4.0, "q": 3.5, "r": 0.0}, {"q": 1.0})
    c, n = ctx.claims["x"], ctx.numbers
    assert n["tests"]["other"] == "confirmed" and not c.unexplained
    assert c.explanation.startswith("hypothesis: RED's settings")
    assert n["tests"]["ref"] == "unexplained" and n["tests"]["factor_of"] == 0
    # Refuted: it passes at neither failing point.
    n = _arms(tmp_path / "c", {"p": 2.0, "q": 2.0, "r": 9.0}, {})
    assert n.numbers["tests"]["other"] == "refuted" and n.claims["x"].unexplained


def test_arms_expect_false_and_factor_flip(tmp_path):
    # The reference's RED fails at q too (2 > 3): the same failure, confirmed; ours set
    # otherwise within the factor of it (2.5 ÷ 2 = 1.25, the bound is in): confirmed.
    n = _arms(tmp_path, {"p": 4.0, "q": 2.5}, {"q": 2.0}).numbers
    assert n["tests"]["ref"] == "confirmed" and n["tests"]["factor"] == "confirmed"
    assert n["_tests"]["other"].startswith("p: 4.00 vs 3.00; q: 2.50 vs 3.00")
    # Just outside the factor: refuted.
    n = _arms(tmp_path / "b", {"p": 4.0, "q": 2.5}, {"q": 2.5 / 1.26}).numbers
    assert n["tests"]["factor"] == "refuted"
    # The reference's RED passes at q (4 > 3): not the same failure, refuted.
    n = _arms(tmp_path / "c", {"p": 4.0, "q": 2.5}, {"q": 4.0}).numbers
    assert n["tests"]["ref"] == "refuted"


def test_arms_ties_stalled_and_missing_runs_are_no_pass(tmp_path):
    # A tie (3 > 3) is no pass, as the claim's own rules have it.
    n = _arms(tmp_path, {"p": 3.0, "q": 3.0}, {}).numbers
    assert n["tests"]["other"] == "refuted"
    # Every arm's run stalled at a point (under 0.1 of the link): no pass there either.
    util = {"RED other": {"q": 0.05}, "tail drop": {"q": 0.05}}
    n = _arms(tmp_path / "b", {"p": 4.0, "q": 9.0}, {}, util).numbers
    assert n["tests"]["other"] == "unexplained"
    assert _arms(tmp_path / "c", {"p": 4.0, "q": 9.0}, {}).numbers["tests"]["other"] == "confirmed"
    # A failing point without the run: not a confirmation, and not a refutation of it.
    n = _arms(tmp_path / "d", {"p": 4.0}, {}).numbers
    assert n["tests"]["other"] == "unexplained"
    assert n["_tests"]["other"] == "p: 4.00 vs 3.00; q: – vs 3.00; 1 of 2: unexplained"
    n = _arms(tmp_path / "e", {"p": 2.0}, {}).numbers
    assert n["tests"]["other"] == "unexplained"


@pytest.mark.parametrize(
    "edit, expected",
    [
        (
            ('arms = ["RED ref", "tail drop"]', 'arms = ["RED ref"]'),
            "hypothesis.same.compare.ref.arms: expected a list of two or more arms",
        ),
        (("factor = 1.25", "factor = 1"), "compare.factor.factor: expected a number above 1"),
        (("expect = false", 'expect = "no"'), "compare.ref.expect: expected true or false"),
        (
            ('numbers = { outcome = "tests.ref" }', 'numbers = { verdict = "tests.ref" }'),
            "compare.ref.numbers: expected a table of outcome / text / held / points",
        ),
        (('at = "other"\nexpect', 'at = "other"\nfoo = 1\nexpect'), "compare.ref.foo: unknown key"),
        (
            ('test = "arms"\nleaves', 'test = "arms"\nreference = "_r"\nleaves'),
            "hypothesis.settings.reference: expected no such key for test = 'arms'",
        ),
        (
            ("[hypothesis.same.compare.ref]", '[hypothesis.same.compare.ref]\ntext = "{a +}"'),
            "compare.ref.text",
        ),
    ],
)
def test_a_bad_arms_table_is_refused_in_one_line(tmp_path, edit, expected):
    _refused(tmp_path, ARMS_CLAIMS, edit, expected)


def test_arms_at_a_comparison_not_run_before_it_is_an_error(tmp_path):
    from aqmlab.exceptions import AqmlabError

    claims = ARMS_CLAIMS.replace('at = "other"\nexpect', 'at = "nope"\nexpect')
    with pytest.raises(AqmlabError, match=r"compare\.ref\.at: no comparison 'nope' of claim 'x'"):
        _arms(tmp_path, {"p": 4.0}, {}, claims=claims)
    claims = ARMS_CLAIMS.replace(
        'arms = ["RED ref", "tail drop"]', 'arms = ["RED ref", "tail drop", "RED"]'
    )
    with pytest.raises(AqmlabError, match=r"compare\.ref\.arms: 2 arms, as claim 'x'"):
        _arms(tmp_path / "b", {"p": 4.0}, {}, claims=claims)
