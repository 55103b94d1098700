"""The ``aqmlab`` command line: a thin layer over the library functions.

Bad input never shows a traceback: it prints one line, ``aqmlab: error: ...``, naming the file
line or parameter and what was expected, and exits with status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pathlib
import signal
import sys
from collections.abc import Sequence

from aqmlab import __version__, _core
from aqmlab.exceptions import AqmlabError, ScenarioError
from aqmlab.replay import replay
from aqmlab.schedules import overload, write_schedule

#: Disciplines and parameters of the demo: every discipline at its defaults on a 10 Mbit/s link
#: with a 1000-packet buffer (RED needs the link rate for its idle-time correction).
DEMO_QDISCS: list[tuple[str, list[str]]] = [
    ("droptail", ["limit=1000p"]),
    ("red", ["limit=1000p", "bandwidth=10Mbps"]),
    ("codel", ["limit=1000p"]),
    ("pie", ["limit=1000p"]),
    ("fq_codel", ["limit=1000p"]),
    ("lstf_codel", ["limit=1000p"]),
    ("fq_pie", ["limit=1000p"]),
    ("cobalt", ["limit=1000p"]),
    ("fq_cobalt", ["limit=1000p"]),
]


def _seed(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        v = -1
    if not 0 <= v < 2**64:
        raise argparse.ArgumentTypeError(f"expected a whole number 0..2^64-1, got {text!r}")
    return v


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own usage errors: one line + usage
        self.print_usage(sys.stderr)
        self.exit(2, f"aqmlab: error: {message}\n")


def _build_parser(args: Sequence[str] = ("reproduce",)) -> argparse.ArgumentParser:
    p = _Parser(prog="aqmlab", description="A laboratory for active queue management.")
    p.add_argument("--version", action="version", version=f"aqmlab {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    r = sub.add_parser(
        "replay",
        help="drive one queue discipline from an arrival/service schedule",
        description=(
            "Replay SCHEDULE.csv (header t_ns,op,size[,flow][,ecn]; op is enq or deq) through "
            "one discipline and write one decision per packet (id,enq_t_ns,outcome,deq_t_ns)."
        ),
    )
    r.add_argument("schedule", nargs="?", metavar="SCHEDULE.csv")
    r.add_argument(
        "--qdisc",
        metavar="KIND",
        # From the discipline registry, so a new discipline cannot be left out of --help.
        help=", ".join(q["name"] for q in _core.list_qdiscs()),
    )
    r.add_argument(
        "--param",
        "-p",
        action="extend",
        nargs="+",
        default=[],
        metavar="NAME=VALUE",
        help="a discipline parameter, e.g. target=5ms limit=1000p (see --list)",
    )
    r.add_argument("--uniforms", metavar="FILE", help="take random draws from FILE, one per line")
    r.add_argument("--seed", type=_seed, default=1, help="seed of the random stream (default 1)")
    r.add_argument("--output", "-o", metavar="FILE", help="write decisions here (default stdout)")
    r.add_argument("--summary", metavar="FILE", help="write outcome counts as JSON here")
    r.add_argument("--trace", metavar="FILE", help="write state changes (t_ns,var,value) here")
    r.add_argument("--list", action="store_true", help="list disciplines and their parameters")

    rn = sub.add_parser(
        "run",
        help="simulate a scenario file",
        description=(
            "Simulate SCENARIO.toml and write summary.json and time series (Parquet, or CSV "
            "with --csv) to DIR."
        ),
    )
    rn.add_argument(
        "scenario",
        metavar="SCENARIO.toml",
        help="a scenario file, or the name of a bundled one (e.g. codel-dynamic-link)",
    )
    rn.add_argument("--out", "-o", metavar="DIR", help="output folder (default out/<name>)")
    rn.add_argument("--seed", type=_seed, help="override the scenario's seed")
    rn.add_argument(
        "--qdisc",
        action="append",
        default=[],
        metavar="LINK=KIND",
        help=(
            "swap the discipline on a link, keeping its buffer (e.g. bottleneck=droptail); the "
            "file's parameters are dropped, those given with --set LINK...params.NAME=V kept"
        ),
    )
    rn.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help=(
            "override any key by its path (flows[0].cc=cubic, seed=7, "
            "dumbbell.bottleneck.params.target=2ms); the value is read as TOML "
            "(10, 1.5, true, [...]) when it is one, else as a string (20Mbps)"
        ),
    )
    rn.add_argument(
        "--unset",
        action="append",
        default=[],
        metavar="KEY.PATH",
        help="remove a key (or a whole table) by its path, e.g. flows[0].stop, before any --set",
    )
    rn.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="LINK=KIND",
        help="also run with KIND on LINK (e.g. bottleneck=droptail) and print both side by side",
    )
    rn.add_argument(
        "--packet-log",
        action="append",
        default=[],
        metavar="LINK",
        help="record every packet through LINK (a direction: NAME or NAME.rev) in packets.*",
    )
    rn.add_argument(
        "--trace-flow",
        action="append",
        default=[],
        metavar="FLOW=EVERY",
        help="sample TCP flow FLOW's sender state (window, RTT, its controller's model) every "
        "EVERY (e.g. 0=10ms) into flow_states.*, as [output] trace_flows does",
    )
    rn.add_argument("--csv", action="store_true", help="write time series as CSV, not Parquet")
    rn.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no table")

    sw = sub.add_parser(
        "sweep",
        help="run a scenario over values of its keys and seeds, in parallel, with statistics",
        description=(
            "Run SCENARIO (a scenario file) at every combination of the --vary, --qdisc and "
            "--zip values, for every seed, on all cores (or a Dask cluster), and write "
            "DIR/results.parquet, results.csv (one row per run), summary.csv (mean, std, n, "
            "95% CI over seeds) and each run's folder under DIR/runs/. Runs already in DIR are "
            "reused: a sweep run again, or resumed after an interruption, simulates only what "
            "is missing. Or: aqmlab sweep SWEEP.toml (docs/data-format.md, 'Sweeps')."
        ),
    )
    sw.add_argument("scenario", metavar="SCENARIO|SWEEP.toml")
    sw.add_argument("--out", "-o", metavar="DIR", help="sweep folder (default out/sweep-<name>)")
    sw.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="KEY=V1,V2,...",
        help="an axis: the values of a scenario key (as --set takes it), e.g. "
        "dumbbell.bottleneck.rate=10Mbps,100Mbps",
    )
    sw.add_argument(
        "--qdisc",
        action="append",
        default=[],
        metavar="LINK=K1,K2,...",
        help="an axis of disciplines on LINK (swapped as aqmlab run --qdisc does)",
    )
    sw.add_argument(
        "--zip",
        action="append",
        default=[],
        metavar="KEY=V1,V2,...",
        help="keys whose i-th values go together: all --zip keys form one axis",
    )
    sw.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY.PATH=VALUE",
        help="fix a key for every point (as aqmlab run --set)",
    )
    sw.add_argument(
        "--unset",
        action="append",
        default=[],
        metavar="KEY.PATH",
        help="remove a key at every point, before any --set or axis value (as aqmlab run --unset)",
    )
    sw.add_argument("--seeds", metavar="SEEDS", help="e.g. 1-10 or 1,3,5 (default: the file's)")
    sw.add_argument(
        "--jobs", "-j", type=int, metavar="N", help="parallel runs (default: every core)"
    )
    sw.add_argument(
        "--threads",
        action="store_true",
        help="run in threads of this process instead of worker processes",
    )
    sw.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run on a Dask cluster: a scheduler's address (tcp://host:8786), or 'local' "
        "for a LocalCluster of --jobs workers (pip install 'aqmlab[dask]')",
    )
    sw.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no table")

    pl = sub.add_parser(
        "plot",
        help="draw the figures of a run or sweep folder (PNG and SVG, into DIR/figures/)",
        description=(
            "Draw figures from saved results without simulating again. A run folder: delay, "
            "cumulative bytes, throughput, queue, sojourn CDF, per-flow goodput (every "
            "--compare arm in the same figure). A sweep folder: metrics against an axis with "
            "95% confidence intervals, and delay against throughput."
        ),
    )
    pl.add_argument("folder", metavar="DIR")
    pl.add_argument("--link", metavar="NAME", help="link direction to plot (default: bottleneck)")
    pl.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="COLUMN",
        help="sweep: a metric column to plot (repeatable; default: delay, utilization, goodput)",
    )
    pl.add_argument("--x", metavar="AXIS", help="sweep: the axis on the x axis (default: first)")
    pl.add_argument("--by", metavar="AXIS", help="sweep: one line per value of this axis")
    pl.add_argument("--out", "-o", metavar="DIR", help="figure folder (default DIR/figures)")

    rp = sub.add_parser(
        "report",
        help="write a self-contained report.html of a run or sweep folder",
        description=(
            "Write DIR/report.html: figures embedded, tables, and how every run was made; it "
            "opens in a browser without a server."
        ),
    )
    rp.add_argument("folder", metavar="DIR")
    rp.add_argument("--link", metavar="NAME", help="link direction to show (default: bottleneck)")
    rp.add_argument("--out", "-o", metavar="FILE", help="report file (default DIR/report.html)")

    rep = sub.add_parser(
        "reproduce",
        help="run one of the seed documents' experiments and compare with the published numbers",
        description=(
            "Run experiment NAME (--list names them; 'all' runs every one), or the reproduction "
            "in folder PATH (its experiment.toml and claims.toml: docs/reproductions.md), and "
            "write its figures, data, results.json and a report (report.md, report.html) that "
            "puts aqmlab's numbers beside the published ones."
        ),
    )
    rep.add_argument("name", nargs="?", metavar="NAME|PATH")
    rep.add_argument("--list", action="store_true", help="list the reproductions")
    rep.add_argument("--quick", action="store_true", help="a shortened run (for CI)")
    rep.add_argument(
        "--seeds",
        type=int,
        metavar="N",
        help="seeds 1..N (default: the reproduction's own, 3 where it names none; 1 with --quick)",
    )
    rep.add_argument(
        "--jobs", "-j", type=int, metavar="N", help="parallel runs (default: every core)"
    )
    rep.add_argument("--out", "-o", metavar="DIR", help="output folder (default out/NAME)")
    # The options the built-in reproductions declare ([options.NAME]): read from their
    # experiment.toml files only for a command line naming `reproduce` (issue 24: every other
    # command would pay for reading 15 files and importing the folder reader, about 0.1 s).
    if "reproduce" in args:
        from aqmlab.reproduce.options import builtin as builtin_options

        for opt, (text, metavar, owners) in builtin_options().items():
            rep.add_argument(f"--{opt}", metavar=metavar, help=f"{', '.join(owners)}: {text}")
    rep.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no table")

    ch = sub.add_parser(
        "characterize",
        help="RFC 7928's characterization of queue disciplines, side by side",
        description=(
            "Run RFC 7928's scenarios for every discipline named and write "
            "DIR/characterization.json, the runs (cached and resumable, as sweeps), figures and "
            "DIR/report.html (docs/characterize.md)."
        ),
    )
    ch.add_argument("qdiscs", nargs="+", metavar="QDISC", help="disciplines (aqmlab replay --list)")
    ch.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="QDISC.KEY=VALUE",
        help="a discipline's parameter (repeatable): codel.target=10ms",
    )
    ch.add_argument("--rate", default="10Mbps", metavar="R", help="bottleneck rate (10Mbps)")
    ch.add_argument("--rtt", default="100ms", metavar="T", help="base round-trip time (100ms)")
    ch.add_argument("--seeds", type=int, metavar="N", help="seeds 1..N (default 5; 2 with --quick)")
    ch.add_argument("--quick", action="store_true", help="every scenario shortened (for CI)")
    ch.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="ID",
        help="only the scenarios whose id or RFC section starts with ID (repeatable): 8.2",
    )
    ch.add_argument(
        "--jobs", "-j", type=int, metavar="N", help="parallel runs (default: every core)"
    )
    ch.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run on a Dask cluster: a scheduler's address (tcp://host:8786), or 'local' for "
        "a LocalCluster of --jobs workers",
    )
    ch.add_argument(
        "--emulate",
        action="store_true",
        help="also run the scenarios that need only bulk TCP and UDP over one path through "
        "aqmlab shell's emulated link, with real Linux TCP (needs root, iproute2, /dev/net/tun)",
    )
    ch.add_argument(
        "--bench",
        metavar="DIR",
        help="criterion's results of `make bench` (target/criterion): the report shows each "
        "discipline's measured time per packet with its commit, machine and date (RFC 7928 "
        "§11); without it, 'not measured'",
    )
    ch.add_argument(
        "--scenarios",
        metavar="DIR",
        action="append",
        help="a folder of your own scenario templates (TOML, as the bundled ones: "
        "docs/characterize.md), run beside the bundled scenarios (repeatable)",
    )
    ch.add_argument("--out", "-o", metavar="DIR", help="output folder (default out/characterize)")
    ch.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no table")

    ex = sub.add_parser(
        "export",
        help="write a run's series in another tool's format (--flent: a flent data file)",
        description=(
            "Write the run in DIR as a flent data file (flent's tcp_nup test: per-flow "
            "throughput, sum, fairness, and the flows' sRTT as latency) that flent and "
            "flent-gui open."
        ),
    )
    ex.add_argument("folder", metavar="DIR")
    ex.add_argument("--flent", action="store_true", required=True, help="flent's format")
    ex.add_argument("--out", "-o", metavar="FILE", help="default DIR/<scenario>.flent.gz")

    b = sub.add_parser(
        "bench",
        help=(
            "time the benchmark scenarios (bulk-dumbbell, codel-dynamic-link with CoDel and "
            "tail drop, web-overload)"
        ),
        description="Run the benchmark scenarios and report packets and events per wall second.",
    )
    b.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    b.add_argument(
        "--root",
        default=None,
        metavar="DIR",
        help="repository root holding scenarios/ and bench/ (default: the bundled scenarios)",
    )
    b.add_argument(
        "--repeat",
        type=int,
        default=3,
        metavar="N",
        help="runs per scenario; the run with the median wall time is reported (default 3)",
    )

    d = sub.add_parser(
        "demo",
        help="replay the bundled overload schedule through every discipline and compare",
        description=(
            "Generate the overload schedule (1500-B packets at 1.2x a 10 Mbit/s link for 20 s, "
            "then 0.5x for 10 s), replay it through every discipline at its defaults, write the "
            "decisions to DIR and print a comparison table."
        ),
    )
    d.add_argument("--out", default="out/demo", metavar="DIR", help="output folder")
    _add_shell_parser(sub)
    return p


def _add_shell_parser(sub: argparse._SubParsersAction) -> None:
    sh = sub.add_parser(
        "shell",
        help="run a command through an emulated link (real Linux TCP, aqmlab's disciplines)",
        description=(
            "Run COMMAND in a client network namespace whose only route leads through an "
            "emulated link (aqmlab's link model and discipline per direction, then a delay) to "
            "a server namespace. Both sides find the other's address in AQMLAB_PEER_ADDR "
            "(AQMLAB_SERVER_ADDR, AQMLAB_CLIENT_ADDR). Writes the output folder of aqmlab run. "
            "Needs root or CAP_NET_ADMIN."
        ),
    )
    sh.add_argument(
        "--downlink",
        default="12Mbps",
        metavar="RATE|TRACE",
        help="server -> client rate, or a mahimahi trace file (default 12Mbps)",
    )
    sh.add_argument(
        "--uplink", metavar="RATE|TRACE", help="client -> server (default: as --downlink)"
    )
    sh.add_argument("--delay", default="0ms", metavar="D", help="one-way delay, each direction")
    sh.add_argument("--downlink-qdisc", default="droptail", metavar="KIND")
    sh.add_argument("--uplink-qdisc", metavar="KIND", help="default: as --downlink-qdisc")
    sh.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="DIRECTION.NAME=VALUE",
        help="a discipline parameter: downlink.target=5ms (repeatable)",
    )
    sh.add_argument("--buffer", metavar="N", help="buffer of both directions: 100p or 150KB")
    sh.add_argument(
        "--link",
        metavar="SCENARIO.toml:LINK",
        help="take the link from a scenario file (its forward direction is the downlink)",
    )
    sh.add_argument("--server", metavar="CMD", help="start CMD in the server namespace first")
    sh.add_argument("--out", default="out/shell", metavar="DIR", help="output folder")
    sh.add_argument("--csv", action="store_true", help="time series as CSV")
    sh.add_argument("--packet-log", action="store_true", help="log every packet of both directions")
    sh.add_argument(
        "--rt", type=int, metavar="PRIO", help="run the forwarder at SCHED_FIFO priority PRIO"
    )
    sh.add_argument(
        "--timer-slack",
        metavar="D",
        help="how late the forwarder's timed waits may end (default 250us; 1ns: on time, more CPU)",
    )
    sh.add_argument(
        "--cc",
        default="cubic",
        metavar="NAME",
        help=(
            "TCP congestion control of both namespaces, Linux's name (default cubic, as the "
            "simulator's flows; /proc/sys/net/ipv4/tcp_available_congestion_control lists them)"
        ),
    )
    sh.add_argument(
        "--cleanup",
        action="store_true",
        help="remove namespaces left by runs that were killed, and exit",
    )
    sh.add_argument(
        "argv",
        nargs=argparse.REMAINDER,
        metavar="-- COMMAND ...",
        help="the command to run in the client namespace",
    )


def _cmd_shell(a: argparse.Namespace) -> int:
    from aqmlab.shell import cleanup, emulate

    if a.cleanup:
        removed = cleanup()
        print(f"removed {len(removed)} namespace(s){': ' + ', '.join(removed) if removed else ''}")
        return 0
    command = a.argv[1:] if a.argv[:1] == ["--"] else a.argv
    if not command:
        raise _UsageError("no command given: aqmlab shell [OPTIONS] -- COMMAND ...")
    params: dict[str, dict[str, str]] = {}
    for k, v in _pairs(a.param, "--param"):
        d, sep, name = k.partition(".")
        if not sep or d not in ("downlink", "uplink") or not name:
            raise _UsageError(f"--param {k}={v}: expected downlink.NAME=VALUE or uplink.NAME=VALUE")
        params.setdefault(d, {})[name] = v
    if a.link and (a.param or a.buffer or a.uplink or a.uplink_qdisc):
        raise _UsageError(
            "--link takes the whole link from the file: drop --param, --buffer, --uplink*"
        )
    res = emulate(
        command,
        a.out,
        downlink=a.downlink,
        uplink=a.uplink,
        delay=a.delay,
        downlink_qdisc=a.downlink_qdisc,
        uplink_qdisc=a.uplink_qdisc,
        params=params,
        buffer=a.buffer,
        link=a.link,
        server=a.server,
        packet_log=a.packet_log,
        csv=a.csv,
        rt=a.rt,
        timer_slack=a.timer_slack,
        cc=a.cc,
        invocation=None if _ARGV is None else ["aqmlab", *_ARGV],
    )
    s = res.summary
    cc = s["provenance"]["tcp_congestion_control"]
    print(
        f"emulated {s['sim_time_s']:.1f} s; command exit status {res.returncode}; "
        f"TCP congestion control {cc.get('client') or 'unknown'} (client), "
        f"{cc.get('server') or 'unknown'} (server)"
    )
    print(f"{'link':<10} {'qdisc':<10} {'util':>5} {'drops':>7} {'p50 ms':>8} {'p99 ms':>8}")
    for name, link in s["links"].items():
        soj = link["sojourn_ms"]
        p50 = "-" if soj["p50"] is None else f"{soj['p50']:.2f}"
        p99 = "-" if soj["p99"] is None else f"{soj['p99']:.2f}"
        print(
            f"{name:<10} {link['qdisc']:<10} {link['utilization']:>5.2f} "
            f"{link['dropped_pkts']:>7} {p50:>8} {p99:>8}"
        )
    lat = s["emulation"]["lateness_ms"]
    print(
        f"delivery lateness ms: p50 {lat['p50']}, p99 {lat['p99']}, max {lat['max']}; "
        f"forwarder CPU {100 * res.summary['emulation']['cpu_share']:.1f} % of one core"
    )
    print(f"summary.json and time series written to {a.out}/")
    return res.returncode or 0


def _pairs(items: list[str], flag: str) -> list[tuple[str, str]]:
    out = []
    for it in items:
        k, sep, v = it.partition("=")
        if not sep or not k.strip():
            raise _UsageError(f"{flag} {it!r}: expected NAME=VALUE")
        out.append((k.strip(), v.strip()))
    return out


def _folder_name(name: str, scenario: str) -> str:
    """The default output folder's name: the scenario's ``name``, made safe as one path
    component (the file stem if nothing is left)."""
    safe = name.replace("/", "_").replace(os.sep, "_").strip()
    if safe in ("", ".", "..") or any(ord(c) < 32 for c in safe):
        return os.path.splitext(os.path.basename(scenario))[0]
    return safe


def _dropped_note(flag: str, dropped: list[tuple[str, str]]) -> list[str]:
    """Lines saying which of the file's discipline parameters a swap dropped, one per link (a
    reverse direction that dropped the same ones as its forward is not repeated)."""
    by_dir: dict[str, list[str]] = {}
    for d, kv in dropped:
        by_dir.setdefault(d, []).append(kv)
    lines = []
    for d, kvs in by_dir.items():
        fwd = d.removesuffix(".rev")
        if d != fwd and by_dir.get(fwd) == kvs:
            continue
        lines.append(f"aqmlab: {flag} dropped the file's parameters of {d}: {', '.join(kvs)}")
    return lines


class _Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: stops a run as Ctrl-C does (its files are cleaned up)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _on_signal(signum: int, _frame: object) -> None:
    raise _Terminated(signum)


def _cmd_run(a: argparse.Namespace) -> int:
    from aqmlab import scenarios
    from aqmlab.outdir import OutputFolder
    from aqmlab.run import provenance_of, simulate

    a.scenario = scenarios.resolve(a.scenario)
    if not os.path.exists(a.scenario) and os.sep not in a.scenario and "/" not in a.scenario:
        raise _UsageError(
            f"{a.scenario}: no such file, nor a bundled scenario of that name "
            f"({', '.join(scenarios.names()) or 'none found'})"
        )

    qdisc = dict(_pairs(a.qdisc, "--qdisc"))
    # The native loader splits each --set KEY=VALUE and reads its value as typed (10 and true
    # are a number and a boolean, 10Mbps a string); one without a key is refused here, before
    # the flags after it are checked.
    for it in a.set:
        if not it.partition("=")[0].strip() or "=" not in it:
            raise _UsageError(f"--set {it!r}: expected NAME=VALUE")
    trace_flows: dict[int, str] = {}
    for flow, every in _pairs(a.trace_flow, "--trace-flow"):
        if not flow.isdigit():
            raise _UsageError(
                f"--trace-flow {flow}={every}: expected FLOW=EVERY with FLOW a flow's index"
                " (0, 1, ...), e.g. 0=10ms"
            )
        trace_flows[int(flow)] = every
    compare = _pairs(a.compare, "--compare")
    seen: set[tuple[str, str]] = set()
    for link, kind in compare:
        if (link, kind) in seen:
            raise _UsageError(f"--compare {link}={kind}: given twice (each arm runs once)")
        seen.add((link, kind))
    progress = None if not a.quiet else False
    arms = [("as written", qdisc, "")]
    for link, kind in compare:
        arms.append((f"{link}={kind}", {**qdisc, link: kind}, f"{link}={kind}"))
    # Every arm is loaded (and so checked) before any runs, so a bad --compare fails at once.
    loaded = []
    for label, qd, arm_out in arms:
        try:
            # Straight to the native loader (the flags' values are strings, checked above): it
            # splits each --set KEY=VALUE and reads the value where it edits the scenario.
            r = _core.load_scenario(
                # Always a path: the command line takes files (a path may hold "=" or a newline).
                scenarios.resolve(pathlib.Path(a.scenario)),
                a.seed,
                list(qd.items()),
                packet_log=a.packet_log,
                unsets=a.unset,
                trace_flows=list(trace_flows.items()),
                set_args=a.set,
            )
        except ScenarioError as e:
            # A --compare arm passes its swap as a qdisc override: name the flag the user wrote.
            # (Its message names "--qdisc LINK=KIND:" or, for an unknown kind, "--qdisc LINK:".)
            link = label.partition("=")[0]
            msg = str(e)
            for swap in (f"--qdisc {label}:", f"--qdisc {link}:"):
                if label != arms[0][0] and swap in msg:
                    raise ScenarioError(
                        msg.replace(swap, f"--compare {swap.removeprefix('--qdisc ')}")
                    ) from None
            raise
        loaded.append((label, qd, r, arm_out))
    for label, _, r, _ in loaded:
        arm = f" ({label})" if len(loaded) > 1 else ""
        for w in r.warnings():
            print(f"aqmlab: warning: {a.scenario}{arm}: {w}", file=sys.stderr)
        if not r.random:
            # Nothing draws a random number: every seed gives the same run.
            print(
                f"aqmlab: warning: {a.scenario}{arm}: no random element (random start, traffic, "
                "loss, jitter or discipline), so the seed changes nothing; a flow's "
                'start = "uniform(0s, 1s)" varies the runs',
                file=sys.stderr,
            )
    out = (
        a.out
        if a.out is not None
        else os.path.join("out", _folder_name(loaded[0][2].name, a.scenario))
    )
    if not a.quiet:
        for line in _dropped_note("--qdisc", loaded[0][2].dropped_params()):
            print(line, file=sys.stderr)
        # A comparison arm's swap drops the file's parameters on its link too.
        first = set(loaded[0][2].dropped_params())
        for label, _, r, _ in loaded[1:]:
            extra = [d for d in r.dropped_params() if d not in first]
            for line in _dropped_note(f"--compare {label}", extra):
                print(line, file=sys.stderr)
    # Every arm's files are staged together and put in place at the end, replacing whatever
    # earlier run the folder held.
    folder = OutputFolder(out)
    results = []
    try:
        for label, qd, r, arm_out in loaded:
            if len(arms) > 1 and not a.quiet:
                print(f"-- {label}", file=sys.stderr)
            prov = provenance_of(
                r,
                resolved=False,
                scenario=a.scenario,
                seed=a.seed,
                qdisc=qd,
                set=dict(r.set_args()),
                packet_log=a.packet_log,
                unset=a.unset,
                command=None if _ARGV is None else ["aqmlab", *_ARGV],
            )
            # The series go to the files only.
            res = simulate(
                r,
                os.path.join(out, arm_out),
                csv=a.csv,
                progress=progress,
                keep=False,
                provenance=prov,
                staged=folder.path(arm_out),
            )
            results.append((label, res))
        folder.commit()
    except BaseException:
        folder.abort()
        raise
    if a.quiet:
        return 0
    if len(results) == 1:
        _print_summary(results[0][1].summary)
    else:
        _print_comparison(results, [link for link, _ in compare])
    print(f"summary.json and time series written to {out}/")
    return 0


def _cmd_sweep(a: argparse.Namespace, argv: Sequence[str]) -> int:
    import shlex

    from aqmlab.sweep import run_sweep
    from aqmlab.sweepspec import from_cli, from_file

    if a.scenario.endswith(".toml") and _is_sweep_file(a.scenario):
        if a.vary or a.qdisc or a.zip or a.set or a.seeds or a.unset:
            raise _UsageError(
                f"{a.scenario} is a sweep file: give the axes, --set, --unset and --seeds in "
                "it, not on the command line"
            )
        spec = from_file(a.scenario)
    else:
        spec = from_cli(a.scenario, a.vary, a.qdisc, a.zip, a.set, a.seeds, a.unset)
    stem = os.path.splitext(os.path.basename(a.scenario))[0]
    out = a.out or os.path.join("out", f"sweep-{stem}")
    command = shlex.join(["aqmlab", *argv])
    if a.jobs is not None and a.jobs < 1:
        raise _UsageError(f"--jobs must be at least 1, got {a.jobs}")
    # SIGTERM and SIGHUP stop a sweep as Ctrl-C does (main's handlers raise _Terminated): the
    # finished runs stay, the next start runs the rest; the exit status is aqmlab run's.
    try:
        res = run_sweep(
            spec,
            out,
            jobs=a.jobs,
            executor="thread" if a.threads else "process",
            dask=a.dask,
            progress=False if a.quiet else None,
            command=command,
        )
    except KeyboardInterrupt as e:
        how = f"stopped by {signal.Signals(e.signum).name}" if isinstance(e, _Terminated) else ""
        print(
            f"aqmlab: interrupted{f' ({how})' if how else ''}; the finished runs are kept in "
            f"{out}/runs/: the same command runs only the rest",
            file=sys.stderr,
        )
        return 128 + e.signum if isinstance(e, _Terminated) else 130
    if not a.quiet:
        _print_sweep(res, spec.columns)
    if res.seeds_identical:
        print(
            "aqmlab: warning: every seed gave identical results at every point: the scenario "
            "draws nothing at random (no web, on/off or lossy element), so the seeds add "
            "nothing",
            file=sys.stderr,
        )
    if res.failed:
        print(
            f"aqmlab: error: {res.failed} of {res.rows} runs failed "
            f"(their errors are in the 'error' column of {out}/results.csv)",
            file=sys.stderr,
        )
        return 1
    return 0


def _cmd_reproduce(a: argparse.Namespace) -> int:
    from aqmlab.reproduce import listing, reproduce

    if a.list:
        for name, title in listing():
            print(f"{name:<16} {title}")
        print(f"{'all':<16} every reproduction above, with an index page")
        return 0
    if not a.name:
        raise _UsageError("name a reproduction (aqmlab reproduce --list), or all")
    if a.jobs is not None and a.jobs < 1:
        raise _UsageError(f"--jobs must be at least 1, got {a.jobs}")
    out = a.out or os.path.join("out", os.path.basename(os.path.normpath(a.name)))
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)
    from aqmlab.reproduce.options import builtin, given

    try:
        options = given({o: getattr(a, o.replace("-", "_")) for o in builtin()}, a.name)
    except AqmlabError as e:
        raise _UsageError(str(e)) from None
    done = reproduce(
        a.name,
        out,
        quick=a.quick,
        seeds=a.seeds,
        jobs=a.jobs,
        progress=False if a.quiet else None,
        options=options,
    )
    reps = [done] if "reproduction" in done else [v for v in done.values() if isinstance(v, dict)]
    if not a.quiet:
        for d in reps:
            _print_claims(d["reproduction"])
    where = done.get("index.html") or done.get("report.html")
    print(f"report: {where}")
    return 0


def _cmd_characterize(a: argparse.Namespace, argv: Sequence[str]) -> int:
    import shlex

    from aqmlab.characterize import characterize

    if a.jobs is not None and a.jobs < 1:
        raise _UsageError(f"--jobs must be at least 1, got {a.jobs}")
    out = a.out or os.path.join("out", "characterize")
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)
    doc = characterize(
        a.qdiscs,
        out,
        params=a.param,
        rate=a.rate,
        rtt=a.rtt,
        seeds=a.seeds,
        quick=a.quick,
        jobs=a.jobs,
        dask=a.dask,
        progress=False if a.quiet else None,
        only=a.only or None,
        command=shlex.join(["aqmlab", *argv]),
        emulate=a.emulate,
        bench=a.bench,
        scenarios=a.scenarios,
    )
    failed = [e["id"] for e in doc["scenarios"] if e["status"] == "failed"]
    if not a.quiet:
        for e in doc["scenarios"]:
            heads = "  ".join(
                f"{q}: {_fmt_stat(r.get('queue_delay_ms'))} ms, "
                f"{_fmt_stat(r.get('goodput_mbps'))} Mb/s"
                for q, r in e["results"].items()
            )
            what = heads if e["status"] != "not run" else e["reason"]
            print(f"§{e['section']:<6} {e['id']:<34} {e['requirement']:<11} {what}")
    print(f"report: {os.path.join(out, 'report.html')}")
    if failed:
        print(f"aqmlab: error: runs failed in {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _fmt_stat(stat: dict | None) -> str:
    return "–" if not stat or stat.get("mean") is None else f"{stat['mean']:.3g}"


def _print_claims(rep) -> None:
    from aqmlab.reproduce.common import fmt

    print(
        f"{rep.title} ({'quick' if rep.quick else 'full'}, seeds {rep.seeds}, {rep.wall_s:.1f} s)"
    )
    w = max(len(c.claim) for c in rep.claims)
    for c in rep.claims:
        print(
            f"  {c.claim:<{w}}  published {fmt(c.published):>18}  aqmlab {fmt(c.ours):>18}  "
            f"{c.verdict}"
        )


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _is_sweep_file(path: str) -> bool:
    """A sweep file names a base ``scenario``; a scenario file never has that key. A file
    that is no valid TOML is neither: its error (naming the line) is the sweep's, at once."""
    from aqmlab.sweepspec import read_text, toml_doc

    if not os.path.exists(path) or os.path.isdir(path):
        return False  # the scenario's check names the missing file
    # Capped as a run's scenario; until it is read, the file may be either.
    text = read_text(path, "scenario or sweep file")
    # A scenario of too many flow tables is refused as a run refuses it, before reading the
    # TOML (Python's reader took 4 s and 160 MB to read 400 000 of them).
    _core.check_flow_tables(path, text)
    return isinstance(toml_doc(path, text).get("scenario"), str)


