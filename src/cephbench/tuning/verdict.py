"""The A/B verdict: paired statistics over blocks of adjacent A and B rounds. Pure.

An A/B experiment runs the suite in rounds ordered A B B A A B B A ... (:mod:`rounds`);
each adjacent A/B pair is a *block*. Per cell (workload, direction, metric) every block gives
one ratio ``B / A`` of two runs taken back to back, so whatever drifts slowly (the cluster
filling up, the page cache, the machine's other load) is nearly the same in both halves of a
block and divides out. Choices, and why:

- **Paired log-ratio t-test.** The statistic is ``r_i = ln(B_i / A_i)`` per block and a
  one-sample Student t-test of ``mean(r) = 0`` (``scipy.stats.ttest_rel`` on the logs gives
  the same p). Pairing removes the between-block variation that a two-sample test (Welch, as
  ``compare`` uses for separate runs) counts as noise; logs make the effect multiplicative,
  as a configuration change's effect on IOPS or latency is (a 10 % faster OSD is 10 % at any
  load level), and ``exp`` of the interval is the CI of the relative difference directly.
  Each ``r_i`` is the log of a ratio of two aggregates of thousands of I/Os, so close to
  normal, and the t interval is exact for normal data and honest for the 3-10 blocks people
  run. A Wilcoxon signed-rank test cannot reach 5 % below 6 blocks (its smallest two-sided
  p with 5 pairs is 2/32 = 0.0625), so it would call every short experiment "no change".
- **Relative difference** is ``exp(mean r) - 1``: the geometric mean of the per-block
  ratios, in percent; its 95 % CI is ``exp`` of the t interval of ``mean r``, minus 1.
- **Multiple cells**: Benjamini-Hochberg across every cell, exactly as ``compare`` does
  (:func:`cephbench.analysis.stats.benjamini_hochberg`); the CIs shown are per cell.
- **Sequential (``--target-ci``)**: looking after every block and stopping when the CIs are
  narrow enough invalidates fixed-sample intervals. The intervals there are a *union-bound
  (alpha-spending) confidence sequence*: at the look after block ``n`` (n >= 2) the t interval
  is taken at level ``1 - alpha / (n (n - 1))``; since ``sum_{n>=2} 1 / (n (n - 1)) = 1``, all
  the intervals hold at once with probability >= 1 - alpha (Bonferroni over time), whatever the
  stopping rule, under the same normal model as the fixed test. The anytime-valid p-value is
  ``min_n p_n n (n - 1)``, and the CI reported is the running intersection of the sequence.
  It is conservative (wider than Lai's or a mixture martingale's sequence) but exact at the
  few blocks benchmarks have, where the asymptotic sequences are not yet valid.
- **Verdict**: better or worse when significant (as above), else ``same`` when the whole CI
  lies within the equivalence band (``--same-within``, default ±5 %) and ``inconclusive``
  when it does not: :mod:`cephbench.analysis.equivalence`, the rule ``compare`` uses too.
- **Smallest detectable change** (``mde_pct``, printed per workload): the half-width of the
  CI the verdict uses (the fixed design's t interval, or the confidence sequence's). The
  interval excludes 0, i.e. the test calls the cell significant, exactly when the estimate is
  farther from 0 than that half-width (``|mean r| > t se``), so it is the smallest
  difference this experiment, at the spread it saw, would have told from none (per cell,
  before the correction across cells). It is a resolution, not a power statement: a true
  difference of exactly that size is found about half the time; "more rounds" below plans
  for 80 %. It is also the quantity ``--target-ci`` stops on, so the target is the
  resolution asked for.
- **More rounds**: for a cell that is not significant, the number of further blocks after
  which a difference of the observed size and spread would be found with 80 % power by the
  fixed-sample test (the smallest ``n`` with ``(t_{1-alpha/2} + t_{0.8}) s / sqrt(n) <= |m|``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from cephbench.analysis.stats import ALPHA, benjamini_hochberg

POWER = 0.8
MAX_BLOCKS = 10_000
"""Beyond this many blocks, "more rounds" is reported as not reachable."""


def _t():
    from scipy import stats  # imported on first use, as analysis.stats does

    return stats.t


@dataclass(frozen=True)
class Paired:
    """The paired test of one cell."""

    n: int
    """Blocks (pairs) with both figures."""
    mean_log: float
    sd_log: float | None
    pct: float
    """exp(mean log ratio) - 1, in percent: B relative to A."""
    ci95: tuple[float, float] | None
    """The relative difference's CI in percent (fixed design: 95 %; sequential: the
    confidence sequence's running intersection at 1 - alpha overall)."""
    p: float | None
    """Two-sided p of mean log ratio = 0 (sequential: the anytime-valid p); None with 1 block."""

    @property
    def half_width(self) -> float | None:
        """Half the CI's width, in percentage points: the smallest detectable change."""
        return None if self.ci95 is None else (self.ci95[1] - self.ci95[0]) / 2


