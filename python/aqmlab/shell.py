"""Live emulation (``aqmlab shell``): real programs and real Linux TCP through aqmlab's own link
model and queue disciplines.

A command runs in a *client* network namespace whose only route leads through an emulated link
to a *server* namespace. Between them sits one userspace forwarder (``aqmlab-emu``, Rust,
``crates/aqmlab-emu``) holding a TUN device in each namespace: no bridge, no IP forwarding, no
NAT, no firewall rule, and nothing on the host's own network changes. Each direction runs the
simulator's link model (constant rate, step schedule or mahimahi trace), then the discipline,
then a delay line, in virtual time on CLOCK_MONOTONIC.

Both sides see the addresses in their environment:

* ``AQMLAB_SERVER_ADDR`` (198.18.0.2) and ``AQMLAB_CLIENT_ADDR`` (198.18.0.1), on both sides;
* ``AQMLAB_PEER_ADDR``: the other side's address;
* ``AQMLAB_SIDE``: ``client`` or ``server``;
* ``AQMLAB_CLIENT_NETNS``, ``AQMLAB_SERVER_NETNS``: the namespaces' names (``ip netns exec
  $AQMLAB_SERVER_NETNS CMD`` runs another command beside the server);
* ``AQMLAB_FORWARDER_PID``: the forwarder's process id.

Every TCP connection in the two namespaces uses the congestion control the run names (``cc``,
``--cc``; default ``cubic``, as the simulator's flows): it is each namespace's own
``net.ipv4.tcp_congestion_control`` (per network namespace since Linux 4.15), so programs do not
inherit the host's default, and it is read back into the run's provenance. A program may still
choose another per socket (``TCP_CONGESTION``). Linux lets a namespace default only to an
algorithm on the host's allowed list: see :func:`_cc_allowed`.

The addresses are in 198.18.0.0/15, the block reserved for benchmarking (RFC 2544 §C.2.2,
RFC 6890 Table 14), which no deployed network or other software (VPNs, container runtimes,
carrier-grade NAT's 100.64.0.0/10) uses; they exist only inside the run's two namespaces.

Namespaces are named ``aqmlab-PID-K-c`` and ``aqmlab-PID-K-s`` (PID: the process that made them)
and removed when the run ends, however it ends; the TUN devices vanish with the forwarder.
Namespaces left by a process that no longer exists (one killed with SIGKILL) are removed by
the next run and by ``aqmlab shell --cleanup``.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.process import alive
from aqmlab.run import RunResult

__all__ = ["CLIENT_ADDR", "SERVER_ADDR", "ShellResult", "cleanup", "emulate", "forwarder_path"]

#: The client's and the server's addresses (198.18.0.0/15: RFC 2544's benchmarking block).
CLIENT_ADDR = "198.18.0.1"
SERVER_ADDR = "198.18.0.2"

#: The prefix of every namespace a run makes.
PREFIX = "aqmlab-"

#: The devices' MTU (the forwarder's buffers hold 2048 bytes).
MTU = 1500

#: The devices' queue length, packets.
TXQUEUELEN = 20000

#: The TCP congestion control of the namespaces unless a run names another: the simulator's
#: default for a flow (crates/aqmlab-sim/src/scenario/tcp.rs), not the host's, so that a run
#: does not depend on the machine it runs on.
DEFAULT_CC = "cubic"

_AVAILABLE_CC = "/proc/sys/net/ipv4/tcp_available_congestion_control"
_ALLOWED_CC = "/proc/sys/net/ipv4/tcp_allowed_congestion_control"
#: Held while a run widens the host's allowed list, so that two runs do not undo each other.
_CC_LOCK = "/run/lock/aqmlab-cc.lock"

_counter = itertools.count()


class ShellError(AqmlabError):
    """The emulation could not be set up or run."""


@dataclass
class ShellResult(RunResult):
    """:class:`aqmlab.RunResult` of an emulated run, with the command's exit status
    (``returncode``; None for a callable) and, for a callable, what it returned (``value``)."""

    returncode: int | None = None
    value: Any = None


def _has_net_admin() -> bool:
    if os.geteuid() == 0:
        return True
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) & (1 << 12))  # CAP_NET_ADMIN
    except OSError:
        pass
    return False


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise ShellError(f"ip {' '.join(args)}: {r.stderr.strip() or 'failed'}")
    return r


def _check_host() -> None:
    if not _has_net_admin():
        raise ShellError(
            "aqmlab shell needs root or CAP_NET_ADMIN (it creates network namespaces and TUN "
            "devices): run it with sudo"
        )
    if shutil.which("ip") is None:
        raise ShellError(
            "aqmlab shell needs iproute2's ip command (Debian: apt-get install iproute2)"
        )
    if not os.path.exists("/dev/net/tun"):
        raise ShellError("aqmlab shell needs /dev/net/tun (the tun kernel module)")


def available_cc() -> list[str]:
    """The TCP congestion controls the kernel has (loaded or built in), as it lists them."""
    try:
        with open(_AVAILABLE_CC, encoding="ascii") as f:
            return f.read().split()
    except OSError:
        return []


def check_cc(cc: str) -> None:
    """Raises :class:`ShellError` (one line listing what the kernel offers) unless the kernel
    has congestion control ``cc``."""
    have = available_cc()
    if cc not in have:
        offers = ", ".join(have) if have else f"nothing readable in {_AVAILABLE_CC}"
        raise ShellError(
            f"--cc {cc!r}: the kernel offers {offers} "
            f"(one built as a module needs `modprobe tcp_{cc}` first)"
        )


def _namespaces() -> list[str]:
    r = _ip("netns", "list", check=False)
    return [line.split()[0] for line in r.stdout.splitlines() if line.startswith(PREFIX)]


def _kill_inside(ns: str) -> None:
    """Ends every process still in namespace `ns` (a server's children, a killed run's
    command)."""
    r = _ip("netns", "pids", ns, check=False)
    for pid in r.stdout.split():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), signal.SIGKILL)


def cleanup(all_stale: bool = True) -> list[str]:
    """Removes the namespaces left by runs whose process no longer exists, and ends the
    processes still in them (their devices went with the forwarder); returns their names."""
    removed = []
    for ns in _namespaces():
        parts = ns[len(PREFIX) :].split("-")
        try:
            pid = int(parts[0])
        except (ValueError, IndexError):
            continue
        if all_stale and not alive(pid):
            _kill_inside(ns)
            _ip("netns", "del", ns, check=False)
            removed.append(ns)
    return removed


def forwarder_path() -> str:
    """The ``aqmlab-emu`` binary: ``$AQMLAB_EMU``, else on PATH, else this checkout's release
    build (``make emu``: ``cargo build --release -p aqmlab-emu``, made here if missing)."""
    env = os.environ.get("AQMLAB_EMU")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise ShellError(f"AQMLAB_EMU: expected the path of the aqmlab-emu binary, got {env!r}")
        return env
    found = shutil.which("aqmlab-emu")
    if found:
        return found
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = os.path.join(root, "target", "release", "aqmlab-emu")
    if os.access(p, os.X_OK):
        return p
    if os.path.exists(os.path.join(root, "crates", "aqmlab-emu", "Cargo.toml")) and shutil.which(
        "cargo"
    ):
        print(
            "aqmlab: building the forwarder (cargo build --release -p aqmlab-emu)", file=sys.stderr
        )
        r = subprocess.run(["cargo", "build", "--release", "-p", "aqmlab-emu"], cwd=root)
        p = os.path.join(root, "target", "release", "aqmlab-emu")
        if r.returncode == 0 and os.access(p, os.X_OK):
            return p
    raise ShellError(
        "cannot find the forwarder aqmlab-emu (a wheel does not include it): in a checkout of "
        "aqmlab, run `cargo build --release -p aqmlab-emu` and set AQMLAB_EMU to "
        "target/release/aqmlab-emu, or put it on PATH"
    )


def _toml_str(v: str) -> str:
    return json.dumps(v)


def _direction_toml(
    rate: str, delay: str, qdisc: str, buffer: str | None, params: dict[str, str]
) -> list[str]:
    """One direction's keys, as a scenario file writes them (rate, or a trace by path)."""
    if os.path.exists(rate) or rate.endswith((".up", ".down", ".trace")):
        if not os.path.exists(rate):
            raise ShellError(f"trace {rate!r}: no such file")
        keys = [f"trace = {_toml_str(os.path.abspath(rate))}"]
    else:
        keys = [f"rate = {_toml_str(rate)}"]
    keys.append(f"delay = {_toml_str(delay)}")
    keys.append(f"qdisc = {_toml_str(qdisc)}")
    if buffer is not None:
        keys.append(f"buffer = {_toml_str(buffer)}")
    if params:
        inner = ", ".join(f"{k} = {_toml_str(v)}" for k, v in params.items())
        keys.append(f"params = {{ {inner} }}")
    return keys


