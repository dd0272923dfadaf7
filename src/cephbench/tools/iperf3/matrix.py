"""The network suite's results as an N×N matrix (sender row, receiver column) and the pairs
far below the others. Pure functions: the table, ``show`` and the report's heatmap use them.

A directed pair is one workload named ``sender->receiver``; with repeats a cell is the mean
of its repeats. An outlier is a pair whose figure lies far below the median of all pairs:
more than ``K`` scaled MADs (1.4826 × the median absolute deviation, the standard deviation
of a normal sample) and more than ``FLOOR`` of the median below it. The second condition is
there because equal links (a rate limit, the same NICs) have a MAD near 0, where any small
wobble would be "many MADs" away; a pair 10 % below its peers is worth a look, 1 % is noise.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from cephbench.model import Result

ARROW = "->"
K = 3.0
FLOOR = 0.10
MAD_SCALE = 1.4826


def split(workload: str) -> tuple[str, str] | None:
    """(sender, receiver) of a ``sender->receiver`` workload; None for other names."""
    sender, arrow, receiver = workload.partition(ARROW)
    return (sender, receiver) if arrow and sender and receiver else None


@dataclass(frozen=True)
class Matrix:
    """One metric over directed pairs: ``cells[(sender, receiver)]``, hosts in first-seen
    order; a pair with no figure (failed, not run) is absent."""

    metric: str
    hosts: tuple[str, ...]
    cells: Mapping[tuple[str, str], float]

    def rows(self) -> list[list[float | None]]:
        """Row per sender, column per receiver; None on the diagonal and for missing pairs."""
        return [[self.cells.get((a, b)) for b in self.hosts] for a in self.hosts]


def matrix(results: Iterable[Result], metric: str = "bits_per_second") -> Matrix:
    """The mean of ``metric`` over the repeats of every directed pair in ``results``."""
    hosts: dict[str, None] = {}
    values: dict[tuple[str, str], list[float]] = {}
    for r in results:
        pair = split(r.workload)
        if pair is None:
            continue
        hosts.update(dict.fromkeys(pair))
        value = dict(r.metrics).get(metric)
        if value is not None:
            values.setdefault(pair, []).append(value)
    cells = {pair: statistics.fmean(v) for pair, v in values.items()}
    return Matrix(metric, tuple(hosts), cells)


@dataclass(frozen=True)
class Outlier:
    pair: tuple[str, str]
    value: float
    median: float
    robust_z: float | None
    """(value - median) / scaled MAD; None when the MAD is 0."""

    @property
    def below_pct(self) -> float:
        """How far below the median, percent of it."""
        return 100 * (self.median - self.value) / self.median


def outliers(
    cells: Mapping[tuple[str, str], float], k: float = K, floor: float = FLOOR
) -> list[Outlier]:
    """The pairs far below the median (see the module's docstring), lowest first; none with
    fewer than 3 pairs (no median to stand out from) or a median of 0."""
    if len(cells) < 3:
        return []
    values = list(cells.values())
    median = statistics.median(values)
    if median <= 0:
        return []
    mad = MAD_SCALE * statistics.median(abs(v - median) for v in values)
    limit = max(k * mad, floor * median)
    out = [
        Outlier(pair, v, median, (v - median) / mad if mad > 0 else None)
        for pair, v in cells.items()
        if median - v > limit
    ]
    return sorted(out, key=lambda o: o.value)
