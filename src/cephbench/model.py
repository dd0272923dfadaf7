"""The result model: small, immutable, and the same whatever tool produced the figures.

Units are fixed and carried in the field names: bytes, bytes per second, microseconds,
seconds. A figure the tool did not measure is ``None``, never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from typing import Any, Literal

Op = Literal["read", "write", "trim"]


@dataclass(frozen=True)
class Flag:
    """A validity flag on a result: a reason to trust its figures less, said in words."""

    text: str
    health: bool = False
    """Set from the cluster's health during the run (not from the tool's output)."""


FLAGS: dict[str, Flag] = {
    # what the tool recorded, or could not
    "no_latency": Flag("no latency recorded (gtod_reduce or latency disabled)"),
    "clat_mean": Flag(
        "Avg Latency is fio's completion latency (clat): total latency was not recorded"
    ),
    "percentiles_unmerged": Flag(
        "percentiles of several jobs could not be merged (plain json output)"
    ),
    "iops_derived": Flag("IOPS not printed: derived from the operations made and the time run"),
    # how the run went
    "not_steady": Flag(
        "never reached steady state (fio's steadystate criterion) before its runtime cap"
    ),
    "ci_not_reached": Flag("repeats stopped at the cap before the 95 % CI reached the target"),
    "procs_skewed": Flag(
        "the pair's iperf3 processes started apart (over 5 % of the runtime): their sum overstates"
    ),
    "mtu_fails": Flag("packets of the sender's MTU did not cross unfragmented (mtu_ok 0)"),
    "no_rtt": Flag("ping got no reply: no RTT"),
    # where the reads came from (execution.served)
    "cached": Flag(
        "read from a cache on the client (a page cache, librbd's, the CephFS client's), not "
        "from the storage: the device or Ceph pool behind the target served under half of "
        "the bytes read (served_read_ratio)"
    ),
    "no_device": Flag(
        "no device behind the target (tmpfs, FUSE, a RAM disk): its reads came from memory "
        "or another machine, not from a disk of this one"
    ),
    # the cluster during the run
    "osd_down": Flag("an OSD was down during the run", health=True),
    "degraded": Flag("PGs were degraded/undersized during the run", health=True),
    "recovery": Flag("PGs were recovering during the run", health=True),
    "backfill": Flag("PGs were backfilling during the run", health=True),
    "scrub": Flag("a scrub ran during the run", health=True),
    "pgs_inactive": Flag("PGs were not active (peering, stale, down) during the run", health=True),
    "health_err": Flag("the cluster was in HEALTH_ERR during the run", health=True),
}
"""Every flag cephbench sets, with its text: tables, reports and import warnings say it."""


def flag_text(flag: str) -> str:
    return FLAGS[flag].text if flag in FLAGS else flag


RunStatus = Literal["running", "complete", "failed", "aborted"]

RUN_SCHEMA = "cephbench.run/1"
"""The ``schema`` key of ``Run.to_json``: its shape, versioned (see ``cephbench.contracts``)."""


@dataclass(frozen=True)
class Result:
    """One direction (read, write or trim) of one workload in one repeat."""

    workload: str
    """The workload's name: the fio job name, or the suite's workload name."""
    repeat: int
    """0-based repeat index (``--repeat N`` runs the suite N times)."""
    op: Op
    """The direction these figures describe; a mixed workload has one Result per direction."""
    rw: str | None = None
    """fio's ``rw`` of the workload (read, write, randread, randrw, ...)."""
    bs: int | None = None
    """Block size of this direction, bytes."""
    iodepth: int | None = None
    """I/Os in flight per job."""
    numjobs: int | None = None
    """Jobs (threads or processes) that ran this workload together."""
    rwmixread: int | None = None
    """Percent of reads of a mixed workload (fio's ``rwmixread``); None for a pure one."""
    runtime_s: float | None = None
    """How long the direction ran, seconds, as fio measured it."""
    iops: float | None = None
    """Operations per second."""
    bw_bytes_per_s: float | None = None
    """Bandwidth, bytes per second."""
    io_bytes: int | None = None
    """Bytes transferred."""
    total_ios: int | None = None
    """Operations completed."""
    lat_mean_us: float | None = None
    """Mean latency, microseconds: fio's total latency (``lat``, submission to completion),
    what users quote as "Avg Latency"; the completion latency mean (flag ``clat_mean``) only
    where fio recorded no total latency."""
    clat_mean_us: float | None = None
    """fio's completion latency (``clat``) mean, microseconds, where recorded."""
    slat_mean_us: float | None = None
    """fio's submission latency (``slat``) mean, microseconds, where recorded."""
    lat_p50_us: float | None = None
    lat_p90_us: float | None = None
    lat_p99_us: float | None = None
    lat_p999_us: float | None = None
    lat_max_us: float | None = None
    lat_kind: Literal["lat", "clat"] | None = None
    """The kind of latency the percentiles (``lat_p*_us``, ``percentiles``) are of, as fio
    recorded them: ``clat`` (completion latency, fio's default) or ``lat`` (total latency,
    fio >= 3.9 with ``lat_percentiles=1``). Without percentiles, the kind of the mean.
    ``None`` when no latency was recorded (gtod_reduce...)."""
    percentiles: tuple[tuple[float, float], ...] = ()
    """Every latency percentile fio reported: (percent, microseconds) pairs, of ``lat_kind``."""
    error: int = 0
    """fio's own ``error`` (an errno) for the job; 0 when it succeeded."""
    flags: tuple[str, ...] = ()
    """Validity flags (e.g. ``no_latency``): reasons to trust the figures less."""
    metrics: tuple[tuple[str, float], ...] = ()
    """Further figures a tool reports beyond the common ones, as (name, value) pairs: e.g.
    rados bench's ``iops_stddev`` or ``lat_min_us``, iperf3's ``retransmits``."""
    host: str | None = None
    """The client host these figures are of: set on each client's result of a run from many
    clients (``--clients``, fio's client/server mode); None on a run from one machine and on
    the aggregate of many clients."""
    clients: tuple[Result, ...] = ()
    """On the aggregate of a run from many clients, each client's own result (with its
    ``host``), in the order the clients were given. The aggregate is cephbench's: IOPS,
    bandwidth, bytes and I/Os summed over the clients, latency means weighted by their
    samples, percentiles merged exactly from fio's json+ bins."""

    def to_json(self) -> dict[str, Any]:
        d = {name: getattr(self, name) for name in RESULT_FIELDS}  # asdict's deep copy: slow
        d["clients"] = [c.to_json() for c in self.clients]
        d["percentiles"] = {f"{p:g}": us for p, us in self.percentiles}
        d["flags"] = list(self.flags)
        if self.metrics:  # only tools that report more than the common figures add the key
            d["metrics"] = dict(self.metrics)
        else:
            del d["metrics"]
        for kind in ("clat_mean_us", "slat_mean_us", "host"):  # likewise: only where recorded
            if d[kind] is None:
                del d[kind]
        if not self.clients:  # only the aggregate of a run from many clients has them
            del d["clients"]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Result:
        """The Result ``to_json`` wrote (KeyError/TypeError/ValueError on another shape)."""
        values = {k: d[k] for k in RESULT_JSON_REQUIRED}
        values.update({k: d[k] for k in ("clat_mean_us", "slat_mean_us") if k in d})
        values["percentiles"] = tuple((float(p), us) for p, us in d["percentiles"].items())
        values["flags"] = tuple(d["flags"])
        values["metrics"] = tuple(d.get("metrics", {}).items())
        values["host"] = d.get("host")
        values["clients"] = tuple(cls.from_json(c) for c in d.get("clients", ()))
        return cls(**values)