def _print_sweep(res, columns: list) -> None:
    print(f"{res.rows} runs: {res.ran} simulated, {res.cached} from the cache, {res.failed} failed")
    text = None
    if res.table is not None:
        from aqmlab.sweeptable import means_text

        show = [
            m
            for m in ("bottleneck.sojourn_ms.p50", "bottleneck.utilization")
            if m in res.table.kinds
        ]
        show.append("total.goodput_bps")
        text = means_text(res.summary_table, columns, show)
    if text is not None:
        print("means over seeds:")
        print(text)
    else:
        _print_means(res, columns)
    print(f"results.parquet, results.csv, summary.csv and runs/ written to {res.out}/")


def _print_means(res, columns: list) -> None:
    """The means over seeds as pandas lays them out (where :func:`aqmlab.sweeptable.means_text`
    does not model the layout)."""
    df = res.results
    show = [m for m in ("bottleneck.sojourn_ms.p50", "bottleneck.utilization") if m in df]
    show.append("total.goodput_bps")
    summ = res.summary[res.summary["metric"].isin(show)]
    if len(summ) and columns:
        wide = summ.pivot_table(
            index=columns, columns="metric", values="mean", sort=False, dropna=False
        )
        # Only the sweep's points: not the combinations of zipped values it never ran.
        points = list(dict.fromkeys(summ[columns].itertuples(index=False, name=None)))
        wide = wide.reindex(
            __import__("pandas").MultiIndex.from_tuples(points, names=columns)
            if len(columns) > 1
            else [p[0] for p in points]
        )
        with __import__("pandas").option_context("display.width", 120):
            print("means over seeds:")
            print(wide.to_string(float_format=lambda v: f"{v:.4g}"))


