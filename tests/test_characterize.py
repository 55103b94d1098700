"""``aqmlab characterize``: RFC 7928's scenarios set up with the RFC's numbers, the §2 metrics on
hand-built inputs, the delay-goodput ellipse against an independent fit, and the quick suite
for two disciplines, its JSON and its report in a real browser."""

import json
import math
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest
from aqmlab.characterize import catalog, measures
from aqmlab.characterize.catalog import build, templates
from aqmlab.run import load, toml_text
from conftest import run_cli


def _template(tid):
    return next(t for t in templates() if t.id == tid)


def _built(tid, variant="", rate=10e6, rtt=0.1, quick=False):
    t = _template(tid)
    v = next(v for v in t.variants() if v.get("name", "") == variant)
    return build(t, v, rate, rtt, quick)


def _seconds(text):
    return catalog.seconds(text, "test")


# --- set-up against the RFC's numbers -----------------------------------------------------------


@pytest.mark.parametrize(
    "rate,rtt", [(10e6, 0.1), (100e6, 0.1), (2e6, 0.05)], ids=["10M-100ms", "100M", "2M-50ms"]
)
@pytest.mark.parametrize(
    "tid,k", [("8.2.2-mild", 0.036), ("8.2.3-medium", 0.081), ("8.2.4-heavy", 0.114)]
)
def test_flow_counts_follow_s(tid, k, rate, rtt):
    # RFC 7928 §8.2.2-8.2.4: N = round(k·S), S = BDP + buffer in packets; buffer = BDP (§3.1).
    bdp = round(rate * rtt / 8 / 1500)
    s = 2 * bdp
    b = _built(tid, rate=rate, rtt=rtt)
    (flow,) = b.scenario["flows"]
    assert flow["count"] == round(k * s)
    assert (
        b.parameters["S_pkts"] == s and b.scenario["dumbbell"]["bottleneck"]["buffer"] == f"{bdp}p"
    )


def test_flow_counts_at_the_default_link():
    # 10 Mb/s, 100 ms: BDP 83 packets, S = 166: 6, 13 and 19 flows.
    counts = [
        _built(t).scenario["flows"][0]["count"]
        for t in ("8.2.2-mild", "8.2.3-medium", "8.2.4-heavy")
    ]
    assert counts == [6, 13, 19]


@pytest.mark.parametrize("variant,period", [("20s", 20.0), ("100ms", 0.1)])
def test_capacity_schedule_alternates_100_and_10(variant, period):
    # RFC 7928 §8.2.6: 100 and 10 Mb/s in turn, every 20 s and every 100 ms.
    b = _built("8.2.6-varying-capacity", variant)
    sched = b.scenario["dumbbell"]["bottleneck"]["schedule"]
    duration = _seconds(b.scenario["duration"])
    assert len(sched) == math.ceil(duration / period - 1e-9)
    for i, (t, r) in enumerate(sched):
        assert _seconds(t) == pytest.approx(i * period, abs=1e-6)
        assert r == ("100Mbps" if i % 2 == 0 else "10Mbps")
    # The buffer is the BDP at the larger rate; the load is mild congestion counted there.
    assert b.scenario["dumbbell"]["bottleneck"]["buffer"] == "833p"
    assert b.scenario["flows"][0]["count"] == round(0.036 * 1666)
    assert b.with_droptail


@pytest.mark.parametrize("quick", [False, True])
def test_varying_congestion_cycles_mild_medium_heavy(quick):
    # RFC 7928 §8.2.5: mild, medium, heavy, one phase each (20 s; 5 s quick), repeated.
    b = _built("8.2.5-varying-congestion", quick=quick)
    phase = 5.0 if quick else 20.0
    n = [catalog.flow_count(level, 166) for level in ("mild", "medium", "heavy")]
    duration = _seconds(b.scenario["duration"])
    assert duration >= 6 * phase  # repeated: at least two cycles

    def active(t):
        total = 0
        for f in b.scenario["flows"]:
            lo = _seconds(f["start"].split("(")[1].split(",")[0])
            hi = _seconds(f["start"].split(",")[1].strip(" )"))
            stop = _seconds(f["stop"]) if "stop" in f else math.inf
            assert hi - lo == pytest.approx(phase / 10)
            if hi <= t < stop:
                total += f["count"]
        return total

    # A measurement window per phase, named by its level, from a tenth into it to its end.
    levels = ["mild", "medium", "heavy"]
    for i, w in enumerate(b.scenario["windows"]):
        assert w["name"] == f"{levels[i % 3]}{i // 3}"
        assert _seconds(w["from"]) == pytest.approx((i + 0.1) * phase)
        assert _seconds(w["to"]) == pytest.approx((i + 1) * phase)
    k = 0
    while (3 * k + 3) * phase <= duration:
        for i in range(3):
            assert active((3 * k + i + 0.5) * phase) == n[i], (k, i)
        k += 1
    assert k >= 2


