"""A ``[[derive]]``'s ``sum`` (aqmlab.reproduce.derive_sum; docs/reproductions.md, "Metrics as
data"): every column of a family, ``*`` standing for an index, summed in the index's order;
its errors are one line naming the file, the table and the key."""

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
    df = pd.DataFrame({"flows[0].x": [1.0]})
    with pytest.raises(
        AqmlabError,
        match=r"derive\[0\] \('b'\)\.sum: no column 'flows\[\*\]\.y' in the results of sweep",
    ):
        derive(df, defs({"name": "b", "sum": "flows[*].y"}), "sweep", str)
