"""Metrics as data (docs/reproductions.md, "Metrics as data"): experiment.toml's [[derive]]
columns and [numbers.NAME] reductions on a small made-up frame, with exact values, and their
one-line errors naming the file and the key."""

from __future__ import annotations

import math

import pytest

pd = pytest.importorskip("pandas")

PATH = "/r/experiment.toml"


def _frame():
    """Two disciplines × two rates × two RTTs × two seeds; values chosen so every reduction
    has an exact answer."""
    rows = []
    for q, base in (("droptail", 100.0), ("codel", 10.0)):
        for rate in ("512 kb/s", "10000 kb/s"):
            for rtt in ("30 ms", "100 ms"):
                for seed in (1, 2):
                    rows.append(
                        {
                            "qdisc:bottleneck": q,
                            "point": f"{rate}, {13 * seed}p",
                            "rate": rate,
                            "rtt": rtt,
                            "seed": seed,
                            "bottleneck.sojourn_ms.p50": base * seed,
                            "bottleneck.dropped_pkts": 5 * seed,
                            "bottleneck.enqueued_pkts": 0 if rtt == "30 ms" else 100,
                            "bottleneck.rev.dropped_pkts": 1,
                            "bottleneck.rev.enqueued_pkts": 10,
                        }
                    )
    return pd.DataFrame(rows)


def _derive(doc, df=None, sweep="sweep"):
    from aqmlab.reproduce.metrics import derive, load_derives

    defs = load_derives(PATH, doc, ["sweep", "other"])
    return derive(_frame() if df is None else df, defs, sweep, lambda t: t)


def _number(doc, frames=None, fill=lambda t: t):
    from aqmlab.reproduce.metrics import compute, load_numbers

    (nd,) = load_numbers(PATH, {"x": doc}, ["sweep", "other"])
    return compute(nd, frames or {"sweep": _frame()}, fill)


def test_derive_expressions_maps_and_each():
    df = _derive(
        [
            {"name": "rate_kbps", "expr": "number(rate)"},
            {"name": "buffer", "expr": "number(split(point, ', ', 1))"},
            {"name": "rate_text", "expr": "split(point, ', ', 0)"},
            {
                "name": "discipline",
                "from": "qdisc:bottleneck",
                "map": {"droptail": "tail drop", "codel": "CoDel"},
            },
            {"name": "p50_x2", "expr": "2 * bottleneck.sojourn_ms.p50 - 1"},
            {
                "name": "drop_pct.{d}",
                "expr": "div(100 * {link}.dropped_pkts, {link}.enqueued_pkts)",
                "each": {"d": ["down", "up"], "link": ["bottleneck", "bottleneck.rev"]},
            },
            {"name": "load", "expr": "'4 FTPs'", "sweeps": ["other"]},  # not this sweep
            {"name": "slow", "expr": "rate_kbps < 1000 and not `qdisc:bottleneck` == 'codel'"},
        ]
    )
    r = df.iloc[0]  # droptail, 512 kb/s, 30 ms, seed 1
    assert (r["rate_kbps"], r["buffer"], r["rate_text"]) == (512.0, 13.0, "512 kb/s")
    assert r["discipline"] == "tail drop" and r["p50_x2"] == 199.0
    assert r["drop_pct.down"] != r["drop_pct.down"]  # 5 of 0 enqueued: no value
    assert df.iloc[2]["drop_pct.down"] == 5.0 and r["drop_pct.up"] == 10.0
    assert "load" not in df.columns
    assert list(df["slow"]) == [True] * 4 + [False] * 12  # tail drop at 512 kb/s only


