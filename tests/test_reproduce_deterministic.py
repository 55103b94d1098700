"""experiment.toml's ``deterministic`` (docs/reproductions.md, "experiment.toml"): nothing in
the scenarios draws at random, so every run uses seed 1 whatever ``--seeds`` says."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "reproduction"


def _folder(tmp_path, line):
    d = tmp_path / "repro"
    shutil.copytree(EXAMPLE, d)
    text = (d / "experiment.toml").read_text(encoding="utf-8")
    (d / "experiment.toml").write_text(text.replace("seeds = 3", f"seeds = 3\n{line}", 1))
    return d


@pytest.mark.parametrize(
    "line, quick, seeds, expected",
    [
        ("", False, None, [1, 2, 3]),
        ("", False, 5, [1, 2, 3, 4, 5]),
        ("deterministic = true", False, None, [1]),
        ("deterministic = true", False, 5, [1]),
        ("deterministic = false", False, 2, [1, 2]),
        ("deterministic = true", True, None, [1]),
    ],
)
def test_a_deterministic_reproduction_runs_seed_1_alone(
    tmp_path, monkeypatch, line, quick, seeds, expected
):
    from aqmlab.reproduce import loader, reproduce

    class Ran(Exception):
        pass

    def run(exp, out, quick, seeds, *rest):
        raise Ran(seeds)

    monkeypatch.setattr(loader, "run", run)
    with pytest.raises(Ran) as e:
        reproduce(str(_folder(tmp_path, line)), str(tmp_path / "out"), quick=quick, seeds=seeds)
    assert e.value.args[0] == expected


def test_a_bad_deterministic_is_one_line(tmp_path):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.folder import load

    d = _folder(tmp_path, 'deterministic = "yes"')
    with pytest.raises(AqmlabError) as e:
        load(str(d))
    msg = str(e.value)
    assert msg.startswith(str(d / "experiment.toml")) and "\n" not in msg
    assert "deterministic: expected true or false" in msg, msg
