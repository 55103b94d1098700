"""``aqmlab characterize --emulate``: the scenarios that need only bulk TCP and constant-rate UDP
over one path, run again through ``aqmlab shell``'s emulated link with real Linux TCP.

RFC 7928 asks for characterizations that hold for real transports; the simulator's TCP is a
model. The emulated runs use the same bottleneck (rate, buffer, discipline and its parameters,
the same one-way delay so the same base RTT) and the same flows (count, congestion control,
segment size, initial window, UDP rate and packet size, start times drawn from the seed), sent
by Linux's TCP between two network namespaces through aqmlab's forwarder (``aqmlab shell``).

What differs, and is stated in each emulated entry's parameters:

* the path has one link: the scenario's access links (1 Gb/s, 1 ms) are folded into its delay;
* congestion controls are Linux's of the same name (NewReno is Linux's ``reno``, which has SACK
  on as the kernel sets it);
* the initial window is set with the namespace's route (``ip route ... initcwnd``), for every
  flow of the run alike;
* goodput is measured by the receiver (application bytes after the warm-up, until the run's
  end, per flow), the queue metrics by the forwarder over the whole run, as the simulator's
  queue metrics are.

A scenario that needs more (several RTTs, two queues in a row, web pages, video, ECN, flows
that stop, a capacity schedule) is listed with the reason it is not emulated. Runs are kept in
``DIR/runs-emulated/SCENARIO/QDISC-sSEED/`` (``aqmlab shell``'s output folder plus
``emulated.json``) and reused when the characterization is run again.
"""

from __future__ import annotations

import json
import math
import os
import platform
import random
import re
import shlex
import shutil
import sys
import tempfile
from typing import Any

from aqmlab.characterize.catalog import Built, duration_text, seconds
from aqmlab.characterize.measures import queue_metrics
from aqmlab.jain import index as jain_index

#: aqmlab's congestion controls and Linux's of the same algorithm.
LINUX_CC = {"newreno": "reno", "reno": "reno", "cubic": "cubic", "bbr": "bbr"}
#: Keys a flow may have and still be emulated, by kind.
TCP_KEYS = {"kind", "cc", "from", "to", "name", "start", "count", "initial_cwnd", "mss", "app"}
UDP_KEYS = {"kind", "from", "to", "name", "start", "count", "rate", "size"}
#: The first port the flows use (flow i listens on BASE_PORT + i).
BASE_PORT = 5001
#: Seconds the receivers start after the senders (the senders retry their connections).
SERVER_LEAD_S = 0.3
#: How the emulated scenario's id is made from the simulated one's.
SUFFIX = "-emulated"
FILE = "emulated.json"


def why_not(b: Built) -> str | None:
    """None when scenario ``b`` can be emulated, else the reason it cannot (one phrase)."""
    sc = b.scenario
    if "dumbbell" not in sc:
        return "its path has more than one queue (a chain of links)"
    if b.first_aqm:
        return "two AQMs in a row"
    if len(set(b.parameters.get("rtts_ms", []))) > 1:
        return "senders with different RTTs (the emulator has one path)"
    if "schedule" in b.parameters:
        return "a capacity schedule"
    if "cycle" in b.parameters:
        return "flows that start and stop in phases"
    if b.ecn:
        return "ECN-capable flows (the namespaces' ECN settings are not set per scenario)"
    for f in sc.get("flows", []):
        kind = f.get("kind")
        if not (str(f.get("from", "")).startswith("s") and str(f.get("to", "")).startswith("r")):
            return "flows in both directions (the emulated flows go one way, sender to receiver)"
        if kind == "tcp":
            extra = set(f) - TCP_KEYS
            if f.get("app", "bulk") != "bulk":
                return f"a TCP flow with app = {f['app']!r} (only bulk flows are emulated)"
            if f.get("cc", "newreno") not in LINUX_CC:
                return f"congestion control {f.get('cc')!r} has no Linux counterpart here"
        elif kind == "udp":
            extra = set(f) - UDP_KEYS
        else:
            return f"a {kind!r} flow (only TCP and UDP are emulated)"
        if extra:
            return f"flow keys {', '.join(sorted(extra))} (not emulated)"
        if _start_range(f.get("start", "0s")) is None:
            return f"start time {f.get('start')!r} (expected a duration or uniform(a, b))"
    return None


def _start_range(text: Any) -> tuple[float, float] | None:
    text = str(text).strip()
    m = re.fullmatch(r"uniform\(\s*([^,]+?)\s*,\s*([^)]+?)\s*\)", text)
    try:
        if m:
            return seconds(m.group(1), "start"), seconds(m.group(2), "start")
        t = seconds(text, "start")
        return t, t
    except Exception:  # noqa: BLE001 - any unreadable start time is "not emulated"
        return None


def plan(b: Built, seed: int) -> list[dict[str, Any]]:
    """The flows of one emulated run, one entry per flow (``count`` expanded): kind, name,
    port, start offset (s, drawn from ``seed`` as the scenario's ``uniform``), and the TCP
    congestion control and MSS or the UDP rate and packet size."""
    rng = random.Random(seed)
    out = []
    for f in b.scenario.get("flows", []):
        lo, hi = _start_range(f.get("start", "0s")) or (0.0, 0.0)
        for _ in range(int(f.get("count", 1))):
            flow: dict[str, Any] = {
                "kind": f["kind"],
                "name": str(f.get("name", f["kind"])),
                "port": BASE_PORT + len(out),
                "start_s": lo + (hi - lo) * rng.random(),
            }
            if f["kind"] == "tcp":
                flow["cc"] = LINUX_CC[f.get("cc", "newreno")]
                if "mss" in f:
                    flow["mss"] = int(f["mss"])
            else:
                from aqmlab.characterize.catalog import bps

                flow["rate_bps"] = bps(f["rate"], "rate")
                flow["size"] = int(f.get("size", 1500))
            out.append(flow)
    return out


