"""What a run request resolves to (``RunRequest.resolve``): the plan, the target (configured
for the cluster it is on) and the run options, every part checked. Nothing runs and nothing
is created, so a command checks a request this way before it changes anything (``ab``,
before a setting).

Each function takes only the request's groups it needs, each as the type its layer owns
(the overrides, health rules, the network suite's and rados bench's options): the request
itself goes no lower than the runner's stored params (its JSON, ``params["request"]``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from cephbench.errors import UsageError
from cephbench.planning.plan import make_plan
from cephbench.targets import Target
from cephbench.tools.base import RunPlan
from cephbench.tools.fio.plan import Plan
from cephbench.tools.fio.sweep import Axes
from cephbench.tools.options import RunOptions

if TYPE_CHECKING:
    from cephbench.ceph.session import HealthOptions
    from cephbench.kube.options import KubeOptions
    from cephbench.planning.request import (
        AdaptiveOptions,
        CaptureOptions,
        CephConnectionOptions,
        ClientsOptions,
        DeviceOptions,
        PoolOptions,
    )
    from cephbench.tools.fio.steady_criterion import SteadyState
    from cephbench.tools.iperf3.options import NetworkOptions
    from cephbench.tools.plan import Overrides
    from cephbench.tools.rados_bench.options import RadosBenchOptions


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


def plan(
    suite: str,
    overrides: Overrides,
    axes: Axes,
    steady: SteadyState | None,
    rados_bench: RadosBenchOptions,
    note: Callable[[str], None],
) -> RunPlan:
    """The suite's plan: the axes with one value override every workload, rados bench's
    ``--object-size`` is its ``--bs`` when that is not given."""
    if not axes.bs and rados_bench.object_size:
        axes = replace(axes, bs=Axes.parse(bs=rados_bench.object_size).bs)
    made = make_plan(
        suite, overrides.with_single(axes.single), rados_bench.tool_options(), axes, steady
    )
    if isinstance(made, Plan) and made.as_written:
        note(f"{suite} runs as written, with fio's pause between its groups: {made.as_written}")
    for replaced in made.replaced_locations() if isinstance(made, Plan) else ():
        note(f"{suite}: {replaced}")
    return made


def check(plan: RunPlan, network: NetworkOptions, resume: int | None) -> None:
    """Options the plan's tool does not take."""
    if network.given and plan.tool != "iperf3":
        raise UsageError(
            "--all-pairs-at-once and --streams-procs are for the network suite",
            hint="cephbench run network --hosts ...",
        )
    if resume is not None and plan.tool != "fio":
        raise UsageError(
            "--resume is for fio suites and job files", hint="run the tool suite again"
        )


def target(
    spec: str | None,
    plan: RunPlan,
    device: DeviceOptions,
    ceph: CephConnectionOptions,
    pool: PoolOptions,
    kube: KubeOptions | None = None,
) -> Target:
    """The target (``spec``, else the suite's or the running lab's), configured for its
    cluster when it is on one (``kube``: a ``pvc:`` target's pods, image, kubeconfig...)."""
    from cephbench.targets import TargetOptions, parse_target

    found = parse_target(
        spec or _default_target(plan),
        TargetOptions(destroy_data=device.destroy_data, cephfs_client=device.cephfs_client),
    )
    if device.cephfs_client != "ceph-fuse" and found.kind != "cephfs":
        raise UsageError(f"--client is for cephfs: targets, not {found.kind}:")
    _configure(found, plan, ceph, pool)
    _configure_kube(found, plan, pool, kube)
    return found