def test_packet_sizes_split_the_mild_load():
    # RFC 7928 §4.4: half the flows 500-B packets, half 1500-B, §8.2.2 traffic.
    b = _built("4.4-packet-size")
    small, large = b.scenario["flows"]
    assert small["mss"] + 40 == 500 and large["mss"] + 40 == 1500
    assert small["count"] + large["count"] == round(0.036 * 166)
    assert abs(small["count"] - large["count"]) <= 1


def test_rtt_fairness_paths_have_the_rfcs_rtts():
    # RFC 7928 §6.2: category I both at 100 ms; category II 100 ms and 5-560 ms. The resolved
    # scenario's link delays give each flow's propagation RTT.
    t = _template("6.2-rtt-fairness")
    seen = set()
    for v in t.variants():
        b = build(t, v, 10e6, 0.1, False)
        r = load(toml_text(b.scenario))
        rtts = measures.base_rtts(catalog._toml_loads(r.resolved_toml()))
        assert rtts == pytest.approx([r / 1e3 for r in b.parameters["rtts_ms"]])
        assert rtts[0] == pytest.approx(0.1)
        seen.add(round(rtts[1] * 1e3))
    assert {5, 560, 100} <= seen


def test_ecn_runs_every_rtt_fairness_rtt():
    """RFC 7928 §4.5 replicates §6.2 with ECN: in full mode the same variants (category I and
    every category II RTT), in quick mode a subset of them (category I)."""

    def rtts(tid, quick):
        t = _template(tid)
        return {
            v["name"]: build(t, v, 10e6, 0.1, quick).parameters["rtts_ms"]
            for v in t.variants(quick)
        }

    full = rtts("4.5-ecn", False)
    assert full == rtts("6.2-rtt-fairness", False)
    assert sorted(r[1] for r in full.values()) == [5.0, 20.0, 50.0, 100.0, 200.0, 560.0]
    quick = rtts("4.5-ecn", True)
    assert quick == {"cat1": [100.0, 100.0]}
    assert all(_built("4.5-ecn", v).ecn for v in full)


def test_udp_rates_relative_to_capacity():
    # RFC 7928 §5.3: above the capacity alone; 0.5-1x beside NewReno.
    assert _built("5.3-udp-overload", "1.2x").scenario["flows"][0]["rate"] == "12000000bps"
    flows = _built("5.3-udp-tcp", "0.5x").scenario["flows"]
    assert flows[0]["rate"] == "5000000bps" and flows[1]["cc"] == "newreno"


def test_every_scenario_loads_and_draws_its_start_times():
    for t in templates():
        if t.needs:
            continue
        for quick in (False, True):
            for v in t.variants(quick):
                b = build(t, v, 10e6, 0.1, quick)
                load(toml_text(b.scenario))
                for f in b.scenario["flows"]:
                    assert f["start"].startswith(("uniform(", "exponential(")), (t.id, f)


def test_every_scenario_runs():
    assert [t.id for t in templates() if t.needs] == []


def _counts(b):
    """Flows of a built scenario by name: (count, flow)."""
    return {f["name"]: (f.get("count", 1), f) for f in b.scenario["flows"]}


