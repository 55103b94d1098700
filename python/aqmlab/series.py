"""The time series of a run, streamed: each chunk the simulator hands out between steps is
appended to the output files (and, if asked, kept for the DataFrames ``run`` returns), so the
simulator's memory does not grow with the simulated time."""

from __future__ import annotations

import array
import contextlib
import itertools
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

#: The columns of each table and their types (docs/data-format.md describes them). Plain names,
#: so that writing CSV never imports pyarrow; :data:`SCHEMAS` holds them as Arrow schemas.
COLUMNS: dict[str, list[tuple[str, str]]] = {
    "links": [
        ("link", "string"),
        ("t_s", "float64"),
        ("ingress_bytes", "int64"),
        ("egress_bytes", "int64"),
        ("max_backlog_pkts", "int64"),
        ("max_backlog_bytes", "int64"),
        ("drops", "int64"),
        ("released_pkts", "int64"),
        ("mean_sojourn_ms", "float64"),
        ("mean_backlog_pkts", "float64"),
        ("mean_backlog_bytes", "float64"),
        ("capacity_bps", "float64"),
    ],
    "flows": [
        ("flow", "int64"),
        ("t_s", "float64"),
        ("delivered_bytes", "int64"),
        ("cumulative_bytes", "int64"),
        ("srtt_ms", "float64"),
        ("name", "string"),
        ("cwnd_bytes", "float64"),
        ("ssthresh_bytes", "float64"),
    ],
    "packets": [
        ("link", "string"),
        ("t_ns", "int64"),
        ("sojourn_ns", "int64"),
        ("size", "int64"),
        ("flow", "int64"),
    ],
    "drops": [
        ("link", "string"),
        ("t_ns", "int64"),
        ("sojourn_ns", "int64"),
        ("size", "int64"),
        ("flow", "int64"),
        ("reason", "string"),
    ],
    "states": [
        ("link", "string"),
        ("t_ns", "int64"),
        ("var", "string"),
        ("value", "float64"),
    ],
    "flow_states": [
        ("flow", "int64"),
        ("t_ns", "int64"),
        ("var", "string"),
        ("value", "float64"),
    ],
}

_SCHEMAS: dict[str, pa.Schema] = {}


def __getattr__(name: str) -> Any:
    """``SCHEMAS``, each table's columns as an Arrow schema, made (and pyarrow imported) on
    first use."""
    if name != "SCHEMAS":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if not _SCHEMAS:
        import pyarrow as pa

        for table, cols in COLUMNS.items():
            _SCHEMAS[table] = pa.schema([(c, getattr(pa, t)()) for c, t in cols])
    return _SCHEMAS


#: Rows per Parquet row group. The chunks a run hands out step by step are gathered into groups
#: of exactly this many rows (the last one shorter): a file's layout, and so its bytes, do not
#: depend on how the run was stepped (the steps follow the wall clock), and the writer's cost
#: per call is paid per group instead of per step. Memory stays bounded by one group a table.
ROWS_PER_GROUP = 65_536


