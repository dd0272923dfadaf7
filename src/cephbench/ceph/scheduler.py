"""Each OSD's op scheduler, as a benchmark met it: mClock (every release since Quincy) shapes
client I/O by a capacity the OSD assumes of itself, so a result cannot be read without it.

Recorded per OSD from ``ceph config show-with-defaults osd.N`` (the values the daemon runs
with, and where each came from): ``osd_op_queue``; with mClock the profile, the IOPS capacity
and sequential bandwidth of the OSD's kind (``_hdd`` or ``_ssd``, by whether it is rotational),
where that capacity came from, and the client and background reservation, weight and limit.

Where the capacity came from, from the value's source and ``ceph config dump``:
- ``default``: the built-in default (the OSD's start-up benchmark was skipped or rejected);
- ``per-osd``: stored for that OSD alone in the monitors: what an OSD writes after measuring
  itself at its first start (an admin can set one the same way; the two look alike);
- ``set``: set by hand for many OSDs (``osd``, ``global`` or a class mask), in ceph.conf or at
  run time.

Parsing is pure (:func:`parse`, :func:`summarize`); :func:`collect` runs the commands.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from cephbench.ceph.commands import ceph_json
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, Interrupted

#: At most this many OSDs are read (one command each); a summary says how many were.
MAX_OSDS = 16
BUILT_IN_PROFILES = ("balanced", "high_client_ops", "high_recovery_ops")
_CLASSES = ("client", "background_recovery", "background_best_effort")


def wanted(name: str) -> bool:
    """The options this module keeps of an OSD's whole configuration."""
    return name == "osd_op_queue" or name.startswith("osd_mclock_")


def collect(conn: Connection, osd_ids: list[int]) -> dict[str, Any]:
    """``{"osd.N": {option: {"value", "source"}}}`` for the first :data:`MAX_OSDS` OSDs; an
    OSD whose command failed is kept as its error message."""

    def one(osd: int) -> Any:
        try:
            entries = ceph_json(conn, "config", "show-with-defaults", f"osd.{osd}")
        except Interrupted:
            raise
        except CephbenchError as e:
            return {"error": str(e)}
        return keep(entries)

    chosen = sorted(osd_ids)[:MAX_OSDS]
    with ThreadPoolExecutor(max(1, min(8, len(chosen))), thread_name_prefix="sched") as pool:
        results = list(pool.map(one, chosen))
    return {"osds_total": len(osd_ids)} | {
        f"osd.{i}": r for i, r in zip(chosen, results, strict=True)
    }


def keep(entries: Any) -> dict[str, dict[str, str]]:
    """The scheduler's options of one ``config show-with-defaults`` output."""
    rows = entries if isinstance(entries, list) else []
    return {
        r["name"]: {"value": str(r.get("value")), "source": str(r.get("source"))}
        for r in rows
        if isinstance(r, dict) and wanted(str(r.get("name", "")))
    }


@dataclass(frozen=True)
class OsdScheduler:
    """One OSD's scheduler settings, as recorded."""

    osd: str
    queue: str | None
    profile: str | None = None
    kind: str | None = None  # "hdd" or "ssd": which capacity options apply
    capacity_iops: float | None = None
    capacity_from: str | None = None  # "default", "per-osd", "set"
    bandwidth_bytes: float | None = None
    client: dict[str, float] | None = None  # res, wgt, lim
    background: dict[str, dict[str, float]] | None = None

    @property
    def mclock(self) -> bool:
        return self.queue == "mclock_scheduler"

    @property
    def client_limit_iops(self) -> float | None:
        """The most small client ops a second mClock lets through (None: unlimited): its
        client limit, or its client reservation when that is higher, which mClock keeps
        (:func:`client_rate`)."""
        return client_rate(self.client or {}, self.capacity_iops)

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"client_limit_iops": self.client_limit_iops}


def client_rate(client: dict[str, float], capacity_iops: float | None) -> float | None:
    """The most small ops a second mClock serves a client class with ``res``/``lim`` of a
    capacity of ``capacity_iops`` (pure; None: no limit, or no capacity). A class is served
    its reservation even above its limit: on a Tentacle OSD with a capacity of 500 IOPS,
    ``res`` 0.5 over ``lim`` 0.2 served 4 KiB writes at 250 a second (and ``res`` 0.1 under
    ``lim`` 0.2 at 50: the bound is not always reached). Reef and later give both as
    fractions of the capacity; Quincy gave IOPS (values above 1)."""
    lim = client.get("lim")
    if not lim or not capacity_iops:
        return None
    rate = max(lim, client.get("res") or 0.0)
    return rate * capacity_iops if lim <= 1 else rate


