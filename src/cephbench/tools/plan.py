"""What a run will do, for any tool: the command line's overrides, the workloads planned and
their expected durations, and the plan of a tool's fixed suite (rados bench, osd bench, iperf3).

fio's own plan (a job file, its batches, sweeps and steady state) is ``tools/fio/plan.py``."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from cephbench.errors import UsageError
from cephbench.system.units import parse_seconds, parse_size

if TYPE_CHECKING:
    from cephbench.tools.base import Tool, ToolSuite


OWN = ("runtime", "size", "ramp_time")
_COUNTS = ("iodepth", "numjobs", "rwmixread")


@dataclass(frozen=True)
class Overrides:
    """Command-line values that replace a suite's or job file's own, for every workload."""

    runtime: str | None = None
    size: str | None = None
    iodepth: int | None = None
    numjobs: int | None = None
    bs: str | None = None
    rw: str | None = None
    rwmixread: int | None = None
    ramp_time: str | None = None
    """fio's ramp_time: run this long before measuring (excluded from every figure)."""

    def own(self) -> dict[str, Any]:
        """``--runtime``, ``--size`` and ``--ramp-time`` as given: the values that are not a
        sweep axis (a run request stores its axes apart)."""
        return {k: getattr(self, k) for k in OWN}

    def with_single(self, values: dict[str, str]) -> Overrides:
        """With the sweep axes given one value each (``--iodepth 4``: every workload at 4)."""
        typed: dict[str, Any] = {k: int(v) if k in _COUNTS else v for k, v in values.items()}
        return replace(self, **typed)

    def options(self) -> dict[str, str]:
        opts = {k: str(v) for k, v in vars(self).items() if v is not None}
        if "size" in opts:
            parse_size(opts["size"])  # validate early, with a clear message
        for key in ("runtime", "ramp_time"):
            if key in opts:
                parse_seconds(opts[key])
        return opts


@dataclass(frozen=True)
class PlannedWorkload:
    name: str
    seconds: float | None
    """Expected duration (time_based runtime plus ramp); None when fio decides (size-based)."""


def expected_seconds(workloads: list[PlannedWorkload], repeats: int) -> float | None:
    """How long ``repeats`` of the workloads run; None when any one's duration is not known."""
    known = [w.seconds for w in workloads if w.seconds is not None]
    return sum(known) * repeats if known and len(known) == len(workloads) else None


@dataclass(frozen=True)
class ToolPlan:
    """A fixed suite of a tool other than fio (rados bench, osd bench, iperf3)."""

    suite: str
    tool: str
    default_target: str
    workloads: list[PlannedWorkload]
    overrides: dict[str, str] = field(default_factory=dict)
    runtime: float | None = None
    options: dict[str, int | str | None] = field(default_factory=dict)
    """Tool options: ``concurrent`` and ``object_size`` (rados bench), ``total_bytes`` and
    ``bs`` (osd bench)."""
    size: int | None = None
    reads: bool = False
    steady: None = None

    def expected_seconds(self, repeats: int) -> float | None:
        return expected_seconds(self.workloads, repeats)

    def params(self) -> dict[str, Any]:
        return {"overrides": self.overrides, "tool_options": self.options}


def make_tool_plan(
    tool: Tool, suite: ToolSuite, overrides: Overrides, options: dict[str, int | str | None]
) -> ToolPlan:
    """``--runtime`` and ``--bs`` mean what they mean for fio; ``--size`` is the total a tool
    writes (osd bench), ``--iodepth`` its operations in flight (rados bench)."""
    opts = overrides.options()
    unsupported = sorted(set(opts) - {"runtime", "bs", "size", "iodepth"})
    if unsupported:
        raise UsageError(
            f"the {suite.name} suite has no {', '.join('--' + k for k in unsupported)}",
            hint=f"it runs {tool.name}; see cephbench run --help",
        )
    runtime = parse_seconds(opts["runtime"]) if "runtime" in opts else suite.runtime
    if runtime is not None and runtime < 1:
        raise UsageError("--runtime must be at least 1 s for Ceph's tools")
    tool_opts = dict(options)
    if "bs" in opts:
        tool_opts[tool.bs_option] = parse_size(opts["bs"])
    if "size" in opts:
        tool_opts["total_bytes"] = parse_size(opts["size"])
    if "iodepth" in opts:
        tool_opts["concurrent"] = int(opts["iodepth"])
    workloads = [PlannedWorkload(w, runtime) for w in suite.workloads]
    return ToolPlan(
        suite.name,
        tool.name,
        suite.default_target,
        workloads,
        opts,
        runtime,
        tool_opts,
        reads=tool.reads,
    )
