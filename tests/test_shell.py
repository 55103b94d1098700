"""Live emulation (`aqmlab shell`, python/aqmlab/shell.py and crates/aqmlab-emu): real Linux TCP
through aqmlab's link model and disciplines, between two network namespaces of our own.

These tests need root (or CAP_NET_ADMIN), iproute2 and /dev/net/tun, as CI has; elsewhere they
are skipped. Traffic stays between the two namespaces each test makes; every sender stops by
itself after a few seconds. The TCP sender/receiver is python/aqmlab/emutool.py.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from aqmlab import shell
from aqmlab.cli import main as cli_main

pytestmark = pytest.mark.skipif(
    not (os.geteuid() == 0 and shutil.which("ip") and os.path.exists("/dev/net/tun")),
    reason="needs root, iproute2 and /dev/net/tun",
)

PY = sys.executable
#: TCP payload per 1500-byte packet (Linux with timestamps: 1500 - 20 - 20 - 12).
PAYLOAD_FRACTION = 1448 / 1500
#: The most a round trip between the two namespaces' programs may take beyond the link's own
#: delays (see test_idle_rtt_is_twice_the_delay).
HOST_PATH_MS = 2.0
#: Sim-vs-emu tolerances for BBR: those of the CUBIC parity test.
BBR_GOODPUT_TOL = 0.10
BBR_SOJOURN_TOL_MS = 2.0
#: The ACK-path jitter whose simulation bounds Linux's tail-drop median sojourn from above.
BBR_ACK_JITTER = "uniform(0ms, 2ms)"


def emulate_rt(*args, **kwargs):
    """`shell.emulate` with the forwarder at real-time priority, as a loaded machine needs
    (CI's runs beside the build), or without where the system refuses it."""
    try:
        return shell.emulate(*args, rt=50, **kwargs)
    except shell.ShellError as e:
        if "SCHED_FIFO" not in str(e):
            raise
        return shell.emulate(*args, **kwargs)


def bulk_down(tmp_path, seconds=4.0, cc="cubic", **link):
    """One bulk TCP flow server → client for `seconds` (the sink's clock): the result and the
    sink's measurement."""
    sink_out = tmp_path / "sink.json"
    res = emulate_rt(
        ["sh", "-c", f"{PY} -m aqmlab.emutool sink 5001 {seconds} > {sink_out}"],
        tmp_path / "out",
        server=f"{PY} -m aqmlab.emutool bulk $AQMLAB_PEER_ADDR 5001 {seconds + 2} {cc}",
        **link,
    )
    assert res.returncode == 0
    return res, json.loads(sink_out.read_text())


def our_namespaces():
    return [n for n in shell._namespaces() if n.startswith(f"{shell.PREFIX}{os.getpid()}-")]


def our_devices():
    out = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if f"aq{os.getpid()}." in line]


def twice_if_off(measure, ok):
    """`measure()`, and once more if `ok` rejects it: the machine's stalls (other builds on its
    two cores; the VM's own) can starve the sender or receiver for a moment. A real fault fails
    both times."""
    first = measure()
    return first if ok(first) else measure()


