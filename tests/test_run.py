"""``aqmlab run`` and ``aqmlab.run``: outputs, overrides, bad scenario input."""

import json

import aqmlab
import pandas as pd
import pytest
from aqmlab.run import load
from conftest import ROOT, run_cli

UDP = """
name = "udp-dumbbell"
duration = "5s"
seed = 3

[dumbbell]
senders = 2
access_rate = "100Mbps"
sender_delay = "1ms"
receiver_delay = ["2ms", "4ms"]

[dumbbell.bottleneck]
rate = "10Mbps"
delay = "10ms"
qdisc = "codel"
buffer = "200p"

[[flows]]
kind = "udp"
from = "s1"
to = "r1"
rate = "6Mbps"

[[flows]]
kind = "udp"
from = "s2"
to = "r2"
rate = "6Mbps"
size = 1000
"""


@pytest.fixture
def scenario(tmp_path):
    p = tmp_path / "udp.toml"
    p.write_text(UDP)
    return p


def test_run_writes_summary_and_series(scenario, tmp_path):
    out = tmp_path / "out"
    r = run_cli("run", str(scenario), "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text())
    for key in ("scenario", "seed", "sim_time_s", "wall_s", "events", "links", "flows", "fairness"):
        assert key in s
    assert s["scenario"] == "udp-dumbbell" and s["seed"] == 3 and s["sim_time_s"] == 5.0
    b = s["links"]["bottleneck"]
    for key in ("qdisc", "sojourn_ms", "enqueued_pkts", "delivered_pkts", "dropped_pkts"):
        assert key in b
    assert set(b["sojourn_ms"]) == {"mean", "p50", "p75", "p95", "p99", "max", "std"}
    assert b["qdisc"] == "codel" and b["utilization"] > 0.99
    # Conservation at the bottleneck: offered = sent + dropped + still queued (+1 in flight).
    assert 0 <= b["enqueued_pkts"] - b["delivered_pkts"] - b["dropped_pkts"] <= 201
    assert len(s["flows"]) == 2 and s["flows"][0]["kind"] == "udp"
    assert 0.9 < s["fairness"]["jain_goodput"] <= 1.0
    links = pd.read_parquet(out / "links.parquet")
    flows = pd.read_parquet(out / "flows.parquet")
    assert list(links.columns) == [
        "link", "t_s", "ingress_bytes", "egress_bytes", "max_backlog_pkts", "max_backlog_bytes",
        "drops", "released_pkts", "mean_sojourn_ms", "mean_backlog_pkts", "mean_backlog_bytes",
        "capacity_bps",
    ]  # fmt: skip
    assert list(flows.columns) == [
        "flow", "t_s", "delivered_bytes", "cumulative_bytes", "srtt_ms", "name", "cwnd_bytes",
        "ssthresh_bytes",
    ]  # fmt: skip
    # The series add up to the summary's totals.
    bl = links[links.link == "bottleneck"]
    assert bl.egress_bytes.sum() == b["delivered_bytes"]
    assert bl.drops.sum() == b["dropped_pkts"]
    f0 = flows[flows.flow == 0]
    assert f0.cumulative_bytes.iloc[-1] == s["flows"][0]["delivered_bytes"]


def test_packet_log(scenario, tmp_path):
    out = tmp_path / "out"
    r = run_cli("run", str(scenario), "--out", str(out), "--quiet", "--packet-log", "bottleneck")
    assert r.returncode == 0, r.stderr
    pk = pd.read_parquet(out / "packets.parquet")
    s = json.loads((out / "summary.json").read_text())
    b = s["links"]["bottleneck"]
    assert list(pk.columns) == ["link", "t_ns", "sojourn_ns", "size", "flow"]
    assert set(pk.link) == {"bottleneck"}
    assert b["delivered_pkts"] <= len(pk) <= b["delivered_pkts"] + 1
    assert pk.sojourn_ns.max() / 1e6 == pytest.approx(b["sojourn_ms"]["max"], abs=1e-6)
    r = run_cli("run", str(scenario), "--quiet", "--packet-log", "nolink")
    assert r.returncode == 2 and "--packet-log nolink: no link direction" in r.stderr


def test_same_seed_same_results_and_csv_option(scenario, tmp_path):
    a = aqmlab.run(scenario, tmp_path / "a", csv=True)
    b = aqmlab.run(scenario, tmp_path / "b", csv=True)
    strip = {"wall_s"}
    assert {k: v for k, v in a.summary.items() if k not in strip} == {
        k: v for k, v in b.summary.items() if k not in strip
    }
    assert (tmp_path / "a" / "links.csv").read_text() == (tmp_path / "b" / "links.csv").read_text()


def test_progress_bar_shows_simulated_time(scenario, capsys, monkeypatch):
    import importlib

    run_mod = importlib.import_module("aqmlab.run")  # the module, not the `aqmlab.run` function
    # Runs faster than PROGRESS_AFTER_S show no bar; slower ones draw one on stderr.
    aqmlab.run(scenario, progress=True)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(run_mod, "PROGRESS_AFTER_S", 0.0)
    aqmlab.run(scenario, progress=True)
    err = capsys.readouterr().err
    assert "5.0/5.0 s simulated" in err and "[" + "#" * 30 + "]" in err


def test_seed_must_be_non_negative(scenario):
    r = run_cli("run", str(scenario), "--seed", "-1", "--quiet")
    assert r.returncode == 2 and "expected a whole number" in r.stderr
    assert "Traceback" not in r.stderr


def test_scenario_given_as_text_names_it_string():
    with pytest.raises(aqmlab.ScenarioError, match=r"^<string>:3: duration"):
        aqmlab.run(UDP.replace('duration = "5s"', 'duration = "5"'))


def test_set_values_keep_their_python_type(scenario):
    r = aqmlab.run(scenario, set={"name": "123", "duration": "1s"})
    assert r.summary["scenario"] == "123"
    import numpy as np

    r = aqmlab.run(scenario, set={"duration": "1s", "seed": np.int64(4), "flows[1].size": 900})
    assert r.summary["seed"] == 4


def test_scenario_given_as_text():
    r = aqmlab.run(UDP.replace('duration = "5s"', 'duration = "1s"'))
    assert r.summary["sim_time_s"] == 1.0
    assert r.summary["links"]["bottleneck"]["drops_by_reason"].keys() <= {
        "codel_target",
        "overlimit",
    }


def test_qdisc_and_set_overrides(scenario):
    r = aqmlab.run(
        scenario,
        qdisc={"bottleneck": "droptail"},
        set={"dumbbell.bottleneck.rate": "20Mbps", "seed": 9},
    )
    b = r.summary["links"]["bottleneck"]
    assert b["qdisc"] == "droptail"
    assert b["dropped_pkts"] == 0  # 12 Mb/s now fits in 20 Mb/s
    assert r.summary["seed"] == 9


BAD = [
    (("access_rate", "acess_rate"), ":8: dumbbell.acess_rate: unknown field `acess_rate`"),
    (('rate = "10Mbps"', 'rate = "10 MB"'), ":13: dumbbell.bottleneck.rate: expected a rate"),
    (('rate = "10Mbps"', "rate = 10"), ":13: dumbbell.bottleneck.rate: invalid type: integer"),
    (('rate = "10Mbps"', 'rate = "-10Mbps"'), ":13: dumbbell.bottleneck.rate: expected a rate"),
    (('buffer = "200p"', 'buffer = "200"'), ":16: dumbbell.bottleneck.buffer: expected a size"),
    (('to = "r1"', 'to = "r9"'), ":21: flows[0].to: expected one of the nodes"),
    (('qdisc = "codel"', 'qdisc = "blue"'), ":15: dumbbell.bottleneck.qdisc: unknown queue"),
    (('rate = "10Mbps"', 'trace = "nope.down"'), ":13: dumbbell.bottleneck.trace: "),
]


@pytest.mark.parametrize("edit,message", BAD)
def test_bad_scenarios_fail_before_simulating_with_one_line(tmp_path, edit, message):
    old, new = edit
    text = UDP.replace(old, new, 1)
    p = tmp_path / "bad.toml"
    p.write_text(text)
    r = run_cli("run", str(p), "--out", str(tmp_path / "o"), "--quiet")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"{p}{message}" in r.stderr, r.stderr
    assert not (tmp_path / "o").exists()


def test_bad_overrides_and_missing_file(scenario):
    r = run_cli("run", str(scenario), "--qdisc", "nolink=red", "--quiet")
    assert r.returncode == 2 and '--qdisc nolink=red: no link named "nolink"' in r.stderr
    r = run_cli("run", str(scenario), "--set", "flows[7].rate=1Mbps", "--quiet")
    assert r.returncode == 2 and "flows has 2 elements, no [7]" in r.stderr
    r = run_cli("run", str(scenario), "--qdisc", "bottleneck", "--quiet")
    assert r.returncode == 2 and "expected NAME=VALUE" in r.stderr
    r = run_cli("run", str(ROOT / "no-such.toml"))
    assert r.returncode == 2 and "cannot read the scenario" in r.stderr
    with pytest.raises(aqmlab.ScenarioError):
        aqmlab.run(ROOT / "README.md")


def test_cli_set_reads_values_as_toml_when_they_are(scenario, tmp_path):
    # Numbers and booleans arrive as such; a value with a unit stays a string.
    out = tmp_path / "o"
    r = run_cli(
        "run",
        str(scenario),
        "--out",
        str(out),
        "--quiet",
        "--set",
        "seed=7",
        "--set",
        "flows[1].size=900",
        "--set",
        "duration=1s",
        "--set",
        "dumbbell.bottleneck.params.ecn=true",
        "--set",
        'name="042"',
    )
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text())
    assert s["seed"] == 7 and s["sim_time_s"] == 1.0 and s["scenario"] == "042"


