"""Every diagnose code, in one place: a stable dotted ``layer.what`` per kind of finding (and
per check a diagnosis could not make), so rules, tests and tools tell findings apart without
reading their prose, and a finding's layer is the code's first part. Pure.

Codes are internal: the stored diagnosis (``cephbench.diagnosis/1``) admits no property
besides those it lists, so its findings keep their layer and carry no code. Rename a code
only with everything that reads it; a third-party rule defines its own :class:`Code`
next to it.
"""

from __future__ import annotations

from dataclasses import dataclass

LAYERS = ("device", "osd", "network", "client", "placement", "cluster", "mds")
"""The layers a finding or a check belongs to (the diagnosis schema's enum)."""


@dataclass(frozen=True)
class Code:
    name: str
    """``layer.what``: the layer one of :data:`LAYERS`, ``what`` in snake case."""
    meaning: str

    def __post_init__(self) -> None:
        layer, dot, what = self.name.partition(".")
        if layer not in LAYERS or not dot or not what.replace("_", "").isalnum():
            raise ValueError(f"diagnose code {self.name!r} is not layer.what")

    @property
    def layer(self) -> str:
        return self.name.partition(".")[0]

    def __str__(self) -> str:
        return self.name


# findings
DEVICE_SLOW_COMMIT = Code(
    "device.slow_commit",
    "an OSD's device takes far longer than its peers' to make a write durable",
)
DEVICE_SLOW_SYNC_WRITES = Code(
    "device.slow_sync_writes",
    "the devices make fewer durable QD1 writes per second than drives with power-loss "
    "protection do",
)
OSD_CPU_STARVED = Code(
    "osd.cpu_starved",
    "an OSD is slow where CPU shows (ops queued, replica writes slow) while its device wait "
    "is near its peers'",
)
OSD_CPU_LIMITED = Code(
    "osd.cpu_limited",
    "an OSD used nearly all the CPU its cgroup or container allows while the load ran",
)
OSD_SLOW_BENCH = Code(
    "osd.slow_bench",
    "an OSD writes far fewer 4 KiB blocks per second in osd bench than its peers",
)
DEVICE_SLOW_COMMIT_ABSOLUTE = Code(
    "device.slow_commit_absolute",
    "an OSD's device takes far longer than a healthy one's to make a write durable, judged "
    "against the best OSD and an absolute expectation (when most OSDs are slow)",
)
OSD_SLOW_BENCH_VS_BEST = Code(
    "osd.slow_bench_vs_best",
    "an OSD writes far fewer 4 KiB blocks per second in osd bench than the best OSD",
)
OSD_CPU_STARVED_VS_BEST = Code(
    "osd.cpu_starved_vs_best",
    "an OSD keeps ops queued and applies replica writes far slower than the best OSD while "
    "its device wait is normal (when most OSDs are slow)",
)
NETWORK_SLOW_LINK = Code(
    "network.slow_link",
    "a host's links (iperf3) carry far less than the other hosts'",
)
NETWORK_SLOW_LINKS = Code(
    "network.slow_links",
    "the links between hosts (iperf3) carry far less than their nominal rate",
)
NETWORK_SLOW_HEARTBEATS = Code(
    "network.slow_heartbeats",
    "the OSD heartbeats to and from a host take far longer than the other hosts' (read "
    "where iperf3 could not run)",
)
PLACEMENT_PG_SKEW = Code(
    "placement.pg_skew",
    "an OSD holds over 30 % more or fewer PGs than the mean, beyond chance",
)
PLACEMENT_PRIMARY_SKEW = Code(
    "placement.primary_skew",
    "an OSD is primary of over 30 % more or fewer PGs than the mean, beyond chance",
)
PLACEMENT_SINGLE_COPY = Code(
    "placement.single_copy",
    "a replicated pool keeps one copy of its data (size 1)",
)
PLACEMENT_OSD_FAILURE_DOMAIN = Code(
    "placement.osd_failure_domain",
    "a pool places its copies across OSDs, not hosts, on a cluster of several hosts",
)
CLUSTER_NOT_QUIET = Code(
    "cluster.not_quiet",
    "recovery, backfill, degraded PGs or a down OSD during the measurement",
)
CLUSTER_SCRUBBING = Code("cluster.scrubbing", "PGs were scrubbing during the measurement")
CLUSTER_UNHEALTHY = Code(
    "cluster.unhealthy", "the cluster reported HEALTH_WARN or HEALTH_ERR during the measurement"
)

MDS_NOT_ACTIVE = Code("mds.not_active", "a CephFS filesystem has no active MDS")
MDS_SLOW_REQUESTS = Code(
    "mds.slow_requests",
    "an MDS answers metadata requests slowly (slow requests, or a mean reply over 100 ms)",
)
MDS_QUEUED = Code("mds.queued", "over 100 requests wait in an MDS's dispatch queue")
MDS_CAPS_HELD = Code(
    "mds.caps_held", "clients do not release the capabilities (caps) an MDS asks back"
)
MDS_METADATA_ON_SLOW_OSD = Code(
    "mds.metadata_on_slow_osd",
    "a filesystem's metadata pool is served by an OSD another rule found slow",
)

# checks a probe could not make (listed as "not possible" or "not done")
NETWORK_IPERF3_UNCHECKED = Code(
    "network.iperf3_unchecked", "iperf3 between hosts not run: the hosts were out of reach"
)
NETWORK_PING_UNCHECKED = Code(
    "network.ping_unchecked", "ping and MTU between hosts not measured: the hosts were out of reach"
)
DEVICE_SYNC_WRITE_UNCHECKED = Code(
    "device.sync_write_unchecked",
    "no sync-write fio on the OSDs' raw devices (out of reach, or holding data)",
)
OSD_BENCH_UNCHECKED = Code("osd.bench_unchecked", "osd bench skipped (--no-osd-bench)")
