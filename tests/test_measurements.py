"""The measurements in the summary and the series, checked against the packet log and against
each other: Little's law per bin, capacity, drops attributed to flows, flow names."""

import math

import aqmlab
import pandas as pd
import pytest

OVERLOAD = """
name = "overload"
duration = "3s"
bin = "100ms"

[dumbbell]
senders = 3
access_rate = "100Mbps"
sender_delay = "1ms"
receiver_delay = "1ms"

[dumbbell.bottleneck]
schedule = [["0s", "10Mbps"], ["1.05s", "4Mbps"]]
delay = "10ms"
qdisc = "droptail"
buffer = "150p"

[[flows]]
kind = "udp"
from = "s1"
to = "r1"
rate = "8Mbps"
size = 1000
stop = "2s"
name = "video"

[[flows]]
kind = "udp"
from = "s2"
to = "r2"
rate = "3Mbps"
size = 1500
stop = "2s"

[[flows]]
kind = "tcp"
from = "s3"
to = "r3"
app = "finite"
bytes = "200KB"
"""


@pytest.fixture(scope="module")
def res():
    return aqmlab.run(OVERLOAD, packet_log=["bottleneck"], progress=False)


def test_littles_law_per_bin_against_the_packet_log(res):
    links, pk = res.links, res.packets
    b = links[links.link == "bottleneck"].reset_index(drop=True)
    p = pk[pk.link == "bottleneck"]
    bin_s = res.summary["bin_s"]
    # The queue's integral over the run equals the summed sojourn times (it ends empty).
    assert res.summary["links"]["bottleneck"]["dropped_pkts"] > 0
    area = (b.mean_backlog_pkts * bin_s).sum()
    assert area == pytest.approx(p.sojourn_ns.sum() / 1e9, rel=1e-9)
    area_b = (b.mean_backlog_bytes * bin_s).sum()
    assert area_b == pytest.approx((p.sojourn_ns * p["size"]).sum() / 1e9, rel=1e-9)
    # Each bin's mean lies within the bin's largest backlog.
    assert (b.mean_backlog_pkts <= b.max_backlog_pkts + 1e-9).all()
    assert (b.mean_backlog_pkts >= 0).all()


def test_capacity_per_bin_follows_the_schedule(res):
    b = res.links[res.links.link == "bottleneck"].reset_index(drop=True)
    assert b.capacity_bps[0] == 10e6
    assert b.capacity_bps[10] == pytest.approx(7e6)  # half the bin at each rate
    assert b.capacity_bps[25] == 4e6
    # Integrated, it is the denominator of the utilization.
    s = res.summary["links"]["bottleneck"]
    bits = (b.capacity_bps * res.summary["bin_s"]).sum()
    assert s["utilization"] == pytest.approx(s["delivered_bytes"] * 8 / bits, rel=1e-12)


def test_every_packet_offered_is_accounted_for_at_the_end():
    """enqueued = delivered + dropped + queued + transmitting, per direction, from summary.json
    alone; a run cut mid-flight (bulk flows still sending) leaves packets in the last two."""
    # A bundled scenario by its name, as the command line takes it.
    cut = aqmlab.run("bulk-dumbbell", set={"duration": "2s"}, progress=False)
    left = 0
    for name, s in cut.summary["links"].items():
        end = s["queued_pkts_at_end"] + s["transmitting_pkts_at_end"]
        assert s["transmitting_pkts_at_end"] in (0, 1), name
        assert s["enqueued_pkts"] == s["delivered_pkts"] + s["dropped_pkts"] + end, name
        left += end
    assert left > 0  # the counterfactual: without the end's backlog the identity fails


def test_drops_are_attributed_to_flows(res):
    s = res.summary
    link = s["links"]["bottleneck"]
    per_flow = [f["links"].get("bottleneck", {}) for f in s["flows"]]
    assert sum(x.get("dropped_pkts", 0) for x in per_flow) == link["dropped_pkts"]
    assert sum(x.get("arrived_pkts", 0) for x in per_flow) == link["enqueued_pkts"]
    assert all(
        sum(f["links"][k]["dropped_pkts"] for k in f["links"]) == f["dropped_pkts"]
        for f in s["flows"]
    )
    # Jain's index of the drop rates, by hand: (Σx)²/(n·Σx²) over the flows that arrived.
    rates = [x["dropped_pkts"] / x["arrived_pkts"] for x in per_flow if x.get("arrived_pkts")]
    assert link["flows_arrived"] == len(rates) == 3
    want = sum(rates) ** 2 / (len(rates) * sum(r * r for r in rates))
    assert link["jain_drop_rate"] == pytest.approx(want, rel=1e-12)
    # The sojourn spread: std² is the variance, and it is that of the packet log.
    p = res.packets[res.packets.link == "bottleneck"]
    # (std is in ms rounded to the nanosecond, as every delay in the summary.)
    assert link["sojourn_ms"]["std"] == pytest.approx(p.sojourn_ns.std(ddof=0) / 1e6, abs=1e-6)
    assert link["sojourn_var_ms2"] == pytest.approx(p.sojourn_ns.var(ddof=0) / 1e12, rel=1e-9)


