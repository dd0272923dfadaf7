"""A capacity search run to its end: repeats of the search (:mod:`.search`), each step
measured by ``measure`` (:func:`.steps.run_step` on a target) and stored as it finishes, until
the stopping rule says converged or inconclusive. A later repeat starts near the estimate so
far (:func:`offset`) and brackets by ±25 %, not by doubling: it needs fewer steps to reach
the same resolution."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from cephbench.capacity.model import Capacity, Spec, step_from_json, step_to_json
from cephbench.capacity.output import cross_check_line
from cephbench.capacity.search import Step, bracket, estimate, next_rate, outcome, status
from cephbench.errors import CephbenchError

if TYPE_CHECKING:
    from cephbench.store import Store

REPEAT_FACTOR = 1.25
GOLDEN = (5**0.5 - 1) / 2

Measure = Callable[[float, int], Step]
"""Runs one step: (offered IOPS, repeat) -> what it measured."""
Background = Callable[[], tuple[tuple[str, float], ...]]
"""What runs beside the steps, sampled after each (recovery bytes/s, PGs degraded...)."""


def offset(repeat: int, resolution: float) -> float:
    """Where repeat ``repeat`` starts relative to the estimate so far: a different fraction of
    ±``resolution`` each repeat (the golden ratio's multiples, modulo 1: spread evenly, and
    the same every time). Started on one grid, every repeat would land on the same rate and
    the CI would shrink to nothing however noisy the steps; offset, the resolution's share of
    the uncertainty shows in the spread of the repeats."""
    return ((repeat * GOLDEN) % 1.0 - 0.5) * 2 * resolution


def scheduler_of(store: Store, run_id: int) -> str | None:
    """The OSDs' op scheduler as run ``run_id`` recorded the cluster (None: no cluster)."""
    from cephbench.ceph import scheduler

    found = store.fingerprint(run_id)
    return scheduler.summarize(found[0]) if found else None


def run_capacity(
    store: Store,
    spec: Spec,
    target: str | None,
    measure: Measure,
    note: Callable[[str], None] = lambda _: None,
    background: Background | None = None,
    ended: Callable[[], str | None] | None = None,
    cross_check: Callable[[], dict[str, Any]] | None = None,
    *,
    stop_when_ended: bool = False,
) -> int:
    """Run the search; returns its id in the store (stored as it goes: a stopped search
    keeps its steps). ``ended``: after each step, a note when the background work is over
    (said once, and stored with the search); with ``stop_when_ended`` (background work that
    cannot be asked for again: a recovery) the search stops there, so that its figure comes
    only from the repeats that ended while the work ran (the repeat under way is left
    unfinished, and the model counts no unfinished repeat). ``cross_check``: run after the
    search, what it returns stored with it (``--cross-check``: fio's latency_target mode)."""
    from cephbench.store import capacities

    cap_id = capacities.start(store, target, spec.to_json())
    rule = spec.rule
    try:
        found: list[float | None] = []
        said_ended = False
        for repeat in range(spec.max_repeats):
            so_far = estimate(found, spec.ci, spec.min_repeats, spec.max_repeats).mean
            plan = (
                spec.plan(
                    float(max(1, round(so_far * (1 + offset(repeat, spec.resolution))))),
                    REPEAT_FACTOR,
                )
                if so_far
                else spec.plan(spec.start)
            )
            steps: list[Step] = []
            while (rate := next_rate(steps, rule, plan)) is not None:
                step = measure(rate, repeat)
                if outcome(step, rule) == "unknown":  # a step behind needs no latency
                    raise CephbenchError(
                        f"the step at {rate:g} IOPS (run {step.run_id}) recorded no "
                        f"p{rule.percentile:g}: the search cannot judge it",
                        hint=f"cephbench show {step.run_id} says what it recorded; "
                        "a longer --step-time records more",
                    )
                if background is not None:
                    step = replace(step, background=background())
                if step.run_id is not None and step.scheduler is None:
                    step = replace(step, scheduler=scheduler_of(store, step.run_id))
                steps.append(step)
                capacities.add_step(store, cap_id, step_to_json(step))
                p = step.latency_us(rule.percentile)
                note(
                    f"repeat {repeat + 1}: {rate:,.0f} IOPS offered, {step.achieved_iops:,.0f} "
                    f"achieved, p{rule.percentile:g} "
                    f"{'-' if p is None else f'{p / 1000:.2f} ms'}: {outcome(step, rule)}"
                )
                if ended is not None and not said_ended and (text := ended()):
                    said_ended = True
                    capacities.add_note(store, cap_id, text)
                    note(text)
                    if stop_when_ended:
                        break
            if said_ended and stop_when_ended:
                break
            end = status(steps, rule, plan)
            found.append(bracket(steps, rule).capacity if end == "found" else None)
            e = estimate(found, spec.ci, spec.min_repeats, spec.max_repeats)
            note(f"after repeat {repeat + 1}: {e.verdict} ({e.reason})")
            if e.verdict != "more":
                break
        if cross_check is not None:
            note("cross-check: fio's own latency_target mode, once")
            found_by_fio = cross_check()
            capacities.set_cross_check(store, cap_id, found_by_fio)
            note(cross_check_line(found_by_fio, rule.percentile))
    except KeyboardInterrupt:
        capacities.finish(store, cap_id, "aborted", "interrupted")
        raise
    except Exception as e:
        capacities.finish(store, cap_id, "failed", str(e))
        raise
    capacities.finish(store, cap_id, "complete")
    return cap_id


def load(store: Store, cap_id: int) -> Capacity:
    """A stored search as a :class:`Capacity`."""
    from cephbench.store import capacities

    row = capacities.get(store, cap_id)
    return Capacity(
        row.id,
        row.status,
        row.target,
        Spec.from_json(row.spec),
        tuple(step_from_json(s) for s in row.steps),
        row.started_at,
        row.ended_at,
        row.error,
        tuple(row.notes),
        row.cross_check,
    )
