"""Reference tables as results (docs/reproductions.md, "Metrics as data": ``[frames.NAME]``):
a CSV of the folder read as a sweep's results, its ``[[derive]]`` columns (``from`` + ``format``
too) and ``[numbers.NAME]`` reductions with exact values, left out of every number that does
not name it, and the one-line errors naming the file and the key."""

from __future__ import annotations

import shutil

import pytest
from conftest import ROOT

pd = pytest.importorskip("pandas")

EXAMPLE = ROOT / "examples" / "reproduction"
CSV = """tcp,qdisc,size,seed,utilization,drops
tahoe,droptail,8,1,0.5,10
tahoe,droptail,8,2,0.75,20
tahoe,red,3,1,0.25,4
tahoe,red,3,2,0.5,6
"""
DER = '[frames.ref]\ncsv = "ref.csv"\n[[derive]]\nname = "p"\nfrom = "qdisc"\n'
FRAMES = """
[frames.ref]
csv = "ref.csv"

[[derive]]
name = "point"
from = "qdisc"
format = { droptail = "tail drop {size}p", red = "RED min_th {size:g}" }
sweeps = ["ref"]

[[derive]]
name = "kbps"
expr = "utilization * 1000"
sweeps = ["ref"]

[numbers.ref_util]
sweeps = ["ref"]
by = ["point"]
key = ["{point}"]
column = "kbps"
reduce = "mean"

[numbers.ref_drops]
sweeps = ["ref"]
column = "drops"
reduce = "sum"
"""


def _folder(tmp_path, extra: str, csv: str = CSV):
    d = tmp_path / "repro"
    shutil.copytree(EXAMPLE, d)
    text = (d / "experiment.toml").read_text()
    top = extra.startswith("frames =")  # a top-level key goes before the tables
    (d / "experiment.toml").write_text(extra + text if top else text + extra)
    (d / "ref.csv").write_text(csv)
    return d


def _frames(d):
    from aqmlab.reproduce import reference_frames
    from aqmlab.reproduce.folder import load

    exp = load(str(d))
    return exp, reference_frames.frames(exp.frames, exp.derives, lambda t: t)


def test_a_csv_is_read_as_results_with_its_derives_and_numbers(tmp_path):
    from aqmlab.reproduce import metrics

    exp, frames = _frames(_folder(tmp_path, FRAMES))
    ref = frames["ref"]
    assert list(ref["point"]) == ["tail drop 8p"] * 2 + ["RED min_th 3"] * 2
    assert list(ref["kbps"]) == [500.0, 750.0, 250.0, 500.0]
    # The example's own derives do not name the frame: none of their columns is added.
    assert list(ref.columns) == ["tcp", "qdisc", "size", "seed", "utilization", "drops"] + [
        "point",
        "kbps",
    ]
    nums = {nd.name: nd for nd in exp.numbers}
    fill = lambda t: t  # noqa: E731
    assert metrics.compute(nums["ref_util"], frames, fill) == {
        "RED min_th 3": 375.0,
        "tail drop 8p": 625.0,
    }
    assert metrics.compute(nums["ref_drops"], frames, fill) == 40.0


def test_a_number_without_sweeps_reads_the_sweeps_only(tmp_path):
    """Declaring a frame changes no number that does not name it: the loader leaves frames out
    of a [numbers.NAME] without sweeps (its default is every sweep)."""
    from aqmlab.reproduce.loader import declared_numbers

    extra = FRAMES + '\n[numbers.all_runs]\nreduce = "count"\n'
    exp, frames = _frames(_folder(tmp_path, extra))
    sweep = pd.DataFrame({"x": [1.0, 2.0, 3.0]})

    class Ctx:
        experiment = exp
        numbers: dict = {}

        @staticmethod
        def fill(t):
            return t

    Ctx.frames = {"sweep": sweep, **frames}
    Ctx.numbers = {}
    declared_numbers(Ctx)
    assert Ctx.numbers["all_runs"] == 3  # the sweep's 3 runs, not 3 + the frame's 4
    assert Ctx.numbers["ref_drops"] == 40.0


@pytest.mark.parametrize(
    "extra, csv, expected",
    [
        (
            '[frames.ref]\ncsv = "nope.csv"\n',
            CSV,
            "experiment.toml: frames.ref.csv: expected a CSV file of the folder, got 'nope.csv'",
        ),
        (
            "[frames.ref]\ncsv = 3\n",
            CSV,
            "experiment.toml: frames.ref.csv: expected a CSV file of the folder, got 3",
        ),
        (
            '[frames.ref]\ncsv = "ref.csv"\nrows = 1\n',
            CSV,
            "frames.ref.rows: unknown key (expected one of csv, means, by, where, columns, reduce)",
        ),
        (
            '[frames.sweep]\ncsv = "ref.csv"\n',
            CSV,
            "experiment.toml: frames.sweep: expected a name no [[sweep]] has (sweep)",
        ),
        (
            '[frames.ref]\ncsv = "ref.csv"\nby = ["qdisc"]\n',
            CSV,
            "experiment.toml: frames.ref.by: only with means, not csv",
        ),
        ("frames = 3\n", CSV, "experiment.toml: frames: expected [frames.NAME] tables"),
        (
            DER + 'format = { red = "{size" }\nsweeps = ["ref"]\n',
            CSV,
            "experiment.toml: derive[0] ('p').format.red: '{size': ",
        ),
        (
            DER + 'format = { red = "{a.b}" }\nsweeps = ["ref"]\n',
            CSV,
            "derive[0] ('p').format.red: '{a.b}': expected {column} fields, got {a.b}",
        ),
        (
            DER + 'format = "x"\nsweeps = ["ref"]\n',
            CSV,
            "experiment.toml: derive[0] ('p').format: expected a table of value = ",
        ),
        (
            DER + 'format = { red = "x" }\nmap = { red = "y" }\n',
            CSV,
            "derive[0] ('p'): expected one of expr or from + map or from + format",
        ),
        (
            '[numbers.n]\nsweeps = ["ref"]\ncolumn = "x"\n',
            CSV,
            "experiment.toml: numbers.n.sweeps: expected names of [[sweep]]s (sweep), got ['ref']",
        ),
    ],
)
def test_bad_frames_and_formats_are_one_line_naming_the_file_and_key(
    tmp_path, extra, csv, expected
):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.folder import load

    with pytest.raises(AqmlabError) as e:
        load(str(_folder(tmp_path, extra, csv)))
    msg = str(e.value)
    assert expected in msg and "\n" not in msg, msg


@pytest.mark.parametrize(
    "extra, csv, expected",
    [
        (
            FRAMES,
            CSV.replace("red,3", "pie,3"),
            "derive[0] ('point').format: no format for 'pie' of column 'qdisc'",
        ),
        (
            FRAMES.replace("{size}p", "{buffer}p"),
            CSV,
            "derive[0] ('point').format.droptail: no column 'buffer' in the results of sweep 'ref'",
        ),
        (
            FRAMES.replace('from = "qdisc"', 'from = "aqm"'),
            CSV,
            "derive[0] ('point').from: no column 'aqm' in the results of sweep 'ref'",
        ),
        (FRAMES, "", "frames.ref.csv: ref.csv: "),
    ],
)
def test_bad_data_is_one_line_at_run_time(tmp_path, extra, csv, expected):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _frames(_folder(tmp_path, extra, csv))
    msg = str(e.value)
    assert expected in msg and "\n" not in msg and "experiment.toml" in msg, msg
