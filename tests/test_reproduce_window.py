"""Per-run columns from each run's series over a window (docs/reproductions.md, "Metrics as
data": ``[[window]]``): the columns a window adds with exact values, its ``where`` and
``sweeps``, ``{param}`` times, flows that delivered nothing, a real run's series read, and the
one-line errors naming the file and the key."""

from __future__ import annotations

import math

import pytest

pd = pytest.importorskip("pandas")

PATH = "/r/experiment.toml"


def _load(doc):
    from aqmlab.reproduce.series_window import load

    return load(PATH, doc, ["sweep", "other"])


def _fake(monkeypatch, calls):
    """window_stats and flow_bytes from a run's key and the window: run ``rN`` sent ``N``
    thousand bytes a second over the window, and only run ``r2`` has a flow 7."""
    from aqmlab.reproduce import common

    def window_stats(run_dir, link, t0, t1):
        calls.append((run_dir, link, t0, t1))
        n = int(run_dir.rsplit("r", 1)[1])
        return {"bytes": n * 1e3 * (t1 - t0), "pkts": 2.0 * n, "drops": 3.0 * n, "avg_queue": n / 4}

    def flow_bytes(run_dir, t0, t1):
        n = int(run_dir.rsplit("r", 1)[1])
        return {0: 10.0 * n, 1: 5.0} | ({7: 1.5} if n == 2 else {})

    monkeypatch.setattr(common, "link_series", lambda run_dir, link: [link])  # not empty
    monkeypatch.setattr(common, "window_stats", window_stats)
    monkeypatch.setattr(common, "flow_bytes", flow_bytes)


def _frame():
    return pd.DataFrame({"run": ["r1", "r2", "r3"], "tcp": ["tahoe", "tahoe", "reno"]})


def test_a_window_adds_the_links_and_flows_columns(monkeypatch):
    from aqmlab.reproduce.series_window import add

    calls: list = []
    _fake(monkeypatch, calls)
    (w,) = _load(
        [
            {
                "name": "w",
                "link": "bottleneck",
                "from_s": 1,
                "to_s": "{end}",
                "flows": True,
                "where": "tcp == 'tahoe'",
            }
        ]
    )
    df = add(_frame(), [w], "sweep", "/out/sweep/runs", lambda t: t.format(end=10))
    assert calls == [
        ("/out/sweep/runs/r1", "bottleneck", 1.0, 10.0),
        ("/out/sweep/runs/r2", "bottleneck", 1.0, 10.0),
    ]
    assert list(df["w.bytes"][:2]) == [9000.0, 18000.0]
    assert list(df["w.pkts"][:2]) == [2.0, 4.0]
    assert list(df["w.drops"][:2]) == [3.0, 6.0]
    assert list(df["w.avg_queue"][:2]) == [0.25, 0.5]
    assert list(df["w.flows[0].delivered_bytes"][:2]) == [10.0, 20.0]
    # Flow 7 delivered nothing in r1's window: 0 there, not missing.
    assert list(df["w.flows[7].delivered_bytes"][:2]) == [0.0, 1.5]
    # The run `where` leaves out has no value, and was not read.
    assert all(math.isnan(df[c].iloc[2]) for c in df.columns if c.startswith("w."))
    assert list(df.columns[:2]) == ["run", "tcp"]


def test_a_window_reads_only_its_sweeps_and_no_flows_unless_asked(monkeypatch):
    from aqmlab.reproduce.series_window import add

    calls: list = []
    _fake(monkeypatch, calls)
    (w,) = _load([{"name": "q", "link": "up", "from_s": 0.5, "to_s": 2.5, "sweeps": ["other"]}])
    assert add(_frame(), [w], "sweep", "/o", lambda t: t).equals(_frame())
    df = add(_frame(), [w], "other", "/o", lambda t: t)
    assert sorted(c for c in df.columns if c.startswith("q.")) == [
        "q.avg_queue",
        "q.bytes",
        "q.drops",
        "q.pkts",
    ]
    assert list(df["q.bytes"]) == [2000.0, 4000.0, 6000.0] and calls[0][1:] == ("up", 0.5, 2.5)


def test_a_real_runs_series_is_read(tmp_path):
    """A short run of a bundled scenario: the window's bytes are the series' egress bytes
    over its bins, and each of its five flows has a column."""
    from aqmlab.reproduce.series_window import add
    from aqmlab.results import Run
    from aqmlab.run import run

    run_dir = tmp_path / "runs" / "k"
    run("red-bursty", out=str(run_dir), set={"duration": "2s"})
    (w,) = _load([{"name": "w", "link": "bottleneck", "from_s": 0, "to_s": 2, "flows": True}])
    df = add(pd.DataFrame({"run": ["k"]}), [w], "sweep", str(tmp_path / "runs"), lambda t: t)
    s = Run(str(run_dir)).link_series("bottleneck")
    assert df["w.bytes"].iloc[0] == float(s["egress_bytes"].sum()) > 0
    flows = [c for c in df.columns if c.startswith("w.flows[")]
    assert len(flows) == 5 and df[flows].iloc[0].sum() > 0
    # A link the run does not have is an error, not a window of zeros.
    from aqmlab.exceptions import AqmlabError

    (bad,) = _load([{"name": "w", "link": "nolink", "from_s": 0, "to_s": 2}])
    with pytest.raises(AqmlabError) as e:
        add(pd.DataFrame({"run": ["k"]}), [bad], "sweep", str(tmp_path / "runs"), lambda t: t)
    assert str(e.value) == (
        f"{PATH}: window[0]: run k of sweep 'sweep': the run has no series of link 'nolink': "
        "not its link"
    )


@pytest.mark.parametrize(
    "doc, expected",
    [
        (
            {"link": "b", "from_s": 0, "to_s": 1},
            "window[0].name: expected the columns' prefix (a name), got None",
        ),
        (
            {"name": "w", "from_s": 0, "to_s": 1},
            "window[0].link: expected a link's name (a text), got None",
        ),
        (
            {"name": "w", "link": "b", "from_s": -1, "to_s": 1},
            'window[0].from_s: expected a time in seconds (a number >= 0, or "{param}"), got -1',
        ),
        (
            {"name": "w", "link": "b", "from_s": 2, "to_s": 1},
            "window[0].to_s: expected a time after from_s (2), got 1",
        ),
        (
            {"name": "w", "link": "b", "from_s": 0, "to_s": "ten"},
            "window[0].to_s: expected a time in seconds",
        ),
        (
            {"name": "w", "link": "b", "from_s": 0, "to_s": 1, "flows": 1},
            "window[0].flows: expected true or false, got 1",
        ),
        (
            {"name": "w", "link": "b", "from_s": 0, "to_s": 1, "sweeps": ["x"]},
            "window[0].sweeps: expected names of [[sweep]]s (sweep, other), got ['x']",
        ),
        (
            {"name": "w", "link": "b", "from_s": 0, "to_s": 1, "where": "a ="},
            "window[0].where: 'a =' is not an expression",
        ),
        (
            {"name": "w", "link": "b", "from_s": 0, "to_s": 1, "at": 1},
            "window[0].at: unknown key (expected one of name, link, from_s, to_s, flows, sweeps, "
            "where)",
        ),
    ],
)
def test_a_bad_window_is_one_line_naming_the_file_and_key(doc, expected):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _load([doc])
    msg = str(e.value)
    assert msg.startswith(f"{PATH}: ") and expected in msg and "\n" not in msg, msg


def test_a_missing_run_or_a_bad_time_is_one_line_at_run_time(tmp_path):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.series_window import add

    (w,) = _load([{"name": "w", "link": "b", "from_s": 0, "to_s": 1}])
    with pytest.raises(AqmlabError) as e:
        add(pd.DataFrame({"run": ["gone"]}), [w], "sweep", str(tmp_path), lambda t: t)
    assert str(e.value).startswith(f"{PATH}: window[0]: run gone of sweep 'sweep': ")
    assert "\n" not in str(e.value)
    (w,) = _load([{"name": "w", "link": "b", "from_s": "{a}", "to_s": "{b}"}])
    with pytest.raises(
        AqmlabError, match=r"window\[0\]\.to_s: expected a time after from_s \(3\), got 1$"
    ):
        add(pd.DataFrame({"run": ["x"]}), [w], "sweep", str(tmp_path), lambda t: t.format(a=3, b=1))
