"""``aqmlab reproduce``: each reproduction in its quick form writes its report, data and figures,
and the papers' qualitative findings hold (the tests fail when they stop holding). Every
reproduction runs once, in process (the ``quick_all`` fixture), with each figure inspected
before it is saved: titles naming the paper figure, delay axes from 0, every series (line,
scatter, bar, box) seen in its discipline's colour, and no two pieces of text (titles, axis
labels, a twin axes' labels, tick labels, legends) drawn over each other."""

import importlib.util
import json
import math
import os
import re

import pytest
from conftest import run_cli

#: Verdicts a claim may carry (docs/reproductions.md).
VERDICTS = ("agrees", "differs", "holds", "does not hold", "cannot discriminate")
#: A figure's title ends with the paper figure (or source) it reproduces, in parentheses.
FIGURE_REF = re.compile(r"\((?:[^()]*\b(?:NJ12|FJ93|CS244|Kuhn|Ford|BITAG|De Schepper)\b[^()]*)\)$")
#: ... and names that figure in its source: a numbered figure or table, a slide by its number or
#: title, an unnumbered plot by its name ('delay-4g'), or says that the stored source has none.
SOURCE_FIGURE = re.compile(
    r"\bFigs?\. ?\d|\bTables? [IVXLC\d]|\bslides? (?:'|\d)|\bplots? '"
    r"|no figure in the (?:stored )?source"
)


def _texts(fig, renderer) -> list[tuple[str, object]]:
    """Every piece of text drawn on ``fig`` with its box in pixels: the suptitle, each axes'
    titles, axis labels (a twin axes' too), visible tick labels within the view, its texts
    (annotations), and each legend as one box."""
    out = []

    def add(name, t):
        if t is not None and t.get_visible() and t.get_text().strip():
            out.append((name, t.get_window_extent(renderer)))

    add("suptitle", fig._suptitle)
    for k, ax in enumerate(fig.axes):
        if not ax.get_visible() or not ax.axison:
            continue
        for t in (ax.title, ax._left_title, ax._right_title):
            add(f"axes {k} title", t)
        add(f"axes {k} xlabel", ax.xaxis.label)
        add(f"axes {k} ylabel", ax.yaxis.label)
        for which, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if not axis.get_visible():  # a twin's shared axis
                continue
            lo, hi = sorted(axis.get_view_interval())
            for t in axis.get_majorticklabels() + axis.get_minorticklabels():
                if lo <= t.get_position()[which == "y"] <= hi:
                    add(f"axes {k} {which} tick {t.get_text()!r}", t)
        for j, t in enumerate(ax.texts):  # annotations (codel-dynamic's phase rates)
            add(f"axes {k} text {j} {t.get_text()!r}", t)
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            out.append((f"axes {k} legend", legend.get_window_extent(renderer)))
    for legend in fig.legends:
        out.append(("figure legend", legend.get_window_extent(renderer)))
    return out


def _overlaps(texts) -> list[tuple[str, str]]:
    """Pairs of text boxes that overlap by more than a pixel each way."""
    bad = []
    for i, (a, ba) in enumerate(texts):
        for b, bb in texts[i + 1 :]:
            w = min(ba.x1, bb.x1) - max(ba.x0, bb.x0)
            h = min(ba.y1, bb.y1) - max(ba.y0, bb.y0)
            if w > 1 and h > 1:
                bad.append((a, b))
    return bad


def _series(ax, renderer) -> list[tuple[str, str, str]]:
    """Each artist of ``ax`` that carries a series, as (label, the colour it is seen in, the
    colour it was given): lines, scatter and other collections, bars and boxes. A series is
    seen in its face colour unless it is drawn flat (a box of one value, a bar of height 0),
    when only its edge shows. An unlabelled patch is named by its face colour, so a box filled
    in a discipline's colour and drawn flat in black shows as that discipline's box lost."""
    from aqmlab.reproduce import style
    from matplotlib.colors import to_hex

    by_colour = {c.lower(): d for d, c in style.COLOURS.items()}
    out = []
    for ln in ax.get_lines():
        if not ln.get_label().startswith("_"):
            out.append((ln.get_label(), to_hex(ln.get_color()), to_hex(ln.get_color())))
    for c in ax.collections:
        label = c.get_label()
        faces, edges = c.get_facecolor(), c.get_edgecolor()
        seen = faces if len(faces) and faces[0][3] > 0 else edges
        if not len(seen):
            continue
        if not label.startswith("_"):
            out.append((label, to_hex(seen[0], keep_alpha=False), to_hex(seen[0])))
    labelled = {}
    for cont in ax.containers:
        if not cont.get_label().startswith("_"):
            for p in cont:
                if hasattr(p, "get_facecolor"):
                    labelled[id(p)] = cont.get_label()
    for p in ax.patches:
        label = labelled.get(id(p), p.get_label())
        face = to_hex(p.get_facecolor(), keep_alpha=False)
        edge = to_hex(p.get_edgecolor(), keep_alpha=False)
        if not label or label.startswith("_"):
            if face not in by_colour or not p.get_fill():
                continue
            label = f"unlabelled {by_colour[face]} patch"
        box = p.get_window_extent(renderer)
        flat = box.width < 1.5 or box.height < 1.5
        if flat and (p.get_linewidth() == 0 or p.get_edgecolor()[3] == 0):
            continue  # a bar of height 0: nothing of it is drawn, in any colour
        seen = edge if flat or not p.get_fill() else face
        out.append((label, seen, face))
    return out