RESULT_FIELDS = tuple(f.name for f in fields(Result))
RESULT_JSON_OPTIONAL = ("clat_mean_us", "slat_mean_us", "metrics", "host", "clients")
"""Keys ``Result.to_json`` leaves out when they are empty."""
RESULT_JSON_REQUIRED = tuple(
    f for f in RESULT_FIELDS if f not in (*RESULT_JSON_OPTIONAL, "percentiles", "flags")
)
"""The keys every result of ``Result.to_json`` has (besides percentiles and flags)."""


@dataclass(frozen=True, eq=False)
class Series:
    """A time series of one workload, repeat and direction: fio's logs, rados bench's table."""

    repeat: int
    workload: str
    op: str
    """read, write or trim; '' when the tool does not split directions (rados bench)."""
    metric: str
    """iops, bw_bytes_per_s, lat_mean_us, lat_p99_us or lat_max_us."""
    t_s: Any
    """Seconds since the workload started (numpy float64 array), at the end of each interval."""
    values: Any
    """The metric over each interval (numpy float64 array, same length as ``t_s``)."""


@dataclass(frozen=True)
class Failure:
    """A workload that did not produce figures, with the tool's own reason."""

    workload: str
    repeat: int
    error: str


LEGACY_SUITE_TOOLS = {"rados": "rados-bench", "osd": "osd-bench", "network": "iperf3"}


