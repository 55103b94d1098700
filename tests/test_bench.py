"""``aqmlab bench``: the report's keys and consistency (figures are reported, never asserted)."""

import json

from conftest import ROOT, run_cli

KEYS = {"name", "delivered_pkts", "events", "wall_s", "pkts_per_s", "events_per_s", "peak_rss_mb"}


def test_bench_json_reports_every_key_for_every_scenario():
    p = run_cli("bench", "--json", "--repeat", "2", "--root", str(ROOT))
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [r["name"] for r in rows] == [
        "bulk-dumbbell",
        "codel-dynamic-link",
        "codel-dynamic-link/droptail",
        "web-overload",
        "scale-1",
        "scale-100",
        "scale-10000",
    ]
    for r in rows:
        assert r.keys() >= KEYS
        assert r["runs"] == 2
        assert r["wall_s_min"] <= r["wall_s"] <= r["wall_s_max"]
        assert r["delivered_pkts"] > 0 and r["events"] > r["delivered_pkts"]
        assert abs(r["pkts_per_s"] - r["delivered_pkts"] / r["wall_s"]) <= 1e-6 * r["pkts_per_s"]
        assert r["peak_rss_mb"] > 0
        assert r["build"] in ("profile-guided", "plain")
        assert r["pkts_per_s_best"] >= r["pkts_per_s"]
        assert abs(r["ns_per_pkt"] * r["pkts_per_s"] - 1e9) <= 1e-6 * 1e9
    scale = {r["flows"]: r for r in rows if "flows" in r}
    assert sorted(scale) == [1, 100, 10_000]
    assert scale[1]["ns_per_pkt_vs_1_flow"] == 1.0
    for n, r in scale.items():
        assert r["name"] == f"scale-{n}" and r["n_flows"] == n
        assert r["ns_per_pkt_vs_1_flow"] == r["ns_per_pkt"] / scale[1]["ns_per_pkt"]


def test_bench_rejects_a_bad_repeat_and_a_missing_root(tmp_path):
    p = run_cli("bench", "--repeat", "0", "--root", str(ROOT))
    assert p.returncode == 2
    assert "--repeat must be at least 1, got 0" in p.stderr
    p = run_cli("bench", "--repeat", "1", "--root", str(tmp_path))
    assert p.returncode == 2
    assert "benchmark scenario not found" in p.stderr
    assert "Traceback" not in p.stderr


def test_disjoint_dumbbells_each_carry_the_one_flow_benchmark(tmp_path):
    # `bench/scale_dumbbell.py --disjoint K`: K copies of the bulk benchmark's dumbbell that
    # share no link, so each delivers exactly what the 1-flow scale scenario delivers (NewReno
    # over tail drop draws no random number): the network grows, the traffic per dumbbell not.
    from aqmlab import _core
    from aqmlab.bench import disjoint_scenario, scale_scenario

    base = (ROOT / "scenarios" / "bulk-dumbbell.toml").read_text()
    runs = {}
    for name, text in [
        ("scale-1", scale_scenario(base, 1, 2)),
        ("disjoint-1", disjoint_scenario(base, 1, 2)),
        ("disjoint-3", disjoint_scenario(base, 3, 2)),
    ]:
        path = tmp_path / f"{name}.toml"
        path.write_text(text)
        r = _core.load_scenario(str(path), None, [])
        r.advance(r.duration_s)
        s = json.loads(r.summary_json())
        assert s["scenario"] == name
        runs[name] = (s["events"], [f["delivered_pkts"] for f in s["flows"]], len(s["links"]))
    events, delivered, n_links = runs["scale-1"]
    assert delivered[0] > 10_000
    assert runs["disjoint-1"] == (events, delivered, n_links)
    assert runs["disjoint-3"] == (3 * events, delivered * 3, 3 * n_links)
