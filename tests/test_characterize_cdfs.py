"""RFC 7928 §2.5-2.6's distributions in ``aqmlab characterize``: the one-way delay per packet
rebuilt from the bottleneck's log against the receivers' exact quantiles (and the queueing
delay alone, the counterfactual, against them), PDV as RFC 5481 §4.2 defines it, the goodput
samples every 10·minRTT against the summary's goodput, and the quantiles averaged over seeds."""

import numpy as np
import pytest
from aqmlab.characterize import distributions
from aqmlab.characterize.catalog import build, templates
from aqmlab.characterize.measures import CDF_POINTS, CDFS, packet_delays, reduce_run
from aqmlab.results import Run
from aqmlab.run import run


@pytest.fixture(scope="module")
def mild(tmp_path_factory):
    """§8.2.2's mild congestion (6 NewReno flows at 10 Mb/s, 100 ms), 12 s, tail drop (a queue
    that varies over tens of ms), seed 1."""
    t = next(t for t in templates() if t.id == "8.2.2-mild")
    b = build(t, {"name": ""}, 10e6, 0.1, True)
    b.scenario["duration"] = "12s"
    out = tmp_path_factory.mktemp("mild") / "run"
    run(b.scenario, out, seed=1, qdisc={"bottleneck": "droptail"}, progress=False)
    return str(out)


def _log(folder):
    r = Run(folder)
    cols = ["link", "t_ns", "sojourn_ns", "size", "flow"]
    pk = r.packets(cols).to_pandas()
    return r.summary, pk[pk["link"] == "bottleneck"]


def test_one_way_delay_per_packet_matches_the_receivers_quantiles(mild):
    summary, pk = _log(mild)
    flows = summary["flows"]
    owd, _ = packet_delays(pk, flows, 0)
    assert sorted(owd) == [f["id"] for f in flows]
    for f in flows:
        exact = f["one_way_delay_ms"]
        got = owd[f["id"]]
        queue_only = pk[(pk["flow"] == f["id"]) & (pk["size"] > 40)]["sojourn_ns"] / 1e6
        assert float(np.ptp(got)) > 20  # tail drop's queue spreads the delays
        for p in ("p50", "p95", "p99"):
            q = int(p[1:]) / 100
            # The receivers' quantiles come from a sketch: a 1.5 % or 1-ms tolerance.
            tol = max(1.0, 0.015 * exact[p])
            assert abs(float(np.quantile(got, q)) - exact[p]) < tol, (f["id"], p)
            # Counterfactual: the queueing delay alone misses it by the propagation delay.
            assert abs(float(np.quantile(queue_only, q)) - exact[p]) > 10 * tol
        assert abs(float(got.max()) - exact["max"]) < 1.0


def test_pdv_is_each_packets_delay_less_the_flows_least(mild):
    summary, pk = _log(mild)
    t0 = 3_000_000_000
    owd, pdv = packet_delays(pk, summary["flows"], t0)
    for fid, d in owd.items():
        assert np.allclose(pdv[fid], d - d.min()) and pdv[fid].min() == 0.0
    # The warm-up is left out: fewer packets than over the whole run.
    whole, _ = packet_delays(pk, summary["flows"], 0)
    assert all(len(owd[f]) < len(whole[f]) for f in owd)


def test_goodput_samples_every_10_min_rtt(mild):
    red = reduce_run(mild, {}, {})
    series = red["goodput_10rtt"]
    assert series["bin_s"] == pytest.approx(1.0)  # 10 × the 100-ms base RTT
    summary = Run(mild).summary
    win = summary["windows"]["after_warmup"]["flows"]
    for f, values in series["flows"].items():
        vals = [v for v in values if v is not None]
        assert len(vals) >= 7  # the bins from the 3-s warm-up to the last whole one
        # Independent: the mean of a flow's samples against its goodput after the warm-up.
        assert np.mean(vals) == pytest.approx(win[int(f)]["goodput_bps"] / 1e6, rel=0.1)
    pooled = [v for vs in series["flows"].values() for v in vs if v is not None]
    cdf = red["goodput_10rtt_cdf_mbps"]
    assert len(cdf) == CDF_POINTS and cdf[0] == min(pooled) and cdf[-1] == max(pooled)
    assert red["metrics"]["goodput_10rtt_p50_mbps"] == pytest.approx(np.median(pooled))
    for key in CDFS.values():
        assert len(red[key]) == CDF_POINTS and np.all(np.diff(red[key]) >= 0), key


def test_distributions_average_the_seeds_quantiles():
    runs = [
        {"sojourn_cdf_ms": [0.0, 1.0, 2.0], "owd_cdf_ms": [50.0, 51.0, 60.0]},
        {"sojourn_cdf_ms": [2.0, 3.0, 4.0], "owd_cdf_ms": []},  # no data packets: left out
    ]
    d = distributions(runs)
    assert d["queue_delay_ms"] == {"quantiles": [1.0, 2.0, 3.0], "n": 2}
    assert d["owd_ms"] == {"quantiles": [50.0, 51.0, 60.0], "n": 1}
    assert "pdv_ms" not in d and "goodput_10rtt_mbps" not in d
