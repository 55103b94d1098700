"""``aqmlab report``: one self-contained ``report.html`` for a run or a sweep folder.

The page embeds its figures (PNG, as data: URIs) and needs nothing else: no server, no file
beside it, no network. It holds the tables a reader compares, and how every run was made
(aqmlab's version and build, the command, the scenario and the overrides of each run).
"""

from __future__ import annotations

import base64
import html
import json
import os
from typing import Any

from aqmlab import __version__

_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th { background: #f3f3f3; } td.l, th.l { text-align: left; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: 13px; }
pre { background: #f7f7f7; padding: .8em; overflow-x: auto; font-size: 12px; }
details { margin: .4em 0; } .bad { color: #b00; } .meta td { text-align: left; }
"""


def _e(v: Any) -> str:
    return html.escape(str(v))


def _num(v: Any, digits: int = 4) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        if v != v:  # NaN
            return "–"
        return f"{v:.{digits}g}"
    return _e(v)


def _table(header: list[str], rows: list[list[Any]], left: int = 1) -> str:
    out = ["<table><tr>"]
    out += [f'<th class="{"l" if i < left else ""}">{_e(h)}</th>' for i, h in enumerate(header)]
    out.append("</tr>")
    for r in rows:
        out.append("<tr>")
        out += [f'<td class="{"l" if i < left else ""}">{_num(v)}</td>' for i, v in enumerate(r)]
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def _figures(files: list[str]) -> str:
    out = []
    for p in files:
        if not p.endswith(".png"):
            continue
        with open(p, "rb") as f:
            data = base64.b64encode(f.read()).decode()
        name = os.path.splitext(os.path.basename(p))[0]
        out.append(
            f'<figure><img alt="{_e(name)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{_e(name)} (SVG beside it: figures/{_e(name)}.svg)</figcaption></figure>"
        )
    return "\n".join(out)


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>\n"
        f"<h1>{_e(title)}</h1>\n{body}\n"
        f"<p><small>Written by aqmlab {_e(__version__)}.</small></p></body></html>\n"
    )


def _provenance(summary: dict) -> str:
    """What a summary says of how its run was made (the keys it has)."""
    rows = [
        ["scenario", summary.get("scenario")],
        ["seed", summary.get("seed")],
        ["simulated", f"{summary.get('sim_time_s')} s"],
        ["bin", f"{summary.get('bin_s')} s"],
    ]
    prov = summary.get("provenance") or {}
    for k in sorted(prov):
        if k not in ("resolved_scenario",):
            v = prov[k]
            rows.append([k, json.dumps(v) if isinstance(v, (dict, list)) else v])
    out = (
        '<table class="meta">'
        + "".join(f'<tr><th class="l">{_e(k)}</th><td class="l">{_e(v)}</td></tr>' for k, v in rows)
        + "</table>"
    )
    resolved = prov.get("resolved_scenario")
    if resolved:
        out += f"<details><summary>resolved scenario</summary><pre>{_e(resolved)}</pre></details>"
    return out


def _run_body(folder: str, link: str | None) -> tuple[str, str]:
    from aqmlab.plot import choose_link, plot_run
    from aqmlab.results import Run

    arms = [(label, r.summary) for label, r in Run(folder).arms()]
    first = arms[0][1]
    link = link or choose_link(first)
    files = plot_run(folder, link=link)
    parts = [f"<h2>Link {_e(link)}</h2>"]
    rows = []
    for label, s in arms:
        lk = s["links"][link]
        soj = lk.get("sojourn_ms") or {}
        rows.append(
            [
                label,
                lk["qdisc"],
                lk["utilization"],
                lk["dropped_pkts"],
                lk.get("marked_pkts"),
                soj.get("p50"),
                soj.get("p75"),
                soj.get("p95"),
                soj.get("p99"),
                lk["delivered_bytes"] / 1e6,
            ]
        )
    parts.append(
        _table(
            [
                "run",
                "qdisc",
                "utilization",
                "drops",
                "marks",
                "p50 ms",
                "p75 ms",
                "p95 ms",
                "p99 ms",
                "delivered MB",
            ],
            rows,
            left=2,
        )
    )
    parts.append("<h2>Flows</h2>")
    for label, s in arms:
        parts.append(f"<h3>{_e(label)}</h3>")
        frows = [
            [
                f.get("name") or f"flow {f['id']}",
                f.get("app"),
                f.get("cc") or "",
                (f.get("goodput_bps") or 0) / 1e6,
                f.get("delivered_bytes", 0) / 1e6,
                f.get("dropped_pkts"),
                f.get("retransmits"),
                f.get("timeouts"),
                (f.get("srtt_ms") or {}).get("mean"),
            ]
            for f in s.get("flows", [])
        ]
        parts.append(
            _table(
                [
                    "flow",
                    "app",
                    "cc",
                    "goodput Mb/s",
                    "delivered MB",
                    "dropped",
                    "retransmits",
                    "timeouts",
                    "mean sRTT ms",
                ],
                frows,
                left=3,
            )
        )
        fair = s.get("fairness", {})
        parts.append(
            f"<p>Jain's index: goodput {_num(fair.get('jain_goodput'))}, "
            f"drops {_num(fair.get('jain_drops'))}.</p>"
        )
    parts.append("<h2>Figures</h2>" + _figures(files))
    parts.append("<h2>How these runs were made</h2>")
    for label, s in arms:
        parts.append(f"<h3>{_e(label)}</h3>{_provenance(s)}")
    return f"{first.get('scenario', 'run')}: aqmlab run report", "\n".join(parts)


def _sweep_body(folder: str, link: str | None) -> tuple[str, str]:
    from aqmlab.plot import plot_sweep
    from aqmlab.results import Sweep, is_run

    sweep = Sweep(folder)
    res, summ, manifest = sweep.results, sweep.summary, sweep.manifest
    files = plot_sweep(folder, link=link)
    axes = manifest["columns"]
    link = link or "bottleneck"
    parts = ['<table class="meta">']
    meta = [
        ("command", manifest.get("command") or "(Python API)"),
        ("aqmlab", f"{manifest.get('aqmlab_version')} ({manifest.get('build')} build)"),
        ("scenario", manifest.get("scenario")),
        ("fixed", json.dumps(manifest.get("set"))),
        ("seeds", manifest.get("seeds") or "the scenario's own"),
        ("runs", len(res)),
    ]
    parts += [f'<tr><th class="l">{_e(k)}</th><td class="l">{_e(v)}</td></tr>' for k, v in meta]
    parts.append("</table>")
    shown = [
        m
        for m in (
            f"{link}.sojourn_ms.p50",
            f"{link}.sojourn_ms.p95",
            f"{link}.utilization",
            f"{link}.dropped_pkts",
            "total.goodput_bps",
            "fairness.jain_goodput",
        )
        if m in set(summ["metric"])
    ]
    parts.append("<h2>Means over seeds, with 95 % confidence intervals</h2>")
    if shown:
        rows = []
        keys = summ[axes].astype(str).drop_duplicates().to_dict("records") if axes else [{}]
        for point in keys:
            sub = summ
            for k, v in point.items():
                sub = sub[sub[k].astype(str) == v]
            row: list[Any] = list(point.values())
            n = None
            for m in shown:
                r = sub[sub["metric"] == m]
                if len(r):
                    r = r.iloc[0]
                    n = r["n"]
                    half = r["ci95_high"] - r["mean"]
                    row.append(
                        f"{_num(r['mean'])} ± {_num(half, 2)}" if half == half else _num(r["mean"])
                    )
                else:
                    row.append(None)
            row.append(n)
            rows.append(row)
        parts.append(_table([*axes, *shown, "n"], rows, left=len(axes)))
    failed = res[res["error"].notna()]
    if len(failed):
        parts.append(f'<h2 class="bad">{len(failed)} failed runs</h2>')
        parts.append(
            _table(
                [*axes, "seed", "error"],
                [[*(r[a] for a in axes), r["seed"], r["error"]] for _, r in failed.iterrows()],
                left=len(axes) + 2,
            )
        )
    parts.append("<h2>Figures</h2>" + _figures(files))
    parts.append(
        "<h2>How every run was made</h2><p>Each run's folder under <code>runs/</code> "
        "holds its summary, series and <code>run.json</code>.</p>"
    )
    for _, r in res.iterrows():
        key = r["run"]
        label = ", ".join(f"{a}={r[a]}" for a in axes) + f", seed {r['seed']}"
        # The run's manifest through the one reader of run folders (results.Run), printed as
        # the sweep writes it (sweep.py: indent 2, a newline).
        run = sweep.run(key) if isinstance(key, str) and is_run(sweep.run_folder(key)) else None
        made = run.manifest if run is not None else None
        if made is not None:
            text = json.dumps(made, indent=2) + "\n"
            parts.append(
                f"<details><summary>{_e(label)}: runs/{_e(key)}</summary>"
                f"<pre>{_e(text)}</pre></details>"
            )
        else:
            parts.append(
                f'<details><summary class="bad">{_e(label)}: failed</summary>'
                f"<pre>{_e(r['error'])}</pre></details>"
            )
    name = os.path.basename(os.path.normpath(folder))
    return f"{name}: aqmlab sweep report", "\n".join(parts)


def write_report(folder: str, link: str | None = None, out: str | None = None) -> str:
    """Write the report of ``folder`` (a run or a sweep) and return its path."""
    from aqmlab.results import kind

    if kind(folder) == "sweep":
        title, body = _sweep_body(folder, link)
    else:
        title, body = _run_body(folder, link)
    out = out or os.path.join(folder, "report.html")
    tmp = out + ".partial"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(_page(title, body))
    os.replace(tmp, out)
    return out
