"""``aqmlab run`` and ``aqmlab sweep`` import only what they need (issue 24): no pandas, scipy,
matplotlib, pyarrow or numpy, for CSV or Parquet. The CSV a run writes without them is byte for
byte what pandas' ``to_csv`` wrote before; the Parquet, written by the native module, reads back
as the same table pyarrow wrote (a sweep's tables: tests/test_sweeptable.py)."""

import io
import json
import math
import subprocess
import sys

import pytest

HEAVY = ("pandas", "scipy", "matplotlib", "pyarrow", "numpy")

# Runs the command line in this process, then prints which of HEAVY it loaded.
PROBE = """
import json, sys
from aqmlab.cli import main
code = main(sys.argv[1:])
loaded = sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))
print(json.dumps({"code": code, "loaded": loaded}))
""".replace("HEAVY", repr(HEAVY))


def heavy_imported(*args: str) -> list[str]:
    r = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.splitlines()[-1])
    assert got["code"] == 0, r.stderr
    return got["loaded"]


def test_a_quiet_csv_run_imports_none_of_the_table_libraries(tmp_path):
    out = tmp_path / "o"
    loaded = heavy_imported(
        "run", "bulk-dumbbell", "-q", "--csv", "--set", "duration=2s", "-o", str(out)
    )
    assert loaded == []
    assert (out / "links.csv").stat().st_size > 0


def test_a_quiet_parquet_run_imports_none_of_the_table_libraries(tmp_path):
    out = tmp_path / "o"
    loaded = heavy_imported("run", "bulk-dumbbell", "-q", "--set", "duration=2s", "-o", str(out))
    assert loaded == []
    assert (out / "links.parquet").stat().st_size > 0


def test_a_sweep_imports_none_of_the_table_libraries(tmp_path):
    """``aqmlab sweep`` plans, runs (two short runs on two workers) and writes its tables and
    its terminal table without them (issue 24: importing them was most of its fixed cost)."""
    out = tmp_path / "s"
    args = ["sweep", "bulk-dumbbell", "--set", "duration=0.2s", "-o", str(out), "-j", "2"]
    loaded = heavy_imported(*args, "--vary", "dumbbell.bottleneck.rate=5Mbps,10Mbps")
    assert loaded == []
    for name in ("results.parquet", "results.csv", "summary.csv"):
        assert (out / name).stat().st_size > 0
    assert len((out / "results.csv").read_text().splitlines()) == 3