def _print_comparison(results: list, links: list) -> None:
    first = results[0][1].summary
    print(
        f"{first['scenario']}: {first['sim_time_s']:.1f} s simulated, seed {first['seed']}; "
        f"link {', '.join(dict.fromkeys(links))}"
    )
    hdr = (
        f"{'run':<24} {'qdisc':<10} {'util':>5} {'drops':>7} {'p50 ms':>8} {'p75 ms':>8} "
        f"{'p99 ms':>8} {'delivered MB':>13} {'wall s':>7}"
    )
    print(hdr)
    print("-" * len(hdr))
    for link in dict.fromkeys(links):
        for label, res in results:
            s = res.summary
            lk = s["links"][link]
            soj = lk["sojourn_ms"]

            def f(v):
                return "-" if v is None else f"{v:.2f}"

            print(
                f"{label:<24} {lk['qdisc']:<10} {lk['utilization']:>5.2f} {lk['dropped_pkts']:>7} "
                f"{f(soj['p50']):>8} {f(soj['p75']):>8} {f(soj['p99']):>8} "
                f"{lk['delivered_bytes'] / 1e6:>13.1f} {s['wall_s']:>7.2f}"
            )


def _print_summary(s: dict) -> None:
    print(
        f"{s['scenario']}: {s['sim_time_s']:.1f} s simulated in {s['wall_s']:.2f} s "
        f"({s['events']} events, seed {s['seed']})"
    )
    hdr = f"{'link':<18} {'qdisc':<10} {'util':>5} {'drops':>7} {'p50 ms':>8} {'p99 ms':>8}"
    print(hdr)
    hidden = 0
    for name, link in s["links"].items():
        if link["utilization"] < 0.01 and link["dropped_pkts"] == 0:
            hidden += 1
            continue
        soj = link["sojourn_ms"]
        p50 = "-" if soj["p50"] is None else f"{soj['p50']:.2f}"
        p99 = "-" if soj["p99"] is None else f"{soj['p99']:.2f}"
        print(
            f"{name:<18} {link['qdisc']:<10} {link['utilization']:>5.2f} "
            f"{link['dropped_pkts']:>7} {p50:>8} {p99:>8}"
        )
    if hidden:
        print(
            f"({hidden} more link directions under 1% utilization without drops: see summary.json)"
        )
    f = s["fairness"]
    print(f"Jain's index: goodput {f['jain_goodput']:.3f}, drops {f['jain_drops']:.3f}")


