import os
import pathlib
import shutil
import signal
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
VECTORS = ROOT / "vectors"
#: The example reproduction folder (docs/reproductions.md) the reproduction tests copy.
EXAMPLE = ROOT / "examples" / "reproduction"


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C at its default for the programs the tests start, as a terminal's foreground job
    has it. A suite started as a background job of a script (`cmd &` in `sh` without job
    control, as CI launchers do) inherits SIGINT ignored (POSIX, Shell Command Language
    §2.9.3.1: asynchronous lists), Python keeps an inherited SIG_IGN, and every `aqmlab` the
    tests start would then ignore the Ctrl-C the signal tests send, and time out. A handler
    here, unlike SIG_IGN, is reset to the default by the children's exec."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def vectors() -> pathlib.Path:
    return VECTORS


def example_folder(
    tmp_path: pathlib.Path, claims: str | None = None, append: str = "", **files: str
) -> pathlib.Path:
    """A copy of :data:`EXAMPLE` as ``tmp_path/repro`` (replacing an earlier one), its
    claims.toml replaced by ``claims``, ``append`` added to its experiment.toml and ``files``
    (NAME = text, ``ref_csv`` for ``ref.csv``) written into it."""
    d = tmp_path / "repro"
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(EXAMPLE, d)
    if claims is not None:
        (d / "claims.toml").write_text(claims)
    if append:
        with open(d / "experiment.toml", "a") as f:
            f.write(append)
    for name, text in files.items():
        (d / name.replace("_", ".")).write_text(text)
    return d


def refused_in_one_line(folder: pathlib.Path, file: str, expected: str) -> None:
    """Loading the reproduction ``folder`` fails with one line naming ``file``
    (``claims.toml``, ``experiment.toml``) that holds ``expected``."""
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.folder import load

    with pytest.raises(AqmlabError) as e:
        load(str(folder))
    msg = str(e.value)
    assert "\n" not in msg and f"{file}: " in msg and expected in msg, msg


def run_cli(*args: str, cwd: str | os.PathLike[str] | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m aqmlab ARGS`` and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "aqmlab", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )
