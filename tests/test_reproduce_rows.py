"""A table's rows as a number and groups in first-seen order (docs/reproductions.md,
"Metrics as data": ``[numbers.NAME]`` with ``rows``, and ``sort = false``): exact values, the
order kept, and the one-line errors naming the file and the key."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas")

PATH = "/r/experiment.toml"


def _frame():
    return pd.DataFrame(
        {
            "point": ["b 8p", "b 10p", "a 3", "a 4"],
            "kind": ["b", "b", "a", "a"],
            "x": [1.5, 2.5, 3.0, 4.0],
            "y": [10, 20, 30, 40],
        }
    )


def _number(doc, frames=None):
    from aqmlab.reproduce.metrics import compute, load_numbers

    (nd,) = load_numbers(PATH, {"n": doc}, ["pts", "other"])
    return compute(nd, frames or {"pts": _frame()}, lambda t: t)


def test_rows_are_the_tables_rows_of_those_columns_in_its_order():
    assert _number({"sweeps": ["pts"], "rows": ["point", "x"]}) == [
        {"point": "b 8p", "x": 1.5},
        {"point": "b 10p", "x": 2.5},
        {"point": "a 3", "x": 3.0},
        {"point": "a 4", "x": 4.0},
    ]
    got = _number({"sweeps": ["pts"], "where": "x > 2", "rows": ["y", "kind"]})
    assert got == [{"y": 20, "kind": "b"}, {"y": 30, "kind": "a"}, {"y": 40, "kind": "a"}]
    assert [list(r) for r in got] == [["y", "kind"]] * 3  # the columns in rows' order


def test_sort_false_keeps_the_groups_in_first_seen_order():
    doc = {"sweeps": ["pts"], "by": ["kind", "point"], "key": ["{kind}", "{point}"]}
    doc |= {"column": "x", "reduce": "value"}
    first_seen = _number({**doc, "sort": False})
    assert [(k, list(v)) for k, v in first_seen.items()] == [
        ("b", ["b 8p", "b 10p"]),
        ("a", ["a 3", "a 4"]),
    ]
    assert first_seen == {"b": {"b 8p": 1.5, "b 10p": 2.5}, "a": {"a 3": 3.0, "a 4": 4.0}}
    # By default the groups are sorted: "b 10p" before "b 8p", "a" before "b".
    assert [(k, list(v)) for k, v in _number(doc).items()] == [
        ("a", ["a 3", "a 4"]),
        ("b", ["b 10p", "b 8p"]),
    ]


@pytest.mark.parametrize(
    "doc, expected",
    [
        (
            {"sweeps": ["pts"], "rows": []},
            "numbers.n.rows: expected a list of the columns each row holds, got []",
        ),
        ({"sweeps": ["pts"], "rows": "x"}, "numbers.n.rows: expected a list of the columns"),
        (
            {"sweeps": ["pts", "other"], "rows": ["x"]},
            "numbers.n.sweeps: expected one table (pts, other)",
        ),
        ({"rows": ["x"]}, "numbers.n.sweeps: expected one table (pts, other), got []"),
        (
            {"sweeps": ["pts"], "rows": ["x"], "by": ["kind"]},
            "numbers.n.by: not with rows (only sweeps and where)",
        ),
        (
            {"sweeps": ["pts"], "rows": ["x"], "where": "x >"},
            "numbers.n.where: 'x >' is not an expression",
        ),
        (
            {"sweeps": ["pts"], "column": "x", "sort": "no"},
            "numbers.n.sort: expected true or false (false: groups in first-seen order), got 'no'",
        ),
    ],
)
def test_a_bad_rows_or_sort_is_one_line_naming_the_file_and_key(doc, expected):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.metrics import load_numbers

    with pytest.raises(AqmlabError) as e:
        load_numbers(PATH, {"n": doc}, ["pts", "other"])
    msg = str(e.value)
    assert msg.startswith(f"{PATH}: ") and expected in msg and "\n" not in msg, msg


def test_a_missing_column_or_table_is_one_line_at_run_time():
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(
        AqmlabError, match=r"numbers\.n\.rows: no column 'z' in the results of 'pts'$"
    ):
        _number({"sweeps": ["pts"], "rows": ["x", "z"]})
    with pytest.raises(AqmlabError, match=r"numbers\.n\.sweeps: 'pts' did not run in this mode$"):
        _number({"sweeps": ["pts"], "rows": ["x"]}, {"other": _frame()})
