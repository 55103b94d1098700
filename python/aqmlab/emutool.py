"""A small TCP sender/receiver and UDP echo of our own, for the emulator's tests and examples (no
external tools): run as ``python -m aqmlab.emutool COMMAND ...`` inside the namespaces
``aqmlab shell`` makes.

* ``sink PORT SECONDS``: accepts one TCP connection and reads for SECONDS after its first byte
  (or until EOF); prints ``{"bytes": …, "seconds": …, "warm_bytes": …, "warm_seconds": …}``
  (``warm_*``: after the first second, past slow start).
* ``bulk HOST PORT SECONDS [CC]``: sends zeros over TCP for SECONDS (congestion control CC,
  Linux's name, set on the socket; without it, the namespace's, which ``aqmlab shell --cc``
  sets).
* ``echo PORT``: answers UDP datagrams, until killed.
* ``ping HOST PORT COUNT INTERVAL``: sends COUNT small UDP datagrams INTERVAL seconds apart and
  prints their round-trip times in ms, as a JSON list.
* ``senders HOST SPEC SECONDS [--initcwnd N]``: the flows of SPEC (a JSON list, as
  :func:`aqmlab.characterize.emulated.plan` writes it), each from its start offset until
  SECONDS: bulk TCP (Linux congestion control ``cc``, MSS ``mss``) to HOST:``port``, or UDP at
  ``rate_bps`` in ``size``-byte packets (IPv4 and UDP headers included). ``--initcwnd`` sets
  the initial window of every route of the namespace (``ip route change ... initcwnd N``).
* ``receivers SPEC SECONDS WARMUP``: receives SPEC's flows for SECONDS and prints
  ``{"window_s": SECONDS - WARMUP, "bytes": {port: payload bytes received after WARMUP}}``.
"""

from __future__ import annotations

import contextlib
import json
import selectors
import socket
import subprocess
import sys
import threading
import time


def sink(port: int, seconds: float) -> None:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(1)
    srv.settimeout(30)
    conn, _ = srv.accept()
    conn.settimeout(5)
    buf = bytearray(1 << 16)
    total = warm = 0
    first = warm_start = None
    end = None
    while True:
        try:
            n = conn.recv_into(buf)
        except socket.timeout:
            break
        now = time.monotonic()
        if n == 0:
            break
        if first is None:
            first = now
            end = first + seconds
        if now >= end:
            break
        total += n
        if now - first >= 1.0:
            if warm_start is None:
                warm_start = now
            else:
                warm += n
    last = time.monotonic()
    conn.close()
    print(
        json.dumps(
            {
                "bytes": total,
                "seconds": (last - first) if first else 0.0,
                "warm_bytes": warm,
                "warm_seconds": (last - warm_start) if warm_start else 0.0,
            }
        ),
        flush=True,
    )


def _tcp_socket(cc: str | None) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if cc is not None:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    return s


def bulk(host: str, port: int, seconds: float, cc: str | None = None) -> None:
    s = _tcp_socket(cc)
    for _ in range(50):  # the sink may not listen yet: retry for up to 5 s
        try:
            s.connect((host, port))
            break
        except (ConnectionRefusedError, OSError):
            time.sleep(0.1)
            s.close()
            s = _tcp_socket(cc)
    else:
        sys.exit("bulk: cannot connect")
    data = bytes(1 << 16)
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            s.send(data)
    except OSError:
        pass
    s.close()


def echo(port: int) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    while True:
        data, addr = s.recvfrom(2048)
        s.sendto(data, addr)


def ping(host: str, port: int, count: int, interval: float) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(2)
    rtts = []
    for i in range(count):
        t0 = time.monotonic()
        s.sendto(i.to_bytes(4, "big"), (host, port))
        try:
            s.recvfrom(64)
            rtts.append((time.monotonic() - t0) * 1e3)
        except socket.timeout:
            pass
        time.sleep(interval)
    print(json.dumps(rtts), flush=True)


#: IPv4 and UDP headers: a UDP flow's ``size`` counts them, as the simulator's does.
UDP_IP_HEADERS = 28