@pytest.mark.parametrize(
    "case,present",
    [
        ("case1", {"web"}),
        ("case2", {"web", "video"}),
        ("case3", {"web", "video", "cbr"}),
        ("case4", {"web", "video", "cbr", "bulk"}),
    ],
)
def test_burst_absorption_cases_add_one_source_each(case, present):
    # RFC 7928 §7.2: web pages of at least 50 objects over 6 parallel connections with IW 10 in
    # every case; video, CBR and bulk added one at a time.
    b = _built("7.2-bursts", case, rate=10e6)
    flows = _counts(b)
    assert set(flows) == present
    assert all(n == 1 for n, _ in flows.values())
    _, web = flows["web"]
    assert web["app"] == "page" and web["objects"] >= 50
    assert (web["parallel"], web["initial_cwnd"]) == (6, 10)
    if "video" in present:
        _, v = flows["video"]
        assert v["app"] == "video"
        assert v["ladder"] == ["500000bps", "1000000bps", "2000000bps", "4000000bps"]
    if "cbr" in present:
        assert flows["cbr"][1]["kind"] == "udp" and flows["cbr"][1]["rate"] == "1000000bps"
    if "bulk" in present:
        assert flows["bulk"][1].get("app", "bulk") == "bulk"
    load(toml_text(b.scenario))


def test_traffic_mix_is_the_rfcs():
    # RFC 7928 §9.1: 1 bidirectional VoIP, 6 web page downloads, 1 CBR, 1 adaptive video, 5 bulk.
    b = _built("9.1-traffic-mix", rate=10e6)
    flows = _counts(b)
    (nd, down), (nu, up) = flows["voip-down"], flows["voip-up"]
    assert nd == nu == 1 and down["kind"] == up["kind"] == "udp"
    assert (down["from"], down["to"]) == (up["to"], up["from"]), "one call, both directions"
    n, web = flows["web"]
    assert n == 6 and web["app"] == "page" and (web["objects"], web["parallel"]) == (50, 6)
    assert flows["cbr"][0] == 1 and flows["cbr"][1]["kind"] == "udp"
    assert flows["video"][0] == 1 and flows["video"][1]["app"] == "video"
    n, bulk = flows["bulk"]
    assert n == 5 and bulk.get("app", "bulk") == "bulk"
    assert sum(n for n, _ in flows.values()) == 1 + 1 + 6 + 1 + 1 + 5
    load(toml_text(b.scenario))


def test_page_and_video_metrics_from_summary_flows():
    flows = [
        {"app": "page", "pages": {"completed": 3, "time_s": 2.0}},
        {"app": "page", "pages": {"completed": 1, "time_s": 6.0}},
        {"app": "page", "pages": {"completed": 0, "time_s": None}},
        {
            "app": "video",
            "video": {"segments": 4, "bitrate_mean_bps": 1.5e6, "rebuffer_s": 0.25, "switches": 2},
        },
        {"app": "bulk"},
    ]
    m = measures.page_video(flows)
    # Pooled over pages: (3·2 + 1·6) / 4 = 3 s.
    assert m["page_time_s"] == 3.0 and m["pages_completed"] == 4
    assert m["video_bitrate_mbps"] == 1.5 and m["video_rebuffer_s"] == 0.25
    assert m["video_switches"] == 2
    assert measures.page_video([{"app": "bulk"}]) == {}


def test_two_aqms_in_a_row_chain_and_schedule():
    # RFC 7928 §10.2: s -> aqm1 (R) -> bottleneck (2R and R/2 in turn): the queue moves from
    # one AQM to the other every period; both hold the BDP at 2R; the path's RTT is the base.
    b = _built("10.2-two-aqms", "same")
    first, second = b.scenario["links"]
    assert (first["name"], first["rate"]) == ("aqm1", "10000000bps")
    assert [r for _, r in second["schedule"][:2]] == ["20000000bps", "5000000bps"]
    bdp = round(20e6 * 0.1 / 8 / 1500)
    assert first["buffer"] == second["buffer"] == f"{bdp}p"
    rtt = 2 * (_seconds(first["delay"]) + _seconds(second["delay"]))
    assert rtt == pytest.approx(0.1)
    assert b.params_keys == {"aqm1": "links[0].params", "bottleneck": "links[1].params"}


