"""Probes that read the cluster's state: its layout and settings (before the load), the op
history size (raised for the run, always restored), and what the OSDs say after the load."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cephbench.ceph.commands import ceph
from cephbench.ceph.connection import Connection
from cephbench.diagnose import client_cache
from cephbench.diagnose import evidence as ev
from cephbench.diagnose.probes import Probe
from cephbench.diagnose.session import Session
from cephbench.errors import ToolFailed
from cephbench.resources.shield import deferred_interrupts
from cephbench.resources.undo import undoes
from cephbench.store import Resource
from cephbench.tools.base import Step

HISTORY: dict[str, str | int] = {"osd_op_history_size": 500, "osd_op_history_duration": 600}
RBD_CACHE_DEFAULTS = client_cache.DEFAULTS


READS = (
    ("osd", "tree"),
    ("osd", "dump"),
    ("osd", "pool", "ls", "detail"),
    ("osd", "crush", "rule", "dump"),
    ("pg", "dump", "pgs_brief"),
    ("status",),
    ("config", "get", "client"),
)
IN_FINGERPRINT = {
    ("osd", "tree"): "osd_tree",
    ("osd", "pool", "ls", "detail"): "pools",
    ("osd", "crush", "rule", "dump"): "crush_rules",
    ("status",): "status",
}
"""Reads the run's fingerprint (collected as the run started) already holds: not asked again."""


class ClusterFacts(Probe):
    """OSD tree, pools and their rules, PGs and primaries per OSD, health, rbd cache."""

    name = "cluster"

    def run(self, session: Session) -> Iterator[Step]:
        e = session.evidence
        facts = session.ctx.cluster_facts
        known = {args: facts[key] for args, key in IN_FINGERPRINT.items() if _read(facts.get(key))}
        asked = [args for args in READS if args not in known]
        early = [args for args in session.early if args not in asked]
        got = dict(zip([*asked, *early], session.ceph_many(*asked, *early), strict=True))
        for step, _ in got.values():
            yield step
        session.early.update({args: got[args] for args in early})
        tree, dump, pools, rules, pgs, status, client = (
            known[args] if args in known else got[args][1] for args in READS
        )
        session.osds = sorted(o["osd"] for o in (dump or {}).get("osds", []) if o.get("up"))
        e["osds"] = {
            str(k): {"host": v} for k, v in ev.osd_hosts(tree or {}).items() if k in session.osds
        }
        e["hosts"] = sorted({v["host"] for v in e["osds"].values() if v["host"]})
        ours = getattr(session.ctx.target, "pool", None)
        e["pools"] = ev.pools(pools or [], rules or [], tree or {}, ours)
        e["placement"] = ev.placement(pgs or {}, ev.pool_id(pools or [], ours))
        e["health"] = {"samples": [ev.health_sample(status or {})]}
        cache = {
            k: str((client or {}).get(k, f"{v} (default)")) for k, v in RBD_CACHE_DEFAULTS.items()
        }
        e["client"] = {"rbd_cache": cache}


def _read(value: Any) -> bool:
    """A fingerprint entry that holds the command's JSON (not None, not its error)."""
    return value is not None and not (isinstance(value, dict) and set(value) == {"error"})


class OpHistory(Probe):
    """Keep more ops in each OSD's history for the run (``dump_historic_ops``); put the
    values back afterwards, whatever happens (recorded first: ``cephbench cleanup`` puts
    them back after a kill)."""

    name = "history"
    reads = tuple(("tell", "osd.*", "config", "get", o) for o in HISTORY)

    def run(self, session: Session) -> Iterator[Step]:
        old: dict[str, dict[str, str]] = {}
        for option, (step, got) in zip(HISTORY, session.read(*self.reads), strict=True):
            if step is not None:
                yield step
            for osd, value in got.items():
                if isinstance(value, dict) and option in value:
                    old.setdefault(osd, {})[option] = str(value[option])
        if not old:
            return
        with deferred_interrupts():  # recorded with its undo, then changed
            rid = session.ctx.resources.add(
                "osd_config", "osd_op_history", {"conn": session.conn.to_json(), "old": old}
            )
            session.restore.callback(_restore, session, rid, old)
        step, _ = session.tell_all("injectargs", *_args(HISTORY), json_out=False)
        yield step


def _args(values: dict[str, str | int]) -> list[str]:
    return [f"--{k}={v}" for k, v in values.items()]


def _restore(session: Session, rid: int, old: dict[str, dict[str, str]]) -> None:
    with deferred_interrupts():
        _put_back(session.conn, old)
        session.ctx.resources.removed(rid)


def _put_back(conn: Connection, old: dict[str, dict[str, str]]) -> None:
    """Every OSD's values as they were: one command when they were all the same."""
    groups: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for osd, values in old.items():
        groups.setdefault(tuple(sorted(values.items())), []).append(osd)
    single = len(groups) == 1
    for items, osds in groups.items():
        wanted: dict[str, str | int] = dict(items)
        for who in ["osd.*"] if single else [f"osd.{o}" for o in osds]:
            result = ceph(conn, "tell", who, "injectargs", *_args(wanted), check=False)
            if result.returncode != 0 and single is False:
                raise ToolFailed(
                    f"could not restore {wanted} on {who}: {result.last_error_line()}",
                    hint="cephbench cleanup (tries again)",
                )


@undoes("osd_config")
def undo_config(resource: Resource) -> None:
    _put_back(Connection.from_json(resource.detail["conn"]), resource.detail["old"])


def after_load(session: Session, perf: Any, nets: dict[str, Any], status: Any) -> None:
    """What ``ceph osd perf``, each OSD's heartbeat ping times and ``ceph status`` said
    after the load (read with its last counters)."""
    e = session.evidence
    for osd, ms in ev.osd_perf(perf or {}).items():
        if str(osd) in e["osds"]:
            e["osds"][str(osd)]["osd_perf_commit_ms"] = ms
    pings: dict[str, float] = {}
    for net in nets.values():
        pings.update(ev.heartbeats(net or {}))
    e.setdefault("network", {})["heartbeat_ms"] = pings
    e["health"]["samples"].append(ev.health_sample(status or {}))
