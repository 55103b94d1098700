import os
import pathlib
import signal
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
VECTORS = ROOT / "vectors"


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


def run_cli(*args: str, cwd: str | os.PathLike[str] | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m aqmlab ARGS`` and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "aqmlab", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )
