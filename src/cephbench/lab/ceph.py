"""Running the ``ceph`` CLI against a lab, and reading what it answers (pure parsers).

The lab talks to its cluster through its own environment (it runs before any Connection
exists: bootstrap, keys fed on stdin); everything else uses ceph/commands.py. Both read JSON with ceph/output.py."""

from __future__ import annotations

from typing import Any

from cephbench.ceph.output import parse_json
from cephbench.errors import ToolFailed
from cephbench.lab.info import LabInfo
from cephbench.system.process import ProcessResult


def ceph(info: LabInfo, *args: str, timeout: float = 30, stdin: str | None = None) -> ProcessResult:
    """``ceph --connect-timeout N ARGS`` with the lab's environment; ToolFailed on failure."""
    result = info.tools.run(  # a release root that cannot run it: one ToolMissing
        "ceph",
        "--connect-timeout",
        str(max(1, int(timeout))),
        *args,
        env=info.env,
        timeout=timeout + 10,
        stdin=stdin,
    )
    if result.returncode != 0:
        raise ToolFailed(f"ceph {' '.join(args)} failed: {result.last_error_line()}")
    return result


def ceph_json(info: LabInfo, *args: str, timeout: float = 30) -> Any:
    """``ceph ARGS -f json`` against the lab, parsed."""
    return parse_json(args, ceph(info, *args, "-f", "json", timeout=timeout).stdout)


def _osdmap(status: dict) -> dict:
    osdmap = status.get("osdmap", {})
    return osdmap.get("osdmap", osdmap)  # nested before Pacific


def health_checks(status: dict) -> list[str]:
    """ "CHECK: summary" for every health check in ``ceph status`` output."""
    checks = status.get("health", {}).get("checks", {})
    return [f"{name}: {c.get('summary', {}).get('message', '')}" for name, c in checks.items()]


def not_ready(status: dict, osds: int) -> str | None:
    """What the lab still waits for, from ``ceph status -f json``; None when it is ready.

    Ready: all ``osds`` up and in, a mgr active, every PG active+clean, HEALTH_OK.
    """
    osdmap = _osdmap(status)
    up, in_ = osdmap.get("num_up_osds", 0), osdmap.get("num_in_osds", 0)
    if up < osds or in_ < osds:
        return f"{up}/{osds} OSDs up, {in_} in"
    if not status.get("mgrmap", {}).get("available"):
        return "an active mgr"
    pgmap = status.get("pgmap", {})
    total = pgmap.get("num_pgs", 0)
    clean = sum(
        s["count"] for s in pgmap.get("pgs_by_state", []) if s["state_name"] == "active+clean"
    )
    if clean < total:
        return f"PGs active+clean: {clean}/{total}"
    health = status.get("health", {}).get("status", "unknown")
    if health != "HEALTH_OK":
        return f"{health} ({'; '.join(health_checks(status))})"
    return None


def osd_hosts(tree: dict) -> dict[int, str]:
    """OSD id -> CRUSH host, from ``ceph osd tree -f json``."""
    nodes = {n["id"]: n for n in tree.get("nodes", [])}
    out = {}
    for node in nodes.values():
        if node.get("type") == "host":
            for child in node.get("children", []):
                out[child] = node["name"]
    return out


def osd_states(dump: dict) -> dict[int, dict[str, bool]]:
    """OSD id -> {"up": bool, "in": bool}, from ``ceph osd dump -f json``."""
    return {o["osd"]: {"up": bool(o["up"]), "in": bool(o["in"])} for o in dump.get("osds", [])}


def pools(dump: dict) -> list[dict[str, Any]]:
    """Pools in ``ceph osd dump -f json``: name, id, size, min_size, pg_num, applications."""
    return [
        {
            "name": p["pool_name"],
            "id": p["pool"],
            "size": p["size"],
            "min_size": p["min_size"],
            "pg_num": p["pg_num"],
            "applications": sorted(p.get("application_metadata", {})),
        }
        for p in dump.get("pools", [])
    ]


def pgs_clean(pg_ls: dict | list, pg_num: int) -> bool:
    """All ``pg_num`` PGs of ``ceph pg ls-by-pool P -f json`` are active+clean."""
    stats = pg_ls.get("pg_stats", []) if isinstance(pg_ls, dict) else pg_ls
    return len(stats) == pg_num and all(s.get("state") == "active+clean" for s in stats)