def link_scenario(
    downlink: str = "12Mbps",
    uplink: str | None = None,
    delay: str = "0ms",
    downlink_qdisc: str = "droptail",
    uplink_qdisc: str | None = None,
    params: dict[str, dict[str, str]] | None = None,
    buffer: str | None = None,
) -> str:
    """The scenario text of the link these options describe: link ``link`` from ``server`` to
    ``client`` (the downlink), its reverse the uplink; ``params`` by direction
    (``{"downlink": {"target": "5ms"}}``)."""
    params = params or {}
    for d in params:
        if d not in ("downlink", "uplink"):
            raise ShellError(f"--param {d}.…: expected downlink.NAME=VALUE or uplink.NAME=VALUE")
    down = _direction_toml(downlink, delay, downlink_qdisc, buffer, params.get("downlink", {}))
    up = _direction_toml(
        uplink or downlink, delay, uplink_qdisc or downlink_qdisc, buffer, params.get("uplink", {})
    )
    return "\n".join(
        [
            'name = "shell"',
            'duration = "1000s"',
            'nodes = ["server", "client"]',
            "",
            "[[links]]",
            'name = "link"',
            'from = "server"',
            'to = "client"',
            *down,
            "reverse = { " + ", ".join(up) + " }",
            "",
        ]
    )


