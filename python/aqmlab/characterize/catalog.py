"""The characterization's scenarios: TOML templates in ``aqmlab/characterize/scenarios/``, each
made concrete for a bottleneck rate and base RTT (``docs/characterize.md`` describes the format).

A template is an aqmlab scenario plus a ``[characterize]`` table (id, RFC 7928 section, title,
requirement level (checked against RFC 7928 Fig. 4's table, :mod:`aqmlab.characterize.fig4`),
durations, per-sender RTTs, congestion level, variants). Values of the
scenario written as ``"$name"`` are filled in by :func:`build`:

* ``$rate`` the bottleneck rate, ``$rate*F`` F times it (``"$rate*1.5"``);
* ``$buffer`` the bottleneck buffer: the bandwidth-delay product at the largest RTT of the
  scenario, in 1500-byte packets (RFC 7928 §3.1: buffer = BDP at the largest RTT, the same for
  every discipline compared);
* ``$senders`` and ``$receiver_delay``: one sender per RTT of ``rtts``; every path has a 1-ms
  sender link and a 1-ms bottleneck, and its receiver link makes up the rest of its RTT;
* ``$n``, ``$n_a``, ``$n_b`` (``congestion = "mild" | "medium" | "heavy"``): the flow count of
  RFC 7928 §8.2.2-8.2.4, N = round(k·S) with k = 0.036, 0.081, 0.114 and S = BDP + buffer in
  packets; ``$n_a`` = ceil(N/2) and ``$n_b`` = N − ``$n_a``; ``$n_mild``, ``$n_medium``,
  ``$n_heavy`` all three;
* ``$schedule``: a variant's capacity schedule (``schedule = {rates = [...], period = "20s"}``),
  the rates alternating from 0 s to the run's end.

A template with ``needs = "..."`` is listed and reported as not run, with that reason.
"""

from __future__ import annotations

import copy
import math
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from aqmlab.characterize import fig4
from aqmlab.exceptions import ScenarioError
from aqmlab.sweepspec import _toml_loads

#: RFC 7928 §8.2.2-8.2.4: N = round(k·S) flows for mild, medium and heavy congestion.
CONGESTION = {"mild": 0.036, "medium": 0.081, "heavy": 0.114}
#: Packet size the buffer and S are counted in (bytes).
PACKET_BYTES = 1500
#: Every path's sender link and bottleneck delay (one way).
ACCESS_DELAY_S = 0.001
BOTTLENECK_DELAY_S = 0.001
#: Requirement levels, as RFC 7928's Fig. 4 words them (the table is in ``fig4.py``).
LEVELS = fig4.LEVELS

_UNITS_S = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_UNITS_BPS = {"bps": 1.0, "kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}


def seconds(text: Any, where: str) -> float:
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]*)?)(ns|us|ms|s)", str(text).strip())
    if not m:
        raise ScenarioError(f'{where}: expected a duration like "100ms", got {text!r}')
    return float(m.group(1)) * _UNITS_S[m.group(2)]


def bps(text: Any, where: str) -> float:
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]*)?)(bps|kbps|Mbps|Gbps)", str(text).strip())
    if not m or float(m.group(1)) <= 0:
        raise ScenarioError(f'{where}: expected a rate like "10Mbps", got {text!r}')
    return float(m.group(1)) * _UNITS_BPS[m.group(2)]


def duration_text(s: float) -> str:
    """A duration as the scenario loader reads it, exact to the microsecond."""
    us = round(s * 1e6)
    if us % 1_000_000 == 0:
        return f"{us // 1_000_000}s"
    return f"{us // 1000}ms" if us % 1000 == 0 else f"{us}us"


def rate_text(b: float) -> str:
    return f"{round(b)}bps"


@dataclass
class Template:
    """One scenario file of the catalog."""

    path: str
    meta: dict[str, Any]
    body: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.meta["id"])

    @property
    def needs(self) -> str | None:
        return self.meta.get("needs")

    def variants(self, quick: bool = False) -> list[dict[str, Any]]:
        """The variants to run (a variant with ``quick = false`` is left out of quick runs)."""
        vs = list(self.meta.get("variants") or [{"name": ""}])
        return [v for v in vs if not quick or v.get("quick", True)]


