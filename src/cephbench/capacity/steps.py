"""One fixed-rate step of a capacity search, run as an ordinary cephbench run.

A step is a one-workload suite: fio's ``rate_iops`` with ``rate_process=poisson`` (arrivals
offered at the rate whatever the completions do, so a slow target falls behind instead of
slowing the load down), at a fixed queue depth deep enough not to cap the rate, a ramp then a
measured window. It runs through :func:`cephbench.execution.runner.run_request`, so every
target, ``--clients`` and the run's own checks work as for ``cephbench run``, and each step
is a stored run. Its percentiles are the run's: merged from the json+ latency bins of every
job and client, never averaged.
"""

from __future__ import annotations

import json
import math
import secrets
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from cephbench.capacity.search import Step
from cephbench.errors import CephbenchError
from cephbench.resources.shield import recorded
from cephbench.store import ResourceLog

if TYPE_CHECKING:
    from cephbench.ceph.connection import Connection
    from cephbench.model import StoredRun
    from cephbench.planning.request import CephConnectionOptions
    from cephbench.store import Store

STEP_PERCENTS = (50.0, 90.0, 99.0, 99.9, 99.99)
"""Recorded at every step beside the percentile the rule names."""
DEFAULT_IODEPTH = 128
DEFAULT_STEP_TIME = 10.0
DEFAULT_RAMP = 3.0
CROSS_CHECK_TOOL = "fio latency_target"


@dataclass(frozen=True)
class StepSpec:
    """What every step of a search runs; only the rate changes from step to step."""

    rw: str = "randwrite"
    bs: str = "4k"
    iodepth: int = DEFAULT_IODEPTH
    seconds: float = DEFAULT_STEP_TIME
    ramp: float = DEFAULT_RAMP
    size: str | None = None
    percentile: float = 99.0
    generators: int = 1
    """How many load generators split each step's rate, each offered an equal share: the
    hosts of ``--clients`` or the pods of ``--pods`` (1: fio on this machine)."""
    spread: str | None = None
    """``clients`` or ``pods`` when the rate is split; None otherwise."""

    def each(self, rate: float) -> int:
        """Each generator's ``rate_iops`` of a step at ``rate`` (the search offers multiples
        of :attr:`generators`, so the shares add up to the rate exactly)."""
        return max(1, round(rate / self.generators))

    def load_json(self) -> dict[str, Any]:
        """``cephbench.capacity/1``'s ``workload.generators`` and ``spread``, when split."""
        if self.generators == 1:
            return {}
        return {"generators": self.generators, "spread": self.spread}

    @property
    def cross_check_window(self) -> float:
        """fio's latency_target window: a fifth of a step, at least a second."""
        return max(1.0, self.seconds / 5)

    def cross_check_suite(self, target_us: float) -> dict:
        """The one-workload suite of the cross-check (pure): fio's own latency_target mode,
        which tries queue depths from 1 up to ``iodepth`` and keeps the deepest whose
        ``percentile`` stays under ``target_us`` in a window; a closed loop, where the steps
        are an open one. fio resets its figures at each depth it tries and stops once it has
        settled, so what it reports is its last window, at the depth found; the runtime only
        bounds that search (twice the depth's doublings, and two more windows)."""
        window = self.cross_check_window
        windows = 2 * math.ceil(math.log2(max(2, self.iodepth))) + 2
        doc = self.suite(0)
        glob = {**doc["global"], "runtime": f"{window * windows:g}s"}
        workload = {**doc["workloads"][0], "name": "cap_latency_target"}
        workload["options"] = {
            "latency_target": f"{round(target_us)}us",
            "latency_window": f"{round(window * 1e6)}us",
            "latency_percentile": f"{self.percentile:g}",
            "percentile_list": workload["options"]["percentile_list"],
        }
        return {
            **doc,
            "name": "capacity-cross-check",
            "description": f"{self.rw} {self.bs}: fio's latency_target mode, depth 1-{self.iodepth}",
            "global": glob,
            "workloads": [workload],
        }

    def suite(self, rate: float) -> dict:
        """The one-workload suite of a step at ``rate`` IOPS (pure)."""
        percents = sorted({*STEP_PERCENTS, self.percentile})
        options = {
            "rate_iops": self.each(rate),
            "rate_process": "poisson",
            "percentile_list": ":".join(f"{p:g}" for p in percents),
        }
        if self.generators > 1:
            # fio seeds its Poisson arrivals (and offsets) the same in every process unless
            # told not to: the generators would offer their I/Os at the same instants, bursts
            # of N, not the Poisson process at N times the rate that the step stands for
            options["randrepeat"] = 0
        glob: dict = {
            "ioengine": "libaio",
            "direct": 1,
            "time_based": True,
            "runtime": f"{self.seconds:g}s",
            "ramp_time": f"{self.ramp:g}s",
        }
        if self.size:
            glob["size"] = self.size
        return {
            "name": "capacity-step",
            "description": f"{self.rw} {self.bs} offered at {round(rate)} IOPS (Poisson)"
            + (
                f", {self.each(rate)} from each of {self.generators} {self.spread}"
                if self.generators > 1
                else ""
            ),
            "global": glob,
            "workloads": [
                {
                    "name": f"cap_{round(rate)}",
                    "rw": self.rw,
                    "bs": self.bs,
                    "iodepth": self.iodepth,
                    "numjobs": 1,
                    "options": options,
                }
            ],
        }


