"""Report tables declared in experiment.toml (docs/reproductions.md, "Report tables and
discussion as data"; aqmlab.reproduce.report_table and report_text): exact rows and cells, and
one-line errors naming the file, the table and the key."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from aqmlab.exceptions import AqmlabError

PATH = "/r/experiment.toml"
#: The sweeps' and frames' names a table may name.
FRAMES = ["sweep", "ours", "ref"]


def _ctx(numbers=None, params=None, table=None, windows=(), claims=None, quick=False, frames=None):
    exp = SimpleNamespace(windows=list(windows))
    params = params or {}

    def value(v):
        return params[v[1:-1]] if isinstance(v, str) and v[1:-1] in params else v

    return SimpleNamespace(
        numbers=numbers or {},
        params=params,
        table=table,
        experiment=exp,
        claims=claims or {},
        tests={},
        quick=quick,
        seeds=[1, 2, 3],
        out="/o",
        value=value,
        fill=lambda t: t.format(**params),
        frames=frames or {},
    )


def _build(doc, ctx):
    from aqmlab.reproduce import report_table

    return report_table.build(report_table.load(PATH, [doc], FRAMES), ctx)


LOADS = {
    "web": {"tail drop": {"p50": 120.0, "mb": 9.5}, "CoDel": {"p50": 4.25, "mb": 8.0}},
    "pages": {"CoDel": {"p50": 6.0, "mb": None}},
}


def test_rows_from_nested_numbers_in_their_order():
    doc = {
        "title": "Over {duration_s:g} s of {label}",
        "note": "{100 * total / 4:.1f} % of it",
        "rows": [{"load": {"keys": "loads"}}, {"case": {"keys": 'loads."{load}"'}}],
        "columns": [
            {"header": "load", "value": "{load}"},
            {"header": "discipline", "value": "{case}"},
            {"header": "median ms", "number": 'loads."{load}"."{case}".p50'},
            {"header": "MB", "number": 'loads."{load}"."{case}".mb'},
            {"header": "MB/s", "expr": 'div(`loads."{load}"."{case}".mb`, duration_s)'},
        ],
    }
    ctx = _ctx({"loads": LOADS, "total": 1.5}, {"duration_s": 2.0, "label": "a trace"})
    (t,) = _build(doc, ctx)
    assert t.title == "Over 2 s of a trace"
    assert t.note == "37.5 % of it"
    assert t.header == ["load", "discipline", "median ms", "MB", "MB/s"]
    assert t.rows == [
        ["web", "tail drop", 120.0, 9.5, 4.75],
        ["web", "CoDel", 4.25, 8.0, 4.0],
        ["pages", "CoDel", 6.0, None, None],  # no value: the report prints –
    ]


def test_headers_are_templates_of_the_parameters_and_numbers():
    """codel-dynamic's per-phase columns: each header names its phase's times from phase_s."""
    doc = {
        "title": "t",
        "rows": {"k": ["a"]},
        "columns": [
            {"header": "100 Mb/s, 0-{phase_s:g} s", "value": "{k}"},
            {"header": "10 Mb/s, {phase_s:g}-{2 * phase_s:g} s", "value": "{k}"},
            {"header": "n = {n}", "value": "{k}"},
        ],
    }
    for phase_s, want in ((10, ["0-10", "10-20"]), (50, ["0-50", "50-100"])):
        (t,) = _build(doc, _ctx({"n": 1.234}, {"phase_s": phase_s}))
        assert t.header == [f"100 Mb/s, {want[0]} s", f"10 Mb/s, {want[1]} s", "n = 1.23"]


def test_fields_of_a_level_move_together_and_levels_multiply():
    doc = {
        "title": "t",
        "rows": [{"rate": "{rates}"}, {"d": ["A", "B"], "k": ["a", "b"]}],
        "columns": [
            {"header": "Mb/s", "value": "{rate / 1000:g}"},
            {"header": "kb/s", "value": "{rate}"},  # one field: its type kept
            {"header": "x", "number": "x.{rate:g}.{k}", "digits": 2},
        ],
    }
    nums = {"x": {"64": {"a": 1.234, "b": 2.0}, "1500": {"a": 0.0456, "b": 1000.4}}}
    (t,) = _build(doc, _ctx(nums, {"rates": [64, 1500]}))
    assert t.rows == [
        ["0.064", 64, "1.2"],
        ["0.064", 64, "2.0"],
        ["1.5", 1500, "0.046"],
        ["1.5", 1500, "1,000"],
    ]


def test_table_rows_cells_blanks_and_none():
    import pandas as pd

    g = pd.DataFrame(
        {
            "aqm": ["FIFO", "FIFO", "PIE", "PIE"],
            "rtts": ["equal", "unequal", "equal", "unequal"],
            "util": [0.9, 0.05, 0.8, 0.7],
            "ratio": [1.5, 3.0, float("nan"), 0.25],
        }
    )
    stalled = {"blank_when": "not util >= 0.1", "blank": "stalled", "none": "stalled"}
    doc = {
        "title": "t",
        "rows": [{"aqm": ["PIE", "FIFO"]}, {"rtts": {"column": "rtts"}}],
        "columns": [
            {"header": "aqm", "value": "{aqm}"},
            {"header": "RTTs", "value": "{rtts}"},
            {"header": "ratio", "table": "ratio", "digits": 3, **stalled},
            {"header": "2x", "expr": "2 * ratio"},
        ],
    }
    (t,) = _build(doc, _ctx(table=g))
    assert t.rows == [
        ["PIE", "equal", "stalled", None],  # a live run with no ratio: `none`
        ["PIE", "unequal", "0.250", 0.5],
        ["FIFO", "equal", "1.50", 3.0],
        ["FIFO", "unequal", "stalled", 6.0],  # under 10 % of the link: `blank_when`
    ]


def test_window_rows_and_list_indices():
    w = SimpleNamespace(name="phase{i}", length_s=10, count=3, start_s=0.0, end_s=None, where="w",
                        fields={"rate": [100, 10, 1]})  # fmt: skip
    nums = {"cases": {"CoDel": {"phases": [{"p50": 1.0}, {"p50": 2.0}, {"p50": 3.5}]}}}
    doc = {
        "title": "t",
        "rows": [
            {"case": ["CoDel"]},
            {"p": {"keys": "cases.{case}.phases"}, "w": {"window": "phase{i}"}},
        ],
        "columns": [
            {"header": "phase", "value": "{w.t0:g}-{w.t1:g} s"},
            {"header": "Mb/s", "expr": "1.0 * w.rate"},
            {"header": "n", "value": "{w.i}"},
            {"header": "median", "number": "cases.{case}.phases.{p}.p50"},
        ],
    }
    (t,) = _build(doc, _ctx(nums, windows=[w]))
    assert t.rows == [
        ["0-10 s", 100.0, 1, 1.0],
        ["10-20 s", 10.0, 2, 2.0],
        ["20-30 s", 1.0, 3, 3.5],
    ]


def test_when_leaves_a_table_out():
    doc = {
        "title": "t",
        "when": "quick",
        "rows": {"a": [1]},
        "columns": [{"header": "a", "value": "{a}"}],
    }
    assert _build(doc, _ctx(quick=False)) == []
    assert [t.rows for t in _build(doc, _ctx(quick=True))] == [[[1]]]


@dataclass
class _Claim:
    precision: str
    published: str


def test_computed_fields_digits_of_a_claim_no_value_blanks_and_lists():
    """A row field computed from the others (``{ value }``: a claim's id), digits from an
    expression (one more than the claim's printed digits), ``blank_when`` alone (no value, or
    ``none``'s text) and a list's items joined (lstf-codel's tables)."""
    nums = {
        "runs": {
            "CoDel, a": {"d": 0.035324813, "df": (499, 1234), "ci": (0.01997, 0.0283859)},
            "LSTF α=0.5, a": {"d": 0.0115704, "slack": 0.00869223, "df": [9, 9], "ci": [1.0, 2.0]},
        }
    }
    claims = {
        "codel-d": _Claim("7 significant digits", "0.03532900"),
        "lstf-0.5-d": _Claim("3 significant digits", "0.0086"),
    }
    codel = "split(case, ',', 0) == 'CoDel'"
    cid = (
        f"{{choose({codel}, 'codel', 'lstf-')}}"
        f"{{choose({codel}, '', split(split(case, ',', 0), '=', 1))}}-d"
    )
    doc = {
        "title": "t",
        "rows": [{"case": {"keys": "runs"}, "cid": {"value": cid}}],
        "columns": [
            {"header": "claim", "value": "{cid}"},
            {"header": "published", "expr": '`claim."{cid}".published`'},
            {"header": "d", "number": 'runs."{case}".d',
             "digits": 'number(`claim."{cid}".precision`) + 1'},
            {"header": "slack", "number": 'runs."{case}".slack', "blank_when": codel},
            {"header": "slack'", "number": 'runs."{case}".slack', "blank_when": codel,
             "none": "n/a"},
            {"header": "df", "number": 'runs."{case}".df'},
            {"header": "high", "number": 'runs."{case}".ci.1'},
        ],
    }  # fmt: skip
    (t,) = _build(doc, _ctx(nums, claims=claims))
    assert t.rows == [
        ["codel-d", "0.03532900", "0.035324813", None, "n/a", "499, 1,234", 0.0283859],
        ["lstf-0.5-d", "0.0086", "0.01157", 0.00869223, 0.00869223, "9, 9", 2.0],
    ]


def test_a_p_value_that_underflowed_prints_as_the_bound_it_is_below():
    """``format = "p"``: a p value of 0 (scipy's F-test of very unequal variances underflows)
    prints as the claims print it, below the smallest positive double, never ``0``; any other
    p is the number, as the column prints it (lstf-codel's Tables VII-VIII at every α)."""
    nums = {"tests": {"0.5": {"p": 0.0, "q": 0.0}, "0.75": {"p": 3.2e-7, "q": 0.0}}}
    doc = {
        "title": "t",
        "rows": {"alpha": {"keys": "tests"}},
        "columns": [
            {"header": "p", "number": 'tests."{alpha}".p', "format": "p"},
            {"header": "p'", "number": 'tests."{alpha}".p', "format": "p", "digits": 2},
            {"header": "q", "number": 'tests."{alpha}".q'},
        ],
    }  # fmt: skip
    (t,) = _build(doc, _ctx(nums))
    assert t.rows == [["< 4.94e-324", "< 4.94e-324", 0.0], [3.2e-7, "3.2e-07", 0.0]]


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"rows": {"a": [1]}, "columns": [{"header": "a", "value": "{a}"}]},
         "/r/experiment.toml: report_table[0].title: expected a text"),
        ({"title": "t", "rows": {"a": [1]}, "columns": [], "colour": 1},
         "/r/experiment.toml: report_table[0].colour: unknown key (expected one of title, note, "
         "rows, frame, columns, when)"),
        ({"title": "t", "rows": {"a": 3}, "columns": [{"header": "a", "value": "{a}"}]},
         "/r/experiment.toml: report_table[0].rows.a: expected a list of values, a \"{param}\" "
         "list, { keys = \"PATH\" }, { column = \"NAME\" }, { window = \"NAME\" } or "
         "{ value = \"TEMPLATE\" }, got 3"),
        ({"title": "t", "rows": {"a": [1]},
          "columns": [{"header": "a", "value": "x", "number": "y"}]},
         "/r/experiment.toml: report_table[0].columns[0]: expected one of value, number, table, "
         "column or expr, got ['value', 'number']"),
        ({"title": "t", "rows": {"a": [1]},
          "columns": [{"header": "a", "number": "n", "digits": 0}]},
         "/r/experiment.toml: report_table[0].columns[0].digits: expected a number of significant "
         "digits (1 or more), or an expression, got 0"),
        ({"title": "t", "rows": {"a": [1]},
          "columns": [{"header": "a", "number": "n", "blank": "x"}]},
         "/r/experiment.toml: report_table[0].columns[0]: blank needs blank_when"),
        ({"title": "t", "rows": {"a": [1]},
          "columns": [{"header": "a", "number": "n", "format": "percent"}]},
         "/r/experiment.toml: report_table[0].columns[0].format: expected one of p (p: a p "
         "value), got 'percent'"),
    ],
)  # fmt: skip
def test_declaration_errors_are_one_line(doc, message):
    from aqmlab.reproduce import report_table

    with pytest.raises(AqmlabError) as e:
        report_table.load(PATH, [doc], FRAMES)
    assert str(e.value) == message