@dataclass
class Built:
    """A template made concrete: the scenario to run and the parameters it ran with."""

    id: str
    section: str
    title: str
    requirement: str
    variant: str
    scenario: dict[str, Any]
    parameters: dict[str, Any]
    ecn: bool = False
    with_droptail: bool = False
    ratios: list[list[str]] = field(default_factory=list)
    #: §10: the link that carries the first of two AQMs in a row, and how its discipline is
    #: paired with the bottleneck's (``same``, ``other-params``, ``different``).
    first_aqm: str | None = None
    pairing: str | None = None
    #: Where each link's discipline parameters are set (``--set`` keys), by link name.
    params_keys: dict[str, str] = field(default_factory=dict)


def catalog_dir() -> str:
    return str(resources.files("aqmlab.characterize") / "scenarios")


def load(path: str) -> Template:
    with open(path, encoding="utf-8") as f:
        try:
            doc = _toml_loads(f.read())
        except Exception as e:  # noqa: BLE001 - tomllib's error names the line
            raise ScenarioError(f"{path}: {e}") from None
    meta = doc.pop("characterize", None)
    if not isinstance(meta, dict):
        raise ScenarioError(f"{path}: expected a [characterize] table")
    for key in ("id", "section", "title", "requirement"):
        if key not in meta:
            raise ScenarioError(f"{path}: [characterize] needs {key}")
    if meta["requirement"] not in LEVELS:
        raise ScenarioError(
            f"{path}: characterize.requirement: expected one of {', '.join(LEVELS)}, "
            f"got {meta['requirement']!r}"
        )
    expected, basis = fig4.level(str(meta["section"]))
    if meta["requirement"] != expected:
        raise ScenarioError(
            f"{path}: characterize.requirement {meta['requirement']!r} for §{meta['section']}: "
            f"expected {expected!r} ({basis})"
        )
    if not meta.get("needs") and not doc:
        raise ScenarioError(f"{path}: a template without `needs` must hold a scenario")
    return Template(path, meta, doc)


def templates(folder: str | None = None, extra: list[str] | None = None) -> list[Template]:
    """Every template of ``folder`` (default: the bundled catalog), in file-name order, then
    those of each folder of ``extra`` (a user's own scenarios, added to the catalog: ``aqmlab
    characterize --scenarios DIR``). An id may be used once in all of them."""
    folders = [folder or catalog_dir(), *(extra or [])]
    out = []
    for d in folders:
        if not os.path.isdir(d):
            raise ScenarioError(f"--scenarios {d}: not a folder of scenario templates (*.toml)")
        found = [load(os.path.join(d, n)) for n in sorted(os.listdir(d)) if n.endswith(".toml")]
        if not found and d != folders[0]:
            raise ScenarioError(f"--scenarios {d}: no scenario template (*.toml) in it")
        out += found
    seen: dict[str, str] = {}
    for t in out:
        if t.id in seen:
            raise ScenarioError(
                f"{t.path}: characterize.id {t.id!r} is used twice (also in {seen[t.id]})"
            )
        seen[t.id] = t.path
    return out


def bdp_packets(rate_bps: float, rtt_s: float) -> int:
    return max(1, round(rate_bps * rtt_s / 8 / PACKET_BYTES))


def flow_count(level: str, s_packets: int) -> int:
    """RFC 7928 §8.2.2-8.2.4: round(k·S) flows, at least one."""
    return max(1, round(CONGESTION[level] * s_packets))


