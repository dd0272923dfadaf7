"""mClock's ``custom`` profile left with a client limit (a "protect recovery" recipe copied
onto a fast OSD, Reef and later): the OSD serves clients at most that fraction of the
capacity it assumes, whatever its device can do. The remedy puts that OSD back on the
built-in ``balanced`` profile (the default), whose client class has no limit: the
reservations and limits the custom profile held no longer apply. A runtime option, nothing
restarts; the custom entries stay in the database, unused, and are put back with the
profile if the change is not kept."""

from __future__ import annotations

import shlex

from cephbench.tuning.remedies.base import Cost, FindingRef, Remedy


def _lines(finding: FindingRef) -> list[str]:
    osd = finding.component  # "osd.N", the OSD whose client I/O is limited
    return [shlex.join(["ceph", "config", "set", osd, "osd_mclock_profile", "balanced"])]


REMEDY = Remedy(
    name="mclock-balanced",
    summary="put an OSD whose custom mClock profile limits clients back on balanced",
    answers=("osd.mclock_client_limit",),
    kinds=("config",),
    keys=("osd_mclock_profile",),
    workloads=("rand_wr", "rand_rd", "lat_rand_wr", "lat_rand_rd"),
    cost=Cost.ONLINE,
    lines=_lines,
)
