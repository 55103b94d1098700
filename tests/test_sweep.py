"""``aqmlab sweep`` and ``aqmlab.sweep``: points, seeds, statistics, the cache, resume after an
interruption, failures, and the Dask path."""

import contextlib
import itertools
import json
import math
import os
import signal
import subprocess
import sys
import time

import aqmlab
import pandas as pd
import pytest
from aqmlab.stats import f_test, mean_ci, summarize, welch_t
from conftest import run_cli

# Web traffic makes the seed matter: arrivals and sizes are drawn from the flow's stream.
WEB = """
name = "tiny-web"
duration = "3s"
seed = 1

[dumbbell]
senders = 2
access_rate = "100Mbps"
sender_delay = "1ms"
receiver_delay = "2ms"

[dumbbell.bottleneck]
rate = "10Mbps"
delay = "10ms"
qdisc = "codel"
buffer = "100p"

[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
cc = "cubic"

[[flows]]
kind = "tcp"
from = "s2"
to = "r2"
app = "web"
conns_per_s = 20
"""

AXES = ["--vary", "dumbbell.bottleneck.rate=5Mbps,10Mbps", "--qdisc", "bottleneck=codel,pie"]


@pytest.fixture
def scenario(tmp_path):
    p = tmp_path / "web.toml"
    p.write_text(WEB)
    return p


def sweep_cli(scenario, out, *extra):
    return run_cli("sweep", str(scenario), *AXES, "--seeds", "1-3", "--out", str(out), *extra)


def test_sweep_rows_columns_and_run_folders(scenario, tmp_path):
    out = tmp_path / "sw"
    r = sweep_cli(scenario, out, "-j", "2")
    assert r.returncode == 0, r.stderr
    assert "12 runs: 12 simulated, 0 from the cache, 0 failed" in r.stdout
    df = pd.read_parquet(out / "results.parquet")
    assert len(df) == 12
    assert list(df.columns[:5]) == [
        "dumbbell.bottleneck.rate",
        "qdisc:bottleneck",
        "seed",
        "run",
        "error",
    ]
    # The first axis varies slowest, seeds fastest.
    assert df["dumbbell.bottleneck.rate"].tolist() == ["5Mbps"] * 6 + ["10Mbps"] * 6
    assert df["qdisc:bottleneck"].tolist()[:6] == ["codel"] * 3 + ["pie"] * 3
    assert df["seed"].tolist() == [1, 2, 3] * 4
    assert df["error"].isna().all()
    # The discipline swapped in is the one that ran.
    assert (df["bottleneck.qdisc"] == df["qdisc:bottleneck"]).all()
    for col in ("bottleneck.sojourn_ms.p50", "flows[0].goodput_bps", "fairness.jain_goodput"):
        assert col in df.columns
    # Each run's folder holds its summary, whose numbers are the row's.
    for _, row in df.iterrows():
        run_dir = out / "runs" / row["run"]
        s = json.loads((run_dir / "summary.json").read_text())
        assert s["seed"] == row["seed"]
        assert s["links"]["bottleneck"]["dropped_pkts"] == row["bottleneck.dropped_pkts"]
        man = json.loads((run_dir / "run.json").read_text())
        assert man["point"]["qdisc:bottleneck"] == row["qdisc:bottleneck"]
    # The seeds differ (web arrivals are random), so n = 3 gives a real interval.
    assert (
        df.groupby(["dumbbell.bottleneck.rate", "qdisc:bottleneck"])["flows[1].delivered_bytes"]
        .nunique()
        .min()
        > 1
    )
    # The total over flows is the sum of the flows.
    total = df["flows[0].goodput_bps"] + df["flows[1].goodput_bps"]
    assert (abs(df["total.goodput_bps"] - total) < 1e-6).all()
    assert (out / "results.csv").exists() and (out / "sweep.json").exists()


def test_summary_statistics_are_the_hand_computed_ones(scenario, tmp_path):
    out = tmp_path / "sw"
    assert sweep_cli(scenario, out).returncode == 0
    df = pd.read_parquet(out / "results.parquet")
    summ = pd.read_csv(out / "summary.csv")
    m = "bottleneck.sojourn_ms.mean"
    sel = (df["dumbbell.bottleneck.rate"] == "5Mbps") & (df["qdisc:bottleneck"] == "pie")
    xs = df.loc[sel, m].tolist()
    row = summ[
        (summ["dumbbell.bottleneck.rate"] == "5Mbps")
        & (summ["qdisc:bottleneck"] == "pie")
        & (summ["metric"] == m)
    ].iloc[0]
    mean = sum(xs) / 3
    std = math.sqrt(sum((x - mean) ** 2 for x in xs) / 2)
    half = 4.302652729911275 * std / math.sqrt(3)  # t(0.975, 2 dof), from tables
    assert row["n"] == 3
    assert row["mean"] == pytest.approx(mean, rel=1e-12)
    assert row["std"] == pytest.approx(std, rel=1e-12)
    assert row["ci95_low"] == pytest.approx(mean - half, rel=1e-9)
    assert row["ci95_high"] == pytest.approx(mean + half, rel=1e-9)


def test_mean_ci_and_tests_against_hand_values():
    mean, std, n, half = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert (mean, n) == (2.5, 4)
    assert std == pytest.approx(math.sqrt(5 / 3))
    assert half == pytest.approx(3.182446305284263 * math.sqrt(5 / 3) / 2)  # t(0.975, 3)
    assert math.isnan(mean_ci([7.0])[1]) and mean_ci([])[2] == 0
    # Welch: a = 1..5 (var 2.5), b = 3,5,7,9,11 (var 10): t = (3 - 7) / sqrt(0.5 + 2) with
    # Welch-Satterthwaite dof (2.5)^2 / (0.5^2/4 + 2^2/4) = 6.25 / 1.0625.
    a, b = [1, 2, 3, 4, 5], [3, 5, 7, 9, 11]
    w = welch_t(a, b)
    assert w.statistic == pytest.approx(-4 / math.sqrt(2.5))
    assert w.df == pytest.approx(6.25 / 1.0625)
    assert 0.01 < w.p_value < 0.05
    # F = 2.5 / 10 with (4, 4) dof; the two-sided p of F = 1/4 equals that of F = 4.
    f = f_test(a, b)
    assert f.statistic == pytest.approx(0.25) and f.df == (4, 4)
    assert f.p_value == pytest.approx(f_test(b, a).p_value)
    assert 0.1 < f.p_value < 0.25  # F(4,4) upper 5 % point is 6.39, 10 % is 4.11
    with pytest.raises(ValueError, match="at least two"):
        welch_t([1.0], [2.0, 3.0])


def test_summarize_groups_in_order_and_skips_failures():
    df = pd.DataFrame(
        {
            "x": ["b", "b", "a", "a"],
            "seed": [1, 2, 1, 2],
            "error": [None, None, None, "boom"],
            "m": [1.0, 3.0, 5.0, 100.0],
        }
    )
    s = summarize(df, ["x"])
    assert s["x"].tolist() == ["b", "a"]
    assert s["mean"].tolist() == [2.0, 5.0]
    assert s["n"].tolist() == [2, 1]