def test_numbers_each_reduction_with_exact_values():
    df = _derive(
        [
            {"name": "rate_kbps", "expr": "number(rate)"},
            {"name": "rtt_ms", "expr": "number(rtt)"},
            {"name": "p50", "expr": "bottleneck.sojourn_ms.p50"},
        ]
    )
    frames = {"sweep": df}
    by = ["rate_kbps", "qdisc:bottleneck"]

    def one(reduce, **kw):
        doc = {"by": by, "key": ["{rate_kbps:g}"], "where": "`qdisc:bottleneck` == 'droptail'"}
        return _number({**doc, "column": "p50", "reduce": reduce, **kw}, frames)

    # Tail drop at each rate: RTTs 30 and 100 ms × seeds 1, 2 -> 100, 200, 100, 200.
    assert one("mean") == {"512": 150.0, "10000": 150.0}
    assert one("median")["512"] == 150.0 and one("min")["512"] == 100.0
    assert one("max")["512"] == 200.0 and one("sum")["512"] == 600.0
    assert one("count")["512"] == 4
    assert one("quantile", q=0.25)["512"] == 100.0 and one("quantile", q=0.75)["512"] == 200.0
    # CoDel's eight runs: 10 × 4, 20 × 4; the middle lies halfway between the 4th and 5th.
    assert (
        _number({"column": "p50", "reduce": "quantile", "q": 0.5, "where": "p50 < 50"}, frames)
        == 15.0
    )
    # The seeds' 95 % half-width, Student's t: values 100, 200 (n = 2, sd 70.71, t 12.706).
    spread = _number(
        {"by": ["rtt_ms"], "key": ["{rtt_ms:g}"], "column": "p50", "reduce": "spread",
         "where": "`qdisc:bottleneck` == 'droptail' and rate_kbps == 512"},
        frames,
    )  # fmt: skip
    assert spread["30"] == pytest.approx(12.706204736174698 * 70.71067811865476 / 2**0.5)
    # One value: no interval.
    assert (
        _number(
            {
                "column": "p50",
                "reduce": "spread",
                "where": "p50 == 10 and rate_kbps == 512 and rtt_ms == 30",
            },
            frames,
        )
        is None
    )
    # No by, no key: one number (every run).
    assert _number({"reduce": "count"}, frames) == 16


def test_numbers_layout_value_level_all_pooling_each_and_params():
    df = _derive(
        [
            {"name": "rate_kbps", "expr": "number(rate)"},
            {"name": "rtt_ms", "expr": "number(rtt)"},
            {
                "name": "discipline",
                "from": "qdisc:bottleneck",
                "map": {"droptail": "T", "codel": "C"},
            },
            {"name": "p50", "expr": "bottleneck.sojourn_ms.p50"},
            {"name": "one", "expr": "p50 / p50"},
        ]
    )
    frames = {"sweep": df, "other": df.iloc[:0]}
    # Pooled over RTTs and seeds (no rtt_ms in by); the {value} level in the middle.
    pooled = _number(
        {
            "sweeps": ["sweep", "other"],
            "by": ["rate_kbps", "discipline"],
            "key": ["{discipline}", "{value}", "{rate_kbps:g} kb/s"],
            "values": {"p50": {"column": "p50", "reduce": "median"}, "n": {"reduce": "count"}},
        },
        frames,
    )
    assert pooled == {
        "C": {"p50": {"10000 kb/s": 15.0, "512 kb/s": 15.0}, "n": {"10000 kb/s": 4, "512 kb/s": 4}},
        "T": {
            "p50": {"10000 kb/s": 150.0, "512 kb/s": 150.0},
            "n": {"10000 kb/s": 4, "512 kb/s": 4},
        },
    }
    # No run where it holds: `all` still keys each discipline, and each {value}, empty below.
    empty = _number(
        {
            "where": "rate_kbps >= {fast}",
            "by": ["rate_kbps", "discipline"],
            "key": ["{discipline}", "{value}", "{rate_kbps:g}"],
            "all": {"discipline": ["T", "C"]},
            "values": {"p50": {"column": "p50", "reduce": "median"}},
        },
        frames,
        fill=lambda t: t.replace("{fast}", "45000"),
    )
    assert empty == {"T": {"p50": {}}, "C": {"p50": {}}}
    # each: one key per combination, its column's name filled; nested values.
    cells = _number(
        {
            "by": ["discipline"],
            "each": {"m": ["p50", "one"]},
            "key": ["{discipline}|{m}"],
            "values": {"mean": {"column": "{m}", "reduce": "mean"},
                       "spread": {"seeds": {"column": "{m}", "reduce": "spread"}}},
        },
        frames,
    )  # fmt: skip
    assert cells["T|p50"]["mean"] == 150.0 and cells["C|one"] == {
        "mean": 1.0,
        "spread": {"seeds": 0.0},
    }
    # A nested value's whole name stands at the {value} level, the levels after it below
    # (consumer-edge's _by_buffer_cells: spread.median_ms -> {buffer: half-width}).
    axis = _number(
        {
            "by": ["discipline", "rtt_ms"],
            "key": ["{discipline}", "{value}", "{rtt_ms:g}"],
            "values": {"p50": {"column": "p50", "reduce": "mean"},
                       "spread": {"p50": {"column": "p50", "reduce": "spread"}}},
        },
        frames,
    )  # fmt: skip
    from aqmlab.reproduce.common import seed_spread

    assert axis["T"]["p50"] == {"30": 150.0, "100": 150.0}
    assert axis["T"]["spread"] == {
        "p50": {"30": seed_spread([100, 200, 100, 200]), "100": seed_spread([100, 200, 100, 200])}
    }


