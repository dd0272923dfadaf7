"""Series of per-I/O logs: exact IOPS, bandwidth, mean, p99 and max latency per interval,
from interval bounds found with ``np.searchsorted`` in each run of rising time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

from cephbench.errors import ParseError
from cephbench.model import Series
from cephbench.tools.fio.logs.log import Log, _direction, _has, _runs
from cephbench.tools.fio.logs.names import OPS
from cephbench.tools.fio.logs.summary import rank

MAX_INTERVALS = 10**7
"""Logs spanning more intervals than this (116 days of seconds) are refused."""
_BLOCK = 1 << 20  # elements summed at a time when a cast to int64 is needed


def check_span(logs: Sequence[Log], intervals: int, interval_ms: int) -> None:
    """ParseError when logs span more than ``MAX_INTERVALS`` intervals (a series that long
    is no fio run's: a time column gone wrong)."""
    if intervals > MAX_INTERVALS:
        names = ", ".join(log.name for log in logs)
        raise ParseError(
            f"{names}: times span more than {MAX_INTERVALS:,} intervals of {interval_ms} ms"
        )


def _per_io_series(
    logs: list[Log], origin: int, interval_ms: int, with_latency: bool, workload: str, repeat: int
) -> list[Series]:
    end = max(int(log.t_ms.max()) for log in logs) + 1
    check_span(logs, (end - origin) // interval_ms, interval_ms)
    edges = _edges(origin, end, interval_ms)
    seconds = np.diff(edges) / 1000
    t_s = (edges[1:] - origin) / 1000
    out = []
    for d, op in enumerate(OPS):
        runs = []
        for log in logs:
            if _has(log, d):
                t, v, bs = _direction(log, d)
                pieces = _runs(t)
                if len(pieces) > 64:  # not clones one after another: sort by time
                    order = np.argsort(t, kind="stable")
                    t, v, bs, pieces = t[order], v[order], bs[order], [slice(None)]
                runs += [(t[s], v[s], bs[s]) for s in pieces]
        if not runs:
            continue
        bounds = [np.searchsorted(t, edges) for t, _, _ in runs]
        # runs is not empty here: these sums are arrays, never sum()'s start of 0
        ios = cast(np.ndarray, sum(np.diff(b) for b in bounds))
        nbytes = sum(_group(np.add, bs, b) for (_, _, bs), b in zip(runs, bounds, strict=True))
        made = [("iops", t_s, ios / seconds), ("bw_bytes_per_s", t_s, nbytes / seconds)]
        if with_latency:
            busy = np.flatnonzero(ios)
            total = cast(
                np.ndarray,
                sum(_group(np.add, v, b) for (_, v, _), b in zip(runs, bounds, strict=True)),
            )
            top = np.max(
                [_group(np.maximum, v, b) for (_, v, _), b in zip(runs, bounds, strict=True)],
                axis=0,
            )
            p99 = [_interval_percentile([v for _, v, _ in runs], bounds, k, 99.0) for k in busy]
            made += [
                ("lat_mean_us", t_s[busy], total[busy] / ios[busy] / 1000),
                ("lat_p99_us", t_s[busy], np.array(p99, np.float64) / 1000),
                ("lat_max_us", t_s[busy], top[busy] / 1000),
            ]
        out += [
            Series(repeat, workload, op, metric, times, np.asarray(values, np.float64))
            for metric, times, values in made
        ]
    return out


def _edges(origin: int, end: int, interval_ms: int) -> np.ndarray:
    """Interval bounds from ``origin`` to ``end`` (ms): every ``interval_ms``, the last interval
    ending at ``end``; a tail shorter than half an interval joins the interval before it (the
    I/Os of fio's last ms would otherwise make a 1 ms interval of wild IOPS)."""
    starts = np.arange(origin, end, interval_ms, dtype=np.int64)
    if len(starts) > 1 and end - starts[-1] < interval_ms / 2:
        starts = starts[:-1]
    return np.append(starts, end)


def _group(ufunc: np.ufunc, x: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """``ufunc`` over each ``x[bounds[k]:bounds[k+1]]`` as int64 (0 where empty)."""
    out = np.zeros(len(bounds) - 1, np.int64)
    starts = bounds[:-1]
    busy = np.flatnonzero(bounds[1:] > starts)
    if not busy.size:
        return out
    if x.dtype == np.int64:
        out[busy] = ufunc.reduceat(x[: bounds[-1]], starts[busy])
        return out
    for k in busy:  # a narrower x (block sizes) would be cast whole to int64: a block at a time
        a, b = bounds[k], bounds[k + 1]
        out[k] = ufunc.reduce(
            [ufunc.reduce(x[i : min(i + _BLOCK, b)], dtype=np.int64) for i in range(a, b, _BLOCK)]
        )
    return out


def _interval_percentile(
    values: list[np.ndarray], bounds: list[np.ndarray], k: int | np.integer, percent: float
) -> float:
    """The percentile of the samples of interval k, over every run."""
    parts = [v[b[k] : b[k + 1]] for v, b in zip(values, bounds, strict=True)]
    here = np.concatenate(parts) if len(parts) > 1 else parts[0]
    r = rank(percent, len(here)) - 1
    return float(np.partition(here, r)[r])
