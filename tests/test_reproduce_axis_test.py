"""The hypothesis test ``axis`` (docs/reproductions.md, "Hypothesis tests";
aqmlab.reproduce.axis_test): a numeric claim's difference put down to a setting the source does
not give, tested on the claim's quantity at every value of that sweep axis. Each outcome on
made-up numbers with its exact text, the claim explained after grading only where it confirms
(and never where the claim names a hypothesis no run tests), and bad keys refused in one
line."""

from __future__ import annotations

import pytest
from conftest import example_folder, refused_in_one_line

CLAIMS = """
[hypothesis.buffer]
hypothesis = "the buffer"
tested_by = "the buffer sweep"
test = "axis"
reference = "_ax"
reach = "peak"
unit = "p"
bracket = ["other"]
leaves = "what the buffer leaves"
texts.hit = "{published:g} (±{tol:g}) reached at {at}: supports"
texts.near = "{published:g} within the interval at {at}: supports"
texts.untested = "{published:g} between {at}: not tested"
texts.between = "{published:g} between adjacent {at}: refuted, over {over}"
texts.outside = "{published:g} outside: refuted, over {over}"
texts.over = "{values} only, not below {first}p or above {last}p"
texts.over_reached = "{values} only, not below {first}p; peak {reach:g} at {last}p"
texts.bracket = "; the other's value between {lo}p and {hi}p"

[[claim]]
id = "x"
claim = "X"
source = "S"
kind = "numeric"
published = "18"
metric = "_m.x"
spread = "_m.spread.x"
explanation = "buffer"

[[claim]]
id = "other"
claim = "Y"
source = "S"
kind = "numeric"
published = "40"
metric = "_m.y"
unexplained = true
"""


def _ctx(tmp_path, curve, spread=None, peak=None, other=None, claims=CLAIMS, ours=30.0):
    """The loader's steps on made-up numbers: claim x's value ``ours``, its quantity over the
    buffers ``curve`` ({"13": value}), the seeds' half-widths and the queue's peak there."""
    from aqmlab.reproduce import hypotheses
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context, grade

    exp = load(str(example_folder(tmp_path, claims)))
    ctx = Context(exp, "/nonexistent", False, [1], None, False, {}, {})
    ctx.numbers["_m"] = {"x": ours, "y": 10.0, "spread": {"x": None}}
    ctx.numbers["_ax"] = {
        "_m": {
            "x": curve,
            "spread": {"x": spread or {}},
            "peak": peak or {},
            "y": other or {"13": 10.0, "50": 20.0},
        }
    }
    ctx.tests = hypotheses.run(ctx, None)
    for c in exp.claims:
        ctx.claims[c.id] = grade(c, ctx, None)
    hypotheses.settle(ctx)
    return ctx


def _run(tmp_path, curve, **kw):
    ctx = _ctx(tmp_path, curve, **kw)
    return ctx.claims["x"], ctx.tests["x"][0]


def test_a_buffer_reaching_the_published_value_supports(tmp_path):
    c, r = _run(tmp_path, {"13": 14.2, "50": 17.6, "25": 20.0})
    assert r.points[""]["outcome"] == "confirmed"
    # The values in the axis's order (keys are numbers), then the verdict.
    assert r.text == "14.2 at 13p, 20.0 at 25p, 17.6 at 50p; 18 (±0.5) reached at 50p: supports"
    assert c.verdict == "differs" and not c.unexplained
    # Within the interval there (17 ± 1.5 reaches 18 ± 0.5), not within the digits alone.
    _, r = _run(tmp_path, {"13": 14.2, "50": 17.0}, spread={"50": 1.5, "13": None})
    assert r.text.endswith("18 within the interval at 50p (±1.5): supports")
    assert r.points[""]["outcome"] == "confirmed"
    # A narrower interval does not reach it: between 14.2 at 13p and 17 at 50p, 13p and 50p
    # have buffers between them not run.
    c, r = _run(tmp_path, {"13": 14.2, "50": 21.0}, spread={"50": 0.1})
    assert r.text.endswith("18 between 13p and 50p: not tested")
    assert r.points[""]["outcome"] == "unexplained" and c.unexplained
    assert c.explanation.startswith("unexplained (what the buffer leaves); hypothesis")


