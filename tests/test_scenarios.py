"""The bundled scenarios run end to end; the CoDel dynamic link shows the paper's result."""

import aqmlab
import pytest
from conftest import ROOT, run_cli

SCEN = ROOT / "scenarios"


@pytest.fixture(scope="module")
def dynamic_link():
    codel = aqmlab.run(SCEN / "codel-dynamic-link.toml", progress=False)
    tail = aqmlab.run(
        SCEN / "codel-dynamic-link.toml", qdisc={"bottleneck": "droptail"}, progress=False
    )
    return codel.summary, tail.summary


def test_dynamic_link_codel_keeps_median_delay_below_target(dynamic_link):
    codel, tail = dynamic_link
    c = codel["links"]["bottleneck"]
    t = tail["links"]["bottleneck"]
    assert c["qdisc"] == "codel" and t["qdisc"] == "droptail"
    # The paper: CoDel's median delay ~2.7 ms, 75th percentile ~5 ms; tail drop's far above.
    assert c["sojourn_ms"]["p50"] < 5.0, c["sojourn_ms"]
    assert t["sojourn_ms"]["p50"] > 10 * c["sojourn_ms"]["p50"], t["sojourn_ms"]
    # Tail drop's 830-packet buffer takes 10 s to drain at 1 Mb/s: seconds of delay at the tail.
    assert t["sojourn_ms"]["max"] > 5000


def test_dynamic_link_codel_keeps_most_of_the_throughput(dynamic_link):
    codel, tail = dynamic_link
    ratio = (
        codel["links"]["bottleneck"]["delivered_bytes"]
        / tail["links"]["bottleneck"]["delivered_bytes"]
    )
    # The paper: "almost the same total kilobytes as Tail Drop, with the differences coming at
    # the rate jumps"; CS244 measured about 90 % off its Fig. 7c. The issue asks for >= 85 %.
    # Over seeds 1-10 this scenario gives 0.90 +- 0.010 (README); seed 1 must not be an outlier.
    assert ratio >= 0.85, ratio
    web = codel["flows"][4]
    assert web["app"] == "web" and web["transfers_completed"] > 1000


def _shares(summary):
    goodput = [f["goodput_bps"] for f in summary["flows"]]
    drops = [f["dropped_pkts"] for f in summary["flows"]]
    return goodput[4] / sum(goodput), drops[4] / max(1, sum(drops))


def test_red_bursty_traffic_bias():
    # Floyd & Jacobson 1993 §11: RED drops the bursty, window-limited node 5 in proportion to
    # its throughput; tail drop (8-22 packet buffers in the paper) drops it out of proportion.
    red = aqmlab.run(SCEN / "red-bursty.toml", progress=False).summary
    share, drop_share = _shares(red)
    assert 0.02 < share < 0.045, share  # window-limited: at most ~4 % of 45 Mb/s
    assert 0.5 * share < drop_share < 2.0 * share, (share, drop_share)
    tail = aqmlab.run(
        SCEN / "red-bursty.toml",
        qdisc={"bottleneck": "droptail"},
        set={"links[5].buffer": "12p"},
        progress=False,
    ).summary
    t_share, t_drop_share = _shares(tail)
    assert t_share < share
    assert t_drop_share > 5 * t_share, (t_share, t_drop_share)


@pytest.mark.parametrize("name", ["bulk-dumbbell", "cellular-trace", "red-bursty"])
def test_bundled_scenarios_run(name, tmp_path):
    r = run_cli("run", str(SCEN / f"{name}.toml"), "--out", str(tmp_path), "--quiet")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "summary.json").exists()


def test_compare_prints_both_disciplines(tmp_path):
    r = run_cli(
        "run", str(SCEN / "cellular-trace.toml"), "--set", "duration=20s",
        "--compare", "bottleneck=droptail", "--out", str(tmp_path),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert any(line.startswith("as written") and " codel " in line for line in lines)
    assert any(line.startswith("bottleneck=droptail") and " droptail " in line for line in lines)
    assert (tmp_path / "bottleneck=droptail" / "summary.json").exists()


def test_consumer_edge_uploads_repeat_after_idle_periods():
    # 1-MB uploads over 1.5 Mb/s (at least 5.3 s each) separated by U(5, 15) s idle periods:
    # about 300 s / (10 s + FCT) of them, each on a fresh connection.
    s = aqmlab.run(SCEN / "consumer-edge.toml", progress=False).summary
    up = next(f for f in s["flows"] if f["name"] == "uploads")
    assert up["app"] == "repeat" and up["kind"] == "tcp"
    assert up["fct_s"] > 1e6 * 8 / 1.5e6, up["fct_s"]
    cycles = 300 / (10 + up["fct_s"])
    assert abs(up["transfers_started"] - cycles) < 3, (up["transfers_started"], cycles)
    assert up["transfers_completed"] >= up["transfers_started"] - 1
    # The upload crosses the bottleneck's reverse direction.
    assert s["links"]["bottleneck.rev"]["delivered_bytes"] > up["delivered_bytes"]
