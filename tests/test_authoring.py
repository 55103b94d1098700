"""Scenario authoring: scenarios as dicts, --unset, bundled scenarios by name, and the Python
API naming its bad arguments."""

import json
import os

import aqmlab
import pytest
from aqmlab.run import load, toml_text
from aqmlab.scenarios import names, resolve
from conftest import ROOT, run_cli

SCENARIO = {
    "name": "from-a-dict",
    "duration": "2s",
    "seed": 4,
    "dumbbell": {
        "senders": 2,
        "access_rate": "100Mbps",
        "sender_delay": "1ms",
        "receiver_delay": ["2ms", "3ms"],
        "bottleneck": {
            "rate": "10Mbps",
            "delay": "10ms",
            "qdisc": "codel",
            "params": {"target": "5ms"},
        },
    },
    "flows": [
        {"kind": "udp", "from": "s1", "to": "r1", "rate": "3Mbps", "stop": "1.5s"},
        {"kind": "tcp", "from": "s2", "to": "r2", "cc": "reno", "delayed_ack": True},
    ],
}


def test_a_dict_is_a_scenario():
    r = aqmlab.run(SCENARIO, progress=False)
    assert r.summary["scenario"] == "from-a-dict" and r.summary["seed"] == 4
    assert r.summary["provenance"]["scenario_file"] == "<dict>"
    # The same as its TOML text, bit for bit.
    t = aqmlab.run(toml_text(SCENARIO), progress=False)
    drop = ("wall_s", "provenance")
    assert {k: v for k, v in r.summary.items() if k not in drop} == {
        k: v for k, v in t.summary.items() if k not in drop
    }
    bad = {**SCENARIO, "duration": "2 parsecs"}
    with pytest.raises(aqmlab.ScenarioError, match=r"^<dict>:2: duration: expected a duration"):
        load(bad)
    with pytest.raises(TypeError, match="None has no TOML form"):
        load({**SCENARIO, "seed": None})


def test_unset_removes_a_key(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(toml_text(SCENARIO))
    full = load(p)
    cut = load(p, unset=["flows[0].stop", "dumbbell.bottleneck.params"])
    assert "stop" in full.resolved_toml().split("[[flows]]")[1]
    assert "stop" not in cut.resolved_toml().split("[[flows]]")[1]
    assert 'target = "5ms"' in full.resolved_toml()
    r = run_cli("run", str(p), "-o", str(tmp_path / "o"), "-q", "--unset", "flows[1]")
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert len(s["flows"]) == 1 and s["provenance"]["unset"] == ["flows[1]"]
    r = run_cli("run", str(p), "-o", str(tmp_path / "o"), "-q", "--unset", "flows[0].nope")
    assert r.returncode == 2
    assert r.stderr == f"aqmlab: error: {p}: --unset flows[0].nope: no such key in the scenario\n"


def test_bundled_scenarios_by_name(tmp_path):
    assert {"bulk-dumbbell", "codel-dynamic-link", "web-overload"} <= set(names())
    assert os.path.samefile(
        resolve("codel-dynamic-link"), ROOT / "scenarios" / "codel-dynamic-link.toml"
    )
    assert resolve("codel-dynamic-link.toml").endswith("scenarios/codel-dynamic-link.toml")
    assert resolve("no/such.toml") == "no/such.toml"
    # From another directory, by name.
    r = run_cli("run", "red-bursty", "-q", "--set", "duration=1s", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "red-bursty" / "summary.json").exists()
    r = run_cli("run", "no-such-scenario", "-q", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "no-such-scenario: no such file, nor a bundled scenario of that name" in r.stderr


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"seed": -1}, ValueError, "seed: expected a whole number 0..2^64-1, got -1"),
        ({"seed": 2**64}, ValueError, "seed: expected a whole number"),
        ({"seed": True}, ValueError, "seed: expected a whole number"),
        ({"qdisc": ["bottleneck=pie"]}, TypeError, "qdisc: expected a dict like"),
        ({"set": [("seed", 1)]}, TypeError, "set: expected a dict like"),
        ({"packet_log": "bottleneck"}, TypeError, "packet_log: expected a list like"),
        ({"unset": "seed"}, TypeError, "unset: expected a list like"),
    ],
)
def test_the_api_names_a_bad_argument(kwargs, error, message):
    with pytest.raises(error, match=message.replace("^", r"\^").replace("(", r"\(")):
        aqmlab.run(SCENARIO, **kwargs)


def test_a_folder_named_like_a_bundled_scenario_does_not_hide_it(tmp_path, monkeypatch):
    """``aqmlab reproduce consumer-edge --out consumer-edge`` run twice from one folder: the
    output folder of the first run must not be taken for the scenario by the second."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "consumer-edge").mkdir()
    assert resolve("consumer-edge").endswith("scenarios/consumer-edge.toml")