def test_flow_series_carry_names_and_windows(res, tmp_path):
    f = res.flows
    assert set(f[f.flow == 0].name) == {"video"}
    assert f[f.flow == 1].name.isna().all()
    tcp = f[f.flow == 2]
    assert tcp.cwnd_bytes.notna().any() and f[f.flow == 0].cwnd_bytes.isna().all()
    assert (tcp.cwnd_bytes.dropna() >= 1448).all()
    # The CSV writes a missing name as an empty field, as it writes NaN.
    r = aqmlab.run(OVERLOAD, tmp_path / "o", csv=True, keep=False, progress=False)
    assert r.links is None
    back = pd.read_csv(tmp_path / "o" / "flows.csv")
    assert list(back.columns) == list(f.columns)
    assert back[back.flow == 1].name.isna().all() and set(back[back.flow == 0].name) == {"video"}
    assert math.isnan(back[back.flow == 0].cwnd_bytes.iloc[0])


def test_one_way_delay_of_a_lone_udp_flow_is_propagation_plus_transmission():
    lone = """
duration = "1s"
[dumbbell]
senders = 1
access_rate = "1Gbps"
sender_delay = "2ms"
receiver_delay = "3ms"
[dumbbell.bottleneck]
rate = "10Mbps"
delay = "10ms"
[[flows]]
kind = "udp"
from = "s1"
to = "r1"
rate = "1Mbps"
size = 1000
"""
    f = aqmlab.run(lone, progress=False, keep=False).summary["flows"][0]
    # 2 + 10 + 3 ms of propagation; 1000 B at 1 Gb/s twice (8 µs each) and at 10 Mb/s (800 µs).
    want = 2 + 10 + 3 + 2 * 0.008 + 0.8
    d = f["one_way_delay_ms"]
    assert d["p50"] == d["max"] == d["mean"] == pytest.approx(want, abs=1e-9)
    assert d["std"] == 0 and f["jitter_ms"] == 0 and f["loss_rate"] == 0
    assert f["data_pkts_sent"] == f["data_pkts_received"] + 1  # the last is still on its way


def test_the_drop_log_names_reason_and_flow(res):
    d = res.drops
    assert list(d.columns) == ["link", "t_ns", "sojourn_ns", "size", "flow", "reason"]
    s = res.summary["links"]["bottleneck"]
    b = d[d.link == "bottleneck"]
    assert len(b) == s["dropped_pkts"] + s["lost_pkts"]
    assert b.reason.value_counts().to_dict() == s["drops_by_reason"]
    for i, f in enumerate(res.summary["flows"]):
        assert (b.flow == i).sum() == f["links"].get("bottleneck", {}).get("dropped_pkts", 0)


def test_windows_have_their_own_summaries():
    text = OVERLOAD.replace('duration = "3s"', 'duration = "3s"\nwarmup = "1s"') + (
        '\n[[windows]]\nname = "overload"\nfrom = "0s"\nto = "2s"\n'
    )
    s = aqmlab.run(text, progress=False, keep=False).summary
    w = s["windows"]
    assert list(w) == ["after_warmup", "overload"]
    assert (w["after_warmup"]["from_s"], w["after_warmup"]["to_s"]) == (1.0, 3.0)
    b, wb = s["links"]["bottleneck"], w["overload"]["links"]["bottleneck"]
    # Every drop happens while the sources send (before 2 s).
    assert wb["dropped_pkts"] == b["dropped_pkts"] > 0
    assert wb["sojourn_ms"]["max"] <= b["sojourn_ms"]["max"]
    assert 0 < wb["utilization"] <= 1
    # Goodput over the window: the bytes delivered in it over its 2 s.
    f = w["overload"]["flows"][0]
    assert f["goodput_bps"] == f["delivered_bytes"] * 8 / 2