def test_adjacent_buffers_and_outside_refute_over_the_buffers_run(tmp_path):
    # 13 and 14 are adjacent (step 1): no buffer in packets lies between them.
    curve = {"13": 14.2, "14": 21.0, "15": 22.0, "16": 23.0, "50": 24.0}
    c, r = _run(tmp_path, curve, other={"13": 10.0, "14": 12.0, "50": 44.0})
    assert r.points[""]["outcome"] == "refuted" and c.unexplained
    assert r.text.endswith(
        "18 between adjacent 13p and 14p: refuted, over 13-16, 50 only, not below 13p or above "
        "50p; the other's value between 14p and 50p"
    )
    # Outside every value; the queue peaking under the largest buffer; no bracket (the other
    # claim's 40 outside its values).
    _, r = _run(tmp_path, {"13": 5.0, "14": 6.0, "50": 7.0}, peak={"50": 49.0, "13": 13.0})
    assert r.text == (
        "5.00 at 13p, 6.00 at 14p, 7.00 at 50p; 18 outside: refuted, over 13, 14, 50 only, not "
        "below 13p; peak 49 at 50p"
    )


def test_a_claim_naming_an_untested_hypothesis_stays_unexplained(tmp_path):
    claims = CLAIMS.replace(
        'explanation = "buffer"', 'explanation = "buffer"\nunexplained = "the run length"'
    )
    c, r = _run(tmp_path, {"13": 18.0, "50": 20.0}, claims=claims)
    assert r.points[""]["outcome"] == "confirmed"
    assert c.unexplained and c.explanation.startswith("unexplained (the run length); hypothesis")


def test_a_claim_that_agrees_keeps_no_explanation(tmp_path):
    c, r = _run(tmp_path, {"13": 5.0, "50": 7.0}, ours=18.2)
    assert c.verdict == "agrees" and r.points[""]["outcome"] == "refuted"
    assert c.explanation == ""


def test_number_writes_the_outcome(tmp_path):
    claims = CLAIMS.replace('unit = "p"', 'unit = "p"\nnumber = "outcomes.{1}"')
    ctx = _ctx(tmp_path, {"13": 14.2, "50": 17.6}, claims=claims)
    assert ctx.numbers["outcomes"] == {"x": "confirmed"}


def test_ranges_of_axis_values():
    from aqmlab.reproduce.axis_test import ranges

    keys = [13, 14, 15, 16, 17, 18, 25, 26, 35, 50]
    assert ranges([(float(k), str(k)) for k in keys], 1.0) == "13-18, 25, 26, 35, 50"
    assert ranges([(0.5, "0.5"), (1.0, "1"), (1.5, "1.5")], 0.5) == "0.5-1.5"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            ('texts.near = "{published:g} within the interval at {at}: supports"\n', ""),
            "hypothesis.buffer.texts.near: expected a text",
        ),
        (('unit = "p"', 'unit = "p"\ntexts.more = "x"'), "buffer.texts.more: expected one of"),
        (('unit = "p"', "step = 0"), "hypothesis.buffer.step: expected the axis's resolution"),
        (('unit = "p"', "at = 'x > 0'"), "hypothesis.buffer.at: expected no such key"),
        (('reference = "_ax"\n', ""), "hypothesis.buffer.reference: expected a text"),
    ],
)
def test_a_bad_axis_table_is_refused_in_one_line(tmp_path, edit, expected):
    claims = CLAIMS.replace(*edit)
    assert claims != CLAIMS
    refused_in_one_line(example_folder(tmp_path, claims), "claims.toml", expected)


def test_no_table_over_the_axis_is_one_line(tmp_path):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _run(tmp_path, 3.0)
    msg = str(e.value)
    assert "\n" not in msg and "claims.toml: claim 'x': hypothesis 'buffer'" in msg
    assert msg.endswith("reference: no table of axis values at '_ax._m.x'")
    with pytest.raises(AqmlabError, match="axis values must be numbers"):
        _run(tmp_path, {"13p": 3.0})
