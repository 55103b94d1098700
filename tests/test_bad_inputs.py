"""Issue 20, item 4: every bad input gives one line naming the file, line or key and what was
expected, and writes nothing; every input is read with a size cap; a large flow count warns with
the projected memory before the scenario is built."""

import math
import os
import subprocess
import sys
import time

import aqmlab
import pytest
from aqmlab.run import load
from aqmlab.shell import ShellError, forwarder_path
from conftest import run_cli

WEB = """
name = "web"
duration = "2s"
seed = 1

[dumbbell]
senders = 1
access_rate = "100Mbps"
sender_delay = "1ms"
receiver_delay = "1ms"

[dumbbell.bottleneck]
rate = "10Mbps"
delay = "10ms"
qdisc = "codel"
buffer = "1000p"

[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
app = "web"
conns_per_s = 5
size_dist = "lognormal"
size_sigma = 1.0
"""


def one_line_error(r: subprocess.CompletedProcess) -> str:
    """The single `aqmlab: error:` line of a failed command (nothing else on stderr)."""
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("aqmlab: error: "), r.stderr
    assert "Traceback" not in r.stderr
    return lines[0].removeprefix("aqmlab: error: ")


def cli(*args: str, cwd=None, env_extra=None) -> subprocess.CompletedProcess:
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-m", "aqmlab", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


@pytest.fixture
def web(tmp_path):
    p = tmp_path / "web.toml"
    p.write_text(WEB)
    return p


# -- replay: times beyond the signed decisions ---------------------------------------------


@pytest.mark.parametrize("t", [2**63, 2**64 - 1])
def test_replay_refuses_times_beyond_2_63(tmp_path, t):
    sched = tmp_path / "s.csv"
    sched.write_text(f"t_ns,op,size\n{t},enq,100\n{t},deq,0\n")
    out = tmp_path / "dec.csv"
    msg = one_line_error(run_cli("replay", "--qdisc", "droptail", str(sched), "-o", str(out)))
    assert msg.startswith(f"{sched}: line 2: t_ns: expected a whole number of nanoseconds ")
    assert "0..9223372036854775807" in msg and repr(str(t)).replace("'", '"') in msg
    assert not out.exists()


def test_replay_at_2_63_minus_1_prints_the_time(tmp_path):
    t = 2**63 - 1
    sched = tmp_path / "s.csv"
    sched.write_text(f"t_ns,op,size\n{t},enq,100\n{t},deq,0\n")
    d = aqmlab.replay(sched, "droptail").decisions()
    assert d == [{"id": 0, "enq_t_ns": t, "outcome": "delivered", "deq_t_ns": t}]


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True, "1"])
def test_replay_seed_out_of_range_names_it(tmp_path, seed):
    sched = tmp_path / "s.csv"
    sched.write_text("t_ns,op,size\n0,enq,100\n1,deq,0\n")
    with pytest.raises(ValueError, match=r"^seed: expected a whole number 0\.\.2\^64-1, got "):
        aqmlab.replay(sched, "pie", seed=seed)


# -- scenario values ------------------------------------------------------------------------


def test_size_sigma_beyond_its_range_is_refused(web, tmp_path):
    web.write_text(WEB.replace("size_sigma = 1.0", "size_sigma = 1000"))
    out = tmp_path / "o"
    msg = one_line_error(run_cli("run", str(web), "--out", str(out), "-q"))
    assert msg.startswith(f"{web}:25: flows[0].size_sigma: expected sigma from 0 to 3 (")
    assert msg.endswith("got 1000")
    assert not out.exists()


def test_size_sigma_range_follows_the_mean():
    # The median size, mean·exp(-σ²/2), is 1 byte at σ = sqrt(2 ln mean): 2.4477 for a 20-byte
    # mean; for a 100-byte mean it is 3.035, above the cap of 3.
    bound20 = math.sqrt(2 * math.log(20))
    small = WEB.replace("size_sigma = 1.0", 'size_mean = "20B"\nsize_sigma = 2.5')
    with pytest.raises(aqmlab.ScenarioError, match=r"expected sigma from 0 to 2\.447 \(√\(2·ln"):
        load(small)
    load(small.replace("size_sigma = 2.5", f"size_sigma = {bound20 - 1e-9}"))
    assert math.sqrt(2 * math.log(100)) > 3
    load(WEB.replace("size_sigma = 1.0", 'size_mean = "100B"\nsize_sigma = 3.0'))
    with pytest.raises(aqmlab.ScenarioError, match=r"expected sigma from 0 to 3 \(above 3"):
        load(WEB.replace("size_sigma = 1.0", 'size_mean = "100B"\nsize_sigma = 3.001'))


def test_duration_too_large_with_an_exponent_says_out_of_range(web, tmp_path):
    web.write_text(WEB.replace('duration = "2s"', 'duration = "1e12s"'))
    out = tmp_path / "o"
    msg = one_line_error(run_cli("run", str(web), "--out", str(out), "-q"))
    assert msg == (
        f"{web}:3: duration: expected a duration of at most 1000000s (about 11.6 days), got "
        '"1e12s", which is beyond the maximum'
    )
    assert not out.exists()
    # An exponent within range is a number like any other.
    r = load(WEB.replace('duration = "2s"', 'duration = "2e3ms"'))
    assert r.duration_s == 2.0


def test_seed_beyond_toml_integers_names_the_key(web, tmp_path):
    web.write_text(WEB.replace("seed = 1", "seed = 18446744073709551615"))
    out = tmp_path / "o"
    msg = one_line_error(run_cli("run", str(web), "--out", str(out), "-q"))
    assert msg.startswith(f"{web}:4: seed: expected a whole number from -9223372036854775808 to ")
    assert 'seed = "18446744073709551615"' in msg
    assert not out.exists()
    # The form the message gives works.
    r = load(WEB.replace("seed = 1", 'seed = "18446744073709551615"'))
    assert r.seed == 2**64 - 1
    with pytest.raises(aqmlab.ScenarioError, match=r"<string>:16: buffer: expected a whole"):
        load(WEB.replace('buffer = "1000p"', "buffer = 99999999999999999999"))


# -- Python values and arguments ------------------------------------------------------------


@pytest.mark.parametrize("value", [b"x", bytearray(b"x"), object(), {1, 2}, 1j])
def test_set_value_without_toml_form_names_the_key(web, value):
    with pytest.raises(TypeError, match=r"^set: name: expected str, int, float, bool, a list"):
        aqmlab.run(web, set={"name": value})


def test_dict_scenario_value_without_toml_form_names_the_key():
    import tomllib

    d = tomllib.loads(WEB)
    d["dumbbell"]["bottleneck"]["buffer"] = b"1000p"
    with pytest.raises(TypeError, match=r"^scenario: dumbbell\.bottleneck\.buffer: expected str"):
        load(d)
    d = tomllib.loads(WEB)
    d["flows"][0]["cc"] = b"cubic"
    with pytest.raises(TypeError, match=r"^scenario: flows\[0\]\.cc: expected str"):
        load(d)


def test_empty_out_is_refused(web, tmp_path):
    msg = one_line_error(run_cli("run", str(web), "--out", "", "-q", cwd=tmp_path))
    assert msg == "--out: expected a path, got an empty string"
    assert list(tmp_path.iterdir()) == [web]  # no out/web
    with pytest.raises(ValueError, match="^out: expected a folder path, got an empty string$"):
        aqmlab.run(web, "")
    sched = tmp_path / "s.csv"
    sched.write_text("t_ns,op,size\n0,enq,100\n1,deq,0\n")
    for flag in ("--output", "--summary", "--trace"):
        msg = one_line_error(run_cli("replay", "--qdisc", "pie", str(sched), flag, ""))
        assert msg == f"{flag}: expected a path, got an empty string"