class _Run:
    """The namespaces, the forwarder and the server of one emulated run; :meth:`close` undoes
    everything, and is safe to call twice."""

    def __init__(
        self,
        scenario: str,
        link: str,
        work: str,
        packet_log: bool,
        rt: int | None,
        qdisc: str | None = None,
        slack: str | None = None,
        cc: str = DEFAULT_CC,
    ):
        k = next(_counter)
        self.ns_c = f"{PREFIX}{os.getpid()}-{k}-c"
        self.ns_s = f"{PREFIX}{os.getpid()}-{k}-s"
        # Device names: at most 15 characters, unique on the host while they are created there.
        self.dev_c = f"aq{os.getpid()}.{k}c"[:15]
        self.dev_s = f"aq{os.getpid()}.{k}s"[:15]
        self.fwd: subprocess.Popen[str] | None = None
        self.server: subprocess.Popen[bytes] | None = None
        self.made: list[str] = []
        try:
            self._start(scenario, link, work, packet_log, rt, qdisc, slack, cc)
        except BaseException:
            self.close()
            raise

    def _start(
        self,
        scenario: str,
        link: str,
        work: str,
        packet_log: bool,
        rt: int | None,
        qdisc: str | None,
        slack: str | None,
        cc: str,
    ) -> None:
        for ns in (self.ns_c, self.ns_s):
            _ip("netns", "add", ns)
            self.made.append(ns)
        with _cc_allowed(cc):
            for ns in (self.ns_c, self.ns_s):
                _set_cc(ns, cc)
        cmd = [forwarder_path(), "--scenario", scenario, "--link", link]
        cmd += ["--client-dev", self.dev_c, "--server-dev", self.dev_s, "--out", work]
        if packet_log:
            cmd.append("--packet-log")
        if qdisc is not None:
            cmd += ["--qdisc", qdisc]
        if slack is not None:
            cmd += ["--slack", slack]
        if rt is not None:
            cmd += ["--rt", str(rt)]
        # Its own session: a Ctrl-C at the terminal reaches the command, not the forwarder,
        # which must live on to write its measurements when told to stop.
        self.fwd = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        line = self.fwd.stdout.readline() if self.fwd.stdout else ""
        if line.strip() != "ready":
            raise ShellError(self.stop_forwarder() or "the forwarder did not start")
        for ns, dev, addr in (
            (self.ns_c, self.dev_c, CLIENT_ADDR),
            (self.ns_s, self.dev_s, SERVER_ADDR),
        ):
            _ip("link", "set", dev, "netns", ns)
            subprocess.run(
                ["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"],
                capture_output=True,
            )
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "addr", "add", f"{addr}/32", "dev", dev)
            # A long device queue: TUN frees a packet's socket memory when it queues it, so TCP
            # small queues do not hold a sender back, and a burst must fit (Linux's default
            # of 500 packets drops bursts at 100 Mb/s and above; bench/emu_bench.py).
            _ip("-n", ns, "link", "set", dev, "mtu", str(MTU), "txqueuelen", str(TXQUEUELEN), "up")
            _ip("-n", ns, "route", "add", "default", "dev", dev)

    def env(self, side: str) -> dict[str, str]:
        e = dict(os.environ)
        e["AQMLAB_SERVER_ADDR"] = SERVER_ADDR
        e["AQMLAB_CLIENT_ADDR"] = CLIENT_ADDR
        e["AQMLAB_PEER_ADDR"] = SERVER_ADDR if side == "client" else CLIENT_ADDR
        e["AQMLAB_SIDE"] = side
        e["AQMLAB_FORWARDER_PID"] = str(self.fwd.pid if self.fwd else 0)
        e["AQMLAB_CLIENT_NETNS"] = self.ns_c
        e["AQMLAB_SERVER_NETNS"] = self.ns_s
        return e

    def congestion_control(self) -> dict[str, str | None]:
        """The TCP congestion control in effect in each namespace, read back from its
        ``net.ipv4.tcp_congestion_control`` (a namespace's own since Linux 4.15), or None where
        it cannot be read."""
        out: dict[str, str | None] = {}
        for side, ns in (("client", self.ns_c), ("server", self.ns_s)):
            r = subprocess.run(
                ["ip", "netns", "exec", ns, "cat", "/proc/sys/net/ipv4/tcp_congestion_control"],
                capture_output=True,
                text=True,
            )
            out[side] = r.stdout.strip() or None if r.returncode == 0 else None
        return out

    def start_server(self, command: str) -> None:
        self.server = subprocess.Popen(
            ["ip", "netns", "exec", self.ns_s, "sh", "-c", command],
            env=self.env("server"),
            start_new_session=True,
        )

    def forwarder_alive(self) -> bool:
        return self.fwd is not None and self.fwd.poll() is None

    def stop_forwarder(self) -> str:
        """Tells the forwarder to stop and waits for its measurements; returns its error line
        ('' when it ended well)."""
        if self.fwd is None:
            return ""
        fwd, self.fwd = self.fwd, None
        try:
            # Closing its standard input tells it to stop; it then writes its measurements.
            _, err = fwd.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            fwd.kill()
            _, err = fwd.communicate()
        err = (err or "").strip()
        if fwd.returncode == 0:
            return ""
        if err:
            return err.splitlines()[-1].removeprefix("aqmlab-emu: error: ")
        return f"the forwarder was killed (status {fwd.returncode})"

    def close(self) -> str:
        err = ""
        if self.server is not None:
            _end_group(self.server)
            self.server = None
        err = self.stop_forwarder()
        for ns in self.made:
            # Ends every process still in the namespace (a server's children), then removes it.
            _kill_inside(ns)
            _ip("netns", "del", ns, check=False)
        self.made = []
        return err