SET_ERRORS = [
    ("flows[0].size=big", "--set flows[0].size=big: invalid type: string"),
    ("dumbbell.nonexistent=3", "--set dumbbell.nonexistent=3: unknown field `nonexistent`"),
    (
        "dumbbell.bottleneck.params.target=5",
        "--set dumbbell.bottleneck.params.target=5: codel: parameter target = 5: "
        "expected a duration",
    ),
]


@pytest.mark.parametrize("assignment,message", SET_ERRORS)
def test_cli_set_errors_name_the_set_not_a_line(scenario, assignment, message):
    r = run_cli("run", str(scenario), "--quiet", "--set", assignment)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"{scenario}: {message}" in r.stderr, r.stderr


def test_bad_compare_names_its_flag_before_anything_runs(scenario, tmp_path):
    r = run_cli("run", str(scenario), "--out", str(tmp_path / "o"), "--compare", "nolink=red")
    assert r.returncode == 2
    assert '--compare nolink=red: no link named "nolink"' in r.stderr, r.stderr
    assert not (tmp_path / "o").exists()


def test_scenario_of_the_wrong_type_or_one_line_of_toml():
    with pytest.raises(TypeError, match="expected a path, TOML text or a dict, got int"):
        aqmlab.run(7)
    # A dict is a scenario (tests/test_authoring.py): this one has no topology.
    with pytest.raises(aqmlab.ScenarioError, match="^<dict>: no topology"):
        aqmlab.run({"duration": "1s"})
    with pytest.raises(aqmlab.ScenarioError, match="^<string>: no topology"):
        aqmlab.run('duration = "1s"')