def _initial_cwnd(b: Built) -> int | None:
    iws = {int(f["initial_cwnd"]) for f in b.scenario.get("flows", []) if "initial_cwnd" in f}
    return iws.pop() if len(iws) == 1 else None


def parameters(b: Built) -> dict[str, Any]:
    """What the emulated runs are, beside the simulated scenario's parameters."""
    flows = plan(b, 1)
    return {
        **b.parameters,
        "emulated": {
            "transport": "Linux TCP/UDP between two network namespaces (aqmlab shell)",
            "kernel": platform.release(),
            "congestion_control": sorted({f["cc"] for f in flows if f["kind"] == "tcp"}),
            "initial_cwnd": _initial_cwnd(b),
            "one_way_delay": duration_text(max(b.parameters["rtts_ms"]) / 2e3),
            "path": "one link: the access links' delay is folded into the bottleneck's",
        },
    }


def run_one(b: Built, qdisc: str, params: dict[str, Any], seed: int, folder: str) -> dict[str, Any]:
    """One emulated run of scenario ``b`` with ``qdisc`` (and its ``params``) at ``seed``,
    kept in ``folder``; returns its metrics (reused when ``folder`` holds them)."""
    from aqmlab.shell import ShellError, emulate

    done = os.path.join(folder, FILE)
    if os.path.exists(done):
        with open(done, encoding="utf-8") as f:
            return json.load(f)["metrics"]
    if os.path.exists(folder):  # a run stopped before its metrics were written
        shutil.rmtree(folder)
    os.makedirs(os.path.dirname(folder), exist_ok=True)
    flows = plan(b, seed)
    bn = b.scenario["dumbbell"]["bottleneck"]
    duration = b.parameters["duration_s"]
    warmup = b.parameters["warmup_s"]
    py = shlex.quote(sys.executable)
    with tempfile.TemporaryDirectory(prefix="aqmlab-characterize-emu-") as tmp:
        spec = os.path.join(tmp, "flows.json")
        measured = os.path.join(tmp, "measured.json")
        with open(spec, "w", encoding="utf-8") as f:
            json.dump(flows, f)
        iw = _initial_cwnd(b)
        senders = f"{py} -m aqmlab.emutool senders $AQMLAB_PEER_ADDR {spec} {duration + 2}"
        if iw is not None:
            senders += f" --initcwnd {iw}"
        link = {
            "downlink": bn["rate"],
            "delay": duration_text(max(b.parameters["rtts_ms"]) / 2e3),
            "downlink_qdisc": qdisc,
            "buffer": bn.get("buffer"),
            "params": {"downlink": {k: _text(v) for k, v in params.items()}} if params else None,
        }
        command = ["sh", "-c", f"{py} -m aqmlab.emutool receivers {spec} {duration} {warmup}"]
        command[-1] += f" > {shlex.quote(measured)}"
        try:
            res = emulate(command, folder, server=senders, rt=50, **link)
        except ShellError as e:
            if "SCHED_FIFO" not in str(e):
                raise
            res = emulate(command, folder, server=senders, **link)
        if res.returncode:
            raise ShellError(f"the receivers exited with status {res.returncode}")
        with open(measured, encoding="utf-8") as f:
            got = json.load(f)
    metrics = metrics_of(flows, got, res.summary["links"]["downlink"])
    tmp_done = done + ".partial"
    with open(tmp_done, "w", encoding="utf-8") as f:
        json.dump({"flows": flows, "measured": got, "metrics": metrics}, f, indent=1)
    os.replace(tmp_done, done)
    return metrics


def _text(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def metrics_of(
    flows: list[dict[str, Any]], measured: dict[str, Any], link: dict[str, Any]
) -> dict[str, Any]:
    """The run's metrics under the names the simulated runs use (measures.reduce_run):
    goodputs (all, per name, Jain's index of the TCP flows) from the receivers, queue metrics
    from the forwarder's link counters."""
    window = measured["window_s"]
    gp = [8 * measured["bytes"][str(f["port"])] / window if window > 0 else 0.0 for f in flows]
    m: dict[str, Any] = {"goodput_mbps": math.fsum(gp) / 1e6}
    j = jain_index([g for f, g in zip(flows, gp) if f["kind"] == "tcp"])
    m["jain_goodput"] = None if math.isnan(j) else j  # undefined: null
    by_name: dict[str, list[float]] = {}
    for f, g in zip(flows, gp):
        by_name.setdefault(f["name"], []).append(g)
    for name, vals in sorted(by_name.items()):
        m[f"goodput_mbps[{name}]"] = math.fsum(vals) / len(vals) / 1e6
    m.update(queue_metrics(link))
    m["utilization"] = link["utilization"]
    return m


__all__ = ["why_not", "plan", "parameters", "run_one", "metrics_of", "SUFFIX"]