def check_shared(target: Target, clients: ClientsOptions) -> None:
    """``--shared-image`` is for rbd: targets, ``--shared-dir`` for cephfs: ones; with
    ``--pods``, ``--shared-image`` puts every pod on the run's image, and ``--clients`` is
    refused."""
    if clients.shared_dir and target.kind != "cephfs":
        raise UsageError("--shared-dir is for cephfs: targets", hint="rbd: has --shared-image")
    if clients.shared_image and target.kind == "cephfs":
        raise UsageError("--shared-image is for rbd: targets", hint="cephfs: has --shared-dir")
    if getattr(target, "kube", None) is not None and target.kind == "rbd":
        if clients.spec:
            raise UsageError(
                "--clients and --pods both say where fio runs", hint="give one of them"
            )
        from cephbench.targets.rbd import RbdTarget

        if clients.shared_image and isinstance(target, RbdTarget):  # every pod on one image
            target.shared_image = True


def run_options(
    health: HealthOptions,
    adaptive: AdaptiveOptions,
    capture: CaptureOptions,
    device: DeviceOptions,
    clients: ClientsOptions,
    network: NetworkOptions,
) -> RunOptions:
    return RunOptions(
        health,
        device.drop_caches,
        target_ci=adaptive.target_ci,
        max_time=adaptive.max_time,
        logs=capture.logs,
        per_io_logs=capture.per_io_log,
        clients=clients.spec,
        shared_image=clients.shared_image or clients.shared_dir,
        network=network,
        hosts=device.hosts,
    )


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


def _configure_kube(
    target: Target, plan: RunPlan, pool: PoolOptions, kube: KubeOptions | None
) -> None:
    """A ``pvc:`` target's options; ``rbd:`` takes them with ``--pods`` (fio's rbd engine in
    pods); refused for other targets."""
    from cephbench.kube.objects import parse_toleration
    from cephbench.targets.pvc import PvcTarget

    try:
        for text in kube.tolerations if kube is not None else ():
            parse_toleration(text)
    except ValueError as e:
        raise UsageError(
            f"--toleration: {e}", hint="e.g. --toleration dedicated=storage:NoSchedule"
        ) from None
    if isinstance(target, PvcTarget):
        from cephbench.kube.options import KubeOptions

        target.configure(kube or KubeOptions(), prefill=pool.prefill and plan.reads)
    elif kube is not None and kube.given and target.kind == "rbd":
        from cephbench.targets.cluster import CephTarget

        if kube.pods is None:
            raise UsageError(
                f"the Kubernetes options are for {target.kind}: with --pods N",
                hint=f"e.g. --target {target.spec} --pods 2",
            )
        if plan.tool != "fio":
            raise UsageError(
                f"--pods runs fio in pods; the {plan.suite} suite runs {plan.tool}",
                hint="use a fio suite (quick, table...) or a job file",
            )
        assert isinstance(target, CephTarget)
        target.configure_kube(kube)
    elif kube is not None and kube.given:
        raise UsageError(
            f"--pods, --image, --kubeconfig and the other Kubernetes options are for pvc: "
            f"targets (and rbd: with --pods), not {target.kind}:",
            hint="e.g. --target pvc:STORAGECLASS --pods 3",
        )


def _configure(
    target: Target, plan: RunPlan, ceph: CephConnectionOptions, pool: PoolOptions
) -> None:
    """A Ceph target's connection and pools; connection options refused for other targets."""
    from cephbench.targets.cluster import CephOptions, CephTarget

    if isinstance(target, CephTarget):
        conn = ceph.connect()
        target.configure(
            CephOptions(conn, pool.size, pool.pg_num, prefill=pool.prefill and plan.reads)
        )
    elif ceph.given and target.kind == "pvc":  # the cluster behind the class
        from cephbench.targets.pvc import PvcTarget

        assert isinstance(target, PvcTarget)
        target.configure_ceph(ceph.connect())
    elif ceph.given:
        raise not_for_ceph(target.kind)


def not_for_ceph(kind: str) -> UsageError:
    """The error for Ceph connection options given with a target of ``kind``, which reaches
    no Ceph cluster."""
    return UsageError(
        f"--conf, --id, --keyring, --cluster and --ceph-cli are for Ceph targets (and pvc:, the "
        f"cluster behind its class), not {kind}:"
    )
