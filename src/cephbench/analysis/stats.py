"""Statistics for comparing benchmark runs: pure functions over plain sequences of floats.

Choices, and why:

- **Per-cell summary**: the mean and a Student-t 95 % confidence interval of the mean. Every
  figure fio reports (IOPS, bandwidth, mean latency, even p99 over a run) is itself an
  aggregate of thousands of I/Os, so repeat-to-repeat values are close to normal; the t
  interval is exact for normal data and honest (wide) for the 3–10 repeats people run.
- **Test: Welch's t-test** (unequal variances), as pyperf does, rather than Mann–Whitney U as
  asv does. With the few repeats benchmarks have, Mann–Whitney cannot reach significance at
  all: its smallest exact two-sided p-value with 3 vs 3 samples is 0.1, so a 5 % test would
  call *every* change with three repeats "not significant" (asv needs a CI fallback for
  exactly this). Welch's test has power at n = 3 and does not assume the two runs are equally
  noisy (a tuned configuration often changes the variance too).
- **Multiple comparisons: Benjamini–Hochberg** across every cell of a comparison (workloads ×
  metrics × runs compared with the baseline). When nothing changed (all nulls true, an A/A
  comparison) BH controls the family-wise error rate at ``alpha``, so an A/A CI gate fails at
  most ~5 % of the time however many cells there are; when real changes exist, BH keeps far
  more power than Bonferroni/Holm. BH is valid under positive dependence, which is what the
  cells have (IOPS and bandwidth of one workload move together).
- **Difference CI**: the Welch interval of ``mean(B) - mean(A)`` divided by ``mean(A)``: the
  percent difference's interval, treating the baseline mean as the scale (its own
  uncertainty is in the Welch interval already).
- **Stability**: the coefficient of variation (sample sd / mean); above 10 % the repeats are
  called unstable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

ALPHA = 0.05
UNSTABLE_CV = 0.10


@dataclass(frozen=True)
class Summary:
    """Mean of the samples of one cell, and its 95 % CI (None with a single sample)."""

    n: int
    mean: float
    sd: float | None
    ci95: tuple[float, float] | None

    @property
    def cv(self) -> float | None:
        """Coefficient of variation (sd / mean); None with one sample or a zero mean."""
        if self.sd is None or self.mean == 0:
            return None
        return self.sd / abs(self.mean)


@dataclass(frozen=True)
class Test:
    """Welch's t-test of B against A: the raw p-value and the difference's 95 % CI."""

    p: float
    diff_ci95: tuple[float, float]


def _t():
    """Student's t distribution; scipy is imported on first use (~1 s), not by every command
    that imports this module (``cephbench run`` uses it only for repeats)."""
    from scipy import stats

    return stats.t


def summarize(samples: Sequence[float], confidence: float = 0.95) -> Summary:
    """Mean, sample standard deviation and Student-t CI of the mean."""
    n = len(samples)
    if n == 0:
        raise ValueError("no samples")
    mean = math.fsum(samples) / n
    if n == 1:
        return Summary(1, mean, None, None)
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in samples) / (n - 1))
    half = _t().ppf(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
    return Summary(n, mean, sd, (mean - half, mean + half))


def welch(a: Sequence[float], b: Sequence[float], confidence: float = 0.95) -> Test | None:
    """Welch's t-test of mean(b) - mean(a); None unless both sides have 2+ samples."""
    if len(a) < 2 or len(b) < 2:
        return None
    sa, sb = summarize(a), summarize(b)
    assert sa.sd is not None and sb.sd is not None, "summarize gives an sd for 2+ samples"
    va, vb = sa.sd**2 / sa.n, sb.sd**2 / sb.n
    diff = sb.mean - sa.mean
    se = math.sqrt(va + vb)
    if se == 0:  # both sides constant: the difference is exact
        return Test(1.0 if diff == 0 else 0.0, (diff, diff))
    df = (va + vb) ** 2 / (va**2 / (sa.n - 1) + vb**2 / (sb.n - 1))
    t = diff / se
    p = float(2 * _t().sf(abs(t), df))
    half = float(_t().ppf(0.5 + confidence / 2, df)) * se
    return Test(p, (diff - half, diff + half))


def benjamini_hochberg(pvalues: Sequence[float]) -> list[float]:
    """BH-adjusted p-values (same order as given): reject where adjusted <= alpha."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, pvalues[i] * m / rank)
        adjusted[i] = min(1.0, running)
    return adjusted


def pct_diff(base: float | None, new: float | None) -> float | None:
    """(new - base) / base, in percent; None when either is missing or the base is 0."""
    if base is None or new is None or base == 0:
        return None
    return (new - base) / base * 100.0