def _inspect(fig) -> dict:
    """What the figure test checks, read off a drawn figure."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    sup = fig._suptitle.get_text() if fig._suptitle is not None else ""
    axes = []
    for ax in fig.axes:
        axes.append(
            {
                "title": ax.get_title(),
                "ylabel": ax.get_ylabel(),
                "ylim": ax.get_ylim(),
                "series": _series(ax, renderer),
                "log_labels": _log_labels(ax),
            }
        )
    return {"suptitle": sup, "axes": axes, "text_overlaps": _overlaps(_texts(fig, renderer))}


#: A tick label that is a plain number ("30", "0.5", "1e-05"): not matplotlib's default
#: log labels ("$\\mathdefault{3\\times10^{1}}$", drawn "3×10¹").
PLAIN_NUMBER = re.compile(r"[-−]?\d+(\.\d+)?(e[-+]?\d+)?")


def _log_labels(ax) -> list[tuple[str, str]]:
    """The drawn tick labels (major and minor, within the view) of each log-scaled axis of
    ``ax`` (a symmetric log scale's too: the delay axes), as (x or y, text)."""
    out = []
    for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
        if axis.get_scale() not in ("log", "symlog"):
            continue
        lo, hi = sorted(axis.get_view_interval())
        for tick in axis.get_major_ticks() + axis.get_minor_ticks():
            text = tick.label1.get_text()
            if text and tick.label1.get_visible() and lo <= tick.get_loc() <= hi:
                out.append((name, text))
    return out


def test_a_symlog_delay_axis_is_labelled_in_plain_numbers_from_0():
    """style.delay_axis(symlog=True), the one helper of every symlog delay axis (reproductions,
    ``aqmlab plot``, characterize's CDFs): ticks 0, 1, 10, 100, 1000 written so, where
    matplotlib writes 10^n, and no negative range."""
    from aqmlab.plot import _plt
    from aqmlab.reproduce.style import delay_axis

    plt = _plt()
    fig, (bare, ax, bx) = plt.subplots(1, 3)
    for a in (bare, ax, bx):
        a.plot([0, 1, 10, 100, 1000, 2500], [0, 0.5, 3, 40, 700, 2500], ".")
    bare.set_yscale("symlog", linthresh=1.0)  # what the figures did
    delay_axis(ax, symlog=True)
    delay_axis(bx, "x", symlog=True)
    fig.canvas.draw()
    try:
        # The bare axis's labels are matplotlib's (10^n): what the figure test refuses.
        assert any(not PLAIN_NUMBER.fullmatch(t) for _, t in _log_labels(bare))
        assert min(bare.get_ylim()) < 0
        for a, which in ((ax, "y"), (bx, "x")):
            labels = [t for axis, t in _log_labels(a) if axis == which]
            assert labels == ["0", "1", "10", "100", "1000"], labels
            lim = a.get_ylim() if which == "y" else a.get_xlim()
            assert lim[0] == 0 and lim[1] > 2500
    finally:
        plt.close(fig)


def _figure_faults(name: str, f: dict) -> list:
    """Everything the figure test refuses in one inspected figure."""
    from aqmlab.reproduce import style

    faults = []
    title = f["suptitle"] or (f["axes"][0]["title"] if len(f["axes"]) else "")
    if not FIGURE_REF.search(title):
        faults.append((name, "title names no source", title))
    elif not SOURCE_FIGURE.search(FIGURE_REF.search(title)[0]):
        faults.append((name, "title names no figure, table or slide of its source", title))
    for ax in f["axes"]:
        label = ax["ylabel"].lower()
        if ("delay" in label or "sojourn" in label) and min(ax["ylim"]) < 0:
            faults.append((name, "negative delay axis", ax["ylabel"], ax["ylim"]))
        for series, seen, _given in ax["series"]:
            d = style.discipline(series.removeprefix("unlabelled "))
            if d and seen != style.COLOURS[d].lower():
                faults.append((name, "series not in its discipline's colour", series, seen))
        for axis, text in ax["log_labels"]:
            if not PLAIN_NUMBER.fullmatch(text):
                faults.append((name, f"log {axis} axis not labelled in plain numbers", text))
    for a, b in f["text_overlaps"]:
        faults.append((name, "text overlaps", a, b))
    return faults


@pytest.fixture(scope="module")
def quick_all(tmp_path_factory):
    """``aqmlab reproduce all --quick``, in process, every figure inspected as it is saved."""
    import importlib

    from aqmlab.reproduce import reproduce

    # The module (``aqmlab.plot`` the attribute is the function of that name).
    plot = importlib.import_module("aqmlab.plot")

    out = tmp_path_factory.mktemp("repro-all")
    figures: dict[str, dict] = {}
    save = plot._save

    def record(fig, folder, name):
        figures[os.path.join(os.path.relpath(folder, out), name)] = _inspect(fig)
        return save(fig, folder, name)

    mp = pytest.MonkeyPatch()
    mp.setattr(plot, "_save", record)
    try:
        done = reproduce("all", str(out), quick=True)
    finally:
        mp.undo()
    return out, done, figures


@pytest.fixture(scope="module")
def codel_dynamic(quick_all):
    return quick_all[0] / "codel-dynamic"


def _claims(out) -> dict:
    doc = json.loads((out / "results.json").read_text())
    return {c["claim"]: c for c in doc["claims"]}


def test_list_names_every_reproduction():
    r = run_cli("reproduce", "--list")
    assert r.returncode == 0
    assert "codel-dynamic" in r.stdout and "all" in r.stdout


def test_unknown_reproduction_is_one_line():
    r = run_cli("reproduce", "nope", "--quick")
    assert r.returncode == 2 and "no reproduction named 'nope'" in r.stderr


def test_codel_dynamic_writes_report_data_and_figures(codel_dynamic):
    out = codel_dynamic
    doc = json.loads((out / "results.json").read_text())
    assert doc["quick"] is True and doc["seeds"] == [1]
    for c in doc["claims"]:
        assert {"claim", "source", "published", "ours", "verdict", "tolerance", "why"} <= set(c)
        assert c["verdict"] in VERDICTS or c["verdict"].startswith("not graded: ")
    md = (out / "report.md").read_text()
    assert "| discipline | median ms |" in md and "The paper's claims beside ours" in md
    # Every figure the reports reference exists, as PNG and SVG.
    for ref in re.findall(r"\]\((figures/[^)]+)\)", md):
        assert (out / ref).exists(), ref
        assert (out / ref).with_suffix(".svg").exists(), ref
    assert len(doc["figures"]) >= 4
    html = (out / "report.html").read_text()
    assert all(s.startswith("data:image/png") for s in re.findall(r'src="([^"]*)"', html))
    assert (out / "sweep" / "results.parquet").exists() and (out / "scenario.toml").exists()


def test_codel_dynamic_qualitative_findings_hold(codel_dynamic):
    out = codel_dynamic
    nums = json.loads((out / "results.json").read_text())["numbers"]["cases"]
    codel, td, td10 = nums["CoDel"], nums["tail drop 830p"], nums["tail drop 10p"]
    # CoDel's median delay far below tail drop's (the paper's Fig. 7a).
    assert codel["p50_ms"] < td["p50_ms"] / 10
    # The undersized buffer loses most of the throughput (slides: about 75 %).
    assert td10["mb"] < 0.5 * td["mb"]
    # Tail drop with a BDP buffer keeps the link busy: near the capacity, never above it.
    assert 90 < td["pct_of_max"] <= 100
    claims = _claims(out)
    assert claims["CoDel's median delay is far below tail drop's (< 1/10)"]["verdict"] == "holds"


@pytest.fixture(scope="module")
def cellular(quick_all):
    return quick_all[0] / "cellular"


def test_cli_prints_the_claims(tmp_path):
    out = tmp_path / "cellular"
    r = run_cli("reproduce", "cellular", "--quick", "--seeds", "2", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "published" in r.stdout and "aqmlab" in r.stdout
    # The cellular main load draws nothing at random: two seeds are one run, and the report
    # says so instead of presenting means over seeds.
    doc = json.loads((out / "results.json").read_text())
    assert any("cs244-pages" in p for p in doc["identical_seeds"]), doc["identical_seeds"]
    md = (out / "report.md").read_text()
    assert "Seeds that drew nothing" in md and "which drew nothing at some points" in md


def test_cellular_report_and_findings(cellular):
    doc = json.loads((cellular / "results.json").read_text())
    assert "Verizon" in doc["parameters"]["trace_label"]
    cases = doc["numbers"]["cases"]
    # CS244: CoDel's delay below tail drop's; tail drop moves more bytes.
    assert cases["CoDel"]["p50_ms"] < cases["tail drop"]["p50_ms"]
    assert cases["tail drop"]["mb"] > cases["CoDel"]["mb"]
    # Nothing delivers more than the trace can carry.
    for v in cases.values():
        assert 0 < v["pct_of_capacity"] <= 100.0
    for f in doc["figures"]:
        assert (cellular / f).exists()


def test_cellular_takes_any_mahimahi_trace(tmp_path):
    from aqmlab.reproduce.mahimahi import capacity_bytes
    from aqmlab.reproduce.mahimahi import read_ms as read_trace_ms

    trace = tmp_path / "flat.down"
    trace.write_text("".join(f"{t}\n" for t in range(1, 1001)))  # 1504 B/ms = 12.032 Mb/s
    ms = read_trace_ms(str(trace))
    assert capacity_bytes(ms, 1.0) == 1000 * 1504
    assert capacity_bytes(ms, 2.5) == 2500 * 1504  # the trace repeats
    out = tmp_path / "out"
    r = run_cli("reproduce", "cellular", "--quick", "--trace", str(trace), "--out", str(out), "-q")
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "results.json").read_text())
    assert doc["parameters"]["trace_label"] == "flat.down"
    # What the trace can carry is the simulator's: a run of 30 s covers [0, 30 s), so of the
    # 30 periods' opportunities the one at exactly 30 s is not the run's.
    assert doc["numbers"]["trace_capacity_mb"] == 29_999 * 1504 / 1e6
    assert "not the Verizon trace" in doc["claims"][0]["note"]


