"""``aqmlab characterize --emulate`` (python/aqmlab/characterize/emulated.py): which RFC 7928
scenarios the emulator can run and why the others cannot, the emulated flows drawn from the
seed, the traffic tool's senders and receivers measured over loopback, the metrics on
hand-built inputs, and (as root, as CI runs) one scenario emulated with real Linux TCP beside
its simulation."""

import json
import os
import shutil
import subprocess
import sys
import time

import pytest
from aqmlab.characterize import characterize, emulated
from aqmlab.characterize.catalog import build, templates

CAN_EMULATE = os.geteuid() == 0 and shutil.which("ip") and os.path.exists("/dev/net/tun")


def _all_built(quick=True):
    for t in templates():
        if t.needs:
            continue
        for v in t.variants(quick):
            yield build(t, v, 10e6, 0.1, quick)


def _built(tid, variant=""):
    return next(b for b in _all_built() if b.id == tid and b.variant == variant)


def test_which_scenarios_are_emulated():
    # Bulk TCP and constant-rate UDP one way over one path, and nothing else.
    got = {(b.id, b.variant): emulated.why_not(b) for b in _all_built()}
    runnable = {k for k, why in got.items() if why is None}
    assert runnable == {
        ("4.4-packet-size", ""),
        ("5.1.1-newreno", ""),
        ("5.2-cubic", ""),
        ("5.3-udp-overload", "1.2x"),
        ("5.3-udp-tcp", "0.5x"),
        ("5.3-udp-tcp", "0.9x"),
        ("6.2-rtt-fairness", "cat1"),
        ("8.2.2-mild", ""),
        ("8.2.3-medium", ""),
        ("8.2.4-heavy", ""),
    }
    why = {k[0]: v for k, v in got.items() if v}
    assert "different RTTs" in why["6.2-rtt-fairness"]
    assert "'page'" in why["7.2-bursts"]
    assert "both directions" in why["9.1-traffic-mix"]  # VoIP both ways
    assert "'repeat'" in why["5.1.2-app-limited"]
    assert "ledbat" in why["5.4-ledbat"]
    assert "ECN" in why["4.5-ecn"]
    assert "both directions" in why["9.2-bidirectional"]
    assert "more than one queue" in why["10.2-two-aqms"]
    assert "schedule" in why["8.2.6-varying-capacity"]
    assert "phases" in why["8.2.5-varying-congestion"]


def test_plan_expands_counts_and_draws_starts_from_the_seed():
    b = _built("4.4-packet-size")
    flows = emulated.plan(b, 1)
    n = b.parameters["flows_N"]
    assert len(flows) == n
    assert [f["port"] for f in flows] == list(range(emulated.BASE_PORT, emulated.BASE_PORT + n))
    assert {f["mss"] for f in flows} == {460, 1460}
    assert {f["cc"] for f in flows} == {"reno"}  # aqmlab's newreno is Linux's reno
    assert all(0.0 <= f["start_s"] <= 1.0 for f in flows)  # uniform(0s, 1s)
    assert emulated.plan(b, 1) == flows
    assert [f["start_s"] for f in emulated.plan(b, 2)] != [f["start_s"] for f in flows]
    (udp,) = emulated.plan(_built("5.3-udp-overload", "1.2x"), 1)
    assert udp["kind"] == "udp" and udp["rate_bps"] == 12e6 and udp["size"] == 1500
    assert emulated.parameters(_built("5.1.1-newreno"))["emulated"]["initial_cwnd"] == 3


def test_metrics_on_hand_built_inputs():
    flows = [
        {"kind": "tcp", "name": "tcp", "port": 5001},
        {"kind": "tcp", "name": "tcp", "port": 5002},
        {"kind": "udp", "name": "udp", "port": 5003},
    ]
    measured = {"window_s": 2.0, "bytes": {"5001": 1_000_000, "5002": 500_000, "5003": 250_000}}
    link = {
        "sojourn_ms": {"mean": 4.0, "p99": 20.0},
        "enqueued_pkts": 1000,
        "dropped_pkts": 10,
        "marked_pkts": 0,
        "max_backlog_pkts": 40,
        "utilization": 0.9,
    }
    m = emulated.metrics_of(flows, measured, link)
    assert m["goodput_mbps"] == pytest.approx(7.0)  # 1.75 MB over 2 s
    assert m["goodput_mbps[tcp]"] == pytest.approx(3.0)  # mean of 4 and 2 Mb/s
    assert m["goodput_mbps[udp]"] == pytest.approx(1.0)
    assert m["jain_goodput"] == pytest.approx(36 / (2 * 20))  # TCP flows only: (4+2)²/(2·20)
    assert m["loss_ratio"] == 0.01 and m["queue_delay_ms"] == 4.0 and m["utilization"] == 0.9


