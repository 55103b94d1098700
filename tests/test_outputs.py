"""A run's folder: provenance, the resolved scenario, atomic replacement, locking, signals and
failed writes."""

import errno
import json
import os
import signal
import subprocess
import sys
import time

import aqmlab
import pandas as pd
import pytest
from aqmlab import _core
from aqmlab.outdir import OutputFolder
from aqmlab.run import load
from conftest import ROOT, run_cli

UDP = """
name = "udp-named"
duration = "3s"
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
params = { target = "2ms" }

[[flows]]
kind = "udp"
from = "s1"
to = "r1"
rate = "6Mbps"

[[flows]]
kind = "tcp"
from = "s2"
to = "r2"
"""


@pytest.fixture
def scenario(tmp_path):
    p = tmp_path / "udp.toml"
    p.write_text(UDP)
    return p


def results(summary):
    return {k: v for k, v in summary.items() if k not in ("wall_s", "provenance")}


def test_summary_records_provenance(scenario, tmp_path):
    out = tmp_path / "out"
    r = run_cli(
        "run",
        str(scenario),
        "-o",
        str(out),
        "-q",
        "--qdisc",
        "bottleneck=pie",
        "--set",
        "flows[1].cc=reno",
        "--seed",
        "9",
    )
    assert r.returncode == 0, r.stderr
    p = json.loads((out / "summary.json").read_text())["provenance"]
    assert p["aqmlab_version"] == aqmlab.__version__ and p["build"] == _core.BUILD
    assert p["command"][:2] == ["aqmlab", "run"] and "--qdisc" in p["command"]
    assert p["qdisc"] == ["bottleneck=pie"] and p["set"] == ["flows[1].cc=reno"]
    assert p["seed"] == 9 and p["scenario_file"] == str(scenario)
    # The file's CoDel target was dropped by the swap, and said so.
    assert p["dropped_params"]["bottleneck"] == ["target=2ms"]
    res = p["resolved_scenario"]
    assert res == (out / "scenario.resolved.toml").read_text()
    assert "seed = 9\n" in res and 'cc = "reno"' in res and 'qdisc = "pie"' in res
    # Every PIE parameter is written, its defaults included.
    pie = next(q for q in aqmlab.list_qdiscs() if q["name"] == "pie")
    line = next(x for x in res.splitlines() if x.startswith("params = {") and "t_update" in x)
    for x in pie["params"]:
        assert f"{x['name']} = " in line
    assert 'limit = "200p"' in line


def test_a_swap_keeps_a_resolved_files_buffer(scenario, tmp_path):
    """A resolved scenario writes the buffer as its discipline's ``limit``, with no ``buffer``
    key: ``--qdisc`` keeps it (its promise: "keeping its buffer"), where it once dropped it
    with the other parameters and the new discipline took its default (10240p for fq_codel)."""
    first = tmp_path / "first"
    r = run_cli("run", str(scenario), "-o", str(first), "-q")
    assert r.returncode == 0, r.stderr
    resolved = first / "scenario.resolved.toml"
    assert 'buffer = "200p"' not in resolved.read_text()  # the buffer is params.limit there
    r = run_cli("run", str(resolved), "-o", str(tmp_path / "o"), "--qdisc", "bottleneck=fq_codel")
    assert r.returncode == 0, r.stderr
    dropped = [x for x in r.stderr.splitlines() if "dropped" in x]
    assert dropped and all("limit=" not in x for x in dropped), dropped
    res = (tmp_path / "o" / "scenario.resolved.toml").read_text()
    fq = [x for x in res.splitlines() if x.startswith("params = {") and "quantum" in x]
    assert len(fq) == 2 and all('limit = "200p"' in x for x in fq), fq


def test_qdisc_says_which_parameters_it_dropped(scenario, tmp_path):
    r = run_cli("run", str(scenario), "-o", str(tmp_path / "o"), "--qdisc", "bottleneck=pie")
    assert r.returncode == 0, r.stderr
    lines = [x for x in r.stderr.splitlines() if "dropped" in x]
    # Once for the link: its reverse direction inherited the same parameters.
    assert lines == ["aqmlab: --qdisc dropped the file's parameters of bottleneck: target=2ms"]
    r = run_cli("run", str(scenario), "-o", str(tmp_path / "o"), "--compare", "bottleneck=red")
    assert r.returncode == 0, r.stderr
    lines = [x for x in r.stderr.splitlines() if "dropped" in x]
    assert lines == [
        "aqmlab: --compare bottleneck=red dropped the file's parameters of bottleneck: target=2ms"
    ]