def test_trace_option_belongs_to_cellular():
    r = run_cli("reproduce", "codel-dynamic", "--trace", "x.down")
    assert r.returncode == 2 and "--trace is an option of the cellular" in r.stderr


def test_bundled_synthetic_trace_is_what_its_script_writes(tmp_path):
    """The package's own trace is rebuilt byte for byte by scripts/make-synthetic-trace.py."""

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location(
        "mk", ROOT / "scripts" / "make-synthetic-trace.py"
    )
    mk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mk)
    made = "".join(f"{t}\n" for t in mk.opportunities(mk.rates_bps()))
    bundled = ROOT / "python" / "aqmlab" / "data" / "traces" / "aqmlab-synthetic.down"
    assert bundled.read_text() == made


def test_static_rates_quick(quick_all):
    out = quick_all[0] / "static-rates"
    doc = json.loads((out / "results.json").read_text())
    by_rate = doc["numbers"]["median_by_rate"]
    for rate, d in by_rate.items():
        # CoDel's median delay below tail drop's, at every rate (the article's Fig. 5).
        assert d["CoDel"]["p50_ms"] < d["tail drop"]["p50_ms"], rate
        for v in d.values():
            assert 0 < v["util"] <= 1.0
    # Tail drop's BDP buffer: its median delay is of the order of the 100 ms RTT when full.
    assert 40 < by_rate["10000"]["tail drop"]["p50_ms"] < 110
    for f in doc["figures"]:
        assert (out / f).exists()
    # The full rate × RTT grid ran (three disciplines at every point), and the slides' boxes
    # pool every RTT of a rate: CoDel's pooled median delay per rate lies within the range of
    # its per-RTT medians at that rate.
    p = doc["parameters"]
    assert doc["numbers"]["runs"] == len(p["rates_kbps"]) * len(p["rtts_ms"]) * 3
    pooled = doc["numbers"]["pooled_by_rate"]
    assert sorted(pooled, key=float) == [f"{r:g}" for r in p["rates_kbps"]]
    per_rtt = doc["numbers"]["median_by_rtt"]
    codel = [per_rtt[f"{t:g}"]["CoDel"]["p50_ms"] for t in p["rtts_ms"]]
    assert min(codel) <= pooled["10000"]["CoDel"]["p50_ms"] <= max(codel)
    claims = {c["claim"]: c for c in doc["claims"]}
    delay = claims["pooled over RTTs, CoDel's median delay is below tail drop's at every rate"]
    assert [x["point"] for x in delay["points"]] == [f"{r / 1000:g} Mb/s" for r in p["rates_kbps"]]
    assert delay["counterfactual"] == "tail drop in CoDel's place"
    assert any(f.endswith("delay_utilization_pooled_high.png") for f in doc["figures"])


