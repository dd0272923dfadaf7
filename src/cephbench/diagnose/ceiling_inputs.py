"""What the ceiling arithmetic (:mod:`cephbench.diagnose.ceilings`) takes: each OSD's measured
capability and share of the pool, the pool's layout, the links, the CPU a workload spent, the
client's cache, and the workload itself. Frozen values; :mod:`cephbench.diagnose.capability`
reads them from a diagnosis and a run."""

from __future__ import annotations

from dataclasses import dataclass, field

from cephbench.diagnose.client_cache import ClientCache

SMALL = 4096
LARGE = 4 << 20


@dataclass(frozen=True)
class MclockLimit:
    """An OSD's mClock limit on its client class (Reef and later): ``rate``, the larger of the
    class's limit and its reservation (mClock keeps a reservation above the limit), as a
    fraction of the capacity mClock assumes of the OSD. mClock charges a write its bytes, or one
    I/O at that capacity (its sequential bandwidth over its IOPS, 307 KiB for 150 MiB/s and
    500 IOPS) when that is more, so ``bs``-byte writes pass at ``rate x bw / max(bs, bw /
    iops)``; a read carries no data to charge, so each read costs one I/O.
    Measured on a one-OSD Tentacle lab, capacity 500 IOPS, ``rados bench``: ``res`` 0.5 and
    ``lim`` 0.2 served 4 KiB writes at 250 a second and 1 MiB at 75; ``res`` and ``lim`` 0.2,
    4 KiB writes at 100, 1 MiB writes at 30 and 1 MiB reads at 99; ``res`` 0.1 and ``lim``
    0.2, 1 MiB writes at 27 (the bound, 30) and 4 KiB at 50 (the bound, 100, not reached)."""

    lim: float
    res: float
    capacity_iops: float
    bandwidth_bytes: float | None
    profile: str | None = None

    @property
    def rate(self) -> float:
        return max(self.lim, self.res)

    @property
    def iops(self) -> float:
        """The bound for small ops: the rate x the capacity."""
        return self.rate * self.capacity_iops

    def ops(self, bs: int, writes: bool = True) -> float:
        """Client ops of ``bs`` bytes a second that mClock lets through, at most."""
        return self.iops / self.charge(bs, writes)

    def charge(self, bs: int, writes: bool = True) -> float:
        """What one ``bs``-byte op costs, in small I/Os (a read, or without a known
        bandwidth: 1)."""
        if not writes or not self.bandwidth_bytes:
            return 1.0
        return max(1.0, bs * self.capacity_iops / self.bandwidth_bytes)


@dataclass(frozen=True)
class OsdCapability:
    """One OSD: where it is, what ``osd bench`` measured, and its share of the pool."""

    name: str
    host: str | None
    write_4k_iops: float | None
    write_4m_bytes_per_s: float | None
    replica_share: float
    """Its share of the pool's copies (PGs it holds / PGs x copies); the shares sum to 1."""
    primary_share: float
    """Its share of the pool's primaries; the shares sum to 1."""
    commit_ms: float | None = None
    """BlueStore's commit of one write at QD1 (the diagnosis' QD1 writes), ms; else the
    floor takes one osd bench write's share of its time."""
    read_4k_iops: float | None = None
    """4 KiB random reads of objects whose primary it is, under a load of its own (the
    diagnosis' read bench, :mod:`cephbench.diagnose.read_bench`); None: not measured."""
    mclock: MclockLimit | None = None
    """mClock's limit on its client I/O (a custom profile's); None: unlimited, or no mClock."""

    def commit_time_ms(self, bs: int) -> float | None:
        if self.commit_ms is not None:
            return self.commit_ms
        iops = self.write_iops(bs)
        return 1000.0 / iops if iops else None

    def write_iops(self, bs: int) -> float | None:
        """Writes of ``bs`` bytes per second, through the two bench points (cost per write
        ``a + bs / B``); one point alone when only one was measured."""
        t4k = 1.0 / self.write_4k_iops if self.write_4k_iops else None
        t4m = LARGE / self.write_4m_bytes_per_s if self.write_4m_bytes_per_s else None
        if t4k is None and t4m is None:
            return None
        if t4k is None:
            assert t4m is not None
            return LARGE / t4m / max(bs, 1)  # bandwidth alone
        if t4m is None:
            return 1.0 / t4k if bs <= SMALL else None
        per_byte = max(0.0, (t4m - t4k) / (LARGE - SMALL))
        fixed = max(0.0, t4k - SMALL * per_byte)
        cost = fixed + bs * per_byte
        return 1.0 / cost if cost > 0 else None


