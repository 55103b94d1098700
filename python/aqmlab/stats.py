"""Statistics over seeds, as papers report them (scipy.stats does the arithmetic).

* :func:`summarize`: per point, the mean, sample standard deviation, n and the 95 % Student-t
  confidence interval of the mean of every metric (a sweep's ``summary.csv``);
* :func:`welch_t`: Welch's unequal-variances t-test of two samples' means;
* :func:`f_test`: the F-test of two samples' variances (two-sided).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: The columns of :func:`summarize`'s table after the point's own columns.
SUMMARY_COLUMNS = ["metric", "mean", "std", "n", "ci95_low", "ci95_high"]


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, int, float]:
    """``(mean, sample std, n, half-width of the t confidence interval)`` of ``values``; NaN
    where undefined (std and the interval need two values)."""
    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, 0, math.nan
    mean = math.fsum(xs) / n
    if n == 1:
        return mean, math.nan, 1, math.nan
    std = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    half = t_quantile(0.5 + confidence / 2, n - 1) * std / math.sqrt(n)
    return mean, std, n, half


def summary_row(point: dict[str, Any], metric: str, values: Sequence[float]) -> dict[str, Any]:
    """One row of a sweep's summary table: the point's axis values, then ``metric``'s mean,
    standard deviation, count and 95 % interval over ``values`` (NaN left out, as
    :func:`mean_ci`)."""
    mean, std, n, half = mean_ci(values)
    return {
        **point,
        "metric": metric,
        "mean": mean,
        "std": std,
        "n": n,
        "ci95_low": mean - half,
        "ci95_high": mean + half,
    }


@functools.lru_cache(maxsize=256)
def t_quantile(q: float, dof: int) -> float:
    """Student's t quantile, cached: a summary asks for the same few thousands of times.
    ``scipy.special.stdtrit`` is the function ``scipy.stats.t.ppf`` evaluates; the 95 %
    interval's quantiles up to 1000 degrees of freedom are its values tabled
    (:mod:`aqmlab.t_table`), so that a sweep's summary imports no scipy."""
    from aqmlab.t_table import T975, Q

    if q == Q and 1 <= dof <= len(T975):
        return T975[dof - 1]
    from scipy.special import stdtrit

    return float(stdtrit(dof, q))


def summarize(results: Any, by: Sequence[str], metrics: Sequence[str] | None = None) -> Any:
    """One row per point (the distinct values of the columns ``by``) and metric: mean, sample
    standard deviation (ddof = 1), n (runs with a value) and the 95 % t interval of the mean.
    ``results`` is a sweep's results DataFrame; failed runs (``error`` set) are left out.
    Points keep their order of first appearance; metrics their column order."""
    import pandas as pd

    df = results
    if "error" in df.columns:
        df = df[df["error"].isna()]
    if metrics is None:
        skip = set(by) | {"seed", "run", "error"}
        metrics = [c for c in df.columns if c not in skip and pd.api.types.is_numeric_dtype(df[c])]
    rows = []
    groups = df.groupby(list(by), sort=False, dropna=False) if by else [((), df)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        point = dict(zip(by, key))
        # The group's metrics as one float array (None and NA become NaN, which mean_ci
        # leaves out): one conversion, not one pandas lookup per metric.
        columns = g[list(metrics)].to_numpy(dtype=float, na_value=math.nan).T.tolist()
        for m, values in zip(metrics, columns):
            rows.append(summary_row(point, m, values))
    return pd.DataFrame(rows, columns=[*by, *SUMMARY_COLUMNS])


@dataclass
class TestResult:
    """A test statistic, its degrees of freedom and the two-sided p-value."""

    statistic: float
    df: float | tuple[float, float]
    p_value: float


def welch_t(a: Sequence[float], b: Sequence[float]) -> TestResult:
    """Welch's t-test of equal means without assuming equal variances (two-sided):
    t = (mean_a - mean_b) / sqrt(s_a²/n_a + s_b²/n_b), Welch-Satterthwaite degrees of freedom."""
    from scipy import stats

    a, b = [float(x) for x in a], [float(x) for x in b]
    if len(a) < 2 or len(b) < 2:
        raise ValueError("welch_t: each sample needs at least two values")
    r = stats.ttest_ind(a, b, equal_var=False)
    va, vb = _var(a) / len(a), _var(b) / len(b)
    dof = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1)) if va + vb else math.nan
    return TestResult(float(r.statistic), dof, float(r.pvalue))


def f_test(a: Sequence[float], b: Sequence[float]) -> TestResult:
    """The F-test of equal variances (two-sided): F = s_a² / s_b² with (n_a - 1, n_b - 1)
    degrees of freedom; p = 2·min(P(F' ≤ F), P(F' ≥ F)). Assumes normal samples."""
    from scipy import stats

    a, b = [float(x) for x in a], [float(x) for x in b]
    if len(a) < 2 or len(b) < 2:
        raise ValueError("f_test: each sample needs at least two values")
    va, vb = _var(a), _var(b)
    if vb == 0:
        raise ValueError("f_test: the second sample has zero variance")
    f = va / vb
    d1, d2 = len(a) - 1, len(b) - 1
    p = 2 * min(stats.f.cdf(f, d1, d2), stats.f.sf(f, d1, d2))
    return TestResult(f, (d1, d2), float(min(1.0, p)))


def _var(xs: list[float]) -> float:
    m = math.fsum(xs) / len(xs)
    return math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1)
