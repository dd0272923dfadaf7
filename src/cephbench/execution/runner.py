"""Run a plan on a target with its tool, storing each step as it finishes.

The runner is one loop that knows no particular tool: the tool (tools/) yields steps, one
invocation each; the runner flags each step's results with the cluster's health during it,
stores its workloads, raw output and time series in one transaction, and feeds the
schedule (repeats, adaptive repeats). A run stopped by Ctrl-C, SIGTERM or a crash keeps
every finished step and is never half-written; what the run created is recorded before it
is created and removed however it ends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cephbench import tools
from cephbench.ceph import caches
from cephbench.ceph.session import (
    CephRun,
    HealthOptions,
    check_beside_preflight,
    preflight,
)
from cephbench.errors import CephbenchError, Interrupted, ToolMissing, UsageError
from cephbench.execution.params import run_params
from cephbench.execution.phases import PHASES, Opening
from cephbench.execution.served import Watch
from cephbench.execution.stopped import (
    BEFORE,
    WORKLOADS,
    RunStopped,
    Stage,
    TrackedLog,
    interrupt_of,
    stopped,
)
from cephbench.hosts.session import RunHosts, host_fingerprints
from cephbench.model import Result, RunStatus, Series
from cephbench.resources.shield import shielded_exit
from cephbench.resources.undo import ResourceLeft
from cephbench.store import Store
from cephbench.system import environment
from cephbench.targets import Target
from cephbench.targets.cluster import CephTarget
from cephbench.tools.base import Progress, RunContext, RunPlan, Step, Stopped, Tool
from cephbench.tools.options import RunOptions
from cephbench.tools.schedule import Schedule

if TYPE_CHECKING:
    from cephbench.ceph.connection import Connection
    from cephbench.execution.accounting import Accounting
    from cephbench.planning.request import RunRequest


class _NoProgress:
    def start(self, total_seconds: float | None) -> None: ...
    def update(self, repeat: int, workload: str, elapsed: float) -> None: ...
    def stop(self) -> None: ...


@dataclass(frozen=True)
class RunOutcome:
    run_id: int
    failed_workloads: int


def run_request(
    store: Store,
    request: RunRequest,
    *,
    progress: Callable[[int], Progress] | None = None,
    note: Callable[[str], None] = lambda _: None,
    resume: int | None = None,
) -> RunOutcome:
    """Resolve ``request`` and run it (``progress``: made for the number of repeats)."""
    with _before_start():
        run = request.resolve(resume, note)
        return execute(
            store,
            run.plan,
            run.target,
            label=run.label,
            repeats=run.repeats,
            progress=progress(run.repeats) if progress else None,
            options=run.options,
            request=run.request,
            resume=resume,
        )


def _checked(
    tool: Tool, target: Target, size: int, health: HealthOptions
) -> tuple[dict[str, str], Connection | None]:
    """The target checked, and beside it what does not wait for it: this machine's tool
    versions where the tool runs elsewhere (pods), and the health of a cluster the target
    names before it is checked (:attr:`Target.cluster_ahead`: the lab's class). The check's
    error comes first, then the health's. Returns the versions and the cluster whose health
    was read (None: none was yet)."""
    versions = None if target.tool_elsewhere else tool.versions(target.client_tools)
    with ThreadPoolExecutor(2, thread_name_prefix="beside-check") as pool:
        local = pool.submit(this_machines_versions, tool, target) if versions is None else None
        ahead = pool.submit(_health_ahead, target, health)
        target.check(size)
    if local is not None:
        versions = local.result()
    return versions or {}, ahead.result()


def _health_ahead(target: Target, health: HealthOptions) -> Connection | None:
    """:func:`preflight` of the cluster the target names before it is checked; that cluster
    (None: it names none yet)."""
    conn = target.cluster_ahead
    if conn is not None:
        preflight(conn, health)
    return conn


def this_machines_versions(tool: Tool, target: Target) -> dict[str, str]:
    """The tool's version on this machine, for a run whose tool runs elsewhere (pods): none
    when this machine has no such tool, which such a run does not need."""
    try:
        return tool.versions(target.client_tools)
    except ToolMissing:
        return {}


def execute(
    store: Store,
    plan: RunPlan,
    target: Target,
    *,
    label: str | None = None,
    repeats: int = 1,
    progress: Progress | None = None,
    options: RunOptions | None = None,
    request: dict[str, Any] | None = None,
    resume: int | None = None,
) -> RunOutcome:
    """Run ``plan`` ``repeats`` times on ``target``; returns the stored run's id.

    ``request``: the run request's stored JSON (``params["request"]``: what ``--resume``
    starts again from). ``resume``: a stored run of the same plan; only its workloads
    without figures run, and their results join that run.
    """
    progress, options = progress or _NoProgress(), options or RunOptions()
    tool = tools.get(plan.tool)
    tool.check_target(plan, target)
    if resume is not None and not tool.resumable:
        raise UsageError(f"the {plan.suite} suite cannot be resumed", hint="run it again")
    versions, checked = _checked(tool, target, plan.size or 0, options.health)
    conn = target.cluster
    if isinstance(target, CephTarget):  # what it asks of the cluster beside the health read
        check_beside_preflight(target.conn, options.health, target.check_cluster)
    elif conn is not None and conn is not checked:
        preflight(conn, options.health)
    if options.drop_caches:
        caches.check_permitted()
    inventory = None
    if options.clients:
        from cephbench.execution.clients import load_clients, preflight_clients

        inventory = load_clients(options.clients, target)
        preflight_clients(inventory, target)
    env = environment.collect(versions)
    env["target"] = target.describe()
    env.update(tool.environment(plan, target))
    if options.hosts:  # every host's fingerprint; each may drop its cache (--drop-caches)
        env["hosts"] = host_fingerprints(options.hosts, check_drop=options.drop_caches)
    params = run_params(plan, tool, target, repeats, options, request)
    if inventory is not None:
        from cephbench.execution.clients import client_hosts

        params["clients"] = [h.name for h in client_hosts(inventory)]
        params["shared_image"] = options.shared_image
    if resume is None:
        run_id = store.start_run(
            label=label, suite=plan.suite, target=target.spec, environment=env, params=params
        )
        done: tuple[Result, ...] = ()
    else:
        run_id = resume
        done = store.get_run(resume).results
    adaptive = options.target_ci if tool.resumable else None
    schedule = Schedule.from_results(
        [w.name for w in plan.workloads], repeats, done, adaptive, options.max_time
    )
    if resume is not None:
        if not schedule.remaining():
            raise UsageError(
                f"run {resume} has nothing left to run: every workload has its figures"
            )
        store.reopen_run(run_id, env)
    status: RunStatus = "aborted"
    error: str | None = "interrupted"
    failed = 0
    ended: tuple[RunStatus, str | None] | None = None
    resources = TrackedLog(store, run_id)
    stage = Stage(resources)
    try:
        # the clean-up (fio gone, image, pool, flags, files) runs to its end, Ctrl-C or not
        with shielded_exit(ExitStack()) as stack:
            run = Opening(
                store, run_id, tool, plan, target, conn, options, inventory, resources, stage
            )
            for phase in PHASES:
                phase(stack, run)
            assert run.work is not None and run.fio_target is not None
            ctx: RunContext[RunPlan] = RunContext(
                run_id,
                plan,
                target,
                run.fio_target,
                resources,
                run.work,
                schedule,
                progress,
                options,
                _dropper(store, run_id, run.remote) if options.drop_caches else (lambda: None),
                run.clients,
                run.live.facts if run.live is not None else {},
            )
            if run.served is not None:
                ctx.group_ended = run.served.group_ended
            stage.now(WORKLOADS)
            failed = _run_steps(store, tool, ctx, run.live, run.accounting, run.served)
            ended = ("failed", f"{failed} workload(s) failed") if failed else ("complete", None)
            stage.now("cleaning up")
        assert ended is not None, "the run's block sets how it ended, or raises"
        status, error = ended
    except KeyboardInterrupt as e:  # the clean-up has run: say what it removed and left
        stop = stopped(store, run_id, stage, schedule, e)
        error = stop.reason
        raise stop.error() from e
    except CephbenchError as e:
        status, error = _status_after(e, ended), str(e)
        interrupt = interrupt_of(e)
        if interrupt is not None:  # the clean-up after a Ctrl-C could not remove everything
            stop = stopped(store, run_id, stage, schedule, interrupt, failure=e)
            error = stop.reason
            raise stop.error() from e
        raise
    finally:
        progress.stop()
        store.finish_run(run_id, status, error)
    return RunOutcome(run_id, failed)


@contextmanager
def _before_start() -> Iterator[None]:
    """A Ctrl-C before the run was stored says so: nothing was kept, nothing is left (once
    it is stored, :func:`execute` says what the run kept and removed)."""
    try:
        yield
    except RunStopped:
        raise
    except KeyboardInterrupt as e:
        raise Interrupted(BEFORE) from e


def _status_after(e: CephbenchError, ended: tuple[RunStatus, str | None] | None) -> RunStatus:
    """A run's status when ``e`` ended it: "aborted" when ``e`` came while an interrupt was
    being handled (a clean-up step failing after Ctrl-C); the status the benchmark reached
    when only something it created was left (:class:`ResourceLeft`); else "failed"."""
    if interrupt_of(e) is not None:
        return "aborted"
    if isinstance(e, ResourceLeft) and ended is not None:
        return ended[0]
    return "failed"


def _run_steps(
    store: Store,
    tool: Tool,
    ctx: RunContext,
    live: CephRun | None,
    accounting: Accounting | None = None,
    served: Watch | None = None,
) -> int:
    """Store each of the tool's steps as it finishes; the number of workloads that failed
    (``accounting``: each step's CPU seconds recorded too)."""
    failed, t0 = 0, time.monotonic()
    steps = tool.steps(ctx)
    try:
        while True:
            before = accounting.snapshot() if accounting else None
            if served is not None:
                served.start()
            step = next(steps, None)
            if step is None:
                break
            outcomes = (
                live.flag(step.outcomes, step.windows) if live and step.outcomes else step.outcomes
            )
            if served is not None and outcomes:  # reads a cache served: flagged
                outcomes, records = served.flag(outcomes, step.windows, step.repeat)
                served.store(store, ctx.run_id, records)
            _store(store, ctx.run_id, step, outcomes)
            if accounting is not None and before is not None and outcomes:
                accounting.record(before, step.repeat, outcomes, step.windows)
            for o in outcomes:
                ctx.schedule.record(o.name, step.repeat, o.results, o.error)
            failed += sum(1 for o in outcomes if o.error)
            if step.interrupted:
                raise Stopped
            if outcomes:
                ctx.progress.update(step.repeat, outcomes[-1].name, time.monotonic() - t0)
    except Stopped:  # the step it stopped is stored; execute() says what was kept
        raise Interrupted("interrupted") from None
    if ctx.schedule.adaptive:
        summary = ctx.schedule.summary()
        store.finish_schedule(
            ctx.run_id,
            summary,
            [n for n, s in summary.items() if s["repeats"] and not s["reached"]],
        )
    return failed


def _store(store: Store, run_id: int, step: Step, outcomes: list) -> None:
    """A step's workloads and time series, in one transaction."""
    if step.raw is None and not outcomes:
        return
    with store.transaction():
        store.record_batch(run_id, step.repeat, step.raw, outcomes)
        points = [
            Series(step.repeat, w, "", m, [p[0] for p in pts], [p[1] for p in pts])
            for w, m, pts in step.points
        ]
        store.add_series(run_id, [*step.series, *points])


def _dropper(store: Store, run_id: int, remote: RunHosts | None = None) -> Callable[[], None]:
    """Drop the page cache before each workload, here and on every ``--hosts`` host; each
    drop kept as a series point (the hosts' under ``hosts``)."""

    def before_each() -> None:
        dropped: dict[str, Any] = caches.drop()
        if remote is not None:
            dropped["hosts"] = remote.drop()
        store.add_series(run_id, [Series(0, "", "", "drop_caches", [time.time()], [dropped])])

    return before_each
