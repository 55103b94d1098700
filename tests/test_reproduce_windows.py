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
        ({"name": "ph"}, "window[0].name: expected a template of {i}"),
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
