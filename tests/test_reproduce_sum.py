"""A ``[[derive]]``'s ``sum`` (aqmlab.reproduce.derive_sum; docs/reproductions.md, "Metrics as
data"): every column of a family, ``*`` standing for an index, or the columns of a list of
indices, summed in the index's order; its errors are one line naming the file, the table and
the key."""

from __future__ import annotations

import pytest
from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce.derive_sum import columns
from aqmlab.reproduce.metrics import derive, load_derives

pd = pytest.importorskip("pandas")


def defs(*tables: dict) -> list:
    return load_derives("experiment.toml", list(tables), ["sweep"])


def test_sum_adds_a_family_of_columns_in_the_index_order():
    df = pd.DataFrame(
        {
            "flows[10].delivered_bytes": [-1e16, 1.0],
            "flows[2].delivered_bytes": [1e16, 2.0],
            "flows[0].delivered_bytes": [1.0, 3.0],
            "flows[1].delivered_mbps": [99.0, 99.0],  # another metric: not summed
            "bottleneck.delivered_bytes": [99.0, 99.0],
        }
    )
    assert columns(df.columns, "flows[*].delivered_bytes") == [
        "flows[0].delivered_bytes",
        "flows[2].delivered_bytes",
        "flows[10].delivered_bytes",
    ]
    out = derive(
        df,
        defs(
            {"name": "bytes", "sum": "flows[*].delivered_bytes"},
            {"name": "mbps", "expr": "bytes * 8 / {d} / 1e6"},
        ),
        "sweep",
        lambda t: t.replace("{d}", "2.0"),
    )
    # In the index's order: (1 + 1e16) - 1e16 = 0 in floating point, where the columns' order
    # gives (-1e16 + 1e16) + 1 = 1.
    assert list(out["bytes"]) == [0.0, 6.0]
    assert list(out["mbps"]) == [0.0, 6.0 * 8 / 2.0 / 1e6]


def test_sum_of_listed_indices_with_each():
    """consumer-edge-drops' counts: only the listed flows' columns, a listed flow without the
    column (it never crossed that link) or with no value counting none."""
    df = pd.DataFrame(
        {
            "flows[0].links.up.pkts": [1.0, 10.0],
            "flows[1].links.up.pkts": [2.0, float("nan")],
            "flows[2].links.up.pkts": [4.0, 40.0],
            "flows[12].links.up.pkts": [8.0, 80.0],  # not flows[1] nor flows[2]
            "flows[3].links.down.pkts": [16.0, 160.0],
        }
    )
    assert columns(df.columns, "flows[2, 0].links.up.pkts") == [
        "flows[0].links.up.pkts",
        "flows[2].links.up.pkts",
    ]
    out = derive(
        df,
        defs(
            {
                "name": "n_{c}",
                "sum": "flows[{flows}].links.{link}.pkts",
                "each": {
                    "c": ["even", "odd", "one", "none_up"],
                    "flows": ["0, 2", "1,3", "12", "3, 4"],
                    "link": ["up", "up", "up", "down"],
                },
            }
        ),
        "sweep",
        str,
    )
    assert list(out["n_even"]) == [5.0, 50.0]
    assert list(out["n_odd"]) == [2.0, 0.0]  # flows[3] has no such column; NaN counts none
    assert list(out["n_one"]) == [8.0, 80.0]
    assert list(out["n_none_up"]) == [16.0, 160.0]


def test_sum_errors_are_one_line():
    with pytest.raises(
        AqmlabError, match=r"^experiment\.toml: derive\[0\] \('b'\)\.sum: expected a column name"
    ):
        defs({"name": "b", "sum": "flows.delivered_bytes"})
    with pytest.raises(
        AqmlabError,
        match=r"\): expected one of expr or from \+ map or from \+ format or sum or jain$",
    ):
        defs({"name": "b", "sum": "flows[*].x", "expr": "1"})
    for bad in ("flows[0].x[*]", "flows[0, 1].x[2]", "flows[*].x*", "flows[a].x"):
        with pytest.raises(AqmlabError, match=r"\('b'\)\.sum: expected a column name with one"):
            defs({"name": "b", "sum": bad})
    df = pd.DataFrame({"flows[0].x": [1.0]})
    with pytest.raises(AqmlabError, match=r"\('b'\)\.sum: expected a column name with one"):
        derive(df, defs({"name": "b", "sum": "flows[{i}].x", "each": {"i": ["*, 1"]}}), "s", str)
    with pytest.raises(AqmlabError, match=r"\.sum: no column 'flows\[3, 4\]\.x' in the results"):
        derive(df, defs({"name": "b", "sum": "flows[3, 4].x"}), "sweep", str)
    with pytest.raises(
        AqmlabError,
        match=r"derive\[0\] \('b'\)\.sum: no column 'flows\[\*\]\.y' in the results of sweep",
    ):
        derive(df, defs({"name": "b", "sum": "flows[*].y"}), "sweep", str)
