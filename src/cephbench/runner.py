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
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from . import environment
from .ceph import caches
from .ceph.benches import Step, StepContext, StepInterrupted, osd_details, osd_steps, rados_steps
from .ceph.network import network_steps
from .ceph.session import CephRun, HealthOptions, ceph_run, preflight
from .ceph.target import CephTarget
from .cleanup import ResourceLeft
from .drivers import fio
from .drivers.fio.chain import Chain
from .drivers.fio.jobfile import JobFile
from .errors import CephbenchError, Interrupted, ParseError, UsageError
from .plan import Batch, Plan, PlannedWorkload, ToolPlan, time_based_runtime
from .process import ProcessInterrupted, ProcessResult, run
from .schedule import MIN_REPEATS, Schedule, main_figure
from .shield import shielded_exit
from .store import RawOutput, ResourceLog, Store, WorkloadOutcome
from .targets import Target
from .timelogs import with_logs, workload_series

WORKDIR_PREFIX = "cephbench-run-"
TOOL_STEPS: dict[str, Callable[[StepContext], Iterator[Step]]] = {
    "rados-bench": rados_steps, "osd-bench": osd_steps, "iperf3": network_steps,
}
TOOL_VERSION = {"rados-bench": ["rados", "--version"], "osd-bench": ["ceph", "--version"],
                "iperf3": ["iperf3", "--version"]}


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


@dataclass(frozen=True)
class RunOptions:
    """Run-wide choices beyond the plan: health rules on Ceph, page cache dropping."""

    health: HealthOptions = field(default_factory=HealthOptions)
    drop_caches: bool = False
    target_ci: float | None = None
    """Repeat each workload until its 95 % CI half-width is within this fraction of the mean
    (at most ``repeats`` times, and no new repeat after ``max_time`` seconds)."""
    max_time: float | None = None
    logs: bool = True
    """Capture fio's bandwidth, IOPS and latency logs of every workload as time series."""
    per_io_logs: bool = False
    """Log every I/O's latency (exact per-interval percentiles) instead of interval averages."""
    request: dict = field(default_factory=dict)
    """The command line's options, stored so ``--resume`` can run the rest of the run."""


def execute(
    store: Store, plan: Plan | ToolPlan, target: Target, *, label: str | None = None, repeats: int = 1,
    progress: ProgressSink | None = None, options: RunOptions | None = None, resume: int | None = None,
) -> RunOutcome:
    """Run ``plan`` ``repeats`` times on ``target``; returns the stored run's id.

    ``resume``: a stored run of the same plan; only its workloads without figures run, and
    their results join that run.
    """
    progress, options = progress or _NoProgress(), options or RunOptions()
    tool = isinstance(plan, ToolPlan)
    size = plan.size
    if not tool and size is None and target.kind == "file":
        raise UsageError("the job file sets no size for its data file", hint="add --size, e.g. --size 1G")
    if tool and (target.kind != "rados" if plan.tool == "rados-bench" else not isinstance(target, CephTarget)):
        raise UsageError(f"the {plan.suite} suite runs on a Ceph cluster, not on {target.spec}",
                         hint=f"--target {plan.default_target}" + (" or rados:POOL" if plan.tool == "rados-bench" else ""))
    versions = _tool_versions(plan) if tool else {"fio": fio.version()}
    target.check(size or 0)
    on_ceph = isinstance(target, CephTarget)
    if on_ceph:
        preflight(target.conn, options.health)
    if options.drop_caches:
        caches.check_permitted()
    env = environment.collect(versions)
    env["target"] = target.describe()
    if on_ceph and tool and plan.tool == "osd-bench":
        env["osds"] = osd_details(target.conn)
    params = _params(plan, target, repeats, options)
    if resume is None:
        run_id = store.start_run(label=label, suite=plan.suite, target=target.spec, environment=env,
                                 params=params)
        done = ()
    else:
        run_id = resume
        done = store.get_run(resume).results
    schedule = Schedule.from_results([w.name for w in plan.workloads], repeats, done,
                                     None if tool else options.target_ci, options.max_time)
    if resume is not None:
        if not schedule.remaining():
            raise UsageError(f"run {resume} has nothing left to run: every workload has its figures")
        store.reopen_run(run_id, env)
    status, error, failed = "aborted", "interrupted", 0
    ended: tuple[str, str | None] | None = None
    try:
        resources = ResourceLog(store, run_id)
        # the clean-up (fio gone, image, pool, flags, files) runs to its end, Ctrl-C or not
        with shielded_exit(ExitStack()) as stack:
            work = stack.enter_context(workdir(run_id, resources))
            fio_target = stack.enter_context(target.session(run_id, resources))
            prefill = getattr(target, "prefill_output", None)
            if prefill is not None:
                store.record_batch(run_id, 0, prefill, [])
            live = (stack.enter_context(ceph_run(store, run_id, target.conn, resources, options.health,
                                                 target.pool)) if on_ceph else None)
            before_each = _dropper(store, run_id) if options.drop_caches else (lambda: None)
            if tool:
                failed = _run_tool(store, run_id, plan, target, resources, work, repeats, progress,
                                   live, before_each)
            else:
                failed = _run_fio(store, run_id, plan, fio_target, work, schedule, progress, live,
                                  before_each, options)
            ended = ("failed", f"{failed} workload(s) failed") if failed else ("complete", None)
        status, error = ended
    except Interrupted:
        raise
    except CephbenchError as e:
        status, error = _status_after(e, ended), str(e)
        raise
    finally:
        progress.stop()
        store.finish_run(run_id, status, error)
    return RunOutcome(run_id, failed)


