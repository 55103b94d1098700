"""The 95 % intervals of ``characterization.json`` cut to each metric's range: a non-negative
metric's t interval with n = 2 reaches below 0 (the counterfactual, the raw interval, does),
the cut end is named, the coverage is that of the t interval, and the report marks the cut."""

import random

from aqmlab.characterize import statistics
from aqmlab.characterize.bounds import RANGES, base, clip
from aqmlab.characterize.report import _cell
from aqmlab.stats import mean_ci


def test_a_delay_interval_with_two_seeds_is_cut_at_zero():
    runs = [{"queue_delay_ms": 1.0, "foo": 1.0}, {"queue_delay_ms": 5.0, "foo": 5.0}]
    mean, _, n, half = mean_ci([1.0, 5.0])
    assert n == 2 and mean - half < 0  # the raw t interval goes below 0 (t(1) = 12.7)
    st = statistics(runs)
    q = st["queue_delay_ms"]
    assert q["mean"] == 3.0 and q["n"] == 2
    assert q["ci95"] == [0.0, mean + half] and q["clipped"] == ["low"]
    # A metric with no declared range is not cut.
    assert st["foo"]["ci95"][0] == mean - half and "clipped" not in st["foo"]


def test_a_ratio_is_cut_at_one_and_an_interval_inside_the_range_is_untouched():
    st = statistics([{"loss_ratio": 0.5, "jain_10rtt[x]": 0.5}, {"loss_ratio": 0.99}])
    lr = st["loss_ratio"]
    assert lr["ci95"][1] == 1.0 and lr["ci95"][0] == 0.0 and lr["clipped"] == ["low", "high"]
    st = statistics([{"owd_ms": 100.0}, {"owd_ms": 101.0}, {"owd_ms": 100.5}])
    mean, _, _, half = mean_ci([100.0, 101.0, 100.5])
    assert st["owd_ms"]["ci95"] == [mean - half, mean + half] and "clipped" not in st["owd_ms"]
    # Phases and groups take their metric's range.
    assert base("queue_delay_ms@mild") == "queue_delay_ms" and base("loss_ratio[aqm1]") == (
        "loss_ratio"
    )
    assert clip("loss_ratio@heavy", -0.1, 1.2)[2] == ["low", "high"]
    assert all(lo == 0.0 for lo, _ in RANGES.values())


def test_the_cut_keeps_the_t_intervals_coverage():
    # Exponential samples (a delay-like, skewed, non-negative metric), n = 2: the true mean is
    # in the cut interval exactly when it is in the t interval.
    rng = random.Random(7)
    mu, hit_raw, hit_cut = 2.0, 0, 0
    for _ in range(2000):
        xs = [rng.expovariate(1 / mu) for _ in range(2)]
        m, _, _, h = mean_ci(xs)
        lo, hi, _ = clip("queue_delay_ms", m - h, m + h)
        hit_raw += m - h <= mu <= m + h
        hit_cut += lo <= mu <= hi
    assert hit_raw == hit_cut and hit_raw > 1700


def test_the_report_marks_a_cut_bound():
    cell = _cell({"mean": 3.0, "ci95": [0.0, 28.4], "n": 2, "clipped": ["low"]})
    assert "[0†, 28.4]" in cell
    assert "†" not in _cell({"mean": 3.0, "ci95": [1.0, 5.0], "n": 2})