def test_then_is_computed_after_the_reduction_with_params_filled():
    # Bytes whose mean in MB differs in its last bit between dividing before the mean and
    # after it: `then` divides after it, as a module's mean / 1e6 did.
    df = pd.DataFrame({"case": ["a", "a", "a"], "bytes": [1000001.0, 3000001.0, 7.0]})
    frames = {"sweep": df}
    mb = _number({"column": "bytes", "reduce": "mean", "then": "x / 1e6"}, frames)
    assert mb == 1.3333363333333332 == df["bytes"].mean() / 1e6
    assert mb != (df["bytes"] / 1e6).mean()  # the counterfactual: divided before the mean
    # {param} fields are filled before it is read; in values, each leaf has its own.
    fill = lambda t: t.replace("{phase_s}", "10")  # noqa: E731
    got = _number(
        {"by": ["case"], "key": ["{case}"],
         "values": {"pct": {"column": "bytes", "reduce": "max",
                            "then": "100 * x / ({phase_s} * 1e6)"},
                    "n": {"reduce": "count", "then": "x + 1"}}},
        frames, fill,
    )  # fmt: skip
    assert got == {"a": {"pct": 100 * 3000001.0 / 10e6, "n": 4.0}}
    # No value stays no value (a spread under two values).
    one = {"column": "bytes", "reduce": "spread", "then": "x * 2", "where": "bytes < 10"}
    assert _number(one, frames) is None


def test_value_is_the_one_run_of_a_group_its_type_kept():
    from aqmlab.exceptions import AqmlabError

    df = pd.DataFrame({"case": ["a", "b", "b"], "n": [3, 4, 5], "u": [0.25, 0.5, 0.75]})
    doc = {"by": ["case"], "key": ["{case}"], "where": "case == 'a'"}
    got = _number({**doc, "values": {"n": {"column": "n", "reduce": "value"},
                                     "u": {"column": "u", "reduce": "value"}}},
                  {"sweep": df})  # fmt: skip
    assert got == {"a": {"n": 3, "u": 0.25}} and type(got["a"]["n"]) is int
    # The counterfactual: max keeps no integer.
    assert type(_number({**doc, "column": "n", "reduce": "max"}, {"sweep": df})["a"]) is float
    with pytest.raises(AqmlabError) as e:
        _number({"by": ["case"], "key": ["{case}"], "column": "n", "reduce": "value"},
                {"sweep": df})  # fmt: skip
    msg = str(e.value)
    assert msg.startswith(f"{PATH}: numbers.x.reduce: 'value' takes a group of one run, got 2")
    assert "\n" not in msg


def test_a_number_of_numbers_declared_above_it():
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.metrics import compute, load_numbers

    doc = {
        "cases": {"by": ["case"], "key": ["{case}"], "column": "b", "reduce": "mean",
                  "then": "x / 1e6"},
        "ratio": {"of": {"a": "cases.a", "c": 'cases."c.1"'}, "expr": "a / c"},
        "loss": {"of": {"a": "cases.a", "c": 'cases."c.1"'}, "expr": "1 - a / c"},
    }  # fmt: skip
    df = pd.DataFrame({"case": ["a", "a", "c.1"], "b": [1e6, 2e6, 4e6]})
    numbers: dict = {}
    for nd in load_numbers(PATH, doc, ["sweep"]):
        numbers[nd.name] = compute(nd, {"sweep": df}, lambda t: t, numbers)
    assert numbers["cases"] == {"a": 1.5, "c.1": 4.0}
    assert numbers["ratio"] == 0.375 and numbers["loss"] == 0.625
    # Declared before what it reads: one line naming the file, the key and the path.
    nd = load_numbers(PATH, {"r": doc["ratio"]}, ["sweep"])[0]
    with pytest.raises(AqmlabError) as e:
        compute(nd, {"sweep": df}, lambda t: t, {})
    assert str(e.value) == (
        f"{PATH}: numbers.r.of.a: no number 'cases.a' (declared above this one)"
    )
    # A number with no value (a spread under two seeds) gives none.
    assert compute(nd, {}, lambda t: t, {"cases": {"a": None, "c.1": 2.0}}) is None


