"""Two-sample tests as a named number (docs/reproductions.md, "Metrics as data"): a
``[numbers.NAME]`` with ``test = "two-sample"`` runs Welch's t-test of the means and the F-test
of the variances (:func:`aqmlab.stats.welch_t`, :func:`aqmlab.stats.f_test`; scipy.stats does
the arithmetic) on two samples, each a list of numbers declared above it (a ``[numbers.NAME]``
whose value is a list: a run's samples, ``reduce = "value"`` of a reduced sweep's column).

* ``a``, ``b``: the paths of the two samples, spelt as a claim's ``metric``. A ``{field}`` in a
  key of ``b``'s path matches any text there (``'_s."LSTF α={alpha}".{kind}'``): the test runs
  for every sample ``b`` names, with ``a``'s path filled from the same fields (those where ``a``
  has no sample are left out); ``key`` lays them out (``["{alpha}", "{kind}"]``). Without
  fields it is one test (an empty table when a sample is missing: a point the mode did not run).
* ``values``: NAME = quantity, what each test's table holds (default: every quantity under
  its own name): ``t`` (Welch's t of mean(a) − mean(b)), ``t_df`` (Welch–Satterthwaite),
  ``t_p`` (two-sided), ``t_p_greater`` / ``t_p_less`` (one-sided: a's mean larger / smaller),
  ``t_low`` / ``t_high`` (the one-sided ``confidence`` bounds of mean(a) − mean(b)), ``f``
  (var(a) ÷ var(b)), ``f_df`` ([n_a − 1, n_b − 1]), ``f_p`` (two-sided), ``f_low`` / ``f_high``
  / ``f_ci`` (the two-sided ``confidence`` interval of the variance ratio, and both as a list).
* ``confidence``: default 0.95.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import AqmlabError

KIND = "two-sample"
QUANTITIES = (
    "t",
    "t_df",
    "t_p",
    "t_p_greater",
    "t_p_less",
    "t_low",
    "t_high",
    "f",
    "f_df",
    "f_p",
    "f_low",
    "f_high",
    "f_ci",
)
KEYS = ("test", "a", "b", "key", "values", "confidence")
#: The quantities that are p values (printed by :func:`p_text`).
P_VALUES = ("t_p", "t_p_greater", "t_p_less", "f_p")


def p_text(p: float) -> str:
    """A p value as the report prints numbers, but one that underflowed to 0 (scipy's F-test
    of very unequal variances) as the bound it is below: the smallest positive double,
    ``"< 4.94e-324"``, never ``"0"``."""
    from aqmlab.reproduce.common import fmt

    return f"< {fmt(math.ulp(0.0))}" if p == 0 else fmt(p)


_FIELD = re.compile(r"\{(\w+)\}")


def tests(a: list[float], b: list[float], confidence: float = 0.95) -> dict[str, Any]:
    """Every quantity of :data:`QUANTITIES` for samples ``a`` and ``b`` (two values each at
    least, ``b``'s variance not 0)."""
    import numpy as np
    from scipy import stats as st

    from aqmlab.stats import f_test, welch_t

    w, f = welch_t(a, b), f_test(a, b)
    ca, cb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    se = math.sqrt(ca.var(ddof=1) / len(ca) + cb.var(ddof=1) / len(cb))
    diff, half = ca.mean() - cb.mean(), st.t.ppf(confidence, w.df) * se
    # One-sided p from the two-sided one (exact halving on the statistic's side).
    p_side = w.p_value / 2
    d1, d2 = f.df
    # The two tails, rounded so that 0.95 gives the quantiles at 0.025 and 0.975 exactly.
    tail = round((1 - confidence) / 2, 12)
    ci = (
        float(f.statistic / st.f.ppf(1 - tail, d1, d2)),
        float(f.statistic / st.f.ppf(tail, d1, d2)),
    )
    return {
        "t": w.statistic,
        "t_df": w.df,
        "t_p": w.p_value,
        "t_p_greater": p_side if w.statistic > 0 else 1 - p_side,
        "t_p_less": p_side if w.statistic < 0 else 1 - p_side,
        "t_low": float(diff - half),
        "t_high": float(diff + half),
        "f": f.statistic,
        "f_df": f.df,
        "f_p": f.p_value,
        "f_low": ci[0],
        "f_high": ci[1],
        "f_ci": ci,
    }


@dataclass
class TwoSampleDef:
    """One ``[numbers.NAME]`` with ``test = "two-sample"``."""

    name: str
    a: str
    b: str
    key: list[str]
    values: dict[str, str]
    confidence: float
    where: str  # "FILE: numbers.NAME" for errors
    fields: list[str] = field(default_factory=list)  # b's {fields}, in order

    def compute(self, numbers: dict[str, Any]) -> Any:
        """The tests over ``numbers`` (those declared above this one)."""
        from aqmlab.reproduce.loader import split_path

        out: dict[str, Any] = {}
        for bound, b in _matches(numbers, split_path(self.b), {}):
            a = _at(numbers, [_fill(k, bound) for k in split_path(self.a)])
            if a is None:
                continue
            where = f"{self.where}: a = {self.a!r}, b = {self.b!r}"
            vals = _tests(_sample(a, where, "a"), _sample(b, where, "b"), self.confidence, where)
            table = {name: vals[q] for name, q in self.values.items()}
            if not self.key:
                return table
            node = out
            levels = [_fill(k, bound) for k in self.key]
            for k in levels[:-1]:
                node = node.setdefault(k, {})
            node[levels[-1]] = table
        return out


def load(name: str, where: str, d: dict[str, Any]) -> TwoSampleDef:
    """A ``[numbers.NAME]`` of ``test = "two-sample"``, checked; every error names the file,
    the table and the key."""
    for k in d:
        if k not in KEYS:
            raise AqmlabError(
                f"{where}.{k}: unknown key for test = {KIND!r} (expected one of {', '.join(KEYS)})"
            )
    if d.get("test") != KIND:
        raise AqmlabError(f"{where}.test: expected {KIND!r}, got {d.get('test')!r}")
    for k in ("a", "b"):
        if not isinstance(d.get(k), str) or not d[k]:
            raise AqmlabError(
                f"{where}.{k}: expected the path of a sample (a list of numbers declared "
                f"above), got {d.get(k)!r}"
            )
    fields = list(dict.fromkeys(_FIELD.findall(d["b"])))
    extra = [f for f in _FIELD.findall(d["a"]) if f not in fields]
    if extra:
        raise AqmlabError(f"{where}.a: field {{{extra[0]}}} is not one of b's ({fields})")
    key = d.get("key", [])
    if not isinstance(key, list) or not all(isinstance(k, str) for k in key):
        raise AqmlabError(f"{where}.key: expected a list of texts, got {key!r}")
    if fields and not key:
        raise AqmlabError(
            f"{where}.key: expected one template per level for b's fields, like "
            f'["{{{fields[0]}}}"]'
        )
    extra = [f for k in key for f in _FIELD.findall(k) if f not in fields]
    if extra:
        raise AqmlabError(f"{where}.key: field {{{extra[0]}}} is not one of b's ({fields})")
    values = d.get("values", {q: q for q in QUANTITIES})
    if not isinstance(values, dict) or not values:
        raise AqmlabError(f"{where}.values: expected a table of NAME = quantity, got {values!r}")
    bad = [(k, v) for k, v in values.items() if v not in QUANTITIES]
    if bad:
        raise AqmlabError(
            f"{where}.values.{bad[0][0]}: expected one of {', '.join(QUANTITIES)}, "
            f"got {bad[0][1]!r}"
        )
    c = d.get("confidence", 0.95)
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 < c < 1:
        raise AqmlabError(f"{where}.confidence: expected a number between 0 and 1, got {c!r}")
    return TwoSampleDef(name, d["a"], d["b"], key, dict(values), float(c), where, fields)


def _fill(template: str, bound: dict[str, str]) -> str:
    return _FIELD.sub(lambda m: bound[m.group(1)], template)


def _at(numbers: Any, keys: list[str]) -> Any:
    v = numbers
    for k in keys:
        if not isinstance(v, dict) or k not in v:
            return None
        v = v[k]
    return v


def _matches(node: Any, keys: list[str], bound: dict[str, str]) -> list[tuple[dict, Any]]:
    """Every value at the path ``keys`` (a key with ``{fields}`` matching any text), with the
    fields' texts, in the numbers' order."""
    if not keys:
        return [(bound, node)]
    if not isinstance(node, dict):
        return []
    k, rest = keys[0], keys[1:]
    if not _FIELD.search(k):
        return _matches(node[k], rest, bound) if k in node else []
    parts = _FIELD.split(k)  # text, field, text, field, ..., text
    pattern, seen = "", set()
    for i, p in enumerate(parts):
        if i % 2 == 0:
            pattern += re.escape(p)
        elif p in seen:
            pattern += f"(?P={p})"
        else:
            seen.add(p)
            pattern += f"(?P<{p}>.+?)"
    out = []
    for key, sub in node.items():
        m = re.fullmatch(pattern, str(key))
        if m is None:
            continue
        new = m.groupdict()
        if any(bound.get(f, v) != v for f, v in new.items()):
            continue
        out += _matches(sub, rest, {**bound, **new})
    return out


def _sample(v: Any, where: str, which: str) -> list[float]:
    try:
        xs = [float(x) for x in v]
    except (TypeError, ValueError):
        raise AqmlabError(f"{where}: {which} is not a list of numbers") from None
    return xs


def _tests(a: list[float], b: list[float], confidence: float, where: str) -> dict[str, Any]:
    if len(a) < 2 or len(b) < 2:
        raise AqmlabError(f"{where}: each sample needs two values at least")
    try:
        return tests(a, b, confidence)
    except ValueError as e:
        raise AqmlabError(f"{where}: {e}") from None