# Values where a CSV writer could differ from pandas: NaN (written empty), infinities, signed
# zero, the repr's switches between positional and exponent notation, subnormals, the extremes.
FLOATS = [
    0.0,
    -0.0,
    1.0,
    -1.5,
    0.1,
    1 / 3,
    1e-4,
    9.99e-5,
    1e-5,
    1e15,
    1e16,
    123456789012345678.0,
    2.5e-308,
    5e-324,
    1.7976931348623157e308,
    math.inf,
    -math.inf,
    math.nan,
    12.0,
    1e22,
]
INTS = [0, -1, 1, 2**63 - 1, -(2**63), 10**15, 7, 42, -5, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
STRINGS = [
    "bottleneck",
    None,
    "",
    "a,b",
    'say "hi"',
    "two\nlines",
    "naïve",
    " lead",
    "trail ",
    "x",
    "y.rev",
    None,
    "tab\there",
    "'q'",
    "é",
    "a;b",
    "9",
    "-",
    "long" * 20,
    "z",
]


def tables(as_buffers: bool) -> dict:
    """One chunk of the ``drops``-like columns used below, as the simulator hands it over
    (Arrow buffers) or as lists (the emulator's form)."""
    if not as_buffers:
        return {"s": STRINGS, "t": INTS, "v": FLOATS}
    import pyarrow as pa

    s = pa.array(STRINGS, pa.string())
    valid, offsets, data = (b.to_pybytes() if b is not None else None for b in s.buffers())
    return {
        "s": (valid, offsets, data),
        "t": pa.array(INTS, pa.int64()).buffers()[1].to_pybytes(),
        "v": pa.array(FLOATS, pa.float64()).buffers()[1].to_pybytes(),
    }


@pytest.mark.parametrize("as_buffers", [True, False])
def test_csv_is_byte_identical_to_pandas(tmp_path, monkeypatch, as_buffers):
    import pyarrow as pa
    from aqmlab import series

    cols = [("s", "string"), ("t", "int64"), ("v", "float64")]
    monkeypatch.setitem(series.COLUMNS, "tricky", cols)
    monkeypatch.setattr(series, "_SCHEMAS", {})
    sink = series.SeriesSink(["tricky"], str(tmp_path), csv=True, keep=False)
    sink.add({"tricky": tables(as_buffers)})
    sink.add({"tricky": tables(as_buffers)})
    sink.close()
    got = (tmp_path / "tricky.csv").read_bytes()

    # What the writer did before: the Arrow table through pandas' to_csv.
    table = pa.table(
        {"s": pa.array(STRINGS, pa.string()), "t": INTS, "v": pa.array(FLOATS, pa.float64())}
    )
    want = io.StringIO(newline="")
    want.write("s,t,v\n")
    for _ in range(2):
        table.to_pandas().to_csv(want, header=False, index=False)
    assert got == want.getvalue().encode()
    assert got.count(b"\n") > 2 * len(FLOATS)  # the quoted newline adds lines


@pytest.mark.parametrize("as_buffers", [True, False])
def test_parquet_reads_back_as_the_table_pyarrow_wrote(tmp_path, monkeypatch, as_buffers):
    """The native writer's file against pyarrow's own of the same rows: equal tables, types and
    nulls (a NaN stays a NaN, a None a null), rows in groups of exactly ROWS_PER_GROUP."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from aqmlab import series

    cols = [("s", "string"), ("t", "int64"), ("v", "float64")]
    monkeypatch.setitem(series.COLUMNS, "tricky", cols)
    monkeypatch.setattr(series, "_SCHEMAS", {})
    monkeypatch.setattr(series, "ROWS_PER_GROUP", 7)
    sink = series.SeriesSink(["tricky"], str(tmp_path), csv=False, keep=False)
    for _ in range(3):
        sink.add({"tricky": tables(as_buffers)})
    sink.close()
    path = tmp_path / "tricky.parquet"

    one = pa.table(
        {"s": pa.array(STRINGS, pa.string()), "t": INTS, "v": pa.array(FLOATS, pa.float64())}
    )
    want = pa.concat_tables([one] * 3)
    pq.write_table(want, tmp_path / "pyarrow.parquet")
    got = pq.read_table(path)
    assert got.schema == pq.read_table(tmp_path / "pyarrow.parquet").schema
    assert got.column("s").to_pylist() == want.column("s").to_pylist()
    assert got.column("t").to_pylist() == want.column("t").to_pylist()
    # NaN != NaN: compare the bits.
    assert [repr(v) for v in got.column("v").to_pylist()] == [repr(v) for v in FLOATS * 3]
    assert got.column("s").null_count == 2 * 3 and got.column("v").null_count == 0
    meta = pq.ParquetFile(path).metadata
    sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert sizes == [7] * (3 * len(FLOATS) // 7) + [3 * len(FLOATS) % 7]


def test_parquet_writer_refuses_columns_that_do_not_line_up(tmp_path):
    import pyarrow.parquet as pq
    from aqmlab import _core

    f = _core.ParquetFile(str(tmp_path / "x.parquet"), [("a", "int64"), ("b", "string")], 10)
    with pytest.raises(ValueError, match='column "b" has 1 rows where the first column has 2'):
        f.write_columns({"a": [1, 2], "b": ["x"]})
    # The refused chunk left nothing behind: the next one is written alone.
    f.write_columns({"a": [3], "b": [None]})
    f.close()
    assert pq.read_table(tmp_path / "x.parquet").to_pylist() == [{"a": 3, "b": None}]
    with pytest.raises(ValueError, match='column "a": type "date" is not int64, float64, bool'):
        _core.ParquetFile(str(tmp_path / "y.parquet"), [("a", "date")], 10)


def test_parquet_packed_chunks_go_in_a_group_at_a_time(tmp_path):
    """A chunk in the simulator's packed form is copied into the writer a row group at a time
    (a bin of 100,000 flows is not held twice: issue 24), to the same file, byte for byte, as
    the same rows given as lists, whole; a packed chunk whose columns do not line up is refused
    before any of its rows is written."""
    from aqmlab import _core

    cols = [("s", "string"), ("t", "int64"), ("v", "float64")]
    for name, as_buffers in (("packed", True), ("lists", False)):
        f = _core.ParquetFile(str(tmp_path / f"{name}.parquet"), cols, 7)
        for _ in range(3):
            f.write_columns(tables(as_buffers))
        f.close()
    assert (tmp_path / "packed.parquet").read_bytes() == (tmp_path / "lists.parquet").read_bytes()

    import pyarrow.parquet as pq

    f = _core.ParquetFile(str(tmp_path / "x.parquet"), cols, 2)
    bad = {**tables(True), "v": tables(True)["v"][:-8]}
    n = len(INTS)
    refused = f'column "v" has {n - 1} rows where the first column has {n}'
    with pytest.raises(ValueError, match=refused):
        f.write_columns(bad)
    f.write_columns({"s": [None], "t": [3], "v": [0.5]})
    f.close()
    assert pq.read_table(tmp_path / "x.parquet").to_pylist() == [{"s": None, "t": 3, "v": 0.5}]


def test_parquet_packed_chunk_with_a_short_validity_bitmap_is_refused_whole(tmp_path):
    """A packed string column whose validity bitmap is shorter than its rows (a bit a row) is
    refused before any of the chunk's rows is written: it once panicked part way through the
    chunk, after the row groups before the missing byte were in the file. So is a number
    column that is not a whole number of 8-byte values (its last bytes were dropped)."""
    import pyarrow.parquet as pq
    from aqmlab import _core

    cols = [("s", "string"), ("t", "int64"), ("v", "float64")]
    good = tables(True)
    valid, offsets, data = good["s"]
    assert valid is not None and len(valid) == 3  # 20 rows: the rows of the 3rd byte are cut
    n = len(STRINGS)
    short = f'column "s" has a validity bitmap of 16 rows where its offsets have {n}'
    part = f'column "v" has {8 * n + 3} bytes, not a whole number of 8-byte values'
    lists = {"t": INTS, "v": FLOATS}  # the numbers as lists: the other (unpacked) path
    for bad, refused in (
        ({**good, "s": (valid[:2], offsets, data)}, short),
        ({**lists, "s": (valid[:2], offsets, data)}, short),
        ({**good, "v": good["v"] + b"\0\0\0"}, part),
    ):
        f = _core.ParquetFile(str(tmp_path / "x.parquet"), cols, 2)
        with pytest.raises(ValueError, match=refused):
            f.write_columns(bad)
        f.write_columns({"s": [None], "t": [3], "v": [0.5]})
        f.close()
        assert pq.read_table(tmp_path / "x.parquet").to_pylist() == [{"s": None, "t": 3, "v": 0.5}]


def test_parquet_writer_raises_the_disk_error_with_its_errno():
    import errno

    from aqmlab import _core

    f = _core.ParquetFile("/dev/full", [("a", "int64")], 10)
    with pytest.raises(OSError) as e:
        f.write_columns({"a": list(range(100_000))})
        f.close()
    assert e.value.errno == errno.ENOSPC


def test_a_run_reads_no_reproductions_options(tmp_path):
    """The reproductions' declared options (``[options.NAME]`` in their experiment.toml) are
    read only for ``aqmlab reproduce``: another command imports no reproduction code (issue 24:
    reading 15 experiment files and importing the folder reader added about 0.1 s to every
    command)."""
    probe = (
        "import json, sys\n"
        "from aqmlab.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "mods = sorted(m for m in sys.modules if m.startswith('aqmlab.reproduce'))\n"
        "print(json.dumps([code, mods]))\n"
    )
    out = tmp_path / "o"
    args = ["run", "bulk-dumbbell", "-q", "--set", "duration=0.2s", "-o", str(out)]
    r = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True)
    code, loaded = json.loads(r.stdout.splitlines()[-1])
    assert code == 0, r.stderr
    assert loaded == []
    # ... and `aqmlab reproduce --help` still offers them.
    r = subprocess.run(
        [sys.executable, "-m", "aqmlab", "reproduce", "--help"], capture_output=True, text=True
    )
    assert "--trace FILE" in r.stdout and "cellular: a mahimahi trace" in r.stdout, r.stdout
