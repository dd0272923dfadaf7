"""A run request resolved to what runs: the plan, the target (configured for the cluster it
is on) and the run options, every part checked. Nothing runs and nothing is created, so a
command checks a request this way before it changes anything (``ab``, before a setting).

This is the one place the command line's option groups meet the layers below: each group
goes on as the type its layer owns (the overrides, health rules, the network suite's and
rados bench's options), and the request itself goes no lower than the runner's stored
params (its JSON, ``params["request"]``, for ``--resume``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from cephbench.errors import UsageError
from cephbench.planning.plan import make_plan
from cephbench.planning.request import CephConnectionOptions, PoolOptions, RunRequest
from cephbench.targets import Target
from cephbench.tools.base import RunPlan
from cephbench.tools.fio.plan import Plan
from cephbench.tools.fio.sweep import Axes
from cephbench.tools.options import RunOptions


@dataclass(frozen=True)
class ResolvedRun:
    """What ``execute`` takes to run a request."""

    plan: RunPlan
    target: Target
    options: RunOptions
    label: str | None
    repeats: int
    request: dict[str, Any]
    """The request's stored JSON (``cephbench.run-request/N``)."""


def resolve(
    request: RunRequest, resume: int | None = None, note: Callable[[str], None] = lambda _: None
) -> ResolvedRun:
    """The plan, target and options of ``request`` (``resume``: a run of it to finish);
    ``note`` is told what the user should know (a job file run as written)."""
    r = request
    plan = _plan(r)
    if isinstance(plan, Plan) and plan.as_written:
        note(f"{r.suite} runs as written, with fio's pause between its groups: {plan.as_written}")
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
    _configure(target, plan, r.ceph, r.pool)
    options = RunOptions(
        r.health,
        r.device.drop_caches,
        target_ci=r.adaptive.target_ci,
        max_time=r.adaptive.max_time,
        logs=r.capture.logs,
        per_io_logs=r.capture.per_io_log,
        clients=r.clients.spec,
        shared_image=r.clients.shared_image,
        network=r.network,
        hosts=r.device.hosts,
    )
    return ResolvedRun(plan, target, options, r.label, r.repeats, r.to_json())


def _plan(r: RunRequest) -> Plan | RunPlan:
    """The suite's plan: the axes with one value override every workload, rados bench's
    ``--object-size`` is its ``--bs`` when that is not given."""
    axes = r.axes
    if not axes.bs and r.rados_bench.object_size:
        axes = replace(axes, bs=Axes.parse(bs=r.rados_bench.object_size).bs)
    overrides = r.overrides.with_single(axes.single)
    return make_plan(r.suite, overrides, r.rados_bench.tool_options(), axes=axes, steady=r.steady)


def _default_target(plan: RunPlan) -> str:
    from cephbench.lab import find_running

    if plan.default_target is not None:
        return plan.default_target
    if find_running() is None:
        raise UsageError(
            "--target is required when no lab is running",
            hint="e.g. --target file:/mnt/bench, or start a lab: cephbench lab up",
        )
    return "rbd:lab"


def _target(spec: str, destroy_data: str | None) -> Target:
    from cephbench.targets import TargetOptions, parse_target

    return parse_target(spec, TargetOptions(destroy_data=destroy_data))


def _configure(
    target: Target, plan: RunPlan, ceph: CephConnectionOptions, pool: PoolOptions
) -> None:
    """A Ceph target's connection and pools; connection options refused for other targets."""
    from cephbench.ceph.connection import resolve as connect
    from cephbench.targets.cluster import CephOptions, CephTarget

    if isinstance(target, CephTarget):
        c = ceph
        conn = connect(c.conf, c.client_id, c.keyring, c.cluster, c.connect_timeout)
        target.configure(
            CephOptions(conn, pool.size, pool.pg_num, prefill=pool.prefill and plan.reads)
        )
    elif ceph.given:
        raise UsageError(
            f"--conf, --id, --keyring and --cluster are for Ceph targets, not {target.kind}:"
        )
