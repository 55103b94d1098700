"""The series' CSV files, written by the native module (crates/aqmlab-py/src/csv_file.rs): byte
for byte what Python's ``csv`` module (and pandas' ``to_csv``) writes for the same table."""

import array
import csv
import io
import math
import random
import struct

import aqmlab
import pandas as pd
import pytest
from aqmlab import _core
from aqmlab.series import COLUMNS
from conftest import ROOT


def _python_csv(columns, rows):
    """The reference: the ``csv`` module, minimal quoting, ``\\n`` line ends, a float as its
    ``repr``, a missing value (None, NaN) empty."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    w.writerow([c for c, _ in columns])
    for row in rows:
        w.writerow([None if isinstance(v, float) and math.isnan(v) else v for v in row])
    return buf.getvalue()


def _floats(n, seed):
    r = random.Random(seed)
    out = [0.0, -0.0, 0.1, 1e-5, 1e-4, 1e16, 1e15, 5e-324, 1.7976931348623157e308, 2.5]
    out += [math.inf, -math.inf, math.nan, 1735861081508451.25, 223022213745752.125]
    while len(out) < n:
        out.append(struct.unpack("d", struct.pack("Q", r.getrandbits(64)))[0])
        out.append(r.getrandbits(53) * 2.0 ** r.randint(-8, 20))  # halfway cases
        out.append(r.randint(-(10**6), 10**6) * 10.0 ** r.randint(-25, 25))
        out.append(round(r.uniform(0, 100), r.randint(0, 8)))
    return out[:n]


def test_every_float_is_written_as_pythons_repr():
    """Shortest round-trip digits laid out as Python lays them out; an exact tie between two
    shortest candidates takes the even digit, as CPython's dtoa does (Rust's own formatting
    rounds it up: 1735861081508451.25 would be ...451.3)."""
    values = [v for v in _floats(200_000, 7) if not math.isnan(v)]
    wrong = [(v, _core.float_repr(v)) for v in values if _core.float_repr(v) != repr(v)]
    assert wrong == []
    assert _core.float_repr(1735861081508451.25) == "1735861081508451.2"
    assert _core.float_repr(-223022213745752.125) == "-223022213745752.12"


def test_a_chunk_in_every_form_is_written_as_the_csv_module_writes_it(tmp_path):
    columns = [("name", "string"), ("x", "float64"), ("n", "int64"), ("label", "string")]
    xs = _floats(5_000, 3)
    ns = [random.Random(i).randint(-(2**63), 2**63 - 1) for i in range(len(xs))]
    texts = ["a", "", 'say "hi"', "a,b", "line\nbreak", "plain", "é ü"]
    names = [texts[i % len(texts)] for i in range(len(xs))]
    # Packed: numbers as bytes of 64-bit values, strings as (validity, offsets, data).
    enc = [s.encode() for s in names]
    offsets = array.array("i", [0])
    for e in enc:
        offsets.append(offsets[-1] + len(e))
    packed = {
        "name": (None, offsets.tobytes(), b"".join(enc)),
        "x": array.array("d", xs).tobytes(),
        "n": array.array("q", ns).tobytes(),
        "label": (None, offsets.tobytes(), b"".join(enc)),
    }
    # Lists of Python values (the emulator's series), None missing.
    listed = {
        "name": [None, "x,y", "z"],
        "x": [None, 1.5, math.nan],
        "n": [None, 3, -4],
        "label": ["q", None, '"'],
    }
    path = tmp_path / "t.csv"
    f = _core.CsvFile(str(path), columns)
    f.write_columns(packed)
    f.write_columns(listed)
    f.close()
    rows = list(zip(names, xs, ns, names)) + list(zip(*(listed[c] for c, _ in columns)))
    assert path.read_text(encoding="utf-8") == _python_csv(columns, rows)


def test_a_bad_chunk_is_refused_whole_and_names_the_column(tmp_path):
    path = tmp_path / "t.csv"
    f = _core.CsvFile(str(path), [("a", "int64"), ("b", "float64")])
    with pytest.raises(ValueError, match='column "b" has 1 rows where the first column has 2'):
        f.write_columns({"a": [1, 2], "b": [1.0]})
    with pytest.raises(ValueError, match='the chunk has no column "b"'):
        f.write_columns({"a": [1]})
    with pytest.raises(ValueError, match='type "bool" is not int64, float64 or string'):
        _core.CsvFile(str(tmp_path / "u.csv"), [("a", "bool")])
    f.write_columns({"a": [7], "b": [0.5]})
    f.close()
    assert path.read_text() == "a,b\n7,0.5\n"


def test_a_carriage_return_is_quoted_and_reads_back(tmp_path):
    """Python 3.11's ``csv`` leaves a lone ``\r`` unquoted under a ``\n`` line end (later
    versions quote it); we quote it, so that the file reads back as written."""
    path = tmp_path / "t.csv"
    f = _core.CsvFile(str(path), [("a", "string"), ("b", "int64")])
    f.write_columns({"a": ["cr\rhere", "x"], "b": [1, 2]})
    f.close()
    assert path.read_bytes() == b'a,b\n"cr\rhere",1\nx,2\n'
    assert pd.read_csv(path)["a"].tolist() == ["cr\rhere", "x"]


def test_a_runs_csv_files_are_its_parquet_tables_as_pandas_writes_them(tmp_path):
    """End to end: the same run written as Parquet and as CSV; pandas' ``to_csv`` of each
    Parquet table is the CSV file, byte for byte (packet log and drops included)."""
    scenario = ROOT / "scenarios" / "bulk-dumbbell.toml"
    sets = {"duration": "2s", "warmup": "0.5s"}
    text = scenario.read_text() + '\n[output]\npacket_log = ["bottleneck"]\n'
    src = tmp_path / "s.toml"
    src.write_text(text)
    aqmlab.run(src, tmp_path / "p", set=sets, progress=False, keep=False)
    aqmlab.run(src, tmp_path / "c", set=sets, csv=True, progress=False, keep=False)
    written = sorted(p.stem for p in (tmp_path / "c").glob("*.csv"))
    assert {"links", "flows", "packets"} <= set(written)
    for name in written:
        assert name in COLUMNS
        df = pd.read_parquet(tmp_path / "p" / f"{name}.parquet")
        assert len(df) > 0
        want = df.to_csv(index=False, lineterminator="\n")
        assert (tmp_path / "c" / f"{name}.csv").read_text(encoding="utf-8") == want, name
