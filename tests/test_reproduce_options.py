"""A reproduction's command-line options as data (``[options.NAME]``,
:mod:`aqmlab.reproduce.options`) and parameters computed from the others (``{ expr }``,
:mod:`aqmlab.reproduce.param_expr`, with ``trace_period_s``): docs/reproductions.md, "Options".
cellular's ``--trace`` is the example."""

from __future__ import annotations

import os

import pytest
from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce import builtin_folder, options, param_expr
from aqmlab.reproduce.folder import load

CELLULAR = load(builtin_folder("cellular"))
VERIZON = os.path.join(
    os.path.dirname(os.path.abspath(options.__file__)), "..", "data", "traces",
    "Verizon-LTE-short.down",
)  # fmt: skip


def flat(tmp_path, period_ms: int, name: str = "flat.down") -> str:
    """A trace of one opportunity a ms, 1..period_ms."""
    p = tmp_path / name
    p.write_text("".join(f"{t}\n" for t in range(1, period_ms + 1)))
    return str(p)


def params(mode: str, given: dict) -> dict:
    """cellular's parameters of ``mode`` after its options and ``{ expr }`` parameters."""
    p = dict(CELLULAR.modes[mode]["params"])
    options.apply(CELLULAR.options, given, p)
    param_expr.compute(p, mode)
    return p


def test_the_default_trace_and_its_period_set_a_full_run():
    p = params("full", {})
    assert p["trace"] == os.path.abspath(VERIZON)
    assert p["trace_label"] == "Verizon-LTE-short.down (mahimahi)"
    assert p["duration_s"] == 140.0  # the trace's last timestamp, 140000 ms
    assert params("quick", {})["duration_s"] == 30.0  # [quick]'s own


@pytest.mark.parametrize(
    ("period_ms", "duration_s"), [(1000, 60.0), (123_456, 123.456), (400_000, 300.0)]
)
def test_a_given_trace_sets_its_name_and_a_full_run_its_period_within_60_300_s(
    tmp_path, period_ms, duration_s
):
    trace = flat(tmp_path, period_ms)
    p = params("full", {"trace": os.path.relpath(trace)})
    assert (p["trace"], p["trace_label"], p["duration_s"]) == (trace, "flat.down", duration_s)


def test_an_option_no_reproduction_declares_and_a_missing_file_are_one_line(tmp_path):
    with pytest.raises(AqmlabError, match=r"^--rate: not an option of this reproduction$"):
        params("quick", {"rate": "x"})
    gone = str(tmp_path / "gone.down")
    with pytest.raises(AqmlabError, match=rf"^--trace {gone}: no such file$"):
        params("quick", {"trace": gone})


def test_trace_period_s_errors_name_the_function_and_the_line(tmp_path):
    bad = tmp_path / "bad.down"
    bad.write_text("1\nx\n")
    p = {"trace": str(bad), "d": {"expr": "trace_period_s(trace)"}}
    with pytest.raises(AqmlabError) as e:
        param_expr.compute(p, "full")
    assert str(e.value) == (
        f"trace_period_s({str(bad)!r}): line 2: expected a delivery time in whole ms, got 'x'"
    )
    with pytest.raises(AqmlabError, match=r"^full\.d\.expr: no parameter 'nope'$"):
        param_expr.compute({"d": {"expr": "trace_period_s(nope)"}}, "full")


def test_declared_options_are_checked_when_the_folder_is_read(tmp_path):
    where = str(tmp_path / "experiment.toml")
    ok = {"help": "h", "param": "p"}
    assert [o.name for o in options.load(where, {"trace": ok})] == ["trace"]
    for doc, message in [
        ({"trace": {**ok, "flag": "x"}}, "options.trace.flag: unknown key"),
        ({"trace": {"help": "h"}}, "options.trace.param: expected a text"),
        ({"trace": {**ok, "kind": "csv"}}, "options.trace.kind: expected file or mahimahi"),
        ({"trace": {**ok, "default": "nope.down"}}, "options.trace.default: expected a file"),
        ({"Trace": ok}, "options.Trace: expected a name"),
    ]:
        with pytest.raises(AqmlabError, match=f"^{where}: {message}"):
            options.load(where, doc)


def test_the_cli_offers_each_declared_option_with_its_owners():
    assert options.builtin() == {
        "trace": ("a mahimahi trace for the downlink", "FILE", ["cellular"]),
    }


def test_reproduce_all_gives_each_reproduction_only_the_options_it_declares(monkeypatch):
    import aqmlab.reproduce as rp

    seen = {}

    def fake(name, out, **kw):
        seen[name] = kw["options"]
        return {}

    monkeypatch.setattr(rp, "reproduce", fake)
    monkeypatch.setattr(rp, "_index", lambda *a: "index.html")
    rp._all("/nonexistent", True, None, None, False, {"trace": "x.down"})
    assert seen["cellular"] == {"trace": "x.down"}
    assert all(v == {} for k, v in seen.items() if k != "cellular") and len(seen) > 1
