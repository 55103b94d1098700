"""The traffic models through the Python API: repeated transfers, on/off applications over TCP,
periodic and PackMime web traffic (the Rust tests check each against theory)."""

import aqmlab
import pytest

APPS = """
duration = "60s"
seed = 3

[dumbbell]
senders = 4
access_rate = "100Mbps"
sender_delay = "1ms"
receiver_delay = "1ms"

[dumbbell.bottleneck]
rate = "10Mbps"
delay = "20ms"
qdisc = "codel"
buffer = "200p"

[[flows]]
name = "uploads"
kind = "tcp"
from = "s1"
to = "r1"
app = "repeat"
bytes = "200KB"
idle = ["1s", "3s"]
reuse = true

[[flows]]
name = "onoff"
kind = "tcp"
from = "s2"
to = "r2"
app = "onoff"
rate = "1Mbps"
on_time = "500ms"
off_time = "500ms"
onoff_shape = 1.5

[[flows]]
name = "pages"
kind = "tcp"
from = "s3"
to = "r3"
app = "web"
interval = "500ms"
size_dist = "constant"
size_mean = "100KB"

[[flows]]
name = "packmime"
kind = "tcp"
from = "s4"
to = "r4"
app = "web"
model = "packmime"
conns_per_s = 5.0
"""


def test_every_new_application_runs_and_reports():
    s = aqmlab.run(APPS, progress=False).summary
    f = {x["name"]: x for x in s["flows"]}
    assert [x["app"] for x in s["flows"]] == ["repeat", "onoff", "web", "web"]
    # Repeated 200-kB transfers on one connection, 1-3 s apart: about 60 s / (2 s + FCT).
    up = f["uploads"]
    assert 15 <= up["transfers_started"] <= 32, up["transfers_started"]
    assert up["transfers_completed"] >= up["transfers_started"] - 1
    assert up["fct_s"] > 200e3 * 8 / 10e6
    # The on/off application counts no transfers; it moves bytes.
    assert f["onoff"]["transfers_started"] == 0 and f["onoff"]["delivered_bytes"] > 0
    # Periodic requests: one every 500 ms from 0, 120 in 60 s.
    assert f["pages"]["transfers_started"] == 120
    # PackMime at 5 connections/s: about 300 connections.
    assert 200 <= f["packmime"]["transfers_started"] <= 400
    # Same scenario and seed: the same summary (but the wall time).
    again = aqmlab.run(APPS, progress=False).summary
    for a in (s, again):
        a.pop("wall_s")
    assert again == s


def test_bad_application_key_is_one_clear_line():
    with pytest.raises(aqmlab.ScenarioError, match=r"^<string>:24: flows\[0\]\.idle: expected"):
        aqmlab.run(APPS.replace('idle = ["1s", "3s"]', 'idle = ["3s", "1s"]'))
    with pytest.raises(
        aqmlab.ScenarioError, match=r"^<string>:\d+: flows\[3\]\.size_mean: size_mean belongs to"
    ):
        aqmlab.run(APPS.replace("conns_per_s = 5.0", 'conns_per_s = 5.0\nsize_mean = "8KB"'))