def test_the_resolved_scenario_reproduces_the_run_bit_for_bit(scenario, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    r = run_cli(
        "run",
        str(scenario),
        "-o",
        str(a),
        "-q",
        "--qdisc",
        "bottleneck=red",
        "--set",
        "flows[1].ecn=true",
        "--set",
        "dumbbell.bottleneck.params.max_p=0.2",
    )
    assert r.returncode == 0, r.stderr
    resolved = a / "scenario.resolved.toml"
    r = run_cli("run", str(resolved), "-o", str(b), "-q")
    assert r.returncode == 0, r.stderr
    sa = json.loads((a / "summary.json").read_text())
    sb = json.loads((b / "summary.json").read_text())
    assert results(sa) == results(sb)
    assert sa["links"]["bottleneck"]["qdisc"] == "red"
    for name in ("links.parquet", "flows.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(a / name), pd.read_parquet(b / name))
    # Resolving the resolved file changes nothing.
    assert (b / "scenario.resolved.toml").read_text() == resolved.read_text()


def test_resolved_toml_keys_a_cache_by_content(scenario):
    from_file = load(scenario).resolved_toml()
    assert load(UDP).resolved_toml() == from_file
    assert load(scenario, seed=4).resolved_toml() != from_file
    assert load(scenario, set={"duration": "3s"}).resolved_toml() == from_file


def test_default_folder_follows_the_scenario_name(scenario, tmp_path):
    r = run_cli("run", str(scenario), "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "udp-named" / "summary.json").exists()
    assert not (tmp_path / "out" / "udp").exists()


def test_a_run_replaces_an_earlier_run_entirely(scenario, tmp_path):
    out = tmp_path / "out"
    r = run_cli("run", str(scenario), "-o", str(out), "-q", "--compare", "bottleneck=droptail")
    assert r.returncode == 0, r.stderr
    assert (out / "bottleneck=droptail" / "links.parquet").exists()
    r = run_cli("run", str(scenario), "-o", str(out), "-q", "--csv")
    assert r.returncode == 0, r.stderr
    assert sorted(f.name for f in out.iterdir()) == [
        "flows.csv",
        "links.csv",
        "scenario.resolved.toml",
        "summary.json",
    ]
    # Nothing left beside it: no staging folder, no lock, no earlier run set aside.
    assert sorted(f.name for f in tmp_path.iterdir()) == ["out", "udp.toml"]


def test_a_folder_with_other_files_is_never_replaced(scenario, tmp_path):
    r = run_cli("run", str(scenario), "-o", str(tmp_path), "-q")
    assert r.returncode == 2
    assert "holds files that are not an aqmlab run's" in r.stderr
    assert str(tmp_path) in r.stderr and "Traceback" not in r.stderr
    assert scenario.exists()


def test_a_second_run_into_a_busy_folder_refuses(scenario, tmp_path):
    out = tmp_path / "out"
    held = OutputFolder(out)
    try:
        r = run_cli("run", str(scenario), "-o", str(out), "-q")
    finally:
        held.abort()
    assert r.returncode == 2, r.stderr
    errors = [x for x in r.stderr.splitlines() if x.startswith("aqmlab: error:")]
    assert len(errors) == 1 and "Traceback" not in r.stderr
    assert f"another aqmlab run (pid {os.getpid()}) is writing this folder" in errors[0]
    # Released: the next run goes ahead.
    assert run_cli("run", str(scenario), "-o", str(out), "-q").returncode == 0


def test_a_run_checks_its_folder_again_before_replacing_it(tmp_path):
    """Files put in the folder while the run went (by a program that takes no lock) are not
    deleted by the run's commit: it refuses, and they stay."""
    from aqmlab.outdir import OutputError

    out = tmp_path / "out"
    staged = OutputFolder(out)
    with open(staged.path("summary.json"), "w") as f:
        f.write("{}")
    out.mkdir()
    (out / "results.csv").write_text("my own data\n")
    with pytest.raises(OutputError, match="holds files that are not an aqmlab run's"):
        staged.commit()
    assert sorted(os.listdir(out)) == ["results.csv"]
    assert (out / "results.csv").read_text() == "my own data\n"
    assert sorted(os.listdir(tmp_path)) == ["out"]  # no staging folder, no lock left


def _interrupt(tmp_path, sig, scenario_args):
    """Starts ``aqmlab run`` on ``scenario_args`` into a folder holding an earlier run, sends
    ``sig`` well into the simulation, and checks it stopped within a second, cleanly."""
    out = tmp_path / "out"
    # An earlier run in the folder survives an interrupted one.
    out.mkdir()
    (out / "summary.json").write_text("{}")
    p = subprocess.Popen(
        [sys.executable, "-m", "aqmlab", "run", *scenario_args, "-o", str(out), "-q"],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not any(f.name.startswith(".out.partial-") for f in tmp_path.iterdir()):
        assert time.monotonic() < deadline and p.poll() is None
        time.sleep(0.05)
    time.sleep(0.5)  # well into the simulation
    t0 = time.monotonic()
    p.send_signal(sig)
    _, err = p.communicate(timeout=30)
    took = time.monotonic() - t0
    assert took < 1.0, f"took {took:.2f} s to stop"
    assert p.returncode == (130 if sig == signal.SIGINT else 128 + sig), err
    assert "Traceback" not in err
    assert sorted(f.name for f in tmp_path.iterdir()) == ["out"]
    assert sorted(f.name for f in out.iterdir()) == ["summary.json"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_signals_stop_a_run_at_once_and_clean_up(tmp_path, sig):
    long = ROOT / "scenarios" / "codel-dynamic-link.toml"
    _interrupt(tmp_path, sig, [str(long), "--set", "duration=100000s", "--set", "bin=10s"])


#: Four 400 Gb/s streams of 64-byte datagrams: about 3 billion packets per simulated second, so
#: the run's first step (10 ms simulated) takes seconds of wall time.
STORM = """
name = "storm"
duration = "10s"
[dumbbell]
senders = 4
access_rate = "400Gbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
rate = "400Gbps"
delay = "1ms"
qdisc = "codel"
buffer = "1000p"
""" + "".join(
    f'[[flows]]\nkind = "udp"\nfrom = "s{i}"\nto = "r{i}"\nrate = "400Gbps"\nsize = 64\n'
    for i in range(1, 5)
)


def test_ctrl_c_stops_a_run_within_a_second_even_inside_one_long_step(tmp_path):
    """The step in progress answers a signal too (the run looks at pending signals every
    0.2 s of wall time while it simulates), not only the steps' boundaries."""
    storm = tmp_path / "storm.toml"
    storm.write_text(STORM)
    work = tmp_path / "work"
    work.mkdir()
    _interrupt(work, signal.SIGINT, [str(storm)])


def test_a_full_disk_names_the_file_and_leaves_nothing_behind(scenario, tmp_path, monkeypatch):
    from aqmlab import _core

    out = tmp_path / "out"
    aqmlab.run(scenario, out, keep=False)
    before = (out / "summary.json").read_text()

    # A real full disk: the Parquet writer's file is /dev/full, where every write fails with
    # ENOSPC, and the error comes up through the native writer as the OSError it is.
    real = _core.ParquetFile
    monkeypatch.setattr(_core, "ParquetFile", lambda path, cols, n: real("/dev/full", cols, n))
    with pytest.raises(OSError) as e:
        aqmlab.run(scenario, out, keep=False)
    assert e.value.filename == str(out / "links.parquet")
    assert "No space left on device" in str(e.value)
    # The earlier run is untouched, and no partial file or staging folder is left.
    assert (out / "summary.json").read_text() == before
    assert sorted(f.name for f in tmp_path.iterdir()) == ["out", "udp.toml"]


def test_a_failed_rename_names_the_folder_and_keeps_the_earlier_run(
    scenario, tmp_path, monkeypatch
):
    out = tmp_path / "out"
    aqmlab.run(scenario, out, keep=False)
    before = (out / "summary.json").read_text()
    real = os.rename

    def failing(src, dst):
        if ".partial-" in os.fspath(src):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real(src, dst)

    monkeypatch.setattr(os, "rename", failing)
    with pytest.raises(OSError) as e:
        aqmlab.run(scenario, out, set={"seed": 5}, keep=False)
    assert e.value.filename == str(out)
    assert (out / "summary.json").read_text() == before
    assert sorted(f.name for f in tmp_path.iterdir()) == ["out", "udp.toml"]


def test_the_cli_names_the_path_it_cannot_write(scenario, tmp_path):
    # The parent "folder" is a file: the output folder cannot be made.
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = run_cli("run", str(scenario), "-o", str(blocker / "out"), "-q")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    errors = [x for x in r.stderr.splitlines() if x.startswith("aqmlab: error:")]
    assert len(errors) == 1 and errors[0].startswith(f"aqmlab: error: {blocker}")


def test_the_same_compare_arm_twice_is_refused(scenario, tmp_path):
    r = run_cli(
        "run",
        str(scenario),
        "-o",
        str(tmp_path / "o"),
        "--compare",
        "bottleneck=pie",
        "--compare",
        "bottleneck=pie",
    )
    assert r.returncode == 2
    assert r.stderr.strip() == (
        "aqmlab: error: --compare bottleneck=pie: given twice (each arm runs once)"
    )


def test_a_link_to_the_folder_is_kept(scenario, tmp_path):
    real = tmp_path / "real"
    aqmlab.run(scenario, real, keep=False)
    link = tmp_path / "link"
    link.symlink_to(real)
    aqmlab.run(scenario, link, set={"seed": 8}, keep=False)
    assert link.is_symlink()
    assert json.loads((real / "summary.json").read_text())["seed"] == 8
    assert sorted(f.name for f in tmp_path.iterdir()) == ["link", "real", "udp.toml"]


def test_a_killed_runs_staging_folder_is_removed_by_the_next_run(tmp_path):
    """SIGKILL leaves no chance to clean up: the next run into the folder, which holds its
    lock, removes what the killed one staged."""
    out = tmp_path / "out"
    p = subprocess.Popen(
        [sys.executable, "-m", "aqmlab", "run", _storm_file(tmp_path), "-o", str(out), "-q"],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not any(f.name.startswith(".out.partial-") for f in tmp_path.iterdir()):
        assert time.monotonic() < deadline and p.poll() is None
        time.sleep(0.05)
    p.kill()
    p.communicate(timeout=30)
    assert any(f.name.startswith(".out.partial-") for f in tmp_path.iterdir())
    long = ROOT / "scenarios" / "bulk-dumbbell.toml"
    r = run_cli("run", str(long), "-o", str(out), "-q", "--set", "duration=1s")
    assert r.returncode == 0, r.stderr
    assert sorted(f.name for f in tmp_path.iterdir()) == ["out", "storm.toml"]


def _storm_file(folder):
    path = folder / "storm.toml"
    path.write_text(STORM)
    return str(path)


def test_series_files_do_not_depend_on_how_the_run_was_stepped(tmp_path, monkeypatch):
    """The run steps by the wall clock, so where its steps fall differs from run to run and
    machine to machine; its files do not: their rows follow one order, (bin, link) and (time,
    link), and are laid out in row groups of a fixed size. Here one run takes the fewest steps
    it can, the other steps of at most 3 bins: the same bytes in every file."""
    import importlib

    import pyarrow.parquet as pq
    from aqmlab.series import ROWS_PER_GROUP, SeriesSink

    run_module = importlib.import_module("aqmlab.run")

    scen = tmp_path / "dyn.toml"
    scen.write_text(
        (ROOT / "scenarios" / "codel-dynamic-link.toml").read_text()
        + '\n[output]\npacket_log = ["bottleneck", "bottleneck.rev"]\n'
        + 'trace = ["bottleneck", "bottleneck.rev"]\n'
    )
    steps = {}
    real_add = SeriesSink.add
    # Steps only ever grow (a step never looks slow), so how many each run takes does not
    # depend on the machine's load: under load, wall-clock steps halve, and "a" once took 73.
    monkeypatch.setattr(run_module, "STEP_WALL_S", 1e9)
    for name, most_bins in (("a", run_module.MAX_STEP_BINS), ("b", 3)):
        monkeypatch.setattr(run_module, "MAX_STEP_BINS", most_bins)
        calls = []
        monkeypatch.setattr(
            SeriesSink,
            "add",
            lambda self, chunk, calls=calls: calls.append(1) or real_add(self, chunk),
        )
        aqmlab.run(scen, tmp_path / name, keep=False, progress=False, set={"duration": "110s"})
        steps[name] = len(calls)
    assert steps["b"] > 10 * steps["a"], steps
    for table in ("links", "flows", "packets", "drops", "states"):
        a, b = (tmp_path / n / f"{table}.parquet" for n in ("a", "b"))
        assert a.read_bytes() == b.read_bytes(), table
    meta = pq.ParquetFile(tmp_path / "a" / "packets.parquet").metadata
    sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert len(sizes) > 1
    assert sizes[:-1] == [ROWS_PER_GROUP] * (len(sizes) - 1) and 0 < sizes[-1] <= ROWS_PER_GROUP


def test_flows_without_a_series_have_no_rows_and_the_same_summary(scenario, tmp_path):
    """``[output] flow_series``: a listed flow's rows are exactly its rows in a run where every
    flow keeps them, the others have none, the summary is the same but for ``flow_series``
    (which flows keep one), and the plots, report and export take a run without rows."""
    full = aqmlab.run(str(scenario), tmp_path / "all")
    one = aqmlab.run(str(scenario), tmp_path / "one", set={"output.flow_series": [1]})
    assert "flow_series" not in full.summary
    assert one.summary["flow_series"] == [1]
    assert {k: v for k, v in results(one.summary).items() if k != "flow_series"} == results(
        full.summary
    )
    kept = full.flows[full.flows["flow"] == 1].reset_index(drop=True)
    pd.testing.assert_frame_equal(one.flows.reset_index(drop=True), kept)
    assert len(kept) == 30 and kept["delivered_bytes"].sum() > 0
    on_disk = pd.read_parquet(tmp_path / "one" / "flows.parquet")
    assert list(on_disk.columns) == list(full.flows.columns) and set(on_disk["flow"]) == {1}

    none = tmp_path / "none"
    r = run_cli("run", str(scenario), "--set", 'output.flow_series="none"', "-o", str(none), "-q")
    assert r.returncode == 0, r.stderr
    s = json.loads((none / "summary.json").read_text())
    assert s["flow_series"] == [] and results(s)["flows"] == results(full.summary)["flows"]
    t = pd.read_parquet(none / "flows.parquet")
    assert len(t) == 0 and list(t.columns) == list(full.flows.columns)
    assert 'flow_series = "none"' in (none / "scenario.resolved.toml").read_text()
    r = run_cli("plot", str(none))
    assert r.returncode == 0, r.stderr
    figures = os.listdir(none / "figures")
    assert "delay.png" in figures and "cumulative.png" not in figures
    assert run_cli("report", str(none)).returncode == 0
    r = run_cli("export", str(none), "--flent")
    assert r.returncode != 0
    assert r.stderr.strip().endswith(
        "no TCP flow kept a time series (summary.json's flow_series; "
        '[output] flow_series = "all" or a list of flows keeps them)'
    ), r.stderr


def test_over_a_thousand_flows_keep_no_series_and_say_so_once(tmp_path):
    many = UDP.replace('duration = "3s"', 'duration = "300ms"').replace(
        '[[flows]]\nkind = "udp"', '[[flows]]\ncount = 1000\nkind = "udp"', 1
    )
    p = tmp_path / "many.toml"
    p.write_text(many.replace('rate = "6Mbps"', 'rate = "10kbps"'))
    r = run_cli("run", str(p), "-o", str(tmp_path / "o"), "-q")
    assert r.returncode == 0, r.stderr
    said = [x for x in r.stderr.splitlines() if "flow_series" in x]
    assert said == [
        f'aqmlab: warning: {p}: output.flow_series: "auto" keeps no flow\'s time series with '
        "more than 1000 flows (here 1001): flows.parquet has no rows (the summary is whole); "
        'flow_series = "all" or a list of flows keeps them'
    ], r.stderr
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["flow_series"] == [] and len(s["flows"]) == 1001
    assert any("flow_series" in w for w in s["provenance"]["warnings"])
    assert len(pd.read_parquet(tmp_path / "o" / "flows.parquet")) == 0
