"""The characterization's figures and its one self-contained ``report.html``.

Read from the folder alone (``characterization.json`` and the runs' ``reduced.json``), so
``aqmlab characterize`` run again over a finished folder redraws without simulating. The page
puts the disciplines side by side scenario by scenario, with RFC 7928's requirement level
beside each, says which scenarios are not run and why, and for each discipline the parameters
it ran with, its operator control and auto-tuning and its implementation cost (RFC 7928 §11-12)
from its parameter table, and the time per packet measured by ``make bench`` (``--bench``).
"""

from __future__ import annotations

import json
import os
import statistics as pystats
from typing import Any

from aqmlab.report import _CSS, _e, _figures, _num, _page

#: The metrics the report shows, in order: (key, label). Others found in the results (per-name
#: goodputs and FCTs, ratios) follow.
METRICS = [
    ("queue_delay_ms", "queueing delay, mean (ms)"),
    ("queue_delay_p99_ms", "queueing delay, p99 (ms)"),
    ("owd_ms", "one-way delay, mean (ms)"),
    ("pdv_p99_ms", "PDV: p99 − min queueing delay per flow (ms)"),
    ("jitter_ms", "jitter, RFC 3550 (ms)"),
    ("goodput_mbps", "goodput, all flows (Mb/s)"),
    ("utilization", "bottleneck utilization"),
    ("jain_goodput", "Jain's index of goodputs"),
    ("jain_10rtt", "Jain's index per 10·minRTT sample"),
    ("goodput_10rtt_p10_mbps", "goodput per flow per 10·minRTT sample, p10 (Mb/s)"),
    ("goodput_10rtt_p50_mbps", "goodput per flow per 10·minRTT sample, median (Mb/s)"),
    ("goodput_10rtt_p90_mbps", "goodput per flow per 10·minRTT sample, p90 (Mb/s)"),
    ("loss_ratio", "loss ratio at the bottleneck"),
    ("mark_ratio", "CE-mark ratio at the bottleneck"),
    ("loss_gap_ms", "interval between losses (ms)"),
    ("loss_gap_flow_ms", "interval between a flow's losses (ms)"),
    ("sync_ratio", "global loss-synchronization ratio"),
    ("startup_s", "flow startup time (s)"),
    ("fct_s", "flow completion time, mean (s)"),
    ("page_time_s", "web page completion time, mean (s)"),
    ("pages_completed", "web pages completed per run"),
    ("video_bitrate_mbps", "adaptive video: chosen bitrate, mean (Mb/s)"),
    ("video_rebuffer_s", "adaptive video: time rebuffering (s)"),
    ("video_switches", "adaptive video: bitrate switches"),
    ("max_backlog_pkts", "largest backlog (packets)"),
    ("queue_delay_ms[aqm1]", "§10: queueing delay at the first AQM, mean (ms)"),
    ("loss_ratio[aqm1]", "§10: loss ratio at the first AQM"),
    ("mark_ratio[aqm1]", "§10: CE-mark ratio at the first AQM"),
    ("utilization[aqm1]", "§10: the first AQM's utilization"),
]


def _load(out: str) -> dict[str, Any]:
    with open(os.path.join(out, "characterization.json"), encoding="utf-8") as f:
        return json.load(f)


def _reduced(out: str, run: str) -> dict[str, Any]:
    from aqmlab.results import Run

    return Run(os.path.join(out, run)).reduced


#: The report's CDF panels: (distribution in ``characterization.json``, x label, title, x
#: scale).
CDF_PANELS = [
    ("goodput_10rtt_mbps", "goodput per flow per 10·minRTT sample (Mb/s)", "goodput samples",
     "linear"),
    ("queue_delay_ms", "queueing delay at the bottleneck (ms)", "queueing delay", "symlog"),
    ("owd_ms", "one-way delay of data packets (ms)", "one-way delay", "linear"),
    ("pdv_ms", "PDV: one-way delay − the flow's least (ms)", "PDV (RFC 5481)", "symlog"),
]  # fmt: skip


