"""Our UDP on/off sources against ns-2.35's (tests/fidelity/ns2/onoff.tcl).

One source, 1000-byte packets at 1 Mb/s (interval 8 ms), mean on time (ns-2's ``burst_time_``)
20 ms and mean off time 20 ms, over a 1-Gb/s link for 4,000 s: ns-2.35's
``Application/Traffic/Pareto`` (tools/pareto.cc) with shapes 2.5 and 1.5, and
``Application/Traffic/Exponential`` (tools/expoo.cc), against ours (``app = "onoff"``, the same
keys). ns-2 runs live (skipped without ``ns``). From the arrival times at the sink, each side's
bursts (runs of packets one interval apart) give:

* the mean packets per burst (ns-2: ``max(1, int(x + 0.5))``, x of mean burst_time/interval);
* the shares of bursts of 1, 2 and 3 packets;
* the offered rate (packets per second: all bursts' packets ÷ the time from the first burst's
  start to the last's);
* with the Pareto sources, that the first packet comes only after an interval and an off period
  (ns-2.35's ``TrafficGenerator::start``, tools/trafgen.cc, calls ``next_interval`` first).

The tolerance: the two sides are independent samples, so each figure's difference must lie
within 4 standard errors of the difference, sqrt(se_ours² + se_ns2²); the standard errors come
from the bursts (the mean's: sd/√bursts; a share's: the binomial one; the rate's: the ratio
estimator's, from the bursts' packets and cycle lengths). With shape 1.5 the burst length has no
finite variance, so only the shares are held there. The counterfactual: our source before it
followed ns-2's rule sent ceil(on/interval) packets in each on period; bursts drawn so from the
same distribution (numpy, same count) fall outside the tolerance on the mean and the shares,
and the old simulator fails this test (its mean burst at shape 2.5 is about 3.0 packets against
ns-2's 2.6).

    python3 tests/test_fidelity_onoff.py      # prints the comparison
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
NS2_SCRIPT = os.path.join(HERE, "fidelity", "ns2", "onoff.tcl")
DURATION_S, SEED = 4000, 1
SIZE, RATE, ON_S, OFF_S = 1000, 1_000_000, 0.020, 0.020
INTERVAL_US = SIZE * 8 * 1_000_000 // RATE  # 8,000 µs
# A gap longer than one interval (plus the trace's rounding to microseconds) starts a burst.
GAP_US = INTERVAL_US + 3
SOURCES = {"pareto 2.5": ("pareto", 2.5), "pareto 1.5": ("pareto", 1.5), "expo": ("expo", None)}
Z = 4.0

SCENARIO = """
duration = "{duration}s"
seed = {seed}

[dumbbell]
senders = 1
access_rate = "1Gbps"
sender_delay = "0ms"
receiver_delay = "0ms"

[dumbbell.bottleneck]
rate = "1Gbps"
delay = "1ms"
qdisc = "droptail"
buffer = "100000p"

[[flows]]
name = "src"
kind = "udp"
from = "s1"
to = "r1"
rate = "1Mbps"
size = {size}
on_time = "20ms"
off_time = "20ms"
{shape}
"""


def ns2_arrivals_us(kind: str, shape: float | None) -> np.ndarray:
    """ns-2.35's arrival times at the sink, in microseconds (its trace's precision)."""
    out = subprocess.run(
        ["ns", NS2_SCRIPT, kind, str(shape or 1.5), str(DURATION_S), str(SEED)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    t = [line.split()[1] for line in out.splitlines() if line.startswith("r ")]
    return np.round(np.array(t, dtype=float) * 1e6).astype(np.int64)


def our_arrivals_us(shape: float | None) -> np.ndarray:
    from aqmlab.run import run

    text = SCENARIO.format(
        duration=DURATION_S,
        seed=SEED,
        size=SIZE,
        shape="" if shape is None else f"onoff_shape = {shape}",
    )
    r = run(text, packet_log=["bottleneck"], progress=False)
    assert r.summary["links"]["bottleneck"]["dropped_pkts"] == 0
    t_ns = r.packets["t_ns"].to_numpy(dtype=np.int64)
    return np.round(t_ns / 1000).astype(np.int64)


def bursts(t_us: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each burst's packets, and each burst's start (µs)."""
    starts = np.flatnonzero(np.diff(t_us, prepend=-(10**12)) > GAP_US)
    n = np.diff(np.append(starts, len(t_us)))
    return n, t_us[starts]