def test_red_bursty_quick(quick_all):
    out = quick_all[0] / "red-bursty"
    doc = json.loads((out / "results.json").read_text())
    share = doc["numbers"]["node5_share_small_buffers"]
    bias = doc["numbers"]["node5_drop_bias_small_buffers"]
    # RED treats the bursty node 5 more fairly than tail drop with small buffers (FJ93
    # Figs. 13-14): its share of the drops is closer to its share of the throughput.
    assert bias["RED"] < bias["tail drop"]
    assert bias["tail drop"] > 1
    # Node 5's window (8 packets per 36 ms) caps it near 4 % of 45 Mb/s.
    assert share["RED"] < 5.0 and share["tail drop"] < 5.0
    for row in doc["numbers"]["part1"]:
        assert 0 < row["throughput"] <= 1.0 and row["avg_queue"] >= 0
    for f in doc["figures"]:
        assert (out / f).exists()


def test_lstf_codel_quick(quick_all):
    out = quick_all[0] / "lstf-codel"
    doc = json.loads((out / "results.json").read_text())
    runs = doc["numbers"]["runs"]
    codel = runs["CoDel, author (5 s / 100 s)"]
    # The author's units (target 5 s): CoDel never drops, every run is a 32-packet FIFO.
    assert codel["codel_drops"] == 0
    # The worst sojourn of a 32-packet queue of 1540-byte packets at 1.7 Mb/s is 0.23 s.
    assert 0 < codel["delay_s"]["mean"] < 32 * 1540 * 8 / 1.7e6
    for name, s in runs.items():
        assert s["queue_bytes"]["mean"] >= 0 and s["delay_s"]["std"] > 0, name
    # The paper's finding, LSTF-CoDel's lower mean delay than CoDel's, and the packet logs
    # are not kept (reduced in the worker).
    claims = {c["claim"]: c for c in doc["claims"]}
    assert claims["LSTF-CoDel's mean delay is below CoDel's at every α"]["verdict"] == "holds"
    assert not list((out / "sweep" / "runs").glob("*/packets.parquet"))
    assert list((out / "sweep" / "runs").glob("*/reduced.json"))
    assert "welch_t" in doc["numbers"]["tests"]
    # Tables VII-VIII at every α run, over the author's records and per packet, saying which;
    # α=0.5 over records is the graded row (numbers.tests).
    by_alpha = doc["numbers"]["tests_by_alpha"]
    assert sorted(by_alpha, key=float) == [f"{a:g}" for a in doc["parameters"]["alphas"]]
    for kinds in by_alpha.values():
        assert set(kinds) == {"value-change records", "per packet"}
        for t in kinds.values():
            assert t["welch_df"] > 0 and 0 <= t["welch_p_one_sided"] <= 1
            assert t["f_ci95"][0] < t["f"] < t["f_ci95"][1]
    assert by_alpha["0.5"]["value-change records"] == doc["numbers"]["tests"]
    titles = [t["title"] for t in doc["tables"]]
    assert any(t.startswith("Tables II-VI with both statistics") for t in titles)
    # Every differs names the hypotheses tested (statistic, noise, samples) and stays
    # unexplained.
    for c in doc["claims"]:
        if c["verdict"] == "differs":
            assert c["unexplained"] and c["hypotheses"], c["claim"]


