"""``cephbench run SUITE|JOBFILE --target KIND:LOCATION``: run, store, show."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import click

from cephbench.cli.common import console_err, db_option, format_option
from cephbench.cli.complete import complete_suite
from cephbench.cli.options import SectionedCommand
from cephbench.cli.run_options import run_request_options
from cephbench.errors import ExitStatus, UsageError

if TYPE_CHECKING:
    from cephbench.execution.runner import RunOutcome
    from cephbench.planning.request import RunRequest
    from cephbench.store import Store
    from cephbench.targets import Target


class RichProgress:
    """One bar for the whole run: current repeat and workload, elapsed, ETA. Silent off a TTY."""

    def __init__(self, repeats: int):
        from rich.progress import (
            BarColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.repeats = repeats
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console_err.get(),
            transient=True,
            disable=not console_err.is_terminal,
        )
        self.task = self.progress.add_task("starting fio", start=False)

    def start(self, total_seconds: float | None) -> None:
        self.progress.start()
        self.progress.update(self.task, total=total_seconds)
        self.progress.start_task(self.task)

    def update(self, repeat: int, workload: str, elapsed: float) -> None:
        rep = f"repeat {repeat + 1}/{self.repeats} " if self.repeats > 1 else ""
        self.progress.update(self.task, description=f"{rep}{workload}", completed=elapsed)

    def stop(self) -> None:
        self.progress.stop()


def _default_target(plan) -> str:
    from cephbench.lab import find_running

    if plan.default_target is not None:
        return plan.default_target
    if find_running() is None:
        raise UsageError(
            "--target is required when no lab is running",
            hint="e.g. --target file:/mnt/bench, or start a lab: cephbench lab up",
        )
    return "rbd:lab"


@click.command(cls=SectionedCommand)
@click.argument("suite", shell_complete=complete_suite)
@run_request_options
@format_option("table", "md", "json")
@db_option
def run(suite: str, fmt: str, store: Store, resume_ref: str | None, **parts) -> None:
    """Run SUITE (a built-in name, a suite .yaml, or a fio job file) and store the results.

    \b
    Examples:
      cephbench run standard --target file:/mnt/bench --label "attempt 1"
      cephbench run ./my-jobs.fio --target file:/tmp/x
      cephbench run sync --target device:/dev/sdb --destroy-data /dev/sdb
      cephbench lab up && cephbench run quick        # on a fresh RBD image in the lab
      cephbench run standard --target rbd:rbd/bench-img --size 10G --conf /etc/ceph/ceph.conf --id bench
      cephbench run rados --target rados:bench-pool   # rados bench write, seq, rand
      cephbench run osd                               # ceph tell osd.N bench, every up OSD
      cephbench run network                           # iperf3 between the lab's hosts
      cephbench run network --hosts ceph --streams-procs 4   # between the cluster's hosts
    """
    from cephbench.cli.show import emit_run
    from cephbench.planning.request import RunRequest

    request = RunRequest(suite=suite, **parts)
    resume = None
    if resume_ref is not None:
        resume, request = _resumable(store, resume_ref, suite)
    outcome = start(store, request, resume)
    emit_run(store.get_run(outcome.run_id), fmt, store)
    if outcome.failed_workloads:
        console_err.print(
            f"[red]{outcome.failed_workloads} workload(s) failed[/]; see the notes above."
        )
        raise click.exceptions.Exit(int(ExitStatus.ERROR))
    console_err.print(f"Stored as run {outcome.run_id} in {store.path}")


def start(store: Store, request: RunRequest, resume: int | None = None) -> RunOutcome:
    """Plan, target and options from a run request, then run (``resume``: the run to finish)."""
    from cephbench.execution.runner import execute

    plan, target, options = prepare(request, resume)
    return execute(
        store,
        plan,
        target,
        label=request.label,
        repeats=request.repeats,
        progress=RichProgress(request.repeats),
        options=options,
        resume=resume,
    )


def prepare(request: RunRequest, resume: int | None = None):
    """The plan, target and run options of a request, every part checked; nothing runs, and
    nothing is created (``ab`` checks its request this way before it changes a setting)."""
    # The planner, runner, targets and Ceph session (numpy, pydantic, YAML...): not for --help
    from rich.markup import escape

    from cephbench.ceph.session import HealthOptions
    from cephbench.lab.connect import resolve
    from cephbench.planning.plan import make_plan
    from cephbench.targets.cluster import CephOptions, CephTarget
    from cephbench.tools.fio.plan import Plan
    from cephbench.tools.fio.sweep import Axes
    from cephbench.tools.options import RunOptions
    from cephbench.tools.plan import Overrides

    r = request
    axes = r.axes
    if not axes.bs and r.rados_bench.object_size:
        axes = replace(axes, bs=Axes.parse(bs=r.rados_bench.object_size).bs)
    one = axes.single
    overrides = Overrides(
        runtime=r.overrides.runtime,
        size=r.overrides.size,
        iodepth=_int(one.get("iodepth")),
        numjobs=_int(one.get("numjobs")),
        bs=one.get("bs"),
        rw=one.get("rw"),
        rwmixread=_int(one.get("rwmixread")),
        ramp_time=r.overrides.ramp_time,
    )
    tool_options = {"concurrent": r.rados_bench.concurrent_ios, "run_name": r.rados_bench.run_name}
    plan = make_plan(
        r.suite,
        overrides,
        {k: v for k, v in tool_options.items() if v is not None},
        axes=axes,
        steady=r.steady,
    )
    if isinstance(plan, Plan) and plan.as_written:
        console_err.print(
            f"[yellow]note:[/] {escape(r.suite)} runs as written, with fio's pause "
            f"between its groups: {escape(plan.as_written)}"
        )
    for replaced in plan.replaced_locations() if isinstance(plan, Plan) else ():
        console_err.print(f"[yellow]note:[/] {escape(r.suite)}: {escape(replaced)}")
    if r.network.given and plan.tool != "iperf3":
        raise UsageError(
            "--all-pairs-at-once and --streams-procs are for the network suite",
            hint="cephbench run network --hosts ...",
        )
    if resume is not None and plan.tool != "fio":
        raise UsageError(
            "--resume is for fio suites and job files", hint="run the tool suite again"
        )
    target = _target(r.target or _default_target(plan), r.device.destroy_data)
    if isinstance(target, CephTarget):
        c = r.ceph
        conn = resolve(c.conf, c.client_id, c.keyring, c.cluster, c.connect_timeout)
        target.configure(
            CephOptions(conn, r.pool.size, r.pool.pg_num, prefill=r.pool.prefill and plan.reads)
        )
    elif r.ceph.given:
        raise UsageError(
            f"--conf, --id, --keyring and --cluster are for Ceph targets, not {target.kind}:"
        )
    health = HealthOptions(
        allow_unhealthy=r.health.allow_unhealthy,
        quiesce=r.health.quiesce,
        interval=r.health.interval,
    )
    options = RunOptions(
        health,
        r.device.drop_caches,
        target_ci=r.adaptive.target_ci,
        max_time=r.adaptive.max_time,
        logs=r.capture.logs,
        per_io_logs=r.capture.per_io_log,
        clients=r.clients.spec,
        shared_image=r.clients.shared_image,
        network=r.network,
        request=r.to_json(),
        hosts=r.device.hosts,
    )
    return plan, target, options


def _int(value: str | None) -> int | None:
    return None if value is None else int(value)


def _resumable(store: Store, ref: str, suite: str) -> tuple[int, RunRequest]:
    """The run to resume and the request it was started with (migrated when stored by an
    older cephbench)."""
    from cephbench.planning.request import RunRequest

    run = store.get_run(ref)
    stored = run.params.get("request")
    if stored is None:
        raise UsageError(
            f"run {run.id} cannot be resumed: it was not started by `cephbench run` of this version"
        )
    if run.status == "running":
        raise UsageError(f"run {run.id} is still running", hint="wait for it, or stop it first")
    if suite != run.suite:
        raise UsageError(
            f"run {run.id} ran {run.suite}, not {suite}",
            hint=f"cephbench run {run.suite} --resume {run.id}",
        )
    try:
        return run.id, RunRequest.from_json(stored, suite=run.suite)
    except UsageError as e:
        raise UsageError(f"run {run.id} cannot be resumed: {e.message}", hint=e.hint) from None


def _target(spec: str, destroy_data: str | None) -> Target:
    from cephbench.targets import TargetOptions, parse_target

    return parse_target(spec, TargetOptions(destroy_data=destroy_data))
