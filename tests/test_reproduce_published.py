"""The sources' published values as numbers (docs/reproductions.md, "Metrics as data",
``published``), with exact values and types; errors in one line naming the file, the table and
the key. And a declared report table's ``none = nan``: a cell with no value kept as NaN."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from aqmlab.exceptions import AqmlabError

PATH = "/r/experiment.toml"
CLAIMS = [
    SimpleNamespace(id=i, published=p)
    for i, p in [("a-down-c", "8"), ("a-down-t", "12.8"), ("a-up-c", "0"), ("a-up-t", "0.30"),
                 ("words", "C ≤ T")]
]  # fmt: skip


def _number(doc, claims=CLAIMS):
    from aqmlab.reproduce import published
    from aqmlab.reproduce.metrics import load_numbers

    (nd,) = load_numbers(PATH, {"x": doc}, ["sweep"])
    return published.compute(nd, claims)


def test_published_values_as_printed_laid_out_by_each():
    doc = {
        "published": {
            "each": {"d": ["down", "up"]},
            "key": ["{d}"],
            "values": {"C": "a-{d}-c", "pair": {"T": "a-{d}-t"}},
        }
    }
    got = _number(doc)
    assert got == {"down": {"C": 8, "pair": {"T": 12.8}}, "up": {"C": 0, "pair": {"T": 0.3}}}
    # A whole number stays an integer, as printed (results.json writes 8, not 8.0).
    assert type(got["down"]["C"]) is int and type(got["down"]["pair"]["T"]) is float
    assert _number({"published": {"values": {"c": "a-down-c"}}}) == {"c": 8}


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"published": {"values": {"c": "nope"}}},
         "/r/experiment.toml: numbers.x.published.values.c: no claim 'nope' in claims.toml"),
        ({"published": {"values": {"c": "words"}}},
         "/r/experiment.toml: numbers.x.published.values.c: claim 'words''s published: "
         "'C ≤ T' is not a number"),
    ],
)  # fmt: skip
def test_errors_after_the_run_name_the_key(doc, message):
    with pytest.raises(AqmlabError) as e:
        _number(doc)
    assert str(e.value) == message


@pytest.mark.parametrize(
    ("doc", "key"),
    [
        ({"published": {"values": {"c": "a"}}, "by": ["x"]}, "numbers.x.by"),
        ({"published": "a"}, "numbers.x.published"),
        ({"published": {"values": {"c": 1}}}, "numbers.x.published.values"),
        ({"published": {"values": {"c": "a"}, "each": {"d": ["x"]}}}, "numbers.x.published.key"),
        ({"published": {"values": {"c": "a"}, "extra": 1}}, "numbers.x.published.extra"),
    ],
)
def test_declaration_errors_name_the_key(doc, key):
    from aqmlab.reproduce.metrics import load_numbers

    with pytest.raises(AqmlabError) as e:
        load_numbers(PATH, {"x": doc}, ["sweep"])
    text = str(e.value)
    assert text.startswith(f"{PATH}: {key}") and "\n" not in text


def test_report_table_none_nan_keeps_no_value_as_nan():
    """``none = nan``: a ratio over 0 stays NaN (a module's table wrote NaN there); a text
    ``none`` prints it; any other value is refused, naming the key."""
    from aqmlab.reproduce import report_table

    def build(none):
        doc = {
            "title": "t",
            "rows": [{"k": ["a", "b"]}],
            "columns": [{"header": "r", "expr": "`n.{k}.c` / `n.{k}.t`", **none}],
        }
        ctx = SimpleNamespace(
            numbers={"n": {"a": {"c": 1.0, "t": 4.0}, "b": {"c": 1.0, "t": 0.0}}},
            params={},
            claims={},
            table=None,
            quick=False,
            seeds=[1],
            out="/o",
        )
        (t,) = report_table.build(report_table.load(PATH, [doc], []), ctx)
        return [r[0] for r in t.rows]

    a, b = build({"none": math.nan})
    assert a == 0.25 and isinstance(b, float) and math.isnan(b)
    assert build({"none": "–"}) == [0.25, "–"]
    assert build({}) == [0.25, None]
    with pytest.raises(AqmlabError) as e:
        build({"none": 1.0})
    assert str(e.value) == (
        "/r/experiment.toml: report_table[0].columns[0].none: expected a text, or nan (the cell "
        "kept with no value), got 1.0"
    )
