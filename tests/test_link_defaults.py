"""Defaults that depend on the link and its traffic (CoDel's MTU, RED's rate), the discipline
state trace (`[output] trace`), and the bundled scenarios as package data."""

import os
import sys

import aqmlab
import pytest
from conftest import ROOT, run_cli

#: Two TCP flows of 500-byte packets (460 bytes of data) through a 512 kb/s CoDel link: the
#: slides' consumer edge with small packets.
SMALL = """
name = "small-packets"
duration = "20s"
[dumbbell]
senders = 2
access_rate = "100Mbps"
sender_delay = "5ms"
receiver_delay = "5ms"
[dumbbell.bottleneck]
rate = "512kbps"
delay = "20ms"
qdisc = "codel"
buffer = "100p"
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
mss = 460
[[flows]]
kind = "tcp"
from = "s2"
to = "r2"
mss = 460
"""


if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - aqmlab depends on tomli there
    import tomli as tomllib


def _resolved(res):
    return tomllib.loads(res.summary["provenance"]["resolved_scenario"])


def _link(res, name):
    return next(d for d in _resolved(res)["links"] if d["name"] == name)


def _bottleneck(res):
    return {k: v for k, v in res.summary["links"]["bottleneck"].items() if k != "qdisc_params"}


def test_codel_mtu_defaults_to_the_largest_packet_on_the_link():
    auto = aqmlab.run(SMALL, progress=False)
    # 460 bytes of data + 40 of headers one way; the ACKs (40 bytes) the other.
    link = _link(auto, "bottleneck")
    assert link["params"]["mtu"] == "500B"
    assert link["reverse"]["params"]["mtu"] == "40B"
    # "auto" is exactly an explicit 500 B, and not the fixed 1500 B it used to be: with 1500 B
    # CoDel never drops while three packets wait, with 500 B while one does.
    given = aqmlab.run(SMALL, set={"dumbbell.bottleneck.params.mtu": "500B"}, progress=False)
    fixed = aqmlab.run(SMALL, set={"dumbbell.bottleneck.params.mtu": "1500B"}, progress=False)
    assert _bottleneck(auto) == _bottleneck(given)
    assert _bottleneck(auto)["dropped_pkts"] != _bottleneck(fixed)["dropped_pkts"]


def test_codel_mtu_with_the_linux_variant_counts_the_ethernet_header():
    res = aqmlab.run(SMALL, set={"dumbbell.bottleneck.params.variant": "linux"}, progress=False)
    assert _link(res, "bottleneck")["params"]["mtu"] == "514B"


def test_a_resolved_scenario_with_the_computed_mtu_runs_the_same(tmp_path):
    res = aqmlab.run(SMALL, out=tmp_path / "a", progress=False)
    again = aqmlab.run(tmp_path / "a" / "scenario.resolved.toml", progress=False)
    assert res.summary["links"] == again.summary["links"]


RED_SCHEDULE = """
name = "red-schedule"
duration = "2s"
[dumbbell]
senders = 1
access_rate = "100Mbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
schedule = [["0s", "0bps"], ["0.5s", "10Mbps"], ["1s", "2Mbps"]]
delay = "10ms"
qdisc = "red"
buffer = "100p"
reverse = { rate = "10Mbps", qdisc = "droptail" }
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
"""


def test_red_on_a_link_with_several_rates_warns_which_rate_it_uses(tmp_path):
    scen = tmp_path / "red.toml"
    scen.write_text(RED_SCHEDULE)
    p = run_cli("run", str(scen), "-o", str(tmp_path / "out"), "-q")
    assert p.returncode == 0, p.stderr
    warnings = [x for x in p.stderr.splitlines() if "RED's" in x]
    # One line, for the forward direction only (the reverse has one rate and no RED).
    assert len(warnings) == 1, p.stderr
    assert "bandwidth = 10Mbps" in warnings[0] and "2Mbps" in warnings[0]
    assert "dumbbell.bottleneck.params.bandwidth" in warnings[0]
    # Giving the rate silences it.
    p = run_cli(
        "run", str(scen), "-o", str(tmp_path / "out"), "-q",
        "--set", "dumbbell.bottleneck.params.bandwidth=2Mbps",
    )  # fmt: skip
    assert p.returncode == 0 and "RED's" not in p.stderr, p.stderr


def test_red_on_a_constant_link_does_not_warn():
    text = RED_SCHEDULE.replace(
        'schedule = [["0s", "0bps"], ["0.5s", "10Mbps"], ["1s", "2Mbps"]]', 'rate = "10Mbps"'
    )
    res = aqmlab.run(text, progress=False)
    assert res.summary["provenance"]["warnings"] == []


