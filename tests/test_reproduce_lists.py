"""Lists among a [numbers.NAME]'s results (docs/reproductions.md, "Metrics as data"):
``reduce = "list"`` and a key level in square brackets, with exact values."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas")

PATH = "/r/experiment.toml"


def _frame():
    rows = []
    for case in ("b", "a"):
        for seed in (3, 1, 2):
            rows.append({"case": case, "seed": seed, "p1": 10.0 * seed, "p2": seed + (case == "b")})
    return pd.DataFrame(rows)


def _number(doc):
    from aqmlab.reproduce.metrics import compute, load_numbers

    (nd,) = load_numbers(PATH, {"x": doc}, ["sweep"])
    return compute(nd, {"sweep": _frame()}, lambda t: t)


def test_list_gives_the_groups_values_in_run_order_integers_kept():
    got = _number({"by": ["case"], "key": ["{case}"], "column": "seed", "reduce": "list"})
    assert got == {"a": [3, 1, 2], "b": [3, 1, 2]}
    assert all(type(v) is int for v in got["a"])
    floats = _number({"by": ["case"], "key": ["{case}"], "column": "p1", "reduce": "list"})
    assert floats["a"] == [30.0, 10.0, 20.0] and type(floats["a"][0]) is float


def test_a_bracketed_key_level_is_a_list_in_each_order():
    doc = {
        "by": ["case"],
        "each": {"i": [2, 1]},
        "key": ["{case}", "[{i}]"],
        "values": {
            "mean": {"column": "p{i}", "reduce": "mean"},
            "n": {"column": "p{i}", "reduce": "max"},
        },
    }
    got = _number(doc)
    # Each case a list in each's order (p2 first), each entry the table of values' names.
    assert got == {
        "a": [{"mean": 2.0, "n": 3.0}, {"mean": 20.0, "n": 30.0}],
        "b": [{"mean": 3.0, "n": 4.0}, {"mean": 20.0, "n": 30.0}],
    }
    # The same key without brackets is a table keyed by the filled template.
    plain = _number({**doc, "key": ["{case}", "{i}"]})
    assert plain["a"] == {"2": {"mean": 2.0, "n": 3.0}, "1": {"mean": 20.0, "n": 30.0}}


def test_a_bracketed_level_among_value_levels():
    doc = {
        "by": ["case"],
        "each": {"i": [1, 2]},
        "key": ["{case}", "{value}", "[{i}]"],
        "values": {"hi": {"column": "p{i}", "reduce": "max"}},
    }
    assert _number(doc) == {"a": {"hi": [30.0, 3.0]}, "b": {"hi": [30.0, 4.0]}}
