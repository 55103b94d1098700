"""DualPI2 (RFC 9332) from the command line: its parameter table, a replay of L4S and classic
traffic, one-line errors, and a simulated dumbbell fed by an ECT(1) UDP flow."""

import csv
import io
import json

import aqmlab
import pytest
from conftest import run_cli


def test_list_shows_dualpi2_and_its_linux_defaults():
    r = run_cli("replay", "--list")
    assert r.returncode == 0, r.stderr
    block = r.stdout.split("dualpi2: ")[1].split("\n\n")[0]
    q = next(q for q in aqmlab.list_qdiscs() if q["name"] == "dualpi2")
    for p in q["params"]:
        assert p["name"] in block
    defaults = {p["name"]: p["default"] for p in q["params"]}
    assert defaults["limit"] == "10000p"
    assert (defaults["target"], defaults["tupdate"]) == ("15ms", "16ms")
    assert float(defaults["alpha"]) * 256 == 41 and float(defaults["beta"]) * 256 == 819
    assert (defaults["step_thresh"], defaults["coupling_factor"]) == ("1ms", "2")
    assert (defaults["classic_protection"], defaults["drop_on_overload"]) == ("10", "true")
    assert defaults["drop_at"] == "dequeue"


def _schedule(path):
    """1.2 ms per 1500-byte packet served; an ECT(1) and a Not-ECT source each send one packet
    every 2 ms (120 % load) for 2 s."""
    rows = []
    for k in range(1000):
        rows.append((k * 2_000_000, 0, "enq,1500,1,ect1"))
        rows.append((k * 2_000_000 + 1000, 0, "enq,1500,2,not_ect"))
    for k in range(1, 1667):
        rows.append((k * 1_200_000, 1, "deq,0,0,not_ect"))
    rows.sort()
    path.write_text("t_ns,op,size,flow,ecn\n" + "".join(f"{t},{r}\n" for t, _, r in rows))
    return path


@pytest.mark.parametrize("variant", ["linux", "rfc"])
def test_replay_of_l4s_and_classic_overload(tmp_path, variant):
    sched = _schedule(tmp_path / "s.csv")
    out, summ = tmp_path / "d.csv", tmp_path / "s.json"
    r = run_cli(
        "replay", "--qdisc", "dualpi2", "--param", f"variant={variant}", "limit=100p",
        "-o", str(out), "--summary", str(summ), str(sched),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    s = json.loads(summ.read_text())
    assert s["packets"] == 2000
    total = (
        s["delivered"] + s["marked"] + s["dropped_enqueue"] + s["dropped_dequeue"]
        + s["queued_at_end"]
    )  # fmt: skip
    assert total == 2000
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    l4s = [r for r in rows if int(r["id"]) % 2 == 0]
    classic = [r for r in rows if int(r["id"]) % 2 == 1]
    # L4S traffic is marked; classic traffic is dropped at dequeue (p_C = p'^2).
    assert sum(r["outcome"] == "marked" for r in l4s) > 50
    assert sum(r["outcome"] == "dropped_dequeue" for r in classic) > 50
    assert not any(r["outcome"] == "marked" for r in classic)

    def median_sojourn(rs):
        v = sorted(
            int(r["deq_t_ns"]) - int(r["enq_t_ns"])
            for r in rs
            if r["outcome"] in ("delivered", "marked")
        )
        return v[len(v) // 2]

    assert median_sojourn(l4s) < 2_000_000 < median_sojourn(classic)


@pytest.mark.parametrize(
    "param,message",
    [
        ("coupling_factor=0", "coupling_factor = 0: expected an integer in [1, 255]"),
        (
            "step_thresh=fast",
            "step_thresh = fast: expected a duration or a packet count >= 0 (like 1ms or 5p)",
        ),
        (
            "classic_protection=150",
            "classic_protection = 150: expected an integer in [0, 100] (percent)",
        ),
        ("step_range=1ms", "step_range = 1ms: a ramp needs variant=rfc"),
    ],
)
def test_bad_parameters_are_one_line(tmp_path, param, message):
    r = run_cli("replay", "--qdisc", "dualpi2", "-p", param, str(_schedule(tmp_path / "s.csv")))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"dualpi2: parameter {message}" in r.stderr, r.stderr


SCENARIO = """
duration = "5s"
seed = 3
[dumbbell]
senders = 2
access_rate = "100Mbps"
sender_delay = "1ms"
receiver_delay = "2ms"
access_buffer = "200p"
[dumbbell.bottleneck]
rate = "10Mbps"
delay = "10ms"
buffer = "300p"
qdisc = "dualpi2"
params = { typical_rtt = "25ms", max_rtt = "150ms" }
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
cc = "cubic"
[[flows]]
kind = "udp"
from = "s2"
to = "r2"
rate = "5Mbps"
size = 1000
ecn_codepoint = "ect1"
"""


def test_simulated_dumbbell_conserves_packets_at_the_dualpi2_bottleneck(tmp_path):
    sc = tmp_path / "l4s.toml"
    sc.write_text(SCENARIO)
    out = tmp_path / "run"
    r = run_cli("run", str(sc), "--out", str(out))
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    b = summary["links"]["bottleneck"]
    # Conservation: what is neither delivered nor dropped is still queued (at most the 300-packet
    # buffer) or being transmitted (one packet).
    left = b["enqueued_pkts"] - b["delivered_pkts"] - b["dropped_pkts"]
    assert 0 <= left <= 301
    assert b["dropped_pkts"] == sum(b["drops_by_reason"].values())
    assert b["marked_pkts"] == sum(b["marks_by_reason"].values())
    assert b["drops_by_reason"].get("overlimit", 0) == 0
    assert (
        b["marks_by_reason"].get("dualpi2_coupled", 0) + b["marks_by_reason"].get("dualpi2_step", 0)
        > 100
    )
    # The resolved scenario (every parameter written out, max_rtt and the defaults it overrides
    # both) rebuilds the same run.
    again = tmp_path / "again"
    r = run_cli("run", str(out / "scenario.resolved.toml"), "--out", str(again))
    assert r.returncode == 0, r.stderr
    b2 = json.loads((again / "summary.json").read_text())["links"]["bottleneck"]
    assert b2 == b
