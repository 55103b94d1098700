"""A CSV of the folder read as a sweep's results (docs/reproductions.md, "Metrics as data"):
``[csv.NAME]`` with a [[derive]] and [numbers.NAME] naming it, with exact values; a number
without ``sweeps`` still reads the sweeps only; errors in one line naming the file and key."""

from __future__ import annotations

import pytest
from conftest import example_folder, refused_in_one_line

pd = pytest.importorskip("pandas")

CSV = "qdisc,seed,mode,p50_ms\nred,1,a,2.0\nred,2,a,4.5\ndroptail,1,a,30\nred,1,b,100\n"
EXTRA = """
[csv.ref]
file = "ref.csv"

[[derive]]
name = "case"
from = "qdisc"
map = { red = "RED", droptail = "tail drop" }
sweeps = ["ref"]

[numbers._ref]
sweeps = ["ref"]
where = "mode == '{mode}'"
by = ["case"]
key = ["{case}"]
values.p50 = { column = "p50_ms", reduce = "mean" }
values.seeds = { column = "seed", reduce = "list" }

[numbers._runs]
reduce = "count"
"""


def _folder(tmp_path, extra=EXTRA, csv=CSV):
    return example_folder(tmp_path, append=extra, ref_csv=csv)


def _numbers(folder):
    from aqmlab.reproduce import csv_frames
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context, declared_numbers

    exp = load(str(folder))
    ctx = Context(exp, "/nonexistent", False, [1], None, False, {}, {"mode": "a"})
    ctx.frames["sweep"] = pd.DataFrame({"seed": [1, 2, 3]})  # the sweep's three runs
    csv_frames.read(ctx)
    declared_numbers(ctx)
    return ctx


def test_a_csv_is_derived_and_reduced_as_a_sweep(tmp_path):
    ctx = _numbers(_folder(tmp_path))
    assert ctx.numbers["_ref"] == {
        "RED": {"p50": 3.25, "seeds": [1, 2]},
        "tail drop": {"p50": 30.0, "seeds": [1]},
    }
    assert list(ctx.frames["ref"]["case"]) == ["RED", "RED", "tail drop", "RED"]
    # Without sweeps a number reads the sweeps only: 3 runs, not 3 + the CSV's 4 rows.
    assert ctx.numbers["_runs"] == 3


@pytest.mark.parametrize(
    "edit, expected",
    [
        (
            ('file = "ref.csv"', 'file = "nope.csv"'),
            "csv.ref.file: expected a CSV file of the folder, got 'nope.csv'",
        ),
        (
            ('file = "ref.csv"', 'file = "ref.csv"\nsep = ";"'),
            "csv.ref.sep: unknown key (expected file)",
        ),
        (("[csv.ref]", "[csv.sweep]"), "csv.sweep: a [[sweep]] has this name"),
        (
            ('sweeps = ["ref"]', 'sweeps = ["refs"]'),
            "derive[0] ('case').sweeps: expected names of [[sweep]]s (sweep, ref)",
        ),
    ],
)
def test_a_bad_csv_table_is_one_line_naming_the_file_and_key(tmp_path, edit, expected):
    extra = EXTRA.replace(*edit, 1)
    assert extra != EXTRA
    refused_in_one_line(_folder(tmp_path, extra), "experiment.toml", expected)


def test_a_missing_column_of_the_csv_is_one_line_at_run_time(tmp_path):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _numbers(_folder(tmp_path, csv=CSV.replace("qdisc", "kind")))
    assert "derive[" in str(
        e.value
    ) and "from: no column 'qdisc' in the results of sweep 'ref'" in str(e.value)