@pytest.mark.parametrize(
    ("column", "message"),
    [
        ({"header": "a", "number": "loads.web.PIE.p50"},
         "/r/experiment.toml: report_table[0].columns[0].number: 'loads.web.PIE.p50': no such row "
         "field, claim, parameter or number"),
        ({"header": "a", "number": "loads.web"},
         "/r/experiment.toml: report_table[0].columns[0].number: 'loads.web': a table of numbers, "
         "not a number"),
        ({"header": "a", "number": "loads.{b}"},
         "/r/experiment.toml: report_table[0].columns[0].number: 'loads.{b}': no row field 'b' "
         "(fields: a)"),
        ({"header": "a", "expr": "round(a)"},
         "/r/experiment.toml: report_table[0].columns[0].expr: 'round(a)': only abs(), div(), "
         "number(), split(), min(), max(), choose(), len() and join() may be called "
         "(expected numbers, "
         "parameters, row "
         "fields, claim.ID.FIELD, texts, + - * /, comparisons, in [...], and/or/not, "
         "abs/div/number/split/min/max/choose/len/join)"),
        ({"header": "a", "number": "loads.web.CoDel.p50", "digits": "0.5 * {a}"},
         "/r/experiment.toml: report_table[0].columns[0].digits: '0.5 * {a}': expected a number "
         "of significant digits, got 0.5"),
        ({"header": "a", "table": "ratio"},
         "/r/experiment.toml: report_table[0].columns[0].table: the experiment has no [table]"),
    ],
)  # fmt: skip
def test_errors_after_the_run_name_the_column(column, message):
    doc = {"title": "t", "rows": {"a": [1]}, "columns": [column]}
    with pytest.raises(AqmlabError) as e:
        _build(doc, _ctx({"loads": LOADS}))
    assert str(e.value) == message


