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
"""

from __future__ import annotations

import json
import socket
import sys
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
    else:
        sys.exit(f"unknown command {cmd!r}")
