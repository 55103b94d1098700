"""A reduced sweep's reduced.json as columns of its results, and the [numbers.NAME] leaf keys
that read them (docs/reproductions.md, "Metrics as data"): ``default`` (a column the results
may lack), ``omit`` (no key where a group has no value) and ``integer`` (a count column stored
as floats); exact values, and one-line errors naming the file and the key."""

from __future__ import annotations

import json
import math

import pytest

pd = pytest.importorskip("pandas")

PATH = "/r/experiment.toml"


def _sweep(tmp_path, docs):
    """A sweep folder whose runs wrote ``docs`` as their reduced.json."""
    (tmp_path / "results.csv").write_text("run\n", encoding="utf-8")
    for key, doc in docs.items():
        run = tmp_path / "runs" / key
        run.mkdir(parents=True)
        (run / "summary.json").write_text("{}", encoding="utf-8")
        (run / "reduced.json").write_text(json.dumps(doc), encoding="utf-8")
    return str(tmp_path)


def test_every_key_of_reduced_json_is_a_column(tmp_path):
    from aqmlab.reproduce.reduced_columns import add

    out = _sweep(
        tmp_path,
        {
            "r1": {"packets": 10, "delay": {"mean": 0.5, "tail": {"p99": 2.0}}, "xs": [1, 2]},
            "r2": {"packets": 7, "delay": {"mean": 0.25, "tail": {"p99": 1.0}}, "slack": 3.5},
        },
    )
    df = add(pd.DataFrame({"run": ["r1", "r2"], "case": ["a", "b"]}), out)
    assert list(df.columns) == [
        "run",
        "case",
        "reduced.packets",
        "reduced.delay",
        "reduced.delay.mean",
        "reduced.delay.tail",
        "reduced.delay.tail.p99",
        "reduced.xs",
        "reduced.slack",
    ]
    assert df["reduced.packets"].tolist() == [10, 7] and df["reduced.packets"].dtype == "int64"
    assert df["reduced.delay.mean"].tolist() == [0.5, 0.25]
    assert df["reduced.delay.tail.p99"].tolist() == [2.0, 1.0]
    assert df["reduced.delay"].iloc[1] == {"mean": 0.25, "tail": {"p99": 1.0}}
    assert df["reduced.xs"].iloc[0] == [1, 2] and math.isnan(df["reduced.xs"].iloc[1])
    assert math.isnan(df["reduced.slack"].iloc[0]) and df["reduced.slack"].iloc[1] == 3.5


def _frame():
    return pd.DataFrame(
        {
            "case": ["a", "b"],
            "drops": [2740.0, 0.0],
            "half": [0.5, 1.0],
            "slack": [float("nan"), 3.5],
            "stats": [{"mean": 1.0}, {"mean": 2.0}],
        }
    )


def _number(doc):
    from aqmlab.reproduce.metrics import compute, load_numbers

    (nd,) = load_numbers(PATH, {"x": doc}, ["sweep"])
    return compute(nd, {"sweep": _frame()}, lambda t: t)


def test_default_omit_and_integer():
    got = _number(
        {
            "by": ["case"],
            "key": ["{case}"],
            "values": {
                "drops": {"column": "drops", "reduce": "value", "integer": True},
                "codel": {"column": "not.there", "reduce": "value", "default": 0},
                "slack": {"column": "slack", "reduce": "value", "omit": True},
                "stats": {"column": "stats", "reduce": "value"},
            },
        }
    )
    assert got == {
        "a": {"drops": 2740, "codel": 0, "stats": {"mean": 1.0}},
        "b": {"drops": 0, "codel": 0, "slack": 3.5, "stats": {"mean": 2.0}},
    }
    assert type(got["a"]["drops"]) is int
    # Without omit the group with no value has its key, NaN; without integer a float.
    plain = _number({"by": ["case"], "key": ["{case}"], "column": "slack", "reduce": "value"})
    assert math.isnan(plain["a"]) and plain["b"] == 3.5
    assert type(_number({"column": "drops", "reduce": "max"})) is float


@pytest.mark.parametrize(
    "doc, expected",
    [
        ({"column": "nope", "reduce": "max"}, "numbers.x.column: no column 'nope'"),
        ({"column": "half", "reduce": "min", "integer": True}, "numbers.x.integer: expected a"),
        ({"column": "half", "reduce": "max", "integer": 1}, "numbers.x.integer: expected true"),
        ({"column": "half", "reduce": "max", "omit": "yes"}, "numbers.x.omit: expected true"),
        ({"column": "half", "default": "0"}, "numbers.x.default: expected a number"),
    ],
)
def test_a_bad_leaf_key_is_one_line_naming_the_key(doc, expected):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _number(doc)
    msg = str(e.value)
    assert msg.startswith(f"{PATH}: ") and expected in msg and "\n" not in msg, msg
