"""Windows of a run (docs/reproductions.md, "Windows of a run"): a [[window]] cuts a run's
packet log and link series by time into per-run columns, checked on a made-up run folder with
exact values; its errors are one line naming the file and the key."""

from __future__ import annotations

import json
import math

import pytest

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")

PATH = "/r/experiment.toml"


def _run(folder, packets, bins):
    """A run folder: ``packets`` (t_s, sojourn_ms) on link "b", and series ``bins``
    (t_s, egress_bytes, drops) of link "b" (a second link's rows must be left out)."""
    import pyarrow.parquet as pq

    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(json.dumps({}))
    links = ["b"] * len(packets) + ["other"]
    t_ns = [round(t * 1e9) for t, _ in packets] + [500_000_000]
    soj_ns = [round(s * 1e6) for _, s in packets] + [10**12]
    pq.write_table(
        pa.table({"link": links, "t_ns": t_ns, "sojourn_ns": soj_ns}), folder / "packets.parquet"
    )
    rows = [{"link": "b", "t_s": t, "egress_bytes": e, "drops": d} for t, e, d in bins]
    rows.append({"link": "other", "t_s": 0.0, "egress_bytes": 10**9, "drops": 99})
    pq.write_table(pa.Table.from_pandas(pd.DataFrame(rows)), folder / "links.parquet")
    return folder


WINDOW = {
    "name": "ph{i}",
    "link": "b",
    "length_s": "{len}",
    "fields": {"rate_mbps": [1, 2, 4]},
    "values": {
        "p50": {"column": "sojourn_ms", "reduce": "quantile", "q": 0.5},
        "p75": {"column": "sojourn_ms", "reduce": "quantile", "q": 0.75},
        "n": {"column": "sojourn_ms", "reduce": "count"},
        "mb": {"column": "egress_bytes", "reduce": "sum", "then": "x / 1e6"},
        "pct": {
            "column": "egress_bytes",
            "reduce": "sum",
            "then": "100 * x * 8 / ({rate_mbps} * 1e6 * ({t1} - {t0}))",
        },
        "drops": {"column": "drops", "reduce": "max"},
    },
}


def _columns(tmp_path, window=None, sweep="s"):
    from aqmlab.reproduce import windows

    runs = tmp_path / "runs"
    # Window 1 [0, 2): sojourns 1, 2, 3, 10 ms; window 2 [2, 4): 4 and 6 ms (one packet at
    # exactly 2.0 s belongs here); window 3 [4, 6): none.
    _run(runs / "r1", [(0.1, 1), (0.5, 3), (1.0, 2), (1.9, 10), (2.0, 4), (3.99, 6)], [
        (0.0, 100_000, 1), (1.0, 150_000, 3), (2.0, 500_000, 0), (3.0, 0, 2), (6.0, 7, 7),
    ])  # fmt: skip
    (w,) = windows.load(PATH, [window or WINDOW], ["s", "t"])
    df = pd.DataFrame({"run": ["r1"], "seed": [1]})
    return windows.columns(df, [w], sweep, str(runs), lambda t: t.replace("{len}", "2"))


def test_each_window_is_reduced_with_exact_values(tmp_path):
    r = _columns(tmp_path).iloc[0]
    # Packets' linear quantile: [1, 2, 3, 10] -> p50 2.5, p75 3 + 0.25 * 7 = 4.75.
    assert (r["ph1.p50"], r["ph1.p75"], r["ph1.n"]) == (2.5, 4.75, 4.0)
    assert (r["ph2.p50"], r["ph2.p75"], r["ph2.n"]) == (5.0, 5.5, 2.0)
    # Series bins starting in the window: 250,000 B in [0, 2) at 1 Mb/s for 2 s = 100 %.
    assert (r["ph1.mb"], r["ph1.pct"], r["ph1.drops"]) == (0.25, 100.0, 3.0)
    assert (r["ph2.mb"], r["ph2.pct"], r["ph2.drops"]) == (0.5, 100.0, 2.0)
    # The third window has no packet (NaN) and no bin (a sum of nothing is 0); the bin at 6 s
    # and link "other" are in no window.
    assert math.isnan(r["ph3.p50"]) and r["ph3.n"] == 0.0 and r["ph3.mb"] == 0.0
    assert math.isnan(r["ph3.drops"])


def test_a_window_applies_only_to_its_sweeps(tmp_path):
    df = _columns(tmp_path, {**WINDOW, "sweeps": ["t"]}, sweep="s")
    assert list(df.columns) == ["run", "seed"]


