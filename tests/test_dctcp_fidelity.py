"""Issue 22: DCTCP over a RED step marker agrees with ns-3 3.37's ``TcpDctcp``.

``tests/fidelity/dctcp-{2,8}x-k{20,65}.toml`` are the set-up that
``tests/fidelity/ns3/dctcp.cc`` builds in ns-3 (2 and 8 flows, 100 Mb/s x 10 ms, RED with
``min_th = max_th = K``, ``w_q = 1``, ECN, ``hard_drop = false``; RTT 100 ms); its runs are
committed in ``tests/fidelity/ns3/dctcp.json`` (``tests/fidelity/ns3/dctcp.md``). Over [50, 100) s,
means of the same seeds, aqmlab's goodput, mean queue and CE marks at the bottleneck must be
within 25 % of ns-3's. The queue is compared with ns-3's queue disc plus its one-packet device
queue: ns-3's device holds the next packet while one is on the wire, where aqmlab's link leaves
it in the discipline's backlog. The same flows with ``cc = "newreno"`` (RFC 3168's halving)
fall outside (their goodput is within 25 %, their queue and marks are not).
"""

import json

import aqmlab
import pytest
from conftest import ROOT

FIDELITY = ROOT / "tests" / "fidelity"
TOLERANCE = 0.25
CONFIGS = [(2, 20), (2, 65), (8, 20), (8, 65)]


def ns3_means(n: int, k: int) -> tuple[dict[str, float], list[int]]:
    runs = [
        r
        for r in map(json.loads, (FIDELITY / "ns3" / "dctcp.json").read_text().splitlines())
        if r["flows_n"] == n and r["k"] == k
    ]
    assert runs, f"no ns-3 run for {n} flows, K = {k}"
    mean = lambda key: sum(r[key] for r in runs) / len(runs)  # noqa: E731
    figures = {
        "goodput_mbps": mean("goodput_mbps"),
        "queue_pkts": mean("mean_qdisc_pkts") + mean("mean_device_queue_pkts"),
        "marks": mean("marks"),
    }
    return figures, [r["seed"] for r in runs]


def aqmlab_figures(n: int, k: int, seed: int, cc: str = "dctcp") -> dict[str, float]:
    path = FIDELITY / f"dctcp-{n}x-k{k}.toml"
    r = aqmlab.run(str(path), seed=seed, set={f"flows[{i}].cc": cc for i in range(n)})
    w = r.summary["windows"]["after_warmup"]
    assert (w["from_s"], w["to_s"]) == (50.0, 100.0)
    links = r.links
    lk = links[(links.link == "bottleneck") & (links.t_s >= 50.0) & (links.t_s < 100.0)]
    return {
        "goodput_mbps": sum(f["goodput_bps"] for f in w["flows"]) / 1e6,
        "queue_pkts": float(lk.mean_backlog_pkts.mean()),
        "marks": w["links"]["bottleneck"]["marked_pkts"],
    }


def compare(n: int, k: int, cc: str) -> dict[str, tuple[float, float]]:
    """Each figure as (aqmlab's mean over ns-3's seeds, ns-3's mean)."""
    ref, seeds = ns3_means(n, k)
    runs = [aqmlab_figures(n, k, s, cc) for s in seeds]
    return {key: (sum(r[key] for r in runs) / len(runs), ref[key]) for key in ref}


def outside(figures: dict[str, tuple[float, float]]) -> list[str]:
    return [
        f"{key}: aqmlab {ours:.2f}, ns-3 {ref:.2f}"
        for key, (ours, ref) in figures.items()
        if abs(ours - ref) > TOLERANCE * ref
    ]


@pytest.mark.parametrize(("n", "k"), CONFIGS)
def test_dctcp_agrees_with_ns3_within_25_percent(n, k):
    figures = compare(n, k, "dctcp")
    assert outside(figures) == [], figures


@pytest.mark.parametrize(("n", "k"), CONFIGS)
def test_newreno_with_ecn_does_not(n, k):
    # The counterfactual: the same flows with RFC 3168's reaction (halve once per window).
    figures = compare(n, k, "newreno")
    assert outside(figures) != [], figures
