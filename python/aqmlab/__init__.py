"""aqmlab: a laboratory for active queue management.

The queue disciplines (DropTail, RED, CoDel, LSTF-CoDel, FQ-CoDel, PIE) live in a Rust core;
this package is the Python front end: :func:`run` simulates a scenario, :func:`sweep` runs it
over axes of values and seeds, :func:`summarize`, :func:`welch_t` and :func:`f_test` give
statistics over seeds, :func:`plot` and :func:`write_report` draw figures and write an HTML
report from saved results, :func:`replay` drives one discipline from a schedule and
:func:`list_qdiscs` lists every discipline with its parameters, and :func:`emulate` runs real
programs through an emulated link (``aqmlab shell``).
"""

from aqmlab._core import __version__
from aqmlab.exceptions import (
    AqmlabError,
    ParameterError,
    ReplayError,
    ScenarioError,
    ScheduleError,
)
from aqmlab.plot import plot
from aqmlab.replay import ReplayResult, list_qdiscs, replay
from aqmlab.run import RunResult, TomlText, run
from aqmlab.sweep import sweep

# Imported on first use (PEP 562), so that ``aqmlab run`` does not load the emulator's,
# the report's and the statistics' modules. A name that is also a submodule's (plot, replay,
# run, sweep) must stay imported above: importing the submodule later would rebind it.
_LAZY = {
    "write_report": "aqmlab.report",
    "ShellError": "aqmlab.shell",
    "ShellResult": "aqmlab.shell",
    "emulate": "aqmlab.shell",
    "f_test": "aqmlab.stats",
    "summarize": "aqmlab.stats",
    "welch_t": "aqmlab.stats",
}


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(f"module 'aqmlab' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


__all__ = [
    "AqmlabError",
    "ParameterError",
    "ReplayError",
    "ReplayResult",
    "RunResult",
    "ScenarioError",
    "ScheduleError",
    "ShellError",
    "ShellResult",
    "TomlText",
    "__version__",
    "emulate",
    "f_test",
    "list_qdiscs",
    "plot",
    "replay",
    "run",
    "summarize",
    "sweep",
    "welch_t",
    "write_report",
]