@pytest.mark.parametrize(
    "edit, expected",
    [
        ({"name": "ph"}, "window[0] ('ph').name: expected a template of {i}"),
        ({"link": 3}, "window[0] ('ph{i}').link: expected the link whose log is cut"),
        ({"length_s": -1}, "window[0] ('ph{i}').length_s: expected a positive number"),
        ({"fields": {"r": [1, 2]}, "count": 3}, "window[0] ('ph{i}').fields: expected lists of"),
        ({"fields": {"t0": [1]}}, "window[0] ('ph{i}').fields: expected a table of NAME = ["),
        ({"count": 0, "fields": {}}, "window[0] ('ph{i}').count: expected the number of"),
        ({"sweeps": ["u"]}, "window[0] ('ph{i}').sweeps: expected names of [[sweep]]s"),
        (
            {"values": {"p": {"column": "sojourn_ms", "reduce": "spread"}}},
            "window[0] ('ph{i}').values.p.reduce: expected mean or median or min",
        ),
        ({"bins": 3}, "window[0].bins: unknown key"),
    ],
)
def test_a_bad_window_is_one_line_naming_the_file_and_key(edit, expected):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce import windows

    with pytest.raises(AqmlabError) as e:
        windows.load(PATH, [{**WINDOW, **edit}], ["s", "t"])
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(PATH + ": ") and expected in msg, msg


@pytest.mark.parametrize(
    "length, expected",
    [("1e1", 10.0), ("ten", "'{len}' is 'ten', not a number of seconds"), ("0", "not positive")],
)
def test_a_length_from_a_parameter(length, expected):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce import windows

    (w,) = windows.load(PATH, [{**WINDOW, "start_s": 1.5}], ["s"])
    fill = lambda t: t.replace("{len}", length)  # noqa: E731
    if isinstance(expected, float):
        assert windows.bounds(w, fill) == [(1.5, 11.5), (11.5, 21.5), (21.5, 31.5)]
        return
    with pytest.raises(AqmlabError) as e:
        windows.bounds(w, fill)
    assert str(e.value).startswith(PATH + ": window[0] ('ph{i}').length_s: ") and expected in str(
        e.value
    )


def test_a_column_neither_log_has_is_one_line_at_run_time(tmp_path):
    from aqmlab.exceptions import AqmlabError

    bad = {**WINDOW, "values": {"x": {"column": "ingress_pkts", "reduce": "sum"}}}
    with pytest.raises(AqmlabError) as e:
        _columns(tmp_path, bad)
    assert "window[0] ('ph{i}').values: no column 'ingress_pkts' in link 'b'" in str(e.value)


# One window after a warm-up (start_s + end_s), a run's link and flows over it, only the runs
# `where` selects: red-bursty's form.
ONE = {
    "name": "w",
    "link": "b",
    "start_s": 1,
    "end_s": "{end}",
    "where": "tcp == 'tahoe'",
    "values": {
        "bytes": {"column": "egress_bytes", "reduce": "sum"},
        "pkts": {"column": "released_pkts", "reduce": "sum"},
        "drops": {"column": "drops", "reduce": "sum"},
        "avg_queue": {
            "column": "total_sojourn_ms",
            "reduce": "sum",
            "then": "x / 1e3 / ({t1} - {t0})",
        },
        "delivered_bytes": {"column": "flows.delivered_bytes", "reduce": "sum"},
    },
}


def _series_run(folder, n, flows):
    """Run ``rN``'s series: link "b"'s bins at 0.5 (before the window), 1, 2 and 3 s (3 s is
    the window's end: left out), each ``n`` × (1000 B, 2 packets released with a mean sojourn
    of 250 ms, 3 drops; the bin at 2 s releases none, its mean NaN), and ``flows`` (flow ->
    bytes in each bin from 1 s)."""
    import pyarrow.parquet as pq

    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(json.dumps({}))
    nan = float("nan")
    rows = [
        {"link": "b", "t_s": t, "egress_bytes": n * 1000, "released_pkts": p, "drops": 3 * n,
         "mean_sojourn_ms": m}
        for t, p, m in [(0.5, 2 * n, 250.0), (1.0, 2 * n, 250.0), (2.0, 0, nan), (3.0, 9, 9.0)]
    ]  # fmt: skip
    rows.append({"link": "other", "t_s": 1.0, "egress_bytes": 10**9, "released_pkts": 99,
                 "drops": 99, "mean_sojourn_ms": 1e6})  # fmt: skip
    pq.write_table(pa.Table.from_pandas(pd.DataFrame(rows)), folder / "links.parquet")
    frows = [
        {"flow": f, "t_s": t, "delivered_bytes": b}
        for f, b in flows.items()
        for t in (0.0, 1.0, 2.0, 3.0)
    ]
    pq.write_table(pa.Table.from_pandas(pd.DataFrame(frows)), folder / "flows.parquet")


def _one(tmp_path, window=None, sweep="s"):
    from aqmlab.reproduce import windows

    runs = tmp_path / "runs"
    _series_run(runs / "r1", 1, {0: 10, 1: 5})
    _series_run(runs / "r2", 2, {0: 20, 1: 5, 7: 3})
    _series_run(runs / "r3", 3, {0: 1})
    (w,) = windows.load(PATH, [window or ONE], ["s", "t"])
    df = pd.DataFrame({"run": ["r1", "r2", "r3"], "tcp": ["tahoe", "tahoe", "reno"]})
    return windows.columns(df, [w], sweep, str(runs), lambda t: t.format(end=3))


def test_one_window_adds_the_links_and_flows_columns(tmp_path):
    df = _one(tmp_path)
    # The bins at 1 and 2 s: r1 1000 + 1000 B, 2 + 0 packets, 3 + 3 drops.
    assert list(df["w.bytes"][:2]) == [2000.0, 4000.0]
    assert list(df["w.pkts"][:2]) == [2.0, 4.0]
    assert list(df["w.drops"][:2]) == [6.0, 12.0]
    # Little's law: 2n packets × 250 ms (the NaN bin released none) over the 2-s window.
    assert list(df["w.avg_queue"][:2]) == [0.25, 0.5]
    # Each flow's bytes in the bins at 1 and 2 s; flow 7 delivered nothing in r1: 0, not NaN.
    assert list(df["w.flows[0].delivered_bytes"][:2]) == [20.0, 40.0]
    assert list(df["w.flows[1].delivered_bytes"][:2]) == [10.0, 10.0]
    assert list(df["w.flows[7].delivered_bytes"][:2]) == [0.0, 6.0]
    # The run `where` leaves out has no value (r3's flow 0 is no reason for a value there).
    new = [c for c in df.columns if c.startswith("w.")]
    assert all(math.isnan(df[c].iloc[2]) for c in new)
    assert list(df.columns[:2]) == ["run", "tcp"] and new == [
        "w.bytes", "w.pkts", "w.drops", "w.avg_queue",
        "w.flows[0].delivered_bytes", "w.flows[1].delivered_bytes", "w.flows[7].delivered_bytes",
    ]  # fmt: skip


def test_one_window_applies_only_to_its_sweeps_and_reads_no_flows_unless_asked(tmp_path):
    values = {k: v for k, v in ONE["values"].items() if k != "delivered_bytes"}
    df = _one(tmp_path, {**ONE, "values": values, "sweeps": ["t"]}, sweep="s")
    assert list(df.columns) == ["run", "tcp"]
    (tmp_path / "runs" / "r1" / "flows.parquet").unlink()  # not read without flows.COLUMN
    df = _one(tmp_path / "again", {**ONE, "values": values, "where": ""})
    assert not [c for c in df.columns if ".flows[" in c]
    assert list(df["w.bytes"]) == [2000.0, 4000.0, 6000.0]


def test_a_real_runs_series_is_read(tmp_path):
    """A short run of a bundled scenario: the window's bytes are the series' egress bytes
    over its bins, and each of its five flows has a column."""
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce import windows
    from aqmlab.results import Run
    from aqmlab.run import run

    run_dir = tmp_path / "runs" / "k"
    run("red-bursty", out=str(run_dir), set={"duration": "2s"})
    doc = {**ONE, "link": "bottleneck", "start_s": 0, "end_s": 2, "where": ""}
    (w,) = windows.load(PATH, [doc], ["s"])
    df = windows.columns(pd.DataFrame({"run": ["k"]}), [w], "s", str(tmp_path / "runs"), str)
    s = Run(str(run_dir)).link_series("bottleneck")
    assert df["w.bytes"].iloc[0] == float(s["egress_bytes"].sum()) > 0
    flows = [c for c in df.columns if c.startswith("w.flows[")]
    assert len(flows) == 5 and df[flows].iloc[0].sum() > 0
    # A link the run does not have is an error, not a window of zeros.
    (bad,) = windows.load(PATH, [{**doc, "link": "nolink"}], ["s"])
    with pytest.raises(AqmlabError) as e:
        windows.columns(pd.DataFrame({"run": ["k"]}), [bad], "s", str(tmp_path / "runs"), str)
    assert str(e.value) == (
        f"{PATH}: window[0] ('w'): run {run_dir}: the run has no series of link 'nolink': "
        "not its link"
    )


