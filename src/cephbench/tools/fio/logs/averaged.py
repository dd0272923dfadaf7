"""Series of averaged logs (``log_avg_msec``): each clone's windows, summed over clones
(IOPS, bandwidth) or combined weighted by the clone's IOPS (mean latency) or by max.

fio writes no line for a window in which a clone completed nothing (stat.c, ``__add_samples``:
"No entries for interval"), so a window no clone logged is a window without I/O: IOPS and
bandwidth are 0 there, and the latency series skip it.
"""

from __future__ import annotations

import numpy as np

from cephbench.model import Series
from cephbench.tools.fio.logs.log import Log, _direction, _has, _runs
from cephbench.tools.fio.logs.names import OPS
from cephbench.tools.fio.logs.per_io import check_span


def _windows(
    logs: list[Log], d: int, origin: int, interval_ms: int
) -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]:
    """Per clone of averaged logs (file clone number, stretch in the file): interval numbers
    (1 = the first) and values of direction d. Lines of one clone in one interval (a log
    finer than ``interval_ms``) are averaged."""
    out = {}
    for log in logs:
        if not _has(log, d):
            continue
        t, v, _ = _direction(log, d)
        for j, s in enumerate(_runs(t)):
            slot = _slots(t[s], origin, interval_ms)
            slots, inverse = np.unique(slot, return_inverse=True)
            out[log.clone, j] = slots, np.bincount(inverse, weights=v[s]) / np.bincount(inverse)
    return out


def _slots(t: np.ndarray, origin: int, interval_ms: int) -> np.ndarray:
    """Interval numbers of one clone's lines. fio stamps a window when its helper thread gets
    to it, a little late each time, so over a long run the stamps drift off the clock's grid
    (a 1 s log is ~0.5 s behind after a few hundred windows) and rounding each stamp would
    skip an interval, charted as a stall that never was. A log written one line a window is
    therefore numbered by counting windows from its first line (a gap of several windows
    still counts as several); a log finer than ``interval_ms`` is rounded to the grid."""
    first = np.rint((t[:1] - origin) / interval_ms).astype(np.int64)
    steps = np.diff(t)
    if not len(steps) or np.median(steps) < 0.75 * interval_ms:
        return np.rint((t - origin) / interval_ms).astype(np.int64)
    windows = np.maximum(1, np.rint(steps / interval_ms)).astype(np.int64)
    return np.concatenate([first, first + np.cumsum(windows)])


def _rate_series(
    logs: list[Log],
    origin: int,
    interval_ms: int,
    scale: float,
    metric: str,
    workload: str,
    repeat: int,
) -> list[Series]:
    out = []
    for d, op in enumerate(OPS):
        clones = _windows(logs, d, origin, interval_ms).values()
        if not clones:
            continue
        at = np.concatenate([s for s, _ in clones])
        first, last = int(at.min()), int(at.max())
        check_span(logs, last - first + 1, interval_ms)
        # every window from the first logged to the last; one nobody logged had no I/O
        total = np.bincount(at - first, weights=np.concatenate([v for _, v in clones]))
        slots = np.arange(first, last + 1)
        out.append(
            Series(repeat, workload, op, metric, slots * (interval_ms / 1000), total * scale)
        )
    return out


def _latency_series(
    logs: list[Log],
    iops_logs: list[Log],
    origin: int,
    interval_ms: int,
    max_values: bool,
    workload: str,
    repeat: int,
) -> list[Series]:
    out = []
    for d, op in enumerate(OPS):
        clones = _windows(logs, d, origin, interval_ms)
        if not clones:
            continue
        rates = _windows(iops_logs, d, origin, interval_ms)
        slots, inverse = np.unique(
            np.concatenate([s for s, _ in clones.values()]), return_inverse=True
        )
        lat = np.concatenate([v for _, v in clones.values()])
        if max_values:
            values = np.full(len(slots), -np.inf)
            np.maximum.at(values, inverse, lat)
            metric = "lat_max_us"
        else:
            weights = np.concatenate(
                [_weights(s, rates.get(key)) for key, (s, _) in clones.items()]
            )
            values = _weighted_means(inverse, len(slots), lat, weights)
            metric = "lat_mean_us"
        out.append(
            Series(repeat, workload, op, metric, slots * (interval_ms / 1000), values / 1000)
        )
    return out


def _weights(slots: np.ndarray, rates: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """The clone's IOPS in each of ``slots``; NaN where its IOPS log has none."""
    weight = np.full(len(slots), np.nan)
    if rates is not None:
        r_slots, r = rates
        at = np.searchsorted(r_slots, slots).clip(max=len(r_slots) - 1)
        known = r_slots[at] == slots
        weight[known] = r[at[known]]
    return weight


def _weighted_means(
    group: np.ndarray, n: int, values: np.ndarray, weights: np.ndarray
) -> np.ndarray:
    """Per group: the mean of ``values`` weighted by ``weights``; the plain mean where a weight
    is unknown (NaN) or all weights are 0."""
    plain = np.bincount(group, weights=values, minlength=n) / np.bincount(group, minlength=n)
    unknown = np.bincount(group, weights=np.isnan(weights), minlength=n) > 0
    w = np.nan_to_num(weights)
    wsum = np.bincount(group, weights=w, minlength=n)
    use = ~unknown & (wsum > 0)
    weighted = np.bincount(group, weights=values * w, minlength=n)
    return np.where(use, weighted / np.where(use, wsum, 1), plain)
