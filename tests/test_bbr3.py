"""Issue 22 item 5: BBR v3 (``cc = "bbr3"``, ``crates/aqmlab-tcp/src/cc/bbr3.rs``) end to end.

The dumbbell is issue 22's BBR check (``tests/fidelity/bbr-{alone,cubic}-b{83,1000}.toml``: a
10 Mb/s x 10 ms tail-drop bottleneck of 83 packets (one BDP) or 1000, base RTT 100 ms),
measured over [50, 100) s. v3's claims, each beside its counterfactual:

* alone it fills the link (utilization near 1) on both buffers without loss;
* two flows in the shallow buffer: v3's loss rate stays under its 2 % threshold and its queue
  below v1's (v1, which ignores loss, exceeds both);
* beside CUBIC in the shallow buffer the two share the link (v1 takes most of it);
* with ECN on a step marker (``examples/bbr3_ecn_step.toml``: CoDel's ``ce_threshold`` = 1 ms,
  8.3 packets at 100 Mb/s, base RTT 3 ms, where v3 acts on ECN) the queue sits near the
  threshold; without ECN, or with v1, it does not.

This machine's kernel has only BBR v1, so there is no Linux v3 comparison here.
"""

import aqmlab
import pytest
from conftest import ROOT

FIDELITY = ROOT / "tests" / "fidelity"
ECN_STEP = ROOT / "examples" / "bbr3_ecn_step.toml"


def figures(path, window="after_warmup", unset=None, **overrides) -> dict[str, float]:
    r = aqmlab.run(str(path), seed=1, set=overrides, unset=unset)
    w = r.summary["windows"][window]
    lk = r.links
    lk = lk[(lk.link == "bottleneck") & (lk.t_s >= w["from_s"]) & (lk.t_s < w["to_s"])]
    flows = w["flows"]
    sent = sum(f["sent_pkts"] for f in flows)
    return {
        "goodput": [f["goodput_bps"] / 1e6 for f in flows],
        "queue_pkts": float(lk.mean_backlog_pkts.mean()),
        "utilization": float(
            lk.egress_bytes.sum() * 8 / (lk.capacity_bps.mean() * (w["to_s"] - w["from_s"]))
        ),
        "loss": sum(f["dropped_pkts"] for f in flows) / sent,
    }


def dumbbell(mix: str, buffer: int, cc: str, other: str | None = None) -> dict[str, float]:
    s = {"flows[0].cc": cc}
    unset = None
    if other:
        # The scenario's CUBIC is Linux's (cubic_linux), which only cc = "cubic" takes.
        s["flows[1].cc"] = other
        unset = ["flows[1].cubic_linux"]
    return figures(FIDELITY / f"bbr-{mix}-b{buffer}.toml", unset=unset, **s)


@pytest.mark.parametrize("buffer", [83, 1000])
def test_alone_it_fills_the_link_without_loss(buffer):
    f = dumbbell("alone", buffer, "bbr3")
    assert f["utilization"] > 0.95, f
    assert f["loss"] == 0.0
    assert f["queue_pkts"] < 15


def test_two_flows_in_one_bdp_of_buffer_keep_loss_under_2_percent_and_less_queue_than_v1():
    v3 = dumbbell("cubic", 83, "bbr3", other="bbr3")
    v1 = dumbbell("cubic", 83, "bbr", other="bbr")
    assert v3["utilization"] > 0.95 and v1["utilization"] > 0.95
    assert v3["loss"] < 0.02, v3
    assert v1["loss"] > 0.02, v1  # the counterfactual: v1 does not bound its loss
    assert v3["queue_pkts"] < 0.7 * v1["queue_pkts"], (v3, v1)


def test_beside_cubic_in_one_bdp_of_buffer_the_link_is_shared():
    v3 = dumbbell("cubic", 83, "bbr3")
    v1 = dumbbell("cubic", 83, "bbr")
    share = lambda f: f["goodput"][0] / sum(f["goodput"])  # noqa: E731
    assert 0.3 < share(v3) < 0.7, v3
    assert share(v1) > 0.8, v1  # v1 crowds CUBIC out


def test_with_ecn_on_a_step_marker_the_queue_stays_near_the_threshold():
    k = 1e-3 * 100e6 / (1500 * 8)  # 1 ms at 100 Mb/s: 8.33 packets
    f = figures(ECN_STEP)
    assert f["utilization"] > 0.9, f
    assert 0.5 * k < f["queue_pkts"] < 1.5 * k, f
    # Counterfactuals: without ECN (CoDel's 5 ms target alone acts) and with v1 (no ECN
    # response), the queue sits well above the threshold.
    off = figures(ECN_STEP, **{"flows[0].ecn": False, "flows[1].ecn": False})
    v1 = figures(ECN_STEP, **{"flows[0].cc": "bbr", "flows[1].cc": "bbr"})
    assert off["queue_pkts"] > 2 * k, off
    assert v1["queue_pkts"] > 2 * k, v1
