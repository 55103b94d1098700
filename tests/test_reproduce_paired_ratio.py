"""One arm over another, paired run by run: the [numbers.NAME] reductions ratio,
ratio_spread and ratio_pairs (docs/reproductions.md, "Metrics as data";
aqmlab.reproduce.paired_ratio): exact values on a made-up frame, and one-line errors naming
the file and the key."""

from __future__ import annotations

import math

import pytest

pd = pytest.importorskip("pandas")

PATH = "/r/experiment.toml"
ARMS = {"q": ["c", "t"]}


def _frame():
    """Two points; at p1 three seeds, c = 1, 2, 6 and t = 2, 2, 4 (ratios 0.5, 1, 1.5); at p2
    t is 0 at seed 2 (that pair left out of the per-pair ratios)."""
    rows = []
    for seed, c, t in ((1, 1.0, 2.0), (2, 2.0, 2.0), (3, 6.0, 4.0)):
        rows += [{"p": "p1", "seed": seed, "q": "c", "x": c}]
        rows += [{"p": "p1", "seed": seed, "q": "t", "x": t}]
    for seed, c, t in ((1, 1.0, 1.0), (2, 5.0, 0.0), (3, 3.0, 2.0)):
        rows += [{"p": "p2", "seed": seed, "q": "c", "x": c}]
        rows += [{"p": "p2", "seed": seed, "q": "t", "x": t}]
    return pd.DataFrame(rows)


def _number(values, df=None):
    from aqmlab.reproduce.metrics import compute, load_numbers

    doc = {"by": ["p"], "key": ["{p}"], "values": values}
    (nd,) = load_numbers(PATH, {"n": doc}, ["sweep"])
    return compute(nd, {"sweep": _frame() if df is None else df}, str)


def test_ratio_of_means_its_spread_and_pairs():
    from aqmlab.reproduce.common import seed_spread

    out = _number(
        {
            "r": {"column": "x", "reduce": "ratio", "arms": ARMS, "scale": 100},
            "s": {"column": "x", "reduce": "ratio_spread", "arms": ARMS, "scale": 100},
            "n": {"column": "x", "reduce": "ratio_pairs", "arms": ARMS},
            "plain": {"column": "x", "reduce": "ratio", "arms": ARMS},
        }
    )
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
    out = _number({"r": {"column": "x", "reduce": "ratio", "arms": {"q": ["t", "c"]}}})
    assert out["p1"]["r"] == pytest.approx(8 / 9)


def test_no_value_where_the_denominator_is_zero_or_under_two_pairs():
    df = _frame()
    df.loc[df["q"] == "t", "x"] = 0.0
    out = _number(
        {
            "r": {"column": "x", "reduce": "ratio", "arms": ARMS},
            "s": {"column": "x", "reduce": "ratio_spread", "arms": ARMS},
            "n": {"column": "x", "reduce": "ratio_pairs", "arms": ARMS},
        },
        df,
    )
    assert math.isnan(out["p1"]["r"]) and out["p1"]["s"] is None and out["p1"]["n"] == 0


@pytest.mark.parametrize(
    ("leaf", "expected"),
    [
        ({"reduce": "ratio", "arms": ["c", "t"]}, "numbers.n.values.r.arms: expected { COLUMN"),
        ({"reduce": "ratio", "arms": {"q": ["c"]}}, "numbers.n.values.r.arms: expected"),
        ({"reduce": "ratio", "arms": {"q": ["c", "c"]}}, "numbers.n.values.r.arms: the two arms"),
        ({"reduce": "ratio", "arms": ARMS, "pair": 1}, "numbers.n.values.r.pair: expected the"),
        ({"reduce": "ratio", "arms": ARMS, "scale": 0}, "numbers.n.values.r.scale: expected a"),
        ({"reduce": "mean", "arms": ARMS}, "numbers.n.values.r.arms: only for reduce = ratio"),
    ],
)
def test_a_bad_ratio_is_one_line_naming_the_file_and_key(leaf, expected):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _number({"r": {"column": "x", **leaf}})
    assert str(e.value).startswith(f"{PATH}: {expected}")
    assert "\n" not in str(e.value)


def test_missing_columns_and_unpairable_runs_are_one_line_at_run_time():
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError, match=r"values\.r: no column 'run' in the results"):
        _number({"r": {"column": "x", "reduce": "ratio", "arms": ARMS, "pair": "run"}})
    twice = pd.concat([_frame(), _frame()], ignore_index=True)
    with pytest.raises(AqmlabError, match=r"values\.s: several runs of one arm share a 'seed'"):
        _number({"s": {"column": "x", "reduce": "ratio_spread", "arms": ARMS}}, twice)
