"""The hypothesis test ``regrade`` (docs/reproductions.md, "Hypothesis tests";
aqmlab.reproduce.regrade): another measure of a numeric claim's quantity graded as the claim
grades ours, each outcome on made-up numbers and flipping when they do, the claim explained
after grading only where the test confirms, and bad keys refused in one line."""

from __future__ import annotations

import pytest
from conftest import example_folder, refused_in_one_line

CLAIMS = """
[hypothesis.other-way]
hypothesis = "the source measured it another way"
tested_by = "the other measure on the same runs"
test = "regrade"
reference = "_alt"
reference_name = "the other measure"
text = "other {alt} % (ours {ours} %) against {published} %, tolerance {tolerance}: {outcome}{note}"
leaves = "what the other way leaves"

[[claim]]
id = "x"
claim = "C/T"
source = "S"
kind = "numeric"
published = "84"
metric = "_m.ct"
spread = "_m.spread.ct"
explanation = "other-way"
"""


def _folder(tmp_path, claims: str = CLAIMS):
    return example_folder(tmp_path, claims)


def _run(tmp_path, ours: float, alt: float, spread=None, alt_spread=None, seeds=(1,)):
    """The loader's steps on made-up numbers: the tests, the grading, then settling."""
    from aqmlab.reproduce import hypotheses
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context, grade

    exp = load(str(_folder(tmp_path)))
    ctx = Context(exp, "/nonexistent", False, list(seeds), None, False, {}, {})
    ctx.numbers.update(
        {
            "_m": {"ct": ours, "spread": {"ct": spread}},
            "_alt": {"_m": {"ct": alt, "spread": {"ct": alt_spread}}},
        }
    )
    ctx.tests = hypotheses.run(ctx, None)
    for c in exp.claims:
        ctx.claims[c.id] = grade(c, ctx, None)
    hypotheses.settle(ctx)
    return ctx.claims["x"], ctx.tests["x"][0]


def test_confirmed_explains_a_claim_that_differs(tmp_path):
    c, r = _run(tmp_path, ours=110.0, alt=84.2)
    assert c.verdict == "differs"
    assert r.points[""]["outcome"] == "confirmed"
    assert c.hypotheses[0]["outcome"] == (
        "other 84.2 % (ours 110 %) against 84 %, tolerance ±0.5 (printed as 84 (±0.5)); one "
        "seed: no CI: confirmed"
    )
    assert not c.unexplained and "unexplained" not in c.explanation


def test_refuted_and_unexplained_by_how_much_of_the_gap_it_closes(tmp_path):
    # ours 110: gap 26. Other 100: gap 16 > 13 (half of ours'): refuted.
    c, r = _run(tmp_path, ours=110.0, alt=100.0)
    assert r.points[""]["outcome"] == "refuted"
    assert c.unexplained and "what the other way leaves" in c.explanation
    # Other 96: gap 12 <= 13: it closes half or more, the rest unexplained.
    c, r = _run(tmp_path, ours=110.0, alt=96.0)
    assert r.points[""]["outcome"] == "unexplained"
    assert c.unexplained
    # No value: unexplained.
    c, r = _run(tmp_path, ours=110.0, alt=float("nan"))
    assert r.points[""]["outcome"] == "unexplained" and c.unexplained


def test_cannot_discriminate_within_our_seeds_interval(tmp_path):
    c, r = _run(tmp_path, ours=110.0, alt=88.0, spread=1.0, alt_spread=5.0, seeds=(1, 2, 3))
    assert r.points[""]["outcome"] == "cannot discriminate"
    assert "(3 seeds)" in r.text and r.text.startswith("other 88.0 % (ours 110 %)")
    assert c.unexplained  # only a confirmation explains
    # The same value, a narrower interval: it differs, and closes more than half the gap (4
    # against 26): unexplained; farther (100: 16 > 13), refuted.
    _, r = _run(tmp_path, ours=110.0, alt=88.0, spread=1.0, alt_spread=1.0, seeds=(1, 2, 3))
    assert r.points[""]["outcome"] == "unexplained"
    _, r = _run(tmp_path, ours=110.0, alt=100.0, spread=1.0, alt_spread=1.0, seeds=(1, 2, 3))
    assert r.points[""]["outcome"] == "refuted"


