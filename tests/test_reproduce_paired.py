"""Numbers of runs paired across arms (docs/reproductions.md, "Metrics as data";
aqmlab.reproduce.paired): a [numbers.NAME] with ``arm_column``, ``arms``, ``pair`` and per
reduction a ``column`` and an ``expr`` of the arms, computed pair by pair then reduced, or of
the arms' ``mean()``s (one number). Exact values on made-up frames; the counterfactuals (the
per-pair ratio's mean is not the ratio of the means, the arms swapped give the inverse);
errors in one line naming the file and the key."""

from __future__ import annotations

import math

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
    "values": {
        "ratio": {"column": "bytes", "expr": "c / t", "reduce": "mean"},
        "ratios": {"column": "bytes", "expr": "c / t", "reduce": "list"},
        "loss": {"column": "bytes", "expr": "1 - s / t", "reduce": "max", "then": "100 * x"},
        "spread": {"column": "bytes", "expr": "c / t", "reduce": "spread"},
    },
}


def _number(doc, df=None):
    from aqmlab.reproduce.metrics import compute, load_numbers

    (nd,) = load_numbers(PATH, {"x": doc}, ["sweep"])
    return compute(nd, {"sweep": _frame() if df is None else df}, lambda t: t)


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
    got = _number({**doc, "column": "bytes", "expr": "c - t", "reduce": "sum", "where": "seed < 2"})
    assert got == -1.0


# consumer-edge's C/T % (its [numbers._ct]): the ratio of the arms' means, the half-width of
# the per-seed ratios and how many seeds it is over, per group of `by`.
ARMS = {"arm_column": "q", "arms": {"c": "c", "t": "t"}}
CT = {
    "r": {"column": "x", "expr": "100 * mean(c) / mean(t)"},
    "s": {"column": "x", "expr": "div(100 * c, t)", "reduce": "spread"},
    "n": {"column": "x", "expr": "div(c, t)", "reduce": "count"},
    "plain": {"column": "x", "expr": "mean(c) / mean(t)"},
}


def _ct_frame():
    """Two points; at p1 three seeds, c = 1, 2, 6 and t = 2, 2, 4 (ratios 0.5, 1, 1.5); at p2
    t is 0 at seed 2 (that pair has no per-seed ratio)."""
    rows = []
    for p, seeds in (
        ("p1", ((1, 1.0, 2.0), (2, 2.0, 2.0), (3, 6.0, 4.0))),
        ("p2", ((1, 1.0, 1.0), (2, 5.0, 0.0), (3, 3.0, 2.0))),
    ):
        for seed, c, t in seeds:
            rows += [
                {"p": p, "seed": seed, "q": "c", "x": c},
                {"p": p, "seed": seed, "q": "t", "x": t},
            ]
    return pd.DataFrame(rows)


def _ct(values, df=None, arms=ARMS):
    doc = {"by": ["p"], "key": ["{p}"], **arms, "values": values}
    return _number(doc, _ct_frame() if df is None else df)


def test_ratio_of_means_its_spread_and_pairs():
    from aqmlab.reproduce.common import seed_spread

    out = _ct(CT)
    # p1: 100 × mean(1, 2, 6) / mean(2, 2, 4) = 100 × 3 / (8/3) = 112.5, not the mean of the
    # per-seed ratios (100)
    assert out["p1"]["r"] == 100 * 3.0 / (8 / 3)
    assert out["p1"]["r"] == pytest.approx(112.5)
    assert out["p1"]["plain"] == pytest.approx(1.125)
    assert out["p1"]["s"] == seed_spread([50.0, 100.0, 150.0])
    assert out["p1"]["s"] == pytest.approx(4.302652729749464 * 50 / math.sqrt(3))
    assert out["p1"]["n"] == 3
    # p2: the means keep seed 2 (t = 0 there): 100 × 3 / 1 = 300; the pairs leave it out
    assert out["p2"]["r"] == pytest.approx(300.0)
    assert out["p2"]["s"] == seed_spread([100.0, 150.0])
    assert out["p2"]["n"] == 2


def test_the_arms_swapped_give_the_inverse():
    """The counterfactual: t over c is another number (1/1.125 at p1)."""
    out = _ct({"r": CT["plain"]}, arms={"arm_column": "q", "arms": {"c": "t", "t": "c"}})
    assert out["p1"]["r"] == pytest.approx(8 / 9)


