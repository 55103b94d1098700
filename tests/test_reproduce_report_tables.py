"""Report tables declared as data (docs/reproductions.md, ``[[report_table]]``): a table's
rows with its columns in order, another table's columns beside them matched on a key (no
value where it has no row), and the one-line errors naming the file and the key."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas")

PATH = "/r/experiment.toml"
DOC = {
    "title": "Means over {what}",
    "frame": "ours",
    "columns": {"run": "point", "queue": "q"},
    "beside": [{"frame": "ref", "on": "point", "columns": {"ref: queue": "q", "ref: n": "n"}}],
    "note": "seeds {what}",
}


def _frames():
    ours = pd.DataFrame({"point": ["p2", "p1", "p3"], "q": [2.5, 1.0, 3.0], "x": [0, 0, 0]})
    ref = pd.DataFrame({"point": ["p1", "p2"], "q": [1.5, 2.0], "n": [10, 20]})
    return {"ours": ours, "ref": ref}


def _tables(doc, frames=None):
    from aqmlab.reproduce.report_tables import load, tables

    defs = load(PATH, [doc], ["sweep", "ours", "ref"])
    return tables(defs, _frames() if frames is None else frames, lambda t: t.format(what="1-3"))


def test_rows_in_order_with_the_other_tables_columns_beside_them():
    (t,) = _tables(DOC)
    assert t.title == "Means over 1-3" and t.note == "seeds 1-3"
    assert t.header == ["run", "queue", "ref: queue", "ref: n"]
    assert t.rows == [["p2", 2.5, 2.0, 20], ["p1", 1.0, 1.5, 10], ["p3", 3.0, None, None]]


def test_a_table_that_did_not_run_is_left_out_and_one_beside_it_is_empty():
    frames = _frames()
    assert _tables(DOC, {"ref": frames["ref"]}) == []
    (t,) = _tables(DOC, {"ours": frames["ours"]})
    assert [r[2:] for r in t.rows] == [[None, None]] * 3


@pytest.mark.parametrize(
    "doc, expected",
    [
        (
            {**DOC, "frame": "nope"},
            "report_table[0].frame: expected a [[sweep]] or a [frames.NAME] (sweep, ours, ref), "
            "got 'nope'",
        ),
        (
            {**DOC, "columns": {}},
            'report_table[0].columns: expected a table of HEADER = "column", got {}',
        ),
        ({**DOC, "title": ""}, "report_table[0].title: expected a text, got ''"),
        (
            {**DOC, "by": 1},
            "report_table[0].by: unknown key (expected one of title, frame, columns, beside, note)",
        ),
        (
            {**DOC, "beside": {"frame": "ref"}},
            "report_table[0].beside: expected a list of { frame, on, columns }",
        ),
        (
            {**DOC, "beside": [{"frame": "ref", "columns": {"a": "q"}}]},
            "report_table[0].beside[0].on: expected the column both tables are matched on",
        ),
        (
            {**DOC, "beside": [{"frame": "x", "on": "point", "columns": {"a": "q"}}]},
            "report_table[0].beside[0].frame: expected a [[sweep]] or a [frames.NAME]",
        ),
    ],
)
def test_a_bad_report_table_is_one_line_naming_the_file_and_key(doc, expected):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _tables(doc)
    msg = str(e.value)
    assert msg.startswith(f"{PATH}: ") and expected in msg and "\n" not in msg, msg


def test_a_missing_column_is_one_line_at_run_time():
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(
        AqmlabError, match=r"report_table\[0\]\.columns: no column 'z' in the results of 'ours'$"
    ):
        _tables({**DOC, "columns": {"run": "point", "z": "z"}})
    bad = {**DOC, "beside": [{"frame": "ref", "on": "point", "columns": {"a": "x"}}]}
    with pytest.raises(
        AqmlabError, match=r"report_table\[0\]\.beside\[0\]: no column 'x' in the results of 'ref'$"
    ):
        _tables(bad)
