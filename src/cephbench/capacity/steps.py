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

import secrets
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from cephbench.capacity.search import Step
from cephbench.errors import CephbenchError
from cephbench.resources.shield import recorded
from cephbench.store import ResourceLog

if TYPE_CHECKING:
    from cephbench.model import StoredRun
    from cephbench.store import Store

STEP_PERCENTS = (50.0, 90.0, 99.0, 99.9, 99.99)
"""Recorded at every step beside the percentile the rule names."""
DEFAULT_IODEPTH = 128
DEFAULT_STEP_TIME = 10.0
DEFAULT_RAMP = 3.0


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

    def suite(self, rate: float) -> dict:
        """The one-workload suite of a step at ``rate`` IOPS (pure)."""
        percents = sorted({*STEP_PERCENTS, self.percentile})
        options = {
            "rate_iops": round(rate),
            "rate_process": "poisson",
            "percentile_list": ":".join(f"{p:g}" for p in percents),
        }
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
            "description": f"{self.rw} {self.bs} offered at {round(rate)} IOPS (Poisson)",
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
) -> Step:
    """Run one step at ``rate`` IOPS on ``target`` and return what it measured
    (``degraded``: on a cluster cephbench degraded on purpose, which the run must not refuse;
    its results carry the health flags of what they ran beside)."""
    from cephbench.ceph.session import HealthOptions
    from cephbench.execution.runner import run_request
    from cephbench.planning.request import CaptureOptions, RunRequest

    # the step's suite file, in a directory recorded first: `cleanup` removes it after a kill
    tmp = Path(tempfile.gettempdir()) / f"cephbench-capacity-{secrets.token_hex(4)}"
    with recorded(ResourceLog(store, None), "dir", str(tmp)):
        try:
            tmp.mkdir(mode=0o700)
            path = tmp / "capacity-step.yaml"
            path.write_text(yaml.safe_dump(spec.suite(rate), sort_keys=False))
            request = RunRequest(
                suite=str(path),
                target=target,
                label=label,
                capture=CaptureOptions(logs=False),
                health=HealthOptions(allow_unhealthy=degraded),
            )
            outcome = run_request(store, request, note=note)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    run = store.get_run(outcome.run_id)
    if outcome.failed_workloads:
        error = run.failures[0].error if run.failures else run.error
        raise CephbenchError(f"the step at {rate:g} IOPS failed (run {run.id}): {error}")
    return step_of(run, rate, repeat)