class SeriesSink:
    """Appends chunks of ``tables`` (names in :data:`COLUMNS`) to ``out/NAME.parquet`` (or
    ``.csv``) when ``out`` is given, and keeps them for :meth:`close` when ``keep`` is true.

    The files are written as ``NAME.parquet.partial`` and renamed by :meth:`close`; a run that
    stops early calls :meth:`abort`, which removes them, so a folder never mixes a finished
    run's files with an unfinished one's. Both kinds of file are written from the chunks' own
    bytes (by the native module's ``ParquetFile`` and ``CsvFile``); only
    kept tables need pyarrow and pandas, which is what makes ``aqmlab run`` start without
    either."""

    def __init__(
        self,
        tables: list[str],
        out: str | None,
        csv: bool,
        keep: bool,
        shown_dir: str | None = None,
    ) -> None:
        self.tables = tables
        self.out = out
        # Where the files will be when the run is committed (errors name them there).
        self.shown_dir = shown_dir or out
        self.csv = csv
        self.keep = keep
        self.parts: dict[str, list[pa.Table]] = {name: [] for name in tables}
        self.writers: dict[str, Any] = {}
        if out is not None:
            os.makedirs(out, exist_ok=True)
            for name in tables:
                with self._naming(name):
                    self.writers[name] = self._open(name)

    @contextlib.contextmanager
    def _naming(self, name: str):  # noqa: ANN202 - a context manager
        """Re-raises a failed write (a full disk) as an OSError naming the file."""
        try:
            yield
        except OSError as e:
            shown = os.path.join(self.shown_dir, os.path.basename(self._path(name)))
            raise OSError(e.errno, f"cannot write: {e.strerror or e}", shown) from None

    def _path(self, name: str) -> str:
        return os.path.join(self.out, f"{name}.{'csv' if self.csv else 'parquet'}")

    def _open(self, name: str) -> Any:
        from . import _core

        path = self._path(name) + ".partial"
        if self.csv:
            return _core.CsvFile(path, COLUMNS[name])
        return _core.ParquetFile(path, COLUMNS[name], ROWS_PER_GROUP)

    def add(self, chunk: dict[str, dict[str, Any]]) -> None:
        """Appends one chunk (``Run.take_series()``'s columns, or lists of values)."""
        for name in self.tables:
            if name in self.writers:
                with self._naming(name):
                    self.writers[name].write_columns(chunk[name])
            if self.keep:
                table = _table(chunk[name], _schemas()[name])
                if table.num_rows:
                    self.parts[name].append(table)

    def close(self) -> dict[str, Any]:
        """Closes the files; returns each table as a pandas DataFrame if kept, else None. The
        files hold the rows chunk by chunk (every link's bins of one step, then the next step's);
        the DataFrames are ordered by link (or flow) and time."""
        for name, w in list(self.writers.items()):
            with self._naming(name):
                w.close()
                os.replace(self._path(name) + ".partial", self._path(name))
            del self.writers[name]
        if not self.keep:
            return {name: None for name in self.tables}
        import pyarrow as pa

        schemas = _schemas()
        out = {}
        for name, parts in self.parts.items():
            df = pa.concat_tables(parts or [schemas[name].empty_table()]).to_pandas()
            key = schemas[name].names[0]
            # Each link (flow) in the order it first appears, its rows in time order.
            order = {k: i for i, k in enumerate(dict.fromkeys(df[key]))}
            df = df.sort_values(key, key=lambda col: col.map(order), kind="stable")
            out[name] = df.reset_index(drop=True)
        return out

    def abort(self) -> None:
        """Closes and removes the unfinished files."""
        for name, w in self.writers.items():
            with contextlib.suppress(Exception):
                w.close()
            with contextlib.suppress(FileNotFoundError):
                os.remove(self._path(name) + ".partial")
        self.writers = {}


def _schemas() -> dict[str, pa.Schema]:
    return __getattr__("SCHEMAS")


def _column(values: Any, t: pa.DataType) -> pa.Array:
    """An Arrow array of one column of a chunk. The simulator hands its columns in Arrow's
    layout (``crates/aqmlab-py/src/columns.rs``): a number column as one ``bytes`` of 64-bit
    values, a string column as ``(validity, offsets, data)``; they are wrapped without touching
    each value. A list (the emulator's series, read from JSON) is packed the same way; unlike
    ``pa.array`` this never imports pandas (which ``pa.array`` does, to ask whether its input is
    a pandas object), so ``aqmlab run`` writing Parquet starts a few hundred milliseconds
    sooner."""
    import pyarrow as pa

    if isinstance(values, bytes):
        return pa.Array.from_buffers(t, len(values) // 8, [None, pa.py_buffer(values)])
    if isinstance(values, tuple):
        valid, offsets, data = values
        n = len(offsets) // 4 - 1
        bitmap = None if valid is None else pa.py_buffer(valid)
        return pa.Array.from_buffers(t, n, [bitmap, pa.py_buffer(offsets), pa.py_buffer(data)])
    n = len(values)
    if t == pa.string():
        # None is null: a validity bitmap (bit i set when value i is present) only if needed.
        valid = None
        if None in values:
            bits = bytearray((n + 7) // 8)
            for i, v in enumerate(values):
                if v is not None:
                    bits[i >> 3] |= 1 << (i & 7)
            valid = pa.py_buffer(bytes(bits))
        enc = [b"" if v is None else v.encode() for v in values]
        offsets = array.array("i", itertools.accumulate(map(len, enc), initial=0))
        data = pa.py_buffer(b"".join(enc))
        return pa.Array.from_buffers(t, n, [valid, pa.py_buffer(offsets), data])
    code = "d" if t == pa.float64() else "q"
    return pa.Array.from_buffers(t, n, [None, pa.py_buffer(array.array(code, values))])


def _table(columns: dict[str, list[Any]], schema: pa.Schema) -> pa.Table:
    import pyarrow as pa

    return pa.Table.from_arrays([_column(columns[f.name], f.type) for f in schema], schema=schema)
