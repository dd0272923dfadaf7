"""A workload's logs as time series: which logs give which series, the averaging window,
the time origin. Per-I/O logs are cut in ``per_io``, averaged ones joined in ``averaged``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cephbench.errors import ParseError
from cephbench.model import Series
from cephbench.tools.fio.logs.averaged import _latency_series, _rate_series
from cephbench.tools.fio.logs.log import Log, _direction, _has, _runs
from cephbench.tools.fio.logs.names import KINDS, OPS
from cephbench.tools.fio.logs.per_io import _per_io_series


def series(
    logs: Sequence[Log],
    *,
    workload: str,
    repeat: int = 0,
    interval_ms: int | None = None,
    max_values: bool = False,
) -> list[Series]:
    """IOPS, bandwidth and latency over time, per direction, from one workload's logs.

    ``t_s`` is seconds from the start of the workload to the end of each interval: job start
    for ordinary logs; with ``log_unix_epoch`` the first I/O (per-I/O logs) or the start of the
    first window (averaged logs). Units become I/O/s, bytes/s and µs.

    Per-I/O logs (``_lat``, else ``_clat``, else ``_iops`` or ``_bw``; clones together) are
    cut into ``interval_ms`` intervals (default 1 s), the last one ending at the last I/O (a
    tail under half an interval joins the interval before it). Exact: IOPS (completions /
    interval), bandwidth (bytes / interval), mean, p99 and max latency of the I/Os completed
    in each interval; IOPS and bandwidth are 0 in an interval without I/O (a stall), and the
    latency series skip it.

    Averaged logs (``log_avg_msec``) are read as series of their own windows: ``interval_ms``
    if given (the job's ``log_avg_msec``: pass it when known), else the shortest usual step
    between a clone's lines; a line belongs to the window its time rounds to, and a window no
    clone logged had no I/O (0 IOPS and bandwidth, no latency point). Clones add up per window
    (IOPS, bandwidth: exact sums of what fio logged); their mean latencies combine weighted by the same clone's IOPS in the window
    (exact up to fio's own rounding), or as a plain mean where an IOPS log lacks the window
    (approximate: clones at different rates weigh the same). ``max_values``: the logs were
    written with ``log_max_value=1``, latency lines are window maxima (exact max over clones,
    ``lat_max_us``). Each clone's windows start with that clone, so a window of several
    clones is aligned to within a few ms, not exactly.
    """
    logs = [log for log in logs if len(log)]
    window = interval_ms or _window([log for log in logs if log.averaged])
    origin = _origin(logs, window)
    out: list[Series] = []
    per_io = {k: [g for g in logs if g.kind == k and not g.averaged] for k in KINDS}
    averaged = {k: [g for g in logs if g.kind == k and g.averaged] for k in KINDS}
    source = next((per_io[k] for k in ("lat", "clat", "iops", "bw") if per_io[k]), [])
    if source:
        with_latency = source[0].kind in ("lat", "clat")
        out += _per_io_series(source, origin, interval_ms or 1000, with_latency, workload, repeat)
    metrics = {s.metric for s in out}
    if averaged["iops"] and "iops" not in metrics:
        out += _rate_series(averaged["iops"], origin, window, 1.0, "iops", workload, repeat)
    if averaged["bw"] and "bw_bytes_per_s" not in metrics:
        out += _rate_series(
            averaged["bw"], origin, window, 1024.0, "bw_bytes_per_s", workload, repeat
        )
    lat = averaged["lat"] or averaged["clat"]
    if lat and "lat_mean_us" not in metrics:
        out += _latency_series(lat, averaged["iops"], origin, window, max_values, workload, repeat)
    order = ("iops", "bw_bytes_per_s", "lat_mean_us", "lat_p99_us", "lat_max_us")
    return sorted(out, key=lambda s: (OPS.index(s.op), order.index(s.metric)))


def _window(logs: list[Log]) -> int:
    """The ``log_avg_msec`` averaged logs were written with, when the caller does not know it:
    the usual step between a clone's successive lines of one direction, among the shortest
    (else the first window's end, else 1 s).

    fio writes no line for a window without I/O, so a step is a whole number of windows, a
    few ms late each: the median of all steps is two windows when most windows are empty
    (a slow cluster at a high queue depth completes its I/Os in bursts), and each line would
    then count for twice its window. The steps within half a window of the shortest ones
    (their 10th percentile) are single windows, unless no two lines of any clone were ever
    one window apart; then only the job's own ``log_avg_msec`` can tell.
    """
    steps = [np.zeros(0, np.int64)]
    for log in logs:
        for d in range(3):
            if _has(log, d):
                t = _direction(log, d)[0]
                steps += [np.diff(t[run]) for run in _runs(t)]
    step = np.concatenate(steps)
    step = step[step > 0]
    if len(step):
        single = step[step <= 1.5 * np.percentile(step, 10)]
        return max(1, round(float(np.median(single))))
    relative = [int(log.t_ms.min()) for log in logs if not log.epoch]
    return max(1, min(relative)) if relative else 1000


def _origin(logs: Sequence[Log], interval_ms: int) -> int:
    """Log time of the workload's start (see :func:`series`)."""
    if not any(log.epoch for log in logs):
        return 0
    if not all(log.epoch for log in logs):
        names = ", ".join(log.name for log in logs)
        raise ParseError(
            f"{names}: unix-epoch times (log_unix_epoch) mixed with times since the job started"
        )
    return min(int(log.t_ms.min()) - (interval_ms if log.averaged else 0) for log in logs)
