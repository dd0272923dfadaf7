"""Debug logging left on in the OSDs (``debug_osd 20``, ``debug_bluestore 20`` after a
support case): every op formats and writes log lines, in memory and to the log file, and
small-block IOPS drop by half or more. The remedy removes each raised entry from the
configuration database, so the OSDs go back to Ceph's defaults (``1/5`` for most
subsystems); runtime options, nothing restarts."""

from __future__ import annotations

import shlex

from cephbench.tuning.remedies.base import Cost, FindingRef, Remedy


def _lines(finding: FindingRef) -> list[str]:
    entries = (finding.evidence or {}).get("entries", [])
    return [shlex.join(["ceph", "config", "rm", e["section"], e["name"]]) for e in entries]


REMEDY = Remedy(
    name="osd-debug-off",
    summary="remove raised debug_* levels from the configuration database (back to defaults)",
    answers=("osd.debug_logging",),
    kinds=("config_rm",),
    keys=("debug_*",),
    workloads=("rand_wr", "rand_rd", "lat_rand_wr", "lat_rand_rd"),
    cost=Cost.ONLINE,
    lines=_lines,
)
