"""A TCP flow's sender state over time (``aqmlab.run(..., trace_flows={flow: every_s})``,
``[output] trace_flows``, ``aqmlab run --trace-flow FLOW=EVERY``; the ``flow_states`` table):
BBR's model (btl_bw_bps, rtprop_s, bbr_mode, pacing_rate_bps) beside the window and RTT, sampled
on the first ACK of each interval; off unless asked, and the run's results do not depend on it."""

import aqmlab
import pyarrow.parquet as pq
import pytest
from conftest import ROOT, run_cli

BESIDE_CUBIC = str(ROOT / "tests" / "fidelity" / "bbr-cubic-b83.toml")
SHORT = {"duration": "6s", "warmup": "3s"}


def results(r) -> dict:
    s = dict(r.summary)
    s.pop("provenance")
    s.pop("wall_s")
    return s


def test_bbr_model_is_sampled_once_per_interval():
    r = aqmlab.run(BESIDE_CUBIC, set=SHORT, trace_flows={0: 0.1})
    fs = r.flow_states
    assert set(fs["flow"]) == {0}
    names = set(fs["var"])
    assert {"btl_bw_bps", "rtprop_s", "bbr_mode", "pacing_rate_bps", "cwnd", "srtt_s"} <= names
    t = sorted(set(fs["t_ns"]))
    # One sample per 100 ms interval with ACKs: never two in one interval.
    assert len({x // 100_000_000 for x in t}) == len(t)
    assert 40 <= len(t) <= 60
    v = fs.pivot_table(index="t_ns", columns="var", values="value")
    # The model is the path's: RTprop at least the 100 ms base RTT and within one queue (83
    # packets, 100 ms) of it; BtlBw at most the 10 Mb/s link; modes 0-3.
    assert v["rtprop_s"].dropna().between(0.1, 0.21).all()
    assert (v["btl_bw_bps"] <= 10e6).all() and v["btl_bw_bps"].iloc[-1] > 1e6
    assert set(v["bbr_mode"]) <= {0.0, 1.0, 2.0, 3.0}


def test_cubic_flow_has_no_bbr_model_and_tracing_changes_no_result():
    plain = aqmlab.run(BESIDE_CUBIC, set=SHORT)
    assert plain.flow_states is None
    traced = aqmlab.run(BESIDE_CUBIC, set=SHORT, trace_flows={1: 0.05})
    fs = traced.flow_states
    assert set(fs["flow"]) == {1}
    assert "btl_bw_bps" not in set(fs["var"]) and "cwnd" in set(fs["var"])
    assert results(traced) == results(plain)
    assert traced.flows.equals(plain.flows) and traced.links.equals(plain.links)


@pytest.mark.parametrize(
    ("flows", "error", "message"),
    [
        ({7: 0.1}, aqmlab.ScenarioError, r"expected a flow index 0\.\.2 .*got 7"),
        ({-1: 0.1}, ValueError, "expected flow indices"),
        ({0: 0.0}, ValueError, "positive"),
        ({0: float("nan")}, ValueError, "positive"),
        ({0: "10"}, aqmlab.ScenarioError, "expected a duration with a unit"),
        ({0: "0ms"}, aqmlab.ScenarioError, "positive"),
    ],
)
def test_bad_requests_are_clear_errors(flows, error, message):
    with pytest.raises(error, match=message):
        aqmlab.run(BESIDE_CUBIC, set=SHORT, trace_flows=flows)


def test_a_udp_flow_has_no_sender_state():
    # consumer-edge.toml: flows 0-2 are TCP, flow 3 UDP.
    with pytest.raises(aqmlab.ScenarioError, match="flow 3 is a UDP flow"):
        aqmlab.run(str(ROOT / "scenarios" / "consumer-edge.toml"), trace_flows={3: 0.1})


def test_the_file_key_the_api_and_the_command_line_trace_the_same(tmp_path):
    """``[output] trace_flows`` in the file, ``trace_flows=`` and ``--trace-flow`` are one
    request: the same table; the resolved file records it, and running that file gives the
    same table again (it reproduces the run's outputs, not only its results)."""
    api = aqmlab.run(BESIDE_CUBIC, set=SHORT, trace_flows={0: "100ms", 1: 0.25}).flow_states
    in_file = aqmlab.run(
        BESIDE_CUBIC,
        set={**SHORT, "output.trace_flows": [{"flow": 1, "every": "250ms"}]},
        trace_flows={0: 0.1},
    ).flow_states
    assert api.equals(in_file)
    assert set(api["flow"]) == {0, 1}
    # A coarser interval samples fewer times: the interval is applied per flow.
    n = api.groupby("flow")["t_ns"].nunique()
    assert n[1] < n[0]
    out = tmp_path / "cli"
    p = run_cli(
        "run", BESIDE_CUBIC, "--set", "duration=6s", "--set", "warmup=3s",
        "--trace-flow", "0=100ms", "--trace-flow", "1=250ms", "-q", "--out", str(out),
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    # The file is in order of (time, flow); the DataFrame flow by flow.
    cli = pq.read_table(out / "flow_states.parquet").to_pandas()
    assert cli["t_ns"].is_monotonic_increasing

    def by_flow(df):
        return df.sort_values(["flow", "t_ns"], kind="stable").reset_index(drop=True)

    assert by_flow(cli).equals(by_flow(api))
    resolved = (out / "scenario.resolved.toml").read_text()
    assert '{ flow = 0, every = "100ms" }, { flow = 1, every = "250ms" }' in resolved
    again = aqmlab.run(str(out / "scenario.resolved.toml")).flow_states
    assert again.equals(api)


def test_command_line_errors_are_one_line(tmp_path):
    for arg, message in (
        ("x=10ms", "--trace-flow x=10ms: expected FLOW=EVERY"),
        ("5=10ms", "--trace-flow 5=10ms: expected a flow index 0..2"),
        ("0", "--trace-flow '0': expected NAME=VALUE"),
    ):
        p = run_cli("run", BESIDE_CUBIC, "--trace-flow", arg, "-q", "--out", str(tmp_path / "o"))
        assert p.returncode != 0
        assert message in p.stderr and "Traceback" not in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert not (tmp_path / "o").exists()