@contextlib.contextmanager
def _cc_allowed(cc: str) -> Any:
    """Lets namespaces take ``cc`` as their default while the block runs.

    A namespace other than the host's may only make its default an algorithm of the host's
    ``net.ipv4.tcp_allowed_congestion_control`` (Linux's ``tcp_set_default_congestion_control``,
    net/ipv4/tcp_cong.c: EPERM otherwise; the list holds reno and the host's default unless
    an administrator adds more). When ``cc`` is not on it, it is added for the moment the
    namespaces' defaults are set and taken off again: a namespace keeps its default afterwards
    (sockets take it with no further check), and the host's list is as it was. A lock file
    keeps concurrent runs from undoing each other's addition."""
    if not os.path.exists(_ALLOWED_CC):
        yield
        return
    import fcntl

    os.makedirs(os.path.dirname(_CC_LOCK), exist_ok=True)
    # Held even when `cc` is on the list already: another run may have put it there for the
    # moment, and would take it off while this one still needs it.
    with open(_CC_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with open(_ALLOWED_CC, encoding="ascii") as f:
            before = f.read().split()
        added = cc not in before
        try:
            if added:
                _write_allowed([*before, cc], cc)
            yield
        finally:
            if added:
                with open(_ALLOWED_CC, encoding="ascii") as f:
                    now = f.read().split()
                _write_allowed([c for c in now if c != cc], cc)


def _write_allowed(names: list[str], cc: str) -> None:
    try:
        with open(_ALLOWED_CC, "w", encoding="ascii") as f:
            f.write(" ".join(names))
    except OSError as e:
        raise ShellError(
            f"--cc {cc!r}: a namespace may only default to one of "
            f"net.ipv4.tcp_allowed_congestion_control, and adding it there failed ({e.strerror})"
        ) from None


def _set_cc(ns: str, cc: str) -> None:
    """Makes ``cc`` the TCP congestion control of namespace ``ns`` (its own
    ``net.ipv4.tcp_congestion_control``: a new namespace starts with the host's default)."""
    r = subprocess.run(
        ["ip", "netns", "exec", ns, "sysctl", "-qw", f"net.ipv4.tcp_congestion_control={cc}"],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        why = (r.stderr.strip().splitlines() or ["failed"])[-1]
        raise ShellError(
            f"--cc {cc!r}: cannot set it in namespace {ns} ({why}; per-namespace since Linux 4.15)"
        )


def _end_group(p: subprocess.Popen[Any]) -> None:
    """SIGTERM to the process group `p` leads, SIGKILL after 2 s."""
    if p.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(p.pid, signal.SIGTERM)
    try:
        p.wait(timeout=2)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def _setns(ns: str) -> None:
    """Moves the calling thread into network namespace `ns` (setns(2), CLONE_NEWNET)."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/var/run/netns/{ns}", os.O_RDONLY)
    try:
        if libc.setns(fd, 0x40000000) != 0:
            raise ShellError(f"cannot enter namespace {ns}: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)


class _Sigterm(Exception):
    pass


def _raise_sigterm(signum: int, frame: Any) -> None:
    raise _Sigterm()


def emulate(
    command: Sequence[str] | Callable[[], Any],
    out: str | os.PathLike[str] | None = None,
    *,
    downlink: str = "12Mbps",
    uplink: str | None = None,
    delay: str = "0ms",
    downlink_qdisc: str = "droptail",
    uplink_qdisc: str | None = None,
    params: dict[str, dict[str, str]] | None = None,
    buffer: str | None = None,
    link: str | None = None,
    link_qdisc: str | None = None,
    server: str | None = None,
    server_start_s: float = 0.3,
    packet_log: bool = False,
    csv: bool = False,
    rt: int | None = None,
    timer_slack: str | None = None,
    cc: str = DEFAULT_CC,
    invocation: list[str] | None = None,
) -> ShellResult:
    """Runs ``command`` (an argument list, or a callable run in a thread inside the client's
    namespace) through an emulated link, and returns what :func:`aqmlab.run` returns for a
    simulated one, with two link directions, ``downlink`` (server → client) and ``uplink``.

    Rates, delays, buffers and parameters are written as in scenario files; a rate may be a
    mahimahi trace file instead (``downlink="traces/Verizon-LTE-short.down"``). ``params`` gives
    discipline parameters by direction: ``{"downlink": {"target": "5ms"}}``. ``link="FILE:LINK"``
    takes the link from a scenario file instead (its forward direction is the downlink), and
    ``link_qdisc`` swaps its discipline, keeping its buffer (as ``aqmlab run --qdisc``).
    ``server`` is a shell command started in the server's namespace ``server_start_s`` seconds
    before ``command``, and ended after it. With ``out``, writes the folder ``aqmlab run``
    writes (``summary.json``, ``links.parquet``, ``flows.parquet``, ``packets.parquet`` with
    ``packet_log``). ``rt``: run the forwarder at this SCHED_FIFO priority. ``timer_slack``:
    how late its timed waits may end (default ``"250us"``; ``"1ns"``: every delivery on time
    as far as the machine allows, at more CPU). ``cc``: the TCP congestion control of both
    namespaces (Linux's name, one the kernel lists in
    ``/proc/sys/net/ipv4/tcp_available_congestion_control``; default ``"cubic"``).
    ``invocation``: the command line that asked for the run, for the provenance (``aqmlab
    shell`` passes its own). Raises :class:`ShellError` (one line) when it cannot run.

    The output folder is written as :func:`aqmlab.run` writes it (:mod:`aqmlab.outdir`): staged
    beside ``out`` and put in place only when the run is complete, refused while another run
    writes it, and removed if the run fails or is stopped before its files are written. Its
    ``summary.json`` records how the run was made under ``provenance``
    (:func:`emulated_provenance`)."""
    from aqmlab.outdir import OutputFolder

    _check_host()
    forwarder_path()  # missing: one line saying how to get it, before anything is made
    check_cc(cc)
    cleanup()
    # Taken before anything is set up, so a second run into the same folder refuses at once.
    folder = OutputFolder(out) if out is not None else None
    try:
        res = _emulate(
            command,
            folder,
            downlink=downlink,
            uplink=uplink,
            delay=delay,
            downlink_qdisc=downlink_qdisc,
            uplink_qdisc=uplink_qdisc,
            params=params,
            buffer=buffer,
            link=link,
            link_qdisc=link_qdisc,
            server=server,
            server_start_s=server_start_s,
            packet_log=packet_log,
            csv=csv,
            rt=rt,
            timer_slack=timer_slack,
            cc=cc,
            invocation=invocation,
        )
        if folder is not None:
            folder.commit()
    except BaseException:
        # An error, Ctrl-C or a signal before the files were complete: no partial folder.
        if folder is not None:
            folder.abort()
        raise
    return res


def _emulate(
    command: Sequence[str] | Callable[[], Any],
    folder: Any,
    *,
    downlink: str,
    uplink: str | None,
    delay: str,
    downlink_qdisc: str,
    uplink_qdisc: str | None,
    params: dict[str, dict[str, str]] | None,
    buffer: str | None,
    link: str | None,
    link_qdisc: str | None,
    server: str | None,
    server_start_s: float,
    packet_log: bool,
    csv: bool,
    rt: int | None,
    timer_slack: str | None,
    cc: str,
    invocation: list[str] | None,
) -> ShellResult:
    """:func:`emulate` into ``folder`` (an :class:`aqmlab.outdir.OutputFolder`, or None)."""
    shell_args = {
        "command": None if callable(command) else list(command),
        "downlink": downlink,
        "uplink": uplink,
        "delay": delay,
        "downlink_qdisc": downlink_qdisc,
        "uplink_qdisc": uplink_qdisc,
        "params": params or {},
        "buffer": buffer,
        "link": link,
        "link_qdisc": link_qdisc,
        "server": server,
        "packet_log": packet_log,
        "rt": rt,
        "timer_slack": timer_slack,
        "cc": cc,
    }
    with tempfile.TemporaryDirectory(prefix="aqmlab-shell-") as work:
        if link is not None:
            path, sep, name = str(link).rpartition(":")
            if not sep or not path or not name:
                raise ShellError(f"--link {link!r}: expected SCENARIO.toml:LINK")
            if not os.path.exists(path):
                raise ShellError(f"--link {link!r}: {path}: no such file")
            scenario, link_name = os.path.abspath(path), name
        else:
            scenario, link_name = os.path.join(work, "link.toml"), "link"
            with open(scenario, "w", encoding="utf-8") as f:
                f.write(
                    link_scenario(
                        downlink, uplink, delay, downlink_qdisc, uplink_qdisc, params, buffer
                    )
                )
        in_main = threading.current_thread() is threading.main_thread()
        old = signal.signal(signal.SIGTERM, _raise_sigterm) if in_main else None
        run: _Run | None = None
        returncode: int | None = None
        value: Any = None
        fwd_err = ""
        in_effect: dict[str, str | None] = {}
        try:
            try:
                run = _Run(scenario, link_name, work, packet_log, rt, link_qdisc, timer_slack, cc)
            except ShellError as e:
                raise ShellError(
                    _flag_error(str(e), scenario) if link is None else str(e)
                ) from None
            in_effect = run.congestion_control()
            if any(v != cc for v in in_effect.values()):
                raise ShellError(f"--cc {cc!r}: the namespaces report {in_effect} instead")
            if server is not None:
                run.start_server(server)
                time.sleep(server_start_s)
            if callable(command):
                value = _call_in(run, command)
            else:
                returncode = _run_command(run, list(command))
        except _Sigterm:
            returncode = 128 + signal.SIGTERM
        except KeyboardInterrupt as e:
            # Ctrl-C, or SIGHUP as `aqmlab` raises it (its `signum`).
            returncode = 128 + getattr(e, "signum", signal.SIGINT)
        finally:
            if run is not None:
                if not in_effect:
                    # Stopped (Ctrl-C, SIGTERM) after the namespaces were made but before their
                    # congestion control was read back: read it now, while they exist.
                    in_effect = run.congestion_control()
                fwd_err = run.close()
            if in_main:
                signal.signal(signal.SIGTERM, old)
        if fwd_err:
            raise ShellError(f"the forwarder stopped: {fwd_err}")
        prov = emulated_provenance(
            scenario, link_name, link_qdisc, shell_args, in_effect, invocation
        )
        return _collect(work, folder, csv, packet_log, returncode, value, prov)


def emulated_provenance(
    scenario: str,
    link: str,
    link_qdisc: str | None,
    shell_args: dict[str, Any],
    congestion_control: dict[str, str | None],
    invocation: list[str] | None,
) -> dict[str, Any]:
    """What ``summary.json`` records of how an emulated run was made (its ``provenance``
    key): what every run records (:func:`aqmlab.run.provenance_base`), that it was emulated,
    the shell's arguments, the link as the forwarder ran it (its directions' parameters and
    the fully resolved scenario it came from), and the TCP congestion control in effect on each
    side, as each namespace reports it once set (``shell.cc`` is the one asked for; a program
    may still choose its own per socket with ``TCP_CONGESTION``)."""
    from aqmlab.run import load, provenance_base

    r = load(scenario, qdisc=None if link_qdisc is None else {link: link_qdisc})
    resolved = r.resolved_toml()
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    directions = {}
    doc = tomllib.loads(resolved)
    for entry in doc.get("links", []):
        if entry.get("name") == link:
            fwd = {k: v for k, v in entry.items() if k not in ("reverse", "name", "from", "to")}
            directions = {"downlink": fwd, "uplink": {**fwd, **entry.get("reverse", {})}}
    return {
        **provenance_base(invocation),
        "emulated": True,
        "shell": shell_args,
        "link_file": scenario if shell_args["link"] is not None else None,
        "link": link,
        "directions": directions,
        "tcp_congestion_control": congestion_control,
        "resolved_scenario": resolved,
    }


#: Keys of the generated scenario and the options that set them.
_FLAGS = [
    ("links[0].reverse.rate", "--uplink"),
    ("links[0].reverse.trace", "--uplink"),
    ("links[0].reverse.qdisc", "--uplink-qdisc"),
    ("links[0].reverse.params", "--param uplink.*"),
    ("links[0].reverse.buffer", "--buffer"),
    ("links[0].reverse.delay", "--delay"),
    ("links[0].rate", "--downlink"),
    ("links[0].trace", "--downlink"),
    ("links[0].qdisc", "--downlink-qdisc"),
    ("links[0].params", "--param downlink.*"),
    ("links[0].buffer", "--buffer"),
    ("links[0].delay", "--delay"),
]


def _flag_error(msg: str, scenario: str) -> str:
    """An error about the scenario generated from the options, said about the options."""
    if not msg.startswith(scenario):
        return msg
    rest = msg[len(scenario) :].lstrip(":0123456789 ")
    for key, flag in _FLAGS:
        if rest.startswith(key + ":"):
            return flag + rest[len(key) :]
        # One parameter's key (links[0].params.target): --param downlink.target.
        if flag.endswith(".*") and rest.startswith(key + "."):
            name, sep, tail = rest[len(key) + 1 :].partition(":")
            if sep:
                return f"{flag[:-2]}.{name}:{tail}"
    return rest


def _run_command(run: _Run, command: list[str]) -> int:
    if not command:
        raise ShellError("no command given: aqmlab shell [OPTIONS] -- COMMAND ...")
    p = subprocess.Popen(["ip", "netns", "exec", run.ns_c, *command], env=run.env("client"))
    try:
        while p.poll() is None:
            if not run.forwarder_alive():
                _end_group_soft(p)
                break
            time.sleep(0.05)
    except BaseException:
        _end_group_soft(p)
        raise
    return p.wait()


def _end_group_soft(p: subprocess.Popen[Any]) -> None:
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(timeout=2)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _call_in(run: _Run, fn: Callable[[], Any]) -> Any:
    """Runs ``fn`` in a thread that has entered the client's namespace (a namespace is a
    thread's own), with the ``AQMLAB_*`` variables set in the environment meanwhile."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            _setns(run.ns_c)
            box["value"] = fn()
        except BaseException as e:  # handed to the caller's thread
            box["error"] = e

    from aqmlab.environ import setting

    added = {k: v for k, v in run.env("client").items() if k.startswith("AQMLAB_")}
    with setting(added):
        t = threading.Thread(target=target, daemon=True)
        t.start()
        while t.is_alive():
            t.join(0.05)
            if not run.forwarder_alive():
                break
    if "error" in box:
        raise box["error"]
    return box.get("value")


def _collect(
    work: str,
    folder: Any,
    csv: bool,
    packet_log: bool,
    returncode: int | None,
    value: Any,
    provenance: dict[str, Any],
) -> ShellResult:
    """The forwarder's files in ``work`` as the result of ``aqmlab run``, and its output folder
    written into ``folder``'s staging folder (committed by the caller)."""
    import pandas as pd

    from aqmlab.run import _write_text
    from aqmlab.series import SCHEMAS, SeriesSink

    with open(os.path.join(work, "emu-summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    with open(os.path.join(work, "emu-series.json"), encoding="utf-8") as f:
        series = json.load(f)
    summary["emulation"]["command_status"] = returncode
    summary["provenance"] = provenance
    tables = ["links", "flows", "packets", "drops"] if packet_log else ["links", "flows"]
    write_dir = None if folder is None else folder.stage
    shown_dir = None if folder is None else folder.final
    sink = SeriesSink(tables, write_dir, csv, True, shown_dir=shown_dir)
    try:
        import pyarrow as pa

        # JSON has no NaN: the forwarder writes null where a float has no value.
        for name, cols in series.items():
            for field in SCHEMAS[name]:
                if field.type == pa.float64() and field.name in cols:
                    cols[field.name] = [float("nan") if v is None else v for v in cols[field.name]]
        chunk = {
            "links": series["links"],
            "flows": series.get("flows") or {name: [] for name in SCHEMAS["flows"].names},
        }
        if packet_log:
            for name in ("packets", "drops"):
                df = pd.read_csv(os.path.join(work, f"emu-{name}.csv"))
                chunk[name] = {c: df[c].tolist() for c in SCHEMAS[name].names}
        # The rows in the order of `aqmlab run`'s files (docs/data-format.md): by time, then
        # link (or flow) in order of appearance; the forwarder writes each link's in turn.
        for name, cols in chunk.items():
            t_col = cols.get("t_s", cols.get("t_ns"))
            if t_col:
                order = sorted(range(len(t_col)), key=t_col.__getitem__)
                chunk[name] = {c: [v[i] for i in order] for c, v in cols.items()}
        sink.add(chunk)
        t = sink.close()
    except BaseException:
        sink.abort()
        raise
    if write_dir is not None:
        _write_text(write_dir, shown_dir, "summary.json", json.dumps(summary, indent=2) + "\n")
        _write_text(write_dir, shown_dir, "scenario.resolved.toml", provenance["resolved_scenario"])
    return ShellResult(
        summary,
        t["links"],
        t["flows"],
        packets=t.get("packets"),
        drops=t.get("drops"),
        returncode=returncode,
        value=value,
    )
