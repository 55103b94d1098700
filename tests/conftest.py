import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
VECTORS = ROOT / "vectors"


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
