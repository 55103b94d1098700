"""The native file writers (``_core.ParquetFile``, ``_core.CsvFile``) may be dropped by another
thread than the one that made them: a sweep's Dask worker makes them in a task's thread and its
event loop's thread may collect them, which printed ``RuntimeError: ... is unsendable, but is
being dropped on another thread`` at the end of ``aqmlab sweep --dask local``."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import gc, sys, threading
from aqmlab import _core
box = {}
def make():
    p = _core.ParquetFile(sys.argv[1] + "/x.parquet", [("a", "int64")], 10)
    p.close()
    c = _core.CsvFile(sys.argv[1] + "/x.csv", [("a", "int64")])
    c.close()
    box["p"], box["c"] = p, c
t = threading.Thread(target=make)
t.start()
t.join()
box.clear()
gc.collect()
print("done")
"""


def test_a_writer_made_in_one_thread_is_dropped_in_another_without_an_error(tmp_path):
    r = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == "done\n"
    assert r.stderr == ""
    assert (tmp_path / "x.parquet").stat().st_size > 0 and (tmp_path / "x.csv").exists()
