"""A sweep's tables built and written without pandas (aqmlab.sweeptable) against what pandas and
pyarrow made of the same rows before (aqmlab.sweepresult.results_frame, stats.summarize, to_csv,
pa.Table.from_pandas + pq.write_table): CSV byte for byte, Parquet read back equal (schema with
its metadata, values, nulls), and the DataFrames the Python API hands out equal."""

import math
import random
from types import SimpleNamespace

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from aqmlab import sweeptable as st
from aqmlab.metrics import is_zero_filled
from aqmlab.stats import summarize
from aqmlab.sweepresult import results_frame

Z = "bottleneck.drops_by_reason.overlimit"  # a zero-filled metric


def ok(point, seed, run, **metrics):
    return {**point, "seed": seed, "run": run, "error": None, **metrics}


def failed(point, seed, run, error="boom"):
    return {**point, "seed": seed, "run": run, "error": error}


# Rows as sweep._rows makes them, with what pandas infers in ways of its own: a metric None in
# some runs (ints become floats), None in every run (an object column, Arrow's null type), an
# int in one run and a float in another, NaN, infinities, text needing quotes, a zero-filled
# metric missing from one run, link qdisc names, failed runs (no metrics: NaN), a point that
# failed to load (no run key, no seed).
CASES = {
    "text axis, failures": (
        ["rate"],
        [
            ok({"rate": "5Mbps"}, 1, "a1", **{"x.p50": 1, "x.mean": 0.5, "b.qdisc": "codel"}),
            ok({"rate": "5Mbps"}, 2, "a2", **{"x.p50": None, "x.mean": math.nan, Z: 3}),
            failed({"rate": "10Mbps"}, 1, "b1", 'bad, "quoted"\nerror'),
            ok(
                {"rate": "10Mbps"},
                2,
                "b2",
                **{"x.p50": 2.5, "x.mean": math.inf, "b.qdisc": "fq,codel", Z: 0},
            ),
        ],
    ),
    "numeric axes, all-None metric": (
        ["flows", "delay"],
        [
            ok({"flows": 1, "delay": 0.1}, 1, "k1", **{"m": None, "big": 2**62, "neg": -0.0}),
            ok({"flows": 1, "delay": 0.1}, 2, "k2", **{"m": None, "big": 1, "neg": -1e-300}),
            ok({"flows": 2, "delay": 1}, 1, "k3", **{"m": None, "big": 3, "neg": 1e22}),
        ],
    ),
    "bool and mixed axes, unloaded point": (
        ["flag", "mixed", "sched"],
        [
            ok({"flag": True, "mixed": 1, "sched": "[1, 2]"}, 1, "r1", v=1.0, w="text"),
            failed({"flag": False, "mixed": "a", "sched": "[3]"}, None, None, "refused"),
            ok({"flag": False, "mixed": 2.5, "sched": "[3]"}, 3, "r3", v=2, w=None),
        ],
    ),
    "no axis, every run failed": (
        [],
        [failed({}, 1, "f1"), failed({}, 2, "f2", "also")],
    ),
    "no seed": (
        ["q"],
        [ok({"q": "a"}, None, "s1", v=1), ok({"q": "b"}, None, "s2", v=2)],
    ),
}


def pandas_tables(columns, rows):
    spec = SimpleNamespace(columns=columns)
    results = results_frame(spec, rows)
    return results, summarize(results, columns)


@pytest.mark.parametrize("case", CASES)
def test_tables_are_those_pandas_made(tmp_path, case):
    columns, rows = CASES[case]
    want, want_summary = pandas_tables(columns, rows)
    table = st.results_table(columns, rows, is_zero_filled)
    summary = st.summarize(table, columns)

    # CSV, byte for byte.
    st.write_csv(str(tmp_path / "results.csv"), table)
    st.write_csv(str(tmp_path / "summary.csv"), summary)
    want.to_csv(tmp_path / "want-results.csv", index=False)
    want_summary.to_csv(tmp_path / "want-summary.csv", index=False)
    for name in ("results.csv", "summary.csv"):
        assert (tmp_path / name).read_bytes() == (tmp_path / f"want-{name}").read_bytes(), name

    # Parquet: the same Arrow schema (types, nullability, pandas' metadata), values and nulls.
    st.write_parquet(str(tmp_path / "results.parquet"), table)
    pq.write_table(pa.Table.from_pandas(want, preserve_index=False), tmp_path / "want.parquet")
    got, expected = (
        pq.read_table(tmp_path / "results.parquet"),
        pq.read_table(tmp_path / "want.parquet"),
    )
    assert got.schema.equals(expected.schema, check_metadata=True)
    assert got.equals(expected)
    for c in got.column_names:
        assert got.column(c).null_count == expected.column(c).null_count, c
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "results.parquet"), pd.read_parquet(tmp_path / "want.parquet")
    )

    # The Python API's DataFrames (``SweepResult.summary`` is the written summary's).
    pd.testing.assert_frame_equal(table.to_pandas(), want)
    pd.testing.assert_frame_equal(summary.to_pandas(), want_summary)
    assert st.seeds_identical(summary) == (
        len(m := want_summary[want_summary["n"] >= 2]) > 0
        and bool((m["std"].fillna(0) <= 1e-9 * m["mean"].abs().fillna(0)).all())
    )


