"""fio's steady-state report (``steadystate`` options): whether, when and how a job got there."""

from __future__ import annotations


def steady_state(clones: list[dict]) -> tuple[tuple[str, ...], tuple[tuple[str, float], ...]]:
    """fio's ``steadystate`` block of a job (one per clone) as flags and metrics.

    ``ss_attained`` is 1 when every clone reached the criterion, and then ``ss_reached_s`` is
    when (fio ends a job as soon as it is steady); ``ss_measured`` is the last value fio
    judged (a deviation or slope, in the criterion's unit); ``ss_iops``/``ss_bw_bytes_per_s``
    are the means over that final window. A job that never got there is flagged
    ``not_steady``. No block (steadystate not asked for): nothing.
    """
    found = [c["steadystate"] for c in clones if c.get("steadystate")]
    if not found:
        return (), ()
    attained = all(int(r.get("attained", 0)) for r in found)
    metrics = {
        "ss_attained": 1.0 if attained else 0.0,
        "ss_duration_s": float(found[0].get("duration", 0)),
    }
    if attained:
        metrics["ss_reached_s"] = max(c.get("job_runtime", 0) for c in clones) / 1000.0
    measured = [m for r in found if (m := _number(r.get("criterion"))) is not None]
    if len(measured) == len(found):  # every job's criterion was a number
        metrics["ss_measured"] = max(measured)
    data = [r.get("data") or {} for r in found]
    if all("iops_mean" in d for d in data):
        metrics["ss_iops"] = float(sum(d["iops_mean"] for d in data))
    if all("bw_mean" in d for d in data):
        metrics["ss_bw_bytes_per_s"] = float(sum(d["bw_mean"] for d in data))
    return () if attained else ("not_steady",), tuple(sorted(metrics.items()))


def _number(text) -> float | None:
    try:
        return float(str(text).rstrip("%"))
    except ValueError:
        return None
