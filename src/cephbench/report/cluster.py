"""The cluster table users post beside their results: version, nodes, OSDs by class,
capacity, replication and failure domain of the pool used, MONs, MGRs."""

from __future__ import annotations

from typing import Any

from cephbench.tables.table import MISSING, Table


def _bytes(n: int | None) -> str:
    if not n:
        return MISSING
    for unit, power in (("PiB", 5), ("TiB", 4), ("GiB", 3), ("MiB", 2)):
        if n >= 1024**power:
            return f"{n / 1024**power:.1f} {unit}"
    return f"{n} B"


def _counts(d: dict[str, int]) -> str:
    return ", ".join(f"{n} {k}" for k, n in d.items()) or MISSING


def cluster_rows(summary: dict[str, Any]) -> list[tuple[str, str]]:
    pool = summary.get("pool")
    rows = [
        ("Ceph version", summary.get("ceph_version") or MISSING),
        ("Client", summary.get("client") or MISSING),
        ("Nodes", str(summary.get("nodes", MISSING))),
        ("OSDs", f"{summary.get('osds', 0)} ({_counts(summary.get('osds_by_class', {}))})"),
        ("Object store", _counts(summary.get("objectstores", {}))),
        ("Devices", _counts(summary.get("devices", {}))),
        ("Raw capacity", _bytes(summary.get("raw_bytes"))),
    ]
    if pool:
        repl = (
            f"{pool['type']} size {pool['size']}, min_size {pool['min_size']}"
            f", failure domain {pool.get('failure_domain') or MISSING}"
        )
        rows += [
            (f"Pool {pool['name']}", f"{repl}; {pool.get('pg_num')} PGs"),
            (
                "Usable capacity",
                _bytes(pool.get("usable_bytes"))
                + (
                    f" ({_bytes(pool.get('max_avail_bytes'))} available)"
                    if pool.get("max_avail_bytes")
                    else ""
                ),
            ),
        ]
    rows += [
        ("MONs", str(summary.get("mons", MISSING))),
        ("MGRs", str(summary.get("mgrs", MISSING))),
        ("Health at start", summary.get("health") or MISSING),
    ]
    if summary.get("scheduler"):
        rows.append(("OSD scheduler", summary["scheduler"]))
    return rows


def cluster_table(run_id: int, summary: dict[str, Any]) -> Table:
    return Table(
        ("", "Cluster"),
        tuple(cluster_rows(summary)),
        title=f"Run {run_id} — cluster",
        align=("l", "l"),
    )
