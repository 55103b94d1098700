from typing import Any

__version__: str
BUILD: str

class AqmlabError(Exception): ...
class ParameterError(AqmlabError): ...
class ScheduleError(AqmlabError): ...
class ReplayError(AqmlabError): ...
class ScenarioError(AqmlabError): ...

class Run:
    duration_s: float
    now_s: float
    name: str
    seed: int
    bin_s: float
    csv: bool
    logs_packets: bool
    random: bool
    def advance(self, until_s: float) -> None: ...
    def summary_json(self) -> str: ...
    def take_series(self, to_end: bool = ...) -> dict[str, dict[str, list[Any]]]: ...

def load_scenario(
    path: str,
    seed: int | None = ...,
    qdisc: list[tuple[str, str]] = ...,
    sets: list[tuple[str, str]] = ...,
    packet_log: list[str] = ...,
    text: str | None = ...,
) -> Run: ...
def list_qdiscs() -> list[dict[str, Any]]: ...
def list_text() -> str: ...
def replay(
    kind: str,
    schedule_path: str,
    params: list[str] = ...,
    uniforms_path: str | None = ...,
    seed: int = ...,
    trace: bool = ...,
) -> dict[str, Any]: ...