def test_a_claim_that_agrees_keeps_no_explanation(tmp_path):
    c, r = _run(tmp_path, ours=84.1, alt=120.0)
    assert c.verdict == "agrees" and r.points[""]["outcome"] == "refuted"
    assert c.explanation == ""


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (('text = "other', 'texts = "other'), "hypothesis.other-way.texts: expected no such key"),
        (
            ("{outcome}{note}", "{outcome}{bad}"),
            "hypothesis.other-way.text: expected a template of {alt}, {ours}",
        ),
        (('leaves = "what', 'band = [1, 2]\nleaves = "what'), "other-way.band: expected no such"),
        (('leaves = "what the other way leaves"', "leaves = 3"), "other-way.leaves: expected a"),
        (('reference = "_alt"\n', ""), "hypothesis.other-way.reference: expected a text"),
    ],
)
def test_a_bad_regrade_table_is_refused_in_one_line(tmp_path, edit, expected):
    claims = CLAIMS.replace(*edit)
    assert claims != CLAIMS
    refused_in_one_line(_folder(tmp_path, claims), "claims.toml", expected)


def test_a_missing_reference_number_is_one_line(tmp_path):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce import hypotheses
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context

    exp = load(str(_folder(tmp_path)))
    ctx = Context(exp, "/nonexistent", False, [1], None, False, {}, {})
    ctx.numbers.update({"_m": {"ct": 1.0}, "_alt": {}})
    with pytest.raises(AqmlabError) as e:
        hypotheses.run(ctx, None)
    assert str(e.value).endswith(
        "claims.toml: claim 'x': hypothesis 'other-way': reference: no number _alt._m.ct"
    )
    # A table where the number should be (the check regrade shares with toward).
    ctx.numbers.update({"_alt": {"_m": {"ct": {"a": 1.0}}}})
    with pytest.raises(AqmlabError) as e:
        hypotheses.run(ctx, None)
    assert str(e.value).endswith(
        "claims.toml: claim 'x': hypothesis 'other-way': reference: _alt._m.ct is not one number"
    )


def test_number_writes_the_outcome_into_results_numbers(tmp_path):
    """``number``: the outcome beside the claim's numbers in results.json, at a path filled
    with the claim's metric's keys (consumer-edge's fairness_by_class.RATE.DIRECTION.outcome);
    the tables on the way are made, a table there kept."""
    from aqmlab.reproduce import hypotheses
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context

    claims = CLAIMS.replace('test = "regrade"', 'test = "regrade"\nnumber = \'by."{1}".outcome\'')
    exp = load(str(_folder(tmp_path, claims)))
    ctx = Context(exp, "/nonexistent", False, [1], None, False, {}, {})
    ctx.numbers.update({"_m": {"ct": 110.0}, "_alt": {"_m": {"ct": 100.0}}})
    ctx.numbers["by"] = {"ct": {"C": 0.5}}
    hypotheses.run(ctx, None)
    assert ctx.numbers["by"] == {"ct": {"C": 0.5, "outcome": "refuted"}}
    ctx.numbers.update({"_alt": {"_m": {"ct": 84.2}}, "by": {}})
    hypotheses.run(ctx, None)
    assert ctx.numbers["by"] == {"ct": {"outcome": "confirmed"}}


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        ("by.{5}", "hypothesis 'other-way'.number: 'by.{5}': a path, {0}, {1} ... the keys of"),
        ("_m.ct.x", "hypothesis 'other-way'.number: _m.ct.x: 'ct' holds a number, not a table"),
    ],
)
def test_a_bad_number_path_is_one_line(tmp_path, number, expected):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce import hypotheses
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context

    claims = CLAIMS.replace('test = "regrade"', f'test = "regrade"\nnumber = "{number}"')
    exp = load(str(_folder(tmp_path, claims)))
    ctx = Context(exp, "/nonexistent", False, [1], None, False, {}, {})
    ctx.numbers.update({"_m": {"ct": 110.0}, "_alt": {"_m": {"ct": 100.0}}})
    with pytest.raises(AqmlabError) as e:
        hypotheses.run(ctx, None)
    assert "\n" not in str(e.value) and expected in str(e.value), str(e.value)


def test_number_is_refused_for_a_kind_that_writes_none(tmp_path):
    claims = CLAIMS.replace(
        'test = "regrade"\nreference = "_alt"\nreference_name = "the other measure"\n'
        'text = "other {alt} % (ours {ours} %) against {published} %, tolerance {tolerance}: '
        '{outcome}{note}"',
        'test = "toward"\nreference = "_alt"\nnumber = "x"',
    )
    claims = claims.replace('leaves = "what the other way leaves"\n', "")
    assert 'test = "toward"' in claims
    refused_in_one_line(
        _folder(tmp_path, claims), "claims.toml", "hypothesis.other-way.number: expected no such"
    )