def _write(path: str | None, text: str) -> None:
    if path is None or path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def _cmd_replay(a: argparse.Namespace) -> int:
    if a.list:
        sys.stdout.write(_core.list_text())
        return 0
    params = list(a.param)
    # `--param a=1 b=2 schedule.csv`: the schedule was swallowed by --param's list.
    if a.schedule is None and params and "=" not in params[-1]:
        a.schedule = params.pop()
    if a.qdisc is None:
        raise _UsageError("--qdisc KIND is required (see aqmlab replay --list)")
    if a.schedule is None:
        raise _UsageError("the schedule file is required: aqmlab replay --qdisc KIND SCHEDULE.csv")
    res = replay(a.schedule, a.qdisc, params, uniforms=a.uniforms, seed=a.seed, trace=bool(a.trace))
    _write(a.output, res.decisions_csv)
    if a.summary:
        _write(a.summary, json.dumps(res.summary, indent=2) + "\n")
    if a.trace:
        _write(a.trace, res.trace_csv or "")
    return 0


def _percentile(sorted_vals: list[int], q: float) -> float:
    if not sorted_vals:
        return float("nan")
    k = min(len(sorted_vals) - 1, max(0, round(q * (len(sorted_vals) - 1))))
    return float(sorted_vals[k])


def _cmd_demo(a: argparse.Namespace) -> int:
    os.makedirs(a.out, exist_ok=True)
    sched = os.path.join(a.out, "overload.schedule.csv")
    write_schedule(overload(), sched)
    header = (
        f"{'qdisc':<11} {'delivered':>9} {'dropped':>8} {'drop%':>6} "
        f"{'mean ms':>8} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}"
    )
    print(f"overload schedule: {sched}")
    print("1500-B packets at 1.2x a 10 Mbit/s link for 20 s, then 0.5x for 10 s; sojourn times:")
    print(header)
    print("-" * len(header))
    summaries = {}
    for kind, params in DEMO_QDISCS:
        res = replay(sched, kind, params)
        _write(os.path.join(a.out, f"{kind}.decisions.csv"), res.decisions_csv)
        s = res.summary
        soj = sorted(res.sojourns_ns())
        dropped = s["dropped_enqueue"] + s["dropped_dequeue"]
        mean_ms = sum(soj) / len(soj) / 1e6 if soj else float("nan")
        s["sojourn_ms"] = {
            "mean": mean_ms,
            "p50": _percentile(soj, 0.50) / 1e6,
            "p99": _percentile(soj, 0.99) / 1e6,
            "max": _percentile(soj, 1.0) / 1e6,
        }
        s["params"] = params
        summaries[kind] = s
        print(
            f"{kind:<11} {s['delivered'] + s['marked']:>9} {dropped:>8} "
            f"{100.0 * dropped / s['packets']:>6.1f} {mean_ms:>8.1f} "
            f"{s['sojourn_ms']['p50']:>7.1f} {s['sojourn_ms']['p99']:>7.1f} "
            f"{s['sojourn_ms']['max']:>7.1f}"
        )
    _write(os.path.join(a.out, "summary.json"), json.dumps(summaries, indent=2) + "\n")
    print(f"decisions and summary.json written to {a.out}/")
    return 0