def _status_after(e: CephbenchError, ended: tuple[str, str | None] | None) -> str:
    """A run's status when ``e`` ended it: "aborted" when ``e`` came while an interrupt was
    being handled (a clean-up step failing after Ctrl-C); the status the benchmark reached
    when only something it created was left (:class:`ResourceLeft`); else "failed"."""
    cause: BaseException | None = e
    while cause is not None:
        if isinstance(cause, KeyboardInterrupt):
            return "aborted"
        cause = cause.__context__
    if isinstance(e, ResourceLeft) and ended is not None:
        return ended[0]
    return "failed"


def _params(plan: Plan | ToolPlan, target: Target, repeats: int, options: RunOptions) -> dict:
    """What the run was asked to do, stored with it (and what ``--resume`` starts again from)."""
    tool, on_ceph = isinstance(plan, ToolPlan), isinstance(target, CephTarget)
    params: dict = {"repeat": repeats, "overrides": plan.overrides}
    if not tool:
        if plan.axes.swept:
            params["sweep"] = plan.axes.to_json()
        if plan.steady:
            params["steady_state"] = vars(plan.steady)
        if options.target_ci is not None:
            params.update(target_ci=options.target_ci, max_time=options.max_time)
    if options.request:
        params["request"] = options.request
    if on_ceph:
        params.update(health=vars(options.health), connection=target.conn.to_json())
    if tool:
        params["tool_options"] = plan.options
    if options.drop_caches:
        params["drop_caches"] = True
    return params


def _tool_versions(plan: ToolPlan) -> dict[str, str]:
    result = run(TOOL_VERSION[plan.tool], timeout=30)
    line = (result.stdout or result.stderr).strip().splitlines()
    return {plan.tool: line[0] if line else "unknown"}


def _dropper(store: Store, run_id: int) -> Callable[[], None]:
    """Drop the page cache before each workload; each drop kept as a series point."""
    points: list[list] = []

    def before_each() -> None:
        points.append([time.time(), caches.drop()])
        store.add_series(run_id, 0, "", "drop_caches", points[-1:])

    return before_each


def _run_fio(store: Store, run_id: int, plan: Plan, fio_target, work: Path, schedule: Schedule,
             progress: ProgressSink, live: CephRun | None, before_each: Callable[[], None],
             options: RunOptions) -> int:
    """Repeat by repeat, the workloads the schedule asks for, in batches of one fio process."""
    failed, broken = 0, set()
    seconds = {w.name: w.seconds for w in plan.workloads}
    planned_repeats = min(schedule.repeats, MIN_REPEATS) if schedule.adaptive else schedule.repeats
    todo = [n for r in range(planned_repeats) for n in schedule.pending(r)]
    progress.start(sum(seconds[n] for n in todo) if None not in seconds.values() else None)
    done_before, t0 = 0.0, time.monotonic()
    for repeat in range(schedule.repeats):
        names = [n for n in schedule.pending(repeat, time.monotonic() - t0) if n not in broken]
        if not names:
            continue
        # steady state: one fio process per workload, as fio judges a job waiting at a chain
        # gate by its zero IOPS, calls that steady and ends it before it starts
        alone = options.drop_caches or plan.steady is not None
        for index, batch in enumerate(plan.only(names).batches(fio_target.options, alone)):
            before_each()
            batch_dir = work / f"repeat{repeat}-batch{index}"  # each fio process its own
            batch_dir.mkdir()
            outcomes = _run_batch(store, run_id, repeat, batch, fio_target.env, batch_dir, progress,
                                  done_before, live, options)
            done_before += sum(w.seconds or 0.0 for w in batch.workloads)
            for o in outcomes:
                if o.error:
                    failed += 1
                    broken.add(o.name)
                else:
                    schedule.add(o.name, repeat, main_figure(o.results))
    if schedule.adaptive:
        summary = schedule.summary()
        store.finish_schedule(run_id, summary, [n for n, s in summary.items()
                                                if s["repeats"] and not s["reached"]])
    return failed