@dataclass(frozen=True)
class PoolLayout:
    """Replicated (``size`` copies) or erasure-coded (``k`` + ``m`` chunks of ``bs / k``)."""

    kind: str  # "replicated" | "erasure"
    size: int
    k: int | None = None
    m: int | None = None

    @property
    def copies(self) -> int:
        """Writes a client write becomes on the OSDs."""
        if self.kind == "erasure" and self.k and self.m:
            return self.k + self.m
        return max(1, self.size)

    def piece(self, bs: int) -> int:
        """Bytes of each of those writes."""
        if self.kind == "erasure" and self.k:
            return max(SMALL, -(-bs // self.k))
        return bs

    def describe(self) -> str:
        if self.kind == "erasure" and self.k and self.m:
            return f"erasure coded k={self.k} m={self.m}"
        return f"replicated size {self.size}"


@dataclass(frozen=True)
class CpuUse:
    """CPU seconds spent during one workload, and the cores of the machine they share."""

    ios: float
    """Client I/Os the workload completed in that time."""
    seconds_by_process: dict[str, float]
    """"osd.N" / "client" -> CPU seconds (user + system)."""
    cores: float
    machine: str = "this machine"
    limits: dict[str, float] = field(default_factory=dict)
    """"osd.N" -> the cores it may use (:mod:`cephbench.system.cpu_limit`), where fewer
    than the machine's."""
    machines: dict[str, tuple[float, tuple[str, ...]]] = field(default_factory=dict)
    """Where the processes ran on several machines (``--hosts``): machine -> (its cores, its
    processes); empty: all of them on ``machine``."""
    limit_by: dict[str, str] = field(default_factory=dict)
    """"osd.N" -> what sets its limit (``cpu_limit.QUOTA`` or ``AFFINITY``); a run recorded
    before it was stored read the quota alone."""

    @property
    def per_io(self) -> float | None:
        total = sum(self.seconds_by_process.values())
        return total / self.ios if self.ios > 0 and total > 0 else None

    def by_machine(self) -> dict[str, tuple[float, dict[str, float]]]:
        """Machine -> (its cores, its processes' CPU seconds)."""
        if not self.machines:
            return {self.machine: (self.cores, dict(self.seconds_by_process))}
        return {
            m: (c, {p: self.seconds_by_process[p] for p in procs if p in self.seconds_by_process})
            for m, (c, procs) in self.machines.items()
        }


POOL_PGS = "the pool's PGs"


@dataclass(frozen=True)
class Capabilities:
    osds: list[OsdCapability]
    layout: PoolLayout
    link_bytes_per_s: dict[str, float] = field(default_factory=dict)
    """Host -> what its link carried (iperf3, bytes/s)."""
    rtt_ms: float | None = None
    """A round trip between hosts (ping): the median of the pairs measured."""
    notes: list[str] = field(default_factory=list)
    """What was not measured, said plainly."""
    client_cache: ClientCache | None = None
    """librbd's cache for the run's client (None: the client is not librbd)."""
    shares_of: str = POOL_PGS
    """What the OSDs' shares were counted over: the pool's PGs, or the run's data objects
    where each lies (:func:`cephbench.diagnose.capability.shares_from_objects`)."""


@dataclass(frozen=True)
class Workload:
    name: str
    rw: str
    bs: int
    iodepth: int
    numjobs: int
    iops: float | None
    bw_bytes_per_s: float | None
    lat_mean_us: float | None
    op: str = "write"
    runtime_s: float | None = None
    """fio's runtime of the workload (the mean over its repeats)."""

    @property
    def writes(self) -> bool:
        return self.op == "write"

    @property
    def label(self) -> str:
        kind = "rand" if self.rw.startswith("rand") else "seq"
        qd = self.iodepth * self.numjobs
        return f"{kind}_{'wr' if self.writes else 'rd'} {size_text(self.bs)} qd{qd}"


def size_text(bs: int) -> str:
    if bs >= 1 << 20 and bs % (1 << 20) == 0:
        return f"{bs >> 20}M"
    if bs >= 1024 and bs % 1024 == 0:
        return f"{bs >> 10}k"
    return f"{bs}B"
