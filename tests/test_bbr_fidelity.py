"""Issue 22: BBR v1 against ns-3 3.37's ``TcpBbr`` carrying our fix of its rate estimator.

``tests/fidelity/bbr-{alone,cubic}-b{83,1000}.toml`` are the set-up that
``tests/fidelity/ns3/bbr.cc`` builds in ns-3 (one BBR flow alone or beside one CUBIC flow,
10 Mb/s x 10 ms tail-drop bottleneck of 83 or 1000 packets, RTT 100 ms). ns-3 3.37 as installed
(runs in ``tests/fidelity/ns3/bbr.json``) loses its bandwidth estimate for good after a
retransmission timeout (ns-3 issues #735 and #1026, fixed in 3.41-3.42): every 83-packet run
ends near 0.01 Mb/s. The reference is 3.37 with our patch of its rate estimator
(``bbr-fixed.sh``, ``bbr-rate-fix.patch``; runs, seeds 1-10, in ``bbr-fixed.json``;
``tests/fidelity/ns3/bbr.md``). Figures over [50, 100) s, means over the seeds.

83 packets: each mean within 25 % of the patched ns-3's (as for DCTCP).

1000 packets: each mean within three standard errors of the difference of two 10-seed means
drawn with ns-3's own seed-to-seed spread (``3 x sd x sqrt(2 / n)``), at least 1 % of ns-3's
mean where its seeds do not spread (BBR alone delivers 9.449 Mb/s on every seed). All agree.
The CUBIC flow is Linux's (``cubic_linux``), as ns-3 3.37's ``TcpCubic`` is (HyStart on): with
the plain RFC 9438 CUBIC the shares beside CUBIC did not agree (aqmlab's BBR 3.03 Mb/s against
ns-3's 1.57; bbr.md, "BBR's model state over time"). CUBIC in BBR's place fails each set-up's
check.
"""

import functools
import json
import math
import statistics

import aqmlab
import pytest
from conftest import ROOT

FIDELITY = ROOT / "tests" / "fidelity"
TOLERANCE = 0.25
FIXED = "bbr-fixed.json"
SEEDS = list(range(1, 11))
# 1000 packets: the band is ns-3's mean +- SIGMAS standard errors of the difference of two
# SEEDS-seed means with ns-3's seed-to-seed spread, at least FLOOR x the mean.
SIGMAS = 3.0
FLOOR = 0.01


def ns3_runs(mix: str, buffer: int, file: str = "bbr.json") -> list[dict]:
    text = (FIDELITY / "ns3" / file).read_text()
    decoder = json.JSONDecoder()
    rows, i = [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        row, i = decoder.raw_decode(text, i)
        rows.append(row)
    runs = [r for r in rows if r["mix"] == mix and r["buffer"] == buffer]
    assert runs, f"no ns-3 run for {mix}, {buffer} packets"
    return runs


def comparable(runs: list[dict]) -> list[dict]:
    """The runs 3.37's timeout bug did not touch: no timeout of the BBR flow (flow 0)."""
    return [r for r in runs if r["flows"][0]["rtos"] == 0]


def figures_ns3(r: dict) -> dict[str, float]:
    out = {f"goodput_{f['cc']}_mbps": f["goodput_mbps"] for f in r["flows"]}
    out["queue_pkts"] = r["mean_qdisc_pkts"] + r["mean_device_queue_pkts"]
    return out


@functools.cache
def figures_aqmlab(mix: str, buffer: int, seed: int, cc: str = "bbr") -> dict[str, float]:
    # CUBIC in BBR's place is ns-3's TcpCubic as the other flow is: Linux's (cubic_linux).
    sets: dict[str, object] = {"flows[0].cc": cc}
    if cc == "cubic":
        sets["flows[0].cubic_linux"] = True
    r = aqmlab.run(str(FIDELITY / f"bbr-{mix}-b{buffer}.toml"), seed=seed, set=sets)
    w = r.summary["windows"]["after_warmup"]
    assert (w["from_s"], w["to_s"]) == (50.0, 100.0)
    lk = r.links
    lk = lk[(lk.link == "bottleneck") & (lk.t_s >= 50.0) & (lk.t_s < 100.0)]
    names = ["bbr", "cubic"]
    out = {f"goodput_{names[i]}_mbps": f["goodput_bps"] / 1e6 for i, f in enumerate(w["flows"])}
    out["queue_pkts"] = float(lk.mean_backlog_pkts.mean())
    return out


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: sum(r[k] for r in rows) / len(rows) for k in rows[0]}


