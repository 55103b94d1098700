"""Three claims.toml features (docs/reproductions.md): ``missing`` (a claim whose number this
run has not is not graded, saying why), a range claim's arm that is one number (a baseline at
every point), and the ``{NAME:fmt}`` / ``{NAME:fmtN}`` fields of a text (numbers as the report
prints them)."""

from __future__ import annotations

import textwrap
from types import SimpleNamespace

import pytest

NUMERIC = """
[[claim]]
id = "x"
claim = "the mean at 0.25"
source = "Table V"
location = "p. 3"
kind = "numeric"
published = "0.0105"
metric = 'runs."a=0.25".mean'
missing = "quick run: this α was not run"
note = "per packet: {runs[a=0.25][plain]:fmt4}"
unexplained = true
"""

RANGE = """
[[claim]]
id = "r"
claim = "below the baseline at every α"
source = "Table V"
kind = "range"
published = "below"
metric = "{arm}.mean"
arms = ["_lstf", "_codel"]
predicate = "a < b"
why = "strictly below, our reading"
stalls = "no run"
counterfactual = "the arms swapped"
counterfactual_arms = ["_codel", "_lstf"]
describe = "{a} vs {b} s"
unexplained = true
"""


def _claims(tmp_path, text):
    from aqmlab.reproduce.folder import load_claims

    path = tmp_path / "claims.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_claims(str(path))


def _ctx(tmp_path, claims, numbers):
    from aqmlab.reproduce.loader import Context

    exp = SimpleNamespace(folder=str(tmp_path), claims=claims)
    ctx = Context(exp, "/nonexistent", True, [1], None, False, {}, {})
    ctx.numbers = numbers
    return ctx


def test_a_claim_whose_number_was_not_run_is_not_graded_saying_why(tmp_path):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce import common as cm
    from aqmlab.reproduce.loader import grade

    (c,) = _claims(tmp_path, NUMERIC)
    ctx = _ctx(tmp_path, [c], {"runs": {"a=0.5": {"mean": 0.01}}})
    g = grade(c, ctx, None)
    assert g.verdict == "not graded: quick run: this α was not run"
    assert (g.id, g.location, g.published) == ("x", "p. 3", "0.0105")
    # Run: graded, its note's field printed as the report prints numbers (4 digits here).
    ctx.numbers = {"runs": {"a=0.25": {"mean": 0.01052, "plain": 0.00987654}}}
    g = grade(c, ctx, None)
    assert g.verdict == cm.AGREES and g.note == "per packet: 0.009877"
    # Without missing, a number that is not there is an error, as before.
    (c,) = _claims(tmp_path, NUMERIC.replace('missing = "quick run: this α was not run"\n', ""))
    ctx.numbers = {"runs": {"a=0.5": {"mean": 0.01}}}
    with pytest.raises(AqmlabError, match="metric 'runs.\"a=0.25\".mean'"):
        grade(c, ctx, None)


def test_a_range_arm_of_one_number_is_a_baseline_at_every_point(tmp_path):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce import common as cm
    from aqmlab.reproduce.loader import grade

    (c,) = _claims(tmp_path, RANGE)
    lstf = {"mean": {"α=0.125": 0.009, "α=0.5": 0.012}}
    ctx = _ctx(tmp_path, [c], {"_lstf": lstf, "_codel": {"mean": 0.035}})
    g = grade(c, ctx, None)
    assert (g.verdict, g.counterfactual_verdict) == (cm.HOLDS, cm.FAILS)
    assert [(p["point"], p["ours"]) for p in g.points] == [
        ("α=0.125", "0.00900 vs 0.0350 s"),
        ("α=0.5", "0.0120 vs 0.0350 s"),
    ]
    ctx.numbers["_codel"] = {"mean": 0.01}
    g = grade(c, ctx, None)
    assert g.verdict == cm.FAILS and g.failing == ["α=0.5"]
    # Both arms one number: no points to range over.
    ctx.numbers["_lstf"] = {"mean": 0.009}
    with pytest.raises(AqmlabError, match=r"no arm is a \{point: number\}"):
        grade(c, ctx, None)


def test_fmt_fields_print_numbers_as_the_report_does():
    from aqmlab.reproduce.fill_format import FORMATTER

    text = "{a:fmt} {b:fmt4} {df:fmt} {n:fmt} {d:g} {t[k 1][x]:fmt}"
    values = dict(
        a=504.83, b=0.0333788, df=(499, 499), n=2740, d=2000.0, t={"k 1": {"x": 1.77e-39}}
    )
    assert FORMATTER.vformat(text, (), values) == "505 0.03338 499, 499 2,740 2000 1.77e-39"


def test_a_describe_field_with_a_format_prints_as_it_says():
    from aqmlab.reproduce.fill_format import describe

    # Without a format, as the report prints numbers; with one, as the format says.
    assert describe("{a} vs {b} ms", {"a": 2740, "b": 0.012345}) == "2,740 vs 0.0123 ms"
    assert describe("{a:d} drops, {b:.2f}", {"a": 2740, "b": 0.012345}) == "2740 drops, 0.01"