def test_red_takes_its_links_delay_and_warns_when_the_link_has_jitter(tmp_path):
    """RED's automatic w_q reads the link's delay, as ns-2.35 does (the exact value against
    ns-2's: crates/aqmlab-sim/tests/red_link_delay.rs); with jitter it keeps the base delay
    and says so."""
    text = RED_SCHEDULE.replace(
        'schedule = [["0s", "0bps"], ["0.5s", "10Mbps"], ["1s", "2Mbps"]]', 'rate = "10Mbps"'
    ).replace('delay = "10ms"', 'delay = "250ms"')
    res = aqmlab.run(text, progress=False)
    assert _link(res, "bottleneck")["params"]["delay"] == "250ms"
    assert res.summary["provenance"]["warnings"] == []
    scen = tmp_path / "red.toml"
    jittered = 'delay = "250ms"\njitter = "uniform(0ms, 5ms)"'
    scen.write_text(text.replace('delay = "250ms"', jittered))
    p = run_cli("run", str(scen), "-o", str(tmp_path / "out"), "-q")
    assert p.returncode == 0, p.stderr
    warnings = [x for x in p.stderr.splitlines() if "RED's automatic w_q" in x]
    assert len(warnings) == 1 and "delay = 250ms" in warnings[0], p.stderr
    assert "dumbbell.bottleneck.params.delay" in warnings[0]


TRACED = (
    SMALL.replace('duration = "20s"', 'duration = "30s"')
    + """
[output]
trace = ["bottleneck"]
"""
)


@pytest.fixture(scope="module")
def traced():
    return aqmlab.run(TRACED, set={"dumbbell.bottleneck.params.variant": "rfc"}, progress=False)


def test_tracing_the_state_changes_nothing_else(traced):
    plain = aqmlab.run(SMALL.replace('duration = "20s"', 'duration = "30s"'), progress=False)
    assert traced.summary["links"] == plain.summary["links"]
    assert traced.summary["flows"] == plain.summary["flows"]


def test_codel_state_trace_accounts_for_every_control_law_drop(traced):
    """RFC 8289 §5.5: entering the dropping state drops one packet and sets count; each
    further drop while dropping adds one to count. So the drops the control law made equal the
    entries into the dropping state plus the unit steps of count within it."""
    st = traced.states
    assert set(st["link"]) == {"bottleneck"}
    assert {"dropping", "count", "drop_next_ns"} <= set(st["var"])
    # One dequeue call per instant on a link (enqueues leave CoDel's state alone), so the rows
    # of one t_ns are one call's changes: an entry (dropping 0 -> 1; count is set, not
    # stepped) or drops while dropping (count steps, even in the call that leaves the state).
    entries = steps = 0
    dropping = count = 0.0
    for _, call in st.groupby("t_ns", sort=False):
        new = dict(zip(call["var"], call["value"]))
        if dropping == 0.0 and new.get("dropping") == 1.0:
            entries += 1
        elif dropping == 1.0 and new.get("count", count) > count:
            steps += int(new["count"] - count)
        dropping = new.get("dropping", dropping)
        count = new.get("count", count)
    drops = traced.summary["links"]["bottleneck"]["drops_by_reason"]["codel_target"]
    assert entries > 0 and drops == entries + steps


def test_state_trace_is_written_and_named_in_the_resolved_scenario(tmp_path):
    res = aqmlab.run(TRACED, out=tmp_path, progress=False)
    assert (tmp_path / "states.parquet").exists()
    assert _resolved(res)["output"]["trace"] == ["bottleneck"]


def test_a_trace_of_an_unknown_link_names_the_key(tmp_path):
    scen = tmp_path / "bad.toml"
    scen.write_text(SMALL + '\n[output]\ntrace = ["bottlenek"]\n')
    p = run_cli("run", str(scen), "-o", str(tmp_path / "out"))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "output.trace[0]" in p.stderr and "bottleneck.rev" in p.stderr


def test_bundled_scenarios_and_their_traces_are_package_data(tmp_path):
    """`aqmlab run NAME` needs no checkout: every bundled scenario, and every trace or
    schedule file it names, lies inside the installed package."""
    import aqmlab.scenarios

    pkg = os.path.dirname(os.path.realpath(aqmlab.__file__))
    names = aqmlab.scenarios.names()
    assert {"codel-dynamic-link", "web-overload", "cellular-trace"} <= set(names)
    for name in names:
        path = os.path.realpath(aqmlab.scenarios.resolve(name))
        assert path.startswith(pkg + os.sep), path
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for line in text.splitlines():
            if "trace =" in line:
                rel = line.split('"')[1]
                target = os.path.realpath(os.path.join(os.path.dirname(path), rel))
                assert target.startswith(pkg + os.sep) and os.path.isfile(target), line
    # From an unrelated folder, by name.
    p = run_cli("run", "cellular-trace", "-o", str(tmp_path / "out"), "-q", "--set",
                "duration=2s", cwd=tmp_path)  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert os.path.realpath(ROOT / "scenarios") == os.path.join(pkg, "data", "scenarios")