@dataclass(frozen=True)
class Load:
    """Where each step's fio runs: this machine, the hosts of ``--clients`` (fio's
    client/server mode over ssh), or ``--pods`` pods; each offered its share of the rate.
    ``ceph``: how a Ceph target's cluster is reached (``-c``, ``--id``, ``-k``, ``--ceph-cli``
    as for ``run``; the lab's or /etc/ceph's when not given)."""

    clients: str | None = None
    pods: int | None = None
    image: str | None = None
    ceph: CephConnectionOptions | None = None

    @property
    def spread(self) -> str | None:
        return "clients" if self.clients else "pods" if self.pods else None

    def request(self) -> dict[str, Any]:
        """The run request's parts that put the load there."""
        from cephbench.kube.options import KubeOptions
        from cephbench.planning.request import ClientsOptions

        parts: dict[str, Any] = {
            "clients": ClientsOptions(spec=self.clients),
            "kube": KubeOptions(pods=self.pods, image=self.image),
        }
        if self.ceph is not None:
            parts["ceph"] = self.ceph
        return parts

    def check(self, target: str) -> None:
        """``ceph`` given for a target that reaches no Ceph cluster is refused, and the
        cluster it names is reached: both before the search stores anything."""
        if self.ceph is None:
            return
        from cephbench.planning.resolve import not_for_ceph
        from cephbench.targets import parse_target
        from cephbench.targets.cluster import CephTarget

        parsed = parse_target(target)
        if not isinstance(parsed, CephTarget) and parsed.kind != "pvc":  # as `run` refuses
            raise not_for_ceph(parsed.kind)
        self.connection  # noqa: B018 - reached now, and kept for the search

    @cached_property
    def connection(self) -> Connection:
        """The Ceph cluster the steps reach: as ``ceph`` says, else the lab or /etc/ceph;
        reached once for the search (its check, the OSDs' counters, ``--while``)."""
        from cephbench.planning.request import CephConnectionOptions

        return (self.ceph or CephConnectionOptions()).connect()

    def generators(self, target: str) -> int:
        """How many generators share each step: ``--pods``, or the client hosts of
        ``--clients`` on ``target`` (read, not reached: nothing runs or is made)."""
        if self.pods is not None:
            return self.pods
        if self.clients is None:
            return 1
        from cephbench.execution.clients import client_hosts, load_clients
        from cephbench.planning.request import RunRequest

        resolved = RunRequest(suite="quick", target=target, **self.request()).resolve()
        return len(client_hosts(load_clients(self.clients, resolved.target)))


def step_of(run: StoredRun, offered: float, repeat: int) -> Step:
    """The step a stored run measured: its one workload's achieved IOPS (every direction)
    and the percentiles of its latency bins (pure)."""
    results = [r for r in run.results if r.iops is not None]
    if not results:
        raise CephbenchError(
            f"the step at {offered:g} IOPS (run {run.id}) recorded no IOPS",
            hint=f"cephbench show {run.id} says what it recorded",
        )
    if len(results) > 1:
        raise CephbenchError(f"the step at {offered:g} IOPS (run {run.id}) mixed directions")
    result = results[0]
    return Step(
        offered_iops=offered,
        achieved_iops=result.iops or 0.0,
        percentiles=tuple((p, v) for p, v in result.percentiles),
        repeat=repeat,
        run_id=run.id,
    )


