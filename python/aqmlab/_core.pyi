from collections.abc import Callable
from typing import Any, TypedDict

__version__: str
BUILD: str
SOURCE_HASH: str
MODEL_CRATES: str

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
    flow_count: int
    series_flow_count: int
    csv: bool
    logs_packets: bool
    traces_state: bool
    random: bool
    def advance(self, until_s: float, check: Callable[[], object] | None = ...) -> None: ...
    def summary_json(self) -> str: ...
    def resolved_toml(self) -> str: ...
    def dropped_params(self) -> list[tuple[str, str]]: ...
    def set_args(self) -> list[tuple[str, str]]: ...
    def warnings(self) -> list[str]: ...
    def take_series(
        self, to_end: bool = ...
    ) -> dict[str, dict[str, bytes | tuple[bytes | None, bytes, bytes]]]: ...

class ParquetFile:
    """A Parquet file of one series table, written chunk by chunk (series.py's SeriesSink)."""

    def __init__(
        self,
        path: str,
        columns: list[tuple[str, str]],
        rows_per_group: int,
        metadata: list[tuple[str, str]] | None = ...,
    ) -> None: ...
    def write_columns(self, chunk: dict[str, Any]) -> None: ...
    def close(self) -> None: ...

class CsvFile:
    """A CSV file of one series table, written chunk by chunk (series.py's SeriesSink)."""

    def __init__(self, path: str, columns: list[tuple[str, str]]) -> None: ...
    def write_columns(self, chunk: dict[str, Any]) -> None: ...
    def close(self) -> None: ...

def float_repr(x: float) -> str: ...
def load_scenario(
    path: str,
    seed: int | None = ...,
    qdisc: list[tuple[str, str]] = ...,
    sets: list[tuple[str, str]] = ...,
    packet_log: list[str] = ...,
    text: str | None = ...,
    unsets: list[str] = ...,
    varied: list[tuple[str, str]] = ...,
    trace_flows: list[tuple[int, str]] = ...,
    set_args: list[str] = ...,
    warn: bool = ...,
) -> Run: ...

class ParamInfo(TypedDict):
    name: str
    default: str
    type: str
    unit: str
    range: str
    help: str
    #: "fixed", "derived" (at configuration, from other parameters or the link) or "adapted"
    #: (by the discipline as it runs): RFC 7928 §12.
    tuning: str
    #: From what and how, citing the spec ("" when fixed).
    tuning_how: str

class Facts(TypedDict):
    """What the discipline costs to run (RFC 7928 §11)."""

    state: str
    per_flow: str
    per_packet: str
    timers: str
    spec: str

class QdiscInfo(TypedDict):
    name: str
    summary: str
    params: list[ParamInfo]
    facts: Facts

def list_qdiscs() -> list[QdiscInfo]: ...
def list_text() -> str: ...
def read_scenario_file(path: str, what: str = ...) -> bytes: ...
def check_toml(file: str, text: str) -> None: ...
def check_flow_tables(file: str, text: str) -> None: ...
def replay(
    kind: str,
    schedule_path: str,
    params: list[str] = ...,
    uniforms_path: str | None = ...,
    seed: int = ...,
    trace: bool = ...,
) -> dict[str, Any]: ...
