"""explain's word on a read a cache served: not an efficiency, the cache.

A read result whose bytes did not reach the cluster (flag ``cached``: the pool behind the
target served under half of the bytes fio read, :mod:`cephbench.execution.served`) measured
a cache on the client, not the cluster: set against the cluster's ceiling it would read as
an efficiency above 100 %, or a defect of the model. Its explanation names the cache as what
the figure measured, with what the pool served of fio's bytes, and keeps the cluster's
ceiling beside it. Pure: the run and its ``served`` records in, the explanation's workloads
changed in place.
"""

from __future__ import annotations

import re
import statistics
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cephbench.model import Result, StoredRun

FLAG = "cached"
CACHE = "a cache on the client"


def served_records(values: list[Any]) -> dict[str, list[dict[str, Any]]]:
    """The run's ``served`` records by workload."""
    out: dict[str, list[dict[str, Any]]] = {}
    for v in values:
        if isinstance(v, dict) and isinstance(v.get("workload"), str):
            out.setdefault(v["workload"], []).append(v)
    return out


def annotate(
    workloads: list[dict[str, Any]], run: StoredRun, records: dict[str, list[dict[str, Any]]]
) -> None:
    """Each read workload some repeat of which a cache served: named so (``served_from_cache``,
    its limiting part the cache, no efficiency, not above the ceiling, no model defect)."""
    for w in workloads:
        if w.get("op") != "read":
            continue
        results = [r for r in run.results if r.workload == w["workload"] and r.op == "read"]
        flagged = [r for r in results if FLAG in r.flags]
        if not flagged:
            continue
        recs = [x for x in records.get(w["workload"], []) if x.get("flag") == FLAG]
        cache = next((x["cache"] for x in recs if x.get("cache")), CACHE)
        layer = next((x["layer"] for x in recs if x.get("layer")), "the pool behind the target")
        share = _share(flagged)
        w["served_from_cache"] = {
            "cache": cache,
            "layer": layer,
            "served_read_ratio": share,
            "repeats": len(flagged),
            "of_repeats": len(results),
        }
        head = re.split(r" = |; ", w["line"], maxsplit=1)[0]
        ceiling = (
            f"; the cluster's ceiling, {w['ceiling_iops']:,.0f} IOPS ({w['limiting_part']}), "
            "does not apply to it"
            if w.get("ceiling_iops") is not None
            else ""
        )
        served = "" if share is None else f" {share * 100:.1f} % of"
        repeats = (
            "" if len(flagged) == len(results) else f" ({len(flagged)} of {len(results)} repeats)"
        )
        w["line"] = (
            f"{head}, served from {cache}, not from the cluster{repeats}: {layer} served"
            f"{served} the bytes fio read (flag cached){ceiling}"
        )
        w["limiting_part"] = f"{cache}"
        w["limiting_layer"] = "client"
        w["efficiency"] = None
        w["above_ceiling"] = False
        w["model_defect"] = False


def _share(results: list[Result]) -> float | None:
    shares = [dict(r.metrics).get("served_read_ratio") for r in results]
    found = [s for s in shares if s is not None]
    return round(statistics.fmean(found), 4) if found else None
