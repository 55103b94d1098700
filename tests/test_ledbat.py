"""LEDBAT (RFC 6817, ``cc = "ledbat"``): its rules end to end, and ns-3 3.37's ``TcpLedbat``.

``tests/fidelity/ledbat-alone.toml`` and ``ledbat.toml`` are the set-up that
``tests/fidelity/ns3/ledbat.cc`` builds in ns-3 (10 Mb/s, RTT 100 ms, 1000-packet tail drop;
LEDBAT with a 25-ms target alone, and beside a NewReno flow); its runs are in
``tests/fidelity/ns3/ledbat.json`` (``tests/fidelity/ns3/ledbat.sh``). Measured over [30, 60) s.

* RFC 6817 §2.4.1: alone, LEDBAT holds the queueing delay it adds at ``TARGET`` and fills the
  link; at another target, at that one. Counterfactual: NewReno in its place fills the buffer.
* §1 and §2.4.1: beside a standard TCP flow it yields (less than best effort). Counterfactual:
  a NewReno flow in its place takes about half.
* ns-3 3.37's ``TcpLedbat`` caps the window at the flight before an ACK, with no
  ``ALLOWED_INCREASE`` (RFC 6817 §2.5.3 asks for 1 segment; later ns-3 added it as the
  ``AllowedIncrease`` attribute). Alone, that leaves it below the link's rate with an empty
  queue: ns-3 gives about 94 % and no queue where RFC 6817 gives 100 % at the target. With
  ``ledbat_allowed_increase = 0`` aqmlab agrees with it within 25 % (goodput; the delay within
  2 ms, ns-3's timestamps counting milliseconds); with the RFC's allowance it does not, which is
  the difference's cause, tested.
"""

import json

import aqmlab
import pytest
from conftest import ROOT

FIDELITY = ROOT / "tests" / "fidelity"
WINDOW = (30.0, 60.0)
TOLERANCE = 0.25
#: ns-3 timestamps count whole milliseconds: a one-way delay sample is off by up to 1 ms
#: each way, so delays are compared within 2 ms where 25 % of them is less.
DELAY_FLOOR_MS = 2.0
#: ns-3 3.37's TcpLedbat: no allowance above the flight.
NS3_337 = {"flows[0].ledbat_allowed_increase": 0.0}


def figures(name: str, seed: int = 1, sets: dict | None = None, unset=None) -> dict:
    r = aqmlab.run(str(FIDELITY / name), seed=seed, set=sets or {}, unset=unset)
    w = r.summary["windows"]["after_warmup"]
    assert (w["from_s"], w["to_s"]) == WINDOW
    gp = [f["goodput_bps"] / 1e6 for f in w["flows"]]
    bott = w["links"]["bottleneck"]
    return {
        "goodput_mbps": gp,
        "share": gp[0] / sum(gp),
        "sojourn_ms": bott["sojourn_ms"]["mean"],
        "utilization": bott["utilization"],
    }


# --- RFC 6817's behaviour ----------------------------------------------------------------------


@pytest.mark.parametrize("target_ms", [25, 10])
def test_alone_it_holds_the_target_and_fills_the_link(target_ms):
    f = figures("ledbat-alone.toml", sets={"flows[0].ledbat_target": f"{target_ms}ms"})
    assert f["utilization"] > 0.99, f
    # The bottleneck's sojourn is the target, within one packet's serialization (1.2 ms at
    # 10 Mb/s: the queue's granularity, and the delayed-ACK hold the echoed timestamps add to
    # some samples) and 5 %. Measured: 25.95 ms at 25, 9.57 ms at 10.
    assert abs(f["sojourn_ms"] - target_ms) <= 0.05 * target_ms + 1.2, f


LEDBAT_KEYS = ["flows[0].ledbat_target", "flows[0].ledbat_gain"]


def test_newreno_in_its_place_fills_the_buffer():
    f = figures("ledbat-alone.toml", sets={"flows[0].cc": "newreno"}, unset=LEDBAT_KEYS)
    assert f["sojourn_ms"] > 10 * 25, f


def test_beside_newreno_it_yields():
    f = figures("ledbat.toml")
    assert f["share"] < 0.05, f
    # Counterfactual: a standard flow in its place takes a fair part.
    g = figures("ledbat.toml", sets={"flows[0].cc": "newreno"}, unset=LEDBAT_KEYS)
    assert 0.25 < g["share"] < 0.75, g


# --- against ns-3 3.37 ------------------------------------------------------------------------


def ns3_runs(newreno: bool) -> list[dict]:
    runs = [
        r
        for r in map(json.loads, (FIDELITY / "ns3" / "ledbat.json").read_text().splitlines())
        if bool(r["newreno"]) == newreno
    ]
    assert runs
    return runs


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)


def compare(name: str, newreno: bool, sets: dict) -> list[str]:
    ref = ns3_runs(newreno)
    ours = [figures(name, r["seed"], sets) for r in ref]
    pairs = {
        "ledbat goodput (Mb/s)": (
            mean(o["goodput_mbps"][0] for o in ours),
            mean(r["goodput_mbps"][0] for r in ref),
            0.0,
        ),
    }
    if newreno:
        pairs["newreno goodput (Mb/s)"] = (
            mean(o["goodput_mbps"][1] for o in ours),
            mean(r["goodput_mbps"][1] for r in ref),
            0.0,
        )
    else:
        pairs["queueing delay (ms)"] = (
            mean(o["sojourn_ms"] for o in ours),
            mean(r["mean_sojourn_ms"] for r in ref),
            DELAY_FLOOR_MS,
        )
    return [
        f"{k}: aqmlab {a:.3f}, ns-3 {b:.3f}"
        for k, (a, b, floor) in pairs.items()
        if abs(a - b) > max(TOLERANCE * b, floor)
    ]


def test_alone_agrees_with_ns3_337_given_its_window_cap():
    assert compare("ledbat-alone.toml", False, NS3_337) == []


def test_alone_with_the_rfcs_allowance_differs_from_ns3_337():
    # The cause of the difference: RFC 6817's ALLOWED_INCREASE, which ns-3 3.37 lacks.
    assert compare("ledbat-alone.toml", False, {}) != []


def test_beside_newreno_goodputs_agree_with_ns3_337():
    # LEDBAT's few tens of kb/s and NewReno's rest. The queue NewReno builds in [30, 60) s is
    # not compared: it hangs on where its sawtooth is after its slow-start overshoot of the
    # 1000-packet buffer (ns-3 209 ms, aqmlab 290-440 ms by seed); without delayed ACKs on both
    # sides (ns-3 DelAckCount 1: 285 and 163 ms; aqmlab 863 and 295 ms) it differs as much, so
    # ns-3's per-ACK (not per-segment) NewReno growth is not its cause: unexplained.
    assert compare("ledbat.toml", True, NS3_337) == []
