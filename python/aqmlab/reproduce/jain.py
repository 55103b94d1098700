"""Jain's fairness index over groups of flows, a per-run column declared in ``experiment.toml``
(docs/reproductions.md, "Metrics as data": a ``[[derive]]`` with ``jain``).

Jain's index of ``n`` values is ``(Σx)² / (n·Σx²)``, 1 when every value is equal
(:func:`aqmlab.jain.index`, after R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984; aqmlab-sim's
per-link ``jain_drop_rate`` is the same index over single flows). Here each value is one
group's rate: the sum of ``numerator`` over the group's flows divided by the sum of
``denominator`` over them (a class's drops ÷ its packets at a link), so flows are pooled
before dividing.

``[[derive]]`` keys: ``name`` and ``jain = { groups = { NAME = [flow index, ...], ... },
numerator = "...{flow}...", denominator = "...{flow}..." }``, the two templates naming a
results column with ``{flow}`` filled by each flow's index (``each``'s fields are filled
first). A flow's missing column counts 0 (a flow that never crosses that link), a group whose
denominator is 0 is left out (as the simulator leaves out a flow with no packet there), and a
run where every group's is 0 has no value, nor has a run where every group's rate is 0 (no
drop at all: the index is 0/0 there). The groups must hold every flow of the results
(``flows[i].`` columns) once: a flow in no group is an error (a scenario changed under them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.jain import index

_FLOW = re.compile(r"^flows\[(\d+)\]\.")


@dataclass
class JainDef:
    """A ``[[derive]]``'s ``jain`` table, checked."""

    groups: dict[str, list[int]]
    numerator: str
    denominator: str
    where: str  # "FILE: derive[i] ('NAME').jain" for errors


def parse(where: str, doc: Any) -> JainDef:
    """``doc`` (a derive's ``jain`` value) checked; errors name ``where`` and the key."""
    where = f"{where}.jain"
    if not isinstance(doc, dict):
        raise AqmlabError(
            f"{where}: expected a table {{ groups = {{ NAME = [flow, ...] }}, numerator = ..., "
            "denominator = ... }"
        )
    for k in doc:
        if k not in ("groups", "numerator", "denominator"):
            raise AqmlabError(f"{where}.{k}: unknown key (expected groups, numerator, denominator)")
    groups = doc.get("groups")
    if (
        not isinstance(groups, dict)
        or not groups
        or not all(
            isinstance(v, list)
            and v
            and all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in v)
            for v in groups.values()
        )
    ):
        raise AqmlabError(
            f"{where}.groups: expected a table of NAME = [flow index, ...] (whole numbers from "
            f"0, each list not empty), got {groups!r}"
        )
    seen = [i for v in groups.values() for i in v]
    twice = sorted({i for i in seen if seen.count(i) > 1})
    if twice:
        raise AqmlabError(f"{where}.groups: flow(s) {twice} in more than one group")
    out = []
    for k in ("numerator", "denominator"):
        t = doc.get(k)
        if not isinstance(t, str) or "{flow}" not in t:
            raise AqmlabError(
                f"{where}.{k}: expected a column name with {{flow}} for the flow's index "
                f'(like "flows[{{flow}}].links.bottleneck.dropped_pkts"), got {t!r}'
            )
        out.append(t)
    return JainDef(groups, out[0], out[1], where)


def column(df: Any, jd: JainDef, fill: Any) -> Any:
    """Per run (row of ``df``): Jain's index of the groups' rates. ``fill`` fills the
    templates' other fields (``each``'s) before ``{flow}``."""
    import pandas as pd

    flows = sorted({int(m.group(1)) for c in df.columns if (m := _FLOW.match(str(c)))})
    grouped = {i for v in jd.groups.values() for i in v}
    loose = [i for i in flows if i not in grouped]
    if loose:
        raise AqmlabError(f"{jd.where}.groups: flow(s) {loose} of the results are in no group")

    def col(template: str, i: int) -> Any:
        c = fill(template).replace("{flow}", str(i))
        return df[c].fillna(0).astype(float) if c in df else pd.Series(0.0, index=df.index)

    rates = [
        (sum(col(jd.numerator, i) for i in idx), sum(col(jd.denominator, i) for i in idx))
        for idx in jd.groups.values()
    ]
    # No group with a packet: index([]), NaN, as every rate 0 is.
    return pd.Series(
        [index([d[r] / a[r] for d, a in rates if a[r] > 0]) for r in df.index], index=df.index
    )