@dataclass(frozen=True)
class Run:
    """One invocation of ``cephbench run`` (or one import): what ran, where, and its results."""

    id: int | None
    """None for a run not stored (``import --dry-run``)."""
    label: str | None
    suite: str
    target: str
    status: RunStatus
    started_at: str
    """ISO 8601, UTC."""
    ended_at: str | None = None
    environment: dict[str, Any] = field(default_factory=dict)
    """Host, kernel, CPU, memory, tool versions and target details at the time of the run."""
    params: dict[str, Any] = field(default_factory=dict)
    """The options the run was started with (overrides, repeat count, ...)."""
    error: str | None = None
    """Why the run failed or was aborted, when it did."""
    results: tuple[Result, ...] = ()
    failures: tuple[Failure, ...] = ()
    imported_at: str | None = None
    """When an imported run was imported (ISO 8601, UTC); its ``started_at`` is when its
    output says it ran. None for a run cephbench made (and one imported before it was kept)."""

    @property
    def tool(self) -> str:
        """The tool whose figures the run holds: as stored by ``run`` or ``import``, else (a
        run stored before tools were recorded) told by its suite."""
        if self.params.get("tool"):
            return self.params["tool"]
        imported = self.environment.get("import", {})
        if imported.get("tool"):
            return imported["tool"]
        if imported.get("parser"):  # an import stored before the tool was recorded
            return "fio" if imported["parser"].startswith("fio") else imported["parser"]
        return LEGACY_SUITE_TOOLS.get(self.suite, "fio")

    @property
    def name(self) -> str:
        """How tables refer to the run: its label, else ``#id``."""
        return self.label or (f"#{self.id}" if self.id is not None else "(not stored)")

    def to_json(self) -> dict[str, Any]:
        """The stable JSON shape of ``cephbench show --format json``: ``cephbench.run/1``.
        ``imported_at`` only for an imported run (a run cephbench made has no such key)."""
        times = {"started_at": self.started_at, "ended_at": self.ended_at}
        if self.imported_at is not None:
            times["imported_at"] = self.imported_at
        return {
            "schema": RUN_SCHEMA,
            "id": self.id,
            "label": self.label,
            "suite": self.suite,
            "target": self.target,
            "status": self.status,
            **times,
            "error": self.error,
            "environment": self.environment,
            "params": self.params,
            "results": [r.to_json() for r in self.results],
            "failures": [asdict(f) for f in self.failures],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Run:
        """The Run ``to_json`` wrote, exactly (KeyError/TypeError/ValueError on another
        shape; ``cephbench.contracts.load_run`` checks the version and names the problem).
        A run with an id is a StoredRun, as the store would give it."""
        kind = StoredRun if d["id"] is not None else cls
        return kind(
            id=d["id"],
            label=d["label"],
            suite=d["suite"],
            target=d["target"],
            status=d["status"],
            started_at=d["started_at"],
            ended_at=d["ended_at"],
            environment=d["environment"],
            params=d["params"],
            error=d["error"],
            results=tuple(Result.from_json(r) for r in d["results"]),
            failures=tuple(Failure(f["workload"], f["repeat"], f["error"]) for f in d["failures"]),
            imported_at=d.get("imported_at"),
        )


@dataclass(frozen=True)
class StoredRun(Run):
    """A run as the store gives it back: it has an id (code that handles stored runs only,
    compare and report, takes these)."""

    id: int


@dataclass(frozen=True)
class RawOutput:
    """What one tool invocation printed, and the input it was given."""

    tool: str
    argv: Sequence[str]
    input_text: str | None
    stdout: str
    stderr: str
    returncode: int
    started_at: str
    seconds: float


@dataclass(frozen=True)
class WorkloadOutcome:
    """A workload of one repeat, as a tool reported it (run or imported): its figures, or the
    reason it has none, and what could not be read as printed."""

    name: str
    results: tuple[Result, ...] = ()
    error: str | None = None
    warnings: tuple[str, ...] = ()
    """What could not be read as printed (a mode unknown, a side not in the output, ...)."""


def now() -> str:
    """Now, as every record keeps time: ISO 8601, UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")