def stats(n: np.ndarray, start_us: np.ndarray | None = None) -> dict[str, tuple[float, float]]:
    """Figure -> (value, standard error) over the bursts ``n`` (with their starts: the rate)."""
    b = len(n)
    out = {"mean burst": (float(n.mean()), float(n.std(ddof=1) / math.sqrt(b)))}
    for k in (1, 2, 3):
        p = float((n == k).mean())
        out[f"share of {k}"] = (p, math.sqrt(p * (1 - p) / b))
    if start_us is not None:
        # Whole cycles only (a burst and the off period after it): all but the last burst.
        cyc = np.diff(start_us) / 1e6
        m = n[:-1]
        rate = m.sum() / cyc.sum()
        se = math.sqrt(((m - rate * cyc) ** 2).sum()) / cyc.sum()
        out["rate pkt/s"] = (float(rate), float(se))
    return out


def held(name: str) -> tuple[str, ...]:
    # With shape 1.5 the mean and the rate have no finite variance: only the shares are held.
    if name == "pareto 1.5":
        return ("share of 1", "share of 2", "share of 3")
    return ("mean burst", "share of 1", "share of 2", "share of 3", "rate pkt/s")


def ceil_rule_bursts(shape: float | None, count: int) -> np.ndarray:
    """The old rule's bursts: ceil(on/interval) with on of mean ON_S (the counterfactual)."""
    rng = np.random.default_rng(7)
    if shape is None:
        on = rng.exponential(ON_S, count)
    else:
        on = ON_S * (shape - 1) / shape / rng.random(count) ** (1 / shape)
    return np.ceil(on / (INTERVAL_US / 1e6)).astype(np.int64)


def outside(a: dict, b: dict, keys: tuple[str, ...]) -> list[str]:
    bad = []
    for k in keys:
        (x, sx), (y, sy) = a[k], b[k]
        if abs(x - y) > Z * math.hypot(sx, sy):
            bad.append(f"{k}: ours {x:.4g} ± {sx:.2g}, ns-2.35 {y:.4g} ± {sy:.2g}")
    return bad


needs_ns = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (ns) is not installed")


@needs_ns
@pytest.mark.parametrize("name", list(SOURCES))
def test_onoff_source_bursts_as_ns2s(name: str) -> None:
    kind, shape = SOURCES[name]
    t_ns2, t_ours = ns2_arrivals_us(kind, shape), our_arrivals_us(shape)
    ns2, ours = stats(*bursts(t_ns2)), stats(*bursts(t_ours))
    assert outside(ours, ns2, held(name)) == []
    if shape is not None:
        # Both start with an interval and an off period (TrafficGenerator::start calls
        # next_interval first): the first packet leaves at least interval + the Pareto off
        # period's minimum after 0 (ns-2's times are arrivals, ours the bottleneck's sends).
        first_us = INTERVAL_US + OFF_S * (shape - 1) / shape * 1e6
        assert t_ns2[0] >= first_us and t_ours[0] >= first_us, (t_ns2[0], t_ours[0])
    # The counterfactual: the old rule's bursts, as many as ns-2's, are told apart.
    n_ns2 = int(round(DURATION_S / (ns2["mean burst"][0] * INTERVAL_US / 1e6 + OFF_S)))
    old = stats(ceil_rule_bursts(shape, n_ns2))
    keys = tuple(k for k in held(name) if k != "rate pkt/s")
    assert outside(old, ns2, keys) != []


def main() -> int:
    if shutil.which("ns") is None:
        print("test_fidelity_onoff.py: ns-2 (ns) is not installed", file=sys.stderr)
        return 2
    for name, (kind, shape) in SOURCES.items():
        ns2 = stats(*bursts(ns2_arrivals_us(kind, shape)))
        ours = stats(*bursts(our_arrivals_us(shape)))
        print(f"{name}:")
        for k in ns2:
            (x, sx), (y, sy) = ours[k], ns2[k]
            mark = "" if k in held(name) and abs(x - y) <= Z * math.hypot(sx, sy) else ""
            mark = "  ✗" if k in held(name) and abs(x - y) > Z * math.hypot(sx, sy) else mark
            print(f"  {k:12} ours {x:9.4f} ± {sx:.4f}   ns-2.35 {y:9.4f} ± {sy:.4f}{mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