def test_an_experiment_file_declares_them(tmp_path):
    """folder.load reads [[report_table]] and [[discussion]] tables beside texts."""
    from aqmlab.reproduce.discussion import Paragraph
    from aqmlab.reproduce.folder import load

    (tmp_path / "scenario.toml").write_text("[dumbbell]\n")
    (tmp_path / "claims.toml").write_text(
        '[[claim]]\nid = "c"\nclaim = "C"\nsource = "S"\nlocation = "L"\n'
        'kind = "not graded"\npublished = "p"\nnot_graded = "why"\n'
    )
    (tmp_path / "experiment.toml").write_text(
        'name = "x"\ntitle = "X"\nsources = []\n'
        '[[sweep]]\nscenario = "scenario.toml"\n'
        '[[report_table]]\ntitle = "T"\nrows = { a = [1, 2] }\n'
        'columns = [{ header = "a", value = "{a}" }]\n'
        '[[discussion]]\ntext = "{a.b}"\nwhen = "quick"\n'
    )
    exp = load(str(tmp_path))
    assert [t.title for t in exp.report_tables] == ["T"]
    assert exp.discussion == [
        Paragraph(f"{tmp_path}/experiment.toml: discussion[0]", "{a.b}", "quick")
    ]


def test_grammar_is_checked_before_anything_runs():
    from aqmlab.reproduce import report_table

    doc = {"title": "t", "rows": {"a": [1]}, "columns": [{"header": "a", "expr": "a.b()"}]}
    with pytest.raises(AqmlabError) as e:
        report_table.load(PATH, [doc], FRAMES)
    assert str(e.value).startswith(
        "/r/experiment.toml: report_table[0].columns[0].expr: 'a.b()': only abs(), div(), "
    )
    doc = {"title": "{x:}{", "rows": {"a": [1]}, "columns": [{"header": "a", "value": "{a}"}]}
    with pytest.raises(AqmlabError) as e:
        report_table.load(PATH, [doc], FRAMES)
    assert str(e.value) == (
        "/r/experiment.toml: report_table[0].title: '{x:}{': Single '{' encountered in format "
        "string"
    )