@pytest.mark.parametrize(
    "edit, expected",
    [
        ({"start_s": -1}, "window[0] ('w').start_s: expected a number of seconds >= 0, or"),
        ({"start_s": "one"}, "window[0] ('w').start_s: expected a number of seconds >= 0, or"),
        ({"start_s": 2, "end_s": 1}, "window[0] ('w').end_s: expected a time after start_s (2)"),
        ({"end_s": "ten"}, "window[0] ('w').end_s: expected a number of seconds, or \"{param}\""),
        ({"length_s": 1}, "window[0] ('w'): expected one of length_s or end_s"),
        ({"count": 2}, "window[0] ('w').count: expected 1 with end_s (one window)"),
        ({"where": "a ="}, "window[0] ('w').where: 'a =' is not an expression"),
        ({"where": 3}, "window[0] ('w').where: expected an expression of the results' columns"),
        ({"name": "w x"}, "window[0].name: expected a template of {i}"),
    ],
)  # fmt: skip
def test_a_bad_one_window_is_one_line_naming_the_file_and_key(edit, expected):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce import windows

    with pytest.raises(AqmlabError) as e:
        windows.load(PATH, [{**ONE, **edit}], ["s", "t"])
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(PATH + ": ") and expected in msg, msg


def test_a_missing_run_a_flows_column_or_a_bad_time_is_one_line_at_run_time(tmp_path):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce import windows

    (w,) = windows.load(PATH, [{**ONE, "where": "", "end_s": 3}], ["s"])
    with pytest.raises(AqmlabError) as e:
        windows.columns(pd.DataFrame({"run": ["gone"]}), [w], "s", str(tmp_path), str)
    assert str(e.value).startswith(f"{PATH}: window[0] ('w'): run {tmp_path}/gone: ")
    assert "\n" not in str(e.value)
    bad = {**ONE, "values": {"x": {"column": "flows.cwnd", "reduce": "sum"}}}
    with pytest.raises(AqmlabError, match=r"\('w'\)\.values: no column 'flows\.cwnd' in link"):
        _one(tmp_path, bad)
    (w,) = windows.load(PATH, [{**ONE, "start_s": "{a}", "end_s": "{b}"}], ["s"])
    with pytest.raises(
        AqmlabError,
        match=r"window\[0\] \('w'\)\.end_s: expected a time after start_s \(3\), got 1$",
    ):
        windows.columns(
            pd.DataFrame({"run": ["x"]}), [w], "s", str(tmp_path), lambda t: t.format(a=3, b=1)
        )


def test_std_and_an_expression_of_the_series_columns(tmp_path):
    """red-traffic-check's bins: an expression of the series' columns as a value's column
    (``drops == 0``, its mean the share of such bins) and ``std`` (÷ n, a population's)."""
    spread = {
        **WINDOW,
        "values": {
            "quiet": {"column": "drops == 0", "reduce": "mean"},
            "sd": {"column": "drops", "reduce": "std"},
            "kb": {"column": "egress_bytes / 1000", "reduce": "max"},
        },
    }
    r = _columns(tmp_path, spread).iloc[0]
    # Window 1's bins: drops 1 and 3 (none quiet; std of {1, 3} as a population: 1, not the
    # sample's √2); window 2's: 0 and 2 (one of two quiet, std 1); window 3: no bin.
    assert (r["ph1.quiet"], r["ph1.sd"], r["ph1.kb"]) == (0.0, 1.0, 150.0)
    assert (r["ph2.quiet"], r["ph2.sd"], r["ph2.kb"]) == (0.5, 1.0, 500.0)
    assert math.isnan(r["ph3.quiet"]) and math.isnan(r["ph3.sd"])


@pytest.mark.parametrize(
    "column, expected",
    [
        ("drops ==", "window[0] ('ph{i}').values.x.column: "),
        ("nope == 0", "window[0] ('ph{i}').values: no column 'nope' in link 'b'"),
    ],
)
def test_a_bad_expression_column_is_one_line(tmp_path, column, expected):
    from aqmlab.exceptions import AqmlabError

    bad = {**WINDOW, "values": {"x": {"column": column, "reduce": "mean"}}}
    with pytest.raises(AqmlabError) as e:
        _columns(tmp_path, bad)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(PATH + ": ") and expected in msg, msg
