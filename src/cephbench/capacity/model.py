"""A capacity search as a result: what was asked (:class:`Spec`), the steps in the order they
ran, and what they add up to (each repeat's bracket, the estimate over repeats, the knee);
and its document, ``cephbench.capacity/1``. Pure; everything is derived from the steps."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from typing import Any

from cephbench.capacity.at_knee import Part, at_knee
from cephbench.capacity.search import (
    DEFAULT_CI,
    DEFAULT_MAX_REPEATS,
    DEFAULT_MIN_REPEATS,
    Bracket,
    Estimate,
    Knee,
    Rule,
    SearchPlan,
    Step,
    bracket,
    estimate,
    knee,
    outcome,
    status,
)
from cephbench.capacity.steps import StepSpec

CAPACITY_SCHEMA = "cephbench.capacity/1"
SHOWN_PERCENTS = ((50.0, "p50_us"), (99.0, "p99_us"), (99.9, "p999_us"))


@dataclass(frozen=True)
class Spec:
    """What a search was asked: its rule, its steps, how it searches and repeats."""

    rule: Rule
    step: StepSpec
    start: float
    ci: float = DEFAULT_CI
    min_repeats: int = DEFAULT_MIN_REPEATS
    max_repeats: int = DEFAULT_MAX_REPEATS
    resolution: float = 0.05
    during: str | None = None
    """``--while``: what ran beside the steps (``recovery``, ``backfill``, ``scrub``), or None:
    a healthy cluster."""

    def plan(self, start: float, factor: float = 2.0) -> SearchPlan:
        return SearchPlan(
            start=start,
            factor=factor,
            resolution=self.resolution,
            granularity=self.step.generators,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": asdict(self.rule),
            "step": asdict(self.step),
            "start": self.start,
            "ci": self.ci,
            "min_repeats": self.min_repeats,
            "max_repeats": self.max_repeats,
            "resolution": self.resolution,
            "while": self.during,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Spec:
        return cls(
            Rule(**d["rule"]),
            StepSpec(**d["step"]),
            d["start"],
            d["ci"],
            d["min_repeats"],
            d["max_repeats"],
            d["resolution"],
            d.get("while"),
        )


def step_to_json(step: Step) -> dict[str, Any]:
    return {
        "repeat": step.repeat,
        "offered_iops": step.offered_iops,
        "achieved_iops": step.achieved_iops,
        "percentiles": [list(p) for p in step.percentiles],
        "run_id": step.run_id,
        "background": dict(step.background),
        "scheduler": step.scheduler,
        "osd_latency_ms": osd_latency_json(step),
    }


def osd_latency_json(step: Step) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for osd, figure, ms in step.osd_latency:
        out.setdefault(f"osd.{osd}", {})[figure] = ms
    return out


def step_from_json(d: dict[str, Any]) -> Step:
    return Step(
        d["offered_iops"],
        d["achieved_iops"],
        tuple((float(p), float(v)) for p, v in d["percentiles"]),
        d["repeat"],
        d["run_id"],
        tuple((k, float(v)) for k, v in d.get("background", {}).items()),
        d.get("scheduler"),  # stored before it was recorded: None
        tuple(
            (osd.removeprefix("osd."), figure, float(ms))
            for osd, figures in (d.get("osd_latency_ms") or {}).items()
            for figure, ms in figures.items()
        ),
    )


@dataclass(frozen=True)
class Capacity:
    """A search and what its steps say."""

    id: int | None
    status: str
    target: str | None
    spec: Spec
    steps: tuple[Step, ...]
    started_at: str | None = None
    ended_at: str | None = None
    error: str | None = None
    notes: tuple[str, ...] = field(default=())
    cross_check: dict[str, Any] | None = None
    """fio's latency_target mode run once after the search (``--cross-check``): see
    :func:`cephbench.capacity.steps.run_cross_check`."""

    @property
    def repeats(self) -> tuple[int, ...]:
        return tuple(sorted({s.repeat for s in self.steps}))

    def steps_of(self, repeat: int) -> list[Step]:
        return [s for s in self.steps if s.repeat == repeat]

    def bracket(self, repeat: int) -> Bracket:
        return bracket(self.steps_of(repeat), self.spec.rule)

    def repeat_status(self, repeat: int) -> str:
        """found, below_min, above_max, max_steps; ``stopped`` when it never ended."""
        steps = self.steps_of(repeat)
        return status(steps, self.spec.rule, self.spec.plan(steps[0].offered_iops)) or "stopped"

    @cached_property
    def capacities(self) -> tuple[float | None, ...]:
        """Each ended repeat's capacity; None where it found none."""
        out = []
        for r in self.repeats:
            ended = self.repeat_status(r)
            if ended == "stopped":
                continue  # an interrupted repeat: not a capacity, nor a failure to find one
            out.append(self.bracket(r).capacity if ended == "found" else None)
        return tuple(out)

    @cached_property
    def estimate(self) -> Estimate:
        """The stopping rule on the ended repeats; a search that completed before the rule
        was met (it stopped when the background work it measured ended) is inconclusive."""
        e = estimate(self.capacities, self.spec.ci, self.spec.min_repeats, self.spec.max_repeats)
        if e.verdict == "more" and self.status == "complete":
            return replace(
                e,
                verdict="inconclusive",
                reason=f"{e.reason}; the search stopped after {e.n} ended repeat(s) "
                "(its notes say why)",
            )
        return e

    @cached_property
    def knee(self) -> Knee | None:
        return knee(self.steps, self.spec.rule.percentile)

    @cached_property
    def part(self) -> Part | None:
        """The OSD whose latency grew first at the knee (or, with no knee, at the highest
        rate that passed); None off a cluster."""
        rule = self.spec.rule
        rate = self.knee.offered_iops if self.knee else None
        if rate is None:
            passed = [s.offered_iops for s in self.steps if outcome(s, rule) == "pass"]
            rate = max(passed) if passed else None
        figure = "op_r" if "read" in self.spec.step.rw else "op_w"
        return None if rate is None else at_knee(self.steps, rate, figure)

    def to_json(self) -> dict[str, Any]:
        rule, e, k = self.spec.rule, self.estimate, self.knee
        return {
            "schema": CAPACITY_SCHEMA,
            "capacity": self.id,
            "status": self.status,
            "error": self.error,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "target": self.target,
            "while": self.spec.during,
            "workload": {
                "rw": self.spec.step.rw,
                "bs": self.spec.step.bs,
                "iodepth": self.spec.step.iodepth,
                "step_s": self.spec.step.seconds,
                "ramp_s": self.spec.step.ramp,
                **self.spec.step.load_json(),
            },
            "rule": {
                "percentile": rule.percentile,
                "target_us": rule.target_us,
                "tolerance_pct": rule.tolerance * 100,
            },
            "ci_target_pct": self.spec.ci * 100,
            "result": {
                "capacity_iops": e.mean,
                "ci95_iops": list(e.ci95) if e.ci95 else None,
                "ci_pct": e.ci_pct,
                "verdict": e.verdict,
                "reason": e.reason,
                "repeats": e.n,
            },
            "repeats": [
                {
                    "repeat": r,
                    "status": self.repeat_status(r),
                    "capacity_iops": self.bracket(r).capacity,
                    "failing_iops": (
                        self.bracket(r).failing.offered_iops  # type: ignore[union-attr]
                        if self.bracket(r).failing
                        else None
                    ),
                    "steps": len(self.steps_of(r)),
                }
                for r in self.repeats
            ],
            "knee": {"offered_iops": k.offered_iops, "latency_us": k.latency_us} if k else None,
            "part_at_knee": self.part.to_json() if self.part else None,
            "steps": [
                {
                    "repeat": s.repeat,
                    "offered_iops": s.offered_iops,
                    "achieved_iops": s.achieved_iops,
                    "outcome": outcome(s, rule),
                    **{key: s.latency_us(p) for p, key in SHOWN_PERCENTS},
                    "percentile_us": s.latency_us(rule.percentile),
                    "run_id": s.run_id,
                    "background": dict(s.background),
                    "scheduler": s.scheduler,
                    "osd_latency_ms": osd_latency_json(s),
                }
                for s in self.steps
            ],
            "notes": list(self.notes),
            "cross_check": self.cross_check,
        }