@pytest.mark.parametrize(
    "pairing,qdiscs,expected",
    [
        ("same", ["codel", "pie"], {"codel": "codel", "pie": "pie"}),
        ("different", ["codel", "pie", "red"], {"codel": "pie", "pie": "red", "red": "codel"}),
        ("different", ["codel"], {"codel": "pie"}),
        ("different", ["pie"], {"pie": "codel"}),
        ("other-params", ["codel", "droptail"], {"codel": "codel"}),
    ],
)
def test_two_aqms_pairings(pairing, qdiscs, expected):
    from aqmlab.characterize import cases_for

    b = _built("10.2-two-aqms", pairing)
    cases, skipped = cases_for(b, qdiscs, {q: {} for q in qdiscs})
    assert {q: c["qdisc:aqm1"] for q, c in cases.items()} == expected
    assert {q: c["qdisc:bottleneck"] for q, c in cases.items()} == {q: q for q in expected}
    if pairing == "other-params":
        # CoDel's target and interval doubled on the first AQM only; tail drop has no time
        # parameter, so it is left out with the reason (no case labelled as what did not run).
        assert cases["codel"]["links[0].params.target"] == "10ms"
        assert cases["codel"]["links[0].params.interval"] == "200ms"
        assert not any(k.startswith("links[1]") for k in cases["codel"])
        assert skipped == {"droptail": "droptail has no time parameter to change"}


def test_two_aqms_given_parameters_follow_the_pairing():
    from aqmlab.characterize import cases_for

    given = {"codel": {"target": "2ms"}}
    same, _ = cases_for(_built("10.2-two-aqms", "same"), ["codel"], given)
    assert same["codel"]["links[0].params.target"] == same["codel"]["links[1].params.target"]
    other, _ = cases_for(_built("10.2-two-aqms", "other-params"), ["codel"], given)
    assert other["codel"]["links[1].params.target"] == "2ms"
    assert other["codel"]["links[0].params.target"] == "4ms"


def test_a_user_template_folder(tmp_path):
    src = _template("5.2-cubic").path
    text = pathlib.Path(src).read_text().replace('id = "5.2-cubic"', 'id = "my-cubic"')
    (tmp_path / "mine.toml").write_text(text)
    (ts,) = templates(str(tmp_path))
    assert ts.id == "my-cubic"
    (tmp_path / "bad.toml").write_text(
        '[characterize]\nid = "x"\nsection = "1"\ntitle = "t"\nrequirement = "sometimes"\n'
    )
    with pytest.raises(Exception, match="characterize.requirement: expected one of"):
        templates(str(tmp_path))


# --- §2 metrics on hand-built inputs ------------------------------------------------------------


def test_sync_ratio_on_a_hand_built_sequence():
    # Four flows, one-RTT (100 ms) events: {0, 1} lose in the first (2/4), {0, 2, 3} in the
    # second (3/4), {1} in the third (1/4): mean 0.5.
    drops = [(0.00, 0), (0.05, 1), (0.30, 0), (0.31, 0), (0.35, 2), (0.39, 3), (1.0, 1)]
    assert measures.sync_ratio(drops, [0, 1, 2, 3], 0.1) == pytest.approx(0.5)
    # A loss exactly one window after an event's first opens the next event.
    assert measures.loss_events([0.0, 0.1], 0.1) == [(0, 1), (1, 2)]
    assert measures.sync_ratio([(0.0, 0), (0.1, 1)], [0, 1], 0.1) == pytest.approx(0.5)
    # Every flow losing in every event: fully synchronized.
    full = [(t + 0.01 * f, f) for t in (0.0, 1.0, 2.0) for f in range(3)]
    assert measures.sync_ratio(full, [0, 1, 2], 0.1) == 1.0
    # With the flows' spans, a flow not yet seen at an event's start is not counted in it:
    # flow 3 arrives at 0.2 s, so the first event's share is 2/3, not 2/4.
    spans = {0: (0.0, 2.0), 1: (0.0, 2.0), 2: (0.0, 2.0), 3: (0.2, 2.0)}
    got = measures.sync_ratio(drops, [0, 1, 2, 3], 0.1, spans)
    assert got == pytest.approx((2 / 3 + 3 / 4 + 1 / 4) / 3)
    # Drops of flows not counted (UDP) are left out; no loss: no ratio.
    assert measures.sync_ratio([(0.0, 9)], [0, 1], 0.1) is None