def test_a_derive_may_hold_param_fields():
    from aqmlab.reproduce.metrics import derive, load_derives

    defs = load_derives(PATH, [{"name": "pct", "expr": "100 * seed / {n}"}], ["sweep"])
    df = derive(_frame(), defs, "sweep", lambda t: t.replace("{n}", "4"))
    assert list(df["pct"][:2]) == [25.0, 50.0]


@pytest.mark.parametrize(
    "doc, expected",
    [
        ({"column": "p50", "reduce": "mode"}, "numbers.x.reduce: expected mean or median"),
        ({"column": "p50", "reduce": "quantile"}, "numbers.x.q: expected the quantile"),
        ({"column": "p50", "reduce": "mean", "q": 2}, "numbers.x.q: expected the quantile"),
        ({"reduce": "mean"}, "numbers.x.column: expected the column to reduce"),
        ({"column": "p50", "by": ["a"]}, "numbers.x.key: expected one template per level"),
        ({"column": "p50", "by": ["a"], "key": ["{b}"]}, "numbers.x.key: expected fields among"),
        (
            {"column": "p50", "where": "__import__('os')"},
            "numbers.x.where: \"__import__('os')\": only abs()",
        ),
        ({"column": "p50", "where": "p50.real()"}, "numbers.x.where: 'p50.real()': only abs()"),
        ({"column": "p50", "where": "p50 ** 2 < 1"}, "operator Pow is not allowed"),
        ({"column": "p50", "where": "p50 in 3"}, "'in' takes a list of values"),
        ({"column": "p50", "where": "p50 <"}, "numbers.x.where: 'p50 <' is not an expression"),
        ({"column": "p50", "sweeps": ["nope"]}, "numbers.x.sweeps: expected names of [[sweep]]s"),
        ({"column": "p50", "colour": 1}, "numbers.x.colour: unknown key"),
        ({"column": "p50", "then": 2}, "numbers.x.then: expected an expression of x"),
        ({"of": {"a": "n.a"}, "expr": "a / b"}, "numbers.x.expr: expected an expression of a"),
        ({"of": {"a": 1}, "expr": "a"}, "numbers.x.of: expected a table of NAME"),
        ({"of": {"a": "n.a"}, "expr": ""}, "numbers.x.expr: expected an expression of the names"),
        ({"of": {"a": "n.a"}, "expr": "a", "by": ["c"]}, "numbers.x.by: not with of + expr"),
        ({"column": "p50", "then": "x + p50"}, "numbers.x.then: expected an expression of x alone"),
        ({"column": "p50", "then": "x +"}, "numbers.x.then: 'x +' is not an expression"),
        (
            {"column": "p50", "values": {"a": {"column": "p50"}}, "then": "x"},
            "numbers.x: expected values or column + reduce, not both",
        ),
        (
            {"column": "p50", "each": {"a": [1], "b": [1, 2]}},
            "numbers.x.each: expected a table of NAME",
        ),
        (
            {"column": "p50", "by": ["a"], "key": ["{a}"], "all": {"b": [1]}},
            "numbers.x.all: expected columns of by",
        ),
    ],
)
def test_a_bad_number_is_one_line_naming_the_file_and_key(doc, expected):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.metrics import load_numbers

    with pytest.raises(AqmlabError) as e:
        load_numbers(PATH, {"x": doc}, ["sweep"])
    msg = str(e.value)
    assert msg.startswith(f"{PATH}: ") and expected in msg and "\n" not in msg, msg


@pytest.mark.parametrize(
    "doc, expected",
    [
        ({"name": "a"}, "derive[0] ('a'): expected one of expr or from + map"),
        ({"name": "a", "expr": "b", "map": {}}, "derive[0] ('a'): expected one of expr or from"),
        ({"name": "a", "expr": "open('x')"}, "derive[0] ('a').expr: \"open('x')\": only abs()"),
        ({"name": "a", "from": "b", "map": {}}, "derive[0] ('a').map: expected from = "),
        ({"expr": "b"}, "derive[0].name: expected the new column's name"),
        ({"name": "a", "expr": "b", "sweeps": ["x"]}, "derive[0] ('a').sweeps: expected names"),
        ({"name": "a", "expr": "b", "when": 1}, "derive[0].when: unknown key"),
    ],
)
def test_a_bad_derive_is_one_line_naming_the_file_and_key(doc, expected):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.metrics import load_derives

    with pytest.raises(AqmlabError) as e:
        load_derives(PATH, [doc], ["sweep"])
    msg = str(e.value)
    assert msg.startswith(f"{PATH}: ") and expected in msg and "\n" not in msg, msg