def test_output_table_writes_csv_and_the_packet_log(tmp_path):
    p = tmp_path / "o.toml"
    p.write_text(
        UDP.replace('duration = "5s"', 'duration = "1.05s"')
        + '\n[output]\nformat = "csv"\npacket_log = ["bottleneck"]\n'
    )
    out = tmp_path / "out"
    r = run_cli("run", str(p), "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    assert sorted(f.name for f in out.iterdir()) == [
        "drops.csv",
        "flows.csv",
        "links.csv",
        "packets.csv",
        "scenario.resolved.toml",
        "summary.json",
    ]
    s = json.loads((out / "summary.json").read_text())
    links = pd.read_csv(out / "links.csv")
    packets = pd.read_csv(out / "packets.csv")
    b = s["links"]["bottleneck"]
    # The streamed files hold every bin (11 of 100 ms, the last one partly) and every packet.
    assert sorted(links["t_s"].unique()) == [round(0.1 * k, 10) for k in range(11)]
    bl = links[links["link"] == "bottleneck"]
    assert bl["egress_bytes"].sum() == b["delivered_bytes"]
    assert bl["drops"].sum() == b["dropped_pkts"]
    # The log has a row per packet the discipline released: those delivered, and at most one
    # still being transmitted at the end.
    assert len(packets) - b["delivered_pkts"] in (0, 1)
    assert set(packets["link"]) == {"bottleneck"}


