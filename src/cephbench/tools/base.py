"""The interface every tool implements: fio, rados bench, osd bench, iperf3, and whatever a
later probe adds. The runner knows tools only through it.

A tool says which suites it offers (fio's are the YAML suites; the others' are fixed), its
version, which targets it runs on, what it adds to a run's environment, the steps it runs
(one tool invocation each, stored as it finishes), the table ``show`` prints for its runs,
and the import parsers that read its pasted outputs.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from cephbench.errors import UsageError
from cephbench.model import RawOutput, WorkloadOutcome, now

if TYPE_CHECKING:
    from cephbench.ceph.connection import Connection
    from cephbench.ceph.tools import CephTools
    from cephbench.model import Run, Series
    from cephbench.store import ResourceLog
    from cephbench.system.process import ProcessResult
    from cephbench.tables.table import Table
    from cephbench.targets import FioTarget, Target
    from cephbench.tools.fio.many import Clients
    from cephbench.tools.fio.steady_criterion import SteadyState
    from cephbench.tools.found import Found
    from cephbench.tools.options import RunOptions
    from cephbench.tools.plan import PlannedWorkload
    from cephbench.tools.schedule import Schedule


@dataclass(frozen=True)
class ToolSuite:
    """A fixed suite of a tool (``rados``, ``osd``, ``network``)."""

    name: str
    description: str
    default_target: str
    """The target when ``--target`` is not given (``rados:lab`` needs a running lab)."""
    runtime: float | None
    """Seconds per workload (``--runtime`` replaces it); None when the tool decides."""
    workloads: tuple[str, ...] = ()
    """Fixed workloads; empty when the cluster decides (one per OSD, per host pair)."""


@dataclass(frozen=True)
class Step:
    """What one tool invocation left: its raw output, its workloads' outcomes, the time
    window each workload ran in (health flags are judged over it), and time series."""

    repeat: int
    raw: RawOutput | None
    outcomes: list[WorkloadOutcome]
    windows: list[tuple[float, float]] = field(default_factory=list)
    """One (start, end) ``time.monotonic()`` window per outcome."""
    series: list[Series] = field(default_factory=list)
    """Compact per-interval series (fio's logs)."""
    points: list[tuple[str, str, list[list[float]]]] = field(default_factory=list)
    """(workload, name, [[seconds, value], ...]): a tool's own per-second table."""
    interrupted: bool = False
    """Ctrl-C or SIGTERM stopped the tool: the runner stores this step, then stops the run."""


@dataclass(frozen=True)
class Importer:
    """How ``cephbench import`` recognises and reads one kind of a tool's pasted output."""

    name: str
    """The parser's name (``--as NAME``), e.g. fio-json, fio-text, rados-bench."""
    detect: Callable[[str], bool]
    """Whether a block of text holds this kind of output (cheap: a few substrings)."""
    parse: Callable[[str, str], list[Found]]
    """(block, the text above it) -> the runs found; ParseError when the block is not one."""


class RunPlan(Protocol):
    """What the runner, a run's context and every tool need of a plan: fio's (a job file,
    ``tools/fio/plan.py``) or a fixed suite's (``tools/plan.py``). Read-only."""

    @property
    def suite(self) -> str: ...
    @property
    def tool(self) -> str: ...
    @property
    def default_target(self) -> str | None:
        """The target when ``--target`` is not given; None: the running lab's RBD image."""

    @property
    def reads(self) -> bool:
        """Whether a workload reads (an RBD image is prefilled only then)."""

    @property
    def size(self) -> int | None:
        """The most data a workload asks for, bytes (the target is checked for room)."""

    @property
    def overrides(self) -> dict[str, str]: ...
    @property
    def steady(self) -> SteadyState | None: ...
    @property
    def workloads(self) -> list[PlannedWorkload]: ...
    def expected_seconds(self, repeats: int) -> float | None:
        """The whole run's duration; None when a workload's is not known."""

    def params(self) -> dict[str, Any]:
        """What the plan adds to the run's stored params (its overrides, sweep, steady
        state or tool options)."""


PlanT = TypeVar("PlanT", bound=RunPlan)


class Progress(Protocol):
    """Where a run reports progress; the CLI draws it, tests may ignore it."""

    def start(self, total_seconds: float | None) -> None: ...
    def update(self, repeat: int, workload: str, elapsed: float) -> None: ...
    def stop(self) -> None: ...


@dataclass
class RunContext(Generic[PlanT]):
    """Everything a tool's steps may use: the run, its plan (``RunContext[Plan]``: a tool's
    own kind of plan), its prepared target."""

    run_id: int
    plan: PlanT
    target: Target
    fio_target: FioTarget
    resources: ResourceLog
    work: Path
    """The run's private directory (removed afterwards)."""
    schedule: Schedule
    progress: Progress
    options: RunOptions
    before_each: Callable[[], None] = lambda: None
    """Called before each workload (``--drop-caches``)."""
    clients: Clients | None = None
    """``--clients``: the fio servers on the client hosts and each one's target options;
    None when fio runs on this machine."""
    cluster_facts: dict[str, Any] = field(default_factory=dict)
    """The Ceph cluster's fingerprint collected as the run started (``ceph.fingerprint``'s
    keys: ``osd_tree``, ``pools``, ``status``...; a command that failed is ``{"error": ...}``);
    empty for a run on no cluster."""
    group_ended: Callable[[list[str]], None] = lambda names: None
    """Called with a chained group's workloads as soon as their I/O has completed, before the
    next group starts (the runner reads what is behind the target: ``execution.served``)."""

    @property
    def conn(self) -> Connection:
        """The target's cluster: for the steps of tools that run on Ceph targets only."""
        cluster = self.target.cluster
        assert cluster is not None, "a tool that runs on Ceph has a target on a cluster"
        return cluster


class Tool(ABC):
    """One external program cephbench runs and reads."""

    name: ClassVar[str]
    suites: ClassVar[tuple[ToolSuite, ...]] = ()
    version_argv: ClassVar[tuple[str, ...]] = ()
    target_kinds: ClassVar[tuple[str, ...]] = ("ceph",)
    """Target kinds this tool's suites run on."""
    resumable: ClassVar[bool] = False
    """Whether ``--resume`` can finish an interrupted run of it."""
    bs_option: ClassVar[str] = "object_size"
    """The tool option ``--bs`` sets."""
    reads: ClassVar[bool] = False
    """Whether its suites read what they wrote."""
    accounted: ClassVar[bool] = True
    """Whether a run of it on Ceph records what ``explain`` needs (the pool's placement, each
    workload's CPU seconds: ``execution.accounting``)."""
    undo: ClassVar[tuple[Callable[..., None], ...]] = ()
    """The undo functions (``resources.undo.undoes``) of what its steps create: loading the
    tool registers them, so ``cephbench cleanup`` finds them through the tool registry."""

    def versions(self, tools: CephTools | None = None) -> dict[str, str]:
        """The tool's version as it prints it (kept in the run's environment); ``tools``: where
        the target's Ceph programs are reached (a Ceph program's version is theirs)."""
        from cephbench.ceph.tools import CephTools as Tools

        program, *args = self.version_argv
        result = (tools or Tools()).run(program, *args, timeout=30)
        line = (result.stdout or result.stderr).strip().splitlines()
        return {self.name: line[0] if line else "unknown"}

    def check_target(self, plan: RunPlan, target: Target) -> None:
        """Refuse a target this tool's suites do not run on."""
        if target.kind not in self.target_kinds:
            kinds = " or ".join(f"{k}:" for k in self.target_kinds)
            raise UsageError(
                f"the {plan.suite} suite runs on a Ceph cluster ({kinds}), not on {target.spec}",
                hint=f"--target {plan.default_target}",
            )

    def environment(self, plan: RunPlan, target: Target) -> dict[str, Any]:
        """What this tool adds to the run's environment record."""
        return {}

    @abstractmethod
    def steps(self, ctx: RunContext[Any]) -> Iterator[Step]:
        """Run the plan, repeat by repeat; yield each invocation's step as it finishes."""

    def importers(self) -> list[Importer]:
        """The parsers of this tool's outputs as people paste them, in detection order."""
        return []

    def table(self, run: Run) -> Table:
        """The table ``show`` prints for a run of this tool."""
        from cephbench.tables.run_table import run_table

        return run_table(run)

    def tables(self, run: Run) -> list[Table]:
        """Every table ``show`` prints for a run of this tool (its ``table`` first)."""
        return [self.table(run)]


def raw_output(
    tool: str, result: ProcessResult, started: str, jobfile: str | None = None
) -> RawOutput:
    return result.as_raw(tool, started, jobfile)


class Stopped(Exception):
    """A tool invocation was interrupted (Ctrl-C, SIGTERM); its clean-up runs as it unwinds."""


def timed(
    argv: list[str], env: dict[str, str] | None, timeout: float
) -> tuple[ProcessResult, str, float, float]:
    """Run one invocation: (result, started, t0, t1); Stopped when interrupted."""
    from cephbench.system.process import ProcessInterrupted, run

    started, t0 = now(), time.monotonic()
    try:
        result = run(argv, env=env, timeout=timeout)
    except ProcessInterrupted:
        raise Stopped from None
    return result, started, t0, time.monotonic()