class _UsageError(Exception):
    pass


#: The arguments main() was called with, for the provenance's command line.
_ARGV: list[str] | None = None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``aqmlab`` command."""
    global _ARGV
    _ARGV = list(sys.argv[1:] if argv is None else argv)
    handlers = {}
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None:
            with contextlib.suppress(ValueError):  # not the main thread
                handlers[sig] = signal.signal(sig, _on_signal)
    try:
        return _main(argv)
    finally:
        for sig, h in handlers.items():
            signal.signal(sig, h)


def _not_utf8(args: Sequence[str]) -> str | None:
    """The first argument that is not UTF-8 text, described, or None.

    Python decodes a command line's bytes with ``surrogateescape`` (PEP 383), so a byte that is
    not UTF-8 arrives as a lone surrogate, which the native loader cannot take as text.
    """
    for i, arg in enumerate(args, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as e:
            raw = arg[e.start].encode("utf-8", "surrogateescape")
            shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            return (
                f"argument {i} ('{shown}'): byte 0x{raw.hex()} at character {e.start + 1} "
                "is not UTF-8; aqmlab reads its arguments as UTF-8 text"
            )
    return None


def _main(argv: Sequence[str] | None) -> int:
    bad = _not_utf8(sys.argv[1:] if argv is None else argv)
    if bad:
        print(f"aqmlab: error: {bad}", file=sys.stderr)
        return 2
    parser = _build_parser(sys.argv[1:] if argv is None else argv)
    a = parser.parse_args(argv)
    try:
        # An empty path would silently mean the default one (or the current folder).
        for flag in ("out", "output", "summary", "trace", "uniforms"):
            if getattr(a, flag, None) == "":
                raise _UsageError(f"--{flag}: expected a path, got an empty string")
        for arg in ("scenario", "schedule", "folder"):
            if getattr(a, arg, None) == "":
                raise _UsageError(f"{arg}: expected a path, got an empty string")
        if a.command == "replay":
            return _cmd_replay(a)
        if a.command == "demo":
            return _cmd_demo(a)
        if a.command == "run":
            return _cmd_run(a)
        if a.command == "shell":
            return _cmd_shell(a)
        if a.command == "plot":
            from aqmlab.plot import plot

            files = plot(a.folder, link=a.link, metrics=a.metric or None, x=a.x, by=a.by, out=a.out)
            print(
                f"{len(files)} files written to {os.path.dirname(files[0]) if files else a.folder}/"
            )
            return 0
        if a.command == "report":
            from aqmlab.report import write_report

            print(f"report written to {write_report(a.folder, link=a.link, out=a.out)}")
            return 0
        if a.command == "export":
            from aqmlab.export import export_flent

            print(f"flent data file written to {export_flent(a.folder, a.out)}")
            return 0
        if a.command == "reproduce":
            return _cmd_reproduce(a)
        if a.command == "characterize":
            return _cmd_characterize(a, sys.argv[1:] if argv is None else argv)
        if a.command == "sweep":
            return _cmd_sweep(a, sys.argv[1:] if argv is None else argv)
        if a.command == "bench":
            from aqmlab.bench import format_table, run_benchmarks

            if a.repeat < 1:
                raise _UsageError(f"--repeat must be at least 1, got {a.repeat}")
            rows = run_benchmarks(a.root, a.repeat)
            print(json.dumps(rows, indent=2) if a.json else format_table(rows))
            return 0
        parser.print_help()
        return 2
    except (AqmlabError, _UsageError, RuntimeError) as e:
        print(f"aqmlab: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as Unix tools do.
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the final flush
        return 0
    except OSError as e:
        name = f"{e.filename}: " if getattr(e, "filename", None) else ""
        print(f"aqmlab: error: {name}{e.strerror or e}", file=sys.stderr)
        return 2
    except _Terminated as e:
        print(f"aqmlab: stopped by {signal.Signals(e.signum).name}", file=sys.stderr)
        return 128 + e.signum
    except KeyboardInterrupt:
        print("aqmlab: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