@pytest.mark.parametrize("command", ["run", "sweep"])
def test_an_argument_that_is_not_utf8_is_one_line_and_writes_nothing(web, tmp_path, command):
    # A byte that is not UTF-8 reaches Python as a lone surrogate (PEP 383); the native loader
    # cannot take it as text, and before the check it ended in a UnicodeEncodeError traceback.
    bad = b"duration=\xff" if command == "run" else b"duration=1s,\xffx"
    flag = b"--set" if command == "run" else b"--vary"
    r = subprocess.run(
        [sys.executable, "-m", "aqmlab", command, os.fsencode(web), flag, bad, "--out", "o"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    msg = one_line_error(r)
    at = 10 if command == "run" else 13
    assert msg == (
        f"argument 4 ('{bad.decode('utf-8', 'backslashreplace')}'): byte 0xff at character "
        f"{at} is not UTF-8; aqmlab reads its arguments as UTF-8 text"
    )
    assert list(tmp_path.iterdir()) == [web]


def test_existing_path_with_newline_or_equals_is_a_path(tmp_path):
    for name in ("new\nline.toml", "rate=10M", "a=b.toml"):
        p = tmp_path / name
        p.write_text(WEB)
        assert load(str(p)).name == "web"
        r = run_cli("run", str(p), "--out", str(tmp_path / "o"), "-q")
        assert r.returncode == 0, r.stderr
    # The command line takes a missing path as a path, not as TOML text.
    missing = tmp_path / "runs" / "rate=10M"
    msg = one_line_error(run_cli("run", str(missing), "-q", cwd=tmp_path))
    assert msg.startswith(f"{missing}: cannot read the scenario: ")


# -- size caps --------------------------------------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_endless_scenario_stops_at_its_cap(tmp_path):
    msg = one_line_error(run_cli("run", "/dev/zero", "--out", str(tmp_path / "o"), "-q"))
    assert msg == (
        "/dev/zero: the scenario is larger than 16 MiB: expected a smaller file "
        "(set AQMLAB_MAX_INPUT_MIB to raise the cap)"
    )
    assert not (tmp_path / "o").exists()


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_sweeps_inputs_stop_at_the_scenarios_cap(tmp_path, web):
    """Every file a sweep reads (the scenario, a sweep file) is read as a run reads its
    scenario: up to the same cap, refused with the same line, before any folder is made."""
    out = tmp_path / "o"
    cap = "(set AQMLAB_MAX_INPUT_MIB to raise the cap)"
    msg = one_line_error(cli("sweep", "/dev/zero", "--out", str(out), "-q"))
    assert msg == f"/dev/zero: the scenario is larger than 16 MiB: expected a smaller file {cap}"
    # A file larger than the cap (lowered to 1 MiB here) is refused without being parsed;
    # until it is read, the file `aqmlab sweep` names may be a scenario or a sweep file.
    big = tmp_path / "big.toml"
    big.write_bytes(b"\0" * (2 << 20))
    low = {"AQMLAB_MAX_INPUT_MIB": "1"}
    msg = one_line_error(cli("sweep", str(big), "--out", str(out), "-q", env_extra=low))
    assert (
        msg
        == f"{big}: the scenario or sweep file is larger than 1 MiB: expected a smaller file {cap}"
    )
    # A sweep file too: valid TOML, but over the cap.
    sweep_file = tmp_path / "sweep.toml"
    sweep_file.write_text('scenario = "web.toml"\nseeds = [1]\n' + "# padding\n" * 300_000)
    msg = one_line_error(cli("sweep", str(sweep_file), "--out", str(out), "-q", env_extra=low))
    assert msg == (
        f"{sweep_file}: the scenario or sweep file is larger than 1 MiB: expected a smaller "
        f"file {cap}"
    )
    # The Python API reads the scenario with the same cap.
    with pytest.raises(aqmlab.ScenarioError, match=r"^/dev/zero: the scenario is larger than"):
        aqmlab.sweep("/dev/zero", seeds=[1], out=out)
    assert not out.exists()


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_endless_schedule_uniforms_and_trace_stop_at_their_caps(tmp_path, web):
    out = tmp_path / "dec.csv"
    msg = one_line_error(cli("replay", "--qdisc", "pie", "/dev/zero", "-o", str(out)))
    assert msg.startswith("/dev/zero: the schedule is larger than 256 MiB: ")
    sched = tmp_path / "s.csv"
    sched.write_text("t_ns,op,size\n0,enq,100\n1,deq,0\n")
    msg = one_line_error(cli("replay", "--qdisc", "pie", str(sched), "--uniforms", "/dev/zero"))
    assert msg.startswith("/dev/zero: the uniforms file is larger than 256 MiB: ")
    assert not out.exists()
    # The environment variable replaces every cap (here lowering it).
    big = tmp_path / "big.csv"
    big.write_text("t_ns,op,size\n" + "0,enq,100\n" * 200_000)  # 2.2 MB
    msg = one_line_error(
        cli(
            "replay",
            "--qdisc",
            "pie",
            str(big),
            "-o",
            str(out),
            env_extra={"AQMLAB_MAX_INPUT_MIB": "1"},
        )
    )
    assert msg == (
        f"{big}: the schedule is larger than 1 MiB: expected a smaller file "
        "(set AQMLAB_MAX_INPUT_MIB to raise the cap)"
    )
    msg = one_line_error(
        cli("replay", "--qdisc", "pie", str(big), env_extra={"AQMLAB_MAX_INPUT_MIB": "lots"})
    )
    assert msg == 'AQMLAB_MAX_INPUT_MIB: expected a whole number of MiB ≥ 1, got "lots"'
    web.write_text(
        WEB.replace(
            '[dumbbell.bottleneck]\nrate = "10Mbps"', '[dumbbell.bottleneck]\ntrace = "/dev/zero"'
        )
    )
    msg = one_line_error(cli("run", str(web), "--out", str(tmp_path / "o"), "-q"))
    assert msg.startswith(f"{web}:")
    assert "/dev/zero: the trace is larger than 256 MiB: " in msg
    assert not out.exists() and not (tmp_path / "o").exists()


# -- many flows -------------------------------------------------------------------------------


def test_many_flows_warn_with_projected_memory_before_building(capsys):
    many = WEB.replace("[[flows]]", "[[flows]]\ncount = 10001", 1)
    r = load(many)
    err = capsys.readouterr().err
    assert err.startswith("aqmlab: warning: <string>: flows: 10001 flows (over 10000): ")
    assert "the run is projected to take about " in err and " MB of memory (" in err
    assert len(err.splitlines()) == 1
    assert not any("10001 flows" in w for w in r.warnings())
    load(many.replace("count = 10001", "count = 10000"))
    assert capsys.readouterr().err == ""


def test_a_sweep_warns_of_many_flows_once(tmp_path, capsys):
    """A sweep plans every point and seed of one scenario: its many-flows warning once, not
    once per planned run."""
    from aqmlab.sweep import plan
    from aqmlab.sweepspec import SweepSpec

    p = tmp_path / "many.toml"
    p.write_text(WEB.replace("[[flows]]", "[[flows]]\ncount = 10001", 1))
    tasks = plan(SweepSpec(str(p), [], {}, [1, 2, 3]))
    assert len(tasks) == 3 and all(t.error is None for t in tasks)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"aqmlab: warning: {p}: flows: 10001 flows (over 10000): ")


def test_a_sweeps_runs_do_not_warn_of_many_flows_again(tmp_path):
    """The many-flows warning comes once per sweep (while it plans), not again from each run as
    it loads, in this process or in a worker process; ``aqmlab run`` gives it once. Each run
    keeps it among its warnings in ``summary.json``."""
    import json

    p = tmp_path / "many.toml"
    p.write_text(
        WEB.replace("[[flows]]", "[[flows]]\ncount = 10001", 1).replace(
            'duration = "2s"', 'duration = "20ms"\nbin = "10ms"'
        )
    )

    def warnings(r):
        assert r.returncode == 0, r.stderr
        return [x for x in r.stderr.splitlines() if "10001 flows (over 10000)" in x]

    out = tmp_path / "sw"
    r = run_cli("sweep", str(p), "--seeds", "1-3", "-j", "2", "--out", str(out), "-q")
    assert len(warnings(r)) == 1, r.stderr
    for run in (out / "runs").iterdir():
        said = json.loads((run / "summary.json").read_text())["provenance"]["warnings"]
        assert any("10001 flows (over 10000)" in w for w in said), said
    r = run_cli("run", str(p), "--out", str(tmp_path / "one"), "-q")
    assert len(warnings(r)) == 1, r.stderr


def test_many_large_counts_fail_before_expanding(tmp_path):
    flows = '\n[[flows]]\ncount = 100000\nkind = "udp"\nfrom = "s1"\nto = "r1"\nrate = "1kbps"\n'
    p = tmp_path / "many.toml"
    p.write_text(WEB + flows * 10)
    t0 = time.monotonic()
    msg = one_line_error(run_cli("run", str(p), "--out", str(tmp_path / "o"), "-q"))
    assert msg == f"{p}: flows: expected at most 100000 flows, got 1000001 (counts included)"
    # Refused before the 10^6 copies are made (which took minutes and gigabytes).
    assert time.monotonic() - t0 < 30


# -- item 5: the forwarder from a wheel -------------------------------------------------------


def test_missing_forwarder_says_how_to_get_it(tmp_path, monkeypatch):
    import aqmlab.shell as shell

    monkeypatch.delenv("AQMLAB_EMU", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    # As installed from a wheel: site-packages/aqmlab/shell.py, no checkout around it.
    monkeypatch.setattr(shell, "__file__", str(tmp_path / "site-packages" / "aqmlab" / "shell.py"))
    with pytest.raises(ShellError) as e:
        forwarder_path()
    assert str(e.value) == (
        "cannot find the forwarder aqmlab-emu (a wheel does not include it): in a checkout of "
        "aqmlab, run `cargo build --release -p aqmlab-emu` and set AQMLAB_EMU to "
        "target/release/aqmlab-emu, or put it on PATH"
    )
    monkeypatch.setenv("AQMLAB_EMU", str(tmp_path / "nothing"))
    with pytest.raises(ShellError, match="^AQMLAB_EMU: expected the path of the aqmlab-emu"):
        forwarder_path()


@pytest.mark.parametrize("direction", ["downlink", "uplink"])
def test_shell_param_error_names_the_param_option(tmp_path, direction):
    # A bad --param value of `aqmlab shell`, as the generated scenario's loader reports it
    # (naming links[0].params.target), said about the option that gave it.
    import aqmlab.shell as shell

    path = tmp_path / "link.toml"
    params = {direction: {"target": "5"}}
    path.write_text(shell.link_scenario(downlink_qdisc="codel", params=params))
    with pytest.raises(aqmlab.ScenarioError) as e:
        load(str(path))
    msg = shell._flag_error(str(e.value), str(path))
    assert msg.startswith(f"--param {direction}.target: codel: parameter target = 5: "), msg
