"""Reading what aqmlab wrote: run folders and sweep folders (docs/data-format.md).

One reader for every consumer (``aqmlab plot``, ``report``, ``export``, ``reproduce``,
``characterize``):

* :class:`Run`: a run folder: ``summary.json``, ``run.json`` (a sweep's run), the resolved
  scenario, and the series tables (``links``, ``flows``, ``packets``, ``drops``: Parquet, or CSV
  from ``--csv``), with :meth:`Run.arms` for the arms of a ``--compare``, and
  :func:`row_group_batches` to stream a log too long to hold (``lstf-codel``'s reducer);
* :class:`Sweep`: a sweep folder: ``results`` (Parquet or CSV), ``summary.csv``, ``sweep.json``
  and each run's folder under ``runs/``.

Errors for a folder that is not what it should be are one line naming the folder and the file
that is missing.
"""

from __future__ import annotations

import json
import os
from functools import cached_property
from typing import Any

from aqmlab.exceptions import AqmlabError

#: The series tables a run may write, each as NAME.parquet or NAME.csv.
SERIES = ("links", "flows", "packets", "drops")
#: Subfolders of a run folder that are not ``--compare`` arms.
NOT_ARMS = ("runs", "figures")


def read_table(folder: str, name: str) -> Any:
    """``folder/NAME.parquet`` (or ``NAME.csv``) as a DataFrame; None when neither exists."""
    import pandas as pd

    for ext, reader in (("parquet", pd.read_parquet), ("csv", pd.read_csv)):
        p = os.path.join(folder, f"{name}.{ext}")
        if os.path.exists(p):
            return reader(p)
    return None


#: Rows :func:`row_group_batches` yields at most at a time (a row group of the simulator's
#: logs holds 65,536).
BATCH_ROWS = 1 << 16


def row_group_batches(
    path: str, columns: list[str], link: str | None = None, batch_rows: int = BATCH_ROWS
) -> Any:
    """A series table's Parquet file (``packets.parquet``: a three-day run logs 87 million
    packets) streamed: for each batch of at most ``batch_rows`` rows, in the file's order, a
    tuple of numpy arrays, one per name of ``columns``; only the rows of ``link`` when given.

    Read a row group at a time (the simulator writes 65,536 rows in each), the ``link`` filter
    applied to each, and the group released before the next is read, so memory holds one group
    whatever the file's length: ``ParquetFile.iter_batches`` (pyarrow 26) kept memory allocated
    as it went, about 7 bytes a row, 0.7 GB over a three-day run's log. A file with no rows of
    ``link`` still yields one empty batch per row group."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    if not os.path.isfile(path):
        raise AqmlabError(f"{path}: no such file: the run kept no such series")
    log = pq.ParquetFile(path)
    names = ["link", *columns] if link is not None else list(columns)
    for g in range(log.metadata.num_row_groups):
        group = log.read_row_group(g, columns=names)
        if link is not None:
            group = group.filter(pc.equal(group.column(0), link))
        cols = [group.column(c).to_numpy() for c in columns]
        del group
        n = len(cols[0]) if cols else 0
        for i in range(0, max(n, 1), batch_rows):
            yield tuple(c[i : i + batch_rows] for c in cols)


def read_summary(folder: str) -> Any:
    """A sweep folder's ``summary.csv`` (per point and metric: mean, std, n, 95 % interval)."""
    import pandas as pd

    return pd.read_csv(os.path.join(folder, "summary.csv"), low_memory=False)


def is_run(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "summary.json"))


def is_sweep(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "sweep.json"))


def kind(folder: str) -> str:
    """``"sweep"`` or ``"run"``; an error naming both files when the folder is neither."""
    if not os.path.isdir(folder):
        raise AqmlabError(f"{folder}: no such folder")
    if is_sweep(folder):
        return "sweep"
    if is_run(folder):
        return "run"
    raise AqmlabError(
        f"{folder}: neither a run folder (summary.json) nor a sweep folder (sweep.json)"
    )


