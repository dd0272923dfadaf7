"""Run a plan on a target, repeat by repeat, storing each finished repeat as it completes.

The whole suite runs in one fio process per repeat (each workload its own stonewall group),
so fio's start-up is paid once per repeat, not once per workload. The store is written per
repeat, in one transaction: a run stopped by Ctrl-C, SIGTERM or a crash keeps every finished
workload, and is never half-written.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from . import environment
from .drivers import fio
from .drivers.fio.chain import Chain
from .drivers.fio.jobfile import JobFile
from .errors import CephbenchError, Interrupted, ParseError, UsageError
from .plan import Batch, Plan, PlannedWorkload, time_based_runtime
from .process import ProcessInterrupted, ProcessResult
from .store import RawOutput, ResourceLog, Store, WorkloadOutcome
from .targets import Target

WORKDIR_PREFIX = "cephbench-run-"


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
    status, error, failed = "aborted", "interrupted", 0
    try:
        resources = ResourceLog(store, run_id)
        with workdir(run_id, resources) as work, target.session(run_id, resources) as fio_target:
            batches = plan.batches(fio_target.options)
            known = [w.seconds for w in plan.workloads]
            per_repeat = sum(known) if None not in known else None
            progress.start(per_repeat * repeats if per_repeat is not None else None)
            for repeat in range(repeats):
                done_before = 0.0
                for index, batch in enumerate(batches):
                    batch_dir = work / f"repeat{repeat}-batch{index}"  # each fio process its own
                    batch_dir.mkdir()
                    outcomes = _run_batch(store, run_id, repeat, batch, fio_target.env, batch_dir,
                                          progress, (per_repeat or 0.0) * repeat + done_before)
                    done_before += sum(w.seconds or 0.0 for w in batch.workloads)
                    failed += sum(1 for o in outcomes if o.error)
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


@contextmanager
def workdir(run_id: int, resources: ResourceLog) -> Iterator[Path]:
    """The run's private directory (job files, chain gates), recorded before it is made."""
    path = Path(tempfile.gettempdir()) / f"{WORKDIR_PREFIX}{run_id}-{secrets.token_hex(4)}"
    rid = resources.add("dir", str(path))
    try:
        path.mkdir(mode=0o700)
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        resources.removed(rid)


def _run_batch(store: Store, run_id: int, repeat: int, batch: Batch, env: dict[str, str],
               work: Path, progress: ProgressSink, offset: float) -> list[WorkloadOutcome]:
    """One fio process; its workloads stored in one transaction, also when interrupted."""
    planned = batch.workloads
    started = datetime.now(UTC).isoformat(timespec="seconds")
    with Chain(batch.links, work) if batch.chained else nullcontext() as chain:
        text = (chain.jobfile(batch.jobfile) if chain else batch.jobfile).render()

        def tick(elapsed: float) -> None:
            name = planned[min(chain.current, len(planned) - 1)].name if chain else _current(planned, elapsed)
            progress.update(repeat, name, offset + elapsed)

        try:
            result = fio.run_jobfile(text, work, env=env, on_tick=tick)
        except ProcessInterrupted as e:
            outcomes = _outcomes(e.result, repeat, batch, interrupted=True)
            store.record_batch(run_id, repeat, _raw(e.result, text, started), outcomes)
            kept = store.finished_workloads(run_id)
            raise Interrupted(f"run {run_id} stopped; {kept} finished workload(s) kept") from None
    outcomes = _outcomes(result, repeat, batch)
    store.record_batch(run_id, repeat, _raw(result, text, started), outcomes)
    return outcomes


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


def _outcomes(result: ProcessResult, repeat: int, batch: Batch, interrupted: bool = False) -> list[WorkloadOutcome]:
    try:
        jobs = fio.parse(result.stdout, repeat, result.stderr)
    except ParseError:
        if interrupted:
            return []
        message = f"fio failed: {result.last_error_line()}"
        return [WorkloadOutcome(j.name, error=message) for j in batch.jobfile.jobs]
    if interrupted:
        jobs = _finished(jobs, batch.jobfile)
    return [_outcome(j) for j in jobs]


def _outcome(job: fio.JobOutcome) -> WorkloadOutcome:
    if job.error:
        return WorkloadOutcome(job.name, error=f"fio error: {job.message}")
    if not job.results:  # fio says nothing failed (a failed exec_prerun, say), yet no I/O was done
        return WorkloadOutcome(job.name, error="fio did no I/O for this workload; see its raw output")
    return WorkloadOutcome(job.name, results=job.results)


def _finished(jobs: list[fio.JobOutcome], jobfile: JobFile) -> list[fio.JobOutcome]:
    """Of an interrupted fio's report, the jobs that ran to their end.

    A time-based job is done when it ran its whole runtime. Otherwise groups tell: they run
    one after another, so every group before the last one that did any I/O is done.
    """
    started = [j for j in jobs if j.results]
    if not started:
        return []
    last_group = max(j.groupid for j in started)
    runtimes = {j.name: time_based_runtime(jobfile.merged(j)) for j in jobfile.jobs}
    done = []
    for j in started:
        planned = runtimes.get(j.name)
        measured = max(r.runtime_s or 0.0 for r in j.results)
        if (planned and measured >= 0.99 * planned) or (not planned and j.groupid < last_group):
            done.append(j)
    return done