def test_loss_gaps_on_a_hand_built_sequence():
    overall, within = measures.loss_gaps([(0.3, 0), (0.0, 0), (0.1, 1), (0.45, 1)])
    assert overall == pytest.approx([0.1, 0.2, 0.15])
    assert sorted(within) == pytest.approx([0.3, 0.35])


def test_per_rate_split_of_a_schedule():
    # RFC 7928 §8.2.6 compares the phases: delay and utilization at each rate.
    import pandas as pd

    resolved = {
        "duration": "3s",
        "links": [
            {
                "name": "bottleneck",
                "schedule": [["0s", "100Mbps"], ["1s", "10Mbps"], ["2s", "100Mbps"]],
            }
        ],
    }
    pw = pd.DataFrame(
        {
            "t_ns": [500_000_000, 600_000_000, 1_500_000_000, 2_500_000_000],
            "sojourn_ns": [2_000_000, 4_000_000, 10_000_000, 6_000_000],
            "size": [1_250_000, 1_250_000, 625_000, 1_250_000],
        }
    )
    m = measures._per_rate(resolved, pw, warmup=0.5)
    assert m["queue_delay_ms@100Mbps"] == pytest.approx(4.0)
    assert m["queue_delay_ms@10Mbps"] == pytest.approx(10.0)
    # 30 Mb in 1.5 s at 100 Mb/s (the warm-up takes half of the first second); 5 Mb in 1 s at 10.
    assert m["utilization@100Mbps"] == pytest.approx(30e6 / (100e6 * 1.5))
    assert m["utilization@10Mbps"] == pytest.approx(0.5)
    assert measures._per_rate({"links": [{"name": "bottleneck"}]}, pw, 0.0) == {}


def test_per_level_over_the_phase_windows():
    def window(mean, released, dropped, enqueued, util):
        link = {
            "sojourn_ms": {"mean": mean},
            "released_pkts": released,
            "dropped_pkts": dropped,
            "enqueued_pkts": enqueued,
            "utilization": util,
        }
        return {"links": {"bottleneck": link}}

    summary = {
        "windows": {
            "after_warmup": window(99.0, 1, 1, 1, 1.0),  # not a phase: left out
            "mild0": window(10.0, 100, 1, 101, 0.8),
            "mild1": window(20.0, 300, 3, 303, 0.9),
            "heavy0": window(50.0, 200, 20, 220, 1.0),
        }
    }
    m = measures.per_level(summary)
    assert m["queue_delay_ms@mild"] == pytest.approx((10 * 100 + 20 * 300) / 400)
    assert m["loss_ratio@mild"] == pytest.approx(4 / 404)
    assert m["utilization@mild"] == pytest.approx(0.85)
    assert m["queue_delay_ms@heavy"] == 50.0 and "queue_delay_ms@medium" not in m


def test_ellipse_against_an_independent_fit():
    rng = np.random.default_rng(7)
    pts = rng.multivariate_normal([20.0, 3.0], [[16.0, -2.4], [-2.4, 1.0]], size=12)
    mean, cov = measures.gaussian_fit([tuple(p) for p in pts])
    # The maximum-likelihood fit: numpy's covariance with 1/n, not the unbiased 1/(n-1).
    assert mean == pytest.approx(pts.mean(axis=0).tolist())
    assert np.allclose(cov, np.cov(pts.T, bias=True))
    assert not np.allclose(cov, np.cov(pts.T))
    # Every contour point sits at squared Mahalanobis distance -2 ln ε (the chi-square quantile
    # with two degrees of freedom, in closed form).
    eps = 0.05
    inv = np.linalg.inv(np.cov(pts.T, bias=True))
    for p in measures.ellipse(mean, cov, eps=eps, n=50):
        d = np.asarray(p) - pts.mean(axis=0)
        assert d @ inv @ d == pytest.approx(-2 * math.log(eps), rel=1e-9)
    # And 1 - ε of a large sample of that Gaussian falls inside.
    big = rng.multivariate_normal(mean, cov, size=200_000)
    d = big - np.asarray(mean)
    inside = np.einsum("ij,jk,ik->i", d, np.linalg.inv(cov), d) <= -2 * math.log(eps)
    assert inside.mean() == pytest.approx(1 - eps, abs=0.005)