def test_lstf_reduction_by_hand(tmp_path):
    """The per-run reduction on a packet log small enough to compute by hand."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    reduce_run = _lstf_reduce()

    # Three packets: 1000 B in the queue over [0, 2) s, 500 B over [1, 3) s, 1000 B over
    # [3, 4) s. Departures at 2, 3, 4 s with sojourns 2, 2, 1 s.
    table = pa.table(
        {
            "link": ["bottleneck"] * 3 + ["other"],
            "t_ns": [2_000_000_000, 3_000_000_000, 4_000_000_000, 5],
            "sojourn_ns": [2_000_000_000, 2_000_000_000, 1_000_000_000, 7],
            "size": [1000, 500, 1000, 1],
            "flow": [0, 1, 0, 9],
        }
    )
    pq.write_table(table, tmp_path / "packets.parquet")
    out = reduce_run(str(tmp_path), {}, {"links[2].params.alpha": 0.5})
    assert out["packets"] == 3
    assert out["delay_s"]["mean"] == pytest.approx(5 / 3)
    assert out["delay_s"]["var"] == pytest.approx(((1 / 3) ** 2 * 2 + (2 / 3) ** 2) / 2)
    # Queue bytes over [0, 4): 1000 on [0,1), 1500 on [1,2), 500 on [2,3), 1000 on [3,4).
    assert out["queue_bytes"]["mean"] == pytest.approx((1000 + 1500 + 500 + 1000) / 4)
    assert out["queue_bytes"]["var"] == (0 + 500**2 + 500**2 + 0) / 4
    # Slack: 0.5·2 = 1, then 0.5·1 + 0.5·2 = 1.5, then 0.5·1.5 + 0.5·1 = 1.25.
    assert out["slack_s"]["mean"] == pytest.approx((1 + 1.5 + 1.25) / 3)
    # The author's statistic, over Trace/Var records (one per change of the value): the
    # sojourns 2, 2, 1 write 2 and 1; the queue after each of the six events (arrivals at 0,
    # 1, 3 s, departures at 2, 3, 4 s; at 3 s the arrival first) 1000, 1500, 500, 1500, 1000, 0.
    assert out["delay_s_changes"]["mean"] == pytest.approx(1.5)
    assert out["queue_bytes_changes"]["mean"] == pytest.approx(5500 / 6)
    assert out["slack_s_changes"]["mean"] == pytest.approx((1 + 1.5 + 1.25) / 3)


def _lstf_reduce_args() -> dict:
    """The arguments lstf-codel's experiment.toml declares for its reducer
    (``[sweep.reduce.packet_log]``)."""
    from aqmlab.reproduce import builtin_folder, packet_log
    from aqmlab.reproduce.folder import load

    (sweep,) = load(builtin_folder("lstf-codel")).sweeps
    assert sweep.reduce == packet_log.REDUCER
    return sweep.reduce_args


def _lstf_reduce():
    """lstf-codel's per-run reducer: the package's packet-log reducer with its declared
    arguments."""
    import functools

    from aqmlab.reproduce import packet_log

    return functools.partial(packet_log.reduce_run, **_lstf_reduce_args())


def test_lstf_time_weighted_queue_exact_and_order_free():
    """The queue's time-weighted moments: exact on a case computed by hand, and bit-identical
    whatever the order of the steps (a dot product's rounding depends on it)."""
    import numpy as np
    from aqmlab.reproduce.packet_log import time_weighted_moments as moments

    # 1000 B for 1 s, 1500 for 1 s, 500 for 1 s, 1000 for 1 s: mean 1000, variance
    # (0 + 500² + 500² + 0) / 4 = 125,000, both exact.
    q = moments(np.array([1000, 1500, 500, 1000]), np.array([10**9] * 4))
    assert q == {"mean": 1000.0, "var": 125000.0, "std": math.sqrt(125000.0)}
    rng = np.random.default_rng(7)
    n = 200_000
    level = rng.integers(0, 49_280, n)
    dt = rng.integers(1, 50_000_000, n)
    a = moments(level, dt)
    perm = rng.permutation(n)
    assert moments(level[perm], dt[perm]) == a
    assert moments(level[::-1], dt[::-1]) == a
    # Against exact rational arithmetic: the mean is the correctly rounded quotient.
    from fractions import Fraction

    span = int(dt.sum())
    exact_mean = Fraction(int(np.dot(level.astype(object), dt.astype(object))), span)
    assert a["mean"] == float(exact_mean)
    # The variance agrees with exact arithmetic to rounding (its terms use the rounded mean).
    lv, t = level[:2000].tolist(), dt[:2000].tolist()
    m = Fraction(sum(v * w for v, w in zip(lv, t)), sum(t))
    exact_var = sum((v - m) ** 2 * w for v, w in zip(lv, t)) / sum(t)
    assert moments(level[:2000], dt[:2000])["var"] == pytest.approx(float(exact_var), rel=1e-14)


def _lstf_reordered_log(path):
    """A packet log as LSTF writes one: in departure order, its arrivals (departure - sojourn)
    out of order. Times on a 10-ms grid, so arrivals and departures share times; sojourns
    repeat; one packet waits from 1 s to the end, across every batch; rows of another link
    in between, and a row group of those only."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(11)
    n = 3000
    step = 10_000_000
    dep = np.cumsum(rng.integers(0, 3, n)) * 25 * step + 2 * 10**9  # to about 750 s
    soj = rng.choice([0, 1, 1, 2, 3, 5, 8, 40, 200], n) * step
    soj[n // 3] = dep[n // 3] - 10**9  # arrived at 1 s
    dep[n // 3 :] += int(soj[n // 3])
    soj[n // 3] += dep[-1] - dep[n // 3]  # ... and left last of all
    dep = np.sort(dep)
    soj = np.minimum(soj, dep)
    size = rng.choice([40, 210, 1540], n)
    link = np.where(rng.random(n) < 0.1, "other", "bottleneck")
    link[1000:1500] = "other"  # a row group without the bottleneck's
    pq.write_table(
        pa.table({"link": link, "t_ns": dep, "sojourn_ns": soj, "size": size}),
        path,
        row_group_size=500,
    )
    keep = link == "bottleneck"
    return dep[keep].tolist(), soj[keep].tolist(), size[keep].tolist()


def _lstf_reference(dep, soj, size, alpha):
    """lstf-codel's statistics by their definitions, in memory, in exact arithmetic (each
    float64 statistic the correctly rounded value of its formula)."""
    from fractions import Fraction

    import numpy as np

    def changes(x):
        return [v for i, v in enumerate(x) if i == 0 or v != x[i - 1]]

    def int_moments(x, scale):
        n = len(x)
        mean = Fraction(sum(x), n * scale)
        var = sum((Fraction(v, scale) - mean) ** 2 for v in x) / (n - 1)
        return {"mean": float(mean), "var": float(var), "std": math.sqrt(float(var))}

    def float_moments(x):
        mean = float(sum(Fraction(v) for v in x) / len(x))
        var = float(sum(Fraction((v - mean) ** 2) for v in x) / (len(x) - 1))
        return {"mean": mean, "var": var, "std": math.sqrt(var)}

    def picks(x):
        idx = np.linspace(0, len(x) - 1, 500).round().astype(int)
        return [x[i] / 1e9 for i in idx]

    out = {"packets": len(soj)}
    out["delay_s"] = int_moments(soj, 10**9)
    out["delay_s_changes"] = int_moments(changes(soj), 10**9)
    slack, s = [], 0.0
    for d in soj:
        s = (1 - alpha) * s + alpha * (d / 1e9)
        slack.append(s)
    out["slack_s"] = float_moments(slack)
    out["slack_s_changes"] = float_moments(changes(slack))
    late = [d for t, d in zip(dep, soj) if t >= 300 * 10**9]
    out["samples_s"] = picks(late)
    out["samples_changes_s"] = picks(changes(late))
    # The queue: every arrival and departure by time, an arrival first at one time, then in
    # log order.
    events = sorted(
        [(t - d, 0, i, b) for i, (t, d, b) in enumerate(zip(dep, soj, size))]
        + [(t, 1, i, -b) for i, (t, b) in enumerate(zip(dep, size))]
    )
    level, levels = 0, []
    for e in events:
        level += e[3]
        levels.append(level)
    out["queue_bytes_changes"] = int_moments(changes(levels), 1)
    span = events[-1][0] - events[0][0]
    dts = [b[0] - a[0] for a, b in zip(events, events[1:])]
    mean = Fraction(sum(v * t for v, t in zip(levels, dts)), span)
    var = sum((v - mean) ** 2 * t for v, t in zip(levels, dts)) / span
    out["queue_bytes"] = {"mean": float(mean), "var": float(var), "std": math.sqrt(var)}
    return out


def test_lstf_streamed_reduction_equals_the_definitions(tmp_path):
    """reduce_run reads the log in batches (issue 24: holding a three-day run's took 10 GB).
    On a log whose arrivals are out of order, with one packet waiting across every batch,
    it gives, at any batch size, exactly the statistics computed in memory from their
    definitions: the queue's events in time order, each sum exact."""
    dep, soj, size = _lstf_reordered_log(tmp_path / "packets.parquet")
    arrivals = [t - d for t, d in zip(dep, soj)]
    assert arrivals != sorted(arrivals) and len(set(dep)) < len(dep)
    ref = _lstf_reference(dep, soj, size, 0.25)
    assert len(ref["samples_changes_s"]) == 500
    reduce_run = _lstf_reduce()
    for batch in (1, 7, 64, 1 << 16):
        out = reduce_run(str(tmp_path), {}, {"links[2].params.alpha": 0.25}, batch_rows=batch)
        qvar = out["queue_bytes"].pop("var"), out["queue_bytes"].pop("std")
        rvar = ref["queue_bytes"]["var"], ref["queue_bytes"]["std"]
        # The queue's variance sums rounded terms (time_weighted_moments): to rounding.
        assert qvar == pytest.approx(rvar, rel=1e-14), batch
        assert out == {**ref, "queue_bytes": {"mean": ref["queue_bytes"]["mean"]}}, batch


def test_packet_log_reduces_to_the_declared_statistics_only(tmp_path):
    """``statistics`` picks what a run is reduced to: each one asked gives the same value as in
    the full reduction, and nothing else is written (``packets`` always); the slack's α is a
    number or the set key naming it, and a run without that key has no slack."""
    from aqmlab.reproduce.packet_log import STATISTICS, reduce_run

    _lstf_reordered_log(tmp_path / "packets.parquet")
    sets = {"links[2].params.alpha": 0.25}
    args = {"link": "bottleneck", "samples_after_s": 300.0, "batch_rows": 64}
    full = reduce_run(str(tmp_path), {}, sets, slack_alpha="links[2].params.alpha", **args)
    assert set(full) == {"packets", *STATISTICS}
    assert reduce_run(str(tmp_path), {}, {}, slack_alpha=0.25, **args) == full
    for some in (["delay_s"], ["queue_bytes"], ["samples_changes_s", "slack_s"]):
        got = reduce_run(str(tmp_path), {}, sets, statistics=some, slack_alpha=0.25, **args)
        assert got == {k: full[k] for k in ("packets", *some)}, some
    # No α in the run (CoDel's): no slack, the rest as before.
    got = reduce_run(str(tmp_path), {}, {}, slack_alpha="links[2].params.alpha", **args)
    assert got == {k: v for k, v in full.items() if not k.startswith("slack")}
    # Fewer packets after samples_after_s than samples: no samples; another link: none at all.
    late = reduce_run(str(tmp_path), {}, {}, statistics=["samples_s"], **{**args, "samples": 10**6})
    assert late == {"packets": full["packets"]}
    other = reduce_run(str(tmp_path), {}, {}, statistics=["delay_s"], link="other")
    assert 0 < other["packets"] < full["packets"]


def test_lstf_reduction_independent_of_blas_threads(tmp_path):
    """reduce_run gives bit-identical statistics whether OpenBLAS runs one thread or two (the
    sweep's worker processes and its own process may run different numbers): on the old
    reducer, whose queue variance was a dot product, they differed in the last digits."""
    import subprocess
    import sys

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(3)
    n = 60_000  # above OpenBLAS's 10,000-element threshold for a threaded ddot
    size = rng.choice([210, 1540], n)
    gap = rng.integers(100_000, 8_000_000, n)
    dep = np.cumsum(gap) + 10**9
    soj = rng.integers(0, 40_000_000, n)
    soj = np.minimum(soj, dep)
    pq.write_table(
        pa.table({"link": ["bottleneck"] * n, "t_ns": dep, "sojourn_ns": soj, "size": size}),
        tmp_path / "packets.parquet",
    )
    code = (
        "import json, sys\n"
        "from aqmlab.reproduce.packet_log import reduce_run\n"
        "args = json.loads(sys.argv[1])\n"
        "out = reduce_run(sys.argv[2], {}, {'links[2].params.alpha': 0.5}, **args)\n"
        "print(json.dumps(out, sort_keys=True))\n"
    )
    outs = []
    for threads in ("1", "2"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads)
        r = subprocess.run(
            [sys.executable, "-c", code, json.dumps(_lstf_reduce_args()), str(tmp_path)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        outs.append(r.stdout)
    assert outs[0] == outs[1]
    assert json.loads(outs[0])["queue_bytes"]["var"] > 0


def test_consumer_edge_quick(quick_all):
    out = quick_all[0] / "consumer-edge"
    doc = json.loads((out / "results.json").read_text())
    cells = doc["numbers"]["cells"]
    for rate, b in doc["numbers"]["best_buffer"].items():
        for d in ("down", "up"):
            c, t = cells[f"{rate}|{b}|codel|{d}"], cells[f"{rate}|{b}|droptail|{d}"]
            # The slides: CoDel never drops at a higher rate than tail drop.
            assert c["drop_pct"] <= t["drop_pct"] + 1e-9, (rate, d)
            assert 0 <= c["fairness"] <= 1 and 0 <= t["fairness"] <= 1
            # The fairness C/T claims grade CoDel's index over tail drop's at that buffer.
            ct = next(x for x in doc["claims"] if x["id"] == f"{_slug(rate)}-{d}-fairness-ct")
            assert ct["verdict"] in ("agrees", "differs")
            assert float(ct["ours"]) == pytest.approx(
                100 * c["fairness"] / t["fairness"], rel=5e-3
            ), (rate, d)
    # The slides' 'Interesting "Fairness" Results': drawn, and not graded with a reason.
    assert "figures/fairness_vs_buffer.png" in doc["figures"]
    plot = next(x for x in doc["claims"] if x["id"] == "fairness-slide-plot")
    assert plot["verdict"].startswith("not graded: ") and "plot" in plot["verdict"]
    for f in doc["figures"]:
        assert (out / f).exists()


def _slug(rate: str) -> str:
    """A rate as consumer-edge's claim ids spell it ("1.5 Mb/s" -> "1_5mbs")."""
    return rate.replace(".", "_").replace(" ", "").replace("/", "").lower()


def test_red_vs_codel_quick(quick_all):
    out = quick_all[0] / "red-vs-codel"
    doc = json.loads((out / "results.json").read_text())
    cells = doc["numbers"]["cells"]
    assert {c["tcp"] for c in cells} == {"cubic", "vegas"}
    for c in cells:
        assert 0 < c["util"] <= 1.0
        if c["buffer"] == "10":
            # A 10-packet buffer of 1500-byte packets at 1 Mb/s holds 120 ms at most.
            assert c["delay_p99"] <= 121
    for f in doc["figures"]:
        assert (out / f).exists()


def test_every_figure_is_titled_with_its_source_and_coloured_by_discipline(quick_all):
    from aqmlab.reproduce import REPRODUCTIONS

    _, _, figures = quick_all
    # Every reproduction drew figures.
    assert {k.split(os.sep)[0] for k in figures} == set(REPRODUCTIONS)
    faults = [fault for name, f in figures.items() for fault in _figure_faults(name, f)]
    assert not faults, "\n".join(map(str, faults))


#: A numeric claim's ``why`` when claims.toml states none (common.numeric).
DEFAULT_WHY = "the source's printed precision"
#: How a qualitative/range claim is graded: what the loader puts after the claim's own reason.
GENERIC_WHY = (
    "qualitative: the predicate is also evaluated on the counterfactual",
    "every point of the range the claim names",
    "most point of the range the claim names",
)


def _not_the_printed_digit(published: str, tolerance: str) -> str:
    """Why ``tolerance`` is not the default allowance of ``published`` (half a unit in its last
    printed digit, nothing added), or "" when it is. Worked out here from the printed text,
    not with common.printed_precision."""
    from decimal import Decimal

    half = 0.5 * 10.0 ** Decimal(published.strip()).as_tuple().exponent
    m = re.fullmatch(r"±(\S+) \(printed as (\S+) \(±(\S+)\)\); .*", tolerance)
    if m is None:
        return f"tolerance {tolerance!r}: more than the printed digit's allowance"
    if m[2] != published or not math.isclose(float(m[1]), half, rel_tol=1e-9):
        return f"tolerance {tolerance!r}: the allowance is not ±{half:g} ({published!r})"
    return ""


def test_the_default_tolerance_is_half_the_last_printed_digit():
    ok = "±0.05 (printed as 2.7 (±0.05)); one seed: no CI"
    assert _not_the_printed_digit("2.7", ok) == ""
    assert _not_the_printed_digit("0.00859185", "±5e-09 (printed as 0.00859185 (±5e-09)); x") == ""
    # A read-off added without a reason, or an allowance wider than the digit, is caught.
    assert _not_the_printed_digit("75", "±3 (printed as 75 (±0.5), read-off ±2.5); x")
    assert _not_the_printed_digit("2.7", "±0.5 (printed as 2.7 (±0.5)); one seed: no CI")


def test_every_claim_carries_its_tolerance_or_counterfactual(quick_all):
    out, done, _ = quick_all
    for name in done:
        if name == "index.html":
            continue
        doc = json.loads((out / name / "results.json").read_text())
        assert doc["claims"], name
        for c in doc["claims"]:
            v = c["verdict"]
            assert v in VERDICTS or v.startswith("not graded: "), (name, c["claim"], v)
            if c["kind"] == "numeric" and not v.startswith("not graded"):
                assert c["tolerance"] and c["why"] and c["precision"], (name, c["claim"])
                if c["why"] == DEFAULT_WHY:
                    # No reason stated: the allowance must be exactly the documented default,
                    # half a unit in the source's last printed digit, with nothing added.
                    problem = _not_the_printed_digit(c["published"], c["tolerance"])
                    assert not problem, (name, c["claim"], problem)
            if c["kind"] in ("qualitative", "range"):
                assert c["counterfactual"] and c["counterfactual_verdict"], (name, c["claim"])
                # The threshold's reason (claims.toml's `why`) comes before how it is graded.
                assert c["why"].split("; ")[0] not in GENERIC_WHY, (name, c["claim"], c["why"])
                # A claim that also holds on its counterfactual is never reported as holding.
                if c["counterfactual_verdict"] == "holds":
                    assert v != "holds", (name, c["claim"])
            if v == "differs":
                assert c["explanation"], (name, c["claim"])
        md = (out / name / "report.md").read_text()
        assert "counterfactual → its verdict" in md and "tolerance (why)" in md


def test_red_bursty_stalled_runs_are_no_wins():
    """red-bursty's own claim, graded on synthetic runs: at "q8" both arms stalled (under 0.1
    of the link) with RED ahead, at "q20" both ran. No quick run stalls since the Tahoe fix,
    so the rule is exercised here, on the claim as claims.toml declares it."""
    from aqmlab.reproduce import builtin_folder
    from aqmlab.reproduce import common as cm
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context, grade

    exp = load(builtin_folder("red-bursty"))
    (c,) = [c for c in exp.claims if c.id == "red-higher-throughput-same-queue"]
    arms = [*c.arms, *c.counterfactual_arms]
    values = {"q8": (0.05, 0.03, 0.03, 0.05), "q20": (0.95, 0.90, 0.90, 0.95)}
    util = {"q8": 0.04, "q20": 0.93}
    fig56 = {a: {p: v[i] for p, v in values.items()} for i, a in enumerate(arms)}
    fig56["utilization"] = {a: dict(util) for a in arms}
    ctx = Context(exp, "/nonexistent", True, [1], None, False, {}, {})
    ctx.numbers["_fig56"] = fig56
    # The claim's per_seed (experiment.toml's _fig56_seeds): one seed, no noise band.
    ctx.numbers["_fig56_seeds"] = {a: {p: [v] for p, v in fig56[a].items()} for a in arms}
    g = grade(c, ctx, None)
    # The stalled point is listed as failing, never as a win; no point truly fails, so the
    # claim cannot discriminate (docs/reproductions.md, "Verdicts").
    assert g.failing == ["q8 (stalled)"], g.failing
    assert [p["ok"] for p in g.points] == [False, True]
    assert g.verdict == cm.CANNOT and g.ours == "1 of 2 points (1 stalled)"
    # RED behind tail drop at a live "q12" (0.85 against 0.90): the claim does not hold.
    for i, a in enumerate(arms):
        fig56[a]["q12"] = (0.85, 0.90, 0.90, 0.85)[i]
        fig56["utilization"][a]["q12"] = 0.93
        ctx.numbers["_fig56_seeds"][a]["q12"] = [fig56[a]["q12"]]
    g = grade(c, ctx, None)
    assert g.verdict == cm.FAILS and g.failing == ["q8 (stalled)", "q12"], g.failing
    # Every point stalled: evidence for neither order, so the claim cannot discriminate.
    fig56["utilization"] = {a: {"q8": 0.04, "q20": 0.02} for a in arms}
    for a in arms:
        del fig56[a]["q12"], ctx.numbers["_fig56_seeds"][a]["q12"]
    g = grade(c, ctx, None)
    assert g.verdict == cm.CANNOT and "every point is a tie" in g.note


_UNITS = {"Gbps": 1e9, "Mbps": 1e6, "kbps": 1e3, "bps": 1.0, "ms": 1e-3, "us": 1e-6, "s": 1.0}


def _quantity(text) -> float:
    """A resolved scenario's "100Mbps", "10ms" or "500" as a number (b/s, s, bytes)."""
    m = re.fullmatch(r"([0-9.eE+-]+)\s*([A-Za-z]*)", str(text))
    assert m, text
    return float(m[1]) * _UNITS.get(m[2], 1.0)


def _ns2_red_faults(params: dict) -> list[str]:
    """Where a resolved RED's ``params`` differ from what ns-2.35's Queue/RED would run on the
    same link with ``adaptive_`` as set and every other parameter at its default
    (ns-2.35 red.cc initialize_params and reset; tests/fidelity/ns2/README.md)."""
    faults = []
    c = _quantity(params["bandwidth"]) / (8 * _quantity(params["mean_pkt_size"]))
    # q_weight_ -1, which ns-2.35 keeps with adaptive_ 1: the link-delay rule.
    rtt = max(0.1, 3 * (_quantity(params["delay"]) + 1 / c))
    ns2_w_q = 1 - math.exp(-1 / (10 * rtt * c))
    w_q = params["w_q"]
    if w_q == "auto":  # ours: ARED's 1-exp(-1/C) with adaptive = true, else the link rule
        w_q = 1 - math.exp(-1 / c) if params["adaptive"] else ns2_w_q
    if not math.isclose(w_q, ns2_w_q, rel_tol=1e-12):
        faults.append(f"w_q {w_q!r}, ns-2.35's {ns2_w_q!r}")
    if params["adaptive"] and params["gentle"] and params["gentle_slope"] != "initial":
        faults.append(f"gentle_slope {params['gentle_slope']!r}, ns-2.35's 'initial'")
    return faults


def test_codel_dynamic_red_is_ns2_defaults(codel_dynamic):
    doc = json.loads((codel_dynamic / "results.json").read_text())
    cases = doc["parameters"]["cases"]
    for name in ("RED (ns-2.35 defaults)", "Adaptive RED (ns-2.35 defaults)"):
        assert cases[name]["dumbbell.bottleneck.params.mode"] == "byte"
        assert cases[name]["dumbbell.bottleneck.buffer"] == "415000B"  # 830 × 500 B
    # The arms as they ran: every resolved RED bottleneck is ns-2.35's, gentle slope and w_q.
    import tomllib

    reds = {}
    for path in sorted((codel_dynamic / "sweep" / "runs").glob("*/scenario.resolved.toml")):
        link = {x["name"]: x for x in tomllib.loads(path.read_text())["links"]}["bottleneck"]
        if link["qdisc"] == "red":
            reds.setdefault(link["params"]["adaptive"], []).append((path.parent.name, link))
    assert set(reds) == {False, True}, "a RED and an Adaptive RED run"
    faults = [
        (run, d, fault)
        for runs in reds.values()
        for run, link in runs
        for d, params in (("forward", link["params"]), ("reverse", link["reverse"]["params"]))
        for fault in _ns2_red_faults(params)
    ]
    assert not faults, faults


def test_ns2_red_check_refuses_our_ared_rules():
    """The check above on its counterfactuals: our ARED's current-max_p gentle slope, and its
    1-exp(-1/C) w_q on a link where ns-2.35's delay rule gives another (50 ms: RTT 0.15 s)."""
    ared = {
        "bandwidth": "100Mbps",
        "mean_pkt_size": "500",
        "delay": "10ms",
        "w_q": 3.999920001063195e-05,
        "adaptive": True,
        "gentle": True,
        "gentle_slope": "initial",
    }
    assert _ns2_red_faults(ared) == []
    assert _ns2_red_faults({**ared, "w_q": "auto"}) == []  # the two rules agree at 10 ms
    assert _ns2_red_faults({**ared, "gentle_slope": "current"}) != []  # the old arm
    assert _ns2_red_faults({**ared, "w_q": "auto", "delay": "50ms"}) != []
    assert _ns2_red_faults({**ared, "w_q": "auto", "delay": "50ms", "adaptive": False}) == []