def outside(mix: str, buffer: int, ref_runs: list[dict], cc: str = "bbr") -> list[str]:
    """83 packets: each mean within 25 % of ns-3's; the lone flow's queue within 25 % of the
    range of ns-3's seeds."""
    ref = mean([figures_ns3(r) for r in ref_runs])
    ours = mean([figures_aqmlab(mix, buffer, r["seed"], cc) for r in ref_runs])
    bad = []
    for key, want in ref.items():
        lo, hi = (1 - TOLERANCE) * want, (1 + TOLERANCE) * want
        if key == "queue_pkts" and mix == "alone":
            qs = [figures_ns3(r)["queue_pkts"] for r in ref_runs]
            lo, hi = (1 - TOLERANCE) * min(qs), (1 + TOLERANCE) * max(qs)
        if not lo <= ours[key] <= hi:
            bad.append(f"{key}: aqmlab {ours[key]:.2f}, ns-3 {want:.2f} [{lo:.2f}, {hi:.2f}]")
    return bad


def test_installed_ns3_collapses_where_the_patched_one_does_not():
    # 3.37's timeout bug: every 83-packet run of the installed 3.37 has BBR timeouts and its
    # goodput collapses; the patched 3.37 has timeouts in the same set-ups and keeps its rate.
    # (The installed 3.37's 83-packet runs: seeds 1-3; the patched: 1-10.)
    for mix in ("alone", "cubic"):
        runs = ns3_runs(mix, 83)
        assert comparable(runs) == []
        assert all(r["flows"][0]["goodput_mbps"] < 1.0 for r in runs)
        fixed = ns3_runs(mix, 83, FIXED)
        assert all(r["flows"][0]["rtos"] > 0 for r in fixed)
        # More than half the link (beside CUBIC it has 7.98-8.38 Mb/s), not 0.01.
        assert all(r["flows"][0]["goodput_mbps"] > 5.0 for r in fixed)


def test_bbr_keeps_its_rate_and_a_short_queue_in_a_one_bdp_buffer():
    # In one BDP of buffer (83 packets), BBR alone must fill the link
    # (payload ceiling 10 Mb/s x 1460/1500 = 9.73 Mb/s, less PROBE_RTT and the 1 % pacing
    # margin) with a queue of a few packets, as in its 1000-packet runs.
    f = figures_aqmlab("alone", 83, 1)
    assert f["goodput_bbr_mbps"] > 9.0
    assert f["queue_pkts"] < 15


# ns-3 3.37 with its rate-sample bugs patched (bbr-fixed.sh, bbr-rate-fix.patch; bbr.md, "3.37
# with the timeout collapse fixed"), every seed.


@pytest.mark.parametrize("mix", ["alone", "cubic"])
def test_bbr_agrees_with_patched_ns3_in_one_bdp_within_25_percent(mix):
    assert outside(mix, 83, ns3_runs(mix, 83, FIXED)) == []


@pytest.mark.parametrize("mix", ["alone", "cubic"])
def test_cubic_in_bbrs_place_does_not_agree_with_patched_ns3(mix):
    assert outside(mix, 83, ns3_runs(mix, 83, FIXED), cc="cubic") != []


def band(values: list[float]) -> tuple[float, float]:
    """ns-3's mean +- 3 standard errors of a difference of two means of len(values) seeds
    with ns-3's spread (at least 1 % of the mean)."""
    m = statistics.fmean(values)
    half = max(SIGMAS * statistics.stdev(values) * math.sqrt(2 / len(values)), FLOOR * m)
    return m - half, m + half


def deep_buffer_check(mix: str, key: str, cc: str = "bbr") -> str | None:
    """None if aqmlab's mean of `key` over the ns-3 seeds lies in ns-3's band, else why not."""
    runs = ns3_runs(mix, 1000, FIXED)
    assert [r["seed"] for r in runs] == SEEDS
    lo, hi = band([figures_ns3(r)[key] for r in runs])
    ours = statistics.fmean(figures_aqmlab(mix, 1000, r["seed"], cc)[key] for r in runs)
    if lo <= ours <= hi:
        return None
    return f"{key}: aqmlab {ours:.3f} outside ns-3's [{lo:.3f}, {hi:.3f}]"


@pytest.mark.parametrize(
    ("mix", "key"),
    [
        ("alone", "goodput_bbr_mbps"),
        ("alone", "queue_pkts"),
        ("cubic", "queue_pkts"),
        ("cubic", "goodput_bbr_mbps"),
        ("cubic", "goodput_cubic_mbps"),
    ],
)
def test_bbr_agrees_with_patched_ns3_in_1000_packets_within_its_seed_spread(mix, key):
    assert deep_buffer_check(mix, key) is None


@pytest.mark.parametrize(
    ("mix", "key"),
    [("alone", "queue_pkts"), ("cubic", "goodput_bbr_mbps"), ("cubic", "goodput_cubic_mbps")],
)
def test_cubic_in_bbrs_place_fails_the_1000_packet_check(mix, key):
    # Alone CUBIC fills the 1000-packet buffer (queue 827 packets); beside CUBIC it takes half
    # the link. (Beside CUBIC the queue does not tell them apart: CUBIC in BBR's place gives
    # 859 packets, inside ns-3's band; the shares do.)
    assert deep_buffer_check(mix, key, cc="cubic") is not None
