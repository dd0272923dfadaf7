"""Suites that run Ceph's own tools rather than fio: ``rados``, ``osd``, ``network``.

Each names its tool, the target it runs on by default, and its workloads; the runner runs
them through the tool's driver (drivers/rados_bench.py, osd_bench.py, iperf3.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ToolSuite:
    name: str
    tool: str
    description: str
    default_target: str
    """The target when ``--target`` is not given (``rados:lab`` needs a running lab)."""
    runtime: float | None
    """Seconds per workload (``--runtime`` replaces it); None when the tool decides."""
    workloads: tuple[str, ...] = ()
    """Fixed workloads; empty when the cluster decides (one per OSD, per host pair)."""


TOOL_SUITES: dict[str, ToolSuite] = {
    "rados": ToolSuite(
        "rados", "rados-bench",
        "rados bench write (objects kept), then seq and rand reads of them, then cleanup; "
        "4 MiB objects, 16 concurrent ops, 60 s each",
        "rados:lab", 60.0, ("write", "seq", "rand")),
    "osd": ToolSuite(
        "osd", "osd-bench",
        "ceph tell osd.N bench on every up OSD, one after another (1 GiB in 4 MiB writes)",
        "ceph:cluster", None),
    "network": ToolSuite(
        "network", "iperf3",
        "iperf3 between every ordered pair of the cluster's hosts (in the lab: its namespaces), 10 s each",
        "ceph:cluster", 10.0),
}


def tool_suite(name: str) -> ToolSuite | None:
    return TOOL_SUITES.get(name)