def _figure(out: str, entry: dict[str, Any], figdir: str) -> list[str]:
    """Delay-goodput with the 1−ε ellipses (RFC 7928 §2.7), then the CDFs (§2.5-2.6) of the
    goodput samples every 10·minRTT, the queueing delay, the one-way delay and the PDV."""
    import numpy as np

    from aqmlab.characterize.measures import ellipse, gaussian_fit
    from aqmlab.plot import _plt, _save
    from aqmlab.reproduce.style import delay_axis

    plt = _plt()
    fig = plt.figure(figsize=(13, 8))
    grid = fig.add_gridspec(2, 6)
    ax = fig.add_subplot(grid[0, 0:3])
    cdf_axes = [fig.add_subplot(grid[0, 3:6])] + [
        fig.add_subplot(grid[1, 2 * i : 2 * i + 2]) for i in range(3)
    ]
    dists = entry.get("distributions", {})
    for i, (q, runs) in enumerate(entry.get("runs", {}).items()):
        color = f"C{i}"
        reduced = [_reduced(out, r) for r in runs]
        pts = [p for r in reduced for p in r["points"]]
        if pts:
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            ax.scatter(xs, ys, s=8, color=color, alpha=0.35, label=f"{q} (flows × seeds)")
            ax.plot(
                [pystats.median(xs)],
                [pystats.median(ys)],
                "o",
                ms=11,
                mfc="none",
                mec=color,
                mew=2,
            )
            if len(pts) >= 3:
                mean, cov = gaussian_fit(pts)
                ring = ellipse(mean, cov, eps=0.05)
                ax.plot([p[0] for p in ring], [p[1] for p in ring], color=color, lw=1.2)
        for bx, (name, *_) in zip(cdf_axes, CDF_PANELS):
            d = dists.get(q, {}).get(name)
            if d:
                # The quantiles averaged over seeds (each seed's CDF weighs the same).
                qv = np.asarray(d["quantiles"])
                bx.plot(qv, np.linspace(0, 1, len(qv)), color=color, label=f"{q} ({d['n']} runs)")
    ax.set(
        xlabel="mean one-way delay above the propagation delay (ms)",
        ylabel="goodput per flow (Mb/s)",
        title="delay-goodput: 95 % ellipse, median ○",
    )
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    for bx, (name, xlabel, title, scale) in zip(cdf_axes, CDF_PANELS):
        bx.set(xlabel=xlabel, ylabel="CDF", title=title)
        if scale == "symlog":
            delay_axis(bx, "x", symlog=True)
        bx.grid(True, alpha=0.3)
        if bx.lines:
            bx.legend(fontsize=8)
        else:
            bx.text(0.5, 0.5, _no_cdf(name, entry), ha="center", va="center", wrap=True,
                    transform=bx.transAxes)  # fmt: skip
    fig.suptitle(f"RFC 7928 §{entry['section']}: {entry['id']}", fontsize=10)
    fig.tight_layout()
    files = _save(fig, figdir, entry["id"].replace("/", "_"))
    return [f for f in files if f.endswith(".png")]


def _no_cdf(name: str, entry: dict[str, Any]) -> str:
    """Why a CDF panel of ``entry`` is empty (``measures.reduce_run`` leaves it out)."""
    if name == "goodput_10rtt_mbps":
        return "no sample: no long-lived TCP flow"
    return "no data"


def _cell(stat: dict[str, Any] | None) -> str:
    if not stat or stat.get("mean") is None:
        return "–"
    lo, hi = stat["ci95"]
    cut = stat.get("clipped") or []
    # A bound cut to the metric's range (bounds.py) is marked with a dagger.
    a = _num(lo, 3) + ("†" if "low" in cut else "")
    b = _num(hi, 3) + ("†" if "high" in cut else "")
    ci = f" [{a}, {b}]" if lo is not None else ""
    return f"{_num(stat['mean'], 4)}<small>{_e(ci)}</small>"


def _metric_rows(entry: dict[str, Any]) -> list[tuple[str, str]]:
    keys = [k for k, _ in METRICS]
    extra: list[str] = []
    for res in entry["results"].values():
        extra += [k for k in res if k not in keys and k not in extra and k != "min_rtt_ms"]
    return [*METRICS, *((k, k) for k in sorted(extra))]


def _params_table(params: dict[str, Any]) -> str:
    rows = "".join(
        f'<tr><th class="l">{_e(k)}</th><td class="l">{_e(json.dumps(v))}</td></tr>'
        for k, v in params.items()
        if k != "disciplines"
    )
    return f'<table class="meta">{rows}</table>'