@pytest.mark.parametrize("mbps", [12, 50])
def test_goodput_within_5_percent_of_ideal(tmp_path, mbps):
    ideal = mbps * 1e6 * PAYLOAD_FRACTION

    def goodput(m):
        return m[1]["warm_bytes"] * 8 / m[1]["warm_seconds"]

    def ok(m):
        # Both measured over the run, the programs' start included: a stall of the machine
        # then (other builds on its two cores) shows in both.
        return (
            abs(goodput(m) / ideal - 1) < 0.05
            and m[0].summary["links"]["downlink"]["utilization"] > 0.8
        )

    res, sink = twice_if_off(
        lambda: bulk_down(tmp_path, downlink=f"{mbps}Mbps", delay="20ms", buffer="1000p"),
        ok,
    )
    assert abs(goodput((res, sink)) / ideal - 1) < 0.05, (goodput((res, sink)), ideal)
    # The flows: each direction of each 5-tuple; the bulk one carried the sink's bytes (and
    # their headers).
    bulk = [f for f in res.summary["flows"] if f["dst"] == f"{shell.CLIENT_ADDR}:5001"]
    assert bulk and max(f["delivered_bytes"] for f in bulk) > sink["bytes"]
    assert all(f["kind"] == "tcp" and f["app"] == "live" for f in bulk)
    flows = res.flows
    assert flows.groupby("flow").cumulative_bytes.max().sum() == sum(
        f["delivered_bytes"] for f in res.summary["flows"]
    )
    # The output folder is that of `aqmlab run`.
    files = sorted(os.listdir(tmp_path / "out"))
    assert files == ["flows.parquet", "links.parquet", "scenario.resolved.toml", "summary.json"]
    down = res.summary["links"]["downlink"]
    assert down["utilization"] > 0.8
    assert res.links[res.links.link == "downlink"].egress_bytes.sum() == down["delivered_bytes"]
    assert res.summary["emulation"]["deliveries"] > 0
    if mbps == 12:
        # `aqmlab plot` and the report read an emulated run as any other.
        from aqmlab import plot, write_report

        assert plot(tmp_path / "out")
        assert os.path.exists(write_report(tmp_path / "out"))


