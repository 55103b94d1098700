"""aqmlab's exceptions. Every error aqmlab raises on bad input derives from :class:`AqmlabError`."""

from aqmlab._core import AqmlabError, ParameterError, ReplayError, ScenarioError, ScheduleError

__all__ = ["AqmlabError", "ParameterError", "ReplayError", "ScenarioError", "ScheduleError"]
