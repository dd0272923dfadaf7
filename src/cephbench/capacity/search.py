"""The capacity search over fixed-rate steps, the knee and the stopping rule for repeats. Pure.

A step offers a fixed rate (fio's ``rate_iops`` with Poisson arrivals, at a queue depth
deep enough not to cap it) and measures what came back: the achieved IOPS and the latency
percentiles. A step *meets the rule* when its achieved IOPS are within ``tolerance`` of the
offered rate (the target kept up) and its chosen percentile is under the latency target.

One search (one repeat) brackets, then bisects: from a start rate it multiplies by
``factor`` while steps pass (or divides while they fail) until a passing rate sits below a
failing one, then tries the geometric mean of the two until they are within ``resolution``
of each other. The repeat's capacity is the highest passing rate below the lowest failing
one: a pass above a fail (noise, a cache warming) never raises it.

Repeats stop when the 95 % Student-t CI of the repeats' capacities is within ``ci`` of their
mean (at least ``min_repeats``), or at ``max_repeats`` with the verdict ``inconclusive``: the
data cannot tell the capacity that finely.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

DEFAULT_PERCENTILE = 99.0
DEFAULT_TOLERANCE = 0.05
"""Achieved IOPS at least 95 % of the offered rate: a Poisson step of 10 s at 1,000 IOPS
has a count standard deviation of 1 %, so 5 % is five of them."""
DEFAULT_FACTOR = 2.0
DEFAULT_RESOLUTION = 0.05
"""The bisection stops when the failing rate is within 5 % above the passing one."""
DEFAULT_CI = 0.10
DEFAULT_MIN_REPEATS = 3
DEFAULT_MAX_REPEATS = 6
MAX_STEPS = 24
"""Steps of one repeat at most: a bracket from 1 IOPS to millions and its bisection fit."""
MIN_RATE = 1.0

Outcome = Literal["pass", "behind", "slow", "unknown"]
"""``behind``: achieved IOPS short of the offered rate; ``slow``: the percentile over the
target; ``unknown``: no such percentile was recorded (the step cannot be judged)."""


@dataclass(frozen=True)
class Rule:
    """What a step must meet: ``percentile`` (e.g. 99.0) under ``target_us`` microseconds,
    achieved IOPS within ``tolerance`` (a fraction) of the offered rate."""

    target_us: float
    percentile: float = DEFAULT_PERCENTILE
    tolerance: float = DEFAULT_TOLERANCE

    def __post_init__(self) -> None:
        if not self.target_us > 0:
            raise ValueError(f"latency target {self.target_us!r} us: must be above 0")
        if not 0 < self.percentile < 100:
            raise ValueError(f"percentile {self.percentile!r}: must be above 0 and below 100")
        if not 0 <= self.tolerance < 1:
            raise ValueError(f"tolerance {self.tolerance!r}: a fraction in [0, 1)")


@dataclass(frozen=True)
class Step:
    """One fixed-rate step as measured."""

    offered_iops: float
    achieved_iops: float
    percentiles: tuple[tuple[float, float], ...]
    """(percent, microseconds) as recorded: merged from the latency bins of every job,
    client and pod, never averaged."""
    repeat: int = 0
    run_id: int | None = None
    background: tuple[tuple[str, float], ...] = ()
    """What ran beside the step (recovery bytes/s, PGs degraded...), as (name, value)."""
    scheduler: str | None = None
    """The OSDs' op scheduler during the step (wpq, or mClock with its profile and
    capacity), as the step's run recorded the cluster; None off a cluster."""
    osd_latency: tuple[tuple[str, str, float], ...] = ()
    """(OSD id, figure, ms): each OSD's mean op latencies over the step, from its perf
    counters (:mod:`cephbench.ceph.counters`' figures: op_w, op_w_process, kv_sync...);
    empty off a cluster."""

    def latency_us(self, percent: float) -> float | None:
        for p, v in self.percentiles:
            if math.isclose(p, percent, rel_tol=0, abs_tol=1e-6):
                return v
        return None


