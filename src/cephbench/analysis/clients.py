"""The per-client spread of compared runs from many clients (``run --clients``). Pure.

A run's rows are the aggregate of its clients (their IOPS summed); the spread says whether
the load was even: for each workload, direction and column, every client's IOPS (the mean
of its samples, when a column pools repeats or runs), the lowest and the highest, and the
slowest client by name. A client that lags shows up here even when the aggregate looks fine.
Columns whose runs came from one machine have no spread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from cephbench.model import Result, StoredRun


@dataclass(frozen=True)
class ClientSpread:
    """One workload's direction in one column: each client's IOPS (mean over its samples)."""

    workload: str
    op: str
    column: str
    """The column's key (its first run's id, as text)."""
    iops: tuple[tuple[str, float], ...]
    """(client host, IOPS), in the order the clients were first seen."""
    samples: int
    """How many aggregate results (repeats, pooled runs) the means are over."""

    @property
    def slowest(self) -> tuple[str, float]:
        return min(self.iops, key=lambda hv: hv[1])

    @property
    def fastest(self) -> tuple[str, float]:
        return max(self.iops, key=lambda hv: hv[1])

    def to_json(self) -> dict[str, Any]:
        return {
            "workload": self.workload,
            "op": self.op,
            "column": self.column,
            "samples": self.samples,
            "iops": dict(self.iops),
            "iops_min": self.slowest[1],
            "iops_max": self.fastest[1],
            "slowest": self.slowest[0],
            "fastest": self.fastest[0],
        }


def client_spread(
    columns: Sequence[tuple[str, Sequence[StoredRun]]], keys: Sequence[tuple[str, str]]
) -> tuple[ClientSpread, ...]:
    """The spread of every (workload, op) in ``keys`` in each column (key, its runs) where
    results have clients; in the order of ``keys``, then of the columns."""
    out = []
    for workload, op in keys:
        for key, runs in columns:
            results = [
                r
                for run in runs
                for r in run.results
                if r.workload == workload and r.op == op and r.clients
            ]
            spread = of_results(workload, op, key, results)
            if spread is not None:
                out.append(spread)
    return tuple(out)


def of_results(
    workload: str, op: str, column: str, results: Sequence[Result]
) -> ClientSpread | None:
    """The spread of ``results`` (aggregates of one workload's direction); None without
    clients that measured IOPS."""
    per_host: dict[str, list[float]] = {}
    for r in results:
        for c in r.clients:
            if c.iops is not None:
                per_host.setdefault(str(c.host), []).append(c.iops)
    if not per_host:
        return None
    iops = tuple((host, fmean(values)) for host, values in per_host.items())
    return ClientSpread(workload, op, column, iops, len(results))
