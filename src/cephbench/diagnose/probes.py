"""The probes of a diagnosis, registered like tools: a name mapped to ``module:Class``,
imported only when used, run in registry order (third-party packages add probes through the
``cephbench.diagnose_probes`` entry-point group, run after the built-ins). Each probe runs
commands (recording every raw output as a step of the run) and adds what it read to the
session's evidence.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from cephbench.registry import Registry

if TYPE_CHECKING:
    from cephbench.diagnose.session import Session
    from cephbench.tools.base import Step

PROBES: dict[str, str] = {
    "cluster": "cephbench.diagnose.facts:ClusterFacts",
    "history": "cephbench.diagnose.facts:OpHistory",
    "config-db": "cephbench.diagnose.config_db:ConfigDb",
    "scheduler": "cephbench.diagnose.scheduler_probe:OsdScheduler",
    "load": "cephbench.diagnose.load:ClientLoad",
    "osd-bench": "cephbench.diagnose.load:OsdBenchProbe",
    "osd-read": "cephbench.diagnose.read_bench:OsdReadBench",
    "network": "cephbench.diagnose.netprobe:LabNetwork",
    "mds": "cephbench.diagnose.mds:MdsProbe",
}
REGISTRY = Registry(PROBES, group="cephbench.diagnose_probes")


class Probe(ABC):
    """One part of the diagnosis: what it reads, and the steps it records."""

    name: ClassVar[str]
    reads: ClassVar[tuple[tuple[str, ...], ...]] = ()
    """``ceph`` reads of the cluster's state this probe needs, made with the cluster probe's
    first batch (each ``ceph`` call is a process; side by side they cost about one) and taken
    with :meth:`Session.read`."""

    def begin(self, session: Session) -> None:
        """Before any probe runs: start what can be made ready in the background (never a
        measurement), with :meth:`Session.background`. Most probes have nothing to start."""
        return None

    @abstractmethod
    def run(self, session: Session) -> Iterator[Step]:
        """Collect; yield each command's raw output as a step; add to ``session.evidence``."""


def probes() -> list[Probe]:
    return [probe() for probe in REGISTRY.load_all().values()]