def test_a_missing_column_or_value_is_one_line_at_run_time():
    from aqmlab.exceptions import AqmlabError

    cases = [
        (lambda: _derive([{"name": "a", "expr": "nope + 1"}]),
         "derive[0] ('a').expr: no column 'nope' in the results of sweep 'sweep'"),
        (lambda: _derive([{"name": "a", "from": "qdisc:bottleneck", "map": {"codel": "C"}}]),
         "derive[0] ('a').map: no new value for 'droptail' of column 'qdisc:bottleneck'"),
        (lambda: _number({"column": "nope", "reduce": "mean"}),
         "numbers.x.column: no column 'nope' in the results of sweep(s) 'sweep'"),
        (lambda: _number({"by": ["nope"], "key": ["{nope}"], "column": "seed"}),
         "numbers.x.by: no column 'nope'"),
        (lambda: _number({"values": {"m": {"column": "nope"}}, "by": ["seed"], "key": ["{seed}"]}),
         "numbers.x.values.m: no column 'nope'"),
        (lambda: _number({"column": "seed", "sweeps": ["other"]}),
         "numbers.x.sweeps: none of ['other'] ran in this mode"),
    ]  # fmt: skip
    for fn, expected in cases:
        with pytest.raises(AqmlabError) as e:
            fn()
        msg = str(e.value)
        assert msg.startswith(f"{PATH}: ") and expected in msg and "\n" not in msg, msg


def test_numbers_edge_cases_give_values_not_tracebacks():
    # Found in review: each of these raised (KeyError: (), ZeroDivisionError, AttributeError).
    from aqmlab.reproduce.metrics import compute, load_numbers

    df = pd.DataFrame({"case": ["a", "c"], "b": [3e6, 0.0], "t": ["7 ms", "9 ms"]})
    frames = {"sweep": df}
    # `values` with neither `by` nor `key`: one table of the values' names.
    got = _number(
        {"values": {"n": {"reduce": "count"}, "s": {"column": "b", "reduce": "sum"}}}, frames
    )
    assert got == {"n": 2.0, "s": 3e6}
    # A number over 0 in `then` or `expr` has no value, as div() gives.
    assert math.isnan(_number({"column": "b", "reduce": "min", "then": "1 / x"}, frames))
    doc = {
        "cases": {"by": ["case"], "key": ["{case}"], "column": "b", "reduce": "mean"},
        "ratio": {"of": {"a": "cases.a", "c": "cases.c"}, "expr": "a / c"},
    }
    numbers: dict = {}
    for nd in load_numbers(PATH, doc, ["sweep"]):
        numbers[nd.name] = compute(nd, frames, lambda t: t, numbers)
    assert math.isnan(numbers["ratio"])
    # number() and split() on the reduced value.
    assert _number({"column": "b", "reduce": "max", "then": "number(x) / 1e6"}, frames) == 3.0


def test_min_and_max_of_two_in_columns_and_numbers():
    """min(a, b) and max(a, b): per row of columns (no value where either has none), and of
    numbers in a number's expression (red-vs-codel's threshold rule, max(5, target·C/2))."""
    from aqmlab.reproduce.metrics import compute, load_numbers

    df = _derive(
        [
            {"name": "hi", "expr": "max(bottleneck.sojourn_ms.p50, 150)"},
            {"name": "lo", "expr": "min(2 * bottleneck.dropped_pkts, bottleneck.enqueued_pkts)"},
            {"name": "none", "expr": "max(div(5, bottleneck.enqueued_pkts), 0)"},
        ]
    )
    r = df.iloc[0]  # droptail, seed 1: p50 100, 5 drops, 0 enqueued
    assert (r["hi"], r["lo"]) == (150.0, 0.0)
    assert df.iloc[1]["hi"] == 200.0 and df.iloc[2]["lo"] == 10.0  # seed 2; 100 enqueued
    assert r["none"] != r["none"] and df.iloc[2]["none"] == 0.05
    doc = {
        "m": {
            "expr": "max(5.0, {t} * 1e6 / (8 * 1500) / 2)",
            "each": {"t": [0.005, 0.24]},
            "key": ["{t}"],
        },
        "n": {"of": {"a": 'm."0.24"'}, "expr": "min(a, 3 * a) - max(a, 3 * a)"},
    }
    numbers: dict = {}
    for nd in load_numbers(PATH, doc, ["sweep"]):
        numbers[nd.name] = compute(nd, {}, lambda t: t, numbers)
    assert numbers["m"] == {"0.005": 5.0, "0.24": 10.0} and numbers["n"] == -20.0