def outcome(step: Step, rule: Rule) -> Outcome:
    """Whether ``step`` meets ``rule``; a step short of its offered rate is ``behind``
    whatever its latency (its latency is of a load lower than offered)."""
    if step.achieved_iops < step.offered_iops * (1 - rule.tolerance):
        return "behind"
    latency = step.latency_us(rule.percentile)
    if latency is None:
        return "unknown"
    return "pass" if latency <= rule.target_us else "slow"


@dataclass(frozen=True)
class Bracket:
    """One repeat's search so far: the highest passing rate below the lowest failing one."""

    passing: Step | None
    failing: Step | None
    ignored: tuple[Step, ...] = ()
    """Steps that passed above a failing rate: not counted (the capacity is below them)."""

    @property
    def capacity(self) -> float | None:
        return self.passing.offered_iops if self.passing else None


def bracket(steps: Sequence[Step], rule: Rule) -> Bracket:
    """The bracket ``steps`` (of one repeat) make: the lowest failing rate, and the highest
    passing rate below it. A step that cannot be judged is refused."""
    judged = [(s, outcome(s, rule)) for s in steps]
    unknown = [s for s, o in judged if o == "unknown"]
    if unknown:
        raise ValueError(
            f"the step at {unknown[0].offered_iops:g} IOPS recorded no p{rule.percentile:g}"
        )
    failing = min((s for s, o in judged if o != "pass"), key=_rate, default=None)
    ceiling = failing.offered_iops if failing else math.inf
    passed = [s for s, o in judged if o == "pass"]
    below = [s for s in passed if s.offered_iops < ceiling]
    passing = max(below, key=_rate, default=None)
    return Bracket(passing, failing, tuple(s for s in passed if s.offered_iops >= ceiling))


@dataclass(frozen=True)
class SearchPlan:
    """How one repeat searches: where it starts, how it brackets, when it stops."""

    start: float
    factor: float = DEFAULT_FACTOR
    resolution: float = DEFAULT_RESOLUTION
    max_rate: float = 10_000_000.0
    max_steps: int = MAX_STEPS
    granularity: int = 1
    """Every rate a multiple of this: the load generators (``--clients``, ``--pods``) the
    offered rate is split across, each offered the same whole number of IOPS."""

    @property
    def least(self) -> float:
        """The lowest rate offered: one I/O per second from each generator."""
        return max(MIN_RATE, float(self.granularity))

    def __post_init__(self) -> None:
        if self.granularity < 1:
            raise ValueError(f"granularity {self.granularity!r}: at least 1")
        if not self.start >= MIN_RATE:
            raise ValueError(f"start rate {self.start!r}: at least {MIN_RATE:g} IOPS")
        if not self.factor > 1 + self.resolution:
            raise ValueError("the bracket's factor must be above 1 + the resolution")
        if not self.resolution > 0:
            raise ValueError("the resolution must be above 0")


Status = Literal["found", "below_min", "above_max", "max_steps"]


def next_rate(steps: Sequence[Step], rule: Rule, plan: SearchPlan) -> float | None:
    """The next rate one repeat offers, given its steps so far; None when it is done
    (:func:`status` says how)."""
    if status(steps, rule, plan) is not None:
        return None
    if not steps:
        return _round(plan.start, plan)
    b = bracket(steps, rule)
    if b.passing is None:  # everything failed: lower
        assert b.failing is not None
        return _round(b.failing.offered_iops / plan.factor, plan)
    if b.failing is None:  # everything passed: higher
        return min(plan.max_rate, _round(b.passing.offered_iops * plan.factor, plan))
    return _round(math.sqrt(b.passing.offered_iops * b.failing.offered_iops), plan)


def status(steps: Sequence[Step], rule: Rule, plan: SearchPlan) -> Status | None:
    """How a repeat's search ended; None while it goes on."""
    if not steps:
        return None
    b = bracket(steps, rule)
    if b.passing is not None and b.failing is not None:
        gap = b.failing.offered_iops - b.passing.offered_iops
        if gap <= plan.granularity or b.failing.offered_iops <= b.passing.offered_iops * (
            1 + plan.resolution
        ):
            return "found"
    elif b.failing is not None and b.failing.offered_iops <= plan.least:
        return "below_min"
    elif b.passing is not None and b.passing.offered_iops >= plan.max_rate:
        return "above_max"
    if len(steps) >= plan.max_steps:
        return "max_steps"
    return None


def _rate(step: Step) -> float:
    return step.offered_iops