def test_senders_and_receivers_over_loopback(tmp_path):
    # The traffic tool alone: a 2 Mb/s UDP flow of 1500-byte packets (1472 bytes of payload)
    # and a bulk TCP flow, received for 3 s, counted after a 1-s warm-up.
    spec = tmp_path / "flows.json"
    spec.write_text(
        json.dumps(
            [
                {
                    "kind": "udp",
                    "name": "u",
                    "port": 6301,
                    "start_s": 0.0,
                    "rate_bps": 2e6,
                    "size": 1500,
                },
                {"kind": "tcp", "name": "t", "port": 6302, "start_s": 0.0, "cc": "reno"},
            ]
        )
    )
    recv = subprocess.Popen(
        [sys.executable, "-m", "aqmlab.emutool", "receivers", str(spec), "3", "1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    time.sleep(0.3)
    subprocess.run(
        [sys.executable, "-m", "aqmlab.emutool", "senders", "127.0.0.1", str(spec), "3.5"],
        check=True,
        timeout=20,
    )
    out, _ = recv.communicate(timeout=20)
    got = json.loads(out)
    assert got["window_s"] == 2.0
    expected = 2e6 / 8 * 2.0 * 1472 / 1500
    assert got["bytes"]["6301"] == pytest.approx(expected, rel=0.03)
    assert got["bytes"]["6302"] > 10 * expected  # loopback: far above the UDP rate


def test_emulate_refused_in_one_line_where_the_host_cannot(monkeypatch, tmp_path):
    from aqmlab import shell
    from aqmlab.exceptions import AqmlabError

    monkeypatch.setattr(shell, "_has_net_admin", lambda: False)
    with pytest.raises(AqmlabError, match="needs root or CAP_NET_ADMIN"):
        characterize(["codel"], str(tmp_path / "out"), quick=True, emulate=True, only=["5.2"])
    assert not (tmp_path / "out").exists()  # refused before anything ran


@pytest.mark.skipif(not CAN_EMULATE, reason="needs root, iproute2 and /dev/net/tun")
def test_one_scenario_emulated_beside_its_simulation(tmp_path):
    # The forwarder as `aqmlab shell` finds it ($AQMLAB_EMU, PATH, this checkout's release
    # build, which `make test` makes); skipped only where none exists.
    from aqmlab.shell import ShellError, forwarder_path

    try:
        forwarder_path()
    except ShellError:
        pytest.skip("the forwarder (aqmlab-emu) is not built")
    out = tmp_path / "ch"
    doc = characterize(
        ["codel", "droptail"],
        str(out),
        quick=True,
        seeds=1,
        emulate=True,
        only=["5.2", "6.2"],
        progress=False,
    )
    by_id = {e["id"]: e for e in doc["scenarios"]}
    sim, emu_e = by_id["5.2-cubic"], by_id["5.2-cubic-emulated"]
    assert emu_e["emulated"] is True and emu_e["status"] == "run"
    assert sim["emulation"] == "emulated: 5.2-cubic-emulated"
    assert by_id["6.2-rtt-fairness-cat2-5ms"]["emulation"].startswith("not emulated: senders")
    assert emu_e["parameters"]["emulated"]["congestion_control"] == ["cubic"]
    r = emu_e["results"]
    for q in ("codel", "droptail"):
        # One CUBIC flow fills most of the 10 Mb/s link either way.
        assert 7.0 < r[q]["goodput_mbps"]["mean"] <= 10.0
    # Tail drop lets CUBIC fill the BDP-sized buffer (tens of ms); CoDel holds it near 5 ms.
    assert r["droptail"]["queue_delay_ms"]["mean"] > 4 * r["codel"]["queue_delay_ms"]["mean"]
    # Rerunning reuses the emulated runs (kept with their metrics).
    kept = out / "runs-emulated" / "5.2-cubic-emulated" / "codel-s1" / emulated.FILE
    stamp = kept.stat().st_mtime_ns
    characterize(["codel", "droptail"], str(out), quick=True, seeds=1, emulate=True, only=["5.2"])
    assert kept.stat().st_mtime_ns == stamp
    html = (out / "report.html").read_text()
    assert "(emulated)" in html and "not emulated: senders with different RTTs" in html
