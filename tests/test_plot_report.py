"""``aqmlab plot`` and ``aqmlab report``: every figure kind renders from a small run and a small
sweep, and the HTML report is self-contained and renders in a real browser."""

import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import run_cli
from test_sweep import WEB

RUN_FIGURES = ["delay", "cumulative", "throughput", "queue", "sojourn_cdf", "goodput"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("run")
    (d / "web.toml").write_text(WEB)
    out = d / "out"
    r = run_cli(
        "run", str(d / "web.toml"), "--out", str(out), "--compare", "bottleneck=droptail",
        "--packet-log", "bottleneck", "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("sweep")
    (d / "web.toml").write_text(WEB)
    out = d / "out"
    r = run_cli(
        "sweep", str(d / "web.toml"), "--vary", "dumbbell.bottleneck.rate=5Mbps,10Mbps",
        "--qdisc", "bottleneck=droptail,codel", "--seeds", "1-2", "--out", str(out), "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    return out


def _nonblank_png(path) -> bool:
    import matplotlib.image as mpimg

    img = mpimg.imread(str(path))
    return img.shape[0] > 100 and img.shape[1] > 100 and float(img[..., :3].std()) > 0.01


def test_run_figures_render_with_every_arm(run_dir):
    r = run_cli("plot", str(run_dir))
    assert r.returncode == 0, r.stderr
    for name in RUN_FIGURES:
        for ext in ("png", "svg"):
            assert (run_dir / "figures" / f"{name}.{ext}").stat().st_size > 1000, name
        assert _nonblank_png(run_dir / "figures" / f"{name}.png")
    svg = (run_dir / "figures" / "delay.svg").read_text()
    # Both arms are in one figure, with labelled axes and units.
    assert "as written: codel" in svg and "bottleneck=droptail" in svg
    assert "queueing delay (ms)" in svg and "time (s)" in svg


def test_run_delay_axes_are_labelled_in_plain_numbers_from_0(run_dir, monkeypatch):
    """The delay figure's y axis and the sojourn CDF's x axis, symmetric log scales, are
    labelled 0, 1, 10, 100 ... (style.delay_axis), not 10^n, and start at 0."""
    import importlib

    plot = importlib.import_module("aqmlab.plot")
    seen = {}

    def record(fig, folder, name):
        fig.canvas.draw()
        axis = fig.axes[0].yaxis if name == "delay" else fig.axes[0].xaxis
        lo, hi = sorted(axis.get_view_interval())
        seen[name] = (
            [
                t.get_text()
                for t in axis.get_majorticklabels()
                if lo <= t.get_position()[name == "delay"] <= hi
            ],
            lo,
        )
        return []

    monkeypatch.setattr(plot, "_save", record)
    plot.plot_run(str(run_dir), out=str(run_dir / "figures-test"))
    for name in ("delay", "sojourn_cdf"):
        labels, lo = seen[name]
        assert lo == 0 and labels[:3] == ["0", "1", "10"], (name, labels)
        assert all(re.fullmatch(r"\d+", t) for t in labels), (name, labels)


def test_run_figures_without_a_packet_log_use_the_bins(tmp_path):
    (tmp_path / "web.toml").write_text(WEB)
    out = tmp_path / "out"
    assert run_cli("run", str(tmp_path / "web.toml"), "--out", str(out), "-q").returncode == 0
    r = run_cli("plot", str(out), "--link", "bottleneck.rev")
    assert r.returncode == 0, r.stderr
    assert "per-bin mean" in (out / "figures" / "delay.svg").read_text()


def test_sweep_figures_render(sweep_dir):
    r = run_cli("plot", str(sweep_dir))
    assert r.returncode == 0, r.stderr
    figs = os.listdir(sweep_dir / "figures")
    for stem in (
        "bottleneck.sojourn_ms.p50_vs_dumbbell.bottleneck.rate",
        "total.goodput_bps_vs_dumbbell.bottleneck.rate",
        "delay_throughput",
    ):
        assert f"{stem}.png" in figs and f"{stem}.svg" in figs, stem
        assert _nonblank_png(sweep_dir / "figures" / f"{stem}.png")
    svg = (sweep_dir / "figures" / "delay_throughput.svg").read_text()
    assert "qdisc:bottleneck = codel" in svg and "total goodput (Mb/s)" in svg
    # --x and --by choose the axes; a metric can be named.
    r = run_cli(
        "plot", str(sweep_dir), "--x", "qdisc:bottleneck", "--by", "dumbbell.bottleneck.rate",
        "--metric", "bottleneck.dropped_pkts",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert (sweep_dir / "figures" / "bottleneck.dropped_pkts_vs_qdisc_bottleneck.png").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--x", "nope"], "--x nope: not an axis of this sweep"),
        (["--metric", "nope"], "--metric nope: no such metric"),
    ],
)
def test_bad_plot_input_is_one_line(sweep_dir, args, message):
    r = run_cli("plot", str(sweep_dir), *args)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_plot_of_a_folder_that_is_neither(tmp_path):
    r = run_cli("plot", str(tmp_path))
    assert r.returncode == 2 and "neither a run folder" in r.stderr


def test_run_plot_names_an_unknown_link(run_dir):
    r = run_cli("plot", str(run_dir), "--link", "nope")
    assert r.returncode == 2 and "--link nope: no such link direction" in r.stderr


def _references(page: str) -> list[str]:
    return re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', page)


@pytest.mark.parametrize("which", ["run", "sweep"])
def test_report_is_self_contained(run_dir, sweep_dir, which):
    folder = run_dir if which == "run" else sweep_dir
    r = run_cli("report", str(folder))
    assert r.returncode == 0, r.stderr
    page = (folder / "report.html").read_text()
    refs = _references(page)
    assert refs, "the report embeds its figures"
    assert all(ref.startswith("data:image/png;base64,") for ref in refs), refs
    assert "<table>" in page
    if which == "sweep":
        assert "aqmlab sweep" in page  # the command that made it
        assert "95 % confidence" in page and "runs/" in page
    else:
        assert "bottleneck=droptail" in page and "Jain" in page


def test_a_sweep_report_shows_each_runs_manifest_as_written(sweep_dir, tmp_path, monkeypatch):
    """Each run's run.json, as the sweep wrote it, read through the one reader of run folders
    (aqmlab.results.Run.manifest: a manifest it gives is the one printed)."""
    import html

    from aqmlab import report, results

    page = tmp_path / "a.html"
    report.write_report(str(sweep_dir), out=str(page))
    text = page.read_text(encoding="utf-8")
    runs = sorted((sweep_dir / "runs").iterdir())
    assert len(runs) == 8
    for run in runs:
        written = (run / "run.json").read_text(encoding="utf-8")
        assert f"<pre>{html.escape(written)}</pre>" in text, run.name
    monkeypatch.setattr(results.Run, "manifest", property(lambda self: {"read by": "results"}))
    report.write_report(str(sweep_dir), out=str(page))
    text = page.read_text(encoding="utf-8")
    assert text.count(html.escape('{\n  "read by": "results"\n}\n')) == 8


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def test_report_renders_in_a_real_browser(sweep_dir, tmp_path):
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("CI installs chromium (.ci/run): the report must be tested in a browser")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    assert run_cli("report", str(sweep_dir)).returncode == 0
    shot = tmp_path / "shot.png"
    cmd = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,1800",
        f"--screenshot={shot}", (sweep_dir / "report.html").as_uri(),
    ]  # fmt: skip
    subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    assert shot.exists(), "chromium wrote no screenshot"
    assert _nonblank_png(shot)
    # The DOM the browser built holds every figure of the page.
    dom = subprocess.run(
        [*cmd[:-2], "--dump-dom", cmd[-1]], capture_output=True, text=True, timeout=120
    ).stdout
    assert dom.count("<img") == (sweep_dir / "report.html").read_text().count("<img") > 3


def test_flent_export_opens_in_flent(run_dir, tmp_path):
    import gzip
    import json

    r = run_cli("export", "--flent", str(run_dir), "--out", str(tmp_path / "x.flent.gz"))
    assert r.returncode == 0, r.stderr
    data = json.loads(gzip.decompress((tmp_path / "x.flent.gz").read_bytes()))
    assert data["version"] == 4 and data["metadata"]["NAME"] == "tcp_nup"
    n = len(data["x_values"])
    res = data["results"]
    assert data["metadata"]["TEST_PARAMETERS"]["upload_streams"] == "2"
    for name, vals in res.items():
        assert len(vals) == n, name
    # The sum is the sum of the streams; the bytes are the flows' own.
    for i in range(n):
        parts = [res[f"TCP upload::{k}"][i] for k in (1, 2) if res[f"TCP upload::{k}"][i]]
        if parts:
            assert res["TCP upload sum"][i] == pytest.approx(sum(parts))
    s = json.loads((run_dir / "summary.json").read_text())
    bits = sum(v for v in res["TCP upload::1"] if v) * 1e6 * s["bin_s"]
    assert bits / 8 == pytest.approx(s["flows"][0]["delivered_bytes"], rel=1e-9)
    # flent itself reads the file and draws its plot.
    pytest.importorskip("flent")
    png = tmp_path / "flent.png"
    cmd = [sys.executable, "-m", "flent", "-i", str(tmp_path / "x.flent.gz"), "-f", "plot",
           "-p", "totals", "-o", str(png)]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert png.stat().st_size > 10_000 and _nonblank_png(png)