def run_step(
    store: Store,
    spec: StepSpec,
    rate: float,
    repeat: int,
    *,
    target: str | None,
    label: str,
    note: Callable[[str], None] = lambda _: None,
    degraded: bool = False,
    load: Load = Load(),
) -> Step:
    """Run one step at ``rate`` IOPS on ``target`` and return what it measured
    (``degraded``: on a cluster cephbench degraded on purpose, which the run must not refuse;
    its results carry the health flags of what they ran beside; ``load``: where its fio
    runs, each generator offered ``spec.each(rate)``)."""
    offered = float(spec.each(rate) * spec.generators)
    what = f"the step at {offered:g} IOPS"
    run = _run_suite(store, spec.suite(rate), target, label, note, degraded, what, load)
    return step_of(run, offered, repeat)


def run_cross_check(
    store: Store,
    spec: StepSpec,
    target_us: float,
    *,
    target: str | None,
    label: str,
    note: Callable[[str], None] = lambda _: None,
    degraded: bool = False,
    load: Load | None = None,
) -> dict[str, Any]:
    """fio's latency_target mode run once (:meth:`StepSpec.cross_check_suite`): the depth it
    settled on, that run's IOPS and percentile, and its run (``cephbench.capacity/1``'s
    ``cross_check``)."""
    suite = spec.cross_check_suite(target_us)
    run = _run_suite(store, suite, target, label, note, degraded, "fio's latency_target run", load)
    results = [r for r in run.results if r.iops is not None]
    depth = latency_depth(store.outputs(run.id))
    if len(results) != 1 or depth is None:
        raise CephbenchError(
            f"fio's latency_target run (run {run.id}) recorded no depth or no IOPS",
            hint=f"cephbench show {run.id} says what it recorded",
        )
    return {
        "tool": CROSS_CHECK_TOOL,
        "depth": depth,
        "max_depth": spec.iodepth,
        "iops": results[0].iops,
        "percentile_us": dict(results[0].percentiles).get(spec.percentile),
        "window_s": spec.cross_check_window,
        "run_id": run.id,
    }


def latency_depth(outputs: list[dict[str, Any]]) -> int | None:
    """The queue depth fio's latency_target mode settled on (``latency_depth`` in its JSON),
    from a run's stored outputs (pure)."""
    for out in outputs:
        if out["tool"] != "fio":
            continue
        try:
            doc = json.loads(out["stdout"][out["stdout"].find("{") :])
        except ValueError:
            continue
        for job in doc.get("jobs", []):
            if isinstance(job.get("latency_depth"), int):
                return job["latency_depth"]
    return None


def _run_suite(
    store: Store,
    suite: dict,
    target: str | None,
    label: str,
    note: Callable[[str], None],
    degraded: bool,
    what: str,
    load: Load | None = None,
) -> StoredRun:
    """Run a one-workload suite on ``target``; the stored run (a failed workload raises)."""
    from cephbench.ceph.session import HealthOptions
    from cephbench.execution.runner import run_request
    from cephbench.planning.request import CaptureOptions, RunRequest

    # the suite's file, in a directory recorded first: `cleanup` removes it after a kill
    tmp = Path(tempfile.gettempdir()) / f"cephbench-capacity-{secrets.token_hex(4)}"
    with recorded(ResourceLog(store, None), "dir", str(tmp)):
        try:
            tmp.mkdir(mode=0o700)
            path = tmp / "capacity-step.yaml"
            path.write_text(yaml.safe_dump(suite, sort_keys=False))
            request = RunRequest(
                suite=str(path),
                target=target,
                label=label,
                capture=CaptureOptions(logs=False),
                health=HealthOptions(allow_unhealthy=degraded),
                **(load or Load()).request(),
            )
            outcome = run_request(store, request, note=note)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    run = store.get_run(outcome.run_id)
    if outcome.failed_workloads:
        error = run.failures[0].error if run.failures else run.error
        raise CephbenchError(f"{what} failed (run {run.id}): {error}")
    return run
