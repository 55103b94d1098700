"""What every reproduction shares: its claims and verdicts, and the files it writes.

A reproduction's folder:

* ``sweep/``: the sweep it ran (``results.parquet``, ``summary.csv``, ``runs/``), reused by the
  next start as any sweep's folder is;
* ``scenario.toml``: the base scenario, as run (``aqmlab run DIR/scenario.toml`` repeats a run);
* ``figures/``: PNG and SVG;
* ``results.json``: every number the reproduction reports, and each claim of the paper with the
  published value, ours and a verdict;
* ``report.md`` and ``report.html``: the parameters, our tables beside the published numbers,
  the figures, and a short comparison that says where we differ and why.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from typing import Any

from aqmlab import __version__

AGREES = "agrees"
DIFFERS = "differs"
HOLDS = "holds"
FAILS = "does not hold"


@dataclass
class Claim:
    """One statement of a source document, checked against our run.

    ``published`` and ``ours`` are numbers or short texts; ``verdict`` is ``agrees`` /
    ``differs`` for numbers (within the stated ``tolerance``) and ``holds`` / ``does not hold``
    for qualitative findings; ``note`` says why we differ, where we do."""

    claim: str
    source: str
    published: Any
    ours: Any
    verdict: str
    tolerance: str = ""
    note: str = ""


def compare(published: float, ours: float, rel: float, abs_: float = 0.0) -> str:
    """``agrees`` when ``|ours - published| <= max(abs_, rel * |published|)``."""
    if ours is None or (isinstance(ours, float) and math.isnan(ours)):
        return DIFFERS
    return AGREES if abs(ours - published) <= max(abs_, rel * abs(published)) else DIFFERS


def holds(ok: bool) -> str:
    return HOLDS if ok else FAILS


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[Any]]
    note: str = ""


@dataclass
class Reproduction:
    """What a reproduction found: written out by :func:`write`."""

    name: str
    title: str
    sources: list[str]
    parameters: dict[str, Any]
    claims: list[Claim]
    tables: list[Table]
    figures: list[str]  # paths of PNG files (an SVG beside each)
    numbers: dict[str, Any]
    discussion: list[str]
    quick: bool
    seeds: list[int]
    wall_s: float = 0.0
    commands: list[str] = field(default_factory=list)


def fmt(v: Any, digits: int = 3) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        if v != 0 and (abs(v) >= 1e5 or abs(v) < 1e-3):
            return f"{v:.{digits}g}"
        return f"{v:.{digits}g}" if abs(v) < 1 else f"{v:,.{max(0, digits - 2)}f}"
    return str(v)


def _md_table(t: Table) -> str:
    lines = [f"**{t.title}**", ""]
    lines.append("| " + " | ".join(t.header) + " |")
    lines.append("|" + "---|" * len(t.header))
    for r in t.rows:
        lines.append("| " + " | ".join(fmt(v) for v in r) + " |")
    if t.note:
        lines += ["", t.note]
    return "\n".join(lines)


def write(rep: Reproduction, out: str) -> dict[str, str]:
    """Write ``results.json``, ``report.md`` and ``report.html`` into ``out``; return their
    paths."""
    os.makedirs(out, exist_ok=True)
    doc = {
        "name": rep.name,
        "title": rep.title,
        "aqmlab_version": __version__,
        "quick": rep.quick,
        "seeds": rep.seeds,
        "wall_s": rep.wall_s,
        "sources": rep.sources,
        "parameters": rep.parameters,
        "numbers": rep.numbers,
        "claims": [asdict(c) for c in rep.claims],
        "tables": [asdict(t) for t in rep.tables],
        "figures": [os.path.relpath(p, out) for p in rep.figures],
        "commands": rep.commands,
    }
    paths = {}
    paths["results.json"] = _put(out, "results.json", json.dumps(doc, indent=2, default=str) + "\n")
    paths["report.md"] = _put(out, "report.md", _markdown(rep, out))
    paths["report.html"] = _put(out, "report.html", _html(rep, out))
    return paths


def _put(out: str, name: str, text: str) -> str:
    path = os.path.join(out, name)
    with open(path + ".partial", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".partial", path)
    return path


def _claims_table(rep: Reproduction) -> Table:
    return Table(
        "The paper's claims beside ours",
        ["claim", "source", "published", "aqmlab", "verdict", "tolerance / note"],
        [
            [
                c.claim,
                c.source,
                c.published,
                c.ours,
                c.verdict,
                "; ".join(x for x in (c.tolerance, c.note) if x),
            ]
            for c in rep.claims
        ],
    )


def _markdown(rep: Reproduction, out: str) -> str:
    mode = "quick (shortened for CI)" if rep.quick else "full"
    parts = [
        f"# {rep.title}",
        "",
        f"`aqmlab reproduce {rep.name}`, {mode} run, seeds {rep.seeds}, aqmlab {__version__}, "
        f"{rep.wall_s:.1f} s wall.",
        "",
        "Sources: " + "; ".join(rep.sources),
        "",
        "## Claims",
        "",
        _md_table(_claims_table(rep)),
        "",
        "## Comparison",
        "",
        *[f"* {d}" for d in rep.discussion],
        "",
        "## Tables",
        "",
    ]
    for t in rep.tables:
        parts += [_md_table(t), ""]
    parts += ["## Figures", ""]
    for p in rep.figures:
        rel = os.path.relpath(p, out)
        parts += [f"![{os.path.basename(p)}]({rel})", ""]
    parts += [
        "## Parameters",
        "",
        "```json",
        json.dumps(rep.parameters, indent=2, default=str),
        "```",
        "",
        "## Commands",
        "",
    ]
    parts += [f"    {c}" for c in rep.commands]
    return "\n".join(parts) + "\n"


def _html(rep: Reproduction, out: str) -> str:
    from aqmlab.report import _e, _figures, _page, _table

    mode = "quick (shortened for CI)" if rep.quick else "full"
    body = [
        f"<p><code>aqmlab reproduce {_e(rep.name)}</code>, {mode} run, seeds "
        f"{_e(rep.seeds)}, {rep.wall_s:.1f} s wall.</p>",
        "<p>Sources: " + "; ".join(_e(s) for s in rep.sources) + "</p>",
        "<h2>Claims</h2>",
    ]
    ct = _claims_table(rep)
    body.append(_table(ct.header, [[fmt(v) for v in r] for r in ct.rows], left=6))
    body.append(
        "<h2>Comparison</h2><ul>" + "".join(f"<li>{_e(d)}</li>" for d in rep.discussion) + "</ul>"
    )
    body.append("<h2>Tables</h2>")
    for t in rep.tables:
        body.append(f"<h3>{_e(t.title)}</h3>")
        body.append(_table(t.header, [[fmt(v) for v in r] for r in t.rows], left=1))
        if t.note:
            body.append(f"<p>{_e(t.note)}</p>")
    body.append("<h2>Figures</h2>" + _figures(rep.figures))
    body.append(
        "<h2>Parameters</h2><pre>"
        + _e(json.dumps(rep.parameters, indent=2, default=str))
        + "</pre>"
    )
    body.append("<h2>Commands</h2><pre>" + _e("\n".join(rep.commands)) + "</pre>")
    return _page(rep.title, "\n".join(body))


def run_sweep_or_fail(
    spec: Any, folder: str, name: str, quick: bool, jobs: Any, progress: bool
) -> Any:
    """Run a reproduction's sweep into ``folder``; a failed run fails the reproduction, with
    every failed point (its axes' values) and its error in the message."""
    from aqmlab.sweep import run_sweep

    command = f"aqmlab reproduce {name}" + (" --quick" if quick else "")
    res = run_sweep(spec, folder, jobs=jobs, progress=progress, command=command)
    if res.failed:
        bad = res.results.loc[res.results["error"].notna(), [*spec.columns, "error"]]
        raise RuntimeError(f"{name}: {res.failed} runs failed: {bad.to_dict('records')}")
    return res


def bundled_scenario(name: str) -> str:
    """The path of a scenario bundled with aqmlab (``scenarios/NAME.toml``)."""
    from aqmlab.scenarios import resolve

    path = resolve(name)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"the bundled scenario {name!r} is not installed")
    return path