def test_the_cases_cover_each_kind():
    """The cases above hold every kind a results table can have (else the test above leaves a
    kind's writing unchecked)."""
    kinds = set()
    for columns, rows in CASES.values():
        kinds |= set(st.results_table(columns, rows, is_zero_filled).kinds.values())
    assert kinds == {"int64", "float64", "str", "string", "Int64", "null"}


def test_infer_gives_the_dtype_pandas_infers():
    """Random columns of the values a row may hold (and a row without the key) against
    ``pd.DataFrame(rows)``'s dtype: each kind as pandas names it, and Unmodelled exactly
    where pandas falls back to a mixed object column."""
    rng = random.Random(7)
    pool = [1, -3, 2**40, 0.5, math.nan, math.inf, True, False, "a", "", None, st.MISSING]
    names = {"str": "str", "null": "object", "bool": "bool", "int64": "int64"}
    for _ in range(600):
        col = [rng.choice(pool) for _ in range(rng.randint(1, 5))]
        rows = [{"k": 0} | ({} if v is st.MISSING else {"c": v}) for v in col]
        df = pd.DataFrame(rows)
        if "c" not in df:
            continue
        dtype = str(df["c"].dtype)
        try:
            kind, values = st.infer(col)
        except st.Unmodelled:
            assert dtype == "object" and df["c"].notna().any(), col
            continue
        assert names.get(kind, kind) == dtype, col
        assert [v is None for v in values] == df["c"].isna().tolist(), col


def test_the_t_table_is_scipys():
    from aqmlab.t_table import T975, Q
    from scipy.special import stdtrit

    assert Q == 0.5 + 0.95 / 2
    assert list(T975) == [float(stdtrit(d, Q)) for d in range(1, len(T975) + 1)]


@pytest.mark.parametrize(
    "columns,points",
    [
        (["r"], [("a",), ("bb",)]),
        (["dumbbell.bottleneck.rate"], [("5Mbps",), ("10Mbps",)]),
        (["rate", "qdisc:bottleneck"], [("5Mbps", "codel"), ("5Mbps", "fq"), ("1", "codel")]),
        (["flows", "k"], [(1, "x"), (2, "x"), (2, "y")]),
        (["loss"], [(0.1,), (0.25,), (1.0,)]),
        (["loss"], [(1e-7,), (1.0,)]),
        (["rate", "loss"], [("a", 0.001), ("a", 1000.0), ("b", 0.001)]),
        (["loss", "k"], [(2.5e6, "x"), (123456789.0, "x"), (-0.5, "y")]),
    ],
)
def test_the_terminal_table_is_pandas_layout(columns, points):
    from aqmlab.cli import _print_means

    rows = []
    metrics = ["bottleneck.sojourn_ms.p50", "total.goodput_bps", "other"]
    for i, p in enumerate(points):
        for s in (1, 2):
            vals = {"bottleneck.sojourn_ms.p50": 1.5 * i - 2, "total.goodput_bps": 1e6 * s}
            vals["other"] = 3
            if i == 1:
                vals["bottleneck.sojourn_ms.p50"] = None
            rows.append(ok(dict(zip(columns, p)), s, f"k{i}{s}", **vals))
    table = st.results_table(columns, rows, is_zero_filled)
    summary = st.summarize(table, columns)
    show = metrics[:2]
    got = st.means_text(summary, columns, show)

    import contextlib
    import io

    res = SimpleNamespace(results=table.to_pandas())
    res.summary = summarize(res.results, columns)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        _print_means(res, columns)
    assert buf.getvalue() == f"means over seeds:\n{got}\n"


def test_the_arrow_schema_reads_back_in_pyarrow():
    """arrow_schema's message, read by pyarrow: every field's name (non-ASCII ones too), type
    and nullability, and the metadata, for many columns of each kind."""
    import base64

    import pyarrow.ipc as ipc
    from aqmlab.arrow_schema import schema_message

    kinds = ["int64", "float64", "large_string", "bool", "null"]
    cols = [(f"c{i}.{'é' * (i % 4)}{'x' * (i % 7)}", kinds[i % 5]) for i in range(1000)]
    text = schema_message(cols, {"pandas": '{"a": 1}', "other": "é"})
    schema = ipc.read_schema(pa.py_buffer(base64.b64decode(text)))
    names = {"float64": "double"}
    assert [(f.name, str(f.type)) for f in schema] == [(c, names.get(k, k)) for c, k in cols]
    assert all(f.nullable for f in schema)
    assert schema.metadata == {b"pandas": b'{"a": 1}', b"other": "é".encode()}


def test_float_axis_values_print_as_pandas_prints_them():
    """Random sets of axis values (pandas picks the digits and the notation from the whole set)
    against pandas' own index of the same values."""
    from aqmlab.sweeptable import _float_texts

    rng = random.Random(3)
    pool = [0.1, 0.25, 1.0, 1e-7, 1e7, 123456789.0, -0.5, 0.0, math.pi, 1e16, 5e-324, 1 / 3]
    pool += [100.0, 2.5e6, -1e-3, 999999.5, 1e6, 1.5e6, -2e6, 12345.678]
    for _ in range(300):
        vals = list(dict.fromkeys(rng.choice(pool) for _ in range(rng.randint(1, 4))))
        frame = pd.DataFrame({"x": [1.0] * len(vals)}, index=pd.Index(vals, name="r"))
        # Each line: the index's text, then "  1.0".
        want = [line[:-5].rstrip() for line in frame.to_string().splitlines()[2:]]
        assert _float_texts(vals) == want, vals
