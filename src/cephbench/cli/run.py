"""``cephbench run SUITE|JOBFILE --target KIND:LOCATION``: run, store, show."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cephbench.cli.common import console_err, db_option, format_option, one_ceph_connection
from cephbench.cli.complete import complete_suite
from cephbench.cli.options import SectionedCommand
from cephbench.cli.run_options import run_request_options
from cephbench.errors import ExitStatus, UsageError

if TYPE_CHECKING:
    from cephbench.execution.runner import RunOutcome
    from cephbench.planning.request import RunRequest
    from cephbench.store import Store


@click.command(cls=SectionedCommand)
@click.argument("suite", shell_complete=complete_suite)
@run_request_options
@format_option("table", "md", "json")
@db_option
@one_ceph_connection
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
      cephbench run quick --target pvc:ceph-block --pods 3   # fio in 3 Kubernetes pods at once
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
    """Run a request, its progress drawn (``resume``: the run to finish)."""
    from cephbench.cli.live import RichProgress, print_note
    from cephbench.execution.runner import run_request

    return run_request(store, request, progress=RichProgress, note=print_note, resume=resume)


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