def packet_sojourns_ms(run_dir: str, link: str) -> tuple[Any, Any]:
    """``(t_s, sojourn_ms)`` numpy arrays of every packet the run's log has for ``link``."""
    import numpy as np
    import pyarrow.parquet as pq

    path = os.path.join(run_dir, "packets.parquet")
    t = pq.read_table(path, columns=["link", "t_ns", "sojourn_ns"], filters=[("link", "=", link)])
    return (
        t.column("t_ns").to_numpy().astype(np.float64) / 1e9,
        t.column("sojourn_ns").to_numpy().astype(np.float64) / 1e6,
    )


def link_series(run_dir: str, link: str) -> Any:
    import pandas as pd

    df = pd.read_parquet(os.path.join(run_dir, "links.parquet"), filters=[("link", "=", link)])
    return df.sort_values("t_s").reset_index(drop=True)


def phase_stats(
    run_dir: str, link: str, phases: list[tuple[float, float, float]]
) -> list[dict[str, float]]:
    """Per phase ``(from_s, to_s, rate_bps)``: median and 75th-percentile sojourn of the packets
    that left in it (from the packet log), the bytes the link sent in it (its series), and
    those bytes as a share of what the rate could carry."""
    import numpy as np

    t, soj = packet_sojourns_ms(run_dir, link)
    series = link_series(run_dir, link)
    out = []
    for t0, t1, rate in phases:
        sel = (t >= t0) & (t < t1)
        inside = (series["t_s"] >= t0 - 1e-9) & (series["t_s"] < t1 - 1e-9)
        sent = float(series.loc[inside, "egress_bytes"].sum())
        out.append(
            {
                "p50_ms": float(np.quantile(soj[sel], 0.5)) if sel.any() else math.nan,
                "p75_ms": float(np.quantile(soj[sel], 0.75)) if sel.any() else math.nan,
                "mb": sent / 1e6,
                "pct_of_max": 100.0 * sent * 8 / (rate * (t1 - t0)),
            }
        )
    return out


