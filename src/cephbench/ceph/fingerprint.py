"""The cluster a result came from: Ceph's own JSON, collected once per run, and the summary
table users post (version, nodes, OSDs by class, capacity, replication, MONs, MGRs)."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

from cephbench.ceph import scheduler
from cephbench.ceph.commands import ceph_json
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, Interrupted

COMMANDS: dict[str, tuple[str, ...]] = {
    "versions": ("versions",),
    "status": ("status",),
    "osd_tree": ("osd", "tree"),
    "osd_metadata": ("osd", "metadata"),
    "pools": ("osd", "pool", "ls", "detail"),
    "crush_rules": ("osd", "crush", "rule", "dump"),
    "df": ("df",),
    "config": ("config", "dump"),
}


def collect(conn: Connection) -> dict[str, Any]:
    """Every COMMANDS output, parsed; a command that fails is kept as its error message.
    Then each OSD's scheduler (``ceph/scheduler.py``), and the client's own version.

    The commands run at once: each ``ceph`` spends most of its time starting up."""

    def one(args: tuple[str, ...]) -> Any:
        try:
            return ceph_json(conn, *args)
        except Interrupted:
            raise
        except CephbenchError as e:
            return {"error": str(e)}

    with ThreadPoolExecutor(len(COMMANDS) + 1, thread_name_prefix="fingerprint") as pool:
        futures = {key: pool.submit(one, args) for key, args in COMMANDS.items()}
        futures["client"] = pool.submit(client, conn)
        try:
            while wait(futures.values(), timeout=0.2).not_done:
                pass
        except KeyboardInterrupt:  # the commands under way end within their timeouts
            wait(futures.values())
            raise
        fp = {key: f.result() for key, f in futures.items()}
    meta = fp.get("osd_metadata")
    ids = (
        [m["id"] for m in meta if isinstance(m, dict) and "id" in m]
        if isinstance(meta, list)
        else []
    )
    fp["osd_scheduler"] = scheduler.collect(conn, ids)
    return fp


def client(conn: Connection) -> dict[str, Any]:
    """The client programs a run used: where they are reached, and their Ceph version."""
    out: dict[str, Any] = {"tools": conn.tools.describe(), "version": None, "release": None}
    try:
        found = conn.tools.version()
    except CephbenchError as e:
        return out | {"error": str(e)}
    if found:
        out |= {"version": found.version, "release": found.release}
    return out


def ahead(conn: Connection) -> Future[dict[str, Any]]:
    """:func:`collect` begun now, in the background: for a run that has more to prepare (an
    image to create and prefill, about a second) once its cluster is in the state to record.
    :func:`take` gives its result."""
    pool = ThreadPoolExecutor(1, thread_name_prefix="fingerprint-ahead")
    try:
        return pool.submit(collect, conn)
    finally:
        pool.shutdown(wait=False)


def take(future: Future[dict[str, Any]]) -> dict[str, Any]:
    """The fingerprint :func:`ahead` began; Ctrl-C waits for its commands (each has its own
    timeout) and then stops the run."""
    try:
        while wait([future], timeout=0.2).not_done:
            pass
    except KeyboardInterrupt:
        wait([future])
        raise
    return future.result()


def _version(versions: dict) -> str | None:
    """The newest version string, e.g. "16.2.15 (pacific)"; all of them when mixed."""
    overall = versions.get("overall", {}) if isinstance(versions, dict) else {}
    found = []
    for text in overall:
        parts = text.split()
        if len(parts) >= 5:
            found.append(f"{parts[2]} ({parts[4]})")
    return ", ".join(sorted(found)) or None


def _client(recorded: Any) -> str | None:
    """ "16.2.15 (pacific), this machine" from the recorded client; None if not recorded."""
    if not isinstance(recorded, dict) or not recorded.get("version"):
        return None
    return f"{recorded['version']} ({recorded.get('release')}), {recorded.get('tools')}"


def _failure_domain(rules: Any, rule_id: int | None) -> str | None:
    """The failure domain of rule ``rule_id`` in ``rules`` (a fingerprint's, any shape)."""
    for rule in rules if isinstance(rules, list) else []:
        if rule.get("rule_id") == rule_id:
            for step in rule.get("steps", []):
                if step.get("op", "").startswith(("choose", "chooseleaf")):
                    return step.get("type")
    return None


def _list(value: Any) -> list:
    """A fingerprint's field that should be a list: itself if it is one, else []."""
    return value if isinstance(value, list) else []


def summarize(fp: dict[str, Any], pool: str | None = None) -> dict[str, Any]:
    """The cluster table's values (pure), from a stored fingerprint; ``pool`` the one benchmarked."""
    status, df = fp.get("status") or {}, fp.get("df") or {}
    nodes = fp.get("osd_tree", {}).get("nodes", []) if isinstance(fp.get("osd_tree"), dict) else []
    hosts = [n["name"] for n in nodes if n.get("type") == "host"]
    osds = [n for n in nodes if n.get("type") == "osd"]
    classes = Counter(n.get("device_class") or "unknown" for n in osds)
    meta = _list(fp.get("osd_metadata"))
    models = Counter(
        (m.get("bluestore_bdev_model") or m.get("device_ids") or m.get("devices") or "unknown")
        for m in meta
    )
    stats = df.get("stats", {}) if isinstance(df, dict) else {}
    out: dict[str, Any] = {
        "ceph_version": _version(fp.get("versions") or {}),
        "fsid": status.get("fsid"),
        "nodes": len(hosts),
        "osds": len(osds),
        "osds_by_class": dict(sorted(classes.items())),
        "objectstores": dict(Counter(m.get("osd_objectstore", "unknown") for m in meta)),
        "rotational": dict(Counter("hdd" if m.get("rotational") == "1" else "ssd" for m in meta)),
        "devices": dict(models),
        "raw_bytes": stats.get("total_bytes"),
        "raw_avail_bytes": stats.get("total_avail_bytes"),
        "mons": status.get("monmap", {}).get("num_mons"),
        "mgrs": (1 if status.get("mgrmap", {}).get("available") else 0)
        + status.get("mgrmap", {}).get("num_standbys", 0),
        "health": status.get("health", {}).get("status"),
        "pool": None,
        "client": _client(fp.get("client")),
        "scheduler": scheduler.summarize(fp),
    }
    pools = _list(fp.get("pools"))
    chosen = next((p for p in pools if p.get("pool_name") == pool), None)
    if chosen is not None:
        size = chosen.get("size") or 1
        replicated = chosen.get("type") == 1
        usable = next(
            (p["stats"].get("max_avail") for p in df.get("pools", []) if p.get("name") == pool),
            None,
        )
        out["pool"] = {
            "name": pool,
            "type": "replicated" if replicated else "erasure",
            "size": size,
            "min_size": chosen.get("min_size"),
            "pg_num": chosen.get("pg_num"),
            "crush_rule": chosen.get("crush_rule"),
            "failure_domain": _failure_domain(fp.get("crush_rules"), chosen.get("crush_rule")),
            "usable_bytes": stats["total_bytes"] // size
            if replicated and stats.get("total_bytes")
            else None,
            "max_avail_bytes": usable,
        }
    return out