def _run_tool(store: Store, run_id: int, plan: ToolPlan, target: CephTarget, resources: ResourceLog,
              work: Path, repeats: int, progress: ProgressSink, live: CephRun | None,
              before_each: Callable[[], None]) -> int:
    """Each step one tool invocation, stored as it finishes (so a Ctrl-C keeps the done ones)."""
    failed, t_start = 0, time.monotonic()
    known = [w.seconds for w in plan.workloads]
    total = sum(known) * repeats if known and None not in known else None
    progress.start(total)
    for repeat in range(repeats):
        ctx = StepContext(target.conn, run_id, repeat, resources, target.pool, plan.options, plan.runtime,
                          before_each)
        steps = TOOL_STEPS[plan.tool](ctx)
        try:
            for step in steps:
                outcomes = live.flag(step.outcomes, step.windows) if live else step.outcomes
                store.record_batch(run_id, repeat, step.raw, outcomes)
                for workload, name, points in step.series:
                    store.add_series(run_id, repeat, workload, name, points)
                failed += sum(1 for o in outcomes if o.error)
                progress.update(repeat, outcomes[-1].name, time.monotonic() - t_start)
        except StepInterrupted:
            steps.close()  # its clean-up (objects, servers) runs now
            kept = store.finished_workloads(run_id)
            raise Interrupted(f"run {run_id} stopped; {kept} finished workload(s) kept") from None
    return failed


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
               work: Path, progress: ProgressSink, offset: float, live: CephRun | None = None,
               options: RunOptions | None = None) -> list[WorkloadOutcome]:
    """One fio process; its workloads stored in one transaction, also when interrupted."""
    planned = batch.workloads
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.monotonic()
    options = options or RunOptions()
    jobfile, prefixes = with_logs(batch.jobfile, options.per_io_logs) if options.logs else (batch.jobfile, {})
    with Chain(batch.links, work) if batch.chained else nullcontext() as chain:
        text = (chain.jobfile(jobfile) if chain else jobfile).render()

        def tick(elapsed: float) -> None:
            name = planned[min(chain.current, len(planned) - 1)].name if chain else _current(planned, elapsed)
            progress.update(repeat, name, offset + elapsed)

        try:
            result = fio.run_jobfile(text, work, env=env, on_tick=tick)
        except ProcessInterrupted as e:
            outcomes = _flagged(live, _outcomes(e.result, repeat, batch, interrupted=True), planned, t0)
            _store(store, run_id, repeat, _raw(e.result, text, started), outcomes, work, prefixes)
            kept = store.finished_workloads(run_id)
            raise Interrupted(f"run {run_id} stopped; {kept} finished workload(s) kept") from None
    outcomes = _flagged(live, _outcomes(result, repeat, batch), planned, t0)
    _store(store, run_id, repeat, _raw(result, text, started), outcomes, work, prefixes)
    return outcomes


def _store(store: Store, run_id: int, repeat: int, raw: RawOutput, outcomes: list[WorkloadOutcome],
           work: Path, prefixes: dict[str, str]) -> None:
    """A batch's workloads and the time series of those that have figures, in one transaction."""
    series = [s for o in outcomes if not o.error and o.name in prefixes
              for s in workload_series(work, prefixes[o.name], o.name, repeat)]
    with store.transaction():
        store.record_batch(run_id, repeat, raw, outcomes)
        store.add_timeseries(run_id, series)


def _flagged(live: CephRun | None, outcomes: list[WorkloadOutcome], planned: list[PlannedWorkload],
             t0: float) -> list[WorkloadOutcome]:
    """Health flags for each workload of a batch, over the time it most likely ran: its planned
    slot when every workload is time-based, else the whole batch."""
    if live is None or not outcomes:
        return outcomes
    t1 = time.monotonic()
    slots, acc = {}, t0
    if all(w.seconds is not None for w in planned):
        for w in planned:
            slots[w.name] = (acc, acc + w.seconds + 1.0)
            acc += w.seconds
    return live.flag(outcomes, [slots.get(o.name, (t0, t1)) for o in outcomes])


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