def _discipline_params(out: str, doc: dict[str, Any]) -> dict[str, str]:
    """Each discipline's parameters as it ran (every value, defaults included), read from the
    first of its runs' resolved scenario."""
    from aqmlab.sweepspec import _toml_loads

    seen: dict[str, str] = {}
    for entry in doc["scenarios"]:
        for q, runs in entry.get("runs", {}).items():
            if q in seen or not runs:
                continue
            path = os.path.join(out, runs[0], "scenario.resolved.toml")
            with open(path, encoding="utf-8") as f:
                resolved = _toml_loads(f.read())
            for link in resolved.get("links", []):
                if link["name"] == "bottleneck":
                    seen[q] = ", ".join(f"{k}={v}" for k, v in link.get("params", {}).items())
    return seen


def _facts_html(q: str, bench: dict[str, Any] | None) -> str:
    """RFC 7928 §12 then §11 for discipline ``q``: its derived and adapted parameters and its
    cost facts from its table (``_core.list_qdiscs``), and the measured time per packet from
    ``bench`` (:mod:`aqmlab.characterize.bench`), or "not measured"."""
    from aqmlab._core import list_qdiscs

    info = next((k for k in list_qdiscs() if k["name"] == q), None)
    if info is None:
        return "<p>(not a discipline of aqmlab's tables: no facts)</p>"
    tuned = [p for p in info["params"] if p["tuning"] != "fixed"]
    fixed = [p["name"] for p in info["params"] if p["tuning"] == "fixed"]
    control = [
        f"<li><b>{_e(p['tuning'])} {_e(p['name'])}</b>: {_e(p['tuning_how'])}</li>" for p in tuned
    ] or ["<li>none derived or adapted: every value is the operator's</li>"]
    control.append(
        f"<li><b>set by the operator</b> ({len(fixed)} of {len(info['params'])}): "
        f"{_e(', '.join(fixed))}</li>"
    )
    f = info["facts"]
    cost = [
        f"<li><b>{label}</b>: {_e(f[key])}</li>"
        for key, label in [
            ("state", "state"),
            ("per_flow", "per flow"),
            ("per_packet", "per packet"),
            ("timers", "timers"),
        ]
    ]
    cases = [c for c in (bench or {}).get("cases", []) if c["kind"] == q]
    if cases:
        from aqmlab.characterize.bench import describe

        where = f" (from {bench['folder']})" if bench else ""
        cost += [
            f'<li class="measured"><b>time per packet, measured</b>: {_e(describe(c))}'
            f"{_e(where)}</li>"
            for c in cases
        ]
    else:
        why = (
            f"{bench['folder']} has no case of {q}"
            if bench
            else "run `make bench` and pass its folder as `aqmlab characterize --bench "
            "target/criterion`"
        )
        cost.append(
            f'<li class="measured"><b>time per packet, measured</b>: not measured ({_e(why)})</li>'
        )
    cost.append(f"<li><b>spec</b>: {_e(f['spec'])}</li>")
    return (
        f"<p>Operator control and auto-tuning (RFC 7928 §12):</p><ul>{''.join(control)}</ul>"
        f"<p>Implementation cost (RFC 7928 §11):</p><ul>{''.join(cost)}</ul>"
    )


def _fig4_html(doc: dict[str, Any]) -> str:
    """Every row of RFC 7928's Fig. 4 (:mod:`aqmlab.characterize.fig4`) with the scenarios
    of this report that it covers, the rows no scenario runs, and the sections run that Fig. 4
    gives no level."""
    from aqmlab.characterize import fig4

    by_row: dict[str, list[str]] = {}
    silent: dict[str, list[str]] = {}
    for e in doc["scenarios"]:
        row = fig4.row_of(e["section"])
        if row:
            by_row.setdefault(row, []).append(e["id"])
        else:
            silent.setdefault(fig4.level(e["section"])[1], []).append(e["id"])
    rows = []
    for sec, lvl in fig4.BY_SECTION.items():
        ids = by_row.get(sec, [])
        ran = ", ".join(f'<a href="#{_e(i)}">{_e(i)}</a>' for i in ids) or "none in this report"
        cond = f" ({_e(fig4.CONDITIONS[sec])})" if sec in fig4.CONDITIONS else ""
        rows.append(
            f'<tr><td class="l">§{_e(sec)}</td><td class="l">{lvl}{cond}</td>'
            f'<td class="l">{ran}</td></tr>'
        )
    for lvl, topic, why in fig4.DISCUSSION:
        rows.append(
            f'<tr><td class="l">{_e(topic)}</td><td class="l">{lvl}</td>'
            f'<td class="l">{_e(why)}</td></tr>'
        )
    for why, ids in silent.items():
        ran = ", ".join(f'<a href="#{_e(i)}">{_e(i)}</a>' for i in ids)
        rows.append(
            f'<tr><td class="l">–</td><td class="l">not listed</td>'
            f'<td class="l">{ran}: {_e(why)}</td></tr>'
        )
    return (
        "<h2>RFC 7928 Fig. 4</h2><p>The requirement levels of RFC 7928's Fig. 4 (section 13) as "
        "the project's reference notes give them (aqmlab/characterize/fig4.py; the RFC's own "
        "text could not be read where aqmlab was built), the scenarios each row covers, and "
        "what the report prints where Fig. 4 is silent: 'not listed', never a level of "
        "aqmlab's own.</p>"
        '<table><tr><th class="l">Fig. 4 row</th><th class="l">level</th>'
        f'<th class="l">scenarios</th></tr>{"".join(rows)}</table>'
    )


