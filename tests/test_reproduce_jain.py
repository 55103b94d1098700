"""Jain's index over groups of flows, a [[derive]] of experiment.toml (docs/reproductions.md,
"Metrics as data"; aqmlab.reproduce.jain): exact values on a made-up frame, and one-line
errors naming the file, the derive and the key."""

from __future__ import annotations

import math

import pytest

pd = pytest.importorskip("pandas")

PATH = "/r/experiment.toml"


def _frame():
    """Three runs of three flows; flow 2 never crosses the reverse link (no column there)."""
    return pd.DataFrame(
        [
            {  # groups A = {0, 1}: (2 + 2) / (10 + 30) = 0.1; B = {2}: 4 / 20 = 0.2
                "flows[0].links.l.dropped_pkts": 2,
                "flows[0].links.l.arrived_pkts": 10,
                "flows[1].links.l.dropped_pkts": 2,
                "flows[1].links.l.arrived_pkts": 30,
                "flows[2].links.l.dropped_pkts": 4,
                "flows[2].links.l.arrived_pkts": 20,
                "flows[0].links.r.dropped_pkts": 1,
                "flows[0].links.r.arrived_pkts": 10,
                "flows[1].links.r.dropped_pkts": 0,
                "flows[1].links.r.arrived_pkts": 10,
            },
            {  # B has no packet: left out, A alone -> 1
                "flows[0].links.l.dropped_pkts": 1,
                "flows[0].links.l.arrived_pkts": 10,
                "flows[1].links.l.dropped_pkts": 0,
                "flows[1].links.l.arrived_pkts": 0,
                "flows[2].links.l.dropped_pkts": 0,
                "flows[2].links.l.arrived_pkts": 0,
                "flows[0].links.r.dropped_pkts": 0,
                "flows[0].links.r.arrived_pkts": 0,
                "flows[1].links.r.dropped_pkts": 0,
                "flows[1].links.r.arrived_pkts": 0,
            },
            {  # nothing dropped anywhere: every rate 0, (Σx)²/(n·Σx²) = 0/0: no value
                "flows[0].links.l.dropped_pkts": 0,
                "flows[0].links.l.arrived_pkts": 10,
                "flows[1].links.l.dropped_pkts": 0,
                "flows[1].links.l.arrived_pkts": 10,
                "flows[2].links.l.dropped_pkts": 0,
                "flows[2].links.l.arrived_pkts": 10,
                "flows[0].links.r.dropped_pkts": 0,
                "flows[0].links.r.arrived_pkts": 5,
                "flows[1].links.r.dropped_pkts": 0,
                "flows[1].links.r.arrived_pkts": 5,
            },
        ]
    )


JAIN = {
    "groups": {"A": [0, 1], "B": [2]},
    "numerator": "flows[{flow}].links.{link}.dropped_pkts",
    "denominator": "flows[{flow}].links.{link}.arrived_pkts",
}


def _derive(doc, df=None):
    from aqmlab.reproduce.metrics import derive, load_derives

    return derive(_frame() if df is None else df, load_derives(PATH, doc, ["sweep"]), "sweep", str)


def test_index_is_the_one_jain_function():
    """The derive computes Jain's index with aqmlab.jain.index (tests/test_jain.py), exact:
    (0.1 + 0.2)² / (2 · (0.01 + 0.04)) is 0.9."""
    from aqmlab.jain import index as one
    from aqmlab.reproduce.jain import index

    assert index is one
    assert index([0.1, 0.2]) == 0.9


def test_groups_pool_their_flows_before_dividing_each_direction():
    df = _derive(
        [
            {
                "name": "j.{d}",
                "each": {"d": ["down", "up"], "link": ["l", "r"]},
                "jain": JAIN,
            }
        ]
    )
    # down, run 0: A = 4/40 = 0.1 (pooled; the flows' own mean rate would be (0.2 + 0.067)/2),
    # B = 0.2: (0.3)² / (2 · 0.05) = 0.9
    assert df["j.down"][0] == pytest.approx(0.9, abs=1e-15)
    assert df["j.down"][1] == 1.0  # B has no packet there: A alone
    assert math.isnan(df["j.down"][2])  # every rate 0: undefined
    # up: flow 2 has no column there (counts 0), so B is left out: A alone, 1/20
    assert list(df["j.up"][:1]) == [1.0]
    assert math.isnan(df["j.up"][1])  # no group has a packet: no value
    assert math.isnan(df["j.up"][2])


def test_a_different_grouping_gives_a_different_index():
    """The counterfactual: the flows one by one (not pooled) give another number."""
    one_by_one = dict(JAIN, groups={"A": [0], "B": [1], "C": [2]})
    df = _derive([{"name": "j", "each": {"link": ["l"]}, "jain": one_by_one}])
    from aqmlab.jain import index

    xs = [0.2, 2 / 30, 0.2]  # each flow's own rate
    assert df["j"][0] == index(xs)
    assert df["j"][0] != pytest.approx(0.9)


@pytest.mark.parametrize(
    ("jain", "expected"),
    [
        ("x", "derive[0] ('j').jain: expected a table"),
        (dict(JAIN, extra=1), "derive[0] ('j').jain.extra: unknown key"),
        (dict(JAIN, groups={"A": []}), "derive[0] ('j').jain.groups: expected a table of NAME"),
        (dict(JAIN, groups={"A": ["x"]}), "derive[0] ('j').jain.groups: expected a table of"),
        (
            dict(JAIN, groups={"A": [0], "B": [0]}),
            "derive[0] ('j').jain.groups: flow(s) [0] in more",
        ),
        (dict(JAIN, numerator="drops"), "derive[0] ('j').jain.numerator: expected a column"),
        (dict(JAIN, denominator=3), "derive[0] ('j').jain.denominator: expected a column"),
    ],
)
def test_a_bad_jain_is_one_line_naming_the_file_derive_and_key(jain, expected):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _derive([{"name": "j", "jain": jain}])
    assert str(e.value).startswith(f"{PATH}: {expected}")
    assert "\n" not in str(e.value)


def test_jain_and_expr_together_are_refused():
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(
        AqmlabError,
        match=r"\): expected one of expr or from \+ map or from \+ format or sum or jain$",
    ):
        _derive([{"name": "j", "jain": JAIN, "expr": "1"}])


def test_a_flow_in_no_group_is_an_error_at_run_time():
    from aqmlab.exceptions import AqmlabError

    short = dict(JAIN, groups={"A": [0, 1]})
    with pytest.raises(AqmlabError) as e:
        _derive([{"name": "j", "each": {"link": ["l"]}, "jain": short}])
    assert str(e.value) == (
        f"{PATH}: derive[0] ('j').jain.groups: flow(s) [2] of the results are in no group"
    )
