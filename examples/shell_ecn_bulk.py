"""Bulk TCP for `aqmlab shell` (docs/models/prague.md, "Linux"): `server OUT` reads to EOF and
writes its TCP_INFO's ECN fields to OUT; `client SECONDS` sends for SECONDS and prints its own.

struct tcp_info offsets (include/uapi/linux/tcp.h): options at 5 (TCPI_OPT_ECN 8,
TCPI_OPT_ECN_SEEN 16), tcpi_delivered and tcpi_delivered_ce at 192 and 196 (Linux 4.19+),
tcpi_received_ce at 248 (the AccECN series' r.cep, Linux 6.18)."""

import os
import socket
import struct
import sys
import time

TCPI_OPT_ECN, TCPI_OPT_ECN_SEEN = 8, 16


def info(s):
    b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 512)
    opts = b[5]
    delivered, delivered_ce = struct.unpack_from("II", b, 192)
    return dict(
        len=len(b),
        ecn=bool(opts & TCPI_OPT_ECN),
        ecn_seen=bool(opts & TCPI_OPT_ECN_SEEN),
        delivered=delivered,
        delivered_ce=delivered_ce,
        received_ce=struct.unpack_from("I", b, 248)[0] if len(b) >= 252 else None,
    )


if sys.argv[1] == "server":
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", 5001))
    ls.listen(1)
    c, _ = ls.accept()
    n = 0
    while True:
        d = c.recv(1 << 16)
        if not d:
            break
        n += len(d)
    print("server", n, info(c), flush=True)
    with open(sys.argv[2], "w") as f:
        f.write(repr(info(c)))
else:
    s = socket.create_connection((os.environ["AQMLAB_SERVER_ADDR"], 5001))
    buf = b"x" * (1 << 16)
    end = time.time() + float(sys.argv[2])
    while time.time() < end:
        s.send(buf)
    i = info(s)
    s.shutdown(socket.SHUT_WR)
    s.recv(1)
    time.sleep(0.5)
    print("client", i, flush=True)
