"""The probe that reads each OSD's op scheduler (``ceph config show-with-defaults osd.N``): on
every release since Quincy mClock decides how much of an OSD client I/O gets, so a diagnosis
must know its profile, capacity and limits (``ceph/scheduler.py`` reads them, the mClock rule
:mod:`cephbench.diagnose.rules.mclock` judges them). One command per OSD, at once, up to
``scheduler.MAX_OSDS``."""

from __future__ import annotations

from collections.abc import Iterator

from cephbench.ceph import scheduler
from cephbench.diagnose.probes import Probe
from cephbench.diagnose.session import Session
from cephbench.tools.base import Step

METADATA = ("osd", "metadata")


class OsdScheduler(Probe):
    """Each OSD's scheduler, into ``evidence["osd_scheduler"]`` (OSD id -> its settings)."""

    name = "scheduler"
    reads = (METADATA,)

    def run(self, session: Session) -> Iterator[Step]:
        [(step, meta)] = session.read(METADATA)
        if step is not None:
            yield step
        osds = sorted(session.osds)[: scheduler.MAX_OSDS]
        if not osds:
            return
        rotational = {
            m.get("id"): m.get("rotational") == "1"
            for m in (meta if isinstance(meta, list) else [])
            if isinstance(m, dict)
        }
        commands = [("config", "show-with-defaults", f"osd.{i}") for i in osds]
        found = {}
        for osd, (step, data) in zip(osds, session.ceph_many(*commands), strict=True):
            yield step
            if data is None:
                continue
            config = session.evidence.get("config_db")  # its probe runs first
            s = scheduler.parse(f"osd.{osd}", scheduler.keep(data), rotational.get(osd), config)
            found[str(osd)] = s.to_json()
        session.evidence["osd_scheduler"] = found