def build(t: Template, variant: dict[str, Any], rate: float, rtt: float, quick: bool) -> Built:
    """The concrete scenario of template ``t``'s ``variant`` at bottleneck ``rate`` (b/s) and
    base RTT ``rtt`` (s)."""
    meta = {**t.meta, **{k: v for k, v in variant.items() if k not in ("name", "quick")}}
    where = f"{os.path.basename(t.path)}"
    if "rate" in meta:
        rate = bps(meta["rate"], f"{where}: characterize.rate")
    rtts = [
        rtt if r == "base" else seconds(r, f"{where}: characterize.rtts")
        for r in meta.get("rtts", ["base"])
    ]
    min_path = 2 * (ACCESS_DELAY_S + BOTTLENECK_DELAY_S)
    for r in rtts:
        if r < min_path:
            raise ScenarioError(
                f"{where}: RTT {r * 1e3:g} ms: expected at least {min_path * 1e3:g} ms "
                "(the sender link and the bottleneck take 1 ms each way)"
            )
    schedule = meta.get("schedule")
    if schedule:  # rates may be written relative to the bottleneck's (``"$rate*2"``)
        schedule = {
            **schedule,
            "rates": [_fill(r, {}, rate, where) for r in schedule.get("rates", [])],
        }
    top_rate = max(
        [rate] + [bps(r, f"{where}: schedule") for r in (schedule or {}).get("rates", [])]
    )
    bdp = bdp_packets(top_rate, max(rtts))
    buffer = bdp
    s = bdp + buffer
    duration = seconds(meta["quick_duration" if quick else "duration"], f"{where}: duration")
    warmup = seconds(meta.get("quick_warmup" if quick else "warmup", "0s"), f"{where}: warmup")
    bin_s = 10 * min(rtts)  # RFC 7928 §2.5: goodput sampled every 10·minRTT
    values: dict[str, Any] = {
        "rate": rate_text(rate),
        "buffer": f"{buffer}p",
        "senders": len(rtts),
        "receiver_delay": [
            duration_text(r / 2 - ACCESS_DELAY_S - BOTTLENECK_DELAY_S) for r in rtts
        ],
        "access_delay": duration_text(ACCESS_DELAY_S),
        # A chain of links (§10): the last link's delay completes the largest RTT.
        "path_delay": duration_text(max(rtts) / 2 - ACCESS_DELAY_S),
        "bottleneck_delay": duration_text(BOTTLENECK_DELAY_S),
    }
    for level in CONGESTION:
        values[f"n_{level}"] = flow_count(level, s)
    params: dict[str, Any] = {
        "rate_mbps": rate / 1e6,
        "rtts_ms": [r * 1e3 for r in rtts],
        "bdp_pkts": bdp,
        "buffer_pkts": buffer,
        "S_pkts": s,
        "duration_s": duration,
        "warmup_s": warmup,
        "goodput_sample_s": bin_s,
    }
    if "congestion" in meta:
        level = meta["congestion"]
        if level not in CONGESTION:
            raise ScenarioError(f"{where}: characterize.congestion: expected mild, medium or heavy")
        n = values[f"n_{level}"]
        values.update(n=n, n_a=math.ceil(n / 2), n_b=n - math.ceil(n / 2))
        params["congestion"] = level
        params["flows_N"] = n
    if schedule:
        period = seconds(
            schedule["quick_period" if quick and "quick_period" in schedule else "period"],
            f"{where}: schedule.period",
        )
        steps = math.ceil(duration / period)
        rates = schedule["rates"]
        values["schedule"] = [
            [duration_text(i * period), rates[i % len(rates)]] for i in range(steps)
        ]
        params["schedule"] = {"rates": rates, "period_s": period}
    for k, v in meta.get("vars", {}).items():  # a variant's own placeholders
        values[k] = _fill(v, values, rate, where)
        params[k] = values[k]
    body = _fill(copy.deepcopy(t.body), values, rate, where)
    # A half of a small N can be empty (N = 1 at a low rate): such a group has no flow.
    body["flows"] = [f for f in body.get("flows", []) if f.get("count", 1) != 0]
    if "cycle" in meta:
        body.setdefault("flows", []).extend(_cycle_flows(meta, values, duration, quick, where))
        body["windows"] = _cycle_windows(meta, duration, quick, where)
        params["cycle"] = {
            "phase_s": seconds(meta["cycle"]["quick_phase" if quick else "phase"], where),
            "flows": [values["n_mild"], values["n_medium"], values["n_heavy"]],
        }
    name = t.id + (f"-{variant['name']}" if variant.get("name") else "")
    body["name"] = f"rfc7928-{name}"
    body["duration"] = duration_text(duration)
    body["warmup"] = duration_text(warmup)
    body["bin"] = duration_text(bin_s)
    body.setdefault("output", {})["packet_log"] = ["bottleneck"]
    # Each flow's one-way delay per packet, measured at its receiver (measures.measured_delays).
    body["output"]["owd_distribution"] = True
    return Built(
        t.id,
        str(meta["section"]),
        str(meta["title"]),
        str(meta["requirement"]),
        str(variant.get("name", "")),
        body,
        params,
        bool(meta.get("ecn", False)),
        bool(meta.get("with_droptail", False)),
        list(meta.get("ratios", [])),
        meta.get("first_aqm"),
        meta.get("pairing"),
        _params_keys(body),
    )