def test_streamed_files_equal_the_returned_dataframes(scenario, tmp_path):
    # The files are written chunk by chunk during the run; the DataFrames come ordered by link
    # and time. Both hold the same rows.
    out = tmp_path / "o"
    r = aqmlab.run(scenario, out, set={"duration": "3.33s"})
    for name, df in (("links", r.links), ("flows", r.flows)):
        key = df.columns[0]
        f = pd.read_parquet(out / f"{name}.parquet")
        f = f.sort_values([key, "t_s"], kind="stable").reset_index(drop=True)
        d = df.sort_values([key, "t_s"], kind="stable").reset_index(drop=True)
        pd.testing.assert_frame_equal(f, d, check_dtype=False)
    assert (
        r.links.groupby("link", sort=False)["t_s"].apply(lambda t: t.is_monotonic_increasing).all()
    )
    assert len(r.links) == len(r.summary["links"]) * 34  # 3.33 s in 100 ms bins: 34 bins
    assert aqmlab.run(scenario, out, keep=False).links is None


def test_per_bin_delay_series_agree_with_the_summary():
    # The bins' mean sojourn, weighted by the packets released in each, is the run's mean
    # sojourn (exact in the summary). A flow's per-bin sRTT is sampled in (nearly) every bin and
    # never below its path's propagation RTT.
    r = aqmlab.run(ROOT / "scenarios" / "codel-dynamic-link.toml", set={"duration": "20s"})
    b = r.links[r.links["link"] == "bottleneck"]
    s = r.summary["links"]["bottleneck"]
    released = b["released_pkts"].sum()
    assert released - s["delivered_pkts"] in (0, 1)  # at most one still on the wire
    busy = b[b["released_pkts"] > 0]
    mean = (busy["mean_sojourn_ms"] * busy["released_pkts"]).sum() / released
    assert mean == pytest.approx(s["sojourn_ms"]["mean"], rel=1e-6)
    assert b.loc[b["released_pkts"] == 0, "mean_sojourn_ms"].isna().all()
    # Delay rises and falls with the queue: some bins are far above the run's median.
    assert busy["mean_sojourn_ms"].max() > 5 * s["sojourn_ms"]["p50"]
    f0 = r.flows[r.flows["flow"] == 0]
    assert f0["srtt_ms"].notna().sum() > 150  # an ACK in nearly every 100 ms bin
    assert f0["srtt_ms"].min() >= 2 * (20 + 10 + 21) - 1  # never below the propagation RTT


def test_compare_with_an_unknown_discipline_names_the_flag(scenario):
    r = run_cli("run", str(scenario), "--compare", "bottleneck=bogus", "--quiet")
    assert r.returncode == 2
    assert "--compare bottleneck: unknown queue discipline" in r.stderr, r.stderr


def test_a_run_that_stops_early_leaves_no_partial_files(scenario, tmp_path, monkeypatch):
    import aqmlab.series

    out = tmp_path / "o"
    aqmlab.run(scenario, out, set={"duration": "1s"})
    before = {f.name: f.read_bytes() for f in out.iterdir()}
    calls = []

    def interrupted(self, chunk):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(aqmlab.series.SeriesSink, "add", interrupted)
    with pytest.raises(KeyboardInterrupt):
        aqmlab.run(scenario, out, set={"duration": "3s"})
    # The finished run's files are untouched, and nothing of the stopped one is left.
    assert {f.name: f.read_bytes() for f in out.iterdir()} == before


def test_a_path_with_an_equals_sign_is_a_path(tmp_path):
    with pytest.raises(aqmlab.ScenarioError, match="cannot read the scenario"):
        aqmlab.run(str(tmp_path / "rate=10M.toml"))


def test_a_finished_run_cannot_be_advanced(scenario):
    from aqmlab.run import load

    r = load(scenario)
    r.advance(0.5)
    r.take_series(to_end=True)
    with pytest.raises(aqmlab.AqmlabError, match="this run is over"):
        r.advance(1.0)
    with pytest.raises(aqmlab.AqmlabError, match="this run is over"):
        r.take_series()


def test_summary_json_is_pythons_own_text(tmp_path):
    """summary.json is written from Rust (issue 24) as ``json.dumps(summary, indent=2)`` would
    write it: reading it and writing it back with Python gives the same bytes (floats as
    ``repr`` writes them, non-ASCII escaped), and ``RunResult.summary`` is what the file holds."""
    text = UDP.replace(
        'rate = "6Mbps"\nsize = 1000', 'rate = "6Mbps"\nsize = 1000\nname = "vidéo 😀"'
    )
    text += '\n[[windows]]\nname = "späť"\nfrom = "1s"\nto = "2s"\n'
    res = aqmlab.run(text, out=tmp_path / "o", progress=False)
    got = (tmp_path / "o" / "summary.json").read_text(encoding="ascii")
    assert got == json.dumps(json.loads(got), indent=2) + "\n"
    assert "\\u00e9" in got and "\\ud83d\\ude00" in got and "\\u0165" in got
    assert res.summary == json.loads(got)
    assert list(res.summary)[-1] == "provenance"
    assert res.summary["flows"][1]["name"] == "vidéo 😀"