# --- the command --------------------------------------------------------------------------------


def test_bad_input_is_one_line(tmp_path):
    for args, msg in [
        (["codel", "--param", "codel.nope=1"], "codel has no parameter 'nope'"),
        (["blue"], "unknown discipline 'blue'"),
        (["codel", "--rtt", "100"], '--rtt: expected a duration like "100ms"'),
        (["codel", "--only", "99"], "--only 99: no scenario matches"),
    ]:
        r = run_cli("characterize", *args, "--out", str(tmp_path / "x"))
        assert r.returncode == 2
        assert r.stderr.count("\n") == 1 and msg in r.stderr, r.stderr


@pytest.fixture(scope="module")
def quick_dir(tmp_path_factory):
    """The quick suite for two disciplines (what CI runs)."""
    out = tmp_path_factory.mktemp("char") / "out"
    r = subprocess.run(
        [sys.executable, "-m", "aqmlab", "characterize", "codel", "droptail", "--quick"]
        + ["--out", str(out), "-q", "--bench", str(pathlib.Path(__file__).parent / "criterion")],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert r.returncode == 0, r.stderr
    return out


def test_quick_suite_writes_every_scenario(quick_dir):
    doc = json.loads((quick_dir / "characterization.json").read_text())
    assert doc["disciplines"] == ["codel", "droptail"] and doc["quick"]
    # Quick mode says which variants it left out (§4.5 runs category I only).
    assert doc["quick_left_out"]["4.5-ecn"] == [
        "cat2-5ms", "cat2-20ms", "cat2-50ms", "cat2-200ms", "cat2-560ms",
    ]  # fmt: skip
    assert "4.5-ecn: cat2-5ms, cat2-20ms" in (quick_dir / "report.html").read_text()
    ids = {e["id"] for e in doc["scenarios"]}
    for t in templates():
        assert any(i == t.id or i.startswith(t.id + "-") for i in ids), t.id
    assert {e["template"] for e in doc["scenarios"]} == {t.id for t in templates()}
    # §7.2 and §9.1 measure whole pages and the video.
    mix = next(e for e in doc["scenarios"] if e["id"] == "9.1-traffic-mix")["results"]
    for q in ("codel", "droptail"):
        assert mix[q]["pages_completed"]["mean"] > 0 and mix[q]["page_time_s"]["mean"] > 0
        assert mix[q]["video_bitrate_mbps"]["mean"] > 0
    for case in ("case1", "case4"):
        res = next(e for e in doc["scenarios"] if e["id"] == f"7.2-bursts-{case}")["results"]
        assert res["codel"]["page_time_s"]["n"] == 2
    for e in doc["scenarios"]:
        assert {"id", "section", "title", "requirement", "parameters", "results"} <= set(e)
        if e["status"] == "not run":
            assert e["reason"].startswith("needs ") and not e["results"]
            continue
        assert e["status"] == "run", e.get("errors")
        # Every discipline ran, or is listed as left out with why (§10's other-params).
        assert set(e["results"]) | set(e.get("skipped", {})) == {"codel", "droptail"}
        for q in e["results"]:
            stats = e["results"][q]
            for m in ("goodput_mbps", "queue_delay_ms", "loss_ratio", "owd_ms"):
                s = stats[m]
                assert s["n"] == 2 and s["ci95"][0] <= s["mean"] <= s["ci95"][1], (e["id"], m)
    # RFC 7928 §2.5-2.6's distributions: 101 quantiles per discipline, non-decreasing, over
    # both seeds; the one-way delay measured at the receivers, with two AQMs in a row (§10) too.
    assert doc["quantile_p"] == [i / 100 for i in range(101)]
    for e in doc["scenarios"]:
        for q, ds in e.get("distributions", {}).items():
            for name, d in ds.items():
                assert len(d["quantiles"]) == 101 and d["n"] == 2, (e["id"], q, name)
                assert all(a <= b for a, b in zip(d["quantiles"], d["quantiles"][1:]))
    dm = next(e for e in doc["scenarios"] if e["id"] == "8.2.2-mild")["distributions"]
    assert set(dm["codel"]) == {"queue_delay_ms", "owd_ms", "pdv_ms", "goodput_10rtt_mbps"}
    two = next(e for e in doc["scenarios"] if e["id"] == "10.2-two-aqms-same")["distributions"]
    assert {"owd_ms", "pdv_ms"} <= set(two["codel"])
    # CoDel holds a shorter queue than tail drop where TCP fills the buffer.
    mild = next(e for e in doc["scenarios"] if e["id"] == "8.2.2-mild")["results"]
    assert mild["codel"]["queue_delay_ms"]["mean"] < mild["droptail"]["queue_delay_ms"]["mean"] / 2
    # Seeds matter: the two seeds differ.
    assert mild["codel"]["goodput_mbps"]["ci95"][1] > mild["codel"]["goodput_mbps"]["ci95"][0]
    # §10.2: the queue moves between the two links in a row, and the AQM at each holds it:
    # CoDel twice keeps both queues short where tail drop twice lets both fill; with tail drop
    # in front of CoDel (the "different" pairing), the first link's queue is tail drop's.
    res = {e["id"]: e["results"] for e in doc["scenarios"] if e["template"] == "10.2-two-aqms"}
    same, diff = res["10.2-two-aqms-same"], res["10.2-two-aqms-different"]

    def qd(r, q, link=""):
        return r[q][f"queue_delay_ms{link}"]["mean"]

    for link in ("", "[aqm1]"):
        assert qd(same, "codel", link) < qd(same, "droptail", link) / 2, link
    assert qd(diff, "codel", "[aqm1]") > 2 * qd(same, "codel", "[aqm1]")
    assert qd(diff, "droptail") > 2 * qd(same, "codel")


def test_quick_suite_is_resumable(quick_dir):
    # A second start simulates nothing: every run is in the cache.
    before = {p: p.stat().st_mtime_ns for p in (quick_dir / "runs").glob("*/runs/*/summary.json")}
    r = run_cli(
        "characterize",
        "codel",
        "droptail",
        "--quick",
        "--out",
        str(quick_dir),
        "-q",
        "--only",
        "8.2.2",
    )
    assert r.returncode == 0, r.stderr
    after = {p: p.stat().st_mtime_ns for p in (quick_dir / "runs").glob("*/runs/*/summary.json")}
    assert before == after
    # The scenarios not run now are kept in the JSON (same settings), and so is the --bench
    # measurement, not given again.
    doc = json.loads((quick_dir / "characterization.json").read_text())
    assert {e["template"] for e in doc["scenarios"]} == {t.id for t in templates()}
    assert doc["bench"]["cases"]


def test_quick_report_is_self_contained(quick_dir):
    page = (quick_dir / "report.html").read_text()
    import re

    refs = re.findall(r'(?:src|href)\s*=\s*"([^"#]+)"', page)
    assert refs and all(r.startswith("data:image/png;base64,") for r in refs)
    words = ("must", "may", "LEDBAT", "Implementation cost", "codel", "droptail")
    words += ("RFC 7928 Fig. 4", "goodput per flow per 10·minRTT sample, median")
    for word in words + ("web page completion time", "adaptive video: time rebuffering"):
        assert word in page, word
    # RFC 7928 §11: --bench's measurements are in the JSON and shown per discipline.
    doc = json.loads((quick_dir / "characterization.json").read_text())
    assert sorted(c["kind"] for c in doc["bench"]["cases"]) == ["codel", "droptail"]
    assert page.count("<b>time per packet, measured</b>: ") == 2
    assert "not measured" not in page


def test_quick_report_renders_in_a_real_browser(quick_dir, tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("CI installs chromium: the report must be tested in a browser")
        pytest.skip("chromium is not installed")
    page = quick_dir / "report.html"
    shot = tmp_path / "shot.png"
    cmd = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,1800",
        f"--screenshot={shot}", page.as_uri(),
    ]  # fmt: skip
    subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    import matplotlib.image as mpimg

    img = mpimg.imread(str(shot))
    assert img.shape[0] > 100 and float(img[..., :3].std()) > 0.01
    n_img = page.read_text().count("<img")
    doc = json.loads((quick_dir / "characterization.json").read_text())
    assert n_img == sum(1 for e in doc["scenarios"] if e["status"] == "run")
    # Nothing missing: every figure decoded in the browser. A copy of the page counts, once it
    # has loaded, the images the browser holds and those it decoded (a complete image with a
    # width); a copy with one figure's bytes broken must count one fewer.
    import re

    def decoded(html: str, name: str) -> tuple[int, int]:
        probe = (
            "<script>window.addEventListener('load', function () {"
            " var a = Array.from(document.images);"
            " document.body.setAttribute('data-images', a.length);"
            " document.body.setAttribute('data-decoded', a.filter(function (i) {"
            " return i.complete && i.naturalWidth > 0; }).length); });</script>"
        )
        at = html.rfind("</body>")
        copy = tmp_path / name
        copy.write_text(html[:at] + probe + html[at:], encoding="utf-8")
        dom = subprocess.run(
            [*cmd[:-2], "--virtual-time-budget=10000", "--dump-dom", copy.as_uri()],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
        body = re.search(r'<body[^>]*data-images="(\d+)"[^>]*data-decoded="(\d+)"', dom)
        assert body, dom[:500]
        return int(body.group(1)), int(body.group(2))

    html = page.read_text(encoding="utf-8")
    assert decoded(html, "probe.html") == (n_img, n_img)
    broken = re.sub(r"(data:image/png;base64,)[A-Za-z0-9+/]{16}", r"\1" + "A" * 16, html, count=1)
    assert decoded(broken, "broken.html") == (n_img, n_img - 1)


def test_full_mode_warns_below_five_seeds(tmp_path, capsys):
    """RFC 7928's characterizations are reported with 95 % intervals over at least 5 seeds in
    full mode: fewer is allowed, with a warning before anything runs; quick mode, whose 2
    seeds are its point, does not warn."""
    from aqmlab.characterize import FULL_SEEDS, characterize
    from aqmlab.exceptions import ScenarioError

    for quick, seeds, warned in ((False, 2, True), (False, FULL_SEEDS, False), (True, 2, False)):
        # --only that matches nothing stops the call after the checks, before any run.
        with pytest.raises(ScenarioError, match="no scenario matches"):
            characterize(["codel"], str(tmp_path / "o"), quick=quick, seeds=seeds, only=["x9"])
        err = capsys.readouterr().err
        assert ("2 seed(s) in full mode" in err) is warned, (quick, seeds, err)


def test_a_users_scenarios_run_beside_the_bundled_ones(tmp_path, capsys):
    """``--scenarios DIR`` adds a folder of the user's templates to the bundled catalog (not in
    its place); an id used twice, a missing folder and an empty one are one line each."""
    from aqmlab.exceptions import ScenarioError as CatalogError

    mine = tmp_path / "mine"
    mine.mkdir()
    text = pathlib.Path(_template("5.2-cubic").path).read_text()
    (mine / "a.toml").write_text(text.replace('id = "5.2-cubic"', 'id = "my-cubic"'))
    ids = [t.id for t in templates(None, [str(mine)])]
    assert ids[-1] == "my-cubic" and "5.2-cubic" in ids and len(ids) == len(templates()) + 1
    # The command line runs it: only the user's scenario, quick, one discipline.
    out = tmp_path / "ch"
    r = run_cli(
        "characterize", "codel", "--quick", "--seeds", "1", "--scenarios", str(mine),
        "--only", "my-cubic", "--out", str(out), "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "characterization.json").read_text())
    assert [e["id"] for e in doc["scenarios"]] == ["my-cubic"]
    assert doc["scenarios"][0]["status"] == "run"
    (mine / "b.toml").write_text(text)  # the bundled 5.2-cubic's id again
    with pytest.raises(CatalogError, match="'5.2-cubic' is used twice"):
        templates(None, [str(mine)])
    with pytest.raises(CatalogError, match="not a folder"):
        templates(None, [str(tmp_path / "nope")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(CatalogError, match="no scenario template"):
        templates(None, [str(tmp_path / "empty")])
