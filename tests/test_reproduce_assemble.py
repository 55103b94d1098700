"""Numbers made of numbers (docs/reproductions.md, "Metrics as data"): ``of`` with ``each`` and
``key``, ``of`` without ``expr`` (a table), ``merge``, and ``expr`` of parameters alone, with
exact values; errors in one line naming the file and the key."""

from __future__ import annotations

import math

import pytest

PATH = "/r/experiment.toml"

NUMBERS = {
    "m": {"a.1": {"mb": 3.0, "p50": 2.0}, "b": {"mb": 4.0, "p50": 8.0}},
    "ref": {"a.1": {"mb": 6.0, "p50": 1.0}, "b": {"mb": 2.0, "p50": None}},
    "phases": {"a.1": [1.0, 2.0], "b": [3.0]},
}


def _number(doc, numbers=None, fill=lambda t: t):
    from aqmlab.reproduce.metrics import compute, load_numbers

    (nd,) = load_numbers(PATH, {"x": doc}, ["sweep"])
    return compute(nd, {}, fill, numbers or NUMBERS)


def test_one_number_per_each_combination_at_key():
    doc = {
        "each": {"c": ["a.1", "b"]},
        "key": ["{c}", "ratio"],
        "of": {"ours": 'm."{c}".mb', "theirs": 'ref."{c}".mb'},
        "expr": "ours / theirs",
    }
    assert _number(doc) == {"a.1": {"ratio": 0.5}, "b": {"ratio": 2.0}}
    # A number without a value gives none.
    none = _number({**doc, "of": {"ours": 'm."{c}".p50', "theirs": 'ref."{c}".p50'}})
    assert none == {"a.1": {"ratio": 2.0}, "b": {"ratio": None}}


def test_of_without_expr_is_a_table_with_merged_and_picked_tables():
    doc = {
        "each": {"c": ["b", "a.1"]},
        "key": ["{c}"],
        "merge": ['m."{c}"'],
        "of": {
            "both": ['m."{c}"', 'ref."{c}"'],
            "pick": {"p": 'ref."{c}".mb'},
            "ph": 'phases."{c}"',
        },
    }
    got = _number(doc)
    assert list(got) == ["b", "a.1"]  # each's order
    assert got["a.1"] == {
        "mb": 3.0,
        "p50": 2.0,
        "both": {"mb": 6.0, "p50": 1.0},  # ref's merged over m's
        "pick": {"p": 6.0},
        "ph": [1.0, 2.0],
    }
    got["a.1"]["ph"].append(9.0)  # a copy: the number it came from is unchanged
    assert NUMBERS["phases"]["a.1"] == [1.0, 2.0]
    assert _number({"of": {"x": "m.b.mb"}}) == {"x": 4.0}


def test_a_key_of_digits_indexes_a_list_and_omit_leaves_out_no_value():
    """codel-dynamic's _phase_ratio: ours ÷ the reference's per phase, a list level holding
    only the phases with a value (one whose reference is 0, or none, left out)."""
    numbers = {
        "ours": {"a": [2.0, 3.0, 4.0], "b": [1.0, 1.0, 1.0]},
        "ref": {"a": [4.0, 0.0, 2.0], "b": [None, float("nan"), 0.0]},
    }
    doc = {
        "each": {"c": ["a", "a", "a", "b", "b", "b"], "i": [0, 1, 2, 0, 1, 2]},
        "key": ["{c}", "[{i}]"],
        "of": {"o": "ours.{c}.{i}", "r": "ref.{c}.{i}"},
        "expr": "div(o, r)",
    }
    got = _number(doc, numbers)
    assert got["a"][0] == 0.5 and math.isnan(got["a"][1]) and got["a"][2] == 2.0
    assert got["b"][0] is None and all(math.isnan(x) for x in got["b"][1:])
    assert _number({**doc, "omit": True}, numbers) == {"a": [0.5, 2.0], "b": []}
    # A list's index past its end is no number.
    with pytest.raises(Exception, match=r"numbers\.x\.of\.o: no number 'ours\.a\.3'"):
        _number({**doc, "each": {"c": ["a"], "i": [3]}}, numbers)


def test_expr_of_parameters_alone():
    got = _number({"expr": "{n} * (1 + 2) / 4"}, fill=lambda t: t.replace("{n}", "10"))
    assert got == 7.5


@pytest.mark.parametrize(
    "doc, expected",
    [
        ({"of": {"x": 3}}, "numbers.x.of: expected a table of NAME = "),
        ({"of": {}, "merge": ["m"]}, "numbers.x.of: expected one or more NAME = path"),
        (
            {"of": {"x": ["m"]}, "expr": "x", "key": ["k"]},
            "numbers.x.of: expected one path per name",
        ),
        ({"merge": "m"}, "numbers.x.merge: expected a list of paths"),
        (
            {"of": {"x": "m"}, "key": ["k"], "omit": True},
            "numbers.x.omit: expected true or false, with each and expr",
        ),
        (
            {"of": {"x": "m"}, "each": {"c": ["a"]}},
            "numbers.x.key: expected one template per level",
        ),
        ({"of": {"x": "m"}, "by": ["c"]}, "numbers.x.by: not with of / expr"),
        (
            {"expr": "y + 1"},
            "numbers.x.expr: expected an expression of numbers and {param} fields, got 'y'",
        ),
    ],
)
def test_a_bad_assembled_number_is_one_line_naming_the_file_and_key(doc, expected):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.metrics import load_numbers

    with pytest.raises(AqmlabError) as e:
        load_numbers(PATH, {"x": doc}, ["sweep"])
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(PATH + ": ") and expected in msg, msg


@pytest.mark.parametrize(
    "doc, expected",
    [
        ({"of": {"x": "m.c"}}, "numbers.x.of.x: no number 'm.c' (declared above this one)"),
        (
            {"merge": ["m.b.mb"], "key": ["k"]},
            "numbers.x.merge: expected paths of tables, to merge",
        ),
        (
            {"of": {"x": "m.b"}, "expr": "x", "key": ["k"]},
            "numbers.x.of.x: expected the path of one number",
        ),
    ],
)
def test_a_missing_or_wrong_path_is_one_line_at_run_time(doc, expected):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _number(doc)
    assert expected in str(e.value), str(e.value)


def test_expr_alone_that_is_a_text_is_that_text():
    """A text in quotes is that text, not a number: consumer-edge's fitted_on, what each fit was
    fitted to, one text per each combination (results.json)."""
    doc = {
        "each": {"fit": ["best", "held"], "text": ["the slides' medians", "the other's only"]},
        "key": ["{fit}"],
        "expr": '"{text}"',
    }
    assert _number(doc) == {"best": "the slides' medians", "held": "the other's only"}
    assert _number({"expr": "'{p}'"}, fill=lambda t: t.replace("{p}", "a")) == "a"