def test_second_run_uses_the_cache_and_gives_identical_tables(scenario, tmp_path):
    out = tmp_path / "sw"
    assert sweep_cli(scenario, out).returncode == 0
    before = {n: (out / n).read_bytes() for n in ("results.csv", "results.parquet", "summary.csv")}
    runs = sorted(os.listdir(out / "runs"))
    r = sweep_cli(scenario, out)
    assert r.returncode == 0, r.stderr
    assert "12 runs: 0 simulated, 12 from the cache" in r.stdout
    timing = json.loads((out / "sweep.json").read_text())["timing"]
    assert (timing["simulated"], timing["cached"]) == (0, 12)
    assert all(timing[k] >= 0 for k in ("plan_s", "runs_s", "tables_s"))
    assert sorted(os.listdir(out / "runs")) == runs
    for n, data in before.items():
        assert (out / n).read_bytes() == data, n
    # A changed fixed value is a different run: not taken from the cache.
    r = sweep_cli(scenario, out, "--set", "duration=2s")
    assert "12 simulated, 0 from the cache" in r.stdout


def test_a_failing_point_is_recorded_and_the_others_complete(scenario, tmp_path):
    out = tmp_path / "sw"
    r = run_cli(
        "sweep", str(scenario), "--vary", "dumbbell.bottleneck.rate=5Mbps,banana",
        "--seeds", "1-2", "--out", str(out), "-q",
    )  # fmt: skip
    assert r.returncode == 1
    assert "2 of 4 runs failed" in r.stderr
    assert "Traceback" not in r.stderr
    df = pd.read_csv(out / "results.csv")
    bad = df[df["dumbbell.bottleneck.rate"] == "banana"]
    good = df[df["dumbbell.bottleneck.rate"] == "5Mbps"]
    assert bad["error"].str.contains("dumbbell.bottleneck.rate").all()
    assert bad["error"].str.contains("expected a rate").all()
    assert good["error"].isna().all() and good["bottleneck.utilization"].notna().all()


def test_resume_after_a_kill_gives_the_uninterrupted_table(scenario, tmp_path):
    # Runs long enough (300 s simulated, about a quarter of a second each) that the kill lands
    # between the 3rd run and the 12th: 3-s runs could all finish between two polls.
    longer = ["--set", "duration=300s"]
    whole = tmp_path / "whole"
    assert sweep_cli(scenario, whole, *longer, "-j", "1", "-q").returncode == 0
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "aqmlab", "sweep", str(scenario), *AXES, "--seeds", "1-3",
           *longer, "--out", str(out), "-j", "2", "-q"]  # fmt: skip
    # A killed machine: SIGKILL to the sweep and its workers once a few runs are in place.
    p = subprocess.Popen(cmd, start_new_session=True, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        runs = out / "runs"
        done = [d for d in os.listdir(runs) if not d.startswith(".")] if runs.exists() else []
        if len(done) >= 3 or p.poll() is not None:
            break
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    done = [d for d in os.listdir(out / "runs") if not d.startswith(".")]
    assert 3 <= len(done) < 12, "the kill came too late to test a resume"
    assert not (out / "results.csv").exists()
    r = sweep_cli(scenario, out, *longer, "-j", "2")
    assert r.returncode == 0, r.stderr
    assert f"{12 - len(done)} simulated, {len(done)} from the cache" in r.stdout
    for n in ("results.csv", "results.parquet", "summary.csv"):
        assert (out / n).read_bytes() == (whole / n).read_bytes(), n
    assert not [d for d in os.listdir(out / "runs") if d.startswith(".")]


def test_sigterm_stops_the_sweep_and_keeps_finished_runs(scenario, tmp_path):
    out = tmp_path / "sw"
    cmd = [sys.executable, "-m", "aqmlab", "sweep", str(scenario), *AXES, "--seeds", "1-3",
           "--out", str(out), "-j", "1", "-q"]  # fmt: skip
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None:
        runs = out / "runs"
        if runs.exists() and [d for d in os.listdir(runs) if not d.startswith(".")]:
            break
        time.sleep(0.02)
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=30)
    assert time.monotonic() - t0 < 5
    assert p.returncode == 128 + signal.SIGTERM, err  # as aqmlab run's
    assert "interrupted (stopped by SIGTERM)" in err and "Traceback" not in err
    r = sweep_cli(scenario, out, "-j", "1")
    assert r.returncode == 0 and "from the cache" in r.stdout


