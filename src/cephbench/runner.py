"""Run a plan on a target, repeat by repeat, storing each finished repeat as it completes.

The whole suite runs in one fio process per repeat (each workload its own stonewall group),
so fio's start-up is paid once per repeat, not once per workload. The store is written per
repeat, in one transaction: a run stopped by Ctrl-C, SIGTERM or a crash keeps every finished
workload, and is never half-written.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from . import environment
from .drivers import fio
from .errors import CephbenchError, Interrupted, ParseError, UsageError
from .plan import Plan, PlannedWorkload
from .process import ProcessInterrupted, ProcessResult
from .store import RawOutput, ResourceLog, Store, WorkloadOutcome
from .targets import Target
from .units import parse_seconds


class ProgressSink(Protocol):
    """Where the runner reports progress; the CLI draws it, tests may ignore it."""

    def start(self, total_seconds: float | None) -> None: ...
    def update(self, repeat: int, workload: str, elapsed: float) -> None: ...
    def stop(self) -> None: ...


class _NoProgress:
    def start(self, total_seconds: float | None) -> None: ...
    def update(self, repeat: int, workload: str, elapsed: float) -> None: ...
    def stop(self) -> None: ...


@dataclass(frozen=True)
class RunOutcome:
    run_id: int
    failed_workloads: int


def execute(
    store: Store, plan: Plan, target: Target, *, label: str | None = None, repeats: int = 1,
    progress: ProgressSink | None = None,
) -> RunOutcome:
    """Run ``plan`` ``repeats`` times on ``target``; returns the stored run's id."""
    progress = progress or _NoProgress()
    size = plan.size
    if size is None and target.kind == "file":
        raise UsageError("the job file sets no size for its data file", hint="add --size, e.g. --size 1G")
    fio_version = fio.version()
    target.check(size or 0)
    env = environment.collect({"fio": fio_version})
    env["target"] = target.describe()
    run_id = store.start_run(
        label=label, suite=plan.suite, target=target.spec, environment=env,
        params={"repeat": repeats, "overrides": plan.overrides},
    )
    workloads = plan.workloads
    status, error, failed = "aborted", "interrupted", 0
    try:
        with target.session(run_id, ResourceLog(store, run_id)) as target_options:
            text = plan.for_target(target_options).render()
            known = [w.seconds for w in workloads]
            progress.start(sum(known) * repeats if None not in known else None)
            for repeat in range(repeats):
                started = datetime.now(UTC).isoformat(timespec="seconds")
                offset = sum(known) * repeat if None not in known else 0.0

                def tick(elapsed: float, repeat: int = repeat, offset: float = offset) -> None:
                    progress.update(repeat, _current(workloads, elapsed), offset + elapsed)

                try:
                    result = fio.run_jobfile(text, on_tick=tick)
                except ProcessInterrupted as e:
                    outcomes = _outcomes(e.result, repeat, plan, interrupted=True)
                    store.record_batch(run_id, repeat, _raw(e.result, text, started), outcomes)
                    raise Interrupted(f"run {run_id} stopped; {len(outcomes)} finished workload(s) kept") from None
                outcomes = _outcomes(result, repeat, plan)
                store.record_batch(run_id, repeat, _raw(result, text, started), outcomes)
                failed += sum(1 for o in outcomes if o.error)
        progress.stop()
        status, error = ("failed", f"{failed} workload(s) failed") if failed else ("complete", None)
    except Interrupted:
        raise
    except CephbenchError as e:
        status, error = "failed", str(e)
        raise
    finally:
        progress.stop()
        store.finish_run(run_id, status, error)
    return RunOutcome(run_id, failed)


def _current(workloads: list[PlannedWorkload], elapsed: float) -> str:
    """The workload fio is most likely running ``elapsed`` seconds into a repeat."""
    acc = 0.0
    for w in workloads:
        acc += w.seconds or 0.0
        if elapsed < acc:
            return w.name
    return workloads[-1].name


def _raw(result: ProcessResult, text: str, started: str) -> RawOutput:
    return RawOutput("fio", result.argv, text, result.stdout, result.stderr, result.returncode,
                     started, result.seconds)


def _outcomes(result: ProcessResult, repeat: int, plan: Plan, interrupted: bool = False) -> list[WorkloadOutcome]:
    try:
        jobs = fio.parse(result.stdout, repeat, result.stderr)
    except ParseError:
        if interrupted:
            return []
        message = f"fio failed: {result.last_error_line()}"
        return [WorkloadOutcome(w.name, error=message) for w in plan.workloads]
    if interrupted:
        jobs = _finished(jobs, plan)
    return [
        WorkloadOutcome(j.name, error=f"fio error: {j.message}")
        if j.error else WorkloadOutcome(j.name, results=j.results)
        for j in jobs
    ]


def _finished(jobs: list[fio.JobOutcome], plan: Plan) -> list[fio.JobOutcome]:
    """Of an interrupted fio's report, the jobs that ran to their end.

    Groups run one after another: every group before the last one that did any I/O is done.
    The last one is done only if it is time-based and reached its runtime.
    """
    started = [j for j in jobs if j.results or j.error]
    if not started:
        return []
    last_group = max(j.groupid for j in started)
    runtimes = {j.name: _runtime(plan.jobfile.merged(j)) for j in plan.jobfile.jobs}
    done = []
    for j in started:
        if j.groupid < last_group:
            done.append(j)
            continue
        planned = runtimes.get(j.name)
        measured = max((r.runtime_s or 0.0) for r in j.results) if j.results else 0.0
        if planned and measured >= 0.99 * planned:
            done.append(j)
    return done


def _runtime(options: dict[str, str | None]) -> float | None:
    if "time_based" not in options or "runtime" not in options:
        return None
    return parse_seconds(options["runtime"] or 0)