def _round(rate: float, plan: SearchPlan) -> float:
    """A rate fio takes: whole IOPS (``rate_iops`` is an integer) from each of the plan's
    load generators."""
    g = plan.granularity
    return max(plan.least, float(round(rate / g) * g))


# -- the knee ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Knee:
    """Where the latency curve turns up: the offered rate, and its percentile latency."""

    offered_iops: float
    latency_us: float


def knee(steps: Sequence[Step], percent: float) -> Knee | None:
    """The knee of the ``percent`` latency against the offered rate, over steps that kept up
    (those that fell behind measured a lower load than offered): the point farthest below
    the chord from the lowest to the highest rate, both axes scaled to [0, 1] (Kneedle, for
    a convex increasing curve); steps at one rate are pooled by their median. None with
    fewer than three rates, or a curve that does not rise."""
    by_rate: dict[float, list[float]] = {}
    for s in steps:
        value = s.latency_us(percent)
        if value is not None and s.achieved_iops >= s.offered_iops * (1 - DEFAULT_TOLERANCE):
            by_rate.setdefault(s.offered_iops, []).append(value)
    points = sorted((rate, _median(values)) for rate, values in by_rate.items())
    if len(points) < 3:
        return None
    (x0, y0), (x1, y1) = points[0], points[-1]
    if y1 <= y0 or x1 <= x0:
        return None
    best, best_gap = None, 0.0
    for x, y in points[1:-1]:
        gap = (x - x0) / (x1 - x0) - (y - y0) / (y1 - y0)
        if gap > best_gap:
            best, best_gap = (x, y), gap
    return Knee(*best) if best else None


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


# -- repeats -----------------------------------------------------------------------------

Verdict = Literal["converged", "more", "inconclusive"]


@dataclass(frozen=True)
class Estimate:
    """The capacity over repeats: the mean of the repeats' capacities and its 95 % CI."""

    n: int
    mean: float | None
    ci95: tuple[float, float] | None
    verdict: Verdict
    reason: str

    @property
    def ci_pct(self) -> float | None:
        """The CI's half-width, percent of the mean."""
        if self.ci95 is None or not self.mean:
            return None
        return (self.ci95[1] - self.ci95[0]) / 2 / self.mean * 100


def estimate(
    capacities: Sequence[float | None],
    ci: float = DEFAULT_CI,
    min_repeats: int = DEFAULT_MIN_REPEATS,
    max_repeats: int = DEFAULT_MAX_REPEATS,
) -> Estimate:
    """The stopping rule: ``converged`` when at least ``min_repeats`` capacities have a 95 %
    t-based CI within ``ci`` (a fraction) of their mean; ``more`` while repeats may still
    narrow it; ``inconclusive`` when ``max_repeats`` did not, or a repeat found no capacity
    (every rate failed, or none did) so no figure can be given."""
    from cephbench.analysis.stats import summarize

    n = len(capacities)
    if any(c is None for c in capacities):
        return Estimate(n, None, None, "inconclusive", "a repeat found no capacity")
    values = [float(c) for c in capacities if c is not None]
    if not values:
        return Estimate(0, None, None, "more", "no repeat yet")
    s = summarize(values)
    if s.ci95 is not None:  # plain floats (scipy's quantile is numpy's), as stored and printed
        s = replace(s, ci95=(float(s.ci95[0]), float(s.ci95[1])))
    if s.ci95 is None:
        verdict: Verdict = "more" if n < max_repeats else "inconclusive"
        return Estimate(n, s.mean, None, verdict, "one repeat: no CI")
    half = (s.ci95[1] - s.ci95[0]) / 2
    if n >= min_repeats and half <= ci * s.mean:
        return Estimate(
            n, s.mean, s.ci95, "converged", f"CI ±{half / s.mean * 100:.1f} % <= ±{ci * 100:g} %"
        )
    if n >= max_repeats:
        return Estimate(
            n,
            s.mean,
            s.ci95,
            "inconclusive",
            f"CI ±{half / s.mean * 100:.1f} % after {n} repeats, wider than ±{ci * 100:g} %",
        )
    return Estimate(n, s.mean, s.ci95, "more", f"CI ±{half / s.mean * 100:.1f} % so far")