# A table of a sweep's or a frame's rows (frame = NAME), another frame's columns beside them.
FRAME_DOC = {
    "title": "Means over {what}",
    "frame": "ours",
    "columns": [
        {"header": "run", "column": "point"},
        {"header": "queue", "column": "q"},
        {"header": "ref: queue", "column": "q", "beside": {"frame": "ref", "on": "point"}},
        {"header": "ref: n", "column": "n", "beside": {"frame": "ref", "on": "point"}},
    ],
    "note": "seeds {what}",
}


def _frames():
    pd = pytest.importorskip("pandas")
    ours = pd.DataFrame({"point": ["p2", "p1", "p3"], "q": [2.5, 1.0, 3.0], "x": [0, 0, 0]})
    ref = pd.DataFrame({"point": ["p1", "p2", "p1"], "q": [1.5, 2.0, 9.0], "n": [10, 20, 30]})
    return {"ours": ours, "ref": ref}


def _frame_tables(doc, frames=None):
    frames = _frames() if frames is None else frames
    return _build(doc, _ctx(params={"what": "1-3"}, frames=frames))


def test_a_frames_rows_in_order_with_the_other_frames_columns_beside_them():
    (t,) = _frame_tables(FRAME_DOC)
    assert t.title == "Means over 1-3" and t.note == "seeds 1-3"
    assert t.header == ["run", "queue", "ref: queue", "ref: n"]
    # ref's first row of p1 is beside ours; p3 has none.
    assert t.rows == [["p2", 2.5, 2.0, 20], ["p1", 1.0, 1.5, 10], ["p3", 3.0, None, None]]


