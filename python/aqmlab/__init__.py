"""aqmlab: a laboratory for active queue management.

The queue disciplines (DropTail, RED, CoDel, LSTF-CoDel, FQ-CoDel, PIE) live in a Rust core;
this package is the Python front end: :func:`replay` drives one discipline from a schedule and
:func:`list_qdiscs` lists every discipline with its parameters.
"""

from aqmlab._core import __version__
from aqmlab.exceptions import (
    AqmlabError,
    ParameterError,
    ReplayError,
    ScenarioError,
    ScheduleError,
)
from aqmlab.replay import ReplayResult, list_qdiscs, replay
from aqmlab.run import RunResult, TomlText, run

__all__ = [
    "AqmlabError",
    "ParameterError",
    "ReplayError",
    "ReplayResult",
    "RunResult",
    "ScenarioError",
    "ScheduleError",
    "TomlText",
    "__version__",
    "list_qdiscs",
    "replay",
    "run",
]
