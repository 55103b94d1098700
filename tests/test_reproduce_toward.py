"""The hypothesis test ``test = "toward"`` (docs/reproductions.md, "Hypothesis tests"): a rerun
moving a numeric claim's value toward the published one, on made-up numbers; each outcome
flips with the numbers; a bad table is refused in one line naming the file, table and key."""

from __future__ import annotations

import pytest
from conftest import example_folder, refused_in_one_line

CLAIMS = """
[hypothesis.load]
hypothesis = "the load"
tested_by = "a rerun with the other load"
test = "toward"
reference = "_rerun"
label = "with ours"
leaves = "what the load leaves"

[[claim]]
id = "x"
claim = "the median (ms)"
source = "S"
kind = "numeric"
published = "5"
read_off = 0.5
why = "'about 5'"
metric = "cases.a.p50"
explanation = "load"
"""


def _folder(tmp_path, claims=CLAIMS):
    return example_folder(tmp_path, claims)


def _outcome(tmp_path, ours, rerun):
    from aqmlab.reproduce import hypotheses
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context, grade

    exp = load(str(_folder(tmp_path)))
    ctx = Context(exp, "/nonexistent", False, [1], None, False, {}, {})
    ctx.numbers.update({"cases": {"a": {"p50": ours}}, "_rerun": {"cases": {"a": {"p50": rerun}}}})
    ctx.tests = hypotheses.run(ctx, None)
    c = grade(exp.claims[0], ctx, None)
    (r,) = ctx.tests["x"]
    return r.points[""]["outcome"], r.text, c


def _settled(tmp_path, ours, rerun):
    """Claim ``x`` as the report has it after grading (hypotheses.settle)."""
    from aqmlab.reproduce import hypotheses
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context, grade

    exp = load(str(_folder(tmp_path)))
    ctx = Context(exp, "/nonexistent", False, [1], None, False, {}, {})
    ctx.numbers.update({"cases": {"a": {"p50": ours}}, "_rerun": {"cases": {"a": {"p50": rerun}}}})
    ctx.tests = hypotheses.run(ctx, None)
    ctx.claims["x"] = grade(exp.claims[0], ctx, None)
    hypotheses.settle(ctx)
    return ctx.claims["x"]


@pytest.mark.parametrize(
    "ours, rerun, status, text",
    [
        # The allowance is 0.5 (printed "5") + 0.5 (read_off) = 1.
        (
            8.0,
            5.9,
            "confirmed",
            "5.90 against 8.00 with ours, closer to the published 5, and agrees",
        ),
        (
            8.0,
            6.1,
            "unexplained",
            "6.10 against 8.00 with ours, closer to the published 5 but not enough to agree",
        ),
        (
            8.0,
            2.0,
            "refuted",
            "2.00 against 8.00 with ours, no closer to the published 5: not the cause",
        ),
        (
            3.0,
            7.0,
            "refuted",
            "7.00 against 3.00 with ours, no closer to the published 5: not the cause",
        ),
    ],
)
def test_each_outcome_flips_with_the_numbers(tmp_path, ours, rerun, status, text):
    got_status, got_text, claim = _outcome(tmp_path, ours, rerun)
    assert (got_status, got_text) == (status, text)
    assert claim.verdict == "differs" and claim.hypotheses[0]["outcome"] == text


@pytest.mark.parametrize(
    "rerun, unexplained",
    [(5.9, False), (6.1, True), (9.0, True), (None, True)],
)
def test_the_claim_is_explained_only_where_the_rerun_agrees(tmp_path, rerun, unexplained):
    """regrade's rule (regrade.settle): a claim that differs is explained where the test
    confirms, else unexplained by the hypothesis's ``leaves`` (codel-dynamic's codel-p75: the
    PackMime rerun agrees, so the web load explains it)."""
    c = _settled(tmp_path, 8.0, rerun)
    assert c.verdict == "differs" and bool(c.unexplained) is unexplained
    head = "unexplained (what the load leaves); " if unexplained else ""
    assert c.explanation.startswith(head + "hypothesis: the load; tested by:")


def test_no_rerun_number_is_not_tested(tmp_path):
    status, text, _ = _outcome(tmp_path, 8.0, None)
    assert status == "unexplained" and text == "no value for _rerun.cases.a.p50: not tested"


def test_a_table_for_the_rerun_number_is_one_line(tmp_path):
    """The check toward shares with regrade (hypotheses.reference_number)."""
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _outcome(tmp_path, 8.0, {"p": 1.0})
    assert str(e.value).endswith(
        "claims.toml: claim 'x': hypothesis 'load': reference: _rerun.cases.a.p50 is not one number"
    )


@pytest.mark.parametrize("kind", ["range", "qualitative"])
def test_a_claim_not_numeric_is_refused_in_one_line(tmp_path, kind):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce import hypotheses
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context

    exp = load(str(_folder(tmp_path)))
    exp.claims[0].kind = kind
    ctx = Context(exp, "/nonexistent", False, [1], None, False, {}, {})
    with pytest.raises(AqmlabError) as e:
        hypotheses.run(ctx, None)
    assert str(e.value).endswith(
        f"hypothesis 'load': test = 'toward' grades a numeric claim, not a {kind} one"
    )


@pytest.mark.parametrize(
    "edit, expected",
    [
        (
            ('reference = "_rerun"\n', ""),
            "hypothesis.load.reference: expected the name of the rerun's numbers",
        ),
        (
            ('label = "with ours"', 'label = "x"\nband = [1, 2]'),
            "hypothesis.load.band: expected no such key for test = 'toward'",
        ),
        (('label = "with ours"', "label = 3"), "hypothesis.load.label: expected a text"),
    ],
)
def test_a_bad_toward_table_is_refused_in_one_line(tmp_path, edit, expected):
    claims = CLAIMS.replace(*edit, 1)
    assert claims != CLAIMS
    refused_in_one_line(_folder(tmp_path, claims), "claims.toml", expected)
