"""Jain's fairness index, the one definition every Python caller uses (``aqmlab export``'s
per-bin fairness, ``aqmlab characterize``'s goodput indices, a reproduction's ``[[derive]]``
with ``jain``).

R. Jain, D. Chiu, W. Hawe, "A Quantitative Measure of Fairness and Discrimination for Resource
Allocation in Shared Computer Systems", DEC-TR-301, 1984, the fairness index: for ``n``
allocations ``x_i >= 0``, ``J = (Σx)² / (n·Σx²)``; 1 when every ``x_i`` is equal (and not 0),
``1/n`` when one takes everything, ``k/n`` when ``k`` share equally and the rest have none.
With every ``x_i = 0`` (or no ``x`` at all) it is 0/0: the index is undefined there, and
:func:`index` returns NaN (a caller writing JSON writes ``null``), not 1 ("nothing to be unfair
about") nor 0.

It is computed exactly: each ``x_i`` is a binary fraction ``p_i / 2^k_i``, so scaled to their
largest denominator ``2^k`` they are integers ``N_i``, the ``2^k`` cancels, and ``(ΣN)²`` and
``n·ΣN²`` are exact integers whose quotient Python rounds once, to the nearest float. The
result does not depend on the order of ``xs``, equal values give exactly 1 and one non-zero
value of ``n`` exactly ``1/n`` rounded (summing in floating point, even with ``math.fsum``,
rounds ``x²`` and the product ``n·Σx²`` first: 0.9999999999999998 for three flows of 0.3).
"""

from __future__ import annotations

import math
from collections.abc import Iterable


def index(xs: Iterable[float]) -> float:
    """Jain's index ``(Σx)² / (n·Σx²)`` of ``xs``, computed exactly then rounded once; NaN when
    it is undefined (no value, every value 0, or a value that is not finite)."""
    vals = [x if isinstance(x, int) else float(x) for x in xs]
    if not vals or not all(math.isfinite(x) for x in vals):
        return math.nan
    ratios = [x.as_integer_ratio() for x in vals]
    scale = max(q for _, q in ratios)  # every q a power of 2, so each divides the largest
    ns = [p * (scale // q) for p, q in ratios]
    squares = sum(n * n for n in ns)
    if squares == 0:
        return math.nan
    return sum(ns) ** 2 / (len(ns) * squares)  # int / int: correctly rounded