def log_ratios(pairs: Sequence[tuple[float, float]]) -> list[float]:
    """``ln(b / a)`` of every (a, b) pair where both are positive."""
    return [math.log(b / a) for a, b in pairs if a > 0 and b > 0]


def _interval(r: Sequence[float], level: float) -> tuple[float, float, float]:
    """(p, lo, hi): the one-sample t-test of mean(r) = 0 and its interval at ``level``."""
    n = len(r)
    m = math.fsum(r) / n
    s = math.sqrt(math.fsum((x - m) ** 2 for x in r) / (n - 1))
    if s == 0:
        return (1.0 if m == 0 else 0.0), m, m
    se = s / math.sqrt(n)
    p = float(2 * _t().sf(abs(m / se), n - 1))
    half = float(_t().ppf(0.5 + level / 2, n - 1)) * se
    return p, m - half, m + half


def spend(n: int, alpha: float = ALPHA) -> float:
    """The error spent at the look after block ``n`` (n >= 2): alpha / (n (n - 1))."""
    return alpha / (n * (n - 1))


def paired(r: Sequence[float], sequential: bool = False, alpha: float = ALPHA) -> Paired | None:
    """The test of one cell from its per-block log ratios (None without any block)."""
    n = len(r)
    if n == 0:
        return None
    m = math.fsum(r) / n
    pct = math.expm1(m) * 100
    if n == 1:
        return Paired(1, m, None, pct, None, None)
    s = math.sqrt(math.fsum((x - m) ** 2 for x in r) / (n - 1))
    if not sequential:
        p, lo, hi = _interval(r, 1 - alpha)
    else:
        p, lo, hi = 1.0, -math.inf, math.inf
        for k in range(2, n + 1):
            pk, lk, hk = _interval(r[:k], 1 - spend(k, alpha))
            p = min(p, pk * k * (k - 1))
            lo, hi = max(lo, lk), min(hi, hk)
        p = min(1.0, p)
        if lo > hi:  # the intervals of different looks no longer meet: keep the last one
            _, lo, hi = _interval(r, 1 - spend(n, alpha))
    return Paired(n, m, s, pct, (math.expm1(lo) * 100, math.expm1(hi) * 100), p)


def blocks_needed(
    mean_log: float, sd_log: float, alpha: float = ALPHA, power: float = POWER
) -> int | None:
    """Blocks the fixed-sample paired t-test needs to find a mean log ratio of ``mean_log``
    (spread ``sd_log``) with ``power``; None when no number up to MAX_BLOCKS does."""
    if mean_log == 0:
        return None
    if sd_log == 0:
        return 2
    from scipy.stats import norm

    t = _t()
    z = (norm.ppf(1 - alpha / 2) + norm.ppf(power)) * sd_log / abs(mean_log)
    if z * z > MAX_BLOCKS:
        return None
    n = max(2, math.ceil(z * z))  # the normal answer; the t answer is never below it
    while (t.ppf(1 - alpha / 2, n - 1) + t.ppf(power, n - 1)) * sd_log / math.sqrt(n) > abs(
        mean_log
    ):
        n += 1
        if n > MAX_BLOCKS:
            return None
    return n


def more_rounds(test: Paired, alpha: float = ALPHA) -> int | None:
    """Further rounds (two per block, at least one block) for 80 % power at a difference of
    the observed size; None when no number up to MAX_BLOCKS blocks would do."""
    if test.sd_log is None:
        return None
    need = blocks_needed(test.mean_log, test.sd_log, alpha)
    return None if need is None else max(1, need - test.n) * 2


def adjust(tests: Sequence[Paired | None], alpha: float = ALPHA) -> list[bool | None]:
    """Significance of each cell after Benjamini-Hochberg across the cells with a p-value."""
    ps = [t.p for t in tests if t is not None and t.p is not None]
    adjusted = iter(benjamini_hochberg(ps))
    out: list[bool | None] = []
    for t in tests:
        out.append(None if t is None or t.p is None else next(adjusted) <= alpha)
    return out


def adjusted_p(tests: Sequence[Paired | None]) -> list[float | None]:
    """BH-adjusted p of each cell (None where untested)."""
    ps = [t.p for t in tests if t is not None and t.p is not None]
    adjusted = iter(benjamini_hochberg(ps))
    return [None if t is None or t.p is None else next(adjusted) for t in tests]


def within_target(tests: Sequence[Paired | None], target_pct: float) -> bool:
    """Whether every cell has a CI whose half-width is at most ``target_pct`` points."""
    return all(
        t is not None and t.half_width is not None and t.half_width <= target_pct for t in tests
    )