def _float(entries: dict, name: str) -> float | None:
    try:
        return float(entries[name]["value"])
    except (KeyError, TypeError, ValueError):
        return None


def _capacity_from(osd: str, name: str, source: str | None, config: Any) -> str:
    if source in (None, "default"):
        return "default"
    if source == "mon":
        for row in config if isinstance(config, list) else []:
            if row.get("name") == name and row.get("section") == osd and not row.get("mask"):
                return "per-osd"
    return "set"


def parse(
    osd: str, entries: dict[str, dict[str, str]], rotational: bool | None, config: Any = None
) -> OsdScheduler:
    """One OSD's scheduler from :func:`keep`'s output, whether it is rotational (its
    ``osd metadata``), and ``ceph config dump`` (to tell a per-OSD capacity from one set
    for many)."""
    queue = entries.get("osd_op_queue", {}).get("value")
    if queue != "mclock_scheduler":
        return OsdScheduler(osd, queue)
    kind = "hdd" if rotational else "ssd"
    cap_name = f"osd_mclock_max_capacity_iops_{kind}"
    profile = entries.get("osd_mclock_profile", {}).get("value")

    def qos(cls: str) -> dict[str, float]:
        out = {}
        for part in ("res", "wgt", "lim"):
            value = _float(entries, f"osd_mclock_scheduler_{cls}_{part}")
            if value is not None:
                out[part] = value
        return out

    return OsdScheduler(
        osd,
        queue,
        profile=profile,
        kind=kind,
        capacity_iops=_float(entries, cap_name),
        capacity_from=_capacity_from(
            osd, cap_name, entries.get(cap_name, {}).get("source"), config
        ),
        bandwidth_bytes=_float(entries, f"osd_mclock_max_sequential_bandwidth_{kind}"),
        client=qos("client"),
        background={cls: qos(cls) for cls in _CLASSES[1:]},
    )


def from_fingerprint(fp: dict[str, Any]) -> list[OsdScheduler]:
    """Every recorded OSD's scheduler, from a stored fingerprint (pure; [] if not recorded)."""
    recorded = fp.get("osd_scheduler")
    if not isinstance(recorded, dict):
        return []
    meta = fp.get("osd_metadata")
    meta = meta if isinstance(meta, list) else []
    rotational = {f"osd.{m.get('id')}": m.get("rotational") == "1" for m in meta}
    out = []
    for osd, entries in sorted(recorded.items(), key=lambda kv: _osd_number(kv[0])):
        if osd.startswith("osd.") and isinstance(entries, dict) and "error" not in entries:
            out.append(parse(osd, entries, rotational.get(osd), fp.get("config")))
    return out


def _osd_number(name: str) -> int:
    try:
        return int(name.split(".", 1)[1])
    except (IndexError, ValueError):
        return -1


_FROM = {
    "default": "built-in default",
    "per-osd": "stored per OSD (its start-up measurement, or set for it)",
    "set": "set by hand",
}


def describe(s: OsdScheduler) -> str:
    """One line: "mclock_scheduler, balanced, 315 IOPS (hdd, built-in default)"."""
    if not s.mclock:
        return s.queue or "unknown"
    parts = [s.queue or "", s.profile or "?"]
    if s.capacity_iops is not None:
        parts.append(f"{s.capacity_iops:g} IOPS ({s.kind}, {_FROM.get(s.capacity_from or '', '')})")
    if s.client_limit_iops is not None:
        parts.append(f"client limit {s.client_limit_iops:g} IOPS")
    return ", ".join(p for p in parts if p)


def summarize(fp: dict[str, Any]) -> str | None:
    """The OSDs' schedulers in one cell: each distinct setting with the OSDs it covers."""
    found = from_fingerprint(fp)
    if not found:
        return None
    groups = Counter(describe(s) for s in found)
    total = fp.get("osd_scheduler", {}).get("osds_total", len(found))
    text = "; ".join(
        f"{line} ({n} OSDs)" if len(groups) > 1 else line for line, n in groups.items()
    )
    return text + (f" [{len(found)} of {total} OSDs read]" if total > len(found) else "")
