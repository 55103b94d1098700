"""``reduce = "crossing"`` (docs/reproductions.md, "Metrics as data";
aqmlab.reproduce.crossing): the first abscissa at which a column reaches a level, linear
between the two points around it, with exact values; errors in one line naming the key."""

from __future__ import annotations

import math

import pytest
from aqmlab.exceptions import AqmlabError

PATH = "/r/experiment.toml"


def _frame():
    import pandas as pd

    return pd.DataFrame(
        {
            "g": ["a", "a", "a", "a", "b", "b", "c", "c", "c"],
            "t": [10.0, 30.0, 20.0, 20.0, 10.0, 20.0, 5.0, 10.0, math.nan],
            "u": [0.5, 0.875, 0.5, 1.0, 0.25, 0.5, 0.875, 1.0, 0.0],
            "seed": [1, 1, 1, 2, 1, 1, 1, 1, 1],
        }
    )


def _number(doc, df=None):
    from aqmlab.reproduce.metrics import compute, load_numbers

    (nd,) = load_numbers(PATH, {"x": doc}, ["sweep"])
    return compute(nd, {"sweep": _frame() if df is None else df}, lambda t: t)


DOC = {"by": ["g"], "key": ["{g}"], "column": "u", "reduce": "crossing", "x": "t", "level": 0.75}


def test_the_first_point_reaching_the_level_linear_between_the_two_around_it():
    got = _number(DOC)
    # a: its points in increasing t (10: 0.5; 20: the two seeds' mean 0.75; 30: 0.875) reach 0.75
    # at 20 exactly; b (0.25, 0.5) never: no value; c's first point is there already (its row
    # without t left out): its own t.
    assert got == {"a": 20.0, "b": got["b"], "c": 5.0} and math.isnan(got["b"])
    # Between two points: a at 0.625 is half-way from 10 (0.5) to 20 (0.75); at 0.8125, half-way
    # from 20 to 30; `then` after it.
    assert _number({**DOC, "level": 0.625})["a"] == 15.0
    assert _number({**DOC, "level": 0.8125})["a"] == 25.0
    assert _number({**DOC, "level": 0.625, "then": "x / 100"})["a"] == 0.15
    # In values, beside a mean.
    vals = {"values": {"at": {k: DOC[k] for k in ("column", "reduce", "x", "level")},
                       "mean": {"column": "u", "reduce": "mean"}}}  # fmt: skip
    got = _number({"by": ["g"], "key": ["{g}"], **vals})
    assert got["a"] == {"at": 20.0, "mean": 0.71875}


@pytest.mark.parametrize(
    "doc, expected",
    [
        ({**DOC, "x": None}, "numbers.x.x: expected the column of the abscissa"),
        ({k: v for k, v in DOC.items() if k != "level"}, "numbers.x.level: expected the level"),
        ({**DOC, "reduce": "mean"}, 'numbers.x.x: only with reduce = "crossing"'),
        ({**DOC, "level": True}, "numbers.x.level: expected the level"),
    ],
)
def test_a_bad_crossing_is_one_line_naming_the_key(doc, expected):
    with pytest.raises(AqmlabError) as e:
        _number(doc)
    assert str(e.value).startswith(PATH) and expected in str(e.value)
    assert "\n" not in str(e.value)


def test_an_abscissa_missing_from_the_results_is_one_line():
    with pytest.raises(AqmlabError, match=r"numbers\.x\.x: no column 'nope' in the results"):
        _number({**DOC, "x": "nope"})