#: The bottleneck of a dumbbell template: where its discipline's parameters are set.
DUMBBELL_PARAMS = "dumbbell.bottleneck.params"


def _params_keys(body: dict[str, Any]) -> dict[str, str]:
    """Where each named link's discipline parameters go (``--set`` keys): the dumbbell's
    bottleneck, or ``links[i].params`` for a template written as ``[[links]]``."""
    if "dumbbell" in body:
        return {"bottleneck": DUMBBELL_PARAMS}
    return {
        str(link["name"]): f"links[{i}].params"
        for i, link in enumerate(body.get("links", []))
        if "name" in link
    }


def _fill(node: Any, values: dict[str, Any], rate: float, where: str) -> Any:
    if isinstance(node, dict):
        return {k: _fill(v, values, rate, where) for k, v in node.items()}
    if isinstance(node, list):
        return [_fill(v, values, rate, where) for v in node]
    if isinstance(node, str) and node.startswith("$"):
        m = re.fullmatch(r"\$rate\*([0-9.]+)", node)
        if m:
            return rate_text(rate * float(m.group(1)))
        if node[1:] not in values:
            raise ScenarioError(f"{where}: unknown placeholder {node!r}")
        return values[node[1:]]
    return node


def _cycle_windows(
    meta: dict[str, Any], duration: float, quick: bool, where: str
) -> list[dict[str, Any]]:
    """A measurement window per phase of §8.2.5's cycle, named by its level and cycle
    (``mild0``, ``medium0``, ``heavy0``, ``mild1``, ...), from the first tenth of the phase
    (when its flows have all started) to its end."""
    cyc = meta["cycle"]
    phase = seconds(cyc["quick_phase" if quick else "phase"], f"{where}: cycle.phase")
    out = []
    i = 0
    while (i + 1) * phase <= duration + 1e-9:
        level = list(CONGESTION)[i % 3]
        out.append(
            {
                "name": f"{level}{i // 3}",
                "from": duration_text(i * phase + phase / 10),
                "to": duration_text((i + 1) * phase),
            }
        )
        i += 1
    return out


def _cycle_flows(
    meta: dict[str, Any], values: dict[str, Any], duration: float, quick: bool, where: str
) -> list[dict[str, Any]]:
    """RFC 7928 §8.2.5: mild, medium and heavy congestion in turn, one phase each, repeated.
    The mild level's flows run throughout; the medium level's extra flows run through the
    medium and heavy phases of each cycle, the heavy level's extra flows through its heavy
    phase. Every flow starts at a uniformly drawn time in the first 10 % of its phase."""
    cyc = meta["cycle"]
    phase = seconds(cyc["quick_phase" if quick else "phase"], f"{where}: cycle.phase")
    base = dict(cyc["flow"])
    n1, n2, n3 = values["n_mild"], values["n_medium"], values["n_heavy"]

    def flows(count: int, name: str, t0: float, t1: float | None) -> dict[str, Any]:
        f = {**base, "count": count, "name": name}
        f["start"] = f"uniform({duration_text(t0)}, {duration_text(t0 + phase / 10)})"
        if t1 is not None:
            f["stop"] = duration_text(t1)
        return f

    out = [flows(n1, "mild", 0.0, None)]
    k = 0
    while 3 * k * phase + phase < duration:
        c0 = 3 * k * phase
        if n2 > n1:
            out.append(flows(n2 - n1, f"medium{k}", c0 + phase, min(c0 + 3 * phase, duration)))
        if n3 > n2 and c0 + 2 * phase < duration:
            out.append(flows(n3 - n2, f"heavy{k}", c0 + 2 * phase, min(c0 + 3 * phase, duration)))
        k += 1
    return out
