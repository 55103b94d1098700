"""A finished sweep as pandas sees it: :class:`SweepResult` (the results and summary tables,
made into DataFrames on first use), the seed-spread checks on a summary DataFrame, and the
results table built by pandas (:func:`results_frame`, written by :func:`write_frames`): the
reference :mod:`aqmlab.sweeptable` is tested against and its fallback for the columns only
pandas models. Nothing here imports pandas until it is used: a sweep's command line never
does."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aqmlab.sweepspec import SweepSpec


class SweepResult:
    """A finished sweep: the results table (one row per run), the summary over seeds, the
    number of runs simulated now and found in the cache, and the failures.

    ``results`` and ``summary`` are pandas DataFrames, made on first use (from the table the
    sweep wrote, which needs no pandas: a sweep's command line never imports it)."""

    def __init__(
        self,
        results: Any,
        summary: Any,
        out: str,
        ran: int,
        cached: int,
        failed: int,
        *,
        table: Any = None,
        summary_table: Any = None,
        columns: Sequence[str] = (),
    ) -> None:
        self._results, self._summary = results, summary
        self.out, self.ran, self.cached, self.failed = out, ran, cached, failed
        #: The results and summary as :class:`aqmlab.sweeptable.Table` (None when pandas
        #: built them).
        self.table, self.summary_table = table, summary_table
        self.columns = list(columns)

    @property
    def results(self) -> Any:
        if self._results is None and self.table is not None:
            self._results = self.table.to_pandas()
        return self._results

    @property
    def summary(self) -> Any:
        if self._summary is None:
            # The summary the sweep wrote, not a second computation of it.
            self._summary = self.summary_table.to_pandas()
        return self._summary

    @property
    def rows(self) -> int:
        """The number of runs in the results table."""
        return len(self.table) if self.table is not None else len(self.results)

    @property
    def seeds_identical(self) -> bool:
        """Whether several seeds ran and gave the same value of every metric at every point:
        the scenario draws nothing at random, so its confidence intervals are ±0 for no
        statistical reason."""
        if self._summary is None and self.summary_table is not None:
            from aqmlab.sweeptable import seeds_identical

            return seeds_identical(self.summary_table)
        s = self.summary
        multi = s[s["n"] >= 2]
        return len(multi) > 0 and bool(no_spread(multi).all())


def no_spread(summary: Any) -> Any:
    """Per row of a summary table: whether its seeds gave one value. Identical values' std
    comes out as rounding noise (about 1e-13 of the mean), not exactly 0."""
    return summary["std"].fillna(0) <= 1e-9 * summary["mean"].abs().fillna(0)


def identical_seed_groups(summary: Any) -> list[tuple[Any, ...]]:
    """The points of a summary table (its columns before ``metric``) where two or more seeds
    ran and every metric came out the same: seeds that drew nothing."""
    keys = list(summary.columns[: list(summary.columns).index("metric")])
    multi = summary[summary["n"] >= 2]
    groups = multi.groupby(keys, sort=False) if keys else [((), multi)]
    found = []
    for key, g in groups:
        if len(g) and bool(no_spread(g).all()):
            found.append(key if isinstance(key, tuple) else (key,))
    return found


def results_frame(spec: SweepSpec, rows: list[dict[str, Any]]) -> Any:
    """The results table built by pandas (:mod:`aqmlab.sweeptable` builds the same without it;
    this is its reference, and its fallback)."""
    import pandas as pd

    from aqmlab.metrics import is_zero_filled

    df = pd.DataFrame(rows)
    for c in ("run", "error"):
        df[c] = df[c].astype("string")
    for c in spec.columns:
        if not pd.api.types.is_numeric_dtype(df[c]) or df[c].dtype == bool:
            df[c] = df[c].astype("string")
    ok = df["error"].isna()
    for c in df.columns:
        if is_zero_filled(c):
            df.loc[ok, c] = df.loc[ok, c].fillna(0)
        if c.endswith(".qdisc"):
            df[c] = df[c].astype("string")
    if df["seed"].isna().any():
        df["seed"] = df["seed"].astype("Int64")
    else:
        df["seed"] = df["seed"].astype("int64")
    return df


def write_frames(out: str, results: Any, summary: Any) -> None:
    """Writes the tables pandas built (:func:`results_frame`) with pyarrow and pandas."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from aqmlab.sweeptable import put

    table = pa.Table.from_pandas(results, preserve_index=False)
    put(out, "results.parquet", lambda p: pq.write_table(table, p))
    put(out, "results.csv", lambda p: results.to_csv(p, index=False))
    put(out, "summary.csv", lambda p: summary.to_csv(p, index=False))