def test_a_frame_that_did_not_run_is_left_out_and_one_beside_it_is_empty():
    frames = _frames()
    assert _frame_tables(FRAME_DOC, {"ref": frames["ref"]}) == []
    (t,) = _frame_tables(FRAME_DOC, {"ours": frames["ours"]})
    assert [r[2:] for r in t.rows] == [[None, None]] * 3


def _col(**c):
    return {**FRAME_DOC, "columns": [{"header": "a", **c}]}


@pytest.mark.parametrize(
    "doc, expected",
    [
        (
            {**FRAME_DOC, "frame": "nope"},
            "report_table[0].frame: expected a [[sweep]] or a [frames.NAME] (sweep, ours, ref), "
            "got 'nope'",
        ),
        (
            {**FRAME_DOC, "rows": {"a": [1]}},
            "report_table[0]: expected one of rows or frame, got both",
        ),
        (
            {"title": "t", "columns": []},
            "report_table[0]: expected one of rows or frame, got neither",
        ),
        (
            {"title": "t", "rows": {"a": [1]}, "columns": [{"header": "a", "column": "q"}]},
            "report_table[0].columns[0].column: a frame's column, only in a table of frame = NAME",
        ),
        (_col(column="q", beside=["ref"]), "report_table[0].columns[0].beside: expected a table"),
        (
            _col(column="q", beside={"frame": "ref"}),
            "report_table[0].columns[0].beside: expected a table { frame",
        ),
        (
            _col(column="q", beside={"frame": "x", "on": "point"}),
            "report_table[0].columns[0].beside.frame: expected a [[sweep]] or a [frames.NAME]",
        ),
        (
            _col(number="q", beside={"frame": "ref", "on": "point"}),
            "report_table[0].columns[0].beside: only with column",
        ),
    ],
)
def test_a_bad_frame_table_is_one_line_naming_the_file_and_key(doc, expected):
    from aqmlab.reproduce import report_table

    with pytest.raises(AqmlabError) as e:
        report_table.load(PATH, [doc], FRAMES)
    msg = str(e.value)
    assert msg.startswith(f"{PATH}: ") and expected in msg and "\n" not in msg, msg


def test_a_frames_missing_column_is_one_line_at_run_time():
    with pytest.raises(
        AqmlabError, match=r"report_table\[0\]\.columns: no column 'z' in the results of 'ours'$"
    ):
        _frame_tables(_col(column="z"))
    with pytest.raises(
        AqmlabError,
        match=r"report_table\[0\]\.columns\[0\]\.beside: no column 'x' in the results of 'ref'$",
    ):
        _frame_tables(_col(column="x", beside={"frame": "ref", "on": "point"}))