def test_sigterm_stops_a_two_worker_sweep_at_once(scenario, tmp_path):
    """With two workers one run goes on in the sweep's own process (in a thread) and one in a
    worker process: SIGTERM ends both, and the next start completes the sweep."""
    out = tmp_path / "sw"
    slow = ["--set", "duration=3000s"]  # each run takes seconds
    cmd = [sys.executable, "-m", "aqmlab", "sweep", str(scenario), *AXES, *slow, "--seeds",
           "1-2", "--out", str(out), "-j", "2", "-q"]  # fmt: skip
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(1.5)  # both workers are simulating their first run (each takes seconds)
    assert p.poll() is None
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=30)
    assert time.monotonic() - t0 < 3
    assert p.returncode == 128 + signal.SIGTERM, err  # as aqmlab run's
    assert "interrupted (stopped by SIGTERM)" in err and "Traceback" not in err
    # No worker process is left running (a terminated worker may take a moment to be gone).
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            os.killpg(p.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    with pytest.raises(ProcessLookupError):
        os.killpg(p.pid, 0)


def test_forked_and_forkserver_workers_give_the_same_tables(scenario, tmp_path):
    """Worker processes are forked from the sweep's process when it runs a single thread (the
    command line), else from a server process (here: pytest has imported pyarrow, whose
    allocator runs a thread): the same tables either way."""
    import importlib

    sweep_module = importlib.import_module("aqmlab.sweep")
    assert len(os.listdir("/proc/self/task")) > 1
    assert sweep_module._worker_context().get_start_method() == "forkserver"
    probe = (
        "import importlib, os; m = importlib.import_module('aqmlab.sweep'); "
        "print(len(os.listdir('/proc/self/task')), m._worker_context().get_start_method())"
    )
    threads, method = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert (threads, method) == ("1", "fork")
    api = tmp_path / "api"
    aqmlab.sweep(scenario, qdisc={"bottleneck": ["codel", "pie"]}, seeds=[1, 2], jobs=2, out=api)
    cli = tmp_path / "cli"
    r = run_cli("sweep", str(scenario), "--qdisc", "bottleneck=codel,pie", "--seeds", "1-2",
                "--out", str(cli), "-j", "2", "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    for n in ("results.csv", "results.parquet", "summary.csv"):
        assert (api / n).read_bytes() == (cli / n).read_bytes(), n


def test_sweep_file_spelling_equals_the_command_line(scenario, tmp_path):
    spec = tmp_path / "sweep.toml"
    spec.write_text(
        'scenario = "web.toml"\nseeds = "1-2"\n[set]\nduration = "2s"\n'
        '[vary]\n"dumbbell.bottleneck.rate" = ["5Mbps", "10Mbps"]\n'
        "[[zip]]\n"
        '"dumbbell.bottleneck.delay" = ["5ms", "20ms"]\n'
        '"dumbbell.bottleneck.buffer" = ["50p", "200p"]\n'
    )
    a, b = tmp_path / "a", tmp_path / "b"
    r = run_cli("sweep", str(spec), "--out", str(a), "-q")
    assert r.returncode == 0, r.stderr
    r = run_cli(
        "sweep", str(scenario), "--set", "duration=2s", "--seeds", "1-2",
        "--vary", "dumbbell.bottleneck.rate=5Mbps,10Mbps",
        "--zip", "dumbbell.bottleneck.delay=5ms,20ms",
        "--zip", "dumbbell.bottleneck.buffer=50p,200p",
        "--out", str(b), "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert (a / "results.csv").read_bytes() == (b / "results.csv").read_bytes()
    df = pd.read_csv(a / "results.csv")
    assert len(df) == 2 * 2 * 2
    # Zipped values move together.
    pairs = set(zip(df["dumbbell.bottleneck.delay"], df["dumbbell.bottleneck.buffer"]))
    assert pairs == {("5ms", "50p"), ("20ms", "200p")}


@pytest.mark.parametrize(
    "args, message",
    [
        (["--vary", "rate"], "--vary 'rate': expected KEY=V1,V2"),
        (["--seeds", "5-1"], "--seeds: expected seeds like 1-10"),
        (["--seeds", "1,1"], "a seed is listed twice"),
        (["--vary", "seed=1,1"], "a value is listed twice"),
        (["--zip", "a=1,2", "--zip", "b=1"], "zipped keys need the same number of values"),
        (["--vary", "duration=1s,2s", "--set", "duration=3s"], "both varied and fixed"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--seeds", "1-1000000"], "more than 100000 seeds"),
    ],
)
def test_bad_sweep_input_is_one_line(scenario, tmp_path, args, message):
    r = run_cli("sweep", str(scenario), *args, "--out", str(tmp_path / "x"), "-q")
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert "Traceback" not in r.stderr


def test_seeds_that_change_nothing_are_reported(tmp_path):
    p = tmp_path / "det.toml"
    # Two bulk flows and nothing random: every seed gives the same run.
    p.write_text(WEB.replace('app = "web"\nconns_per_s = 20\n', 'cc = "reno"\n'))
    r = run_cli("sweep", str(p), "--seeds", "1-2", "--out", str(tmp_path / "o"), "-q")
    assert r.returncode == 0
    assert "every seed gave identical results" in r.stderr


def test_python_api_threads_equals_processes(scenario, tmp_path):
    kw = dict(vary={"dumbbell.bottleneck.rate": ["5Mbps", "10Mbps"]}, seeds=[1, 2])
    a = aqmlab.sweep(scenario, jobs=2, out=tmp_path / "p", **kw)
    b = aqmlab.sweep(scenario, jobs=2, executor="thread", **kw)
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 4 and a["seed"].tolist() == [1, 2, 1, 2]
    with pytest.raises(aqmlab.ScenarioError, match="expected a non-empty list"):
        aqmlab.sweep(scenario, vary={"duration": "1s"})


def test_dask_local_cluster_equals_the_local_run(scenario, tmp_path):
    pytest.importorskip("dask.distributed")
    local, dask = tmp_path / "local", tmp_path / "dask"
    assert sweep_cli(scenario, local, "-j", "2", "-q").returncode == 0
    r = sweep_cli(scenario, dask, "--dask", "local", "-j", "2", "-q")
    assert r.returncode == 0, r.stderr
    for n in ("results.csv", "results.parquet", "summary.csv"):
        assert (local / n).read_bytes() == (dask / n).read_bytes(), n


def test_dask_unreachable_scheduler_is_one_line(scenario, tmp_path):
    pytest.importorskip("dask.distributed")
    r = sweep_cli(scenario, tmp_path / "o", "--dask", "tcp://127.0.0.1:9", "-q")
    assert r.returncode == 2
    assert "cannot reach the scheduler" in r.stderr and "Traceback" not in r.stderr
    # The folder the sweep made for it is taken away again (it was left holding an empty
    # runs/); a folder that was there before stays.
    assert not (tmp_path / "o").exists()
    (tmp_path / "mine").mkdir()
    r = sweep_cli(scenario, tmp_path / "mine", "--dask", "tcp://127.0.0.1:9", "-q")
    assert r.returncode == 2 and (tmp_path / "mine").is_dir()


@pytest.mark.parametrize(
    "address, said",
    [
        ("bogus", "expected 'local' or a scheduler's address"),
        ("tcp://localhost", "expected 'local' or a scheduler's address"),
        ("tcp://127.0.0.1:9", "cannot reach the scheduler"),
    ],
)
def test_the_apis_dask_errors_name_its_argument(scenario, tmp_path, address, said):
    """``aqmlab.sweep(..., dask=...)``: an address refused, or a scheduler not reached, is named
    as the API took it (``dask='ADDRESS'``), not as the command line's ``--dask`` (the API's
    caller gave no such flag); nothing is written."""
    if said.startswith("cannot"):
        pytest.importorskip("dask.distributed")
    out = tmp_path / "o"
    with pytest.raises(aqmlab.AqmlabError) as e:
        aqmlab.sweep(scenario, seeds=[1], dask=address, out=out, progress=False)
    assert str(e.value).startswith(f"dask={address!r}: {said}"), str(e.value)
    assert "--dask" not in str(e.value)
    assert not out.exists()


def test_the_run_key_changes_with_the_simulators_sources(scenario, monkeypatch):
    """A cached run is reused only by the same simulator: its sources' fingerprint (made at
    build time) is part of the key, beside version and build."""
    from aqmlab import _core
    from aqmlab.run import load
    from aqmlab.sweepplan import _identity, run_key

    r = load(str(scenario))
    key = run_key(_identity(r))
    assert run_key(_identity(load(str(scenario)))) == key
    monkeypatch.setattr(_core, "SOURCE_HASH", "0" * 16)
    assert run_key(_identity(r)) != key


@pytest.mark.parametrize(
    "qdisc, name, default",
    [
        ("fq_codel", "quantum", "1514B"),
        ("fq_pie", "dq_threshold", "16384B"),
        ("red", "mean_pkt_size", "500B"),
        ("dualpi2", "mtu", "1514B"),
        ("cake", "mpu", "0B"),
    ],
)
def test_a_byte_count_default_is_written_with_its_unit(qdisc, name, default):
    """The resolved scenario writes a byte count's default with its unit (``quantum =
    "1514B"``: the parameter table's unit is bytes; it wrote ``"1514"``), as a user giving that
    value writes it: a sweep's point giving the default so is the default run (one key, one
    simulation), and the resolved text loads as itself (what a sweep's worker runs)."""
    import importlib

    from aqmlab.sweepplan import _identity, run_key

    run_mod = importlib.import_module("aqmlab.run")
    swap = {"bottleneck": qdisc}
    plain = run_mod.resolve("bulk-dumbbell", qdisc=swap)
    given = run_mod.resolve(
        "bulk-dumbbell", qdisc=swap, set={f"dumbbell.bottleneck.params.{name}": default}
    )
    assert f'{name} = "{default}"' in plain.resolved_toml()
    assert run_key(_identity(given)) == run_key(_identity(plain))
    assert run_mod.resolve(plain.resolved_toml()).resolved_toml() == plain.resolved_toml()


def test_the_source_fingerprint_covers_every_crate_the_core_is_built_from():
    """The fingerprint in the run key covers every workspace crate the native module is built
    from, as cargo resolves them (a list by hand left out aqmlab-link, the link model, so an
    edited link served stale cached runs; and aqmlab-report, where the per-flow counts live)."""
    import shutil

    from aqmlab import _core
    from conftest import ROOT

    if shutil.which("cargo") is None:
        pytest.skip("cargo is not on PATH")
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--offline", "--locked"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    m = json.loads(meta.stdout)
    members = set(m["workspace_members"])
    nodes = {n["id"]: n for n in m["resolve"]["nodes"]}
    names = {p["id"]: p["name"] for p in m["packages"]}
    (py,) = [i for i in members if names[i] == "aqmlab-py"]
    seen, todo = set(), [py]
    while todo:
        for d in nodes[todo.pop()]["deps"]:
            normal = any(k["kind"] is None for k in d["dep_kinds"])
            if normal and d["pkg"] in members and d["pkg"] not in seen:
                seen.add(d["pkg"])
                todo.append(d["pkg"])
    built_from = {names[i] for i in seen}
    assert {"aqmlab-link", "aqmlab-report", "aqmlab-sim"} <= built_from
    assert set(_core.MODEL_CRATES.split(",")) == built_from


# --- the sweep's folder: cache keys, ownership, the lock, broken runs, workers (issue 20) ------


def trace_scenario(tmp_path, per_10ms):
    """WEB with its bottleneck driven by a trace: ``per_10ms`` packets every 10 ms (a
    mahimahi trace, looped)."""
    p = tmp_path / "tr.toml"
    p.write_text(WEB.replace('rate = "10Mbps"', 'trace = "link.down"'))
    write_trace(tmp_path / "link.down", per_10ms)
    return p


def write_trace(path, per_10ms):
    path.write_text("".join(f"{(i + 1) * 10 // per_10ms}\n" for i in range(per_10ms)))


def test_a_trace_edited_in_place_is_simulated_again(tmp_path):
    """The run key covers the content of the files the scenario names, not only their path:
    a trace edited between two sweeps into the same folder is simulated again, and gives the
    numbers a fresh folder gives."""
    scen = trace_scenario(tmp_path, 10)  # 10 packets per 10 ms: 12 Mb/s
    out = tmp_path / "sw"
    r = run_cli("sweep", str(scen), "--seeds", "1", "--out", str(out), "-q")
    assert r.returncode == 0, r.stderr
    fast = pd.read_csv(out / "results.csv")
    write_trace(tmp_path / "link.down", 1)  # 1 packet per 10 ms: 1.2 Mb/s, same path
    r = run_cli("sweep", str(scen), "--seeds", "1", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "1 runs: 1 simulated, 0 from the cache" in r.stdout
    slow = pd.read_csv(out / "results.csv")
    assert slow["run"][0] != fast["run"][0]
    fresh = tmp_path / "fresh"
    assert run_cli("sweep", str(scen), "--seeds", "1", "--out", str(fresh), "-q").returncode == 0
    assert (out / "results.csv").read_bytes() == (fresh / "results.csv").read_bytes()
    # 1.2 Mb/s of capacity: the goodput is below it, where the first trace gave several times it.
    assert slow["total.goodput_bps"][0] < 1.2e6 < fast["total.goodput_bps"][0] / 3


def test_a_trace_edited_after_planning_fails_its_run(tmp_path):
    """A run whose trace is not the one its key was made from (edited since the sweep was
    planned, or another file at that path on a remote worker) fails, naming the file, rather
    than fill the cache with another trace's numbers under this key."""
    from aqmlab.sweep import execute, plan
    from aqmlab.sweepspec import SweepSpec

    scen = trace_scenario(tmp_path, 10)
    [task] = plan(SweepSpec(str(scen), [], {}, [1]))
    assert list(task.files) == [str(tmp_path / "link.down")]
    write_trace(tmp_path / "link.down", 1)
    outcome = execute(task)
    assert outcome.files is None
    assert f"{tmp_path / 'link.down'}: changed since the sweep was planned" in outcome.error
    write_trace(tmp_path / "link.down", 10)  # as planned again: the run goes
    assert execute(task).error is None


def test_a_run_is_the_scenario_its_key_was_made_from(tmp_path):
    """A worker runs the resolved scenario planning keyed (issue 20), not the file and the
    values resolved again: a scenario file edited after planning does not change a planned run
    (its key names the scenario as planned)."""
    from aqmlab.sweep import execute, plan
    from aqmlab.sweepspec import SweepSpec

    scen = tmp_path / "s.toml"
    scen.write_text(WEB)
    spec = SweepSpec(str(scen), [], {"dumbbell.bottleneck.params.target": "7ms"}, [1])
    [task] = plan(spec)
    scen.write_text(WEB.replace('duration = "3s"', 'duration = "1s"'))
    outcome = execute(task)
    assert outcome.error is None
    resolved = outcome.files["scenario.resolved.toml"].decode()
    assert 'duration = "3s"' in resolved
    assert 'target = "7ms"' in resolved
    summary = json.loads(outcome.files["summary.json"])
    assert summary["provenance"]["set"] == ["dumbbell.bottleneck.params.target=7ms"]
    [replanned] = plan(spec)
    assert replanned.key != task.key  # the edited file is another run


@pytest.mark.parametrize("where", ["results.csv", "notes.txt", "runs/notes.txt"])
def test_a_folder_holding_other_files_is_refused_and_kept(scenario, tmp_path, where):
    """A folder holding a file the sweep did not write (a table of the sweep's name without
    the sweep.json a sweep writes beside its tables, say) is refused, and left as it was."""
    out = tmp_path / "mine"
    (out / where).parent.mkdir(parents=True)
    (out / where).write_text("my own data\n")
    before = sorted(out.rglob("*"))
    r = sweep_cli(scenario, out, "-q")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert f"{out}: holds files that are not an aqmlab sweep's" in r.stderr
    assert (out / where).read_text() == "my own data\n"
    assert sorted(out.rglob("*")) == before


def test_a_second_sweep_into_the_folder_is_refused(scenario, tmp_path):
    """A sweep holds a lock on its folder: a second sweep into it is refused at once, and the
    first completes, its runs and tables its own."""
    out = tmp_path / "sw"
    slow = ["--set", "duration=300s", "--seeds", "1-2", "-j", "1", "-q"]
    first = subprocess.Popen(
        [sys.executable, "-m", "aqmlab", "sweep", str(scenario), "--out", str(out), *slow],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        # The first sweep is simulating (its temporary run folder exists).
        while time.monotonic() < deadline and first.poll() is None:
            runs = out / "runs"
            if runs.exists() and any(d.startswith(".tmp-run-") for d in os.listdir(runs)):
                break
            time.sleep(0.02)
        assert first.poll() is None
        r = run_cli("sweep", str(scenario), "--out", str(out), "--seeds", "3", "-q")
        assert r.returncode == 2, r.stderr
        assert "another aqmlab sweep (pid " in r.stderr and "is writing this folder" in r.stderr
        assert r.stderr.count("\n") == 1
        _, err = first.communicate(timeout=120)
    finally:
        first.kill()
    assert first.returncode == 0, err
    df = pd.read_csv(out / "results.csv")
    assert df["seed"].tolist() == [1, 2] and df["error"].isna().all()
    assert sorted(os.listdir(out / "runs")) == sorted(df["run"])
    assert not (out / ".sweep.lock").exists() and not (tmp_path / ".sw.lock").exists()


# A program with a thread of its own: its sweep's workers come from a forkserver.
FORKSERVER_SWEEP = """
import sys, threading, time
threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
import aqmlab
from aqmlab.sweep import _worker_context
if __name__ == "__main__":
    assert _worker_context().get_start_method() == "forkserver"
    aqmlab.sweep(sys.argv[1], set={"duration": "3000s"}, seeds=[1, 2], jobs=2, out=sys.argv[2])
"""


@pytest.mark.parametrize("workers", ["forked", "forkserver"])
def test_kill_9_of_the_sweep_leaves_no_worker(scenario, tmp_path, workers):
    """Workers die with the sweep's process, even one killed with SIGKILL (which runs none of
    its clean-up): no process of the sweep's group is left within a few seconds. Workers forked
    from the command line's process, or from the forkserver of a program with threads."""
    out = tmp_path / "sw"
    if workers == "forked":
        cmd = [sys.executable, "-m", "aqmlab", "sweep", str(scenario), "--set",
               "duration=3000s", "--seeds", "1-2", "--out", str(out), "-j", "2", "-q"]  # fmt: skip
    else:
        (tmp_path / "prog.py").write_text(FORKSERVER_SWEEP)
        cmd = [sys.executable, str(tmp_path / "prog.py"), str(scenario), str(out)]
    p = subprocess.Popen(cmd, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        # Both runs are simulating: one in the sweep's process, one in a worker process.
        while time.monotonic() < deadline and p.poll() is None:
            runs = out / "runs"
            if runs.exists() and sum(d.startswith(".tmp-run-") for d in os.listdir(runs)) == 2:
                break
            time.sleep(0.02)
        assert p.poll() is None
        os.kill(p.pid, signal.SIGKILL)  # the sweep's own process only
        p.wait()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                os.killpg(p.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        with pytest.raises(ProcessLookupError):
            os.killpg(p.pid, 0)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)


def _descendants(pid):
    """The processes descended from ``pid`` (Linux's /proc), children first."""
    parents = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{d}/stat") as f:
                parents[int(d)] = int(f.read().rpartition(")")[2].split()[1])
    out, todo = [], [pid]
    while todo:
        parent = todo.pop()
        kids = [c for c, pp in parents.items() if pp == parent]
        out += kids
        todo += kids
    return out


def _gone(pid):
    """Whether process ``pid`` has ended (a zombie not yet reaped has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


def _group_gone(pgid):
    """Whether no process of group ``pgid`` is left (not even one ended and not yet reaped)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def test_kill_9_of_a_dask_local_sweep_leaves_no_process(scenario, tmp_path):
    """``--dask local``: after SIGKILL of the sweep's process (no clean-up of its own runs),
    none of the processes it started (the local cluster's workers, simulating) is left within a
    few seconds, and the next sweep into the folder takes its lock and removes what the killed
    one left: its runs' folders and the cluster's scratch space are in ``runs/``, none in the
    system's temporary folder (``$TMPDIR``)."""
    pytest.importorskip("dask.distributed")
    out, tmp = tmp_path / "sw", tmp_path / "tmp"
    tmp.mkdir()  # the system's temporary folder, for the sweep and its workers
    cmd = [sys.executable, "-m", "aqmlab", "sweep", str(scenario), "--set", "duration=3000s",
           "--seeds", "1-2", "--out", str(out), "--dask", "local", "-j", "2", "-q"]  # fmt: skip
    env = {**os.environ, "TMPDIR": str(tmp)}

    def going_on() -> int:
        """Runs simulating: a folder each, wherever the workers make it."""
        in_runs = os.listdir(out / "runs") if (out / "runs").is_dir() else []
        return sum(d.startswith("aqmlab-run-") for d in os.listdir(tmp)) + sum(
            d.startswith(".tmp-run-") for d in in_runs
        )

    p = subprocess.Popen(cmd, stderr=subprocess.DEVNULL, start_new_session=True, env=env)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and p.poll() is None:
            if going_on() == 2:
                break
            time.sleep(0.05)
        assert p.poll() is None and going_on() == 2
        started = _descendants(p.pid)
        assert len(started) >= 2, started  # a worker process per run, at least
        os.kill(p.pid, signal.SIGKILL)  # the sweep's own process only
        p.wait()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not (
            all(_gone(c) for c in started) and _group_gone(p.pid)
        ):
            time.sleep(0.05)
        assert [c for c in started if not _gone(c)] == []
        assert _group_gone(p.pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
    r = run_cli("sweep", str(scenario), "--seeds", "1", "--out", str(out), "-q")
    assert r.returncode == 0, r.stderr
    assert os.listdir(tmp) == []
    assert [d for d in os.listdir(out / "runs") if d.startswith(".")] == []


def test_an_empty_out_is_refused_and_the_current_folder_kept(scenario, tmp_path, monkeypatch):
    """``out=""`` is the current folder: the sweep refuses it as ``aqmlab.run`` does, rather
    than write its tables over the files there."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results.csv").write_text("my own data\n")
    before = sorted(tmp_path.iterdir())
    with pytest.raises(ValueError, match="^out: expected a folder path, got an empty string$"):
        aqmlab.sweep(scenario, seeds=[1], jobs=1, executor="thread", out="")
    assert (tmp_path / "results.csv").read_text() == "my own data\n"
    assert sorted(tmp_path.iterdir()) == before


@pytest.mark.parametrize("first", ["run", "sweep"])
def test_a_run_and_a_sweep_into_one_folder_refuse_each_other(scenario, tmp_path, first):
    """A results folder has one lock, whoever writes it: a sweep into a folder a run is
    writing (and a run into a folder a sweep is writing) is refused at once, naming the
    other's pid, and the first writer's files are kept."""
    out = tmp_path / "x"
    slow = ["--set", "duration=600s", "--set", "bin=1s", "-q", "--out", str(out)]
    if first == "run":
        args, second = ["run", str(scenario), *slow], ["sweep", "--seeds", "1"]

        def started() -> bool:  # its staging folder beside "x": it holds the lock
            return any(n.startswith(".x.partial-") for n in os.listdir(tmp_path))
    else:
        args, second = ["sweep", str(scenario), *slow, "--seeds", "1-2", "-j1"], ["run"]

        def started() -> bool:  # simulating its first run
            return (out / "runs").exists() and bool(os.listdir(out / "runs"))

    proc = subprocess.Popen([sys.executable, "-m", "aqmlab", *args], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and not started():
            time.sleep(0.02)
        assert proc.poll() is None and started()
        r = run_cli(second[0], str(scenario), *second[1:], "-q", "--out", str(out))
        assert r.returncode == 2, r.stderr
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
        assert f"another aqmlab {first} (pid {proc.pid}) is writing this folder" in r.stderr
        if first == "run":  # the sweep made no folder
            assert not out.exists()
        else:  # the run put nothing in place of the sweep's folder
            assert (out / "runs").is_dir() and not (out / "summary.json").exists()
    finally:
        proc.kill()
        proc.communicate()


@pytest.mark.parametrize("text", ["{}", '{"links": 5}', '{"links": {"b": 1}, "flows": 2}'])
def test_a_cached_summary_that_is_no_summary_is_simulated_again(scenario, tmp_path, text):
    """A cached ``summary.json`` that is JSON but not a run's summary is a broken cached run:
    removed with a warning and simulated again (not a row of NaN, nor a traceback)."""
    out = tmp_path / "sw"
    assert sweep_cli(scenario, out, "-q").returncode == 0
    tables = {n: (out / n).read_bytes() for n in ("results.csv", "results.parquet", "summary.csv")}
    key = pd.read_csv(out / "results.csv")["run"].tolist()[0]
    (out / "runs" / key / "summary.json").write_text(text)
    r = sweep_cli(scenario, out)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    warnings = [x for x in r.stderr.splitlines() if "a broken cached run" in x]
    assert len(warnings) == 1 and f"runs/{key}: a broken cached run (summary.json " in warnings[0]
    assert "12 runs: 1 simulated, 11 from the cache, 0 failed" in r.stdout
    for n, data in tables.items():
        assert (out / n).read_bytes() == data, n


def test_a_broken_cached_run_is_removed_and_simulated_again(scenario, tmp_path):
    out = tmp_path / "sw"
    assert sweep_cli(scenario, out, "-q").returncode == 0
    tables = {n: (out / n).read_bytes() for n in ("results.csv", "results.parquet", "summary.csv")}
    keys = pd.read_csv(out / "results.csv")["run"].tolist()
    summary = out / "runs" / keys[0] / "summary.json"
    summary.write_bytes(summary.read_bytes()[:100])  # truncated (a full disk)
    (out / "runs" / keys[5] / "run.json").unlink()  # a run folder without its manifest
    r = sweep_cli(scenario, out)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    warnings = [x for x in r.stderr.splitlines() if "a broken cached run" in x]
    assert len(warnings) == 2
    assert f"runs/{keys[0]}: a broken cached run (summary.json cannot be read" in warnings[0]
    assert f"runs/{keys[5]}: a broken cached run (no run.json)" in warnings[1]
    assert "12 runs: 2 simulated, 10 from the cache, 0 failed" in r.stdout
    for n, data in tables.items():
        assert (out / n).read_bytes() == data, n


def write_sweep_file(tmp_path, text):
    p = tmp_path / "sweep.toml"
    p.write_text(text)
    return p


BAD_INPUTS = [
    # (command-line arguments after "sweep" (SCEN: the scenario, SWEEP: a sweep file with the
    # text given), the text the one line names)
    (["SWEEP"], 'scenario = "web.toml"\nseeds = [1, 2\n', "sweep.toml:3: not valid TOML at"),
    (
        ["SWEEP"],
        'scenario = "web.toml"\n[vary]\nduration = ["1s" "2s"]\n',
        "sweep.toml:3: not valid TOML at column 18",
    ),
    (["SWEEP"], 'scenario = "nope.toml"\n', "sweep.toml: scenario: 'nope.toml' is no file"),
    (["nope.toml"], None, "nope.toml: the scenario: no such file"),
    # An unknown discipline is refused up front, as by run --compare (not a failed row).
    (
        ["SCEN", "--qdisc", "bottleneck=codel,bogus"],
        None,
        '--qdisc bottleneck: unknown queue discipline "bogus": expected one of droptail,',
    ),
    (
        ["SWEEP"],
        'scenario = "web.toml"\n[qdisc]\nbottleneck = ["codel", "bogus"]\n',
        'sweep.toml: qdisc.bottleneck: unknown queue discipline "bogus"',
    ),
    # A typo in a varied key names the option the user wrote (the core's edits are --set).
    (
        ["SCEN", "--vary", "dumbbell.bottleneck.ratte=5Mbps,10Mbps"],
        None,
        "--vary dumbbell.bottleneck.ratte=5Mbps: unknown field `ratte`",
    ),
    (
        ["SCEN", "--zip", "dumbbell.bottleneck.ratte=5Mbps,10Mbps", "--zip", "duration=1s,2s"],
        None,
        "--zip dumbbell.bottleneck.ratte=5Mbps: unknown field `ratte`",
    ),
    (
        ["SCEN", "--vary", "duration=1s,2s", "--set", "dumbbell.bottleneck.ratte=5Mbps"],
        None,
        "--set dumbbell.bottleneck.ratte=5Mbps: unknown field `ratte`",
    ),
    (
        ["SWEEP"],
        'scenario = "web.toml"\n[vary]\n"dumbbell.botleneck.rate" = ["5Mbps"]\n',
        "unknown field `botleneck`",
    ),
    # A sweep file's axis values and the API's are checked by one function (sweepspec.listed).
    (
        ["SWEEP"],
        'scenario = "web.toml"\n[vary]\nduration = []\n',
        "sweep.toml: vary.duration: expected a non-empty list of values, got none",
    ),
    (
        ["SWEEP"],
        'scenario = "web.toml"\n[vary]\nduration = "1s"\n',
        "sweep.toml: vary.duration: expected a non-empty list of values, got '1s'",
    ),
    (["SCEN", "--unset", "flows[0].nope"], None, "--unset flows[0].nope: no such key"),
    (["SCEN", "--dask", "bogus"], None, "--dask bogus: expected 'local' or a scheduler's"),
    (["SCEN", "--dask", "tcp://localhost"], None, "--dask tcp://localhost: expected"),
    (["SCEN", "--dask", "http://localhost:8786"], None, "--dask http://localhost:8786: expected"),
]


@pytest.mark.parametrize("args, text, message", BAD_INPUTS)
def test_a_bad_input_is_one_line_before_any_run(scenario, tmp_path, args, text, message):
    """A bad sweep file, a missing scenario, an unknown key or a bad --dask address: one line
    naming it, exit status 2, and no folder made (no row of failed runs)."""
    sweep_file = write_sweep_file(tmp_path, text) if text else None
    argv = [str(scenario) if a == "SCEN" else str(sweep_file) if a == "SWEEP" else a for a in args]
    out = tmp_path / "o"
    r = run_cli("sweep", *argv, "--out", str(out), "-q", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("aqmlab: error: "), r.stderr
    assert not out.exists()


def test_a_toml_syntax_error_is_said_as_a_runs(scenario, tmp_path):
    """A sweep file's TOML syntax error is one line in aqmlab's words (not Python's TOML
    reader's) naming the file, line and column and what was expected; a scenario's reads the
    same from ``sweep`` as from ``run`` (one helper of the core says both)."""
    sweep_file = write_sweep_file(tmp_path, 'scenario = "web.toml"\nseeds = [1, 2\n')
    r = run_cli("sweep", str(sweep_file), "--out", str(tmp_path / "o"), "-q")
    assert r.returncode == 2
    assert r.stderr == (
        f"aqmlab: error: {sweep_file}:3: not valid TOML at column 1: invalid array, "
        "expected `]` (found the end of the file)\n"
    )
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nduration = "3s\n')
    said = {}
    for cmd, *extra in (["run"], ["sweep"], ["sweep", "--set", "seed=2"]):
        out = tmp_path / f"o-{cmd}-{len(extra)}"
        r = run_cli(cmd, str(bad), *extra, "--out", str(out), "-q")
        assert r.returncode == 2 and not out.exists()
        said[(cmd, *extra)] = r.stderr
    assert set(said.values()) == {
        f"aqmlab: error: {bad}:2: not valid TOML at column 15: invalid basic string "
        "(found the end of the line)\n"
    }, said


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(vary={"name": [b"x"]}), "vary: name: expected str, int, float, bool"),
        (dict(zip=[{"name": [b"x"], "seed": [1]}]), "zip: name: expected str, int, float, bool"),
        (dict(cases={"a": {"name": b"x"}}), 'case "a": name: expected str, int, float, bool'),
        (dict(vary={"name": [None]}), "vary: name: None has no TOML form"),
        (dict(set={"name": b"x"}), "set: name: expected str, int, float, bool"),
        (dict(vary={"name": "x"}), "vary: name: expected a non-empty list of values, got 'x'"),
        (dict(vary={"name": []}), "vary: name: expected a non-empty list of values, got none"),
        (dict(zip=[{"name": ["x"], "seed": {}}]), "zip: seed: expected a non-empty list of"),
    ],
)
def test_the_python_api_names_the_argument_that_gave_a_bad_value(scenario, tmp_path, kw, message):
    """``aqmlab.sweep``'s errors name the argument the caller wrote a key in (``vary``,
    ``zip``, a case), not ``set``, which the sweep passes the values to the run as."""
    with pytest.raises((TypeError, aqmlab.ScenarioError)) as e:
        aqmlab.sweep(scenario, seeds=[1], jobs=1, executor="thread", out=tmp_path / "o", **kw)
    assert str(e.value).startswith(message), str(e.value)
    assert not (tmp_path / "o").exists()


def test_a_failed_point_is_not_counted_as_cached(scenario, tmp_path):
    out = tmp_path / "sw"
    args = ["sweep", str(scenario), "--vary", "dumbbell.bottleneck.rate=5Mbps,banana",
            "--seeds", "1-2", "--out", str(out)]  # fmt: skip
    assert run_cli(*args, "-q").returncode == 1
    r = run_cli(*args)
    assert "4 runs: 0 simulated, 2 from the cache, 2 failed" in r.stdout


def test_the_progress_bar_counts_cached_runs(scenario, tmp_path, capsys):
    kw = dict(vary={"dumbbell.bottleneck.rate": ["5Mbps", "10Mbps"]}, seeds=[1, 2], jobs=1)
    aqmlab.sweep(scenario, out=tmp_path / "sw", progress=True, **kw)
    first = capsys.readouterr().err
    assert "4/4 runs, 0 cached" in first
    aqmlab.sweep(scenario, out=tmp_path / "sw", progress=True, **kw)
    again = capsys.readouterr().err
    assert "4/4 runs, 4 cached" in again and "0/4" not in again


def test_unset_removes_a_key_at_every_point(scenario, tmp_path):
    from aqmlab.run import load

    # The resolved file is written from the typed scenario: unsetting a key that holds its
    # default (cc = "cubic") changes nothing, so the run and its key are the same.
    assert (
        load(str(scenario), unset=["flows[0].cc"]).resolved_toml()
        == load(str(scenario)).resolved_toml()
    )
    scenario.write_text(WEB.replace('cc = "cubic"', 'cc = "newreno"'))
    out = tmp_path / "sw"
    r = run_cli("sweep", str(scenario), "--unset", "flows[0].cc",
                "--qdisc", "bottleneck=codel,pie", "--out", str(out), "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    df = pd.read_csv(out / "results.csv")
    for qd, key in zip(df["qdisc:bottleneck"], df["run"]):
        resolved = (out / "runs" / key / "scenario.resolved.toml").read_text()
        assert (
            resolved
            == load(str(scenario), qdisc={"bottleneck": qd}, unset=["flows[0].cc"]).resolved_toml()
        )
        assert resolved != load(str(scenario), qdisc={"bottleneck": qd}).resolved_toml()
    assert json.loads((out / "sweep.json").read_text())["unset"] == ["flows[0].cc"]


def test_the_terminal_table_has_only_the_zipped_points(scenario, tmp_path):
    r = run_cli("sweep", str(scenario), "--zip", "dumbbell.bottleneck.delay=5ms,20ms",
                "--zip", "dumbbell.bottleneck.buffer=50p,200p", "--set", "duration=1s",
                "--out", str(tmp_path / "sw"))  # fmt: skip
    assert r.returncode == 0, r.stderr
    table = r.stdout.split("means over seeds:\n")[1].split("results.parquet")[0]
    assert "NaN" not in table
    rows = [x.split()[:2] for x in table.splitlines()[2:]]
    assert rows == [["5ms", "50p"], ["20ms", "200p"]]


def test_an_edited_reducer_reduces_cached_runs_again(scenario, tmp_path, monkeypatch):
    """The run key holds the reducer's code (its module's content hash), not only its name:
    a reducer edited between two sweeps into one folder reduces every run again, and the
    tables carry the new reducer's numbers."""
    from aqmlab.sweep import run_sweep
    from aqmlab.sweepspec import SweepSpec

    mod = tmp_path / "myreducer.py"
    mod.write_text("def reduce(folder, point, sets):\n    return {'answer': 1.0}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = SweepSpec(scenario=str(scenario), seeds=[1], reduce="myreducer:reduce")
    out = str(tmp_path / "sw")
    first = run_sweep(spec, out, jobs=1, executor="thread", progress=False)
    assert (first.ran, first.cached) == (1, 0)
    again = run_sweep(spec, out, jobs=1, executor="thread", progress=False)
    assert (again.ran, again.cached) == (0, 1)
    mod.write_text("def reduce(folder, point, sets):\n    return {'answer': 2.0}\n")
    import sys as _sys

    _sys.modules.pop("myreducer", None)
    edited = run_sweep(spec, out, jobs=1, executor="thread", progress=False)
    assert (edited.ran, edited.cached) == (1, 0)
    (run,) = edited.results["run"]
    with open(os.path.join(out, "runs", run, "reduced.json"), encoding="utf-8") as f:
        assert json.load(f) == {"answer": 2.0}


def test_seeds_identical_allows_rounding_noise_but_not_spread():
    """Identical seeds' std comes out as rounding noise (1e-13 of the mean), not 0: still
    identical. A real spread, however small against the mean (1e-6), is not."""
    from aqmlab.sweepresult import SweepResult, identical_seed_groups

    def result(std):
        summary = pd.DataFrame(
            {"rate": ["5Mbps", "5Mbps"], "metric": ["a", "b"], "n": [3, 3]}
            | {"mean": [4.2e6, 0.031], "std": [4.2e6 * std, 0.0]}
        )
        return SweepResult(None, summary, "", 0, 0, 0)

    assert result(1e-13).seeds_identical
    assert identical_seed_groups(result(1e-13).summary) == [("5Mbps",)]
    assert not result(1e-6).seeds_identical
    assert identical_seed_groups(result(1e-6).summary) == []


def test_planning_resolves_without_building_the_simulator(scenario, monkeypatch):
    """The planner keys each run by the resolved scenario's serialization without building the
    simulator, and the keys are those a built run's ``resolved_toml()`` gives."""
    import importlib

    from aqmlab import _core
    from aqmlab.sweepspec import from_cli

    sweep_mod = importlib.import_module("aqmlab.sweep")
    run_mod = importlib.import_module("aqmlab.run")
    spec = from_cli(str(scenario), ["dumbbell.bottleneck.rate=5Mbps,10Mbps"], [], [], [], "1-2")
    load = run_mod.load
    built = [t.key for t in _plan_with(sweep_mod, spec, monkeypatch, run_mod, load)]

    def no_simulator(*a, **k):
        raise AssertionError("planning built the simulator")

    monkeypatch.setattr(_core, "load_scenario", no_simulator)
    resolved = [t.key for t in sweep_mod.plan(spec)]
    assert resolved == built and len(set(resolved)) == 4


def _plan_with(sweep_mod, spec, monkeypatch, run_mod, load):
    """The plan, each run keyed from a built run (the simulator's own resolved file)."""
    with monkeypatch.context() as m:
        m.setattr(run_mod, "resolve", lambda *a, varied=None, **k: load(*a, **k))
        return sweep_mod.plan(spec)


def test_a_command_line_value_reaches_the_loader_as_typed(scenario, tmp_path):
    """A --vary value is read where a run's --set value is, from the text as typed (issue 20:
    not read as TOML in Python and written again): an inline table is one, as after --set,
    and an error names the value as typed."""
    out = tmp_path / "sw"
    r = run_cli(
        "sweep", str(scenario), "--vary", 'dumbbell.bottleneck.params={target="7ms"},{target=1}',
        "--out", str(out), "-q",
    )  # fmt: skip
    assert r.returncode == 1, r.stderr
    df = pd.read_csv(out / "results.csv")
    ok, bad = df["error"].isna().tolist()
    assert ok and not bad
    assert df["error"][1] == (
        f"{scenario}: --vary dumbbell.bottleneck.params={{target=1}}: dumbbell.bottleneck.params"
        ".target: codel: parameter target = 1: expected a duration > 0 (like 5ms, 100us, 1.5s or"
        " 250ns)"
    )
    # The run is the one aqmlab run --set makes.
    from aqmlab.run import load

    run = json.loads(next((out / "runs").glob("*/summary.json")).read_text())
    resolved = load(
        str(scenario), set={"dumbbell.bottleneck.params": aqmlab.TomlText('{target="7ms"}')}
    ).resolved_toml()
    assert run["provenance"]["resolved_scenario"] == resolved


def test_too_many_flows_are_refused_as_a_run_refuses_them(tmp_path, monkeypatch, capsys):
    """A scenario of more flow tables than a scenario may have is refused by the sweep as by a
    run, with its message, before Python's TOML reader reads it (which took 4 s and 160 MB for
    400 002 tables, where a run refuses them in 0.2 s); from the API too."""
    from aqmlab import cli, sweepspec

    path = tmp_path / "many.toml"
    path.write_text(WEB.split("[[flows]]")[0] + '[[flows]]\nkind = "udp"\n' * 100_002)
    seen = []
    real = sweepspec._toml_loads
    monkeypatch.setattr(sweepspec, "_toml_loads", lambda text: seen.append(len(text)) or real(text))
    out = tmp_path / "o"
    message = f"{path}: flows: expected at most 100000 flows, got 100002"
    assert cli.main(["run", str(path), "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"aqmlab: error: {message}\n"
    assert cli.main(["sweep", str(path), "--vary", "duration=1s,2s", "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"aqmlab: error: {message}\n"
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.sweep(path, {"duration": ["1s", "2s"]}, out=out)
    assert str(e.value) == message
    assert not seen and not out.exists()


def test_the_keys_and_manifests_are_those_of_the_typed_values(scenario, tmp_path):
    """Command-line values go to the loader as typed (issue 20), yet each run's key is the one
    the sweep made before, from the value read as TOML in Python (``literal``) and resolved
    through the API (``aqmlab.run.resolve``), and ``run.json`` records the same ``set``: a
    folder made before is reused from the cache."""
    from aqmlab.run import TomlText, resolve
    from aqmlab.sweepplan import _identity, run_key
    from aqmlab.sweepspec import literal

    out = tmp_path / "sw"
    vary = {
        "dumbbell.bottleneck.rate": ["5Mbps", "1e7bps"],
        "flows[1].conns_per_s": ["2e1", "0x10"],
    }
    zipped = {
        "dumbbell.bottleneck.delay": ["5ms", '"15ms"'],
        "flows[0].delayed_ack": ["true", "false"],
    }
    args = [a for k, vs in vary.items() for a in ("--vary", f"{k}={','.join(vs)}")]
    args += [a for k, vs in zipped.items() for a in ("--zip", f"{k}={','.join(vs)}")]
    r = run_cli("sweep", str(scenario), *args, "--set", "dumbbell.bottleneck.buffer=90p",
                "--set", 'name="123"', "--seeds", "1", "--out", str(out), "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    runs = json.loads((out / "sweep.json").read_text())["runs"]
    assert len(runs) == 8
    fixed = {"dumbbell.bottleneck.buffer": TomlText("90p"), "name": TomlText('"123"')}
    rates, conns = vary.values()
    for row, (rate, conn, i) in zip(runs, itertools.product(rates, conns, range(2))):
        given = {"dumbbell.bottleneck.rate": rate, "flows[1].conns_per_s": conn}
        typed = {
            k: literal(v) for k, v in {**given, **{k: v[i] for k, v in zipped.items()}}.items()
        }
        assert row["point"] == typed  # the table's values: the texts read as TOML
        before = resolve(str(scenario), seed=1, set={**fixed, **typed})
        assert row["run"] == run_key(_identity(before))
        manifest = json.loads((out / "runs" / row["run"] / "run.json").read_text())
        assert manifest["set"] == {k: str(v) for k, v in {**fixed, **typed}.items()}