def test_idle_rtt_is_twice_the_delay(tmp_path):
    out = tmp_path / "rtt.json"

    def measure():
        res = emulate_rt(
            ["sh", "-c", f"{PY} -m aqmlab.emutool ping $AQMLAB_SERVER_ADDR 7000 21 0.05 > {out}"],
            tmp_path / "out",
            server=f"{PY} -m aqmlab.emutool echo 7000",
            delay="20ms",
            downlink="100Mbps",
            packet_log=True,
        )
        rtts = sorted(json.loads(out.read_text()))
        return res, rtts, rtts[len(rtts) // 2] if rtts else float("nan")

    # The link never delivers early: no round trip is shorter than twice the delay. What a
    # round trip takes beyond it is the forwarder's wake-up lateness (its own measurement,
    # checked below) and the host's path: two TUN devices, the namespaces' stacks and the
    # Python programs' scheduling: 0.9-1.2 ms in all on this idle machine, 1.0 ms in a CI run.
    def ok(m):
        return len(m[1]) >= 19 and m[1][0] >= 40.0 and m[2] - 40.0 < HOST_PATH_MS

    res, rtts, median = twice_if_off(measure, ok)
    assert len(rtts) >= 19
    assert rtts[0] >= 40.0, rtts
    assert median - 40.0 < HOST_PATH_MS, rtts
    # Nanosecond timers: the forwarder wakes within a fraction of a millisecond of a delivery's
    # due time (this VM's own wake-up latency: 0.13 ms at real-time priority, 0.39 ms without).
    lateness = res.summary["emulation"]["lateness_ms"]
    assert lateness["p50"] < 0.5, lateness
    # The packet log: each ping and its echo, each direction.
    assert (tmp_path / "out" / "packets.parquet").exists()
    per_link = res.packets.groupby("link").size()
    assert per_link["uplink"] >= 21 and per_link["downlink"] >= 19, per_link


def test_codel_holds_the_median_sojourn_where_a_large_tail_drop_buffer_does_not(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    link = {"downlink": "12Mbps", "delay": "20ms"}
    codel, _ = bulk_down(
        tmp_path / "a", downlink_qdisc="codel", buffer="1000p", packet_log=True, **link
    )
    tail, _ = bulk_down(tmp_path / "b", downlink_qdisc="droptail", buffer="1000p", **link)
    c = codel.summary["links"]["downlink"]
    t = tail.summary["links"]["downlink"]
    assert c["qdisc"] == "codel" and c["sojourn_ms"]["p50"] < 10, c
    assert t["sojourn_ms"]["p50"] > 10, t
    assert c["drops_by_reason"].get("codel_target", 0) > 0
    # The packet log keeps the drops beside the packets, as `aqmlab run`'s does: per direction
    # and reason, the rows are the summary's drops.
    assert (tmp_path / "a" / "out" / "drops.parquet").exists()
    for name, link_summary in codel.summary["links"].items():
        rows = codel.drops[codel.drops.link == name]
        assert rows.groupby("reason").size().to_dict() == link_summary["drops_by_reason"], name
    # Conservation per direction, as in the simulator: every packet the forwarder offered to
    # the discipline was delivered, dropped, or is still queued or being sent at the end.
    for res in (codel, tail):
        for name, s in res.summary["links"].items():
            end = s["queued_pkts_at_end"] + s["transmitting_pkts_at_end"]
            assert s["enqueued_pkts"] == s["delivered_pkts"] + s["dropped_pkts"] + end, (name, s)


def test_a_trace_driven_link_delivers_the_traces_bytes(tmp_path):
    # Three delivery opportunities every 2 ms: 3 x 1504 B / 2 ms = 18.05 Mb/s.
    trace = tmp_path / "x.down"
    trace.write_text("1\n2\n2\n")
    res, sink = bulk_down(tmp_path, downlink=str(trace), uplink="100Mbps", buffer="1000p")
    # While the queue is backlogged every opportunity is used: each 100-ms bin carries its 150
    # opportunities' bytes (mahimahi's accounting: 1504 bytes each, a packet's last bytes
    # spilling into the next one when packets are back to back).
    down = res.links[res.links.link == "downlink"].reset_index(drop=True)
    first = down.index[down.egress_bytes > 0][0]
    steady = down.iloc[first + 15 : first + 35]
    assert (steady.max_backlog_pkts > 1).all(), steady
    expected = len(steady) * 150 * 1504
    assert abs(steady.egress_bytes.sum() / expected - 1) < 0.01, steady.egress_bytes.tolist()
    goodput = sink["warm_bytes"] * 8 / sink["warm_seconds"]
    ideal = 3 * 1448 * 8 / 2e-3
    assert abs(goodput / ideal - 1) < 0.05, (goodput, ideal)


def test_a_callable_runs_in_the_client_namespace(tmp_path):
    def ask():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(3)
            s.sendto(b"hi", (os.environ["AQMLAB_SERVER_ADDR"], 7000))
            return s.recvfrom(16)[0]

    res = shell.emulate(ask, server=f"{PY} -m aqmlab.emutool echo 7000", delay="5ms")
    assert res.value == b"hi"
    assert res.summary["links"]["uplink"]["delivered_pkts"] >= 1
    assert our_namespaces() == []


def test_several_shells_run_at_once():
    import threading

    results = {}

    def one(i):
        results[i] = shell.emulate(
            ["sh", "-c", f"{PY} -m aqmlab.emutool ping $AQMLAB_PEER_ADDR 7000 5 0.05"],
            server=f"{PY} -m aqmlab.emutool echo 7000",
            delay=f"{5 * (i + 1)}ms",
        )

    threads = [threading.Thread(target=one, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(2):
        assert results[i].returncode == 0
        assert results[i].summary["links"]["downlink"]["delivered_pkts"] >= 4
    assert our_namespaces() == []


def test_cleanup_after_the_command_and_the_forwarder_are_killed(tmp_path):
    res = shell.emulate(["sh", "-c", "kill -9 $$"])
    assert res.returncode == -9
    assert our_namespaces() == [] and our_devices() == []
    with pytest.raises(shell.ShellError, match="the forwarder stopped"):
        shell.emulate(["sh", "-c", "kill -9 $AQMLAB_FORWARDER_PID; sleep 20"])
    assert our_namespaces() == [] and our_devices() == []
    # A namespace left by a process that no longer exists goes with the next run's cleanup.
    p = subprocess.Popen(["true"])
    p.wait()
    stale = f"{shell.PREFIX}{p.pid}-0-c"
    subprocess.run(["ip", "netns", "add", stale], check=True)
    assert stale in shell.cleanup()
    assert stale not in shell._namespaces()


def test_bad_input_is_one_line(tmp_path, capsys):
    assert cli_main(["shell", "--downlink-qdisc", "blue", "--", "true"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("aqmlab: error: ") and "blue" in err[0], err
    assert cli_main(["shell", "--param", "sideways.target=5ms", "--", "true"]) == 2
    assert "downlink.NAME=VALUE" in capsys.readouterr().err
    assert cli_main(["shell", "--link", "nowhere.toml:x", "--", "true"]) == 2
    assert "no such file" in capsys.readouterr().err
    # A congestion control the kernel lacks: one line listing what it has.
    available = Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split()
    assert cli_main(["shell", "--cc", "nosuchcc", "--", "true"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(
        f"aqmlab: error: --cc 'nosuchcc': the kernel offers {', '.join(available)} ("
    ), err
    assert our_namespaces() == []


def test_without_net_admin_it_refuses_with_one_line(tmp_path):
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("needs setpriv (util-linux) to drop privileges")
    drop = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"]
    probe = subprocess.run([*drop, PY, "-c", "import aqmlab.shell"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("an unprivileged user cannot import aqmlab from this checkout")
    r = subprocess.run(
        [
            setpriv,
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
            PY,
            "-m",
            "aqmlab",
            "shell",
            "--",
            "true",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "aqmlab: error: aqmlab shell needs root or CAP_NET_ADMIN (it creates network "
        "namespaces and TUN devices): run it with sudo"
    ]


def test_simulation_and_emulation_agree():
    """One bulk flow, 12 Mb/s, 40 ms RTT, CoDel and tail drop with a 100-packet buffer:
    aqmlab's CUBIC simulated and Linux's cubic emulated agree within 10 % on goodput and 2 ms on
    median sojourn (examples/emu_vs_sim.py plots the two)."""
    from aqmlab.emucompare import compare

    scenario = os.path.join(os.path.dirname(__file__), "..", "scenarios", "emu-vs-sim.toml")
    # The scenario's CUBIC is Linux's (`cubic_linux`: Linux's HyStart and its 5 %/RTT growth
    # before the first loss). Measured on the 2-core CI machine: goodput 10.89 vs 10.38-10.88
    # Mb/s (CoDel) and 11.54 vs 11.52 (tail drop); median sojourn 1.97 vs 1.94-1.99 ms and
    # 78.91 vs 78.91 ms. With RFC 9438's CUBIC alone tail drop's median was 81.00 ms, 2.1 ms
    # off: its slow start overflowed the buffer, and W_max came from that overflow.

    def agree(arm):
        return (
            abs(arm.emu_goodput_bps / arm.sim_goodput_bps - 1) < 0.10
            and abs(arm.emu_p50_ms - arm.sim_p50_ms) < 2.0
        )

    for q in ("codel", "droptail"):
        arm = twice_if_off(lambda q=q: compare(scenario, qdiscs=(q,))[0], agree)
        # On failure, the message gives the forwarder's lateness: a loaded host, not the model.
        assert abs(arm.emu_goodput_bps / arm.sim_goodput_bps - 1) < 0.10, arm.describe()
        assert abs(arm.emu_p50_ms - arm.sim_p50_ms) < 2.0, arm.describe()
        # Both namespaces ran the simulated flow's congestion control, not the host's default.
        prov = arm.emu.summary["provenance"]
        assert prov["shell"]["cc"] == "cubic"
        assert prov["tcp_congestion_control"] == {"client": "cubic", "server": "cubic"}


def test_simulation_and_emulation_agree_for_bbr():
    """The same link with one bulk BBR flow (``scenarios/emu-vs-sim-bbr.toml``): aqmlab's BBR v1
    simulated and Linux's bbr emulated (``aqmlab shell --cc bbr``) agree within GOODPUT_TOL on
    goodput under tail drop and CoDel, and within BBR_SOJOURN_TOL_MS on median sojourn under
    CoDel: the CUBIC test's tolerances. Measured (2026-11-28, four runs, idle machine):
    goodput 11.46-11.52 Mb/s emulated against 11.53 simulated; under CoDel median sojourn
    5.29-6.14 ms emulated against 4.77 simulated.

    Under tail drop the median sojourns do not agree and the test does not pretend they do:
    Linux's bbr gave 6.08 to 30.34 ms over eleven runs, aqmlab's BBR 5.85 ms in every run
    (docs/models/bbr.md, "Against Linux"). The cause found: noise in the emulated ACK stream
    (stretch ACKs, late deliveries) lifts the windowed-max bandwidth estimate, pacing at it
    builds a queue up to the window's cap (2 BDP, plus Linux's ACK-aggregation allowance, which
    aqmlab's BBR now has too); the simulator's ACK clock is exact, so its queue stays at the
    gain cycle's. The same simulation with 0-2 ms of uniform jitter on the ACK path gives
    41.8 ms. What is checked under tail drop: Linux's median lies between aqmlab's with a clean
    ACK path (less BBR_SOJOURN_TOL_MS) and aqmlab's with that ACK jitter, and nearer to
    aqmlab's BBR than to the counterfactual, aqmlab's CUBIC on the same link (about 81 ms),
    which falls outside the band."""
    from aqmlab import run as simulate
    from aqmlab.emucompare import compare

    scenario = os.path.join(os.path.dirname(__file__), "..", "scenarios", "emu-vs-sim-bbr.toml")

    def goodput_agrees(arm):
        return abs(arm.emu_goodput_bps / arm.sim_goodput_bps - 1) < BBR_GOODPUT_TOL

    def agree(arm):
        return goodput_agrees(arm) and abs(arm.emu_p50_ms - arm.sim_p50_ms) < BBR_SOJOURN_TOL_MS

    def p50(**kw):
        res = simulate(scenario, qdisc={"bottleneck": "droptail"}, **kw)
        return res.summary["links"]["bottleneck"]["sojourn_ms"]["p50"]

    jittered = p50(set={"dumbbell.bottleneck.reverse.jitter": BBR_ACK_JITTER})
    cubic = p50(set={"flows[0].cc": "cubic"})

    def in_band(p, floor):
        return floor - BBR_SOJOURN_TOL_MS < p < jittered

    def droptail_ok(arm):
        return goodput_agrees(arm) and in_band(arm.emu_p50_ms, arm.sim_p50_ms)

    for q in ("codel", "droptail"):
        ok = agree if q == "codel" else droptail_ok
        arm = twice_if_off(lambda q=q: compare(scenario, qdiscs=(q,))[0], ok)
        figures = arm.describe()
        assert ok(arm), (jittered, figures)
        prov = arm.emu.summary["provenance"]
        assert prov["shell"]["cc"] == "bbr"
        assert prov["tcp_congestion_control"] == {"client": "bbr", "server": "bbr"}
        if q == "droptail":
            # The counterfactual: CUBIC in BBR's place lies outside the band.
            assert not in_band(cubic, arm.sim_p50_ms), (cubic, jittered, figures)
            assert abs(arm.emu_p50_ms - arm.sim_p50_ms) < abs(arm.emu_p50_ms - cubic), (
                cubic,
                figures,
            )


def cmdlines():
    """Every process's command line (as /proc has it: arguments ending in NUL)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    out.append(f.read())
            except OSError:
                pass
    return out


def namespaces_of(pid):
    return [n for n in shell._namespaces() if n.startswith(f"{shell.PREFIX}{pid}-")]


def start_shell(tmp_path, *command):
    """`aqmlab shell -- COMMAND` in its own process group (as a terminal's foreground job),
    once its namespaces exist."""
    import time

    p = subprocess.Popen(
        [PY, "-m", "aqmlab", "shell", "--out", str(tmp_path / "out"), "--", *command],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
    )
    for _ in range(100):
        if len(namespaces_of(p.pid)) == 2:
            time.sleep(0.3)  # the devices are configured right after
            return p
        time.sleep(0.05)
    p.kill()
    raise AssertionError("the shell did not start")


@pytest.mark.parametrize(
    ("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["ctrl-c", "sigterm"]
)
def test_ctrl_c_and_sigterm_clean_up_and_keep_the_measurements(tmp_path, sig, status):
    p = start_shell(tmp_path, "sleep", "30")
    if sig == signal.SIGINT:
        os.killpg(p.pid, sig)  # Ctrl-C: the whole foreground group
    else:
        os.kill(p.pid, sig)
    assert p.wait(timeout=15) == status
    assert namespaces_of(p.pid) == []
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["emulation"]["command_status"] == status
    assert summary["provenance"]["emulated"] is True
    assert staging_leftovers(tmp_path) == []


def test_ctrl_c_before_the_congestion_control_is_read_back_still_records_it(
    tmp_path, monkeypatch, capsys
):
    """A Ctrl-C that lands after the namespaces exist but while their congestion control is
    being read back (a race the signal test above can hit on a loaded machine) ends the run
    with 130 and one summary line, and the provenance still names each side's algorithm: it
    is read while the namespaces are taken down. Before, the summary line raised KeyError."""
    import aqmlab.shell as shell

    real = shell._Run.congestion_control
    calls = []

    def interrupted_once(self):
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(self)

    monkeypatch.setattr(shell._Run, "congestion_control", interrupted_once)
    out = tmp_path / "out"
    assert cli_main(["shell", "--out", str(out), "--", "true"]) == 130
    assert len(calls) == 2
    cc = json.loads((out / "summary.json").read_text())["provenance"]["tcp_congestion_control"]
    assert cc == {"client": "cubic", "server": "cubic"}
    assert "TCP congestion control cubic (client), cubic (server)" in capsys.readouterr().out
    assert our_namespaces() == []


def staging_leftovers(parent):
    """What a run's staging (`.NAME.partial-*`, `.NAME.lock`, `.NAME.old-*`) left in `parent`."""
    return sorted(n for n in os.listdir(parent) if n.startswith(".out."))


def test_the_output_folder_is_staged_and_records_how_the_run_was_made(tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["shell", "--delay", "5ms", "--downlink", "10Mbps", "--uplink-qdisc", "codel"]
    argv += ["--out", str(out), "--", "sh", "-c", "exit 3"]
    allowed_file = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control")
    allowed = allowed_file.read_text()
    assert cli_main(argv) == 3
    # cubic is set even where it is not on the host's allowed list, which is left as it was.
    assert allowed_file.read_text() == allowed
    summary = json.loads((out / "summary.json").read_text())
    prov = summary["provenance"]
    assert prov["emulated"] is True
    assert prov["command"] == ["aqmlab", *argv]
    assert prov["shell"]["command"] == ["sh", "-c", "exit 3"]
    assert (prov["shell"]["downlink"], prov["shell"]["uplink_qdisc"]) == ("10Mbps", "codel")
    down, up = prov["directions"]["downlink"], prov["directions"]["uplink"]
    assert (down["rate"], down["qdisc"], down["delay"]) == ("10Mbps", "droptail", "5ms")
    assert (up["rate"], up["qdisc"]) == ("10Mbps", "codel")
    # Without --cc the namespaces run cubic (the simulator's default), whatever the host's
    # default, as each namespace reports it.
    assert prov["shell"]["cc"] == "cubic"
    assert prov["tcp_congestion_control"] == {"client": "cubic", "server": "cubic"}, prov
    assert prov["aqmlab_version"] and prov["build"]
    assert (out / "scenario.resolved.toml").read_text() == prov["resolved_scenario"]
    assert sorted(os.listdir(out)) == [
        "flows.parquet",
        "links.parquet",
        "scenario.resolved.toml",
        "summary.json",
    ]
    assert staging_leftovers(tmp_path) == []


def test_cc_sets_the_congestion_control_of_both_namespaces_and_the_provenance_records_it(
    tmp_path, capsys
):
    """`--cc reno`: a TCP socket made by a program in either namespace runs reno, each
    namespace's default reads reno, the provenance and the printed summary say so, and the
    host's own default and allowed list are untouched. (The default, cubic, is not on this
    host's allowed list: test_the_output_folder_is_staged_… covers that path.)"""
    cc_file = "/proc/sys/net/ipv4/tcp_congestion_control"
    host = Path(cc_file).read_text().strip()
    allowed_file = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control")
    allowed = allowed_file.read_text()
    if host == "reno" or "reno" not in shell.available_cc():
        pytest.skip("needs a kernel with reno whose default is another congestion control")
    # What each side's kernel default says, then what a new TCP socket there gets.
    probe = tmp_path / "probe.sh"
    socket_cc = (
        "import socket; s = socket.socket(); "
        "print(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b'\\0').decode())"
    )
    probe.write_text(f'cat {cc_file}\n{PY} -c "{socket_cc}"\n')
    server_out, client_out = tmp_path / "server.txt", tmp_path / "client.txt"
    out = tmp_path / "out"
    both = (
        f"sh {probe} > {client_out}; ip netns exec $AQMLAB_SERVER_NETNS sh {probe} > {server_out}"
    )
    argv = ["shell", "--cc", "reno", "--out", str(out), "--", "sh", "-c", both]
    assert cli_main(argv) == 0
    assert client_out.read_text().split() == ["reno", "reno"]
    assert server_out.read_text().split() == ["reno", "reno"]
    prov = json.loads((out / "summary.json").read_text())["provenance"]
    assert prov["shell"]["cc"] == "reno"
    assert prov["tcp_congestion_control"] == {"client": "reno", "server": "reno"}
    assert "TCP congestion control reno (client), reno (server)" in capsys.readouterr().out
    assert Path(cc_file).read_text().strip() == host
    assert allowed_file.read_text() == allowed
    assert our_namespaces() == []


def test_a_second_run_into_a_busy_folder_refuses_and_a_failed_run_keeps_the_earlier_one(
    tmp_path,
):
    from aqmlab.outdir import OutputError, OutputFolder

    out = tmp_path / "out"
    first = shell.emulate(["true"], out)
    assert first.returncode == 0
    before = (out / "summary.json").read_text()
    # Another run holds the folder: refused at once, before any namespace is made.
    holder = OutputFolder(out)
    try:
        with pytest.raises(OutputError, match="another aqmlab run"):
            shell.emulate(["true"], out)
        assert our_namespaces() == []
    finally:
        holder.abort()
    # A run that fails (its forwarder killed) leaves the earlier run whole and no staging.
    with pytest.raises(shell.ShellError, match="the forwarder stopped"):
        shell.emulate(["sh", "-c", "kill -9 $AQMLAB_FORWARDER_PID; sleep 20"], out)
    assert (out / "summary.json").read_text() == before
    assert staging_leftovers(tmp_path) == []


def test_a_killed_shell_leaves_namespaces_the_next_run_removes(tmp_path):
    p = start_shell(tmp_path, "sleep", "29")
    p.kill()
    p.wait()
    assert len(namespaces_of(p.pid)) == 2
    # The forwarder sees its standard input close and exits; its devices go with it.
    removed = shell.cleanup()
    assert sorted(removed) == sorted(f"{shell.PREFIX}{p.pid}-0-{s}" for s in "cs")
    assert namespaces_of(p.pid) == []
    # The command left inside (sleep) was ended with them.
    assert not [c for c in cmdlines() if c == b"sleep\0" + b"29\0"]


def test_dualpi2_keeps_classic_tcp_near_its_target_where_tail_drop_does_not(tmp_path):
    # Real Linux TCP (CUBIC, Not-ECT: DualPI2's C queue) through the emulated link: PI2 drops with
    # p_C = p'^2 and holds the median sojourn far below a 1000-packet tail-drop buffer's.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    link = {"downlink": "12Mbps", "delay": "20ms"}
    dual, _ = bulk_down(
        tmp_path / "a", seconds=6.0, downlink_qdisc="dualpi2", buffer="1000p", **link
    )
    tail, _ = bulk_down(
        tmp_path / "b", seconds=6.0, downlink_qdisc="droptail", buffer="1000p", **link
    )
    d = dual.summary["links"]["downlink"]
    t = tail.summary["links"]["downlink"]
    assert d["qdisc"] == "dualpi2", d
    assert d["drops_by_reason"].get("dualpi2_classic", 0) > 0, d["drops_by_reason"]
    assert d["drops_by_reason"].get("overlimit", 0) == 0, d["drops_by_reason"]
    assert d["sojourn_ms"]["p50"] < 0.5 * t["sojourn_ms"]["p50"], (d["sojourn_ms"], t["sojourn_ms"])


def test_cake_keeps_tcp_sojourn_far_below_tail_drop(tmp_path):
    # Real Linux TCP through the emulated link with CAKE (unshaped: the link's rate is the
    # bottleneck; CAKE's shaper, `bandwidth`, does run in the links): its COBALT drops and holds
    # the median sojourn far below a 1000-packet tail-drop buffer's.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    link = {"downlink": "12Mbps", "delay": "20ms"}
    cake, _ = bulk_down(tmp_path / "a", seconds=6.0, downlink_qdisc="cake", buffer="1000p", **link)
    tail, _ = bulk_down(
        tmp_path / "b", seconds=6.0, downlink_qdisc="droptail", buffer="1000p", **link
    )
    c = cake.summary["links"]["downlink"]
    t = tail.summary["links"]["downlink"]
    assert c["qdisc"] == "cake", c
    assert c["drops_by_reason"].get("codel_target", 0) > 0, c["drops_by_reason"]
    assert c["sojourn_ms"]["p50"] < 0.5 * t["sojourn_ms"]["p50"], (c["sojourn_ms"], t["sojourn_ms"])


@pytest.mark.parametrize(
    ("qdisc", "params", "signal_reason"),
    [
        ("fq_pie", {}, None),
        ("cobalt", {}, "codel_target"),
        ("fq_cobalt", {}, "codel_target"),
        ("codel", {"l4s": "true", "ce_threshold": "1ms"}, "codel_target"),
        ("fq_codel", {"l4s": "true", "ce_threshold": "1ms"}, "codel_target"),
    ],
)
def test_each_new_discipline_carries_real_tcp_and_accounts_for_every_packet(
    tmp_path, qdisc, params, signal_reason
):
    # Issue 21's disciplines through the live emulator with real Linux TCP (CUBIC, Not-ECT, so
    # the L4S modes treat it as classic traffic): every packet offered to the discipline is
    # delivered, dropped or still there at the end (conservation), the discipline signals
    # congestion (drops), and it holds the median sojourn far below what a 1000-packet buffer
    # filled by the same flow would give (about 700 ms at 12 Mb/s).
    link = {"downlink": "12Mbps", "delay": "20ms"}
    res, sink = bulk_down(
        tmp_path,
        seconds=4.0,
        downlink_qdisc=qdisc,
        buffer="1000p",
        params={"downlink": params} if params else None,
        **link,
    )
    d = res.summary["links"]["downlink"]
    assert d["qdisc"] == qdisc, d
    accounted = (
        d["delivered_pkts"]
        + d["dropped_pkts"]
        + d["queued_pkts_at_end"]
        + d["transmitting_pkts_at_end"]
    )
    assert d["enqueued_pkts"] == accounted > 1000, d
    assert d["dropped_pkts"] > 0, d["drops_by_reason"]
    if signal_reason is not None:
        assert d["drops_by_reason"].get(signal_reason, 0) > 0, d["drops_by_reason"]
    assert d["drops_by_reason"].get("overlimit", 0) == 0, d["drops_by_reason"]
    assert d["sojourn_ms"]["p50"] < 100, d["sojourn_ms"]
    assert d["utilization"] > 0.5, d["utilization"]


def test_cakes_ack_filter_drops_redundant_acks_of_real_tcp(tmp_path):
    # Real Linux TCP down a 12 Mb/s link whose ACKs return over 100 kb/s through CAKE: the
    # forwarder reads each segment's TCP header (ip::tcp_hint), so the ACK filter finds queued
    # ACKs made redundant by newer ones and drops them; with the filter off it drops none.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    link = {"downlink": "12Mbps", "uplink": "100kbps", "delay": "10ms", "uplink_qdisc": "cake"}
    on, _ = bulk_down(
        tmp_path / "a", seconds=4.0, params={"uplink": {"ack_filter": "ack-filter"}}, **link
    )
    off, _ = bulk_down(tmp_path / "b", seconds=4.0, **link)
    u_on = on.summary["links"]["uplink"]
    u_off = off.summary["links"]["uplink"]
    assert u_on["qdisc"] == "cake", u_on
    assert u_on["drops_by_reason"].get("ack_filter", 0) > 50, u_on["drops_by_reason"]
    assert u_off["drops_by_reason"].get("ack_filter", 0) == 0, u_off["drops_by_reason"]
