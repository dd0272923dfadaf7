"""Change points in a series of runs: where a figure (IOPS, latency...) moved to a new level
and stayed there, e.g. the nightly run that got 15 % slower after an upgrade.

The method: the optimal segmentation of the series into runs of constant mean, found exactly
by PELT (Killick, Fearnhead & Eckley 2012, "Optimal detection of changepoints with a linear
computational cost", JASA 107:1590), with the Gaussian mean-shift cost (the sum of squared
deviations from each segment's mean) and a penalty per change point.

Why this method, for benchmark series:

- It is exact and deterministic: the same runs always give the same change points (unlike
  the permutation tests of E-divisive, or any sampling), so a report can be regenerated and
  a test can pin the answer.
- It finds several shifts at once and places each where the evidence is, unlike a CUSUM or
  a two-sample test at every point, which needs a threshold per test and finds one shift at
  a time (binary segmentation is greedy and can misplace shifts close together).
- The cost needs only prefix sums: the whole search is a few milliseconds for thousands of
  runs (PELT prunes the candidates that can no longer start the last segment).
- Scale: the noise level ``sigma`` is estimated from the series itself, from its successive
  differences (:func:`noise_sigma`), so the same rule works on IOPS in the millions and on
  latencies in microseconds, on a noisy cloud disk and on a quiet lab.
- The penalty is ``3 log n`` per change point in units of ``sigma**2`` (about the modified
  BIC of Zhang & Siegmund 2007): conservative on purpose, since a change point in a report
  asks a person to look, and a false one teaches them to ignore the marks.
- A segment is at least ``min_size`` runs long (3 by default): one odd run is noise, not a
  new level.

Measured on Gaussian noise (``bench/changepoint_rates.py``, 400 series each): a series with
no shift gets a mark in about 6 % of series of 6 to 10 runs, 3 to 4 % of 20 to 40, under 1 %
of 100; a shift of 3 sigma halfway is found, alone and at the right run, in about 60 % of
6-run series, 70 % of 10-run ones and 80 % or more from 20 runs on.

Known limits: the cost assumes independent noise around each level; a slow drift shows up
as a few steps, and a single extreme outlier (many sigma) can still form a short segment.
Both are visible in the chart the marks sit on. The Nile flows at Aswan 1871-1970 (the
classic reference series, a drop in 1898-1899) give the one change the literature finds;
the tests hold that and synthetic cases.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

MIN_SIZE = 3
MAD_TO_SIGMA = 1.4826
"""sigma / MAD for normally distributed values."""


@dataclass(frozen=True)
class Segment:
    start: int
    """Index of its first value."""
    end: int
    """Index after its last value."""
    mean: float


@dataclass(frozen=True)
class ChangePoint:
    index: int
    """The first value at the new level."""
    before: float
    """Mean of the segment that ends here."""
    after: float
    """Mean of the segment that starts here."""

    @property
    def pct(self) -> float | None:
        """The shift in percent of the level before; None when that level is 0."""
        return None if self.before == 0 else (self.after - self.before) / abs(self.before) * 100


def noise_sigma(values: Sequence[float]) -> float:
    """The series' noise level from its successive differences (a shift moves one of them):
    the larger of their MAD and their standard deviation, each scaled to sigma (/ sqrt 2).

    The MAD ignores the shifts but, over a few runs, often comes out low; the standard
    deviation is steadier but grows with the shifts. The larger errs towards fewer marks:
    a big shift stays far above it, and noise is less often taken for a shift.
    """
    diffs = [b - a for a, b in pairwise(values)]
    if len(diffs) < 2:
        return 0.0
    mid = _median(diffs)
    mad = MAD_TO_SIGMA * _median([abs(d - mid) for d in diffs])
    mean = sum(diffs) / len(diffs)
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1))
    return max(mad, sd) / math.sqrt(2)


def segments(
    values: Sequence[float], min_size: int = MIN_SIZE, penalty: float | None = None
) -> list[Segment]:
    """The optimal segmentation of ``values`` (see the module's docstring): segments in
    order, covering every value. ``penalty`` per change point, in units of sigma**2
    (default ``3 log n``)."""
    x = [float(v) for v in values]
    n = len(x)
    if n == 0:
        return []
    sigma = noise_sigma(x)
    if n < 2 * min_size or sigma == 0 or not all(math.isfinite(v) for v in x):
        return [Segment(0, n, sum(x) / n)]
    beta = 3 * math.log(n) if penalty is None else penalty
    s1, s2 = [0.0], [0.0]
    for v in x:
        s1.append(s1[-1] + v / sigma)
        s2.append(s2[-1] + (v / sigma) ** 2)

    def cost(a: int, b: int) -> float:  # squared deviations of x[a:b] from their mean / sigma²
        return s2[b] - s2[a] - (s1[b] - s1[a]) ** 2 / (b - a)

    best = [math.inf] * (n + 1)  # best[t]: the optimal cost of x[:t], penalties included
    best[0] = -beta
    last = [0] * (n + 1)  # last[t]: where the last segment of that optimum starts
    candidates: list[int] = [0]
    for t in range(min_size, n + 1):
        if t - min_size >= min_size:  # a segment may now end at t - min_size
            candidates.append(t - min_size)
        scored = [(best[s] + cost(s, t) + beta, s) for s in candidates]
        best[t], last[t] = min(scored)
        # PELT: a start that is already worse than the optimum can never win later
        candidates = [s for (f, s) in scored if f - beta <= best[t]]
    bounds = [n]
    while bounds[-1] > 0:
        bounds.append(last[bounds[-1]])
    bounds.reverse()
    return [Segment(a, b, sum(x[a:b]) / (b - a)) for a, b in pairwise(bounds)]


def change_points(
    values: Sequence[float], min_size: int = MIN_SIZE, penalty: float | None = None
) -> list[ChangePoint]:
    """Where ``values`` move to a new level: one ChangePoint per boundary between segments."""
    return between(segments(values, min_size, penalty))


def between(segs: Sequence[Segment]) -> list[ChangePoint]:
    """The change points between successive segments."""
    return [ChangePoint(b.start, a.mean, b.mean) for a, b in pairwise(segs)]


def _median(xs: Sequence[float]) -> float:
    s = sorted(xs)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2