def _set_initcwnd(iw: int) -> None:
    routes = subprocess.run(
        ["ip", "-o", "route", "show"], capture_output=True, text=True, check=True
    ).stdout
    for line in routes.splitlines():
        words = [w for w in line.split() if w != "\\"]
        if "initcwnd" in words:  # already set: replace its value
            i = words.index("initcwnd")
            del words[i : i + 2]
        subprocess.run(["ip", "route", "change", *words, "initcwnd", str(iw)], check=True)


def _tcp_sender(host: str, flow: dict, t0: float, end: float) -> None:
    time.sleep(max(0.0, t0 + flow["start_s"] - time.monotonic()))

    def make() -> socket.socket:
        s = _tcp_socket(flow.get("cc"))
        if "mss" in flow:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, int(flow["mss"]))
        return s

    s = make()
    while True:  # the receivers may not listen yet
        try:
            s.connect((host, flow["port"]))
            break
        except OSError:
            s.close()
            if time.monotonic() > end:
                return
            time.sleep(0.05)
            s = make()
    data = bytes(1 << 16)
    s.settimeout(0.5)
    try:
        while time.monotonic() < end:
            try:
                s.send(data)
            except socket.timeout:
                continue
    except OSError:
        pass
    s.close()


def _udp_sender(host: str, flow: dict, t0: float, end: float) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    payload = bytearray(max(0, int(flow["size"]) - UDP_IP_HEADERS))
    gap = int(flow["size"]) * 8 / float(flow["rate_bps"])
    t = t0 + flow["start_s"]
    while t < end:
        time.sleep(max(0.0, t - time.monotonic()))
        # A full socket buffer drops the datagram, as a host would.
        with contextlib.suppress(OSError):
            s.sendto(payload, (host, flow["port"]))
        t += gap
    s.close()


def senders(host: str, spec: str, seconds: float, initcwnd: int | None = None) -> None:
    with open(spec, encoding="utf-8") as f:
        flows = json.load(f)
    if initcwnd is not None:
        _set_initcwnd(initcwnd)
    t0 = time.monotonic()
    end = t0 + seconds
    threads = [
        threading.Thread(
            target=_tcp_sender if fl["kind"] == "tcp" else _udp_sender,
            args=(host, fl, t0, end),
            daemon=True,
        )
        for fl in flows
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def receivers(spec: str, seconds: float, warmup: float) -> None:
    with open(spec, encoding="utf-8") as f:
        flows = json.load(f)
    t0 = time.monotonic()
    sel = selectors.DefaultSelector()
    counts = {str(fl["port"]): 0 for fl in flows}
    for fl in flows:
        if fl["kind"] == "tcp":
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("0.0.0.0", fl["port"]))
            s.listen(4)
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ, ("listen", str(fl["port"])))
        else:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
            s.bind(("0.0.0.0", fl["port"]))
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ, ("data", str(fl["port"])))
    buf = bytearray(1 << 16)
    end = t0 + seconds
    while True:
        now = time.monotonic()
        if now >= end:
            break
        for key, _ in sel.select(timeout=min(0.1, end - now)):
            what, port = key.data
            sock = key.fileobj
            if what == "listen":
                conn, _ = sock.accept()
                conn.setblocking(False)
                sel.register(conn, selectors.EVENT_READ, ("data", port))
                continue
            try:
                n = sock.recv_into(buf)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                n = 0
            if n == 0 and sock.type == socket.SOCK_STREAM:
                sel.unregister(sock)
                sock.close()
                continue
            if time.monotonic() - t0 >= warmup:
                counts[port] += n
    print(json.dumps({"window_s": seconds - warmup, "bytes": counts}), flush=True)


if __name__ == "__main__":
    cmd, *rest = sys.argv[1:]
    if cmd == "sink":
        sink(int(rest[0]), float(rest[1]))
    elif cmd == "bulk":
        bulk(rest[0], int(rest[1]), float(rest[2]), *rest[3:4])
    elif cmd == "echo":
        echo(int(rest[0]))
    elif cmd == "ping":
        ping(rest[0], int(rest[1]), int(rest[2]), float(rest[3]))
    elif cmd == "senders":
        iw = int(rest[rest.index("--initcwnd") + 1]) if "--initcwnd" in rest else None
        senders(rest[0], rest[1], float(rest[2]), iw)
    elif cmd == "receivers":
        receivers(rest[0], float(rest[1]), float(rest[2]))
    else:
        sys.exit(f"unknown command {cmd!r}")