def window_stats(run_dir: str, link: str, t0: float, t1: float) -> dict[str, float]:
    """A link's throughput and average queue over the bins in [t0, t1), from its series:
    ``bytes`` sent, ``pkts`` released, and ``avg_queue`` by Little's law, the sum of the
    sojourns of the packets released in the window (bin count × bin mean) ÷ its length."""
    s = link_series(run_dir, link)
    w = s[(s["t_s"] >= t0 - 1e-9) & (s["t_s"] < t1 - 1e-9)]
    soj_s = (w["released_pkts"] * w["mean_sojourn_ms"].fillna(0.0)).sum() / 1e3
    return {
        "bytes": float(w["egress_bytes"].sum()),
        "pkts": float(w["released_pkts"].sum()),
        "avg_queue": float(soj_s) / (t1 - t0),
    }


def flow_bytes(run_dir: str, t0: float, t1: float) -> dict[int, float]:
    """Bytes each flow delivered in the bins of [t0, t1) (its series)."""
    import pandas as pd

    f = pd.read_parquet(os.path.join(run_dir, "flows.parquet"))
    w = f[(f["t_s"] >= t0 - 1e-9) & (f["t_s"] < t1 - 1e-9)]
    return {int(k): float(v) for k, v in w.groupby("flow")["delivered_bytes"].sum().items()}
