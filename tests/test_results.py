"""``aqmlab.results``: the one reader of run and sweep folders (plot, report, export,
reproduce, characterize and the sweep's own tables read through it)."""

from __future__ import annotations

import pytest
from conftest import ROOT, run_cli

SCENARIO = str(ROOT / "examples" / "reproduction" / "scenario.toml")


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "r"
    r = run_cli(
        "run", SCENARIO, "--set", "duration=3s", "--set", "warmup=1s", "--packet-log",
        "bottleneck", "--compare", "bottleneck=droptail", "--out", str(out), "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    return out


def test_a_run_its_arms_summary_and_series(run_folder):
    from aqmlab.results import Run, kind

    run = Run(str(run_folder))
    assert kind(str(run_folder)) == "run"
    arms = run.arms()
    assert [label for label, _ in arms] == ["as written", "bottleneck=droptail"]
    qdiscs = [a.summary["links"]["bottleneck"]["qdisc"] for _, a in arms]
    assert qdiscs[0] != qdiscs[1] and "droptail" in qdiscs[1]
    assert run.summary["sim_time_s"] == pytest.approx(3.0)
    assert run.resolved_toml.startswith('name = "example-reproduction"')
    # One link's series, by time; its bytes are the summary's (the series add up to it).
    s = run.link_series("bottleneck")
    assert set(s["link"]) == {"bottleneck"} and s["t_s"].is_monotonic_increasing
    assert s["egress_bytes"].sum() == pytest.approx(
        run.summary["links"]["bottleneck"]["delivered_bytes"], rel=0.02
    )
    # Every packet the log holds for the link, and only those.
    t, soj = run.sojourns_ms("bottleneck")
    log = run.table("packets")
    assert len(t) == len(soj) == int((log["link"] == "bottleneck").sum()) > 0
    assert (soj >= 0).all() and t.max() <= 3.0
    assert run.table("nothing") is None


def test_packet_batches_stream_the_log_a_row_group_at_a_time(run_folder, tmp_path):
    """row_group_batches: the same rows, in the file's order, as the whole log read at once,
    however the batches are cut; only the link asked for; one line for a missing file."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    from aqmlab.exceptions import AqmlabError
    from aqmlab.results import Run, row_group_batches

    run = Run(str(run_folder))
    log = run.table("packets")
    log = log[log["link"] == "bottleneck"]
    for rows in (1000, 1 << 16):
        got = list(run.packet_batches(["t_ns", "sojourn_ns"], "bottleneck", rows))
        assert max(len(b[0]) for b in got) <= rows
        t = np.concatenate([b[0] for b in got])
        assert (t == log["t_ns"].to_numpy()).all()
        assert (np.concatenate([b[1] for b in got]) == log["sojourn_ns"].to_numpy()).all()
    # Three row groups of 4 rows, a link in the middle one only.
    links = ["a"] * 4 + ["a", "b", "b", "a"] + ["a"] * 4
    path = str(tmp_path / "p.parquet")
    pq.write_table(pa.table({"link": links, "x": list(range(12))}), path, row_group_size=4)
    batches = list(row_group_batches(path, ["x"], "b", 1))
    # Each row group yields at least one (possibly empty) batch, in order.
    assert [b[0].tolist() for b in batches] == [[], [5], [6], []]
    assert [b[0].tolist() for b in row_group_batches(path, ["x"])] == [
        [0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]
    ]  # fmt: skip
    with pytest.raises(AqmlabError, match="nothing.parquet: no such file"):
        list(row_group_batches(str(tmp_path / "nothing.parquet"), ["x"]))


def test_csv_series_are_read_as_parquet_ones(run_folder, tmp_path):
    from aqmlab.results import Run

    out = tmp_path / "csv"
    r = run_cli(
        "run", SCENARIO, "--set", "duration=3s", "--set", "warmup=1s", "--csv", "--out", str(out),
        "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    a, b = Run(str(run_folder)).table("flows"), Run(str(out)).table("flows")
    assert list(a.columns) == list(b.columns) and len(a) == len(b)
    assert a["delivered_bytes"].sum() == b["delivered_bytes"].sum()


def test_a_sweep_its_tables_and_runs(tmp_path):
    from aqmlab.metrics import flatten
    from aqmlab.results import Sweep, kind

    out = tmp_path / "s"
    r = run_cli(
        "sweep", SCENARIO, "--set", "duration=2s", "--set", "warmup=1s",
        "--qdisc", "bottleneck=codel,droptail", "--seeds", "1-2", "--out", str(out), "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert kind(str(out)) == "sweep"
    sw = Sweep(str(out))
    assert sw.columns == ["qdisc:bottleneck"] and len(sw.results) == 4
    assert set(sw.summary["metric"]) >= {"bottleneck.sojourn_ms.p50"}
    for _, row in sw.results.iterrows():
        run = sw.run(row["run"])
        flat = flatten(run.summary)
        assert flat["bottleneck.delivered_bytes"] == row["bottleneck.delivered_bytes"]
        assert run.manifest["key"] == row["run"]


def test_errors_name_the_folder_and_the_missing_file(tmp_path):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.results import Run, Sweep, kind

    with pytest.raises(AqmlabError, match=r"neither a run folder \(summary.json\) nor a sweep"):
        kind(str(tmp_path))
    with pytest.raises(AqmlabError, match="no such folder"):
        kind(str(tmp_path / "nope"))
    with pytest.raises(AqmlabError, match=r"no summary.json here: not a run folder"):
        Run(str(tmp_path))
    with pytest.raises(AqmlabError, match=r"no results.parquet or results.csv here"):
        Sweep(str(tmp_path))
    for cmd in ("plot", "report"):
        r = run_cli(cmd, str(tmp_path))
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert r.returncode != 0 and len(lines) == 1 and "neither a run folder" in lines[0]


def test_a_windows_flows_are_columns():
    """A measurement window's flows are metrics as the run's are, by their index."""
    from aqmlab.metrics import flatten

    summary = {
        "flows": [{"id": 0, "goodput_bps": 5.0}],
        "windows": {
            "after_warmup": {
                "from_s": 1.0,
                "flows": [
                    {"id": 0, "name": None, "goodput_bps": 3.0, "dropped_pkts": 2},
                    {"id": 1, "name": "b", "goodput_bps": 1.5, "dropped_pkts": 0},
                ],
            }
        },
    }
    flat = flatten(summary)
    assert flat["windows.after_warmup.flows[0].goodput_bps"] == 3.0
    assert flat["windows.after_warmup.flows[1].goodput_bps"] == 1.5
    assert flat["windows.after_warmup.flows[0].dropped_pkts"] == 2
    assert flat["windows.after_warmup.from_s"] == 1.0
    assert "windows.after_warmup.flows[1].name" not in flat
    assert flat["flows[0].goodput_bps"] == 5.0
