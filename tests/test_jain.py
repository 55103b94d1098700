"""Jain's fairness index, the one function every Python caller uses (aqmlab.jain.index):
(Σx)²/(n·Σx²) (Jain, Chiu & Hawe, DEC-TR-301, 1984) with exact values, the all-zero case
undefined (0/0: NaN), and each caller writing it as its output expects."""

from __future__ import annotations

import math

import pytest
from aqmlab.jain import index


def test_exact_values_of_the_definition():
    # Equal flows: exactly 1, also where floating-point sums round (three flows of 0.3: the
    # sums of x and x² rounded first gave 0.9999999999999998).
    assert index([0.3, 0.3, 0.3]) == 1.0
    assert index([0.1] * 5) == 1.0
    assert index([7, 7]) == 1.0  # integers (byte counts) too
    # One flow: 1, whatever its value.
    assert index([0.7]) == 1.0
    # One non-zero of n: exactly 1/n rounded (0.7 of three: 0.33333333333333337 before).
    assert index([0.7, 0.0, 0.0]) == 1 / 3
    assert index([0.0, 0.0, 3.3, 0.0, 0.0, 0.0]) == 1 / 6
    # k of n sharing equally: k/n; 1 and 3: 4² / (2 · 10) = 0.8.
    assert index([2.5, 0.0, 2.5, 0.0]) == 0.5
    assert index([1.0, 3.0]) == 0.8


def test_the_all_zero_case_is_undefined():
    """Every x = 0 (or none at all) is 0/0: NaN, neither 1 nor 0 nor None."""
    for xs in ([0.0, 0.0], [0.0], [0, 0, 0], []):
        j = index(xs)
        assert isinstance(j, float) and math.isnan(j), xs
    assert math.isnan(index([1.0, math.nan])) and math.isnan(index([math.inf, 1.0]))


def test_order_free_and_no_overflow():
    # Summed left to right, 2^53 + 1 + 1 loses both ones. Exactly, J = (2^53 + 2)² / (3 ·
    # (2^106 + 2)) = 1/3 · (1 + 2^-51) and a little; the float 1/3 is 1/3 - 2^-54/3, so J is
    # 3 units of 2^-54 (and a little) above it, which is 3 ulps: in either order.
    xs = [2.0**53, 1.0, 1.0]
    assert index(xs) == index(xs[::-1]) == 1 / 3 + 3 * 2**-54
    # (Σx)² of 1e200 overflows a float; the index is still 1.
    assert index([1e200, 1e200]) == 1.0


def test_callers_write_it_as_their_output_expects():
    """aqmlab export writes an undefined bin's fairness as null (flent's JSON); a
    reproduction's [[derive]] with jain leaves the run with no value (NaN)."""
    pd = pytest.importorskip("pandas")
    from aqmlab.export import _fairness
    from aqmlab.reproduce.metrics import derive, load_derives

    assert _fairness([0.0, 0.0]) is None
    assert _fairness([0.3, 0.3, 0.3]) == 1.0
    df = pd.DataFrame(
        {
            "flows[0].d": [0, 1],
            "flows[0].a": [10, 10],
            "flows[1].d": [0, 0],
            "flows[1].a": [10, 10],
        }
    )
    jain = {"groups": {"A": [0], "B": [1]}, "numerator": "flows[{flow}].d"}
    jain["denominator"] = "flows[{flow}].a"
    out = derive(df, load_derives("e.toml", [{"name": "j", "jain": jain}], ["s"]), "s", str)
    assert math.isnan(out["j"][0])  # no drop anywhere: undefined
    assert out["j"][1] == 0.5  # one class of two takes every drop
