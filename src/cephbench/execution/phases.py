"""The run's set-up as phases (:data:`PHASES`): each opens one part a run may have (its work
directory, the target's session, the client hosts, the cluster's record and health watch,
the hosts over ssh, the CPU accounting) when the target or the options call for it, with its
undo on the run's exit stack. :func:`cephbench.execution.runner.execute` runs them in order
and knows none of them: a part a run may have is one phase here, not a branch there."""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cephbench.ceph.session import CephRun, ceph_run
from cephbench.execution.served import Watch, watch_for
from cephbench.execution.stopped import Stage
from cephbench.hosts.session import RunHosts
from cephbench.resources.shield import recorded
from cephbench.store import ResourceLog, Store
from cephbench.targets import FioTarget, Target
from cephbench.tools.base import RunPlan, Tool
from cephbench.tools.options import RunOptions

if TYPE_CHECKING:
    from cephbench.ceph.connection import Connection
    from cephbench.execution.accounting import Accounting
    from cephbench.hosts.inventory import Inventory

WORKDIR_PREFIX = "cephbench-run-"


@dataclass
class Opening:
    """A run as its set-up opens it, phase by phase (:data:`PHASES`): what the run was given,
    and each part a phase opened (None: not opened; the run has no such part)."""

    store: Store
    run_id: int
    tool: Tool
    plan: RunPlan
    target: Target
    conn: Connection | None
    """The cluster the target is on, as checked (None: none)."""
    options: RunOptions
    inventory: Inventory | None
    resources: ResourceLog
    stage: Stage
    work: Path | None = None
    fio_target: FioTarget | None = None
    served: Watch | None = None
    """What is behind the target, read around each workload."""
    clients: Any = None
    live: CephRun | None = None
    remote: RunHosts | None = None
    accounting: Accounting | None = None


def _open_workdir(stack: ExitStack, run: Opening) -> None:
    run.stage.now("setting up the run's work directory")
    run.work = stack.enter_context(workdir(run.run_id, run.resources))


def _open_target(stack: ExitStack, run: Opening) -> None:
    """The target's session, and the watch of what is behind it (its first reading while
    the run sets up); what the target reads while the workloads run is kept once they end,
    however they end (fio's version in pods, the volumes they got: before the pods go)."""
    run.stage.now("preparing the target")
    run.fio_target = stack.enter_context(run.target.session(run.run_id, run.resources))
    if run.plan.reads and run.tool.accounted:
        run.served = watch_for(run.target, run.fio_target, run.inventory is not None)
        if run.served is not None:
            run.served.begin()
    stack.callback(_record_late, run.store, run.run_id, run.target)


def _open_clients(stack: ExitStack, run: Opening) -> None:
    """``--clients``: each client host prepared (a server each, its own image or directory)."""
    if run.inventory is None:
        return
    from cephbench.execution.clients import open_clients

    assert run.fio_target is not None
    run.stage.now("preparing the client hosts")
    run.clients = open_clients(
        stack,
        run.inventory,
        run.target,
        run.fio_target,
        run.run_id,
        run.resources,
        shared=run.options.shared_image,
    )


def _record_setup(stack: ExitStack, run: Opening) -> None:
    """What the target's set-up ran (an RBD image's prefill, a mount's probe), kept."""
    for raw in run.target.setup_outputs():
        run.store.record_batch(run.run_id, 0, raw, [])


def _open_cluster(stack: ExitStack, run: Opening) -> None:
    """A run on Ceph: the cluster recorded and its health watched while the run lasts."""
    conn = run.conn
    if conn is None:
        return
    run.stage.now("recording the cluster and starting its health watch")
    run.live = stack.enter_context(
        ceph_run(
            run.store,
            run.run_id,
            conn,
            run.resources,
            run.options.health,
            run.target.pool,
            run.target.facts_ahead,
        )
    )


def _open_hosts(stack: ExitStack, run: Opening) -> None:
    """``--hosts``: the cluster's hosts reached over ssh (their caches, their CPU)."""
    if run.options.hosts:
        run.stage.now("connecting to the hosts")
        run.remote = stack.enter_context(RunHosts.open(run.options.hosts))


def _open_accounting(stack: ExitStack, run: Opening) -> None:
    """A run on Ceph whose tool is accounted: each step's CPU seconds, and the pool's
    placement, recorded."""
    conn = run.conn
    if conn is None or not run.tool.accounted:
        return
    from cephbench.execution.accounting import Accounting

    assert run.fio_target is not None
    run.stage.now("recording the pool's placement")
    run.accounting = stack.enter_context(
        Accounting.open(
            run.store,
            run.run_id,
            conn,
            run.target.pool,
            client_here=run.fio_target.pods is None,  # fio in pods: not this process's CPU
            hosts=run.remote,  # the OSDs' CPU read on the hosts over ssh
            objects=run.target.data_objects,
        )
    )


Phase = Callable[[ExitStack, Opening], None]
PHASES: tuple[Phase, ...] = (
    _open_workdir,
    _open_target,
    _open_clients,
    _record_setup,
    _open_cluster,
    _open_hosts,
    _open_accounting,
)
"""The run's set-up, in order: each phase opens its part (its undo on the stack, run however
the run ends) when the target or the options call for it, and says what it is doing (what a
Ctrl-C then reports). A part a run may have is one phase here, not a branch of
:func:`execute`."""


def _record_late(store: Store, run_id: int, target: Target) -> None:
    """What the target read while the workloads ran: the versions of the tools that ran them
    elsewhere (the run's tools), and its outputs."""
    found = target.tool_versions()
    if found:
        store.set_tool_versions(run_id, found)
    for raw in target.late_outputs():
        store.record_batch(run_id, 0, raw, [])


@contextmanager
def workdir(run_id: int, resources: ResourceLog) -> Iterator[Path]:
    """The run's private directory (job files, chain gates), recorded before it is made."""
    path = Path(tempfile.gettempdir()) / f"{WORKDIR_PREFIX}{run_id}-{secrets.token_hex(4)}"
    with recorded(resources, "dir", str(path)):
        try:
            path.mkdir(mode=0o700)
            yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)
