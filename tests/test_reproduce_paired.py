"""Numbers of runs paired across arms (docs/reproductions.md, "Metrics as data"): a
[numbers.NAME] with ``pair``, ``arms`` and per-pair expressions, with exact values; the
counterfactual: the per-pair ratio's mean is not the ratio of the means; errors in one line."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas")

PATH = "/r/experiment.toml"


def _frame():
    # bytes per seed: CoDel 1, 9; tail drop 2, 3; small 1, 1; seed 3 only for CoDel.
    rows = [
        ("CoDel", 1, 1.0), ("CoDel", 2, 9.0), ("CoDel", 3, 5.0),
        ("tail drop", 2, 3.0), ("tail drop", 1, 2.0),
        ("small", 1, 1.0), ("small", 2, 1.5),
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["case", "seed", "bytes"])


DOC = {
    "pair": "seed",
    "arm_column": "case",
    "arms": {"c": "CoDel", "t": "tail drop", "s": "small"},
    "column": "bytes",
    "values": {
        "ratio": {"expr": "c / t", "reduce": "mean"},
        "ratios": {"expr": "c / t", "reduce": "list"},
        "loss": {"expr": "1 - s / t", "reduce": "max", "then": "100 * x"},
        "spread": {"expr": "c / t", "reduce": "spread"},
    },
}


def _number(doc):
    from aqmlab.reproduce.metrics import compute, load_numbers

    (nd,) = load_numbers(PATH, {"x": doc}, ["sweep"])
    return compute(nd, {"sweep": _frame()}, lambda t: t)


def test_paired_values_are_taken_seed_by_seed():
    from aqmlab.reproduce.common import seed_spread

    got = _number(DOC)
    # Seed 1: 1/2, seed 2: 9/3 (seed 3 has no tail drop: no value, left out).
    assert got["ratios"][:2] == [0.5, 3.0] and got["ratios"][2] != got["ratios"][2]
    assert got["ratio"] == 1.75
    # The counterfactual: the ratio of the means, (1 + 9) / (2 + 3) = 2, is not it.
    assert got["ratio"] != 2.0
    assert got["loss"] == 50.0  # 1 - 1/2 (seed 1) and 1 - 1.5/3 (seed 2): 0.5
    assert got["spread"] == seed_spread([0.5, 3.0])


def test_one_number_and_where():
    doc = {k: v for k, v in DOC.items() if k != "values"}
    got = _number({**doc, "expr": "c - t", "reduce": "sum", "where": "seed < 2"})
    assert got == -1.0


@pytest.mark.parametrize(
    "edit, expected",
    [
        ({"arms": {}}, "numbers.x.arms: expected a table of NAME = a value of arm_column"),
        ({"arm_column": 3}, "numbers.x.arm_column: expected a column of the results"),
        (
            {"values": {"r": {"expr": "c / z"}}},
            "numbers.x.values.r.expr: expected an expression of the arms (c, t, s), got 'z'",
        ),
        (
            {"values": {"r": {"expr": "c", "reduce": "value"}}},
            "numbers.x.values.r.reduce: expected a reduction of the pairs",
        ),
        ({"values": {"r": {"expr": "c", "column": "x"}}}, "numbers.x.values.r.column: unknown key"),
        ({"expr": "c"}, "numbers.x: expected values or expr + reduce, not both"),
        ({"sweeps": ["other"]}, "numbers.x.sweeps: expected names of [[sweep]]s"),
        ({"where": "seed <"}, "numbers.x.where: 'seed <' is not an expression"),
    ],
)
def test_a_bad_paired_number_is_one_line_naming_the_file_and_key(edit, expected):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.metrics import load_numbers

    with pytest.raises(AqmlabError) as e:
        load_numbers(PATH, {"x": {**DOC, **edit}}, ["sweep"])
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(PATH + ": ") and expected in msg, msg


def test_two_runs_of_an_arm_in_one_pair_is_one_line_at_run_time():
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _number({**DOC, "pair": "case"})
    assert "numbers.x.arms.c: several runs of 'CoDel' share a value of 'case'" in str(e.value)
