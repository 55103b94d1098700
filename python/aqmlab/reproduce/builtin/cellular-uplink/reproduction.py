"""cellular-uplink's own code: the bytes through the downlink and tail drop's extra over CoDel.

experiment.toml and claims.toml hold the rest (docs/reproductions.md, "A reproduction's folder").
"""

from __future__ import annotations

from typing import Any

UPLINKS = {"constant": "constant 12.032 Mb/s", "trace": "Verizon LTE uplink trace"}


def derive(df: Any, ctx: Any) -> Any:
    df["mb"] = df["bottleneck.delivered_bytes"].astype(float) / 1e6
    return df


def numbers(ctx: Any) -> dict[str, Any]:
    """``extra_pct_<uplink>``: tail drop's bytes over CoDel's, less 1, in %."""
    g = ctx.table
    out = {}
    for key, uplink in UPLINKS.items():
        td = g[(g["uplink"] == uplink) & (g["discipline"] == "tail drop")]["mb"]
        co = g[(g["uplink"] == uplink) & (g["discipline"] == "CoDel")]["mb"]
        out[f"extra_pct_{key}"] = 100.0 * (float(td.iloc[0]) / float(co.iloc[0]) - 1.0)
    return out