def test_summary_written_straight_to_its_file_is_the_same_text(tmp_path):
    """Without ``keep`` the summary goes straight into ``summary.json`` as it is made
    (``Run.write_summary``, issue 24): the same bytes as ``Run.summary_file`` makes, a
    multi-line provenance indented as Python indents it, and the result reads the file back."""
    text = UDP.replace(
        'rate = "6Mbps"\nsize = 1000', 'rate = "6Mbps"\nsize = 1000\nname = "vidéo 😀"'
    )
    r = load(text)
    r.advance(r.duration_s)
    prov = json.dumps({"a": [1, "x\ny"], "b": {"c": None}}, indent=2)
    r.write_summary(str(tmp_path / "s.json"), prov)
    assert (tmp_path / "s.json").read_bytes() == r.summary_file(prov)
    with pytest.raises(FileNotFoundError):
        r.write_summary(str(tmp_path / "no" / "s.json"), prov)
    res = aqmlab.run(text, out=tmp_path / "o", progress=False, keep=False)
    got = (tmp_path / "o" / "summary.json").read_text(encoding="ascii")
    assert got == json.dumps(json.loads(got), indent=2) + "\n"
    assert res.summary == json.loads(got)
    assert list(res.summary)[-1] == "provenance"


def test_summary_written_with_the_runs_own_resolved_scenario_is_the_same_text(tmp_path):
    """``write_summary(..., with_resolved=True)`` appends the run's resolved scenario as the
    provenance's last key, as ``json.dumps`` writes it (non-ASCII escaped), so the caller need
    not hold its text (issue 24): the same bytes as with the text in the provenance."""
    text = UDP.replace(
        'rate = "6Mbps"\nsize = 1000', 'rate = "6Mbps"\nsize = 1000\nname = "vidéo 😀"'
    )
    r = load(text)
    r.advance(r.duration_s)
    resolved = r.resolved_toml()
    assert "vidéo 😀" in resolved
    for p in ({"a": [1, "x\ny"], "b": {"c": None}}, {}):
        path = str(tmp_path / "s.json")
        r.write_summary(path, json.dumps(p, indent=2), True)
        full = json.dumps({**p, "resolved_scenario": resolved}, indent=2)
        assert (tmp_path / "s.json").read_bytes() == r.summary_file(full)
    with pytest.raises(aqmlab.AqmlabError, match="provenance"):
        r.write_summary(str(tmp_path / "s.json"), "[1]", True)
    # The files of a run as `aqmlab run` makes them: the provenance's resolved scenario and
    # scenario.resolved.toml are the run's.
    res = aqmlab.run(text, out=tmp_path / "o", progress=False, keep=False)
    assert res.summary["provenance"]["resolved_scenario"] == resolved
    assert (tmp_path / "o" / "scenario.resolved.toml").read_text(encoding="utf-8") == resolved


def test_the_native_loader_splits_set_args_as_the_command_line_gives_them():
    """`aqmlab run --set` hands its strings to the native loader as typed: split at the first
    "=", stripped as Python's str.strip does (U+001C..U+001F too), a key given again kept at its
    first place with its last value (as the dict the CLI built before issue 20)."""
    from aqmlab import _core

    path = str(ROOT / "scenarios" / "bulk-dumbbell.toml")
    r = _core.load_scenario(
        path,
        set_args=[" duration = 2s ", "\x1cname\x1f=a=b", "seed=3", "duration=1s"],
    )
    assert r.set_args() == [("duration", "1s"), ("name", "a=b"), ("seed", "3")]
    assert r.duration_s == 1.0
    for bad in ("duration", "=1s", " \x1d=1s"):
        with pytest.raises(aqmlab.ScenarioError) as e:
            _core.load_scenario(path, set_args=["seed=3", bad])
        assert str(e.value) == f"--set {bad!r}: expected NAME=VALUE"