def _json(path: str) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class Run:
    """A run folder. Everything is read when first asked for."""

    def __init__(self, folder: str):
        if not is_run(folder):
            raise AqmlabError(f"{folder}: no summary.json here: not a run folder")
        self.folder = folder

    @cached_property
    def summary(self) -> dict[str, Any]:
        return _json(os.path.join(self.folder, "summary.json"))

    @cached_property
    def reduced(self) -> dict[str, Any]:
        """``reduced.json``: what a sweep's ``reduce`` function computed from the run."""
        path = os.path.join(self.folder, "reduced.json")
        if not os.path.isfile(path):
            raise AqmlabError(f"{self.folder}: no reduced.json: the run was not reduced")
        return _json(path)

    @cached_property
    def manifest(self) -> dict[str, Any] | None:
        """``run.json`` (which point and seed of a sweep, and how it was made), or None."""
        path = os.path.join(self.folder, "run.json")
        return _json(path) if os.path.isfile(path) else None

    @cached_property
    def resolved_toml(self) -> str | None:
        path = os.path.join(self.folder, "scenario.resolved.toml")
        if not os.path.isfile(path):
            return None
        with open(path, encoding="utf-8") as f:
            return f.read()

    def table(self, name: str) -> Any:
        """A series table (``links``, ``flows``, ``packets``, ``drops``), or None."""
        return read_table(self.folder, name)

    def arms(self) -> list[tuple[str, Run]]:
        """``(label, run)`` of this run (``"as written"``) and of its ``--compare`` arms."""
        out: list[tuple[str, Run]] = [("as written", self)]
        for name in sorted(os.listdir(self.folder)):
            sub = os.path.join(self.folder, name)
            if name not in NOT_ARMS and is_run(sub):
                out.append((name, Run(sub)))
        return out

    # Series of one link, from the Parquet files (the reproductions' and characterize's
    # readers: a filter pushed down to the file instead of reading every link).

    def link_series(self, link: str) -> Any:
        """The ``links`` series of ``link``, by time."""
        import pandas as pd

        df = pd.read_parquet(
            os.path.join(self.folder, "links.parquet"), filters=[("link", "=", link)]
        )
        return df.sort_values("t_s").reset_index(drop=True)

    def arrow(self, name: str, columns: list[str] | None = None, link: str | None = None) -> Any:
        """Series table ``name``'s Parquet file as a pyarrow Table: the ``columns`` asked for
        (all when None), the rows of one ``link`` when given (the filter is pushed down)."""
        import pyarrow.parquet as pq

        path = os.path.join(self.folder, f"{name}.parquet")
        if not os.path.isfile(path):
            raise AqmlabError(f"{self.folder}: no {name}.parquet: the run kept no {name} series")
        filters = [("link", "=", link)] if link is not None else None
        return pq.read_table(path, columns=columns, filters=filters)

    def packets(self, columns: list[str], link: str | None = None) -> Any:
        """Columns of the packet log (a pyarrow Table), of one link when ``link`` is given."""
        return self.arrow("packets", columns, link)

    def packet_batches(
        self, columns: list[str], link: str | None = None, batch_rows: int = BATCH_ROWS
    ) -> Any:
        """The packet log streamed a row group at a time (:func:`row_group_batches`)."""
        return row_group_batches(
            os.path.join(self.folder, "packets.parquet"), columns, link, batch_rows
        )

    def drops(self, columns: list[str], link: str | None = None) -> Any:
        return self.arrow("drops", columns, link)

    def sojourns_ms(self, link: str) -> tuple[Any, Any]:
        """``(t_s, sojourn_ms)`` numpy arrays of every packet the log has for ``link``."""
        import numpy as np

        t = self.packets(["link", "t_ns", "sojourn_ns"], link)
        return (
            t.column("t_ns").to_numpy().astype(np.float64) / 1e9,
            t.column("sojourn_ns").to_numpy().astype(np.float64) / 1e6,
        )


class Sweep:
    """A sweep folder."""

    def __init__(self, folder: str):
        self.folder = folder
        names = ("results.parquet", "results.csv")
        if not any(os.path.isfile(os.path.join(folder, n)) for n in names):
            raise AqmlabError(
                f"{folder}: no results.parquet or results.csv here: not a sweep folder"
            )

    @cached_property
    def results(self) -> Any:
        """One row per point and seed (the axes' columns, ``seed``, ``run``, ``error`` and
        every metric)."""
        return read_table(self.folder, "results")

    @cached_property
    def summary(self) -> Any:
        """Per point and metric: mean, std, n and the 95 % interval over seeds."""
        return read_summary(self.folder)

    @cached_property
    def manifest(self) -> dict[str, Any]:
        """``sweep.json``: the spec, the command, the version and the runs."""
        path = os.path.join(self.folder, "sweep.json")
        if not os.path.isfile(path):
            raise AqmlabError(f"{self.folder}: no sweep.json here: not a sweep folder")
        return _json(path)

    @property
    def columns(self) -> list[str]:
        """The sweep's axes' columns."""
        return list(self.manifest["columns"])

    def run_folder(self, key: str) -> str:
        return os.path.join(self.folder, "runs", str(key))

    def run(self, key: str) -> Run:
        """The folder of run ``key`` (the results' ``run`` column)."""
        return Run(self.run_folder(key))
