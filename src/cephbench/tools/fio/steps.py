"""fio's steps: a plan's workloads, repeat by repeat, in batches of one fio process each.

A suite's workloads are chained in one process (see chain.py), so fio's start-up is paid
once per batch, not once per workload; a user's job file runs as written. Each batch is one
step: the runner stores its workloads and time series in one transaction, so a run stopped by
Ctrl-C, SIGTERM or a crash keeps every finished workload and is never half-written.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import nullcontext
from pathlib import Path

from cephbench.errors import ParseError
from cephbench.model import RawOutput, WorkloadOutcome, now
from cephbench.system.process import ProcessInterrupted, ProcessResult
from cephbench.tools.base import RunContext, Step
from cephbench.tools.fio import command as fio_command
from cephbench.tools.fio import parse as fio_parse
from cephbench.tools.fio.capture import with_logs, workload_series
from cephbench.tools.fio.chain import Chain
from cephbench.tools.fio.jobfile import JobFile, phase_of, phases
from cephbench.tools.fio.plan import Batch, _reads, dirs_to_make, time_based_runtime
from cephbench.tools.plan import PlannedWorkload
from cephbench.tools.schedule import MIN_REPEATS


def fio_steps(ctx: RunContext) -> Iterator[Step]:
    """Repeat by repeat, the workloads the schedule asks for (an adaptive schedule adds
    repeats until each workload's CI is narrow enough), a batch at a time."""
    if ctx.clients is not None:  # --clients: fio's client/server mode (many.py)
        from cephbench.tools.fio.many import clients_steps

        yield from clients_steps(ctx, ctx.clients)
        return
    if ctx.fio_target.pods is not None:  # pvc: fio in Kubernetes pods (pods.py)
        from cephbench.tools.fio.pods import pod_steps

        yield from pod_steps(ctx, ctx.fio_target.pods)
        return
    plan, done_before = ctx.plan, 0.0
    for repeat, names in scheduled(ctx):
        # steady state: one fio process per workload, as fio judges a job waiting at a chain
        # gate by its zero IOPS, calls that steady and ends it before it starts
        alone = ctx.options.drop_caches or plan.steady is not None
        for index, batch in enumerate(
            plan.only(names).batches(ctx.fio_target.options, alone, ctx.fio_target.tree)
        ):
            ctx.before_each()
            batch_dir = ctx.work / f"repeat{repeat}-batch{index}"  # each fio process its own
            batch_dir.mkdir()
            for d in dirs_to_make(batch.jobfile):  # the metadata suite's, in the target's tree
                Path(d).mkdir(exist_ok=True)
            step = run_batch(ctx, repeat, batch, batch_dir, done_before)
            yield step
            done_before += sum(w.seconds or 0.0 for w in batch.workloads)


def scheduled(ctx: RunContext) -> Iterator[tuple[int, list[str]]]:
    """Repeat by repeat, the workloads the schedule asks for and none it found broken (an
    adaptive schedule adds repeats until each workload's CI is narrow enough), after starting
    the progress on what the planned repeats take. Every way fio runs (here, ``--clients``,
    pods) walks a run this way."""
    schedule = ctx.schedule
    seconds = {w.name: w.seconds for w in ctx.plan.workloads}
    planned_repeats = min(schedule.repeats, MIN_REPEATS) if schedule.adaptive else schedule.repeats
    todo = [n for r in range(planned_repeats) for n in schedule.pending(r)]
    ctx.progress.start(sum(seconds[n] for n in todo) if None not in seconds.values() else None)
    t0 = time.monotonic()
    for repeat in range(schedule.repeats):
        pending = schedule.pending(repeat, time.monotonic() - t0)
        names = [n for n in pending if n not in schedule.broken]
        if names:
            yield repeat, names


def run_batch(ctx: RunContext, repeat: int, batch: Batch, work: Path, offset: float) -> Step:
    """One fio process: its workloads, their health windows and time series, as one step."""
    planned = batch.workloads
    started, t0 = now(), time.monotonic()
    options = ctx.options
    jobfile, prefixes = (
        with_logs(batch.jobfile, options.per_io_logs) if options.logs else (batch.jobfile, {})
    )
    phased = phases(batch.jobfile) if batch.chained else []
    groups = [[j.name for j in p] for p in phased]
    reads = [any(_reads(batch.jobfile.merged(j).get("rw")) for j in p) for p in phased]

    def ended(i: int) -> None:
        """The runner reads what is behind the target between two groups one of which reads
        (the last one's end: its reading after the step)."""
        if 0 <= i < len(groups) - 1 and (reads[i] or reads[i + 1]):
            ctx.group_ended(groups[i])

    with Chain(batch.links, work, ended) if batch.chained else nullcontext() as chain:
        text = (chain.jobfile(jobfile) if chain else jobfile).render()

        def tick(elapsed: float) -> None:
            name = chain.running if chain else _current(planned, elapsed)
            ctx.progress.update(repeat, name, offset + elapsed)

        interrupted = False
        try:
            result = fio_command.run_jobfile(
                text, work, env=ctx.fio_target.env, on_tick=tick, tools=ctx.fio_target.tools
            )
        except ProcessInterrupted as e:
            result, interrupted = e.result, True
    outcomes = batch_outcomes(result, repeat, batch, interrupted)
    series = [
        s
        for o in outcomes
        if not o.error and o.name in prefixes
        for s in workload_series(work, prefixes[o.name], o.name, repeat)
    ]
    return Step(
        repeat,
        _raw(result, text, started),
        outcomes,
        _windows(outcomes, planned, t0),
        series,
        interrupted=interrupted,
    )


def _windows(
    outcomes: list[WorkloadOutcome], planned: list[PlannedWorkload], t0: float
) -> list[tuple[float, float]]:
    """The time each workload of a batch most likely ran: its planned slot when every
    workload is time-based, else the whole batch."""
    t1 = time.monotonic()
    slots, acc = {}, t0
    known = [(w.name, w.seconds) for w in planned if w.seconds is not None]
    if len(known) == len(planned):
        for name, seconds in known:
            slots[name] = (acc, acc + seconds + 1.0)
            acc += seconds
    return [slots.get(o.name, (t0, t1)) for o in outcomes]


def _current(workloads: list[PlannedWorkload], elapsed: float) -> str:
    """The workload fio is most likely running ``elapsed`` seconds into a repeat."""
    acc = 0.0
    for w in workloads:
        acc += w.seconds or 0.0
        if elapsed < acc:
            return w.name
    return workloads[-1].name


def _raw(result: ProcessResult, text: str, started: str) -> RawOutput:
    return RawOutput(
        "fio",
        result.argv,
        text,
        result.stdout,
        result.stderr,
        result.returncode,
        started,
        result.seconds,
    )


def batch_outcomes(
    result: ProcessResult,
    repeat: int,
    batch: Batch,
    interrupted: bool = False,
    hosts: Mapping[str, str] | None = None,
) -> list[WorkloadOutcome]:
    """One fio run's outcomes: fio's failure on every workload when it printed no report,
    only the workloads that finished when it was interrupted (``hosts``: see fio_parse)."""
    try:
        jobs = fio_parse.parse(result.stdout, repeat, result.stderr, hosts)
    except ParseError:
        if interrupted:
            return []
        message = f"fio failed: {fio_reason(result)}"
        return [WorkloadOutcome(j.name, error=message) for j in batch.jobfile.jobs]
    if interrupted:
        jobs = _finished(jobs, batch.jobfile)
    return [j.outcome() for j in jobs]


def fio_reason(result: ProcessResult) -> str:
    """Why fio printed no report: its first ``fio: ...`` line, the specific one (``engine X not
    loadable`` comes before ``failed to load engine``, ``failed parsing rw=raed`` before ``job
    x dropped``); stderr first, where fio says it; else the process's most telling line."""
    for text in (result.stderr, result.stdout):
        for line in text.splitlines():
            if line.startswith("fio: "):
                return line.strip()
    return result.last_error_line()


def _finished(jobs: list[fio_parse.JobOutcome], jobfile: JobFile) -> list[fio_parse.JobOutcome]:
    """Of an interrupted fio's report, the jobs that ran to their end.

    A time-based job is done when it ran its whole runtime. Otherwise stonewall groups tell:
    they run one after another, so every group before the last one that did any I/O is done.
    """
    started = [j for j in jobs if j.results]
    if not started:
        return []
    phase = phase_of(jobfile)
    group = {j.name: phase.get(j.name, j.groupid) for j in started}
    last_group = max(group.values())
    runtimes = {j.name: time_based_runtime(jobfile.merged(j)) for j in jobfile.jobs}
    done = []
    for j in started:
        planned = runtimes.get(j.name)
        measured = max(r.runtime_s or 0.0 for r in j.results)
        if (planned and measured >= 0.99 * planned) or (not planned and group[j.name] < last_group):
            done.append(j)
    return done
