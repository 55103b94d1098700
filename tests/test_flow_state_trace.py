"""A TCP flow's sender state over time (``aqmlab.run(..., trace_flows={flow: every_s})``, the
``flow_states`` table): BBR's model (btl_bw_bps, rtprop_s, bbr_mode, pacing_rate_bps) beside
the window and RTT, sampled on the first ACK of each interval; off unless asked, and the run's
results do not depend on it."""

import aqmlab
import pytest
from conftest import ROOT

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
    ("flows", "message"),
    [
        ({7: 0.1}, "no flow 7"),
        ({-1: 0.1}, "no flow -1"),
        ({0: 0.0}, "positive"),
        ({0: float("nan")}, "positive"),
    ],
)
def test_bad_requests_are_clear_errors(flows, message):
    with pytest.raises(aqmlab.AqmlabError, match=message):
        aqmlab.run(BESIDE_CUBIC, set=SHORT, trace_flows=flows)


def test_a_udp_flow_has_no_sender_state():
    # consumer-edge.toml: flows 0-2 are TCP, flow 3 UDP.
    with pytest.raises(aqmlab.AqmlabError, match="not a TCP flow"):
        aqmlab.run(str(ROOT / "scenarios" / "consumer-edge.toml"), trace_flows={3: 0.1})