def write_report(out: str) -> str:
    doc = _load(out)
    figdir = os.path.join(out, "figures")
    discs = list(doc["disciplines"])
    for entry in doc["scenarios"]:
        for q in entry.get("results", {}):
            if q not in discs:
                discs.append(q)
    body = [
        "<p>The characterization guidelines of RFC 7928 run on aqmlab's simulator: each scenario "
        "with every discipline, the same seeds, the same buffer. Means over seeds with their 95 % "
        "Student-t intervals in brackets (none with one seed); a bound marked † is the t "
        "interval's cut at the metric's range (a delay is not below 0, a ratio not above 1): "
        "the true mean lies in the range, so the cut interval covers it as often as the t "
        "interval does (aqmlab/characterize/bounds.py). The requirement level is RFC "
        "7928's (Fig. 4, section 13), as the project's reference notes give it; 'not listed' "
        "where Fig. 4 gives none (the section 'RFC 7928 Fig. 4' below lists every row)."
        + (
            " Rows marked (emulated) ran through aqmlab shell's emulated link with the "
            "kernel's TCP instead of the simulator's (docs/characterize.md, 'Emulated runs')."
            if doc.get("emulate")
            else ""
        )
        + "</p>",
        '<table class="meta">'
        + "".join(
            f'<tr><th class="l">{_e(k)}</th><td class="l">{_e(v)}</td></tr>'
            for k, v in [
                ("disciplines", ", ".join(doc["disciplines"])),
                ("bottleneck rate", doc["rate"]),
                ("base RTT", doc["rtt"]),
                ("seeds", doc["seeds"]),
                ("mode", "quick (shortened runs)" if doc["quick"] else "full"),
                ("command", doc.get("command") or "(Python API)"),
                ("aqmlab", doc["aqmlab_version"]),
                ("wall time", f"{doc['wall_s']} s"),
            ]
        )
        + "</table>",
    ]
    # The overview: every scenario, its level and status, two headline metrics per discipline.
    head = "".join(
        f"<th>{_e(q)}<br><small>queue delay ms / goodput Mb/s</small></th>" for q in discs
    )
    rows = []
    for e in doc["scenarios"]:
        cells = []
        for q in discs:
            r = e["results"].get(q)
            if r:
                cells.append(
                    f"<td>{_num((r.get('queue_delay_ms') or {}).get('mean'), 3)} / "
                    f"{_num((r.get('goodput_mbps') or {}).get('mean'), 3)}</td>"
                )
            else:
                cells.append("<td>–</td>")
        status = (
            e["status"] if e["status"] == "run" else f'<span class="bad">{_e(e["status"])}</span>'
        )
        rows.append(
            f'<tr><td class="l"><a href="#{_e(e["id"])}">§{_e(e["section"])}</a></td>'
            f'<td class="l">{_e(e["title"])}{" — " + _e(e["variant"]) if e["variant"] else ""}'
            f"{' <b>(emulated)</b>' if e.get('emulated') else ''}</td>"
            f'<td class="l" title="{_e(e.get("requirement_basis", ""))}">'
            f'{_e(e["requirement"])}</td><td class="l">{status}</td>'
            f"{''.join(cells)}</tr>"
        )
    if doc.get("quick_left_out"):
        body.append(
            "<p>Quick mode runs a subset of some scenarios' variants; left out here (the full "
            "mode runs them): "
            + "; ".join(f"{_e(t)}: {_e(', '.join(vs))}" for t, vs in doc["quick_left_out"].items())
            + ".</p>"
        )
    body.append("<h2>Overview</h2>")
    body.append(
        '<table><tr><th class="l">section</th><th class="l">scenario</th>'
        f'<th class="l">requirement</th><th class="l">status</th>{head}</tr>'
        + "".join(rows)
        + "</table>"
    )
    body.append(_fig4_html(doc))
    not_run = [e for e in doc["scenarios"] if e["status"] == "not run"]
    if not_run:
        body.append("<h2>Not run</h2><ul>")
        body += [
            f'<li id="{_e(e["id"])}">§{_e(e["section"])} {_e(e["title"])} '
            f"({_e(e['requirement'])}): {_e(e['reason'])}</li>"
            for e in not_run
        ]
        body.append("</ul>")
    body.append("<h2>Scenarios</h2>")
    for e in doc["scenarios"]:
        if e["status"] == "not run":
            continue
        body.append(
            f'<h3 id="{_e(e["id"])}">§{_e(e["section"])} {_e(e["title"])}'
            f"{' — ' + _e(e['variant']) if e['variant'] else ''}</h3>"
            f"<p>Requirement (RFC 7928 Fig. 4): <b>{_e(e['requirement'])}</b>"
            f"{' (' + _e(e['requirement_basis']) + ')' if e.get('requirement_basis') else ''}. "
            f"Scenario file: <code>{_e(e['parameters'].get('scenario'))}</code>.</p>"
        )
        if e.get("emulated"):
            emu = e["parameters"].get("emulated", {})
            body.append(
                '<p class="emulated"><b>Emulated</b>: real Linux TCP and UDP '
                f"(kernel {_e(emu.get('kernel'))}, congestion control "
                f"{_e(', '.join(emu.get('congestion_control') or []) or 'none')}, initial window "
                f"{_e(emu.get('initial_cwnd') or 'Linux default')}) through aqmlab shell's link "
                f"({_e(emu.get('path'))}; one-way delay {_e(emu.get('one_way_delay'))}). "
                "Goodput from the receivers after the warm-up; queue metrics from the "
                "forwarder over the whole run.</p>"
            )
        elif e.get("emulation"):
            body.append(f"<p>{_e(e['emulation'])}.</p>")
        if e.get("errors"):
            body.append(
                '<p class="bad">Failed runs: '
                + "; ".join(f"{_e(q)}: {_e(err)}" for q, err in e["errors"].items())
                + "</p>"
            )
        body.append(
            f"<details><summary>parameters</summary>{_params_table(e['parameters'])}</details>"
        )
        tr = "".join(f"<th>{_e(q)}</th>" for q in e["results"])
        mrows = []
        for key, label in _metric_rows(e):
            if not any(key in r for r in e["results"].values()):
                continue
            cells = "".join(f"<td>{_cell(r.get(key))}</td>" for r in e["results"].values())
            mrows.append(f'<tr><td class="l">{_e(label)}</td>{cells}</tr>')
        body.append(f'<table><tr><th class="l">metric</th>{tr}</tr>{"".join(mrows)}</table>')
        if e.get("runs"):
            body.append(_figures(_figure(out, e, figdir)))
    body.append("<h2>Disciplines</h2>")
    body.append(
        "<p>Each discipline's operator control and auto-tuning (RFC 7928 §12) and implementation "
        "cost (§11) come from its parameter table and facts in aqmlab's source (the same as "
        "<code>aqmlab replay --list</code> and docs/parameters.md print); the time per packet "
        "from a measurement, <code>make bench</code>, passed with <code>--bench</code>.</p>"
    )
    as_run = _discipline_params(out, doc)
    for q in discs:
        extra = doc.get("params", {}).get(q) or {}
        body.append(
            f"<h3>{_e(q)}</h3><p>Parameters given: "
            f"{_e(', '.join(f'{k}={v}' for k, v in extra.items()) or 'none (defaults)')}. "
            "As run (every value, from the resolved scenario): "
            f"<code>{_e(as_run.get(q, '–'))}</code></p>" + _facts_html(q, doc.get("bench"))
        )
    from aqmlab.characterize import measures

    body.append(f"<h2>How the metrics are measured</h2><pre>{_e(measures.__doc__)}</pre>")
    html_text = _page("RFC 7928 characterization", "\n".join(body))
    html_text = html_text.replace(
        f"<style>{_CSS}</style>", f"<style>{_CSS} h3 {{ margin-top: 1.6em; }}</style>"
    )
    path = os.path.join(out, "report.html")
    tmp = os.path.join(out, ".report.html.partial")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(html_text)
    os.replace(tmp, path)
    return path