def test_a_plain_division_keeps_a_zero_denominator_pair():
    """The counterfactual of div(): ``/`` gives seed 2 at p2 an infinite ratio, counted."""
    out = _ct({"n": {"column": "x", "expr": "c / t", "reduce": "count"}})
    assert out["p2"]["n"] == 3


def test_no_value_where_the_denominator_is_zero_or_under_two_pairs():
    df = _ct_frame()
    df.loc[df["q"] == "t", "x"] = 0.0
    out = _ct({k: CT[k] for k in ("r", "s", "n")}, df)
    assert math.isnan(out["p1"]["r"]) and out["p1"]["s"] is None and out["p1"]["n"] == 0


def test_then_follows_a_number_of_means():
    out = _ct({"r": {**CT["r"], "then": "x / 100"}})
    assert out["p1"]["r"] == 100 * 3.0 / (8 / 3) / 100


@pytest.mark.parametrize(
    "edit, expected",
    [
        ({"arms": {}}, "numbers.x.arms: expected a table of NAME = a value of arm_column"),
        ({"arms": ["c", "t"]}, "numbers.x.arms: expected a table of NAME = a value of"),
        ({"arm_column": 3}, "numbers.x.arm_column: expected a column of the results"),
        ({"pair": 1}, "numbers.x.pair: expected a column of the results (a text), got 1"),
        (
            {"values": {"r": {"column": "bytes", "expr": "c / z"}}},
            "numbers.x.values.r.expr: expected an expression of the arms (c, t, s), got 'z'",
        ),
        (
            {"values": {"r": {"column": "bytes", "expr": "c", "reduce": "value"}}},
            "numbers.x.values.r.reduce: expected a reduction of the pairs",
        ),
        (
            {"values": {"r": {"column": "bytes", "expr": "mean(c) / mean(t)", "reduce": "mean"}}},
            "numbers.x.values.r.reduce: expected none: an expression of mean()s is one number",
        ),
        (
            {"values": {"r": {"column": "bytes", "expr": "mean(c + t)"}}},
            "numbers.x.values.r.expr: expected mean() of an arm's name",
        ),
        (
            {"values": {"r": {"column": "bytes", "expr": "number(c)"}}},
            "numbers.x.values.r.expr: 'number(c)': only abs(), div() and mean() may be called",
        ),
        ({"values": {"r": {"expr": "c"}}}, "numbers.x.values.r.column: expected the column"),
        # the removed reductions' keys are no part of a reduction
        (
            {"values": {"r": {"column": "bytes", "expr": "c", "scale": 100}}},
            "numbers.x.values.r.scale: unknown key",
        ),
        ({"expr": "c"}, "numbers.x: expected values or column + reduce, not both"),
        ({"of": {"a": "b"}}, "numbers.x.of: not with arm_column + arms"),
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


@pytest.mark.parametrize("reduce", ["ratio", "ratio_spread", "ratio_pairs"])
def test_the_removed_ratio_reductions_are_refused(reduce):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.metrics import load_numbers

    doc = {"by": ["p"], "key": ["{p}"], "values": {"r": {"column": "x", "reduce": reduce}}}
    with pytest.raises(AqmlabError, match=r"numbers\.x\.values\.r\.reduce: expected mean or"):
        load_numbers(PATH, {"x": doc}, ["sweep"])


def test_two_runs_of_an_arm_in_one_pair_is_one_line_at_run_time():
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _number({**DOC, "pair": "case"})
    assert "numbers.x.arms.c: several runs of 'CoDel' share a value of 'case'" in str(e.value)
    twice = pd.concat([_ct_frame(), _ct_frame()], ignore_index=True)
    with pytest.raises(AqmlabError, match=r"numbers\.x\.arms\.c: several runs of 'c' share"):
        _ct({"s": CT["s"]}, twice)


def test_a_missing_pairing_column_is_one_line_at_run_time():
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError, match=r"numbers\.x\.pair: no column 'run' in the results"):
        _ct({"r": CT["r"]}, arms={**ARMS, "pair": "run"})
    with pytest.raises(AqmlabError, match=r"numbers\.x\.values\.r: no column 'y' in the results"):
        _ct({"r": {**CT["r"], "column": "y"}})
